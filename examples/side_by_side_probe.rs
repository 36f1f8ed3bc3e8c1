//! Probe (docs/PERFORMANCE.md, "Two steps side by side from the calling thread"): wall time of
//! `states_from_matrices` with two full decompositions at `d` after `gap` µs of other work on
//! the calling thread, of the two decompositions one after the other, and how soon a pool thread
//! starts a task spawned from the caller. With `trace`: per call, a plain `rayon::spawn` of σ's
//! decomposition beside ρ's on the caller, with the core each ran on (the placement that
//! `spectral::beside` corrects).
//!
//! `cargo run --release --example side_by_side_probe -- [d] [gap_us] [calls] [trace]`
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::from_matrices::{states_from_matrices, Check};
use qrenyi::spectral::Backend;
use qrenyi::state::Tolerance;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

fn random_state(d: usize, rng: &mut impl Rng) -> Array2<Complex64> {
    let g = Array2::from_shape_fn((d, d), |_| {
        Complex64::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5)
    });
    let r = g.dot(&g.t().mapv(|z| z.conj()));
    let t = r.diag().iter().map(|z| z.re).sum::<f64>();
    r / Complex64::new(t, 0.0)
}

fn main() {
    let arg = |k: usize, def: u64| {
        std::env::args()
            .nth(k)
            .and_then(|s| s.parse().ok())
            .unwrap_or(def)
    };
    let (d, gap, calls) = (arg(1, 64) as usize, arg(2, 1000), arg(3, 40) as usize);
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let (r, s) = (random_state(d, &mut rng), random_state(d, &mut rng));
    let spin = |us: u64| {
        let t = Instant::now();
        while t.elapsed() < Duration::from_micros(us) {}
    };
    let wall = |f: &dyn Fn()| {
        let mut v: Vec<u128> = (0..calls)
            .map(|_| {
                spin(gap);
                let t = Instant::now();
                f();
                t.elapsed().as_micros()
            })
            .collect();
        v.sort();
        format!(
            "min {} q25 {} median {} q75 {} max {} µs",
            v[0],
            v[calls / 4],
            v[calls / 2],
            v[3 * calls / 4],
            v[calls - 1]
        )
    };
    let checks = (Check::Decomposed, Check::Decomposed);
    let both = || {
        let _ = states_from_matrices(
            r.clone(),
            s.clone(),
            checks,
            Tolerance::default(),
            Backend::Auto,
        );
    };
    let seq = || {
        qrenyi::spectral::with_single_blas_thread(|| {
            for m in [&r, &s] {
                let _ = qrenyi::state::DensityMatrix::with_options_decomposed(
                    m.clone(),
                    Tolerance::default(),
                    Backend::Auto,
                );
            }
        })
    };
    println!("d = {d}, gap {gap} µs, {calls} calls");
    if std::env::args().nth(4).as_deref() == Some("trace") {
        return trace_pair(&r, &s, gap, calls);
    }
    println!("side by side: {}", wall(&both));
    println!("sequential:   {}", wall(&seq));
    for busy in [0u64, 450] {
        let mut v = claim_latency(gap, busy, calls);
        v.sort();
        println!(
            "spawn-to-start, caller busy {busy} µs: min {} median {} max {} µs",
            v[0],
            v[calls / 2],
            v[calls - 1]
        );
        qrenyi::spectral::with_single_blas_thread(|| {
            let mut v = claim_latency(gap, busy, calls);
            v.sort();
            println!(
                "  same, BLAS pinned: min {} median {} max {} µs",
                v[0],
                v[calls / 2],
                v[calls - 1]
            );
        });
    }
}

/// When does a pool thread start a task spawned from the calling thread (µs after the spawn),
/// with the calling thread busy for `busy` µs meanwhile?
#[allow(dead_code)]
pub fn claim_latency(gap: u64, busy: u64, calls: usize) -> Vec<u128> {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let spin = |us: u64| {
        let t = Instant::now();
        while t.elapsed() < Duration::from_micros(us) {}
    };
    (0..calls)
        .map(|_| {
            spin(gap);
            let t0 = Instant::now();
            let at = Arc::new(AtomicU64::new(u64::MAX));
            let a2 = Arc::clone(&at);
            rayon::spawn(move || a2.store(t0.elapsed().as_micros() as u64, Ordering::SeqCst));
            spin(busy);
            while at.load(Ordering::SeqCst) == u64::MAX {}
            at.load(Ordering::SeqCst) as u128
        })
        .collect()
}

/// `(cpu at start, cpu at end, wall µs, thread-CPU µs)` of one step.
#[allow(dead_code)]
fn traced(f: impl FnOnce()) -> (i32, i32, u128, u128) {
    let cpu_time = || {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: plain clock read into a local.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        ts.tv_sec as u128 * 1_000_000 + ts.tv_nsec as u128 / 1000
    };
    // SAFETY: plain query.
    let c0 = unsafe { libc::sched_getcpu() };
    let (t, c) = (Instant::now(), cpu_time());
    f();
    let (w, c) = (t.elapsed().as_micros(), cpu_time() - c);
    // SAFETY: plain query.
    (c0, unsafe { libc::sched_getcpu() }, w, c)
}

#[allow(dead_code)]
pub fn trace_pair(r: &Array2<Complex64>, s: &Array2<Complex64>, gap: u64, calls: usize) {
    use std::sync::{Arc, Mutex};
    let spin = |us: u64| {
        let t = Instant::now();
        while t.elapsed() < Duration::from_micros(us) {}
    };
    let dec = |m: &Array2<Complex64>| {
        let _ = qrenyi::state::DensityMatrix::with_options_decomposed(
            m.clone(),
            Tolerance::default(),
            Backend::Auto,
        );
    };
    qrenyi::spectral::with_single_blas_thread(|| {
        for _ in 0..calls {
            spin(gap);
            let t0 = Instant::now();
            let out = Arc::new(Mutex::new(None));
            let (o2, s2) = (Arc::clone(&out), s.clone());
            rayon::spawn(move || {
                let start = t0.elapsed().as_micros();
                let tr = traced(|| dec(&s2));
                *o2.lock().unwrap() = Some((start, tr));
            });
            let a = traced(|| dec(r));
            loop {
                if let Some(b) = *out.lock().unwrap() {
                    println!("total {:5} | caller cpu {}→{} wall {:4} cpu {:4} | pool start {:3} cpu {}→{} wall {:4} cpu {:4}",
                        t0.elapsed().as_micros(), a.0, a.1, a.2, a.3, b.0, b.1.0, b.1.1, b.1.2, b.1.3);
                    break;
                }
            }
        }
    });
}
