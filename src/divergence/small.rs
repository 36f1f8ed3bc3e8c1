//! Small pairs (`d ≤` [`SMALL_SPECTRAL_MAX`]): the families from the two decompositions on fixed-size
//! stack arrays (`[[_; d]; d]`, monomorphised per dimension), without heap allocation.
//!
//! The reductions are those of [`Pair`](super::Pair) (`quantum.rs`; derivations in
//! `docs/divergences.md`) — the same support decisions (zero threshold, overlap cutoff,
//! `Tr ρ Π_ker σ` against `τ(d, λ_max(ρ))`), the same Rényi means:
//!
//! * Petz and Umegaki, `d ≤` [`SMALL_PAIR_MAX`]: the `d²` Nussbaum–Szkoła terms
//!   `(λ_i O_ij / W, ln λ_i − ln μ_j)` — the reference evaluation that `Pair`'s factorised forms
//!   certify themselves against;
//! * sandwiched, `α > 1`, `d ≤` [`SMALL_SANDWICHED_MAX`] (LAPACK's values-only solve is ahead
//!   above): `ρ' = (W√Λ)(W√Λ)†` in σ's eigenbasis, one values-only solve of
//!   `D^{γ/2} ρ'_ss D^{γ/2}` (`spectral::small::eigh_small`: Jacobi at 2, Householder + QL
//!   from 3), the diagonal and spectral Rényi means;
//! * maximal, `α ≥ 1`, `supp ρ ⊆ supp σ`: the eigenpairs of `T = D^{−1/2} ρ'_ss D^{−1/2}` and the
//!   weights `w_k = ⟨v_k|σ|v_k⟩`.
//!
//! Everything else **declines** (`None`) and runs on `Pair`'s route: sandwiched and maximal `α < 1`
//! (their small eigenvalues are needed to relative accuracy: SVD with an a-posteriori bound, else
//! the graded Jacobi method), the maximal family of a leaking ρ (Ando's Schur complement), other
//! backends than [`Backend::Auto`] (an explicit backend is a request for that solver), Petz and
//! Umegaki above [`SMALL_PAIR_MAX`] and every family above [`SMALL_SPECTRAL_MAX`].
//! Where the kernel answers, its error is that of the route it replaces: both fixed-size solvers
//! meet the same backward-stable bound as LAPACK (`spectral::small`), and the Rényi means are shared.

// Index loops: the kernels read entries `m[i][j]` and their mirrors `m[j][i]` together.
#![allow(clippy::needless_range_loop)]

use super::Family;
use super::{renyi_mean, RenyiMeans};
use crate::error::Result;
use crate::spectral::small::{csum, eigh_small, with_small_dim, zeros, Mat, SMALL_MAX};
use crate::spectral::{zero_threshold, Backend, Eigen, EPS};
use crate::state::DensityMatrix;
use num_complex::Complex64;

/// Largest dimension at which the small-pair kernel takes Petz and Umegaki (its `d²` Nussbaum–Szkoła
/// terms against `Pair`'s factorised sum): measured where it stops beating `Pair`'s route
/// (docs/PERFORMANCE.md, "Small states").
pub const SMALL_PAIR_MAX: usize = 8;

/// Largest dimension at which the small-pair kernel takes sandwiched α > 1 (its values-only
/// fixed-size solve; LAPACK's `zheevd` values-only is ahead from about 16: docs/PERFORMANCE.md).
pub const SMALL_SANDWICHED_MAX: usize = 12;

/// Largest dimension at which the small-pair kernel takes the families that need an eigensolve of
/// their own (sandwiched α > 1, maximal α ≥ 1; `spectral::small::eigh_small`): measured against
/// `Pair`'s route (docs/PERFORMANCE.md, "Small states").
pub const SMALL_SPECTRAL_MAX: usize = 16;

