//! Kernels, pairwise distances and the median bandwidth heuristic.

use crate::error::{Error, Result};
use ndarray::{Array1, Array2, ArrayView2, Axis};

/// A translation-invariant kernel family with `k(x, x) = 1` (so that covariance operators have
/// unit trace, as seed 002 assumes throughout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelKind {
    /// Gaussian / RBF `k(x, y) = exp(−‖x−y‖²/b²)` — **the paper's convention** (seed 002 code:
    /// `exp(-(d/bw)**2)`), i.e. *no* factor 2 in the denominator.
    Rbf,
    /// Laplace `k(x, y) = exp(−‖x−y‖/b)`.
    Laplace,
    /// Inverse multiquadric `k(x, y) = (1 + ‖x−y‖²/b²)^{−1/2}`.
    Imq,
}

impl KernelKind {
    /// Lowercase name used by the CLI (`rbf`, `laplace`, `imq`).
    pub fn name(self) -> &'static str {
        match self {
            KernelKind::Rbf => "rbf",
            KernelKind::Laplace => "laplace",
            KernelKind::Imq => "imq",
        }
    }
}

impl std::str::FromStr for KernelKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "rbf" | "gaussian" => Ok(KernelKind::Rbf),
            "laplace" => Ok(KernelKind::Laplace),
            "imq" => Ok(KernelKind::Imq),
            other => Err(Error::Parse {
                what: "kernel".into(),
                reason: format!("unknown kernel {other:?} (expected rbf, laplace or imq)"),
            }),
        }
    }
}

/// A kernel with its bandwidth `b > 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kernel {
    kind: KernelKind,
    bandwidth: f64,
}

impl Kernel {
    /// A kernel of family `kind` with bandwidth `b` (positive and finite).
    pub fn new(kind: KernelKind, bandwidth: f64) -> Result<Self> {
        if !(bandwidth > 0.0 && bandwidth.is_finite()) {
            return Err(Error::invalid(
                "bandwidth",
                bandwidth,
                "must be positive and finite",
            ));
        }
        Ok(Kernel { kind, bandwidth })
    }
    /// The family.
    pub fn kind(&self) -> KernelKind {
        self.kind
    }
    /// The bandwidth `b`.
    pub fn bandwidth(&self) -> f64 {
        self.bandwidth
    }

    /// `k` as a function of the squared distance `‖x−y‖²`.
    pub fn of_sq_distance(&self, d2: f64) -> f64 {
        let b = self.bandwidth;
        self.of_unit_sq_distance(d2 / (b * b))
    }

    /// `k` as a function of `u = ‖x−y‖²/b²` (the squared distance in units of the bandwidth).
    fn of_unit_sq_distance(&self, u: f64) -> f64 {
        match self.kind {
            KernelKind::Rbf => (-u).exp(),
            KernelKind::Laplace => (-u.sqrt()).exp(),
            KernelKind::Imq => 1.0 / (1.0 + u).sqrt(),
        }
    }

    /// The Gram matrix `G_ij = k(a_i, b_j)` of the rows of `a` (`p × d`) and `b` (`q × d`).
    ///
    /// Distances are computed on the samples divided by a power of two `s ≥ max|entry|` and
    /// converted to units of the bandwidth as `(‖·‖/s)²·(s/b)²`, so samples of any magnitude
    /// (up to `f64::MAX`) give the same Gram matrix as the same samples rescaled: nothing
    /// overflows to `inf − inf`.
    pub fn gram(&self, a: ArrayView2<f64>, b: ArrayView2<f64>) -> Result<Array2<f64>> {
        let (mut g, s) = scaled_sq_distances(a, b)?;
        let r = s / self.bandwidth;
        let f = |x: &mut f64| {
            let u = if *x == 0.0 { 0.0 } else { *x * r * r };
            *x = self.of_unit_sq_distance(u);
        };
        match g.as_slice_mut() {
            // elementwise, so the same numbers on any number of threads
            Some(all) if all.len() >= PARALLEL_FROM => {
                use rayon::prelude::*;
                all.par_chunks_mut(1 << 14)
                    .for_each(|chunk| chunk.iter_mut().for_each(f));
            }
            _ => g.iter_mut().for_each(f),
        }
        Ok(g)
    }

    /// The Gram matrix of the rows of `a` with themselves (exactly symmetric, unit diagonal).
    pub fn gram_sym(&self, a: ArrayView2<f64>) -> Result<Array2<f64>> {
        let mut g = self.gram(a, a)?;
        let p = g.nrows();
        // each pair (i, j), i > j, once, in tiles (the column-wise writes of a plain double loop
        // miss the cache once per entry at large p)
        const TILE: usize = 64;
        for i0 in (0..p).step_by(TILE) {
            for j0 in (0..=i0).step_by(TILE) {
                for i in i0..(i0 + TILE).min(p) {
                    for j in j0..(j0 + TILE).min(i) {
                        let v = 0.5 * (g[[i, j]] + g[[j, i]]);
                        g[[i, j]] = v;
                        g[[j, i]] = v;
                    }
                }
            }
        }
        for i in 0..p {
            g[[i, i]] = 1.0;
        }
        Ok(g)
    }
}

