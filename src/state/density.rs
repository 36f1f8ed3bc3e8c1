//! The [`DensityMatrix`] type: validated once, decomposed lazily.

use super::operators::{check_isometry, dagger, kron};
use super::validation::symmetrize_checked;
use super::{Channel, Tolerance};
use crate::error::{Error, Result};
use crate::spectral::{Backend, Eigen, EigenSolver};
use nalgebra::DMatrix;
use ndarray::{Array1, Array2};
use num_complex::Complex64;
use std::sync::{Arc, OnceLock};

/// A density matrix: Hermitian, positive semidefinite, unit trace, with its eigendecomposition
/// `ρ = Σ λ_i |v_i⟩⟨v_i|` computed on first use and cached.
///
/// Cloning is cheap: the matrix and the (possibly not yet computed) decomposition are shared
/// through an `Arc`, so a decomposition computed through one clone serves all of them.
/// `Send + Sync`: the cache is a [`OnceLock`].
#[derive(Clone, Debug)]
pub struct DensityMatrix {
    inner: Arc<Stored>,
    backend: Backend,
}

/// The shared part of a [`DensityMatrix`].
#[derive(Debug)]
struct Stored {
    mat: Array2<Complex64>,
    eigen: OnceLock<Eigen>,
    /// [`DensityMatrix::is_psd_to_rounding`], when known (set by validation or on first use).
    psd_to_rounding: OnceLock<bool>,
    /// [`DensityMatrix::rounding_factor`], when the validation kept it (only with `openblas`).
    #[cfg_attr(not(feature = "openblas"), allow(dead_code))]
    rounding_factor: OnceLock<(Vec<Complex64>, f64)>,
}

impl DensityMatrix {
    /// Validate `a` with the default tolerance and backend. Cost: one Cholesky factorisation
    /// (the decomposition is computed later, when a quantity needs it).
    ///
    /// Errors: [`Error::NotSquare`], [`Error::Empty`], [`Error::NonFinite`], [`Error::NotHermitian`],
    /// [`Error::NotPositiveSemidefinite`] (smallest eigenvalue below `−tol`), [`Error::TraceNotOne`].
    pub fn new(a: Array2<Complex64>) -> Result<Self> {
        Self::with_options(a, Tolerance::default(), Backend::default())
    }

    /// Validate with an explicit tolerance and eigensolver backend.
    ///
    /// PSD check (docs/conventions.md, "Validation tolerance"): accept when the Cholesky
    /// factorisation of `H + s·I` succeeds for `s = 16 d ε Tr H` (then also
    /// [`DensityMatrix::is_psd_to_rounding`]) or else for `s = t` (`λ_min(H) ≥ −s` up to its
    /// `O(d·ε·‖H‖)` backward error); otherwise compute the eigenvalues of `H` and reject when
    /// `λ_min < −t`. A PSD input costs one factorisation.
    pub fn with_options(
        mut a: Array2<Complex64>,
        tol: Tolerance,
        backend: Backend,
    ) -> Result<Self> {
        let t = hermitian_unit_trace(&mut a, tol)?;
        Self::psd_by_cholesky(a, t, backend)
    }

    /// The PSD step of [`DensityMatrix::with_options`] on a matrix `h` that passed
    /// [`hermitian_unit_trace`] with tolerance `t`.
    pub(crate) fn psd_by_cholesky(h: Array2<Complex64>, t: f64, backend: Backend) -> Result<Self> {
        let near = psd_check(&h, t, backend)?;
        let state = Self::from_validated(h, backend);
        if near {
            let _ = state.inner.psd_to_rounding.set(true);
        }
        Ok(state)
    }

    /// The PSD step of [`DensityMatrix::psd_by_cholesky`] (the same decisions) that keeps the
    /// factor: when `backend` factors with LAPACK and the rounding-level factorisation succeeds,
    /// its buffer and shift are kept ([`DensityMatrix::rounding_factor`], `d²` complex numbers
    /// for the state's lifetime). For the from-matrices route of a pair that uses ρ's matrix
    /// (the sandwiched orders α > 1, docs/divergences.md "factor_congruence").
    pub(crate) fn psd_by_cholesky_keeping_factor(
        h: Array2<Complex64>,
        t: f64,
        backend: Backend,
    ) -> Result<Self> {
        #[cfg(feature = "openblas")]
        {
            let rounding = rounding_shift(&h);
            if rounding < t && backend.cholesky_by_lapack(h.nrows()) {
                return match crate::spectral::lapack::zpotrf_factor(&h.view(), rounding)? {
                    Some(factor) => {
                        let state = Self::from_validated(h, backend);
                        let _ = state.inner.psd_to_rounding.set(true);
                        let _ = state.inner.rounding_factor.set((factor, rounding));
                        Ok(state)
                    }
                    None => {
                        if !backend.is_positive_definite(h.view(), t)? {
                            reject_negative_eigenvalue(&h, t, backend)?;
                        }
                        Ok(Self::from_validated(h, backend))
                    }
                };
            }
        }
        Self::psd_by_cholesky(h, t, backend)
    }

