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
    bisect, check_epsilon, check_pair, conjugate, down, eigh, frobenius, infinite, is_real,
    normalised, quadratic_form, recompose, slack, support_weights, trace_product, up, Ball,
    Bracket,
};
use crate::divergence::{Family, Pair};
use crate::state::DensityMatrix;
use crate::{Error, Result};

/// Relative shrink of the ball the solver sees (see [`max_divergence`]).
const SHRINK: f64 = 1e-8;

/// Largest dimension at which the full purified-ball program (a `4d × 4d` real PSD cone for complex
/// data) is tried when the subspace route does not certify: beyond it Clarabel's dense KKT block
/// takes minutes (docs/PERFORMANCE.md, "Smooth divergences").
const FULL_PROGRAM_UP_TO: usize = 8;

/// `D_max^ε(ρ‖σ)` over `ball`, ε ∈ (0, 1), as a certified bracket (natural log).
///
/// The certified upper end evaluates `D_max(ρ̃‖σ)` at a repaired primal point with the core's
/// [`Pair::max_relative_entropy`]; it needs `σ` of full rank (otherwise mixing the repaired point
/// towards ρ may leave `supp σ`), and fails with [`Error::SmoothNotCertified`] when it is not.
///
/// `+∞` (all three ends) when no `ρ̃` of the ball lies inside `supp σ`, decided before any solve
/// with a rounding margin: `Tr Π_{ker σ} ρ > ε²` (purified ball; exact) or `> ε` (trace balls;
/// exact for the unbounded trace ball up to the boundary, sufficient for `Tr ρ̃ ≤ 1`;
/// docs/smooth.md, "Certified +∞").
///
/// Errors: [`Error::InvalidParameter`] (ε), [`Error::DimensionMismatch`],
/// [`Error::SmoothNotCertified`] (bracket wider than [`super::TARGET_WIDTH`]`·max(1, |value|)`).
pub fn max_divergence(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
    ball: Ball,
) -> Result<Bracket> {
    // many small eigensolves and Clarabel's dense blocks: one BLAS thread (as D_H)
    crate::spectral::with_single_blas_thread(|| max_divergence_1t(rho, sigma, eps, ball))
}

fn max_divergence_1t(
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
    // No ρ̃ of the ball inside supp σ (docs/smooth.md, "Certified +∞"): the largest purified
    // fidelity² to a ρ̃ on supp σ is `Tr Π_{supp σ} ρ`, the least trace distance `Tr Π_{ker σ} ρ`.
    let (_, off, margin) = support_weights(rho, sigma)?;
    let radius = match ball {
        Ball::Purified => eps * eps,
        Ball::Trace | Ball::TraceUnbounded => eps,
    };
    if off > up(radius) + margin {
        return infinite(what);
    }
    // Scale σ by t₀ = exp D_max(ρ‖σ) (≥ the optimum) so that the solver's t' = t/t₀ is O(1); when
    // that solve does not certify, solve unscaled too and intersect the two certified brackets.
    let dmax = Pair::new(rho, sigma)?.max_relative_entropy()?;
    // Trace balls: the saddle point of Sion's minimax in closed form first (no conic solve).
    let mut best = None;
    if ball != Ball::Purified && dmax.is_finite() {
        if let Some((l, u, v)) = trace_ball_saddle(rho, sigma, eps, ball, dmax.exp())? {
            if Bracket::certified(what, l, u, v).is_ok() {
                return Bracket::certified(what, l, u, v);
            }
            best = Some((l, u));
        }
    }
    // Trace ball with `Tr ρ̃ ≤ 1` binding: the low-rank dual and the restricted primal (small conic
    // programs only); the full program is affordable only at small d.
    if ball == Ball::Trace && dmax.is_finite() {
        if let Ok(Some((l, u, v))) = trace_ball_low_rank(rho, sigma, eps, dmax.exp()) {
            let (l, u) = best.map_or((l, u), |(bl, bu)| (l.max(bl), u.min(bu)));
            if Bracket::certified(what, l, u, v).is_ok() || rho.dim() > FULL_PROGRAM_UP_TO {
                return Bracket::certified(what, l, u, v);
            }
            best = Some((l, u));
        }
        if rho.dim() > FULL_PROGRAM_UP_TO {
            let (l, u) = best.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
            return Bracket::certified(what, l, u, f64::NAN);
        }
    }
    // Purified ball: the rank-one dual, then the low-rank dual (no conic solve), then the dual in
    // a growing subspace (small conic programs), each keeping the certified ends of the previous
    // (docs/smooth.md); the full program only when none certifies and it is small enough to be
    // affordable. A failure of one route (e.g. a non-finite intermediate) only hands over.
    if ball == Ball::Purified && dmax.is_finite() {
        let mut one = purified_rank_one(rho, sigma, eps).ok().flatten();
        if let Some(o) = one.as_mut() {
            if Bracket::certified(what, o.lower, o.upper, o.value).is_ok() {
                return Bracket::certified(what, o.lower, o.upper, o.value);
            }
            if let Ok((l, u, v, cand)) = purified_low_rank(rho, sigma, eps, o) {
                if Bracket::certified(what, l, u, v).is_ok() {
                    return Bracket::certified(what, l, u, v);
                }
                (o.lower, o.upper, o.value, o.candidate) = (l, u, v, cand);
            }
            best = Some((o.lower, o.upper));
        }
        // commuting pairs: the dual diagonal in a common eigenbasis is optimal (its rank is the
        // number of capped outcomes, often above the low-rank dual's cap)
        if let Ok(Some((l, u, v))) = purified_commuting(rho, sigma, eps) {
            let (l, u) = best.map_or((l, u), |(bl, bu)| (l.max(bl), u.min(bu)));
            if Bracket::certified(what, l, u, v).is_ok() {
                return Bracket::certified(what, l, u, v);
            }
            best = Some((l, u));
        }
        match purified_by_directions(rho, sigma, eps, one.as_ref()) {
            Ok((l, u, v)) => {
                if Bracket::certified(what, l, u, v).is_ok() || rho.dim() > FULL_PROGRAM_UP_TO {
                    return Bracket::certified(what, l, u, v);
                }
                best = Some((l, u));
            }
            Err(_) if rho.dim() > FULL_PROGRAM_UP_TO => {
                if let Some(o) = &one {
                    // the typed error with the width the low-rank dual reached
                    return Bracket::certified(what, o.lower, o.upper, o.value);
                }
            }
            Err(_) => {}
        }
    }
    let t0 = if dmax.is_finite() { dmax.exp() } else { 1.0 };
    let (mut lower, mut upper, value) = match (solve_once(rho, sigma, eps, ball, t0), best) {
        (Ok(found), _) => found,
        (Err(_), Some((l, u))) => (l, u, 0.5 * (l + u)),
        (Err(e), None) => return Err(e),
    };
    if let Some((l, u)) = best {
        lower = lower.max(l);
        upper = upper.min(u);
    }
    if Bracket::certified(what, lower, upper, value).is_err() && t0 != 1.0 {
        if let Ok((l, u, _)) = solve_once(rho, sigma, eps, ball, 1.0) {
            lower = lower.max(l);
            upper = upper.min(u);
        }
    }
    Bracket::certified(what, lower, upper, value)
}

/// Trace balls without a conic solve: `(lower, upper, value)` or `None` when the closed-form point
/// cannot be repaired (then the conic program decides).
///
/// * lower: `ln t` for the largest `t` found with `E_t(ρ‖σ) > ε` (certified), valid for both balls;
/// * upper: at `t_c` with `E_{t_c}(ρ‖σ) ≤ ε(1 − SHRINK)`, the saddle point of Sion's minimax
///   (docs/smooth.md, "Saddle point of the trace ball"): `ρ̃ = t_c σ` for the unbounded ball, and
///   otherwise `ρ̃ = ρ − (ρ − t_cσ)_+ + N` with `N` the least-trace completion on the negative
///   eigenspace of `ρ − t_cσ`; then [`repaired_primal`] (which also enforces `Tr ρ̃ ≤ 1`).
///
/// `t_max = e^{D_max(ρ‖σ)}`, where `E_{t_max} = 0`.
fn trace_ball_saddle(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
    ball: Ball,
    t_max: f64,
) -> Result<Option<(f64, f64, f64)>> {
    let pair = Pair::new(rho, sigma)?;
    let hi = t_max * (1.0 + 1e-9);
    let inner = eps * (1.0 - SHRINK);
    let (_, t_c) = bisect(&mut |t| Ok(pair.hockey_stick(t)? > inner), 0.0, hi)?;
    let lower = hockey_stick_lower(rho, sigma, eps, 0.0, hi)?;
    let candidate = match ball {
        Ball::TraceUnbounded => sigma.matrix().mapv(|z| z * t_c),
        _ => match saddle_point(rho, sigma, t_c)? {
            Some(c) => c.point,
            None => return Ok(None),
        },
    };
    match repaired_primal(rho, sigma, &candidate, eps, ball, Some(t_c)) {
        Ok(upper) => Ok(Some((lower, upper, t_c.ln()))),
        Err(_) => Ok(None),
    }
}

