//! Quantities of the difference `ρ − γσ` (hockey-stick divergence, trace distance) straight from
//! two raw matrices: [`difference_from_matrices`] validates both inputs and overlaps their PSD
//! checks with the values-only eigensolve (docs/PERFORMANCE.md, "Hockey-stick and trace distance
//! from raw matrices").

use super::classical::check_gamma;
use super::Pair;
use crate::error::Error;
use crate::spectral::{Backend, EigenSolver};
use crate::state::density::{hermitian_unit_trace, psd_check};
use crate::state::{DensityMatrix, Tolerance};
use ndarray::{Array1, Array2, ShapeBuilder, Zip};
use num_complex::Complex64;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Smallest dimension at which [`difference_from_matrices`] runs the PSD checks beside the
/// eigensolve; below it (a solve of a few µs) the sequential route is as fast.
pub const OVERLAP_FROM: usize = super::from_matrices::CONCURRENT_FROM;

/// What [`difference_from_matrices`] computes from the eigenvalues of `ρ − γσ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Difference<'a> {
    /// `E_γ(ρ‖σ) = Tr(ρ − γσ)_+` at each γ ([`Pair::hockey_stick`]).
    HockeyStick(&'a [f64]),
    /// `½‖ρ − σ‖₁` ([`Pair::trace_distance`]).
    TraceDistance,
}

/// Which raw input a validation error of [`difference_from_matrices`] belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// The first state, ρ.
    Rho,
    /// The second state, σ.
    Sigma,
}

/// An error of [`difference_from_matrices`]: the error, and the operand whose validation
/// ([`DensityMatrix::with_options`]) raised it (`None` for the pair's own errors).
pub type OperandError = (Option<Operand>, Error);

/// `E_γ(ρ‖σ)` from the (validated, exactly Hermitian) matrices: the sum of the positive
/// eigenvalues of `ρ − γσ`, one values-only eigensolve with `backend` (the computation of
/// [`Pair::hockey_stick`]).
pub(crate) fn hockey_stick_of(
    rho: &Array2<Complex64>,
    sigma: &Array2<Complex64>,
    gamma: f64,
    backend: Backend,
) -> crate::Result<f64> {
    check_gamma(gamma)?;
    let m = Zip::from(rho)
        .and(sigma)
        .map_collect(|&r, &s| hockey_entry(r, s, gamma));
    hockey_value(&solve_hermitian(m, backend)?)
}

/// One entry of `ρ − γσ` (the same operations in both routes).
#[inline(always)]
fn hockey_entry(r: Complex64, s: Complex64, gamma: f64) -> Complex64 {
    r - s * gamma
}

/// `Tr(ρ − γσ)_+` from the eigenvalues (summed in their order).
fn hockey_value<'a>(ev: impl IntoIterator<Item = &'a f64>) -> crate::Result<f64> {
    Ok(ev.into_iter().filter(|&&x| x > 0.0).fold(0.0, |a, x| a + x))
}

/// `½‖ρ − σ‖₁` from the eigenvalues of `ρ − σ` (summed in their order).
fn trace_distance_value<'a>(ev: impl IntoIterator<Item = &'a f64>) -> crate::Result<f64> {
    Ok(0.5 * ev.into_iter().map(|x| x.abs()).sum::<f64>())
}

/// The eigenvalues of the exactly Hermitian matrix `m`. A row-major `m` is handed to the solver
/// as `mᵀ = m̄` (the same eigenvalues), its buffer being the column-major one of `m̄`: LAPACK then
/// needs no transposing copy (a strided read of the whole matrix, 0.14 ms at d = 256 and
/// 0.5–0.8 ms at 512 here), and where the solve is `zheevd`'s it runs on this buffer itself
/// ([`solve_row_major`]).
fn solve_hermitian(m: Array2<Complex64>, backend: Backend) -> crate::Result<Array1<f64>> {
    // a column-major difference (both states column-major) is copied to row-major: the solve then
    // runs on the same matrix, in the same layout, as the overlapped route from raw matrices
    // (`difference_from_matrices`), so the two routes agree bit for bit whatever the input layout
    let m = if m.is_standard_layout() {
        m
    } else {
        m.as_standard_layout().into_owned()
    };
    let n = m.nrows();
    let max_abs = max_abs_entry(m.as_slice().unwrap_or(&[]));
    solve_row_major(m.into_raw_vec_and_offset().0, n, max_abs, backend)
}

/// The eigenvalues of the exactly Hermitian `n × n` matrix whose row-major entries `buf` holds,
/// `max_abs` its largest `|re|`, `|im|`: `zheevd`'s values-only computation on the buffer itself
/// (`lapack::hermitian_values_in_place`: `zhetrd`, then `dsterf`'s job by the regrouped root-free
/// QL, `spectral::root_free::sterf`) where `backend`
/// solves with `zheevd` at this size and `zheevd` would not rescale, else `backend.eigvalsh` of
/// the conjugate (the buffer read column-major).
fn solve_row_major(
    mut buf: Vec<Complex64>,
    n: usize,
    max_abs: f64,
    backend: Backend,
) -> crate::Result<Array1<f64>> {
    if small_values_apply(n, backend) {
        // the buffer read column-major is m̄: its lower triangle is m's upper one, which both
        // routes fill (`raw_difference` only that one)
        let view =
            ndarray::ArrayView2::from_shape((n, n).f(), &buf).map_err(|e| Error::Eigensolver {
                backend: "difference",
                reason: format!("unexpected shape: {e}"),
            })?;
        return intermediate_values(view, backend);
    }
    #[cfg(feature = "openblas")]
    if backend.values_by_zheevd(n) {
        if let Some(v) = crate::spectral::lapack::hermitian_values_in_place(&mut buf, n, max_abs) {
            return v.map(Array1::from);
        }
    }
    #[cfg(not(feature = "openblas"))]
    let _ = (max_abs, &mut buf);
    let m = Array2::from_shape_vec((n, n).f(), buf).map_err(|e| Error::Eigensolver {
        backend: "difference",
        reason: format!("unexpected shape: {e}"),
    })?;
    backend.eigvalsh(m.view())
}

/// Whether [`small_values`] solves an `n × n` values-only problem with the fixed-size solvers:
/// `Backend::Auto` and `1 ≤ n ≤`
/// [`AUTO_SMALL_VALUES_MAX`](crate::spectral::small::AUTO_SMALL_VALUES_MAX) (16), the sizes at
/// which `Backend::Auto`'s own values-only solve is the fixed-size one (since smalleig19), so that
/// the differences of the hockey-stick and the trace distance take [`tridiagonal_values`] there
/// instead of a copy into `Backend::Auto`'s solver (docs/PERFORMANCE.md, "Session 19 after the
/// merges").
pub(crate) fn small_values_apply(n: usize, backend: Backend) -> bool {
    backend == Backend::Auto && (1..=crate::spectral::small::AUTO_SMALL_VALUES_MAX).contains(&n)
}

/// The eigenvalues (ascending) of the exactly Hermitian `a` (its lower triangle is read): for
/// `Backend::Auto` at `n ≤ 16` by the fixed-size Householder + QL solver
/// (`spectral::small::eigh_small`, values only, on a stack array: no heap matrix; LAPACK's
/// backward-stable bound, docs/divergences.md "small_tridiagonal"), else `backend.eigvalsh`. At
/// these sizes it is 1.4–2× nalgebra's and `zheevd`'s values-only solves (docs/PERFORMANCE.md,
/// "Single pairs at d ≤ 16 (call18)"). For the values-only solves of one pair: `ρ − γσ` of the
/// hockey-stick and the trace distance (both routes, so that they agree bit for bit) and `D ρ' D`
/// of the direct sandwiched route.
pub(crate) fn small_values(
    a: ndarray::ArrayView2<'_, Complex64>,
    backend: Backend,
) -> crate::Result<Array1<f64>> {
    use crate::spectral::small::{eigh_small, from_view, with_small_dim};
    // a non-finite entry: the backend's own answer (its error message)
    let finite = a.iter().all(|z| z.re.is_finite() && z.im.is_finite());
    if !small_values_apply(a.nrows(), backend) || a.nrows() != a.ncols() || !finite {
        return backend.eigvalsh(a);
    }
    // the fixed-size solver's iteration cap: the backend's solver, as before the small route
    with_small_dim!(a.nrows(), N => {
        match eigh_small::<N>(&from_view::<N>(&a), false) {
            Ok(e) => Ok(Array1::from_iter(e.values)),
            Err(_) => backend.eigvalsh(a),
        }
    }, _ => backend.eigvalsh(a))
}

