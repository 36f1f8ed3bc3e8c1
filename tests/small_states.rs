//! The small-state kernel (`divergence::small`, `spectral::small`): its values against the LAPACK
//! route within the documented error bounds on hard inputs, and no heap allocation on its hot path.
//! (The mpmath fixtures of `tests/reference.rs` run it too: the default backend takes it at d ≤ 16.)
//! Both tests compare against or serve the LAPACK route, so the file needs the `openblas` feature.
#![cfg(feature = "openblas")]

mod common;

use common::*;
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{accuracy, Family, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::{haar_unitary, DensityMatrix, Tolerance};
use qrenyi::verify::{sample, Instance};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts the allocations of the current thread (tests run in parallel threads).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the counter is a const-initialised thread local.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(|c| c.get())
}

/// `U diag(λ) U†` for a Haar-random `U`, normalised to unit trace.
fn with_spectrum(lambda: &[f64], seed: u64) -> Array2<Complex64> {
    let d = lambda.len();
    let t: f64 = lambda.iter().sum();
    let u = haar_unitary(d, &mut rng(seed));
    Array2::from_shape_fn((d, d), |(i, j)| {
        (0..d)
            .map(|k| u[[i, k]] * u[[j, k]].conj() * (lambda[k] / t))
            .sum::<Complex64>()
    })
}

/// Hard pairs of dimension `d`: ill-conditioned and nearly equal (the accuracy sampler),
/// rank-deficient, ρ = σ, nearly degenerate spectra.
fn hard_pairs(d: usize, seed: u64) -> Vec<(String, Array2<Complex64>, Array2<Complex64>)> {
    let mut r = rng(seed);
    let mut out = Vec::new();
    for k in 0..4 {
        let (a, b, how) = sample::ill_conditioned_pair(d, &mut r);
        let inst = Instance::new().with("rho", a).with("sigma", b);
        let (x, y) = (
            inst.state("rho", Backend::Lapack).unwrap(),
            inst.state("sigma", Backend::Lapack).unwrap(),
        );
        out.push((
            format!("{how} #{k}"),
            x.matrix().clone(),
            y.matrix().clone(),
        ));
    }
    let half = d.div_ceil(2);
    for kind in 0..4u8 {
        let a = random_state(d, kind, &mut r);
        let b = random_state(d, kind + 1, &mut r);
        out.push((
            format!("ensembles {kind}/{}", kind + 1),
            a.matrix().clone(),
            b.matrix().clone(),
        ));
    }
    let low = DensityMatrix::random_hilbert_schmidt(d, half, &mut r).unwrap();
    let full = DensityMatrix::random_hilbert_schmidt(d, d, &mut r).unwrap();
    out.push((
        "rank-deficient ρ".into(),
        low.matrix().clone(),
        full.matrix().clone(),
    ));
    out.push(("ρ = σ".into(), full.matrix().clone(), full.matrix().clone()));
    out.push((
        "ρ = σ rank-deficient".into(),
        low.matrix().clone(),
        low.matrix().clone(),
    ));
    let near: Vec<f64> = (0..d).map(|k| 0.5 + 1e-13 * k as f64).collect();
    let deg: Vec<f64> = (0..d)
        .map(|k| if k < d / 2 { 0.25 } else { 0.75 })
        .collect();
    out.push((
        "nearly degenerate".into(),
        with_spectrum(&near, seed + 1),
        with_spectrum(&deg, seed + 2),
    ));
    out
}

const ALPHAS: [f64; 16] = [
    1e-3,
    0.1,
    0.5,
    0.9,
    1.0 - 1e-7,
    1.0,
    1.0 + 1e-7,
    1.1,
    1.5,
    2.0,
    5.0,
    50.0,
    1e3,
    1e5,
    1e6,
    f64::INFINITY,
];

