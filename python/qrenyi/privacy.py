"""Differential privacy: conversions, composition, mechanisms and quantum checks.

The same core functions as the CLI's ``convert``, ``compose``, ``dp`` and ``qzcdp`` commands, so
the same numbers (every bound is rounded outward, as in the CLI). Results are small objects with
attributes and ``to_dict()`` whose keys are the CLI's ``--json`` keys; +∞ is ``math.inf`` here
where the CLI's JSON writes the string ``"inf"``.

zCDP ↔ (ε, δ), both directions:

>>> from qrenyi import privacy
>>> r = privacy.zcdp_to_dp(0.5, delta=1e-6)     # ρ = 0.5 zCDP: ε at δ = 1e-6
>>> round(r.epsilon, 6), r.alpha is not None
(5.221534, True)
>>> privacy.zcdp_to_dp(0.5, epsilon=r.epsilon).delta <= 1e-6 * (1 + 1e-9)
True

Mechanisms:

>>> g = privacy.calibrate_gaussian(1.0, 1e-5)   # smallest σ with (1, 1e-5)-DP
>>> round(g.to_dict()["sigma"], 4), g.delta(1.0) <= 1e-5
(3.7306, True)
>>> privacy.laplace(2.0).to_dict()["pure_epsilon"]
0.5
"""
import itertools

from . import _qrenyi
from ._result import Result

__all__ = [
    "Result",
    "Mechanism",
    "zcdp_to_dp",
    "rdp_to_dp",
    "pure_to_zcdp",
    "compose",
    "compose_zcdp",
    "compose_rdp",
    "gaussian",
    "calibrate_gaussian",
    "laplace",
    "randomized_response",
    "qzcdp_check",
    "qzcdp_fit",
    "quantum_dp",
]


def zcdp_to_dp(rho, xi=0.0, *, epsilon=None, delta=None, base="e"):
    """(ξ, ρ)-zCDP → (ε, δ)-DP: δ at ``epsilon``, or ε at ``delta`` (give exactly one).

    Returns ``Result(delta=…, alpha=…)`` or ``Result(epsilon=…, alpha=…)`` — the bound optimised
    over the Rényi order α (``alpha`` is the optimiser, ``None`` in trivial cases). ``base``: the
    logarithm base of ρ, ξ and ε, given and returned ("e" nats, "2" bits, "10"). CLI:
    ``qrenyi convert zcdp --zcdp-rho R --xi X (--epsilon E | --delta D) [--base B] --json``.
    """
    return Result(_qrenyi.zcdp_to_dp(rho, xi, epsilon=epsilon, delta=delta, base=base))


def rdp_to_dp(alpha, tau, *, epsilon=None, delta=None, base="e"):
    """(α, τ)-RDP → (ε, δ)-DP: δ at ``epsilon`` or ε at ``delta`` (give exactly one; τ and ε in
    ``base`` units).

    With ``delta`` the result also has ``epsilon_simple = τ + ln(1/δ)/(α−1)``.

    >>> r = rdp_to_dp(2.0, 0.1, delta=1e-5)
    >>> r.epsilon < r.epsilon_simple
    True
    """
    return Result(_qrenyi.rdp_to_dp(alpha, tau, epsilon=epsilon, delta=delta, base=base))


def pure_to_zcdp(epsilon):
    """Pure ε-DP → (0, ε²/2)-zCDP: ``Result(xi=0, rho=…)``.

    >>> pure_to_zcdp(1.0).rho
    0.5
    """
    return Result(_qrenyi.pure_to_zcdp_(epsilon))


def compose(epsilon, k, delta=0.0, delta_total=None, *, base="e"):
    """Every composition bound for ``k`` copies of (ε, δ)-DP at total δ, side by side.

    ``delta_total`` defaults to ``k·δ + 1e-6`` (capped at 1), as in ``qrenyi compose``. The result
    has ``bounds`` (a list of dicts: name, source, epsilon_total, delta_total, applicable,
    tightest, note) and ``tightest`` (the name of the smallest applicable ε_total); ε and
    ε_total in ``base`` units.

    >>> r = compose(0.1, 100, 1e-6, 1e-4)
    >>> r.tightest is not None and r.bounds[0]["name"] == "basic"
    True
    """
    return Result(_qrenyi.compose(epsilon, k, delta, delta_total, base=base))


_MAX_ITEMS = 10**7


def _listed(x, depth=1):
    """One-shot iterables (generators, iterators) as lists, ``depth`` levels down; anything else is
    passed through unchanged to the binding's typed checks (which raise QrenyiError)."""
    if not isinstance(x, (str, bytes)) and hasattr(x, "__iter__") and not hasattr(x, "__len__"):
        x = list(itertools.islice(x, _MAX_ITEMS + 1))
        if len(x) > _MAX_ITEMS:
            raise _qrenyi.QrenyiError(f"an iterable of more than {_MAX_ITEMS} items where a list of pairs goes")
    if depth > 1 and isinstance(x, (list, tuple)):
        x = [_listed(i, depth - 1) for i in x]
    return x


