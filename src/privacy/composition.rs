//! Composition of privacy guarantees: basic, advanced (several published forms), optimal
//! (Kairouz–Oh–Viswanath), RDP/zCDP additivity and tensor products of quantum mechanisms.
//!
//! Every `ε` returned is rounded up (interval arithmetic of [`super::rounding`]); every `δ` too.
//! Heterogeneous sequences are accepted where the theorem allows (basic, advanced DRV, zCDP/RDP
//! additivity); the optimal composition is for `k` copies of one `(ε, δ)` (the heterogeneous
//! optimum is #P-hard, Murtagh–Vadhan 2016).

use super::conversion::cdp_epsilon;
use super::rounding::{pt, Interval};
use super::{check_delta, check_nonneg, smallest_ok, ApproxDp, Qzcdp, RdpCurve, Zcdp};
use crate::error::{Error, Result};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// Largest `k` accepted by [`repeat`] (one 16-byte guarantee per copy).
pub const MAX_REPEAT: usize = 1 << 24;

/// Largest `k` [`compare`] accepts: its exact Kairouz–Oh–Viswanath grid costs `O(k²)` interval
/// operations (≈ 3 s at `k = 10⁴` on one core), the exact curve `O(k)` per bisection step.
pub const MAX_COMPARE_K: usize = 10_000;

fn check_k(k: usize) -> Result<()> {
    if k == 0 {
        Err(Error::invalid("k", 0.0, "need at least one mechanism"))
    } else {
        Ok(())
    }
}

fn check_seq(ms: &[ApproxDp]) -> Result<()> {
    if ms.is_empty() {
        return Err(Error::Empty("sequence of mechanisms".into()));
    }
    for m in ms {
        check_nonneg("epsilon", m.epsilon)?;
        check_delta("delta", m.delta)?;
    }
    Ok(())
}

/// `Σ x_i` rounded up; a sum of `n` equal terms is one product `n·x` (one rounding instead of
/// `n`, so homogeneous compositions stay within an ulp or two of the exact value).
fn sum_up(xs: impl Iterator<Item = f64>) -> f64 {
    sum_interval(xs.map(pt)).hi
}

/// `Σ x_i` enclosed, with the homogeneous fast path of [`sum_up`] (on equal intervals).
fn sum_interval(xs: impl Iterator<Item = Interval>) -> Interval {
    let v: Vec<Interval> = xs.collect();
    match v.first() {
        Some(&x) if v.iter().all(|y| *y == x) => pt(v.len() as f64).mul(x),
        _ => v.iter().fold(pt(0.0), |s, &x| s.add(x)),
    }
}

/// `δ_total = Σ δ_i + δ'` rounded up and capped at 1, after checking `δ' ∈ (0, 1]`.
fn total_delta(ms: &[ApproxDp], delta_prime: f64) -> Result<f64> {
    if !(delta_prime > 0.0 && delta_prime <= 1.0) {
        return Err(Error::invalid(
            "delta_prime",
            delta_prime,
            "must lie in (0, 1]",
        ));
    }
    Ok(sum_up(ms.iter().map(|m| m.delta).chain([delta_prime])).min(1.0))
}

/// Basic composition (Dwork–Roth 2014, Theorem 3.16; seed 003, Theorem 1):
/// `(Σ ε_i, Σ δ_i)` under adaptive composition.
pub fn basic(ms: &[ApproxDp]) -> Result<ApproxDp> {
    check_seq(ms)?;
    Ok(ApproxDp {
        epsilon: sum_up(ms.iter().map(|m| m.epsilon)),
        delta: sum_up(ms.iter().map(|m| m.delta)).min(1.0),
    })
}

/// `k` copies of one guarantee.
pub fn repeat(m: ApproxDp, k: usize) -> Result<Vec<ApproxDp>> {
    check_k(k)?;
    if k > MAX_REPEAT {
        return Err(Error::invalid(
            "k",
            k as f64,
            format!("at most {MAX_REPEAT} copies (one guarantee stored per copy)"),
        ));
    }
    Ok(vec![m; k])
}

