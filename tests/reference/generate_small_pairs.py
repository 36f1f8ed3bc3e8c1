#!/usr/bin/env python3
"""mpmath reference values of Petz D_a, Umegaki D and the root fidelity at 9 <= d <= 16
(`small_pairs.json`), for the small-pair kernel's factorised Petz sum on the stack
(src/divergence/petz.rs `PetzStack`, docs/divergences.md "petz_factorised_small") and its fidelity
(`small_fidelity`); tests `petz_factorised_small_reference` and `small_fidelity_reference` in
tests/small_pairs.rs.

Rerun from the repository root (needs mpmath; deterministic, fixed seed):

    python3 tests/reference/generate_small_pairs.py

Conventions are those of generate_divergences.py (imported for its helpers): the stored double
matrices converted exactly, eigenvalues <= tau = 16 d 2^-52 lambda_max are exact zeros, supp rho in
supp sigma tested as Tr(rho P_ker sigma) <= tau_rho, alpha > 1 and Umegaki +inf when it fails.
Q = sum_ij lam_i^a mu_j^(1-a) |<u_i|v_j>|^2 and D_a = ln(Q/Tr rho)/(a-1); Umegaki
sum_ij lam_i |<u_i|v_j>|^2 (ln lam_i - ln mu_j) / Tr rho; F = sum_k sqrt(nu_k), nu the
eigenvalues of sigma^(1/2) rho sigma^(1/2) (thresholded matrices). Computed at 60 digits; sensitivity as
there (2 random perturbations of both matrices by one ulp of their largest entry).
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_divergences as g  # noqa: E402
from mpmath import mp, mpf  # noqa: E402

mp.dps = 60
g.mp.dps = 60
ALPHAS = [0.0, 0.3, 0.5, 0.9, 1 - 1e-7, 1 + 1e-7, 1.001, 1.5, 2.0, 3.0, 7.5, 50.0]
SEED = 20261124
NPERT = 2


def values(Ar, As):
    sr, ss = g.Spec(Ar), g.Spec(As)
    lam, U, mu, V = sr.lam, sr.U, ss.lam, ss.U
    r, s = len(lam), len(mu)
    W = [[abs(g.inner(u, v)) ** 2 for v in V] for u in U]
    leak = mp.fsum(mp.re(g.inner(k, g.matvec(Ar, k))) for k in ss.K) if ss.K else mpf(0)
    nested = leak <= sr.tau
    out = {}
    for a in ALPHAS:
        am = mpf(a)
        if am > 1 and not nested:
            out[a] = g.INF
            continue
        q = mp.fsum(lam[i] ** am * mu[j] ** (1 - am) * W[i][j] for i in range(r) for j in range(s))
        out[a] = g.d_from_q(q, sr.tr, a, False)
    C = [[g.inner(u, v) for v in V] for u in U]
    nu = g.clip(g.heig(g.sandwich_gram(lam, C, mu, 1))[0])
    out["fidelity"] = mp.fsum(mp.sqrt(x) for x in nu if x > 0)
    if nested:
        out["umegaki"] = mp.fsum(lam[i] * W[i][j] * (mp.ln(lam[i]) - mp.ln(mu[j]))
                                 for i in range(r) for j in range(s)) / sr.tr
    else:
        out["umegaki"] = g.INF
    return out


def cases(rng):
    out = []
    for d in (9, 12, 16):
        a, b = g.ginibre_state(rng, d), g.ginibre_state(rng, d)
        out.append((f"hs d={d}", a, b))
        half = list(range(0, d, 2))
        low = g.embed(g.ginibre_state(rng, len(half)), d, half)
        out.append((f"rank-deficient rho d={d}", low, b))
        other = list(range(1, d, 2))
        out.append((f"leaking rho d={d}", a, g.embed(g.ginibre_state(rng, len(other)), d, other)))
        near = g.hermitise([[0.99 * a[i][j] + 0.01 * b[i][j] for j in range(d)] for i in range(d)])
        out.append((f"nearly equal d={d}", a, near))
    return out


def main():
    rng, prng = random.Random(SEED), random.Random(SEED + 1)
    res = []
    for name, r, s in cases(rng):
        base = values(g.to_mp(r), g.to_mp(s))
        sens = {k: mpf(0) for k in base}
        for _ in range(NPERT):
            p = values(g.perturbed(r, prng), g.perturbed(s, prng))
            for k in base:
                if base[k] != g.INF and p[k] != g.INF:
                    sens[k] = max(sens[k], abs(p[k] - base[k]))
        res.append({
            "name": name,
            "rho": g.jmat(r),
            "sigma": g.jmat(s),
            "petz": [{"alpha": a, "value": g.jnum(base[a]), "sensitivity": g.jnum(sens[a])}
                     for a in ALPHAS],
            "umegaki": {"value": g.jnum(base["umegaki"]),
                        "sensitivity": g.jnum(sens["umegaki"])},
            "fidelity": {"value": g.jnum(base["fidelity"]),
                         "sensitivity": g.jnum(sens["fidelity"])},
        })
        print(name, file=sys.stderr, flush=True)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "small_pairs.json")
    with open(path, "w") as f:
        json.dump({"cases": res}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
