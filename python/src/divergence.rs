//! `qrenyi.divergence`, `qrenyi.Pair`, `qrenyi.validate` / `qrenyi.State`.

use crate::convert::{self, Operand, Params};
use crate::{detach_if, guard, guard_py, parse_error, to_py, GIL_HELD_UP_TO};
use ndarray::{Array1, Array2, Array3, Axis};
use num_complex::Complex64;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use qrenyi::divergence::batch::{self, PARALLEL_BELOW};
use qrenyi::divergence::{Family, Pair};
use qrenyi::spectral::{with_single_blas_thread, Backend};
use qrenyi::state::{DensityMatrix, Tolerance};
use qrenyi::{Base, Error, Result};
use rayon::prelude::*;
use std::sync::Mutex;

/// The quantities `qrenyi.divergence(…, kind)` computes (the CLI's `--kind` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Petz, sandwiched or maximal Rényi divergence (needs α).
    Renyi(Family),
    /// Umegaki relative entropy.
    Umegaki,
    /// Belavkin–Staszewski relative entropy.
    Bs,
    /// Max-relative entropy.
    Max,
    /// Hockey-stick divergence (needs γ).
    HockeyStick,
    /// Trace distance.
    TraceDistance,
    /// Root fidelity `F = ‖√ρ√σ‖₁`.
    Fidelity,
    /// Squared fidelity `F²`.
    SquaredFidelity,
}

/// Every kind name, in the CLI's order.
pub const KIND_NAMES: [&str; 10] = [
    "petz",
    "sandwiched",
    "maximal",
    "umegaki",
    "bs",
    "max",
    "hockey-stick",
    "trace-distance",
    "fidelity",
    "squared-fidelity",
];

impl Kind {
    /// The kind called `s`.
    pub fn parse(s: &str) -> Result<Kind> {
        Ok(match s {
            "petz" => Kind::Renyi(Family::Petz),
            "sandwiched" => Kind::Renyi(Family::Sandwiched),
            "maximal" => Kind::Renyi(Family::Maximal),
            "umegaki" => Kind::Umegaki,
            "bs" => Kind::Bs,
            "max" => Kind::Max,
            "hockey-stick" => Kind::HockeyStick,
            "trace-distance" => Kind::TraceDistance,
            "fidelity" => Kind::Fidelity,
            "squared-fidelity" => Kind::SquaredFidelity,
            other => {
                return Err(Error::Parse {
                    what: "kind".into(),
                    reason: format!(
                        "unknown kind {other:?} (expected {})",
                        KIND_NAMES.join(", ")
                    ),
                })
            }
        })
    }

    /// The parameter the kind takes, if any.
    fn param(self) -> Option<&'static str> {
        match self {
            Kind::Renyi(_) => Some("alpha"),
            Kind::HockeyStick => Some("gamma"),
            _ => None,
        }
    }

    /// Whether the value is a logarithm (so that `base` applies).
    fn logarithmic(self) -> bool {
        matches!(self, Kind::Renyi(_) | Kind::Umegaki | Kind::Bs | Kind::Max)
    }
}

/// The `kind` argument of `qrenyi.divergence`: a `str` naming a kind, returned as the
/// `&'static str` of [`KIND_NAMES`]; an unknown name is the CLI's error for `--kind`, any other
/// object a `QrenyiError` naming `kind` (never PyO3's `TypeError`).
fn kind_name(obj: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    convert::one_of("kind", obj, &KIND_NAMES, |t| {
        Kind::parse(t).err().unwrap_or_else(|| Error::Parse {
            what: "kind".into(),
            reason: format!("unknown kind {t:?}"),
        })
    })
}

/// The logarithm base called `s` ("e", "2", "10"; `qrenyi::Base`).
pub fn base_of(s: &str) -> Result<Base> {
    s.parse()
}

/// The eigensolver backend named `s` (`"auto"` is the default).
pub fn backend(s: &str) -> Result<Backend> {
    s.parse()
}

/// Validate a matrix as a density matrix with the default tolerance and `backend`.
fn validate_matrix(m: Array2<Complex64>, backend: Backend) -> Result<DensityMatrix> {
    DensityMatrix::with_options(m, Tolerance::default(), backend)
}

/// Validate the operand called `what` ("rho", "sigma") with the default tolerance and backend;
/// a validation error reads as the CLI's for a file called `what` ("cannot parse rho: …").
pub fn validate_named(what: &str, m: Array2<Complex64>) -> Result<DensityMatrix> {
    validate_as(what, m, Backend::default())
}

fn validate_as(what: &str, m: Array2<Complex64>, backend: Backend) -> Result<DensityMatrix> {
    validate_matrix(m, backend).map_err(|e| Error::Parse {
        what: what.into(),
        reason: e.to_string(),
    })
}

/// The values of `kind` at the parameters `ps` (one value when the kind takes no parameter).
/// The GPU's direct route (`divergence::sandwiched_from_matrices`: validation on the device, σ
/// decomposed, ρ not) for sandwiched orders > 1 of two single matrices when `backend` puts their
/// dimension on the GPU (a build with the `cuda` feature); `None` otherwise, and on any error,
/// which the states route then reports with the operand's name.
fn on_gpu_direct(
    rho: &Operand,
    sigma: &Operand,
    kind: Kind,
    ps: &[f64],
    backend: Backend,
) -> Option<Vec<f64>> {
    let (Operand::Matrix(r), Operand::Matrix(s)) = (rho, sigma) else {
        return None;
    };
    let direct = kind == Kind::Renyi(Family::Sandwiched)
        && !ps.is_empty()
        && ps.iter().all(|&a| a > 1.0 && a.is_finite())
        && r.dim() == s.dim()
        && backend.uses_gpu(r.nrows());
    if !direct {
        return None;
    }
    qrenyi::divergence::sandwiched_from_matrices(
        r.clone(),
        s.clone(),
        ps,
        Tolerance::default(),
        backend,
    )
    .ok()
}

