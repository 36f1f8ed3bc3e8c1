//! The integer order α = 2 without eigendecompositions (docs/divergences.md, "order_two_cholesky"
//! and "order_two_frobenius").
//!
//! * Petz and maximal: `Q_2 = Tr ρ σ^{−1} ρ = ‖L^{−1} ρ‖_F²` with `σ = LL†` (one Cholesky
//!   factorisation and one triangular solve), once a second factorisation, of `σ − s·I`, has
//!   certified that every eigenvalue of σ lies so far above the zero threshold that the eigen
//!   route would also see σ of full rank ([`certificate_shift`]); otherwise the route declines and
//!   the pair takes the eigen route.
//! * Sandwiched: `Q̃_2 = ‖σ^{−1/4} ρ σ^{−1/4}‖_F²`, a Frobenius sum in σ's eigenbasis instead of
//!   the values-only eigensolve (in `quantum.rs`, `frobenius_scaled`).

use crate::error::Result;
use crate::spectral::{Backend, EPS};
use crate::state::DensityMatrix;
use ndarray::Array2;
use num_complex::Complex64;

/// Largest dimension whose factorisation and solve run in pure Rust in a build with `openblas`
/// (below it LAPACK's call overhead and workspace cost more than the `d³/3` flops).
#[cfg_attr(not(feature = "openblas"), allow(dead_code))]
pub(crate) const PURE_RUST_MAX: usize = 24;

/// The shift `s` of the certificate: the Cholesky factorisation of `σ − s·I` succeeding proves
/// `λ_min(σ) ≥ s − δ_chol` and, the eigen route computing `λ_min` to within `δ_eig`, that its
/// computed eigenvalues all exceed the zero threshold `τ = 16 d ε λ_max(σ)`:
/// `s = (16 d + 4 d (d+1)) ε Tr σ` (`λ_max ≤ Tr σ`; `δ_chol, δ_eig ≤ d(d+1) ε ‖σ‖₂` — Higham,
/// Thm. 10.3 with `‖|L||L†|‖₂ ≤ d ‖σ‖₂`, and the same `O(d²ε)` model for a backward-stable
/// eigensolver — each counted twice).
pub fn certificate_shift(d: usize, trace: f64) -> f64 {
    let d = d as f64;
    (16.0 * d + 4.0 * d * (d + 1.0)) * EPS * trace
}

/// Whether the Cholesky route applies to the pair at all: `Backend::Auto` on the host, not both
/// states decomposed already (then the eigen route's remaining work is a product, and its
/// small-pair kernel is faster), ρ positive semidefinite to rounding (the route uses ρ's matrix,
/// where the eigen route sets eigenvalues at or below the zero threshold to 0 — negative ones down
/// to `−tol` — [`DensityMatrix::is_psd_to_rounding`]).
pub(crate) fn applies(rho: &DensityMatrix, sigma: &DensityMatrix) -> bool {
    host_pair(rho, sigma) && rho.is_psd_to_rounding()
}

/// The conditions of [`applies`] but ρ's positivity: `Backend::Auto` on the host for both, equal
/// dimensions `d > 0`, not both states decomposed (also the fidelity's Cholesky route's,
/// `fidelity::applies`).
pub(crate) fn host_pair(rho: &DensityMatrix, sigma: &DensityMatrix) -> bool {
    let d = rho.dim();
    rho.backend() == Backend::Auto
        && sigma.backend() == Backend::Auto
        && d == sigma.dim()
        && d > 0
        && !rho.backend().uses_gpu(d)
        && !(rho.is_decomposed() && sigma.is_decomposed())
}

