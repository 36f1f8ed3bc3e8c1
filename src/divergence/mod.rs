//! Rényi divergences, relative entropies, max- and hockey-stick divergences (natural logarithms).
//!
//! * [`classical`]: probability vectors.
//! * [`Pair`]: a pair of density matrices with every α-independent step cached, so that an α-curve
//!   ([`Pair::curve`]) costs one set of decompositions plus the per-α work below.
//! * [`Family`]: the three quantum Rényi families, for code that is generic over them.
//! * [`batch`]: many pairs at once, in parallel (rayon across small pairs).
//!
//! Conventions (written once in `docs/conventions.md`): for unnormalised arguments
//! `D_α(ρ‖σ) = (1/(α−1)) ln(Q_α(ρ‖σ)/Tr ρ)`; +∞ when `supp ρ ⊄ supp σ` for α > 1 (and for the
//! relative entropies and `D_max`); for α < 1, +∞ only when `Q_α = 0`; α = 1 is the limit
//! (Umegaki for Petz and sandwiched, Belavkin–Staszewski for maximal); α = ∞ is the limit
//! (`D_max` for sandwiched and maximal).
//!
//! Every divergence value is reduced to a *Rényi mean* of log-likelihood ratios
//! `R_α(w, L) = (1/(α−1)) ln Σ_i w_i e^{(α−1) L_i}` (`Σ w_i = 1`), evaluated by [`renyi_mean`]
//! without cancellation near α = 1 and without overflow at large α.

pub mod accuracy;
pub mod batch;
pub mod classical;
mod device;
pub mod difference;
#[doc(hidden)]
pub mod exp_lanes;
pub mod fidelity;
pub mod from_matrices;
pub mod order_two;
mod petz;
mod quantum;
pub mod small;
pub mod whitened;

pub use device::sandwiched_from_matrices;
pub use difference::{difference_from_matrices, Difference};
pub use from_matrices::{sandwiched_from_raw, states_from_matrices, with_large_policy, Check};
pub use quantum::{hockey_stick, Pair};

use crate::error::{Error, Result};
use crate::order::{Order, OrderRange};
use crate::state::DensityMatrix;

/// The quantum Rényi families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Petz: `D̄_α = (1/(α−1)) ln Tr ρ^α σ^{1−α}`, α ∈ [0, ∞]; data processing for α ∈ [0, 2].
    Petz,
    /// Sandwiched (Müller-Lennert et al., Wilde–Winter–Yang 2014):
    /// `D̃_α = (1/(α−1)) ln Tr (σ^{(1−α)/2α} ρ σ^{(1−α)/2α})^α`, α ∈ (0, ∞]; data processing for α ≥ ½.
    Sandwiched,
    /// Maximal / geometric (Matsumoto 2018, "A new quantum version of f-divergence"; seed 000
    /// Def. 20):
    /// `D̂_α = (1/(α−1)) ln Tr σ^{1/2} (σ^{−1/2} ρ σ^{−1/2})^α σ^{1/2}`, α ∈ (0, ∞]; data processing
    /// for α ∈ (0, 2].
    Maximal,
}

impl Family {
    /// All three families.
    pub const ALL: [Family; 3] = [Family::Petz, Family::Sandwiched, Family::Maximal];

    /// Lowercase name used by the CLI (`petz`, `sandwiched`, `maximal`).
    pub fn name(self) -> &'static str {
        match self {
            Family::Petz => "petz",
            Family::Sandwiched => "sandwiched",
            Family::Maximal => "maximal",
        }
    }

    /// Smallest admissible order (the family is defined on `[min, ∞]`, or `(min, ∞]` when the
    /// bound is excluded, see [`Family::check_alpha`]).
    pub fn min_alpha(self) -> f64 {
        0.0
    }

    /// Orders on which the family satisfies data processing under all channels:
    /// Petz `[0, 2]`, sandwiched `[½, ∞]`, maximal `(0, 2]`.
    pub fn data_processing_range(self) -> (f64, f64) {
        match self {
            Family::Petz => (0.0, 2.0),
            Family::Sandwiched => (0.5, f64::INFINITY),
            Family::Maximal => (0.0, 2.0),
        }
    }

    /// Validate an order: not NaN; Petz accepts `α ∈ [0, ∞]`, sandwiched and maximal `α ∈ (0, ∞]`.
    pub fn check_alpha(self, alpha: f64) -> Result<()> {
        let range = match self {
            Family::Petz => OrderRange::NonNegative,
            _ => OrderRange::Positive,
        };
        Order::new(alpha, range, self.name()).map(|_| ())
    }

    /// `D_α(ρ‖σ)` of this family (one-shot; use [`Pair`] to reuse decompositions across calls).
    pub fn divergence(self, rho: &DensityMatrix, sigma: &DensityMatrix, alpha: f64) -> Result<f64> {
        Pair::new(rho, sigma)?.renyi(self, alpha)
    }
}

impl std::str::FromStr for Family {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "petz" => Ok(Family::Petz),
            "sandwiched" => Ok(Family::Sandwiched),
            "maximal" | "geometric" => Ok(Family::Maximal),
            other => Err(Error::Parse {
                what: "family".into(),
                reason: format!("unknown family {other:?} (expected petz, sandwiched or maximal)"),
            }),
        }
    }
}

