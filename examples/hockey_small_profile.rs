//! Profiling helper (not a benchmark): the pieces of one hockey-stick call from two raw matrices
//! at small dimensions (`cargo run --release --example hockey_small_profile -- 4,8,12`), best of
//! 5 loops of 20 000 calls each, thread CPU µs per call.
use qrenyi::divergence::difference::{difference_from_matrices, Difference};
use qrenyi::divergence::Pair;
use qrenyi::spectral::Backend;
use qrenyi::state::{DensityMatrix, Tolerance};
use rand::SeedableRng;
use std::hint::black_box;

#[path = "common/clock.rs"]
mod clock;
use clock::thread_cpu;

/// Thread CPU time in seconds (the machine is shared: wall time includes other processes' slices).
fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut out = f64::INFINITY;
    for _ in 0..5 {
        let t = thread_cpu();
        for _ in 0..reps {
            black_box(f());
        }
        out = out.min((thread_cpu() - t) / reps as f64);
    }
    out * 1e6
}

fn main() {
    let dims: Vec<usize> = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "4,8,12".into())
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    let g = [std::f64::consts::E];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for d in dims {
        let rho = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
        let sigma = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
        let (r, s) = (rho.matrix().clone(), sigma.matrix().clone());
        let tol = Tolerance::default();
        let whole = best(20000, || {
            difference_from_matrices(
                black_box(r.clone()),
                black_box(s.clone()),
                Difference::HockeyStick(&g),
                tol,
                Backend::Auto,
            )
            .unwrap()
        });
        let clones = best(20000, || (black_box(r.clone()), black_box(s.clone())));
        let validate = best(20000, || {
            DensityMatrix::with_options(black_box(r.clone()), tol, Backend::Auto).unwrap()
        });
        let pair = Pair::new(&rho, &sigma).unwrap();
        let value = best(20000, || pair.hockey_stick(g[0]).unwrap());
        let diff = best(20000, || black_box(&r) - &(black_box(&s) * g[0]));
        let m = &r - &(&s * g[0]);
        let values = qrenyi::spectral::small::with_small_dim!(d, N => {
            best(20000, || {
                let a = qrenyi::spectral::small::from_view::<N>(&black_box(&m).view());
                qrenyi::spectral::small::eigh_small::<N>(&a, false).unwrap().values
            })
        }, _ => f64::NAN);
        println!(
            "d={d}: whole {whole:.3} µs | 2 clones {clones:.3} | validate one {validate:.3} | \
             Pair::hockey_stick {value:.3} | difference {diff:.3} | values {values:.3}"
        );
    }
}
