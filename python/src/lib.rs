//! `qrenyi._qrenyi`: the compiled part of the Python package `qrenyi` (PyO3 + rust-numpy).
//!
//! The Python modules in `python/qrenyi/` re-export these functions with docstrings, type stubs
//! and small result classes. Conventions are the core crate's (docs/conventions.md); this crate
//! only converts inputs and outputs:
//!
//! * every core error becomes `qrenyi.QrenyiError` (a `ValueError`) carrying the core's
//!   `Display` text — the text the CLI prints after `error: `;
//! * every call runs its Rust work inside [`guard`], so a panic never unwinds into Python: it
//!   becomes a `QrenyiError` saying that it is a bug in qrenyi;
//! * numerical work runs with the GIL released (`Python::detach`), so Python threads calling
//!   qrenyi run in parallel, and stacks of pairs are spread over rayon's workers — except for
//!   small single problems (`d ≤ GIL_HELD_UP_TO`), where releasing it would cost more than the
//!   work ([`detach_if`]).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

mod convert;
mod divergence;
mod kernel;
mod privacy;
mod smooth;
mod verify;

pyo3::create_exception!(
    qrenyi,
    QrenyiError,
    PyValueError,
    "Every error qrenyi reports: bad input (what and by how much), a parameter out of range, \
     or — never expected — an internal failure. The message is the one the CLI prints after `error: `."
);

/// A core error as a Python exception.
pub fn to_py(e: qrenyi::Error) -> PyErr {
    QrenyiError::new_err(e.to_string())
}

/// The message of a caught panic.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Run `f`, turning a core error into `QrenyiError` and a panic into `QrenyiError` too (a panic
/// in qrenyi is a bug; it must not abort the interpreter or surface as `PanicException`).
pub fn guard<T>(f: impl FnOnce() -> qrenyi::Result<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(to_py),
        Err(p) => Err(QrenyiError::new_err(format!(
            "internal error (a bug in qrenyi, please report it): {}",
            panic_message(p.as_ref())
        ))),
    }
}

/// Like [`guard`] for closures that already return a Python result.
pub fn guard_py<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(QrenyiError::new_err(format!(
            "internal error (a bug in qrenyi, please report it): {}",
            panic_message(p.as_ref())
        ))),
    }
}

/// The largest dimension whose single-pair work runs with the GIL held (see [`detach_if`]).
pub const GIL_HELD_UP_TO: usize = 16;

/// Run `f` — Rust work that touches no Python object — with the GIL released when `release`,
/// holding it otherwise. Small problems (one pair or state with `d ≤ GIL_HELD_UP_TO`: a few to a
/// few hundred microseconds) keep it: releasing and re-taking it costs a sizeable part of such a
/// call, and when other Python threads are running the re-take waits for the interpreter's switch
/// interval (5 ms), so releasing it for microseconds of work slows every caller down. Larger
/// problems and stacks release it, so that Python threads compute in parallel.
pub fn detach_if<T: Send>(py: Python<'_>, release: bool, f: impl FnOnce() -> T + Send) -> T {
    if release {
        py.detach(f)
    } else {
        f()
    }
}

/// A `qrenyi::Error::Parse` for `what`, as a Python exception.
pub fn parse_error(what: &str, reason: impl Into<String>) -> PyErr {
    to_py(qrenyi::Error::Parse {
        what: what.into(),
        reason: reason.into(),
    })
}

/// Raises a Rust panic inside the guarded region (tests check that it becomes `QrenyiError`).
#[pyfunction]
fn _panic_for_tests(message: &str) -> PyResult<()> {
    guard(|| -> qrenyi::Result<()> { panic!("{message}") })
}

#[pymodule]
fn _qrenyi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("QrenyiError", m.py().get_type::<QrenyiError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    divergence::register(m)?;
    privacy::register(m)?;
    verify::register(m)?;
    kernel::register(m)?;
    smooth::register(m)?;
    Ok(())
}
