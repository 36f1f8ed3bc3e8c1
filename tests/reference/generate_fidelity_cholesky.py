#!/usr/bin/env python3
"""mpmath references for the root fidelity F(rho, sigma) = ||sqrt(rho) sqrt(sigma)||_1
(``fidelity_cholesky`` in docs/divergences.md: the Cholesky route at d <= 16 and its fallback).

Writes ``fidelity_cholesky.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_fidelity_cholesky.py

Only mpmath and the standard library are needed; the output is deterministic (the sibling
scripts' linear congruential generator and Gram-Schmidt make the matrices, rounded to doubles and
stored exactly Hermitian; the references are those of the stored doubles).  Independently of
qrenyi's routes (no Cholesky factor, no SVD), at 60 digits (a recomputation at 80 digits is
asserted to agree to 1e-40):

    F = sum_k sqrt(nu_k),  nu the eigenvalues of sigma^{1/2} rho sigma^{1/2},

with sigma^{1/2} from mpmath's eighe of sigma (nu below 10^{10 - dps}, the exact zeros of a
rank-deficient product, count as 0); eigenvalues of either state at or below its zero
threshold tau = 16 d eps lambda_max count as 0 (docs/conventions.md).  Each value carries the
documented bound (docs/conventions.md, "Error bounds"; accuracy::error_bound) of
D~_1/2 = -2 ln F, b = 4 eta + 64 d eps (1 + |D|), eta = 16 d eps kappa (kappa the largest condition
number of the two states on their supports), turned into one on F: F (e^{b/2} - 1).

Cases: d = 2, 3, 4, 5, 8, 12, 16; both states of full rank with kappa from 1 (I/d) to 1e12; rho =
sigma (F = 1); sigma with one eigenvalue 1e-14 (near-singular: the route must decline or still be
right); rank-deficient rho; pure states.
"""
import json
import math
import os
import sys
from mpmath import mp, mpf, matrix, eighe, sqrt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate_maximal_ritz import Lcg  # noqa: E402
from generate_factor_congruence import state, graded  # noqa: E402
from generate_order_two import mpm  # noqa: E402
from generate_maximal_whitened import identity  # noqa: E402

EPS = 2.0 ** -52


def clipped(a):
    """The matrix with its eigenvalues at or below the zero threshold set to 0, its half power,
    and its condition number on the support."""
    d = len(a)
    lam, W = eighe(mpm(a))
    tau = 16 * d * mpf(EPS) * max(lam)
    half = matrix(d, d)
    full = matrix(d, d)
    kept = [x for x in lam if x > tau]
    for k in range(d):
        if lam[k] > tau:
            p = W[:, k] * W[:, k].transpose_conj()
            full += lam[k] * p
            half += sqrt(lam[k]) * p
    return full, half, max(kept) / min(kept)


def fidelity(rho, sigma, dps):
    mp.dps = dps
    R, _, kr = clipped(rho)
    _, Sh, ks = clipped(sigma)
    M = Sh * R * Sh
    M = (M + M.transpose_conj()) / 2
    nu, _ = eighe(M)
    # the exact zeros of a rank-deficient product come out of order 10^-dps: 0
    floor = mpf(10) ** (-dps + 10)
    return sum(sqrt(x) for x in nu if x > floor), float(max(kr, ks))


def bound(d, kappa, f):
    eta = 16 * d * EPS * kappa
    dv = -2 * math.log(f)
    b = 4 * eta + 64 * d * EPS * (1 + abs(dv))
    return f * math.expm1(b / 2)


def near_singular(d, rng):
    """A state with one eigenvalue 1e-14 (the rest graded over 1e2)."""
    spec = graded(d, 1e2, d)
    spec[-1] = 1e-14 * sum(spec[:-1])
    return state(d, spec, rng)


def main():
    rng = Lcg(2026112423)
    specs = []
    for d in [2, 3, 4, 5, 8, 12, 16]:
        specs.append((f"sigma = I/d, d = {d}", state(d, graded(d, 1e2, d), rng), identity(d)))
        for kr, ks in [(1e1, 1e2), (1e3, 1e6), (1e6, 1e12)]:
            specs.append((f"kappa {kr:g} / {ks:g}, d = {d}",
                          state(d, graded(d, kr, d), rng), state(d, graded(d, ks, d), rng)))
        r = state(d, graded(d, 1e3, d), rng)
        specs.append((f"rho = sigma, kappa 1e3, d = {d}", r, r))
        specs.append((f"near-singular sigma (1e-14), d = {d}",
                      state(d, graded(d, 1e2, d), rng), near_singular(d, rng)))
    for d, rank in [(4, 2), (8, 3), (16, 15)]:
        specs.append((f"rho rank {rank}, d = {d}",
                      state(d, graded(d, 1e2, rank), rng), state(d, graded(d, 1e3, d), rng)))
    for d in [3, 8]:
        specs.append((f"pure states, d = {d}",
                      state(d, graded(d, 1.0, 1), rng), state(d, graded(d, 1.0, 1), rng)))

    cases = []
    for what, rho, sigma in specs:
        d = len(rho)
        f, kappa = fidelity(rho, sigma, 60)
        f2, _ = fidelity(rho, sigma, 80)
        assert abs(f - f2) < mpf(10) ** -40, what
        cases.append({
            "what": what,
            "d": d,
            "rho": [[[z.real, z.imag] for z in row] for row in rho],
            "sigma": [[[z.real, z.imag] for z in row] for row in sigma],
            "kappa": kappa,
            "value": float(f),
            "bound": bound(d, kappa, float(f)),
        })
        print(what, d, f"kappa={kappa:.3g}", float(f), file=sys.stderr)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fidelity_cholesky.json")
    with open(out, "w") as fh:
        json.dump({"cases": cases}, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
