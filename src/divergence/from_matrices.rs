//! Two raw matrices → two validated states for one [`Pair`](super::Pair), each PSD-checked the
//! cheapest sound way for what the pair computes next, both at once where a second core is free
//! (docs/PERFORMANCE.md, "In-process from raw matrices, side by side").

use super::difference::{Operand, OperandError};
use crate::error::Error;
use crate::spectral::{Backend, Eigen};
use crate::state::density::{hermitian_unit_trace, psd_check};
use crate::state::{DensityMatrix, Tolerance};
use ndarray::Array2;
use num_complex::Complex64;

/// Smallest dimension at which [`difference_from_matrices`](super::difference_from_matrices) runs
/// the two inputs' PSD steps beside the solve, and the floor of [`states_from_matrices`]'s
/// per-kind thresholds (`concurrent_from`); below it a step costs a few µs and the sequential
/// route is as fast.
pub const CONCURRENT_FROM: usize = 32;

/// Smallest dimension from which [`with_large_policy`] runs a call with OpenBLAS pinned to one
/// thread: [`AUTO_FAER_FROM`](crate::spectral::AUTO_FAER_FROM), where `Backend::Auto`'s full
/// decompositions are faer's (rayon-parallel); below it they are LAPACK's, which only BLAS threads
/// parallelise, and the call keeps the user's BLAS threads.
pub const ONE_BLAS_THREAD_FROM: usize = crate::spectral::AUTO_FAER_FROM;

/// Run `f`, one call on two `d × d` states, under the large-size thread policy
/// (docs/PERFORMANCE.md, "Thread policy" and "large16"): when `d ≥` [`ONE_BLAS_THREAD_FROM`],
/// `backend` keeps `d` on the host, BLAS runs at most two threads and rayon at least two, `f` runs
/// inside [`crate::spectral::with_blas_pinned`] — OpenBLAS at one thread, the cores shared out by
/// rayon alone: faer's decompositions split through rayon's pool, the products split into two
/// column blocks ([`crate::spectral::adjoint_times`] and friends), the two PSD steps run side by
/// side. With two OpenBLAS threads instead, an OpenBLAS worker keeps spinning after each threaded
/// call (OpenBLAS's thread timeout) while rayon's threads work, and the call reads slower than with
/// one BLAS thread (measured: the "large16" section). Otherwise (also in a build without the
/// `faer` feature, whose decompositions are LAPACK's) `f` runs as it is.
pub fn with_large_policy<R>(d: usize, backend: Backend, f: impl FnOnce() -> R) -> R {
    if cfg!(feature = "faer")
        && d >= ONE_BLAS_THREAD_FROM
        && !backend.uses_gpu(d)
        && crate::spectral::blas_threads() <= 2
        && rayon::current_num_threads() >= 2
    {
        crate::spectral::with_blas_pinned(f)
    } else {
        f()
    }
}

/// Sandwiched `D̃_α(ρ‖σ)` at one finite order `α > 1` of two raw `d × d` matrices, `d ≤`
/// [`AUTO_SMALL_VECTORS_MAX`](crate::spectral::small::AUTO_SMALL_VECTORS_MAX) (16), under
/// [`Backend::Auto`] and the tolerance `tol`: what validating ρ with
/// [`Check::Cholesky`] and σ with [`Check::Decomposed`] ([`states_from_matrices`]) and
/// [`Pair::renyi`](super::Pair::renyi) return — the pair's direct route (ρ never decomposed) — with
/// every step on stack arrays (docs/divergences.md, "sandwiched_from_raw"; no heap matrix, no
/// BLAS call for the products):
///
/// 1. ρ and σ: the checks and symmetrisation of [`DensityMatrix::with_options`] (`H = (A + A†)/2`
///    bit for bit, the same decisions);
/// 2. ρ: the Cholesky factorisation of `H + τI` at the rounding-level shift `τ = 16 d ε Tr H`
///    ([`DensityMatrix::is_psd_to_rounding`]) on a stack array (the fixed-size factorisation of
///    the whitened and fidelity routes, one reciprocal per column: 1.01–1.03× faster than
///    nalgebra's operations at d = 4–16, measured in-process; validation's own decision is
///    nalgebra's below 8 and LAPACK's `zpotrf` from 8, factorisations with the same backward
///    error bound, so the two can differ only for `λ_min(H)` within `O(d ε ‖H‖)` of `−τ`); its success both
///    accepts ρ — `λ_min(H) ≥ −1.3τ`, above `−t` by the margin `4τ < t` that the route requires
///    (`difference::rounding_test_applies`), where validation accepts too — and
///    takes the direct route, as `Pair` does where its own factorisation succeeds (where the two
///    factorisations disagree, this route's value and the decomposition route's are both within
///    the documented bound);
/// 3. σ: the decomposition of `Backend::Auto` (the fixed-size solver, the cached `Eigen`'s numbers
///    bit for bit), accepted when `λ_min ≥ −t` ([`Check::Decomposed`]'s decision), of full rank;
/// 4. `ρ' = V_σ†HV_σ` by two split-part products (`small::congruence_split`), then the direct
///    route's value (`quantum::DirectSandwiched::renyi`): the Frobenius sum at `α = 2`, else the
///    root-free values solve of `D ρ' D` and the two Rényi means.
///
/// `None` wherever the answer might differ from the library's other than by rounding: another
/// dimension or order, a failed check or factorisation (validation's own route then accepts or
/// rejects with its message), `λ_min < −t`, a rank-deficient σ (the support decision needs
/// `λ_max(ρ)`), a solve that does not converge, a backend that puts `d` on the GPU. The value
/// differs from `Pair`'s (whose `ρ'` at `d ≥ 8` comes from ρ's kept Cholesky factor by ztrmm +
/// zherk, [`crate::spectral::congruence`]'s sibling) by rounding only, within the documented
/// bound (tests `sandwiched_from_raw_*`, mpmath references `tests/reference/sandwiched_from_raw.json`).
pub fn sandwiched_from_raw(
    rho: ndarray::ArrayView2<'_, Complex64>,
    sigma: ndarray::ArrayView2<'_, Complex64>,
    alpha: f64,
    tol: Tolerance,
) -> Option<f64> {
    let d = rho.nrows();
    if !(alpha > 1.0 && alpha.is_finite())
        || rho.dim() != (d, d)
        || sigma.dim() != (d, d)
        || d > crate::spectral::small::AUTO_SMALL_VECTORS_MAX
        || Backend::Auto.uses_gpu(d)
    {
        return None;
    }
    crate::spectral::small::with_small_dim!(d, N => raw_direct::<N>(&rho, &sigma, alpha, tol), _ => None)
}

