//! Bad input never panics and never yields NaN: every case returns the typed error that says what
//! failed and by how much.

use ndarray::{arr2, Array2};
use num_complex::Complex64 as C;
use qrenyi::divergence::{classical, Family, Pair};
use qrenyi::state::{Channel, DensityMatrix};
use qrenyi::Error;

fn c(x: f64) -> C {
    C::new(x, 0.0)
}

#[test]
fn non_square_is_rejected() {
    let e = DensityMatrix::new(Array2::zeros((2, 3))).unwrap_err();
    assert_eq!(e, Error::NotSquare { rows: 2, cols: 3 });
    assert!(e.to_string().contains("2×3"));
}

#[test]
fn empty_is_rejected() {
    assert!(matches!(
        DensityMatrix::new(Array2::zeros((0, 0))),
        Err(Error::Empty(_))
    ));
    assert!(matches!(DensityMatrix::pure(&[]), Err(Error::Empty(_))));
    assert!(matches!(
        classical::renyi(&[], &[], 2.0),
        Err(Error::Empty(_))
    ));
}

#[test]
fn nan_and_inf_entries_are_rejected_with_position() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let e = DensityMatrix::new(arr2(&[[c(0.5), c(0.0)], [c(0.0), c(bad)]])).unwrap_err();
        match e {
            Error::NonFinite { position, .. } => assert_eq!(position, "(1, 1)"),
            other => panic!("expected NonFinite, got {other:?}"),
        }
        assert!(matches!(
            classical::kl(&[0.5, bad], &[0.5, 0.5]),
            Err(Error::NonFinite { .. })
        ));
    }
}

#[test]
fn non_hermitian_reports_deviation() {
    let e = DensityMatrix::new(arr2(&[[c(0.5), c(0.2)], [c(0.1), c(0.5)]])).unwrap_err();
    match e {
        Error::NotHermitian {
            deviation,
            tolerance,
        } => {
            assert!((deviation - 0.1).abs() < 1e-15);
            assert!(tolerance < 1e-9);
        }
        other => panic!("expected NotHermitian, got {other:?}"),
    }
}

#[test]
fn not_psd_reports_smallest_eigenvalue() {
    let e = DensityMatrix::new(arr2(&[[c(1.2), c(0.0)], [c(0.0), c(-0.2)]])).unwrap_err();
    match e {
        Error::NotPositiveSemidefinite { min_eigenvalue, .. } => {
            assert!((min_eigenvalue + 0.2).abs() < 1e-15)
        }
        other => panic!("expected NotPositiveSemidefinite, got {other:?}"),
    }
}

#[test]
fn trace_not_one_reports_trace() {
    let e = DensityMatrix::new(arr2(&[[c(0.7), c(0.0)], [c(0.0), c(0.33)]])).unwrap_err();
    assert!(
        e.to_string().starts_with("trace is 1.0300, expected 1 ± "),
        "{e}"
    );
    assert!(matches!(
        classical::kl(&[0.5, 0.6], &[0.5, 0.5]),
        Err(Error::TraceNotOne { .. })
    ));
    // a trace that four decimals print as 1.0000 shows its deviation (audit21: "trace is 1.0000,
    // expected 1 ± 1e-10" did not say by how much)
    let e = DensityMatrix::new(arr2(&[[c(0.5 + 1e-6), c(0.0)], [c(0.0), c(0.5)]])).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("trace is 1 + 1.000e-6, expected 1 ± "),
        "{e}"
    );
    let e = DensityMatrix::new(arr2(&[[c(0.5 - 3e-10), c(0.0)], [c(0.0), c(0.5)]])).unwrap_err();
    assert!(e.to_string().starts_with("trace is 1 − 3.000e-10"), "{e}");
    assert!(matches!(
        classical::kl(&[1.5, -0.5], &[0.5, 0.5]),
        Err(Error::NegativeProbability { index: 1, .. })
    ));
}

#[test]
fn tiny_rounding_is_accepted() {
    // a state with rounding-level defects (1e-14) passes and is symmetrised
    let r = DensityMatrix::new(arr2(&[
        [c(0.6 + 1e-14), C::new(0.1, 1e-14)],
        [c(0.1), c(0.4)],
    ]))
    .unwrap();
    assert_eq!(r.matrix()[[0, 1]], r.matrix()[[1, 0]].conj());
}

