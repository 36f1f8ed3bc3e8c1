//! LAPACK eigensolvers (`zheevd`/`zheevr`, `dsyevd`/`dsyevr`) and the Cholesky test (`zpotrf`) on
//! column-major copies.
//!
//! ndarray-linalg's `eigh` calls the slow `zheev` driver, computes vectors even for `eigvalsh`, and
//! returns conjugated vectors for row-major complex input; calling LAPACK directly avoids all three.
//! The input is copied once into a column-major buffer (reading `a.t()` in logical order gives the
//! column-major layout of `a`), workspace sizes come from a `lwork = -1` query, and the vectors are
//! returned as a column-major (`.f()`) array without a further copy.

use super::backend::EigenSolver;
use crate::error::{Error, Result};
use lapack::c64;
use ndarray::{Array1, Array2, ArrayView2, ShapeBuilder};
use num_complex::Complex64;

/// LAPACK backend; `mrrr` selects `?heevr`/`?syevr` instead of divide and conquer.
pub(crate) struct Lapack {
    pub(crate) mrrr: bool,
}

fn col_major<T: Copy>(a: &ArrayView2<T>) -> Vec<T> {
    a.t().iter().copied().collect()
}

fn lapack_error(routine: &'static str, info: i32) -> Error {
    Error::Eigensolver {
        backend: routine,
        reason: if info < 0 {
            format!("argument {} had an illegal value", -info)
        } else {
            format!("failed to converge (info = {info})")
        },
    }
}

fn dim_i32(n: usize) -> Result<i32> {
    i32::try_from(n)
        .map_err(|_| Error::invalid("dimension", n as f64, "too large for 32-bit LAPACK"))
}

/// `zheevd` with jobz = 'V' or 'N'; returns (values, column-major vectors buffer).
fn zheevd(a: &ArrayView2<Complex64>, vectors: bool) -> Result<(Vec<f64>, Vec<c64>)> {
    let n = dim_i32(a.nrows())?;
    let mut buf = col_major(a);
    let mut w = vec![0.0; a.nrows()];
    if n == 0 {
        return Ok((w, buf));
    }
    let jobz = if vectors { b'V' } else { b'N' };
    let (mut info, mut wq, mut rq, mut iq) = (0, [c64::new(0.0, 0.0)], [0.0f64], [0i32]);
    unsafe {
        lapack::zheevd(
            jobz, b'L', n, &mut buf, n, &mut w, &mut wq, -1, &mut rq, -1, &mut iq, -1, &mut info,
        );
    }
    if info != 0 {
        return Err(lapack_error("zheevd", info));
    }
    let (lw, lr, li) = (wq[0].re as usize, rq[0] as usize, iq[0] as usize);
    let (mut work, mut rwork, mut iwork) = (
        vec![c64::new(0.0, 0.0); lw.max(1)],
        vec![0.0; lr.max(1)],
        vec![0; li.max(1)],
    );
    unsafe {
        lapack::zheevd(
            jobz, b'L', n, &mut buf, n, &mut w, &mut work, lw as i32, &mut rwork, lr as i32,
            &mut iwork, li as i32, &mut info,
        );
    }
    if info != 0 {
        return Err(lapack_error("zheevd", info));
    }
    Ok((w, buf))
}

