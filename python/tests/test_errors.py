"""Every error path raises qrenyi.QrenyiError (a ValueError) with the CLI's message."""
import json
import math

import numpy as np
import pytest

import qrenyi
from qrenyi import QrenyiError, kernel, privacy, verify
from conftest import write_state

RHO = np.diag([0.7, 0.3])
SIGMA = np.eye(2) / 2


def test_is_a_value_error():
    assert issubclass(QrenyiError, ValueError)
    assert QrenyiError.__module__ == "qrenyi"


BAD_STATES = [
    (np.ones((2, 3)) / 2, "not square"),
    (np.zeros((0, 0)), "empty"),
    (np.array([[0.5, np.nan], [np.nan, 0.5]]), "non-finite"),
    (np.array([[0.5, 0.5], [0.0, 0.5]]), "not Hermitian"),
    (np.array([[1.5, 0.0], [0.0, -0.5]]), "not positive semidefinite"),
    (np.eye(2), "trace is 2.0000"),
    (np.ones(4) / 4, "expected a d×d matrix"),
    (np.ones((2, 2, 2, 2)), "expected a d×d matrix"),
    ([["a", "b"], ["c", "d"]], "not a numeric array"),
    ([[0.5, 0], [0.5]], "not a numeric array"),
]


@pytest.mark.parametrize("bad,msg", BAD_STATES)
def test_bad_states(bad, msg):
    for call in [
        lambda: qrenyi.divergence(bad, SIGMA, "umegaki"),
        lambda: qrenyi.divergence(SIGMA, bad, "umegaki"),
        lambda: qrenyi.Pair(bad, SIGMA),
        lambda: qrenyi.validate(bad),
        lambda: privacy.quantum_dp(bad, SIGMA, epsilon=1.0),
        lambda: privacy.qzcdp_check(bad, SIGMA, 1.0),
    ]:
        with pytest.raises(QrenyiError, match=msg):
            call()


def test_bad_parameters():
    cases = [
        (lambda: qrenyi.divergence(RHO, SIGMA, "renyi", 2.0), "unknown kind"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "petz"), "needs alpha"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "hockey-stick"), "needs gamma"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "umegaki", 2.0), "takes no parameter"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "petz", gamma=2.0), "takes alpha"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "hockey-stick", 2.0), "takes gamma"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "petz", -1.0), "out of range"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "petz", math.nan), "out of range|NaN|invalid"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "petz", [0.5, -2]), "out of range"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "petz", []), "empty"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "petz", [[1.0]]), "1-D"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "petz", "2"), "string"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "hockey-stick", gamma=-1.0), "gamma"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "umegaki", base="3"), "logarithm base"),
        (lambda: qrenyi.divergence(RHO, SIGMA, "umegaki", backend="cuda9"), "unknown backend"),
        (lambda: qrenyi.divergence(RHO, np.eye(3) / 3, "umegaki"), "dimension mismatch"),
        (lambda: qrenyi.divergence(np.stack([RHO] * 3), np.stack([SIGMA] * 2), "umegaki"), "stack lengths"),
        (lambda: qrenyi.divergence(np.zeros((0, 2, 2)), SIGMA, "umegaki"), "empty"),
        (lambda: qrenyi.Pair(np.stack([RHO] * 2), SIGMA), "stack"),
        (lambda: qrenyi.Pair(RHO, SIGMA).renyi("kl", 2.0), "unknown family"),
        (lambda: qrenyi.Pair(RHO, SIGMA).renyi("petz", -3.0), "out of range"),
        (lambda: qrenyi.Pair(RHO, SIGMA).hockey_stick(-1.0), "gamma"),
        (lambda: qrenyi.Pair(RHO, np.eye(3) / 3), "dimension mismatch"),
        (lambda: qrenyi.validate(RHO, backend="x"), "unknown backend"),
    ]
    for call, msg in cases:
        with pytest.raises(QrenyiError, match=msg):
            call()


def test_bad_pair_in_a_stack_is_named():
    stack = np.stack([RHO, RHO, np.eye(2), RHO])
    with pytest.raises(QrenyiError, match=r"^pair 2: cannot parse rho: trace is 2\.0000"):
        qrenyi.divergence(stack, SIGMA, "umegaki")


