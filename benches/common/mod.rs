//! Shared inputs and settings of the criterion benches.
//!
//! Inputs are seeded Hilbert–Schmidt random states of full rank (the generic case: every
//! eigenvalue in the support, no kernel), so every run measures the same matrices.
#![allow(dead_code)] // each bench uses a different subset

use criterion::Criterion;
use qrenyi::state::DensityMatrix;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// Dimensions of the spectral and divergence benches (the grid).
pub const DIMS: [usize; 7] = [2, 4, 8, 16, 64, 256, 1024];
/// Dimensions the slow paths (nalgebra, 64 single calls, …) stop at.
pub const DIMS_SLOW: [usize; 6] = [2, 4, 8, 16, 64, 256];

/// Short runs: the machine has 2 cores shared with other jobs. Override with criterion's
/// command-line flags (`--warm-up-time`, `--measurement-time`) for final numbers.
pub fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
        .configure_from_args()
}

/// Fewer samples for matrices of dimension ≥ 256 (one sample may take a second).
pub fn samples(d: usize) -> usize {
    if d >= 256 {
        10
    } else {
        20
    }
}

/// A seeded pair `(ρ, σ)` of full-rank Hilbert–Schmidt random states of dimension `d`.
pub fn pair(d: usize, seed: u64) -> (DensityMatrix, DensityMatrix) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (d as u64) << 32);
    let rho = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).expect("valid random state");
    let sigma = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).expect("valid random state");
    (rho, sigma)
}

/// `n` seeded pairs of dimension `d`.
pub fn pairs(d: usize, n: usize) -> Vec<(DensityMatrix, DensityMatrix)> {
    (0..n as u64).map(|k| pair(d, 1000 + k)).collect()
}

/// 64 orders spread over (0, 10]: a typical RDP α grid plus a log-spaced range.
pub fn alphas64() -> Vec<f64> {
    (0..64).map(|k| 0.1 * 1.075f64.powi(k)).collect()
}
