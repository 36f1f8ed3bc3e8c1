//! Per-call timing of the smooth divergences on seeded Hilbert–Schmidt pairs (profiling aid for
//! docs/PERFORMANCE.md "Smooth divergences"; the benchmark of record is `cargo bench --bench smooth`).
//!
//! `cargo run --release --example smooth_timing -- 2,4,8,16 [dh,purified,trace]`, or
//! `… -- --pair RHO.json SIGMA.json [kinds]` for a given pair (e.g. the states
//! `benches/peers/smooth_peers.py` writes); `REPS=n` repeats each call (the first call in a process
//! also pays one-time set-up).
use qrenyi::smooth::{self, Ball};
use qrenyi::state::DensityMatrix;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dims: Vec<usize> = args
        .get(1)
        .filter(|a| a.as_str() != "--pair")
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
    // `--pair RHO.json SIGMA.json [kinds]`: one given pair (e.g. the peers' states)
    let pair = args.get(1).filter(|a| a.as_str() == "--pair").map(|_| {
        let read = |p: &String| {
            DensityMatrix::new(qrenyi::io::read_matrix(p).expect("matrix")).expect("state")
        };
        (read(&args[2]), read(&args[3]))
    });
    let kinds = if pair.is_some() {
        args.get(4)
            .cloned()
            .unwrap_or_else(|| "dh,purified,trace".into())
    } else {
        kinds
    };
    let dims = match &pair {
        Some((r, _)) => vec![r.dim()],
        None => dims,
    };
    for d in dims {
        let mut rng = ChaCha8Rng::seed_from_u64(29 ^ (d as u64) << 32);
        let (rho, sigma) = match &pair {
            Some(p) => p.clone(),
            None => (
                DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).expect("state"),
                DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).expect("state"),
            ),
        };
        for kind in kinds.split(',') {
            let reps: usize = std::env::var("REPS")
                .ok()
                .and_then(|x| x.parse().ok())
                .unwrap_or(1);
            for _ in 0..reps {
                let t = Instant::now();
                let b = match kind {
                    "dh" => smooth::hypothesis_testing(&rho, &sigma, 0.2),
                    "purified" => smooth::max_divergence(&rho, &sigma, 0.1, Ball::Purified),
                    _ => smooth::max_divergence(&rho, &sigma, 0.1, Ball::Trace),
                };
                let s = t.elapsed().as_secs_f64();
                match b {
                    Ok(b) => println!(
                        "d={d} {kind}: {s:.3e} s value {:.10} width {:.2e}",
                        b.value,
                        b.width()
                    ),
                    Err(e) => println!("d={d} {kind}: {s:.3e} s error {e}"),
                }
            }
        }
    }
}
