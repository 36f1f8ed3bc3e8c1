//! Eigensolver backends behind one interface.
//!
//! [`EigenSolver`] is the trait every backend implements; [`Backend`] is the enum the rest of the
//! crate stores and passes around (cheap to copy, `Send + Sync`). Three implementations exist, and
//! one policy that picks between them per call:
//!
//! * [`Backend::Lapack`] — LAPACK `zheevd`/`dsyevd` (divide and conquer) from the system OpenBLAS,
//!   called directly on column-major copies; values-only calls use `jobz = 'N'`. Cost `O(d³)` with
//!   the small constant of BLAS-3 kernels. [`Backend::LapackMrrr`] uses `zheevr`/`dsyevr` (MRRR)
//!   instead, kept for benchmarking and as a fallback. Both need the default `openblas` feature.
//! * [`Backend::Nalgebra`] — nalgebra's pure-Rust symmetric QR algorithm (`SymmetricEigen::try_new`
//!   with an iteration cap, so it cannot loop forever), eigenvalues sorted afterwards. Slower, but
//!   independent code: the tests use it to cross-check LAPACK. Without LAPACK's fixed per-call
//!   costs it is the faster one at small `d`.
//! * [`Backend::Faer`] — faer's pure-Rust blocked solvers (default `faer` feature): the fastest
//!   full Hermitian decomposition here from d ≈ 192 on (2× `zheevd` at d = 512).
//! * [`Backend::Auto`] (the default with the `openblas` feature) — per call, on the matrix
//!   dimension: complex solves of `d ≤ 16` on the fixed-size stack solvers (`spectral::small`:
//!   Jacobi to 3, Householder + QL above), nalgebra below the measured crossovers ([`AUTO_NALGEBRA_BELOW`],
//!   [`AUTO_NALGEBRA_VALUES_BELOW`], [`AUTO_NALGEBRA_CHOLESKY_BELOW`]), faer for full
//!   decompositions from [`AUTO_FAER_FROM`], LAPACK (`zheevd`, `zpotrf`) otherwise. Real symmetric solves and singular values always go to LAPACK (not measured against
//!   nalgebra). Auto never uses MRRR: `zheevr` is faster for full decompositions at large `d` (one
//!   thread, d = 1024: see `spectral/d=1024`), but its eigenvectors are less orthogonal —
//!   `‖V†V − I‖_F` = 1.7e-12 at d = 300 and 5.0e-12 at d = 1024 against `zheevd`'s 4.5e-14 and
//!   1.3e-13 (Ginibre-Hermitian test matrices; residuals `‖AV − VΛ‖_F/‖A‖_F` ≈ 4e-15 for both) —
//!   too much to keep the divergences within 1e-12 of the `zheevd` values.
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
    /// Whether `A + shift·I` is positive definite, decided by a Cholesky factorisation (`A`
    /// Hermitian; only one triangle is read). `Ok(false)` when the factorisation meets a pivot
    /// `≤ 0`; `Err` only when the routine itself fails (bad argument).
    ///
    /// Cost `d³/3` flops, against `≈ 9d³`–`25d³` for a full eigendecomposition. Backward error
    /// (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Theorem 10.3): success
    /// means `A + shift·I + E` is positive definite for some `‖E‖₂ ≤ c·d·ε·‖A + shift·I‖₂`, i.e.
    /// `λ_min(A) > −shift − c·d·ε·‖A + shift·I‖₂`; this is how [`crate::state`] checks PSD.
    fn is_positive_definite(&self, a: ArrayView2<Complex64>, shift: f64) -> Result<bool>;
}

/// [`Backend::Auto`] uses nalgebra for a full complex decomposition (`eigh`) of dimension below
/// this, LAPACK `zheevd` from here on (the measured crossover: docs/PERFORMANCE.md, "Auto
/// crossovers").
pub const AUTO_NALGEBRA_BELOW: usize = 24;

