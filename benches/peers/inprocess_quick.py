# Quick same-run check, in-process: qrenyi.divergence on two raw matrices against the numpy five-liners
# of peers.py (orders 2 and 1.5 for the Rényi families: α = 2 takes the integer-order routes, 1.5 the
# general one), d = 64, 256, 512. Run from benches/peers with the package on PYTHONPATH:
#   OPENBLAS_NUM_THREADS=1 python inprocess_quick.py [--before OLD] [--dims 64,256,512] [--samples K]
#   [--orders 2,1.5] [--only-renyi]
# (and once more with default threads). Best of K alternated samples (7; 3 at d = 512) per side; last
# column: relative deviation from numpy. --before OLD: a directory holding an older `qrenyi` package
# (python/qrenyi/* beside the extension as qrenyi/_qrenyi.abi3.so), loaded as `qrenyi_before` and
# timed alternated with the current one (its values must agree within 1e-9 relative).
# --cpu: CPU time of the process (all its threads) instead of wall time.
import argparse, math, os, sys, time
import numpy as np, qrenyi
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers
from hockey_inprocess import load_before

ap = argparse.ArgumentParser()
ap.add_argument("--before")
ap.add_argument("--dims", default="64,256,512")
ap.add_argument("--samples", type=int, default=0)
ap.add_argument("--orders", default="2,1.5", help="Rényi orders of the three families' rows")
ap.add_argument("--only-renyi", action="store_true", help="skip the Umegaki/hockey-stick/fidelity rows")
ap.add_argument("--scipy", action="store_true", help="a scipy column (fractional_matrix_power) for the Rényi rows")
ap.add_argument("--cpu", action="store_true", help="CPU time of the process (all threads), not wall time")
a = ap.parse_args()
clock = time.process_time if a.cpu else time.perf_counter
before = load_before(a.before) if a.before else None
orders = [float(x) for x in a.orders.split(",")]
rng = np.random.default_rng(7)
def hs(d):
    g = rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d)); r = g @ g.conj().T; return r / np.trace(r).real
def once(f):
    t = clock(); f(); return clock() - t
print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {os.getloadavg()}; "
      f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, RAYON_NUM_THREADS="
      f"{os.environ.get('RAYON_NUM_THREADS')}; numpy {np.__version__}; {'CPU' if a.cpu else 'wall'} time")
head = "| d | quantity | qrenyi | numpy | numpy/qrenyi |"
if a.scipy:
    head += " scipy | scipy/qrenyi |"
if before:
    head += " before | numpy/before | before/qrenyi |"
print(head + " dev. |")
print("|---:|---|" + "---:|" * (head.count("|") - 2))
for d in [int(x) for x in a.dims.split(",")]:
    r, s = hs(d), hs(d); k = a.samples or (7 if d < 512 else 3)
    # α = 2 takes the integer-order routes (Cholesky for Petz/maximal, a Frobenius sum for
    # sandwiched: docs/divergences.md "order_two_cholesky"); the non-integer α = 1.5 beside it
    # (--orders) so that no table shows only the shortcut
    rows = [(f"{fam} α={o:g}", lambda q, fam=fam, o=o: q.divergence(r, s, fam, o),
             lambda npf=npf, o=o: npf(r, s, o), lambda fam=fam, o=o: getattr(peers, "sp_" + fam)(r, s, o))
            for o in orders
            for fam, npf in [("petz", peers.np_petz), ("sandwiched", peers.np_sandwiched),
                             ("maximal", peers.np_maximal)]]
    rows += [("umegaki", lambda q: q.divergence(r, s, "umegaki"), lambda: peers.np_umegaki(r, s)),
            ("hockey-stick γ=e", lambda q: q.divergence(r, s, "hockey-stick", gamma=math.e), lambda: peers.np_hockey(r, s, math.e)),
            ("fidelity", lambda q: q.divergence(r, s, "fidelity"), lambda: peers.np_fidelity(r, s))]
    if a.only_renyi:
        rows = rows[:3 * len(orders)]
    for name, q, n, *sp in rows:
        va, vb = q(qrenyi), n()
        sides = {"new": lambda: q(qrenyi), "numpy": n}
        if a.scipy and sp:
            sides["scipy"] = sp[0]
        if before:
            vo = q(before)
            # the same algorithms; the decompositions may run with other thread counts (rounding)
            assert abs(va - vo) <= 1e-9 * max(1, abs(vo)), (name, d, va, vo)
            sides["before"] = lambda: q(before)
        t = {key: 1e9 for key in sides}
        for _ in range(k):
            for key, f in sides.items():
                t[key] = min(t[key], once(f))
        ms = lambda x: f"{x*1e3:.2f} ms" if x >= 1e-3 else f"{x*1e6:.1f} µs"
        row = f"| {d} | {name} | {ms(t['new'])} | {ms(t['numpy'])} | **{t['numpy']/t['new']:.2f}×** |"
        if a.scipy:
            row += f" {ms(t['scipy'])} | {t['scipy']/t['new']:.2f}× |" if "scipy" in t else " | |"
        if before:
            row += f" {ms(t['before'])} | {t['numpy']/t['before']:.2f}× | {t['before']/t['new']:.2f}× |"
        print(row + f" {abs(va-vb)/max(1,abs(vb)):.1e} |", flush=True)
print(f"# load average at end {os.getloadavg()}")
