//! Smooth divergences by conic programming, with certified brackets (docs/smooth.md).
//!
//! - [`hypothesis_testing`]: `D_H^ε(ρ‖σ) = −ln min{Tr Qσ : 0 ⪯ Q ⪯ I, Tr Qρ ≥ 1 − ε}`.
//! - [`max_divergence`]: `D_max^ε(ρ‖σ) = min{D_max(ρ̃‖σ) : ρ̃ ⪰ 0, Tr ρ̃ ≤ 1, ρ̃ ∈ B^ε(ρ)}` with the
//!   purified-distance ball ([`Ball::Purified`], `P(ρ̃, ρ) = √(1 − F̄(ρ̃, ρ)²) ≤ ε`, generalised
//!   fidelity, Tomamichel 2015 §3.2) or the generalised trace-distance ball ([`Ball::Trace`],
//!   `Tr(ρ − ρ̃)_+ ≤ ε`, which for `Tr ρ = 1 ≥ Tr ρ̃` equals `½‖ρ̃ − ρ‖₁ + ½(1 − Tr ρ̃)`).
//! - [`classical::smooth_renyi`]: seed 000 Definition 12, a power-cone program, and
//!   [`classical::smooth_max`]: seed 000 Definition 11 (`D_∞^δ`) as a linear program.
//!
//! Every function returns a [`Bracket`] `lower ≤ value ≤ upper`: `upper` is the objective at a
//! primal point that was *repaired* to satisfy every constraint (eigenvalues clipped, then mixed
//! towards a strictly feasible point) and evaluated by the core's own divergence code; `lower` is
//! the dual objective at a dual point repaired to dual feasibility and evaluated in closed form.
//! Weak duality makes `[lower, upper]` contain the exact value up to the rounding slack added
//! outward at each step (docs/smooth.md, "Rounding"). When the bracket is wider than
//! [`TARGET_WIDTH`]`·max(1, |value|)` the call fails with [`Error::SmoothNotCertified`], reporting
//! the width reached.

pub mod classical;
mod conic;
mod hypothesis;
mod max;

pub use hypothesis::hypothesis_testing;
pub use max::max_divergence;

use ndarray::{Array1, Array2};
use num_complex::Complex64;

use crate::spectral::{Backend, EigenSolver};
use crate::state::DensityMatrix;
use crate::{Error, Result};

/// Required relative width of a certified bracket: `upper − lower ≤ TARGET_WIDTH · max(1, |value|)`.
pub const TARGET_WIDTH: f64 = 1e-6;

/// Unit roundoff of `f64`.
const U: f64 = f64::EPSILON / 2.0;

/// A certified enclosure of a smooth divergence (natural log).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Bracket {
    /// The solver's value, clamped into `[lower, upper]`.
    pub value: f64,
    /// Certified lower bound (from a repaired dual point).
    pub lower: f64,
    /// Certified upper bound (from a repaired primal point).
    pub upper: f64,
}

impl Bracket {
    /// `upper − lower`.
    pub fn width(&self) -> f64 {
        self.upper - self.lower
    }

    /// Form the bracket and check it against [`TARGET_WIDTH`]; `value` is clamped inside.
    fn certified(what: &str, lower: f64, upper: f64, value: f64) -> Result<Self> {
        let value = if value.is_nan() {
            0.5 * (lower + upper)
        } else {
            value.clamp(lower.min(upper), upper)
        };
        let width = upper - lower;
        let ok = width.is_finite() && width >= 0.0 && width <= TARGET_WIDTH * value.abs().max(1.0);
        let exact_infinite = lower == f64::INFINITY && upper == f64::INFINITY;
        if ok || exact_infinite {
            return Ok(Bracket {
                value,
                lower,
                upper,
            });
        }
        Err(Error::SmoothNotCertified {
            what: what.to_string(),
            width: if width.is_nan() { f64::INFINITY } else { width },
            reason: if width < 0.0 {
                format!("lower {lower} exceeds upper {upper}")
            } else {
                format!("target {TARGET_WIDTH:.0e}·max(1, |value|) with value {value:.6e}")
            },
        })
    }
}