/// [`sandwiched_from_raw`] at dimension `N`.
fn raw_direct<const N: usize>(
    rho: &ndarray::ArrayView2<'_, Complex64>,
    sigma: &ndarray::ArrayView2<'_, Complex64>,
    alpha: f64,
    tol: Tolerance,
) -> Option<f64> {
    use super::batch::{direct_sandwiched_matrix, direct_sandwiched_order_two, small_checked};
    use super::small::{congruence_split, direct_sandwiched_value, SmallState};
    let (h, t, trace) = small_checked::<N>(rho, tol)?;
    let shift = crate::spectral::zero_threshold(N, trace);
    if !(super::difference::rounding_test_applies(shift, t)
        && super::whitened::cholesky::<N>(&h, shift).is_some())
    {
        return None;
    }
    let (hs, ts, _) = small_checked::<N>(sigma, tol)?;
    let e = crate::spectral::small::auto_small::<N>(&hs, true).ok()?;
    let min = e.values.iter().copied().fold(f64::INFINITY, f64::min);
    let s = SmallState::from_small(&e);
    if min < -ts || !(0..N).all(|j| s.in_support(j)) {
        return None;
    }
    let (mu, v) = s.parts();
    let rp = congruence_split::<N>(&h, v);
    let ln_mu = (*mu).map(f64::ln);
    if alpha == 2.0 {
        return Some(direct_sandwiched_order_two::<N>(&rp, &ln_mu));
    }
    let (a, c) = direct_sandwiched_matrix::<N>(&rp, &ln_mu, alpha);
    let nu = super::difference::intermediate_values_fixed::<N>(&a).ok()?;
    direct_sandwiched_value(alpha, &rp, &ln_mu, &nu, c).ok()
}

/// How one input of [`states_from_matrices`] is checked for positive semidefiniteness (both apply
/// the documented decision, docs/conventions.md "Validation tolerance"; they can differ only for
/// `λ_min` within `O(d·ε·‖H‖)` of `−tol`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// A shifted Cholesky factorisation ([`DensityMatrix::with_options`]): for a state the pair
    /// does not decompose (ρ of the sandwiched orders α > 1, both states of the hockey-stick).
    Cholesky,
    /// From the eigendecomposition, computed now and cached
    /// ([`DensityMatrix::with_options_decomposed`]): for a state the pair decomposes anyway —
    /// no factorisation at all.
    Decomposed,
}

/// Smallest dimension at which [`states_from_matrices`] runs the two PSD steps of `checks` side
/// by side (beside [`side_by_side`]'s conditions): the rayon wake-up of the second task and the
/// idle worker's spinning on the two cores cost more than a short step saves (session 27, two
/// Cholesky factorisations and a factorisation beside a decomposition measured sequential against
/// side by side in one process, default and one BLAS thread: docs/PERFORMANCE.md, "Two PSD steps
/// side by side: per kind of step"). Two decompositions from [`CONCURRENT_FROM`] as before (at
/// d = 32 the measurements disagree with the context: 1.16× slower side by side with one BLAS
/// thread, 1.1–1.2× faster with two; 1.5–2.7× faster from 64), a factorisation beside a
/// decomposition from [`MIXED_CONCURRENT_FROM`] (1.09–1.39× slower to d = 64), two factorisations
/// never (1.03–2.6× slower at every d to 256: each is ≈ 1/30 of a decomposition).
fn concurrent_from(checks: (Check, Check)) -> usize {
    match checks {
        (Check::Decomposed, Check::Decomposed) => CONCURRENT_FROM,
        (Check::Cholesky, Check::Cholesky) => usize::MAX,
        _ => MIXED_CONCURRENT_FROM,
    }
}

