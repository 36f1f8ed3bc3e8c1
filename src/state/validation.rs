//! Validation of input matrices: [`Tolerance`], squareness/finiteness, Hermiticity and the
//! symmetrisation `(A + A†)/2`, and probability vectors (the states of a classical system)
//! (docs/conventions.md, "Validation tolerance").

use crate::error::{Error, Result};
use ndarray::{Array2, ArrayView2};
use num_complex::Complex64;

/// Validation tolerance: an input passes a check when its defect is at most
/// `base · √d · max(1, max_ij |A_ij|)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Base tolerance for a 1×1 input of unit size (default `1e-10`).
    pub base: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance { base: 1e-10 }
    }
}

/// Largest accepted [`Tolerance::base`]: beyond it the scaled tolerance would let through
/// matrices that are visibly not states (trace or smallest eigenvalue off by more than
/// `1e-6·√d·max(1, max|A_ij|)`), and a zero matrix would pass the trace check.
pub const MAX_TOLERANCE: f64 = 1e-6;

impl Tolerance {
    /// Check `0 < base ≤` [`MAX_TOLERANCE`] (every validation calls it).
    pub fn check(&self) -> Result<()> {
        if self.base > 0.0 && self.base <= MAX_TOLERANCE {
            Ok(())
        } else {
            Err(Error::invalid(
                "tolerance",
                self.base,
                format!(
                    "must lie in (0, {MAX_TOLERANCE:e}]: it is the allowed trace defect and \
                     eigenvalue negativity per unit of √d·max|A_ij|, and a larger one accepts \
                     matrices that are not states"
                ),
            ))
        }
    }

    /// `base · √d · max(1, norm)`.
    pub fn scaled(&self, dim: usize, norm: f64) -> f64 {
        self.base * (dim.max(1) as f64).sqrt() * norm.max(1.0)
    }
}

/// Check that a matrix is square, non-empty and has finite entries; return its dimension.
pub(crate) fn check_square_finite(a: &ArrayView2<Complex64>) -> Result<usize> {
    let (r, c) = a.dim();
    if r != c {
        return Err(Error::NotSquare { rows: r, cols: c });
    }
    if r == 0 {
        return Err(Error::Empty("0×0 matrix".into()));
    }
    if let Some(((i, j), z)) = a
        .indexed_iter()
        .find(|(_, z)| !z.re.is_finite() || !z.im.is_finite())
    {
        return Err(Error::NonFinite {
            value: format!("{z}"),
            position: format!("({i}, {j})"),
        });
    }
    Ok(r)
}

/// Validate and symmetrise in place: squareness, non-emptiness and finiteness (errors as
/// [`check_square_finite`]), then `t = tol.scaled(d, max_ij |A_ij|)` and `max |A − A†| ≤ t`
/// ([`Error::NotHermitian`]). On success `a` holds the exactly Hermitian `(A + A†)/2` (each
/// upper entry the conjugate of the lower one) and `(d, t)` is returned. One read pass over the
/// pairs `(i, j), i ≥ j` computes all three statistics (from squared moduli; a second pass with
/// `hypot` only when an entry is beyond `~1e150`), one more writes the average.
pub(crate) fn symmetrize_checked(
    a: &mut Array2<Complex64>,
    tol: Tolerance,
) -> Result<(usize, f64)> {
    let (r, c) = a.dim();
    if r != c || r == 0 {
        // returns the NotSquare / Empty error (its Ok arm cannot be reached here)
        return check_square_finite(&a.view()).map(|d| (d, f64::NAN));
    }
    // squared moduli (no hypot per entry); exact enough unless an entry exceeds ~1e150
    let stats = |modulus: fn(Complex64) -> f64, a: &Array2<Complex64>| {
        let (mut norm, mut dev, mut finite) = (0.0f64, 0.0f64, true);
        lower_triangle_tiled(r, |i, j| {
            let (z, w) = (a[[i, j]], a[[j, i]]);
            finite &= z.re.is_finite() && z.im.is_finite() && w.re.is_finite() && w.im.is_finite();
            norm = norm.max(modulus(z)).max(modulus(w));
            dev = dev.max(modulus(z - w.conj()));
        });
        (norm, dev, finite)
    };
    let (norm2, dev2, finite) = stats(|z| z.norm_sqr(), a);
    if !finite {
        // the full scan names the first non-finite entry in row-major order (always an Err here)
        return check_square_finite(&a.view()).map(|d| (d, f64::NAN));
    }
    let (norm, dev) = if norm2 < 1e300 {
        (norm2.sqrt(), dev2.sqrt())
    } else {
        // |A_ij|² may overflow: recompute with hypot
        let (norm, dev, _) = stats(|z| z.norm(), a);
        (norm, dev)
    };
    let t = tol.scaled(r, norm);
    if dev > t {
        return Err(Error::NotHermitian {
            deviation: dev,
            tolerance: t,
        });
    }
    lower_triangle_tiled(r, |i, j| {
        let m = (a[[i, j]] + a[[j, i]].conj()) * 0.5;
        // conjugate first: on the diagonal the entry keeps m (imaginary part +0.0)
        a[[j, i]] = m.conj();
        a[[i, j]] = m;
    });
    Ok((r, t))
}

/// Visit the lower triangle `(i, j)`, `j ≤ i`, of an `r × r` matrix tile by tile (32 × 32), so
/// that the mirrored accesses `a[[j, i]]` of a tile stay in cache: a plain row loop walks a column
/// for them, one cache miss per entry once a row no longer fits (d = 1024: 16 KB rows).
fn lower_triangle_tiled(r: usize, mut f: impl FnMut(usize, usize)) {
    const TILE: usize = 32;
    for bi in (0..r).step_by(TILE) {
        for bj in (0..=bi).step_by(TILE) {
            for i in bi..(bi + TILE).min(r) {
                for j in bj..(bj + TILE).min(i + 1) {
                    f(i, j);
                }
            }
        }
    }
}

/// Tolerance on `|Σ p − 1|` for a vector of length `n`: `1e-10 · √n`.
pub fn probability_tolerance(n: usize) -> f64 {
    1e-10 * (n.max(1) as f64).sqrt()
}

/// Validate a probability vector: non-empty, finite, non-negative, `|Σp − 1| ≤ 1e-10·√n`.
pub fn check_probability(p: &[f64]) -> Result<()> {
    if p.is_empty() {
        return Err(Error::Empty("probability vector".into()));
    }
    if let Some((i, x)) = p.iter().enumerate().find(|(_, x)| !x.is_finite()) {
        return Err(Error::NonFinite {
            value: format!("{x}"),
            position: format!("index {i}"),
        });
    }
    if let Some((i, &x)) = p.iter().enumerate().find(|(_, x)| **x < 0.0) {
        return Err(Error::NegativeProbability { index: i, value: x });
    }
    let s: f64 = p.iter().sum();
    let tol = probability_tolerance(p.len());
    if (s - 1.0).abs() > tol {
        return Err(Error::TraceNotOne {
            trace: s,
            tolerance: tol,
        });
    }
    Ok(())
}
