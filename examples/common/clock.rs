//! CPU clocks and seeded states shared by the hockey-stick profiling examples (included with
//! `#[path]`; not an example itself).
#![allow(dead_code)]

/// `clock_gettime` of `id` in seconds.
fn clock(id: libc::clockid_t) -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: plain getter into a valid timespec.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// CPU time of the calling thread, in seconds.
pub fn thread_cpu() -> f64 {
    clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU time of the process (all its threads), in seconds.
pub fn process_cpu() -> f64 {
    clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// A seeded Hilbert–Schmidt random state's matrix.
pub fn hs(d: usize, rng: &mut rand_chacha::ChaCha8Rng) -> ndarray::Array2<num_complex::Complex64> {
    qrenyi::state::DensityMatrix::random_hilbert_schmidt(d, d, rng)
        .unwrap()
        .matrix()
        .clone()
}

/// The dimensions of the first argument (`64,256,512` when absent) and the count of the second
/// (`default` when absent).
pub fn dims_and_count(default: usize) -> (Vec<usize>, usize) {
    let args: Vec<String> = std::env::args().collect();
    let dims = args
        .get(1)
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![64, 256, 512]);
    let count = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(default);
    (dims, count)
}
