//! The two dense complex products the divergences need, without conjugate-transpose copies.
//!
//! * [`adjoint_times`] `A†B` — one `zgemm` with `transa = 'C'`: no `A†` is formed.
//! * [`gram`] `C C†` — one `zherk` (half the flops of a `zgemm`), mirrored into a full Hermitian
//!   matrix; its diagonal is exactly real and non-negative.
//!
//! With the `openblas` feature both call CBLAS on column-major data (eigenvectors from LAPACK
//! already are; any other layout is copied once). Without it they fall back to ndarray's
//! pure-Rust products.

use ndarray::{Array2, ArrayView2};
use num_complex::Complex64;

/// `A† B` for `A` of shape `k × m` and `B` of shape `k × n`.
///
/// # Panics
/// When the row counts differ (checked in every build, as faer does: the BLAS call below reads
/// `k` rows of both buffers, so a mismatch would read out of bounds).
pub fn adjoint_times(a: &ArrayView2<Complex64>, b: &ArrayView2<Complex64>) -> Array2<Complex64> {
    assert_eq!(
        a.nrows(),
        b.nrows(),
        "adjoint_times: A is {}×{}, B is {}×{}: inner dimensions differ",
        a.nrows(),
        a.ncols(),
        b.nrows(),
        b.ncols()
    );
    imp::adjoint_times(a, b)
}

/// `C C†` for `C` of shape `n × k`, exactly Hermitian (lower triangle computed, upper mirrored).
pub fn gram(c: &ArrayView2<Complex64>) -> Array2<Complex64> {
    imp::gram(c)
}

/// Fill the upper triangle from the lower one and zero the imaginary part of the diagonal.
fn mirror_lower(m: &mut Array2<Complex64>) {
    let n = m.nrows();
    for j in 0..n {
        m[[j, j]].im = 0.0;
        for i in (j + 1)..n {
            m[[j, i]] = m[[i, j]].conj();
        }
    }
}

#[cfg(feature = "openblas")]
mod imp {
    use super::mirror_lower;
    use cblas_sys::{
        cblas_zgemm, cblas_zherk, CblasColMajor, CblasConjTrans, CblasLower, CblasNoTrans,
    };
    use ndarray::{Array2, ArrayView2, ShapeBuilder};
    use num_complex::Complex64;
    use std::borrow::Cow;

    /// The column-major storage of `a` (borrowed when `a` already is column-major).
    fn column_major<'a>(a: &'a ArrayView2<Complex64>) -> Cow<'a, [Complex64]> {
        match a.t().to_slice() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(a.t().iter().copied().collect()),
        }
    }

    /// BLAS dimensions are 32-bit: callers only pass sizes of matrices that LAPACK (also 32-bit)
    /// has already decomposed, so the conversion cannot fail in practice; saturate to be safe.
    fn int(n: usize) -> i32 {
        i32::try_from(n).unwrap_or(i32::MAX)
    }

    pub(super) fn adjoint_times(
        a: &ArrayView2<Complex64>,
        b: &ArrayView2<Complex64>,
    ) -> Array2<Complex64> {
        let (k, m, n) = (a.nrows(), a.ncols(), b.ncols());
        let mut out = vec![Complex64::new(0.0, 0.0); m * n];
        if m > 0 && n > 0 && k > 0 {
            let (ac, bc) = (column_major(a), column_major(b));
            let (one, zero) = ([1.0, 0.0], [0.0, 0.0]);
            // SAFETY: column-major buffers of the stated shapes; Complex64 is #[repr(C)] {re, im},
            // the layout of CBLAS's double complex; `out` holds m·n elements with ldc = m.
            unsafe {
                cblas_zgemm(
                    CblasColMajor,
                    CblasConjTrans,
                    CblasNoTrans,
                    int(m),
                    int(n),
                    int(k),
                    &one,
                    ac.as_ptr().cast(),
                    int(k),
                    bc.as_ptr().cast(),
                    int(k),
                    &zero,
                    out.as_mut_ptr().cast(),
                    int(m),
                );
            }
        }
        // Internal invariant: the buffer has exactly m·n elements.
        Array2::from_shape_vec((m, n).f(), out).expect("m·n buffer")
    }

    pub(super) fn gram(c: &ArrayView2<Complex64>) -> Array2<Complex64> {
        let (n, k) = c.dim();
        let mut out = vec![Complex64::new(0.0, 0.0); n * n];
        if n > 0 && k > 0 {
            let cc = column_major(c);
            // SAFETY: as above; zherk writes the lower triangle of the n×n buffer (ldc = n).
            unsafe {
                cblas_zherk(
                    CblasColMajor,
                    CblasLower,
                    CblasNoTrans,
                    int(n),
                    int(k),
                    1.0,
                    cc.as_ptr().cast(),
                    int(n),
                    0.0,
                    out.as_mut_ptr().cast(),
                    int(n),
                );
            }
        }
        // Internal invariant: the buffer has exactly n·n elements.
        let mut m = Array2::from_shape_vec((n, n).f(), out).expect("n·n buffer");
        mirror_lower(&mut m);
        m
    }
}

