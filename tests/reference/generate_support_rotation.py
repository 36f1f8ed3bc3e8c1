#!/usr/bin/env python3
"""mpmath references for the support-rotation sensitivity of the sandwiched divergence (issue 10).

Writes ``support_rotation.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_support_rotation.py

Only mpmath and the standard library are needed; the output is deterministic.

The pair is the one `qrenyi verify` found for `additivity` (seed 6844774107850205484):
rho = rho1 (x) rho2 with rho2 pure up to rounding (eigenvalues 1 and ~1e-17), sigma = sigma1 (x)
sigma2, d = 4.  The Kronecker products are formed in double precision exactly as `DensityMatrix::
tensor` does (complex product, one rounding per real operation), and stored.  For each alpha the
script records, at 300 digits:

* ``stored``: D~_alpha of the stored doubles under qrenyi's zero-threshold convention (eigenvalues
  of rho at or below 16*d*eps*lambda_max dropped, docs/conventions.md), i.e. the exact value of the
  input qrenyi sees;
* ``additive``: D~_alpha(rho1||sigma1) + D~_alpha(rho2||sigma2), the value of the exact
  (unrounded) Kronecker products by additivity (checked against a 300-digit evaluation of the
  exact products for alpha >= 0.01).

Below alpha ~ 0.06 the two differ by up to 0.16 (alpha = 1e-3): the rounding of the product rotates the support of
the rank-2 rho by ~1e-13, and the grading mu^((1-alpha)/(2 alpha)) of sigma's eigenvalues magnifies
that rotation in the second eigenvalue of sigma^(g/2) rho sigma^(g/2) by ~1e80.  The value is
ill-conditioned in its input there, and qrenyi's error bound must say so.
"""
import itertools
import json
import os
from mpmath import mp, mpf, mpc, matrix, eighe, log, sqrt

mp.dps = 300

RHO1 = [[(0.02047814975334612, 0.0), (0.10202225493696661, 0.08615934716508646)],
        [(0.10202225493696661, -0.08615934716508646), (0.9795218502466541, 0.0)]]
SIGMA1 = [[(0.09694993244287428, 0.0), (-0.08860781353538254, 0.26484142635107405)],
          [(-0.08860781353538254, -0.26484142635107405), (0.9030500675571257, 0.0)]]
RHO2 = [[(0.8701690878783994, 0.0), (-0.3117111574775618, -0.1257418016543124)],
        [(-0.3117111574775618, 0.1257418016543124), (0.12983091212160056, 0.0)]]
SIGMA2 = [[(0.4805318367030093, 0.0), (0.10732866788083546, 0.3146573329502419)],
          [(0.10732866788083546, -0.3146573329502419), (0.5194681632969907, 0.0)]]
ALPHAS = [1e-3, 0.016069647197694104, 0.03, 0.05, 0.1, 0.3, 0.7, 2.0]
EPS = mpf(2) ** -52


def kron_f64(a, b):
    """Kronecker product in double precision (Python complex: one rounding per operation)."""
    out = [[None] * 4 for _ in range(4)]
    for i, j, k, l in itertools.product(range(2), repeat=4):
        z = complex(*a[i][j]) * complex(*b[k][l])
        out[2 * i + k][2 * j + l] = (z.real, z.imag)
    return out


def mat(a):
    return matrix([[mpc(mpf(x), mpf(y)) for (x, y) in row] for row in a])


def kron_exact(a, b):
    n, m = a.rows, b.rows
    out = matrix(n * m, n * m)
    for i, j, k, l in itertools.product(range(n), range(n), range(m), range(m)):
        out[m * i + k, m * j + l] = a[i, j] * b[k, l]
    return out


