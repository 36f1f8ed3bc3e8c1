"""qrenyi.privacy against the CLI (same numbers) and independent formulas."""
import json
import math

import numpy as np
import pytest

from qrenyi import privacy
from conftest import cli_number, write_state


def same(py, cli_json):
    """A privacy Result's dict equals the CLI's JSON ("inf" strings ↔ math.inf)."""
    d = py.to_dict() if hasattr(py, "to_dict") else py
    assert set(d) == set(cli_json), (d, cli_json)
    for k, v in cli_json.items():
        if isinstance(v, (str, float, int)) and not isinstance(v, bool):
            v = cli_number(v)
        if k == "cover":
            v = [tuple(cli_number(x) for x in c) for c in v]
        assert d[k] == v, (k, d[k], v)


def test_result_objects():
    r = privacy.zcdp_to_dp(0.5, delta=1e-6)
    assert r.epsilon == r["epsilon"] == r.to_dict()["epsilon"]
    assert set(r.to_dict()) == {"epsilon", "alpha", "base"} and r.base == "e"
    with pytest.raises(AttributeError):
        r.nothing


@pytest.mark.parametrize("rho,xi,flag,value", [
    (0.5, 0.0, "--delta", 1e-6), (0.5, 0.0, "--epsilon", 3.0), (0.01, 0.1, "--delta", 1e-9),
    (2.0, 0.0, "--epsilon", 0.0),
])
def test_convert_zcdp_matches_cli(cli, rho, xi, flag, value):
    code, out, err = cli("convert", "zcdp", "--zcdp-rho", rho, "--xi", xi, flag, value, "--json")
    assert code == 0, err
    kw = {flag[2:]: value}
    same(privacy.zcdp_to_dp(rho, xi, **kw), json.loads(out))
    code, out, err = cli("convert", "zcdp", "--zcdp-rho", rho, "--xi", xi, flag, value, "--base", "2", "--json")
    assert code == 0, err
    same(privacy.zcdp_to_dp(rho, xi, base="2", **kw), json.loads(out))


@pytest.mark.parametrize("alpha,tau,flag,value", [
    (2.0, 0.1, "--delta", 1e-5), (8.0, 0.5, "--epsilon", 1.0), (1.5, 0.01, "--delta", 1e-3),
])
def test_convert_rdp_matches_cli(cli, alpha, tau, flag, value):
    code, out, err = cli("convert", "rdp", "--alpha", alpha, "--tau", tau, flag, value, "--json")
    assert code == 0, err
    same(privacy.rdp_to_dp(alpha, tau, **{flag[2:]: value}), json.loads(out))


def test_compose_matches_cli(cli):
    for eps, delta, k, dt, base in [(0.1, 1e-6, 100, 1e-4, "e"), (1.0, 0.0, 10, None, "e"),
                                    (0.01, 0.0, 1000, 1e-5, "2")]:
        args = ["compose", "--epsilon", eps, "--delta", delta, "--k", k, "--base", base, "--json"]
        if dt is not None:
            args += ["--delta-total", dt]
        code, out, err = cli(*args)
        assert code == 0, err
        want = json.loads(out)
        got = privacy.compose(eps, k, delta, dt, base=base).to_dict()
        assert set(got) == set(want)
        assert got["tightest"] == want["tightest"] and got["delta_total"] == want["delta_total"]
        assert got["base"] == want["base"] == base
        for g, w in zip(got["bounds"], want["bounds"]):
            w = {kk: (cli_number(vv) if isinstance(vv, str) and kk != "name" and kk != "source" and kk != "note" else vv) for kk, vv in w.items()}
            assert g == w