#[cfg(not(feature = "openblas"))]
mod imp {
    use super::mirror_lower;
    use ndarray::{Array2, ArrayView2};
    use num_complex::Complex64;

    pub(super) fn adjoint_times(
        a: &ArrayView2<Complex64>,
        b: &ArrayView2<Complex64>,
    ) -> Array2<Complex64> {
        a.t().mapv(|z| z.conj()).dot(b)
    }

    pub(super) fn gram(c: &ArrayView2<Complex64>) -> Array2<Complex64> {
        let mut m = c.dot(&c.t().mapv(|z| z.conj()));
        for i in 0..m.nrows() {
            for j in 0..i {
                m[[j, i]] = Complex64::new(0.0, 0.0);
            }
        }
        mirror_lower(&mut m);
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{dagger, ginibre};
    use ndarray::ShapeBuilder;
    use rand::SeedableRng;

    fn max_diff(a: &Array2<Complex64>, b: &Array2<Complex64>) -> f64 {
        (a - b).iter().map(|z| z.norm()).fold(0.0, f64::max)
    }

    #[test]
    fn adjoint_times_matches_explicit_dagger_in_every_layout() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let a = ginibre(5, 3, &mut rng);
        let b = ginibre(5, 4, &mut rng);
        let want = dagger(&a.view()).dot(&b);
        assert_eq!(want.dim(), (3, 4));
        let fortran = |m: &Array2<Complex64>| {
            let mut f = Array2::zeros(m.raw_dim().f());
            f.assign(m);
            f
        };
        let (af, bf) = (fortran(&a), fortran(&b));
        assert!(af.t().is_standard_layout() && !a.t().is_standard_layout());
        for (x, y) in [(&a, &b), (&af, &bf), (&a, &bf), (&af, &b)] {
            assert!(max_diff(&adjoint_times(&x.view(), &y.view()), &want) < 1e-13);
        }
        let strided = b.slice(ndarray::s![.., ..;2]);
        let want2 = dagger(&a.view()).dot(&strided);
        assert!(max_diff(&adjoint_times(&a.view(), &strided), &want2) < 1e-13);
        assert_eq!(
            adjoint_times(&a.view(), &b.slice(ndarray::s![.., ..0])).dim(),
            (3, 0)
        );
    }

    #[test]
    fn gram_is_hermitian_and_matches_explicit_product() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let c = ginibre(6, 4, &mut rng);
        let g = gram(&c.view());
        assert!(max_diff(&g, &c.dot(&dagger(&c.view()))) < 1e-13);
        assert_eq!(g, dagger(&g.view()));
        assert!(g.diag().iter().all(|z| z.im == 0.0 && z.re >= 0.0));
        assert_eq!(gram(&c.slice(ndarray::s![.., ..0])), Array2::zeros((6, 6)));
    }
}
