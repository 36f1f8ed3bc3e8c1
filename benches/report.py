#!/usr/bin/env python3
"""Turn benchmark results into the generated tables of docs/PERFORMANCE.md.

  python3 benches/report.py criterion [DIR]            print criterion medians (DIR defaults to
                                                        $CARGO_TARGET_DIR/criterion or target/criterion)
  python3 benches/report.py doc DOC [--criterion DIR [--criterion-label L]] [--peers QRENYI.json PYTHON.json [--label L]]
                                                        rewrite the generated blocks of DOC
                                                        (peers tables go to blocks `peers-L` and
                                                        `machine-L` with a label, else `peers`, `machine`)
       [--kernel QRENYI.jsonl NUMPY.jsonl]              kernel estimator table (block `kernel-L`)

Generated blocks sit between `<!-- NAME:begin -->` and `<!-- NAME:end -->` markers; the text
around them is written by hand. `doc` exits with status 1 if the peers disagree numerically.
Medians are criterion's `median.point_estimate` (ns) for the criterion benches and the median of
7 repeats for the peer timings.
"""
import json
import os
import platform
import re
import subprocess
import sys
import time

# relative agreement required of each peer implementation with qrenyi
TOLERANCE = {"numpy-eigh": 1e-9, "scipy-fmp": 1e-7, "scipy-logm": 1e-7, "qutip": 1e-9, "toqito": 1e-6}


def collect(root):
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        if os.path.basename(dirpath) != "new" or "benchmark.json" not in files:
            continue
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            meta = json.load(f)
        with open(os.path.join(dirpath, "estimates.json")) as f:
            est = json.load(f)
        out[meta["full_id"]] = est["median"]["point_estimate"]
    return out


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def dims_of(data, prefix):
    ds = {int(m.group(1)) for k in data for m in [re.match(prefix + r"/d=(\d+)/", k)] if m}
    return sorted(ds)


def criterion_md(data):
    out = []
    # spectral: one table per operation, one column per backend (+ zgemm with the Cholesky rows)
    for op, title in (("eigh", "full decomposition `eigh`"), ("eigvalsh", "eigenvalues only `eigvalsh`"),
                      ("cholesky", "PSD check `is_positive_definite` (Cholesky), and one zgemm")):
        names = sorted({k.split("/", 2)[2] for k in data
                        if k.startswith("spectral/") and k.split("/", 2)[2].startswith(op + "/")})
        if op == "cholesky":
            names += ["zgemm"]
        rows = []
        for d in dims_of(data, "spectral"):
            rows.append([d] + [fmt(data[f"spectral/d={d}/{n}"]) if f"spectral/d={d}/{n}" in data else "—"
                               for n in names])
        if len(names) > 1:
            out.append(f"#### Spectral kernels: {title} (median per call)\n\n"
                       + table(["d"] + [n.split("/", 1)[-1] for n in names], rows))
    # divergences vs floor
    quantities = ["petz", "umegaki", "sandwiched", "maximal", "hockey_stick", "validate"]
    rows = []
    for d in dims_of(data, "divergence"):
        row = [d]
        for q in quantities:
            c, f = data.get(f"divergence/d={d}/{q}/call"), data.get(f"divergence/d={d}/{q}/floor")
            row.append(f"{fmt(c)} / {fmt(f)} = **{c / f:.2f}×**" if c and f else "—")
        rows.append(row)
    if rows:
        for row, d in zip(rows, dims_of(data, "divergence")):
            dec = data.get(f"divergence/d={d}/decompose")
            row.append(fmt(dec) if dec else "—")
        out.append("#### Divergence call / its floor (median; ratio = time / floor)\n\n"
                   + table(["d"] + quantities + ["decompose (first use of a state)"], rows))
    # end to end: raw matrices → value
    e2e = ["petz", "sandwiched", "maximal", "umegaki", "hockey_stick"]
    rows = [[d] + [fmt(data[f"end_to_end/d={d}/{q}"]) if f"end_to_end/d={d}/{q}" in data else "—" for q in e2e]
            for d in dims_of(data, "end_to_end")]
    if rows:
        out.append("#### End to end: two raw matrices → validated states → one value (median)\n\n"
                   + table(["d"] + e2e, rows))
    # curves
    rows = []
    for d in dims_of(data, "curve"):
        row = [d]
        for q in ["petz", "sandwiched", "maximal"]:
            c, s = data.get(f"curve/d={d}/{q}/curve64"), data.get(f"curve/d={d}/{q}/single64")
            row.append(f"{fmt(c)} / {fmt(s)} = **1/{s / c:.1f}**" if c and s else "—")
        rows.append(row)
    if rows:
        out.append("#### 64-order α-curve / 64 single calls (median)\n\n"
                   + table(["d", "petz", "sandwiched", "maximal"], rows))
    # batch throughput
    rows = []
    for d in dims_of(data, "batch"):
        n = 64 if d >= 64 else 1024
        row = [d]
        for q in ["petz", "sandwiched", "maximal"]:
            b, l = data.get(f"batch/d={d}/{q}/batch"), data.get(f"batch/d={d}/{q}/loop")
            row.append(f"{n / b * 1e9:,.0f} / {n / l * 1e9:,.0f}" if b and l else "—")
        v = data.get(f"batch/d={d}/validate/batch")
        row.append(f"{n / v * 1e9:,.0f}" if v else "—")
        rows.append(row)
    if rows:
        out.append("#### Many pairs: throughput in pairs per second, `batch::renyi` / plain loop "
                   "(validated states; last column: `batch::states`, matrices per second)\n\n"
                   + table(["d", "petz", "sandwiched", "maximal", "validate"], rows))
    # any other group (privacy, kernel, …)
    other = sorted(k for k in data
                   if k.split("/")[0] not in ("spectral", "divergence", "curve", "batch", "end_to_end"))
    if other:
        out.append("#### Other benches (median)\n\n" + table(["bench", "median"], [[k, fmt(data[k])] for k in other]))
    return "\n\n".join(out)