/// [`Backend::Auto`] uses nalgebra for complex eigenvalues only (`eigvalsh`) below this dimension
/// (shadowed: the fixed-size solvers answer every `d ≤ 16` first, so it no longer decides),
/// `zheevd` (jobz = 'N') from here on (docs/PERFORMANCE.md, "Auto crossovers": nalgebra has no
/// values-only driver, so LAPACK wins early).
pub const AUTO_NALGEBRA_VALUES_BELOW: usize = 8;

/// [`Backend::Auto`] uses nalgebra's Cholesky for [`EigenSolver::is_positive_definite`] below this
/// dimension, LAPACK `zpotrf` from here on (docs/PERFORMANCE.md, "Auto crossovers").
pub const AUTO_NALGEBRA_CHOLESKY_BELOW: usize = 8;

/// [`Backend::Auto`] computes singular values (`singular_values`: the sandwiched orders below 1
/// and the fidelity) with nalgebra's SVD for matrices whose larger side is below this, LAPACK
/// `zgesdd` from here on. Measured (one thread, same run; docs/PERFORMANCE.md, "Single pairs at
/// d ≤ 16 (call18)"): a `4 × 4` matrix 1.3–2.6 µs against 4.3–5.0 µs (`zgesdd`'s workspace query,
/// `ilaenv` and `dbdsdc` set-up dominate there), `8 × 8` 7.8 vs 11.0 µs, `16 × 16` even. Both are
/// backward stable (singular values to absolute accuracy `O(ε‖B‖)`, all that the sandwiched
/// a-posteriori bound assumes — and what a build without `openblas` already relies on); should
/// nalgebra's iteration not converge, the call takes LAPACK's route.
pub const AUTO_NALGEBRA_SVD_BELOW: usize = 16;

/// [`Backend::Auto`] uses faer for a full complex decomposition (`eigh`) from this dimension on
/// (feature `faer`); values only (`eigvalsh`) stays with LAPACK. The measured crossover and the
/// orthogonality of faer's eigenvectors (test `full_decomposition_is_accurate_at_d300`):
/// docs/PERFORMANCE.md, "Auto crossovers".
pub const AUTO_FAER_FROM: usize = 192;

/// [`Backend::Auto`] sends complex solves (full, values only, the Cholesky PSD check) of dimension
/// at least this to the GPU ([`Backend::Cuda`]) when qrenyi is built with the `cuda` feature and a
/// CUDA device is usable; a pair of states then also keeps its basis change on the GPU (the
/// measured crossover, NVIDIA H100 against its host's 16 cores: docs/PERFORMANCE.md, "GPU").
pub const AUTO_CUDA_FROM: usize = 128;

/// Which eigensolver to use. `Backend::default()` is [`Backend::Auto`] when the `openblas`
/// feature is enabled (the default) and [`Backend::Nalgebra`] otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// LAPACK divide and conquer (`zheevd`, `dsyevd`) over the system OpenBLAS.
    Lapack,
    /// LAPACK MRRR (`zheevr`, `dsyevr`) over the system OpenBLAS.
    LapackMrrr,
    /// nalgebra's pure-Rust implicit QR (`SymmetricEigen::try_new`).
    Nalgebra,
    /// Per call, on the dimension `d`: complex `eigh`/`eigvalsh` of `d ≤ 16` by the fixed-size
    /// stack solvers (`spectral::small`), [`Backend::Nalgebra`] below the measured crossovers
    /// ([`AUTO_NALGEBRA_BELOW`] for full decompositions, [`AUTO_NALGEBRA_VALUES_BELOW`] for values
    /// only, [`AUTO_NALGEBRA_CHOLESKY_BELOW`] for the PSD check), [`Backend::Faer`] for full
    /// decompositions from [`AUTO_FAER_FROM`], singular values below [`AUTO_NALGEBRA_SVD_BELOW`],
    /// [`Backend::Lapack`] otherwise (real symmetric solves always LAPACK). Without the `openblas` feature faer takes LAPACK's
    /// place, without either feature nalgebra does. The default when `openblas` is enabled.
    Auto,
    /// faer's pure-Rust solvers (`self_adjoint_eigen`, `self_adjoint_eigenvalues`,
    /// `singular_values`, `llt`); needs the default `faer` feature.
    Faer,
    /// NVIDIA GPU through cuSOLVER/cuBLAS (`zheevd`, `dsyevd`, `zgesvd`, `zpotrf`; double
    /// precision), feature `cuda`. Without the feature, or without a usable device, every call
    /// answers [`Error::GpuUnavailable`].
    Cuda,
}

