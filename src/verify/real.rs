//! One numeric interface, two implementations, so that a classical statement's margin is written
//! once and evaluated twice: in `f64` through the core ([`crate::divergence::classical`]), and in
//! 256-bit binary floating point ([`Hp`], astro-float, correctly rounded `ln`/`exp`/`sqrt`) by
//! formulas written here, independently of the core. The second evaluation is the
//! "higher precision" confirmation of a classical counterexample.
//!
//! The privacy conversions are part of the interface too: in `f64` they are the crate's
//! [`crate::privacy`] functions (the code under test), in [`Hp`] the formulas of
//! [`super::bounds`] — two independent implementations of each bound.

use crate::divergence::classical;
use crate::error::{Error, Result};
use crate::privacy::{conversion, PureDp, Rdp, Tcdp, Zcdp};
use astro_float::{BigFloat, Consts, RoundingMode};
use std::cell::RefCell;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// Real arithmetic plus the classical divergences of probability vectors given in `f64`.
///
/// The vectors are exact `f64` data; the divergences and everything computed from them are in
/// `Self`. For `f64` the divergences are the core's; for [`Hp`] they are evaluated here.
pub trait Real:
    Clone
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// An `f64` constant.
    fn lit(x: f64) -> Self;
    /// Nearest `f64` (±∞ preserved).
    fn to_f64(&self) -> f64;
    /// Natural logarithm (`ln 0 = −∞`).
    fn ln(&self) -> Self;
    /// Exponential.
    fn exp(&self) -> Self;
    /// Square root.
    fn sqrt(&self) -> Self;
    /// Hyperbolic sine.
    fn sinh(&self) -> Self {
        (self.exp() - (-self.clone()).exp()) / Self::lit(2.0)
    }
    /// Smaller of two values.
    fn min(self, other: Self) -> Self {
        if other < self {
            other
        } else {
            self
        }
    }
    /// Larger of two values.
    fn max(self, other: Self) -> Self {
        if other > self {
            other
        } else {
            self
        }
    }
    /// Rényi divergence `D_α(p‖q) = (1/(α−1)) ln Σ p_i^α q_i^{1−α}` (α > 0, α ≠ 1 finite, or
    /// α = 1 for KL), `+∞` when `p ≪ q` fails and α ≥ 1.
    fn renyi(p: &[f64], q: &[f64], alpha: f64) -> Result<Self>;
    /// Max divergence `D_∞(p‖q) = ln max_{p_i > 0} p_i/q_i`.
    fn max_divergence(p: &[f64], q: &[f64]) -> Result<Self>;
    /// Hockey-stick divergence `E_γ(p‖q) = Σ (p_i − γ q_i)_+`.
    fn hockey_stick(p: &[f64], q: &[f64], gamma: &Self) -> Result<Self>;
    /// δ-approximate max divergence `max_{P(S) > δ} ln((P(S) − δ)/Q(S))`.
    fn approx_max_divergence(p: &[f64], q: &[f64], delta: f64) -> Result<Self>;
    /// Total variation distance `½ Σ |p_i − q_i|`.
    fn total_variation(p: &[f64], q: &[f64]) -> Result<Self>;

    // The privacy conversions under test. `f64`: the crate's `privacy` module (outward-rounded);
    // the defaults (used by [`Hp`]) are the independent formulas of [`super::bounds`].

    /// `δ(ε)` of an `(α, τ)`-RDP bound, capped at 1 (seed 001, Theorem 1.3); `+∞` for τ = +∞.
    fn rdp_delta(alpha: f64, tau: Self, eps: Self) -> Result<Self> {
        Ok(super::bounds::rdp_delta(alpha, tau, eps).min(Self::lit(1.0)))
    }
    /// Corrected seed 000 Theorem 21, `min(½ε² + ε√(2 ln(1/δ)), ε)`.
    fn tradeoff(eps: Self, delta: f64) -> Result<Self> {
        Ok(super::bounds::tradeoff_bound(eps.clone(), delta).min(eps))
    }
    /// Pure ε-DP ⇒ `(m, z) = (ε, ½ε²)`-tCDP (seed 000, Theorem 13).
    fn tcdp_of_pure(eps: Self) -> Result<(Self, Self)> {
        Ok((
            eps.clone(),
            super::bounds::bounded_divergence_bound(eps, 1.0),
        ))
    }
    /// `(ξ, ρ)`-zCDP ⇒ `(∞, ξ + ρ)`-tCDP (seed 000, Theorem 14 corrected): the slope `ξ + ρ`.
    fn zcdp_to_tcdp_slope(xi: Self, rho: Self) -> Result<Self> {
        Ok(xi + rho)
    }
    /// `(m, z)`-tCDP ⇒ `(μ, τ) = (min(m,z), m + min(m,z)/2)`-mCDP (seed 000, Theorem 16).
    fn tcdp_to_mcdp(m: Self, z: Self) -> Result<(Self, Self)> {
        let mu = m.clone().min(z);
        Ok((mu.clone(), m + mu / Self::lit(2.0)))
    }
}

