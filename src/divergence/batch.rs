//! Many pairs at once: validation and divergences of a slice of inputs, in parallel.
//!
//! **Thread policy** (docs/PERFORMANCE.md): parallelism goes to one level only, so that two cores
//! are never oversubscribed.
//!
//! * Small matrices (`d <` [`PARALLEL_BELOW`]): one pair per rayon task, BLAS pinned to one thread
//!   for the duration of the call ([`crate::spectral::with_single_blas_thread`]) and restored afterwards.
//!   At these sizes a LAPACK call is dominated by fixed per-call costs that BLAS threads cannot
//!   split, so the only speed-up available is running pairs side by side.
//! * Large matrices: the pairs run one after the other and BLAS keeps its threads, which split each
//!   `O(d³)` product and eigensolve.
//!
//! Each pair's result is independent: one invalid pair yields its own `Err` and does not stop the
//! others. Results come back in input order and equal those of the one-pair API exactly (the same
//! code runs on each pair).
//!
//! ```
//! use qrenyi::divergence::{batch, Family};
//! use qrenyi::state::DensityMatrix;
//! let pairs = vec![
//!     (DensityMatrix::diagonal(&[0.7, 0.3])?, DensityMatrix::maximally_mixed(2)?),
//!     (DensityMatrix::diagonal(&[1.0, 0.0])?, DensityMatrix::diagonal(&[0.0, 1.0])?),
//! ];
//! let d2 = batch::renyi(&pairs, Family::Sandwiched, 2.0);
//! assert!((d2[0].as_ref().unwrap() - (2f64.ln() + 0.58f64.ln())).abs() < 1e-14);
//! assert_eq!(*d2[1].as_ref().unwrap(), f64::INFINITY); // orthogonal supports
//! # Ok::<(), qrenyi::Error>(())
//! ```

use super::{Family, Pair};
use crate::error::Result;
use crate::spectral::with_single_blas_thread;
use crate::state::DensityMatrix;
use ndarray::{Array2, ArrayView2, ArrayView3, Axis};
use num_complex::Complex64;
use rayon::prelude::*;

/// Dimension from which a batch runs sequentially with multi-threaded BLAS instead of rayon
/// across pairs. The batch bench measures rayon ahead up to d = 64 (docs/PERFORMANCE.md); from
/// d ≈ 128 one zgemm or eigensolve is large enough for OpenBLAS's threads to pay off, so the
/// switch sits there (a policy choice; the exact crossover was not measured).
pub const PARALLEL_BELOW: usize = 128;

/// Run `f` on every item: rayon with single-threaded BLAS when `dim < PARALLEL_BELOW`, otherwise
/// a sequential loop with BLAS's own threads.
fn run<T: Sync, R: Send>(items: &[T], dim: usize, f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    if dim >= PARALLEL_BELOW || items.len() < 2 {
        return items.iter().map(f).collect();
    }
    with_single_blas_thread(|| items.par_iter().map(f).collect())
}

/// Largest dimension among the pairs (0 for none).
fn max_dim(pairs: &[(DensityMatrix, DensityMatrix)]) -> usize {
    pairs.iter().map(|(r, _)| r.dim()).max().unwrap_or(0)
}

/// `D_α(ρ_k‖σ_k)` of `family` for every pair (see [`Pair::renyi`]).
pub fn renyi(
    pairs: &[(DensityMatrix, DensityMatrix)],
    family: Family,
    alpha: f64,
) -> Vec<Result<f64>> {
    run(pairs, max_dim(pairs), |(r, s)| {
        Pair::new(r, s)?.renyi(family, alpha)
    })
}

/// The α-curve of `family` for every pair (see [`Pair::curve`]).
pub fn curve(
    pairs: &[(DensityMatrix, DensityMatrix)],
    family: Family,
    alphas: &[f64],
) -> Vec<Result<Vec<f64>>> {
    run(pairs, max_dim(pairs), |(r, s)| {
        Pair::new(r, s)?.curve(family, alphas)
    })
}

/// Any quantity of many pairs: `f` applied to the [`Pair`] of each `(ρ, σ)`, with the thread
/// policy above; one `Result` per pair, in input order.
pub fn map<R: Send>(
    pairs: &[(DensityMatrix, DensityMatrix)],
    f: impl Fn(&Pair) -> Result<R> + Sync + Send,
) -> Vec<Result<R>> {
    run(pairs, max_dim(pairs), |(r, s)| f(&Pair::new(r, s)?))
}

/// Hockey-stick divergence `E_γ(ρ_k‖σ_k)` for every pair (see [`Pair::hockey_stick`]).
pub fn hockey_stick(pairs: &[(DensityMatrix, DensityMatrix)], gamma: f64) -> Vec<Result<f64>> {
    run(pairs, max_dim(pairs), |(r, s)| {
        Pair::new(r, s)?.hockey_stick(gamma)
    })
}

/// One operand of [`renyi_stacks`]: one validated state shared by every pair, or one raw matrix per
/// pair (validated there).
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    /// The same state in every pair.
    State(&'a DensityMatrix),
    /// Pair `k` uses matrix `k`.
    Stack(&'a [Array2<Complex64>]),
    /// Pair `k` uses matrix `k` of an `n × d × d` array (one contiguous buffer: what the Python
    /// binding makes of a numpy stack, without an allocation per matrix).
    Array(ArrayView3<'a, Complex64>),
}

impl<'a> Operand<'a> {
    fn len(&self) -> Option<usize> {
        match self {
            Operand::State(_) => None,
            Operand::Stack(v) => Some(v.len()),
            Operand::Array(a) => Some(a.len_of(Axis(0))),
        }
    }
    fn dim(&self) -> usize {
        match self {
            Operand::State(s) => s.dim(),
            Operand::Stack(v) => v.iter().map(|m| m.nrows()).max().unwrap_or(0),
            Operand::Array(a) => a.len_of(Axis(1)),
        }
    }
    /// The dimension of pair `k`'s matrix (rows; validation checks squareness).
    fn dim_of(&self, k: usize) -> usize {
        match self {
            Operand::State(s) => s.dim(),
            Operand::Stack(v) => v[k].nrows(),
            Operand::Array(a) => a.len_of(Axis(1)),
        }
    }
    /// Pair `k`'s raw matrix (`None` for a shared state).
    fn raw(&self, k: usize) -> Option<ArrayView2<'a, Complex64>> {
        match *self {
            Operand::State(_) => None,
            Operand::Stack(v) => Some(v[k].view()),
            Operand::Array(a) => Some(a.index_axis_move(Axis(0), k)),
        }
    }
}

/// [`renyi_stacks`] validates raw matrices on the small-state route below this dimension (fixed-size
/// checks, one decomposition by the fixed-size solver that also decides PSD where that decision is
/// certain, and the small-pair kernel, `d ≤ 16`); values equal the one-pair API's to rounding
/// (within the documented error bound), its accept/reject decisions exactly.
pub const SMALL_STACK_BELOW: usize = 17;

/// `D_α(ρ_k‖σ_k)` of `family` at every order of `alphas` (`Pair::renyi` for one order,
/// `Pair::curve` for several) for the pairs of two operands — raw matrices are validated as
/// [`DensityMatrix::with_options`] with `tol` and [`Backend::Auto`](crate::spectral::Backend::Auto)
/// (an error names the operand: [`Error::Parse`](crate::Error::Parse) with `what` `"rho"` or
/// `"sigma"`) — in parallel under the thread policy above. One result per pair, in order; `Err` for
/// the whole call when two stacks differ in length.
///
/// Small pairs (`d <` [`SMALL_STACK_BELOW`]) take the light route: each raw matrix is checked and
/// symmetrised on a stack array (`small_checked`) and decomposed once; its eigenvalues decide PSD
/// where the decision is certain (`λ_min ≥ −t + m`, see `small_operand`), the library's
/// validation decides (and words the error) otherwise, so the decisions and messages are the
/// one-pair API's. The small-pair kernel evaluates the pair without building states; orders it
/// declines fall back to a [`Pair`] of states that carry those decompositions. Sandwiched orders
/// all finite and `> 1` at `d < 8` skip ρ's decomposition (`direct_sandwiched`, the one-pair API's
/// direct route). Pairs run in groups of [`LANES`]: at `3 ≤ d ≤` [`LANES_MAX_DIM`] the fixed-size
/// decompositions of a group's raw matrices are computed eight at a time (`small_group`; the
/// lanes' Jacobi method, `small_lanes::eigh_jacobi_parallel`'s numbers; maximal orders ≥ 1 also solve their reductions eight at a time), any pair that route does not settle takes the one-pair route
/// above. Other sizes validate each matrix into a [`DensityMatrix`]. Petz and maximal orders all
/// exactly 2 at `d < 8` first take the one-pair API's Cholesky route (`order_two_pair`: no
/// decomposition, the one-pair value bit for bit), and the sandwiched direct route evaluates α = 2
/// by the Frobenius sum (docs/divergences.md, "order_two_cholesky", "order_two_frobenius").
/// Maximal at one finite order `α ≥ 1`, `d < 8`, takes the one-pair API's whitened route first
/// (`whitened_pair`, `whitened_group`: one eigendecomposition per pair, of `T = L⁻¹ρL⁻†`;
/// docs/divergences.md "maximal_whitened", "In stacks").
pub fn renyi_stacks(
    rho: Operand<'_>,
    sigma: Operand<'_>,
    family: Family,
    alphas: &[f64],
    tol: crate::state::Tolerance,
) -> Result<Vec<Result<Vec<f64>>>> {
    let (n, dim, job) = StackJob::new(rho, sigma, family, alphas, tol)?;
    let width = alphas.len();
    let mut flat = vec![0.0; n * width];
    let group = |(g, rows): (usize, &mut [f64])| stack_group(&job, g * LANES, rows);
    let status: Vec<[Result<()>; LANES]> = if width == 0 {
        // no orders: each pair still validated (the one-pair API's errors), no values
        (0..n.div_ceil(LANES))
            .map(|g| {
                std::array::from_fn(|l| {
                    let k = g * LANES + l;
                    if k < n {
                        stack_pair(rho, sigma, k, family, alphas, tol, job.small, &mut [])
                    } else {
                        Ok(())
                    }
                })
            })
            .collect()
    } else if dim >= PARALLEL_BELOW || n < 2 {
        flat.chunks_mut(width * LANES)
            .enumerate()
            .map(group)
            .collect()
    } else {
        with_single_blas_thread(|| {
            flat.par_chunks_mut(width * LANES)
                .enumerate()
                .map(group)
                .collect()
        })
    };
    Ok((0..n)
        .map(|k| match &status[k / LANES][k % LANES] {
            Ok(()) => Ok(flat[k * width..(k + 1) * width].to_vec()),
            Err(e) => Err(e.clone()),
        })
        .collect())
}

/// [`renyi_stacks`] into one row-major `n × alphas.len()` buffer (no allocation per pair): the
/// values, or the first failing pair in input order with its error. `Err` for the whole call as
/// [`renyi_stacks`] (stack lengths differ), and for an empty `alphas`.
#[allow(clippy::type_complexity)]
pub fn renyi_stacks_flat(
    rho: Operand<'_>,
    sigma: Operand<'_>,
    family: Family,
    alphas: &[f64],
    tol: crate::state::Tolerance,
) -> Result<std::result::Result<Vec<f64>, (usize, crate::Error)>> {
    use rayon::prelude::*;
    let (n, dim, job) = StackJob::new(rho, sigma, family, alphas, tol)?;
    let width = alphas.len();
    if width == 0 {
        return Err(crate::Error::Empty("orders of a stack".into()));
    }
    let mut out = vec![0.0; n * width];
    let first_error = |(g, rows): (usize, &mut [f64])| {
        let status = stack_group(&job, g * LANES, rows);
        status
            .into_iter()
            .enumerate()
            .find_map(|(l, r)| r.err().map(|e| (g * LANES + l, e)))
    };
    let first = if dim >= PARALLEL_BELOW || n < 2 {
        out.chunks_mut(width * LANES)
            .enumerate()
            .find_map(first_error)
    } else {
        with_single_blas_thread(|| {
            out.par_chunks_mut(width * LANES)
                .enumerate()
                .filter_map(first_error)
                .min_by_key(|(k, _)| *k)
        })
    };
    Ok(match first {
        None => Ok(out),
        Some(e) => Err(e),
    })
}

/// What every pair of one [`renyi_stacks`] call shares.
#[derive(Clone, Copy)]
struct StackJob<'r, 's, 'a> {
    rho: Operand<'r>,
    sigma: Operand<'s>,
    family: Family,
    alphas: &'a [f64],
    tol: crate::state::Tolerance,
    /// Whether the small route applies (`stack_shape`).
    small: bool,
}

