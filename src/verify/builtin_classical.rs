//! Classical statements (seeds 000, 001, 003): probability vectors on a finite alphabet.
//!
//! Each margin is written once, generically over [`Real`]: in `f64` it goes through the core's
//! classical divergences, in [`Hp`] through the independent 256-bit formulas of [`super::real`];
//! the latter is the high-precision confirmation of a counterexample.

use super::bounds::{bounded_divergence_bound, kl_bound};
use super::instance::{Item, Scale};
use super::real::{Hp, Real};
use super::sample::{self, SampleContext};
use super::{le_gap, Builtin, Expected, Instance, Margin};
use crate::error::Result;
use crate::spectral::{Backend, EPS};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// A generic margin: its value and the magnitude of the quantities it was computed from.
pub(crate) struct Gap<R> {
    pub value: R,
    pub scale: f64,
}

impl<R: Real> Gap<R> {
    /// `lhs ≤ rhs` (infinity rules of [`Margin::le`]).
    pub fn le(lhs: R, rhs: R) -> Self {
        let (l, r) = (lhs.to_f64(), rhs.to_f64());
        let value = match le_gap(l, r) {
            g if g.is_finite() => rhs - lhs,
            g => R::lit(g),
        };
        Gap {
            value,
            scale: finite_abs(l) + finite_abs(r),
        }
    }
    /// `a = b`: `−|a − b|` (equal infinities: 0).
    pub fn eq(a: R, b: R) -> Self {
        let (x, y) = (a.to_f64(), b.to_f64());
        let scale = finite_abs(x) + finite_abs(y);
        if x == y && x.is_infinite() {
            return Gap {
                value: R::lit(0.0),
                scale,
            };
        }
        if x.is_infinite() || y.is_infinite() {
            return Gap {
                value: R::lit(f64::NEG_INFINITY),
                scale,
            };
        }
        let d = a - b;
        let value = if d < R::lit(0.0) { d } else { -d };
        Gap { value, scale }
    }
    /// A statement whose hypothesis fails or is vacuous on this instance (margin `+∞`).
    pub fn vacuous() -> Self {
        Gap::le(R::lit(0.0), R::lit(f64::INFINITY))
    }
    /// Conjunction: the smaller value, the larger scale.
    pub fn and(self, other: Self) -> Self {
        let scale = self.scale.max(other.scale);
        let value = if other.value < self.value {
            other.value
        } else {
            self.value
        };
        Gap { value, scale }
    }
}

fn finite_abs(x: f64) -> f64 {
    if x.is_finite() {
        x.abs()
    } else {
        0.0
    }
}

/// Rounding estimate of a classical margin: `64 · n · ε_mach · (1 + scale + max |ln(p_i/q_i)|)`.
pub(crate) fn classical_error(n: usize, scale: f64, log_ratio: f64) -> f64 {
    64.0 * n as f64 * EPS * (1.0 + scale + log_ratio)
}

/// Largest finite `|ln p_i − ln q_i|` over common support.
pub(crate) fn log_ratio_span(p: &[f64], q: &[f64]) -> f64 {
    p.iter()
        .zip(q)
        .filter(|(a, b)| **a > 0.0 && **b > 0.0)
        .map(|(a, b)| (a.ln() - b.ln()).abs())
        .fold(0.0, f64::max)
}

/// Wrap a generic margin into the `f64` margin function (with its error estimate).
pub(crate) fn f64_margin(
    inst: &Instance,
    f: fn(&Instance) -> Result<Gap<f64>>,
    names: &[&str],
) -> Result<Margin> {
    let g = f(inst)?;
    let mut n = 1;
    let mut span: f64 = 0.0;
    for a in names {
        let p = inst.distribution(a)?;
        n = n.max(p.len());
        for b in names {
            span = span.max(log_ratio_span(p, inst.distribution(b)?));
        }
    }
    // orders, k, λ … multiply the log-ratios (α·ξ, λ(L − KL)): their rounding scales with them
    let amplification: f64 = 1.0
        + inst
            .items()
            .iter()
            .filter_map(|(_, it)| match it {
                Item::Scalar { value, .. } if value.is_finite() => Some(value.abs()),
                _ => None,
            })
            .sum::<f64>();
    Ok(Margin::new(
        g.value,
        classical_error(n, g.scale, span) * amplification,
    ))
}

