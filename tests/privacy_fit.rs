//! The certified qzCDP fit's second-order cover (`privacy::qzcdp`, docs/privacy.md "Certified
//! qzCDP check and fit"): the convexity it rests on, the soundness of `secant_bound` and of the
//! fit's cover against values computed by independent routes (direct classical sums, 256-bit
//! quantum divergences), and agreement with a first-order branch and bound written here.

mod common;

use proptest::prelude::*;
use qrenyi::divergence::Family;
use qrenyi::privacy::qzcdp::{secant_bound, CertifyOptions, FitResult, Neighbours};
use qrenyi::state::DensityMatrix;
use qrenyi::verify::real_quantum::HpPair;

/// Classical `D_α(p‖q) = ln(Σ p^α q^{1−α})/(α − 1)` summed directly in log form (not through
/// `renyi_mean`).
fn classical_direct(p: &[f64], q: &[f64], alpha: f64) -> f64 {
    if alpha == 1.0 {
        return p
            .iter()
            .zip(q)
            .filter(|(x, _)| **x > 0.0)
            .map(|(x, y)| x * (x / y).ln())
            .sum();
    }
    // log-sum-exp of α ln p + (1 − α) ln q (no overflow at large α)
    let e: Vec<f64> = p
        .iter()
        .zip(q)
        .map(|(x, y)| alpha * x.ln() + (1.0 - alpha) * y.ln())
        .collect();
    let m = e.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (m + e.iter().map(|v| (v - m).exp()).sum::<f64>().ln()) / (alpha - 1.0)
}

fn normalised(w: &[f64]) -> Vec<f64> {
    let s: f64 = w.iter().sum();
    w.iter().map(|x| x / s).collect()
}

/// A dense grid over `(1, 40]`: fine near 1 and around typical maximisers, coarser beyond.
fn dense_grid() -> Vec<f64> {
    let mut g: Vec<f64> = (1..=60).map(|k| 1.0 + 1e-3 * 1.15f64.powi(k)).collect();
    g.extend((0..400).map(|k| 1.05 + 0.01 * k as f64));
    g.extend((0..60).map(|k| 5.0 + 0.6 * k as f64));
    g.retain(|&a| a > 1.0 && a <= 40.0);
    g
}

/// Every grid order lies in some interval of each directed pair's cover, and there the
/// independently computed `(D_α − ξ)/α` does not exceed the interval's bound (up to `rel` of the
/// values' accuracy); `ρ` is the largest bound.
fn assert_cover_sound(fit: &FitResult, xi: f64, d: &dyn Fn(f64) -> f64, rel: f64, stride: usize) {
    assert!(!fit.cover.is_empty());
    let top = fit.cover.iter().map(|c| c.upper).fold(f64::MIN, f64::max);
    assert!(fit.rho >= top, "ρ {} below a cover bound {top}", fit.rho);
    for &a in dense_grid().iter().step_by(stride) {
        let g = (d(a) - xi) / a;
        let inside: Vec<_> = fit
            .cover
            .iter()
            .filter(|c| c.lo <= a && a <= c.hi)
            .collect();
        assert!(!inside.is_empty(), "α = {a} not covered: {:?}", fit.cover);
        for c in inside {
            assert!(
                g <= c.upper + rel * g.abs().max(1.0),
                "α = {a}: (D − ξ)/α = {g} above the certified {} on [{}, {}]",
                c.upper,
                c.lo,
                c.hi
            );
        }
        assert!(g <= fit.rho + rel * g.abs().max(1.0));
    }
}

