//! Auditing (α, λ, τ)-RKRDP, (α, τ)-RDP and (ε,δ)-DP from samples of `M(x)` and `M(x')`
//! (seed 002, Section 5). Derivations: `docs/kernel.md`, sections "dp_regularization",
//! "finite_sample_threshold" and "resampling_interval".
//!
//! The test rejects the null hypothesis ("the mechanism satisfies the guarantee") when the
//! estimate `D̂ = D̃_α(Σ̂_P ‖ Σ̂_Q + λI)` exceeds `threshold = τ + margin`, where the margin is either
//! the finite-sample deviation bound [`finite_sample_threshold`] (level β guaranteed for α > 1) or
//! the half-width of a one-sided resampling confidence interval [`resampling_interval`]
//! (asymptotic).

use crate::error::{Error, Result};
use crate::kernel::{Kernel, KernelDivergence};
use ndarray::{Array2, ArrayView2, Axis};
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The null hypothesis of an audit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Hypothesis {
    /// (α, λ, τ)-RKRDP: `D̃_α(Σ_P ‖ Σ_Q + λI) ≤ τ` (seed 002, Definition 2).
    Rkrdp {
        /// The bound τ.
        tau: f64,
    },
    /// (α, τ)-RDP, which implies (α, λ, τ)-RKRDP for every λ ≥ 0 when α ≥ ½ (seed 002,
    /// Proposition 2 / Proposition 4.3: data processing of the sandwiched divergence).
    Rdp {
        /// The RDP bound τ.
        tau: f64,
    },
    /// (ε,δ)-DP, which implies (α, λ, ε)-RKRDP for every α > 0 and λ ≥ δe^{−ε}
    /// ([`dp_regularization`]).
    Dp {
        /// ε ≥ 0.
        epsilon: f64,
        /// δ ∈ [0, 1).
        delta: f64,
    },
}

impl Hypothesis {
    /// The bound τ that `D_{α,λ}` must respect under the hypothesis.
    pub fn tau(&self) -> f64 {
        match *self {
            Hypothesis::Rkrdp { tau } | Hypothesis::Rdp { tau } => tau,
            Hypothesis::Dp { epsilon, .. } => epsilon,
        }
    }

    /// Check the parameters and that the hypothesis implies (α, λ, τ)-RKRDP.
    pub fn check(&self, alpha: f64, lambda: f64) -> Result<()> {
        match *self {
            Hypothesis::Rkrdp { tau } | Hypothesis::Rdp { tau } => {
                if !(tau >= 0.0 && tau.is_finite()) {
                    return Err(Error::invalid("τ", tau, "must be finite and ≥ 0"));
                }
                if matches!(self, Hypothesis::Rdp { .. }) && alpha < 0.5 {
                    return Err(Error::AlphaOutOfRange {
                        alpha,
                        expected: "RDP implies RKRDP only for α ≥ ½ (data processing)".into(),
                    });
                }
                Ok(())
            }
            Hypothesis::Dp { epsilon, delta } => {
                let min = dp_regularization(epsilon, delta)?;
                if lambda < min {
                    return Err(Error::invalid(
                        "λ",
                        lambda,
                        format!(
                            "(ε,δ) = ({epsilon}, {delta})-DP implies RKRDP only for λ ≥ δe^(−ε) = {min:.6e}"
                        ),
                    ));
                }
                Ok(())
            }
        }
    }

    /// One-line description.
    pub fn describe(&self) -> String {
        match *self {
            Hypothesis::Rkrdp { tau } => format!("(α, λ, τ = {tau})-RKRDP"),
            Hypothesis::Rdp { tau } => format!("(α, τ = {tau})-RDP"),
            Hypothesis::Dp { epsilon, delta } => format!("(ε, δ) = ({epsilon}, {delta})-DP"),
        }
    }
}

