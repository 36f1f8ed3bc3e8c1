//! The crate's single error type.
//!
//! Every variant says *what* failed and *by how much*, so that a caller (or the CLI, which prints
//! the `Display` form and exits with code 2) can tell a rounding problem from a wrong input.
//! No public function of qrenyi panics on user input: it returns one of these.

use thiserror::Error;

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in qrenyi.
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A matrix that must be square is not.
    #[error("matrix is not square: {rows}×{cols}")]
    NotSquare {
        /// Number of rows.
        rows: usize,
        /// Number of columns.
        cols: usize,
    },
    /// Two objects that must have the same dimension do not.
    #[error("dimension mismatch ({what}): {left} vs {right}")]
    DimensionMismatch {
        /// What was being compared.
        what: String,
        /// First dimension.
        left: usize,
        /// Second dimension.
        right: usize,
    },
    /// An input is empty where at least one element is needed.
    #[error("empty input: {0}")]
    Empty(String),
    /// A NaN or infinite entry.
    #[error("non-finite entry {value} at {position}")]
    NonFinite {
        /// The offending value, printed.
        value: String,
        /// Where it is, e.g. `(2, 3)` or `index 4`.
        position: String,
    },
    /// A matrix that must be Hermitian is not, beyond tolerance.
    #[error("matrix is not Hermitian: max |A − A†| = {deviation:.3e}, tolerance {tolerance:.1e}")]
    NotHermitian {
        /// Largest entrywise deviation from Hermiticity.
        deviation: f64,
        /// Allowed deviation.
        tolerance: f64,
    },
    /// A matrix that must be positive semidefinite has a too negative eigenvalue.
    #[error(
        "matrix is not positive semidefinite: smallest eigenvalue {min_eigenvalue:.3e}, tolerance −{tolerance:.1e}"
    )]
    NotPositiveSemidefinite {
        /// The smallest eigenvalue found.
        min_eigenvalue: f64,
        /// Allowed negativity.
        tolerance: f64,
    },
    /// A trace (or total probability) is not one.
    #[error("trace is {}, expected 1 ± {tolerance:.0e}", trace_text(*trace))]
    TraceNotOne {
        /// The trace found.
        trace: f64,
        /// Allowed deviation.
        tolerance: f64,
    },
    /// A probability vector has a negative entry.
    #[error("negative probability {value:.3e} at index {index}")]
    NegativeProbability {
        /// Index of the entry.
        index: usize,
        /// The entry.
        value: f64,
    },
    /// A matrix that must be unitary (or an isometry) is not.
    #[error("matrix is not unitary: max |U†U − I| = {deviation:.3e}, tolerance {tolerance:.1e}")]
    NotUnitary {
        /// Largest entrywise deviation of U†U from the identity.
        deviation: f64,
        /// Allowed deviation.
        tolerance: f64,
    },
    /// Kraus operators that do not sum to the identity.
    #[error("channel is not trace preserving: max |Σ K†K − I| = {deviation:.3e}, tolerance {tolerance:.1e}")]
    NotTracePreserving {
        /// Largest entrywise deviation of Σ K†K from the identity.
        deviation: f64,
        /// Allowed deviation.
        tolerance: f64,
    },
    /// A Rényi order outside the range where the quantity is defined.
    #[error("order α = {} is out of range: {expected}", value_text(*alpha))]
    AlphaOutOfRange {
        /// The order given.
        alpha: f64,
        /// The allowed range, in words.
        expected: String,
    },
    /// Any other scalar parameter out of its domain.
    #[error("invalid {name} = {}: {reason}", value_text(*value))]
    InvalidParameter {
        /// Parameter name.
        name: String,
        /// Value given.
        value: f64,
        /// Why it is invalid.
        reason: String,
    },
    /// An eigensolver did not converge or reported an error.
    #[error("eigensolver ({backend}) failed: {reason}")]
    Eigensolver {
        /// Which backend.
        backend: &'static str,
        /// Its diagnosis.
        reason: String,
    },
    /// A file could not be read or written.
    #[error("I/O error on {path}: {reason}")]
    Io {
        /// The path involved.
        path: String,
        /// The operating system's or parser's message.
        reason: String,
    },
    /// An input could not be parsed.
    #[error("cannot parse {what}: {reason}")]
    Parse {
        /// What was being parsed.
        what: String,
        /// Why it failed.
        reason: String,
    },
    /// A smooth divergence whose certified bracket is wider than required (or could not be
    /// formed): the conic solver's answer could not be certified.
    #[error("{what}: not certified ({reason}); bracket width reached {width:.3e}")]
    SmoothNotCertified {
        /// Which quantity.
        what: String,
        /// `upper − lower` reached (∞ when no bracket was formed).
        width: f64,
        /// Why, in words.
        reason: String,
    },
    /// The GPU backend (`Backend::Cuda`) was asked for where it cannot run: qrenyi built without
    /// the `cuda` feature, no NVIDIA driver or CUDA library found, or no device.
    #[error("GPU backend unavailable: {reason}")]
    GpuUnavailable {
        /// What is missing, and what to use instead.
        reason: String,
    },
    /// A long computation stopped early because its caller asked it to (the cancellation flag
    /// of `verify::run_cancellable`; the Python binding raises `KeyboardInterrupt` instead).
    #[error("interrupted")]
    Interrupted,
}

/// A trace in an error message: [`short_number`], except that a trace within `5·10⁻⁵` of 1 (which
/// four decimals print as `1.0000`) shows its deviation, `1 + 1.000e-6`, so the message says by how
/// much the trace is off.
fn trace_text(t: f64) -> String {
    let off = t - 1.0;
    if t.is_finite() && off != 0.0 && off.abs() < 5e-5 {
        format!("1 {} {:.3e}", if off > 0.0 { "+" } else { "−" }, off.abs())
    } else {
        short_number(t)
    }
}

/// A parameter's value in an error message: Rust's `Display` (`-0.5`, `inf`, `NaN`, `2`), but in
/// scientific notation beyond `[1e-5, 1e16)` in magnitude, where `Display` writes every digit
/// (`1e300` was 301 characters, `5e-324` 326).
pub(crate) fn value_text(x: f64) -> String {
    if x.is_finite() && x != 0.0 && !(1e-5..1e16).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A number for a message: fixed notation with 4 decimals in `[1e-3, 1e6)`, else scientific
/// (a trace of 1e300 is not printed with 300 digits).
fn short_number(x: f64) -> String {
    if x == 0.0 || (1e-3..1e6).contains(&x.abs()) {
        format!("{x:.4}")
    } else {
        format!("{x:.4e}")
    }
}

impl Error {
    /// [`Error::Io`] on `path` (the one constructor for I/O failures, used by every reader and
    /// writer).
    pub fn io(path: &std::path::Path, reason: impl std::fmt::Display) -> Self {
        Error::Io {
            path: path.display().to_string(),
            reason: reason.to_string(),
        }
    }

    /// [`Error::InvalidParameter`] from its parts.
    pub fn invalid(name: &str, value: f64, reason: impl Into<String>) -> Self {
        Error::InvalidParameter {
            name: name.to_string(),
            value,
            reason: reason.into(),
        }
    }
}
