//! Entry points of the fuzz targets (`fuzz/`, docs/fuzzing.md): each takes arbitrary bytes, feeds
//! them to one reader of untrusted input and checks what comes back. They must never panic,
//! abort, hang or allocate beyond the input's size; a failure of the input is an `Err`.
//!
//! The same functions replay the committed corpus and crash inputs in `cargo test`
//! (tests/fuzz_corpus.rs), so a fixed crash stays fixed without the nightly toolchain.

use crate::divergence::{Family, Pair};
use crate::io::{parse_csv, parse_json_matrix, parse_npy, NpyArray};
use crate::state::DensityMatrix;
use ndarray::Array2;
use num_complex::Complex64;

/// `.npy` reader ([`crate::io::read_npy`]'s checks on bytes in memory).
pub fn npy(data: &[u8]) {
    if let Ok(a) = parse_npy(data) {
        let elements: usize = a.shape().iter().product();
        let size = match &a {
            NpyArray::Real(x) => x.len() * 8,
            NpyArray::Complex(x) => x.len() * 16,
        };
        assert!(size <= data.len(), "decoded more data than the file holds");
        assert!(size == elements * 8 || size == elements * 16);
    }
}

/// JSON matrix reader ([`crate::io::read_matrix`] on `.json`).
pub fn json_matrix(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(m) = parse_json_matrix(text) {
            assert!(m.len() <= data.len());
        }
    }
}

/// CSV sample reader ([`crate::io::read_real_matrix`] on `.csv`).
pub fn csv(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(m) = parse_csv(text) {
            assert!(m.len() <= data.len());
        }
    }
}

/// `verify --replay` on a document (no `.npy` files beside it).
pub fn replay(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let dir = std::env::temp_dir().join("qrenyi-fuzz-replay-empty-dir");
        if let Ok(r) = crate::verify::replay_document(text, &dir) {
            assert!(!r.margin.value.is_nan() && !r.recorded.is_nan());
        }
    }
}

/// `verify merge` on one document of reports (merged with itself when it parses: duplicate
/// shards must be refused).
pub fn merge(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(reports) = crate::verify::parse_reports(text, "fuzz input") {
            let twice: Vec<_> = reports.iter().chain(&reports).cloned().collect();
            let _ = crate::verify::merge(reports);
            if !twice.is_empty() {
                assert!(
                    crate::verify::merge(twice).is_err(),
                    "duplicate shards merged"
                );
            }
        }
    }
}

/// [`DensityMatrix::new`] on two matrices built from the bytes, then the sandwiched divergence
/// and the trace distance of the pair when both are states. Layout: byte 0 picks `d ∈ 1..=6`,
/// byte 1 picks α, then `2·d²` little-endian f64 (re, im) per matrix.
pub fn density(data: &[u8]) {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let d = 1 + usize::from(head % 6);
    let Some((&a, rest)) = rest.split_first() else {
        return;
    };
    let alpha = [0.001, 0.3, 0.5, 0.99, 1.0, 1.5, 2.0, 1e6, f64::INFINITY][usize::from(a % 9)];
    let mut floats = rest.chunks_exact(8).map(|c| {
        let b: [u8; 8] = [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]];
        f64::from_le_bytes(b)
    });
    let mut matrix = || -> Option<Array2<Complex64>> {
        let v: Vec<Complex64> = (0..d * d)
            .map(|_| Some(Complex64::new(floats.next()?, floats.next()?)))
            .collect::<Option<_>>()?;
        Array2::from_shape_vec((d, d), v).ok()
    };
    let (Some(x), Some(y)) = (matrix(), matrix()) else {
        return;
    };
    let (Ok(rho), Ok(sigma)) = (DensityMatrix::new(x), DensityMatrix::new(y)) else {
        return;
    };
    let Ok(pair) = Pair::new(&rho, &sigma) else {
        return;
    };
    if let Ok(v) = pair.renyi(Family::Sandwiched, alpha) {
        assert!(!v.is_nan(), "sandwiched D at α = {alpha} is NaN");
    }
    if let Ok(t) = pair.trace_distance() {
        assert!((-1e-9..=1.0 + 1e-9).contains(&t), "trace distance {t}");
    }
}
