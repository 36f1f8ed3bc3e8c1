"""qrenyi.divergence / Pair / validate: reference fixtures, the CLI, numpy and scipy."""
import json
import math
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import qrenyi
from conftest import cli_number, matrix, random_state, write_state

FAMILIES = ["petz", "sandwiched", "maximal"]
SCALAR_KINDS = {"umegaki": "umegaki", "bs": "bs", "max": "dmax", "trace-distance": "trace_distance"}


def tolerance(want, sensitivity):
    """The Rust reference test's rule (tests/reference.rs)."""
    return max(1e-10 * abs(want), 1e-13, 20 * sensitivity)


def close(got, want, sens):
    if math.isinf(want):
        return got == want
    return abs(got - want) <= tolerance(want, sens)


def fidelity_fixtures(case):
    """(root F, F²) reference entries: the fixture stores F² as "fidelity" until the root
    fidelity convention lands, and root F + "squared_fidelity" after."""
    if "squared_fidelity" in case:
        return case["fidelity"], case["squared_fidelity"]
    sq = case["fidelity"]
    return {"value": math.sqrt(sq["value"]), "sensitivity": sq["sensitivity"]}, sq


def test_reference_fixtures_every_kind(divergence_cases):
    checked = 0
    for case in divergence_cases:
        rho, sigma = matrix(case["rho"]), matrix(case["sigma"])
        for fam in FAMILIES:
            alphas = [e["alpha"] for e in case[fam]]
            curve = qrenyi.divergence(rho, sigma, fam, alphas)
            for e, got in zip(case[fam], curve):
                want = cli_number(e["value"])
                assert close(got, want, e["sensitivity"]), (case["name"], fam, e, got)
                single = qrenyi.divergence(rho, sigma, fam, e["alpha"])
                assert close(single, want, e["sensitivity"]), (case["name"], fam, e, single)
                checked += 2
        for kind, key in SCALAR_KINDS.items():
            e = case[key]
            got = qrenyi.divergence(rho, sigma, kind)
            assert close(got, cli_number(e["value"]), e["sensitivity"]), (case["name"], kind, got)
            checked += 1
        for e in case["hockey_stick"]:
            got = qrenyi.divergence(rho, sigma, "hockey-stick", gamma=e["gamma"])
            assert close(got, e["value"], e["sensitivity"]), (case["name"], e, got)
            checked += 1
        root, sq = fidelity_fixtures(case)
        # F = √(F²): the sensitivity of the root is at most that of the square over 2F
        f = qrenyi.divergence(rho, sigma, "fidelity")
        f2 = qrenyi.divergence(rho, sigma, "squared-fidelity")
        assert close(f2, sq["value"], sq["sensitivity"]), (case["name"], f2, sq)
        slack = sq["sensitivity"] / max(2 * root["value"], 1e-300)
        assert close(f, root["value"], max(root["sensitivity"], slack)), (case["name"], f, root)
        checked += 2
    assert checked > 500


@pytest.mark.parametrize("case_index", [0, 3, 7, 12, 20])
def test_agrees_with_cli(cli, tmp_path, divergence_cases, case_index):
    case = divergence_cases[case_index % len(divergence_cases)]
    rho, sigma = matrix(case["rho"]), matrix(case["sigma"])
    a = write_state(tmp_path / "rho.json", rho)
    b = write_state(tmp_path / "sigma.json", sigma)
    alphas = [0.5, 1.0, 2.0, float("inf")]
    for kind in ["petz", "sandwiched", "maximal"]:
        code, out, err = cli("divergence", "--kind", kind, "--rho", a, "--sigma", b, "--alpha",
                             "0.5,1,2,inf", "--json")
        assert code == 0, err
        want = [cli_number(r["value"]) for r in json.loads(out)["results"]]
        got = qrenyi.divergence(rho, sigma, kind, alphas)
        for g, w in zip(got, want):
            assert g == w or abs(g - w) <= 1e-12 * max(1.0, abs(w)), (kind, got, want)
    for kind in ["umegaki", "bs", "max", "trace-distance"]:
        code, out, err = cli("divergence", "--kind", kind, "--rho", a, "--sigma", b, "--json")
        assert code == 0, err
        w = cli_number(json.loads(out)["value"])
        g = qrenyi.divergence(rho, sigma, kind)
        assert g == w or abs(g - w) <= 1e-12 * max(1.0, abs(w)), (kind, g, w)
    code, out, err = cli("divergence", "--kind", "hockey-stick", "--rho", a, "--sigma", b,
                         "--gamma", "0.5,1,2", "--json")
    assert code == 0, err
    want = [cli_number(r["value"]) for r in json.loads(out)["results"]]
    got = qrenyi.divergence(rho, sigma, "hockey-stick", gamma=[0.5, 1, 2])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------- numpy / scipy cross-checks
