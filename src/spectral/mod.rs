//! The spectral layer: one eigendecomposition per operator, and functional calculus on it.
//!
//! An [`Eigen`] holds `A = V diag(λ) V†` (ascending λ, orthonormal columns of `V`) together with the
//! crate's single **zero threshold** ([`zero_threshold`]): an eigenvalue `λ ≤ τ` is treated as an
//! exact zero. Everything that depends on the support of an operator — negative powers, logarithms,
//! support projectors, ranks, "+∞ when supp ρ ⊄ supp σ" — uses this one threshold (see
//! `docs/conventions.md`).
//!
//! Functional calculus `f(A) = V diag(f(λ)) V†` costs one scaling of the columns of `V` and one
//! matrix product (`O(d³)`, one zgemm). Negative powers act on the support (the Moore–Penrose
//! convention): `A^p = Σ_{λ_i > τ} λ_i^p |v_i⟩⟨v_i|` for `p ≤ 0`.

mod backend;
mod beside;
#[cfg(feature = "cuda")]
pub mod cuda;
#[cfg(feature = "faer")]
mod faer_backend;
mod graded;
#[cfg(feature = "openblas")]
pub(crate) mod lapack;
mod nalgebra_backend;
mod products;
pub(crate) mod root_free;
pub mod small;
pub mod small_lanes;

#[cfg(feature = "cuda")]
pub(crate) use backend::gpu_present;
pub use backend::{
    Backend, EigenSolver, AUTO_CUDA_FROM, AUTO_FAER_FROM, AUTO_NALGEBRA_BELOW,
    AUTO_NALGEBRA_CHOLESKY_BELOW, AUTO_NALGEBRA_SVD_BELOW, AUTO_NALGEBRA_VALUES_BELOW,
};
pub(crate) use beside::beside;
pub use graded::{graded_gram_eigen, graded_psd_eigen, preconditioned_gram_eigen, GradedSpectrum};
pub use products::{adjoint_times, congruence, gram};
#[cfg(feature = "openblas")]
pub(crate) use products::{factor_congruence, lower_triangular_product, Triangular};

use crate::error::Result;
use ndarray::{Array1, Array2, ArrayView2, Axis};
use num_complex::Complex64;

/// Machine epsilon of `f64` (2⁻⁵²).
pub const EPS: f64 = f64::EPSILON;

/// The zero threshold `τ(d, λ_max) = 16 · d · ε · λ_max` used for every support decision.
///
/// Backward-stable eigensolvers return eigenvalues with absolute error `≲ c·d·ε·‖A‖`; a computed
/// eigenvalue below `τ` is indistinguishable from zero, so it is treated as zero. With density
/// matrices (`λ_max ≤ 1`) this is `3.6e-15·d`: eigenvalues of `1e-9` at `d = 8` are well inside
/// the support. A zero (or negative) `λ_max` gives the smallest positive normal number.
pub fn zero_threshold(dim: usize, lambda_max: f64) -> f64 {
    (16.0 * dim.max(1) as f64 * EPS * lambda_max).max(f64::MIN_POSITIVE)
}

/// An eigendecomposition `A = V diag(λ) V†` of a Hermitian positive semidefinite operator, with
/// the zero threshold fixed at construction.
///
/// Eigenvalues are ascending; values in `[−tolerance, τ]` are treated as `0` by all methods
/// (negative ones are rounding noise of a PSD operator, see [`crate::state`]).
#[derive(Clone, Debug)]
pub struct Eigen {
    values: Array1<f64>,
    vectors: Array2<Complex64>,
    threshold: f64,
}

impl Eigen {
    /// Decompose a Hermitian matrix with `backend` (full decomposition, `O(d³)`).
    pub fn compute(a: ArrayView2<Complex64>, backend: Backend) -> Result<Self> {
        let (values, vectors) = backend.eigh(a)?;
        Ok(Self::from_parts(values, vectors))
    }

    /// Decompose two Hermitian matrices with `backend`: each [`Eigen::compute`]'s bit for bit, both
    /// in one call of the fixed-size QL solver's two-lane build where `backend` puts them on it
    /// (`Backend::Auto`, `4 ≤ d ≤ 16`: the two dependency chains overlap).
    pub(crate) fn compute_pair(
        a: ArrayView2<Complex64>,
        b: ArrayView2<Complex64>,
        backend: Backend,
    ) -> (Result<Self>, Result<Self>) {
        let (x, y) = backend.eigh_pair(a, b);
        let wrap = |(values, vectors)| Self::from_parts(values, vectors);
        (x.map(wrap), y.map(wrap))
    }

    /// Wrap eigenvalues (ascending) and eigenvectors (columns) computed elsewhere.
    pub fn from_parts(values: Array1<f64>, vectors: Array2<Complex64>) -> Self {
        let lmax = values.iter().copied().fold(0.0f64, f64::max);
        let threshold = zero_threshold(values.len(), lmax);
        Eigen {
            values,
            vectors,
            threshold,
        }
    }

