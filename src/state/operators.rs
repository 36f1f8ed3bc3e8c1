//! Matrix helpers on `Array2<Complex64>`: conjugate transpose, Kronecker product, identity and
//! isometry defects.

use super::Tolerance;
use crate::error::{Error, Result};
use ndarray::{s, Array2, ArrayView2};
use num_complex::Complex64;

/// Conjugate transpose `A†`.
pub fn dagger(a: &ArrayView2<Complex64>) -> Array2<Complex64> {
    a.t().mapv(|z| z.conj())
}

/// Largest entrywise deviation `max |A − I|`.
pub(crate) fn identity_defect(a: &Array2<Complex64>) -> f64 {
    a.indexed_iter()
        .map(|((i, j), z)| {
            (z - if i == j {
                Complex64::new(1.0, 0.0)
            } else {
                Complex64::new(0.0, 0.0)
            })
            .norm()
        })
        .fold(0.0, f64::max)
}

/// Kronecker product `A ⊗ B`.
pub fn kron(a: &ArrayView2<Complex64>, b: &ArrayView2<Complex64>) -> Array2<Complex64> {
    let (ar, ac) = a.dim();
    let (br, bc) = b.dim();
    let mut out = Array2::zeros((ar * br, ac * bc));
    for ((i, j), &x) in a.indexed_iter() {
        out.slice_mut(s![i * br..(i + 1) * br, j * bc..(j + 1) * bc])
            .assign(&b.mapv(|y| x * y));
    }
    out
}

/// Check `U†U = I_cols` within tolerance (`U` of shape `rows × cols`, `cols = expected_cols`).
pub(crate) fn check_isometry(u: &ArrayView2<Complex64>, expected_cols: usize) -> Result<()> {
    if u.ncols() != expected_cols {
        return Err(Error::DimensionMismatch {
            what: "operator columns vs state dimension".into(),
            left: u.ncols(),
            right: expected_cols,
        });
    }
    if u.iter().any(|z| !z.re.is_finite() || !z.im.is_finite()) {
        return Err(Error::NonFinite {
            value: "NaN/inf".into(),
            position: "unitary".into(),
        });
    }
    let dev = identity_defect(&dagger(u).dot(u));
    let tol = Tolerance::default().scaled(expected_cols, 1.0);
    if dev > tol {
        return Err(Error::NotUnitary {
            deviation: dev,
            tolerance: tol,
        });
    }
    Ok(())
}
