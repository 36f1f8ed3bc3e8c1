"""qrenyi.verify: the CLI's reports, custom Python statements, replay, merge, Dask shards."""
import json

import numpy as np
import pytest

import qrenyi
from qrenyi import verify


def strip(reports):
    """Reports without the wall time (the only field that differs between two identical runs)."""
    return [{k: v for k, v in r.items() if k != "seconds"} for r in reports]


def test_statements_match_cli(cli):
    code, out, err = cli("verify", "--list", "--json")
    assert code == 0, err
    assert verify.statements() == json.loads(out)


@pytest.mark.parametrize("lemma,trials,seed", [
    ("kl-nonnegative", 200, 3),
    ("bounded-divergence", 40, 7),
    ("petz-below-sandwiched", 60, 1),   # known false: a counterexample is found and confirmed
])
def test_run_matches_cli(cli, lemma, trials, seed):
    code, out, err = cli("verify", "--lemma", lemma, "--trials", trials, "--seed", seed,
                         "--max-dim", 3, "--json", "--no-save")
    assert code == 0, err
    got = verify.run(lemma, trials=trials, seed=seed, max_dim=3)
    assert strip(got) == strip(json.loads(out))


def test_shards_merge_to_the_full_run():
    full = verify.run(["kl-nonnegative", "bounded-divergence"], trials=30, seed=5, max_dim=3, restarts=0)
    parts = [verify.run(["kl-nonnegative", "bounded-divergence"], trials=30, seed=5, max_dim=3,
                        shard=f"{i}/3", restarts=0) for i in range(3)]
    merged = verify.merge(parts)
    for m, f in zip(merged, full):
        assert m["shards"] == [[0, 3], [1, 3], [2, 3]]
        for k in f:
            if k not in ("seconds", "shards"):
                assert m[k] == f[k], k


def test_counterexample_saved_and_replayed(tmp_path, cli):
    [r] = verify.run("petz-below-sandwiched", trials=60, seed=1, max_dim=3, save_dir=tmp_path)
    assert r["status"] == "refuted" and r["counterexample"]["file"]
    path = r["counterexample"]["file"]
    rep = verify.replay(path)
    assert rep["lemma"] == "petz-below-sandwiched" and rep["violation"] is True
    code, out, err = cli("verify", "--replay", path, "--json")
    assert code == 0, err
    assert rep == json.loads(out)


def _ginibre_state(rng, d):
    g = rng.normal(size=(d, d)) + 1j * rng.normal(size=(d, d))
    m = g @ g.conj().T
    return m / np.trace(m).real


def test_custom_statement_holds_and_is_deterministic():
    def sample(seed, max_dim):
        rng = np.random.default_rng(seed)
        d = int(rng.integers(2, max_dim + 1))
        return {"rho": _ginibre_state(rng, d), "sigma": _ginibre_state(rng, d), "alpha": (2.0, 1.0, 5.0)}

    def margin(inst):  # sandwiched ≤ maximal
        a = inst["alpha"]
        s = qrenyi.divergence(inst["rho"], inst["sigma"], "sandwiched", a)
        m = qrenyi.divergence(inst["rho"], inst["sigma"], "maximal", a)
        return m - s, 1e-9 * max(1.0, abs(m))

    st = verify.statement("sandwiched-below-maximal", sample, margin, summary="D~ ≤ D^", trials=40)
    assert st.name == "sandwiched-below-maximal" and st.expected == "theorem" and st.default_trials == 40
    a = verify.run(st, seed=2, max_dim=3, restarts=1)
    b = verify.run([st], seed=2, max_dim=3, restarts=1, threads=1)
    assert strip(a) == strip(b)
    assert a[0]["status"] == "holds" and a[0]["trials"] == 40 and a[0]["errors"] == 0
    assert a[0]["statement"] == "D~ ≤ D^" and a[0]["source"] == "user"


def test_custom_false_statement_is_refuted():
    def sample(seed, max_dim):
        rng = np.random.default_rng(seed)
        return {"p": rng.dirichlet(np.ones(3)), "x": (float(rng.uniform(0, 1)), 0.0, 1.0)}

    def margin(inst):  # false: "every probability is below x"
        return inst["x"] - inst["p"].max()

    [r] = verify.run(verify.statement("false-claim", sample, margin, expected="false", trials=30),
                     seed=0, restarts=2)  # only refinement starts are put through confirmation
    assert r["status"] == "refuted" and r["expected"] == "false"
    assert r["counterexample"]["margin"] < 0


def test_callback_exception_is_reraised():
    def sample(seed, max_dim):
        return {"rho": np.eye(2) / 2}

    def margin(inst):
        raise ZeroDivisionError("bad margin")

    st = verify.statement("broken", sample, margin, trials=5)
    with pytest.raises(qrenyi.QrenyiError, match="bad margin") as e:
        verify.run(st, restarts=0)
    assert isinstance(e.value.__cause__, ZeroDivisionError)

    with pytest.raises(qrenyi.QrenyiError, match="dict"):
        verify.run(verify.statement("no-dict", lambda s, d: 3, margin, trials=2), restarts=0)


def test_dask_two_workers_equals_single_process():
    distributed = pytest.importorskip("distributed", reason="dask distributed not installed (pip install 'qrenyi[dask]')")
    lemmas = ["kl-nonnegative", "data-processing-sandwiched"]
    single = verify.run(lemmas, trials=24, seed=9, max_dim=3, restarts=0)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            assert len(client.nthreads()) == 2
            merged = verify.run_dask(lemmas, trials=24, seed=9, max_dim=3, restarts=0, shards=4,
                                     client=client)
    assert [m["lemma"] for m in merged] == lemmas
    for m, f in zip(merged, single):
        assert m["shards"] == [[i, 4] for i in range(4)]
        for k in f:
            if k not in ("seconds", "shards"):
                assert m[k] == f[k], k
