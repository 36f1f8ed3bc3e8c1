//! Small Hermitian eigenproblems (`n ≤` [`SMALL_MAX`]) on fixed-size arrays: cyclic Jacobi.
//!
//! LAPACK's and nalgebra's solvers pay fixed costs (workspace queries, heap buffers, reductions to
//! tridiagonal form) that dominate at `n ≤ 16`. Here the matrix lives in a stack array
//! (`[[Complex64; N]; N]`, a const-generic size up to 16) and is diagonalised by the cyclic Jacobi method
//! (Golub & Van Loan, *Matrix Computations*, 4th ed., §8.5): each step is one complex plane rotation
//! that zeroes an off-diagonal pair `(p, q)`. For `n = 2` one rotation is the whole algorithm, so
//! this is the closed form of the `2 × 2` Hermitian eigenproblem, computed stably:
//! with `g = a_pq = |g| e^{iφ}`, `θ = (a_qq − a_pp)/(2|g|)`, `t = sign θ / (|θ| + √(1+θ²))`
//! (the smaller root of `t² + 2θt − 1 = 0`, no cancellation), `c = 1/√(1+t²)`, `s = t c`, the
//! eigenvalues are `a_pp − t|g|` and `a_qq + t|g|` and the rotation
//! `R = [[c, s e^{iφ}], [−s e^{−iφ}, c]]` holds the eigenvectors (`R† A R` diagonal).
//!
//! **Accuracy** (the derivation in `docs/divergences.md`, "small_jacobi"). Every rotation is
//! applied in a backward-stable way, so the computed eigenvalues are exact for `A + E` with
//! `‖E‖₂ ≤ c n ε ‖A‖₂` after the `O(log n)` sweeps needed — the same absolute bound as LAPACK's
//! `zheevd` (Wilkinson; Golub & Van Loan §8.5.5), which is what the zero threshold
//! `16 d ε λ_max` (`super::zero_threshold`) is built on. The stopping rule of Demmel & Veselić
//! ("Jacobi's method is more accurate than QR", SIAM J. Matrix Anal. Appl. 13 (1992), 1204–1245)
//! — a pair is left alone only when `|a_pq| ≤ ε √(|a_pp a_qq|)` — makes the method also
//! *relatively* accurate for positive definite matrices with a well-conditioned scaled matrix
//! `D^{−1/2} A D^{−1/2}` (`D = diag A`), which is more than LAPACK promises. The tests compare
//! against LAPACK on ill-conditioned, rank-deficient, degenerate and nearly degenerate inputs.
//!
//! From `n = 3` [`eigh_small`] uses Householder tridiagonalisation + implicit QL on the same stack
//! arrays ([`eigh_tridiagonal`]; Jacobi's `O(sweeps · n³)` loses to it from 3), used by the
//! allocation-free small-pair kernel of `divergence::small` and the stack route of
//! `divergence::batch`. [`Backend::Auto`](super::Backend::Auto) uses Jacobi up to
//! [`AUTO_JACOBI_MAX`] and the QL solver up to [`AUTO_SMALL_VECTORS_MAX`].
//! [`eigh_tridiagonal_pair`] runs two QL solves in lockstep (the two latency-bound dependency
//! chains overlapped; each lane [`eigh_tridiagonal`]'s result bit for bit), for callers that
//! decompose two states anyway.

// Index loops: the kernels read entries `m[i][j]` and their mirrors `m[j][i]` together.
#![allow(clippy::needless_range_loop)]

use crate::error::{Error, Result};
use ndarray::{Array1, Array2, ArrayView2};
use num_complex::Complex64;

/// Largest dimension of the fixed-size solver (its arrays are `[[_; N]; N]`, `N ≤ 16`).
pub const SMALL_MAX: usize = 16;

/// [`Backend::Auto`](super::Backend::Auto) answers complex Hermitian full decompositions of
/// dimension `1 ≤ d ≤` this with the fixed-size solvers: Jacobi ([`eigh_fixed`]) up to
/// [`AUTO_JACOBI_MAX`], Householder + QL ([`eigh_tridiagonal`], real rotations and the backward
/// application of the reflectors) above — full decompositions faster than nalgebra's and LAPACK's
/// at every `d ≤ 16` (values only: ahead of nalgebra, level with `zheevd` at `d = 8`;
/// docs/PERFORMANCE.md, "Fixed-size QL with real rotations (smalleig19)").
pub const AUTO_SMALL_VECTORS_MAX: usize = 16;

/// As [`AUTO_SMALL_VECTORS_MAX`], for values-only solves (the same solvers, so `eigvalsh` returns
/// the values of `eigh` bit for bit; one solver for both keeps a state's values the same whether
/// or not its vectors were asked for).
pub const AUTO_SMALL_VALUES_MAX: usize = 16;

/// [`Backend::Auto`](super::Backend::Auto)'s fixed-size solves use Jacobi (relatively accurate,
/// the `2 × 2` closed form) up to this dimension, the tridiagonal QL solver above.
pub const AUTO_JACOBI_MAX: usize = 3;

/// Sweeps after which the method gives up (quadratic convergence needs ≈ 5–8 at `n = 16`).
const MAX_SWEEPS: usize = 40;

/// A complex `N × N` matrix on the stack (row-major: `m[i][j]`).
pub type Mat<const N: usize> = [[Complex64; N]; N];

/// The `N × N` zero matrix.
pub fn zeros<const N: usize>() -> Mat<N> {
    [[Complex64::new(0.0, 0.0); N]; N]
}

/// Eigenvalues (ascending) and, when asked for, eigenvectors (columns) of an `N × N` matrix.
#[derive(Clone, Copy, Debug)]
pub struct SmallEigen<const N: usize> {
    /// `λ_0 ≤ … ≤ λ_{N−1}`.
    pub values: [f64; N],
    /// Column `k` (`vectors[·][k]`) is the eigenvector of `values[k]` (the identity when vectors
    /// were not asked for).
    pub vectors: Mat<N>,
}

impl<const N: usize> SmallEigen<N> {
    /// All zeros (a buffer to write into).
    pub const fn zeroed() -> Self {
        SmallEigen {
            values: [0.0; N],
            vectors: [[Complex64::new(0.0, 0.0); N]; N],
        }
    }
}

/// Call `$body` with `$n` as the constant `$N` for `1 ≤ $n ≤ 16`, else evaluate `$other`.
#[macro_export]
#[doc(hidden)]
macro_rules! with_small_dim {
    ($n:expr, $N:ident => $body:expr, _ => $other:expr) => {
        match $n {
            1 => {
                const $N: usize = 1;
                $body
            }
            2 => {
                const $N: usize = 2;
                $body
            }
            3 => {
                const $N: usize = 3;
                $body
            }
            4 => {
                const $N: usize = 4;
                $body
            }
            5 => {
                const $N: usize = 5;
                $body
            }
            6 => {
                const $N: usize = 6;
                $body
            }
            7 => {
                const $N: usize = 7;
                $body
            }
            8 => {
                const $N: usize = 8;
                $body
            }
            9 => {
                const $N: usize = 9;
                $body
            }
            10 => {
                const $N: usize = 10;
                $body
            }
            11 => {
                const $N: usize = 11;
                $body
            }
            12 => {
                const $N: usize = 12;
                $body
            }
            13 => {
                const $N: usize = 13;
                $body
            }
            14 => {
                const $N: usize = 14;
                $body
            }
            15 => {
                const $N: usize = 15;
                $body
            }
            16 => {
                const $N: usize = 16;
                $body
            }
            _ => $other,
        }
    };
}
pub use with_small_dim;

/// The Jacobi rotation that zeroes `(p, q)` of a Hermitian matrix: `(c, s·e^{iφ}, t)`.
#[inline]
fn rotation(app: f64, aqq: f64, g: Complex64, abs: f64) -> (f64, Complex64, f64) {
    let theta = (aqq - app) / (2.0 * abs);
    // t = sign θ/(|θ| + √(1+θ²)); for huge θ, 1/(2θ) (θ² would overflow)
    let t = if theta.abs() > 1e150 {
        0.5 / theta
    } else {
        theta.signum() / (theta.abs() + (1.0 + theta * theta).sqrt())
    };
    let c = 1.0 / (1.0 + t * t).sqrt();
    let phase = g / abs;
    (c, phase * (t * c), t)
}

/// Eigendecomposition of the Hermitian `a` (the lower triangle is read; the upper is taken as its
/// conjugate) by cyclic Jacobi; `vectors = false` skips the accumulation of the rotations.
///
/// Errors: a non-finite entry, or no convergence within 40 sweeps ([`Error::Eigensolver`]).
pub fn eigh_fixed<const N: usize>(a: &Mat<N>, vectors: bool) -> Result<SmallEigen<N>> {
    let (mut m, scale) = hermitian_copy(a)?;
    let mut v = zeros::<N>();
    for (i, row) in v.iter_mut().enumerate() {
        row[i] = Complex64::new(1.0, 0.0);
    }
    let eps = f64::EPSILON;
    let mut converged = N < 2;
    for _ in 0..MAX_SWEEPS {
        if converged {
            break;
        }
        let mut rotated = false;
        for p in 0..N {
            for q in p + 1..N {
                let g = m[p][q];
                let (app, aqq) = (m[p][p].re, m[q][q].re);
                // Demmel–Veselić: negligible relative to the diagonal (or exactly zero), compared
                // in squares (|g|² overflows only beyond 1e154: then hypot)
                let abs2 = g.norm_sqr();
                if abs2 <= eps * eps * (app * aqq).abs() || abs2 == 0.0 {
                    continue;
                }
                let abs = if abs2.is_finite() && abs2 >= f64::MIN_POSITIVE {
                    abs2.sqrt()
                } else {
                    g.norm()
                };
                if abs <= eps * (app.abs() * aqq.abs()).sqrt() || abs < f64::MIN_POSITIVE {
                    continue;
                }
                rotated = true;
                let (c, se, t) = rotation(app, aqq, g, abs);
                let diagonal = (app - t * abs, aqq + t * abs);
                jacobi_rotate(&mut m, &mut v, (p, q), (c, se), diagonal, vectors);
            }
        }
        converged = !rotated;
    }
    jacobi_finish(converged, &m, v, scale, vectors)
}