/// Which smoothing ball [`max_divergence`] minimises over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ball {
    /// Purified distance `P(ρ̃, ρ) = √(1 − F̄²) ≤ ε` (generalised fidelity; Tomamichel's convention).
    Purified,
    /// Generalised trace distance `Tr(ρ − ρ̃)_+ ≤ ε`, subnormalised `ρ̃` (`Tr ρ̃ ≤ 1`).
    Trace,
    /// `Tr(ρ − ρ̃)_+ ≤ ε` with `ρ̃ ⪰ 0` of any trace: the variant for which
    /// `D_max^δ(ρ‖σ) ≤ ε ⟺ E_{e^ε}(ρ‖σ) ≤ δ` holds exactly (docs/smooth.md; with `Tr ρ̃ ≤ 1` only
    /// `⇒` holds quantumly — the engine's `dp-trace-ball-exact` counterexample).
    TraceUnbounded,
}

impl Ball {
    /// CLI name: `purified` or `trace`.
    pub fn name(self) -> &'static str {
        match self {
            Ball::Purified => "purified",
            Ball::Trace => "trace",
            Ball::TraceUnbounded => "trace-unbounded",
        }
    }
}

impl std::str::FromStr for Ball {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "purified" => Ok(Ball::Purified),
            "trace" => Ok(Ball::Trace),
            "trace-unbounded" => Ok(Ball::TraceUnbounded),
            _ => Err(Error::Parse {
                what: "ball".into(),
                reason: format!("unknown ball {s:?} (expected purified, trace or trace-unbounded)"),
            }),
        }
    }
}

/// Check `ε ∈ [lo, 1)` (finite).
fn check_epsilon(name: &str, eps: f64, allow_zero: bool) -> Result<()> {
    let ok = eps.is_finite() && eps < 1.0 && (eps > 0.0 || (allow_zero && eps == 0.0));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(
            name,
            eps,
            if allow_zero {
                "must lie in [0, 1)"
            } else {
                "must lie in (0, 1)"
            },
        ))
    }
}

