#!/usr/bin/env python3
"""numpy peer for qrenyi's kernel Renyi divergence: seed 002's non-symmetric formulation.

    python3 benches/peers/kernel_paper.py --dir DIR --sizes 500,1000,2000 [--alpha 2] [--lambda 0.003]

Reads DIR/x_<n>.npy, DIR/y_<n>.npy (written by
`cargo run --release --example kernel_timing -- --write-npy DIR`), and for each n times the
formulation of seed 002 (Proposition 8 and its code): with the joint Gram matrix K of X u Y,
A_P = D_P K and A_Q = D_Q K + lam I (2n x 2n, non-symmetric), A_Q^{(1-a)/(2a)} from a general
eigendecomposition (numpy.linalg.eig) and the inverse of its eigenvector matrix, then the
eigenvalues of A_Q^{g/2} A_P A_Q^{g/2} (a second general eigendecomposition), and
D = ln(sum mu^a) / (a - 1).  RBF kernel exp(-|x-y|^2/b^2), b = median distance between X and Y.
One JSON line per size: seconds (Gram, rest, total) and the value.  Needs numpy (pip install numpy).
"""

import argparse
import json
import time

import numpy as np


def sq_dists(a, b):
    d = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T
    return np.maximum(d, 0.0)


def paper_krd(x, y, bw, alpha, lam):
    n, m = len(x), len(y)
    z = np.vstack([x, y])
    t0 = time.perf_counter()
    k = np.exp(-sq_dists(z, z) / bw**2)
    t1 = time.perf_counter()
    dp = np.concatenate([np.full(n, 1.0 / n), np.zeros(m)])
    dq = np.concatenate([np.zeros(n), np.full(m, 1.0 / m)])
    ap = dp[:, None] * k
    aq = dq[:, None] * k + lam * np.eye(n + m)
    g = (1.0 - alpha) / (2.0 * alpha)
    w, v = np.linalg.eig(aq)
    pw = (v * (w.astype(complex) ** g)) @ np.linalg.inv(v)
    inter = pw @ ap @ pw
    mu = np.linalg.eigvals(inter)
    val = np.log(np.sum(mu**alpha)).real / (alpha - 1.0)
    t2 = time.perf_counter()
    return val, t1 - t0, t2 - t1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--sizes", default="500,1000,2000")
    p.add_argument("--alpha", type=float, default=2.0)
    p.add_argument("--lambda", dest="lam", type=float, default=0.003)
    a = p.parse_args()
    for n in [int(s) for s in a.sizes.split(",")]:
        x = np.load(f"{a.dir}/x_{n}.npy")
        y = np.load(f"{a.dir}/y_{n}.npy")
        bw = float(np.median(np.sqrt(sq_dists(x, y))))
        val, tg, tr = paper_krd(x, y, bw, a.alpha, a.lam)
        print(json.dumps({"n": n, "bandwidth": bw, "gram_s": round(tg, 4), "rest_s": round(tr, 4),
                          "total_s": round(tg + tr, 4), "value": float(val),
                          "numpy": np.__version__}), flush=True)


if __name__ == "__main__":
    main()
