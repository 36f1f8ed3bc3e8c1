//! Quantum states and channels: [`DensityMatrix`], [`Channel`], random ensembles.
//!
//! A [`DensityMatrix`] is validated once, at construction: square, non-empty, finite entries,
//! Hermitian, positive semidefinite and of unit trace, each up to the tolerance
//! [`Tolerance::scaled`] `= base · √d · max(1, max_ij |A_ij|)` (default `base = 1e-10`). The stored
//! matrix is the exactly Hermitian part `(A + A†)/2`.
//!
//! The PSD check is a Cholesky factorisation of `H + t·I` (`t` the scaled tolerance,
//! [`EigenSolver::is_positive_definite`]), about a tenth of the cost of an eigendecomposition;
//! only when it fails are the eigenvalues computed, to reject with the smallest one (or accept a
//! state within `O(d·ε)` of the boundary). The eigendecomposition is computed lazily, on the first
//! [`DensityMatrix::eigen`] call, and cached: every divergence reuses it, clones share it, and a
//! state is decomposed at most once however many quantities are computed from it (a quantity
//! that needs no decomposition, e.g. the hockey-stick divergence, never pays for one).

use crate::error::{Error, Result};
use crate::spectral::{Backend, Eigen, EigenSolver};
use nalgebra::DMatrix;
use ndarray::{s, Array1, Array2, ArrayView2};
use num_complex::Complex64;
use rand::Rng;
use rand_distr::StandardNormal;
use std::sync::{Arc, OnceLock};

/// Validation tolerance: an input passes a check when its defect is at most
/// `base · √d · max(1, max_ij |A_ij|)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Base tolerance for a 1×1 input of unit size (default `1e-10`).
    pub base: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance { base: 1e-10 }
    }
}

/// Largest accepted [`Tolerance::base`]: beyond it the scaled tolerance would let through
/// matrices that are visibly not states (trace or smallest eigenvalue off by more than
/// `1e-6·√d·max(1, max|A_ij|)`), and a zero matrix would pass the trace check.
pub const MAX_TOLERANCE: f64 = 1e-6;

impl Tolerance {
    /// Check `0 < base ≤` [`MAX_TOLERANCE`] (every validation calls it).
    pub fn check(&self) -> Result<()> {
        if self.base > 0.0 && self.base <= MAX_TOLERANCE {
            Ok(())
        } else {
            Err(Error::invalid(
                "tolerance",
                self.base,
                format!(
                    "must lie in (0, {MAX_TOLERANCE:e}]: it is the allowed trace defect and \
                     eigenvalue negativity per unit of √d·max|A_ij|, and a larger one accepts \
                     matrices that are not states"
                ),
            ))
        }
    }

    /// `base · √d · max(1, norm)`.
    pub fn scaled(&self, dim: usize, norm: f64) -> f64 {
        self.base * (dim.max(1) as f64).sqrt() * norm.max(1.0)
    }
}

/// Check that a matrix is square, non-empty and has finite entries; return its dimension.
pub(crate) fn check_square_finite(a: &ArrayView2<Complex64>) -> Result<usize> {
    let (r, c) = a.dim();
    if r != c {
        return Err(Error::NotSquare { rows: r, cols: c });
    }
    if r == 0 {
        return Err(Error::Empty("0×0 matrix".into()));
    }
    if let Some(((i, j), z)) = a
        .indexed_iter()
        .find(|(_, z)| !z.re.is_finite() || !z.im.is_finite())
    {
        return Err(Error::NonFinite {
            value: format!("{z}"),
            position: format!("({i}, {j})"),
        });
    }
    Ok(r)
}