/// Applies the Jacobi rotation `(c, s e^{iφ})` of the pair `(p, q)` to the Hermitian `m` (rows and
/// columns `k ∉ {p, q}`; `a_kp ← c a_kp − conj(s e^{iφ}) a_kq`, `a_kq ← s e^{iφ} a_kp + c a_kq`, their
/// mirrors conjugated), sets the new diagonal `(a_pp, a_qq)` and zeroes `a_pq`; with `vectors`,
/// rotates columns `p`, `q` of `v` alike. The one update of both Jacobi methods
/// ([`eigh_fixed`], `small_lanes::eigh_jacobi_parallel`).
#[inline(always)]
pub(crate) fn jacobi_rotate<const N: usize>(
    m: &mut Mat<N>,
    v: &mut Mat<N>,
    (p, q): (usize, usize),
    (c, se): (f64, Complex64),
    (app, aqq): (f64, f64),
    vectors: bool,
) {
    let sec = se.conj();
    for k in 0..N {
        if k == p || k == q {
            continue;
        }
        let (akp, akq) = (m[k][p], m[k][q]);
        let np = akp * c - akq * sec;
        let nq = akp * se + akq * c;
        m[k][p] = np;
        m[p][k] = np.conj();
        m[k][q] = nq;
        m[q][k] = nq.conj();
    }
    m[p][p] = Complex64::new(app, 0.0);
    m[q][q] = Complex64::new(aqq, 0.0);
    m[p][q] = Complex64::new(0.0, 0.0);
    m[q][p] = Complex64::new(0.0, 0.0);
    if vectors {
        for row in v.iter_mut() {
            let (vkp, vkq) = (row[p], row[q]);
            row[p] = vkp * c - vkq * sec;
            row[q] = vkp * se + vkq * c;
        }
    }
}

/// The end of both Jacobi methods: the typed error without convergence, else the diagonal of `m`
/// divided by the input scale, sorted ascending with `v`'s columns ([`ascending`]).
pub(crate) fn jacobi_finish<const N: usize>(
    converged: bool,
    m: &Mat<N>,
    v: Mat<N>,
    scale: f64,
    vectors: bool,
) -> Result<SmallEigen<N>> {
    if !converged {
        return Err(Error::Eigensolver {
            backend: "jacobi",
            reason: format!("no convergence within {MAX_SWEEPS} sweeps"),
        });
    }
    let mut values = [0.0; N];
    for k in 0..N {
        values[k] = m[k][k].re / scale;
    }
    Ok(ascending(values, v, vectors))
}

/// Sort `values` ascending in place (insertion sort, stable) and return the permutation:
/// `order[k]` is the old index of the value now at `k`.
pub(crate) fn sort_ascending<const N: usize>(values: &mut [f64; N]) -> [usize; N] {
    let mut order = [0usize; N];
    for (k, o) in order.iter_mut().enumerate() {
        *o = k;
    }
    for k in 1..N {
        let mut j = k;
        while j > 0 && values[j - 1] > values[j] {
            values.swap(j - 1, j);
            order.swap(j - 1, j);
            j -= 1;
        }
    }
    order
}

/// Sort eigenpairs ascending (insertion sort of at most 16 values; columns of `v` permuted alike
/// when `vectors`).
pub(crate) fn ascending<const N: usize>(
    mut values: [f64; N],
    mut v: Mat<N>,
    vectors: bool,
) -> SmallEigen<N> {
    let order = sort_ascending(&mut values);
    if vectors && order.iter().enumerate().any(|(k, &o)| k != o) {
        let mut sorted = zeros::<N>();
        for (dst, src) in sorted.iter_mut().zip(&v) {
            for k in 0..N {
                dst[k] = src[order[k]];
            }
        }
        v = sorted;
    }
    SmallEigen { values, vectors: v }
}

/// The Hermitian matrix whose lower triangle is `a`'s (upper = its conjugate, real diagonal),
/// multiplied by the power of two `s` that brings its largest entry near 1 (exact; eigenvalues are
/// divided by `s` at the end, so no square of an entry underflows or overflows), and `s`; a
/// non-finite entry is an error.
pub(crate) fn hermitian_copy<const N: usize>(a: &Mat<N>) -> Result<(Mat<N>, f64)> {
    let mut m = *a;
    for i in 0..N {
        for j in 0..i {
            let z = m[i][j];
            if !(z.re.is_finite() && z.im.is_finite()) {
                return Err(non_finite());
            }
            m[j][i] = z.conj();
        }
        let d = m[i][i].re;
        if !d.is_finite() {
            return Err(non_finite());
        }
        m[i][i] = Complex64::new(d, 0.0);
    }
    let big = m
        .iter()
        .flatten()
        .fold(0.0f64, |x, z| x.max(z.re.abs()).max(z.im.abs()));
    let scale = power_of_two_scale(big);
    if scale != 1.0 {
        for z in m.iter_mut().flatten() {
            *z *= scale;
        }
    }
    Ok((m, scale))
}

/// `2^{−round(log₂ big)}` (exponent clamped to ±1000; 1 for `big = 0`): the exact power of two
/// that brings `big` near 1. Read from the exponent bits — `round(log₂ big)` is the exponent `e`,
/// or `e + 1` when the significand exceeds `√2` — except where that needs the libm formula itself
/// (significand within 10⁻¹⁰ of `√2`, where `log₂`'s rounding decides; subnormal or non-finite
/// `big`), so the value is always the formula's (test `power_of_two_scale_is_the_formula`).
#[inline]
pub(crate) fn power_of_two_scale(big: f64) -> f64 {
    let formula = |b: f64| {
        if b > 0.0 {
            2f64.powi(-(b.log2().round() as i32).clamp(-1000, 1000))
        } else {
            1.0
        }
    };
    if !(big.is_finite() && big >= f64::MIN_POSITIVE) {
        return formula(big);
    }
    let bits = big.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32 - 1023;
    let m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if (m - std::f64::consts::SQRT_2).abs() < 1e-10 {
        return formula(big);
    }
    let k = (if m > std::f64::consts::SQRT_2 {
        e + 1
    } else {
        e
    })
    .clamp(-1000, 1000);
    // 2^{−k}, k ∈ [−1000, 1000]: a normal double, built from its exponent bits
    f64::from_bits(((1023 - k) as u64) << 52)
}

/// Iterations of the implicit QL method allowed per eigenvalue (two or three are typical).
const MAX_QL_ITERATIONS: usize = 60;

/// `√(x² + y²)` without the cost of `f64::hypot` where the squares neither overflow nor
/// underflow (the solver works on a matrix scaled to entries of order one).
#[inline]
fn norm2(x: f64, y: f64) -> f64 {
    let s = x * x + y * y;
    if s.is_finite() && s >= f64::MIN_POSITIVE {
        s.sqrt()
    } else {
        x.hypot(y)
    }
}

/// Eigendecomposition of the Hermitian `a` (lower triangle read, as [`eigh_fixed`]) by Householder
/// reduction to tridiagonal form and the implicit QL method with Wilkinson shifts (Golub & Van Loan,
/// *Matrix Computations*, 4th ed., §8.3; Wilkinson & Reinsch, *Handbook for Automatic Computation*
/// II, "tql2") — LAPACK's `zhetrd` + `zsteqr` route, on stack arrays.
///
/// 1. `A` is scaled by a power of two (exact) to largest entry ≈ 1.
/// 2. For `k = 0 … N−3` the Hermitian reflector `H_k = I − τ v v†` maps column `k` below the
///    diagonal to `(α, 0, …)`, `α = −e^{i arg x₀}‖x‖` (no cancellation in `v₀ = x₀ − α`); the
///    trailing block is updated as `B − v w† − w v†` with `p = τBv`, `w = p − (τ/2)(v†p) v`, on
///    split real and imaginary `N × N` arrays: `Bv` as axpys of whole rows (column `j` of `B` is the
///    conjugate of row `j`), the update on whole rows, the two products subtracted in swapped order
///    above the diagonal, so the matrix stays exactly Hermitian with no mirror writes.
///    `A = Q T Q†`, `Q = H₀H₁⋯`.
/// 3. The complex subdiagonal `e_k` is made real by the diagonal unitary `D`, `δ₀ = 1`,
///    `δ_{k+1} = δ_k e_k/|e_k|`: `D†TD` has subdiagonal `|e_k|`.
/// 4. Implicit QL on the real symmetric tridiagonal matrix; each plane rotation is applied to the
///    columns of `QD` when vectors are wanted.
///
/// Backward stable: the eigenvalues are exact for `A + E`, `‖E‖₂ ≤ c N ε ‖A‖₂` — LAPACK's bound,
/// the one the zero threshold `16 d ε λ_max` rests on (not Jacobi's relative accuracy; the α < 1
/// routes that need relative accuracy never use it).
///
/// Errors: a non-finite entry, or no convergence within 60 QL iterations per eigenvalue
/// ([`Error::Eigensolver`]).
pub fn eigh_tridiagonal<const N: usize>(a: &Mat<N>, vectors: bool) -> Result<SmallEigen<N>> {
    #[cfg(target_arch = "x86_64")]
    {
        if N >= AVX2_FROM && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { eigh_tridiagonal_avx2(a, vectors) };
        }
    }
    eigh_tridiagonal_body(a, vectors)
}

/// Smallest dimension at which [`eigh_tridiagonal`] runs its AVX2 build.
#[cfg(target_arch = "x86_64")]
const AVX2_FROM: usize = 4;

/// [`eigh_tridiagonal_body`] compiled for AVX2: the same operations in the same order (Rust never
/// contracts `a·b + c` into a fused multiply–add, and AVX2 only widens the vectors), so the same
/// rounding, bit for bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn eigh_tridiagonal_avx2<const N: usize>(
    a: &Mat<N>,
    vectors: bool,
) -> Result<SmallEigen<N>> {
    eigh_tridiagonal_body(a, vectors)
}

/// [`eigh_tridiagonal`] without the AVX2 build (the reference its tests compare against).
#[doc(hidden)]
pub fn eigh_tridiagonal_portable<const N: usize>(
    a: &Mat<N>,
    vectors: bool,
) -> Result<SmallEigen<N>> {
    eigh_tridiagonal_body(a, vectors)
}