/// The eigenvalues (ascending) of the exactly Hermitian `a` (lower triangle read) for the
/// values-only solves of one evaluation's intermediate matrices — `ρ − γσ` of the hockey-stick and
/// the trace distance, `D ρ' D` of the sandwiched family at α > 1 — at `3 ≤ n ≤ 16` with
/// `Backend::Auto`: [`tridiagonal_values`] (Householder to a real tridiagonal matrix, then the
/// root-free QL iteration; backward stable, the bound both families' accuracy rests on). Other
/// sizes, backends, non-finite entries and a solve that does not converge take [`small_values`].
/// (A state's own eigenvalues never come from here: they must not depend on whether its vectors
/// were asked for.)
pub(crate) fn intermediate_values(
    a: ndarray::ArrayView2<'_, Complex64>,
    backend: Backend,
) -> crate::Result<Array1<f64>> {
    use crate::spectral::small::{with_small_dim, TRIDIAGONAL_FROM};
    let n = a.nrows();
    if !small_values_apply(n, backend) && a.ncols() == n {
        if let Some(v) = in_place_values(a, backend) {
            return v;
        }
    }
    if !small_values_apply(n, backend) || n < TRIDIAGONAL_FROM || a.ncols() != n {
        return small_values(a, backend);
    }
    with_small_dim!(n, N => {
        let mut m = [[Complex64::new(0.0, 0.0); N]; N];
        for (i, row) in m.iter_mut().enumerate() {
            for (j, z) in row.iter_mut().enumerate().take(i + 1) {
                *z = a[[i, j]];
            }
        }
        match tridiagonal_values::<N>(&mut m) {
            Some(v) => Ok(Array1::from_iter(v)),
            None => small_values(a, backend),
        }
    }, _ => small_values(a, backend))
}

/// [`intermediate_values`] above the fixed-size solvers where `backend` solves values with
/// `zheevd`: the square `a`'s lower triangle copied column-major and solved in place
/// (`lapack::hermitian_values_in_place`: `zhetrd`, or the two-stage `zhetrd_2stage` from
/// [`TWO_STAGE_VALUES_FROM`](crate::spectral::lapack::TWO_STAGE_VALUES_FROM), then the regrouped
/// root-free QL, 1.7× `dsterf` — the hockey-stick's values solve), the values within the
/// backward-stable bound `c n ε ‖A‖₂` of `zheevd`'s. `None` — the caller's `backend.eigvalsh` —
/// for a non-finite entry, a matrix `zheevd` would rescale, another backend, or a build without
/// `openblas`.
fn in_place_values(
    a: ndarray::ArrayView2<'_, Complex64>,
    backend: Backend,
) -> Option<crate::Result<Array1<f64>>> {
    #[cfg(feature = "openblas")]
    {
        let n = a.nrows();
        if !backend.values_by_zheevd(n) {
            return None;
        }
        // column-major: the row-major copy of aᵀ
        let mut buf: Vec<Complex64> = a.t().iter().copied().collect();
        if !buf.iter().all(|z| z.re.is_finite() && z.im.is_finite()) {
            return None;
        }
        let max_abs = max_abs_entry(&buf);
        crate::spectral::lapack::hermitian_values_in_place(&mut buf, n, max_abs)
            .map(|v| v.map(Array1::from))
    }
    #[cfg(not(feature = "openblas"))]
    {
        let _ = (a, backend);
        None
    }
}

/// Iterations of the root-free QL method allowed per eigenvalue (LAPACK `dsterf`'s `MAXIT`).
const ROOT_FREE_ITERATIONS: usize = crate::spectral::root_free::SWEEPS_PER_VALUE;

/// The eigenvalues (ascending) of the Hermitian `N × N` matrix whose lower triangle `a` holds (it
/// is overwritten; the upper triangle is never read), by values-only Householder reduction and
/// the Pal–Walker–Kahan root-free QL iteration (LAPACK `dsterf`'s QL branch; docs/divergences.md,
/// "tridiagonal_values"). `None` for a non-finite entry or no convergence within
/// [`ROOT_FREE_ITERATIONS`]` · N` sweeps (the caller then asks another solver).
///
/// 1. `A` is scaled by the exact power of two that brings its largest `|re|`, `|im|` near 1
///    ([`power_of_two_scale`](crate::spectral::small::power_of_two_scale)), so that no square
///    below overflows and none of the entries that matter underflows.
/// 2. For `k = 0 … N−3` the Householder reflector `H = I − τvv†` maps column `k` below the
///    diagonal to `(α, 0, …)`, `α = −e^{i arg x₀}‖x‖`; only the lower triangle of the trailing
///    block is updated (`B − vw† − wv†`, `w = τBv − (τ²/2)(v†Bv)v`). The tridiagonal matrix
///    `T = Q†AQ` has the diagonal `d` and subdiagonal moduli `|e_k|`; the diagonal unitary that
///    makes `e` real does not change the eigenvalues, so only `d` and `e_k²` are kept (`e_k² =
///    ‖x‖²`: no square root for it).
/// 3. QL sweeps on `(d, e²)` with Wilkinson's shift (one square root per sweep) and `dsterf`'s
///    root-free rotation update (no square root per rotation), its two divisions regrouped so that
///    one step waits on one (docs/divergences.md, "tridiagonal_values"); a `2 × 2` block is solved
///    in closed form (`dlae2`). An off-diagonal is neglected when `e_k² ≤ ε²(|d_k| + |d_{k+1}|)²` —
///    the test of `eigh_tridiagonal`, squared.
///
/// Backward stable like `dsterf` after `zhetrd`: the values are those of `A + E`,
/// `‖E‖₂ ≤ c N ε ‖A‖₂` (the bound the hockey-stick's `d·ε·max(1, γ)` accuracy rests on).
///
/// Runs its AVX2 build where the CPU has it (from `N = 4`): the same operations in the same order
/// (Rust never contracts `a·b + c` into a fused multiply–add, and AVX2 only widens the vectors), so
/// the same values bit for bit (test `tridiagonal_values_avx2_is_portable`).
pub(crate) fn tridiagonal_values<const N: usize>(a: &mut [[Complex64; N]; N]) -> Option<[f64; N]> {
    #[cfg(target_arch = "x86_64")]
    {
        if N >= 4 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { tridiagonal_values_avx2(a) };
        }
    }
    tridiagonal_values_body(a)
}

/// [`tridiagonal_values_body`] compiled for AVX2 (the same operations).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn tridiagonal_values_avx2<const N: usize>(a: &mut [[Complex64; N]; N]) -> Option<[f64; N]> {
    tridiagonal_values_body(a)
}

/// [`tridiagonal_values`] without the AVX2 build (the reference its test compares against).
#[inline(always)]
fn tridiagonal_values_body<const N: usize>(a: &mut [[Complex64; N]; N]) -> Option<[f64; N]> {
    let mut big = 0.0f64;
    for (i, row) in a.iter().enumerate() {
        for z in &row[..=i] {
            big = big.max(z.re.abs()).max(z.im.abs());
        }
    }
    if !big.is_finite() {
        return None;
    }
    let scale = crate::spectral::small::power_of_two_scale(big);
    if scale != 1.0 {
        for (i, row) in a.iter_mut().enumerate() {
            for z in &mut row[..=i] {
                *z *= scale;
            }
        }
    }
    let mut d = [0.0f64; N];
    let mut e2 = [0.0f64; N];
    // 2. Householder reduction, lower triangle only
    for k in 0..N.saturating_sub(2) {
        let x0 = a[k + 1][k];
        let mut tail = 0.0;
        for row in &a[k + 2..] {
            tail += row[k].norm_sqr();
        }
        let x0_sq = x0.norm_sqr();
        e2[k] = x0_sq + tail;
        if tail < f64::MIN_POSITIVE {
            // already tridiagonal in this column: H = I
            continue;
        }
        let xnorm = e2[k].sqrt();
        let x0_abs = if x0_sq >= f64::MIN_POSITIVE {
            x0_sq.sqrt()
        } else {
            x0.re.hypot(x0.im)
        };
        let phase = if x0_abs > 0.0 {
            x0 / x0_abs
        } else {
            Complex64::new(1.0, 0.0)
        };
        let alpha = -phase * xnorm;
        let mut v = [Complex64::new(0.0, 0.0); N];
        v[k + 1] = x0 - alpha;
        for i in k + 2..N {
            v[i] = a[i][k];
        }
        let tau = 2.0 / (v[k + 1].norm_sqr() + tail);
        // p = τ B v, B the Hermitian trailing block (lower triangle stored)
        let mut p = [Complex64::new(0.0, 0.0); N];
        for i in k + 1..N {
            let mut z = Complex64::new(0.0, 0.0);
            for j in k + 1..=i {
                z += a[i][j] * v[j];
            }
            for j in i + 1..N {
                z += a[j][i].conj() * v[j];
            }
            p[i] = z * tau;
        }
        let mut vp = 0.0;
        for i in k + 1..N {
            // Re(v†p): v†Bv is real
            vp += v[i].re * p[i].re + v[i].im * p[i].im;
        }
        let half = 0.5 * tau * vp;
        for i in k + 1..N {
            p[i] -= v[i] * half;
        }
        for i in k + 1..N {
            for j in k + 1..=i {
                a[i][j] = a[i][j] - v[i] * p[j].conj() - p[i] * v[j].conj();
            }
        }
    }
    for (i, di) in d.iter_mut().enumerate() {
        *di = a[i][i].re;
    }
    if N >= 2 {
        e2[N - 2] = a[N - 1][N - 2].norm_sqr();
    }
    // 3. root-free QL (dsterf's QL branch)
    if !crate::spectral::root_free::root_free_ql(&mut d, &mut e2, ROOT_FREE_ITERATIONS * N) {
        return None;
    }
    if scale != 1.0 {
        for x in d.iter_mut() {
            *x /= scale;
        }
    }
    // ascending (the fixed-size solvers' insertion sort): the sums that follow add in this order
    crate::spectral::small::sort_ascending(&mut d);
    d.iter().all(|x| x.is_finite()).then_some(d)
}

