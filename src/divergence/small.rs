//! Small pairs (`d ≤` [`SMALL_PAIR_MAX`]): the families from the two decompositions on fixed-size
//! stack arrays, without heap allocation.
//!
//! The reductions are those of [`Pair`](super::Pair) (`quantum.rs`; derivations in
//! `docs/divergences.md`) — the same support decisions (zero threshold, overlap cutoff,
//! `Tr ρ Π_ker σ` against `τ(d, λ_max(ρ))`), the same Rényi means:
//!
//! * Petz and Umegaki: the `d²` Nussbaum–Szkoła terms `(λ_i O_ij / W, ln λ_i − ln μ_j)` — the
//!   reference evaluation that `Pair`'s factorised forms certify themselves against;
//! * sandwiched, `α > 1`: `ρ' = (W√Λ)(W√Λ)†` in σ's eigenbasis, one values-only Jacobi solve of
//!   `D^{γ/2} ρ'_ss D^{γ/2}` (`spectral::small`), the diagonal and spectral Rényi means;
//! * maximal, `α ≥ 1` and `supp ρ ⊆ supp σ`: the eigenpairs of `T = D^{−1/2} ρ'_ss D^{−1/2}` and
//!   the weights `w_k = ⟨v_k|σ|v_k⟩`.
//!
//! Everything else **declines** (`None`) and runs on `Pair`'s route: sandwiched and maximal `α < 1`
//! (their small eigenvalues are needed to relative accuracy: SVD with an a-posteriori bound, else
//! the graded Jacobi method), the maximal family of a leaking ρ (Ando's Schur complement), other
//! backends than [`Backend::Auto`] (an explicit backend is a request for that solver) and `d > 16`.
//! Where the kernel answers, its error is that of the route it replaces: the Jacobi solver meets the
//! same backward-stable bound as LAPACK (`spectral::small`), and the Rényi means are shared.

use super::renyi_mean;
use super::Family;
use crate::error::Result;
use crate::spectral::small::{eigh_small, SmallMatrix, SMALL_MAX};
use crate::spectral::{zero_threshold, Backend, Eigen, EPS};
use crate::state::DensityMatrix;
use num_complex::Complex64;

/// Largest dimension the small-pair kernel takes (the capacity of its arrays).
pub const SMALL_PAIR_MAX: usize = SMALL_MAX;

/// `d²` Nussbaum–Szkoła terms plus the one at `+∞`.
const MAX_TERMS: usize = SMALL_MAX * SMALL_MAX + 1;

/// One state's decomposition on the stack: eigenvalues ascending, eigenvectors as columns, the
/// zero threshold `τ(d, λ_max)`.
#[derive(Clone, Copy)]
pub(crate) struct SmallState {
    values: [f64; SMALL_MAX],
    vectors: SmallMatrix,
    threshold: f64,
}

impl SmallState {
    /// From a cached [`Eigen`] (`d ≤ 16`).
    pub(crate) fn from_eigen(e: &Eigen) -> Self {
        let n = e.dim();
        let mut values = [0.0; SMALL_MAX];
        values[..n].copy_from_slice(&e.values().as_slice().unwrap_or(&[])[..n]);
        let v = e.vectors();
        SmallState {
            values,
            vectors: SmallMatrix::from_fn(n, |i, j| v[[i, j]]),
            threshold: e.threshold(),
        }
    }

    fn dim(&self) -> usize {
        self.vectors.dim()
    }

    fn max_value(&self) -> f64 {
        self.values[..self.dim()]
            .iter()
            .copied()
            .fold(0.0, f64::max)
    }

    /// `λ_i` if above the zero threshold, else 0.
    fn clamped(&self, i: usize) -> f64 {
        if self.values[i] > self.threshold {
            self.values[i]
        } else {
            0.0
        }
    }

    fn in_support(&self, i: usize) -> bool {
        self.values[i] > self.threshold
    }
}

/// A pair of small states with the overlap `W = V_σ† V_ρ` and the support decision.
pub(crate) struct SmallPair {
    rho: SmallState,
    sigma: SmallState,
    /// `W_ji = ⟨b_j|a_i⟩`.
    w: SmallMatrix,
    supported: bool,
}

/// The value of a Rényi mean over weights that are normalised here (zero weights dropped).
fn normalised_mean(terms: &mut [(f64, f64)], alpha: f64) -> f64 {
    let total: f64 = terms.iter().map(|(w, _)| w.max(0.0)).sum();
    if total > 0.0 {
        terms.iter_mut().for_each(|(w, _)| *w /= total);
    }
    renyi_mean(terms, alpha)
}

