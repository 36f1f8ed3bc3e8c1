//! Peak memory of one divergence (docs/PERFORMANCE.md, "Peak memory").
//!
//! `peak_memory D FAMILY` builds two seeded random states of dimension `D` and computes both
//! eigendecompositions (states decompose lazily, on first use; here before the measurement, so
//! that it covers the divergence's own work), then one divergence of FAMILY (`petz`, `sandwiched`,
//! `maximal`, `hockey`) at α = 2 (γ = e), or nothing for `none` (the baseline). `decompose`
//! measures instead the first eigendecomposition of one validated state (the default backend's
//! workspace included).
//!
//! Two measurements:
//! * printed: the peak of the Rust heap *during the divergence* above the heap in use before it,
//!   in complex d×d buffers (`bytes / 16d²`), from a counting global allocator. LAPACK's work
//!   arrays are allocated on the Rust side, so they are counted; OpenBLAS's own fixed buffers are not.
//! * with `/usr/bin/time -v`: the process's peak RSS. Building and validating the two states (one
//!   full eigendecomposition each) has its own peak, so `(peak RSS − baseline peak RSS) / (16·d²)`
//!   only shows the part of the divergence's peak above it.
//!
//! `cargo build --release --example peak_memory && /usr/bin/time -v target/release/examples/peak_memory 1024 sandwiched`

use qrenyi::divergence::{Family, Pair};
use qrenyi::state::DensityMatrix;
use rand::SeedableRng;

#[path = "../tests/common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{peak_bytes, Counting};

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() -> qrenyi::Result<()> {
    let mut args = std::env::args().skip(1);
    let d: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1024);
    let what = args.next().unwrap_or_else(|| "sandwiched".into());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let rho = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng)?;
    let sigma = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng)?;
    if what != "decompose" {
        rho.eigen()?;
        sigma.eigen()?;
    }
    let (value, bytes) = peak_bytes(|| -> qrenyi::Result<f64> {
        let pair = Pair::new(&rho, &sigma)?;
        Ok(match what.as_str() {
            "none" => 0.0,
            "decompose" => rho.eigen()?.max_value(),
            "hockey" => pair.hockey_stick(std::f64::consts::E)?,
            family => pair.renyi(family.parse::<Family>()?, 2.0)?,
        })
    });
    let value = value?;
    let extra = bytes as f64 / (16.0 * (d * d) as f64);
    println!("{what} d={d}: value {value}, Rust-heap peak during the call: {extra:.2} complex d×d buffers");
    Ok(())
}