/// The smallest regularisation for which (ε,δ)-DP implies (α, λ, ε)-RKRDP: `λ = δ e^{−ε}`
/// (seed 002, Proposition 9, re-derived in `docs/kernel.md` § dp_regularization: (ε,δ)-DP gives
/// `Σ_P ≤ e^ε Σ_Q + δ I`, hence `D_max(Σ_P ‖ Σ_Q + δe^{−ε} I) ≤ ε`). Any larger λ is also valid
/// (the divergence decreases in λ); seed 002's code uses `2δe^{−ε}` ([`paper_dp_regularization`]).
pub fn dp_regularization(epsilon: f64, delta: f64) -> Result<f64> {
    if !(epsilon >= 0.0 && epsilon.is_finite()) {
        return Err(Error::invalid("ε", epsilon, "must be finite and ≥ 0"));
    }
    if !(0.0..1.0).contains(&delta) {
        return Err(Error::invalid("δ", delta, "must lie in [0, 1)"));
    }
    Ok(delta * (-epsilon).exp())
}

/// The regularisation `2δe^{−ε}` used by seed 002's experiment code (valid, twice the minimum).
pub fn paper_dp_regularization(epsilon: f64, delta: f64) -> Result<f64> {
    Ok(2.0 * dp_regularization(epsilon, delta)?)
}

/// The pieces of the finite-sample deviation bound `|D̂ − D| ≤ total` (probability ≥ 1 − β).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FiniteSampleBound {
    /// `η_P`: bound on `‖Σ̂_P − Σ_P‖_HS` (probability ≥ 1 − β/2).
    pub eta_p: f64,
    /// `η_Q`: bound on `‖Σ̂_Q − Σ_Q‖_HS` (probability ≥ 1 − β/2).
    pub eta_q: f64,
    /// Error from replacing `Σ_Q` by `Σ̂_Q`: `−ln(1 − η_Q/λ)` (`+∞` if `η_Q ≥ λ`).
    pub sigma_term: f64,
    /// Error from replacing `Σ_P` by `Σ̂_P`: `(α/(α−1)) · (−ln(1 − e/L))` (`+∞` if `e ≥ L`).
    pub rho_term: f64,
    /// `sigma_term + rho_term`.
    pub total: f64,
}

/// `η(n, β) = (1 + √(2 ln(2/β)))/√n`: with probability ≥ 1 − β/2,
/// `‖Σ̂ − Σ‖_HS ≤ η` for `n` i.i.d. points and a kernel with `k(z,z) = 1` (McDiarmid's inequality
/// in the Hilbert–Schmidt space, bounded differences `2/n`, and `E‖Σ̂ − Σ‖_HS ≤ 1/√n`).
pub fn covariance_deviation(n: usize, level: f64) -> f64 {
    (1.0 + (2.0 * (2.0 / level).ln()).sqrt()) / (n as f64).sqrt()
}

/// `‖X‖_α` bound from `‖X‖_HS ≤ η`, `‖X‖_1 ≤ 2` (a difference of two states): `η` for α ≥ 2,
/// `2^{2/α−1} η^{2−2/α}` (Hölder interpolation between Schatten 1 and 2) for 1 < α < 2.
fn schatten_from_hs(eta: f64, alpha: f64) -> f64 {
    let s = if alpha >= 2.0 {
        eta
    } else {
        2f64.powf(2.0 / alpha - 1.0) * eta.powf(2.0 - 2.0 / alpha)
    };
    s.min(2.0)
}

