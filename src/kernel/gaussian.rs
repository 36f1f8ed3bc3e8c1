//! Analytic Gaussian mechanism helpers used by the kernel-auditing experiment.
//!
//! The Gaussian mechanism `M(x) = f(x) + N(0, σ² I_d)` on a query of ℓ₂-sensitivity `Δ`. Only
//! `Δ/σ` matters (rotation invariance). Balle & Wang (ICML 2018, Theorem 8; seed 002, Section 6):
//! `M` is (ε,δ)-DP iff `δ ≥ δ_{Δ,σ}(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)`.
//!
//! The characterisation and the calibration live in one place,
//! [`crate::privacy::mechanisms::Gaussian`] (outward-rounded: the returned δ is never below the
//! exact value, the calibrated σ always satisfies the target); these functions are views of it in
//! the `(Δ, σ, ε)` argument order of the experiment, extended to `Δ = 0` (identical outputs).

use crate::error::{Error, Result};
use crate::privacy::mechanisms::{Gaussian, Mechanism};

fn check_positive(name: &str, x: f64) -> Result<()> {
    if x > 0.0 && x.is_finite() {
        Ok(())
    } else {
        Err(Error::invalid(name, x, "must be finite and > 0"))
    }
}

/// `true` when `Δ = 0` (the mechanism's outputs coincide); error unless `Δ` is finite and `≥ 0`.
fn zero_sensitivity(sensitivity: f64) -> Result<bool> {
    if sensitivity == 0.0 {
        Ok(true)
    } else if sensitivity > 0.0 && sensitivity.is_finite() {
        Ok(false)
    } else {
        Err(Error::invalid(
            "sensitivity Δ",
            sensitivity,
            "must be finite and ≥ 0",
        ))
    }
}

/// The exact privacy profile of the Gaussian mechanism (Balle & Wang 2018, Theorem 8):
/// `δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)`, rounded up; `Δ = 0` gives 0.
pub fn balle_wang_delta(sensitivity: f64, sigma: f64, epsilon: f64) -> Result<f64> {
    check_positive("σ", sigma)?;
    if !(epsilon >= 0.0 && epsilon.is_finite()) {
        return Err(Error::invalid("ε", epsilon, "must be finite and ≥ 0"));
    }
    if zero_sensitivity(sensitivity)? {
        return Ok(0.0);
    }
    Gaussian::new(sigma, sensitivity)?.delta(epsilon)
}

/// The smallest noise `σ` for which the Gaussian mechanism of sensitivity `Δ > 0` is (ε,δ)-DP
/// under [`balle_wang_delta`] (Balle & Wang's analytic calibration), from the safe side
/// (`δ(σ) ≤ δ` holds for the returned σ); see [`Gaussian::calibrate`].
pub fn calibrate_sigma(sensitivity: f64, epsilon: f64, delta: f64) -> Result<f64> {
    check_positive("sensitivity Δ", sensitivity)?;
    if !(delta > 0.0 && delta < 1.0) {
        return Err(Error::invalid("δ", delta, "must lie in (0, 1)"));
    }
    Ok(Gaussian::calibrate(epsilon, delta, sensitivity)?.sigma)
}

/// The Rényi divergence of two isotropic Gaussians with the same covariance `σ² I` and means at
/// distance `Δ`: `D_α(N(μ₁,σ²I) ‖ N(μ₂,σ²I)) = α Δ² / (2σ²)` (Gil, Alajaji & Linder 2013; seed
/// 002, Section 6), for α ∈ (0, ∞); `+∞` at α = ∞ when `Δ > 0`; 0 when `Δ = 0`.
pub fn gaussian_renyi(alpha: f64, sensitivity: f64, sigma: f64) -> Result<f64> {
    check_positive("σ", sigma)?;
    crate::order::Order::new(
        alpha,
        crate::order::OrderRange::Positive,
        "the Gaussian Rényi divergence",
    )?;
    if zero_sensitivity(sensitivity)? {
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
        assert_eq!(balle_wang_delta(0.0, 1.0, 0.5).unwrap(), 0.0);
        assert!(balle_wang_delta(1.0, 1.0, f64::NAN).is_err());
    }
}
