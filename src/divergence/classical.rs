//! Classical divergences of probability vectors `p, q` on a finite set (natural logarithms).
//!
//! Inputs are validated by [`check_probability`]: finite, non-negative, summing to 1 within
//! `1e-10·√n`. All Rényi-type quantities go through [`super::renyi_mean`] with weights `p_i` and
//! log-likelihood ratios `L_i = ln(p_i/q_i)` (`+∞` where `q_i = 0 < p_i`); points with `p_i = 0`
//! do not contribute. These are the commuting special case of every quantum family, and the
//! quantities the classical privacy definitions (seed 000 §2, seed 004) are written in.

use super::renyi_mean;
use crate::error::{Error, Result};

pub use crate::state::validation::{check_probability, probability_tolerance};

fn check_pair(p: &[f64], q: &[f64]) -> Result<()> {
    check_probability(p)?;
    check_probability(q)?;
    if p.len() != q.len() {
        return Err(Error::DimensionMismatch {
            what: "probability vectors".into(),
            left: p.len(),
            right: q.len(),
        });
    }
    Ok(())
}

fn check_order(alpha: f64) -> Result<()> {
    crate::order::Order::new(
        alpha,
        crate::order::OrderRange::NonNegative,
        "the classical Rényi divergence",
    )
    .map(|_| ())
}

/// The weighted log-likelihood ratios `(p_i/Σp, ln p_i − ln q_i)` over `p_i > 0`.
pub(crate) fn log_ratio_terms(p: &[f64], q: &[f64]) -> Vec<(f64, f64)> {
    let s: f64 = p.iter().sum();
    p.iter()
        .zip(q)
        .filter(|(pi, _)| **pi > 0.0)
        .map(|(&pi, &qi)| {
            (
                pi / s,
                if qi > 0.0 {
                    pi.ln() - qi.ln()
                } else {
                    f64::INFINITY
                },
            )
        })
        .collect()
}

/// Rényi divergence `D_α(p‖q) = (1/(α−1)) ln Σ_i p_i^α q_i^{1−α}`, α ∈ [0, ∞]
/// (α = 1: [`kl`]; α = ∞: [`max_divergence`]; Rényi 1961, van Erven–Harremoës 2014).
pub fn renyi(p: &[f64], q: &[f64], alpha: f64) -> Result<f64> {
    check_pair(p, q)?;
    check_order(alpha)?;
    Ok(renyi_mean(&log_ratio_terms(p, q), alpha))
}

/// Rényi divergences at many orders (validation and log-ratios computed once).
pub fn renyi_curve(p: &[f64], q: &[f64], alphas: &[f64]) -> Result<Vec<f64>> {
    check_pair(p, q)?;
    alphas.iter().try_for_each(|&a| check_order(a))?;
    let terms = log_ratio_terms(p, q);
    Ok(alphas.iter().map(|&a| renyi_mean(&terms, a)).collect())
}

/// Kullback–Leibler divergence `KL(p‖q) = Σ p_i ln(p_i/q_i)` (+∞ if `p ≪ q` fails).
pub fn kl(p: &[f64], q: &[f64]) -> Result<f64> {
    renyi(p, q, 1.0)
}

/// Max divergence `D_∞(p‖q) = ln max_{p_i>0} p_i/q_i` (seed 000, eq. 2.13).
pub fn max_divergence(p: &[f64], q: &[f64]) -> Result<f64> {
    renyi(p, q, f64::INFINITY)
}

/// Total variation distance `½ Σ |p_i − q_i|`.
pub fn total_variation(p: &[f64], q: &[f64]) -> Result<f64> {
    check_pair(p, q)?;
    Ok(0.5 * p.iter().zip(q).map(|(a, b)| (a - b).abs()).sum::<f64>())
}

/// Hockey-stick divergence `E_γ(p‖q) = Σ_i (p_i − γ q_i)_+ = max_S P(S) − γ Q(S)`, γ ≥ 0.
///
/// `(ε, δ)`-DP of a pair is `E_{e^ε}(p‖q) ≤ δ` (seed 001, Lemma 1.2).
pub fn hockey_stick(p: &[f64], q: &[f64], gamma: f64) -> Result<f64> {
    check_pair(p, q)?;
    check_gamma(gamma)?;
    Ok(p.iter()
        .zip(q)
        .map(|(a, b)| (a - gamma * b).max(0.0))
        .fold(0.0, |s, x| s + x))
}

pub(crate) fn check_gamma(gamma: f64) -> Result<()> {
    if gamma >= 0.0 && gamma.is_finite() {
        Ok(())
    } else {
        Err(Error::invalid(
            "gamma",
            gamma,
            "hockey-stick parameter must be finite and ≥ 0",
        ))
    }
}

/// δ-approximate max divergence (seed 000, eq. 2.14):
/// `D_∞^δ(p‖q) = max_{S ⊆ supp p, P(S) > δ} ln((P(S) − δ)/Q(S))`, δ ∈ [0, 1).
///
/// Exact, by sorting: `D_∞^δ ≤ ε ⟺ max_S P(S) − e^ε Q(S) ≤ δ ⟺ E_{e^ε}(p‖q) ≤ δ`, and the
/// maximiser of `P(S) − e^ε Q(S)` is a superlevel set `{p_i/q_i > e^ε}` of the likelihood ratio. So
/// the optimal `S` is a prefix of the points sorted by decreasing `p_i/q_i`, and the maximum over
/// the `n` prefixes is the exact value. `O(n log n)`. Returns +∞ when some prefix has `Q(S) = 0`
/// and `P(S) > δ`, and −∞ when no `S` has `P(S) > δ`.
pub fn approx_max_divergence(p: &[f64], q: &[f64], delta: f64) -> Result<f64> {
    check_pair(p, q)?;
    if !(0.0..1.0).contains(&delta) {
        return Err(Error::invalid("delta", delta, "must lie in [0, 1)"));
    }
    // Sort by decreasing ratio p/q (q = 0 is ratio +∞). The key is computed once per point:
    // a correctly rounded quotient is monotone in the exact ratio, so sorting the keys with
    // `total_cmp` is a total order that never inverts two distinct exact ratios. (Comparing the
    // cross products p_i q_j and p_j q_i instead is not transitive once they round or underflow,
    // which made the sort panic — or return a wrong prefix — on alphabets with tiny masses.)
    let mut idx: Vec<(f64, usize)> = (0..p.len())
        .filter(|&i| p[i] > 0.0)
        .map(|i| (p[i] / q[i], i))
        .collect();
    idx.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let (mut ps, mut qs, mut best) = (0.0, 0.0, f64::NEG_INFINITY);
    for &(_, i) in &idx {
        ps += p[i];
        qs += q[i];
        if ps > delta {
            let v = if qs > 0.0 {
                (ps - delta).ln() - qs.ln()
            } else {
                f64::INFINITY
            };
            best = best.max(v);
        }
    }
    Ok(best)
}