    /// Dimension `d`.
    pub fn dim(&self) -> usize {
        self.values.len()
    }
    /// Eigenvalues, ascending, as computed (not clamped).
    pub fn values(&self) -> &Array1<f64> {
        &self.values
    }
    /// Eigenvectors as columns of a unitary `V`.
    pub fn vectors(&self) -> &Array2<Complex64> {
        &self.vectors
    }
    /// The zero threshold `τ` of this operator ([`zero_threshold`]).
    pub fn threshold(&self) -> f64 {
        self.threshold
    }
    /// Largest eigenvalue `λ_max` (0 for `d = 0`).
    pub fn max_value(&self) -> f64 {
        self.values.iter().copied().fold(0.0, f64::max)
    }
    /// Eigenvalue `i` with the support convention applied: `λ_i` if `λ_i > τ`, else `0`.
    pub fn clamped(&self, i: usize) -> f64 {
        let v = self.values[i];
        if v > self.threshold {
            v
        } else {
            0.0
        }
    }
    /// Indices `i` with `λ_i > τ` (the support), ascending.
    pub fn support(&self) -> Vec<usize> {
        (0..self.dim())
            .filter(|&i| self.values[i] > self.threshold)
            .collect()
    }
    /// Indices `i` with `λ_i ≤ τ` (the kernel).
    pub fn kernel(&self) -> Vec<usize> {
        (0..self.dim())
            .filter(|&i| self.values[i] <= self.threshold)
            .collect()
    }
    /// Rank: the number of eigenvalues above `τ`.
    pub fn rank(&self) -> usize {
        self.support().len()
    }

    /// `f(A) = Σ_i f(λ_i) |v_i⟩⟨v_i|` over the indices `idx` (one zgemm).
    fn assemble(&self, idx: &[usize], f: impl Fn(f64) -> f64) -> Array2<Complex64> {
        let v = self.vectors.select(Axis(1), idx);
        let mut scaled = v.clone();
        for (mut col, &i) in scaled.axis_iter_mut(Axis(1)).zip(idx) {
            let w = f(self.values[i]);
            col.mapv_inplace(|z| z * w);
        }
        scaled.dot(&v.t().mapv(|z| z.conj()))
    }

    /// `f(A) = Σ_i f(λ̃_i) |v_i⟩⟨v_i|` with `λ̃` the clamped eigenvalues (`f(0)` on the kernel).
    pub fn map(&self, f: impl Fn(f64) -> f64) -> Array2<Complex64> {
        let all: Vec<usize> = (0..self.dim()).collect();
        self.assemble(&all, |l| f(if l > self.threshold { l } else { 0.0 }))
    }

    /// `f` applied on the support only: `Σ_{λ_i > τ} f(λ_i) |v_i⟩⟨v_i|` (zero on the kernel).
    pub fn map_on_support(&self, f: impl Fn(f64) -> f64) -> Array2<Complex64> {
        self.assemble(&self.support(), f)
    }

    /// `A^p`. For `p > 0` the kernel maps to 0; for `p ≤ 0` the power is taken on the support
    /// (pseudo-inverse convention, `A^0` is the support projector).
    pub fn power(&self, p: f64) -> Array2<Complex64> {
        self.map_on_support(|l| l.powf(p))
    }
    /// `A^{1/2}` (kernel and rounding-negative eigenvalues map to 0).
    pub fn sqrt(&self) -> Array2<Complex64> {
        self.map_on_support(f64::sqrt)
    }
    /// `ln A` on the support (`Σ_{λ_i>τ} ln λ_i |v_i⟩⟨v_i|`); the kernel maps to 0.
    pub fn log_on_support(&self) -> Array2<Complex64> {
        self.map_on_support(f64::ln)
    }
    /// The projector onto the support, `Π_A = Σ_{λ_i>τ} |v_i⟩⟨v_i|`.
    pub fn support_projector(&self) -> Array2<Complex64> {
        self.map_on_support(|_| 1.0)
    }
}

/// Which OpenBLAS kernels are loaded (e.g. `"SkylakeX"`), or `None` without the `openblas` feature.
///
/// Debian's OpenBLAS picks its kernels when the library loads, from `OPENBLAS_CORETYPE` if set.
/// The `qrenyi` binary and `cargo run/test/bench` (through `.cargo/config.toml`'s runner) set it
/// from the CPU's features; a program that links the library should do the same (see README).
pub fn blas_core() -> Option<String> {
    #[cfg(feature = "openblas")]
    {
        extern "C" {
            fn openblas_get_corename() -> *const std::os::raw::c_char;
        }
        // SAFETY: OpenBLAS returns a pointer to a static NUL-terminated string.
        let name = unsafe { std::ffi::CStr::from_ptr(openblas_get_corename()) };
        Some(name.to_string_lossy().into_owned())
    }
    #[cfg(not(feature = "openblas"))]
    {
        None
    }
}