/// [`intermediate_values`] on a stack array (the small-pair kernel's `D ρ' D`): the eigenvalues
/// (ascending) of the Hermitian `a` (lower triangle read) by [`tridiagonal_values`] from
/// `N = 3`, by `eigh_small` below that or where the root-free iteration does not converge.
pub(crate) fn intermediate_values_fixed<const N: usize>(
    a: &crate::spectral::small::Mat<N>,
) -> crate::Result<[f64; N]> {
    use crate::spectral::small::{eigh_small, TRIDIAGONAL_FROM};
    if N >= TRIDIAGONAL_FROM {
        let mut m = *a;
        if let Some(v) = tridiagonal_values::<N>(&mut m) {
            return Ok(v);
        }
    }
    Ok(eigh_small::<N>(a, false)?.values)
}

/// The largest `|re|`, `|im|` of the entries (independent lanes, vectorised; NaN is skipped).
fn max_abs_entry(a: &[Complex64]) -> f64 {
    const LANES: usize = 8;
    let mut m = [0.0f64; LANES];
    let chunks = a.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..LANES {
            let v = c[k].re.abs().max(c[k].im.abs());
            m[k] = if v > m[k] { v } else { m[k] };
        }
    }
    for z in rest {
        let v = z.re.abs().max(z.im.abs());
        m[0] = if v > m[0] { v } else { m[0] };
    }
    m.iter().copied().fold(0.0, f64::max)
}

/// `½‖ρ − σ‖₁` from the (validated) matrices (the computation of [`Pair::trace_distance`]).
pub(crate) fn trace_distance_of(
    rho: &Array2<Complex64>,
    sigma: &Array2<Complex64>,
    backend: Backend,
) -> crate::Result<f64> {
    let m = Zip::from(rho).and(sigma).map_collect(|&r, &s| r - s);
    trace_distance_value(&solve_hermitian(m, backend)?)
}

/// `f(H(a)_ij, H(b)_ij)` where `H(x) = (x + x†)/2` is what validation stores
/// (`symmetrize_checked`: the lower entry `m = (x_ij + conj x_ji)/2`, the upper one `conj m`,
/// the same operations here), so that the result equals `f` applied entrywise to the two
/// validated matrices, bit for bit — read straight from the raw inputs in one tiled pass.
/// Returned row-major with its largest `|re|`, `|im|`; only the upper triangle (the lower one of
/// the column-major buffer, all that `zhetrd` reads) unless `full`. `None` when an entry is not
/// finite (a raw input that validation will reject, or an overflow: the caller then takes the
/// sequential route).
fn raw_difference(
    a: &Array2<Complex64>,
    b: &Array2<Complex64>,
    full: bool,
    f: impl Fn(Complex64, Complex64) -> Complex64,
) -> Option<(Vec<Complex64>, f64)> {
    use crate::state::validation::SLICE_TILE as T;
    let r = a.nrows();
    let (a, b) = (a.as_standard_layout(), b.as_standard_layout());
    let (a, b) = (a.as_slice()?, b.as_slice()?);
    let mut out = vec![Complex64::new(0.0, 0.0); r * r];
    let (mut bad, mut max_abs) = (false, 0.0f64);
    // the upper triangle (j, i), j ≤ i, tile by tile, each row of a tile written in order
    for bi in (0..r).step_by(T) {
        for bj in (0..=bi).step_by(T) {
            for j in bj..(bj + T).min(r) {
                for i in bi.max(j)..(bi + T).min(r) {
                    let (ij, ji) = (i * r + j, j * r + i);
                    // validation's lower entry of (i, j) and its stored conjugate at (j, i)
                    let ma = (a[ij] + a[ji].conj()) * 0.5;
                    let mb = (b[ij] + b[ji].conj()) * 0.5;
                    let up = if i == j {
                        f(ma, mb)
                    } else {
                        f(ma.conj(), mb.conj())
                    };
                    // NaN or ±∞ (or a sum beyond f64::MAX) marks the difference as not finite
                    let sum = up.re.abs() + up.im.abs();
                    bad |= sum.is_nan() || sum > f64::MAX;
                    let v = up.re.abs().max(up.im.abs());
                    max_abs = if v > max_abs { v } else { max_abs };
                    out[ji] = up;
                }
            }
        }
    }
    if bad {
        return None;
    }
    if full {
        for i in 1..r {
            for j in 0..i {
                let (ij, ji) = (i * r + j, j * r + i);
                let ma = (a[ij] + a[ji].conj()) * 0.5;
                let mb = (b[ij] + b[ji].conj()) * 0.5;
                out[ij] = f(ma, mb);
            }
        }
    }
    Some((out, max_abs))
}

/// The values of `what` from the raw matrices (each difference by [`raw_difference`]), solves
/// skipped once `abort` is set (the checks beside them rejected an input); `None` when skipped or
/// when a difference is not finite.
fn raw_values(
    rho: &Array2<Complex64>,
    sigma: &Array2<Complex64>,
    what: Difference<'_>,
    backend: Backend,
    abort: &AtomicBool,
) -> Option<crate::Result<Vec<f64>>> {
    let r = rho.nrows();
    // only the triangle zhetrd reads where the solve is zheevd's on the buffer itself
    let full = !backend.values_by_zheevd(r) && !small_values_apply(r, backend);
    let solve = |m: Option<(Vec<Complex64>, f64)>| -> Option<crate::Result<Array1<f64>>> {
        let (buf, max_abs) = m?;
        if abort.load(Ordering::Relaxed) {
            return None;
        }
        Some(solve_row_major(buf, r, max_abs, backend))
    };
    let mut out = Vec::new();
    match what {
        Difference::HockeyStick(gammas) => {
            for &g in gammas {
                let m = raw_difference(rho, sigma, full, |r, s| hockey_entry(r, s, g));
                out.push(solve(m)?.and_then(|ev| hockey_value(&ev)));
            }
        }
        Difference::TraceDistance => {
            let m = raw_difference(rho, sigma, full, |r, s| r - s);
            out.push(solve(m)?.and_then(|ev| trace_distance_value(&ev)));
        }
    }
    Some(out.into_iter().collect())
}

/// The validation of both raw inputs, one after the other (`DensityMatrix::with_options`'s
/// checks on a copy: the `O(d²)` checks, then the PSD check), the first error tagged with its
/// operand.
fn check_both(
    rho: &Array2<Complex64>,
    sigma: &Array2<Complex64>,
    tol: Tolerance,
    backend: Backend,
) -> std::result::Result<(), OperandError> {
    for (m, o) in [(rho, Operand::Rho), (sigma, Operand::Sigma)] {
        let mut h = m.clone();
        let tag = |e: Error| (Some(o), e);
        let t = hermitian_unit_trace(&mut h, tol).map_err(tag)?;
        psd_check(&h, t, backend).map_err(tag)?;
    }
    Ok(())
}

/// How [`difference_from_matrices`] runs the two inputs' checks and the solves of `ρ − γσ`
/// (docs/PERFORMANCE.md, "Hockey-stick thread policy (hockey18)" and "(hockey21)"). Every
/// schedule gives the same accept/reject decisions and errors; the values are the same to
/// rounding — bit for bit between [`Sequential`](Schedule::Sequential),
/// [`Overlap`](Schedule::Overlap) and [`Caller`](Schedule::Caller) at equal BLAS thread counts,
/// while [`OverlapFaer`](Schedule::OverlapFaer) solves with faer instead of LAPACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// `DensityMatrix::with_options(ρ)`, `(σ)`, `Pair::new`, the values, one after the other
    /// with the caller's thread counts.
    Sequential,
    /// Both checks (on their own copies) offered to rayon's pool as one detached task while the
    /// calling thread forms each difference and solves it with LAPACK on its own buffer, OpenBLAS
    /// at one thread; whichever thread claims the checks first runs them — a pool thread beside
    /// the solve, or the caller itself after its solves when no pool thread has started them (a
    /// core busy elsewhere, e.g. with another library's spinning BLAS worker, then costs
    /// [`Caller`](Schedule::Caller)'s time instead of a wait for that core).
    Overlap,
    /// The checks, then the LAPACK solves, all on the calling thread with OpenBLAS at one thread:
    /// no pool task.
    Caller,
    /// The checks as one rayon task while faer's values-only solver splits `ρ − γσ` through
    /// rayon's pool (OpenBLAS pinned to one thread, faer's parallelism as set; the solve runs on a
    /// pool thread, so faer's splits are joined inside the pool): the core that finishes the
    /// checks joins the solve by work stealing. Needs the `faer` feature (else
    /// [`Overlap`](Schedule::Overlap) runs).
    OverlapFaer,
}

/// The schedule [`difference_from_matrices`] takes for two `d × d` inputs with `backend`:
///
/// * [`Sequential`](Schedule::Sequential) below [`OVERLAP_FROM`], when `backend` puts `d` on the
///   GPU, when rayon has one thread, or when BLAS runs more than two threads now (many cores:
///   the threaded solve);
/// * otherwise [`Overlap`](Schedule::Overlap), with one BLAS thread as with default (two) BLAS
///   threads (docs/PERFORMANCE.md, hockey21: the claimable checks never wait for a busy core,
///   and [`OverlapFaer`](Schedule::OverlapFaer) lost to it at d = 512 in every quiet comparison;
///   "Hockey-stick schedule with default threads (session 26)": [`Caller`](Schedule::Caller),
///   once taken below d = 192 with default threads, was 1.17× slower at d = 64 called alone and
///   no faster alternated with numpy's calls).
pub fn schedule(d: usize, backend: Backend) -> Schedule {
    if !super::from_matrices::side_by_side(d, backend) {
        return Schedule::Sequential;
    }
    Schedule::Overlap
}

