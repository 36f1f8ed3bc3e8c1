//! The kernel Rényi divergence estimator on Gram matrices (derivation: `docs/kernel.md`, section
//! "kernel_divergence").
//!
//! Notation: `F e_i = φ(x_i)`, `G e_l = φ(y_l)`, `ρ = Σ̂_P = F Fᵀ/n`, `Σ̂_Q = G Gᵀ/m`,
//! `σ = Σ̂_Q + λI`, `γ = (1−α)/α`. With `K_YY/m = E diag(ν) Eᵀ` the nonzero eigenvalues `ν_j` of
//! `Σ̂_Q` have orthonormal eigenvectors `v_j = G E_j/√(m ν_j)`, hence
//!
//! `σ^γ = λ^γ I + Σ_j ((ν_j+λ)^γ − λ^γ) v_j v_jᵀ`
//!
//! and, with `C = K_XY E` (so `⟨φ(x_i), v_j⟩ = C_ij/√(m ν_j)`),
//!
//! `M_γ := Fᵀ σ^γ F / n = (λ^γ K_XX + C diag(h) Cᵀ)/n`, `h_j = ((ν_j+λ)^γ − λ^γ)/(m ν_j)`.
//!
//! `M_γ` (`n × n`) has the nonzero spectrum of `σ^{γ/2} ρ σ^{γ/2}` (`AᵀA` versus `AAᵀ` with
//! `A = σ^{γ/2} F/√n`), so `Tr(σ^{γ/2}ρσ^{γ/2})^α = Σ_k μ_k(M_γ)^α`: one eigendecomposition of
//! `K_YY` and one gemm serve every `(α, λ)`, and each `(α, λ)` costs one `n × m × n` product and one
//! values-only `n × n` symmetric eigensolve. No operator outside `span φ(X ∪ Y)` is ever formed, and
//! the `λI` part outside that span drops out exactly (it multiplies `F`, which lives in the span).

use crate::divergence::renyi_mean;
use crate::error::{Error, Result};
use crate::kernel::gram::{check_samples, Kernel};
use crate::spectral::{zero_threshold, Backend, EigenSolver};
use ndarray::{Array1, Array2, ArrayView2, Axis};
use std::cell::OnceCell;

/// `K_XX` and `C` in GPU memory (feature `cuda`), for the per-`(α, λ)` solves.
#[cfg(feature = "cuda")]
type DeviceBlocks = crate::spectral::cuda::KernelBlocks;
#[cfg(not(feature = "cuda"))]
type DeviceBlocks = ();

/// The α- and λ-independent part of the estimator `D̃_α(Σ̂_P ‖ Σ̂_Q + λI)` for samples `X` (`n`
/// points) and `Y` (`m` points): `K_XX`, `C = K_XY E` and the spectrum `ν` of `K_YY/m`.
///
/// Memory (`N = n + m`): `K_XX` and `C` are kept (`n² + nm` doubles). With the default backend
/// (`openblas` feature) every solve runs in place on the Gram buffers: from samples, construction
/// peaks at `max(3m², 2nm + m²)` doubles and an evaluation at `2n² + nm + 256n` (`0.75 N²` and
/// `0.86 N²` at `n = m`); from Gram blocks handed over, `1.25 N²` at `n = m` (docs/kernel.md § cost).
///
/// ```
/// use qrenyi::kernel::{Kernel, KernelKind, KernelDivergence};
/// use ndarray::array;
/// let x = array![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
/// let y = array![[0.1, 0.0], [1.0, 0.2], [0.3, 1.0], [2.0, 2.0]];
/// let kernel = Kernel::new(KernelKind::Rbf, 1.0)?;
/// let est = KernelDivergence::from_samples(x.view(), y.view(), &kernel)?;
/// let d = est.divergence(2.0, 1e-2)?;
/// assert!(d > 0.0 && d.is_finite());
/// // decreasing in λ, increasing in α (seed 002, Proposition 2)
/// assert!(est.divergence(2.0, 1e-1)? <= d);
/// assert!(est.divergence(3.0, 1e-2)? >= d);
/// # Ok::<(), qrenyi::Error>(())
/// ```
pub struct KernelDivergence {
    kxx: Array2<f64>,
    c: Array2<f64>,
    nu: Array1<f64>,
    nu_threshold: f64,
    /// `‖C_j‖²/(m ν_j)`: the weight `n ⟨v_j, ρ v_j⟩` (0 for `ν_j ≤ τ`)
    overlap: Vec<f64>,
    trace_rho: f64,
    m: usize,
    backend: Backend,
    rho_spectrum: OnceCell<Array1<f64>>,
    /// Set when `backend` runs dimension `m` on the GPU: then `M_γ` is assembled and solved there.
    device: Option<DeviceBlocks>,
}