def test_qobj_full_failure():
    class Broken:
        def full(self):
            raise RuntimeError("boom")

    with pytest.raises(QrenyiError, match="boom"):
        qrenyi.divergence(Broken(), SIGMA, "umegaki")


def test_privacy_errors():
    cases = [
        (lambda: privacy.zcdp_to_dp(-1.0, epsilon=1.0), "invalid"),
        (lambda: privacy.zcdp_to_dp(0.5), "exactly one of epsilon / delta"),
        (lambda: privacy.zcdp_to_dp(0.5, epsilon=1.0, delta=1e-5), "exactly one"),
        (lambda: privacy.zcdp_to_dp(0.5, delta=2.0), "delta"),
        (lambda: privacy.rdp_to_dp(0.5, 0.1, delta=1e-5), "α|alpha"),
        (lambda: privacy.rdp_to_dp(2.0, -0.1, delta=1e-5), "tau"),
        (lambda: privacy.pure_to_zcdp(-1.0), "epsilon"),
        (lambda: privacy.compose(-0.1, 10), "epsilon|invalid"),
        (lambda: privacy.compose(0.1, 0), "k|invalid"),
        (lambda: privacy.compose(0.1, 10, 0.0, 2.0), "delta"),
        (lambda: privacy.compose_zcdp([(0.0, -1.0)]), "rho|invalid"),
        (lambda: privacy.compose_rdp([[(2.0, 0.1)], [(3.0, 0.1)]]), "order|α|alpha|mismatch"),
        (lambda: privacy.gaussian(0.0), "sigma"),
        (lambda: privacy.calibrate_gaussian(1.0, 0.0), "delta"),
        (lambda: privacy.laplace(1.0, -1.0), "sensitivity"),
        (lambda: privacy.randomized_response(p=0.3), "p"),
        (lambda: privacy.randomized_response(), "exactly one"),
        (lambda: privacy.gaussian(1.0).rdp(0.5), "α|alpha"),
        (lambda: privacy.gaussian(1.0).epsilon(2.0), "delta"),
        (lambda: privacy.qzcdp_check(RHO, SIGMA, -1.0), "zcdp_rho"),
        (lambda: privacy.qzcdp_check(RHO, SIGMA, 1.0, family="umegaki"), "unknown family"),
        (lambda: privacy.quantum_dp(RHO, SIGMA, epsilon=1.0, base="3"), "logarithm base"),
        (lambda: privacy.qzcdp_fit(RHO, SIGMA, -1.0), "xi"),
        (lambda: privacy.qzcdp_fit(RHO, SIGMA, tolerance=0.0), "tolerance"),
        (lambda: privacy.quantum_dp(RHO, SIGMA), "exactly one"),
        (lambda: privacy.quantum_dp(RHO, SIGMA, delta=-1.0), "delta"),
    ]
    for call, msg in cases:
        with pytest.raises(QrenyiError, match=msg):
            call()


def test_verify_errors(tmp_path):
    cases = [
        (lambda: verify.run("no-such-lemma"), "unknown statement"),
        (lambda: verify.run("kl-nonnegative", trials=0), "trials"),
        (lambda: verify.run("kl-nonnegative", shard=(2, 2)), "shard"),
        (lambda: verify.run("kl-nonnegative", shard="1"), "shard"),
        (lambda: verify.run("kl-nonnegative", max_dim=1000), "max"),
        (lambda: verify.run("kl-nonnegative", threads=0), "threads"),
        (lambda: verify.run(42), "statement name"),
        (lambda: verify.replay(tmp_path / "missing.json"), "I/O error"),
        (lambda: verify.merge([{"lemma": "x"}]), "cannot parse reports"),
        (lambda: verify.statement("s", print, print, expected="maybe"), "unknown expectation"),
        (lambda: verify.statement("s", print, print, trials=0), "trials"),
    ]
    for call, msg in cases:
        with pytest.raises(QrenyiError, match=msg):
            call()
    a = verify.run("kl-nonnegative", trials=10, seed=1, restarts=0)
    b = verify.run("kl-nonnegative", trials=10, seed=2, restarts=0)
    with pytest.raises(QrenyiError, match="seed"):
        verify.merge([a, b])


