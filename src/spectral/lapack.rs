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

/// The typed error for a LAPACK `info ≠ 0`.
pub(crate) fn lapack_error(routine: &'static str, info: i32) -> Error {
    Error::Eigensolver {
        backend: routine,
        reason: if info < 0 {
            format!("argument {} had an illegal value", -info)
        } else {
            format!("failed to converge (info = {info})")
        },
    }
}

/// A dimension as LAPACK's 32-bit integer, or a typed error.
pub(crate) fn dim_i32(n: usize) -> Result<i32> {
    i32::try_from(n)
        .map_err(|_| Error::invalid("dimension", n as f64, "too large for 32-bit LAPACK"))
}

// The shape contract of every `unsafe` LAPACK call below, checked in every build (as faer does)
// right before the call: the Fortran routines trust their integer arguments and read or write
// `lda·n` elements of the matrix, `n` of `w`, `lwork` of `work` …, so a slice shorter than what
// the integers promise would be an out-of-bounds access. The public entry points
// (`Backend::eigh` …) already refuse a non-square matrix with `Error::NotSquare`; these
// assertions make the wrappers sound on their own.

/// The matrix argument: a contiguous column-major `rows × cols` buffer with leading dimension
/// `ld = max(1, rows)`.
fn assert_matrix<T>(routine: &str, buf: &[T], (rows, cols): (usize, usize), ld: i32) {
    assert!(
        usize::try_from(ld).is_ok_and(|ld| ld == rows.max(1)),
        "{routine}: leading dimension {ld} for {rows} rows (must be max(1, rows))"
    );
    assert_eq!(
        buf.len(),
        rows * cols,
        "{routine}: buffer of {} elements for a {rows}×{cols} matrix",
        buf.len()
    );
}

/// An array argument the routine reads or writes `need` elements of.
fn assert_len<T>(routine: &str, what: &str, buf: &[T], need: usize) {
    assert!(
        buf.len() >= need,
        "{routine}: {what} holds {} elements, the call touches {need}",
        buf.len()
    );
}

/// A workspace size returned by an `lwork = -1` query, as the length to allocate and the `i32`
/// to pass (at least 1; an error when it does not fit LAPACK's 32-bit integers).
fn work_size(routine: &'static str, query: f64) -> Result<(usize, i32)> {
    if !(query.is_finite() && query >= 0.0 && query <= f64::from(i32::MAX)) {
        return Err(Error::Eigensolver {
            backend: routine,
            reason: format!("workspace query returned {query}"),
        });
    }
    let n = (query as i32).max(1);
    Ok((n as usize, n))
}

/// `?evr` with range 'A' reports in `m` how many eigenvalues it found: all `n`, or the result is
/// incomplete (the unfilled values and vectors are not eigenpairs).
fn found_all(routine: &'static str, m: i32, n: usize) -> Result<()> {
    if usize::try_from(m).ok() != Some(n) {
        return Err(Error::Eigensolver {
            backend: routine,
            reason: format!("found {m} of {n} eigenvalues"),
        });
    }
    Ok(())
}

/// A square input, checked before its column-major copy is made (the callers' contract).
fn assert_square<T>(routine: &str, a: &ArrayView2<T>) {
    assert_eq!(
        a.nrows(),
        a.ncols(),
        "{routine}: a {}×{} matrix is not square",
        a.nrows(),
        a.ncols()
    );
}

/// An element type of a LAPACK workspace: the query (`lwork = −1`) writes the size it needs into
/// the first element, as a number of this type.
trait WorkElem: Copy + Default {
    fn size(self) -> f64;
}

impl WorkElem for c64 {
    fn size(self) -> f64 {
        self.re
    }
}

impl WorkElem for f64 {
    fn size(self) -> f64 {
        self
    }
}

impl WorkElem for i32 {
    fn size(self) -> f64 {
        f64::from(self)
    }
}

/// One workspace argument of the `lwork = −1` protocol: a one-element buffer with `len = −1` for
/// the query, then a buffer of the size the query returned.
struct Workspace<T> {
    buf: Vec<T>,
    len: i32,
}

impl<T: WorkElem> Workspace<T> {
    /// The query's argument (LAPACK writes one element).
    fn query() -> Self {
        Workspace {
            buf: vec![T::default()],
            len: -1,
        }
    }

    /// The workspace the query asked for (an error when the size does not fit 32 bits).
    fn sized(&self, routine: &'static str) -> Result<Self> {
        let (n, len) = work_size(routine, self.buf[0].size())?;
        Ok(Workspace {
            buf: vec![T::default(); n],
            len,
        })
    }

