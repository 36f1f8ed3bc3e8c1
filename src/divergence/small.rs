//! Small pairs (`d ≤` [`SMALL_SPECTRAL_MAX`]): the families from the two decompositions on fixed-size
//! stack arrays (`[[_; d]; d]`, monomorphised per dimension), without heap allocation.
//!
//! The reductions are those of [`Pair`](super::Pair) (`quantum.rs`; derivations in
//! `docs/divergences.md`) — the same support decisions (zero threshold, overlap cutoff,
//! `Tr ρ Π_ker σ` against `τ(d, λ_max(ρ))`), the same Rényi means:
//!
//! * the overlap `W = V_σ†V_ρ` and `ρ' = (W√Λ)(W√Λ)†` on split real and imaginary parts,
//!   vectorised, bit for bit the complex sums (`small_overlap`);
//! * Petz and Umegaki, `d ≤` [`SMALL_PAIR_MAX`]: `Pair`'s factorised sum on the stack
//!   (`petz::PetzStack`, "petz_factorised_small") at finite orders `≠ 1` and for Umegaki, the `d²`
//!   Nussbaum–Szkoła terms `(λ_i O_ij / W, ln λ_i − ln μ_j)` where it declines and at α = 1, ∞;
//!   Petz curves by the same sum, eight orders at a time ("petz_curve_lanes"), each value the
//!   single call's bit for bit;
//! * the root fidelity: `Pair`'s SVD fast path with its a-posteriori bound (`small_fidelity`);
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
//! backends than [`Backend::Auto`] (an explicit backend is a request for that solver), a fidelity
//! whose SVD bound declines, and every family above [`SMALL_SPECTRAL_MAX`].
//! Where the kernel answers, its error is that of the route it replaces: both fixed-size solvers
//! meet the same backward-stable bound as LAPACK (`spectral::small`), and the Rényi means are shared.

// Index loops: the kernels read entries `m[i][j]` and their mirrors `m[j][i]` together.
#![allow(clippy::needless_range_loop)]

use super::petz::{PetzStack, CURVE_LANES};
use super::renyi_mean;
use super::Family;
use crate::error::Result;
use crate::spectral::small::{eigh_small, with_small_dim, zeros, Mat, SmallEigen, SMALL_MAX};
use crate::spectral::{zero_threshold, Backend, Eigen, EPS};
use crate::state::DensityMatrix;
use num_complex::Complex64;

/// Largest dimension at which the small-pair kernel takes Petz and Umegaki: every dimension of the
/// fixed-size kernel since the factorised sum runs on the stack (docs/PERFORMANCE.md,
/// "smallvalue21"; before, the `d²` terms up to 8 and `Pair`'s heap route above).
pub const SMALL_PAIR_MAX: usize = SMALL_SPECTRAL_MAX;

/// Largest dimension at which the small-pair kernel takes sandwiched α > 1 (its values-only
/// fixed-size solve; LAPACK's `zheevd` values-only is ahead from about 16: docs/PERFORMANCE.md).
pub const SMALL_SANDWICHED_MAX: usize = 12;

/// Largest dimension at which the small-pair kernel takes the families that need an eigensolve of
/// their own (sandwiched α > 1, maximal α ≥ 1; `spectral::small::eigh_small`): measured against
/// `Pair`'s route (docs/PERFORMANCE.md, "Small states").
pub const SMALL_SPECTRAL_MAX: usize = 16;

/// Largest dimension at which a Petz α-curve (`Backend::Auto`, decomposed states) takes the kernel
/// (`SmallPair::petz_curve`: the factorised sum on the stack, eight orders per chunk, each value the
/// single call's bit for bit) instead of `Pair`'s heap tables: every dimension of the kernel
/// (docs/PERFORMANCE.md, "curves22"; before, `d ≤ 2` and the `d²` terms).
pub const SMALL_PETZ_CURVE_MAX: usize = SMALL_PAIR_MAX;

/// One state's decomposition on the stack: eigenvalues ascending, eigenvectors as columns, the
/// zero threshold `τ(d, λ_max)`.
#[derive(Clone, Copy)]
pub(crate) struct SmallState<const N: usize> {
    eigen: SmallEigen<N>,
    threshold: f64,
}

