//! The search: sampling, refinement, confirmation; reports, shards, merging, replay.

use super::{Expected, Instance, Margin, SampleContext, Statement, Status};
use crate::error::{Error, Result};
use crate::spectral::{with_single_blas_thread, Backend};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Largest `max_dim` a search accepts: the channel ensembles store `~d⁴` complex numbers
/// (depolarizing: `d²` Kraus operators; Stinespring: a Haar unitary of size `k·d_out ≤ d²`), so
/// `d = 32` needs ~16 MB per instance and `d = 1000` would need terabytes.
pub const MAX_DIM: usize = 32;

/// Most refinement restarts a search accepts ([`Config::validate`]): the search keeps the
/// `2 × restarts` worst margins while it samples (24 bytes each) and refines each restart's instance
/// for at least 25 steps, so `restarts = 10⁹` asked for 48 GB up front (the process aborted) and
/// could never finish; 65 536 restarts are 3 MB and ≥ 1.6 million refinement steps.
pub const MAX_RESTARTS: usize = 1 << 16;

/// Worker threads a search may ask for, per available core ([`check_threads`]).
pub const MAX_THREADS_PER_CORE: usize = 4;

/// The worker-thread count of a search (`qrenyi verify --threads`, `qrenyi.verify.run(threads=…)`),
/// checked against `1..=MAX_THREADS_PER_CORE × available parallelism`: every rayon worker reserves
/// a stack (2 MiB by default), so a million threads exhaust the machine's memory (the process was
/// killed) long before they could help.
pub fn check_threads(threads: usize) -> Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let most = MAX_THREADS_PER_CORE * cores;
    if threads == 0 || threads > most {
        return Err(Error::invalid(
            "threads",
            threads as f64,
            format!(
                "must lie in 1..={most} ({MAX_THREADS_PER_CORE} per available core; \
                 more threads only add memory and scheduling cost)"
            ),
        ));
    }
    Ok(threads)
}

/// Trials sampled per parallel batch: the search keeps only counts and the best `restarts`
/// margins between batches, so its memory does not grow with `--trials`.
const CHUNK: usize = 1 << 14;

/// Parameters of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Random trials per statement (`None`: the statement's default).
    pub trials: Option<usize>,
    /// Global seed.
    pub seed: u64,
    /// Dimension range.
    pub context: SampleContext,
    /// `(i, n)`: run only the trials `t ≡ i (mod n)` (`0 ≤ i < n`).
    pub shard: (usize, usize),
    /// Number of refinement restarts (the worst sampled instances refined); 0 disables refinement.
    pub restarts: usize,
    /// Refinement steps per restart (`None`: half the shard's trials spread over the restarts,
    /// clamped to `[25, 1000]`).
    pub steps: Option<usize>,
    /// At most this many violating candidates are put through confirmation.
    pub max_confirm: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            trials: None,
            seed: 0,
            context: SampleContext::default(),
            shard: (0, 1),
            restarts: 8,
            steps: None,
            max_confirm: 8,
        }
    }
}

impl Config {
    /// Check the shard and the dimension.
    pub fn validate(&self) -> Result<()> {
        let (i, n) = self.shard;
        if n == 0 || i >= n {
            return Err(Error::invalid(
                "shard",
                i as f64,
                format!("shard i/n needs 0 ≤ i < n (got {i}/{n})"),
            ));
        }
        if self.context.max_dim < 2 || self.context.max_dim > MAX_DIM {
            return Err(Error::invalid(
                "max-dim",
                self.context.max_dim as f64,
                format!("must lie in 2..={MAX_DIM} (a channel on ℂ^d is stored as ~d⁴ numbers)"),
            ));
        }
        if self.trials == Some(0) {
            return Err(Error::invalid("trials", 0.0, "must be at least 1"));
        }
        if self.restarts > MAX_RESTARTS {
            return Err(Error::invalid(
                "restarts",
                self.restarts as f64,
                format!(
                    "must lie in 0..={MAX_RESTARTS} ({} over; each restart keeps and refines an \
                     instance)",
                    self.restarts - MAX_RESTARTS
                ),
            ));
        }
        Ok(())
    }

    fn trials_for(&self, s: &dyn Statement) -> usize {
        self.trials.unwrap_or_else(|| s.default_trials())
    }

    /// The trials `t ≡ i (mod n)` of shard `(i, n)`, lazily.
    fn shard_trials(&self, total: usize) -> impl Iterator<Item = u64> {
        let (i, n) = self.shard;
        (i as u64..total as u64).step_by(n.max(1))
    }

