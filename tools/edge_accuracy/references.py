"""audit21: edge-case divergences against mpmath, on the exact stored doubles with the zero threshold
of docs/conventions.md applied (eigenvalues ≤ 16 d ε λ_max are zeros; the trace is that of the
truncated state). `python references.py SEED OUTDIR` writes OUTDIR/rho{d}.npy, sigma{d}.npy (stacks
of the cases) and refs.json; then `python compare.py OUTDIR target/release/examples/edge_bounds`
(with the Python package on PYTHONPATH) checks every route against `accuracy::error_bound`."""
import json, math, sys, os, subprocess, itertools
import numpy as np
import mpmath as mp

EPS = 2.0 ** -52
ALPHAS = [1e-3, 0.5, 1 - 1e-9, 1 + 1e-9, 2.0, 1e3, 1e6, 1.0, math.inf]

def herm(a):
    a = (a + a.conj().T) / 2
    d = a.shape[0]
    for i in range(d):
        a[i, i] = a[i, i].real
        for j in range(i):
            a[i, j] = np.conj(a[j, i])
    return a

def unitary(d, rng):
    z = rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d))
    q, r = np.linalg.qr(z)
    return q * (np.diag(r) / abs(np.diag(r)))

def state(vals, u):
    a = herm(u @ np.diag(vals) @ u.conj().T)
    return a / np.trace(a).real

def spectrum(d, kappa, rank=None, rng=None):
    r = d if rank is None else rank
    v = np.exp(np.linspace(0, -math.log(kappa), r)) if r > 1 else np.ones(1)
    rng.shuffle(v)
    return np.concatenate([v, np.zeros(d - r)])

