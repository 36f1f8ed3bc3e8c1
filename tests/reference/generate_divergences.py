#!/usr/bin/env python3
"""High-precision reference fixtures for the `qrenyi` crate (quantum Renyi divergences).

Writes ``divergences.json`` next to this file.  Rerun from the repository root with

    python3 tests/reference/generate_divergences.py

Only mpmath and the Python standard library are needed.  The output is fully
deterministic (fixed seed, Python ``random`` module); rerunning reproduces the
JSON byte for byte.

What is computed
----------------
For every quantum case (a pair of d x d Hermitian PSD matrices rho, sigma with
d <= 8) and every order alpha in ALPHAS:

* Petz        Q = Tr rho^a sigma^(1-a)
* sandwiched  Q = Tr (sigma^((1-a)/(2a)) rho sigma^((1-a)/(2a)))^a
* maximal     Q = Tr sigma^(1/2) (sigma^(-1/2) rho sigma^(-1/2))^a sigma^(1/2)
              (for a in (0,1) with supp rho not inside supp sigma: the Ando limit
              lim_{eps->0} Tr[(sigma+eps) #_a (rho+eps)], see below)

with D_a = ln(Q / Tr rho) / (a - 1); plus Umegaki D(rho||sigma), the
Belavkin-Staszewski divergence, D_max, the hockey-stick divergences E_gamma,
the trace distance, the root fidelity F = Tr|sqrt(rho) sqrt(sigma)| and F^2.  For classical pairs of
vectors (p, q): Renyi D_a, KL, D_inf, total variation, hockey-stick and the
delta-approximate max divergence (by brute force over all subsets).

Conventions (natural logarithms everywhere)
-------------------------------------------
* rho, sigma are the double matrices exactly as stored in the JSON, converted
  exactly to mpmath (mpf(float)); they are NOT renormalised.  Orders alpha,
  gamma, delta are likewise the exact double values stored in the JSON
  (e.g. alpha = 0.999 means the double nearest to 0.999).
* Zero-eigenvalue convention: eigenvalues of a stored matrix that are
  <= tau = 16 * d * 2^-52 * lambda_max are exact zeros.  supp = span of the
  eigenvectors with eigenvalue > tau; all powers / logs are taken on the
  support (negative powers = pseudo-inverse on the support, 0^x = 0 on the
  kernel).  "Tr rho" in the normalisation is the trace of the thresholded rho
  (sum of the eigenvalues > tau).  All cases are built so that no stored
  matrix has an eigenvalue in (0, tau] (rank deficiency is exact in double),
  except where a case's note says otherwise, so the thresholded and the raw
  trace agree to far below double precision.
* supp rho in supp sigma is tested as Tr(rho P_ker sigma) <= tau_rho where
  tau_rho = 16 d 2^-52 lambda_max(rho) and P_ker sigma is the projector on the
  kernel of sigma (eigenvalues <= tau_sigma).
* alpha > 1 (and Umegaki, BS, D_max): +inf when supp rho is not in supp sigma.
  alpha < 1: +inf only when Q / Tr rho < 1e-40 (i.e. Q = 0 exactly).
* Maximal divergence for alpha in (0,1) and supp rho not in supp sigma: the Ando
  limit equals Tr sigma #_a [sigma]rho where [sigma]rho is the
  sigma-absolutely-continuous part of rho (Ando's Lebesgue decomposition),
  which in the basis supp(sigma) (+) ker(sigma) is the Schur complement
  rho_11 - rho_12 rho_22^+ rho_21 (the "shorted operator").  This closed form
  is used for all alpha < 1 (it is the only way to get alpha = 1 - 1e-7,
  where the eps-error O(eps^(1-alpha)) is useless) and is VERIFIED against the
  eps-regularised definition on every case: alpha = 0.5 and 0.75 with
  eps = 1e-120 and 1e-160 at 400 digits, alpha = 0.9 with eps = 1e-400 at
  1000 digits (assert |Q_eps - Q| / Tr rho < 1e-25; the observed error
  scales as eps^(1-alpha) as it should).
* E_gamma = Tr(rho - gamma sigma)_+, trace distance = 1/2 sum |eig(rho - sigma)|
  (raw stored matrices, no threshold); root fidelity F = Tr|sqrt(rho) sqrt(sigma)|
  and squared fidelity F^2 computed from the thresholded matrices.  D_max = ln lambda_max(sigma^-1/2 rho
  sigma^-1/2), not normalised.
* Values are computed at mp.dps = 80 (eps checks at 400/1000; Petz at large
  alpha automatically escalates the precision, up to ~1000 digits, when the
  overlap noise could matter, e.g. identical or commuting pairs) and rounded
  to the nearest double.  Finite values of magnitude < 1e-40 (which are exact zeros
  polluted by working-precision noise, e.g. the identical pair) are written as
  0.0.  +inf is written as the string "inf".
* sensitivity: each case is recomputed with 4 random Hermitian perturbations
  of both rho and sigma (every real and imaginary part of every entry gets an
  independent uniform perturbation in [-h, h], h = 2^-52 * max|entry| of the
  matrix; diagonals stay real), applying the same conventions to the perturbed
  matrices; sensitivity = max |value_perturbed - value| (0 for +inf values).
  The Rust tests use tolerance max(1e-10 |v|, 1e-13, 20 * sensitivity).

Self-checks (asserted before anything is written): commuting pairs agree with
the classical formulas of the diagonals; sandwiched <= Petz <= maximal for
alpha in (1,2], sandwiched <= maximal for alpha > 1, sandwiched <= Petz for all
alpha; monotonicity in alpha; D_{1 +- h} -> Umegaki (Petz, sandwiched) / BS
(maximal) linearly with the expected slope V/2 for Petz and sandwiched;
D~_{1/2} = -ln F + 2 ln Tr rho; D_max >= sandwiched and maximal at alpha=1000;
identical pairs give 0; BS computed two ways; Petz/sandwiched/maximal at
alpha=2,3 and Umegaki against direct matrix formulas (mp.inverse, mp.sqrtm,
mp.logm) whenever sigma (and rho for logm) is invertible; maximal a<1 against
the eps-regularised Ando definition; classical identities.
"""

import itertools
import json
import math
import os
import random
import sys
import time

from mpmath import mp, mpf, mpc
from mpmath.libmp import to_float

DPS = 80
EPS_DPS = 400
SEED = 20240611
NPERT = 4

ALPHAS = sorted([0.5, 0.75, 1.5, 2.0, 3.0, 7.5,
                 1 - 1e-3, 1 + 1e-3, 1 - 1e-7, 1 + 1e-7, 50.0, 1000.0])
GAMMAS = [0.5, 1.0, 1.5, 3.0]
DELTAS = [0.0, 0.01, 0.1, 0.3]
ZERO_SNAP = mpf(10) ** -40
INF = mp.inf

mp.dps = DPS


def noise():
    """Relative size below which eigenvalues of *derived* matrices are noise."""
    return mpf(10) ** (-(mp.dps - 15))


