//! The integer order α = 2 (docs/divergences.md, "order_two_cholesky" and "order_two_frobenius"):
//! Petz and maximal `D_2 = ln(Tr ρσ^{−1}ρ / Tr ρ)` by one Cholesky factorisation and one
//! triangular solve (after a certificate that σ's eigenvalues lie far above the zero threshold),
//! sandwiched `D̃_2` as a Frobenius sum in σ's eigenbasis. Against mpmath at 60 digits
//! (`tests/reference/generate_order_two.py` → `order_two.json`) and against the eigen route on
//! random pairs, d = 2..64.

mod common;
use common::*;
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::order_two::{certificate_shift, order_two_cholesky};
use qrenyi::divergence::{accuracy, Check, Family, Pair};
use qrenyi::spectral::{Backend, EigenSolver};
use qrenyi::state::{DensityMatrix, Tolerance};

fn reference(v: &serde_json::Value) -> f64 {
    match v.as_str() {
        Some("inf") => f64::INFINITY,
        _ => v.as_f64().unwrap(),
    }
}

/// A fixture case's reference `D_2` of `family` (Petz and maximal share it) and its bound.
fn reference_and_bound(case: &serde_json::Value, family: Family) -> (f64, f64) {
    let key = if family == Family::Sandwiched {
        "sandwiched"
    } else {
        "petz"
    };
    let bound = case[format!("{key}_bound")].as_f64().unwrap();
    (reference(&case[key]), bound)
}

/// Both states validated by Cholesky, neither decomposed: the pair takes the α = 2 routes.
fn undecomposed(r: &Array2<Complex64>, s: &Array2<Complex64>) -> (DensityMatrix, DensityMatrix) {
    (
        DensityMatrix::new(r.clone()).unwrap(),
        DensityMatrix::new(s.clone()).unwrap(),
    )
}

/// Both states decomposed by validation: the eigen route (the α = 2 Cholesky route does not
/// apply; the sandwiched Frobenius sum runs on the decomposition route's `ρ'`).
fn decomposed(r: &Array2<Complex64>, s: &Array2<Complex64>) -> (DensityMatrix, DensityMatrix) {
    let tol = Tolerance::default();
    (
        DensityMatrix::with_options_decomposed(r.clone(), tol, Backend::default()).unwrap(),
        DensityMatrix::with_options_decomposed(s.clone(), tol, Backend::default()).unwrap(),
    )
}

/// The states the Python package's `divergence` makes from two raw matrices at α = 2.
fn python_path(
    r: &Array2<Complex64>,
    s: &Array2<Complex64>,
    family: Family,
) -> (DensityMatrix, DensityMatrix) {
    match family {
        Family::Sandwiched => states_checked(r, s, (Check::Cholesky, Check::Decomposed)),
        _ => states_checked(r, s, (Check::Cholesky, Check::Cholesky)),
    }
}

/// `order_two_reference`: every route (undecomposed states, decomposed states, the Python
/// package's states) against mpmath within the documented bound; `+∞` exactly where the
/// reference is `+∞`; the Cholesky route taken exactly where its certificate holds.
#[test]
fn order_two_reference() {
    let text = std::fs::read_to_string("tests/reference/order_two.json").unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut checked = 0;
    for case in json["cases"].as_array().unwrap() {
        let what = case["what"].as_str().unwrap();
        let (rho, sigma) = (stored_matrix(&case["rho"]), stored_matrix(&case["sigma"]));
        for family in Family::ALL {
            let (want, bound) = reference_and_bound(case, family);
            let routes = [
                ("undecomposed", undecomposed(&rho, &sigma)),
                ("decomposed", decomposed(&rho, &sigma)),
                ("python", python_path(&rho, &sigma, family)),
            ];
            for (route, (r, s)) in routes {
                let pair = Pair::new(&r, &s).unwrap();
                let got = pair.renyi(family, 2.0).unwrap();
                let label = format!("{what} / {family:?} / {route}: {got} vs {want}");
                if want.is_infinite() {
                    assert_eq!(got, f64::INFINITY, "{label}");
                } else {
                    assert!((got - want).abs() <= bound, "{label} (bound {bound:.3e})");
                }
                // the CLI's call (a curve at α = 2): the same number where the Cholesky route ran;
                // on the eigen route the curve is the factorised Petz form, `renyi` the small-pair
                // kernel's (both within the bound)
                let pair = Pair::new(&r, &s).unwrap();
                let c = pair.curve(family, &[2.0]).unwrap()[0];
                if route != "decomposed" && order_two_cholesky(&r, &s).unwrap().is_some() {
                    assert_eq!(c, got, "{label} (curve)");
                } else {
                    assert!(c == got || (c - got).abs() <= bound, "{label} (curve {c})");
                }
                checked += 1;
            }
        }
        // the route switch: taken exactly where the certificate holds
        let (r, s) = undecomposed(&rho, &sigma);
        let taken = order_two_cholesky(&r, &s).unwrap().is_some();
        if what.contains("1.5 x certificate") || what.contains("1000 x zero threshold") {
            assert!(taken, "{what}: the certificate should hold");
        }
        if what.contains("0.7 x certificate")
            || (what.contains("x zero threshold") && !what.contains("1000 x"))
            || what.contains("+inf")
            || what.contains("containing supp rho")
        {
            assert!(!taken, "{what}: the certificate must not hold");
        }
        if what.starts_with("well-conditioned") || what.contains("kappa 1e1") {
            assert!(taken, "{what}: the route should apply");
        }
    }
    assert!(checked >= 3 * 3 * 25, "{checked}");
}

