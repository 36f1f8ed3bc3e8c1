//! GPU measurements for docs/PERFORMANCE.md ("GPU"): qrenyi's `Backend::Cuda` path (feature
//! `cuda`) beside its CPU path on the same machine. One JSON object per line on stdout.
//!
//! Not a criterion bench: the cases run for seconds on a lent GPU, so each is timed a few times
//! (median, after a warm-up that creates the CUDA context and handles).
//!
//! ```text
//! cargo bench --features cuda --bench gpu --no-run      # build; then run the binary:
//! gpu crossover | single DIR D… | curve DIR D… | batch | kernel N… | cpu DIR D…
//! ```
//! `DIR` holds `rho_D.npy`, `sigma_D.npy` (written by `benches/gpu/peers_gpu.py --save DIR`, the
//! same matrices the PyTorch five-liner is timed on). `cpu` times the CPU path: run it with
//! `CUDA_VISIBLE_DEVICES=` so that `Backend::Auto` finds no GPU.

use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{batch, Family, Pair};
use qrenyi::kernel::{Kernel, KernelDivergence, KernelKind};
use qrenyi::spectral::{Backend, EigenSolver};
use qrenyi::state::{DensityMatrix, Tolerance};
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median wall time of `reps` runs of `f` after one warm-up run.
fn time<R>(reps: usize, mut f: impl FnMut() -> R) -> (f64, R) {
    let mut out = f();
    let mut ts = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        out = f();
        ts.push(t.elapsed().as_secs_f64());
    }
    (median(ts), out)
}

fn reps_for(d: usize) -> usize {
    match d {
        0..=1024 => 5,
        1025..=4096 => 3,
        _ => 1,
    }
}

fn alphas16() -> Vec<f64> {
    (0..16).map(|i| 1.1 + 2.9 * i as f64 / 15.0).collect()
}

fn load(dir: &str, d: usize) -> (Array2<Complex64>, Array2<Complex64>) {
    let r = qrenyi::io::read_matrix(format!("{dir}/rho_{d}.npy")).expect("rho");
    let s = qrenyi::io::read_matrix(format!("{dir}/sigma_{d}.npy")).expect("sigma");
    (r, s)
}

fn state(m: &Array2<Complex64>, backend: Backend) -> DensityMatrix {
    DensityMatrix::with_options(m.clone(), Tolerance::default(), backend).expect("valid state")
}

/// Validation of both states, the pair's α-independent steps and the orders: what a user's call
/// from host matrices costs (the copies of the inputs are made before the clock starts).
fn sandwiched_from_host(
    r: &Array2<Complex64>,
    s: &Array2<Complex64>,
    backend: Backend,
    alphas: &[f64],
    reps: usize,
) -> (f64, Vec<f64>) {
    let mut ts = Vec::new();
    let mut out = Vec::new();
    for _ in 0..=reps {
        let (rc, sc) = (r.clone(), s.clone());
        let t = Instant::now();
        let rho = DensityMatrix::with_options(rc, Tolerance::default(), backend).expect("ρ");
        let sigma = DensityMatrix::with_options(sc, Tolerance::default(), backend).expect("σ");
        let pair = Pair::new(&rho, &sigma).expect("pair");
        out = pair.curve(Family::Sandwiched, alphas).expect("curve");
        ts.push(t.elapsed().as_secs_f64());
    }
    if ts.len() > 1 {
        ts.remove(0); // warm-up
    }
    (median(ts), out)
}

/// The same from the raw matrices through `divergence::sandwiched_from_matrices` (ρ never
/// decomposed on the GPU route).
fn sandwiched_direct(
    r: &Array2<Complex64>,
    s: &Array2<Complex64>,
    backend: Backend,
    alphas: &[f64],
    reps: usize,
) -> (f64, Vec<f64>) {
    let mut ts = Vec::new();
    let mut out = Vec::new();
    for _ in 0..=reps {
        let (rc, sc) = (r.clone(), s.clone());
        let t = Instant::now();
        out = qrenyi::divergence::sandwiched_from_matrices(
            rc,
            sc,
            alphas,
            Tolerance::default(),
            backend,
        )
        .expect("values");
        ts.push(t.elapsed().as_secs_f64());
    }
    if ts.len() > 1 {
        ts.remove(0);
    }
    (median(ts), out)
}