/// `ρ̃ = ρ − (ρ − tσ)_+ + N`, `N = Q R_+ Q†` with `Q` the nonpositive eigenspace of `ρ − tσ`, `P` the
/// positive one, and `R = Q†ρP (t P†σP)⁻¹ P†ρQ − Q†ρQ` (the Schur complement that makes `ρ̃ ⪰ 0`).
/// It satisfies `ρ̃ ⪯ tσ` when `R_+ ⪯ Q†(tσ − ρ)Q`, `Tr(ρ − ρ̃)_+ ≤ E_t(ρ‖σ)` and has the least trace
/// of its family; the caller checks every constraint again. `None` if `P†σP` is singular.
fn saddle_point(rho: &DensityMatrix, sigma: &DensityMatrix, t: f64) -> Result<Option<Saddle>> {
    let (r, s) = (rho.matrix(), sigma.matrix());
    let (w, v) = eigh(&(r - &s.mapv(|z| z * t)))?;
    let rp = conjugate(r, &v);
    let pos: Vec<usize> = (0..w.len()).filter(|&k| w[k] > 0.0).collect();
    let neg: Vec<usize> = (0..w.len()).filter(|&k| w[k] <= 0.0).collect();
    let mut out = rp.clone();
    for &k in &pos {
        out[[k, k]] -= w[k];
    }
    let cols = |idx: &[usize]| Array2::from_shape_fn((w.len(), idx.len()), |(i, j)| v[[i, idx[j]]]);
    // every eigenvector of ρ − tσ, by descending eigenvalue (the first `pos.len()` positive)
    let positive = cols(&(0..w.len()).rev().collect::<Vec<_>>());
    let mut negative = Array2::zeros((w.len(), 0));
    let mut m = 0;
    if !pos.is_empty() && !neg.is_empty() {
        let block = |m: &Array2<Complex64>, a: &[usize], b: &[usize]| {
            Array2::from_shape_fn((a.len(), b.len()), |(i, j)| m[[a[i], b[j]]])
        };
        let b = block(&conjugate(s, &v), &pos, &pos).mapv(|z| z * t);
        let (bl, bv) = eigh(&b)?;
        if bl[0] <= 0.0 {
            return Ok(None);
        }
        let inv: Vec<f64> = bl.iter().map(|&x| 1.0 / x).collect();
        let c = block(&rp, &pos, &neg);
        let schur = c.t().mapv(|z| z.conj()).dot(&recompose(&bv, &inv).dot(&c));
        let (rl, rv) = eigh(&(schur - block(&rp, &neg, &neg)))?;
        let rplus: Vec<f64> = rl.iter().map(|&x| x.max(0.0)).collect();
        let n = recompose(&rv, &rplus);
        // R's eigenvectors in the standard basis, by descending eigenvalue (the first m span R_+;
        // at least one)
        m = rl.iter().filter(|&&x| x > 0.0).count().max(1);
        let k = rl.len();
        negative = cols(&neg).dot(&Array2::from_shape_fn((k, k), |(i, j)| rv[[i, k - 1 - j]]));
        for (i, &a) in neg.iter().enumerate() {
            for (j, &b) in neg.iter().enumerate() {
                out[[a, b]] += n[[i, j]];
            }
        }
    }
    Ok(Some(Saddle {
        point: conjugate(&out, &v.t().mapv(|z| z.conj())),
        positive,
        p: pos.len(),
        negative,
        m,
    }))
}

/// The saddle point of [`saddle_point`] and its two subspaces (orthonormal columns): `positive`
/// holds every eigenvector of `ρ − tσ` by descending eigenvalue, the first `p` spanning the
/// positive eigenspace; `negative` the eigenvectors of `R` (on the nonpositive eigenspace `Q`, in
/// the standard basis) by descending eigenvalue, the first `m` spanning the range of `N = R_+`
/// (`m ≥ 1`; empty when either eigenspace of `ρ − tσ` is).
struct Saddle {
    point: Array2<Complex64>,
    positive: Array2<Complex64>,
    p: usize,
    negative: Array2<Complex64>,
    m: usize,
}

/// Most L-BFGS iterations of [`trace_ball_low_rank`] (measured: 300–1500 on the Ginibre pairs at
/// d ≤ 32).
const LBFGS_ITERATIONS: usize = 6000;

/// Trace ball when `Tr ρ̃ ≤ 1` binds, without the full conic program (docs/smooth.md, "Trace ball:
/// the low-rank dual"). Dual: every Hermitian `G` gives
/// `t* ≥ (Tr Gρ − κ(G)ε)/Tr(σ^{1/2}Gσ^{1/2})_+`, `κ(G) = λ_max(G)_+ + (−λ_min(G))_+`
/// ([`trace_dual_bound`]); it is maximised over `G = (1 − ν)Π_X − νΠ_Y` (`X` `d × p`, `Y` `d × m`,
/// ν ∈ (0, 1), `Π` the orthogonal projectors onto the column spans), smooth in `(X, Y, ν)`, by
/// L-BFGS from the saddle point's subspaces at `t_c`. Primal: `ρ̃ = ρ − UDU†` with `U` the
/// orthonormalised `[X Y]`, `D` the small conic program of [`trace_restricted_primal`] at
/// `t = t_dual(1 + η)` for growing η, repaired and evaluated by [`repaired_primal`]. Returns the
/// certified `(lower, upper, value)` (`None` when the saddle point has no subspaces or the
/// objective is not finite at the start).
fn trace_ball_low_rank(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
    t_max: f64,
) -> Result<Option<(f64, f64, f64)>> {
    let d = rho.dim();
    let (r, s) = (rho.matrix(), sigma.matrix());
    let pair = Pair::new(rho, sigma)?;
    let inner = eps * (1.0 - SHRINK);
    let (_, t_c) = bisect(
        &mut |t| Ok(pair.hockey_stick(t)? > inner),
        0.0,
        t_max * (1.0 + 1e-9),
    )?;
    let Some(saddle) = saddle_point(rho, sigma, t_c)? else {
        return Ok(None);
    };
    let (p0, m0) = (saddle.p, saddle.m);
    if p0 == 0 || saddle.negative.ncols() == 0 {
        return Ok(None);
    }
    let eig = sigma.eigen()?;
    let (sl, sv) = (eig.values(), eig.vectors());
    let sh = recompose(
        sv,
        &sl.iter().map(|&x| x.max(0.0).sqrt()).collect::<Vec<_>>(),
    );
    let first =
        |m: &Array2<Complex64>, a: usize, b: usize| m.slice(ndarray::s![.., a..b]).to_owned();
    let (mut lower, mut upper, mut value) = (f64::NEG_INFINITY, f64::INFINITY, f64::NAN);
    // the saddle point's ranks (p, m) first, then one more on either side: the optimal G's
    // inertia can differ from the saddle point's
    for (dp, dm) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let (p, m) = (p0 + dp, m0 + dm);
        if p > saddle.positive.ncols() || m > saddle.negative.ncols() || p + m > d {
            continue;
        }
        let objective = |z: &[f64]| -> Option<(f64, Vec<f64>)> {
            let (x, y, nu) = unpack_xy(z, d, p, m);
            let (val, gx, gy, gnu) = trace_low_rank_objective(r, &sh, &x, &y, nu, eps).ok()??;
            let mut g = pack_xy(&gx, &gy, gnu * nu * (1.0 - nu));
            g.iter_mut().for_each(|v| *v = -*v);
            Some((-val, g))
        };
        // start: the saddle point's subspaces, ν from a short grid
        let (x0, y0) = (first(&saddle.positive, 0, p), first(&saddle.negative, 0, m));
        let mut start = None;
        for nu0 in [0.003f64, 0.01, 0.03, 0.1, 0.3] {
            let z = pack_xy(&x0, &y0, (nu0 / (1.0 - nu0)).ln());
            if let Some((f0, _)) = objective(&z) {
                if start.as_ref().is_none_or(|(bf, _)| f0 < *bf) {
                    start = Some((f0, z));
                }
            }
        }
        let Some((_, z0)) = start else { continue };
        let z = lbfgs(&objective, z0, LBFGS_ITERATIONS);
        let (x, y, nu) = unpack_xy(&z, d, p, m);
        let (Ok(px), Ok(py)) = (projector(&x), projector(&y)) else {
            continue;
        };
        let g = &px.mapv(|c| c * (1.0 - nu)) - &py.mapv(|c| c * nu);
        lower = lower.max(trace_dual_bound(r, s, &sh, &g, eps)?);
        let t_dual = match objective(&z) {
            Some((f, _)) if -f > 0.0 => -f,
            _ => continue,
        };
        if value.is_nan() || t_dual.ln() > value {
            value = t_dual.ln();
        }
        // primal: ρ − UDU† on U = span[X Y], then with the saddle point's next directions of
        // either kind added, alternately (a larger U only relaxes the restriction; all of them
        // span the whole space, tried only at d ≤ 16), at t slightly above the dual's value
        let mut parts = vec![x.view(), y.view()];
        for k in 0..d {
            for (all, used) in [(&saddle.positive, p), (&saddle.negative, m)] {
                if used + k < all.ncols() {
                    parts.push(all.slice(ndarray::s![.., used + k..used + k + 1]));
                }
            }
        }
        // unreachable: every part is a column block of a d-row matrix
        let b = ndarray::concatenate(ndarray::Axis(1), &parts).expect("same number of rows");
        let mut sizes = vec![p + m, p + m + 4, p + m + 12];
        if d <= 16 {
            sizes.push(b.ncols());
        }
        sizes.retain(|&k| k <= b.ncols());
        'primal: for cols in sizes {
            let u = orthonormal_columns(&first(&b, 0, cols))?;
            let w = complement(&u)?;
            for eta in [1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4] {
                let t = t_dual * (1.0 + eta);
                if let Ok(Some(cand)) = trace_restricted_primal(r, s, &u, &w, t) {
                    if let Ok(up) = repaired_primal(rho, sigma, &cand, eps, Ball::Trace, Some(t)) {
                        upper = upper.min(up);
                        if Bracket::certified("", lower, upper, value).is_ok() {
                            break 'primal;
                        }
                    }
                }
            }
        }
        if Bracket::certified("", lower, upper, value).is_ok() {
            break;
        }
    }
    Ok(Some((lower, upper, value)))
}

