//! Sound conversions between guarantees, every returned `ε`/`δ` rounded outward.
//!
//! The central fact (seed 001, Theorem 1.3; Canonne–Kamath–Steinke 2020, Prop. 12): if
//! `D_α(P‖Q) ≤ τ` for one `α ∈ (1, ∞)`, then for every `ε`
//!
//! `E_{e^ε}(P‖Q) ≤ δ_α(τ, ε) = exp((α−1)(τ−ε)) (1 − 1/α)^α / (α−1)`,
//!
//! equivalently (seed 001, Corollary 1) `(ε, δ)`-DP with
//! `ε_α(τ, δ) = τ + (ln(1/δ) + (α−1) ln(1−1/α) − ln α)/(α−1)`.
//! For `(ξ, ρ)`-zCDP, `τ = ξ + ρα` at every order and the conversions take the infimum over `α`
//! (seed 001, Corollary 2). Any `α > 1` gives a *valid* bound, so the optimiser need not be exact:
//! it locates the minimiser by bisection on the (increasing) derivative and the bound is then
//! evaluated at the float `α` found with [`Interval`] arithmetic, whose upper end is returned.
//!
//! Quantum pairs: `D̃_α(ρ‖σ) ≤ τ` implies the same `δ` for `E_{e^ε}(ρ‖σ)` (data processing of the
//! sandwiched divergence under the optimal two-outcome measurement; `docs/privacy.md`,
//! "quantum_conversion"). Petz and maximal bounds also qualify since `D̃_α ≤ D̄_α` (Araki–Lieb–
//! Thirring) and `D̃_α ≤ D̂_α` (maximality).

use super::mechanisms::{Mechanism, RandomizedResponse};
use super::rounding::{next_up, pt, Interval};
use super::{
    check_delta, check_nonneg, check_nonneg_or_inf, ApproxDp, Mcdp, PureDp, Qzcdp, Rdp, RdpCurve,
    Tcdp, Zcdp,
};
use crate::divergence::Family;
use crate::error::{Error, Result};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A converted privacy parameter with the Rényi order at which the bound was evaluated
/// (`None` when no order is involved, e.g. a trivial or pure case; `Some(∞)` for a pure bound).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Converted {
    /// The parameter (`δ` or `ε`), rounded outward.
    pub value: f64,
    /// The order that gave it.
    pub alpha: Option<f64>,
}

/// `ln δ_α(τ, ε) = (α−1)(τ−ε) + α ln(1−1/α) − ln(α−1)`, enclosed.
fn ln_delta_at(alpha: f64, tau: Interval, eps: f64) -> Interval {
    let a = pt(alpha);
    let am1 = a.sub(pt(1.0));
    let l = pt(1.0).div(a).neg().ln_1p();
    am1.mul(tau.sub(pt(eps))).add(a.mul(l)).sub(am1.ln())
}

/// `ε_α(τ, δ) = τ + (−ln δ + (α−1) ln(1−1/α) − ln α)/(α−1)`, enclosed.
fn epsilon_at(alpha: f64, tau: Interval, delta: f64) -> Interval {
    let a = pt(alpha);
    let am1 = a.sub(pt(1.0));
    let l = pt(1.0).div(a).neg().ln_1p();
    let num = pt(delta).ln().neg().add(am1.mul(l)).sub(a.ln());
    tau.add(num.div(am1))
}

/// `ξ + ρα`, enclosed.
fn zcdp_tau(z: Zcdp, alpha: f64) -> Interval {
    pt(z.xi).add(pt(z.rho).mul(pt(alpha)))
}

