//! Real symmetric eigensolvers and the rank-`m` update of the kernel estimator, in place on the
//! Gram blocks' own buffers (derivation and measurements: `docs/kernel.md`, section "cost").
//!
//! A real symmetric matrix stored row-major is, read column-major, its own transpose, i.e. the same
//! matrix: LAPACK can work on an owned `Array2`'s buffer without the column-major copy that
//! [`crate::spectral::Backend`] makes. The logical lower triangle is mirrored onto the upper one
//! first (`O(n²)` copies), so that `uplo = 'L'` sees exactly the matrix those copying wrappers
//! build — the same numbers from the same driver.
//!
//! * [`eigh_in_place`]: `dsyevd` (divide and conquer) with vectors; the vectors overwrite the input.
//! * [`eigvalsh_in_place`]: values only; the two-stage reduction `dsyevd_2stage` from
//!   [`TWO_STAGE_FROM`] on (full → band by BLAS-3 blocks, then band → tridiagonal in cache), the
//!   one-stage `dsyevd` below, where the matrix fits in cache and its BLAS-2 half is cheap.
//! * [`sandwich_in_place`]: `a·K + b·W Wᵀ` with `W = C diag(s)`, by `dsyrk` rank-`k` updates of
//!   one triangle over column blocks of `C` (half the flops of a gemm, `n·k` extra memory).

use crate::error::{Error, Result};
use crate::spectral::lapack::{dim_i32, lapack_error};
use ndarray::{s, Array1, Array2, ArrayView2, ShapeBuilder};

/// From this dimension on, values-only solves use the two-stage reduction (`dsyevd_2stage`).
///
/// Measured on the reference machine (one OpenBLAS 0.3.21 thread, CPU time, RBF Gram matrices,
/// `docs/kernel.md` § cost): one-stage `dsyevd` is 1.3× faster at 1000 (the matrix fits in the
/// 32 MiB L3 cache, where its memory-bound `dsymv` half is cheap), the two tie at 2000, and the
/// two-stage reduction is 1.8× faster at 4000.
pub const TWO_STAGE_FROM: usize = 2048;

/// Columns of `C` per `dsyrk` update in [`sandwich_in_place`] (the scaled block is `n × 256`).
const UPDATE_BLOCK: usize = 256;

fn work_len(routine: &'static str, q: f64) -> Result<usize> {
    if q.is_finite() && q >= 1.0 && q < i32::MAX as f64 {
        Ok(q as usize)
    } else {
        Err(Error::Eigensolver {
            backend: routine,
            reason: format!("workspace query returned {q}"),
        })
    }
}

/// The column-major buffer of a square matrix whose lower triangle is the logical lower triangle
/// of `a`, for `uplo = 'L'`: a column-major `a` as it is; a row-major one (read column-major, its
/// transpose) after copying its logical lower triangle over the upper one, so that LAPACK sees
/// exactly the matrix the copying wrappers of [`crate::spectral`] build (and computes the same
/// numbers); any other layout is copied first.
fn into_buffer(a: Array2<f64>) -> Vec<f64> {
    let n = a.nrows();
    let column_major = !a.is_standard_layout() && a.t().is_standard_layout();
    let mut a = if a.is_standard_layout() || column_major {
        a
    } else {
        a.as_standard_layout().into_owned()
    };
    if !column_major {
        for i in 0..n {
            for j in 0..i {
                a[[j, i]] = a[[i, j]];
            }
        }
    }
    let (buf, offset) = a.into_raw_vec_and_offset();
    debug_assert!(offset.unwrap_or(0) == 0);
    buf
}

/// Which LAPACK driver a values-only or full solve uses.
#[derive(Clone, Copy)]
enum Driver {
    OneStage,
    TwoStage,
}

