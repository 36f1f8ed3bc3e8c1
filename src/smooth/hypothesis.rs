//! Hypothesis-testing divergence `D_H^ε` (docs/smooth.md, "Hypothesis testing").
//!
//! Primal `β = min{Tr Qσ : 0 ⪯ Q ⪯ I, Tr Qρ ≥ 1 − ε}`; dual
//! `β = max_{μ ≥ 0} μ(1 − ε) − Tr(μρ − σ)_+` (the operator `Y ⪰ 0` of `Q ⪯ I` is optimal at
//! `(μρ − σ)_+`), so every `μ ≥ 0` is dual feasible and `Tr(μρ − σ)_+ = μ E_{1/μ}(ρ‖σ)` is the
//! core's hockey-stick divergence.

use ndarray::Array2;
use num_complex::Complex64;

use super::conic::{HermExpr, Program};
use super::{
    bisect, check_epsilon, check_pair, down, eigh, infinite, is_real, quadratic_form, recompose,
    slack, support_weights, trace_product, up, Bracket,
};
use crate::divergence::Pair;
use crate::spectral::zero_threshold;
use crate::state::DensityMatrix;
use crate::Result;

/// `D_H^ε(ρ‖σ) = −ln min{Tr Qσ : 0 ⪯ Q ⪯ I, Tr Qρ ≥ 1 − ε}`, ε ∈ [0, 1), as a certified bracket.
///
/// `ε = 0` gives `−ln Tr Π_ρ σ` (`Π_ρ` the support projector of ρ). Returns `+∞` (all three) when
/// a test supported on `ker σ` passes, `Tr Π_{supp σ} ρ ≤ ε` (decided before any solve, with a
/// rounding margin; `ρ ⟂ σ` by the zero threshold at ε = 0; docs/smooth.md, "Certified +∞"), or
/// the optimal test has `Tr Qσ = 0` to rounding.
///
/// Errors: [`crate::Error::InvalidParameter`] (ε), [`crate::Error::DimensionMismatch`],
/// [`crate::Error::SmoothNotCertified`] when the bracket is wider than
/// [`super::TARGET_WIDTH`]`·max(1, |value|)`.
pub fn hypothesis_testing(rho: &DensityMatrix, sigma: &DensityMatrix, eps: f64) -> Result<Bracket> {
    // hundreds of small eigensolves: one BLAS thread (multi-threaded LAPACK on d ≤ 64 costs more
    // in synchronisation than it saves; docs/PERFORMANCE.md "Smooth divergences")
    crate::spectral::with_single_blas_thread(|| hypothesis_testing_1t(rho, sigma, eps))
}

fn hypothesis_testing_1t(rho: &DensityMatrix, sigma: &DensityMatrix, eps: f64) -> Result<Bracket> {
    check_epsilon("epsilon", eps, true)?;
    check_pair(rho, sigma)?;
    let d = rho.dim();
    if rejects_nothing_of_sigma(rho, sigma, eps)? {
        return infinite("hypothesis-testing divergence");
    }
    let s = sigma.matrix();
    if eps == 0.0 {
        // Tr Qρ ≥ 1 with Q ⪯ I forces Q ⪰ Π_ρ, so β = Tr Π_ρ σ (closed form; the SDP's dual is
        // not attained when ρ is rank-deficient).
        let beta = trace_product(&rho.eigen()?.support_projector(), s);
        return certify((down(beta - slack(d, 1.0)), up(beta + slack(d, 1.0)), beta));
    }
    // The one-dimensional dual first (no conic solve): μ* by bisection on the dual's subgradient,
    // certified by `g(μ)` below and the Neyman–Pearson test of `μρ − σ` above.
    let pair = Pair::new(rho, sigma)?;
    let mut best: Option<(f64, f64, f64)> = None;
    if let Some((lo, hi)) = crossing_multiplier(rho, sigma, eps)? {
        let beta_low = dual_value(&pair, eps, lo)?.max(dual_value(&pair, eps, hi)?);
        let beta_up = neyman_pearson_test(rho, sigma, eps, hi)?
            .min(neyman_pearson_test(rho, sigma, eps, lo)?);
        let found = (beta_low, beta_up, 0.5 * (beta_low + beta_up));
        if certify(found).is_ok() {
            return certify(found);
        }
        best = Some(found);
    }
    let (mut beta_low, mut beta_up, beta_mid) = by_conic_program(rho, sigma, eps, &pair)?;
    if let Some((l, u, _)) = best {
        beta_low = beta_low.max(l);
        beta_up = beta_up.min(u);
    }
    certify((beta_low, beta_up, beta_mid))
}