/// A finite-sample bound on `|D̃_α(Σ̂_P‖Σ̂_Q+λI) − D̃_α(Σ_P‖Σ_Q+λI)|` holding with probability
/// ≥ 1 − β, for α > 1, λ > 0, a normalised kernel (`k(z,z) = 1`) and a bandwidth chosen
/// independently of the samples. Replaces seed 002's Theorem 3 (its formulas were lost); derived
/// in `docs/kernel.md` § finite_sample_threshold:
///
/// * `η_P = covariance_deviation(n, β)`, `η_Q = covariance_deviation(m, β)`;
/// * σ-step (order property): `σ̂ ∈ [(1−η_Q/λ)σ, (1+η_Q/λ)σ]` ⇒ error `≤ −ln(1 − η_Q/λ)`;
/// * ρ-step: with `a = ‖σ^{γ/2}ρσ^{γ/2}‖_α`, `|a(ρ̂) − a(ρ)| ≤ e = λ^γ s_α(η_P)` and
///   `a(ρ̂) ≥ L = (1+λ)^γ ‖ρ̂‖_α` ⇒ error `≤ (α/(α−1)) (−ln(1 − e/L))`.
///
/// `rho_schatten` is `‖Σ̂_P‖_α = (Σ_k p_k^α)^{1/α}` of the empirical spectrum. The bound is `+∞`
/// (vacuous) when `η_Q ≥ λ` or `e ≥ L`: it needs roughly `n, m ≫ 1/λ²`.
pub fn finite_sample_threshold(
    alpha: f64,
    lambda: f64,
    n: usize,
    m: usize,
    level: f64,
    rho_schatten: f64,
) -> Result<FiniteSampleBound> {
    if !(alpha > 1.0 && alpha.is_finite()) {
        return Err(Error::AlphaOutOfRange {
            alpha,
            expected: "the finite-sample threshold is derived for 1 < α < ∞; use resampling".into(),
        });
    }
    check_level(level)?;
    if !(lambda >= 0.0 && lambda.is_finite()) {
        return Err(Error::invalid("λ", lambda, "must be finite and ≥ 0"));
    }
    if n == 0 || m == 0 {
        return Err(Error::Empty(
            "samples for the finite-sample threshold".into(),
        ));
    }
    let eta_p = covariance_deviation(n, level);
    let eta_q = covariance_deviation(m, level);
    let x = if lambda > 0.0 {
        eta_q / lambda
    } else {
        f64::INFINITY
    };
    let sigma_term = if x < 1.0 {
        -(-x).ln_1p()
    } else {
        f64::INFINITY
    };
    let gamma = (1.0 - alpha) / alpha;
    let e = lambda.powf(gamma) * schatten_from_hs(eta_p, alpha);
    let l = (1.0 + lambda).powf(gamma) * rho_schatten;
    let rho_term = if lambda > 0.0 && e < l {
        alpha / (alpha - 1.0) * -(-e / l).ln_1p()
    } else {
        f64::INFINITY
    };
    Ok(FiniteSampleBound {
        eta_p,
        eta_q,
        sigma_term,
        rho_term,
        total: sigma_term + rho_term,
    })
}

fn check_level(level: f64) -> Result<()> {
    if level > 0.0 && level < 1.0 {
        Ok(())
    } else {
        Err(Error::invalid("level β", level, "must lie in (0, 1)"))
    }
}

/// Which resampling scheme builds the confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResamplingKind {
    /// Nonparametric bootstrap (draw `n` and `m` points with replacement), basic (pivotal)
    /// interval `[2D̂ − q_{1−β}, 2D̂ − q_β]`. Duplicated points bias the kernel estimate.
    Bootstrap,
    /// Subsampling without replacement (Politis & Romano 1994) with fraction `f`: the law of
    /// `√n(D̂_n − D)` is estimated by that of `√b(D̂_b − D̂_n)`, giving
    /// `[D̂ − √f q_{1−β}(D̂_b − D̂), D̂ − √f q_β(D̂_b − D̂)]`. Assumes a √n rate.
    Subsample,
}

impl ResamplingKind {
    /// Lowercase name (`bootstrap`, `subsample`).
    pub fn name(self) -> &'static str {
        match self {
            ResamplingKind::Bootstrap => "bootstrap",
            ResamplingKind::Subsample => "subsample",
        }
    }
}

/// Largest number of resampling replicates [`Resampling`] accepts.
pub const MAX_REPLICATES: usize = 100_000;

/// Configuration of a resampling interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Resampling {
    /// Scheme.
    pub kind: ResamplingKind,
    /// Number of replicates `10 ≤ B ≤` [`MAX_REPLICATES`].
    pub replicates: usize,
    /// Subsampling fraction `f ∈ (0, 1)` (ignored by the bootstrap).
    pub fraction: f64,
    /// RNG seed (ChaCha8).
    pub seed: u64,
}

impl Default for Resampling {
    fn default() -> Self {
        Resampling {
            kind: ResamplingKind::Subsample,
            replicates: 200,
            fraction: 0.5,
            seed: 0,
        }
    }
}