/// Advanced composition of Dwork–Rothblum–Vadhan (2010; Dwork–Roth 2014, Theorem 3.20; seed 004
/// §1), heterogeneous form: `ε' = √(2 ln(1/δ') Σ ε_i²) + Σ ε_i(e^{ε_i} − 1)`, `δ = Σ δ_i + δ'`.
/// For `k` copies: `ε' = √(2k ln(1/δ')) ε + kε(e^ε − 1)`. Proof: Azuma on the privacy loss
/// (seed 003), each step bounded by `ε_i` with conditional mean `≤ ε_i(e^{ε_i} − 1)`.
pub fn advanced_drv(ms: &[ApproxDp], delta_prime: f64) -> Result<ApproxDp> {
    check_seq(ms)?;
    let delta = total_delta(ms, delta_prime)?;
    let sq = sum_interval(ms.iter().map(|m| pt(m.epsilon).mul(pt(m.epsilon))));
    let lin = sum_interval(ms.iter().map(|m| pt(m.epsilon).mul(pt(m.epsilon).exp_m1())));
    let root = pt(2.0).mul(log_inv(delta_prime)).mul(sq).sqrt();
    Ok(ApproxDp {
        epsilon: root.add(lin).hi,
        delta,
    })
}

/// `ln(1/δ)` enclosed.
fn log_inv(d: f64) -> Interval {
    pt(d).ln().neg()
}

/// `√(2k ln(1/δ')) ε` enclosed.
fn drv_root(eps: f64, k: usize, delta_prime: f64) -> Interval {
    pt(2.0)
        .mul(pt(k as f64))
        .mul(log_inv(delta_prime))
        .sqrt()
        .mul(pt(eps))
}

/// Seed 003, Theorem 2 *as printed*: `ε' = √(2k ln(1/δ)) + k(e^ε − 1)` for `k` pure `ε`-DP
/// mechanisms, `δ_total = δ`. The print drops two factors `ε`; the seed's own proof yields
/// [`advanced_drv`]. The printed form is still a valid (looser) bound: for `ε ≤ 1` it dominates
/// DRV term by term, and for every `ε` it is at least `k(e^ε − 1) ≥ kε`, basic composition.
pub fn advanced_seed003_printed(eps: f64, k: usize, delta: f64) -> Result<ApproxDp> {
    check_nonneg("epsilon", eps)?;
    check_k(k)?;
    let d = total_delta(&[], delta)?;
    let root = pt(2.0).mul(pt(k as f64)).mul(log_inv(delta)).sqrt();
    let lin = pt(k as f64).mul(pt(eps).exp_m1());
    Ok(ApproxDp {
        epsilon: root.add(lin).hi,
        delta: d,
    })
}

/// Seed 000, Theorem 18 (Dwork–Rothblum 2016, via mean-concentrated DP):
/// `ε' = √(2k ln(1/δ')) ε + kε(e^ε − 1)/2`, `δ_total = kδ + δ'`.
pub fn advanced_dr16(eps: f64, delta: f64, k: usize, delta_prime: f64) -> Result<ApproxDp> {
    let ms = repeat(ApproxDp::new(eps, delta)?, k)?;
    check_seq(&ms)?;
    let d = total_delta(&ms, delta_prime)?;
    let lin = pt(k as f64).mul(pt(eps)).mul(pt(eps).exp_m1()).mul(pt(0.5));
    Ok(ApproxDp {
        epsilon: drv_root(eps, k, delta_prime).add(lin).hi,
        delta: d,
    })
}

