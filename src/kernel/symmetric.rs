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
//! * [`eigh_times`]: the spectrum of `K_YY` and `C = K_XY E` without forming `E`: `dsytrd`, then
//!   `dstedc` on the tridiagonal and the reflectors applied to `K_XY`'s own buffer *at the same
//!   time* (one BLAS thread each), then one gemm (`docs/kernel.md` § kernel_divergence, "eigh_times").
//! * [`sandwich_frobenius`]: `Tr M` and `‖M‖_F²` of the matrix [`sandwich_in_place`] builds — the
//!   two power sums of its spectrum that the divergence of order 2 needs.
//! * [`eigvalsh_in_place`]: values only; the two-stage reduction from [`TWO_STAGE_FROM`] on
//!   (`dsytrd_sy2sb`: full → band by BLAS-3 blocks; band → tridiagonal in cache by LAPACK's
//!   bulge-chasing kernels, its sweeps on two threads ([`band_to_tridiagonal_two_threads`]);
//!   `dsterf`'s job by the regrouped root-free QL, `spectral::root_free::sterf`), the one-stage `dsyevd` below, where the matrix fits in cache and its BLAS-2 half
//!   is cheap. [`sandwich_eigvalsh`]: the same for `M_γ`, built on the triangle LAPACK reads (no
//!   mirroring pass).
//! * [`sandwich_in_place`]: `a·K + b·W Wᵀ` with `W = C diag(s)`, by `dsyrk` rank-`k` updates of
//!   one triangle over column blocks of `C` (half the flops of a gemm, `n·k` extra memory).

use crate::error::{Error, Result};
use crate::spectral::lapack::{dim_i32, lapack_error};
use crate::spectral::with_single_blas_thread;
use ndarray::{s, Array1, Array2, ArrayView2, ShapeBuilder};
use std::sync::Mutex;

// The two stages of LAPACK's `dsytrd_2stage` (LAPACK ≥ 3.7, exported by OpenBLAS), called one by
// one so that the serial band → tridiagonal stage runs on one BLAS thread. String arguments are
// single characters (no hidden lengths are read for them, as with the `lapack` crate's calls).
extern "C" {
    fn dsytrd_sy2sb_(
        uplo: *const u8,
        n: *const i32,
        kd: *const i32,
        a: *mut f64,
        lda: *const i32,
        ab: *mut f64,
        ldab: *const i32,
        tau: *mut f64,
        work: *mut f64,
        lwork: *const i32,
        info: *mut i32,
    );
    fn dsytrd_sb2st_(
        stage1: *const u8,
        vect: *const u8,
        uplo: *const u8,
        n: *const i32,
        kd: *const i32,
        ab: *mut f64,
        ldab: *const i32,
        d: *mut f64,
        e: *mut f64,
        hous: *mut f64,
        lhous: *const i32,
        work: *mut f64,
        lwork: *const i32,
        info: *mut i32,
    );
}

/// From this dimension on, values-only solves use the two-stage reduction (`dsyevd_2stage`).
///
/// Measured on the reference machine (one OpenBLAS 0.3.21 thread, CPU time, RBF Gram matrices,
/// `docs/kernel.md` § cost): one-stage `dsyevd` is 1.3× faster at 1000 (the matrix fits in the
/// 32 MiB L3 cache, where its memory-bound `dsymv` half is cheap), the two tie at 2000, and the
/// two-stage reduction is 1.8× faster at 4000.
pub const TWO_STAGE_FROM: usize = 2048;

/// Bandwidth of the first stage of [`eigvalsh_in_place`]'s two-stage reduction (measured at
/// `n = 4000`, one thread: 32, 64, 128 take 3.6, 3.4, 3.8 CPU-s for both stages).
const BAND: usize = 64;

/// From this dimension of `K_YY` on, [`eigh_times`] is the construction route: below it the
/// matrices fit in cache and one `dsyevd` call is as fast as the two overlapped threads.
pub const OVERLAP_FROM: usize = 1024;

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
        // in tiles: a plain double loop writes column-wise and misses the cache once per entry
        const TILE: usize = 64;
        for i0 in (0..n).step_by(TILE) {
            for j0 in (0..=i0).step_by(TILE) {
                for i in i0..(i0 + TILE).min(n) {
                    for j in j0..(j0 + TILE).min(i) {
                        a[[j, i]] = a[[i, j]];
                    }
                }
            }
        }
    }
    let (buf, offset) = a.into_raw_vec_and_offset();
    debug_assert!(offset.unwrap_or(0) == 0);
    buf
}