impl<'r, 's, 'a> StackJob<'r, 's, 'a> {
    /// The job, the number of pairs and the largest dimension (`stack_shape`).
    fn new(
        rho: Operand<'r>,
        sigma: Operand<'s>,
        family: Family,
        alphas: &'a [f64],
        tol: crate::state::Tolerance,
    ) -> Result<(usize, usize, Self)> {
        let (n, dim, small) = stack_shape(rho, sigma)?;
        let job = StackJob {
            rho,
            sigma,
            family,
            alphas,
            tol,
            small,
        };
        Ok((n, dim, job))
    }
}

/// Pairs `k0 … k0 + rows.len()/width − 1` (at most [`LANES`]) of [`renyi_stacks`], their values
/// written to `rows` (`alphas.len()` each): one result per lane (`Ok` beyond the last pair).
/// Where [`LANES`] pairs of one dimension `3 ≤ N ≤` [`LANES_MAX_DIM`] take the small route, their
/// raw matrices are decomposed [`LANES`] at a time (`small_group`); every other pair, and every
/// pair the group route does not settle, is [`stack_pair`]'s.
fn stack_group(job: &StackJob<'_, '_, '_>, k0: usize, rows: &mut [f64]) -> [Result<()>; LANES] {
    let (rho, sigma, alphas) = (job.rho, job.sigma, job.alphas);
    let (family, tol, small) = (job.family, job.tol, job.small);
    let width = alphas.len();
    let count = rows.len() / width;
    let mut status: [Result<()>; LANES] = std::array::from_fn(|_| Ok(()));
    let mut settled = [false; LANES];
    if small && count == LANES {
        let d = rho.dim_of(k0);
        let same = (0..LANES).all(|l| rho.dim_of(k0 + l) == d && sigma.dim_of(k0 + l) == d);
        if same && (3..=LANES_MAX_DIM).contains(&d) {
            crate::spectral::small::with_small_dim!(d, N => {
                settled = small_group::<N>(job, k0, rows);
            }, _ => ());
        }
    }
    for (l, row) in rows.chunks_mut(width).enumerate() {
        if !settled[l] {
            status[l] = stack_pair(rho, sigma, k0 + l, family, alphas, tol, small, row);
        }
    }
    status
}

/// Pairs per group of the stack route: the fixed-size eigensolves of eight pairs' raw matrices run
/// together ([`eigh_lanes`](crate::spectral::small_lanes::eigh_lanes), the Jacobi method on eight
/// matrices at once, [`eigh_jacobi_parallel`](crate::spectral::small_lanes::eigh_jacobi_parallel)'s
/// numbers).
pub const LANES: usize = crate::spectral::small_lanes::LANES;

/// Largest dimension at which the stack route decomposes a group's matrices at once (from 3; at 2 the
/// one-matrix closed form is already one rotation). Measured faster than the one-matrix
/// Householder + QL solver up to here; at 8 the two were even (docs/PERFORMANCE.md, "Fourth
/// session (stack12, four pairs at once)").
pub const LANES_MAX_DIM: usize = 6;

/// [`LANES`] pairs `k0 …` on the small route, `N × N` each, their raw matrices decomposed all at a
/// time: which lanes it settled (values written to their rows of `rows`, no error). A lane it
/// does not settle — a check that fails, a PSD decision that is not certain, a solve that did not
/// converge, the kernel's or the direct route's error or refusal — is left to [`stack_pair`],
/// which decides and reports exactly as before.
///
/// Sandwiched orders all finite and `> 1` (`N <`
/// [`AUTO_NALGEBRA_CHOLESKY_BELOW`](crate::spectral::AUTO_NALGEBRA_CHOLESKY_BELOW)): ρ checked and
/// its Cholesky decision as [`direct_sandwiched`], σ's decompositions at once, then per order
/// the values-only solves of `D ρ' D` at once. Otherwise both sides' decompositions at once
/// (all ρ, all σ) and the small-pair kernel per pair ([`small_pair_sides`]); maximal orders all
/// `≥ 1` solve the kernel's reductions at once too ([`maximal_group`]). Before those, the
/// one-pair API's Cholesky routes where they apply ([`cholesky_stack`]): Petz and maximal `D_2`
/// per pair ([`cholesky_pair`]), maximal single orders `α ≥ 1` by the whitened route with the
/// eight `T` decomposed at once ([`whitened_group`]).
fn small_group<const N: usize>(
    job: &StackJob<'_, '_, '_>,
    k0: usize,
    rows: &mut [f64],
) -> [bool; LANES] {
    if !cholesky_stack::<N>(job.family, job.alphas) {
        return small_group_spectral::<N>(job, k0, rows);
    }
    let width = job.alphas.len();
    let mut settled = [false; LANES];
    if order_two_stack::<N>(job.family, job.alphas) {
        for (l, row) in rows.chunks_mut(width).enumerate() {
            settled[l] = cholesky_pair::<N>(job, k0 + l, row);
        }
    } else {
        settled = whitened_group::<N>(job, k0, rows);
    }
    if settled.iter().all(|&s| s) {
        return settled;
    }
    // the lanes the Cholesky routes decline: the decompositions (rare: a σ near singular, a ρ
    // at the PSD threshold, an error to report), which overwrite every lane's row — the settled
    // lanes' rows are put back
    let kept = rows.to_vec();
    let spectral = small_group_spectral::<N>(job, k0, rows);
    for l in 0..LANES {
        let span = l * width..(l + 1) * width;
        if settled[l] {
            rows[span.clone()].copy_from_slice(&kept[span]);
        } else {
            settled[l] = spectral[l];
        }
    }
    settled
}

/// Whether a stack of `N × N` pairs tries one of the one-pair API's Cholesky routes, which
/// decompose neither state: the integer order's (`order_two_stack`) or the whitened maximal
/// route's (`whitened_stack`).
fn cholesky_stack<const N: usize>(family: Family, alphas: &[f64]) -> bool {
    order_two_stack::<N>(family, alphas) || whitened_stack::<N>(family, alphas)
}

/// Pair `k` by the one-pair API's Cholesky routes, in the one-pair API's order (`Pair::renyi`):
/// the integer order's (`order_two_pair`) where [`order_two_stack`] holds, then the whitened
/// maximal route's (`whitened_pair`) where [`whitened_stack`] holds; `true` when one of them
/// answered every order (values written to `row`), `false` (the decomposition route) otherwise.
fn cholesky_pair<const N: usize>(job: &StackJob<'_, '_, '_>, k: usize, row: &mut [f64]) -> bool {
    let (rho, sigma, family, alphas, tol) = (job.rho, job.sigma, job.family, job.alphas, job.tol);
    if order_two_stack::<N>(family, alphas) {
        if let Some(v) = order_two_pair::<N>(rho, sigma, k, tol) {
            row.fill(v);
            return true;
        }
    }
    whitened_stack::<N>(family, alphas) && whitened_pair::<N>(rho, sigma, k, tol, alphas, row)
}

/// Whether a stack of `N × N` pairs tries the one-pair API's whitened maximal route
/// (`Pair::maximal_whitened`, docs/divergences.md "maximal_whitened"): maximal, every order
/// finite and `≥ 1`, one order (curves take it only from
/// [`WHITENED_CURVE_FROM`](super::whitened::WHITENED_CURVE_FROM), above this route's sizes),
/// `N <` [`AUTO_NALGEBRA_CHOLESKY_BELOW`](crate::spectral::AUTO_NALGEBRA_CHOLESKY_BELOW) (where
/// `Backend::Auto`'s PSD check is [`cholesky_decision`](crate::spectral::small::cholesky_decision)).
fn whitened_stack<const N: usize>(family: Family, alphas: &[f64]) -> bool {
    family == Family::Maximal
        && !alphas.is_empty()
        && alphas.iter().all(|&a| a >= 1.0 && a.is_finite())
        && (alphas.len() == 1 || N >= super::whitened::WHITENED_CURVE_FROM)
        && N <= super::whitened::WHITENED_MAX
        && N < crate::spectral::AUTO_NALGEBRA_CHOLESKY_BELOW
}

/// Pair `k` of two raw operands by the one-pair API's whitened maximal route
/// ([`whitened_small`](super::whitened::whitened_small): σ's Cholesky factor, `T = L⁻¹ρL⁻†`, one
/// eigendecomposition of `T`, the a-posteriori bound against the documented one), decided as that
/// API decides it: ρ accepted with `is_psd_to_rounding` ([`psd_to_rounding`], as
/// `order_two_pair`; `Pair::maximal_whitened` needs it), σ accepted and certified of full rank
/// ([`whitened_sides`]), then every order certified — the one-pair value bit for bit (the same
/// functions on the same symmetrised matrices) where the single call takes the whitened route;
/// for two shared states that are both already decomposed the single call declines it
/// (`host_pair`) and takes the eigen route, so there the values agree to rounding, within the
/// documented bound (review23). `false` (the decomposition route, which decides,
/// reports errors and answers as before) where an operand is not so accepted, σ is not certified
/// of full rank, or an order's bound exceeds the documented one.
fn whitened_pair<const N: usize>(
    rho: Operand<'_>,
    sigma: Operand<'_>,
    k: usize,
    tol: crate::state::Tolerance,
    alphas: &[f64],
    row: &mut [f64],
) -> bool {
    use super::whitened::{whitened_finish, Prepared};
    use crate::spectral::small::zeros;
    let (mut r, mut s, mut p) = (zeros::<N>(), zeros::<N>(), Prepared::<N>::zeroed());
    if !whitened_sides::<N>(rho, sigma, k, tol, &mut r, &mut s, &mut p) {
        return false;
    }
    // the fixed-size solver's iteration cap: decline, the eigen route answers
    let Ok(e) = crate::spectral::small::eigh_small::<N>(p.matrix(), true) else {
        return false;
    };
    whitened_finish::<N>(&p, &s, &e).certify_into(&p, &s, alphas, row)
}