    /// How many trials shard `(i, n)` runs: `⌈(total − i)/n⌉`.
    fn shard_count(&self, total: usize) -> usize {
        let (i, n) = self.shard;
        total.saturating_sub(i).div_ceil(n.max(1))
    }

    fn steps_for(&self, shard_trials: usize) -> usize {
        self.steps
            .unwrap_or_else(|| (shard_trials / 2 / self.restarts.max(1)).clamp(25, 1000))
    }

    /// Work units (margin evaluations) a run of `s` will report to the progress callback.
    pub fn work(&self, s: &dyn Statement) -> u64 {
        let n = self.shard_count(self.trials_for(s));
        let refine = if self.restarts == 0 || n == 0 {
            0
        } else {
            self.restarts.min(n) * self.steps_for(n)
        };
        (n + refine) as u64
    }
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of trial `t` of `statement` in a run with global seed `seed`:
/// `splitmix64(seed ⊕ fnv1a(statement) ⊕ splitmix64(t))`. Independent of threads and shards.
pub fn trial_seed(seed: u64, statement: &str, t: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in statement.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    splitmix64(seed ^ h ^ splitmix64(t))
}

/// A confirmed counterexample.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Counterexample {
    /// Seed of the trial the search started from (its sampled instance is reproducible from it).
    pub seed: u64,
    /// Index of that trial.
    pub trial: u64,
    /// Whether the instance is the refined one (`false`: as sampled).
    pub refined: bool,
    /// Margin with the default backend.
    #[serde(with = "inf_number")]
    pub margin: f64,
    /// Its error estimate (including the backends' disagreement).
    pub error: f64,
    /// Margin recomputed with nalgebra.
    #[serde(with = "inf_number")]
    pub margin_nalgebra: f64,
    /// Margin in 256-bit arithmetic, where available.
    pub margin_high_precision: Option<f64>,
    /// How the start instance was drawn.
    pub ensemble: Vec<String>,
    /// The instance (matrices inline).
    pub instance: Value,
    /// The replay file, when saved.
    pub file: Option<String>,
}

/// The result of a search for one statement. `--json` prints a list of these; the first six
/// fields are the documented contract, the rest are extras.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Report {
    /// Statement name.
    pub lemma: String,
    /// What is known.
    pub expected: Expected,
    /// What was found.
    pub status: Status,
    /// Random trials run (summed over merged shards).
    pub trials: usize,
    /// Margin of the worst instance: the one with the smallest certified margin
    /// `value + error` seen in sampling and refinement ([`Margin::upper`]).
    #[serde(with = "inf_number")]
    pub worst_margin: f64,
    /// The counterexample, if refuted.
    pub counterexample: Option<Counterexample>,
    /// Error estimate at the worst margin.
    #[serde(with = "inf_number")]
    pub worst_error: f64,
    /// The refined instance with the smallest certified margin (matrices inline), for the record
    /// (e.g. what the search found for an open statement).
    #[serde(default)]
    pub worst_instance: Option<Value>,
    /// Source citation.
    pub source: String,
    /// One-line statement.
    pub statement: String,
    /// Margin evaluations including refinement.
    pub evaluations: usize,
    /// Instances whose sampling or margin returned an error (skipped).
    pub errors: usize,
    /// Violations below the error estimate that failed confirmation.
    pub unconfirmed: usize,
    /// Instances with margin −∞ (a support decision at the zero threshold contradicting the
    /// support calculus, e.g. `D(Φρ‖Φσ) = +∞ > D(ρ‖σ)`): set aside, never counted as violations.
    #[serde(default)]
    pub infinite: usize,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Global seed.
    pub seed: u64,
    /// Shards covered, as `[i, n]` pairs.
    pub shards: Vec<(usize, usize)>,
    /// Largest dimension searched.
    pub max_dim: usize,
    /// Trials of the whole run (all shards together; `--trials` or the statement's default).
    #[serde(default)]
    pub run_trials: Option<usize>,
}

impl Report {
    /// `holds`, `refuted` or `open-no-counterexample` (the human table's "found" column).
    pub fn found(&self) -> &'static str {
        match (self.status, self.expected) {
            (Status::Refuted, _) => "refuted",
            (Status::Holds, Expected::Open) => "open-no-counterexample",
            (Status::Holds, _) => "holds",
        }
    }

    /// A bug in qrenyi: a theorem refuted, or a known-false statement not refuted.
    pub fn is_bug(&self) -> bool {
        matches!(
            (self.expected, self.status),
            (Expected::Theorem, Status::Refuted) | (Expected::False, Status::Holds)
        )
    }
}

