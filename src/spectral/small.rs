//! Small Hermitian eigenproblems (`n ≤` [`SMALL_MAX`]) on fixed-size arrays: cyclic Jacobi.
//!
//! LAPACK's and nalgebra's solvers pay fixed costs (workspace queries, heap buffers, reductions to
//! tridiagonal form) that dominate at `n ≤ 16`. Here the matrix lives in a stack array
//! ([`SmallMatrix`], row-major, `16 × 16` capacity) and is diagonalised by the cyclic Jacobi method
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
//! Used by [`Backend::Auto`](super::Backend::Auto) below [`AUTO_JACOBI_BELOW`] and by the
//! allocation-free small-pair kernel of `divergence::small`.

use crate::error::{Error, Result};
use ndarray::{Array1, Array2, ArrayView2};
use num_complex::Complex64;

/// Largest dimension the fixed-size arrays hold.
pub const SMALL_MAX: usize = 16;

/// [`Backend::Auto`](super::Backend::Auto) uses this Jacobi solver for complex Hermitian
/// decompositions (full and values only) of dimension below this (docs/PERFORMANCE.md, "Small
/// states": measured against nalgebra and LAPACK).
pub const AUTO_JACOBI_BELOW: usize = 8;

/// Sweeps after which the method gives up (quadratic convergence needs ≈ 5–8 at `n = 16`).
const MAX_SWEEPS: usize = 40;

/// A complex `n × n` matrix (`n ≤ 16`) in a stack array, row-major.
#[derive(Clone, Copy, Debug)]
pub struct SmallMatrix {
    n: usize,
    a: [Complex64; SMALL_MAX * SMALL_MAX],
}

impl SmallMatrix {
    /// The `n × n` zero matrix (`n ≤ 16`; larger `n` is clamped by the callers' checks).
    pub fn zeros(n: usize) -> Self {
        debug_assert!(n <= SMALL_MAX);
        SmallMatrix {
            n: n.min(SMALL_MAX),
            a: [Complex64::new(0.0, 0.0); SMALL_MAX * SMALL_MAX],
        }
    }

    /// `f(i, j)` for every entry.
    pub fn from_fn(n: usize, f: impl Fn(usize, usize) -> Complex64) -> Self {
        let mut m = Self::zeros(n);
        for i in 0..m.n {
            for j in 0..m.n {
                m.a[i * SMALL_MAX + j] = f(i, j);
            }
        }
        m
    }

    /// A copy of a square view, `None` when it is larger than [`SMALL_MAX`] or not square.
    pub fn from_view(a: &ArrayView2<Complex64>) -> Option<Self> {
        let (r, c) = a.dim();
        (r == c && r <= SMALL_MAX).then(|| Self::from_fn(r, |i, j| a[[i, j]]))
    }

    /// Dimension `n`.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Entry `(i, j)`.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> Complex64 {
        self.a[i * SMALL_MAX + j]
    }

    /// Set entry `(i, j)`.
    #[inline]
    pub fn set(&mut self, i: usize, j: usize, z: Complex64) {
        self.a[i * SMALL_MAX + j] = z;
    }

    /// As an ndarray (one allocation).
    pub fn to_array(&self) -> Array2<Complex64> {
        Array2::from_shape_fn((self.n, self.n), |(i, j)| self.get(i, j))
    }
}

/// Eigenvalues (ascending) and, when asked for, eigenvectors (columns) of a [`SmallMatrix`].
#[derive(Clone, Copy, Debug)]
pub struct SmallEigen {
    /// `λ_0 ≤ … ≤ λ_{n−1}` in the first `n` entries.
    pub values: [f64; SMALL_MAX],
    /// Column `k` is the eigenvector of `values[k]` (the identity when vectors were not asked for).
    pub vectors: SmallMatrix,
}

impl SmallEigen {
    /// Dimension `n`.
    pub fn dim(&self) -> usize {
        self.vectors.n
    }
    /// The eigenvalues as a slice.
    pub fn values(&self) -> &[f64] {
        &self.values[..self.vectors.n]
    }
}

