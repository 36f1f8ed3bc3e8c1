//! Smooth-divergence statements (docs/smooth.md, docs/lemmas.md): seed 000 Theorem 23
//! (`smoothing-bound`), the links between `D_H^ε`, `D_max^ε` and the Rényi families, the
//! (ε,δ)-DP ⇔ trace-ball `D_max` equivalence, and the quantum analogues of seed 000 Lemma 19 and
//! Theorem 20 (open). Each margin uses the *certified* end of the bracket that can make it fail,
//! so a confirmed violation is a violation of the exact quantity. Every instance is a few small
//! conic programs: trials are kept small.

use super::instance::Item;
use super::sample::SampleContext;
use super::Scale;
use super::{Builtin, Expected, Instance, Margin};
use crate::divergence::{Family, Pair};
use crate::error::Result;
use crate::smooth::{self, Ball};
use crate::spectral::Backend;
use crate::state::DensityMatrix;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A full-rank state: Bures or Hilbert–Schmidt, mixed with `w·I/d`, `w` log-uniform in
/// `[10⁻³, 0.5]` (keeps `D_max` finite and the programs certifiable).
fn full_rank_state(d: usize, rng: &mut ChaCha8Rng) -> Result<DensityMatrix> {
    let base = if rng.random_bool(0.5) {
        DensityMatrix::random_bures(d, rng)?
    } else {
        DensityMatrix::random_hilbert_schmidt(d, d, rng)?
    };
    let w = (rng.random_range((1e-3f64).ln()..(0.5f64).ln())).exp();
    DensityMatrix::mixture(&[1.0 - w, w], &[base, DensityMatrix::maximally_mixed(d)?])
}

/// `(ρ, σ, ε, α)` with `d ∈ {2, 3}` (`dims` caps it), ε log-uniform in `[10⁻², 0.5]`, α in `[lo, hi]`.
fn pair_eps_alpha(ctx: &SampleContext, rng: &mut ChaCha8Rng, lo: f64, hi: f64) -> Result<Instance> {
    let d = ctx.dim(rng).min(3);
    let rho = full_rank_state(d, rng)?;
    let sigma = full_rank_state(d, rng)?;
    let eps = (rng.random_range((1e-2f64).ln()..(0.5f64).ln())).exp();
    let alpha = lo + (hi - lo) * rng.random::<f64>().powi(2);
    Ok(Instance::new()
        .with("rho", Item::state_from_matrix(&rho)?)
        .with("sigma", Item::state_from_matrix(&sigma)?)
        .with(
            "epsilon",
            Item::scalar(eps, 1e-3, 0.9, Scale::Log { offset: 0.0 }),
        )
        .with("alpha", Item::scalar(alpha, lo, hi, Scale::Linear))
        .tagged("full-rank"))
}

fn read(inst: &Instance, b: Backend) -> Result<(DensityMatrix, DensityMatrix, f64, f64)> {
    Ok((
        inst.state("rho", b)?,
        inst.state("sigma", b)?,
        inst.scalar("epsilon")?,
        inst.scalar("alpha")?,
    ))
}

/// Rounding allowance of a Rényi value used on the right-hand side.
fn rhs_error(v: f64) -> f64 {
    1e-9 * v.abs().max(1.0)
}

/// Seed 000 Theorem 23 (Tomamichel 2015, Prop. 6.5) for the family in `family` (0 sandwiched,
/// 1 Petz, 2 maximal): `D_max^ε(ρ‖σ) ≤ D'_α(ρ‖σ) + g(ε)/(α−1)`, `g(ε) = −ln(1 − √(1 − ε²))`.
fn smoothing_bound_margin(inst: &Instance, b: Backend) -> Result<Margin> {
    let (rho, sigma, eps, alpha) = read(inst, b)?;
    let family = [Family::Sandwiched, Family::Petz, Family::Maximal]
        [(inst.scalar("family")?.round() as usize).min(2)];
    let d_alpha = Pair::new(&rho, &sigma)?.renyi(family, alpha)?;
    let g = -(1.0 - (1.0 - eps * eps).sqrt()).ln();
    let rhs = d_alpha + g / (alpha - 1.0);
    let dm = smooth::max_divergence(&rho, &sigma, eps, Ball::Purified)?;
    Ok(Margin::new(rhs - dm.lower, rhs_error(rhs)))
}

