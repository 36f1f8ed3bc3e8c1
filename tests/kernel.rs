//! Kernel Rényi divergence (seed 002): reference values, invariances, the theorems it must obey,
//! the audit and the Gaussian-mechanism helpers.

mod common;

use ndarray::{array, Array2, Axis};
use proptest::prelude::*;
use qrenyi::divergence::{Family, Pair};
use qrenyi::kernel::audit::{
    audit, covariance_deviation, dp_regularization, finite_sample_threshold,
    paper_dp_regularization, AuditSpec, Hypothesis, Method, Resampling,
};
use qrenyi::kernel::experiment::{self, ExperimentConfig, Scenario};
use qrenyi::kernel::gaussian::{balle_wang_delta, calibrate_sigma, gaussian_renyi};
use qrenyi::kernel::{Kernel, KernelDivergence, KernelKind};
use qrenyi::state::DensityMatrix;
use qrenyi::Error;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use serde_json::Value;

fn fixture() -> Value {
    let text = include_str!("reference/kernel.json");
    serde_json::from_str(text).expect("fixture parses")
}

fn matrix(v: &Value) -> Array2<f64> {
    let rows: Vec<Vec<f64>> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect();
    let (r, c) = (rows.len(), rows[0].len());
    Array2::from_shape_vec((r, c), rows.concat()).unwrap()
}

fn num(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "inf" => f64::INFINITY,
        _ => v.as_f64().unwrap(),
    }
}

/// Degree-2 polynomial kernel `(1 + x·y)²`, optionally normalised to `k(x,x) = 1`.
fn poly2(a: &Array2<f64>, b: &Array2<f64>, normalised: bool) -> Array2<f64> {
    Array2::from_shape_fn((a.nrows(), b.nrows()), |(i, j)| {
        let (x, y) = (a.row(i), b.row(j));
        let v = (1.0 + x.dot(&y)).powi(2);
        if normalised {
            v / ((1.0 + x.dot(&x)) * (1.0 + y.dot(&y)))
        } else {
            v
        }
    })
}

/// Explicit features of the normalised degree-2 polynomial kernel in d = 2 (rows).
fn poly2_features(a: &Array2<f64>) -> Array2<f64> {
    let r2 = 2f64.sqrt();
    Array2::from_shape_fn((a.nrows(), 6), |(i, k)| {
        let (x1, x2) = (a[[i, 0]], a[[i, 1]]);
        let f = [1.0, r2 * x1, r2 * x2, x1 * x1, r2 * x1 * x2, x2 * x2][k];
        f / (1.0 + x1 * x1 + x2 * x2)
    })
}

fn estimator_for(case: &Value) -> KernelDivergence {
    let (x, y) = (matrix(&case["x"]), matrix(&case["y"]));
    let name = case["kernel"].as_str().unwrap();
    match name {
        "poly2" | "poly2n" => {
            let norm = name == "poly2n";
            KernelDivergence::from_gram(
                poly2(&x, &x, norm),
                poly2(&x, &y, norm),
                poly2(&y, &y, norm),
            )
            .unwrap()
        }
        _ => {
            let kind: KernelKind = name.parse().unwrap();
            let k = Kernel::new(kind, case["bandwidth"].as_f64().unwrap()).unwrap();
            KernelDivergence::from_samples(x.view(), y.view(), &k).unwrap()
        }
    }
}

fn assert_close(got: f64, want: f64, rel: f64, what: &str) {
    if want.is_infinite() {
        assert_eq!(got, want, "{what}");
    } else {
        assert!(
            (got - want).abs() <= rel * want.abs().max(1.0),
            "{what}: got {got}, want {want}, diff {:.3e}",
            (got - want).abs()
        );
    }
}

