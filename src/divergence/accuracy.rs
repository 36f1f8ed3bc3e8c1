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
//! *Support rotation* (sandwiched, α < ½, rank-deficient ρ). A rounding-level change of a
//! rank-deficient ρ also *rotates* its support (Davis–Kahan: by an angle up to
//! `θ = √2·16 d ε λ_max / (λ_min⁺ − τ)`), which is not a relative change on the support. Below
//! α = ½ the weights `μ^{(1−α)/2α}` of σ's eigenvalues grade the eigenvalues `ν_k` of
//! `σ^{γ/2}ρσ^{γ/2}` by factors `e^{hundreds}`, so a rotation of size `θ` towards σ's large
//! eigenvalues can raise a tiny `ν_k` by many orders of magnitude, and `ν_k^α` by O(1): the value
//! is then ill-conditioned in its input. [`support_rotation`] measures this by re-evaluating at
//! rotated supports (docs/conventions.md, "Support rotation").
//!
//! *Algorithm.* `64 d ε (1 + |D|)`: the reductions end in one Rényi mean of `d²` terms
//! (`renyi_mean`), whose rounding is a few ulps per term; small eigenvalues needed to relative
//! accuracy are computed so (graded Jacobi, `spectral::graded_psd_eigen`). This presumes that no
//! intermediate much larger than `1 + |D| + ln κ` cancels: sandwiched α < ½ ends in one log-sum of
//! `ln ν_k^α` (`docs/divergences.md`, "log_sum_below_half": `≤ 20 d ε (1 + |D|) + 12 ε ln κ`), not
//! in two Rényi means of size `|ln μ|/α` (which lost `ε |ln μ|/α`, beyond this part as α → 0).

use super::{Family, Pair};
use crate::error::Result;
use crate::spectral::EPS;
use crate::state::DensityMatrix;
use ndarray::Array2;
use num_complex::Complex64;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
/// `γ_m = mε/(1 − mε)` (Higham's constant for `m` roundings; `m ε < 1`).
pub(crate) fn gamma(m: f64) -> f64 {
    m * EPS / (1.0 - m * EPS)
}

/// The componentwise backward-error constant of a complex Cholesky factorisation or of a
/// complex inner product of length `d`: `√2·γ_{d+2}` — Higham's Thm. 10.3 (`γ_{d+1}`) is stated
/// for real arithmetic; a complex product carries `√2γ₂` (Higham, Lemma 3.5), so
/// `|L̂L̂† − A| ≤ √2γ_{d+2}|L̂||L̂|†` and `|fl(Σ a_k b_k) − Σ a_k b_k| ≤ √2γ_{d+2} Σ|a_k||b_k|`.
pub(crate) fn complex_backward(d: usize) -> f64 {
    std::f64::consts::SQRT_2 * gamma(d as f64 + 2.0)
}

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
    let d = pair.rho().dim();
    let kappa = support_condition(pair.rho())?.max(support_condition(pair.sigma())?);
    let petz_overlap = if family == Family::Petz && alpha > 2.0 && alpha.is_finite() {
        petz_weight(pair, alpha, value)?
    } else {
        1.0
    };
    let rotation = if family == Family::Sandwiched {
        support_rotation(pair, alpha, value)?
    } else {
        0.0
    };
    Ok(documented_bound(d, kappa, alpha, value, petz_overlap) + rotation)
}

/// The sensitivity and algorithmic parts of [`error_bound`] (everything but the support-rotation
/// term) for dimension `d`, condition number `kappa = max(κ(ρ), κ(σ))` and the Petz factor
/// `petz_overlap` (1 elsewhere): increasing in `kappa`, so a lower bound of κ gives a lower bound
/// of the documented bound (the whitened maximal route's decision, `whitened.rs`). `+∞` values
/// get 0.
pub fn documented_bound(d: usize, kappa: f64, alpha: f64, value: f64, petz_overlap: f64) -> f64 {
    if !value.is_finite() {
        return 0.0;
    }
    let d = d as f64;
    let eta = 16.0 * d * EPS * kappa;
    let size = 1.0 + value.abs();
    let algorithm = 64.0 * d * EPS * size;
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
    sensitivity + algorithm
}

