//! Certified qzCDP checks and fits, and the pure-DP / `(ε, δ)` views of neighbouring pairs.
//!
//! **Check.** Does `D_α(ρ‖σ) ≤ ξ + ρα` hold for every `α ∈ (1, ∞)`? Each family is
//! nondecreasing in α (Petz and maximal: they are classical Rényi divergences of fixed
//! distributions — Nussbaum–Szkoła and the `(w_k t_k, w_k)` reduction — and classical `D_α` is
//! nondecreasing, van Erven–Harremoës 2014 Thm 3, seed 000 Theorem 6; sandwiched: Müller-Lennert
//! et al. 2013 Thm 7, Beigi 2013, Tomamichel 2016 Cor. 4.3). Hence an interval `[a, b]` is
//! *certified* when `D_b ≤ ξ + ρa`: for `α ∈ [a, b]`, `D_α ≤ D_b ≤ ξ + ρa ≤ ξ + ρα`. The tail
//! `[T, ∞)` is certified by `D_∞ ≤ ξ + ρT`, and the `α → 1` end by the interval `[1, b]` with
//! `D_b ≤ ξ + ρ`. Intervals that fail are split until `(1, ∞)` is covered or an order with
//! `D_α > ξ + ρα` (a witness) is found. `D_∞ = ∞` (supports differ) means `D_α = ∞` for every
//! α > 1: violated.
//!
//! **Fit.** `ρ*(ξ) = sup_{α>1} (D_α − ξ)/α` by branch and bound. On `[a, b]` the bound is the
//! smaller of the monotone one, `(D_b − ξ)/a` (or `/b` when negative), and [`secant_bound`]:
//! `ψ(α) = (α − 1)D_α` is convex on `(1, ∞)` for all three families, so its secant through the
//! ends bounds it above, with an excess second order in `b − a` (a `1e-6` fit with an interior
//! maximiser takes tens of evaluations, where first-order bounds took thousands). The split
//! points of up to `FIT_BATCH` (4) intervals are evaluated together as one α-curve
//! ([`Pair::curve`]: sandwiched orders in parallel). The returned `ρ` is the largest bound of the
//! certified cover ([`FitResult::cover`]), within a relative tolerance (default `1e-6`) of the
//! best value found, or as close as the numerical slack allows; the maximising α is reported
//! (`1` for the `α → 1⁺` limit, `∞` when the supremum is approached at infinity).
//!
//! Certification is relative to the divergence core's computed values, each allowed a numerical
//! slack `η = slack · max(1, |D|) + 16·d·ε_mach·λ_max(ρ)/λ_min⁺(σ)` (default `slack = 1e-10`) in
//! the direction that makes the verdict harder. The relative part covers the core's accuracy on
//! well-conditioned inputs (≤ 4·10⁻¹² measured, docs/conventions.md "Accuracy"); the absolute part
//! covers its ill-conditioned regime, where a rounding-level change of the stored `ρ` moves `D_α`
//! (α > 1) and `D_max` by up to `≈ ε_mach‖ρ‖/λ_min(σ)` (`λ_min⁺`: the smallest eigenvalue of `σ`
//! on its support).

use super::conversion::Converted;
use super::rounding::{pt, up_by, Interval};
use super::{check_delta, check_nonneg, check_nonneg_or_inf, family_warning, smallest_ok};
use crate::divergence::{classical, renyi_mean, Family, Pair};
use crate::error::{Error, Result};
use crate::spectral::EPS;
use crate::state::DensityMatrix;
use std::cell::RefCell;
use std::collections::{BinaryHeap, HashMap};
use std::ops::{Add, Div, Mul, Sub};

/// One neighbouring pair: two density matrices or two probability vectors.
#[derive(Clone, Debug)]
pub enum NeighbourPair {
    /// `(ρ, σ)` = `(M(x), M(x'))` as density matrices.
    Quantum(DensityMatrix, DensityMatrix),
    /// `(p, q)` = `(M(x), M(x'))` as probability vectors.
    Classical(Vec<f64>, Vec<f64>),
}

/// The neighbouring pairs of a mechanism; every guarantee is the worst case over them
/// (and over both orders when `symmetric`).
#[derive(Clone, Debug)]
pub struct Neighbours {
    pairs: Vec<NeighbourPair>,
    symmetric: bool,
}

/// Options of [`Neighbours::check`] and [`Neighbours::fit`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CertifyOptions {
    /// Relative numerical slack allowed on each divergence value (default `1e-10`); a
    /// conditioning term for quantum pairs is always added (module docs).
    pub slack: f64,
    /// Relative tolerance of the fit (default `1e-6`).
    pub tolerance: f64,
    /// Divergence evaluations allowed per directed pair (default 20000; the fit's second-order
    /// cover needs tens for a `1e-6` fit with an interior maximiser, a check near tangency more).
    pub max_evaluations: usize,
}

