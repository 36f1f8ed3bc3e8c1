"""QuTiP and toqito objects and conventions (skipped, with the reason shown, where not installed)."""
import math

import numpy as np
import pytest

import qrenyi
from conftest import random_state


def test_qutip_objects_and_conventions():
    qutip = pytest.importorskip("qutip", reason="QuTiP not installed (pip install qutip)")
    rng = np.random.default_rng(31)
    for d in [2, 3, 5]:
        r, s = random_state(rng, d), random_state(rng, d)
        qr, qs = qutip.Qobj(r), qutip.Qobj(s)
        # Qobj in, same numbers as the arrays
        assert qrenyi.divergence(qr, qs, "sandwiched", 2.0) == qrenyi.divergence(r, s, "sandwiched", 2.0)
        assert qrenyi.Pair(qr, qs).umegaki() == qrenyi.divergence(r, s, "umegaki")
        # QuTiP's conventions: entropy_relative in nats (base e), fidelity is the root fidelity,
        # tracedist is ½‖ρ − σ‖₁
        assert qrenyi.divergence(qr, qs, "umegaki") == pytest.approx(qutip.entropy_relative(qr, qs), rel=1e-8)
        assert qrenyi.divergence(qr, qs, "umegaki", base="2") == pytest.approx(
            qutip.entropy_relative(qr, qs, base=2), rel=1e-8)
        assert qrenyi.divergence(qr, qs, "fidelity") == pytest.approx(qutip.fidelity(qr, qs), rel=1e-7)
        assert qrenyi.divergence(qr, qs, "trace-distance") == pytest.approx(qutip.tracedist(qr, qs), rel=1e-9)
    # a stack of Qobj matrices through numpy
    stack = np.stack([qutip.rand_dm(3).full() for _ in range(4)])
    assert qrenyi.divergence(stack, qutip.maximally_mixed_dm(3), "umegaki").shape == (4,)
    # a pure state (rank one): supports and +∞
    psi = qutip.ket2dm(qutip.basis(2, 0))
    assert qrenyi.divergence(psi, qutip.ket2dm(qutip.basis(2, 1)), "umegaki") == math.inf
    assert qrenyi.divergence(psi, qutip.qeye(2) / 2, "umegaki") == pytest.approx(math.log(2), rel=1e-14)


def test_toqito_conventions():
    metrics = pytest.importorskip("toqito.state_metrics", reason="toqito not installed (pip install toqito)")
    rng = np.random.default_rng(32)
    for d in [2, 4]:
        r, s = random_state(rng, d), random_state(rng, d)
        # toqito's fidelity is the root fidelity ‖√ρ√σ‖₁
        assert qrenyi.divergence(r, s, "fidelity") == pytest.approx(metrics.fidelity(r, s), rel=1e-7)
        # Matsumoto fidelity = Tr σ #_{1/2} ρ = exp(−D̂_{1/2}(ρ‖σ)/2)
        m = metrics.matsumoto_fidelity(r, s)
        assert math.exp(-0.5 * qrenyi.divergence(r, s, "maximal", 0.5)) == pytest.approx(m, rel=1e-5)
