//! The sandwiched orders α > 1 without decomposing ρ (issue 14, `Pair::direct_sandwiched`):
//! the direct route (`ρ' = V_σ†ρV_σ` from ρ's matrix) and the decomposition route agree to the
//! documented bound (`divergence::accuracy::error_bound`, docs/conventions.md "Error bounds") on
//! ill-conditioned, rank-deficient and identical states, and decide the support the same way.
//! Also: validation from the eigendecomposition (`DensityMatrix::with_options_decomposed`) accepts
//! and rejects exactly like the Cholesky route away from the boundary.

mod common;

use common::*;
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{accuracy, Family, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::{DensityMatrix, Tolerance};
use qrenyi::Error;

const ALPHAS: [f64; 5] = [1.0 + 1e-9, 1.5, 2.0, 10.0, 1e6];

/// Unit-trace spectrum `10^{−12 k/(d−1)}` (κ = 10¹²), with the last `zeros` entries exactly 0.
fn graded(d: usize, zeros: usize) -> Vec<f64> {
    let mut l: Vec<f64> = (0..d)
        .map(|k| 10f64.powf(-12.0 * k as f64 / (d - 1).max(1) as f64))
        .collect();
    for x in l.iter_mut().skip(d - zeros) {
        *x = 0.0;
    }
    let s: f64 = l.iter().sum();
    l.iter().map(|x| x / s).collect()
}

/// `V_s X V_s†`: a random state supported inside the range of `sigma` (rank ≤ its rank).
fn inside_support(sigma: &DensityMatrix, seed: u64) -> Array2<Complex64> {
    let e = sigma.eigen().unwrap();
    let s = e.support();
    let x = DensityMatrix::random_hilbert_schmidt(s.len(), s.len(), &mut rng(seed)).unwrap();
    let v = e.vectors();
    let d = sigma.dim();
    Array2::from_shape_fn((d, d), |(i, j)| {
        let mut z = Complex64::new(0.0, 0.0);
        for (a, &p) in s.iter().enumerate() {
            for (b, &q) in s.iter().enumerate() {
                z += v[[i, p]] * x.matrix()[[a, b]] * v[[j, q]].conj();
            }
        }
        z
    })
}

/// Both routes on the same stored matrices: the direct one on fresh states (ρ never decomposed,
/// checked), the decomposition one after decomposing ρ. Every pair of values within the
/// documented bound of the decomposition route's value; `+∞` exactly together.
fn agree(rho: &Array2<Complex64>, sigma: &Array2<Complex64>, backend: Backend, what: &str) {
    let tol = Tolerance::default();
    let fresh = |m: &Array2<Complex64>| DensityMatrix::with_options(m.clone(), tol, backend);
    let (r_new, s_new) = (fresh(rho).unwrap(), fresh(sigma).unwrap());
    let (r_old, s_old) = (fresh(rho).unwrap(), fresh(sigma).unwrap());
    r_old.eigen().unwrap();
    let direct = Pair::new(&r_new, &s_new)
        .unwrap()
        .curve(Family::Sandwiched, &ALPHAS)
        .unwrap();
    assert!(
        !r_new.is_decomposed(),
        "{what}: the direct route decomposed ρ"
    );
    let single: Vec<f64> = ALPHAS
        .iter()
        .map(|&a| {
            let r = fresh(rho).unwrap();
            let v = Pair::new(&r, &s_new)
                .unwrap()
                .renyi(Family::Sandwiched, a)
                .unwrap();
            assert!(!r.is_decomposed(), "{what}: single order decomposed ρ");
            v
        })
        .collect();
    let old_pair = Pair::new(&r_old, &s_old).unwrap();
    for ((&alpha, &new), &one) in ALPHAS.iter().zip(&direct).zip(&single) {
        // the curve runs its orders with one BLAS thread each, the single call with all of
        // them: the same arithmetic up to the order of BLAS's partial sums (a few ulps)
        assert!(
            new == one || (new - one).abs() <= 1e-13 * (1.0 + one.abs()),
            "{what}, α = {alpha}: curve {new:e} vs single {one:e}"
        );
        let old = old_pair.renyi(Family::Sandwiched, alpha).unwrap();
        if old.is_infinite() || new.is_infinite() {
            assert_eq!(old, new, "{what}, α = {alpha}: support decision");
            continue;
        }
        let bound = accuracy::error_bound(&old_pair, Family::Sandwiched, alpha, old).unwrap();
        within_bound(
            &format!("{what}, α = {alpha}: direct vs decomposition"),
            new,
            old,
            bound,
        );
    }
}

#[test]
fn direct_sandwiched_agrees() {
    let backends = Backend::available();
    for (case, d) in [2usize, 3, 5, 8, 16, 40].into_iter().enumerate() {
        let seed = 100 + case as u64;
        let full = with_spectrum(&graded(d, 0), seed);
        let deficient = with_spectrum(&graded(d, d / 2), seed + 50);
        let hs = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng(seed + 7))
            .unwrap()
            .matrix()
            .clone();
        let hs2 = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng(seed + 8))
            .unwrap()
            .matrix()
            .clone();
        let s_def = DensityMatrix::new(deficient.clone()).unwrap();
        let inside = inside_support(&s_def, seed + 9);
        for &backend in &backends {
            let b = format!("d = {d}, {backend:?}");
            // ill-conditioned σ (κ = 1e12), ρ random or ρ = σ
            agree(&hs, &full, backend, &format!("{b}: HS ρ, graded σ"));
            agree(&hs, &hs2, backend, &format!("{b}: HS ρ, HS σ"));
            agree(&full, &full, backend, &format!("{b}: ρ = σ graded"));
            agree(&full, &hs, backend, &format!("{b}: graded ρ, HS σ"));
            // rank-deficient σ: ρ = σ, ρ inside supp σ, ρ leaking (+∞)
            agree(
                &deficient,
                &deficient,
                backend,
                &format!("{b}: ρ = σ rank-deficient"),
            );
            agree(&inside, &deficient, backend, &format!("{b}: ρ in supp σ"));
            agree(&hs, &deficient, backend, &format!("{b}: ρ leaks"));
        }
    }
}