/// `dsyevd` on `buf` (`n × n`, column-major, lower triangle read): eigenvalues ascending; with
/// `vectors` the eigenvectors overwrite `buf` (columns).
fn syevd(buf: &mut [f64], n: usize, vectors: bool) -> Result<Vec<f64>> {
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
    let name = "dsyevd";
    // lwork = liwork = −1 is the workspace query: it writes work[0] and iwork[0] only
    let call =
        |buf: &mut [f64], w: &mut [f64], work: &mut [f64], lw: i32, iwork: &mut [i32], li: i32| {
            assert!(lw == -1 || usize::try_from(lw).is_ok_and(|l| l <= work.len()));
            assert!(li == -1 || usize::try_from(li).is_ok_and(|l| l <= iwork.len()));
            assert!(!work.is_empty() && !iwork.is_empty());
            let mut info = 0;
            // SAFETY: `buf` is n×n with lda = n (asserted above), `w` has n elements, and the
            // workspaces hold at least the lengths passed (one element each for the query).
            unsafe { lapack::dsyevd(jobz, uplo, ni, buf, ni, w, work, lw, iwork, li, &mut info) }
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

/// Eigenvalues (ascending) of the `n × n` symmetric matrix in `buf` (column-major, lower triangle
/// read, destroyed) by the two-stage reduction: `dsytrd_sy2sb` (full → band of width [`BAND`],
/// BLAS-3, default BLAS threads), the band → tridiagonal stage on one BLAS thread (OpenBLAS's
/// threading of its many small calls only costs time) — from [`PARALLEL_CHASE_FROM`] its sweeps
/// on two threads ([`band_to_tridiagonal_two_threads`], bitwise `dsytrd_sb2st`'s result), below
/// `dsytrd_sb2st` itself — then `dsterf`'s job by `root_free::sterf` (1.7× faster; `dsterf` where
/// it declines). The stages of `dsyevd_2stage`'s values-only path,
/// called one by one.
fn two_stage_values(buf: &mut [f64], n: usize) -> Result<Vec<f64>> {
    let ni = dim_i32(n)?;
    assert_eq!(
        buf.len(),
        n * n,
        "two_stage_values: buffer of {}",
        buf.len()
    );
    let kd = BAND.min(n.saturating_sub(1)).max(1);
    let mut ab = full_to_band(buf, n, kd)?;
    with_single_blas_thread(|| -> Result<Vec<f64>> {
        // second stage: band → tridiagonal (bulge chasing), on two threads where it pays
        let (mut d, mut e) = if kd >= 2 && n >= PARALLEL_CHASE_FROM {
            band_to_tridiagonal_two_threads(&ab, n, kd)
        } else {
            band_to_tridiagonal_lapack(&mut ab, n, kd)?
        };
        // the root-free QL regrouped to one division a step (1.7× `dsterf`); `dsterf` on the
        // reduction's own output where it declines
        let (d0, e0) = (d.clone(), e.clone());
        if crate::spectral::root_free::sterf(&mut d, &mut e) {
            return Ok(d);
        }
        (d, e) = (d0, e0);
        let mut info = 0;
        // SAFETY: `d` has n elements and `e` at least n − 1.
        unsafe { lapack::dsterf(ni, &mut d, &mut e, &mut info) };
        if info != 0 {
            return Err(lapack_error("dsterf", info));
        }
        Ok(d)
    })
    .and_then(|d| {
        if d.iter().any(|v| !v.is_finite()) {
            return Err(lapack_error("dsterf", i32::MAX));
        }
        Ok(d)
    })
}

/// The first stage, `dsytrd_sy2sb('L')`: the band (lower storage, `(kd+1) × n`, `ldab = kd + 1`)
/// of the `n × n` symmetric matrix in `buf` (column-major, lower triangle read, destroyed).
fn full_to_band(buf: &mut [f64], n: usize, kd: usize) -> Result<Vec<f64>> {
    let ni = dim_i32(n)?;
    assert_eq!(buf.len(), n * n, "full_to_band: buffer of {}", buf.len());
    let (kdi, ldab) = (dim_i32(kd)?, dim_i32(kd + 1)?);
    let mut ab = vec![0.0; (kd + 1) * n];
    let mut tau = vec![0.0; n];
    // first stage: workspace query (lwork = −1, writes work[0] only), then the call
    let mut sy2sb = |work: &mut [f64], lw: i32| -> Result<()> {
        assert!(lw == -1 || usize::try_from(lw).is_ok_and(|l| l <= work.len()));
        let mut info = 0;
        // SAFETY: `buf` is n×n (lda = n, asserted), `ab` is (kd+1)×n (ldab = kd+1), `tau` has
        // n ≥ n − kd elements, `work` holds lw elements (one for the query).
        unsafe {
            dsytrd_sy2sb_(
                &b'L',
                &ni,
                &kdi,
                buf.as_mut_ptr(),
                &ni,
                ab.as_mut_ptr(),
                &ldab,
                tau.as_mut_ptr(),
                work.as_mut_ptr(),
                &lw,
                &mut info,
            );
        }
        if info != 0 {
            return Err(lapack_error("dsytrd_sy2sb", info));
        }
        Ok(())
    };
    let mut wq = [0.0f64];
    sy2sb(&mut wq, -1)?;
    let lw = work_len("dsytrd_sy2sb", wq[0])?.max(n * kd);
    sy2sb(&mut vec![0.0; lw], dim_i32(lw)?)?;
    Ok(ab)
}

/// `dsytrd_sb2st('N', 'N', 'L')`: the tridiagonal `(d, e)` (`e` of length `n`, last entry unused)
/// of the symmetric band matrix `ab` (lower storage, `(kd+1) × n`, `ldab = kd + 1`; destroyed).
/// LAPACK's serial bulge chasing: the reference of [`band_to_tridiagonal_two_threads`].
fn band_to_tridiagonal_lapack(ab: &mut [f64], n: usize, kd: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    let (ni, kdi, ldab) = (dim_i32(n)?, dim_i32(kd)?, dim_i32(kd + 1)?);
    assert_eq!(
        ab.len(),
        (kd + 1) * n,
        "band_to_tridiagonal_lapack: band of {}",
        ab.len()
    );
    let mut d = vec![0.0; n];
    let mut e = vec![0.0; n];
    // queries of both workspaces (−1 each), then the call
    let mut sb2st = |hous: &mut [f64], lh: i32, work: &mut [f64], lw: i32| -> Result<()> {
        assert!(lh == -1 || usize::try_from(lh).is_ok_and(|l| l <= hous.len()));
        assert!(lw == -1 || usize::try_from(lw).is_ok_and(|l| l <= work.len()));
        let mut info = 0;
        // SAFETY: `ab` is (kd+1)×n with ldab = kd+1, `d` has n and `e` n ≥ n − 1 elements,
        // the workspaces hold the lengths passed (one element each for the query).
        unsafe {
            dsytrd_sb2st_(
                &b'N',
                &b'N',
                &b'L',
                &ni,
                &kdi,
                ab.as_mut_ptr(),
                &ldab,
                d.as_mut_ptr(),
                e.as_mut_ptr(),
                hous.as_mut_ptr(),
                &lh,
                work.as_mut_ptr(),
                &lw,
                &mut info,
            );
        }
        if info != 0 {
            return Err(lapack_error("dsytrd_sb2st", info));
        }
        Ok(())
    };
    let (mut hq, mut wq) = ([0.0f64], [0.0f64]);
    sb2st(&mut hq, -1, &mut wq, -1)?;
    let lh = work_len("dsytrd_sb2st", hq[0])?;
    let lw = work_len("dsytrd_sb2st", wq[0])?;
    sb2st(
        &mut vec![0.0; lh],
        dim_i32(lh)?,
        &mut vec![0.0; lw],
        dim_i32(lw)?,
    )?;
    Ok((d, e))
}

/// From this dimension on, [`two_stage_values`] chases the bulges on two threads
/// ([`band_to_tridiagonal_two_threads`]): the same threshold as [`TWO_STAGE_FROM`].
///
/// The chase is the second stage of the two-stage solver, which the eigensolvers of this module
/// enter only from [`TWO_STAGE_FROM`] on; an earlier value of 1024 here was never reached from
/// them (only [`two_stage_values`]' own unit test calls it below 2048, at `n = 300`, where LAPACK's
/// serial chase is kept and checked). With both thresholds equal, every two-stage solve of the
/// estimator chases on two threads, and below it the one-stage `dsyevd` runs, whose reduction has
/// no band stage. Moving the two-stage crossover below 2048 (the two-thread chase makes the band
/// stage ≈ 0.1 CPU-s cheaper at 2000) would move this one with it; it was not re-measured.
pub const PARALLEL_CHASE_FROM: usize = TWO_STAGE_FROM;

/// One call of LAPACK's bulge-chasing kernel `dsb2st_kernels`: its type and its row range
/// `st..=ed` (1-based, as `dsytrd_sb2st` computes them).
#[derive(Clone, Copy, Debug, PartialEq)]
struct ChaseStep {
    ttype: i32,
    st: i32,
    ed: i32,
}

/// The kernel calls of `dsytrd_sb2st`'s main loop for an `n × n` band of width `kd` (its serial
/// branch, `THGRSIZ = N`, `GRSIZ = 1`, `SHIFT = 3`), grouped by sweep: `out[s − 1]` lists the
/// steps `MYID = 1, 2, …` of sweep `s` in order. The loop runs, at each time `I` and for
/// `M = 1, 2, 3`, step `3(I − s) + M` of every active sweep `s`, so sweep `s` is three steps behind
/// sweep `s − 1`; a sweep ends with the step whose block reaches row `n − 1`.
fn chase_schedule(n: usize, kd: usize) -> Vec<Vec<ChaseStep>> {
    assert!(n >= 2 && kd >= 1);
    let mut sweeps: Vec<Vec<ChaseStep>> = vec![Vec::new(); n - 1];
    let (thed, mut stt) = (n - 1, 1usize);
    'outer: for i in 1..n {
        let ed = i.min(thed);
        if stt > ed {
            break 'outer;
        }
        for m in 1..=3 {
            let st = stt;
            for sweep in st..=ed {
                let myid = (i - sweep) * 3 + m;
                let ttype = if myid == 1 { 1 } else { myid % 2 + 2 };
                let colpt = if ttype == 2 {
                    (myid / 2) * kd + sweep
                } else {
                    myid.div_ceil(2) * kd + sweep
                };
                let (stind, edind) = (colpt + 1 - kd, colpt.min(n));
                let blklastind = if ttype == 2 {
                    colpt
                } else if stind + 1 >= edind && edind == n {
                    n
                } else {
                    0
                };
                let steps = &mut sweeps[sweep - 1];
                assert_eq!(steps.len() + 1, myid, "sweep {sweep}: steps out of order");
                steps.push(ChaseStep {
                    ttype: ttype as i32,
                    st: stind as i32,
                    ed: edind as i32,
                });
                if blklastind + 1 >= n {
                    stt += 1;
                }
            }
        }
    }
    sweeps
}

/// The band matrix shared by the two threads of [`band_to_tridiagonal_two_threads`].
struct SharedBand(*mut f64);
// SAFETY: the threads touch the band only through `dsb2st_kernels` calls ordered as documented
// at `band_to_tridiagonal_two_threads` (LAPACK's task dependencies); the pointer outlives them.
unsafe impl Send for SharedBand {}
unsafe impl Sync for SharedBand {}

/// [`band_to_tridiagonal_lapack`] with the sweeps on two threads (docs/kernel.md,
/// "band_to_tridiagonal_two_threads"): the same `dsb2st_kernels` calls with the same arguments as
/// `dsytrd_sb2st`'s serial loop ([`chase_schedule`]), odd sweeps on one thread and even ones on
/// the other, step `k` of sweep `s` started only once sweep `s − 1` has finished its step `k + 3`
/// (or all of its steps) — the order the serial loop gives those two sweeps, and one step more
/// than the dependencies of LAPACK's own OpenMP tasks (`MYID + SHIFT − 1` of the previous sweep).
/// Each thread keeps its own Householder slot (`dsb2st_kernels` stores sweep `s`'s reflectors at
/// offset `((s − 1) mod 2)·n`, i.e. one slot per thread) and workspace. Returns `(d, e)` as
/// `dsytrd_sb2st` does; `ab` is read only.
fn band_to_tridiagonal_two_threads(ab: &[f64], n: usize, kd: usize) -> (Vec<f64>, Vec<f64>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    extern "C" {
        fn dsb2st_kernels_(
            uplo: *const u8,
            wantz: *const i32,
            ttype: *const i32,
            st: *const i32,
            ed: *const i32,
            sweep: *const i32,
            n: *const i32,
            nb: *const i32,
            ib: *const i32,
            a: *mut f64,
            lda: *const i32,
            v: *mut f64,
            tau: *mut f64,
            ldvt: *const i32,
            work: *mut f64,
        );
    }
    assert!(kd >= 2 && n > kd && ab.len() == (kd + 1) * n);
    let schedule = chase_schedule(n, kd);
    // dsytrd_sb2st's working copy: lda = 2kd + 1, the band in rows 0..=kd, zeros below
    let lda = 2 * kd + 1;
    let mut a = vec![0.0; lda * n];
    for (dst, src) in a.chunks_mut(lda).zip(ab.chunks(kd + 1)) {
        dst[..=kd].copy_from_slice(src);
    }
    let done: Vec<AtomicUsize> = (0..schedule.len()).map(|_| AtomicUsize::new(0)).collect();
    let band = SharedBand(a.as_mut_ptr());
    let (ni, kdi, ldai) = (n as i32, kd as i32, lda as i32);
    // IB and LDVT only position the reflectors of the `WANTZ` branch; with `WANTZ = .FALSE.` the
    // kernel does not read them for anything else
    let (ib, ldvt, wantz) = (1i32, kd as i32 + 1, 0i32);
    let run = |parity: usize| {
        let band = &band;
        let mut v = vec![0.0; 2 * n + kd + 2];
        let mut tau = vec![0.0; 2 * n + kd + 2];
        let mut work = vec![0.0; 2 * kd + 2];
        for s in (parity..schedule.len()).step_by(2) {
            let sweep = (s + 1) as i32;
            for (k, step) in schedule[s].iter().enumerate() {
                if s > 0 {
                    let need = (k + 4).min(schedule[s - 1].len());
                    let mut spins = 0u32;
                    while done[s - 1].load(Ordering::Acquire) < need {
                        if spins < 256 {
                            spins += 1;
                            std::hint::spin_loop();
                        } else {
                            std::thread::yield_now();
                        }
                    }
                }
                // SAFETY: `a` is lda × n (column-major) and outlives both threads; the kernel
                // reads and writes the rows/columns around `st..=ed` only after the steps it
                // depends on are done (the wait above), `v` and `tau` hold 2n + kd + 2 ≥ the
                // largest offset `n + st + kd`, `work` ≥ kd + 1 (dlarfx/dlarfy workspaces).
                unsafe {
                    dsb2st_kernels_(
                        &b'L',
                        &wantz,
                        &step.ttype,
                        &step.st,
                        &step.ed,
                        &sweep,
                        &ni,
                        &kdi,
                        &ib,
                        band.0,
                        &ldai,
                        v.as_mut_ptr(),
                        tau.as_mut_ptr(),
                        &ldvt,
                        work.as_mut_ptr(),
                    );
                }
                done[s].store(k + 1, Ordering::Release);
            }
        }
    };
    std::thread::scope(|scope| {
        let helper = scope.spawn(|| run(1));
        run(0);
        // reached only by a panic of the helper (a bug): re-raised here, as `scope` would
        helper
            .join()
            .expect("the bulge-chasing helper thread panicked");
    });
    let d = a.chunks(lda).map(|c| c[0]).collect();
    let mut e: Vec<f64> = a.chunks(lda).map(|c| c[1]).collect();
    e[n - 1] = 0.0;
    (d, e)
}

/// Full decomposition `A = E diag(ν) Eᵀ` of a real symmetric `a` (its lower triangle is read),
/// ascending, by `dsyevd` on `a`'s own buffer: the eigenvectors overwrite it (peak memory `a` plus
/// the `1 + 6n + 2n²` workspace, against a further `n²` for the copying [`crate::spectral`] call).
/// Same driver and input as `Backend::Lapack.eigh_real`, hence the same numbers.
pub(crate) fn eigh_in_place(a: Array2<f64>) -> Result<(Array1<f64>, Array2<f64>)> {
    let n = a.nrows();
    assert_eq!(a.ncols(), n, "eigh_in_place: a {}×{} matrix", n, a.ncols());
    let mut buf = into_buffer(a);
    let w = syevd(&mut buf, n, true)?;
    let e = Array2::from_shape_vec((n, n).f(), buf).map_err(|e| Error::Eigensolver {
        backend: "dsyevd",
        reason: format!("unexpected output shape: {e}"),
    })?;
    Ok((Array1::from(w), e))
}

/// Eigenvalues (ascending) of a real symmetric `a` (its lower triangle is read), destroying it:
/// the two-stage reduction ([`two_stage_values`]) from [`TWO_STAGE_FROM`], `dsyevd` below;
/// small workspaces.
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
    let w = if n >= TWO_STAGE_FROM {
        two_stage_values(&mut buf, n)?
    } else {
        syevd(&mut buf, n, false)?
    };
    Ok(Array1::from(w))
}