fn random_hermitian(d: usize, seed: u64) -> Array2<Complex64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    DensityMatrix::random_hilbert_schmidt(d, d, &mut rng)
        .expect("state")
        .matrix()
        .clone()
}

fn crossover() {
    for d in [64, 128, 256, 384, 512, 768, 1024] {
        let a = random_hermitian(d, d as u64);
        let reps = 3;
        for backend in [Backend::Cuda, Backend::Faer, Backend::Lapack] {
            let (eigh, _) = time(reps, || backend.eigh(a.view()).expect("eigh"));
            let (vals, _) = time(reps, || backend.eigvalsh(a.view()).expect("eigvalsh"));
            let (chol, _) = time(reps, || backend.is_positive_definite(a.view(), 1e-10));
            let (rho, sigma) = (a.clone(), random_hermitian(d, 7 + d as u64));
            let (one, _) = sandwiched_from_host(&rho, &sigma, backend, &[2.0], reps);
            println!(
                "{{\"what\":\"crossover\",\"d\":{d},\"backend\":\"{}\",\"eigh_s\":{eigh},\"eigvalsh_s\":{vals},\"cholesky_s\":{chol},\"sandwiched_one_order_s\":{one}}}",
                backend.name()
            );
        }
    }
}

fn single_and_curve(dir: &str, dims: &[usize], backend: Backend, label: &str, curve: bool) {
    for &d in dims {
        let (r, s) = load(dir, d);
        // the CPU path is timed once, without a warm-up run (seconds to minutes per call)
        let reps = if label == "cpu" { 0 } else { reps_for(d) };
        let (t1, v1) = sandwiched_from_host(&r, &s, backend, &[2.0], reps);
        println!(
            "{{\"what\":\"sandwiched\",\"path\":\"{label}\",\"d\":{d},\"orders\":1,\"s\":{t1},\"value_alpha2\":{}}}",
            v1[0]
        );
        if label == "cuda" {
            let (t1, v1) = sandwiched_direct(&r, &s, backend, &[2.0], reps);
            println!(
                "{{\"what\":\"sandwiched\",\"path\":\"cuda-direct\",\"d\":{d},\"orders\":1,\"s\":{t1},\"value_alpha2\":{}}}",
                v1[0]
            );
            let (t16, v16) = sandwiched_direct(&r, &s, backend, &alphas16(), reps);
            println!(
                "{{\"what\":\"sandwiched\",\"path\":\"cuda-direct\",\"d\":{d},\"orders\":16,\"s\":{t16},\"first\":{},\"last\":{}}}",
                v16[0], v16[15]
            );
        }
        if curve {
            let (t16, v16) = sandwiched_from_host(&r, &s, backend, &alphas16(), reps);
            println!(
                "{{\"what\":\"sandwiched\",\"path\":\"{label}\",\"d\":{d},\"orders\":16,\"s\":{t16},\"first\":{},\"last\":{}}}",
                v16[0], v16[15]
            );
        }
    }
}

