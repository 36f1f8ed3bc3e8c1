# Same-run A/B of the binding's per-call overhead with explicit name arguments and small stacks
# (pyargs19): the current package against an older one (DIR: as inprocess_quick.py --before).
#   cd benches/peers && PYTHONPATH=NEW OPENBLAS_NUM_THREADS=1 python binding_overhead_ab.py DIR
import os, sys, time, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hockey_inprocess import load_before
import qrenyi
old = load_before(sys.argv[1] if len(sys.argv) > 1 else "/tmp/base19")
rng = np.random.default_rng(1)
def st(d):
    g = rng.normal(size=(d, d)) + 1j*rng.normal(size=(d, d)); m = g@g.conj().T; return m/np.trace(m).real
r, s = st(2), st(2)
R = np.stack([st(2) for _ in range(100)]); S = np.stack([st(2) for _ in range(100)])
R4 = np.stack([st(4) for _ in range(2000)]); S4 = np.stack([st(4) for _ in range(2000)])
cases = {
 "d=2 petz α=2, base='2', backend='auto'": lambda q: q.divergence(r, s, "petz", 2.0, base="2", backend="auto"),
 "d=2 umegaki base=2 (int; old: '2')": None,
 "stack n=100 d=2 sandwiched α=2": lambda q: q.divergence(R, S, "sandwiched", 2.0),
 "stack n=2000 d=4 petz α=1.5": lambda q: q.divergence(R4, S4, "petz", 1.5),
}
def best(f, q, reps):
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); f(q); ts.append(time.perf_counter() - t)
    return min(ts)
for name, f in cases.items():
    if f is None:
        fn = lambda q: q.divergence(r, s, "umegaki", base=2 if q is qrenyi else "2")
    else:
        fn = f
    inner = 2000 if "stack" not in name else (200 if "100" in name else 10)
    new_t, old_t = [], []
    for k in range(9):
        for q, acc in ((qrenyi, new_t), (old, old_t)) if k % 2 == 0 else ((old, old_t), (qrenyi, new_t)):
            acc.append(best(fn, q, inner))
    print(f"| {name} | {min(new_t)*1e6:.2f} µs | {min(old_t)*1e6:.2f} µs | {min(old_t)/min(new_t):.3f}× |")