/// The spectrum `ν` (ascending) of a real symmetric `kyy` (`m × m`, lower triangle read) and
/// `C = K_XY E` for `kyy = E diag(ν) Eᵀ`, without forming `E` (derivation: `docs/kernel.md`,
/// "eigh_times"). `dsytrd` reduces `kyy` in its own buffer to `T = Qᵀ K_YY Q`. Then two threads
/// with one BLAS thread each: a helper forms the block factors of the reflectors and applies
/// them, `P = K_XY Q`, to row blocks of `K_XY`'s own buffer ([`apply_reflectors_blocked`]:
/// `dormtr`'s algorithm with blocks of [`REFLECTOR_BLOCK`]), while this thread computes the
/// eigenvectors `Z` of `T` (`dstedc`); then both apply the remaining blocks and multiply applied
/// ones by `Z`, `C_b = P_b Z` (gemm into a per-thread block, copied back over `P_b`). `E = Q Z` is
/// `dsyevd`'s own back-transformation, so this is `dsyevd`'s decomposition with the products
/// associated as `(K_XY Q) Z` instead of `K_XY (Q Z)`: the same flops, but the serial `dstedc` no
/// longer leaves a core idle.
///
/// Both threads read the reflectors, neither writes them: the `T` factors (`dlarft`) are all formed
/// before the first block is handed out, and `dlarfb` only reads `V` and `T` (LAPACK's unblocked
/// `dorm2r`, which `dormtr` may call, overwrites a reflector's leading entry while it uses it: an
/// earlier version that let two threads call `dormtr` raced). Peak memory `3m² + nm` doubles
/// (`K_YY`, `Z`, `dstedc`'s `m²` workspace, `K_XY`) plus two `block × m` buffers.
pub(crate) fn eigh_times(kyy: Array2<f64>, kxy: Array2<f64>) -> Result<(Array1<f64>, Array2<f64>)> {
    let m = kyy.nrows();
    assert_eq!(kyy.ncols(), m, "eigh_times: K_YY is {}×{}", m, kyy.ncols());
    let n = kxy.nrows();
    assert_eq!(
        kxy.ncols(),
        m,
        "eigh_times: K_XY has {} columns, not {m}",
        kxy.ncols()
    );
    if m < 2 || n == 0 {
        let (nu, e) = eigh_in_place(kyy)?;
        return Ok((nu, kxy.dot(&e)));
    }
    let mi = dim_i32(m)?;
    let mut a = into_buffer(kyy);
    let (mut d, mut e, mut tau) = (vec![0.0; m], vec![0.0; m - 1], vec![0.0; m - 1]);
    let mut info = 0;
    let mut wq = [0.0f64];
    // SAFETY: query (lwork = −1): writes wq[0] only.
    unsafe {
        lapack::dsytrd(
            b'L', mi, &mut a, mi, &mut d, &mut e, &mut tau, &mut wq, -1, &mut info,
        )
    };
    if info != 0 {
        return Err(lapack_error("dsytrd", info));
    }
    let lw = work_len("dsytrd", wq[0])?;
    let mut work = vec![0.0; lw];
    // SAFETY: `a` is m×m (lda = m), `d` has m, `e` and `tau` m − 1 elements, `work` lw.
    unsafe {
        lapack::dsytrd(
            b'L',
            mi,
            &mut a,
            mi,
            &mut d,
            &mut e,
            &mut tau,
            &mut work,
            dim_i32(lw)?,
            &mut info,
        );
    }
    if info != 0 {
        return Err(lapack_error("dsytrd", info));
    }
    drop(work);
    // row-major K_XY (n × m) read column-major is K_YX (m × n): Qᵀ K_YX = (K_XY Q)ᵀ = Pᵀ, i.e.
    // the same buffer read row-major is P; its rows (columns of K_YX) are independent blocks
    let mut p = if kxy.is_standard_layout() {
        kxy
    } else {
        kxy.as_standard_layout().into_owned()
    };
    let rows = (n / 16).max(128).min(n);
    // unreachable: `p` is an owned standard-layout array (both branches above)
    let blocks: Vec<Mutex<&mut [f64]>> = p
        .as_slice_mut()
        .expect("standard layout")
        .chunks_mut(rows * m)
        .map(Mutex::new)
        .collect();
    let schedule = Schedule::new(blocks.len());
    let zcell: std::sync::OnceLock<Array2<f64>> = std::sync::OnceLock::new();
    let tcell: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let (a, tau) = (a, tau);
    // apply every reflector to blocks not yet taken and, once Z exists, multiply applied blocks by
    // Z (both threads; `dlarfb` only reads the reflectors and the precomputed T factors)
    let work_loop = || -> Result<()> {
        let mut out: Option<Array2<f64>> = None;
        let mut lwork: Vec<f64> = Vec::new();
        while let Some(task) = schedule.next() {
            let b = match task {
                Task::Apply(b) | Task::Multiply(b) => b,
            };
            let mut g = blocks[b].lock().unwrap_or_else(|e| e.into_inner());
            let r = g.len() / m;
            match task {
                Task::Apply(_) => {
                    // unreachable: `Schedule::next` hands out `Apply` only after `factors_ready`,
                    // which follows `tcell.set`
                    let ts = tcell.get().expect("T factors exist before any Apply task");
                    apply_reflectors_blocked(&a, ts, m, &mut g, &mut lwork)?;
                }
                Task::Multiply(_) => {
                    // unreachable: `Schedule::next` hands out `Multiply` only after `z_ready`,
                    // which follows `zcell.set`
                    let z = zcell.get().expect("Z exists before any Multiply task");
                    let out = out.get_or_insert_with(|| Array2::<f64>::zeros((rows, m)));
                    let pb =
                        ndarray::ArrayViewMut2::from_shape((r, m), &mut g[..]).map_err(|e| {
                            Error::Eigensolver {
                                backend: "dgemm",
                                reason: e.to_string(),
                            }
                        })?;
                    let mut ob = out.slice_mut(s![..r, ..]);
                    ndarray::linalg::general_mat_mul(1.0, &pb.view(), z, 0.0, &mut ob);
                    let mut pb = pb;
                    pb.assign(&ob);
                }
            }
            drop(g);
            schedule.done(task);
        }
        Ok(())
    };
    let run = |f: &dyn Fn() -> Result<()>| {
        let r = f();
        if r.is_err() {
            schedule.fail();
        }
        r
    };
    let (stedc, helper, mine) = with_single_blas_thread(|| {
        std::thread::scope(|scope| {
            let helper = scope.spawn(|| -> Result<()> {
                let _unwind = FailOnUnwind(&schedule);
                run(&|| {
                    // the T factors of all reflector blocks, once, before any block is touched
                    let _ = tcell.set(block_reflector_factors(&a, &tau, m)?);
                    schedule.factors_ready();
                    work_loop()
                })
            });
            let _unwind = FailOnUnwind(&schedule);
            let mut z = vec![0.0; m * m];
            let stedc = stedc_vectors(&mut d, &mut e, &mut z, m).and_then(|()| {
                Array2::from_shape_vec((m, m).f(), z).map_err(|e| Error::Eigensolver {
                    backend: "dstedc",
                    reason: format!("unexpected output shape: {e}"),
                })
            });
            let mine = match stedc {
                Ok(z) => {
                    let _ = zcell.set(z);
                    schedule.z_ready();
                    run(&work_loop).map(|()| Ok(()))
                }
                Err(err) => {
                    schedule.fail();
                    Ok(Err(err))
                }
            };
            let helper = helper.join().unwrap_or_else(|_| {
                Err(Error::Eigensolver {
                    backend: "dlarfb",
                    reason: "a worker thread panicked".into(),
                })
            });
            let (stedc, mine) = match mine {
                Ok(s) => (s, Ok(())),
                Err(err) => (Ok(()), Err(err)),
            };
            (stedc, helper, mine)
        })
    });
    stedc?;
    helper?;
    mine?;
    drop(blocks);
    Ok((Array1::from(d), p))
}

