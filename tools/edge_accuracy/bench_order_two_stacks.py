"""audit21: per-pair CPU time of `qrenyi.divergence(R, S, "petz", 2.0)` on stacks of 4000 random pairs
(the stack route's `order_two_small`), for the package directory given as argv[1] (A/B: run
alternately with two builds)."""
import sys, time, numpy as np
sys.path.insert(0, sys.argv[1])
import qrenyi
rng = np.random.default_rng(0)
def states(n, d):
    z = rng.normal(size=(n, d, d)) + 1j * rng.normal(size=(n, d, d))
    r = z @ z.conj().transpose(0, 2, 1)
    return r / np.trace(r, axis1=1, axis2=2).real[:, None, None]
out = []
for d in (2, 4, 8):
    R, S = states(4000, d), states(4000, d)
    qrenyi.divergence(R, S, "petz", 2.0)
    ts = []
    for _ in range(7):
        t0 = time.process_time(); qrenyi.divergence(R, S, "petz", 2.0); ts.append(time.process_time() - t0)
    out.append(f"d={d} {min(ts)*1e6/4000:.3f}us")
print(" ".join(out))
