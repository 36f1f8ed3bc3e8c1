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
//! * `sandwiched_direct/d=N` (issue 14) — one sandwiched order from a validated but *undecomposed*
//!   ρ (σ decomposed): `direct` is the call (`Pair`'s direct route, `ρ' = V_σ†ρV_σ` by zhemm +
//!   zgemm, ρ never decomposed), `decomposition` the previous route (ρ's decomposition, then the
//!   call), `floor` the direct route's LAPACK/BLAS calls (zhemm + zgemm + one values-only
//!   eigensolve). `validate_decomposed` is validation from the eigendecomposition
//!   (`DensityMatrix::with_options_decomposed`) against `validate_then_decompose` (Cholesky, then
//!   the decomposition); `hockey_stick_e2e` two raw matrices → two validated states → `E_γ`, against
//!   its floor `hockey_stick_floor` (one values-only eigensolve of `ρ − γσ`, what numpy does).
//!
//! `cargo bench --bench divergence`

#[path = "common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{Family, Pair};
use qrenyi::spectral::{adjoint_times, congruence, gram, Backend, EigenSolver};
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

/// The sandwiched direct route against the decomposition route and its floor (module docs).
fn direct_route(c: &mut Criterion) {
    let backend = Backend::default();
    for d in [64, 256, 512, 1024] {
        let (rho, sigma) = common::pair(d, 7);
        let es = sigma.eigen().expect("decomposition");
        let mut g = c.benchmark_group(format!("sandwiched_direct/d={d}"));
        g.sample_size(common::samples(d));
        let fresh = || DensityMatrix::new(rho.matrix().clone()).expect("valid");
        g.bench_function("direct", |b| {
            b.iter_batched(
                fresh,
                |r| Pair::new(&r, black_box(&sigma))?.renyi(Family::Sandwiched, ALPHA),
                BatchSize::LargeInput,
            )
        });
        g.bench_function("decomposition", |b| {
            b.iter_batched(
                fresh,
                |r| {
                    r.eigen()?;
                    Pair::new(&r, black_box(&sigma))?.renyi(Family::Sandwiched, ALPHA)
                },
                BatchSize::LargeInput,
            )
        });
        let gamma = (1.0 - ALPHA) / ALPHA;
        let a = scaled_in_sigma_basis(&rho, &sigma, gamma / 2.0);
        g.bench_function("floor", |b| {
            b.iter(|| {
                congruence(&es.vectors().view(), &black_box(rho.matrix()).view());
                backend.eigvalsh(black_box(a.view()))
            })
        });
        let tol = qrenyi::state::Tolerance::default();
        g.bench_function("validate_decomposed", |b| {
            b.iter_batched(
                || rho.matrix().clone(),
                |m| DensityMatrix::with_options_decomposed(m, tol, backend),
                BatchSize::LargeInput,
            )
        });
        g.bench_function("validate_then_decompose", |b| {
            b.iter_batched(
                || rho.matrix().clone(),
                |m| {
                    let r = DensityMatrix::with_options(m, tol, backend)?;
                    r.eigen()?;
                    Ok::<_, qrenyi::Error>(r)
                },
                BatchSize::LargeInput,
            )
        });
        g.bench_function("hockey_stick_e2e", |b| {
            b.iter_batched(
                || (rho.matrix().clone(), sigma.matrix().clone()),
                |(r, s)| {
                    let (r, s) = (DensityMatrix::new(r)?, DensityMatrix::new(s)?);
                    Pair::new(&r, &s)?.hockey_stick(GAMMA)
                },
                BatchSize::LargeInput,
            )
        });
        let diff = rho.matrix() - &sigma.matrix().mapv(|z| z * GAMMA);
        g.bench_function("hockey_stick_floor", |b| {
            b.iter(|| backend.eigvalsh(black_box(diff.view())))
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
    targets = divergences, curves, direct_route
}
criterion_main!(benches);