def peers_md(qr, py):
    rows, worst, failures = [], {}, []
    for d in sorted(qr["results"], key=int):
        qres, pres = qr["results"][d], py["results"].get(d, {})
        quantities = sorted({k.split("/")[0] for k in qres})
        for q in quantities:
            ours, call = qres[f"{q}/qrenyi"], qres[f"{q}/qrenyi-call"]["median_s"]
            peers = sorted(k for k in pres if k.startswith(q + "/"))
            cells = []
            for k in peers:
                name = k.split("/")[1]
                dev = max(abs(a - b) / max(abs(a), abs(b), 1e-300)
                          for a, b in zip(ours["values"], pres[k]["values"]))
                worst[k] = max(worst.get(k, 0.0), dev)
                if dev > TOLERANCE.get(name, 1e-9):
                    failures.append(f"d={d} {k}: relative deviation {dev:.2e}")
                t = pres[k]["median_s"]
                cells.append(f"{name} {fmt(t * 1e9)} (**{t / ours['median_s']:.1f}×**)")
            rows.append([d, q, fmt(ours["median_s"] * 1e9), fmt(call * 1e9), "; ".join(cells) or "—"])
    md = table(["d", "quantity", "qrenyi (from raw matrices)", "qrenyi call (validated states)",
                "peers: median per pair (peer time / qrenyi time)"], rows)
    agree = table(["peer", "largest relative deviation from qrenyi", "tolerance"],
                  [[k, f"{v:.1e}", f"{TOLERANCE.get(k.split('/')[1], 1e-9):.0e}"] for k, v in sorted(worst.items())])
    return md + "\n\nAgreement (checked before any time is reported):\n\n" + agree, failures