/// Certified `ln` of the trace-ball dual bound at a Hermitian `G` (docs/smooth.md, "Trace ball:
/// the low-rank dual"): with `ν = (−λ_min(G))_+`, `κ = λ_max(G)_+ + ν`, `V = G + νI` satisfies
/// `0 ⪯ V ⪯ κI`, and `Y = σ^{−1/2}(σ^{1/2}Gσ^{1/2})_+σ^{−1/2}` satisfies `Y ⪰ 0`, `Y ⪰ G = V − νI`
/// with `Tr Yσ = Tr(σ^{1/2}Gσ^{1/2})_+`; so `t* ≥ (Tr Vρ − κε − ν)/Tr Yσ =
/// (Tr Gρ + ν(Tr ρ − 1) − κε)/Tr(σ^{1/2}Gσ^{1/2})_+`, evaluated with outward rounding
/// (`sh` = the computed `σ^{1/2}`; its error enters as a relative `16du·λ_max/λ_min` of the
/// denominator).
fn trace_dual_bound(
    r: &Array2<Complex64>,
    s: &Array2<Complex64>,
    sh: &Array2<Complex64>,
    g: &Array2<Complex64>,
    eps: f64,
) -> Result<f64> {
    let d = r.nrows();
    let gn = frobenius(g);
    let (gl, _) = eigh(g)?;
    let nu = up((slack(d, gn) - gl[0]).max(0.0));
    let kappa = up(up((gl[d - 1] + slack(d, gn)).max(0.0)) + nu);
    let a = sh.dot(&g.dot(sh));
    let (al, _) = eigh(&a)?;
    let (sl, _) = eigh(s)?;
    let cond = sl[d - 1] / sl[0].max(f64::MIN_POSITIVE);
    let pos: f64 = al.iter().filter(|&&x| x > 0.0).sum();
    let den = up(pos + slack(d, frobenius(&a) + gn * sl[d - 1]) + slack(d, pos * cond));
    let tr_r: f64 = (0..d).map(|i| r[[i, i]].re).sum();
    let num = down(trace_product(g, r) - slack(d, gn)) + down(nu * (tr_r - 1.0) - slack(d, nu))
        - up(kappa * eps);
    Ok(log_ratio(down(num), den))
}

/// `t(X, Y, ν) = (Tr Gρ − ε)/Tr(σ^{1/2}Gσ^{1/2})_+` at `G = (1 − ν)Π_X − νΠ_Y` (`κ = 1` bounds
/// `κ(G)`: `−νI ⪯ G ⪯ (1 − ν)I`) and its gradient: with `Γ = (ρ − t·σ^{1/2}Π_>σ^{1/2})/den`
/// (`Π_>` the positive eigenspace of `σ^{1/2}Gσ^{1/2}`), `dΠ_X = (I − Π_X)dX X⁺ + h.c.` gives
/// `∇_X = 2(1 − ν)(I − Π_X)ΓX(X†X)⁻¹`, `∇_Y = −2ν(I − Π_Y)ΓY(Y†Y)⁻¹`, `∂_ν = −Tr((Π_X + Π_Y)Γ)`
/// (`dt = Re Tr(∇† dX) + …`). `None` when a Gram matrix is singular or the denominator is not
/// positive.
#[allow(clippy::type_complexity)]
fn trace_low_rank_objective(
    r: &Array2<Complex64>,
    sh: &Array2<Complex64>,
    x: &Array2<Complex64>,
    y: &Array2<Complex64>,
    nu: f64,
    eps: f64,
) -> Result<Option<(f64, Array2<Complex64>, Array2<Complex64>, f64)>> {
    let d = r.nrows();
    let Some((px, xg)) = projector_with(x)? else {
        return Ok(None);
    };
    let Some((py, yg)) = projector_with(y)? else {
        return Ok(None);
    };
    let g = &px.mapv(|c| c * (1.0 - nu)) - &py.mapv(|c| c * nu);
    let (al, av) = eigh(&sh.dot(&g.dot(sh)))?;
    let pos: Vec<f64> = al
        .iter()
        .map(|&v| if v > 0.0 { 1.0 } else { 0.0 })
        .collect();
    let den: f64 = al.iter().filter(|&&v| v > 0.0).sum();
    if !(den > 0.0 && den.is_finite()) {
        return Ok(None);
    }
    let t = (trace_product(&g, r) - eps) / den;
    let phi = sh.dot(&recompose(&av, &pos).dot(sh));
    let gamma = (r - &phi.mapv(|c| c * t)).mapv(|c| c / den);
    let id = Array2::<Complex64>::eye(d);
    let gx = (&id - &px)
        .dot(&gamma.dot(&x.dot(&xg)))
        .mapv(|c| c * (2.0 * (1.0 - nu)));
    let gy = (&id - &py)
        .dot(&gamma.dot(&y.dot(&yg)))
        .mapv(|c| c * (-2.0 * nu));
    let gnu = -trace_product(&(&px + &py), &gamma);
    Ok(Some((t, gx, gy, gnu)))
}

/// `(Π_X, (X†X)⁻¹)`, `Π_X = X(X†X)⁻¹X†`; `None` when `X†X` is singular.
fn projector_with(x: &Array2<Complex64>) -> Result<Option<(Array2<Complex64>, Array2<Complex64>)>> {
    let (gl, gv) = eigh(&x.t().mapv(|z| z.conj()).dot(x))?;
    if gl[0].partial_cmp(&(1e-14 * gl[gl.len() - 1].abs())) != Some(std::cmp::Ordering::Greater) {
        return Ok(None);
    }
    let inv = recompose(&gv, &gl.iter().map(|&v| 1.0 / v).collect::<Vec<_>>());
    Ok(Some((x.dot(&inv.dot(&x.t().mapv(|z| z.conj()))), inv)))
}

/// `Π_X` (see [`projector_with`]); an error when `X†X` is singular.
fn projector(x: &Array2<Complex64>) -> Result<Array2<Complex64>> {
    projector_with(x)?
        .map(|(p, _)| p)
        .ok_or_else(|| Error::SmoothNotCertified {
            what: "smooth max-divergence (trace ball)".into(),
            width: f64::INFINITY,
            reason: "degenerate low-rank dual point".into(),
        })
}

/// Real coordinates `(Re X, Im X, Re Y, Im Y, s)` (row-major), `ν = 1/(1 + e^{−s})`.
fn pack_xy(x: &Array2<Complex64>, y: &Array2<Complex64>, last: f64) -> Vec<f64> {
    let mut z = Vec::with_capacity(2 * (x.len() + y.len()) + 1);
    for m in [x, y] {
        z.extend(m.iter().map(|c| c.re));
        z.extend(m.iter().map(|c| c.im));
    }
    z.push(last);
    z
}

fn unpack_xy(
    z: &[f64],
    d: usize,
    p: usize,
    m: usize,
) -> (Array2<Complex64>, Array2<Complex64>, f64) {
    let mat = |off: usize, k: usize| {
        Array2::from_shape_fn((d, k), |(i, j)| {
            Complex64::new(z[off + i * k + j], z[off + d * k + i * k + j])
        })
    };
    let nu = 1.0 / (1.0 + (-z[z.len() - 1]).exp());
    (mat(0, p), mat(2 * d * p, m), nu)
}

/// A function with its gradient (`None` outside its domain), for [`lbfgs`].
type Objective<'a> = dyn Fn(&[f64]) -> Option<(f64, Vec<f64>)> + 'a;