#[test]
fn kernel_divergence_reference_values() {
    let fx = fixture();
    let mut checked = 0;
    for case in fx["divergence"].as_array().unwrap() {
        let est = estimator_for(case);
        for v in case["values"].as_array().unwrap() {
            let (alpha, lambda) = (num(&v["alpha"]), v["lambda"].as_f64().unwrap());
            let got = est.divergence(alpha, lambda).unwrap();
            let what = format!("{} α={alpha} λ={lambda}", case["kernel"]);
            assert_close(got, num(&v["value"]), 1e-9, &what);
            for key in ["explicit", "paper"] {
                if !v[key].is_null() {
                    assert_close(got, num(&v[key]), 1e-9, &format!("{what} vs {key}"));
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 150, "{checked}");
}

#[test]
fn kernel_divergence_matches_core_sandwiched_on_explicit_features() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let x = Array2::from_shape_fn((9, 2), |_| rng.sample::<f64, _>(StandardNormal));
    let y = Array2::from_shape_fn((12, 2), |_| 0.5 + rng.sample::<f64, _>(StandardNormal));
    let est = KernelDivergence::from_gram(
        poly2(&x, &x, true),
        poly2(&x, &y, true),
        poly2(&y, &y, true),
    )
    .unwrap();
    let (fx, fy) = (poly2_features(&x), poly2_features(&y));
    let rho = fx.t().dot(&fx) / 9.0;
    for lambda in [0.0, 1e-4, 0.05] {
        let sigma = fy.t().dot(&fy) / 12.0 + Array2::<f64>::eye(6) * lambda;
        let tr = sigma.diag().sum();
        let r = DensityMatrix::from_real(rho.clone()).unwrap();
        let sg = DensityMatrix::from_real(sigma / tr).unwrap();
        let pair = Pair::new(&r, &sg).unwrap();
        for alpha in [0.6, 1.0, 2.0, 5.0, f64::INFINITY] {
            let want = pair.renyi(Family::Sandwiched, alpha).unwrap() - tr.ln();
            let got = est.divergence(alpha, lambda).unwrap();
            assert_close(got, want, 1e-8, &format!("α={alpha} λ={lambda}"));
        }
    }
}

fn gaussian(rng: &mut ChaCha8Rng, n: usize, d: usize, shift: f64) -> Array2<f64> {
    let mut a = Array2::from_shape_fn((n, d), |_| rng.sample::<f64, _>(StandardNormal));
    a.column_mut(0).mapv_inplace(|v| v + shift);
    a
}

/// Samples `X ~ N(0, I_d)^n`, `Y ~ N(shift·e₁, I_d)^m` and their estimator with `kernel`.
fn gaussian_pair(
    seed: u64,
    (n, m, d): (usize, usize, usize),
    shift: f64,
    kernel: &Kernel,
) -> (Array2<f64>, Array2<f64>, KernelDivergence) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x = gaussian(&mut rng, n, d, 0.0);
    let y = gaussian(&mut rng, m, d, shift);
    let est = KernelDivergence::from_samples(x.view(), y.view(), kernel).unwrap();
    (x, y, est)
}

#[test]
fn kernel_divergence_invariant_under_permutations_and_zero_on_itself() {
    let k = Kernel::new(KernelKind::Rbf, 2.0).unwrap();
    let (x, y, est) = gaussian_pair(11, (12, 9, 3), 1.0, &k);
    let px: Vec<usize> = (0..12).rev().collect();
    let py: Vec<usize> = vec![3, 1, 4, 0, 8, 5, 7, 2, 6];
    let perm = KernelDivergence::from_samples(
        x.select(Axis(0), &px).view(),
        y.select(Axis(0), &py).view(),
        &k,
    )
    .unwrap();
    for alpha in [0.5, 1.0, 2.0, 12.0, f64::INFINITY] {
        for lambda in [1e-3, 0.1] {
            let (a, b) = (
                est.divergence(alpha, lambda).unwrap(),
                perm.divergence(alpha, lambda).unwrap(),
            );
            assert_close(b, a, 1e-9, &format!("permutation α={alpha} λ={lambda}"));
        }
    }
    // a sample against itself: Σ̂_P = Σ̂_Q, so D_{α,0} = 0 for every α
    let same = KernelDivergence::from_samples(x.view(), x.view(), &k).unwrap();
    assert!(same.is_supported());
    for alpha in [0.5, 0.99, 1.0, 2.0, 6.0, f64::INFINITY] {
        let d = same.divergence(alpha, 0.0).unwrap();
        assert!(d.abs() < 1e-8, "α={alpha}: {d}");
    }
    // and at λ > 0 it is ≤ 0 (σ = ρ + λI ≥ ρ, order property, α ≥ ½), decreasing in λ
    for alpha in [0.5, 2.0, 6.0] {
        let d = same.divergence(alpha, 0.01).unwrap();
        let d2 = same.divergence(alpha, 0.1).unwrap();
        assert!(
            d <= 1e-12 && d2 <= d + 1e-12 && d.is_finite(),
            "α={alpha}: {d} {d2}"
        );
    }
}

#[test]
fn kernel_divergence_unregularised_is_infinite_without_support() {
    let k = Kernel::new(KernelKind::Rbf, 1.0).unwrap();
    let (_, _, est) = gaussian_pair(3, (6, 6, 2), 0.0, &k);
    assert!(!est.is_supported());
    assert!(est.leakage() > 1e-6);
    assert_eq!(est.divergence(2.0, 0.0).unwrap(), f64::INFINITY);
    assert_eq!(est.divergence(1.0, 0.0).unwrap(), f64::INFINITY);
    assert!(est.divergence(0.5, 0.0).unwrap().is_finite());
}

#[test]
fn kernel_divergence_rejects_bad_input() {
    let x = array![[0.0, 1.0], [1.0, 0.0]];
    let y = array![[0.0, 1.0, 2.0]];
    let k = Kernel::new(KernelKind::Rbf, 1.0).unwrap();
    assert!(matches!(
        KernelDivergence::from_samples(x.view(), y.view(), &k),
        Err(Error::DimensionMismatch { .. })
    ));
    let est = KernelDivergence::from_samples(x.view(), x.view(), &k).unwrap();
    assert!(matches!(
        est.divergence(0.0, 0.1),
        Err(Error::AlphaOutOfRange { .. })
    ));
    assert!(matches!(
        est.divergence(f64::NAN, 0.1),
        Err(Error::AlphaOutOfRange { .. })
    ));
    assert!(matches!(
        est.divergence(2.0, -1.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        est.divergence(2.0, f64::NAN),
        Err(Error::InvalidParameter { .. })
    ));
    let bad = array![[1.0, 0.5], [0.4, 1.0]];
    assert!(matches!(
        KernelDivergence::from_gram(bad.clone(), bad.clone(), bad),
        Err(Error::NotHermitian { .. })
    ));
    assert!(matches!(
        KernelDivergence::from_gram(Array2::eye(2), Array2::zeros((3, 2)), Array2::eye(2)),
        Err(Error::DimensionMismatch { .. })
    ));
}

proptest! {
    #![proptest_config(common::proptest_config(32))]

    /// Seed 002, Proposition 2: D_{α,λ} increases in α and decreases in λ.
    #[test]
    fn kernel_divergence_monotone_in_alpha_and_lambda(
        seed in 0u64..10_000, n in 2usize..8, m in 2usize..8, shift in 0.0f64..2.0,
        bw in 0.3f64..3.0, a1 in 0.5f64..8.0, da in 0.0f64..6.0, l1 in 1e-4f64..0.5, dl in 0.0f64..1.0,
    ) {
        let k = Kernel::new(KernelKind::Rbf, bw).unwrap();
        let (_, _, est) = gaussian_pair(seed, (n, m, 2), shift, &k);
        let (a2, l2) = (a1 + da, l1 + dl);
        let d11 = est.divergence(a1, l1).unwrap();
        let d21 = est.divergence(a2, l1).unwrap();
        let d12 = est.divergence(a1, l2).unwrap();
        let tol = 1e-9 * d11.abs().max(1.0);
        prop_assert!(d21 >= d11 - tol, "α: {} -> {}", d11, d21);
        prop_assert!(d12 <= d11 + tol, "λ: {} -> {}", d11, d12);
        let dmax = est.divergence(f64::INFINITY, l1).unwrap();
        prop_assert!(dmax >= d21 - tol);
    }
}

/// The default route (`Backend::Auto`: `dsyevd` in place on `K_YY`, `dsyrk` updates, two-stage
/// values-only solves from `n = 2048`) against the generic route (`Backend::Lapack`: copying
/// `dsyevd` calls and a gemm per `(α, λ)`) on random problems, one with `n` above the two-stage
/// crossover. Both are backward stable: each spectrum of `M_γ` is exact for a matrix within
/// `c·n·ε·‖M_γ‖` of the other's, so the divergences may differ by rounding only; the bound
/// `1e-10·max(1, |D|)` is 100× the largest difference measured (docs/kernel.md § cost).
#[test]
#[cfg(feature = "openblas")] // the in-place route is LAPACK's; without it there is only the generic one
fn kernel_divergence_in_place_route_matches_generic_route() {
    let k = Kernel::new(KernelKind::Rbf, 3.0).unwrap();
    for (seed, (n, m, d), alphas, lambdas) in [
        (
            21,
            (300, 200, 5),
            &[0.5, 0.9, 1.0, 2.0, 6.0, f64::INFINITY][..],
            &[1e-3, 0.1][..],
        ),
        // n at the two-stage crossover (a few seconds: kept to two evaluations)
        (22, (2048, 150, 5), &[2.0, f64::INFINITY][..], &[1e-3][..]),
    ] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x = gaussian(&mut rng, n, d, 0.0);
        let y = gaussian(&mut rng, m, d, 0.7);
        let blocks = || {
            (
                k.gram_sym(x.view()).unwrap(),
                k.gram(x.view(), y.view()).unwrap(),
                k.gram_sym(y.view()).unwrap(),
            )
        };
        // one BLAS thread for the three constructions: bitwise equality of the K_YY spectra needs
        // the same thread count in each (other tests change the process-global count)
        let (fast, fast_gram, generic) = qrenyi::spectral::with_single_blas_thread(|| {
            let fast = KernelDivergence::from_samples(x.view(), y.view(), &k).unwrap();
            let (kxx, kxy, kyy) = blocks();
            let fast_gram = KernelDivergence::from_gram(kxx, kxy, kyy).unwrap();
            let (kxx, kxy, kyy) = blocks();
            let generic =
                KernelDivergence::from_gram_with(kxx, kxy, kyy, qrenyi::spectral::Backend::Lapack)
                    .unwrap();
            (fast, fast_gram, generic)
        });
        // the decomposition of K_YY is the same LAPACK call on the same numbers
        assert_eq!(fast.sigma_spectrum(), generic.sigma_spectrum());
        assert_eq!(fast_gram.sigma_spectrum(), generic.sigma_spectrum());
        let (rf, rg) = (
            fast.rho_spectrum().unwrap(),
            generic.rho_spectrum().unwrap(),
        );
        let top = rg[n - 1];
        for (a, b) in rf.iter().zip(rg.iter()) {
            assert!(
                (a - b).abs() <= 1e-13 * top,
                "n = {n}: ρ spectrum {a} vs {b}"
            );
        }
        let points: Vec<(f64, f64)> = alphas
            .iter()
            .flat_map(|&a| lambdas.iter().map(move |&l| (a, l)))
            .collect();
        assert_routes_agree(
            (n, m),
            &points,
            &generic,
            &[("from_samples", &fast), ("from_gram", &fast_gram)],
        );
    }
}

/// Each route's divergence at every `(α, λ)` of `points` agrees with the generic route's to the
/// documented `1e-10·max(1, |D|)`.
#[cfg(feature = "openblas")] // both callers compare LAPACK routes
fn assert_routes_agree(
    (n, m): (usize, usize),
    points: &[(f64, f64)],
    generic: &KernelDivergence,
    routes: &[(&str, &KernelDivergence)],
) {
    for &(alpha, lambda) in points {
        let want = generic.divergence(alpha, lambda).unwrap();
        for (route, est) in routes {
            let got = est.divergence(alpha, lambda).unwrap();
            assert!(
                (got - want).abs() <= 1e-10 * want.abs().max(1.0),
                "n = {n}, m = {m}, α = {alpha}, λ = {lambda}, {route}: {got} vs {want} \
                 (difference {:e})",
                (got - want).abs()
            );
        }
    }
}

/// α = 2 without an eigensolve (docs/kernel.md, "sandwich_frobenius": `Σ μ² = ‖M_γ‖_F²`,
/// `Σ μ = Tr M_γ`, the route of `Backend::Auto`) against the eigenvalues of `M_γ` (the generic
/// route, `Backend::Lapack`): RBF and Laplace Gram matrices, `n ≷ m`, λ from 1e-6 to 10 (the
/// `−W Wᵀ` cancellation of γ < 0 is worst at small λ), and the normalised polynomial kernel, whose
/// `M_γ` is singular (rank ≤ 6 < n) and supported at λ = 0. The independent check is
/// `kernel_divergence_reference_values` (mpmath), which covers α = 2 at λ ∈ {0, 1e-3, 0.1}.
#[test]
#[cfg(feature = "openblas")]
fn kernel_divergence_order_two_trace_matches_spectrum() {
    let lambdas = [1e-6, 1e-3, 0.1, 10.0];
    for (seed, kind, (n, m, d)) in [
        (41, KernelKind::Rbf, (250, 180, 4)),
        (42, KernelKind::Laplace, (120, 300, 3)),
        (43, KernelKind::Rbf, (400, 400, 8)),
    ] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x = gaussian(&mut rng, n, d, 0.0);
        let y = gaussian(&mut rng, m, d, 0.8);
        let k = Kernel::new(kind, 2.0).unwrap();
        let blocks = || {
            (
                k.gram_sym(x.view()).unwrap(),
                k.gram(x.view(), y.view()).unwrap(),
                k.gram_sym(y.view()).unwrap(),
            )
        };
        let (kxx, kxy, kyy) = blocks();
        let fast = KernelDivergence::from_gram(kxx, kxy, kyy).unwrap();
        let (kxx, kxy, kyy) = blocks();
        let generic =
            KernelDivergence::from_gram_with(kxx, kxy, kyy, qrenyi::spectral::Backend::Lapack)
                .unwrap();
        let points: Vec<(f64, f64)> = lambdas.iter().map(|&l| (2.0, l)).collect();
        assert_routes_agree((n, m), &points, &generic, &[("trace", &fast)]);
        // and the values are those of the neighbouring orders' spectral route, continued
        for &l in &lambdas {
            let (lo, mid, hi) = (
                fast.divergence(2.0 - 1e-9, l).unwrap(),
                fast.divergence(2.0, l).unwrap(),
                fast.divergence(2.0 + 1e-9, l).unwrap(),
            );
            assert!(
                lo <= mid + 1e-12 && mid <= hi + 1e-12,
                "monotone in α: {lo} {mid} {hi}"
            );
        }
    }
    // singular M_γ (rank ≤ 6), supported at λ = 0: the pseudo-inverse convention
    let mut rng = ChaCha8Rng::seed_from_u64(44);
    let x = Array2::from_shape_fn((40, 2), |_| rng.sample::<f64, _>(StandardNormal));
    let y = Array2::from_shape_fn((30, 2), |_| 0.3 + rng.sample::<f64, _>(StandardNormal));
    let build = |backend| {
        KernelDivergence::from_gram_with(
            poly2(&x, &x, true),
            poly2(&x, &y, true),
            poly2(&y, &y, true),
            backend,
        )
        .unwrap()
    };
    let (fast, generic) = (
        build(qrenyi::spectral::Backend::Auto),
        build(qrenyi::spectral::Backend::Lapack),
    );
    assert!(fast.is_supported());
    let points: Vec<(f64, f64)> = [0.0, 1e-4, 0.1].iter().map(|&l| (2.0, l)).collect();
    assert_routes_agree((40, 30), &points, &generic, &[("trace", &fast)]);
}