/// Check that a sample matrix has at least one row, at least one column and finite entries.
pub(crate) fn check_samples(name: &str, a: ArrayView2<f64>) -> Result<()> {
    if a.nrows() == 0 || a.ncols() == 0 {
        return Err(Error::Empty(format!(
            "sample {name} is {}×{}; need at least one point of dimension ≥ 1",
            a.nrows(),
            a.ncols()
        )));
    }
    if let Some(((i, j), v)) = a.indexed_iter().find(|(_, v)| !v.is_finite()) {
        return Err(Error::NonFinite {
            value: v.to_string(),
            position: format!("{name}[{i}, {j}]"),
        });
    }
    Ok(())
}

/// Gram blocks of at least this many entries are finished (distances, kernel values) on rayon's
/// threads: elementwise maps, so the numbers do not depend on the thread count.
const PARALLEL_FROM: usize = 1 << 16;

/// Largest Gram block (`p·q` entries, 8 bytes each: 2 GiB) the kernel functions build.
pub const MAX_GRAM_ENTRIES: usize = 1 << 28;

/// Squared Euclidean distances `‖a_i − b_j‖²` (`p × q`), computed as `‖a_i‖² + ‖b_j‖² − 2⟨a_i, b_j⟩`
/// with one BLAS gemm after centring both sets at their joint mean (which reduces the cancellation
/// of the expansion); negative rounding results are clamped to 0. The samples are first divided
/// by a power of two `s ≥ max|entry|` (exact), so no intermediate overflows; a distance whose
/// square exceeds `f64::MAX` is `+∞`.
pub fn pairwise_sq_distances(a: ArrayView2<f64>, b: ArrayView2<f64>) -> Result<Array2<f64>> {
    let (mut g, s) = scaled_sq_distances(a, b)?;
    g.mapv_inplace(|x| if x == 0.0 { 0.0 } else { x * s * s });
    Ok(g)
}

/// `(‖a_i − b_j‖²/s², s)` with `s` the smallest power of two `≥ max |entry|` (1 for zero samples).
fn scaled_sq_distances(a: ArrayView2<f64>, b: ArrayView2<f64>) -> Result<(Array2<f64>, f64)> {
    check_samples("a", a)?;
    check_samples("b", b)?;
    if a.ncols() != b.ncols() {
        return Err(Error::DimensionMismatch {
            what: "sample dimension".into(),
            left: a.ncols(),
            right: b.ncols(),
        });
    }
    if a.nrows()
        .checked_mul(b.nrows())
        .is_none_or(|e| e > MAX_GRAM_ENTRIES)
    {
        return Err(Error::invalid(
            "sample size",
            a.nrows() as f64 * b.nrows() as f64,
            format!(
                "{}×{} pairs exceed {MAX_GRAM_ENTRIES} (each Gram block is n·m numbers: 2 GiB \
                 at the limit); subsample the data",
                a.nrows(),
                b.nrows()
            ),
        ));
    }
    let top = a.iter().chain(b.iter()).fold(0.0f64, |m, x| m.max(x.abs()));
    let s = if top > 0.0 {
        // 2^⌈log₂ top⌉ (exact scaling), kept a normal number: 2^−1000 ≤ s ≤ 2^1023
        let e = top.log2().ceil().clamp(-1000.0, 1023.0);
        2f64.powi(e as i32)
    } else {
        1.0
    };
    let (a, b) = (a.mapv(|x| x / s), b.mapv(|x| x / s));
    let (p, q) = (a.nrows() as f64, b.nrows() as f64);
    let mean: Array1<f64> = (a.sum_axis(Axis(0)) + b.sum_axis(Axis(0))).mapv(|t| t / (p + q));
    let ac = &a - &mean;
    let bc = &b - &mean;
    let na: Array1<f64> = ac.rows().into_iter().map(|r| r.dot(&r)).collect();
    let nb: Array1<f64> = bc.rows().into_iter().map(|r| r.dot(&r)).collect();
    let mut g = ac.dot(&bc.t());
    let row = |(i, r): (usize, &mut [f64])| {
        for (v, nbj) in r.iter_mut().zip(nb.iter()) {
            *v = (na[i] + nbj - 2.0 * *v).max(0.0);
        }
    };
    let q = g.ncols();
    match g.as_slice_mut() {
        // row by row, elementwise: the same numbers on any number of threads
        Some(all) if all.len() >= PARALLEL_FROM && q > 0 => {
            use rayon::prelude::*;
            all.par_chunks_mut(q).enumerate().for_each(row);
        }
        _ => {
            for ((i, j), v) in g.indexed_iter_mut() {
                *v = (na[i] + nb[j] - 2.0 * *v).max(0.0);
            }
        }
    }
    Ok((g, s))
}

