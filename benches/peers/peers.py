#!/usr/bin/env python3
"""Python peers of qrenyi, timed on the same .npy inputs (driven by benches/peers/run.sh).

  peers.py inputs DIR        write seeded random state pairs DIR/d{d}_{k}_{rho,sigma}.npy
  peers.py time DIR OUT      time every Python implementation, write OUT (JSON)

Implementations (all start from the raw complex128 matrices, like qrenyi's end-to-end rows):
  numpy-eigh   each family written here from its formula with numpy.linalg.eigh/eigvalsh
  scipy-fmp    the scipy.linalg.fractional_matrix_power (and logm) formulation
  qutip        qutip.entropy_relative (Umegaki), on Qobj built outside the timed region
  toqito       toqito quantum_relative_entropy (Umegaki) and matsumoto_fidelity
               (= exp(-D_max_{1/2}/2), compared with qrenyi's maximal divergence at alpha = 1/2)
Formulas (natural logarithms, full-rank states):
  Petz        Q = Tr rho^a sigma^(1-a)          D = ln Q / (a-1)
  sandwiched  Q = Tr (sigma^g rho sigma^g)^a,  g = (1-a)/(2a)
  maximal     Q = Tr sigma^(1/2) (sigma^(-1/2) rho sigma^(-1/2))^a sigma^(1/2)
  Umegaki     D = Tr rho (ln rho - ln sigma)
  hockey      E_gamma = Tr (rho - gamma sigma)_+
"""
import json
import os
import sys
import time
import warnings

import numpy as np

ALPHA = 2.0
GAMMA = float(np.e)
DIMS = [2, 4, 8, 16, 64, 256]


def pairs_per_dim(d):
    return 16 if d <= 16 else (4 if d <= 64 else 2)


# ---------------------------------------------------------------- inputs
def hilbert_schmidt(rng, d):
    g = rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d))
    m = g @ g.conj().T
    return m / np.trace(m).real


def write_inputs(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20240601)
    for d in DIMS:
        for k in range(pairs_per_dim(d)):
            np.save(os.path.join(out, f"d{d}_{k}_rho.npy"), hilbert_schmidt(rng, d))
            np.save(os.path.join(out, f"d{d}_{k}_sigma.npy"), hilbert_schmidt(rng, d))


def load(dirname, d):
    return [
        (np.load(os.path.join(dirname, f"d{d}_{k}_rho.npy")),
         np.load(os.path.join(dirname, f"d{d}_{k}_sigma.npy")))
        for k in range(pairs_per_dim(d))
    ]


# ---------------------------------------------------------------- numpy-eigh
def np_func(v, w, f):
    """V diag(f(w)) V^dagger."""
    return (v * f(w)) @ v.conj().T


def np_petz(r, s, a=ALPHA):
    lr, vr = np.linalg.eigh(r)
    ls, vs = np.linalg.eigh(s)
    o = np.abs(vr.conj().T @ vs) ** 2
    q = (lr[:, None] ** a * ls[None, :] ** (1 - a) * o).sum()
    return np.log(q) / (a - 1)


def np_sandwiched(r, s, a=ALPHA):
    ls, vs = np.linalg.eigh(s)
    sg = np_func(vs, ls, lambda x: x ** ((1 - a) / (2 * a)))
    nu = np.linalg.eigvalsh(sg @ r @ sg)
    return np.log((np.clip(nu, 0, None) ** a).sum()) / (a - 1)


def np_maximal(r, s, a=ALPHA):
    ls, vs = np.linalg.eigh(s)
    isq = np_func(vs, ls, lambda x: x ** -0.5)
    t, u = np.linalg.eigh(isq @ r @ isq)
    ta = np_func(u, t, lambda x: np.clip(x, 0, None) ** a)
    q = np.trace(s @ ta).real  # Tr s^(1/2) T^a s^(1/2) = Tr s T^a
    return np.log(q) / (a - 1)


def np_umegaki(r, s):
    lr, vr = np.linalg.eigh(r)
    ls, vs = np.linalg.eigh(s)
    o = np.abs(vr.conj().T @ vs) ** 2
    return float(lr @ np.log(lr) - lr @ o @ np.log(ls))


def np_hockey(r, s, g=GAMMA):
    ev = np.linalg.eigvalsh(r - g * s)
    return float(ev[ev > 0].sum())