/// The whitened route's inputs of pair `k`, written into `r` (ρ's symmetrised matrix), `s` (σ's)
/// and `p` (σ's factor and `T`, [`whiten_prepare_into`](super::whitened::whiten_prepare_into)):
/// `true` where ρ is accepted with `is_psd_to_rounding` ([`psd_to_rounding_into`]) and σ passes
/// the checks ([`small_checked_into`], or is a shared state accepted to rounding) and is certified
/// of full rank by the route, `λ_min(σ) ≥ s_c = (16N + 4N(N+1)) ε Tr σ`
/// ([`certificate_shift`](super::order_two::certificate_shift)). That certificate makes σ's own
/// PSD decision without its factorisation: the library factorises `σ + τI`, `τ = 16Nε Tr σ`, and
/// Cholesky in floating point runs to completion on a Hermitian `A` whose diagonally scaled
/// `H = D^{−1/2}AD^{−1/2}` has `λ_min(H) > Nγ_{N+1}/(1 − Nγ_{N+1})` (Demmel; Higham, *Accuracy
/// and Stability*, Thm. 10.7) — here `λ_min(H) ≥ (s_c + τ)/(Tr σ + τ)`, about `(32N + 4N(N+1))ε`,
/// beyond `N(N+1)ε` by far (complex arithmetic's larger unit roundoff included) — so
/// [`DensityMatrix::with_options`] accepts σ with `is_psd_to_rounding`, as
/// [`cholesky_decision`](crate::spectral::small::cholesky_decision) would find.
fn whitened_sides<const N: usize>(
    rho: Operand<'_>,
    sigma: Operand<'_>,
    k: usize,
    tol: crate::state::Tolerance,
    r: &mut crate::spectral::small::Mat<N>,
    s: &mut crate::spectral::small::Mat<N>,
    p: &mut super::whitened::Prepared<N>,
) -> bool {
    if !psd_to_rounding_into::<N>(rho, k, tol, r) {
        return false;
    }
    let accepted = match sigma {
        Operand::State(_) => psd_to_rounding_into::<N>(sigma, k, tol, s),
        _ => match sigma.raw(k) {
            Some(view) => match small_checked_into::<N>(&view, tol, s) {
                Some((t, trace)) => crate::spectral::zero_threshold(N, trace) < t,
                None => false,
            },
            None => false,
        },
    };
    accepted && super::whitened::whiten_prepare_into::<N>(r, s, p)
}

/// [`whitened_pair`] for the [`LANES`] pairs `k0 …` of a group, the eigendecompositions of their
/// matrices `T = L⁻¹ρL⁻†` at once (the lane Jacobi's numbers; the one-pair route's solver is
/// `eigh_small`, so values agree to rounding, within the documented error bound: both solvers are
/// backward stable, the route's bound models their backward error alike, and the bound is
/// computed from these eigenpairs before an order is taken). Which lanes it settled.
fn whitened_group<const N: usize>(
    job: &StackJob<'_, '_, '_>,
    k0: usize,
    rows: &mut [f64],
) -> [bool; LANES] {
    use super::whitened::{whitened_finish, Prepared};
    use crate::spectral::small::{zeros, SmallEigen};
    let width = job.alphas.len();
    let mut preps: [Prepared<N>; LANES] = std::array::from_fn(|_| Prepared::zeroed());
    let mut ss = [zeros::<N>(); LANES];
    let mut mats = [zeros::<N>(); LANES];
    let mut ready = [false; LANES];
    let mut r = zeros::<N>();
    for l in 0..LANES {
        ready[l] = whitened_sides::<N>(
            job.rho,
            job.sigma,
            k0 + l,
            job.tol,
            &mut r,
            &mut ss[l],
            &mut preps[l],
        );
        if ready[l] {
            mats[l] = *preps[l].matrix();
        }
    }
    let mut settled = [false; LANES];
    if !ready.iter().any(|&x| x) {
        return settled;
    }
    let mut eig = [SmallEigen::zeroed(); LANES];
    let solved = crate::spectral::small_lanes::eigh_lanes_into::<N>(&mats, true, eig.each_mut());
    for l in 0..LANES {
        if ready[l] && solved[l] {
            let row = &mut rows[l * width..(l + 1) * width];
            settled[l] = whitened_finish::<N>(&preps[l], &ss[l], &eig[l])
                .certify_into(&preps[l], &ss[l], job.alphas, row);
        }
    }
    settled
}

/// Operand `k`'s symmetrised matrix where [`DensityMatrix::with_options`] (`Backend::Auto`, `N <`
/// [`AUTO_NALGEBRA_CHOLESKY_BELOW`](crate::spectral::AUTO_NALGEBRA_CHOLESKY_BELOW)) accepts it
/// with `is_psd_to_rounding`: the checks ([`small_checked`]) and the rounding-level Cholesky
/// decision of `H + τI`, `τ = 16 N ε Tr H`
/// ([`cholesky_decision`](crate::spectral::small::cholesky_decision)). A shared state
/// (`Operand::State`) with its own cached `is_psd_to_rounding` when its backend is
/// `Backend::Auto`. `None` otherwise (the caller takes the decomposition route).
fn psd_to_rounding<const N: usize>(
    o: Operand<'_>,
    k: usize,
    tol: crate::state::Tolerance,
) -> Option<crate::spectral::small::Mat<N>> {
    let mut m = crate::spectral::small::zeros::<N>();
    psd_to_rounding_into::<N>(o, k, tol, &mut m).then_some(m)
}

/// [`psd_to_rounding`] written into `m`: whether the operand is so accepted (`m` then holds its
/// symmetrised matrix; otherwise unspecified numbers).
fn psd_to_rounding_into<const N: usize>(
    o: Operand<'_>,
    k: usize,
    tol: crate::state::Tolerance,
    m: &mut crate::spectral::small::Mat<N>,
) -> bool {
    match o {
        // a shared validated state: its own cached decision, the one `Pair::renyi` reads (for
        // `Backend::Auto` below the nalgebra-Cholesky bound it is `cholesky_decision`'s)
        Operand::State(st) => {
            let ok = st.backend() == crate::spectral::Backend::Auto && st.is_psd_to_rounding();
            if ok {
                *m = crate::spectral::small::from_view::<N>(&st.matrix().view());
            }
            ok
        }
        _ => {
            let Some(view) = o.raw(k) else {
                return false;
            };
            let Some((t, trace)) = small_checked_into::<N>(&view, tol, m) else {
                return false;
            };
            let shift = crate::spectral::zero_threshold(N, trace);
            shift < t && crate::spectral::small::cholesky_decision::<N>(m, shift) == Some(true)
        }
    }
}

/// Whether a stack of `N × N` pairs tries the one-pair API's Cholesky route of the integer order
/// (`order_two_pair`): Petz and maximal, every order 2, `N <`
/// [`AUTO_NALGEBRA_CHOLESKY_BELOW`](crate::spectral::AUTO_NALGEBRA_CHOLESKY_BELOW) (where
/// `Backend::Auto`'s PSD check is [`cholesky_decision`](crate::spectral::small::cholesky_decision)).
fn order_two_stack<const N: usize>(family: Family, alphas: &[f64]) -> bool {
    matches!(family, Family::Petz | Family::Maximal)
        && !alphas.is_empty()
        && alphas.iter().all(|&a| a == 2.0)
        && N < crate::spectral::AUTO_NALGEBRA_CHOLESKY_BELOW
}

/// Pair `k` of two raw operands by the one-pair API's route for Petz and maximal `D_2`
/// ([`order_two_cholesky`](super::order_two::order_two_cholesky), docs/divergences.md
/// "order_two_cholesky"), decided as that API decides it: both matrices pass the checks
/// ([`small_checked`]) and their rounding-level Cholesky factorisations `H + τI`, `τ = 16 N ε Tr H`
/// ([`cholesky_decision`](crate::spectral::small::cholesky_decision), `Backend::Auto`'s decision
/// here), so [`DensityMatrix::with_options`] accepts both with `is_psd_to_rounding` — then the
/// certificate, factorisation and solve on the stack
/// ([`order_two_small`](super::order_two::order_two_small), the same arithmetic): the one-pair
/// value bit for bit (for two shared states both already decomposed the single call takes the
/// eigen route instead: agreement to rounding there). A shared state (`Operand::State`, e.g. one σ
/// against a Python stack of ρ) is taken with its own cached `is_psd_to_rounding` when its backend
/// is `Backend::Auto`. `None` (the
/// pair takes the decomposition route, which decides, reports errors and answers as before) for a
/// shared state of another backend, a failed check or factorisation, or a certificate that fails.
fn order_two_pair<const N: usize>(
    rho: Operand<'_>,
    sigma: Operand<'_>,
    k: usize,
    tol: crate::state::Tolerance,
) -> Option<f64> {
    let r = psd_to_rounding::<N>(rho, k, tol)?;
    let s = psd_to_rounding::<N>(sigma, k, tol)?;
    super::order_two::order_two_small::<N>(&r, &s)
}

