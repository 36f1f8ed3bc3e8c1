//! The root fidelity at `d ≤ 16` from two Cholesky factors (docs/divergences.md,
//! "fidelity_cholesky").
//!
//! With `ρ = L_ρL_ρ†` and `σ = L_σL_σ†`, `√ρ = L_ρU` and `√σ = L_σV` for unitaries `U`, `V` (polar
//! decompositions of the factors), so `‖√ρ√σ‖₁ = ‖U†L_ρ†L_σV‖₁ = ‖L_ρ†L_σ‖₁`: the root fidelity is
//! the sum of the singular values of `B = L_ρ†L_σ` — two Cholesky factorisations, one triangular
//! product and one `d × d` SVD instead of two eigendecompositions with vectors, the overlap and
//! the SVD. The route answers only where both states are certified of full rank (so the eigen
//! route, too, sees every eigenvalue above its zero threshold: the same quantity) and its
//! a-posteriori bound is within the documented bound at a certified lower bound of κ; elsewhere
//! it declines and the eigen route runs.

// Index loops: the kernels read entries `m[i][j]` and their mirrors `m[j][i]` together.
#![allow(clippy::needless_range_loop)]

use super::accuracy::complex_backward;
use super::order_two::certificate_shift;
use super::whitened::{cholesky, full_rank_certificate, kappa_lower_bound, lower_inverse, Split};
use crate::spectral::small::{Mat, SMALL_MAX};
use crate::spectral::EPS;
use crate::state::DensityMatrix;
use num_complex::Complex64;

/// Largest dimension of the Cholesky route (stack arrays up to the SVD).
pub const FIDELITY_CHOLESKY_MAX: usize = SMALL_MAX;

/// The route's value and the parts of its decision (tests).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FidelityCholesky {
    /// `F̂ = Σ_k ŝ_k`.
    pub value: f64,
    /// The a-posteriori bound on `|F̂ − F(ρ, σ)|` ([`fidelity_cholesky`]).
    pub bound: f64,
    /// The documented bound of `D̃_½ = −2 ln F` at the certified κ lower bound, turned into one
    /// on `F` (`F̂ (1 − e^{−b/2})`); the route answers where `bound ≤ documented`.
    pub documented: f64,
}

impl FidelityCholesky {
    /// The value where the route's bound is within the documented one (`None`: the eigen route).
    pub fn certified(&self) -> Option<f64> {
        (self.bound <= self.documented).then_some(self.value)
    }
}

/// Whether the Cholesky route may run for the pair: `Backend::Auto` on the host for both, equal
/// dimensions `1 ≤ d ≤` [`FIDELITY_CHOLESKY_MAX`], not both states decomposed already (then the
/// small-pair kernel's remaining work is one product and the SVD).
pub(crate) fn applies(rho: &DensityMatrix, sigma: &DensityMatrix) -> bool {
    rho.dim() <= FIDELITY_CHOLESKY_MAX && super::order_two::host_pair(rho, sigma)
}

/// The root fidelity of two validated states by the Cholesky route with its a-posteriori bound
/// and decision (`None`: a factorisation fails, a state is not certified of full rank, the SVD
/// fails, or `d >` [`FIDELITY_CHOLESKY_MAX`]).
pub fn fidelity_cholesky(rho: &DensityMatrix, sigma: &DensityMatrix) -> Option<FidelityCholesky> {
    let d = rho.dim();
    if d != sigma.dim() || d == 0 || d > FIDELITY_CHOLESKY_MAX {
        return None;
    }
    crate::spectral::small::with_small_dim!(d, N => {
        let (r, s) = (rho.matrix(), sigma.matrix());
        let mut rm = [[Complex64::new(0.0, 0.0); N]; N];
        let mut sm = rm;
        for i in 0..N {
            for j in 0..N {
                rm[i][j] = r[[i, j]];
                sm[i][j] = s[[i, j]];
            }
        }
        fidelity_small::<N>(&rm, &sm)
    }, _ => None)
}

/// One state's factor, inverse and backward-error parts.
struct Factor<const N: usize> {
    l: Mat<N>,
    x: Split<N>,
    /// `η = ‖E‖/λ_min`: `(1 − η)A ≤ A + E ≤ (1 + η)A` for the factorisation's `L̂L̂† = A + E`.
    eta: f64,
    /// `‖L̂‖_F`.
    frob: f64,
    /// A cheap lower bound of `κ(A)`: `max_i a_ii ≤ λ_max` times the largest squared row or
    /// column norm of `X = L̂⁻¹` (each `≤ ‖X‖²`), less rounding, over `1 + η`.
    kappa_cheap: f64,
}

/// The certified factor of one state (lower triangle of `a` read), `None` where
/// [`full_rank_certificate`] fails.
fn factor<const N: usize>(a: &Mat<N>) -> Option<Factor<N>> {
    let trace: f64 = (0..N).map(|i| a[i][i].re).sum();
    if !(trace > 0.0 && trace.is_finite()) {
        return None;
    }
    let l = cholesky(a, 0.0)?;
    let x = lower_inverse(&l);
    let (ll, _, lambda_lower) = full_rank_certificate(&l, &x, trace)?;
    let e = complex_backward(N) * ll;
    let eta = e / lambda_lower;
    let frob = (0..N)
        .map(|i| (0..=i).map(|k| l[i][k].norm_sqr()).sum::<f64>())
        .sum::<f64>()
        .sqrt();
    let (mut rows, mut cols) = (0.0f64, [0.0f64; N]);
    for i in 0..N {
        let mut row = 0.0;
        for k in 0..=i {
            let q = x.re[i][k] * x.re[i][k] + x.im[i][k] * x.im[i][k];
            row += q;
            cols[k] += q;
        }
        rows = rows.max(row);
    }
    let top = (0..N).map(|i| a[i][i].re).fold(0.0f64, f64::max);
    let margin = 1.0 - (2.0 * N as f64 + 4.0) * EPS;
    let inv = rows.max(cols.iter().copied().fold(0.0, f64::max));
    let kappa_cheap = (top * inv * margin / (1.0 + eta)).max(1.0);
    (eta < 0.5 && lambda_lower >= certificate_shift(N, trace)).then_some(Factor {
        l,
        x,
        eta,
        frob,
        kappa_cheap,
    })
}