impl<const N: usize> SmallState<N> {
    /// All zeros (storage for [`Self::eigen_mut`] and [`Self::settle_threshold`]).
    pub(crate) const fn zeroed() -> Self {
        SmallState {
            eigen: SmallEigen::zeroed(),
            threshold: 0.0,
        }
    }

    /// From a cached [`Eigen`] of dimension `N`.
    pub(crate) fn from_eigen(e: &Eigen) -> Self {
        let (w, v) = (e.values(), e.vectors());
        let mut state = Self::zeroed();
        for i in 0..N {
            state.eigen.values[i] = w[i];
            for (j, z) in state.eigen.vectors[i].iter_mut().enumerate() {
                *z = v[[i, j]];
            }
        }
        state.threshold = e.threshold();
        state
    }

    /// From a fixed-size decomposition (zero threshold `τ(N, λ_max)` as [`Eigen`] sets it).
    pub(crate) fn from_small(e: &SmallEigen<N>) -> Self {
        let mut state = SmallState {
            eigen: *e,
            threshold: 0.0,
        };
        state.settle_threshold();
        state
    }

    /// The decomposition, to be written in place by a fixed-size solver; [`Self::settle_threshold`]
    /// afterwards makes the state [`Self::from_small`]'s of what was written.
    pub(crate) fn eigen_mut(&mut self) -> &mut SmallEigen<N> {
        &mut self.eigen
    }

    /// The zero threshold `τ(N, λ_max)` of the decomposition held ([`Self::from_small`]'s).
    pub(crate) fn settle_threshold(&mut self) {
        let top = self.eigen.values.iter().copied().fold(0.0, f64::max);
        self.threshold = zero_threshold(N, top);
    }

    /// The smallest eigenvalue (as computed, unclamped).
    pub(crate) fn min_value(&self) -> f64 {
        self.eigen
            .values
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
    }

    pub(crate) fn in_support(&self, i: usize) -> bool {
        self.eigen.values[i] > self.threshold
    }

    /// Eigenvalues (ascending) and eigenvectors (columns).
    pub(crate) fn parts(&self) -> (&[f64; N], &Mat<N>) {
        (&self.eigen.values, &self.eigen.vectors)
    }
}

/// One state's eigenvalues (ascending) and zero threshold: what [`SmallPair`] keeps of it once the
/// overlap is formed.
#[derive(Clone, Copy)]
pub(crate) struct SmallSpectrum<const N: usize> {
    values: [f64; N],
    threshold: f64,
}

