//! Classical smooth divergences of seed 000 (docs/smooth.md, "Classical").
//!
//! - [`smooth_renyi`] (Definition 12): `D_α^δ(P‖Q) = 1/(α−1) · ln min_{P' ∈ B_δ(P)} Σ_x P'(x)^α Q(x)^{1−α}`,
//!   α > 1, with `B_δ(P)` the probability vectors at total-variation distance `≤ δ` from `P`.
//!   Power-cone program: `min Σ s_x` with `s_x^{1/α} Q(x)^{1−1/α} ≥ P'(x)`.
//! - [`smooth_max`] (Definition 11): `D_∞^δ(P‖Q)`, which equals the trace-ball smooth
//!   max-divergence of the diagonal states (docs/smooth.md proves it), solved by
//!   [`super::max_divergence`] natively real, and cross-checked in the tests against the
//!   closed form [`crate::divergence::classical::approx_max_divergence`].

use super::conic::Program;
use super::{down, up, Ball, Bracket, U};
use crate::divergence::classical::{check_probability, renyi};
use crate::state::DensityMatrix;
use crate::{Error, Result};

/// Most outcomes a classical smooth divergence takes: [`smooth_max`] solves the trace-ball problem
/// of the `n × n` diagonal states (two complex matrices of `16 n²` bytes, eigensolves of `O(n³)`),
/// [`smooth_renyi`] a conic program with one power cone per outcome. 4096 outcomes are 256 MiB per
/// matrix; `n = 10⁷` asked for petabytes and aborted the process.
pub const MAX_OUTCOMES: usize = 1 << 12;

/// [`MAX_OUTCOMES`], checked before anything of size `n` is built.
fn check_outcomes(n: usize) -> Result<()> {
    if n <= MAX_OUTCOMES {
        return Ok(());
    }
    Err(Error::invalid(
        "number of outcomes",
        n as f64,
        format!(
            "a classical smooth divergence takes at most {MAX_OUTCOMES} outcomes ({} over; it \
             solves a problem on n × n matrices or n power cones)",
            n - MAX_OUTCOMES
        ),
    ))
}

/// Seed 000 Definition 12 for α > 1 and δ ∈ [0, 1), as a certified bracket (natural log).
///
/// Upper end: the solver's `P'` clipped to `≥ 0`, renormalised and mixed towards `P` until
/// `TV(P', P) ≤ δ`, evaluated by [`crate::divergence::classical::renyi`]. Lower end: the Lagrange
/// dual `g(λ, κ) = λ − 2δκ + Σ_x min_{y ≥ 0} [y^α Q(x)^{1−α} − λy + κ|y − P(x)|]`, valid for every
/// real λ and κ ≥ 0, each inner minimum in closed form (a convex function on two intervals).
///
/// `+∞` (all three ends) when every `P'` of the ball has mass where `Q = 0`: `P(Q = 0) > δ`
/// (with a rounding margin; exact otherwise, docs/smooth.md, "Certified +∞").
///
/// Errors: [`Error::AlphaOutOfRange`] (α ≤ 1 or not finite: the program is not convex for α < 1),
/// [`Error::InvalidParameter`] (δ; more than [`MAX_OUTCOMES`] outcomes), probability-vector errors, [`Error::SmoothNotCertified`].
pub fn smooth_renyi(p: &[f64], q: &[f64], alpha: f64, delta: f64) -> Result<Bracket> {
    check_outcomes(p.len().max(q.len()))?;
    check_probability(p)?;
    check_probability(q)?;
    if p.len() != q.len() {
        return Err(Error::DimensionMismatch {
            what: "P and Q".into(),
            left: p.len(),
            right: q.len(),
        });
    }
    if !(alpha > 1.0 && alpha.is_finite()) {
        return Err(Error::AlphaOutOfRange {
            alpha,
            expected: "α ∈ (1, ∞) (Definition 12 is a convex program only there)".into(),
        });
    }
    super::check_epsilon("delta", delta, true)?;
    let n = p.len();
    // Every P' of the ball puts mass on `{Q = 0}` iff P(Q = 0) > δ (docs/smooth.md, "Certified
    // +∞"): then every term `P'(x)^α Q(x)^{1−α}` with `P'(x) > 0 = Q(x)` is +∞. The sums carry a
    // relative `nu` each; `|Σ P − 1|` covers a probability vector normalised within tolerance.
    let outside: f64 = p
        .iter()
        .zip(q)
        .filter(|(_, &qx)| qx == 0.0)
        .map(|(&px, _)| px)
        .sum();
    let total: f64 = p.iter().sum();
    let margin = 4.0 * n as f64 * U + (total - 1.0).abs();
    if outside > up(delta) + margin {
        return super::infinite("classical smooth Rényi divergence");
    }
    let mut prog = Program::new(true);
    let pp: Vec<usize> = (0..n).map(|_| prog.scalar()).collect();
    let ss: Vec<usize> = (0..n).map(|_| prog.scalar()).collect();
    let uu: Vec<usize> = (0..n).map(|_| prog.scalar()).collect();
    prog.objective(&ss.iter().map(|&k| (k, 1.0)).collect::<Vec<_>>());
    let eq = prog.linear(vec![(-1.0, pp.iter().map(|&k| (k, 1.0)).collect())], true);
    let mut rows = Vec::with_capacity(3 * n + 1);
    for x in 0..n {
        rows.push((0.0, vec![(pp[x], 1.0)]));
        rows.push((p[x], vec![(uu[x], 1.0), (pp[x], -1.0)]));
        rows.push((-p[x], vec![(uu[x], 1.0), (pp[x], 1.0)]));
    }
    rows.push((2.0 * delta, uu.iter().map(|&k| (k, -1.0)).collect()));
    let tv = prog.linear(rows, false);
    for x in 0..n {
        prog.power(
            1.0 / alpha,
            [
                (0.0, vec![(ss[x], 1.0)]),
                (q[x], vec![]),
                (0.0, vec![(pp[x], 1.0)]),
            ],
        );
    }
    let sol = prog.solve("classical smooth Rényi divergence")?;

    // upper: repaired primal point
    let mut pr: Vec<f64> = pp.iter().map(|&k| sol.x[k].max(0.0)).collect();
    for (x, v) in pr.iter_mut().enumerate() {
        if q[x] == 0.0 {
            *v = 0.0;
        }
    }
    let total: f64 = pr.iter().sum();
    if total <= 0.0 {
        return Err(Error::SmoothNotCertified {
            what: "classical smooth Rényi divergence".into(),
            width: f64::INFINITY,
            reason: "solver returned a zero vector".into(),
        });
    }
    pr.iter_mut().for_each(|v| *v /= total);
    let dist =
        up(0.5 * pr.iter().zip(p).map(|(a, b)| (a - b).abs()).sum::<f64>() + 4.0 * n as f64 * U);
    if dist > delta {
        let s = up(1.0 - delta / dist + 1e-12).min(1.0);
        pr.iter_mut()
            .zip(p)
            .for_each(|(a, b)| *a = (1.0 - s) * *a + s * b);
    }
    let upper = up(renyi(&pr, q, alpha)? * (1.0 + 64.0 * n as f64 * U) + 64.0 * n as f64 * U);

    // lower: Lagrange dual at the solver's multipliers (both sign conventions are valid points)
    let z_eq = sol.z[eq][0];
    let kappa = sol.z[tv][3 * n].max(0.0);
    let g = [z_eq, -z_eq]
        .iter()
        .map(|&lam| dual_value(p, q, alpha, delta, lam, kappa))
        .fold(f64::NEG_INFINITY, f64::max);
    let lower = if g > 0.0 {
        down(g.ln() / (alpha - 1.0))
    } else {
        f64::NEG_INFINITY
    };
    let obj: f64 = ss.iter().map(|&k| sol.x[k]).sum();
    Bracket::certified(
        "classical smooth Rényi divergence",
        lower,
        upper,
        obj.ln() / (alpha - 1.0),
    )
}

