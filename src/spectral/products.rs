//! The two dense complex products the divergences need, without conjugate-transpose copies.
//!
//! * [`adjoint_times`] `A†B` — one `zgemm` with `transa = 'C'`: no `A†` is formed.
//! * [`gram`] `C C†` — one `zherk` (half the flops of a `zgemm`), mirrored into a full Hermitian
//!   matrix; its diagonal is exactly real and non-negative.
//! * [`congruence`] `V† H V` for Hermitian `H` — one `zhemm` and one `zgemm`, reading `H` in
//!   place (no transposed copy), made exactly Hermitian.
//!
//! With the `openblas` feature they call CBLAS on column-major data (eigenvectors from LAPACK
//! already are; any other layout is copied once) — except small products, every dimension
//! `≤ SMALL_PRODUCT_MAX` = 7 (ndarray's own BLAS cutoff), which stay in pure Rust: a BLAS call
//! costs more than such a product, and OpenBLAS 0.3.21 takes a global mutex per call (its work
//! buffer table), which queues many threads evaluating small problems side by side (verify).
//! Without `openblas` they are ndarray's pure-Rust products.

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
    if small(&[a.nrows(), a.ncols(), b.ncols()]) {
        pure::adjoint_times(a, b, false)
    } else {
        imp::adjoint_times(a, b, split(&[a.nrows(), a.ncols(), b.ncols()]))
    }
}

/// `C C†` for `C` of shape `n × k`, exactly Hermitian (lower triangle computed, upper mirrored).
pub fn gram(c: &ArrayView2<Complex64>) -> Array2<Complex64> {
    if small(&[c.nrows(), c.ncols()]) {
        pure::gram(c, false)
    } else {
        imp::gram(c, split(&[c.nrows(), c.ncols()]))
    }
}

/// The congruence `V† H V` of a Hermitian `H` (`d × d`, only its values as a Hermitian matrix
/// matter) by `V` (`d × n`): one `zhemm` (`X = H V`) and one `zgemm` (`V† X`), `2 d² n` complex
/// multiply–adds; the result is made exactly Hermitian (`(M + M†)/2`, real diagonal).
///
/// # Panics
/// When `H` is not `d × d` with `d` the row count of `V` (checked in every build: the BLAS calls
/// read `d` rows of both buffers).
pub fn congruence(v: &ArrayView2<Complex64>, h: &ArrayView2<Complex64>) -> Array2<Complex64> {
    assert!(
        h.nrows() == v.nrows() && h.ncols() == v.nrows(),
        "congruence: H is {}×{}, V is {}×{}: H must be square with V's row count",
        h.nrows(),
        h.ncols(),
        v.nrows(),
        v.ncols()
    );
    let mut m = if small(&[v.nrows(), v.ncols()]) {
        pure::congruence(v, h, false)
    } else {
        imp::congruence(v, h, split(&[v.nrows(), v.ncols()]))
    };
    let n = m.nrows();
    for i in 0..n {
        m[[i, i]].im = 0.0;
        for j in 0..i {
            let z = (m[[i, j]] + m[[j, i]].conj()) * 0.5;
            m[[i, j]] = z;
            m[[j, i]] = z.conj();
        }
    }
    m
}

