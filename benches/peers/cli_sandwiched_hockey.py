"""End to end from .npy files: the qrenyi CLI (one process per value) against the NumPy five-liners
of peers.py (in-process, files read each repeat), alternated in one run; median and min of N repeats.
Used for docs/PERFORMANCE.md, "Issue 14: sandwiched α > 1 without decomposing ρ" (sandwiched α = 2 and
hockey-stick γ = e).

    python benches/peers/cli_sandwiched_hockey.py DIMS BINARIES [REPEATS]
    e.g. OPENBLAS_NUM_THREADS=1 RAYON_NUM_THREADS=1 benches/peers/.venv/bin/python \
         benches/peers/cli_sandwiched_hockey.py 256,512,1024 target/release/qrenyi,/tmp/qrenyi-main 7
Inputs: seeded Hilbert–Schmidt pairs written once to $E2E_DATA (default /tmp/qrenyi-e2e-data)."""
import json, os, subprocess, sys, time
import numpy as np

def hs(rng, d):
    g = rng.standard_normal((d, d)) + 1j * rng.standard_normal((d, d))
    m = g @ g.conj().T
    return m / np.trace(m).real

def np_sandwiched(rf, sf, a):
    r, s = np.load(rf), np.load(sf)
    ls, vs = np.linalg.eigh(s)
    sg = (vs * ls ** ((1 - a) / (2 * a))) @ vs.conj().T
    nu = np.linalg.eigvalsh(sg @ r @ sg)
    return np.log((np.clip(nu, 0, None) ** a).sum()) / (a - 1)

def np_hockey(rf, sf, g):
    r, s = np.load(rf), np.load(sf)
    ev = np.linalg.eigvalsh(r - g * s)
    return float(ev[ev > 0].sum())

def main():
    dims = [int(x) for x in sys.argv[1].split(",")]
    bins = sys.argv[2].split(",")
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    data = os.environ.get("E2E_DATA", "/tmp/qrenyi-e2e-data"); os.makedirs(data, exist_ok=True)
    rng = np.random.default_rng(7)
    rows = []
    for d in dims:
        rf, sf = f"{data}/d{d}_rho.npy", f"{data}/d{d}_sigma.npy"
        if not os.path.exists(rf):
            np.save(rf, hs(rng, d)); np.save(sf, hs(rng, d))
        for kind, arg, npf, par in [("sandwiched", "--alpha", np_sandwiched, 2.0),
                                    ("hockey-stick", "--gamma", np_hockey, float(np.e))]:
            times = {b: [] for b in bins}; times["numpy"] = []
            vals = {}
            for _ in range(reps):
                for b in bins:
                    cmd = [b, "divergence", "--rho", rf, "--sigma", sf, "--kind", kind, arg, repr(par), "--json"]
                    t = time.perf_counter(); out = subprocess.run(cmd, capture_output=True, text=True); times[b].append(time.perf_counter() - t)
                    if out.returncode != 0: sys.exit(out.stderr)
                    vals[b] = out.stdout.strip()[:200]
                t = time.perf_counter(); v = npf(rf, sf, par); times["numpy"].append(time.perf_counter() - t)
                vals["numpy"] = v
            med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
            mn = {k: min(v) for k, v in times.items()}
            rows.append((d, kind, med, vals))
            line = f"d={d} {kind}: numpy med {med['numpy']*1e3:.1f} min {mn['numpy']*1e3:.1f} ms"
            for b in bins:
                line += f" | {os.path.basename(b)} med {med[b]*1e3:.1f} min {mn[b]*1e3:.1f} ms (numpy/cli med {med['numpy']/med[b]:.2f}x, min {mn['numpy']/mn[b]:.2f}x)"
            print(line, flush=True)
            print("   values:", {os.path.basename(str(k)): str(v)[-40:] for k, v in vals.items()}, flush=True)

main()