impl Default for CertifyOptions {
    fn default() -> Self {
        CertifyOptions {
            slack: 1e-10,
            tolerance: 1e-6,
            max_evaluations: 20000,
        }
    }
}

/// Verdict of a certified check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// `(1, ∞)` is covered by certified intervals.
    Holds,
    /// An order with `D_α > ξ + ρα` was found.
    Violated,
    /// Neither within the evaluation budget / resolution (the bound is tight to within the slack
    /// somewhere, typically `D_1 = ξ + ρ` at the `α → 1` end).
    Inconclusive,
}

/// A certified interval: `D_α ≤ d_hi ≤ ξ + ρ·lo` for all `α ∈ [lo, hi]` (`hi = ∞` for the tail).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoverInterval {
    /// Left end (`1` stands for the open end `α → 1⁺`).
    pub lo: f64,
    /// Right end (`∞` for the tail, certified by `D_∞`).
    pub hi: f64,
    /// `D` at the right end (an upper bound on `D_α` over the interval).
    pub d_hi: f64,
}

/// Result of [`Neighbours::check`].
#[derive(Clone, Debug, PartialEq)]
pub struct CheckResult {
    /// The verdict.
    pub status: Status,
    /// `status == Holds`.
    pub holds: bool,
    /// An order with `D_α > ξ + ρα` when violated.
    pub witness_alpha: Option<f64>,
    /// Holds: certified lower bound on `inf_α (ξ + ρα − D_α)` over the cover (≥ 0). Violated:
    /// `ξ + ρα − D_α < 0` at the witness. Inconclusive: the worst `ξ + ρa − D_b` left.
    pub margin: f64,
    /// The certified cover (all directed pairs concatenated), sorted by left end.
    pub cover: Vec<CoverInterval>,
    /// Divergence evaluations used.
    pub evaluations: usize,
    /// Caveats (Petz without data processing).
    pub warnings: Vec<String>,
}

/// Result of [`Neighbours::fit`].
#[derive(Clone, Debug, PartialEq)]
pub struct FitResult {
    /// Certified upper bound on `ρ*(ξ) = sup_{α>1}(D_α − ξ)/α` (rounded up; `∞` when supports
    /// differ).
    pub rho: f64,
    /// Best value found (a lower bound on `ρ*` up to the slack).
    pub lower: f64,
    /// The maximising order (`1` = the `α → 1⁺` limit, `∞` = approached at infinity).
    pub alpha: Option<f64>,
    /// Divergence evaluations used.
    pub evaluations: usize,
    /// The certified cover of each directed pair (concatenated, each sorted by left end): on
    /// every interval `(D_α − ξ)/α ≤ upper`, and each pair's intervals cover `(1, ∞)`; `rho` is
    /// the largest `upper`.
    pub cover: Vec<FitInterval>,
    /// Caveats.
    pub warnings: Vec<String>,
}

/// `D_α` of one directed pair and family, memoised.
struct Curve<'a> {
    source: Source<'a>,
    memo: RefCell<HashMap<u64, f64>>,
    slack: f64,
    /// Absolute accuracy term `16·d·ε_mach·λ_max(ρ)/λ_min⁺(σ)` (0 for classical pairs).
    conditioning: f64,
}

enum Source<'a> {
    Quantum(Box<Pair<'a>>, Family),
    Classical(Vec<(f64, f64)>),
}

impl<'a> Curve<'a> {
    fn d(&self, alpha: f64) -> Result<f64> {
        if let Some(&v) = self.memo.borrow().get(&alpha.to_bits()) {
            return Ok(v);
        }
        let v = match &self.source {
            Source::Quantum(p, f) => p.renyi(*f, alpha)?,
            Source::Classical(t) => renyi_mean(t, alpha),
        };
        if v.is_nan() {
            return Err(Error::NonFinite {
                value: "NaN".into(),
                position: format!("D_α at α = {alpha}"),
            });
        }
        self.memo.borrow_mut().insert(alpha.to_bits(), v);
        Ok(v)
    }

