#!/usr/bin/env python3
"""qrenyi in-process from Python against numpy-eigh, SciPy, QuTiP and toqito (issue 12's benchmark).

    python benches/peers/python_inprocess.py [--quick] [--out results.json]

Needs the package installed (`pip install .`, e.g. in .venv-test from tools/python-test) and
numpy; SciPy, QuTiP and toqito are timed where installed. Every implementation starts from the
same complex128 numpy arrays (QuTiP from Qobj built outside the timed region). Prints a Markdown
table (docs/PERFORMANCE.md, "Python in-process") and writes the raw timings as JSON.

Rows: per dimension d ∈ {2, 4, 8, 16, 64, 256, 512}, each family at α = 2 (the integer-order
routes: Cholesky for Petz/maximal, a Frobenius sum for sandwiched), at α = 1.5 (the general route) and a
16-order curve (α from 0.55 to 8; numpy loops its five-liner over the orders, qrenyi makes one
call), Umegaki, hockey-stick (γ = e) and fidelity; a stack of 10,000 pairs at d = 2 and 4
(one qrenyi call vs a Python loop of numpy-eigh, of qrenyi, and numpy's batched eigh); and the
per-call binding overhead (`qrenyi.validate` of an already validated State: argument parsing,
type checks, GIL release, one object — no numerical work).
"""
import json
import math
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402  (the numpy-eigh five-liners and the SciPy formulations)
import qrenyi  # noqa: E402

DIMS = [2, 4, 8, 16, 64, 256, 512]
ALPHA = 2.0
CURVE = list(np.round(np.geomspace(0.55, 8.0, 16), 6))
STACK_N = 10_000


def timeit(fn, budget, repeats=5):
    """Median seconds per call (one timed call when a call alone exceeds the budget)."""
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-9)
    if once > budget:
        return once
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-9)
    inner = max(1, int(budget / repeats / once))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - t0) / inner)
    return float(np.median(samples))


def optional(name):
    try:
        return __import__(name, fromlist=["_"])
    except Exception:  # noqa: BLE001 - any import failure means "not installed here"
        return None


