# A/B of two builds of the Python package in one process, without numpy's calls in between (numpy's
# BLAS workers spinning after its own calls move a default-threads comparison of qrenyi's schedules):
# best of K blocks of 20 calls per side, alternated, on HS-random pairs. Run from benches/peers with
# the current package importable and an older one under BEFORE (as inprocess_quick.py --before):
#   python ab_inprocess.py BEFORE [--dims 32,48,64] [--kinds petz,sandwiched,maximal] [--alpha 1.5]
#   [--blocks 15]
# Prints old/new per row (> 1: the current build is faster). docs/PERFORMANCE.md, "Two PSD steps side
# by side: per kind of step".
import argparse, os, sys, time
import numpy as np, qrenyi
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hockey_inprocess import load_before

ap = argparse.ArgumentParser()
ap.add_argument("before")
ap.add_argument("--dims", default="32,48,64")
ap.add_argument("--kinds", default="umegaki,fidelity,petz,sandwiched,maximal")
ap.add_argument("--alpha", type=float, default=1.5, help="order of the Rényi families")
ap.add_argument("--blocks", type=int, default=15)
a = ap.parse_args()
old = load_before(a.before)
rng = np.random.default_rng(7)


def hs(d):
    g = rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d))
    r = g @ g.conj().T
    return r / np.trace(r).real


print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {os.getloadavg()}; "
      f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")
for d in [int(x) for x in a.dims.split(",")]:
    r, s = hs(d), hs(d)
    for kind in a.kinds.split(","):
        p = a.alpha if kind in ("petz", "sandwiched", "maximal") else None
        best = {"new": 1e9, "old": 1e9}
        for _ in range(a.blocks):
            for key, mod in (("new", qrenyi), ("old", old)):
                t = time.perf_counter()
                for _ in range(20):
                    mod.divergence(r, s, kind, p)
                best[key] = min(best[key], (time.perf_counter() - t) / 20)
        print(f"| {d} | {kind} | {best['new'] * 1e6:.0f} µs | {best['old'] * 1e6:.0f} µs | "
              f"{best['old'] / best['new']:.2f} |", flush=True)