/// The spectrum of `K_YY` (ascending) and `C = K_XY E`; on the GPU (keeping `K_XX` and `C` there)
/// when `backend` runs dimension `m` on it, else `E` from `backend` and one host `dgemm`.
#[allow(unused_variables)]
fn decompose(
    kxx: &Array2<f64>,
    kxy: Array2<f64>,
    kyy: Array2<f64>,
    backend: Backend,
) -> Result<(Array1<f64>, Array2<f64>, Option<DeviceBlocks>)> {
    #[cfg(feature = "cuda")]
    if backend.uses_gpu(kyy.nrows()) {
        let (nu, c, dev) =
            crate::spectral::cuda::kernel_blocks(&kxx.view(), &kxy.view(), &kyy.view())?;
        return Ok((nu, c, Some(dev)));
    }
    #[cfg(feature = "openblas")]
    if in_place(backend) {
        if kyy.nrows() >= super::symmetric::OVERLAP_FROM {
            let (nu, c) = super::symmetric::eigh_times(kyy, kxy)?;
            return Ok((nu, c, None));
        }
        let (nu, e) = super::symmetric::eigh_in_place(kyy)?;
        return Ok((nu, kxy.dot(&e), None));
    }
    let (nu, e) = backend.eigh_real(kyy.view())?;
    drop(kyy);
    let c = kxy.dot(&e);
    Ok((nu, c, None))
}

/// Whether the host solves run in place on the Gram buffers (module `symmetric`: `dsyevd` on
/// `K_YY`'s own buffer, `dsyrk` updates, `dsyevd_2stage` for large values-only solves): for
/// [`Backend::Auto`] with the `openblas` feature. An explicit backend keeps the generic route
/// (copying [`EigenSolver`] calls and one gemm per `(α, λ)`), which the tests compare against.
#[cfg(feature = "openblas")]
fn in_place(backend: Backend) -> bool {
    backend == Backend::Auto
}

/// Whether `from_samples` takes the overlapped construction (`symmetric::eigh_times`): from
/// [`super::symmetric::OVERLAP_FROM`] on, while its peak `3m² + nm` doubles stays within the budget
/// `1.5 (n+m)²` (i.e. `m ≤ 1.87 n`); otherwise `dsyevd` before `K_XY` exists (peak `3m²`).
#[cfg(feature = "openblas")]
fn overlapped_within_budget(n: usize, m: usize) -> bool {
    let (nf, mf) = (n as f64, m as f64);
    m >= super::symmetric::OVERLAP_FROM && 3.0 * mf * mf + nf * mf <= 1.5 * (nf + mf) * (nf + mf)
}

/// `Tr Σ̂_P = (1/n) Σ_i K_XX[i, i]`, which must be positive.
fn trace_of(kxx: &Array2<f64>) -> Result<f64> {
    let trace_rho = kxx.diag().sum() / kxx.nrows() as f64;
    if trace_rho.is_nan() || trace_rho <= 0.0 {
        return Err(Error::invalid(
            "Tr Σ̂_P",
            trace_rho,
            "the diagonal of K_XX must be positive",
        ));
    }
    Ok(trace_rho)
}

/// The Rényi-mean terms of `Tr(σ^γ ρ)/Tr ρ` in σ's eigenbasis, and the support decision.
struct SigmaSplit {
    terms: Vec<(f64, f64)>,
}