/// The overlapped construction (`K_YY` of size ≥ 1024: `dstedc` on one thread while the other
/// applies `dsytrd`'s reflectors to `K_XY`, then `C = (K_XY Q) Z` in row blocks; docs/kernel.md,
/// "eigh_times") against the generic route (`dsyevd`, `C = K_XY E`, one-stage values) on random
/// problems, one with `n` above the two-stage crossover 2048, to the documented
/// `1e-10·max(1, |D|)`. And deterministic: the same blocks built twice give the same `C`-derived
/// numbers bit for bit — a race between the two threads (an earlier version let both threads apply
/// the shared reflectors, which LAPACK modifies while it uses them) shows up as a difference.
#[test]
#[cfg(feature = "openblas")]
fn kernel_divergence_overlapped_construction_matches_generic_route() {
    let k = Kernel::new(KernelKind::Rbf, 3.0).unwrap();
    for (seed, (n, m, d), shift, points) in [
        (
            31,
            (1100, 1024, 4),
            0.5,
            &[(2.0, 1e-3), (f64::INFINITY, 1e-2)][..],
        ),
        (32, (700, 1200, 6), 1.0, &[(0.5, 0.1), (6.0, 1e-3)][..]),
        // n above the two-stage crossover (the slowest case: one point)
        (33, (2100, 1050, 3), 0.3, &[(2.0, 3e-3)][..]),
    ] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x = gaussian(&mut rng, n, d, 0.0);
        let y = gaussian(&mut rng, m, d, shift);
        let blocks = || {
            (
                k.gram_sym(x.view()).unwrap(),
                k.gram(x.view(), y.view()).unwrap(),
                k.gram_sym(y.view()).unwrap(),
            )
        };
        let fast = KernelDivergence::from_samples(x.view(), y.view(), &k).unwrap();
        // twice on one BLAS thread (dsytrd's rounding then does not depend on the thread count,
        // which other tests change): bitwise equal
        let (once, twice) = qrenyi::spectral::with_single_blas_thread(|| {
            let (kxx, kxy, kyy) = blocks();
            let once = KernelDivergence::from_gram(kxx, kxy, kyy).unwrap();
            let (kxx, kxy, kyy) = blocks();
            (once, KernelDivergence::from_gram(kxx, kxy, kyy).unwrap())
        });
        assert_eq!(once.sigma_spectrum(), twice.sigma_spectrum());
        assert_eq!(once.leakage().to_bits(), twice.leakage().to_bits());
        let (kxx, kxy, kyy) = blocks();
        let generic =
            KernelDivergence::from_gram_with(kxx, kxy, kyy, qrenyi::spectral::Backend::Lapack)
                .unwrap();
        let (sf, sg) = (fast.sigma_spectrum(), generic.sigma_spectrum());
        let top = sg[m - 1];
        for (a, b) in sf.iter().zip(sg.iter()) {
            assert!(
                (a - b).abs() <= 1e-13 * top,
                "n = {n}, m = {m}: σ spectrum {a} vs {b}"
            );
        }
        let leak = (fast.leakage() - generic.leakage()).abs();
        assert!(
            leak <= 1e-12,
            "n = {n}, m = {m}: leakage differs by {leak:e}"
        );
        assert_routes_agree(
            (n, m),
            points,
            &generic,
            &[("from_samples", &fast), ("from_gram", &once)],
        );
    }
}