#[test]
fn mismatched_dimensions_are_rejected() {
    let a = DensityMatrix::maximally_mixed(2).unwrap();
    let b = DensityMatrix::maximally_mixed(3).unwrap();
    assert!(matches!(
        Pair::new(&a, &b),
        Err(Error::DimensionMismatch {
            left: 2,
            right: 3,
            ..
        })
    ));
    assert!(matches!(
        classical::kl(&[1.0], &[0.5, 0.5]),
        Err(Error::DimensionMismatch { .. })
    ));
    let ch = Channel::depolarizing(3, 0.5).unwrap();
    assert!(matches!(a.apply(&ch), Err(Error::DimensionMismatch { .. })));
    assert!(matches!(
        a.partial_trace(&[3, 1], &[0]),
        Err(Error::DimensionMismatch { .. })
    ));
}

#[test]
fn alpha_out_of_range_is_rejected() {
    let a = DensityMatrix::maximally_mixed(2).unwrap();
    let p = Pair::new(&a, &a).unwrap();
    for f in Family::ALL {
        assert!(matches!(
            p.renyi(f, -1.0),
            Err(Error::AlphaOutOfRange { .. })
        ));
        assert!(matches!(
            p.renyi(f, f64::NAN),
            Err(Error::AlphaOutOfRange { .. })
        ));
        assert!(matches!(
            p.curve(f, &[2.0, f64::NAN]),
            Err(Error::AlphaOutOfRange { .. })
        ));
    }
    assert!(matches!(
        p.renyi(Family::Sandwiched, 0.0),
        Err(Error::AlphaOutOfRange { .. })
    ));
    assert!(p.renyi(Family::Petz, 0.0).unwrap().abs() < 1e-15);
    assert!(matches!(
        classical::renyi(&[1.0], &[1.0], -0.5),
        Err(Error::AlphaOutOfRange { .. })
    ));
    assert!(matches!(
        p.hockey_stick(-1.0),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(matches!(
        p.hockey_stick(f64::NAN),
        Err(Error::InvalidParameter { .. })
    ));
}

#[test]
fn channels_and_unitaries_are_checked() {
    let k = arr2(&[[c(1.0), c(0.0)], [c(0.0), c(0.5)]]);
    assert!(matches!(
        Channel::new(vec![k]),
        Err(Error::NotTracePreserving { .. })
    ));
    assert!(matches!(Channel::new(vec![]), Err(Error::Empty(_))));
    assert!(matches!(
        Channel::depolarizing(2, 1.5),
        Err(Error::InvalidParameter { .. })
    ));
    let a = DensityMatrix::maximally_mixed(2).unwrap();
    let not_unitary = arr2(&[[c(1.0), c(1.0)], [c(0.0), c(1.0)]]);
    assert!(matches!(
        a.conjugate(&not_unitary),
        Err(Error::NotUnitary { .. })
    ));
}

#[test]
fn pure_state_needs_unit_norm() {
    assert!(matches!(
        DensityMatrix::pure(&[c(1.0), c(1.0)]),
        Err(Error::TraceNotOne { .. })
    ));
}

/// Parameters far from 1 are printed in scientific notation, not as hundreds of digits (audit21:
/// `invalid epsilon = 1e300` was 301 characters, `order α = 5e-324` 326).
#[test]
fn extreme_parameters_print_short() {
    let e = Error::invalid("epsilon", 1e300, "must lie in (0, 1)");
    assert_eq!(e.to_string(), "invalid epsilon = 1e300: must lie in (0, 1)");
    let e = Family::Sandwiched.check_alpha(-5e-324).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("order α = -5e-324 is out of range"),
        "{e}"
    );
    for (x, text) in [
        (-0.5, "-0.5"),
        (2.0, "2"),
        (f64::INFINITY, "inf"),
        (f64::NAN, "NaN"),
        (-0.0, "-0"),
        (123456.5, "123456.5"),
    ] {
        let e = Error::invalid("x", x, "r");
        assert_eq!(e.to_string(), format!("invalid x = {text}: r"));
    }
}
