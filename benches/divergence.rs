//! Every divergence at the dimensions, each next to its *floor* in the same run.
//!
//! What is timed (docs/PERFORMANCE.md, "Definitions"):
//!
//! * `<family>/call` — one divergence of two already validated states: `Pair::new(&ρ, &σ)` and one
//!   value. A [`DensityMatrix`] caches its eigendecomposition once computed; the bench computes
//!   both before timing, so a call starts from both decompositions.
//! * `<family>/floor` — the LAPACK/BLAS calls no algorithm starting from the same data can avoid,
//!   on the same matrices:
//!   - Petz and Umegaki: the overlap `V_ρ† V_σ` (one zgemm);
//!   - sandwiched: the change of basis `V_σ†ρV_σ` + one values-only eigensolve of
//!     `σ^{γ/2} ρ σ^{γ/2}` in σ's eigenbasis. A change of basis is two matrix products; its
//!     cheapest form from the two decompositions is `W = V_σ†V_ρ` (one zgemm) and the Gram matrix
//!     `(W√Λ)(W√Λ)†` (one zherk, half the flops of a zgemm), so the floor times both;
//!   - maximal: the same change of basis + one full eigensolve of `σ^{−1/2} ρ σ^{−1/2}` (the
//!     weights need its eigenvectors);
//!   - hockey-stick: one values-only eigensolve of `ρ − γσ`.
//! * `validate/call` — `DensityMatrix::new` (checks + the Cholesky PSD test; the decomposition is
//!   deferred to first use), reported separately; its floor is the Cholesky factorisation.
//!   `decompose` times the (lazy) full eigendecomposition a state computes on first use.
//!
//! `cargo bench --bench divergence`

#[path = "common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{Family, Pair};
use qrenyi::spectral::{adjoint_times, gram, Backend, EigenSolver};
use qrenyi::state::{dagger, DensityMatrix};
use std::hint::black_box;

const ALPHA: f64 = 2.0;
/// `γ = e^ε` at ε = 1.
const GAMMA: f64 = std::f64::consts::E;

/// `D^{p} ρ' D^{p}` with `ρ' = V_σ† ρ V_σ` and `D = diag(μ)` (σ full rank in these benches).
fn scaled_in_sigma_basis(rho: &DensityMatrix, sigma: &DensityMatrix, p: f64) -> Array2<Complex64> {
    let v = sigma.eigen().expect("decomposition").vectors();
    let rp = dagger(&v.view()).dot(rho.matrix()).dot(v);
    let mu = sigma.eigen().expect("decomposition").values();
    Array2::from_shape_fn(rp.dim(), |(i, j)| rp[[i, j]] * (mu[i] * mu[j]).powf(p))
}

fn divergences(c: &mut Criterion) {
    let backend = Backend::default();
    for d in common::DIMS {
        let (rho, sigma) = common::pair(d, 7);
        // decompose both states now (lazy otherwise), so every `call` starts from both decompositions
        let (vr, vs) = (
            rho.eigen().expect("decomposition").vectors(),
            sigma.eigen().expect("decomposition").vectors(),
        );
        let mut g = c.benchmark_group(format!("divergence/d={d}"));
        g.sample_size(common::samples(d));

        let zgemm = || black_box(vr).dot(black_box(vs));
        // the Gram factor W√Λ of ρ' = V_σ†ρV_σ (its O(d²) scaling is not part of the floor)
        let root = adjoint_times(&vs.view(), &vr.view());
        let root = Array2::from_shape_fn(root.dim(), |(j, i)| {
            root[[j, i]]
                * rho.eigen().expect("decomposition").values()[i]
                    .max(0.0)
                    .sqrt()
        });
        let change_of_basis = || {
            zgemm();
            gram(&black_box(&root).view())
        };
        for family in Family::ALL {
            g.bench_function(format!("{}/call", family.name()), |b| {
                b.iter(|| Pair::new(black_box(&rho), black_box(&sigma))?.renyi(family, ALPHA))
            });
        }
        g.bench_function("petz/floor", |b| b.iter(zgemm));
        g.bench_function("umegaki/call", |b| {
            b.iter(|| Pair::new(black_box(&rho), black_box(&sigma))?.umegaki())
        });
        g.bench_function("umegaki/floor", |b| b.iter(zgemm));

        let gamma = (1.0 - ALPHA) / ALPHA;
        let a = scaled_in_sigma_basis(&rho, &sigma, gamma / 2.0);
        g.bench_function("sandwiched/floor", |b| {
            b.iter(|| {
                change_of_basis();
                backend.eigvalsh(black_box(a.view()))
            })
        });
        let t = scaled_in_sigma_basis(&rho, &sigma, -0.5);
        g.bench_function("maximal/floor", |b| {
            b.iter(|| {
                change_of_basis();
                backend.eigh(black_box(t.view()))
            })
        });

        g.bench_function("hockey_stick/call", |b| {
            b.iter(|| Pair::new(black_box(&rho), black_box(&sigma))?.hockey_stick(GAMMA))
        });
        let diff = rho.matrix() - &sigma.matrix().mapv(|z| z * GAMMA);
        g.bench_function("hockey_stick/floor", |b| {
            b.iter(|| backend.eigvalsh(black_box(diff.view())))
        });

        g.bench_function("validate/call", |b| {
            b.iter_batched(
                || rho.matrix().clone(),
                DensityMatrix::new,
                BatchSize::LargeInput,
            )
        });
        g.bench_function("validate/floor", |b| {
            b.iter(|| backend.is_positive_definite(black_box(rho.matrix().view()), 1e-10))
        });
        g.bench_function("decompose", |b| {
            b.iter(|| backend.eigh(black_box(rho.matrix().view())))
        });
        g.finish();
    }
}

/// 64 orders on one pair: `Pair::curve` against 64 independent calls.
fn curves(c: &mut Criterion) {
    let alphas = common::alphas64();
    for d in common::DIMS_SLOW {
        let (rho, sigma) = common::pair(d, 11);
        let mut g = c.benchmark_group(format!("curve/d={d}"));
        g.sample_size(common::samples(d));
        for family in Family::ALL {
            g.bench_function(format!("{}/curve64", family.name()), |b| {
                b.iter(|| Pair::new(black_box(&rho), black_box(&sigma))?.curve(family, &alphas))
            });
            g.bench_function(format!("{}/single64", family.name()), |b| {
                b.iter(|| {
                    alphas
                        .iter()
                        .map(|&a| Pair::new(black_box(&rho), black_box(&sigma))?.renyi(family, a))
                        .collect::<qrenyi::Result<Vec<f64>>>()
                })
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = divergences, curves
}
criterion_main!(benches);
