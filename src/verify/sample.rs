//! Random ensembles for the search. Counterexamples hide at the edges, so every sampler mixes a
//! "typical" ensemble with edge ensembles: low rank, nearly pure, near-singular spectra,
//! commuting (classical) pairs, pairs with bounded `D_max` both ways, orders α near 1 and large.
//!
//! Every function takes the trial's RNG, so a trial is a deterministic function of its seed.

use super::instance::{Item, Scale};
use crate::state::{ginibre, haar_unitary, Channel};
use ndarray::{Array1, Array2};
use num_complex::Complex64;
use rand::Rng;
use rand_distr::{Exp1, StandardNormal};

/// Where instances are drawn from: the dimension range of the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampleContext {
    /// Largest Hilbert-space dimension (and largest alphabet size for classical statements).
    pub max_dim: usize,
}

impl Default for SampleContext {
    fn default() -> Self {
        SampleContext { max_dim: 4 }
    }
}

impl SampleContext {
    /// A dimension in `2..=max_dim` (small ones more often: they are the cheap, edgy ones).
    pub fn dim<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let m = self.max_dim.max(2);
        let a = rng.random_range(2..=m);
        let b = rng.random_range(2..=m);
        a.min(b)
    }
}

/// The state ensembles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateEnsemble {
    /// Hilbert–Schmidt measure (`G` square Ginibre).
    HilbertSchmidt,
    /// Bures measure (`(I + U) G`).
    Bures,
    /// Hilbert–Schmidt of rank `r < d`.
    LowRank,
    /// One dominant eigenvector plus a small (1e-6 … 1e-1) full-rank admixture.
    NearlyPure,
    /// Full rank with eigenvalues spread log-uniformly down to 1e-9 (one at 1e-9): as small as
    /// the zero threshold lets a support eigenvalue be decided (see `verify::condition_number`).
    NearSingular,
}

impl StateEnsemble {
    /// All ensembles.
    pub const ALL: [StateEnsemble; 5] = [
        StateEnsemble::HilbertSchmidt,
        StateEnsemble::Bures,
        StateEnsemble::LowRank,
        StateEnsemble::NearlyPure,
        StateEnsemble::NearSingular,
    ];
    /// Name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            StateEnsemble::HilbertSchmidt => "hilbert-schmidt",
            StateEnsemble::Bures => "bures",
            StateEnsemble::LowRank => "low-rank",
            StateEnsemble::NearlyPure => "nearly-pure",
            StateEnsemble::NearSingular => "near-singular",
        }
    }
    /// A uniformly chosen ensemble.
    pub fn random<R: Rng + ?Sized>(rng: &mut R) -> Self {
        Self::ALL[rng.random_range(0..Self::ALL.len())]
    }
}

fn log_uniform<R: Rng + ?Sized>(lo: f64, hi: f64, rng: &mut R) -> f64 {
    (lo.ln() + rng.random::<f64>() * (hi.ln() - lo.ln())).exp()
}

/// `U diag(√λ)`: a generator of the state `U diag(λ) U†`.
fn spectral_generator(u: &Array2<Complex64>, lambda: &[f64]) -> Array2<Complex64> {
    let mut g = u.clone();
    for (j, l) in lambda.iter().enumerate() {
        g.column_mut(j).mapv_inplace(|z| z * l.max(0.0).sqrt());
    }
    g
}

/// A generator `G` (`ρ = GG†/Tr`) from `ensemble` in dimension `d`.
pub fn state_generator<R: Rng + ?Sized>(
    d: usize,
    ensemble: StateEnsemble,
    rng: &mut R,
) -> Array2<Complex64> {
    match ensemble {
        StateEnsemble::HilbertSchmidt => ginibre(d, d, rng),
        StateEnsemble::Bures => {
            let mut a = haar_unitary(d, rng);
            for i in 0..d {
                a[[i, i]] += Complex64::new(1.0, 0.0);
            }
            a.dot(&ginibre(d, d, rng))
        }
        StateEnsemble::LowRank => ginibre(d, rng.random_range(1..d.max(2)), rng),
        StateEnsemble::NearlyPure => {
            let eta = log_uniform(1e-6, 1e-1, rng).sqrt();
            let mut g = ginibre(d, d, rng);
            for j in 1..d {
                g.column_mut(j).mapv_inplace(|z| z * eta);
            }
            g
        }
        StateEnsemble::NearSingular => {
            let lambda: Vec<f64> = (0..d)
                .map(|i| {
                    if i == 0 {
                        1e-9
                    } else {
                        log_uniform(1e-9, 1.0, rng)
                    }
                })
                .collect();
            spectral_generator(&haar_unitary(d, rng), &lambda)
        }
    }
}