#[inline(always)]
fn eigh_tridiagonal_body<const N: usize>(a: &Mat<N>, vectors: bool) -> Result<SmallEigen<N>> {
    // 1. exact scaling by a power of two, on split real and imaginary parts
    let mut t = Reduction::<N>::new();
    t.load(a)?;
    // 2. Householder reduction, column by column
    for k in 0..N.saturating_sub(1) {
        let mut c = Column::<N>::new();
        if t.reflector(k, &mut c) {
            t.times_v(k, &mut c);
            c.rank_two(k);
            t.update(k, &c, vectors);
        }
    }
    // 3. real subdiagonal by the phases δ
    let mut q = QlLane::<N>::new();
    t.ql_lane(&mut q, vectors);
    // 4. implicit QL with Wilkinson shifts, as structured loops (the pair's `QlLane::step` is this
    // loop unrolled into steps)
    let (d, e, zt) = (&mut q.d, &mut q.e, &mut q.zt);
    let eps = f64::EPSILON;
    for l in 0..N {
        let mut iterations = 0;
        loop {
            let mut mm = l;
            while mm + 1 < N {
                let dd = d[mm].abs() + d[mm + 1].abs();
                if e[mm].abs() <= eps * dd || e[mm] == 0.0 {
                    break;
                }
                mm += 1;
            }
            if mm == l {
                break;
            }
            iterations += 1;
            if iterations > MAX_QL_ITERATIONS {
                return Err(ql_failure());
            }
            let mut g = (d[l + 1] - d[l]) / (2.0 * e[l]);
            let r = norm2(g, 1.0);
            g = d[mm] - d[l] + e[l] / (g + r.copysign(g));
            let (mut s, mut c, mut p) = (1.0, 1.0, 0.0);
            let mut deflated = false;
            let mut i = mm;
            while i > l {
                i -= 1;
                match ql_rotation(d, e, zt, i, (s, c, p, g), vectors) {
                    Some(next) => (s, c, p, g) = next,
                    None => {
                        // underflow: the rotation splits the matrix, restart the sweep
                        d[i + 1] -= p;
                        e[mm] = 0.0;
                        deflated = true;
                        break;
                    }
                }
            }
            if deflated {
                continue;
            }
            d[l] -= p;
            e[l] = g;
            e[mm] = 0.0;
        }
    }
    // 5. sort, back-transformation
    let mut out = SmallEigen::zeroed();
    t.finish(&q, vectors, &mut out);
    Ok(out)
}

/// The QL iteration's error after [`MAX_QL_ITERATIONS`] for one eigenvalue.
fn ql_failure() -> Error {
    Error::Eigensolver {
        backend: "tridiagonal-ql",
        reason: format!("no convergence within {MAX_QL_ITERATIONS} QL iterations"),
    }
}

/// One plane rotation of the implicit QL sweep at row `i` on `(d, e)` (and the rows `i, i+1` of
/// `Zᵀ` when vectors are wanted), from the carried `(s, c, p, g)`: the next `(s, c, p, g)`, or
/// `None` when `r = √(f² + g²)` underflows to 0 (the caller restarts the sweep; `e_{i+1} = 0`).
#[inline(always)]
fn ql_rotation<const N: usize>(
    d: &mut [f64; N],
    e: &mut [f64; N],
    zt: &mut [[f64; N]; N],
    i: usize,
    (s, c, p, g): (f64, f64, f64, f64),
    vectors: bool,
) -> Option<(f64, f64, f64, f64)> {
    let f = s * e[i];
    let b = c * e[i];
    let r = norm2(f, g);
    e[i + 1] = r;
    if r == 0.0 {
        return None;
    }
    let s = f / r;
    let c = g / r;
    let g = d[i + 1] - p;
    let r = (d[i] - g) * s + 2.0 * c * b;
    let p = s * r;
    d[i + 1] = g + p;
    let g = c * r - b;
    if vectors {
        let (lo, hi) = zt.split_at_mut(i + 1);
        let (zi, zi1) = (&mut lo[i], &mut hi[0]);
        for t in 0..N {
            let (x, y) = (zi[t], zi1[t]);
            zi1[t] = x * s + y * c;
            zi[t] = x * c - y * s;
        }
    }
    Some((s, c, p, g))
}

/// Steps 1–3 and 5 of [`eigh_tridiagonal`] on one matrix: the scaled working matrix on split real
/// and imaginary parts, the reflectors and the subdiagonal. [`eigh_tridiagonal`] and
/// [`eigh_tridiagonal_pair`] run the same stages (and the same [`ql_rotation`]); only the QL loop
/// differs in shape — structured loops in the one-matrix solver (a version driven by
/// `QlLane::step` measured ≈ 9 % slower at `d = 16`), `QlLane::step` in the pair — with the same
/// operations in the same order (test `tridiagonal_pair_is_bitwise_single`).
struct Reduction<const N: usize> {
    // the working matrix on split real and imaginary parts, full Hermitian storage (the values of
    // `hermitian_copy`); every update keeps it exactly Hermitian (mr symmetric, mi antisymmetric
    // with a zero diagonal)
    mr: [[f64; N]; N],
    mi: [[f64; N]; N],
    scale: f64,
    // the reflectors (row k: v of H_k, entries k+1..N) and their τ (0: H_k = I), kept for the
    // backward application of step 5
    refl: Mat<N>,
    taus: [f64; N],
    // the subdiagonal of the tridiagonal matrix (entry k: row k+1, column k)
    sub: [Complex64; N],
}

impl<const N: usize> Reduction<N> {
    /// All zeros.
    #[inline(always)]
    fn new() -> Self {
        Reduction {
            mr: [[0.0f64; N]; N],
            mi: [[0.0f64; N]; N],
            scale: 1.0,
            refl: zeros::<N>(),
            taus: [0.0f64; N],
            sub: [Complex64::new(0.0, 0.0); N],
        }
    }

    /// 1. The lower triangle of `a` on split parts (into a [`Reduction::new`]), scaled exactly by a
    ///    power of two; a non-finite entry is an error.
    #[inline(always)]
    fn load(&mut self, a: &Mat<N>) -> Result<()> {
        let (mr, mi) = (&mut self.mr, &mut self.mi);
        let mut big = 0.0f64;
        for i in 0..N {
            for j in 0..i {
                let z = a[i][j];
                if !(z.re.is_finite() && z.im.is_finite()) {
                    return Err(non_finite());
                }
                mr[i][j] = z.re;
                mi[i][j] = z.im;
                mr[j][i] = z.re;
                mi[j][i] = -z.im;
                big = big.max(z.re.abs()).max(z.im.abs());
            }
            let d = a[i][i].re;
            if !d.is_finite() {
                return Err(non_finite());
            }
            mr[i][i] = d;
            big = big.max(d.abs());
        }
        let scale = power_of_two_scale(big);
        if scale != 1.0 {
            for i in 0..N {
                for j in 0..N {
                    mr[i][j] *= scale;
                    mi[i][j] *= scale;
                }
            }
        }
        self.scale = scale;
        Ok(())
    }

    /// Column `k` of two reductions, phase by phase (each reduction's operations in
    /// `eigh_tridiagonal_body`'s order, so each result is its own column's bit for bit): the short
    /// serial chains of one lane (the norms, the square root and divisions of the reflector, the
    /// dot product `v†p`) beside the other lane's, where the out-of-order core overlaps them.
    #[inline(always)]
    fn column_pair(a: &mut Self, b: &mut Self, k: usize, vectors: bool) {
        let (mut ca, mut cb) = (Column::<N>::new(), Column::<N>::new());
        let ra = a.reflector(k, &mut ca);
        let rb = b.reflector(k, &mut cb);
        if ra {
            a.times_v(k, &mut ca);
        }
        if rb {
            b.times_v(k, &mut cb);
        }
        if ra {
            ca.rank_two(k);
        }
        if rb {
            cb.rank_two(k);
        }
        if ra {
            a.update(k, &ca, vectors);
        }
        if rb {
            b.update(k, &cb, vectors);
        }
    }

    /// The reflector of column `k`: the subdiagonal entry, and `v`, `τ` in `c`; `false` where
    /// `H_k = I` (nothing else to do for this column).
    #[inline(always)]
    fn reflector(&mut self, k: usize, c: &mut Column<N>) -> bool {
        let (mr, mi) = (&self.mr, &self.mi);
        let x0 = Complex64::new(mr[k][k + 1], -mi[k][k + 1]);
        self.sub[k] = x0;
        if k + 2 >= N {
            return false;
        }
        let mut tail = 0.0f64;
        for i in k + 2..N {
            tail += mr[k][i] * mr[k][i] + mi[k][i] * mi[k][i];
        }
        if tail < f64::MIN_POSITIVE {
            // already tridiagonal in this column (or below 1e-308 of the scaled ‖A‖ ≈ 1): H = I
            return false;
        }
        let xnorm = (x0.norm_sqr() + tail).sqrt();
        // |x₀| by `norm2` (a square root; `hypot` only where the squares under- or overflow):
        // glibc's `hypot` call sat on this column's dependency chain (docs/PERFORMANCE.md,
        // "call23")
        let x0abs = norm2(x0.re, x0.im);
        let phase = if x0abs > 0.0 {
            x0 / x0abs
        } else {
            Complex64::new(1.0, 0.0)
        };
        let alpha = -phase * xnorm;
        self.sub[k] = alpha;
        // v on split parts (entries k+1..N)
        let v0 = x0 - alpha;
        c.vr[k + 1] = v0.re;
        c.vi[k + 1] = v0.im;
        for i in k + 2..N {
            c.vr[i] = mr[k][i];
            c.vi[i] = -mi[k][i];
        }
        c.tau = 2.0 / (v0.norm_sqr() + tail);
        true
    }

    /// `p = B v` on the trailing block as axpys over its rows: column j of B is the conjugate of
    /// row j, so p_i += conj(b_ji) v_j. The axpys run over whole rows (unmasked vectors): the
    /// entries i ≤ k of p are never read.
    #[inline(always)]
    fn times_v(&self, k: usize, c: &mut Column<N>) {
        let (mr, mi) = (&self.mr, &self.mi);
        let (vr, vi) = (&c.vr, &c.vi);
        let (pr, pi) = (&mut c.pr, &mut c.pi);
        let lo = trailing_from(k);
        for j in k + 1..N {
            let (a, b) = (vr[j], vi[j]);
            let (rr, ri) = (&mr[j], &mi[j]);
            for i in lo..N {
                pr[i] += rr[i] * a + ri[i] * b;
                pi[i] += rr[i] * b - ri[i] * a;
            }
        }
    }

