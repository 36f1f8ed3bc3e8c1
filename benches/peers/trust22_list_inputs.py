"""trust22: qrenyi.divergence(…, "trace-distance") per call on nested lists, complex128 and complex64
arrays (d = 2, 8, 32; best of 5 × n calls), for an A/B of the numeric-array check (run with
PYTHONPATH pointing at each package, alternated)."""
import sys, time, numpy as np
import qrenyi
rng = np.random.default_rng(1)
def st(d):
    g = rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d)); m = g @ g.conj().T; return m / np.trace(m).real
out = []
for d in [2, 8, 32]:
    r, s = st(d), st(d)
    for label, (a, b) in {"list": (r.tolist(), s.tolist()), "c128": (r, s), "c64": (r.astype(np.complex64), s.astype(np.complex64))}.items():
        kind = "trace-distance"
        n = 2000 if d < 32 else 300
        best = 1e9
        for rep in range(5):
            t0 = time.perf_counter()
            for _ in range(n):
                try:
                    qrenyi.divergence(a, b, kind)
                except qrenyi.QrenyiError:
                    pass
            best = min(best, (time.perf_counter() - t0) / n)
        out.append((d, label, best * 1e6))
for d, l, us in out:
    print(f"{d} {l} {us:.2f}")