def np_func(m, f):
    w, v = np.linalg.eigh(m)
    return (v * f(np.clip(w, 0, None))) @ v.conj().T


def np_petz(r, s, a):
    return math.log(np.trace(np_func(r, lambda x: x ** a) @ np_func(s, lambda x: x ** (1 - a))).real) / (a - 1)


def np_sandwiched(r, s, a):
    g = np_func(s, lambda x: x ** ((1 - a) / (2 * a)))
    nu = np.clip(np.linalg.eigvalsh(g @ r @ g), 0, None)
    return math.log((nu ** a).sum()) / (a - 1)


def np_maximal(r, s, a):
    sh = np_func(s, np.sqrt)
    si = np_func(s, lambda x: 1 / np.sqrt(x))
    t = np_func(si @ r @ si, lambda x: x ** a)
    return math.log(np.trace(sh @ t @ sh).real) / (a - 1)


def np_umegaki(r, s):
    return np.trace(r @ (np_func(r, lambda x: np.log(np.where(x > 0, x, 1))) - np_func(s, np.log))).real


@pytest.mark.parametrize("d", [2, 3, 5, 8])
def test_numpy_cross_check(d):
    rng = np.random.default_rng(d)
    for _ in range(5):
        r, s = random_state(rng, d), random_state(rng, d)
        for a in [0.5, 0.8, 1.5, 2.0, 3.0]:
            assert qrenyi.divergence(r, s, "petz", a) == pytest.approx(np_petz(r, s, a), rel=1e-9)
            assert qrenyi.divergence(r, s, "sandwiched", a) == pytest.approx(np_sandwiched(r, s, a), rel=1e-9)
            assert qrenyi.divergence(r, s, "maximal", a) == pytest.approx(np_maximal(r, s, a), rel=1e-9)
        assert qrenyi.divergence(r, s, "umegaki") == pytest.approx(np_umegaki(r, s), rel=1e-9)
        ev = np.linalg.eigvalsh(r - 2.0 * s)
        assert qrenyi.divergence(r, s, "hockey-stick", gamma=2.0) == pytest.approx(ev[ev > 0].sum(), abs=1e-12)
        assert qrenyi.divergence(r, s, "trace-distance") == pytest.approx(0.5 * np.abs(np.linalg.eigvalsh(r - s)).sum(), abs=1e-12)


def test_scipy_cross_check():
    scipy_linalg = pytest.importorskip("scipy.linalg", reason="scipy not installed")
    rng = np.random.default_rng(11)
    for d in [2, 4, 6]:
        r, s = random_state(rng, d), random_state(rng, d)
        sr = scipy_linalg.sqrtm(r)
        f = np.linalg.svd(sr @ scipy_linalg.sqrtm(s), compute_uv=False).sum()
        assert qrenyi.divergence(r, s, "fidelity") == pytest.approx(f, rel=1e-9)
        assert qrenyi.divergence(r, s, "squared-fidelity") == pytest.approx(f * f, rel=1e-9)
        lr, ls = scipy_linalg.logm(r), scipy_linalg.logm(s)
        assert qrenyi.divergence(r, s, "umegaki") == pytest.approx(np.trace(r @ (lr - ls)).real, rel=1e-8)
        p = scipy_linalg.fractional_matrix_power
        q = np.trace(p(r, 2.0) @ p(s, -1.0)).real
        assert qrenyi.divergence(r, s, "petz", 2.0) == pytest.approx(math.log(q), rel=1e-9)