/// Bracket the root of an increasing function `g` on `(1, ∞)` by doubling then bisection (in
/// `α − 1`, geometrically while the bracket spans more than a factor 4). Returns the candidate
/// orders to evaluate (both bracket ends; a single end when `g` has no sign change).
fn root_candidates(g: impl Fn(f64) -> f64) -> Vec<f64> {
    let mut lo = next_up(1.0);
    if g(lo) >= 0.0 {
        return vec![lo];
    }
    let mut hi = 2.0;
    let mut steps = 0;
    while g(hi) < 0.0 {
        lo = hi;
        hi = 1.0 + 2.0 * (hi - 1.0);
        steps += 1;
        if !hi.is_finite() || steps > 1100 {
            return vec![lo];
        }
    }
    for _ in 0..300 {
        let (l1, h1) = (lo - 1.0, hi - 1.0);
        let mid = if h1 > 4.0 * l1 {
            1.0 + (l1 * h1).sqrt()
        } else {
            lo + 0.5 * (hi - lo)
        };
        if mid <= lo || mid >= hi {
            break;
        }
        if g(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    vec![lo, hi]
}

/// `δ` of `(ξ, ρ)`-zCDP at `ε` (any real `ε`; used with shifted `ε` internally).
fn zcdp_delta_raw(z: Zcdp, eps: f64) -> Converted {
    if eps == f64::INFINITY {
        return Converted {
            value: 0.0,
            alpha: None,
        };
    }
    if z.rho == 0.0 && eps >= z.xi {
        // D_α ≤ ξ ≤ ε for every α, so D_∞ ≤ ε: pure ε-DP, δ = 0
        return Converted {
            value: 0.0,
            alpha: Some(f64::INFINITY),
        };
    }
    // d/dα ln δ_α(ξ + ρα, ε) = (2α−1)ρ + ξ − ε + ln(1 − 1/α), increasing in α
    let deriv = |a: f64| (2.0 * a - 1.0) * z.rho + z.xi - eps + (-1.0 / a).ln_1p();
    let best = root_candidates(deriv)
        .into_iter()
        .map(|a| (ln_delta_at(a, zcdp_tau(z, a), eps).exp().hi, a))
        .fold(
            (f64::INFINITY, f64::NAN),
            |b, c| if c.0 < b.0 { c } else { b },
        );
    if best.0 >= 1.0 {
        return Converted {
            value: 1.0,
            alpha: None,
        };
    }
    Converted {
        value: best.0,
        alpha: Some(best.1),
    }
}

/// `δ(ε)` of `(ξ, ρ)`-zCDP: `inf_{α>1} exp((α−1)(ξ + αρ − ε)) (1−1/α)^α/(α−1)`, capped at 1,
/// rounded up (seed 001, Theorem 1.3 with `τ = ξ + ρα`; OpenDP `cdp_delta` for `ξ = 0`).
///
/// Never below the exact infimum: the value is the upper end of an interval enclosing the
/// formula at one admissible `α`. Errors: `ε < 0` or NaN.
pub fn zcdp_delta(z: Zcdp, epsilon: f64) -> Result<Converted> {
    check_nonneg_or_inf("epsilon", epsilon)?;
    Ok(zcdp_delta_raw(z, epsilon))
}

/// `ε(δ)` of `(ξ, ρ)`-zCDP: `inf_{α>1} ξ + αρ + (ln(1/δ) + (α−1) ln(1−1/α) − ln α)/(α−1)`,
/// floored at 0, rounded up (seed 001, Corollary 2). `δ = 0` gives `+∞` unless `ρ = 0`
/// (then `ε = ξ`, pure DP); `δ = 1` gives 0.
pub fn zcdp_epsilon(z: Zcdp, delta: f64) -> Result<Converted> {
    check_delta("delta", delta)?;
    if delta >= 1.0 {
        return Ok(Converted {
            value: 0.0,
            alpha: None,
        });
    }
    if z.rho == 0.0 {
        return Ok(Converted {
            value: z.xi,
            alpha: Some(f64::INFINITY),
        });
    }
    if delta == 0.0 {
        return Ok(Converted {
            value: f64::INFINITY,
            alpha: None,
        });
    }
    // d/dα ε_α = ρ + ln(αδ)/(α−1)², whose sign is that of ρ(α−1)² + ln α + ln δ (increasing)
    let ln_d = delta.ln();
    let g = |a: f64| z.rho * (a - 1.0) * (a - 1.0) + a.ln() + ln_d;
    let best = root_candidates(g)
        .into_iter()
        .map(|a| (epsilon_at(a, zcdp_tau(z, a), delta).hi, a))
        .fold(
            (f64::INFINITY, f64::NAN),
            |b, c| if c.0 < b.0 { c } else { b },
        );
    Ok(Converted {
        value: best.0.max(0.0),
        alpha: Some(best.1),
    })
}

/// OpenDP-compatible `cdp_delta(ρ, ε)`: [`zcdp_delta`] of `ρ`-zCDP (`ξ = 0`).
/// Published check (seed 001 / OpenDP): `cdp_delta(0.5, 0) = 0.5588356393474351`.
pub fn cdp_delta(rho: f64, epsilon: f64) -> Result<f64> {
    Ok(zcdp_delta(Zcdp::from_rho(rho)?, epsilon)?.value)
}

/// OpenDP-compatible `cdp_epsilon(ρ, δ)`: [`zcdp_epsilon`] of `ρ`-zCDP.
pub fn cdp_epsilon(rho: f64, delta: f64) -> Result<f64> {
    Ok(zcdp_epsilon(Zcdp::from_rho(rho)?, delta)?.value)
}

/// `δ(ε)` of one `(α, τ)`-RDP bound: `exp((α−1)(τ−ε)) (1−1/α)^α/(α−1)` (seed 001,
/// Theorem 1.3), capped at 1; for `α = ∞` (pure `τ`-DP) `δ = (1 − e^{ε−τ})_+`. Rounded up.
pub fn rdp_delta(r: Rdp, epsilon: f64) -> Result<f64> {
    check_nonneg_or_inf("epsilon", epsilon)?;
    Ok(rdp_delta_raw(r, epsilon))
}

fn rdp_delta_raw(r: Rdp, epsilon: f64) -> f64 {
    if epsilon == f64::INFINITY {
        return 0.0;
    }
    if r.alpha == f64::INFINITY {
        // P(S) − e^ε Q(S) ≤ P(S)(1 − e^{ε−τ}) ≤ 1 − e^{ε−τ} when P(S) ≤ e^τ Q(S)
        return if epsilon >= r.tau {
            0.0
        } else {
            pt(epsilon).sub(pt(r.tau)).exp_m1().neg().hi.min(1.0)
        };
    }
    ln_delta_at(r.alpha, pt(r.tau), epsilon).exp().hi.min(1.0)
}

/// `ε(δ)` of one `(α, τ)`-RDP bound, seed 001 Corollary 1:
/// `τ + (ln(1/δ) + (α−1) ln(1−1/α) − ln α)/(α−1)`, floored at 0, rounded up; `α = ∞` gives `τ`.
pub fn rdp_epsilon(r: Rdp, delta: f64) -> Result<f64> {
    check_delta("delta", delta)?;
    Ok(rdp_epsilon_raw(r, delta, false))
}

/// The simpler (looser) `ε = τ + ln(1/δ)/(α−1)` (Mironov 2017, Prop. 3; seed 004 §3;
/// seed 000 Lemma 19 in the form `D_∞^δ ≤ D_α − ln δ/(α−1)`), rounded up.
pub fn rdp_epsilon_simple(r: Rdp, delta: f64) -> Result<f64> {
    check_delta("delta", delta)?;
    Ok(rdp_epsilon_raw(r, delta, true))
}

fn rdp_epsilon_raw(r: Rdp, delta: f64, simple: bool) -> f64 {
    if r.alpha == f64::INFINITY || delta >= 1.0 {
        return if delta >= 1.0 { 0.0 } else { r.tau };
    }
    if delta == 0.0 {
        return f64::INFINITY;
    }
    let v = if simple {
        let am1 = pt(r.alpha).sub(pt(1.0));
        pt(r.tau).add(pt(delta).ln().neg().div(am1)).hi
    } else {
        epsilon_at(r.alpha, pt(r.tau), delta).hi
    };
    v.max(0.0)
}

/// `δ(ε)` of an RDP curve: the minimum of [`rdp_delta`] over its orders (each valid).
pub fn rdp_curve_delta(c: &RdpCurve, epsilon: f64) -> Result<Converted> {
    check_nonneg_or_inf("epsilon", epsilon)?;
    Ok(best_of(c, |r| rdp_delta_raw(r, epsilon)))
}

/// `ε(δ)` of an RDP curve: the minimum of [`rdp_epsilon`] over its orders.
pub fn rdp_curve_epsilon(c: &RdpCurve, delta: f64) -> Result<Converted> {
    check_delta("delta", delta)?;
    Ok(best_of(c, |r| rdp_epsilon_raw(r, delta, false)))
}

fn best_of(c: &RdpCurve, f: impl Fn(Rdp) -> f64) -> Converted {
    c.points()
        .iter()
        .map(|&r| Converted {
            value: f(r),
            alpha: Some(r.alpha),
        })
        .fold(
            Converted {
                value: f64::INFINITY,
                alpha: None,
            },
            |b, x| if x.value < b.value { x } else { b },
        )
}

/// Quantum `(ε, δ)` from a qzCDP guarantee: `E_{e^ε}(ρ‖σ) ≤ δ(ε)` with the zCDP formula of
/// [`zcdp_delta`] (sound for every family: `D̃_α ≤ D̄_α` and `D̃_α ≤ D̂_α`, and the sandwiched
/// divergence obeys data processing under the optimal measurement; `docs/privacy.md`
/// "quantum_conversion").
pub fn qzcdp_quantum_delta(q: Qzcdp, epsilon: f64) -> Result<Converted> {
    zcdp_delta(q.as_zcdp(), epsilon)
}

/// Quantum `ε(δ)` from a qzCDP guarantee (see [`qzcdp_quantum_delta`]).
pub fn qzcdp_quantum_epsilon(q: Qzcdp, delta: f64) -> Result<Converted> {
    zcdp_epsilon(q.as_zcdp(), delta)
}

/// Seed 000, Theorem 22 (quantum bounded divergence; classical: Bun–Steinke 2016, Prop. 3.3):
/// if `D_max(ρ‖σ) ≤ ε` and `D_max(σ‖ρ) ≤ ε` then `D̂_α(ρ‖σ) ≤ ½ε²α` for all α > 1. Returns
/// `½ε²α` rounded up.
pub fn bounded_divergence_bound(epsilon: f64, alpha: f64) -> Result<f64> {
    check_nonneg("epsilon", epsilon)?;
    super::check_order(alpha)?;
    Ok(pt(0.5).mul(pt(epsilon)).mul(pt(epsilon)).mul(pt(alpha)).hi)
}

/// The exact (tight) form of seed 000 Theorem 22's proof:
/// `D̂_α(ρ‖σ) ≤ (1/(α−1)) ln(A e^{αε} + B e^{−αε})` with `A = (1−e^{−ε})/(e^ε−e^{−ε}) = 1/(1+e^ε)`
/// and `B = (e^ε−1)/(e^ε−e^{−ε}) = e^ε/(1+e^ε)` (the seed prints `B` with the sign of the
/// numerator flipped; `A + B = 1` and `A e^ε + B e^{−ε} = 1` force this `B`, see
/// `docs/privacy.md` "bounded_divergence_tight"). This is the Rényi divergence of the binary pair
/// `(e^ε, 1)/(1+e^ε)` vs `(1, e^ε)/(1+e^ε)` (randomized response), so the bound is attained.
/// `α = 1` gives the limit `ε tanh(ε/2)`; `α = ∞` gives `ε`.
///
/// Evaluated as [`RandomizedResponse`]'s RDP curve (cancellation-free, interval-enclosed).
pub fn bounded_divergence_tight(epsilon: f64, alpha: f64) -> Result<f64> {
    crate::order::Order::new(
        alpha,
        crate::order::OrderRange::AtLeastOne,
        "the bounded-divergence bound",
    )?;
    RandomizedResponse::new(epsilon)?.rdp(alpha)
}

/// Seed 000 Theorem 21 (trade-off δ/ε), corrected: if `D_∞(P‖Q) ≤ ε` and `D_∞(Q‖P) ≤ ε` then
/// `D_∞^δ(P‖Q) ≤ ½ε² + ε√(2 ln(1/δ))` (and trivially `≤ ε`; the minimum is returned, rounded up).
/// Proof: Lemma 19 `D_∞^δ ≤ D_α + ln(1/δ)/(α−1)` with `D_α ≤ ½ε²α` (Theorem 7), minimised at
/// `α = 1 + √(2 ln(1/δ))/ε`. The seed's printed optimum `(α−1)² = ε²/(2 ln(1/δ))` is inverted and
/// its value `½ε²(1 + ε/√(2 ln(1/δ)))` is false (randomized response violates it, see
/// `docs/privacy.md` "tradeoff_theorem21"). [`cdp_epsilon`]`(ε²/2, δ)` is never looser.
pub fn tradeoff_theorem21(epsilon: f64, delta: f64) -> Result<f64> {
    check_nonneg("epsilon", epsilon)?;
    check_delta("delta", delta)?;
    if delta == 0.0 || delta >= 1.0 {
        return Ok(if delta >= 1.0 { 0.0 } else { epsilon });
    }
    let e = pt(epsilon);
    let root = (pt(2.0) * -pt(delta).ln()).sqrt();
    Ok((pt(0.5) * e * e + e * root).hi.min(epsilon))
}

/// Pure `ε`-DP ⇒ `(0, ½ε²)`-zCDP (seed 000 Theorem 7 / Bun–Steinke 2016 Prop. 3.3), `ρ` rounded
/// up.
pub fn pure_to_zcdp(p: PureDp) -> Zcdp {
    Zcdp {
        xi: 0.0,
        rho: pt(0.5).mul(pt(p.epsilon)).mul(pt(p.epsilon)).hi,
    }
}

/// A quantum pair with `D_max ≤ ε` both ways is `(0, ½ε²)`-qzCDP for the maximal family (seed 000,
/// Theorem 22), hence for the sandwiched family (`D̃_α ≤ D̂_α`). Petz is refused: `D̄_α ≤ D̂_α`
/// is only known for α ∈ (1, 2].
pub fn pure_to_qzcdp(p: PureDp, family: Family) -> Result<Qzcdp> {
    if family == Family::Petz {
        return Err(Error::invalid(
            "family",
            f64::NAN,
            "Theorem 22 bounds the maximal family and (by D̃ ≤ D̂) the sandwiched one; \
             Petz is not covered for α > 2",
        ));
    }
    let z = pure_to_zcdp(p);
    Qzcdp::new(z.xi, z.rho, family)
}

/// Seed 000, Theorem 13: `(m, z)`-tCDP ⇒ pure `m`-DP (`None` when `m = ∞`).
pub fn tcdp_to_pure(t: Tcdp) -> Option<PureDp> {
    t.m.is_finite().then_some(PureDp { epsilon: t.m })
}

/// Seed 000, Theorem 13: pure `ε`-DP ⇒ `(ε, ½ε²)`-tCDP (`D_α ≤ min(ε, ½ε²α)`).
pub fn pure_to_tcdp(p: PureDp) -> Tcdp {
    Tcdp {
        m: p.epsilon,
        z: pure_to_zcdp(p).rho,
    }
}

/// Seed 000, Theorem 14: `(m, z)`-tCDP ⇒ `(0, z)`-zCDP.
pub fn tcdp_to_zcdp(t: Tcdp) -> Zcdp {
    Zcdp { xi: 0.0, rho: t.z }
}

/// Seed 000, Theorem 14 (corrected): `(ξ, ρ)`-zCDP ⇒ `(∞, ξ + ρ)`-tCDP, since
/// `ξ + ρα ≤ (ξ + ρ)α` for α ≥ 1. (The seed states `(∞, ρ)`, true only for `ξ = 0`.)
pub fn zcdp_to_tcdp(z: Zcdp) -> Tcdp {
    Tcdp {
        m: f64::INFINITY,
        z: pt(z.xi).add(pt(z.rho)).hi,
    }
}

/// Seed 000, Theorem 16 (via Lemma 15, Hoeffding): `(m, z)`-tCDP with finite `m` ⇒
/// `(min(m, z), m + min(m, z)/2)`-mCDP. The privacy loss lies in `[−m, m]` and its mean in
/// `[0, min(m, z)]`, so the centred loss ranges over an interval of width `2m + min(m, z)`.
pub fn tcdp_to_mcdp(t: Tcdp) -> Option<Mcdp> {
    if !t.m.is_finite() {
        return None;
    }
    let mu = t.m.min(t.z);
    Some(Mcdp {
        mu,
        tau: pt(t.m).add(pt(mu).mul(pt(0.5))).hi,
    })
}

/// `(ε, δ)` view of an RDP curve at a target `δ` (convenience: `ApproxDp` with the best `ε`).
pub fn rdp_curve_to_approx(c: &RdpCurve, delta: f64) -> Result<ApproxDp> {
    let e = rdp_curve_epsilon(c, delta)?;
    ApproxDp::new(e.value, delta)
}