    /// `D_α` at several orders: the ones not memoised are computed as one α-curve
    /// ([`Pair::curve`]: the sandwiched orders in parallel, one BLAS thread each).
    fn d_many(&self, alphas: &[f64]) -> Result<Vec<f64>> {
        let mut missing: Vec<f64> = Vec::new();
        for &a in alphas {
            if !self.memo.borrow().contains_key(&a.to_bits()) && !missing.contains(&a) {
                missing.push(a);
            }
        }
        if missing.len() > 1 {
            let values = match &self.source {
                Source::Quantum(p, f) => p.curve(*f, &missing)?,
                Source::Classical(t) => missing.iter().map(|&a| renyi_mean(t, a)).collect(),
            };
            for (a, v) in missing.into_iter().zip(values) {
                if v.is_nan() {
                    return Err(Error::NonFinite {
                        value: "NaN".into(),
                        position: format!("D_α at α = {a}"),
                    });
                }
                self.memo.borrow_mut().insert(a.to_bits(), v);
            }
        }
        alphas.iter().map(|&a| self.d(a)).collect()
    }

    fn evaluations(&self) -> usize {
        self.memo.borrow().len()
    }

    /// Numerical slack for a value `d`.
    fn eta(&self, d: f64) -> f64 {
        if d.is_finite() {
            self.slack * d.abs().max(1.0) + self.conditioning
        } else {
            0.0
        }
    }
}

/// The core's absolute accuracy on `D_α(ρ‖σ)`, α > 1, and `D_max` in the ill-conditioned regime
/// (docs/conventions.md "Accuracy": a rounding-level change of the stored `ρ` moves `D` by up to
/// `≈ ε_mach‖ρ‖/λ_min(σ)`), with the `16·d` factor of the zero threshold:
/// `16·d·ε_mach·λ_max(ρ)/λ_min⁺(σ)`, `λ_min⁺(σ)` the smallest eigenvalue of `σ` on its support
/// (rounded up; `+∞` when `σ` has no support, which validation excludes, or when a decomposition
/// fails).
fn conditioning(rho: &DensityMatrix, sigma: &DensityMatrix) -> f64 {
    let (Ok(es), Ok(er)) = (sigma.eigen(), rho.eigen()) else {
        return f64::INFINITY;
    };
    let lmin = es
        .support()
        .into_iter()
        .map(|i| es.values()[i])
        .fold(f64::INFINITY, f64::min);
    if !lmin.is_finite() {
        return f64::INFINITY;
    }
    let scale = pt(16.0 * rho.dim() as f64).mul(pt(EPS));
    scale.mul(pt(er.max_value())).div(pt(lmin)).hi
}

/// Split point of `[a, b] ⊂ [1, ∞)`: geometric in `α − 1` over wide ranges, else arithmetic.
fn split(a: f64, b: f64) -> f64 {
    let (x, y) = (a - 1.0, b - 1.0);
    if x > 0.0 && y > 4.0 * x {
        1.0 + (x * y).sqrt()
    } else {
        a + 0.5 * (b - a)
    }
}

/// The line `ξ + ρα`, lower end of its enclosure.
fn line_lo(xi: f64, rho: f64, a: f64) -> f64 {
    pt(xi).add(pt(rho).mul(pt(a))).lo
}
/// The line `ξ + ρα`, upper end.
fn line_hi(xi: f64, rho: f64, a: f64) -> f64 {
    pt(xi).add(pt(rho).mul(pt(a))).hi
}

struct DirectedCheck {
    status: Status,
    witness: Option<f64>,
    margin: f64,
    cover: Vec<CoverInterval>,
    evaluations: usize,
}

/// Smallest order (doubling from 2) with `D_α − η > ξ + ρα`, if any below `2^60`.
fn find_witness(c: &Curve, xi: f64, rho: f64) -> Result<Option<(f64, f64)>> {
    let mut a = 2.0;
    while a < 1.2e18 {
        let d = c.d(a)?;
        if d - c.eta(d) > line_hi(xi, rho, a) {
            return Ok(Some((a, line_hi(xi, rho, a) - d)));
        }
        a *= 2.0;
    }
    Ok(None)
}

