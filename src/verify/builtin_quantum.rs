//! Quantum statements: the bounded-divergence theorem (seed 000, Theorem 22) and its sinh form,
//! monotonicity in α, the order of the three families, data processing (and where it fails),
//! additivity, and the open Petz question.

use super::bounds::sinh_bound;
use super::instance::Item;
use super::real_quantum::HpPair;
use super::sample::{self, SampleContext};
use super::{rounding, Builtin, Expected, Instance, Margin};
use crate::divergence::{Family, Pair};
use crate::error::Result;
use crate::privacy::conversion;
use crate::spectral::Backend;
use crate::state::{haar_unitary, Channel, DensityMatrix};
use ndarray::Array2;
use num_complex::Complex64;
use rand_chacha::ChaCha8Rng;

/// Where a margin's divergence values come from: the `f64` core (the code under test) or the
/// independent 256-bit evaluation ([`HpPair`]), which re-confirms every quantum counterexample
/// (`Builtin::high_precision`). Channel outputs and the two-point states are formed in `f64` in
/// both cases; their rounding is part of the margin's error estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Eval {
    Core,
    Hp,
}

impl Eval {
    /// `D_α` of `family` (limits at α = 1, ∞).
    pub(crate) fn renyi(self, pair: &Pair, family: Family, alpha: f64) -> Result<f64> {
        match self {
            Eval::Core => pair.renyi(family, alpha),
            Eval::Hp => HpPair::new(pair.rho(), pair.sigma())?.renyi(family, alpha),
        }
    }
    /// `D_max(ρ‖σ)`.
    pub(crate) fn dmax(self, pair: &Pair) -> Result<f64> {
        match self {
            Eval::Core => pair.max_relative_entropy(),
            Eval::Hp => HpPair::new(pair.rho(), pair.sigma())?.max_relative_entropy(),
        }
    }
}

/// The 256-bit margin of a quantum statement: its margin function with [`Eval::Hp`].
macro_rules! hp_margin {
    ($f:expr) => {
        Some(|i: &Instance| Ok(($f)(i, Backend::Auto, Eval::Hp)?.value))
    };
}

/// `(ρ, σ)` from [`sample::state_pair`] and an order α in `[lo, hi]`.
pub(crate) fn pair_alpha(ctx: &SampleContext, rng: &mut ChaCha8Rng, lo: f64, hi: f64) -> Instance {
    let d = ctx.dim(rng);
    let (rho, sigma, how) = sample::state_pair(d, rng);
    Instance::new()
        .with("rho", rho)
        .with("sigma", sigma)
        .with("alpha", sample::alpha(lo, hi, rng))
        .tagged(how)
}

/// `(ρ, σ)` mostly with bounded `D_max` both ways (the hypothesis of the bounded-divergence
/// theorems), sometimes from the general pair ensembles.
fn bounded_pair_alpha(ctx: &SampleContext, rng: &mut ChaCha8Rng, lo: f64, hi: f64) -> Instance {
    let d = ctx.dim(rng);
    let (rho, sigma, how) = if rand::Rng::random_bool(rng, 0.7) {
        sample::bounded_state_pair(d, rng)
    } else {
        sample::state_pair(d, rng)
    };
    Instance::new()
        .with("rho", rho)
        .with("sigma", sigma)
        .with("alpha", sample::alpha(lo, hi, rng))
        .tagged(how)
}

/// The states `ρ`, `σ` of an instance.
pub(crate) fn states(inst: &Instance, b: Backend) -> Result<(DensityMatrix, DensityMatrix)> {
    Ok((inst.state("rho", b)?, inst.state("sigma", b)?))
}

/// `ε = max(D_max(ρ‖σ), D_max(σ‖ρ))`, clamped at 0: both are `≥ 0` for states, and `ρ ≈ σ`
/// gives `−1e-16`-sized values that the bounds (which need `ε ≥ 0`) would reject.
pub(crate) fn dmax_both(rho: &DensityMatrix, sigma: &DensityMatrix, ev: Eval) -> Result<f64> {
    let a = ev.dmax(&Pair::new(rho, sigma)?)?;
    let b = ev.dmax(&Pair::new(sigma, rho)?)?;
    Ok(a.max(b).max(0.0))
}

/// Error factor of order α: relative errors of eigenvalues are amplified by `α` and `1/α`
/// (powers `t^α`, `σ^{(1−α)/α}`).
fn alpha_factor(alpha: f64) -> f64 {
    1.0 + alpha.min(1e3) + 1.0 / alpha
}

