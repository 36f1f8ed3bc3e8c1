//! Eigenvalues of graded positive semidefinite matrices `H = D C D`, `D = diag(μ_j^p)`, to high
//! *relative* accuracy, with `D` kept in logarithmic form (so that `μ^p` may lie far outside the
//! range of `f64`, e.g. `0.3^{10²⁰}`).
//!
//! Method (Demmel & Veselić, SIAM J. Matrix Anal. Appl. 13 (1992); Veselić & Hari 1989):
//!
//! 1. **Pivoted Cholesky** `Pᵀ H P = L L†` with diagonal pivoting. Because `D` is diagonal, the
//!    Schur complements of `H` are `D S D` with `S` the Schur complements of `C`, so the pivots are
//!    chosen by comparing `2p ln μ_j + ln S_jj` and the factor is `L = D_P L_C`, `L_C` computed
//!    from `C` alone (no scaled entry is ever formed).
//! 2. **One-sided Jacobi** on the columns of `L`: each column is stored as a unit vector `u_k`
//!    and a log-scale `a_k = p ln μ_{π(k)} + o_k` (`π(k)` the pivot of step `k`). A rotation of
//!    columns `x = e^a u`, `y = e^b v` (`a ≥ b`, `κ = e^{b−a} ≤ 1`) only needs `κ`, `u†v`: with
//!    `N = κ² − 1`, `τ = sign(N)·2|u†v| / (|N| + √(4κ²|u†v|² + N²))`, `t = κτ`, `c = 1/√(1+t²)`,
//!    `s = ct` and `ṽ = e^{−i arg u†v} v`: `u ← c u − sκ ṽ`, `v ← c(τ u + ṽ)` — every quantity is
//!    bounded, and the scales are untouched. When the columns are orthogonal (`|u†v| ≤ n ε` for all
//!    pairs) the singular values of `L` are `e^{a_k}` and `H`'s eigenvalues are
//!    `ν_k = μ_{π(k)}^{2p} e^{2 o_k}`, with eigenvectors `P u_k`.
//!
//! Accuracy: with `Ĉ = diag(C)^{−1/2} C diag(C)^{−1/2}` the eigenvalues of `H` move relatively by at
//! most `κ(Ĉ)·η` under perturbations `|δC_ij| ≤ η √(C_ii C_jj)` (Demmel–Veselić, Thm 2.3), and this
//! algorithm attains that, independently of `D` (ibid., §4). The result is returned split as
//! `(π(k), 2 o_k)`, so callers can form `ν_k^α = μ^{2pα} e^{2α o_k}` without overflow.

use super::{adjoint_times, gram, EPS};
use crate::error::{Error, Result};
use ndarray::{Array2, ArrayView2};
use num_complex::Complex64;

/// Newton–Schulz steps [`preconditioned_gram_eigen`] takes at most before declining.
const NEWTON_SCHULZ_STEPS: usize = 6;

/// Maximal number of Jacobi sweeps (convergence is quadratic; a few sweeps are typical).
const MAX_SWEEPS: usize = 80;

/// The nonzero eigenvalues of a graded PSD matrix, in factored logarithmic form.
#[derive(Clone, Debug)]
pub struct GradedSpectrum {
    /// For each eigenvalue, the index `j` whose `μ_j^{2p}` is its scale.
    pub base: Vec<usize>,
    /// For each eigenvalue, `ln(ν_k / μ_{base_k}^{2p})`.
    pub log_rest: Vec<f64>,
    /// Unit eigenvectors of `H` (columns, original coordinates), when requested.
    pub vectors: Option<Array2<Complex64>>,
}

impl GradedSpectrum {
    /// `ln ν_k` (may be ±∞ or beyond the `f64` range of `ν_k` itself; `2p ln μ` is evaluated once).
    pub fn ln_values(&self, ln_mu: &[f64], p: f64) -> Vec<f64> {
        self.base
            .iter()
            .zip(&self.log_rest)
            .map(|(&j, r)| scaled(2.0 * p, ln_mu[j]) + r)
            .collect()
    }
}

/// `p·x` with `0·∞` read as 0 (a zero log-scale difference stays zero for any `p`).
fn scaled(p: f64, x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        p * x
    }
}

