//! Stacks of raw matrices (`divergence::batch::renyi_stacks`, `renyi_stacks_flat`, the route of
//! `qrenyi.divergence` on `(n, d, d)` arrays) against the per-pair API: each pair validated by
//! `DensityMatrix::with_options` (the library's Cholesky validation) and evaluated by `Pair` —
//! values within the documented error bound (`divergence::accuracy::error_bound`), `+∞` decided
//! alike, and for invalid pairs the same typed error with the same message. Inputs: random
//! full-rank states, rank-deficient and ill-conditioned ones (κ = 10¹²), and invalid ones
//! (trace, Hermiticity, NaN, negative eigenvalues far from and at the validation threshold `−t`).
//! Dimensions 1–9: the sandwiched direct stack route (`d < 8`), the small route, the state route.

mod common;

use common::*;
use ndarray::{Array2, Array3, Axis};
use num_complex::Complex64;
use qrenyi::divergence::batch::{renyi_stacks, renyi_stacks_flat, Operand, LANES};
use qrenyi::divergence::{accuracy, Family, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::{DensityMatrix, Tolerance};
use qrenyi::verify::condition_number;
use qrenyi::Error;

fn unit(mut l: Vec<f64>) -> Vec<f64> {
    let s: f64 = l.iter().sum();
    l.iter_mut().for_each(|x| *x /= s);
    l
}

/// Valid inputs of dimension `d`: random full rank, rank one, rank `d − 1`, graded to κ = 10¹².
fn valid(d: usize, seed: u64) -> Vec<Array2<Complex64>> {
    let mut r = rng(seed);
    let mut out = Vec::new();
    for _ in 0..3 {
        out.push(
            DensityMatrix::random_hilbert_schmidt(d, d, &mut r)
                .unwrap()
                .matrix()
                .clone(),
        );
    }
    let mut pure = vec![0.0; d];
    pure[0] = 1.0;
    out.push(with_spectrum(&pure, seed + 1));
    if d > 1 {
        let mut deficient = unit((1..=d).map(|k| k as f64).collect());
        deficient[0] = 0.0;
        out.push(with_spectrum(&unit(deficient), seed + 2));
        let graded = unit(
            (0..d)
                .map(|k| 10f64.powf(-12.0 * k as f64 / (d - 1) as f64))
                .collect(),
        );
        out.push(with_spectrum(&graded, seed + 3));
    }
    out
}

/// Invalid (or borderline) inputs of dimension `d ≥ 2`: trace 2, not Hermitian, NaN, eigenvalue
/// −0.5, and eigenvalues `−c·t` around the validation threshold `t = 1e-10 √d`.
fn borderline(d: usize, seed: u64) -> Vec<Array2<Complex64>> {
    let good = with_spectrum(&unit((1..=d).map(|k| k as f64).collect()), seed);
    let mut out = vec![good.mapv(|z| z * 2.0)];
    let mut h = good.clone();
    h[[0, 1]] += Complex64::new(1e-6, 0.0);
    out.push(h);
    let mut h = good.clone();
    h[[d - 1, 0]] = Complex64::new(f64::NAN, 0.0);
    out.push(h);
    let mut neg = vec![1.5 / (d - 1) as f64; d];
    neg[0] = -0.5;
    out.push(with_spectrum(&neg, seed + 1));
    let t = 1e-10 * (d as f64).sqrt();
    for c in [
        1e-3,
        0.5,
        1.0 - 1e-4,
        1.0 - 1e-7,
        1.0 + 1e-7,
        1.0 + 1e-4,
        2.0,
        1e3,
    ] {
        let mut l = vec![1.0 / (d - 1) as f64; d];
        l[0] = -c * t;
        l[1] += c * t; // trace 1
        out.push(with_spectrum(&l, seed + 2));
    }
    out
}

/// The per-pair API: validate both (ρ first, errors named as the stack names them), then `Pair`.
fn per_pair(
    r: &Array2<Complex64>,
    s: &Array2<Complex64>,
) -> qrenyi::Result<(DensityMatrix, DensityMatrix)> {
    let tol = Tolerance::default();
    let named = |what: &str, e: Error| Error::Parse {
        what: what.into(),
        reason: e.to_string(),
    };
    let r =
        DensityMatrix::with_options(r.clone(), tol, Backend::Auto).map_err(|e| named("rho", e))?;
    let s = DensityMatrix::with_options(s.clone(), tol, Backend::Auto)
        .map_err(|e| named("sigma", e))?;
    Ok((r, s))
}

fn stack(ms: &[Array2<Complex64>]) -> Array3<Complex64> {
    let d = ms[0].nrows();
    let mut a = Array3::zeros((ms.len(), d, d));
    for (k, m) in ms.iter().enumerate() {
        a.index_axis_mut(Axis(0), k).assign(m);
    }
    a
}

/// Every (ρ, σ) of `rhos × sigmas` through the stack, compared with the per-pair API.
fn compare(d: usize, rhos: &[Array2<Complex64>], sigmas: &[Array2<Complex64>]) -> (usize, usize) {
    let (mut rs, mut ss) = (Vec::new(), Vec::new());
    for r in rhos {
        for s in sigmas {
            rs.push(r.clone());
            ss.push(s.clone());
        }
    }
    compare_pairs(d, &rs, &ss)
}

/// The pairs `(rs[k], ss[k])` through the stack, compared with the per-pair API.
fn compare_pairs(d: usize, rs: &[Array2<Complex64>], ss: &[Array2<Complex64>]) -> (usize, usize) {
    let (mut values, mut errors) = (0, 0);
    let (rs, ss) = (rs.to_vec(), ss.to_vec());
    let (ra, sa) = (stack(&rs), stack(&ss));
    for family in Family::ALL {
        for alphas in [
            vec![2.0],
            vec![1.5],
            vec![1.5, 2.0, 7.0],
            vec![0.5],
            vec![0.3, 1.0, 3.0, f64::INFINITY],
        ] {
            let tol = Tolerance::default();
            let got = renyi_stacks(
                Operand::Array(ra.view()),
                Operand::Array(sa.view()),
                family,
                &alphas,
                tol,
            )
            .unwrap();
            let listed = renyi_stacks(
                Operand::Stack(&rs),
                Operand::Stack(&ss),
                family,
                &alphas,
                tol,
            )
            .unwrap();
            let flat = renyi_stacks_flat(
                Operand::Array(ra.view()),
                Operand::Array(sa.view()),
                family,
                &alphas,
                tol,
            )
            .unwrap();
            let first_err = got.iter().position(|g| g.is_err());
            match (&flat, first_err) {
                (Ok(v), None) => {
                    let rows: Vec<f64> = got
                        .iter()
                        .flat_map(|g| g.as_ref().unwrap().clone())
                        .collect();
                    assert_eq!(v, &rows, "flat buffer = rows");
                }
                (Err((k, e)), Some(first)) => {
                    assert_eq!(*k, first);
                    assert_eq!(e.to_string(), got[first].as_ref().unwrap_err().to_string());
                }
                _ => panic!("flat and rows disagree on failure"),
            }
            for k in 0..rs.len() {
                let ctx = format!("{family:?} d={d} α={alphas:?} pair {k}");
                match (&got[k], &listed[k]) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b, "{ctx}: Array and Stack operands"),
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{ctx}"),
                    _ => panic!("{ctx}: Array and Stack operands disagree"),
                }
                match (per_pair(&rs[k], &ss[k]), &got[k]) {
                    (Err(want), Err(e)) => {
                        assert_eq!(e.to_string(), want.to_string(), "{ctx}: same error");
                        errors += 1;
                    }
                    (Err(want), Ok(v)) => panic!("{ctx}: stack accepted {v:?}, per pair: {want}"),
                    (Ok(_), Err(e)) => panic!("{ctx}: stack rejected: {e}"),
                    (Ok((r, s)), Ok(v)) => {
                        let p = Pair::new(&r, &s).unwrap();
                        for (&x, &alpha) in v.iter().zip(&alphas) {
                            let y = p.renyi(family, alpha).unwrap();
                            if alpha < 1.0 && (x.is_infinite() || y.is_infinite()) {
                                // +∞ at α < 1 is Q_α = 0: the maximal family of a pure σ against ρ
                                // with κ = 10¹² (Ando's absolutely continuous part at rounding
                                // level relative to ρ⁻¹) — the stack's states carry the fixed-size
                                // solver's decompositions, `Pair`'s the backend's
                                continue;
                            }
                            // the documented accuracy model (docs/conventions.md, "Error
                            // bounds"; the verify engine's margin, docs/lemmas.md "rounding"):
                            // no bound is claimed for nearly orthogonal states at α < 1 — Q_α's
                            // relative error grows like e^{(1−α)D/α} — nor for the maximal
                            // family's absolutely continuous part when supp ρ ⊄ supp σ, known
                            // to relative accuracy ~ε κ(ρ)/leakage
                            let mut factor = 1.0;
                            if alpha < 1.0 && y > 0.0 {
                                factor *= ((1.0 - alpha) * y / alpha).exp();
                            }
                            if alpha < 1.0
                                && family == Family::Maximal
                                && !p.is_supported().unwrap()
                            {
                                factor *= condition_number(&r) / p.leakage().unwrap();
                            }
                            let bound =
                                factor * accuracy::error_bound(&p, family, alpha, y).unwrap();
                            assert!(
                                x == y || (x - y).abs() <= bound,
                                "{ctx} α={alpha}: stack {x} vs pair {y} (bound {bound:e})"
                            );
                        }
                        values += 1;
                    }
                }
            }
        }
    }
    (values, errors)
}