    /// The contract of the call: the buffer holds what `len` promises (one element for a query).
    fn assert(&self, routine: &str, what: &str) {
        let need = usize::try_from(self.len).unwrap_or(1);
        assert_len(routine, what, &self.buf, need);
    }
}

/// `call` once with two workspace queries (LAPACK writes each optimal size into its one element),
/// then with the workspaces they asked for.
fn with_queried_workspaces<A: WorkElem, B: WorkElem>(
    routine: &'static str,
    mut call: impl FnMut(&mut Workspace<A>, &mut Workspace<B>) -> Result<()>,
) -> Result<()> {
    let (mut a, mut b) = (Workspace::query(), Workspace::query());
    call(&mut a, &mut b)?;
    call(&mut a.sized(routine)?, &mut b.sized(routine)?)
}

/// `info` of a LAPACK call as a result.
fn checked(routine: &'static str, info: i32) -> Result<()> {
    if info == 0 {
        Ok(())
    } else {
        Err(lapack_error(routine, info))
    }
}

/// `zheevd` with jobz = 'V' or 'N'; returns (values, column-major vectors buffer).
fn zheevd(a: &ArrayView2<Complex64>, vectors: bool) -> Result<(Vec<f64>, Vec<c64>)> {
    assert_square("zheevd", a);
    let nu = a.nrows();
    let n = dim_i32(nu)?;
    let mut buf = col_major(a);
    let mut w = vec![0.0; nu];
    if n == 0 {
        return Ok((w, buf));
    }
    let jobz = if vectors { b'V' } else { b'N' };
    let mut call =
        |work: &mut Workspace<c64>, rwork: &mut Workspace<f64>, iwork: &mut Workspace<i32>| {
            assert_matrix("zheevd", &buf, (nu, nu), n);
            assert_len("zheevd", "w", &w, nu);
            work.assert("zheevd", "work");
            rwork.assert("zheevd", "rwork");
            iwork.assert("zheevd", "iwork");
            let mut info = 0;
            // SAFETY: `buf` is the n×n column-major matrix (lda = n), `w` holds n values, and each
            // workspace holds the `lwork` passed (one element for the query, lwork = −1).
            unsafe {
                lapack::zheevd(
                    jobz,
                    b'L',
                    n,
                    &mut buf,
                    n,
                    &mut w,
                    &mut work.buf,
                    work.len,
                    &mut rwork.buf,
                    rwork.len,
                    &mut iwork.buf,
                    iwork.len,
                    &mut info,
                );
            }
            checked("zheevd", info)
        };
    let (mut wq, mut rq, mut iq) = (Workspace::query(), Workspace::query(), Workspace::query());
    call(&mut wq, &mut rq, &mut iq)?;
    call(
        &mut wq.sized("zheevd")?,
        &mut rq.sized("zheevd")?,
        &mut iq.sized("zheevd")?,
    )?;
    Ok((w, buf))
}

/// The eigenvalues (ascending) of the Hermitian `n × n` matrix whose lower triangle the
/// column-major buffer `buf` holds (destroyed): `zheevd`'s values-only computation — `zhetrd`
/// (lower, the workspace `zheevd` would hand it: its own optimal `n·nb`; from
/// [`TWO_STAGE_VALUES_FROM`] the two-stage `zhetrd_2stage` instead), then `dsterf`'s job by
/// the regrouped root-free QL (`root_free::sterf`, 1.7× `dsterf`; `dsterf` itself where it
/// declines) — on the caller's buffer, without `zheevd`'s copy and its norm scan (`zlanhe`, one
/// `hypot` per entry: 4 % of the solve at d = 256). `zheevd` scales the matrix only when that
/// norm lies outside `[√(safmin/ε), √(1/(safmin/ε))] ≈ [1.5e-146, 6.7e145]`; `max_abs` (the
/// largest `|re|`, `|im|` of an entry, known to the caller) must show that it does not (`None`
/// otherwise: call [`EigenSolver::eigvalsh`]), so the reduction is `zheevd`'s and the values are
/// within the backward-stable bound of `zheevd`'s (`c n ε ‖A‖₂`; test
/// `in_place_values_match_zheevd`).
pub(crate) fn hermitian_values_in_place(
    buf: &mut [c64],
    n: usize,
    max_abs: f64,
) -> Option<Result<Vec<f64>>> {
    // ‖A‖_max ∈ [max_abs, √2·max_abs]; margins of 1e6 either side of zheevd's thresholds
    if !(max_abs == 0.0 || (1e-140..=1e139).contains(&max_abs)) {
        return None;
    }
    Some(tridiagonal_values(buf, n))
}

