//! Numerical verification of lemmas: a counterexample search engine, and the seeds' theorems as
//! executable statements.
//!
//! A **statement** ([`Statement`]) is a sampler of instances (states, pairs, triples, channels,
//! α, ε, δ …, see [`sample`]) and a **margin** function: a number that is `≥ 0` wherever the
//! statement holds on the instance, with a numerical error estimate ([`Margin`]). The engine
//! ([`run`]) searches hard for a negative margin:
//!
//! 1. **random sampling** of `trials` instances from edge-seeking ensembles, in parallel
//!    (rayon, one BLAS thread per worker), each trial a deterministic function of
//!    `(seed, statement, trial index)` — results do not depend on the thread count or on
//!    scheduling, and `shard = (i, n)` runs the trials `t ≡ i (mod n)` only;
//! 2. **adversarial refinement** of the worst instances: a (1+1) evolution strategy with a
//!    1/5-success step rule over each instance's parametrisation ([`Instance::perturbed`]),
//!    several restarts (one per start instance). Instances are ranked by the *certified* margin
//!    `value + error` ([`Margin::upper`]), so the search is not drawn to ill-conditioned corners
//!    where the margin is negative only within its rounding error;
//! 3. **confirmation**: a margin counts as a violation only when it is below minus its error
//!    estimate, again after recomputation with the second eigensolver (nalgebra) with the
//!    backends' disagreement added to the error, and — for classical statements — after
//!    re-evaluation in 256-bit arithmetic ([`real::Hp`]). A confirmed counterexample is reported
//!    with its seed and can be saved (`.npy` + JSON, [`save_counterexample`]) and replayed
//!    ([`replay`]).
//!
//! The built-in statements are in [`builtin`] (`qrenyi verify --list`); their mathematics,
//! sources and the results of a search are in `docs/lemmas.md`.
//!
//! # Writing your own statement
//!
//! A statement is a sampler and a margin. [`Custom`] turns two closures into one; the sampler
//! uses the ensembles of [`sample`], the margin uses the core API and returns
//! `rhs − lhs` for an inequality `lhs ≤ rhs` ([`Margin::le`] handles infinities).
//! Here: the Umegaki relative entropy is at most the max-relative entropy.
//!
//! ```
//! use qrenyi::divergence::Pair;
//! use qrenyi::verify::{self, sample, Config, Custom, Expected, Instance, Margin, Status};
//!
//! let statement = Custom::new(
//!     "umegaki-below-dmax",
//!     Expected::Theorem,
//!     "D(ρ‖σ) ≤ D_max(ρ‖σ)",
//!     |ctx, rng| {
//!         let d = ctx.dim(rng);
//!         let (rho, sigma, how) = sample::state_pair(d, rng);
//!         Ok(Instance::new().with("rho", rho).with("sigma", sigma).tagged(how))
//!     },
//!     |inst, backend| {
//!         let (rho, sigma) = (inst.state("rho", backend)?, inst.state("sigma", backend)?);
//!         let pair = Pair::new(&rho, &sigma)?;
//!         let (lhs, rhs) = (pair.umegaki()?, pair.max_relative_entropy()?);
//!         Ok(Margin::le(lhs, rhs, verify::rounding(&[&rho, &sigma], &[lhs, rhs])))
//!     },
//! );
//! let report = verify::run(&statement, &Config { trials: Some(60), ..Config::default() }, &|_| {})?;
//! assert_eq!(report.status, Status::Holds);
//! assert!(report.worst_margin >= -report.worst_error); // no violation beyond rounding
//! # Ok::<(), qrenyi::Error>(())
//! ```
//!
//! `docs/lemmas.md` ("Writing your own statement") explains the parts in more detail.

pub mod bounds;
mod builtin_accuracy;
mod builtin_classical;
mod builtin_privacy;
mod builtin_quantum;
#[cfg(feature = "smooth")]
mod builtin_smooth;
mod engine;
mod instance;
pub mod real;
pub mod real_quantum;
pub mod sample;

pub use engine::{
    check_instance, check_threads, merge, parse_reports, replay, replay_document, run,
    run_cancellable, save_counterexample, trial_seed, Config, Counterexample, Replay, Report,
    MAX_DIM, MAX_RESTARTS, MAX_THREADS_PER_CORE, PRIMARY,
};
pub use instance::{check_item_size, Instance, Item, Scale, MAX_DISTRIBUTION_LEN};
pub use sample::SampleContext;

use crate::error::Result;
use crate::spectral::{Backend, EPS};
use crate::state::DensityMatrix;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// What is known about a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expected {
    /// Proved (in a seed or in the literature): a counterexample means a bug in qrenyi.
    Theorem,
    /// Known to be false: the search must find a counterexample.
    False,
    /// Open: the search reports what it finds.
    Open,
}

impl Expected {
    /// `"theorem"`, `"false"` or `"open"`.
    pub fn name(self) -> &'static str {
        match self {
            Expected::Theorem => "theorem",
            Expected::False => "false",
            Expected::Open => "open",
        }
    }
}

