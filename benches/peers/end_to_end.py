#!/usr/bin/env python3
"""End to end from files (issue 14, "Measure and report"): what a user pays for one number.

    end_to_end.py all --qrenyi target/release/qrenyi [--dims 2,4,...] [--only Q1,Q2] [--repeats N] OUTDIR
        writes the inputs (OUTDIR/data), times the CLI against the numpy script (OUTDIR/cli.json),
        qrenyi's Python package against numpy in-process when `import qrenyi` works
        (OUTDIR/inprocess.json), checks that the values agree, prints the Markdown tables
    end_to_end.py cli|inprocess [same options] OUTDIR
        only one of the two parts (the other part's JSON, if present, stays and joins the table);
        --only keeps the named quantities (e.g. "sandwiched 16 orders,maximal 16 orders")
    end_to_end.py table OUTDIR          the tables again from the JSON files
    end_to_end.py numpy RHO SIGMA QUANTITY
        the numpy script the CLI is compared with: loads the two .npy files, prints the values

Both sides read the same seeded `.npy` files (Hilbert–Schmidt random states, complex128).

* CLI: `qrenyi divergence --kind K --rho R.npy --sigma S.npy --alpha … --json` against
  `python end_to_end.py numpy R.npy S.npy QUANTITY` (interpreter start, `import numpy`, np.load,
  the five-liners of peers.py), each a whole process timed from spawn to exit; the two are run in
  turn (A B A B …, one warm-up each) and the ratio is taken pair by pair, so drifts of a shared
  machine hit both sides alike. Reported: the median of each and the median of the ratios.
* In-process: `qrenyi.divergence(np.load(R), np.load(S), kind, params)` against the five-liner on
  `np.load(R), np.load(S)` inside one Python process, alternated the same way, median per call.

Quantities: Petz, sandwiched and maximal at α = 2 and at 16 orders (α from 0.55 to 8, log-spaced);
Umegaki; hockey-stick at γ = e and at 16 γ (0.5 to 4); root fidelity; trace distance. The numpy
16-order versions decompose what does not depend on the order once (as a careful numpy user
would), so the curve rows compare like with like. Natural logarithms throughout.
"""
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402  (the numpy-eigh five-liners)

DIMS = [2, 4, 16, 64, 256, 512, 1024]
ORDERS = [float(a) for a in np.round(np.geomspace(0.55, 8.0, 16), 6)]
GAMMAS = [float(g) for g in np.round(np.geomspace(0.5, 4.0, 16), 6)]
HERE = os.path.abspath(__file__)

# quantity name → (CLI kind, CLI parameter flag, parameter values or None)
QUANTITIES = {
    "petz α=2": ("petz", "--alpha", [2.0]),
    "petz 16 orders": ("petz", "--alpha", ORDERS),
    "sandwiched α=2": ("sandwiched", "--alpha", [2.0]),
    "sandwiched 16 orders": ("sandwiched", "--alpha", ORDERS),
    "maximal α=2": ("maximal", "--alpha", [2.0]),
    "maximal 16 orders": ("maximal", "--alpha", ORDERS),
    "umegaki": ("umegaki", None, None),
    "hockey-stick γ=e": ("hockey-stick", "--gamma", [float(np.e)]),
    "hockey-stick 16 γ": ("hockey-stick", "--gamma", GAMMAS),
    "fidelity": ("fidelity", None, None),
    "trace-distance": ("trace-distance", None, None),
}


# ---------------------------------------------------------------- numpy side
def np_petz_curve(r, s, alphas):
    lr, vr = np.linalg.eigh(r)
    ls, vs = np.linalg.eigh(s)
    o = np.abs(vr.conj().T @ vs) ** 2
    return [float(np.log((lr[:, None] ** a * ls[None, :] ** (1 - a) * o).sum()) / (a - 1)) for a in alphas]