/// Extra error factor of the Petz family (Nussbaum–Szkoła): an overlap `|⟨a_i|b_j⟩|²` that is
/// zero in exact arithmetic comes out `~(ε/gap)²`, and its term weighs up to
/// `max_ij λ_i^α μ_j^{1−α}` against `Q = e^{(α−1)D}` — huge at large α when `σ` has small
/// eigenvalues. Factor `max(1, max_ij λ_i^α μ_j^{1−α} / Q)`.
pub(crate) fn petz_factor(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    alpha: f64,
    value: f64,
) -> f64 {
    if !value.is_finite() || !alpha.is_finite() {
        return 1.0;
    }
    // no decomposition, no error estimate: an unbounded factor confirms nothing
    let (Ok(er), Ok(es)) = (rho.eigen(), sigma.eigen()) else {
        return f64::INFINITY;
    };
    let lmax = er.max_value().ln();
    let support: Vec<f64> = es.support().iter().map(|&j| es.values()[j]).collect();
    let smin = support.iter().copied().fold(f64::INFINITY, f64::min).ln();
    let smax = es.max_value().ln();
    let top = (alpha * lmax + (1.0 - alpha) * smin).max(alpha * lmax + (1.0 - alpha) * smax);
    (top - (alpha - 1.0) * value).exp().max(1.0)
}

/// `D_α(ρ‖σ)` of `family` from `ev` with its error factor ([`petz_factor`]).
pub(crate) fn value_and_factor(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    pair: &Pair,
    family: Family,
    alpha: f64,
    ev: Eval,
) -> Result<(f64, f64)> {
    let v = ev.renyi(pair, family, alpha)?;
    // `supp ρ ⊆ supp σ` is decided by comparing Tr ρ Π_ker σ with τ: within four orders of
    // magnitude of τ either answer may be wrong, and the value (finite or +∞) with it
    let tau = crate::spectral::zero_threshold(rho.dim(), rho.eigen()?.max_value());
    let leak = pair.leakage()?;
    if leak > 1e-4 * tau && leak < 1e4 * tau {
        return Ok((v, f64::INFINITY));
    }
    // α < 1: Q = e^{(α−1)D} is a sum of α-th powers of overlap-like quantities of size
    // ~Q^{1/α}, each known to absolute accuracy ~ε: relative error of Q up to ε Q^{−1/α}
    // (nearly orthogonal states)
    let small_q = if alpha < 1.0 && v.is_finite() && v > 0.0 {
        ((1.0 - alpha) * v / alpha).exp()
    } else {
        1.0
    };
    let f = small_q
        * match family {
            Family::Petz => petz_factor(rho, sigma, alpha, v),
            // near α = 1 the sandwiched value is (1/(α−1)) ln Q with Q known to ~ε; below ½
            // the graded Jacobi route keeps the small eigenvalues' relative accuracy (no κ(σ)^γ),
            // but a rank-deficient ρ's support rotation can move it (accuracy::support_rotation)
            Family::Sandwiched => {
                let rotation = crate::divergence::accuracy::support_rotation(pair, alpha, v)?;
                let unit = 256.0 * rho.dim() as f64 * crate::spectral::EPS * (1.0 + v.abs());
                (1.0 + 1.0 / (alpha - 1.0).abs())
                    .min(1e12)
                    .max(rotation / unit)
            }
            // α < 1: the small eigenvalues of T = σ^{−1/2}ρσ^{−1/2} matter, known to accuracy ~ε‖T‖,
            // and κ(T) ≲ κ(ρ)κ(σ) (κ(σ) is already in `rounding`). When supp ρ ⊄ supp σ, the
            // absolutely continuous part ρ_ss − ρ_sk ρ_kk⁺ ρ_ks cancels to relative accuracy ~ε/leakage.
            Family::Maximal if alpha < 1.0 => {
                let leak = if pair.is_supported()? {
                    1.0
                } else {
                    1.0 / pair.leakage()?
                };
                super::condition_number(rho) * leak
            }
            Family::Maximal => 1.0,
        };
    Ok((v, f))
}

fn bounded_divergence_margin(
    inst: &Instance,
    b: Backend,
    family: Family,
    ev: Eval,
) -> Result<Margin> {
    let (rho, sigma) = states(inst, b)?;
    let alpha = inst.scalar("alpha")?;
    let eps = dmax_both(&rho, &sigma, ev)?;
    let pair = Pair::new(&rho, &sigma)?;
    let (d, f) = value_and_factor(&rho, &sigma, &pair, family, alpha, ev)?;
    let bound = if eps.is_finite() {
        conversion::bounded_divergence_bound(eps, alpha)?
    } else {
        f64::INFINITY
    };
    let err = rounding(&[&rho, &sigma], &[d, bound, eps]) * alpha_factor(alpha) * f;
    Ok(Margin::le(d, bound, err))
}

