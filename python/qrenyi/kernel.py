"""Kernel Rényi divergence of two samples and the privacy audit (``qrenyi kernel-divergence``,
``qrenyi audit``).

The samples are ``n × d`` arrays (a 1-D array is ``n`` one-dimensional samples). Results are
:class:`qrenyi.privacy.Result` objects with the CLI's ``--json`` keys.

>>> import numpy as np
>>> from qrenyi import kernel
>>> rng = np.random.default_rng(0)
>>> x, y = rng.normal(size=(200, 2)), rng.normal(size=(200, 2)) + 0.5
>>> r = kernel.divergence(x, y, alpha=2.0, lam=1e-3)
>>> r.value > 0, r.kernel, r.n
(True, 'rbf', 200)
"""
from . import _qrenyi
from ._args import fspath as _fspath, is_median as _is_median, listed as _listed
from ._result import Result

__all__ = ["divergence", "audit", "dp_lambda", "gaussian_experiment"]


def divergence(x, y, alpha, lam, *, bandwidth="median", kernel="rbf", base="e"):
    """D̃_α(Σ̂_P ‖ Σ̂_Q + λI) of the samples ``x`` ~ P and ``y`` ~ Q.

    ``bandwidth``: a positive number or ``"median"`` (median distance between the samples);
    ``kernel``: rbf = exp(−‖x−y‖²/b²), laplace = exp(−‖x−y‖/b), imq = (1 + ‖x−y‖²/b²)^(−1/2).
    ``base``: logarithm base of the value ("e", "2", "10"). The result has value, base,
    bandwidth, kernel, alpha, lambda, n, m.
    """
    return Result(_qrenyi.kernel_divergence(
        x, y, alpha, lam, bandwidth=None if _is_median(bandwidth) else bandwidth, kernel=kernel,
        base=base))


def audit(x, y, alpha, lam, *, epsilon=None, delta=None, rdp_tau=None, tau=None,
          bandwidth="median", pilot=None, kernel="rbf", level=0.05, method="finite-sample",
          replicates=200, fraction=0.5, seed=0):
    """Test a privacy claim from samples ``x`` of M(D) and ``y`` of M(D') (``qrenyi audit``).

    Null hypothesis — exactly one of: ``epsilon`` and ``delta`` ((ε,δ)-DP), ``rdp_tau`` (RDP at
    order α), ``tau`` (kernel RDP). ``lam``: λ, or ``"auto"`` with the (ε,δ)-DP hypothesis.
    ``pilot``: a pair of independent samples for the median bandwidth. ``method``:
    finite-sample (default), subsample or bootstrap (``replicates``, ``fraction``, ``seed``).
    The result has divergence, threshold, violation, tau, hypothesis, method, n, m,
    finite_sample, interval, assumptions, … (the CLI's ``--json`` keys).

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> x, y = rng.normal(size=(300, 1)), rng.normal(size=(300, 1)) + 0.1
    >>> audit(x, y, 2.0, "auto", epsilon=1.0, delta=1e-5).violation
    False
    """
    return Result(
        _qrenyi.kernel_audit(
            x, y, alpha, lam, epsilon=epsilon, delta=delta, rdp_tau=rdp_tau, tau=tau,
            bandwidth=None if _is_median(bandwidth) else bandwidth, pilot=pilot, kernel=kernel,
            level=level, method=method, replicates=replicates, fraction=fraction, seed=seed,
        )
    )


def dp_lambda(epsilon, delta):
    """The regularisation λ that ``lam="auto"`` uses under the (ε,δ)-DP hypothesis."""
    return _qrenyi.dp_lambda(epsilon, delta)


def gaussian_experiment(*, dim=30, n=(200, 400, 600), runs=5, alpha=(2, 6, 12), lambdas=None,
                        seed=2022, out=None, base="e"):
    """Seed 002's Figure 1 (``qrenyi audit gaussian-experiment``): the kernel Rényi divergence
    D̂_(α,λ) of samples of the Gaussian mechanism on adjacent inputs, against λ, for the paper's
    four mechanisms (Δ = 0 and Δ = 10 with (ε, δ) = (1, 0.005); Δ = 10 with (3, 0.03), (2, 0.2)).

    ``dim``: output dimension; ``n``: sample sizes (n = m); ``runs``: repetitions per n;
    ``alpha``: Rényi orders; ``lambdas``: regularisations (default: 13 log-spaced from 2.5e-4 to
    0.1); ``seed``: RNG seed — the CLI's flags, same defaults, same numbers. ``out``: a folder
    to write runs.csv, curves.csv, summary.md (and the figures when built with plotting), as the
    CLI's ``--out``. ``base``: ``"e"``, ``"2"`` or ``"10"``, as the CLI's ``--base``: every ε and
    divergence is reported in that unit and its key carries the unit, as the CSV columns do
    (``divergence_nats``, ``mean_bits``, …).

    The result has ``runs`` (one dict per row of runs.csv — the λ grid plus each mechanism's
    (ε,δ)-DP λ values: delta_sens, epsilon, delta, sigma, n,
    run, alpha, lambda, divergence_<unit>, bandwidth), ``curves`` (per row of curves.csv: …, n,
    alpha, lambda, mean_<unit>, std_<unit>, renyi_exact_<unit>), ``summary`` (summary.md) and ``files`` (paths written).

    >>> r = gaussian_experiment(dim=2, n=[20], runs=2, alpha=[2], lambdas=[0.01])
    >>> len(r.curves), sorted(r.curves[0])[:3]    # 4 mechanisms × 1 n × 1 α × 1 λ
    (4, ['alpha', 'delta', 'delta_sens'])
    >>> 'renyi_exact_nats' in r.curves[0]
    True
    >>> len(r.runs) > 8    # runs.csv also holds each mechanism's DP λ values
    True
    """
    return Result(
        _qrenyi.gaussian_experiment(
            dim=dim, n=_listed("n", n), runs=runs, alpha=_listed("alpha", alpha),
            lambdas=None if lambdas is None else _listed("lambdas", lambdas), seed=seed,
            out=None if out is None else _fspath("out", out), base=base,
        )
    )