def test_kernel_errors():
    x, y = np.zeros((5, 2)), np.ones((5, 2))
    cases = [
        (lambda: kernel.divergence(x, y, 2.0, 0.1, kernel="poly"), "kernel"),
        (lambda: kernel.divergence(x, y, 2.0, 0.1, bandwidth=-1.0), "bandwidth"),
        (lambda: kernel.divergence(x, y, 2.0, 0.1, bandwidth="wide"), "bandwidth"),
        (lambda: kernel.divergence(x, y, -1.0, 0.1), "α|alpha|order"),
        (lambda: kernel.divergence(x, np.ones((5, 3)), 2.0, 0.1), "dimension|mismatch"),
        (lambda: kernel.divergence(np.zeros((0, 2)), y, 2.0, 0.1), "empty|Empty"),
        (lambda: kernel.divergence(np.ones((2, 2, 2)), y, 2.0, 0.1), "n×d"),
        (lambda: kernel.audit(x, y, 2.0, 0.1), "exactly one null hypothesis"),
        (lambda: kernel.audit(x, y, 2.0, "auto", tau=0.1), "auto"),
        (lambda: kernel.audit(x, y, 2.0, 0.1, tau=0.1, method="magic"), "unknown method"),
        (lambda: kernel.audit(x, y, 2.0, "lots", tau=0.1), "--lambda"),
    ]
    for call, msg in cases:
        with pytest.raises(QrenyiError, match=msg):
            call()


def test_panic_becomes_qrenyi_error():
    with pytest.raises(QrenyiError, match="internal error .*bug in qrenyi.*test panic"):
        qrenyi._qrenyi._panic_for_tests("test panic")
    # the interpreter and the library still work afterwards
    assert qrenyi.divergence(RHO, SIGMA, "trace-distance") == pytest.approx(0.2)


@pytest.mark.parametrize("bad,msg", [
    (np.eye(2), "trace is 2.0000"),
    (np.array([[0.5, 0.5], [0.0, 0.5]]), "not Hermitian"),
    (np.array([[1.5, 0.0], [0.0, -0.5]]), "not positive semidefinite"),
])
def test_same_message_as_the_cli(cli, tmp_path, bad, msg):
    """The CLI prints `error: cannot parse FILE: …`; Python says `cannot parse rho: …`."""
    a = write_state(tmp_path / "rho", bad)
    b = write_state(tmp_path / "sigma.json", SIGMA)
    import shutil
    shutil.move(a, tmp_path / "rho.json")
    code, out, err = cli("divergence", "--kind", "umegaki", "--rho", tmp_path / "rho.json",
                         "--sigma", b)
    assert code == 2
    line = err.strip()
    assert line.startswith("error: cannot parse ") and msg in line
    with pytest.raises(QrenyiError) as e:
        qrenyi.divergence(bad, SIGMA, "umegaki")
    assert str(e.value) == line.replace(f"error: cannot parse {tmp_path / 'rho.json'}: ", "cannot parse rho: ")
    # and a parameter error, word for word
    code, out, err = cli("convert", "zcdp", "--zcdp-rho", "-1", "--epsilon", "1")
    with pytest.raises(QrenyiError) as e:
        privacy.zcdp_to_dp(-1.0, epsilon=1.0)
    assert code == 2 and err.strip() == f"error: {e.value}"


def _state_with_min(d, lam_min, seed):
    """`U diag(λ) U†`, unit trace, smallest eigenvalue `lam_min` (Haar-ish U from a QR)."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((d, d)) + 1j * rng.standard_normal((d, d)))
    lam = np.full(d, (1 - lam_min) / (d - 1))
    lam[0] = lam_min
    return (q * lam) @ q.conj().T


def _assert_errors_name_the_operand(bads, good, calls):
    """For each invalid matrix, every call with it as ρ and as σ raises the error
    `qrenyi.validate` gives, prefixed by the operand's name."""
    for bad, msg in bads:
        with pytest.raises(QrenyiError) as ref:
            qrenyi.validate(bad)
        for kind, extra in calls:
            for rho, sigma, name in [(bad, good, "rho"), (good, bad, "sigma")]:
                with pytest.raises(QrenyiError, match=msg) as got:
                    qrenyi.divergence(rho, sigma, kind, **extra)
                assert str(got.value) == f"cannot parse {name}: " + str(ref.value).split(": ", 1)[1]