    /// `B ← B − v w† − w v†` on whole rows: entry (i, j) as (b − v_i w̄_j) − w_i v̄_j on and below
    /// the diagonal and (b − w_i v̄_j) − v_i w̄_j above it — the conjugate of entry (j, i), bit
    /// for bit (the products of (j, i) are those of (i, j) conjugated and swapped), so the
    /// matrix stays exactly Hermitian with no mirror writes. v and w are zero at j ≤ k: the
    /// (never read) entries left of the trailing block lose exact zeros. The reflector is kept
    /// for step 5 when vectors are wanted.
    #[inline(always)]
    fn update(&mut self, k: usize, col: &Column<N>, vectors: bool) {
        let (mr, mi) = (&mut self.mr, &mut self.mi);
        let (vr, vi, wr, wi) = (&col.vr, &col.vi, &col.wr, &col.wi);
        let lo = trailing_from(k);
        for i in k + 1..N {
            let (a, b, c, dd) = (vr[i], vi[i], wr[i], wi[i]);
            let (rr, ri) = (&mut mr[i], &mut mi[i]);
            for j in lo..N {
                let (xr, xi) = (a * wr[j] + b * wi[j], b * wr[j] - a * wi[j]);
                let (yr, yi) = (c * vr[j] + dd * vi[j], dd * vr[j] - c * vi[j]);
                let (lr, li) = ((rr[j] - xr) - yr, (ri[j] - xi) - yi);
                let (ur, ui) = ((rr[j] - yr) - xr, (ri[j] - yi) - xi);
                let lower = j <= i;
                rr[j] = if lower { lr } else { ur };
                ri[j] = if lower { li } else { ui };
            }
        }
        if vectors {
            for i in k + 1..N {
                self.refl[k][i] = Complex64::new(vr[i], vi[i]);
            }
            self.taus[k] = col.tau;
        }
    }

    /// 3. The real symmetric tridiagonal matrix `D†TD` (diagonal, `|e_k|`) as a QL lane, and
    ///    the phases δ (δ_0 = 1, δ_{i+1} = δ_i e_i/|e_i|) kept in `sub` for step 5.
    #[inline(always)]
    fn ql_lane(&mut self, q: &mut QlLane<N>, vectors: bool) {
        if vectors {
            q.identity();
        }
        let mut delta = Complex64::new(1.0, 0.0);
        for i in 0..N {
            q.d[i] = self.mr[i][i];
            let s = self.sub[i];
            self.sub[i] = delta;
            if i + 1 < N {
                let abs = norm2(s.re, s.im);
                q.e[i] = abs;
                if abs > 0.0 {
                    delta *= s / abs;
                }
            }
        }
    }

    /// 5. The eigenvalues unscaled and sorted ascending with their vectors: the back-transformation
    ///    `V = H₀H₁⋯H_{N−3} (D Z)`, the reflectors applied from the left in reverse order
    ///    (LAPACK's zunmtr route: Q is never formed), on split real and imaginary parts so that
    ///    every update is a contiguous real axpy.
    #[inline(always)]
    fn finish(&self, q: &QlLane<N>, vectors: bool, out: &mut SmallEigen<N>) {
        let (mut d, zt) = (q.d, &q.zt);
        if self.scale != 1.0 {
            for x in d.iter_mut() {
                *x /= self.scale;
            }
        }
        if !vectors {
            // `ascending(d, zeros, false)`: the values sorted, zero vectors
            sort_ascending(&mut d);
            out.values = d;
            out.vectors = zeros::<N>();
            return;
        }
        // sort the eigenpairs ascending: the columns of Z (rows of zt) move with their values
        let order = sort_ascending(&mut d);
        let deltas = &self.sub;
        let mut xr = [[0.0f64; N]; N];
        let mut xi = [[0.0f64; N]; N];
        for r in 0..N {
            let (dr, di) = (deltas[r].re, deltas[r].im);
            for k in 0..N {
                let z = zt[order[k]][r];
                xr[r][k] = dr * z;
                xi[r][k] = di * z;
            }
        }
        for k in (0..N.saturating_sub(2)).rev() {
            let tau = self.taus[k];
            if tau == 0.0 {
                continue;
            }
            let v = &self.refl[k];
            // w = v† X (rows k+1..N)
            let mut wr = [0.0f64; N];
            let mut wi = [0.0f64; N];
            for i in k + 1..N {
                let (vr, vi) = (v[i].re, v[i].im);
                let (rr, ri) = (&xr[i], &xi[i]);
                for c in 0..N {
                    wr[c] += vr * rr[c] + vi * ri[c];
                    wi[c] += vr * ri[c] - vi * rr[c];
                }
            }
            // X ← X − τ v w
            for i in k + 1..N {
                let (ar, ai) = (tau * v[i].re, tau * v[i].im);
                let (rr, ri) = (&mut xr[i], &mut xi[i]);
                for c in 0..N {
                    let (pr, pi) = (ar * wr[c] - ai * wi[c], ar * wi[c] + ai * wr[c]);
                    rr[c] -= pr;
                    ri[c] -= pi;
                }
            }
        }
        out.values = d;
        for r in 0..N {
            for k in 0..N {
                out.vectors[r][k] = Complex64::new(xr[r][k], xi[r][k]);
            }
        }
    }
}

/// The first column the updates of Householder step `k` touch: `k + 1` (the trailing block's
/// first column) rounded down to a multiple of four, so that every row segment is whole AVX2
/// vectors. The entries left of column `k + 1` are never read after step `k` (and `v`, `w` are
/// zero there), so the result does not depend on where in `0..=k+1` the loops start.
#[inline(always)]
fn trailing_from(k: usize) -> usize {
    (k + 1) & !3
}

/// One column's Householder data (split real and imaginary parts, entries k+1..N): `v`, `τ`,
/// `p = B v` (then `τ p`) and `w`.
struct Column<const N: usize> {
    vr: [f64; N],
    vi: [f64; N],
    tau: f64,
    pr: [f64; N],
    pi: [f64; N],
    wr: [f64; N],
    wi: [f64; N],
}

impl<const N: usize> Column<N> {
    #[inline(always)]
    fn new() -> Self {
        Column {
            vr: [0.0; N],
            vi: [0.0; N],
            tau: 0.0,
            pr: [0.0; N],
            pi: [0.0; N],
            wr: [0.0; N],
            wi: [0.0; N],
        }
    }

    /// `w = τp − ½τ(v†τp) v` (v†Bv is real).
    #[inline(always)]
    fn rank_two(&mut self, k: usize) {
        let tau = self.tau;
        for i in k + 1..N {
            self.pr[i] *= tau;
            self.pi[i] *= tau;
        }
        let mut vp = 0.0f64;
        for i in k + 1..N {
            vp += self.vr[i] * self.pr[i] + self.vi[i] * self.pi[i];
        }
        let half = 0.5 * tau * vp;
        for i in k + 1..N {
            self.wr[i] = self.pr[i] - self.vr[i] * half;
            self.wi[i] = self.pi[i] - self.vi[i] * half;
        }
    }
}

/// Step 4 of [`eigh_tridiagonal`], implicit QL with Wilkinson shifts on one real symmetric
/// tridiagonal matrix, as a resumable recurrence: [`QlLane::step`] performs one plane rotation (or
/// the split search and shift that start a sweep), so that [`eigh_tridiagonal_pair`] can advance two
/// independent lanes in one loop and the out-of-order core overlaps their dependency chains. The
/// rotations accumulate into the REAL matrix Z, held transposed (`zt[k]` is column k of Z), so that
/// each rotation updates two contiguous rows.
struct QlLane<const N: usize> {
    d: [f64; N],
    e: [f64; N],
    zt: [[f64; N]; N],
    // the eigenvalue being isolated, the end of its unreduced block, the next rotation's row
    l: usize,
    mm: usize,
    i: usize,
    iterations: usize,
    // the recurrence's carried values
    s: f64,
    c: f64,
    p: f64,
    g: f64,
    // inside a sweep (rotations left) or before one (split search next)
    sweeping: bool,
}

impl<const N: usize> QlLane<N> {
    #[inline(always)]
    fn new() -> Self {
        QlLane {
            d: [0.0; N],
            e: [0.0; N],
            zt: [[0.0f64; N]; N],
            l: 0,
            mm: 0,
            i: 0,
            iterations: 0,
            s: 1.0,
            c: 1.0,
            p: 0.0,
            g: 0.0,
            sweeping: false,
        }
    }

    /// Z = I (before the first rotation, when vectors are wanted).
    #[inline(always)]
    fn identity(&mut self) {
        for (k, row) in self.zt.iter_mut().enumerate() {
            row[k] = 1.0;
        }
    }

    /// One unit of the QL iteration: outside a sweep, the split search from `l` (deflated
    /// eigenvalues passed over) and the Wilkinson shift that starts the next sweep; inside one, one
    /// plane rotation. `Ok(false)` once every eigenvalue is isolated; an error after 60 sweeps for
    /// one eigenvalue.
    ///
    /// The operations and their order are those of the structured loop `for l { loop { split
    /// search; shift; for i in (l..mm).rev() { rotation } } }` (LAPACK's `zsteqr` QL branch,
    /// tql2), so one lane's `(d, e, Z)` does not depend on how its steps are interleaved with
    /// another lane's.
    #[inline(always)]
    fn step(&mut self, vectors: bool) -> Result<bool> {
        let (d, e) = (&mut self.d, &mut self.e);
        if !self.sweeping {
            let eps = f64::EPSILON;
            let l = self.l;
            let mut mm = l;
            while mm + 1 < N {
                let dd = d[mm].abs() + d[mm + 1].abs();
                if e[mm].abs() <= eps * dd || e[mm] == 0.0 {
                    break;
                }
                mm += 1;
            }
            if mm == l {
                // d[l] is an eigenvalue: the next l (a fresh iteration count)
                self.l += 1;
                self.iterations = 0;
                return Ok(self.l < N);
            }
            self.iterations += 1;
            if self.iterations > MAX_QL_ITERATIONS {
                return Err(ql_failure());
            }
            let g = (d[l + 1] - d[l]) / (2.0 * e[l]);
            let r = norm2(g, 1.0);
            self.g = d[mm] - d[l] + e[l] / (g + r.copysign(g));
            (self.s, self.c, self.p) = (1.0, 1.0, 0.0);
            self.mm = mm;
            self.i = mm;
            self.sweeping = true;
            return Ok(true);
        }
        let (l, mm) = (self.l, self.mm);
        let i = self.i - 1;
        self.i = i;
        let carried = (self.s, self.c, self.p, self.g);
        let Some((s, c, p, g)) = ql_rotation(d, e, &mut self.zt, i, carried, vectors) else {
            // underflow: the rotation splits the matrix, restart the sweep
            d[i + 1] -= self.p;
            e[mm] = 0.0;
            self.sweeping = false;
            return Ok(true);
        };
        if i == l {
            // the sweep's end
            d[l] -= p;
            e[l] = g;
            e[mm] = 0.0;
            self.sweeping = false;
        }
        (self.s, self.c, self.p, self.g) = (s, c, p, g);
        Ok(true)
    }
}

