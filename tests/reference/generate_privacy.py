#!/usr/bin/env python3
"""High-precision reference fixtures for `qrenyi::privacy` (conversions, composition,
mechanisms, bounded-divergence bounds, depolarizing closed forms, qzCDP fits).

Writes ``privacy.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_privacy.py

Only mpmath and the standard library are needed; the output is deterministic.

Every value is computed *independently* of the Rust formulas where possible:

* zCDP/RDP -> (eps, delta): the infimum over alpha of the seed-001 expressions, located by
  bisection on the derivative at 60 digits (any alpha gives an upper bound, the infimum is the
  exact value the Rust code must never undercut).
* Gaussian delta(eps): Balle-Wang formula with mpmath's ncdf; calibrated sigma by bisection.
* Laplace D_alpha and delta(eps): numerical integration (mp.quad) of the densities, not the
  closed forms.
* Randomized response / Theorem 22 tight bound: the seed's A, B formula with the corrected B,
  evaluated as (1/(alpha-1)) ln(A e^{alpha eps} + B e^{-alpha eps}).
* Kairouz-Oh-Viswanath: the binomial sum in exact-ish 60-digit arithmetic; eps(delta) by
  bisection on eps_total.
* Depolarizing channel: explicit output matrices, eigenvalues by mp.eighe.
* qzCDP fit: sup over alpha of (D_alpha - xi)/alpha by dense grid + golden-section refinement
  on mpmath divergences (classical pair, and a qubit pair with the sandwiched divergence).
"""
import json
import math
import os

from mpmath import mp, mpf, exp, log, log1p, sqrt, ncdf, binomial, quad, inf, matrix, eighe

mp.dps = 60


def f(x):
    """Nearest double."""
    return float(x)


def fl(x):
    """Largest double <= x (the soundness tests require returned >= this)."""
    v = float(x)
    if mpf(v) > x:
        v = math.nextafter(v, -math.inf)
    return v


# ---------------------------------------------------------------- zCDP / RDP conversions
def bisect(g, lo, hi, it=400):
    """Root of an increasing g on [lo, hi]."""
    lo, hi = mpf(lo), mpf(hi)
    for _ in range(it):
        mid = (lo + hi) / 2
        if g(mid) < 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def zcdp_delta(xi, rho, eps):
    xi, rho, eps = mpf(xi), mpf(rho), mpf(eps)

    def ln_delta(a):
        return (a - 1) * (xi + a * rho - eps) + a * log1p(-1 / a) - log(a - 1)

    def deriv(a):
        return (2 * a - 1) * rho + xi - eps + log1p(-1 / a)

    hi = mpf(2)
    while deriv(hi) < 0:
        hi *= 2
    a = bisect(deriv, 1 + mpf(10) ** -40, hi)
    return min(mpf(1), exp(ln_delta(a))), a


def zcdp_epsilon(xi, rho, delta):
    xi, rho, delta = mpf(xi), mpf(rho), mpf(delta)

    def eps_at(a):
        return xi + a * rho + (log(1 / delta) + (a - 1) * log1p(-1 / a) - log(a)) / (a - 1)

    def g(a):
        return rho * (a - 1) ** 2 + log(a) + log(delta)

    hi = mpf(2)
    while g(hi) < 0:
        hi *= 2
    a = bisect(g, 1 + mpf(10) ** -40, hi)
    return max(mpf(0), eps_at(a)), a


def rdp_delta(alpha, tau, eps):
    a, tau, eps = mpf(alpha), mpf(tau), mpf(eps)
    return min(mpf(1), exp((a - 1) * (tau - eps)) * (1 - 1 / a) ** a / (a - 1))


def rdp_epsilon(alpha, tau, delta):
    a, tau, d = mpf(alpha), mpf(tau), mpf(delta)
    return max(mpf(0), tau + (log(1 / d) + (a - 1) * log(1 - 1 / a) - log(a)) / (a - 1))


def rdp_epsilon_simple(alpha, tau, delta):
    a, tau, d = mpf(alpha), mpf(tau), mpf(delta)
    return max(mpf(0), tau + log(1 / d) / (a - 1))


# ---------------------------------------------------------------- mechanisms
def gaussian_delta(sigma, sens, eps):
    s, D, e = mpf(sigma), mpf(sens), mpf(eps)
    return ncdf(D / (2 * s) - e * s / D) - exp(e) * ncdf(-D / (2 * s) - e * s / D)


def gaussian_calibrate(eps, delta, sens):
    # delta is decreasing in sigma
    return bisect(lambda s: -(gaussian_delta(s, sens, eps) - mpf(delta)), mpf("1e-3"), mpf(1000))


def laplace_pdf(x, mu, b):
    return exp(-abs(x - mu) / b) / (2 * b)