/// Sandwiched at one finite order `α > 1` of two single raw matrices with `d ≤ 16` under
/// `Backend::Auto`: the core's stack-array route (`sandwiched_from_raw`: the value of
/// `states_direct` + `Pair::renyi` to rounding, no heap matrix and no BLAS call for the
/// products); `None` where it declines (then `states_direct`, which also words every error).
fn sandwiched_raw(
    rho: &Operand,
    sigma: &Operand,
    kind: Kind,
    ps: &[f64],
    backend: Backend,
) -> Option<f64> {
    match (rho, sigma, ps) {
        (Operand::Matrix(r), Operand::Matrix(s), &[alpha])
            if kind == Kind::Renyi(Family::Sandwiched) && backend == Backend::Auto =>
        {
            qrenyi::divergence::sandwiched_from_raw(r.view(), s.view(), alpha, Tolerance::default())
        }
        _ => None,
    }
}

/// The hockey-stick divergence or trace distance of two single raw matrices, through the core's
/// `difference_from_matrices` (the PSD checks beside the eigensolve; the same errors as
/// validating each operand with `validate_as` and evaluating a `Pair`); `None` for other kinds
/// and operands, which come back unchanged.
fn difference_direct(
    rho: Operand,
    sigma: Operand,
    kind: Kind,
    ps: &[f64],
    backend: Backend,
) -> std::result::Result<PyResult<Vec<f64>>, Box<(Operand, Operand)>> {
    use qrenyi::divergence::difference::{difference_from_matrices, Difference, Operand as Which};
    let what = match kind {
        Kind::HockeyStick => Difference::HockeyStick(ps),
        Kind::TraceDistance => Difference::TraceDistance,
        _ => return Err(Box::new((rho, sigma))),
    };
    let (r, s) = match (rho, sigma) {
        (Operand::Matrix(r), Operand::Matrix(s)) => (r, s),
        other => return Err(Box::new(other)),
    };
    let out = difference_from_matrices(r, s, what, Tolerance::default(), backend);
    Ok(out.map_err(|(which, e)| {
        let what = match which {
            Some(Which::Rho) => "rho",
            Some(Which::Sigma) => "sigma",
            None => return to_py(e),
        };
        to_py(Error::Parse {
            what: what.into(),
            reason: e.to_string(),
        })
    }))
}

/// The quantity of `small_direct` for `kind` at `ps` on these operands: Petz at one order and
/// Umegaki of two single raw matrices where the core's `small_pair_applies` (`4 ≤ d ≤ 16`,
/// `Backend::Auto`, an order that is valid and not 2); `None` otherwise (checked on borrowed
/// operands: a call that takes another route pays no move or allocation for it).
fn small_quantity(
    rho: &Operand,
    sigma: &Operand,
    kind: Kind,
    ps: &[f64],
    backend: Backend,
) -> Option<qrenyi::divergence::from_matrices::SmallQuantity> {
    use qrenyi::divergence::from_matrices::{small_pair_applies, SmallQuantity};
    let quantity = match (kind, ps) {
        (Kind::Renyi(Family::Petz), &[a]) => SmallQuantity::Petz(a),
        (Kind::Umegaki, _) => SmallQuantity::Umegaki,
        _ => return None,
    };
    match (rho, sigma) {
        (Operand::Matrix(r), Operand::Matrix(s))
            if r.dim() == s.dim() && small_pair_applies(r.nrows(), quantity, backend) =>
        {
            Some(quantity)
        }
        _ => None,
    }
}

/// `quantity` ([`small_quantity`]) of two single raw matrices through the core's
/// `small_pair_from_matrices` (no states, no `Pair`; the same value bit for bit, the same errors
/// as `states_direct` then `evaluate`): `Ok(value)` in the natural logarithm, `Err(states)` where
/// the core's route declines after validating (the states go on to `Pair`'s route).
#[allow(clippy::type_complexity)]
fn small_direct(
    rho: Array2<Complex64>,
    sigma: Array2<Complex64>,
    quantity: qrenyi::divergence::from_matrices::SmallQuantity,
    backend: Backend,
) -> PyResult<std::result::Result<f64, (DensityMatrix, DensityMatrix)>> {
    use qrenyi::divergence::difference::Operand as Which;
    use qrenyi::divergence::from_matrices::{small_pair_from_matrices, SmallOutcome};
    match small_pair_from_matrices(rho, sigma, quantity, Tolerance::default(), backend) {
        Ok(SmallOutcome::Value(v)) => Ok(Ok(v)),
        Ok(SmallOutcome::States(r, s)) => Ok(Err((r, s))),
        Err((which, e)) => {
            let what = match which {
                Some(Which::Sigma) => "sigma",
                _ => "rho",
            };
            Err(to_py(Error::Parse {
                what: what.into(),
                reason: e.to_string(),
            }))
        }
    }
}