/// The old fit, written out here: branch and bound with the first-order (monotone) bound
/// `(D_b − ξ)/a` only. Returns (best value found, certified upper bound).
fn first_order_fit(d: &dyn Fn(f64) -> f64, xi: f64, tol: f64, dinf: f64) -> (f64, f64) {
    let g = |a: f64| (d(a) - xi) / a;
    let mut lower = d(1.0) - xi;
    let mut a = 2.0;
    while lower <= 0.0 && a < 1e6 {
        lower = lower.max(g(a));
        a *= 2.0;
    }
    if lower <= 0.0 {
        return (0.0, dinf - xi);
    }
    let t = ((dinf - xi) / lower).max(1.0);
    let bound = |a: f64, b: f64| {
        let n = d(b) - xi;
        if n >= 0.0 {
            n / a
        } else {
            n / b
        }
    };
    let mut nodes = vec![(bound(1.0, t), 1.0, t)];
    for _ in 0..20_000 {
        nodes.sort_by(|x, y| x.0.total_cmp(&y.0));
        let Some(&(up, a, b)) = nodes.last() else {
            break;
        };
        if up <= lower * (1.0 + tol) {
            break;
        }
        nodes.pop();
        // geometric in α − 1 over wide ranges, else the midpoint
        let m = if a > 1.0 && b - 1.0 > 4.0 * (a - 1.0) {
            1.0 + ((a - 1.0) * (b - 1.0)).sqrt()
        } else {
            0.5 * (a + b)
        };
        lower = lower.max(g(m));
        nodes.push((bound(a, m), a, m));
        nodes.push((bound(m, b), m, b));
    }
    let upper = nodes.iter().map(|n| n.0).fold(lower, f64::max);
    (lower, upper.max((dinf - xi) / t))
}

proptest! {
    #![proptest_config(common::proptest_config(64))]

    /// `secant_bound` is never below `(D_α − ξ)/α` on a dense grid of `[a, b]` (classical pairs,
    /// values summed directly; the inputs `da`, `db` are upper bounds of the exact values).
    #[test]
    fn secant_bound_is_sound_on_dense_grid(
        w in proptest::collection::vec(0.02f64..1.0, 8),
        a in 1.0001f64..6.0,
        width in 1e-4f64..3.0,
        xi in 0.0f64..1.0,
    ) {
        let (p, q) = (normalised(&w[..4]), normalised(&w[4..]));
        let b = a + width;
        let up = |x: f64| classical_direct(&p, &q, x) * (1.0 + 1e-13) + 1e-15;
        let bound = secant_bound(xi, a, b, up(a), up(b));
        prop_assert!(bound.is_finite());
        for k in 0..=200 {
            let x = a + (b - a) * k as f64 / 200.0;
            let g = (classical_direct(&p, &q, x) - xi) / x;
            prop_assert!(g <= bound + 1e-13, "α = {x}: {g} > secant bound {bound} on [{a}, {b}]");
        }
        // second order: on a short interval the bound is within O(width²) of the values
        if width < 1e-2 && a > 1.1 {
            let ends = ((up(a) - xi) / a).max((up(b) - xi) / b);
            prop_assert!(bound - ends <= 1e3 * width * width + 1e-9, "{bound} vs {ends}");
        }
    }

    /// The theorem behind `secant_bound`: `α ↦ (α − 1)D_α` is convex on `(1, ∞)` for all three
    /// families (256-bit values; second differences over random steps).
    #[test]
    fn renyi_psi_is_convex(seed in any::<u64>(), a in 1.05f64..8.0, h in 0.02f64..1.0) {
        let mut rng = common::rng(seed);
        let rho = common::random_full_rank(3, seed as u8, &mut rng);
        let sigma = common::random_full_rank(3, (seed >> 8) as u8, &mut rng);
        let hp = HpPair::new(&rho, &sigma).unwrap();
        for family in Family::ALL {
            let psi = |x: f64| (x - 1.0) * hp.renyi(family, x).unwrap();
            let (l, m, r) = (psi(a - h.min(a - 1.0) * 0.999), psi(a), psi(a + h));
            let hl = h.min(a - 1.0) * 0.999;
            // convexity with unequal steps: ψ(a) ≤ (h ψ(a − hl) + hl ψ(a + h))/(hl + h)
            let chord = (h * l + hl * r) / (hl + h);
            prop_assert!(m <= chord + 1e-12 * chord.abs().max(1.0),
                "{family:?}: ψ({a}) = {m} above the chord {chord}");
        }
    }

    /// The fit's cover of a classical pair holds on a dense grid of directly summed values, and
    /// its `ρ` agrees with the first-order fit to the tolerance.
    #[test]
    fn fit_cover_is_sound_classical_and_agrees_with_first_order_fit(
        w in proptest::collection::vec(0.05f64..1.0, 6),
        xi in 0.0f64..0.3,
    ) {
        let (p, q) = (normalised(&w[..3]), normalised(&w[3..]));
        let nb = Neighbours::classical(p.clone(), q.clone()).unwrap();
        let o = CertifyOptions::default();
        let fit = nb.fit(Family::Sandwiched, xi, &o).unwrap();
        let d = |a: f64| classical_direct(&p, &q, a);
        assert_cover_sound(&fit, xi, &d, 1e-12, 1);
        let dinf = p.iter().zip(&q).map(|(x, y)| (x / y).ln()).fold(f64::MIN, f64::max);
        if dinf > xi {
            let (lo1, up1) = first_order_fit(&d, xi, 1e-6, dinf);
            // both certified upper bounds lie above both best values, within the tolerance
            prop_assert!(fit.rho >= lo1 * (1.0 - 1e-12), "{} < first-order best {lo1}", fit.rho);
            prop_assert!(up1 >= fit.lower * (1.0 - 1e-12), "{up1} < best {}", fit.lower);
            prop_assert!((fit.rho - up1).abs() <= 3e-6 * up1.abs().max(1e-12),
                "second-order {} vs first-order {up1}", fit.rho);
        }
    }
}

