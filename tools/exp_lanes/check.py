#!/usr/bin/env python3
"""The ulp error of qrenyi's `exp_lanes` and `ln_lanes` against mpmath (docs/divergences.md,
"exp_lanes").

    cargo run --release --example exp_lanes_dump -- /tmp/exp_lanes.bin 2000000
    python3 tools/exp_lanes/check.py /tmp/exp_lanes.bin

Each record of the dump is (kind, x, y), kind 0: y = exp(x), kind 1: y = ln(x). For each, the exact
value at 60 significant digits, the ulp of the double nearest to it (subnormal results: 2^-1074)
and (y − exact)/ulp. Prints the largest error per function and argument range; exits 1 if an exp
result is off by more than the proven 1.5 ulp (normal results; subnormal ones: 1.5 × 2^-1074), a
ln result by more than 1 ulp (0.73 measured; docs/divergences.md, "exp_lanes"), or an overflow/underflow/special value is wrong.
Needs only Python 3 + mpmath.
"""
import struct
import sys

import mpmath

BOUND = {0: 1.5, 1: 1.0}
mpmath.mp.dps = 60
TINY = mpmath.mpf(2) ** -1022
SUB_ULP = mpmath.mpf(2) ** -1074
MAX = mpmath.mpf(sys.float_info.max)


def ulp_of(v):
    """The ulp of the double nearest to the real v ≠ 0 (normal range)."""
    _, e = mpmath.frexp(abs(v))  # |v| = m 2^e, 0.5 <= m < 1
    return mpmath.mpf(2) ** (e - 53)


def main(path):
    data = open(path, "rb").read()
    n = len(data) // 24
    worst = {}
    bad = 0
    counts = {0: 0, 1: 0}
    for i in range(n):
        kind, x, y = struct.unpack_from("<ddd", data, 24 * i)
        kind = int(kind)
        counts[kind] += 1
        if kind == 0:
            e = mpmath.exp(mpmath.mpf(x))
            if e > MAX * (1 + mpmath.mpf(2) ** -54):
                if y != float("inf"):
                    print(f"exp({x!r}): expected +inf, got {y!r}")
                    bad += 1
                continue
            if e < TINY:
                err = float(abs(mpmath.mpf(y) - e) / SUB_ULP)
                key = (0, "subnormal result (units of 2^-1074)")
            else:
                err = abs(float((mpmath.mpf(y) - e) / ulp_of(e)))
                key = (0, "x < -1" if x < -1 else ("|x| <= 1" if x <= 1 else "x > 1"))
        else:
            if x == 1.0:
                if y != 0.0:
                    print(f"ln(1) = {y!r}")
                    bad += 1
                continue
            e = mpmath.log(mpmath.mpf(x))
            err = abs(float((mpmath.mpf(y) - e) / ulp_of(e)))
            key = (1, "x < 2^-1022" if x < 2.0**-1022 else ("|x - 1| < 0.5" if abs(x - 1) < 0.5 else "other x"))
        w = worst.get(key, (0.0, None))
        if err > w[0]:
            worst[key] = (err, x)
        if err > BOUND[kind]:
            bad += 1
    print(f"{counts[0]} exp and {counts[1]} ln points")
    for (kind, rng), (err, x) in sorted(worst.items()):
        name = "exp" if kind == 0 else "ln"
        print(f"  {name} {rng}: largest error {err:.4f} ulp (at x = {x!r})")
    if bad:
        print(f"FAILED: {bad} values beyond the bounds {BOUND}")
        return 1
    print(f"all within the bounds (exp {BOUND[0]} ulp, ln {BOUND[1]} ulp)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