# ---------------------------------------------------------------- conventions
def test_infinity_limits_and_base():
    rho, sigma = np.diag([0.7, 0.3]), np.eye(2) / 2
    pure = np.diag([1.0, 0.0])
    assert qrenyi.divergence(rho, pure, "umegaki") == math.inf
    assert qrenyi.divergence(rho, pure, "max") is math.inf or qrenyi.divergence(rho, pure, "max") == math.inf
    assert qrenyi.divergence(pure, np.diag([0.0, 1.0]), "sandwiched", 2.0) == math.inf
    assert qrenyi.divergence(pure, np.diag([0.0, 1.0]), "fidelity") == 0.0
    nats = qrenyi.divergence(rho, sigma, "sandwiched", [0.5, 2.0])
    bits = qrenyi.divergence(rho, sigma, "sandwiched", [0.5, 2.0], base="2")
    np.testing.assert_allclose(bits, nats / math.log(2), rtol=1e-15)
    assert qrenyi.divergence(rho, sigma, "umegaki", base="10") == pytest.approx(
        qrenyi.divergence(rho, sigma, "umegaki") / math.log(10), rel=1e-15)
    # base does not apply to the non-logarithmic kinds
    assert qrenyi.divergence(rho, sigma, "trace-distance", base="2") == qrenyi.divergence(rho, sigma, "trace-distance")
    # α = 1 is Umegaki, α = ∞ is D_max (sandwiched)
    assert qrenyi.divergence(rho, sigma, "sandwiched", 1.0) == pytest.approx(qrenyi.divergence(rho, sigma, "umegaki"), rel=1e-12)
    assert qrenyi.divergence(rho, sigma, "sandwiched", math.inf) == pytest.approx(qrenyi.divergence(rho, sigma, "max"), rel=1e-12)
    assert isinstance(qrenyi.divergence(rho, sigma, "petz", 2), float)
    assert isinstance(qrenyi.divergence(rho, sigma, "petz", np.float64(2)), float)
    out = qrenyi.divergence(rho, sigma, "petz", np.array([2.0]))
    assert isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == (1,)
    assert sorted(qrenyi.kinds()) == sorted(["petz", "sandwiched", "maximal", "umegaki", "bs", "max", "hockey-stick", "trace-distance", "fidelity", "squared-fidelity"])


def test_input_types():
    rng = np.random.default_rng(3)
    r, s = random_state(rng, 3), random_state(rng, 3)
    want = qrenyi.divergence(r, s, "petz", 1.5)
    assert qrenyi.divergence(r.tolist(), s.tolist(), "petz", 1.5) == want
    assert qrenyi.divergence(np.asfortranarray(r), s, "petz", 1.5) == want
    big = np.zeros((6, 6), dtype=complex)
    big[::2, ::2] = r  # a non-contiguous view
    assert qrenyi.divergence(big[::2, ::2], s, "petz", 1.5) == want
    # single precision: a rounded random state is no longer of unit trace within the tolerance
    with pytest.raises(qrenyi.QrenyiError, match="trace is"):
        qrenyi.divergence(r.astype(np.complex64), s, "petz", 1.5)
    real = np.diag([0.25, 0.75])  # exact in every float format
    assert qrenyi.divergence(real.astype(np.complex64), np.eye(2) / 2, "umegaki") == qrenyi.divergence(real, np.eye(2) / 2, "umegaki")
    assert qrenyi.divergence([[0.25, 0], [0, 0.75]], [[0.5, 0], [0, 0.5]], "umegaki") == qrenyi.divergence(real, np.eye(2) / 2, "umegaki")
    for dtype in [np.float64, np.float32, np.longdouble]:
        assert qrenyi.divergence(real.astype(dtype), np.eye(2) / 2, "umegaki") == pytest.approx(
            math.log(2) + 0.25 * math.log(0.25) + 0.75 * math.log(0.75), rel=1e-6)

    class FakeQobj:  # QuTiP's Qobj interface: .full() -> ndarray
        def __init__(self, m):
            self.m = m

        def full(self):
            return self.m

    assert qrenyi.divergence(FakeQobj(r), FakeQobj(s), "petz", 1.5) == want
    st = qrenyi.validate(r)
    assert qrenyi.divergence(st, s, "petz", 1.5) == want
    assert st.dim == 3 and st.rank() == 3
    np.testing.assert_allclose(st.matrix(), r, atol=1e-15)
    np.testing.assert_allclose(st.eigenvalues(), np.linalg.eigvalsh(r), atol=1e-13)
    assert st.entropy() == pytest.approx(-sum(x * math.log(x) for x in np.linalg.eigvalsh(r)), rel=1e-10)
    for backend in qrenyi.backends():
        assert qrenyi.divergence(r, s, "petz", 1.5, backend=backend) == pytest.approx(want, rel=1e-10)
        assert qrenyi.divergence(st, s, "sandwiched", 1.5, backend=backend) == pytest.approx(
            qrenyi.divergence(r, s, "sandwiched", 1.5), rel=1e-10)