/// Eigenvalues (and optionally eigenvectors) of `H = D C D`, `D = diag(e^{p ln μ_j})`, for `C`
/// Hermitian PSD (`n × n`) of rank at most `rank`, to relative accuracy `O(n ε κ(Ĉ))` (module
/// docs). `ln_mu` has `n` finite entries; `p` may be any real number including ±∞ (the grading
/// is then lexicographic). Schur-complement pivots of `C` at or below `max(floor, n ε max_j C_jj)`
/// count as zero (the rank is exhausted); such eigenvalues are omitted.
pub fn graded_psd_eigen(
    c: ArrayView2<Complex64>,
    ln_mu: &[f64],
    p: f64,
    rank: usize,
    floor: f64,
    vectors: bool,
) -> Result<GradedSpectrum> {
    let n = c.nrows();
    assert_eq!(c.ncols(), n, "graded_psd_eigen: C must be square");
    assert_eq!(ln_mu.len(), n, "graded_psd_eigen: one ln μ per row of C");
    let rel = |i: usize, j: usize| scaled(p, ln_mu[i] - ln_mu[j]);
    // 1. pivoted Cholesky of C with H's pivot order
    let mut s = c.to_owned();
    let mut done = vec![false; n];
    let mut piv: Vec<usize> = Vec::with_capacity(rank.min(n));
    let mut lc: Vec<Vec<Complex64>> = Vec::with_capacity(rank.min(n));
    let cmax = (0..n).map(|j| c[[j, j]].re).fold(0.0, f64::max);
    // Schur diagonals at or below rounding of C are zeros (rank exhausted)
    let floor = floor.max(n as f64 * EPS * cmax);
    while piv.len() < rank.min(n) {
        let mut best: Option<usize> = None;
        for j in (0..n).filter(|&j| !done[j] && s[[j, j]].re > floor) {
            best = match best {
                None => Some(j),
                Some(b) => {
                    let key = 2.0 * rel(j, b) + (s[[j, j]].re / s[[b, b]].re).ln();
                    Some(if key > 0.0 { j } else { b })
                }
            };
        }
        let Some(k) = best else { break };
        done[k] = true;
        // Schur diagonals at rounding level are exact zeros from here on (a row's graded scale
        // could otherwise exceed the pivot's and overflow step 2)
        for j in 0..n {
            if !done[j] && s[[j, j]].re <= floor {
                done[j] = true;
            }
        }
        let d = s[[k, k]].re.sqrt();
        let col: Vec<Complex64> = (0..n)
            .map(|i| {
                if done[i] && i != k {
                    Complex64::new(0.0, 0.0)
                } else if i == k {
                    Complex64::new(d, 0.0)
                } else {
                    s[[i, k]] / d
                }
            })
            .collect();
        for i in (0..n).filter(|&i| !done[i]) {
            for j in (0..n).filter(|&j| !done[j]) {
                s[[i, j]] -= col[i] * col[j].conj();
            }
        }
        piv.push(k);
        lc.push(col);
    }
    graded_jacobi(&piv, &lc, ln_mu, p, vectors)
}