/// Rotated supports evaluated by [`support_rotation`].
const ROTATION_SAMPLES: u64 = 3;
/// Factor on the largest change observed at a rotated support.
const ROTATION_SAFETY: f64 = 4.0;

/// Sensitivity of the sandwiched `D̃_α(ρ‖σ)` (α < ½, computed value `value`) to a rounding-level
/// rotation of `supp ρ`, for rank-deficient ρ (module docs; 0 for full-rank ρ or α ≥ ½, `+∞` when
/// the support itself is undecidable: `λ_min⁺ − τ ≤ 16 d ε λ_max`).
///
/// With `ρ = U Λ U†` on its support, `K` an orthonormal basis of its kernel and `X` a
/// `(d − r) × r` Gaussian matrix scaled to Frobenius norm `θ = √2·16 d ε λ_max/(λ_min⁺ − τ)` (the
/// Davis–Kahan angle of a perturbation of size `16 d ε λ_max`), the rotated state
/// `ρ̂ = (U + K X) Λ (U + K X)†` has the same spectrum up to `O(θ²)`; the estimate is
/// `4·max |D̃_α(ρ̂‖σ) − value|` over three seeded draws. This is statistical condition estimation
/// (Kenney & Laub, SIAM J. Sci. Comput. 15 (1994)): a generic rotation raises the tiny graded
/// eigenvalues as much as the worst one up to a modest factor. Cost: three evaluations of
/// `D̃_α`, `O(d³)` each.
pub fn support_rotation(pair: &Pair, alpha: f64, value: f64) -> Result<f64> {
    let rho = pair.rho();
    let e = rho.eigen()?;
    let (support, kernel) = (e.support(), e.kernel());
    if alpha >= 0.5
        || alpha.is_nan()
        || !value.is_finite()
        || kernel.is_empty()
        || support.is_empty()
    {
        return Ok(0.0);
    }
    let d = rho.dim();
    let lmin = support
        .iter()
        .map(|&i| e.values()[i])
        .fold(f64::INFINITY, f64::min);
    let delta = 16.0 * d as f64 * EPS * e.max_value();
    let gap = lmin - e.threshold() - delta;
    if gap.is_nan() || gap <= 0.0 {
        return Ok(f64::INFINITY);
    }
    let theta = std::f64::consts::SQRT_2 * delta / gap;
    let (u, v) = (e.vectors(), e.values());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x726f_7461_7465 ^ d as u64);
    let mut worst = 0.0f64;
    for _ in 0..ROTATION_SAMPLES {
        let mut x = Array2::from_shape_fn((kernel.len(), support.len()), |_| {
            let re: f64 = StandardNormal.sample(&mut rng);
            let im: f64 = StandardNormal.sample(&mut rng);
            Complex64::new(re, im)
        });
        let norm = x.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        x.mapv_inplace(|z| z * (theta / norm));
        // B = (U + K X) Λ^{1/2}, ρ̂ = B B†
        let b = Array2::from_shape_fn((d, support.len()), |(i, c)| {
            let rotated = u[[i, support[c]]]
                + kernel
                    .iter()
                    .enumerate()
                    .map(|(k, &j)| u[[i, j]] * x[[k, c]])
                    .sum::<Complex64>();
            rotated * v[support[c]].sqrt()
        });
        let mut h = b.dot(&b.t().mapv(|z| z.conj()));
        for i in 0..d {
            for j in 0..i {
                let m = 0.5 * (h[[i, j]] + h[[j, i]].conj());
                h[[i, j]] = m;
                h[[j, i]] = m.conj();
            }
            h[[i, i]] = Complex64::new(h[[i, i]].re, 0.0);
        }
        let rotated = DensityMatrix::from_validated(h, rho.backend());
        let moved = Pair::new(&rotated, pair.sigma())?.renyi(Family::Sandwiched, alpha)?;
        worst = worst.max((moved - value).abs());
    }
    Ok(ROTATION_SAFETY * worst)
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
