//! The fuzz corpus and crash inputs as regression tests: every file under `fuzz/corpus/<target>/`
//! and `fuzz/regressions/<target>/` is fed to the target's entry point in `qrenyi::fuzzing` (the
//! functions the cargo-fuzz targets call), so a fixed crash stays fixed in `cargo test` without
//! the nightly toolchain. docs/fuzzing.md explains how the corpus is grown and minimised.

use std::path::Path;

/// A fuzz target's entry point.
type Entry = fn(&[u8]);

const TARGETS: [(&str, Entry); 6] = [
    ("npy", qrenyi::fuzzing::npy),
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
