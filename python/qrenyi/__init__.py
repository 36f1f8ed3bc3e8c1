"""qrenyi — quantum Rényi divergences you can trust, in-process from Python.

The compiled core is the Rust crate ``qrenyi`` (the same code as the ``qrenyi`` command line
tool, so the same numbers); this package converts numpy arrays, nested lists and QuTiP objects
(anything with ``.full()``) on the way in and returns floats and float64 arrays.

>>> import numpy as np, qrenyi
>>> rho, sigma = np.diag([0.7, 0.3]), np.eye(2) / 2
>>> round(qrenyi.divergence(rho, sigma, "sandwiched", 2.0), 12)
0.148420005118
>>> qrenyi.divergence(rho, np.diag([1.0, 0.0]), "umegaki")
inf

Sub-modules: :mod:`qrenyi.privacy` (zCDP/RDP ↔ (ε, δ), composition, mechanisms, certified
qzCDP), :mod:`qrenyi.verify` (the counterexample search, custom statements, Dask shards),
:mod:`qrenyi.kernel` (kernel Rényi divergence of samples, the audit, seed 002's Gaussian
experiment), :mod:`qrenyi.smooth` (smooth divergences as certified brackets).

Every error is a :class:`QrenyiError` (a ``ValueError``) whose message is the one the CLI prints
after ``error:``. Conventions (natural logarithms unless ``base`` says otherwise, +∞ as
``math.inf``, limits at α = 1 and α = ∞, root fidelity) are those of docs/conventions.md.
"""
from ._blas import ensure_coretype as _ensure_coretype

_ensure_coretype()

from ._qrenyi import (  # noqa: E402
    Pair,
    QrenyiError,
    State,
    __version__,
    backends,
    divergence,
    kinds,
    validate,
)
from . import kernel, privacy, smooth, verify  # noqa: E402

__all__ = [
    "Pair",
    "QrenyiError",
    "State",
    "__version__",
    "backends",
    "divergence",
    "kernel",
    "kinds",
    "privacy",
    "smooth",
    "validate",
    "verify",
]