/// Smallest dimension at which [`hermitian_values_in_place`] reduces by LAPACK's two-stage
/// `zhetrd_2stage` (dense to band by BLAS-3, band to tridiagonal by bulge chasing) instead of the
/// one-stage `zhetrd`, whose BLAS-2 half (`zhemv`) streams the trailing matrix once per column.
/// Measured values-only solves on one BLAS thread (docs/PERFORMANCE.md, "Session 28"): equal at
/// n = 384 (19.4 vs 19.9 ms), from 512 faster alone (46 vs 50 ms; 768: 104 vs 123 ms) and more so two side by
/// side, the sandwiched curve's schedule (27 vs 34 ms each at 512; 768: 56 vs 81 ms); at 256 slower
/// (9.6 vs 8.8 ms).
pub(crate) const TWO_STAGE_VALUES_FROM: usize = 512;

fn tridiagonal_values(buf: &mut [c64], nu: usize) -> Result<Vec<f64>> {
    let n = dim_i32(nu)?;
    let mut d = vec![0.0; nu];
    if n == 0 {
        return Ok(d);
    }
    let mut e = vec![0.0; nu.saturating_sub(1).max(1)];
    let mut tau = vec![c64::new(0.0, 0.0); nu.saturating_sub(1).max(1)];
    reduce_to_tridiagonal(buf, nu, n, &mut d, &mut e, &mut tau)?;
    // the root-free QL regrouped to one division a step (`dsterf`'s job, 1.7–1.8× faster); `dsterf`
    // on the reduction's own output where it declines
    let (d0, e0) = (d.clone(), e.clone());
    if super::root_free::sterf(&mut d, &mut e) {
        return Ok(d);
    }
    (d, e) = (d0, e0);
    assert_len("dsterf", "d", &d, nu);
    assert_len("dsterf", "e", &e, nu - 1);
    let mut info = 0;
    // SAFETY: d holds n values, e n − 1 (LAPACK reads and overwrites exactly these).
    unsafe {
        lapack::dsterf(n, &mut d, &mut e, &mut info);
    }
    checked("dsterf", info)?;
    Ok(d)
}

/// The reduction of the Hermitian matrix whose lower triangle the column-major `buf` holds
/// (destroyed) to the real tridiagonal `(d, e)` (`tau` the reflectors' scalars, unused after):
/// `zhetrd` below [`TWO_STAGE_VALUES_FROM`], `zhetrd_2stage` (`vect = 'N'`) from there — the same
/// tridiagonal matrix up to unitary similarities, exact for `A + E`, `‖E‖₂ ≤ c n ε ‖A‖₂`, either
/// way — each with the workspaces it asks for.
fn reduce_to_tridiagonal(
    buf: &mut [c64],
    nu: usize,
    n: i32,
    d: &mut [f64],
    e: &mut [f64],
    tau: &mut [c64],
) -> Result<()> {
    let two_stage = nu >= TWO_STAGE_VALUES_FROM;
    let routine = if two_stage { "zhetrd_2stage" } else { "zhetrd" };
    let call = |hous2: &mut Workspace<c64>, work: &mut Workspace<c64>| {
        assert_matrix(routine, buf, (nu, nu), n);
        assert_len(routine, "d", d, nu);
        assert_len(routine, "e", e, nu - 1);
        assert_len(routine, "tau", tau, nu - 1);
        hous2.assert(routine, "hous2");
        work.assert(routine, "work");
        let mut info = 0;
        // SAFETY: `buf` is the n×n column-major matrix (lda = n), d holds n values, e and tau
        // n − 1, `hous2` (two-stage only) and `work` the lengths passed (one element each for the
        // query, lengths −1).
        unsafe {
            if two_stage {
                lapack::zhetrd_2stage(
                    b'N',
                    b'L',
                    n,
                    buf,
                    n,
                    d,
                    e,
                    tau,
                    &mut hous2.buf,
                    &[hous2.len],
                    &mut work.buf,
                    work.len,
                    &mut info,
                );
            } else {
                lapack::zhetrd(
                    b'L',
                    n,
                    buf,
                    n,
                    d,
                    e,
                    tau,
                    &mut work.buf,
                    work.len,
                    &mut info,
                );
            }
        }
        checked(routine, info)
    };
    with_queried_workspaces(routine, call)
}