#[test]
fn kernel_divergence_grid_matches_pointwise() {
    let k = Kernel::new(KernelKind::Laplace, 2.0).unwrap();
    let (_, _, est) = gaussian_pair(5, (10, 7, 4), 0.5, &k);
    let (alphas, lambdas) = ([0.7, 2.0, 6.0], [1e-3, 1e-2, 0.3]);
    let g = est.grid(&alphas, &lambdas).unwrap();
    for (i, &a) in alphas.iter().enumerate() {
        for (j, &l) in lambdas.iter().enumerate() {
            assert_eq!(g[[i, j]], est.divergence(a, l).unwrap());
        }
    }
}

#[test]
fn gaussian_mechanism_reference_values() {
    let fx = fixture();
    for c in fx["balle_wang_delta"].as_array().unwrap() {
        let f = |k: &str| c[k].as_f64().unwrap();
        let got = balle_wang_delta(f("sensitivity"), f("sigma"), f("epsilon")).unwrap();
        assert!(
            (got - f("delta")).abs() <= 1e-13 + 1e-12 * f("delta"),
            "{c}: {got}"
        );
    }
    for c in fx["calibrate_sigma"].as_array().unwrap() {
        let f = |k: &str| c[k].as_f64().unwrap();
        let got = calibrate_sigma(f("sensitivity"), f("epsilon"), f("delta")).unwrap();
        assert!((got / f("sigma") - 1.0).abs() < 1e-10, "{c}: {got}");
    }
    assert!((gaussian_renyi(6.0, 10.0, 5.0).unwrap() - 6.0 * 100.0 / 50.0).abs() < 1e-12);
}