def kernel_md(qr_path, np_path):
    """Kernel estimator table: best total per n on each side, and the relative difference of values."""
    def best(path):
        out = {}
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                if r["n"] not in out or r["total_s"] < out[r["n"]]["total_s"]:
                    out[r["n"]] = r
        return out
    qr, nps = best(qr_path), best(np_path)
    rows, failures = [], []
    for n in sorted(qr):
        q, p = qr[n], nps.get(n)
        if p is None:
            continue
        dev = abs(q["value"] - p["value"]) / max(abs(q["value"]), abs(p["value"]), 1e-300)
        if dev > 1e-6:
            failures.append(f"kernel n={n}: relative deviation {dev:.2e}")
        rows.append([n, f"{q['total_s']:.4g} s (Gram {q['gram_s']:.3g}, decomposition {q['decomposition_s']:.3g}, "
                        f"evaluation {q['evaluation_s']:.3g})", f"{p['total_s']:.4g} s (Gram {p['gram_s']:.3g})",
                     f"**{p['total_s'] / q['total_s']:.1f}×**", f"{dev:.1e}"])
    return table(["n = m", "qrenyi (best of 3)", "numpy, seed 002 formulation", "numpy / qrenyi",
                  "relative difference of values"], rows), failures


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:  # noqa: BLE001 - best effort
        return "?"


def machine_md(qr, py, qr_path):
    when = qr.get("unix_time") or os.path.getmtime(qr_path)
    load = qr.get("loadavg", "").split()[:3]
    measured = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(when)) + (
        f"; load average (1, 5, 15 min) when qrenyi's timings ended: {', '.join(load)}" if load else "")
    model = sh("lscpu | sed -n 's/^Model name: *//p'")
    blas = sh("basename \"$(readlink -f \"$(ldconfig -p | awk '/libopenblas.so.0/{print $NF; exit}')\")\"") or "OpenBLAS"
    vm = sh("lscpu | grep -q '^Hypervisor' && echo virtual machine") or "bare metal"
    rows = [
        ["CPU", f"{model}, {os.cpu_count()} logical CPUs ({vm})"],
        ["OS", f"{platform.system()} {platform.release()}"],
        ["rustc", sh("rustc --version")],
        ["OpenBLAS (qrenyi)", f"{blas}, core `{qr.get('blas_core')}`, {qr.get('blas_threads')} threads"],
        ["Python peers", ", ".join(f"{k} {v}" for k, v in py.get("versions", {}).items())],
        ["measured", measured],
    ]
    return table(["", ""], rows)


def replace_block(text, name, body):
    pat = re.compile(rf"(<!-- {name}:begin -->\n).*?(<!-- {name}:end -->)", re.S)
    if not pat.search(text):
        text += f"\n<!-- {name}:begin -->\n<!-- {name}:end -->\n"
    return pat.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


def main(argv):
    if not argv or argv[0] == "criterion":
        root = argv[1] if len(argv) > 1 else os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "criterion")
        for k, v in sorted(collect(root).items()):
            print(f"{k}\t{fmt(v)}")
        return 0
    if argv[0] != "doc":
        sys.exit(__doc__)
    doc = argv[1]
    text = open(doc).read() if os.path.exists(doc) else "# Performance\n"
    status = 0
    if "--criterion" in argv:
        name = "criterion"
        if "--criterion-label" in argv:
            name += "-" + argv[argv.index("--criterion-label") + 1]
        text = replace_block(text, name, criterion_md(collect(argv[argv.index("--criterion") + 1])))
    if "--peers" in argv:
        i = argv.index("--peers")
        qr, py = (json.load(open(p)) for p in argv[i + 1:i + 3])
        md, failures = peers_md(qr, py)
        if failures:
            print("peers disagree with qrenyi:\n  " + "\n  ".join(failures), file=sys.stderr)
            status = 1
        suffix = "-" + argv[argv.index("--label") + 1] if "--label" in argv else ""
        text = replace_block(text, "peers" + suffix, md)
        if "--kernel" in argv:
            k = argv.index("--kernel")
            kmd, kfail = kernel_md(argv[k + 1], argv[k + 2])
            if kfail:
                print("kernel estimates disagree:\n  " + "\n  ".join(kfail), file=sys.stderr)
                status = 1
            text = replace_block(text, "kernel" + suffix, kmd)
        text = replace_block(text, "machine" + suffix, machine_md(qr, py, argv[i + 1]))
    with open(doc, "w") as f:
        f.write(text)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
