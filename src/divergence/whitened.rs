//! The maximal (geometric) family by Cholesky whitening, without an eigendecomposition of σ
//! (docs/divergences.md, "maximal_whitened").
//!
//! With `σ = LL†` and `T = L⁻¹ρL⁻† = Σ_k t_k u_k u_k†`, `U = σ^{−1/2}L` is unitary, so
//! `σ^{−1/2}ρσ^{−1/2} = UTU†` and `Q̂_α = Tr σ(σ^{−1/2}ρσ^{−1/2})^α = Σ_k w_k t_k^α` with
//! `w_k = ‖L u_k‖²`: the classical pair `(w_k t_k, w_k)` of `Pair`'s maximal reduction, from one
//! Cholesky factorisation, one triangular inverse, two triangular products and **one**
//! eigendecomposition (of `T`) instead of three (ρ, σ and `T`).
//!
//! The route answers an order only where its a-posteriori bound ([`Whitened::route_bound`]: the
//! factorisation's backward error and — by a model, not a proof — the triangular inverse's residual
//! and the products' forward errors as one relative change of σ, with `‖L⁻¹‖` from the computed
//! inverse, and (another model, beyond α = 2, where a relative change of σ can move `D̂_α` by more
//! than its size in the worst direction) its effect on `D̂_α` taken as at most that size; the eigensolver's backward error through the first-order change of
//! `D̂_α`; the weights' rounding) is at most the documented bound
//! ([`super::accuracy::documented_bound`]) evaluated with a certified *lower* bound of the
//! condition number — so the documented bound of the value covers it. Elsewhere (α < 1, α = ∞,
//! σ not certified of full rank, the bound too large) it declines and the eigen route runs.
//!
//! Two implementations of the same steps: on stack arrays up to [`WHITENED_MAX`] (the fixed-size
//! solver, AVX2 products; the stack route's per-pair kernel) and, above it in a build with
//! `openblas`, on LAPACK/BLAS (`zpotrf`, `ztrtri`, three `ztrmm`, the `Backend::Auto`
//! eigensolver of `T`) with the same certificate and the same form of bound ([`maximal_whitened`];
//! there the bound's `η_σ` may come from the tighter Skeel-type product, `eta_from_skeel`).

// Index loops: the kernels read entries `m[i][j]` and their mirrors `m[j][i]` together.
#![allow(clippy::needless_range_loop)]

use super::accuracy::{complex_backward, gamma};
use super::order_two::certificate_shift;
use super::renyi_mean;
use crate::error::Result;
use crate::spectral::small::{eigh_small, with_small_dim, zeros, Mat};
use crate::spectral::EPS;
use crate::state::DensityMatrix;
use num_complex::Complex64;
use smallvec::SmallVec;

/// Largest dimension of the whitened route on stack arrays (the eigensolve is
/// `spectral::small::eigh_small`); above it the route runs on LAPACK in a build with `openblas`
/// ([`covers`]).
pub const WHITENED_MAX: usize = 16;

/// Per-eigenvalue data of the route: inline up to [`WHITENED_MAX`] (no allocation per pair),
/// on the heap above.
type PerValue<T> = SmallVec<[T; WHITENED_MAX]>;

/// Whether the whitened route exists at dimension `d`: `1 ≤ d ≤` [`WHITENED_MAX`] on stack
/// arrays in every build, every `d` on LAPACK in a build with `openblas`.
pub fn covers(d: usize) -> bool {
    d > 0 && (d <= WHITENED_MAX || cfg!(feature = "openblas"))
}

/// Smallest dimension at which an α-curve (more than one order) takes the whitened route: its
/// per-order work (`d` exponentials for the bound beside the Rényi mean's) outweighs the saved
/// decompositions below. Measured (16 orders, Python, raw matrices, one BLAS thread, against the
/// eigen route in the same run): 0.90× at d = 4, 0.99× at d = 8, 1.08× at d = 16
/// (docs/PERFORMANCE.md, "whiten22").
pub const WHITENED_CURVE_FROM: usize = 9;

/// Power-iteration steps of the condition-number lower bounds (each `O(d²)`) on stack arrays.
const POWER_STEPS: usize = 3;

/// Power-iteration steps of the condition-number lower bounds above [`WHITENED_MAX`] (each `O(d²)`
/// against the route's `O(d³)`).
#[cfg(feature = "openblas")]
const POWER_STEPS_DENSE: usize = 12;

/// The α-independent data of the whitened route: the eigenvalues `t_k` of `T = L⁻¹ρL⁻†`
/// (ascending), the weights `w_k = ‖L u_k‖²` and the parts of the a-posteriori bound.
#[derive(Clone, Debug)]
pub struct Whitened {
    /// `t_k` and `w_k` (`d` entries each).
    t: PerValue<f64>,
    w: PerValue<f64>,
    /// The Rényi-mean terms `(w_k t_k / Σ w t, ln t_k)` over `t_k > 0` (the value at every order).
    terms: PerValue<(f64, f64)>,
    /// `ln t_k` (−∞ for `t_k ≤ 0`), `ln t_max`, `Σ w_k t_k`, `Σ w_k`, the spread
    /// `max ln t − min ln t` over `t_k > 0`.
    ln_t: PerValue<f64>,
    ln_tmax: f64,
    q1: f64,
    sum_w: f64,
    spread: f64,
    /// Relative backward error of σ from the factorisation, the inverse and the two triangular
    /// products: `3·√2γ_{d+2} ‖|L||L|†‖_∞ ‖L⁻¹‖²` (`‖L⁻¹‖²` bounded above by
    /// `min(‖X‖₁‖X‖_∞, ‖X‖_F²)`, [`eta_from_norms`]); above [`WHITENED_MAX`] the smaller of that
    /// and the Skeel-type form [`eta_from_skeel`].
    eta_sigma: f64,
    /// Absolute backward error of the eigensolve of `T`: `d ε max_k |t_k|`.
    delta: f64,
    /// Relative error of the weights `w_k`.
    omega: f64,
    /// A certified lower bound of `κ(σ)`: `max(κ₀, κ_power)` ([`kappa_cheap`], and the power
    /// iterations on `σ` and `L⁻†L⁻¹` of [`kappa_lower_bound`]) once [`Whitened::refine_kappa`]
    /// ran, `κ₀` before.
    kappa_lower: f64,
    /// Whether `kappa_lower` includes the power iterations.
    refined: bool,
    d: usize,
}