/// The two validated states of two single raw matrices for a quantity that builds a `Pair` (every
/// kind but the hockey-stick and the trace distance), through the core's `states_from_matrices`: a
/// state the quantity decomposes anyway is checked from its decomposition (no Cholesky; both
/// states, except ρ of sandwiched orders all finite and `> 1`, which the direct route never
/// decomposes, and both states of Petz and maximal at α = 2 alone, of maximal at finite orders
/// `≥ 1` and of the fidelity at `d ≤ 16`: the Cholesky routes), the two PSD steps side by side where a second core is free. The same errors as
/// `validate_as` on ρ, then σ. Every dimension: below the small kernels' limit
/// (`qrenyi::divergence::small::SMALL_SPECTRAL_MAX`) too, where the kernels evaluate from the
/// same two decompositions (the Cholesky factorisation before them was extra work). `None` for
/// other kinds and operands, which come back unchanged.
#[allow(clippy::type_complexity)]
fn states_direct(
    rho: Operand,
    sigma: Operand,
    kind: Kind,
    ps: &[f64],
    backend: Backend,
) -> std::result::Result<PyResult<(DensityMatrix, DensityMatrix)>, Box<(Operand, Operand)>> {
    use qrenyi::divergence::difference::Operand as Which;
    use qrenyi::divergence::{states_from_matrices, Check};
    let pair_kind = !matches!(kind, Kind::HockeyStick | Kind::TraceDistance);
    let (r, s) = match (rho, sigma) {
        (Operand::Matrix(r), Operand::Matrix(s)) if pair_kind => (r, s),
        other => return Err(Box::new(other)),
    };
    let direct =
        kind == Kind::Renyi(Family::Sandwiched) && ps.iter().all(|&a| a > 1.0 && a.is_finite());
    let rho_check = if direct {
        Check::Cholesky
    } else {
        Check::Decomposed
    };
    // Petz and maximal at α = 2 alone: the Cholesky route (docs/divergences.md,
    // "order_two_cholesky") decomposes neither state; where its certificate fails the pair
    // decomposes them then
    let order_two = matches!(
        kind,
        Kind::Renyi(Family::Petz) | Kind::Renyi(Family::Maximal)
    ) && !ps.is_empty()
        && ps.iter().all(|&a| a == 2.0);
    // maximal at finite orders ≥ 1: the whitened route (docs/divergences.md, "maximal_whitened")
    // decomposes neither state; where it declines the pair decomposes them then
    let whitened = kind == Kind::Renyi(Family::Maximal)
        && !ps.is_empty()
        && ps.iter().all(|&a| a >= 1.0 && a.is_finite())
        && qrenyi::divergence::whitened::covers(r.nrows())
        && (ps.len() == 1 || r.nrows() >= qrenyi::divergence::whitened::WHITENED_CURVE_FROM);
    // the root fidelity at d ≤ 16 on `Backend::Auto`: the Cholesky route (docs/divergences.md,
    // "fidelity_cholesky") decomposes neither state; where it declines the pair decomposes both
    let fidelity = matches!(kind, Kind::Fidelity | Kind::SquaredFidelity)
        && backend == Backend::Auto
        && r.nrows() <= qrenyi::divergence::fidelity::FIDELITY_CHOLESKY_MAX;
    let checks = if order_two || whitened || fidelity {
        (Check::Cholesky, Check::Cholesky)
    } else {
        (rho_check, Check::Decomposed)
    };
    Ok(
        states_from_matrices(r, s, checks, Tolerance::default(), backend).map_err(|(which, e)| {
            let what = match which {
                Some(Which::Sigma) => "sigma",
                _ => "rho",
            };
            to_py(Error::Parse {
                what: what.into(),
                reason: e.to_string(),
            })
        }),
    )
}

pub fn evaluate(pair: &Pair, kind: Kind, ps: &[f64], base: Base) -> Result<Vec<f64>> {
    let mut v = match kind {
        Kind::Renyi(f) => {
            if ps.len() == 1 {
                vec![pair.renyi(f, ps[0])?]
            } else {
                pair.curve(f, ps)?
            }
        }
        Kind::HockeyStick => ps
            .iter()
            .map(|&g| pair.hockey_stick(g))
            .collect::<Result<_>>()?,
        Kind::Umegaki => vec![pair.umegaki()?],
        Kind::Bs => vec![pair.belavkin_staszewski()?],
        Kind::Max => vec![pair.max_relative_entropy()?],
        Kind::TraceDistance => vec![pair.trace_distance()?],
        Kind::Fidelity => vec![pair.fidelity()?],
        Kind::SquaredFidelity => vec![pair.squared_fidelity()?],
    };
    if kind.logarithmic() {
        v.iter_mut().for_each(|x| *x = base.scale(*x));
    }
    Ok(v)
}

/// A validated operand: one state or a stack of not yet validated matrices.
enum Side {
    One(DensityMatrix),
    Many(Array3<Complex64>),
}

impl Side {
    fn from(what: &'static str, op: Operand, backend: Backend) -> Result<Side> {
        Ok(match op {
            Operand::State(s) => Side::One(restate(s, backend)?),
            Operand::Matrix(m) => Side::One(validate_as(what, m, backend)?),
            Operand::Stack(v) => Side::Many(v),
        })
    }
    fn len(&self) -> Option<usize> {
        match self {
            Side::One(_) => None,
            Side::Many(v) => Some(v.shape()[0]),
        }
    }
    fn dim(&self) -> usize {
        match self {
            Side::One(s) => s.dim(),
            Side::Many(v) => v.shape()[1],
        }
    }
    fn get(&self, what: &str, k: usize, backend: Backend) -> Result<DensityMatrix> {
        match self {
            Side::One(s) => Ok(s.clone()),
            Side::Many(v) => validate_as(what, v.index_axis(Axis(0), k).to_owned(), backend),
        }
    }
}

/// A `qrenyi.State` used with an explicit backend other than its own is re-validated with it.
fn restate(s: DensityMatrix, backend: Backend) -> Result<DensityMatrix> {
    if backend == Backend::Auto || backend == s.backend() {
        Ok(s)
    } else {
        s.with_backend(backend)
    }
}

/// The values for a stack of pairs, row-major `n × width`, in parallel under the core's batch
/// policy (rayon across pairs with single-threaded BLAS below `PARALLEL_BELOW`, sequential
/// above); `Err((k, e))` for the first pair `k` (in order) that fails.
fn stack_values(
    rho: &Side,
    sigma: &Side,
    pairs: std::ops::Range<usize>,
    kind: Kind,
    ps: &[f64],
    base: Base,
    backend: Backend,
) -> std::result::Result<Vec<f64>, (usize, Error)> {
    let n = pairs.len();
    let first = pairs.start;
    if let (Kind::Renyi(family), Backend::Auto) = (kind, backend) {
        // the core's stack route (allocation-light validation and the small-pair kernel), written
        // straight into one buffer
        fn op(side: &Side, pairs: std::ops::Range<usize>) -> batch::Operand<'_> {
            match side {
                Side::One(s) => batch::Operand::State(s),
                Side::Many(v) => batch::Operand::Array(v.slice_axis(Axis(0), pairs.into())),
            }
        }
        return match batch::renyi_stacks_flat(
            op(rho, pairs.clone()),
            op(sigma, pairs.clone()),
            family,
            ps,
            Tolerance::default(),
        ) {
            Ok(Ok(mut flat)) => {
                flat.iter_mut().for_each(|x| *x = base.scale(*x));
                Ok(flat)
            }
            Ok(Err(e)) => Err(e),
            Err(e) => Err((0, e)),
        };
    }
    let one = |k: usize| -> Result<Vec<f64>> {
        if let Some(v) = difference_raw_pair(rho, sigma, first + k, kind, ps, backend) {
            return Ok(v);
        }
        let r = rho.get("rho", first + k, backend)?;
        let s = sigma.get("sigma", first + k, backend)?;
        evaluate(&Pair::new(&r, &s)?, kind, ps, base)
    };
    let rows: Vec<Result<Vec<f64>>> = if rho.dim().max(sigma.dim()) >= PARALLEL_BELOW || n < 2 {
        (0..n).map(one).collect()
    } else {
        with_single_blas_thread(|| (0..n).into_par_iter().map(one).collect())
    };
    let mut flat = Vec::with_capacity(n * ps.len().max(1));
    for (k, r) in rows.into_iter().enumerate() {
        flat.extend(r.map_err(|e| (k, e))?);
    }
    Ok(flat)
}

