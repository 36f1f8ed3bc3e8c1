"""Where the PyTorch five-liner's time goes (profiling aid for docs/PERFORMANCE.md "GPU"):
copies, eigh, eigvalsh, products, Cholesky on one GPU, complex128, medians of a few runs; and
cupy's eigh (cusolverDnZheevd, the legacy API) beside torch's. One JSON object per line."""
import json
import sys
import time

import numpy as np
import torch

from peers_gpu import timed as timed_reps  # same directory


def timed(f, reps=3):
    return timed_reps(f, reps)


def main():
    rng = np.random.default_rng(3)
    for d in [int(a) for a in sys.argv[1:]] or [1024, 4096]:
        g = rng.standard_normal((d, d)) + 1j * rng.standard_normal((d, d))
        m = g @ g.conj().T
        m /= np.trace(m).real
        dm = torch.from_numpy(m).cuda()
        out = {"what": "torch_parts", "d": d}
        out["htod_s"] = timed(lambda: torch.from_numpy(m).cuda())
        out["eigh_s"] = timed(lambda: torch.linalg.eigh(dm))
        out["eigvalsh_s"] = timed(lambda: torch.linalg.eigvalsh(dm))
        out["matmul_s"] = timed(lambda: dm @ dm)
        out["cholesky_s"] = timed(lambda: torch.linalg.cholesky(dm))
        try:
            import cupy
            cm = cupy.asarray(m)
            def ce():
                cupy.linalg.eigh(cm)
                cupy.cuda.Stream.null.synchronize()
            def cv():
                cupy.linalg.eigvalsh(cm)
                cupy.cuda.Stream.null.synchronize()
            out["cupy_eigh_s"] = timed(ce)
            out["cupy_eigvalsh_s"] = timed(cv)
        except Exception as e:  # noqa: BLE001
            out["cupy"] = str(e)
        print(json.dumps(out), flush=True)
    for d, n in [(2, 10000), (4, 10000), (16, 2000)]:
        g = rng.standard_normal((n, d, d)) + 1j * rng.standard_normal((n, d, d))
        m = g @ np.conj(np.swapaxes(g, -1, -2))
        dm = torch.from_numpy(m).cuda()
        out = {"what": "torch_batch_parts", "d": d, "n": n}
        out["htod_s"] = timed(lambda: torch.from_numpy(m).cuda(), 5)
        out["eigh_s"] = timed(lambda: torch.linalg.eigh(dm), 5)
        out["eigvalsh_s"] = timed(lambda: torch.linalg.eigvalsh(dm), 5)
        out["matmul_s"] = timed(lambda: dm @ dm, 5)
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
