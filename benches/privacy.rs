//! The certified qzCDP fit `ρ*(ξ) = sup_{α>1} (D_α − ξ)/α` of one neighbouring pair
//! (`privacy::qzcdp::Neighbours::fit`, default options: relative tolerance 1e-6) for each family.
//! A fit is a branch and bound over α that evaluates the family's α-curve at many orders, so its
//! natural unit is the cost of one order after the shared decompositions (see `curve/…/curve64`
//! in the divergence bench): `fit time / evaluations` is printed once per size.
//!
//! `cargo bench --bench privacy`

#[path = "common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use qrenyi::divergence::Family;
use qrenyi::privacy::qzcdp::{CertifyOptions, Neighbours};
use std::hint::black_box;

fn fit(c: &mut Criterion) {
    let opts = CertifyOptions::default();
    for d in [2usize, 4, 8, 16, 64] {
        let (rho, sigma) = common::pair(d, 23);
        let nb = Neighbours::quantum(rho, sigma).expect("valid pair");
        let mut g = c.benchmark_group(format!("qzcdp_fit/d={d}"));
        g.sample_size(10);
        for family in Family::ALL {
            let r = nb.fit(family, 0.0, &opts).expect("fit");
            eprintln!(
                "qzcdp_fit d={d} {}: rho* ≤ {:.6e} at α = {:?}, {} evaluations",
                family.name(),
                r.rho,
                r.alpha,
                r.evaluations
            );
            g.bench_function(family.name(), |b| {
                b.iter(|| black_box(&nb).fit(family, 0.0, &opts))
            });
        }
        g.finish();
    }
    // the case: symmetric sandwiched fits at d = 50, 100, 200 (both directions)
    for d in [50usize, 100, 200] {
        let (rho, sigma) = common::pair(d, 23);
        let nb = Neighbours::quantum(rho, sigma)
            .expect("valid pair")
            .symmetric(true);
        let mut g = c.benchmark_group(format!("qzcdp_fit_symmetric/d={d}"));
        g.sample_size(10);
        let r = nb.fit(Family::Sandwiched, 0.0, &opts).expect("fit");
        eprintln!(
            "qzcdp_fit_symmetric d={d}: rho* ≤ {:.6e} at α = {:?}, {} evaluations",
            r.rho, r.alpha, r.evaluations
        );
        g.bench_function("sandwiched", |b| {
            b.iter(|| black_box(&nb).fit(Family::Sandwiched, 0.0, &opts))
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = fit
}
criterion_main!(benches);
