//! The documented error bound of the quantum divergences (`docs/conventions.md`, "Error bounds").
//!
//! Two parts: the **sensitivity** of the exact value to rounding-level changes of the inputs, and
//! a small multiple of `ε` for the algorithm.
//!
//! *Sensitivity.* A backward-stable eigensolver (and the storage of `ρ`, `σ` as doubles) changes
//! a state by `E`, `‖E‖ ≤ c d ε ‖ρ‖`. On the support this is a relative change
//! `(1−η)ρ ≤ ρ + E ≤ (1+η)ρ` with `η = 16 d ε κ(ρ)`, `κ` the ratio of the largest to the smallest
//! nonzero eigenvalue (and likewise `σ`). Every `Q_α` of the three families is monotone in `ρ` and
//! homogeneous of degree `α` in `ρ` and `1−α` in `σ` (monotone in σ wherever data processing
//! holds: Petz `α ∈ [0, 2]`, sandwiched `α ≥ ½`, maximal `α ∈ (0, 2]`), and `Tr ρ` moves by `η`,
//! so `ln(Q_α/Tr ρ)` moves by at most `(1 + α + |1−α|) η` and `D_α` by
//! `S = (1 + α + |1−α|) η / |α − 1|`. Near α = 1 (where `D_α` tends to the relative entropy,
//! whose sensitivity is `η (2 + ln κ(ρ) + |D|)`) the denominator is replaced by
//! `max(|α − 1|, ¼)` and the numerator multiplied by `1 + |D| + ln κ`. Outside the monotone
//! ranges (sandwiched α < ½, Petz and maximal α > 2) the same expression is used as a model and
//! checked by measurement (`docs/conventions.md`, "Measured accuracy").
//!
//! Petz beyond α = 2 is not monotone in σ; there the Daleckii–Krein bound on the derivative of
//! `σ^{1−α}` (`|f^{[1]}(μ_j, μ_k)| ≤ |1−α| μ_min^{−α}`) gives the extra factor
//! `P = max(1, λ_max^α μ_min^{1−α} / Q_α)` (the largest Nussbaum–Szkoła term against `Q_α`; the same
//! factor bounds the effect of the eigenvector overlaps `|⟨a_i|b_j⟩|²` that vanish exactly).
//!
//! *Algorithm.* `64 d ε (1 + |D|)`: the reductions end in one Rényi mean of `d²` terms
//! (`renyi_mean`), whose rounding is a few ulps per term; small eigenvalues needed to relative
//! accuracy are computed so (graded Jacobi, `spectral::graded_psd_eigen`).

use super::{Family, Pair};
use crate::error::Result;
use crate::spectral::EPS;
use crate::state::DensityMatrix;

/// `κ = λ_max / λ_min⁺` of a state on its support (1 for the zero matrix).
pub fn support_condition(s: &DensityMatrix) -> Result<f64> {
    let e = s.eigen()?;
    let min = e
        .support()
        .iter()
        .map(|&i| e.values()[i])
        .fold(f64::INFINITY, f64::min);
    Ok(if min.is_finite() && min > 0.0 {
        (e.max_value() / min).max(1.0)
    } else {
        1.0
    })
}

/// The documented error bound of `D_α(ρ‖σ)` of `family` (or the relative entropy at α = 1, `D_max`
/// at α = ∞) whose computed value is `value` (module docs): `S + 64 d ε (1 + |D|)`. `+∞` values
/// are exact (support decisions) and get bound 0.
pub fn error_bound(pair: &Pair, family: Family, alpha: f64, value: f64) -> Result<f64> {
    if !value.is_finite() {
        return Ok(0.0);
    }
    let d = pair.rho().dim() as f64;
    let kappa = support_condition(pair.rho())?.max(support_condition(pair.sigma())?);
    let eta = 16.0 * d * EPS * kappa;
    let size = 1.0 + value.abs();
    let algorithm = 64.0 * d * EPS * size;
    let petz_overlap = if family == Family::Petz && alpha > 2.0 && alpha.is_finite() {
        petz_weight(pair, alpha, value)?
    } else {
        1.0
    };
    let sensitivity = if alpha == f64::INFINITY {
        2.0 * eta
    } else {
        let num = 1.0 + alpha + (1.0 - alpha).abs();
        let gap = (alpha - 1.0).abs();
        if gap >= 0.25 {
            num * eta * petz_overlap / gap
        } else {
            num * eta * (size + kappa.ln()) / 0.25
        }
    };
    Ok(sensitivity + algorithm)
}

/// `P = max(1, λ_max(ρ)^α λ_min⁺(σ)^{1−α} / Q_α)` with `Q_α = e^{(α−1)D} Tr ρ` (Petz, α > 2).
fn petz_weight(pair: &Pair, alpha: f64, value: f64) -> Result<f64> {
    let (er, es) = (pair.rho().eigen()?, pair.sigma().eigen()?);
    let smin = es
        .support()
        .iter()
        .map(|&j| es.values()[j])
        .fold(f64::INFINITY, f64::min);
    if !(smin > 0.0 && smin.is_finite()) {
        return Ok(1.0);
    }
    let trace: f64 = er.values().iter().map(|x| x.max(0.0)).sum();
    let top = alpha * er.max_value().ln() + (1.0 - alpha) * smin.ln();
    Ok((top - (alpha - 1.0) * value - trace.ln()).exp().max(1.0))
}
