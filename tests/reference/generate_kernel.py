#!/usr/bin/env python3
"""High-precision reference values for qrenyi's kernel Renyi divergence (seed 002).

Writes ``kernel.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_kernel.py

Needs only mpmath and the standard library; deterministic (fixed seed, Python ``random``).

What is computed (mp.dps = 40, natural logarithms)
--------------------------------------------------
For samples X (n x d) and Y (m x d) and a kernel k, the regularised kernel Renyi divergence
D_{a,lam} = D~_a(S_P || S_Q + lam I), S_P = (1/n) sum phi(x_i) phi(x_i)^T, S_Q likewise, with the
sandwiched Renyi divergence D~_a(r||s) = ln( Tr (s^g/2 r s^g/2)^a / Tr r ) / (a - 1), g = (1-a)/a.
Three independent routes:

* ``explicit``: for the degree-2 polynomial kernels the feature map is written down
  (phi(x) in R^6 for d = 2); r and s are 6 x 6 matrices and the divergence is computed from
  their symmetric eigendecompositions (mp.eigsy).  ``poly2`` is k(x,y) = (1 + x.y)^2 (so
  Tr S_P != 1, exercising the unnormalised convention), ``poly2n`` its normalised version
  k(x,y)/sqrt(k(x,x) k(y,y)).  The feature space has dimension 6 < n + m, so the joint Gram
  matrix is singular.
* ``joint_gram``: for every kernel, the joint Gram matrix K = U diag(k) U^T of Z = X u Y gives
  orthonormal coordinates B = U_r diag(sqrt k_r) of the features (eigenvalues <= 1e-25 k_max
  dropped); r = B_X^T B_X / n, s = B_Y^T B_Y / m + lam I_r, then as above.
* ``paper``: seed 002 / its code: the non-symmetric 2n x 2n matrices A_P = D_P K and
  A_Q = D_Q K + lam I (D_P = diag(1/n on X, 0 on Y), D_Q likewise), A_Q^{g/2} from a general
  eigendecomposition (mp.eig) and its inverse, then the eigenvalues mu of
  A_Q^{g/2} A_P A_Q^{g/2}, value ln(sum mu^a / Tr r)/(a-1).  Only for lam > 0.

Conventions: alpha = 1 is Tr r (ln r - ln s)/Tr r; alpha = inf is ln lambda_max(s^-1/2 r s^-1/2);
for lam = 0 and alpha >= 1 the value is "inf" when supp r is not inside supp s (weight of r
outside supp s above 1e-25); powers are taken on the support.  The script asserts that the
routes agree to 1e-20 where more than one applies.

Also: the Balle-Wang privacy profile delta(eps) of the Gaussian mechanism and the calibrated
sigma for the seed's (eps, delta) pairs (mp.findroot), and a "population" case (uniform
distributions on a few atoms, whose covariance operators are exactly the empirical ones of the
atoms) for the Monte-Carlo check of the finite-sample threshold.
"""

import json
import random
from pathlib import Path

import mpmath as mp

mp.mp.dps = 40
ZERO = mp.mpf("1e-25")

ALPHAS = [0.5, 0.8, 1.0, 1.5, 2.0, 6.0, 12.0, "inf"]
LAMBDAS = [0.0, 1e-3, 0.1]


def rbf(bw):
    return lambda x, y: mp.exp(-sum((mp.mpf(a) - mp.mpf(b)) ** 2 for a, b in zip(x, y)) / mp.mpf(bw) ** 2)


def laplace(bw):
    return lambda x, y: mp.exp(-mp.sqrt(sum((mp.mpf(a) - mp.mpf(b)) ** 2 for a, b in zip(x, y))) / mp.mpf(bw))


def imq(bw):
    return lambda x, y: 1 / mp.sqrt(1 + sum((mp.mpf(a) - mp.mpf(b)) ** 2 for a, b in zip(x, y)) / mp.mpf(bw) ** 2)


def poly_features(x, normalised):
    x1, x2 = mp.mpf(x[0]), mp.mpf(x[1])
    s2 = mp.sqrt(2)
    f = [mp.mpf(1), s2 * x1, s2 * x2, x1 * x1, s2 * x1 * x2, x2 * x2]
    if normalised:
        nrm = 1 + x1 * x1 + x2 * x2  # ||phi(x)|| = 1 + |x|^2
        f = [v / nrm for v in f]
    return mp.matrix(f)