impl Real for f64 {
    fn lit(x: f64) -> Self {
        x
    }
    fn to_f64(&self) -> f64 {
        *self
    }
    fn ln(&self) -> Self {
        f64::ln(*self)
    }
    fn exp(&self) -> Self {
        f64::exp(*self)
    }
    fn sqrt(&self) -> Self {
        f64::sqrt(*self)
    }
    fn sinh(&self) -> Self {
        f64::sinh(*self)
    }
    fn renyi(p: &[f64], q: &[f64], alpha: f64) -> Result<Self> {
        classical::renyi(p, q, alpha)
    }
    fn max_divergence(p: &[f64], q: &[f64]) -> Result<Self> {
        classical::max_divergence(p, q)
    }
    fn hockey_stick(p: &[f64], q: &[f64], gamma: &Self) -> Result<Self> {
        classical::hockey_stick(p, q, *gamma)
    }
    fn approx_max_divergence(p: &[f64], q: &[f64], delta: f64) -> Result<Self> {
        classical::approx_max_divergence(p, q, delta)
    }
    fn total_variation(p: &[f64], q: &[f64]) -> Result<Self> {
        classical::total_variation(p, q)
    }
    fn rdp_delta(alpha: f64, tau: Self, eps: Self) -> Result<Self> {
        if tau == f64::INFINITY {
            return Ok(f64::INFINITY);
        }
        // a divergence computed as −1e-17 is a zero
        conversion::rdp_delta(Rdp::new(alpha, tau.max(0.0))?, eps)
    }
    fn tradeoff(eps: Self, delta: f64) -> Result<Self> {
        conversion::tradeoff_theorem21(eps, delta)
    }
    fn tcdp_of_pure(eps: Self) -> Result<(Self, Self)> {
        let t = conversion::pure_to_tcdp(PureDp::new(eps)?);
        Ok((t.m, t.z))
    }
    fn zcdp_to_tcdp_slope(xi: Self, rho: Self) -> Result<Self> {
        Ok(conversion::zcdp_to_tcdp(Zcdp::new(xi.max(0.0), rho)?).z)
    }
    fn tcdp_to_mcdp(m: Self, z: Self) -> Result<(Self, Self)> {
        let t = Tcdp::new(m, z.max(0.0))?;
        let mc = conversion::tcdp_to_mcdp(t).ok_or_else(|| {
            Error::invalid(
                "m",
                m,
                "tCDP → mCDP needs a finite cap m (seed 000, Theorem 16)",
            )
        })?;
        Ok((mc.mu, mc.tau))
    }
}

/// Working precision of [`Hp`] in bits.
pub const HP_BITS: usize = 256;
const RM: RoundingMode = RoundingMode::ToEven;

thread_local! {
    // Constants cache of astro-float (π, ln 2, …), one per thread. `None` if its allocation failed;
    // every operation then yields NaN, which `Hp::to_f64` reports as NaN and callers reject.
    static CONSTS: RefCell<Option<Consts>> = RefCell::new(Consts::new().ok());
}

fn with_consts(f: impl FnOnce(&mut Consts) -> BigFloat) -> BigFloat {
    CONSTS.with(|c| match c.borrow_mut().as_mut() {
        Some(cc) => f(cc),
        None => BigFloat::nan(None),
    })
}

/// A 256-bit binary floating-point number (astro-float), for the high-precision re-evaluation of
/// classical margins.
#[derive(Clone, Debug)]
pub struct Hp(BigFloat);

impl Hp {
    /// Whether the value is NaN (an arithmetic failure).
    pub fn is_nan(&self) -> bool {
        self.0.is_nan()
    }
}

