//! The fuzz corpus and crash inputs as regression tests: every file under `fuzz/corpus/<target>/`
//! and `fuzz/regressions/<target>/` is fed to the target's entry point in `qrenyi::fuzzing` (the
//! functions the cargo-fuzz targets call), so a fixed crash stays fixed in `cargo test` without
//! the nightly toolchain. docs/fuzzing.md explains how the corpus is grown and minimised.

use std::path::Path;

/// A fuzz target's entry point.
type Entry = fn(&[u8]);

const TARGETS: [(&str, Entry); 7] = [
    ("npy", qrenyi::fuzzing::npy),
    ("npz", qrenyi::fuzzing::npz),
    ("json_matrix", qrenyi::fuzzing::json_matrix),
    ("csv", qrenyi::fuzzing::csv),
    ("replay", qrenyi::fuzzing::replay),
    ("merge", qrenyi::fuzzing::merge),
    ("density", qrenyi::fuzzing::density),
];

fn feed(root: &str) -> usize {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(root);
    let mut n = 0;
    for (target, entry) in TARGETS {
        let Ok(dir) = std::fs::read_dir(base.join(target)) else {
            continue;
        };
        for file in dir {
            let path = file.unwrap().path();
            if path.is_file() {
                let data = std::fs::read(&path).unwrap();
                let r = std::panic::catch_unwind(|| entry(&data));
                assert!(r.is_ok(), "{target}: {} panics", path.display());
                n += 1;
            }
        }
    }
    n
}

#[test]
fn corpus_inputs_are_handled() {
    let n = feed("corpus");
    assert!(n >= 6, "the committed corpus has only {n} inputs");
}

#[test]
fn crash_regressions_are_handled() {
    feed("regressions");
}

/// The `npz` seeds written by `fuzz/make_npz_seeds.py` are real archives (stored and deflated,
/// four dtypes, both byte orders, a Fortran-order stack), so the fuzzer starts from inputs that
/// reach the `.npy` parser: each decodes through `read_stack` (the file path) to the values the
/// script wrote, and the truncated ones are errors.
#[test]
fn npz_seeds_decode_to_the_written_values() {
    use num_complex::Complex64;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/npz");
    let tmp = std::env::temp_dir().join(format!("qrenyi-npz-seeds-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let read = |seed: &str, member: &str| {
        let path = tmp.join(format!("{seed}.npz"));
        std::fs::copy(dir.join(seed), &path).unwrap();
        qrenyi::io::read_stack(&format!("{}{member}", path.display()))
    };
    let real = [0.6, 0.1, 0.1, 0.4].map(|x| Complex64::new(x, 0.0));
    let complex = [
        Complex64::new(0.6, 0.0),
        Complex64::new(0.1, 0.05),
        Complex64::new(0.1, -0.05),
        Complex64::new(0.4, 0.0),
    ];
    for (seed, member, want, single, tol) in [
        ("f64_stored", "", real, false, 0.0),
        ("f64_deflated", "", real, false, 0.0),
        ("f64_big_endian", "", real, false, 0.0),
        ("f32_stored", "", real, true, 1e-7),
        ("c64_deflated", "", complex, true, 1e-7),
        ("c128_pair_stored", ":rho", complex, false, 0.0),
        ("c128_pair_deflated", ":rho", complex, false, 0.0),
    ] {
        let s = read(seed, member).unwrap_or_else(|e| panic!("{seed}: {e}"));
        assert_eq!(s.matrices.shape(), &[1, 2, 2], "{seed}");
        assert_eq!(s.single_precision, single, "{seed}");
        for (got, want) in s.matrices.iter().zip(want) {
            assert!((got - want).norm() <= tol, "{seed}: {got} vs {want}");
        }
    }
    let stack = read("f64_stack_fortran", "").unwrap();
    assert_eq!(stack.matrices.shape(), &[2, 2, 2]);
    assert!(stack.stacked);
    let pair = read("c128_pair_deflated", ":sigma").unwrap();
    assert_eq!(pair.matrices[[0, 0, 1]], Complex64::new(0.2, -0.1));
    for seed in [
        "truncated_half",
        "truncated_central_directory",
        "truncated_member_stored",
    ] {
        assert!(read(seed, ":rho").is_err(), "{seed} decodes");
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}