/// A one-sided-per-end confidence interval for `D_{α,λ}`: each end holds with asymptotic
/// probability ≥ 1 − β.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfidenceInterval {
    /// Lower confidence bound.
    pub lower: f64,
    /// Upper confidence bound.
    pub upper: f64,
    /// The scheme used.
    pub kind: ResamplingKind,
    /// Replicates computed.
    pub replicates: usize,
}

/// The empirical `q`-quantile (linear interpolation between order statistics, numpy's default).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (i, frac) = (pos.floor() as usize, pos - pos.floor());
    if i + 1 < sorted.len() {
        sorted[i] + frac * (sorted[i + 1] - sorted[i])
    } else {
        sorted[i]
    }
}

/// Gram blocks of two samples, kept for resampling.
struct GramBlocks {
    kxx: Array2<f64>,
    kxy: Array2<f64>,
    kyy: Array2<f64>,
}

impl GramBlocks {
    fn new(x: ArrayView2<f64>, y: ArrayView2<f64>, kernel: &Kernel) -> Result<Self> {
        Ok(GramBlocks {
            kxx: kernel.gram_sym(x)?,
            kxy: kernel.gram(x, y)?,
            kyy: kernel.gram_sym(y)?,
        })
    }
    fn estimator(&self, ix: &[usize], iy: &[usize]) -> Result<KernelDivergence> {
        let sel =
            |k: &Array2<f64>, r: &[usize], c: &[usize]| k.select(Axis(0), r).select(Axis(1), c);
        KernelDivergence::from_gram(
            sel(&self.kxx, ix, ix),
            sel(&self.kxy, ix, iy),
            sel(&self.kyy, iy, iy),
        )
    }
    fn full(&self) -> Result<KernelDivergence> {
        KernelDivergence::from_gram(self.kxx.clone(), self.kxy.clone(), self.kyy.clone())
    }
}

fn draw(rng: &mut ChaCha8Rng, total: usize, size: usize, replace: bool) -> Vec<usize> {
    if replace {
        (0..size).map(|_| rng.random_range(0..total)).collect()
    } else {
        sample(rng, total, size).into_vec()
    }
}

/// A resampling confidence interval for `D_{α,λ}(P‖Q)` around the full-sample estimate
/// `estimate` (docs/kernel.md § resampling_interval). Replicates whose estimate is `+∞` make the
/// corresponding end `+∞`.
pub fn resampling_interval(
    x: ArrayView2<f64>,
    y: ArrayView2<f64>,
    kernel: &Kernel,
    alpha: f64,
    lambda: f64,
    level: f64,
    cfg: &Resampling,
) -> Result<(f64, ConfidenceInterval)> {
    check_level(level)?;
    let blocks = GramBlocks::new(x, y, kernel)?;
    let estimate = blocks.full()?.divergence(alpha, lambda)?;
    let ci = intervals_from_blocks(&blocks, &[(alpha, estimate)], lambda, level, cfg)?;
    Ok((estimate, ci[0].clone()))
}

