"""qrenyi.smooth against the CLI's `smooth --json`, the classical Neyman–Pearson value and its
error paths; qrenyi.kernel.gaussian_experiment against `audit gaussian-experiment`."""
import csv
import json
import math

import numpy as np
import pytest

import qrenyi
from qrenyi import kernel, smooth
from conftest import cli_number, random_state, write_state

NUMBERS = ("value", "lower", "upper")


def same_as_cli(got, want):
    """`got.to_dict()` equals the CLI's JSON object `want`: the same keys, the same strings, the
    same numbers (the same program on the same doubles; a relative 1e-9 allows for a different
    BLAS thread count between the two processes)."""
    got = got.to_dict()
    assert set(got) == set(want), (sorted(got), sorted(want))
    for k, v in want.items():
        if k in NUMBERS:
            assert got[k] == pytest.approx(cli_number(v), rel=1e-9, abs=1e-12), (k, got[k], v)
        elif k in ("epsilon", "alpha"):
            assert got[k] == cli_number(v), k
        else:
            assert got[k] == v, (k, got[k], v)


@pytest.fixture(scope="module")
def pairs():
    rng = np.random.default_rng(13)
    return [
        (random_state(rng, 2), random_state(rng, 2)),
        (random_state(rng, 3, rank=2), random_state(rng, 3)),
        (np.diag([0.9, 0.1]), np.diag([0.2, 0.8])),
    ]


@pytest.mark.parametrize("kind,ball", [
    ("hypothesis-testing", None), ("dmax", "purified"), ("dmax", "trace"),
    ("dmax", "trace-unbounded"),
])
@pytest.mark.parametrize("base", ["e", "2"])
def test_quantum_matches_cli(cli, tmp_path, pairs, kind, ball, base):
    for i, (rho, sigma) in enumerate(pairs):
        fr = write_state(tmp_path / f"rho{i}.json", rho)
        fs = write_state(tmp_path / f"sigma{i}.json", sigma)
        eps = 0.1 if i != 1 else 0.05
        args = ["smooth", "--kind", kind, "--epsilon", eps, "--rho", fr, "--sigma", fs,
                "--base", base, "--json"]
        if ball:
            args += ["--ball", ball]
        code, out, err = cli(*args)
        assert code == 0, err
        if kind == "dmax":
            got = smooth.dmax(rho, sigma, eps, ball=ball, base=base)
            assert got.ball == ball
        else:
            got = smooth.hypothesis_testing(rho, sigma, eps, base=base)
            assert got.ball is None
        same_as_cli(got, json.loads(out))
        assert got.lower <= got.value <= got.upper
        assert got.base == base and got.kind == kind and got.epsilon == eps


def test_smooth_renyi_matches_cli(cli):
    p, q, delta = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5], 0.05
    for base in ("e", "10"):
        code, out, err = cli("smooth", "--kind", "smooth-renyi", "--epsilon", delta,
                             "--p", "0.5,0.3,0.2", "--q", "0.2,0.3,0.5", "--alpha", "1.5,3,inf",
                             "--base", base, "--json")
        assert code == 0, err
        want = json.loads(out)
        got = smooth.smooth_renyi(p, q, delta, [1.5, 3.0, math.inf], base=base)
        assert isinstance(got, list) and len(got) == len(want["values"]) == 3
        for r, row in zip(got, want["values"]):
            top = {k: v for k, v in want.items() if k != "values"}
            same_as_cli(r, {**top, **row})
        one = smooth.smooth_renyi(np.array(p), np.array(q), delta, 3.0, base=base)
        assert isinstance(one, smooth.SmoothResult) and one == got[1]


def neyman_pearson(p, q, eps):
    """min Σ q_x t_x over 0 ≤ t ≤ 1 with Σ p_x t_x ≥ 1 − ε (a fractional knapsack: accept the
    outcomes of largest p/q first), as −ln of it."""
    need, beta = 1.0 - eps, 0.0
    for x in sorted(range(len(p)), key=lambda x: -p[x] / q[x]):
        if need <= 0:
            break
        t = min(1.0, need / p[x]) if p[x] > 0 else 0.0
        need -= t * p[x]
        beta += t * q[x]
    return -math.log(beta)


@pytest.mark.parametrize("d,eps", [(2, 0.1), (3, 0.2), (4, 0.05), (5, 0.3)])
def test_commuting_states_neyman_pearson(d, eps):
    rng = np.random.default_rng(100 + d)
    p = rng.dirichlet(np.ones(d))
    q = rng.dirichlet(np.ones(d))
    # the same random unitary basis for both: commuting, not diagonal, complex
    u, _ = np.linalg.qr(rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d)))
    rho = u @ np.diag(p) @ u.conj().T
    sigma = u @ np.diag(q) @ u.conj().T
    want = neyman_pearson(p, q, eps)
    r = smooth.hypothesis_testing(rho, sigma, eps)
    # certified: the exact value lies in the bracket (plus the states' own rounding)
    assert r.lower - 1e-9 <= want <= r.upper + 1e-9, (r, want)
    assert r.width <= 1e-6 * max(1.0, abs(r.value))
    r2 = smooth.hypothesis_testing(rho, sigma, eps, base="2")
    assert r2.value == pytest.approx(r.value / math.log(2), rel=1e-12)


