//! Rényi orders: one validated type for `α` and the ranges the quantities are defined on.
//!
//! Every Rényi quantity of the crate is defined on one of five ranges of `α` (docs/conventions.md):
//! the classical and Petz divergences on `[0, ∞]`, the sandwiched and maximal divergences and the
//! kernel estimator on `(0, ∞]`, mechanism RDP curves on `[1, ∞]`, privacy guarantees on
//! `(1, ∞]`, and the 256-bit re-evaluation on `(0, ∞)`. [`Order::new`] is the single place where
//! an `f64` becomes an order: it rejects NaN and values outside the range with one
//! [`Error::AlphaOutOfRange`] wording, so the checks cannot drift apart.

use crate::error::{Error, Result};

/// The range of orders a quantity is defined on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderRange {
    /// `α ∈ [0, ∞]` (classical Rényi divergence, Petz).
    NonNegative,
    /// `α ∈ (0, ∞]` (sandwiched, maximal, kernel Rényi divergence, Gaussian closed form).
    Positive,
    /// `α ∈ (0, ∞)` (256-bit re-evaluation: finite orders only).
    PositiveFinite,
    /// `α ∈ [1, ∞]` (RDP curves of mechanisms, where α = 1 is the KL limit).
    AtLeastOne,
    /// `α ∈ (1, ∞]` (Rényi differential privacy guarantees).
    AboveOne,
}

impl OrderRange {
    /// Whether `alpha` lies in the range (NaN never does).
    pub fn contains(self, alpha: f64) -> bool {
        match self {
            OrderRange::NonNegative => alpha >= 0.0,
            OrderRange::Positive => alpha > 0.0,
            OrderRange::PositiveFinite => alpha > 0.0 && alpha.is_finite(),
            OrderRange::AtLeastOne => alpha >= 1.0,
            OrderRange::AboveOne => alpha > 1.0,
        }
    }

    /// The range in interval notation.
    pub fn interval(self) -> &'static str {
        match self {
            OrderRange::NonNegative => "[0, ∞]",
            OrderRange::Positive => "(0, ∞]",
            OrderRange::PositiveFinite => "(0, ∞)",
            OrderRange::AtLeastOne => "[1, ∞]",
            OrderRange::AboveOne => "(1, ∞]",
        }
    }
}

/// A Rényi order `α`, checked against the range of the quantity it is for.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Order(f64);

impl Order {
    /// Validate `alpha ∈ range`; `what` names the quantity in the error
    /// (`"the sandwiched divergence"` → "the sandwiched divergence needs α ∈ (0, ∞]").
    pub fn new(alpha: f64, range: OrderRange, what: &str) -> Result<Order> {
        if range.contains(alpha) {
            Ok(Order(alpha))
        } else {
            Err(Error::AlphaOutOfRange {
                alpha,
                expected: format!("{what} needs α ∈ {}", range.interval()),
            })
        }
    }

    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl From<Order> for f64 {
    fn from(a: Order) -> f64 {
        a.0
    }
}