/// The kind of call, for [`Backend::Auto`]'s choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Vectors,
    Values,
    Cholesky,
    /// Singular values of a complex matrix (nalgebra below [`AUTO_NALGEBRA_SVD_BELOW`]).
    Singular,
    /// Real symmetric solves (LAPACK whenever available).
    Other,
}

impl Default for Backend {
    fn default() -> Self {
        if cfg!(feature = "openblas") {
            Backend::Auto
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
            "auto" => Ok(Backend::Auto),
            "faer" => Ok(Backend::Faer),
            "cuda" | "gpu" => Ok(Backend::Cuda),
            other => Err(Error::Parse {
                what: "backend".into(),
                reason: format!(
                    "unknown backend {other:?} (expected auto, lapack, lapack-mrrr, nalgebra, faer or cuda)"
                ),
            }),
        }
    }
}

impl Backend {
    /// Backends compiled into this build, default first.
    pub fn available() -> Vec<Backend> {
        let mut all = if cfg!(feature = "openblas") {
            vec![
                Backend::Auto,
                Backend::Lapack,
                Backend::LapackMrrr,
                Backend::Nalgebra,
            ]
        } else {
            vec![Backend::Nalgebra]
        };
        if cfg!(feature = "faer") {
            all.push(Backend::Faer);
        }
        if gpu_present() {
            all.push(Backend::Cuda);
        }
        all
    }

