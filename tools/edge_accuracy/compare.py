"""Compare every route (Rust backends: Pair::renyi and Pair::curve; Python: single, stack, Pair,
Pair.curve, umegaki/bs/max kinds) with the mpmath references of references.py, within the documented
error bound of the auto backend (`examples/edge_bounds.rs`). Prints each failure and a summary."""
import json, math, subprocess, sys
import numpy as np
import qrenyi
outdir = sys.argv[1] if len(sys.argv) > 1 else "/tmp/audit21_work/edge"
exe = sys.argv[2] if len(sys.argv) > 2 else "/work/wt/audit21/target/release/examples/edge_bounds"
refs = json.load(open(f"{outdir}/refs.json"))
FAM = ["petz", "sandwiched", "maximal"]
ALPHAS = sorted({r["alpha"] for r in refs})
def f(x):
    return math.inf if x == "inf" else float(x)
ref = {(r["d"], r["case"], r["family"], r["alpha"]): (f(r["ref"]), r["kind"]) for r in refs}
rows = {}
for d in sorted({r["d"] for r in refs}):
    al = ",".join("inf" if a == math.inf else repr(a) for a in ALPHAS)
    out = subprocess.run([exe, f"{outdir}/rho{d}.npy", f"{outdir}/sigma{d}.npy", al], capture_output=True, text=True)
    if out.returncode:
        print("RUST FAILED", d, out.stderr); continue
    for line in out.stdout.splitlines():
        o = json.loads(line)
        key = (d, o["case"], FAM[o["family"]], f(o["alpha"]) if o["alpha"] != "inf" else math.inf)
        rows.setdefault(key, {})[o["backend"] + ".renyi"] = f(o["value"])
        rows[key][o["backend"] + ".curve"] = f(o["curve"])
        if o["backend"] == "auto":
            rows[key]["bound"] = f(o["bound"])
    R, S = np.load(f"{outdir}/rho{d}.npy"), np.load(f"{outdir}/sigma{d}.npy")
    for fam in FAM:
        for be in ("auto", "lapack", "nalgebra", "faer"):
            try:
                st = qrenyi.divergence(R, S, fam, ALPHAS, backend=be)
            except qrenyi.QrenyiError as e:
                print("STACK ERROR", d, fam, be, e); st = None
            for k in range(R.shape[0]):
                for ai, a in enumerate(ALPHAS):
                    key = (d, k, fam, a)
                    if key not in rows: continue
                    if st is not None:
                        rows[key][f"py.stack.{be}"] = st[k, ai]
                    try:
                        rows[key][f"py.single.{be}"] = qrenyi.divergence(R[k], S[k], fam, a, backend=be)
                        p = qrenyi.Pair(R[k], S[k], backend=be)
                        rows[key][f"py.pair.{be}"] = p.renyi(fam, a)
                        rows[key][f"py.paircurve.{be}"] = p.curve(fam, ALPHAS)[ai]
                        if a == 1 and fam != "maximal":
                            rows[key][f"py.umegaki.{be}"] = qrenyi.divergence(R[k], S[k], "umegaki", backend=be)
                        if a == 1 and fam == "maximal":
                            rows[key][f"py.bs.{be}"] = qrenyi.divergence(R[k], S[k], "bs", backend=be)
                        if a == math.inf and fam != "petz":
                            rows[key][f"py.max.{be}"] = qrenyi.divergence(R[k], S[k], "max", backend=be)
                    except qrenyi.QrenyiError as e:
                        print("SINGLE ERROR", key, be, e)
bad = 0; worst = 0; nchk = 0
for key, vals in sorted(rows.items(), key=lambda kv: str(kv[0])):
    if key not in ref: continue
    r, kind = ref[key]
    bound = vals.get("bound", math.nan)
    for route, v in vals.items():
        if route == "bound": continue
        nchk += 1
        if math.isinf(r) or math.isinf(v) or math.isnan(v):
            ok = (v == r)
            ratio = 0 if ok else math.inf
        else:
            err = abs(v - r)
            ratio = err / bound if bound > 0 else (0 if err == 0 else math.inf)
            ok = ratio <= 1
        worst = max(worst, ratio if ratio != math.inf else worst)
        if not ok:
            bad += 1
            print(f"FAIL d={key[0]} case={key[1]}({kind}) {key[2]} α={key[3]!r} {route}: {v!r} ref {r!r} err {abs(v-r) if not math.isinf(r) else ''} bound {bound:.3g} ratio {ratio:.3g}")
print(f"{nchk} checks, {bad} failures, worst finite ratio {worst:.3g}")
