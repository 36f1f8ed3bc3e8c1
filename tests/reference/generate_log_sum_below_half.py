#!/usr/bin/env python3
"""mpmath references for small orders alpha in [1e-3, 1e-2] (test ``log_sum_below_half`` in
tests/accuracy.rs; docs/divergences.md, "log_sum_below_half").

Writes ``log_sum_below_half.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_log_sum_below_half.py

Needs mpmath and numpy (numpy only draws the matrices, from a fixed seed); the output is
deterministic.  The matrices are the doubles as stored (exactly Hermitian: the lower triangle is the
conjugate of the upper one; not renormalised), and every value is computed from those exact binary
values:

    Petz        D = ln(Tr rho^a sigma^(1-a) / Tr rho) / (a - 1)
    sandwiched  D = ln(sum_k nu_k^a / Tr rho) / (a - 1),  nu = eig(sigma^(g/2) rho sigma^(g/2)), g = (1-a)/a
    maximal     D = ln(Tr sigma^(1/2) T^a sigma^(1/2) / Tr rho) / (a - 1),  T = sigma^(-1/2) rho sigma^(-1/2)

(the stored states are full rank).  At a = 1e-3 the sandwiched spectrum is graded by
kappa(sigma)^g: its small eigenvalues, which enter as nu^a, need *relative* accuracy, so the working
precision is 60 digits plus the decades of the grading (g log10 kappa(sigma) + log10 kappa(rho)).
Every value is computed twice, at that precision and 40 digits more, and the two must agree to 1e-30.
"""
import json
import os

import numpy as np
from mpmath import mp, mpf, mpc, matrix, log, eighe, diag

ALPHAS = [1e-3, 2.641615364296782e-3, 5e-3, 1e-2]
# (d, spectrum of rho, spectrum of sigma): near-pure, ill-conditioned and generic states
CASES = [
    (2, [1 - 1e-6, 1e-6], [0.7, 0.3]),
    (2, [0.5 + 2e-5, 0.5 - 2e-5], [0.5 + 3e-4, 0.5 - 3e-4]),
    (3, [1 - 2e-8, 1e-8, 1e-8], [0.5, 0.3, 0.2]),
    (3, [0.6, 0.4 - 1e-7, 1e-7], [0.9, 0.08, 0.02]),
    (4, [0.97, 0.01, 0.01, 0.01], [0.4, 0.3, 0.2, 0.1]),
    (4, [0.25, 0.25, 0.25, 0.25], [0.28, 0.26, 0.24, 0.22]),
    (6, [1 - 5e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6], [0.3, 0.2, 0.2, 0.1, 0.1, 0.1]),
    (8, [0.93] + [0.01] * 7, [0.2, 0.15, 0.15, 0.1, 0.1, 0.1, 0.1, 0.1]),
]


def draw(d, spectrum, rng):
    """U diag(spectrum) U^dagger in doubles (U Haar by QR), made exactly Hermitian."""
    z = (rng.standard_normal((d, d)) + 1j * rng.standard_normal((d, d))) / np.sqrt(2)
    q, r = np.linalg.qr(z)
    q = q * (np.diag(r) / np.abs(np.diag(r)))
    m = (q * np.array(spectrum)) @ q.conj().T
    out = [[None] * d for _ in range(d)]
    for i in range(d):
        out[i][i] = (float(m[i, i].real), 0.0)
        for j in range(i + 1, d):
            out[i][j] = (float(m[i, j].real), float(m[i, j].imag))
            out[j][i] = (float(m[i, j].real), -float(m[i, j].imag))
    return out


def mat(a):
    return matrix([[mpc(mpf(x), mpf(y)) for (x, y) in row] for row in a])


def power(values, vectors, p):
    d = len(values)
    return vectors * diag([values[i] ** p for i in range(d)]) * vectors.H


def trace(m):
    return sum(m[i, i] for i in range(m.rows)).real


def values(rho_a, sigma_a, alpha):
    rho, sigma = mat(rho_a), mat(sigma_a)
    a = mpf(alpha)
    g = (1 - a) / a
    lam, u = eighe(rho)
    mu, v = eighe(sigma)
    tr = trace(rho)
    petz = trace(power(lam, u, a) * power(mu, v, 1 - a))
    half = power(mu, v, g / 2)
    nu, _ = eighe(half * rho * half)
    sandwiched = sum(x ** a for x in nu)
    inv = power(mu, v, mpf(-1) / 2)
    t, w = eighe(inv * rho * inv)
    root = power(mu, v, mpf(1) / 2)
    maximal = trace(root * power(t, w, a) * root)
    return {
        "petz": log(petz / tr) / (a - 1),
        "sandwiched": log(sandwiched / tr) / (a - 1),
        "maximal": log(maximal / tr) / (a - 1),
    }


def main():
    rng = np.random.default_rng(20261123)
    out = []
    for d, lr, ls in CASES:
        rho, sigma = draw(d, lr, rng), draw(d, ls, rng)
        kr, ks = max(lr) / min(lr), max(ls) / min(ls)
        refs = []
        for alpha in ALPHAS:
            g = (1 - alpha) / alpha
            dps = 60 + int(g * np.log10(ks) + np.log10(kr))
            mp.dps = dps
            x = values(rho, sigma, alpha)
            mp.dps = dps + 40
            y = values(rho, sigma, alpha)
            for k in x:
                assert abs(x[k] - y[k]) < mpf(10) ** -30, (d, alpha, k)
            refs.append({"alpha": alpha, **{k: float(v) for k, v in y.items()}})
        out.append({"rho": rho, "sigma": sigma, "values": refs})
        print(d, refs[0])
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log_sum_below_half.json")
    with open(path, "w") as f:
        json.dump({"pairs": out}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
