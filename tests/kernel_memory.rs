//! Memory accounting of the kernel Rényi divergence estimator (docs/kernel.md § cost): the peak
//! heap of building it and evaluating it, against the budget `1.5 N²` doubles, `N = n + m` (one
//! and a half joint Gram matrices). Its own test binary because it installs a counting global
//! allocator. LAPACK's work arrays are allocated on the Rust side and counted; OpenBLAS's fixed
//! per-thread buffers are not (they do not grow with `N`).

use ndarray::Array2;
use qrenyi::kernel::{Kernel, KernelDivergence, KernelKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use std::sync::Mutex;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{peak_bytes, Counting};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One measurement at a time (the test harness runs tests on several threads).
static SERIAL: Mutex<()> = Mutex::new(());

/// The peak heap of `f` above the heap in use before it, in doubles.
fn peak_doubles<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let (out, bytes) = peak_bytes(f);
    (out, bytes as f64 / 8.0)
}

fn samples(n: usize, m: usize, d: usize) -> (Array2<f64>, Array2<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let x = Array2::from_shape_fn((n, d), |_| rng.sample::<f64, _>(StandardNormal));
    let mut y = Array2::from_shape_fn((m, d), |_| rng.sample::<f64, _>(StandardNormal));
    y.column_mut(0).mapv_inplace(|v| v + 1.0);
    (x, y)
}

/// From samples: `K_YY` is decomposed in place before `K_XY` and `K_XX` exist, so construction
/// peaks at about `max(3m², 2nm + m²)` doubles (`dsyevd`'s `2m²` workspace beside `K_YY`, then
/// `K_XY`, `E` and `C`) — `0.75 N²` at `n = m` — and one `(α, λ)` evaluation holds `K_XX`, `C`
/// and `M_γ` (`2n² + nm`). The budget `1.5 N²` holds while `3m² ≤ 1.5 N²`, i.e. `m ≤ 2.41 n`
/// (docs/kernel.md § cost); the cases are `n = m`, `n = 3m` and `m = 2n`. From `m = 1024` on
/// (`n = m = 1100`) the overlapped construction holds `K_XY` while `K_YY` is decomposed: peak
/// `3m² + nm` (`1.0 N²` at `n = m`; docs/kernel.md, "eigh_times").
#[test]
#[cfg(feature = "openblas")] // the budget is the in-place (LAPACK) route's; the pure-Rust route copies
fn kernel_estimator_peak_memory_within_one_and_a_half_joint_gram_matrices() {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for (n, m) in [(600, 600), (900, 300), (400, 800), (1100, 1100)] {
        let (x, y) = samples(n, m, 8);
        let kernel = Kernel::new(KernelKind::Rbf, 4.0).unwrap();
        let big_n = (n + m) as f64;
        let budget = 1.5 * big_n * big_n;
        let (est, build) =
            peak_doubles(|| KernelDivergence::from_samples(x.view(), y.view(), &kernel).unwrap());
        let (d, eval) = peak_doubles(|| est.divergence(2.0, 1e-3).unwrap());
        assert!(d.is_finite());
        let (_, rho) = peak_doubles(|| est.rho_spectrum().unwrap().len());
        for (what, peak) in [
            ("construction", build),
            ("evaluation", eval),
            ("ρ spectrum", rho),
        ] {
            // the estimator's own blocks (K_XX and C: n² + nm) stay allocated during evaluation
            let held = if what == "construction" {
                0.0
            } else {
                (n * n + n * m) as f64
            };
            let total = peak + held;
            let ratio = total / (big_n * big_n);
            eprintln!("n = {n}, m = {m}: {what} peak {ratio:.3} N²");
            assert!(
                total <= budget,
                "n = {n}, m = {m}: {what} peaks at {total:.0} doubles = {ratio:.3} N² (budget 1.5 N²)"
            );
        }
    }
}

/// From Gram blocks handed over by value: the blocks (`N²`-ish) plus `dsyevd`'s `2m²` workspace,
/// `1.25 N²` at `n = m` — inside the budget with the caller's blocks counted.
#[test]
fn kernel_estimator_from_gram_peak_memory_within_budget() {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (n, m) = (500, 500);
    let (x, y) = samples(n, m, 8);
    let kernel = Kernel::new(KernelKind::Rbf, 4.0).unwrap();
    let big_n = (n + m) as f64;
    let (est, peak) = peak_doubles(|| {
        let kxx = kernel.gram_sym(x.view()).unwrap();
        let kxy = kernel.gram(x.view(), y.view()).unwrap();
        let kyy = kernel.gram_sym(y.view()).unwrap();
        KernelDivergence::from_gram(kxx, kxy, kyy).unwrap()
    });
    assert!(est.divergence(6.0, 0.01).unwrap().is_finite());
    let ratio = peak / (big_n * big_n);
    eprintln!("from_gram, n = m = {n}: peak {ratio:.3} N² (blocks included)");
    assert!(
        ratio <= 1.5,
        "from_gram peaks at {peak:.0} doubles = {ratio:.3} N² (budget 1.5 N²)"
    );
}