/// Pair `k` of a stack of the hockey-stick or the trace distance by the core's stack-array route
/// (`difference_from_raw`: `Backend::Auto`, small `d`; a shared `qrenyi.State` only when its own
/// backend is `Auto`, so that the values are those of its `Pair`): the value of the states route
/// bit for bit, without building either state. `None`: the states route answers (and reports the
/// pair's error).
fn difference_raw_pair(
    rho: &Side,
    sigma: &Side,
    k: usize,
    kind: Kind,
    ps: &[f64],
    backend: Backend,
) -> Option<Vec<f64>> {
    use qrenyi::divergence::difference::{difference_from_raw, Difference};
    let what = match kind {
        Kind::HockeyStick => Difference::HockeyStick(ps),
        Kind::TraceDistance => Difference::TraceDistance,
        _ => return None,
    };
    fn view(side: &Side, k: usize) -> Option<ndarray::ArrayView2<'_, Complex64>> {
        match side {
            Side::One(s) if s.backend() == Backend::Auto => Some(s.matrix().view()),
            Side::One(_) => None,
            Side::Many(v) => Some(v.index_axis(Axis(0), k)),
        }
    }
    if backend != Backend::Auto {
        return None;
    }
    difference_from_raw(view(rho, k)?, view(sigma, k)?, what, Tolerance::default())
}

/// A chunk size forced by `_set_stack_chunk_for_tests` (0: [`stack_chunk`]'s).
static STACK_CHUNK_OVERRIDE: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

/// Pairs per chunk of a stack of `d × d` pairs at `width` orders: about 10 ms of work
/// between two polls for Ctrl-C, under a rough cost model of one pair (8·d³·(1 + width/2) ns +
/// 400 ns, one core), times the workers sharing a chunk (below `PARALLEL_BELOW`), as a multiple
/// of 64 pairs so that the core's lane groups (`batch::LANES` pairs) fall as in one call; at
/// least 1 pair (from `PARALLEL_BELOW` on the pairs run one after the other). Stacks of at most
/// one chunk — every small stack of the benchmarks — run as one call, with no poll.
pub fn stack_chunk(d: usize, width: usize) -> usize {
    const CHUNK_WORK_NS: f64 = 10e6;
    let forced = STACK_CHUNK_OVERRIDE.load(std::sync::atomic::Ordering::Relaxed);
    if forced > 0 {
        return forced;
    }
    let d = d as f64;
    let pair_ns = 8.0 * d * d * d * (1.0 + width as f64 / 2.0) + 400.0;
    let pairs = CHUNK_WORK_NS / pair_ns;
    if d as usize >= PARALLEL_BELOW {
        return (pairs as usize).max(1);
    }
    let workers = rayon::current_num_threads().max(1) as f64;
    let pairs = (pairs * workers).max(4.0 * workers).min(1e7) as usize;
    pairs.div_ceil(64) * 64
}

/// Force the chunk size of stacks (`n > 0`) or restore the automatic one (`n = 0`); for the
/// tests that compare chunked and unchunked results bit for bit.
#[pyfunction]
fn _set_stack_chunk_for_tests(#[pyo3(from_py_with = crate::convert::count)] n: usize) {
    STACK_CHUNK_OVERRIDE.store(n, std::sync::atomic::Ordering::Relaxed);
}

/// [`stack_values`] over the whole stack of `n` pairs, [`stack_chunk`] pairs at a time, running
/// Python's signal handlers between chunks (the GIL taken for ≈ 1 µs): Ctrl-C stops a long stack
/// within about one chunk's work (≈ 10 ms) and raises `KeyboardInterrupt`. Every pair's value is
/// computed exactly as in one call over the stack (each pair is evaluated alone; chunks are
/// multiples of the lane groups), so the result is the same bit for bit; the first failing pair
/// is reported with its index in the whole stack.
#[allow(clippy::too_many_arguments)]
fn stack_chunked(
    rho: &Side,
    sigma: &Side,
    n: usize,
    kind: Kind,
    ps: &[f64],
    base: Base,
    backend: Backend,
) -> PyResult<Vec<f64>> {
    let chunk = stack_chunk(rho.dim().max(sigma.dim()), ps.len().max(1)).max(1);
    let fail = |(k, e): (usize, Error)| crate::QrenyiError::new_err(format!("pair {k}: {e}"));
    if n <= chunk {
        return stack_values(rho, sigma, 0..n, kind, ps, base, backend).map_err(fail);
    }
    let mut flat = Vec::with_capacity(n * ps.len().max(1));
    let mut start = 0;
    while start < n {
        if start > 0 {
            crate::check_signals_detached()?;
        }
        let mut end = (start + chunk).min(n);
        if n - end == 1 {
            // no chunk of one pair: below `PARALLEL_BELOW` the core runs a lone pair without the
            // one-BLAS-thread pin of a stack, which could round differently
            end = n;
        }
        let part = stack_values(rho, sigma, start..end, kind, ps, base, backend)
            .map_err(|(k, e)| fail((start + k, e)))?;
        flat.extend_from_slice(&part);
        start = end;
    }
    Ok(flat)
}

