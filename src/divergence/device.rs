//! Device-resident steps of a [`Pair`](super::Pair) on the GPU (feature `cuda`): the overlap
//! `W = V_σ† V_ρ`, `ρ' = V_σ† ρ V_σ` kept in GPU memory, and the per-order sandwiched spectra
//! computed from it, so that an α-curve copies only its spectra back (module `spectral::cuda`).
//!
//! The same arithmetic as the CPU path (one `zgemm`, one `zdgmm` + `zherk`, per order two
//! `zdgmm` + a values-only `zheevd`), with the same zero thresholds applied on the host afterwards.
//! Without the `cuda` feature, or when the pair's backend does not put dimension `d` on the GPU,
//! every function answers `None` and the pair takes its CPU path.

use crate::error::Result;
use crate::spectral::Backend;
use ndarray::{Array1, Array2, ArrayView2};
use num_complex::Complex64;
use std::cell::OnceCell;

#[cfg(feature = "cuda")]
pub(crate) use crate::spectral::cuda::DeviceMatrix;

/// Stand-in without the `cuda` feature (never constructed).
#[cfg(not(feature = "cuda"))]
pub(crate) struct DeviceMatrix;

/// The device copies a pair keeps: `W` and `ρ'`.
#[derive(Default)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct DeviceCache {
    w: OnceCell<DeviceMatrix>,
    rho: OnceCell<DeviceMatrix>,
}

impl DeviceCache {
    /// `W = V_σ† V_ρ` on the GPU (kept there) when `backend` runs dimension `d` on it.
    #[allow(unused_variables)]
    pub(crate) fn overlap(
        &self,
        backend: Backend,
        v_sigma: &ArrayView2<Complex64>,
        v_rho: &ArrayView2<Complex64>,
    ) -> Result<Option<Array2<Complex64>>> {
        #[cfg(feature = "cuda")]
        if backend.uses_gpu(v_sigma.nrows()) {
            let (w, dev) = crate::spectral::cuda::overlap(v_sigma, v_rho)?;
            let _ = self.w.set(dev);
            return Ok(Some(w));
        }
        Ok(None)
    }

    /// `ρ' = (W diag(√λ))(W diag(√λ))†` on the GPU (kept there) when `W` is there.
    #[allow(unused_variables)]
    pub(crate) fn rho_in_basis(&self, sqrt_lambda: &[f64]) -> Result<Option<Array2<Complex64>>> {
        #[cfg(feature = "cuda")]
        if let Some(w) = self.w.get() {
            let (rho, dev) = crate::spectral::cuda::gram_of_scaled(w, sqrt_lambda)?;
            let _ = self.rho.set(dev);
            return Ok(Some(rho));
        }
        Ok(None)
    }

    /// The device `ρ'`, if the pair computed it on the GPU.
    pub(crate) fn rho(&self) -> Option<&DeviceMatrix> {
        self.rho.get()
    }
}

/// Ascending eigenvalues of `D ρ'_ss D` (`D = diag(scale)`, `s` the support of σ) from the device
/// `ρ'`; `None` when `s` is not the trailing index range (then the caller solves on the host).
#[allow(unused_variables)]
pub(crate) fn scaled_block_eigvalsh(
    rho: &DeviceMatrix,
    s: &[usize],
    scale: &[f64],
) -> Option<Result<Array1<f64>>> {
    #[cfg(feature = "cuda")]
    {
        let d = rho.dim();
        let k0 = d - s.len();
        // σ's eigenvalues are ascending, so its kernel (values ≤ τ) is a prefix and its support
        // the trailing block; anything else falls back to the host
        if s.iter().enumerate().all(|(i, &j)| j == k0 + i) {
            return Some(crate::spectral::cuda::scaled_block_eigvalsh(rho, k0, scale));
        }
    }
    None
}