/// `?syevd` on `buf` (`n × n`, column-major, lower triangle read): eigenvalues ascending; with
/// `vectors` the eigenvectors overwrite `buf` (columns).
fn syevd(buf: &mut [f64], n: usize, vectors: bool, driver: Driver) -> Result<Vec<f64>> {
    let uplo = b'L';
    let ni = dim_i32(n)?;
    let mut w = vec![0.0; n];
    if n == 0 {
        return Ok(w);
    }
    assert_eq!(
        buf.len(),
        n * n,
        "syevd: buffer of {} for {n}×{n}",
        buf.len()
    );
    let jobz = if vectors { b'V' } else { b'N' };
    let name = match driver {
        Driver::OneStage => "dsyevd",
        Driver::TwoStage => "dsyevd_2stage",
    };
    // lwork = liwork = −1 is the workspace query: it writes work[0] and iwork[0] only
    let call =
        |buf: &mut [f64], w: &mut [f64], work: &mut [f64], lw: i32, iwork: &mut [i32], li: i32| {
            assert!(lw == -1 || usize::try_from(lw).is_ok_and(|l| l <= work.len()));
            assert!(li == -1 || usize::try_from(li).is_ok_and(|l| l <= iwork.len()));
            assert!(!work.is_empty() && !iwork.is_empty());
            let mut info = 0;
            // SAFETY: `buf` is n×n with lda = n (asserted above), `w` has n elements, and the
            // workspaces hold at least the lengths passed (one element each for the query).
            unsafe {
                match driver {
                    Driver::OneStage => {
                        lapack::dsyevd(jobz, uplo, ni, buf, ni, w, work, lw, iwork, li, &mut info)
                    }
                    Driver::TwoStage => lapack::dsyevd_2stage(
                        jobz, uplo, ni, buf, ni, w, work, lw, iwork, li, &mut info,
                    ),
                }
            }
            info
        };
    let (mut wq, mut iq) = ([0.0f64], [0i32]);
    let info = call(buf, &mut w, &mut wq, -1, &mut iq, -1);
    if info != 0 {
        return Err(lapack_error(name, info));
    }
    let lw = work_len(name, wq[0])?;
    let li = work_len(name, f64::from(iq[0]))?;
    let (mut work, mut iwork) = (vec![0.0; lw], vec![0i32; li]);
    let info = call(
        buf,
        &mut w,
        &mut work,
        dim_i32(lw)?,
        &mut iwork,
        dim_i32(li)?,
    );
    if info != 0 {
        return Err(lapack_error(name, info));
    }
    if w.iter().any(|v| !v.is_finite()) {
        return Err(lapack_error(name, i32::MAX));
    }
    Ok(w)
}

/// Full decomposition `A = E diag(ν) Eᵀ` of a real symmetric `a` (its lower triangle is read),
/// ascending, by `dsyevd` on `a`'s own buffer: the eigenvectors overwrite it (peak memory `a` plus
/// the `1 + 6n + 2n²` workspace, against a further `n²` for the copying [`crate::spectral`] call).
/// Same driver and input as `Backend::Lapack.eigh_real`, hence the same numbers.
pub(crate) fn eigh_in_place(a: Array2<f64>) -> Result<(Array1<f64>, Array2<f64>)> {
    let n = a.nrows();
    assert_eq!(a.ncols(), n, "eigh_in_place: a {}×{} matrix", n, a.ncols());
    let mut buf = into_buffer(a);
    let w = syevd(&mut buf, n, true, Driver::OneStage)?;
    let e = Array2::from_shape_vec((n, n).f(), buf).map_err(|e| Error::Eigensolver {
        backend: "dsyevd",
        reason: format!("unexpected output shape: {e}"),
    })?;
    Ok((Array1::from(w), e))
}

/// Eigenvalues (ascending) of a real symmetric `a` (its lower triangle is read), destroying it:
/// `dsyevd_2stage` from [`TWO_STAGE_FROM`], `dsyevd` below; `jobz = 'N'`, small workspaces.
pub(crate) fn eigvalsh_in_place(a: Array2<f64>) -> Result<Array1<f64>> {
    let n = a.nrows();
    assert_eq!(
        a.ncols(),
        n,
        "eigvalsh_in_place: a {}×{} matrix",
        n,
        a.ncols()
    );
    let mut buf = into_buffer(a);
    let driver = if n >= TWO_STAGE_FROM {
        Driver::TwoStage
    } else {
        Driver::OneStage
    };
    Ok(Array1::from(syevd(&mut buf, n, false, driver)?))
}