def np_sandwiched_curve(r, s, alphas):
    ls, vs = np.linalg.eigh(s)
    out = []
    for a in alphas:
        sg = peers.np_func(vs, ls, lambda x: x ** ((1 - a) / (2 * a)))
        nu = np.clip(np.linalg.eigvalsh(sg @ r @ sg), 0, None)
        out.append(float(np.log((nu ** a).sum()) / (a - 1)))
    return out


def np_maximal_curve(r, s, alphas):
    ls, vs = np.linalg.eigh(s)
    isq = peers.np_func(vs, ls, lambda x: x ** -0.5)
    t, u = np.linalg.eigh(isq @ r @ isq)
    t = np.clip(t, 0, None)
    w = np.einsum("ij,jk,ki->i", u.conj().T, s, u).real  # diagonal of U† σ U
    return [float(np.log((t ** a * w).sum()) / (a - 1)) for a in alphas]


def np_hockey_curve(r, s, gammas):
    return [peers.np_hockey(r, s, g) for g in gammas]


def np_trace_distance(r, s):
    return float(0.5 * np.abs(np.linalg.eigvalsh(r - s)).sum())


def numpy_values(name, r, s):
    kind, _, ps = QUANTITIES[name]
    if kind == "petz":
        return np_petz_curve(r, s, ps)
    if kind == "sandwiched":
        return np_sandwiched_curve(r, s, ps)
    if kind == "maximal":
        return np_maximal_curve(r, s, ps)
    if kind == "hockey-stick":
        return np_hockey_curve(r, s, ps)
    if kind == "umegaki":
        return [peers.np_umegaki(r, s)]
    if kind == "fidelity":
        return [peers.np_fidelity(r, s)]
    return [np_trace_distance(r, s)]


# ---------------------------------------------------------------- inputs and processes
def paths(data, d):
    return os.path.join(data, f"e2e_d{d}_rho.npy"), os.path.join(data, f"e2e_d{d}_sigma.npy")


def write_inputs(data, dims):
    os.makedirs(data, exist_ok=True)
    for d in dims:
        rng = np.random.default_rng([20261123, d])  # the same pair of each d whatever --dims says
        r, s = paths(data, d)
        np.save(r, peers.hilbert_schmidt(rng, d))
        np.save(s, peers.hilbert_schmidt(rng, d))


def cli_command(qrenyi, name, r, s):
    kind, flag, ps = QUANTITIES[name]
    cmd = [qrenyi, "divergence", "--kind", kind, "--rho", r, "--sigma", s, "--json", "--quiet"]
    if flag:
        cmd += [flag, ",".join(repr(p) for p in ps)]
    return cmd


def numpy_command(name, r, s):
    return [sys.executable, HERE, "numpy", r, s, name]


def run_timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{cmd} failed ({p.returncode}): {p.stderr.strip()}")
    return dt, p.stdout


def cli_values(stdout):
    j = json.loads(stdout)
    return [x["value"] for x in j["results"]] if "results" in j else [j["value"]]


def agree(a, b):
    """Largest relative deviation (relative to max(1e-3, |value|))."""
    return max(abs(x - y) / max(1e-3, abs(y)) for x, y in zip(a, b))