/// The median heuristic: the median of the `n·m` distances `‖x_i − y_j‖` between the two samples
/// (as in seed 002's code, `median_distance(X1, X2)`; the mean of the two middle values when `n·m`
/// is even). Pass a separate *pilot* sample to keep the bandwidth independent of the audited data.
/// Errors if the median is 0 (more than half of the pairs coincide).
pub fn median_bandwidth(x: ArrayView2<f64>, y: ArrayView2<f64>) -> Result<f64> {
    // the median of the scaled distances, scaled back: no overflow for samples of any size
    let (d2, s) = scaled_sq_distances(x, y)?;
    Ok(s * median_distance(d2)?)
}

fn median_distance(d2: Array2<f64>) -> Result<f64> {
    let mut v: Vec<f64> = d2.into_iter().collect();
    let k = v.len();
    let upper = k / 2;
    let (_, hi, _) = v.select_nth_unstable_by(upper, f64::total_cmp);
    let hi = *hi;
    let med2 = if k % 2 == 1 {
        hi
    } else {
        let lo = v[..upper].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        return finish_median(0.5 * (lo.sqrt() + hi.sqrt()));
    };
    finish_median(med2.sqrt())
}

fn finish_median(b: f64) -> Result<f64> {
    if b > 0.0 && b.is_finite() {
        Ok(b)
    } else {
        Err(Error::invalid(
            "median bandwidth",
            b,
            "the median distance between the samples is 0; give a bandwidth explicitly",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn median_bandwidth_matches_sorted_distances() {
        let x = array![[0.0, 0.0], [3.0, 4.0]];
        let y = array![[0.0, 1.0], [6.0, 8.0], [1.0, 0.0]];
        // distances: x0: 1, 10, 1 ; x1: √18, 5, √20  → sorted 1, 1, √18, √20, 5, 10
        let b = median_bandwidth(x.view(), y.view()).unwrap();
        assert!((b - 0.5 * (18f64.sqrt() + 20f64.sqrt())).abs() < 1e-12);
        let b1 = median_bandwidth(x.view(), y.slice(ndarray::s![..1, ..])).unwrap();
        assert!((b1 - 0.5 * (1.0 + 18f64.sqrt())).abs() < 1e-12);
    }

    #[test]
    fn median_bandwidth_rejects_coincident_samples() {
        let x = array![[1.0], [1.0]];
        assert!(matches!(
            median_bandwidth(x.view(), x.view()),
            Err(Error::InvalidParameter { .. })
        ));
    }

    #[test]
    fn kernels_have_unit_diagonal_and_known_values() {
        for kind in [KernelKind::Rbf, KernelKind::Laplace, KernelKind::Imq] {
            let k = Kernel::new(kind, 2.0).unwrap();
            assert_eq!(k.of_sq_distance(0.0), 1.0);
        }
        let d2: f64 = 3.0;
        let rbf = Kernel::new(KernelKind::Rbf, 2.0).unwrap();
        assert!((rbf.of_sq_distance(d2) - (-0.75f64).exp()).abs() < 1e-15);
        let lap = Kernel::new(KernelKind::Laplace, 2.0).unwrap();
        assert!((lap.of_sq_distance(d2) - (-(3f64.sqrt()) / 2.0).exp()).abs() < 1e-15);
        let imq = Kernel::new(KernelKind::Imq, 2.0).unwrap();
        assert!((imq.of_sq_distance(d2) - 1.0 / 1.75f64.sqrt()).abs() < 1e-15);
        assert!(Kernel::new(KernelKind::Rbf, 0.0).is_err());
        assert!(Kernel::new(KernelKind::Rbf, f64::NAN).is_err());
    }

    #[test]
    fn distances_reject_bad_input() {
        let a = array![[0.0, 1.0]];
        let b = array![[0.0, 1.0, 2.0]];
        assert!(matches!(
            pairwise_sq_distances(a.view(), b.view()),
            Err(Error::DimensionMismatch { .. })
        ));
        let c = array![[f64::NAN, 1.0]];
        assert!(matches!(
            pairwise_sq_distances(a.view(), c.view()),
            Err(Error::NonFinite { .. })
        ));
        let e = Array2::<f64>::zeros((0, 2));
        assert!(matches!(
            pairwise_sq_distances(a.view(), e.view()),
            Err(Error::Empty(_))
        ));
    }
}
