//! Profiling helper (not a benchmark): `renyi_stacks_flat` on 10,000 raw pairs, repeated.
//! `cargo run --release --example stack_profile -- <d> <family> <reps> [alpha]`
use ndarray::{Array3, Axis};
use qrenyi::divergence::batch::{renyi_stacks_flat, Operand};
use qrenyi::divergence::Family;
use qrenyi::state::{DensityMatrix, Tolerance};
use rand::SeedableRng;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let d: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(4);
    let family = match args.get(2).map(|s| s.as_str()).unwrap_or("sandwiched") {
        "petz" => Family::Petz,
        "maximal" => Family::Maximal,
        _ => Family::Sandwiched,
    };
    let reps: usize = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(20);
    let alpha: f64 = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(2.0);
    let n = 10_000;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut rs = Array3::zeros((n, d, d));
    let mut ss = Array3::zeros((n, d, d));
    for k in 0..n {
        rs.index_axis_mut(Axis(0), k).assign(
            DensityMatrix::random_hilbert_schmidt(d, d, &mut rng)
                .unwrap()
                .matrix(),
        );
        ss.index_axis_mut(Axis(0), k).assign(
            DensityMatrix::random_hilbert_schmidt(d, d, &mut rng)
                .unwrap()
                .matrix(),
        );
    }
    let mut best = f64::INFINITY;
    let mut sum = 0.0;
    for _ in 0..reps {
        let t = std::time::Instant::now();
        let v = renyi_stacks_flat(
            Operand::Array(rs.view()),
            Operand::Array(ss.view()),
            family,
            &[alpha],
            Tolerance::default(),
        )
        .unwrap()
        .unwrap();
        best = best.min(t.elapsed().as_secs_f64());
        sum += v.iter().sum::<f64>();
    }
    println!(
        "d={d} {family:?} α={alpha}: best {:.3} ms per 10,000 pairs ({:.3} µs per pair) [checksum {sum:.12e}]",
        best * 1e3,
        best * 1e2
    );
}