/// The Jacobi rotation that zeroes `(p, q)` of a Hermitian matrix: `(c, s·e^{iφ}, t)`.
#[inline]
fn rotation(app: f64, aqq: f64, g: Complex64) -> (f64, Complex64, f64) {
    let abs = g.norm();
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
pub fn eigh_small(a: &SmallMatrix, vectors: bool) -> Result<SmallEigen> {
    let n = a.n;
    let mut m = *a;
    for i in 0..n {
        for j in 0..i {
            let z = m.get(i, j);
            if !(z.re.is_finite() && z.im.is_finite()) {
                return Err(non_finite());
            }
            m.set(j, i, z.conj());
        }
        let d = m.get(i, i).re;
        if !d.is_finite() {
            return Err(non_finite());
        }
        m.set(i, i, Complex64::new(d, 0.0));
    }
    let mut v = SmallMatrix::zeros(n);
    for i in 0..n {
        v.set(i, i, Complex64::new(1.0, 0.0));
    }
    let eps = f64::EPSILON;
    let mut converged = n < 2;
    for _ in 0..MAX_SWEEPS {
        if converged {
            break;
        }
        let mut rotated = false;
        for p in 0..n {
            for q in p + 1..n {
                let g = m.get(p, q);
                let (app, aqq) = (m.get(p, p).re, m.get(q, q).re);
                let abs = g.norm();
                // Demmel–Veselić: negligible relative to the diagonal (or exactly zero)
                if abs <= eps * (app.abs() * aqq.abs()).sqrt() || abs < f64::MIN_POSITIVE {
                    continue;
                }
                rotated = true;
                let (c, se, t) = rotation(app, aqq, g);
                let sec = se.conj();
                for k in 0..n {
                    if k == p || k == q {
                        continue;
                    }
                    let (akp, akq) = (m.get(k, p), m.get(k, q));
                    let np = akp * c - akq * sec;
                    let nq = akp * se + akq * c;
                    m.set(k, p, np);
                    m.set(p, k, np.conj());
                    m.set(k, q, nq);
                    m.set(q, k, nq.conj());
                }
                m.set(p, p, Complex64::new(app - t * abs, 0.0));
                m.set(q, q, Complex64::new(aqq + t * abs, 0.0));
                m.set(p, q, Complex64::new(0.0, 0.0));
                m.set(q, p, Complex64::new(0.0, 0.0));
                if vectors {
                    for k in 0..n {
                        let (vkp, vkq) = (v.get(k, p), v.get(k, q));
                        v.set(k, p, vkp * c - vkq * sec);
                        v.set(k, q, vkp * se + vkq * c);
                    }
                }
            }
        }
        converged = !rotated;
    }
    if !converged {
        return Err(Error::Eigensolver {
            backend: "jacobi",
            reason: format!("no convergence within {MAX_SWEEPS} sweeps"),
        });
    }
    // ascending order (insertion sort of at most 16 values, vectors permuted alike)
    let mut values = [0.0; SMALL_MAX];
    let mut order = [0usize; SMALL_MAX];
    for k in 0..n {
        values[k] = m.get(k, k).re;
        order[k] = k;
    }
    for k in 1..n {
        let mut j = k;
        while j > 0 && values[j - 1] > values[j] {
            values.swap(j - 1, j);
            order.swap(j - 1, j);
            j -= 1;
        }
    }
    let vectors = if vectors {
        SmallMatrix::from_fn(n, |i, k| v.get(i, order[k]))
    } else {
        v
    };
    Ok(SmallEigen { values, vectors })
}

fn non_finite() -> Error {
    Error::Eigensolver {
        backend: "jacobi",
        reason: "non-finite entry".into(),
    }
}

/// The `EigenSolver::eigh` of this solver on an ndarray view (`n ≤ 16`).
pub(crate) fn eigh(a: ArrayView2<Complex64>) -> Result<(Array1<f64>, Array2<Complex64>)> {
    let m = SmallMatrix::from_view(&a).ok_or_else(too_large)?;
    let e = eigh_small(&m, true)?;
    Ok((Array1::from(e.values().to_vec()), e.vectors.to_array()))
}

/// The `EigenSolver::eigvalsh` of this solver on an ndarray view (`n ≤ 16`).
pub(crate) fn eigvalsh(a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
    let m = SmallMatrix::from_view(&a).ok_or_else(too_large)?;
    Ok(Array1::from(eigh_small(&m, false)?.values().to_vec()))
}

fn too_large() -> Error {
    Error::Eigensolver {
        backend: "jacobi",
        reason: format!(
            "the fixed-size Jacobi solver takes square matrices up to {SMALL_MAX}×{SMALL_MAX}"
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
    fn residuals(a: &SmallMatrix, e: &SmallEigen) -> (f64, f64) {
        let n = a.dim();
        let (mut res, mut orth) = (0.0f64, 0.0f64);
        for i in 0..n {
            for k in 0..n {
                let av: Complex64 = (0..n).map(|j| a.get(i, j) * e.vectors.get(j, k)).sum();
                res = res.max((av - e.vectors.get(i, k) * e.values[k]).norm());
                let g: Complex64 = (0..n)
                    .map(|j| e.vectors.get(j, i).conj() * e.vectors.get(j, k))
                    .sum();
                orth = orth.max((g - if i == k { 1.0 } else { 0.0 }).norm());
            }
        }
        (res, orth)
    }

    #[test]
    fn small_jacobi_two_by_two_closed_form() {
        // [[2, 1−i], [1+i, 3]]: λ = (5 ± √(1 + 8))/2 = 1, 4
        let a = SmallMatrix::from_fn(2, |i, j| match (i, j) {
            (0, 0) => c(2.0, 0.0),
            (1, 1) => c(3.0, 0.0),
            (1, 0) => c(1.0, 1.0),
            _ => c(1.0, -1.0),
        });
        let e = eigh_small(&a, true).unwrap();
        assert!((e.values[0] - 1.0).abs() < 4.0 * f64::EPSILON);
        assert!((e.values[1] - 4.0).abs() < 8.0 * f64::EPSILON);
        let (res, orth) = residuals(&a, &e);
        assert!(res < 8.0 * f64::EPSILON && orth < 4.0 * f64::EPSILON);
        // diagonal, degenerate and tiny off-diagonal inputs
        for (d0, d1, g) in [
            (0.3, 0.7, c(0.0, 0.0)),
            (0.5, 0.5, c(0.0, 1e-300)),
            (0.5, 0.5, c(0.25, 0.0)),
            (1.0, 1e-300, c(1e-160, 1e-160)),
            (1e300, -1e300, c(1e-10, 0.0)),
        ] {
            let a = SmallMatrix::from_fn(2, |i, j| match (i, j) {
                (0, 0) => c(d0, 0.0),
                (1, 1) => c(d1, 0.0),
                (1, 0) => g,
                _ => g.conj(),
            });
            let e = eigh_small(&a, true).unwrap();
            let (res, orth) = residuals(&a, &e);
            let norm = d0.abs().max(d1.abs()).max(g.norm());
            assert!(res <= 8.0 * f64::EPSILON * norm, "{d0} {d1} {g}: {res}");
            assert!(orth <= 4.0 * f64::EPSILON);
            let tr = e.values[0] + e.values[1];
            assert!((tr - (d0 + d1)).abs() <= 4.0 * f64::EPSILON * norm);
        }
    }

    #[test]
    fn small_jacobi_rejects_non_finite_and_oversized() {
        let a = SmallMatrix::from_fn(3, |i, j| {
            if i == 2 && j == 1 {
                c(f64::NAN, 0.0)
            } else {
                c(1.0, 0.0)
            }
        });
        assert!(eigh_small(&a, false).is_err());
        let big = Array2::<Complex64>::zeros((17, 17));
        assert!(eigvalsh(big.view()).is_err());
    }

    /// Random Hermitian matrices `U diag(λ) U†` with prescribed spectra (graded, rank-deficient,
    /// degenerate, nearly degenerate, indefinite): every computed eigenvalue within `8 n ε ‖A‖`
    /// of the prescribed one (LAPACK's absolute bound), residual and orthogonality at rounding level.
    #[test]
    fn small_jacobi_meets_the_backward_stable_bound() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for case in 0..600 {
            let n = 1 + case % SMALL_MAX;
            let mut lam: Vec<f64> = (0..n)
                .map(|k| match case % 6 {
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
                    _ => rng.random::<f64>() - 0.5,
                })
                .collect();
            let u = crate::state::haar_unitary(n, &mut rng);
            let a = SmallMatrix::from_fn(n, |i, j| {
                (0..n).map(|k| u[[i, k]] * lam[k] * u[[j, k]].conj()).sum()
            });
            let e = eigh_small(&a, true).unwrap();
            lam.sort_by(f64::total_cmp);
            let norm = lam.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for (got, want) in e.values().iter().zip(&lam) {
                assert!(
                    (got - want).abs()
                        <= 8.0 * n as f64 * f64::EPSILON * norm.max(f64::MIN_POSITIVE),
                    "case {case}: {got} vs {want}"
                );
            }
            let (res, orth) = residuals(&a, &e);
            assert!(
                res <= 8.0 * n as f64 * f64::EPSILON * norm,
                "case {case}: residual {res}"
            );
            assert!(
                orth <= 8.0 * n as f64 * f64::EPSILON,
                "case {case}: orthogonality {orth}"
            );
            let values_only = eigh_small(&a, false).unwrap();
            assert_eq!(values_only.values(), e.values());
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
            let jac = eigvalsh(h.view()).unwrap();
            let norm = lap.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for (a, b) in jac.iter().zip(&lap) {
                assert!(
                    (a - b).abs() <= 32.0 * n as f64 * f64::EPSILON * norm,
                    "case {case}"
                );
            }
        }
        // graded: D H D with D = diag(1, 1e-5, 1e-10) and H well conditioned
        let h = ndarray::arr2(&[[1.0, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 1.0]]);
        let dg = [1.0, 1e-5, 1e-10];
        let a = SmallMatrix::from_fn(3, |i, j| c(h[[i, j]] * dg[i] * dg[j], 0.0));
        let e = eigh_small(&a, false).unwrap();
        // smallest eigenvalue ≈ det/(product of the others): relative accuracy a few ε
        let det = (h[[0, 0]] * (h[[1, 1]] * h[[2, 2]] - 0.25) - 0.5 * (0.5 - 0.125)
            + 0.25 * (0.25 - 0.25))
            * (dg[0] * dg[1] * dg[2]).powi(2);
        let prod: f64 = e.values().iter().product();
        assert!((prod - det).abs() <= 1e-13 * det, "{prod} vs {det}");
    }
}