/// Validate and symmetrise in place: squareness, non-emptiness and finiteness (errors as
/// [`check_square_finite`]), then `t = tol.scaled(d, max_ij |A_ij|)` and `max |A − A†| ≤ t`
/// ([`Error::NotHermitian`]). On success `a` holds the exactly Hermitian `(A + A†)/2` (each
/// upper entry the conjugate of the lower one) and `(d, t)` is returned. One read pass over the
/// pairs `(i, j), i ≥ j` computes all three statistics (from squared moduli; a second pass with
/// `hypot` only when an entry is beyond `~1e150`), one more writes the average.
fn symmetrize_checked(a: &mut Array2<Complex64>, tol: Tolerance) -> Result<(usize, f64)> {
    let (r, c) = a.dim();
    if r != c || r == 0 {
        // returns the NotSquare / Empty error (its Ok arm cannot be reached here)
        return check_square_finite(&a.view()).map(|d| (d, f64::NAN));
    }
    // squared moduli (no hypot per entry); exact enough unless an entry exceeds ~1e150
    let stats = |modulus: fn(Complex64) -> f64, a: &Array2<Complex64>| {
        let (mut norm, mut dev, mut finite) = (0.0f64, 0.0f64, true);
        lower_triangle_tiled(r, |i, j| {
            let (z, w) = (a[[i, j]], a[[j, i]]);
            finite &= z.re.is_finite() && z.im.is_finite() && w.re.is_finite() && w.im.is_finite();
            norm = norm.max(modulus(z)).max(modulus(w));
            dev = dev.max(modulus(z - w.conj()));
        });
        (norm, dev, finite)
    };
    let (norm2, dev2, finite) = stats(|z| z.norm_sqr(), a);
    if !finite {
        // the full scan names the first non-finite entry in row-major order (always an Err here)
        return check_square_finite(&a.view()).map(|d| (d, f64::NAN));
    }
    let (norm, dev) = if norm2 < 1e300 {
        (norm2.sqrt(), dev2.sqrt())
    } else {
        // |A_ij|² may overflow: recompute with hypot
        let (norm, dev, _) = stats(|z| z.norm(), a);
        (norm, dev)
    };
    let t = tol.scaled(r, norm);
    if dev > t {
        return Err(Error::NotHermitian {
            deviation: dev,
            tolerance: t,
        });
    }
    lower_triangle_tiled(r, |i, j| {
        let m = (a[[i, j]] + a[[j, i]].conj()) * 0.5;
        // conjugate first: on the diagonal the entry keeps m (imaginary part +0.0)
        a[[j, i]] = m.conj();
        a[[i, j]] = m;
    });
    Ok((r, t))
}

/// Visit the lower triangle `(i, j)`, `j ≤ i`, of an `r × r` matrix tile by tile (32 × 32), so
/// that the mirrored accesses `a[[j, i]]` of a tile stay in cache: a plain row loop walks a column
/// for them, one cache miss per entry once a row no longer fits (d = 1024: 16 KB rows).
fn lower_triangle_tiled(r: usize, mut f: impl FnMut(usize, usize)) {
    const TILE: usize = 32;
    for bi in (0..r).step_by(TILE) {
        for bj in (0..=bi).step_by(TILE) {
            for i in bi..(bi + TILE).min(r) {
                for j in bj..(bj + TILE).min(i + 1) {
                    f(i, j);
                }
            }
        }
    }
}

/// Conjugate transpose `A†`.
pub fn dagger(a: &ArrayView2<Complex64>) -> Array2<Complex64> {
    a.t().mapv(|z| z.conj())
}