/// `D_H^ε(ρ‖σ) ≤ D̃_α(ρ‖σ) + α/(α−1)·ln(1/(1−ε))`, α > 1.
fn dh_sandwiched_margin(inst: &Instance, b: Backend) -> Result<Margin> {
    let (rho, sigma, eps, alpha) = read(inst, b)?;
    let rhs = Pair::new(&rho, &sigma)?.renyi(Family::Sandwiched, alpha)?
        + alpha / (alpha - 1.0) * (-(1.0 - eps).ln());
    let dh = smooth::hypothesis_testing(&rho, &sigma, eps)?;
    Ok(Margin::new(rhs - dh.lower, rhs_error(rhs)))
}

/// `D_H^ε(ρ‖σ) ≥ D̄_α(ρ‖σ) − α/(1−α)·ln(1/ε)`, α ∈ (0, 1).
fn dh_petz_converse_margin(inst: &Instance, b: Backend) -> Result<Margin> {
    let (rho, sigma, eps, alpha) = read(inst, b)?;
    let rhs =
        Pair::new(&rho, &sigma)?.renyi(Family::Petz, alpha)? - alpha / (1.0 - alpha) * (-eps.ln());
    let dh = smooth::hypothesis_testing(&rho, &sigma, eps)?;
    Ok(Margin::new(dh.upper - rhs, rhs_error(rhs)))
}

/// `D_H^ε(ρ‖σ) ≤ D_max^δ(ρ‖σ) + ln(1/(1−ε−δ))`, trace ball, `ε + δ < 1` (δ = α − 1 here, in (0, ½)).
fn dh_dmax_margin(inst: &Instance, b: Backend) -> Result<Margin> {
    let (rho, sigma, eps, alpha) = read(inst, b)?;
    let delta = alpha - 1.0;
    let dm = smooth::max_divergence(&rho, &sigma, delta, Ball::Trace)?;
    let dh = smooth::hypothesis_testing(&rho, &sigma, eps)?;
    let rhs = dm.upper - (1.0 - eps - delta).ln();
    Ok(Margin::new(rhs - dh.lower, rhs_error(rhs)))
}