fn check_directed(c: &Curve, xi: f64, rho: f64, opts: &CertifyOptions) -> Result<DirectedCheck> {
    let violated = |a: f64, m: f64, c: &Curve| DirectedCheck {
        status: Status::Violated,
        witness: Some(a),
        margin: m,
        cover: vec![],
        evaluations: c.evaluations(),
    };
    let dinf = c.d(f64::INFINITY)?;
    // tail start T with D_∞ + η ≤ ξ + ρT
    let tail = if dinf.is_finite() && rho > 0.0 {
        // twice the smallest admissible start, so the tail's own margin is D_∞ − ξ (not ≈ η)
        let mut t = pt(dinf + c.eta(dinf))
            .sub(pt(xi))
            .div(pt(rho))
            .mul(pt(2.0))
            .hi
            .max(1.0);
        while line_lo(xi, rho, t) < dinf + c.eta(dinf) {
            t = up_by(t, 4);
        }
        Some(t)
    } else if dinf.is_finite() && dinf + c.eta(dinf) <= xi {
        Some(1.0)
    } else {
        None
    };
    let Some(t) = tail else {
        // D_∞ = ∞ (supports differ: D_α = ∞ for all α > 1), or ρ = 0 < D_∞ − ξ
        return Ok(match find_witness(c, xi, rho)? {
            Some((a, m)) => violated(a, m, c),
            None => DirectedCheck {
                status: Status::Inconclusive,
                witness: None,
                margin: xi - dinf,
                cover: vec![],
                evaluations: c.evaluations(),
            },
        });
    };
    let mut cover = vec![CoverInterval {
        lo: t,
        hi: f64::INFINITY,
        d_hi: dinf,
    }];
    let mut margin = line_lo(xi, rho, t) - dinf;
    let mut stack = if t > 1.0 { vec![(1.0, t)] } else { vec![] };
    let mut undecided: Option<f64> = None;
    while let Some((a, b)) = stack.pop() {
        let db = c.d(b)?;
        let eta = c.eta(db);
        if db - eta > line_hi(xi, rho, b) {
            return Ok(violated(b, line_hi(xi, rho, b) - db, c));
        }
        let slack_left = line_lo(xi, rho, a) - (db + eta);
        if slack_left >= 0.0 {
            cover.push(CoverInterval {
                lo: a,
                hi: b,
                d_hi: db,
            });
            margin = margin.min(line_lo(xi, rho, a) - db);
            continue;
        }
        if a > 1.0 {
            let da = c.d(a)?;
            if da - c.eta(da) > line_hi(xi, rho, a) {
                return Ok(violated(a, line_hi(xi, rho, a) - da, c));
            }
        }
        let m = split(a, b);
        let too_fine = m <= a || m >= b || (b - a) <= 1e-12 * b;
        if too_fine || c.evaluations() >= opts.max_evaluations {
            undecided = Some(undecided.map_or(slack_left, |u: f64| u.min(slack_left)));
            continue;
        }
        // right half first on the stack so the left (α → 1) side is explored first
        stack.push((m, b));
        stack.push((a, m));
    }
    cover.sort_by(|x, y| x.lo.total_cmp(&y.lo));
    Ok(match undecided {
        Some(u) => DirectedCheck {
            status: Status::Inconclusive,
            witness: None,
            margin: u,
            cover,
            evaluations: c.evaluations(),
        },
        None => DirectedCheck {
            status: Status::Holds,
            witness: None,
            margin,
            cover,
            evaluations: c.evaluations(),
        },
    })
}

/// Interval of the fit's branch and bound, ordered by its upper bound.
#[derive(PartialEq)]
struct Node {
    upper: f64,
    a: f64,
    b: f64,
    /// `D_a + η` and `D_b + η` (upper bounds on the exact values; `da` unused at `a = 1`).
    da: f64,
    db: f64,
    /// Rounding width of `upper` (what further splitting cannot remove).
    width: f64,
}
impl Eq for Node {}
impl PartialOrd for Node {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Node {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.upper.total_cmp(&o.upper)
    }
}

/// First-order bound of `(D_α − ξ)/α` on `[a, b]` from monotonicity, given `db ≥ D_b` (slack
/// included): `(db − ξ)/a`, or `/b` when negative; rounded up.
fn monotone_bound(xi: f64, a: f64, b: f64, db: f64) -> f64 {
    let num = pt(db).sub(pt(xi));
    if num.hi >= 0.0 {
        num.div(pt(a)).hi
    } else {
        num.div(pt(b)).hi
    }
}

/// **secant_bound** (docs/privacy.md, "Certified qzCDP check and fit"): an upper bound on
/// `sup_{α ∈ [a, b]} (D_α − ξ)/α` for `1 < a < b < ∞`, given upper bounds `da ≥ D_a`,
/// `db ≥ D_b`, from the convexity of `ψ(α) = (α − 1)D_α` on `(1, ∞)`.
///
/// The secant of `ψ` through `(a, (a−1)·da)` and `(b, (b−1)·db)` lies above `ψ` on `[a, b]`;
/// written as `u + v(α − 1)` it gives `D_α ≤ v + u/(α − 1)`, hence with `s = 1/α`
/// `(D_α − ξ)/α ≤ H(s) = (v − ξ)s + u·s²/(1 − s)` on `s ∈ [1/b, 1/a]`. `H` is convex in `s`
/// when `u ≥ 0` (maximum at an end) and concave when `u ≤ 0` (below its tangent at the
/// stationary point, clamped to the interval). Every step is enclosed with outward rounding; the
/// excess over the true supremum is second order in `b − a`
/// (`≤ (b − a)² max ψ'' / (8a(a − 1))`), where the monotone bound's is first order.
///
/// Returns `+∞` where it does not apply (`a ≤ 1`, `b ≤ a`, non-finite inputs).
pub fn secant_bound(xi: f64, a: f64, b: f64, da: f64, db: f64) -> f64 {
    secant_enclosure(xi, a, b, da, db).hi
}