#[test]
fn stacks_equal_the_per_pair_api_on_valid_inputs() {
    for d in [1, 2, 3, 4, 5, 7, 8, 9] {
        let rhos = valid(d, 100 + d as u64);
        let sigmas = valid(d, 200 + d as u64);
        let (values, _) = compare(d, &rhos, &sigmas);
        assert!(values > 0);
    }
}

#[test]
fn stacks_name_the_per_pair_api_errors_and_decide_the_threshold_alike() {
    for d in [2, 3, 4, 7, 9] {
        let good = valid(d, 300 + d as u64);
        let bad = borderline(d, 400 + d as u64);
        // invalid ρ against valid σ, valid ρ against invalid σ, both invalid
        let (_, e1) = compare(d, &bad, &good[..2]);
        let (_, e2) = compare(d, &good[..2], &bad);
        let (_, e3) = compare(d, &bad[..4], &bad[..4]);
        assert!(e1 > 0 && e2 > 0 && e3 > 0, "d={d}: errors exercised");
    }
}

/// ρ = σ in every pair (and groups of [`LANES`] identical pairs): the group route's
/// decompositions, eight at a time (`3 ≤ d ≤ 6`), against the per-pair API, including
/// rank-deficient and κ = 10¹² states.
#[test]
fn stacks_of_equal_states_equal_the_per_pair_api() {
    for d in [3, 4, 6, 8] {
        let states = valid(d, 500 + d as u64);
        let mut rs = Vec::new();
        for s in &states {
            rs.extend(std::iter::repeat_n(s.clone(), LANES));
        }
        let (values, _) = compare_pairs(d, &rs, &rs);
        assert!(values > 0);
    }
}