def cases(rng):
    out = []
    for d in (2, 4, 16):
        for kind in ("generic", "equal", "rankdef_rho", "rankdef_sigma", "rankdef_both",
                     "kappa1e6", "kappa1e9", "kappa1e12", "near", "commuting", "pure_rho"):
            u, w = unitary(d, rng), unitary(d, rng)
            if kind == "generic":
                r, s = state(spectrum(d, 10, rng=rng), u), state(spectrum(d, 30, rng=rng), w)
            elif kind == "equal":
                r = state(spectrum(d, 1e3, rng=rng), u); s = r.copy()
            elif kind == "rankdef_rho":
                r, s = state(spectrum(d, 10, rank=d // 2, rng=rng), u), state(spectrum(d, 10, rng=rng), w)
            elif kind == "rankdef_sigma":
                r, s = state(spectrum(d, 10, rng=rng), u), state(spectrum(d, 10, rank=d // 2, rng=rng), w)
            elif kind == "rankdef_both":
                vr = spectrum(d, 5, rank=d // 2, rng=rng); vr[: d // 2] = np.sort(vr[: d // 2])
                vs = spectrum(d, 7, rank=d - 1 if d > 2 else 1, rng=rng)
                # ρ's support inside σ's: same eigenbasis ordering, σ zero only where ρ is zero
                vs = np.concatenate([np.sort(vs[vs > 0]), np.zeros(d - (vs > 0).sum())])
                r, s = state(vr, u), state(vs, u)
            elif kind.startswith("kappa"):
                k = float(kind[5:])
                r, s = state(spectrum(d, 10, rng=rng), u), state(spectrum(d, k, rng=rng), w)
            elif kind == "near":
                r = state(spectrum(d, 100, rng=rng), u)
                s = herm((1 - 1e-6) * r + 1e-6 * np.eye(d) / d)
            elif kind == "commuting":
                r = np.diag(spectrum(d, 50, rng=rng)).astype(complex); r /= np.trace(r)
                s = np.diag(spectrum(d, 1e4, rng=rng)).astype(complex); s /= np.trace(s)
            elif kind == "pure_rho":
                r = state(spectrum(d, 1, rank=1, rng=rng), u); s = state(spectrum(d, 20, rng=rng), w)
            out.append((d, kind, herm(r), herm(s)))
    return out

def mpm(a):
    d = a.shape[0]
    return mp.matrix([[mp.mpc(float(a[i, j].real), float(a[i, j].imag)) for j in range(d)] for i in range(d)])

def eig(a):
    e, q = mp.eighe(a) if hasattr(mp, "eighe") else mp.eigh(a)
    return [mp.re(x) for x in e], q

def truncated(a, d):
    e, q = eig(a)
    lmax = max(e)
    tau = 16 * d * EPS * lmax
    vals = [x if x > tau else mp.mpf(0) for x in e]
    return vals, q

def col(q, i):
    return [q[k, i] for k in range(q.rows)]

def dot(u, v):  # <u|v>
    return mp.fsum(mp.conj(a) * b for a, b in zip(u, v))

def reference(d, rs, ss, alpha, fam, dps):
    mp.mp.dps = dps
    R, S = mpm(rs), mpm(ss)
    lam, A = truncated(R, d)
    mu, B = truncated(S, d)
    tr = mp.fsum(lam)
    supp_r = [i for i in range(d) if lam[i] > 0]
    supp_s = [j for j in range(d) if mu[j] > 0]
    ker_s = [j for j in range(d) if mu[j] == 0]
    a = [col(A, i) for i in range(d)]; b = [col(B, j) for j in range(d)]
    W = {(i, j): abs(dot(b[j], a[i])) ** 2 for i in range(d) for j in range(d)}
    leak = mp.fsum(lam[i] * W[i, j] for i in supp_r for j in ker_s)
    lmax_r = max(lam)
    tau_r = 16 * d * EPS * lmax_r
    leaks = leak > tau_r
    def fin(q, a_):
        return mp.log(q / tr) / (a_ - 1)
    if fam == "petz":
        if alpha == math.inf:
            if leaks: return mp.inf
            thr = (16 * d * EPS) ** 2
            return max(mp.log(lam[i] / mu[j]) for i in supp_r for j in supp_s if W[i, j] > thr)
        if alpha == 1:
            if leaks: return mp.inf
            return (mp.fsum(lam[i] * mp.log(lam[i]) for i in supp_r)
                    - mp.fsum(lam[i] * W[i, j] * mp.log(mu[j]) for i in supp_r for j in supp_s)) / tr
        al = mp.mpf(alpha)
        if al > 1 and leaks: return mp.inf
        q = mp.fsum(lam[i] ** al * mu[j] ** (1 - al) * W[i, j] for i in supp_r for j in supp_s)
        if q == 0: return mp.inf
        return fin(q, al)
    # operators on supp σ
    def fun_s(p):
        M = mp.zeros(d, d)
        for j in supp_s:
            for x in range(d):
                for y in range(d):
                    M[x, y] += mu[j] ** p * b[j][x] * mp.conj(b[j][y])
        return M
    Rt = mp.zeros(d, d)
    for i in supp_r:
        for x in range(d):
            for y in range(d):
                Rt[x, y] += lam[i] * a[i][x] * mp.conj(a[i][y])
    if fam == "sandwiched":
        if alpha == math.inf or alpha == 1:
            if leaks: return mp.inf
        if alpha == math.inf:
            fam = "maximal"
        elif alpha == 1:
            return reference(d, rs, ss, 1, "petz", dps)
        else:
            al = mp.mpf(alpha)
            if al > 1 and leaks: return mp.inf
            g = (1 - al) / al
            X = fun_s(g / 2)
            M = X * Rt * X
            M = (M + M.H) / 2
            nu, _ = eig(M)
            numax = max(nu)
            q = mp.fsum(x ** al for x in nu if x > numax * mp.mpf(10) ** (-(dps - 30)))
            if q == 0: return mp.inf
            return fin(q, al)
    # maximal
    if alpha >= 1 or alpha == math.inf:
        if leaks: return mp.inf
        rho_ac = Rt
    else:
        # Ando: Schur complement of ρ's block on ker σ (in σ's eigenbasis)
        if not ker_s or not leaks:
            rho_ac = Rt
        else:
            Bm = mp.matrix([[b[j][x] for j in range(d)] for x in range(d)])  # columns b_j
            Rp = Bm.H * Rt * Bm
            s_ = supp_s; k_ = ker_s
            Aa = mp.matrix([[Rp[i, j] for j in s_] for i in s_])
            Bb = mp.matrix([[Rp[i, j] for j in k_] for i in s_])
            Cc = mp.matrix([[Rp[i, j] for j in k_] for i in k_])
            ce, cq = eig(Cc)
            cmax = max(abs(x) for x in ce) if ce else 0
            Cp = mp.zeros(len(k_), len(k_))
            for t, x in enumerate(ce):
                if cmax > 0 and x > cmax * mp.mpf(10) ** (-(dps - 20)):
                    v = col(cq, t)
                    for p in range(len(k_)):
                        for r_ in range(len(k_)):
                            Cp[p, r_] += v[p] * mp.conj(v[r_]) / x
            Sc = Aa - Bb * Cp * Bb.H
            full = mp.zeros(d, d)
            for p, i in enumerate(s_):
                for r_, j in enumerate(s_):
                    full[i, j] = Sc[p, r_]
            rho_ac = Bm * full * Bm.H
    Xm = fun_s(mp.mpf(-0.5))
    T = Xm * rho_ac * Xm
    T = (T + T.H) / 2
    t, V = eig(T)
    Sg = fun_s(mp.mpf(1))
    tmax = max(t)
    keep = [k for k in range(d) if t[k] > tmax * mp.mpf(10) ** (-(dps - 20))]
    wts = {k: mp.re(dot(col(V, k), Sg * mp.matrix(col(V, k)))) for k in keep}
    if alpha == math.inf:
        return mp.log(tmax)
    if alpha == 1:
        return mp.fsum(wts[k] * t[k] * mp.log(t[k]) for k in keep) / tr
    al = mp.mpf(alpha)
    q = mp.fsum(wts[k] * t[k] ** al for k in keep)
    if q == 0: return mp.inf
    return fin(q, al)

def main():
    rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 21)
    outdir = sys.argv[2] if len(sys.argv) > 2 else "/tmp/audit21_work/edge"
    os.makedirs(outdir, exist_ok=True)
    cs = cases(rng)
    dims = sorted({c[0] for c in cs})
    refs = []
    for d in dims:
        sub = [c for c in cs if c[0] == d]
        np.save(f"{outdir}/rho{d}.npy", np.stack([c[2] for c in sub]))
        np.save(f"{outdir}/sigma{d}.npy", np.stack([c[3] for c in sub]))
        for k, (_, kind, r, s) in enumerate(sub):
            ks = np.linalg.eigvalsh(s); ks = ks[ks > 16 * d * EPS * ks.max()]
            lks = math.log10(ks.max() / ks.min())
            for fam in ("petz", "sandwiched", "maximal"):
                for a in ALPHAS:
                    dps = 60
                    if fam == "sandwiched" and a < 1:
                        dps = 60 + int(abs((1 - a) / a) * lks) + 10
                    if dps > 4000 or (d == 16 and dps > 700):
                        continue
                    v = reference(d, r, s, a, fam, dps)
                    refs.append(dict(d=d, case=k, kind=kind, family=fam, alpha=a,
                                     ref=("inf" if v == mp.inf else mp.nstr(v, 30))))
                    print(d, kind, fam, a, refs[-1]["ref"], file=sys.stderr, flush=True)
    json.dump(refs, open(f"{outdir}/refs.json", "w"), indent=0)

if __name__ == "__main__":
    main()