/// [`fidelity_cholesky`] on two (exactly Hermitian, validated) states' matrices as stack arrays
/// (full matrices: the factorisations read the lower triangles, the κ lower bound all entries).
pub(crate) fn fidelity_small<const N: usize>(r: &Mat<N>, s: &Mat<N>) -> Option<FidelityCholesky> {
    let fr = factor(r)?;
    let fs = factor(s)?;
    let b = adjoint_times_lower(&fr.l, &fs.l);
    let bm =
        ndarray::Array2::from_shape_fn((N, N), |(i, j)| Complex64::new(b.re[i][j], b.im[i][j]));
    // Backend::Auto's values-only SVD (nalgebra below 16, `zgesdd` from 16: the small-pair
    // kernel's, `small_fidelity`); its failure declines
    let sv = {
        use crate::spectral::{Backend, EigenSolver};
        Backend::Auto.singular_values(bm.view()).ok()?
    };
    let top = sv.iter().copied().fold(0.0f64, f64::max);
    // ascending: the small ones first
    let mut sorted = sv.to_vec();
    sorted.sort_by(f64::total_cmp);
    let value: f64 = sorted.iter().sum();
    let n = N as f64;
    // the product: |ΔB| ≤ √2γ_{N+2}|L_ρ†||L_σ| (complex inner products), ‖ΔB‖_* ≤ √N ‖ΔB‖_F
    let product = n.sqrt() * complex_backward(N) * fr.frob * fs.frob;
    // the SVD: Σ_k |ŝ_k − s_k| ≤ N δ with the small-pair kernel's model δ = max(N, 2) ε s_max
    // (`small_fidelity`), the sum N ε F̂
    let svd = n * (n.max(2.0) * EPS * top) + n * EPS * value;
    let absolute = product + svd;
    // the factorisations: (1 − η)ρ ≤ ρ + E ≤ (1 + η)ρ and F monotone, homogeneous of degree ½ in
    // each argument: F(ρ + E_ρ, σ + E_σ)/F(ρ, σ) ∈ [√((1−η_ρ)(1−η_σ)), √((1+η_ρ)(1+η_σ))]
    let (a, c) = (fr.eta, fs.eta);
    let relative = (a + c + a * c) / (1.0 + ((1.0 - a) * (1.0 - c)).sqrt());
    let bound = absolute + relative * (value + absolute) / (1.0 - relative);
    if !(value.is_finite() && bound.is_finite() && value > 0.0) {
        return None;
    }
    let documented_at = |kappa: f64| {
        let dv = -2.0 * value.ln();
        let b = super::accuracy::documented_bound(N, kappa, 0.5, dv, 1.0);
        value * -(-0.5 * b).exp_m1()
    };
    let mut documented = documented_at(fr.kappa_cheap.max(fs.kappa_cheap));
    if bound > documented {
        // the documented bound grows with κ: a tighter certified lower bound of max(κ(ρ), κ(σ))
        // (power iterations)
        let kr = kappa_lower_bound(r, &fr.x) / (1.0 + fr.eta);
        let ks = kappa_lower_bound(s, &fs.x) / (1.0 + fs.eta);
        documented = documented_at(kr.max(ks));
    }
    Some(FidelityCholesky {
        value,
        bound,
        documented,
    })
}

/// `B = L_ρ† L_σ` (`B_ij = Σ_{k ≥ max(i,j)} conj(L_ρ[k][i]) L_σ[k][j]`): for each `k`, rows
/// `i ≤ k` of `B` accumulate row `k` of `L_σ` times `conj(L_ρ[k][i])` (axpys along contiguous
/// rows on split parts; the AVX2 build where the CPU has it).
fn adjoint_times_lower<const N: usize>(lr: &Mat<N>, ls: &Mat<N>) -> Split<N> {
    #[cfg(target_arch = "x86_64")]
    {
        if N >= 4 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { adjoint_times_lower_avx2(lr, ls) };
        }
    }
    adjoint_times_lower_body(lr, ls)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn adjoint_times_lower_avx2<const N: usize>(lr: &Mat<N>, ls: &Mat<N>) -> Split<N> {
    adjoint_times_lower_body(lr, ls)
}

#[inline(always)]
fn adjoint_times_lower_body<const N: usize>(lr: &Mat<N>, ls: &Mat<N>) -> Split<N> {
    let mut sr = [[0.0; N]; N];
    let mut si = [[0.0; N]; N];
    for k in 0..N {
        for j in 0..=k {
            sr[k][j] = ls[k][j].re;
            si[k][j] = ls[k][j].im;
        }
    }
    let mut b = Split::zeroed();
    for k in 0..N {
        let (rk, ik) = (&sr[k], &si[k]);
        for i in 0..=k {
            // conj(L_ρ[k][i]) = a − ib
            let (a, c) = (lr[k][i].re, lr[k][i].im);
            let (br, bi) = (&mut b.re[i], &mut b.im[i]);
            for j in 0..N {
                br[j] += a * rk[j] + c * ik[j];
                bi[j] += a * ik[j] - c * rk[j];
            }
        }
    }
    b
}