def test_hockey_stick_and_trace_distance_validate_both_inputs_at_d_64():
    """The route that checks PSD beside the eigensolve (d ≥ 32) raises the messages of the
    sequential validation, naming the operand (ρ's first), and returns unchanged values."""
    d = 64
    tol = 1e-10 * math.sqrt(d)
    good = _state_with_min(d, 0.01 / d, 1)
    not_psd = _state_with_min(d, -1.5 * tol, 2)
    not_herm = good.copy()
    not_herm[3, 7] += 2j * tol
    bad_trace = good * (1 + 2 * tol)
    _assert_errors_name_the_operand(
        [(not_psd, "not positive semidefinite"), (not_herm, "not Hermitian"),
         (bad_trace, "trace is")],
        good, [("hockey-stick", {"gamma": 2.0}), ("trace-distance", {})])
    # ρ not PSD and σ not Hermitian: ρ's error
    with pytest.raises(QrenyiError, match="cannot parse rho: .*not positive semidefinite"):
        qrenyi.divergence(not_psd, not_herm, "hockey-stick", gamma=1.0)
    # just inside the tolerance: accepted, the value of validated states
    inside = _state_with_min(d, -0.5 * tol, 3)
    want = qrenyi.Pair(qrenyi.validate(inside), qrenyi.validate(good)).hockey_stick(2.0)
    assert qrenyi.divergence(inside, good, "hockey-stick", gamma=2.0) == pytest.approx(want, abs=1e-13)


def test_pair_kinds_validate_both_inputs_side_by_side_at_d_64():
    """Two raw matrices above the small kernels' size for a kind that builds a Pair: a state the
    quantity decomposes anyway is checked from its decomposition, both checks side by side
    (`states_from_matrices`); the errors are the sequential validation's, naming the operand
    (ρ's first), and the values those of validated states."""
    d = 64
    tol = 1e-10 * math.sqrt(d)
    good = _state_with_min(d, 0.01 / d, 4)
    other = _state_with_min(d, 0.02 / d, 5)
    not_psd = _state_with_min(d, -1.5 * tol, 6)
    not_herm = good.copy()
    not_herm[3, 7] += 2j * tol
    bad_trace = good * (1 + 2 * tol)
    calls = [("petz", {"alpha": 2.0}), ("sandwiched", {"alpha": 2.0}),
             ("sandwiched", {"alpha": [0.5, 3.0]}), ("maximal", {"alpha": 2.0}),
             ("umegaki", {}), ("bs", {}), ("max", {}), ("fidelity", {})]
    _assert_errors_name_the_operand(
        [(not_psd, "not positive semidefinite"), (not_herm, "not Hermitian"),
         (bad_trace, "trace is")],
        good, calls)
    with pytest.raises(QrenyiError, match="cannot parse rho: .*not positive semidefinite"):
        qrenyi.divergence(not_psd, not_herm, "petz", alpha=2.0)
    with pytest.raises(QrenyiError, match="cannot parse rho: .*not Hermitian"):
        qrenyi.divergence(not_herm, not_psd, "sandwiched", alpha=2.0)
    # accepted inputs, one just inside the tolerance: the values of validated states
    inside = _state_with_min(d, -0.5 * tol, 7)
    for rho, sigma in [(good, other), (inside, other), (good, inside)]:
        pair = qrenyi.Pair(qrenyi.validate(rho), qrenyi.validate(sigma))
        for kind, extra in calls:
            got = qrenyi.divergence(rho, sigma, kind, **extra)
            want = qrenyi.divergence(qrenyi.validate(rho), qrenyi.validate(sigma), kind, **extra)
            assert np.allclose(got, want, rtol=1e-10, atol=1e-12), (kind, extra, got, want)
        assert qrenyi.divergence(rho, sigma, "petz", alpha=2.0) == pytest.approx(
            pair.renyi("petz", 2.0), rel=1e-10)