/// One resampling interval per `(α, estimate)`: every replicate's Gram blocks are drawn and
/// decomposed once and evaluated at each α, so the draws (and each α's interval) are those of a
/// one-order run with the same seed.
fn intervals_from_blocks(
    blocks: &GramBlocks,
    orders: &[(f64, f64)],
    lambda: f64,
    level: f64,
    cfg: &Resampling,
) -> Result<Vec<ConfidenceInterval>> {
    if cfg.replicates < 10 || cfg.replicates > MAX_REPLICATES {
        return Err(Error::invalid(
            "replicates",
            cfg.replicates as f64,
            format!(
                "need 10..={MAX_REPLICATES} resampling replicates (each one is an eigensolve of \
                 the resampled Gram blocks; quantiles at levels ≥ 1e-3 gain nothing beyond)"
            ),
        ));
    }
    let (n, m) = (blocks.kxx.nrows(), blocks.kyy.nrows());
    let subsample = cfg.kind == ResamplingKind::Subsample;
    let (bn, bm) = if subsample {
        if !(cfg.fraction > 0.0 && cfg.fraction < 1.0) {
            return Err(Error::invalid(
                "subsampling fraction",
                cfg.fraction,
                "must lie in (0, 1)",
            ));
        }
        let b = |k: usize| ((k as f64 * cfg.fraction).round() as usize).clamp(1, k);
        (b(n), b(m))
    } else {
        (n, m)
    };
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let mut reps = vec![Vec::with_capacity(cfg.replicates); orders.len()];
    for _ in 0..cfg.replicates {
        let ix = draw(&mut rng, n, bn, !subsample);
        let iy = draw(&mut rng, m, bm, !subsample);
        let est = blocks.estimator(&ix, &iy)?;
        for (r, &(alpha, _)) in reps.iter_mut().zip(orders) {
            r.push(est.divergence(alpha, lambda)?);
        }
    }
    Ok(reps
        .iter_mut()
        .zip(orders)
        .map(|(reps, &(_, estimate))| {
            reps.sort_by(f64::total_cmp);
            let (qlo, qhi) = (quantile(reps, level), quantile(reps, 1.0 - level));
            let (lower, upper) = if !estimate.is_finite() {
                (estimate, estimate)
            } else if subsample {
                let s = cfg.fraction.sqrt();
                (
                    estimate - s * (qhi - estimate),
                    estimate - s * (qlo - estimate),
                )
            } else {
                (2.0 * estimate - qhi, 2.0 * estimate - qlo)
            };
            ConfidenceInterval {
                lower: if lower.is_nan() {
                    f64::NEG_INFINITY
                } else {
                    lower
                },
                upper: if upper.is_nan() { f64::INFINITY } else { upper },
                kind: cfg.kind,
                replicates: cfg.replicates,
            }
        })
        .collect())
}

/// How the audit sets its margin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// [`finite_sample_threshold`] (guaranteed level, α > 1).
    FiniteSample,
    /// A resampling interval's lower bound (asymptotic level).
    Resampling(Resampling),
}

/// What to test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AuditSpec {
    /// Rényi order α.
    pub alpha: f64,
    /// Regularisation λ.
    pub lambda: f64,
    /// Level β of the test (type-I error bound).
    pub level: f64,
    /// Null hypothesis.
    pub hypothesis: Hypothesis,
    /// Threshold method.
    pub method: Method,
}

/// The outcome of an audit.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditReport {
    /// The statistic `D̂ = D̃_α(Σ̂_P ‖ Σ̂_Q + λI)`.
    pub divergence: f64,
    /// Kernel bandwidth used.
    pub bandwidth: f64,
    /// τ implied by the hypothesis.
    pub tau: f64,
    /// The statistic is compared to this: `τ + margin` (`+∞` if the margin is vacuous).
    pub threshold: f64,
    /// `divergence > threshold`: the hypothesis is rejected at level β.
    pub violation: bool,
    /// `"finite-sample"`, `"bootstrap"` or `"subsample"`.
    pub method: &'static str,
    /// The finite-sample bound (α > 1), reported whatever the method.
    pub finite_sample: Option<FiniteSampleBound>,
    /// The resampling interval, when that method was used.
    pub interval: Option<ConfidenceInterval>,
    /// Sample sizes.
    pub n: usize,
    /// Sample sizes.
    pub m: usize,
    /// The assumptions under which the level holds, in words.
    pub assumptions: Vec<String>,
}

/// Run the test of [`AuditSpec`] on samples `x ~ M(D)`, `y ~ M(D')`.
pub fn audit(
    x: ArrayView2<f64>,
    y: ArrayView2<f64>,
    kernel: &Kernel,
    spec: &AuditSpec,
) -> Result<AuditReport> {
    let mut reports = audit_orders(x, y, kernel, spec, &[spec.alpha])?;
    Ok(reports.remove(0))
}

