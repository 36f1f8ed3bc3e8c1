//! Outputs and the input registry (`qrenyi::io`): an output never replaces an input of the
//! command now running, the registry is scoped to one command (`io::InputScope`: nothing
//! accumulates in a long-running process, a later command may write where an earlier one read),
//! and every write is atomic — an error mid-write leaves the old file (or none), never a
//! truncated one, and no temporary file.

mod common;

use common::temp_path;
use ndarray::array;
use num_complex::Complex64;
use qrenyi::io::{self, InputScope};
use std::path::Path;
use std::sync::Mutex;

/// The registry is process-wide: the tests of this file take turns.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn a_state(path: &Path) {
    let m = array![
        [Complex64::new(0.7, 0.0), Complex64::new(0.0, 0.0)],
        [Complex64::new(0.0, 0.0), Complex64::new(0.3, 0.0)]
    ];
    io::write_matrix(path, &m).unwrap();
}

/// The names in `path`'s directory other than the listed ones (left-over temporary files).
fn others(path: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect()
}

/// Inside a scope an input is refused as an output; once the scope has closed, the registry is
/// empty and the same path is a legitimate output of a later command (before: the process-wide
/// registry kept every input for the life of the process and refused it). Reads outside every
/// scope are not remembered at all.
#[test]
fn the_input_registry_lives_for_one_command() {
    let _serial = serial();
    let input = temp_path("scoped-input.npy");
    a_state(&input);
    {
        let _scope = InputScope::enter();
        io::read_matrix(&input).unwrap();
        assert_eq!(io::noted_inputs(), 1);
        let e = io::replace_with_bytes(&input, b"output").unwrap_err();
        assert!(e.to_string().contains("is an input of this command"), "{e}");
        // read twice: noted once
        io::read_matrix(&input).unwrap();
        assert_eq!(io::noted_inputs(), 1);
    }
    assert_eq!(io::noted_inputs(), 0, "the closed scope left entries");
    io::replace_with_bytes(&input, b"a later command's output").unwrap();
    assert_eq!(std::fs::read(&input).unwrap(), b"a later command's output");

    // outside every scope: nothing remembered (no leak), nothing refused
    let other = temp_path("unscoped-input.npy");
    a_state(&other);
    for _ in 0..3 {
        io::read_matrix(&other).unwrap();
    }
    assert_eq!(io::noted_inputs(), 0);
    io::with_input_scope(|| {
        // a new scope does not inherit reads made outside it
        assert_eq!(io::noted_inputs(), 0);
        io::replace_with_bytes(&other, b"x").unwrap();
    });
}

/// Scopes open at the same time (two calls on two threads) share the set: the inputs of a
/// command still running stay protected after another command's scope has closed, and everything
/// is forgotten when the last one closes.
#[test]
fn overlapping_scopes_protect_each_others_inputs() {
    let _serial = serial();
    let (a, b) = (temp_path("first-input.npy"), temp_path("second-input.npy"));
    a_state(&a);
    a_state(&b);
    let outer = InputScope::enter();
    io::read_matrix(&a).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| {
            let _inner = InputScope::enter();
            io::read_matrix(&b).unwrap();
            assert!(io::replace_with_bytes(&a, b"x").is_err());
        });
    });
    // the other command is done, this one still runs: both files still protected
    assert_eq!(io::noted_inputs(), 2);
    assert!(io::replace_with_bytes(&b, b"x").is_err());
    drop(outer);
    assert_eq!(io::noted_inputs(), 0);
    io::replace_with_bytes(&a, b"x").unwrap();
    io::replace_with_bytes(&b, b"x").unwrap();
}

/// An error while an output is being written (here after half of it) leaves the old file
/// unchanged and no temporary file; a new file (`create_atomically`, `write_new`) is either
/// complete or absent, and never replaces what is there.
#[test]
fn an_error_mid_write_leaves_no_truncated_or_clobbered_file() {
    let _serial = serial();
    let out = temp_path("output.csv");
    std::fs::write(&out, b"the old, complete content").unwrap();
    let failing = |tmp: &Path| {
        std::fs::write(tmp, b"the new, ha").unwrap();
        Err(qrenyi::Error::io(tmp, "disk full (simulated)"))
    };
    let e = io::replace_atomically(&out, failing).unwrap_err();
    assert!(e.to_string().contains("disk full"), "{e}");
    assert_eq!(std::fs::read(&out).unwrap(), b"the old, complete content");
    assert_eq!(others(&out, &["output.csv"]), Vec::<String>::new());

    let new = out.with_file_name("new.npy");
    assert!(io::create_atomically(&new, failing).is_err());
    assert!(!new.exists(), "a failed creation left a file");
    assert_eq!(others(&out, &["output.csv"]), Vec::<String>::new());

    // exclusive: an existing file (or a link) is never replaced, and the attempt leaves no trace
    let e = io::write_new(&out, b"clobbered").unwrap_err();
    assert!(e.to_string().contains(out.to_str().unwrap()), "{e}");
    assert_eq!(std::fs::read(&out).unwrap(), b"the old, complete content");
    #[cfg(unix)]
    {
        let link = out.with_file_name("link.npy");
        std::os::unix::fs::symlink(&out, &link).unwrap();
        assert!(io::write_new(&link, b"through the link").is_err());
        assert_eq!(std::fs::read(&out).unwrap(), b"the old, complete content");
        std::fs::remove_file(&link).unwrap();
    }
    assert_eq!(others(&out, &["output.csv"]), Vec::<String>::new());

    io::write_new(&new, b"complete").unwrap();
    assert_eq!(std::fs::read(&new).unwrap(), b"complete");
    assert_eq!(
        others(&out, &["output.csv", "new.npy"]),
        Vec::<String>::new()
    );
}