def test_mechanisms():
    scipy_stats = pytest.importorskip("scipy.stats", reason="scipy not installed")
    g = privacy.gaussian(2.0, 1.0)
    assert g.name == "gaussian" and g.to_dict()["zcdp_rho"] == pytest.approx(0.125, rel=1e-15)
    assert g.rdp(3.0) == pytest.approx(3 * 0.125, rel=1e-14)
    # exact Gaussian profile (Balle & Wang 2018): Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ)
    for eps in [0.0, 0.5, 1.0, 2.0]:
        phi = scipy_stats.norm.cdf
        want = phi(0.25 - eps * 2.0) - math.exp(eps) * phi(-0.25 - eps * 2.0)
        assert g.delta(eps) == pytest.approx(want, rel=1e-9, abs=1e-15)
        assert g.delta(eps) >= want  # rounded up
    c = privacy.calibrate_gaussian(1.0, 1e-5)
    assert c.delta(1.0) <= 1e-5 and privacy.gaussian(c.to_dict()["sigma"] * 0.999).delta(1.0) > 1e-5
    assert c.epsilon(1e-5) <= 1.0 + 1e-6
    lap = privacy.laplace(2.0)
    assert lap.to_dict()["pure_epsilon"] == 0.5 and lap.rdp(math.inf) == 0.5 and lap.delta(0.5) == 0.0
    # Laplace profile: δ(ε) = 1 − e^{(ε − ε₀)/2}
    assert lap.delta(0.2) == pytest.approx(1 - math.exp((0.2 - 0.5) / 2), rel=1e-12)
    rr = privacy.randomized_response(math.log(3))
    assert rr.delta(0.0) == pytest.approx(0.5, rel=1e-12)  # TV distance of (3/4, 1/4) and (1/4, 3/4)
    assert rr.rdp(math.inf) == pytest.approx(math.log(3), rel=1e-12)
    assert "randomized_response" in repr(rr)
    assert privacy.pure_to_zcdp(2.0).rho == 2.0
    assert privacy.compose_zcdp([(0.1, 0.2), (0.0, 0.3)]).to_dict() == pytest.approx({"xi": 0.1, "rho": 0.5})


@pytest.fixture
def neighbours(tmp_path):
    rng = np.random.default_rng(4)
    g = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    rho = g @ g.conj().T
    rho = 0.5 * rho / np.trace(rho).real + 0.5 * np.eye(3) / 3
    sigma = np.eye(3) / 3
    return rho, sigma, write_state(tmp_path / "r.json", rho), write_state(tmp_path / "s.json", sigma)


def test_quantum_dp_matches_cli(cli, neighbours):
    rho, sigma, a, b = neighbours
    for flag, value in [("--epsilon", 0.1), ("--delta", 1e-3), ("--epsilon", 0.0)]:
        code, out, err = cli("dp", "--rho", a, "--sigma", b, flag, value, "--json")
        assert code == 0, err
        same(privacy.quantum_dp(rho, sigma, **{flag[2:]: value}), json.loads(out))
        code, out, err = cli("dp", "--rho", a, "--sigma", b, flag, value, "--base", "10", "--json")
        assert code == 0, err
        same(privacy.quantum_dp(rho, sigma, base="10", **{flag[2:]: value}), json.loads(out))


def test_qzcdp_matches_cli(cli, neighbours):
    rho, sigma, a, b = neighbours
    fit = privacy.qzcdp_fit(rho, sigma)
    code, out, err = cli("qzcdp", "fit", "--rho", a, "--sigma", b, "--json")
    assert code == 0, err
    same(fit, json.loads(out))
    code, out, err = cli("qzcdp", "fit", "--rho", a, "--sigma", b, "--base", "2", "--xi", "0.01", "--json")
    assert code == 0, err
    same(privacy.qzcdp_fit(rho, sigma, 0.01, base="2"), json.loads(out))
    for kind in ["sandwiched", "maximal", "petz"]:
        for zr in [fit.zcdp_rho * 1.01, fit.zcdp_rho * 0.5]:
            code, out, err = cli("qzcdp", "check", "--rho", a, "--sigma", b, "--zcdp-rho", repr(zr),
                                 "--family", kind, "--symmetric", "--json")
            r = privacy.qzcdp_check(rho, sigma, zr, family=kind, symmetric=True)
            assert code == (0 if r.holds else 1), err
            same(r, json.loads(out))
    assert privacy.qzcdp_check(rho, sigma, fit.zcdp_rho * 1.01).holds
    assert not privacy.qzcdp_check(rho, sigma, fit.zcdp_rho * 0.5).holds