def np_fidelity(r, s):
    """Root fidelity ‖√ρ√σ‖₁ (the singular values of √ρ√σ)."""
    lr, vr = np.linalg.eigh(r)
    sr = np_func(vr, lr, lambda x: np.sqrt(np.clip(x, 0, None)))
    ls, vs = np.linalg.eigh(s)
    ss = np_func(vs, ls, lambda x: np.sqrt(np.clip(x, 0, None)))
    return float(np.linalg.svd(sr @ ss, compute_uv=False).sum())


# ---------------------------------------------------------------- scipy fractional_matrix_power
def sp_petz(r, s, a=ALPHA):
    from scipy.linalg import fractional_matrix_power as fmp
    return np.log(np.trace(fmp(r, a) @ fmp(s, 1 - a)).real) / (a - 1)


def sp_sandwiched(r, s, a=ALPHA):
    from scipy.linalg import fractional_matrix_power as fmp
    sg = fmp(s, (1 - a) / (2 * a))
    return np.log(np.trace(fmp(sg @ r @ sg, a)).real) / (a - 1)


def sp_maximal(r, s, a=ALPHA):
    from scipy.linalg import fractional_matrix_power as fmp
    sq, isq = fmp(s, 0.5), fmp(s, -0.5)
    return np.log(np.trace(sq @ fmp(isq @ r @ isq, a) @ sq).real) / (a - 1)


def sp_umegaki(r, s):
    from scipy.linalg import logm
    return float(np.trace(r @ (logm(r) - logm(s))).real)


# ---------------------------------------------------------------- timing
def time_impl(fn, pairs, budget=0.25, repeats=7):
    """Median seconds per pair (each repeat loops over all pairs enough times to take ~budget/repeats)."""
    values = [float(np.real(fn(r, s))) for r, s in pairs]
    t0 = time.perf_counter()
    for r, s in pairs:
        fn(r, s)
    once = max(time.perf_counter() - t0, 1e-9)
    inner = max(1, int(budget / repeats / once))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            for r, s in pairs:
                fn(r, s)
        samples.append((time.perf_counter() - t0) / (inner * len(pairs)))
    return {"median_s": float(np.median(samples)), "values": values}


def run_timings(dirname, out):
    import qutip
    from toqito.state_metrics import matsumoto_fidelity
    from toqito.state_props import quantum_relative_entropy

    warnings.simplefilter("ignore")
    impls = {
        "petz": {"numpy-eigh": np_petz, "scipy-fmp": sp_petz},
        "sandwiched": {"numpy-eigh": np_sandwiched, "scipy-fmp": sp_sandwiched},
        "maximal": {"numpy-eigh": np_maximal, "scipy-fmp": sp_maximal},
        "umegaki": {
            "numpy-eigh": np_umegaki,
            "scipy-logm": sp_umegaki,
            "toqito": lambda r, s: quantum_relative_entropy(r, s),
        },
        "hockey_stick": {"numpy-eigh": np_hockey},
        "matsumoto_fidelity": {"toqito": lambda r, s: matsumoto_fidelity(r, s)},
    }
    result = {}
    for d in DIMS:
        pairs = load(dirname, d)
        qpairs = [(qutip.Qobj(r), qutip.Qobj(s)) for r, s in pairs]
        res = result.setdefault(str(d), {})
        for quantity, table in impls.items():
            for name, fn in table.items():
                res[f"{quantity}/{name}"] = time_impl(fn, pairs)
                print(f"d={d} {quantity}/{name}: {res[f'{quantity}/{name}']['median_s']:.3g} s", file=sys.stderr)
        res["umegaki/qutip"] = time_impl(lambda r, s: qutip.entropy_relative(r, s), qpairs)
    versions = {"python": sys.version.split()[0], "numpy": np.__version__}
    import scipy
    import toqito  # noqa: F401
    from importlib.metadata import version
    versions.update(scipy=scipy.__version__, qutip=qutip.__version__, toqito=version("toqito"))
    with open(out, "w") as f:
        json.dump({"versions": versions, "alpha": ALPHA, "gamma": GAMMA, "results": result}, f, indent=1)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "inputs":
        write_inputs(sys.argv[2])
    elif cmd == "time":
        run_timings(sys.argv[2], sys.argv[3])
    else:
        sys.exit(f"unknown command {cmd}")