/// `g(λ, κ)` rounded down: `λ − 2δκ + Σ_x min_{y ≥ 0} h_x(y)`,
/// `h_x(y) = y^α Q(x)^{1−α} − λy + κ|y − P(x)|` (`Q(x) = 0`: only `y = 0`).
fn dual_value(p: &[f64], q: &[f64], alpha: f64, delta: f64, lam: f64, kappa: f64) -> f64 {
    let mut sum = 0.0;
    let mut mag = lam.abs() + 2.0 * delta * kappa;
    for (&px, &qx) in p.iter().zip(q) {
        let m = if qx == 0.0 {
            kappa * px
        } else {
            let h =
                |y: f64| y.powf(alpha) * qx.powf(1.0 - alpha) - lam * y + kappa * (y - px).abs();
            // stationary point of y^α q^{1−α} − c·y: y = q (c/α)^{1/(α−1)} for c > 0
            let stat = |c: f64| {
                if c > 0.0 {
                    qx * (c / alpha).powf(1.0 / (alpha - 1.0))
                } else {
                    0.0
                }
            };
            let left = stat(lam + kappa).min(px);
            let right = stat(lam - kappa).max(px);
            h(left).min(h(right)).min(h(px)).min(h(0.0))
        };
        mag += m.abs() + lam.abs() * px + kappa * px;
        sum += m;
    }
    // each term carries a few libm/arith roundings: allow 16u relative per term plus the sum
    down(lam - 2.0 * delta * kappa + sum - 32.0 * (p.len() as f64 + 1.0) * U * mag)
}

/// Seed 000 Definition 11: `D_∞^δ(P‖Q) = max_{S : P(S) > δ} ln((P(S) − δ)/Q(S))`, δ ∈ (0, 1), as the
/// trace-ball smooth max-divergence of `diag(P)` and `diag(Q)` (Q must have full support).
pub fn smooth_max(p: &[f64], q: &[f64], delta: f64) -> Result<Bracket> {
    check_outcomes(p.len().max(q.len()))?;
    let rho = DensityMatrix::diagonal(p)?;
    let sigma = DensityMatrix::diagonal(q)?;
    super::max_divergence(&rho, &sigma, delta, Ball::Trace)
}
