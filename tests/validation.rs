//! PSD validation by Cholesky of `H + t·I` with the eigenvalue fallback, the lazily computed and
//! shared eigendecomposition, and the `Auto` backend's dispatch.

mod common;

use common::*;
use ndarray::Array2;
use num_complex::Complex64 as C;
use qrenyi::spectral::{zero_threshold, Backend, Eigen, EigenSolver};
use qrenyi::state::{dagger, haar_unitary, DensityMatrix, Tolerance};
use qrenyi::Error;

/// `U diag(λ) U†` with a seeded Haar unitary (dense, complex entries).
fn rotated(lambda: &[f64], seed: u64) -> Array2<C> {
    let u = haar_unitary(lambda.len(), &mut rng(seed));
    let scaled = Array2::from_shape_fn(u.dim(), |(i, j)| u[[i, j]] * lambda[j]);
    scaled.dot(&dagger(&u.view()))
}

/// Eigenvalues summing to one with the smallest equal to `lmin`.
fn spectrum(d: usize, lmin: f64) -> Vec<f64> {
    let rest = (1.0 - lmin) / (d - 1) as f64;
    let mut l: Vec<f64> = (0..d - 1)
        .map(|k| rest * (0.5 + k as f64 / (d - 2).max(1) as f64))
        .collect();
    let s: f64 = l.iter().sum();
    l.iter_mut().for_each(|x| *x *= (1.0 - lmin) / s);
    l.push(lmin);
    l
}

/// The scaled tolerance `t` validation uses for `a` (entries of a density matrix are ≤ 1, so
/// `t = base·√d`; asserted).
fn scaled_tolerance(a: &Array2<C>) -> f64 {
    let d = a.nrows();
    assert!(a.iter().all(|z| z.norm() <= 1.0));
    Tolerance::default().scaled(d, 1.0)
}

#[test]
fn psd_check_rejects_minus_two_t_with_the_eigenvalue() {
    for backend in Backend::available() {
        for (d, seed) in [(2, 1), (4, 2), (9, 3), (20, 4)] {
            let t = Tolerance::default().scaled(d, 1.0);
            let a = rotated(&spectrum(d, -2.0 * t), seed);
            assert_eq!(scaled_tolerance(&a), t);
            match DensityMatrix::with_options(a, Tolerance::default(), backend) {
                Err(Error::NotPositiveSemidefinite {
                    min_eigenvalue,
                    tolerance,
                }) => {
                    assert_eq!(tolerance, t, "{backend:?} d={d}");
                    // eigenvalues carry absolute error ~d·ε (the zero threshold's 16·d·ε bounds
                    // it); −2t ≈ −2e-10·√d is far above that
                    assert!(
                        (min_eigenvalue + 2.0 * t).abs() < zero_threshold(d, 1.0),
                        "{backend:?} d={d}: {min_eigenvalue} vs {}",
                        -2.0 * t
                    );
                }
                other => {
                    panic!("{backend:?} d={d}: expected NotPositiveSemidefinite, got {other:?}")
                }
            }
        }
    }
}

#[test]
fn psd_check_accepts_minus_half_t_and_the_boundary() {
    for backend in Backend::available() {
        for (d, seed) in [(2, 5), (4, 6), (9, 7), (20, 8)] {
            let t = Tolerance::default().scaled(d, 1.0);
            // −t/2: H + tI has λ_min = t/2, far above Cholesky's backward error, so the
            // factorisation succeeds; −t(1 − 1e-3): λ_min(H + tI) = 1e-13·√d, within a few
            // hundred ε of failing — accepted either by the factorisation or by the eigenvalue
            // fallback (λ_min ≥ −t by a margin ≫ the eigenvalues' d·ε error)
            for lmin in [-0.5 * t, -t * (1.0 - 1e-3)] {
                let a = rotated(&spectrum(d, lmin), seed);
                let rho = DensityMatrix::with_options(a, Tolerance::default(), backend)
                    .unwrap_or_else(|e| panic!("{backend:?} d={d} λ_min={lmin}: {e}"));
                let l0 = rho.eigen().unwrap().values()[0];
                assert!(
                    (l0 - lmin).abs() < zero_threshold(d, 1.0),
                    "{backend:?} d={d}: {l0} vs {lmin}"
                );
            }
            let h = rotated(&spectrum(d, -0.5 * t), seed);
            assert!(backend.is_positive_definite(h.view(), t).unwrap());
            assert!(!backend.is_positive_definite(h.view(), 0.0).unwrap());
        }
    }
}