fn sinh_margin(inst: &Instance, b: Backend, ev: Eval) -> Result<Margin> {
    let (rho, sigma) = states(inst, b)?;
    let alpha = inst.scalar("alpha")?;
    let eps = dmax_both(&rho, &sigma, ev)?;
    let d = ev.renyi(&Pair::new(&rho, &sigma)?, Family::Maximal, alpha)?;
    let bound = if eps.is_finite() {
        conversion::bounded_divergence_tight(eps, alpha)?
    } else {
        f64::INFINITY
    };
    let (_, berr) = sinh_bound(alpha, eps);
    // dB/dε ≤ α ε-ish: an error δε in ε moves the bound by ≤ (2α − 1)·δε
    let err = rounding(&[&rho, &sigma], &[d, bound, eps]) * alpha_factor(alpha) * 2.0 + berr;
    Ok(Margin::le(d, bound, err))
}

/// The two-point pair rotated by the unitary stored as a channel item, padded with zeros to `d`.
fn two_point(inst: &Instance, b: Backend) -> Result<(DensityMatrix, DensityMatrix, f64)> {
    let eps = inst.scalar("epsilon")?;
    let u = inst.channel("unitary")?;
    let a = (1.0 - (-eps).exp()) / (eps.exp() - (-eps).exp());
    let bb = 1.0 - a;
    let d = u.input_dim();
    let diag = |x: f64, y: f64| {
        let mut m = Array2::<Complex64>::zeros((d, d));
        m[[0, 0]] = Complex64::new(x, 0.0);
        m[[1, 1]] = Complex64::new(y, 0.0);
        m
    };
    let p = diag(a * eps.exp(), bb * (-eps).exp());
    let q = diag(a, bb);
    let mk = |m: Array2<Complex64>| -> Result<DensityMatrix> {
        let out = u.apply_matrix(&m)?;
        let s: f64 = (0..d).map(|i| out[[i, i]].re).sum();
        DensityMatrix::with_options(out.mapv(|z| z / s), Default::default(), b)
    };
    Ok((mk(p)?, mk(q)?, eps))
}

fn tight_margin(inst: &Instance, b: Backend, ev: Eval) -> Result<Margin> {
    let (rho, sigma, eps) = two_point(inst, b)?;
    let alpha = inst.scalar("alpha")?;
    let d = ev.renyi(&Pair::new(&rho, &sigma)?, Family::Maximal, alpha)?;
    let (bound, berr) = sinh_bound(alpha, eps);
    let tight = conversion::bounded_divergence_tight(eps, alpha)?;
    let err = rounding(&[&rho, &sigma], &[d, bound]) * alpha_factor(alpha) * 2.0 + berr;
    Ok(Margin::eq(d, bound, err).and(Margin::eq(d, tight, err)))
}

fn monotonicity_margin(inst: &Instance, b: Backend, ev: Eval) -> Result<Margin> {
    let (rho, sigma) = states(inst, b)?;
    let a1 = inst.scalar("alpha")?;
    let a2 = a1 * inst.scalar("ratio")?;
    let pair = Pair::new(&rho, &sigma)?;
    let mut m = Margin::new(f64::INFINITY, 0.0);
    for f in Family::ALL {
        if f == Family::Sandwiched && a1 < 0.5 {
            continue; // monotonicity of the sandwiched family is proved for α ≥ ½
        }
        let (v1, f1) = value_and_factor(&rho, &sigma, &pair, f, a1, ev)?;
        let (v2, f2) = value_and_factor(&rho, &sigma, &pair, f, a2, ev)?;
        let err =
            rounding(&[&rho, &sigma], &[v1, v2]) * alpha_factor(a1) * alpha_factor(a2) * f1.max(f2);
        m = m.and(Margin::le(v1, v2, err));
    }
    Ok(m)
}