fn check_alpha(alpha: f64) -> Result<()> {
    crate::order::Order::new(
        alpha,
        crate::order::OrderRange::Positive,
        "the sandwiched kernel Rényi divergence",
    )
    .map(|_| ())
}

fn check_lambda(lambda: f64) -> Result<()> {
    if lambda >= 0.0 && lambda.is_finite() {
        Ok(())
    } else {
        Err(Error::invalid(
            "λ",
            lambda,
            "the regularisation must be finite and ≥ 0",
        ))
    }
}

fn check_square_symmetric(name: &str, k: &ArrayView2<f64>) -> Result<()> {
    let (r, c) = k.dim();
    if r != c {
        return Err(Error::NotSquare { rows: r, cols: c });
    }
    check_finite(name, k)?;
    let scale = k.iter().fold(0.0f64, |a, v| a.max(v.abs())).max(1.0);
    // in tiles: a plain double loop reads `k[[j, i]]` column-wise and misses the cache once per
    // entry (≈ 0.04 CPU-s at n = 4000)
    const TILE: usize = 64;
    let mut dev = 0.0f64;
    for i0 in (0..r).step_by(TILE) {
        for j0 in (0..=i0).step_by(TILE) {
            for i in i0..(i0 + TILE).min(r) {
                for j in j0..(j0 + TILE).min(i) {
                    dev = dev.max((k[[i, j]] - k[[j, i]]).abs());
                }
            }
        }
    }
    let tol = 1e-10 * scale;
    if dev > tol {
        return Err(Error::NotHermitian {
            deviation: dev,
            tolerance: tol,
        });
    }
    Ok(())
}

fn check_finite(name: &str, k: &ArrayView2<f64>) -> Result<()> {
    if let Some(((i, j), v)) = k.indexed_iter().find(|(_, v)| !v.is_finite()) {
        return Err(Error::NonFinite {
            value: v.to_string(),
            position: format!("{name}[{i}, {j}]"),
        });
    }
    Ok(())
}

/// `((1+x)^γ − 1)/x` for `x ≥ 0`, with the limit `γ` at `x = 0` (no cancellation for small `x`).
fn rel_power_slope(x: f64, gamma: f64) -> f64 {
    if x == 0.0 {
        gamma
    } else {
        (gamma * x.ln_1p()).exp_m1() / x
    }
}

impl KernelDivergence {
    /// Build the estimator from the Gram blocks `K_XX` (`n × n`), `K_XY` (`n × m`), `K_YY`
    /// (`m × m`) of any positive-definite kernel. If `k(x,x) ≠ 1` the divergence follows the
    /// crate's convention for unnormalised arguments, `(1/(α−1)) ln(Q_α/Tr ρ)`.
    ///
    /// Cost: one `m × m` symmetric eigendecomposition and one `n × m × m` gemm.
    pub fn from_gram(kxx: Array2<f64>, kxy: Array2<f64>, kyy: Array2<f64>) -> Result<Self> {
        Self::from_gram_with(kxx, kxy, kyy, Backend::default())
    }

    /// [`KernelDivergence::from_gram`] with an explicit eigensolver backend.
    pub fn from_gram_with(
        kxx: Array2<f64>,
        kxy: Array2<f64>,
        kyy: Array2<f64>,
        backend: Backend,
    ) -> Result<Self> {
        let (n, m) = (kxx.nrows(), kyy.nrows());
        if n == 0 || m == 0 {
            return Err(Error::Empty(format!(
                "Gram blocks need at least one point per sample (n = {n}, m = {m})"
            )));
        }
        // three independent serial O(n²) passes, on rayon's threads (no BLAS call inside); the
        // first failing block in this order is reported
        let (xx, (yy, xy)) = rayon::join(
            || check_square_symmetric("K_XX", &kxx.view()),
            || {
                rayon::join(
                    || check_square_symmetric("K_YY", &kyy.view()),
                    || check_finite("K_XY", &kxy.view()),
                )
            },
        );
        xx?;
        yy?;
        xy?;
        if kxy.dim() != (n, m) {
            return Err(Error::DimensionMismatch {
                what: format!("K_XY is {}×{}, expected n×m", kxy.nrows(), kxy.ncols()),
                left: kxy.nrows() * kxy.ncols(),
                right: n * m,
            });
        }
        trace_of(&kxx)?;
        let (nu, c, device) = decompose(&kxx, kxy, kyy, backend)?;
        Self::assemble(kxx, nu, c, device, backend)
    }