/// Reflectors per block of [`apply_reflectors_blocked`] (`dormtr` uses `ILAENV`'s 32): measured at
/// `m = n = 4000`, one thread, the whole back-transformation takes 3.8 CPU-s with `dormtr`, 3.2 with
/// blocks of 64 and 3.0 with blocks of 128 (docs/PERFORMANCE.md, "Kernel estimator: order two …").
const REFLECTOR_BLOCK: usize = 128;

/// `(first, count)` of each block of [`REFLECTOR_BLOCK`] reflectors among `k`, in order.
fn reflector_blocks(k: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..k)
        .step_by(REFLECTOR_BLOCK)
        .map(move |i| (i, REFLECTOR_BLOCK.min(k - i)))
}

/// The triangular factors `T_i` (`dlarft`, forward, columnwise) of the blocks of
/// [`REFLECTOR_BLOCK`] reflectors of `dsytrd('L')` (reflector `j` in column `j` of `a` below the
/// subdiagonal, `m − 1` of them), each `REFLECTOR_BLOCK × REFLECTOR_BLOCK`, in order.
fn block_reflector_factors(a: &[f64], tau: &[f64], m: usize) -> Result<Vec<f64>> {
    let k = m - 1;
    let nb = REFLECTOR_BLOCK;
    let (mi, nbi) = (dim_i32(m)?, dim_i32(nb)?);
    assert!(a.len() == m * m && tau.len() >= k);
    let mut ts = vec![0.0; nb * nb * k.div_ceil(nb)];
    for (t, (i, ib)) in ts.chunks_mut(nb * nb).zip(reflector_blocks(k)) {
        // SAFETY: the reflectors i..i+ib live in columns i.. of `a` from row i + 1 on (a
        // (k − i) × ib block with leading dimension m), `tau[i..]` has ≥ ib elements, `t` is
        // nb × nb (ldt = nb ≥ ib).
        unsafe {
            lapack::dlarft(
                b'F',
                b'C',
                dim_i32(k - i)?,
                dim_i32(ib)?,
                &a[(i + 1) + i * m..],
                mi,
                &tau[i..],
                t,
                nbi,
            );
        }
    }
    Ok(ts)
}