def laplace_renyi(scale, sens, alpha):
    b, D, a = mpf(scale), mpf(sens), mpf(alpha)
    if a == 1:
        integ = lambda x: laplace_pdf(x, 0, b) * (log(laplace_pdf(x, 0, b)) - log(laplace_pdf(x, D, b)))
        return quad(integ, [-inf, 0, D, inf])
    integ = lambda x: laplace_pdf(x, 0, b) ** a * laplace_pdf(x, D, b) ** (1 - a)
    return log(quad(integ, [-inf, 0, D, inf])) / (a - 1)


def laplace_delta(scale, sens, eps):
    b, D, e = mpf(scale), mpf(sens), mpf(eps)
    integ = lambda x: max(mpf(0), laplace_pdf(x, 0, b) - exp(e) * laplace_pdf(x, D, b))
    # the positive part switches sign at x* = (D - e b)/2
    xs = (D - e * b) / 2
    pts = sorted(set([-inf, 0, xs, D, inf])) if 0 <= xs <= D else [-inf, 0, D, inf]
    return quad(integ, pts)


def tight_bound(eps, alpha):
    """Seed 000 Theorem 22 proof, corrected B: (1/(a-1)) ln(A e^{a eps} + B e^{-a eps})."""
    e, a = mpf(eps), mpf(alpha)
    A = (1 - exp(-e)) / (exp(e) - exp(-e))
    B = (exp(e) - 1) / (exp(e) - exp(-e))
    if a == 1:
        # limit: d/da ln(A e^{a e} + B e^{-a e}) at a = 1 (since the value at 1 is ln 1 = 0)
        return (A * e * exp(e) - B * e * exp(-e)) / (A * exp(e) + B * exp(-e))
    return log(A * exp(a * e) + B * exp(-a * e)) / (a - 1)


# ---------------------------------------------------------------- KOV
def kov_delta(eps, delta, k, eps_total):
    e, d, eg = mpf(eps), mpf(delta), mpf(eps_total)
    H = sum(binomial(k, l) * max(mpf(0), exp((k - l) * e) - exp(eg + l * e)) for l in range(k + 1))
    H /= (1 + exp(e)) ** k
    return 1 - (1 - d) ** k + (1 - d) ** k * H


