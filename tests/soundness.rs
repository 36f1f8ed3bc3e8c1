//! Library soundness against hostile input (issue 10 §4–§5): the `.npy` reader decodes what NumPy
//! writes and refuses forged headers before allocating; shape checks in front of BLAS hold in
//! release builds; `Channel::apply_matrix` reports a wrong size; α is validated by one `Order`
//! type; guarantee types are only built through validating constructors; kernel distances do
//! not overflow.

mod common;

use common::{le_bytes, npy};
use ndarray::{array, Array2};
use num_complex::Complex64;
use qrenyi::io::{parse_csv, parse_npy, NpyArray};
use qrenyi::order::{Order, OrderRange};
use qrenyi::state::Channel;

#[test]
fn npy_decodes_c_and_fortran_order_and_both_byte_orders() {
    let c = parse_npy(&npy(
        "<f8",
        "(3, 2)",
        false,
        &le_bytes(&[0., 1., 2., 3., 4., 5.]),
    ))
    .unwrap();
    let f = parse_npy(&npy(
        "<f8",
        "(3, 2)",
        true,
        &le_bytes(&[0., 2., 4., 1., 3., 5.]),
    ))
    .unwrap();
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
    let z = parse_npy(&npy("<c16", "(1, 1)", false, &le_bytes(&[0.25, -0.5]))).unwrap();
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
    let e = parse_npy(&npy(
        "<f8",
        "(2, 2)",
        false,
        &le_bytes(&[1., 2., 3., 4., 5.]),
    ))
    .unwrap_err();
    assert!(e.contains("8 trailing bytes"), "{e}");
    let e = parse_npy(&npy("<f8", "(18446744073709551615, 2)", false, &[])).unwrap_err();
    assert!(e.contains("overflows"), "{e}");
    let mut bad_len = npy("<f8", "(1,)", false, &le_bytes(&[1.]));
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

/// The CPU backends that wrap FFI or pure-Rust solvers (CUDA has its own suite, tests/gpu.rs).
/// The CPU backends this build has (LAPACK with `openblas`, faer with `faer`; nalgebra and Auto
/// always).
fn cpu_backends() -> Vec<qrenyi::spectral::Backend> {
    use qrenyi::spectral::Backend::*;
    let mut all = vec![Nalgebra, Auto];
    if cfg!(feature = "openblas") {
        all.extend([Lapack, LapackMrrr]);
    }
    if cfg!(feature = "faer") {
        all.push(Faer);
    }
    all
}

/// A Hermitian test matrix with distinct eigenvalues (a Hilbert-like real part, skew imaginary).
fn hermitian(d: usize) -> Array2<Complex64> {
    Array2::from_shape_fn((d, d), |(i, j)| {
        let (lo, hi) = (i.min(j) as f64 + 1.0, i.max(j) as f64 + 1.0);
        let im = if i < j {
            0.1 * lo
        } else if i > j {
            -0.1 * lo
        } else {
            0.0
        };
        Complex64::new(1.0 / (lo + hi) + if i == j { lo } else { 0.0 }, im)
    })
}

/// Every public solver entry point refuses a non-square matrix with `Error::NotSquare` — in front
/// of the LAPACK wrappers, whose own unconditional assertions (src/spectral/lapack.rs) are the
/// second line: a rectangular buffer never reaches a routine that would read `n·n` elements.
#[test]
fn solvers_refuse_non_square_matrices() {
    use qrenyi::spectral::EigenSolver;
    use qrenyi::Error;
    let c = Array2::from_shape_fn((3, 2), |(i, j)| Complex64::new((i + 2 * j) as f64, 0.0));
    let r = c.mapv(|z| z.re);
    let not_square = |e: Error, rows, cols| {
        assert!(
            matches!(e, Error::NotSquare { rows: r, cols: c } if r == rows && c == cols),
            "{e}"
        )
    };
    for b in cpu_backends() {
        for (view, rows, cols) in [(c.view(), 3, 2), (c.t(), 2, 3)] {
            not_square(b.eigh(view).unwrap_err(), rows, cols);
            not_square(b.eigvalsh(view).unwrap_err(), rows, cols);
            not_square(b.is_positive_definite(view, 0.0).unwrap_err(), rows, cols);
        }
        not_square(b.eigh_real(r.view()).unwrap_err(), 3, 2);
        not_square(b.eigvalsh_real(r.t()).unwrap_err(), 2, 3);
        // a 0×3 matrix is not square either (no zero-sized LAPACK call with a stray lda)
        let empty = Array2::<Complex64>::zeros((0, 3));
        not_square(b.eigvalsh(empty.view()).unwrap_err(), 0, 3);
        // the 0×0 matrix is: no eigenvalues (nalgebra's solver used to panic on it), and a 0×3
        // matrix has no singular values
        let none = Array2::<Complex64>::zeros((0, 0));
        assert_eq!(b.eigvalsh(none.view()).unwrap().len(), 0, "{b:?}");
        assert_eq!(b.eigh(none.view()).unwrap().1.dim(), (0, 0), "{b:?}");
        let none_real = Array2::<f64>::zeros((0, 0));
        assert_eq!(b.eigvalsh_real(none_real.view()).unwrap().len(), 0, "{b:?}");
        assert_eq!(b.singular_values(empty.view()).unwrap().len(), 0, "{b:?}");
    }
}

/// Non-contiguous views (every other row and column of a larger matrix, transposes, negative
/// strides) reach the FFI routines as contiguous column-major copies: every backend returns the
/// same spectrum, singular values and Cholesky answer as for the owned contiguous matrix.
#[test]
fn solvers_read_non_contiguous_views_correctly() {
    use ndarray::s;
    use qrenyi::spectral::{gram, EigenSolver};
    let big = hermitian(8);
    let strided = big.slice(s![..;2, ..;2]);
    let reversed = strided.slice_move(s![..;-1, ..;-1]);
    assert!(!strided.is_standard_layout() && !strided.t().is_standard_layout());
    let owned = strided.to_owned();
    let reference = qrenyi::spectral::Backend::Nalgebra
        .eigvalsh(owned.view())
        .unwrap();
    for b in cpu_backends() {
        // the reversed view is the same matrix with rows and columns permuted: same spectrum;
        // its transpose is the complex conjugate: same spectrum too
        for view in [strided, strided.t(), reversed, owned.view()] {
            let w = b.eigvalsh(view).unwrap();
            for (x, y) in w.iter().zip(&reference) {
                assert!((x - y).abs() < 1e-12, "{b:?}: {x} vs {y}");
            }
            let (w2, v) = b.eigh(view).unwrap();
            let av = view.dot(&v);
            let vl = &v * &w2.mapv(|x| Complex64::new(x, 0.0));
            let residual = (&av - &vl).iter().map(|z| z.norm()).fold(0.0, f64::max);
            assert!(residual < 1e-12, "{b:?}: residual {residual}");
            assert!(b.is_positive_definite(view, 0.0).unwrap(), "{b:?}");
            let rv = view.mapv(|z| z.re);
            let rs = b.eigvalsh_real(rv.view()).unwrap();
            assert_eq!(rs.len(), 4);
        }
        // rectangular strided views for singular values (wide, tall)
        let wide = big.slice(s![..;3, ..]);
        let tall = big.slice(s![.., 1..;3]);
        for view in [wide, tall, wide.t()] {
            let sv = b.singular_values(view).unwrap();
            let sv_owned = b.singular_values(view.to_owned().view()).unwrap();
            assert_eq!(sv.len(), view.nrows().min(view.ncols()));
            for (x, y) in sv.iter().zip(&sv_owned) {
                assert!((x - y).abs() < 1e-12, "{b:?}: {x} vs {y}");
            }
            // σ² are the eigenvalues of C C† (computed by zherk on the strided view)
            let mut ev = b.eigvalsh(gram(&view).view()).unwrap().to_vec();
            ev.reverse();
            for (x, y) in sv.iter().zip(&ev) {
                assert!((x * x - y).abs() < 1e-12, "{b:?}: {x}² vs {y}");
            }
        }
    }
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
