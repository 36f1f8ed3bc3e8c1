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

mod alloc;
mod convert;
mod divergence;
mod kernel;
mod privacy;
mod smooth;
mod verify;

/// The extension's own (Rust) allocations: mimalloc below 4 MiB, the system allocator above
/// ([`alloc::SplitAllocator`]); Python's and numpy's keep theirs.
#[global_allocator]
static ALLOCATOR: alloc::SplitAllocator = alloc::SplitAllocator;

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

/// How often a long call polls for Ctrl-C ([`interruptible`], stacks in `divergence`).
pub const POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// Run `f` — Rust work that touches no Python object and stops soon after its flag is set — on a
/// helper thread, with the GIL released, while this thread wakes every [`POLL`] to run Python's
/// signal handlers (`py.check_signals()`). A handler's exception (`KeyboardInterrupt` on Ctrl-C)
/// sets the flag, waits for `f` to return and is raised as itself; `f`'s result is dropped.
/// Signals are only handled on the main thread: called from another thread, this only costs the
/// helper thread (≈ 20–50 µs, for calls that take milliseconds to hours).
pub fn interruptible<T: Send>(
    py: Python<'_>,
    f: impl FnOnce(&std::sync::atomic::AtomicBool) -> T + Send,
) -> PyResult<T> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Condvar, Mutex};
    let cancel = AtomicBool::new(false);
    let done = (Mutex::new(false), Condvar::new());
    std::thread::scope(|sc| {
        let (cancel, done) = (&cancel, &done);
        let worker = std::thread::Builder::new()
            .name("qrenyi-call".into())
            .spawn_scoped(sc, move || {
                let out = catch_unwind(AssertUnwindSafe(|| f(cancel)));
                *done.0.lock().unwrap_or_else(|p| p.into_inner()) = true;
                done.1.notify_all();
                out
            })
            .map_err(|e| QrenyiError::new_err(format!("cannot start a worker thread: {e}")))?;
        // wait for the worker (GIL released), `POLL` at a time; true when it has finished
        let wait = |limit: Option<std::time::Duration>| -> bool {
            py.detach(|| {
                let g = done.0.lock().unwrap_or_else(|p| p.into_inner());
                match limit {
                    Some(t) => {
                        let (g, _) = done
                            .1
                            .wait_timeout_while(g, t, |d| !*d)
                            .unwrap_or_else(|p| p.into_inner());
                        *g
                    }
                    None => *done
                        .1
                        .wait_while(g, |d| !*d)
                        .unwrap_or_else(|p| p.into_inner()),
                }
            })
        };
        let mut interrupt = None;
        while !wait(Some(POLL)) {
            if let Err(e) = py.check_signals() {
                cancel.store(true, Ordering::Relaxed);
                wait(None);
                interrupt = Some(e);
                break;
            }
        }
        let out = py.detach(|| worker.join());
        if let Some(e) = interrupt {
            return Err(e);
        }
        match out {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(p)) | Err(p) => Err(QrenyiError::new_err(format!(
                "internal error (a bug in qrenyi, please report it): {}",
                panic_message(p.as_ref())
            ))),
        }
    })
}

/// Run `f` — Rust work on owned data that touches no Python object and cannot be stopped early
/// (the kernel estimators: a few large eigendecompositions) — on a helper thread with the GIL
/// released, polling Python's signal handlers every [`POLL`] as [`interruptible`] does. On Ctrl-C
/// the `KeyboardInterrupt` is raised at once and `f` is left to finish on its own thread, its
/// result dropped: the caller gets control back, the core it uses is freed when `f` returns.
/// `f` must therefore write nothing (files are written by the caller after it returns).
pub fn interruptible_detached<T: Send + 'static>(
    py: Python<'_>,
    f: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    use std::sync::{Arc, Condvar, Mutex};
    type Slot<T> = (Mutex<Option<std::thread::Result<T>>>, Condvar);
    let slot: Arc<Slot<T>> = Arc::new((Mutex::new(None), Condvar::new()));
    let theirs = Arc::clone(&slot);
    std::thread::Builder::new()
        .name("qrenyi-call".into())
        .spawn(move || {
            let out = catch_unwind(AssertUnwindSafe(f));
            *theirs.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(out);
            theirs.1.notify_all();
        })
        .map_err(|e| QrenyiError::new_err(format!("cannot start a thread: {e}")))?;
    loop {
        let out = py.detach(|| {
            let g = slot.0.lock().unwrap_or_else(|p| p.into_inner());
            let (mut g, _) = slot
                .1
                .wait_timeout_while(g, POLL, |o| o.is_none())
                .unwrap_or_else(|p| p.into_inner());
            g.take()
        });
        match out {
            Some(Ok(v)) => return Ok(v),
            Some(Err(p)) => {
                return Err(QrenyiError::new_err(format!(
                    "internal error (a bug in qrenyi, please report it): {}",
                    panic_message(p.as_ref())
                )))
            }
            None => py.check_signals()?,
        }
    }
}

/// Run Python's signal handlers from Rust work running with the GIL released (taking it for the
/// call: ≈ 1 µs uncontended); their exception (`KeyboardInterrupt`) as an `Err`.
pub fn check_signals_detached() -> PyResult<()> {
    Python::attach(|py| py.check_signals())
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