/// `zheevr` (all eigenvalues) with jobz = 'V' or 'N'.
fn zheevr(a: &ArrayView2<Complex64>, vectors: bool) -> Result<(Vec<f64>, Vec<c64>)> {
    let nu = a.nrows();
    let n = dim_i32(nu)?;
    let mut buf = col_major(a);
    let mut w = vec![0.0; nu];
    let mut z = vec![c64::new(0.0, 0.0); if vectors { nu * nu } else { 1 }];
    if n == 0 {
        return Ok((w, z));
    }
    let jobz = if vectors { b'V' } else { b'N' };
    let ldz = if vectors { n } else { 1 };
    let mut isuppz = vec![0i32; 2 * nu];
    let (mut m, mut info, mut wq, mut rq, mut iq) = (0, 0, [c64::new(0.0, 0.0)], [0.0f64], [0i32]);
    unsafe {
        lapack::zheevr(
            jobz,
            b'A',
            b'L',
            n,
            &mut buf,
            n,
            0.0,
            0.0,
            0,
            0,
            0.0,
            &mut m,
            &mut w,
            &mut z,
            ldz,
            &mut isuppz,
            &mut wq,
            -1,
            &mut rq,
            -1,
            &mut iq,
            -1,
            &mut info,
        );
    }
    if info != 0 {
        return Err(lapack_error("zheevr", info));
    }
    let (lw, lr, li) = (wq[0].re as usize, rq[0] as usize, iq[0] as usize);
    let (mut work, mut rwork, mut iwork) = (
        vec![c64::new(0.0, 0.0); lw.max(1)],
        vec![0.0; lr.max(1)],
        vec![0; li.max(1)],
    );
    unsafe {
        lapack::zheevr(
            jobz,
            b'A',
            b'L',
            n,
            &mut buf,
            n,
            0.0,
            0.0,
            0,
            0,
            0.0,
            &mut m,
            &mut w,
            &mut z,
            ldz,
            &mut isuppz,
            &mut work,
            lw as i32,
            &mut rwork,
            lr as i32,
            &mut iwork,
            li as i32,
            &mut info,
        );
    }
    if info != 0 {
        return Err(lapack_error("zheevr", info));
    }
    Ok((w, z))
}

/// `dsyevd` or `dsyevr` for real symmetric matrices.
fn dsyev(a: &ArrayView2<f64>, vectors: bool, mrrr: bool) -> Result<(Vec<f64>, Vec<f64>)> {
    let nu = a.nrows();
    let n = dim_i32(nu)?;
    let mut buf = col_major(a);
    let mut w = vec![0.0; nu];
    if n == 0 {
        return Ok((w, buf));
    }
    let jobz = if vectors { b'V' } else { b'N' };
    let (mut info, mut wq, mut iq) = (0, [0.0f64], [0i32]);
    if mrrr {
        let ldz = if vectors { n } else { 1 };
        let mut z = vec![0.0; if vectors { nu * nu } else { 1 }];
        let mut isuppz = vec![0i32; 2 * nu];
        let mut m = 0;
        unsafe {
            lapack::dsyevr(
                jobz,
                b'A',
                b'L',
                n,
                &mut buf,
                n,
                0.0,
                0.0,
                0,
                0,
                0.0,
                &mut m,
                &mut w,
                &mut z,
                ldz,
                &mut isuppz,
                &mut wq,
                -1,
                &mut iq,
                -1,
                &mut info,
            );
        }
        if info != 0 {
            return Err(lapack_error("dsyevr", info));
        }
        let (lw, li) = (wq[0] as usize, iq[0] as usize);
        let (mut work, mut iwork) = (vec![0.0; lw.max(1)], vec![0; li.max(1)]);
        unsafe {
            lapack::dsyevr(
                jobz,
                b'A',
                b'L',
                n,
                &mut buf,
                n,
                0.0,
                0.0,
                0,
                0,
                0.0,
                &mut m,
                &mut w,
                &mut z,
                ldz,
                &mut isuppz,
                &mut work,
                lw as i32,
                &mut iwork,
                li as i32,
                &mut info,
            );
        }
        if info != 0 {
            return Err(lapack_error("dsyevr", info));
        }
        return Ok((w, z));
    }
    unsafe {
        lapack::dsyevd(
            jobz, b'L', n, &mut buf, n, &mut w, &mut wq, -1, &mut iq, -1, &mut info,
        );
    }
    if info != 0 {
        return Err(lapack_error("dsyevd", info));
    }
    let (lw, li) = (wq[0] as usize, iq[0] as usize);
    let (mut work, mut iwork) = (vec![0.0; lw.max(1)], vec![0; li.max(1)]);
    unsafe {
        lapack::dsyevd(
            jobz, b'L', n, &mut buf, n, &mut w, &mut work, lw as i32, &mut iwork, li as i32,
            &mut info,
        );
    }
    if info != 0 {
        return Err(lapack_error("dsyevd", info));
    }
    Ok((w, buf))
}