def test_pair_caches_and_matches_divergence():
    rng = np.random.default_rng(5)
    r, s = random_state(rng, 4), random_state(rng, 4, rank=2)
    p = qrenyi.Pair(r, s)
    assert p.dim == 4 and not p.is_supported()
    assert p.renyi("petz", 0.5) == qrenyi.divergence(r, s, "petz", 0.5)
    assert p.renyi("sandwiched", 2.0) == math.inf
    np.testing.assert_array_equal(p.curve("maximal", [0.5, 0.7]), qrenyi.divergence(r, s, "maximal", [0.5, 0.7]))
    assert p.max_relative_entropy() == math.inf
    assert p.hockey_stick(1.5) == qrenyi.divergence(r, s, "hockey-stick", gamma=1.5)
    assert p.trace_distance() == qrenyi.divergence(r, s, "trace-distance")
    assert p.fidelity() == qrenyi.divergence(r, s, "fidelity")
    assert p.squared_fidelity() == qrenyi.divergence(r, s, "squared-fidelity")
    assert p.umegaki() == math.inf and p.belavkin_staszewski() == math.inf
    assert p.rho.dim == 4 and p.sigma.rank() == 2
    q = qrenyi.Pair(s, r)
    assert q.renyi("sandwiched", 2.0, base="2") == pytest.approx(qrenyi.divergence(s, r, "sandwiched", 2.0) / math.log(2))


# ---------------------------------------------------------------- stacks
def test_stack_shapes_and_broadcast():
    rng = np.random.default_rng(8)
    rhos = np.stack([random_state(rng, 3) for _ in range(7)])
    sigmas = np.stack([random_state(rng, 3) for _ in range(7)])
    # stacks decompose every matrix once (PSD from those eigenvalues) and may take another route than a
    # single call on fresh states (e.g. the direct sandwiched route): equal to rounding, not bitwise
    one = qrenyi.divergence(rhos, sigmas, "sandwiched", 2.0)
    assert one.shape == (7,)
    for k in range(7):
        assert one[k] == pytest.approx(qrenyi.divergence(rhos[k], sigmas[k], "sandwiched", 2.0), rel=1e-12, abs=1e-14)
    curve = qrenyi.divergence(rhos, sigmas, "petz", [0.5, 2.0, 3.0])
    assert curve.shape == (7, 3)
    for k in range(7):
        np.testing.assert_allclose(
            curve[k], qrenyi.divergence(rhos[k], sigmas[k], "petz", [0.5, 2.0, 3.0]), rtol=1e-12, atol=1e-14
        )
    b = qrenyi.divergence(rhos, sigmas[0], "umegaki")
    assert b.shape == (7,) and b[3] == qrenyi.divergence(rhos[3], sigmas[0], "umegaki")
    b = qrenyi.divergence(rhos[0], sigmas, "hockey-stick", gamma=[1.0, 2.0])
    assert b.shape == (7, 2) and b[2, 1] == qrenyi.divergence(rhos[0], sigmas[2], "hockey-stick", gamma=2.0)