/// [`audit`] at each Rényi order of `alphas` (`spec.alpha` is not used), one report per order in
/// the order given. The Gram blocks, the full-sample decomposition and, for a resampling method,
/// every replicate's decomposition are computed once and shared by all orders, so each report
/// equals the one-order [`audit`] with that α. Each test has level β on its own; rejecting when
/// any of k orders rejects has family-wise level ≤ kβ (union bound).
pub fn audit_orders(
    x: ArrayView2<f64>,
    y: ArrayView2<f64>,
    kernel: &Kernel,
    spec: &AuditSpec,
    alphas: &[f64],
) -> Result<Vec<AuditReport>> {
    check_level(spec.level)?;
    if alphas.is_empty() {
        return Err(Error::Empty(
            "the audit needs at least one Rényi order α".into(),
        ));
    }
    for &alpha in alphas {
        spec.hypothesis.check(alpha, spec.lambda)?;
    }
    let blocks = GramBlocks::new(x, y, kernel)?;
    let est = blocks.full()?;
    let estimates = alphas
        .iter()
        .map(|&a| Ok((a, est.divergence(a, spec.lambda)?)))
        .collect::<Result<Vec<_>>>()?;
    let intervals = match spec.method {
        Method::FiniteSample => None,
        Method::Resampling(cfg) => Some(intervals_from_blocks(
            &blocks,
            &estimates,
            spec.lambda,
            spec.level,
            &cfg,
        )?),
    };
    estimates
        .iter()
        .enumerate()
        .map(|(i, &(alpha, divergence))| {
            let interval = intervals.as_ref().map(|c| c[i].clone());
            report(&est, kernel, spec, alpha, divergence, interval)
        })
        .collect()
}

/// One order's report from the shared full-sample estimator (and its resampling interval).
fn report(
    est: &KernelDivergence,
    kernel: &Kernel,
    spec: &AuditSpec,
    alpha: f64,
    divergence: f64,
    interval: Option<ConfidenceInterval>,
) -> Result<AuditReport> {
    let (n, m) = (est.n(), est.m());
    let finite_sample = if alpha > 1.0 && alpha.is_finite() {
        let p = est.rho_spectrum()?;
        let norm = p
            .iter()
            .map(|&v| v.max(0.0).powf(alpha))
            .sum::<f64>()
            .powf(1.0 / alpha);
        Some(finite_sample_threshold(
            alpha,
            spec.lambda,
            n,
            m,
            spec.level,
            norm,
        )?)
    } else {
        None
    };
    let tau = spec.hypothesis.tau();
    let mut assumptions = vec![
        "X and Y are independent i.i.d. samples of M(D) and M(D') for one adjacent pair (D, D')"
            .to_string(),
        format!(
            "kernel {} with bandwidth {} fixed independently of X, Y (e.g. median heuristic on a pilot sample)",
            kernel.kind().name(),
            kernel.bandwidth()
        ),
        format!(
            "{} implies (α = {}, λ = {}, τ = {tau})-RKRDP{}",
            spec.hypothesis.describe(),
            alpha,
            spec.lambda,
            match spec.hypothesis {
                Hypothesis::Rkrdp { .. } => " (it is the hypothesis)",
                Hypothesis::Rdp { .. } => " (seed 002 Prop. 2, α ≥ ½)",
                Hypothesis::Dp { .. } => " (seed 002 Prop. 9: λ ≥ δe^(−ε), docs/kernel.md)",
            }
        ),
    ];
    let (threshold, method) = match (spec.method, &interval) {
        (Method::Resampling(cfg), Some(ci)) => {
            assumptions.push(format!(
                "{} interval with {} replicates: asymptotic level only (√n-consistent estimator), no finite-sample guarantee",
                cfg.kind.name(),
                cfg.replicates
            ));
            let margin = if divergence.is_finite() {
                divergence - ci.lower
            } else {
                0.0
            };
            (tau + margin, cfg.kind.name())
        }
        _ => {
            let fs = finite_sample.ok_or_else(|| Error::AlphaOutOfRange {
                alpha,
                expected: "the finite-sample threshold needs 1 < α < ∞; use a resampling method"
                    .into(),
            })?;
            assumptions.push(
                "finite-sample threshold: McDiarmid bound in Hilbert–Schmidt norm + order property (docs/kernel.md § finite_sample_threshold); level β holds for every n"
                    .into(),
            );
            (tau + fs.total, "finite-sample")
        }
    };
    Ok(AuditReport {
        divergence,
        bandwidth: kernel.bandwidth(),
        tau,
        threshold,
        violation: divergence > threshold,
        method,
        finite_sample,
        interval,
        n,
        m,
        assumptions,
    })
}
