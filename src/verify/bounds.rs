//! The closed-form bounds the built-in statements test, generic over [`Real`] where the
//! statement is classical (so they are also evaluated in 256-bit arithmetic). Derivations in
//! `docs/lemmas.md` (sections named after the functions); reference values in
//! `tests/reference/verify_bounds.json` (mpmath, `tests/reference/generate_verify_bounds.py`).

use super::real::Real;
use crate::spectral::EPS;

/// `½ ε² α`: the bounded-divergence bound (seed 000, Theorems 7 and 22; Bun–Steinke 2016,
/// Prop. 3.3).
pub fn bounded_divergence_bound<R: Real>(eps: R, alpha: f64) -> R {
    R::lit(0.5 * alpha) * eps.clone() * eps
}

/// `ε (e^ε − 1)`: the KL bound of seed 003, Lemma 6.
pub fn kl_bound<R: Real>(eps: R) -> R {
    eps.clone() * (eps.exp() - R::lit(1.0))
}

/// `ln cosh x` without overflow: `|x| + ln(1 + e^{−2|x|}) − ln 2`.
fn ln_cosh(x: f64) -> f64 {
    let a = x.abs();
    a + (-2.0 * a).exp().ln_1p() - std::f64::consts::LN_2
}

/// The tight (sinh-form) bounded-divergence bound, α > 1, ε ≥ 0, with its rounding-error
/// estimate:
/// `(1/(α−1)) ln[(sinh αε − sinh (α−1)ε)/sinh ε] = (1/(α−1)) ln[cosh((α−½)ε)/cosh(ε/2)]`.
///
/// Seed 000, proof of Theorem 22 (eq. A.84 with `A + B = 1`, `A e^ε + B e^{−ε} = 1`, i.e.
/// `A = (1 − e^{−ε})/(e^ε − e^{−ε})`; the seed's B has a sign slip). The second form follows from
/// `sinh x − sinh y = 2 cosh((x+y)/2) sinh((x−y)/2)` and `sinh ε = 2 sinh(ε/2) cosh(ε/2)`; it is
/// evaluated as `ln(1 + 2 sinh(αε/2) sinh((α−1)ε/2)/cosh(ε/2))/(α−1)` (no cancellation as α → 1
/// or ε → 0), and through `ln cosh` for `αε ≥ 40`. Equality for the two-point pair `q = (A, B)`, `p = (A e^ε, B e^{−ε})`.
pub fn sinh_bound(alpha: f64, eps: f64) -> (f64, f64) {
    if eps == 0.0 {
        return (0.0, 0.0);
    }
    if eps == f64::INFINITY {
        return (f64::INFINITY, 0.0);
    }
    let top = ln_cosh((alpha - 0.5) * eps);
    let v = if alpha * eps < 40.0 {
        // ln(cosh a / cosh b) = ln(1 + 2 sinh((a+b)/2) sinh((a−b)/2) / cosh b), a = (α−½)ε,
        // b = ε/2: no cancellation as α → 1 or ε → 0
        let x = 2.0 * (0.5 * alpha * eps).sinh() * (0.5 * (alpha - 1.0) * eps).sinh()
            / (0.5 * eps).cosh();
        x.ln_1p() / (alpha - 1.0)
    } else {
        (top - ln_cosh(0.5 * eps)) / (alpha - 1.0)
    };
    (v, 8.0 * EPS * (top + 1.0) / (alpha - 1.0))
}

/// `δ(α, τ, ε) = e^{(α−1)(τ−ε)} (1 − 1/α)^α / (α − 1)`: the (ε, δ) guarantee of an
/// `(α, τ)`-RDP pair (seed 001, Theorem 1.3), evaluated as one exponential of
/// `(α−1)(τ−ε) + α ln(1 − 1/α) − ln(α−1)`; `+∞` for τ = +∞.
pub fn rdp_delta<R: Real>(alpha: f64, tau: R, eps: R) -> R {
    if tau.to_f64() == f64::INFINITY {
        return R::lit(f64::INFINITY);
    }
    let a = R::lit(alpha);
    let am1 = R::lit(alpha - 1.0);
    let expo = am1.clone() * (tau - eps) + a.clone() * (am1.clone() / a).ln() - am1.ln();
    expo.exp()
}

/// Corrected δ/ε trade-off (seed 000, Theorem 21): `½ε² + ε √(2 ln(1/δ))`, the minimum over
/// α > 1 of `½ε²α − ln δ/(α−1)` (Lemma 19 with Theorem 7), attained at `α − 1 = √(2 ln(1/δ))/ε`.
pub fn tradeoff_bound<R: Real>(eps: R, delta: f64) -> R {
    let l = -R::lit(delta).ln();
    R::lit(0.5) * eps.clone() * eps.clone() + eps * (R::lit(2.0) * l).sqrt()
}

/// Theorem 21 as printed in seed 000 (eq. 3.8): `½ε²(1 + ε/√(2 ln(1/δ)))` — the optimal α was
/// solved as `(α−1)² = ε²/(2 ln(1/δ))` instead of `2 ln(1/δ)/ε²` (eq. A.71). Not a valid bound.
pub fn tradeoff_bound_as_printed<R: Real>(eps: R, delta: f64) -> R {
    let l = -R::lit(delta).ln();
    R::lit(0.5) * eps.clone() * eps.clone() * (R::lit(1.0) + eps / (R::lit(2.0) * l).sqrt())
}