/// What the search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// No confirmed counterexample.
    Holds,
    /// A confirmed counterexample.
    Refuted,
}

/// The margin of a statement on an instance: `value ≥ 0` where the statement holds, with an
/// estimate `error ≥ 0` of the rounding error of `value`. A violation is `value < −error`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Margin {
    /// `≥ 0` when the statement holds (may be ±∞).
    pub value: f64,
    /// Estimated absolute rounding error of `value`.
    pub error: f64,
}

impl Margin {
    /// A margin with its error estimate.
    pub fn new(value: f64, error: f64) -> Self {
        Margin { value, error }
    }

    /// Margin of `lhs ≤ rhs`: `rhs − lhs`, with `+∞` when `rhs = +∞` or `lhs = −∞` (holds) and
    /// `−∞` when `lhs = +∞` or `rhs = −∞` otherwise (fails).
    pub fn le(lhs: f64, rhs: f64, error: f64) -> Self {
        Margin::new(le_gap(lhs, rhs), error)
    }

    /// Margin of an identity `a = b`: `−|a − b|` (never positive; a violation when `|a − b|`
    /// exceeds the error estimate). Equal infinities give 0.
    pub fn eq(a: f64, b: f64, error: f64) -> Self {
        let v = if a == b { 0.0 } else { -(a - b).abs() };
        Margin::new(if v.is_nan() { f64::NEG_INFINITY } else { v }, error)
    }

    /// The conjunction of two statements: the smaller margin (with its own error).
    pub fn and(self, other: Margin) -> Margin {
        if other.value < self.value {
            other
        } else {
            self
        }
    }

    /// `value + error`: the upper end of the margin's error interval. The search minimises it
    /// (instances are ranked and refined by it), so that it looks for violations that survive
    /// their error estimate rather than for rounding noise; a violation is `upper() < 0`.
    pub fn upper(&self) -> f64 {
        if self.value == f64::INFINITY || self.value == f64::NEG_INFINITY {
            self.value
        } else {
            self.value + self.error
        }
    }

    /// Whether this is a violation: `value < −error`.
    pub fn is_violation(&self) -> bool {
        self.value < -self.error
    }
}

/// `rhs − lhs` with the infinity rules of [`Margin::le`].
pub fn le_gap(lhs: f64, rhs: f64) -> f64 {
    if rhs == f64::INFINITY || lhs == f64::NEG_INFINITY {
        f64::INFINITY
    } else if lhs == f64::INFINITY || rhs == f64::NEG_INFINITY {
        f64::NEG_INFINITY
    } else {
        rhs - lhs
    }
}

/// Condition number of a state on its support, `λ_max / λ_min` over eigenvalues above the zero
/// threshold τ — or `+∞` when the smallest support eigenvalue is below `10⁴ τ`, where the
/// support itself is uncertain (an eigenvalue that close to τ might be rounding noise, and one
/// just below τ might be real): margins from such states cannot confirm anything. Also `+∞`
/// when the eigendecomposition fails (nothing can be confirmed then either).
pub fn condition_number(state: &DensityMatrix) -> f64 {
    let Ok(e) = state.eigen() else {
        return f64::INFINITY;
    };
    let min = e
        .support()
        .iter()
        .map(|&i| e.values()[i])
        .fold(f64::INFINITY, f64::min);
    if min < 1e4 * e.threshold() {
        return f64::INFINITY;
    }
    (e.max_value() / min).max(1.0)
}

/// A rounding-error estimate for a margin built from divergences of `states` with values
/// `values`: `256 · d · ε_mach · κ · (1 + Σ|v|)`, where `κ ≥ 1` is the largest
/// [`condition_number`] of the states. Small eigenvalues are known only to absolute accuracy
/// `~d ε λ_max`, so their logarithms and inverse powers carry relative error `~κ ε`.
pub fn rounding(states: &[&DensityMatrix], values: &[f64]) -> f64 {
    let d = states.iter().map(|s| s.dim()).max().unwrap_or(1) as f64;
    let kappa = states
        .iter()
        .map(|s| condition_number(s))
        .fold(1.0, f64::max);
    let size: f64 = values
        .iter()
        .filter(|v| v.is_finite())
        .map(|v| v.abs())
        .sum();
    256.0 * d * EPS * kappa * (1.0 + size)
}

/// A conjecture to test: a sampler of instances and a margin function.
///
/// Implementations must be deterministic: `sample` may only use the given RNG, and `margin`
/// must be a function of the instance and the backend.
pub trait Statement: Send + Sync {
    /// Kebab-case name (`bounded-divergence`).
    fn name(&self) -> &str;
    /// Where the statement comes from (`seed 000, Theorem 22`).
    fn source(&self) -> &str;
    /// What is known.
    fn expected(&self) -> Expected;
    /// One-line mathematical statement.
    fn summary(&self) -> &str;
    /// Trials of a default run (a few seconds on two cores in release mode).
    fn default_trials(&self) -> usize {
        1000
    }
    /// Draw an instance.
    fn sample(&self, ctx: &SampleContext, rng: &mut ChaCha8Rng) -> Result<Instance>;
    /// The margin on `instance`, with every eigendecomposition done by `backend`.
    fn margin(&self, instance: &Instance, backend: Backend) -> Result<Margin>;
    /// The margin in higher precision, where cheap (`None`: not available).
    fn margin_high_precision(&self, _instance: &Instance) -> Option<Result<f64>> {
        None
    }
}

