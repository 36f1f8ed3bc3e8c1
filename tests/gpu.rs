//! The GPU backend (`Backend::Cuda`, feature `cuda`) against the CPU path: eigensolvers, every
//! divergence family on ill-conditioned, rank-deficient and leaking pairs, α-curves against single
//! orders, and the kernel estimator. Where qrenyi is built without the feature or no CUDA device is
//! usable, the GPU comparisons print why they are skipped, and the test of the typed error runs.

use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{Family, Pair};
use qrenyi::kernel::{Kernel, KernelDivergence, KernelKind};
use qrenyi::spectral::{Backend, EigenSolver};
use qrenyi::state::{DensityMatrix, Tolerance};
use qrenyi::Error;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

/// Whether the GPU comparisons can run here; prints the reason when not.
fn gpu(test: &str) -> bool {
    let ok = Backend::available().contains(&Backend::Cuda);
    if !ok {
        let why = Backend::Cuda
            .eigvalsh(ndarray::arr2(&[[Complex64::new(1.0, 0.0)]]).view())
            .err()
            .map_or_else(|| "unknown".to_string(), |e| e.to_string());
        eprintln!("{test} SKIPPED: {why}");
    }
    ok
}

fn c(re: f64, im: f64) -> Complex64 {
    Complex64::new(re, im)
}

/// Asking for the GPU where there is none (or in a build without the `cuda` feature) is one typed
/// error, from the solver and from state validation alike, never a panic.
#[test]
fn cuda_without_device_is_a_typed_error() {
    assert_eq!("cuda".parse::<Backend>().unwrap(), Backend::Cuda);
    if Backend::available().contains(&Backend::Cuda) {
        eprintln!("cuda_without_device_is_a_typed_error SKIPPED: a GPU is present here");
        return;
    }
    let a = ndarray::arr2(&[[c(0.6, 0.0), c(0.1, 0.2)], [c(0.1, -0.2), c(0.4, 0.0)]]);
    let err = Backend::Cuda.eigh(a.view()).unwrap_err();
    assert!(matches!(err, Error::GpuUnavailable { .. }), "{err}");
    let err = DensityMatrix::with_options(a.clone(), Tolerance::default(), Backend::Cuda)
        .and_then(|r| Pair::new(&r, &r)?.renyi(Family::Sandwiched, 2.0))
        .unwrap_err();
    assert!(matches!(err, Error::GpuUnavailable { .. }), "{err}");
    // Auto never picks an absent GPU
    let s = DensityMatrix::new(a).unwrap();
    assert!(Pair::new(&s, &s).unwrap().renyi(Family::Petz, 2.0).is_ok());
}

fn random_hermitian(d: usize, seed: u64) -> Array2<Complex64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    Array2::from_shape_fn((d, d), |_| {
        let (x, y): (f64, f64) = (
            StandardNormal.sample(&mut rng),
            StandardNormal.sample(&mut rng),
        );
        c(x, y)
    })
    .mapv(|z| z * 0.5)
    .to_owned()
}

fn hermitian_part(g: &Array2<Complex64>) -> Array2<Complex64> {
    (g + &g.t().mapv(|z| z.conj())).mapv(|z| z * 0.5)
}