/// Minimise `f` (value and gradient; `None` = outside the domain) by L-BFGS (memory 12,
/// backtracking Armijo line search from the unit step). Stops after `iterations` steps, when the
/// line search fails from the steepest-descent direction, or after 8 steps that lower `f` by less
/// than `10⁻¹⁶|f|` (rounding level).
fn lbfgs(f: &Objective, x0: Vec<f64>, iterations: usize) -> Vec<f64> {
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let Some((mut fx, mut g)) = f(&x0) else {
        return x0;
    };
    let mut x = x0;
    let mut mem: std::collections::VecDeque<(Vec<f64>, Vec<f64>, f64)> = Default::default();
    let mut stalls = 0;
    for _ in 0..iterations {
        // two-loop recursion
        let mut q = g.clone();
        let mut alphas = Vec::with_capacity(mem.len());
        for (s, y, rho) in mem.iter().rev() {
            let a = rho * dot(s, &q);
            q.iter_mut().zip(y).for_each(|(qi, yi)| *qi -= a * yi);
            alphas.push(a);
        }
        if let Some((s, y, _)) = mem.back() {
            let gamma = dot(s, y) / dot(y, y);
            q.iter_mut().for_each(|v| *v *= gamma);
        } else {
            let gn = dot(&g, &g).sqrt();
            q.iter_mut()
                .for_each(|v| *v /= gn.max(1e-300) / (1.0 + dot(&x, &x).sqrt() * 1e-2));
        }
        for ((s, y, rho), a) in mem.iter().zip(alphas.iter().rev()) {
            let b = rho * dot(y, &q);
            q.iter_mut().zip(s).for_each(|(qi, si)| *qi += (a - b) * si);
        }
        let mut dir: Vec<f64> = q.iter().map(|v| -v).collect();
        let mut slope = dot(&g, &dir);
        if slope.partial_cmp(&0.0) != Some(std::cmp::Ordering::Less) {
            mem.clear();
            dir = g.iter().map(|v| -v).collect();
            slope = dot(&g, &dir);
        }
        let mut step = 1.0;
        let mut accepted = None;
        for _ in 0..60 {
            let xt: Vec<f64> = x.iter().zip(&dir).map(|(a, b)| a + step * b).collect();
            if let Some((ft, gt)) = f(&xt) {
                if ft <= fx + 1e-4 * step * slope {
                    accepted = Some((xt, ft, gt));
                    break;
                }
            }
            step *= 0.5;
        }
        let Some((xt, ft, gt)) = accepted else {
            if mem.is_empty() {
                break;
            }
            mem.clear();
            continue;
        };
        let s: Vec<f64> = xt.iter().zip(&x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = gt.iter().zip(&g).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        if sy > 1e-300 {
            mem.push_back((s, y, 1.0 / sy));
            if mem.len() > 12 {
                mem.pop_front();
            }
        }
        stalls = if fx - ft <= 1e-16 * fx.abs() {
            stalls + 1
        } else {
            0
        };
        (x, fx, g) = (xt, ft, gt);
        if stalls >= 8 {
            break;
        }
    }
    x
}

/// Orthonormal columns spanning those of `b` (via the Gram matrix, dropping directions with a
/// Gram eigenvalue below `10⁻¹²` of the largest), reorthonormalised once.
fn orthonormal_columns(b: &Array2<Complex64>) -> Result<Array2<Complex64>> {
    let mut b = b.clone();
    for _ in 0..2 {
        let (gl, gv) = eigh(&b.t().mapv(|z| z.conj()).dot(&b))?;
        let top = gl[gl.len() - 1];
        let keep: Vec<usize> = (0..gl.len()).filter(|&k| gl[k] > 1e-12 * top).collect();
        let scaled = Array2::from_shape_fn((gv.nrows(), keep.len()), |(i, j)| {
            gv[[i, keep[j]]] / gl[keep[j]].sqrt()
        });
        b = b.dot(&scaled);
    }
    Ok(b)
}

/// Orthonormal columns spanning the orthogonal complement of the orthonormal columns `u`.
fn complement(u: &Array2<Complex64>) -> Result<Array2<Complex64>> {
    let d = u.nrows();
    let proj = Array2::<Complex64>::eye(d) - u.dot(&u.t().mapv(|z| z.conj()));
    let (pl, pv) = eigh(&proj)?;
    let keep: Vec<usize> = (0..d).filter(|&k| pl[k] > 0.5).collect();
    Ok(Array2::from_shape_fn((d, keep.len()), |(i, j)| {
        pv[[i, keep[j]]]
    }))
}

/// The trace-ball primal restricted to `ρ̃ = ρ − UDU†` at a fixed `t` (`U`, `W` orthonormal
/// complementary columns; docs/smooth.md, "Trace ball: the low-rank dual"). By Schur complements
/// on `W`: `ρ − UDU† ⪰ 0 ⟺ D ⪯ M := ρ_UU − ρ_UW ρ_WW⁻¹ ρ_WU` (when `ρ_WW ≻ 0`) and
/// `ρ − UDU† ⪯ tσ ⟺ D ⪰ L := A_UW A_WW⁻¹ A_WU − A_UU`, `A = tσ − ρ` (when `A_WW ≻ 0`); with
/// `Tr ρ̃ ≤ 1 ⟺ Tr D ≥ 0` and `Tr(ρ − ρ̃)_+ = Tr D_+ = min{Tr P : P ⪰ 0, P ⪰ D}` this is the small
/// conic program `min Tr P` s.t. `P ⪰ 0, P ⪰ D, L ⪯ D ⪯ M, Tr D ≥ 0` (`k × k` cones). Returns
/// `ρ − UDU†` at its solution (`None` when a Schur complement does not exist); the caller
/// repairs and checks it.
fn trace_restricted_primal(
    r: &Array2<Complex64>,
    s: &Array2<Complex64>,
    u: &Array2<Complex64>,
    w: &Array2<Complex64>,
    t: f64,
) -> Result<Option<Array2<Complex64>>> {
    let k = u.ncols();
    let a = &s.mapv(|z| z * t) - r;
    let block = |m: &Array2<Complex64>, p: &Array2<Complex64>, q: &Array2<Complex64>| {
        p.t().mapv(|z| z.conj()).dot(&m.dot(q))
    };
    // Schur complement `M_UU − M_UW M_WW⁻¹ M_WU`, `None` unless `M_WW ≻ 0`
    let schur = |m: &Array2<Complex64>| -> Result<Option<Array2<Complex64>>> {
        let uu = block(m, u, u);
        if w.ncols() == 0 {
            return Ok(Some(uu));
        }
        let (wl, wv) = eigh(&block(m, w, w))?;
        if wl[0].partial_cmp(&(1e-14 * wl[wl.len() - 1].abs())) != Some(std::cmp::Ordering::Greater)
        {
            return Ok(None);
        }
        let inv = recompose(&wv, &wl.iter().map(|&v| 1.0 / v).collect::<Vec<_>>());
        let uw = block(m, u, w);
        Ok(Some(super::hermitian_part(
            &(uu - uw.dot(&inv.dot(&uw.t().mapv(|z| z.conj())))),
        )))
    };
    let (Some(sa), Some(mr)) = (schur(&a)?, schur(r)?) else {
        return Ok(None);
    };
    let l = sa.mapv(|z| -z);
    let id = Array2::<Complex64>::eye(k);
    let mut prog = Program::new(false);
    let dv = prog.herm(k);
    let pv = prog.herm(k);
    prog.objective(&pv.trace_with(&id, 1.0));
    prog.psd(HermExpr::new(k).herm(pv, 1.0, 0));
    prog.psd(HermExpr::new(k).herm(pv, 1.0, 0).herm(dv, -1.0, 0));
    prog.psd(HermExpr::new(k).herm(dv, 1.0, 0).constant(&l, -1.0, 0));
    prog.psd(HermExpr::new(k).constant(&mr, 1.0, 0).herm(dv, -1.0, 0));
    prog.linear(vec![(0.0, dv.trace_with(&id, 1.0))], false);
    let sol = prog.solve("smooth max-divergence (trace ball, restricted primal)")?;
    let dm = dv.value(&sol.x);
    Ok(Some(r - &u.dot(&dm.dot(&u.t().mapv(|z| z.conj())))))
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
    // (with and without pushing ρ̃ under tσ first: both are certified, the smaller is kept)
    let raw = rt.value(&sol.x);
    let upper = match (
        repaired_primal(rho, sigma, &raw, eps, ball, Some(sol.x[t] * t0)),
        repaired_primal(rho, sigma, &raw, eps, ball, None),
    ) {
        (Ok(a), Ok(b)) => a.min(b),
        (Ok(a), Err(_)) | (Err(_), Ok(a)) => a,
        (Err(e), Err(_)) => return Err(e),
    };

    // ---- lower: repaired dual point
    let (yl, yv) = eigh(&prog.psd_dual(&sol, cone_y, d))?;
    let yc: Vec<f64> = yl.iter().map(|&x| x.max(0.0)).collect();
    let nu0 = if bounded { sol.z[lin][1].max(0.0) } else { 0.0 };
    let mut lower = match (ball, cone_v) {
        (Ball::Purified, _) => {
            let f = (1.0 - eps * eps).sqrt();
            let ymax = yc.iter().copied().fold(0.0, f64::max);
            let solver = purified_dual_bound(r, s, &yv, &yc, nu0.max(1e-14 * ymax.max(1.0)), f);
            let polished = match polish_purified_dual(r, s, &yv, f) {
                Some((y, nu)) => purified_dual_bound(r, s, &yv, &y, nu, f),
                None => f64::NEG_INFINITY,
            };
            solver.max(polished)
        }
        (Ball::Trace | Ball::TraceUnbounded, Some(cv)) => {
            let y = recompose(&yv, &yc);
            let ymax = yc.iter().copied().fold(0.0, f64::max);
            let c_up = up(trace_product(&y, s) + slack(d, ymax));
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
            let num = down(trace_product(&v, r) - slack(d, kappa)) - up(kappa * eps) - nu;
            log_ratio(num, c_up)
        }
        _ => unreachable!("trace ball always has a V cone"),
    };
    if ball != Ball::Purified {
        let e = value.exp();
        lower = lower.max(hockey_stick_lower(
            rho,
            sigma,
            eps,
            e * (1.0 - 1e-3),
            e * (1.0 + 1e-9),
        )?);
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
    cap: Option<f64>,
) -> Result<f64> {
    let d = rho.dim();
    let r = rho.matrix();
    let capped = match cap {
        Some(t) => cap_under(sigma, raw, t)?,
        None => None,
    };
    let (lam, v) = eigh(capped.as_ref().unwrap_or(raw))?;
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

/// `(tσ)^{1/2} C (tσ)^{1/2}` with `C` the eigenvalues of `(tσ)^{−1/2} ρ̃ (tσ)^{−1/2}` clipped to
/// `[0, 1]`: the solver's `ρ̃` pushed under `tσ`. The solver's point violates `ρ̃ ⪯ tσ` by its
/// feasibility tolerance, which `D_max(ρ̃‖σ)` would amplify by `1/λ_min(σ)`; this moves `ρ̃` by the
/// violation only. `None` when σ is singular (the caller then keeps `ρ̃`).
fn cap_under(
    sigma: &DensityMatrix,
    raw: &Array2<Complex64>,
    t: f64,
) -> Result<Option<Array2<Complex64>>> {
    let eig = sigma.eigen()?;
    let (sl, sv) = (eig.values(), eig.vectors());
    if !(t > 0.0 && t.is_finite()) || sl[0] <= 0.0 {
        return Ok(None);
    }
    let root: Vec<f64> = sl.iter().map(|&x| (t * x).sqrt()).collect();
    let inv: Vec<f64> = root.iter().map(|&x| 1.0 / x).collect();
    let (half, inv_half) = (recompose(sv, &root), recompose(sv, &inv));
    let (cl, cv) = eigh(&inv_half.dot(&raw.dot(&inv_half)))?;
    let clipped: Vec<f64> = cl.iter().map(|&x| x.clamp(0.0, 1.0)).collect();
    Ok(Some(half.dot(&recompose(&cv, &clipped).dot(&half))))
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

/// `ln(num/den)` rounded down, `−∞` unless `num > 0`.
fn log_ratio(num: f64, den: f64) -> f64 {
    if num > 0.0 {
        down(num.ln() - den.ln())
    } else {
        f64::NEG_INFINITY
    }
}

/// Certified `ln` of the purified-ball dual bound `t ≥ (f²/Tr(ρW⁻¹) − ν)/Tr(Yσ)` at
/// `Y = V diag(y) V†` (`y ≥ 0`), `W = Y + νI`, `ν > 0`, with outward rounding.
fn purified_dual_bound(
    r: &Array2<Complex64>,
    s: &Array2<Complex64>,
    v: &Array2<Complex64>,
    y: &[f64],
    nu: f64,
    f: f64,
) -> f64 {
    let d = r.nrows();
    if nu.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return f64::NEG_INFINITY;
    }
    let ymax = y.iter().copied().fold(0.0, f64::max);
    let c_up = up(trace_product(&recompose(v, y), s) + slack(d, ymax));
    // Tr ρ W⁻¹ = Σ_k ⟨v_k|ρ|v_k⟩ / (y_k + ν)
    let a: f64 = (0..d)
        .map(|k| quadratic_form(r, v, k).max(0.0) / (y[k] + nu))
        .sum();
    let a_up = up(a * (1.0 + slack(d, 1.0)) + slack(d, 1.0 / nu));
    log_ratio(down(f * f / a_up) - up(nu), c_up)
}

/// The best purified-ball dual point with `Y`'s eigenvectors `v` fixed (the solver's eigenvalues
/// of `Y` near 0 are inaccurate, and `Tr ρW⁻¹` is sensitive to exactly those). With
/// `a_k = ⟨v_k|ρ|v_k⟩`, `b_k = ⟨v_k|σ|v_k⟩`, `w_k = y_k + ν` and the bound's scale fixed by
/// `Σ b_k y_k = 1`: for given ν, `min Σ a_k/w_k` s.t. `Σ b_k(w_k − ν) = 1`, `w_k ≥ ν` is solved by
/// `w_k = max(ν, √(a_k/(λ b_k)))` (λ by bisection); ν is then chosen on a log grid refined by
/// golden section, maximising the rounded bound. Returns `(y, ν)`; every such point is dual
/// feasible, so this only sharpens the certificate.
fn polish_purified_dual(
    r: &Array2<Complex64>,
    s: &Array2<Complex64>,
    v: &Array2<Complex64>,
    f: f64,
) -> Option<(Vec<f64>, f64)> {
    let d = r.nrows();
    let a: Vec<f64> = (0..d).map(|k| quadratic_form(r, v, k).max(0.0)).collect();
    let b: Vec<f64> = (0..d).map(|k| quadratic_form(s, v, k).max(0.0)).collect();
    let weights = |nu: f64| -> Vec<f64> {
        let y_at = |lambda: f64| -> Vec<f64> {
            (0..d)
                .map(|k| {
                    if a[k] > 0.0 && b[k] > 0.0 {
                        ((a[k] / (lambda * b[k])).sqrt() - nu).max(0.0)
                    } else {
                        0.0
                    }
                })
                .collect()
        };
        let mass = |lambda: f64| -> f64 { y_at(lambda).iter().zip(&b).map(|(y, b)| y * b).sum() };
        // mass is nonincreasing in λ; bisection on ln λ for mass = 1
        let (mut lo, mut hi) = (-700.0f64, 700.0f64);
        for _ in 0..120 {
            let mid = 0.5 * (lo + hi);
            if mass(mid.exp()) > 1.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        y_at(hi.exp())
    };
    let score = |ln_nu: f64| -> f64 {
        let nu = ln_nu.exp();
        purified_dual_bound(r, s, v, &weights(nu), nu, f)
    };
    // ν on a log grid, then golden section around the best grid point
    let grid: Vec<f64> = (0..=50).map(|k| -70.0 + 2.0 * k as f64).collect();
    let (mut best, mut best_score) = (grid[0], f64::NEG_INFINITY);
    for &g in &grid {
        let sc = score(g);
        if sc > best_score {
            (best, best_score) = (g, sc);
        }
    }
    if !best_score.is_finite() {
        return None;
    }
    let phi = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (best - 2.0, best + 2.0);
    let (mut c, mut e) = (hi - phi * (hi - lo), lo + phi * (hi - lo));
    let (mut sc, mut se) = (score(c), score(e));
    for _ in 0..60 {
        if sc >= se {
            hi = e;
            (e, se) = (c, sc);
            c = hi - phi * (hi - lo);
            sc = score(c);
        } else {
            lo = c;
            (c, sc) = (e, se);
            e = lo + phi * (hi - lo);
            se = score(e);
        }
    }
    let ln_nu = if sc.max(se) > best_score {
        if sc >= se {
            c
        } else {
            e
        }
    } else {
        best
    };
    Some((weights(ln_nu.exp()), ln_nu.exp()))
}

/// Trace ball: `D_max^ε ≥ ln t` whenever `E_t(ρ‖σ) > ε`. (Dropping `Tr ρ̃ ≤ 1` only lowers the
/// value, and without it `min_{0 ⪯ ρ̃ ⪯ tσ} Tr(ρ − ρ̃)_+ = E_t(ρ‖σ)` by Sion's minimax theorem —
/// docs/smooth.md.) Bisection for the largest such `t` in `[lo, hi]`; `−∞` when even `lo` fails
/// (for `lo = e^v(1 − 10⁻³)`, `v` the solver's value: the trace constraint binds).
fn hockey_stick_lower(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
    lo: f64,
    hi: f64,
) -> Result<f64> {
    let pair = Pair::new(rho, sigma)?;
    let d = rho.dim();
    let mut above =
        |t: f64| -> Result<bool> { Ok(down(pair.hockey_stick(t)? - slack(d, t.max(1.0))) > eps) };
    if !above(lo)? {
        return Ok(f64::NEG_INFINITY);
    }
    if above(hi)? {
        return Ok(down(hi.ln()));
    }
    let (lo, _) = bisect(&mut above, lo, hi)?;
    Ok(down(lo.ln()))
}

/// The primal point a purified-ball dual point `(Y = V diag(y) V†, ν)` determines:
/// `ρ̃ = c² W⁻¹ρW⁻¹`, `W = Y + ν'I`, `c = f_in/Tr ρW⁻¹`, whose root fidelity with ρ is exactly
/// `f_in` (the shrunk ball's), with `ν' ≥ ν` the least shift making `Tr ρ̃ ≤ 1 − 10⁻¹⁰`
/// ([`trace_feasible_shift`]); returns it and its certified `D_max` after [`repaired_primal`]
/// (`None` when the repair fails).
fn purified_primal(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    v: &Array2<Complex64>,
    y: &[f64],
    nu: f64,
    eps: f64,
) -> Result<(Array2<Complex64>, Option<f64>)> {
    let r = rho.matrix();
    let f_in = {
        let e = eps * (1.0 - SHRINK);
        (1.0 - e * e).sqrt()
    };
    let nu_p = trace_feasible_shift(r, v, y, nu.max(f64::MIN_POSITIVE), f_in);
    let winv = recompose(v, &y.iter().map(|&x| 1.0 / (x + nu_p)).collect::<Vec<_>>());
    let m = winv.dot(&r.dot(&winv));
    let c = f_in / trace_product(r, &winv);
    let candidate = m.mapv(|z| z * c * c);
    let upper = repaired_primal(rho, sigma, &candidate, eps, Ball::Purified, None).ok();
    Ok((candidate, upper))
}

/// Largest relative commutator `‖ρσ − σρ‖_F / (‖ρ‖_F‖σ‖_F)` for which [`purified_commuting`]
/// is tried (only the bracket's width depends on it: every basis gives a valid dual point).
const COMMUTING_BELOW: f64 = 1e-9;

/// Purified ball for *commuting* ρ, σ (docs/smooth.md, "Purified ball: commuting pairs"): the
/// pinching in a common eigenbasis `V` fixes ρ and σ and does not increase `Tr ρW⁻¹` (Choi's
/// inequality `P(W)⁻¹ ⪯ P(W⁻¹)`), so a dual point diagonal in `V` is optimal. `V` is the
/// eigenbasis of `σ + φρ` (`φ` generic), the diagonal dual is optimised by
/// [`polish_purified_dual`], checked by [`purified_dual_bound`], and its primal point by
/// [`purified_primal`]. `None` when the pair does not commute (to [`COMMUTING_BELOW`]) or σ is
/// singular. Returns `(lower, upper, value)`.
fn purified_commuting(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
) -> Result<Option<(f64, f64, f64)>> {
    let (r, s) = (rho.matrix(), sigma.matrix());
    if sigma.eigen()?.values()[0] <= 0.0 {
        return Ok(None);
    }
    let commutator = frobenius(&(r.dot(s) - s.dot(r)));
    if commutator.is_nan() || commutator > COMMUTING_BELOW * frobenius(r) * frobenius(s) {
        return Ok(None);
    }
    // a generic combination separates the joint eigenspaces of commuting ρ and σ
    const PHI: f64 = 0.618_033_988_749_894_9;
    let (_, v) = eigh(&(s + &r.mapv(|z| z * PHI)))?;
    let f = (1.0 - eps * eps).sqrt();
    let Some((y, nu)) = polish_purified_dual(r, s, &v, f) else {
        return Ok(None);
    };
    let lower = purified_dual_bound(r, s, &v, &y, nu, f);
    let (_, upper) = purified_primal(rho, sigma, &v, &y, nu, eps)?;
    let upper = upper.unwrap_or(f64::INFINITY);
    Ok(Some((lower, upper, 0.5 * (lower + upper.max(lower)))))
}

/// Result of [`purified_rank_one`]: the certified bounds, the value, the dual direction `y`
/// (`d × 1`) and the primal point it determines.
struct RankOne {
    lower: f64,
    upper: f64,
    value: f64,
    nu: f64,
    direction: Array2<Complex64>,
    candidate: Array2<Complex64>,
}

/// Purified ball by the *rank-one dual* (docs/smooth.md, "Purified ball: the rank-one dual"):
/// with `Y = yy†`, `y†σy = 1`, Sherman–Morrison gives `Tr ρ(νI + yy†)⁻¹ = (1 − y†ρy/(ν + y†y))/ν`,
/// and `y†ρy/(ν + y†y) = y†ρy / y†(νσ + I)y` is a generalised Rayleigh quotient, maximised by
/// the top eigenvector of `(νσ + I)^{−1/2} ρ (νσ + I)^{−1/2}` (eigenvalue `μ(ν) < 1`). The best
/// rank-one bound is thus `t₁ = max_ν g(ν)`, `g(ν) = f²ν/(1 − μ(ν)) − ν`, a one-dimensional
/// problem (`μ'(ν) = −μ·y†σy` for `y†(νσ + I)y = 1`, Hellmann–Feynman): a log grid, then
/// bisection on the sign of `g'`. The bound is checked by [`purified_dual_bound`] and the primal
/// point by [`purified_primal`]; both ends meet when the optimal `Y` has rank one (measured: most
/// random pairs). `None` when σ is singular.
fn purified_rank_one(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
) -> Result<Option<RankOne>> {
    let d = rho.dim();
    let (r, s) = (rho.matrix(), sigma.matrix());
    let eig = sigma.eigen()?;
    let (sl, sv) = (eig.values(), eig.vectors());
    if sl[0].is_nan() || sl[0] <= 0.0 {
        return Ok(None);
    }
    let rp = conjugate(r, sv);
    let f = (1.0 - eps * eps).sqrt();
    let f2 = f * f;
    // (g(ν), ν·g'(ν), y in σ's eigenbasis with y†(νσ + I)y = 1) at ν = e^x
    let at = |x: f64| -> Result<(f64, f64, Vec<Complex64>)> {
        let nu = x.exp();
        let dd: Vec<f64> = sl.iter().map(|&l| 1.0 / (nu * l + 1.0).sqrt()).collect();
        let m = Array2::from_shape_fn((d, d), |(i, j)| rp[[i, j]] * (dd[i] * dd[j]));
        let (w, z) = eigh(&m)?;
        let mu = w[d - 1].min(1.0 - 1e-300);
        let y: Vec<Complex64> = (0..d).map(|i| z[[i, d - 1]] * dd[i]).collect();
        let ysy: f64 = y
            .iter()
            .zip(sl.iter())
            .map(|(c, &l)| c.norm_sqr() * l)
            .sum();
        let g = f2 * nu / (1.0 - mu) - nu;
        let slope = nu * (f2 / (1.0 - mu) - f2 * nu * mu * ysy / ((1.0 - mu) * (1.0 - mu)) - 1.0);
        Ok((g, slope, y))
    };
    // the optimal ν is of the order of t ≤ e^{D_max(ρ‖σ)} ≤ 1/λ_min(σ)
    let (lo_x, hi_x) = (-8.0f64, (1.0 / sl[0]).ln() + 8.0);
    let steps = ((hi_x - lo_x) / 0.5).ceil() as usize;
    let (mut best_x, mut best_g) = (lo_x, f64::NEG_INFINITY);
    for k in 0..=steps {
        let x = lo_x + (hi_x - lo_x) * k as f64 / steps as f64;
        let (g, _, _) = at(x)?;
        if g > best_g {
            (best_x, best_g) = (x, g);
        }
    }
    let mut h = (hi_x - lo_x) / steps as f64;
    // the optimum can sit at ν → 0 (`Tr ρ̃ ≤ 1` not binding, e.g. σ ∝ I with ρ pure): extend
    // the grid down to e⁻⁴⁰ when its lowest point is the best
    if best_x == lo_x {
        for k in 0..32 {
            let x = -40.0 + k as f64;
            let (g, _, _) = at(x)?;
            if g > best_g {
                (best_x, best_g, h) = (x, g, 1.0);
            }
        }
    }
    let (mut lo, mut hi) = (best_x - h, best_x + h);
    for _ in 0..64 {
        if hi - lo <= 4.0 * f64::EPSILON * hi.abs().max(1.0) {
            break;
        }
        let mid = 0.5 * (lo + hi);
        if at(mid)?.1 > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x = 0.5 * (lo + hi);
    let (g, _, yb) = at(x)?;
    let nu = x.exp();
    // back to the standard basis, scaled to y†σy = 1
    let ysy: f64 = yb
        .iter()
        .zip(sl.iter())
        .map(|(c, &l)| c.norm_sqr() * l)
        .sum();
    let scale = 1.0 / ysy.sqrt();
    let direction = Array2::from_shape_fn((d, 1), |(i, _)| {
        (0..d).fold(Complex64::new(0.0, 0.0), |acc, k| acc + sv[[i, k]] * yb[k]) * scale
    });
    let (yl, yv) = eigh(&direction.dot(&direction.t().mapv(|z| z.conj())))?;
    let yc: Vec<f64> = yl.iter().map(|&x| x.max(0.0)).collect();
    let lower = purified_dual_bound(r, s, &yv, &yc, nu, f);
    let (candidate, upper) = purified_primal(rho, sigma, &yv, &yc, nu, eps)?;
    Ok(Some(RankOne {
        lower,
        upper: upper.unwrap_or(f64::INFINITY),
        value: g.max(f64::MIN_POSITIVE).ln(),
        nu,
        direction,
        candidate,
    }))
}

/// Largest rank [`purified_low_rank`] tries before handing over to the subspace route.
const MAX_RANK: usize = 6;

/// `q(B) = (f²/h − 1)/T` with `h = Tr ρ(I + BB†)⁻¹`, `T = Tr B†σB`, and its gradient `G`
/// (`dq = Re Tr(G† dB)`): the purified-ball dual bound at `Y = BB†`, `ν = 1` (the bound is
/// homogeneous of degree 0 in `(Y, ν)`). With `M = I + B†B`, `(I + BB†)⁻¹B = BM⁻¹`, so
/// `h = Tr ρ − Tr(B†ρB M⁻¹)` and `∇q = 2f²/(h²T)·W⁻¹ρW⁻¹B − 2q/T·σB`, `W⁻¹ρW⁻¹B = X − BM⁻¹B†X`,
/// `X = ρBM⁻¹`: `O(d²r)` without a `d × d` inverse. `None` when `T ≤ 0` or `h ≤ 0`.
fn low_rank_objective(
    r: &Array2<Complex64>,
    s: &Array2<Complex64>,
    b: &Array2<Complex64>,
    f: f64,
) -> Result<Option<(f64, Array2<Complex64>)>> {
    let k = b.ncols();
    let bh = b.t().mapv(|z| z.conj());
    let rb = r.dot(b);
    let sb = s.dot(b);
    let m = Array2::<Complex64>::eye(k) + bh.dot(b);
    let (ml, mv) = eigh(&m)?;
    if ml[0].is_nan() || ml[0] <= 0.0 {
        return Ok(None);
    }
    let minv = recompose(&mv, &ml.iter().map(|&x| 1.0 / x).collect::<Vec<_>>());
    let x = rb.dot(&minv);
    let trace_r: f64 = (0..r.nrows()).map(|i| r[[i, i]].re).sum();
    let h = trace_r - trace_product(&bh, &x);
    let t: f64 = trace_product(&bh, &sb);
    if !(h > 0.0 && t > 0.0) {
        return Ok(None);
    }
    let q = (f * f / h - 1.0) / t;
    let pb = &x - &b.dot(&minv.dot(&bh.dot(&x)));
    let g = pb.mapv(|z| z * (2.0 * f * f / (h * h * t))) - sb.mapv(|z| z * (2.0 * q / t));
    Ok(Some((q, g)))
}

/// Purified ball by the *low-rank dual* (docs/smooth.md, "Purified ball: the low-rank dual"):
/// maximise `q(B)` of [`low_rank_objective`] over `B ∈ ℂ^{d×r}` (Burer–Monteiro) by
/// Levenberg–Marquardt steps on the real coordinates of `B` (Hessian by differences of the exact
/// gradient), starting from the rank-one dual's `y` and adding, at each rank, the column where the
/// current primal point violates `ρ̃ ⪯ tσ` most (its scale by a log-grid search). Every `B` gives a
/// certified lower end ([`purified_dual_bound`] at `Y = BB†`, `ν = 1`) and a primal point
/// ([`purified_primal`]); returns the best certified `(lower, upper, value)` and the last primal
/// point once the bracket certifies or the rank reaches [`MAX_RANK`].
fn purified_low_rank(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
    one: &RankOne,
) -> Result<(f64, f64, f64, Array2<Complex64>)> {
    let d = rho.dim();
    let (r, s) = (rho.matrix(), sigma.matrix());
    let f = (1.0 - eps * eps).sqrt();
    let eig = sigma.eigen()?;
    let (sl, sv) = (eig.values(), eig.vectors());
    let inv_half = recompose(sv, &sl.iter().map(|&x| 1.0 / x.sqrt()).collect::<Vec<_>>());
    let (mut lower, mut upper, mut value) = (one.lower, one.upper, one.value);
    let mut candidate = one.candidate.clone();
    // the rank-one point at ν = 1: B = y/√ν
    let mut b = one.direction.mapv(|z| z / one.nu.sqrt());
    let what = "smooth max-divergence (purified ball)";
    for _rank in 2..=MAX_RANK.min(d) {
        // new column: σ^{−1/2}z, z the top eigenvector of σ^{−1/2}ρ̃σ^{−1/2}, scaled by a grid search
        let (_, zv) = eigh(&inv_half.dot(&candidate.dot(&inv_half)))?;
        let mut col = inv_half.dot(&zv.slice(ndarray::s![.., d - 1..]).to_owned());
        let cn = frobenius(&col);
        let bn = frobenius(&b);
        col.mapv_inplace(|z| z * (bn / cn));
        let k = b.ncols();
        let mut best: Option<(f64, Array2<Complex64>)> = None;
        for e in 0..=14 {
            let alpha = 10f64.powf(-(e as f64) * 0.5);
            // unreachable: every part is a column block of a d-row matrix
            let trial = ndarray::concatenate(
                ndarray::Axis(1),
                &[b.view(), col.mapv(|z| z * alpha).view()],
            )
            .expect("same number of rows");
            if let Some((q, _)) = low_rank_objective(r, s, &trial, f)? {
                if best.as_ref().is_none_or(|(bq, _)| q > *bq) {
                    best = Some((q, trial));
                }
            }
        }
        let Some((_, start)) = best else { break };
        b = levenberg_marquardt(r, s, start, f)?;
        debug_assert_eq!(b.ncols(), k + 1);
        let (yl, yv) = eigh(&b.dot(&b.t().mapv(|z| z.conj())))?;
        let yc: Vec<f64> = yl.iter().map(|&x| x.max(0.0)).collect();
        lower = lower.max(purified_dual_bound(r, s, &yv, &yc, 1.0, f));
        let (cand, up) = purified_primal(rho, sigma, &yv, &yc, 1.0, eps)?;
        candidate = cand;
        if let Some(up) = up {
            upper = upper.min(up);
        }
        if let Some((q, _)) = low_rank_objective(r, s, &b, f)? {
            value = q.max(f64::MIN_POSITIVE).ln();
        }
        if Bracket::certified(what, lower, upper, value).is_ok() {
            break;
        }
    }
    Ok((lower, upper, value, candidate))
}

/// Maximise [`low_rank_objective`] from `b` by Levenberg–Marquardt: real coordinates
/// `x = (Re B, Im B)`, Hessian `H` by forward differences of the exact gradient (symmetrised),
/// steps `(−H + λI)p = ∇q` with λ adapted (÷10 on an accepted step, ×10 otherwise; the gauge
/// `B → BU` makes `H` singular, which λ absorbs). Stops when the step is below `10⁻¹³‖x‖`, after
/// three accepted steps that raise `q` by less than `10⁻¹⁵q` (rounding level), after 60 steps, or
/// when λ grows past `10¹⁶·max|H_ii|`.
fn levenberg_marquardt(
    r: &Array2<Complex64>,
    s: &Array2<Complex64>,
    b: Array2<Complex64>,
    f: f64,
) -> Result<Array2<Complex64>> {
    let (d, k) = b.dim();
    let n = 2 * d * k;
    let to_x = |b: &Array2<Complex64>| -> Vec<f64> {
        let mut x = Vec::with_capacity(n);
        x.extend(b.iter().map(|z| z.re));
        x.extend(b.iter().map(|z| z.im));
        x
    };
    let to_b = |x: &[f64]| -> Array2<Complex64> {
        Array2::from_shape_fn((d, k), |(i, j)| {
            Complex64::new(x[i * k + j], x[d * k + i * k + j])
        })
    };
    let eval = |x: &[f64]| -> Result<Option<(f64, Vec<f64>)>> {
        Ok(low_rank_objective(r, s, &to_b(x), f)?.map(|(q, g)| (q, to_x(&g))))
    };
    let mut x = to_x(&b);
    let Some((mut q, mut g)) = eval(&x)? else {
        return Ok(b);
    };
    let mut lambda = -1.0;
    let mut stalls = 0;
    for _ in 0..60 {
        let xn = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let scale = xn / (n as f64).sqrt();
        let mut hess = nalgebra::DMatrix::<f64>::zeros(n, n);
        for c in 0..n {
            let delta = 1e-7 * (x[c].abs() + scale);
            let mut xp = x.clone();
            xp[c] += delta;
            let Some((_, gp)) = eval(&xp)? else {
                return Ok(to_b(&x));
            };
            for rr in 0..n {
                hess[(rr, c)] = (gp[rr] - g[rr]) / delta;
            }
        }
        let hess = (&hess + hess.transpose()) * 0.5;
        let hmax = (0..n).map(|i| hess[(i, i)].abs()).fold(0.0, f64::max);
        if !hmax.is_finite() || hess.iter().any(|v| !v.is_finite()) {
            break;
        }
        if lambda < 0.0 {
            lambda = 1e-10 * hmax;
        }
        let grad = nalgebra::DVector::from_column_slice(&g);
        let mut moved = false;
        while lambda <= 1e16 * hmax.max(f64::MIN_POSITIVE) {
            let a = -&hess + nalgebra::DMatrix::<f64>::identity(n, n) * lambda;
            if let Some(ch) = a.cholesky() {
                let p = ch.solve(&grad);
                let pn = p.norm();
                let xt: Vec<f64> = x.iter().zip(p.iter()).map(|(a, b)| a + b).collect();
                if let Some((qt, gt)) = eval(&xt)? {
                    if qt >= q - 16.0 * f64::EPSILON * q.abs() {
                        // an increase at the rounding level counts as a stall
                        let improved = qt > q + 1e-15 * q.abs();
                        stalls = if improved { 0 } else { stalls + 1 };
                        (x, q, g) = (xt, qt, gt);
                        lambda = (lambda * 0.1).max(1e-14 * hmax);
                        moved = stalls < 3;
                        if pn <= 1e-13 * xn {
                            return Ok(to_b(&x));
                        }
                        break;
                    }
                }
            }
            lambda = if lambda > 0.0 { lambda * 10.0 } else { 1e-12 };
        }
        if !moved {
            break;
        }
    }
    Ok(to_b(&x))
}

/// Most directions [`purified_by_directions`] adds before giving up (each adds one column to the
/// restricted dual; the full program is reached at `k = d`).
const MAX_DIRECTIONS: usize = 24;

/// Purified ball by *direction generation* on the dual (docs/smooth.md, "Purified ball: the dual
/// in a subspace"): `Y = V S V†` is restricted to the span of orthonormal columns `V` (`k` of
/// them), where the dual is the small conic program
/// `max κf − Tr U − u₂ − ν` s.t. `[[W, κR/2], [κR†/2, U]] ⪰ 0` (`R = (V†ρV)^{1/2}`),
/// `[[ν, κ√(1 − Tr V†ρV)/2], [·, u₂]] ⪰ 0`, `W ⪰ νI`, `Tr((W − νI)V†σV) = 1` (`W = S + νI`, by
/// Woodbury `Tr ρ(νI + VSV†)⁻¹ = (1 − Tr V†ρV)/ν + Tr(V†ρV W⁻¹)`). Its solution gives both
/// certificates: the dual point `(Y, ν)` (checked by [`purified_dual_bound`], then polished) and the
/// primal point `ρ̃ = c² W_f⁻¹ ρ W_f⁻¹` (`W_f = νI + VSV†`, `c = f/Tr ρW_f⁻¹`), whose root fidelity
/// with ρ is exactly `f` (`√ρ ρ̃ √ρ = (c √ρ W_f⁻¹ √ρ)²`), repaired and evaluated by
/// [`repaired_primal`]. The next direction is `σ^{−1/2}z`, `z` the top eigenvector of
/// `σ^{−1/2} ρ̃ σ^{−1/2}` (where `ρ̃ ⪯ tσ` is most violated). Needs σ of full rank.
/// Returns the best certified `(lower, upper, value)` found.
fn purified_by_directions(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
    seed: Option<&RankOne>,
) -> Result<(f64, f64, f64)> {
    let d = rho.dim();
    let (r, s) = (rho.matrix(), sigma.matrix());
    let eig = sigma.eigen()?;
    let (sl, sv) = (eig.values(), eig.vectors());
    if sl[0] <= 0.0 {
        return Err(Error::SmoothNotCertified {
            what: "smooth max-divergence (purified ball)".into(),
            width: f64::INFINITY,
            reason: "σ must have full rank".into(),
        });
    }
    let inv_half = recompose(sv, &sl.iter().map(|&x| 1.0 / x.sqrt()).collect::<Vec<_>>());
    let f = (1.0 - eps * eps).sqrt();
    let f_in = {
        let e = eps * (1.0 - SHRINK);
        (1.0 - e * e).sqrt()
    };
    let top_directions = |m: &Array2<Complex64>, n: usize| -> Result<Array2<Complex64>> {
        let (_, zv) = eigh(&inv_half.dot(&m.dot(&inv_half)))?;
        Ok(inv_half.dot(&zv.slice(ndarray::s![.., d - n..]).to_owned()))
    };
    let mut basis: Array2<Complex64> = Array2::zeros((d, 0));
    let (mut lower, mut upper, mut value) = (f64::NEG_INFINITY, f64::INFINITY, f64::NAN);
    // start from the rank-one dual's direction and the direction where its primal point violates
    // ρ̃ ⪯ tσ most; without it, from the two directions where ρ ⪯ tσ is tightest
    let mut next = match seed {
        Some(one) => {
            (lower, upper, value) = (one.lower, one.upper, one.value);
            let violated = top_directions(&one.candidate, 1)?;
            // unreachable: every part is a column block of a d-row matrix
            ndarray::concatenate(ndarray::Axis(1), &[one.direction.view(), violated.view()])
                .expect("same number of rows")
        }
        None => top_directions(r, d.min(2))?,
    };
    for _ in 0..MAX_DIRECTIONS.min(d) {
        if !extend_orthonormal(&mut basis, &next) {
            break;
        }
        let (w, nu, val) = restricted_purified_dual(r, s, &basis, f_in)?;
        if seed.is_none() || val > 0.0 {
            value = val.max(f64::MIN_POSITIVE).ln();
        }
        // full-space W_f = νI + V(W − νI)V†, Y = V(W − νI)V†
        let k = basis.ncols();
        let sk = &w - &Array2::<Complex64>::eye(k).mapv(|z| z * nu);
        let y = basis.dot(&sk.dot(&basis.t().mapv(|z| z.conj())));
        let (yl, yv) = eigh(&y)?;
        let yc: Vec<f64> = yl.iter().map(|&x| x.max(0.0)).collect();
        lower = lower.max(purified_dual_bound(
            r,
            s,
            &yv,
            &yc,
            nu.max(f64::MIN_POSITIVE),
            f,
        ));
        let (candidate, up) = purified_primal(rho, sigma, &yv, &yc, nu, eps)?;
        if let Some(up) = up {
            upper = upper.min(up);
        }
        if Bracket::certified("", lower, upper, value).is_ok() {
            break;
        }
        // the solver's small eigenvalues of Y are its least accurate: polish (only when needed)
        if let Some((yp, nup)) = polish_purified_dual(r, s, &yv, f) {
            lower = lower.max(purified_dual_bound(r, s, &yv, &yp, nup, f));
            if Bracket::certified("", lower, upper, value).is_ok() {
                break;
            }
        }
        next = top_directions(&candidate, 1)?;
    }
    Ok((lower, upper, value))
}

/// Append the columns of `u` to the orthonormal columns of `basis` by Gram–Schmidt (twice),
/// skipping those in the span (to relative 1e-10); `false` when none was added.
fn extend_orthonormal(basis: &mut Array2<Complex64>, u: &Array2<Complex64>) -> bool {
    let mut grown = false;
    for col in u.columns() {
        let col = col.to_owned().insert_axis(ndarray::Axis(1));
        let norm0 = frobenius(&col);
        let mut v = col;
        for _ in 0..2 {
            let coeff = basis.t().mapv(|z| z.conj()).dot(&v);
            v = &v - &basis.dot(&coeff);
        }
        let n = frobenius(&v);
        if n > 1e-10 * norm0 {
            v.mapv_inplace(|z| z / n);
            // unreachable: every part is a column block of a d-row matrix
            *basis = ndarray::concatenate(ndarray::Axis(1), &[basis.view(), v.view()])
                .expect("same number of rows");
            grown = true;
        }
    }
    grown
}

/// The purified-ball dual restricted to `Y = V S V†` (see [`purified_by_directions`]), solved by
/// Clarabel: `(W, ν, value)` with `W = S + νI` (`k × k`) and `value` the solver's estimate of `t`.
fn restricted_purified_dual(
    r: &Array2<Complex64>,
    s: &Array2<Complex64>,
    basis: &Array2<Complex64>,
    f: f64,
) -> Result<(Array2<Complex64>, f64, f64)> {
    let k = basis.ncols();
    let vh = basis.t().mapv(|z| z.conj());
    let rv = super::hermitian_part(&vh.dot(&r.dot(basis)));
    let sv = super::hermitian_part(&vh.dot(&s.dot(basis)));
    let (rl, rvec) = eigh(&rv)?;
    let root = recompose(
        &rvec,
        &rl.iter().map(|&x| x.max(0.0).sqrt()).collect::<Vec<_>>(),
    );
    let p: f64 = (0..k).map(|i| rv[[i, i]].re).sum();
    let zero = Complex64::new(0.0, 0.0);
    let mut prog = Program::new(false);
    let kappa = prog.scalar();
    let nu = prog.scalar();
    let u2 = prog.scalar();
    let w = prog.herm(k);
    let u = prog.herm(k);
    let id_k = Array2::<Complex64>::eye(k);
    let mut obj = vec![(kappa, -f), (nu, 1.0), (u2, 1.0)];
    obj.extend(u.trace_with(&id_k, 1.0));
    prog.objective(&obj);
    // [[W, κR/2], [κR†/2, U]] ⪰ 0
    let mut off = Array2::from_elem((2 * k, 2 * k), zero);
    for i in 0..k {
        for j in 0..k {
            off[[i, k + j]] = root[[i, j]] * 0.5;
            off[[k + j, i]] = root[[i, j]].conj() * 0.5;
        }
    }
    prog.psd(
        HermExpr::new(2 * k)
            .herm(w, 1.0, 0)
            .herm(u, 1.0, k)
            .scalar(kappa, &off, 1.0),
    );
    // [[ν, κ√(1 − p)/2], [·, u₂]] ⪰ 0
    let unit = |i: usize, j: usize, z: f64| {
        let mut m = Array2::from_elem((2, 2), zero);
        m[[i, j]] = Complex64::new(z, 0.0);
        m[[j, i]] = Complex64::new(z, 0.0);
        m
    };
    prog.psd(
        HermExpr::new(2)
            .scalar(nu, &unit(0, 0, 1.0), 1.0)
            .scalar(kappa, &unit(0, 1, 0.5 * (1.0 - p).max(0.0).sqrt()), 1.0)
            .scalar(u2, &unit(1, 1, 1.0), 1.0),
    );
    // W − νI ⪰ 0
    prog.psd(HermExpr::new(k).herm(w, 1.0, 0).scalar(nu, &id_k, -1.0));
    // Tr((W − νI)σ_V) = 1
    let tr_s: f64 = (0..k).map(|i| sv[[i, i]].re).sum();
    let mut row = w.trace_with(&sv, 1.0);
    row.push((nu, -tr_s));
    prog.linear(vec![(-1.0, row)], true);
    let sol = prog.solve("smooth max-divergence (purified ball, restricted dual)")?;
    let value =
        f * sol.x[kappa] - sol.x[nu] - sol.x[u2] - (0..k).map(|i| sol.x[u.offset + i]).sum::<f64>();
    Ok((w.value(&sol.x), sol.x[nu], value))
}

/// The least `ν' ≥ ν` (to a relative 1e-12, by doubling then bisection on `ln ν'`) with
/// `Tr ρ̃(ν') ≤ 1 − 10⁻¹⁰` for `ρ̃(ν') = c² W⁻¹ρW⁻¹`, `W = Y + ν'I`, `c = f/Tr ρW⁻¹`:
/// in `Y`'s eigenbasis (`a_k = ⟨v_k|ρ|v_k⟩`, `g_k = 1/(y_k + ν')`)
/// `Tr ρ̃ = f² Σ g_k² a_k / (Σ g_k a_k)²`, which tends to `f² < 1` as `ν' → ∞`. The solver's ν
/// makes `Tr ρ̃ = 1` only to its tolerance; an excess would cost the primal repair a mixing with ρ
/// (`s·e^{D_max(ρ‖σ)}`), a larger ν' only a change of the order of the excess.
fn trace_feasible_shift(
    r: &Array2<Complex64>,
    v: &Array2<Complex64>,
    y: &[f64],
    nu: f64,
    f: f64,
) -> f64 {
    let d = r.nrows();
    let a: Vec<f64> = (0..d).map(|k| quadratic_form(r, v, k).max(0.0)).collect();
    let trace = |ln_nu: f64| -> f64 {
        let nu = ln_nu.exp();
        let (mut num, mut den) = (0.0, 0.0);
        for k in 0..d {
            let g = 1.0 / (y[k] + nu);
            num += g * g * a[k];
            den += g * a[k];
        }
        f * f * num / (den * den)
    };
    let target = 1.0 - 1e-10;
    let lo0 = nu.ln();
    if trace(lo0) <= target {
        return nu;
    }
    let (mut lo, mut hi) = (lo0, lo0 + 1e-9);
    let mut step = 1e-9;
    while trace(hi) > target {
        lo = hi;
        step *= 2.0;
        hi = lo0 + step;
        if step > 200.0 {
            return nu;
        }
    }
    for _ in 0..100 {
        if hi - lo <= 1e-12 {
            break;
        }
        let mid = 0.5 * (lo + hi);
        if trace(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi.exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The rank-one and low-rank duals against the subspace route (Clarabel's restricted duals, no
    /// seed) on random pairs: each route's bracket is certified on its own, so the brackets must
    /// overlap; and where the low-rank bracket meets the target it is no wider than the other.
    #[test]
    fn purified_low_rank_matches_subspace_route() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1313);
        for &d in &[2usize, 3, 4, 6] {
            for _ in 0..3 {
                let rho = DensityMatrix::random_bures(d, &mut rng).unwrap();
                let sigma = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
                let eps = 0.1;
                let one = purified_rank_one(&rho, &sigma, eps).unwrap().unwrap();
                let (l, u, _, _) = purified_low_rank(&rho, &sigma, eps, &one).unwrap();
                let (sl, su, _) = purified_by_directions(&rho, &sigma, eps, None).unwrap();
                assert!(one.lower <= su + 1e-12 && sl <= one.upper + 1e-12);
                assert!(
                    l <= su + 1e-12 && sl <= u + 1e-12,
                    "d={d}: [{l}, {u}] vs [{sl}, {su}]"
                );
                assert!(u - l <= 1e-6 * u.abs().max(1.0), "d={d}: [{l}, {u}]");
            }
        }
    }
}
