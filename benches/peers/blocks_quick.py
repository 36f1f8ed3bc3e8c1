# Same-run check at small d, in blocks: qrenyi.divergence on two raw matrices against the numpy
# five-liners of peers.py, each side timed over a block of N calls (default 2,000), the two sides
# alternated block by block, best of K blocks (default 7) per side. Complements
# inprocess_quick.py, which times single calls (more sensitive to the timer and to the other
# side's cache footprint). Run from benches/peers with the package on PYTHONPATH:
#   OPENBLAS_NUM_THREADS=1 python blocks_quick.py [--dims 8,16] [--alpha 1.5] [--calls 2000] [--blocks 7]
import argparse, math, os, sys, time
import numpy as np, qrenyi
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers

ap = argparse.ArgumentParser()
ap.add_argument("--dims", default="8,16")
ap.add_argument("--alpha", type=float, default=1.5)
ap.add_argument("--calls", type=int, default=2000)
ap.add_argument("--blocks", type=int, default=7)
a = ap.parse_args()
rng = np.random.default_rng(7)
print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {os.getloadavg()}; "
      f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}; numpy {np.__version__}; "
      f"best of {a.blocks} blocks of {a.calls} calls per side")
print("| d | quantity | qrenyi | numpy | numpy/qrenyi |")
print("|---:|---|---:|---:|---:|")
for d in [int(x) for x in a.dims.split(",")]:
    r, s = peers.hilbert_schmidt(rng, d), peers.hilbert_schmidt(rng, d)
    al = a.alpha
    rows = [("hockey-stick γ=e", lambda: qrenyi.divergence(r, s, "hockey-stick", gamma=math.e),
             lambda: peers.np_hockey(r, s, math.e)),
            (f"petz α={al:g}", lambda: qrenyi.divergence(r, s, "petz", al), lambda: peers.np_petz(r, s, al)),
            (f"sandwiched α={al:g}", lambda: qrenyi.divergence(r, s, "sandwiched", al),
             lambda: peers.np_sandwiched(r, s, al)),
            ("umegaki", lambda: qrenyi.divergence(r, s, "umegaki"), lambda: peers.np_umegaki(r, s)),
            (f"maximal α={al:g}", lambda: qrenyi.divergence(r, s, "maximal", al), lambda: peers.np_maximal(r, s, al)),
            ("fidelity", lambda: qrenyi.divergence(r, s, "fidelity"), lambda: peers.np_fidelity(r, s))]
    for name, q, n in rows:
        vq, vn = q(), n()
        assert abs(vq - vn) <= 1e-8 * max(1.0, abs(vn)), (name, d, vq, vn)
        best = [math.inf, math.inf]
        for _ in range(a.blocks):
            for k, f in enumerate((q, n)):
                t = time.perf_counter()
                for _ in range(a.calls):
                    f()
                best[k] = min(best[k], (time.perf_counter() - t) / a.calls)
        print(f"| {d} | {name} | {best[0] * 1e6:.2f} µs | {best[1] * 1e6:.2f} µs | **{best[1] / best[0]:.2f}×** |",
              flush=True)
print(f"# load average at end {os.getloadavg()}")