    /// The Cholesky factor kept by validation, if any: `(buf, τ)` with `buf` the column-major
    /// `d × d` output of `zpotrf('L')` on `H̄ + τI` (lower triangle `L₁`, `H̄ + τI = L₁L₁†`) and
    /// `τ` the rounding-level shift of [`DensityMatrix::is_psd_to_rounding`].
    #[cfg_attr(not(feature = "openblas"), allow(dead_code))]
    pub(crate) fn rounding_factor(&self) -> Option<(&[Complex64], f64)> {
        self.inner
            .rounding_factor
            .get()
            .map(|(f, tau)| (f.as_slice(), *tau))
    }

    /// Whether the stored `H` is positive semidefinite up to rounding: the Cholesky factorisation
    /// of `H + τ·I` succeeds, `τ = 16 d ε Tr H` (the zero threshold at `λ_max ≤ Tr H`), so every
    /// negative eigenvalue is `≥ −τ − O(d ε ‖H‖)` — a rounding-level change of `H`, which the
    /// documented error bound covers. Validation accepts eigenvalues down to `−tol` (far larger);
    /// routes that use `H` itself rather than its decomposition with the zero-threshold convention
    /// (the sandwiched direct route) require this. Known after validation when that Cholesky
    /// succeeded there, else one Cholesky factorisation on first use (cached; `false` on a
    /// solver error).
    pub fn is_psd_to_rounding(&self) -> bool {
        *self.inner.psd_to_rounding.get_or_init(|| {
            self.backend
                .is_positive_definite(self.inner.mat.view(), rounding_shift(&self.inner.mat))
                .unwrap_or(false)
        })
    }

    /// Validate like [`DensityMatrix::with_options`], but take the PSD check from the
    /// eigendecomposition, computed now and cached, instead of a Cholesky factorisation: for
    /// callers that need the decomposition anyway (every divergence except the hockey-stick, the
    /// trace distance and the sandwiched orders α > 1 of [`crate::divergence::Pair`], which do not
    /// decompose ρ), this saves the factorisation.
    ///
    /// The decision is the documented one (docs/conventions.md, "Validation tolerance"): reject
    /// when `λ_min(H) < −t` with [`Error::NotPositiveSemidefinite`], the same test the Cholesky
    /// route falls back to; the two routes can differ only for `λ_min` within `O(d·ε·‖H‖)` of
    /// `−t`. Errors as [`DensityMatrix::with_options`], plus [`Error::Eigensolver`].
    pub fn with_options_decomposed(
        mut a: Array2<Complex64>,
        tol: Tolerance,
        backend: Backend,
    ) -> Result<Self> {
        let t = hermitian_unit_trace(&mut a, tol)?;
        Self::psd_from_eigen(a, t, backend)
    }

    /// The PSD step of [`DensityMatrix::with_options_decomposed`] on a matrix `h` that passed
    /// [`hermitian_unit_trace`] with tolerance `t`: decompose, reject `λ_min < −t`, keep the
    /// decomposition.
    pub(crate) fn psd_from_eigen(h: Array2<Complex64>, t: f64, backend: Backend) -> Result<Self> {
        let e = Eigen::compute(h.view(), backend)?;
        Self::psd_with_eigen(h, t, backend, e)
    }

    /// The rest of [`Self::psd_from_eigen`] once `e = Eigen::compute(h, backend)` is known: reject
    /// `λ_min < −t`, keep the decomposition.
    pub(crate) fn psd_with_eigen(
        h: Array2<Complex64>,
        t: f64,
        backend: Backend,
        e: Eigen,
    ) -> Result<Self> {
        negative_eigenvalue_check(e.values().iter().copied().fold(f64::INFINITY, f64::min), t)?;
        Ok(Self::from_validated_with_eigen(h, backend, e))
    }

