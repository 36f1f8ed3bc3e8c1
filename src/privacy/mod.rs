//! Privacy accounting: guarantee types, sound conversions, composition, mechanisms and certified
//! qzCDP checks.
//!
//! Everything here turns divergence numbers into statements a researcher can publish:
//!
//! * [`PureDp`], [`ApproxDp`], [`Rdp`], [`RdpCurve`], [`Zcdp`], [`Qzcdp`], [`Tcdp`], [`Mcdp`],
//!   [`QuantumDp`]: the guarantees (definitions below, sources in each type's docs).
//! * [`conversion`]: guarantee → `(ε, δ)` conversions, every returned `ε`, `δ` rounded outward
//!   with [`rounding`]'s interval arithmetic so that it is never below the exact value.
//! * [`composition`]: basic, advanced (Dwork–Rothblum–Vadhan, Dwork–Rothblum, seed 000
//!   Theorem 20), optimal (Kairouz–Oh–Viswanath), RDP/zCDP additivity, tensor products.
//! * [`mechanisms`]: Gaussian, Laplace, randomized response (exact RDP curves and privacy
//!   profiles); [`quantum_mechanism`]: channels on neighbouring inputs, worst-case search.
//! * [`qzcdp`]: the certified check `D_α ≤ ξ + ρα ∀α > 1` and the fit of the minimal `ρ`.
//!
//! A *neighbouring pair* is two density matrices (or two probability vectors); a mechanism's
//! guarantee is the worst case over the pairs supplied (see [`qzcdp::Neighbours`]).
//! Derivations: `docs/privacy.md`.

pub mod composition;
pub mod conversion;
pub mod mechanisms;
pub mod quantum_mechanism;
pub mod qzcdp;
pub mod rounding;

use crate::divergence::Family;
use crate::error::{Error, Result};
use std::ops::{Add, Mul};

/// Smallest `x ≥ lo` with `ok(x)` for a predicate that is false then true (monotone): checks
/// `lo`, doubles `hi` from `hi0` until `ok(hi)` (giving up with `None` once `hi > cap`), then
/// bisects 200 times (or until the bracket is two adjacent floats) and returns the upper end,
/// for which `ok` holds.
pub(crate) fn smallest_ok(
    lo: f64,
    hi0: f64,
    cap: f64,
    ok: impl Fn(f64) -> Result<bool>,
) -> Result<Option<f64>> {
    if ok(lo)? {
        return Ok(Some(lo));
    }
    let (mut lo, mut hi) = (lo, hi0);
    while !ok(hi)? {
        lo = hi;
        hi *= 2.0;
        if hi > cap || hi <= lo {
            return Ok(None);
        }
    }
    for _ in 0..200 {
        let mid = lo + 0.5 * (hi - lo);
        if mid <= lo || mid >= hi {
            break;
        }
        if ok(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Some(hi))
}

/// Check `x` is a finite number `≥ 0`.
pub(crate) fn check_nonneg(name: &str, x: f64) -> Result<()> {
    if x.is_finite() && x >= 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(name, x, "must be finite and ≥ 0"))
    }
}

/// Check `x ≥ 0` (not NaN); `+∞` allowed.
pub(crate) fn check_nonneg_or_inf(name: &str, x: f64) -> Result<()> {
    if x >= 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(name, x, "must be ≥ 0 (+∞ allowed)"))
    }
}

/// Check `δ ∈ [0, 1]`.
pub(crate) fn check_delta(name: &str, d: f64) -> Result<()> {
    if (0.0..=1.0).contains(&d) {
        Ok(())
    } else {
        Err(Error::invalid(name, d, "must lie in [0, 1]"))
    }
}

/// Check a Rényi order `α > 1` (`+∞` allowed).
pub(crate) fn check_order(alpha: f64) -> Result<()> {
    crate::order::Order::new(alpha, crate::order::OrderRange::AboveOne, "a privacy order")
        .map(|_| ())
}

