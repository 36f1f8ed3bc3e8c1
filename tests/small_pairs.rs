//! The small-pair kernel at 9 ≤ d ≤ 16 against the mpmath fixture `tests/reference/small_pairs.json`
//! (`generate_small_pairs.py`: full-rank, rank-deficient, leaking and nearly equal pairs at
//! d = 9, 12, 16) with `tests/reference.rs`'s tolerance `max(1e-10 |v|, 1e-13, 20 × sensitivity)`,
//! `+∞` exactly where mpmath says so:
//!
//! * `petz_factorised_small_reference`: Petz at orders 0…50 and Umegaki (the factorised sum on the
//!   stack, `PetzStack`; docs/divergences.md "petz_factorised_small"),
//!   and the Petz curve at the same orders (`petz_curve_small_reference`: `SmallPair::petz_curve`,
//!   eight orders per chunk; docs/divergences.md "petz_curve_lanes") equal to them bit for bit;
//! * `small_fidelity_reference`: the root fidelity (`small_fidelity`).

use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{Family, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::{DensityMatrix, Tolerance};
use serde_json::Value;

fn num(v: &Value) -> f64 {
    match v {
        Value::String(s) if s == "inf" => f64::INFINITY,
        _ => v.as_f64().unwrap(),
    }
}

fn matrix(v: &Value) -> Array2<Complex64> {
    let (re, im) = (v["re"].as_array().unwrap(), v["im"].as_array().unwrap());
    Array2::from_shape_fn((re.len(), re.len()), |(i, j)| {
        Complex64::new(num(&re[i][j]), num(&im[i][j]))
    })
}

fn within(got: f64, want: f64, sens: f64) -> bool {
    if want.is_infinite() || got.is_infinite() {
        return want == got;
    }
    (got - want).abs() <= (1e-10 * want.abs()).max(1e-13).max(20.0 * sens)
}

/// The fixture's cases: the JSON, the name and the two validated states.
fn fixture() -> Vec<(Value, String, DensityMatrix, DensityMatrix)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/small_pairs.json"
    ))
    .unwrap();
    let data: Value = serde_json::from_str(&text).unwrap();
    data["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| {
            let name = case["name"].as_str().unwrap().to_string();
            // the kernel serves Backend::Auto (not the default without `openblas`)
            let state = |m| DensityMatrix::with_options(m, Tolerance::default(), Backend::Auto);
            let rho = state(matrix(&case["rho"])).unwrap();
            let sigma = state(matrix(&case["sigma"])).unwrap();
            (case.clone(), name, rho, sigma)
        })
        .collect()
}

#[test]
fn petz_factorised_small_reference() {
    let mut checked = 0;
    for (case, name, rho, sigma) in fixture() {
        rho.eigen().unwrap();
        sigma.eigen().unwrap();
        // the curve at the fixture's orders (petz_curve_small_reference): the single calls' bits
        let orders: Vec<f64> = case["petz"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| num(&e["alpha"]))
            .collect();
        let pair = Pair::new(&rho, &sigma).unwrap();
        let curve = pair.curve(Family::Petz, &orders).unwrap();
        for (e, c) in case["petz"].as_array().unwrap().iter().zip(curve) {
            let (a, want, sens) = (num(&e["alpha"]), num(&e["value"]), num(&e["sensitivity"]));
            // single calls on fresh pairs of the decomposed states (the kernel's route)
            let got = Pair::new(&rho, &sigma)
                .unwrap()
                .renyi(Family::Petz, a)
                .unwrap();
            assert!(
                within(got, want, sens),
                "{name} α={a}: {got:e}, mpmath {want:e} (sensitivity {sens:e})"
            );
            assert_eq!(c.to_bits(), got.to_bits(), "{name} α={a}: curve {c:e}");
            checked += 1;
        }
        let e = &case["umegaki"];
        let (want, sens) = (num(&e["value"]), num(&e["sensitivity"]));
        let got = Pair::new(&rho, &sigma).unwrap().umegaki().unwrap();
        assert!(
            within(got, want, sens),
            "{name} umegaki: {got:e}, mpmath {want:e}"
        );
        // the sandwiched family at α = 1 is Umegaki, the same route
        let s1 = Pair::new(&rho, &sigma)
            .unwrap()
            .renyi(Family::Sandwiched, 1.0)
            .unwrap();
        assert_eq!(s1.to_bits(), got.to_bits(), "{name}");
        checked += 2;
    }
    assert!(checked >= 12 * 13, "{checked}");
}

#[test]
fn small_fidelity_reference() {
    let mut checked = 0;
    for (case, name, rho, sigma) in fixture() {
        let e = &case["fidelity"];
        let (want, sens) = (num(&e["value"]), num(&e["sensitivity"]));
        let got = Pair::new(&rho, &sigma).unwrap().fidelity().unwrap();
        assert!(
            within(got, want, sens),
            "{name} fidelity: {got:e}, mpmath {want:e}"
        );
        checked += 1;
    }
    assert_eq!(checked, 12);
}