/// Serde helpers: f64 as a JSON number, ±∞ as `"inf"`/`"-inf"`, NaN as `"nan"`.
mod inf_number {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        crate::io::json_number(*v).serialize(s)
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum N {
        F(f64),
        S(String),
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        match N::deserialize(d)? {
            N::F(x) => Ok(x),
            N::S(s) => match s.as_str() {
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                "nan" => Ok(f64::NAN),
                other => Err(serde::de::Error::custom(format!("not a number: {other:?}"))),
            },
        }
    }
}

use crate::io::json_number as json_num;

/// The backend of the search and of the first evaluation, cross-checked against
/// [`Backend::Nalgebra`] at confirmation: faer's pure-Rust solvers when built with `faer`
/// (explicitly, not `Backend::default()`, whose `Auto` policy would send small matrices to
/// nalgebra too and make the cross-check compare nalgebra with itself), else LAPACK `zheevd`, else
/// nalgebra.
///
/// Not LAPACK first: OpenBLAS 0.3.21 (pthreads, the distributions' build) hands every BLAS call
/// its work buffer from one table behind one global mutex (`blas_memory_alloc`, three lock
/// acquisitions per call with the matching free); a margin on 4 × 4 states makes 20–60 such calls
/// (zheevd's internal zhemv/zgemm, zpotrf), so many workers evaluating small margins queue on that
/// mutex and a run stops scaling near 2× (docs/PERFORMANCE.md, "verify scaling"). faer keeps no
/// shared state (its parallelism is sequential under the run's single-BLAS pin).
pub const PRIMARY: Backend = if cfg!(feature = "faer") {
    Backend::Faer
} else if cfg!(feature = "openblas") {
    Backend::Lapack
} else {
    Backend::Nalgebra
};

/// A margin evaluation that must not be NaN (a NaN margin is a bug in the statement; it is
/// reported as an error, never as a pass or a violation).
fn eval(s: &dyn Statement, inst: &Instance, backend: Backend) -> Result<Margin> {
    let m = s.margin(inst, backend)?;
    if m.value.is_nan() || m.error.is_nan() {
        return Err(Error::NonFinite {
            value: "NaN".into(),
            position: format!("margin of {}", s.name()),
        });
    }
    Ok(m)
}

fn sample_trial(s: &dyn Statement, cfg: &Config, t: u64) -> Result<Instance> {
    let mut rng = ChaCha8Rng::seed_from_u64(trial_seed(cfg.seed, s.name(), t));
    let inst = s.sample(&cfg.context, &mut rng)?;
    // a custom sampler's items within the search's limits (built-in samplers stay within them)
    inst.check_size()?;
    Ok(inst)
}

struct Candidate {
    trial: u64,
    refined: bool,
    margin: Margin,
    instance: Instance,
}