def test_states_and_qobj_like_inputs():
    rho, sigma = np.diag([0.9, 0.1]), np.diag([0.2, 0.8])

    class Obj:
        def __init__(self, m):
            self.m = m

        def full(self):
            return self.m

    a = smooth.dmax(qrenyi.validate(rho), Obj(sigma), 0.1, ball="trace")
    b = smooth.dmax(rho.tolist(), sigma, 0.1, ball="trace")
    assert a == b and a.value == pytest.approx(math.log(4), abs=2e-6)


def test_dmax_balls_order():
    """Purified distance ≥ generalised trace distance, so the purified ε-ball lies inside the
    trace ε-ball, which lies inside the unbounded one: D_max^ε decreases in that order."""
    rng = np.random.default_rng(5)
    rho, sigma = random_state(rng, 3), random_state(rng, 3)
    pur = smooth.dmax(rho, sigma, 0.1)
    tr = smooth.dmax(rho, sigma, 0.1, ball="trace")
    un = smooth.dmax(rho, sigma, 0.1, ball="trace-unbounded")
    assert un.lower <= tr.upper and tr.lower <= pur.upper


@pytest.mark.parametrize("call,msg", [
    (lambda r, s: smooth.hypothesis_testing(r, s, 1.0), "epsilon"),
    (lambda r, s: smooth.hypothesis_testing(r, s, -0.1), "epsilon"),
    (lambda r, s: smooth.dmax(r, s, 0.0), "epsilon"),
    (lambda r, s: smooth.dmax(r, s, float("nan")), "epsilon"),
    (lambda r, s: smooth.dmax(r, s, 0.1, ball="diamond"), "unknown ball"),
    (lambda r, s: smooth.dmax(r, s, 0.1, base="3"), "base"),
    (lambda r, s: smooth.dmax(r, np.eye(3) / 3, 0.1), "dimension"),
    (lambda r, s: smooth.dmax(np.eye(2), s, 0.1), "cannot parse rho: trace is 2"),
    (lambda r, s: smooth.hypothesis_testing(r, np.stack([s, s]), 0.1), "sigma"),
    (lambda r, s: smooth.smooth_renyi([0.5, 0.5], [0.5, 0.5], 0.1, 1.0), "α"),
    (lambda r, s: smooth.smooth_renyi([0.5, 0.5], [0.5, 0.5], 0.1, 0.5), "α"),
    (lambda r, s: smooth.smooth_renyi([0.5, 0.5], [0.5, 0.5], 1.0, 2.0), "delta"),
    (lambda r, s: smooth.smooth_renyi([0.5, 0.6], [0.5, 0.5], 0.1, 2.0), "1.1000"),
    (lambda r, s: smooth.smooth_renyi([0.5, 0.5], [1.0], 0.1, 2.0), "dimension"),
    (lambda r, s: smooth.smooth_renyi(0.5, [1.0], 0.1, 2.0), "p"),
    (lambda r, s: smooth.smooth_renyi([0.5, 0.5], [0.5, 0.5], 0.1, []), "alpha"),
])
def test_errors(call, msg):
    rho, sigma = np.diag([0.9, 0.1]), np.diag([0.2, 0.8])
    with pytest.raises(qrenyi.QrenyiError, match=msg):
        call(rho, sigma)


@pytest.mark.parametrize("args,py", [
    (["--kind", "dmax", "--epsilon", "1.5"], lambda r, s: smooth.dmax(r, s, 1.5)),
    (["--kind", "hypothesis-testing", "--epsilon", "-1"],
     lambda r, s: smooth.hypothesis_testing(r, s, -1.0)),
    (["--kind", "dmax", "--epsilon", "0.1", "--ball", "cube"],
     lambda r, s: smooth.dmax(r, s, 0.1, ball="cube")),
])
def test_same_message_as_the_cli(cli, tmp_path, args, py):
    rho, sigma = np.diag([0.9, 0.1]), np.diag([0.2, 0.8])
    fr, fs = write_state(tmp_path / "r.json", rho), write_state(tmp_path / "s.json", sigma)
    code, out, err = cli("smooth", *args, "--rho", fr, "--sigma", fs)
    assert code == 2
    with pytest.raises(qrenyi.QrenyiError) as e:
        py(rho, sigma)
    assert err.strip() == f"error: {e.value}"