/// `f()`, with BLAS and faer pinned to one thread when `single` (`with_single_blas_thread`).
/// Whether one matrix of dimension `d` is of the mid sizes (`GIL_HELD_UP_TO < d < PARALLEL_BELOW`)
/// that run with BLAS on one thread: a second BLAS thread gains nothing there and its hand-offs
/// cost more than they save (`qrenyi.validate` at d = 64: 96 µs with two BLAS threads, 46 µs with
/// one; docs/PERFORMANCE.md, "Small and mid sizes in-process").
fn mid_size(d: usize) -> bool {
    GIL_HELD_UP_TO < d && d < PARALLEL_BELOW
}

/// Whether two single matrices (no stacks) are below `PARALLEL_BELOW` and not both of the sizes
/// that never reach a threaded BLAS call (`≤ GIL_HELD_UP_TO`): the mid sizes of [`mid_size`].
fn mid_pair(rho: &Operand, sigma: &Operand) -> bool {
    rho.single_below(PARALLEL_BELOW)
        && sigma.single_below(PARALLEL_BELOW)
        && !(rho.single_below(GIL_HELD_UP_TO + 1) && sigma.single_below(GIL_HELD_UP_TO + 1))
}

fn single_blas_if<T>(single: bool, f: impl FnOnce() -> T) -> T {
    if single {
        with_single_blas_thread(f)
    } else {
        f()
    }
}

impl Operand {
    /// Whether this is one matrix or state (not a stack) of dimension below `d`.
    fn single_below(&self, d: usize) -> bool {
        match self {
            Operand::Matrix(m) => m.nrows().max(m.ncols()) < d,
            Operand::State(s) => s.dim() < d,
            Operand::Stack(_) => false,
        }
    }

    /// Whether the work on this operand is large enough to release the GIL for (a stack, or
    /// `d > GIL_HELD_UP_TO`).
    fn releases_gil(&self) -> bool {
        match self {
            Operand::Matrix(m) => m.nrows() > GIL_HELD_UP_TO,
            Operand::State(s) => s.dim() > GIL_HELD_UP_TO,
            Operand::Stack(_) => true,
        }
    }
}

/// The result of `divergence` before conversion to Python.
enum Out {
    Scalar(f64),
    Vector(Vec<f64>),
    Matrix(Array2<f64>),
}