fn check_pair(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<()> {
    if rho.dim() != sigma.dim() {
        return Err(Error::DimensionMismatch {
            what: "ρ and σ".into(),
            left: rho.dim(),
            right: sigma.dim(),
        });
    }
    Ok(())
}

/// Whether every entry is real (then the programs are solved natively real).
fn is_real(a: &Array2<Complex64>) -> bool {
    a.iter().all(|z| z.im == 0.0)
}

/// Hermitian part `(A + A†)/2`.
fn hermitian_part(a: &Array2<Complex64>) -> Array2<Complex64> {
    Array2::from_shape_fn(a.dim(), |(i, j)| 0.5 * (a[[i, j]] + a[[j, i]].conj()))
}

/// Eigendecomposition of the Hermitian part of `a` (ascending).
fn eigh(a: &Array2<Complex64>) -> Result<(Array1<f64>, Array2<Complex64>)> {
    Backend::default().eigh(hermitian_part(a).view())
}

/// `V diag(λ) V†`.
fn recompose(v: &Array2<Complex64>, lambda: &[f64]) -> Array2<Complex64> {
    let d = v.nrows();
    Array2::from_shape_fn((d, d), |(i, j)| {
        (0..lambda.len()).fold(Complex64::new(0.0, 0.0), |s, k| {
            s + v[[i, k]] * v[[j, k]].conj() * lambda[k]
        })
    })
}

/// `Re Tr(AB) = Σ_ij Re(A_ij B_ji)` (`A` is `m × n`, `B` is `n × m`).
fn trace_product(a: &Array2<Complex64>, b: &Array2<Complex64>) -> f64 {
    let (m, n) = a.dim();
    let mut s = 0.0;
    for i in 0..m {
        for j in 0..n {
            s += (a[[i, j]] * b[[j, i]]).re;
        }
    }
    s
}

/// A rounding allowance for an eigen- or trace-computation on `d × d` data of size `scale`:
/// `16·d·u·scale` (a bound on the backward error of the Householder-based eigensolvers and on the
/// accumulated error of a `d²`-term inner product, with a safety factor; docs/smooth.md).
fn slack(d: usize, scale: f64) -> f64 {
    16.0 * d as f64 * U * scale.abs() + f64::MIN_POSITIVE
}

/// `x` moved outward by a relative `4u` (covers one correctly rounded or libm operation).
fn up(x: f64) -> f64 {
    x + 4.0 * U * x.abs() + f64::MIN_POSITIVE
}

fn down(x: f64) -> f64 {
    x - 4.0 * U * x.abs() - f64::MIN_POSITIVE
}

/// Bisection for the boundary of a monotone predicate: given `pred(lo)` true and `pred(hi)` false
/// (`0 ≤ lo < hi`), returns `(lo, hi)` with the same property and `hi − lo ≤ 4u·hi` (or after 200
/// halvings). Halves geometrically while `hi > 4·lo > 0`, arithmetically otherwise.
fn bisect(
    pred: &mut dyn FnMut(f64) -> Result<bool>,
    mut lo: f64,
    mut hi: f64,
) -> Result<(f64, f64)> {
    for _ in 0..200 {
        if hi - lo <= 4.0 * U * hi {
            break;
        }
        let mid = if lo > 0.0 && hi > 4.0 * lo {
            (lo * hi).sqrt()
        } else {
            0.5 * (lo + hi)
        };
        if pred(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok((lo, hi))
}

/// `⟨v_k|A|v_k⟩` for column `k` of `v`.
fn quadratic_form(a: &Array2<Complex64>, v: &Array2<Complex64>, k: usize) -> f64 {
    let col = v.column(k);
    let d = a.nrows();
    let mut acc = Complex64::new(0.0, 0.0);
    for i in 0..d {
        for j in 0..d {
            acc += col[i].conj() * a[[i, j]] * col[j];
        }
    }
    acc.re
}

/// `V† A V`.
fn conjugate(a: &Array2<Complex64>, v: &Array2<Complex64>) -> Array2<Complex64> {
    v.t().mapv(|z| z.conj()).dot(&a.dot(v))
}

/// Spectral norm bound: the largest absolute eigenvalue ≤ Frobenius norm.
fn frobenius(a: &Array2<Complex64>) -> f64 {
    a.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
}

/// `ρ̃ = c·ρ̂` with `ρ̂` a validated density matrix (`c = Tr ρ̃ > 0`), `ρ̃` PSD Hermitian.
fn normalised(a: &Array2<Complex64>) -> Result<(f64, DensityMatrix)> {
    let c: f64 = (0..a.nrows()).map(|i| a[[i, i]].re).sum();
    if c.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Err(Error::SmoothNotCertified {
            what: "primal repair".into(),
            width: f64::INFINITY,
            reason: "repaired point has zero trace".into(),
        });
    }
    Ok((c, DensityMatrix::new(a.mapv(|z| z / c))?))
}

/// `ρ`'s weight on `σ`'s support and kernel, decided by the project's zero threshold
/// (docs/conventions.md, "Zero threshold and supports"), with a rounding margin:
/// `(Tr Π_{supp σ} ρ, Tr Π_{ker σ} ρ, margin)`, `margin` including `|Tr ρ − 1|` (the smooth
/// programs take ρ as normalised; validation allows a trace error within tolerance). Each weight is summed over its own eigenvectors
/// (so a weight near 0 is accurate near 0); `margin` bounds their error: the quadratic forms'
/// rounding plus twice the Davis–Kahan angle `slack(d, λ_max σ) / (λ_min⁺ σ − τ)` by which a
/// backward-stable eigensolver may rotate `supp σ` (docs/smooth.md, "Certified +∞"). `+∞` when
/// the support is undecidable (an eigenvalue too close to the threshold).
fn support_weights(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<(f64, f64, f64)> {
    let d = rho.dim();
    let e = sigma.eigen()?;
    let (r, v) = (rho.matrix(), e.vectors());
    let (mut on, mut off) = (0.0, 0.0);
    let mut min_support = f64::INFINITY;
    for k in 0..d {
        let w = quadratic_form(r, v, k).max(0.0);
        if e.values()[k] > e.threshold() {
            on += w;
            min_support = min_support.min(e.values()[k]);
        } else {
            off += w;
        }
    }
    let gap = min_support - e.threshold();
    let rotation = if gap.is_finite() && gap > 0.0 {
        2.0 * slack(d, e.max_value()) / gap
    } else if min_support == f64::INFINITY {
        0.0 // σ has no support (not a state); nothing rotates
    } else {
        f64::INFINITY
    };
    let trace: f64 = (0..d).map(|i| r[[i, i]].re).sum();
    Ok((on, off, slack(d, d as f64) + rotation + (trace - 1.0).abs()))
}

/// The exact `+∞` bracket (docs/smooth.md, "Certified +∞").
fn infinite(what: &str) -> Result<Bracket> {
    Bracket::certified(what, f64::INFINITY, f64::INFINITY, f64::INFINITY)
}