/// Smallest dimension at which a Cholesky factorisation and an eigendecomposition of
/// [`states_from_matrices`] run side by side (`concurrent_from`).
pub const MIXED_CONCURRENT_FROM: usize = 128;

/// Whether two independent PSD steps of dimension `d` run side by side (rayon, one BLAS thread
/// each): rayon has at least two threads, BLAS runs at most two (so the two single-threaded steps
/// use as many cores as one threaded step would — with more BLAS threads one large step keeps
/// them, the thread policy), `d ≥` [`CONCURRENT_FROM`] and `backend` keeps `d` on the host.
pub(crate) fn side_by_side(d: usize, backend: Backend) -> bool {
    d >= CONCURRENT_FROM
        && !backend.uses_gpu(d)
        && crate::spectral::blas_threads() <= 2
        && rayon::current_num_threads() >= 2
}

/// The PSD step of `check` on `h`, which passed [`hermitian_unit_trace`] with tolerance `t`.
fn psd_step(
    h: Array2<Complex64>,
    t: f64,
    check: Check,
    backend: Backend,
) -> crate::Result<DensityMatrix> {
    match check {
        Check::Cholesky => DensityMatrix::psd_by_cholesky_keeping_factor(h, t, backend),
        Check::Decomposed => DensityMatrix::psd_from_eigen(h, t, backend),
    }
}

/// One input validated by `check` (the sequential route).
fn validate(
    m: Array2<Complex64>,
    check: Check,
    tol: Tolerance,
    backend: Backend,
) -> crate::Result<DensityMatrix> {
    match check {
        Check::Cholesky => {
            let mut m = m;
            let t = hermitian_unit_trace(&mut m, tol)?;
            DensityMatrix::psd_by_cholesky_keeping_factor(m, t, backend)
        }
        Check::Decomposed => DensityMatrix::with_options_decomposed(m, tol, backend),
    }
}

/// Validate `rho` with `checks.0` and `sigma` with `checks.1` — the results and errors of
/// `validate(ρ)` then `validate(σ)` (`DensityMatrix::with_options` for [`Check::Cholesky`],
/// `DensityMatrix::with_options_decomposed` for [`Check::Decomposed`]) one after the other: the
/// same accept/reject decisions, ρ's error first, the same matrices and decompositions.
///
/// What differs is the schedule: when the two are square of one dimension `d` at least the
/// threshold of their kinds of step (`concurrent_from`: two decompositions from
/// [`CONCURRENT_FROM`], a factorisation beside a decomposition from
/// [`MIXED_CONCURRENT_FROM`], two factorisations never) on the host, rayon has at least two
/// threads and BLAS at most two, both
/// inputs' `O(d²)` checks (squareness, finiteness, Hermiticity, trace) run first, then the two PSD
/// steps (a Cholesky factorisation or a full eigendecomposition each) run side by side with one
/// BLAS thread each — two steps of one kind as ρ's on the calling thread and σ's offered to the
/// pool (`spectral::beside`: one wake-up, never a wait for it); when the two steps differ (a
/// Cholesky factorisation beside a decomposition), faer's decomposition keeps its rayon
/// parallelism, so the core left idle by the shorter step joins the longer one through rayon's
/// work stealing.
///
/// Errors: the validation error tagged with its operand.
pub fn states_from_matrices(
    mut rho: Array2<Complex64>,
    mut sigma: Array2<Complex64>,
    checks: (Check, Check),
    tol: Tolerance,
    backend: Backend,
) -> std::result::Result<(DensityMatrix, DensityMatrix), OperandError> {
    let tag = |o: Operand| move |e: Error| (Some(o), e);
    let d = rho.nrows();
    let square = rho.dim() == (d, d) && sigma.dim() == (d, d);
    if square && checks == (Check::Decomposed, Check::Decomposed) && backend.pairs_small(d) {
        return decomposed_together(rho, sigma, tol, backend);
    }
    if !(square && side_by_side(d, backend) && d >= concurrent_from(checks)) {
        let r = validate(rho, checks.0, tol, backend).map_err(tag(Operand::Rho))?;
        let s = validate(sigma, checks.1, tol, backend).map_err(tag(Operand::Sigma))?;
        return Ok((r, s));
    }
    // the O(d²) checks of both, in the sequential order: ρ's error first
    let t_rho = hermitian_unit_trace(&mut rho, tol).map_err(tag(Operand::Rho))?;
    let t_sigma = match hermitian_unit_trace(&mut sigma, tol) {
        Ok(t) => t,
        Err(e) => {
            // the sequential route would have finished ρ's validation first
            match checks.0 {
                Check::Cholesky => psd_check(&rho, t_rho, backend).map(|_| ()),
                Check::Decomposed => psd_step(rho, t_rho, checks.0, backend).map(|_| ()),
            }
            .map_err(tag(Operand::Rho))?;
            return Err((Some(Operand::Sigma), e));
        }
    };
    let (check_rho, check_sigma) = checks;
    let rho_step = move || psd_step(rho, t_rho, check_rho, backend);
    let sigma_step = move || psd_step(sigma, t_sigma, check_sigma, backend);
    // two steps of one kind (two decompositions, two factorisations) keep a core each, every
    // solver sequential: ρ's on the calling thread, σ's claimable beside it (`beside`: one pool
    // thread's wake-up, never a wait for it; a cold `rayon::join` ran the two one after the other
    // in most cold calls on a 2-vCPU VM, docs/PERFORMANCE.md "Two steps side by side from the
    // calling thread"); a Cholesky beside a decomposition is ~1/30 of it, so the decomposition keeps
    // faer's rayon parallelism (from `AUTO_FAER_FROM`) and the core that finishes the
    // factorisation joins it by work stealing instead of idling (docs/PERFORMANCE.md, "large16")
    let (r, s) = if check_rho == check_sigma {
        crate::spectral::with_single_blas_thread(|| crate::spectral::beside(rho_step, sigma_step))
    } else {
        crate::spectral::with_blas_pinned(|| rayon::join(rho_step, sigma_step))
    };
    let r = r.map_err(tag(Operand::Rho))?;
    let s = s.map_err(tag(Operand::Sigma))?;
    Ok((r, s))
}

