"""The counterexample search of ``qrenyi verify``, in-process, on one machine or on Dask.

A run is a deterministic function of (seed, trials, max_dim, shard): trial ``t`` of a statement
draws its instance from its own seed ``trial_seed(seed, name, t)``, so shards ``i/n`` (the trials
``t ≡ i (mod n)``) can run anywhere and :func:`merge` joins them into the single-process report.

>>> from qrenyi import verify
>>> [r] = verify.run("kl-nonnegative", trials=50, seed=1)
>>> r["lemma"], r["expected"], r["status"], r["trials"]
('kl-nonnegative', 'theorem', 'holds', 50)

Report dicts are the CLI's ``qrenyi verify --json`` output for the same run, key for key (±∞
margins are the strings ``"inf"``/``"-inf"`` there and here; ``seconds`` is wall time).

Custom statements written in Python run in the same engine (sampling, refinement,
confirmation), see :func:`statement`.
"""
import json

from . import _qrenyi
from ._args import fspath as _fspath, listed as _listed

__all__ = [
    "Statement",
    "statement",
    "statements",
    "run",
    "replay",
    "merge",
    "trial_seed",
    "run_dask",
]

Statement = _qrenyi.Statement
trial_seed = _qrenyi.trial_seed


def statements():
    """The built-in statements: dicts with name, source, expected, statement, default_trials
    (``qrenyi verify --list --json``).

    >>> s = statements()
    >>> any(x["name"] == "kl-nonnegative" for x in s)
    True
    """
    return json.loads(_qrenyi.verify_statements())


def _shard(shard):
    if shard is None:
        return (0, 1)
    if isinstance(shard, str):
        i, sep, n = shard.partition("/")
        if not sep:
            raise _qrenyi.QrenyiError(f'cannot parse shard: "{shard}": expected i/n, e.g. 0/4')
        try:
            return (int(i), int(n))
        except ValueError as e:
            raise _qrenyi.QrenyiError(f'cannot parse shard: "{shard}": {e}') from None
    return shard  # the binding checks it: a pair (i, n) of integers


def _lemmas(lemma):
    if lemma is None:
        return []
    if isinstance(lemma, (str, Statement)):
        return [lemma]
    try:
        lemmas = list(lemma)
    except TypeError:
        raise _qrenyi.QrenyiError(
            f"cannot parse lemma: expected a statement name or a qrenyi.verify.Statement, "
            f"got {lemma!r}"
        ) from None
    if not lemmas:
        # the binding reads an empty list as "every built-in statement" (lemma=None): an empty
        # selection must not run the whole registry
        raise _qrenyi.QrenyiError(
            "empty input: lemma: an empty sequence (lemma=None runs every built-in statement)"
        )
    return lemmas


def run(lemma=None, trials=None, seed=0, max_dim=None, shard=None, *, restarts=8, threads=None,
        save_dir=None):
    """Search for counterexamples; one report dict per statement.

    ``lemma``: a built-in statement name, a :class:`Statement`, or a list of them (default: every
    built-in statement). ``trials``: per statement (default: each statement's own). ``max_dim``:
    largest Hilbert-space dimension (default 4). ``shard``: ``(i, n)`` or ``"i/n"``, the trials
    ``t ≡ i (mod n)``. ``restarts``: refinement restarts (0 disables refinement). ``threads``:
    worker threads (default: all cores; at most 4 per core; results do not depend on
    it). ``save_dir``: where
    counterexamples are saved (default: not saved, unlike the CLI).
    """
    out = _qrenyi.verify_run(
        _lemmas(lemma),
        trials,
        seed,
        4 if max_dim is None else max_dim,
        _shard(shard),
        restarts,
        threads,
        None if save_dir is None else _fspath("save_dir", save_dir),
    )
    return json.loads(out)


def replay(path):
    """Recompute the margin of a saved counterexample (``qrenyi verify --replay FILE --json``):
    a dict with lemma, recorded_margin, margin, error, margin_nalgebra, margin_high_precision and
    violation (True when the violation is confirmed again)."""
    return json.loads(_qrenyi.verify_replay(_fspath("path", path)))


def merge(reports):
    """Join the reports of shards of one run (``qrenyi verify merge``): per statement, trials
    summed, the worst margin and a counterexample kept, shards united.

    ``reports``: report dicts, or lists of them (one list per shard).
    """
    flat = []
    for r in _listed("reports", reports):
        if isinstance(r, dict):
            flat.append(r)
        else:
            flat.extend(_listed("reports", r))
    try:
        text = json.dumps(flat)
    except (TypeError, ValueError) as e:
        raise _qrenyi.QrenyiError(f"cannot parse reports: {e}") from None
    return json.loads(_qrenyi.verify_merge(text))