/// `zheevr` (all eigenvalues) with jobz = 'V' or 'N'.
fn zheevr(a: &ArrayView2<Complex64>, vectors: bool) -> Result<(Vec<f64>, Vec<c64>)> {
    assert_square("zheevr", a);
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
    let mut m = 0;
    let mut call =
        |work: &mut Workspace<c64>, rwork: &mut Workspace<f64>, iwork: &mut Workspace<i32>| {
            assert_zheevr_shapes(&buf, &w, &z, &isuppz, (nu, vectors));
            work.assert("zheevr", "work");
            rwork.assert("zheevr", "rwork");
            iwork.assert("zheevr", "iwork");
            let mut info = 0;
            // SAFETY: shapes as asserted (n×n matrix with lda = n, n values, z of ldz·n elements when
            // vectors, isuppz of 2n); each workspace holds the `lwork` passed (one for the query).
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
                    &mut work.buf,
                    work.len,
                    &mut rwork.buf,
                    rwork.len,
                    &mut iwork.buf,
                    iwork.len,
                    &mut info,
                );
            }
            checked("zheevr", info)
        };
    let (mut wq, mut rq, mut iq) = (Workspace::query(), Workspace::query(), Workspace::query());
    call(&mut wq, &mut rq, &mut iq)?;
    call(
        &mut wq.sized("zheevr")?,
        &mut rq.sized("zheevr")?,
        &mut iq.sized("zheevr")?,
    )?;
    found_all("zheevr", m, nu)?;
    Ok((w, z))
}

/// The arrays of a `?heevr`/`?syevr` call (range 'A'): the n×n matrix, n values, the vectors
/// (`ldz = n`, n columns) or a 1-element dummy (`ldz = 1`), and `isuppz` of 2n.
fn assert_zheevr_shapes<T, Z>(
    buf: &[T],
    w: &[f64],
    z: &[Z],
    isuppz: &[i32],
    (n, vectors): (usize, bool),
) {
    let ld = i32::try_from(n.max(1)).unwrap_or(i32::MAX);
    assert_matrix("?evr", buf, (n, n), ld);
    assert_len("?evr", "w", w, n);
    assert_len("?evr", "z", z, if vectors { n * n } else { 1 });
    assert_len("?evr", "isuppz", isuppz, 2 * n);
}

/// `dsyevd` or `dsyevr` for real symmetric matrices.
fn dsyev(a: &ArrayView2<f64>, vectors: bool, mrrr: bool) -> Result<(Vec<f64>, Vec<f64>)> {
    assert_square("dsyev", a);
    let nu = a.nrows();
    let n = dim_i32(nu)?;
    let mut buf = col_major(a);
    let mut w = vec![0.0; nu];
    if n == 0 {
        return Ok((w, buf));
    }
    let jobz = if vectors { b'V' } else { b'N' };
    if mrrr {
        let ldz = if vectors { n } else { 1 };
        let mut z = vec![0.0; if vectors { nu * nu } else { 1 }];
        let mut isuppz = vec![0i32; 2 * nu];
        let mut m = 0;
        let call = |work: &mut Workspace<f64>, iwork: &mut Workspace<i32>| {
            assert_zheevr_shapes(&buf, &w, &z, &isuppz, (nu, vectors));
            work.assert("dsyevr", "work");
            iwork.assert("dsyevr", "iwork");
            let mut info = 0;
            // SAFETY: shapes as asserted; each workspace holds the `lwork` passed.
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
                    &mut work.buf,
                    work.len,
                    &mut iwork.buf,
                    iwork.len,
                    &mut info,
                );
            }
            checked("dsyevr", info)
        };
        with_queried_workspaces("dsyevr", call)?;
        found_all("dsyevr", m, nu)?;
        return Ok((w, z));
    }
    let mut call = |work: &mut Workspace<f64>, iwork: &mut Workspace<i32>| {
        assert_matrix("dsyevd", &buf, (nu, nu), n);
        assert_len("dsyevd", "w", &w, nu);
        work.assert("dsyevd", "work");
        iwork.assert("dsyevd", "iwork");
        let mut info = 0;
        // SAFETY: n×n matrix with lda = n, n values; each workspace holds the `lwork` passed.
        unsafe {
            lapack::dsyevd(
                jobz,
                b'L',
                n,
                &mut buf,
                n,
                &mut w,
                &mut work.buf,
                work.len,
                &mut iwork.buf,
                iwork.len,
                &mut info,
            );
        }
        checked("dsyevd", info)
    };
    let (mut wq, mut iq) = (Workspace::query(), Workspace::query());
    call(&mut wq, &mut iq)?;
    call(&mut wq.sized("dsyevd")?, &mut iq.sized("dsyevd")?)?;
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
    let mut call = |work: &mut Workspace<c64>| {
        assert_zgesdd_shapes(&buf, &s, &rwork, &iwork, (mu, nu), m);
        work.assert("zgesdd", "work");
        let mut info = 0;
        // SAFETY: the m×n column-major matrix (lda = m), min(m, n) values, rwork ≥ 7·min(m, n)
        // and iwork = 8·min(m, n) (jobz = 'N'), 1-element u and vt with ldu = ldvt = 1 (not
        // referenced); work holds the `lwork` passed (one element for the query).
        unsafe {
            lapack::zgesdd(
                b'N',
                m,
                n,
                &mut buf,
                m,
                &mut s,
                &mut u,
                1,
                &mut vt,
                1,
                &mut work.buf,
                work.len,
                &mut rwork,
                &mut iwork,
                &mut info,
            );
        }
        checked("zgesdd", info)
    };
    let mut wq = Workspace::query();
    call(&mut wq)?;
    call(&mut wq.sized("zgesdd")?)?;
    Ok(s)
}

