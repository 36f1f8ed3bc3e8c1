"""qrenyi.kernel against the CLI's kernel-divergence and audit."""
import json

import numpy as np
import pytest

from qrenyi import kernel
from conftest import cli_number


@pytest.fixture
def samples(tmp_path):
    rng = np.random.default_rng(21)
    x = rng.normal(size=(120, 2))
    y = rng.normal(size=(100, 2)) + 0.3
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    return x, y, tmp_path / "x.npy", tmp_path / "y.npy"


def same(got, want):
    got = got.to_dict()
    assert set(got) == set(want)
    for k, v in want.items():
        if isinstance(v, dict):
            assert got[k] == {kk: cli_number(vv) if isinstance(vv, str) and kk != "kind" else vv for kk, vv in v.items()}, k
        elif isinstance(v, str) and k not in ("kernel", "hypothesis", "method"):
            assert got[k] == cli_number(v), k
        else:
            assert got[k] == v, (k, got[k], v)


@pytest.mark.parametrize("alpha,lam,kern,bw", [
    (2.0, 1e-3, "rbf", "median"), (0.5, 0.0, "laplace", "1.5"), ("inf", 1e-2, "imq", "median"),
])
def test_divergence_matches_cli(cli, samples, alpha, lam, kern, bw):
    x, y, fx, fy = samples
    code, out, err = cli("kernel-divergence", "--x", fx, "--y", fy, "--alpha", alpha, "--lambda",
                         lam, "--kernel", kern, "--bandwidth", bw, "--json")
    assert code == 0, err
    got = kernel.divergence(x, y, float(alpha), lam, kernel=kern,
                            bandwidth=bw if bw == "median" else float(bw))
    want = json.loads(out)
    (row,) = want.pop("results")  # the CLI takes a list of orders (issue 11): one row here
    want.update(alpha=row["alpha"], value=row["value"])
    same(got, want)


def audit_numbers(out):
    """The CLI's audit JSON without the explanations it adds for people (issue 11)."""
    (want,) = json.loads(out)["results"]  # the CLI takes a list of orders (issue 11): one here
    for k in ("decision_rule", "interval_note", "base"):
        want.pop(k, None)
    return want


@pytest.mark.parametrize("hyp", [
    ["--epsilon", "1.0", "--delta", "1e-5"], ["--rdp-tau", "0.5"], ["--tau", "0.05"],
])
def test_audit_matches_cli(cli, samples, hyp):
    x, y, fx, fy = samples
    lam = "auto" if "--epsilon" in hyp else "0.001"
    code, out, err = cli("audit", "--x", fx, "--y", fy, "--alpha", "2", "--lambda", lam, *hyp, "--json")
    assert code in (0, 1), err
    kw = {hyp[i][2:].replace("-", "_"): float(hyp[i + 1]) for i in range(0, len(hyp), 2)}
    got = kernel.audit(x, y, 2.0, lam if lam == "auto" else float(lam), **kw)
    same(got, audit_numbers(out))
    assert code == (1 if got.violation else 0)
    code, out, err = cli("audit", "--x", fx, "--y", fy, "--alpha", "2", "--lambda", lam, *hyp,
                         "--method", "subsample", "--replicates", "30", "--seed", "4", "--json")
    got = kernel.audit(x, y, 2.0, lam if lam == "auto" else float(lam), method="subsample",
                       replicates=30, seed=4, **kw)
    same(got, audit_numbers(out))


def test_one_dimensional_samples_and_lists():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=50), rng.normal(size=40)
    a = kernel.divergence(x, y, 2.0, 1e-3)
    b = kernel.divergence(x[:, None].tolist(), y[:, None], 2.0, 1e-3)
    assert a == b and a.n == 50 and a.m == 40
    # D̃_α(Σ̂‖Σ̂ + λI) ≤ 0 for λ > 0 (σ grows), = 0 at λ = 0
    assert kernel.divergence(x, x, 2.0, 1e-3).value < 0
    assert kernel.divergence(x, x, 2.0, 0.0).value == pytest.approx(0.0, abs=1e-6)