    /// The estimator from `K_XX`, the eigenvalues of `K_YY` (ascending) and `C = K_XY E`.
    fn assemble(
        kxx: Array2<f64>,
        mut nu: Array1<f64>,
        c: Array2<f64>,
        device: Option<DeviceBlocks>,
        backend: Backend,
    ) -> Result<Self> {
        let trace_rho = trace_of(&kxx)?;
        let m = c.ncols();
        nu.mapv_inplace(|v| v / m as f64);
        let numax = nu.iter().copied().fold(0.0f64, f64::max);
        let nu_threshold = zero_threshold(m, numax);
        // ‖C_j‖² row by row (C is row-major: one pass in memory order instead of a strided
        // pass per column)
        let mut sq = vec![0.0f64; m];
        for row in c.rows() {
            for (s, &v) in sq.iter_mut().zip(row) {
                *s += v * v;
            }
        }
        let overlap = sq
            .iter()
            .zip(nu.iter())
            .map(|(&s, &v)| {
                if v > nu_threshold {
                    s / (m as f64 * v)
                } else {
                    0.0
                }
            })
            .collect();
        Ok(KernelDivergence {
            kxx,
            c,
            nu,
            nu_threshold,
            overlap,
            trace_rho,
            m,
            backend,
            rho_spectrum: OnceCell::new(),
            device,
        })
    }

    /// Build the estimator from samples `x` (`n × d`) and `y` (`m × d`) with `kernel`.
    pub fn from_samples(x: ArrayView2<f64>, y: ArrayView2<f64>, kernel: &Kernel) -> Result<Self> {
        check_samples("X", x)?;
        check_samples("Y", y)?;
        #[cfg(feature = "openblas")]
        if in_place(Backend::default()) && !Backend::default().uses_gpu(y.nrows()) {
            if x.ncols() != y.ncols() {
                return Err(Error::DimensionMismatch {
                    what: "sample dimension".into(),
                    left: x.ncols(),
                    right: y.ncols(),
                });
            }
            let (n, m) = (x.nrows(), y.nrows());
            if overlapped_within_budget(n, m) {
                // K_XY must exist while K_YY is decomposed (its reflectors are applied to it
                // while `dstedc` runs): peak 3m² + nm (docs/kernel.md § memory)
                let kyy = kernel.gram_sym(y)?;
                let kxy = kernel.gram(x, y)?;
                let (nu, c) = super::symmetric::eigh_times(kyy, kxy)?;
                return Self::assemble(kernel.gram_sym(x)?, nu, c, None, Backend::Auto);
            }
            // lowest peak memory: K_YY is decomposed (its eigenvectors overwrite it) before
            // K_XY and K_XX exist, and K_XY is gone before K_XX is built (docs/kernel.md § cost)
            let (nu, e) = super::symmetric::eigh_in_place(kernel.gram_sym(y)?)?;
            let c = kernel.gram(x, y)?.dot(&e);
            drop(e);
            return Self::assemble(kernel.gram_sym(x)?, nu, c, None, Backend::Auto);
        }
        let kxx = kernel.gram_sym(x)?;
        let kxy = kernel.gram(x, y)?;
        let kyy = kernel.gram_sym(y)?;
        Self::from_gram(kxx, kxy, kyy)
    }

    /// Number of points `n` of the first sample.
    pub fn n(&self) -> usize {
        self.kxx.nrows()
    }
    /// Number of points `m` of the second sample.
    pub fn m(&self) -> usize {
        self.m
    }
    /// `Tr Σ̂_P = (1/n) Σ_i k(x_i, x_i)` (1 for the normalised kernels of [`Kernel`]).
    pub fn trace_rho(&self) -> f64 {
        self.trace_rho
    }
    /// Eigenvalues of `Σ̂_Q`'s Gram form `K_YY/m`, ascending (the nonzero spectrum of `Σ̂_Q`).
    pub fn sigma_spectrum(&self) -> &Array1<f64> {
        &self.nu
    }