/// The arrays of a `zgesdd` call with jobz = 'N' on an `m × n` matrix.
fn assert_zgesdd_shapes(
    buf: &[c64],
    s: &[f64],
    rwork: &[f64],
    iwork: &[i32],
    (m, n): (usize, usize),
    lda: i32,
) {
    let k = m.min(n);
    assert_matrix("zgesdd", buf, (m, n), lda);
    assert_len("zgesdd", "s", s, k);
    assert_len("zgesdd", "rwork", rwork, 7 * k);
    assert_len("zgesdd", "iwork", iwork, 8 * k);
}

/// `zpotrf` (lower) on `A + shift·I`: `Ok(true)` when the factorisation completes, `Ok(false)` on
/// a non-positive pivot (`info > 0`).
fn zpotrf_succeeds(a: &ArrayView2<Complex64>, shift: f64) -> Result<bool> {
    Ok(zpotrf_factor(a, shift)?.is_some())
}

/// `zpotrf` (lower) on `Ā + shift·I` (`A`'s row-major buffer read column-major): the column-major
/// `n × n` buffer whose lower triangle is the factor `L₁`, `Ā + shift·I = L₁L₁†` (the strict upper
/// triangle keeps `Ā`'s entries), or `None` on a non-positive pivot (`info > 0`) — the decision of
/// [`EigenSolver::is_positive_definite`] on `A` (`Ā` has `A`'s eigenvalues).
pub(crate) fn zpotrf_factor(a: &ArrayView2<Complex64>, shift: f64) -> Result<Option<Vec<c64>>> {
    assert_square("zpotrf", a);
    let nu = a.nrows();
    let n = dim_i32(nu)?;
    // A's rows read as columns are Aᵀ = Ā, Hermitian with A's eigenvalues: positive definite
    // exactly when A is, so the copy can follow memory order instead of transposing
    let mut buf: Vec<c64> = a.iter().copied().collect();
    for i in 0..nu {
        buf[i * nu + i] = c64::new(buf[i * nu + i].re + shift, 0.0);
    }
    let mut info = 0;
    assert_matrix("zpotrf", &buf, (nu, nu), n.max(1));
    // SAFETY: `buf` is the n×n matrix with lda = max(1, n).
    unsafe {
        lapack::zpotrf(b'L', n, &mut buf, n.max(1), &mut info);
    }
    if info < 0 {
        return Err(lapack_error("zpotrf", info));
    }
    Ok((info == 0).then_some(buf))
}