/// Both evaluations of a generic classical margin, as the function pointers of a [`Builtin`].
macro_rules! classical_fns {
    ($f:ident, [$($name:literal),*]) => {
        (
            |inst: &Instance, _b: Backend| f64_margin(inst, $f::<f64>, &[$($name),*]),
            Some((|inst: &Instance| $f::<Hp>(inst).map(|g| g.value.to_f64())) as fn(&Instance) -> Result<f64>),
        )
    };
}
pub(crate) use classical_fns;

/// Alphabet size: `2..=2·max_dim` (classical margins are cheap).
pub(crate) fn alphabet<R: Rng + ?Sized>(ctx: &SampleContext, rng: &mut R) -> usize {
    SampleContext {
        max_dim: 2 * ctx.max_dim,
    }
    .dim(rng)
}

/// `(p, q)` from [`sample::distribution_pair`].
pub(crate) fn pair_instance(ctx: &SampleContext, rng: &mut ChaCha8Rng) -> Instance {
    let n = alphabet(ctx, rng);
    let (p, q, how) = sample::distribution_pair(n, rng);
    Instance::new()
        .with("p", Item::Distribution(p))
        .with("q", Item::Distribution(q))
        .tagged(how)
}

/// `(p, q)` and an order α > 1.
pub(crate) fn pair_alpha_instance(ctx: &SampleContext, rng: &mut ChaCha8Rng) -> Instance {
    let inst = pair_instance(ctx, rng);
    inst.with("alpha", sample::alpha(1.0, f64::INFINITY, rng))
}

/// `ε = max(D_∞(p‖q), D_∞(q‖p))`: the smallest ε for which the pair is ε-DP both ways.
pub(crate) fn eps_both<R: Real>(p: &[f64], q: &[f64]) -> Result<R> {
    Ok(R::max_divergence(p, q)?.max(R::max_divergence(q, p)?))
}

/// [`eps_both`] when finite (`None`: the pair is not ε-DP for any ε, hypotheses are vacuous).
pub(crate) fn finite_eps<R: Real>(p: &[f64], q: &[f64]) -> Result<Option<R>> {
    let e: R = eps_both(p, q)?;
    Ok((e.to_f64() < f64::INFINITY).then_some(e))
}

fn kl_nonnegative<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q) = (inst.distribution("p")?, inst.distribution("q")?);
    Ok(Gap::le(R::lit(0.0), R::renyi(p, q, 1.0)?))
}

fn kl_bounded_divergence<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q) = (inst.distribution("p")?, inst.distribution("q")?);
    let eps: R = eps_both(p, q)?;
    Ok(Gap::le(R::renyi(p, q, 1.0)?, kl_bound(eps)))
}

fn classical_bounded_divergence<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q) = (inst.distribution("p")?, inst.distribution("q")?);
    let alpha = inst.scalar("alpha")?;
    let eps: R = eps_both(p, q)?;
    Ok(Gap::le(
        R::renyi(p, q, alpha)?,
        bounded_divergence_bound(eps, alpha),
    ))
}

/// `δ = u · Δ(p, q)` with `u ∈ (0, 1)` the instance's scalar (the same `f64` in both
/// arithmetics: δ is data of the instance). `None` when `Δ = 0`.
pub(crate) fn delta_of(inst: &Instance, p: &[f64], q: &[f64]) -> Result<Option<f64>> {
    let u = inst.scalar("u")?;
    let tv = crate::divergence::classical::total_variation(p, q)?;
    let delta = u * tv;
    Ok((delta > 0.0 && delta < 1.0).then_some(delta))
}