fn quantum_pair(seed: u64, d: usize) -> (DensityMatrix, DensityMatrix) {
    let mut rng = common::rng(seed);
    (
        common::random_full_rank(d, seed as u8, &mut rng),
        common::random_full_rank(d, (seed >> 3) as u8, &mut rng),
    )
}

/// The fit's cover of quantum pairs (d = 2, 3; every family, both directions) holds against
/// 256-bit divergences on a dense grid.
#[test]
fn fit_cover_is_sound_quantum_against_256_bit() {
    for (seed, d, xi) in [(1u64, 2usize, 0.0), (2, 3, 0.0), (3, 3, 0.1), (4, 2, 0.05)] {
        let (r, s) = quantum_pair(seed, d);
        let nb = Neighbours::quantum(r.clone(), s.clone()).unwrap();
        let (fwd, bwd) = (HpPair::new(&r, &s).unwrap(), HpPair::new(&s, &r).unwrap());
        for family in Family::ALL {
            let fit = nb.fit(family, xi, &CertifyOptions::default()).unwrap();
            let d = |a: f64| fwd.renyi(family, a).unwrap();
            assert_cover_sound(&fit, xi, &d, 1e-11, 4);
            let both = nb
                .clone()
                .symmetric(true)
                .fit(family, xi, &CertifyOptions::default())
                .unwrap();
            let d2 = |a: f64| {
                fwd.renyi(family, a)
                    .unwrap()
                    .max(bwd.renyi(family, a).unwrap())
            };
            assert!(both.rho >= fit.rho);
            for &a in dense_grid().iter().step_by(4) {
                assert!((d2(a) - xi) / a <= both.rho + 1e-11);
            }
        }
    }
}

/// An interior maximiser (the classical pair of docs/privacy.md, ξ = 0.1: α* ≈ 1.694) is fitted
/// to 1e-6 in tens of evaluations (the first-order fit needed 6921), and to 1e-12 without
/// running into the evaluation budget.
#[test]
fn secant_bound_fit_converges_in_few_evaluations() {
    let nb = Neighbours::classical(vec![0.5, 0.3, 0.2], vec![0.2, 0.3, 0.5]).unwrap();
    let fit = nb
        .fit(Family::Sandwiched, 0.1, &CertifyOptions::default())
        .unwrap();
    assert!(
        (fit.alpha.unwrap() - 1.6938).abs() < 1e-3,
        "{:?}",
        fit.alpha
    );
    assert!(fit.evaluations <= 100, "{} evaluations", fit.evaluations);
    assert!(fit.rho - fit.lower <= 1e-6 * fit.lower);
    let tight = CertifyOptions {
        tolerance: 1e-12,
        ..CertifyOptions::default()
    };
    let fit2 = nb.fit(Family::Sandwiched, 0.1, &tight).unwrap();
    assert!(fit2.evaluations < tight.max_evaluations / 10);
    // the gap closes down to the numerical slack η = 1e-10·max(1, D) (divided by α)
    assert!(fit2.rho >= fit.lower * (1.0 - 1e-12) && fit2.rho - fit2.lower <= 1e-9);
    assert!(fit2.rho <= fit.rho + 1e-9);
}