/// Two independent eigendecompositions by [`eigh_tridiagonal`] in one call: each result is
/// [`eigh_tridiagonal`]'s on that matrix, bit for bit (values, vectors, errors). The two
/// Householder reductions advance column by column and the two QL iterations rotation by rotation
/// in one loop (`QlLane::step`), so the out-of-order core overlaps the two latency-bound
/// dependency chains (a QL rotation is a chain of a square root, two divisions and the products
/// that feed the next; docs/divergences.md, "eigh_tridiagonal_pair"). For callers that decompose
/// two states anyway (the validation of both operands, the Petz, Umegaki, maximal and fidelity
/// routes).
pub fn eigh_tridiagonal_pair<const N: usize>(
    a: &Mat<N>,
    b: &Mat<N>,
    vectors: bool,
) -> (Result<SmallEigen<N>>, Result<SmallEigen<N>>) {
    let mut out = [SmallEigen::zeroed(); 2];
    let [x, y] = eigh_tridiagonal_pair_into(a, b, vectors, &mut out);
    (x.map(|_| out[0]), y.map(|_| out[1]))
}

/// [`eigh_tridiagonal_pair`] written into `out` (no copies of the results): lane `l`'s error, or
/// `Ok` with its decomposition in `out[l]` (a lane that failed holds unspecified numbers).
pub fn eigh_tridiagonal_pair_into<const N: usize>(
    a: &Mat<N>,
    b: &Mat<N>,
    vectors: bool,
    out: &mut [SmallEigen<N>; 2],
) -> [Result<()>; 2] {
    #[cfg(target_arch = "x86_64")]
    {
        if N >= AVX2_FROM && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { eigh_tridiagonal_pair_avx2(a, b, vectors, out) };
        }
    }
    eigh_tridiagonal_pair_body(a, b, vectors, out)
}

/// [`eigh_tridiagonal_pair_body`] compiled for AVX2 (as [`eigh_tridiagonal_avx2`]: the same
/// operations, the same rounding).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn eigh_tridiagonal_pair_avx2<const N: usize>(
    a: &Mat<N>,
    b: &Mat<N>,
    vectors: bool,
    out: &mut [SmallEigen<N>; 2],
) -> [Result<()>; 2] {
    eigh_tridiagonal_pair_body(a, b, vectors, out)
}

/// [`eigh_tridiagonal_pair`] without the AVX2 build.
#[doc(hidden)]
pub fn eigh_tridiagonal_pair_portable<const N: usize>(
    a: &Mat<N>,
    b: &Mat<N>,
    vectors: bool,
) -> (Result<SmallEigen<N>>, Result<SmallEigen<N>>) {
    let mut out = [SmallEigen::zeroed(); 2];
    let [x, y] = eigh_tridiagonal_pair_body(a, b, vectors, &mut out);
    (x.map(|_| out[0]), y.map(|_| out[1]))
}

/// [`eigh_tridiagonal_body`] on one matrix, written into `out`.
#[inline(always)]
fn single_into<const N: usize>(a: &Mat<N>, vectors: bool, out: &mut SmallEigen<N>) -> Result<()> {
    *out = eigh_tridiagonal_body(a, vectors)?;
    Ok(())
}

/// The two-lane solve ([`eigh_tridiagonal_pair_into`]).
#[inline(always)]
fn eigh_tridiagonal_pair_body<const N: usize>(
    a: &Mat<N>,
    b: &Mat<N>,
    vectors: bool,
    out: &mut [SmallEigen<N>; 2],
) -> [Result<()>; 2] {
    let [oa, ob] = out;
    let (mut ta, mut tb) = (Reduction::<N>::new(), Reduction::<N>::new());
    match (ta.load(a), tb.load(b)) {
        (Ok(()), Ok(())) => (),
        // a non-finite input: its error, and the other matrix alone
        (Err(e), _) => return [Err(e), single_into(b, vectors, ob)],
        (_, Err(e)) => return [single_into(a, vectors, oa), Err(e)],
    }
    for k in 0..N.saturating_sub(1) {
        Reduction::column_pair(&mut ta, &mut tb, k, vectors);
    }
    let (mut qa, mut qb) = (QlLane::<N>::new(), QlLane::<N>::new());
    ta.ql_lane(&mut qa, vectors);
    tb.ql_lane(&mut qb, vectors);
    // both lanes in one loop; a lane that has finished (or failed) is left alone
    let (mut ra, mut rb) = (Ok(true), Ok(true));
    while matches!(ra, Ok(true)) || matches!(rb, Ok(true)) {
        if let Ok(true) = ra {
            ra = qa.step(vectors);
        }
        if let Ok(true) = rb {
            rb = qb.step(vectors);
        }
    }
    [
        ra.map(|_| ta.finish(&qa, vectors, oa)),
        rb.map(|_| tb.finish(&qb, vectors, ob)),
    ]
}

/// Smallest dimension at which [`eigh_small`] uses [`eigh_tridiagonal`] instead of Jacobi
/// (measured: docs/PERFORMANCE.md, "Small states").
pub const TRIDIAGONAL_FROM: usize = 3;

/// The fixed-size solver of dimension `N`: cyclic Jacobi ([`eigh_fixed`]; the `2 × 2` closed form,
/// relatively accurate) below [`TRIDIAGONAL_FROM`], Householder + implicit QL
/// ([`eigh_tridiagonal`]) from there. Both meet LAPACK's backward-stable bound.
pub fn eigh_small<const N: usize>(a: &Mat<N>, vectors: bool) -> Result<SmallEigen<N>> {
    if N < TRIDIAGONAL_FROM {
        eigh_fixed(a, vectors)
    } else {
        eigh_tridiagonal(a, vectors)
    }
}

/// Whether `A + shift·I` is positive definite for the Hermitian `a` (lower triangle read), decided
/// exactly as [`Backend::Auto`](super::Backend::Auto)'s check below
/// [`AUTO_NALGEBRA_CHOLESKY_BELOW`](super::AUTO_NALGEBRA_CHOLESKY_BELOW) decides it
/// (`nalgebra_backend`'s `is_positive_definite`: `nalgebra::Cholesky::new`, then every pivot `l_jj`
/// must satisfy `Re l_jj > |Im l_jj|`) — the same complex operations in the same order on a stack
/// array, so the same rounding and the same answer (test `small_cholesky_decides_as_nalgebra`),
/// without the heap matrix. `None` where it cannot vouch for that (a pivot with a nonzero imaginary
/// part, which exact arithmetic never produces here): the caller asks the backend.
///
/// nalgebra's column `j` step is `l_ij ← conj(−l_jk)·l_ik·1 + 1·l_ij` for `k < j`, `i ≥ j`
/// (`axcpy` with `c = β = 1`), then `l_jj ← √l_jj` (simba: polar form; for a real positive pivot
/// with imaginary part `±0` that is `(√re, ±0)` exactly, `hypot(x, ±0) = x`, `cos 0 = 1`) and
/// `l_ij ← l_ij / l_jj` (num-complex's division). A pivot that is zero stops nalgebra (`None`:
/// not definite); a real pivot `≤ 0` gives `√` with `Re ≤ |Im|` (not definite).
pub(crate) fn cholesky_decision<const N: usize>(a: &Mat<N>, shift: f64) -> Option<bool> {
    let one = Complex64::new(1.0, 0.0);
    let mut m = zeros::<N>();
    for i in 0..N {
        for j in 0..i {
            m[i][j] = a[i][j];
        }
        m[i][i] = Complex64::new(a[i][i].re + shift, 0.0);
    }
    for j in 0..N {
        for k in 0..j {
            let f = (-m[j][k]).conj();
            for i in j..N {
                m[i][j] = f * m[i][k] * one + one * m[i][j];
            }
        }
        let diag = m[j][j];
        if diag.im != 0.0 {
            return None;
        }
        if diag.re.is_nan() || diag.re <= 0.0 {
            // zero (nalgebra's `None`), negative or NaN pivot: not definite
            return Some(false);
        }
        let denom = Complex64::new(diag.re.sqrt(), 0.0f64.copysign(diag.im));
        m[j][j] = denom;
        for i in j + 1..N {
            m[i][j] /= denom;
        }
    }
    Some(true)
}

fn non_finite() -> Error {
    Error::Eigensolver {
        backend: "jacobi",
        reason: "non-finite entry".into(),
    }
}

/// `Σ_{l<N} f(l)` added in order from zero — num-complex's `Sum`, the same additions, so the same
/// bits — always inlined (the iterator form was an out-of-line call per entry in the small
/// products of the stack route).
#[inline(always)]
#[cfg(test)]
pub(crate) fn csum<const N: usize>(f: impl Fn(usize) -> Complex64) -> Complex64 {
    let mut acc = Complex64::new(0.0, 0.0);
    for l in 0..N {
        acc += f(l);
    }
    acc
}

/// A copy of a square view as an `N × N` array (`a` must be `N × N`).
pub fn from_view<const N: usize>(a: &ArrayView2<Complex64>) -> Mat<N> {
    let mut m = zeros::<N>();
    from_view_into::<N>(a, &mut m);
    m
}

/// [`from_view`] written into the caller's `m` (every entry; no zeroing, no copy of the array
/// back).
#[inline]
pub(crate) fn from_view_into<const N: usize>(a: &ArrayView2<Complex64>, m: &mut Mat<N>) {
    if let Some(s) = a.as_slice() {
        // row-major and contiguous (a stack's matrices): one slice, no index arithmetic; entry by
        // entry (a fixed-length loop the compiler inlines: `copy_from_slice` was a `memcpy`
        // call per row of 16–256 bytes)
        if s.len() == N * N {
            for i in 0..N {
                for j in 0..N {
                    m[i][j] = s[i * N + j];
                }
            }
            return;
        }
    }
    for (i, row) in m.iter_mut().enumerate() {
        for (j, z) in row.iter_mut().enumerate() {
            *z = a[[i, j]];
        }
    }
}

