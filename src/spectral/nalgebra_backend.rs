//! nalgebra's pure-Rust symmetric eigensolver, used as the portable fallback and as an
//! independent cross-check of LAPACK in the tests.
//!
//! `SymmetricEigen::new` can iterate forever on some inputs (nalgebra issue #1025), so we call
//! `try_new` with an iteration cap and turn a `None` into [`Error::Eigensolver`]. Its eigenvalues
//! come unsorted (nalgebra issue #1344): we sort them ascending and permute the vectors alike.
//!
//! `Cholesky::new` alone does not decide definiteness for complex matrices: it fails only on a zero
//! pivot and takes the complex square root of any other (simba's `ComplexField::try_sqrt` for
//! `Complex` always succeeds, through polar form, so even `√−x` has a real part of order `ε√x`).
//! [`Nalgebra::is_positive_definite`] therefore reads each pivot `v_j` back from the factor's
//! diagonal `l_jj = √v_j` and requires `Re v_j = Re l_jj² > 0`, i.e. `Re l_jj > |Im l_jj|`; a
//! factor's diagonal entry is final once written, so a failed pivot stays visible.
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

/// Eigenvalues ascending and, when `vectors`, the eigenvectors permuted alike (copied once, straight
/// into an ndarray).
fn decompose<T>(a: &ArrayView2<T>, vectors: bool) -> Result<(Array1<f64>, Option<Array2<T>>)>
where
    T: ComplexField<RealField = f64> + Copy,
{
    let n = a.nrows();
    if n == 0 {
        // nalgebra's tridiagonalisation panics on an empty matrix: no eigenvalues, no vectors
        let empty = || Array2::from_shape_fn((0, 0), |(i, j)| a[[i, j]]);
        return Ok((Array1::zeros(0), vectors.then(empty)));
    }
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
    if values.iter().any(|v| !v.is_finite()) {
        return Err(Error::Eigensolver {
            backend: "nalgebra",
            reason: "non-finite eigenvalue".into(),
        });
    }
    let vecs =
        vectors.then(|| Array2::from_shape_fn((n, n), |(r, c)| eig.eigenvectors[(r, order[c])]));
    Ok((values, vecs))
}

/// The vectors [`decompose`] was asked for (`vectors = true` always returns them).
fn with_vectors<T>(out: (Array1<f64>, Option<Array2<T>>)) -> Result<(Array1<f64>, Array2<T>)> {
    match out {
        (w, Some(v)) => Ok((w, v)),
        (_, None) => Err(Error::Eigensolver {
            backend: "nalgebra",
            reason: "eigenvectors missing".into(),
        }),
    }
}

impl EigenSolver for Nalgebra {
    fn name(&self) -> &'static str {
        "nalgebra"
    }
    fn eigh(&self, a: ArrayView2<Complex64>) -> Result<(Array1<f64>, Array2<Complex64>)> {
        with_vectors(decompose(&a, true)?)
    }
    fn eigvalsh(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        Ok(decompose(&a, false)?.0)
    }
    fn eigh_real(&self, a: ArrayView2<f64>) -> Result<(Array1<f64>, Array2<f64>)> {
        with_vectors(decompose(&a, true)?)
    }
    fn eigvalsh_real(&self, a: ArrayView2<f64>) -> Result<Array1<f64>> {
        Ok(decompose(&a, false)?.0)
    }
    fn singular_values(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        let (r, c) = a.dim();
        if r.min(c) == 0 {
            return Ok(Array1::zeros(0));
        }
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
    fn is_positive_definite(&self, a: ArrayView2<Complex64>, shift: f64) -> Result<bool> {
        let n = a.nrows();
        // Hermitian input: read the lower triangle, mirror it (the diagonal's imaginary part is
        // dropped, as for an exactly Hermitian matrix), shift the diagonal.
        let m = DMatrix::from_fn(n, n, |i, j| match i.cmp(&j) {
            std::cmp::Ordering::Greater => a[[i, j]],
            std::cmp::Ordering::Less => a[[j, i]].conj(),
            std::cmp::Ordering::Equal => Complex64::new(a[[i, i]].re + shift, 0.0),
        });
        // every pivot v_j = l_jj² must have a positive real part (module docs); NaN fails too
        Ok(nalgebra::Cholesky::new(m)
            .is_some_and(|c| c.l_dirty().diagonal().iter().all(|z| z.re > z.im.abs())))
    }
}
