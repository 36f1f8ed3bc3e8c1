//! Published reference values for the privacy conversions, compositions and mechanisms
//! (OpenDP `cdp_delta`/`cdp_epsilon` documentation and tests; Kairouz–Oh–Viswanath 2015;
//! Balle–Wang 2018 calibration).

use qrenyi::privacy::composition::{kov_epsilon, kov_epsilon_grid};
use qrenyi::privacy::conversion::{cdp_delta, cdp_epsilon};
use qrenyi::privacy::mechanisms::Gaussian;

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

#[test]
fn published_cdp_delta() {
    let d = cdp_delta(0.05, 0.25).unwrap();
    println!("cdp_delta(0.05,0.25) = {d:.17e}");
    assert!(rel(d, 8.17727531036956e-2) < 1e-13, "{d}");
    let d = cdp_delta(0.5, 0.0).unwrap();
    println!("cdp_delta(0.5,0) = {d:.17e}");
    assert!(rel(d, 0.5588356393474351) < 1e-13, "{d}");
    let d = cdp_delta(0.03125, 0.0).unwrap();
    println!("cdp_delta(0.03125,0) = {d:.17e}");
    assert!(rel(d, 0.1508457845622862) < 1e-13, "{d}");
}

#[test]
fn published_cdp_epsilon() {
    let e = cdp_epsilon(0.03125, 1e-3).unwrap();
    println!("cdp_epsilon = {e:.17e}");
    assert!(rel(e, 0.6880024554878086) < 1e-13, "{e}");
}

#[test]
fn published_kov_optimal_composition() {
    assert_eq!(kov_epsilon_grid(1.0, 0.001, 30, 0.06).unwrap(), 22.0);
    assert_eq!(kov_epsilon_grid(1.0, 0.001, 30, 0.1).unwrap(), 20.0);
    let e = kov_epsilon(1.0, 0.001, 30, 0.06).unwrap();
    println!("kov continuous at 0.06: {e}");
    assert!(e <= 22.0 && e > 20.0);
    let e = kov_epsilon(1.0, 0.001, 30, 0.1).unwrap();
    println!("kov continuous at 0.1: {e}");
    assert!(e <= 20.0 && e > 18.0);
}

#[test]
fn published_gaussian_calibration() {
    let g = Gaussian::calibrate(1.0, 1e-5, 1.0).unwrap();
    println!("sigma = {:.12}", g.sigma());
    assert!((g.sigma() - 3.7306316348).abs() < 1e-9, "{}", g.sigma());
}