/// `V† ρ V` from a Cholesky factor of `ρ`'s conjugate (docs/divergences.md, "factor_congruence"):
/// `l1` is the column-major `d × d` buffer of `zpotrf('L')` on `ρ̄ + τ I` (= `ρ`'s row-major
/// buffer read column-major, shifted; only its lower triangle `L₁` is read), `V` is `d × n`.
/// With `K = L₁† V̄` (one `ztrmm`, `d² n / 2` multiply–adds) `K̄† K̄ = conj(V̄†(ρ̄ + τI)V̄) =
/// V†ρV + τ V†V`, formed by [`gram`] of `Kᵀ` (one `zherk`, `d n² / 2`), and `τ` is taken off the
/// diagonal (`V†V = I` to `O(dε)`, so the change is `O(dετ)`): half the multiply–adds of
/// [`congruence`] (`zhemm` + `zgemm`, `2 d² n`). Exactly Hermitian.
///
/// # Panics
/// When `l1` is not `d²` long with `d` the row count of `V`.
#[cfg(feature = "openblas")]
pub(crate) fn factor_congruence(
    v: &ArrayView2<Complex64>,
    l1: &[Complex64],
    tau: f64,
) -> Array2<Complex64> {
    let (d, n) = v.dim();
    assert_eq!(l1.len(), d * d, "factor_congruence: the factor is not d×d");
    // V̄ column-major (d × n) = the row-major n × d buffer of V†
    let mut k: Vec<Complex64> = v.t().iter().map(|z| z.conj()).collect();
    imp::lower_adjoint_times(l1, &mut k, d, n, split(&[d, n]));
    // K column-major (d × n) read row-major is Kᵀ (n × d); gram(Kᵀ) = Kᵀ K̄ = K̄† K̄
    let kt = Array2::from_shape_vec((n, d), k).expect("d·n buffer");
    let mut m = gram(&kt.view());
    for i in 0..n {
        m[[i, i]].re -= tau;
    }
    m
}

/// The product of a lower-triangular `L` (`d × d`) and a matrix `B` that [`lower_triangular_product`]
/// forms in place.
#[cfg(feature = "openblas")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Triangular {
    /// `B := L B`.
    Times,
    /// `B := L† B`.
    AdjointTimes,
    /// `B := B L†`.
    TimesAdjoint,
}

/// `B := L B`, `L† B` or `B L†` in place (`which`), `L` the lower triangle of the column-major
/// `d × d` buffer `l` (its strict upper triangle not read), `B` the column-major `d × d` buffer
/// `b`: one `ztrmm` (`d³/2` complex multiply-adds; each entry a conventional inner product, so
/// the componentwise error bound `|ΔB| ≤ √2γ_d |L||B|` of Higham §3.5 holds).
///
/// # Panics
/// When `l` or `b` does not hold `d²` entries (checked in every build).
#[cfg(feature = "openblas")]
pub(crate) fn lower_triangular_product(
    l: &[Complex64],
    b: &mut [Complex64],
    d: usize,
    which: Triangular,
) {
    imp::trmm(l, b, d, d, which)
}

/// Largest dimension of a product computed in pure Rust in every build: ndarray's `dot` itself
/// uses matrixmultiply (no BLAS) when every dimension is at most 7.
pub(crate) const SMALL_PRODUCT_MAX: usize = 7;

/// Whether every dimension is at most [`SMALL_PRODUCT_MAX`] (pure-Rust product).
fn small(dims: &[usize]) -> bool {
    cfg!(feature = "openblas") && dims.iter().all(|&n| n <= SMALL_PRODUCT_MAX)
}

/// Smallest dimension from which a product splits into two rayon tasks of one BLAS thread each
/// (see [`split`]); below it one BLAS call is as fast (issues 12/14 concern `d ≥ 128`).
pub const SPLIT_FROM: usize = 128;