/// ρ = σ: `D̃_α(σ‖σ) = 0` within the documented bound on the direct route, for graded and
/// rank-deficient σ.
#[test]
fn direct_sandwiched_identical_states_are_zero() {
    for d in [4usize, 12, 33] {
        for zeros in [0, d / 3] {
            let m = with_spectrum(&graded(d, zeros), d as u64);
            let s = DensityMatrix::new(m.clone()).unwrap();
            let r = DensityMatrix::new(m).unwrap();
            let pair = Pair::new(&r, &s).unwrap();
            let values = pair.curve(Family::Sandwiched, &ALPHAS).unwrap();
            assert!(!r.is_decomposed());
            for (&alpha, &v) in ALPHAS.iter().zip(&values) {
                let bound = accuracy::error_bound(&pair, Family::Sandwiched, alpha, v).unwrap();
                assert!(
                    v.abs() <= bound,
                    "d = {d}, zeros = {zeros}, α = {alpha}: {v:e} > {bound:e}"
                );
            }
        }
    }
}

/// Validation from the eigendecomposition: the same states pass and fail as with the Cholesky
/// route (away from the `O(dε)` boundary), with the same error, and the decomposition is cached.
#[test]
fn validation_from_eigenvalues_matches_cholesky() {
    let tol = Tolerance::default();
    for backend in Backend::available() {
        for d in [2usize, 7, 30] {
            let good = with_spectrum(&graded(d, d / 2), d as u64);
            let s = DensityMatrix::with_options_decomposed(good.clone(), tol, backend).unwrap();
            assert!(s.is_decomposed());
            let c = DensityMatrix::with_options(good.clone(), tol, backend).unwrap();
            assert_eq!(s.matrix(), c.matrix());
            // one eigenvalue −1e-6 (far below −tol), the others renormalised
            let mut l = graded(d, 0);
            l[0] += 1e-6;
            l[d - 1] = -1e-6;
            let bad = with_spectrum(&l, d as u64 + 1);
            let e1 = DensityMatrix::with_options_decomposed(bad.clone(), tol, backend).unwrap_err();
            let e2 = DensityMatrix::with_options(bad, tol, backend).unwrap_err();
            match (e1, e2) {
                (
                    Error::NotPositiveSemidefinite {
                        min_eigenvalue: a,
                        tolerance: ta,
                    },
                    Error::NotPositiveSemidefinite {
                        min_eigenvalue: b,
                        tolerance: tb,
                    },
                ) => {
                    assert_eq!(ta, tb);
                    assert!(
                        (a + 1e-6).abs() < 1e-12 && (b + 1e-6).abs() < 1e-12,
                        "{a} {b}"
                    );
                }
                other => panic!("d = {d}: {other:?}"),
            }
            // within the tolerance (−1e-13): accepted by both
            let mut l = graded(d, 0);
            l[d - 1] = -1e-13;
            l[0] += 1e-13;
            let edge = with_spectrum(&l, d as u64 + 2);
            assert!(DensityMatrix::with_options_decomposed(edge.clone(), tol, backend).is_ok());
            assert!(DensityMatrix::with_options(edge, tol, backend).is_ok());
            // the host checks come first, as in `with_options`
            let mut nh = good.clone();
            nh[[0, 1]] += Complex64::new(1e-3, 0.0);
            assert!(matches!(
                DensityMatrix::with_options_decomposed(nh, tol, backend),
                Err(Error::NotHermitian { .. })
            ));
        }
    }
}

