//! Spectral kernels: full (`eigh`) and values-only (`eigvalsh`) Hermitian eigensolves and the
//! Cholesky PSD test (`cholesky`: `is_positive_definite`) with every backend (`auto` included), and
//! the complex matrix product (`zgemm` through ndarray's BLAS path), at the dimensions.
//! nalgebra stops at d = 256 (1024 only for the fast paths); d = 12, 24, 32, 48 are added to locate
//! the nalgebra/LAPACK crossovers. `spectral/d=512` compares the two
//! LAPACK full solvers (`zheevd`, `zheevr`) between the 256 and 1024.
//!
//! `cargo bench --bench spectral`

#[path = "common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use qrenyi::spectral::{Backend, EigenSolver};
use std::hint::black_box;

/// Extra sizes between the grid points, where nalgebra and LAPACK cross over
/// ([`qrenyi::spectral::AUTO_NALGEBRA_BELOW`] and friends).
const CROSSOVER_DIMS: [usize; 4] = [12, 24, 32, 48];

fn spectral(c: &mut Criterion) {
    let mut dims: Vec<usize> = common::DIMS.into_iter().chain(CROSSOVER_DIMS).collect();
    dims.sort_unstable();
    for d in dims {
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
            // both LAPACK backends run the same zpotrf: benched once, under its own name
            let chol = match backend {
                Backend::LapackMrrr => continue,
                Backend::Lapack => "lapack-zpotrf",
                other => other.name(),
            };
            group.bench_function(BenchmarkId::new("cholesky", chol), |b| {
                b.iter(|| backend.is_positive_definite(black_box(a.view()), 1e-10))
            });
        }
        let s = sigma.matrix();
        group.bench_function("zgemm", |b| b.iter(|| black_box(a).dot(black_box(s))));
        group.finish();
    }
    let (rho, _) = common::pair(512, 1);
    let mut group = c.benchmark_group("spectral/d=512");
    group.sample_size(10);
    for backend in [Backend::Lapack, Backend::LapackMrrr, Backend::Faer] {
        group.bench_function(BenchmarkId::new("eigh", backend.name()), |b| {
            b.iter(|| backend.eigh(black_box(rho.matrix().view())))
        });
    }
    group.finish();
}

/// The fixed-size solvers (`spectral::small`: Jacobi, Householder + QL; stack arrays, no conversion) against nalgebra and
/// LAPACK on the same matrices, d = 2…16: where `Backend::Auto` switches
/// ([`qrenyi::spectral::small::AUTO_SMALL_VECTORS_MAX`], [`qrenyi::spectral::small::AUTO_SMALL_VALUES_MAX`]).
fn small_jacobi(c: &mut Criterion) {
    use qrenyi::spectral::small::{eigh_fixed, eigh_tridiagonal, from_view, with_small_dim};
    for d in [2usize, 3, 4, 6, 8, 12, 16] {
        let (rho, _) = common::pair(d, 1);
        let a = rho.matrix();
        let mut group = c.benchmark_group(format!("spectral-small/d={d}"));
        for vectors in [true, false] {
            let kind = if vectors { "eigh" } else { "eigvalsh" };
            with_small_dim!(d, N => {
                let m = from_view::<N>(&a.view());
                group.bench_function(BenchmarkId::new(kind, "jacobi"), |b| {
                    b.iter(|| eigh_fixed::<N>(black_box(&m), vectors))
                });
                group.bench_function(BenchmarkId::new(kind, "tridiagonal"), |b| {
                    b.iter(|| eigh_tridiagonal::<N>(black_box(&m), vectors))
                });
            }, _ => ());
            for backend in [Backend::Nalgebra, Backend::Lapack] {
                group.bench_function(BenchmarkId::new(kind, backend.name()), |b| {
                    b.iter(|| {
                        if vectors {
                            backend.eigh(black_box(a.view())).map(|_| ())
                        } else {
                            backend.eigvalsh(black_box(a.view())).map(|_| ())
                        }
                    })
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = spectral, small_jacobi
}
criterion_main!(benches);
