//! Privacy statements: the RDP → (ε, δ) conversion (seed 001, Theorem 1.3) classically and for
//! qzCDP, the δ/ε trade-off (seed 000, Theorem 21, corrected — and as printed, which is false),
//! and the links between pure DP, tCDP, zCDP and mCDP (seed 000, Theorems 13, 14, 16).
//!
//! The bounds come from the crate's `privacy` module in `f64` (the code under test) and from
//! [`super::bounds`] in the 256-bit re-evaluation (the independent check), through [`Real`].

use super::bounds::{bounded_divergence_bound, tradeoff_bound_as_printed};
use super::builtin_classical::{
    alphabet, classical_fns, delta_fraction, delta_of, eps_both, f64_margin, finite_eps,
    pair_alpha_instance, pair_instance, Gap,
};
use super::builtin_quantum::{pair_alpha, states};
use super::instance::{Item, Scale};
use super::real::{Hp, Real};
use super::sample::{self, SampleContext};
use super::{rounding, Builtin, Expected, Instance, Margin};
use crate::divergence::{Family, Pair};
use crate::error::Result;
use crate::spectral::Backend;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

fn rdp_to_dp<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q) = (inst.distribution("p")?, inst.distribution("q")?);
    let alpha = inst.scalar("alpha")?;
    let eps = R::lit(inst.scalar("epsilon")?);
    let tau = R::renyi(p, q, alpha)?;
    let delta = R::rdp_delta(alpha, tau, eps.clone())?;
    Ok(Gap::le(R::hockey_stick(p, q, &eps.exp())?, delta))
}

fn epsilon_item<G: Rng + ?Sized>(rng: &mut G) -> Item {
    Item::scalar(rng.random_range(0.0..4.0), 0.0, 10.0, Scale::Linear)
}

/// Corrected Theorem 21 (`privacy::conversion::tradeoff_theorem21`; in 256 bits
/// [`super::bounds::tradeoff_bound`]).
fn tradeoff<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    tradeoff_with(inst, R::tradeoff)
}

/// Theorem 21 as printed ([`tradeoff_bound_as_printed`]; false).
fn tradeoff_printed<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    tradeoff_with(inst, |e, d| Ok(tradeoff_bound_as_printed(e, d)))
}

fn tradeoff_with<R: Real>(inst: &Instance, bound: fn(R, f64) -> Result<R>) -> Result<Gap<R>> {
    let (p, q) = (inst.distribution("p")?, inst.distribution("q")?);
    let (Some(delta), Some(eps)) = (delta_of(inst, p, q)?, finite_eps::<R>(p, q)?) else {
        return Ok(Gap::vacuous());
    };
    Ok(Gap::le(
        R::approx_max_divergence(p, q, delta)?,
        bound(eps, delta)?,
    ))
}

/// Theorem 13: ε-DP (both ways) ⇒ `D_α ≤ min(ε, ½ε²α)` for α ≥ 1, i.e. (ε, ε²/2)-tCDP.
fn tcdp_from_pure_dp<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q) = (inst.distribution("p")?, inst.distribution("q")?);
    let alpha = inst.scalar("alpha")?;
    let Some(eps) = finite_eps::<R>(p, q)? else {
        return Ok(Gap::vacuous());
    };
    let (m, z) = R::tcdp_of_pure(eps)?;
    Ok(Gap::le(R::renyi(p, q, alpha)?, m.min(z * R::lit(alpha))))
}

/// Theorem 14 (corrected second half): with `(M, Z) = (ε, ε²/2)` (valid tCDP parameters by
/// Theorem 13), `D_α ≤ 0 + Zα` (tCDP ⇒ (0, Z)-zCDP); with `ξ = D_∞(p‖q)`, `ρ = (1−u)ε²/2`
/// (valid zCDP parameters: `D_α ≤ D_∞ ≤ ξ + ρα`), `D_α ≤ α(ξ + ρ)` (zCDP ⇒ (∞, ξ+ρ)-tCDP).
fn tcdp_zcdp_links<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q) = (inst.distribution("p")?, inst.distribution("q")?);
    let (alpha, u) = (inst.scalar("alpha")?, inst.scalar("u")?);
    let Some(eps) = finite_eps::<R>(p, q)? else {
        return Ok(Gap::vacuous());
    };
    let d = R::renyi(p, q, alpha)?;
    let (_, z) = R::tcdp_of_pure(eps)?;
    let to_zcdp = Gap::le(d.clone(), z.clone() * R::lit(alpha));
    let xi = R::max_divergence(p, q)?;
    let slope = R::zcdp_to_tcdp_slope(xi, R::lit(1.0 - u) * z)?;
    Ok(to_zcdp.and(Gap::le(d, R::lit(alpha) * slope)))
}

