//! Wall-clock timing of one kernel Rényi divergence estimate (Gram blocks + decomposition +
//! one (α, λ) evaluation) at n = m, as reported in docs/kernel.md.
//!
//! ```text
//! cargo run --release --example kernel_timing -- [--sizes 500,1000,2000,4000] [--dim 30]
//!     [--alpha 2] [--lambda 0.003] [--repeats 3] [--write-npy DIR]
//! ```
//!
//! Samples: X ~ N(0, I_d), Y ~ N(e₁, I_d) from a fixed ChaCha8 seed; RBF kernel with the median
//! bandwidth of the samples. `--write-npy DIR` also writes `x_<n>.npy`, `y_<n>.npy` so that
//! `benches/peers/kernel_paper.py` times numpy on the same inputs and checks the value. One line
//! of JSON per size on stdout: the best-of-`repeats` seconds for the Gram blocks, the
//! decomposition, one evaluation, the total, and the value.

use ndarray::Array2;
use qrenyi::kernel::{median_bandwidth, Kernel, KernelDivergence, KernelKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use std::time::Instant;

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let sizes: Vec<usize> = arg(&args, "--sizes", "500,1000,2000,4000".to_string())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let dim: usize = arg(&args, "--dim", 30);
    let alpha: f64 = arg(&args, "--alpha", 2.0);
    let lambda: f64 = arg(&args, "--lambda", 0.003);
    let repeats: usize = arg(&args, "--repeats", 3);
    let npy_dir: Option<String> = args
        .iter()
        .position(|a| a == "--write-npy")
        .and_then(|i| args.get(i + 1).cloned());
    eprintln!(
        "BLAS core {:?}, {} BLAS threads",
        qrenyi::spectral::blas_core(),
        qrenyi::spectral::blas_threads()
    );
    for n in sizes {
        let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
        let x = Array2::from_shape_fn((n, dim), |_| rng.sample::<f64, _>(StandardNormal));
        let mut y = Array2::from_shape_fn((n, dim), |_| rng.sample::<f64, _>(StandardNormal));
        y.column_mut(0).mapv_inplace(|v| v + 1.0);
        if let Some(dir) = &npy_dir {
            std::fs::create_dir_all(dir)?;
            ndarray_npy::write_npy(format!("{dir}/x_{n}.npy"), &x)?;
            ndarray_npy::write_npy(format!("{dir}/y_{n}.npy"), &y)?;
        }
        let bw = median_bandwidth(x.view(), y.view())?;
        let kernel = Kernel::new(KernelKind::Rbf, bw)?;
        let (mut best_gram, mut best_dec, mut best_eval, mut best_total) =
            (f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY);
        let mut value = f64::NAN;
        for _ in 0..repeats {
            let t0 = Instant::now();
            let kxx = kernel.gram_sym(x.view())?;
            let kxy = kernel.gram(x.view(), y.view())?;
            let kyy = kernel.gram_sym(y.view())?;
            let t1 = Instant::now();
            let est = KernelDivergence::from_gram(kxx, kxy, kyy)?;
            let t2 = Instant::now();
            value = est.divergence(alpha, lambda)?;
            let t3 = Instant::now();
            best_gram = best_gram.min((t1 - t0).as_secs_f64());
            best_dec = best_dec.min((t2 - t1).as_secs_f64());
            best_eval = best_eval.min((t3 - t2).as_secs_f64());
            best_total = best_total.min((t3 - t0).as_secs_f64());
        }
        println!(
            "{{\"n\": {n}, \"dim\": {dim}, \"alpha\": {alpha}, \"lambda\": {lambda}, \"bandwidth\": {bw}, \"gram_s\": {best_gram:.4}, \"decomposition_s\": {best_dec:.4}, \"evaluation_s\": {best_eval:.4}, \"total_s\": {best_total:.4}, \"value\": {value}}}"
        );
    }
    Ok(())
}