/// `(ρ, σ, α, D̃_α, D̄_α, error)` of an instance, the error including Petz's factor.
fn sandwiched_and_petz(
    inst: &Instance,
    b: Backend,
    ev: Eval,
) -> Result<(DensityMatrix, DensityMatrix, f64, f64, f64, f64)> {
    let (rho, sigma) = states(inst, b)?;
    let alpha = inst.scalar("alpha")?;
    let pair = Pair::new(&rho, &sigma)?;
    let s = ev.renyi(&pair, Family::Sandwiched, alpha)?;
    let (p, f) = value_and_factor(&rho, &sigma, &pair, Family::Petz, alpha, ev)?;
    let err = rounding(&[&rho, &sigma], &[s, p]) * alpha_factor(alpha) * f;
    Ok((rho, sigma, alpha, s, p, err))
}

fn order_margin(inst: &Instance, b: Backend, ev: Eval) -> Result<Margin> {
    let (rho, sigma, alpha, s, p, err) = sandwiched_and_petz(inst, b, ev)?;
    let m = ev.renyi(&Pair::new(&rho, &sigma)?, Family::Maximal, alpha)?;
    let err = err + rounding(&[&rho, &sigma], &[m]) * alpha_factor(alpha);
    Ok(Margin::le(s, p, err).and(Margin::le(p, m, err)))
}

fn petz_below_sandwiched_margin(inst: &Instance, b: Backend, ev: Eval) -> Result<Margin> {
    let (_, _, _, s, p, err) = sandwiched_and_petz(inst, b, ev)?;
    Ok(Margin::le(p, s, err))
}

/// `D(ρ‖σ) − D(Φ(ρ)‖Φ(σ))` for `family` (`≥ 0` is data processing).
fn dpi_margin(inst: &Instance, b: Backend, family: Family, ev: Eval) -> Result<Margin> {
    let (rho, sigma) = states(inst, b)?;
    let phi: Channel = inst.channel("channel")?;
    let alpha = inst.scalar("alpha")?;
    let (out_r, out_s) = (rho.apply(&phi)?, sigma.apply(&phi)?);
    let (before, f1) =
        value_and_factor(&rho, &sigma, &Pair::new(&rho, &sigma)?, family, alpha, ev)?;
    let (after, f2) = value_and_factor(
        &out_r,
        &out_s,
        &Pair::new(&out_r, &out_s)?,
        family,
        alpha,
        ev,
    )?;
    let err = rounding(&[&rho, &sigma, &out_r, &out_s], &[before, after])
        * alpha_factor(alpha)
        * f1.max(f2);
    Ok(Margin::le(after, before, err))
}

fn dpi_instance(ctx: &SampleContext, rng: &mut ChaCha8Rng, lo: f64, hi: f64) -> Instance {
    let inst = pair_alpha(ctx, rng, lo, hi);
    let d = match inst.items().first() {
        Some((_, Item::State { matrix, .. })) => matrix.nrows(),
        _ => 2,
    };
    let (ch, how) = sample::channel(d, ctx.max_dim, rng);
    inst.with("channel", ch).tagged(how)
}

fn additivity_margin(inst: &Instance, b: Backend, ev: Eval) -> Result<Margin> {
    let (r1, s1) = (inst.state("rho1", b)?, inst.state("sigma1", b)?);
    let (r2, s2) = (inst.state("rho2", b)?, inst.state("sigma2", b)?);
    let alpha = inst.scalar("alpha")?;
    let (r, s) = (r1.tensor(&r2)?, s1.tensor(&s2)?);
    let (r, s) = (r.with_backend(b)?, s.with_backend(b)?);
    let (p1, p2, p) = (
        Pair::new(&r1, &s1)?,
        Pair::new(&r2, &s2)?,
        Pair::new(&r, &s)?,
    );
    let mut m = Margin::new(f64::INFINITY, 0.0);
    for f in Family::ALL {
        let (a, fa) = value_and_factor(&r, &s, &p, f, alpha, ev)?;
        let (x, fx) = value_and_factor(&r1, &s1, &p1, f, alpha, ev)?;
        let (y, fy) = value_and_factor(&r2, &s2, &p2, f, alpha, ev)?;
        let sum = if x.is_infinite() || y.is_infinite() {
            f64::INFINITY
        } else {
            x + y
        };
        let err = rounding(&[&r, &s], &[a, x, y]) * alpha_factor(alpha) * fa.max(fx).max(fy);
        m = m.and(Margin::eq(a, sum, err));
    }
    Ok(m)
}