def repeats_for(d, repeats):
    return repeats if d <= 256 else max(2, repeats // 2)


def checkpoint(path, info, rows):
    """Write the rows so far (a long run that dies keeps what it measured)."""
    with open(path, "w") as f:
        json.dump({"machine": info, "rows": rows, "loadavg_end": os.getloadavg()}, f, indent=1)


def time_cli(qrenyi, data, dims, repeats, save=lambda rows: None):
    rows = []
    for d in dims:
        r, s = paths(data, d)
        for name in QUANTITIES:
            a_cmd, b_cmd = cli_command(qrenyi, name, r, s), numpy_command(name, r, s)
            _, out_a = run_timed(a_cmd)  # warm-up (page cache, the interpreter's .pyc)
            _, out_b = run_timed(b_cmd)
            va, vb = cli_values(out_a), json.loads(out_b)
            ta, tb = [], []
            for _ in range(repeats_for(d, repeats)):
                ta.append(run_timed(a_cmd)[0])
                tb.append(run_timed(b_cmd)[0])
            row = {"d": d, "quantity": name, "qrenyi_s": statistics.median(ta), "numpy_s": statistics.median(tb),
                   "ratio": statistics.median(b / a for a, b in zip(ta, tb)), "runs": len(ta),
                   "qrenyi_min_s": min(ta), "numpy_min_s": min(tb), "deviation": agree(va, vb)}
            rows.append(row)
            save(rows)
            print(f"cli d={d:<5} {name:<22} qrenyi {row['qrenyi_s'] * 1e3:9.2f} ms  numpy {row['numpy_s'] * 1e3:9.2f} ms"
                  f"  numpy/qrenyi {row['ratio']:6.2f}  dev {row['deviation']:.1e}", file=sys.stderr, flush=True)
    return rows


def time_inprocess(data, dims, budget=0.3, save=lambda rows: None):
    import qrenyi

    def call(name, r, s):
        kind, flag, ps = QUANTITIES[name]
        if flag is None:
            return lambda: qrenyi.divergence(np.load(r), np.load(s), kind)
        param = ps[0] if len(ps) == 1 else ps
        if flag == "--alpha":
            return lambda: qrenyi.divergence(np.load(r), np.load(s), kind, param)
        return lambda: qrenyi.divergence(np.load(r), np.load(s), kind, gamma=param)

    rows = []
    for d in dims:
        r, s = paths(data, d)
        for name in QUANTITIES:
            fa = call(name, r, s)
            fb = lambda: numpy_values(name, np.load(r), np.load(s))  # noqa: E731
            va, vb = np.atleast_1d(fa()), fb()
            t0 = time.perf_counter()
            fa()
            fb()
            once = time.perf_counter() - t0
            inner = max(1, int(budget / 6 / max(once, 1e-9)))
            reps = 7 if once < budget else 3
            ta, tb = [], []
            for _ in range(reps):
                for f, acc in ((fa, ta), (fb, tb)):
                    t0 = time.perf_counter()
                    for _ in range(inner):
                        f()
                    acc.append((time.perf_counter() - t0) / inner)
            row = {"d": d, "quantity": name, "qrenyi_s": statistics.median(ta), "numpy_s": statistics.median(tb),
                   "ratio": statistics.median(b / a for a, b in zip(ta, tb)), "runs": reps,
                   "deviation": agree(list(va), vb)}
            rows.append(row)
            save(rows)
            print(f"in-process d={d:<5} {name:<22} qrenyi {row['qrenyi_s'] * 1e6:11.1f} µs  numpy {row['numpy_s'] * 1e6:11.1f} µs"
                  f"  numpy/qrenyi {row['ratio']:6.2f}", file=sys.stderr, flush=True)
    return rows


def machine(qrenyi):
    info = {"loadavg_start": os.getloadavg(), "ncpu": os.cpu_count(), "python": sys.version.split()[0],
            "numpy": np.__version__, "utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
            "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS")}
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    info["qrenyi_version"] = subprocess.run([qrenyi, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    return info


# ---------------------------------------------------------------- report
def fmt(t):
    return f"{t * 1e6:.0f} µs" if t < 1e-3 else f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


def table(outdir):
    with open(os.path.join(outdir, "cli.json")) as f:
        cli = json.load(f)
    inproc = None
    ip = os.path.join(outdir, "inprocess.json")
    if os.path.exists(ip):
        with open(ip) as f:
            inproc = json.load(f)
    m = cli["machine"]
    print(f"{m.get('cpu', '?')}, {m['ncpu']} CPUs; {m['qrenyi_version']}; python {m['python']}, numpy {m['numpy']}; "
          f"OPENBLAS_CORETYPE={m['OPENBLAS_CORETYPE']}, OPENBLAS_NUM_THREADS={m['OPENBLAS_NUM_THREADS']}; "
          f"{m['utc']} UTC; load average at start {', '.join(f'{x:.1f}' for x in m['loadavg_start'])}, "
          f"at end {', '.join(f'{x:.1f}' for x in cli['loadavg_end'])}")
    print()
    ipx = {(r["d"], r["quantity"]): r for r in (inproc["rows"] if inproc else [])}
    head = "| d | quantity | CLI | numpy script | numpy/CLI |"
    line = "|---:|---|---:|---:|---:|"
    if inproc:
        head += " qrenyi in Python | numpy in Python | numpy/qrenyi |"
        line += "---:|---:|---:|"
    print(head)
    print(line)
    worst = 0.0
    for r in cli["rows"]:
        cells = f"| {r['d']} | {r['quantity']} | {fmt(r['qrenyi_s'])} | {fmt(r['numpy_s'])} | **{r['ratio']:.2f}×** |"
        worst = max(worst, r["deviation"])
        if inproc:
            p = ipx.get((r["d"], r["quantity"]))
            if p:
                cells += f" {fmt(p['qrenyi_s'])} | {fmt(p['numpy_s'])} | **{p['ratio']:.2f}×** |"
                worst = max(worst, p["deviation"])
            else:
                cells += " | | |"
        print(cells)
    print()
    print(f"Largest relative deviation between qrenyi's and numpy's values: {worst:.1e}.")


def take_option(args, flag, default):
    """The value after `flag` in `args` (both removed), else `default`."""
    if flag in args:
        i = args.index(flag)
        v = args[i + 1]
        del args[i:i + 2]
        return v
    return default


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    cmd = args.pop(0)
    if cmd == "numpy":
        r, s, name = args
        print(json.dumps(numpy_values(name, np.load(r), np.load(s))))
        return
    if cmd == "table":
        table(args[0])
        return
    if cmd not in ("all", "cli", "inprocess"):
        sys.exit(f"unknown command {cmd}\n{__doc__}")

    def opt(flag, default):
        return take_option(args, flag, default)

    qrenyi = os.path.abspath(opt("--qrenyi", "target/release/qrenyi"))
    dims = [int(x) for x in opt("--dims", ",".join(map(str, DIMS))).split(",")]
    repeats = int(opt("--repeats", "5"))
    only = opt("--only", None)
    if only:
        keep = [q.strip() for q in only.split(",")]
        unknown = [q for q in keep if q not in QUANTITIES]
        if unknown:
            sys.exit(f"unknown quantities {unknown}; known: {list(QUANTITIES)}")
        for q in list(QUANTITIES):
            if q not in keep:
                del QUANTITIES[q]
    outdir = args[0]
    data = os.path.join(outdir, "data")
    os.makedirs(outdir, exist_ok=True)
    write_inputs(data, dims)
    info = machine(qrenyi)
    tolerance = 1e-7
    have_package = False
    if cmd != "cli":
        try:
            import qrenyi as _  # noqa: F401
            have_package = True
        except ImportError:
            print("qrenyi's Python package is not importable here: in-process rows skipped", file=sys.stderr)
    ip = []
    if have_package:
        ip = time_inprocess(data, dims, save=lambda r: checkpoint(os.path.join(outdir, "inprocess.json"), info, r))
    rows = []
    if cmd != "inprocess":
        rows = time_cli(qrenyi, data, dims, repeats,
                        save=lambda r: checkpoint(os.path.join(outdir, "cli.json"), info, r))
    if os.path.exists(os.path.join(outdir, "cli.json")):
        table(outdir)
    bad = [r for r in rows + ip if r["deviation"] > tolerance]
    if bad:
        sys.exit(f"values disagree beyond {tolerance}: {[(r['d'], r['quantity'], r['deviation']) for r in bad]}")


if __name__ == "__main__":
    main()