/// A state [`Item`] from `ensemble`.
pub fn state<R: Rng + ?Sized>(d: usize, ensemble: StateEnsemble, rng: &mut R) -> Item {
    Item::state_from_generator(state_generator(d, ensemble, rng))
}

/// A probability vector of length `n` from a mixture of ensembles: flat Dirichlet, sparse (some
/// exact zeros), peaked, near-singular (entries down to 1e-12). Returns the ensemble's name.
pub fn distribution<R: Rng + ?Sized>(n: usize, rng: &mut R) -> (Vec<f64>, &'static str) {
    let (mut w, name): (Vec<f64>, _) = match rng.random_range(0..4) {
        0 => ((0..n).map(|_| rng.sample(Exp1)).collect(), "dirichlet"),
        1 => {
            let mut w: Vec<f64> = (0..n).map(|_| rng.sample(Exp1)).collect();
            let zeros = rng.random_range(1..n.max(2));
            for x in w.iter_mut().take(zeros) {
                *x = 0.0;
            }
            (w, "sparse")
        }
        2 => {
            let mut w: Vec<f64> = (0..n).map(|_| log_uniform(1e-6, 1e-1, rng)).collect();
            w[0] = 1.0;
            (w, "peaked")
        }
        _ => (
            (0..n).map(|_| log_uniform(1e-12, 1.0, rng)).collect(),
            "near-singular",
        ),
    };
    // a random order, so that zeros and peaks are not always in front
    for i in (1..n).rev() {
        w.swap(i, rng.random_range(0..=i));
    }
    let s: f64 = w.iter().sum();
    (w.iter().map(|x| x / s).collect(), name)
}

/// A likelihood-ratio profile in `[e^{−ε}, e^{ε}]`: each `u_i ∈ [−1, 1]`, half of them at ±1
/// (the extreme points, where the bounded-divergence bounds are tight).
fn bounded_ratios<R: Rng + ?Sized>(n: usize, eps: f64, rng: &mut R) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let u = if rng.random_bool(0.5) {
                if rng.random_bool(0.5) {
                    1.0
                } else {
                    -1.0
                }
            } else {
                rng.random_range(-1.0..=1.0)
            };
            (eps * u).exp()
        })
        .collect()
}

/// `ε` log-uniform in `[1e-3, 3]`.
pub fn epsilon<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    log_uniform(1e-3, 3.0, rng)
}

/// A pair of probability vectors: independent draws, or a bounded pair
/// (`p_i ∝ q_i t_i`, `t_i ∈ [e^{−ε}, e^{ε}]`), or a close pair. Returns `(p, q, ensemble)`.
pub fn distribution_pair<R: Rng + ?Sized>(n: usize, rng: &mut R) -> (Vec<f64>, Vec<f64>, String) {
    match rng.random_range(0..3) {
        0 => {
            let (p, a) = distribution(n, rng);
            let (q, b) = distribution(n, rng);
            (p, q, format!("independent({a},{b})"))
        }
        _ => {
            let (q, b) = distribution(n, rng);
            let eps = epsilon(rng);
            let t = bounded_ratios(n, eps, rng);
            let w: Vec<f64> = q.iter().zip(&t).map(|(a, b)| a * b).collect();
            let s: f64 = w.iter().sum();
            (
                w.iter().map(|x| x / s).collect(),
                q,
                format!("bounded-dmax(eps={eps:.3e},{b})"),
            )
        }
    }
}

/// A pair of state [`Item`]s `(ρ, σ)` and the ensemble's description.
pub fn state_pair<R: Rng + ?Sized>(d: usize, rng: &mut R) -> (Item, Item, String) {
    match rng.random_range(0..5) {
        0 | 1 => {
            let (a, b) = (StateEnsemble::random(rng), StateEnsemble::random(rng));
            (
                state(d, a, rng),
                state(d, b, rng),
                format!("independent({},{})", a.name(), b.name()),
            )
        }
        2 => {
            let (p, q, e) = distribution_pair(d, rng);
            let u = haar_unitary(d, rng);
            (
                Item::state_from_generator(spectral_generator(&u, &p)),
                Item::state_from_generator(spectral_generator(&u, &q)),
                format!("commuting({e})"),
            )
        }
        _ => {
            let (rho, sigma, e) = bounded_state_pair(d, rng);
            (rho, sigma, e)
        }
    }
}