/// Largest dimension at which a Petz α-curve takes the kernel's `d²` terms and one Rényi mean per
/// order (`SmallPair::petz_curve`) instead of `Pair`'s factorised sum: at `d = 2` both cost
/// `2d = d²` exponentials per order and the kernel skips `Pair`'s tables; at `d = 4` both routes
/// measured the same time, at `d = 8` the factorised sum (`2d` exponentials per order against `d²`) is
/// 2× ahead (docs/PERFORMANCE.md, "curves19").
pub const SMALL_PETZ_CURVE_MAX: usize = 2;

/// One state's decomposition on the stack: eigenvalues ascending, eigenvectors as columns, the
/// zero threshold `τ(d, λ_max)`.
#[derive(Clone, Copy)]
pub(crate) struct SmallState<const N: usize> {
    values: [f64; N],
    vectors: Mat<N>,
    threshold: f64,
}

impl<const N: usize> SmallState<N> {
    /// From a cached [`Eigen`] of dimension `N`.
    pub(crate) fn from_eigen(e: &Eigen) -> Self {
        let (w, v) = (e.values(), e.vectors());
        let mut values = [0.0; N];
        let mut vectors = zeros::<N>();
        for i in 0..N {
            values[i] = w[i];
            for (j, z) in vectors[i].iter_mut().enumerate() {
                *z = v[[i, j]];
            }
        }
        SmallState {
            values,
            vectors,
            threshold: e.threshold(),
        }
    }

    /// From a fixed-size decomposition (zero threshold `τ(N, λ_max)` as [`Eigen`] sets it).
    pub(crate) fn from_small(e: &crate::spectral::small::SmallEigen<N>) -> Self {
        let top = e.values.iter().copied().fold(0.0, f64::max);
        SmallState {
            values: e.values,
            vectors: e.vectors,
            threshold: zero_threshold(N, top),
        }
    }

    /// The smallest eigenvalue (as computed, unclamped).
    pub(crate) fn min_value(&self) -> f64 {
        self.values.iter().copied().fold(f64::INFINITY, f64::min)
    }

    fn max_value(&self) -> f64 {
        self.values.iter().copied().fold(0.0, f64::max)
    }

    /// `λ_i` if above the zero threshold, else 0.
    fn clamped(&self, i: usize) -> f64 {
        if self.values[i] > self.threshold {
            self.values[i]
        } else {
            0.0
        }
    }

    pub(crate) fn in_support(&self, i: usize) -> bool {
        self.values[i] > self.threshold
    }

    /// Eigenvalues (ascending) and eigenvectors (columns).
    pub(crate) fn parts(&self) -> (&[f64; N], &Mat<N>) {
        (&self.values, &self.vectors)
    }
}

/// The value of `Pair`'s direct sandwiched route (`quantum::DirectSandwiched::renyi`) for a
/// full-rank σ: `R_α({ρ'_jj}, {−ln μ_j/α}) + R_α({ν̂_k/Σν̂}, {ln ν̂_k + c})` over every `ν̂ > 0`
/// (`ν̂` the values of `D ρ' D`, `D = diag e^{(γ ln μ_j − c)/2}`); `+∞` when no `ν̂` is positive.
pub(crate) fn direct_sandwiched_value<const N: usize>(
    alpha: f64,
    rho: &Mat<N>,
    ln_mu: &[f64; N],
    nu: &[f64; N],
    c: f64,
) -> Result<f64> {
    let mut spec = [(0.0, 0.0); N];
    let (mut len, mut total) = (0, 0.0);
    for &x in nu {
        if x > 0.0 {
            spec[len] = (x, 0.0);
            total += x;
            len += 1;
        }
    }
    if len == 0 || total <= 0.0 {
        return Ok(f64::INFINITY);
    }
    for (w, l) in spec[..len].iter_mut() {
        *l = w.ln() + c;
        *w /= total;
    }
    let mut diag = [(0.0, 0.0); N];
    for j in 0..N {
        diag[j] = (rho[j][j].re.max(0.0), -ln_mu[j] / alpha);
    }
    Ok(normalised_mean(&mut diag, alpha) + super::renyi_mean(&spec[..len], alpha))
}

/// The maximal reduction on the stack: unnormalised terms `(w_k t_k, ln t_k)`, their number, `t_max`.
pub(crate) type MaximalTerms<const N: usize> = ([(f64, f64); N], usize, f64);

