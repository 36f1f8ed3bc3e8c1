//! Hockey-stick and trace distance from raw matrices (issue 14, `difference_from_matrices`): the
//! PSD checks beside the eigensolve give exactly the results and errors of validating ρ, then σ,
//! then evaluating a `Pair` — for valid pairs (same values), inputs just beyond the tolerance
//! (non-PSD, non-Hermitian, wrong trace, on either side and in combination), inputs just inside
//! it, and the pair's own errors (dimensions, γ).

mod common;

use common::*;
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::difference::{
    difference_from_matrices, Difference, Operand, OperandError, OVERLAP_FROM,
};
use qrenyi::divergence::Pair;
use qrenyi::spectral::{with_single_blas_thread, Backend};
use qrenyi::state::{DensityMatrix, Tolerance};
use qrenyi::Error;

const GAMMAS: [f64; 3] = [std::f64::consts::E, 1.0, 0.25];

fn hs_matrix(d: usize, seed: u64) -> Array2<Complex64> {
    DensityMatrix::random_hilbert_schmidt(d, d, &mut rng(seed))
        .unwrap()
        .matrix()
        .clone()
}

/// The default validation tolerance of a `d × d` input whose entries are at most 1.
fn tol_at(d: usize) -> f64 {
    Tolerance::default().scaled(d, 1.0)
}

/// A unit-trace spectrum with smallest eigenvalue `min` (the rest equal).
fn spectrum_with_min(d: usize, min: f64) -> Vec<f64> {
    let mut l = vec![(1.0 - min) / (d - 1) as f64; d];
    l[0] = min;
    l
}

/// What the sequential calls give: `with_options(ρ)`, `with_options(σ)`, `Pair::new`, the values.
fn reference(
    rho: &Array2<Complex64>,
    sigma: &Array2<Complex64>,
    what: Difference<'_>,
) -> Result<Vec<f64>, OperandError> {
    let (tol, be) = (Tolerance::default(), Backend::Auto);
    let r =
        DensityMatrix::with_options(rho.clone(), tol, be).map_err(|e| (Some(Operand::Rho), e))?;
    let s = DensityMatrix::with_options(sigma.clone(), tol, be)
        .map_err(|e| (Some(Operand::Sigma), e))?;
    let pair = Pair::new(&r, &s).map_err(|e| (None, e))?;
    match what {
        Difference::HockeyStick(g) => g.iter().map(|&g| pair.hockey_stick(g)).collect(),
        Difference::TraceDistance => pair.trace_distance().map(|v| vec![v]),
    }
    .map_err(|e| (None, e))
}

/// Both routes in the overlapping configuration (one BLAS thread, two rayon threads), the same
/// thread counts for both: identical results (values bit for bit, errors and their operands).
fn same(rho: &Array2<Complex64>, sigma: &Array2<Complex64>) -> Vec<Result<Vec<f64>, OperandError>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut out = Vec::new();
    for what in [Difference::HockeyStick(&GAMMAS), Difference::TraceDistance] {
        let (got, want) = pool.install(|| {
            with_single_blas_thread(|| {
                let got = difference_from_matrices(
                    rho.clone(),
                    sigma.clone(),
                    what,
                    Tolerance::default(),
                    Backend::Auto,
                );
                (got, reference(rho, sigma, what))
            })
        });
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "{what:?}");
        out.push(got);
    }
    out
}

fn error_of(r: &Result<Vec<f64>, OperandError>) -> (Option<Operand>, &Error) {
    match r {
        Err((o, e)) => (*o, e),
        Ok(v) => panic!("accepted: {v:?}"),
    }
}

#[test]
fn difference_from_matrices_values_unchanged() {
    use ndarray::ShapeBuilder;
    for (d, seed) in [(OVERLAP_FROM, 1), (64, 2), (100, 3), (8, 4)] {
        let (rho, sigma) = (hs_matrix(d, seed), hs_matrix(d, seed + 100));
        for r in same(&rho, &sigma) {
            let v = r.unwrap();
            assert!(v.iter().all(|x| x.is_finite() && *x >= 0.0), "{v:?}");
        }
        // both inputs column-major: the validated states keep that layout, their difference is
        // column-major, and the sequential route must still solve the overlapped route's matrix
        let (mut f_rho, mut f_sigma) = (Array2::zeros((d, d).f()), Array2::zeros((d, d).f()));
        f_rho.assign(&rho);
        f_sigma.assign(&sigma);
        same(&f_rho, &f_sigma);
        // identical states: E_1 = 0 = trace distance (to rounding)
        let r = same(&rho, &rho);
        assert!(r[0].as_ref().unwrap()[1].abs() < 1e-13);
        assert!(r[1].as_ref().unwrap()[0].abs() < 1e-13);
    }
}

#[test]
fn difference_from_matrices_rejects_non_psd_just_beyond_the_tolerance() {
    let d = 64;
    let t = tol_at(d);
    let bad = with_spectrum(&spectrum_with_min(d, -1.5 * t), 5);
    let good = hs_matrix(d, 6);
    let r = same(&bad, &good);
    let (o, e) = error_of(&r[0]);
    assert_eq!(o, Some(Operand::Rho));
    assert!(matches!(e, Error::NotPositiveSemidefinite { .. }), "{e}");
    let r = same(&good, &bad);
    let (o, e) = error_of(&r[1]);
    assert_eq!(o, Some(Operand::Sigma));
    assert!(matches!(e, Error::NotPositiveSemidefinite { .. }), "{e}");
    // both bad: ρ's error
    assert_eq!(error_of(&same(&bad, &bad)[0]).0, Some(Operand::Rho));
    // just inside the tolerance: accepted, same values
    let inside = with_spectrum(&spectrum_with_min(d, -0.5 * t), 7);
    for r in same(&inside, &good) {
        r.unwrap();
    }
}