/// [`Backend::Auto`](super::Backend::Auto)'s fixed-size solver at `N`: Jacobi up to
/// [`AUTO_JACOBI_MAX`], tridiagonal QL above.
pub(crate) fn auto_small<const N: usize>(a: &Mat<N>, vectors: bool) -> Result<SmallEigen<N>> {
    if N <= AUTO_JACOBI_MAX {
        eigh_fixed(a, vectors)
    } else {
        eigh_tridiagonal(a, vectors)
    }
}

/// The `EigenSolver::eigh` of `Backend::Auto`'s fixed-size solvers on an ndarray view (`1 ≤ n ≤ 16`).
pub(crate) fn eigh(a: ArrayView2<Complex64>) -> Result<(Array1<f64>, Array2<Complex64>)> {
    with_small_dim!(a.nrows(), N => {
        let e = auto_small::<N>(&from_view::<N>(&a), true)?;
        Ok((
            Array1::from_iter(e.values),
            Array2::from_shape_fn((N, N), |(i, j)| e.vectors[i][j]),
        ))
    }, _ => Err(too_large()))
}

/// A full decomposition `(λ ascending, V)` on ndarray arrays, or the solver's error.
pub(crate) type Decomposition = Result<(Array1<f64>, Array2<Complex64>)>;

/// Two full decompositions by the tridiagonal QL solver's two-lane build
/// ([`eigh_tridiagonal_pair`]) on ndarray views of one dimension `4 ≤ n ≤ 16`, each
/// [`eigh`]'s (the `EigenSolver::eigh` of `Backend::Auto`) bit for bit.
pub(crate) fn eigh_pair(
    a: ArrayView2<Complex64>,
    b: ArrayView2<Complex64>,
) -> (Decomposition, Decomposition) {
    debug_assert!(a.nrows() > AUTO_JACOBI_MAX && a.dim() == b.dim());
    with_small_dim!(a.nrows(), N => {
        let arrays = |e: &SmallEigen<N>| {
            (
                Array1::from_iter(e.values),
                Array2::from_shape_fn((N, N), |(i, j)| e.vectors[i][j]),
            )
        };
        let mut out = [SmallEigen::zeroed(); 2];
        let [x, y] =
            eigh_tridiagonal_pair_into::<N>(&from_view::<N>(&a), &from_view::<N>(&b), true, &mut out);
        (x.map(|_| arrays(&out[0])), y.map(|_| arrays(&out[1])))
    }, _ => (Err(too_large()), Err(too_large())))
}

/// The `EigenSolver::eigvalsh` of `Backend::Auto`'s fixed-size solvers on an ndarray view (`1 ≤ n ≤ 16`).
pub(crate) fn eigvalsh(a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
    with_small_dim!(a.nrows(), N => {
        Ok(Array1::from_iter(auto_small::<N>(&from_view::<N>(&a), false)?.values))
    }, _ => Err(too_large()))
}