def poly2(normalised):
    def k(x, y):
        v = (1 + sum(mp.mpf(a) * mp.mpf(b) for a, b in zip(x, y))) ** 2
        if normalised:
            nx = 1 + sum(mp.mpf(a) ** 2 for a in x)
            ny = 1 + sum(mp.mpf(b) ** 2 for b in y)
            v = v / (nx * ny)
        return v
    return k


def sym_fn(a, f, support_only=True):
    """f(A) for symmetric A on its support (eigenvalues > ZERO * max)."""
    w, u = mp.eigsy(a)
    n = a.rows
    wmax = max(abs(w[i]) for i in range(n))
    out = mp.zeros(n, n)
    for i in range(n):
        if w[i] <= ZERO * wmax and support_only:
            continue
        fi = f(w[i])
        for r in range(n):
            for c in range(n):
                out[r, c] += fi * u[r, i] * u[c, i]
    return out


def eigs_pos(a):
    w, _ = mp.eigsy(a)
    wmax = max(abs(w[i]) for i in range(a.rows))
    return [w[i] for i in range(a.rows) if w[i] > ZERO * wmax]


def support_projector(a):
    return sym_fn(a, lambda v: mp.mpf(1))


def sandwiched(r, s, alpha):
    """D~_alpha(r||s) for symmetric PSD r, s (s may be singular: pseudo-inverse powers)."""
    tr = sum(eigs_pos(r))
    dim = r.rows
    leak = mp.mpf(0)
    proj = support_projector(s)
    resid = mp.eye(dim) - proj
    leak = sum((resid * r)[i, i] for i in range(dim))
    unsupported = leak > ZERO * tr
    if alpha == "inf":
        if unsupported:
            return "inf"
        sm = sym_fn(s, lambda v: v ** mp.mpf(-0.5))
        return mp.log(max(eigs_pos(sm * r * sm)))
    alpha = mp.mpf(alpha)
    if alpha == 1:
        if unsupported:
            return "inf"
        lr = sym_fn(r, mp.log)
        ls = sym_fn(s, mp.log)
        return sum(((r * (lr - ls))[i, i]) for i in range(dim)) / tr
    if alpha > 1 and unsupported:
        return "inf"
    g = (1 - alpha) / alpha
    sg = sym_fn(s, lambda v: v ** (g / 2))
    a = sg * r * sg
    a = (a + a.T) / 2
    q = sum(v ** alpha for v in eigs_pos(a))
    return mp.log(q / tr) / (alpha - 1)


def gram(kern, a, b):
    return mp.matrix([[kern(x, y) for y in b] for x in a])


def joint_gram_route(kern, xs, ys, alpha, lam):
    z = xs + ys
    n, m = len(xs), len(ys)
    k = gram(kern, z, z)
    w, u = mp.eigsy(k)
    kmax = max(w[i] for i in range(k.rows))
    keep = [i for i in range(k.rows) if w[i] > ZERO * kmax]
    r_ = len(keep)
    b = mp.matrix(k.rows, r_)
    for j, i in enumerate(keep):
        s = mp.sqrt(w[i])
        for row in range(k.rows):
            b[row, j] = u[row, i] * s
    rho = mp.zeros(r_, r_)
    sig = mp.zeros(r_, r_)
    for row in range(k.rows):
        v = b[row, :]
        outer = v.T * v
        if row < n:
            rho += outer / n
        else:
            sig += outer / m
    sig += mp.mpf(lam) * mp.eye(r_)
    return sandwiched(rho, sig, alpha)


def explicit_route(normalised, xs, ys, alpha, lam):
    n, m = len(xs), len(ys)
    rho = mp.zeros(6, 6)
    sig = mp.zeros(6, 6)
    for x in xs:
        f = poly_features(x, normalised)
        rho += f * f.T / n
    for y in ys:
        f = poly_features(y, normalised)
        sig += f * f.T / m
    sig += mp.mpf(lam) * mp.eye(6)
    return sandwiched(rho, sig, alpha)


def paper_route(kern, xs, ys, alpha, lam):
    """Seed 002's formulation with general (non-symmetric) eigendecompositions."""
    z = xs + ys
    n, m = len(xs), len(ys)
    big = n + m
    k = gram(kern, z, z)
    dp = mp.zeros(big, big)
    dq = mp.zeros(big, big)
    for i in range(n):
        dp[i, i] = mp.mpf(1) / n
    for i in range(n, big):
        dq[i, i] = mp.mpf(1) / m
    ap = dp * k
    aq = dq * k + mp.mpf(lam) * mp.eye(big)
    alpha = mp.mpf(alpha)
    g = (1 - alpha) / alpha
    ev, vr = mp.eig(aq)
    vinv = mp.inverse(vr)
    d = mp.diag([mp.re(e) ** (g / 2) for e in ev])
    pw = vr * d * vinv
    inter = pw * ap * pw
    mu = mp.eig(inter, left=False, right=False)
    tr = sum(k[i, i] for i in range(n)) / n
    q = sum(mp.re(v) ** alpha for v in mu if mp.re(v) > mp.mpf("1e-30"))
    return mp.log(q / tr) / (alpha - 1)