/// A pair of small states with the overlap `W = V_σ† V_ρ` and the support decision.
pub(crate) struct SmallPair<const N: usize> {
    rho: SmallState<N>,
    sigma: SmallState<N>,
    /// `W_ji = ⟨b_j|a_i⟩` (`w[j][i]`).
    w: Mat<N>,
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

impl<const N: usize> SmallPair<N> {
    /// The overlap and the support decision (`Tr ρ Π_ker σ ≤ τ(d, λ_max(ρ))`).
    pub(crate) fn new(rho: SmallState<N>, sigma: SmallState<N>) -> Self {
        let mut w = zeros::<N>();
        for (j, row) in w.iter_mut().enumerate() {
            for (i, z) in row.iter_mut().enumerate() {
                *z = csum::<N>(|k| sigma.vectors[k][j].conj() * rho.vectors[k][i]);
            }
        }
        let leakage: f64 = (0..N)
            .filter(|&j| !sigma.in_support(j))
            .map(|j| {
                let r: f64 = (0..N).map(|i| rho.values[i] * w[j][i].norm_sqr()).sum();
                r.max(0.0)
            })
            .sum();
        let supported = leakage <= zero_threshold(N, rho.max_value());
        SmallPair {
            rho,
            sigma,
            w,
            supported,
        }
    }

    /// Petz `D̄_α` (Umegaki at α = 1, the Petz limit at ∞) from the Nussbaum–Szkoła terms
    /// (`None` above [`SMALL_PAIR_MAX`], where `Pair`'s factorised sum is faster).
    pub(crate) fn petz(&self, alpha: f64) -> Option<f64> {
        if N > SMALL_PAIR_MAX {
            return None;
        }
        if alpha > 1.0 && !self.supported {
            return Some(f64::INFINITY);
        }
        let (mut terms, len) = self.petz_terms();
        Some(normalised_mean(&mut terms[..len], alpha))
    }

    /// A Petz curve (`None` above [`SMALL_PETZ_CURVE_MAX`]): the terms once, then per order the
    /// Rényi mean of [`RenyiMeans`] — bit-identical to [`Self::petz`] at each order
    /// (docs/divergences.md, "renyi_mean_curve").
    pub(crate) fn petz_curve(&self, alphas: &[f64]) -> Option<Vec<f64>> {
        if N > SMALL_PETZ_CURVE_MAX {
            return None;
        }
        let (mut terms, len) = self.petz_terms();
        let terms = &mut terms[..len];
        let total: f64 = terms.iter().map(|(w, _)| w.max(0.0)).sum();
        if total > 0.0 {
            terms.iter_mut().for_each(|(w, _)| *w /= total);
        }
        let means = RenyiMeans::new(terms);
        Some(
            alphas
                .iter()
                .map(|&a| {
                    if a > 1.0 && !self.supported {
                        f64::INFINITY
                    } else {
                        means.at(a)
                    }
                })
                .collect(),
        )
    }