fn too_large() -> Error {
    Error::Eigensolver {
        backend: "jacobi",
        reason: format!(
            "the fixed-size solvers take square matrices from 1×1 to {SMALL_MAX}×{SMALL_MAX}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn c(re: f64, im: f64) -> Complex64 {
        Complex64::new(re, im)
    }

    /// `‖A V − V Λ‖_max` and `‖V†V − I‖_max`.
    fn residuals(a: &Array2<Complex64>, w: &Array1<f64>, v: &Array2<Complex64>) -> (f64, f64) {
        let n = a.nrows();
        let (mut res, mut orth) = (0.0f64, 0.0f64);
        for i in 0..n {
            for k in 0..n {
                let av: Complex64 = (0..n).map(|j| a[[i, j]] * v[[j, k]]).sum();
                res = res.max((av - v[[i, k]] * w[k]).norm());
                let g: Complex64 = (0..n).map(|j| v[[j, i]].conj() * v[[j, k]]).sum();
                orth = orth.max((g - if i == k { 1.0 } else { 0.0 }).norm());
            }
        }
        (res, orth)
    }

    /// The AVX2 build of the QL solver (what [`eigh_tridiagonal`] runs where the CPU has AVX2) is
    /// the portable build bit for bit: values and vectors, every size 1…16, random Hermitian,
    /// rank-deficient, graded and degenerate matrices.
    #[test]
    fn tridiagonal_avx2_build_is_bitwise_portable() {
        fn check<const N: usize>(rng: &mut rand_chacha::ChaCha8Rng) {
            for case in 0..12 {
                let mut m = zeros::<N>();
                for i in 0..N {
                    for j in 0..=i {
                        let z = c(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5);
                        let scale = match case % 4 {
                            0 => 1.0,
                            1 => 10f64.powi(-((i + j) as i32)),
                            2 => (i.min(j) < N / 2) as u8 as f64,
                            _ => 0.0,
                        };
                        m[i][j] = if i == j {
                            c(z.re * scale + 1.0, 0.0)
                        } else {
                            z * scale
                        };
                        m[j][i] = m[i][j].conj();
                    }
                }
                for vectors in [false, true] {
                    let a = eigh_tridiagonal::<N>(&m, vectors).unwrap();
                    let b = eigh_tridiagonal_portable::<N>(&m, vectors).unwrap();
                    for k in 0..N {
                        assert_eq!(a.values[k].to_bits(), b.values[k].to_bits(), "N={N}");
                        for i in 0..N {
                            let (x, y) = (a.vectors[i][k], b.vectors[i][k]);
                            assert_eq!(
                                (x.re.to_bits(), x.im.to_bits()),
                                (y.re.to_bits(), y.im.to_bits())
                            );
                        }
                    }
                }
            }
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(16);
        check::<1>(&mut rng);
        check::<2>(&mut rng);
        check::<3>(&mut rng);
        check::<4>(&mut rng);
        check::<5>(&mut rng);
        check::<7>(&mut rng);
        check::<8>(&mut rng);
        check::<11>(&mut rng);
        check::<12>(&mut rng);
        check::<16>(&mut rng);
    }

    /// The two-lane build of the QL solver (`eigh_tridiagonal_pair`, AVX2 where the CPU has it, and
    /// its portable build) gives each lane the one-matrix solver's result bit for bit — values,
    /// vectors and errors — at every size 3…16, with and without vectors, on random Hermitian,
    /// degenerate (`I/2` in a random basis, and exactly diagonal), rank-deficient, indefinite,
    /// graded (κ = 10¹⁴), nearly degenerate, complex tridiagonal, zero, `10^{±300}`-scaled and
    /// non-finite inputs, each lane paired with every other kind (lanes that finish at different
    /// times, or at once).
    #[test]
    fn tridiagonal_pair_is_bitwise_single() {
        fn input<const N: usize>(kind: usize, rng: &mut rand_chacha::ChaCha8Rng) -> Mat<N> {
            let u = crate::state::haar_unitary(N, rng);
            let spectral = |lam: &[f64]| {
                let mut m = zeros::<N>();
                for i in 0..N {
                    for j in 0..N {
                        m[i][j] = (0..N).map(|k| u[[i, k]] * lam[k] * u[[j, k]].conj()).sum();
                    }
                }
                m
            };
            let random: Vec<f64> = (0..N).map(|_| rng.random::<f64>() - 0.5).collect();
            let positive: Vec<f64> = (0..N).map(|_| rng.random::<f64>()).collect();
            match kind {
                0 => spectral(&positive),
                1 => spectral(&random),
                2 => spectral(&vec![0.5; N]),
                3 => {
                    let mut m = zeros::<N>();
                    for i in 0..N {
                        m[i][i] = c(0.5, 0.0);
                    }
                    m
                }
                4 => spectral(
                    &(0..N)
                        .map(|k| if k < N / 2 { 0.0 } else { positive[k] })
                        .collect::<Vec<_>>(),
                ),
                5 => spectral(
                    &(0..N)
                        .map(|k| 10f64.powf(-14.0 * k as f64 / (N - 1) as f64))
                        .collect::<Vec<_>>(),
                ),
                6 => spectral(&(0..N).map(|k| 0.5 + 1e-13 * k as f64).collect::<Vec<_>>()),
                7 => {
                    let mut m = zeros::<N>();
                    for i in 0..N {
                        m[i][i] = c(random[i], 0.0);
                        if i + 1 < N {
                            let z = c(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5);
                            m[i + 1][i] = z;
                            m[i][i + 1] = z.conj();
                        }
                    }
                    m
                }
                8 => zeros::<N>(),
                9 => spectral(&random).map(|row| row.map(|z| z * 1e-300)),
                10 => spectral(&random).map(|row| row.map(|z| z * 1e300)),
                _ => {
                    let mut m = spectral(&positive);
                    m[N - 1][0] = c(f64::NAN, 0.0);
                    m
                }
            }
        }
        fn same<const N: usize>(x: &Result<SmallEigen<N>>, y: &Result<SmallEigen<N>>) -> bool {
            match (x, y) {
                (Ok(x), Ok(y)) => {
                    x.values.map(f64::to_bits) == y.values.map(f64::to_bits)
                        && x.vectors
                            .iter()
                            .flatten()
                            .zip(y.vectors.iter().flatten())
                            .all(|(a, b)| {
                                (a.re.to_bits(), a.im.to_bits()) == (b.re.to_bits(), b.im.to_bits())
                            })
                }
                (Err(x), Err(y)) => x.to_string() == y.to_string(),
                _ => false,
            }
        }
        fn check<const N: usize>(rng: &mut rand_chacha::ChaCha8Rng) -> usize {
            const KINDS: usize = 12;
            let inputs: Vec<Mat<N>> = (0..2 * KINDS).map(|k| input::<N>(k % KINDS, rng)).collect();
            let mut checked = 0;
            for (i, a) in inputs.iter().enumerate() {
                for b in inputs.iter().skip(i % 2).step_by(3) {
                    for vectors in [false, true] {
                        let (wa, wb) = (
                            eigh_tridiagonal_portable::<N>(a, vectors),
                            eigh_tridiagonal_portable::<N>(b, vectors),
                        );
                        let (x, y) = eigh_tridiagonal_pair::<N>(a, b, vectors);
                        assert!(same(&x, &wa) && same(&y, &wb), "N={N} input {i}");
                        let (x, y) = eigh_tridiagonal_pair_portable::<N>(a, b, vectors);
                        assert!(same(&x, &wa) && same(&y, &wb), "N={N} input {i} portable");
                        assert!(same(&eigh_tridiagonal::<N>(a, vectors), &wa));
                        checked += 1;
                    }
                }
            }
            checked
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
        let checked = check::<3>(&mut rng)
            + check::<4>(&mut rng)
            + check::<5>(&mut rng)
            + check::<6>(&mut rng)
            + check::<7>(&mut rng)
            + check::<8>(&mut rng)
            + check::<9>(&mut rng)
            + check::<10>(&mut rng)
            + check::<11>(&mut rng)
            + check::<12>(&mut rng)
            + check::<13>(&mut rng)
            + check::<14>(&mut rng)
            + check::<15>(&mut rng)
            + check::<16>(&mut rng);
        assert_eq!(checked, 14 * 24 * 8 * 2);
    }

    fn two(d0: f64, d1: f64, g: Complex64) -> Array2<Complex64> {
        ndarray::arr2(&[[c(d0, 0.0), g.conj()], [g, c(d1, 0.0)]])
    }

    /// The bit-level power of two equals `2^{−round(log₂ big)}` (clamped) everywhere: random
    /// magnitudes over the whole range, both sides of `√2·2^e`, powers of two, subnormals, zero.
    #[test]
    fn power_of_two_scale_is_the_formula() {
        let formula = |b: f64| {
            if b > 0.0 {
                2f64.powi(-(b.log2().round() as i32).clamp(-1000, 1000))
            } else {
                1.0
            }
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut xs = vec![
            0.0,
            5e-324,
            1e-310,
            f64::MIN_POSITIVE,
            1.0,
            2.0,
            0.5,
            f64::MAX,
            1e308,
        ];
        for e in -1070..1020 {
            let p = 2f64.powi(e);
            let r = std::f64::consts::SQRT_2 * p;
            xs.extend([
                p,
                r,
                r * (1.0 + 1e-9),
                r * (1.0 - 1e-9),
                r.next_up(),
                r.next_down(),
            ]);
            xs.push(p * (1.0 + rng.random::<f64>()));
        }
        for x in xs {
            assert_eq!(power_of_two_scale(x), formula(x), "{x:e}");
        }
    }

    /// The fixed-size Cholesky check decides as `Backend::Auto`'s (nalgebra's) on random Hermitian
    /// matrices shifted to within rounding of singular (both answers occur), on rank-deficient
    /// states, and on indefinite ones — bit for bit the same operations, so never a different answer.
    #[test]
    fn small_cholesky_decides_as_nalgebra() {
        use crate::spectral::{Backend, EigenSolver};
        fn check<const N: usize>(rng: &mut rand_chacha::ChaCha8Rng) -> (usize, usize) {
            let (mut yes, mut no) = (0, 0);
            for trial in 0..400 {
                let g = Array2::from_shape_fn((N, N), |_| {
                    c(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5)
                });
                // rank-deficient half the time: G G† with a zeroed column
                let rank = if trial % 2 == 0 { N } else { (N - 1).max(1) };
                let mut h = Array2::<Complex64>::zeros((N, N));
                for i in 0..N {
                    for j in 0..N {
                        h[[i, j]] = (0..rank).map(|k| g[[i, k]] * g[[j, k]].conj()).sum();
                    }
                }
                let lmin = Backend::Nalgebra.eigvalsh(h.view()).unwrap()[0];
                // shifts straddling −λ_min at the rounding level, and the validation's own shifts
                let ulp = 16.0 * N as f64 * f64::EPSILON;
                for shift in [
                    -lmin * (1.0 + ulp * (rng.random::<f64>() - 0.5) * 4.0),
                    -lmin - ulp * (rng.random::<f64>() - 0.5),
                    ulp,
                    1e-10,
                    -1e-3,
                    0.0,
                ] {
                    let m = from_view::<N>(&h.view());
                    let want = Backend::Auto.is_positive_definite(h.view(), shift).unwrap();
                    assert_eq!(
                        cholesky_decision::<N>(&m, shift),
                        Some(want),
                        "N={N} shift={shift:e}"
                    );
                    if want {
                        yes += 1
                    } else {
                        no += 1
                    }
                }
            }
            (yes, no)
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for (yes, no) in [
            check::<1>(&mut rng),
            check::<2>(&mut rng),
            check::<3>(&mut rng),
            check::<4>(&mut rng),
            check::<5>(&mut rng),
            check::<7>(&mut rng),
        ] {
            assert!(
                yes > 200 && no > 200,
                "both answers exercised: {yes} / {no}"
            );
        }
    }

    #[test]
    fn small_jacobi_two_by_two_closed_form() {
        // [[2, 1−i], [1+i, 3]]: λ = (5 ± √(1 + 8))/2 = 1, 4
        let a = two(2.0, 3.0, c(1.0, 1.0));
        let (w, v) = eigh(a.view()).unwrap();
        assert!((w[0] - 1.0).abs() < 4.0 * f64::EPSILON);
        assert!((w[1] - 4.0).abs() < 8.0 * f64::EPSILON);
        let (res, orth) = residuals(&a, &w, &v);
        assert!(res < 8.0 * f64::EPSILON && orth < 4.0 * f64::EPSILON);
        // diagonal, degenerate, tiny and huge off-diagonal inputs
        for (d0, d1, g) in [
            (0.3, 0.7, c(0.0, 0.0)),
            (0.7, 0.3, c(0.0, 0.0)),
            (0.5, 0.5, c(0.0, 1e-300)),
            (0.5, 0.5, c(0.25, 0.0)),
            (1.0, 1e-300, c(1e-160, 1e-160)),
            (1e300, -1e300, c(1e-10, 0.0)),
        ] {
            let a = two(d0, d1, g);
            let (w, v) = eigh(a.view()).unwrap();
            let (res, orth) = residuals(&a, &w, &v);
            let norm = d0.abs().max(d1.abs()).max(g.norm());
            assert!(res <= 8.0 * f64::EPSILON * norm, "{d0} {d1} {g}: {res}");
            assert!(orth <= 4.0 * f64::EPSILON);
            assert!(((w[0] + w[1]) - (d0 + d1)).abs() <= 4.0 * f64::EPSILON * norm);
            assert!(w[0] <= w[1]);
        }
    }

    #[test]
    fn small_jacobi_rejects_non_finite_and_oversized() {
        let mut a = Array2::from_elem((3, 3), c(1.0, 0.0));
        a[[2, 1]] = c(f64::NAN, 0.0);
        assert!(eigvalsh(a.view()).is_err());
        assert!(eigh(a.view()).is_err());
        let big = Array2::<Complex64>::zeros((17, 17));
        assert!(eigvalsh(big.view()).is_err());
        assert!(eigvalsh(Array2::<Complex64>::zeros((0, 0)).view()).is_err());
    }

    /// The fixed-size solvers on an ndarray view (Jacobi, tridiagonal QL, and the stack lanes'
    /// Jacobi method on one matrix, `small_lanes::eigh_jacobi_parallel`).
    type Solver = fn(ArrayView2<Complex64>, bool) -> (Array1<f64>, Array2<Complex64>);

    fn solvers() -> [(&'static str, Solver); 3] {
        fn jacobi(a: ArrayView2<Complex64>, v: bool) -> (Array1<f64>, Array2<Complex64>) {
            with_small_dim!(a.nrows(), N => {
                let e = eigh_fixed::<N>(&from_view::<N>(&a), v).unwrap();
                (Array1::from_iter(e.values), Array2::from_shape_fn((N, N), |(i, j)| e.vectors[i][j]))
            }, _ => unreachable!())
        }
        fn ql(a: ArrayView2<Complex64>, v: bool) -> (Array1<f64>, Array2<Complex64>) {
            with_small_dim!(a.nrows(), N => {
                let e = eigh_tridiagonal::<N>(&from_view::<N>(&a), v).unwrap();
                (Array1::from_iter(e.values), Array2::from_shape_fn((N, N), |(i, j)| e.vectors[i][j]))
            }, _ => unreachable!())
        }
        fn parallel(a: ArrayView2<Complex64>, v: bool) -> (Array1<f64>, Array2<Complex64>) {
            with_small_dim!(a.nrows(), N => {
                let e = crate::spectral::small_lanes::eigh_jacobi_parallel::<N>(&from_view::<N>(&a), v).unwrap();
                (Array1::from_iter(e.values), Array2::from_shape_fn((N, N), |(i, j)| e.vectors[i][j]))
            }, _ => unreachable!())
        }
        [
            ("jacobi", jacobi),
            ("tridiagonal", ql),
            ("jacobi-parallel", parallel),
        ]
    }

    /// Random Hermitian matrices `U diag(λ) U†` with prescribed spectra (graded, rank-deficient,
    /// degenerate, nearly degenerate, indefinite, tiny and huge scales), for both solvers: every
    /// computed eigenvalue within `8 n ε ‖A‖` of the prescribed one (LAPACK's absolute bound),
    /// residual and orthogonality at rounding level, values-only equal to the values of the full run.
    #[test]
    fn small_jacobi_meets_the_backward_stable_bound() {
        for (name, solve) in solvers() {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
            for case in 0..800 {
                let n = 1 + case % SMALL_MAX;
                let mut lam: Vec<f64> = (0..n)
                    .map(|k| match case % 8 {
                        0 => rng.random::<f64>(),
                        1 => 10f64.powf(-14.0 * rng.random::<f64>()),
                        2 => {
                            if k < n / 2 {
                                0.0
                            } else {
                                rng.random::<f64>()
                            }
                        }
                        3 => 0.5,
                        4 => 0.5 + 1e-13 * k as f64,
                        5 => 1e-200 * rng.random::<f64>(),
                        6 => 1e200 * (rng.random::<f64>() - 0.5),
                        _ => rng.random::<f64>() - 0.5,
                    })
                    .collect();
                let u = crate::state::haar_unitary(n, &mut rng);
                let a = Array2::from_shape_fn((n, n), |(i, j)| {
                    (0..n).map(|k| u[[i, k]] * lam[k] * u[[j, k]].conj()).sum()
                });
                let (w, v) = solve(a.view(), true);
                lam.sort_by(f64::total_cmp);
                let norm = lam.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                let tol = 8.0 * n as f64 * f64::EPSILON * norm.max(f64::MIN_POSITIVE);
                for (got, want) in w.iter().zip(&lam) {
                    assert!(
                        (got - want).abs() <= tol,
                        "{name} case {case}: {got} vs {want}"
                    );
                }
                let (res, orth) = residuals(&a, &w, &v);
                assert!(res <= tol, "{name} case {case}: residual {res}");
                assert!(
                    orth <= 8.0 * n as f64 * f64::EPSILON,
                    "{name} case {case}: orthogonality {orth}"
                );
                assert_eq!(solve(a.view(), false).0, w, "{name} case {case}");
            }
        }
        // the solver behind `Backend::Auto` (Jacobi) and the kernel's dispatch (QL from 3)
        let a = Array2::from_shape_fn((3, 3), |(i, j)| c(1.0 / (1 + i + j) as f64, 0.0));
        assert_eq!(eigh(a.view()).unwrap().0, solvers()[0].1(a.view(), false).0);
        let e = eigh_small::<3>(&from_view::<3>(&a.view()), false).unwrap();
        assert_eq!(
            Array1::from_iter(e.values),
            solvers()[1].1(a.view(), false).0
        );
    }

    /// The QL solver with real rotations and the backward application of the reflectors
    /// (`eigh_tridiagonal`, `Backend::Auto`'s solver at 4 ≤ d ≤ 16) against nalgebra (and LAPACK
    /// `zheevd` where built) at every `N = 2…16`: random Hermitian, ill-conditioned (κ up to 10¹⁴),
    /// rank-deficient, degenerate (`I/2` in a random basis, and exactly), nearly degenerate (10⁻¹³
    /// spacing), diagonal, already tridiagonal (complex), zero, and scaled by 10^{±300}. Eigenvalues
    /// within the sum of both solvers' absolute bounds `16 N ε ‖A‖`; `max|AV − VΛ| ≤ 8 N ε ‖A‖`,
    /// `max|V†V − I| ≤ 8 N ε`; values-only equal to the full run's bit for bit; `Backend::Auto`
    /// returns this solver's eigenpairs from `N = 4`.
    #[test]
    fn small_tridiagonal_real_rotations() {
        use crate::spectral::{Backend, EigenSolver};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(19);
        let mut checked = 0;
        for n in 2..=SMALL_MAX {
            for case in 0..22 {
                let kind = case % 11;
                let u = crate::state::haar_unitary(n, &mut rng);
                let spectral = |lam: &[f64]| {
                    Array2::from_shape_fn((n, n), |(i, j)| {
                        (0..n).map(|k| u[[i, k]] * lam[k] * u[[j, k]].conj()).sum()
                    })
                };
                let random: Vec<f64> = (0..n).map(|_| rng.random::<f64>() - 0.5).collect();
                // the factor the reference's eigenvalues are multiplied by (scaled cases)
                let mut factor = 1.0;
                let a: Array2<Complex64> = match kind {
                    0 => spectral(&random),
                    1 => spectral(
                        &(0..n)
                            .map(|k| 10f64.powf(-14.0 * k as f64 / (n - 1) as f64))
                            .collect::<Vec<_>>(),
                    ),
                    2 => spectral(
                        &(0..n)
                            .map(|k| if k < n / 2 { 0.0 } else { rng.random::<f64>() })
                            .collect::<Vec<_>>(),
                    ),
                    3 => spectral(&vec![0.5; n]),
                    4 => Array2::from_shape_fn((n, n), |(i, j)| {
                        c(if i == j { 0.5 } else { 0.0 }, 0.0)
                    }),
                    5 => spectral(&(0..n).map(|k| 0.5 + 1e-13 * k as f64).collect::<Vec<_>>()),
                    6 => Array2::from_shape_fn((n, n), |(i, j)| {
                        c(if i == j { random[i] } else { 0.0 }, 0.0)
                    }),
                    7 => {
                        let sub: Vec<Complex64> = (0..n)
                            .map(|_| c(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5))
                            .collect();
                        Array2::from_shape_fn((n, n), |(i, j)| {
                            if i == j {
                                c(random[i], 0.0)
                            } else if i == j + 1 {
                                sub[j]
                            } else if j == i + 1 {
                                sub[i].conj()
                            } else {
                                c(0.0, 0.0)
                            }
                        })
                    }
                    8 => Array2::zeros((n, n)),
                    9 => {
                        factor = 1e-300;
                        spectral(&random).mapv(|z| z * 1e-300)
                    }
                    _ => {
                        factor = 1e300;
                        spectral(&random).mapv(|z| z * 1e300)
                    }
                };
                // reference: nalgebra (and LAPACK) on the matrix before the 10^{±300} scaling
                let unscaled = a.mapv(|z| z / factor);
                #[cfg_attr(not(feature = "openblas"), allow(unused_mut))]
                let mut refs = vec![Backend::Nalgebra.eigvalsh(unscaled.view()).unwrap()];
                #[cfg(feature = "openblas")]
                refs.push(Backend::Lapack.eigvalsh(unscaled.view()).unwrap());
                let (w, v) = solvers()[1].1(a.view(), true);
                let norm = refs[0].iter().fold(0.0f64, |m, x| m.max(x.abs())) * factor;
                let bound = 8.0 * n as f64 * f64::EPSILON * norm;
                for r in &refs {
                    for (got, want) in w.iter().zip(r) {
                        assert!(
                            (got - want * factor).abs() <= 2.0 * bound,
                            "N={n} kind {kind}: {got:e} vs {:e}",
                            want * factor
                        );
                    }
                }
                let (res, orth) = residuals(&a, &w, &v);
                assert!(
                    res <= bound,
                    "N={n} kind {kind}: residual {res:e} vs {bound:e}"
                );
                assert!(
                    orth <= 8.0 * n as f64 * f64::EPSILON,
                    "N={n} kind {kind}: orthogonality {orth:e}"
                );
                assert!(w.windows(2).into_iter().all(|p| p[0] <= p[1]));
                assert_eq!(solvers()[1].1(a.view(), false).0, w, "N={n} kind {kind}");
                if n > AUTO_JACOBI_MAX {
                    let (wa, va) = Backend::Auto.eigh(a.view()).unwrap();
                    assert_eq!((wa, va), (w.clone(), v), "N={n} kind {kind}");
                    assert_eq!(Backend::Auto.eigvalsh(a.view()).unwrap(), w);
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 15 * 22);
    }

    /// A tridiagonal QL hard case: the Wilkinson matrix W₂₁⁺ restricted to 16 (pairs of nearly equal
    /// eigenvalues), a diagonal input (no reflection), a zero matrix, a complex tridiagonal input
    /// (phases only) and an arrow matrix.
    #[test]
    fn small_tridiagonal_special_matrices() {
        let n = 16;
        let wilkinson = Array2::from_shape_fn((n, n), |(i, j)| {
            if i == j {
                c((i as f64 - 7.5).abs(), 0.0)
            } else if i.abs_diff(j) == 1 {
                c(1.0, 0.0)
            } else {
                c(0.0, 0.0)
            }
        });
        let diag = Array2::from_shape_fn((n, n), |(i, j)| {
            c(if i == j { (i * i) as f64 } else { 0.0 }, 0.0)
        });
        let phases = Array2::from_shape_fn((n, n), |(i, j)| {
            if i == j {
                c(1.0, 0.0)
            } else if i == j + 1 {
                c(0.3, 0.4 * i as f64)
            } else if j == i + 1 {
                c(0.3, -0.4 * j as f64)
            } else {
                c(0.0, 0.0)
            }
        });
        let arrow = Array2::from_shape_fn((n, n), |(i, j)| {
            if i == j {
                c(i as f64, 0.0)
            } else if i == 0 || j == 0 {
                c(1.0, if i == 0 { -0.5 } else { 0.5 })
            } else {
                c(0.0, 0.0)
            }
        });
        for a in [wilkinson, diag, phases, arrow, Array2::zeros((n, n))] {
            let (w, v) = solvers()[1].1(a.view(), true);
            let norm = w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let (res, orth) = residuals(&a, &w, &v);
            assert!(
                res <= 8.0 * n as f64 * f64::EPSILON * norm.max(1.0),
                "{res}"
            );
            assert!(orth <= 8.0 * n as f64 * f64::EPSILON, "{orth}");
            let trace: f64 = (0..n).map(|i| a[[i, i]].re).sum();
            assert!((w.sum() - trace).abs() <= 8.0 * n as f64 * f64::EPSILON * norm.max(1.0));
            assert!(w.windows(2).into_iter().all(|p| p[0] <= p[1]));
        }
    }

    /// Against LAPACK `zheevd` on the same matrices: eigenvalues within the sum of both solvers'
    /// absolute bounds, and on a graded positive definite matrix Jacobi's small eigenvalues keep
    /// their relative accuracy.
    #[cfg(feature = "openblas")]
    #[test]
    fn small_jacobi_agrees_with_lapack() {
        use crate::spectral::{Backend, EigenSolver};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        for case in 0..200 {
            let n = 2 + case % (SMALL_MAX - 1);
            let x = Array2::from_shape_fn((n, n), |_| {
                c(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5)
            });
            let h = &x + &x.t().mapv(|z| z.conj());
            let lap = Backend::Lapack.eigvalsh(h.view()).unwrap();
            let norm = lap.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for (name, solve) in solvers() {
                let small = solve(h.view(), false).0;
                for (a, b) in small.iter().zip(&lap) {
                    assert!(
                        (a - b).abs() <= 32.0 * n as f64 * f64::EPSILON * norm,
                        "{name} case {case}"
                    );
                }
            }
        }
        // graded: D H D with D = diag(1, 1e-5, 1e-10) and H well conditioned: the product of the
        // eigenvalues (the determinant) to relative accuracy
        let h = ndarray::arr2(&[[1.0, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 1.0]]);
        let dg = [1.0, 1e-5, 1e-10];
        let a = Array2::from_shape_fn((3, 3), |(i, j)| c(h[[i, j]] * dg[i] * dg[j], 0.0));
        let det_h = 1.0 * (1.0 - 0.25) - 0.5 * (0.5 - 0.125) + 0.25 * (0.25 - 0.25);
        let det = det_h * (dg[0] * dg[1] * dg[2]).powi(2);
        // both Jacobi methods (the same Demmel–Veselić skip test)
        for (name, solve) in [solvers()[0], solvers()[2]] {
            let w = solve(a.view(), false).0;
            let prod: f64 = w.iter().product();
            assert!((prod - det).abs() <= 1e-13 * det, "{name}: {prod} vs {det}");
        }
    }
}