/// [`small_group`]'s decomposition route (every pair the Cholesky route of `D_2` does not take).
fn small_group_spectral<const N: usize>(
    job: &StackJob<'_, '_, '_>,
    k0: usize,
    rows: &mut [f64],
) -> [bool; LANES] {
    let StackJob {
        rho,
        sigma,
        family,
        alphas,
        tol,
        ..
    } = *job;
    use crate::spectral::small::{cholesky_decision, zeros};
    use crate::spectral::small_lanes::eigh_lanes_into;
    let width = alphas.len();
    let mut settled = [false; LANES];
    let direct = family == Family::Sandwiched
        && N < crate::spectral::AUTO_NALGEBRA_CHOLESKY_BELOW
        && alphas.iter().all(|&a| a > 1.0 && a.is_finite());
    if direct {
        // ρ: checks and the library's Cholesky decision, per pair (as `direct_sandwiched`), in
        // place (no copies of the group's matrices)
        let mut hs = [zeros::<N>(); LANES];
        let mut accepted = [false; LANES];
        for l in 0..LANES {
            let Some(view) = rho.raw(k0 + l) else {
                return settled;
            };
            if let Some((t, trace)) = small_checked_into::<N>(&view, tol, &mut hs[l]) {
                let shift = crate::spectral::zero_threshold(N, trace);
                accepted[l] = shift < t && cholesky_decision::<N>(&hs[l], shift) == Some(true);
            }
        }
        let mut store = GroupSides::zeroed();
        let sides = small_sides::<N>(sigma, k0, tol, &mut store);
        let mut rps = [zeros::<N>(); LANES];
        let mut ln_mus = [[0.0; N]; LANES];
        let mut ok = [false; LANES];
        for l in 0..LANES {
            if let (true, Some(s)) = (accepted[l], &sides[l]) {
                if (0..N).all(|j| s.state.in_support(j)) {
                    direct_sandwiched_basis_into(&hs[l], s.state, &mut rps[l], &mut ln_mus[l]);
                    ok[l] = true;
                }
            }
        }
        let mut nus = [crate::spectral::small::SmallEigen::zeroed(); LANES];
        for (o, &alpha) in alphas.iter().enumerate() {
            if alpha == 2.0 {
                // the one-pair API's Frobenius sum, no eigensolve
                for l in 0..LANES {
                    if ok[l] {
                        rows[l * width + o] = direct_sandwiched_order_two(&rps[l], &ln_mus[l]);
                    }
                }
                continue;
            }
            let mut mats = [zeros::<N>(); LANES];
            let mut shifts = [0.0; LANES];
            for l in 0..LANES {
                if ok[l] {
                    (mats[l], shifts[l]) = direct_sandwiched_matrix(&rps[l], &ln_mus[l], alpha);
                }
            }
            let solved = eigh_lanes_into::<N>(&mats, false, nus.each_mut());
            for l in 0..LANES {
                if ok[l] && solved[l] {
                    match super::small::direct_sandwiched_value(
                        alpha,
                        &rps[l],
                        &ln_mus[l],
                        &nus[l].values,
                        shifts[l],
                    ) {
                        Ok(v) => rows[l * width + o] = v,
                        Err(_) => ok[l] = false,
                    }
                } else {
                    ok[l] = false;
                }
            }
        }
        return ok;
    }
    let (mut r_store, mut s_store) = (GroupSides::zeroed(), GroupSides::zeroed());
    let rs = small_sides::<N>(rho, k0, tol, &mut r_store);
    let ss = small_sides::<N>(sigma, k0, tol, &mut s_store);
    if family == Family::Maximal
        && alphas
            .iter()
            .all(|&a| a >= 1.0 && family.check_alpha(a).is_ok())
    {
        return maximal_group(&rs, &ss, alphas, rows);
    }
    for l in 0..LANES {
        if let (Some(r), Some(s)) = (rs[l], ss[l]) {
            let row = &mut rows[l * width..(l + 1) * width];
            settled[l] = small_pair_sides(r, s, family, alphas, row).is_ok();
        }
    }
    settled
}

/// Maximal orders, all `≥ 1`, of a group's validated sides: the small-pair kernel's reduction
/// with the [`LANES`] eigensolves of `T = D^{−1/2} ρ' D^{−1/2}` at once (the lane Jacobi's
/// numbers; the one-pair kernel's solver is the Householder + QL one, so values agree to
/// rounding, within the documented error bound). A lane the reduction does not apply to (`supp ρ
/// ⊄ supp σ`), or whose solve fails, takes [`small_pair_sides`]'s route.
fn maximal_group<const N: usize>(
    rs: &[Option<SmallSide<'_, N>>; LANES],
    ss: &[Option<SmallSide<'_, N>>; LANES],
    alphas: &[f64],
    rows: &mut [f64],
) -> [bool; LANES] {
    use super::small::SmallPair;
    use crate::spectral::small::{zeros, SmallEigen};
    let width = alphas.len();
    let mut settled = [false; LANES];
    let mut pairs: [Option<SmallPair<N>>; LANES] = [const { None }; LANES];
    let mut support = [([0usize; N], 0usize); LANES];
    let mut mats = [zeros::<N>(); LANES];
    let mut reduced = [false; LANES];
    for l in 0..LANES {
        if let (Some(r), Some(s)) = (&rs[l], &ss[l]) {
            let pair = SmallPair::new(r.state, s.state);
            if let Some((t, sup, n)) = pair.maximal_matrix() {
                mats[l] = t;
                support[l] = (sup, n);
                reduced[l] = true;
            }
            pairs[l] = Some(pair);
        }
    }
    let mut eig = [SmallEigen::zeroed(); LANES];
    let solved = crate::spectral::small_lanes::eigh_lanes_into::<N>(&mats, true, eig.each_mut());
    for l in 0..LANES {
        let (Some(r), Some(s), Some(pair)) = (rs[l], ss[l], &pairs[l]) else {
            continue;
        };
        let row = &mut rows[l * width..(l + 1) * width];
        if reduced[l] && solved[l] {
            let (sup, n) = &support[l];
            let terms = pair.maximal_terms(&eig[l], sup, *n);
            let mut all = true;
            for (x, &a) in row.iter_mut().zip(alphas) {
                match SmallPair::<N>::maximal_from(&terms, a) {
                    Some(v) => *x = v,
                    None => all = false,
                }
            }
            settled[l] = all;
        }
        if !settled[l] {
            settled[l] = small_pair_sides(r, s, Family::Maximal, alphas, row).is_ok();
        }
    }
    settled
}

/// Operand `k0 + l` (`l < LANES`) on the small route as [`small_operand`] validates it, the raw
/// matrices decomposed at once, each side borrowing its matrix and decomposition from `store`
/// (written there in place: no copy of either); `None` where [`small_operand`] would not accept
/// it from the fixed-size decomposition (a failed check, a PSD decision that is not certain, a
/// solve that did not converge, a shared state without its decomposition): the caller then takes
/// [`small_operand`]'s route for the pair.
fn small_sides<'a: 's, 's, const N: usize>(
    o: Operand<'a>,
    k0: usize,
    tol: crate::state::Tolerance,
    store: &'s mut GroupSides<N>,
) -> [Option<SmallSide<'s, N>>; LANES] {
    if let Operand::State(s) = o {
        let Ok(e) = s.eigen() else {
            return [None; LANES];
        };
        store.states[0] = super::small::SmallState::from_eigen(e);
        let state = &store.states[0];
        return [Some(SmallSide {
            state,
            origin: Origin::State(s),
        }); LANES];
    }
    let GroupSides { mats, states } = store;
    let mut checked = [None; LANES];
    for (l, (t, m)) in checked.iter_mut().zip(mats.iter_mut()).enumerate() {
        if let Some(view) = o.raw(k0 + l) {
            *t = small_checked_into::<N>(&view, tol, m).map(|(tolerance, _)| tolerance);
        }
    }
    let solved = crate::spectral::small_lanes::eigh_lanes_into::<N>(
        mats,
        true,
        states.each_mut().map(|s| s.eigen_mut()),
    );
    for (state, _) in states.iter_mut().zip(solved).filter(|(_, ok)| *ok) {
        state.settle_threshold();
    }
    let (mats, states) = (&*mats, &*states);
    std::array::from_fn(|l| {
        let t = checked[l]?;
        if !solved[l] {
            return None;
        }
        certain_psd::<N>(&states[l], t).then_some(SmallSide {
            state: &states[l],
            origin: Origin::Checked(&mats[l]),
        })
    })
}

/// Whether a checked matrix's fixed-size decomposition decides PSD with certainty:
/// `λ_min ≥ −t + m`, `m = 64 N² ε (max|λ| + t)` ([`small_operand`]).
fn certain_psd<const N: usize>(state: &super::small::SmallState<N>, t: f64) -> bool {
    let (lo, hi) = (state.min_value(), state.parts().0[N - 1]);
    let margin = 64.0 * (N * N) as f64 * crate::spectral::EPS * (lo.abs().max(hi.abs()) + t);
    lo >= -t + margin
}

/// The number of pairs, the largest dimension and whether the small route applies.
fn stack_shape(rho: Operand<'_>, sigma: Operand<'_>) -> Result<(usize, usize, bool)> {
    let n = match (rho.len(), sigma.len()) {
        (Some(a), Some(b)) if a != b => {
            return Err(crate::Error::DimensionMismatch {
                what: "stack lengths of ρ and σ".into(),
                left: a,
                right: b,
            })
        }
        (Some(a), _) | (None, Some(a)) => a,
        (None, None) => 1,
    };
    let dim = rho.dim().max(sigma.dim());
    let on_auto = |o: &Operand<'_>| match o {
        Operand::State(s) => s.backend() == crate::spectral::Backend::Auto,
        Operand::Stack(_) | Operand::Array(_) => true,
    };
    let small = dim < SMALL_STACK_BELOW && on_auto(&rho) && on_auto(&sigma);
    Ok((n, dim, small))
}

/// Pair `k` of [`renyi_stacks`]: its values at `alphas` written to `row` (`alphas.len()` long).
#[allow(clippy::too_many_arguments)]
fn stack_pair(
    rho: Operand<'_>,
    sigma: Operand<'_>,
    k: usize,
    family: Family,
    alphas: &[f64],
    tol: crate::state::Tolerance,
    small: bool,
    row: &mut [f64],
) -> Result<()> {
    let (dr, ds) = (rho.dim_of(k), sigma.dim_of(k));
    if small && dr == ds {
        crate::spectral::small::with_small_dim!(dr, N => {
            return small_pair::<N>(rho, sigma, k, family, alphas, tol, row);
        }, _ => ());
    }
    let r = full_operand(rho, "rho", k, tol)?;
    let s = full_operand(sigma, "sigma", k, tol)?;
    row.copy_from_slice(&curve_of(&Pair::new(&r, &s)?, family, alphas)?);
    Ok(())
}

/// Pair `k` of [`renyi_stacks`] on the small route (both operands `N × N`), into `row`.
fn small_pair<const N: usize>(
    rho: Operand<'_>,
    sigma: Operand<'_>,
    k: usize,
    family: Family,
    alphas: &[f64],
    tol: crate::state::Tolerance,
    row: &mut [f64],
) -> Result<()> {
    if order_two_stack::<N>(family, alphas) {
        if let Some(v) = order_two_pair::<N>(rho, sigma, k, tol) {
            row.fill(v);
            return Ok(());
        }
    }
    if whitened_stack::<N>(family, alphas) && whitened_pair::<N>(rho, sigma, k, tol, alphas, row) {
        return Ok(());
    }
    if family == Family::Sandwiched
        && N < crate::spectral::AUTO_NALGEBRA_CHOLESKY_BELOW
        && direct_sandwiched::<N>(rho, sigma, k, alphas, tol, row)?
    {
        return Ok(());
    }
    let r = small_operand::<N>(rho, "rho", k, tol)?;
    let s = small_operand::<N>(sigma, "sigma", k, tol)?;
    small_pair_sides(r.side(), s.side(), family, alphas, row)
}