# ---------------------------------------------------------------------------
# small dense linear algebra on lists of lists of mpc
# ---------------------------------------------------------------------------

def conj(z):
    return mp.conj(z)


def heig(H):
    """Eigen-decomposition of a Hermitian list-of-lists matrix.

    Returns (eigenvalues ascending (mpf), list of eigenvectors (lists))."""
    n = len(H)
    A = mp.matrix(n, n)
    for i in range(n):
        A[i, i] = mpc(mp.re(H[i][i]), 0)
        for j in range(i + 1, n):
            z = (H[i][j] + conj(H[j][i])) / 2
            A[i, j] = z
            A[j, i] = conj(z)
    E, Q = mp.eighe(A)
    vals = [mp.re(E[i]) for i in range(n)]
    vecs = [[Q[r, i] for r in range(n)] for i in range(n)]
    return vals, vecs


def inner(u, v):
    return mp.fsum(conj(a) * b for a, b in zip(u, v))


def matvec(A, v):
    return [mp.fsum(A[i][k] * v[k] for k in range(len(v))) for i in range(len(A))]


def sandwich_gram(lam, C, mu, p):
    """K_il = sqrt(lam_i lam_l) sum_j C_ij mu_j^p conj(C_lj) (r x r)."""
    r = len(lam)
    s = len(mu)
    mup = [m ** p for m in mu]
    sq = [mp.sqrt(l) for l in lam]
    K = [[None] * r for _ in range(r)]
    for i in range(r):
        for l in range(i, r):
            z = sq[i] * sq[l] * mp.fsum(C[i][j] * mup[j] * conj(C[l][j]) for j in range(s))
            K[i][l] = z
            K[l][i] = conj(z)
    return K


def clip(vals):
    """Drop working-precision noise in eigenvalues of derived PSD matrices."""
    top = max([abs(v) for v in vals] + [mpf(0)])
    thr = noise() * top
    return [v if v > thr else mpf(0) for v in vals]


class Spec:
    """Thresholded spectral data of a stored Hermitian matrix."""

    def __init__(self, A):
        d = len(A)
        vals, vecs = heig(A)
        lmax = max(vals)
        assert lmax > 0
        self.d = d
        self.tau = 16 * d * mpf(2) ** -52 * lmax
        self.lam = [v for v in vals if v > self.tau]
        self.U = [vecs[i] for i in range(d) if vals[i] > self.tau]
        self.K = [vecs[i] for i in range(d) if vals[i] <= self.tau]
        self.tr = mp.fsum(self.lam)
        self.raw_vals = vals


# ---------------------------------------------------------------------------
# all quantum quantities for one (rho, sigma) pair
# ---------------------------------------------------------------------------

def d_from_q(Q, tr, a, infinite):
    a = mpf(a)
    if infinite:
        return INF
    x = Q / tr
    if a < 1 and x < ZERO_SNAP:
        return INF
    return mp.ln(x) / (a - 1)


def maximal_T(sr, ss, nested, Arho):
    """Return eigen data of T = sigma^-1/2 S sigma^-1/2 in the support basis of
    sigma, S = compression of rho (nested) or Schur complement (Ando limit)."""
    lam, U = sr.lam, sr.U
    mu, V, Kv = ss.lam, ss.U, ss.K
    s = len(mu)
    # C_ij = <u_i|v_j>, Ck_im = <u_i|k_m>
    C = [[inner(u, v) for v in V] for u in U]
    A11 = [[mp.fsum(lam[i] * conj(C[i][j]) * C[i][l] for i in range(len(lam)))
            for l in range(s)] for j in range(s)]
    if not nested and Kv:
        Ck = [[inner(u, k) for k in Kv] for u in U]
        m = len(Kv)
        A12 = [[mp.fsum(lam[i] * conj(C[i][j]) * Ck[i][n] for i in range(len(lam)))
                for n in range(m)] for j in range(s)]
        A22 = [[mp.fsum(lam[i] * conj(Ck[i][n]) * Ck[i][o] for i in range(len(lam)))
                for o in range(m)] for n in range(m)]
        w, z = heig(A22)
        # pseudo-inverse of A22 with the zero convention of rho
        A22p = [[mp.fsum(z[k][n] * conj(z[k][o]) / w[k] for k in range(m) if w[k] > sr.tau)
                 for o in range(m)] for n in range(m)]
        S = [[A11[j][l] - mp.fsum(A12[j][n] * A22p[n][o] * conj(A12[l][o])
                                  for n in range(m) for o in range(m))
              for l in range(s)] for j in range(s)]
    else:
        S = A11
    isq = [1 / mp.sqrt(x) for x in mu]
    T = [[isq[j] * S[j][l] * isq[l] for l in range(s)] for j in range(s)]
    t, wv = heig(T)
    t = clip(t)
    g = [mp.fsum(mu[j] * abs(wv[k][j]) ** 2 for j in range(s)) for k in range(s)]
    return t, g