/// The divergence `kind` of ρ and σ.
///
/// `rho`, `sigma`: density matrices — numpy arrays of any real or complex float dtype, nested
/// lists, objects with `.full()` (QuTiP `Qobj`) or `qrenyi.State` (validated once, reused) — or
/// `n × d × d` stacks (one operand may be a single matrix, broadcast against the other's stack).
///
/// `kind`: "petz", "sandwiched", "maximal" (Rényi divergences, need `alpha`), "umegaki", "bs"
/// (Belavkin–Staszewski), "max" (D_max), "hockey-stick" (E_γ, needs `gamma`), "trace-distance",
/// "fidelity" (root fidelity F = ‖√ρ√σ‖₁), "squared-fidelity" (F²).
///
/// `alpha` / `gamma`: a number (→ a float) or a sequence (→ a float64 array, one value per
/// order; a Rényi curve reuses the α-independent work). Stacks add a leading axis `n`: shape
/// `(n,)` or `(n, len(alpha))`; the pairs are evaluated in parallel with the GIL released.
///
/// `base`: "e" (nats, default), "2" (bits) or "10", for the logarithmic kinds (Rényi, umegaki,
/// bs, max); `backend`: the eigensolver ("auto", "lapack", "lapack-mrrr", "nalgebra", "faer").
/// +∞ (e.g. `supp ρ ⊄ supp σ`) is `math.inf`. Errors raise `qrenyi.QrenyiError`.
///
/// >>> import numpy as np, qrenyi
/// >>> rho, sigma = np.diag([0.7, 0.3]), np.eye(2) / 2
/// >>> round(qrenyi.divergence(rho, sigma, "petz", 2.0), 12)          # ln 2 + ln 0.58
/// 0.148420005118
/// >>> qrenyi.divergence(rho, sigma, "sandwiched", [0.5, 1.0, float("inf")]).round(6)
/// array([0.042639, 0.082283, 0.336472])
/// >>> round(qrenyi.divergence(rho, sigma, "umegaki", base="2"), 12)
/// 0.118709100769
/// >>> qrenyi.divergence(np.stack([rho, sigma]), sigma, "trace-distance")
/// array([0.2, 0. ])
#[pyfunction]
#[pyo3(signature = (rho, sigma, kind, alpha=None, gamma=None, *, base="e", backend="auto"))]
#[allow(clippy::too_many_arguments)]
fn divergence<'py>(
    py: Python<'py>,
    rho: &Bound<'py, PyAny>,
    sigma: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = kind_name)] kind: &str,
    alpha: Option<&Bound<'py, PyAny>>,
    gamma: Option<&Bound<'py, PyAny>>,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
    #[pyo3(from_py_with = crate::convert::backend)] backend: &str,
) -> PyResult<Py<PyAny>> {
    let kind_v = Kind::parse(kind).map_err(to_py)?;
    let base = base_of(base).map_err(to_py)?;
    let be = self::backend(backend).map_err(to_py)?;
    let alpha = convert::params("alpha", alpha)?;
    let gamma = convert::params("gamma", gamma)?;
    let params = match (kind_v.param(), &alpha, &gamma) {
        (Some("alpha"), a, Params::Absent) => a,
        (Some("gamma"), Params::Absent, g) => g,
        (None, Params::Absent, Params::Absent) => &Params::Absent,
        (p, _, _) => {
            let given = if matches!(alpha, Params::Absent) {
                "gamma"
            } else {
                "alpha"
            };
            return Err(parse_error(
                given,
                match p {
                    Some(p) => format!("kind {kind:?} takes {p}, not {given}"),
                    None => format!("kind {kind:?} takes no parameter"),
                },
            ));
        }
    };
    if let (Some(p), Params::Absent) = (kind_v.param(), params) {
        return Err(parse_error(p, format!("kind {kind:?} needs {p}")));
    }
    let ps = params.values();
    let seq = matches!(params, Params::Seq(_));
    let rho = convert::operand("rho", rho)?;
    let sigma = convert::operand("sigma", sigma)?;
    let pairs = rho.stack_len().max(sigma.stack_len());
    // one value per pair and parameter, and one per pair without a parameter (`umegaki` of a
    // stack: `ps` is empty, the result still has `pairs` values)
    convert::check_alloc("result", &[pairs, ps.len().max(1)], 8, "float64")?;
    let release = rho.releases_gil() || sigma.releases_gil() || ps.len() > GIL_HELD_UP_TO;
    // one pair of mid size (GIL_HELD_UP_TO < d < PARALLEL_BELOW): BLAS and faer on one thread
    // (the batch's thread policy for these sizes: a second BLAS thread gains nothing here, and its
    // hand-offs stall behind other spinning thread pools — docs/PERFORMANCE.md, "Small and mid
    // sizes in-process"); smaller pairs never reach a threaded BLAS call and skip the pin's cost
    let single = mid_pair(&rho, &sigma);
    // two single matrices of a quantity that builds a `Pair`: the core's large-size thread policy
    let single_dim = match (&rho, &sigma) {
        (Operand::Matrix(r), Operand::Matrix(_))
            if !matches!(kind_v, Kind::HockeyStick | Kind::TraceDistance) =>
        {
            r.nrows()
        }
        _ => 0,
    };
    let out = detach_if(py, release, || {
        qrenyi::divergence::with_large_policy(single_dim, be, || {
            guard_py(|| {
                single_blas_if(single, || {
                    // a single pair's values as the call's result: a vector for a sequence of
                    // orders, else its one value
                    let shaped = |v: Vec<f64>| {
                        if seq {
                            Out::Vector(v)
                        } else {
                            Out::Scalar(v[0])
                        }
                    };
                    let difference = matches!(kind_v, Kind::HockeyStick | Kind::TraceDistance);
                    let (rho, sigma) = if !difference {
                        (rho, sigma)
                    } else {
                        match difference_direct(rho, sigma, kind_v, &ps, be) {
                            Ok(v) => return Ok(shaped(v?)),
                            Err(operands) => *operands,
                        }
                    };
                    if let Some(v) = on_gpu_direct(&rho, &sigma, kind_v, &ps, be) {
                        return Ok(shaped(v.into_iter().map(|x| base.scale(x)).collect()));
                    }
                    if let Some(v) = sandwiched_raw(&rho, &sigma, kind_v, &ps, be) {
                        return Ok(shaped(vec![base.scale(v)]));
                    }
                    let small = small_quantity(&rho, &sigma, kind_v, &ps, be);
                    let states = match (small, rho, sigma) {
                        (Some(q), Operand::Matrix(r), Operand::Matrix(s)) => {
                            match small_direct(r, s, q, be)? {
                                Ok(v) => return Ok(shaped(vec![base.scale(v)])),
                                Err(states) => Ok(Ok(states)),
                            }
                        }
                        (_, rho, sigma) => states_direct(rho, sigma, kind_v, &ps, be),
                    };
                    let (rho, sigma) = match states {
                        Ok(states) => {
                            let (r, s) = states?;
                            (Side::One(r), Side::One(s))
                        }
                        Err(operands) => {
                            let (rho, sigma) = *operands;
                            (
                                Side::from("rho", rho, be).map_err(to_py)?,
                                Side::from("sigma", sigma, be).map_err(to_py)?,
                            )
                        }
                    };
                    let n = match (rho.len(), sigma.len()) {
                        (None, None) => {
                            let (Side::One(r), Side::One(s)) = (&rho, &sigma) else {
                                unreachable!("both sides are single states")
                            };
                            let v = evaluate(&Pair::new(r, s).map_err(to_py)?, kind_v, &ps, base)
                                .map_err(to_py)?;
                            return Ok(if seq {
                                Out::Vector(v)
                            } else {
                                Out::Scalar(v[0])
                            });
                        }
                        (Some(a), Some(b)) if a != b => {
                            return Err(to_py(Error::DimensionMismatch {
                                what: "stack lengths of ρ and σ".into(),
                                left: a,
                                right: b,
                            }))
                        }
                        (Some(a), _) | (None, Some(a)) => a,
                    };
                    let width = ps.len().max(1);
                    let flat = stack_chunked(&rho, &sigma, n, kind_v, &ps, base, be)?;
                    Ok(if seq {
                        Out::Matrix(
                            Array2::from_shape_vec((n, width), flat)
                                .map_err(|e| parse_error("result", e.to_string()))?,
                        )
                    } else {
                        Out::Vector(flat)
                    })
                })
            })
        })
    })?;
    Ok(match out {
        Out::Scalar(x) => x.into_pyobject(py)?.into_any().unbind(),
        Out::Vector(v) => PyArray1::from_vec(py, v).into_any().unbind(),
        Out::Matrix(m) => m.into_pyarray(py).into_any().unbind(),
    })
}

/// A validated density matrix (from `qrenyi.validate`); pass it to `qrenyi.divergence` or
/// `qrenyi.Pair` to skip re-validation and reuse its cached eigendecomposition.
///
/// >>> import qrenyi
/// >>> s = qrenyi.validate([[0.5, 0.5], [0.5, 0.5]])
/// >>> s.dim, s.rank(), round(s.purity(), 12), s.eigenvalues().round(12)
/// (2, 1, 1.0, array([0., 1.]))
#[pyclass(name = "State", module = "qrenyi", frozen)]
pub struct PyState {
    /// The core state (cheap to clone: shared matrix and decomposition cache).
    pub state: DensityMatrix,
}