/// The hockey-stick divergences or the trace distance of two raw matrices, with the results and
/// errors of `DensityMatrix::with_options(ρ)`, `DensityMatrix::with_options(σ)`, [`Pair::new`]
/// and [`Pair::hockey_stick`] (each γ in order) / [`Pair::trace_distance`] run one after the
/// other — the same accept/reject decisions, the same first error, the same values.
///
/// What differs is the schedule ([`schedule`]). Neither state is decomposed, so validation is the
/// cost on top of the solve: the `O(d²)` checks and a shifted Cholesky factorisation per input
/// (docs/conventions.md, "Validation tolerance"). Except in the sequential schedule, both inputs'
/// validations run on copies in the sequential order, and each `ρ − γσ` is formed straight from
/// the raw inputs with validation's own symmetrisation (the same operations, so the same matrix
/// as from the validated states, bit for bit) and solved values-only; a value is returned only
/// when both checks accepted (a rejection also stops solves not yet started). The checks run on a
/// pool thread beside the caller's LAPACK solve, or on the caller after it when no pool thread
/// took them in time ([`Schedule::Overlap`]); the solve runs with OpenBLAS at one thread, so the
/// values are bit for bit those of the sequential calls at one BLAS thread, with one BLAS thread
/// as with default threads. The dimensions must
/// agree and every γ be valid for any but the sequential schedule, which also decides when a
/// difference is not finite.
///
/// Errors: a validation error tagged with its operand (ρ's first); then
/// [`Error::DimensionMismatch`], the γ check and [`Error::Eigensolver`] untagged.
pub fn difference_from_matrices(
    rho: Array2<Complex64>,
    sigma: Array2<Complex64>,
    what: Difference<'_>,
    tol: Tolerance,
    backend: Backend,
) -> std::result::Result<Vec<f64>, OperandError> {
    if backend == Backend::Auto {
        if let Some(v) = difference_from_raw(rho.view(), sigma.view(), what, tol) {
            return Ok(v);
        }
    }
    let s = schedule(rho.nrows(), backend);
    difference_with_schedule(rho, sigma, what, tol, backend, s)
}

/// Whether the rounding-shift Cholesky test of the stack-array routes ([`difference_from_raw`],
/// [`sandwiched_from_raw`](super::from_matrices::sandwiched_from_raw)) may accept an input whose
/// validation tolerance is `t`: `4τ < t`. A factorisation of `H + τI` that succeeds (backward error
/// `|E| ≤ √2γ_{d+2}|L||L|†` with `(|L||L|†)_ij ≤ √(a_ii a_jj)`, so
/// `‖E‖₂ ≤ √2γ_{d+2} Tr(H + τI) ≤ 0.3τ`; docs/divergences.md "order_two_cholesky") gives
/// `λ_min(H) ≥ −1.3τ`, and validation's eigenvalue test (error `≤ d(d+1)ε Tr H ≤ 1.1τ` at
/// `d ≤ 16`) then finds `λ_min ≥ −2.4τ > −t`: the states route accepts the input too. The default tolerance
/// (`t ≥ 10⁻¹⁰`, `τ ≤ 6·10⁻¹⁴` at `d ≤ 16`) is `10³`–`10⁴` times that margin; only a custom
/// tolerance within `4τ` sends every input to the states route.
pub(crate) fn rounding_test_applies(shift: f64, t: f64) -> bool {
    4.0 * shift < t
}

/// Largest dimension at which [`difference_from_matrices`] takes [`difference_from_raw`] first:
/// measured in-process against the states route (docs/PERFORMANCE.md, "Hockey-stick and trace
/// distance at d ≤ 14 on stack arrays"), 1.4–1.5× faster at d = 2, 1.07–1.15× at 4 and 8,
/// 1.02–1.04× at 12 and 14, even at 15–16 (0.99–1.00×: `zpotrf` is as fast as the fixed-size factorisation there and
/// the solve dominates), so the larger sizes keep the states route.
pub const DIFFERENCE_RAW_MAX: usize = 14;

/// The values of [`difference_from_matrices`] with `Backend::Auto` at `1 ≤ d ≤`
/// [`DIFFERENCE_RAW_MAX`], computed on stack arrays from borrowed raw matrices — no state, no
/// heap matrix (docs/PERFORMANCE.md, "Hockey-stick and trace distance at d ≤ 14 on stack
/// arrays"). Each input is checked as [`DensityMatrix::with_options`] checks it before its PSD
/// step (`small_checked`: the same arithmetic, the same symmetrised `H`, bit for bit) and
/// accepted only where a Cholesky factorisation of `H + τI` succeeds at the rounding shift
/// `τ = 16dε Tr H` with the tolerance at least `4τ` (`rounding_test_applies`): success means
/// `λ_min(H) ≥ −τ − ‖E‖`, and with validation's eigenvalue error the states route then sees
/// `λ_min ≥ −2.4τ > −t` — it accepts too (its own factorisations, nalgebra's below d = 8 and
/// `zpotrf` from 8, may fail where this one succeeds; its eigenvalue test then accepts). Where
/// this factorisation fails the route declines. Then `ρ − γσ` (or `ρ − σ`) is formed entry by
/// entry as [`Pair::hockey_stick`] forms it, solved values-only by the same fixed-size solver
/// (`difference_values`: `tridiagonal_values` in place, `eigh_small` below `N = 3`), and
/// the positive values (the moduli) are summed in the same ascending order: the value of
/// `with_options(ρ)`, `with_options(σ)`, `Pair::new`, `Pair::hockey_stick` bit for bit (test
/// `difference_from_raw_is_the_states_route`).
///
/// `None` — the caller runs the full route, which decides, reports errors and answers — for
/// anything outside that path: another size, unequal or non-square shapes, a γ that is not
/// valid, an input the checks reject or whose rounding-shift factorisation fails (a state with a
/// negative eigenvalue within the tolerance, say), a difference that is not finite or a solve
/// that does not converge. Cost: two `O(d²)` checks, two `d³/6` complex Cholesky factorisations
/// and one values-only solve (`≈ 16d³/3` flops) per γ; no allocation but the result, and three
/// stack matrices (`H_ρ`, `H_σ`, one scratch for the factors and each difference) written in
/// place, none copied.
pub fn difference_from_raw(
    rho: ndarray::ArrayView2<'_, Complex64>,
    sigma: ndarray::ArrayView2<'_, Complex64>,
    what: Difference<'_>,
    tol: Tolerance,
) -> Option<Vec<f64>> {
    use crate::spectral::small::with_small_dim;
    let d = rho.nrows();
    let gammas_ok = match what {
        Difference::HockeyStick(g) => g.iter().all(|&x| check_gamma(x).is_ok()),
        Difference::TraceDistance => true,
    };
    if !(1..=DIFFERENCE_RAW_MAX).contains(&d)
        || rho.dim() != (d, d)
        || sigma.dim() != (d, d)
        || !gammas_ok
        || Backend::Auto.uses_gpu(d)
    {
        return None;
    }
    with_small_dim!(d, N => raw_small::<N>(&rho, &sigma, what, tol), _ => None)
}

/// [`difference_from_raw`] at dimension `N`.
fn raw_small<const N: usize>(
    rho: &ndarray::ArrayView2<'_, Complex64>,
    sigma: &ndarray::ArrayView2<'_, Complex64>,
    what: Difference<'_>,
    tol: Tolerance,
) -> Option<Vec<f64>> {
    use crate::spectral::small::{zeros, Mat};
    // the states, then the difference of each γ: one stack slot each, written in place
    let (mut r, mut s, mut m) = (zeros::<N>(), zeros::<N>(), zeros::<N>());
    // `with_options`' checks into `h`, then its first PSD test (accept at the rounding shift;
    // the factor goes to the scratch `m`)
    let mut accepted = |a: &ndarray::ArrayView2<'_, Complex64>, h: &mut Mat<N>| -> Option<()> {
        let (t, trace) = super::batch::small_checked_into::<N>(a, tol, h)?;
        let shift = crate::spectral::zero_threshold(N, trace);
        (rounding_test_applies(shift, t) && super::whitened::cholesky_into::<N>(h, shift, &mut m))
            .then_some(())
    };
    accepted(rho, &mut r)?;
    accepted(sigma, &mut s)?;
    match what {
        Difference::HockeyStick(gammas) => gammas
            .iter()
            .map(|&g| {
                let ev = difference_values::<N>(&r, &s, &mut m, |a, b| hockey_entry(a, b, g))?;
                hockey_value(&ev).ok()
            })
            .collect(),
        Difference::TraceDistance => {
            let ev = difference_values::<N>(&r, &s, &mut m, |a, b| a - b)?;
            Some(vec![trace_distance_value(&ev).ok()?])
        }
    }
}

