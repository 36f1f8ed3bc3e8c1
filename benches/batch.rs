//! Throughput of many small pairs: `divergence::batch` (rayon across pairs, one BLAS thread each)
//! against a plain loop over `Pair` (one thread), in pairs per second, at d = 2, 4, 8 (and 16, 64
//! to show where the thread policy switches).
//!
//! `cargo bench --bench batch`

#[path = "common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use qrenyi::divergence::{batch, Family, Pair};
use std::hint::black_box;

/// Pairs per batch.
const N: usize = 1024;

fn throughput(c: &mut Criterion) {
    for d in [2usize, 4, 8, 16, 64] {
        let n = if d >= 64 { 64 } else { N };
        let pairs = common::pairs(d, n);
        let mut g = c.benchmark_group(format!("batch/d={d}"));
        g.throughput(Throughput::Elements(n as u64));
        for family in Family::ALL {
            g.bench_function(format!("{}/batch", family.name()), |b| {
                b.iter(|| batch::renyi(black_box(&pairs), family, 2.0))
            });
            g.bench_function(format!("{}/loop", family.name()), |b| {
                b.iter(|| {
                    pairs
                        .iter()
                        .map(|(r, s)| Pair::new(r, s)?.renyi(family, 2.0))
                        .collect::<Vec<_>>()
                })
            });
        }
        let mats: Vec<_> = pairs.iter().map(|(r, _)| r.matrix().clone()).collect();
        g.bench_function("validate/batch", |b| {
            b.iter(|| batch::states(black_box(&mats)))
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = throughput
}
criterion_main!(benches);
