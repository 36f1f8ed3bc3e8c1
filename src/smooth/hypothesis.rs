//! Hypothesis-testing divergence `D_H^ε` (docs/smooth.md, "Hypothesis testing").
//!
//! Primal `β = min{Tr Qσ : 0 ⪯ Q ⪯ I, Tr Qρ ≥ 1 − ε}`; dual
//! `β = max_{μ ≥ 0} μ(1 − ε) − Tr(μρ − σ)_+` (the operator `Y ⪰ 0` of `Q ⪯ I` is optimal at
//! `(μρ − σ)_+`), so every `μ ≥ 0` is dual feasible and `Tr(μρ − σ)_+ = μ E_{1/μ}(ρ‖σ)` is the
//! core's hockey-stick divergence.

use num_complex::Complex64;

use super::conic::{HermExpr, Program};
use super::{
    check_epsilon, check_pair, down, eigh, is_real, recompose, slack, trace_product, up, Bracket,
};
use crate::divergence::Pair;
use crate::state::DensityMatrix;
use crate::Result;

/// `D_H^ε(ρ‖σ) = −ln min{Tr Qσ : 0 ⪯ Q ⪯ I, Tr Qρ ≥ 1 − ε}`, ε ∈ [0, 1), as a certified bracket.
///
/// `ε = 0` gives `−ln Tr Π_ρ σ` (`Π_ρ` the support projector of ρ). Returns `+∞` (all three) when
/// the optimal test has `Tr Qσ = 0` to rounding (`supp ρ ⟂ supp σ`).
///
/// Errors: [`crate::Error::InvalidParameter`] (ε), [`crate::Error::DimensionMismatch`],
/// [`crate::Error::SmoothNotCertified`] when the bracket is wider than
/// [`super::TARGET_WIDTH`]`·max(1, |value|)`.
pub fn hypothesis_testing(rho: &DensityMatrix, sigma: &DensityMatrix, eps: f64) -> Result<Bracket> {
    check_epsilon("epsilon", eps, true)?;
    check_pair(rho, sigma)?;
    let d = rho.dim();
    let (r, s) = (rho.matrix(), sigma.matrix());
    if eps == 0.0 {
        // Tr Qρ ≥ 1 with Q ⪯ I forces Q ⪰ Π_ρ, so β = Tr Π_ρ σ (closed form; the SDP's dual is
        // not attained when ρ is rank-deficient).
        let beta = trace_product(&rho.eigen()?.support_projector(), s);
        let (lo, hi) = (down(beta - slack(d, 1.0)), up(beta + slack(d, 1.0)));
        let lower = if hi > 0.0 {
            down(-hi.ln())
        } else {
            f64::INFINITY
        };
        let upper = if lo > 0.0 {
            up(-lo.ln())
        } else {
            f64::INFINITY
        };
        return Bracket::certified("hypothesis-testing divergence", lower, upper, -beta.ln());
    }
    let real = is_real(r) && is_real(s);
    let id = ndarray::Array2::<Complex64>::eye(d);

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
    let pair = Pair::new(rho, sigma)?;
    let g = |mu: f64| -> Result<f64> {
        if mu <= 0.0 {
            return Ok(0.0);
        }
        let e = mu * pair.hockey_stick(1.0 / mu)?;
        Ok(down(mu * (1.0 - eps) - e - slack(d, mu.max(1.0))))
    };
    let mu = polish(mu0, &g)?;
    let beta_low = g(mu)?.max(0.0);
    let beta_up = beta_solver.min(neyman_pearson_test(rho, sigma, eps, mu)?);
    let beta_mid = trace_product(&q.value(&sol.x), s);
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
    let quad = |a: &ndarray::Array2<Complex64>, k: usize| -> f64 {
        let col = v.column(k);
        let mut acc = Complex64::new(0.0, 0.0);
        for i in 0..d {
            for j in 0..d {
                acc += col[i].conj() * a[[i, j]] * col[j];
            }
        }
        acc.re
    };
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