impl SmallPair {
    /// The overlap and the support decision (`Tr ρ Π_ker σ ≤ τ(d, λ_max(ρ))`).
    pub(crate) fn new(rho: SmallState, sigma: SmallState) -> Self {
        let n = rho.dim();
        let w = SmallMatrix::from_fn(n, |j, i| {
            (0..n)
                .map(|k| sigma.vectors.get(k, j).conj() * rho.vectors.get(k, i))
                .sum()
        });
        let leakage: f64 = (0..n)
            .filter(|&j| !sigma.in_support(j))
            .map(|j| {
                let r: f64 = (0..n).map(|i| rho.values[i] * w.get(j, i).norm_sqr()).sum();
                r.max(0.0)
            })
            .sum();
        let supported = leakage <= zero_threshold(n, rho.max_value());
        SmallPair {
            rho,
            sigma,
            w,
            supported,
        }
    }

    fn dim(&self) -> usize {
        self.rho.dim()
    }

    /// Petz `D̄_α` (Umegaki at α = 1, the Petz limit at ∞) from the Nussbaum–Szkoła terms.
    pub(crate) fn petz(&self, alpha: f64) -> f64 {
        if alpha > 1.0 && !self.supported {
            return f64::INFINITY;
        }
        let n = self.dim();
        let cut = (16.0 * n as f64 * EPS).powi(2);
        let mut terms = [(0.0, 0.0); MAX_TERMS];
        let (mut len, mut kernel_mass) = (0, 0.0);
        for i in (0..n).filter(|&i| self.rho.in_support(i)) {
            let l = self.rho.values[i];
            for j in 0..n {
                let o = self.w.get(j, i).norm_sqr();
                if o <= cut {
                    continue;
                }
                if self.sigma.in_support(j) {
                    terms[len] = (l * o, l.ln() - self.sigma.values[j].ln());
                    len += 1;
                } else if !self.supported {
                    kernel_mass += l * o;
                }
            }
        }
        if kernel_mass > 0.0 {
            terms[len] = (kernel_mass, f64::INFINITY);
            len += 1;
        }
        normalised_mean(&mut terms[..len], alpha)
    }

    /// `ρ' = V_σ† ρ V_σ = (W√Λ)(W√Λ)†` (exactly Hermitian, eigenvalues of ρ at or below its zero
    /// threshold count as 0).
    fn rho_in_basis(&self) -> SmallMatrix {
        let n = self.dim();
        let c = SmallMatrix::from_fn(n, |j, i| self.w.get(j, i) * self.rho.clamped(i).sqrt());
        let mut r = SmallMatrix::zeros(n);
        for x in 0..n {
            for y in 0..=x {
                let z: Complex64 = (0..n).map(|i| c.get(x, i) * c.get(y, i).conj()).sum();
                r.set(x, y, z);
                r.set(y, x, z.conj());
            }
            r.set(x, x, Complex64::new(r.get(x, x).re, 0.0));
        }
        r
    }

    /// The support of σ as indices, with its length.
    fn sigma_support(&self) -> ([usize; SMALL_MAX], usize) {
        let mut s = [0usize; SMALL_MAX];
        let mut len = 0;
        for j in (0..self.dim()).filter(|&j| self.sigma.in_support(j)) {
            s[len] = j;
            len += 1;
        }
        (s, len)
    }

    fn rho_rank(&self) -> usize {
        (0..self.dim()).filter(|&i| self.rho.in_support(i)).count()
    }

    /// Sandwiched `D̃_α` for finite `α > 1` (`None` otherwise); `ρ'` may be passed in (curves).
    pub(crate) fn sandwiched(&self, alpha: f64, rho: Option<&SmallMatrix>) -> Result<Option<f64>> {
        if !(alpha > 1.0 && alpha.is_finite()) {
            return Ok(None);
        }
        if !self.supported {
            return Ok(Some(f64::INFINITY));
        }
        let own;
        let rho = match rho {
            Some(r) => r,
            None => {
                own = self.rho_in_basis();
                &own
            }
        };
        let (s, n) = self.sigma_support();
        let gamma = (1.0 - alpha) / alpha;
        let mut ln_mu = [0.0; SMALL_MAX];
        let mut c = f64::NEG_INFINITY;
        for x in 0..n {
            ln_mu[x] = self.sigma.values[s[x]].ln();
            c = c.max(gamma * ln_mu[x]);
        }
        let c = if c.is_finite() { c } else { 0.0 };
        let mut scale = [0.0; SMALL_MAX];
        for x in 0..n {
            scale[x] = (0.5 * (gamma * ln_mu[x] - c)).exp();
        }
        let a = SmallMatrix::from_fn(n, |x, y| rho.get(s[x], s[y]) * (scale[x] * scale[y]));
        let nu = eigh_small(&a, false)?;
        // rank ρ eigenvalues are genuine (`quantum::top_rank`, supported: floor 0)
        let r = self.rho_rank();
        let mut spec = [(0.0, 0.0); SMALL_MAX];
        let (mut len, mut total) = (0, 0.0);
        for &x in &nu.values()[n.saturating_sub(r)..] {
            if x > 0.0 {
                spec[len] = (x, x.ln() + c);
                total += x;
                len += 1;
            }
        }
        if len == 0 || total <= 0.0 {
            return Ok(Some(f64::INFINITY));
        }
        let mut diag = [(0.0, 0.0); SMALL_MAX];
        for x in 0..n {
            diag[x] = (rho.get(s[x], s[x]).re.max(0.0), -ln_mu[x] / alpha);
        }
        Ok(Some(
            normalised_mean(&mut diag[..n], alpha) + normalised_mean(&mut spec[..len], alpha),
        ))
    }

