//! The maximal family by Cholesky whitening (docs/divergences.md, "maximal_whitened"): one
//! Cholesky factorisation of σ and one eigendecomposition of `T = L⁻¹ρL⁻†`, taken only where its
//! a-posteriori bound is within the documented bound. Against mpmath at 60 digits
//! (`tests/reference/generate_maximal_whitened.py` → `maximal_whitened.json`), against the eigen
//! route on random pairs, where it must decline, and the theorems it must keep (data processing,
//! monotonicity in α).

mod common;
use common::*;
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::whitened::{covers, maximal_whitened};
use qrenyi::divergence::{accuracy, Check, Family, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::{DensityMatrix, Tolerance};

/// A state validated by Cholesky (not decomposed) on `Backend::Auto` (the route's backend in
/// every build).
fn undecomposed(m: &Array2<Complex64>) -> DensityMatrix {
    DensityMatrix::with_options(m.clone(), Tolerance::default(), Backend::Auto).unwrap()
}

/// A state decomposed by validation: the pair takes the eigen route.
fn decomposed(m: &Array2<Complex64>) -> DensityMatrix {
    DensityMatrix::with_options_decomposed(m.clone(), Tolerance::default(), Backend::Auto).unwrap()
}

/// `maximal_whitened_reference`: every fixture pair and order — single calls and one curve on
/// undecomposed states (the whitened route where it certifies, else the eigen route), the Python
/// package's states (both checked by Cholesky for maximal α ≥ 1), and decomposed states (the
/// eigen route) — within the documented bound of the mpmath value; where the whitened route
/// answers, its own a-posteriori bound covers the error too. The route answers at least 80 % of
/// the orders (σ's κ up to 10¹², rank-deficient ρ, ρ = σ included).
#[test]
fn maximal_whitened_reference() {
    let text = std::fs::read_to_string("tests/reference/maximal_whitened.json").unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (mut taken, mut total) = (0, 0);
    for case in json["cases"].as_array().unwrap() {
        let what = case["what"].as_str().unwrap();
        let (r, s) = (stored_matrix(&case["rho"]), stored_matrix(&case["sigma"]));
        let orders = case["orders"].as_array().unwrap();
        let alphas: Vec<f64> = orders
            .iter()
            .map(|o| o["alpha"].as_f64().unwrap())
            .collect();
        let (ru, su) = (undecomposed(&r), undecomposed(&s));
        let curve = Pair::new(&ru, &su)
            .unwrap()
            .curve(Family::Maximal, &alphas)
            .unwrap();
        let (rp, sp) = states_checked(&r, &s, (Check::Cholesky, Check::Cholesky));
        for (k, o) in orders.iter().enumerate() {
            let (alpha, want, bound) = (
                alphas[k],
                o["value"].as_f64().unwrap(),
                o["bound"].as_f64().unwrap(),
            );
            let (ru, su) = (undecomposed(&r), undecomposed(&s));
            let pair = Pair::new(&ru, &su).unwrap();
            let probe = pair.maximal_whitened_probe(alpha).unwrap();
            // the route exists at every d with `openblas`, to WHITENED_MAX = 16 without
            assert_eq!(probe.is_some(), covers(r.nrows()), "{what}");
            if let Some(probe) = probe {
                total += 1;
                if probe.bound <= probe.documented {
                    taken += 1;
                    let err = (probe.value - want).abs();
                    assert!(
                        err <= probe.bound,
                        "{what} α={alpha}: whitened {} vs {want}, error {err:e} > its bound {:e}",
                        probe.value,
                        probe.bound
                    );
                } else {
                    eprintln!("{what} α={alpha}: declined ({probe:?})");
                }
            }
            let single = Pair::new(&undecomposed(&r), &undecomposed(&s))
                .unwrap()
                .renyi(Family::Maximal, alpha)
                .unwrap();
            let python = Pair::new(&rp, &sp)
                .unwrap()
                .renyi(Family::Maximal, alpha)
                .unwrap();
            let eigen = Pair::new(&decomposed(&r), &decomposed(&s))
                .unwrap()
                .renyi(Family::Maximal, alpha)
                .unwrap();
            for (route, v) in [
                ("single", single),
                ("curve", curve[k]),
                ("python", python),
                ("eigen", eigen),
            ] {
                assert!(
                    (v - want).abs() <= bound,
                    "{what} α={alpha} {route}: {v} vs {want} (error {:e}, bound {bound:e})",
                    (v - want).abs()
                );
            }
        }
    }
    eprintln!("whitened route taken at {taken} of {total} orders");
    assert!(taken * 10 >= total * 8, "taken {taken} of {total}");
}

/// `maximal_whitened_declines`: the route does not answer where it cannot certify — σ singular or
/// with `λ_min` below the certificate shift (no reduction), α < 1 and α = ∞ (bound `+∞`), α = 1
/// with a rank-deficient ρ (an unresolved `t_k`: bound `+∞`), decomposed states (the eigen
/// route's remaining work is cheaper) — and there the value is the eigen route's.
#[test]
fn maximal_whitened_declines() {
    let rho = with_spectrum(&[0.3, 0.2, 0.2, 0.1, 0.1, 0.1], 1);
    // σ of rank 5 and σ with λ_min = 1e-15 (below the shift (16d + 4d(d+1))ε ≈ 1.4e-13)
    for tiny in [0.0, 1e-15] {
        let s = with_spectrum(&[0.3, 0.3, 0.2, 0.1, 0.1 - tiny, tiny], 2);
        let Ok(sigma) = DensityMatrix::with_options(s.clone(), Tolerance::default(), Backend::Auto)
        else {
            continue;
        };
        let r = undecomposed(&rho);
        assert!(
            maximal_whitened(&r, &sigma).unwrap().is_none(),
            "λ_min = {tiny}"
        );
        let v = Pair::new(&r, &sigma)
            .unwrap()
            .renyi(Family::Maximal, 1.5)
            .unwrap();
        let e = Pair::new(&decomposed(&rho), &decomposed(&s))
            .unwrap()
            .renyi(Family::Maximal, 1.5)
            .unwrap();
        assert!(close(v, e, 1e-12), "λ_min = {tiny}: {v} vs eigen route {e}");
    }
    let sigma = with_spectrum(&[0.25, 0.2, 0.2, 0.15, 0.1, 0.1], 3);
    let (r, s) = (undecomposed(&rho), undecomposed(&sigma));
    let w = maximal_whitened(&r, &s).unwrap().expect("full rank");
    for alpha in [0.3, 0.999, f64::INFINITY] {
        assert_eq!(w.route_bound(alpha, 0.1), f64::INFINITY, "α = {alpha}");
        let pair = Pair::new(&r, &s).unwrap();
        let v = pair.renyi(Family::Maximal, alpha).unwrap();
        let e = Pair::new(&decomposed(&rho), &decomposed(&sigma))
            .unwrap()
            .renyi(Family::Maximal, alpha)
            .unwrap();
        assert!(close(v, e, 1e-12), "α = {alpha}: {v} vs eigen route {e}");
    }
    // α = 1 with ρ of rank 2: t_k ≈ 0 is unresolved, the bound is +∞
    let low = with_spectrum(&[0.6, 0.4, 0.0, 0.0, 0.0, 0.0], 4);
    let (r, s) = (undecomposed(&low), undecomposed(&sigma));
    let pair = Pair::new(&r, &s).unwrap();
    let probe = pair.maximal_whitened_probe(1.0).unwrap().expect("applies");
    assert_eq!(probe.bound, f64::INFINITY);
    assert!(probe.value.is_finite());
    let v = pair.renyi(Family::Maximal, 1.0).unwrap();
    let (rd, sd) = (decomposed(&low), decomposed(&sigma));
    let eigen = Pair::new(&rd, &sd).unwrap();
    let e = eigen.renyi(Family::Maximal, 1.0).unwrap();
    assert!(close(v, e, 1e-12), "α = 1: {v} vs {e}");
    // at α = 1.5 the same pair is certified
    let probe = pair.maximal_whitened_probe(1.5).unwrap().unwrap();
    assert!(probe.bound <= probe.documented, "{probe:?}");
    let bound = accuracy::error_bound(&eigen, Family::Maximal, 1.5, probe.value).unwrap();
    let e = eigen.renyi(Family::Maximal, 1.5).unwrap();
    assert!((probe.value - e).abs() <= bound, "{probe:?} vs {e}");
    // decomposed states: the route does not apply
    assert!(eigen.maximal_whitened_probe(1.5).unwrap().is_none());
}

/// `maximal_whitened_matches_eigen_route`: random pairs (d = 2..16; ρ Hilbert–Schmidt, Bures, of
/// rank ⌈d/2⌉, pure; σ Hilbert–Schmidt or Bures, some mixed with 10⁻⁶ of a pure state) at orders
/// 1 … 10³: the undecomposed pair's value (whitened where certified) agrees with the eigen route's
/// within the documented bound, and the route answers most of them.
#[test]
fn maximal_whitened_matches_eigen_route() {
    matches_eigen_route(&[2, 3, 4, 5, 7, 8, 12, 16], 96, 2211);
}

/// `maximal_whitened_dense_matches_eigen_route`: [`maximal_whitened_matches_eigen_route`] above
/// `WHITENED_MAX` = 16, where the route runs on LAPACK/BLAS (`zpotrf`, `ztrtri`, `ztrmm`, the
/// `Backend::Auto` eigensolver of `T`): d = 17 … 200 (faer's eigensolver from 192).
#[cfg(feature = "openblas")]
#[test]
fn maximal_whitened_dense_matches_eigen_route() {
    matches_eigen_route(&[17, 24, 31, 40, 48, 64, 97, 200], 32, 2213);
}

/// The body of the `…_matches_eigen_route` tests: `cases` random pairs over `dims` (cycled).
fn matches_eigen_route(dims: &[usize], cases: usize, seed: u64) {
    let mut g = rng(seed);
    let alphas = [1.0, 1.001, 1.3, 1.5, 2.0, 3.0, 10.0, 1e3];
    let (mut taken, mut total) = (0, 0);
    for case in 0..cases {
        let d = dims[case % dims.len()];
        let rho = random_state(d, (case / dims.len()) as u8, &mut g);
        let mut sigma = random_full_rank(d, (case / (4 * dims.len())) as u8, &mut g);
        if case % 3 == 2 {
            let p = DensityMatrix::random_pure(d, &mut g).unwrap();
            sigma = DensityMatrix::mixture(&[1e-6, 1.0 - 1e-6], &[sigma, p]).unwrap();
        }
        let (r, s) = (rho.matrix().clone(), sigma.matrix().clone());
        let (rd, sd) = (decomposed(&r), decomposed(&s));
        let eigen = Pair::new(&rd, &sd).unwrap();
        for &alpha in &alphas {
            let (ru, su) = (undecomposed(&r), undecomposed(&s));
            let pair = Pair::new(&ru, &su).unwrap();
            let v = pair.renyi(Family::Maximal, alpha).unwrap();
            if let Some(p) = pair.maximal_whitened_probe(alpha).unwrap() {
                total += 1;
                taken += usize::from(p.bound <= p.documented);
                // where the probe certifies the order, `Pair::renyi` returns the whitened value
                // itself (α = 2 goes to the order-two route first)
                if p.bound <= p.documented && alpha != 2.0 {
                    assert_eq!(
                        v.to_bits(),
                        p.value.to_bits(),
                        "case {case} d={d} α={alpha}: renyi {v} is not the whitened {}",
                        p.value
                    );
                }
            }
            let e = eigen.renyi(Family::Maximal, alpha).unwrap();
            let bound = accuracy::error_bound(&eigen, Family::Maximal, alpha, e).unwrap();
            assert!(
                (v - e).abs() <= bound,
                "case {case} d={d} α={alpha}: {v} vs eigen {e} (bound {bound:e})"
            );
        }
    }
    eprintln!("whitened route taken at {taken} of {total} orders");
    assert!(taken * 10 >= total * 7, "taken {taken} of {total}");
}

/// `maximal_whitened_properties`: on random full-rank pairs (single calls through the whitened
/// route where it certifies the order; curves through it from `WHITENED_CURVE_FROM` = 9), data
/// processing `D̂_α(Φρ‖Φσ) ≤ D̂_α(ρ‖σ)` under random channels (α ∈ [1, 2], where it holds) and
/// monotonicity in α along a curve and across single calls, each up to the documented bounds.
#[test]
fn maximal_whitened_properties() {
    let mut g = rng(2212);
    let alphas = [1.0, 1.01, 1.2, 1.5, 1.8, 2.0, 2.5, 5.0, 20.0];
    for case in 0..48 {
        let d = [2, 3, 4, 6, 8, 16, 24, 40][case % 8];
        let rho = random_full_rank(d, case as u8, &mut g);
        let sigma = random_full_rank(d, (case / 2) as u8, &mut g);
        let (r, s) = (rho.matrix().clone(), sigma.matrix().clone());
        let (ru, su) = (undecomposed(&r), undecomposed(&s));
        let pair = Pair::new(&ru, &su).unwrap();
        let curve = pair.curve(Family::Maximal, &alphas).unwrap();
        let (rd, sd) = (decomposed(&r), decomposed(&s));
        let eigen = Pair::new(&rd, &sd).unwrap();
        let bounds: Vec<f64> = alphas
            .iter()
            .zip(&curve)
            .map(|(&a, &v)| accuracy::error_bound(&eigen, Family::Maximal, a, v).unwrap())
            .collect();
        for k in 1..alphas.len() {
            assert!(
                curve[k - 1] <= curve[k] + bounds[k - 1] + bounds[k],
                "case {case} d={d}: D at {} = {} > D at {} = {}",
                alphas[k - 1],
                curve[k - 1],
                alphas[k],
                curve[k]
            );
            let single = Pair::new(&undecomposed(&r), &undecomposed(&s))
                .unwrap()
                .renyi(Family::Maximal, alphas[k])
                .unwrap();
            assert!(
                single >= curve[k - 1] - bounds[k - 1] - bounds[k],
                "case {case}"
            );
        }
        let out = [d, (d / 2).max(1), d + 1][case % 3];
        let channel = random_channel(d, out, 2, &mut g);
        let (pr, ps) = (rho.apply(&channel).unwrap(), sigma.apply(&channel).unwrap());
        let (pr, ps) = (undecomposed(pr.matrix()), undecomposed(ps.matrix()));
        let after = Pair::new(&pr, &ps).unwrap();
        let (prd, psd) = (decomposed(pr.matrix()), decomposed(ps.matrix()));
        let after_eigen = Pair::new(&prd, &psd).unwrap();
        for (k, &alpha) in alphas.iter().enumerate().filter(|(_, &a)| a <= 2.0) {
            let v = after.renyi(Family::Maximal, alpha).unwrap();
            if !v.is_finite() {
                continue;
            }
            let b = accuracy::error_bound(&after_eigen, Family::Maximal, alpha, v).unwrap();
            assert!(
                v <= curve[k] + bounds[k] + b,
                "case {case} d={d}→{out} α={alpha}: after {v} > before {}",
                curve[k]
            );
        }
    }
}