/// A bounded-divergence statement (`D_α ≤ ½ε²α` under `D_max ≤ ε` both ways) for `family`,
/// α sampled in `[lo, ∞)`.
macro_rules! bounded_statement {
    ($name:expr, $source:expr, $expected:expr, $summary:expr, $trials:expr, $family:expr, $lo:expr) => {
        Builtin {
            name: $name,
            source: $source,
            expected: $expected,
            summary: $summary,
            trials: $trials,
            sample: |ctx, rng| Ok(bounded_pair_alpha(ctx, rng, $lo, f64::INFINITY)),
            margin: |i, b| bounded_divergence_margin(i, b, $family, Eval::Core),
            high_precision: hp_margin!(|i, b, ev| bounded_divergence_margin(i, b, $family, ev)),
        }
    };
}

/// A data-processing statement for `family` with α sampled in `[lo, hi]`.
macro_rules! dpi_statement {
    ($name:expr, $source:expr, $expected:expr, $summary:expr, $trials:expr, $family:expr, $lo:expr, $hi:expr) => {
        Builtin {
            name: $name,
            source: $source,
            expected: $expected,
            summary: $summary,
            trials: $trials,
            sample: |ctx, rng| Ok(dpi_instance(ctx, rng, $lo, $hi)),
            margin: |i, b| dpi_margin(i, b, $family, Eval::Core),
            high_precision: hp_margin!(|i, b, ev| dpi_margin(i, b, $family, ev)),
        }
    };
}