/// The values of a small pair from its two validated sides, into `row`: the small-pair kernel,
/// or `Pair`'s route where it declines (a Petz curve, orders below 1, …).
fn small_pair_sides<const N: usize>(
    r: SmallSide<'_, N>,
    s: SmallSide<'_, N>,
    family: Family,
    alphas: &[f64],
    row: &mut [f64],
) -> Result<()> {
    let pair = super::small::SmallPair::new(r.state, s.state);
    // Petz curves: Pair's factorised sum (the one-pair API's values)
    let kernel = alphas.len() == 1 || family != Family::Petz;
    for (x, &a) in row.iter_mut().zip(alphas) {
        family.check_alpha(a)?;
        match if kernel { pair.renyi(family, a)? } else { None } {
            Some(v) => *x = v,
            None => {
                let (r, s) = (r.validated(), s.validated());
                row.copy_from_slice(&curve_of(&Pair::new(&r, &s)?, family, alphas)?);
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Sandwiched orders, all finite and `> 1`, of a raw `ρ` (`N <`
/// [`AUTO_NALGEBRA_CHOLESKY_BELOW`](crate::spectral::AUTO_NALGEBRA_CHOLESKY_BELOW)) and a
/// full-rank σ by the one-pair API's direct route (`Pair::direct_sandwiched`): ρ is validated as
/// [`DensityMatrix::with_options`] validates it — the checks, then the Cholesky factorisation of
/// `H + τI` at the rounding-level shift `τ = 16 N ε Tr H`, here by
/// [`cholesky_decision`](crate::spectral::small::cholesky_decision), which makes nalgebra's
/// decision with nalgebra's operations (the one `Backend::Auto` takes at these sizes) — and never
/// decomposed: `ρ' = V_σ†ρV_σ`, then per order the values of `D ρ' D` (`D = diag μ^{γ/2}`) and the
/// two Rényi means of `DirectSandwiched::renyi`, written to `row`. `false` (the pair takes the decomposition route)
/// when an order is not finite `> 1`, ρ is a shared state, a check fails (the other route reports
/// the error with the library's message), the factorisation at `τ` does not succeed (validation
/// then goes on at the tolerance, where the library's own check decides) or σ is rank-deficient
/// (the support decision needs ρ's largest eigenvalue).
#[allow(clippy::needless_range_loop)] // entries m[i][j] read with their mirrors m[j][i]
fn direct_sandwiched<const N: usize>(
    rho: Operand<'_>,
    sigma: Operand<'_>,
    k: usize,
    alphas: &[f64],
    tol: crate::state::Tolerance,
    row: &mut [f64],
) -> Result<bool> {
    use crate::spectral::small::{cholesky_decision, eigh_small};
    if alphas.is_empty() || !alphas.iter().all(|&a| a > 1.0 && a.is_finite()) {
        return Ok(false);
    }
    let Some(view) = rho.raw(k) else {
        return Ok(false);
    };
    let Some((h, t, trace)) = small_checked::<N>(&view, tol) else {
        return Ok(false);
    };
    let shift = crate::spectral::zero_threshold(N, trace);
    if !(shift < t && cholesky_decision::<N>(&h, shift) == Some(true)) {
        return Ok(false);
    }
    let s = small_operand::<N>(sigma, "sigma", k, tol)?;
    if !(0..N).all(|j| s.state.in_support(j)) {
        return Ok(false);
    }
    let (rp, ln_mu) = direct_sandwiched_basis(&h, &s.state);
    for (x, &alpha) in row.iter_mut().zip(alphas) {
        if alpha == 2.0 {
            *x = direct_sandwiched_order_two(&rp, &ln_mu);
            continue;
        }
        let (a, c) = direct_sandwiched_matrix(&rp, &ln_mu, alpha);
        let nu = eigh_small::<N>(&a, false)?.values;
        *x = super::small::direct_sandwiched_value(alpha, &rp, &ln_mu, &nu, c)?;
    }
    Ok(true)
}

/// `ρ' = V_σ†HV_σ` (lower triangle computed, mirrored: exactly Hermitian; `HV` first) and
/// `ln μ` of a full-rank σ (the direct route's α-independent part).
fn direct_sandwiched_basis<const N: usize>(
    h: &crate::spectral::small::Mat<N>,
    sigma: &super::small::SmallState<N>,
) -> (crate::spectral::small::Mat<N>, [f64; N]) {
    let (mut rp, mut ln_mu) = (crate::spectral::small::zeros::<N>(), [0.0; N]);
    direct_sandwiched_basis_into(h, sigma, &mut rp, &mut ln_mu);
    (rp, ln_mu)
}

/// [`direct_sandwiched_basis`] written into `rp` and `ln_mu`. The products run on split real and
/// imaginary parts, every inner loop along a contiguous row (vectorised; the AVX2 build where
/// the CPU has it): each entry is the sum over `l = 0, 1, …` of the operations of the complex
/// products `h_il v_lj` and `conj(v_lx) (HV)_ly` in the same order — the complex-arithmetic
/// sums (`csum`) bit for bit (test `direct_basis_is_the_complex_sum`).
fn direct_sandwiched_basis_into<const N: usize>(
    h: &crate::spectral::small::Mat<N>,
    sigma: &super::small::SmallState<N>,
    rp: &mut crate::spectral::small::Mat<N>,
    ln_mu: &mut [f64; N],
) {
    #[cfg(target_arch = "x86_64")]
    {
        if N >= 3 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { basis_avx2(h, sigma, rp) };
            let mu = sigma.parts().0;
            for j in 0..N {
                ln_mu[j] = mu[j].ln();
            }
            return;
        }
    }
    basis_body(h, sigma, rp);
    let mu = sigma.parts().0;
    for j in 0..N {
        ln_mu[j] = mu[j].ln();
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn basis_avx2<const N: usize>(
    h: &crate::spectral::small::Mat<N>,
    sigma: &super::small::SmallState<N>,
    rp: &mut crate::spectral::small::Mat<N>,
) {
    basis_body(h, sigma, rp)
}

#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn basis_body<const N: usize>(
    h: &crate::spectral::small::Mat<N>,
    sigma: &super::small::SmallState<N>,
    rp: &mut crate::spectral::small::Mat<N>,
) {
    let v = sigma.parts().1;
    let (mut vr, mut vi) = ([[0.0; N]; N], [[0.0; N]; N]);
    for l in 0..N {
        for j in 0..N {
            vr[l][j] = v[l][j].re;
            vi[l][j] = v[l][j].im;
        }
    }
    // HV: row i accumulates h_il · (row l of V), l = 0, 1, …
    let (mut cr, mut ci) = ([[0.0; N]; N], [[0.0; N]; N]);
    for i in 0..N {
        let (ar, ai) = (&mut cr[i], &mut ci[i]);
        for l in 0..N {
            let (hr, hi) = (h[i][l].re, h[i][l].im);
            for j in 0..N {
                ar[j] += hr * vr[l][j] - hi * vi[l][j];
                ai[j] += hr * vi[l][j] + hi * vr[l][j];
            }
        }
    }
    // V†(HV): row x accumulates conj(v_lx) · (row l of HV); the lower triangle kept, mirrored
    for x in 0..N {
        let (mut sr, mut si) = ([0.0; N], [0.0; N]);
        for l in 0..N {
            let (ar, ai) = (vr[l][x], vi[l][x]);
            for y in 0..N {
                sr[y] += ar * cr[l][y] + ai * ci[l][y];
                si[y] += ar * ci[l][y] - ai * cr[l][y];
            }
        }
        for y in 0..x {
            let z = Complex64::new(sr[y], si[y]);
            rp[x][y] = z;
            rp[y][x] = z.conj();
        }
        rp[x][x] = Complex64::new(sr[x], 0.0);
    }
}

/// Sandwiched `D̃_2` of the direct route from `ρ'` and `ln μ` of a full-rank σ: the one-pair API's
/// Frobenius sum (`quantum::DirectSandwiched::renyi` at α = 2, docs/divergences.md
/// "order_two_frobenius"), `ln ‖D ρ' D‖_F² + 2c − ln Σ_j max(ρ'_jj, 0)` with the scales and shift
/// of [`direct_sandwiched_matrix`] at α = 2 — the same operations on `ρ'`; `ρ'` itself is this
/// route's product (`direct_sandwiched_basis`), so the value is the one-pair value to rounding,
/// within the documented error bound; `+∞` where the sum or the trace is not positive.
#[allow(clippy::needless_range_loop)]
pub(super) fn direct_sandwiched_order_two<const N: usize>(
    rp: &crate::spectral::small::Mat<N>,
    ln_mu: &[f64; N],
) -> f64 {
    let (scale, c) = direct_sandwiched_scales(ln_mu, 2.0);
    let sq = scale.map(|s| s * s);
    // `order_two::frobenius_scaled`'s order: each row's sum, then weighted by its own scale
    let mut q = 0.0;
    for x in 0..N {
        let mut acc = 0.0;
        for y in 0..N {
            acc += rp[x][y].norm_sqr() * sq[y];
        }
        q += acc * sq[x];
    }
    let trace: f64 = (0..N).map(|j| rp[j][j].re.max(0.0)).sum();
    if !(q > 0.0 && trace > 0.0) {
        return f64::INFINITY;
    }
    q.ln() + 2.0 * c - trace.ln()
}

/// The scales `e^{(γ ln μ_j − c)/2}` and the shift `c = max_j γ ln μ_j` (0 if not finite) at
/// `alpha`, `γ = (1 − α)/α` (the one-pair API's `DirectSandwiched::renyi`).
#[allow(clippy::needless_range_loop)]
fn direct_sandwiched_scales<const N: usize>(ln_mu: &[f64; N], alpha: f64) -> ([f64; N], f64) {
    let gamma = (1.0 - alpha) / alpha;
    let c = ln_mu
        .iter()
        .map(|l| gamma * l)
        .fold(f64::NEG_INFINITY, f64::max);
    let c = if c.is_finite() { c } else { 0.0 };
    let mut scale = [0.0; N];
    for j in 0..N {
        scale[j] = (0.5 * (gamma * ln_mu[j] - c)).exp();
    }
    (scale, c)
}

/// `D ρ' D`, `D = diag e^{(γ ln μ_j − c)/2}`, and the shift `c = max_j γ ln μ_j` at `alpha`.
#[allow(clippy::needless_range_loop)]
pub(super) fn direct_sandwiched_matrix<const N: usize>(
    rp: &crate::spectral::small::Mat<N>,
    ln_mu: &[f64; N],
    alpha: f64,
) -> (crate::spectral::small::Mat<N>, f64) {
    use crate::spectral::small::zeros;
    let (scale, c) = direct_sandwiched_scales(ln_mu, alpha);
    let mut a = zeros::<N>();
    for x in 0..N {
        for y in 0..N {
            a[x][y] = rp[x][y] * (scale[x] * scale[y]);
        }
    }
    (a, c)
}

/// The checks of [`DensityMatrix::with_options`] before its PSD step (`hermitian_unit_trace`:
/// finite entries, `max|A − A†| ≤ t`, `|Tr − 1| ≤ t`, `t = tol.scaled(N, max|A_ij|)`) on a fixed-size
/// copy, with the same arithmetic and so the same decisions: `(H, t, Tr H)` with `H = (A + A†)/2`
/// (the library's symmetrised matrix, bit for bit). `None` when a check fails or the input is
/// outside the fast path (not `N × N`, a tolerance out of range, entries beyond `~1e150`): the
/// caller then runs the library's own validation, which reports the error with its message.
#[allow(clippy::needless_range_loop)] // entries m[i][j] read with their mirrors m[j][i]
pub(super) fn small_checked<const N: usize>(
    a: &ArrayView2<'_, Complex64>,
    tol: crate::state::Tolerance,
) -> Option<(crate::spectral::small::Mat<N>, f64, f64)> {
    let mut m = crate::spectral::small::zeros::<N>();
    let (t, trace) = small_checked_into::<N>(a, tol, &mut m)?;
    Some((m, t, trace))
}

/// [`small_checked`] written into `m` (the caller's slot, no copy of the matrix back): `(t, Tr H)`,
/// `m = H`; `None` as [`small_checked`] (`m` then holds unspecified numbers). One pass over the
/// pairs `(i, j)`, `(j, i)` reads both entries (straight from a contiguous `a`, else from a copy in
/// `m`), folds them into the checks and writes `H`'s two entries; the decisions, taken after the
/// pass, and `H` are those of the checks run first and the symmetrisation after, bit for bit.
#[allow(clippy::needless_range_loop)] // entries m[i][j] read with their mirrors m[j][i]
pub(super) fn small_checked_into<const N: usize>(
    a: &ArrayView2<'_, Complex64>,
    tol: crate::state::Tolerance,
    m: &mut crate::spectral::small::Mat<N>,
) -> Option<(f64, f64)> {
    if a.dim() != (N, N) || tol.check().is_err() {
        return None;
    }
    use crate::spectral::small::Mat;
    /// The pass: `(max |z|², max |z − w̄|², no |z|² NaN)` over the entries `get` reads, `H` into
    /// `m`. The maxima are kept per column `j` and folded at the end (one running maximum over all
    /// the pairs was a chain of dependent `max`es): the maximum of numbers that are not NaN is the
    /// same in any grouping. `|z|²` is NaN exactly where `z` has a NaN part, and `+∞` where `z` has
    /// an infinite one (or overflows), which the caller's `≥ 10³⁰⁰` rejects: so "no `|z|²` NaN and
    /// `max |z|² < 10³⁰⁰`" is the checks' "every entry finite and `max |z|² < 10³⁰⁰`", tested
    /// without a branch per entry.
    #[inline(always)]
    fn pass<const N: usize>(
        m: &mut Mat<N>,
        get: impl Fn(&Mat<N>, usize, usize) -> Complex64,
    ) -> (f64, f64, bool) {
        let larger = |a: f64, b: f64| if b > a { b } else { a };
        let (mut norm2, mut dev2, mut nan) = ([0.0f64; N], [0.0f64; N], false);
        for i in 0..N {
            for j in 0..=i {
                let (z, w) = (get(m, i, j), get(m, j, i));
                let (nz, nw) = (z.norm_sqr(), w.norm_sqr());
                nan |= nz.is_nan() | nw.is_nan();
                norm2[j] = larger(larger(norm2[j], nz), nw);
                dev2[j] = larger(dev2[j], (z - w.conj()).norm_sqr());
                let h = (z + w.conj()) * 0.5;
                m[j][i] = h.conj();
                m[i][j] = h;
            }
        }
        let fold = |x: [f64; N]| x.iter().fold(0.0f64, |a, &b| larger(a, b));
        (fold(norm2), fold(dev2), !nan)
    }
    let (norm2, dev2, finite) = match a.as_slice().map(|s| s.as_chunks::<N>()) {
        Some((rows, [])) if rows.len() == N => pass(m, |_, i, j| rows[i][j]),
        _ => {
            crate::spectral::small::from_view_into::<N>(a, m);
            pass(m, |m, i, j| m[i][j])
        }
    };
    if !finite || norm2.is_nan() || norm2 >= 1e300 {
        return None;
    }
    let t = tol.scaled(N, norm2.sqrt());
    if dev2.sqrt() > t {
        return None;
    }
    let trace: f64 = (0..N).map(|i| m[i][i].re).sum();
    ((trace - 1.0).abs() <= t).then_some((t, trace))
}

/// `Pair::renyi` for one order, `Pair::curve` for several (what the one-pair API returns).
fn curve_of(pair: &Pair, family: Family, alphas: &[f64]) -> Result<Vec<f64>> {
    if alphas.len() == 1 {
        Ok(vec![pair.renyi(family, alphas[0])?])
    } else {
        pair.curve(family, alphas)
    }
}

/// Operand `k` validated into a state; errors name the operand.
fn full_operand(
    o: Operand<'_>,
    what: &str,
    k: usize,
    tol: crate::state::Tolerance,
) -> Result<DensityMatrix> {
    match o {
        Operand::State(s) => Ok(s.clone()),
        Operand::Stack(_) | Operand::Array(_) => {
            let m = o.raw(k).map(|v| v.to_owned()).unwrap_or_default();
            DensityMatrix::with_options(m, tol, crate::spectral::Backend::Auto)
                .map_err(|e| named(what, e))
        }
    }
}

fn named(what: &str, e: crate::Error) -> crate::Error {
    crate::Error::Parse {
        what: what.into(),
        reason: e.to_string(),
    }
}

/// One validated side of a small pair: its decomposition on the stack and where it came from (to
/// build a state where the kernel declines), borrowed from the storage of a lone pair
/// ([`LoneSide`]) or of a group ([`GroupSides`]).
#[derive(Clone, Copy)]
struct SmallSide<'a, const N: usize> {
    state: &'a super::small::SmallState<N>,
    origin: Origin<'a, N>,
}

#[derive(Clone, Copy)]
enum Origin<'a, const N: usize> {
    /// A validated state: the operand's shared state, or a raw matrix the library validated
    /// (near the PSD threshold, see [`small_operand`]).
    State(&'a DensityMatrix),
    /// A raw matrix after the checks and symmetrisation (PSD checked too); its decomposition
    /// (the fixed-size solver's) is the side's `state`.
    Checked(&'a crate::spectral::small::Mat<N>),
}

impl<const N: usize> SmallSide<'_, N> {
    /// The validated state.
    fn validated(&self) -> DensityMatrix {
        match self.origin {
            Origin::State(s) => s.clone(),
            Origin::Checked(h) => {
                let (values, vectors) = self.state.parts();
                DensityMatrix::from_validated_with_eigen(
                    Array2::from_shape_fn((N, N), |(i, j)| h[i][j]),
                    crate::spectral::Backend::Auto,
                    crate::spectral::Eigen::from_parts(
                        ndarray::Array1::from_iter(*values),
                        Array2::from_shape_fn((N, N), |(i, j)| vectors[i][j]),
                    ),
                )
            }
        }
    }
}

/// A group's sides ([`small_sides`]): the checked matrices and their decompositions, which the
/// group's [`SmallSide`]s borrow.
struct GroupSides<const N: usize> {
    mats: [crate::spectral::small::Mat<N>; LANES],
    states: [super::small::SmallState<N>; LANES],
}

impl<const N: usize> GroupSides<N> {
    fn zeroed() -> Self {
        GroupSides {
            mats: [crate::spectral::small::zeros::<N>(); LANES],
            states: [super::small::SmallState::zeroed(); LANES],
        }
    }
}

/// One side of a lone small pair ([`small_operand`]), which its [`SmallSide`] borrows.
struct LoneSide<'a, const N: usize> {
    state: super::small::SmallState<N>,
    source: LoneSource<'a, N>,
}

enum LoneSource<'a, const N: usize> {
    Shared(&'a DensityMatrix),
    Validated(DensityMatrix),
    Checked(crate::spectral::small::Mat<N>),
}

impl<const N: usize> LoneSide<'_, N> {
    fn side(&self) -> SmallSide<'_, N> {
        SmallSide {
            state: &self.state,
            origin: match &self.source {
                LoneSource::Shared(s) => Origin::State(s),
                LoneSource::Validated(s) => Origin::State(s),
                LoneSource::Checked(h) => Origin::Checked(h),
            },
        }
    }
}

/// Operand `k` on the small route: a shared state's cached decomposition, or for a raw matrix the
/// checks and symmetrisation ([`small_checked`]), one decomposition by the fixed-size solver and
/// the PSD decision from its smallest eigenvalue where that decision is certain: `λ_min ≥ −t + m`,
/// `m = 64 N² ε (‖H‖₂ + t)` — beyond both backward errors (the solver's, and the Cholesky
/// factorisation's of `H + tI`, Higham Thm. 10.3), so [`DensityMatrix::with_options`] accepts too.
/// Everything else — a failed check, `λ_min` below `−t + m` — is validated by
/// [`DensityMatrix::with_options`] itself: the library's decision and error message, exactly.
fn small_operand<'a, const N: usize>(
    o: Operand<'a>,
    what: &str,
    k: usize,
    tol: crate::state::Tolerance,
) -> Result<LoneSide<'a, N>> {
    let view = match o {
        Operand::State(s) => {
            return Ok(LoneSide {
                state: super::small::SmallState::from_eigen(s.eigen()?),
                source: LoneSource::Shared(s),
            })
        }
        // unreachable: `raw` is `Some` for these two variants (`None` only for `State`)
        Operand::Stack(_) | Operand::Array(_) => o.raw(k).expect("a raw operand"),
    };
    if let Some((h, t, _)) = small_checked::<N>(&view, tol) {
        let e = crate::spectral::small::eigh_small::<N>(&h, true).map_err(|e| named(what, e))?;
        let state = super::small::SmallState::from_small(&e);
        if certain_psd::<N>(&state, t) {
            return Ok(LoneSide {
                state,
                source: LoneSource::Checked(h),
            });
        }
    }
    let s = DensityMatrix::with_options(view.to_owned(), tol, crate::spectral::Backend::Auto)
        .map_err(|e| named(what, e))?;
    Ok(LoneSide {
        state: super::small::SmallState::from_eigen(s.eigen().map_err(|e| named(what, e))?),
        source: LoneSource::Validated(s),
    })
}