/// [`states_from_matrices`] for two inputs both checked by [`Check::Decomposed`] where
/// `backend` solves `d` with the fixed-size QL solver (`Backend::Auto`, `4 ≤ d ≤ 16`): both
/// `O(d²)` checks, then the two decompositions in one call of its two-lane build
/// ([`Eigen::compute_pair`], each `Eigen::compute`'s bit for bit, the two dependency chains
/// overlapped), then the two eigenvalue checks — the sequential calls' states, decisions and
/// errors (ρ's first).
fn decomposed_together(
    mut rho: Array2<Complex64>,
    mut sigma: Array2<Complex64>,
    tol: Tolerance,
    backend: Backend,
) -> std::result::Result<(DensityMatrix, DensityMatrix), OperandError> {
    let (t_rho, t_sigma) = checks_of_both(&mut rho, &mut sigma, tol, backend)?;
    decompose_checked(rho, t_rho, sigma, t_sigma, backend)
}

/// The first half of [`decomposed_together`]: both inputs' `O(d²)` checks
/// ([`hermitian_unit_trace`], each made exactly Hermitian) in the sequential order, their
/// tolerances `(t_rho, t_sigma)`; when σ's fail, ρ's full validation (its decomposition) runs
/// first, so that ρ's error wins as on the sequential route.
fn checks_of_both(
    rho: &mut Array2<Complex64>,
    sigma: &mut Array2<Complex64>,
    tol: Tolerance,
    backend: Backend,
) -> std::result::Result<(f64, f64), OperandError> {
    let tag = |o: Operand| move |e: Error| (Some(o), e);
    let t_rho = hermitian_unit_trace(rho, tol).map_err(tag(Operand::Rho))?;
    match hermitian_unit_trace(sigma, tol) {
        Ok(t) => Ok((t_rho, t)),
        Err(e) => {
            // the sequential route would have finished ρ's validation first
            let rho = std::mem::take(rho);
            DensityMatrix::psd_from_eigen(rho, t_rho, backend).map_err(tag(Operand::Rho))?;
            Err((Some(Operand::Sigma), e))
        }
    }
}

/// The second half of [`decomposed_together`]: two matrices that passed
/// [`hermitian_unit_trace`] (tolerances `t_rho`, `t_sigma`) decomposed in one call
/// ([`Eigen::compute_pair`]), then their eigenvalue checks, ρ's first.
fn decompose_checked(
    rho: Array2<Complex64>,
    t_rho: f64,
    sigma: Array2<Complex64>,
    t_sigma: f64,
    backend: Backend,
) -> std::result::Result<(DensityMatrix, DensityMatrix), OperandError> {
    let tag = |o: Operand| move |e: Error| (Some(o), e);
    let (er, es) = Eigen::compute_pair(rho.view(), sigma.view(), backend);
    let r = er
        .and_then(|e| DensityMatrix::psd_with_eigen(rho, t_rho, backend, e))
        .map_err(tag(Operand::Rho))?;
    let s = es
        .and_then(|e| DensityMatrix::psd_with_eigen(sigma, t_sigma, backend, e))
        .map_err(tag(Operand::Sigma))?;
    Ok((r, s))
}

/// A quantity [`small_pair_from_matrices`] evaluates straight from the two fixed-size
/// decompositions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SmallQuantity {
    /// Petz `D̄_α` at one order (`Pair::renyi(Family::Petz, α)`).
    Petz(f64),
    /// Umegaki `D(ρ‖σ)` (`Pair::umegaki`).
    Umegaki,
}

/// What [`small_pair_from_matrices`] returns: the value (natural logarithm), or the two validated
/// states for `Pair`'s route where the fused route does not apply.
pub enum SmallOutcome {
    /// The quantity's value, `Pair`'s bit for bit.
    Value(f64),
    /// The states of [`states_from_matrices`] with [`Check::Decomposed`] on both.
    States(DensityMatrix, DensityMatrix),
}

