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
use ndarray::{Array2, Zip};
use num_complex::Complex64;

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
        .map_collect(|&r, &s| r - s * gamma);
    let ev = backend.eigvalsh(m.view())?;
    Ok(ev.iter().filter(|&&x| x > 0.0).fold(0.0, |a, x| a + x))
}

/// `½‖ρ − σ‖₁` from the (validated) matrices (the computation of [`Pair::trace_distance`]).
pub(crate) fn trace_distance_of(
    rho: &Array2<Complex64>,
    sigma: &Array2<Complex64>,
    backend: Backend,
) -> crate::Result<f64> {
    let m = Zip::from(rho).and(sigma).map_collect(|&r, &s| r - s);
    let ev = backend.eigvalsh(m.view())?;
    Ok(0.5 * ev.iter().map(|x| x.abs()).sum::<f64>())
}

fn values(
    rho: &Array2<Complex64>,
    sigma: &Array2<Complex64>,
    what: Difference<'_>,
    backend: Backend,
) -> crate::Result<Vec<f64>> {
    match what {
        Difference::HockeyStick(gammas) => gammas
            .iter()
            .map(|&g| hockey_stick_of(rho, sigma, g, backend))
            .collect(),
        Difference::TraceDistance => Ok(vec![trace_distance_of(rho, sigma, backend)?]),
    }
}

/// The hockey-stick divergences or the trace distance of two raw matrices, with the results and
/// errors of `DensityMatrix::with_options(ρ)`, `DensityMatrix::with_options(σ)`, [`Pair::new`]
/// and [`Pair::hockey_stick`] (each γ in order) / [`Pair::trace_distance`] run one after the
/// other — the same accept/reject decisions, the same first error, the same values.
///
/// What differs is the schedule. Neither state is decomposed, so validation is the cost on top of
/// the solve: two `O(d²)` passes and a shifted Cholesky factorisation per input
/// (docs/conventions.md, "Validation tolerance"). After both inputs pass their `O(d²)` checks
/// (squareness, finiteness, Hermiticity, trace) the two PSD checks run on one rayon thread while
/// the eigensolves of `ρ − γσ` (which need only the symmetrised matrices) run on another; a value
/// is returned only when both PSD checks accepted. This overlap is taken when BLAS runs at most
/// two threads (the section pins it to one thread, the thread policy of
/// [`crate::spectral::with_single_blas_thread`]: two single-threaded tasks use the cores that two
/// BLAS threads would), rayon has at least two threads, the dimension is at least
/// [`OVERLAP_FROM`], the dimensions agree, every γ is valid and `backend` keeps this dimension on
/// the host (`from_matrices::side_by_side`); otherwise the calls run one after the other.
///
/// Errors: a validation error tagged with its operand (ρ's first); then
/// [`Error::DimensionMismatch`], the γ check and [`Error::Eigensolver`] untagged.
pub fn difference_from_matrices(
    mut rho: Array2<Complex64>,
    mut sigma: Array2<Complex64>,
    what: Difference<'_>,
    tol: Tolerance,
    backend: Backend,
) -> std::result::Result<Vec<f64>, OperandError> {
    let d = rho.nrows();
    let gammas_ok = match what {
        Difference::HockeyStick(g) => g.iter().all(|&x| check_gamma(x).is_ok()),
        Difference::TraceDistance => true,
    };
    let overlap = rho.dim() == (d, d)
        && sigma.dim() == (d, d)
        && gammas_ok
        && super::from_matrices::side_by_side(d, backend);
    if !overlap {
        return sequential(rho, sigma, what, tol, backend);
    }
    let tag = |o: Operand| move |e: Error| (Some(o), e);
    // the O(d²) checks of both, in the sequential order: ρ's error first
    let t_rho = hermitian_unit_trace(&mut rho, tol).map_err(tag(Operand::Rho))?;
    let t_sigma = match hermitian_unit_trace(&mut sigma, tol) {
        Ok(t) => t,
        Err(e) => {
            // the sequential route would have finished ρ's validation first
            psd_check(&rho, t_rho, backend).map_err(tag(Operand::Rho))?;
            return Err((Some(Operand::Sigma), e));
        }
    };
    let ((psd_rho, psd_sigma), vals) = crate::spectral::with_single_blas_thread(|| {
        rayon::join(
            || {
                (
                    psd_check(&rho, t_rho, backend),
                    psd_check(&sigma, t_sigma, backend),
                )
            },
            || values(&rho, &sigma, what, backend),
        )
    });
    psd_rho.map_err(tag(Operand::Rho))?;
    psd_sigma.map_err(tag(Operand::Sigma))?;
    vals.map_err(|e| (None, e))
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