impl PartialEq for Hp {
    fn eq(&self, o: &Self) -> bool {
        self.0 == o.0
    }
}
impl PartialOrd for Hp {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        self.0.partial_cmp(&o.0)
    }
}
/// `impl $trait for Hp` by astro-float's `$method` at [`HP_BITS`], rounding to nearest.
macro_rules! hp_binop {
    ($trait:ident, $method:ident) => {
        impl $trait for Hp {
            type Output = Hp;
            fn $method(self, o: Hp) -> Hp {
                Hp(self.0.$method(&o.0, HP_BITS, RM))
            }
        }
    };
}
hp_binop!(Add, add);
hp_binop!(Sub, sub);
hp_binop!(Mul, mul);
hp_binop!(Div, div);
impl Neg for Hp {
    type Output = Hp;
    fn neg(self) -> Hp {
        Hp(-self.0)
    }
}

fn hp_sum(xs: impl Iterator<Item = Hp>) -> Hp {
    xs.fold(Hp::lit(0.0), |a, b| a + b)
}

/// `p_i / Σ p` in 256 bits: the `f64` data sum to 1 only up to rounding, and the exact
/// evaluation must see probability vectors (an unnormalised `q` with `Σq > 1` would make
/// `D_∞(p‖q) < 0`).
fn hp_normalised(p: &[f64]) -> Vec<Hp> {
    let s = hp_sum(p.iter().map(|&x| Hp::lit(x)));
    p.iter().map(|&x| Hp::lit(x) / s.clone()).collect()
}

/// Validate a pair of probability vectors exactly as the core does (its total variation
/// distance checks both vectors and their lengths).
fn hp_check(p: &[f64], q: &[f64]) -> Result<()> {
    classical::total_variation(p, q).map(|_| ())
}

