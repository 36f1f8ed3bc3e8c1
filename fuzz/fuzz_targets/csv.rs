//! Fuzz target `csv`: see `qrenyi::fuzzing::csv` (the same entry point runs the committed corpus
//! in `cargo test`, tests/fuzz_corpus.rs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    qrenyi::fuzzing::csv(data);
});
