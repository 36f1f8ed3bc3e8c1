# Quick same-run check, in-process: qrenyi.divergence on two raw matrices against the numpy five-liners
# of peers.py (one order), d = 64, 256, 512. Run from benches/peers with the package on PYTHONPATH:
#   OPENBLAS_NUM_THREADS=1 python inprocess_quick.py [--before OLD] [--dims 64,256,512] [--samples K] [--alpha A]
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
ap.add_argument("--alpha", type=float, default=2.0, help="the Rényi order of the three families (default 2)")
ap.add_argument("--cpu", action="store_true", help="CPU time of the process (all threads), not wall time")
a = ap.parse_args()
clock = time.process_time if a.cpu else time.perf_counter
before = load_before(a.before) if a.before else None
rng = np.random.default_rng(7)
def hs(d):
    g = rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d)); r = g @ g.conj().T; return r / np.trace(r).real
def once(f):
    t = clock(); f(); return clock() - t
print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {os.getloadavg()}; "
      f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, RAYON_NUM_THREADS="
      f"{os.environ.get('RAYON_NUM_THREADS')}; numpy {np.__version__}; {'CPU' if a.cpu else 'wall'} time")
head = "| d | quantity | qrenyi | numpy | numpy/qrenyi |"
if before:
    head += " before | numpy/before | before/qrenyi |"
print(head + " dev. |")
print("|---:|---|" + "---:|" * (head.count("|") - 2))
for d in [int(x) for x in a.dims.split(",")]:
    r, s = hs(d), hs(d); k = a.samples or (7 if d < 512 else 3)
    al = a.alpha
    rows = [(f"petz α={al:g}", lambda q: q.divergence(r, s, "petz", al), lambda: peers.np_petz(r, s, al)),
            (f"sandwiched α={al:g}", lambda q: q.divergence(r, s, "sandwiched", al), lambda: peers.np_sandwiched(r, s, al)),
            (f"maximal α={al:g}", lambda q: q.divergence(r, s, "maximal", al), lambda: peers.np_maximal(r, s, al)),
            ("umegaki", lambda q: q.divergence(r, s, "umegaki"), lambda: peers.np_umegaki(r, s)),
            ("hockey-stick γ=e", lambda q: q.divergence(r, s, "hockey-stick", gamma=math.e), lambda: peers.np_hockey(r, s, math.e)),
            ("fidelity", lambda q: q.divergence(r, s, "fidelity"), lambda: peers.np_fidelity(r, s))]
    for name, q, n in rows:
        va, vb = q(qrenyi), n()
        sides = {"new": lambda: q(qrenyi), "numpy": n}
        if before:
            vo = q(before)
            # the same algorithms; the decompositions may run with other thread counts (rounding)
            assert abs(va - vo) <= 1e-9 * max(1, abs(vo)), (name, d, va, vo)
            sides["before"] = lambda: q(before)
        t = {key: 1e9 for key in sides}
        for _ in range(k):
            for key, f in sides.items():
                t[key] = min(t[key], once(f))
        row = f"| {d} | {name} | {t['new']*1e3:.2f} ms | {t['numpy']*1e3:.2f} ms | **{t['numpy']/t['new']:.2f}×** |"
        if before:
            row += f" {t['before']*1e3:.2f} ms | {t['numpy']/t['before']:.2f}× | {t['before']/t['new']:.2f}× |"
        print(row + f" {abs(va-vb)/max(1,abs(vb)):.1e} |", flush=True)
print(f"# load average at end {os.getloadavg()}")