/// Theorem 14 as printed: (ξ, ρ)-zCDP ⇒ (+∞, ρ)-tCDP, i.e. `D_α ≤ ρα` (false when ξ > 0).
fn zcdp_to_tcdp_printed<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q) = (inst.distribution("p")?, inst.distribution("q")?);
    let (alpha, u) = (inst.scalar("alpha")?, inst.scalar("u")?);
    let eps: R = eps_both(p, q)?;
    let rho = bounded_divergence_bound(eps, 1.0 - u);
    Ok(Gap::le(R::renyi(p, q, alpha)?, R::lit(alpha) * rho))
}

/// Theorem 16 / Lemma 15: (M, Z)-tCDP ⇒ (min(M,Z), M + min(M,Z)/2)-mCDP: `E[L] ≤ min(M, Z)` and
/// `ln E e^{λ(L − E L)} ≤ λ²τ²/2`, with `M = ε` (both ways), `Z = max_α D_α/α` over a grid
/// containing α = 1, `L = ln(p/q)` under `p`.
fn tcdp_to_mcdp<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q) = (inst.distribution("p")?, inst.distribution("q")?);
    let lambda = inst.scalar("lambda")?;
    let Some(m) = finite_eps::<R>(p, q)? else {
        return Ok(Gap::vacuous());
    };
    let mut z = R::renyi(p, q, 1.0)?;
    for k in 1..=40 {
        let a = 10f64.powf(3.0 * k as f64 / 40.0);
        z = z.max(R::renyi(p, q, a)? / R::lit(a));
    }
    let kl = R::renyi(p, q, 1.0)?;
    let (mu, tau) = R::tcdp_to_mcdp(m, z)?;
    let mean = Gap::le(kl.clone(), mu);
    // ln Σ p_i e^{λ(L_i − KL)} by log-sum-exp
    let lam = R::lit(lambda);
    let terms: Vec<R> = p
        .iter()
        .zip(q)
        .filter(|(a, _)| **a > 0.0)
        .map(|(&a, &b)| {
            let l = R::lit(a).ln() - R::lit(b).ln();
            R::lit(a).ln() + lam.clone() * (l - kl.clone())
        })
        .collect();
    let top = terms
        .iter()
        .cloned()
        .fold(R::lit(f64::NEG_INFINITY), |x, y| x.max(y));
    let s = terms
        .into_iter()
        .fold(R::lit(0.0), |acc, t| acc + (t - top.clone()).exp());
    let mgf = top + s.ln();
    let sub = Gap::le(mgf, lam.clone() * lam * tau.clone() * tau / R::lit(2.0));
    Ok(mean.and(sub))
}

/// qzCDP ⇒ quantum (ε, δ): for every α > 1,
/// `Tr(ρ − e^ε σ)_+ ≤ δ(α, D̂_α(ρ‖σ), ε)` (seed 001, Theorem 1.3 applied to the classical pair
/// `(w_k t_k, w_k)` whose preparation channel maps to `(ρ, σ)`; hockey-stick data processing).
fn qzcdp_margin(inst: &Instance, b: Backend) -> Result<Margin> {
    let (rho, sigma) = states(inst, b)?;
    let alpha = inst.scalar("alpha")?;
    let eps = inst.scalar("epsilon")?;
    let pair = Pair::new(&rho, &sigma)?;
    let tau = pair.renyi(Family::Maximal, alpha)?;
    let delta = <f64 as Real>::rdp_delta(alpha, tau, eps)?;
    let hs = pair.hockey_stick(eps.exp())?;
    let err = rounding(&[&rho, &sigma], &[tau, hs]) * (1.0 + alpha) * (1.0 + delta.min(1e300));
    Ok(Margin::le(hs, delta, err))
}

/// Pair plus `u ∈ [0, 1]` and α.
fn pair_alpha_u(ctx: &SampleContext, rng: &mut ChaCha8Rng) -> Instance {
    let u = Item::scalar(rng.random(), 0.0, 1.0, Scale::Linear);
    pair_alpha_instance(ctx, rng).with("u", u)
}