#[test]
fn difference_from_matrices_rejects_non_hermitian_and_wrong_trace() {
    let d = 48;
    let t = tol_at(d);
    let good = hs_matrix(d, 8);
    let mut non_hermitian = hs_matrix(d, 9);
    non_hermitian[[3, 7]] += Complex64::new(0.0, 2.0 * t);
    let wrong_trace = hs_matrix(d, 10).mapv(|z| z * (1.0 + 2.0 * t));
    for (bad, is) in [
        (&non_hermitian, "NotHermitian"),
        (&wrong_trace, "TraceNotOne"),
    ] {
        for (rho, sigma, side) in [(bad, &good, Operand::Rho), (&good, bad, Operand::Sigma)] {
            for r in same(rho, sigma) {
                let (o, e) = error_of(&r);
                assert_eq!(o, Some(side));
                assert!(format!("{e:?}").starts_with(is), "{e:?}");
            }
        }
    }
    // ρ not PSD, σ not Hermitian: ρ's PSD error comes first (its validation finishes first)
    let not_psd = with_spectrum(&spectrum_with_min(d, -2.0 * t), 11);
    for r in same(&not_psd, &non_hermitian) {
        let (o, e) = error_of(&r);
        assert_eq!(o, Some(Operand::Rho));
        assert!(matches!(e, Error::NotPositiveSemidefinite { .. }), "{e}");
    }
    // non-finite, non-square
    let mut nan = hs_matrix(d, 12);
    nan[[0, 1]] = Complex64::new(f64::NAN, 0.0);
    same(&good, &nan);
    same(&Array2::zeros((d, d - 1)), &good);
}

#[test]
fn difference_from_matrices_pair_errors() {
    let (a, b) = (hs_matrix(40, 13), hs_matrix(41, 14));
    for r in same(&a, &b) {
        assert!(matches!(
            error_of(&r),
            (None, Error::DimensionMismatch { .. })
        ));
    }
    let c = hs_matrix(40, 15);
    for gammas in [[1.0, -1.0], [f64::NAN, 1.0], [2.0, f64::INFINITY]] {
        let got = with_single_blas_thread(|| {
            difference_from_matrices(
                a.clone(),
                c.clone(),
                Difference::HockeyStick(&gammas),
                Tolerance::default(),
                Backend::Auto,
            )
        });
        let want = with_single_blas_thread(|| reference(&a, &c, Difference::HockeyStick(&gammas)));
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
        assert!(matches!(
            error_of(&got),
            (None, Error::InvalidParameter { .. })
        ));
    }
}

/// The overlapped route's values against an independent computation: the eigenvalues of
/// `H_ρ − γ H_σ` by nalgebra's implicit QR (not LAPACK), from the validated matrices — also for
/// column-major inputs and at d = 256 (rows of 4 KB, the tiled passes' worst case).
#[test]
fn difference_from_matrices_matches_an_independent_solver() {
    use ndarray::ShapeBuilder;
    use qrenyi::spectral::EigenSolver;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for (d, seed) in [(OVERLAP_FROM, 21), (100, 22), (256, 23)] {
        let (rho, sigma) = (hs_matrix(d, seed), hs_matrix(d, seed + 1));
        let (r, s) = (
            DensityMatrix::new(rho.clone()).unwrap(),
            DensityMatrix::new(sigma.clone()).unwrap(),
        );
        for what in [Difference::HockeyStick(&GAMMAS), Difference::TraceDistance] {
            let gammas: Vec<f64> = match what {
                Difference::HockeyStick(g) => g.to_vec(),
                Difference::TraceDistance => vec![1.0],
            };
            let want: Vec<f64> = gammas
                .iter()
                .map(|&g| {
                    let m = r.matrix() - &s.matrix().mapv(|z| z * g);
                    let ev = Backend::Nalgebra.eigvalsh(m.view()).unwrap();
                    match what {
                        Difference::HockeyStick(_) => ev.iter().filter(|x| **x > 0.0).sum(),
                        Difference::TraceDistance => 0.5 * ev.iter().map(|x| x.abs()).sum::<f64>(),
                    }
                })
                .collect();
            let mut f_rho = Array2::zeros((d, d).f());
            f_rho.assign(&rho);
            for (a, b) in [(rho.clone(), sigma.clone()), (f_rho, sigma.clone())] {
                let got = pool
                    .install(|| {
                        // one BLAS thread, as `same` runs it: the overlapped route is taken
                        // whatever the machine's BLAS thread count
                        with_single_blas_thread(|| {
                            difference_from_matrices(
                                a,
                                b,
                                what,
                                Tolerance::default(),
                                Backend::Auto,
                            )
                        })
                    })
                    .unwrap();
                for (x, y) in got.iter().zip(&want) {
                    assert!((x - y).abs() <= 1e-13, "d = {d}, {what:?}: {x} vs {y}");
                }
            }
        }
    }
}
