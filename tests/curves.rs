//! α-curves against single calls (issue 14; docs/divergences.md, "petz_curve_lanes"):
//!
//! * `petz_curve_matches_single_calls`: the small-pair Petz curve (every `d ≤ 16`,
//!   `SMALL_PETZ_CURVE_MAX`; eight orders per chunk) is bit-identical to the single calls at every
//!   order from 10⁻³ to 10⁶ (1, ∞ and 1 ± 10⁻⁹ included), orders in increasing, decreasing and
//!   shuffled sequence, on well- and ill-conditioned, rank-deficient, leaking, nearly equal and
//!   identical pairs (above 16, curves take `Pair`'s factorised sum; `petz_factorised_matches_term_sum`
//!   covers it);
//! * `petz_curve_reference`: the curve against the mpmath fixture `tests/reference/divergences.json`
//!   with `tests/reference.rs`'s tolerance.

mod common;

use common::*;
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{Family, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::DensityMatrix;
use rand::seq::SliceRandom;
use serde_json::Value;

fn state(m: Array2<Complex64>) -> DensityMatrix {
    DensityMatrix::new(m).unwrap()
}

/// Unit-trace `U diag(λ) U†`.
fn spectrum_state(lambda: &[f64], seed: u64) -> DensityMatrix {
    let t: f64 = lambda.iter().sum();
    let l: Vec<f64> = lambda.iter().map(|x| x / t).collect();
    state(with_spectrum(&l, seed))
}

/// Pairs of dimension `d`: random ensembles (full rank, Bures, low rank, pure), ill-conditioned
/// (spectra over 10⁻¹²…1), σ rank-deficient (ρ leaking), nearly equal, identical.
fn pairs(d: usize, seed: u64) -> Vec<(String, DensityMatrix, DensityMatrix)> {
    let mut r = rng(seed);
    let mut out = Vec::new();
    for kind in 0..4u8 {
        let rho = random_state(d, kind, &mut r);
        let sigma = random_full_rank(d, kind, &mut r);
        out.push((format!("random kind {kind}"), rho, sigma));
    }
    let ill: Vec<f64> = (0..d)
        .map(|k| 10f64.powf(-12.0 * k as f64 / (d - 1) as f64))
        .collect();
    out.push((
        "ill-conditioned".into(),
        spectrum_state(&ill, seed + 1),
        spectrum_state(&ill, seed + 2),
    ));
    let mut low = vec![1.0; d];
    low[0] = 0.0;
    out.push((
        "rank-deficient σ (ρ leaks)".into(),
        random_full_rank(d, 0, &mut r),
        spectrum_state(&low, seed + 3),
    ));
    let s = random_full_rank(d, 1, &mut r);
    let mut m = s.matrix().clone();
    m[[0, 0]] += Complex64::new(1e-9, 0.0);
    m[[d - 1, d - 1]] -= Complex64::new(1e-9, 0.0);
    out.push(("nearly equal".into(), state(m), s.clone()));
    out.push(("identical".into(), s.clone(), s));
    out
}

/// Orders 10⁻³ … 10⁶ (log-spaced, plus the neighbourhood of 1, 2 and ∞).
fn orders() -> Vec<f64> {
    let mut a: Vec<f64> = (0..=90)
        .map(|k| 10f64.powf(-3.0 + k as f64 / 10.0))
        .collect();
    a.extend([
        1.0,
        1.0 - 1e-9,
        1.0 + 1e-9,
        0.999,
        1.001,
        2.0,
        0.5,
        f64::INFINITY,
    ]);
    a
}

#[test]
fn petz_curve_matches_single_calls() {
    let mut r = rng(14);
    for d in 2..=qrenyi::divergence::small::SMALL_PETZ_CURVE_MAX {
        for (name, rho, sigma) in pairs(d, 100 + d as u64) {
            // the kernel serves Backend::Auto (not the default without `openblas`)
            let auto = |s: DensityMatrix| s.with_backend(Backend::Auto).unwrap();
            let (rho, sigma) = (auto(rho), auto(sigma));
            rho.eigen().unwrap();
            sigma.eigen().unwrap();
            let mut alphas = orders();
            for pass in 0..3 {
                match pass {
                    1 => alphas.reverse(),
                    2 => alphas.shuffle(&mut r),
                    _ => {}
                }
                let pair = Pair::new(&rho, &sigma).unwrap();
                let curve = pair.curve(Family::Petz, &alphas).unwrap();
                for (&a, &c) in alphas.iter().zip(&curve) {
                    let single = Pair::new(&rho, &sigma)
                        .unwrap()
                        .renyi(Family::Petz, a)
                        .unwrap();
                    // the small-pair kernel's terms and Rényi mean on both sides
                    assert!(
                        c.to_bits() == single.to_bits() || (c.is_nan() && single.is_nan()),
                        "d={d} {name} α={a}: curve {c:e} vs single {single:e}"
                    );
                }
            }
        }
    }
}

fn num(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        Value::String(s) if s == "nan" => f64::NAN,
        _ => v.as_f64().unwrap(),
    }
}

fn matrix(v: &Value) -> Array2<Complex64> {
    let re = v["re"].as_array().unwrap();
    let im = v["im"].as_array().unwrap();
    let d = re.len();
    Array2::from_shape_fn((d, d), |(i, j)| {
        Complex64::new(num(&re[i][j]), num(&im[i][j]))
    })
}

#[test]
fn petz_curve_reference() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/divergences.json"
    ))
    .unwrap();
    let data: Value = serde_json::from_str(&text).unwrap();
    let mut checked = 0;
    for case in data["quantum"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let (rho, sigma) = (state(matrix(&case["rho"])), state(matrix(&case["sigma"])));
        let entries = case["petz"].as_array().unwrap();
        let alphas: Vec<f64> = entries.iter().map(|e| num(&e["alpha"])).collect();
        let curve = Pair::new(&rho, &sigma)
            .unwrap()
            .curve(Family::Petz, &alphas)
            .unwrap();
        for ((e, &a), &got) in entries.iter().zip(&alphas).zip(&curve) {
            let want = num(&e["value"]);
            let sens = e.get("sensitivity").map_or(0.0, num);
            let ok = if want.is_infinite() || got.is_infinite() {
                want == got
            } else {
                (got - want).abs() <= (1e-10 * want.abs()).max(1e-13).max(20.0 * sens)
            };
            assert!(ok, "{name} α={a}: curve {got:e}, mpmath {want:e}");
            checked += 1;
        }
    }
    assert!(checked > 200, "{checked} values checked");
}