/// The scalar `u ∈ (0, 1)` giving `δ = u·Δ(p, q)`, log-scaled (small δ are the interesting ones).
pub(crate) fn delta_fraction<R: Rng + ?Sized>(rng: &mut R) -> Item {
    let u = (rng.random_range(-8.0f64..0.0) * std::f64::consts::LN_10).exp();
    Item::scalar(
        u.min(1.0 - 1e-12),
        1e-12,
        1.0 - 1e-12,
        Scale::Log { offset: 0.0 },
    )
}

fn approx_max_divergence_bound<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q) = (inst.distribution("p")?, inst.distribution("q")?);
    let alpha = inst.scalar("alpha")?;
    let Some(delta) = delta_of(inst, p, q)? else {
        return Ok(Gap::vacuous());
    };
    let lhs = R::approx_max_divergence(p, q, delta)?;
    let rhs = R::renyi(p, q, alpha)? - R::lit(delta).ln() / R::lit(alpha - 1.0);
    Ok(Gap::le(lhs, rhs))
}

fn product(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter()
        .flat_map(|x| b.iter().map(move |y| x * y))
        .collect()
}

fn classical_additivity<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p0, q0) = (inst.distribution("p0")?, inst.distribution("q0")?);
    let (p1, q1) = (inst.distribution("p1")?, inst.distribution("q1")?);
    let alpha = inst.scalar("alpha")?;
    let joint = R::renyi(&product(p0, p1), &product(q0, q1), alpha)?;
    let parts = R::renyi(p0, q0, alpha)? + R::renyi(p1, q1, alpha)?;
    Ok(Gap::eq(joint, parts))
}

fn weak_triangle<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q, r) = (
        inst.distribution("p")?,
        inst.distribution("q")?,
        inst.distribution("r")?,
    );
    let (alpha, k) = (inst.scalar("alpha")?, inst.scalar("k")?);
    let ka = k * alpha;
    let lhs = R::renyi(p, q, alpha)?;
    let first = R::renyi(p, r, (ka - 1.0) / (k - 1.0))?;
    let second = R::renyi(r, q, ka)?;
    let rhs = if first.to_f64().is_infinite() || second.to_f64().is_infinite() {
        R::lit(f64::INFINITY)
    } else {
        R::lit(ka) / R::lit(ka - 1.0) * first + second
    };
    Ok(Gap::le(lhs, rhs))
}

fn triangle<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q, r) = (
        inst.distribution("p")?,
        inst.distribution("q")?,
        inst.distribution("r")?,
    );
    let alpha = inst.scalar("alpha")?;
    let (pq, qr) = (R::renyi(p, q, alpha)?, R::renyi(q, r, alpha)?);
    let rhs = if pq.to_f64().is_infinite() || qr.to_f64().is_infinite() {
        R::lit(f64::INFINITY)
    } else {
        pq + qr
    };
    Ok(Gap::le(R::renyi(p, r, alpha)?, rhs))
}

/// The three ways of computing `sup_S P(S) − e^ε Q(S)` of seed 001, Lemma 1.2.
fn hockey_stick_dp<R: Real>(inst: &Instance) -> Result<Gap<R>> {
    let (p, q) = (inst.distribution("p")?, inst.distribution("q")?);
    let eps = R::lit(inst.scalar("epsilon")?);
    let gamma = eps.exp();
    let hs = R::hockey_stick(p, q, &gamma)?;
    // E_{Z ~ PrivLoss(p‖q)} max(0, 1 − e^{ε − Z}), Z = ln(p_i/q_i) (+∞ where q_i = 0)
    let mut loss = R::lit(0.0);
    for (&a, &b) in p.iter().zip(q).filter(|(a, _)| **a > 0.0) {
        let term = if b == 0.0 {
            R::lit(a)
        } else {
            let z = R::lit(a).ln() - R::lit(b).ln();
            R::lit(a) * (R::lit(1.0) - (eps.clone() - z).exp()).max(R::lit(0.0))
        };
        loss = loss + term;
    }
    // brute force over all events S ⊆ {0..n} (n ≤ 12)
    let mut gap = Gap::eq(hs.clone(), loss);
    if p.len() <= 12 {
        let mut best = R::lit(0.0);
        for mask in 1u32..(1 << p.len()) {
            let (mut ps, mut qs) = (R::lit(0.0), R::lit(0.0));
            for i in (0..p.len()).filter(|i| mask >> i & 1 == 1) {
                ps = ps + R::lit(p[i]);
                qs = qs + R::lit(q[i]);
            }
            best = best.max(ps - gamma.clone() * qs);
        }
        gap = gap.and(Gap::eq(hs, best));
    }
    Ok(gap)
}