/// Eigenvalues (and optionally eigenvectors) of `H = D G G† D`, `D = diag(e^{p ln μ_j})`, from
/// the factor `G` (`n × r`, e.g. `G = W Λ^{1/2}` for a state of rank `r`), to relative accuracy
/// governed by the row-scaled condition of `G` — never by a Cholesky of a rank-deficient `G G†`.
///
/// Step 1 is the pivoted Cholesky factor of `C = G G†` computed from `G` itself: Gram–Schmidt on
/// the rows `g_j` (twice, for orthogonality to working accuracy) with the pivot maximising
/// `2p ln μ_j + ln ‖g_j^{(k)}‖²` over the residual rows `g_j^{(k)}` (whose squared norms are the
/// Schur diagonals of `C`). A residual at or below `4 r ε ‖g_j‖` is rounding of that row and
/// counts as zero, so the factor has exactly the rank of `G` (at most `min(n, r)` columns) and no
/// pivot is chosen from rounding noise however strong the grading; steps 2–3 are those of
/// [`graded_psd_eigen`]. Cost `O(n r² + sweeps·r² n)`.
pub fn graded_gram_eigen(
    g: ArrayView2<Complex64>,
    ln_mu: &[f64],
    p: f64,
    vectors: bool,
) -> Result<GradedSpectrum> {
    let (n, r) = g.dim();
    assert_eq!(ln_mu.len(), n, "graded_gram_eigen: one ln μ per row of G");
    let rel = |i: usize, j: usize| scaled(p, ln_mu[i] - ln_mu[j]);
    let mut res = g.to_owned();
    let noise: Vec<f64> = (0..n)
        .map(|j| 4.0 * r.max(1) as f64 * EPS * row_norm(&res, j))
        .collect();
    let mut done = vec![false; n];
    let mut piv: Vec<usize> = Vec::with_capacity(r.min(n));
    let mut lc: Vec<Vec<Complex64>> = Vec::with_capacity(r.min(n));
    while piv.len() < r.min(n) {
        let norms: Vec<f64> = (0..n).map(|j| row_norm(&res, j)).collect();
        let mut best: Option<usize> = None;
        for j in (0..n).filter(|&j| !done[j] && norms[j] > noise[j]) {
            best = match best {
                None => Some(j),
                Some(b) => {
                    let key = 2.0 * rel(j, b) + 2.0 * (norms[j] / norms[b]).ln();
                    Some(if key > 0.0 { j } else { b })
                }
            };
        }
        let Some(k) = best else { break };
        done[k] = true;
        // rows left at rounding level are exact zeros from here on (their graded scale could
        // otherwise exceed the pivot's and overflow step 2)
        for j in 0..n {
            if !done[j] && norms[j] <= noise[j] {
                done[j] = true;
                res.row_mut(j).fill(Complex64::new(0.0, 0.0));
            }
        }
        let q: Vec<Complex64> = res.row(k).iter().map(|z| z / norms[k]).collect();
        let mut col = vec![Complex64::new(0.0, 0.0); n];
        col[k] = Complex64::new(norms[k], 0.0);
        for i in (0..n).filter(|&i| !done[i]) {
            // L_C[i,k] = ⟨q, g_i^{(k)}⟩ (conjugate-linear in q), projected out twice
            for _ in 0..2 {
                let h: Complex64 = res.row(i).iter().zip(&q).map(|(x, y)| x * y.conj()).sum();
                res.row_mut(i)
                    .iter_mut()
                    .zip(&q)
                    .for_each(|(x, y)| *x -= h * y);
                col[i] += h;
            }
        }
        piv.push(k);
        lc.push(col);
    }
    graded_jacobi(&piv, &lc, ln_mu, p, vectors)
}

