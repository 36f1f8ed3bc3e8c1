#!/usr/bin/env python3
"""Collect criterion medians into one JSON file and print them as a table.

Usage: python3 benches/report.py [CRITERION_DIR] [--json OUT.json] [--filter SUBSTRING]

CRITERION_DIR defaults to $CARGO_TARGET_DIR/criterion, else target/criterion. Each benchmark's
median (criterion's `median.point_estimate`, nanoseconds) is read from `new/estimates.json`.
"""
import json
import os
import sys


def collect(root):
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        if os.path.basename(dirpath) != "new" or "benchmark.json" not in files:
            continue
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            meta = json.load(f)
        with open(os.path.join(dirpath, "estimates.json")) as f:
            est = json.load(f)
        out[meta["full_id"]] = {
            "median_ns": est["median"]["point_estimate"],
            "lo_ns": est["median"]["confidence_interval"]["lower_bound"],
            "hi_ns": est["median"]["confidence_interval"]["upper_bound"],
            "throughput": meta.get("throughput"),
        }
    return out


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    opts = dict(zip(argv[::1], argv[1::1]))
    default = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "criterion")
    root = args[0] if args and args[0] not in opts.values() else default
    data = collect(root)
    if "--json" in opts:
        with open(opts["--json"], "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
    flt = opts.get("--filter", "")
    for key in sorted(data):
        if flt in key:
            print(f"{key}\t{fmt(data[key]['median_ns'])}")


if __name__ == "__main__":
    main(sys.argv[1:])