/// Three distributions: independent, all near a common base (bounded ratios), or collinear
/// (`q` a mixture of `p` and `r`, roles shuffled).
fn triple_instance(ctx: &SampleContext, rng: &mut ChaCha8Rng) -> Instance {
    let n = alphabet(ctx, rng);
    let (mut ds, how): (Vec<Vec<f64>>, String) = match rng.random_range(0..3) {
        0 => (
            (0..3).map(|_| sample::distribution(n, rng).0).collect(),
            "independent".into(),
        ),
        1 => {
            let (base, b) = sample::distribution(n, rng);
            let eps = sample::epsilon(rng);
            let ds = (0..3)
                .map(|_| {
                    let w: Vec<f64> = base
                        .iter()
                        .map(|x| x * (eps * rng.random_range(-1.0..=1.0)).exp())
                        .collect();
                    let s: f64 = w.iter().sum();
                    w.iter().map(|x| x / s).collect()
                })
                .collect();
            (ds, format!("near-base(eps={eps:.3e},{b})"))
        }
        _ => {
            let (a, _) = sample::distribution(n, rng);
            let (c, _) = sample::distribution(n, rng);
            let t: f64 = rng.random();
            let m: Vec<f64> = a
                .iter()
                .zip(&c)
                .map(|(x, y)| (1.0 - t) * x + t * y)
                .collect();
            (vec![a, m, c], format!("collinear(t={t:.3})"))
        }
    };
    if rng.random_bool(0.3) {
        let i = rng.random_range(0..3);
        let j = rng.random_range(0..3);
        ds.swap(i, j);
    }
    let r = ds.pop().unwrap_or_default();
    let q = ds.pop().unwrap_or_default();
    let p = ds.pop().unwrap_or_default();
    Instance::new()
        .with("p", Item::Distribution(p))
        .with("q", Item::Distribution(q))
        .with("r", Item::Distribution(r))
        .with("alpha", sample::alpha(1.0, f64::INFINITY, rng))
        .tagged(how)
}

