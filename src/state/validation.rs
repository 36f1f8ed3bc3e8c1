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
    // the common case (row-major storage, finite entries below ~1e150): slice passes
    if let Some(stats) = a.as_slice().and_then(|s| fast_stats(s, r)) {
        let (norm, dev) = (stats.0.sqrt(), stats.1.sqrt());
        let t = tol.scaled(r, norm);
        if dev > t {
            return Err(Error::NotHermitian {
                deviation: dev,
                tolerance: t,
            });
        }
        if let Some(s) = a.as_slice_mut() {
            symmetrize_slice(s, r);
        }
        return Ok((r, t));
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

/// Tile side of the slice passes over `(i, j)` and its mirror `(j, i)`: 8 × 8 complex entries, so
/// the mirrored tile's 8 rows (2 cache lines each) fit the 8 ways of the L1 sets they share when
/// the row length is a multiple of 4 KB (d = 256, 512, …: every row of a column in one set; the
/// 32 × 32 tiles of `lower_triangle_tiled` thrash there — 55 % of the write pass's samples on one
/// stalled load at d = 256).
pub(crate) const SLICE_TILE: usize = 8;

/// `(max_ij |a_ij|², max_{i ≥ j} |a_ij − conj(a_ji)|²)` of the row-major `r × r` matrix `a` — the
/// squared statistics of [`symmetrize_checked`] (maxima do not depend on the order in which they
/// are taken) — or `None` when an entry is not finite or `|a_ij|²` reaches `1e300`, which the
/// general path handles (it names the entry, or recomputes with `hypot`). Two passes: the moduli
/// over the contiguous slice in independent lanes (vectorised), then the deviations tile by tile
/// over row slices (no index arithmetic or bounds checks per entry).
pub(crate) fn fast_stats(a: &[Complex64], r: usize) -> Option<(f64, f64)> {
    debug_assert_eq!(a.len(), r * r);
    const LANES: usize = 8;
    let (mut m, mut bad) = ([0.0f64; LANES], [false; LANES]);
    let chunks = a.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..LANES {
            let v = c[k].re * c[k].re + c[k].im * c[k].im;
            // NaN or ≥ 1e300 (also an infinite entry) sends the matrix to the general path
            bad[k] |= v.is_nan() || v >= 1e300;
            m[k] = if v > m[k] { v } else { m[k] };
        }
    }
    for z in rest {
        let v = z.norm_sqr();
        bad[0] |= v.is_nan() || v >= 1e300;
        m[0] = if v > m[0] { v } else { m[0] };
    }
    if bad.iter().any(|&b| b) {
        return None;
    }
    let norm2 = m.iter().copied().fold(0.0, f64::max);
    // every entry is finite and below 1e150: no difference overflows
    let mut dev = [0.0f64; SLICE_TILE];
    for bi in (0..r).step_by(SLICE_TILE) {
        for bj in (0..=bi).step_by(SLICE_TILE) {
            for i in bi..(bi + SLICE_TILE).min(r) {
                let hi = (bj + SLICE_TILE).min(i + 1);
                if hi <= bj {
                    continue;
                }
                let row = &a[i * r + bj..i * r + hi];
                for (k, (z, j)) in row.iter().zip(bj..hi).enumerate() {
                    let w = a[j * r + i];
                    let (x, y) = (z.re - w.re, z.im + w.im);
                    let v = x * x + y * y;
                    dev[k] = if v > dev[k] { v } else { dev[k] };
                }
            }
        }
    }
    Some((norm2, dev.iter().copied().fold(0.0, f64::max)))
}

/// The write pass of [`symmetrize_checked`] on a row-major `r × r` slice: `(A + A†)/2`, each
/// upper entry the conjugate of the lower one, tile by tile.
fn symmetrize_slice(a: &mut [Complex64], r: usize) {
    for bi in (0..r).step_by(SLICE_TILE) {
        for bj in (0..=bi).step_by(SLICE_TILE) {
            for i in bi..(bi + SLICE_TILE).min(r) {
                for j in bj..(bj + SLICE_TILE).min(i + 1) {
                    let m = (a[i * r + j] + a[j * r + i].conj()) * 0.5;
                    // conjugate first: on the diagonal the entry keeps m (imaginary part +0.0)
                    a[j * r + i] = m.conj();
                    a[i * r + j] = m;
                }
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::ShapeBuilder;
    use rand::{Rng, SeedableRng};

    /// The general path's statistics (the code before the slice passes), for comparison.
    fn general(a: &Array2<Complex64>) -> (f64, f64) {
        let r = a.nrows();
        let (mut norm, mut dev) = (0.0f64, 0.0f64);
        for i in 0..r {
            for j in 0..=i {
                let (z, w) = (a[[i, j]], a[[j, i]]);
                norm = norm.max(z.norm_sqr()).max(w.norm_sqr());
                dev = dev.max((z - w.conj()).norm_sqr());
            }
        }
        (norm, dev)
    }

    fn noisy(r: usize, seed: u64, scale: f64) -> Array2<Complex64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        Array2::from_shape_fn((r, r), |_| {
            Complex64::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5) * scale
        })
    }

    /// The slice passes give the general path's statistics exactly and the same symmetrised
    /// matrix bit for bit, at sizes around the tile and lane widths (and 256: 4 KB rows).
    #[test]
    fn slice_passes_equal_the_general_path() {
        for (k, r) in [1, 2, 3, 7, 8, 9, 15, 16, 17, 33, 64, 100, 256]
            .into_iter()
            .enumerate()
        {
            for scale in [1.0, 1e-200, 1e140] {
                let a = noisy(r, k as u64, scale);
                assert_eq!(
                    fast_stats(a.as_slice().unwrap(), r),
                    Some(general(&a)),
                    "r = {r}"
                );
                let mut fast = a.clone();
                symmetrize_slice(fast.as_slice_mut().unwrap(), r);
                let mut slow = a.clone();
                lower_triangle_tiled(r, |i, j| {
                    let m = (slow[[i, j]] + slow[[j, i]].conj()) * 0.5;
                    slow[[j, i]] = m.conj();
                    slow[[i, j]] = m;
                });
                assert_eq!(format!("{fast:?}"), format!("{slow:?}"));
            }
        }
    }

    /// What the slice passes leave to the general path: non-finite entries and `|a|² ≥ 1e300`;
    /// column-major storage never reaches them. Decisions and errors are the general path's.
    #[test]
    fn general_path_cases() {
        let r = 20;
        let mut a = noisy(r, 1, 1.0);
        a[[5, 3]] = Complex64::new(f64::NAN, 0.0);
        assert_eq!(fast_stats(a.as_slice().unwrap(), r), None);
        let e = symmetrize_checked(&mut a, Tolerance::default()).unwrap_err();
        assert!(matches!(e, Error::NonFinite { .. }), "{e:?}");
        let mut big = noisy(r, 2, 1.0);
        big[[0, 0]] = Complex64::new(1e151, 0.0);
        assert_eq!(fast_stats(big.as_slice().unwrap(), r), None);
        // Hermitian decisions alike in either storage order
        let mut h = noisy(r, 3, 1.0);
        h = &h + &h.t().mapv(|z| z.conj());
        h[[4, 2]] += Complex64::new(0.0, 1e-3);
        let mut f = Array2::zeros((r, r).f());
        f.assign(&h);
        let (e1, e2) = (
            symmetrize_checked(&mut h.clone(), Tolerance::default()).unwrap_err(),
            symmetrize_checked(&mut f, Tolerance::default()).unwrap_err(),
        );
        assert_eq!(format!("{e1:?}"), format!("{e2:?}"));
    }
}
