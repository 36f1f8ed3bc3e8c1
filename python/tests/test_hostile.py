"""Hostile inputs (attack18): every one raises QrenyiError (a ValueError) saying what and by how
much — never a TypeError/OverflowError from argument conversion, an abort on a huge declared
shape, a silently dropped imaginary part, or a statement reported as holding when nothing was
verified. Ctrl-C in a callback stays a KeyboardInterrupt."""
import math
import os
from fractions import Fraction

import numpy as np
import pytest

import qrenyi
from qrenyi import QrenyiError, kernel, privacy, smooth, verify

RHO = np.diag([0.7, 0.3])
SIGMA = np.eye(2) / 2
X = np.random.default_rng(0).normal(size=(12, 2))

NOT_NUMBERS = [None, "1", True, np.bool_(True), 2 + 1j, np.complex64(2 + 1j), [2.0],
               np.array([[2.0]]), object()]


@pytest.mark.parametrize("bad", NOT_NUMBERS, ids=repr)
def test_real_arguments_refuse_non_numbers_with_a_qrenyi_error(bad):
    calls = [
        lambda: qrenyi.Pair(RHO, SIGMA).renyi("petz", bad),
        lambda: qrenyi.Pair(RHO, SIGMA).hockey_stick(bad),
        lambda: privacy.zcdp_to_dp(bad, delta=1e-5),
        lambda: privacy.rdp_to_dp(2.0, bad, delta=1e-5),
        lambda: privacy.pure_to_zcdp(bad),
        lambda: privacy.compose(bad, 10),
        lambda: privacy.gaussian(bad),
        lambda: privacy.calibrate_gaussian(1.0, bad),
        lambda: privacy.laplace(bad),
        lambda: privacy.gaussian(1.0).rdp(bad),
        lambda: privacy.qzcdp_check(RHO, SIGMA, bad),
        lambda: privacy.compose_zcdp([(0.0, bad)]),
        lambda: privacy.compose_rdp([[(2.0, bad)]]),
        lambda: kernel.divergence(X, X + 1, bad, 0.1),
        lambda: kernel.dp_lambda(1.0, bad),
        lambda: smooth.hypothesis_testing(RHO, SIGMA, bad),
        lambda: smooth.smooth_renyi([0.7, 0.3], [0.5, 0.5], bad, 2.0),
    ]
    for call in calls:
        with pytest.raises(QrenyiError, match="expected a real number|expected real numbers"):
            call()


def test_complex_parameters_are_not_silently_truncated():
    # numpy's float() drops the imaginary part with only a ComplexWarning
    with pytest.raises(QrenyiError, match=r"complex64"):
        privacy.compose(np.complex64(2 + 1j), 10)
    with pytest.raises(QrenyiError, match="expected real numbers"):
        qrenyi.divergence(RHO, SIGMA, "petz", np.array([2 + 1j]))
    with pytest.raises(QrenyiError, match="expected real numbers"):
        qrenyi.divergence(RHO, SIGMA, "petz", np.array([True]))
    with pytest.raises(QrenyiError, match="bool"):
        qrenyi.divergence(RHO, SIGMA, "petz", True)


def test_real_numbers_of_every_kind_are_still_accepted():
    want = qrenyi.divergence(RHO, SIGMA, "petz", 2.0)
    for a in [2, np.float32(2.0), np.int8(2), np.uint64(2), np.longdouble(2.0), np.array(2.0),
              Fraction(2)]:
        assert qrenyi.Pair(RHO, SIGMA).renyi("petz", a) == pytest.approx(want, rel=1e-15)
    for a in [np.array([2.0], dtype=np.float16), np.array([2], dtype=np.int64),
              np.array([2.0, 3.0], dtype=object)[:1], np.arange(1.0, 4.0)[::-1][1:2]]:
        assert qrenyi.divergence(RHO, SIGMA, "petz", a)[0] == pytest.approx(want, rel=1e-15)
    assert privacy.compose(np.float64(0.1), np.int64(10)).k == 10


BAD_INTEGERS = [(None, "None"), (2.0, "2.0"), (2.5, "2.5"), (math.nan, "nan"), (True, "True"),
                ("3", "'3'"), (-1, "-1"), (2**64, str(2**64)), (np.complex64(2), "complex64")]