/// `a·K + b·W Wᵀ` with `W = C diag(scale)` (`K` symmetric `n × n`, `C` `n × m`): the logical
/// lower triangle holds the result, the upper one `a·K` (the eigensolvers read only the lower
/// one). Built as `a·K`, then one `dsyrk` rank-`k` update per block of [`UPDATE_BLOCK`]
/// columns of `C`, scaled on the fly: `n²m` flops (half a gemm's) and one `n × 256` temporary.
pub(crate) fn sandwich_in_place(
    k: &ArrayView2<f64>,
    c: &ArrayView2<f64>,
    a: f64,
    b: f64,
    scale: &[f64],
) -> Result<Array2<f64>> {
    let (n, m) = c.dim();
    assert_eq!(k.dim(), (n, n), "sandwich_in_place: K is not n×n");
    assert_eq!(scale.len(), m, "sandwich_in_place: scale length");
    // row-major whatever K's layout (a resampled Gram block may be column-major)
    let mut out = Array2::<f64>::zeros((n, n));
    ndarray::Zip::from(&mut out)
        .and(k)
        .for_each(|o, &v| *o = a * v);
    let ni = dim_i32(n)?;
    if n == 0 {
        return Ok(out);
    }
    let dst = out
        .as_slice_mut()
        .expect("a fresh zeros array is in standard layout");
    let mut block = Array2::<f64>::zeros((n, UPDATE_BLOCK.min(m.max(1))));
    for j0 in (0..m).step_by(UPDATE_BLOCK) {
        let j1 = (j0 + UPDATE_BLOCK).min(m);
        let kb = j1 - j0;
        let mut w = block.slice_mut(s![.., ..kb]);
        w.assign(&c.slice(s![.., j0..j1]));
        for (mut col, sj) in w.columns_mut().into_iter().zip(&scale[j0..j1]) {
            col.mapv_inplace(|v| v * sj);
        }
        let ld = dim_i32(block.ncols())?;
        let src = block.as_slice().expect("the block is in standard layout");
        // SAFETY: `src` is a row-major n × ld buffer whose first kb ≤ ld columns are read
        // (lda = ld ≥ kb); `dst` is a row-major n × n buffer (ldc = n); both outlive the call.
        unsafe {
            cblas_sys::cblas_dsyrk(
                cblas_sys::CBLAS_LAYOUT::CblasRowMajor,
                cblas_sys::CBLAS_UPLO::CblasLower,
                cblas_sys::CBLAS_TRANSPOSE::CblasNoTrans,
                ni,
                dim_i32(kb)?,
                b,
                src.as_ptr(),
                ld,
                1.0,
                dst.as_mut_ptr(),
                ni,
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spectral::{Backend, EigenSolver};
    use ndarray::Array2;

    fn symmetric(n: usize, seed: u64) -> Array2<f64> {
        // a deterministic symmetric matrix with a spread spectrum
        let mut x = seed;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        let b = Array2::from_shape_fn((n, n), |_| next());
        let a = &b + &b.t();
        a
    }

    #[test]
    fn in_place_solvers_match_the_copying_backend() {
        // one BLAS thread throughout: bitwise equality needs the same thread count in both calls
        // (other tests change the process-global count concurrently)
        crate::spectral::with_single_blas_thread(in_place_solvers_match_the_copying_backend_body);
    }

    fn in_place_solvers_match_the_copying_backend_body() {
        for n in [1, 2, 7, 40] {
            let a = symmetric(n, n as u64);
            let (w0, v0) = Backend::Lapack.eigh_real(a.view()).unwrap();
            let (w1, v1) = eigh_in_place(a.clone()).unwrap();
            assert_eq!(w0, w1, "n = {n}: same driver, same input");
            assert_eq!(v0, v1);
            // column-major input reads the same triangle
            let f = a.t().as_standard_layout().into_owned().reversed_axes();
            assert!(!f.is_standard_layout() || n == 1);
            let (w2, _) = eigh_in_place(f).unwrap();
            assert_eq!(w0, w2);
            let wv = eigvalsh_in_place(a.clone()).unwrap();
            let scale = w0.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            for (x, y) in wv.iter().zip(&w0) {
                assert!((x - y).abs() <= 1e-13 * scale, "n = {n}: {x} vs {y}");
            }
        }
    }

    #[test]
    fn two_stage_values_match_one_stage() {
        // the two-stage driver on a matrix small enough for a unit test
        let n = 300;
        let a = symmetric(n, 3);
        let mut buf = into_buffer(a.clone());
        let w2 = syevd(&mut buf, n, false, Driver::TwoStage).unwrap();
        let w1 = Backend::Lapack.eigvalsh_real(a.view()).unwrap();
        let scale = w1.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (x, y) in w2.iter().zip(&w1) {
            assert!((x - y).abs() <= 1e-13 * scale, "{x} vs {y}");
        }
    }

    #[test]
    fn sandwich_update_matches_the_dense_product() {
        let (n, m) = (37, 600); // three column blocks, the last one partial
        let k = symmetric(n, 5);
        let c = Array2::from_shape_fn((n, m), |(i, j)| ((i * 7 + j * 3) % 11) as f64 - 5.0);
        let scale: Vec<f64> = (0..m).map(|j| 1.0 / (1.0 + j as f64)).collect();
        let out = sandwich_in_place(&k.view(), &c.view(), 0.5, -2.0, &scale).unwrap();
        let mut w = c.clone();
        for (mut col, s) in w.columns_mut().into_iter().zip(&scale) {
            col.mapv_inplace(|v| v * s);
        }
        let want = &k * 0.5 - &(w.dot(&w.t()) * 2.0);
        for i in 0..n {
            for j in 0..=i {
                let d = (out[[i, j]] - want[[i, j]]).abs();
                assert!(d <= 1e-12 * (1.0 + want[[i, j]].abs()), "({i}, {j}): {d}");
            }
        }
    }
}