fn frob(a: &Array2<Complex64>) -> f64 {
    a.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

/// `gpu_eigensolvers`: cuSOLVER's `zheevd`/`dsyevd`/`zgesvd`/`zpotrf` against faer and nalgebra:
/// eigenvalues within `64·d·ε‖A‖`, residual `‖AV − VΛ‖ ≤ 64·d·ε‖A‖`, `‖V†V − I‖ ≤ 64·d·ε`.
#[test]
fn gpu_eigensolvers_match_cpu() {
    if !gpu("gpu_eigensolvers_match_cpu") {
        return;
    }
    let cpu = Backend::Nalgebra;
    for (k, d) in [1usize, 2, 3, 7, 64, 300].into_iter().enumerate() {
        let a = hermitian_part(&random_hermitian(d, k as u64));
        let norm = frob(&a);
        let tol = 64.0 * d as f64 * f64::EPSILON * norm.max(1.0);
        let (l, v) = Backend::Cuda.eigh(a.view()).unwrap();
        let lc = cpu.eigvalsh(a.view()).unwrap();
        let lv = Backend::Cuda.eigvalsh(a.view()).unwrap();
        for i in 0..d {
            assert!(
                (l[i] - lc[i]).abs() <= tol,
                "d = {d}: λ_{i} {} vs {}",
                l[i],
                lc[i]
            );
            assert!((lv[i] - lc[i]).abs() <= tol);
        }
        let vl = Array2::from_shape_fn((d, d), |(i, j)| v[[i, j]] * l[j]);
        assert!(frob(&(a.dot(&v) - vl)) <= tol, "residual at d = {d}");
        let eye = Array2::from_shape_fn((d, d), |(i, j)| c(if i == j { 1.0 } else { 0.0 }, 0.0));
        let ortho = frob(&(v.t().mapv(|z| z.conj()).dot(&v) - eye));
        assert!(
            ortho <= 64.0 * d as f64 * f64::EPSILON,
            "‖V†V − I‖ = {ortho:e}"
        );
        // real symmetric
        let ar = a.mapv(|z| z.re);
        let (lr, vr) = Backend::Cuda.eigh_real(ar.view()).unwrap();
        let lrc = cpu.eigvalsh_real(ar.view()).unwrap();
        let lrv = Backend::Cuda.eigvalsh_real(ar.view()).unwrap();
        for i in 0..d {
            assert!((lr[i] - lrc[i]).abs() <= tol && (lrv[i] - lrc[i]).abs() <= tol);
        }
        let res = ar.dot(&vr) - Array2::from_shape_fn((d, d), |(i, j)| vr[[i, j]] * lr[j]);
        assert!(res.iter().map(|x| x * x).sum::<f64>().sqrt() <= tol);
    }
    // singular values of tall and wide matrices, descending
    for (r, cols) in [(5, 3), (3, 5), (40, 40), (1, 4)] {
        let g = random_hermitian(r.max(cols), 9);
        let a = g.slice(ndarray::s![..r, ..cols]).to_owned();
        let s = Backend::Cuda.singular_values(a.view()).unwrap();
        let sc = cpu.singular_values(a.view()).unwrap();
        assert_eq!(s.len(), r.min(cols));
        for (x, y) in s.iter().zip(&sc) {
            assert!(
                (x - y).abs() <= 1e-13 * frob(&a).max(1.0),
                "{r}×{cols}: {x} vs {y}"
            );
        }
    }
    // Cholesky decides definiteness: eigenvalues −1 and 3
    let a = ndarray::arr2(&[[c(1.0, 0.0), c(0.0, 2.0)], [c(0.0, -2.0), c(1.0, 0.0)]]);
    assert!(!Backend::Cuda.is_positive_definite(a.view(), 0.99).unwrap());
    assert!(Backend::Cuda.is_positive_definite(a.view(), 1.01).unwrap());
}

/// `U diag(p) U†` with `U` the eigenvectors of a random state: a state of prescribed spectrum.
fn with_spectrum(p: &[f64], seed: u64) -> Array2<Complex64> {
    let d = p.len();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let basis = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
    let u = basis.eigen().unwrap().vectors().clone();
    let up = Array2::from_shape_fn((d, d), |(i, j)| u[[i, j]] * p[j]);
    hermitian_part(&up.dot(&u.t().mapv(|z| z.conj())))
}

/// Geometric spectrum from 1 down to `floor` over `d − zeros` entries, then `zeros` exact zeros.
fn spectrum(d: usize, floor: f64, zeros: usize) -> Vec<f64> {
    let r = d - zeros;
    let mut p: Vec<f64> = (0..r)
        .map(|i| floor.powf(i as f64 / (r.max(2) - 1) as f64))
        .collect();
    p.resize(d, 0.0);
    let s: f64 = p.iter().sum();
    p.iter().map(|x| x / s).collect()
}

fn close(gpu: f64, cpu: f64, tol: f64) -> bool {
    if gpu.is_infinite() || cpu.is_infinite() {
        return gpu == cpu;
    }
    (gpu - cpu).abs() <= tol * (1.0 + cpu.abs())
}

/// Every quantity of a pair, in a fixed order (families × orders, then the limits and the others).
fn all_values(p: &Pair, alphas: &[f64]) -> Vec<f64> {
    let mut v = Vec::new();
    for family in [Family::Petz, Family::Sandwiched, Family::Maximal] {
        for &a in alphas.iter().filter(|&&a| family.check_alpha(a).is_ok()) {
            v.push(p.renyi(family, a).unwrap());
        }
    }
    v.extend([
        p.umegaki().unwrap(),
        p.belavkin_staszewski().unwrap(),
        p.max_relative_entropy().unwrap(),
        p.trace_distance().unwrap(),
        p.fidelity().unwrap(),
        p.hockey_stick(0.5).unwrap(),
        p.hockey_stick(2.0).unwrap(),
    ]);
    v
}

/// `ρ + t·‖ρ‖_F·H/‖H‖_F`, `H` random Hermitian, renormalised to unit trace: an input perturbation
/// of the size of a backward-stable eigensolver's backward error (`t = d·ε`, below the zero
/// threshold `16·d·ε·λ_max`, so that support decisions stay put).
fn perturbed(m: &Array2<Complex64>, seed: u64) -> Array2<Complex64> {
    let d = m.nrows();
    let h = hermitian_part(&random_hermitian(d, seed));
    let t = d as f64 * f64::EPSILON * frob(m) / frob(&h);
    let p = m + &h.mapv(|z| z * t);
    let tr: f64 = (0..d).map(|i| p[[i, i]].re).sum();
    p.mapv(|z| z / tr)
}

/// `gpu_divergences_ill_conditioned`: every family and limit on the GPU agrees with the CPU path on
/// ill-conditioned (spectra down to 1e-13), rank-deficient σ (the device block path with a kernel)
/// and leaking ρ, at dimensions on both sides of `AUTO_CUDA_FROM` (6 … 300), within what the conditioning of
/// each value allows: `|gpu − faer| ≤ 1e-10·(1 + |faer|) + 5·s`, `s` the largest change of the CPU
/// value under the other CPU eigensolvers (nalgebra, and LAPACK `zheevd`/`zheevr` when built with
/// `openblas`) and under two input perturbations of the size of a backward-stable solver's backward
/// error (`d·ε‖·‖`, [`perturbed`]). Eigenvectors of clustered small eigenvalues are determined only
/// to `ε‖ρ‖/gap` by any backward-stable solver, and `σ^{−1/2}` or small orders amplify that: `s`
/// measures it (e.g. the maximal `D̂_{0.2}` of the d = 33 ill-conditioned pair reads 6.048 with
/// faer, 6.050 nalgebra, 5.918 `zheevd`, 5.761 `zheevr`; cuSOLVER 5.925). The device α-curve
/// equals the device single orders.
#[test]
fn gpu_divergences_match_cpu_ill_conditioned() {
    if !gpu("gpu_divergences_match_cpu_ill_conditioned") {
        return;
    }
    let alphas = [
        0.2,
        0.5,
        0.9,
        0.999,
        1.0,
        1.001,
        1.5,
        2.0,
        5.0,
        30.0,
        f64::INFINITY,
    ];
    let mut checked = 0;
    let mut worst: f64 = 0.0;
    // d = 300, not 600: the CPU references of the α < 1 orders (graded routes, support-rotation
    // estimates, five backends and two perturbations) took minutes at d = 600
    for (case, &d) in [6usize, 33, 160, 300].iter().enumerate() {
        let configs = [
            (spectrum(d, 1e-13, 0), spectrum(d, 1e-9, 0)), // ill-conditioned, full rank
            (spectrum(d, 1e-6, d / 3), spectrum(d, 1e-8, 0)), // rank-deficient ρ
            (spectrum(d, 1e-6, d / 3), spectrum(d, 1e-4, d / 4)), // ρ ⊄ σ (leaks), σ singular
            (spectrum(d, 1e-3, d / 2), spectrum(d, 1e-12, d / 3)), // supports may nest
        ];
        for (k, (p, q)) in configs.iter().enumerate() {
            let seed = (100 * case + k) as u64;
            let (rm, sm) = (with_spectrum(p, seed), with_spectrum(q, seed + 50));
            let st = |m: &Array2<Complex64>, b: Backend| {
                DensityMatrix::with_options(m.clone(), Tolerance::default(), b).unwrap()
            };
            let values = |r: &Array2<Complex64>, s: &Array2<Complex64>, b: Backend| {
                let (r, s) = (st(r, b), st(s, b));
                let pair = Pair::new(&r, &s).unwrap();
                (all_values(&pair, &alphas), pair.is_supported().unwrap())
            };
            let (vc, sup_c) = values(&rm, &sm, Backend::Faer);
            let (vg, sup_g) = values(&rm, &sm, Backend::Cuda);
            let mut others = vec![
                values(&rm, &sm, Backend::Nalgebra).0,
                values(
                    &perturbed(&rm, seed + 1),
                    &perturbed(&sm, seed + 2),
                    Backend::Faer,
                )
                .0,
                values(
                    &perturbed(&rm, seed + 3),
                    &perturbed(&sm, seed + 4),
                    Backend::Faer,
                )
                .0,
            ];
            for b in [Backend::Lapack, Backend::LapackMrrr] {
                if Backend::available().contains(&b) {
                    others.push(values(&rm, &sm, b).0);
                }
            }
            assert_eq!(sup_c, sup_g, "d = {d}, case {k}: support decision");
            for (i, (g, c)) in vg.iter().zip(&vc).enumerate() {
                if g.is_infinite() || c.is_infinite() {
                    assert_eq!(g, c, "d = {d}, case {k}, value {i}");
                    continue;
                }
                let spread = others
                    .iter()
                    .map(|o| o[i])
                    .filter(|o| o.is_finite())
                    .fold(0.0f64, |m, o| m.max((o - c).abs()));
                let n = others[0][i];
                let tol = 1e-10 * (1.0 + c.abs()) + 5.0 * spread;
                assert!(
                    (g - c).abs() <= tol,
                    "d = {d}, case {k}, value {i}: GPU {g} vs faer {c} (nalgebra {n})"
                );
                worst = worst.max((g - c).abs() / tol);
                checked += 1;
            }
            // the device curve (orders run from the cached device ρ') equals the single orders
            let (r, s) = (st(&rm, Backend::Cuda), st(&sm, Backend::Cuda));
            let pair = Pair::new(&r, &s).unwrap();
            let usable: Vec<f64> = alphas.iter().copied().filter(|&a| a > 0.0).collect();
            let curve = pair.curve(Family::Sandwiched, &usable).unwrap();
            let fresh = Pair::new(&r, &s).unwrap();
            for (&a, &vc) in usable.iter().zip(&curve) {
                let v1 = fresh.renyi(Family::Sandwiched, a).unwrap();
                assert!(
                    close(vc, v1, 1e-12),
                    "curve vs single at α = {a}: {vc} vs {v1}"
                );
            }
        }
    }
    eprintln!("GPU vs CPU: {checked} values, worst |Δ|/tolerance {worst:.2e}");
    assert!(checked > 300, "{checked}");
}

/// The kernel estimator with its blocks and solves on the GPU equals the CPU estimator.
#[test]
fn gpu_kernel_estimator_matches_cpu() {
    if !gpu("gpu_kernel_estimator_matches_cpu") {
        return;
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut sample = |n: usize, shift: f64| {
        Array2::from_shape_fn((n, 3), |_| {
            let z: f64 = StandardNormal.sample(&mut rng);
            z + shift
        })
    };
    let (x, y) = (sample(150, 0.0), sample(170, 0.4));
    let k = Kernel::new(KernelKind::Rbf, 1.5).unwrap();
    let blocks = || {
        (
            k.gram_sym(x.view()).unwrap(),
            k.gram(x.view(), y.view()).unwrap(),
            k.gram_sym(y.view()).unwrap(),
        )
    };
    let (a, b, c) = blocks();
    let gpu = KernelDivergence::from_gram_with(a, b, c, Backend::Cuda).unwrap();
    let (a, b, c) = blocks();
    let cpu = KernelDivergence::from_gram_with(a, b, c, Backend::Nalgebra).unwrap();
    let (alphas, lambdas) = ([0.5, 0.9, 1.0, 2.0, 5.0, f64::INFINITY], [0.0, 1e-6, 1e-2]);
    let (g, c) = (
        gpu.grid(&alphas, &lambdas).unwrap(),
        cpu.grid(&alphas, &lambdas).unwrap(),
    );
    for (vg, vc) in g.iter().zip(c.iter()) {
        assert!(
            close(*vg, *vc, 1e-9),
            "kernel estimator: GPU {vg} vs CPU {vc}"
        );
    }
}

/// `D̃_α` at the orders `alphas` from raw matrices (`sandwiched_from_matrices`) on `backend`.
fn direct(r: &Array2<Complex64>, s: &Array2<Complex64>, alphas: &[f64], b: Backend) -> Vec<f64> {
    qrenyi::divergence::sandwiched_from_matrices(
        r.clone(),
        s.clone(),
        alphas,
        Tolerance::default(),
        b,
    )
    .unwrap()
}

/// `gpu_sandwiched_from_matrices_matches_cpu`: the device route that never decomposes ρ
/// (`σ = VμV†` on the device, `ρ' = V†ρV` by two `zgemm`, one values-only solve per order) agrees
/// with the CPU pair (faer) on ill-conditioned and rank-deficient pairs within the conditioning of
/// each value: `|gpu − faer| ≤ 1e-10·(1 + |faer|) + 5·s`, `s` the largest change of the device value
/// under two input perturbations of a backward-stable solver's backward error ([`perturbed`]) and
/// of the CPU value under nalgebra. A rank-deficient σ (the pair route) and orders `≤ 1` (α < 1 keeps
/// the SVD route) equal the device pair exactly; validation errors match the CPU's.
#[test]
fn gpu_sandwiched_from_matrices_matches_cpu() {
    if !gpu("gpu_sandwiched_from_matrices_matches_cpu") {
        return;
    }
    let alphas = [1.001, 1.1, 1.5, 2.0, 3.0, 5.0, 30.0];
    let (mut checked, mut worst) = (0, 0.0f64);
    for (case, &d) in [6usize, 33, 160, 600].iter().enumerate() {
        let configs = [
            (spectrum(d, 1e-13, 0), spectrum(d, 1e-9, 0)),
            (spectrum(d, 1e-6, d / 3), spectrum(d, 1e-8, 0)),
            (spectrum(d, 1e-2, 0), spectrum(d, 1e-2, 0)),
            (spectrum(d, 1e-6, d / 3), spectrum(d, 1e-4, d / 4)),
        ];
        for (k, (p, q)) in configs.iter().enumerate() {
            let seed = (300 + 100 * case + k) as u64;
            let (rm, sm) = (with_spectrum(p, seed), with_spectrum(q, seed + 50));
            let st = |m: &Array2<Complex64>, b: Backend| {
                DensityMatrix::with_options(m.clone(), Tolerance::default(), b).unwrap()
            };
            let pair_values = |b: Backend| {
                let (r, s) = (st(&rm, b), st(&sm, b));
                Pair::new(&r, &s)
                    .unwrap()
                    .curve(Family::Sandwiched, &alphas)
                    .unwrap()
            };
            let vg = direct(&rm, &sm, &alphas, Backend::Cuda);
            let vc = pair_values(Backend::Faer);
            if k == 3 {
                // σ singular: the pair route on the device, identical numbers
                assert_eq!(vg, pair_values(Backend::Cuda), "d = {d}: rank-deficient σ");
            }
            let others = [
                pair_values(Backend::Nalgebra),
                direct(
                    &perturbed(&rm, seed + 1),
                    &perturbed(&sm, seed + 2),
                    &alphas,
                    Backend::Cuda,
                ),
                direct(
                    &perturbed(&rm, seed + 3),
                    &perturbed(&sm, seed + 4),
                    &alphas,
                    Backend::Cuda,
                ),
            ];
            for (i, (g, c)) in vg.iter().zip(&vc).enumerate() {
                if g.is_infinite() || c.is_infinite() {
                    assert_eq!(g, c, "d = {d}, case {k}, α = {}", alphas[i]);
                    continue;
                }
                let spread = others
                    .iter()
                    .map(|o| o[i])
                    .filter(|o| o.is_finite())
                    .fold(0.0f64, |m, o| m.max((o - c).abs()));
                let tol = 1e-10 * (1.0 + c.abs()) + 5.0 * spread;
                assert!(
                    (g - c).abs() <= tol,
                    "d = {d}, case {k}, α = {}: GPU {g} vs faer {c}",
                    alphas[i]
                );
                worst = worst.max((g - c).abs() / tol);
                checked += 1;
            }
        }
    }
    eprintln!("from matrices, GPU vs CPU: {checked} values, worst |Δ|/tolerance {worst:.2e}");
    assert!(checked > 80, "{checked}");
    // orders ≤ 1 take the pair route (α < 1: relative-accurate SVD)
    let (rm, sm) = (
        with_spectrum(&spectrum(200, 1e-9, 0), 7),
        with_spectrum(&spectrum(200, 1e-3, 0), 8),
    );
    let mixed = [0.3, 0.5, 1.0, 2.0];
    let (r, s) = (
        DensityMatrix::with_options(rm.clone(), Tolerance::default(), Backend::Cuda).unwrap(),
        DensityMatrix::with_options(sm.clone(), Tolerance::default(), Backend::Cuda).unwrap(),
    );
    let expect = Pair::new(&r, &s)
        .unwrap()
        .curve(Family::Sandwiched, &mixed)
        .unwrap();
    assert_eq!(direct(&rm, &sm, &mixed, Backend::Cuda), expect);
    // validation: a negative eigenvalue in ρ (Cholesky on the device) or σ (its eigenvalues)
    let bad = with_spectrum(&[0.6, 0.5, -0.1, 0.0, 0.0, 0.0, 0.0, 0.0], 9);
    let good = with_spectrum(&spectrum(8, 1e-2, 0), 10);
    for (r, s) in [(&bad, &good), (&good, &bad)] {
        for b in [Backend::Cuda, Backend::Faer] {
            let e = qrenyi::divergence::sandwiched_from_matrices(
                r.clone(),
                s.clone(),
                &[2.0],
                Tolerance::default(),
                b,
            );
            match e {
                Err(Error::NotPositiveSemidefinite { min_eigenvalue, .. }) => {
                    assert!(
                        (min_eigenvalue + 0.1).abs() < 1e-12,
                        "{b:?}: {min_eigenvalue}"
                    )
                }
                other => panic!("{b:?}: expected NotPositiveSemidefinite, got {other:?}"),
            }
        }
    }
}

/// Without a GPU (or on the CPU backends) `sandwiched_from_matrices` is validation + a pair curve.
#[test]
fn sandwiched_from_matrices_equals_pair_on_cpu() {
    let (rm, sm) = (
        with_spectrum(&spectrum(12, 1e-6, 3), 11),
        with_spectrum(&spectrum(12, 1e-3, 0), 12),
    );
    let alphas = [0.5, 1.0, 2.0, f64::INFINITY];
    let (r, s) = (
        DensityMatrix::new(rm.clone()).unwrap(),
        DensityMatrix::new(sm.clone()).unwrap(),
    );
    let expect = Pair::new(&r, &s)
        .unwrap()
        .curve(Family::Sandwiched, &alphas)
        .unwrap();
    // to rounding: `Pair`'s route and the small-pair kernel (ρ decomposed first) form ρ' in different
    // summation orders (the algorithmic part 64 d ε (1 + |D|) of the documented bound)
    for (got, want) in direct(&rm, &sm, &alphas, Backend::default())
        .iter()
        .zip(&expect)
    {
        assert!(
            (got - want).abs() <= 64.0 * 12.0 * f64::EPSILON * (1.0 + want.abs()),
            "{got} vs {want}"
        );
    }
    let wrong = qrenyi::divergence::sandwiched_from_matrices(
        rm.clone(),
        Array2::eye(5).mapv(|x: f64| c(x / 5.0, 0.0)),
        &alphas,
        Tolerance::default(),
        Backend::default(),
    );
    assert!(
        matches!(wrong, Err(Error::DimensionMismatch { .. })),
        "{wrong:?}"
    );
}

/// `gpu_batch_matches_cpu`: the batched GPU routes (`batch::sandwiched_from_matrices`: qrenyi's
/// one-thread-per-pair Jacobi kernel for d ≤ 16 — every template size, 4, 8 and 16, is reached —,
/// cuSOLVER's batched Jacobi + strided products for 16 < d ≤ 32) equal the host route pair by pair
/// on random states, and answer invalid pairs (negative eigenvalue in ρ or σ, wrong trace, not
/// Hermitian, a NaN entry, entries whose squares overflow), rank-deficient σ and pairs of another
/// dimension exactly as the host does (the same error message; the device's smallest eigenvalue
/// within 1e-12 of the host's).
#[test]
fn gpu_batch_matches_cpu() {
    if !gpu("gpu_batch_matches_cpu") {
        return;
    }
    use qrenyi::divergence::batch;
    let mut worst = 0.0f64;
    for d in [2usize, 3, 4, 5, 8, 11, 16, 32] {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(d as u64);
        let mut mats: Vec<(Array2<Complex64>, Array2<Complex64>)> = (0..300)
            .map(|_| {
                let r = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
                let s = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
                (r.matrix().clone(), s.matrix().clone())
            })
            .collect();
        let mut bad = vec![0.0; d];
        bad[0] = 1.2;
        bad[d - 1] = -0.2;
        let bad = with_spectrum(&bad, 1);
        let singular = with_spectrum(&spectrum(d, 1e-3, 1), 2);
        let good = mats[0].0.clone();
        mats.push((bad.clone(), good.clone()));
        mats.push((good.clone(), bad));
        mats.push((good.mapv(|z| z * 2.0), good.clone()));
        mats.push((good.clone(), singular.clone()));
        mats.push((singular, good.clone()));
        // not Hermitian beyond the tolerance; a NaN entry; entries whose squares overflow
        let mut skew = good.clone();
        skew[[d - 1, 0]] += c(0.0, 1e-3);
        mats.push((skew.clone(), good.clone()));
        mats.push((good.clone(), skew));
        let mut nan = good.clone();
        nan[[0, d - 1]] = c(f64::NAN, 0.0);
        mats.push((nan, good.clone()));
        mats.push((good.mapv(|z| z * 1e200), good.clone()));
        mats.push((
            Array2::eye(d + 1).mapv(|x: f64| c(x / (d + 1) as f64, 0.0)),
            Array2::eye(d + 1).mapv(|x: f64| c(x / (d + 1) as f64, 0.0)),
        ));
        for alpha in [1.5, 2.0, 7.0] {
            let g =
                batch::sandwiched_from_matrices(&mats, alpha, Tolerance::default(), Backend::Cuda);
            let h =
                batch::sandwiched_from_matrices(&mats, alpha, Tolerance::default(), Backend::Faer);
            assert_eq!(g.len(), mats.len());
            for (k, (g, h)) in g.iter().zip(&h).enumerate() {
                match (g, h) {
                    (Ok(g), Ok(h)) => {
                        assert!(
                            close(*g, *h, 1e-9),
                            "d = {d}, α = {alpha}, pair {k}: {g} vs {h}"
                        );
                        if g.is_finite() {
                            worst = worst.max((g - h).abs() / (1.0 + h.abs()));
                        }
                    }
                    (
                        Err(Error::NotPositiveSemidefinite {
                            min_eigenvalue: a, ..
                        }),
                        Err(Error::NotPositiveSemidefinite {
                            min_eigenvalue: b, ..
                        }),
                    ) => {
                        assert!((a - b).abs() < 1e-12, "d = {d}, pair {k}: {a} vs {b}")
                    }
                    (Err(g), Err(h)) => {
                        assert_eq!(g.to_string(), h.to_string(), "d = {d}, pair {k}")
                    }
                    (g, h) => panic!("d = {d}, pair {k}: {g:?} vs {h:?}"),
                }
            }
        }
    }
    eprintln!("batched GPU vs CPU: worst relative deviation {worst:.2e}");
}

/// `gpu_device_validation_matches_host`: the direct route validates on the device
/// (`hermitian_stats` + `symmetrise`); every input the host rejects is rejected with the host's
/// exact message (not Hermitian, trace ≠ 1, NaN and ∞ entries, entries beyond 1e150, a wrong
/// shape), at a small and a large dimension, and an input within tolerance gives the host's value.
#[test]
fn gpu_device_validation_matches_host() {
    if !gpu("gpu_device_validation_matches_host") {
        return;
    }
    for d in [6usize, 300] {
        let good = with_spectrum(&spectrum(d, 1e-3, 0), 40 + d as u64);
        let other = with_spectrum(&spectrum(d, 1e-2, 0), 41 + d as u64);
        let mut skew = good.clone();
        skew[[d - 1, 1]] += c(1e-4, 1e-4);
        let mut nan = good.clone();
        nan[[2, 3]] = c(0.0, f64::NAN);
        let mut inf = good.clone();
        inf[[d - 1, d - 1]] = c(f64::INFINITY, 0.0);
        let mut slightly = good.clone();
        slightly[[1, 0]] += c(1e-14, -1e-14); // within the tolerance: accepted, symmetrised
        let cases = [
            skew,
            good.mapv(|z| z * 1.01),
            nan,
            inf,
            good.mapv(|z| z * 1e160),
            slightly,
        ];
        for (i, bad) in cases.iter().enumerate() {
            for (r, s) in [(bad, &other), (&other, bad)] {
                let run = |b: Backend| {
                    qrenyi::divergence::sandwiched_from_matrices(
                        r.clone(),
                        s.clone(),
                        &[1.5, 2.0],
                        Tolerance::default(),
                        b,
                    )
                };
                match (run(Backend::Cuda), run(Backend::Faer)) {
                    (Err(g), Err(h)) => {
                        assert_eq!(g.to_string(), h.to_string(), "d = {d}, case {i}")
                    }
                    (Ok(g), Ok(h)) => {
                        for (g, h) in g.iter().zip(&h) {
                            assert!(close(*g, *h, 1e-8), "d = {d}, case {i}: {g} vs {h}")
                        }
                    }
                    (g, h) => panic!("d = {d}, case {i}: GPU {g:?} vs host {h:?}"),
                }
            }
        }
    }
    let e = qrenyi::divergence::sandwiched_from_matrices(
        Array2::zeros((3, 4)),
        Array2::zeros((3, 4)),
        &[2.0],
        Tolerance::default(),
        Backend::Cuda,
    );
    assert!(matches!(e, Err(Error::NotSquare { .. })), "{e:?}");
}

/// The committed PTX (`src/spectral/cuda/kernels.ptx`) was generated from the committed source
/// `kernels.cu` (its first line records the source's FNV-1a hash; `tools/gen-ptx` writes both).
#[test]
fn kernels_ptx_matches_source() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/spectral/cuda/");
    let src = std::fs::read(format!("{dir}kernels.cu")).unwrap();
    let ptx = std::fs::read_to_string(format!("{dir}kernels.ptx")).unwrap();
    let hash = src.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let first = ptx.lines().next().unwrap_or("");
    assert!(
        first.contains(&format!("fnv1a64 {hash:016x}")),
        "kernels.ptx is stale: rerun tools/gen-ptx ({first})"
    );
}
