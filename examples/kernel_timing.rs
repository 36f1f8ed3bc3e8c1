//! Wall-clock timing of one kernel Rényi divergence estimate (Gram blocks + decomposition +
//! one (α, λ) evaluation) at n = m, as reported in docs/kernel.md.
//!
//! ```text
//! cargo run --release --example kernel_timing -- [--sizes 500,1000,2000,4000] [--dim 30]
//!     [--alpha 2] [--lambda 0.003] [--repeats 3] [--write-npy DIR] [--compare] [--phases]
//! ```
//!
//! `--compare` also times the generic route (`Backend::Lapack`: copying `dsyevd` calls and one
//! gemm per evaluation, the estimator before the in-place route), alternating with the default
//! route in every repeat so that both see the same machine load, and reports its times, its
//! value and the difference. `--phases` times the generic route's pieces one by one (the profile
//! of docs/kernel.md § cost): the `K_YY` eigendecomposition with vectors, the `C = K_XY E` gemm,
//! the `M_γ` gemm, the values-only `n × n` solve.
//!
//! Samples: X ~ N(0, I_d), Y ~ N(e₁, I_d) from a fixed ChaCha8 seed; RBF kernel with the median
//! bandwidth of the samples. `--write-npy DIR` also writes `x_<n>.npy`, `y_<n>.npy` so that
//! `benches/peers/kernel_paper.py` times numpy on the same inputs and checks the value. One line
//! of JSON per size on stdout: the best-of-`repeats` seconds for the Gram blocks, the
//! decomposition, one evaluation, the total, and the value.

use ndarray::{Array2, Axis};
use qrenyi::kernel::{median_bandwidth, Kernel, KernelDivergence, KernelKind};
use qrenyi::spectral::{Backend, EigenSolver};
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

/// CPU seconds of the calling thread so far (Linux `/proc/thread-self/schedstat`, nanoseconds;
/// NaN elsewhere). With `OPENBLAS_NUM_THREADS=1` every BLAS/LAPACK call runs on this thread, so
/// differences are the work of a phase whatever the machine's load.
fn thread_cpu() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns * 1e-9)
}

/// CPU seconds (user + system) of the whole process so far, all threads, exited ones included
/// (Linux `/proc/self/stat` fields 14–15, clock ticks of 1/100 s; NaN elsewhere): with the
/// calling thread's [`thread_cpu`] it shows how much of a phase ran on the other threads.
fn process_cpu() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // the command name (field 2) may contain spaces: count fields after its ')'
            let rest = &s[s.rfind(')')? + 1..];
            let f: Vec<&str> = rest.split_whitespace().collect();
            let utime: f64 = f.get(11)?.parse().ok()?;
            let stime: f64 = f.get(12)?.parse().ok()?;
            Some((utime + stime) / 100.0)
        })
        .unwrap_or(f64::NAN)
}

/// Seconds of one estimate, by phase.
#[derive(Clone, Copy)]
struct Times {
    gram: f64,
    decomposition: f64,
    evaluation: f64,
    total: f64,
}

impl Default for Times {
    fn default() -> Self {
        Times {
            gram: f64::INFINITY,
            decomposition: f64::INFINITY,
            evaluation: f64::INFINITY,
            total: f64::INFINITY,
        }
    }
}

impl Times {
    fn keep_best(&mut self, t: Times) {
        self.gram = self.gram.min(t.gram);
        self.decomposition = self.decomposition.min(t.decomposition);
        self.evaluation = self.evaluation.min(t.evaluation);
        self.total = self.total.min(t.total);
    }
}