/// (1+1) evolution strategy from `start`: propose a move of all items or of one item (½ each),
/// accept if the certified margin [`Margin::upper`] decreases; step × 1.5 on success, × 0.9 on failure (≈ 1/5 success rule).
fn refine(
    s: &dyn Statement,
    start: Instance,
    m0: Margin,
    steps: usize,
    rng: &mut ChaCha8Rng,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> (Instance, Margin, usize) {
    let (mut x, mut best, mut step, mut errors) = (start, m0, 0.3, 0);
    let n_items = x.items().len().max(1);
    for _ in 0..steps {
        if cancel.load(Ordering::Relaxed) {
            // the caller discards the run (`run_cancellable` returns `Error::Interrupted`)
            break;
        }
        let cand = if rng.random_bool(0.5) {
            x.perturbed(step, rng)
        } else {
            x.perturbed_item(rng.random_range(0..n_items), step, rng)
        };
        match eval(s, &cand, PRIMARY) {
            Ok(m) if m.upper() < best.upper() && m.value > f64::NEG_INFINITY => {
                x = cand;
                best = m;
                step = (step * 1.5).min(2.0);
            }
            Ok(_) => step = (step * 0.9).max(1e-9),
            Err(_) => {
                errors += 1;
                step = (step * 0.9).max(1e-9);
            }
        }
        progress(1);
    }
    (x, best, errors)
}

/// Recompute a violating candidate with nalgebra (and in high precision where available);
/// returns the confirmed counterexample or `None`.
fn confirm(s: &dyn Statement, c: &Candidate, seed: u64) -> Option<Counterexample> {
    let m2 = eval(s, &c.instance, Backend::Nalgebra).ok()?;
    let gap = if c.margin.value == m2.value {
        0.0
    } else {
        (c.margin.value - m2.value).abs()
    };
    let gap = if gap.is_nan() { f64::INFINITY } else { gap };
    let err = c.margin.error.max(m2.error) + gap;
    if !(c.margin.value < -err && m2.value < -err) {
        return None;
    }
    let hp = match s.margin_high_precision(&c.instance) {
        // the exact-arithmetic margin must also lie below the error estimate: the inputs are
        // f64 data, and a violation within rounding of the data is not a real one
        Some(Ok(v)) if v < -err => Some(v),
        Some(_) => return None,
        None => None,
    };
    Some(Counterexample {
        seed,
        trial: c.trial,
        refined: c.refined,
        margin: c.margin.value,
        error: err,
        margin_nalgebra: m2.value,
        margin_high_precision: hp,
        ensemble: c.instance.tags().to_vec(),
        instance: c.instance.to_json(None).ok()?,
        file: None,
    })
}

/// Search for a counterexample to `statement` (see the module documentation). `progress` is
/// called with the number of margin evaluations done (for a progress bar); the total is
/// [`Config::work`].
///
/// BLAS is set to one thread for the duration (parallelism is over trials) and restored after.
pub fn run(
    statement: &dyn Statement,
    cfg: &Config,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Report> {
    run_cancellable(statement, cfg, progress, &AtomicBool::new(false))
}

/// [`run`], stopped early with [`Error::Interrupted`] once `cancel` is set (by another thread:
/// the Python binding sets it on Ctrl-C). The flag is read once per task of sampled trials (at
/// most 32 trials), per refinement step and per confirmation wave — a relaxed load, nothing
/// measurable beside a trial — so a run stops within one task's work of the flag being set.
/// A run that is never cancelled returns exactly what [`run`] returns.
pub fn run_cancellable(
    statement: &dyn Statement,
    cfg: &Config,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> Result<Report> {
    cfg.validate()?;
    // the counting pin, not a bare set/restore: runs of several statements may overlap (the CLI
    // runs them concurrently), and the nested sections of the statements (curves, SDP solves)
    // then only count instead of switching OpenBLAS and faer at every call
    with_single_blas_thread(|| run_pinned(statement, cfg, progress, cancel))
}

fn run_pinned(
    statement: &dyn Statement,
    cfg: &Config,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> Result<Report> {
    let cancelled = || cancel.load(Ordering::Relaxed);
    let start = Instant::now();
    let s = statement;
    let n_trials = cfg.shard_count(cfg.trials_for(s));

    // 1. random sampling, streamed: chunks of trials in parallel, keeping only the counts and
    //    the `restarts` smallest certified margins (memory independent of --trials)
    // (no more than there are trials: memory follows the work, not the argument)
    let keep = cfg.restarts.min(n_trials).max(1);
    let mut ranked: Vec<(Margin, u64)> = Vec::with_capacity(2 * keep + CHUNK);
    let (mut errors, mut infinite, mut violations) = (0usize, 0usize, 0usize);
    let mut first_error: Option<Error> = None;
    let mut trials = cfg.shard_trials(cfg.trials_for(s)).peekable();
    while trials.peek().is_some() {
        if cancelled() {
            return Err(Error::Interrupted);
        }
        let chunk: Vec<u64> = trials.by_ref().take(CHUNK).collect();
        // tasks of `group` trials each: one progress call per task, not per trial (the
        // callback's counter is one cache line shared by every worker; cheap margins take
        // ~2 µs); statements with few, expensive trials keep one trial per task
        let group = (chunk.len() / 1024).clamp(1, 32);
        let sampled: Vec<Vec<(u64, Result<Margin>)>> = chunk
            .par_chunks(group)
            .map(|ts| {
                if cancelled() {
                    // the run is discarded below: skip the remaining tasks' work
                    return Vec::new();
                }
                let out: Vec<(u64, Result<Margin>)> = ts
                    .iter()
                    .map(|&t| {
                        let m = sample_trial(s, cfg, t).and_then(|inst| eval(s, &inst, PRIMARY));
                        (t, m)
                    })
                    .collect();
                progress(ts.len() as u64);
                out
            })
            .collect();
        for (t, m) in sampled.into_iter().flatten() {
            match m {
                Err(e) => {
                    errors += 1;
                    first_error.get_or_insert(e);
                }
                Ok(m) if m.value == f64::NEG_INFINITY => infinite += 1,
                Ok(m) => {
                    violations += usize::from(m.is_violation());
                    ranked.push((m, t));
                }
            }
        }
        ranked.sort_by(|a, b| a.0.upper().total_cmp(&b.0.upper()).then(a.1.cmp(&b.1)));
        ranked.truncate(keep);
    }
    if cancelled() {
        return Err(Error::Interrupted);
    }
    // every trial failed (a sampler or margin error, e.g. a NaN margin): nothing was verified, so
    // the statement must not be reported as holding
    if n_trials > 0 && errors == n_trials {
        if let Some(e) = first_error {
            return Err(Error::Parse {
                what: format!("statement {:?}", s.name()),
                reason: format!(
                    "all {n_trials} trials failed, nothing was verified (the first: {e})"
                ),
            });
        }
    }
    // every trial was set aside as a margin of −∞ (or failed): nothing was verified either — a
    // statement whose margin is −∞ everywhere is not "holding" (a Python margin returning −∞ was
    // reported as holds with worst margin +∞)
    if n_trials > 0 && infinite > 0 && errors + infinite == n_trials {
        return Err(Error::Parse {
            what: format!("statement {:?}", s.name()),
            reason: format!(
                "all {n_trials} trials had margin −∞ ({infinite}) or failed ({errors}), nothing \
                 was verified (−∞ margins are set aside as support decisions at the zero \
                 threshold, docs/lemmas.md)"
            ),
        });
    }
    let mut evaluations = n_trials;

    // 2. refinement of the worst `restarts` instances
    let steps = cfg.steps_for(n_trials);
    let starts: Vec<(Margin, u64)> = ranked.iter().take(cfg.restarts).copied().collect();
    let refined: Vec<(Candidate, Candidate, usize)> = starts
        .par_iter()
        .filter_map(|&(m0, t)| {
            let inst = sample_trial(s, cfg, t).ok()?;
            let mut rng =
                ChaCha8Rng::seed_from_u64(trial_seed(cfg.seed ^ 0x5EED_0F2E_F17E, s.name(), t));
            let (x, m, e) = refine(s, inst.clone(), m0, steps, &mut rng, progress, cancel);
            Some((
                Candidate {
                    trial: t,
                    refined: false,
                    margin: m0,
                    instance: inst,
                },
                Candidate {
                    trial: t,
                    refined: true,
                    margin: m,
                    instance: x,
                },
                e,
            ))
        })
        .collect();
    if cancelled() {
        return Err(Error::Interrupted);
    }
    evaluations += refined.len() * steps;
    errors += refined.iter().map(|r| r.2).sum::<usize>();

    // 3. candidates, worst first; the worst margin over everything seen
    let mut cands: Vec<Candidate> = refined.into_iter().flat_map(|(a, b, _)| [b, a]).collect();
    cands.sort_by(|a, b| {
        a.margin
            .upper()
            .total_cmp(&b.margin.upper())
            .then(a.trial.cmp(&b.trial))
    });
    let worst = cands
        .first()
        .map(|c| c.margin)
        .or_else(|| ranked.first().map(|r| r.0));
    let worst_instance = match cands.first() {
        Some(c) => Some(json!({
            "trial": c.trial,
            "refined": c.refined,
            "margin": json_num(c.margin.value),
            "error": json_num(c.margin.error),
            "ensemble": c.instance.tags(),
            "instance": c.instance.to_json(None)?,
        })),
        None => None,
    };
    // confirmation of the first `max_confirm` violating candidates (each a nalgebra and often a
    // 256-bit re-evaluation), one wave of as many as there are workers side by side; the first
    // confirmed in rank order wins, as in a sequential scan, so the report does not depend on the
    // thread count (one worker: exactly the sequential scan)
    let violating: Vec<&Candidate> = cands
        .iter()
        .filter(|c| c.margin.is_violation())
        .take(cfg.max_confirm)
        .collect();
    let mut counterexample = None;
    let mut unconfirmed = 0;
    for wave in violating.chunks(rayon::current_num_threads().max(1)) {
        if cancelled() {
            return Err(Error::Interrupted);
        }
        let confirmed: Vec<Option<Counterexample>> = wave
            .par_iter()
            .map(|c| confirm(s, c, trial_seed(cfg.seed, s.name(), c.trial)))
            .collect();
        for cx in confirmed {
            match cx {
                Some(cx) => {
                    counterexample = Some(cx);
                    break;
                }
                None => unconfirmed += 1,
            }
        }
        if counterexample.is_some() {
            break;
        }
    }
    if counterexample.is_none() {
        // violations among sampled instances that were not refinement starts: never confirmed
        let started = ranked
            .iter()
            .take(cfg.restarts)
            .filter(|(m, _)| m.is_violation())
            .count();
        unconfirmed += violations - started;
    }
    let status = if counterexample.is_some() {
        Status::Refuted
    } else {
        Status::Holds
    };
    Ok(Report {
        lemma: s.name().to_string(),
        expected: s.expected(),
        status,
        trials: n_trials,
        // no instance evaluated (an empty shard): the minimum over nothing, +∞
        worst_margin: worst.map_or(f64::INFINITY, |m| m.value),
        counterexample,
        worst_error: worst.map_or(0.0, |m| m.error),
        worst_instance,
        source: s.source().to_string(),
        statement: s.summary().to_string(),
        evaluations,
        errors,
        unconfirmed,
        infinite,
        seconds: start.elapsed().as_secs_f64(),
        seed: cfg.seed,
        shards: vec![cfg.shard],
        max_dim: cfg.context.max_dim,
        run_trials: Some(cfg.trials_for(s)),
    })
}

/// Save a report's counterexample as `<dir>/<lemma>-<seed>.json` plus one `.npy` per matrix
/// (`<lemma>-<seed>-<item>.npy`); sets `counterexample.file` and returns the JSON path.
pub fn save_counterexample(report: &mut Report, dir: &Path) -> Result<Option<PathBuf>> {
    let Some(cx) = report.counterexample.as_mut() else {
        return Ok(None);
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::Io {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    // a fresh `<lemma>-<seed>[-k].json`: earlier saves (and anything else there) are never
    // overwritten, and no link is followed (files are created exclusively)
    let path = crate::io::unique_path(dir, &format!("{}-{}", report.lemma, cx.seed), ".json");
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let inst = Instance::from_json(&cx.instance, dir)?;
    // the name reserved (empty) while the matrices are written, then the JSON put in its place
    // atomically: an error leaves neither a truncated JSON nor the empty reservation
    drop(crate::io::create_new(&path)?);
    let written = (|| {
        let items = inst.to_json(Some((dir, &stem)))?;
        let doc = json!({
            "lemma": report.lemma,
            "expected": report.expected,
            "seed": cx.seed,
            "trial": cx.trial,
            "run_seed": report.seed,
            "refined": cx.refined,
            "margin": json_num(cx.margin),
            "error": cx.error,
            "margin_nalgebra": json_num(cx.margin_nalgebra),
            "margin_high_precision": cx.margin_high_precision,
            "ensemble": cx.ensemble,
            "items": items,
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| Error::Parse {
            what: "counterexample".into(),
            reason: e.to_string(),
        })?;
        crate::io::replace_with_bytes(&path, text.as_bytes())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&path);
        return Err(e);
    }
    cx.file = Some(path.display().to_string());
    Ok(Some(path))
}

/// The result of replaying a saved counterexample.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// Statement name.
    pub lemma: String,
    /// Margin recorded in the file.
    pub recorded: f64,
    /// Margin recomputed with the default backend.
    pub margin: Margin,
    /// Margin recomputed with nalgebra.
    pub margin_nalgebra: Margin,
    /// High-precision margin, where available.
    pub margin_high_precision: Option<f64>,
    /// Whether the recorded margin agrees with the recomputed one (`false`: the file was edited
    /// or comes from another version).
    pub recorded_matches: bool,
    /// Whether the recomputation confirms a violation (both backends below the combined error).
    pub violation: bool,
}

/// Recompute the margin of a counterexample saved by [`save_counterexample`].
pub fn replay(path: &Path) -> Result<Replay> {
    let text = crate::io::read_input_string(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    replay_document(&text, dir).map_err(|e| match e {
        Error::Parse { what, reason } if what == "counterexample" => Error::Parse {
            what: path.display().to_string(),
            reason,
        },
        e => e,
    })
}

/// Check a saved instance against its statement: every item must be one the statement samples,
/// of the same kind, and every scalar (α, δ, k, …) inside the range the statement draws it from —
/// the statement's own hypotheses, which a file relabelled to another statement (e.g. α = 0.31
/// under a theorem for α ≥ ½) violates. The ranges come from the statement's sampler (the search
/// and its refinement never leave them).
pub fn check_instance(s: &dyn Statement, inst: &Instance) -> Result<()> {
    let mut reference: Vec<(String, &'static str, f64, f64)> = Vec::new();
    for k in 0..8 {
        let mut rng = ChaCha8Rng::seed_from_u64(trial_seed(0x0C4E_CC0F, s.name(), k));
        let Ok(r) = s.sample(&SampleContext::default(), &mut rng) else {
            continue;
        };
        for (name, it) in r.items() {
            let (lo, hi) = match it {
                super::Item::Scalar { lo, hi, .. } => (*lo, *hi),
                _ => (f64::NAN, f64::NAN),
            };
            match reference.iter_mut().find(|x| &x.0 == name) {
                Some(x) => {
                    x.2 = x.2.min(lo);
                    x.3 = x.3.max(hi);
                }
                None => reference.push((name.clone(), it.kind(), lo, hi)),
            }
        }
    }
    let bad = |reason: String| Error::Parse {
        what: "counterexample".into(),
        reason,
    };
    for (name, it) in inst.items() {
        let Some(r) = reference.iter().find(|x| &x.0 == name) else {
            return Err(bad(format!(
                "item {name:?} is not part of statement {}",
                s.name()
            )));
        };
        if r.1 != it.kind() {
            return Err(bad(format!(
                "item {name:?} of {} must be a {}, the file has a {}",
                s.name(),
                r.1,
                it.kind()
            )));
        }
        if let super::Item::Scalar { value, .. } = it {
            if !(*value >= r.2 && *value <= r.3) {
                return Err(Error::invalid(
                    name,
                    *value,
                    format!(
                        "outside the range [{}, {}] of statement {} (the instance does not \
                         satisfy its hypotheses)",
                        r.2,
                        r.3,
                        s.name()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// [`replay`] of a document already read: `text` is the JSON written by
/// [`save_counterexample`], `dir` where its `.npy` files are.
///
/// Errors: unknown statement, an instance that does not fit the statement ([`check_instance`]),
/// a recorded margin that is not a number (or `"inf"`/`"-inf"`).
pub fn replay_document(text: &str, dir: &Path) -> Result<Replay> {
    let bad = |reason: String| Error::Parse {
        what: "counterexample".into(),
        reason,
    };
    let doc: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    let lemma = doc["lemma"]
        .as_str()
        .ok_or_else(|| bad("no \"lemma\"".into()))?;
    let s = super::find(lemma).ok_or_else(|| bad(format!("unknown statement {lemma:?}")))?;
    let recorded = match &doc["margin"] {
        Value::String(x) if x == "-inf" => f64::NEG_INFINITY,
        Value::String(x) if x == "inf" => f64::INFINITY,
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| bad(format!("recorded \"margin\" {n} is not a number")))?,
        v => {
            return Err(bad(format!(
                "recorded \"margin\" must be a number, \"inf\" or \"-inf\", not {}",
                short(v)
            )))
        }
    };
    let inst = Instance::from_json(&doc["items"], dir)?;
    check_instance(s.as_ref(), &inst)?;
    let m1 = eval(s.as_ref(), &inst, PRIMARY)?;
    let m2 = eval(s.as_ref(), &inst, Backend::Nalgebra)?;
    let hp = s.margin_high_precision(&inst).transpose()?;
    let err = m1.error.max(m2.error)
        + if m1.value == m2.value {
            0.0
        } else {
            (m1.value - m2.value).abs()
        };
    // the recorded margin must be what this instance gives (within the error estimate, plus
    // room for the backend used at save time): an edited margin is flagged
    let recorded_matches = recorded == m1.value
        || (recorded - m1.value).abs() <= 4.0 * err + 1e-12 * m1.value.abs().max(1.0);
    Ok(Replay {
        lemma: lemma.to_string(),
        recorded,
        margin: m1,
        margin_nalgebra: m2,
        margin_high_precision: hp,
        recorded_matches,
        violation: m1.value < -err && m2.value < -err && hp.is_none_or(|v| v < -err),
    })
}

/// A JSON value, cut to 40 characters for a message.
fn short(v: &Value) -> String {
    let t = v.to_string();
    match t.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t,
    }
}

/// Parse the reports of one `qrenyi verify --json` output (`what` names it in errors).
pub fn parse_reports(text: &str, what: &str) -> Result<Vec<Report>> {
    serde_json::from_str(text).map_err(|e| Error::Parse {
        what: what.to_string(),
        reason: e.to_string(),
    })
}

/// Join shard reports of the same run: per statement, sum the trials, evaluations and errors,
/// take the worst margin with the smallest certified value (`margin + error`, as the search
/// ranks), keep the counterexample with the smallest margin, union the shards. Statements keep
/// their first-seen order.
///
/// Errors: [`Error::InvalidParameter`] when the reports are not shards of one run — a different
/// seed, largest dimension or shard count than the first report (their union would not be the
/// deterministic run that `--shard` promises).
pub fn merge(reports: Vec<Report>) -> Result<Vec<Report>> {
    if let Some(first) = reports.first() {
        let run = |r: &Report| (r.seed, r.max_dim, r.shards.first().map(|s| s.1));
        if let Some(other) = reports.iter().find(|r| run(r) != run(first)) {
            return Err(Error::Parse {
                what: "shard reports".into(),
                reason: format!(
                    "{} comes from another run (seed {}, max-dim {}, shards {:?}) than {} \
                     (seed {}, max-dim {}, shards {:?})",
                    other.lemma,
                    other.seed,
                    other.max_dim,
                    other.shards,
                    first.lemma,
                    first.seed,
                    first.max_dim,
                    first.shards
                ),
            });
        }
    }
    let invalid = |r: &Report, why: String| Error::Parse {
        what: format!("shard report of {}", r.lemma),
        reason: why,
    };
    for r in &reports {
        if let Some(&(i, n)) = r.shards.iter().find(|&&(i, n)| n == 0 || i >= n) {
            return Err(invalid(
                r,
                format!("shard {i}/{n} is not a shard (need 0 ≤ i < n)"),
            ));
        }
        if r.shards.is_empty() {
            return Err(invalid(r, "no shard listed".into()));
        }
    }
    let mut out: Vec<Report> = Vec::new();
    for r in reports {
        match out.iter_mut().find(|o| o.lemma == r.lemma) {
            None => out.push(r),
            Some(o) => {
                if let Some(sh) = r.shards.iter().find(|sh| o.shards.contains(sh)) {
                    return Err(invalid(
                        &r,
                        format!("shard {}/{} is given twice", sh.0, sh.1),
                    ));
                }
                if o.run_trials != r.run_trials {
                    return Err(invalid(
                        &r,
                        format!(
                            "shards of runs with different --trials ({} vs {})",
                            fmt_opt(o.run_trials),
                            fmt_opt(r.run_trials)
                        ),
                    ));
                }
                let sum = |a: usize, b: usize, what: &str| {
                    a.checked_add(b)
                        .ok_or_else(|| invalid(&r, format!("{what} {a} + {b} overflows")))
                };
                o.trials = sum(o.trials, r.trials, "trials")?;
                o.evaluations = sum(o.evaluations, r.evaluations, "evaluations")?;
                o.errors = sum(o.errors, r.errors, "errors")?;
                o.unconfirmed = sum(o.unconfirmed, r.unconfirmed, "unconfirmed")?;
                o.infinite = sum(o.infinite, r.infinite, "infinite")?;
                o.seconds += r.seconds;
                let upper = |m: f64, e: f64| Margin::new(m, e).upper();
                if upper(r.worst_margin, r.worst_error) < upper(o.worst_margin, o.worst_error)
                    || o.worst_margin.is_nan()
                {
                    o.worst_margin = r.worst_margin;
                    o.worst_error = r.worst_error;
                    o.worst_instance = r.worst_instance.clone();
                }
                let better = match (&o.counterexample, &r.counterexample) {
                    (None, Some(_)) => true,
                    (Some(a), Some(b)) => b.margin < a.margin,
                    _ => false,
                };
                if better {
                    o.counterexample = r.counterexample.clone();
                }
                if r.status == Status::Refuted {
                    o.status = Status::Refuted;
                }
                for sh in r.shards {
                    if !o.shards.contains(&sh) {
                        o.shards.push(sh);
                    }
                }
                o.shards.sort_unstable();
            }
        }
    }
    for o in &out {
        if let (Some(total), Some(&(_, n))) = (o.run_trials, o.shards.first()) {
            if o.shards.len() == n && o.trials != total {
                return Err(invalid(
                    o,
                    format!("the shards hold {} trials, the run {total}", o.trials),
                ));
            }
        }
    }
    Ok(out)
}

fn fmt_opt(x: Option<usize>) -> String {
    x.map_or_else(|| "unrecorded".into(), |t| t.to_string())
}