#[test]
fn psd_check_accepts_rank_deficient_states() {
    let mut r = rng(21);
    for backend in Backend::available() {
        for d in [1usize, 2, 3, 8, 17, 40] {
            let t = Tolerance::default().scaled(d, 1.0);
            let mut diag = vec![0.0; d];
            diag[d - 1] = 1.0;
            let pure_diag = Array2::from_diag(&ndarray::Array1::from_iter(
                diag.iter().map(|&x| C::new(x, 0.0)),
            ));
            let pure = DensityMatrix::random_pure(d, &mut r)
                .unwrap()
                .matrix()
                .clone();
            let half = DensityMatrix::random_hilbert_schmidt(d, d.div_ceil(2), &mut r)
                .unwrap()
                .matrix()
                .clone();
            for m in [pure_diag, pure, half] {
                // the Cholesky path itself accepts them (no fallback needed): λ_min(H + tI) ≈ t
                assert!(
                    backend.is_positive_definite(m.view(), t).unwrap(),
                    "{backend:?} d={d}"
                );
                DensityMatrix::with_options(m, Tolerance::default(), backend).unwrap();
            }
        }
    }
}

#[test]
fn cholesky_rejects_complex_indefinite_matrices() {
    // Hermitian with complex off-diagonal entries and eigenvalues (−1, 3): nalgebra's Cholesky
    // alone would take a complex square root of the negative pivot and "succeed"
    let a = ndarray::arr2(&[
        [C::new(1.0, 0.0), C::new(0.0, 2.0)],
        [C::new(0.0, -2.0), C::new(1.0, 0.0)],
    ]);
    for backend in Backend::available() {
        assert!(
            !backend.is_positive_definite(a.view(), 0.0).unwrap(),
            "{backend:?}"
        );
        assert!(
            !backend.is_positive_definite(a.view(), 0.99).unwrap(),
            "{backend:?}"
        );
        assert!(
            backend.is_positive_definite(a.view(), 1.01).unwrap(),
            "{backend:?}"
        );
    }
    let neg = rotated(&[-0.25, 0.5, 0.75], 3);
    for backend in Backend::available() {
        assert!(!backend.is_positive_definite(neg.view(), 0.2).unwrap());
        assert!(backend.is_positive_definite(neg.view(), 0.3).unwrap());
    }
}

#[test]
fn lazy_decomposition_equals_eager_and_is_shared_by_clones() {
    let mut r = rng(31);
    for backend in Backend::available() {
        for d in [1usize, 2, 5, 16, 40] {
            let m = DensityMatrix::random_bures(d, &mut r)
                .unwrap()
                .matrix()
                .clone();
            let rho = DensityMatrix::with_options(m, Tolerance::default(), backend).unwrap();
            let clone = rho.clone();
            assert!(!rho.is_decomposed() && !clone.is_decomposed());
            let eager = Eigen::compute(rho.matrix().view(), backend).unwrap();
            let lazy = rho.eigen().unwrap();
            assert_eq!(lazy.values(), eager.values(), "{backend:?} d={d}");
            assert_eq!(lazy.vectors(), eager.vectors(), "{backend:?} d={d}");
            assert_eq!(lazy.threshold(), eager.threshold());
            // computed once, through the original: the clone sees the same cache
            assert!(clone.is_decomposed());
            assert!(std::ptr::eq(clone.eigen().unwrap(), lazy));
            assert_eq!(rho.rank().unwrap(), d);
        }
    }
}