/// Whether a test supported on `ker σ` reaches `Tr Qρ ≥ 1 − ε`, i.e. `β = 0` and `D_H^ε = +∞`
/// (docs/smooth.md, "Certified +∞": the largest `Tr Qρ` over `0 ⪯ Q ⪯ Π_{ker σ}` is
/// `Tr Π_{ker σ} ρ`, so this holds iff `Tr Π_{supp σ} ρ ≤ ε`). Decided with the rounding margin
/// of [`support_weights`], or — for the weight 0 that `ε = 0` needs — by the zero threshold, as
/// every support decision of the crate (`Tr Π_{supp σ} ρ ≤ τ(d, λ_max ρ)`: `ρ ⟂ σ`). `false`
/// leaves the decision to the solver.
fn rejects_nothing_of_sigma(rho: &DensityMatrix, sigma: &DensityMatrix, eps: f64) -> Result<bool> {
    let d = rho.dim();
    let (on, _, margin) = support_weights(rho, sigma)?;
    if on + margin <= eps {
        return Ok(true);
    }
    Ok(on <= zero_threshold(d, 1.0) && on <= zero_threshold(d, rho.eigen()?.max_value()))
}

/// The bracket on `D_H^ε = −ln β` from bounds `(β_low, β_up, β_solver)`.
fn certify((beta_low, beta_up, beta_mid): (f64, f64, f64)) -> Result<Bracket> {
    let lower = if beta_up > 0.0 {
        down(-beta_up.ln())
    } else {
        f64::INFINITY
    };
    let upper = if beta_low > 0.0 {
        up(-beta_low.ln())
    } else {
        f64::INFINITY
    };
    Bracket::certified(
        "hypothesis-testing divergence",
        lower,
        upper,
        -beta_mid.ln(),
    )
}

/// Dual value `g(μ) = μ(1 − ε) − μE_{1/μ}(ρ‖σ)`, rounded down: a lower bound on β for every μ ≥ 0.
fn dual_value(pair: &Pair, eps: f64, mu: f64) -> Result<f64> {
    if mu <= 0.0 {
        return Ok(0.0);
    }
    let d = pair.rho().dim();
    let e = mu * pair.hockey_stick(1.0 / mu)?;
    Ok(down(mu * (1.0 - eps) - e - slack(d, mu.max(1.0))))
}

/// `Tr Π_{>0}(μρ − σ) ρ`, the ρ-weight of the positive part of `μρ − σ`: `1 − ε` minus it is the
/// right derivative of the concave dual `g(μ)` (envelope theorem), nondecreasing in μ.
fn positive_weight(rho: &DensityMatrix, sigma: &DensityMatrix, mu: f64) -> Result<f64> {
    let (r, s) = (rho.matrix(), sigma.matrix());
    let (lam, v) = eigh(&(r.mapv(|z| z * mu) - s))?;
    let mut w = 0.0;
    for (k, &l) in lam.iter().enumerate() {
        if l > 0.0 {
            w += quadratic_form(r, &v, k);
        }
    }
    Ok(w)
}

/// The dual optimum μ* (where `Tr Π_{>0}(μρ − σ)ρ` crosses `1 − ε`, i.e. `0 ∈ ∂g(μ*)`) bracketed to
/// relative `4u` by doubling then bisection: `(lo, hi)` with the weight `< 1 − ε` at `lo` and
/// `≥ 1 − ε` at `hi`. `None` when no finite μ reaches `1 − ε` (then `β = 0` or rounding decides).
fn crossing_multiplier(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
) -> Result<Option<(f64, f64)>> {
    let target = 1.0 - eps;
    let (mut lo, mut hi) = (0.0, 1.0);
    while positive_weight(rho, sigma, hi)? < target {
        lo = hi;
        hi *= 2.0;
        if hi > 1e300 {
            return Ok(None);
        }
    }
    let below = &mut |mu: f64| Ok(positive_weight(rho, sigma, mu)? < target);
    Ok(Some(bisect(below, lo, hi)?))
}