/// The eigenvalues (ascending) of `f(r, s)` taken entrywise, as the states route solves it
/// ([`solve_hermitian`] hands its solver the row-major difference read column-major, the
/// transpose; the lower triangles agree bit for bit), formed in the scratch `m`: `None` for a
/// non-finite entry or a solve that fails (the caller's states route then decides). What
/// [`intermediate_values_fixed`] does, without its copy: from `N = 3` only the lower triangle is
/// formed (all [`tridiagonal_values`] reads; the upper one is the conjugate, finite alike for the
/// callers' `f`) and solved in place; below that, or where the root-free iteration does not
/// converge, the whole matrix is formed again and `eigh_small` solves it.
fn difference_values<const N: usize>(
    r: &crate::spectral::small::Mat<N>,
    s: &crate::spectral::small::Mat<N>,
    m: &mut crate::spectral::small::Mat<N>,
    f: impl Fn(Complex64, Complex64) -> Complex64,
) -> Option<[f64; N]> {
    use crate::spectral::small::{eigh_small, TRIDIAGONAL_FROM};
    // the lower triangle (or all of it) of f(r, s)ᵀ; whether the entries formed are finite
    let form = |m: &mut crate::spectral::small::Mat<N>, whole: bool| -> bool {
        let mut finite = true;
        for i in 0..N {
            for j in 0..if whole { N } else { i + 1 } {
                let z = f(r[j][i], s[j][i]);
                finite &= z.re.is_finite() && z.im.is_finite();
                m[i][j] = z;
            }
        }
        finite
    };
    if N >= TRIDIAGONAL_FROM {
        if !form(m, false) {
            return None;
        }
        if let Some(v) = tridiagonal_values::<N>(m) {
            return Some(v);
        }
    }
    if !form(m, true) {
        return None;
    }
    eigh_small::<N>(m, false).ok().map(|e| e.values)
}

/// [`difference_from_matrices`] in the given schedule (for tests and benchmarks; the same
/// results and errors as every other schedule, see [`Schedule`]). Unequal dimensions or an
/// invalid γ take the sequential schedule, as do non-finite differences.
pub fn difference_with_schedule(
    rho: Array2<Complex64>,
    sigma: Array2<Complex64>,
    what: Difference<'_>,
    tol: Tolerance,
    backend: Backend,
    schedule: Schedule,
) -> std::result::Result<Vec<f64>, OperandError> {
    let d = rho.nrows();
    let gammas_ok = match what {
        Difference::HockeyStick(g) => g.iter().all(|&x| check_gamma(x).is_ok()),
        Difference::TraceDistance => true,
    };
    let square = rho.dim() == (d, d) && sigma.dim() == (d, d);
    let schedule = match schedule {
        _ if !(square && gammas_ok) => Schedule::Sequential,
        Schedule::OverlapFaer if !cfg!(feature = "faer") => Schedule::Overlap,
        s => s,
    };
    let abort = AtomicBool::new(false);
    let vals = match schedule {
        Schedule::Sequential => return sequential(rho, sigma, what, tol, backend),
        Schedule::Caller => crate::spectral::with_single_blas_thread(|| {
            check_both(&rho, &sigma, tol, backend)?;
            Ok(raw_values(&rho, &sigma, what, backend, &abort))
        })?,
        Schedule::Overlap => {
            let (r, s) = (Arc::new(rho), Arc::new(sigma));
            let vals = crate::spectral::with_single_blas_thread(|| {
                beside_claimable_checks(&r, &s, what, tol, backend)
            })?;
            return match vals {
                Some(v) => v.map_err(|e| (None, e)),
                // a difference was not finite: the sequential route decides (on the inputs, or
                // copies while the unclaimed task still holds them)
                None => sequential(
                    Arc::unwrap_or_clone(r),
                    Arc::unwrap_or_clone(s),
                    what,
                    tol,
                    backend,
                ),
            };
        }
        // faer keeps its parallelism: its solve splits through rayon's pool, which the checks'
        // thread joins once they are done
        Schedule::OverlapFaer => crate::spectral::with_blas_pinned(|| {
            beside_checks(&rho, &sigma, what, tol, backend, Backend::Faer, &abort)
        })?,
    };
    match vals {
        Some(v) => v.map_err(|e| (None, e)),
        // a difference was not finite (an overflow of γσ): the sequential route decides
        None => sequential(rho, sigma, what, tol, backend),
    }
}

/// The checks (both inputs, in the sequential order, with `backend`) as one rayon task while a
/// pool thread forms and solves the differences with `solver` (in the pool, so that a solver
/// that splits through rayon — faer's — joins its halves there, not from outside the pool once
/// per split); the checks' error first, the values once both accepted.
fn beside_checks(
    rho: &Array2<Complex64>,
    sigma: &Array2<Complex64>,
    what: Difference<'_>,
    tol: Tolerance,
    backend: Backend,
    solver: Backend,
    abort: &AtomicBool,
) -> std::result::Result<Option<crate::Result<Vec<f64>>>, OperandError> {
    let mut checked = None;
    let vals = rayon::scope(|s| {
        s.spawn(|_| {
            let c = check_both(rho, sigma, tol, backend);
            abort.store(c.is_err(), Ordering::Relaxed);
            checked = Some(c);
        });
        raw_values(rho, sigma, what, solver, abort)
    });
    // the scope has joined the checks
    checked.expect("the checks ran")?;
    Ok(vals)
}

/// The checks of both inputs ([`check_both`]'s) offered to rayon's pool beside the calling
/// thread's difference solves with `backend` ([`crate::spectral::beside`]): a pool thread runs
/// them beside the solve, or the caller itself once its solves are done when no pool thread has
/// started them (a core busy elsewhere — e.g. another library's spinning BLAS worker — then costs
/// the sequential route's time, never a wait for that core). The checks' error first, the values
/// once both accepted.
fn beside_claimable_checks(
    rho: &Arc<Array2<Complex64>>,
    sigma: &Arc<Array2<Complex64>>,
    what: Difference<'_>,
    tol: Tolerance,
    backend: Backend,
) -> std::result::Result<Option<crate::Result<Vec<f64>>>, OperandError> {
    let abort = Arc::new(AtomicBool::new(false));
    // the inputs shared, not copied, and only weakly: a job that a pool thread pops after the
    // caller claimed the checks and returned must not keep the inputs' memory alive (the
    // caller's `Arc`s are the only strong ones)
    let (r, s, flag) = (
        Arc::downgrade(rho),
        Arc::downgrade(sigma),
        Arc::clone(&abort),
    );
    let checks = move || {
        let (r, s) = (r.upgrade()?, s.upgrade()?);
        let c = check_both(&r, &s, tol, backend);
        flag.store(c.is_err(), Ordering::Relaxed);
        Some(c)
    };
    let (vals, checked) =
        crate::spectral::beside(|| raw_values(rho, sigma, what, backend, &abort), checks);
    // the caller holds both inputs throughout, so the checks found them
    checked.unwrap_or_else(|| check_both(rho, sigma, tol, backend))?;
    Ok(vals)
}