/// `D_2(ρ‖σ) = ln(Tr ρσ^{−1}ρ / Tr ρ)`, the Petz and the maximal order 2 (docs/divergences.md,
/// "order_two_cholesky"), or `None` when σ's smallest eigenvalue is not certified above
/// [`certificate_shift`] (then the eigen route decides, also `+∞`).
///
/// Works on the row-major buffers read column-major, i.e. on `ρ̄, σ̄` (`Tr ρ̄σ̄^{−1}ρ̄` is the
/// conjugate of a real number).
pub fn order_two_cholesky(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<Option<f64>> {
    let (r, s) = (rho.matrix(), sigma.matrix());
    let d = r.nrows();
    let tr_s: f64 = s.diag().iter().map(|z| z.re).sum();
    let tr_r: f64 = r.diag().iter().map(|z| z.re).sum();
    let sbuf = row_major(s);
    certified_value(
        tr_r,
        tr_s,
        d,
        |shift| cholesky_lower(&sbuf, d, shift),
        |l| {
            let mut x = row_major(r);
            solve_lower_frobenius(&l, &mut x, d)
        },
    )
}

/// [`order_two_cholesky`] of two validated small matrices held as fixed-size arrays (the stack
/// route, `batch.rs`): the same traces, certificate, factorisation and solve — the pure-Rust ones
/// that [`order_two_cholesky`] runs at `d ≤` [`PURE_RUST_MAX`] — on stack buffers, so the same
/// decision and, where it answers, the same value bit for bit (tests
/// `stacks_at_order_two_take_the_one_pair_cholesky_route` and `order_two_reference_through_stacks`). `r`, `s` are the states' (exactly Hermitian)
/// matrices, row-major.
pub(crate) fn order_two_small<const N: usize>(
    r: &crate::spectral::small::Mat<N>,
    s: &crate::spectral::small::Mat<N>,
) -> Option<f64> {
    let tr_s: f64 = (0..N).map(|i| s[i][i].re).sum();
    let tr_r: f64 = (0..N).map(|i| r[i][i].re).sum();
    let value = certified_value(
        tr_r,
        tr_s,
        N,
        |shift| {
            let mut l = *s;
            Ok::<_, std::convert::Infallible>(
                cholesky_lower_in_place(l.as_flattened_mut(), N, shift).then_some(l),
            )
        },
        |l| {
            let mut x = *r;
            solve_lower_frobenius_rust(l.as_flattened(), x.as_flattened_mut(), N)
        },
    );
    match value {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

/// The body shared by [`order_two_cholesky`] and [`order_two_small`]: traces positive, σ certified
/// by factoring `σ − sI` ([`certificate_shift`]), then `σ = LL†`, `q = ‖L^{−1}ρ‖_F²` and
/// `ln(q / Tr ρ)`; `None` wherever the eigen route must decide. `factor(shift)` is the lower
/// Cholesky factor of `σ + shift·I` (`None` at a bad pivot), `solve(L)` is `‖L^{−1}ρ‖_F²`.
/// Inlined into both callers (the closures are monomorphised), so the small route's stack
/// buffers stay on the stack.
#[inline(always)]
fn certified_value<L, E>(
    tr_r: f64,
    tr_s: f64,
    d: usize,
    mut factor: impl FnMut(f64) -> std::result::Result<Option<L>, E>,
    solve: impl FnOnce(L) -> f64,
) -> std::result::Result<Option<f64>, E> {
    if !(tr_s > 0.0 && tr_r > 0.0) {
        return Ok(None);
    }
    let shift = certificate_shift(d, tr_s);
    if factor(-shift)?.is_none() {
        return Ok(None);
    }
    let Some(l) = factor(0.0)? else {
        return Ok(None);
    };
    let q = solve(l);
    if !(q.is_finite() && q > 0.0) {
        return Ok(None);
    }
    Ok(Some((q / tr_r).ln()))
}

/// `Σ_xy |ρ_xy|² scale_x² scale_y²` over a Hermitian `ρ` (`‖D ρ D‖_F²`, `D = diag(scale)`): the
/// sandwiched `Q̃_2` of docs/divergences.md, "order_two_frobenius".
pub(crate) fn frobenius_scaled(rho: &Array2<Complex64>, scale: &[f64]) -> f64 {
    let sq: Vec<f64> = scale.iter().map(|x| x * x).collect();
    let mut total = 0.0;
    for (x, row) in rho.outer_iter().enumerate() {
        let mut acc = 0.0;
        for (z, s) in row.iter().zip(&sq) {
            acc += z.norm_sqr() * s;
        }
        total += acc * sq[x];
    }
    total
}

/// The matrix's entries in row-major order (its conjugate's column-major buffer).
fn row_major(m: &Array2<Complex64>) -> Vec<Complex64> {
    match m.as_slice() {
        Some(s) => s.to_vec(),
        None => m.iter().copied().collect(),
    }
}

/// The lower Cholesky factor of `A + shift·I` (`a` column-major `d × d`, only its lower triangle
/// read) as a column-major buffer, or `None` at a non-positive (or non-finite) pivot. LAPACK's
/// `zpotrf` from [`PURE_RUST_MAX`] in a build with `openblas`, else the same algorithm in Rust.
fn cholesky_lower(a: &[Complex64], d: usize, shift: f64) -> Result<Option<Vec<Complex64>>> {
    #[cfg(feature = "openblas")]
    if d > PURE_RUST_MAX {
        // zpotrf_factor reads its argument's row-major buffer as column-major: pass the transpose
        // view of our column-major buffer, i.e. the same memory
        let view = ndarray::ArrayView2::from_shape((d, d), a).expect("d×d buffer");
        return crate::spectral::lapack::zpotrf_factor(&view, shift);
    }
    let mut l = a.to_vec();
    Ok(cholesky_lower_in_place(&mut l, d, shift).then_some(l))
}

/// The pure-Rust factorisation of [`cholesky_lower`] in place: `l` holds `A` (column-major,
/// lower triangle read) and receives the factor; `false` at a non-positive (or non-finite) pivot.
fn cholesky_lower_in_place(l: &mut [Complex64], d: usize, shift: f64) -> bool {
    for j in 0..d {
        let mut pivot = l[j * d + j].re + shift;
        for k in 0..j {
            pivot -= l[k * d + j].norm_sqr();
        }
        if !(pivot > 0.0 && pivot.is_finite()) {
            return false;
        }
        let root = pivot.sqrt();
        l[j * d + j] = Complex64::new(root, 0.0);
        for i in (j + 1)..d {
            // L_ij = (A_ij − Σ_k L_ik conj(L_jk)) / L_jj
            let mut z = l[j * d + i];
            for k in 0..j {
                z -= l[k * d + i] * l[k * d + j].conj();
            }
            l[j * d + i] = z / root;
        }
    }
    true
}

/// `‖L^{−1} B‖_F²` with `L` the lower triangle of the column-major `d × d` buffer `l` and `B`
/// column-major `d × d` (overwritten by `L^{−1}B`): LAPACK's `ztrsm` from [`PURE_RUST_MAX`] in a
/// build with `openblas`, else forward substitution in Rust.
fn solve_lower_frobenius(l: &[Complex64], b: &mut [Complex64], d: usize) -> f64 {
    assert_eq!(l.len(), d * d, "order_two: the factor is not d×d");
    assert_eq!(b.len(), d * d, "order_two: the right-hand side is not d×d");
    #[cfg(feature = "openblas")]
    if d > PURE_RUST_MAX {
        use cblas_sys::{
            cblas_ztrsm, CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit,
        };
        // unreachable: `l` holds d² complex entries (asserted above), so d < 2³¹
        let n = i32::try_from(d).expect("dimension fits LAPACK's 32-bit integers");
        let one = [1.0f64, 0.0];
        // SAFETY: column-major d×d buffers (lda = ldb = d), lengths asserted above; Complex64 is
        // #[repr(C)] {re, im}, CBLAS's double complex.
        unsafe {
            cblas_ztrsm(
                CblasColMajor,
                CblasLeft,
                CblasLower,
                CblasNoTrans,
                CblasNonUnit,
                n,
                n,
                one.as_ptr().cast(),
                l.as_ptr().cast(),
                n,
                b.as_mut_ptr().cast(),
                n,
            );
        }
        return b.iter().map(|z| z.norm_sqr()).sum();
    }
    solve_lower_frobenius_rust(l, b, d)
}

/// The forward substitution of [`solve_lower_frobenius`] in Rust.
fn solve_lower_frobenius_rust(l: &[Complex64], b: &mut [Complex64], d: usize) -> f64 {
    let mut total = 0.0;
    for col in b.chunks_exact_mut(d) {
        for i in 0..d {
            let mut z = col[i];
            for k in 0..i {
                z -= l[k * d + i] * col[k];
            }
            z /= l[i * d + i].re;
            col[i] = z;
            total += z.norm_sqr();
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pure-Rust factor and solve agree with the LAPACK ones (where built) and with the
    /// definition `L L† = A`.
    #[test]
    fn factor_and_solve() {
        use rand::SeedableRng;
        for d in [1usize, 3, 7, 30] {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(d as u64);
            let s = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
            let a = row_major(s.matrix());
            let l = cholesky_lower(&a, d, 0.0).unwrap().unwrap();
            // (L L†)_ij over the lower triangle equals A's column-major entry
            for j in 0..d {
                for i in j..d {
                    let mut z = Complex64::new(0.0, 0.0);
                    for k in 0..=j {
                        z += l[k * d + i] * l[k * d + j].conj();
                    }
                    assert!((z - a[j * d + i]).norm() < 1e-13, "d={d} ({i},{j})");
                }
            }
            // the solve: L X = B gives back B
            let mut x = a.clone();
            let q = solve_lower_frobenius(&l, &mut x, d);
            assert!((q - x.iter().map(|z| z.norm_sqr()).sum::<f64>()).abs() <= 1e-12 * q);
            for c in 0..d {
                for i in 0..d {
                    let mut z = Complex64::new(0.0, 0.0);
                    for k in 0..=i {
                        z += l[k * d + i] * x[c * d + k];
                    }
                    assert!((z - a[c * d + i]).norm() < 1e-12, "d={d}");
                }
            }
        }
        // a non-positive pivot declines
        let a = vec![
            Complex64::new(1.0, 0.0),
            Complex64::new(0.0, 0.0),
            Complex64::new(0.0, 0.0),
            Complex64::new(0.0, 0.0),
        ];
        assert!(cholesky_lower(&a, 2, 0.0).unwrap().is_none());
        assert!(cholesky_lower(&a, 2, 1e-3).unwrap().is_some());
    }

    /// Why the factorisation is not nalgebra's (docs/divergences.md, "order_two_cholesky"):
    /// nalgebra 0.34's complex Cholesky takes `ComplexField::try_sqrt` of each pivot, which for
    /// `Complex` is always `Some` (a complex square root), so it "succeeds" on an indefinite
    /// Hermitian matrix and cannot certify `σ − sI ≻ 0`; ours declines.
    #[test]
    fn nalgebra_cholesky_does_not_certify() {
        let z = |re: f64| Complex64::new(re, 0.0);
        // eigenvalues 3 and −1
        let indefinite = nalgebra::DMatrix::from_row_slice(2, 2, &[z(1.0), z(2.0), z(2.0), z(1.0)]);
        assert!(nalgebra::linalg::Cholesky::new(indefinite).is_some());
        let a = vec![z(1.0), z(2.0), z(2.0), z(1.0)];
        assert!(cholesky_lower(&a, 2, 0.0).unwrap().is_none());
    }
}
