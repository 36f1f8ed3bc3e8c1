//! Smooth divergences (src/smooth): one certified bracket per call, D_H^ε (ε = 0.2) and D_max^ε
//! (ε = 0.1, purified and trace balls) at d = 2, 4, 8, and D_H^ε, the purified ball (its rank-one /
//! low-rank duals) and the unbounded trace ball also at d = 16, 32 (docs/PERFORMANCE.md, "Smooth divergences"). The certified width is printed once.
//!
//! `cargo bench --bench smooth`

#[path = "common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use qrenyi::smooth::{self, Ball};
use std::hint::black_box;

fn brackets(c: &mut Criterion) {
    for d in [2usize, 4, 8, 16, 32] {
        let (rho, sigma) = common::pair(d, 29);
        let mut g = c.benchmark_group(format!("smooth/d={d}"));
        g.sample_size(10);
        let b = smooth::hypothesis_testing(&rho, &sigma, 0.2);
        eprintln!("smooth d={d} hypothesis-testing: {b:?}");
        g.bench_function("hypothesis-testing", |bch| {
            bch.iter(|| smooth::hypothesis_testing(black_box(&rho), black_box(&sigma), 0.2))
        });
        let balls: &[Ball] = if d <= 8 {
            &[Ball::Purified, Ball::Trace]
        } else {
            &[Ball::Purified, Ball::TraceUnbounded]
        };
        for &ball in balls {
            let b = smooth::max_divergence(&rho, &sigma, 0.1, ball);
            eprintln!("smooth d={d} dmax/{}: {b:?}", ball.name());
            g.bench_function(format!("dmax/{}", ball.name()), |bch| {
                bch.iter(|| smooth::max_divergence(black_box(&rho), black_box(&sigma), 0.1, ball))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, brackets);
criterion_main!(benches);