def compose_zcdp(guarantees):
    """Compose (ξ_i, ρ_i)-zCDP guarantees: ``Result(xi=Σξ, rho=Σρ)`` (rounded up).

    >>> compose_zcdp([(0.0, 0.25), (0.0, 0.25)]).rho
    0.5
    """
    return Result(_qrenyi.compose_zcdp_(_listed(guarantees, 2)))


def compose_rdp(curves):
    """Compose RDP curves, each a list of (α, τ) at the same orders: the pointwise sum.

    >>> compose_rdp([[(2.0, 0.1), (4.0, 0.3)], [(2.0, 0.1), (4.0, 0.3)]])
    [(2.0, 0.2), (4.0, 0.6)]
    """
    return _qrenyi.compose_rdp_(_listed(curves, 3))


Mechanism = _qrenyi.Mechanism


def gaussian(sigma, sensitivity=1.0):
    """The Gaussian mechanism N(f(x), σ²) with ℓ2 sensitivity Δ.

    Methods ``rdp(alpha)``, ``delta(epsilon)`` (exact profile), ``epsilon(delta)``; ``to_dict()``
    has ``sigma``, ``sensitivity`` and ``zcdp_rho = Δ²/(2σ²)``.

    >>> round(gaussian(2.0).to_dict()["zcdp_rho"], 15)
    0.125
    """
    return _qrenyi.gaussian(sigma, sensitivity)


def calibrate_gaussian(epsilon, delta, sensitivity=1.0):
    """The Gaussian mechanism with the smallest σ that is (ε, δ)-DP (exact profile)."""
    return _qrenyi.calibrate_gaussian(epsilon, delta, sensitivity)


def laplace(scale, sensitivity=1.0):
    """The Laplace mechanism with scale b and ℓ1 sensitivity Δ (pure ε = Δ/b)."""
    return _qrenyi.laplace(scale, sensitivity)


def randomized_response(epsilon=None, *, p=None):
    """Binary randomized response, from ε or from the truth probability p ∈ [½, 1).

    >>> round(randomized_response(p=0.75).to_dict()["epsilon"], 12)   # ln 3
    1.098612288668
    """
    return _qrenyi.randomized_response(epsilon, p=p)


def qzcdp_check(rho, sigma, zcdp_rho, xi=0.0, *, family="sandwiched", symmetric=False, slack=1e-10,
                base="e"):
    """Certified check that D_α(ρ‖σ) ≤ ξ + ρ_zCDP·α for every α > 1 (``qrenyi qzcdp check``).

    ``rho``, ``sigma``: the neighbouring outputs (array-likes); ``family``: sandwiched (default),
    maximal or petz; ``symmetric``: also check D_α(σ‖ρ); ``base``: units of ξ, ρ_zCDP and the
    reported divergences. The result has ``holds``, ``status``
    (holds / violated / inconclusive), ``witness_alpha``, ``margin``, ``cover`` (certified
    intervals (lo, hi, d_hi)), ``evaluations`` and ``warnings``.

    >>> import numpy as np
    >>> r = qzcdp_check(np.diag([0.6, 0.4]), np.diag([0.4, 0.6]), zcdp_rho=0.1)
    >>> r.holds, r.status
    (True, 'holds')
    """
    return Result(
        _qrenyi.qzcdp_check(rho, sigma, zcdp_rho, xi, family=family, symmetric=symmetric,
                            slack=slack, base=base)
    )


def qzcdp_fit(rho, sigma, xi=0.0, *, family="sandwiched", symmetric=False, slack=1e-10,
              tolerance=1e-6, base="e"):
    """The smallest ρ_zCDP with D_α(ρ‖σ) ≤ ξ + ρ_zCDP·α for all α > 1 (``qrenyi qzcdp fit``).

    The result has ``zcdp_rho`` (certified upper bound within ``tolerance``), ``alpha`` (the
    maximising order), ``xi``, ``lower`` (best value found), ``evaluations``, ``warnings``.
    """
    return Result(
        _qrenyi.qzcdp_fit(
            rho, sigma, xi, family=family, symmetric=symmetric, slack=slack,
            tolerance=tolerance, base=base
        )
    )


def quantum_dp(rho, sigma, *, epsilon=None, delta=None, base="e"):
    """Quantum (ε, δ)-DP of a neighbouring pair (``qrenyi dp``): δ(ε) = max of the hockey-stick
    divergences E_{e^ε} in both orders, or the smallest ε with δ(ε) ≤ ``delta``.

    The result has ``epsilon``, ``delta``, ``pure_epsilon`` (D_max both ways) and ``base`` (the
    units of ε, given and returned).

    >>> import numpy as np
    >>> r = quantum_dp(np.diag([0.6, 0.4]), np.diag([0.4, 0.6]), epsilon=0.0)
    >>> round(r.delta, 12), round(r.pure_epsilon, 9)    # trace distance, ln 1.5 (rounded up)
    (0.2, 0.405465108)
    """
    return Result(_qrenyi.quantum_dp(rho, sigma, epsilon=epsilon, delta=delta, base=base))