/// ρ in σ's eigenbasis for the two references below: σ's decomposition, `B = V†ρ` and
/// `ρ' = V†ρV`; `None` (the value is `+∞`) when ρ's weight on `ker σ` exceeds the zero threshold
/// `16 d ε λ_max(ρ)`.
fn in_sigma_frame<'a>(
    rho: &DensityMatrix,
    sigma: &'a DensityMatrix,
) -> Option<(
    &'a qrenyi::spectral::Eigen,
    Array2<Complex64>,
    Array2<Complex64>,
)> {
    let es = sigma.eigen().unwrap();
    let v = es.vectors();
    let b = v.t().mapv(|z| z.conj()).dot(rho.matrix());
    let rp = b.dot(v);
    let supp = es.support();
    let kernel: f64 = (0..rho.dim())
        .filter(|j| !supp.contains(j))
        .map(|j| rp[[j, j]].re)
        .sum();
    let lam_max = rho.eigen().unwrap().max_value();
    (kernel <= 16.0 * rho.dim() as f64 * f64::EPSILON * lam_max).then_some((es, b, rp))
}

/// The sandwiched `D̃_2` the former way, independently of the library's α = 2 branches: σ's
/// decomposition, `A = D V†ρV D` with `D = diag(μ^{−1/4})` on `supp σ`, one values-only
/// eigensolve, `ln(Σ_{ν>0} ν² / Tr ρ)` (`+∞` outside the support).
fn sandwiched_by_eigensolve(rho: &DensityMatrix, sigma: &DensityMatrix) -> f64 {
    let Some((es, _, rp)) = in_sigma_frame(rho, sigma) else {
        return f64::INFINITY;
    };
    let supp = es.support();
    let n = supp.len();
    let scale: Vec<f64> = supp.iter().map(|&j| es.values()[j].powf(-0.25)).collect();
    let a = Array2::from_shape_fn((n, n), |(x, y)| {
        rp[[supp[x], supp[y]]] * (scale[x] * scale[y])
    });
    let nu = Backend::default().eigvalsh(a.view()).unwrap();
    let q: f64 = nu.iter().filter(|&&x| x > 0.0).map(|x| x * x).sum();
    let tr: f64 = supp.iter().map(|&j| rp[[j, j]].re).sum();
    (q / tr).ln()
}

/// Petz and maximal `D_2 = ln(Tr ρσ^{−1}ρ / Tr ρ)` the former way, independently of the library's
/// α = 2 branches: σ's decomposition, `‖diag(μ^{−1/2}) V†ρ‖_F²` over `supp σ` (`+∞` when ρ has
/// weight on `ker σ`).
fn petz_two_by_eigensolve(rho: &DensityMatrix, sigma: &DensityMatrix) -> f64 {
    let Some((es, b, rp)) = in_sigma_frame(rho, sigma) else {
        return f64::INFINITY;
    };
    let supp = es.support();
    let q: f64 = supp
        .iter()
        .map(|&j| b.row(j).iter().map(|z| z.norm_sqr()).sum::<f64>() / es.values()[j])
        .sum();
    let tr: f64 = supp.iter().map(|&j| rp[[j, j]].re).sum();
    (q / tr).ln()
}