/// The conic program (Clarabel) with its repaired primal and polished dual: `(β_low, β_up, β_solver)`.
fn by_conic_program(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
    pair: &Pair,
) -> Result<(f64, f64, f64)> {
    let d = rho.dim();
    let (r, s) = (rho.matrix(), sigma.matrix());
    let real = is_real(r) && is_real(s);
    let id = Array2::<Complex64>::eye(d);

    let mut prog = Program::new(real);
    let q = prog.herm(d);
    prog.objective(&q.trace_with(s, 1.0));
    prog.psd(HermExpr::new(d).herm(q, 1.0, 0));
    prog.psd(HermExpr::new(d).constant(&id, 1.0, 0).herm(q, -1.0, 0));
    let lin = prog.linear(vec![(-(1.0 - eps), q.trace_with(r, 1.0))], false);
    let sol = prog.solve("hypothesis-testing divergence")?;
    let mu0 = sol.z[lin][0].max(0.0);

    // Upper bound on β from the repaired primal test.
    let (lam, v) = eigh(&q.value(&sol.x))?;
    let eta = slack(d, 1.0);
    let clipped: Vec<f64> = lam.iter().map(|&x| x.clamp(eta, 1.0 - eta)).collect();
    let mut test = recompose(&v, &clipped);
    let a = trace_product(&test, r) - slack(d, 1.0);
    if a < 1.0 - eps {
        let t = ((1.0 - eps - a) / (1.0 - a)).min(1.0);
        let t = up(t).min(1.0);
        test = test.mapv(|z| z * (1.0 - t)) + &id.mapv(|z| z * t);
    }
    let beta_solver = up(trace_product(&test, s) + slack(d, 1.0));

    // Lower bound on β from the best μ near the solver's multiplier.
    let g = |mu: f64| dual_value(pair, eps, mu);
    let mu = polish(mu0, &g)?;
    let beta_low = g(mu)?.max(0.0);
    let beta_up = beta_solver.min(neyman_pearson_test(rho, sigma, eps, mu)?);
    let beta_mid = trace_product(&q.value(&sol.x), s);
    Ok((beta_low, beta_up, beta_mid))
}

/// Maximise the concave `g` near `mu0` by golden-section search on `[0.8μ₀, 1.25μ₀]` (the dual
/// value at any `μ ≥ 0` is valid; this only sharpens the bound). Returns the best point seen.
fn polish(mu0: f64, g: &dyn Fn(f64) -> Result<f64>) -> Result<f64> {
    if mu0 <= 0.0 {
        return Ok(0.0);
    }
    let phi = 0.5 * (5f64.sqrt() - 1.0);
    let (mut a, mut b) = (0.8 * mu0, 1.25 * mu0);
    let mut c = b - phi * (b - a);
    let mut e = a + phi * (b - a);
    let (mut gc, mut ge) = (g(c)?, g(e)?);
    let (mut best, mut gbest) = (mu0, g(mu0)?);
    for _ in 0..60 {
        if gc > gbest {
            (best, gbest) = (c, gc);
        }
        if ge > gbest {
            (best, gbest) = (e, ge);
        }
        if gc >= ge {
            b = e;
            e = c;
            ge = gc;
            c = b - phi * (b - a);
            gc = g(c)?;
        } else {
            a = c;
            c = e;
            gc = ge;
            e = a + phi * (b - a);
            ge = g(e)?;
        }
        if b - a <= 1e-13 * mu0 {
            break;
        }
    }
    Ok(best)
}

/// Upper bound on β from the quantum Neyman–Pearson test of `μρ − σ`: with eigenvectors `v_k` in
/// decreasing eigenvalue order, `Q = Σ_{k<m} v_k v_k† + θ v_m v_m†`, the smallest `m` and `θ ∈ [0, 1]`
/// (rounded up) with `Tr Qρ ≥ 1 − ε`. Always feasible (`0 ⪯ Q ⪯ I`); optimal when the eigenvalue
/// `0` of `μρ − σ` is simple and μ is the dual optimum. `+∞` when rounding leaves it infeasible.
fn neyman_pearson_test(
    rho: &DensityMatrix,
    sigma: &DensityMatrix,
    eps: f64,
    mu: f64,
) -> Result<f64> {
    let d = rho.dim();
    let (r, s) = (rho.matrix(), sigma.matrix());
    let m = r.mapv(|z| z * mu) - s;
    let (_, v) = eigh(&m)?;
    let quad = |a: &Array2<Complex64>, k: usize| quadratic_form(a, &v, k);
    let need = 1.0 - eps + slack(d, 1.0);
    let (mut got, mut beta) = (0.0, 0.0);
    for k in (0..d).rev() {
        let (pr, ps) = (quad(r, k).max(0.0), quad(s, k).max(0.0));
        if got + pr >= need {
            let theta = up((need - got) / pr).min(1.0);
            return Ok(up(beta + theta * ps + slack(d, 1.0)));
        }
        got += pr;
        beta += ps;
    }
    Ok(f64::INFINITY)
}
