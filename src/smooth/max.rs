//! Smooth max-divergence `D_max^ε` over the purified-distance or trace-distance ball
//! (docs/smooth.md, "Smooth max-divergence").
//!
//! Primal (both balls): `min t` s.t. `tσ − ρ̃ ⪰ 0`, `Tr ρ̃ ≤ 1`, `ρ̃ ∈ B^ε(ρ)`; the value is `ln t`.
//! - Purified: `[[ρ̃, X], [X†, ρ]] ⪰ 0`, `Re Tr X ≥ f := √(1 − ε²)` (Watrous' SDP for the root
//!   fidelity `‖√ρ̃ √ρ‖₁ ≥ f`). Dual bound, for any `Y ⪰ 0`, `ν > 0`, `W = Y + νI`:
//!   `t ≥ (f² / Tr(ρW⁻¹) − ν) / Tr(Yσ)`.
//! - Trace: `P ⪰ 0`, `P ⪰ ρ − ρ̃`, `Tr P ≤ ε`, `ρ̃ ⪰ 0`. Dual bound, for any `Y ⪰ 0`,
//!   `0 ⪯ V ⪯ κI`, `V ⪯ Y + νI`: `t ≥ (Tr Vρ − κε − ν) / Tr(Yσ)`.

use ndarray::Array2;
use num_complex::Complex64;

use super::conic::{HermExpr, Program};
use super::{
    check_epsilon, check_pair, down, eigh, frobenius, is_real, normalised, recompose, slack,
    trace_product, up, Ball, Bracket,
};
use crate::divergence::{Family, Pair};
use crate::state::DensityMatrix;
use crate::{Error, Result};

/// Relative shrink of the ball the solver sees (see [`max_divergence`]).
const SHRINK: f64 = 1e-8;

/// `D_max^ε(ρ‖σ)` over `ball`, ε ∈ (0, 1), as a certified bracket (natural log).
///
/// The certified upper end evaluates `D_max(ρ̃‖σ)` at a repaired primal point with the core's
/// [`Pair::max_relative_entropy`]; it needs `σ` of full rank (otherwise mixing the repaired point
/// towards ρ may leave `supp σ`), and fails with [`Error::SmoothNotCertified`] when it is not.
///
/// Errors: [`Error::InvalidParameter`] (ε), [`Error::DimensionMismatch`],
/// [`Error::SmoothNotCertified`] (bracket wider than [`super::TARGET_WIDTH`]`·max(1, |value|)`).
pub fn max_divergence(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
    ball: Ball,
) -> Result<Bracket> {
    check_epsilon("epsilon", eps, false)?;
    check_pair(rho, sigma)?;
    let what = match ball {
        Ball::Purified => "smooth max-divergence (purified ball)",
        Ball::Trace => "smooth max-divergence (trace ball)",
        Ball::TraceUnbounded => "smooth max-divergence (trace ball, unbounded trace)",
    };
    // Scale σ by t₀ = exp D_max(ρ‖σ) (≥ the optimum) so that the solver's t' = t/t₀ is O(1); when
    // that solve does not certify, solve unscaled too and intersect the two certified brackets.
    let t0 = match Pair::new(rho, sigma)?.max_relative_entropy()? {
        x if x.is_finite() => x.exp(),
        _ => 1.0,
    };
    let (mut lower, mut upper, value) = solve_once(rho, sigma, eps, ball, t0)?;
    if Bracket::certified(what, lower, upper, value).is_err() && t0 != 1.0 {
        if let Ok((l, u, _)) = solve_once(rho, sigma, eps, ball, 1.0) {
            lower = lower.max(l);
            upper = upper.min(u);
        }
    }
    Bracket::certified(what, lower, upper, value)
}