    /// Maximal `D̂_α` for `α ≥ 1` (Belavkin–Staszewski at 1, `D_max` at ∞) when
    /// `supp ρ ⊆ supp σ`; `None` otherwise.
    pub(crate) fn maximal(&self, alpha: f64) -> Result<Option<f64>> {
        if alpha < 1.0 || !self.supported {
            return Ok(None);
        }
        let rho = self.rho_in_basis();
        let (s, n) = self.sigma_support();
        let mut inv_sqrt = [0.0; SMALL_MAX];
        for x in 0..n {
            inv_sqrt[x] = (-0.5 * self.sigma.values[s[x]].ln()).exp();
        }
        let t = SmallMatrix::from_fn(n, |x, y| rho.get(s[x], s[y]) * (inv_sqrt[x] * inv_sqrt[y]));
        let e = eigh_small(&t, true)?;
        let keep_from = n.saturating_sub(self.rho_rank());
        let tmax = e.values()[keep_from..].iter().copied().fold(0.0, f64::max);
        if alpha == f64::INFINITY {
            return Ok(Some(tmax.ln()));
        }
        let mut terms = [(0.0, 0.0); SMALL_MAX];
        let mut len = 0;
        for k in keep_from..n {
            let tk = e.values[k];
            if !(tk > 0.0 && tk.is_finite()) {
                continue;
            }
            let wk: f64 = (0..n)
                .map(|x| self.sigma.clamped(s[x]) * e.vectors.get(x, k).norm_sqr())
                .sum();
            if wk * tk > 0.0 {
                terms[len] = (wk * tk, tk.ln());
                len += 1;
            }
        }
        Ok(Some(normalised_mean(&mut terms[..len], alpha)))
    }

    /// `D_α` of `family` where the kernel answers (module docs), else `None`.
    pub(crate) fn renyi(&self, family: Family, alpha: f64) -> Result<Option<f64>> {
        match family {
            Family::Petz => Ok(Some(self.petz(alpha))),
            Family::Sandwiched if alpha == 1.0 => Ok(Some(self.petz(1.0))),
            Family::Sandwiched if alpha == f64::INFINITY => self.maximal(alpha),
            Family::Sandwiched => self.sandwiched(alpha, None),
            Family::Maximal => self.maximal(alpha),
        }
    }
}

/// The small-pair kernel for two validated states, when it applies: both on
/// [`Backend::Auto`] and `d ≤` [`SMALL_PAIR_MAX`] (decompositions computed on first use and
/// cached in the states, as `Pair` does).
pub(super) fn pair_of(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<Option<SmallPair>> {
    let d = rho.dim();
    if rho.backend() != Backend::Auto || d > SMALL_PAIR_MAX || d != sigma.dim() {
        return Ok(None);
    }
    Ok(Some(SmallPair::new(
        SmallState::from_eigen(rho.eigen()?),
        SmallState::from_eigen(sigma.eigen()?),
    )))
}

/// `D_α(ρ‖σ)` of `family` by the small-pair kernel, `None` where it declines (module docs).
pub(super) fn renyi(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    family: Family,
    alpha: f64,
) -> Result<Option<f64>> {
    match pair_of(rho, sigma)? {
        Some(p) => p.renyi(family, alpha),
        None => Ok(None),
    }
}

/// A sandwiched α-curve by the small-pair kernel: `ρ'` once, then one `d × d` Jacobi solve per
/// order `α > 1`; `other` answers the remaining orders (α ≤ 1, ∞) on `Pair`'s route. `None` when
/// the kernel does not apply.
pub(super) fn sandwiched_curve(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    alphas: &[f64],
    other: impl Fn(f64) -> Result<f64>,
) -> Result<Option<Vec<f64>>> {
    let Some(p) = pair_of(rho, sigma)? else {
        return Ok(None);
    };
    let r = p.rho_in_basis();
    alphas
        .iter()
        .map(|&a| {
            let small = if a > 1.0 && a.is_finite() {
                p.sandwiched(a, Some(&r))?
            } else {
                p.renyi(Family::Sandwiched, a)?
            };
            small.map_or_else(|| other(a), Ok)
        })
        .collect::<Result<Vec<f64>>>()
        .map(Some)
}