/// `small_kernel_within_documented_bounds`: at d = 2…16, the default backend (the small kernel
/// and the Jacobi solver) and LAPACK agree within the sum of their documented error bounds for
/// every family at α from 1e-3 to 1e6 and ∞, on ill-conditioned, rank-deficient, identical and
/// nearly degenerate pairs; `+∞` exactly where LAPACK's route says so.
#[test] // LAPACK is the reference route
fn small_kernel_within_documented_bounds() {
    let mut checked = 0;
    for d in [2usize, 3, 4, 5, 8, 12, 16] {
        for (how, r, s) in hard_pairs(d, 40 + d as u64) {
            let state = |m: &Array2<Complex64>, b| {
                DensityMatrix::with_options(m.clone(), Tolerance::default(), b).unwrap()
            };
            let (ra, sa) = (state(&r, Backend::Auto), state(&s, Backend::Auto));
            let (rl, sl) = (state(&r, Backend::Lapack), state(&s, Backend::Lapack));
            let (pa, pl) = (Pair::new(&ra, &sa).unwrap(), Pair::new(&rl, &sl).unwrap());
            for f in Family::ALL {
                for &alpha in &ALPHAS {
                    let (x, y) = (pa.renyi(f, alpha).unwrap(), pl.renyi(f, alpha).unwrap());
                    checked += 1;
                    if x.is_infinite() || y.is_infinite() {
                        assert_eq!(x, y, "d={d} {how} {f:?} α={alpha:e}");
                        continue;
                    }
                    let bound = accuracy::error_bound(&pa, f, alpha, x).unwrap()
                        + accuracy::error_bound(&pl, f, alpha, y).unwrap();
                    assert!(
                        (x - y).abs() <= bound,
                        "d={d} {how} {f:?} α={alpha:e}: small {x:e} vs lapack {y:e} (bound {bound:.2e})"
                    );
                }
            }
            let (x, y) = (pa.umegaki().unwrap(), pl.umegaki().unwrap());
            if x.is_finite() || y.is_finite() {
                let bound = accuracy::error_bound(&pa, Family::Petz, 1.0, x).unwrap()
                    + accuracy::error_bound(&pl, Family::Petz, 1.0, y).unwrap();
                assert!((x - y).abs() <= bound, "d={d} {how} umegaki {x:e} vs {y:e}");
            }
            let alphas: Vec<f64> = ALPHAS.to_vec();
            let (cx, cy) = (
                pa.curve(Family::Sandwiched, &alphas).unwrap(),
                pl.curve(Family::Sandwiched, &alphas).unwrap(),
            );
            for ((&a, x), y) in alphas.iter().zip(cx).zip(cy) {
                assert_eq!(
                    x,
                    pa.renyi(Family::Sandwiched, a).unwrap(),
                    "curve = single"
                );
                if x.is_finite() {
                    let bound = accuracy::error_bound(&pa, Family::Sandwiched, a, x).unwrap()
                        + accuracy::error_bound(&pl, Family::Sandwiched, a, y).unwrap();
                    assert!((x - y).abs() <= bound, "d={d} {how} curve α={a:e}");
                } else {
                    assert_eq!(x, y);
                }
            }
        }
    }
    assert!(checked >= 4000, "{checked}");
}

/// `small_kernel_allocates_nothing`: with both states decomposed, a call the kernel answers makes
/// no heap allocation — Petz (any order) and Umegaki at d ≤ 16 (`divergence::small::SMALL_PAIR_MAX`),
/// sandwiched α > 1 up to `divergence::small::SMALL_SANDWICHED_MAX` (12) and maximal α ≥ 1 up to
/// `divergence::small::SMALL_SPECTRAL_MAX` (16).
#[test] // the kernel serves Backend::Auto, the default backend only with LAPACK
fn small_kernel_allocates_nothing() {
    use qrenyi::divergence::small::{SMALL_PAIR_MAX, SMALL_SANDWICHED_MAX, SMALL_SPECTRAL_MAX};
    for d in [2usize, 3, 4, 5, 8, 12, 16] {
        let (rho, sigma) = {
            let mut r = rng(d as u64);
            (
                DensityMatrix::random_hilbert_schmidt(d, d, &mut r).unwrap(),
                DensityMatrix::random_bures(d, &mut r).unwrap(),
            )
        };
        rho.eigen().unwrap();
        sigma.eigen().unwrap();
        let mut calls: Vec<(Family, f64)> = Vec::new();
        if d <= SMALL_PAIR_MAX {
            calls.extend([0.3, 1.0, 2.0, f64::INFINITY].map(|a| (Family::Petz, a)));
            calls.push((Family::Sandwiched, 1.0));
        }
        if d <= SMALL_SANDWICHED_MAX {
            calls.extend([2.0, 7.5].map(|a| (Family::Sandwiched, a)));
        }
        if d <= SMALL_SPECTRAL_MAX {
            calls.extend([1.0, 2.0, 7.5, f64::INFINITY].map(|a| (Family::Maximal, a)));
            calls.push((Family::Sandwiched, f64::INFINITY));
        }
        let before = allocations();
        let mut sum = 0.0;
        for &(f, alpha) in &calls {
            sum += Pair::new(&rho, &sigma).unwrap().renyi(f, alpha).unwrap();
        }
        if d <= SMALL_PAIR_MAX {
            sum += Pair::new(&rho, &sigma).unwrap().umegaki().unwrap();
        }
        assert_eq!(allocations() - before, 0, "d = {d}");
        assert!(sum.is_finite());
    }
}