/// Largest entrywise deviation `max |A − I|`.
pub(crate) fn identity_defect(a: &Array2<Complex64>) -> f64 {
    a.indexed_iter()
        .map(|((i, j), z)| {
            (z - if i == j {
                Complex64::new(1.0, 0.0)
            } else {
                Complex64::new(0.0, 0.0)
            })
            .norm()
        })
        .fold(0.0, f64::max)
}

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
    /// factorisation of `H + t·I` succeeds (`λ_min(H) ≥ −t` up to its `O(d·ε·‖H‖)` backward
    /// error); otherwise compute the eigenvalues of `H` and reject when `λ_min < −t`.
    pub fn with_options(
        mut a: Array2<Complex64>,
        tol: Tolerance,
        backend: Backend,
    ) -> Result<Self> {
        tol.check()?;
        let (d, t) = symmetrize_checked(&mut a, tol)?;
        let h = a;
        let trace: f64 = (0..d).map(|i| h[[i, i]].re).sum();
        if (trace - 1.0).abs() > t {
            return Err(Error::TraceNotOne {
                trace,
                tolerance: t,
            });
        }
        if !backend.is_positive_definite(h.view(), t)? {
            let min = backend
                .eigvalsh(h.view())?
                .iter()
                .copied()
                .fold(f64::INFINITY, f64::min);
            if min < -t {
                return Err(Error::NotPositiveSemidefinite {
                    min_eigenvalue: min,
                    tolerance: t,
                });
            }
        }
        Ok(DensityMatrix {
            inner: Arc::new(Stored {
                mat: h,
                eigen: OnceLock::new(),
            }),
            backend,
        })
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
        crate::divergence::classical::check_probability(p)?;
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
        crate::divergence::classical::check_probability(weights)?;
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

    /// Hilbert–Schmidt random state of rank `rank` (`1 ≤ rank ≤ d`): `G G† / Tr(G G†)` with `G` a
    /// `d × rank` complex Ginibre matrix. `rank = d` is the Hilbert–Schmidt measure.
    pub fn random_hilbert_schmidt<R: Rng + ?Sized>(
        d: usize,
        rank: usize,
        rng: &mut R,
    ) -> Result<Self> {
        if d == 0 || rank == 0 || rank > d {
            return Err(Error::invalid(
                "rank",
                rank as f64,
                format!("must be in 1..={d} (and d ≥ 1)"),
            ));
        }
        let g = ginibre(d, rank, rng);
        normalized_gram(&g)
    }

    /// Bures random state: `(I + U) G G† (I + U)† / Tr(·)` with `U` Haar-random and `G` Ginibre
    /// (Osipov, Sommers, Życzkowski, J. Phys. A 43 (2010) 055302).
    pub fn random_bures<R: Rng + ?Sized>(d: usize, rng: &mut R) -> Result<Self> {
        if d == 0 {
            return Err(Error::Empty("dimension 0".into()));
        }
        let mut a = haar_unitary(d, rng);
        for i in 0..d {
            a[[i, i]] += Complex64::new(1.0, 0.0);
        }
        normalized_gram(&a.dot(&ginibre(d, d, rng)))
    }

    /// Haar-random pure state `|ψ⟩⟨ψ|` (normalised complex Gaussian vector).
    pub fn random_pure<R: Rng + ?Sized>(d: usize, rng: &mut R) -> Result<Self> {
        Self::random_hilbert_schmidt(d, 1, rng)
    }
}

/// Kronecker product `A ⊗ B`.
pub fn kron(a: &ArrayView2<Complex64>, b: &ArrayView2<Complex64>) -> Array2<Complex64> {
    let (ar, ac) = a.dim();
    let (br, bc) = b.dim();
    let mut out = Array2::zeros((ar * br, ac * bc));
    for ((i, j), &x) in a.indexed_iter() {
        out.slice_mut(s![i * br..(i + 1) * br, j * bc..(j + 1) * bc])
            .assign(&b.mapv(|y| x * y));
    }
    out
}

/// `d × k` complex Ginibre matrix (i.i.d. standard complex normal entries).
pub fn ginibre<R: Rng + ?Sized>(d: usize, k: usize, rng: &mut R) -> Array2<Complex64> {
    Array2::from_shape_fn((d, k), |_| {
        Complex64::new(
            rng.sample::<f64, _>(StandardNormal),
            rng.sample::<f64, _>(StandardNormal),
        )
    })
}

fn normalized_gram(g: &Array2<Complex64>) -> Result<DensityMatrix> {
    let m = g.dot(&dagger(&g.view()));
    let tr: f64 = (0..m.nrows()).map(|i| m[[i, i]].re).sum();
    DensityMatrix::new(m.mapv(|z| z / tr))
}

/// Haar-random `d × d` unitary: QR of a Ginibre matrix with the phases of `R`'s diagonal removed
/// (Mezzadri, Notices AMS 54 (2007) 592).
pub fn haar_unitary<R: Rng + ?Sized>(d: usize, rng: &mut R) -> Array2<Complex64> {
    let g = ginibre(d, d, rng);
    let m = DMatrix::from_fn(d, d, |i, j| g[[i, j]]);
    let qr = m.qr();
    let (q, r) = (qr.q(), qr.r());
    Array2::from_shape_fn((d, d), |(i, j)| {
        let rjj = r[(j, j)];
        let phase = if rjj.norm() > 0.0 {
            rjj / rjj.norm()
        } else {
            Complex64::new(1.0, 0.0)
        };
        q[(i, j)] * phase
    })
}