/// Seed 000, Theorem 20 ("new" advanced composition; the same bound as Bun–Steinke 2016,
/// Cor. 8.? via zCDP): `ε' = kε²/2 + √(2k ln(1/δ')) ε`, `δ_total = kδ + δ'`. Proof: each
/// `(ε, δ)` pair is `δ/(e^ε+1)`-close to a pair with `D_∞ ≤ ε` both ways (Dwork–Roth Lemma 3.17),
/// whose `D_α ≤ ½ε²α` (Theorem 7); divergences add (Theorem 9); Lemma 19 with the optimal
/// `α = 1 + √(2 ln(1/δ')/k)/ε`. The seed proves it for independent (non-adaptive) mechanisms.
pub fn advanced_seed000_theorem20(
    eps: f64,
    delta: f64,
    k: usize,
    delta_prime: f64,
) -> Result<ApproxDp> {
    let ms = repeat(ApproxDp::new(eps, delta)?, k)?;
    check_seq(&ms)?;
    let d = total_delta(&ms, delta_prime)?;
    let quad = pt(k as f64).mul(pt(eps)).mul(pt(eps)).mul(pt(0.5));
    Ok(ApproxDp {
        epsilon: quad.add(drv_root(eps, k, delta_prime)).hi,
        delta: d,
    })
}

/// The zCDP route for pure mechanisms: `ε_i`-DP ⇒ `ε_i²/2`-zCDP, zCDP adds, then the optimal
/// conversion `ε = cdp_epsilon(Σ ε_i²/2, δ')` (Bun–Steinke 2016; seed 001 Corollary 2). Only for
/// `δ_i = 0`; always at least as tight as [`advanced_seed000_theorem20`].
pub fn advanced_zcdp(ms: &[ApproxDp], delta_prime: f64) -> Result<ApproxDp> {
    check_seq(ms)?;
    if let Some(m) = ms.iter().find(|m| m.delta > 0.0) {
        return Err(Error::invalid(
            "delta",
            m.delta,
            "the zCDP route applies to pure (δ = 0) mechanisms only",
        ));
    }
    let d = total_delta(ms, delta_prime)?;
    let rho = sum_interval(ms.iter().map(|m| pt(m.epsilon).mul(pt(m.epsilon))))
        .mul(pt(0.5))
        .hi;
    Ok(ApproxDp {
        epsilon: cdp_epsilon(rho, delta_prime)?,
        delta: d,
    })
}

/// `ln C(k, l)` for `l = 0..=k`, enclosed (running sums of `ln((k−l)/(l+1))`).
fn ln_binomials(k: usize) -> Vec<Interval> {
    let mut out = Vec::with_capacity(k + 1);
    let mut c = pt(0.0);
    out.push(c);
    for l in 0..k {
        c = c.add(pt((k - l) as f64).div(pt((l + 1) as f64)).ln());
        out.push(c);
    }
    out
}

/// Exact optimal `δ_total(ε_total)` of the `k`-fold adaptive composition of `(ε, δ)`-DP
/// mechanisms (Kairouz–Oh–Viswanath 2015, Theorems 3.3–3.4):
///
/// `δ_total = 1 − (1−δ)^k + (1−δ)^k Σ_{l=0}^{k} C(k,l) (e^{(k−l)ε} − e^{ε_total + lε})_+ / (1+e^ε)^k`,
///
/// the hockey-stick divergence of `k` copies of the canonical `(ε, δ)` pair (randomized response
/// plus a `δ` atom). At `ε_total = (k − 2i)ε` this is KOV's `1 − (1−δ)^k (1 − δ_i)`. Log-space
/// terms, each enclosed; the upper end is returned (capped at 1). Cost `O(k)`.
pub fn kov_delta(eps: f64, delta: f64, k: usize, eps_total: f64) -> Result<f64> {
    check_nonneg("epsilon", eps)?;
    check_delta("delta", delta)?;
    check_k(k)?;
    if eps_total.is_nan() || eps_total < 0.0 {
        return Err(Error::invalid("eps_total", eps_total, "must be ≥ 0"));
    }
    Ok(KovTable::new(eps, delta, k).delta(eps_total))
}

/// Precomputed pieces of [`kov_delta`] for repeated evaluation.
struct KovTable {
    eps: f64,
    k: usize,
    /// `ln C(k,l) + (k−l)ε − k ln(1+e^ε)`, enclosed
    log_p: Vec<Interval>,
    /// `1 − (1−δ)^k` and `(1−δ)^k`, enclosed
    fail: Interval,
    keep: Interval,
}