/// Euclidean norm of row `j`.
fn row_norm(a: &Array2<Complex64>, j: usize) -> f64 {
    a.row(j).iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

/// Steps 2–3 (module docs): one-sided Jacobi on the columns of `L = D_P L_C` kept as unit vectors
/// and log-scales. `piv[k]` is the pivot row of column `k`, `lc[k]` the column of `L_C`.
fn graded_jacobi(
    piv: &[usize],
    lc: &[Vec<Complex64>],
    ln_mu: &[f64],
    p: f64,
    vectors: bool,
) -> Result<GradedSpectrum> {
    let n = ln_mu.len();
    let rel = |i: usize, j: usize| scaled(p, ln_mu[i] - ln_mu[j]);
    // 2. columns of L = D L_C as (unit vector, offset o_k); scale a_k = p ln μ_{piv k} + o_k
    let r = piv.len();
    let mut u: Vec<Vec<Complex64>> = Vec::with_capacity(r);
    let mut off: Vec<f64> = Vec::with_capacity(r);
    for (col, &k) in lc.iter().zip(piv) {
        let dk = col[k].re;
        let v: Vec<Complex64> = col
            .iter()
            .enumerate()
            .map(|(i, z)| {
                if z.norm() == 0.0 {
                    return Complex64::new(0.0, 0.0);
                }
                let ratio = z / dk;
                let mag = (rel(i, k) + ratio.norm().ln()).exp();
                ratio / ratio.norm() * mag
            })
            .collect();
        let norm = v.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        u.push(v.iter().map(|z| z / norm).collect());
        off.push(dk.ln() + norm.ln());
    }
    // 3. one-sided Jacobi on the scaled columns
    jacobi_sweeps(&mut u, &mut off, |x, y| rel(piv[y], piv[x]), n)?;
    let keep: Vec<usize> = (0..r).filter(|&k| off[k] > f64::NEG_INFINITY).collect();
    let vecs = vectors.then(|| Array2::from_shape_fn((n, keep.len()), |(i, k)| u[keep[k]][i]));
    Ok(GradedSpectrum {
        base: keep.iter().map(|&k| piv[k]).collect(),
        log_rest: keep.iter().map(|&k| 2.0 * off[k]).collect(),
        vectors: vecs,
    })
}

/// Cyclic one-sided Jacobi sweeps on unit columns `u` with log-scales `off` (plus the grading
/// `grade(x, y)`: log-scale of column `y` over column `x` beyond `off`) until every pair is
/// orthogonal to `n ε` (`n`: the column length); the number of sweeps, the last one rotating none.
fn jacobi_sweeps(
    u: &mut [Vec<Complex64>],
    off: &mut [f64],
    grade: impl Fn(usize, usize) -> f64,
    n: usize,
) -> Result<usize> {
    let r = u.len();
    let tol = (n.max(2) as f64) * EPS;
    if r < 2 {
        return Ok(0);
    }
    for sweep in 1..=MAX_SWEEPS {
        // the Gram matrix of the columns at the sweep's start (one BLAS product instead of r²/2
        // dot products): a pair neither of whose columns has rotated yet in this sweep, and whose
        // entry is below tol/2 (margin for the two products' different rounding), is skipped
        let rows = Array2::from_shape_fn((r, n), |(k, i)| u[k][i]);
        let g0 = gram(&rows.view());
        let mut touched = vec![false; r];
        let mut rotated = false;
        for x in 0..r {
            for y in x + 1..r {
                if !touched[x] && !touched[y] && g0[[x, y]].norm() <= 0.5 * tol {
                    continue;
                }
                let delta = grade(x, y) + (off[y] - off[x]);
                let (lo, hi) = u.split_at_mut(y);
                if let Some((dx, dy)) =
                    jacobi_pair(&mut lo[x], &mut hi[0], off[x], off[y], delta, tol)
                {
                    rotated = true;
                    touched[x] = true;
                    touched[y] = true;
                    off[x] += dx;
                    off[y] += dy;
                }
            }
        }
        if !rotated {
            return Ok(sweep);
        }
    }
    Err(Error::Eigensolver {
        backend: "graded Jacobi",
        reason: format!("no convergence in {MAX_SWEEPS} sweeps (n = {n})"),
    })
}

/// Eigenpairs of `T = F F†` (`F`: `n × n`, full rank) to the relative accuracy of
/// [`graded_psd_eigen`], from approximate eigenvectors `V̂` of `T` (the columns of a fast
/// eigensolve): one-sided Jacobi on the columns of `L = F Q̂`, where `Q̂` is the unitary factor of
/// `Y = F†V̂` (column-normalised, one Newton–Schulz step `Q̂ = Y_c (I − E/2)`,
/// `E = Y_c†Y_c − I`). `L L† = F Q̂Q̂† F†` is `T` up to a row-wise relative perturbation
/// (`‖Q̂Q̂† − I‖` and the products' rounding, `O(n ε)`, the model under which the graded Jacobi
/// method is accurate), so `V̂` is only a preconditioner: `L`'s columns start nearly orthogonal and
/// the sweeps converge in a few rounds however inaccurate `V̂` is (docs/divergences.md,
/// "preconditioned_gram_eigen"). Returns `(ln t_k, unit eigenvectors (columns), sweeps)`, or
/// `None` when `F` is not square, `V̂` does not match or some `F†v̂_k` vanishes (rank-deficient).
#[allow(clippy::type_complexity)]
pub fn preconditioned_gram_eigen(
    f: ArrayView2<Complex64>,
    v: ArrayView2<Complex64>,
) -> Result<Option<(Vec<f64>, Array2<Complex64>, usize)>> {
    let (n, r) = f.dim();
    if n == 0 || r != n || v.dim() != (n, n) {
        return Ok(None);
    }
    let mut y = adjoint_times(&f, &v); // n × n, column k = F†v̂_k
    for mut col in y.columns_mut() {
        let nrm = col.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        if !(nrm > 0.0 && nrm.is_finite()) {
            return Ok(None);
        }
        let inv = 1.0 / nrm;
        col.iter_mut().for_each(|z| *z *= inv);
    }
    // Newton–Schulz: Y ← Y − ½ Y E, E = Y†Y − I, leaves Y†Y − I = O(‖E‖²) + rounding; steps until
    // a step from ‖E‖_F ≤ 10⁻⁸ (one, with a fast eigensolve's vectors); declined when ‖E‖_F ≥ ½
    let mut steps = 0;
    loop {
        let mut e = adjoint_times(&y.view(), &y.view());
        for i in 0..n {
            e[[i, i]] -= 1.0;
        }
        let size = e.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        if size.is_nan() || size >= 0.5 || steps == NEWTON_SCHULZ_STEPS {
            return Ok(None);
        }
        e.mapv_inplace(|z| z * 0.5);
        y = &y - &y.dot(&e);
        steps += 1;
        if size <= 1e-8 {
            break;
        }
    }
    let l = f.dot(&y);
    let mut u: Vec<Vec<Complex64>> = Vec::with_capacity(n);
    let mut off: Vec<f64> = Vec::with_capacity(n);
    for col in l.columns() {
        let nrm = col.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        if !(nrm > 0.0 && nrm.is_finite()) {
            return Ok(None);
        }
        let inv = 1.0 / nrm;
        u.push(col.iter().map(|z| z * inv).collect());
        off.push(nrm.ln());
    }
    let sweeps = jacobi_sweeps(&mut u, &mut off, |_, _| 0.0, n)?;
    let vecs = Array2::from_shape_fn((n, n), |(i, k)| u[k][i]);
    Ok(Some((off.iter().map(|o| 2.0 * o).collect(), vecs, sweeps)))
}

/// One Jacobi step on the pair of unit columns `ux`, `uy` with log-scales `ox`, `oy` (`delta`:
/// log-scale of `y` over `x`, grading included): `None` when they are orthogonal to `tol` (or
/// one is zero), else the changes of `ox`, `oy` (the columns are rotated and renormalised).
fn jacobi_pair(
    ux: &mut [Complex64],
    uy: &mut [Complex64],
    ox: f64,
    oy: f64,
    delta: f64,
    tol: f64,
) -> Option<(f64, f64)> {
    if ox == f64::NEG_INFINITY || oy == f64::NEG_INFINITY {
        return None;
    }
    // orient so that column `a` has the larger scale
    let swap = delta > 0.0;
    let (ua, ub) = if swap { (uy, ux) } else { (ux, uy) };
    let kappa = (-delta.abs()).exp();
    let g = dot_conj(ua, ub);
    let gabs = g.norm();
    if gabs <= tol {
        return None;
    }
    let phase = g.conj() / gabs;
    let nn = kappa * kappa - 1.0;
    let tau = if nn < 0.0 {
        -2.0 * gabs / (-nn + (4.0 * kappa * kappa * gabs * gabs + nn * nn).sqrt())
    } else {
        1.0 // κ = 1: a 45° rotation (t = 1)
    };
    let t = kappa * tau;
    let cs = 1.0 / (1.0 + t * t).sqrt();
    let sn = cs * t;
    let (na, nb) = rotate(ua, ub, phase, cs, sn * kappa, tau);
    let (na, nb) = (na.sqrt(), nb.sqrt());
    for (col, nrm) in [(&mut *ua, na), (&mut *ub, nb)] {
        if nrm > 0.0 {
            let inv = 1.0 / nrm;
            col.iter_mut().for_each(|z| *z *= inv);
        }
    }
    let (da, db) = (na.ln(), nb.ln());
    Some(if swap { (db, da) } else { (da, db) })
}

/// Lanes of the Jacobi kernels: independent partial sums, so that the reductions do not wait on
/// one floating-point addition chain (and vectorise).
const LANES: usize = 4;

/// `Σ_i conj(a_i) b_i` with [`LANES`] partial sums.
fn dot_conj(a: &[Complex64], b: &[Complex64]) -> Complex64 {
    let (mut re, mut im) = ([0.0f64; LANES], [0.0f64; LANES]);
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ta, tb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..LANES {
            re[l] += x[l].re * y[l].re + x[l].im * y[l].im;
            im[l] += x[l].re * y[l].im - x[l].im * y[l].re;
        }
    }
    let mut g = Complex64::new(re.iter().sum(), im.iter().sum());
    for (x, y) in ta.iter().zip(tb) {
        g += x.conj() * y;
    }
    g
}