pub(crate) fn all() -> Vec<Builtin> {
    let (rdp_m, rdp_h) = classical_fns!(rdp_to_dp, ["p", "q"]);
    let (to_m, to_h) = classical_fns!(tradeoff, ["p", "q"]);
    let (tp_m, tp_h) = classical_fns!(tradeoff_printed, ["p", "q"]);
    let (t13_m, t13_h) = classical_fns!(tcdp_from_pure_dp, ["p", "q"]);
    let (t14_m, t14_h) = classical_fns!(tcdp_zcdp_links, ["p", "q"]);
    let (t14p_m, t14p_h) = classical_fns!(zcdp_to_tcdp_printed, ["p", "q"]);
    let (t16_m, t16_h) = classical_fns!(tcdp_to_mcdp, ["p", "q"]);
    let tradeoff_sample = |ctx: &SampleContext, rng: &mut ChaCha8Rng| {
        let u = delta_fraction(rng);
        Ok(pair_instance(ctx, rng).with("u", u))
    };
    vec![
        Builtin {
            name: "rdp-to-dp",
            source: "seed 001, Theorem 1.3 (soundness of the RDP → (ε,δ) conversion)",
            expected: Expected::Theorem,
            summary: "D_α(p‖q) ≤ τ ⇒ Σ(p − e^ε q)_+ ≤ e^{(α−1)(τ−ε)}(1−1/α)^α/(α−1)",
            trials: 60000,
            sample: |ctx, rng| {
                let e = epsilon_item(rng);
                Ok(pair_alpha_instance(ctx, rng).with("epsilon", e))
            },
            margin: rdp_m,
            high_precision: rdp_h,
        },
        Builtin {
            name: "qzcdp-to-dp",
            source: "seed 000, Definition 21 with seed 001, Theorem 1.3",
            expected: Expected::Theorem,
            summary: "D̂_α(ρ‖σ) ≤ τ ⇒ Tr(ρ − e^ε σ)_+ ≤ e^{(α−1)(τ−ε)}(1−1/α)^α/(α−1)",
            trials: 22500,
            sample: |ctx, rng| {
                let e = epsilon_item(rng);
                Ok(pair_alpha(ctx, rng, 1.0, f64::INFINITY).with("epsilon", e))
            },
            margin: qzcdp_margin,
            high_precision: None,
        },
        Builtin {
            name: "delta-epsilon-tradeoff",
            source: "seed 000, Theorem 21 (corrected optimum α − 1 = √(2 ln(1/δ))/ε)",
            expected: Expected::Theorem,
            summary: "D_∞ both ways ≤ ε, 0 < δ ≤ Δ ⇒ D_∞^δ(p‖q) ≤ ½ε² + ε√(2 ln(1/δ))",
            trials: 60000,
            sample: tradeoff_sample,
            margin: to_m,
            high_precision: to_h,
        },
        Builtin {
            name: "delta-epsilon-tradeoff-as-printed",
            source: "seed 000, Theorem 21 as printed (eq. 3.8; slip in eq. A.71)",
            expected: Expected::False,
            summary: "D_∞ both ways ≤ ε, 0 < δ ≤ Δ ⇒ D_∞^δ(p‖q) ≤ ½ε²(1 + ε/√(2 ln(1/δ)))",
            trials: 20000,
            sample: tradeoff_sample,
            margin: tp_m,
            high_precision: tp_h,
        },
        Builtin {
            name: "tcdp-from-pure-dp",
            source: "seed 000, Theorem 13",
            expected: Expected::Theorem,
            summary: "ε-DP both ways ⇒ (ε, ε²/2)-tCDP: D_α ≤ min(ε, ½ε²α) for α ≥ 1",
            trials: 40000,
            sample: |ctx, rng| Ok(pair_alpha_instance(ctx, rng)),
            margin: t13_m,
            high_precision: t13_h,
        },
        Builtin {
            name: "tcdp-zcdp-links",
            source: "seed 000, Theorem 14 (second half corrected to (+∞, ξ+ρ)-tCDP)",
            expected: Expected::Theorem,
            summary: "(M,Z)-tCDP ⇒ (0,Z)-zCDP; (ξ,ρ)-zCDP ⇒ (+∞, ξ+ρ)-tCDP",
            trials: 40000,
            sample: |ctx, rng| Ok(pair_alpha_u(ctx, rng)),
            margin: t14_m,
            high_precision: t14_h,
        },
        Builtin {
            name: "zcdp-to-tcdp-as-printed",
            source: "seed 000, Theorem 14 as printed",
            expected: Expected::False,
            summary: "(ξ,ρ)-zCDP ⇒ (+∞, ρ)-tCDP, i.e. D_α ≤ ρα",
            trials: 10000,
            sample: |ctx, rng| Ok(pair_alpha_u(ctx, rng)),
            margin: t14p_m,
            high_precision: t14p_h,
        },
        Builtin {
            name: "tcdp-to-mcdp",
            source: "seed 000, Theorem 16 and Lemma 15",
            expected: Expected::Theorem,
            summary: "(M,Z)-tCDP ⇒ (min(M,Z), M + min(M,Z)/2)-mCDP",
            trials: 30000,
            sample: |ctx, rng| {
                let n = alphabet(ctx, rng);
                let (p, q, how) = sample::distribution_pair(n, rng);
                let mag = (rng.random_range(-2.0f64..2.5) * std::f64::consts::LN_10).exp();
                let lam = if rng.random_bool(0.5) { mag } else { -mag };
                Ok(Instance::new()
                    .with("p", Item::Distribution(p))
                    .with("q", Item::Distribution(q))
                    .with("lambda", Item::scalar(lam, -1e3, 1e3, Scale::Linear))
                    .tagged(how))
            },
            margin: t16_m,
            high_precision: t16_h,
        },
    ]
}