    /// Decompose two states that are about to be decomposed anyway (a pair's quantity that needs
    /// both decompositions) in one call where that is faster: both undecomposed, on one backend
    /// that solves their dimension with the fixed-size QL solver (`Backend::Auto`, `4 ≤ d ≤ 16`;
    /// [`Eigen::compute_pair`], each decomposition `eigen()`'s bit for bit); from
    /// [`CONCURRENT_FROM`](crate::divergence::from_matrices::CONCURRENT_FROM) to below
    /// [`AUTO_FAER_FROM`](crate::spectral::AUTO_FAER_FROM), when two cores are free for it, the
    /// two `eigen()` calls side by side with one BLAS thread each (the same solver).
    /// Elsewhere, and for a solve that fails (the failure is not cached; `eigen()` reports it),
    /// nothing.
    pub(crate) fn decompose_pair(a: &DensityMatrix, b: &DensityMatrix) {
        let d = a.dim();
        if a.backend != b.backend || b.dim() != d || a.is_decomposed() || b.is_decomposed() {
            return;
        }
        if !a.backend.pairs_small(d) {
            // mid sizes: the two LAPACK decompositions side by side, one BLAS thread each, as
            // `states_from_matrices` runs them (from faer's range on, each keeps the cores)
            if d < crate::spectral::AUTO_FAER_FROM
                && crate::divergence::from_matrices::side_by_side(d, a.backend)
            {
                let b = b.clone();
                crate::spectral::with_single_blas_thread(|| {
                    crate::spectral::beside(
                        || {
                            let _ = a.eigen();
                        },
                        move || {
                            let _ = b.eigen();
                        },
                    )
                });
            }
            return;
        }
        let (x, y) = Eigen::compute_pair(a.inner.mat.view(), b.inner.mat.view(), a.backend);
        for (state, e) in [(a, x), (b, y)] {
            if let Ok(e) = e {
                // another thread may have won the race with an identical decomposition
                let _ = state.inner.eigen.set(e);
            }
        }
    }

    /// A matrix that passed every check of [`DensityMatrix::with_options`] (made exactly Hermitian).
    pub(crate) fn from_validated(h: Array2<Complex64>, backend: Backend) -> Self {
        DensityMatrix {
            inner: Arc::new(Stored {
                mat: h,
                eigen: OnceLock::new(),
                psd_to_rounding: OnceLock::new(),
                rounding_factor: OnceLock::new(),
            }),
            backend,
        }
    }

    /// A validated matrix (as [`Self::from_validated`]) whose decomposition `eigen` (computed by
    /// `backend`) is already known: cached from the start.
    pub(crate) fn from_validated_with_eigen(
        h: Array2<Complex64>,
        backend: Backend,
        eigen: Eigen,
    ) -> Self {
        let state = Self::from_validated(h, backend);
        // a fresh state: the cache is empty, so `set` cannot fail
        let _ = state.inner.eigen.set(eigen);
        state
    }

    /// From a real matrix (e.g. a float64 `.npy` file).
    pub fn from_real(a: Array2<f64>) -> Result<Self> {
        Self::new(a.mapv(|x| Complex64::new(x, 0.0)))
    }

    /// From a nalgebra matrix.
    pub fn from_nalgebra(a: &DMatrix<Complex64>) -> Result<Self> {
        Self::new(Array2::from_shape_fn((a.nrows(), a.ncols()), |(i, j)| {
            a[(i, j)]
        }))
    }

    /// The pure state `|ψ⟩⟨ψ|`; `ψ` must be finite with `‖ψ‖² = 1` within tolerance.
    pub fn pure(psi: &[Complex64]) -> Result<Self> {
        if psi.is_empty() {
            return Err(Error::Empty("state vector".into()));
        }
        let psi = Array1::from(psi.to_vec());
        let n = psi.len();
        Self::new(Array2::from_shape_fn((n, n), |(i, j)| {
            psi[i] * psi[j].conj()
        }))
    }

    /// The classical (diagonal) state `diag(p)`; `p` must be a probability vector.
    pub fn diagonal(p: &[f64]) -> Result<Self> {
        super::validation::check_probability(p)?;
        Self::new(Array2::from_diag(&Array1::from_iter(
            p.iter().map(|&x| Complex64::new(x, 0.0)),
        )))
    }

    /// The maximally mixed state `I/d`.
    pub fn maximally_mixed(d: usize) -> Result<Self> {
        if d == 0 {
            return Err(Error::Empty("dimension 0".into()));
        }
        Self::diagonal(&vec![1.0 / d as f64; d])
    }