/// [`secant_bound`] as an interval whose width is the rounding error of the evaluation.
fn secant_enclosure(xi: f64, a: f64, b: f64, da: f64, db: f64) -> Interval {
    let none = Interval::new(f64::NEG_INFINITY, f64::INFINITY);
    if !(a > 1.0 && b > a && b.is_finite() && da.is_finite() && db.is_finite()) {
        return none;
    }
    let one = pt(1.0);
    // ψ(a) ≤ A, ψ(b) ≤ B (upper ends: the secant through larger values lies higher)
    let big_a = pt(a).sub(one).mul(pt(da)).hi;
    let big_b = pt(b).sub(one).mul(pt(db)).hi;
    // v = (B − A)/(b − a), u = A − (a − 1)v: one rounding on the small difference B − A, so
    // the enclosures stay ε-tight on short intervals (no 1/(b − a) amplification)
    let v_enc = pt(big_b).sub(pt(big_a)).div(pt(b).sub(pt(a)));
    let v = v_enc.hi;
    let u = pt(big_a).sub(pt(a).sub(one).mul(v_enc)).hi;
    // H grows with u and v (their coefficients s and s²/(1 − s) are positive): use the upper ends
    let (s_lo, s_hi) = (one.div(pt(b)).lo, one.div(pt(a)).hi);
    if s_hi >= 1.0 || s_hi.is_nan() || !u.is_finite() || !v.is_finite() {
        return none;
    }
    let vx = pt(v).sub(pt(xi));
    let h = |s: f64| {
        let s = pt(s);
        vx.mul(s).add(pt(u).mul(s).mul(s).div(one.sub(s)))
    };
    if u >= 0.0 {
        return h(s_lo).max(h(s_hi));
    }
    // concave: H(s) ≤ H(s₀) + H'(s₀)(s − s₀), H'(s) = (v − ξ) + u(1/(1 − s)² − 1)
    let ratio = (v - xi) / u; // < 0 when the stationary point exists
    let s0 = if ratio < 0.0 {
        (1.0 - 1.0 / (1.0 - ratio).sqrt()).clamp(s_lo, s_hi)
    } else {
        s_lo
    };
    let q = one.div(one.sub(pt(s0)));
    let slope = vx.add(pt(u).mul(q.mul(q).sub(one)));
    let at = |s: f64| h(s0).add(slope.mul(pt(s).sub(pt(s0))));
    at(s_lo).max(at(s_hi))
}

/// Upper bound of `(D_α − ξ)/α` on `[a, b]` (the smaller of the monotone and secant bounds)
/// and the rounding width of the secant bound (0 where it does not apply).
fn node_bound(xi: f64, a: f64, b: f64, da: f64, db: f64) -> (f64, f64) {
    let mono = monotone_bound(xi, a, b, db);
    let sec = secant_enclosure(xi, a, b, da, db);
    let width = if sec.hi.is_finite() && sec.lo.is_finite() {
        sec.hi - sec.lo
    } else {
        0.0
    };
    (mono.min(sec.hi), width)
}

/// Nodes split per round of the fit: their split points are evaluated as one α-curve (the
/// sandwiched orders in parallel). Fixed, so the result does not depend on the thread count.
const FIT_BATCH: usize = 4;

/// An interval of the fit's certified cover: `(D_α − ξ)/α ≤ upper` for `α ∈ [lo, hi]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitInterval {
    /// Left end (`1` stands for the open end `α → 1⁺`).
    pub lo: f64,
    /// Right end (`∞` for the tail).
    pub hi: f64,
    /// Certified upper bound of `(D_α − ξ)/α` on the interval.
    pub upper: f64,
}

struct DirectedFit {
    upper: f64,
    lower: f64,
    alpha: Option<f64>,
    evaluations: usize,
    cover: Vec<FitInterval>,
}