/// A ρ with an eigenvalue `−10⁻¹²` (accepted: the tolerance is `10⁻¹⁰√d`, but far below the zero
/// threshold) is not PSD to rounding: the direct route declines (it would use the negative part,
/// which the decomposition route sets to 0) and the value is the decomposition route's, bit for bit.
#[test]
fn direct_route_declines_beyond_rounding_negativity() {
    let d = 6;
    let mut l = graded(d, 0);
    l[d - 1] = -1e-12;
    l[0] += 1e-12;
    let neg = with_spectrum(&l, 77);
    let sigma = DensityMatrix::new(with_spectrum(&graded(d, 0), 78)).unwrap();
    let r = DensityMatrix::new(neg.clone()).unwrap();
    assert!(!r.is_psd_to_rounding());
    let v = Pair::new(&r, &sigma)
        .unwrap()
        .renyi(Family::Sandwiched, 2.0)
        .unwrap();
    assert!(r.is_decomposed(), "the direct route did not decline");
    let r2 = DensityMatrix::new(neg).unwrap();
    r2.eigen().unwrap();
    let w = Pair::new(&r2, &sigma)
        .unwrap()
        .renyi(Family::Sandwiched, 2.0)
        .unwrap();
    // the same route on the same numbers: equal up to the order of BLAS's partial sums (other
    // tests change the process-global BLAS thread count concurrently)
    assert!(
        v == w || (v - w).abs() <= 1e-13 * (1.0 + w.abs()),
        "{v} vs {w}"
    );
    // PSD inputs, full rank or not, are PSD to rounding (set by validation), so rank-deficient ρ
    // keep the direct route
    for zeros in [0, 3] {
        let ok = DensityMatrix::new(with_spectrum(&graded(d, zeros), 79)).unwrap();
        assert!(ok.is_psd_to_rounding(), "zeros = {zeros}");
    }
    for n in [64, 256] {
        let mut g = rng(n as u64);
        for (what, s) in [
            ("pure", DensityMatrix::random_pure(n, &mut g).unwrap()),
            (
                "rank n/2",
                DensityMatrix::random_hilbert_schmidt(n, n / 2, &mut g).unwrap(),
            ),
        ] {
            let fresh = DensityMatrix::new(s.matrix().clone()).unwrap();
            assert!(fresh.is_psd_to_rounding(), "d = {n}, {what}");
        }
    }
}