#[test]
fn density_matrix_is_send_sync_clone() {
    fn assert_send_sync_clone<T: Send + Sync + Clone>() {}
    assert_send_sync_clone::<DensityMatrix>();
    // and the cache is filled correctly from another thread
    let rho = DensityMatrix::random_bures(6, &mut rng(41)).unwrap();
    let other = rho.clone();
    let from_thread = std::thread::spawn(move || other.eigen().unwrap().values().clone())
        .join()
        .unwrap();
    assert!(rho.is_decomposed());
    assert_eq!(rho.eigen().unwrap().values(), &from_thread);
}

#[test]
fn hockey_stick_needs_no_decomposition() {
    let mut r = rng(51);
    let (rho, sigma) = (
        DensityMatrix::random_bures(5, &mut r).unwrap(),
        DensityMatrix::random_bures(5, &mut r).unwrap(),
    );
    let e = qrenyi::divergence::hockey_stick(&rho, &sigma, 1.5).unwrap();
    assert!((0.0..=1.0).contains(&e));
    assert!(!rho.is_decomposed() && !sigma.is_decomposed());
}

#[cfg(feature = "openblas")]
fn hermitian(d: usize, seed: u64) -> Array2<C> {
    let g = qrenyi::state::ginibre(d, d, &mut rng(seed));
    (&g + &dagger(&g.view())).mapv(|z| z * 0.5)
}

/// `Backend::Auto` gives bit for bit the answer of the backend its policy names.
#[cfg(feature = "openblas")]
#[test]
fn auto_backend_dispatches_on_dimension() {
    use qrenyi::spectral::{
        AUTO_FAER_FROM, AUTO_NALGEBRA_BELOW, AUTO_NALGEBRA_CHOLESKY_BELOW,
        AUTO_NALGEBRA_VALUES_BELOW,
    };
    assert_eq!("auto".parse::<Backend>().unwrap(), Backend::Auto);
    assert_eq!(Backend::default(), Backend::Auto);
    assert_eq!(Backend::available()[0], Backend::Auto);
    let same = |a: &Array2<C>, b: Backend| {
        let (w0, v0) = Backend::Auto.eigh(a.view()).unwrap();
        let (w1, v1) = b.eigh(a.view()).unwrap();
        w0 == w1 && v0 == v1
    };
    let same_values = |a: &Array2<C>, b: Backend| {
        Backend::Auto.eigvalsh(a.view()).unwrap() == b.eigvalsh(a.view()).unwrap()
    };
    let small = hermitian(AUTO_NALGEBRA_BELOW - 1, 1);
    let large = hermitian(AUTO_NALGEBRA_BELOW, 2);
    assert!(same(&small, Backend::Nalgebra) && same(&large, Backend::Lapack));
    // d ≤ 16: the fixed-size solvers (Jacobi to AUTO_JACOBI_MAX, tridiagonal QL above), full and
    // values only; above, the values-only crossover to LAPACK
    use qrenyi::spectral::small::{
        eigh_tridiagonal, from_view, AUTO_JACOBI_MAX, AUTO_SMALL_VALUES_MAX, AUTO_SMALL_VECTORS_MAX,
    };
    const { assert!(AUTO_NALGEBRA_VALUES_BELOW <= AUTO_SMALL_VALUES_MAX + 1) };
    for d in [AUTO_JACOBI_MAX + 1, 8, AUTO_SMALL_VECTORS_MAX] {
        let h = hermitian(d, 3 + d as u64);
        qrenyi::spectral::small::with_small_dim!(d, N => {
            let e = eigh_tridiagonal::<N>(&from_view::<N>(&h.view()), true).unwrap();
            let (w, v) = Backend::Auto.eigh(h.view()).unwrap();
            assert!(w.iter().zip(&e.values).all(|(a, b)| a == b), "d = {d}");
            assert!((0..N).all(|i| (0..N).all(|j| v[[i, j]] == e.vectors[i][j])), "d = {d}");
            assert_eq!(Backend::Auto.eigvalsh(h.view()).unwrap(), w, "d = {d}");
        }, _ => unreachable!());
    }
    let large = hermitian(AUTO_SMALL_VALUES_MAX.max(AUTO_NALGEBRA_VALUES_BELOW) + 1, 4);
    assert!(same_values(&large, Backend::Lapack));
    let pd = |d: usize, b: Backend| {
        let h = hermitian(d, d as u64);
        (1..40).all(|k| {
            let shift = k as f64 * 0.5;
            Backend::Auto.is_positive_definite(h.view(), shift).unwrap()
                == b.is_positive_definite(h.view(), shift).unwrap()
        })
    };
    assert!(pd(AUTO_NALGEBRA_CHOLESKY_BELOW - 1, Backend::Nalgebra));
    assert!(pd(AUTO_NALGEBRA_CHOLESKY_BELOW, Backend::Lapack));
    // full decompositions go to faer from AUTO_FAER_FROM (never MRRR, which is less accurate);
    // values only stay with LAPACK
    let below = hermitian(AUTO_FAER_FROM - 1, 5);
    assert!(same(&below, Backend::Lapack));
    let large = hermitian(AUTO_FAER_FROM, 6);
    let faer = if cfg!(feature = "faer") {
        Backend::Faer
    } else {
        Backend::Lapack
    };
    assert!(same(&large, faer) && same_values(&large, Backend::Lapack));
}