    /// The mixture `Σ_k w_k ρ_k` (`w` a probability vector, states of equal dimension).
    pub fn mixture(weights: &[f64], states: &[DensityMatrix]) -> Result<Self> {
        if weights.len() != states.len() {
            return Err(Error::DimensionMismatch {
                what: "mixture weights vs states".into(),
                left: weights.len(),
                right: states.len(),
            });
        }
        super::validation::check_probability(weights)?;
        let d = states
            .first()
            .ok_or_else(|| Error::Empty("mixture of no states".into()))?
            .dim();
        let mut acc = Array2::<Complex64>::zeros((d, d));
        for (w, s) in weights.iter().zip(states) {
            if s.dim() != d {
                return Err(Error::DimensionMismatch {
                    what: "mixture components".into(),
                    left: d,
                    right: s.dim(),
                });
            }
            acc.scaled_add(Complex64::new(*w, 0.0), s.matrix());
        }
        Self::new(acc)
    }

    /// The same state with another backend (re-validated with the default tolerance; decomposed
    /// with `backend` when first needed).
    pub fn with_backend(&self, backend: Backend) -> Result<Self> {
        Self::with_options(self.inner.mat.clone(), Tolerance::default(), backend)
    }

    /// Dimension `d`.
    pub fn dim(&self) -> usize {
        self.inner.mat.nrows()
    }
    /// The (exactly Hermitian) matrix.
    pub fn matrix(&self) -> &Array2<Complex64> {
        &self.inner.mat
    }
    /// The eigendecomposition, computed with [`DensityMatrix::backend`] on the first call and
    /// cached (shared by clones). Errors: [`Error::Eigensolver`] when the solver fails (the failure
    /// is not cached; a later call tries again).
    pub fn eigen(&self) -> Result<&Eigen> {
        let cache = &self.inner.eigen;
        if let Some(e) = cache.get() {
            return Ok(e);
        }
        let e = Eigen::compute(self.inner.mat.view(), self.backend)?;
        // another thread may have won the race with an identical decomposition: either is fine
        Ok(cache.get_or_init(|| e))
    }
    /// Whether the eigendecomposition has been computed already (no computation).
    pub fn is_decomposed(&self) -> bool {
        self.inner.eigen.get().is_some()
    }
    /// The backend that computes the decomposition (used for every further solve on this state).
    pub fn backend(&self) -> Backend {
        self.backend
    }
    /// The matrix as a nalgebra `DMatrix`.
    pub fn to_nalgebra(&self) -> DMatrix<Complex64> {
        DMatrix::from_fn(self.dim(), self.dim(), |i, j| self.inner.mat[[i, j]])
    }
    /// Rank (eigenvalues above the zero threshold); needs the decomposition.
    pub fn rank(&self) -> Result<usize> {
        Ok(self.eigen()?.rank())
    }
    /// Purity `Tr ρ² = Σ_ij |ρ_ij|²` (Frobenius norm squared; no decomposition).
    pub fn purity(&self) -> f64 {
        self.inner.mat.iter().map(|z| z.norm_sqr()).sum()
    }
    /// Von Neumann entropy `−Tr ρ ln ρ` (nats); needs the decomposition.
    pub fn entropy(&self) -> Result<f64> {
        let e = self.eigen()?;
        Ok(-(0..self.dim())
            .map(|i| e.clamped(i))
            .filter(|&l| l > 0.0)
            .map(|l| l * l.ln())
            .sum::<f64>())
    }

    /// Tensor product `ρ ⊗ σ` (Kronecker product, `ρ`'s index major).
    pub fn tensor(&self, other: &DensityMatrix) -> Result<DensityMatrix> {
        Self::new(kron(&self.matrix().view(), &other.matrix().view()))
    }

    /// Partial trace: `dims` are the subsystem dimensions (product = `d`, first subsystem most
    /// significant, as in [`DensityMatrix::tensor`]); the subsystems listed in `traced` are traced out.
    pub fn partial_trace(&self, dims: &[usize], traced: &[usize]) -> Result<DensityMatrix> {
        let total: usize = dims.iter().product();
        if total != self.dim() || dims.is_empty() {
            return Err(Error::DimensionMismatch {
                what: "product of subsystem dimensions vs matrix dimension".into(),
                left: total,
                right: self.dim(),
            });
        }
        if let Some(&k) = traced.iter().find(|&&k| k >= dims.len()) {
            return Err(Error::invalid(
                "traced subsystem",
                k as f64,
                format!("only {} subsystems", dims.len()),
            ));
        }
        let kept: Vec<usize> = (0..dims.len()).filter(|k| !traced.contains(k)).collect();
        let gone: Vec<usize> = (0..dims.len()).filter(|k| traced.contains(k)).collect();
        let dk: usize = kept.iter().map(|&k| dims[k]).product();
        let dt: usize = gone.iter().map(|&k| dims[k]).product();
        // flat index of the full system from (kept multi-index a, traced multi-index t)
        let flat = |a: usize, t: usize| -> usize {
            let mut digits = vec![0usize; dims.len()];
            let (mut a, mut t) = (a, t);
            for &k in kept.iter().rev() {
                digits[k] = a % dims[k];
                a /= dims[k];
            }
            for &k in gone.iter().rev() {
                digits[k] = t % dims[k];
                t /= dims[k];
            }
            digits.iter().zip(dims).fold(0, |acc, (&x, &n)| acc * n + x)
        };
        let out = Array2::from_shape_fn((dk, dk), |(a, b)| {
            (0..dt)
                .map(|t| self.inner.mat[[flat(a, t), flat(b, t)]])
                .sum()
        });
        Self::new(out)
    }