/// The pair's states from raw matrices as the Python package makes them for the sandwiched orders
/// α > 1: ρ checked by Cholesky (its factor kept where LAPACK ran it), σ decomposed.
fn from_raw(rho: &Array2<Complex64>, sigma: &Array2<Complex64>) -> (DensityMatrix, DensityMatrix) {
    use qrenyi::divergence::Check;
    states_checked(rho, sigma, (Check::Cholesky, Check::Decomposed))
}

/// `factor_congruence_reference`: the sandwiched orders α > 1 from raw matrices
/// (`states_from_matrices`, ρ checked by Cholesky: from `d = 8` the factor is LAPACK's and kept,
/// and `ρ' = V†(LL† − τI)V` by ztrmm + zherk, docs/divergences.md "factor_congruence") against
/// mpmath at 60 digits (`tests/reference/generate_factor_congruence.py`) on ill-conditioned
/// (κ = 10¹²), rank-deficient and pure ρ beside σ with κ up to 10¹⁰: within the documented bound.
#[test]
fn factor_congruence_reference() {
    for (what, rho, sigma, orders) in sandwiched_fixture("factor_congruence.json") {
        for (alpha, reference) in orders {
            let (r, s) = from_raw(&rho, &sigma);
            let pair = Pair::new(&r, &s).unwrap();
            let value = pair.renyi(Family::Sandwiched, alpha).unwrap();
            assert!(!r.is_decomposed(), "{what}: the direct route decomposed ρ");
            let bound = accuracy::error_bound(&pair, Family::Sandwiched, alpha, reference).unwrap();
            within_bound(
                &format!("{what}, α = {alpha}: vs mpmath"),
                value,
                reference,
                bound,
            );
        }
    }
}

/// `factor_congruence_equals_congruence`: at `d = 256` the route from the kept Cholesky factor
/// (`states_from_matrices`) and the one from ρ's matrix (`DensityMatrix::with_options`, no factor
/// kept: zhemm + zgemm) give the same sandwiched values to 1e-13 relative, on a Hilbert–Schmidt
/// pair and on a rank-deficient ρ beside an ill-conditioned σ.
#[test]
fn factor_congruence_equals_congruence() {
    let d = 256;
    let mut g = rng(1707);
    let hs = |g: &mut _| {
        DensityMatrix::random_hilbert_schmidt(d, d, g)
            .unwrap()
            .matrix()
            .clone()
    };
    let deficient: Vec<f64> = (0..d)
        .map(|k| {
            if k < d / 2 {
                10f64.powf(-6.0 * k as f64 / d as f64)
            } else {
                0.0
            }
        })
        .collect();
    let (s1, t1) = (deficient.iter().sum::<f64>(), graded(d, 0));
    let deficient: Vec<f64> = deficient.iter().map(|x| x / s1).collect();
    let pairs = [
        ("Hilbert–Schmidt", hs(&mut g), hs(&mut g)),
        (
            "rank d/2 ρ, κ(σ) = 1e12",
            with_spectrum(&deficient, 11),
            with_spectrum(&t1, 12),
        ),
    ];
    for (what, rho, sigma) in pairs {
        let (r, s) = from_raw(&rho, &sigma);
        let r_old = DensityMatrix::new(rho).unwrap();
        let s_old = DensityMatrix::new(sigma).unwrap();
        for alpha in [1.5, 2.0, 10.0] {
            let new = Pair::new(&r, &s)
                .unwrap()
                .renyi(Family::Sandwiched, alpha)
                .unwrap();
            let old = Pair::new(&r_old, &s_old)
                .unwrap()
                .renyi(Family::Sandwiched, alpha)
                .unwrap();
            assert!(
                !r.is_decomposed() && !r_old.is_decomposed(),
                "{what}: ρ decomposed"
            );
            assert!(
                (new - old).abs() <= 1e-13 * old.abs().max(1.0),
                "{what}, α = {alpha}: factor route {new:e} vs congruence {old:e}"
            );
        }
    }
}