#[test]
fn dp_regularization_values() {
    assert!((dp_regularization(1.0, 0.005).unwrap() - 0.005 * (-1f64).exp()).abs() < 1e-18);
    assert!((paper_dp_regularization(3.0, 0.03).unwrap() - 0.06 * (-3f64).exp()).abs() < 1e-18);
    assert!(dp_regularization(-1.0, 0.1).is_err());
    assert!(dp_regularization(1.0, 1.0).is_err());
}

/// (ε,δ)-DP implies D_{α, δe^{−ε}} ≤ ε (docs/kernel.md § dp_regularization): check it on exact
/// covariance operators of discrete distributions that are (ε,δ)-DP by construction.
#[test]
fn dp_regularization_bound_holds_for_dp_pairs() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    for _ in 0..20 {
        // P, Q uniform over atoms: Q's atoms are P's with a fraction replaced → small δ, ε = 0
        let atoms = gaussian(&mut rng, 10, 3, 0.0);
        let mut qatoms = atoms.clone();
        let moved = rng.random_range(1..4);
        for i in 0..moved {
            qatoms.row_mut(i).mapv_inplace(|v| v + 3.0);
        }
        // P(S) ≤ Q(S) + moved/10 for every S: (0, moved/10)-DP
        let (eps, delta) = (0.0, moved as f64 / 10.0);
        let k = Kernel::new(KernelKind::Rbf, 1.5).unwrap();
        let est = KernelDivergence::from_samples(atoms.view(), qatoms.view(), &k).unwrap();
        let lam = dp_regularization(eps, delta).unwrap();
        for alpha in [0.5, 2.0, 10.0, f64::INFINITY] {
            let d = est.divergence(alpha, lam).unwrap();
            assert!(d <= eps + 1e-10, "α={alpha} δ={delta}: {d}");
        }
    }
}