/// Petz and maximal `D_2` of a stack take the one-pair API's Cholesky route (docs/divergences.md
/// "order_two_cholesky") exactly where that API takes it, with its value bit for bit, and the
/// decomposition route elsewhere (within the bound: `compare_pairs`, which also checks every
/// family, order and error). Inputs at d = 2–5: random full rank, pure, rank `d − 1` (`+∞` and
/// finite pairs), κ = 10¹², σ with `λ_min` at 0.7, 1.5 and 1000 × the certificate shift, and
/// every ρ = σ; groups of `LANES` pairs and a tail.
#[test]
fn stacks_at_order_two_take_the_one_pair_cholesky_route() {
    use qrenyi::divergence::order_two::{certificate_shift, order_two_cholesky};
    for d in [2, 3, 4, 5] {
        let mut states = valid(d, 600 + d as u64);
        let shift = certificate_shift(d, 1.0);
        for (i, c) in [0.7, 1.5, 1e3].into_iter().enumerate() {
            let mut l = vec![(1.0 - c * shift) / (d - 1) as f64; d];
            l[0] = c * shift;
            states.push(with_spectrum(&l, 700 + (10 * d + i) as u64));
        }
        let (mut rs, mut ss) = (Vec::new(), Vec::new());
        for r in &states {
            for s in &states {
                rs.push(r.clone());
                ss.push(s.clone());
            }
        }
        let (values, _) = compare_pairs(d, &rs, &ss);
        assert!(values > 0);
        let (ra, sa) = (stack(&rs), stack(&ss));
        let (mut taken, mut declined) = (0, 0);
        for family in [Family::Petz, Family::Maximal] {
            for alphas in [vec![2.0], vec![2.0, 2.0]] {
                let got = renyi_stacks(
                    Operand::Array(ra.view()),
                    Operand::Array(sa.view()),
                    family,
                    &alphas,
                    Tolerance::default(),
                )
                .unwrap();
                for k in 0..rs.len() {
                    let (r, s) = per_pair(&rs[k], &ss[k]).unwrap();
                    let single = Pair::new(&r, &s).unwrap().renyi(family, 2.0).unwrap();
                    let Some(v) = order_two_cholesky(&r, &s).unwrap() else {
                        declined += 1;
                        continue;
                    };
                    assert_eq!(single.to_bits(), v.to_bits());
                    for &x in got[k].as_ref().unwrap() {
                        assert_eq!(x.to_bits(), v.to_bits(), "{family:?} d={d} pair {k}");
                    }
                    taken += 1;
                }
            }
        }
        assert!(
            taken > 0 && declined > 0,
            "d={d}: {taken} taken, {declined} declined"
        );
    }
}