fn fit_directed(c: &Curve, xi: f64, opts: &CertifyOptions) -> Result<DirectedFit> {
    let done = |upper: f64, lower: f64, alpha: Option<f64>, c: &Curve, cover| DirectedFit {
        upper,
        lower,
        alpha,
        evaluations: c.evaluations(),
        cover,
    };
    let whole = |upper: f64| {
        vec![FitInterval {
            lo: 1.0,
            hi: f64::INFINITY,
            upper,
        }]
    };
    let dinf = c.d(f64::INFINITY)?;
    if dinf == f64::INFINITY {
        return Ok(done(
            f64::INFINITY,
            f64::INFINITY,
            None,
            c,
            whole(f64::INFINITY),
        ));
    }
    let dinf_hi = dinf + c.eta(dinf);
    if dinf_hi <= xi {
        // (D_α − ξ)/α ≤ 0 everywhere and → 0 as α → ∞
        return Ok(done(0.0, 0.0, Some(f64::INFINITY), c, whole(0.0)));
    }
    let g = |a: f64, d: f64| if a == 1.0 { d - xi } else { (d - xi) / a };
    let (mut lower, mut arg) = (g(1.0, c.d(1.0)?), 1.0);
    let mut a = 2.0;
    loop {
        let v = g(a, c.d(a)?);
        if v > lower {
            lower = v;
            arg = a;
        }
        if lower > 0.0 || a > 1e300 {
            break;
        }
        a *= 2.0;
    }
    if lower <= 0.0 {
        // the computed values never exceed ξ, but D_∞ + η > ξ: within the slack, (D_α − ξ)/α may
        // still be positive; (D_α − ξ)/α ≤ (D_∞ + η − ξ)/α ≤ D_∞ + η − ξ for every α > 1
        let upper = pt(dinf_hi).sub(pt(xi)).hi.max(0.0);
        return Ok(done(upper, 0.0, Some(f64::INFINITY), c, whole(upper)));
    }
    // tail [T, ∞): (D_α − ξ)/α ≤ (D_∞ + η − ξ)/T ≤ lower
    let t = pt(dinf_hi).sub(pt(xi)).div(pt(lower)).hi.max(1.0);
    let tail_upper = pt(dinf_hi).sub(pt(xi)).div(pt(t)).hi;
    let mut cover = vec![FitInterval {
        lo: t,
        hi: f64::INFINITY,
        upper: tail_upper,
    }];
    let hi_d = |a: f64| -> Result<f64> {
        let d = c.d(a)?;
        Ok(d + c.eta(d))
    };
    // bound of (D_α − ξ)/α at one order, slack included (what no split can go below)
    let at = |a: f64, d_hi: f64| pt(d_hi).sub(pt(xi)).div(pt(a)).hi;
    let node = |a: f64, b: f64, da: f64, db: f64| {
        let (upper, width) = node_bound(xi, a, b, da, db);
        Node {
            upper,
            a,
            b,
            da,
            db,
            width,
        }
    };
    let mut heap = BinaryHeap::new();
    if t > 1.0 {
        heap.push(node(1.0, t, hi_d(1.0)?, hi_d(t)?));
    }
    let target = |lower: f64| lower + opts.tolerance * lower.abs();
    // a node whose bound is within this of the bound at its ends cannot improve by splitting:
    // the tolerance, a sixteenth of the numerical slack, or four times its own rounding width
    let settled = |n: &Node, lower: f64| {
        let floor = at(n.a, n.da).max(at(n.b, n.db));
        let eta = c.eta(n.da).max(c.eta(n.db));
        let resolution = (opts.tolerance * lower.abs())
            .max(eta / (16.0 * n.b))
            .max(4.0 * n.width)
            .max(16.0 * EPS * floor.abs());
        n.upper - floor <= resolution
    };
    let mut kept: Vec<Node> = Vec::new();
    while c.evaluations() < opts.max_evaluations {
        let mut batch: Vec<(Node, f64)> = Vec::with_capacity(FIT_BATCH);
        while batch.len() < FIT_BATCH {
            match heap.peek() {
                Some(top) if top.upper > target(lower) => {}
                _ => break,
            }
            let Some(n) = heap.pop() else { break };
            let m = split(n.a, n.b);
            if m <= n.a || m >= n.b || settled(&n, lower) {
                kept.push(n);
                continue;
            }
            batch.push((n, m));
        }
        if batch.is_empty() {
            break;
        }
        let ms: Vec<f64> = batch.iter().map(|(_, m)| *m).collect();
        let dms = c.d_many(&ms)?;
        for ((n, m), dm) in batch.into_iter().zip(dms) {
            let v = g(m, dm);
            if v > lower {
                lower = v;
                arg = m;
            }
            let dm_hi = dm + c.eta(dm);
            heap.push(node(n.a, m, n.da, dm_hi));
            heap.push(node(m, n.b, dm_hi, n.db));
        }
    }
    cover.extend(heap.into_iter().chain(kept).map(|n| FitInterval {
        lo: n.a,
        hi: n.b,
        upper: n.upper,
    }));
    cover.sort_by(|x, y| x.lo.total_cmp(&y.lo));
    let upper = cover.iter().map(|n| n.upper).fold(lower, f64::max).max(0.0);
    Ok(done(upper, lower, Some(arg), c, cover))
}