/// The finite-sample threshold: a Monte-Carlo check of its coverage on distributions whose
/// covariance operators are known exactly (uniform over a few atoms).
#[test]
fn finite_sample_threshold_covers_the_error() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let pa = gaussian(&mut rng, 4, 2, 0.0);
    let qa = gaussian(&mut rng, 5, 2, 0.7);
    let k = Kernel::new(KernelKind::Rbf, 1.0).unwrap();
    let truth_est = KernelDivergence::from_samples(pa.view(), qa.view(), &k).unwrap();
    let (alpha, lambda, level, n) = (2.0, 0.6, 0.1, 200);
    let truth = truth_est.divergence(alpha, lambda).unwrap();
    let mut covered = 0;
    let reps = 30;
    for _ in 0..reps {
        let ix: Vec<usize> = (0..n).map(|_| rng.random_range(0..4)).collect();
        let iy: Vec<usize> = (0..n).map(|_| rng.random_range(0..5)).collect();
        let x = pa.select(Axis(0), &ix);
        let y = qa.select(Axis(0), &iy);
        let est = KernelDivergence::from_samples(x.view(), y.view(), &k).unwrap();
        let d = est.divergence(alpha, lambda).unwrap();
        let norm = est
            .rho_spectrum()
            .unwrap()
            .iter()
            .map(|v| v.max(0.0).powi(2))
            .sum::<f64>()
            .sqrt();
        let b = finite_sample_threshold(alpha, lambda, n, n, level, norm).unwrap();
        assert!(b.total.is_finite(), "{b:?}");
        if (d - truth).abs() <= b.total {
            covered += 1;
        }
    }
    assert!(
        covered as f64 >= (1.0 - level) * reps as f64,
        "{covered}/{reps}"
    );
    // vacuous when η_Q ≥ λ, decreasing in n
    let v =
        finite_sample_threshold(2.0, covariance_deviation(100, 0.05), 100, 100, 0.05, 0.5).unwrap();
    assert_eq!(v.sigma_term, f64::INFINITY);
    let b1 = finite_sample_threshold(3.0, 0.5, 1000, 1000, 0.05, 0.5).unwrap();
    let b2 = finite_sample_threshold(3.0, 0.5, 4000, 4000, 0.05, 0.5).unwrap();
    assert!(b2.total < b1.total && b1.total.is_finite());
    assert!(finite_sample_threshold(1.0, 0.5, 10, 10, 0.05, 0.5).is_err());
}

