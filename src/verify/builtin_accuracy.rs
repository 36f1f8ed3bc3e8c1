//! Accuracy statements: the `f64` core against its documented error bound
//! ([`crate::divergence::accuracy::error_bound`]) and the 256-bit evaluation
//! ([`super::real_quantum`]), and `D(ρ‖ρ) = 0`.

use super::instance::{Item, Scale};
use super::real_quantum::HpPair;
use super::sample::{self, SampleContext};
use super::{Builtin, Expected, Instance, Margin};
use crate::divergence::{accuracy, Family, Pair};
use crate::error::Result;
use crate::spectral::Backend;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Largest dimension drawn (the 256-bit Jacobi costs `O(d³)` big-float operations per solve).
const ACCURACY_MAX_DIM: usize = 6;

/// An order for the accuracy statements: log-uniform in `[10⁻³, 10⁶]`, with the limits 1 and ∞
/// and orders next to 1 (`1 ± 10^{−U(2,8)}`) one time in ten each.
fn order(rng: &mut ChaCha8Rng) -> Item {
    let x = match rng.random_range(0..10) {
        0 => 1.0,
        1 => f64::INFINITY,
        2 => {
            1.0 + (if rng.random_bool(0.5) { 1.0 } else { -1.0 })
                * 10f64.powf(-rng.random_range(2.0..8.0))
        }
        _ => 10f64.powf(rng.random_range(-3.0..6.0)),
    };
    Item::scalar(x, 1e-3, f64::INFINITY, Scale::Log { offset: 0.0 })
}

fn accuracy_sample(ctx: &SampleContext, rng: &mut ChaCha8Rng) -> Result<Instance> {
    let d = ctx.dim(rng).min(ACCURACY_MAX_DIM);
    let (rho, sigma, how) = sample::ill_conditioned_pair(d, rng);
    Ok(Instance::new()
        .with("rho", rho)
        .with("sigma", sigma)
        .with("alpha", order(rng))
        .tagged(how))
}

/// `−|D_f64 − D_256|` against the documented bound, for every family at the instance's α
/// (and the Umegaki relative entropy).
fn accuracy_margin(inst: &Instance, b: Backend) -> Result<Margin> {
    let (rho, sigma) = (inst.state("rho", b)?, inst.state("sigma", b)?);
    let alpha = inst.scalar("alpha")?;
    let pair = Pair::new(&rho, &sigma)?;
    let hp = HpPair::new(&rho, &sigma)?;
    let mut m = Margin::new(f64::INFINITY, 0.0);
    for (f, a) in Family::ALL
        .iter()
        .map(|&f| (f, alpha))
        .chain([(Family::Sandwiched, 1.0)])
    {
        let (x, y) = (pair.renyi(f, a)?, hp.renyi(f, a)?);
        m = m.and(Margin::eq(x, y, accuracy::error_bound(&pair, f, a, x)?));
    }
    Ok(m)
}

fn identical_sample(ctx: &SampleContext, rng: &mut ChaCha8Rng) -> Result<Instance> {
    let d = ctx.dim(rng);
    let (rho, how) = if rng.random_bool(0.5) {
        let (r, _, how) = sample::ill_conditioned_pair(d, rng);
        (r, how)
    } else {
        let e = sample::StateEnsemble::random(rng);
        (sample::state(d, e, rng), e.name().to_string())
    };
    Ok(Instance::new()
        .with("rho", rho)
        .with("alpha", order(rng))
        .tagged(how))
}

/// `−max_f |D_f(ρ‖ρ)|` against the documented bound (at `D = 0`).
fn identical_margin(inst: &Instance, b: Backend) -> Result<Margin> {
    let rho = inst.state("rho", b)?;
    let alpha = inst.scalar("alpha")?;
    let pair = Pair::new(&rho, &rho)?;
    let mut m = Margin::new(f64::INFINITY, 0.0);
    for (f, a) in Family::ALL
        .iter()
        .map(|&f| (f, alpha))
        .chain([(Family::Sandwiched, 1.0), (Family::Maximal, 1.0)])
    {
        let x = pair.renyi(f, a)?;
        m = m.and(Margin::eq(x, 0.0, accuracy::error_bound(&pair, f, a, 0.0)?));
    }
    Ok(m)
}

pub(crate) fn all() -> Vec<Builtin> {
    vec![
        Builtin {
            name: "backend-accuracy",
            source: "docs/conventions.md, \"Error bounds\" (issue 10)",
            expected: Expected::Theorem,
            summary: "|D_f64 − D_256-bit| ≤ documented bound, all families, α ∈ [1e-3, 1e6] ∪ {1, ∞}, κ ≤ 1e12 and nearly equal pairs",
            trials: 600,
            sample: accuracy_sample,
            margin: accuracy_margin,
            high_precision: None,
        },
        Builtin {
            name: "identical-states",
            source: "D_α(ρ‖ρ) = 0 (definitions)",
            expected: Expected::Theorem,
            summary: "D_α(ρ‖ρ) = 0 within the documented bound, all families and α ∈ [1e-3, 1e6] ∪ {1, ∞}",
            trials: 3000,
            sample: identical_sample,
            margin: identical_margin,
            high_precision: None,
        },
    ]
}
