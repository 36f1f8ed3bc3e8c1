#!/usr/bin/env python3
"""Reference values for qrenyi's `exp_lanes::exp` / `ln` (tests/exp_lanes.rs; docs/divergences.md,
"exp_lanes"): arguments and the correctly rounded e^x and ln x, computed with mpmath at 60 significant
digits and rounded to the nearest double, stored as 16-digit hex bit patterns (exact).

Arguments (fixed seed, Python `random`): e^x over the whole range, next to the reduction boundaries
(k ± 1/2) ln 2, tiny |x|, and the Petz far form's exponents α ℓ − c and (1 − α) m − c' for
α = 1e-3 … 1e6 and eigenvalues 1e-16 … 1 (α ∈ {1e-3, 1 ± 1e-9, 1e6} included); ln x over the far
form's shifted sums 1e-250 … 16, near 1, and random positive doubles.

    python3 tests/reference/generate_exp_lanes.py   (writes tests/reference/exp_lanes.json)
"""
import json
import math
from fractions import Fraction
import pathlib
import random
import struct

import mpmath

mpmath.mp.dps = 60


def bits(x):
    return struct.pack(">d", x).hex()


def nearest(v):
    """The double nearest to the mpmath real v, rounded once: float() of the exact binary fraction
    (mpmath's own float() rounds twice for subnormal results, review22)."""
    x = mpmath.mpf(v)
    if not mpmath.isfinite(x) or x == 0:
        return float(x)
    sign, man, exp, _ = x._mpf_
    q = Fraction(int(man)) * Fraction(2) ** int(exp)
    return float(-q if sign else q)


def main():
    rng = random.Random(2022)
    ln2 = math.log(2)
    xs = []
    for n in range(3000):
        kind = n % 6
        if kind == 0:
            x = rng.uniform(-745.0, 709.7)
        elif kind == 1:
            x = rng.uniform(-1.0, 1.0)
        elif kind == 2:
            x = rng.uniform(-1.0, 1.0) * 10.0 ** rng.uniform(-300, 0)
        elif kind == 3:
            x = (rng.randrange(-1075, 1024) + 0.5) * ln2 * (1 + rng.uniform(-1e-12, 1e-12))
        else:
            a = [1e-3, 1 - 1e-9, 1 + 1e-9, 1e6, 10.0 ** rng.uniform(-3, 6)][n % 5]
            l1, l2 = -rng.uniform(0, 37), -rng.uniform(0, 37)
            if kind == 4:
                x = a * l1 - a * max(l1, l2)
            else:
                c = 1.0 - a
                x = c * l1 - max(c * l1, c * l2)
        if -745.0 < x < 709.7:
            xs.append(x)
    ys = []
    for n in range(3000):
        kind = n % 3
        if kind == 0:
            y = 10.0 ** rng.uniform(-250, 1.2)
        elif kind == 1:
            y = 1.0 + rng.uniform(-1.0, 1.0) * 10.0 ** rng.uniform(-16, -0.5)
        else:
            y = struct.unpack("<d", struct.pack("<Q", rng.randrange(1, 0x7FF0000000000000)))[0]
        if y != 1.0:
            ys.append(y)
    exp = [[bits(x), bits(nearest(mpmath.exp(mpmath.mpf(x))))] for x in xs]
    ln = [[bits(y), bits(nearest(mpmath.log(mpmath.mpf(y))))] for y in ys]
    # self-checks: the mpmath values agree with the platform's to a few ulps
    for x_hex, e_hex in exp[:200]:
        x = struct.unpack(">d", bytes.fromhex(x_hex))[0]
        e = struct.unpack(">d", bytes.fromhex(e_hex))[0]
        assert e == 0.0 or abs(e - math.exp(x)) <= 4 * math.ulp(e), (x, e)
    out = {
        "description": "qrenyi exp_lanes reference: [argument bits, correctly rounded value bits]",
        "generator": "tests/reference/generate_exp_lanes.py (mpmath, 60 digits)",
        "exp": exp,
        "ln": ln,
    }
    path = pathlib.Path(__file__).resolve().parent / "exp_lanes.json"
    path.write_text(json.dumps(out, indent=0) + "\n")
    print(f"{len(exp)} exp and {len(ln)} ln values written to {path}")


if __name__ == "__main__":
    main()