/// `Qᵀ B` in place for the column-major `m × cols` block `b`, `Q` the orthogonal factor of
/// `dsytrd('L')` (reflectors in `a`, factors from [`block_reflector_factors`]): `dormtr`'s
/// algorithm (`dormqr` on rows 2..m, blocks applied first to last by `dlarfb`) with blocks of
/// [`REFLECTOR_BLOCK`] and the factors computed once. `dlarfb` only reads `a` and `ts`.
fn apply_reflectors_blocked(
    a: &[f64],
    ts: &[f64],
    m: usize,
    b: &mut [f64],
    work: &mut Vec<f64>,
) -> Result<()> {
    let k = m - 1;
    let nb = REFLECTOR_BLOCK;
    let cols = b.len() / m;
    assert!(a.len() == m * m && b.len() == m * cols && ts.len() >= nb * nb * k.div_ceil(nb));
    if cols == 0 {
        return Ok(());
    }
    work.resize(cols * nb, 0.0);
    let (mi, nbi, ci) = (dim_i32(m)?, dim_i32(nb)?, dim_i32(cols)?);
    for (t, (i, ib)) in ts.chunks(nb * nb).zip(reflector_blocks(k)) {
        // SAFETY: V is the (k − i) × ib block of `a` at row i + 1, column i (ldv = m); T is
        // nb × nb (ldt = nb); C is rows i + 1.. of the m × cols block `b` (ldc = m); the
        // workspace is cols × nb (ldwork = cols ≥ 1).
        unsafe {
            lapack::dlarfb(
                b'L',
                b'T',
                b'F',
                b'C',
                dim_i32(k - i)?,
                ci,
                dim_i32(ib)?,
                &a[(i + 1) + i * m..],
                mi,
                t,
                nbi,
                &mut b[i + 1..],
                mi,
                work,
                ci,
            );
        }
    }
    Ok(())
}

/// Marks the hand-over failed when its thread unwinds, so that a panic on one thread of
/// [`eigh_times`] cannot leave the other waiting forever (the scope then re-raises the panic).
struct FailOnUnwind<'a>(&'a Schedule);

impl Drop for FailOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.fail();
        }
    }
}

/// A unit of work of [`eigh_times`]'s two threads: apply the reflectors to row block `b` of
/// `K_XY`, or multiply the (applied) block by `Z`.
#[derive(Clone, Copy)]
enum Task {
    Apply(usize),
    Multiply(usize),
}

#[derive(Clone, Copy, PartialEq)]
enum BlockState {
    Raw,
    Applying,
    Applied,
    Busy,
    Finished,
}