@pytest.mark.parametrize("bad,shown", BAD_INTEGERS, ids=repr)
def test_integer_arguments_say_the_value_and_the_range(bad, shown):
    calls = [
        lambda: privacy.compose(0.1, bad),
        lambda: verify.trial_seed(bad, "x", 0),
        lambda: verify.run("kl-nonnegative", trials=5 if bad is None else bad, restarts=bad),
        lambda: verify.run("kl-nonnegative", trials=5, seed=bad, restarts=0),
        lambda: verify.run("kl-nonnegative", trials=5, restarts=bad),
        lambda: verify.statement("s", print, print, trials=bad),
        lambda: kernel.audit(X, X + 1, 2.0, 0.1, tau=0.1, replicates=bad, method="bootstrap"),
        lambda: kernel.gaussian_experiment(dim=bad, n=[20], runs=1, alpha=[2.0]),
    ]
    for call in calls:
        with pytest.raises(QrenyiError, match="expected an integer in 0..=") as e:
            call()
        assert shown in str(e.value)


def test_seeds_beyond_u64_and_negative_seeds_are_refused():
    assert verify.trial_seed(2**64 - 1, "x", 0) == verify.trial_seed(2**64 - 1, "x", 0)
    for s in [-1, 2**64, 10**30]:
        with pytest.raises(QrenyiError, match=r"0\.\.=18446744073709551615"):
            verify.trial_seed(s, "x", 0)


@pytest.mark.parametrize("shard", ["-1/2", "1/-2", "0/99999999999999999999999", (0.5, 2), (True, 2),
                                   (0,), 3, math.nan, (-1, 2)], ids=repr)
def test_bad_shards_are_qrenyi_errors(shard):
    with pytest.raises(QrenyiError, match="shard|integer"):
        verify.run("kl-nonnegative", trials=4, restarts=0, shard=shard)


@pytest.mark.parametrize("bad", [None, 1.0, "ab", [1.0], [(1.0,)], [(1.0, 2.0, 3.0)]], ids=repr)
def test_compose_lists_of_pairs_are_checked(bad):
    with pytest.raises(QrenyiError, match="guarantees"):
        privacy.compose_zcdp(bad)
    with pytest.raises(QrenyiError, match="curves"):
        privacy.compose_rdp(bad if bad is None or not isinstance(bad, list) else [bad])


HUGE = 10**13  # declared entries (8e13 bytes as float64: beyond any host); a broadcast view holds one


