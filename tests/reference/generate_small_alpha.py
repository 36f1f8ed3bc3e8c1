#!/usr/bin/env python3
"""mpmath references for small orders (issue 10 §1): sandwiched D~_alpha at alpha down to 1e-300.

Writes ``small_alpha.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_small_alpha.py

Only mpmath and the standard library are needed; the output is deterministic.

For a 2 x 2 pair the eigenvalues of A = sigma^(g/2) rho sigma^(g/2), g = (1-alpha)/alpha, follow
from two invariants, evaluated exactly in the eigenbasis of sigma (mu_j, b_j):

    tr A  = sum_j mu_j^g <b_j|rho|b_j>,     det A = (mu_1 mu_2)^g det rho,
    nu_+  = (tr A + sqrt(tr A^2 - 4 det A)) / 2,   nu_- = det A / nu_+   (no cancellation),

and D~_alpha = ln((nu_+^alpha + nu_-^alpha) / Tr rho) / (alpha - 1).  mpmath numbers have an
unbounded exponent, so mu^g with g = 1e300 is an ordinary mpf; the working precision (400 digits)
only has to resolve nu_-/nu_+ through the product formula, which needs none.  The matrices are
the doubles as stored (exact binary values), not renormalised.  A d x d cross-check at 0.02 with a
general eigensolver (mp.eighe at 300 digits) is asserted.
"""
import json
import os
from mpmath import mp, mpf, mpc, matrix, sqrt, log, eighe

mp.dps = 400

R = [[(0.6, 0.0), (0.1, 0.05)], [(0.1, -0.05), (0.4, 0.0)]]
S = [[(0.3, 0.0), (0.2, -0.1)], [(0.2, 0.1), (0.7, 0.0)]]
ALPHAS = [0.3, 0.1, 0.05, 0.02, 0.01, 0.001, 1e-20, 1e-300]


def mat(a):
    return matrix([[mpc(mpf(x), mpf(y)) for (x, y) in row] for row in a])


def sandwiched_2x2(rho, sigma, alpha):
    alpha = mpf(alpha)
    g = (1 - alpha) / alpha
    mu, b = eighe(sigma)
    diag = [(b[:, j].H * rho * b[:, j])[0].real for j in range(2)]
    tr = sum(mu[j] ** g * diag[j] for j in range(2))
    det_rho = (rho[0, 0] * rho[1, 1] - rho[0, 1] * rho[1, 0]).real
    det = (mu[0] * mu[1]) ** g * det_rho
    nu_p = (tr + sqrt(tr * tr - 4 * det)) / 2
    nu_m = det / nu_p
    q = nu_p ** alpha + nu_m ** alpha
    trace = (rho[0, 0] + rho[1, 1]).real
    return log(q / trace) / (alpha - 1)


def sandwiched_general(rho, sigma, alpha):
    alpha = mpf(alpha)
    g = (1 - alpha) / alpha
    mu, b = eighe(sigma)
    sg = b * matrix([[mu[i] ** (g / 2) if i == j else 0 for j in range(2)] for i in range(2)]) * b.H
    nu, _ = eighe(sg * rho * sg)
    trace = (rho[0, 0] + rho[1, 1]).real
    return log(sum(x ** alpha for x in nu) / trace) / (alpha - 1)


def main():
    rho, sigma = mat(R), mat(S)
    out = []
    for a in ALPHAS:
        v = sandwiched_2x2(rho, sigma, a)
        out.append({"alpha": a, "sandwiched": float(v)})
    mp.dps = 300
    check = sandwiched_general(rho, sigma, 0.02)
    mp.dps = 400
    assert abs(check - sandwiched_2x2(rho, sigma, 0.02)) < mpf(10) ** -200
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_alpha.json")
    with open(path, "w") as f:
        json.dump({"rho": R, "sigma": S, "values": out}, f, indent=1)
        f.write("\n")
    for o in out:
        print(o)


if __name__ == "__main__":
    main()