/// `order_two_curve_matches_eigensolve`: the curve API at α = 2 — alone (`[2]`, `[2, 2]`: the
/// Cholesky route where it applies) and inside a curve (`[0.5, 2, 3]`: the eigen route) — on
/// undecomposed and decomposed states, Petz, maximal and sandwiched, against the independent
/// eigensolves above within `accuracy::error_bound` of the eigen route, on well-conditioned pairs
/// and graded σ with κ up to 10¹² (d = 2…32).
#[test]
fn order_two_curve_matches_eigensolve() {
    let mut checked = 0;
    for d in [2usize, 3, 4, 8, 16, 25, 32] {
        for seed in 0..6u64 {
            let mut g = rng(5000 * d as u64 + seed);
            let rho = random_state(d, seed as u8, &mut g).matrix().clone();
            let sigma = if seed < 2 {
                random_full_rank(d, seed as u8, &mut g).matrix().clone()
            } else {
                let k = 10f64.powf([4.0, 8.0, 11.0, 12.0][seed as usize - 2]);
                let spec: Vec<f64> = (0..d)
                    .map(|i| k.powf(-(i as f64) / (d - 1) as f64))
                    .collect();
                let s: f64 = spec.iter().sum();
                let spec: Vec<f64> = spec.iter().map(|x| x / s).collect();
                with_spectrum(&spec, 11 * seed + d as u64)
            };
            let (r2, s2) = decomposed(&rho, &sigma);
            let eigen = Pair::new(&r2, &s2).unwrap();
            for family in Family::ALL {
                let want = match family {
                    Family::Sandwiched => sandwiched_by_eigensolve(&r2, &s2),
                    _ => petz_two_by_eigensolve(&r2, &s2),
                };
                let bound = accuracy::error_bound(&eigen, family, 2.0, want).unwrap();
                for (route, (r, s)) in [
                    ("undecomposed", undecomposed(&rho, &sigma)),
                    ("decomposed", decomposed(&rho, &sigma)),
                ] {
                    for alphas in [vec![2.0], vec![2.0, 2.0], vec![0.5, 2.0, 3.0]] {
                        let pair = Pair::new(&r, &s).unwrap();
                        let curve = pair.curve(family, &alphas).unwrap();
                        for (&a, &got) in alphas.iter().zip(&curve) {
                            if a != 2.0 {
                                continue;
                            }
                            assert!(
                                got == want || (got - want).abs() <= bound,
                                "d={d} seed={seed} {family:?} {route} curve {alphas:?}: {got} vs \
                                 {want} (bound {bound:.3e})"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked >= 7 * 6 * 3 * 2 * 4, "{checked}");
}

/// `order_two_matches_eigen_route`: on random pairs (d = 2..64; ρ Hilbert–Schmidt, Bures, rank
/// ⌈d/2⌉ or pure; σ Hilbert–Schmidt or graded with κ = 10^{0..12}) the α = 2 routes equal the
/// eigen route within the documented bound (`accuracy::error_bound` of the eigen route's pair):
/// Petz and maximal by Cholesky against the decomposed pair's eigen route, sandwiched by the
/// Frobenius sum (direct route and decomposition route) against a values-only eigensolve.
#[test]
fn order_two_matches_eigen_route() {
    let mut taken = 0;
    let mut total = 0;
    for d in [2usize, 3, 4, 5, 7, 8, 11, 13, 16, 23, 24, 25, 32, 47, 64] {
        for seed in 0..6u64 {
            let mut g = rng(1000 * d as u64 + seed);
            let rho = random_state(d, seed as u8, &mut g).matrix().clone();
            let sigma = if seed % 2 == 0 {
                random_full_rank(d, seed as u8 / 2, &mut g).matrix().clone()
            } else {
                let k = 10f64.powf(12.0 * (seed as f64) / 6.0);
                let spec: Vec<f64> = (0..d)
                    .map(|i| k.powf(-(i as f64) / (d.max(2) - 1) as f64))
                    .collect();
                let s: f64 = spec.iter().sum();
                let spec: Vec<f64> = spec.iter().map(|x| x / s).collect();
                with_spectrum(&spec, 7 * seed + d as u64)
            };
            let (r1, s1) = undecomposed(&rho, &sigma);
            let (r2, s2) = decomposed(&rho, &sigma);
            let fast = Pair::new(&r1, &s1).unwrap();
            let eigen = Pair::new(&r2, &s2).unwrap();
            if order_two_cholesky(&r1, &s1).unwrap().is_some() {
                taken += 1;
            }
            total += 1;
            for family in [Family::Petz, Family::Maximal] {
                let a = fast.renyi(family, 2.0).unwrap();
                let b = eigen.renyi(family, 2.0).unwrap();
                let bound = accuracy::error_bound(&eigen, family, 2.0, b).unwrap();
                assert!(
                    (a - b).abs() <= bound || a == b,
                    "d={d} seed={seed} {family:?}: {a} vs {b} (bound {bound:.3e})"
                );
            }
            let want = sandwiched_by_eigensolve(&r2, &s2);
            let bound = accuracy::error_bound(&eigen, Family::Sandwiched, 2.0, want).unwrap();
            for (route, pair) in [("direct", &fast), ("decomposed", &eigen)] {
                let got = pair.renyi(Family::Sandwiched, 2.0).unwrap();
                assert!(
                    (got - want).abs() <= bound || got == want,
                    "d={d} seed={seed} sandwiched {route}: {got} vs {want} (bound {bound:.3e})"
                );
            }
        }
    }
    // the certificate holds for most of these pairs (κ ≤ 10¹² at small d)
    assert!(taken * 2 > total, "{taken} of {total}");
}

/// The certificate's shift is far below any eigenvalue the eigen route counts as support
/// (it exceeds the zero threshold `16 d ε λ_max` at `λ_max ≤ Tr σ`), and ρ = σ gives 0.
#[test]
fn order_two_shift_and_identical_states() {
    for d in [1usize, 2, 8, 64, 256] {
        let s = certificate_shift(d, 1.0);
        assert!(s > 16.0 * d as f64 * f64::EPSILON);
        assert!(s < 1e-9, "{s}");
    }
    for d in [2usize, 9, 40] {
        let m = random_full_rank(d, 0, &mut rng(d as u64)).matrix().clone();
        let (r, s) = undecomposed(&m, &m);
        let v = order_two_cholesky(&r, &s).unwrap().unwrap();
        assert!(v.abs() <= 64.0 * d as f64 * f64::EPSILON, "d={d}: {v}");
        for family in Family::ALL {
            let v = Pair::new(&r, &s).unwrap().renyi(family, 2.0).unwrap();
            assert!(v.abs() <= 1e-12, "d={d} {family:?}: {v}");
        }
    }
}

/// Orders other than exactly 2.0 never take the route; ρ with a negative eigenvalue within the
/// validation tolerance (not PSD to rounding) keeps the eigen route (its zero-threshold convention).
#[test]
fn order_two_only_at_two_and_psd_rho() {
    let d = 6;
    let r = random_full_rank(d, 1, &mut rng(5)).matrix().clone();
    let s = random_full_rank(d, 0, &mut rng(6)).matrix().clone();
    let (r1, s1) = undecomposed(&r, &s);
    let (r2, s2) = decomposed(&r, &s);
    for a in [2.0 - 1e-12, 2.0 + 1e-12, 1.5, 3.0] {
        for family in Family::ALL {
            let x = Pair::new(&r1, &s1).unwrap().renyi(family, a).unwrap();
            let y = Pair::new(&r2, &s2).unwrap().renyi(family, a).unwrap();
            assert!((x - y).abs() <= 1e-12, "{family:?} α={a}: {x} vs {y}");
        }
    }
    // continuity across α = 2
    for family in Family::ALL {
        let p = Pair::new(&r1, &s1).unwrap();
        let at = p.renyi(family, 2.0).unwrap();
        let near = p.renyi(family, 2.0 + 1e-9).unwrap();
        assert!((at - near).abs() <= 1e-7, "{family:?}: {at} vs {near}");
    }
    // a negative eigenvalue −1e-11 (within the tolerance 1e-10·√d, beyond rounding)
    let mut spec = vec![0.0; d];
    for (i, x) in spec.iter_mut().enumerate() {
        *x = (i + 1) as f64;
    }
    let t: f64 = spec.iter().sum();
    spec.iter_mut().for_each(|x| *x /= t);
    spec[1] += spec[0] + 1e-11;
    spec[0] = -1e-11;
    let neg = with_spectrum(&spec, 3);
    let rho = DensityMatrix::new(neg.clone()).unwrap();
    assert!(!rho.is_psd_to_rounding());
    let sigma = DensityMatrix::new(s.clone()).unwrap();
    let (re, se) = decomposed(&neg, &s);
    for family in [Family::Petz, Family::Maximal] {
        let x = Pair::new(&rho, &sigma).unwrap().renyi(family, 2.0).unwrap();
        let y = Pair::new(&re, &se).unwrap().renyi(family, 2.0).unwrap();
        assert!((x - y).abs() <= 1e-13, "{family:?}: {x} vs {y}");
    }
}

/// `order_two_reference_through_stacks`: every reference pair of dimension `d ≤ 16` as a stack
/// (`batch::renyi_stacks` on an `(n, d, d)` array: one full group of `LANES` copies — the group
/// route — and one more pair, the one-pair route of the stack) against mpmath within the
/// documented bound, `+∞` exactly where the reference is; Petz and maximal equal the Python
/// package's single call bit for bit wherever its Cholesky route answers at `d <`
/// `AUTO_NALGEBRA_CHOLESKY_BELOW` (the stack takes the same route with the same arithmetic:
/// `order_two_small`).
#[test]
fn order_two_reference_through_stacks() {
    use ndarray::{Array3, Axis};
    use qrenyi::divergence::batch::{renyi_stacks, Operand, LANES};
    let text = std::fs::read_to_string("tests/reference/order_two.json").unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let (mut checked, mut bitwise) = (0, 0);
    for case in json["cases"].as_array().unwrap() {
        let what = case["what"].as_str().unwrap();
        let (rho, sigma) = (stored_matrix(&case["rho"]), stored_matrix(&case["sigma"]));
        let d = rho.nrows();
        if d > 16 {
            continue;
        }
        let n = LANES + 1;
        let (mut ra, mut sa) = (Array3::zeros((n, d, d)), Array3::zeros((n, d, d)));
        for k in 0..n {
            ra.index_axis_mut(Axis(0), k).assign(&rho);
            sa.index_axis_mut(Axis(0), k).assign(&sigma);
        }
        for family in Family::ALL {
            let (want, bound) = reference_and_bound(case, family);
            // the Python package's single call: its states, on `Backend::Auto` (the stack's
            // backend; without `openblas` the default backend is nalgebra, not Auto)
            let checks = match family {
                Family::Sandwiched => (Check::Cholesky, Check::Decomposed),
                _ => (Check::Cholesky, Check::Cholesky),
            };
            let (r, s) = qrenyi::divergence::states_from_matrices(
                rho.clone(),
                sigma.clone(),
                checks,
                Tolerance::default(),
                Backend::Auto,
            )
            .unwrap();
            let single = Pair::new(&r, &s).unwrap().renyi(family, 2.0).unwrap();
            // the stack's Cholesky route runs where `Backend::Auto` validates by nalgebra's
            // factorisation (`d < AUTO_NALGEBRA_CHOLESKY_BELOW`); above, the eigen route
            let cholesky = family != Family::Sandwiched
                && d < qrenyi::spectral::AUTO_NALGEBRA_CHOLESKY_BELOW
                && order_two_cholesky(&r, &s).unwrap().is_some();
            for alphas in [vec![2.0], vec![2.0, 2.0]] {
                let got = renyi_stacks(
                    Operand::Array(ra.view()),
                    Operand::Array(sa.view()),
                    family,
                    &alphas,
                    Tolerance::default(),
                )
                .unwrap();
                for (k, row) in got.iter().enumerate() {
                    for &x in row.as_ref().unwrap() {
                        let label =
                            format!("{what} / {family:?} / {alphas:?} pair {k}: {x} vs {want}");
                        if want.is_infinite() {
                            assert_eq!(x, f64::INFINITY, "{label}");
                        } else {
                            assert!((x - want).abs() <= bound, "{label} (bound {bound:.3e})");
                        }
                        if cholesky {
                            assert_eq!(x.to_bits(), single.to_bits(), "{label}: single {single}");
                            bitwise += 1;
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked >= 3 * 20 * 27 && bitwise > 0, "{checked} {bitwise}");
}