/// Check `U†U = I_cols` within tolerance (`U` of shape `rows × cols`, `cols = expected_cols`).
pub(crate) fn check_isometry(u: &ArrayView2<Complex64>, expected_cols: usize) -> Result<()> {
    if u.ncols() != expected_cols {
        return Err(Error::DimensionMismatch {
            what: "operator columns vs state dimension".into(),
            left: u.ncols(),
            right: expected_cols,
        });
    }
    if u.iter().any(|z| !z.re.is_finite() || !z.im.is_finite()) {
        return Err(Error::NonFinite {
            value: "NaN/inf".into(),
            position: "unitary".into(),
        });
    }
    let dev = identity_defect(&dagger(u).dot(u));
    let tol = Tolerance::default().scaled(expected_cols, 1.0);
    if dev > tol {
        return Err(Error::NotUnitary {
            deviation: dev,
            tolerance: tol,
        });
    }
    Ok(())
}

/// A quantum channel in Kraus form, `Φ(X) = Σ_k K_k X K_k†`, checked trace preserving
/// (`Σ_k K_k† K_k = I` within tolerance) at construction.
#[derive(Clone, Debug)]
pub struct Channel {
    kraus: Vec<Array2<Complex64>>,
}

impl Channel {
    /// From Kraus operators of common shape `d_out × d_in`.
    pub fn new(kraus: Vec<Array2<Complex64>>) -> Result<Self> {
        let first = kraus
            .first()
            .ok_or_else(|| Error::Empty("no Kraus operators".into()))?;
        let (dout, din) = first.dim();
        let mut sum = Array2::<Complex64>::zeros((din, din));
        for k in &kraus {
            if k.dim() != (dout, din) {
                return Err(Error::DimensionMismatch {
                    what: "Kraus operator shapes".into(),
                    left: dout * din,
                    right: k.len(),
                });
            }
            if let Some(z) = k.iter().find(|z| !z.re.is_finite() || !z.im.is_finite()) {
                return Err(Error::NonFinite {
                    value: format!("{z}"),
                    position: "Kraus operator".into(),
                });
            }
            sum += &dagger(&k.view()).dot(k);
        }
        let dev = identity_defect(&sum);
        let tol = Tolerance::default().scaled(din, 1.0);
        if dev > tol {
            return Err(Error::NotTracePreserving {
                deviation: dev,
                tolerance: tol,
            });
        }
        Ok(Channel { kraus })
    }

    /// Input dimension `d_in`.
    pub fn input_dim(&self) -> usize {
        self.kraus[0].ncols()
    }
    /// Output dimension `d_out`.
    pub fn output_dim(&self) -> usize {
        self.kraus[0].nrows()
    }
    /// The Kraus operators.
    pub fn kraus(&self) -> &[Array2<Complex64>] {
        &self.kraus
    }

    /// `Σ_k K_k X K_k†` for any `d_in × d_in` matrix (no validation of `X` beyond its shape).
    ///
    /// Errors: [`Error::DimensionMismatch`] when `X` is not `d_in × d_in`.
    pub fn apply_matrix(&self, x: &Array2<Complex64>) -> Result<Array2<Complex64>> {
        let d = self.input_dim();
        if x.dim() != (d, d) {
            return Err(Error::DimensionMismatch {
                what: format!("channel input vs {}×{} matrix", x.nrows(), x.ncols()),
                left: d,
                right: if x.nrows() == d { x.ncols() } else { x.nrows() },
            });
        }
        let mut out = Array2::zeros((self.output_dim(), self.output_dim()));
        for k in &self.kraus {
            out += &k.dot(x).dot(&dagger(&k.view()));
        }
        Ok(out)
    }

    /// Composition `other ∘ self` (apply `self` first).
    pub fn then(&self, other: &Channel) -> Result<Channel> {
        if other.input_dim() != self.output_dim() {
            return Err(Error::DimensionMismatch {
                what: "channel composition".into(),
                left: self.output_dim(),
                right: other.input_dim(),
            });
        }
        Channel::new(
            self.kraus
                .iter()
                .flat_map(|a| other.kraus.iter().map(move |b| b.dot(a)))
                .collect(),
        )
    }