    /// Whether a call of kind `op` at dimension `d` runs on the GPU (explicit [`Backend::Cuda`], or
    /// [`Backend::Auto`] from [`AUTO_CUDA_FROM`] with a device present).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub fn uses_gpu(self, d: usize) -> bool {
        self.resolve(Op::Vectors, d) == Backend::Cuda
    }

    /// Whether a values-only complex solve (`eigvalsh`) of dimension `d` runs on LAPACK's
    /// `zheevd` (this backend is [`Backend::Lapack`], or [`Backend::Auto`] picks it at `d`).
    pub(crate) fn values_by_zheevd(self, d: usize) -> bool {
        cfg!(feature = "openblas")
            && !self.small_solver(d, false)
            && self.resolve(Op::Values, d) == Backend::Lapack
    }

    /// Whether [`Backend::Auto`] answers a complex Hermitian solve of dimension `d` with the
    /// fixed-size solver (`spectral::small::eigh_small`: `1 ≤ d ≤`
    /// [`AUTO_SMALL_VECTORS_MAX`](super::small::AUTO_SMALL_VECTORS_MAX) with vectors,
    /// [`AUTO_SMALL_VALUES_MAX`](super::small::AUTO_SMALL_VALUES_MAX) values only; the empty matrix
    /// goes to the general route).
    fn small_solver(self, d: usize, vectors: bool) -> bool {
        let max = if vectors {
            super::small::AUTO_SMALL_VECTORS_MAX
        } else {
            super::small::AUTO_SMALL_VALUES_MAX
        };
        self == Backend::Auto && (1..=max).contains(&d)
    }

    /// Whether [`Backend::eigh_pair`] solves two `d × d` matrices together (the fixed-size QL
    /// solver's two-lane build, `spectral::small::eigh_tridiagonal_pair`): [`Backend::Auto`] with
    /// the QL solver at `d` (`AUTO_JACOBI_MAX < d ≤ AUTO_SMALL_VECTORS_MAX`).
    pub(crate) fn pairs_small(self, d: usize) -> bool {
        self.small_solver(d, true) && d > super::small::AUTO_JACOBI_MAX
    }

    /// The full decompositions of two Hermitian matrices, each [`EigenSolver::eigh`]'s bit for bit
    /// (values, vectors, errors): where [`Backend::pairs_small`] holds for both dimensions, one
    /// call of the fixed-size QL solver on both (`spectral::small::eigh_tridiagonal_pair`, the
    /// two dependency chains overlapped; each lane falls back as `eigh` does), else `eigh(a)`,
    /// then `eigh(b)`.
    pub(crate) fn eigh_pair(
        self,
        a: ArrayView2<Complex64>,
        b: ArrayView2<Complex64>,
    ) -> (super::small::Decomposition, super::small::Decomposition) {
        let d = a.nrows();
        if a.dim() == (d, d) && b.dim() == (d, d) && self.pairs_small(d) {
            let (x, y) = super::small::eigh_pair(a, b);
            return (
                x.or_else(|e| small_fallback(e, &a, || Backend::Nalgebra.eigh(a))),
                y.or_else(|e| small_fallback(e, &b, || Backend::Nalgebra.eigh(b))),
            );
        }
        (self.eigh(a), self.eigh(b))
    }

    /// Whether this backend runs a `d × d` Cholesky factorisation
    /// ([`EigenSolver::is_positive_definite`]) with LAPACK's `zpotrf` (whose factor
    /// `spectral::lapack::zpotrf_factor` returns).
    #[cfg(feature = "openblas")]
    pub(crate) fn cholesky_by_lapack(self, d: usize) -> bool {
        self.resolve(Op::Cholesky, d) == Backend::Lapack
    }

    /// The concrete backend that runs a call of kind `op` on a `d × d` matrix ([`Backend::Auto`]'s
    /// policy; every other backend is itself).
    fn resolve(self, op: Op, d: usize) -> Backend {
        if self != Backend::Auto {
            return self;
        }
        let (lapack, faer) = (cfg!(feature = "openblas"), cfg!(feature = "faer"));
        match op {
            Op::Vectors | Op::Values | Op::Cholesky if d >= AUTO_CUDA_FROM && gpu_present() => {
                Backend::Cuda
            }
            Op::Vectors if d < AUTO_NALGEBRA_BELOW => Backend::Nalgebra,
            Op::Values if d < AUTO_NALGEBRA_VALUES_BELOW => Backend::Nalgebra,
            Op::Cholesky if d < AUTO_NALGEBRA_CHOLESKY_BELOW => Backend::Nalgebra,
            Op::Singular if d < AUTO_NALGEBRA_SVD_BELOW => Backend::Nalgebra,
            Op::Vectors if faer && d >= AUTO_FAER_FROM => Backend::Faer,
            _ if lapack => Backend::Lapack,
            _ if faer => Backend::Faer,
            _ => Backend::Nalgebra,
        }
    }
}

#[cfg(not(feature = "faer"))]
fn faer_missing<T>() -> Result<T> {
    Err(Error::Eigensolver {
        backend: "faer",
        reason: "qrenyi was built without the `faer` feature; use another backend".into(),
    })
}

/// Whether the `cuda` feature is compiled in and a CUDA device is usable (checked once).
pub(crate) fn gpu_present() -> bool {
    #[cfg(feature = "cuda")]
    {
        super::cuda::available()
    }
    #[cfg(not(feature = "cuda"))]
    {
        false
    }
}

#[cfg(not(feature = "cuda"))]
fn cuda_missing<T>() -> Result<T> {
    Err(Error::GpuUnavailable {
        reason: "qrenyi was built without the `cuda` feature (cargo build --features cuda)".into(),
    })
}

#[cfg(not(feature = "openblas"))]
fn lapack_missing<T>() -> Result<T> {
    Err(Error::Eigensolver {
        backend: "lapack",
        reason: "qrenyi was built without the `openblas` feature; use Backend::Nalgebra".into(),
    })
}

