//! Property tests of the privacy theorems (proptest, few cases: each case is cheap).

mod common;

use proptest::prelude::*;
use qrenyi::divergence::{Family, Pair};
use qrenyi::privacy::composition::{compare, compose_qzcdp_tensor, kov_epsilon};
use qrenyi::privacy::conversion::{
    bounded_divergence_bound, bounded_divergence_tight, qzcdp_quantum_delta, rdp_curve_delta,
    rdp_delta, zcdp_delta, zcdp_epsilon,
};
use qrenyi::privacy::mechanisms::{Gaussian, Laplace, Mechanism, RandomizedResponse};
use qrenyi::privacy::qzcdp::{CertifyOptions, Neighbours, Status};
use qrenyi::privacy::{Qzcdp, Rdp, RdpCurve, Zcdp};
use qrenyi::state::DensityMatrix;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn states(seed: u64, d: usize) -> (DensityMatrix, DensityMatrix) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (
        DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap(),
        DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap(),
    )
}

proptest! {
    #![proptest_config(common::proptest_config(32))]

    /// The optimised zCDP δ is no larger than the bound at any single order (the optimiser works)
    /// and never below the exact Gaussian profile (the conversion is sound on a tight mechanism).
    #[test]
    fn zcdp_delta_is_optimal_and_sound(rho in 1e-4f64..5.0, eps in 0.0f64..5.0, a in 1.0001f64..200.0) {
        let z = Zcdp::from_rho(rho).unwrap();
        let best = zcdp_delta(z, eps).unwrap().value;
        let single = rdp_delta(Rdp::new(a, rho * a).unwrap(), eps).unwrap();
        prop_assert!(best <= single * (1.0 + 1e-12) + 1e-300);
        let g = Gaussian::new((0.5 / rho).sqrt(), 1.0).unwrap();
        prop_assert!(best >= g.delta(eps).unwrap() * (1.0 - 1e-9));
    }

    /// ε(δ) and δ(ε) are inverse: δ(ε(δ)) ≤ δ.
    #[test]
    fn zcdp_epsilon_inverts_delta(rho in 1e-4f64..5.0, ld in -20.0f64..-0.1) {
        let z = Zcdp::from_rho(rho).unwrap();
        let d = 10f64.powf(ld);
        let e = zcdp_epsilon(z, d).unwrap().value;
        prop_assert!(zcdp_delta(z, e).unwrap().value <= d * (1.0 + 1e-9));
    }

    /// Conversions from exact RDP curves never undercut the exact privacy profile.
    #[test]
    fn mechanism_conversions_are_sound(e0 in 0.05f64..4.0, eps in 0.0f64..3.0) {
        let orders = RdpCurve::STANDARD_ORDERS;
        let lap = Laplace::new(1.0 / e0, 1.0).unwrap();
        let rr = RandomizedResponse::new(e0).unwrap();
        for m in [&lap as &dyn Mechanism, &rr] {
            let c = m.rdp_curve(&orders).unwrap();
            prop_assert!(rdp_curve_delta(&c, eps).unwrap().value >= m.delta(eps).unwrap() * (1.0 - 1e-12));
        }
    }

    /// Seed 000 Theorem 22 and its tight form on random quantum pairs:
    /// D̂_α ≤ tight(ε, α) ≤ ½ε²α with ε = max(D_max(ρ‖σ), D_max(σ‖ρ)); and D̃_α ≤ D̂_α.
    #[test]
    fn bounded_divergence_bound_quantum(seed in any::<u64>(), a in 1.01f64..20.0) {
        let (r, s) = states(seed, 3);
        let (p, q) = (Pair::new(&r, &s).unwrap(), Pair::new(&s, &r).unwrap());
        let eps = p.max_relative_entropy().unwrap().max(q.max_relative_entropy().unwrap());
        let dmax = p.renyi(Family::Maximal, a).unwrap();
        let dsand = p.renyi(Family::Sandwiched, a).unwrap();
        let tight = bounded_divergence_tight(eps, a).unwrap();
        prop_assert!(dmax <= tight * (1.0 + 1e-9) + 1e-12, "D̂ {dmax} > tight {tight}");
        prop_assert!(tight <= bounded_divergence_bound(eps, a).unwrap());
        prop_assert!(dsand <= dmax * (1.0 + 1e-9) + 1e-12, "D̃ {dsand} > D̂ {dmax}");
    }

    /// qzCDP → quantum (ε, δ) is sound: the converted δ dominates the exact hockey-stick.
    #[test]
    fn quantum_conversion_sound(seed in any::<u64>(), eps in 0.0f64..2.0) {
        let (r, s) = states(seed, 2);
        let nb = Neighbours::quantum(r.clone(), s.clone()).unwrap();
        let fit = nb.fit(Family::Sandwiched, 0.0, &CertifyOptions::default()).unwrap();
        let q = Qzcdp::new(0.0, fit.rho, Family::Sandwiched).unwrap();
        let conv = qzcdp_quantum_delta(q, eps).unwrap().value;
        let exact = Pair::new(&r, &s).unwrap().hockey_stick(eps.exp()).unwrap();
        prop_assert!(conv >= exact - 1e-12, "{conv} < {exact}");
        // RDP-curve route with the sandwiched curve at the standard orders
        let orders = RdpCurve::STANDARD_ORDERS;
        let curve = Pair::new(&r, &s).unwrap().curve(Family::Sandwiched, &orders).unwrap();
        let c = RdpCurve::new(&orders.iter().copied().zip(curve).collect::<Vec<_>>()).unwrap();
        prop_assert!(rdp_curve_delta(&c, eps).unwrap().value >= exact - 1e-12);
    }

    /// Every composition bound is ≥ the optimal (Kairouz–Oh–Viswanath) ε_total.
    #[test]
    fn compositions_dominate_optimal(eps in 0.01f64..2.0, k in 1usize..40, pure in any::<bool>(), ld in -8.0f64..-1.0) {
        let delta = if pure { 0.0 } else { 1e-6 };
        let dt = (k as f64 * delta + 10f64.powf(ld)).min(1.0);
        let opt = kov_epsilon(eps, delta, k, dt).unwrap();
        let (rows, best) = compare(eps, delta, k, dt).unwrap();
        for r in &rows {
            if let Some(e) = r.epsilon {
                prop_assert!(e >= opt * (1.0 - 1e-12), "{} gives {e} < optimal {opt}", r.name);
            }
        }
        prop_assert!(best.is_some());
    }

    /// Tensor products add the divergences of all three families, so qzCDP composes additively.
    #[test]
    fn tensor_additivity(seed in any::<u64>(), a in 1.05f64..6.0) {
        let (r1, s1) = states(seed, 2);
        let (r2, s2) = states(seed.wrapping_add(1), 2);
        let (rt, st) = (r1.tensor(&r2).unwrap(), s1.tensor(&s2).unwrap());
        for f in Family::ALL {
            let sum = Pair::new(&r1, &s1).unwrap().renyi(f, a).unwrap() + Pair::new(&r2, &s2).unwrap().renyi(f, a).unwrap();
            let joint = Pair::new(&rt, &st).unwrap().renyi(f, a).unwrap();
            prop_assert!((joint - sum).abs() <= 1e-9 * sum.max(1.0), "{f:?}: {joint} vs {sum}");
        }
        let q = compose_qzcdp_tensor(&[Qzcdp::new(0.0, 0.1, Family::Sandwiched).unwrap(), Qzcdp::new(0.2, 0.3, Family::Sandwiched).unwrap()]).unwrap();
        prop_assert!((q.rho() - 0.4).abs() < 1e-15 && (q.xi() - 0.2).abs() < 1e-15);
    }

    /// Fit and check agree: ρ slightly above the certified fit holds; below the best value it is
    /// violated (classical pairs, several ξ).
    #[test]
    fn fit_and_check_agree(w in proptest::collection::vec(0.05f64..1.0, 6), xi in 0.0f64..0.3) {
        let (a, b) = w.split_at(3);
        let (sa, sb): (f64, f64) = (a.iter().sum(), b.iter().sum());
        let p: Vec<f64> = a.iter().map(|x| x / sa).collect();
        let q: Vec<f64> = b.iter().map(|x| x / sb).collect();
        let nb = Neighbours::classical(p, q).unwrap();
        let o = CertifyOptions::default();
        let fit = nb.fit(Family::Sandwiched, xi, &o).unwrap();
        let up = nb.check(Family::Sandwiched, xi, fit.rho * (1.0 + 1e-4) + 1e-9, &o).unwrap();
        prop_assert_eq!(up.status, Status::Holds);
        prop_assert!(up.margin >= 0.0);
        if fit.lower > 1e-6 {
            let down = nb.check(Family::Sandwiched, xi, fit.lower * (1.0 - 1e-3), &o).unwrap();
            prop_assert_eq!(down.status, Status::Violated);
            let wa = down.witness_alpha.unwrap();
            let d = nb.curve(Family::Sandwiched, &[wa]).unwrap()[0];
            prop_assert!(d > xi + fit.lower * (1.0 - 1e-3) * wa);
        }
    }
}