def test_stack_of_ten_thousand_pairs():
    rng = np.random.default_rng(10)
    n, d = 10_000, 2
    g = rng.normal(size=(n, d, d)) + 1j * rng.normal(size=(n, d, d))
    rhos = g @ g.conj().transpose(0, 2, 1)
    rhos /= np.trace(rhos, axis1=1, axis2=2).real[:, None, None]
    h = rng.normal(size=(n, d, d)) + 1j * rng.normal(size=(n, d, d))
    sigmas = h @ h.conj().transpose(0, 2, 1)
    sigmas /= np.trace(sigmas, axis1=1, axis2=2).real[:, None, None]
    for kind, alpha in [("sandwiched", 2.0), ("petz", 0.5), ("umegaki", None), ("fidelity", None)]:
        out = qrenyi.divergence(rhos, sigmas, kind, alpha)
        assert out.shape == (n,) and np.isfinite(out).all()
        for k in rng.choice(n, 20, replace=False):
            assert out[k] == pytest.approx(qrenyi.divergence(rhos[k], sigmas[k], kind, alpha), rel=1e-12, abs=1e-14)
    # numpy batched cross-check of the sandwiched divergence at α = 2: ln Tr (σ^{-1/4} ρ σ^{-1/4})²
    w, v = np.linalg.eigh(sigmas)
    si = (v * (w ** -0.25)[:, None, :]) @ v.conj().transpose(0, 2, 1)
    t = si @ rhos @ si
    want = np.log(np.einsum("kij,kji->k", t, t).real)
    np.testing.assert_allclose(qrenyi.divergence(rhos, sigmas, "sandwiched", 2.0), want, rtol=1e-9)


def _with_spectrum(rng, lam):
    d = len(lam)
    q, _ = np.linalg.qr(rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d)))
    return (q * np.asarray(lam, dtype=float)) @ q.conj().T


def _hard_pairs(rng, d):
    """Random, rank-one, rank-deficient and ill-conditioned (κ = 1e12) states, and the stacks of all
    their ordered pairs (ρ, σ)."""
    graded = 10.0 ** (-12.0 * np.arange(d) / (d - 1))
    deficient = np.arange(1.0, d + 1)
    deficient[0] = 0.0
    states = [random_state(rng, d), random_state(rng, d, rank=1), _with_spectrum(rng, deficient / deficient.sum()),
              _with_spectrum(rng, graded / graded.sum())]
    return states, np.stack([r for r in states for _ in states]), np.stack([s for _ in states for s in states])


@pytest.mark.parametrize("d", [2, 3, 4, 7])
def test_stack_route_equals_single_calls_on_hard_inputs(d):
    """The stack route (one call on (n, d, d) arrays) against one call per pair, every family:
    random, rank-deficient and ill-conditioned (κ = 1e12) states — values to rounding (the routes
    decompose with different solvers), +∞ alike; float64 stacks and non-contiguous views too."""
    rng = np.random.default_rng(30 + d)
    states, rs, ss = _hard_pairs(rng, d)
    for fam in FAMILIES:
        for alpha in [2.0, [1.5, 3.0], [0.5, 2.0]]:
            got = qrenyi.divergence(rs, ss, fam, alpha)
            for k in range(len(rs)):
                want = qrenyi.divergence(rs[k], ss[k], fam, alpha)
                g, w = np.atleast_1d(got[k]), np.atleast_1d(want)
                assert (np.isinf(g) == np.isinf(w)).all() or (np.minimum(g, w) > 10).all(), (fam, alpha, k, g, w)
                fin = np.isfinite(g) & np.isfinite(w) & (w < 10)
                np.testing.assert_allclose(g[fin], w[fin], rtol=1e-8, atol=1e-10, err_msg=f"{fam} {alpha} {k}")
    real = np.stack([np.diag(rng.dirichlet(np.ones(d))) for _ in range(5)])
    np.testing.assert_array_equal(qrenyi.divergence(real, real[::-1].copy(), "sandwiched", 2.0),
                                  qrenyi.divergence(real.astype(complex), real[::-1].astype(complex), "sandwiched", 2.0))
    wide = np.zeros((5, d, 2 * d), dtype=complex)
    wide[:, :, ::2] = real
    np.testing.assert_array_equal(qrenyi.divergence(wide[:, :, ::2], real, "sandwiched", [1.5, 2.0]),
                                  qrenyi.divergence(real, real, "sandwiched", [1.5, 2.0]))