/// Sandwiched `D̃_α(ρ‖σ)` at the orders `alphas`, straight from two raw matrices: validation as
/// [`DensityMatrix::with_options`](crate::state::DensityMatrix::with_options) with `tol`, then the
/// values — what `DensityMatrix` ×2 + [`Pair::curve`](super::Pair::curve) compute, for one call.
///
/// When `backend` runs dimension `d` on the GPU and every order is a finite `α > 1`, ρ is never
/// decomposed: with `σ = V diag(μ) V†` (one `zheevd` with vectors, on the device) and
/// `ρ' = V†ρV` (two `zgemm`), and when σ has full rank (`μ_min > τ = 16 d ε μ_max`, so
/// `supp ρ ⊆ supp σ`),
///
/// `D̃_α = R_α({ρ'_jj}, {−ln μ_j / α}) + R_α({ν_k / Σν}, {ln ν_k + c})`,
///
/// `ν_k` the eigenvalues of `D ρ' D`, `D = diag(e^{(γ ln μ_j − c)/2})`, `γ = (1−α)/α`,
/// `c = max_j γ ln μ_j` (the decomposition of the CPU path, docs/divergences.md; ν > 0 kept —
/// for α > 1 the `O(dε‖A‖)` noise of a rank-deficient ρ enters `Σν^α` as `ν^α`). One
/// values-only `zheevd` per order; copies: ρ and σ up, `O(d)` numbers per order down. On this
/// route validation runs on the GPU too: the Hermiticity, finiteness and trace statistics of each
/// raw matrix are computed there with the host's operations (so the accept/reject decision is the
/// host's; a rejected or non-finite input is re-validated on the host, which reports the exact
/// error), the PSD check of ρ is a Cholesky factorisation of `ρ + t·I` on the device copy
/// (eigenvalues only if it fails), σ's comes from its eigenvalues; ρ's upload, check and
/// factorisation overlap σ's decomposition (a second stream). Any other case (orders `≤ 1` or `∞` — α < 1 keeps the
/// pair's relative-accurate SVD route —, a rank-deficient σ, no GPU for this `d`) validates both
/// states and evaluates a [`Pair`](super::Pair).
///
/// Errors: those of validation and of [`Family::check_alpha`](super::Family::check_alpha),
/// [`Error::DimensionMismatch`](crate::Error::DimensionMismatch).
pub fn sandwiched_from_matrices(
    rho: Array2<Complex64>,
    sigma: Array2<Complex64>,
    alphas: &[f64],
    tol: crate::state::Tolerance,
    backend: Backend,
) -> Result<Vec<f64>> {
    use crate::state::density::hermitian_unit_trace;
    use crate::state::DensityMatrix;
    for &a in alphas {
        super::Family::Sandwiched.check_alpha(a)?;
    }
    let direct = !alphas.is_empty() && alphas.iter().all(|&a| a > 1.0 && a.is_finite());
    #[cfg(feature = "cuda")]
    if direct
        && tol.check().is_ok()
        && rho.is_square()
        && rho.dim() == sigma.dim()
        && !rho.is_empty()
        && backend.uses_gpu(rho.nrows())
    {
        if let Some(values) = sandwiched_on_device(&rho, &sigma, alphas, tol, backend)? {
            return Ok(values);
        }
    }
    let (mut rho, mut sigma) = (rho, sigma);
    let t_rho = hermitian_unit_trace(&mut rho, tol)?;
    let t_sigma = hermitian_unit_trace(&mut sigma, tol)?;
    if rho.dim() != sigma.dim() {
        return Err(crate::Error::DimensionMismatch {
            what: "ρ vs σ".into(),
            left: rho.nrows(),
            right: sigma.nrows(),
        });
    }
    // σ is decomposed by every sandwiched order, ρ only outside the direct route (orders > 1):
    // a state decomposed anyway is checked from its eigenvalues
    let r = if direct {
        DensityMatrix::psd_by_cholesky(rho, t_rho, backend)?
    } else {
        DensityMatrix::psd_from_eigen(rho, t_rho, backend)?
    };
    let s = DensityMatrix::psd_from_eigen(sigma, t_sigma, backend)?;
    super::Pair::new(&r, &s)?.curve(super::Family::Sandwiched, alphas)
}