    /// Eigenvalues of `K_XX/n` (the nonzero spectrum of `Σ̂_P`), ascending; computed once.
    pub fn rho_spectrum(&self) -> Result<&Array1<f64>> {
        if let Some(s) = self.rho_spectrum.get() {
            return Ok(s);
        }
        let n = self.n() as f64;
        let scaled = self.kxx.mapv(|v| v / n);
        #[cfg(feature = "openblas")]
        let s = if in_place(self.backend) {
            super::symmetric::eigvalsh_in_place(scaled)?
        } else {
            self.backend.eigvalsh_real(scaled.view())?
        };
        #[cfg(not(feature = "openblas"))]
        let s = self.backend.eigvalsh_real(scaled.view())?;
        Ok(self.rho_spectrum.get_or_init(|| s))
    }

    /// `Tr ρ Π_{(span φ(Y))^⊥} = Tr Σ̂_P − Σ_j ⟨v_j, Σ̂_P v_j⟩`: the weight of `Σ̂_P` outside the
    /// support of `Σ̂_Q` (clamped at 0).
    pub fn leakage(&self) -> f64 {
        let inside: f64 = self.overlap.iter().sum::<f64>() / self.n() as f64;
        (self.trace_rho - inside).max(0.0)
    }

    /// Whether `supp Σ̂_P ⊆ supp Σ̂_Q`, decided as `leakage ≤ τ(n+m, Tr Σ̂_P) · √(ν_max/ν_min)`:
    /// the crate's zero threshold with the trace as the scale, widened by the rounding
    /// amplification of the leakage, a difference of `O(Tr ρ)` terms `‖C_j‖²/(m ν_j)` whose
    /// absolute error grows like `ν_j^{−1/2}` (`ν_min` is the smallest `ν_j` above the zero
    /// threshold of `K_YY/m`).
    pub fn is_supported(&self) -> bool {
        let live = || self.nu.iter().copied().filter(|&v| v > self.nu_threshold);
        let numax = live().fold(0.0f64, f64::max);
        let numin = live().fold(f64::INFINITY, f64::min);
        let amplification = if numin.is_finite() {
            (numax / numin).sqrt()
        } else {
            1.0
        };
        self.leakage() <= zero_threshold(self.n() + self.m, self.trace_rho) * amplification
    }

    fn split(&self, alpha: f64, lambda: f64) -> SigmaSplit {
        let n = self.n() as f64;
        let mut terms: Vec<(f64, f64)> = self
            .overlap
            .iter()
            .zip(self.nu.iter())
            .filter(|(w, _)| **w > 0.0)
            .map(|(w, &v)| (w / n / self.trace_rho, -(v + lambda).ln() / alpha))
            .collect();
        let leakage = self.leakage();
        if lambda > 0.0 {
            terms.push((leakage / self.trace_rho, -lambda.ln() / alpha));
        } else if !self.is_supported() {
            terms.push((leakage / self.trace_rho, f64::INFINITY));
        }
        let s: f64 = terms.iter().map(|(w, _)| w).sum();
        if s > 0.0 {
            terms.iter_mut().for_each(|(w, _)| *w /= s);
        }
        SigmaSplit { terms }
    }

    /// `M_γ = Fᵀ σ^γ F / n` for `σ = Σ̂_Q + λI` (see the module docs). For `λ = 0` the part of `ρ`
    /// outside `supp Σ̂_Q` is dropped (pseudo-inverse convention; callers handle `+∞`).
    fn sandwich(&self, gamma: f64, lambda: f64) -> Array2<f64> {
        let (a, b, scale) = self.sandwich_coefficients(gamma, lambda);
        let mut w = self.c.clone();
        for (mut col, s) in w.axis_iter_mut(Axis(1)).zip(&scale) {
            col.mapv_inplace(|v| v * s);
        }
        let mut out = w.dot(&w.t());
        drop(w);
        ndarray::Zip::from(&mut out)
            .and(&self.kxx)
            .for_each(|o, &k| *o = a * k + b * *o);
        out
    }

