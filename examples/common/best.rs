//! A best-of-batches wall-clock timer shared by the profiling examples (included with `#[path]`;
//! not an example itself; no dependency beyond std, so it builds without the `cli` feature).

/// Wall time of one call of `f` in µs: the fastest of many short batches (`reps` calls in all, 20
/// per batch, at least 100 batches) — on a loaded machine a short batch often runs without being
/// descheduled, so the minimum stays near the quiet figure.
pub fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> f64 {
    let (batches, reps) = ((reps / 20).max(100), 20);
    let mut out = f64::INFINITY;
    for _ in 0..batches {
        let t = std::time::Instant::now();
        for _ in 0..reps {
            std::hint::black_box(f());
        }
        out = out.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    out * 1e6
}