pub(crate) fn all() -> Vec<Builtin> {
    let (kl_m, kl_h) = classical_fns!(kl_nonnegative, ["p", "q"]);
    let (klb_m, klb_h) = classical_fns!(kl_bounded_divergence, ["p", "q"]);
    let (cbd_m, cbd_h) = classical_fns!(classical_bounded_divergence, ["p", "q"]);
    let (amd_m, amd_h) = classical_fns!(approx_max_divergence_bound, ["p", "q"]);
    let (add_m, add_h) = classical_fns!(classical_additivity, ["p0", "q0", "p1", "q1"]);
    let (wt_m, wt_h) = classical_fns!(weak_triangle, ["p", "q", "r"]);
    let (tr_m, tr_h) = classical_fns!(triangle, ["p", "q", "r"]);
    let (hs_m, hs_h) = classical_fns!(hockey_stick_dp, ["p", "q"]);
    vec![
        Builtin {
            name: "kl-nonnegative",
            source: "seed 003, Proposition 5; seed 000, Theorem 5",
            expected: Expected::Theorem,
            summary: "KL(p‖q) ≥ 0",
            trials: 60000,
            sample: |ctx, rng| Ok(pair_instance(ctx, rng)),
            margin: kl_m,
            high_precision: kl_h,
        },
        Builtin {
            name: "kl-bounded-divergence",
            source: "seed 003, Lemma 6",
            expected: Expected::Theorem,
            summary: "D_∞(p‖q), D_∞(q‖p) ≤ ε ⇒ KL(p‖q) ≤ ε(e^ε − 1)",
            trials: 60000,
            sample: |ctx, rng| Ok(pair_instance(ctx, rng)),
            margin: klb_m,
            high_precision: klb_h,
        },
        Builtin {
            name: "classical-bounded-divergence",
            source: "seed 000, Theorem 7 (Bun–Steinke 2016, Prop. 3.3)",
            expected: Expected::Theorem,
            summary: "D_∞(p‖q), D_∞(q‖p) ≤ ε ⇒ D_α(p‖q) ≤ ½ε²α for all α > 1",
            trials: 60000,
            sample: |ctx, rng| Ok(pair_alpha_instance(ctx, rng)),
            margin: cbd_m,
            high_precision: cbd_h,
        },
        Builtin {
            name: "approx-max-divergence-bound",
            source: "seed 000, Lemma 19",
            expected: Expected::Theorem,
            summary: "0 < δ ≤ Δ(p,q), α > 1 ⇒ D_∞^δ(p‖q) ≤ D_α(p‖q) − ln δ/(α−1)",
            trials: 60000,
            sample: |ctx, rng| {
                let u = delta_fraction(rng);
                Ok(pair_alpha_instance(ctx, rng).with("u", u))
            },
            margin: amd_m,
            high_precision: amd_h,
        },
        Builtin {
            name: "classical-additivity",
            source: "seed 000, Theorem 9",
            expected: Expected::Theorem,
            summary: "D_α(p₀⊗p₁‖q₀⊗q₁) = D_α(p₀‖q₀) + D_α(p₁‖q₁), α ∈ (0, ∞)",
            trials: 40000,
            sample: |ctx, rng| {
                let a = pair_instance(ctx, rng);
                let b = pair_instance(ctx, rng);
                let mut inst = Instance::new();
                for (x, suffix) in [(a, "0"), (b, "1")] {
                    inst = inst
                        .with(
                            &format!("p{suffix}"),
                            Item::Distribution(x.distribution("p")?.to_vec()),
                        )
                        .with(
                            &format!("q{suffix}"),
                            Item::Distribution(x.distribution("q")?.to_vec()),
                        );
                    for t in x.tags() {
                        inst = inst.tagged(t.clone());
                    }
                }
                Ok(inst.with("alpha", sample::alpha(0.0, 1e3, rng)))
            },
            margin: add_m,
            high_precision: add_h,
        },
        Builtin {
            name: "weak-triangle-inequality",
            source: "seed 000, Theorem 10 (Bun–Steinke 2016)",
            expected: Expected::Theorem,
            summary: "k, α > 1 ⇒ D_α(P‖Q) ≤ kα/(kα−1)·D_{(kα−1)/(k−1)}(P‖R) + D_{kα}(R‖Q)",
            trials: 60000,
            sample: |ctx, rng| {
                let k = sample::alpha(1.0, 1e2, rng);
                Ok(triple_instance(ctx, rng).with("k", k))
            },
            margin: wt_m,
            high_precision: wt_h,
        },
        Builtin {
            name: "triangle-inequality",
            source: "seed 000, Theorem 11 (no triangle inequality)",
            expected: Expected::False,
            summary: "D_α(P‖R) ≤ D_α(P‖Q) + D_α(Q‖R), α > 1",
            trials: 40000,
            sample: |ctx, rng| Ok(triple_instance(ctx, rng)),
            margin: tr_m,
            high_precision: tr_h,
        },
        Builtin {
            name: "hockey-stick-dp",
            source: "seed 001, Lemma 1.2",
            expected: Expected::Theorem,
            summary:
                "sup_S P(S) − e^ε Q(S) = Σ(p − e^ε q)_+ = E_{Z~PrivLoss(p‖q)} max(0, 1 − e^{ε−Z})",
            trials: 40000,
            sample: |ctx, rng| {
                let e = Item::scalar(rng.random_range(0.0..5.0), 0.0, 10.0, Scale::Linear);
                Ok(pair_instance(ctx, rng).with("epsilon", e))
            },
            margin: hs_m,
            high_precision: hs_h,
        },
    ]
}
