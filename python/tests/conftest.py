"""Shared helpers: the repository's reference fixtures and the `qrenyi` CLI binary."""
import json
import os
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))  # `from conftest import …`

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "tests" / "reference"


def cli_path():
    """The CLI built by `cargo test --release` / `cargo build --release` (or $QRENYI_CLI)."""
    env = os.environ.get("QRENYI_CLI")
    if env:
        return pathlib.Path(env)
    for profile in ("release", "debug"):
        p = ROOT / "target" / profile / "qrenyi"
        if p.exists():
            return p
    return None


@pytest.fixture(scope="session")
def cli():
    """Run the CLI: cli(*args) -> (exit code, stdout, stderr). Skips when it is not built."""
    path = cli_path()
    if path is None:
        pytest.skip("the qrenyi CLI is not built (cargo build --release); set QRENYI_CLI")

    def run(*args):
        p = subprocess.run([str(path), *map(str, args)], capture_output=True, text=True,
                           timeout=600)
        return p.returncode, p.stdout, p.stderr

    return run


def cli_number(v):
    """A number from the CLI's JSON ("inf"/"-inf" strings for infinities)."""
    if v == "inf":
        return float("inf")
    if v == "-inf":
        return float("-inf")
    return v


def matrix(m):
    """A fixture matrix {"re": [[…]], "im": [[…]]} as complex128."""
    return np.array(m["re"], dtype=float) + 1j * np.array(m["im"], dtype=float)


@pytest.fixture(scope="session")
def divergence_cases():
    with open(REFERENCE / "divergences.json") as f:
        return json.load(f)["quantum"]


def write_state(path, m):
    """Save a complex matrix as the CLI's JSON matrix format."""
    m = np.asarray(m, dtype=complex)
    with open(path, "w") as f:
        json.dump({"re": m.real.tolist(), "im": m.imag.tolist()}, f)
    return path


def random_state(rng, d, rank=None):
    """ρ = G G† / Tr with G a d × rank complex Ginibre matrix."""
    g = rng.normal(size=(d, rank or d)) + 1j * rng.normal(size=(d, rank or d))
    m = g @ g.conj().T
    return m / np.trace(m).real