#[pymethods]
impl PyState {
    /// Dimension d.
    #[getter]
    fn dim(&self) -> usize {
        self.state.dim()
    }
    /// The eigensolver backend.
    #[getter]
    fn backend(&self) -> String {
        format!("{:?}", self.state.backend()).to_lowercase()
    }
    /// The (exactly Hermitian) matrix, as a new complex128 array.
    fn matrix<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<Complex64>> {
        self.state.matrix().clone().into_pyarray(py)
    }
    /// Eigenvalues in ascending order (computed once, cached).
    fn eigenvalues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let big = self.state.dim() > GIL_HELD_UP_TO;
        let v: Array1<f64> = detach_if(py, big, || {
            guard(|| Ok(self.state.eigen()?.values().clone()))
        })?;
        Ok(v.into_pyarray(py))
    }
    /// Rank (eigenvalues above the zero threshold).
    fn rank(&self, py: Python<'_>) -> PyResult<usize> {
        let big = self.state.dim() > GIL_HELD_UP_TO;
        detach_if(py, big, || guard(|| self.state.rank()))
    }
    /// Purity Tr ρ².
    fn purity(&self) -> f64 {
        self.state.purity()
    }
    /// Von Neumann entropy −Tr ρ ln ρ in the given base.
    #[pyo3(signature = (*, base="e"))]
    fn entropy(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::convert::base)] base: &str,
    ) -> PyResult<f64> {
        let base = base_of(base).map_err(to_py)?;
        let big = self.state.dim() > GIL_HELD_UP_TO;
        detach_if(py, big, || guard(|| Ok(base.scale(self.state.entropy()?))))
    }
    fn __repr__(&self) -> String {
        format!(
            "qrenyi.State(dim={}, backend={:?})",
            self.state.dim(),
            self.backend()
        )
    }
}

/// Validate `rho` as a density matrix (square, finite, Hermitian, positive semidefinite and of
/// unit trace within the tolerance of docs/conventions.md) and return a `qrenyi.State`.
///
/// >>> import qrenyi
/// >>> qrenyi.validate([[0.5, 0], [0, 0.5]])
/// qrenyi.State(dim=2, backend="auto")
/// >>> qrenyi.validate([[1.0, 0], [0, 1.0]])
/// Traceback (most recent call last):
/// ...
/// qrenyi.QrenyiError: cannot parse rho: trace is 2.0000, expected 1 ± 1e-10
#[pyfunction]
#[pyo3(signature = (rho, *, backend="auto"))]
fn validate(
    py: Python<'_>,
    rho: &Bound<'_, PyAny>,
    #[pyo3(from_py_with = crate::convert::backend)] backend: &str,
) -> PyResult<PyState> {
    let be = self::backend(backend).map_err(to_py)?;
    // mid sizes on one BLAS thread, as `divergence` (`mid_size`)
    if let Ok(s) = rho.cast::<PyState>() {
        let s = s.get().state.clone();
        let (big, mid) = (s.dim() > GIL_HELD_UP_TO, mid_size(s.dim()));
        return Ok(PyState {
            state: detach_if(py, big, || single_blas_if(mid, || guard(|| restate(s, be))))?,
        });
    }
    let m = convert::matrix("rho", rho)?;
    let (big, mid) = (m.nrows() > GIL_HELD_UP_TO, mid_size(m.nrows()));
    let state = detach_if(py, big, || {
        single_blas_if(mid, || guard(|| validate_as("rho", m, be)))
    })?;
    Ok(PyState { state })
}

/// Two states with their decompositions cached across calls: the first quantity computes the
/// eigendecompositions it needs, later ones (other orders, other families) reuse them.
///
/// >>> import numpy as np, qrenyi
/// >>> p = qrenyi.Pair(np.diag([0.7, 0.3]), np.eye(2) / 2)
/// >>> round(p.renyi("sandwiched", 2.0), 12), round(p.max_relative_entropy(), 12)
/// (0.148420005118, 0.336472236621)
/// >>> p.curve("petz", [0.5, 2.0]).round(6)
/// array([0.042639, 0.14842 ])
/// >>> round(p.hockey_stick(1.0), 12), round(p.fidelity() ** 2 - p.squared_fidelity(), 12)
/// (0.2, 0.0)
#[pyclass(name = "Pair", module = "qrenyi", frozen)]
pub struct PyPair {
    // Field order matters: `pair` borrows from `states` and is dropped first.
    pair: Mutex<Pair<'static>>,
    states: Box<(DensityMatrix, DensityMatrix)>,
}

impl PyPair {
    /// Run `f` on the pair: small pairs (`d ≤ GIL_HELD_UP_TO`, `orders ≤ GIL_HELD_UP_TO`) with
    /// the GIL held when the pair's lock is free, everything else with the GIL released. The
    /// GIL is never held while waiting for the lock — a thread holding the lock may be waiting
    /// for the GIL to return — so a busy lock is waited for after releasing it.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        orders: usize,
        f: impl FnOnce(&Pair) -> Result<T> + Send,
    ) -> PyResult<T> {
        if self.states.0.dim() <= GIL_HELD_UP_TO && orders <= GIL_HELD_UP_TO {
            let pair = match self.pair.try_lock() {
                Ok(pair) => Some(pair),
                Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => None,
            };
            if let Some(pair) = pair {
                return guard(|| f(&pair));
            }
        }
        let mid = mid_size(self.states.0.dim());
        py.detach(|| {
            single_blas_if(mid, || {
                guard(|| {
                    let pair = self.pair.lock().unwrap_or_else(|p| p.into_inner());
                    f(&pair)
                })
            })
        })
    }
}

fn family(s: &str) -> Result<Family> {
    s.parse()
}

#[pymethods]
impl PyPair {
    #[new]
    #[pyo3(signature = (rho, sigma, *, backend="auto"))]
    fn new(
        py: Python<'_>,
        rho: &Bound<'_, PyAny>,
        sigma: &Bound<'_, PyAny>,
        #[pyo3(from_py_with = crate::convert::backend)] backend: &str,
    ) -> PyResult<Self> {
        let be = self::backend(backend).map_err(to_py)?;
        let single = |what: &str, op: Operand| -> PyResult<Operand> {
            match op {
                Operand::Stack(v) => Err(parse_error(
                    what,
                    format!("Pair takes one d×d matrix, got a stack of {} (use qrenyi.divergence for stacks)", v.shape()[0]),
                )),
                op => Ok(op),
            }
        };
        let r = single("rho", convert::operand("rho", rho)?)?;
        let s = single("sigma", convert::operand("sigma", sigma)?)?;
        let release = r.releases_gil() || s.releases_gil();
        let mid = mid_pair(&r, &s);
        let states = detach_if(py, release, || {
            single_blas_if(mid, || {
                guard(|| {
                    let side = |what, op| -> Result<DensityMatrix> {
                        match Side::from(what, op, be)? {
                            Side::One(s) => Ok(s),
                            Side::Many(_) => unreachable!("stacks rejected above"),
                        }
                    };
                    let (r, s) = (side("rho", r)?, side("sigma", s)?);
                    Pair::new(&r, &s)?; // dimension check
                    Ok(Box::new((r, s)))
                })
            })
        })?;
        // SAFETY: the states live on the heap in `states`, which is never moved out of or mutated
        // while `self` exists, and `pair` (declared first) is dropped before `states`; the
        // `'static` borrow never leaves this object.
        let (r, s): (&'static DensityMatrix, &'static DensityMatrix) = unsafe {
            let p: *const (DensityMatrix, DensityMatrix) = &*states;
            (&(*p).0, &(*p).1)
        };
        let pair = Pair::new(r, s).map_err(to_py)?;
        Ok(PyPair {
            pair: Mutex::new(pair),
            states,
        })
    }

