//! faer's pure-Rust eigensolvers (Sarah El Kazdadi's `faer` crate): a blocked divide-and-conquer
//! Hermitian eigensolver with SIMD kernels, faster than the system OpenBLAS's `zheevd` for large
//! matrices on the reference machine (docs/PERFORMANCE.md, "faer").
//!
//! Thread policy: faer parallelises with rayon according to its global setting;
//! [`super::with_single_blas_thread`] switches it to sequential inside qrenyi's own rayon sections,
//! like OpenBLAS.

use super::backend::EigenSolver;
use crate::error::{Error, Result};
use faer::traits::ComplexField;
use faer::{Mat, Side};
use ndarray::{Array1, Array2, ArrayView2, ShapeBuilder};
use num_complex::Complex64;

/// The faer backend (no state).
pub(crate) struct Faer;

fn to_faer<T: Copy>(a: &ArrayView2<T>) -> Mat<T> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]])
}

fn failure(reason: impl std::fmt::Debug) -> Error {
    Error::Eigensolver {
        backend: "faer",
        reason: format!("{reason:?}"),
    }
}

/// Ascending eigenvalues, checked finite.
fn finite(values: Vec<f64>) -> Result<Array1<f64>> {
    if values.iter().any(|v| !v.is_finite()) {
        return Err(failure("non-finite eigenvalue"));
    }
    Ok(Array1::from(values))
}

fn eigh<T: ComplexField<Real = f64> + Copy>(a: &ArrayView2<T>) -> Result<(Array1<f64>, Array2<T>)> {
    let evd = to_faer(a)
        .self_adjoint_eigen(Side::Lower)
        .map_err(failure)?;
    let n = a.nrows();
    let (s, u) = (evd.S().column_vector(), evd.U());
    let values = finite((0..n).map(|i| T::real_part_impl(&s[i])).collect())?;
    let vectors = Array2::from_shape_fn((n, n).f(), |(i, j)| u[(i, j)]);
    Ok((values, vectors))
}

fn eigvalsh<T: ComplexField<Real = f64> + Copy>(a: &ArrayView2<T>) -> Result<Array1<f64>> {
    finite(
        to_faer(a)
            .self_adjoint_eigenvalues(Side::Lower)
            .map_err(failure)?,
    )
}

impl EigenSolver for Faer {
    fn name(&self) -> &'static str {
        "faer"
    }
    fn eigh(&self, a: ArrayView2<Complex64>) -> Result<(Array1<f64>, Array2<Complex64>)> {
        eigh(&a)
    }
    fn eigvalsh(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        eigvalsh(&a)
    }
    fn eigh_real(&self, a: ArrayView2<f64>) -> Result<(Array1<f64>, Array2<f64>)> {
        eigh(&a)
    }
    fn eigvalsh_real(&self, a: ArrayView2<f64>) -> Result<Array1<f64>> {
        eigvalsh(&a)
    }
    fn singular_values(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        finite(to_faer(&a).singular_values().map_err(failure)?)
    }
    /// faer's `llt` (lower): its only failure is a non-positive (real) pivot.
    fn is_positive_definite(&self, a: ArrayView2<Complex64>, shift: f64) -> Result<bool> {
        let n = a.nrows();
        let m = Mat::from_fn(n, n, |i, j| {
            if i == j {
                Complex64::new(a[[i, i]].re + shift, 0.0)
            } else {
                a[[i, j]]
            }
        });
        Ok(m.llt(Side::Lower).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faer_cholesky_decides_definiteness_of_complex_hermitian() {
        // eigenvalues −1 and 3
        let a = ndarray::arr2(&[
            [Complex64::new(1.0, 0.0), Complex64::new(0.0, 2.0)],
            [Complex64::new(0.0, -2.0), Complex64::new(1.0, 0.0)],
        ]);
        assert!(!Faer.is_positive_definite(a.view(), 0.99).unwrap());
        assert!(Faer.is_positive_definite(a.view(), 1.01).unwrap());
    }
}