/// Full decompositions at d = 300: residual `‖AV − VΛ‖_F/‖A‖_F` and orthogonality `‖V†V − I‖_F`
/// ≤ 1e-13 with the default (faer there, `zheevd` without the `faer` feature) and with `zheevd`. MRRR (`zheevr`) keeps the residual but loses about an
/// order of magnitude of orthogonality (measured 1.7e-12 here) — why `Auto` does not use it.
#[cfg(feature = "openblas")]
#[test]
fn full_decomposition_is_accurate_at_d300() {
    let d = 300;
    let a = hermitian(d, 61);
    let frob = |m: &Array2<C>| m.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
    for (backend, orth_bound) in [
        (Backend::default(), 1e-13),
        (Backend::Lapack, 1e-13),
        (Backend::LapackMrrr, 1e-11),
    ] {
        let (w, v) = backend.eigh(a.view()).unwrap();
        let av = a.dot(&v);
        let vl = Array2::from_shape_fn((d, d), |(i, j)| v[[i, j]] * w[j]);
        let residual = frob(&(&av - &vl)) / frob(&a);
        let mut g = dagger(&v.view()).dot(&v);
        for i in 0..d {
            g[[i, i]] -= C::new(1.0, 0.0);
        }
        let orth = frob(&g);
        assert!(residual <= 1e-13, "{backend:?}: residual {residual:e}");
        assert!(orth <= orth_bound, "{backend:?}: orthogonality {orth:e}");
    }
}

/// Entries beyond `~1e150` (squared moduli overflow) still give exact, finite defect sizes.
#[test]
fn huge_entries_report_finite_deviation_and_tolerance() {
    let a = ndarray::arr2(&[
        [C::new(0.5, 0.0), C::new(1e200, 0.0)],
        [C::new(0.0, 0.0), C::new(0.5, 0.0)],
    ]);
    match DensityMatrix::new(a) {
        Err(Error::NotHermitian {
            deviation,
            tolerance,
        }) => {
            assert_eq!(deviation, 1e200);
            assert_eq!(tolerance, Tolerance::default().scaled(2, 1e200));
        }
        other => panic!("expected NotHermitian, got {other:?}"),
    }
    // moderate entries: the squared-modulus path, same answer as hypot
    let b = ndarray::arr2(&[
        [C::new(0.5, 0.0), C::new(3e-3, 4e-3)],
        [C::new(0.0, 0.0), C::new(0.5, 0.0)],
    ]);
    match DensityMatrix::new(b) {
        Err(Error::NotHermitian { deviation, .. }) => {
            assert!((deviation - 5e-3).abs() < 1e-18, "{deviation}")
        }
        other => panic!("expected NotHermitian, got {other:?}"),
    }
}