def compute_all(Arho, Asig, extra_checks=False):
    d = len(Arho)
    sr = Spec(Arho)
    ss = Spec(Asig)
    lam, U, mu, V = sr.lam, sr.U, ss.lam, ss.U
    r, s = len(lam), len(mu)
    tr = sr.tr
    C = [[inner(u, v) for v in V] for u in U]
    W = [[abs(C[i][j]) ** 2 for j in range(s)] for i in range(r)]
    rho_on_v = [mp.fsum(lam[i] * W[i][j] for i in range(r)) for j in range(s)]
    # leakage Tr(rho P_ker sigma) with the raw stored rho
    leak = mp.fsum(mp.re(inner(k, matvec(Arho, k))) for k in ss.K) if ss.K else mpf(0)
    nested = leak <= sr.tau
    out = {"petz": {}, "sandwiched": {}, "maximal": {}, "hockey_stick": {}}

    # Petz
    for a in ALPHAS:
        am = mpf(a)
        if am > 1 and not nested:
            out["petz"][a] = INF
            continue
        Q = mp.fsum(lam[i] ** am * mu[j] ** (1 - am) * W[i][j]
                    for i in range(r) for j in range(s))
        # Large alpha: the overlaps W_ij carry an absolute error ~10^-(dps-10); when
        # a pair (i,j) with huge lam_i^a mu_j^(1-a) has W_ij ~ 0 (identical or
        # commuting pairs) that noise can dominate Q.  Redo at higher precision.
        bound = mp.fsum(lam[i] ** am * mu[j] ** (1 - am)
                        for i in range(r) for j in range(s)) * mpf(10) ** (-(mp.dps - 10))
        wdps = mp.dps
        while am > 1 and bound > mpf(10) ** -35 * Q:
            wdps += max(int(mp.ceil(mp.log10(bound / (mpf(10) ** -35 * Q)))) + 10, wdps // 2)
            assert wdps < 20000, "Petz precision escalation failed"
            with mp.workdps(wdps):
                sr2, ss2 = Spec(Arho), Spec(Asig)
                W2 = [[abs(inner(u, v)) ** 2 for v in ss2.U] for u in sr2.U]
                Q = mp.fsum(sr2.lam[i] ** am * ss2.lam[j] ** (1 - am) * W2[i][j]
                            for i in range(len(sr2.lam)) for j in range(len(ss2.lam)))
                bound = mp.fsum(x ** am * y ** (1 - am) for x in sr2.lam for y in ss2.lam) \
                    * mpf(10) ** (-(wdps - 10))
        Q = +Q
        out["petz"][a] = d_from_q(Q, tr, a, False)

    # sandwiched
    for a in ALPHAS:
        am = mpf(a)
        if am > 1 and not nested:
            out["sandwiched"][a] = INF
            continue
        K = sandwich_gram(lam, C, mu, (1 - am) / am)
        ev = clip(heig(K)[0])
        Q = mp.fsum(e ** am for e in ev if e > 0)
        out["sandwiched"][a] = d_from_q(Q, tr, a, False)

    # maximal
    t_n, g_n = maximal_T(sr, ss, True, Arho) if nested else (None, None)
    if nested:
        t_s, g_s = t_n, g_n
    else:
        t_s, g_s = maximal_T(sr, ss, False, Arho)
    for a in ALPHAS:
        am = mpf(a)
        if am > 1:
            if not nested:
                out["maximal"][a] = INF
                continue
            t, g = t_n, g_n
        else:
            t, g = t_s, g_s
        Q = mp.fsum(tk ** am * gk for tk, gk in zip(t, g) if tk > 0)
        out["maximal"][a] = d_from_q(Q, tr, a, False)

    # Umegaki, BS, Dmax
    if nested:
        um = (mp.fsum(l * mp.ln(l) for l in lam)
              - mp.fsum(mp.ln(mu[j]) * rho_on_v[j] for j in range(s))) / tr
        bs = mp.fsum(tk * mp.ln(tk) * gk for tk, gk in zip(t_n, g_n) if tk > 0) / tr
        # BS the other way: Tr[rho ln(rho^1/2 sigma^-1 rho^1/2)]
        R = sandwich_gram(lam, C, mu, -1)
        rv, rz = heig(R)
        assert min(rv) > 0, "BS alternative: R must be invertible on supp rho"
        bs2 = mp.fsum(mp.ln(rv[k]) * mp.fsum(lam[i] * abs(rz[k][i]) ** 2 for i in range(r))
                      for k in range(r)) / tr
        # exact agreement on the stored matrices; under perturbation supp rho may
        # leak out of supp sigma below tau, where the two expressions differ by O(leak^2)
        btol = mpf(10) ** (-50 if extra_checks else -20)
        assert abs(bs - bs2) <= btol * (1 + abs(bs)), (bs, bs2)
        dmax = mp.ln(max(t_n))
        # relative entropy variance (Petz), for the near-one checks
        lnl = [mp.ln(l) for l in lam]
        lnm = [mp.ln(m) for m in mu]
        m2 = (mp.fsum(lam[i] * lnl[i] ** 2 for i in range(r))
              - 2 * mp.fsum(lam[i] * lnl[i] * lnm[j] * W[i][j] for i in range(r) for j in range(s))
              + mp.fsum(lnm[j] ** 2 * rho_on_v[j] for j in range(s))) / tr
        var = m2 - um ** 2
    else:
        um = bs = dmax = INF
        var = None
    out["umegaki"], out["bs"], out["dmax"] = um, bs, dmax

    # hockey stick, trace distance (raw matrices)
    for gmm in GAMMAS:
        gm = mpf(gmm)
        ev = heig([[Arho[i][j] - gm * Asig[i][j] for j in range(d)] for i in range(d)])[0]
        out["hockey_stick"][gmm] = mp.fsum(e for e in ev if e > 0)
    ev = heig([[Arho[i][j] - Asig[i][j] for j in range(d)] for i in range(d)])[0]
    out["trace_distance"] = mp.fsum(abs(e) for e in ev) / 2
    # fidelity (thresholded matrices)
    Fm = sandwich_gram(lam, C, mu, 1)
    fv = clip(heig(Fm)[0])
    out["fidelity"] = mp.fsum(mp.sqrt(e) for e in fv if e > 0)
    out["squared_fidelity"] = out["fidelity"] ** 2

    out["_aux"] = {"tr": tr, "nested": nested, "var": var, "leak": leak,
                   "sigma_full_rank": not ss.K, "rho_full_rank": not sr.K,
                   "r": r, "s": s}
    return out


# ---------------------------------------------------------------------------
# independent cross-checks
# ---------------------------------------------------------------------------

def to_mpmatrix(A):
    n = len(A)
    M = mp.matrix(n, n)
    for i in range(n):
        for j in range(n):
            M[i, j] = A[i][j]
    return M


def mtrace(M):
    return mp.re(mp.fsum(M[i, i] for i in range(M.rows)))


def direct_checks(Arho, Asig, res, name):
    """Closed-form matrix formulas, independent of the eigen-based code."""
    aux = res["_aux"]
    tr = aux["tr"]
    R = to_mpmatrix(Arho)
    S = to_mpmatrix(Asig)
    tol = mpf(10) ** -45
    if aux["sigma_full_rank"]:
        Si = mp.inverse(S)
        # Petz alpha=2: Tr rho^2 sigma^-1 ; maximal alpha=2: Tr rho sigma^-1 rho (equal)
        q2 = mtrace(R * R * Si)
        d2 = mp.ln(q2 / tr)
        assert abs(res["petz"][2.0] - d2) < tol * (1 + abs(d2)), (name, "petz2")
        assert abs(res["maximal"][2.0] - d2) < tol * (1 + abs(d2)), (name, "max2")
        # Petz alpha=3: Tr rho^3 sigma^-2 ; maximal alpha=3: Tr rho sigma^-1 rho sigma^-1 rho
        d3p = mp.ln(mtrace(R * R * R * Si * Si) / tr) / 2
        d3m = mp.ln(mtrace(R * Si * R * Si * R) / tr) / 2
        assert abs(res["petz"][3.0] - d3p) < tol * (1 + abs(d3p)), (name, "petz3")
        assert abs(res["maximal"][3.0] - d3m) < tol * (1 + abs(d3m)), (name, "max3")
        # sandwiched alpha=2: Tr (rho sigma^-1/2)^2 with sqrtm (Denman-Beavers);
        # mpmath's sqrtm/logm may not converge for very ill-conditioned sigma: skip then
        try:
            Sih = mp.sqrtm(Si)
            X = R * Sih
            d2s = mp.ln(mtrace(X * X) / tr)
            assert abs(res["sandwiched"][2.0] - d2s) < tol * (1 + abs(d2s)), (name, "sand2")
        except mp.NoConvergence:
            print(f"  note: {name}: sqrtm did not converge, sandwiched a=2 direct check skipped",
                  file=sys.stderr)
        if aux["rho_full_rank"]:
            try:
                # Petz alpha=1/2: Tr sqrt(rho) sqrt(sigma)
                dh = -2 * mp.ln(mtrace(mp.sqrtm(R) * mp.sqrtm(S)) / tr)
                assert abs(res["petz"][0.5] - dh) < tol * (1 + abs(dh)), (name, "petz1/2")
                # Umegaki with logm (inverse scaling and squaring)
                du = mtrace(R * (mp.logm(R) - mp.logm(S))) / tr
                assert abs(res["umegaki"] - du) < mpf(10) ** -40 * (1 + abs(du)), (name, "umegaki")
            except mp.NoConvergence:
                print(f"  note: {name}: sqrtm/logm did not converge, Petz 1/2 and Umegaki direct "
                      "checks skipped", file=sys.stderr)


def ando_eps_check(Arho, Asig, res, name):
    """Maximal divergence for alpha < 1 from the eps-regularised definition
    lim Tr[(sigma+eps) #_a (rho+eps)], compared with the closed form (Schur
    complement / shorted operator) used for the fixtures.  The eps error is
    O(eps^min(a, 1-a)): a = 0.5, 0.75 with eps = 1e-120, 1e-160 at 400 digits
    (the fixture values themselves) and a = 0.9 with eps = 1e-400 at 1000 digits."""
    d = len(Arho)
    tr = res["_aux"]["tr"]
    sr, ss = Spec(Arho), Spec(Asig)
    t, g = maximal_T(sr, ss, res["_aux"]["nested"], Arho)
    for a, trials in ((0.5, ((120, EPS_DPS), (160, EPS_DPS))),
                      (0.75, ((120, EPS_DPS), (160, EPS_DPS))),
                      (0.9, ((400, 1000),))):
        am = mpf(a)
        Qref = mp.fsum(tk ** am * gk for tk, gk in zip(t, g) if tk > 0)
        if a in res["maximal"]:
            v = res["maximal"][a]
            assert (v == INF) == (Qref / tr < ZERO_SNAP)
            if v != INF:
                assert abs(mp.ln(Qref / tr) / (am - 1) - v) < mpf(10) ** -60
        errs = []
        for eexp, dps in trials:
            with mp.workdps(dps):
                eps = mpf(10) ** -eexp
                Se = [[Asig[i][j] + (eps if i == j else 0) for j in range(d)] for i in range(d)]
                Re = [[Arho[i][j] + (eps if i == j else 0) for j in range(d)] for i in range(d)]
                sv, sw = heig(Se)
                # sigma_eps^(-1/2)
                Sih = [[mp.fsum(sw[k][i] * conj(sw[k][j]) / mp.sqrt(sv[k]) for k in range(d))
                        for j in range(d)] for i in range(d)]
                M1 = [[mp.fsum(Sih[i][k] * Re[k][j] for k in range(d)) for j in range(d)]
                      for i in range(d)]
                M = [[mp.fsum(M1[i][k] * Sih[k][j] for k in range(d)) for j in range(d)]
                     for i in range(d)]
                mv, mw = heig(M)
                # Tr[sigma_eps^1/2 M^a sigma_eps^1/2] = sum_k m_k^a <w_k|sigma_eps|w_k>
                Q = mp.fsum(max(mv[k], 0) ** am * mp.re(inner(mw[k], matvec(Se, mw[k])))
                            for k in range(d))
                errs.append(abs(Q - Qref) / tr)
        assert all(e < mpf(10) ** -25 for e in errs), (name, a, errs)
        assert errs[-1] <= errs[0] + mpf(10) ** -60, (name, a, errs)


# ---------------------------------------------------------------------------
# classical quantities
# ---------------------------------------------------------------------------

def classical_all(p, q):
    p = [mpf(x) for x in p]
    q = [mpf(x) for x in q]
    n = len(p)
    sp = mp.fsum(p)
    out = {"renyi": {}, "hockey_stick": {}, "approx_dmax": {}}
    abs_cont = all(q[i] > 0 for i in range(n) if p[i] > 0)
    for a in ALPHAS:
        am = mpf(a)
        if am > 1 and not abs_cont:
            out["renyi"][a] = INF
            continue
        Q = mp.fsum(p[i] ** am * q[i] ** (1 - am) for i in range(n) if p[i] > 0 and q[i] > 0)
        out["renyi"][a] = d_from_q(Q, sp, a, False)
    if abs_cont:
        out["kl"] = mp.fsum(p[i] * mp.ln(p[i] / q[i]) for i in range(n) if p[i] > 0) / sp
        out["dmax"] = mp.ln(max(p[i] / q[i] for i in range(n) if p[i] > 0))
    else:
        out["kl"] = out["dmax"] = INF
    out["total_variation"] = mp.fsum(abs(p[i] - q[i]) for i in range(n)) / 2
    for g in GAMMAS:
        gm = mpf(g)
        out["hockey_stick"][g] = mp.fsum(max(p[i] - gm * q[i], 0) for i in range(n))
    supp = [i for i in range(n) if p[i] > 0]
    for dl in DELTAS:
        dm = mpf(dl)
        best = None
        for k in range(1, len(supp) + 1):
            for Sset in itertools.combinations(supp, k):
                PS = mp.fsum(p[i] for i in Sset)
                if not PS > dm:
                    continue
                QS = mp.fsum(q[i] for i in Sset)
                val = INF if QS == 0 else mp.ln((PS - dm) / QS)
                if best is None or val > best:
                    best = val
        assert best is not None
        out["approx_dmax"][dl] = best
    return out


# ---------------------------------------------------------------------------
# case construction (double precision)
# ---------------------------------------------------------------------------

def zeros(d):
    return [[0j] * d for _ in range(d)]


def hermitise(A):
    d = len(A)
    B = zeros(d)
    for i in range(d):
        B[i][i] = complex(A[i][i].real, 0.0)
        for j in range(i + 1, d):
            B[i][j] = complex(A[i][j])
            B[j][i] = B[i][j].conjugate()
    return B


def ginibre_state(rng, d, k=None, real=False):
    """G G^dagger / Tr, G d x k complex (or real) Gaussian, in double."""
    k = d if k is None else k
    G = [[complex(rng.gauss(0, 1), 0.0 if real else rng.gauss(0, 1)) for _ in range(k)]
         for _ in range(d)]
    A = zeros(d)
    for i in range(d):
        for j in range(i, d):
            A[i][j] = sum(G[i][l] * G[j][l].conjugate() for l in range(k))
    A = hermitise(A)
    t = sum(A[i][i].real for i in range(d))
    return hermitise([[A[i][j] / t for j in range(d)] for i in range(d)])


def embed(B, d, idx):
    A = zeros(d)
    for a, i in enumerate(idx):
        for b, j in enumerate(idx):
            A[i][j] = B[a][b]
    return hermitise(A)


def diag(v):
    d = len(v)
    A = zeros(d)
    for i in range(d):
        A[i][i] = complex(v[i])
    return A


def pure(v):
    """|v><v| in double; only used with entries whose products are exact."""
    d = len(v)
    A = zeros(d)
    for i in range(d):
        for j in range(d):
            A[i][j] = v[i] * v[j].conjugate()
    return hermitise(A)


def random_unitary(rng, d):
    cols = []
    for _ in range(d):
        v = [complex(rng.gauss(0, 1), rng.gauss(0, 1)) for _ in range(d)]
        for _ in range(2):
            for c in cols:
                ip = sum(c[i].conjugate() * v[i] for i in range(d))
                v = [v[i] - ip * c[i] for i in range(d)]
        nrm = math.sqrt(sum(abs(x) ** 2 for x in v))
        cols.append([x / nrm for x in v])
    return [[cols[j][i] for j in range(d)] for i in range(d)]


def conjugate_diag(Vm, l):
    d = len(l)
    A = zeros(d)
    for i in range(d):
        for j in range(i, d):
            A[i][j] = sum(Vm[i][k] * l[k] * Vm[j][k].conjugate() for k in range(d))
    return hermitise(A)


def prob(rng, n, zero_at=()):
    """Random probability vector in double (sum = 1 up to rounding), exact zeros at zero_at."""
    x = [rng.random() + 0.05 for _ in range(n)]
    for i in zero_at:
        x[i] = 0.0
    s = sum(x)
    return [v / s for v in x]


def build_cases(rng):
    cases = []

    def add(name, note, rho, sigma, tags=()):
        cases.append({"name": name, "note": note, "rho": rho, "sigma": sigma, "tags": set(tags)})

    for d in (2, 3, 4, 8):
        add(f"full_rank_d{d}",
            f"Generic full-rank complex pair, rho and sigma = G G^dagger / Tr with G a {d}x{d} "
            "complex Ginibre matrix, rounded to double.",
            ginibre_state(rng, d), ginibre_state(rng, d))
    add("rank_deficient_rho_d3",
        "rho has rank 2 (generic complex 2x2 block on span(e1,e2), exact zero last row/column); "
        "sigma generic full rank. All divergences finite.",
        embed(ginibre_state(rng, 2), 3, [0, 1]), ginibre_state(rng, 3))
    add("rank_deficient_rho_d4_noncontiguous",
        "rho has rank 3 on span(e1,e3,e4) (exact zero second row/column); sigma generic full rank.",
        embed(ginibre_state(rng, 3), 4, [0, 2, 3]), ginibre_state(rng, 4))
    add("nested_supports_d4",
        "Both rank-deficient with supp rho = span(e1,e2) strictly inside supp sigma = span(e1,e2,e3) "
        "(exact zero rows/columns). All divergences finite; maximal a<1 equals the plain formula.",
        embed(ginibre_state(rng, 2), 4, [0, 1]), embed(ginibre_state(rng, 3), 4, [0, 1, 2]))
    add("equal_supports_d3",
        "rho and sigma both rank 2 with the same support span(e2,e3) (exact zero first row/column), "
        "generic blocks. All divergences finite.",
        embed(ginibre_state(rng, 2), 3, [1, 2]), embed(ginibre_state(rng, 2), 3, [1, 2]))
    add("non_nested_supports_d3",
        "rho on span(e1,e2), sigma on span(e2,e3), generic complex blocks. a>1, Umegaki, BS, Dmax: "
        "+inf. a<1 finite for all three families (maximal a<1 via the Ando limit = Schur "
        "complement; verified against eps-regularisation at a=0.5,0.75). Near-one a<1 values are "
        "large (~ -ln Tr(rho P_sigma)/(1-a)).",
        embed(ginibre_state(rng, 2), 3, [0, 1]), embed(ginibre_state(rng, 2), 3, [1, 2]),
        tags=("ando",))
    blk = ginibre_state(rng, 2)
    sig = embed([[blk[i][j] * (1 - 4e-9) for j in range(2)] for i in range(2)], 4, [0, 1])
    sig[2][2] = complex(1e-9)
    sig[3][3] = complex(3e-9)
    add("near_singular_sigma_block_d4",
        "sigma full rank = blockdiag(generic 2x2 block, 1e-9, 3e-9) (exact in double: zero "
        "off-diagonals); rho generic full rank. Large divergences for a>1 (sigma^(1-a) ~ 1e9^(a-1)). "
        "Sensitivity: a 2^-52 absolute change of sigma moves the 1e-9 eigenvalues by ~1e-7 relative, "
        "so tolerances for a>1, Umegaki, BS, Dmax (and mildly a<1) are dominated by 20*sensitivity "
        "(~1e-7..1e-6 absolute); this is the conditioning of the problem, not fixture error.",
        ginibre_state(rng, 4), sig)
    Vm = random_unitary(rng, 3)
    add("near_singular_sigma_generic_d3",
        "sigma = V diag(0.6, 0.4-1e-9, 1e-9) V^dagger with V a random unitary, rounded to double "
        "(so the smallest stored eigenvalue is 1e-9 up to ~1e-16); rho generic full rank. "
        "Sensitivity as for the block case: ~1e-7 relative perturbation of the 1e-9 eigenvalue "
        "dominates the tolerance for a>1, Umegaki, BS, Dmax.",
        ginibre_state(rng, 3), conjugate_diag(Vm, [0.6, 0.4 - 1e-9, 1e-9]))
    add("commuting_diagonal_d4",
        "Both diagonal, full rank (classical). Petz, sandwiched and maximal all equal the classical "
        "Renyi divergence of the diagonals; Umegaki = BS = KL (asserted by the generator).",
        diag(prob(rng, 4)), diag(prob(rng, 4)), tags=("commuting",))
    add("commuting_rank_deficient_d4",
        "Both diagonal (classical), rho = diag(1/2,1/4,1/4,0), sigma = diag(0,1/8,3/8,1/2): supports "
        "not nested. a>1, Umegaki, BS, Dmax +inf; a<1 finite and equal to classical for all three "
        "families (maximal a<1 exercises the Ando limit on a commuting pair).",
        diag([0.5, 0.25, 0.25, 0.0]), diag([0.0, 0.125, 0.375, 0.5]), tags=("commuting", "ando"))
    add("pure_vs_mixed_d4",
        "rho = |psi><psi| with psi = (1, i, -1, -i)/2 (entries +-1/4, +-i/4: exactly rank 1 in "
        "double), sigma generic full rank. All finite.",
        pure([0.5, 0.5j, -0.5, -0.5j]), ginibre_state(rng, 4))
    add("mixed_vs_pure_d2",
        "rho generic full rank, sigma = |+><+| (exact). a>1, Umegaki, BS, Dmax +inf; a<1 finite for "
        "all families (maximal: Schur complement of rho w.r.t. ker sigma is nonzero).",
        ginibre_state(rng, 2), [[0.5 + 0j, 0.5 + 0j], [0.5 + 0j, 0.5 + 0j]], tags=("ando",))
    add("pure_vs_pure_nonorthogonal_d3",
        "rho = |psi><psi|, psi = (1,1,0)/sqrt2; sigma = |phi><phi|, phi = (0,1,i)/sqrt2 (entries "
        "0, +-1/2, +-i/2: exact rank 1). |<psi|phi>|^2 = 1/4. Petz a<1: ln4/(1-a); sandwiched a<1: "
        "a ln4/(1-a); maximal a<1: +inf (Q=0, the Ando limit of two distinct pure states); a>1 +inf.",
        [[0.5 + 0j, 0.5 + 0j, 0j], [0.5 + 0j, 0.5 + 0j, 0j], [0j, 0j, 0j]],
        [[0j, 0j, 0j], [0j, 0.5 + 0j, -0.5j], [0j, 0.5j, 0.5 + 0j]], tags=("ando",))
    add("zero_vs_plus_d2",
        "rho = |0><0|, sigma = |+><+| = [[.5,.5],[.5,.5]]. Petz a<1: ln2/(1-a); sandwiched a<1: "
        "a ln2/(1-a); maximal a<1: +inf although the states are not orthogonal (Q=0); a>1 +inf. "
        "E_g = (1 - g + sqrt(1+g^2))/2, trace distance 1/sqrt2, fidelity 1/sqrt2.",
        diag([1.0, 0.0]), [[0.5 + 0j, 0.5 + 0j], [0.5 + 0j, 0.5 + 0j]], tags=("ando",))
    add("orthogonal_pure_d4",
        "rho = |f0><f0|, sigma = |f1><f1| with f0 = (1,1,1,1)/2, f1 = (1,i,-1,-i)/2 (Fourier "
        "vectors, exact entries +-1/4, +-i/4). Orthogonal: every divergence +inf, trace distance 1, "
        "fidelity 0, E_g = 1 for every gamma.",
        pure([0.5, 0.5, 0.5, 0.5]), pure([0.5, 0.5j, -0.5, -0.5j]), tags=("ando", "orthogonal"))
    st = ginibre_state(rng, 3)
    add("identical_full_rank_d3",
        "rho = sigma (generic full rank): every divergence 0, trace distance 0, fidelity Tr rho, "
        "E_g = (1-g)_+ Tr rho. Petz at a = 50 and 1000 is ill-conditioned here although its exact value is 0: a ~1e-16 "
        "rotation of the eigenvectors puts weight ~1e-32 on pairs (lambda_i of rho, lambda_j of "
        "sigma) with lambda_i > lambda_j, amplified by (lambda_i/lambda_j)^(a-1); hence sensitivity "
        "O(1). A double-precision implementation that does not special-case rho == sigma can "
        "legitimately return O(1) values there (the generator itself needs ~1000 digits for these "
        "two entries).",
        st, [row[:] for row in st], tags=("identical",))
    st = embed(ginibre_state(rng, 2), 4, [0, 3])
    add("identical_rank_deficient_d4",
        "rho = sigma of rank 2 on span(e1,e4): every divergence 0 (kernel handled consistently). Petz at a = 50 and 1000 is ill-conditioned here although its exact value is 0: a ~1e-16 "
        "rotation of the eigenvectors puts weight ~1e-32 on pairs (lambda_i of rho, lambda_j of "
        "sigma) with lambda_i > lambda_j, amplified by (lambda_i/lambda_j)^(a-1); hence sensitivity "
        "O(1). A double-precision implementation that does not special-case rho == sigma can "
        "legitimately return O(1) values there (the generator itself needs ~1000 digits for these "
        "two entries).",
        st, [row[:] for row in st], tags=("identical",))
    add("random_pair_d8_nested",
        "d=8 random pair: rho rank 5 on span(e1..e5), sigma rank 7 on span(e1..e7) (generic complex "
        "blocks, exact zero rows/columns). All finite.",
        embed(ginibre_state(rng, 5), 8, range(5)), embed(ginibre_state(rng, 7), 8, range(7)))
    return cases


def build_classical(rng):
    cl = []

    def add(name, note, p, q):
        cl.append({"name": name, "note": note, "p": p, "q": q})

    add("full_support_n4", "Random full-support pair (normalised in double).", prob(rng, 4), prob(rng, 4))
    p = prob(rng, 5, (1, 3))
    add("zeros_in_p_only_n5", "p has exact zeros at 1 and 3; q full support. All finite.",
        p, prob(rng, 5))
    q = prob(rng, 5, (0,))
    add("zeros_in_q_only_n5", "q has a zero where p > 0: a>1, KL, Dmax +inf; a<1 finite; approx "
        "Dmax(delta) is +inf iff delta < p_0 (S = {0} is the only subset with Q(S) = 0).",
        prob(rng, 5), q)
    p = prob(rng, 6, (2, 5)); q = prob(rng, 6, (2, 5))
    add("zeros_same_place_n6", "p and q both zero at indices 2 and 5. All finite.", p, q)
    p = prob(rng, 3)
    add("identical_n3", "p = q: all divergences 0, TV 0, E_g = (1-g)_+ sum p; approx Dmax(delta) = "
        "max_S ln(1 - delta/P(S)) = ln(1 - delta/sum p) (< 0 for delta > 0).", p, p[:])
    add("disjoint_supports_n4", "Disjoint supports: every divergence +inf, TV 1, E_g = 1.",
        [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.25, 0.75])
    add("binary_dyadic_n2", "Exact dyadic binary pair p=(3/4,1/4), q=(1/2,1/2).", [0.75, 0.25], [0.5, 0.5])
    add("random_n8", "Random full-support pair of length 8.", prob(rng, 8), prob(rng, 8))
    p = prob(rng, 7, (1, 6)); q = prob(rng, 7, (4, 6))
    add("mixed_zeros_n7", "p zero at 1, q zero at 4 (where p > 0), both zero at 6: a>1/KL/Dmax "
        "+inf, a<1 finite; approx Dmax(delta) +inf iff delta < p_4 = %r (S = {4} is the only "
        "subset of supp p with Q(S) = 0), so +inf for every delta in the list." % p[4], p, q)
    q = prob(rng, 3)
    add("point_mass_n3", "p = (1,0,0) point mass, q full support: Dmax = -ln q0, "
        "approx Dmax(delta) = ln((1-delta)/q0).", [1.0, 0.0, 0.0], q)
    add("small_q_entry_n4", "q has a tiny entry 1e-6 where p is not small: large Dmax, "
        "approx Dmax drops once delta exceeds p at that index.",
        [0.25, 0.25, 0.25, 0.25], [0.4, 0.3, 0.3 - 1e-6, 1e-6])
    return cl


# ---------------------------------------------------------------------------
# sensitivity
# ---------------------------------------------------------------------------

def to_mp(A):
    return [[mpc(mpf(z.real), mpf(z.imag)) for z in row] for row in A]


def perturbed(A, rng):
    d = len(A)
    h = mpf(2) ** -52 * mpf(max(abs(z) for row in A for z in row))
    P = [[None] * d for _ in range(d)]
    for i in range(d):
        P[i][i] = mpc(mpf(A[i][i].real) + h * mpf(rng.uniform(-1, 1)), 0)
        for j in range(i + 1, d):
            z = mpc(mpf(A[i][j].real) + h * mpf(rng.uniform(-1, 1)),
                    mpf(A[i][j].imag) + h * mpf(rng.uniform(-1, 1)))
            P[i][j] = z
            P[j][i] = conj(z)
    return P


def flat(res):
    """Flatten a result dict into {(key...): value}."""
    f = {}
    for fam in ("petz", "sandwiched", "maximal"):
        for a, v in res[fam].items():
            f[(fam, a)] = v
    for g, v in res["hockey_stick"].items():
        f[("hockey_stick", g)] = v
    for k in ("umegaki", "bs", "dmax", "trace_distance", "fidelity", "squared_fidelity"):
        f[(k,)] = res[k]
    return f


# ---------------------------------------------------------------------------
# self-checks
# ---------------------------------------------------------------------------

def close(x, y, tol):
    if x == INF or y == INF:
        return x == y
    return abs(x - y) <= tol


def le(x, y, tol=mpf(10) ** -40):
    """x <= y with inf handling."""
    if y == INF:
        return True
    if x == INF:
        return False
    return x <= y + tol * (1 + abs(y))


def quantum_self_checks(case, res):
    name = case["name"]
    aux = res["_aux"]
    tags = case["tags"]
    tr = aux["tr"]
    tiny = mpf(10) ** -40

    if "commuting" in tags:
        p = [z.real for z in (case["rho"][i][i] for i in range(len(case["rho"])))]
        q = [z.real for z in (case["sigma"][i][i] for i in range(len(case["sigma"])))]
        c = classical_all(p, q)
        for a in ALPHAS:
            for fam in ("petz", "sandwiched", "maximal"):
                assert close(res[fam][a], c["renyi"][a], tiny), (name, fam, a, res[fam][a], c["renyi"][a])
        assert close(res["umegaki"], c["kl"], tiny) and close(res["bs"], c["kl"], tiny), name
        assert close(res["dmax"], c["dmax"], tiny), name
        for g in GAMMAS:
            assert close(res["hockey_stick"][g], c["hockey_stick"][g], tiny), name
        assert close(res["trace_distance"], c["total_variation"], tiny), name
        fc = mp.fsum(mp.sqrt(mpf(x) * mpf(y)) for x, y in zip(p, q))
        assert close(res["fidelity"], fc, tiny), name
        assert close(res["squared_fidelity"], fc ** 2, tiny), name

    for a in ALPHAS:
        am = mpf(a)
        # sandwiched <= Petz for every alpha (Araki-Lieb-Thirring)
        assert le(res["sandwiched"][a], res["petz"][a]), (name, "ALT", a)
        if am > 1:
            assert le(res["sandwiched"][a], res["maximal"][a]), (name, "sand<=max", a)
        if 1 < am <= 2:
            assert le(res["petz"][a], res["maximal"][a]), (name, "petz<=max", a)
        if am < 1:
            # maximal is the largest monotone divergence; Petz and sandwiched are monotone here
            assert le(res["petz"][a], res["maximal"][a]), (name, "petz<=max a<1", a)
            assert le(res["sandwiched"][a], res["maximal"][a]), (name, "sand<=max a<1", a)
    # monotone non-decreasing in alpha
    for fam in ("petz", "sandwiched", "maximal"):
        vals = [res[fam][a] for a in ALPHAS]
        for x, y in zip(vals, vals[1:]):
            assert le(x, y, mpf(10) ** -30), (name, fam, "monotone", vals)
    # D_max bounds
    for fam in ("sandwiched", "maximal"):
        assert le(res[fam][1000.0], res["dmax"]), (name, fam, "dmax")
    if res["dmax"] != INF:
        # sandwiched and maximal approach D_max as alpha -> inf
        assert res["dmax"] - res["sandwiched"][1000.0] < mpf("0.05"), name
        assert res["dmax"] - res["maximal"][1000.0] < mpf("0.05"), name
    # D~_{1/2} = -ln F + 2 ln Tr rho
    F = res["squared_fidelity"]
    s12 = res["sandwiched"][0.5]
    if F < tiny:
        assert s12 == INF, name
    else:
        assert abs(s12 - (-mp.ln(F) + 2 * mp.ln(tr))) < tiny, (name, "fidelity")
    # hockey stick identity E_1 = TD + (Tr rho - Tr sigma)/2 (raw traces)
    trr = mp.fsum(mpf(case["rho"][i][i].real) for i in range(len(case["rho"])))
    trs = mp.fsum(mpf(case["sigma"][i][i].real) for i in range(len(case["sigma"])))
    assert abs(res["hockey_stick"][1.0] - res["trace_distance"] - (trr - trs) / 2) < tiny, name
    # near alpha = 1
    h1, h2 = mpf(1e-3), mpf(1e-7)
    for fam, lim in (("petz", res["umegaki"]), ("sandwiched", res["umegaki"]), ("maximal", res["bs"])):
        if lim == INF:
            for a in ALPHAS:
                if a > 1:
                    assert res[fam][a] == INF, (name, fam, a)
            continue
        dp1 = res[fam][1 + 1e-3] - lim
        dm1 = res[fam][1 - 1e-3] - lim
        dp2 = res[fam][1 + 1e-7] - lim
        dm2 = res[fam][1 - 1e-7] - lim
        hp1, hm1 = mpf(1 + 1e-3) - 1, 1 - mpf(1 - 1e-3)
        hp2, hm2 = mpf(1 + 1e-7) - 1, 1 - mpf(1 - 1e-7)
        scale = 1 + aux["var"] + abs(lim)
        assert abs(dp1) < 10 * scale * h1 and abs(dm1) < 10 * scale * h1, (name, fam, dp1, dm1)
        slope1 = (dp1 - dm1) / (hp1 + hm1)   # central differences
        slope2 = (dp2 - dm2) / (hp2 + hm2)
        assert abs(slope1 - slope2) < 1e-4 * scale ** 3, (name, fam, slope1, slope2)
        # linear convergence: the remainder at h = 1e-7 is second order
        assert abs(dp2 - slope2 * hp2) < 10 * scale ** 3 * h2 ** 2, (name, fam, dp2, slope2)
        assert abs(dm2 + slope2 * hm2) < 10 * scale ** 3 * h2 ** 2, (name, fam, dm2, slope2)
        if fam in ("petz", "sandwiched"):
            # d/da D_a at a=1 equals V/2 (relative entropy variance) for both
            assert abs(slope2 - aux["var"] / 2) < 1e-10 * scale ** 3, (name, fam, slope2, aux["var"])
    if "identical" in tags:
        for k, v in flat(res).items():
            if k[0] == "fidelity":
                assert abs(v - tr) < tiny, name
            elif k[0] == "squared_fidelity":
                assert abs(v - tr ** 2) < tiny, name
            elif k[0] == "hockey_stick":
                assert abs(v - max(1 - mpf(k[1]), 0) * trr) < tiny, name
            else:
                assert abs(v) < tiny, (name, k, v)
    if "orthogonal" in tags:
        for k, v in flat(res).items():
            if k[0] in ("petz", "sandwiched", "maximal", "umegaki", "bs", "dmax"):
                assert v == INF, (name, k, v)
        assert abs(res["trace_distance"] - 1) < tiny and res["fidelity"] < tiny, name
        for g in GAMMAS:
            assert abs(res["hockey_stick"][g] - 1) < tiny, name


def classical_self_checks(c, out):
    p = [mpf(x) for x in c["p"]]
    q = [mpf(x) for x in c["q"]]
    tiny = mpf(10) ** -40
    assert close(out["approx_dmax"][0.0], out["dmax"], tiny), c["name"]
    ad = [out["approx_dmax"][dl] for dl in DELTAS]
    for x, y in zip(ad, ad[1:]):
        assert le(y, x), c["name"]
    vals = [out["renyi"][a] for a in ALPHAS]
    for x, y in zip(vals, vals[1:]):
        assert le(x, y, mpf(10) ** -30), (c["name"], vals)
    assert le(out["renyi"][1000.0], out["dmax"]), c["name"]
    assert abs(out["hockey_stick"][1.0] - out["total_variation"]
               - (mp.fsum(p) - mp.fsum(q)) / 2) < tiny, c["name"]
    if out["kl"] != INF:
        assert abs(out["renyi"][1 + 1e-7] - out["kl"]) < 1e-5, c["name"]
        assert abs(out["renyi"][1 - 1e-7] - out["kl"]) < 1e-5, c["name"]
    # a sorting-based formula for approx Dmax as an extra independent check is
    # deliberately NOT used; instead check that delta=0 equals Dmax (above).


# ---------------------------------------------------------------------------
# output helpers
# ---------------------------------------------------------------------------

def jnum(x):
    if x == INF:
        return "inf"
    assert mp.isfinite(x)
    if abs(x) < ZERO_SNAP:
        return 0.0
    return to_float(mpf(x)._mpf_, rnd="n")


def jmat(A):
    return {"re": [[z.real for z in row] for row in A], "im": [[z.imag for z in row] for row in A]}


def main():
    t0 = time.time()
    rng = random.Random(SEED)
    cases = build_cases(rng)
    classical = build_classical(rng)
    prng = random.Random(SEED + 1)

    qout = []
    for case in cases:
        tc = time.time()
        d = len(case["rho"])
        # the stored matrices must be exactly Hermitian in double
        for A in (case["rho"], case["sigma"]):
            for i in range(d):
                assert A[i][i].imag == 0.0
                for j in range(d):
                    assert A[i][j] == A[j][i].conjugate()
        Ar, As = to_mp(case["rho"]), to_mp(case["sigma"])
        res = compute_all(Ar, As, extra_checks=True)
        # no eigenvalue of a stored matrix in (0, tau] unless the note says so
        for A in (Ar, As):
            sp = Spec(A)
            for v in sp.raw_vals:
                assert not (mpf(10) ** -60 < abs(v) <= sp.tau), (case["name"], v)
        quantum_self_checks(case, res)
        direct_checks(Ar, As, res, case["name"])
        ando_eps_check(Ar, As, res, case["name"])
        base = flat(res)
        sens = {k: mpf(0) for k in base}
        for _ in range(NPERT):
            pres = flat(compute_all(perturbed(case["rho"], prng), perturbed(case["sigma"], prng)))
            for k, v in base.items():
                if v == INF:
                    continue
                assert pres[k] != INF, (case["name"], k, "finite value became inf under perturbation")
                sens[k] = max(sens[k], abs(pres[k] - v))

        def entry(k, keyname=None, keyval=None):
            v, s = base[k], sens[k]
            e = {}
            if keyname is not None:
                e[keyname] = keyval
            e["value"] = jnum(v)
            e["sensitivity"] = 0.0 if v == INF else to_float(mpf(s)._mpf_, rnd="n")
            return e

        # sensitivity-dominated tolerances: report in the note
        dominated = {}
        for k, v in base.items():
            if v == INF:
                continue
            s = to_float(mpf(sens[k])._mpf_, rnd="n")
            if 20 * s > 10 * max(1e-10 * abs(float(v)), 1e-13):
                dominated.setdefault(k[0], []).append(k[1:])
        note = case["note"]
        if dominated:
            parts = []
            for fam, params in dominated.items():
                if params[0]:
                    pname = "gamma" if fam == "hockey_stick" else "alpha"
                    parts.append(f"{fam} {pname}=" + ",".join(repr(p[0]) for p in params))
                else:
                    parts.append(fam)
            note += (" [Tolerance dominated by 20*sensitivity (> 10x max(1e-10|v|, 1e-13)) for: "
                     + "; ".join(parts) + ".]")
        qout.append({
            "name": case["name"], "note": note, "d": d,
            "rho": jmat(case["rho"]), "sigma": jmat(case["sigma"]),
            "petz": [entry(("petz", a), "alpha", a) for a in ALPHAS],
            "sandwiched": [entry(("sandwiched", a), "alpha", a) for a in ALPHAS],
            "maximal": [entry(("maximal", a), "alpha", a) for a in ALPHAS],
            "umegaki": entry(("umegaki",)), "bs": entry(("bs",)), "dmax": entry(("dmax",)),
            "hockey_stick": [entry(("hockey_stick", g), "gamma", g) for g in GAMMAS],
            "trace_distance": entry(("trace_distance",)), "fidelity": entry(("fidelity",)),
            "squared_fidelity": entry(("squared_fidelity",)),
        })
        print(f"{case['name']:40s} {time.time() - tc:6.1f}s", file=sys.stderr)

    cout = []
    for c in classical:
        out = classical_all(c["p"], c["q"])
        classical_self_checks(c, out)
        cout.append({
            "name": c["name"], "note": c["note"], "p": c["p"], "q": c["q"],
            "renyi": [{"alpha": a, "value": jnum(out["renyi"][a])} for a in ALPHAS],
            "kl": jnum(out["kl"]), "dmax": jnum(out["dmax"]),
            "total_variation": jnum(out["total_variation"]),
            "hockey_stick": [{"gamma": g, "value": jnum(out["hockey_stick"][g])} for g in GAMMAS],
            "approx_dmax": [{"delta": dl, "value": jnum(out["approx_dmax"][dl])} for dl in DELTAS],
        })

    doc = {
        "generator": "tests/reference/generate_divergences.py",
        "mp_dps": DPS,
        "seed": SEED,
        "zero_threshold": "16*d*2^-52*lambda_max",
        "quantum": qout,
        "classical": cout,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "divergences.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {path} in {time.time() - t0:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