/// The device route of [`sandwiched_from_matrices`] on the raw matrices (validated on the GPU);
/// `None` when the host must take over: a matrix the device checks reject or cannot judge (the
/// host validation then reports the exact error), or a rank-deficient σ (the pair route).
#[cfg(feature = "cuda")]
fn sandwiched_on_device(
    rho: &Array2<Complex64>,
    sigma: &Array2<Complex64>,
    alphas: &[f64],
    tol: crate::state::Tolerance,
    backend: Backend,
) -> Result<Option<Vec<f64>>> {
    use crate::state::density::{
        hermitian_unit_trace, negative_eigenvalue_check, reject_negative_eigenvalue,
    };
    let d = rho.nrows();
    let shifts = std::cell::RefCell::new(Vec::new());
    let accept = |c: &crate::spectral::cuda::DeviceCheck| {
        let t = tol.scaled(d, c.norm);
        (c.deviation <= t && (c.trace - 1.0).abs() <= t).then_some(t)
    };
    let spectra = crate::spectral::cuda::sandwiched_spectra(
        &rho.view(),
        &sigma.view(),
        accept,
        |mu: &[f64]| {
            let (min, max) = (mu.first().copied()?, mu.last().copied()?);
            if min <= crate::spectral::zero_threshold(d, max) {
                return None;
            }
            let mut cs = shifts.borrow_mut();
            Some(
                alphas
                    .iter()
                    .map(|&a| {
                        let (scale, c) = order_scale(mu, a);
                        cs.push(c);
                        scale
                    })
                    .collect(),
            )
        },
    )?;
    let Some(spectra) = spectra else {
        return Ok(None);
    };
    let (t_rho, t_sigma) = spectra.tolerances;
    if !spectra.rho_shifted_cholesky {
        // rare: the eigenvalues decide, on the host's symmetrised copy
        let mut r = rho.clone();
        hermitian_unit_trace(&mut r, tol)?;
        reject_negative_eigenvalue(&r, t_rho, backend)?;
    }
    negative_eigenvalue_check(
        spectra.sigma_values.first().copied().unwrap_or(0.0),
        t_sigma,
    )?;
    if spectra.scaled.is_empty() {
        return Ok(None);
    }
    let mu = &spectra.sigma_values;
    let values = alphas
        .iter()
        .zip(&spectra.scaled)
        .zip(shifts.borrow().iter())
        .map(|((&alpha, nu), &c)| {
            sandwiched_value(
                alpha,
                mu,
                &spectra.rho_diagonal,
                nu.as_slice().unwrap_or(&[]),
                c,
            )
        })
        .collect();
    Ok(Some(values))
}

/// The scales `D = diag(e^{(γ ln μ_j − c)/2})` of order α (`γ = (1−α)/α`) for σ's eigenvalues `μ`
/// (all positive), with `c = max_j γ ln μ_j` (so that the largest scale is 1 and none underflows
/// before its time).
#[cfg(feature = "cuda")]
pub(super) fn order_scale(mu: &[f64], alpha: f64) -> (Vec<f64>, f64) {
    let gamma = (1.0 - alpha) / alpha;
    let logs: Vec<f64> = mu.iter().map(|m| gamma * m.ln()).collect();
    let c = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (logs.iter().map(|l| (0.5 * (l - c)).exp()).collect(), c)
}

/// `D̃_α = R_α({ρ'_jj}, {−ln μ_j/α}) + R_α({ν_k/Σν}, {ln ν_k + c})` for a full-rank σ (eigenvalues
/// `μ`), the diagonal of `ρ' = V†ρV` and the eigenvalues `ν` of `Dρ'D` ([`order_scale`]), α > 1.
#[cfg(feature = "cuda")]
pub(super) fn sandwiched_value(
    alpha: f64,
    mu: &[f64],
    rho_diag: &[f64],
    nu: &[f64],
    c: f64,
) -> f64 {
    use super::{quantum::normalized, renyi_mean};
    let diag: Vec<(f64, f64)> = rho_diag
        .iter()
        .zip(mu)
        .map(|(&r, &m)| (r.max(0.0), -m.ln() / alpha))
        .collect();
    let kept: Vec<f64> = nu.iter().copied().filter(|&x| x > 0.0).collect();
    let total: f64 = kept.iter().sum();
    if kept.is_empty() || total <= 0.0 {
        return f64::INFINITY;
    }
    let spec: Vec<(f64, f64)> = kept.iter().map(|&x| (x / total, x.ln() + c)).collect();
    renyi_mean(&normalized(diag), alpha) + renyi_mean(&spec, alpha)
}