/// `ztrtri` (lower, non-unit) in place: the column-major `n × n` buffer's lower triangle `L`
/// becomes `L⁻¹` (the strict upper triangle is not referenced); `Ok(false)` when `L` has a zero
/// diagonal entry (`info > 0`, singular). Cost `n³/3` complex multiply-adds.
///
/// # Panics
/// When `buf` does not hold `n²` entries.
pub(crate) fn lower_inverse_in_place(buf: &mut [c64], nu: usize) -> Result<bool> {
    let n = dim_i32(nu)?;
    assert_matrix("ztrtri", buf, (nu, nu), n.max(1));
    let mut info = 0;
    // SAFETY: `buf` is the n×n matrix with lda = max(1, n) (asserted above).
    unsafe {
        lapack::ztrtri(b'L', b'N', n, buf, n.max(1), &mut info);
    }
    if info < 0 {
        return Err(lapack_error("ztrtri", info));
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

#[cfg(test)]
mod tests {
    //! The wrappers' own shape contract (the public entry points refuse a non-square matrix with
    //! `Error::NotSquare` before reaching them: tests/soundness.rs).
    use super::*;
    use ndarray::{s, Array2};

    fn rect() -> Array2<Complex64> {
        Array2::from_shape_fn((3, 2), |(i, j)| Complex64::new((i + j) as f64, 0.0))
    }

    #[test]
    #[should_panic(expected = "zheevd: a 3×2 matrix is not square")]
    fn zheevd_asserts_a_square_matrix() {
        let _ = zheevd(&rect().view(), true);
    }

    #[test]
    #[should_panic(expected = "zheevr: a 2×3 matrix is not square")]
    fn zheevr_asserts_a_square_matrix() {
        let _ = zheevr(&rect().t(), false);
    }

    #[test]
    #[should_panic(expected = "dsyev: a 3×2 matrix is not square")]
    fn dsyev_asserts_a_square_matrix() {
        let _ = dsyev(&rect().mapv(|z| z.re).view(), false, true);
    }

    #[test]
    #[should_panic(expected = "zpotrf: a 3×2 matrix is not square")]
    fn zpotrf_asserts_a_square_matrix() {
        let _ = zpotrf_succeeds(&rect().view(), 0.0);
    }

    #[test]
    #[should_panic(expected = "zheevd: buffer of 5 elements for a 2×2 matrix")]
    fn a_short_buffer_is_refused_before_the_call() {
        assert_matrix("zheevd", &[0.0; 5], (2, 2), 2);
    }

    #[test]
    #[should_panic(expected = "leading dimension 1 for 2 rows")]
    fn a_small_leading_dimension_is_refused() {
        assert_matrix("zpotrf", &[0.0; 4], (2, 2), 1);
    }

    #[test]
    #[should_panic(expected = "zgesdd: rwork holds 13 elements, the call touches 14")]
    fn a_short_workspace_is_refused() {
        let buf = vec![c64::new(0.0, 0.0); 6];
        assert_zgesdd_shapes(&buf, &[0.0; 2], &[0.0; 13], &[0; 16], (3, 2), 3);
    }

    #[test]
    fn workspace_queries_outside_32_bits_are_errors() {
        assert_eq!(work_size("zheevd", 0.0).unwrap(), (1, 1));
        assert_eq!(work_size("zheevd", 4096.0).unwrap(), (4096, 4096));
        for q in [-1.0, f64::NAN, f64::INFINITY, 3e9] {
            assert!(work_size("zheevd", q).is_err(), "{q}");
        }
    }

    /// Strided and transposed views are copied to contiguous column-major buffers first, so every
    /// layout gives the same values as the contiguous matrix.
    #[test]
    fn every_layout_gives_the_same_values() {
        let big = Array2::from_shape_fn((6, 6), |(i, j)| {
            let (x, y) = ((i.min(j) + 1) as f64, (i.max(j) + 1) as f64);
            Complex64::new(
                1.0 / (x + y),
                if i < j {
                    0.1 * x
                } else if i > j {
                    -0.1 * y
                } else {
                    0.0
                },
            )
        });
        let strided = big.slice(s![..;2, ..;2]);
        let h = &strided + &strided.t().mapv(|z| z.conj());
        let want = zheevd(&h.view(), false).unwrap().0;
        for view in [strided.to_owned().view(), strided] {
            let h2 = &view + &view.t().mapv(|z| z.conj());
            for got in [
                zheevd(&h2.view(), false).unwrap().0,
                zheevr(&h2.view(), false).unwrap().0,
                zheevd(&h2.t(), false).unwrap().0,
            ] {
                for (g, w) in got.iter().zip(&want) {
                    assert!((g - w).abs() < 1e-13, "{g} vs {w}");
                }
            }
        }
        let wide = big.slice(s![..;2, ..]);
        let sv = zgesdd(&wide).unwrap();
        let sv_t = zgesdd(&wide.t()).unwrap();
        let sv_own = zgesdd(&wide.to_owned().view()).unwrap();
        assert_eq!(sv.len(), 3);
        for ((a, b), c) in sv.iter().zip(&sv_t).zip(&sv_own) {
            assert!((a - b).abs() < 1e-13 && (a - c).abs() < 1e-13);
        }
    }
}
