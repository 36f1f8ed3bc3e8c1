//! qrenyi's own `e^x` and `ln x` (`divergence::exp_lanes`, used by the small-pair Petz far form and
//! its curves; docs/divergences.md "exp_lanes") against the mpmath fixture
//! `tests/reference/exp_lanes.json` (`generate_exp_lanes.py`: correctly rounded values):
//!
//! * `exp_lanes_reference`: within 2 ulps of the correctly rounded `e^x` (the proven 1.5 ulp plus the
//!   reference's own half ulp), including the Petz far form's exponents at α = 10⁻³, 1 ± 10⁻⁹, 10⁶;
//! * `ln_lanes_reference`: within 1 ulp of the correctly rounded `ln x` (0.73 ulp measured on 10⁶ points).

use qrenyi::divergence::exp_lanes::{exp, exp_lanes, ln, ln_lanes};
use serde_json::Value;

fn pairs(key: &str) -> Vec<(f64, f64)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/exp_lanes.json"
    ))
    .unwrap();
    let data: Value = serde_json::from_str(&text).unwrap();
    let hex = |v: &Value| f64::from_bits(u64::from_str_radix(v.as_str().unwrap(), 16).unwrap());
    data[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (hex(&p[0]), hex(&p[1])))
        .collect()
}

/// Distance in units in the last place between two doubles of the same sign.
fn ulps(a: f64, b: f64) -> u64 {
    assert!(a == b || (a > 0.0) == (b > 0.0), "{a:e} vs {b:e}");
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
}

fn check(cases: &[(f64, f64)], f: fn(f64) -> f64, four: fn([f64; 4]) -> [f64; 4], bound: u64) {
    let mut worst = 0;
    for chunk in cases.chunks(4) {
        let x: [f64; 4] = std::array::from_fn(|l| chunk[l.min(chunk.len() - 1)].0);
        let lanes = four(x);
        for (l, &(x, want)) in chunk.iter().enumerate() {
            let got = f(x);
            assert_eq!(got.to_bits(), lanes[l].to_bits(), "lanes at {x:e}");
            let u = ulps(got, want);
            assert!(u <= bound, "at {x:e}: {got:e} vs {want:e} ({u} ulps)");
            worst = worst.max(u);
        }
    }
    assert!(cases.len() > 2500, "{} cases", cases.len());
    eprintln!("{} cases, largest distance {worst} ulp", cases.len());
}

#[test]
fn exp_lanes_reference() {
    check(&pairs("exp"), exp, exp_lanes::<4>, 2);
}

#[test]
fn ln_lanes_reference() {
    check(&pairs("ln"), ln, ln_lanes::<4>, 1);
}