/// An ill-conditioned pair for accuracy checks: `ρ = U diag(λ) U†` with `λ` log-uniform in
/// `[1/κ, 1]`, `κ = 10^{U(0, 12)}` (two eigenvalues pinned at the ends), and `σ` either
/// independent of the same kind, or nearly equal, `σ = (1 − t)ρ + tω` with `t` log-uniform in
/// `[1e-12, 1e-1]` and `ω` ill-conditioned too.
pub fn ill_conditioned_pair<R: Rng + ?Sized>(d: usize, rng: &mut R) -> (Item, Item, String) {
    let generator = |rng: &mut R| {
        let kappa = 10f64.powf(rng.random_range(0.0..12.0));
        let lambda: Vec<f64> = (0..d)
            .map(|i| match i {
                0 => 1.0 / kappa,
                1 => 1.0,
                _ => log_uniform(1.0 / kappa, 1.0, rng),
            })
            .collect();
        (spectral_generator(&haar_unitary(d, rng), &lambda), kappa)
    };
    let (gr, kr) = generator(rng);
    let (gw, kw) = generator(rng);
    if rng.random_bool(0.6) {
        let how = format!("ill-conditioned(κ={kr:.1e},{kw:.1e})");
        (
            Item::state_from_generator(gr),
            Item::state_from_generator(gw),
            how,
        )
    } else {
        let t = log_uniform(1e-12, 1e-1, rng);
        let sigma = ndarray::concatenate(
            ndarray::Axis(1),
            &[
                gr.mapv(|z| z * (1.0 - t).sqrt()).view(),
                gw.mapv(|z| z * t.sqrt()).view(),
            ],
        )
        .unwrap_or_else(|_| gr.clone());
        let how = format!("nearly-equal(κ={kr:.1e},t={t:.1e})");
        (
            Item::state_from_generator(gr),
            Item::state_from_generator(sigma),
            how,
        )
    }
}

/// A pair with `D_max(ρ‖σ), D_max(σ‖ρ) ≤ ε` up to the renormalisation: `σ` from a random ensemble
/// of full rank, `T = U diag(t) U†` with `t ∈ [e^{−ε}, e^{ε}]`, `ρ ∝ σ^{1/2} T σ^{1/2}`.
pub fn bounded_state_pair<R: Rng + ?Sized>(d: usize, rng: &mut R) -> (Item, Item, String) {
    let ens = [
        StateEnsemble::HilbertSchmidt,
        StateEnsemble::Bures,
        StateEnsemble::NearSingular,
    ][rng.random_range(0..3)];
    let gs = state_generator(d, ens, rng);
    let sigma = Item::state_from_generator(gs);
    let Item::State { matrix: s, .. } = &sigma else {
        unreachable!("state_from_generator returns a state")
    };
    let eps = epsilon(rng);
    let t = bounded_ratios(d, eps, rng);
    // σ^{1/2} via nalgebra (tiny matrices; independent of the LAPACK path of the margins)
    let sh = hermitian_sqrt(s);
    let tg = spectral_generator(&haar_unitary(d, rng), &t);
    let rho = Item::state_from_generator(sh.dot(&tg));
    (
        rho,
        sigma,
        format!("bounded-dmax(eps={eps:.3e},{})", ens.name()),
    )
}

/// `A^{1/2}` of a Hermitian PSD matrix (nalgebra eigensolver).
fn hermitian_sqrt(a: &Array2<Complex64>) -> Array2<Complex64> {
    let n = a.nrows();
    let m = nalgebra::DMatrix::from_fn(n, n, |i, j| a[[i, j]]);
    let e = m.symmetric_eigen();
    let u = Array2::from_shape_fn((n, n), |(i, j)| e.eigenvectors[(i, j)]);
    let l: Vec<f64> = e.eigenvalues.iter().map(|x| x.max(0.0)).collect();
    let g = spectral_generator(&u, &l);
    g.dot(&u.t().mapv(|z| z.conj()))
}

/// An order α in `[lo, hi]` (`hi` may be +∞, capped at `lo + 1e4`), log-scaled in the distance to
/// `lo`, with extra weight near `lo` (down to `1e-6` away), near a finite `hi`, and at large
/// values. Returned as a scalar [`Item`] that moves in `ln(α − lo)`.
pub fn alpha<R: Rng + ?Sized>(lo: f64, hi: f64, rng: &mut R) -> Item {
    let top = if hi.is_finite() { hi } else { lo + 1e4 };
    let width = top - lo;
    let x = match rng.random_range(0..5) {
        0 => lo + width * log_uniform(1e-6, 1e-2, rng), // next to lo (e.g. α → 1)
        1 if hi.is_finite() => top - width * log_uniform(1e-6, 1e-2, rng),
        1 => lo + log_uniform(10.0, 1e3, rng).min(width), // large orders
        _ => lo + log_uniform(1e-2 * width.min(10.0), width.min(10.0), rng),
    };
    let lo_in = lo + width * 1e-9;
    Item::scalar(x.clamp(lo_in, top), lo_in, top, Scale::Log { offset: lo })
}