/// One Jacobi rotation of the columns `ua`, `ub` (module docs: `ṽ = phase·v`,
/// `u ← c u − sκ ṽ`, `v ← c(τ u + ṽ)`), returning their new squared norms.
fn rotate(
    ua: &mut [Complex64],
    ub: &mut [Complex64],
    phase: Complex64,
    cs: f64,
    sk: f64,
    tau: f64,
) -> (f64, f64) {
    let (mut na, mut nb) = ([0.0f64; LANES], [0.0f64; LANES]);
    let step = |pa: &mut Complex64, pb: &mut Complex64| {
        let vt = *pb * phase;
        let xa = *pa * cs - vt * sk;
        let xb = (*pa * tau + vt) * cs;
        *pa = xa;
        *pb = xb;
        (xa.norm_sqr(), xb.norm_sqr())
    };
    let mut ca = ua.chunks_exact_mut(LANES);
    let mut cb = ub.chunks_exact_mut(LANES);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for l in 0..LANES {
            let (p, q) = step(&mut x[l], &mut y[l]);
            na[l] += p;
            nb[l] += q;
        }
    }
    let (mut sa, mut sb): (f64, f64) = (na.iter().sum(), nb.iter().sum());
    for (x, y) in ca.into_remainder().iter_mut().zip(cb.into_remainder()) {
        let (p, q) = step(x, y);
        sa += p;
        sb += q;
    }
    (sa, sb)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `preconditioned_gram_eigen_perturbed_vectors`: `T = F F†`, `F = D^{−1/2} G` (`G` Ginibre,
    /// `μ` from 1 to `10⁻⁹`, n = 16), preconditioned by the backend's eigenvectors of `T` after a
    /// non-graded perturbation of `10⁻¹²` (the size of a less careful eigensolver's error, e.g.
    /// nalgebra's on the `maximal_ritz_reference` pairs) and of `10⁻⁴`: the eigenvalues and
    /// `Q_α = Σ_k w_k t_k^α` (`w_k = Σ_j μ_j |u_jk|²`) agree with [`graded_gram_eigen`] on `G` to
    /// `64 n ε` however inaccurate the preconditioner, in at most 3 (resp. 6) sweeps. The
    /// Rayleigh–Ritz estimate from the perturbed vectors themselves (`t̂_k = ‖F†v̂_k‖²/‖v̂_k‖²`,
    /// weights `v̂_k†Dv̂_k/‖v̂_k‖²`; the reverted issue-14 route) misses `Q_α` by far more: its
    /// weights carry the vectors' error at first order.
    #[test]
    fn preconditioned_gram_eigen_perturbed_vectors() {
        use crate::spectral::{Backend, EigenSolver};
        use rand::SeedableRng;
        let n = 16;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1416);
        let lm: Vec<f64> = (0..n).map(|j| -0.6 * j as f64 * 10f64.ln()).collect();
        let g = crate::state::ginibre(n, n, &mut rng);
        let f = Array2::from_shape_fn((n, n), |(i, j)| g[[i, j]] * (-0.5 * lm[i]).exp());
        let weights = |u: &Array2<Complex64>, k: usize| -> f64 {
            let nn: f64 = u.column(k).iter().map(|z| z.norm_sqr()).sum();
            let m: f64 = (0..n).map(|j| lm[j].exp() * u[[j, k]].norm_sqr()).sum();
            m / nn
        };
        let q = |t: &[f64], w: &[f64], a: f64| -> f64 {
            t.iter().zip(w).map(|(t, w)| w * t.powf(a)).sum()
        };
        let reference = graded_gram_eigen(g.view(), &lm, -0.5, true).unwrap();
        let ref_vecs = reference.vectors.clone().unwrap();
        let t_ref: Vec<f64> = reference
            .ln_values(&lm, -0.5)
            .iter()
            .map(|l| l.exp())
            .collect();
        let w_ref: Vec<f64> = (0..n).map(|k| weights(&ref_vecs, k)).collect();
        let mut sorted_ref = t_ref.clone();
        sorted_ref.sort_by(f64::total_cmp);
        let tt = f.dot(&f.t().mapv(|z| z.conj()));
        let (_, v) = Backend::Auto.eigh(tt.view()).unwrap();
        let tol = 64.0 * n as f64 * EPS;
        for (size, max_sweeps) in [
            (1e-12, 6),
            (1e-8, 8),
            (1e-6, MAX_SWEEPS),
            (1e-2, MAX_SWEEPS),
        ] {
            let noise = crate::state::ginibre(n, n, &mut rng);
            let vp = &v + &noise.mapv(|z| z * size);
            let Some((ln_t, u, sweeps)) = preconditioned_gram_eigen(f.view(), vp.view()).unwrap()
            else {
                // declined: the preconditioner is too far from unitary after the Newton–Schulz steps
                assert!(size > 1e-6, "perturbation {size:e} declined");
                continue;
            };
            assert!(
                sweeps <= max_sweeps,
                "perturbation {size:e}: {sweeps} sweeps"
            );
            let t: Vec<f64> = ln_t.iter().map(|l| l.exp()).collect();
            let w: Vec<f64> = (0..n).map(|k| weights(&u, k)).collect();
            let mut sorted = t.clone();
            sorted.sort_by(f64::total_cmp);
            for (a, b) in sorted.iter().zip(&sorted_ref) {
                assert!(
                    (a / b - 1.0).abs() <= tol,
                    "perturbation {size:e}: t {a:e} vs {b:e}"
                );
            }
            // the old Rayleigh–Ritz estimate from the same perturbed vectors
            let z = adjoint_times(&f.view(), &vp.view());
            let t_old: Vec<f64> = (0..n)
                .map(|k| {
                    let nz: f64 = z.column(k).iter().map(|x| x.norm_sqr()).sum();
                    let nv: f64 = vp.column(k).iter().map(|x| x.norm_sqr()).sum();
                    nz / nv
                })
                .collect();
            let w_old: Vec<f64> = (0..n).map(|k| weights(&vp, k)).collect();
            let mut old_err: f64 = 0.0;
            for a in [0.1, 0.5, 0.9] {
                let qr = q(&t_ref, &w_ref, a);
                let err = (q(&t, &w, a) / qr - 1.0).abs();
                assert!(
                    err <= tol,
                    "perturbation {size:e}, α = {a}: Q off by {err:e}"
                );
                old_err = old_err.max((q(&t_old, &w_old, a) / qr - 1.0).abs());
            }
            assert!(
                old_err > 10.0 * tol,
                "perturbation {size:e}: old route off by {old_err:e}"
            );
        }
    }

    /// `graded_psd_eigen` on an ungraded matrix (`p = 0`) agrees with the characteristic
    /// polynomial of a 2 × 2 matrix, and on a strongly graded one with the closed form
    /// `ν ≈ μ^{2p}·(Schur pivots)`.
    #[test]
    fn graded_psd_eigen_two_by_two() {
        let c = ndarray::arr2(&[
            [Complex64::new(0.6, 0.0), Complex64::new(0.1, 0.05)],
            [Complex64::new(0.1, -0.05), Complex64::new(0.4, 0.0)],
        ]);
        let lm = [0.3f64.ln(), 0.7f64.ln()];
        let sp = graded_psd_eigen(c.view(), &lm, 0.0, 2, 0.0, true).unwrap();
        let mut nu: Vec<f64> = sp.ln_values(&lm, 0.0).iter().map(|x| x.exp()).collect();
        nu.sort_by(f64::total_cmp);
        let (tr, det): (f64, f64) = (1.0, 0.24 - 0.0125);
        let disc = (tr * tr - 4.0 * det).sqrt();
        assert!((nu[0] - (tr - disc) / 2.0).abs() < 1e-15);
        assert!((nu[1] - (tr + disc) / 2.0).abs() < 1e-15);
        // p = 1e6: ν_1 = 0.7^{2e6}·0.4, ν_2 = 0.3^{2e6}·(0.6 − 0.0125/0.4) (to relative 1e-300)
        let p = 1e6;
        let sp = graded_psd_eigen(c.view(), &lm, p, 2, 0.0, false).unwrap();
        let mut ln = sp.ln_values(&lm, p);
        ln.sort_by(f64::total_cmp);
        let want = [
            2.0 * p * lm[0] + (0.6f64 - 0.0125 / 0.4).ln(),
            2.0 * p * lm[1] + 0.4f64.ln(),
        ];
        for (a, b) in ln.iter().zip(want) {
            assert!((a - b).abs() < 1e-9 * b.abs(), "{a} vs {b}");
        }
        let rest: Vec<f64> = sp.log_rest.clone();
        assert!(rest.iter().any(|r| (r - 0.4f64.ln()).abs() < 1e-14));
        assert!(rest
            .iter()
            .any(|r| (r - (0.6f64 - 0.0125 / 0.4).ln()).abs() < 1e-14));
    }

    /// `graded_jacobi_determinant`: at n = 101 (the four-lane kernels with a remainder) against the
    /// determinant: the
    /// sum of `ln ν_k` of a strongly graded `H = D G G† D` equals `ln det H = 2p Σ ln μ + ln det(G G†)`,
    /// and the largest eigenvalue agrees with the trace bound `ν_max ≤ Tr H ≤ n ν_max`.
    #[test]
    fn graded_jacobi_determinant() {
        use rand::{Rng, SeedableRng};
        let n = 101;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(96);
        let g = Array2::from_shape_fn((n, n), |_| {
            Complex64::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))
        });
        let lm: Vec<f64> = (0..n).map(|j| -(j as f64) * 0.3).collect();
        let p = 0.5;
        let sp = graded_gram_eigen(g.view(), &lm, p, true).unwrap();
        assert_eq!(sp.base.len(), n);
        let ln_nu = sp.ln_values(&lm, p);
        // ln det(G G†) from an unpivoted LU-free route: Σ ln of the Gram–Schmidt norms of G's rows
        let mut q: Vec<Vec<Complex64>> = Vec::new();
        let mut ln_det = 0.0;
        for j in 0..n {
            let mut row: Vec<Complex64> = g.row(j).to_vec();
            for _ in 0..2 {
                for b in &q {
                    let h: Complex64 = row.iter().zip(b).map(|(x, y)| x * y.conj()).sum();
                    row.iter_mut().zip(b).for_each(|(x, y)| *x -= h * y);
                }
            }
            let nrm = row.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
            ln_det += 2.0 * nrm.ln();
            q.push(row.iter().map(|z| z / nrm).collect());
        }
        let want = 2.0 * p * lm.iter().sum::<f64>() + ln_det;
        let got: f64 = ln_nu.iter().sum();
        assert!((got - want).abs() < 1e-9 * want.abs(), "{got} vs {want}");
        // eigenvectors orthonormal
        let v = sp.vectors.unwrap();
        let gram = v.t().mapv(|z| z.conj()).dot(&v);
        for i in 0..n {
            for j in 0..n {
                let e = if i == j { 1.0 } else { 0.0 };
                assert!((gram[[i, j]] - e).norm() < 1e-12);
            }
        }
    }

    /// `graded_gram_eigen` on a rank-2 factor `G` (4 × 2) against Cauchy–Binet in log form:
    /// `ν₁ + ν₂ = Σ_j μ_j^{2p} ‖g_j‖²`, `ν₁ν₂ = Σ_{i<j} (μ_i μ_j)^{2p} |det G_{ij}|²` — sums of
    /// positive terms, so `ln ν₂ = ln(ν₁ν₂) − ln ν₁` keeps full relative accuracy even when
    /// `ν₂/ν₁ = 10⁻⁴⁰⁰` (p = 200). Also with one row of `G` exactly zero (a σ direction orthogonal
    /// to supp ρ) carrying the largest μ.
    #[test]
    fn graded_gram_eigen_rank_two() {
        let z = |re: f64, im: f64| Complex64::new(re, im);
        let lm: Vec<f64> = [0.9f64, 0.5, 0.1, 0.01].iter().map(|m| m.ln()).collect();
        let lse = |v: &[f64]| {
            let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            m + v.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
        };
        let full = ndarray::arr2(&[
            [z(0.3, 0.1), z(-0.2, 0.4)],
            [z(0.5, -0.3), z(0.1, 0.2)],
            [z(-0.4, 0.2), z(0.6, -0.1)],
            [z(0.2, 0.2), z(-0.3, -0.5)],
        ]);
        let mut zero_top = full.clone();
        zero_top.row_mut(0).fill(z(0.0, 0.0));
        for g in [full, zero_top] {
            for p in [0.0, 5.0, 200.0] {
                let sp = graded_gram_eigen(g.view(), &lm, p, false).unwrap();
                let mut got = sp.ln_values(&lm, p);
                got.sort_by(|a, b| b.total_cmp(a));
                let row = |j: usize| g.row(j).iter().map(|x| x.norm_sqr()).sum::<f64>();
                let tr: Vec<f64> = (0..4)
                    .filter(|&j| row(j) > 0.0)
                    .map(|j| 2.0 * p * lm[j] + row(j).ln())
                    .collect();
                let mut det = Vec::new();
                for i in 0..4 {
                    for j in i + 1..4 {
                        let m = g[[i, 0]] * g[[j, 1]] - g[[i, 1]] * g[[j, 0]];
                        if m.norm() > 0.0 {
                            det.push(2.0 * p * (lm[i] + lm[j]) + m.norm_sqr().ln());
                        }
                    }
                }
                let (ln_tr, ln_det) = (lse(&tr), lse(&det));
                // ν₁ = (tr + √(tr² − 4 det))/2 in logs: tr·(1 + √(1 − 4 det/tr²))/2
                let r = (ln_det - 2.0 * ln_tr).exp();
                let ln_nu1 = ln_tr + ((1.0 + (1.0 - 4.0 * r).sqrt()) / 2.0).ln();
                let want = [ln_nu1, ln_det - ln_nu1];
                assert_eq!(got.len(), 2);
                for (a, b) in got.iter().zip(want) {
                    assert!(
                        (a - b).abs() < 1e-12 * (1.0 + b.abs()),
                        "p = {p}: {a} vs {b}"
                    );
                }
            }
        }
    }
}