@pytest.mark.parametrize("d", [2, 4])
def test_stack_errors_equal_single_call_errors(d):
    """An invalid pair in a stack raises the single call's message, prefixed by its index; at the
    validation threshold (eigenvalue −c·t, t = 1e-10·√d) the stack accepts and rejects exactly as
    the single call does."""
    rng = np.random.default_rng(50 + d)
    good = random_state(rng, d)
    t = 1e-10 * math.sqrt(d)
    cases = [good * 2, good + np.eye(d) * 0, np.where(np.eye(d, dtype=bool), good, good + 1e-6)]
    for c in [0.5, 1 - 1e-7, 1 + 1e-7, 2.0, 1e9]:
        lam = np.full(d, 1.0 / (d - 1))
        lam[0], lam[1] = -c * t, lam[1] + c * t
        cases.append(_with_spectrum(rng, lam))
    for bad in cases:
        for fam in FAMILIES:
            for where in ["rho", "sigma"]:
                pair = (bad, good) if where == "rho" else (good, bad)
                try:
                    want = qrenyi.divergence(*pair, fam, 2.0)
                except qrenyi.QrenyiError as e:
                    want = e
                stack = [np.stack([good, pair[0], good]), np.stack([good, pair[1], good])]
                if isinstance(want, Exception):
                    with pytest.raises(qrenyi.QrenyiError) as got:
                        qrenyi.divergence(*stack, fam, 2.0)
                    assert str(got.value) == f"pair 1: {want}"
                else:
                    assert qrenyi.divergence(*stack, fam, 2.0)[1] == pytest.approx(want, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("d", [2, 4, 8, 14, 16])
def test_difference_stacks_equal_single_calls_bitwise(d):
    """Hockey-stick and trace-distance stacks and single calls (both taking the stack-array route
    where it applies, d ≤ 14) give the values of the states route (`qrenyi.Pair`: two validated
    states, then the pair's own computation) bit for bit on random, rank-one, rank-deficient and
    ill-conditioned states, also with a shared `qrenyi.State`; they agree with numpy's eigvalsh of the
    difference and raise the single call's error for an invalid pair."""
    rng = np.random.default_rng(70 + d)
    states, rs, ss = _hard_pairs(rng, d)
    gammas = [0.5, 1.0, math.e]
    got_h = qrenyi.divergence(rs, ss, "hockey-stick", gamma=gammas)
    got_t = qrenyi.divergence(rs, ss, "trace-distance")
    for k in range(len(rs)):
        pair = qrenyi.Pair(rs[k], ss[k])
        want = [pair.hockey_stick(g) for g in gammas]
        np.testing.assert_array_equal(got_h[k], want)
        np.testing.assert_array_equal(qrenyi.divergence(rs[k], ss[k], "hockey-stick", gamma=gammas), want)
        assert got_t[k] == pair.trace_distance() == qrenyi.divergence(rs[k], ss[k], "trace-distance")
        for j, g in enumerate(gammas):
            ev = np.linalg.eigvalsh(rs[k] - g * ss[k])
            assert got_h[k, j] == pytest.approx(ev[ev > 0].sum(), rel=1e-10, abs=1e-13)
    shared = qrenyi.validate(states[0])
    np.testing.assert_array_equal(qrenyi.divergence(shared, ss, "hockey-stick", gamma=gammas),
                                  [[qrenyi.Pair(shared, s).hockey_stick(g) for g in gammas] for s in ss])
    bad = [states[0] * 2, _with_spectrum(rng, np.r_[-1e-3, np.full(d - 1, (1 + 1e-3) / (d - 1))])]
    for b in bad:
        with pytest.raises(qrenyi.QrenyiError) as want:
            qrenyi.divergence(b, states[1], "trace-distance")
        with pytest.raises(qrenyi.QrenyiError) as got:
            qrenyi.divergence(np.stack([states[0], b]), np.stack([states[1], states[1]]), "trace-distance")
        assert str(got.value) == f"pair 1: {want.value}"


def test_threads_call_concurrently():
    rng = np.random.default_rng(12)
    pairs = [(random_state(rng, d), random_state(rng, d)) for d in [2, 3, 4, 8, 16] for _ in range(8)]
    serial = [qrenyi.divergence(r, s, "sandwiched", [0.5, 2.0]).tolist() for r, s in pairs]
    shared = qrenyi.Pair(*pairs[-1])
    shared_want = shared.curve("petz", [0.5, 1.5]).tolist()
    barrier = threading.Barrier(8)

    def work(i):
        barrier.wait()
        out = []
        for _ in range(5):
            out.append([qrenyi.divergence(r, s, "sandwiched", [0.5, 2.0]).tolist() for r, s in pairs])
            assert shared.curve("petz", [0.5, 1.5]).tolist() == shared_want
        return out

    with ThreadPoolExecutor(8) as ex:
        for res in ex.map(work, range(8)):
            for rep in res:
                assert rep == serial


@pytest.mark.parametrize("d", [3, 8, 30])
def test_order_two_continuity_and_cli(cli, tmp_path, d):
    """α = 2 takes the integer-order routes (docs/divergences.md, "order_two_cholesky" and
    "order_two_frobenius"): continuous with α = 2 ± 1e-9, equal to `Pair.renyi`, to the CLI's
    `--alpha 2` and to numpy (Tr ρσ⁻¹ρ by np.linalg.solve; ‖σ^{-1/4}ρσ^{-1/4}‖_F² by eigh), and +∞ where σ's support misses part of ρ's."""
    def numpy_sandwiched(r, s, _a):
        ls, vs = np.linalg.eigh(s)
        q = (vs * ls ** -0.25) @ vs.conj().T
        return float(np.log((np.abs(q @ r @ q) ** 2).sum()))

    def numpy_solve(r, s, _a):
        return float(np.log(np.trace(r @ np.linalg.solve(s, r)).real))

    rng = np.random.default_rng(100 + d)
    rho, sigma = random_state(rng, d), random_state(rng, d)
    a = write_state(tmp_path / "rho.json", rho)
    b = write_state(tmp_path / "sigma.json", sigma)
    numpy_ref = {"petz": numpy_solve, "sandwiched": numpy_sandwiched, "maximal": numpy_solve}
    for kind in FAMILIES:
        v = qrenyi.divergence(rho, sigma, kind, 2.0)
        assert math.isfinite(v)
        for eps in (1e-9, -1e-9):
            w = qrenyi.divergence(rho, sigma, kind, 2.0 + eps)
            assert abs(v - w) <= 1e-7 * max(1.0, abs(v)), (kind, v, w)
        p = qrenyi.Pair(rho, sigma).renyi(kind, 2.0)
        assert abs(p - v) <= 1e-12 * max(1.0, abs(v)), (kind, p, v)
        n = numpy_ref[kind](rho, sigma, 2.0)
        assert abs(n - v) <= 1e-9 * max(1.0, abs(v)), (kind, n, v)
        code, out, err = cli("divergence", "--kind", kind, "--rho", a, "--sigma", b, "--alpha",
                             "2", "--json")
        assert code == 0, err
        j = json.loads(out)
        w = cli_number(j["results"][0]["value"] if "results" in j else j["value"])
        assert w == v or abs(w - v) <= 1e-12 * max(1.0, abs(v)), (kind, w, v)
    # σ of rank d − 1 (its zero eigenvalue is rounding noise): +∞ for every family
    thin = random_state(rng, d, rank=d - 1)
    for kind in FAMILIES:
        assert qrenyi.divergence(rho, thin, kind, 2.0) == math.inf, kind
        assert qrenyi.Pair(rho, thin).renyi(kind, 2.0) == math.inf, kind
