#!/usr/bin/env python3
"""Hockey-stick and trace distance from two raw matrices, in-process: qrenyi against numpy's
`eigvalsh(ρ − γσ)` (issue 14, "validation that reuses work"; docs/PERFORMANCE.md, "Hockey-stick
and trace distance from raw matrices").

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=NEW python hockey_inprocess.py [--before OLD] [--dims 64,256,512]

NEW (and OLD, optional) are directories holding a `qrenyi` package (python/qrenyi/* beside the
built extension as `qrenyi/_qrenyi.abi3.so`); OLD is loaded as a second package
`qrenyi_before` so that both versions run alternated in one interpreter. Seeded Hilbert–Schmidt
random states (complex128), γ = e. Rows also time the pieces of qrenyi's work: `qrenyi.validate`
of each input (the O(d²) checks, the copy and the Cholesky) and numpy's solve. Prints a Markdown
table: medians per call over alternated samples and the median of the pairwise ratios
numpy/qrenyi (> 1: qrenyi faster). Run it once as is and once with RAYON_NUM_THREADS=1
(everything on one thread); `--cpu` times CPU time of the process (all its threads) instead of
wall time, the measure that means something on a machine without an idle core.
"""
import argparse
import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

import qrenyi

GAMMA = float(np.e)


def hs_state(d, rng):
    g = rng.standard_normal((d, d)) + 1j * rng.standard_normal((d, d))
    r = g @ g.conj().T
    return r / np.trace(r).real


def load_before(path):
    """The package under `path`/qrenyi, imported as `qrenyi_before`."""
    tmp = tempfile.mkdtemp()
    shutil.copytree(os.path.join(path, "qrenyi"), os.path.join(tmp, "qrenyi_before"))
    spec = importlib.util.spec_from_file_location(
        "qrenyi_before", os.path.join(tmp, "qrenyi_before", "__init__.py")
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules["qrenyi_before"] = mod
    spec.loader.exec_module(mod)
    return mod


CLOCK = time.perf_counter


def per_call(fn, budget):
    """Seconds per call of one sample: as many calls as fit in `budget` (at least one)."""
    t0 = time.perf_counter()
    fn()
    one = time.perf_counter() - t0
    n = max(1, int(budget / max(one, 1e-7)))
    t0 = CLOCK()
    for _ in range(n):
        fn()
    return (CLOCK() - t0) / n


def fmt(s):
    return f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.0f} µs"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before")
    ap.add_argument("--dims", default="64,256,512")
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--budget", type=float, default=0.05)
    ap.add_argument("--cpu", action="store_true", help="CPU time of the process, not wall time")
    a = ap.parse_args()
    if a.cpu:
        global CLOCK
        CLOCK = time.process_time
    before = load_before(a.before) if a.before else None
    rng = np.random.default_rng(14)
    print(
        f"load average at start {os.getloadavg()}; OPENBLAS_NUM_THREADS="
        f"{os.environ.get('OPENBLAS_NUM_THREADS')}, RAYON_NUM_THREADS="
        f"{os.environ.get('RAYON_NUM_THREADS')}; numpy {np.__version__}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    head = "| d | quantity | numpy | qrenyi | numpy/qrenyi |"
    if before:
        head += " qrenyi before | numpy/before |"
    head += " validate ρ + σ (qrenyi) |"
    print(head)
    print("|---:" + "|---" * (head.count("|") - 2) + "|")
    for d in [int(x) for x in a.dims.split(",")]:
        rho, sigma = hs_state(d, rng), hs_state(d, rng)
        quantities = [
            (
                "hockey-stick γ=e",
                lambda: (lambda w: w[w > 0].sum())(np.linalg.eigvalsh(rho - GAMMA * sigma)),
                lambda q: q.divergence(rho, sigma, "hockey-stick", gamma=GAMMA),
            ),
            (
                "trace-distance",
                lambda: 0.5 * np.abs(np.linalg.eigvalsh(rho - sigma)).sum(),
                lambda q: q.divergence(rho, sigma, "trace-distance"),
            ),
        ]
        for name, np_fn, q_fn in quantities:
            want = np_fn()
            got = q_fn(qrenyi)
            assert abs(got - want) < 1e-12, (name, d, got, want)
            if before:
                old = q_fn(before)
                # bit-identical at the same BLAS thread count; the solve's thread count may
                # differ between versions (rounding of the eigenvalues)
                assert abs(got - old) <= 1e-13, (name, d, got, old)
            sides = {
                "numpy": np_fn,
                "new": lambda: q_fn(qrenyi),
                "validate": lambda: (qrenyi.validate(rho), qrenyi.validate(sigma)),
            }
            if before:
                sides["before"] = lambda: q_fn(before)
            t = {k: [] for k in sides}
            for _ in range(a.samples):
                for k, f in sides.items():
                    t[k].append(per_call(f, a.budget))
            med = {k: statistics.median(v) for k, v in t.items()}
            ratio = statistics.median(n / q for n, q in zip(t["numpy"], t["new"]))
            row = f"| {d} | {name} | {fmt(med['numpy'])} | {fmt(med['new'])} | **{ratio:.2f}×** |"
            if before:
                rb = statistics.median(n / q for n, q in zip(t["numpy"], t["before"]))
                row += f" {fmt(med['before'])} | {rb:.2f}× |"
            row += f" {fmt(med['validate'])} |"
            print(row, flush=True)
    print(f"load average at end {os.getloadavg()}")


if __name__ == "__main__":
    main()
