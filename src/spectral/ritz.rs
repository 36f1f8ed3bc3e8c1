//! Eigenvalues of `T = F F†` to certified *relative* accuracy from approximate eigenvectors: a
//! Rayleigh–Ritz step in factored form with a scaled-Gershgorin certificate (issue 14; derivation
//! in `docs/divergences.md`, "relative_ritz").
//!
//! Given the eigenvectors `V̂` of a backward-stable eigensolve of `T` (accurate to `n ε ‖T‖` in
//! the absolute sense only), the Rayleigh quotients are formed from the factor, row by row of
//! `Z = V̂† F`: `t̂_k = ‖z_k‖²`. The rows of `Z` are nearly orthogonal (cosines `~10⁻¹¹` where the
//! absolute bound `n ε t_max/t_k` is `10⁻⁴`), and `Z Z† = S(I + E)S` with `S = diag(‖z_k‖)`: a
//! diagonal similarity that singles out row `k` (Gershgorin, scale `τ` on every other row) puts
//! exactly one eigenvalue of `Z Z†` within relative `τ_k ρ_k` of `t̂_k` (`ρ_k = Σ_l |E_kl|`), with
//! `τ_k ≈ 2 max_l |E_lk| t̂_l / |t̂_k − t̂_l|` — second order in the cosines. `Z Z† = V̂† T V̂` and
//! `T` have the same eigenvalues up to the factor `[λ_min(V̂V̂†), λ_max(V̂V̂†)]` (Ostrowski), so
//! the certified relative error of `t̂_k` is `η_k = ν + τ_k ρ_k + 4ε` with
//! `ν ≥ ‖V̂V̂† − I‖₂` (bounded through `‖(V̂V̂† − I)²‖_F`, a factor `~n^{1/4}` below the Frobenius
//! norm for a rounding-level defect).

use super::{adjoint_times, gram, EPS};
use ndarray::ArrayView2;
use num_complex::Complex64;

/// Rayleigh quotients `t̂_k` of `T = F F†` at the columns of `V̂` and a certified bound `η_k` on
/// the relative distance of each from a distinct eigenvalue of `T` (module docs).
#[derive(Clone, Debug)]
pub struct RitzCertificate {
    /// `t̂_k = ‖(V̂† F)_k‖²`, one per column of `V̂` (column order).
    pub values: Vec<f64>,
    /// `|t_{π(k)} − t̂_k| ≤ η_k t̂_k` for a bijection `π` onto the eigenvalues of `T`.
    pub rel_error: Vec<f64>,
    /// `ν`: the bound on `‖V̂V̂† − I‖₂` used (part of every `η_k`).
    pub unitarity: f64,
}

/// `Σ_i |z_i|²` in double-word arithmetic (error `≤ 2ε` relative instead of `n ε`).
fn norm_sqr_compensated(row: impl Iterator<Item = Complex64>) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for z in row {
        for x in [z.re, z.im] {
            let p = x * x;
            let e = x.mul_add(x, -p);
            // TwoSum(s, p)
            let t = s + p;
            let bp = t - s;
            let err = (s - (t - bp)) + (p - bp);
            s = t;
            c += err + e;
        }
    }
    s + c
}

