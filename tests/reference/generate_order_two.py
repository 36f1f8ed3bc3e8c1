#!/usr/bin/env python3
"""mpmath references for the integer order alpha = 2 (issues 12/14, ``order_two_cholesky`` and
``order_two_frobenius`` in docs/divergences.md).

Writes ``order_two.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_order_two.py

Only mpmath and the standard library are needed; the output is deterministic (the sibling
script's linear congruential generator and Gram-Schmidt make the matrices, rounded to doubles and
stored exactly Hermitian; the references are those of the stored doubles).  Independently of
qrenyi's routes, at 60 digits (a recomputation at 90 digits is asserted to agree to 1e-30):

    Petz / maximal   D_2 = ln( Tr rho sigma^+ rho / Tr rho )
    sandwiched       D~_2 = ln( || sigma^{+1/4} rho sigma^{+1/4} ||_F^2 / Tr rho )

with sigma^+ and sigma^{+1/4} from mpmath's eighe of sigma, eigenvalues at or below the zero
threshold tau = 16 d eps lambda_max(sigma) counted as 0 (docs/conventions.md), and +inf when
Tr rho Pi_ker(sigma) > 16 d eps lambda_max(rho).  Each value carries the documented bound
(docs/conventions.md, "Error bounds", alpha = 2: 4 eta + 64 d eps (1 + |D|), eta = 16 d eps kappa,
kappa the largest condition number of the two states on their supports).

Cases: well-conditioned pairs (d = 2 .. 32), sigma with kappa up to 1e12, rank-deficient rho,
sigma of smaller support than rho (+inf), sigma singular with supp rho inside supp sigma (exact
diagonal sigma, rho on its support), sigma's smallest eigenvalue at 0.5, 2 and 1e3 times the zero
threshold (exact diagonal sigma), at 0.7 and 1.5 times the Cholesky route's certificate shift
(s = (16 d + 4 d (d+1)) eps Tr sigma: the two sides of the route switch), and rho = sigma.
"""
import json
import os
import sys
from mpmath import mp, mpf, mpc, matrix, eighe, log

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate_maximal_ritz import Lcg  # noqa: E402
from generate_factor_congruence import state  # noqa: E402  (U diag(spectrum) U^dagger, exactly Hermitian)

EPS = 2.0 ** -52


def diagonal(spectrum):
    d = len(spectrum)
    s = sum(spectrum)
    m = [[0j] * d for _ in range(d)]
    for i in range(d):
        m[i][i] = complex(spectrum[i] / s, 0.0)
    return m


def graded(d, kappa, rank):
    return [kappa ** (-k / max(rank - 1, 1)) if k < rank else 0.0 for k in range(d)]


def block(d, k, rng):
    """A full-rank state on the first k coordinates, zero elsewhere (exact zeros)."""
    inner = state(k, graded(k, 10.0, k), rng)
    m = [[0j] * d for _ in range(d)]
    for i in range(k):
        for j in range(k):
            m[i][j] = inner[i][j]
    return m


def mpm(a):
    return matrix([[mpc(z.real, z.imag) for z in row] for row in a])


def values(rho, sigma, dps):
    mp.dps = dps
    d = len(rho)
    R, S = mpm(rho), mpm(sigma)
    mu, V = eighe(S)
    lam, _ = eighe(R)
    mu_max = max(mu)
    lam_max = max(lam)
    tau_s = 16 * d * mpf(EPS) * mu_max
    tau_r = 16 * d * mpf(EPS) * lam_max
    supp = [k for k in range(d) if mu[k] > tau_s]
    ker = [k for k in range(d) if mu[k] <= tau_s]
    leak = sum((V[:, k].transpose_conj() * R * V[:, k])[0, 0].real for k in ker) if ker else mpf(0)
    tr = sum(R[k, k].real for k in range(d))
    kappa_s = mu_max / min(mu[k] for k in supp)
    kappa_r = lam_max / min(x for x in lam if x > tau_r)
    kappa = max(kappa_s, kappa_r)
    if leak > tau_r:
        return None, None, float(kappa)
    Dinv = matrix(d, d)
    Dq = matrix(d, d)
    for k in supp:
        Dinv[k, k] = 1 / mu[k]
        Dq[k, k] = mu[k] ** mpf(-0.25)
    Sinv = V * Dinv * V.transpose_conj()
    q_petz = (R * Sinv * R)
    q_petz = sum(q_petz[k, k].real for k in range(d))
    P = V * Dq * V.transpose_conj()
    T = P * R * P
    q_sw = sum(abs(T[i, j]) ** 2 for i in range(d) for j in range(d))
    return log(q_petz / tr), log(q_sw / tr), float(kappa)


