#!/usr/bin/env python3
"""Before/after of the α-curves from files (issue 14): two qrenyi binaries and the numpy script, in turn.

    curves_ab.py --before OLD_BINARY --after NEW_BINARY [--dims 256,512] [--repeats 3]
                 [--only "sandwiched 16 orders,maximal 16 orders"] OUTDIR

Same inputs, commands and numpy script as `end_to_end.py cli` (whose helpers it imports); per row the
three processes run in turn (before, after, numpy; one warm-up each), so the ratios compare like with
like on a shared machine. Prints a Markdown table (medians; ratios are medians of per-round ratios).
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import end_to_end as e2e  # noqa: E402


def main():
    args = sys.argv[1:]

    def opt(flag, default):
        return e2e.take_option(args, flag, default)

    before = os.path.abspath(opt("--before", "qrenyi-before"))
    after = os.path.abspath(opt("--after", "target/release/qrenyi"))
    dims = [int(x) for x in opt("--dims", "256,512").split(",")]
    repeats = int(opt("--repeats", "3"))
    only = [q.strip() for q in opt("--only", "sandwiched 16 orders,maximal 16 orders").split(",")]
    outdir = args[0]
    data = os.path.join(outdir, "data")
    e2e.write_inputs(data, dims)
    load0 = os.getloadavg()
    rows = []
    for d in dims:
        r, s = e2e.paths(data, d)
        for name in only:
            cmds = [e2e.cli_command(before, name, r, s), e2e.cli_command(after, name, r, s),
                    e2e.numpy_command(name, r, s)]
            outs = [e2e.run_timed(c)[1] for c in cmds]  # warm-up
            vals = [e2e.cli_values(outs[0]), e2e.cli_values(outs[1]), json.loads(outs[2])]
            ts = [[], [], []]
            for _ in range(repeats):
                for k, c in enumerate(cmds):
                    ts[k].append(e2e.run_timed(c)[0])
            row = {"d": d, "quantity": name, "before_s": statistics.median(ts[0]),
                   "after_s": statistics.median(ts[1]), "numpy_s": statistics.median(ts[2]),
                   "numpy_over_before": statistics.median(n / b for b, n in zip(ts[0], ts[2])),
                   "numpy_over_after": statistics.median(n / a for a, n in zip(ts[1], ts[2])),
                   "before_over_after": statistics.median(b / a for b, a in zip(ts[0], ts[1])),
                   "dev_after_numpy": e2e.agree(vals[1], vals[2]),
                   "dev_after_before": e2e.agree(vals[1], vals[0]), "runs": repeats}
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    with open(os.path.join(outdir, "curves_ab.json"), "w") as f:
        json.dump({"loadavg_start": load0, "loadavg_end": load1, "rows": rows}, f, indent=1)
    print(f"load average at start {', '.join(f'{x:.1f}' for x in load0)}, at end {', '.join(f'{x:.1f}' for x in load1)}")
    print()
    print("| d | quantity | before (CLI) | after (CLI) | numpy script | numpy/before | numpy/after | speed-up | max rel. dev. after vs numpy, vs before |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for w in rows:
        print(f"| {w['d']} | {w['quantity']} | {e2e.fmt(w['before_s'])} | {e2e.fmt(w['after_s'])} | {e2e.fmt(w['numpy_s'])} | "
              f"{w['numpy_over_before']:.2f}× | **{w['numpy_over_after']:.2f}×** | {w['before_over_after']:.2f}× | "
              f"{w['dev_after_numpy']:.1e}, {w['dev_after_before']:.1e} |")


if __name__ == "__main__":
    main()