/// Hand-out of [`eigh_times`]'s tasks: blocks in order, each applied once and then multiplied
/// once, by whichever thread asks first; Apply tasks once the T factors exist, Multiply tasks once
/// `Z` exists (multiplying first, so that finished blocks leave the queue early).
struct Schedule {
    state: Mutex<ScheduleState>,
    changed: std::sync::Condvar,
}

struct ScheduleState {
    blocks: Vec<BlockState>,
    factors: bool,
    z: bool,
    failed: bool,
}

impl Schedule {
    fn new(blocks: usize) -> Self {
        Schedule {
            state: Mutex::new(ScheduleState {
                blocks: vec![BlockState::Raw; blocks],
                factors: false,
                z: false,
                failed: false,
            }),
            changed: std::sync::Condvar::new(),
        }
    }
    fn update(&self, f: impl FnOnce(&mut ScheduleState)) {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut g);
        self.changed.notify_all();
    }
    fn factors_ready(&self) {
        self.update(|s| s.factors = true);
    }
    fn z_ready(&self) {
        self.update(|s| s.z = true);
    }
    fn fail(&self) {
        self.update(|s| s.failed = true);
    }
    fn done(&self, task: Task) {
        self.update(|s| match task {
            Task::Apply(b) => s.blocks[b] = BlockState::Applied,
            Task::Multiply(b) => s.blocks[b] = BlockState::Finished,
        });
    }
    /// The next task, waiting while none is available yet; `None` when every block is finished
    /// or being finished by the other thread, or when a thread failed.
    fn next(&self) -> Option<Task> {
        let mut g = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if g.failed {
                return None;
            }
            if g.z {
                if let Some(b) = g.blocks.iter().position(|&s| s == BlockState::Applied) {
                    g.blocks[b] = BlockState::Busy;
                    return Some(Task::Multiply(b));
                }
            }
            if g.factors {
                if let Some(b) = g.blocks.iter().position(|&s| s == BlockState::Raw) {
                    g.blocks[b] = BlockState::Applying;
                    return Some(Task::Apply(b));
                }
            }
            if g.blocks
                .iter()
                .all(|&s| s == BlockState::Busy || s == BlockState::Finished)
            {
                return None;
            }
            g = self.changed.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Eigenvalues (into `d`, ascending) and eigenvectors (`z`, column-major `m × m`) of the
/// symmetric tridiagonal matrix with diagonal `d` and off-diagonal `e`: `dstedc('I')`.
fn stedc_vectors(d: &mut [f64], e: &mut [f64], z: &mut [f64], m: usize) -> Result<()> {
    let mi = dim_i32(m)?;
    assert!(d.len() == m && e.len() + 1 >= m && z.len() == m * m);
    let mut info = 0;
    let (mut wq, mut iq) = ([0.0f64], [0i32]);
    // SAFETY: query (lwork = liwork = −1): writes wq[0] and iq[0] only.
    unsafe { lapack::dstedc(b'I', mi, d, e, z, mi, &mut wq, -1, &mut iq, -1, &mut info) };
    if info != 0 {
        return Err(lapack_error("dstedc", info));
    }
    let lw = work_len("dstedc", wq[0])?;
    let li = work_len("dstedc", f64::from(iq[0]))?;
    let (mut work, mut iwork) = (vec![0.0; lw], vec![0i32; li]);
    // SAFETY: `d` has m, `e` m − 1 elements, `z` is m×m (ldz = m), workspaces as queried.
    unsafe {
        lapack::dstedc(
            b'I',
            mi,
            d,
            e,
            z,
            mi,
            &mut work,
            dim_i32(lw)?,
            &mut iwork,
            dim_i32(li)?,
            &mut info,
        );
    }
    if info != 0 {
        return Err(lapack_error("dstedc", info));
    }
    if d.iter().any(|v| !v.is_finite()) {
        return Err(lapack_error("dstedc", i32::MAX));
    }
    Ok(())
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
    sandwich_triangle(k, c, a, b, scale, cblas_sys::CBLAS_UPLO::CblasLower)
}

/// The eigenvalues (ascending) of `M = a·K + b·W Wᵀ`, `W = C diag(scale)`, as
/// [`eigvalsh_in_place`] of [`sandwich_in_place`]'s matrix but without the mirroring pass: the
/// `dsyrk` updates fill the row-major *upper* triangle, which read column-major is the lower
/// triangle that `uplo = 'L'` reads, so the buffer goes to the solver as it is. `None` if `M` has
/// a non-finite entry.
pub(crate) fn sandwich_eigvalsh(
    k: &ArrayView2<f64>,
    c: &ArrayView2<f64>,
    a: f64,
    b: f64,
    scale: &[f64],
) -> Result<Option<Array1<f64>>> {
    let m = sandwich_triangle(k, c, a, b, scale, cblas_sys::CBLAS_UPLO::CblasUpper)?;
    if !all_finite(&m) {
        return Ok(None);
    }
    let n = m.nrows();
    let (mut buf, offset) = m.into_raw_vec_and_offset();
    debug_assert!(offset.unwrap_or(0) == 0);
    let w = if n >= TWO_STAGE_FROM {
        two_stage_values(&mut buf, n)?
    } else {
        syevd(&mut buf, n, false)?
    };
    Ok(Some(Array1::from(w)))
}

/// [`sandwich_in_place`] with the `dsyrk` updates on the row-major triangle `uplo`.
fn sandwich_triangle(
    k: &ArrayView2<f64>,
    c: &ArrayView2<f64>,
    a: f64,
    b: f64,
    scale: &[f64],
    uplo: cblas_sys::CBLAS_UPLO,
) -> Result<Array2<f64>> {
    let (n, m) = c.dim();
    assert_eq!(k.dim(), (n, n), "sandwich_in_place: K is not n×n");
    assert_eq!(scale.len(), m, "sandwich_in_place: scale length");
    // row-major whatever K's layout (a resampled Gram block may be column-major)
    let mut out = Array2::<f64>::zeros((n, n));
    match (k.as_slice(), out.as_slice_mut()) {
        (Some(src), Some(dst)) if n > 0 => {
            // a serial O(n²) pass between the parallel BLAS calls: split it over rayon's threads
            // (no BLAS call inside)
            use rayon::prelude::*;
            dst.par_chunks_mut(64 * n)
                .zip(src.par_chunks(64 * n))
                .for_each(|(o, s)| o.iter_mut().zip(s).for_each(|(o, &v)| *o = a * v));
        }
        _ => ndarray::Zip::from(&mut out)
            .and(k)
            .for_each(|o, &v| *o = a * v),
    }
    let ni = dim_i32(n)?;
    if n == 0 {
        return Ok(out);
    }
    // unreachable: `out` was created by `zeros` (standard layout)
    let dst = out
        .as_slice_mut()
        .expect("a fresh zeros array is in standard layout");
    let mut block = Array2::<f64>::zeros((n, UPDATE_BLOCK.min(m.max(1))));
    for j0 in (0..m).step_by(UPDATE_BLOCK) {
        let j1 = (j0 + UPDATE_BLOCK).min(m);
        let kb = j1 - j0;
        scaled_columns(&mut block, c, j0, j1, &scale[j0..j1]);
        let ld = dim_i32(block.ncols())?;
        // unreachable: `block` was created by `zeros` (standard layout)
        let src = block.as_slice().expect("the block is in standard layout");
        // SAFETY: `src` is a row-major n × ld buffer whose first kb ≤ ld columns are read
        // (lda = ld ≥ kb); `dst` is a row-major n × n buffer (ldc = n); both outlive the call.
        unsafe {
            cblas_sys::cblas_dsyrk(
                cblas_sys::CBLAS_LAYOUT::CblasRowMajor,
                uplo,
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

/// `block[i, ..j1 − j0] = C[i, j0..j1] · scale` (elementwise per column), row by row on rayon's
/// threads: a serial `O(nm)` pass between the parallel `dsyrk` calls of [`sandwich_triangle`]
/// that read the row-major block column by column (stride 256) left a core idle for ≈ 0.2 CPU-s
/// at `n = m = 4000` (docs/PERFORMANCE.md, "Kernel estimator: where the time goes"). Each
/// entry is the same product `c · s`, so the numbers are bitwise those of the serial pass.
fn scaled_columns(
    block: &mut Array2<f64>,
    c: &ArrayView2<f64>,
    j0: usize,
    j1: usize,
    scale: &[f64],
) {
    use rayon::prelude::*;
    let kb = j1 - j0;
    debug_assert!(scale.len() == kb && block.ncols() >= kb && block.nrows() == c.nrows());
    let width = block.ncols();
    // unreachable: the caller's `block` comes from `zeros` (standard layout)
    let dst = block
        .as_slice_mut()
        .expect("the update block is in standard layout");
    match c.as_slice() {
        Some(src) => {
            let m = c.ncols();
            dst.par_chunks_mut(width)
                .zip(src.par_chunks(m))
                .with_min_len(64)
                .for_each(|(o, r)| {
                    o[..kb]
                        .iter_mut()
                        .zip(&r[j0..j1])
                        .zip(scale)
                        .for_each(|((o, &v), &sj)| *o = v * sj)
                });
        }
        None => dst
            .par_chunks_mut(width)
            .enumerate()
            .with_min_len(64)
            .for_each(|(i, o)| {
                o[..kb]
                    .iter_mut()
                    .zip(c.slice(s![i, j0..j1]))
                    .zip(scale)
                    .for_each(|((o, &v), &sj)| *o = v * sj)
            }),
    }
}

/// Whether every entry of `m` is finite, on rayon's threads for standard-layout matrices (a serial
/// `n²` pass before the values solve otherwise).
fn all_finite(m: &Array2<f64>) -> bool {
    use rayon::prelude::*;
    match m.as_slice() {
        Some(v) => v
            .par_chunks(1 << 16)
            .all(|c| c.iter().all(|x| x.is_finite())),
        None => m.iter().all(|x| x.is_finite()),
    }
}

/// `(Tr M, ln ‖M‖_F²)` of `M = a·K + b·W Wᵀ`, `W = C diag(scale)`, without its eigenvalues: for
/// real symmetric `M`, `Σ_k μ_k = Tr M` and `Σ_k μ_k² = Tr M² = ‖M‖_F²` (docs/kernel.md,
/// "sandwich_frobenius"). `M` is formed by [`sandwich_in_place`] (the same numbers the eigensolver
/// would get); its lower triangle is read twice (the largest entry, then the sum of squares scaled by
/// it, so that no square overflows or underflows). `ln ‖M‖_F² = −∞` for `M = 0`; an error if `M`
/// has a non-finite entry is the caller's (`Ok(None)`).
pub(crate) fn sandwich_frobenius(
    k: &ArrayView2<f64>,
    c: &ArrayView2<f64>,
    a: f64,
    b: f64,
    scale: &[f64],
) -> Result<Option<(f64, f64)>> {
    let m = sandwich_in_place(k, c, a, b, scale)?;
    let n = m.nrows();
    let rows = || (0..n).map(|i| m.slice(s![i, ..=i]));
    let mut top = 0.0f64;
    for row in rows() {
        for &v in row {
            if !v.is_finite() {
                return Ok(None);
            }
            top = top.max(v.abs());
        }
    }
    let trace: f64 = m.diag().sum();
    if top == 0.0 {
        return Ok(Some((trace, f64::NEG_INFINITY)));
    }
    let (mut off, mut diag) = (0.0f64, 0.0f64);
    for (i, row) in rows().enumerate() {
        // unreachable: `m` is `sandwich_triangle`'s `zeros` output (standard layout), so each row
        // slice is contiguous
        let r = row.as_slice().expect("a row of a standard-layout matrix");
        off += r[..i].iter().map(|v| (v / top) * (v / top)).sum::<f64>();
        diag += (r[i] / top) * (r[i] / top);
    }
    Ok(Some((trace, (2.0 * off + diag).ln() + 2.0 * top.ln())))
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
        let _serial = crate::spectral::test_thread_counts_lock();
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
        let _serial = crate::spectral::test_thread_counts_lock();
        // the two-stage driver on a matrix small enough for a unit test
        let n = 300;
        let a = symmetric(n, 3);
        let mut buf = into_buffer(a.clone());
        let w2 = two_stage_values(&mut buf, n).unwrap();
        let w1 = Backend::Lapack.eigvalsh_real(a.view()).unwrap();
        let scale = w1.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (x, y) in w2.iter().zip(&w1) {
            assert!((x - y).abs() <= 1e-13 * scale, "{x} vs {y}");
        }
    }

    /// The band of `dsytrd_sy2sb` for a test matrix (lower storage, `(kd+1) × n`).
    fn band_of(a: &Array2<f64>, kd: usize) -> Vec<f64> {
        full_to_band(&mut into_buffer(a.clone()), a.nrows(), kd).unwrap()
    }

    #[test]
    fn band_to_tridiagonal_two_threads_is_lapacks_bulge_chasing() {
        let _serial = crate::spectral::test_thread_counts_lock();
        crate::spectral::with_single_blas_thread(|| {
            // bitwise: the same kernel calls on the same data in an order that LAPACK's task
            // dependencies allow; repeated, so that a race would show
            for (n, kd, seed) in [
                (40, 3, 1u64),
                (257, 16, 2),
                (300, 64, 3),
                (700, 64, 4),
                (1100, 64, 5),
            ] {
                let a = symmetric(n, seed);
                let ab = band_of(&a, kd);
                let (d0, e0) = band_to_tridiagonal_lapack(&mut ab.clone(), n, kd).unwrap();
                for _ in 0..4 {
                    let (d1, e1) = band_to_tridiagonal_two_threads(&ab, n, kd);
                    assert_eq!(d0, d1, "n = {n}, kd = {kd}: diagonal");
                    assert_eq!(e0[..n - 1], e1[..n - 1], "n = {n}, kd = {kd}: off-diagonal");
                }
                // and the spectrum is the matrix's (independent solver: dsyevd on the full matrix)
                let mut d = d0.clone();
                let mut e = e0.clone();
                let mut info = 0;
                // SAFETY: d has n, e n ≥ n − 1 elements.
                unsafe { lapack::dsterf(n as i32, &mut d, &mut e, &mut info) };
                assert_eq!(info, 0);
                let w = Backend::Lapack.eigvalsh_real(a.view()).unwrap();
                let scale = w.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                for (x, y) in d.iter().zip(&w) {
                    assert!((x - y).abs() <= 1e-12 * scale, "n = {n}: {x} vs {y}");
                }
            }
        });
    }

    #[test]
    fn chase_schedule_has_every_sweep_in_order() {
        for (n, kd) in [(2, 1), (10, 3), (100, 64), (1000, 64), (4000, 64)] {
            let s = chase_schedule(n, kd);
            assert_eq!(s.len(), n - 1);
            for (i, steps) in s.iter().enumerate() {
                assert!(!steps.is_empty(), "n = {n}: sweep {} empty", i + 1);
                assert_eq!(steps[0].ttype, 1);
                // a sweep ends with the step whose block reaches row n − 1
                let last = steps.last().unwrap().ed as usize;
                assert!(last + 1 >= n, "sweep {} ends at {last}", i + 1);
            }
        }
    }

    /// [`sandwich_in_place`]'s matrix with its lower triangle mirrored onto the upper one.
    fn mirrored_sandwich(
        k: &Array2<f64>,
        c: &Array2<f64>,
        a: f64,
        b: f64,
        scale: &[f64],
    ) -> Array2<f64> {
        let mut dense = sandwich_in_place(&k.view(), &c.view(), a, b, scale).unwrap();
        let n = dense.nrows();
        for i in 0..n {
            for j in 0..i {
                dense[[j, i]] = dense[[i, j]];
            }
        }
        dense
    }

    #[test]
    fn sandwich_frobenius_is_the_power_sums_of_the_spectrum() {
        let (n, m) = (45, 300);
        let k = symmetric(n, 6);
        let c = Array2::from_shape_fn((n, m), |(i, j)| ((i * 5 + j * 7) % 13) as f64 - 6.0);
        let scale: Vec<f64> = (0..m).map(|j| 1.0 / (2.0 + j as f64)).collect();
        for (a, b, big) in [(0.5, -2.0, 1.0f64), (1.5, 0.25, 1.0), (0.5, -2.0, 1e200)] {
            // entries of 1e200: the squares overflow unless scaled
            let scaled: Vec<f64> = scale.iter().map(|s| s * big.sqrt()).collect();
            let (tr, ln_sq) = sandwich_frobenius(&k.view(), &c.view(), a * big, b, &scaled)
                .unwrap()
                .unwrap();
            let dense = mirrored_sandwich(&k, &c, a, b, &scale);
            let mu = Backend::Lapack.eigvalsh_real(dense.view()).unwrap();
            let (s1, s2) = (mu.sum(), mu.iter().map(|v| v * v).sum::<f64>());
            assert!((tr / big - s1).abs() <= 1e-12 * s2.sqrt(), "{tr} vs {s1}");
            let want = s2.ln() + 2.0 * big.ln();
            assert!(
                (ln_sq - want).abs() <= 1e-12 * want.abs().max(1.0),
                "{ln_sq} vs {want}"
            );
        }
        let zero = Array2::<f64>::zeros((3, 3));
        let c0 = Array2::<f64>::zeros((3, 2));
        let r = sandwich_frobenius(&zero.view(), &c0.view(), 1.0, 1.0, &[1.0, 1.0]).unwrap();
        assert_eq!(r, Some((0.0, f64::NEG_INFINITY)));
    }

    #[test]
    fn sandwich_eigvalsh_is_the_spectrum_of_the_mirrored_matrix() {
        let _serial = crate::spectral::test_thread_counts_lock();
        // the upper-triangle route without mirroring against the lower-triangle matrix, mirrored,
        // solved by the copying backend (an independent buffer and driver call)
        let (n, m) = (45, 300);
        let k = symmetric(n, 7);
        let c = Array2::from_shape_fn((n, m), |(i, j)| ((i * 5 + j * 3) % 17) as f64 - 8.0);
        let scale: Vec<f64> = (0..m).map(|j| 1.0 / (3.0 + j as f64)).collect();
        for (a, b) in [(0.5, -2.0), (1.5, 0.25)] {
            let mu = sandwich_eigvalsh(&k.view(), &c.view(), a, b, &scale)
                .unwrap()
                .unwrap();
            let dense = mirrored_sandwich(&k, &c, a, b, &scale);
            let want = Backend::Lapack.eigvalsh_real(dense.view()).unwrap();
            let top = want.iter().fold(0.0f64, |t, v| t.max(v.abs()));
            for (x, y) in mu.iter().zip(&want) {
                assert!((x - y).abs() <= 1e-12 * top, "{x} vs {y}");
            }
        }
        let inf = sandwich_eigvalsh(&k.view(), &c.view(), f64::INFINITY, 1.0, &scale).unwrap();
        assert!(inf.is_none());
    }

    #[test]
    fn scaled_columns_is_the_serial_scaled_copy() {
        // bitwise the per-column `mapv` pass it replaces, for row- and column-major C, a full
        // and a partial block (the entries past the block's width keep their old values)
        let (n, m) = (300, 700);
        let c = Array2::from_shape_fn((n, m), |(i, j)| ((i * 13 + j * 7) % 23) as f64 / 7.0 - 1.5);
        let cf = c.t().as_standard_layout().into_owned().reversed_axes();
        assert!(!cf.is_standard_layout());
        let scale: Vec<f64> = (0..m).map(|j| 1.0 / (1.0 + j as f64).sqrt()).collect();
        for (j0, j1) in [(0, 256), (512, 700)] {
            let mut want = Array2::from_elem((n, 256), 9.0);
            let mut w = want.slice_mut(s![.., ..j1 - j0]);
            w.assign(&c.slice(s![.., j0..j1]));
            for (mut col, sj) in w.columns_mut().into_iter().zip(&scale[j0..j1]) {
                col.mapv_inplace(|v| v * sj);
            }
            for cc in [&c, &cf] {
                let mut got = Array2::from_elem((n, 256), 9.0);
                scaled_columns(&mut got, &cc.view(), j0, j1, &scale[j0..j1]);
                assert_eq!(got, want, "block {j0}..{j1}");
            }
        }
        let mut z = Array2::<f64>::zeros((70_000, 2));
        assert!(all_finite(&z));
        z[[69_999, 1]] = f64::NAN;
        assert!(!all_finite(&z));
        z[[69_999, 1]] = f64::NEG_INFINITY;
        assert!(!all_finite(&z));
        assert!(!all_finite(&z.t().to_owned()));
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