/// A channel on `d_in` from a mixture: random Stinespring (Haar isometry, `k` Kraus operators,
/// output dimension in `2..=max_dim`), a measurement in a random basis, a two-outcome projective
/// measurement of a random subspace, a depolarizing channel, a partial trace when `d_in` factors.
pub fn channel<R: Rng + ?Sized>(d_in: usize, max_dim: usize, rng: &mut R) -> (Item, String) {
    let c = |x: f64| Complex64::new(x, 0.0);
    match rng.random_range(0..6) {
        0 | 1 => {
            let d_out = rng.random_range(2..=max_dim.max(2));
            let kmin = d_in.div_ceil(d_out);
            let k = rng.random_range(kmin..=kmin.max(d_in));
            let ch = Channel::random(d_in, d_out, k, rng);
            match ch {
                Ok(ch) => (
                    Item::channel(&ch),
                    format!("stinespring(k={k},d_out={d_out})"),
                ),
                Err(_) => measurement(d_in, rng),
            }
        }
        2 => measurement(d_in, rng),
        3 => {
            // two-outcome projective measurement {P, I − P}, classical output
            let u = haar_unitary(d_in, rng);
            let r = rng.random_range(1..d_in.max(2));
            let kraus: Vec<Array2<Complex64>> = (0..d_in)
                .map(|j| {
                    let out = usize::from(j >= r);
                    let mut k = Array2::zeros((2, d_in));
                    for i in 0..d_in {
                        k[[out, i]] = u[[i, j]].conj();
                    }
                    k
                })
                .collect();
            match Channel::new(kraus) {
                Ok(ch) => (Item::channel(&ch), format!("two-outcome(rank={r})")),
                Err(_) => measurement(d_in, rng),
            }
        }
        4 => {
            let p = rng.random::<f64>();
            match Channel::depolarizing(d_in, p) {
                Ok(ch) => (Item::channel(&ch), format!("depolarizing(p={p:.3})")),
                Err(_) => measurement(d_in, rng),
            }
        }
        _ => {
            let factor = (2..d_in).find(|f| d_in.is_multiple_of(*f));
            match factor {
                Some(a) => {
                    let b = d_in / a;
                    // Tr_B on ℂ^a ⊗ ℂ^b: K_j = I_a ⊗ ⟨j|
                    let kraus = (0..b)
                        .map(|j| {
                            let mut k = Array2::zeros((a, d_in));
                            for i in 0..a {
                                k[[i, i * b + j]] = c(1.0);
                            }
                            k
                        })
                        .collect();
                    match Channel::new(kraus) {
                        Ok(ch) => (Item::channel(&ch), format!("partial-trace({a}x{b})")),
                        Err(_) => measurement(d_in, rng),
                    }
                }
                None => measurement(d_in, rng),
            }
        }
    }
}

/// Measurement in a Haar-random basis, classical output: `K_j = |j⟩⟨u_j|`.
fn measurement<R: Rng + ?Sized>(d_in: usize, rng: &mut R) -> (Item, String) {
    let u = haar_unitary(d_in, rng);
    let kraus: Vec<Array2<Complex64>> = (0..d_in)
        .map(|j| {
            let mut k = Array2::zeros((d_in, d_in));
            for i in 0..d_in {
                k[[j, i]] = u[[i, j]].conj();
            }
            k
        })
        .collect();
    // a complete basis measurement is always trace preserving; fall back to the identity if the
    // numerical check ever disagrees (internal invariant, not user input)
    let ch = Channel::new(kraus).or_else(|_| {
        Channel::new(vec![Array2::from_diag(&Array1::from_elem(
            d_in,
            Complex64::new(1.0, 0.0),
        ))])
    });
    match ch {
        Ok(ch) => (Item::channel(&ch), "basis-measurement".into()),
        Err(_) => (
            Item::Channel {
                isometry: Array2::from_diag(&Array1::from_elem(d_in, Complex64::new(1.0, 0.0))),
                d_out: d_in,
            },
            "identity".into(),
        ),
    }
}

/// A standard normal sample (re-exported for custom statements).
pub fn normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    rng.sample(StandardNormal)
}