def statement(name, sample, margin, *, expected="theorem", summary="", source="user", trials=1000):
    """A statement written in Python, run by the same engine as the built-in ones.

    ``sample(seed, max_dim) -> dict`` draws one instance: ``seed`` is a 64-bit integer from the
    engine's per-trial stream (seed your generator with it, e.g.
    ``numpy.random.default_rng(seed)``, so that runs are reproducible and shardable). Items: a
    ``d × d`` density matrix (array-like), a probability vector (1-D), a number (held fixed), or
    ``(value, lo, hi)`` (a number the refinement may move within ``[lo, hi]``).

    ``margin(instance) -> float | (value, error)``: ``instance`` maps the names to complex128
    arrays (states), float64 arrays (distributions) and floats; the statement holds on the
    instance when ``value ≥ 0``. A violation counts when ``value < −error`` (``error`` defaults to
    0: return an estimate of the rounding error of ``value``).

    ``expected``: "theorem" (a counterexample is a bug), "false" (must be refuted) or "open".

    Cost: the engine calls back into Python for every sample and every margin evaluation (about
    ``trials × (1 + refinement)`` calls), taking the GIL for each, so a Python statement runs at
    the speed of its Python code on one core (the engine's workers wait for the GIL in turn);
    built-in statements run in parallel without it. An exception raised by a callback stops the
    run and is re-raised as :class:`qrenyi.QrenyiError` (with the original as ``__cause__``).

    >>> import numpy as np, qrenyi
    >>> def sample(seed, max_dim):
    ...     rng = np.random.default_rng(seed)
    ...     g = rng.normal(size=(2, 2)) + 1j * rng.normal(size=(2, 2))
    ...     rho = g @ g.conj().T
    ...     return {"rho": rho / np.trace(rho).real, "sigma": np.eye(2) / 2}
    >>> def margin(inst):   # Umegaki relative entropy is nonnegative
    ...     return qrenyi.divergence(inst["rho"], inst["sigma"], "umegaki"), 1e-12
    >>> s = statement("umegaki-nonnegative", sample, margin, trials=20)
    >>> [r] = run(s, restarts=0)
    >>> r["status"], r["trials"], r["errors"]
    ('holds', 20, 0)
    """
    return Statement(name, sample, margin, expected=expected, summary=summary, source=source,
                     trials=trials)


def _run_shard(lemma, trials, seed, max_dim, shard, restarts, threads):
    """One shard on a worker (module-level so that Dask can pickle it by reference)."""
    return run(lemma, trials, seed, max_dim, shard, restarts=restarts, threads=threads)


def run_dask(lemma=None, trials=None, seed=0, max_dim=None, *, shards=None, client=None,
             restarts=8, threads_per_shard=1):
    """Run the search as ``shards`` Dask tasks (shard ``i/n`` each) and merge the reports.

    ``client``: a ``dask.distributed.Client`` (default: the current one, ``Client.current()``).
    ``shards``: number of shards (default: the number of worker threads of the cluster). Each
    task runs :func:`run` with ``shard=(i, n)`` on a worker, which must have ``qrenyi`` installed
    (``pip install 'qrenyi[dask]'``); the merged reports equal :func:`run` with the same
    arguments (same trials, margins and status; ``shards`` lists the ``n`` shards and
    ``seconds`` is the sum of the shards' times). With ``restarts > 0`` each shard refines its
    own worst instances, so the merged worst margin can be smaller than a single run's (never
    larger in status: a counterexample found by the single run's sampling is found by its shard);
    ``restarts=0`` makes the two identical. Custom :class:`Statement` objects cannot be sent to
    workers (they hold Python callables bound to this process); run built-in names.
    """
    try:
        from distributed import Client
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("run_dask needs dask distributed: pip install 'qrenyi[dask]'") from e
    client = client if client is not None else Client.current()
    if shards is None:
        shards = max(1, sum(client.nthreads().values()))
    lemmas = _lemmas(lemma)
    if any(isinstance(x, Statement) for x in lemmas):
        raise _qrenyi.QrenyiError(
            "cannot parse lemma: custom Python statements cannot be sent to Dask workers; "
            "run them with qrenyi.verify.run"
        )
    futures = [
        client.submit(_run_shard, lemmas or None, trials, seed, max_dim, (i, shards), restarts,
                      threads_per_shard, pure=False)
        for i in range(shards)
    ]
    return merge(client.gather(futures))