/// A guarantee whose parameters are `f64`s, each validated by its own check: the struct (private
/// fields, `Copy`), one getter per parameter and the validating constructor `new`. Every item keeps
/// its own doc comment (the parameter's doc serves the field and its getter).
macro_rules! guarantee {
    (
        $(#[$meta:meta])*
        $name:ident { $( #[doc = $fdoc:literal] $field:ident: $check:expr ),+ $(,)? }
        #[doc = $newdoc:literal]
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name {
            $( #[doc = $fdoc] pub(crate) $field: f64, )+
        }

        impl $name {
            $(
                #[doc = $fdoc]
                pub fn $field(&self) -> f64 {
                    self.$field
                }
            )+

            #[doc = $newdoc]
            pub fn new($($field: f64),+) -> Result<Self> {
                $( ($check)(stringify!($field), $field)?; )+
                Ok($name { $($field),+ })
            }
        }
    };
}

/// [`check_order`] with the signature of the other checks (the message names the order itself).
fn check_order_named(_name: &str, alpha: f64) -> Result<()> {
    check_order(alpha)
}

guarantee! {
    /// Pure `ε`-differential privacy: `D_∞(M(x)‖M(x')) ≤ ε` for all neighbours, equivalently
    /// `P[M(x) ∈ S] ≤ e^ε P[M(x') ∈ S]` (seed 000, Definition 4 with δ = 0; Dwork–Roth 2014).
    PureDp {
        /// `ε ≥ 0`.
        epsilon: check_nonneg,
    }
    /// Validate `ε ≥ 0` (finite).
}

guarantee! {
    /// Approximate `(ε, δ)`-differential privacy: `P[M(x) ∈ S] ≤ e^ε P[M(x') ∈ S] + δ`, i.e. the
    /// hockey-stick divergence `E_{e^ε}(M(x)‖M(x')) ≤ δ` (seed 000, Definition 4; seed 001,
    /// Lemma 1.2).
    ApproxDp {
        /// `ε ≥ 0` (`+∞` allowed: the trivial statement).
        epsilon: check_nonneg_or_inf,
        /// `δ ∈ [0, 1]`.
        delta: check_delta,
    }
    /// Validate `ε ≥ 0`, `δ ∈ [0, 1]`.
}

guarantee! {
    /// Quantum `(ε, δ)`-differential privacy of a pair of states (or a channel on neighbouring
    /// inputs): `E_{e^ε}(ρ‖σ) = Tr(ρ − e^ε σ)_+ ≤ δ` for every neighbouring pair, equivalently
    /// `Tr Mρ ≤ e^ε Tr Mσ + δ` for every measurement operator `0 ≤ M ≤ I` (Zhou–Ying 2017;
    /// Hirche–Rouzé–França 2023).
    QuantumDp {
        /// `ε ≥ 0`.
        epsilon: check_nonneg_or_inf,
        /// `δ ∈ [0, 1]`.
        delta: check_delta,
    }
    /// Validate `ε ≥ 0`, `δ ∈ [0, 1]`.
}

guarantee! {
    /// `(α, τ)`-Rényi differential privacy: `D_α(M(x)‖M(x')) ≤ τ` (Mironov 2017; seed 004 §2.1).
    Rdp {
        /// Order `α ∈ (1, ∞]` (`α = ∞` is pure `τ`-DP).
        alpha: check_order_named,
        /// Bound `τ ≥ 0`.
        tau: check_nonneg,
    }
    /// Validate `α > 1`, `τ ≥ 0` finite.
}

/// An RDP curve `α ↦ τ(α)` known at finitely many orders: `(α_i, τ_i)`-RDP for every `i`
/// (seed 004 §2.2.4: "courbe de budget"). Conversions optimise over the orders.
#[derive(Clone, Debug, PartialEq)]
pub struct RdpCurve {
    points: Vec<Rdp>,
}

impl RdpCurve {
    /// From `(α_i, τ_i)` pairs (each validated as [`Rdp::new`]); at least one point.
    pub fn new(points: &[(f64, f64)]) -> Result<Self> {
        if points.is_empty() {
            return Err(Error::Empty("RDP curve".into()));
        }
        let mut pts = points
            .iter()
            .map(|&(a, t)| Rdp::new(a, t))
            .collect::<Result<Vec<_>>>()?;
        pts.sort_by(|a, b| a.alpha.total_cmp(&b.alpha));
        Ok(RdpCurve { points: pts })
    }

    /// Evaluate a bound `τ(α)` at the given orders (e.g. a mechanism's exact curve).
    pub fn from_fn(alphas: &[f64], f: impl Fn(f64) -> Result<f64>) -> Result<Self> {
        let pts = alphas
            .iter()
            .map(|&a| f(a).map(|t| (a, t)))
            .collect::<Result<Vec<_>>>()?;
        Self::new(&pts)
    }

    /// The points, sorted by order.
    pub fn points(&self) -> &[Rdp] {
        &self.points
    }

    /// The usual grid of orders (Mironov 2017, §VII; seed 004 end):
    /// `{1.5, 1.75, 2, 2.5, 3, 4, 5, 6, 8, 16, 32, 64}` (plus `∞` where a pure bound is known).
    pub const STANDARD_ORDERS: [f64; 12] = [
        1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 16.0, 32.0, 64.0,
    ];
}

guarantee! {
    /// `(ξ, ρ)`-zero-concentrated differential privacy: `D_α(M(x)‖M(x')) ≤ ξ + ρα` for all
    /// `α ∈ (1, ∞)` (Bun–Steinke 2016; seed 000, Definition 17). `ρ`-zCDP means `ξ = 0`.
    Zcdp {
        /// Offset `ξ ≥ 0`.
        xi: check_nonneg,
        /// Slope `ρ ≥ 0`.
        rho: check_nonneg,
    }
    /// Validate `ξ, ρ ≥ 0` finite.
}

impl Zcdp {
    /// `ρ`-zCDP (`ξ = 0`).
    pub fn from_rho(rho: f64) -> Result<Self> {
        Self::new(0.0, rho)
    }

    /// The bound `ξ + ρα` at order α, rounded up.
    pub fn bound(&self, alpha: f64) -> f64 {
        rounding::pt(self.xi)
            .add(rounding::pt(self.rho).mul(rounding::pt(alpha)))
            .hi
    }
}

/// `(ξ, ρ)`-quantum zero-concentrated differential privacy: `D_α(M(x)‖M(x')) ≤ ξ + ρα` for all
/// `α ∈ (1, ∞)` with a quantum Rényi family (seed 000, Definition 21, which uses the maximal
/// family; qrenyi defaults to sandwiched). The maximal family dominates the sandwiched one
/// (`D̃_α ≤ D̂_α`, α ≥ ½, see `docs/privacy.md` "maximal_dominates_sandwiched"), so a maximal
/// qzCDP guarantee implies the sandwiched one. Petz satisfies data processing only for
/// α ∈ [0, 2]: a Petz guarantee is accepted but flagged, since it is not closed under
/// post-processing (a later channel may increase `D̄_α`, α > 2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Qzcdp {
    /// Offset `ξ ≥ 0`.
    pub(crate) xi: f64,
    /// Slope `ρ ≥ 0`.
    pub(crate) rho: f64,
    /// The quantum Rényi family the bound is stated for.
    pub(crate) family: Family,
}

impl Qzcdp {
    /// Offset `ξ ≥ 0`.
    pub fn xi(&self) -> f64 {
        self.xi
    }
    /// Slope `ρ ≥ 0`.
    pub fn rho(&self) -> f64 {
        self.rho
    }
    /// The quantum Rényi family the bound is stated for.
    pub fn family(&self) -> Family {
        self.family
    }

    /// Validate `ξ, ρ ≥ 0` finite.
    pub fn new(xi: f64, rho: f64, family: Family) -> Result<Self> {
        check_nonneg("xi", xi)?;
        check_nonneg("rho", rho)?;
        Ok(Qzcdp { xi, rho, family })
    }

    /// The same parameters as a classical [`Zcdp`] bound (what the conversions consume).
    pub fn as_zcdp(&self) -> Zcdp {
        Zcdp {
            xi: self.xi,
            rho: self.rho,
        }
    }

    /// A caveat for families without data processing on all of `(1, ∞)` (Petz), else `None`.
    pub fn warning(&self) -> Option<String> {
        family_warning(self.family)
    }
}

/// The Petz caveat (no data processing for α > 2), `None` for the other families.
pub fn family_warning(family: Family) -> Option<String> {
    match family {
        Family::Petz => Some(
            "Petz divergence lacks data processing for α > 2: a Petz qzCDP bound is not closed \
             under post-processing (use sandwiched or maximal for a publishable guarantee)"
                .into(),
        ),
        _ => None,
    }
}

guarantee! {
    /// `(m, z)`-truncated CDP in the sense of seed 000, Definition 18:
    /// `D_α(M(x)‖M(x')) ≤ min(m, αz)` for all `α ≥ 1`. (Not Bun et al.'s 2018 tCDP.)
    Tcdp {
        /// Cap `m ≥ 0` (`+∞` allowed).
        m: check_nonneg_or_inf,
        /// Slope `z ≥ 0`.
        z: check_nonneg,
    }
    /// Validate `m ≥ 0` (`∞` allowed), `z ≥ 0`.
}

guarantee! {
    /// `(μ, τ)`-mean concentrated DP (Dwork–Rothblum 2016; seed 000, Definition 16): the privacy loss
    /// `L` has `E[L] ≤ μ` and `L − E[L]` is `τ`-subgaussian, `E e^{λ(L − E L)} ≤ e^{λ²τ²/2}`.
    Mcdp {
        /// Mean bound `μ ≥ 0`.
        mu: check_nonneg,
        /// Subgaussian parameter `τ ≥ 0`.
        tau: check_nonneg,
    }
    /// Validate `μ, τ ≥ 0` finite.
}