/// A-posteriori parts of one order (tests and the decision).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WhitenedOrder {
    /// The value `D̂_α` of the whitened route.
    pub value: f64,
    /// The route's a-posteriori bound ([`Whitened::route_bound`]).
    pub bound: f64,
    /// The documented bound with the certified lower bound of κ (the route answers where
    /// `bound ≤ documented`).
    pub documented: f64,
}

impl Whitened {
    /// `D̂_α` at a finite `α ≥ 1` from the cached reduction: the Rényi mean of
    /// `(w_k t_k / Σ w t, ln t_k)` over `t_k > 0` (Belavkin–Staszewski at α = 1).
    pub fn value(&self, alpha: f64) -> f64 {
        renyi_mean(&self.terms, alpha)
    }

    /// The route's a-posteriori bound on `|D̂_α(computed) − D̂_α(ρ‖σ)|` (docs/divergences.md,
    /// "maximal_whitened"), `+∞` where it cannot be given (α < 1, α = ∞, an unresolved `t_k` at
    /// α = 1). Cost `O(d)` (`2d` powers).
    pub fn route_bound(&self, alpha: f64, value: f64) -> f64 {
        if !(alpha >= 1.0 && alpha.is_finite() && value.is_finite()) {
            return f64::INFINITY;
        }
        let (q1, lm) = (self.q1, self.ln_tmax);
        if !(q1 > 0.0 && lm.is_finite()) {
            return f64::INFINITY;
        }
        let am1 = alpha - 1.0;
        // e_k = (t_k/t_max)^{α−1}; Q_α/t_max^α = Σ w e_k t_k/t_max (no overflow at large α)
        let tmax = lm.exp();
        let mut qs = 0.0;
        let d = self.d;
        let mut e: PerValue<f64> = SmallVec::from_elem(0.0, d);
        for k in 0..d {
            if self.t[k] > 0.0 {
                e[k] = (am1 * (self.ln_t[k] - lm)).exp();
                qs += self.w[k].max(0.0) * e[k] * (self.t[k] / tmax);
            }
        }
        if !(qs > 0.0 && qs.is_finite()) {
            return f64::INFINITY;
        }
        // g(ξ) = f'(ξ)/Q_α − 1/Q_1 (f = t^α; at α = 1 the limit (1 + ln ξ − D)/Q_1), monotone in
        // ξ: c_k = max |g| at t_k ± δ, with (1 + δ/t)^{α−1} ≤ e^{(α−1)δ/t} and
        // (1 − δ/t)^{α−1} ≥ 1 − max(α − 1, 1) δ/t (Bernoulli)
        let scale = alpha / (tmax * qs);
        let mut sum_wc = 0.0;
        for k in 0..d {
            let (t, w) = (self.t[k], self.w[k].max(0.0) * (1.0 + self.omega));
            let (lo, hi) = (t - self.delta, t + self.delta);
            let c = if alpha == 1.0 {
                if lo > 0.0 {
                    let g = |x: f64| (1.0 + x.ln() - value) / q1;
                    g(lo).abs().max(g(hi).abs())
                } else {
                    f64::INFINITY
                }
            } else {
                // f'(ξ)/Q_α at lo and hi
                let (flo, fhi) = if t > 0.0 && lo > 0.0 {
                    let r = self.delta / t;
                    let up = (am1 * r).exp();
                    let down = (1.0 - am1.max(1.0) * r).max(0.0);
                    (scale * e[k] * down, scale * e[k] * up)
                } else {
                    (0.0, scale * (hi.max(0.0) / tmax).powf(am1))
                };
                (flo - 1.0 / q1).abs().max((fhi - 1.0 / q1).abs())
            };
            sum_wc += w.sqrt() * c;
        }
        let sum_w = self.sum_w * (1.0 + self.omega);
        let gap = if alpha == 1.0 { 1.0 } else { am1 };
        let eigen = 2.0 * self.delta * sum_w.sqrt() * sum_wc / gap;
        // weights: ln p_k moved by ≤ ω changes the Rényi mean by ≤ ω·Σ|π − p|/|α − 1|
        let weights = if alpha == 1.0 {
            self.omega * self.spread
        } else {
            self.omega * (am1 * self.spread).exp_m1().min(2.0) / am1
        };
        let algorithm = 64.0 * self.d as f64 * EPS * (1.0 + value.abs());
        let total = self.eta_sigma + eigen + weights + algorithm;
        if total.is_nan() {
            f64::INFINITY
        } else {
            total
        }
    }

    /// The value, the route's bound and the documented bound at the certified κ lower bound.
    pub fn order(&self, alpha: f64) -> WhitenedOrder {
        let value = self.value(alpha);
        let documented =
            super::accuracy::documented_bound(self.d, self.kappa_lower, alpha, value, 1.0);
        WhitenedOrder {
            value,
            bound: self.route_bound(alpha, value),
            documented,
        }
    }

    /// `D̂_α` where the route's bound is within the documented one (`None`: the eigen route).
    pub fn certified(&self, alpha: f64) -> Option<f64> {
        let o = self.order(alpha);
        (o.bound <= o.documented).then_some(o.value)
    }

    /// Raise the κ lower bound to `max(κ₀, κ_power)` (the power iterations; once). The decision
    /// of [`Whitened::certified`] before this call implies the one after it (the documented bound
    /// is non-decreasing in κ), so a caller that refines only where the cheap bound declines
    /// decides as one that always refines (`whitened_small` does).
    pub(crate) fn refine_kappa<const N: usize>(&mut self, p: &Prepared<N>, s: &Mat<N>) {
        if !self.refined {
            self.raise_kappa(kappa_lower_bound(s, &p.x));
        }
    }

    /// The κ lower bound raised to the power iterations' `κ_power` (`‖X̂v‖²` estimates
    /// `‖(σ + E)⁻¹‖`, hence the division by `1 + η_σ`).
    fn raise_kappa(&mut self, power: f64) {
        self.kappa_lower = self.kappa_lower.max(power / (1.0 + self.eta_sigma));
        self.refined = true;
    }