/// One solve with σ scaled by `t0`: `(lower, upper, value)`, the bounds certified.
fn solve_once(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
    ball: Ball,
    t0: f64,
) -> Result<(f64, f64, f64)> {
    let d = rho.dim();
    let (r, s) = (rho.matrix(), sigma.matrix());
    let real = is_real(r) && is_real(s);
    let id = Array2::<Complex64>::eye(d);
    let what = "smooth max-divergence";
    let eps_in = eps * (1.0 - SHRINK);
    let mut prog = Program::new(real);
    let t = prog.scalar();
    let rt = prog.herm(d);
    prog.objective(&[(t, 1.0)]);
    let cone_y = prog.psd(HermExpr::new(d).scalar(t, s, t0).herm(rt, -1.0, 0));
    let tr_rt: Vec<(usize, f64)> = rt.trace_with(&id, -1.0);
    // `1 − Tr ρ̃ ≥ 0` (absent for the unbounded ball, where ν = 0)
    let bounded = ball != Ball::TraceUnbounded;
    let trace_row = |first: (f64, Vec<(usize, f64)>)| {
        if bounded {
            vec![first, (1.0, tr_rt.clone())]
        } else {
            vec![first]
        }
    };
    let (lin, cone_v);
    match ball {
        Ball::Purified => {
            let x = prog.general(d);
            prog.psd(
                HermExpr::new(2 * d)
                    .herm(rt, 1.0, 0)
                    .offdiag(x, 1.0, d)
                    .constant(r, 1.0, d),
            );
            let f = (1.0 - eps_in * eps_in).sqrt();
            lin = prog.linear(trace_row((-f, x.re_trace(1.0))), false);
            cone_v = None;
        }
        Ball::Trace | Ball::TraceUnbounded => {
            let p = prog.herm(d);
            prog.psd(HermExpr::new(d).herm(rt, 1.0, 0));
            prog.psd(HermExpr::new(d).herm(p, 1.0, 0));
            cone_v = Some(
                prog.psd(
                    HermExpr::new(d)
                        .herm(p, 1.0, 0)
                        .constant(r, -1.0, 0)
                        .herm(rt, 1.0, 0),
                ),
            );
            lin = prog.linear(trace_row((eps_in, p.trace_with(&id, -1.0))), false);
        }
    }
    let sol = prog.solve(what)?;
    let value = (sol.x[t] * t0).max(f64::MIN_POSITIVE).ln();

    // ---- upper: repaired primal point, evaluated by the core
    let upper = repaired_primal(rho, sigma, &rt.value(&sol.x), eps, ball)?;

    // ---- lower: repaired dual point
    let (yl, yv) = eigh(&prog.psd_dual(&sol, cone_y, d))?;
    let yc: Vec<f64> = yl.iter().map(|&x| x.max(0.0)).collect();
    let y = recompose(&yv, &yc);
    let ymax = yc.iter().copied().fold(0.0, f64::max);
    let c_up = up(trace_product(&y, s) + slack(d, ymax));
    let nu0 = if bounded { sol.z[lin][1].max(0.0) } else { 0.0 };
    let num = match (ball, cone_v) {
        (Ball::Purified, _) => {
            let f = (1.0 - eps * eps).sqrt();
            let nu = nu0.max(1e-14 * ymax.max(1.0));
            // Tr ρ W⁻¹ = Σ_k ⟨v_k|ρ|v_k⟩ / (y_k + ν)
            let mut a = 0.0;
            for (k, &yk) in yc.iter().enumerate() {
                let col = yv.column(k);
                let w: Complex64 = (0..d)
                    .flat_map(|i| (0..d).map(move |j| (i, j)))
                    .map(|(i, j)| col[i].conj() * r[[i, j]] * col[j])
                    .sum();
                a += w.re.max(0.0) / (yk + nu);
            }
            let a_up = up(a * (1.0 + slack(d, 1.0)) + slack(d, 1.0 / nu));
            down(f * f / a_up) - up(nu)
        }
        (Ball::Trace | Ball::TraceUnbounded, Some(cv)) => {
            let (vl, vv) = eigh(&prog.psd_dual(&sol, cv, d))?;
            let vc: Vec<f64> = vl.iter().map(|&x| x.max(0.0)).collect();
            let v = recompose(&vv, &vc);
            let kappa = sol.z[lin][0]
                .max(vc.iter().copied().fold(0.0, f64::max))
                .max(0.0);
            let gap = &v - &y - &id.mapv(|z| z * nu0);
            let (gl, _) = eigh(&gap)?;
            let excess = gl[d - 1].max(0.0);
            let nu = up(nu0 + excess + slack(d, frobenius(&v) + frobenius(&y) + nu0));
            down(trace_product(&v, r) - slack(d, kappa)) - up(kappa * eps) - nu
        }
        _ => unreachable!("trace ball always has a V cone"),
    };
    let mut lower = if num > 0.0 {
        down(num.ln() - c_up.ln())
    } else {
        f64::NEG_INFINITY
    };
    if ball != Ball::Purified {
        lower = lower.max(hockey_stick_lower(rho, sigma, eps, value)?);
    }
    Ok((lower, upper, value))
}

