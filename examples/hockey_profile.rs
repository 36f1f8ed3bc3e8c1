//! Profiling helper (not a benchmark): the pieces of the hockey-stick divergence from two raw
//! matrices, each timed alone (thread CPU time and wall time, best of N), then the whole call.
//! `OPENBLAS_NUM_THREADS=1 cargo run --release --example hockey_profile -- 64,256,512 [reps]`;
//! with `HOCKEY_LOOP=with_options` (or any other value: the whole `difference_from_matrices`) one
//! piece in a loop at the first dimension, for `perf record`.
use ndarray::Zip;
use num_complex::Complex64;
use qrenyi::divergence::{difference_from_matrices, Difference};
use qrenyi::spectral::{Backend, EigenSolver};
use qrenyi::state::{DensityMatrix, Tolerance};
use rand::SeedableRng;
use std::time::Instant;

#[path = "common/clock.rs"]
mod clock;
use clock::{dims_and_count, hs, thread_cpu};

fn time(reps: usize, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let (mut bw, mut bc) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..reps {
        let (t, c) = (Instant::now(), thread_cpu());
        f();
        bc = bc.min(thread_cpu() - c);
        bw = bw.min(t.elapsed().as_secs_f64());
    }
    (bw * 1e3, bc * 1e3)
}

fn main() {
    let (dims, reps) = dims_and_count(15);
    let g = std::f64::consts::E;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(14);
    if let Ok(what) = std::env::var("HOCKEY_LOOP") {
        let d = dims[0];
        let (rho, sigma) = (hs(d, &mut rng), hs(d, &mut rng));
        for _ in 0..reps {
            match what.as_str() {
                "with_options" => {
                    std::hint::black_box(
                        DensityMatrix::with_options(
                            rho.clone(),
                            Tolerance::default(),
                            Backend::Auto,
                        )
                        .unwrap(),
                    );
                }
                _ => {
                    std::hint::black_box(
                        difference_from_matrices(
                            rho.clone(),
                            sigma.clone(),
                            Difference::HockeyStick(&[std::f64::consts::E]),
                            Tolerance::default(),
                            Backend::Auto,
                        )
                        .unwrap(),
                    );
                }
            }
        }
        return;
    }
    println!("ms: (best wall, best thread CPU)");
    for d in dims {
        let (rho, sigma) = (hs(d, &mut rng), hs(d, &mut rng));
        let m = Zip::from(&rho).and(&sigma).map_collect(|&r, &s| r - s * g);
        let tol = Tolerance::default();
        let row = |name: &str, v: (f64, f64)| println!("d={d:4} {name:40} {:8.3} {:8.3}", v.0, v.1);
        row(
            "difference (map_collect)",
            time(reps, || {
                let _ = std::hint::black_box(
                    Zip::from(&rho).and(&sigma).map_collect(|&r, &s| r - s * g),
                );
            }),
        );
        row(
            "transposed copy (col_major)",
            time(reps, || {
                let v: Vec<Complex64> = m.t().iter().copied().collect();
                std::hint::black_box(v);
            }),
        );
        faer::set_global_parallelism(faer::Par::Seq);
        for (name, be) in [("lapack", Backend::Lapack), ("faer", Backend::Faer)] {
            row(
                &format!("eigvalsh {name}"),
                time(reps, || {
                    std::hint::black_box(be.eigvalsh(m.view()).unwrap());
                }),
            );
            row(
                &format!("cholesky {name}"),
                time(reps, || {
                    std::hint::black_box(be.is_positive_definite(rho.view(), 1e-12).unwrap());
                }),
            );
        }
        row(
            "with_options(rho) (O(d²) + cholesky)",
            time(reps, || {
                std::hint::black_box(
                    DensityMatrix::with_options(rho.clone(), tol, Backend::Auto).unwrap(),
                );
            }),
        );
        row(
            "clone(rho)",
            time(reps, || {
                std::hint::black_box(rho.clone());
            }),
        );
        row(
            "difference_from_matrices (whole)",
            time(reps, || {
                std::hint::black_box(
                    difference_from_matrices(
                        rho.clone(),
                        sigma.clone(),
                        Difference::HockeyStick(&[g]),
                        tol,
                        Backend::Auto,
                    )
                    .unwrap(),
                );
            }),
        );
    }
}