/// Run `$method($args)` on the concrete backend [`Backend::resolve`] picks for `$op` at
/// dimension `$d`.
macro_rules! dispatch {
    ($self:ident, $op:expr, $d:expr, $method:ident($($arg:expr),*)) => {
        match $self.resolve($op, $d) {
            #[cfg(feature = "openblas")]
            Backend::Lapack => super::lapack::Lapack { mrrr: false }.$method($($arg),*),
            #[cfg(feature = "openblas")]
            Backend::LapackMrrr => super::lapack::Lapack { mrrr: true }.$method($($arg),*),
            #[cfg(not(feature = "openblas"))]
            Backend::Lapack | Backend::LapackMrrr => lapack_missing(),
            #[cfg(feature = "faer")]
            Backend::Faer => super::faer_backend::Faer.$method($($arg),*),
            #[cfg(not(feature = "faer"))]
            Backend::Faer => faer_missing(),
            #[cfg(feature = "cuda")]
            Backend::Cuda => super::cuda::Cuda.$method($($arg),*),
            #[cfg(not(feature = "cuda"))]
            Backend::Cuda => cuda_missing(),
            // resolve never returns Auto; nalgebra is its portable answer anyway
            Backend::Nalgebra | Backend::Auto => {
                super::nalgebra_backend::Nalgebra.$method($($arg),*)
            }
        }
    };
}

impl EigenSolver for Backend {
    fn name(&self) -> &'static str {
        match self {
            Backend::Lapack => "lapack-zheevd",
            Backend::LapackMrrr => "lapack-zheevr",
            Backend::Nalgebra => "nalgebra",
            Backend::Auto => "auto",
            Backend::Faer => "faer",
            Backend::Cuda => "cuda",
        }
    }
    fn eigh(&self, a: ArrayView2<Complex64>) -> Result<(Array1<f64>, Array2<Complex64>)> {
        check_square(&a)?;
        if self.small_solver(a.nrows(), true) {
            // the fixed-size QL's iteration cap (never met in the tests): nalgebra's solver,
            // which iterates without one, as before the fixed-size route
            return super::small::eigh(a)
                .or_else(|e| small_fallback(e, &a, || Backend::Nalgebra.eigh(a)));
        }
        dispatch!(self, Op::Vectors, a.nrows(), eigh(a))
    }
    fn eigvalsh(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        check_square(&a)?;
        if self.small_solver(a.nrows(), false) {
            return super::small::eigvalsh(a)
                .or_else(|e| small_fallback(e, &a, || Backend::Nalgebra.eigvalsh(a)));
        }
        dispatch!(self, Op::Values, a.nrows(), eigvalsh(a))
    }
    fn eigh_real(&self, a: ArrayView2<f64>) -> Result<(Array1<f64>, Array2<f64>)> {
        check_square(&a)?;
        dispatch!(self, Op::Other, a.nrows(), eigh_real(a))
    }
    fn eigvalsh_real(&self, a: ArrayView2<f64>) -> Result<Array1<f64>> {
        check_square(&a)?;
        dispatch!(self, Op::Other, a.nrows(), eigvalsh_real(a))
    }
    fn singular_values(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        let d = a.nrows().max(a.ncols());
        let small = *self == Backend::Auto && self.resolve(Op::Singular, d) == Backend::Nalgebra;
        match dispatch!(self, Op::Singular, d, singular_values(a)) {
            // nalgebra's iteration cap reached: the general route (LAPACK where built)
            Err(_) if small => dispatch!(self, Op::Other, d, singular_values(a)),
            r => r,
        }
    }
    fn is_positive_definite(&self, a: ArrayView2<Complex64>, shift: f64) -> Result<bool> {
        check_square(&a)?;
        let d = a.nrows();
        if *self == Backend::Auto && d > 0 && self.resolve(Op::Cholesky, d) == Backend::Nalgebra {
            // nalgebra's decision with nalgebra's operations on a stack array (no heap matrix):
            // `small::cholesky_decision`, the same answer bit for bit (test
            // `auto_cholesky_is_nalgebras`); `None` (it cannot vouch) asks nalgebra itself
            use super::small::{cholesky_decision, from_view, with_small_dim};
            let small = with_small_dim!(d, N => cholesky_decision::<N>(&from_view::<N>(&a), shift), _ => None);
            if let Some(decision) = small {
                return Ok(decision);
            }
        }
        dispatch!(
            self,
            Op::Cholesky,
            a.nrows(),
            is_positive_definite(a, shift)
        )
    }
}