/// A shared validated σ (`Operand::State`, what the Python binding makes of one σ against a stack
/// of ρ) takes the same α = 2 route as raw matrices: each pair's value is the single call's bit for
/// bit where that call answers by `order_two_cholesky`, and within the single call's error bound
/// where the certificate declines.
#[test]
fn stacks_against_a_shared_state_take_the_cholesky_route() {
    use qrenyi::divergence::order_two::{certificate_shift, order_two_cholesky};
    for d in [2, 3, 4, 5] {
        let rs = valid(d, 900 + d as u64);
        let ra = stack(&rs);
        let shift = certificate_shift(d, 1.0);
        let mut sigmas = valid(d, 950 + d as u64);
        for c in [0.7, 1e3] {
            let mut l = vec![(1.0 - c * shift) / (d - 1) as f64; d];
            l[0] = c * shift;
            sigmas.push(with_spectrum(&l, 980 + d as u64));
        }
        let (mut taken, mut declined) = (0, 0);
        for sm in &sigmas {
            let s = DensityMatrix::new(sm.clone()).unwrap();
            for family in [Family::Petz, Family::Maximal] {
                let got = renyi_stacks(
                    Operand::Array(ra.view()),
                    Operand::State(&s),
                    family,
                    &[2.0],
                    Tolerance::default(),
                )
                .unwrap();
                for (k, rm) in rs.iter().enumerate() {
                    let r = DensityMatrix::new(rm.clone()).unwrap();
                    let pair = Pair::new(&r, &s).unwrap();
                    let single = pair.renyi(family, 2.0).unwrap();
                    let x = got[k].as_ref().unwrap()[0];
                    // the single call's route needs `Backend::Auto` states (the default with
                    // LAPACK; without it the default is nalgebra and both take the eigen route)
                    let auto = s.backend() == Backend::Auto && r.backend() == Backend::Auto;
                    if auto && order_two_cholesky(&r, &s).unwrap().is_some() {
                        assert_eq!(x.to_bits(), single.to_bits(), "{family:?} d={d} pair {k}");
                        taken += 1;
                    } else {
                        let bound = accuracy::error_bound(&pair, family, 2.0, single).unwrap();
                        assert!(
                            (x - single).abs() <= bound || x == single,
                            "{family:?} d={d} pair {k}: {x} vs {single} (bound {bound:e})"
                        );
                        declined += 1;
                    }
                }
            }
        }
        let auto = Backend::default() == Backend::Auto;
        assert!(
            (taken > 0 || !auto) && declined > 0,
            "d={d}: {taken} taken, {declined} declined"
        );
    }
}

