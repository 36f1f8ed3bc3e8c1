//! Library soundness against hostile input (issue 10 §4–§5): the `.npy` reader decodes what NumPy
//! writes and refuses forged headers before allocating; shape checks in front of BLAS hold in
//! release builds; `Channel::apply_matrix` reports a wrong size; α is validated by one `Order`
//! type; guarantee types are only built through validating constructors; kernel distances do
//! not overflow.

use ndarray::{array, Array2};
use num_complex::Complex64;
use qrenyi::io::{parse_csv, parse_npy, NpyArray};
use qrenyi::order::{Order, OrderRange};
use qrenyi::state::Channel;

fn npy(descr: &str, shape: &str, fortran: bool, data: &[u8]) -> Vec<u8> {
    let mut h = format!(
        "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
        if fortran { "True" } else { "False" }
    );
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out
}

fn le(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn npy_decodes_c_and_fortran_order_and_both_byte_orders() {
    let c = parse_npy(&npy("<f8", "(3, 2)", false, &le(&[0., 1., 2., 3., 4., 5.]))).unwrap();
    let f = parse_npy(&npy("<f8", "(3, 2)", true, &le(&[0., 2., 4., 1., 3., 5.]))).unwrap();
    let want = array![[0., 1.], [2., 3.], [4., 5.]].into_dyn();
    assert_eq!(c, NpyArray::Real(want.clone()));
    assert_eq!(f, NpyArray::Real(want));
    let be: Vec<u8> = [1.5f64, -2.0]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    assert_eq!(
        parse_npy(&npy(">f8", "(1, 2)", false, &be)).unwrap(),
        NpyArray::Real(array![[1.5, -2.0]].into_dyn())
    );
    let z = parse_npy(&npy("<c16", "(1, 1)", false, &le(&[0.25, -0.5]))).unwrap();
    assert_eq!(
        z,
        NpyArray::Complex(array![[Complex64::new(0.25, -0.5)]].into_dyn())
    );
}

#[test]
fn npy_forged_sizes_are_refused() {
    let e = parse_npy(&npy("<c16", "(100000, 100000)", false, &[0; 32])).unwrap_err();
    assert!(
        e.contains("160000000000 bytes") && e.contains("holds only 32"),
        "{e}"
    );
    let e = parse_npy(&npy("<f8", "(2, 2)", false, &le(&[1., 2., 3., 4., 5.]))).unwrap_err();
    assert!(e.contains("8 trailing bytes"), "{e}");
    let e = parse_npy(&npy("<f8", "(18446744073709551615, 2)", false, &[])).unwrap_err();
    assert!(e.contains("overflows"), "{e}");
    let mut bad_len = npy("<f8", "(1,)", false, &le(&[1.]));
    bad_len[8] = 0xff;
    bad_len[9] = 0xff;
    assert!(parse_npy(&bad_len).unwrap_err().contains("truncated"));
    assert!(parse_npy(b"\x93NUMPY").is_err());
    assert!(parse_npy(b"").is_err());
}

#[test]
fn csv_ignores_a_byte_order_mark() {
    let a = parse_csv("\u{feff}1,2\n3,4\n").unwrap();
    assert_eq!(a, array![[1., 2.], [3., 4.]]);
    let h = parse_csv("\u{feff}x,y\n1,2\n").unwrap();
    assert_eq!(h, array![[1., 2.]]);
}

#[test]
#[should_panic(expected = "inner dimensions differ")]
fn adjoint_times_checks_shapes_in_release_builds() {
    let a = Array2::<Complex64>::zeros((64, 2));
    let b = Array2::<Complex64>::zeros((1, 2));
    let _ = qrenyi::spectral::adjoint_times(&a.view(), &b.view());
}

#[test]
fn apply_matrix_reports_a_wrong_size() {
    let ch = Channel::new(vec![Array2::<Complex64>::eye(2)]).unwrap();
    let x = Array2::<Complex64>::eye(3);
    assert!(matches!(
        ch.apply_matrix(&x),
        Err(qrenyi::Error::DimensionMismatch { .. })
    ));
    assert_eq!(ch.apply_matrix(&Array2::eye(2)).unwrap(), Array2::eye(2));
}

#[test]
fn one_order_type_validates_every_range() {
    let cases = [
        (OrderRange::NonNegative, 0.0, true),
        (OrderRange::NonNegative, -1e-300, false),
        (OrderRange::Positive, 0.0, false),
        (OrderRange::Positive, f64::INFINITY, true),
        (OrderRange::PositiveFinite, f64::INFINITY, false),
        (OrderRange::AtLeastOne, 1.0, true),
        (OrderRange::AboveOne, 1.0, false),
        (OrderRange::AboveOne, f64::INFINITY, true),
    ];
    for (range, a, ok) in cases {
        assert_eq!(Order::new(a, range, "x").is_ok(), ok, "{range:?} {a}");
        assert!(Order::new(f64::NAN, range, "x").is_err());
    }
    let e = Order::new(0.5, OrderRange::AboveOne, "a privacy order").unwrap_err();
    assert_eq!(
        e.to_string(),
        "order α = 0.5 is out of range: a privacy order needs α ∈ (1, ∞]"
    );
    // the library functions go through it: same wording everywhere
    let e = qrenyi::privacy::Rdp::new(0.5, 1.0).unwrap_err().to_string();
    assert!(e.contains("needs α ∈ (1, ∞]"), "{e}");
    let e = qrenyi::divergence::classical::renyi(&[1.0], &[1.0], -1.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs α ∈ [0, ∞]"), "{e}");
}

#[test]
fn guarantees_are_built_only_through_validation() {
    // fields are private (this would not compile: `Zcdp { xi: -1.0, rho: 1.0 }`); getters read them
    let z = qrenyi::privacy::Zcdp::new(0.5, 2.0).unwrap();
    assert_eq!((z.xi(), z.rho()), (0.5, 2.0));
    assert!(qrenyi::privacy::Zcdp::new(-1.0, 1.0).is_err());
    let g = qrenyi::privacy::mechanisms::Gaussian::new(2.0, 1.0).unwrap();
    assert_eq!((g.sigma(), g.sensitivity()), (2.0, 1.0));
    assert!(qrenyi::privacy::mechanisms::Gaussian::new(-2.0, 1.0).is_err());
}

#[test]
fn kernel_distances_do_not_overflow() {
    use qrenyi::kernel::{median_bandwidth, pairwise_sq_distances};
    let x = array![[1e300, 0.0], [0.0, 1e300]];
    let y = array![[-1e300, 0.0]];
    let d = pairwise_sq_distances(x.view(), y.view()).unwrap();
    assert_eq!(d[[0, 0]], f64::INFINITY); // (2e300)² exceeds f64::MAX: +∞, not NaN → 0
    let b = median_bandwidth(x.view(), y.view()).unwrap();
    let want = 0.5 * (2e300 + 2f64.sqrt() * 1e300); // median of the distances 2e300, √2·1e300
    assert!((b - want).abs() <= 1e-12 * want, "{b} vs {want}");
    // and tiny samples keep their relative geometry (squares would underflow to 0)
    let tiny = x.mapv(|v| v * 1e-300 * 1e-300);
    let bt = median_bandwidth(tiny.view(), y.mapv(|v| v * 1e-300 * 1e-300).view()).unwrap();
    assert!((bt * 1e300 / (b * 1e-300) - 1.0).abs() < 1e-12, "{bt}");
}
