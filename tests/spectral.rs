//! The spectral layer: every backend decomposes correctly, values-only equals full, functional
//! calculus obeys its identities (pseudo-inverse convention on the support).

mod common;

use common::*;
use ndarray::Array2;
use num_complex::Complex64 as C;
use qrenyi::spectral::{zero_threshold, Backend, Eigen, EigenSolver};
use qrenyi::state::{dagger, ginibre};

fn max_abs(a: &Array2<C>) -> f64 {
    a.iter().map(|z| z.norm()).fold(0.0, f64::max)
}

fn hermitian(d: usize, seed: u64) -> Array2<C> {
    let g = ginibre(d, d, &mut rng(seed));
    (&g + &dagger(&g.view())).mapv(|z| z * 0.5)
}

#[test]
fn every_backend_reconstructs_and_sorts() {
    for backend in Backend::available() {
        for d in [1usize, 2, 3, 8, 33] {
            let a = hermitian(d, d as u64);
            let (w, v) = backend.eigh(a.view()).unwrap();
            assert!(
                w.windows(2).into_iter().all(|p| p[0] <= p[1]),
                "{backend:?} unsorted"
            );
            let back = (&v * &w.mapv(|x| C::new(x, 0.0))).dot(&dagger(&v.view()));
            assert!(
                max_abs(&(&back - &a)) < 1e-12 * d as f64,
                "{backend:?} d={d}"
            );
            let vals = backend.eigvalsh(a.view()).unwrap();
            assert!(vals
                .iter()
                .zip(&w)
                .all(|(x, y)| (x - y).abs() < 1e-12 * d as f64));
            let re = a.mapv(|z| z.re);
            let (wr, vr) = backend.eigh_real(re.view()).unwrap();
            let backr = (&vr * &wr).dot(&vr.t());
            assert!((&backr - &re).iter().all(|x| x.abs() < 1e-12 * d as f64));
            let vr2 = backend.eigvalsh_real(re.view()).unwrap();
            assert!(vr2
                .iter()
                .zip(&wr)
                .all(|(x, y)| (x - y).abs() < 1e-12 * d as f64));
        }
    }
}

#[test]
fn backends_agree_on_spectra_and_singular_values() {
    let a = hermitian(12, 99);
    let reference = Backend::Nalgebra.eigvalsh(a.view()).unwrap();
    let b = ginibre(7, 4, &mut rng(5));
    let sref = Backend::Nalgebra.singular_values(b.view()).unwrap();
    // singular values are the square roots of the eigenvalues of B†B
    let btb = dagger(&b.view()).dot(&b);
    let ev = Backend::Nalgebra.eigvalsh(btb.view()).unwrap();
    for (s, e) in sref.iter().zip(ev.iter().rev()) {
        assert!((s * s - e).abs() < 1e-12 * (1.0 + e));
    }
    for backend in Backend::available() {
        let w = backend.eigvalsh(a.view()).unwrap();
        assert!(w.iter().zip(&reference).all(|(x, y)| (x - y).abs() < 1e-12));
        let s = backend.singular_values(b.view()).unwrap();
        assert!(s.windows(2).into_iter().all(|p| p[0] >= p[1]));
        assert!(s.iter().zip(&sref).all(|(x, y)| (x - y).abs() < 1e-12));
    }
}

#[test]
fn non_square_inputs_are_errors_not_panics() {
    let a = Array2::<C>::zeros((2, 3));
    for backend in Backend::available() {
        assert!(backend.eigh(a.view()).is_err());
        assert!(backend.eigvalsh(a.view()).is_err());
        assert!(backend.eigh_real(a.mapv(|z| z.re).view()).is_err());
    }
}

#[test]
fn functional_calculus_on_the_support() {
    // a rank-2 PSD operator in d = 4
    let g = ginibre(4, 2, &mut rng(17));
    let a = g.dot(&dagger(&g.view()));
    let e = Eigen::compute(a.view(), Backend::default()).unwrap();
    assert_eq!(e.rank(), 2);
    assert_eq!(e.support().len() + e.kernel().len(), 4);
    assert!(e.threshold() >= zero_threshold(4, e.max_value()) * 0.999);
    let pinv = e.power(-1.0);
    // Moore–Penrose identities: A A⁺ A = A, A⁺ A A⁺ = A⁺, A A⁺ = projector on the support
    assert!(max_abs(&(&a.dot(&pinv).dot(&a) - &a)) < 1e-10);
    assert!(max_abs(&(&pinv.dot(&a).dot(&pinv) - &pinv)) < 1e-8);
    assert!(max_abs(&(&a.dot(&pinv) - &e.support_projector())) < 1e-10);
    let s = e.sqrt();
    assert!(max_abs(&(&s.dot(&s) - &a)) < 1e-12);
    assert!(max_abs(&(&e.power(0.5) - &s)) < 1e-12);
    // log on the support: exp(log A) = A on supp A, 0 elsewhere
    let l = Eigen::compute(e.log_on_support().view(), Backend::default()).unwrap();
    let exp_back = l.map(f64::exp);
    let proj = e.support_projector();
    let on_support = proj.dot(&exp_back).dot(&proj);
    assert!(max_abs(&(&on_support - &a)) < 1e-10);
    let mapped = e.map(|x| x * x);
    assert!(max_abs(&(&mapped - &a.dot(&a))) < 1e-12);
    assert!(e.clamped(0) == 0.0 && e.clamped(3) > 0.0);
}