pub(crate) fn all() -> Vec<Builtin> {
    vec![
        bounded_statement!("bounded-divergence", "seed 000, Theorem 22 (maximal family)", Expected::Theorem, "D_max(ρ‖σ), D_max(σ‖ρ) ≤ ε ⇒ D̂_α(ρ‖σ) ≤ ½ε²α for all α > 1", 30000, Family::Maximal, 1.0),
        bounded_statement!("bounded-divergence-sandwiched", "seed 000, Theorem 22 with D̃_α ≤ D̂_α (seed 000, eq. 4.4)", Expected::Theorem, "D_max(ρ‖σ), D_max(σ‖ρ) ≤ ε ⇒ D̃_α(ρ‖σ) ≤ ½ε²α for all α > 1", 22500, Family::Sandwiched, 1.0),
        Builtin {
            name: "bounded-divergence-sinh",
            source: "seed 000, proof of Theorem 22 (eq. A.84)",
            expected: Expected::Theorem,
            summary: "D_max both ways ≤ ε ⇒ D̂_α ≤ (1/(α−1)) ln[(sinh αε − sinh(α−1)ε)/sinh ε]",
            trials: 30000,
            sample: |ctx, rng| Ok(bounded_pair_alpha(ctx, rng, 1.0, f64::INFINITY)),
            margin: |i, b| sinh_margin(i, b, Eval::Core),
            high_precision: hp_margin!(sinh_margin),
        },
        Builtin {
            name: "bounded-divergence-tight",
            source: "seed 000, proof of Theorem 22 (equality case of Jensen)",
            expected: Expected::Theorem,
            summary: "the two-point pair p = (Ae^ε, Be^{−ε}), q = (A, B) attains the sinh bound (both implementations)",
            trials: 7500,
            sample: |ctx, rng| {
                let d = ctx.dim(rng);
                let u = Channel::new(vec![haar_unitary(d, rng)])?;
                Ok(Instance::new()
                    .with("unitary", Item::channel(&u))
                    .with(
                        "epsilon",
                        Item::scalar(
                            sample::epsilon(rng),
                            1e-3,
                            3.0,
                            super::Scale::Log { offset: 0.0 },
                        ),
                    )
                    .with("alpha", sample::alpha(1.0, 1e3, rng))
                    .tagged("two-point"))
            },
            margin: |i, b| tight_margin(i, b, Eval::Core),
            high_precision: hp_margin!(tight_margin),
        },
        Builtin {
            name: "monotonicity-in-alpha",
            source: "Müller-Lennert et al. 2013; Tomamichel 2015, Ch. 4 (seed 000, Theorem 6 classically)",
            expected: Expected::Theorem,
            summary: "α ↦ D_α(ρ‖σ) is nondecreasing: Petz and maximal on (0, ∞), sandwiched on [½, ∞)",
            trials: 22500,
            sample: |ctx, rng| {
                let ratio = sample::alpha(1.0, 1e2, rng);
                Ok(pair_alpha(ctx, rng, 0.0, 1e2).with("ratio", ratio))
            },
            margin: |i, b| monotonicity_margin(i, b, Eval::Core),
            high_precision: hp_margin!(monotonicity_margin),
        },
        Builtin {
            name: "renyi-family-order",
            source: "Araki–Lieb–Thirring; Matsumoto 2018; Tomamichel 2015, Ch. 4",
            expected: Expected::Theorem,
            summary: "D̃_α ≤ D̄_α ≤ D̂_α for α ∈ (1, 2]",
            trials: 30000,
            sample: |ctx, rng| Ok(pair_alpha(ctx, rng, 1.0, 2.0)),
            margin: |i, b| order_margin(i, b, Eval::Core),
            high_precision: hp_margin!(order_margin),
        },
        Builtin {
            name: "petz-below-sandwiched",
            source: "false: Araki–Lieb–Thirring gives the reverse, strict for non-commuting pairs",
            expected: Expected::False,
            summary: "D̄_α(ρ‖σ) ≤ D̃_α(ρ‖σ)",
            trials: 7500,
            sample: |ctx, rng| Ok(pair_alpha(ctx, rng, 1.0, 1e2)),
            margin: |i, b| petz_below_sandwiched_margin(i, b, Eval::Core),
            high_precision: hp_margin!(petz_below_sandwiched_margin),
        },
        dpi_statement!("data-processing-petz", "Petz 1986; Tomamichel 2015, Ch. 4", Expected::Theorem, "D̄_α(Φ(ρ)‖Φ(σ)) ≤ D̄_α(ρ‖σ) for channels Φ, α ∈ [0, 2]", 22500, Family::Petz, 0.0, 2.0),
        dpi_statement!("data-processing-sandwiched", "Frank–Lieb 2013; Beigi 2013", Expected::Theorem, "D̃_α(Φ(ρ)‖Φ(σ)) ≤ D̃_α(ρ‖σ) for channels Φ, α ≥ ½", 22500, Family::Sandwiched, 0.5, 1e3),
        dpi_statement!("data-processing-maximal", "Matsumoto 2018; Tomamichel 2015, Ch. 4", Expected::Theorem, "D̂_α(Φ(ρ)‖Φ(σ)) ≤ D̂_α(ρ‖σ) for channels Φ, α ∈ (0, 2]", 22500, Family::Maximal, 0.0, 2.0),
        dpi_statement!("data-processing-petz-above-2", "false: Petz data processing needs α ≤ 2 (operator convexity of t^α fails)", Expected::False, "D̄_α(Φ(ρ)‖Φ(σ)) ≤ D̄_α(ρ‖σ) for α > 2", 22500, Family::Petz, 2.0, 1e2),
        dpi_statement!("data-processing-sandwiched-below-half", "false: sandwiched data processing needs α ≥ ½ (Berta–Fawzi–Tomamichel 2017)", Expected::False, "D̃_α(Φ(ρ)‖Φ(σ)) ≤ D̃_α(ρ‖σ) for α ∈ (0, ½)", 22500, Family::Sandwiched, 0.0, 0.5),
        Builtin {
            name: "additivity",
            source: "additivity under ⊗ (seed 000, Theorem 9 classically)",
            expected: Expected::Theorem,
            summary: "D_α(ρ₁⊗ρ₂‖σ₁⊗σ₂) = D_α(ρ₁‖σ₁) + D_α(ρ₂‖σ₂) for all three families",
            trials: 9000,
            sample: |ctx, rng| {
                let small = SampleContext {
                    max_dim: ctx.max_dim.min(3),
                };
                let a = pair_alpha(&small, rng, 0.0, 1e2);
                let b = pair_alpha(&small, rng, 0.0, 1e2);
                let mut inst = Instance::new();
                for (x, k) in [(&a, "1"), (&b, "2")] {
                    for (name, item) in x.items().iter().filter(|(n, _)| n != "alpha") {
                        inst = inst.with(&format!("{name}{k}"), item.clone());
                    }
                    for t in x.tags() {
                        inst = inst.tagged(t.clone());
                    }
                }
                let alpha = a.items().iter().find(|(n, _)| n == "alpha").map(|x| x.1.clone());
                Ok(match alpha {
                    Some(al) => inst.with("alpha", al),
                    None => inst.with("alpha", sample::alpha(0.0, 1e2, rng)),
                })
            },
            margin: |i, b| additivity_margin(i, b, Eval::Core),
            high_precision: hp_margin!(additivity_margin),
        },
        bounded_statement!("bounded-divergence-petz", "open (the Petz analogue of seed 000, Theorem 22, beyond α = 2)", Expected::Open, "D_max(ρ‖σ), D_max(σ‖ρ) ≤ ε ⇒ D̄_α(ρ‖σ) ≤ ½ε²α for α > 2", 30000, Family::Petz, 2.0),
    ]
}
