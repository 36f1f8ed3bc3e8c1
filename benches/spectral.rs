//! Spectral kernels: full (`eigh`) and values-only (`eigvalsh`) Hermitian eigensolves with every
//! backend, and the complex matrix product (`zgemm` through ndarray's BLAS path), at the issue's
//! dimensions. nalgebra stops at d = 256 (1024 only for the fast paths).
//!
//! `cargo bench --bench spectral`

#[path = "common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use qrenyi::spectral::{Backend, EigenSolver};
use std::hint::black_box;

fn spectral(c: &mut Criterion) {
    for d in common::DIMS {
        let (rho, sigma) = common::pair(d, 1);
        let a = rho.matrix();
        let mut group = c.benchmark_group(format!("spectral/d={d}"));
        group.sample_size(common::samples(d));
        for backend in Backend::available() {
            if backend == Backend::Nalgebra && d > 256 {
                continue;
            }
            group.bench_function(BenchmarkId::new("eigh", backend.name()), |b| {
                b.iter(|| backend.eigh(black_box(a.view())))
            });
            group.bench_function(BenchmarkId::new("eigvalsh", backend.name()), |b| {
                b.iter(|| backend.eigvalsh(black_box(a.view())))
            });
        }
        let s = sigma.matrix();
        group.bench_function("zgemm", |b| b.iter(|| black_box(a).dot(black_box(s))));
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = spectral
}
criterion_main!(benches);