def bound(d, kappa, v):
    if v is None:
        return 0.0
    eta = 16 * d * EPS * kappa
    return 4 * eta + 64 * d * EPS * (1 + abs(v))


def main():
    rng = Lcg(2026112418)
    specs = []
    # well-conditioned and ill-conditioned full-rank pairs
    for d, kr, ks, what in [
        (2, 3.0, 10.0, "well-conditioned"),
        (5, 1e2, 1e3, "well-conditioned"),
        (12, 1e3, 1e2, "well-conditioned"),
        (32, 1e2, 1e3, "well-conditioned (LAPACK branch)"),
        (4, 1e2, 1e12, "sigma kappa 1e12"),
        (8, 1e4, 1e12, "sigma kappa 1e12"),
        (30, 1e2, 1e10, "sigma kappa 1e10 (LAPACK branch)"),
    ]:
        specs.append((what, state(d, graded(d, kr, d), rng), state(d, graded(d, ks, d), rng)))
    # rank-deficient rho
    for d, rank, ks in [(6, 1, 1e6), (10, 5, 1e8), (28, 14, 1e4)]:
        specs.append((f"rho rank {rank}, sigma kappa {ks:g}",
                      state(d, graded(d, 1e3, rank), rng), state(d, graded(d, ks, d), rng)))
    # sigma of smaller support than rho: +inf
    for d, rank in [(4, 2), (9, 8)]:
        specs.append((f"sigma rank {rank} < rho's: +inf",
                      state(d, graded(d, 1e2, d), rng), state(d, graded(d, 1e2, rank), rng)))
    # sigma singular, supp rho inside supp sigma (exact zeros)
    for d, k in [(5, 3), (8, 6)]:
        specs.append((f"sigma rank {k} containing supp rho", block(d, k, rng),
                      diagonal(graded(k, 1e3, k) + [0.0] * (d - k))))
    # sigma's smallest eigenvalue near the zero threshold (exact diagonal sigma, rho full rank)
    for d in [4, 8]:
        base = graded(d - 1, 1e2, d - 1)
        s = sum(base)
        for f in [0.5, 2.0, 1e3]:
            # mu_min = f tau with tau = 16 d eps mu_max, mu_max = 1/s after normalisation
            mu_min = f * 16 * d * EPS  # relative to mu_max = 1 before normalisation
            specs.append((f"sigma lambda_min = {f:g} x zero threshold (d = {d})",
                          state(d, graded(d, 1e2, d), rng), diagonal(base + [mu_min])))
        # the two sides of the Cholesky route's certificate s = (16d + 4d(d+1)) eps Tr sigma
        for f in [0.7, 1.5]:
            mu_min = f * (16 * d + 4 * d * (d + 1)) * EPS * s
            s_rot = state(d, base + [mu_min], rng)
            specs.append((f"sigma lambda_min = {f:g} x certificate shift (d = {d}, rotated)",
                          state(d, graded(d, 1e2, d), rng), s_rot))
    # rho = sigma
    r = state(6, graded(6, 1e8, 6), rng)
    specs.append(("rho = sigma, kappa 1e8", r, r))

    cases = []
    for what, rho, sigma in specs:
        d = len(rho)
        p, sw, kappa = values(rho, sigma, 60)
        p2, sw2, _ = values(rho, sigma, 90)
        if p is not None:
            assert abs(p - p2) < mpf(10) ** -30 and abs(sw - sw2) < mpf(10) ** -30, what
        pv = None if p is None else float(p)
        sv = None if sw is None else float(sw)
        cases.append({
            "what": what,
            "d": d,
            "rho": [[[z.real, z.imag] for z in row] for row in rho],
            "sigma": [[[z.real, z.imag] for z in row] for row in sigma],
            "petz": "inf" if pv is None else pv,
            "sandwiched": "inf" if sv is None else sv,
            "kappa": kappa,
            "petz_bound": bound(d, kappa, pv),
            "sandwiched_bound": bound(d, kappa, sv),
        })
        print(what, d, pv, sv, f"kappa={kappa:.3g}", file=sys.stderr)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "order_two.json")
    with open(out, "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
