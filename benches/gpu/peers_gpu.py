"""GPU peers for docs/PERFORMANCE.md ("GPU"): the PyTorch five-liner (complex128 on the GPU,
host-to-device copies included) and numpy stacks, sandwiched Rényi divergence, on the same
machine as qrenyi's `--backend cuda` runs. Prints one JSON object per measurement.

    python3 benches/gpu/peers_gpu.py [--quick] > peers_gpu.jsonl
    python3 benches/gpu/peers_gpu.py --save DIR D...   # states for `benches/gpu.rs`, + torch values
"""
import json
import os
import sys
import time

import numpy as np
import torch


def random_state(rng, d, rank=None):
    """Hilbert-Schmidt random density matrix (Ginibre G G†, normalised)."""
    r = rank or d
    g = rng.standard_normal((d, r)) + 1j * rng.standard_normal((d, r))
    m = g @ g.conj().T
    return m / np.trace(m).real


def five_liner(rho, sigma, alpha):
    """The issue's torch five-liner: eigh(σ), P = σ^{(1−α)/2α}, eigvalsh(PρP), Rényi value."""
    r, s = torch.from_numpy(rho).cuda(), torch.from_numpy(sigma).cuda()
    mu, v = torch.linalg.eigh(s)
    p = (v * mu.clamp_min(0).pow((1 - alpha) / (2 * alpha))) @ v.mH
    nu = torch.linalg.eigvalsh(p @ r @ p).clamp_min(0)
    return (torch.log((nu ** alpha).sum()) / (alpha - 1)).item()


def five_liner_batch(rho, sigma, alpha):
    """The same on a stack (N, d, d), every pair."""
    r, s = torch.from_numpy(rho).cuda(), torch.from_numpy(sigma).cuda()
    mu, v = torch.linalg.eigh(s)
    p = (v * mu.clamp_min(0).pow((1 - alpha) / (2 * alpha)).unsqueeze(-2)) @ v.mH
    nu = torch.linalg.eigvalsh(p @ r @ p).clamp_min(0)
    return (torch.log((nu ** alpha).sum(-1)) / (alpha - 1)).cpu().numpy()


def numpy_batch(rho, sigma, alpha):
    mu, v = np.linalg.eigh(sigma)
    p = (v * np.clip(mu, 0, None)[..., None, :] ** ((1 - alpha) / (2 * alpha))) @ np.conj(
        np.swapaxes(v, -1, -2))
    nu = np.clip(np.linalg.eigvalsh(p @ rho @ p), 0, None)
    return np.log((nu ** alpha).sum(-1)) / (alpha - 1)


def timed(f, reps):
    f()  # warm-up (module load, handles, workspace)
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        torch.cuda.synchronize()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def gpu_state(gen, d):
    """Hilbert-Schmidt random density matrix, drawn and multiplied on the GPU (fast at d = 8192)."""
    g = torch.randn(d, d, dtype=torch.complex128, device="cuda", generator=gen)
    m = g @ g.mH
    m = 0.5 * (m + m.mH)
    return (m / torch.diagonal(m).real.sum()).cpu().numpy()


def save(folder, dims):
    gen = torch.Generator(device="cuda").manual_seed(7)
    for d in dims:
        rho, sigma = gpu_state(gen, d), gpu_state(gen, d)
        np.save(f"{folder}/rho_{d}.npy", rho)
        np.save(f"{folder}/sigma_{d}.npy", sigma)
        print(json.dumps({"what": "torch_value", "d": d, "alpha": 2.0,
                          "value": five_liner(rho, sigma, 2.0)}), flush=True)


def main():
    if "--save" in sys.argv:
        i = sys.argv.index("--save")
        save(sys.argv[i + 1], [int(a) for a in sys.argv[i + 2:]])
        return
    quick = "--quick" in sys.argv
    rng = np.random.default_rng(1)
    dev = torch.cuda.get_device_name(0)
    alphas = list(np.linspace(1.1, 4.0, 16))
    dims = [256, 512, 1024, 2048] if quick else [256, 512, 1024, 2048, 4096, 8192]
    if "PEERS_DIMS" in os.environ:
        dims = [int(x) for x in os.environ["PEERS_DIMS"].split()]
    for d in dims:
        rho, sigma = random_state(rng, d), random_state(rng, d)
        reps = 5 if d <= 1024 else (3 if d <= 4096 else 1)
        t1 = timed(lambda: five_liner(rho, sigma, 2.0), reps)
        out = {"what": "torch_five_liner", "d": d, "orders": 1, "s": t1, "device": dev}
        print(json.dumps(out), flush=True)
        if d <= 4096:
            tc = timed(lambda: [five_liner(rho, sigma, a) for a in alphas], 1)
            print(json.dumps({"what": "torch_five_liner", "d": d, "orders": 16, "s": tc,
                              "device": dev}), flush=True)
        # reference value for qrenyi's cross-check
        val = five_liner(rho, sigma, 2.0)
        print(json.dumps({"what": "torch_value", "d": d, "alpha": 2.0, "value": val}), flush=True)
    for d, n in [(2, 10000), (4, 10000), (16, 2000), (64, 500)]:
        rho = np.stack([random_state(rng, d) for _ in range(n)])
        sigma = np.stack([random_state(rng, d) for _ in range(n)])
        tt = timed(lambda: five_liner_batch(rho, sigma, 2.0), 5)
        tn = timed(lambda: numpy_batch(rho, sigma, 2.0), 3)
        print(json.dumps({"what": "batch", "d": d, "n": n, "torch_s": tt, "numpy_s": tn,
                          "device": dev}), flush=True)


if __name__ == "__main__":
    main()