    /// The unnormalised Nussbaum–Szkoła terms `(λ_i O_ij, ln λ_i − ln μ_j)` over overlaps above
    /// `(16Nε)²` (the weight on `ker σ` as one term at `+∞` when ρ leaks) and their count.
    fn petz_terms(&self) -> ([(f64, f64); SMALL_MAX * SMALL_MAX + 1], usize) {
        let cut = (16.0 * N as f64 * EPS).powi(2);
        let mut terms = [(0.0, 0.0); SMALL_MAX * SMALL_MAX + 1];
        let (mut len, mut kernel_mass) = (0, 0.0);
        let mut ln_mu = [0.0; N];
        for j in (0..N).filter(|&j| self.sigma.in_support(j)) {
            ln_mu[j] = self.sigma.values[j].ln();
        }
        for i in (0..N).filter(|&i| self.rho.in_support(i)) {
            let l = self.rho.values[i];
            let ln_l = l.ln();
            for j in 0..N {
                let o = self.w[j][i].norm_sqr();
                if o <= cut {
                    continue;
                }
                if self.sigma.in_support(j) {
                    terms[len] = (l * o, ln_l - ln_mu[j]);
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
        (terms, len)
    }

    /// `ρ' = V_σ† ρ V_σ = (W√Λ)(W√Λ)†` (exactly Hermitian, eigenvalues of ρ at or below its zero
    /// threshold count as 0).
    fn rho_in_basis(&self) -> Mat<N> {
        let mut c = zeros::<N>();
        for (j, row) in c.iter_mut().enumerate() {
            for (i, z) in row.iter_mut().enumerate() {
                *z = self.w[j][i] * self.rho.clamped(i).sqrt();
            }
        }
        let mut r = zeros::<N>();
        for x in 0..N {
            for y in 0..x {
                let z = csum::<N>(|i| c[x][i] * c[y][i].conj());
                r[x][y] = z;
                r[y][x] = z.conj();
            }
            r[x][x] = Complex64::new((0..N).map(|i| c[x][i].norm_sqr()).sum(), 0.0);
        }
        r
    }

    /// The support of σ as indices, with its length.
    fn sigma_support(&self) -> ([usize; N], usize) {
        let mut s = [0usize; N];
        let mut len = 0;
        for j in (0..N).filter(|&j| self.sigma.in_support(j)) {
            s[len] = j;
            len += 1;
        }
        (s, len)
    }

    fn rho_rank(&self) -> usize {
        (0..N).filter(|&i| self.rho.in_support(i)).count()
    }

    /// `f(ρ'_{s_x s_y}) · scale_x · scale_y` on `supp σ`, zero-padded to `N × N` (the padding adds
    /// exact zero eigenvalues, below every kept one, and Jacobi never rotates into it).
    fn on_support(rho: &Mat<N>, s: &[usize; N], n: usize, scale: &[f64; N]) -> Mat<N> {
        let mut a = zeros::<N>();
        for x in 0..n {
            for y in 0..n {
                a[x][y] = rho[s[x]][s[y]] * (scale[x] * scale[y]);
            }
        }
        a
    }

    /// Sandwiched `D̃_α` for finite `α > 1` (`None` otherwise); `ρ'` may be passed in (curves).
    pub(crate) fn sandwiched(&self, alpha: f64, rho: Option<&Mat<N>>) -> Result<Option<f64>> {
        if !(alpha > 1.0 && alpha.is_finite()) || N > SMALL_SANDWICHED_MAX {
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
        let mut ln_mu = [0.0; N];
        let mut c = f64::NEG_INFINITY;
        for x in 0..n {
            ln_mu[x] = self.sigma.values[s[x]].ln();
            c = c.max(gamma * ln_mu[x]);
        }
        let c = if c.is_finite() { c } else { 0.0 };
        let mut scale = [0.0; N];
        for x in 0..n {
            scale[x] = (0.5 * (gamma * ln_mu[x] - c)).exp();
        }
        let nu = eigh_small::<N>(&Self::on_support(rho, &s, n, &scale), false)?;
        // rank ρ eigenvalues are genuine (`quantum::top_rank`, supported: floor 0)
        let r = self.rho_rank();
        let mut spec = [(0.0, 0.0); N];
        let (mut len, mut total) = (0, 0.0);
        for &x in &nu.values[N.saturating_sub(r)..] {
            if x > 0.0 {
                spec[len] = (x, x.ln() + c);
                total += x;
                len += 1;
            }
        }
        if len == 0 || total <= 0.0 {
            return Ok(Some(f64::INFINITY));
        }
        let mut diag = [(0.0, 0.0); N];
        for x in 0..n {
            diag[x] = (rho[s[x]][s[x]].re.max(0.0), -ln_mu[x] / alpha);
        }
        Ok(Some(
            normalised_mean(&mut diag[..n], alpha) + normalised_mean(&mut spec[..len], alpha),
        ))
    }

    /// The maximal reduction `(w_k t_k, ln t_k)` (unnormalised, `len` terms) and `t_max` when
    /// `supp ρ ⊆ supp σ` and `d ≤` [`SMALL_SPECTRAL_MAX`]; `None` otherwise.
    fn maximal_reduction(&self) -> Result<Option<MaximalTerms<N>>> {
        let Some((t, s, n)) = self.maximal_matrix() else {
            return Ok(None);
        };
        let e = eigh_small::<N>(&t, true)?;
        Ok(Some(self.maximal_terms(&e, &s, n)))
    }

    /// The matrix of the maximal reduction, `T = D^{−1/2} ρ' D^{−1/2}` on `supp σ` (zero-padded),
    /// with that support (`sigma_support`), when the reduction applies (`maximal_reduction`).
    pub(crate) fn maximal_matrix(&self) -> Option<(Mat<N>, [usize; N], usize)> {
        if !self.supported || N > SMALL_SPECTRAL_MAX {
            return None;
        }
        let rho = self.rho_in_basis();
        let (s, n) = self.sigma_support();
        let mut inv_sqrt = [0.0; N];
        for x in 0..n {
            inv_sqrt[x] = (-0.5 * self.sigma.values[s[x]].ln()).exp();
        }
        Some((Self::on_support(&rho, &s, n, &inv_sqrt), s, n))
    }

    /// The maximal reduction from `T`'s eigendecomposition `e` (any backward-stable solver with
    /// vectors; `maximal_matrix` gives `T`, `s`, `n`).
    pub(crate) fn maximal_terms(
        &self,
        e: &crate::spectral::small::SmallEigen<N>,
        s: &[usize; N],
        n: usize,
    ) -> MaximalTerms<N> {
        let keep_from = N.saturating_sub(self.rho_rank());
        let tmax = e.values[keep_from..].iter().copied().fold(0.0, f64::max);
        let mut terms = [(0.0, 0.0); N];
        let mut len = 0;
        for k in keep_from..N {
            let tk = e.values[k];
            if !(tk > 0.0 && tk.is_finite()) {
                continue;
            }
            let wk: f64 = (0..n)
                .map(|x| self.sigma.clamped(s[x]) * e.vectors[x][k].norm_sqr())
                .sum();
            if wk * tk > 0.0 {
                terms[len] = (wk * tk, tk.ln());
                len += 1;
            }
        }
        (terms, len, tmax)
    }

    /// Maximal `D̂_α`, α ≥ 1 (`D_max` at ∞), from the reduction (`None`: α < 1).
    pub(crate) fn maximal_from(reduction: &MaximalTerms<N>, alpha: f64) -> Option<f64> {
        let (terms, len, tmax) = reduction;
        if alpha < 1.0 {
            return None;
        }
        if alpha == f64::INFINITY {
            return Some(tmax.ln());
        }
        let mut t = *terms;
        Some(normalised_mean(&mut t[..*len], alpha))
    }

    /// Maximal `D̂_α` for `α ≥ 1` (Belavkin–Staszewski at 1, `D_max` at ∞) when
    /// `supp ρ ⊆ supp σ`; `None` otherwise.
    pub(crate) fn maximal(&self, alpha: f64) -> Result<Option<f64>> {
        if alpha < 1.0 {
            return Ok(None);
        }
        Ok(self
            .maximal_reduction()?
            .and_then(|r| Self::maximal_from(&r, alpha)))
    }

    /// `D_α` of `family` where the kernel answers (module docs), else `None`.
    pub(crate) fn renyi(&self, family: Family, alpha: f64) -> Result<Option<f64>> {
        match family {
            Family::Petz => Ok(self.petz(alpha)),
            Family::Sandwiched if alpha == 1.0 => Ok(self.petz(1.0)),
            Family::Sandwiched if alpha == f64::INFINITY => self.maximal(alpha),
            Family::Sandwiched => self.sandwiched(alpha, None),
            Family::Maximal => self.maximal(alpha),
        }
    }

    /// A sandwiched curve: `ρ'` once, one `N × N` Jacobi solve per order `α > 1`; `other`
    /// answers the orders the kernel declines.
    fn sandwiched_curve(
        &self,
        alphas: &[f64],
        other: impl Fn(f64) -> Result<f64>,
    ) -> Result<Vec<f64>> {
        let r = self.rho_in_basis();
        alphas
            .iter()
            .map(|&a| {
                let small = if a > 1.0 && a.is_finite() {
                    self.sandwiched(a, Some(&r))?
                } else {
                    self.renyi(Family::Sandwiched, a)?
                };
                small.map_or_else(|| other(a), Ok)
            })
            .collect()
    }
}

/// Whether the small-pair kernel may take the pair: both on [`Backend::Auto`] and
/// `d ≤` [`SMALL_SPECTRAL_MAX`] (Petz and Umegaki: `d ≤` [`SMALL_PAIR_MAX`], decided in the kernel).
fn applies(rho: &DensityMatrix, sigma: &DensityMatrix) -> bool {
    rho.backend() == Backend::Auto && rho.dim() <= SMALL_SPECTRAL_MAX && rho.dim() == sigma.dim()
}

/// Whether the kernel takes a sandwiched call: only once ρ is decomposed (otherwise `Pair`'s direct
/// route, which never decomposes ρ, is the cheaper one — `Pair::direct_sandwiched`).
fn sandwiched_applies(rho: &DensityMatrix, family: Family) -> bool {
    family != Family::Sandwiched || rho.is_decomposed()
}

/// The kernel's pair of two validated states (decompositions computed on first use and cached in
/// the states, as `Pair` does).
fn pair_of<const N: usize>(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<SmallPair<N>> {
    Ok(SmallPair::new(
        SmallState::from_eigen(rho.eigen()?),
        SmallState::from_eigen(sigma.eigen()?),
    ))
}

/// `D_α(ρ‖σ)` of `family` by the small-pair kernel, `None` where it declines (module docs).
pub(super) fn renyi(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    family: Family,
    alpha: f64,
) -> Result<Option<f64>> {
    if !applies(rho, sigma) || !sandwiched_applies(rho, family) {
        return Ok(None);
    }
    with_small_dim!(rho.dim(), N => pair_of::<N>(rho, sigma)?.renyi(family, alpha), _ => Ok(None))
}

/// Umegaki `D(ρ‖σ)` by the small-pair kernel (`None` where it does not apply).
pub(super) fn umegaki(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<Option<f64>> {
    if !applies(rho, sigma) {
        return Ok(None);
    }
    with_small_dim!(rho.dim(), N => Ok(pair_of::<N>(rho, sigma)?.petz(1.0)), _ => Ok(None))
}

/// An α-curve of `family` by the small-pair kernel: sandwiched — `ρ'` once, one `d × d` Jacobi
/// solve per order `α > 1`; maximal — the reduction once, `O(d)` per order `α ≥ 1`; `other`
/// answers the orders the kernel declines on `Pair`'s route; Petz (`d ≤` [`SMALL_PETZ_CURVE_MAX`]) — the
/// `d²` terms once, then per order the Rényi mean, bit-identical to the single calls
/// ([`RenyiMeans`]). `None` when the kernel does not apply (Petz above [`SMALL_PETZ_CURVE_MAX`]: `Pair`'s
/// factorised sum).
pub(super) fn curve(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    family: Family,
    alphas: &[f64],
    other: impl Fn(f64) -> Result<f64>,
) -> Result<Option<Vec<f64>>> {
    if !applies(rho, sigma) || !sandwiched_applies(rho, family) {
        return Ok(None);
    }
    if family == Family::Petz && rho.dim() > SMALL_PETZ_CURVE_MAX {
        return Ok(None);
    }
    with_small_dim!(rho.dim(), N => {
        let pair = pair_of::<N>(rho, sigma)?;
        if family == Family::Petz {
            return Ok(pair.petz_curve(alphas));
        }
        if family == Family::Sandwiched {
            return pair.sandwiched_curve(alphas, other).map(Some);
        }
        let Some(red) = pair.maximal_reduction()? else {
            return Ok(None);
        };
        alphas
            .iter()
            .map(|&a| SmallPair::<N>::maximal_from(&red, a).map_or_else(|| other(a), Ok))
            .collect::<Result<Vec<f64>>>()
            .map(Some)
    }, _ => Ok(None))
}