    /// [`Whitened::certified`] at every order of `alphas` into `row`, refining κ
    /// ([`Whitened::refine_kappa`]) only where the cheap lower bound declines an order; `false`
    /// when an order is declined even so (`row` then holds unspecified numbers).
    pub(crate) fn certify_into<const N: usize>(
        &mut self,
        p: &Prepared<N>,
        s: &Mat<N>,
        alphas: &[f64],
        row: &mut [f64],
    ) -> bool {
        for (x, &a) in row.iter_mut().zip(alphas) {
            let v = match self.certified(a) {
                Some(v) => v,
                None if !self.refined => {
                    self.refine_kappa(p, s);
                    match self.certified(a) {
                        Some(v) => v,
                        None => return false,
                    }
                }
                None => return false,
            };
            *x = v;
        }
        true
    }
}

/// Whether the whitened route may run for the pair: the conditions of the order-two Cholesky route
/// (`order_two::applies`: `Backend::Auto` on the host, not both states decomposed, ρ PSD to
/// rounding) and a dimension the route [`covers`].
pub(crate) fn applies(rho: &DensityMatrix, sigma: &DensityMatrix) -> bool {
    covers(rho.dim()) && super::order_two::applies(rho, sigma)
}

/// The whitened reduction of a pair of validated states (`None`: σ not certified of full rank —
/// its factorisation fails, or the bound `λ_min(σ) ≥ 1/‖L̂⁻¹‖² − √2γ_{d+2}‖|L̂||L̂|†‖` from the computed
/// factor falls below [`certificate_shift`], the order-two route's certificate — or a dimension
/// the route does not [`cover`](covers)). Cost: at `d ≤` [`WHITENED_MAX`] the fixed-size kernels;
/// above, `zpotrf` (`d³/3` complex multiply-adds), `ztrtri` (`d³/3`), three `ztrmm` (`d³/2`
/// each) and one eigendecomposition with vectors of `T` (`Backend::Auto`), against three
/// eigendecompositions on the eigen route; `O(d²)` for the certificate and the κ lower bounds.
pub fn maximal_whitened(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<Option<Whitened>> {
    let d = rho.dim();
    if d != sigma.dim() || !covers(d) {
        return Ok(None);
    }
    #[cfg(feature = "openblas")]
    if d > WHITENED_MAX {
        return whitened_dense(rho, sigma);
    }
    with_small_dim!(d, N => {
        let (r, s) = (rho.matrix(), sigma.matrix());
        let mut rm = zeros::<N>();
        let mut sm = zeros::<N>();
        for i in 0..N {
            for j in 0..N {
                rm[i][j] = r[[i, j]];
                sm[i][j] = s[[i, j]];
            }
        }
        whitened_small::<N>(&rm, &sm)
    }, _ => Ok(None))
}

/// The lower Cholesky factor of `A + shift·I` (row-major, lower triangle; `A` Hermitian, its lower
/// triangle read), `None` at a non-positive or non-finite pivot ([`cholesky_into`]).
pub(crate) fn cholesky<const N: usize>(a: &Mat<N>, shift: f64) -> Option<Mat<N>> {
    let mut l = zeros::<N>();
    cholesky_into::<N>(a, shift, &mut l).then_some(l)
}

/// [`cholesky`] into the caller's `l`: `true` with the factor in `l`'s lower triangle (its upper
/// triangle untouched), `false` at a non-positive or non-finite pivot (`l` then partly written) —
/// for callers that want only the decision or keep the factor in a slot of their own (no zeroing,
/// no copy of the factor back).
#[inline]
pub(crate) fn cholesky_into<const N: usize>(a: &Mat<N>, shift: f64, l: &mut Mat<N>) -> bool {
    for j in 0..N {
        let mut pivot = a[j][j].re + shift;
        for k in 0..j {
            pivot -= l[j][k].norm_sqr();
        }
        if !(pivot > 0.0 && pivot.is_finite()) {
            return false;
        }
        let root = pivot.sqrt();
        l[j][j] = Complex64::new(root, 0.0);
        let inv = 1.0 / root;
        for i in (j + 1)..N {
            let mut z = a[i][j];
            for k in 0..j {
                z -= l[i][k] * l[j][k].conj();
            }
            l[i][j] = z * inv;
        }
    }
    true
}

/// Real and imaginary parts of an `N × N` complex matrix (row-major), so that the products'
/// inner loops run over contiguous `f64` rows (vectorised).
#[derive(Clone, Copy)]
pub(crate) struct Split<const N: usize> {
    pub(crate) re: [[f64; N]; N],
    pub(crate) im: [[f64; N]; N],
}

impl<const N: usize> Split<N> {
    pub(crate) fn zeroed() -> Self {
        Split {
            re: [[0.0; N]; N],
            im: [[0.0; N]; N],
        }
    }
}

/// `X = L⁻¹` of a lower triangular `L` with a real positive diagonal, row by row (`LX = I`), into
/// `x`, every inner loop an axpy over a contiguous row (the first step of [`whiten_body`]; the
/// fidelity's Cholesky route, `fidelity.rs`, bounds `‖L⁻¹‖` from it).
#[inline(always)]
fn lower_inverse_body<const N: usize>(l: &Mat<N>, x: &mut Split<N>) {
    *x = Split::<N>::zeroed();
    for i in 0..N {
        let (mut ar, mut ai) = ([0.0; N], [0.0; N]);
        for k in 0..i {
            let (a, b) = (l[i][k].re, l[i][k].im);
            let (xr, xi) = (&x.re[k], &x.im[k]);
            for c in 0..N {
                ar[c] += a * xr[c] - b * xi[c];
                ai[c] += a * xi[c] + b * xr[c];
            }
        }
        let inv = 1.0 / l[i][i].re;
        for c in 0..i {
            x.re[i][c] = -ar[c] * inv;
            x.im[i][c] = -ai[c] * inv;
        }
        x.re[i][i] = inv;
    }
}

/// [`lower_inverse_body`], compiled for AVX2 where the CPU has it (the same operations).
pub(crate) fn lower_inverse<const N: usize>(l: &Mat<N>) -> Split<N> {
    let mut x = Split::<N>::zeroed();
    #[cfg(target_arch = "x86_64")]
    {
        if N >= 4 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { lower_inverse_avx2(l, &mut x) };
            return x;
        }
    }
    lower_inverse_body(l, &mut x);
    x
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lower_inverse_avx2<const N: usize>(l: &Mat<N>, x: &mut Split<N>) {
    lower_inverse_body(l, x)
}

/// The whitening of [`whitened_small`]: `X = L⁻¹` ([`lower_inverse_body`]), `P = Xρ` and
/// `T = PX†` (the lower triangle mirrored: exactly Hermitian), every inner loop an axpy over a
/// contiguous row.
#[inline(always)]
fn whiten_body<const N: usize>(l: &Mat<N>, r: &Mat<N>, x: &mut Split<N>, t: &mut Mat<N>) {
    lower_inverse_body(l, x);
    let mut rr = [[0.0; N]; N];
    let mut ri = [[0.0; N]; N];
    for k in 0..N {
        for j in 0..N {
            rr[k][j] = r[k][j].re;
            ri[k][j] = r[k][j].im;
        }
    }
    // P = X ρ (X lower triangular)
    let mut p = Split::<N>::zeroed();
    for i in 0..N {
        let (pr, pi) = (&mut p.re[i], &mut p.im[i]);
        for k in 0..=i {
            let (a, b) = (x.re[i][k], x.im[i][k]);
            for j in 0..N {
                pr[j] += a * rr[k][j] - b * ri[k][j];
                pi[j] += a * ri[k][j] + b * rr[k][j];
            }
        }
    }
    // X† (upper triangular), rows contiguous
    let mut hr = [[0.0; N]; N];
    let mut hi = [[0.0; N]; N];
    for k in 0..N {
        for j in 0..N {
            hr[k][j] = x.re[j][k];
            hi[k][j] = -x.im[j][k];
        }
    }
    // T = P X†
    for i in 0..N {
        let (mut tr, mut ti) = ([0.0; N], [0.0; N]);
        for k in 0..N {
            let (a, b) = (p.re[i][k], p.im[i][k]);
            for j in 0..N {
                tr[j] += a * hr[k][j] - b * hi[k][j];
                ti[j] += a * hi[k][j] + b * hr[k][j];
            }
        }
        for j in 0..i {
            let z = Complex64::new(tr[j], ti[j]);
            t[i][j] = z;
            t[j][i] = z.conj();
        }
        t[i][i] = Complex64::new(tr[i], 0.0);
    }
}

/// The weights `w_k = ‖L u_k‖²` (`u` the eigenvectors as columns): `Y = LU` row by row, then the
/// squared column norms.
#[inline(always)]
fn weights_body<const N: usize>(l: &Mat<N>, u: &Mat<N>) -> [f64; N] {
    let mut ur = [[0.0; N]; N];
    let mut ui = [[0.0; N]; N];
    for j in 0..N {
        for k in 0..N {
            ur[j][k] = u[j][k].re;
            ui[j][k] = u[j][k].im;
        }
    }
    let mut w = [0.0; N];
    for i in 0..N {
        let (mut yr, mut yi) = ([0.0; N], [0.0; N]);
        for j in 0..=i {
            let (a, b) = (l[i][j].re, l[i][j].im);
            for k in 0..N {
                yr[k] += a * ur[j][k] - b * ui[j][k];
                yi[k] += a * ui[j][k] + b * ur[j][k];
            }
        }
        for k in 0..N {
            w[k] += yr[k] * yr[k] + yi[k] * yi[k];
        }
    }
    w
}

/// [`whiten_body`], compiled for AVX2 where the CPU has it (the same operations).
fn whiten<const N: usize>(l: &Mat<N>, r: &Mat<N>, x: &mut Split<N>, t: &mut Mat<N>) {
    #[cfg(target_arch = "x86_64")]
    {
        if N >= 4 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { whiten_avx2(l, r, x, t) };
        }
    }
    whiten_body(l, r, x, t)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn whiten_avx2<const N: usize>(l: &Mat<N>, r: &Mat<N>, x: &mut Split<N>, t: &mut Mat<N>) {
    whiten_body(l, r, x, t)
}

/// [`weights_body`], compiled for AVX2 where the CPU has it (the same operations).
fn weights<const N: usize>(l: &Mat<N>, u: &Mat<N>) -> [f64; N] {
    #[cfg(target_arch = "x86_64")]
    {
        if N >= 4 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { weights_avx2(l, u) };
        }
    }
    weights_body(l, u)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn weights_avx2<const N: usize>(l: &Mat<N>, u: &Mat<N>) -> [f64; N] {
    weights_body(l, u)
}

/// [`maximal_whitened`] on two (exactly Hermitian, validated) states' matrices as stack arrays —
/// the entry point a stack route can call: [`whiten_prepare`], the eigendecomposition of `T` by
/// `spectral::small::eigh_small`, [`whitened_finish`].
pub(crate) fn whitened_small<const N: usize>(r: &Mat<N>, s: &Mat<N>) -> Result<Option<Whitened>> {
    let Some(p) = whiten_prepare::<N>(r, s) else {
        return Ok(None);
    };
    // the fixed-size solver's iteration cap: decline, the eigen route answers (review22b)
    let Ok(e) = eigh_small::<N>(&p.t, true) else {
        return Ok(None);
    };
    let mut w = whitened_finish::<N>(&p, s, &e);
    w.refine_kappa(&p, s);
    Ok(Some(w))
}

/// The whitened route up to the eigendecomposition of `T` ([`whiten_prepare`]): σ's factor, its
/// inverse, `T = L⁻¹ρL⁻†` and the norms the bound needs.
pub(crate) struct Prepared<const N: usize> {
    l: Mat<N>,
    x: Split<N>,
    t: Mat<N>,
    /// `‖|L||L|†‖_∞`.
    ll: f64,
    /// An upper bound of `‖L⁻¹‖²`.
    inv_sq_upper: f64,
}

impl<const N: usize> Prepared<N> {
    /// All zeros (a buffer for [`whiten_prepare_into`]).
    pub(crate) fn zeroed() -> Self {
        Prepared {
            l: zeros::<N>(),
            x: Split::zeroed(),
            t: zeros::<N>(),
            ll: 0.0,
            inv_sq_upper: 0.0,
        }
    }

    /// `T = L⁻¹ρL⁻†` (exactly Hermitian), the matrix to decompose.
    pub(crate) fn matrix(&self) -> &Mat<N> {
        &self.t
    }
}

/// `|z|` as `√(re² + im²)` (no `hypot`: the entries here are far from overflow and underflow —
/// σ is certified of full rank — and the bounds' rounding factors count this `|z|`'s
/// relative error, at most `2ε`, as two more roundings).
#[inline(always)]
fn modulus(re: f64, im: f64) -> f64 {
    (re * re + im * im).sqrt()
}

/// The first half of [`whitened_small`]: `None` where σ is not certified of full rank (its
/// factorisation fails, or the bound `λ_min(σ) ≥ 1/‖L̂⁻¹‖² − √2γ_{d+2}‖|L̂||L̂|†‖` falls below
/// [`certificate_shift`]) or a trace is not positive.
pub(crate) fn whiten_prepare<const N: usize>(r: &Mat<N>, s: &Mat<N>) -> Option<Prepared<N>> {
    let mut p = Prepared::zeroed();
    whiten_prepare_into::<N>(r, s, &mut p).then_some(p)
}

/// [`whiten_prepare`] written into `p` (no copy of its arrays): `false` where it gives `None`
/// (`p` then holds unspecified numbers).
pub(crate) fn whiten_prepare_into<const N: usize>(
    r: &Mat<N>,
    s: &Mat<N>,
    p: &mut Prepared<N>,
) -> bool {
    let tr_s: f64 = (0..N).map(|i| s[i][i].re).sum();
    let tr_r: f64 = (0..N).map(|i| r[i][i].re).sum();
    if !(tr_s > 0.0 && tr_r > 0.0 && tr_s.is_finite() && tr_r.is_finite()) {
        return false;
    }
    let Some(l) = cholesky(s, 0.0) else {
        return false;
    };
    p.l = l;
    whiten(&p.l, r, &mut p.x, &mut p.t);
    let Some((ll, inv_sq_upper, _)) = full_rank_certificate(&p.l, &p.x, tr_s) else {
        return false;
    };
    p.ll = ll;
    p.inv_sq_upper = inv_sq_upper;
    true
}

/// `(‖|L̂||L̂|†‖_∞, an upper bound of ‖L̂⁻¹‖², the certified lower bound λ_ℓ of λ_min(A))` of a
/// computed Cholesky factor `L̂` of a Hermitian `A` (trace `trace`) and its computed inverse `X`,
/// when `A` is certified of full rank: `λ_min(A) ≥ λ_ℓ = 1/‖L̂⁻¹‖² − √2γ_{d+2}‖|L̂||L̂|†‖_∞`
/// (Higham, Thm. 10.3 with complex products: `L̂L̂† = A + E`, `|E| ≤ √2γ_{d+2}|L̂||L̂|†`,
/// [`complex_backward`]) at least the order-two route's [`certificate_shift`] — so the eigen
/// route, too, finds every eigenvalue above the zero threshold. `‖L̂⁻¹‖² ≤ min(‖X‖₁‖X‖_∞, ‖X‖_F²)`
/// times `1 + γ_{2d+6}` for the rounding of `X` and of the moduli (a model). `None`: not certified.
pub(crate) fn full_rank_certificate<const N: usize>(
    l: &Mat<N>,
    x: &Split<N>,
    trace: f64,
) -> Option<(f64, f64, f64)> {
    certificate_from(
        N,
        |i, k| (l[i][k].re, l[i][k].im),
        |i, k| (x.re[i][k], x.im[i][k]),
        (&mut [0.0; N], &mut [0.0; N]),
        trace,
    )
}

/// [`full_rank_certificate`] of a `d × d` factor and inverse read through `l(i, k)`, `x(i, k)`
/// (`(re, im)` of the entry, `i ≥ k`), with two zeroed scratch rows of length `d` (inlined into
/// both layouts' callers: the fixed-size arrays and LAPACK's column-major buffers).
#[inline(always)]
fn certificate_from(
    d: usize,
    l: impl Fn(usize, usize) -> (f64, f64),
    x: impl Fn(usize, usize) -> (f64, f64),
    (colsum, col): (&mut [f64], &mut [f64]),
    trace: f64,
) -> Option<(f64, f64, f64)> {
    let n = d as f64;
    let modulus_at = |(re, im): (f64, f64)| modulus(re, im);
    // ‖|L||L|†‖_∞ = max_i Σ_k |L_ik| (Σ_j |L_jk|) (first order in ε, as the bound)
    for i in 0..d {
        for k in 0..=i {
            colsum[k] += modulus_at(l(i, k));
        }
    }
    let ll = (0..d)
        .map(|i| {
            (0..=i)
                .map(|k| modulus_at(l(i, k)) * colsum[k])
                .sum::<f64>()
        })
        .fold(0.0f64, f64::max);
    // ‖L⁻¹‖² ≤ min(‖X‖₁‖X‖_∞, ‖X‖_F²); the rounding of the moduli (2ε each), the sums and the
    // product: γ_{2d+6}
    let (mut row_max, mut frob) = (0.0f64, 0.0);
    for i in 0..d {
        let mut row = 0.0;
        for k in 0..=i {
            let (re, im) = x(i, k);
            let a2 = re * re + im * im;
            let a = a2.sqrt();
            row += a;
            col[k] += a;
            frob += a2;
        }
        row_max = row_max.max(row);
    }
    let col_max = col.iter().copied().fold(0.0f64, f64::max);
    let inv_sq_upper = (row_max * col_max).min(frob) * (1.0 + gamma(2.0 * n + 6.0));
    // σ certified of full rank: λ_min(σ) ≥ 1/‖L̂⁻¹‖² − ‖E‖ with ‖E‖ ≤ √2γ_{d+2}‖|L||L|†‖ at least the
    // order-two route's certificate shift (so the eigen route, too, finds σ of full rank)
    let lambda_min_lower = 1.0 / inv_sq_upper - complex_backward(d) * ll;
    if !(lambda_min_lower >= certificate_shift(d, trace) && lambda_min_lower.is_finite()) {
        return None;
    }
    Some((ll, inv_sq_upper, lambda_min_lower))
}

/// The second half of [`whitened_small`]: the weights, the bound's parts and the Rényi-mean terms
/// from `T`'s eigendecomposition `e` (a backward-stable solver with vectors: the bound models its
/// backward error as `d ε max|t_k|`, the absolute model of `MaximalReduction`; `s` is σ).
pub(crate) fn whitened_finish<const N: usize>(
    p: &Prepared<N>,
    s: &Mat<N>,
    e: &crate::spectral::small::SmallEigen<N>,
) -> Whitened {
    let l = &p.l;
    let wk = weights(l, &e.vectors);
    let l_frob: f64 = (0..N)
        .map(|i| (0..=i).map(|k| l[i][k].norm_sqr()).sum::<f64>())
        .sum();
    let parts = Parts {
        eta_sigma: eta_from_norms(N, p.ll, p.inv_sq_upper),
        l_frob,
        kappa0: kappa_cheap(s, &p.x),
    };
    finish_from(&e.values, &wk, parts)
}

/// The norms of σ's computed factor and inverse that [`finish_from`] needs beside `T`'s
/// eigenvalues and the weights.
struct Parts {
    /// The relative backward error `η_σ` of σ ([`eta_from_norms`], or the dense route's tighter
    /// [`eta_from_skeel`]).
    eta_sigma: f64,
    /// `‖L̂‖_F²`.
    l_frob: f64,
    /// The cheap κ lower bound `κ₀` ([`kappa_cheap`]) before the division by `1 + η_σ`.
    kappa0: f64,
}

/// `η_σ = 3·√2γ_{d+2} ‖|L̂||L̂|†‖_∞ ‖L̂⁻¹‖²` from the certificate's norms `ll = ‖|L̂||L̂|†‖_∞` and
/// `inv_sq_upper ≥ ‖L̂⁻¹‖²` ([`full_rank_certificate`]): the factorisation's backward error and the
/// inverse's and products' (docs/divergences.md, "maximal_whitened", bound part 1).
fn eta_from_norms(d: usize, ll: f64, inv_sq_upper: f64) -> f64 {
    3.0 * complex_backward(d) * ll * inv_sq_upper
}

/// The tighter `η_σ` of the dense route (docs/divergences.md, "maximal_whitened", "Above d = 16")
/// from the Skeel-type product `B = |X̂||L̂|` (entrywise moduli; `B ≥ |X̂L̂| = I`, so `‖B‖₂ ≥ 1`):
/// `|L̂⁻¹EL̂⁻†| ≤ √2γ_{d+2} BBᵀ` bounds the factorisation's part by `√2γ_{d+2} ρ(BBᵀ)`, and a change
/// `|ΔL| ≤ √2γ_{d+2}|L̂|` of a product, or a left residual `X̂L̂ = I + R`, `|R| ≤ √2γ|X̂||L̂|`, of the
/// inverse (what `ztrtri` gives: `ztrti2` and OpenBLAS's blocked variants form `X̂L̂ − I`; the
/// blocked path's constant counted twice, review27) moves `L̂⁻¹σL̂⁻†` by at most `2√2γ_{d+2}‖B‖₂`
/// each, so `η_σ ≤ √2γ_{d+2}(c + 6√c)` for any `c ≥ ρ(BBᵀ)`. `c` is the
/// Collatz–Wielandt bound `max_i (BBᵀx)_i / x_i` (at every positive `x` an upper bound of the
/// Perron root of a nonnegative matrix), the smallest over [`POWER_STEPS_DENSE`] power steps from
/// `x = 1`, raised by `γ_{4d+12}` for the rounding of the moduli and of the nonnegative sums. The
/// caller takes the smaller of this and [`eta_from_norms`]. Cost: four triangular products with a
/// vector per step, `O(d²)`; `l`, `x` column-major `d × d` (lower triangles read).
#[cfg(feature = "openblas")]
fn eta_from_skeel(d: usize, l: &[Complex64], x: &[Complex64]) -> f64 {
    let abs_l: Vec<f64> = l.iter().map(|z| modulus(z.re, z.im)).collect();
    let abs_x: Vec<f64> = x.iter().map(|z| modulus(z.re, z.im)).collect();
    // y = M v and y = Mᵀ v for a nonnegative lower-triangular column-major M
    let lower = |m: &[f64], v: &[f64], y: &mut [f64]| {
        y.fill(0.0);
        for k in 0..d {
            let vk = v[k];
            for i in k..d {
                y[i] += m[i + k * d] * vk;
            }
        }
    };
    let upper = |m: &[f64], v: &[f64], y: &mut [f64]| {
        for k in 0..d {
            y[k] = (k..d).map(|i| m[i + k * d] * v[i]).sum();
        }
    };
    let (mut v, mut a, mut b) = (vec![1.0; d], vec![0.0; d], vec![0.0; d]);
    let mut bound = f64::INFINITY;
    for _ in 0..POWER_STEPS_DENSE {
        // b = B Bᵀ v = |X| |L| |L|ᵀ |X|ᵀ v
        upper(&abs_x, &v, &mut a);
        upper(&abs_l, &a, &mut b);
        lower(&abs_l, &b, &mut a);
        lower(&abs_x, &a, &mut b);
        let ratio = (0..d).map(|i| b[i] / v[i]).fold(0.0f64, f64::max);
        // ρ(BBᵀ) ≥ 1 (B ≥ I): a ratio below 1 or not finite (a NaN is dropped by `max`) is not a
        // bound; decline rather than use it (review27)
        if !(ratio >= 1.0 && ratio.is_finite() && (0..d).all(|i| b[i].is_finite())) {
            return f64::INFINITY;
        }
        bound = bound.min(ratio);
        let top = b.iter().copied().fold(0.0f64, f64::max);
        // every entry stays positive (B has a positive diagonal); stop where it would not
        if !(top.is_finite() && b.iter().all(|&y| y > 0.0)) {
            break;
        }
        for i in 0..d {
            v[i] = b[i] / top;
        }
    }
    let c = bound * (1.0 + gamma(4.0 * d as f64 + 12.0));
    complex_backward(d) * (c + 6.0 * c.sqrt())
}

/// The bound's parts and the Rényi-mean terms from the `d` eigenvalues `values` of `T`
/// (ascending) and the weights `wk` — the layout-free half of both implementations.
fn finish_from(values: &[f64], wk: &[f64], parts: Parts) -> Whitened {
    let d = values.len();
    let n = d as f64;
    let eta_sigma = parts.eta_sigma;
    let tabs = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let delta = n * EPS * tabs;
    let wmin = wk.iter().copied().fold(f64::INFINITY, f64::min);
    let omega = if wmin > 0.0 {
        2.0 * complex_backward(d) * (parts.l_frob / wmin).sqrt() + (2.0 * n + 2.0) * EPS
    } else {
        f64::INFINITY
    };
    // ‖X̂v‖ estimates ‖(σ + E)⁻¹‖, not ‖σ⁻¹‖: shrink by (1 + η_σ) so that it stays below κ(σ)
    // (review22b)
    let kappa_lower = parts.kappa0 / (1.0 + eta_sigma);
    let ln_t: PerValue<f64> = values
        .iter()
        .map(|&t| if t > 0.0 { t.ln() } else { f64::NEG_INFINITY })
        .collect();
    let mut terms: PerValue<(f64, f64)> = SmallVec::new();
    let (mut q1, mut lo, mut hi) = (0.0, f64::INFINITY, f64::NEG_INFINITY);
    for k in 0..d {
        let (t, w) = (values[k], wk[k]);
        if t > 0.0 && w > 0.0 {
            // `normalized` keeps the positive weights only (`w t` may underflow)
            if w * t > 0.0 {
                terms.push((w * t, ln_t[k]));
            }
            q1 += w * t;
            lo = lo.min(ln_t[k]);
            hi = hi.max(ln_t[k]);
        }
    }
    // `quantum::normalized`'s operations: every weight here is positive, the sum in order
    let total: f64 = terms.iter().map(|(w, _)| w).sum();
    if total > 0.0 {
        terms.iter_mut().for_each(|(w, _)| *w /= total);
    }
    Whitened {
        terms,
        ln_tmax: hi,
        ln_t,
        q1,
        sum_w: wk.iter().map(|w| w.max(0.0)).sum(),
        spread: (hi - lo).max(0.0),
        t: SmallVec::from_slice(values),
        w: SmallVec::from_slice(wk),
        eta_sigma,
        delta,
        omega,
        kappa_lower,
        refined: false,
        d,
    }
}

/// A certified lower bound of `κ(σ) = λ_max(σ) ‖L⁻¹‖²` without iterations: `max_i σ_ii ≤ λ_max`
/// and the largest squared row norm of `X = L⁻¹` (`‖X‖₂ ≥ ‖e_i†X‖`), less a rounding margin.
fn kappa_cheap<const N: usize>(s: &Mat<N>, x: &Split<N>) -> f64 {
    kappa_cheap_from(N, |i| s[i][i].re, |i, k| (x.re[i][k], x.im[i][k]))
}

/// [`kappa_cheap`] of a `d × d` σ and inverse read through `diag(i) = σ_ii` and
/// `x(i, k) = (re, im)` of `X_ik` (`i ≥ k`).
#[inline(always)]
fn kappa_cheap_from(
    d: usize,
    diag: impl Fn(usize) -> f64,
    x: impl Fn(usize, usize) -> (f64, f64),
) -> f64 {
    let top = (0..d).map(&diag).fold(0.0f64, f64::max);
    let mut inv = 0.0f64;
    for i in 0..d {
        let row: f64 = (0..=i)
            .map(|k| {
                let (re, im) = x(i, k);
                re * re + im * im
            })
            .sum();
        inv = inv.max(row);
    }
    // rounding of the squared row norm: relative (d + 2)ε at most
    let margin = 1.0 - (d as f64 + 2.0) * EPS;
    (top * inv * margin).max(1.0)
}

/// A certified lower bound of `κ(σ) = λ_max(σ) ‖L⁻¹‖²`: Rayleigh quotients after
/// [`POWER_STEPS`] power steps on `σ` and on `X†X` (`X = L⁻¹`), each at most the norm it
/// estimates (less a rounding margin), and `max_i σ_ii ≤ λ_max`.
pub(crate) fn kappa_lower_bound<const N: usize>(s: &Mat<N>, x: &Split<N>) -> f64 {
    let zero = Complex64::new(0.0, 0.0);
    kappa_power_from(
        N,
        |i, j| s[i][j],
        |i, k| Complex64::new(x.re[i][k], x.im[i][k]),
        (&mut [zero; N], &mut [zero; N], &mut [zero; N]),
        POWER_STEPS,
    )
}

/// [`kappa_lower_bound`] of a `d × d` σ read through `s(i, j)` and its factor's inverse through
/// `x(i, k)` (`i ≥ k`), with three scratch vectors of length `d` (inlined into both layouts'
/// callers). Cost `O(d²)` per power step.
#[inline(always)]
fn kappa_power_from(
    d: usize,
    s: impl Fn(usize, usize) -> Complex64,
    x: impl Fn(usize, usize) -> Complex64,
    (v, y, xv): (&mut [Complex64], &mut [Complex64], &mut [Complex64]),
    steps: usize,
) -> f64 {
    let zero = Complex64::new(0.0, 0.0);
    let unit = Complex64::new(1.0 / (d as f64).sqrt(), 0.0);
    let norm = |v: &[Complex64]| v.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
    // λ_max(σ)
    v.fill(unit);
    let mut top = (0..d).map(|i| s(i, i).re).fold(0.0f64, f64::max);
    for _ in 0..steps {
        for i in 0..d {
            let mut acc = zero;
            for j in 0..d {
                acc += s(i, j) * v[j];
            }
            y[i] = acc;
        }
        // Rayleigh quotient v†σv (‖v‖ = 1)
        let rq: f64 = (0..d).map(|i| (v[i].conj() * y[i]).re).sum();
        top = top.max(rq);
        let m = norm(y);
        if !(m > 0.0 && m.is_finite()) {
            break;
        }
        for i in 0..d {
            v[i] = y[i] / m;
        }
    }
    // ‖X‖² ≥ ‖Xv‖² for unit v
    v.fill(unit);
    let mut inv = 0.0f64;
    for _ in 0..steps {
        for i in 0..d {
            let mut acc = zero;
            for k in 0..=i {
                acc += x(i, k) * v[k];
            }
            xv[i] = acc;
        }
        inv = inv.max(xv.iter().map(|z| z.norm_sqr()).sum::<f64>());
        y.fill(zero);
        for i in 0..d {
            for k in 0..=i {
                y[k] += x(i, k).conj() * xv[i];
            }
        }
        let m = norm(y);
        if !(m > 0.0 && m.is_finite()) {
            break;
        }
        for k in 0..d {
            v[k] = y[k] / m;
        }
    }
    // rounding of the quotients: relative (2d + 4)ε at most
    let margin = 1.0 - (2.0 * d as f64 + 4.0) * EPS;
    (top * inv * margin * margin).max(1.0)
}

/// [`maximal_whitened`] above [`WHITENED_MAX`]: the same steps on LAPACK/BLAS. The states'
/// row-major buffers read column-major are `σ̄` and `ρ̄`; every quantity of the route — the
/// eigenvalues of `T`, the weights, the moduli of the certificate and the κ bounds — is the same
/// for the conjugate pair, so nothing is transposed: `zpotrf` gives `σ̄ = L₁L₁†` (`L₁ = L̄`),
/// `ztrtri` `X₁ = L₁⁻¹`, two `ztrmm` `T₁ = X₁ρ̄X₁† = T̄` (its lower triangle mirrored: exactly
/// Hermitian), whose buffer read row-major is `T` itself; `Backend::Auto` decomposes `T`
/// (`T = Σ t_k u_k u_k†`), and a third `ztrmm` gives `L₁ū_k = conj(L u_k)`, whose squared norms
/// are the weights. Declines (`None`) where the small route does, and where LAPACK's
/// eigensolver fails (the eigen route then reports its own error).
#[cfg(feature = "openblas")]
fn whitened_dense(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<Option<Whitened>> {
    use crate::spectral::{lapack, lower_triangular_product, Eigen, Triangular};
    let (r, s) = (rho.matrix(), sigma.matrix());
    let d = r.nrows();
    let tr_s: f64 = s.diag().iter().map(|z| z.re).sum();
    let tr_r: f64 = r.diag().iter().map(|z| z.re).sum();
    if !(tr_s > 0.0 && tr_r > 0.0 && tr_s.is_finite() && tr_r.is_finite()) {
        return Ok(None);
    }
    let Some(l) = lapack::zpotrf_factor(&s.view(), 0.0)? else {
        return Ok(None);
    };
    let mut x = l.clone();
    if !lapack::lower_inverse_in_place(&mut x, d)? {
        return Ok(None);
    }
    let at = |m: &[Complex64], i: usize, k: usize| {
        let z = m[i + k * d];
        (z.re, z.im)
    };
    let (mut colsum, mut col) = (vec![0.0; d], vec![0.0; d]);
    let Some((ll, inv_sq_upper, _)) = certificate_from(
        d,
        |i, k| at(&l, i, k),
        |i, k| at(&x, i, k),
        (&mut colsum, &mut col),
        tr_s,
    ) else {
        return Ok(None);
    };
    // T₁ = X₁ ρ̄ X₁† (ρ's row-major buffer is ρ̄ column-major), lower triangle mirrored
    let mut t: Vec<Complex64> = r.iter().copied().collect();
    lower_triangular_product(&x, &mut t, d, Triangular::Times);
    lower_triangular_product(&x, &mut t, d, Triangular::TimesAdjoint);
    for j in 0..d {
        t[j + j * d].im = 0.0;
        for i in j + 1..d {
            t[j + i * d] = t[i + j * d].conj();
        }
    }
    // the buffer read row-major: T₁ᵀ = T̄₁ = T
    // (a d² buffer by construction; a shape error would only send the pair to the eigen route)
    let Ok(tm) = ndarray::Array2::from_shape_vec((d, d), t) else {
        return Ok(None);
    };
    let Ok(e) = Eigen::compute(tm.view(), crate::spectral::Backend::Auto) else {
        return Ok(None);
    };
    // the weights ‖L u_k‖² = ‖L₁ ū_k‖²: ū_k as the columns of a column-major buffer
    let u = e.vectors();
    let mut y: Vec<Complex64> = Vec::with_capacity(d * d);
    for k in 0..d {
        y.extend((0..d).map(|i| u[[i, k]].conj()));
    }
    lower_triangular_product(&l, &mut y, d, Triangular::Times);
    let wk: Vec<f64> = y
        .chunks_exact(d)
        .map(|c| c.iter().map(|z| z.norm_sqr()).sum())
        .collect();
    let l_frob: f64 = (0..d)
        .map(|k| (k..d).map(|i| l[i + k * d].norm_sqr()).sum::<f64>())
        .sum();
    let parts = Parts {
        eta_sigma: eta_from_norms(d, ll, inv_sq_upper).min(eta_from_skeel(d, &l, &x)),
        l_frob,
        kappa0: kappa_cheap_from(d, |i| s[[i, i]].re, |i, k| at(&x, i, k)),
    };
    let values = e.values().to_vec();
    let mut w = finish_from(&values, &wk, parts);
    // X = conj(X₁) (the power iterations' products read σ itself)
    let zero = Complex64::new(0.0, 0.0);
    let power = kappa_power_from(
        d,
        |i, j| s[[i, j]],
        |i, k| x[i + k * d].conj(),
        (&mut vec![zero; d], &mut vec![zero; d], &mut vec![zero; d]),
        POWER_STEPS_DENSE,
    );
    w.raise_kappa(power);
    Ok(Some(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The unitary `U = σ^{−1/2}L` makes the whitened eigenvalues those of `σ^{−1/2}ρσ^{−1/2}`
    /// and `Σ w_k = Tr σ`, `Σ w_k t_k = Tr ρ` (`maximal_whitened_identities`).
    #[test]
    fn maximal_whitened_identities() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
        let dense: &[usize] = if cfg!(feature = "openblas") {
            &[17, 24, 40]
        } else {
            &[]
        };
        for &d in [2usize, 3, 5, 8, 16].iter().chain(dense) {
            let rho = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
            let sigma = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
            let wh = maximal_whitened(&rho, &sigma).unwrap().expect("full rank");
            let sw: f64 = wh.w[..d].iter().sum();
            let swt: f64 = wh.w[..d].iter().zip(&wh.t[..d]).map(|(w, t)| w * t).sum();
            assert!((sw - 1.0).abs() < 1e-12, "d={d} Σw = {sw}");
            assert!((swt - 1.0).abs() < 1e-10, "d={d} Σwt = {swt}");
            let es = sigma.eigen().unwrap();
            let half = es.power(-0.5);
            let m = half.dot(rho.matrix()).dot(&half);
            let em = crate::spectral::Eigen::compute(m.view(), sigma.backend()).unwrap();
            for (a, b) in wh.t[..d].iter().zip(em.values().iter()) {
                assert!(
                    (a - b).abs() <= 1e-10 * b.abs().max(1.0),
                    "d={d}: {a} vs {b}"
                );
            }
        }
    }
}
