#!/usr/bin/env python3
"""mpmath references for the sandwiched orders alpha > 1 evaluated from rho's Cholesky factor
(issues 12/14, ``factor_congruence``: rho' = V^dagger (L L^dagger - tau I) V).

Writes ``factor_congruence.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_factor_congruence.py

Only mpmath and the standard library are needed; the output is deterministic (a fixed linear
congruential generator makes the matrices, rounded to doubles and stored exactly Hermitian; the
references are those of the stored doubles).  Pairs at d = 8, 10, 12: rho ill-conditioned
(kappa = 1e12), rank-deficient (rank d/2, and rank 1), sigma with kappa from 1e4 to 1e10.  The
values are

    D~_alpha = ln( Tr (sigma^{g/2} rho sigma^{g/2})^alpha / Tr rho ) / (alpha - 1),  g = (1-alpha)/alpha,

independently of qrenyi's route: sigma^{g/2} from mpmath's eighe of sigma, the eigenvalues of the
sandwiched matrix by eighe, all at 60 digits (negative rounding-level eigenvalues of a
rank-deficient sandwich clamped to 0); a recomputation at 90 digits is asserted to agree to 1e-30.
"""
import json
import os
import sys
from mpmath import mp, mpf, mpc, matrix, eighe, log

ALPHAS = [1.5, 2.0, 5.0, 10.0]


# the same generator and Gram-Schmidt as the maximal references (a sibling script)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate_maximal_ritz import Lcg, unitary  # noqa: E402


def state(d, spectrum, rng):
    """U diag(spectrum) U^dagger in doubles, exactly Hermitian (upper = conj(lower))."""
    s = sum(spectrum)
    lam = [x / s for x in spectrum]
    u = unitary(d, rng)
    m = [[0j] * d for _ in range(d)]
    for i in range(d):
        for j in range(i + 1):
            z = sum(lam[k] * u[k][i] * u[k][j].conjugate() for k in range(d))
            m[i][j] = complex(z.real, 0.0) if i == j else z
            m[j][i] = m[i][j].conjugate()
    return m


def graded(d, kappa, rank):
    return [kappa ** (-k / max(rank - 1, 1)) if k < rank else 0.0 for k in range(d)]


def sandwiched(rho, sigma, alpha, dps):
    mp.dps = dps
    d = len(rho)
    R = matrix([[mpc(z.real, z.imag) for z in row] for row in rho])
    S = matrix([[mpc(z.real, z.imag) for z in row] for row in sigma])
    mu, V = eighe(S)
    g = (1 - mpf(alpha)) / mpf(alpha)
    D = matrix(d, d)
    for k in range(d):
        D[k, k] = mu[k] ** (g / 2)
    P = V * D * V.transpose_conj()
    T = P * R * P
    T = (T + T.transpose_conj()) / 2
    nu, _ = eighe(T)
    q = sum(max(x, mpf(0)) ** mpf(alpha) for x in nu)
    tr = sum(R[k, k].real for k in range(d))
    return log(q / tr) / (mpf(alpha) - 1)


def reference_cases(specs, rng, alphas):
    """One case per ``(d, rho spectrum, sigma spectrum, what)`` of ``specs``: the stored states
    (drawn from ``rng`` in order) and D~_alpha at each of ``alphas`` (60 digits, checked at 90)."""
    cases = []
    for d, lr, ls, what in specs:
        rho = state(d, lr, rng)
        sigma = state(d, ls, rng)
        vals = []
        for a in alphas:
            v = sandwiched(rho, sigma, a, 60)
            w = sandwiched(rho, sigma, a, 90)
            assert abs(v - w) < mpf(10) ** -30, (what, a)
            vals.append(float(v))
        cases.append({
            "what": what,
            "d": d,
            "rho": [[[z.real, z.imag] for z in row] for row in rho],
            "sigma": [[[z.real, z.imag] for z in row] for row in sigma],
            "alphas": alphas,
            "values": vals,
        })
    return cases


def write_fixture(cases, name):
    """``{"cases": cases}`` as ``name`` next to this file (indented JSON, final newline)."""
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    with open(out, "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")


def main():
    rng = Lcg(20261124)
    specs = [
        (8, graded(8, 1e12, 8), graded(8, 1e4, 8), "rho kappa 1e12, sigma kappa 1e4"),
        (10, graded(10, 1e12, 10), graded(10, 1e10, 10), "rho kappa 1e12, sigma kappa 1e10"),
        (10, graded(10, 1e6, 5), graded(10, 1e8, 10), "rho rank 5, sigma kappa 1e8"),
        (12, graded(12, 1e3, 6), graded(12, 1e10, 12), "rho rank 6, sigma kappa 1e10"),
        (12, graded(12, 1.0, 1), graded(12, 1e6, 12), "rho pure, sigma kappa 1e6"),
    ]
    write_fixture(reference_cases(specs, rng, ALPHAS), "factor_congruence.json")


if __name__ == "__main__":
    main()
