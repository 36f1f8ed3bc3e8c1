//! The sandwiched orders α > 1 of two raw matrices at `d ≤ 16` on stack arrays
//! (`divergence::sandwiched_from_raw`, the in-process Python call's route; docs/divergences.md
//! "sandwiched_from_raw"): against mpmath references (`tests/reference/sandwiched_from_raw.json`,
//! `factor_congruence.json`) and against the library's route (`states_from_matrices` with ρ
//! checked by Cholesky and σ decomposed, then `Pair::renyi`) within the documented bound
//! (`divergence::accuracy::error_bound`), and declining — `None`, the library's route then
//! decides and words the error — wherever the answer could differ otherwise.

mod common;

use common::*;
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{accuracy, sandwiched_from_raw, Check, Family, Pair};
use qrenyi::state::{DensityMatrix, Tolerance};

/// The library's value for the pair and its documented bound.
fn library(rho: &Array2<Complex64>, sigma: &Array2<Complex64>, alpha: f64, at: f64) -> (f64, f64) {
    let (r, s) = states_checked(rho, sigma, (Check::Cholesky, Check::Decomposed));
    let pair = Pair::new(&r, &s).unwrap();
    let value = pair.renyi(Family::Sandwiched, alpha).unwrap();
    let bound = accuracy::error_bound(&pair, Family::Sandwiched, alpha, at).unwrap();
    (value, bound)
}

fn raw(rho: &Array2<Complex64>, sigma: &Array2<Complex64>, alpha: f64) -> Option<f64> {
    sandwiched_from_raw(rho.view(), sigma.view(), alpha, Tolerance::default())
}

/// `sandwiched_from_raw_reference`: every fixture pair (d = 3 … 16: ill-conditioned, rank-deficient
/// and pure ρ beside σ with κ up to 10¹⁰) is taken by the route and agrees with mpmath at 60 digits
/// within the documented bound.
#[test]
fn sandwiched_from_raw_reference() {
    let mut dims = Vec::new();
    for file in ["sandwiched_from_raw.json", "factor_congruence.json"] {
        for (what, rho, sigma, orders) in sandwiched_fixture(file) {
            dims.push(rho.nrows());
            for (alpha, reference) in orders {
                let value = raw(&rho, &sigma, alpha)
                    .unwrap_or_else(|| panic!("{file}, {what}, α = {alpha}: the route declined"));
                let (_, bound) = library(&rho, &sigma, alpha, reference);
                within_bound(
                    &format!("{what}, α = {alpha}: vs mpmath"),
                    value,
                    reference,
                    bound,
                );
            }
        }
    }
    for d in [3, 4, 7, 8, 10, 12, 13, 16] {
        assert!(dims.contains(&d), "no fixture at d = {d}");
    }
}

/// `sandwiched_from_raw_agrees_with_pair`: random pairs at every `d = 1 … 16` (Hilbert–Schmidt,
/// Bures, rank ⌈d/2⌉ and pure ρ; full-rank σ, also with κ = 10¹⁰) at orders from just above 1 to
/// 10⁶: the route answers and agrees with the library's value within the documented bound.
#[test]
fn sandwiched_from_raw_agrees_with_pair() {
    let mut g = rng(20_261_124);
    for d in 1..=16usize {
        for kind in 0..4u8 {
            let rho = random_state(d, kind, &mut g).matrix().clone();
            let sigma = if kind == 3 && d > 1 {
                let l: Vec<f64> = (0..d)
                    .map(|k| 10f64.powf(-10.0 * k as f64 / (d - 1) as f64))
                    .collect();
                let t: f64 = l.iter().sum();
                with_spectrum(&l.iter().map(|x| x / t).collect::<Vec<_>>(), 77 + d as u64)
            } else {
                random_full_rank(d, kind, &mut g).matrix().clone()
            };
            for alpha in [1.0 + 1e-9, 1.5, 2.0, 3.7, 10.0, 1e6] {
                let what = format!("d = {d}, kind {kind}, α = {alpha}");
                let value = raw(&rho, &sigma, alpha).unwrap_or_else(|| panic!("{what}: declined"));
                let (want, bound) = library(&rho, &sigma, alpha, value);
                within_bound(&what, value, want, bound);
            }
        }
    }
}

/// `sandwiched_from_raw_declines`: orders not finite `> 1`, dimensions above 16, shapes that do
/// not match, inputs validation rejects (not Hermitian, trace ≠ 1, a negative eigenvalue beyond the
/// tolerance, non-finite entries) and a rank-deficient σ all answer `None` (the library's route
/// then decides, with its own error message).
#[test]
fn sandwiched_from_raw_declines() {
    let mut g = rng(99);
    let hs = |d: usize, g: &mut _| {
        DensityMatrix::random_hilbert_schmidt(d, d, g)
            .unwrap()
            .matrix()
            .clone()
    };
    let (r, s) = (hs(6, &mut g), hs(6, &mut g));
    assert!(raw(&r, &s, 1.5).is_some());
    for alpha in [1.0, 0.5, f64::INFINITY, f64::NAN, -2.0] {
        assert!(raw(&r, &s, alpha).is_none(), "α = {alpha}");
    }
    assert!(
        raw(&hs(17, &mut g), &hs(17, &mut g), 1.5).is_none(),
        "d = 17"
    );
    assert!(raw(&r, &hs(5, &mut g), 1.5).is_none(), "shapes");
    let mut skew = r.clone();
    skew[[0, 1]] += Complex64::new(1e-3, 0.0);
    let mut heavy = r.clone();
    heavy[[0, 0]] += Complex64::new(1e-3, 0.0);
    let negative = with_spectrum(&[0.3, 0.3, 0.2, 0.2, 0.01, -0.01], 5);
    let mut nan = r.clone();
    nan[[2, 3]] = Complex64::new(f64::NAN, 0.0);
    for (what, bad) in [
        ("skew", &skew),
        ("trace", &heavy),
        ("negative", &negative),
        ("NaN", &nan),
    ] {
        assert!(raw(bad, &s, 1.5).is_none(), "ρ {what}");
        assert!(raw(&r, bad, 1.5).is_none(), "σ {what}");
    }
    // σ of rank 3: the support decision needs λ_max(ρ)
    let deficient = with_spectrum(&[0.5, 0.3, 0.2, 0.0, 0.0, 0.0], 6);
    assert!(raw(&r, &deficient, 1.5).is_none(), "rank-deficient σ");
    // a ρ whose rounding-level Cholesky fails (λ_min = −1e-12 below −τ ≈ −2e-14) but which
    // validation accepts (within the tolerance ≈ 2.4e-10): the library's route decides
    let slightly = with_spectrum(&[0.3, 0.3, 0.2, 0.2 + 1e-12, 0.0, -1e-12], 7);
    assert!(DensityMatrix::new(slightly.clone()).is_ok());
    assert!(raw(&slightly, &s, 1.5).is_none(), "ρ not PSD to rounding");
}