/// Certified Rayleigh–Ritz values of `T = F F†` (`F`: `n × r`, `T` of full rank `n`) at the
/// columns of a square `V̂` (`n × n`, nearly unitary: the eigenvectors of an eigensolve of `T`).
/// `None` when the certificate does not hold: a Rayleigh quotient is not positive, or some
/// Gershgorin disc is not isolated (clustered values); the caller then uses another method.
pub fn relative_ritz(
    v: ArrayView2<Complex64>,
    f: ArrayView2<Complex64>,
) -> Option<RitzCertificate> {
    let (n, r) = f.dim();
    if v.nrows() != n || v.ncols() != n || r < n || n == 0 {
        return None;
    }
    // ν ≥ ‖V̂V̂† − I‖₂: with A = fl(V̂V̂†) − I (Hermitian), ‖A‖₂ ≤ ‖A‖_F and
    // ‖A‖₂² = ‖A²‖₂ ≤ ‖A²‖_F ≤ ‖fl(A A†)‖_F + n ε ‖A‖_F² (the product's rounding); plus the
    // rounding of the n-term Gram V̂V̂† itself (n ε, as for the fast route's δ = n ε t_max)
    let mut a = gram(&v);
    for i in 0..n {
        a[[i, i]] -= 1.0;
    }
    let fro = |m: &ndarray::Array2<Complex64>| m.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
    let f1 = fro(&a);
    let f2 = fro(&gram(&a.view()));
    let nu = f1.min((f2 + n as f64 * EPS * f1 * f1).sqrt()) + n as f64 * EPS;
    if !nu.is_finite() || nu >= 0.25 {
        return None;
    }
    let z = adjoint_times(&v, &f); // n × r, row k = v̂_k† F
    let t: Vec<f64> = (0..n)
        .map(|k| norm_sqr_compensated(z.row(k).iter().copied()))
        .collect();
    if t.iter().any(|&x| !(x > 0.0 && x.is_finite())) {
        return None;
    }
    let m = gram(&z.view()); // Z Z†: entries within (r + 2) ε ‖z_k‖ ‖z_l‖ of the exact ones
    let round = (r + 2) as f64 * EPS;
    let s: Vec<f64> = t.iter().map(|x| x.sqrt()).collect();
    // |E_kl| bounds (cosines of the rows of Z, rounding included), row sums ρ_k
    let cos = |k: usize, l: usize| m[[k, l]].norm() / (s[k] * s[l]) + round;
    let rho: Vec<f64> = (0..n)
        .map(|k| (0..n).filter(|&l| l != k).map(|l| cos(k, l)).sum())
        .collect();
    let mut eta = Vec::with_capacity(n);
    for k in 0..n {
        // τ: the scale of every other row in the similarity that isolates disc k
        let mut tau: f64 = 0.0;
        for l in (0..n).filter(|&l| l != k) {
            let h = (t[k] - t[l]).abs() - t[l] * rho[l];
            if h <= 0.0 {
                return None;
            }
            tau = tau.max(2.0 * t[l] * cos(l, k) / h);
        }
        let tau = tau.clamp(f64::MIN_POSITIVE, 1.0);
        // disc k (radius t_k τ ρ_k) is disjoint from every disc l (radius t_l(|E_lk|/τ + ρ_l))
        for l in (0..n).filter(|&l| l != k) {
            let gap = (t[k] - t[l]).abs();
            if t[k] * tau * rho[k] + t[l] * (cos(l, k) / tau + rho[l]) >= gap {
                return None;
            }
        }
        eta.push(nu + tau * rho[k] + 4.0 * EPS);
    }
    Some(RitzCertificate {
        values: t,
        rel_error: eta,
        unitarity: nu,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    /// `relative_ritz_graded_diagonal`: `F = diag(f)` with `f` spread over 12 decades and `V̂` the
    /// identity rotated by graded angles `10⁻⁹ f_max(i,j)/f_min(i,j)`: every `t̂_k` within its certified `η_k` of `f_k²`,
    /// and `η_k` second order (far below the first-order `10⁻⁹`).
    #[test]
    fn relative_ritz_graded_diagonal() {
        let n = 6;
        let f: Vec<f64> = (0..n).map(|k| 10f64.powf(-(k as f64) * 1.2)).collect();
        let fm = Array2::from_shape_fn((n, n), |(i, j)| {
            if i == j {
                Complex64::new(f[i], 0.0)
            } else {
                Complex64::new(0.0, 0.0)
            }
        });
        // V̂ = exp(i A) ≈ I + iA − A²/2 for a tiny Hermitian A (unitary to ~1e-27)
        let a = Array2::from_shape_fn((n, n), |(i, j)| {
            if i == j {
                Complex64::new(0.0, 0.0)
            } else {
                // graded angles, as a backward-stable solver's are for such T
                let x = 1e-9 * (1 + (i + j) % 5) as f64 * f[i.max(j)] / f[i.min(j)];
                if i < j {
                    Complex64::new(x, 0.5 * x)
                } else {
                    Complex64::new(x, -0.5 * x)
                }
            }
        });
        let i_a = a.mapv(|z| z * Complex64::new(0.0, 1.0));
        let v = Array2::from_shape_fn((n, n), |(i, j)| {
            let id = if i == j { 1.0 } else { 0.0 };
            Complex64::new(id, 0.0) + i_a[[i, j]] - i_a.dot(&i_a)[[i, j]] * 0.5
        });
        let c = relative_ritz(v.view(), fm.view()).expect("isolated values");
        // a non-unitary V̂ (a non-Hermitian "A") shows in ν: the certificate is first order there
        let mut w = v.clone();
        w[[0, 1]] += Complex64::new(1e-10, 0.0);
        let cw = relative_ritz(w.view(), fm.view()).expect("isolated values");
        assert!(cw.unitarity >= 1e-10, "ν = {:e}", cw.unitarity);
        for (k, fk) in f.iter().enumerate() {
            let exact = fk * fk;
            let err = (c.values[k] / exact - 1.0).abs();
            assert!(
                err <= c.rel_error[k],
                "k = {k}: {err:e} > {:e}",
                c.rel_error[k]
            );
            assert!(c.rel_error[k] < 1e-13, "k = {k}: η = {:e}", c.rel_error[k]);
        }
    }

    /// Equal values (a cluster) are declined: the discs cannot be isolated.
    #[test]
    fn relative_ritz_declines_clusters() {
        let n = 3;
        let f = Array2::from_shape_fn((n, n), |(i, j)| {
            Complex64::new(if i == j { 1.0 } else { 0.0 }, 0.0)
        });
        let v = f.clone();
        assert!(relative_ritz(v.view(), f.view()).is_none());
    }
}
