//! Per-call timing of the smooth divergences on seeded Hilbert–Schmidt pairs (profiling aid for
//! docs/PERFORMANCE.md "Smooth divergences"; the benchmark of record is `cargo bench --bench smooth`).
//!
//! `cargo run --release --example smooth_timing -- 2,4,8,16 [dh,purified,trace]`
use qrenyi::smooth::{self, Ball};
use qrenyi::state::DensityMatrix;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dims: Vec<usize> = args
        .get(1)
        .map(|s| {
            s.split(',')
                .map(|x| x.parse().expect("dimension"))
                .collect()
        })
        .unwrap_or_else(|| vec![2, 4, 8]);
    let kinds = args
        .get(2)
        .cloned()
        .unwrap_or_else(|| "dh,purified,trace".into());
    for d in dims {
        let mut rng = ChaCha8Rng::seed_from_u64(29 ^ (d as u64) << 32);
        let rho = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).expect("state");
        let sigma = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).expect("state");
        for kind in kinds.split(',') {
            let t = Instant::now();
            let b = match kind {
                "dh" => smooth::hypothesis_testing(&rho, &sigma, 0.2),
                "purified" => smooth::max_divergence(&rho, &sigma, 0.1, Ball::Purified),
                _ => smooth::max_divergence(&rho, &sigma, 0.1, Ball::Trace),
            };
            let s = t.elapsed().as_secs_f64();
            match b {
                Ok(b) => println!(
                    "d={d} {kind}: {s:.4} s value {:.10} width {:.2e}",
                    b.value,
                    b.width()
                ),
                Err(e) => println!("d={d} {kind}: {s:.4} s error {e}"),
            }
        }
    }
}