/// Whether a product of these dimensions runs as two rayon tasks, one column block each: every
/// dimension `≥` [`SPLIT_FROM`], OpenBLAS at one thread (the user's `OPENBLAS_NUM_THREADS=1`, or
/// [`super::with_blas_pinned`]: with more BLAS threads BLAS splits the product itself), rayon has
/// two threads or more, and the caller is not already a rayon task (a parallel section keeps its
/// cores busy; no nested split). Column blocks leave each entry's sum as one BLAS call forms it.
fn split(dims: &[usize]) -> bool {
    cfg!(feature = "openblas")
        && dims.iter().all(|&n| n >= SPLIT_FROM)
        && super::blas_threads() == 1
        && rayon::current_num_threads() >= 2
        && rayon::current_thread_index().is_none()
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
        cblas_zgemm, cblas_zhemm, cblas_zherk, cblas_ztrmm, CblasColMajor, CblasConjTrans,
        CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, CblasRight,
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

    /// Column ranges `[0, h)`, `[h, n)` of one or two tasks: `h = n` (one task) unless `split`.
    fn halves(n: usize, split: bool, h: usize) -> usize {
        if split {
            h.clamp(1, n)
        } else {
            n
        }
    }

    /// `f(0, first)` and `f(h, second)` on the two column blocks of a column-major buffer with
    /// `ld` rows (side by side when `h < ` the column count, the second block then non-empty).
    fn blocks(
        out: &mut [Complex64],
        ld: usize,
        h: usize,
        f: impl Fn(usize, &mut [Complex64]) + Sync,
    ) {
        let (first, second) = out.split_at_mut(h * ld);
        if second.is_empty() {
            f(0, first);
        } else {
            rayon::join(|| f(0, first), || f(h, second));
        }
    }

    /// `B := L₁† B` in place, `L₁` the lower triangle of the column-major `d × d` buffer `l`,
    /// `B` column-major `d × n` (`ztrmm`); split: two column blocks on two tasks (each column's
    /// product is the one a single call forms).
    pub(super) fn lower_adjoint_times(
        l: &[Complex64],
        b: &mut [Complex64],
        d: usize,
        n: usize,
        split: bool,
    ) {
        if d == 0 || n == 0 {
            return;
        }
        blocks(b, d, halves(n, split, n / 2), |_, o| {
            trmm(l, o, d, o.len() / d, super::Triangular::AdjointTimes)
        });
    }

    /// One `ztrmm` with the lower triangle of the column-major `d × d` buffer `l` on the
    /// column-major `rows × cols` buffer `b` (`rows = d` for the left products, `cols = d` for
    /// the right one), in place.
    pub(super) fn trmm(
        l: &[Complex64],
        b: &mut [Complex64],
        rows: usize,
        cols: usize,
        which: super::Triangular,
    ) {
        use super::Triangular::{AdjointTimes, Times, TimesAdjoint};
        let d = if which == TimesAdjoint { cols } else { rows };
        assert_eq!(l.len(), d * d, "trmm: the triangle is not {d}×{d}");
        assert_eq!(
            b.len(),
            rows * cols,
            "trmm: the operand is not {rows}×{cols}"
        );
        if rows == 0 || cols == 0 {
            return;
        }
        let (side, trans) = match which {
            Times => (CblasLeft, CblasNoTrans),
            AdjointTimes => (CblasLeft, CblasConjTrans),
            TimesAdjoint => (CblasRight, CblasConjTrans),
        };
        let one = [1.0, 0.0];
        // SAFETY: column-major buffers of exactly the asserted lengths: l d×d (lda = d), b
        // rows×cols (ldb = rows); Complex64 is #[repr(C)] {re, im}, CBLAS's double complex.
        unsafe {
            cblas_ztrmm(
                CblasColMajor,
                side,
                CblasLower,
                trans,
                CblasNonUnit,
                int(rows),
                int(cols),
                &one,
                l.as_ptr().cast(),
                int(d),
                b.as_mut_ptr().cast(),
                int(rows),
            );
        }
    }

    pub(super) fn adjoint_times(
        a: &ArrayView2<Complex64>,
        b: &ArrayView2<Complex64>,
        split: bool,
    ) -> Array2<Complex64> {
        let (k, m, n) = (a.nrows(), a.ncols(), b.ncols());
        let mut out = vec![Complex64::new(0.0, 0.0); m * n];
        if m > 0 && n > 0 && k > 0 {
            let (ac, bc) = (column_major(a), column_major(b));
            let (one, zero) = ([1.0, 0.0], [0.0, 0.0]);
            blocks(&mut out, m, halves(n, split, n / 2), |j0, o| {
                let cols = o.len() / m;
                // SAFETY: column-major buffers of the stated shapes; Complex64 is #[repr(C)]
                // {re, im}, the layout of CBLAS's double complex; `bc[j0·k..]` holds columns
                // j0.. of B (k rows each), `o` columns j0..j0+cols of the m×n output (ldc = m).
                unsafe {
                    cblas_zgemm(
                        CblasColMajor,
                        CblasConjTrans,
                        CblasNoTrans,
                        int(m),
                        int(cols),
                        int(k),
                        &one,
                        ac.as_ptr().cast(),
                        int(k),
                        bc[j0 * k..].as_ptr().cast(),
                        int(k),
                        &zero,
                        o.as_mut_ptr().cast(),
                        int(m),
                    );
                }
            });
        }
        // Internal invariant: the buffer has exactly m·n elements.
        Array2::from_shape_vec((m, n).f(), out).expect("m·n buffer")
    }

    /// Split (two tasks): the lower triangle's columns `[0, h)` are `C₁C₁†` (zherk) over `C₂C₁†`
    /// (zgemm), columns `[h, n)` are `C₂C₂†` (zherk), `C₁`, `C₂` the first `h` and the other rows
    /// of `C`; `h = n(1 − 1/√2)` gives both tasks `n²k/4` multiply–adds.
    pub(super) fn gram(c: &ArrayView2<Complex64>, split: bool) -> Array2<Complex64> {
        let (n, k) = c.dim();
        let mut out = vec![Complex64::new(0.0, 0.0); n * n];
        if n > 0 && k > 0 {
            let cc = column_major(c);
            let h = halves(
                n,
                split,
                (n as f64 * (1.0 - std::f64::consts::FRAC_1_SQRT_2)) as usize,
            );
            let (one, zero) = ([1.0, 0.0], [0.0, 0.0]);
            blocks(&mut out, n, h, |j0, o| {
                let cols = o.len() / n;
                // SAFETY: `cc` is C column-major (n×k, ld = n); `cc[j0..]` starts at row j0 and
                // with ld = n reads rows j0..j0+cols (and, for the zgemm, rows h..n) of every
                // column; `o` is columns j0..j0+cols of the n×n output (ldc = n), whose rows
                // j0..n the calls write (zherk: the lower triangle of the diagonal block).
                unsafe {
                    cblas_zherk(
                        CblasColMajor,
                        CblasLower,
                        CblasNoTrans,
                        int(cols),
                        int(k),
                        1.0,
                        cc[j0..].as_ptr().cast(),
                        int(n),
                        0.0,
                        o[j0..].as_mut_ptr().cast(),
                        int(n),
                    );
                    if j0 == 0 && cols < n {
                        cblas_zgemm(
                            CblasColMajor,
                            CblasNoTrans,
                            CblasConjTrans,
                            int(n - cols),
                            int(cols),
                            int(k),
                            &one,
                            cc[cols..].as_ptr().cast(),
                            int(n),
                            cc.as_ptr().cast(),
                            int(n),
                            &zero,
                            o[cols..].as_mut_ptr().cast(),
                            int(n),
                        );
                    }
                }
            });
        }
        // Internal invariant: the buffer has exactly n·n elements.
        let mut m = Array2::from_shape_vec((n, n).f(), out).expect("n·n buffer");
        mirror_lower(&mut m);
        m
    }

    /// `V† H V` without transposing `H`: a row-major `H` read as column-major is `Hᵀ = H̄`, so the
    /// products run on conjugates, `Y = V̄† (H̄ V̄) = conj(V† H V) = (V† H V)ᵀ`, and `Y`'s
    /// column-major buffer read row-major is `V† H V` itself. Only `V̄` is copied (`d × n`).
    /// Split (two tasks): columns `[0, n/2)` and `[n/2, n)` of `Y`, each `H̄ V̄ₖ` then `V̄† (H̄ V̄ₖ)`.
    pub(super) fn congruence(
        v: &ArrayView2<Complex64>,
        h: &ArrayView2<Complex64>,
        split: bool,
    ) -> Array2<Complex64> {
        let (d, n) = v.dim();
        let mut out = vec![Complex64::new(0.0, 0.0); n * n];
        if d > 0 && n > 0 {
            // H̄ column-major = H row-major (borrowed when H is in standard layout)
            let hbar: std::borrow::Cow<[Complex64]> = match h.to_slice() {
                Some(s) => std::borrow::Cow::Borrowed(s),
                None => std::borrow::Cow::Owned(h.iter().copied().collect()),
            };
            let vbar: Vec<Complex64> = v.t().iter().map(|z| z.conj()).collect();
            let (one, zero) = ([1.0, 0.0], [0.0, 0.0]);
            blocks(&mut out, n, halves(n, split, n / 2), |j0, o| {
                let cols = o.len() / n;
                let mut x = vec![Complex64::new(0.0, 0.0); d * cols];
                // SAFETY: column-major buffers: hbar d×d (lda = d), vbar d×n (ld = d; from
                // column j0 on, `cols` columns), x d×cols (ld = d), `o` columns j0..j0+cols of
                // the n×n Y (ldc = n); Complex64 is #[repr(C)] {re, im}, CBLAS's double complex.
                unsafe {
                    cblas_zhemm(
                        CblasColMajor,
                        CblasLeft,
                        CblasLower,
                        int(d),
                        int(cols),
                        &one,
                        hbar.as_ptr().cast(),
                        int(d),
                        vbar[j0 * d..].as_ptr().cast(),
                        int(d),
                        &zero,
                        x.as_mut_ptr().cast(),
                        int(d),
                    );
                    cblas_zgemm(
                        CblasColMajor,
                        CblasConjTrans,
                        CblasNoTrans,
                        int(n),
                        int(cols),
                        int(d),
                        &one,
                        vbar.as_ptr().cast(),
                        int(d),
                        x.as_ptr().cast(),
                        int(d),
                        &zero,
                        o.as_mut_ptr().cast(),
                        int(n),
                    );
                }
            });
        }
        // Internal invariant: the buffer has exactly n·n elements (read row-major: see above).
        Array2::from_shape_vec((n, n), out).expect("n·n buffer")
    }
}