#[test]
fn audit_detects_a_gross_violation_and_not_a_null() {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let x = gaussian(&mut rng, 120, 5, 0.0);
    let y = gaussian(&mut rng, 120, 5, 10.0);
    let k = Kernel::new(KernelKind::Rbf, 5.0).unwrap();
    let (eps, delta) = (1.0, 0.005);
    let spec = AuditSpec {
        alpha: 2.0,
        lambda: dp_regularization(eps, delta).unwrap(),
        level: 0.05,
        hypothesis: Hypothesis::Dp {
            epsilon: eps,
            delta,
        },
        method: Method::Resampling(Resampling {
            replicates: 40,
            ..Resampling::default()
        }),
    };
    let r = audit(x.view(), y.view(), &k, &spec).unwrap();
    assert!(r.violation, "{r:?}");
    assert!(r.divergence > r.threshold && r.threshold > eps);
    // same distribution: no violation, with either method
    let y0 = gaussian(&mut rng, 120, 5, 0.0);
    let r0 = audit(x.view(), y0.view(), &k, &spec).unwrap();
    assert!(!r0.violation, "{r0:?}");
    let fs = AuditSpec {
        method: Method::FiniteSample,
        ..spec
    };
    let r1 = audit(x.view(), y0.view(), &k, &fs).unwrap();
    assert!(!r1.violation && r1.method == "finite-sample");
    // λ below δe^{−ε}: the DP hypothesis does not imply RKRDP there
    let low = AuditSpec { lambda: 1e-5, ..fs };
    assert!(matches!(
        audit(x.view(), y.view(), &k, &low),
        Err(Error::InvalidParameter { .. })
    ));
}