/// `zgesdd` with jobz = 'N': singular values only, descending.
fn zgesdd(a: &ArrayView2<Complex64>) -> Result<Vec<f64>> {
    let (mu, nu) = a.dim();
    let (m, n) = (dim_i32(mu)?, dim_i32(nu)?);
    let k = mu.min(nu);
    let mut s = vec![0.0; k];
    if k == 0 {
        return Ok(s);
    }
    let mut buf = col_major(a);
    let (mut u, mut vt) = ([c64::new(0.0, 0.0)], [c64::new(0.0, 0.0)]);
    let mut iwork = vec![0i32; 8 * k];
    let mut rwork = vec![0.0; 7 * k];
    let (mut info, mut wq) = (0, [c64::new(0.0, 0.0)]);
    unsafe {
        lapack::zgesdd(
            b'N', m, n, &mut buf, m, &mut s, &mut u, 1, &mut vt, 1, &mut wq, -1, &mut rwork,
            &mut iwork, &mut info,
        );
    }
    if info != 0 {
        return Err(lapack_error("zgesdd", info));
    }
    let lw = wq[0].re as usize;
    let mut work = vec![c64::new(0.0, 0.0); lw.max(1)];
    unsafe {
        lapack::zgesdd(
            b'N', m, n, &mut buf, m, &mut s, &mut u, 1, &mut vt, 1, &mut work, lw as i32,
            &mut rwork, &mut iwork, &mut info,
        );
    }
    if info != 0 {
        return Err(lapack_error("zgesdd", info));
    }
    Ok(s)
}

/// `zpotrf` (lower) on `A + shift·I`: `Ok(true)` when the factorisation completes, `Ok(false)` on
/// a non-positive pivot (`info > 0`).
fn zpotrf_succeeds(a: &ArrayView2<Complex64>, shift: f64) -> Result<bool> {
    let nu = a.nrows();
    let n = dim_i32(nu)?;
    // A's rows read as columns are Aᵀ = Ā, Hermitian with A's eigenvalues: positive definite
    // exactly when A is, so the copy can follow memory order instead of transposing
    let mut buf: Vec<c64> = a.iter().copied().collect();
    for i in 0..nu {
        buf[i * nu + i] = c64::new(buf[i * nu + i].re + shift, 0.0);
    }
    let mut info = 0;
    unsafe {
        lapack::zpotrf(b'L', n, &mut buf, n.max(1), &mut info);
    }
    if info < 0 {
        return Err(lapack_error("zpotrf", info));
    }
    Ok(info == 0)
}

fn vectors_from<T>(n: usize, buf: Vec<T>) -> Result<Array2<T>> {
    Array2::from_shape_vec((n, n).f(), buf).map_err(|e| Error::Eigensolver {
        backend: "lapack",
        reason: format!("unexpected output shape: {e}"),
    })
}

impl EigenSolver for Lapack {
    fn name(&self) -> &'static str {
        if self.mrrr {
            "lapack-zheevr"
        } else {
            "lapack-zheevd"
        }
    }
    fn eigh(&self, a: ArrayView2<Complex64>) -> Result<(Array1<f64>, Array2<Complex64>)> {
        let (w, v) = if self.mrrr {
            zheevr(&a, true)?
        } else {
            zheevd(&a, true)?
        };
        Ok((Array1::from(w), vectors_from(a.nrows(), v)?))
    }
    fn eigvalsh(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        let (w, _) = if self.mrrr {
            zheevr(&a, false)?
        } else {
            zheevd(&a, false)?
        };
        Ok(Array1::from(w))
    }
    fn eigh_real(&self, a: ArrayView2<f64>) -> Result<(Array1<f64>, Array2<f64>)> {
        let (w, v) = dsyev(&a, true, self.mrrr)?;
        Ok((Array1::from(w), vectors_from(a.nrows(), v)?))
    }
    fn eigvalsh_real(&self, a: ArrayView2<f64>) -> Result<Array1<f64>> {
        Ok(Array1::from(dsyev(&a, false, self.mrrr)?.0))
    }
    fn singular_values(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        Ok(Array1::from(zgesdd(&a)?))
    }
    fn is_positive_definite(&self, a: ArrayView2<Complex64>, shift: f64) -> Result<bool> {
        zpotrf_succeeds(&a, shift)
    }
}
