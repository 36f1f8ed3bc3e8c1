//! Classical mechanisms with exact RDP curves and exact privacy profiles `δ(ε)`.
//!
//! * [`Gaussian`]: `D_α = αΔ²/(2σ²)` (Mironov 2017, Prop. 7; seed 004 §5.3), exact
//!   `δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)` (Balle–Wang 2018, Theorem 8) and the
//!   calibrated `σ` for a target `(ε, δ)`.
//! * [`Laplace`]: `D_α = (1/(α−1)) ln(α/(2α−1) e^{(α−1)ε₀} + (α−1)/(2α−1) e^{−αε₀})`,
//!   `ε₀ = Δ/b` (Mironov 2017, Prop. 6), exact `δ(ε) = 1 − e^{(ε−ε₀)/2}` for `ε < ε₀`.
//! * [`RandomizedResponse`]: binary, truthful with probability `p = e^{ε₀}/(1+e^{ε₀})`;
//!   `D_α` of `(p, 1−p)` vs `(1−p, p)` (Mironov 2017, Prop. 5), `δ(ε) = (e^{ε₀} − e^ε)_+/(1+e^{ε₀})`.
//!
//! Every value returned is rounded up (interval arithmetic of [`super::rounding`]).

use super::conversion::Converted;
use super::rounding::{normal_cdf, pt, Interval};
use super::{check_delta, check_nonneg, check_nonneg_or_inf, smallest_ok, RdpCurve, Zcdp};
use crate::error::{Error, Result};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A classical mechanism on one neighbouring pair, worst case over neighbours.
pub trait Mechanism {
    /// `sup D_α(M(x)‖M(x'))` at order `α ∈ [1, ∞]`, rounded up.
    fn rdp(&self, alpha: f64) -> Result<f64>;

    /// Exact privacy profile `δ(ε) = sup E_{e^ε}(M(x)‖M(x'))`, rounded up.
    fn delta(&self, epsilon: f64) -> Result<f64>;

    /// The RDP curve at the given orders (each `> 1`).
    fn rdp_curve(&self, alphas: &[f64]) -> Result<RdpCurve> {
        RdpCurve::from_fn(alphas, |a| self.rdp(a))
    }

    /// Smallest `ε` with `δ(ε) ≤ target`, by bisection on the nonincreasing profile (upper end of
    /// the final bracket, so `δ(ε) ≤ target` holds for the returned `ε` with the rounded-up
    /// profile). `+∞` if none below `1e6`.
    fn epsilon(&self, delta: f64) -> Result<f64> {
        check_delta("delta", delta)?;
        bisect_decreasing(0.0, |e| self.delta(e).map(|d| d <= delta))
    }
}

/// Smallest `x ≥ lo` with `ok(x)` (monotone predicate), `+∞` when none up to `1e6`.
pub(crate) fn bisect_decreasing(lo: f64, ok: impl Fn(f64) -> Result<bool>) -> Result<f64> {
    Ok(smallest_ok(lo, lo.max(0.0) + 1.0, 1e6, ok)?.unwrap_or(f64::INFINITY))
}

fn check_rdp_order(alpha: f64) -> Result<()> {
    crate::order::Order::new(
        alpha,
        crate::order::OrderRange::AtLeastOne,
        "a mechanism RDP curve",
    )
    .map(|_| ())
}

/// The Gaussian mechanism `f(x) + N(0, σ²)` for a query of ℓ₂-sensitivity `Δ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaussian {
    /// Noise standard deviation `σ > 0`.
    pub(crate) sigma: f64,
    /// ℓ₂ sensitivity `Δ > 0`.
    pub(crate) sensitivity: f64,
}

fn check_positive(name: &str, x: f64) -> Result<()> {
    if x > 0.0 && x.is_finite() {
        Ok(())
    } else {
        Err(Error::invalid(name, x, "must be finite and > 0"))
    }
}

impl Gaussian {
    /// Noise standard deviation `σ > 0`.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }
    /// ℓ₂ sensitivity `Δ > 0`.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// Validate `σ, Δ > 0`.
    pub fn new(sigma: f64, sensitivity: f64) -> Result<Self> {
        check_positive("sigma", sigma)?;
        check_positive("sensitivity", sensitivity)?;
        Ok(Gaussian { sigma, sensitivity })
    }

    /// `ρ = Δ²/(2σ²)`: the mechanism is exactly `ρ`-zCDP (Bun–Steinke 2016, Prop. 1.6), rounded up.
    pub fn zcdp(&self) -> Zcdp {
        let r = pt(self.sensitivity).div(pt(self.sigma));
        Zcdp {
            xi: 0.0,
            rho: r.mul(r).mul(pt(0.5)).hi,
        }
    }