/// Validate many matrices as density matrices ([`DensityMatrix::new`]: checks and one
/// eigendecomposition each), in parallel under the same thread policy.
pub fn states(matrices: &[Array2<Complex64>]) -> Vec<Result<DensityMatrix>> {
    let dim = matrices.iter().map(|m| m.nrows()).max().unwrap_or(0);
    run(matrices, dim, |m| DensityMatrix::new(m.clone()))
}

/// Smallest number of pairs that [`Backend::Auto`](crate::spectral::Backend::Auto) sends to the
/// GPU's batched path ([`sandwiched_from_matrices`], `d ≤ 32`, feature `cuda`, a device
/// present). Below it the fixed cost of the batched calls (≈ 1 ms of launches and copies) exceeds rayon's time on the
/// host cores (docs/PERFORMANCE.md, "GPU").
pub const AUTO_CUDA_BATCH_FROM: usize = 256;

/// Sandwiched `D̃_α(ρ_k‖σ_k)` for many pairs of raw matrices: validation of each input (as
/// [`DensityMatrix::with_options`] with `tol`) and its value, one result per pair in input order.
///
/// With the GPU (`backend` = [`Backend::Cuda`](crate::spectral::Backend::Cuda), or
/// [`Backend::Auto`](crate::spectral::Backend::Auto) from [`AUTO_CUDA_BATCH_FROM`] pairs with a
/// device present), a finite `α > 1` and equal dimensions `d ≤ 32`, every pair runs in one batched pass (`spectral::cuda`'s batched Jacobi and strided
/// products): `σ_k = V_k diag(μ) V_k†`, `ρ'_k = V_k†ρ_kV_k`, the values `ν` of `D ρ'_k D`, and
/// the value of [`sandwiched_from_matrices`](super::sandwiched_from_matrices) (full-rank σ); ρ's
/// PSD check uses its eigenvalues from the same pass. A pair with a rank-deficient σ, a Jacobi
/// solve that did not converge, and every other case take the host route (validation and a
/// [`Pair`]), pair by pair.
pub fn sandwiched_from_matrices(
    mats: &[(Array2<Complex64>, Array2<Complex64>)],
    alpha: f64,
    tol: crate::state::Tolerance,
    backend: crate::spectral::Backend,
) -> Vec<Result<f64>> {
    let host = |(r, s): &(Array2<Complex64>, Array2<Complex64>)| {
        super::sandwiched_from_matrices(r.clone(), s.clone(), &[alpha], tol, backend).map(|v| v[0])
    };
    let dim = mats.iter().map(|(r, _)| r.nrows()).max().unwrap_or(0);
    #[cfg(feature = "cuda")]
    {
        use crate::spectral::{cuda, Backend};
        let wanted = match backend {
            Backend::Cuda => true,
            Backend::Auto => mats.len() >= AUTO_CUDA_BATCH_FROM && crate::spectral::gpu_present(),
            _ => false,
        };
        if wanted && alpha > 1.0 && alpha.is_finite() && (1..=cuda::BATCHED_MAX_DIM).contains(&dim)
        {
            let out = if dim <= cuda::PAIR_KERNEL_MAX_DIM {
                pair_kernel_route(mats, alpha, tol, backend, dim)
            } else {
                on_device(mats, alpha, tol, backend, dim)
            };
            if let Ok(out) = out {
                return out;
            }
        }
    }
    run(mats, dim, host)
}