    /// Depolarizing channel `ρ ↦ (1−p) ρ + p Tr(ρ) I/d`, `p ∈ [0, 1]`, with Kraus operators
    /// `√c_ab X^a Z^b` (Weyl–Heisenberg basis), `c_00 = 1 − p + p/d²`, `c_ab = p/d²` otherwise.
    pub fn depolarizing(d: usize, p: f64) -> Result<Self> {
        check_unit_interval("p", p)?;
        if d == 0 {
            return Err(Error::Empty("dimension 0".into()));
        }
        let omega =
            |k: usize| Complex64::from_polar(1.0, 2.0 * std::f64::consts::PI * k as f64 / d as f64);
        let d2 = (d * d) as f64;
        let mut kraus = Vec::with_capacity(d * d);
        for a in 0..d {
            for b in 0..d {
                let c = if a == 0 && b == 0 {
                    1.0 - p + p / d2
                } else {
                    p / d2
                };
                if c == 0.0 {
                    continue;
                }
                // (X^a Z^b)|j⟩ = ω^{bj} |j + a mod d⟩
                let mut w = Array2::zeros((d, d));
                for j in 0..d {
                    w[[(j + a) % d, j]] = omega((b * j) % d) * c.sqrt();
                }
                kraus.push(w);
            }
        }
        Channel::new(kraus)
    }

    /// Completely dephasing with probability `p`: `ρ ↦ (1−p) ρ + p diag(ρ)` in the computational
    /// basis, Kraus operators `√(1−p) I` and `√p |i⟩⟨i|`.
    pub fn dephasing(d: usize, p: f64) -> Result<Self> {
        check_unit_interval("p", p)?;
        if d == 0 {
            return Err(Error::Empty("dimension 0".into()));
        }
        let mut kraus = vec![Array2::from_diag(&Array1::from_elem(
            d,
            Complex64::new((1.0 - p).sqrt(), 0.0),
        ))];
        for i in 0..d {
            let mut k = Array2::zeros((d, d));
            k[[i, i]] = Complex64::new(p.sqrt(), 0.0);
            kraus.push(k);
        }
        Channel::new(kraus)
    }

    /// Qubit amplitude damping with decay probability `γ ∈ [0,1]`:
    /// `K₀ = |0⟩⟨0| + √(1−γ)|1⟩⟨1|`, `K₁ = √γ |0⟩⟨1|`.
    pub fn amplitude_damping(gamma: f64) -> Result<Self> {
        check_unit_interval("gamma", gamma)?;
        let c = |x: f64| Complex64::new(x, 0.0);
        let k0 = ndarray::arr2(&[[c(1.0), c(0.0)], [c(0.0), c((1.0 - gamma).sqrt())]]);
        let k1 = ndarray::arr2(&[[c(0.0), c(gamma.sqrt())], [c(0.0), c(0.0)]]);
        Channel::new(vec![k0, k1])
    }

    /// Random channel from a Haar-random Stinespring isometry `V: ℂ^{d_in} → ℂ^{k} ⊗ ℂ^{d_out}`
    /// (the first `d_in` columns of a Haar unitary of size `k·d_out`), `K_i = (⟨i| ⊗ I) V`.
    pub fn random<R: Rng + ?Sized>(
        d_in: usize,
        d_out: usize,
        n_kraus: usize,
        rng: &mut R,
    ) -> Result<Self> {
        if d_in == 0 || d_out == 0 || n_kraus == 0 || n_kraus * d_out < d_in {
            return Err(Error::invalid(
                "n_kraus",
                n_kraus as f64,
                format!(
                    "need d_in, d_out, k ≥ 1 and k·d_out ≥ d_in (d_in = {d_in}, d_out = {d_out})"
                ),
            ));
        }
        let u = haar_unitary(n_kraus * d_out, rng);
        let v = u.slice(s![.., 0..d_in]);
        Channel::new(
            (0..n_kraus)
                .map(|i| v.slice(s![i * d_out..(i + 1) * d_out, ..]).to_owned())
                .collect(),
        )
    }
}

fn check_unit_interval(name: &str, x: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&x) {
        return Err(Error::invalid(name, x, "must lie in [0, 1]"));
    }
    Ok(())
}