def kov_epsilon(eps, delta, k, target):
    lo, hi = mpf(0), mpf(k) * mpf(eps)
    if kov_delta(eps, delta, k, 0) <= target:
        return mpf(0)
    for _ in range(200):
        mid = (lo + hi) / 2
        if kov_delta(eps, delta, k, mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi


# ---------------------------------------------------------------- matrices
def herm_eigs(M):
    E, _ = eighe(M)
    return [E[i] for i in range(M.rows)]


def mat_fun(M, fn):
    E, Q = eighe(M)
    n = M.rows
    D = matrix(n, n)
    for i in range(n):
        D[i, i] = fn(E[i])
    return Q * D * Q.transpose_conj()


def depolarizing_outputs(d, p, tau):
    p, tau = mpf(p), mpf(tau)
    psi = matrix(d, 1)
    phi = matrix(d, 1)
    psi[0] = 1
    phi[0] = sqrt(1 - tau ** 2)
    phi[1] = tau
    I = mp.eye(d)
    r = (1 - p) * (psi * psi.transpose_conj()) + p / d * I
    s = (1 - p) * (phi * phi.transpose_conj()) + p / d * I
    return r, s


def hockey(r, s, gamma):
    return sum(max(mpf(0), x) for x in herm_eigs(r - gamma * s))


def dmax(r, s):
    si = mat_fun(s, lambda x: 1 / sqrt(x))
    return log(max(herm_eigs(si * r * si)))


# ---------------------------------------------------------------- qzCDP fit
def classical_renyi(p, q, a):
    p = [mpf(x) for x in p]
    q = [mpf(x) for x in q]
    if a == 1:
        return sum(pi * log(pi / qi) for pi, qi in zip(p, q) if pi > 0)
    return log(sum(pi ** a * qi ** (1 - a) for pi, qi in zip(p, q) if pi > 0)) / (a - 1)


def sandwiched(r, s, a):
    a = mpf(a)
    if a == 1:
        return sum(0 for _ in [])  # not used
    g = (1 - a) / (2 * a)
    sg = mat_fun(s, lambda x: x ** g)
    A = sg * r * sg
    return log(sum(max(mpf(0), x) ** a for x in herm_eigs(A))) / (a - 1)


def sup_ratio(D, xi, alpha_one_value):
    """sup_{a>1} (D(a) - xi)/a: dense log grid, then golden section around the best point."""
    xi = mpf(xi)
    grid = [1 + mpf(10) ** (k / mpf(20)) for k in range(-160, 81)]
    vals = [((D(a) - xi) / a, a) for a in grid]
    best, abest = max(vals)
    lim1 = alpha_one_value - xi  # the alpha -> 1+ limit
    if lim1 >= best:
        return lim1, mpf(1)
    i = grid.index(abest)
    lo = grid[max(i - 1, 0)]
    hi = grid[min(i + 1, len(grid) - 1)]
    phi = (sqrt(5) - 1) / 2
    for _ in range(200):
        m1 = hi - phi * (hi - lo)
        m2 = lo + phi * (hi - lo)
        if (D(m1) - xi) / m1 < (D(m2) - xi) / m2:
            lo = m1
        else:
            hi = m2
    a = (lo + hi) / 2
    return max(best, (D(a) - xi) / a), a


def main():
    out = {}
    # published values and a spread of parameters
    zd = []
    for xi, rho, eps in [(0, 0.05, 0.25), (0, 0.5, 0), (0, 0.03125, 0), (0, 0.03125, 1.0), (0, 1e-4, 0.1),
                         (0, 2.0, 3.0), (0, 0.1, 5.0), (0.1, 0.05, 0.5), (0.5, 0.01, 0.2), (0, 1e-6, 1e-2),
                         (0, 10.0, 1.0), (0, 0.5, 30.0)]:
        v, a = zcdp_delta(xi, rho, eps)
        zd.append({"xi": xi, "rho": rho, "epsilon": eps, "delta": f(v), "delta_floor": fl(v), "alpha": f(a)})
    out["zcdp_delta"] = zd
    ze = []
    for xi, rho, d in [(0, 0.03125, 1e-3), (0, 0.5, 1e-5), (0, 0.01, 1e-9), (0, 2.0, 0.5), (0.2, 0.1, 1e-6),
                       (0, 1e-5, 1e-5), (0, 5.0, 1e-12)]:
        v, a = zcdp_epsilon(xi, rho, d)
        ze.append({"xi": xi, "rho": rho, "delta": d, "epsilon": f(v), "epsilon_floor": fl(v), "alpha": f(a)})
    out["zcdp_epsilon"] = ze
    rd = []
    for alpha, tau, eps, d in [(2.0, 0.1, 0.5, 1e-5), (1.5, 0.01, 0.05, 1e-3), (32.0, 1.0, 2.0, 1e-9),
                               (1.01, 0.001, 0.3, 0.1), (10.0, 0.5, 0.0, 1e-6)]:
        rd.append({"alpha": alpha, "tau": tau, "epsilon": eps, "delta_target": d,
                   "delta": f(rdp_delta(alpha, tau, eps)), "delta_floor": fl(rdp_delta(alpha, tau, eps)),
                   "epsilon_cor1": f(rdp_epsilon(alpha, tau, d)), "epsilon_cor1_floor": fl(rdp_epsilon(alpha, tau, d)),
                   "epsilon_simple": f(rdp_epsilon_simple(alpha, tau, d)),
                   "epsilon_simple_floor": fl(rdp_epsilon_simple(alpha, tau, d))})
    out["rdp"] = rd
    ga = []
    for sigma, sens, eps in [(3.7306316348, 1.0, 1.0), (1.0, 1.0, 0.5), (0.5, 2.0, 3.0), (10.0, 1.0, 0.01),
                             (2.0, 1.0, 4.0)]:
        v = gaussian_delta(sigma, sens, eps)
        ga.append({"sigma": sigma, "sensitivity": sens, "epsilon": eps, "delta": f(v), "delta_floor": fl(v)})
    out["gaussian_delta"] = ga
    gc = []
    for eps, d, sens in [(1.0, 1e-5, 1.0), (0.5, 1e-6, 1.0), (2.0, 1e-3, 3.0), (0.1, 1e-5, 1.0)]:
        gc.append({"epsilon": eps, "delta": d, "sensitivity": sens, "sigma": f(gaussian_calibrate(eps, d, sens))})
    out["gaussian_calibrate"] = gc
    la = []
    for scale, sens, alpha in [(1.0, 1.0, 2.0), (2.0, 1.0, 1.5), (0.5, 1.0, 10.0), (1.0, 1.0, 1.0), (1.0, 1.0, 1.001),
                               (10.0, 1.0, 3.0)]:
        v = laplace_renyi(scale, sens, alpha)
        la.append({"scale": scale, "sensitivity": sens, "alpha": alpha, "renyi": f(v), "renyi_floor": fl(v)})
    out["laplace_renyi"] = la
    ld = []
    for scale, sens, eps in [(1.0, 1.0, 0.0), (1.0, 1.0, 0.5), (0.5, 1.0, 1.2), (2.0, 1.0, 0.1)]:
        v = laplace_delta(scale, sens, eps)
        ld.append({"scale": scale, "sensitivity": sens, "epsilon": eps, "delta": f(v), "delta_floor": fl(v)})
    out["laplace_delta"] = ld
    tb = []
    for eps in [0.01, 0.1, 0.5, 1.0, 2.0, 5.0]:
        for alpha in [1.0, 1.0001, 1.5, 2.0, 10.0, 100.0]:
            tb.append({"epsilon": eps, "alpha": alpha, "tight": f(tight_bound(eps, alpha)),
                       "tight_floor": fl(tight_bound(eps, alpha)),
                       "loose": f(mpf(eps) ** 2 * mpf(alpha) / 2)})
    out["bounded_divergence"] = tb
    kv = []
    for eps, d, k, eg in [(1.0, 0.001, 30, 22.0), (1.0, 0.001, 30, 20.0), (0.1, 0.0, 100, 2.0), (0.5, 1e-5, 50, 7.5),
                          (0.01, 0.0, 1000, 0.5)]:
        v = kov_delta(eps, d, k, eg)
        kv.append({"epsilon": eps, "delta": d, "k": k, "eps_total": eg, "delta_total": f(v), "delta_total_floor": fl(v)})
    out["kov_delta"] = kv
    ke = []
    for eps, d, k, t in [(1.0, 0.001, 30, 0.06), (1.0, 0.001, 30, 0.1), (0.1, 0.0, 100, 1e-5), (0.5, 1e-6, 20, 1e-4)]:
        ke.append({"epsilon": eps, "delta": d, "k": k, "delta_total": t, "eps_total": f(kov_epsilon(eps, d, k, mpf(t)))})
    out["kov_epsilon"] = ke
    adv = []
    for eps, d, k, dp in [(0.1, 0.0, 100, 1e-6), (1.0, 1e-6, 10, 1e-5), (0.01, 0.0, 10000, 1e-9)]:
        e, dd, kk, dpp = mpf(eps), mpf(d), mpf(k), mpf(dp)
        root = sqrt(2 * kk * log(1 / dpp)) * e
        adv.append({"epsilon": eps, "delta": d, "k": k, "delta_prime": dp,
                    "drv": f(root + kk * e * (exp(e) - 1)),
                    "dr16": f(root + kk * e * (exp(e) - 1) / 2),
                    "thm20": f(kk * e ** 2 / 2 + root),
                    "seed003_printed": f(sqrt(2 * kk * log(1 / dpp)) + kk * (exp(e) - 1)),
                    "zcdp": f(zcdp_epsilon(0, kk * e ** 2 / 2, dpp)[0]) if d == 0 else None})
    out["advanced"] = adv
    dep = []
    for d, p, tau in [(2, 0.5, 1.0), (3, 0.2, 1.0), (2, 0.3, 0.6), (4, 0.7, 0.3)]:
        r, s = depolarizing_outputs(d, p, tau)
        entry = {"d": d, "p": p, "tau": tau, "dmax": f(dmax(r, s)), "dmax_floor": fl(dmax(r, s)),
                 "delta": [{"epsilon": e, "delta": f(hockey(r, s, exp(mpf(e)))),
                            "delta_floor": fl(hockey(r, s, exp(mpf(e))))} for e in [0.0, 0.3, 1.0]]}
        if tau == 1.0:
            pv = [r[i, i] for i in range(d)]
            qv = [s[i, i] for i in range(d)]
            entry["renyi"] = [{"alpha": a, "value": f(classical_renyi(pv, qv, mpf(a)))} for a in [1.0, 1.5, 2.0, 5.0]]
        dep.append(entry)
    out["depolarizing"] = dep
    # qzCDP fits
    fits = []
    pq = ([0.5, 0.3, 0.2], [0.2, 0.3, 0.5])
    for xi in [0.0, 0.1, 0.3]:
        D = lambda a: classical_renyi(pq[0], pq[1], a)
        v, a = sup_ratio(D, xi, classical_renyi(pq[0], pq[1], mpf(1)))
        fits.append({"kind": "classical", "p": pq[0], "q": pq[1], "xi": xi, "rho": f(v), "alpha": f(a)})
    # qubit pair, sandwiched
    rq = [[0.7, 0.2], [0.2, 0.3]]
    sq = [[0.4, -0.1], [-0.1, 0.6]]
    R, S = matrix(rq), matrix(sq)
    D1 = lambda a: sandwiched(R, S, a)
    # alpha -> 1 limit: Umegaki relative entropy
    lr = mat_fun(R, log)
    ls = mat_fun(S, log)
    ume = sum((R * (lr - ls))[i, i] for i in range(2))
    for xi in [0.0, 0.05]:
        v, a = sup_ratio(D1, xi, ume)
        fits.append({"kind": "sandwiched", "rho_matrix": rq, "sigma_matrix": sq, "xi": xi, "rho": f(v), "alpha": f(a)})
    out["qzcdp_fit"] = fits
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "privacy.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