impl Neighbours {
    /// Validate and collect pairs (`symmetric = false`: only `D(M(x)‖M(x'))` in the given order).
    pub fn new(pairs: Vec<NeighbourPair>) -> Result<Self> {
        if pairs.is_empty() {
            return Err(Error::Empty("list of neighbouring pairs".into()));
        }
        for p in &pairs {
            match p {
                NeighbourPair::Quantum(r, s) => {
                    Pair::new(r, s)?;
                }
                NeighbourPair::Classical(p, q) => {
                    classical::total_variation(p, q)?;
                }
            }
        }
        Ok(Neighbours {
            pairs,
            symmetric: false,
        })
    }

    /// One quantum pair.
    pub fn quantum(rho: DensityMatrix, sigma: DensityMatrix) -> Result<Self> {
        Self::new(vec![NeighbourPair::Quantum(rho, sigma)])
    }

    /// One classical pair.
    pub fn classical(p: Vec<f64>, q: Vec<f64>) -> Result<Self> {
        Self::new(vec![NeighbourPair::Classical(p, q)])
    }

    /// Also include every pair in the reverse order (the neighbour relation is symmetric).
    pub fn symmetric(mut self, yes: bool) -> Self {
        self.symmetric = yes;
        self
    }

    /// The pairs.
    pub fn pairs(&self) -> &[NeighbourPair] {
        &self.pairs
    }