/// The experiment's estimates stay below the exact Rényi divergence αΔ²/(2σ²) of the two
/// Gaussians (seed 002, Proposition 2, as observed in its Figure 1).
#[test]
fn experiment_respects_classical_renyi_bound() {
    let cfg = ExperimentConfig {
        dim: 5,
        ns: vec![80],
        runs: 2,
        alphas: vec![2.0, 6.0],
        // where the statistical error is small (seed 002, Section 6: "when the statistical
        // error is small we see that the RKRD curves lie below the corresponding RD line")
        lambdas: vec![1e-2, 3e-2, 1e-1],
        scenarios: vec![
            Scenario::calibrated(10.0, 1.0, 0.005).unwrap(),
            Scenario::calibrated(10.0, 2.0, 0.2).unwrap(),
        ],
        seed: 1,
    };
    let res = experiment::run(&cfg, |_| {}).unwrap();
    // runs × α × (grid + DP-check λ): 2 DP λ for the (1, 0.005) mechanism, 4 for the other
    assert_eq!(res.records.len(), 2 * 2 * (3 + 2) + 2 * 2 * (3 + 4));
    for c in &res.curves {
        assert!(c.mean.is_finite() && c.mean <= c.renyi, "{c:?}");
    }
    let md = experiment::summary(&res, qrenyi::Base::E).unwrap();
    assert!(md.contains("(ε, δ)-DP checks"));
}