    /// Balle–Wang (2018, Theorem 8) exact `δ(ε)`, enclosed.
    fn delta_interval(&self, eps: f64) -> Interval {
        let half = pt(self.sensitivity).div(pt(self.sigma)).mul(pt(0.5));
        let shift = pt(eps).mul(pt(self.sigma)).div(pt(self.sensitivity));
        let a = half.sub(shift);
        let b = half.neg().sub(shift);
        let pa = Interval::new(normal_cdf(a.lo).lo, normal_cdf(a.hi).hi);
        let pb = Interval::new(normal_cdf(b.lo).lo, normal_cdf(b.hi).hi);
        pa.sub(pt(eps).exp().mul(pb))
    }

    /// Smallest `σ` (upper end of a bisection bracket) with exact `δ(ε) ≤ delta` for sensitivity
    /// `Δ` (Balle–Wang 2018, Algorithm 1 solves the same equation). Published check:
    /// `calibrate(1, 1e-5, 1) = 3.7306316348…`.
    pub fn calibrate(epsilon: f64, delta: f64, sensitivity: f64) -> Result<Self> {
        check_nonneg("epsilon", epsilon)?;
        check_positive("delta", delta)?;
        check_delta("delta", delta)?;
        check_positive("sensitivity", sensitivity)?;
        let ok = |s: f64| -> Result<bool> {
            Ok(Gaussian::new(s, sensitivity)?.delta_interval(epsilon).hi <= delta)
        };
        // σ scales with Δ: search from a tiny positive start, doubling from Δ
        let sigma = smallest_ok(1e-6 * sensitivity, sensitivity, 1e12 * sensitivity, ok)?
            .ok_or_else(|| Error::invalid("delta", delta, "no σ below 1e12·Δ reaches this δ"))?;
        Gaussian::new(sigma, sensitivity)
    }

    /// `ε(δ)` of the zCDP view (the optimal conversion of `ρ = Δ²/(2σ²)`), for comparison with
    /// the exact [`Mechanism::epsilon`].
    pub fn zcdp_epsilon(&self, delta: f64) -> Result<Converted> {
        super::conversion::zcdp_epsilon(self.zcdp(), delta)
    }
}

impl Mechanism for Gaussian {
    fn rdp(&self, alpha: f64) -> Result<f64> {
        check_rdp_order(alpha)?;
        if alpha == f64::INFINITY {
            return Ok(f64::INFINITY);
        }
        Ok(pt(self.zcdp().rho).mul(pt(alpha)).hi)
    }

    fn delta(&self, epsilon: f64) -> Result<f64> {
        check_nonneg_or_inf("epsilon", epsilon)?;
        if epsilon == f64::INFINITY {
            return Ok(0.0);
        }
        Ok(self.delta_interval(epsilon).hi.clamp(0.0, 1.0))
    }
}

/// The Laplace mechanism `f(x) + Lap(b)` for a query of ℓ₁-sensitivity `Δ`; pure `Δ/b`-DP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Laplace {
    /// Scale `b > 0`.
    pub(crate) scale: f64,
    /// ℓ₁ sensitivity `Δ > 0`.
    pub(crate) sensitivity: f64,
}

impl Laplace {
    /// Scale `b > 0`.
    pub fn scale(&self) -> f64 {
        self.scale
    }
    /// ℓ₁ sensitivity `Δ > 0`.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// Validate `b, Δ > 0`.
    pub fn new(scale: f64, sensitivity: f64) -> Result<Self> {
        check_positive("scale", scale)?;
        check_positive("sensitivity", sensitivity)?;
        Ok(Laplace { scale, sensitivity })
    }

    /// `ε₀ = Δ/b`, enclosed.
    fn eps0(&self) -> Interval {
        pt(self.sensitivity).div(pt(self.scale))
    }

    /// Pure DP parameter `ε₀ = Δ/b` (seed 000, Theorem 2), rounded up.
    pub fn pure_epsilon(&self) -> f64 {
        self.eps0().hi
    }
}