fn batches() {
    for (d, n) in [
        (2, 10_000),
        (4, 10_000),
        (16, 2_000),
        (64, 500),
        (4, 64),
        (4, 256),
        (4, 1_000),
        (32, 1_000),
    ] {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(d as u64);
        let mats: Vec<(Array2<Complex64>, Array2<Complex64>)> = (0..n)
            .map(|_| {
                let r = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).expect("ρ");
                let s = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).expect("σ");
                (r.matrix().clone(), s.matrix().clone())
            })
            .collect();
        let (t_valid, pairs) = time(3, || {
            let flat: Vec<Array2<Complex64>> = mats
                .iter()
                .flat_map(|(r, s)| [r.clone(), s.clone()])
                .collect();
            let states: Vec<DensityMatrix> = batch::states(&flat)
                .into_iter()
                .map(|s| s.expect("valid"))
                .collect();
            states
                .chunks(2)
                .map(|c| (c[0].clone(), c[1].clone()))
                .collect::<Vec<_>>()
        });
        // fresh states each run: the decompositions are cached inside a state
        let mut ts = Vec::new();
        for _ in 0..3 {
            let fresh: Vec<(DensityMatrix, DensityMatrix)> = pairs
                .iter()
                .map(|(r, s)| {
                    (
                        state(r.matrix(), Backend::Auto),
                        state(s.matrix(), Backend::Auto),
                    )
                })
                .collect();
            let t = Instant::now();
            let v = batch::renyi(&fresh, Family::Sandwiched, 2.0);
            ts.push(t.elapsed().as_secs_f64());
            assert!(v.iter().all(|x| x.is_ok()));
        }
        let t_pairs = median(ts);
        for (path, backend) in [
            ("cuda-batched", Backend::Cuda),
            ("auto-matrices", Backend::Auto),
        ] {
            if path == "cuda-batched" && d > 32 {
                continue;
            }
            let (t, v) = time(5, || {
                batch::sandwiched_from_matrices(&mats, 2.0, Tolerance::default(), backend)
            });
            assert!(v.iter().all(|x| x.is_ok()));
            println!(
                "{{\"what\":\"batch\",\"path\":\"{path}\",\"d\":{d},\"n\":{n},\"s\":{t},\"pairs_per_s\":{}}}",
                n as f64 / t
            );
        }
        println!(
            "{{\"what\":\"batch\",\"path\":\"auto\",\"d\":{d},\"n\":{n},\"validate_s\":{t_valid},\"divergence_s\":{t_pairs},\"pairs_per_s\":{}}}",
            n as f64 / (t_valid + t_pairs)
        );
    }
}

fn samples(n: usize, dim: usize, shift: f64, seed: u64) -> Array2<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    Array2::from_shape_fn((n, dim), |_| {
        let z: f64 = StandardNormal.sample(&mut rng);
        z + shift
    })
}

fn kernel(ns: &[usize], backend: Backend, label: &str) {
    let k = Kernel::new(KernelKind::Rbf, 2.0).expect("kernel");
    for &n in ns {
        let (x, y) = (samples(n, 5, 0.0, 1), samples(n, 5, 0.3, 2));
        let t = Instant::now();
        let (kxx, kxy, kyy) = (
            k.gram_sym(x.view()).expect("K_XX"),
            k.gram(x.view(), y.view()).expect("K_XY"),
            k.gram_sym(y.view()).expect("K_YY"),
        );
        let t_gram = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let est = KernelDivergence::from_gram_with(kxx, kxy, kyy, backend).expect("estimator");
        let t_build = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let d2 = est.divergence(2.0, 1e-3).expect("divergence");
        let t_one = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let grid = est.grid(&[0.5, 2.0, 4.0], &[1e-3]).expect("grid");
        let t_grid = t.elapsed().as_secs_f64();
        println!(
            "{{\"what\":\"kernel\",\"path\":\"{label}\",\"n\":{n},\"m\":{n},\"gram_s\":{t_gram},\"build_s\":{t_build},\"one_s\":{t_one},\"grid3_s\":{t_grid},\"d2\":{d2},\"grid\":[{},{},{}]}}",
            grid[[0, 0]], grid[[1, 0]], grid[[2, 0]]
        );
    }
}

fn dims(args: &[String]) -> Vec<usize> {
    args.iter().map(|a| a.parse().expect("dimension")).collect()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    match qrenyi::spectral::cuda::device_name() {
        Ok(name) => println!("{{\"what\":\"device\",\"name\":\"{name}\"}}"),
        Err(e) => println!(
            "{{\"what\":\"device\",\"name\":null,\"reason\":{}}}",
            serde_json::Value::from(e.to_string())
        ),
    }
    let Some(section) = args.first() else {
        eprintln!("usage: gpu crossover | single DIR D… | curve DIR D… | batch | kernel N… | cpu DIR D… | cpu-kernel N…");
        return;
    };
    match section.as_str() {
        "crossover" => crossover(),
        "single" => single_and_curve(&args[1], &dims(&args[2..]), Backend::Cuda, "cuda", false),
        "curve" => single_and_curve(&args[1], &dims(&args[2..]), Backend::Cuda, "cuda", true),
        "cpu" => single_and_curve(&args[1], &dims(&args[2..]), Backend::Auto, "cpu", false),
        "batch" => batches(),
        "kernel" => kernel(&dims(&args[1..]), Backend::Cuda, "cuda"),
        "cpu-kernel" => kernel(&dims(&args[1..]), Backend::Auto, "cpu"),
        other => eprintln!("unknown section {other}"),
    }
}
