//! Fuzz target `json_matrix`: see `qrenyi::fuzzing::json_matrix` (the same entry point runs the committed corpus
//! in `cargo test`, tests/fuzz_corpus.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    qrenyi::fuzzing::json_matrix(data);
});