    /// `M_γ = a K_XX + b W Wᵀ` with `W = C diag(scale)`: returns `(a, b, scale)`.
    fn sandwich_coefficients(&self, gamma: f64, lambda: f64) -> (f64, f64, Vec<f64>) {
        let (n, m) = (self.n() as f64, self.m as f64);
        let (base, h): (f64, Vec<f64>) = if lambda > 0.0 {
            let lg1 = lambda.powf(gamma - 1.0);
            (
                lambda.powf(gamma),
                self.nu
                    .iter()
                    .map(|&v| lg1 * rel_power_slope(v.max(0.0) / lambda, gamma) / m)
                    .collect(),
            )
        } else {
            (
                0.0,
                self.nu
                    .iter()
                    .map(|&v| {
                        if v > self.nu_threshold {
                            v.powf(gamma - 1.0) / m
                        } else {
                            0.0
                        }
                    })
                    .collect(),
            )
        };
        // h has one sign (that of γ for λ > 0, positive for λ = 0):
        // M = (base K_XX + sign · W Wᵀ)/n with W = C diag(√|h|)
        let sign = if lambda > 0.0 && gamma < 0.0 {
            -1.0
        } else {
            1.0
        };
        let scale = h.iter().map(|hj| hj.abs().sqrt()).collect();
        (base / n, sign / n, scale)
    }

    /// The eigenvalues of `M_γ` above the zero threshold `τ(n, μ_max)`.
    fn sandwich_spectrum(&self, gamma: f64, lambda: f64) -> Result<Vec<f64>> {
        let overflow = || {
            // e.g. α = 5e-324: γ = (1−α)/α ≈ 2e323 and σ^{γ/2} is out of the f64 range; say so
            // instead of letting the eigensolver fail on infinities
            Error::invalid(
                "(1−α)/α",
                gamma,
                "σ^((1−α)/2α) overflows f64 at this order (α too close to 0 for these samples); \
                 use a larger α",
            )
        };
        #[allow(unused_variables)]
        let finite_coefficients = || {
            let (a, b, scale) = self.sandwich_coefficients(gamma, lambda);
            if !a.is_finite() || !b.is_finite() || scale.iter().any(|v| !v.is_finite()) {
                return Err(overflow());
            }
            Ok((a, b, scale))
        };
        let mu = match &self.device {
            #[cfg(feature = "cuda")]
            Some(dev) => {
                let (a, b, scale) = finite_coefficients()?;
                dev.sandwich_eigvalsh(a, b, &scale)?
            }
            #[cfg(feature = "openblas")]
            _ if in_place(self.backend) => {
                let (a, b, scale) = finite_coefficients()?;
                super::symmetric::sandwich_eigvalsh(&self.kxx.view(), &self.c.view(), a, b, &scale)?
                    .ok_or_else(overflow)?
            }
            _ => {
                let m = self.sandwich(gamma, lambda);
                if m.iter().any(|v| !v.is_finite()) {
                    return Err(overflow());
                }
                self.backend.eigvalsh_real(m.view())?
            }
        };
        let mumax = mu.iter().copied().fold(0.0f64, f64::max);
        let thr = zero_threshold(mu.len(), mumax);
        Ok(mu.iter().copied().filter(|&v| v > thr).collect())
    }

