//! State and channel operations against closed forms.

mod common;

use common::*;
use ndarray::Array2;
use num_complex::Complex64 as C;
use qrenyi::state::{kron, Channel, DensityMatrix};

fn max_diff(a: &Array2<C>, b: &Array2<C>) -> f64 {
    (a - b).iter().map(|z| z.norm()).fold(0.0, f64::max)
}

#[test]
fn partial_trace_of_tensor_product_recovers_factors() {
    let mut r = rng(7);
    for (d1, d2, d3) in [(2, 3, 2), (3, 2, 1), (2, 2, 2)] {
        let (a, b, c) = (
            random_state(d1, 0, &mut r),
            random_state(d2, 1, &mut r),
            random_state(d3, 2, &mut r),
        );
        let abc = a.tensor(&b).unwrap().tensor(&c).unwrap();
        let dims = [d1, d2, d3];
        assert!(
            max_diff(
                abc.partial_trace(&dims, &[1, 2]).unwrap().matrix(),
                a.matrix()
            ) < 1e-14
        );
        assert!(
            max_diff(
                abc.partial_trace(&dims, &[0, 2]).unwrap().matrix(),
                b.matrix()
            ) < 1e-14
        );
        assert!(
            max_diff(
                abc.partial_trace(&dims, &[0, 1]).unwrap().matrix(),
                c.matrix()
            ) < 1e-14
        );
        let ac = abc.partial_trace(&dims, &[1]).unwrap();
        assert!(max_diff(ac.matrix(), &kron(&a.matrix().view(), &c.matrix().view())) < 1e-14);
    }
}

#[test]
fn random_ensembles_have_the_requested_rank_and_are_states() {
    let mut r = rng(11);
    for d in 1..7 {
        for k in 1..=d {
            assert_eq!(
                DensityMatrix::random_hilbert_schmidt(d, k, &mut r)
                    .unwrap()
                    .rank()
                    .unwrap(),
                k
            );
        }
        assert_eq!(
            DensityMatrix::random_pure(d, &mut r)
                .unwrap()
                .rank()
                .unwrap(),
            1
        );
        assert_eq!(
            DensityMatrix::random_bures(d, &mut r)
                .unwrap()
                .rank()
                .unwrap(),
            d
        );
    }
    assert!(DensityMatrix::random_hilbert_schmidt(3, 4, &mut r).is_err());
}

#[test]
fn depolarizing_matches_closed_form() {
    let mut r = rng(3);
    for d in [2, 3, 5] {
        let rho = random_state(d, 0, &mut r);
        let p = 0.37;
        let out = rho.apply(&Channel::depolarizing(d, p).unwrap()).unwrap();
        let expected =
            rho.matrix().mapv(|z| z * (1.0 - p)) + Array2::<C>::eye(d).mapv(|z| z * (p / d as f64));
        assert!(max_diff(out.matrix(), &expected) < 1e-14);
    }
}

#[test]
fn dephasing_and_amplitude_damping_match_closed_forms() {
    let mut r = rng(5);
    let rho = random_state(3, 0, &mut r);
    let out = rho.apply(&Channel::dephasing(3, 1.0).unwrap()).unwrap();
    for i in 0..3 {
        for j in 0..3 {
            let want = if i == j {
                rho.matrix()[[i, i]]
            } else {
                C::new(0.0, 0.0)
            };
            assert!((out.matrix()[[i, j]] - want).norm() < 1e-15);
        }
    }
    // amplitude damping: ρ₁₁ → (1−γ)ρ₁₁, ρ₀₁ → √(1−γ) ρ₀₁
    let q = random_state(2, 0, &mut r);
    let g = 0.3;
    let o = q.apply(&Channel::amplitude_damping(g).unwrap()).unwrap();
    assert!((o.matrix()[[1, 1]].re - (1.0 - g) * q.matrix()[[1, 1]].re).abs() < 1e-15);
    assert!((o.matrix()[[0, 1]] - q.matrix()[[0, 1]] * (1.0 - g).sqrt()).norm() < 1e-15);
}

#[test]
fn random_channels_are_trace_preserving_and_compose() {
    let mut r = rng(9);
    let a = Channel::random(3, 2, 4, &mut r).unwrap();
    let b = Channel::random(2, 4, 2, &mut r).unwrap();
    let ab = a.then(&b).unwrap();
    assert_eq!((ab.input_dim(), ab.output_dim()), (3, 4));
    let rho = random_state(3, 1, &mut r);
    let two_step = rho.apply(&a).unwrap().apply(&b).unwrap();
    assert!(max_diff(rho.apply(&ab).unwrap().matrix(), two_step.matrix()) < 1e-14);
    assert!(b.then(&b).is_err());
}

#[test]
fn mixtures_entropy_and_nalgebra_round_trip() {
    let a = DensityMatrix::diagonal(&[1.0, 0.0]).unwrap();
    let b = DensityMatrix::diagonal(&[0.0, 1.0]).unwrap();
    let m = DensityMatrix::mixture(&[0.5, 0.5], &[a.clone(), b]).unwrap();
    assert!((m.entropy().unwrap() - 2f64.ln()).abs() < 1e-15);
    assert!((m.purity() - 0.5).abs() < 1e-15);
    let back = DensityMatrix::from_nalgebra(&m.to_nalgebra()).unwrap();
    assert!(max_diff(back.matrix(), m.matrix()) == 0.0);
    assert!(DensityMatrix::mixture(&[0.5, 0.6], &[a.clone(), a]).is_err());
}