/// [`difference_from_matrices`] one call after the other.
fn sequential(
    rho: Array2<Complex64>,
    sigma: Array2<Complex64>,
    what: Difference<'_>,
    tol: Tolerance,
    backend: Backend,
) -> std::result::Result<Vec<f64>, OperandError> {
    let r = DensityMatrix::with_options(rho, tol, backend).map_err(|e| (Some(Operand::Rho), e))?;
    let s =
        DensityMatrix::with_options(sigma, tol, backend).map_err(|e| (Some(Operand::Sigma), e))?;
    let pair = Pair::new(&r, &s).map_err(|e| (None, e))?;
    match what {
        Difference::HockeyStick(gammas) => gammas.iter().map(|&g| pair.hockey_stick(g)).collect(),
        Difference::TraceDistance => pair.trace_distance().map(|v| vec![v]),
    }
    .map_err(|e| (None, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spectral::small::with_small_dim;
    use rand::{Rng, SeedableRng};

    fn noisy(r: usize, seed: u64) -> Array2<Complex64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        Array2::from_shape_fn((r, r), |_| {
            Complex64::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5)
        })
    }

    use crate::divergence::from_matrices::tests::hs;

    /// A rayon pool of two threads (the schedules' configuration on two cores).
    fn two_threads() -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
    }

    /// [`difference_with_schedule`] on copies of `a`, `b` (default tolerance, `Backend::Auto`).
    fn with_schedule(
        a: &Array2<Complex64>,
        b: &Array2<Complex64>,
        what: Difference<'_>,
        s: Schedule,
    ) -> std::result::Result<Vec<f64>, OperandError> {
        difference_with_schedule(
            a.clone(),
            b.clone(),
            what,
            Tolerance::default(),
            Backend::Auto,
            s,
        )
    }

    const SCHEDULES: [Schedule; 4] = [
        Schedule::Sequential,
        Schedule::Overlap,
        Schedule::Caller,
        Schedule::OverlapFaer,
    ];

    /// Every schedule gives the sequential calls' results: the same errors (and operands) for
    /// inputs rejected on either side or both, unequal dimensions and an invalid γ; the same values
    /// bit for bit for `Overlap` and `Caller` at the same (one) BLAS thread count, and for
    /// `OverlapFaer` within 1e-13 of them (faer's solver instead of LAPACK's) — with faer
    /// sequential (inside the one-thread pin) and with faer splitting through a two-thread pool.
    #[test]
    fn every_schedule_gives_the_sequential_results() {
        let _serial = crate::spectral::test_thread_counts_lock();
        let pool = two_threads();
        let gammas = [std::f64::consts::E, 1.0, 0.25];
        let bad_gamma = [1.0, -1.0];
        for (k, d) in [OVERLAP_FROM, 70, 200].into_iter().enumerate() {
            let (rho, sigma) = (hs(d, 40 + k as u64), hs(d, 50 + k as u64));
            // a negative diagonal entry (not PSD, far beyond the tolerance), unit trace kept
            let mut not_psd = sigma.clone();
            not_psd[[0, 0]] -= 0.5;
            not_psd[[1, 1]] += 0.5;
            let mut not_herm = rho.clone();
            not_herm[[0, 1]] += Complex64::new(0.1, 0.0);
            let cases = [
                (rho.clone(), sigma.clone()),
                (not_psd.clone(), rho.clone()),
                (rho.clone(), not_psd.clone()),
                (not_herm.clone(), not_psd.clone()),
                (rho.clone(), not_herm.clone()),
                (rho.clone(), hs(d + 1, 3)),
            ];
            for (c, (a, b)) in cases.iter().enumerate() {
                for what in [
                    Difference::HockeyStick(&gammas),
                    Difference::TraceDistance,
                    Difference::HockeyStick(&bad_gamma),
                ] {
                    let run = |s: Schedule, pinned: bool| {
                        let f = || with_schedule(a, b, what, s);
                        pool.install(|| {
                            if pinned {
                                crate::spectral::with_single_blas_thread(f)
                            } else {
                                f()
                            }
                        })
                    };
                    let want = run(Schedule::Sequential, true);
                    for s in SCHEDULES {
                        for pinned in [true, false] {
                            let got = run(s, pinned);
                            let tag = format!("d = {d}, case {c}, {what:?}, {s:?}, {pinned}");
                            match (&got, &want) {
                                (Ok(x), Ok(y)) if s == Schedule::OverlapFaer || !pinned => {
                                    assert_eq!(x.len(), y.len(), "{tag}");
                                    for (u, v) in x.iter().zip(y) {
                                        assert!((u - v).abs() <= 1e-13, "{tag}: {u} vs {v}");
                                    }
                                }
                                _ => assert_eq!(format!("{got:?}"), format!("{want:?}"), "{tag}"),
                            }
                        }
                    }
                    if c == 0 && !matches!(what, Difference::HockeyStick(g) if g.len() == 2) {
                        assert!(want.is_ok(), "d = {d}: {want:?}");
                    }
                }
            }
        }
    }

    /// The policy of [`schedule`]: sequential below `OVERLAP_FROM`, with one rayon thread or more
    /// than two BLAS threads; the overlap otherwise, at one BLAS thread as at two. (Inside a pin
    /// the count reads 1, so a call pinned by its caller takes the overlap whatever the process's
    /// count; the pinned asserts below check that at one and two threads.)
    #[test]
    fn schedule_follows_the_thread_policy() {
        let _serial = crate::spectral::test_thread_counts_lock();
        let pool = two_threads();
        let before = crate::spectral::blas_threads();
        pool.install(|| {
            assert_eq!(
                schedule(OVERLAP_FROM - 1, Backend::Auto),
                Schedule::Sequential
            );
            // one BLAS thread or default (two) threads: the overlap from OVERLAP_FROM at every
            // size; a pin around the call does not change the process's count
            let counts: &[usize] = if cfg!(feature = "openblas") {
                &[1, 2]
            } else {
                &[1]
            };
            for &threads in counts {
                crate::spectral::set_blas_threads(threads);
                for d in [OVERLAP_FROM, 64, 191, 192, 512, 1024] {
                    assert_eq!(schedule(d, Backend::Auto), Schedule::Overlap, "d = {d}");
                    let pinned =
                        crate::spectral::with_single_blas_thread(|| schedule(d, Backend::Auto));
                    assert_eq!(pinned, Schedule::Overlap, "d = {d}, pinned");
                    assert_eq!(schedule(d, Backend::Lapack), Schedule::Overlap, "d = {d}");
                }
            }
            if cfg!(feature = "openblas") {
                crate::spectral::set_blas_threads(3);
                assert_eq!(schedule(64, Backend::Auto), Schedule::Sequential);
            }
        });
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert_eq!(
            one.install(|| schedule(64, Backend::Auto)),
            Schedule::Sequential
        );
        crate::spectral::set_blas_threads(before);
    }

    /// [`Schedule::Overlap`] when no pool thread can take the checks (the caller is the only
    /// worker of a one-thread pool, busy with the call): the caller runs them itself after its
    /// solves and returns the sequential calls' results — the same values bit for bit, the same
    /// errors — without waiting for the pool.
    #[test]
    fn overlap_checks_run_on_the_caller_when_no_pool_thread_takes_them() {
        let _serial = crate::spectral::test_thread_counts_lock();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let gammas = [std::f64::consts::E, 0.5];
        for d in [OVERLAP_FROM, 90] {
            let (rho, sigma) = (hs(d, 60), hs(d, 61));
            let mut not_psd = sigma.clone();
            not_psd[[0, 0]] -= 0.5;
            not_psd[[1, 1]] += 0.5;
            for (c, (a, b)) in [
                (rho.clone(), sigma.clone()),
                (rho.clone(), not_psd.clone()),
                (not_psd.clone(), rho.clone()),
            ]
            .iter()
            .enumerate()
            {
                for what in [Difference::HockeyStick(&gammas), Difference::TraceDistance] {
                    let run = |s: Schedule| {
                        one.install(|| {
                            crate::spectral::with_single_blas_thread(|| {
                                with_schedule(a, b, what, s)
                            })
                        })
                    };
                    let (got, want) = (run(Schedule::Overlap), run(Schedule::Sequential));
                    assert_eq!(
                        format!("{got:?}"),
                        format!("{want:?}"),
                        "d = {d}, case {c}, {what:?}"
                    );
                    assert_eq!(got.is_ok(), c == 0, "d = {d}, case {c}: {got:?}");
                }
            }
        }
    }

    /// The detached checks task keeps no strong reference to the inputs once the call has
    /// returned: with the caller the only worker of a one-thread pool, the task is still queued
    /// when [`beside_claimable_checks`] returns (the caller claimed and ran the checks), and the
    /// caller's `Arc`s must be the inputs' only owners then — before, the queued task held
    /// strong copies until a pool thread popped it, so the inputs outlived the call. The values
    /// and errors are the sequential calls' (accepted, ρ rejected, σ rejected).
    #[test]
    fn claimable_checks_release_the_inputs_when_the_call_returns() {
        let _serial = crate::spectral::test_thread_counts_lock();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let gammas = [std::f64::consts::E, 0.5];
        let d = OVERLAP_FROM;
        let (rho, sigma) = (hs(d, 70), hs(d, 71));
        let mut not_psd = sigma.clone();
        not_psd[[0, 0]] -= 0.5;
        not_psd[[1, 1]] += 0.5;
        for (c, (a, b)) in [
            (rho.clone(), sigma.clone()),
            (not_psd.clone(), sigma.clone()),
            (rho.clone(), not_psd.clone()),
        ]
        .into_iter()
        .enumerate()
        {
            for what in [Difference::HockeyStick(&gammas), Difference::TraceDistance] {
                let want = with_schedule(&a, &b, what, Schedule::Sequential);
                let (r, s) = (Arc::new(a.clone()), Arc::new(b.clone()));
                let got = one.install(|| {
                    let got = crate::spectral::with_single_blas_thread(|| {
                        beside_claimable_checks(&r, &s, what, Tolerance::default(), Backend::Auto)
                    });
                    // still inside the pool: its only thread has not popped the task yet
                    assert_eq!(
                        (Arc::strong_count(&r), Arc::strong_count(&s)),
                        (1, 1),
                        "case {c}, {what:?}: the queued task still owns the inputs"
                    );
                    got
                });
                let got = match got {
                    Ok(Some(v)) => v.map_err(|e| (None, e)),
                    Ok(None) => panic!("case {c}: finite differences"),
                    Err(e) => Err(e),
                };
                assert_eq!(
                    format!("{got:?}"),
                    format!("{want:?}"),
                    "case {c}, {what:?}"
                );
                assert_eq!(got.is_ok(), c == 0, "case {c}: {got:?}");
            }
        }
    }

    /// `difference_from_raw` answers every valid pair at `1 ≤ d ≤ 14` with the value of the
    /// states route (`with_options` twice, `Pair::new`, `Pair::hockey_stick` /
    /// `Pair::trace_distance`) bit for bit — full rank, rank-deficient, `ρ = σ`, inputs that are
    /// Hermitian only to rounding, several γ including 0 — and declines (`None`) everything the
    /// states route would reject or that lies outside its path; `difference_from_matrices` then
    /// gives the states route's own answer or error.
    #[test]
    fn difference_from_raw_is_the_states_route() {
        use crate::divergence::from_matrices::tests::hs;
        let tol = Tolerance::default();
        let gammas = [0.0, 0.5, 1.0, std::f64::consts::E, 1e3, 1e300];
        let mut rank_deficient_taken = 0;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for d in 1..=DIFFERENCE_RAW_MAX {
            let low = |rng: &mut rand_chacha::ChaCha8Rng| {
                DensityMatrix::random_hilbert_schmidt(d, d.div_ceil(2), rng)
                    .unwrap()
                    .matrix()
                    .clone()
            };
            let (a, b) = (hs(d, 3 * d as u64), hs(d, 3 * d as u64 + 1));
            let mut skew = a.clone();
            if d > 1 {
                // Hermitian to rounding only: symmetrised by the checks
                skew[[0, 1]] += Complex64::new(3e-17, -2e-17);
            }
            let cases = [
                (a.clone(), b.clone()),
                (low(&mut rng), b.clone()),
                (a.clone(), low(&mut rng)),
                (a.clone(), a.clone()),
                (skew, b.clone()),
            ];
            for (k, (r, s)) in cases.into_iter().enumerate() {
                for what in [Difference::HockeyStick(&gammas), Difference::TraceDistance] {
                    let want = sequential(r.clone(), s.clone(), what, tol, Backend::Auto).unwrap();
                    let got = difference_from_raw(r.view(), s.view(), what, tol);
                    // a rank-deficient input may fail the factorisation at the rounding shift
                    // (then the states route answers); every full-rank case takes the route
                    if k != 1 && k != 2 {
                        assert!(got.is_some(), "d = {d}, case {k}: declined");
                    } else if got.is_some() {
                        rank_deficient_taken += 1;
                    }
                    // column-major inputs: the same logical matrices, the same value
                    let (mut rc, mut sc) = (
                        Array2::zeros((d, d).f()),
                        Array2::<Complex64>::zeros((d, d).f()),
                    );
                    rc.assign(&r);
                    sc.assign(&s);
                    assert_eq!(difference_from_raw(rc.view(), sc.view(), what, tol), got);
                    // a tolerance t = 2τ (the checks pass; within the margin 4τ): declined
                    let tau = crate::spectral::zero_threshold(d, 1.0);
                    let tight = Tolerance {
                        base: 2.0 * tau / (d as f64).sqrt(),
                    };
                    assert_eq!(difference_from_raw(r.view(), s.view(), what, tight), None);
                    if k == 0 {
                        // the checks pass at that tolerance: the states route answers
                        assert!(
                            sequential(r.clone(), s.clone(), what, tight, Backend::Auto).is_ok()
                        );
                    }
                    if let Some(got) = got {
                        let (g, w): (Vec<u64>, Vec<u64>) = (
                            got.iter().map(|x| x.to_bits()).collect(),
                            want.iter().map(|x| x.to_bits()).collect(),
                        );
                        assert_eq!(g, w, "d = {d}, case {k}, {what:?}");
                    }
                    let all =
                        difference_from_matrices(r.clone(), s.clone(), what, tol, Backend::Auto);
                    assert_eq!(all.unwrap(), want, "d = {d}, case {k}");
                }
            }
            // declined: what the states route rejects or answers by another path
            let mut trace2 = a.clone();
            trace2 *= Complex64::new(2.0, 0.0);
            let mut negative = a.clone();
            // a negative diagonal entry: not PSD (the trace kept)
            negative[[0, 0]] -= Complex64::new(1.0, 0.0);
            negative[[d - 1, d - 1]] += Complex64::new(1.0, 0.0);
            let mut nan = a.clone();
            nan[[d - 1, 0]] = Complex64::new(f64::NAN, 0.0);
            let noise = noisy(d, 5);
            let td = Difference::TraceDistance;
            for (r, s, what) in [
                (trace2, b.clone(), td),
                (b.clone(), nan, td),
                (noise, b.clone(), td),
                (a.clone(), b.clone(), Difference::HockeyStick(&[1.0, -1.0])),
                (
                    a.clone(),
                    b.clone(),
                    Difference::HockeyStick(&[f64::INFINITY]),
                ),
                (a.clone(), hs(d + 1, 1), td),
            ] {
                assert_eq!(
                    difference_from_raw(r.view(), s.view(), what, tol),
                    None,
                    "d = {d}"
                );
                let all = difference_from_matrices(r.clone(), s.clone(), what, tol, Backend::Auto);
                let want = sequential(r, s, what, tol, Backend::Auto);
                assert_eq!(format!("{all:?}"), format!("{want:?}"), "d = {d}");
            }
            // a negative eigenvalue: declined where it is beyond the rounding shift
            if d > 1 {
                assert_eq!(
                    difference_from_raw(negative.view(), b.view(), td, tol),
                    None
                );
            }
        }
        // rank-deficient inputs (half the rank) pass the rounding-shift test too, mostly
        assert!(
            rank_deficient_taken > DIFFERENCE_RAW_MAX,
            "{rank_deficient_taken}"
        );
        // outside the sizes
        for d in [0, DIFFERENCE_RAW_MAX + 1, 17] {
            let (a, b) = (hs(d.max(1), 1), hs(d.max(1), 2));
            let (a, b) = if d == 0 {
                (Array2::zeros((0, 0)), Array2::zeros((0, 0)))
            } else {
                (a, b)
            };
            let td = Difference::TraceDistance;
            assert_eq!(difference_from_raw(a.view(), b.view(), td, tol), None);
        }
    }

    /// The difference read from raw matrices is `f` of the validated (symmetrised) matrices,
    /// bit for bit: the upper triangle always, the whole matrix with `full`.
    #[test]
    fn raw_difference_is_that_of_the_symmetrised_matrices() {
        let _serial = crate::spectral::test_thread_counts_lock();
        let g = std::f64::consts::E;
        for (k, r) in [1, 2, 7, 8, 9, 17, 40, 64].into_iter().enumerate() {
            let (a, b) = (noisy(r, 2 * k as u64), noisy(r, 2 * k as u64 + 1));
            // validation's symmetrisation, written out (the Hermitian check fails on noise)
            let sym = |x: &Array2<Complex64>| {
                let mut h = x.clone();
                for i in 0..r {
                    for j in 0..=i {
                        let m = (x[[i, j]] + x[[j, i]].conj()) * 0.5;
                        h[[j, i]] = m.conj();
                        h[[i, j]] = m;
                    }
                }
                h
            };
            let (ha, hb) = (sym(&a), sym(&b));
            let want = Zip::from(&ha)
                .and(&hb)
                .map_collect(|&x, &y| hockey_entry(x, y, g));
            for full in [false, true] {
                let (got, max_abs) =
                    raw_difference(&a, &b, full, |x, y| hockey_entry(x, y, g)).unwrap();
                let got = Array2::from_shape_vec((r, r), got).unwrap();
                for i in 0..r {
                    for j in 0..r {
                        if full || j >= i {
                            assert_eq!(
                                format!("{:?}", got[[i, j]]),
                                format!("{:?}", want[[i, j]]),
                                "r = {r}, ({i}, {j})"
                            );
                        }
                    }
                }
                let m = want
                    .iter()
                    .fold(0.0f64, |m, z| m.max(z.re.abs()).max(z.im.abs()));
                assert_eq!(max_abs, m);
            }
        }
        // non-finite entries: no difference
        let mut a = noisy(10, 1);
        a[[3, 1]] = Complex64::new(0.0, f64::INFINITY);
        assert!(raw_difference(&a, &noisy(10, 2), false, |x, y| x - y).is_none());
    }

    /// `U diag(λ) U†` for a Haar-random `U`.
    fn with_spectrum(values: &[f64], seed: u64) -> Array2<Complex64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let u = crate::state::haar_unitary(values.len(), &mut rng);
        let ud = Array2::from_shape_fn(u.dim(), |(i, j)| u[[i, j]] * values[j]);
        let m = ud.dot(&u.t().mapv(|z| z.conj()));
        // exactly Hermitian, as the solvers' inputs are
        (&m + &m.t().mapv(|z| z.conj())).mapv(|z| z * 0.5)
    }

    /// The values-only solver of the small differences (`tridiagonal_values`: Householder, then
    /// the root-free QL) against LAPACK's `zheevd` (nalgebra's implicit QR without LAPACK), an
    /// independent solver, on random Hermitian matrices and on the hard cases: ill-conditioned
    /// (eigenvalues from 1 down to 1e-16), rank-deficient, degenerate (repeated eigenvalues,
    /// multiples of the identity), already tridiagonal or diagonal, scaled by 1e-200 and 1e150,
    /// and the differences `ρ − γσ` of rank-deficient states. Each value within `8 N ε ‖A‖₂`
    /// (LAPACK's backward-stable bound) of the reference, ascending.
    #[test]
    fn tridiagonal_values_match_lapack() {
        let reference = if cfg!(feature = "openblas") {
            Backend::Lapack
        } else {
            Backend::Nalgebra
        };
        let mut cases: Vec<Array2<Complex64>> = Vec::new();
        for n in 3..=crate::spectral::small::AUTO_SMALL_VALUES_MAX {
            for seed in 0..40u64 {
                let a = noisy(n, 1000 * n as u64 + seed);
                cases.push((&a + &a.t().mapv(|z| z.conj())).mapv(|z| z * 0.5));
            }
            let graded: Vec<f64> = (0..n)
                .map(|k| 10f64.powf(-16.0 * k as f64 / (n - 1) as f64))
                .collect();
            let mut rank: Vec<f64> = (0..n)
                .map(|k| if k < n / 2 { 0.0 } else { 1.0 + k as f64 })
                .collect();
            let degenerate: Vec<f64> = (0..n).map(|k| [-1.0, 0.5, 0.5, 2.0][k % 4]).collect();
            let ones = vec![0.25; n];
            let cluster: Vec<f64> = (0..n).map(|k| 1.0 + 1e-14 * k as f64).collect();
            for (k, spec) in [graded, rank.clone(), degenerate, ones, cluster]
                .iter()
                .enumerate()
            {
                for seed in 0..8u64 {
                    cases.push(with_spectrum(spec, 77 * n as u64 + 10 * k as u64 + seed));
                }
            }
            rank[0] = -3.0;
            cases.push(with_spectrum(&rank, 5));
            // diagonal and already tridiagonal
            let diag = Array2::from_shape_fn((n, n), |(i, j)| {
                Complex64::new(
                    if i == j {
                        (i as f64 - 2.5).powi(3)
                    } else {
                        0.0
                    },
                    0.0,
                )
            });
            cases.push(diag);
            let tri = Array2::from_shape_fn((n, n), |(i, j)| match i as i64 - j as i64 {
                0 => Complex64::new(2.0, 0.0),
                1 => Complex64::new(-1.0, 0.5),
                -1 => Complex64::new(-1.0, -0.5),
                _ => Complex64::new(0.0, 0.0),
            });
            cases.push(tri);
            cases.push(Array2::zeros((n, n)));
            // differences of rank-deficient states (rank 1 and 2), γ = e and 1
            for seed in 0..6u64 {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(900 + seed + 10 * n as u64);
                let r = DensityMatrix::random_hilbert_schmidt(n, 1 + seed as usize % 2, &mut rng)
                    .unwrap();
                let s = DensityMatrix::random_hilbert_schmidt(n, 1, &mut rng).unwrap();
                for g in [std::f64::consts::E, 1.0] {
                    cases.push(
                        Zip::from(r.matrix())
                            .and(s.matrix())
                            .map_collect(|&a, &b| hockey_entry(a, b, g)),
                    );
                }
            }
        }
        let mut scaled = Vec::new();
        for (k, c) in cases.iter().enumerate().step_by(7) {
            for f in [1e-200, 1e150, 3.0e-310] {
                scaled.push((c.mapv(|z| z * f), k));
            }
        }
        let mut worst = 0.0f64;
        for a in cases.iter().chain(scaled.iter().map(|(a, _)| a)) {
            let n = a.nrows();
            let want = reference.eigvalsh(a.view()).unwrap();
            let got = with_small_dim!(n, N => {
                let mut m = crate::spectral::small::from_view::<N>(&a.view());
                tridiagonal_values::<N>(&mut m).map(|v| v.to_vec())
            }, _ => None)
            .expect("converges");
            let norm = want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let bound = 8.0 * n as f64 * f64::EPSILON * norm;
            for w in got.windows(2) {
                assert!(w[0] <= w[1], "not ascending: {got:?}");
            }
            for (x, y) in got.iter().zip(&want) {
                let err = (x - y).abs();
                if norm > 1e-290 {
                    worst = worst.max(err / (n as f64 * f64::EPSILON * norm));
                }
                // a subnormal-scaled input: the bound in absolute terms near the underflow level
                assert!(err <= bound.max(1e-320), "n = {n}: {got:?} vs {want:?}");
            }
        }
        eprintln!("worst error / (N ε ‖A‖₂): {worst:.3}");
        // a path block of weight t far below the matrix's scale beside an entry 1 (review25: the
        // regrouped QL step alone declined these): values 1 and 2t cos(jπ/n), j = 1 … n − 1, against
        // those exact values (nalgebra's solver, the reference without LAPACK, fails on them)
        for n in 3..=crate::spectral::small::AUTO_SMALL_VALUES_MAX {
            for t in [1e-47, 1e-60, 1e-77, 1e-103, 1e-120, 1e-140, 1e-155, 1e-160] {
                let a = Array2::from_shape_fn((n, n), |(i, j)| {
                    Complex64::new(
                        match (i, j) {
                            (0, 0) => 1.0,
                            (i, j) if j >= 1 && (i == j + 1 || j == i + 1) => t,
                            _ => 0.0,
                        },
                        0.0,
                    )
                });
                let mut want: Vec<f64> = (1..n)
                    .map(|j| 2.0 * t * (j as f64 * std::f64::consts::PI / n as f64).cos())
                    .chain([1.0])
                    .collect();
                want.sort_unstable_by(f64::total_cmp);
                let got = with_small_dim!(n, N => {
                    let mut m = crate::spectral::small::from_view::<N>(&a.view());
                    tridiagonal_values::<N>(&mut m).map(|v| v.to_vec())
                }, _ => None)
                .expect("converges");
                for (x, y) in got.iter().zip(&want) {
                    assert!(
                        (x - y).abs() <= 8.0 * n as f64 * f64::EPSILON,
                        "n = {n}, t = {t:e}"
                    );
                }
            }
        }
        // non-finite entries: declined
        let mut m = [[Complex64::new(0.0, 0.0); 3]; 3];
        m[2][1] = Complex64::new(f64::NAN, 0.0);
        assert!(tridiagonal_values::<3>(&mut m).is_none());
    }

    /// `tridiagonal_values_avx2_is_portable`: the AVX2 build of [`tridiagonal_values`] gives the
    /// portable build's values bit for bit (random Hermitian matrices, states and scaled ones,
    /// `N = 3 … 16`).
    #[test]
    fn tridiagonal_values_avx2_is_portable() {
        use crate::spectral::small::from_view;
        let mut checked = 0;
        for n in 3..=16usize {
            for seed in 0..6u64 {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4000 + seed + 100 * n as u64);
                let r = DensityMatrix::random_hilbert_schmidt(n, 1 + seed as usize % n, &mut rng)
                    .unwrap();
                let f = [1.0, 1e-200, 1e150][seed as usize % 3];
                let a = r.matrix().mapv(|z| z * f);
                with_small_dim!(n, N => {
                    let m = from_view::<N>(&a.view());
                    let fast = tridiagonal_values::<N>(&mut m.clone());
                    let portable = tridiagonal_values_body::<N>(&mut m.clone());
                    let bits = |v: Option<[f64; N]>| v.map(|v| v.map(f64::to_bits));
                    assert_eq!(bits(fast), bits(portable), "n = {n}, seed {seed}");
                    checked += 1;
                }, _ => ());
            }
        }
        assert_eq!(checked, 14 * 6);
    }

    /// `in_place_values_match_zheevd`: the in-place values (`zhetrd` + `root_free::sterf` on the
    /// row-major buffer) against `zheevd` through the backend on the same matrix (within
    /// `16 n ε ‖A‖₂`: the same reduction, two backward-stable tridiagonal solvers) and against
    /// nalgebra's implicit QR (an independent algorithm, to rounding); outside the unscaled range
    /// the in-place route declines.
    #[cfg(feature = "openblas")]
    #[test]
    fn in_place_values_match_zheevd() {
        let _serial = crate::spectral::test_thread_counts_lock();
        use crate::spectral::EigenSolver;
        for (k, r) in [1, 2, 9, 33, 64, 130, 512, 600].into_iter().enumerate() {
            let a = noisy(r, 100 + k as u64);
            let h = (&a + &a.t().mapv(|z| z.conj())).mapv(|z| z * 0.5);
            let mut buf = h.as_slice().unwrap().to_vec();
            let got = crate::spectral::lapack::hermitian_values_in_place(&mut buf, r, 1.0)
                .unwrap()
                .unwrap();
            // zheevd's reduction, its tridiagonal solved by `root_free::sterf` instead of dsterf:
            // both backward stable
            let zheevd = Backend::Lapack.eigvalsh(h.t()).unwrap();
            let norm = zheevd.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for (x, y) in got.iter().zip(&zheevd) {
                assert!(
                    (x - y).abs() <= 16.0 * r as f64 * f64::EPSILON * norm,
                    "r = {r}"
                );
            }
            let nalgebra = Backend::Nalgebra.eigvalsh(h.view()).unwrap();
            for (x, y) in got.iter().zip(&nalgebra) {
                assert!((x - y).abs() <= 1e-13 * r as f64, "{x} vs {y}");
            }
            // the whole route from row-major storage, either backend
            for be in [Backend::Auto, Backend::Lapack, Backend::Nalgebra] {
                let v = solve_hermitian(h.clone(), be).unwrap();
                for (x, y) in v.iter().zip(&nalgebra) {
                    assert!((x - y).abs() <= 1e-13 * r as f64, "{be:?}: {x} vs {y}");
                }
            }
        }
        let mut buf = vec![Complex64::new(0.0, 0.0); 4];
        for tiny_or_huge in [1e-150, 1e140, f64::INFINITY, f64::NAN] {
            assert!(
                crate::spectral::lapack::hermitian_values_in_place(&mut buf, 2, tiny_or_huge)
                    .is_none()
            );
        }
        // scaled matrices take zheevd's own route: the same values as zheevd
        for scale in [1e-150, 1e145] {
            let a = noisy(40, 7).mapv(|z| z * scale);
            let h = (&a + &a.t().mapv(|z| z.conj())).mapv(|z| z * 0.5);
            let want = Backend::Lapack.eigvalsh(h.t()).unwrap();
            assert_eq!(solve_hermitian(h, Backend::Lapack).unwrap(), want);
        }
    }
}