/// Repair the solver's `ρ̃` to exact feasibility and evaluate `ln t = D_max(ρ̃‖σ)` with the core;
/// returns an upper bound (rounded up).
fn repaired_primal(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    raw: &Array2<Complex64>,
    eps: f64,
    ball: Ball,
) -> Result<f64> {
    let d = rho.dim();
    let r = rho.matrix();
    let (lam, v) = eigh(raw)?;
    let lmax = lam.iter().copied().fold(0.0, f64::max);
    let clip: Vec<f64> = lam
        .iter()
        .map(|&x| if x > slack(d, lmax) { x } else { 0.0 })
        .collect();
    let mut rt = recompose(&v, &clip);
    let tr: f64 = clip.iter().sum();
    if tr > 1.0 && ball != Ball::TraceUnbounded {
        rt.mapv_inplace(|z| z / up(tr));
    }
    // distance to ρ, bounded above; mix towards ρ when outside the ball
    let (mut c, mut rh) = normalised(&rt)?;
    let mut dist = ball_distance(rho, c, &rh, ball)?;
    if dist > eps {
        // Trace: Tr(ρ − ρ₂)_+ = (1 − s)·dist. Purified: F is concave, F(ρ₂, ρ) ≥ (1 − s)F + s.
        let s = match ball {
            Ball::Trace | Ball::TraceUnbounded => 1.0 - eps / dist,
            Ball::Purified => {
                let f = (1.0 - eps * eps).sqrt();
                let fl = (1.0 - dist * dist).max(0.0).sqrt();
                (f - fl) / (1.0 - fl)
            }
        };
        let s = up(s + 1e-12).min(1.0);
        rt = rt.mapv(|z| z * (1.0 - s)) + &r.mapv(|z| z * s);
        (c, rh) = normalised(&rt)?;
        dist = ball_distance(rho, c, &rh, ball)?;
        if dist > eps {
            return Err(Error::SmoothNotCertified {
                what: "smooth max-divergence".into(),
                width: f64::INFINITY,
                reason: format!("repaired primal point still {dist:.3e} from ρ (ε = {eps})"),
            });
        }
    }
    let dmax = Pair::new(&rh, sigma)?.max_relative_entropy()?;
    if !dmax.is_finite() {
        return Err(Error::SmoothNotCertified {
            what: "smooth max-divergence".into(),
            width: f64::INFINITY,
            reason: "repaired point is not supported on supp σ (σ must have full rank)".into(),
        });
    }
    // D_max's accuracy is ≈ u‖ρ̃‖/λ_min(σ) relative (docs/conventions.md, "Accuracy").
    let smin = sigma.eigen()?.values()[0].max(f64::MIN_POSITIVE);
    Ok(up(c.ln() + dmax + slack(d, 1.0 / smin)))
}

/// Upper bound on the ball's distance between `ρ̃ = c·ρ̂` and `ρ`: `Tr(ρ − ρ̃)_+ = E_c(ρ‖ρ̂)`
/// (trace) or `√(1 − F̄²)` with `F̄ = √c·F(ρ̂, ρ)` and `F = exp(−D̃_{1/2}(ρ̂‖ρ)/2)` (purified).
fn ball_distance(rho: &DensityMatrix, c: f64, rh: &DensityMatrix, ball: Ball) -> Result<f64> {
    let d = rho.dim();
    match ball {
        Ball::Trace | Ball::TraceUnbounded => Ok(up(
            Pair::new(rho, rh)?.hockey_stick(c)? + slack(d, c.max(1.0))
        )),
        Ball::Purified => {
            let half = Pair::new(rh, rho)?.renyi(Family::Sandwiched, 0.5)?;
            let fbar = down(c.sqrt() * (-0.5 * half).exp() - slack(d, 64.0)).max(0.0);
            Ok(up((1.0 - fbar * fbar).max(0.0).sqrt()))
        }
    }
}

/// Trace ball: `D_max^ε ≥ ln t` whenever `E_t(ρ‖σ) > ε`. (Dropping `Tr ρ̃ ≤ 1` only lowers the
/// value, and without it `min_{0 ⪯ ρ̃ ⪯ tσ} Tr(ρ − ρ̃)_+ = E_t(ρ‖σ)` by Sion's minimax theorem —
/// docs/smooth.md.) Bisection for the largest such `t` in `[e^{v}(1 − 10⁻³), e^{v}]`, `v` the
/// solver's value; `−∞` when even the left end fails (the trace constraint binds).
fn hockey_stick_lower(rho: &DensityMatrix, sigma: &DensityMatrix, eps: f64, v: f64) -> Result<f64> {
    let pair = Pair::new(rho, sigma)?;
    let d = rho.dim();
    let above =
        |t: f64| -> Result<bool> { Ok(down(pair.hockey_stick(t)? - slack(d, t.max(1.0))) > eps) };
    let (mut lo, mut hi) = (v.exp() * (1.0 - 1e-3), v.exp() * (1.0 + 1e-9));
    if !above(lo)? {
        return Ok(f64::NEG_INFINITY);
    }
    if above(hi)? {
        return Ok(down(hi.ln()));
    }
    for _ in 0..50 {
        let mid = 0.5 * (lo + hi);
        if above(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(down(lo.ln()))
}