/// `stacks_take_the_whitened_maximal_route`: maximal single orders `α ≥ 1` of a stack take the
/// one-pair API's whitened route (docs/divergences.md "maximal_whitened"; `batch::whitened_group`,
/// `whitened_pair`) exactly where that API certifies it. Inputs at d = 2–7: random full rank,
/// pure, rank `d − 1` and κ = 10¹² states, σ with `λ_min` at 0.7, 1.5 and 1000 × the certificate
/// shift, every ρ = σ, in groups of `LANES` pairs (`3 ≤ d ≤ 6`: `T`'s eigendecompositions eight
/// at a time, the lane Jacobi's numbers) and a tail (one pair at a time: `eigh_small`, the
/// single call's solver). Where the single call's whitened bound certifies the order, a pair
/// outside the groups (and every pair at d = 2, 7) returns the single call's value bit for bit,
/// a pair in a group a value within the single call's documented error bound; elsewhere (and
/// for every pair) the value is within that bound of the single call's (`compare_pairs` checks
/// every family, order and error as well).
#[test]
fn stacks_take_the_whitened_maximal_route() {
    use qrenyi::divergence::order_two::certificate_shift;
    for d in [2, 3, 4, 5, 6, 7] {
        let mut states = valid(d, 1100 + d as u64);
        let shift = certificate_shift(d, 1.0);
        for (i, c) in [0.7, 1.5, 1e3].into_iter().enumerate() {
            let mut l = vec![(1.0 - c * shift) / (d - 1) as f64; d];
            l[0] = c * shift;
            states.push(with_spectrum(&l, 1200 + (10 * d + i) as u64));
        }
        let (mut rs, mut ss) = (Vec::new(), Vec::new());
        for r in &states {
            for s in &states {
                rs.push(r.clone());
                ss.push(s.clone());
            }
        }
        let n = rs.len();
        let grouped = |k: usize| (3..=6).contains(&d) && k < n - n % LANES;
        let (ra, sa) = (stack(&rs), stack(&ss));
        let (mut exact, mut within, mut declined) = (0, 0, 0);
        for alpha in [1.0, 1.5, 3.0, 10.0] {
            let got = renyi_stacks_flat(
                Operand::Array(ra.view()),
                Operand::Array(sa.view()),
                Family::Maximal,
                &[alpha],
                Tolerance::default(),
            )
            .unwrap()
            .unwrap();
            for k in 0..n {
                let (r, s) = per_pair(&rs[k], &ss[k]).unwrap();
                let pair = Pair::new(&r, &s).unwrap();
                let single = pair.renyi(Family::Maximal, alpha).unwrap();
                let certified = pair
                    .maximal_whitened_probe(alpha)
                    .unwrap()
                    .is_some_and(|p| p.bound <= p.documented);
                let x = got[k];
                let ctx = format!("d={d} α={alpha} pair {k}: stack {x} vs single {single}");
                let bound = accuracy::error_bound(&pair, Family::Maximal, alpha, single).unwrap();
                if certified && !grouped(k) {
                    assert_eq!(x.to_bits(), single.to_bits(), "{ctx}");
                    exact += 1;
                } else {
                    assert!(
                        x == single || (x - single).abs() <= bound,
                        "{ctx} ({bound:e})"
                    );
                    if certified {
                        within += 1;
                    } else {
                        declined += 1;
                    }
                }
            }
        }
        let auto = Backend::default() == Backend::Auto;
        assert!(
            !auto || (exact > 0 && declined > 0 && ((3..=6).contains(&d) == (within > 0))),
            "d={d}: {exact} bit for bit, {within} within the bound, {declined} declined"
        );
    }
}

/// A shared validated σ against a stack of ρ (`Operand::State`, the Python binding's one σ)
/// takes the whitened maximal route as raw σ do: every value within the single call's
/// documented bound, bit for bit with it outside the groups where it certifies the order.
#[test]
fn stacks_against_a_shared_state_take_the_whitened_route() {
    for d in [2, 4] {
        let rs = valid(d, 1300 + d as u64);
        let mut rs8 = Vec::new();
        for r in &rs {
            rs8.extend(std::iter::repeat_n(r.clone(), LANES));
        }
        let ra = stack(&rs8);
        for sm in valid(d, 1350 + d as u64) {
            let s = DensityMatrix::new(sm.clone()).unwrap();
            let got = renyi_stacks(
                Operand::Array(ra.view()),
                Operand::State(&s),
                Family::Maximal,
                &[1.5],
                Tolerance::default(),
            )
            .unwrap();
            for (k, rm) in rs8.iter().enumerate() {
                let r = DensityMatrix::new(rm.clone()).unwrap();
                let pair = Pair::new(&r, &s).unwrap();
                let single = pair.renyi(Family::Maximal, 1.5).unwrap();
                let x = got[k].as_ref().unwrap()[0];
                let bound = accuracy::error_bound(&pair, Family::Maximal, 1.5, single).unwrap();
                assert!(
                    x == single || (x - single).abs() <= bound,
                    "d={d} pair {k}: {x} vs {single} (bound {bound:e})"
                );
                if d == 2 {
                    // one pair at a time at d = 2: the single call's solver
                    let certified = pair
                        .maximal_whitened_probe(1.5)
                        .unwrap()
                        .is_some_and(|p| p.bound <= p.documented);
                    if certified && r.backend() == Backend::Auto {
                        assert_eq!(x.to_bits(), single.to_bits(), "d=2 pair {k}");
                    }
                }
            }
        }
    }
}