/// The generic route's pieces, timed one by one (JSON object of seconds).
fn generic_phases(
    x: &Array2<f64>,
    y: &Array2<f64>,
    kernel: &Kernel,
) -> Result<String, Box<dyn std::error::Error>> {
    let (t, c) = (Instant::now(), thread_cpu());
    let kyy = kernel.gram_sym(y.view())?;
    let kxy = kernel.gram(x.view(), y.view())?;
    let kxx = kernel.gram_sym(x.view())?;
    let mut times = vec![("gram", t.elapsed().as_secs_f64(), thread_cpu() - c)];
    let mut lap = |name: &'static str, t: Instant, c: f64| {
        times.push((name, t.elapsed().as_secs_f64(), thread_cpu() - c));
    };
    let (t, c) = (Instant::now(), thread_cpu());
    let (nu, e) = Backend::Lapack.eigh_real(kyy.view())?;
    lap("eigh_kyy", t, c);
    let (t, c) = (Instant::now(), thread_cpu());
    let mut cm = kxy.dot(&e);
    lap("gemm_c", t, c);
    // a stand-in for diag(√|h|): any positive column scaling costs the same
    for (mut col, v) in cm.axis_iter_mut(Axis(1)).zip(nu.iter()) {
        let s = 1.0 / (1.0 + v.abs()).sqrt();
        col.mapv_inplace(|z| z * s);
    }
    let (t, c) = (Instant::now(), thread_cpu());
    let m = &kxx * 1e-3 + &cm.dot(&cm.t());
    lap("gemm_m", t, c);
    let (t, c) = (Instant::now(), thread_cpu());
    let mu = Backend::Lapack.eigvalsh_real(m.view())?;
    lap("values_n", t, c);
    assert!(mu.iter().all(|v| v.is_finite()));
    let fields: Vec<String> = times
        .iter()
        .map(|(k, w, c)| format!("\"{k}_s\": {w:.4}, \"{k}_cpu_s\": {c:.4}"))
        .collect();
    Ok(format!("{{{}}}", fields.join(", ")))
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
    let compare = args.iter().any(|a| a == "--compare");
    let phases = args.iter().any(|a| a == "--phases");
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
        let mut best = [Times::default(), Times::default()];
        let mut cpu = [Times::default(), Times::default()];
        let mut pcpu = [Times::default(), Times::default()];
        let mut values = [f64::NAN, f64::NAN];
        let routes: &[Backend] = if compare {
            &[Backend::Auto, Backend::Lapack]
        } else {
            &[Backend::Auto]
        };
        for _ in 0..repeats {
            for (r, &backend) in routes.iter().enumerate() {
                let (c0, p0) = (thread_cpu(), process_cpu());
                let t0 = Instant::now();
                let kxx = kernel.gram_sym(x.view())?;
                let kxy = kernel.gram(x.view(), y.view())?;
                let kyy = kernel.gram_sym(y.view())?;
                let (t1, c1, p1) = (Instant::now(), thread_cpu(), process_cpu());
                let est = KernelDivergence::from_gram_with(kxx, kxy, kyy, backend)?;
                let (t2, c2, p2) = (Instant::now(), thread_cpu(), process_cpu());
                values[r] = est.divergence(alpha, lambda)?;
                let (t3, c3, p3) = (Instant::now(), thread_cpu(), process_cpu());
                pcpu[r].keep_best(Times {
                    gram: p1 - p0,
                    decomposition: p2 - p1,
                    evaluation: p3 - p2,
                    total: p3 - p0,
                });
                cpu[r].keep_best(Times {
                    gram: c1 - c0,
                    decomposition: c2 - c1,
                    evaluation: c3 - c2,
                    total: c3 - c0,
                });
                best[r].keep_best(Times {
                    gram: (t1 - t0).as_secs_f64(),
                    decomposition: (t2 - t1).as_secs_f64(),
                    evaluation: (t3 - t2).as_secs_f64(),
                    total: (t3 - t0).as_secs_f64(),
                });
            }
        }
        let b = &best[0];
        let mut line = format!(
            "{{\"n\": {n}, \"dim\": {dim}, \"alpha\": {alpha}, \"lambda\": {lambda}, \"bandwidth\": {bw}, \"gram_s\": {:.4}, \"decomposition_s\": {:.4}, \"evaluation_s\": {:.4}, \"total_s\": {:.4}, \"value\": {}",
            b.gram, b.decomposition, b.evaluation, b.total, values[0]
        );
        let c = &cpu[0];
        line += &format!(
            ", \"cpu\": {{\"gram_s\": {:.4}, \"decomposition_s\": {:.4}, \"evaluation_s\": {:.4}, \"total_s\": {:.4}}}",
            c.gram, c.decomposition, c.evaluation, c.total
        );
        let p = &pcpu[0];
        line += &format!(
            ", \"process_cpu\": {{\"gram_s\": {:.2}, \"decomposition_s\": {:.2}, \"evaluation_s\": {:.2}, \"total_s\": {:.2}}}",
            p.gram, p.decomposition, p.evaluation, p.total
        );
        if compare {
            let (g, gc) = (&best[1], &cpu[1]);
            line += &format!(
                ", \"generic\": {{\"decomposition_s\": {:.4}, \"evaluation_s\": {:.4}, \"total_s\": {:.4}, \"cpu_decomposition_s\": {:.4}, \"cpu_evaluation_s\": {:.4}, \"cpu_total_s\": {:.4}, \"value\": {}}}, \"value_difference\": {:e}",
                g.decomposition,
                g.evaluation,
                g.total,
                gc.decomposition,
                gc.evaluation,
                gc.total,
                values[1],
                (values[0] - values[1]).abs()
            );
        }
        if phases {
            line += &format!(", \"phases\": {}", generic_phases(&x, &y, &kernel)?);
        }
        println!("{line}}}");
    }
    Ok(())
}