    /// The first state ρ.
    #[getter]
    fn rho(&self) -> PyState {
        PyState {
            state: self.states.0.clone(),
        }
    }
    /// The second state σ.
    #[getter]
    fn sigma(&self) -> PyState {
        PyState {
            state: self.states.1.clone(),
        }
    }
    /// Dimension d.
    #[getter]
    fn dim(&self) -> usize {
        self.states.0.dim()
    }

    /// `D_α(ρ‖σ)` of `family` ("petz", "sandwiched", "maximal").
    #[pyo3(signature = (family, alpha, *, base="e"))]
    fn renyi(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::convert::family)] family: &str,
        #[pyo3(from_py_with = crate::convert::real)] alpha: f64,
        #[pyo3(from_py_with = crate::convert::base)] base: &str,
    ) -> PyResult<f64> {
        let f = self::family(family).map_err(to_py)?;
        let base = base_of(base).map_err(to_py)?;
        self.with(py, 1, |p| Ok(base.scale(p.renyi(f, alpha)?)))
    }
    /// `D_α(ρ‖σ)` at many orders (reusing the α-independent work).
    #[pyo3(signature = (family, alphas, *, base="e"))]
    fn curve<'py>(
        &self,
        py: Python<'py>,
        #[pyo3(from_py_with = crate::convert::family)] family: &str,
        alphas: &Bound<'py, PyAny>,
        #[pyo3(from_py_with = crate::convert::base)] base: &str,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let f = self::family(family).map_err(to_py)?;
        let base = base_of(base).map_err(to_py)?;
        let alphas = match convert::params("alphas", Some(alphas))? {
            Params::Absent => return Err(parse_error("alphas", "missing")),
            p => p.values(),
        };
        let v = self.with(py, alphas.len(), |p| {
            Ok(p.curve(f, &alphas)?
                .into_iter()
                .map(|x| base.scale(x))
                .collect::<Vec<_>>())
        })?;
        Ok(PyArray1::from_vec(py, v))
    }
    /// `D_max(ρ‖σ)`.
    #[pyo3(signature = (*, base="e"))]
    fn max_relative_entropy(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::convert::base)] base: &str,
    ) -> PyResult<f64> {
        let base = base_of(base).map_err(to_py)?;
        self.with(py, 1, |p| Ok(base.scale(p.max_relative_entropy()?)))
    }
    /// Umegaki relative entropy.
    #[pyo3(signature = (*, base="e"))]
    fn umegaki(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::convert::base)] base: &str,
    ) -> PyResult<f64> {
        let base = base_of(base).map_err(to_py)?;
        self.with(py, 1, |p| Ok(base.scale(p.umegaki()?)))
    }
    /// Belavkin–Staszewski relative entropy.
    #[pyo3(signature = (*, base="e"))]
    fn belavkin_staszewski(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::convert::base)] base: &str,
    ) -> PyResult<f64> {
        let base = base_of(base).map_err(to_py)?;
        self.with(py, 1, |p| Ok(base.scale(p.belavkin_staszewski()?)))
    }
    /// `E_γ(ρ‖σ) = Tr(ρ − γσ)_+`.
    fn hockey_stick(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::convert::real)] gamma: f64,
    ) -> PyResult<f64> {
        self.with(py, 1, |p| p.hockey_stick(gamma))
    }
    /// Trace distance ½‖ρ − σ‖₁.
    fn trace_distance(&self, py: Python<'_>) -> PyResult<f64> {
        self.with(py, 1, |p| p.trace_distance())
    }
    /// Root fidelity F = ‖√ρ√σ‖₁.
    fn fidelity(&self, py: Python<'_>) -> PyResult<f64> {
        self.with(py, 1, |p| p.fidelity())
    }
    /// Squared fidelity F².
    fn squared_fidelity(&self, py: Python<'_>) -> PyResult<f64> {
        self.with(py, 1, |p| p.squared_fidelity())
    }
    /// Whether supp ρ ⊆ supp σ.
    fn is_supported(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, 1, |p| p.is_supported())
    }
    fn __repr__(&self) -> String {
        format!("qrenyi.Pair(dim={})", self.states.0.dim())
    }
}

/// The kind names.
#[pyfunction]
fn kinds() -> Vec<&'static str> {
    KIND_NAMES.to_vec()
}

/// The eigensolver backends compiled into this build, default first.
#[pyfunction]
fn backends() -> Vec<String> {
    Backend::available()
        .into_iter()
        .map(|b| match b {
            Backend::Lapack => "lapack".to_string(),
            Backend::LapackMrrr => "lapack-mrrr".to_string(),
            Backend::Nalgebra => "nalgebra".to_string(),
            Backend::Auto => "auto".to_string(),
            Backend::Faer => "faer".to_string(),
            #[allow(unreachable_patterns)]
            other => format!("{other:?}").to_lowercase(),
        })
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyState>()?;
    m.add_class::<PyPair>()?;
    m.add_function(wrap_pyfunction!(divergence, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(kinds, m)?)?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    m.add_function(wrap_pyfunction!(_set_stack_chunk_for_tests, m)?)?;
    Ok(())
}