@pytest.mark.parametrize("make", [
    lambda: np.broadcast_to(np.array(0.5), (HUGE // 10**5, 10**6)),
    lambda: np.broadcast_to(np.array(0.5 + 0j), (10**6, 10**6)),
    lambda: np.broadcast_to(SIGMA, (HUGE, 2, 2)),
], ids=["float64 matrix", "complex128 matrix", "stack"])
def test_huge_broadcast_views_are_refused_before_allocating(make):
    for call in [lambda m: qrenyi.divergence(m, SIGMA, "umegaki"),
                 lambda m: qrenyi.validate(m),
                 lambda m: privacy.quantum_dp(m, SIGMA, epsilon=1.0)]:
        with pytest.raises(QrenyiError, match=r"needs .* bytes as complex128: more than this"):
            call(make())


@pytest.mark.parametrize("make", [
    lambda: np.broadcast_to(np.array(2.0, dtype=object), (HUGE,)),
    lambda: np.broadcast_to(np.array(2, dtype=np.int64), (HUGE,)),
    lambda: np.broadcast_to(np.array(2.0, dtype=np.float32), (HUGE,)),
], ids=["object", "int64", "float32"])
def test_huge_views_of_other_dtypes_are_refused_before_numpy_converts_them(make):
    # review26: an object view's entries were collected (an index and a reference each) and other
    # dtypes cast by numpy.asarray before any size check — the object view filled the machine
    with pytest.raises(QrenyiError, match=r"cannot parse alpha: an array of shape \(10000000000000\)"):
        qrenyi.divergence(RHO, SIGMA, "petz", make())
    with pytest.raises(QrenyiError, match=r"cannot parse rho: an array of shape"):
        qrenyi.divergence(np.broadcast_to(make()[:1].reshape(1, 1), (10**6, 10**6)), SIGMA, "umegaki")


@pytest.mark.skipif(not hasattr(os, "sysconf"), reason="reads the machine's memory (sysconf)")
def test_object_views_are_bounded_by_what_their_check_holds():
    # as float64 the view fits in memory; the check's index and reference per entry (≥ 40 bytes)
    # do not. Under an address-space limit (`ulimit -v`) the float64 reservation is refused first:
    # also a refusal before any copy
    entries = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 16
    view = np.broadcast_to(np.array(2.0, dtype=object), (entries,))
    with pytest.raises(QrenyiError, match=r"cannot parse alpha: .* as (indexed object references: "
                       r"more than this machine's memory|float64: more than this machine can allocate)"):
        qrenyi.divergence(RHO, SIGMA, "petz", view)


def test_masked_views_without_a_mask_are_refused_before_allocating():
    # review26b: counting the masked entries built a mask of the declared shape first
    view = np.ma.masked_array(np.broadcast_to(SIGMA.astype(complex), (HUGE, 2, 2)))
    with pytest.raises(QrenyiError, match=r"needs .* bytes as complex128"):
        qrenyi.divergence(view, SIGMA, "umegaki")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"),
                    reason="reads the resident set from /proc/self/statm (Linux)")
def test_a_large_call_returns_its_memory():
    # review26: with mimalloc for every block, the 256 MB of copies of this call stayed resident
    # after it returned (≈ 500 MB measured: mimalloc purges lazily); blocks of 4 MiB and more go to
    # the system allocator, which unmaps them on free or keeps up to its own thresholds (32 MiB
    # per arena at most; 10–48 MiB measured, more arenas with more threads)
    def resident():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    rho = np.broadcast_to(np.diag([0.25, 0.25, 0.25, 0.25]).astype(complex), (10**6, 4, 4))
    qrenyi.divergence(rho[:1000], rho[:1000], "trace-distance")
    before = resident()
    out = qrenyi.divergence(rho, rho, "trace-distance")
    assert out.shape == (10**6,) and not out.any()
    del out
    grown = resident() - before
    assert grown < 192 << 20, f"{grown / 2**20:.0f} MiB still resident after the call"


def test_huge_parameter_and_sample_views_are_refused_before_allocating():
    alphas = np.broadcast_to(np.array(2.0), (HUGE,))
    with pytest.raises(QrenyiError, match=r"cannot parse alpha: an array of shape \(10000000000000\)"):
        qrenyi.divergence(RHO, SIGMA, "petz", alphas)
    with pytest.raises(QrenyiError, match="alphas"):
        qrenyi.Pair(RHO, SIGMA).curve("petz", alphas)
    with pytest.raises(QrenyiError, match="cannot parse p"):
        smooth.smooth_renyi(np.broadcast_to(np.array(0.5), (HUGE,)), [0.5, 0.5], 0.1, 2.0)
    x = np.broadcast_to(np.array(1.0), (10**7, 10**4))
    with pytest.raises(QrenyiError, match="cannot parse x"):
        kernel.divergence(x, X, 2.0, 0.1)
    # the result of a real stack × a real alpha list: 10⁶ pairs × 10⁷ orders
    stack = np.broadcast_to(SIGMA, (10**6, 2, 2)).copy()
    with pytest.raises(QrenyiError, match="cannot parse result"):
        qrenyi.divergence(stack, SIGMA, "petz", np.broadcast_to(np.array(2.0), (10**7,)))


def test_a_statement_that_never_evaluates_does_not_hold():
    for margin in [lambda x: math.nan, lambda x: (1.0, math.nan)]:
        s = verify.statement("s-nan", lambda t, d: {"x": 1.0}, margin, trials=5)
        with pytest.raises(QrenyiError, match=r'statement "s-nan": all 5 trials failed.*NaN'):
            verify.run(s, trials=5, restarts=0)


def test_keyboard_interrupt_in_a_callback_stays_a_keyboard_interrupt():
    def margin(x):
        raise KeyboardInterrupt

    s = verify.statement("s-kbi", lambda t, d: {"x": 1.0}, margin, trials=5)
    with pytest.raises(KeyboardInterrupt):
        verify.run(s, trials=5, restarts=0, threads=1)

    class Qobj:
        def full(self):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        qrenyi.divergence(Qobj(), SIGMA, "umegaki")
    # and the library still works
    assert qrenyi.divergence(RHO, SIGMA, "trace-distance") == pytest.approx(0.2)


def test_compose_takes_generators_and_iterators():
    # the typed converters read sequences; one-shot iterables are listed first (bounded)
    assert privacy.compose_zcdp((0.0, r) for r in (0.25, 0.25)).rho == 0.5
    curve = [(2.0, 0.1), (4.0, 0.3)]
    assert privacy.compose_rdp(iter([iter(curve), curve])) == [(2.0, 0.2), (4.0, 0.6)]
    with pytest.raises(QrenyiError, match="guarantees"):
        privacy.compose_zcdp(x for x in [None])


# --- audit21 -------------------------------------------------------------------------------------

def _statement(sample, margin=lambda inst: 1.0):
    return verify.statement("hostile", sample, margin, trials=5)


@pytest.mark.parametrize("item", [math.nan, math.inf, np.float64(math.nan), (1.0, 0.0, math.inf),
                                  (1.0, math.nan, 2.0), True], ids=repr)
def test_statement_number_items_must_be_finite_real_numbers(item):
    # a NaN item panicked in the refinement's clamp ("internal error"); ±∞ became NaN once moved
    with pytest.raises(QrenyiError) as e:
        verify.run(_statement(lambda seed, d: {"x": item}), restarts=2)
    assert "internal error" not in str(e.value)


def test_statement_finite_number_items_still_run():
    [r] = verify.run(_statement(lambda seed, d: {"x": 2.0, "y": (0.5, 0.0, 1.0)}), restarts=2)
    assert r["status"] == "holds"


def test_a_margin_of_minus_infinity_everywhere_verifies_nothing():
    # was: status "holds", worst margin "inf"
    with pytest.raises(QrenyiError, match="all 5 trials had margin −∞"):
        verify.run(_statement(lambda seed, d: {"x": 1.0}, lambda inst: -math.inf))


@pytest.mark.parametrize("threads", [0, 10**6])
def test_verify_threads_are_bounded(threads):
    # threads=10**6 got the interpreter killed (a million rayon workers' stacks)
    with pytest.raises(QrenyiError, match=r"invalid threads = \d+: must lie in 1\.\.="):
        verify.run("kl-nonnegative", trials=1, threads=threads)


def test_an_empty_list_of_statements_is_an_error_not_every_statement():
    with pytest.raises(QrenyiError, match="empty input: lemma"):
        verify.run([], trials=1)


def test_masked_arrays_with_masked_entries_are_refused():
    masked = np.ma.array(SIGMA, mask=[[0, 1], [0, 0]])
    for call in [lambda: qrenyi.divergence(masked, SIGMA, "fidelity"),
                 lambda: qrenyi.divergence(RHO, masked, "petz", 2.0),
                 lambda: qrenyi.validate(masked),
                 lambda: qrenyi.divergence(RHO, SIGMA, "petz", np.ma.array([1.0, 2.0], mask=[0, 1])),
                 lambda: kernel.divergence(np.ma.array(X, mask=X > 1), X, 2.0, 0.1)]:
        with pytest.raises(QrenyiError, match="masked array with"):
            call()
    # nothing masked: the values are the plain array's
    assert qrenyi.divergence(np.ma.array(RHO), SIGMA, "petz", 2.0) == \
        qrenyi.divergence(RHO, SIGMA, "petz", 2.0)


def test_messages_say_by_how_much():
    with pytest.raises(QrenyiError, match=r"trace is 1 \+ 1\.000e-6, expected"):
        qrenyi.validate(np.diag([0.5 + 1e-6, 0.5]))
    with pytest.raises(QrenyiError, match=r"^invalid epsilon = 1e300: must lie in \(0, 1\)$"):
        smooth.dmax(RHO, SIGMA, 1e300)


# --- trust22 -------------------------------------------------------------------------------------

NON_NUMERIC_MATRICES = [
    (np.array([["0.5", "0"], ["0", "0.5"]]), r"dtype <U3: strings"),
    (np.array([[b"0.5", b"0"], [b"0", b"0.5"]]), r"dtype \|S3: strings"),
    (np.array([["0.5", "0"], ["0", "0.5"]], dtype=object), r"entry \[0, 0\] is '0.5'.*strings"),
    (np.array([[True, False], [False, False]]), r"dtype bool: booleans"),
    ([[True, False], [False, False]], r"entry \[0, 0\] is True.*booleans"),
    ([[1, 0], [0, True]], r"entry \[1, 1\] is True.*booleans"),
    ([[0.5, None], [None, 0.5]], r"entry \[0, 1\] is None"),
    ([["0.5", 0], [0, 0.5]], r"entry \[0, 0\] is '0.5'.*strings"),
    ([[np.bool_(True), 0], [0, 0]], r"entry \[0, 0\] is .*booleans"),
    (np.array([["2020-01-01"] * 2] * 2, dtype="datetime64[D]"), r"dtype datetime64\[D\]: dates"),
]


@pytest.mark.parametrize("bad,msg", NON_NUMERIC_MATRICES, ids=lambda x: str(x)[:30])
def test_non_numeric_arrays_are_refused_naming_the_dtype(bad, msg):
    # numpy parsed "0.5" as 0.5 and True as 1: a string/bool matrix was a valid state
    for call in [lambda: qrenyi.divergence(bad, SIGMA, "umegaki"),
                 lambda: qrenyi.divergence(SIGMA, bad, "trace-distance"),
                 lambda: qrenyi.validate(bad),
                 lambda: qrenyi.Pair(bad, SIGMA)]:
        with pytest.raises(QrenyiError, match="not a numeric array: .*" + msg):
            call()
    stack = np.stack([np.asarray(bad, dtype=object)] * 3) if isinstance(bad, list) else np.stack([bad] * 3)
    with pytest.raises(QrenyiError, match="not a numeric array"):
        qrenyi.divergence(stack, SIGMA, "petz", 2.0)


@pytest.mark.parametrize("bad", [np.array(["0.5", "2"]), np.array(["2"], dtype=object), ["2", 3.0],
                                 [True, 2.0], [2.0, None], np.array([b"2"])], ids=repr)
def test_non_numeric_parameter_sequences_are_refused(bad):
    with pytest.raises(QrenyiError, match="not a numeric array|expected real numbers|string"):
        qrenyi.divergence(RHO, SIGMA, "petz", bad)
    with pytest.raises(QrenyiError, match="not a numeric array|expected real numbers|string"):
        qrenyi.Pair(RHO, SIGMA).curve("petz", bad)


def test_non_numeric_samples_are_refused():
    for bad in [X.astype(str), X > 0, X.astype(object).astype(str).astype(object), X + 1j]:
        with pytest.raises(QrenyiError, match=r"cannot parse x: not a numeric array: .*"
                                              r"(dtype|entry)"):
            kernel.divergence(bad, X, 2.0, 0.1)


def test_numbers_of_every_kind_still_make_matrices():
    want = qrenyi.divergence(RHO, SIGMA, "umegaki")
    for ok in [RHO.tolist(), RHO.astype(np.float32), RHO.astype(object), np.asfortranarray(RHO),
               RHO.T.copy().T, [[Fraction(7, 10), 0], [0, Fraction(3, 10)]], (RHO[0], RHO[1]),
               [[0.7 + 0j, 0], [0, 0.3]], RHO.astype(np.longdouble)]:
        assert qrenyi.divergence(ok, SIGMA, "umegaki") == pytest.approx(want, rel=1e-6)
    assert kernel.divergence(X.tolist(), X.astype(np.float32), 2.0, 0.1) is not None


@pytest.mark.parametrize("margin", [lambda inst: True, lambda inst: (True, 0.0),
                                    lambda inst: (1.0, False), lambda inst: "1.0",
                                    lambda inst: np.bool_(True), lambda inst: 1 + 0j,
                                    lambda inst: (1.0, 2.0, 3.0), lambda inst: [1.0]],
                         ids=["True", "(True, 0)", "(1, False)", "str", "np.bool_", "complex",
                              "triple", "list"])
def test_margins_must_be_real_numbers(margin):
    # `True` was read as the margin 1.0 (the statement "held")
    s = verify.statement("s-bool-margin", lambda seed, d: {"x": 1.0}, margin, trials=3)
    with pytest.raises(QrenyiError, match="margin function must return a real number"):
        verify.run(s, restarts=0, threads=1)


@pytest.mark.parametrize("item", [(True, 0.0, 2.0), (1.0, False, 2.0), ("1", 0.0, 2.0),
                                  np.array([True, False]), np.array(["0.5", "0.5"]),
                                  np.array([[True, False], [False, False]]), None, np.bool_(True)],
                         ids=repr)
def test_statement_items_refuse_booleans_and_strings(item):
    with pytest.raises(QrenyiError) as e:
        verify.run(_statement(lambda seed, d: {"x": item}), restarts=0, threads=1)
    assert "internal error" not in str(e.value)


def test_statement_numpy_number_items_still_run():
    [r] = verify.run(_statement(lambda seed, d: {"x": np.int64(2), "y": np.array(0.5),
                                                 "p": np.array([0.25, 0.75]),
                                                 "rho": RHO.tolist()}),
                     restarts=1, threads=1)
    assert r["status"] == "holds"


@pytest.mark.parametrize("item,msg", [
    (np.eye(33) / 33, r"dimension of the state \"x\" = 33: must be at most 32.*\(1 over"),
    (np.broadcast_to(np.eye(1), (5000, 5000)), r"= 5000: must be at most 32.*\(4968 over"),
    (np.full(1025, 1 / 1025), r"length of the distribution \"x\" = 1025: must be at most 1024.*\(1 over"),
])
def test_statement_items_are_bounded_by_the_search_limits(item, msg):
    # a sampler returning a 5000 × 5000 state held the search for minutes per trial
    with pytest.raises(QrenyiError, match=msg):
        verify.run(_statement(lambda seed, d: {"x": item}), restarts=0, threads=1)


def test_largest_statement_items_still_run():
    [r] = verify.run(_statement(lambda seed, d: {"x": np.eye(32) / 32, "p": np.full(1024, 1 / 1024)}),
                     trials=2, restarts=0, threads=1)
    assert r["status"] == "holds"


def test_an_input_of_an_earlier_call_may_be_a_later_output(tmp_path):
    # the registry of inputs was process-wide: a file that one call read (here a replayed
    # counterexample copied to out/runs.csv) could never be an output of a later call
    [r] = verify.run("petz-below-sandwiched", trials=60, seed=1, max_dim=3, save_dir=tmp_path)
    saved = r["counterexample"]["file"]
    out = tmp_path / "out"
    out.mkdir()
    import shutil
    for f in tmp_path.iterdir():
        if f.is_file():
            shutil.copy(f, out / f.name)
    shutil.copy(saved, out / "runs.csv")
    assert verify.replay(out / "runs.csv")["violation"] is True
    kernel.gaussian_experiment(dim=2, n=[20], runs=1, alpha=[2], lambdas=[0.01], out=out)
    assert not (out / "runs.csv").read_text().startswith("{")
    # no temporary files left beside the outputs
    assert not [f for f in out.iterdir() if f.name.startswith(".tmp-")]


def test_huge_experiment_dimensions_are_refused_before_allocating():
    # dim=10**12 asked for 160 TB of samples: the interpreter aborted
    with pytest.raises(QrenyiError, match=r"invalid dim = 1000000000000: at most 13421772 with n = 20"
                                          r".*999986578228 over"):
        kernel.gaussian_experiment(dim=10**12, n=[20], runs=1, alpha=[2], lambdas=[0.01])


def test_stacks_of_empty_matrices_are_refused_before_allocating():
    # 10⁹ matrices of 0 × 0: no bytes to copy, but the result (8 GB) aborted the interpreter
    empty = np.broadcast_to(np.zeros((1, 0, 0)), (10**9, 0, 0))
    for call in [lambda: qrenyi.divergence(empty, SIGMA, "umegaki"),
                 lambda: qrenyi.divergence(empty, empty, "umegaki"),
                 lambda: qrenyi.divergence(RHO, np.zeros((3, 2, 0)), "petz", 2.0)]:
        with pytest.raises(QrenyiError, match=r"empty input: (rho|sigma): a stack of \d+ matrices "
                                              r"of shape"):
            call()


@pytest.mark.parametrize("restarts", [10**9, 2**64 - 1])
def test_restarts_are_bounded(restarts):
    # restarts=10**9 reserved 48 GB before the first trial: the interpreter aborted
    with pytest.raises(QrenyiError, match=r"invalid restarts = .*: must lie in 0\.\.=65536 \(\d+ over"):
        verify.run("kl-nonnegative", trials=1, restarts=restarts, threads=1)


def test_classical_smooth_outcomes_are_bounded():
    # 10⁷ outcomes: 10⁷ × 10⁷ diagonal states (α = ∞) or 10⁷ power cones; the interpreter aborted
    p = np.full(10**7, 1e-7)
    for alpha in [2.0, math.inf]:
        with pytest.raises(QrenyiError, match=r"invalid number of outcomes = 10000000: .* at most 4096 "
                                              r"outcomes \(9995904 over"):
            smooth.smooth_renyi(p, p, 0.1, alpha)
