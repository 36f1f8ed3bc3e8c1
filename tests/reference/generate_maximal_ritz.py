#!/usr/bin/env python3
"""mpmath references for the maximal divergence below alpha = 1 on strongly graded pairs (issue 14).

Writes ``maximal_ritz.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_maximal_ritz.py

Only mpmath and the standard library are needed; the output is deterministic (a fixed linear
congruential generator makes the matrices, which are rounded to doubles and stored; the references
are those of the stored doubles).

Each pair is rho = U diag(lambda) U^dagger, sigma = V diag(mu) V^dagger (U, V from Gram-Schmidt of
pseudo-random complex matrices), rounded to doubles, with kappa(T) = kappa(sigma^{-1/2} rho
sigma^{-1/2}) between ~1e9 and ~1e13: the fast eigensolve's a-posteriori bound declines every order
below 1 there, so qrenyi evaluates them by the certified Rayleigh-Ritz reduction (or, where its
certificate fails, the graded Jacobi method).  The values are

    D^_alpha = ln( sum_k w_k t_k^alpha / Tr rho ) / (alpha - 1),   w_k = <v_k|sigma|v_k>,

with (t_k, v_k) the eigenpairs of T = sigma^{-1/2} rho sigma^{-1/2}, all at 80 digits (eighe);
kappa(T) <= 1e13 needs ~13 digits beyond the 16 of the result.  A recomputation at 120 digits is
asserted to agree to 1e-40.
"""
import json
import os
from mpmath import mp, mpf, mpc, matrix, eighe, log, sqrt

ALPHAS = [0.05, 0.3, 0.55, 0.66, 0.79, 0.9]


class Lcg:
    def __init__(self, seed):
        self.x = seed

    def uniform(self):
        self.x = (6364136223846793005 * self.x + 1442695040888963407) % 2 ** 64
        return (self.x >> 11) / float(2 ** 53)


def unitary(d, rng):
    """Gram-Schmidt (in doubles) of a pseudo-random complex matrix; columns orthonormal."""
    cols = []
    for _ in range(d):
        v = [complex(rng.uniform() - 0.5, rng.uniform() - 0.5) for _ in range(d)]
        for _ in range(2):
            for c in cols:
                h = sum(x.conjugate() * y for x, y in zip(c, v))
                v = [y - h * x for x, y in zip(c, v)]
        nrm = sum(abs(y) ** 2 for y in v) ** 0.5
        cols.append([y / nrm for y in v])
    return cols


def state(spectrum, rng):
    """U diag(s) U^dagger in doubles (trace normalised in doubles), as [[re, im], ...] rows."""
    d = len(spectrum)
    tot = sum(spectrum)
    s = [x / tot for x in spectrum]
    u = unitary(d, rng)
    m = [[sum(u[k][i] * s[k] * u[k][j].conjugate() for k in range(d)) for j in range(d)] for i in range(d)]
    for i in range(d):
        m[i][i] = complex(m[i][i].real, 0.0)
        for j in range(i):
            m[i][j] = m[j][i].conjugate()
    return [[[z.real, z.imag] for z in row] for row in m]


def mat(rows):
    return matrix([[mpc(mpf(z[0]), mpf(z[1])) for z in row] for row in rows])


def maximal(rho, sigma, alphas):
    d = rho.rows
    mu, b = eighe(sigma)
    isq = b * matrix([[1 / sqrt(mu[i]) if i == j else 0 for j in range(d)] for i in range(d)]) * b.H
    t, v = eighe(isq * rho * isq)
    tr = sum(rho[i, i] for i in range(d)).real
    w = [(v[:, k].H * sigma * v[:, k])[0].real for k in range(d)]
    out = []
    for a in alphas:
        a = mpf(a)
        q = sum(w[k] * t[k] ** a for k in range(d))
        out.append(log(q / tr) / (a - 1))
    return out, max(t) / min(t)


CASES = [
    # (name, d, rho spectrum, sigma spectrum, seed)
    ("graded sigma 1e-9, random rho", 6, [1, 0.7, 0.4, 0.2, 0.1, 0.05],
     [1, 0.1, 1e-3, 1e-5, 1e-7, 1e-9], 11),
    ("graded sigma 1e-12, random rho", 8, [1, 0.9, 0.6, 0.5, 0.3, 0.2, 0.1, 0.08],
     [1, 0.5, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12], 12),
    ("both graded (1e-4, 1e-8)", 8, [1, 0.3, 0.1, 3e-2, 1e-2, 1e-3, 1e-4, 2e-4],
     [1, 0.2, 3e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8], 13),
    ("Hilbert-Schmidt-like rho, sigma 1e-10", 10,
     [1.7, 1.1, 0.9, 0.6, 0.45, 0.3, 0.2, 0.09, 0.04, 0.004],
     [2.0, 1.2, 0.8, 0.5, 0.1, 2e-2, 1e-3, 1e-5, 1e-7, 1e-10], 14),
]


def main():
    out = []
    for name, d, ls, ms, seed in CASES:
        rng = Lcg(seed)
        r, s = state(ls, rng), state(ms, rng)
        mp.dps = 80
        vals, kappa = maximal(mat(r), mat(s), ALPHAS)
        mp.dps = 120
        check, _ = maximal(mat(r), mat(s), ALPHAS)
        assert all(abs(x - y) < mpf(10) ** -40 for x, y in zip(vals, check)), name
        out.append({"name": name, "rho": r, "sigma": s, "kappa_T": float(kappa),
                    "values": [{"alpha": a, "maximal": float(v)} for a, v in zip(ALPHAS, vals)]})
        print(name, "kappa(T) = %.2e" % float(kappa), [float(v) for v in vals])
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "maximal_ritz.json")
    with open(path, "w") as f:
        json.dump({"cases": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