    /// The estimate `D̃_α(Σ̂_P ‖ Σ̂_Q + λI)` for α ∈ (0, ∞], λ ≥ 0 (natural log).
    ///
    /// `α = 1` is the kernel Kullback–Leibler divergence `Tr ρ(ln ρ − ln σ)/Tr ρ` (Bach 2022),
    /// `α = ∞` is `D_max = ln λ_max(σ^{−1/2} ρ σ^{−1/2})`. For `λ = 0`: `+∞` when α ≥ 1 and
    /// `supp Σ̂_P ⊄ supp Σ̂_Q` ([`KernelDivergence::is_supported`]) — which is the generic case for
    /// strictly positive-definite kernels and distinct points.
    ///
    /// Evaluation: `D = R_α(diag) + R_α(spec)` with the Rényi means ([`renyi_mean`]) of the
    /// σ-eigenbasis weights of `Tr(σ^γ ρ)/Tr ρ` and of the normalised spectrum of `M_γ`, as in the
    /// density-matrix sandwiched divergence, so that α → 1 and large α are stable. At α = 2 the
    /// spectral mean is `ln(Σ μ²/Σ μ) = ln(‖M_γ‖_F²/Tr M_γ)`, which the default backend evaluates
    /// without an eigensolve (docs/kernel.md, "sandwich_frobenius").
    pub fn divergence(&self, alpha: f64, lambda: f64) -> Result<f64> {
        check_alpha(alpha)?;
        check_lambda(lambda)?;
        if lambda == 0.0 && alpha >= 1.0 && !self.is_supported() {
            return Ok(f64::INFINITY);
        }
        if alpha == f64::INFINITY {
            let spec = self.sandwich_spectrum(-1.0, lambda)?;
            return Ok(match spec.last() {
                Some(&top) => top.ln(),
                None => f64::INFINITY,
            });
        }
        let split = self.split(alpha, lambda);
        let gamma = (1.0 - alpha) / alpha;
        #[cfg(feature = "openblas")]
        if alpha == 2.0 && self.device.is_none() && in_place(self.backend) {
            // Σ μ_k² = ‖M_γ‖_F² and Σ μ_k = Tr M_γ: no eigensolve (docs/kernel.md,
            // "sandwich_frobenius")
            return self.divergence_order_two(&split, gamma, lambda);
        }
        let nu = self.sandwich_spectrum(gamma, lambda)?;
        let total: f64 = nu.iter().sum();
        if nu.is_empty() || total <= 0.0 {
            return Ok(f64::INFINITY);
        }
        let spec: Vec<(f64, f64)> = nu.iter().map(|&x| (x / total, x.ln())).collect();
        Ok(renyi_mean(&split.terms, alpha) + renyi_mean(&spec, alpha))
    }

    /// `D_{2,λ} = R_2(diag) + ln(‖M_γ‖_F² / Tr M_γ)` (γ = −½): the spectral Rényi mean at α = 2 is
    /// `ln(Σ μ_k²/Σ μ_k)`, and both power sums are traces of `M_γ` and `M_γ²`
    /// (docs/kernel.md, "sandwich_frobenius").
    #[cfg(feature = "openblas")]
    fn divergence_order_two(&self, split: &SigmaSplit, gamma: f64, lambda: f64) -> Result<f64> {
        let (a, b, scale) = self.sandwich_coefficients(gamma, lambda);
        let overflow = || {
            Error::invalid(
                "(1−α)/α",
                gamma,
                "σ^((1−α)/2α) overflows f64 at this order for these samples",
            )
        };
        if !a.is_finite() || !b.is_finite() || scale.iter().any(|v| !v.is_finite()) {
            return Err(overflow());
        }
        let (trace, ln_square) =
            super::symmetric::sandwich_frobenius(&self.kxx.view(), &self.c.view(), a, b, &scale)?
                .ok_or_else(overflow)?;
        if trace.is_nan() || trace <= 0.0 || ln_square == f64::NEG_INFINITY {
            return Ok(f64::INFINITY);
        }
        Ok(renyi_mean(&split.terms, 2.0) + ln_square - trace.ln())
    }

    /// `D_{α,λ}` on a grid: `out[[i, j]] = divergence(alphas[i], lambdas[j])`, reusing the α- and
    /// λ-independent decomposition (one `n × n` values-only eigensolve per grid point).
    pub fn grid(&self, alphas: &[f64], lambdas: &[f64]) -> Result<Array2<f64>> {
        alphas.iter().try_for_each(|&a| check_alpha(a))?;
        lambdas.iter().try_for_each(|&l| check_lambda(l))?;
        let mut out = Array2::zeros((alphas.len(), lambdas.len()));
        for (i, &a) in alphas.iter().enumerate() {
            for (j, &l) in lambdas.iter().enumerate() {
                out[[i, j]] = self.divergence(a, l)?;
            }
        }
        Ok(out)
    }
}