impl Real for Hp {
    fn lit(x: f64) -> Self {
        if x == f64::INFINITY {
            Hp(astro_float::INF_POS)
        } else if x == f64::NEG_INFINITY {
            Hp(astro_float::INF_NEG)
        } else {
            Hp(BigFloat::from_f64(x, HP_BITS))
        }
    }
    fn to_f64(&self) -> f64 {
        if self.0.is_nan() {
            return f64::NAN;
        }
        if self.0.is_inf_pos() {
            return f64::INFINITY;
        }
        if self.0.is_inf_neg() {
            return f64::NEG_INFINITY;
        }
        // decimal with ≥ 17 significant digits, then the correctly rounded parse
        self.0.to_string().parse::<f64>().unwrap_or(f64::NAN)
    }
    fn ln(&self) -> Self {
        if self.0.is_zero() {
            return Hp(astro_float::INF_NEG);
        }
        Hp(with_consts(|cc| self.0.ln(HP_BITS, RM, cc)))
    }
    fn exp(&self) -> Self {
        Hp(with_consts(|cc| self.0.exp(HP_BITS, RM, cc)))
    }
    fn sqrt(&self) -> Self {
        Hp(self.0.sqrt(HP_BITS, RM))
    }
    fn renyi(p: &[f64], q: &[f64], alpha: f64) -> Result<Self> {
        hp_check(p, q)?;
        crate::order::Order::new(
            alpha,
            crate::order::OrderRange::PositiveFinite,
            "the high-precision Rényi divergence",
        )?;
        let (pn, qn) = (hp_normalised(p), hp_normalised(q));
        let leaks = p.iter().zip(q).any(|(&a, &b)| a > 0.0 && b == 0.0);
        let live = || {
            (0..p.len())
                .filter(|&i| p[i] > 0.0 && q[i] > 0.0)
                .map(|i| (pn[i].clone(), qn[i].clone()))
        };
        if alpha == 1.0 {
            if leaks {
                return Ok(Hp::lit(f64::INFINITY));
            }
            return Ok(hp_sum(live().map(|(a, b)| a.clone() * (a.ln() - b.ln()))));
        }
        if alpha > 1.0 && leaks {
            return Ok(Hp::lit(f64::INFINITY));
        }
        let t = Hp::lit(alpha - 1.0);
        // Σ p (p/q)^{α−1}, each term as exp((α−1) ln(p/q))
        let s = hp_sum(live().map(|(a, b)| a.clone() * (t.clone() * (a.ln() - b.ln())).exp()));
        Ok(s.ln() / t)
    }
    fn max_divergence(p: &[f64], q: &[f64]) -> Result<Self> {
        hp_check(p, q)?;
        let (pn, qn) = (hp_normalised(p), hp_normalised(q));
        let mut best = Hp::lit(f64::NEG_INFINITY);
        for i in (0..p.len()).filter(|&i| p[i] > 0.0) {
            if q[i] == 0.0 {
                return Ok(Hp::lit(f64::INFINITY));
            }
            best = best.max(pn[i].ln() - qn[i].ln());
        }
        Ok(best)
    }
    fn hockey_stick(p: &[f64], q: &[f64], gamma: &Self) -> Result<Self> {
        hp_check(p, q)?;
        let (pn, qn) = (hp_normalised(p), hp_normalised(q));
        Ok(hp_sum(
            pn.into_iter()
                .zip(qn)
                .map(|(a, b)| (a - gamma.clone() * b).max(Hp::lit(0.0))),
        ))
    }
    fn approx_max_divergence(p: &[f64], q: &[f64], delta: f64) -> Result<Self> {
        hp_check(p, q)?;
        let (pn, qn) = (hp_normalised(p), hp_normalised(q));
        // maximise over the prefixes of the points sorted by decreasing ratio p/q (normalising
        // scales every ratio by the same factor). The cross products of the f64 inputs are exact
        // at 256 bits (106-bit products, unbounded exponent), so the comparison is exact and
        // transitive: a total order, ties broken by index.
        let (ph, qh): (Vec<Hp>, Vec<Hp>) = p
            .iter()
            .zip(q)
            .map(|(&a, &b)| (Hp::lit(a), Hp::lit(b)))
            .unzip();
        let mut idx: Vec<usize> = (0..p.len()).filter(|&i| p[i] > 0.0).collect();
        idx.sort_by(|&i, &j| {
            let (a, b) = (ph[j].clone() * qh[i].clone(), ph[i].clone() * qh[j].clone());
            a.partial_cmp(&b)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(i.cmp(&j))
        });
        let (mut ps, mut qs) = (Hp::lit(0.0), Hp::lit(0.0));
        let mut best = Hp::lit(f64::NEG_INFINITY);
        let d = Hp::lit(delta);
        for &i in &idx {
            ps = ps + pn[i].clone();
            qs = qs + qn[i].clone();
            if ps > d {
                let v = if qs > Hp::lit(0.0) {
                    (ps.clone() - d.clone()).ln() - qs.ln()
                } else {
                    Hp::lit(f64::INFINITY)
                };
                best = best.max(v);
            }
        }
        Ok(best)
    }
    fn total_variation(p: &[f64], q: &[f64]) -> Result<Self> {
        hp_check(p, q)?;
        let (pn, qn) = (hp_normalised(p), hp_normalised(q));
        let s = hp_sum(pn.into_iter().zip(qn).map(|(a, b)| {
            let d = a - b;
            if d < Hp::lit(0.0) {
                -d
            } else {
                d
            }
        }));
        Ok(s / Hp::lit(2.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hp_agrees_with_core_on_a_simple_pair() {
        let (p, q) = ([0.7, 0.2, 0.1], [0.2, 0.5, 0.3]);
        for a in [0.5, 1.0, 2.0, 7.5] {
            let x = f64::renyi(&p, &q, a).unwrap();
            let y = Hp::renyi(&p, &q, a).unwrap().to_f64();
            assert!((x - y).abs() < 1e-14 * (1.0 + x.abs()), "α={a}: {x} vs {y}");
        }
        let x = f64::approx_max_divergence(&p, &q, 0.1).unwrap();
        let y = Hp::approx_max_divergence(&p, &q, 0.1).unwrap().to_f64();
        assert!((x - y).abs() < 1e-14);
        assert_eq!(Hp::lit(2.0).ln().to_f64(), std::f64::consts::LN_2);
        assert!((Hp::lit(0.3).sinh().to_f64() - 0.3f64.sinh()).abs() < 1e-16);
    }

    #[test]
    fn hp_infinities() {
        assert_eq!(
            Hp::renyi(&[0.5, 0.5], &[1.0, 0.0], 2.0).unwrap().to_f64(),
            f64::INFINITY
        );
        assert_eq!(Hp::lit(0.0).ln().to_f64(), f64::NEG_INFINITY);
    }
}