def num(v):
    return v if v == "inf" else float(v)


def close(a, b, tol=mp.mpf("1e-20")):
    if a == "inf" or b == "inf":
        return a == b
    return abs(a - b) <= tol * max(1, abs(a))


def make_points(rng, k, d, shift=0.0, scale=1.0):
    return [[round(rng.gauss(0, scale) + (shift if j == 0 else 0.0), 6) for j in range(d)] for _ in range(k)]


def divergence_cases(rng):
    cases = []
    specs = [
        ("rbf", 1.3, 3, 4, 2, 0.4),
        ("rbf", 0.7, 4, 3, 3, 0.0),
        ("laplace", 1.1, 3, 3, 2, 0.5),
        ("imq", 0.9, 4, 5, 2, 0.3),
        ("poly2", None, 5, 7, 2, 0.3),
        ("poly2n", None, 5, 7, 2, 0.3),
        ("poly2n", None, 3, 7, 2, 0.0),
    ]
    for kname, bw, n, m, d, shift in specs:
        xs = make_points(rng, n, d)
        ys = make_points(rng, m, d, shift=shift)
        if kname == "rbf":
            kern = rbf(bw)
        elif kname == "laplace":
            kern = laplace(bw)
        elif kname == "imq":
            kern = imq(bw)
        else:
            kern = poly2(kname == "poly2n")
        values = []
        for alpha in ALPHAS:
            for lam in LAMBDAS:
                jg = joint_gram_route(kern, xs, ys, alpha, lam)
                entry = {"alpha": num(alpha), "lambda": lam, "value": num(jg)}
                if kname.startswith("poly"):
                    ex = explicit_route(kname == "poly2n", xs, ys, alpha, lam)
                    assert close(ex, jg), (kname, alpha, lam, ex, jg)
                    entry["explicit"] = num(ex)
                if lam > 0 and alpha not in (1.0, "inf"):
                    pp = paper_route(kern, xs, ys, alpha, lam)
                    assert close(pp, jg, mp.mpf("1e-15")), (kname, alpha, lam, pp, jg)
                    entry["paper"] = num(pp)
                values.append(entry)
        cases.append({"kernel": kname, "bandwidth": bw, "x": xs, "y": ys, "values": values})
    return cases


def phi(x):
    return mp.ncdf(x)


def bw_delta(sens, sigma, eps):
    sens, sigma, eps = mp.mpf(sens), mp.mpf(sigma), mp.mpf(eps)
    a = sens / (2 * sigma)
    b = eps * sigma / sens
    return phi(a - b) - mp.exp(eps) * phi(-a - b)


def gaussian_cases():
    profile = []
    for sens, sigma, eps in [(1, 1, 0), (1, 1, 1), (10, 10.2, 1), (10, 5, 3), (1, 0.3, 2), (2, 1, 0.5), (1, 4, 0.1)]:
        profile.append({"sensitivity": sens, "sigma": sigma, "epsilon": eps, "delta": float(bw_delta(sens, sigma, eps))})
    calib = []
    for sens, eps, delta in [(10, 1, 0.005), (10, 3, 0.03), (10, 2, 0.2), (1, 0.5, 1e-5)]:
        lo, hi = mp.mpf(sens) / 1000, mp.mpf(sens) * 1000  # delta(sigma) decreases in sigma
        for _ in range(200):
            mid = mp.sqrt(lo * hi)
            if bw_delta(sens, mid, eps) > delta:
                lo = mid
            else:
                hi = mid
        s = hi
        calib.append({"sensitivity": sens, "epsilon": eps, "delta": delta, "sigma": float(s)})
    return profile, calib


def main():
    rng = random.Random(20220611)
    out = {
        "generator": "tests/reference/generate_kernel.py",
        "dps": mp.mp.dps,
        "divergence": divergence_cases(rng),
    }
    out["balle_wang_delta"], out["calibrate_sigma"] = gaussian_cases()
    path = Path(__file__).with_name("kernel.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
