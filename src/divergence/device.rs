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
