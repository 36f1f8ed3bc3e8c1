//! Profiling helper (not a benchmark): one in-process sandwiched call at α > 1 as the Python
//! binding runs it for two raw matrices (`states_from_matrices` with ρ checked by Cholesky and σ
//! decomposed, then `Pair::renyi`), and its parts. `cargo run --release --example
//! sandwiched_profile -- 8,16 [alpha]`; `… -- loop D [alpha]`: the whole call in a loop (for
//! `perf record`); `loopraw`: `sandwiched_from_raw` in a loop.
use qrenyi::divergence::{sandwiched_from_raw, states_from_matrices, Check, Family, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::{DensityMatrix, Tolerance};
use rand::SeedableRng;

#[path = "common/best.rs"]
mod timing;
use timing::best;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let raw_loop = args.get(1).map(String::as_str) == Some("loopraw");
    let looping = raw_loop || args.get(1).map(String::as_str) == Some("loop");
    let dims_arg = if looping {
        &args[2]
    } else {
        args.get(1).map_or("8,16", |s| s.as_str())
    };
    let alpha: f64 = args
        .get(if looping { 3 } else { 2 })
        .map_or(1.5, |s| s.parse().unwrap());
    let dims: Vec<usize> = dims_arg.split(',').map(|s| s.parse().unwrap()).collect();
    let tol = Tolerance::default();
    let be = Backend::Auto;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for d in dims {
        let r = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
        let s = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
        let (rm, sm) = (r.matrix().clone(), s.matrix().clone());
        // the binding's validation: ρ by Cholesky, σ decomposed
        let states = || {
            states_from_matrices(
                rm.clone(),
                sm.clone(),
                (Check::Cholesky, Check::Decomposed),
                tol,
                be,
            )
            .unwrap()
        };
        let call = || {
            let (a, b) = states();
            Pair::new(&a, &b)
                .unwrap()
                .renyi(Family::Sandwiched, alpha)
                .unwrap()
        };
        let raw = || sandwiched_from_raw(rm.view(), sm.view(), alpha, tol).unwrap();
        if looping {
            let mut acc = 0.0;
            for _ in 0..2_000_000 {
                acc += std::hint::black_box(if raw_loop { raw() } else { call() });
            }
            println!("{acc}");
            return;
        }
        let reps = 4000;
        let whole = best(reps, call);
        let validated = best(reps, states);
        let chol = best(reps, || {
            DensityMatrix::with_options(rm.clone(), tol, be).unwrap()
        });
        let dec = best(reps, || {
            DensityMatrix::with_options_decomposed(sm.clone(), tol, be).unwrap()
        });
        let (a, b) = states();
        let value = best(reps, || {
            Pair::new(&a, &b)
                .unwrap()
                .renyi(Family::Sandwiched, alpha)
                .unwrap()
        });
        let clone = best(reps, || (rm.clone(), sm.clone()));
        let fast = best(reps, raw);
        let whole2 = best(reps, call);
        println!(
            "d={d} α={alpha}: whole={whole:.2} states={validated:.2} (ρ Cholesky {chol:.2}, σ decomposed {dec:.2}, two clones {clone:.2}) value(Pair::new+renyi)={value:.2} µs; sandwiched_from_raw={fast:.2} µs (whole again {whole2:.2}: {:.2}×); D={} raw D={} (Δ {:.1e})",
            whole.min(whole2) / fast,
            call(),
            raw(),
            (raw() - call()).abs()
        );
    }
}
