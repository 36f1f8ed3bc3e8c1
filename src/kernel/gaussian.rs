//! Analytic Gaussian mechanism helpers used by the kernel-auditing experiment.
//!
//! The Gaussian mechanism `M(x) = f(x) + N(0, σ² I_d)` on a query of ℓ₂-sensitivity `Δ`. Only
//! `Δ/σ` matters (rotation invariance). Balle & Wang (ICML 2018, Theorem 8; seed 002, Section 6):
//! `M` is (ε,δ)-DP iff
//!
//! `δ ≥ δ_{Δ,σ}(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)`.
//!
//! (If the crate gains a `privacy` module with the same characterisation, these should be unified.)

use crate::error::{Error, Result};

/// Standard normal CDF `Φ(x) = erfc(−x/√2)/2` (accurate in both tails).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

fn check_positive(name: &str, v: f64) -> Result<()> {
    if v > 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(Error::invalid(name, v, "must be positive and finite"))
    }
}

/// Check `Δ ≥ 0` finite; returns whether `Δ = 0` (identical outputs).
fn check_sensitivity(sensitivity: f64) -> Result<bool> {
    if !(sensitivity >= 0.0 && sensitivity.is_finite()) {
        return Err(Error::invalid(
            "sensitivity Δ",
            sensitivity,
            "must be finite and ≥ 0",
        ));
    }
    Ok(sensitivity == 0.0)
}

fn check_epsilon(epsilon: f64) -> Result<()> {
    if epsilon >= 0.0 && epsilon.is_finite() {
        Ok(())
    } else {
        Err(Error::invalid("ε", epsilon, "must be finite and ≥ 0"))
    }
}

/// The exact privacy profile of the Gaussian mechanism (Balle & Wang 2018, Theorem 8):
/// `δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)`, clamped at 0 against rounding.
///
/// `Δ = 0` gives 0 (identical output distributions).
pub fn balle_wang_delta(sensitivity: f64, sigma: f64, epsilon: f64) -> Result<f64> {
    check_positive("σ", sigma)?;
    check_epsilon(epsilon)?;
    if check_sensitivity(sensitivity)? {
        return Ok(0.0);
    }
    let a = sensitivity / (2.0 * sigma);
    let b = epsilon * sigma / sensitivity;
    // e^ε Φ(−a−b) computed as exp(ε + ln Φ) to avoid overflow of e^ε at large ε
    let lower = normal_cdf(-a - b);
    let second = if lower > 0.0 {
        (epsilon + lower.ln()).exp()
    } else {
        0.0
    };
    Ok((normal_cdf(a - b) - second).max(0.0))
}

/// The smallest noise `σ` for which the Gaussian mechanism of sensitivity `Δ > 0` is (ε,δ)-DP
/// under [`balle_wang_delta`] (Balle & Wang's analytic calibration), found by bisection on
/// `ln σ` to relative width `1e-13` and returned from the safe side (`δ(σ) ≤ δ` holds).
pub fn calibrate_sigma(sensitivity: f64, epsilon: f64, delta: f64) -> Result<f64> {
    check_positive("sensitivity Δ", sensitivity)?;
    check_epsilon(epsilon)?;
    if !(delta > 0.0 && delta < 1.0) {
        return Err(Error::invalid("δ", delta, "must lie in (0, 1)"));
    }
    // δ(σ) decreases from 1 (σ → 0) to 0 (σ → ∞); bracket in σ/Δ
    let f = |s: f64| balle_wang_delta(sensitivity, s, epsilon).map(|d| d - delta);
    let (mut lo, mut hi) = (sensitivity * 1e-6, sensitivity);
    while f(hi)? > 0.0 {
        lo = hi;
        hi *= 2.0;
        if hi > sensitivity * 1e12 {
            return Err(Error::invalid(
                "δ",
                delta,
                "no σ ≤ 1e12·Δ reaches this δ; δ is too small",
            ));
        }
    }
    if f(lo)? <= 0.0 {
        return Ok(lo);
    }
    while hi / lo - 1.0 > 1e-13 {
        let mid = (lo * hi).sqrt();
        if f(mid)? > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(hi)
}

/// The Rényi divergence of two isotropic Gaussians with the same covariance `σ² I` and means at
/// distance `Δ`: `D_α(N(μ₁,σ²I) ‖ N(μ₂,σ²I)) = α Δ² / (2σ²)` (Gil, Alajaji & Linder 2013; seed
/// 002, Section 6), for α ∈ (0, ∞); `+∞` at α = ∞ when `Δ > 0`.
pub fn gaussian_renyi(alpha: f64, sensitivity: f64, sigma: f64) -> Result<f64> {
    check_positive("σ", sigma)?;
    if alpha.is_nan() || alpha <= 0.0 {
        return Err(Error::AlphaOutOfRange {
            alpha,
            expected: "α ∈ (0, ∞]".into(),
        });
    }
    if check_sensitivity(sensitivity)? {
        return Ok(0.0);
    }
    Ok(alpha * sensitivity * sensitivity / (2.0 * sigma * sigma))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balle_wang_delta_is_monotone_and_calibration_is_tight() {
        let s = calibrate_sigma(10.0, 1.0, 0.005).unwrap();
        let d = balle_wang_delta(10.0, s, 1.0).unwrap();
        assert!(d <= 0.005 && d > 0.005 * (1.0 - 1e-9), "{d}");
        assert!(balle_wang_delta(10.0, s * (1.0 - 1e-9), 1.0).unwrap() > 0.005);
        // the analytic calibration beats the classical σ = Δ√(2 ln(1.25/δ))/ε
        assert!(s < 10.0 * (2.0 * (1.25f64 / 0.005).ln()).sqrt(), "{s}");
    }

    #[test]
    fn gaussian_renyi_bad_input() {
        assert!(gaussian_renyi(0.0, 1.0, 1.0).is_err());
        assert!(gaussian_renyi(2.0, 1.0, 0.0).is_err());
        assert!(calibrate_sigma(1.0, 1.0, 0.0).is_err());
        assert!(balle_wang_delta(1.0, 1.0, f64::NAN).is_err());
        assert_eq!(gaussian_renyi(3.0, 0.0, 1.0).unwrap(), 0.0);
    }
}
