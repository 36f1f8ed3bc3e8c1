//! Property tests of the known theorems on random states and channels (proptest).
//!
//! Each property is a theorem about quantum Rényi divergences; the random ensembles include
//! full-rank, Bures, low-rank and pure states, so supports and +∞ conventions are exercised.

mod common;

use common::*;
use proptest::prelude::*;
use qrenyi::divergence::{classical, Family, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::{haar_unitary, DensityMatrix};

const ALPHAS: [f64; 9] = [0.3, 0.5, 0.75, 0.99, 1.0, 1.01, 1.5, 2.0, 5.0];

fn config() -> ProptestConfig {
    proptest_config(24)
}

fn curve(rho: &DensityMatrix, sigma: &DensityMatrix, f: Family, alphas: &[f64]) -> Vec<f64> {
    Pair::new(rho, sigma).unwrap().curve(f, alphas).unwrap()
}

proptest! {
    #![proptest_config(config())]

    /// `curve_equals_single_calls`: `Pair::curve` (Petz: one matrix product for all orders;
    /// sandwiched: orders in parallel) returns what one `renyi` call per order returns — the same
    /// bits for sandwiched and maximal; for Petz to rounding (a curve's matrix product may sum in
    /// another order than one order's) — with the limits α = 1 and ∞ placed among finite orders.
    #[test]
    fn curve_equals_single_calls(seed in any::<u64>(), d in 2usize..7, k1 in 0u8..4, k2 in 0u8..4) {
        let mut r = rng(seed);
        let (rho, sigma) = (random_state(d, k1, &mut r), random_state(d, k2, &mut r));
        let orders = [0.3, 1.0, 0.999, 2.0, f64::INFINITY, 1.0 + 1e-9, 7.5, 0.5];
        for f in Family::ALL {
            let pair = Pair::new(&rho, &sigma).unwrap();
            let c = pair.curve(f, &orders).unwrap();
            for (&a, v) in orders.iter().zip(c) {
                let single = Pair::new(&rho, &sigma).unwrap().renyi(f, a).unwrap();
                let same = if f == Family::Petz { close(v, single, 1e-13) } else { v.to_bits() == single.to_bits() };
                prop_assert!(same, "{f:?} α = {a}: curve {v} vs single {single}");
            }
        }
    }

    /// D_α(UρU†‖UσU†) = D_α(ρ‖σ) for every family and order.
    #[test]
    fn unitary_invariance(seed in any::<u64>(), d in 2usize..6, k1 in 0u8..4, k2 in 0u8..2) {
        let mut r = rng(seed);
        let (rho, sigma) = (random_state(d, k1, &mut r), random_full_rank(d, k2, &mut r));
        let u = haar_unitary(d, &mut r);
        let (ru, su) = (rho.conjugate(&u).unwrap(), sigma.conjugate(&u).unwrap());
        for f in Family::ALL {
            for (a, b) in curve(&rho, &sigma, f, &ALPHAS).into_iter().zip(curve(&ru, &su, f, &ALPHAS)) {
                prop_assert!(close(a, b, 1e-8), "{f:?}: {a} vs {b}");
            }
        }
    }

    /// D_α(ρ₁⊗ρ₂‖σ₁⊗σ₂) = D_α(ρ₁‖σ₁) + D_α(ρ₂‖σ₂).
    #[test]
    fn additivity_under_tensor_product(seed in any::<u64>(), d1 in 2usize..4, d2 in 2usize..4, k in 0u8..4) {
        let mut r = rng(seed);
        // σ well-conditioned: the tensor product's smallest eigenvalues are products, and at
        // 1e-11 · 1e-11 the α < 1 values are sensitive far beyond the 1e-8 tolerance to rounding
        let (r1, s1) = (random_state(d1, k, &mut r), well_conditioned(&random_full_rank(d1, k, &mut r)));
        let (r2, s2) = (random_state(d2, k + 1, &mut r), well_conditioned(&random_full_rank(d2, k + 1, &mut r)));
        let (rt, st) = (r1.tensor(&r2).unwrap(), s1.tensor(&s2).unwrap());
        for f in Family::ALL {
            let (c1, c2, ct) = (curve(&r1, &s1, f, &ALPHAS), curve(&r2, &s2, f, &ALPHAS), curve(&rt, &st, f, &ALPHAS));
            for i in 0..ALPHAS.len() {
                prop_assert!(close(c1[i] + c2[i], ct[i], 1e-8), "{f:?} α={}: {} + {} vs {}", ALPHAS[i], c1[i], c2[i], ct[i]);
            }
        }
    }

    /// α ↦ D_α is nondecreasing for each family (Beigi 2013; Müller-Lennert et al. 2013; Tomamichel 2016).
    #[test]
    fn monotonicity_in_alpha(seed in any::<u64>(), d in 2usize..6, k1 in 0u8..4, k2 in 0u8..4) {
        let mut r = rng(seed);
        let (rho, sigma) = (random_state(d, k1, &mut r), random_state(d, k2, &mut r));
        let alphas = [0.1, 0.3, 0.5, 0.75, 0.999_999, 1.0, 1.000_001, 1.3, 2.0, 3.0, 10.0, 100.0, f64::INFINITY];
        for f in Family::ALL {
            let c = curve(&rho, &sigma, f, &alphas);
            for w in c.windows(2) {
                prop_assert!(leq(w[0], w[1], 1e-9), "{f:?}: {:?}", c);
            }
        }
    }

    /// D̃_α ≤ D̄_α ≤ D̂_α for α ∈ (1, 2] (Araki–Lieb–Thirring; maximality of D̂ among divergences with
    /// data processing, Matsumoto 2018), and D̃_α ≤ D̄_α for all α (ALT), D̃_α ≤ D̂_α for α ≥ ½.
    #[test]
    fn ordering_between_families(seed in any::<u64>(), d in 2usize..6, k1 in 0u8..4, k2 in 0u8..2) {
        let mut r = rng(seed);
        let (rho, sigma) = (random_state(d, k1, &mut r), random_full_rank(d, k2, &mut r));
        let alphas = [0.5, 0.8, 1.0, 1.2, 1.5, 2.0, 3.0, 8.0];
        let (s, p, m) = (curve(&rho, &sigma, Family::Sandwiched, &alphas),
                         curve(&rho, &sigma, Family::Petz, &alphas),
                         curve(&rho, &sigma, Family::Maximal, &alphas));
        for i in 0..alphas.len() {
            prop_assert!(leq(s[i], p[i], 1e-9), "sandwiched {} > petz {} at α={}", s[i], p[i], alphas[i]);
            prop_assert!(leq(s[i], m[i], 1e-9), "sandwiched {} > maximal {} at α={}", s[i], m[i], alphas[i]);
            if alphas[i] > 1.0 && alphas[i] <= 2.0 {
                prop_assert!(leq(p[i], m[i], 1e-9), "petz {} > maximal {} at α={}", p[i], m[i], alphas[i]);
            }
        }
    }

    /// Data processing D_α(Φ(ρ)‖Φ(σ)) ≤ D_α(ρ‖σ) under random channels, in each family's valid
    /// range: sandwiched α ≥ ½ (Frank–Lieb 2013, Beigi 2013), Petz α ∈ [0, 2] (Petz 1986),
    /// maximal α ∈ (0, 2] (Matsumoto 2018).
    #[test]
    fn data_processing(seed in any::<u64>(), d in 2usize..5, dout in 2usize..5, kraus in 1usize..4, k1 in 0u8..4, k2 in 0u8..4) {
        let mut r = rng(seed);
        let (rho, sigma) = (random_state(d, k1, &mut r), random_state(d, k2, &mut r));
        let ch = random_channel(d, dout, kraus, &mut r);
        let (pr, ps) = (rho.apply(&ch).unwrap(), sigma.apply(&ch).unwrap());
        for (f, alphas) in [
            (Family::Sandwiched, vec![0.5, 0.7, 1.0, 1.5, 2.0, 4.0, 20.0, f64::INFINITY]),
            (Family::Petz, vec![0.0, 0.3, 0.5, 1.0, 1.5, 2.0]),
            (Family::Maximal, vec![0.2, 0.5, 1.0, 1.5, 2.0]),
        ] {
            let (before, after) = (curve(&rho, &sigma, f, &alphas), curve(&pr, &ps, f, &alphas));
            for i in 0..alphas.len() {
                prop_assert!(leq(after[i], before[i], 1e-8), "{f:?} α={}: {} > {}", alphas[i], after[i], before[i]);
            }
        }
    }

    /// The LAPACK and nalgebra backends agree on every family and on the hockey-stick divergence.
    #[test]
    fn backends_agree(seed in any::<u64>(), d in 2usize..7, k1 in 0u8..4, k2 in 0u8..4) {
        let mut r = rng(seed);
        let (rho, sigma) = (random_state(d, k1, &mut r), random_state(d, k2, &mut r));
        let (rn, sn) = (rho.with_backend(Backend::Nalgebra).unwrap(), sigma.with_backend(Backend::Nalgebra).unwrap());
        // LAPACK named explicitly: the default (Auto) is nalgebra at these sizes
        let lapack = if cfg!(feature = "openblas") { Backend::Lapack } else { Backend::Nalgebra };
        let (rl, sl) = (rho.with_backend(lapack).unwrap(), sigma.with_backend(lapack).unwrap());
        for f in Family::ALL {
            for (a, b) in curve(&rl, &sl, f, &ALPHAS).into_iter().zip(curve(&rn, &sn, f, &ALPHAS)) {
                prop_assert!(close(a, b, 1e-8), "{f:?}: lapack {a} vs nalgebra {b}");
            }
        }
        let (pl, pn) = (Pair::new(&rl, &sl).unwrap(), Pair::new(&rn, &sn).unwrap());
        prop_assert!(close(pl.hockey_stick(1.5).unwrap(), pn.hockey_stick(1.5).unwrap(), 1e-10));
        prop_assert!(close(pl.max_relative_entropy().unwrap(), pn.max_relative_entropy().unwrap(), 1e-8));
    }

    /// Commuting (classical) pairs give the classical Rényi divergence in every family, and
    /// D_∞ = D_max, KL = Umegaki = D_BS.
    #[test]
    fn commuting_pairs_are_classical(seed in any::<u64>(), d in 2usize..7, zeros in 0usize..3) {
        let mut r = rng(seed);
        let mut p: Vec<f64> = (0..d).map(|_| rand::Rng::random::<f64>(&mut r)).collect();
        let q: Vec<f64> = (0..d).map(|_| rand::Rng::random::<f64>(&mut r) + 0.01).collect();
        for x in p.iter_mut().take(zeros.min(d - 1)) { *x = 0.0; }
        let (sp, sq) = (p.iter().sum::<f64>(), q.iter().sum::<f64>());
        let (p, q): (Vec<f64>, Vec<f64>) = (p.iter().map(|x| x / sp).collect(), q.iter().map(|x| x / sq).collect());
        let u = haar_unitary(d, &mut r);
        let rho = DensityMatrix::diagonal(&p).unwrap().conjugate(&u).unwrap();
        let sigma = DensityMatrix::diagonal(&q).unwrap().conjugate(&u).unwrap();
        let expected = classical::renyi_curve(&p, &q, &ALPHAS).unwrap();
        for f in Family::ALL {
            for (a, b) in curve(&rho, &sigma, f, &ALPHAS).into_iter().zip(&expected) {
                prop_assert!(close(a, *b, 1e-8), "{f:?}: {a} vs classical {b}");
            }
        }
        let pair = Pair::new(&rho, &sigma).unwrap();
        prop_assert!(close(pair.max_relative_entropy().unwrap(), classical::max_divergence(&p, &q).unwrap(), 1e-8));
        prop_assert!(close(pair.belavkin_staszewski().unwrap(), classical::kl(&p, &q).unwrap(), 1e-8));
        prop_assert!(close(pair.hockey_stick(2.0).unwrap(), classical::hockey_stick(&p, &q, 2.0).unwrap(), 1e-10));
    }

    /// Identities: D_α(ρ‖ρ) = 0, F = exp(−D̃_½), E_1 = trace distance, D̂_2 = D̄_2 (both Tr ρ²σ⁻¹),
    /// and continuity through α = 1 (the stable evaluation keeps D_{1±10⁻⁹} within 10⁻⁸ of D_1).
    #[test]
    fn identities_and_limits(seed in any::<u64>(), d in 2usize..6, k1 in 0u8..4, k2 in 0u8..2) {
        let mut r = rng(seed);
        let (rho, sigma) = (random_state(d, k1, &mut r), random_full_rank(d, k2, &mut r));
        let same = Pair::new(&rho, &rho).unwrap();
        // documented accuracy for α > 1: absolute error ≲ 16·d·ε·‖ρ‖/λ_min(σ) (docs/conventions.md)
        let lmin = rho.eigen().unwrap().values()[0].max(1e-300);
        let bound = 1e-12 + 16.0 * d as f64 * f64::EPSILON / lmin;
        for f in Family::ALL {
            for v in same.curve(f, &[0.5, 1.0, 2.0, f64::INFINITY]).unwrap() {
                prop_assert!(v.abs() < bound, "{f:?}: D(ρ‖ρ) = {v}, bound {bound}");
            }
        }
        let pair = Pair::new(&rho, &sigma).unwrap();
        let dhalf = pair.renyi(Family::Sandwiched, 0.5).unwrap();
        prop_assert!(close(pair.squared_fidelity().unwrap(), (-dhalf).exp(), 1e-10));
        prop_assert!(close(pair.fidelity().unwrap(), (-dhalf / 2.0).exp(), 1e-10));
        prop_assert!(close(pair.hockey_stick(1.0).unwrap(), pair.trace_distance().unwrap(), 1e-10));
        prop_assert!(close(pair.renyi(Family::Maximal, 2.0).unwrap(), pair.renyi(Family::Petz, 2.0).unwrap(), 1e-8));
        for f in Family::ALL {
            let c = pair.curve(f, &[1.0 - 1e-9, 1.0, 1.0 + 1e-9]).unwrap();
            prop_assert!(close(c[0], c[1], 1e-8) && close(c[2], c[1], 1e-8), "{f:?}: {:?}", c);
        }
    }

    /// Classical sanity: δ-approximate max divergence is nonincreasing in δ and equals D_∞ at δ = 0,
    /// and D_∞^δ ≤ ε ⇔ E_{e^ε} ≤ δ.
    #[test]
    fn approx_max_divergence_matches_hockey_stick(seed in any::<u64>(), n in 2usize..8, delta in 0.0f64..0.5) {
        let mut r = rng(seed);
        let p: Vec<f64> = { let v: Vec<f64> = (0..n).map(|_| rand::Rng::random::<f64>(&mut r)).collect(); let s: f64 = v.iter().sum(); v.iter().map(|x| x / s).collect() };
        let q: Vec<f64> = { let v: Vec<f64> = (0..n).map(|_| rand::Rng::random::<f64>(&mut r) + 0.05).collect(); let s: f64 = v.iter().sum(); v.iter().map(|x| x / s).collect() };
        let e = classical::approx_max_divergence(&p, &q, delta).unwrap();
        prop_assert!(close(classical::approx_max_divergence(&p, &q, 0.0).unwrap(), classical::max_divergence(&p, &q).unwrap(), 1e-12));
        prop_assert!(e <= classical::approx_max_divergence(&p, &q, delta / 2.0).unwrap() + 1e-12);
        if e.is_finite() {
            let hs = classical::hockey_stick(&p, &q, e.exp()).unwrap();
            prop_assert!(hs <= delta + 1e-12, "E_(e^ε) = {hs} > δ = {delta}");
            let hs2 = classical::hockey_stick(&p, &q, (e - 1e-6).exp()).unwrap();
            prop_assert!(hs2 > delta - 1e-12, "ε not minimal: {hs2} ≤ {delta}");
        }
    }
}

/// Regression (found by the benchmark engineer): maximal α < 1 when ρ leaks out of supp σ and its
/// absolutely continuous part vanishes must be +∞, not Schur-complement noise. Two generic rank-r
/// states in d = 2r have supports meeting only in {0}, so ρ_ac = 0.
#[test]
fn maximal_below_one_with_vanishing_absolutely_continuous_part_is_infinite() {
    let mut r = rng(2024);
    for (d, rank) in [(4usize, 2usize), (16, 8), (64, 32)] {
        let rho = DensityMatrix::random_hilbert_schmidt(d, rank, &mut r).unwrap();
        let sigma = DensityMatrix::random_hilbert_schmidt(d, rank, &mut r).unwrap();
        let pair = Pair::new(&rho, &sigma).unwrap();
        for a in [0.3, 0.5, 0.9] {
            assert_eq!(
                pair.renyi(Family::Maximal, a).unwrap(),
                f64::INFINITY,
                "d={d} α={a}"
            );
        }
        // the other families stay finite for α < 1 (the supports are not orthogonal)
        assert!(pair.renyi(Family::Petz, 0.5).unwrap().is_finite());
        assert!(pair.renyi(Family::Sandwiched, 0.5).unwrap().is_finite());
    }
}