impl KovTable {
    fn new(eps: f64, delta: f64, k: usize) -> Self {
        let kf = pt(k as f64);
        let norm = kf.mul(pt(eps).exp().add(pt(1.0)).ln());
        let log_p = ln_binomials(k)
            .into_iter()
            .enumerate()
            .map(|(l, c)| c.add(pt((k - l) as f64).mul(pt(eps))).sub(norm))
            .collect();
        let inner = kf.mul(pt(-delta).ln_1p());
        KovTable {
            eps,
            k,
            log_p,
            fail: inner.exp_m1().neg(),
            keep: inner.exp(),
        }
    }

    /// Upper end of the enclosure of `δ_total(ε_total)`.
    fn delta(&self, eps_total: f64) -> f64 {
        let mut h = pt(0.0);
        for (l, lp) in self.log_p.iter().enumerate() {
            // privacy loss of outcome class l is (k − 2l)ε
            let loss = pt((self.k as f64) - 2.0 * l as f64).mul(pt(self.eps));
            if loss.hi <= eps_total {
                break;
            }
            let factor = pt(eps_total).sub(loss).exp_m1().neg().max(pt(0.0));
            h = h.add(lp.exp().mul(factor));
        }
        let total = self.fail.add(self.keep.mul(h));
        total.hi.min(1.0)
    }
}

/// Smallest `ε_total` with optimal `δ_total(ε_total) ≤ target` (Kairouz–Oh–Viswanath, exact
/// curve; bisection on the nonincreasing [`kov_delta`], upper end returned). `+∞` when even
/// `ε_total = kε` needs more than `target` (i.e. `1 − (1−δ)^k > target`).
pub fn kov_epsilon(eps: f64, delta: f64, k: usize, delta_total: f64) -> Result<f64> {
    check_nonneg("epsilon", eps)?;
    check_delta("delta", delta)?;
    check_delta("delta_total", delta_total)?;
    check_k(k)?;
    let t = KovTable::new(eps, delta, k);
    // δ_total(ε_total) is nonincreasing; the bracket is [0, kε] (no expansion: cap = kε)
    let top = pt(k as f64) * pt(eps);
    let found = smallest_ok(0.0, top.hi, top.hi, |e| Ok(t.delta(e) <= delta_total))?;
    Ok(found.unwrap_or(f64::INFINITY))
}

/// Kairouz–Oh–Viswanath 2015, Theorem 3.3 in its published grid form: the smallest
/// `ε_i = (k − 2i)ε`, `i ∈ {0, …, ⌊k/2⌋}`, whose `δ_i`-total `1 − (1−δ)^k (1 − δ_i)` is at most
/// `delta_total` (with `δ_i = Σ_{l<i} C(k,l)(e^{(k−l)ε} − e^{(k−2i+l)ε})/(1+e^ε)^k`). Published
/// check: `(ε, δ) = (1, 0.001)`, `k = 30` gives 22 at `δ_total = 0.06` and 20 at 0.1.
/// `+∞` when no grid point qualifies. Never below [`kov_epsilon`].
pub fn kov_epsilon_grid(eps: f64, delta: f64, k: usize, delta_total: f64) -> Result<f64> {
    check_nonneg("epsilon", eps)?;
    check_delta("delta", delta)?;
    check_delta("delta_total", delta_total)?;
    check_k(k)?;
    let t = KovTable::new(eps, delta, k);
    let mut best = f64::INFINITY;
    for i in 0..=k / 2 {
        let e = pt((k - 2 * i) as f64).mul(pt(eps));
        // δ at the exact grid point is at most δ evaluated at the enclosure's lower end
        if t.delta(e.lo) <= delta_total {
            best = e.hi;
        } else {
            break;
        }
    }
    Ok(best)
}

