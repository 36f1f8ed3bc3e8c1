//! End to end: raw matrices → two validated states → one value, the path a user with two arrays
//! (and the Python peers) takes. Group `end_to_end/d=N`, one function per family.
//!
//! Timed: `DensityMatrix::new` on both raw matrices (every validation check), `Pair::new`, and one
//! divergence at α = 2 (hockey-stick at γ = e). Copying the raw inputs is excluded
//! (`iter_batched`). Whatever eigendecompositions the value needs are computed inside the timed
//! region (states decompose lazily, so hockey-stick needs none).
//!
//! `cargo bench --bench end_to_end`

#[path = "common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{Family, Pair};
use qrenyi::state::DensityMatrix;

const ALPHA: f64 = 2.0;
/// `γ = e^ε` at ε = 1.
const GAMMA: f64 = std::f64::consts::E;

type Raw = (Array2<Complex64>, Array2<Complex64>);
type Quantity = fn(&Pair) -> qrenyi::Result<f64>;

fn quantities() -> [(&'static str, Quantity); 5] {
    [
        ("petz", |p| p.renyi(Family::Petz, ALPHA)),
        ("sandwiched", |p| p.renyi(Family::Sandwiched, ALPHA)),
        ("maximal", |p| p.renyi(Family::Maximal, ALPHA)),
        ("umegaki", |p| p.umegaki()),
        ("hockey_stick", |p| p.hockey_stick(GAMMA)),
    ]
}

fn end_to_end(c: &mut Criterion) {
    for d in common::DIMS_SLOW {
        let (rho, sigma) = common::pair(d, 7);
        let raw: Raw = (rho.matrix().clone(), sigma.matrix().clone());
        let mut g = c.benchmark_group(format!("end_to_end/d={d}"));
        g.sample_size(common::samples(d));
        for (name, q) in quantities() {
            g.bench_function(name, |b| {
                b.iter_batched(
                    || raw.clone(),
                    |(r, s)| {
                        let (r, s) = (DensityMatrix::new(r)?, DensityMatrix::new(s)?);
                        q(&Pair::new(&r, &s)?)
                    },
                    BatchSize::SmallInput,
                )
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = end_to_end
}
criterion_main!(benches);