impl Mechanism for Laplace {
    /// `ε₀ + [ln(1 + u e^{−(2α−1)ε₀}) − ln(1 + u)]/(α−1)`, `u = (α−1)/α` (an algebraic rewrite of
    /// Mironov's formula that keeps α → 1 finite); `α = 1`: `ε₀ + e^{−ε₀} − 1`; `α = ∞`: `ε₀`.
    fn rdp(&self, alpha: f64) -> Result<f64> {
        check_rdp_order(alpha)?;
        let e0 = self.eps0();
        if alpha == f64::INFINITY {
            return Ok(e0.hi);
        }
        if alpha == 1.0 {
            return Ok(e0.add(e0.neg().exp_m1()).hi.max(0.0));
        }
        let a = pt(alpha);
        let am1 = a.sub(pt(1.0));
        let u = am1.div(a);
        let decay = pt(2.0).mul(a).sub(pt(1.0)).mul(e0).neg().exp();
        let num = u.mul(decay).ln_1p().sub(u.ln_1p());
        Ok(e0.add(num.div(am1)).hi.max(0.0))
    }

    fn delta(&self, epsilon: f64) -> Result<f64> {
        check_nonneg_or_inf("epsilon", epsilon)?;
        let e0 = self.eps0();
        if epsilon >= e0.hi {
            return Ok(0.0);
        }
        Ok(pt(epsilon)
            .sub(e0)
            .mul(pt(0.5))
            .exp_m1()
            .neg()
            .hi
            .clamp(0.0, 1.0))
    }
}

/// Binary randomized response with parameter `ε₀`: report the true bit with probability
/// `p = e^{ε₀}/(1+e^{ε₀})`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RandomizedResponse {
    /// `ε₀ = ln(p/(1−p)) ≥ 0`.
    pub(crate) epsilon: f64,
}

impl RandomizedResponse {
    /// `ε₀ = ln(p/(1−p)) ≥ 0`.
    pub fn epsilon0(&self) -> f64 {
        self.epsilon
    }

    /// From `ε₀ ≥ 0` (finite).
    pub fn new(epsilon: f64) -> Result<Self> {
        check_nonneg("epsilon", epsilon)?;
        Ok(RandomizedResponse { epsilon })
    }

    /// From the truth probability `p ∈ [½, 1)`.
    pub fn from_probability(p: f64) -> Result<Self> {
        if !(0.5..1.0).contains(&p) {
            return Err(Error::invalid("p", p, "must lie in [1/2, 1)"));
        }
        Self::new(p.ln() - (-p).ln_1p())
    }
}

impl Mechanism for RandomizedResponse {
    /// `D_α = ln Q_α/(α−1)` with `Q_α = (e^{αε₀} + e^{(1−α)ε₀})/(1+e^{ε₀})`, evaluated without
    /// cancellation as `Q_α − 1 = expm1(tε₀)(expm1(ε₀) − expm1(−tε₀))/(1+e^{ε₀})`, `t = α−1`
    /// (both factors are sums of same-sign terms); `α = 1`: `ε₀ tanh(ε₀/2)`; `α = ∞`: `ε₀`.
    /// Enclosed with interval arithmetic and capped at `ε₀ = D_∞`.
    fn rdp(&self, alpha: f64) -> Result<f64> {
        check_rdp_order(alpha)?;
        let e = pt(self.epsilon);
        if alpha == f64::INFINITY || self.epsilon == 0.0 {
            return Ok(self.epsilon);
        }
        let em1 = e.exp_m1();
        let v = if alpha == 1.0 {
            e.mul(em1).div(em1.add(pt(2.0)))
        } else {
            let t = pt(alpha).sub(pt(1.0));
            let te = t.mul(e);
            let spread = em1.sub(te.neg().exp_m1());
            let norm = e.exp().add(pt(1.0));
            let ln_q = if te.hi <= 700.0 {
                te.exp_m1().mul(spread).div(norm).ln_1p()
            } else {
                // ln(Q−1) = tε₀ + ln(1 − e^{−tε₀}) + ln(spread) − ln(norm); ln Q = L + ln(1 + e^{−L})
                let l = te
                    .add(te.neg().exp().neg().ln_1p())
                    .add(spread.ln())
                    .sub(norm.ln());
                l.add(l.neg().exp().ln_1p())
            };
            ln_q.div(t)
        };
        Ok(v.hi.clamp(0.0, e.hi))
    }

    fn delta(&self, epsilon: f64) -> Result<f64> {
        check_nonneg_or_inf("epsilon", epsilon)?;
        if epsilon >= self.epsilon {
            return Ok(0.0);
        }
        // (e^{ε₀} − e^ε)/(1 + e^{ε₀})
        let e0 = pt(self.epsilon).exp();
        Ok(e0
            .sub(pt(epsilon).exp())
            .div(e0.add(pt(1.0)))
            .hi
            .clamp(0.0, 1.0))
    }
}
