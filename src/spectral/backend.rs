//! Eigensolver backends behind one interface.
//!
//! [`EigenSolver`] is the trait every backend implements; [`Backend`] is the enum the rest of the
//! crate stores and passes around (cheap to copy, `Send + Sync`). Two implementations exist:
//!
//! * [`Backend::Lapack`] — LAPACK `zheevd`/`dsyevd` (divide and conquer) from the system OpenBLAS,
//!   called directly on column-major copies; values-only calls use `jobz = 'N'`. Cost `O(d³)` with
//!   the small constant of BLAS-3 kernels. [`Backend::LapackMrrr`] uses `zheevr`/`dsyevr` (MRRR)
//!   instead, kept for benchmarking and as a fallback. Both need the default `openblas` feature.
//! * [`Backend::Nalgebra`] — nalgebra's pure-Rust symmetric QR algorithm (`SymmetricEigen::try_new`
//!   with an iteration cap, so it cannot loop forever), eigenvalues sorted afterwards. Slower, but
//!   independent code: the tests use it to cross-check LAPACK.
//!
//! Every solver returns eigenvalues in ascending order and eigenvectors as the columns of the
//! returned matrix, `A = V diag(λ) V†`.

use crate::error::{Error, Result};
use ndarray::{Array1, Array2, ArrayView2};
use num_complex::Complex64;

/// A Hermitian (or real symmetric) eigensolver.
///
/// Implementations must return eigenvalues in ascending order, eigenvectors as orthonormal columns,
/// and an [`Error::Eigensolver`] (never a panic) when the algorithm fails.
pub trait EigenSolver {
    /// Short name used in error messages and benchmark labels.
    fn name(&self) -> &'static str;
    /// Full decomposition `A = V diag(λ) V†` of a Hermitian matrix (only the lower triangle is read).
    fn eigh(&self, a: ArrayView2<Complex64>) -> Result<(Array1<f64>, Array2<Complex64>)>;
    /// Eigenvalues only of a Hermitian matrix, ascending.
    fn eigvalsh(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>>;
    /// Full decomposition `A = V diag(λ) Vᵀ` of a real symmetric matrix.
    fn eigh_real(&self, a: ArrayView2<f64>) -> Result<(Array1<f64>, Array2<f64>)>;
    /// Eigenvalues only of a real symmetric matrix, ascending.
    fn eigvalsh_real(&self, a: ArrayView2<f64>) -> Result<Array1<f64>>;
    /// Singular values of a complex `m × n` matrix, descending (values only).
    ///
    /// Used where small eigenvalues of `B B†` are needed to high *relative* accuracy: the singular
    /// values `s` of `B` carry absolute error `≈ ε‖B‖`, so `s²` keeps relative accuracy down to
    /// `s² ≈ ε‖B‖ s`, where an eigensolver on `B B†` would stop at `ε‖B‖²`.
    fn singular_values(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>>;
}

/// Which eigensolver to use. `Backend::default()` is [`Backend::Lapack`] when the `openblas`
/// feature is enabled (the default) and [`Backend::Nalgebra`] otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// LAPACK divide and conquer (`zheevd`, `dsyevd`) over the system OpenBLAS.
    Lapack,
    /// LAPACK MRRR (`zheevr`, `dsyevr`) over the system OpenBLAS.
    LapackMrrr,
    /// nalgebra's pure-Rust implicit QR (`SymmetricEigen::try_new`).
    Nalgebra,
}

impl Default for Backend {
    fn default() -> Self {
        if cfg!(feature = "openblas") {
            Backend::Lapack
        } else {
            Backend::Nalgebra
        }
    }
}

impl std::str::FromStr for Backend {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "lapack" | "zheevd" => Ok(Backend::Lapack),
            "lapack-mrrr" | "zheevr" => Ok(Backend::LapackMrrr),
            "nalgebra" => Ok(Backend::Nalgebra),
            other => Err(Error::Parse {
                what: "backend".into(),
                reason: format!(
                    "unknown backend {other:?} (expected lapack, lapack-mrrr or nalgebra)"
                ),
            }),
        }
    }
}

impl Backend {
    /// Backends compiled into this build, default first.
    pub fn available() -> Vec<Backend> {
        if cfg!(feature = "openblas") {
            vec![Backend::Lapack, Backend::LapackMrrr, Backend::Nalgebra]
        } else {
            vec![Backend::Nalgebra]
        }
    }
}

#[cfg(not(feature = "openblas"))]
fn lapack_missing<T>() -> Result<T> {
    Err(Error::Eigensolver {
        backend: "lapack",
        reason: "qrenyi was built without the `openblas` feature; use Backend::Nalgebra".into(),
    })
}

macro_rules! dispatch {
    ($self:ident, $method:ident, $a:ident) => {
        match $self {
            #[cfg(feature = "openblas")]
            Backend::Lapack => super::lapack::Lapack { mrrr: false }.$method($a),
            #[cfg(feature = "openblas")]
            Backend::LapackMrrr => super::lapack::Lapack { mrrr: true }.$method($a),
            #[cfg(not(feature = "openblas"))]
            Backend::Lapack | Backend::LapackMrrr => lapack_missing(),
            Backend::Nalgebra => super::nalgebra_backend::Nalgebra.$method($a),
        }
    };
}

impl EigenSolver for Backend {
    fn name(&self) -> &'static str {
        match self {
            Backend::Lapack => "lapack-zheevd",
            Backend::LapackMrrr => "lapack-zheevr",
            Backend::Nalgebra => "nalgebra",
        }
    }
    fn eigh(&self, a: ArrayView2<Complex64>) -> Result<(Array1<f64>, Array2<Complex64>)> {
        check_square(&a)?;
        dispatch!(self, eigh, a)
    }
    fn eigvalsh(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        check_square(&a)?;
        dispatch!(self, eigvalsh, a)
    }
    fn eigh_real(&self, a: ArrayView2<f64>) -> Result<(Array1<f64>, Array2<f64>)> {
        check_square(&a)?;
        dispatch!(self, eigh_real, a)
    }
    fn eigvalsh_real(&self, a: ArrayView2<f64>) -> Result<Array1<f64>> {
        check_square(&a)?;
        dispatch!(self, eigvalsh_real, a)
    }
    fn singular_values(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        dispatch!(self, singular_values, a)
    }
}

fn check_square<T>(a: &ArrayView2<T>) -> Result<()> {
    let (r, c) = a.dim();
    if r != c {
        return Err(Error::NotSquare { rows: r, cols: c });
    }
    Ok(())
}