/// RDP composition: `D_α` adds under (adaptive) composition (Mironov 2017, Prop. 1; seed 004
/// §2.2.4; seed 000 Theorem 9). The result keeps the orders common to every curve, with
/// `τ = Σ τ_i` rounded up. Error when the curves share no order.
pub fn compose_rdp(curves: &[RdpCurve]) -> Result<RdpCurve> {
    let first = curves
        .first()
        .ok_or_else(|| Error::Empty("list of RDP curves".into()))?;
    let mut pts = Vec::new();
    for p in first.points() {
        let taus: Option<Vec<f64>> = curves
            .iter()
            .map(|c| {
                c.points()
                    .iter()
                    .find(|q| q.alpha == p.alpha)
                    .map(|q| q.tau)
            })
            .collect();
        if let Some(t) = taus {
            pts.push((p.alpha, sum_up(t.into_iter())));
        }
    }
    if pts.is_empty() {
        return Err(Error::Empty(
            "common Rényi orders of the composed curves".into(),
        ));
    }
    RdpCurve::new(&pts)
}

/// zCDP composition: `(Σ ξ_i, Σ ρ_i)` (Bun–Steinke 2016, Lemma 2.3), rounded up.
pub fn compose_zcdp(zs: &[Zcdp]) -> Result<Zcdp> {
    if zs.is_empty() {
        return Err(Error::Empty("list of zCDP guarantees".into()));
    }
    Ok(Zcdp {
        xi: sum_up(zs.iter().map(|z| z.xi)),
        rho: sum_up(zs.iter().map(|z| z.rho)),
    })
}

/// Tensor-product composition of quantum mechanisms: all three families are additive,
/// `D_α(ρ₁⊗ρ₂‖σ₁⊗σ₂) = D_α(ρ₁‖σ₁) + D_α(ρ₂‖σ₂)`, so `(ξ_i, ρ_i)`-qzCDP mechanisms run on
/// separate registers compose to `(Σ ξ_i, Σ ρ_i)`-qzCDP. All guarantees must use one family.
/// (Adaptive composition through quantum side information is not covered.)
pub fn compose_qzcdp_tensor(qs: &[Qzcdp]) -> Result<Qzcdp> {
    let first = qs
        .first()
        .ok_or_else(|| Error::Empty("list of qzCDP guarantees".into()))?;
    if let Some(q) = qs.iter().find(|q| q.family != first.family) {
        return Err(Error::Parse {
            what: "qzCDP families".into(),
            reason: format!(
                "cannot add a {} bound to a {} bound",
                q.family.name(),
                first.family.name()
            ),
        });
    }
    let z = compose_zcdp(&qs.iter().map(|q| q.as_zcdp()).collect::<Vec<_>>())?;
    Qzcdp::new(z.xi, z.rho, first.family)
}

/// One row of [`compare`]: a composition theorem's `ε_total` at the common `δ_total`.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundRow {
    /// Short name of the theorem.
    pub name: &'static str,
    /// Where it comes from.
    pub source: &'static str,
    /// `ε_total` (rounded up), or `None` when the theorem does not apply to these parameters.
    pub epsilon: Option<f64>,
    /// `δ_total` the row guarantees (`≤` the requested one).
    pub delta: f64,
    /// Why the theorem does not apply, if it does not.
    pub note: Option<String>,
}

