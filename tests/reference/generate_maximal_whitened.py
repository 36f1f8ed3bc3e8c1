#!/usr/bin/env python3
"""mpmath references for the maximal (geometric) family at orders alpha >= 1
(``maximal_whitened`` in docs/divergences.md: the Cholesky-whitened route and its fallback).

Writes ``maximal_whitened.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_maximal_whitened.py

Only mpmath and the standard library are needed; the output is deterministic (the sibling
scripts' linear congruential generator and Gram-Schmidt make the matrices, rounded to doubles and
stored exactly Hermitian; the references are those of the stored doubles).  Independently of
qrenyi's routes (no Cholesky factor, no whitening), at 60 digits (a recomputation at 80 digits is
asserted to agree to 1e-40):

    D^_alpha = ln( Tr sigma^{1/2} T^alpha sigma^{1/2} / Tr rho ) / (alpha - 1),
    T = sigma^{-1/2} rho sigma^{-1/2},

with sigma^{-1/2} from mpmath's eighe of sigma and T^alpha from eighe of T; rho's eigenvalues at
or below its zero threshold tau = 16 d eps lambda_max(rho) count as 0 (docs/conventions.md: the
stored doubles of a rank-deficient state carry eigenvalues of order 1e-17 of either sign).  Each
value carries the documented bound (docs/conventions.md, "Error bounds"; accuracy::error_bound):
eta = 16 d eps kappa, kappa the largest condition number of the two states on their supports,
(1 + alpha + |1 - alpha|) eta / |alpha - 1| for |alpha - 1| >= 1/4, else
4 (1 + alpha + |1 - alpha|) eta (1 + |D| + ln kappa), plus 64 d eps (1 + |D|).

Cases: d = 2, 4, 8, 16; sigma with kappa 1 (I/d), 1e3, 1e6, 1e12; rank-deficient rho; rho = sigma;
above the stack-array route, d = 24 and 40 (kappa 1e3, 1e6) and a rank-12 rho at d = 24;
orders 1 (the Belavkin–Staszewski limit), 1.001, 1.5, 2, 10, 1000.
"""
import json
import os
import sys
from mpmath import mp, mpf, matrix, eighe, log

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate_maximal_ritz import Lcg  # noqa: E402
from generate_factor_congruence import state, graded  # noqa: E402
from generate_order_two import mpm  # noqa: E402

EPS = 2.0 ** -52
ORDERS = [1.0, 1.001, 1.5, 2.0, 10.0, 1000.0]


def values(rho, sigma, dps):
    mp.dps = dps
    d = len(rho)
    R, S = mpm(rho), mpm(sigma)
    lam, W = eighe(R)
    lam_max = max(lam)
    tau_r = 16 * d * mpf(EPS) * lam_max
    # rho with its sub-threshold eigenvalues set to 0 (the zero-threshold convention)
    Rc = matrix(d, d)
    for k in range(d):
        if lam[k] > tau_r:
            Rc += lam[k] * (W[:, k] * W[:, k].transpose_conj())
    mu, V = eighe(S)
    assert min(mu) > 16 * d * mpf(EPS) * max(mu), "sigma of full rank"
    kappa = max(max(mu) / min(mu), lam_max / min(x for x in lam if x > tau_r))
    Dh = matrix(d, d)
    for k in range(d):
        Dh[k, k] = mu[k] ** mpf(-0.5)
    Sih = V * Dh * V.transpose_conj()
    T = Sih * Rc * Sih
    T = (T + T.transpose_conj()) / 2
    t, U = eighe(T)
    w = []
    for k in range(d):
        u = U[:, k]
        w.append((u.transpose_conj() * S * u)[0, 0].real)
    tr = sum(Rc[k, k].real for k in range(d))
    out = {}
    for a in ORDERS:
        a = mpf(a)
        if a == 1:
            # the α → 1 limit (Belavkin–Staszewski): Σ w t ln t / Tr ρ
            out[float(a)] = sum(w[k] * t[k] * log(t[k]) for k in range(d) if t[k] > 0) / tr
            continue
        q = sum(w[k] * t[k] ** a for k in range(d) if t[k] > 0)
        out[float(a)] = log(q / tr) / (a - 1)
    return out, float(kappa)


def bound(d, kappa, alpha, v):
    import math
    eta = 16 * d * EPS * kappa
    num = 1 + alpha + abs(1 - alpha)
    gap = abs(alpha - 1)
    size = 1 + abs(v)
    sens = num * eta / gap if gap >= 0.25 else num * eta * (size + math.log(kappa)) / 0.25
    return sens + 64 * d * EPS * size


def identity(d):
    m = [[0j] * d for _ in range(d)]
    for i in range(d):
        m[i][i] = complex(1.0 / d, 0.0)
    return m


def main():
    rng = Lcg(2026112422)
    specs = []
    for d in [2, 4, 8, 16]:
        specs.append((f"sigma = I/d (kappa 1), d = {d}", state(d, graded(d, 1e2, d), rng), identity(d)))
        for ks in [1e3, 1e6, 1e12]:
            specs.append((f"sigma kappa {ks:g}, d = {d}",
                          state(d, graded(d, 1e2, d), rng), state(d, graded(d, ks, d), rng)))
    for d, rank, ks in [(4, 1, 1e3), (8, 3, 1e6), (16, 8, 1e2), (16, 15, 1e6)]:
        specs.append((f"rho rank {rank}, sigma kappa {ks:g}, d = {d}",
                      state(d, graded(d, 1e3, rank), rng), state(d, graded(d, ks, d), rng)))
    for d, k in [(4, 1e2), (16, 1e8)]:
        r = state(d, graded(d, k, d), rng)
        specs.append((f"rho = sigma, kappa {k:g}, d = {d}", r, r))
    # above WHITENED_MAX = 16: the route on LAPACK/BLAS (appended last, so that the cases above
    # keep their matrices)
    for d, ks in [(24, 1e3), (24, 1e6), (40, 1e3), (40, 1e6)]:
        specs.append((f"sigma kappa {ks:g}, d = {d}",
                      state(d, graded(d, 1e2, d), rng), state(d, graded(d, ks, d), rng)))
    specs.append(("rho rank 12, sigma kappa 1e4, d = 24",
                  state(24, graded(24, 1e3, 12), rng), state(24, graded(24, 1e4, 24), rng)))

    cases = []
    for what, rho, sigma in specs:
        d = len(rho)
        v, kappa = values(rho, sigma, 60)
        v2, _ = values(rho, sigma, 80)
        for a in ORDERS:
            assert abs(v[a] - v2[a]) < mpf(10) ** -40, (what, a)
        cases.append({
            "what": what,
            "d": d,
            "rho": [[[z.real, z.imag] for z in row] for row in rho],
            "sigma": [[[z.real, z.imag] for z in row] for row in sigma],
            "kappa": kappa,
            "orders": [
                {"alpha": a, "value": float(v[a]), "bound": bound(d, kappa, a, float(v[a]))}
                for a in ORDERS
            ],
        })
        print(what, d, f"kappa={kappa:.3g}", [float(v[a]) for a in ORDERS], file=sys.stderr)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "maximal_whitened.json")
    with open(out, "w") as f:
        json.dump({"cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