/// Whether [`small_pair_from_matrices`] evaluates `quantity` on two `d × d` inputs itself (else it
/// returns the states): `backend` solves both with the fixed-size QL solver's two-lane build
/// (`Backend::pairs_small`: `Backend::Auto`, `4 ≤ d ≤ 16`), the small-pair kernel takes `d`, and
/// for Petz the order is valid and not 2 (`Pair::renyi` takes the Cholesky route there).
pub fn small_pair_applies(d: usize, quantity: SmallQuantity, backend: Backend) -> bool {
    let order = match quantity {
        SmallQuantity::Petz(a) => a != 2.0 && super::Family::Petz.check_alpha(a).is_ok(),
        SmallQuantity::Umegaki => true,
    };
    order
        && backend == Backend::Auto
        && backend.pairs_small(d)
        && d <= super::small::SMALL_SPECTRAL_MAX
}

/// Petz `D̄_α` or Umegaki of two raw matrices without building states or a `Pair` where
/// [`small_pair_applies`] (docs/PERFORMANCE.md, "call23"): the `O(d²)` checks of both
/// (`hermitian_unit_trace`), both matrices copied once to stack arrays and decomposed in one
/// call of the QL solver's two-lane build (`eigh_tridiagonal_pair_into`, the solve
/// `Eigen::compute_pair` runs), the eigenvalue checks, then the small-pair kernel on the stack
/// decompositions (`SmallPair::new`, as `Pair` reaches it through the cached `Eigen`s). The same
/// arithmetic in the same order as [`states_from_matrices`] with [`Check::Decomposed`] on both
/// followed by `Pair::renyi(Family::Petz, α)` / `Pair::umegaki` — the same value bit for bit, the
/// same decisions and errors (ρ's first) — minus the heap copies of the two decompositions, the
/// two states and the pair. Where a lane's solve fails (it then falls back to another solver) and
/// where the route does not apply, the states ([`SmallOutcome::States`]).
///
/// Errors: the validation error tagged with its operand.
pub fn small_pair_from_matrices(
    mut rho: Array2<Complex64>,
    mut sigma: Array2<Complex64>,
    quantity: SmallQuantity,
    tol: Tolerance,
    backend: Backend,
) -> std::result::Result<SmallOutcome, OperandError> {
    let d = rho.nrows();
    let square = rho.dim() == (d, d) && sigma.dim() == (d, d);
    if !(square && small_pair_applies(d, quantity, backend)) {
        let checks = (Check::Decomposed, Check::Decomposed);
        return states_from_matrices(rho, sigma, checks, tol, backend)
            .map(|(r, s)| SmallOutcome::States(r, s));
    }
    let tag = |o: Operand| move |e: Error| (Some(o), e);
    let (t_rho, t_sigma) = checks_of_both(&mut rho, &mut sigma, tol, backend)?;
    use crate::spectral::small::{
        eigh_tridiagonal_pair_into, from_view, with_small_dim, SmallEigen,
    };
    with_small_dim!(d, N => {
        let mut out = [SmallEigen::<N>::zeroed(); 2];
        let a = from_view::<N>(&rho.view());
        let b = from_view::<N>(&sigma.view());
        if let [Ok(()), Ok(())] = eigh_tridiagonal_pair_into::<N>(&a, &b, true, &mut out) {
            // `DensityMatrix::psd_with_eigen`'s check on each, ρ's first
            for (e, t, o) in [(&out[0], t_rho, Operand::Rho), (&out[1], t_sigma, Operand::Sigma)] {
                let min = e.values.iter().copied().fold(f64::INFINITY, f64::min);
                crate::state::density::negative_eigenvalue_check(min, t).map_err(tag(o))?;
            }
            let value = super::small::small_pair_value::<N>(&out[0], &out[1], quantity);
            if let Some(v) = value {
                return Ok(SmallOutcome::Value(v));
            }
        }
    }, _ => ());
    // a lane's solve failed (or the kernel declined): decomposed_together's states
    decompose_checked(rho, t_rho, sigma, t_sigma, backend).map(|(r, s)| SmallOutcome::States(r, s))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::SeedableRng;

    /// A seeded Hilbert–Schmidt random `d × d` state's matrix.
    pub(crate) fn hs(d: usize, seed: u64) -> Array2<Complex64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        DensityMatrix::random_hilbert_schmidt(d, d, &mut rng)
            .unwrap()
            .matrix()
            .clone()
    }

    /// σ of the pair tests: `I/d` (degenerate) at rank 1, else a random state of `rank`.
    fn sigma_of_rank(d: usize, seed: u64, rank: usize) -> Array2<Complex64> {
        if rank == 1 {
            return Array2::from_diag_elem(d, Complex64::new(1.0 / d as f64, 0.0));
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed + 10);
        DensityMatrix::random_hilbert_schmidt(d, rank, &mut rng)
            .unwrap()
            .matrix()
            .clone()
    }

    /// Every combination of checks gives the sequential calls' states (same matrices, the
    /// decomposition cached exactly for `Decomposed`) at a size that runs side by side.
    #[test]
    fn same_states_as_sequential_calls() {
        let _serial = crate::spectral::test_thread_counts_lock();
        let (r, s) = (hs(40, 1), hs(40, 2));
        let (tol, be) = (Tolerance::default(), Backend::default());
        for checks in [
            (Check::Cholesky, Check::Cholesky),
            (Check::Cholesky, Check::Decomposed),
            (Check::Decomposed, Check::Decomposed),
        ] {
            let (a, b) = states_from_matrices(r.clone(), s.clone(), checks, tol, be).unwrap();
            let a0 = validate(r.clone(), checks.0, tol, be).unwrap();
            let b0 = validate(s.clone(), checks.1, tol, be).unwrap();
            assert_eq!(a.matrix(), a0.matrix());
            assert_eq!(b.matrix(), b0.matrix());
            assert_eq!(a.is_decomposed(), checks.0 == Check::Decomposed);
            assert_eq!(b.is_decomposed(), checks.1 == Check::Decomposed);
            if checks.0 == Check::Cholesky {
                assert!(a.is_psd_to_rounding());
                // the factor of the rounding-level Cholesky is kept where LAPACK ran it, on both
                // schedules (docs/divergences.md, "factor_congruence")
                assert_eq!(a.rounding_factor().is_some(), cfg!(feature = "openblas"));
                assert_eq!(a0.rounding_factor().is_some(), cfg!(feature = "openblas"));
            }
            // same decomposition within rounding (one BLAS thread here, maybe two there)
            if checks.1 == Check::Decomposed {
                let (x, y) = (b.eigen().unwrap().values(), b0.eigen().unwrap().values());
                for (p, q) in x.iter().zip(y) {
                    assert!((p - q).abs() <= 1e-14, "{p} vs {q}");
                }
            }
        }
    }

    /// A pair of undecomposed mid-size states decomposed for a quantity
    /// (`DensityMatrix::decompose_pair`, side by side from `CONCURRENT_FROM`) caches both
    /// decompositions, within rounding of each state's own `eigen()`, and the quantity is the one
    /// that states decomposed one after the other give.
    #[test]
    fn decompose_pair_side_by_side_caches_both() {
        use crate::divergence::Pair;
        let _serial = crate::spectral::test_thread_counts_lock();
        let (tol, be) = (Tolerance::default(), Backend::default());
        for d in [CONCURRENT_FROM, 64] {
            let (r, s) = (hs(d, 11), hs(d, 12));
            let states = || {
                let a = validate(r.clone(), Check::Cholesky, tol, be).unwrap();
                let b = validate(s.clone(), Check::Cholesky, tol, be).unwrap();
                (a, b)
            };
            let (a, b) = states();
            assert!(!a.is_decomposed() && !b.is_decomposed());
            let together = Pair::new(&a, &b).unwrap().umegaki().unwrap();
            assert!(a.is_decomposed() && b.is_decomposed(), "d = {d}");
            let (a0, b0) = states();
            a0.eigen().unwrap();
            b0.eigen().unwrap();
            let apart = Pair::new(&a0, &b0).unwrap().umegaki().unwrap();
            assert!(
                (together - apart).abs() <= 1e-13 * apart.abs().max(1.0),
                "d = {d}"
            );
            for (x, y) in [(&a, &a0), (&b, &b0)] {
                let (p, q) = (x.eigen().unwrap().values(), y.eigen().unwrap().values());
                assert!(
                    p.iter().zip(q).all(|(u, v)| (u - v).abs() <= 1e-14),
                    "d = {d}"
                );
            }
        }
    }

    /// Two inputs both checked from their decompositions at `4 ≤ d ≤ 16` under `Backend::Auto`
    /// (`decomposed_together`: the fixed-size QL solver's two-lane build) give the sequential
    /// calls' states bit for bit — matrices, eigenvalues and eigenvectors — on random,
    /// rank-deficient and degenerate states; and a pair of undecomposed states decomposed for a
    /// quantity (`DensityMatrix::decompose_pair`) caches `eigen()`'s decompositions bit for bit.
    #[test]
    fn decomposed_together_is_sequential() {
        use crate::divergence::{Family, Pair};
        use crate::spectral::Eigen;
        let bits = |e: &Eigen| {
            let v: Vec<u64> = e.values().iter().map(|x| x.to_bits()).collect();
            let w: Vec<(u64, u64)> = e
                .vectors()
                .iter()
                .map(|z| (z.re.to_bits(), z.im.to_bits()))
                .collect();
            (v, w)
        };
        let tol = Tolerance::default();
        for d in 1..=16usize {
            for (seed, rank) in [(1, d), (2, d.div_ceil(2)), (3, 1)] {
                let r = hs(d, seed);
                let s = sigma_of_rank(d, seed, rank);
                let checks = (Check::Decomposed, Check::Decomposed);
                let (a, b) =
                    states_from_matrices(r.clone(), s.clone(), checks, tol, Backend::Auto).unwrap();
                let a0 = validate(r.clone(), Check::Decomposed, tol, Backend::Auto).unwrap();
                let b0 = validate(s.clone(), Check::Decomposed, tol, Backend::Auto).unwrap();
                assert_eq!(a.matrix(), a0.matrix());
                assert_eq!(b.matrix(), b0.matrix());
                assert!(a.is_decomposed() && b.is_decomposed());
                assert_eq!(bits(a.eigen().unwrap()), bits(a0.eigen().unwrap()), "d={d}");
                assert_eq!(bits(b.eigen().unwrap()), bits(b0.eigen().unwrap()), "d={d}");
                // undecomposed states: the pair's quantities decompose both together (maximal at
                // α = 0.5: at α ≥ 1 the whitened route answers undecomposed states without
                // decomposing them, tests/maximal_whitened.rs)
                for (family, alpha) in [(Family::Petz, 1.5), (Family::Maximal, 0.5)] {
                    let x = DensityMatrix::with_options(r.clone(), tol, Backend::Auto).unwrap();
                    let y = DensityMatrix::with_options(s.clone(), tol, Backend::Auto).unwrap();
                    assert!(!x.is_decomposed() && !y.is_decomposed());
                    let v = Pair::new(&x, &y).unwrap().renyi(family, alpha).unwrap();
                    assert_eq!(bits(x.eigen().unwrap()), bits(a0.eigen().unwrap()), "d={d}");
                    assert_eq!(bits(y.eigen().unwrap()), bits(b0.eigen().unwrap()), "d={d}");
                    let w = Pair::new(&a0, &b0).unwrap().renyi(family, alpha).unwrap();
                    assert_eq!(v.to_bits(), w.to_bits(), "d={d} {family:?}");
                }
            }
        }
    }

    /// `small_pair_from_matrices` gives `states_from_matrices` (both decomposed) then
    /// `Pair::renyi(Petz, α)` / `Pair::umegaki` bit for bit — full-rank, rank-deficient and
    /// degenerate σ (a leaking ρ: +∞ above α = 1), inputs Hermitian only within the tolerance —
    /// and where it does not apply (d ≤ 3, α = 2, an invalid order) the states of that route.
    #[test]
    fn small_pair_is_pair_route() {
        use crate::divergence::Pair;
        let tol = Tolerance::default();
        let quantities = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, f64::INFINITY, -1.0, f64::NAN]
            .map(SmallQuantity::Petz)
            .into_iter()
            .chain([SmallQuantity::Umegaki]);
        let mut values = 0;
        for d in 1..=17usize {
            for (seed, rank) in [(1, d), (2, d.div_ceil(2)), (3, 1)] {
                let mut r = hs(d, seed);
                if d > 1 {
                    // Hermitian within the tolerance only: symmetrised by the checks
                    r[[1, 0]] += Complex64::new(1e-14, -2e-14);
                }
                let s = sigma_of_rank(d, seed, rank);
                for q in quantities.clone() {
                    for (x, y) in [(&r, &s), (&s, &r)] {
                        let checks = (Check::Decomposed, Check::Decomposed);
                        let (a, b) =
                            states_from_matrices(x.clone(), y.clone(), checks, tol, Backend::Auto)
                                .unwrap();
                        let pair = Pair::new(&a, &b).unwrap();
                        let want = match q {
                            SmallQuantity::Petz(alpha) => {
                                pair.renyi(super::super::Family::Petz, alpha)
                            }
                            SmallQuantity::Umegaki => pair.umegaki(),
                        };
                        let got =
                            small_pair_from_matrices(x.clone(), y.clone(), q, tol, Backend::Auto)
                                .unwrap();
                        match got {
                            SmallOutcome::Value(v) => {
                                assert!(small_pair_applies(d, q, Backend::Auto));
                                assert_eq!(v.to_bits(), want.unwrap().to_bits(), "d={d} {q:?}");
                                values += 1;
                            }
                            SmallOutcome::States(a1, b1) => {
                                assert!(!small_pair_applies(d, q, Backend::Auto), "d={d} {q:?}");
                                assert_eq!(a1.matrix(), a.matrix());
                                assert_eq!(b1.matrix(), b.matrix());
                            }
                        }
                    }
                }
            }
        }
        // d = 4 … 16, three pairs both ways, seven valid orders ≠ 2 and Umegaki
        assert_eq!(values, 13 * 3 * 2 * 7);
        // other backends are not taken
        assert!(!small_pair_applies(
            8,
            SmallQuantity::Umegaki,
            Backend::Nalgebra
        ));
    }

    /// `small_pair_from_matrices` reports `states_from_matrices`'s errors (ρ's first, tagged).
    #[test]
    fn small_pair_errors_as_states() {
        let tol = Tolerance::default();
        for d in [4, 8, 16] {
            let mut bad = Array2::<Complex64>::zeros((d, d));
            bad[[0, 0]] = Complex64::new(1.2, 0.0);
            bad[[1, 1]] = Complex64::new(-0.2, 0.0);
            let mut trace = hs(d, 4);
            trace[[0, 0]] += Complex64::new(0.1, 0.0);
            let mut skew = hs(d, 6);
            skew[[2, 1]] += Complex64::new(1e-3, 0.0);
            let mut nan = hs(d, 7);
            nan[[3, 0]] = Complex64::new(f64::NAN, 0.0);
            let good = hs(d, 5);
            let inputs = [&bad, &trace, &skew, &nan, &good];
            for x in inputs {
                for y in inputs {
                    for q in [SmallQuantity::Petz(1.5), SmallQuantity::Umegaki] {
                        let checks = (Check::Decomposed, Check::Decomposed);
                        let want =
                            states_from_matrices(x.clone(), y.clone(), checks, tol, Backend::Auto);
                        let got =
                            small_pair_from_matrices(x.clone(), y.clone(), q, tol, Backend::Auto);
                        match (want, got) {
                            (Ok(_), Ok(SmallOutcome::Value(v))) => assert!(v.is_finite()),
                            (Err(e), Err(f)) => {
                                assert_eq!(e.0, f.0);
                                assert_eq!(e.1.to_string(), f.1.to_string());
                            }
                            (w, g) => panic!("d={d}: {:?} vs {:?}", w.err(), g.err()),
                        }
                    }
                }
            }
        }
    }

    /// Under the large-size policy (BLAS pinned, faer parallel, products split) every family
    /// gives the values of the plain call, to rounding.
    #[test]
    fn large_policy_keeps_values() {
        let _serial = crate::spectral::test_thread_counts_lock();
        use crate::divergence::{Family, Pair};
        let d = ONE_BLAS_THREAD_FROM + 8;
        let (r, s) = (hs(d, 7), hs(d, 8));
        let (tol, be) = (Tolerance::default(), Backend::default());
        for (family, checks) in [
            (Family::Sandwiched, (Check::Cholesky, Check::Decomposed)),
            (Family::Petz, (Check::Decomposed, Check::Decomposed)),
            (Family::Maximal, (Check::Decomposed, Check::Decomposed)),
        ] {
            let value = || {
                let (a, b) = states_from_matrices(r.clone(), s.clone(), checks, tol, be).unwrap();
                Pair::new(&a, &b).unwrap().renyi(family, 2.0).unwrap()
            };
            let plain = value();
            let large = with_large_policy(d, be, value);
            assert!(
                (plain - large).abs() <= 1e-12 * plain.abs().max(1.0),
                "{family:?}: {plain} vs {large}"
            );
        }
    }

    /// Errors: ρ's first, tagged with the operand, whichever check each input gets.
    #[test]
    fn errors_in_sequential_order() {
        let _serial = crate::spectral::test_thread_counts_lock();
        // side by side (40) and, under Backend::Auto, the two-lane fixed-size solve (8, 16)
        for d in [40, 8, 16] {
            errors_in_sequential_order_at(d);
        }
    }

    fn errors_in_sequential_order_at(d: usize) {
        let (tol, be) = (Tolerance::default(), Backend::default());
        // clearly indefinite: a negative eigenvalue far below −tol
        let mut bad = Array2::<Complex64>::zeros((d, d));
        bad[[0, 0]] = Complex64::new(1.2, 0.0);
        bad[[1, 1]] = Complex64::new(-0.2, 0.0);
        let mut trace = hs(d, 4);
        trace[[0, 0]] += Complex64::new(0.1, 0.0);
        let good = hs(d, 5);
        for c in [Check::Cholesky, Check::Decomposed] {
            for c2 in [Check::Cholesky, Check::Decomposed] {
                let e =
                    states_from_matrices(bad.clone(), trace.clone(), (c, c2), tol, be).unwrap_err();
                assert_eq!(e.0, Some(Operand::Rho));
                assert!(
                    matches!(e.1, Error::NotPositiveSemidefinite { .. }),
                    "{:?}",
                    e.1
                );
                let e = states_from_matrices(good.clone(), trace.clone(), (c, c2), tol, be)
                    .unwrap_err();
                assert_eq!(e.0, Some(Operand::Sigma));
                assert!(matches!(e.1, Error::TraceNotOne { .. }), "{:?}", e.1);
                let e =
                    states_from_matrices(good.clone(), bad.clone(), (c, c2), tol, be).unwrap_err();
                assert_eq!(e.0, Some(Operand::Sigma));
                assert!(
                    matches!(e.1, Error::NotPositiveSemidefinite { .. }),
                    "{:?}",
                    e.1
                );
                let e =
                    states_from_matrices(trace.clone(), bad.clone(), (c, c2), tol, be).unwrap_err();
                assert_eq!(e.0, Some(Operand::Rho));
                assert!(matches!(e.1, Error::TraceNotOne { .. }), "{:?}", e.1);
                // non-square and mismatched inputs take the sequential route
                let e =
                    states_from_matrices(Array2::zeros((d, d + 1)), good.clone(), (c, c2), tol, be)
                        .unwrap_err();
                assert_eq!(e.0, Some(Operand::Rho));
                let (a, b) =
                    states_from_matrices(good.clone(), hs(d / 2, 6), (c, c2), tol, be).unwrap();
                assert_eq!((a.dim(), b.dim()), (d, d / 2));
            }
        }
    }
}