type SampleFn = fn(&SampleContext, &mut ChaCha8Rng) -> Result<Instance>;
type MarginFn = fn(&Instance, Backend) -> Result<Margin>;
type HpFn = fn(&Instance) -> Result<f64>;

/// A built-in statement: static metadata and function pointers.
pub(crate) struct Builtin {
    pub name: &'static str,
    pub source: &'static str,
    pub expected: Expected,
    pub summary: &'static str,
    pub trials: usize,
    pub sample: SampleFn,
    pub margin: MarginFn,
    pub high_precision: Option<HpFn>,
}

impl Statement for Builtin {
    fn name(&self) -> &str {
        self.name
    }
    fn source(&self) -> &str {
        self.source
    }
    fn expected(&self) -> Expected {
        self.expected
    }
    fn summary(&self) -> &str {
        self.summary
    }
    fn default_trials(&self) -> usize {
        self.trials
    }
    fn sample(&self, ctx: &SampleContext, rng: &mut ChaCha8Rng) -> Result<Instance> {
        (self.sample)(ctx, rng)
    }
    fn margin(&self, instance: &Instance, backend: Backend) -> Result<Margin> {
        (self.margin)(instance, backend)
    }
    fn margin_high_precision(&self, instance: &Instance) -> Option<Result<f64>> {
        // the 256-bit Jacobi costs O(sweeps·d³) big-float operations per decomposition
        let large = instance.items().iter().any(|(_, it)| {
            matches!(it, Item::State { matrix, .. } if matrix.nrows() > real_quantum::HP_MAX_DIM)
        });
        if large {
            return None;
        }
        self.high_precision.map(|f| f(instance))
    }
}

/// A user-defined statement from two closures (see the module example).
pub struct Custom<S, M> {
    name: String,
    source: String,
    expected: Expected,
    summary: String,
    trials: usize,
    sampler: S,
    margin: M,
}

impl<S, M> Custom<S, M>
where
    S: Fn(&SampleContext, &mut ChaCha8Rng) -> Result<Instance> + Send + Sync,
    M: Fn(&Instance, Backend) -> Result<Margin> + Send + Sync,
{
    /// A statement named `name` with the given expectation and one-line summary.
    pub fn new(name: &str, expected: Expected, summary: &str, sampler: S, margin: M) -> Self {
        Custom {
            name: name.into(),
            source: "user".into(),
            expected,
            summary: summary.into(),
            trials: 1000,
            sampler,
            margin,
        }
    }
    /// Set the source citation.
    pub fn with_source(mut self, source: &str) -> Self {
        self.source = source.into();
        self
    }
    /// Set the default number of trials.
    pub fn with_trials(mut self, trials: usize) -> Self {
        self.trials = trials;
        self
    }
}

impl<S, M> Statement for Custom<S, M>
where
    S: Fn(&SampleContext, &mut ChaCha8Rng) -> Result<Instance> + Send + Sync,
    M: Fn(&Instance, Backend) -> Result<Margin> + Send + Sync,
{
    fn name(&self) -> &str {
        &self.name
    }
    fn source(&self) -> &str {
        &self.source
    }
    fn expected(&self) -> Expected {
        self.expected
    }
    fn summary(&self) -> &str {
        &self.summary
    }
    fn default_trials(&self) -> usize {
        self.trials
    }
    fn sample(&self, ctx: &SampleContext, rng: &mut ChaCha8Rng) -> Result<Instance> {
        (self.sampler)(ctx, rng)
    }
    fn margin(&self, instance: &Instance, backend: Backend) -> Result<Margin> {
        (self.margin)(instance, backend)
    }
}

/// Every built-in statement, classical first, then quantum, then privacy.
pub fn builtin() -> Vec<Box<dyn Statement>> {
    builtin_classical::all()
        .into_iter()
        .chain(builtin_quantum::all())
        .chain(builtin_accuracy::all())
        .chain(builtin_privacy::all())
        .chain(smooth_statements())
        .map(|b| Box::new(b) as Box<dyn Statement>)
        .collect()
}

#[cfg(feature = "smooth")]
fn smooth_statements() -> Vec<Builtin> {
    builtin_smooth::all()
}

#[cfg(not(feature = "smooth"))]
fn smooth_statements() -> Vec<Builtin> {
    Vec::new()
}

/// The built-in statement called `name`.
pub fn find(name: &str) -> Option<Box<dyn Statement>> {
    builtin().into_iter().find(|s| s.name() == name)
}