fn check_square<T>(a: &ArrayView2<T>) -> Result<()> {
    let (r, c) = a.dim();
    if r != c {
        return Err(Error::NotSquare { rows: r, cols: c });
    }
    Ok(())
}

/// `Backend::Auto`'s answer when its fixed-size solver fails on `a`: for a finite `a` (the QL
/// iteration cap, never met in the tests) `retry` — nalgebra's solver, which has no iteration cap,
/// as before the fixed-size route; a non-finite entry keeps the solver's error.
fn small_fallback<T>(
    e: Error,
    a: &ArrayView2<Complex64>,
    retry: impl FnOnce() -> Result<T>,
) -> Result<T> {
    if a.iter().all(|z| z.re.is_finite() && z.im.is_finite()) {
        retry()
    } else {
        Err(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// `Backend::Auto`'s PSD check below [`AUTO_NALGEBRA_CHOLESKY_BELOW`] (the fixed-size
    /// `small::cholesky_decision`) decides exactly as [`Backend::Nalgebra`]: random, rank-deficient
    /// and indefinite Hermitian matrices, shifts at and around `−λ_min` and the validation's own.
    #[test]
    fn auto_cholesky_is_nalgebras() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(18);
        let (mut yes, mut no) = (0, 0);
        for d in 1..AUTO_NALGEBRA_CHOLESKY_BELOW {
            for trial in 0..300 {
                let g = Array2::from_shape_fn((d, d), |_| {
                    Complex64::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5)
                });
                let rank = match trial % 3 {
                    0 => d,
                    1 => (d - 1).max(1),
                    _ => d / 2,
                };
                let sign = if trial % 5 == 4 { -1.0 } else { 1.0 };
                let h = Array2::from_shape_fn((d, d), |(i, j)| {
                    (0..rank)
                        .map(|k| g[[i, k]] * g[[j, k]].conj() * if k == 0 { sign } else { 1.0 })
                        .sum::<Complex64>()
                });
                let lmin = Backend::Nalgebra.eigvalsh(h.view()).unwrap()[0];
                let ulp = 16.0 * d as f64 * f64::EPSILON;
                for shift in [
                    -lmin,
                    -lmin * (1.0 + ulp * (rng.random::<f64>() - 0.5) * 4.0),
                    -lmin - ulp * (rng.random::<f64>() - 0.5),
                    ulp,
                    1e-10,
                    0.0,
                ] {
                    let want = Backend::Nalgebra
                        .is_positive_definite(h.view(), shift)
                        .unwrap();
                    let got = Backend::Auto.is_positive_definite(h.view(), shift).unwrap();
                    assert_eq!(got, want, "d={d} trial={trial} shift={shift:e}");
                    if want {
                        yes += 1
                    } else {
                        no += 1
                    }
                }
            }
        }
        assert!(yes > 1000 && no > 1000, "{yes} definite, {no} not");
    }

    /// `Backend::Auto`'s singular values below [`AUTO_NALGEBRA_SVD_BELOW`] are nalgebra's, above
    /// LAPACK's (where built); square and rectangular, within `O(ε‖B‖)` of each other.
    #[test]
    fn auto_singular_values_route() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(19);
        for (r, c) in [(2, 2), (4, 4), (4, 3), (3, 5), (15, 15), (16, 16), (20, 7)] {
            let b = Array2::from_shape_fn((r, c), |_| {
                Complex64::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5)
            });
            let auto = Backend::Auto.singular_values(b.view()).unwrap();
            let small = r.max(c) < AUTO_NALGEBRA_SVD_BELOW;
            if small || !cfg!(feature = "openblas") {
                assert_eq!(auto, Backend::Nalgebra.singular_values(b.view()).unwrap());
            }
            #[cfg(feature = "openblas")]
            {
                let lapack = Backend::Lapack.singular_values(b.view()).unwrap();
                if !small {
                    assert_eq!(auto, lapack);
                }
                let top = lapack[0];
                for (x, y) in auto.iter().zip(&lapack) {
                    assert!((x - y).abs() <= 16.0 * r.max(c) as f64 * f64::EPSILON * top);
                }
            }
        }
    }
}