/// Every applicable composition bound for `k` copies of `(ε, δ)` at total `δ_total`, side by side;
/// the index of the tightest (smallest `ε_total`) applicable row is returned alongside.
/// Advanced bounds use `δ' = δ_total − kδ` (not applicable when `δ' ≤ 0`).
pub fn compare(
    eps: f64,
    delta: f64,
    k: usize,
    delta_total: f64,
) -> Result<(Vec<BoundRow>, Option<usize>)> {
    let m = ApproxDp::new(eps, delta)?;
    check_nonneg("epsilon", eps)?;
    check_delta("delta_total", delta_total)?;
    if k > MAX_COMPARE_K {
        return Err(Error::invalid(
            "k",
            k as f64,
            format!(
                "at most {MAX_COMPARE_K}: the exact optimal (Kairouz–Oh–Viswanath) bound costs \
                 O(k²), seconds at k = 10⁴; for larger k compose the zCDP/RDP guarantees \
                 (additive, O(1))"
            ),
        ));
    }
    let ms = repeat(m, k)?;
    let kd = sum_up(ms.iter().map(|m| m.delta));
    let dprime = pt(delta_total).sub(pt(kd)).lo;
    let mut rows = Vec::new();
    let mut push = |name, source, r: Result<ApproxDp>| {
        let (epsilon, d, note) = match r {
            Ok(a) => (Some(a.epsilon), a.delta, None),
            Err(e) => (None, delta_total, Some(e.to_string())),
        };
        rows.push(BoundRow {
            name,
            source,
            epsilon,
            delta: d,
            note,
        });
    };
    let basic_res = basic(&ms).and_then(|b| {
        if b.delta <= delta_total {
            Ok(b)
        } else {
            Err(Error::invalid(
                "delta_total",
                delta_total,
                format!("basic composition needs δ_total ≥ kδ = {}", b.delta),
            ))
        }
    });
    push(
        "basic",
        "Dwork–Roth 2014 Thm 3.16; seed 003 Thm 1",
        basic_res,
    );
    let dp_ok = |f: &dyn Fn(f64) -> Result<ApproxDp>| {
        if dprime > 0.0 {
            f(dprime)
        } else {
            Err(Error::invalid(
                "delta_total",
                delta_total,
                format!("advanced bounds need δ_total > kδ = {kd}"),
            ))
        }
    };
    push(
        "advanced-drv",
        "Dwork–Rothblum–Vadhan 2010; Dwork–Roth Thm 3.20; seed 004",
        dp_ok(&|d| advanced_drv(&ms, d)),
    );
    push(
        "advanced-seed003-printed",
        "seed 003 Thm 2 as printed (pure mechanisms; looser than its proof)",
        if delta == 0.0 {
            advanced_seed003_printed(eps, k, delta_total)
        } else {
            Err(Error::invalid(
                "delta",
                delta,
                "stated for pure (δ = 0) mechanisms",
            ))
        },
    );
    push(
        "advanced-dr16",
        "Dwork–Rothblum 2016; seed 000 Thm 18",
        dp_ok(&|d| advanced_dr16(eps, delta, k, d)),
    );
    push(
        "advanced-seed000-thm20",
        "seed 000 Thm 20 (= Bun–Steinke 2016 zCDP bound)",
        dp_ok(&|d| advanced_seed000_theorem20(eps, delta, k, d)),
    );
    push(
        "zcdp-optimal-conversion",
        "ε²/2-zCDP per mechanism, additivity, seed 001 Cor. 2 (pure only)",
        dp_ok(&|d| advanced_zcdp(&ms, d)),
    );
    push(
        "kov-optimal",
        "Kairouz–Oh–Viswanath 2015 Thm 3.3–3.4, exact curve",
        kov_epsilon(eps, delta, k, delta_total).and_then(|e| finite_row(e, delta_total)),
    );
    push(
        "kov-grid",
        "Kairouz–Oh–Viswanath 2015 Thm 3.3, grid ε = (k−2i)ε",
        kov_epsilon_grid(eps, delta, k, delta_total).and_then(|e| finite_row(e, delta_total)),
    );
    let best = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.epsilon.map(|e| (i, e)))
        .fold(None, |b: Option<(usize, f64)>, (i, e)| match b {
            Some((_, be)) if be <= e => b,
            _ => Some((i, e)),
        })
        .map(|(i, _)| i);
    Ok((rows, best))
}

fn finite_row(e: f64, delta_total: f64) -> Result<ApproxDp> {
    if e.is_finite() {
        Ok(ApproxDp {
            epsilon: e,
            delta: delta_total,
        })
    } else {
        Err(Error::invalid(
            "delta_total",
            delta_total,
            "below 1 − (1−δ)^k: no finite ε_total",
        ))
    }
}

/// `ε_total` of `k`-fold composition by the tightest applicable bound (see [`compare`]).
pub fn best_epsilon(eps: f64, delta: f64, k: usize, delta_total: f64) -> Result<f64> {
    let (rows, best) = compare(eps, delta, k, delta_total)?;
    Ok(best.and_then(|i| rows[i].epsilon).unwrap_or(f64::INFINITY))
}