    fn curves(&self, family: Family, slack: f64, both: bool) -> Vec<Curve<'_>> {
        let mut out = Vec::new();
        for p in &self.pairs {
            for rev in [false, true] {
                if rev && !both {
                    continue;
                }
                let (source, conditioning) = match p {
                    NeighbourPair::Quantum(r, s) => {
                        let (x, y) = if rev { (s, r) } else { (r, s) };
                        // dimensions were checked in `new`
                        match Pair::new(x, y) {
                            Ok(pair) => {
                                (Source::Quantum(Box::new(pair), family), conditioning(x, y))
                            }
                            Err(_) => continue,
                        }
                    }
                    NeighbourPair::Classical(a, b) => {
                        let (x, y) = if rev { (b, a) } else { (a, b) };
                        (Source::Classical(classical::log_ratio_terms(x, y)), 0.0)
                    }
                };
                out.push(Curve {
                    source,
                    memo: RefCell::new(HashMap::new()),
                    slack,
                    conditioning,
                });
            }
        }
        out
    }

    /// Certified check of `(ξ, ρ)`-qzCDP for `family` (see module docs).
    pub fn check(
        &self,
        family: Family,
        xi: f64,
        rho: f64,
        opts: &CertifyOptions,
    ) -> Result<CheckResult> {
        check_nonneg("xi", xi)?;
        check_nonneg("zcdp_rho", rho)?;
        check_options(opts)?;
        let mut res = CheckResult {
            status: Status::Holds,
            holds: true,
            witness_alpha: None,
            margin: f64::INFINITY,
            cover: vec![],
            evaluations: 0,
            warnings: family_warning(family).into_iter().collect(),
        };
        for c in self.curves(family, opts.slack, self.symmetric) {
            let r = check_directed(&c, xi, rho, opts)?;
            res.evaluations += r.evaluations;
            match r.status {
                Status::Violated => {
                    res.status = Status::Violated;
                    res.holds = false;
                    res.witness_alpha = r.witness;
                    res.margin = r.margin;
                    res.cover.clear();
                    return Ok(res);
                }
                Status::Inconclusive => {
                    res.status = Status::Inconclusive;
                    res.holds = false;
                }
                Status::Holds => {}
            }
            res.margin = res.margin.min(r.margin);
            res.cover.extend(r.cover);
        }
        Ok(res)
    }

    /// Certified fit of the minimal `ρ` for offset `ξ` (see module docs); worst case over pairs.
    pub fn fit(&self, family: Family, xi: f64, opts: &CertifyOptions) -> Result<FitResult> {
        check_nonneg("xi", xi)?;
        check_options(opts)?;
        let mut res = FitResult {
            rho: 0.0,
            lower: 0.0,
            alpha: None,
            evaluations: 0,
            cover: vec![],
            warnings: family_warning(family).into_iter().collect(),
        };
        for c in self.curves(family, opts.slack, self.symmetric) {
            let r = fit_directed(&c, xi, opts)?;
            res.evaluations += r.evaluations;
            res.cover.extend(r.cover);
            if r.lower > res.lower || res.alpha.is_none() {
                res.lower = r.lower.max(res.lower);
                res.alpha = r.alpha;
            }
            res.rho = res.rho.max(r.upper);
        }
        Ok(res)
    }

    /// Worst-case `D_α` over the pairs (directions as configured) at each order.
    pub fn curve(&self, family: Family, alphas: &[f64]) -> Result<Vec<f64>> {
        let curves = self.curves(family, 0.0, self.symmetric);
        alphas
            .iter()
            .map(|&a| {
                family.check_alpha(a)?;
                curves
                    .iter()
                    .try_fold(f64::NEG_INFINITY, |m, c| Ok(m.max(c.d(a)?)))
            })
            .collect()
    }

    /// Pure-DP view: `max D_max` over the pairs, **both** orders (`D_max(ρ‖σ)`, `D_max(σ‖ρ)`),
    /// each plus the numerical slack `η` of the default [`CertifyOptions`] (module docs), rounded
    /// up, so that the returned `ε` is not below the exact `D_max` of the stored states.
    pub fn pure_epsilon(&self) -> Result<f64> {
        self.curves(Family::Sandwiched, CertifyOptions::default().slack, true)
            .iter()
            .try_fold(0.0f64, |m, c| {
                let d = c.d(f64::INFINITY)?;
                Ok(m.max(pt(d).add(pt(c.eta(d))).hi))
            })
    }

    /// `(ε, δ)` view: `δ(ε) = max E_{e^ε}` over the pairs, both orders, plus the core's absolute
    /// accuracy margin `16·d·ε_mach·max(1, e^ε)` (rounded up). `δ = 0` when
    /// [`Neighbours::pure_epsilon`]` ≤ ε` (then `ρ ≤ e^ε σ` both ways); `1` when `e^ε` overflows
    /// otherwise (supports differ).
    pub fn delta(&self, epsilon: f64) -> Result<f64> {
        check_nonneg_or_inf("epsilon", epsilon)?;
        if epsilon == f64::INFINITY {
            return Ok(0.0);
        }
        self.delta_given_pure(epsilon, self.pure_epsilon()?)
    }

    /// [`Neighbours::delta`] with the pure `ε` already known.
    fn delta_given_pure(&self, epsilon: f64, pure: f64) -> Result<f64> {
        if pure <= epsilon {
            return Ok(0.0);
        }
        // E_γ is nonincreasing in γ: evaluate at the lower end of the enclosure of e^ε
        let gamma = pt(epsilon).exp();
        if !gamma.hi.is_finite() {
            return Ok(1.0);
        }
        let gamma = gamma.lo;
        let mut worst = 0.0f64;
        for p in &self.pairs {
            let (v, d) = match p {
                NeighbourPair::Quantum(r, s) => (
                    Pair::new(r, s)?
                        .hockey_stick(gamma)?
                        .max(Pair::new(s, r)?.hockey_stick(gamma)?),
                    r.dim(),
                ),
                NeighbourPair::Classical(a, b) => (
                    classical::hockey_stick(a, b, gamma)?
                        .max(classical::hockey_stick(b, a, gamma)?),
                    a.len(),
                ),
            };
            let margin = 16.0 * d as f64 * EPS * gamma.max(1.0);
            worst = worst.max(pt(v).add(pt(margin)).hi);
        }
        Ok(worst.min(1.0))
    }

    /// Smallest `ε` with [`Neighbours::delta`]`(ε) ≤ δ` (bisection on the nonincreasing
    /// hockey-stick curve, upper end returned; `δ = 0` gives the pure `ε`; `+∞` when even
    /// `ε = 700` does not reach `δ`).
    pub fn epsilon(&self, delta: f64) -> Result<Converted> {
        check_delta("delta", delta)?;
        if delta == 0.0 {
            return Ok(Converted {
                value: self.pure_epsilon()?,
                alpha: None,
            });
        }
        let pure = self.pure_epsilon()?;
        let ok = |e: f64| self.delta_given_pure(e, pure).map(|d| d <= delta);
        Ok(Converted {
            value: smallest_ok(0.0, 1.0, 700.0, ok)?.unwrap_or(f64::INFINITY),
            alpha: None,
        })
    }
}

fn check_options(o: &CertifyOptions) -> Result<()> {
    check_nonneg("slack", o.slack)?;
    if !(o.tolerance > 0.0 && o.tolerance < 1.0) {
        return Err(Error::invalid(
            "tolerance",
            o.tolerance,
            "must lie in (0, 1)",
        ));
    }
    if o.max_evaluations < 4 {
        return Err(Error::invalid(
            "max_evaluations",
            o.max_evaluations as f64,
            "need at least 4",
        ));
    }
    Ok(())
}