/// The one-thread-per-pair GPU route of [`sandwiched_from_matrices`] (`d ≤ 16`): the raw pairs go
/// to the device as two stacks and come back as spectra and validation statistics
/// (`spectral::cuda::sandwiched_pair_kernel`); the host makes validation's decisions from those
/// statistics (the same numbers as its own checks) and evaluates the values in parallel. Pairs
/// of another dimension, pairs the statistics reject (re-validated on the host, which reports
/// the exact error), unconverged solves and rank-deficient σ are answered on the host.
#[cfg(feature = "cuda")]
fn pair_kernel_route(
    mats: &[(Array2<Complex64>, Array2<Complex64>)],
    alpha: f64,
    tol: crate::state::Tolerance,
    backend: crate::spectral::Backend,
    d: usize,
) -> Result<Vec<Result<f64>>> {
    use super::device::sandwiched_value;
    use crate::state::density::negative_eigenvalue_check;
    tol.check()?;
    let mut tr = crate::spectral::cuda::Trace::new();
    let on_gpu: Vec<usize> = (0..mats.len())
        .filter(|&k| {
            let (r, s) = &mats[k];
            r.dim() == (d, d) && s.dim() == (d, d)
        })
        .collect();
    let n = on_gpu.len();
    let (mut rs, mut ss) = (Vec::with_capacity(n * d * d), Vec::with_capacity(n * d * d));
    for &k in &on_gpu {
        let (r, s) = &mats[k];
        match (r.as_slice(), s.as_slice()) {
            (Some(r), Some(s)) => {
                rs.extend_from_slice(r);
                ss.extend_from_slice(s);
            }
            _ => {
                rs.extend(r.iter().copied());
                ss.extend(s.iter().copied());
            }
        }
    }
    tr.mark(None, "pair kernel: stacking");
    let out = crate::spectral::cuda::sandwiched_pair_kernel(&rs, &ss, (d, n), alpha)?;
    // the host's decisions from the device's statistics; None: answer on the host
    let accept = |norm2: f64, dev2: f64, trace: f64| {
        if norm2.is_nan() || norm2 >= 1e300 {
            return None;
        }
        let t = tol.scaled(d, norm2.sqrt());
        (dev2.sqrt() <= t && (trace - 1.0).abs() <= t).then_some(t)
    };
    let decided: Vec<Option<Result<f64>>> = (0..n)
        .into_par_iter()
        .map(|i| {
            let (flags, info) = (out.flags[i], &out.info[8 * i..8 * i + 8]);
            if flags & 0b111 != 0b111 {
                return None;
            }
            let t_rho = accept(info[2], info[3], info[4])?;
            let t_sigma = accept(info[5], info[6], info[7])?;
            let rows = i * d..(i + 1) * d;
            let (mu, diag, nu) = (
                &out.mu[rows.clone()],
                &out.diag[rows.clone()],
                &out.nu[rows],
            );
            Some(
                negative_eigenvalue_check(info[0], t_rho)
                    .and_then(|_| negative_eigenvalue_check(mu[0], t_sigma))
                    .map(|_| sandwiched_value(alpha, mu, diag, nu, info[1])),
            )
        })
        .collect();
    tr.mark(None, "pair kernel: host decisions and values");
    let mut answers: Vec<Option<Result<f64>>> = (0..mats.len()).map(|_| None).collect();
    for (i, v) in decided.into_iter().enumerate() {
        answers[on_gpu[i]] = v;
    }
    Ok(answer_the_rest(answers, d, |k| {
        let (r, s) = &mats[k];
        super::sandwiched_from_matrices(r.clone(), s.clone(), &[alpha], tol, backend).map(|v| v[0])
    }))
}

/// Fill the pairs a GPU route left unanswered (`None`) with `host(k)`, in parallel.
#[cfg(feature = "cuda")]
fn answer_the_rest(
    mut answers: Vec<Option<Result<f64>>>,
    d: usize,
    host: impl Fn(usize) -> Result<f64> + Sync + Send,
) -> Vec<Result<f64>> {
    let rest: Vec<usize> = (0..answers.len())
        .filter(|&k| answers[k].is_none())
        .collect();
    let answered = run(&rest, d, |&k| host(k));
    for (k, v) in rest.into_iter().zip(answered) {
        answers[k] = Some(v);
    }
    answers
        .into_iter()
        .map(|v| {
            v.unwrap_or_else(|| {
                Err(crate::Error::Eigensolver {
                    backend: "cuda",
                    reason: "missing result".into(),
                })
            })
        })
        .collect()
}

