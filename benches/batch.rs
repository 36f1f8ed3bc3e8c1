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

/// Pairs in a stack (issue 12's benchmark: a stack of 10,000 pairs from Python).
const STACK: usize = 10_000;

/// `batch::renyi_stacks` on two stacks of 10,000 raw matrices (what `qrenyi.divergence` hands the
/// core for two `(n, d, d)` arrays): validation and the value of every pair, one order α = 2.
/// Run with `RAYON_NUM_THREADS=1` for the CPU time per pair.
fn stacks(c: &mut Criterion) {
    use qrenyi::divergence::batch::Operand;
    for d in [2usize, 4, 8] {
        let pairs = common::pairs(d, STACK);
        let rs: Vec<_> = pairs.iter().map(|(r, _)| r.matrix().clone()).collect();
        let ss: Vec<_> = pairs.iter().map(|(_, s)| s.matrix().clone()).collect();
        let mut g = c.benchmark_group(format!("stacks/d={d}"));
        g.throughput(Throughput::Elements(STACK as u64));
        for family in Family::ALL {
            g.bench_function(family.name(), |b| {
                b.iter(|| {
                    batch::renyi_stacks(
                        Operand::Stack(black_box(&rs)),
                        Operand::Stack(black_box(&ss)),
                        family,
                        &[2.0],
                        qrenyi::state::Tolerance::default(),
                    )
                })
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = throughput, stacks
}
criterion_main!(benches);