impl<const N: usize> SmallSpectrum<N> {
    /// From a cached [`Eigen`] of dimension `N`.
    fn from_eigen(e: &Eigen) -> Self {
        let mut values = [0.0; N];
        for (x, &v) in values.iter_mut().zip(e.values()) {
            *x = v;
        }
        SmallSpectrum {
            values,
            threshold: e.threshold(),
        }
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

    fn in_support(&self, i: usize) -> bool {
        self.values[i] > self.threshold
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
    rho: SmallSpectrum<N>,
    sigma: SmallSpectrum<N>,
    /// `W_ji = ⟨b_j|a_i⟩` (`w.re[j][i]`, `w.im[j][i]`).
    w: Split<N>,
    supported: bool,
}

/// A complex `N × N` matrix on split real and imaginary parts (the overlap `W`).
#[derive(Clone, Copy)]
pub(crate) struct Split<const N: usize> {
    pub(crate) re: [[f64; N]; N],
    pub(crate) im: [[f64; N]; N],
}

impl<const N: usize> Split<N> {
    /// `|z|² = re² + im²` of entry `(j, i)` (as `Complex64::norm_sqr`).
    #[inline(always)]
    pub(crate) fn norm_sqr(&self, j: usize, i: usize) -> f64 {
        self.re[j][i] * self.re[j][i] + self.im[j][i] * self.im[j][i]
    }
}

/// The indices of a state's support (eigenvalues above its zero threshold), ascending, with their
/// number.
fn support_of<const N: usize>(state: &SmallSpectrum<N>) -> ([usize; N], usize) {
    let mut s = [0usize; N];
    let mut len = 0;
    for j in (0..N).filter(|&j| state.in_support(j)) {
        s[len] = j;
        len += 1;
    }
    (s, len)
}

/// The inputs of [`overlap`] on split real and imaginary parts: `V_σ` transposed (`ar[j][k] + i
/// ai[j][k] = V_σ[k][j]`) and `V_ρ` (`br[k][i] + i bi[k][i] = V_ρ[k][i]`).
pub(crate) struct Planar<const N: usize> {
    ar: [[f64; N]; N],
    ai: [[f64; N]; N],
    br: [[f64; N]; N],
    bi: [[f64; N]; N],
}

impl<const N: usize> Planar<N> {
    fn zeroed() -> Self {
        Planar {
            ar: [[0.0; N]; N],
            ai: [[0.0; N]; N],
            br: [[0.0; N]; N],
            bi: [[0.0; N]; N],
        }
    }
}

/// The overlap `W = V_σ† V_ρ` (`W_ji = Σ_k conj(V_σ[k][j]) V_ρ[k][i]`, `small_overlap`): row `j`
/// of `W` accumulates, for `k = 0, 1, …` in order, row `k` of `V_ρ` times `conj(V_σ[k][j])` — on
/// split real and imaginary parts, so the inner loop runs along contiguous rows (vectorised; the
/// AVX2 build where the CPU has it). Every entry is the sum over `k = 0, 1, …` of
/// `(a_r b_r + a_i b_i) + i(a_r b_i − a_i b_r)`, the operations of `Σ_k conj(a_k) b_k` in complex
/// arithmetic (`num_complex`) in the same order: the same value bit for bit (test
/// `small_overlap_and_gram_are_bitwise`).
#[inline(always)]
pub(crate) fn overlap<const N: usize>(p: &Planar<N>) -> Split<N> {
    #[cfg(target_arch = "x86_64")]
    {
        if N >= 4 && std::arch::is_x86_feature_detected!("avx2") {
            let mut w = Split {
                re: [[0.0; N]; N],
                im: [[0.0; N]; N],
            };
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { overlap_avx2(p, &mut w) };
            return w;
        }
    }
    let mut w = Split {
        re: [[0.0; N]; N],
        im: [[0.0; N]; N],
    };
    overlap_body(p, &mut w);
    w
}

/// [`overlap_body`] compiled for AVX2 (the same operations; Rust contracts no `a·b + c`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn overlap_avx2<const N: usize>(p: &Planar<N>, w: &mut Split<N>) {
    overlap_body(p, w)
}

/// `w += V_σ† V_ρ` (`w` zero on entry).
#[inline(always)]
fn overlap_body<const N: usize>(p: &Planar<N>, w: &mut Split<N>) {
    for j in 0..N {
        let (wr, wi) = (&mut w.re[j], &mut w.im[j]);
        let (arj, aij) = (&p.ar[j], &p.ai[j]);
        for k in 0..N {
            let (a_r, a_i) = (arj[k], aij[k]);
            let (brk, bik) = (&p.br[k], &p.bi[k]);
            for i in 0..N {
                wr[i] += a_r * brk[i] + a_i * bik[i];
                wi[i] += a_r * bik[i] - a_i * brk[i];
            }
        }
    }
}

/// `ρ' = V†HV` for a Hermitian `H` and a unitary `V` (the direct sandwiched route's change of
/// basis, [`sandwiched_from_raw`](super::from_matrices::sandwiched_from_raw)): both products on
/// split real and imaginary parts by [`overlap`] — `P = HV` (`P_ji = Σ_k conj(H_kj) V_ki`, `H`
/// Hermitian), then `V†P` — each entry a sum over `k = 0, 1, …` in complex arithmetic's order; the
/// lower triangle is kept and mirrored, the diagonal's imaginary part dropped (exactly Hermitian).
/// `2N³` complex multiply–adds on the stack, vectorised along rows (AVX2 where the CPU has it): no
/// heap matrix and no BLAS call.
pub(crate) fn congruence_split<const N: usize>(h: &Mat<N>, v: &Mat<N>) -> Mat<N> {
    let mut p = Planar::<N>::zeroed();
    for k in 0..N {
        for j in 0..N {
            p.ar[j][k] = h[k][j].re;
            p.ai[j][k] = h[k][j].im;
            p.br[k][j] = v[k][j].re;
            p.bi[k][j] = v[k][j].im;
        }
    }
    let hv = overlap(&p);
    for k in 0..N {
        for j in 0..N {
            p.ar[j][k] = v[k][j].re;
            p.ai[j][k] = v[k][j].im;
        }
    }
    p.br = hv.re;
    p.bi = hv.im;
    let w = overlap(&p);
    let mut r = zeros::<N>();
    for x in 0..N {
        for y in 0..x {
            let z = Complex64::new(w.re[x][y], w.im[x][y]);
            r[x][y] = z;
            r[y][x] = z.conj();
        }
        r[x][x] = Complex64::new(w.re[x][x], 0.0);
    }
    r
}

/// `C C†` for `C = W diag(root)` (`ρ' = (W√Λ)(W√Λ)†`, `small_overlap`): exactly Hermitian, real
/// diagonal `Σ_i |c_xi|²`; the entries below the diagonal `Σ_i c_xi conj(c_yi)` summed over
/// `i = 0, 1, …` as complex arithmetic sums them, all `y < x` of one row at once on split parts
/// (vectorised along `y`; the AVX2 build where the CPU has it) — the same value bit for bit.
pub(crate) fn gram_scaled<const N: usize>(w: &Split<N>, root: &[f64; N]) -> Mat<N> {
    #[cfg(target_arch = "x86_64")]
    {
        if N >= 4 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { gram_scaled_avx2(w, root) };
        }
    }
    gram_scaled_body(w, root)
}