/// The batched GPU route of [`sandwiched_from_matrices`] (pairs of another dimension, invalid or
/// rank-deficient ones are answered on the host).
#[cfg(feature = "cuda")]
fn on_device(
    mats: &[(Array2<Complex64>, Array2<Complex64>)],
    alpha: f64,
    tol: crate::state::Tolerance,
    backend: crate::spectral::Backend,
    d: usize,
) -> Result<Vec<Result<f64>>> {
    use super::device::{order_scale, sandwiched_value};
    use crate::state::density::{hermitian_unit_trace, negative_eigenvalue_check};
    let host = |r: Array2<Complex64>, s: Array2<Complex64>| {
        super::sandwiched_from_matrices(r, s, &[alpha], tol, backend).map(|v| v[0])
    };
    let mut tr = crate::spectral::cuda::Trace::new();
    // host checks (square, finite, Hermitian, trace) of every pair, in parallel
    type Checked = (Array2<Complex64>, Array2<Complex64>, f64, f64);
    let checked: Vec<Result<Checked>> = run(mats, d, |(r, s)| {
        let (mut r, mut s) = (r.clone(), s.clone());
        let tr = hermitian_unit_trace(&mut r, tol)?;
        let ts = hermitian_unit_trace(&mut s, tol)?;
        Ok((r, s, tr, ts))
    });
    let on_gpu: Vec<usize> = (0..mats.len())
        .filter(|&k| matches!(&checked[k], Ok((r, s, ..)) if r.nrows() == d && s.nrows() == d))
        .collect();
    let n = on_gpu.len();
    let (mut rs, mut ss) = (Vec::with_capacity(n * d * d), Vec::with_capacity(n * d * d));
    for &k in &on_gpu {
        if let Ok((r, s, ..)) = &checked[k] {
            rs.extend(r.iter().copied());
            ss.extend(s.iter().copied());
        }
    }
    tr.mark(None, "batch host checks + stacking");
    let shifts = std::cell::RefCell::new(Vec::with_capacity(n));
    let spectra = crate::spectral::cuda::sandwiched_batch_spectra(&rs, &ss, (d, n), true, |mu| {
        let mut cs = shifts.borrow_mut();
        mu.chunks(d)
            .flat_map(|m| {
                let full = m[0] > crate::spectral::zero_threshold(d, m[d - 1]);
                let (scale, c) = if full {
                    order_scale(m, alpha)
                } else {
                    (vec![1.0; d], 0.0)
                };
                cs.push((full, c));
                scale
            })
            .collect()
    })?;
    let shifts = shifts.into_inner();
    let mut out: Vec<Option<Result<f64>>> = (0..mats.len()).map(|_| None).collect();
    for (i, &k) in on_gpu.iter().enumerate() {
        let Ok((_, _, tr, ts)) = &checked[k] else {
            continue;
        };
        let row = |v: &[f64]| v[i * d..(i + 1) * d].to_vec();
        let (mu, (full, c)) = (row(&spectra.sigma_values), shifts[i]);
        if !spectra.converged[i] || !full {
            continue;
        }
        let value = negative_eigenvalue_check(spectra.rho_values[i * d], *tr)
            .and_then(|_| negative_eigenvalue_check(mu[0], *ts))
            .map(|_| {
                sandwiched_value(
                    alpha,
                    &mu,
                    &row(&spectra.rho_diagonal),
                    &row(&spectra.scaled),
                    c,
                )
            });
        out[k] = Some(value);
    }
    tr.mark(None, "batch values on the host");
    Ok(answer_the_rest(out, d, |k| match &checked[k] {
        Ok((r, s, ..)) => host(r.clone(), s.clone()),
        Err(e) => Err(e.clone()),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::spectral::blas_threads;
    use rand::SeedableRng;
    use std::sync::MutexGuard;

    /// The BLAS thread count is process-global and every batch call sets and restores it: tests
    /// that run batches take this lock, so that one test's `set_blas_threads(1)` is never read as
    /// another's "before" (the restore check failed intermittently under `cargo test --release`).
    fn blas_lock() -> MutexGuard<'static, ()> {
        crate::spectral::test_thread_counts_lock()
    }

    fn random_pairs(d: usize, n: usize) -> Vec<(DensityMatrix, DensityMatrix)> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(d as u64);
        (0..n)
            .map(|_| {
                let r = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
                let s = DensityMatrix::random_bures(d, &mut rng).unwrap();
                (r, s)
            })
            .collect()
    }

    #[test]
    fn batch_equals_one_pair_api_bit_for_bit() {
        let _serial = blas_lock();
        for d in [2, 3, 8] {
            let pairs = random_pairs(d, 17);
            for family in Family::ALL {
                let got = renyi(&pairs, family, 1.7);
                for ((r, s), g) in pairs.iter().zip(&got) {
                    let want = Pair::new(r, s).unwrap().renyi(family, 1.7).unwrap();
                    assert_eq!(*g.as_ref().unwrap(), want, "{family:?} d={d}");
                }
            }
            let alphas = [0.5, 1.0, 3.0];
            for ((r, s), g) in pairs.iter().zip(curve(&pairs, Family::Petz, &alphas)) {
                assert_eq!(
                    g.unwrap(),
                    Pair::new(r, s)
                        .unwrap()
                        .curve(Family::Petz, &alphas)
                        .unwrap()
                );
            }
            for ((r, s), g) in pairs.iter().zip(hockey_stick(&pairs, 1.5)) {
                assert_eq!(
                    g.unwrap(),
                    Pair::new(r, s).unwrap().hockey_stick(1.5).unwrap()
                );
            }
        }
    }

    #[test]
    fn batch_keeps_per_pair_errors_and_restores_blas_threads() {
        let _serial = blas_lock();
        let before = blas_threads();
        let mut pairs = random_pairs(2, 3);
        let big = random_pairs(3, 1).remove(0);
        pairs.insert(1, (pairs[0].0.clone(), big.1)); // dimension mismatch in the middle
        let got = renyi(&pairs, Family::Maximal, 2.0);
        assert!(got[0].is_ok() && got[2].is_ok() && got[3].is_ok());
        assert!(matches!(got[1], Err(Error::DimensionMismatch { .. })));
        assert!(renyi(&pairs, Family::Sandwiched, 0.0)
            .iter()
            .all(|r| r.is_err()));
        assert_eq!(blas_threads(), before);
        assert!(renyi(&[], Family::Petz, 2.0).is_empty());
    }

    /// `renyi_stacks` from raw matrices returns the one-pair API's values (small route
    /// below `SMALL_STACK_BELOW`, states above), names the invalid operand, broadcasts a state.
    #[test]
    fn renyi_stacks_equal_one_pair_api_and_name_errors() {
        use crate::state::Tolerance;
        let _serial = blas_lock();
        let tol = Tolerance::default();
        for d in [2, 3, 4, 7, 9] {
            let pairs = random_pairs(d, 9);
            let rs: Vec<_> = pairs.iter().map(|(r, _)| r.matrix().clone()).collect();
            let ss: Vec<_> = pairs.iter().map(|(_, s)| s.matrix().clone()).collect();
            for family in Family::ALL {
                for alphas in [
                    vec![2.0],
                    vec![0.4],
                    vec![0.3, 1.0, 2.0, 7.5, f64::INFINITY],
                ] {
                    let got = renyi_stacks(
                        Operand::Stack(&rs),
                        Operand::Stack(&ss),
                        family,
                        &alphas,
                        tol,
                    )
                    .unwrap();
                    let shared = renyi_stacks(
                        Operand::Stack(&rs),
                        Operand::State(&pairs[0].1),
                        family,
                        &alphas,
                        tol,
                    )
                    .unwrap();
                    for (k, (r, s)) in pairs.iter().enumerate() {
                        // within the documented bound of the one-pair value: `Pair` picks the
                        // direct sandwiched route by whether ρ is already decomposed (the stack's
                        // states are), and without LAPACK the one-pair routes sum their terms in
                        // another order (differences of 1e-14 relative measured)
                        let check = |got: &[f64], s: &DensityMatrix| {
                            let p = Pair::new(r, s).unwrap();
                            for (&x, &alpha) in got.iter().zip(&alphas) {
                                let y = p.renyi(family, alpha).unwrap();
                                let bound =
                                    crate::divergence::accuracy::error_bound(&p, family, alpha, y)
                                        .unwrap();
                                assert!(
                                    x == y || (x - y).abs() <= bound,
                                    "{family:?} d={d} α={alpha}: {x} vs {y} (bound {bound:e})"
                                );
                            }
                        };
                        check(got[k].as_ref().unwrap(), s);
                        check(shared[k].as_ref().unwrap(), &pairs[0].1);
                    }
                }
            }
        }
        let pairs = random_pairs(2, 4);
        let mut rs: Vec<_> = pairs.iter().map(|(r, _)| r.matrix().clone()).collect();
        let ss: Vec<_> = pairs.iter().map(|(_, s)| s.matrix().clone()).collect();
        rs[1] = rs[1].mapv(|z| z * 2.0); // trace 2
        rs[2] = ndarray::arr2(&[[1.5, 0.0], [0.0, -0.5]]).mapv(|x| Complex64::new(x, 0.0));
        let got = renyi_stacks(
            Operand::Stack(&rs),
            Operand::Stack(&ss),
            Family::Sandwiched,
            &[2.0],
            tol,
        )
        .unwrap();
        assert!(got[0].is_ok() && got[3].is_ok());
        let msg = |k: usize| got[k].as_ref().unwrap_err().to_string();
        assert!(
            msg(1).starts_with("cannot parse rho:") && msg(1).contains("trace"),
            "{}",
            msg(1)
        );
        assert!(
            matches!(&got[2], Err(Error::Parse { what, reason })
                if what == "rho" && reason.contains("not positive semidefinite: smallest eigenvalue -5.000e-1")),
            "{}",
            msg(2)
        );
        assert!(matches!(
            renyi_stacks(
                Operand::Stack(&rs),
                Operand::Stack(&ss[..3]),
                Family::Petz,
                &[2.0],
                tol
            ),
            Err(Error::DimensionMismatch { .. })
        ));
        let bad_alpha = renyi_stacks(
            Operand::Stack(&ss),
            Operand::Stack(&ss),
            Family::Maximal,
            &[0.0],
            tol,
        )
        .unwrap();
        assert!(bad_alpha
            .iter()
            .all(|r| matches!(r, Err(Error::AlphaOutOfRange { .. }))));
    }

    /// The lane groups (eight pairs at 3 ≤ d ≤ 6) on the edges: rank-one ρ, ρ = σ, σ with
    /// eigenvalues spread over 12 decades, at orders near 0, near 1 and 10⁶ — every value within
    /// the documented error bound of the one-pair API's, never below zero.
    #[test]
    fn renyi_stacks_edge_groups_within_the_documented_bound() {
        use crate::state::Tolerance;
        let _serial = blas_lock();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(30);
        for d in [3, 4, 6] {
            let mut pairs = Vec::new();
            for k in 0..2 * LANES {
                let full = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
                let rho = match k % 4 {
                    1 => DensityMatrix::random_hilbert_schmidt(d, 1, &mut rng).unwrap(),
                    _ => full.clone(),
                };
                let sigma = match k % 4 {
                    2 => rho.clone(),
                    3 => {
                        // eigenvalues 10^0 … 10^−12 in a random basis, normalised
                        let v = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng)
                            .unwrap()
                            .eigen()
                            .unwrap()
                            .vectors()
                            .clone();
                        let w: Vec<f64> = (0..d)
                            .map(|i| 10f64.powf(-12.0 * i as f64 / (d - 1) as f64))
                            .collect();
                        let total: f64 = w.iter().sum();
                        let m = Array2::from_shape_fn((d, d), |(i, j)| {
                            (0..d)
                                .map(|l| v[[i, l]] * (w[l] / total) * v[[j, l]].conj())
                                .sum::<Complex64>()
                        });
                        DensityMatrix::new(m).unwrap()
                    }
                    _ => DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap(),
                };
                pairs.push((rho, sigma));
            }
            let rs: Vec<_> = pairs.iter().map(|(r, _)| r.matrix().clone()).collect();
            let ss: Vec<_> = pairs.iter().map(|(_, s)| s.matrix().clone()).collect();
            for family in [Family::Petz, Family::Sandwiched, Family::Maximal] {
                for alpha in [1e-3, 0.5, 0.999_999, 1.5, 2.0, 1e6] {
                    let got = renyi_stacks(
                        Operand::Stack(&rs),
                        Operand::Stack(&ss),
                        family,
                        &[alpha],
                        Tolerance::default(),
                    )
                    .unwrap();
                    for (k, (r, s)) in pairs.iter().enumerate() {
                        let p = Pair::new(r, s).unwrap();
                        let (Ok(y), Ok(x)) = (p.renyi(family, alpha), got[k].as_ref()) else {
                            // the same refusal on both sides (an order the family rejects)
                            assert_eq!(p.renyi(family, alpha).is_ok(), got[k].is_ok());
                            continue;
                        };
                        let x = x[0];
                        let bound =
                            crate::divergence::accuracy::error_bound(&p, family, alpha, y).unwrap();
                        assert!(
                            x == y || (x - y).abs() <= bound,
                            "{family:?} d={d} pair {k} α={alpha}: {x} vs {y} (bound {bound:e})"
                        );
                        assert!(x >= -bound, "{family:?} d={d} pair {k} α={alpha}: {x} < 0");
                    }
                }
            }
        }
    }

    /// `direct_basis_is_the_complex_sum`: the split-part products of `direct_sandwiched_basis`
    /// (AVX2 and portable) equal the complex-arithmetic sums `ρ' = V†(HV)` (`csum`, the lower
    /// triangle mirrored, a real diagonal) bit for bit at d = 2…8.
    #[test]
    fn direct_basis_is_the_complex_sum() {
        use crate::spectral::small::{csum, zeros, Mat};
        fn check<const N: usize>(rng: &mut rand_chacha::ChaCha8Rng) {
            let h0 = DensityMatrix::random_hilbert_schmidt(N, N, &mut *rng).unwrap();
            let s0 = DensityMatrix::random_bures(N, &mut *rng).unwrap();
            let h: Mat<N> = crate::spectral::small::from_view::<N>(&h0.matrix().view());
            let e = crate::spectral::small::eigh_small::<N>(
                &crate::spectral::small::from_view::<N>(&s0.matrix().view()),
                true,
            )
            .unwrap();
            let state = super::super::small::SmallState::from_small(&e);
            let v = e.vectors;
            let mut hv = zeros::<N>();
            for i in 0..N {
                for j in 0..N {
                    hv[i][j] = csum::<N>(|l| h[i][l] * v[l][j]);
                }
            }
            let mut want = zeros::<N>();
            for x in 0..N {
                for y in 0..=x {
                    let z = csum::<N>(|l| v[l][x].conj() * hv[l][y]);
                    want[x][y] = z;
                    want[y][x] = z.conj();
                }
                want[x][x].im = 0.0;
            }
            let (got, ln_mu) = direct_sandwiched_basis(&h, &state);
            let mut portable = zeros::<N>();
            basis_body(&h, &state, &mut portable);
            for x in 0..N {
                assert_eq!(ln_mu[x], e.values[x].ln());
                for y in 0..N {
                    for (g, w) in [
                        (got[x][y].re, want[x][y].re),
                        (got[x][y].im, want[x][y].im),
                        (portable[x][y].re, want[x][y].re),
                        (portable[x][y].im, want[x][y].im),
                    ] {
                        assert_eq!(g.to_bits(), w.to_bits(), "N={N} ({x},{y})");
                    }
                }
            }
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        for _ in 0..50 {
            check::<2>(&mut rng);
            check::<3>(&mut rng);
            check::<4>(&mut rng);
            check::<5>(&mut rng);
            check::<6>(&mut rng);
            check::<7>(&mut rng);
            check::<8>(&mut rng);
        }
    }

    #[test]
    fn batch_states_validates_each_matrix() {
        let _serial = blas_lock();
        let good = random_pairs(4, 2)
            .into_iter()
            .map(|(r, _)| r.matrix().clone())
            .collect::<Vec<_>>();
        let mut mats = good.clone();
        mats.push(Array2::from_elem((4, 4), Complex64::new(0.25, 0.0)) * 2.0); // trace 2
        let out = states(&mats);
        assert_eq!(out[0].as_ref().unwrap().matrix(), &good[0]);
        assert!(out[1].is_ok());
        assert!(matches!(out[2], Err(Error::TraceNotOne { .. })));
    }
}
