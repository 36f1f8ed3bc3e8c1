//! Directed-rounding arithmetic: an [`Interval`] type whose every operation rounds its lower end
//! down and its upper end up, so that the exact real result of a formula evaluated on exact
//! inputs always lies inside the computed interval.
//!
//! This is how qrenyi makes every returned privacy parameter *sound under floating point*
//! (seed 001, §3: "floating-point arithmetic is computed with conservative rounding"; OpenDP's
//! `inf_*` / `neg_inf_*` arithmetic plays the same role). A bound `δ` is reported as the upper
//! end of the interval enclosing the exact formula, hence never below the exact value.
//!
//! Soundness argument (details in `docs/privacy.md`, section "rounding"):
//!
//! * `+ − × ÷ √` are correctly rounded in IEEE 754 (round to nearest): the computed result is
//!   within half an ulp of the exact one, so one step [`next_up`] / [`next_down`] encloses it.
//!   The sign of the rounding error is known exactly (TwoSum for sums; the FMA residual for
//!   products, quotients and square roots), so a result is stepped only in the direction where
//!   the exact value lies, and exact results are not widened. In the subnormal range (where the
//!   residual may be inexact) both ends are stepped blindly. When the exact result underflows to
//!   0 the step gives ± the smallest subnormal, which still encloses it; overflow gives ±∞ or
//!   ±`f64::MAX`, still enclosing.
//! * `exp`, `ln`, `ln_1p`, `exp_m1` and `erfc` come from the `libm` crate (a port of musl), whose
//!   documented errors are below 1 ulp (`exp`, `log`, `log1p`, `expm1`) and a few ulps at worst
//!   (`erfc`). We step [`TRANSCENDENTAL_ULPS`] = 4 ulps outward (8 for `erfc`), a margin of at
//!   least 2× over the documented error. An `exp` that underflows to 0 is rounded up to the
//!   smallest positive subnormal (never 0), as the brief requires.
//! * Monotone functions map interval ends to interval ends; products take the min/max of the four
//!   end products, each rounded outward.

use std::ops::Mul;

/// Outward steps (in ulps) applied to `exp`, `ln`, `ln_1p`, `exp_m1` results.
pub const TRANSCENDENTAL_ULPS: u32 = 4;
/// Outward steps (in ulps) applied to `erfc` results.
pub const ERFC_ULPS: u32 = 8;

/// The least `f64` strictly greater than `x` (`+∞` stays `+∞`, NaN stays NaN; `−0` and `+0`
/// step to the smallest positive subnormal). Same semantics as `f64::next_up` (Rust ≥ 1.86),
/// written out because the crate's MSRV is 1.80.
pub fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

/// The greatest `f64` strictly less than `x` (`−∞` stays `−∞`, NaN stays NaN).
pub fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// `x` stepped `n` ulps up.
pub fn up_by(mut x: f64, n: u32) -> f64 {
    for _ in 0..n {
        x = next_up(x);
    }
    x
}

/// `x` stepped `n` ulps down.
pub fn down_by(mut x: f64, n: u32) -> f64 {
    for _ in 0..n {
        x = next_down(x);
    }
    x
}

/// A closed interval `[lo, hi]` of reals known to contain an exact value. Every operation returns
/// an interval containing every exact result for exact operands in the operand intervals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Lower end (rounded down).
    pub lo: f64,
    /// Upper end (rounded up).
    pub hi: f64,
}

impl Interval {
    /// The exact value `x` (a float is an exact real).
    pub fn point(x: f64) -> Self {
        Interval { lo: x, hi: x }
    }

    /// `[lo, hi]`.
    pub fn new(lo: f64, hi: f64) -> Self {
        Interval { lo, hi }
    }

    /// `e^a` (lower end never below 0; upper end never 0).
    pub fn exp(self) -> Self {
        Interval {
            lo: down_by(libm::exp(self.lo), TRANSCENDENTAL_ULPS).max(0.0),
            hi: up_by(libm::exp(self.hi), TRANSCENDENTAL_ULPS),
        }
    }

    /// `e^a − 1`.
    pub fn exp_m1(self) -> Self {
        Interval {
            lo: down_by(libm::expm1(self.lo), TRANSCENDENTAL_ULPS).max(-1.0),
            hi: up_by(libm::expm1(self.hi), TRANSCENDENTAL_ULPS),
        }
    }

    /// `ln a` (a lower end ≤ 0 gives `−∞`).
    pub fn ln(self) -> Self {
        let lo = if self.lo > 0.0 {
            down_by(libm::log(self.lo), TRANSCENDENTAL_ULPS)
        } else {
            f64::NEG_INFINITY
        };
        let hi = if self.hi > 0.0 {
            up_by(libm::log(self.hi), TRANSCENDENTAL_ULPS)
        } else {
            f64::NEG_INFINITY
        };
        Interval { lo, hi }
    }

