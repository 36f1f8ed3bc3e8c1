//! nalgebra's pure-Rust symmetric eigensolver, used as the portable fallback and as an
//! independent cross-check of LAPACK in the tests.
//!
//! `SymmetricEigen::new` can iterate forever on some inputs (nalgebra issue #1025), so we call
//! `try_new` with an iteration cap and turn a `None` into [`Error::Eigensolver`]. Its eigenvalues
//! come unsorted (nalgebra issue #1344): we sort them ascending and permute the vectors alike.

use super::backend::EigenSolver;
use crate::error::{Error, Result};
use nalgebra::{ComplexField, DMatrix, SymmetricEigen};
use ndarray::{Array1, Array2, ArrayView2};
use num_complex::Complex64;

/// The nalgebra backend (no state).
pub(crate) struct Nalgebra;

/// Iteration cap handed to `SymmetricEigen::try_new`: generous (implicit QR needs O(n) sweeps).
fn max_iterations(n: usize) -> usize {
    1000 + 200 * n
}

fn decompose<T>(a: &ArrayView2<T>) -> Result<(Array1<f64>, DMatrix<T>)>
where
    T: ComplexField<RealField = f64> + Copy,
{
    let n = a.nrows();
    let m = DMatrix::from_fn(n, n, |i, j| a[[i, j]]);
    let eig = SymmetricEigen::try_new(m, f64::EPSILON, max_iterations(n)).ok_or_else(|| {
        Error::Eigensolver {
            backend: "nalgebra",
            reason: format!("no convergence within {} iterations", max_iterations(n)),
        }
    })?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| eig.eigenvalues[i].total_cmp(&eig.eigenvalues[j]));
    let values = Array1::from_iter(order.iter().map(|&i| eig.eigenvalues[i]));
    let vectors = DMatrix::from_fn(n, n, |r, c| eig.eigenvectors[(r, order[c])]);
    if values.iter().any(|v| !v.is_finite()) {
        return Err(Error::Eigensolver {
            backend: "nalgebra",
            reason: "non-finite eigenvalue".into(),
        });
    }
    Ok((values, vectors))
}

fn to_ndarray<T: Copy>(m: &DMatrix<T>) -> Array2<T> {
    Array2::from_shape_fn((m.nrows(), m.ncols()), |(i, j)| m[(i, j)])
}

impl EigenSolver for Nalgebra {
    fn name(&self) -> &'static str {
        "nalgebra"
    }
    fn eigh(&self, a: ArrayView2<Complex64>) -> Result<(Array1<f64>, Array2<Complex64>)> {
        let (w, v) = decompose(&a)?;
        Ok((w, to_ndarray(&v)))
    }
    fn eigvalsh(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        Ok(decompose(&a)?.0)
    }
    fn eigh_real(&self, a: ArrayView2<f64>) -> Result<(Array1<f64>, Array2<f64>)> {
        let (w, v) = decompose(&a)?;
        Ok((w, to_ndarray(&v)))
    }
    fn eigvalsh_real(&self, a: ArrayView2<f64>) -> Result<Array1<f64>> {
        Ok(decompose(&a)?.0)
    }
    fn singular_values(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        let (r, c) = a.dim();
        let m = DMatrix::from_fn(r, c, |i, j| a[[i, j]]);
        let svd = nalgebra::SVD::try_new(m, false, false, f64::EPSILON, max_iterations(r.max(c)))
            .ok_or_else(|| Error::Eigensolver {
            backend: "nalgebra",
            reason: format!(
                "SVD: no convergence within {} iterations",
                max_iterations(r.max(c))
            ),
        })?;
        let mut s: Vec<f64> = svd.singular_values.iter().copied().collect();
        s.sort_by(|x, y| y.total_cmp(x));
        Ok(Array1::from(s))
    }
}