    /// Unitary conjugation `U ρ U†`; `U` must be unitary within tolerance.
    pub fn conjugate(&self, u: &Array2<Complex64>) -> Result<DensityMatrix> {
        check_isometry(&u.view(), self.dim())?;
        Self::new(u.dot(self.matrix()).dot(&dagger(&u.view())))
    }

    /// Apply a channel, `Φ(ρ) = Σ_k K_k ρ K_k†`.
    pub fn apply(&self, channel: &Channel) -> Result<DensityMatrix> {
        if channel.input_dim() != self.dim() {
            return Err(Error::DimensionMismatch {
                what: "channel input vs state".into(),
                left: channel.input_dim(),
                right: self.dim(),
            });
        }
        Self::new(channel.apply_matrix(self.matrix())?)
    }
}

/// The host part of validation: square, finite, Hermitian within `tol` (then made exactly
/// Hermitian) and unit trace within the returned tolerance `t` (the PSD check is left to the
/// caller, a Cholesky factorisation or eigenvalues computed anyway).
pub(crate) fn hermitian_unit_trace(a: &mut Array2<Complex64>, tol: Tolerance) -> Result<f64> {
    tol.check()?;
    let (d, t) = symmetrize_checked(a, tol)?;
    let trace: f64 = (0..d).map(|i| a[[i, i]].re).sum();
    if (trace - 1.0).abs() > t {
        return Err(Error::TraceNotOne {
            trace,
            tolerance: t,
        });
    }
    Ok(t)
}

/// The PSD decision of [`DensityMatrix::with_options`] on a matrix `h` that passed
/// [`hermitian_unit_trace`] with tolerance `t`: `Ok(true)` when it is PSD to rounding (the
/// Cholesky factorisation at the rounding-level shift succeeded), `Ok(false)` when accepted
/// otherwise, [`Error::NotPositiveSemidefinite`] when `λ_min < −t`.
pub(crate) fn psd_check(h: &Array2<Complex64>, t: f64, backend: Backend) -> Result<bool> {
    // first at the rounding-level shift (success also accepts: it is below t), which records
    // `is_psd_to_rounding` for free; then at t; then the eigenvalues
    let rounding = rounding_shift(h);
    let near = rounding < t && backend.is_positive_definite(h.view(), rounding)?;
    if !near && !backend.is_positive_definite(h.view(), t)? {
        reject_negative_eigenvalue(h, t, backend)?;
    }
    Ok(near)
}

/// The shift of [`DensityMatrix::is_psd_to_rounding`]: `τ(d, Tr H) = 16 d ε Tr H`.
fn rounding_shift(h: &Array2<Complex64>) -> f64 {
    let trace: f64 = h.diag().iter().map(|z| z.re).sum();
    crate::spectral::zero_threshold(h.nrows(), trace)
}

/// After a failed shifted Cholesky factorisation: compute the eigenvalues of `h` and reject when
/// `λ_min < −t` (otherwise the factorisation failed on rounding alone and `h` is accepted).
pub(crate) fn reject_negative_eigenvalue(
    h: &Array2<Complex64>,
    t: f64,
    backend: Backend,
) -> Result<()> {
    let min = backend
        .eigvalsh(h.view())?
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    negative_eigenvalue_check(min, t)
}

/// Reject `λ_min < −t` ([`Error::NotPositiveSemidefinite`]).
pub(crate) fn negative_eigenvalue_check(min: f64, t: f64) -> Result<()> {
    if min < -t {
        return Err(Error::NotPositiveSemidefinite {
            min_eigenvalue: min,
            tolerance: t,
        });
    }
    Ok(())
}
