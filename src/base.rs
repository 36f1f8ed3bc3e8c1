//! Logarithm base of reported divergences and privacy parameters.
//!
//! Every quantity in qrenyi is computed in **nats** (natural logarithms); a [`Base`] converts a
//! value at the output edge only: `D_b = D_e / ln b`. Divergences, relative entropies, `D_max`
//! and the ε of (ε, δ)-DP are logarithms and scale this way; probabilities (δ, the hockey-stick
//! divergence, the trace distance, fidelities) are not logarithms and are never scaled.
//!
//! ```
//! use qrenyi::Base;
//! let bits = Base::Two.scale(std::f64::consts::LN_2);
//! assert!((bits - 1.0).abs() < 1e-15);
//! assert_eq!("10".parse::<Base>().unwrap(), Base::Ten);
//! assert_eq!(Base::Two.scale(f64::INFINITY), f64::INFINITY);
//! ```

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// The base `b` of the logarithm in which a divergence (or an ε) is expressed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Base {
    /// Natural logarithm, nats (the unit of every computation in qrenyi).
    #[default]
    E,
    /// Base 2, bits (Ket.jl's default).
    Two,
    /// Base 10, bans (decimal digits).
    Ten,
}

impl Base {
    /// All bases, in the order `e, 2, 10`.
    pub const ALL: [Base; 3] = [Base::E, Base::Two, Base::Ten];

    /// `ln b`: 1, `ln 2`, `ln 10`.
    pub fn ln(self) -> f64 {
        match self {
            Base::E => 1.0,
            Base::Two => std::f64::consts::LN_2,
            Base::Ten => std::f64::consts::LN_10,
        }
    }

    /// A value in nats expressed in this base, `nats / ln b`. `±∞` and `±0` are preserved (the
    /// divisor is positive and finite); for [`Base::E`] the value is returned unchanged, bit for
    /// bit. NaN stays NaN (qrenyi never produces one).
    pub fn scale(self, nats: f64) -> f64 {
        match self {
            Base::E => nats,
            _ => nats / self.ln(),
        }
    }

    /// The inverse of [`Base::scale`]: a value given in this base, in nats (`v · ln b`).
    pub fn to_nats(self, value: f64) -> f64 {
        match self {
            Base::E => value,
            _ => value * self.ln(),
        }
    }

    /// The unit's name: `nats`, `bits`, `bans`.
    pub fn unit(self) -> &'static str {
        match self {
            Base::E => "nats",
            Base::Two => "bits",
            Base::Ten => "bans",
        }
    }
}

impl FromStr for Base {
    type Err = Error;
    /// `"e"`, `"2"` or `"10"` (the spellings of the CLI's `--base`).
    fn from_str(s: &str) -> Result<Self> {
        match s.trim() {
            "e" => Ok(Base::E),
            "2" => Ok(Base::Two),
            "10" => Ok(Base::Ten),
            other => Err(Error::Parse {
                what: "logarithm base".into(),
                reason: format!("{other:?}: expected e, 2 or 10"),
            }),
        }
    }
}

impl fmt::Display for Base {
    /// `e`, `2` or `10` (round-trips through [`FromStr`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Base::E => "e",
            Base::Two => "2",
            Base::Ten => "10",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `base_scale`: `scale` is the change of base `log_b x = ln x / ln b` (checked against
    /// `log2`/`log10` of std at several points), preserves ±∞ and ±0, inverts `to_nats`, and
    /// `parse ∘ to_string` is the identity.
    #[test]
    fn base_scale() {
        for x in [1e-300, 0.3, 1.0, 2.0, 7.5, 1e10, 1e300] {
            let nats = f64::ln(x);
            assert_eq!(Base::E.scale(nats), nats);
            assert!(
                (Base::Two.scale(nats) - x.log2()).abs()
                    <= 4.0 * f64::EPSILON * (1.0 + x.log2().abs())
            );
            assert!(
                (Base::Ten.scale(nats) - x.log10()).abs()
                    <= 4.0 * f64::EPSILON * (1.0 + x.log10().abs())
            );
        }
        for b in Base::ALL {
            assert_eq!(b.scale(f64::INFINITY), f64::INFINITY);
            assert_eq!(b.scale(f64::NEG_INFINITY), f64::NEG_INFINITY);
            assert_eq!(b.scale(0.0).to_bits(), 0.0f64.to_bits());
            assert_eq!(b.scale(-0.0).to_bits(), (-0.0f64).to_bits());
            assert!((b.to_nats(b.scale(1.234)) - 1.234).abs() < 1e-15);
            assert_eq!(b.to_string().parse::<Base>().unwrap(), b);
        }
        assert!("3".parse::<Base>().is_err());
        assert!("bits".parse::<Base>().is_err());
    }
}