/// Set the number of BLAS threads (no-op without the `openblas` feature).
///
/// Thread policy (docs/ARCHITECTURE.md): BLAS threads for one large matrix, one BLAS thread inside
/// rayon-parallel sections over many small problems, never both.
pub fn set_blas_threads(n: usize) {
    #[cfg(feature = "openblas")]
    {
        extern "C" {
            fn openblas_set_num_threads(n: std::os::raw::c_int);
        }
        // SAFETY: plain setter of OpenBLAS's thread count.
        unsafe { openblas_set_num_threads(n.clamp(1, 1024) as std::os::raw::c_int) };
    }
    #[cfg(not(feature = "openblas"))]
    let _ = n;
}

/// Run `f` with OpenBLAS pinned to one thread, restoring the previous count afterwards: the
/// wrapper for a rayon-parallel section (thread policy: never rayon and BLAS threads together).
///
/// The count is process-wide, so overlapping sections (several threads of a host program, e.g.
/// Python threads calling the bindings) share one reference-counted pin: the first section in
/// saves the count and sets one thread, the last one out restores it (also when `f` panics).
/// Without the counting, two overlapping sections could restore in the wrong order and leave BLAS
/// at one thread for good — which changes the summation order of later large products, so later
/// results would differ from a fresh process's in the last bits.
///
/// faer (the `faer` feature) is switched to sequential for the same sections.
pub fn with_single_blas_thread<R>(f: impl FnOnce() -> R) -> R {
    let _pin = SingleBlasPin::enter(true);
    f()
}

/// Run `f` with OpenBLAS pinned to one thread (shared, reference-counted pin as
/// [`with_single_blas_thread`]) but faer's parallelism left as it is: for work whose parallelism
/// is all rayon's — faer's parallel eigensolvers (they split through rayon's pool, so they share
/// the cores with qrenyi's own rayon tasks by work stealing instead of oversubscribing them) and
/// the products that [`adjoint_times`], [`gram`] and [`congruence`] split into rayon tasks
/// (from dimension 128). No OpenBLAS worker thread is woken inside `f`, so none is left
/// spinning beside rayon's (docs/PERFORMANCE.md, "Thread policy").
pub fn with_blas_pinned<R>(f: impl FnOnce() -> R) -> R {
    let _pin = SingleBlasPin::enter(false);
    f()
}

/// The shared pin of [`with_single_blas_thread`] and [`with_blas_pinned`]: open sections with
/// BLAS pinned, the saved BLAS count, open sections with faer sequential, the saved faer
/// parallelism.
#[cfg(feature = "faer")]
type SavedPar = Option<faer::Par>;
#[cfg(not(feature = "faer"))]
type SavedPar = Option<()>;
static SINGLE_BLAS: std::sync::Mutex<(usize, usize, usize, SavedPar)> =
    std::sync::Mutex::new((0, 0, 0, None));

/// One open section; `faer_seq`: it also holds faer sequential.
struct SingleBlasPin {
    faer_seq: bool,
}

impl SingleBlasPin {
    fn enter(faer_seq: bool) -> Self {
        let mut g = SINGLE_BLAS.lock().unwrap_or_else(|p| p.into_inner());
        if g.0 == 0 {
            g.1 = blas_threads();
            set_blas_threads(1);
        }
        g.0 += 1;
        if faer_seq {
            if g.2 == 0 {
                #[cfg(feature = "faer")]
                {
                    g.3 = Some(faer::get_global_parallelism());
                    faer::set_global_parallelism(faer::Par::Seq);
                }
            }
            g.2 += 1;
        }
        SingleBlasPin { faer_seq }
    }
}

impl Drop for SingleBlasPin {
    fn drop(&mut self) {
        let mut g = SINGLE_BLAS.lock().unwrap_or_else(|p| p.into_inner());
        if self.faer_seq {
            g.2 -= 1;
            if g.2 == 0 {
                #[cfg(feature = "faer")]
                if let Some(p) = g.3.take() {
                    faer::set_global_parallelism(p);
                }
            }
        }
        g.0 -= 1;
        if g.0 == 0 {
            set_blas_threads(g.1);
        }
    }
}

/// Number of BLAS threads currently in use (1 without the `openblas` feature).
pub fn blas_threads() -> usize {
    #[cfg(feature = "openblas")]
    {
        extern "C" {
            fn openblas_get_num_threads() -> std::os::raw::c_int;
        }
        // SAFETY: plain getter.
        unsafe { openblas_get_num_threads().max(1) as usize }
    }
    #[cfg(not(feature = "openblas"))]
    {
        1
    }
}

/// Tests that set or read the process-wide thread counts (directly or through a pinning routine)
/// take this lock, so that one test's pin is never read as another's "before".
#[cfg(test)]
pub(crate) fn test_thread_counts_lock() -> std::sync::MutexGuard<'static, ()> {
    static COUNTS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    COUNTS.lock().unwrap_or_else(|e| e.into_inner())
}
