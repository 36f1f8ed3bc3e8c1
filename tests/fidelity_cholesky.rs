//! The root fidelity by two Cholesky factors (docs/divergences.md, "fidelity_cholesky"):
//! `F = Σ_k s_k(L_ρ†L_σ)`, taken only where both states are certified of full rank and the
//! route's a-posteriori bound is within the documented bound. Against mpmath at 60 digits
//! (`tests/reference/generate_fidelity_cholesky.py` → `fidelity_cholesky.json`), where it must
//! decline, and its identities.

mod common;
use common::*;
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::fidelity::fidelity_cholesky;
use qrenyi::divergence::{Check, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::{DensityMatrix, Tolerance};

/// A state validated by Cholesky (not decomposed) on `Backend::Auto`.
fn undecomposed(m: &Array2<Complex64>) -> DensityMatrix {
    DensityMatrix::with_options(m.clone(), Tolerance::default(), Backend::Auto).unwrap()
}

/// `fidelity_cholesky_reference`: every fixture pair — undecomposed states (the Cholesky route
/// where it certifies, else the eigen route), the Python package's states (both checked by
/// Cholesky for the fidelity at d ≤ 16), and decomposed states (the eigen route) — within the
/// documented bound of the mpmath value; where the route answers, its own a-posteriori bound
/// covers the error too, and `Pair::fidelity` returns its value bit for bit. The route answers
/// every full-rank pair of κ ≤ 10⁶ and declines the near-singular σ (eigenvalue 10⁻¹⁴) and the
/// rank-deficient and pure states.
#[test]
fn fidelity_cholesky_reference() {
    let text = std::fs::read_to_string("tests/reference/fidelity_cholesky.json").unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (mut taken, mut total) = (0, 0);
    for case in json["cases"].as_array().unwrap() {
        let what = case["what"].as_str().unwrap();
        let (r, s) = (stored_matrix(&case["rho"]), stored_matrix(&case["sigma"]));
        let want = case["value"].as_f64().unwrap();
        let bound = case["bound"].as_f64().unwrap();
        let (ru, su) = (undecomposed(&r), undecomposed(&s));
        let route = fidelity_cholesky(&ru, &su);
        let f = Pair::new(&ru, &su).unwrap().fidelity().unwrap();
        total += 1;
        if let Some(c) = route.and_then(|c| c.certified().map(|v| (v, c.bound))) {
            taken += 1;
            assert_eq!(
                f.to_bits(),
                c.0.to_bits(),
                "{what}: Pair::fidelity is the route's"
            );
            assert!(
                (c.0 - want).abs() <= c.1,
                "{what}: route {:e} vs {want:e}, error {:e} > own bound {:e}",
                c.0,
                (c.0 - want).abs(),
                c.1
            );
        }
        let must_decline = what.starts_with("near-singular")
            || what.starts_with("rho rank")
            || what.starts_with("pure");
        if must_decline {
            assert!(
                route.and_then(|c| c.certified()).is_none(),
                "{what}: the route must decline"
            );
        }
        assert!(
            (f - want).abs() <= bound,
            "{what}: {f:e} vs {want:e} (bound {bound:e})"
        );
        let (rp, sp) = states_checked(&r, &s, (Check::Cholesky, Check::Cholesky));
        let fp = Pair::new(&rp, &sp).unwrap().fidelity().unwrap();
        assert!(
            (fp - want).abs() <= bound,
            "{what}: Python states {fp:e} vs {want:e}"
        );
        let (rd, sd) = states_checked(&r, &s, (Check::Decomposed, Check::Decomposed));
        let fd = Pair::new(&rd, &sd).unwrap().fidelity().unwrap();
        assert!(
            (fd - want).abs() <= bound,
            "{what}: eigen route {fd:e} vs {want:e}"
        );
        let kappa = case["kappa"].as_f64().unwrap();
        if !must_decline && kappa <= 1e6 && !what.starts_with("rho = sigma") {
            assert!(
                route.and_then(|c| c.certified()).is_some(),
                "{what}: declined"
            );
        }
    }
    assert!(taken * 2 >= total, "the route answered {taken} of {total}");
}

/// `fidelity_cholesky_properties`: on random full-rank pairs d = 2…16 (Hilbert–Schmidt, and
/// graded spectra up to κ = 10⁸), where the route answers: `F ≤ 1` (to its bound), symmetry
/// `F(ρ, σ) = F(σ, ρ)` within the two bounds, `F(ρ, ρ) = 1` within the bound, agreement with the
/// eigen route on decomposed states within the sum of the documented bound and the route's.
#[test]
fn fidelity_cholesky_properties() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2311);
    let (mut taken, mut total) = (0, 0);
    for case in 0..120 {
        let d = 2 + case % 15;
        let (r, s) = if case % 3 == 0 {
            let kappa = 10f64.powi(2 + (case % 7) as i32);
            let spec = |k: usize| kappa.powf(-(k as f64) / (d - 1) as f64);
            let a: Vec<f64> = (0..d).map(spec).collect();
            (with_spectrum(&a, &mut rng), with_spectrum(&a, &mut rng))
        } else {
            (
                DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap(),
                DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap(),
            )
        };
        let (r, s) = (undecomposed(r.matrix()), undecomposed(s.matrix()));
        total += 1;
        let (Some(a), Some(b)) = (fidelity_cholesky(&r, &s), fidelity_cholesky(&s, &r)) else {
            continue;
        };
        let (Some(fa), Some(fb)) = (a.certified(), b.certified()) else {
            continue;
        };
        taken += 1;
        assert!(fa <= 1.0 + a.bound, "case {case} d={d}: F = {fa}");
        assert!(
            (fa - fb).abs() <= a.bound + b.bound,
            "case {case}: {fa} vs {fb}"
        );
        if let Some(same) =
            fidelity_cholesky(&r, &r).and_then(|c| c.certified().map(|v| (v, c.bound)))
        {
            assert!(
                (same.0 - 1.0).abs() <= same.1,
                "case {case}: F(ρ,ρ) = {}",
                same.0
            );
        }
        let rd = DensityMatrix::with_options_decomposed(
            r.matrix().clone(),
            Tolerance::default(),
            Backend::Auto,
        )
        .unwrap();
        let sd = DensityMatrix::with_options_decomposed(
            s.matrix().clone(),
            Tolerance::default(),
            Backend::Auto,
        )
        .unwrap();
        let fe = Pair::new(&rd, &sd).unwrap().fidelity().unwrap();
        assert!(
            (fa - fe).abs() <= a.bound + a.documented,
            "case {case} d={d}: route {fa} vs eigen {fe}"
        );
    }
    assert!(taken * 4 >= total * 3, "answered {taken} of {total}");
}

/// `U diag(λ/Σλ) U†` for a Haar-random `U`.
fn with_spectrum(lambda: &[f64], rng: &mut rand_chacha::ChaCha8Rng) -> DensityMatrix {
    let d = lambda.len();
    let total: f64 = lambda.iter().sum();
    let u = qrenyi::state::haar_unitary(d, rng);
    let m = Array2::from_shape_fn((d, d), |(i, j)| {
        (0..d)
            .map(|k| u[[i, k]] * u[[j, k]].conj() * (lambda[k] / total))
            .sum::<Complex64>()
    });
    let m = (&m + &m.t().mapv(|z| z.conj())).mapv(|z| z * 0.5);
    DensityMatrix::new(m).unwrap()
}