def main():
    quick = "--quick" in sys.argv
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    budget = 0.05 if quick else 0.2
    warnings.simplefilter("ignore")
    scipy_linalg = optional("scipy.linalg")
    qutip = optional("qutip")
    toqito_metrics = optional("toqito.state_metrics")
    rng = np.random.default_rng(20240601)
    rows = {}

    def row(d, quantity, impl, seconds):
        rows.setdefault(str(d), {})[f"{quantity}/{impl}"] = seconds
        print(f"d={d:<4} {quantity:<22} {impl:<12} {seconds * 1e6:12.2f} µs", file=sys.stderr)

    for d in DIMS:
        r, s = peers.hilbert_schmidt(rng, d), peers.hilbert_schmidt(rng, d)
        b = budget if d <= 64 else budget * 4
        for fam, npf in [("petz", peers.np_petz), ("sandwiched", peers.np_sandwiched),
                         ("maximal", peers.np_maximal)]:
            want = npf(r, s, ALPHA)
            got = qrenyi.divergence(r, s, fam, ALPHA)
            assert abs(got - want) <= 1e-8 * max(1, abs(want)), (d, fam, got, want)
            row(d, f"{fam} α=2", "qrenyi", timeit(lambda: qrenyi.divergence(r, s, fam, ALPHA), b))
            row(d, f"{fam} α=2", "numpy-eigh", timeit(lambda: npf(r, s, ALPHA), b))
            if scipy_linalg is not None and d <= 256:
                spf = getattr(peers, "sp_" + fam)
                row(d, f"{fam} α=2", "scipy", timeit(lambda: spf(r, s, ALPHA), b))
            # α = 2 takes the integer-order routes (docs/divergences.md, "order_two_cholesky",
            # "order_two_frobenius"); a non-integer order beside it, so no table shows only those
            got = qrenyi.divergence(r, s, fam, 1.5)
            assert abs(got - npf(r, s, 1.5)) <= 1e-8 * max(1, abs(got)), (d, fam, got)
            row(d, f"{fam} α=1.5", "qrenyi", timeit(lambda: qrenyi.divergence(r, s, fam, 1.5), b))
            row(d, f"{fam} α=1.5", "numpy-eigh", timeit(lambda: npf(r, s, 1.5), b))
            if scipy_linalg is not None and d <= 256:
                row(d, f"{fam} α=1.5", "scipy", timeit(lambda: spf(r, s, 1.5), b))
            row(d, f"{fam} 16 orders", "qrenyi", timeit(lambda: qrenyi.divergence(r, s, fam, CURVE), b))
            row(d, f"{fam} 16 orders", "numpy-eigh", timeit(lambda: [npf(r, s, a) for a in CURVE], b))
        row(d, "umegaki", "qrenyi", timeit(lambda: qrenyi.divergence(r, s, "umegaki"), b))
        row(d, "umegaki", "numpy-eigh", timeit(lambda: peers.np_umegaki(r, s), b))
        if scipy_linalg is not None and d <= 256:
            row(d, "umegaki", "scipy", timeit(lambda: peers.sp_umegaki(r, s), b))
        if qutip is not None:
            qr, qs = qutip.Qobj(r), qutip.Qobj(s)
            row(d, "umegaki", "qutip", timeit(lambda: qutip.entropy_relative(qr, qs), b))
            row(d, "fidelity", "qutip", timeit(lambda: qutip.fidelity(qr, qs), b))
        row(d, "hockey-stick γ=e", "qrenyi", timeit(lambda: qrenyi.divergence(r, s, "hockey-stick", gamma=math.e), b))
        row(d, "hockey-stick γ=e", "numpy-eigh", timeit(lambda: peers.np_hockey(r, s, math.e), b))
        row(d, "fidelity", "qrenyi", timeit(lambda: qrenyi.divergence(r, s, "fidelity"), b))
        row(d, "fidelity", "numpy-eigh", timeit(lambda: peers.np_fidelity(r, s), b))
        if toqito_metrics is not None and d <= 64:
            row(d, "fidelity", "toqito", timeit(lambda: toqito_metrics.fidelity(r, s), b))

    stack = {}
    for d in [2, 4]:
        g = rng.normal(size=(STACK_N, d, d)) + 1j * rng.normal(size=(STACK_N, d, d))
        rs = g @ g.conj().transpose(0, 2, 1)
        rs /= np.trace(rs, axis1=1, axis2=2).real[:, None, None]
        h = rng.normal(size=(STACK_N, d, d)) + 1j * rng.normal(size=(STACK_N, d, d))
        ss = h @ h.conj().transpose(0, 2, 1)
        ss /= np.trace(ss, axis1=1, axis2=2).real[:, None, None]
        one = timeit(lambda: qrenyi.divergence(rs, ss, "sandwiched", ALPHA), budget * 4, repeats=3)
        loop_np = timeit(lambda: [peers.np_sandwiched(rs[k], ss[k], ALPHA) for k in range(STACK_N)], budget, repeats=1)
        loop_q = timeit(lambda: [qrenyi.divergence(rs[k], ss[k], "sandwiched", ALPHA) for k in range(STACK_N)], budget, repeats=1)

        def batched():  # numpy's own batched eigh, for reference: ln Tr (σ^{-1/4} ρ σ^{-1/4})²
            w, v = np.linalg.eigh(ss)
            si = (v * (w ** -0.25)[:, None, :]) @ v.conj().transpose(0, 2, 1)
            t = si @ rs @ si
            return np.log(np.einsum("kij,kji->k", t, t).real)

        np.testing.assert_allclose(qrenyi.divergence(rs, ss, "sandwiched", ALPHA), batched(), rtol=1e-9)
        vec = timeit(batched, budget, repeats=3)
        stack[str(d)] = {"qrenyi stack": one, "numpy-eigh loop": loop_np, "qrenyi loop": loop_q, "numpy batched": vec}
        print(f"stack d={d}: {stack[str(d)]}", file=sys.stderr)

    st = qrenyi.validate(np.eye(2) / 2)
    overhead = timeit(lambda: qrenyi.validate(st), budget)
    call_d2 = rows["2"]["sandwiched α=2/qrenyi"]
    versions = {"python": sys.version.split()[0], "numpy": np.__version__, "qrenyi": qrenyi.__version__}
    for name in ["scipy", "qutip", "toqito"]:
        m = optional(name)
        if m is not None:
            versions[name] = getattr(m, "__version__", "?")
    result = {"versions": versions, "rows": rows, "stack": stack, "overhead_s": overhead,
              "loadavg": os.getloadavg(), "ncpu": os.cpu_count()}
    if out:
        with open(out, "w") as f:
            json.dump(result, f, indent=1)
    print_tables(result, call_d2)


def print_tables(res, call_d2):
    rows = res["rows"]
    impls = ["qrenyi", "numpy-eigh", "scipy", "qutip", "toqito"]
    quantities = []
    for d in rows.values():
        for k in d:
            q = k.split("/")[0]
            if q not in quantities:
                quantities.append(q)
    print("| quantity | d | " + " | ".join(impls) + " | numpy-eigh / qrenyi |")
    print("|---|---:|" + "---:|" * (len(impls) + 1))
    for q in quantities:
        for d, r in rows.items():
            cells = []
            for i in impls:
                v = r.get(f"{q}/{i}")
                cells.append("" if v is None else f"{v * 1e6:.1f} µs" if v < 1e-2 else f"{v * 1e3:.1f} ms")
            npv, qv = r.get(f"{q}/numpy-eigh"), r.get(f"{q}/qrenyi")
            ratio = "" if npv is None or qv is None else f"{npv / qv:.1f}×"
            print(f"| {q} | {d} | " + " | ".join(cells) + f" | {ratio} |")
    print()
    print("| stack of 10,000 pairs (sandwiched α = 2) | d | qrenyi stack | numpy-eigh loop | qrenyi loop | numpy batched eigh | loop / stack |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for d, v in res["stack"].items():
        print(f"| | {d} | {v['qrenyi stack'] * 1e3:.1f} ms | {v['numpy-eigh loop'] * 1e3:.0f} ms | "
              f"{v['qrenyi loop'] * 1e3:.0f} ms | {v['numpy batched'] * 1e3:.1f} ms | "
              f"{v['numpy-eigh loop'] / v['qrenyi stack']:.0f}× |")
    print()
    print(f"binding overhead (validate of a validated State): {res['overhead_s'] * 1e6:.2f} µs; "
          f"sandwiched α = 2 at d = 2, whole call: {call_d2 * 1e6:.2f} µs")
    print(f"versions: {res['versions']}; load average {res['loadavg']} on {res['ncpu']} CPUs")


if __name__ == "__main__":
    main()