/// Petz–Rényi divergence `D̄_α(ρ‖σ)`, α ∈ [0, ∞].
pub fn petz(rho: &DensityMatrix, sigma: &DensityMatrix, alpha: f64) -> Result<f64> {
    Family::Petz.divergence(rho, sigma, alpha)
}
/// Sandwiched Rényi divergence `D̃_α(ρ‖σ)`, α ∈ (0, ∞].
pub fn sandwiched(rho: &DensityMatrix, sigma: &DensityMatrix, alpha: f64) -> Result<f64> {
    Family::Sandwiched.divergence(rho, sigma, alpha)
}
/// Maximal (geometric) Rényi divergence `D̂_α(ρ‖σ)`, α ∈ (0, ∞].
pub fn maximal(rho: &DensityMatrix, sigma: &DensityMatrix, alpha: f64) -> Result<f64> {
    Family::Maximal.divergence(rho, sigma, alpha)
}
/// Umegaki relative entropy `D(ρ‖σ) = Tr ρ (ln ρ − ln σ)`.
pub fn umegaki(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<f64> {
    Pair::new(rho, sigma)?.umegaki()
}
/// Belavkin–Staszewski relative entropy `D_BS(ρ‖σ) = Tr ρ ln(ρ^{1/2} σ^{−1} ρ^{1/2})`.
pub fn belavkin_staszewski(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<f64> {
    Pair::new(rho, sigma)?.belavkin_staszewski()
}
/// Max-relative entropy `D_max(ρ‖σ) = ln inf{λ : ρ ≤ λ σ}`.
pub fn max_relative_entropy(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<f64> {
    Pair::new(rho, sigma)?.max_relative_entropy()
}
/// Trace distance `½ ‖ρ − σ‖₁`.
pub fn trace_distance(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<f64> {
    Pair::new(rho, sigma)?.trace_distance()
}
/// Root fidelity `F(ρ, σ) = ‖√ρ √σ‖₁ = Tr |√ρ √σ|` (Nielsen–Chuang; `F = exp(−D̃_½/2)` for states).
pub fn fidelity(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<f64> {
    Pair::new(rho, sigma)?.fidelity()
}
/// Squared fidelity `F(ρ, σ)² = (Tr |√ρ √σ|)² = exp(−D̃_½(ρ‖σ))` for states.
pub fn squared_fidelity(rho: &DensityMatrix, sigma: &DensityMatrix) -> Result<f64> {
    Pair::new(rho, sigma)?.squared_fidelity()
}

/// The Rényi mean `R_α(w, L) = (1/(α−1)) ln Σ_i w_i e^{(α−1) L_i}` of values `L_i ∈ ℝ ∪ {+∞}`
/// under weights `w_i ≥ 0` summing to one; `R_1 = Σ w_i L_i`, `R_∞ = max_{w_i>0} L_i`.
///
/// With `w_i = p_i/Σp` and `L_i = ln(p_i/q_i)` this is the classical Rényi divergence
/// `D_α(p‖q)` (terms with `p_i = 0` are omitted by the caller; `q_i = 0` is `L_i = +∞`).
/// Conventions: for α > 1 (and α = 1, ∞) any `L_i = +∞` with `w_i > 0` gives +∞; for α < 1 such
/// terms contribute `e^{−∞} = 0`, and the result is +∞ when every term does.
///
/// Accuracy: near α = 1 the sum is evaluated as `log1p(Σ w_i expm1((α−1)L_i))`, which has small
/// *relative* error in `ln Q` (so `D_α` keeps full relative accuracy as α → 1, where `ln Q → 0`);
/// otherwise as `m + (1/(α−1)) ln Σ w_i e^{(α−1)(L_i − m)}` with `m` the dominant `L_i`, which
/// cannot overflow for any finite α. Cost `O(n)`.
pub fn renyi_mean(terms: &[(f64, f64)], alpha: f64) -> f64 {
    let live = || terms.iter().filter(|(w, _)| *w > 0.0);
    let any_inf = live().any(|(_, l)| *l == f64::INFINITY);
    if alpha == 1.0 {
        return if any_inf {
            f64::INFINITY
        } else {
            live().map(|(w, l)| w * l).sum()
        };
    }
    if alpha == f64::INFINITY {
        return live().map(|(_, l)| *l).fold(f64::NEG_INFINITY, f64::max);
    }
    let t = alpha - 1.0;
    if t > 0.0 && any_inf {
        return f64::INFINITY;
    }
    let near: f64 = live().map(|(w, l)| w * (t * l).exp_m1()).sum();
    if near.is_finite() && near.abs() <= 0.5 {
        return near.ln_1p() / t;
    }
    let finite = || live().filter(|(_, l)| l.is_finite());
    let m = if t > 0.0 {
        finite().map(|(_, l)| *l).fold(f64::NEG_INFINITY, f64::max)
    } else {
        finite().map(|(_, l)| *l).fold(f64::INFINITY, f64::min)
    };
    if !m.is_finite() {
        // no finite term: every weight sits at L = +∞ (α < 1), so Q = 0 and D = +∞
        return f64::INFINITY;
    }
    let s: f64 = finite().map(|(w, l)| w * (t * (l - m)).exp()).sum();
    m + s.ln() / t
}
