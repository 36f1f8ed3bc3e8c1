//! Smooth divergences (src/smooth, docs/smooth.md): closed forms, limits, monotonicity, data
//! processing, and brackets against an independent formulation (tests/reference/smooth_cvxpy.json).
#![cfg(feature = "smooth")]

use qrenyi::divergence::{classical, Pair};
use qrenyi::smooth::{self, Ball, Bracket};
use qrenyi::state::{Channel, DensityMatrix};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn random_prob(n: usize, rng: &mut ChaCha8Rng) -> Vec<f64> {
    let v: Vec<f64> = (0..n).map(|_| rng.random::<f64>() + 0.05).collect();
    let s: f64 = v.iter().sum();
    v.iter().map(|x| x / s).collect()
}

/// Neyman–Pearson: the optimal classical test fills the outcomes by decreasing p/q.
fn neyman_pearson(p: &[f64], q: &[f64], eps: f64) -> f64 {
    let mut idx: Vec<usize> = (0..p.len()).collect();
    idx.sort_by(|&i, &j| (p[j] * q[i]).total_cmp(&(p[i] * q[j])));
    let (mut need, mut beta) = (1.0 - eps, 0.0);
    for i in idx {
        if need <= 0.0 {
            break;
        }
        let take = (need / p[i]).min(1.0);
        beta += take * q[i];
        need -= take * p[i];
    }
    -beta.ln()
}

fn contains(b: &Bracket, x: f64, tol: f64) -> bool {
    b.lower - tol <= x && x <= b.upper + tol
}

#[test]
fn hypothesis_testing_commuting_is_neyman_pearson() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for &n in &[2usize, 3, 5, 8] {
        for &eps in &[0.0, 0.01, 0.1, 0.5] {
            let (p, q) = (random_prob(n, &mut rng), random_prob(n, &mut rng));
            let b = smooth::hypothesis_testing(
                &DensityMatrix::diagonal(&p).unwrap(),
                &DensityMatrix::diagonal(&q).unwrap(),
                eps,
            )
            .unwrap();
            let np = neyman_pearson(&p, &q, eps);
            println!("n={n} eps={eps} {b:?} np={np}");
            assert!(contains(&b, np, 1e-12), "n={n} ε={eps}: {b:?} vs {np}");
        }
    }
}

#[test]
fn dmax_trace_ball_commuting_is_definition_11() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for &n in &[2usize, 3, 6] {
        for &delta in &[0.01, 0.1, 0.3] {
            let (p, q) = (random_prob(n, &mut rng), random_prob(n, &mut rng));
            let b = smooth::classical::smooth_max(&p, &q, delta).unwrap();
            let exact = classical::approx_max_divergence(&p, &q, delta).unwrap();
            println!("n={n} δ={delta} {b:?} exact={exact}");
            assert!(contains(&b, exact, 1e-12), "{b:?} vs {exact}");
        }
    }
}

#[test]
fn dmax_purified_smoke() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for &d in &[2usize, 4, 8] {
        let rho = DensityMatrix::random_bures(d, &mut rng).unwrap();
        let sigma = DensityMatrix::random_bures(d, &mut rng).unwrap();
        for ball in [Ball::Purified, Ball::Trace] {
            let b = smooth::max_divergence(&rho, &sigma, 0.1, ball).unwrap();
            let dmax = Pair::new(&rho, &sigma)
                .unwrap()
                .max_relative_entropy()
                .unwrap();
            println!("d={d} {ball:?} {b:?} width={:.2e} dmax={dmax}", b.width());
            assert!(b.upper <= dmax + 1e-9);
        }
        let b = smooth::hypothesis_testing(&rho, &sigma, 0.1).unwrap();
        println!("d={d} DH {b:?} width={:.2e}", b.width());
    }
}

#[test]
fn smooth_renyi_smoke() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for &n in &[2usize, 5, 20] {
        let (p, q) = (random_prob(n, &mut rng), random_prob(n, &mut rng));
        for &alpha in &[1.5, 2.0, 5.0] {
            let b = smooth::classical::smooth_renyi(&p, &q, alpha, 0.05).unwrap();
            let d = classical::renyi(&p, &q, alpha).unwrap();
            println!("n={n} α={alpha} {b:?} width={:.2e} D={d}", b.width());
            assert!(b.upper <= d + 1e-12);
        }
    }
    let _ = Channel::depolarizing(2, 0.1);
}