def sandwiched(rho, sigma, alpha):
    """D~_alpha of the truncated rho (rank 2) against sigma.

    The eigenvalues nu_1 >= nu_2 of A = sigma^(g/2) rho sigma^(g/2) = D G G^H D, with
    G = W Lambda^(1/2) the rank-2 factor of rho in sigma's eigenbasis and D = diag(mu^(g/2)), follow
    from two sums of positive terms (Cauchy-Binet), so their ratio, which reaches 10^-2000 at
    alpha = 1e-3, costs no precision: nu_1 + nu_2 = sum_j mu_j^g |g_j|^2 and
    nu_1 nu_2 = sum_{i<j} mu_i^g mu_j^g |det G_{ij}|^2, then nu_2 = (nu_1 nu_2) / nu_1.
    """
    alpha = mpf(alpha)
    g = (1 - alpha) / alpha
    d = rho.rows
    lam, u = eighe(rho)
    thr = 16 * d * EPS * max(lam)
    support = [k for k in range(d) if lam[k] > thr]
    assert len(support) == 2, support
    mu, b = eighe(sigma)
    w = b.H * u
    rows = [[w[j, k] * sqrt(lam[k]) for k in support] for j in range(d)]
    tr = sum(mu[j] ** g * sum(abs(z) ** 2 for z in rows[j]) for j in range(d))
    det = sum(
        mu[i] ** g * mu[j] ** g * abs(rows[i][0] * rows[j][1] - rows[i][1] * rows[j][0]) ** 2
        for i in range(d)
        for j in range(i + 1, d)
    )
    nu1 = (tr + sqrt(tr * tr - 4 * det)) / 2
    nu2 = det / nu1
    trace = sum(lam[k] for k in support)
    return (log(nu1**alpha + nu2**alpha) - log(trace)) / (alpha - 1)


def sandwiched_2x2(rho, sigma, alpha):
    """D~_alpha of a 2 x 2 pair (rho of rank 1 or 2 after truncation) by the same invariants."""
    alpha = mpf(alpha)
    g = (1 - alpha) / alpha
    lam, u = eighe(rho)
    thr = 16 * 2 * EPS * max(lam)
    support = [k for k in range(2) if lam[k] > thr]
    mu, b = eighe(sigma)
    w = b.H * u
    rows = [[w[j, k] * sqrt(lam[k]) for k in support] for j in range(2)]
    tr = sum(mu[j] ** g * sum(abs(z) ** 2 for z in rows[j]) for j in range(2))
    q = tr**alpha
    if len(support) == 2:
        det = (mu[0] * mu[1]) ** g * abs(rows[0][0] * rows[1][1] - rows[0][1] * rows[1][0]) ** 2
        nu1 = (tr + sqrt(tr * tr - 4 * det)) / 2
        q = nu1**alpha + (det / nu1) ** alpha
    trace = sum(lam[k] for k in support)
    return (log(q) - log(trace)) / (alpha - 1)


def main():
    rho, sigma = kron_f64(RHO1, RHO2), kron_f64(SIGMA1, SIGMA2)
    exact_rho = kron_exact(mat(RHO1), mat(RHO2))
    exact_sigma = kron_exact(mat(SIGMA1), mat(SIGMA2))
    values = []
    for alpha in ALPHAS:
        stored = sandwiched(mat(rho), mat(sigma), alpha)
        additive = sandwiched_2x2(mat(RHO1), mat(SIGMA1), alpha) + sandwiched_2x2(
            mat(RHO2), mat(SIGMA2), alpha
        )
        if alpha >= 0.01:
            # the exact product agrees (at alpha = 1e-3 the 300-digit eigenvectors' own error,
            # weighted by 10^1317, decides: additivity itself is the reference there)
            product = sandwiched(exact_rho, exact_sigma, alpha)
            assert abs(product - additive) < mpf(10) ** -30, (alpha, product, additive)
        values.append({"alpha": alpha, "stored": float(stored), "additive": float(additive)})
        print(alpha, float(stored), float(additive))
    out = {"rho": rho, "sigma": sigma, "values": values}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "support_rotation.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