#[cfg(not(feature = "openblas"))]
use pure as imp;

/// ndarray's products (matrixmultiply below ndarray's BLAS cutoff, or without `openblas`).
mod pure {
    use super::mirror_lower;
    use ndarray::{Array2, ArrayView2};
    use num_complex::Complex64;

    pub(super) fn adjoint_times(
        a: &ArrayView2<Complex64>,
        b: &ArrayView2<Complex64>,
        _split: bool,
    ) -> Array2<Complex64> {
        a.t().mapv(|z| z.conj()).dot(b)
    }

    pub(super) fn gram(c: &ArrayView2<Complex64>, _split: bool) -> Array2<Complex64> {
        let mut m = c.dot(&c.t().mapv(|z| z.conj()));
        for i in 0..m.nrows() {
            for j in 0..i {
                m[[j, i]] = Complex64::new(0.0, 0.0);
            }
        }
        mirror_lower(&mut m);
        m
    }

    pub(super) fn congruence(
        v: &ArrayView2<Complex64>,
        h: &ArrayView2<Complex64>,
        _split: bool,
    ) -> Array2<Complex64> {
        v.t().mapv(|z| z.conj()).dot(h).dot(v)
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

    /// The two-task column splits (`SPLIT_FROM` and up) give the one-call products: the same
    /// entries up to the BLAS kernels' rounding, every shape (square, rectangular, odd sizes).
    #[cfg(feature = "openblas")]
    #[test]
    fn split_products_match_one_call() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for (k, m, n) in [
            (128, 128, 128),
            (131, 129, 130),
            (140, 133, 257),
            (200, 150, 129),
        ] {
            let a = ginibre(k, m, &mut rng);
            let b = ginibre(k, n, &mut rng);
            let want = imp::adjoint_times(&a.view(), &b.view(), false);
            let got = imp::adjoint_times(&a.view(), &b.view(), true);
            assert!(max_diff(&got, &want) < 1e-12 * k as f64);
            assert!(max_diff(&want, &naive_adjoint_times(&a, &b)) < 1e-12 * k as f64);
            // gram of an n×k matrix: both triangles, exact Hermitian structure
            let want = imp::gram(&b.t(), false);
            let got = imp::gram(&b.t(), true);
            assert!(max_diff(&got, &want) < 1e-12 * k as f64);
            for i in 0..n {
                assert_eq!(got[[i, i]].im, 0.0);
                for j in 0..i {
                    assert_eq!(got[[i, j]], got[[j, i]].conj());
                }
            }
            // congruence V†HV of a k×k Hermitian H by a k×n V
            let g = ginibre(k, k, &mut rng);
            let h = &g + &dagger(&g.view());
            let want = imp::congruence(&b.view(), &h.view(), false);
            let got = imp::congruence(&b.view(), &h.view(), true);
            let explicit = naive_adjoint_times(&b, &h.dot(&b));
            assert!(max_diff(&got, &want) < 1e-11 * k as f64);
            assert!(max_diff(&got, &explicit) < 1e-11 * k as f64);
        }
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

    /// `A†B` by the definition (a triple loop), independent of ndarray's `dot` and of BLAS.
    fn naive_adjoint_times(a: &Array2<Complex64>, b: &Array2<Complex64>) -> Array2<Complex64> {
        Array2::from_shape_fn((a.ncols(), b.ncols()), |(i, j)| {
            (0..a.nrows()).map(|r| a[[r, i]].conj() * b[[r, j]]).sum()
        })
    }

    /// Both sides of the small-product cutoff (pure Rust up to `SMALL_PRODUCT_MAX`, CBLAS above
    /// with `openblas`) give the defined products, in C and Fortran layouts.
    #[test]
    fn products_agree_with_the_definition_across_the_small_cutoff() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let fortran = |m: &Array2<Complex64>| {
            let mut f = Array2::zeros(m.raw_dim().f());
            f.assign(m);
            f
        };
        let c = SMALL_PRODUCT_MAX;
        for (k, m, n) in [
            (c, c, c),
            (c + 1, c, c),
            (c, c + 1, 2),
            (2, 3, c + 1),
            (c + 5, c + 2, c + 3),
        ] {
            let a = ginibre(k, m, &mut rng);
            let b = ginibre(k, n, &mut rng);
            let want = naive_adjoint_times(&a, &b);
            for (x, y) in [(a.clone(), b.clone()), (fortran(&a), fortran(&b))] {
                assert!(max_diff(&adjoint_times(&x.view(), &y.view()), &want) < 1e-12);
            }
            let g = gram(&dagger(&b.view()).view());
            assert!(max_diff(&g, &naive_adjoint_times(&b, &b)) < 1e-12);
            let x = ginibre(k, k, &mut rng);
            let h = &x + &dagger(&x.view());
            let hv =
                Array2::from_shape_fn((k, m), |(i, j)| (0..k).map(|r| h[[i, r]] * a[[r, j]]).sum());
            let want = naive_adjoint_times(&a, &hv);
            for (v, hh) in [(a.clone(), h.clone()), (fortran(&a), fortran(&h))] {
                assert!(max_diff(&congruence(&v.view(), &hh.view()), &want) < 1e-11);
            }
        }
    }

    #[test]
    fn congruence_matches_explicit_product_in_every_layout() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        let a = ginibre(5, 5, &mut rng);
        let h = &a + &dagger(&a.view());
        let v = ginibre(5, 3, &mut rng);
        let want = dagger(&v.view()).dot(&h).dot(&v);
        let mut vf = Array2::zeros(v.raw_dim().f());
        vf.assign(&v);
        let mut hf = Array2::zeros(h.raw_dim().f());
        hf.assign(&h);
        for (x, y) in [(&v, &h), (&vf, &h), (&v, &hf), (&vf, &hf)] {
            let m = congruence(&x.view(), &y.view());
            assert!(max_diff(&m, &want) < 1e-12);
            assert_eq!(m, dagger(&m.view()));
        }
        assert_eq!(
            congruence(&v.slice(ndarray::s![.., ..0]), &h.view()).dim(),
            (0, 0)
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