def test_releases_the_gil():
    """Two threads solving at once both finish with the single-thread answers."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(8)
    pairs = [(random_state(rng, 3), random_state(rng, 3)) for _ in range(4)]
    alone = [smooth.dmax(r, s, 0.1).to_dict() for r, s in pairs]
    with ThreadPoolExecutor(4) as ex:
        together = list(ex.map(lambda rs: smooth.dmax(*rs, 0.1).to_dict(), pairs))
    for a, b in zip(alone, together):
        assert b["lower"] <= a["upper"] + 1e-9 and a["lower"] <= b["upper"] + 1e-9


def read_csv(path):
    with open(path) as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


@pytest.mark.parametrize("base", ["e", "2"])
def test_gaussian_experiment_matches_cli(cli, tmp_path, base):
    flags = dict(dim=3, n=[20, 30], runs=2, alpha=[2, 6], lambdas=[0.001, 0.05], seed=7)
    code, out, err = cli("audit", "gaussian-experiment", "--dim", 3, "--n", "20,30", "--runs", 2,
                         "--alpha", "2,6", "--lambdas", "0.001,0.05", "--seed", 7,
                         "--base", base, "--out", tmp_path / "cli")
    assert code == 0, err
    r = kernel.gaussian_experiment(**flags, out=tmp_path / "py", base=base)
    unit = {"e": "nats", "2": "bits"}[base]
    assert f"renyi_exact_{unit}" in r.curves[0] and f"divergence_{unit}" in r.runs[0]
    for name, rows in (("runs.csv", r.runs), ("curves.csv", r.curves)):
        want = read_csv(tmp_path / "cli" / name)
        assert len(rows) == len(want) > 0  # runs.csv adds each mechanism's DP λ values
        for got, w in zip(rows, want):
            assert set(got) == set(w)
            for k in w:
                assert got[k] == pytest.approx(w[k], rel=1e-12, abs=1e-15), (name, k)
        assert (tmp_path / "py" / name).read_text() == (tmp_path / "cli" / name).read_text()
    assert r.summary == (tmp_path / "cli" / "summary.md").read_text()
    assert str(tmp_path / "py" / "runs.csv") in r.files


def test_gaussian_experiment_errors():
    with pytest.raises(qrenyi.QrenyiError, match="sample sizes must be integers"):
        kernel.gaussian_experiment(dim=2, n=[1], runs=1, alpha=[2], lambdas=[0.01])
    with pytest.raises(qrenyi.QrenyiError, match="sample sizes must be integers"):
        kernel.gaussian_experiment(dim=2, n=[20.5], runs=1, alpha=[2], lambdas=[0.01])
    with pytest.raises(qrenyi.QrenyiError):
        kernel.gaussian_experiment(dim=0, n=[20], runs=1, alpha=[2], lambdas=[0.01])
    with pytest.raises(qrenyi.QrenyiError):
        kernel.gaussian_experiment(dim=2, n=[20], runs=1, alpha=[2], lambdas=[-1.0])


@pytest.mark.parametrize("kind,ball", [
    ("hypothesis-testing", None), ("dmax", "purified"), ("dmax", "trace"),
    ("dmax", "trace-unbounded"),
])
def test_certified_infinity_matches_cli(cli, tmp_path, kind, ball):
    """docs/smooth.md, "Certified +∞": orthogonal states are +∞ at every end, in Python and in
    the CLI's JSON ("inf"), in every base."""
    rng = np.random.default_rng(2113)
    u, _ = np.linalg.qr(rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3)))
    rho = u @ np.diag([0.7, 0.3, 0.0]) @ u.conj().T
    sigma = u @ np.diag([0.0, 0.0, 1.0]) @ u.conj().T
    fr, fs = write_state(tmp_path / "rho.json", rho), write_state(tmp_path / "sigma.json", sigma)
    for base in ("e", "2"):
        args = ["smooth", "--kind", kind, "--epsilon", 0.2, "--rho", fr, "--sigma", fs,
                "--base", base, "--json"]
        if ball:
            args += ["--ball", ball]
        code, out, err = cli(*args)
        assert code == 0, err
        want = json.loads(out)
        assert want["lower"] == want["upper"] == want["value"] == "inf"
        if kind == "dmax":
            got = smooth.dmax(rho, sigma, 0.2, ball=ball, base=base)
        else:
            got = smooth.hypothesis_testing(rho, sigma, 0.2, base=base)
        same_as_cli(got, want)
        assert got.lower == got.value == got.upper == math.inf


def test_smooth_renyi_certified_infinity():
    """P(Q = 0) = 0.2 > δ: +∞ at every end; δ above it: not +∞."""
    p, q = [0.2, 0.3, 0.5], [0.6, 0.4, 0.0]
    for r in smooth.smooth_renyi(p, q, 0.1, [1.5, 3.0, math.inf]):
        assert r.lower == r.value == r.upper == math.inf
    try:
        r = smooth.smooth_renyi(p, q, 0.6, 2.0)
        assert r.upper < math.inf
    except qrenyi.QrenyiError:
        pass  # the solver may fail to certify near a boundary; it must not claim +∞