    /// `ln(1 + a)`.
    pub fn ln_1p(self) -> Self {
        let f = |x: f64, up: bool| {
            if x <= -1.0 {
                f64::NEG_INFINITY
            } else if up {
                up_by(libm::log1p(x), TRANSCENDENTAL_ULPS)
            } else {
                down_by(libm::log1p(x), TRANSCENDENTAL_ULPS)
            }
        };
        Interval {
            lo: f(self.lo, false),
            hi: f(self.hi, true),
        }
    }

    /// `√a` for `a ≥ 0` (negative parts clamp to 0).
    pub fn sqrt(self) -> Self {
        Interval {
            lo: sqrt_dir(self.lo.max(0.0), false),
            hi: sqrt_dir(self.hi.max(0.0), true),
        }
    }

    /// `max(a, b)` (monotone in both arguments).
    pub fn max(self, o: Interval) -> Self {
        Interval {
            lo: self.lo.max(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    /// `min(a, b)`.
    pub fn min(self, o: Interval) -> Self {
        Interval {
            lo: self.lo.min(o.lo),
            hi: self.hi.min(o.hi),
        }
    }

    /// Whether `x` lies in the interval.
    pub fn contains(self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

/// Below this magnitude an FMA residual may itself be inexact (subnormal range): step blindly.
const SAFE_MIN: f64 = 1e-290;

/// Round a computed result `r` whose exact value is `r + e` (sign of `e` known, or unknown when
/// `exact_err` is `None`) in the requested direction.
fn directed(r: f64, exact_err: Option<f64>, up: bool) -> f64 {
    match exact_err {
        Some(0.0) => r,
        Some(e) if (e > 0.0) == up => {
            if up {
                next_up(r)
            } else {
                next_down(r)
            }
        }
        Some(_) => r,
        None => {
            if up {
                next_up(r)
            } else {
                next_down(r)
            }
        }
    }
}

/// `a + b` rounded up (`up`) or down. The exact error comes from Knuth's TwoSum, so exact sums
/// are not widened.
fn add_dir(a: f64, b: f64, up: bool) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return if s.is_nan() { s } else { directed(s, None, up) };
    }
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    directed(s, Some(e), up)
}

/// `a · b` rounded in a direction; the exact residual `a·b − p` is `fma(a, b, −p)` outside the
/// subnormal range.
fn mul_dir(a: f64, b: f64, up: bool) -> f64 {
    let p = a * b;
    if p.is_nan() || a == 0.0 || b == 0.0 {
        // an exact zero operand gives an exact 0 (0·∞: callers never multiply an infinite end by
        // 0; the exact limit is 0)
        return 0.0;
    }
    if !p.is_finite() || p.abs() < SAFE_MIN {
        return directed(p, None, up);
    }
    directed(p, Some(a.mul_add(b, -p)), up)
}

/// `a / b` rounded in a direction; the exact quotient is `q + r/b` with `r = fma(−q, b, a)`.
fn div_dir(a: f64, b: f64, up: bool) -> f64 {
    let q = a / b;
    if a == 0.0 && b != 0.0 {
        return 0.0; // exact
    }
    if !q.is_finite() || q.abs() < SAFE_MIN || a.abs() < SAFE_MIN {
        return if q.is_nan() { q } else { directed(q, None, up) };
    }
    let r = (-q).mul_add(b, a);
    let sign = if (r > 0.0) == (b > 0.0) { 1.0 } else { -1.0 };
    directed(q, Some(if r == 0.0 { 0.0 } else { sign }), up)
}

/// `√a` rounded in a direction; the exact residual `a − r²` is `fma(−r, r, a)`.
fn sqrt_dir(a: f64, up: bool) -> f64 {
    let r = a.sqrt();
    if !r.is_finite() || a < SAFE_MIN {
        return directed(r, None, up).max(0.0);
    }
    directed(r, Some((-r).mul_add(r, a)), up).max(0.0)
}

/// `a + b`.
impl std::ops::Add for Interval {
    type Output = Interval;
    fn add(self, o: Interval) -> Interval {
        Interval {
            lo: add_dir(self.lo, o.lo, false),
            hi: add_dir(self.hi, o.hi, true),
        }
    }
}

/// `a − b`.
impl std::ops::Sub for Interval {
    type Output = Interval;
    fn sub(self, o: Interval) -> Interval {
        self + (-o)
    }
}

/// `−a` (exact).
impl std::ops::Neg for Interval {
    type Output = Interval;
    fn neg(self) -> Interval {
        Interval {
            lo: -self.hi,
            hi: -self.lo,
        }
    }
}

impl Interval {
    /// Apply a directed binary operation to the four end pairs: the minimum of the results
    /// rounded down and the maximum rounded up (valid for `×` and `÷` away from a zero divisor).
    fn corners(self, o: Interval, op: fn(f64, f64, bool) -> f64) -> Interval {
        let ends = [
            (self.lo, o.lo),
            (self.lo, o.hi),
            (self.hi, o.lo),
            (self.hi, o.hi),
        ];
        Interval {
            lo: ends
                .iter()
                .map(|&(x, y)| op(x, y, false))
                .fold(f64::INFINITY, f64::min),
            hi: ends
                .iter()
                .map(|&(x, y)| op(x, y, true))
                .fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// `a · b` (all four end products, each rounded in the needed direction).
impl std::ops::Mul for Interval {
    type Output = Interval;
    fn mul(self, o: Interval) -> Interval {
        self.corners(o, mul_dir)
    }
}

/// `a / b`; when `b` contains 0 the result is `[−∞, ∞]`.
impl std::ops::Div for Interval {
    type Output = Interval;
    fn div(self, o: Interval) -> Interval {
        if o.lo <= 0.0 && o.hi >= 0.0 {
            return Interval::new(f64::NEG_INFINITY, f64::INFINITY);
        }
        self.corners(o, div_dir)
    }
}

/// Shorthand for [`Interval::point`].
pub fn pt(x: f64) -> Interval {
    Interval::point(x)
}

/// Standard normal CDF `Φ(x) = ½ erfc(−x/√2)` enclosed in an interval, for an exact `x`.
///
/// The argument `−x/√2` is itself enclosed (the constant `1/√2` is not exact in binary), `erfc` is
/// decreasing, and [`ERFC_ULPS`] outward steps cover libm's erfc error. The result is clamped to
/// `[0, 1]`; for `x ≫ 0` the upper end is 1.
pub fn normal_cdf(x: f64) -> Interval {
    // 1/√2 enclosed: the float constant is within half an ulp of the real number
    let c = Interval::new(
        next_down(std::f64::consts::FRAC_1_SQRT_2),
        next_up(std::f64::consts::FRAC_1_SQRT_2),
    );
    let t = pt(-x).mul(c);
    let lo = down_by(0.5 * libm::erfc(t.hi), ERFC_ULPS).max(0.0);
    let hi = up_by(0.5 * libm::erfc(t.lo), ERFC_ULPS).min(1.0);
    Interval { lo, hi }
}

/// Upper bound on `Σ x_i` for non-negative terms given as intervals, rounded up term by term.
pub fn sum_up(terms: impl IntoIterator<Item = f64>) -> f64 {
    terms.into_iter().fold(0.0, |s, x| next_up(s + x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::{Add, Div, Mul};

    #[test]
    fn rounding_steps_are_outward() {
        assert!(next_up(1.0) > 1.0 && next_down(1.0) < 1.0);
        assert_eq!(next_up(0.0), f64::from_bits(1));
        assert_eq!(next_up(-0.0), f64::from_bits(1));
        assert_eq!(next_down(0.0), -f64::from_bits(1));
        assert_eq!(next_up(f64::INFINITY), f64::INFINITY);
        assert_eq!(next_up(f64::MAX), f64::INFINITY);
        assert_eq!(next_down(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(next_up(-f64::from_bits(1)), -0.0);
        assert!(next_up(f64::NAN).is_nan());
    }

    #[test]
    fn rounding_exp_underflow_is_positive() {
        let e = pt(-1e6).exp();
        assert_eq!(e.lo, 0.0);
        assert!(e.hi > 0.0);
    }

    #[test]
    fn rounding_encloses_simple_identities() {
        // 0.1 + 0.2 (exactly 0.30000000000000001665…) rounds to 0.30000000000000004, above it
        let s = pt(0.1).add(pt(0.2));
        assert_eq!((s.lo, s.hi), (next_down(0.1 + 0.2), 0.1 + 0.2));
        // exact operations are not widened
        assert_eq!(pt(0.5).add(pt(0.25)), pt(0.75));
        assert_eq!(pt(3.0).mul(pt(7.0)), pt(21.0));
        assert_eq!(pt(1.0).div(pt(4.0)), pt(0.25));
        assert_eq!(pt(9.0).sqrt(), pt(3.0));
        // an exact zero operand gives an exact zero (not ± the smallest subnormal)
        assert_eq!(pt(0.0).mul(pt(3.0)), pt(0.0));
        assert_eq!(pt(7.0).mul(pt(0.0)), pt(0.0));
        assert_eq!(pt(0.0).div(pt(3.0)), pt(0.0));
        // a product that underflows is still enclosed
        let u = pt(1e-200).mul(pt(1e-200));
        assert!(u.lo <= 0.0 && u.hi > 0.0);
        // 1/3 rounds down (0.3333…3148 < 1/3), √2 rounds up (1.41421356237309514… > √2)
        let t = pt(1.0).div(pt(3.0));
        assert_eq!((t.lo, t.hi), (1.0 / 3.0, next_up(1.0 / 3.0)));
        let r = pt(2.0).sqrt();
        assert_eq!((r.lo, r.hi), (next_down(2f64.sqrt()), 2f64.sqrt()));
        let l = pt(std::f64::consts::E).ln();
        assert!(l.contains(1.0));
        let m = Interval::new(-2.0, 3.0).mul(Interval::new(-5.0, 1.0));
        assert!(m.lo <= -15.0 && m.hi >= 10.0);
        assert_eq!(pt(1.0).div(Interval::new(-1.0, 1.0)).hi, f64::INFINITY);
        let phi = normal_cdf(0.0);
        assert!(phi.contains(0.5));
    }
}
