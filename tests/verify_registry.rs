//! The whole statement registry at every `--max-dim` the CLI accepts (2..=32), a few trials each:
//! no panic (issue 10 §3: a non-transitive float comparison in `approx_max_divergence` made every
//! worker thread panic from alphabets of ≥ 22 letters on), no NaN margin; and the exact
//! δ-approximate max divergence against a brute force over all subsets on alphabets whose masses
//! underflow in cross products.

use qrenyi::divergence::classical::approx_max_divergence;
use qrenyi::verify::{self, Config, SampleContext};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn whole_registry_runs_at_every_max_dim_up_to_32() {
    for max_dim in 2..=32 {
        let cfg = Config {
            trials: Some(3),
            seed: max_dim as u64,
            context: SampleContext { max_dim },
            restarts: 1,
            steps: Some(2),
            max_confirm: 1,
            ..Config::default()
        };
        for s in verify::builtin() {
            let r = verify::run(s.as_ref(), &cfg, &|_| {})
                .unwrap_or_else(|e| panic!("{} at max-dim {max_dim}: {e}", s.name()));
            assert!(
                !r.worst_margin.is_nan() && !r.worst_error.is_nan(),
                "{} at max-dim {max_dim}: NaN margin",
                s.name()
            );
            assert!(r.trials == 3, "{}: {} trials", s.name(), r.trials);
        }
    }
}

/// `max_{S, P(S) > δ} ln((P(S) − δ)/Q(S))` over all `2^n` subsets (n ≤ 14).
fn brute_force(p: &[f64], q: &[f64], delta: f64) -> f64 {
    let n = p.len();
    let mut best = f64::NEG_INFINITY;
    for mask in 1u32..(1 << n) {
        let (mut ps, mut qs) = (0.0, 0.0);
        for i in (0..n).filter(|i| mask >> i & 1 == 1) {
            ps += p[i];
            qs += q[i];
        }
        if ps > delta {
            let v = if qs > 0.0 {
                (ps - delta).ln() - qs.ln()
            } else {
                f64::INFINITY
            };
            best = best.max(v);
        }
    }
    best
}

#[test]
fn approx_max_divergence_is_the_subset_maximum_with_underflowing_masses() {
    let mut rng = ChaCha8Rng::seed_from_u64(19);
    for _ in 0..300 {
        let n = rng.random_range(2..=12);
        // masses from 1e-320 (subnormal) to 1: products p_i q_j underflow to 0
        let draw = |rng: &mut ChaCha8Rng| -> Vec<f64> {
            let w: Vec<f64> = (0..n)
                .map(|_| match rng.random_range(0..4) {
                    0 => 0.0,
                    1 => 10f64.powf(-rng.random_range(150.0..320.0)),
                    _ => rng.random::<f64>(),
                })
                .collect();
            let s: f64 = w.iter().sum();
            if s == 0.0 {
                let mut v = vec![0.0; n];
                v[0] = 1.0;
                v
            } else {
                w.iter().map(|x| x / s).collect()
            }
        };
        let (p, q) = (draw(&mut rng), draw(&mut rng));
        let delta = rng.random_range(0.0..0.5);
        let got = approx_max_divergence(&p, &q, delta).unwrap();
        let want = brute_force(&p, &q, delta);
        assert!(
            got == want || (got - want).abs() <= 1e-12 * want.abs().max(1.0),
            "p={p:?} q={q:?} δ={delta}: {got} vs {want}"
        );
    }
}