/// [`gram_scaled_body`] compiled for AVX2 (the same operations).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gram_scaled_avx2<const N: usize>(w: &Split<N>, root: &[f64; N]) -> Mat<N> {
    gram_scaled_body(w, root)
}

#[inline(always)]
fn gram_scaled_body<const N: usize>(w: &Split<N>, root: &[f64; N]) -> Mat<N> {
    // transposed split parts of C: tr[i][y] + i ti[i][y] = c_yi = W_yi √λ_i (complex × real)
    let (mut tr, mut ti) = ([[0.0; N]; N], [[0.0; N]; N]);
    for y in 0..N {
        for i in 0..N {
            tr[i][y] = w.re[y][i] * root[i];
            ti[i][y] = w.im[y][i] * root[i];
        }
    }
    let mut r = zeros::<N>();
    for x in 0..N {
        // the whole row (fixed length: vectorised), of which the entries y < x and the diagonal
        // (y = x: `ar·ar + ai·ai`, the operations of `|c_xi|²`) are used
        let (mut sr, mut si) = ([0.0; N], [0.0; N]);
        for i in 0..N {
            let (ar, ai) = (tr[i][x], ti[i][x]);
            let (tri, tii) = (&tr[i], &ti[i]);
            for y in 0..N {
                sr[y] += ar * tri[y] + ai * tii[y];
                si[y] += ai * tri[y] - ar * tii[y];
            }
        }
        for y in 0..x {
            let z = Complex64::new(sr[y], si[y]);
            r[x][y] = z;
            r[y][x] = z.conj();
        }
        r[x][x] = Complex64::new(sr[x], 0.0);
    }
    r
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
    pub(crate) fn new(rho: &SmallState<N>, sigma: &SmallState<N>) -> Self {
        let mut p = Planar::<N>::zeroed();
        let (vr, vs) = (&rho.eigen.vectors, &sigma.eigen.vectors);
        for k in 0..N {
            for i in 0..N {
                (p.br[k][i], p.bi[k][i]) = (vr[k][i].re, vr[k][i].im);
                (p.ar[i][k], p.ai[i][k]) = (vs[k][i].re, vs[k][i].im);
            }
        }
        let spectrum = |s: &SmallState<N>| SmallSpectrum {
            values: s.eigen.values,
            threshold: s.threshold,
        };
        Self::from_overlap(spectrum(rho), spectrum(sigma), overlap(&p))
    }

    /// From two cached decompositions of dimension `N`, their vectors read straight into the
    /// overlap's split arrays (no complex copy of either).
    fn from_eigens(er: &Eigen, es: &Eigen) -> Self {
        let mut p = Planar::<N>::zeroed();
        let (vr, vs) = (er.vectors(), es.vectors());
        for k in 0..N {
            for i in 0..N {
                let (b, a) = (vr[[k, i]], vs[[k, i]]);
                (p.br[k][i], p.bi[k][i]) = (b.re, b.im);
                (p.ar[i][k], p.ai[i][k]) = (a.re, a.im);
            }
        }
        Self::from_overlap(
            SmallSpectrum::from_eigen(er),
            SmallSpectrum::from_eigen(es),
            overlap(&p),
        )
    }

    /// The support decision from the overlap `w`.
    #[inline(always)]
    fn from_overlap(rho: SmallSpectrum<N>, sigma: SmallSpectrum<N>, w: Split<N>) -> Self {
        let leakage: f64 = (0..N)
            .filter(|&j| !sigma.in_support(j))
            .map(|j| {
                let r: f64 = (0..N).map(|i| rho.values[i] * w.norm_sqr(j, i)).sum();
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

    /// Petz `D̄_α` (Umegaki at α = 1, the Petz limit at ∞): `Pair`'s route on the stack — the
    /// factorised sum ([`PetzStack`]) at finite orders `≠ 1`, the Nussbaum–Szkoła terms where it
    /// declines and at 1 and ∞.
    pub(crate) fn petz(&self, alpha: f64) -> Option<f64> {
        if alpha > 1.0 && !self.supported {
            return Some(f64::INFINITY);
        }
        if alpha.is_finite() && alpha != 1.0 {
            if let Some(v) = self.petz_factorised().renyi(alpha) {
                return Some(v);
            }
        }
        let (mut terms, len) = self.petz_terms();
        Some(normalised_mean(&mut terms[..len], alpha))
    }

    /// Umegaki `D(ρ‖σ)`: `Pair::umegaki`'s route — the factorised sum when `supp ρ ⊆ supp σ` and
    /// it is finite, else the terms.
    pub(crate) fn umegaki(&self) -> f64 {
        if self.supported {
            if let Some(v) = self.petz_factorised().umegaki() {
                return v;
            }
        }
        let (mut terms, len) = self.petz_terms();
        normalised_mean(&mut terms[..len], 1.0)
    }

    /// The factorised Petz data of `Pair::petz_factors` on the stack: `λ` on `supp ρ`, `ln μ` on
    /// `supp σ`, the overlaps `O_ij = |W_ji|²` above the cutoff `(16Nε)²` (else 0) and, when ρ
    /// leaks, its weight `K` on `ker σ`.
    fn petz_factorised(&self) -> PetzStack<N> {
        let cut = (16.0 * N as f64 * EPS).powi(2);
        let overlap = |j: usize, i: usize| {
            let o = self.w.norm_sqr(j, i);
            if o > cut {
                o
            } else {
                0.0
            }
        };
        let (rs, r) = support_of(&self.rho);
        let (ss, s) = support_of(&self.sigma);
        let mut lambda = [0.0; N];
        for x in 0..r {
            lambda[x] = self.rho.values[rs[x]];
        }
        let mut ln_mu = [0.0; N];
        for y in 0..s {
            ln_mu[y] = self.sigma.clamped(ss[y]).ln();
        }
        let mut ot = [[0.0; N]; N];
        for y in 0..s {
            for x in 0..r {
                ot[y][x] = overlap(ss[y], rs[x]);
            }
        }
        let mut kernel_mass = 0.0;
        if !self.supported {
            for j in (0..N).filter(|&j| !self.sigma.in_support(j)) {
                for x in 0..r {
                    kernel_mass += lambda[x] * overlap(j, rs[x]);
                }
            }
        }
        PetzStack::new(lambda, r, ln_mu, s, ot, kernel_mass)
    }

    /// A Petz curve: [`Self::petz`] at every order, bit for bit — the factorised sum's data once,
    /// its far form [`CURVE_LANES`] orders at a time ([`PetzStack::renyi_chunk`]), the terms where
    /// it declines and at 1 and ∞ (docs/divergences.md, "petz_curve_lanes").
    pub(crate) fn petz_curve(&self, alphas: &[f64]) -> Vec<f64> {
        let factors = self.petz_factorised();
        let mut out = vec![f64::NAN; alphas.len()];
        // the orders waiting for a chunk: (index, α)
        let mut pending = [(0usize, 0.0f64); CURVE_LANES];
        let mut len = 0;
        let flush = |pending: &[(usize, f64)], out: &mut [f64]| {
            let last = pending[pending.len() - 1].1;
            let a = std::array::from_fn(|l| pending.get(l).map_or(last, |p| p.1));
            for (&(c, a), v) in pending.iter().zip(factors.renyi_chunk(a)) {
                out[c] = v.unwrap_or_else(|| self.petz_terms_mean(a));
            }
        };
        for (c, &a) in alphas.iter().enumerate() {
            if a > 1.0 && !self.supported {
                out[c] = f64::INFINITY;
            } else if a.is_finite() && a != 1.0 {
                pending[len] = (c, a);
                len += 1;
                if len == CURVE_LANES {
                    flush(&pending, &mut out);
                    len = 0;
                }
            } else {
                out[c] = self.petz_terms_mean(a);
            }
        }
        if len > 0 {
            flush(&pending[..len], &mut out);
        }
        out
    }

    /// The Rényi mean of the normalised Nussbaum–Szkoła terms at `alpha`.
    fn petz_terms_mean(&self, alpha: f64) -> f64 {
        let (mut terms, len) = self.petz_terms();
        normalised_mean(&mut terms[..len], alpha)
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
                let o = self.w.norm_sqr(j, i);
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
        let mut root = [0.0; N];
        for (i, x) in root.iter_mut().enumerate() {
            *x = self.rho.clamped(i).sqrt();
        }
        gram_scaled(&self.w, &root)
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
        let nu = super::difference::intermediate_values_fixed::<N>(&Self::on_support(
            rho, &s, n, &scale,
        ))?;
        // rank ρ eigenvalues are genuine (`quantum::top_rank`, supported: floor 0)
        let r = self.rho_rank();
        let mut spec = [(0.0, 0.0); N];
        let (mut len, mut total) = (0, 0.0);
        for &x in &nu[N.saturating_sub(r)..] {
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
            // `Pair::sandwiched` at 1 is `Pair::umegaki`
            Family::Sandwiched if alpha == 1.0 => Ok(Some(self.umegaki())),
            Family::Sandwiched if alpha == f64::INFINITY => self.maximal(alpha),
            Family::Sandwiched => self.sandwiched(alpha, None),
            Family::Maximal => self.maximal(alpha),
        }
    }

    /// The root fidelity `F = e^{c/2} Σ_k s_k` by `Pair::fidelity`'s fast path
    /// (`SandwichedView::below_one` at α = ½, `small_fidelity`): `s` the singular values of
    /// `B = D^{1/2} W_{s, supp ρ} Λ^{1/2}` on `supp σ × supp ρ` (`D = diag e^{ln μ − c}`,
    /// `c = max ln μ`), one values-only SVD of `backend` (`Backend::Auto`: nalgebra below 16,
    /// `zgesdd` from 16), kept when the a-posteriori bound `sandwiched_svd_bound` at α = ½ is at
    /// most `32 n ε`; `None` when it is not (the caller then takes the graded route). The same
    /// arithmetic as `Pair`'s route from the overlap on (the overlap itself is the kernel's,
    /// equal to `zgemm`'s to rounding).
    fn fidelity(&self, backend: Backend) -> Result<Option<f64>> {
        use super::quantum::{fast_below_one_tolerance, sandwiched_svd_bound};
        use crate::spectral::EigenSolver;
        let (s, n) = support_of(&self.sigma);
        let (rs, r) = support_of(&self.rho);
        let mut ln_mu = [0.0; N];
        let mut c = f64::NEG_INFINITY;
        for x in 0..n {
            ln_mu[x] = self.sigma.clamped(s[x]).ln();
            c = c.max(ln_mu[x]);
        }
        let c = if c.is_finite() { c } else { 0.0 };
        let mut scale = [0.0; N];
        let mut smax = 0.0f64;
        for x in 0..n {
            scale[x] = (0.5 * (ln_mu[x] - c)).exp();
            smax = smax.max(scale[x]);
        }
        let mut root = [0.0; N];
        for y in 0..r {
            root[y] = self.rho.values[rs[y]].sqrt();
        }
        let bm = ndarray::Array2::from_shape_fn((n, r), |(x, y)| {
            let (j, i) = (s[x], rs[y]);
            Complex64::new(self.w.re[j][i], self.w.im[j][i]) * (scale[x] * root[y])
        });
        let sv = backend.singular_values(bm.view())?;
        let floor = if self.supported {
            0.0
        } else {
            zero_threshold(n, self.rho.max_value().sqrt() * smax)
        };
        let mut kept = [0.0; N];
        let mut len = 0;
        for &x in sv.iter().filter(|&&x| x > floor) {
            kept[len] = x;
            len += 1;
        }
        let kept = &kept[..len];
        let top = kept.iter().copied().fold(0.0f64, f64::max);
        let delta = n.max(2) as f64 * EPS * top;
        let missing = r.min(n).saturating_sub(len);
        let orthogonal = kept.is_empty() && !self.supported;
        if !(orthogonal
            || sandwiched_svd_bound(kept, delta, 0.5, missing) <= fast_below_one_tolerance(n))
        {
            return Ok(None);
        }
        Ok(Some(
            (0.5 * c).exp() * kept.iter().map(|x| (x * x).sqrt()).sum::<f64>(),
        ))
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
/// `d ≤` [`SMALL_SPECTRAL_MAX`].
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
    Ok(SmallPair::from_eigens(rho.eigen()?, sigma.eigen()?))
}

/// The value of `quantity` from two fixed-size decompositions of validated states (the route of
/// `from_matrices::small_pair_from_matrices`): `Pair::renyi(Family::Petz, α)` /
/// `Pair::umegaki` through this kernel, bit for bit (`SmallPair::new` on the stack states is
/// `pair_of` on the cached `Eigen`s built from them); `None` where the kernel declines.
pub(crate) fn small_pair_value<const N: usize>(
    rho: &crate::spectral::small::SmallEigen<N>,
    sigma: &crate::spectral::small::SmallEigen<N>,
    quantity: super::from_matrices::SmallQuantity,
) -> Option<f64> {
    use super::from_matrices::SmallQuantity;
    let pair = SmallPair::new(&SmallState::from_small(rho), &SmallState::from_small(sigma));
    match quantity {
        SmallQuantity::Petz(alpha) => pair.petz(alpha),
        SmallQuantity::Umegaki => Some(pair.umegaki()),
    }
}

/// Whether [`SmallPair::renyi`] can answer `family` at `alpha` in dimension `d` (it may still
/// decline for the pair: maximal with a leaking ρ) — checked before the pair's overlap is formed,
/// so a call the kernel declines does not pay for it.
fn may_answer(family: Family, alpha: f64, d: usize) -> bool {
    match family {
        Family::Petz => true,
        Family::Sandwiched => {
            alpha == 1.0 || alpha == f64::INFINITY || (alpha > 1.0 && d <= SMALL_SANDWICHED_MAX)
        }
        Family::Maximal => alpha >= 1.0,
    }
}

/// `D_α(ρ‖σ)` of `family` by the small-pair kernel, `None` where it declines (module docs).
pub(super) fn renyi(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    family: Family,
    alpha: f64,
) -> Result<Option<f64>> {
    if !applies(rho, sigma)
        || !sandwiched_applies(rho, family)
        || !may_answer(family, alpha, rho.dim())
    {
        return Ok(None);
    }
    with_small_dim!(rho.dim(), N => pair_of::<N>(rho, sigma)?.renyi(family, alpha), _ => Ok(None))
}

/// Umegaki `D(ρ‖σ)` by the small-pair kernel (`None` where it does not apply).
pub(super) fn umegaki(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<Option<f64>> {
    if !applies(rho, sigma) {
        return Ok(None);
    }
    with_small_dim!(rho.dim(), N => Ok(pair_of::<N>(rho, sigma)?.umegaki().into()), _ => Ok(None))
}

/// The root fidelity by the small-pair kernel (`SmallPair::fidelity`), `None` where it does not
/// apply (`d > 16`, another backend than `Auto`) or its SVD's a-posteriori bound declines.
pub(super) fn fidelity(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<Option<f64>> {
    if !applies(rho, sigma) {
        return Ok(None);
    }
    with_small_dim!(rho.dim(), N => pair_of::<N>(rho, sigma)?.fidelity(rho.backend()), _ => Ok(None))
}

/// An α-curve of `family` by the small-pair kernel: sandwiched — `ρ'` once, one `d × d` Jacobi
/// solve per order `α > 1`; maximal — the reduction once, `O(d)` per order `α ≥ 1`; `other`
/// answers the orders the kernel declines on `Pair`'s route; Petz — the factorised sum's data
/// once, eight orders per chunk, bit-identical to the single calls (`SmallPair::petz_curve`).
/// `None` when the kernel does not apply.
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
    with_small_dim!(rho.dim(), N => {
        let pair = pair_of::<N>(rho, sigma)?;
        if family == Family::Petz {
            return Ok(Some(pair.petz_curve(alphas)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spectral::small::csum;
    use rand::{Rng, SeedableRng};

    /// The overlap as complex arithmetic forms it (the kernel's code before `small_overlap`).
    fn overlap_reference<const N: usize>(sigma: &Mat<N>, rho: &Mat<N>) -> Mat<N> {
        let mut w = zeros::<N>();
        for (j, row) in w.iter_mut().enumerate() {
            for (i, z) in row.iter_mut().enumerate() {
                *z = csum::<N>(|k| sigma[k][j].conj() * rho[k][i]);
            }
        }
        w
    }

    /// `ρ'` as complex arithmetic forms it (the kernel's code before `small_overlap`).
    fn gram_reference<const N: usize>(w: &Mat<N>, root: &[f64; N]) -> Mat<N> {
        let mut c = zeros::<N>();
        for (j, row) in c.iter_mut().enumerate() {
            for (i, z) in row.iter_mut().enumerate() {
                *z = w[j][i] * root[i];
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

    fn check<const N: usize>(rng: &mut rand_chacha::ChaCha8Rng) {
        let mut random = || {
            let mut m = zeros::<N>();
            for row in m.iter_mut() {
                for z in row.iter_mut() {
                    // signed zeros and exact zeros included
                    *z = match rng.random_range(0..20) {
                        0 => Complex64::new(0.0, -0.0),
                        1 => Complex64::new(-0.0, 0.0),
                        _ => {
                            Complex64::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))
                        }
                    };
                }
            }
            m
        };
        let (a, b) = (random(), random());
        let mut p = Planar::<N>::zeroed();
        for k in 0..N {
            for i in 0..N {
                (p.br[k][i], p.bi[k][i]) = (b[k][i].re, b[k][i].im);
                (p.ar[i][k], p.ai[i][k]) = (a[k][i].re, a[k][i].im);
            }
        }
        let w = overlap(&p);
        let mut portable = Split {
            re: [[0.0; N]; N],
            im: [[0.0; N]; N],
        };
        overlap_body(&p, &mut portable);
        let want = overlap_reference(&a, &b);
        let mut wc = zeros::<N>();
        for j in 0..N {
            for i in 0..N {
                let z = want[j][i];
                assert_eq!(w.re[j][i].to_bits(), z.re.to_bits(), "N={N} W re ({j},{i})");
                assert_eq!(w.im[j][i].to_bits(), z.im.to_bits(), "N={N} W im ({j},{i})");
                assert_eq!(portable.re[j][i].to_bits(), z.re.to_bits());
                assert_eq!(portable.im[j][i].to_bits(), z.im.to_bits());
                wc[j][i] = z;
            }
        }
        let mut root = [0.0; N];
        for (i, x) in root.iter_mut().enumerate() {
            *x = if i % 5 == 3 {
                0.0
            } else {
                rng.random_range(0.0..1.0)
            };
        }
        let (got, want) = (gram_scaled(&w, &root), gram_reference(&wc, &root));
        let portable = gram_scaled_body(&w, &root);
        for x in 0..N {
            for y in 0..N {
                for (g, p, r) in [
                    (got[x][y].re, portable[x][y].re, want[x][y].re),
                    (got[x][y].im, portable[x][y].im, want[x][y].im),
                ] {
                    assert_eq!(g.to_bits(), r.to_bits(), "N={N} ρ' ({x},{y})");
                    assert_eq!(p.to_bits(), r.to_bits(), "N={N} ρ' portable ({x},{y})");
                }
            }
        }
    }

    /// `small_overlap_and_gram_are_bitwise`: [`overlap`] and [`gram_scaled`] (AVX2 and portable
    /// builds) give the complex-arithmetic sums `Σ_k conj(a_kj) b_ki` and `Σ_i c_xi conj(c_yi)`,
    /// `Σ_i |c_xi|²` bit for bit at every dimension 1…16 (zeros and signed zeros included).
    #[test]
    fn small_overlap_and_gram_are_bitwise() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
        for _ in 0..20 {
            check::<1>(&mut rng);
            check::<2>(&mut rng);
            check::<3>(&mut rng);
            check::<4>(&mut rng);
            check::<5>(&mut rng);
            check::<7>(&mut rng);
            check::<8>(&mut rng);
            check::<9>(&mut rng);
            check::<12>(&mut rng);
            check::<13>(&mut rng);
            check::<16>(&mut rng);
        }
    }
}