/// `ln t_δ` with `t_δ = inf{t > 0 : E_t(ρ‖σ) ≤ δ}` (bisection on the core's hockey-stick).
fn hockey_root(rho: &DensityMatrix, sigma: &DensityMatrix, delta: f64) -> Result<f64> {
    let pair = Pair::new(rho, sigma)?;
    let (mut lo, mut hi) = (1e-12f64, 1.0f64);
    while pair.hockey_stick(hi)? > delta {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if pair.hockey_stick(mid)? > delta {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi / lo - 1.0 < 1e-15 {
            break;
        }
    }
    Ok(hi.ln())
}

/// `min(ln t_δ − lower, upper − ln t_δ)` for the trace ball `ball`: `≥ 0` iff the bracket of
/// `D_max^{δ}(ρ‖σ)` contains `ln t_δ`.
fn dp_margin(inst: &Instance, b: Backend, ball: Ball) -> Result<Margin> {
    let (rho, sigma, delta, _) = read(inst, b)?;
    let root = hockey_root(&rho, &sigma, delta)?;
    let dm = smooth::max_divergence(&rho, &sigma, delta, ball)?;
    let tol = 1e-9 * root.abs().max(1.0);
    Ok(Margin::new((root - dm.lower).min(dm.upper - root), tol))
}

/// Exact (ε,δ)-DP equivalence: `D_max^{δ}(ρ‖σ) = ln t_δ` over `{ρ̃ ⪰ 0 : Tr(ρ − ρ̃)_+ ≤ δ}`.
fn dp_equivalence_margin(inst: &Instance, b: Backend) -> Result<Margin> {
    dp_margin(inst, b, Ball::TraceUnbounded)
}

/// The same with `Tr ρ̃ ≤ 1` (false quantumly: the constraint can bind).
fn dp_subnormalised_margin(inst: &Instance, b: Backend) -> Result<Margin> {
    dp_margin(inst, b, Ball::Trace)
}

/// Quantum seed 000 Lemma 19 (trace ball): `D_max^δ(ρ‖σ) ≤ D̃_α(ρ‖σ) − ln δ/(α−1)` for
/// `0 < δ ≤ ½‖ρ − σ‖₁`, α > 1.
fn lemma19_margin(inst: &Instance, b: Backend) -> Result<Margin> {
    let (rho, sigma, eps, alpha) = read(inst, b)?;
    let td = Pair::new(&rho, &sigma)?.trace_distance()?;
    let delta = eps.min(td * 0.999);
    if delta <= 1e-6 {
        return Ok(Margin::new(f64::INFINITY, 0.0));
    }
    let rhs =
        Pair::new(&rho, &sigma)?.renyi(Family::Sandwiched, alpha)? - delta.ln() / (alpha - 1.0);
    let dm = smooth::max_divergence(&rho, &sigma, delta, Ball::Trace)?;
    Ok(Margin::new(rhs - dm.lower, rhs_error(rhs)))
}

/// Quantum seed 000 Theorem 20 with k = 2 (trace ball): if `D_max^δ ≤ ε` both ways for `(ρ, σ)`,
/// then `D_max^{2δ+δ'}(ρ⊗ρ‖σ⊗σ) ≤ ε² + 2√(ln(1/δ'))·ε` (`kε²/2 + √(2k ln(1/δ'))ε` at k = 2),
/// δ' = δ here.
fn theorem20_margin(inst: &Instance, b: Backend) -> Result<Margin> {
    let (rho, sigma, delta, _) = read(inst, b)?;
    let delta = delta.min(0.3);
    let e1 = smooth::max_divergence(&rho, &sigma, delta, Ball::Trace)?.upper;
    let e2 = smooth::max_divergence(&sigma, &rho, delta, Ball::Trace)?.upper;
    let eps = e1.max(e2).max(0.0);
    let (r2, s2) = (rho.tensor(&rho)?, sigma.tensor(&sigma)?);
    let total = 3.0 * delta;
    if total >= 1.0 {
        return Ok(Margin::new(f64::INFINITY, 0.0));
    }
    let rhs = eps * eps + 2.0 * (-delta.ln()).sqrt() * eps;
    let dm = smooth::max_divergence(&r2, &s2, total, Ball::Trace)?;
    Ok(Margin::new(rhs - dm.lower, rhs_error(rhs)))
}

pub(crate) fn all() -> Vec<Builtin> {
    vec![
        Builtin {
            name: "smoothing-bound",
            source: "seed 000, Theorem 23 (Tomamichel 2015, Prop. 6.5); Petz and maximal via D̃_α ≤ D̄_α, D̂_α",
            expected: Expected::Theorem,
            summary: "D_max^ε(ρ‖σ) ≤ D'_α(ρ‖σ) + g(ε)/(α−1), g(ε) = −ln(1−√(1−ε²)), purified ball, α > 1, D' ∈ {sandwiched, Petz, maximal}",
            trials: 60,
            sample: |ctx, rng| {
                let f = rng.random_range(0..3) as f64;
                Ok(pair_eps_alpha(ctx, rng, 1.0 + 1e-3, 20.0)?
                    .with("family", Item::scalar(f, f, f, Scale::Linear)))
            },
            margin: smoothing_bound_margin,
            high_precision: None,
        },
        Builtin {
            name: "hypothesis-testing-sandwiched",
            source: "Cooney–Mosonyi–Wilde 2016, Lemma 5; Tomamichel 2015, §7",
            expected: Expected::Theorem,
            summary: "D_H^ε(ρ‖σ) ≤ D̃_α(ρ‖σ) + α/(α−1)·ln(1/(1−ε)), α > 1",
            trials: 60,
            sample: |ctx, rng| pair_eps_alpha(ctx, rng, 1.0 + 1e-3, 20.0),
            margin: dh_sandwiched_margin,
            high_precision: None,
        },
        Builtin {
            name: "hypothesis-testing-petz-converse",
            source: "Audenaert et al. 2007 inequality; Qi–Wang–Wilde 2018, Lemma 5",
            expected: Expected::Theorem,
            summary: "D_H^ε(ρ‖σ) ≥ D̄_α(ρ‖σ) − α/(1−α)·ln(1/ε), α ∈ (0, 1)",
            trials: 60,
            sample: |ctx, rng| pair_eps_alpha(ctx, rng, 1e-2, 0.99),
            margin: dh_petz_converse_margin,
            high_precision: None,
        },
        Builtin {
            name: "hypothesis-testing-below-smooth-dmax",
            source: "docs/smooth.md (one line: Tr Qρ̃ ≥ 1−ε−δ and ρ̃ ⪯ e^{D}σ)",
            expected: Expected::Theorem,
            summary: "D_H^ε(ρ‖σ) ≤ D_max^δ(ρ‖σ) + ln(1/(1−ε−δ)), trace ball, ε + δ < 1",
            trials: 40,
            sample: |ctx, rng| pair_eps_alpha(ctx, rng, 1.0 + 1e-2, 1.4),
            margin: dh_dmax_margin,
            high_precision: None,
        },
        Builtin {
            name: "dp-smooth-dmax-equivalence",
            source: "docs/smooth.md (Sion's minimax theorem); quantum analogue of seed 000 Thm 3 item 1 / Def. 11",
            expected: Expected::Theorem,
            summary: "E_{e^ε}(ρ‖σ) ≤ δ ⇔ D_max^δ(ρ‖σ) ≤ ε over {ρ̃ ⪰ 0 : Tr(ρ−ρ̃)_+ ≤ δ}, i.e. D_max^δ = ln inf{t : E_t ≤ δ}",
            trials: 60,
            sample: |ctx, rng| pair_eps_alpha(ctx, rng, 2.0, 2.0),
            margin: dp_equivalence_margin,
            high_precision: None,
        },
        Builtin {
            name: "dp-trace-ball-exact",
            source: "false (found by this engine, docs/smooth.md): with Tr ρ̃ ≤ 1 only ⇐ of the DP equivalence holds",
            expected: Expected::False,
            summary: "D_max^{δ,trace}(ρ‖σ) over subnormalised ρ̃ equals ln inf{t : E_t(ρ‖σ) ≤ δ}",
            trials: 60,
            sample: |ctx, rng| pair_eps_alpha(ctx, rng, 2.0, 2.0),
            margin: dp_subnormalised_margin,
            high_precision: None,
        },
        Builtin {
            name: "smooth-lemma19-quantum",
            source: "seed 000, Lemma 19, quantum analogue (trace ball, sandwiched)",
            expected: Expected::Open,
            summary: "D_max^δ(ρ‖σ) ≤ D̃_α(ρ‖σ) − ln δ/(α−1) for 0 < δ ≤ ½‖ρ−σ‖₁, α > 1",
            trials: 40,
            sample: |ctx, rng| pair_eps_alpha(ctx, rng, 1.0 + 1e-3, 20.0),
            margin: lemma19_margin,
            high_precision: None,
        },
        Builtin {
            name: "smooth-theorem20-quantum",
            source: "seed 000, Theorem 20, quantum analogue (k = 2, trace ball, δ' = δ)",
            expected: Expected::Open,
            summary: "D_max^δ ≤ ε both ways ⇒ D_max^{3δ}(ρ⊗ρ‖σ⊗σ) ≤ ε² + 2ε√(ln(1/δ))",
            trials: 16,
            // 2 ⊗ 2 tensor products: qubit pairs whatever --max-dim says
            sample: |_ctx, rng| pair_eps_alpha(&SampleContext { max_dim: 2 }, rng, 2.0, 2.0),
            margin: theorem20_margin,
            high_precision: None,
        },
    ]
}
