"""Smooth divergences as certified brackets (``qrenyi smooth``; docs/smooth.md).

Every value comes with a certified enclosure ``lower ≤ value ≤ upper`` (a primal point repaired
to feasibility gives ``upper``, a repaired dual point gives ``lower``); when the conic solver
cannot certify the target width 1e-6·max(1, |value|) the call raises :class:`qrenyi.QrenyiError`
(``smooth divergence not certified …``, with the width it reached), never a wrong number. The
programs run with the GIL released.

Results are :class:`SmoothResult` objects: ``.value``, ``.lower``, ``.upper``, ``.kind``,
``.epsilon``, ``.ball`` (``dmax`` only, else ``None``), ``.alpha`` (``smooth_renyi`` only),
``.base``; ``to_dict()`` is the CLI's ``--json`` object (``base`` present only when not ``"e"``,
as the CLI writes it; +∞ is ``math.inf`` where the CLI writes ``"inf"``).

>>> import numpy as np
>>> from qrenyi import smooth
>>> rho, sigma = np.diag([0.9, 0.1]), np.diag([0.2, 0.8])
>>> r = smooth.hypothesis_testing(rho, sigma, 0.1)
>>> r.lower <= r.value <= r.upper, round(r.value, 5)        # −ln 0.2 (Neyman–Pearson)
(True, 1.60944)
>>> round(smooth.dmax(rho, sigma, 0.1, ball="trace").value, 5)   # ln(0.8/0.2)
1.38629
"""
from . import _qrenyi
from ._result import Result

__all__ = ["SmoothResult", "hypothesis_testing", "dmax", "smooth_renyi"]

_DEFAULTS = {"base": "e", "ball": None, "alpha": None}


class SmoothResult(Result):
    """A certified bracket: ``value``, ``lower``, ``upper`` plus ``kind``, ``epsilon``, ``ball``,
    ``alpha`` and ``base`` (``ball``/``alpha`` are ``None`` where they do not apply, ``base``
    is ``"e"`` when not given — the keys the CLI leaves out are not in ``to_dict()``)."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self._fields[name]
        except KeyError:
            if name in _DEFAULTS:
                return _DEFAULTS[name]
            raise AttributeError(name) from None

    @property
    def width(self):
        """``upper − lower``."""
        return self.upper - self.lower


def hypothesis_testing(rho, sigma, epsilon, *, base="e"):
    """D_H^ε(ρ‖σ) = −ln min{Tr Qσ : 0 ≤ Q ≤ I, Tr Qρ ≥ 1 − ε}, ε ∈ [0, 1).

    ``rho``, ``sigma``: density matrices (any 2-D array-like, a QuTiP ``Qobj`` or a
    :class:`qrenyi.State`). ``base``: logarithm base of value, lower and upper ("e", "2", "10").
    The CLI: ``qrenyi smooth --kind hypothesis-testing --epsilon E --rho A --sigma B --json``.

    >>> import numpy as np
    >>> r = hypothesis_testing(np.diag([0.9, 0.1]), np.diag([0.2, 0.8]), 0.1, base="2")
    >>> round(r.value, 5), r.base, r.kind
    (2.32193, '2', 'hypothesis-testing')
    """
    return SmoothResult(_qrenyi.smooth_hypothesis_testing(rho, sigma, epsilon, base=base))


def dmax(rho, sigma, epsilon, *, ball="purified", base="e"):
    """Smooth max-divergence D_max^ε(ρ‖σ) = min over ρ̃ in the ε-ball around ρ of D_max(ρ̃‖σ),
    ε ∈ (0, 1).

    ``ball``: ``"purified"`` (purified distance √(1 − F̄²) ≤ ε, Tomamichel's convention),
    ``"trace"`` (generalised trace distance Tr(ρ − ρ̃)₊ ≤ ε, Tr ρ̃ ≤ 1) or ``"trace-unbounded"``
    (the same without Tr ρ̃ ≤ 1: the variant for which D_max^δ ≤ ε ⟺ E_{e^ε}(ρ‖σ) ≤ δ).
    The CLI: ``qrenyi smooth --kind dmax --ball B --epsilon E --rho A --sigma B --json``.

    >>> import numpy as np
    >>> r = dmax(np.diag([0.9, 0.1]), np.diag([0.2, 0.8]), 0.1)
    >>> r.kind, r.ball, r.lower <= r.value <= r.upper, r.width <= 1e-6 * max(1, abs(r.value))
    ('dmax', 'purified', True, True)
    """
    return SmoothResult(_qrenyi.smooth_dmax(rho, sigma, epsilon, ball=ball, base=base))


def smooth_renyi(p, q, delta, alpha, *, base="e"):
    """Seed 000's classical smooth Rényi divergence D_α^δ(P‖Q) (Definition 12, α > 1; α = ∞:
    D_∞^δ of Definition 11), δ ∈ [0, 1) (δ ∈ (0, 1) for α = ∞): the Rényi divergence minimised over the probability
    vectors P' at total-variation distance ≤ δ from P.

    ``alpha``: a number → one :class:`SmoothResult`; a sequence → a list of them (one per order,
    ``math.inf`` allowed). Each has ``kind="smooth-renyi"``, ``epsilon`` (= δ, the CLI's key),
    ``alpha``, value, lower, upper. The CLI's object ``qrenyi smooth --kind smooth-renyi
    --epsilon δ --p … --q … --alpha … --json`` holds ``kind``, ``epsilon`` (and ``base``) once
    and the per-order keys ``alpha, value, lower, upper`` in its ``values`` list.

    >>> import math
    >>> p, q = [0.6, 0.4], [0.3, 0.7]
    >>> round(smooth_renyi(p, q, 0.0, 2.0).value, 5)          # δ = 0: ln Σ p²/q
    0.35667
    >>> rs = smooth_renyi(p, q, 0.1, [2.0, math.inf])
    >>> len(rs), rs[1].alpha, round(rs[1].value, 5)           # ln((0.6 − 0.1)/0.3)
    (2, inf, 0.51083)
    """
    out = _qrenyi.smooth_renyi(p, q, delta, alpha, base=base)
    if isinstance(out, list):
        return [SmoothResult(d) for d in out]
    return SmoothResult(out)
