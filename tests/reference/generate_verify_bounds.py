#!/usr/bin/env python3
"""Reference values (mpmath, 60 digits) for the closed-form bounds of `qrenyi::verify::bounds`
and the 256-bit classical divergences of `qrenyi::verify::real::Hp`.

Writes tests/reference/verify_bounds.json. Every value is computed from its defining formula,
independently of the Rust code:

* sinh_bound: (1/(alpha-1)) ln[(sinh(alpha eps) - sinh((alpha-1) eps))/sinh(eps)], and, as a
  cross-check, the classical Renyi divergence of the two-point pair q = (A, B),
  p = (A e^eps, B e^-eps), A = (1 - e^-eps)/(e^eps - e^-eps);
* rdp_delta: e^{(alpha-1)(tau-eps)} (1-1/alpha)^alpha / (alpha-1) (seed 001, Theorem 1.3);
* tradeoff_bound: the minimum over alpha > 1 of eps^2 alpha/2 - ln(delta)/(alpha-1), found
  numerically (golden section on ln(alpha-1)), next to the printed (false) form;
* classical: Renyi divergences, D_inf, hockey-stick, and the delta-approximate max divergence by
  brute force over all events S.

Usage: python3 tests/reference/generate_verify_bounds.py
"""
import itertools
import json
import os

from mpmath import mp, mpf, log, exp, sinh, sqrt

mp.dps = 60


def sinh_bound(alpha, eps):
    a, e = mpf(alpha), mpf(eps)
    return log((sinh(a * e) - sinh((a - 1) * e)) / sinh(e)) / (a - 1)


def normalised(v):
    v = [mpf(x) for x in v]
    s = sum(v)
    return [x / s for x in v]


def renyi(p, q, alpha):
    p, q = normalised(p), normalised(q)
    a = mpf(alpha)
    if a == 1:
        return sum(x * log(x / y) for x, y in zip(p, q) if x > 0)
    return log(sum(x ** a * y ** (1 - a) for x, y in zip(p, q) if x > 0)) / (a - 1)


def two_point(alpha, eps):
    e = mpf(eps)
    A = (1 - exp(-e)) / (exp(e) - exp(-e))
    B = 1 - A
    return renyi([A * exp(e), B * exp(-e)], [A, B], alpha)


def rdp_delta(alpha, tau, eps):
    a = mpf(alpha)
    return exp((a - 1) * (mpf(tau) - mpf(eps))) * (1 - 1 / a) ** a / (a - 1)


def tradeoff_min(eps, delta):
    e, d = mpf(eps), mpf(delta)
    f = lambda x: e * e * (1 + exp(x)) / 2 - log(d) / exp(x)  # x = ln(alpha - 1)
    lo, hi = mpf(-30), mpf(30)
    g = (sqrt(5) - 1) / 2
    for _ in range(400):
        m1 = hi - g * (hi - lo)
        m2 = lo + g * (hi - lo)
        if f(m1) < f(m2):
            hi = m2
        else:
            lo = m1
    return f((lo + hi) / 2)


def approx_max(p, q, delta):
    p, q = normalised(p), normalised(q)
    best = None
    n = len(p)
    for r in range(1, n + 1):
        for S in itertools.combinations(range(n), r):
            P = sum(p[i] for i in S)
            Q = sum(q[i] for i in S)
            if P > delta and Q > 0:
                v = log((P - delta) / Q)
                best = v if best is None or v > best else best
    return best


def f(x):
    return float(x)


out = {"sinh_bound": [], "rdp_delta": [], "tradeoff_bound": [], "classical": []}
for alpha in [1.0001, 1.5, 2.0, 3.7, 10.0, 250.0]:
    for eps in [1e-3, 0.1, 0.7, 2.0, 5.0]:
        out["sinh_bound"].append(
            {"alpha": alpha, "eps": eps, "value": f(sinh_bound(alpha, eps)),
             "two_point": f(two_point(alpha, eps))})
for alpha in [1.01, 2.0, 7.5, 100.0]:
    for tau in [0.0, 0.05, 1.0]:
        for eps in [0.0, 0.5, 3.0]:
            out["rdp_delta"].append(
                {"alpha": alpha, "tau": tau, "eps": eps, "value": f(rdp_delta(alpha, tau, eps))})
for eps in [1e-3, 0.1, 1.0, 3.0]:
    for delta in [1e-12, 1e-6, 1e-2, 0.3]:
        L = -log(mpf(delta))
        e = mpf(eps)
        out["tradeoff_bound"].append(
            {"eps": eps, "delta": delta, "minimum": f(tradeoff_min(eps, delta)),
             "closed_form": f(e * e / 2 + e * sqrt(2 * L)),
             "printed": f(e * e / 2 * (1 + e / sqrt(2 * L)))})
cases = [
    ([0.7, 0.2, 0.1], [0.2, 0.5, 0.3]),
    ([0.5, 0.5, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]),
    ([1e-9, 0.3, 0.7 - 1e-9], [0.4, 0.4, 0.2]),
    ([0.1, 0.2, 0.3, 0.4, 0.0], [0.3, 0.3, 0.2, 0.1, 0.1]),
]
for p, q in cases:
    entry = {"p": p, "q": q, "renyi": [], "hockey_stick": [], "approx_max": []}
    for alpha in [0.3, 1.0, 2.0, 17.0]:
        entry["renyi"].append({"alpha": alpha, "value": f(renyi(p, q, alpha))})
    entry["dmax"] = f(max(log(mpf(x) / mpf(y)) for x, y in zip(p, q) if x > 0))
    for g in [0.5, 1.0, 2.5]:
        entry["hockey_stick"].append(
            {"gamma": g, "value": f(sum(max(mpf(x) - g * mpf(y), 0) for x, y in zip(p, q)))})
    for d in [0.0, 0.05, 0.2]:
        entry["approx_max"].append({"delta": d, "value": f(approx_max(p, q, mpf(d)))})
    out["classical"].append(entry)

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verify_bounds.json")
with open(path, "w") as fh:
    json.dump(out, fh, indent=1)
print("wrote", path)
