#![doc = include_str!("../README.md")]
//!
//! # Modules
//!
//! The modules follow the mathematics:
//!
//! - [`state`]: density matrices (validated once, decomposed lazily), channels in Kraus form,
//!   random states, unitaries and channels.
//! - [`spectral`]: eigendecompositions and functional calculus over LAPACK, faer or nalgebra
//!   ([`spectral::Backend`]).
//! - [`divergence`]: classical and quantum Rényi divergences, relative entropies, `D_max`,
//!   hockey-stick divergences, trace distance and fidelities; [`divergence::Pair`] caches the
//!   α-independent work; [`divergence::batch`] evaluates many pairs.
//! - [`privacy`]: zCDP/RDP/(ε, δ) guarantees and sound conversions, composition, classical and
//!   quantum mechanisms, certified qzCDP checks and fits.
//! - [`kernel`]: the kernel Rényi divergence of samples and the DP audit built on it.
//! - [`verify`]: executable statements (the seed papers' lemmas) and the counterexample search.
//! - [`io`]: reading and writing matrices (`.npy`, `.npz`, JSON) and the JSON number rule.
//! - [`base`]: the logarithm base of reported values ([`Base`]); everything is computed in nats.
//! - [`error`]: the single error type [`Error`].
//!
//! [`prelude`] re-exports the handful of names most programs need.
//!
//! ```
//! use qrenyi::prelude::*;
//! let rho = DensityMatrix::diagonal(&[0.7, 0.3])?;
//! let sigma = DensityMatrix::maximally_mixed(2)?;
//! let pair = Pair::new(&rho, &sigma)?;
//! let d2 = pair.renyi(Family::Sandwiched, 2.0)?;          // ln 2 + ln(0.49 + 0.09)
//! assert!((d2 - (2.0f64.ln() + 0.58f64.ln())).abs() < 1e-14);
//! let curve = pair.curve(Family::Petz, &[0.5, 1.0, 2.0])?; // reuses the decompositions
//! assert_eq!(curve.len(), 3);
//! let f = pair.fidelity()?;                               // root fidelity √0.35 + √0.15
//! assert!((f - (0.35f64.sqrt() + 0.15f64.sqrt())).abs() < 1e-14);
//! # Ok::<(), qrenyi::Error>(())
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod base;
pub mod divergence;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod io;
pub mod kernel;
pub mod order;
pub mod privacy;
#[cfg(feature = "smooth")]
pub mod smooth;
pub mod spectral;
pub mod state;
pub mod verify;

pub use base::Base;
pub use error::{Error, Result};

/// The names most programs need: `use qrenyi::prelude::*;`.
pub mod prelude {
    pub use crate::base::Base;
    pub use crate::divergence::{Family, Pair};
    pub use crate::error::{Error, Result};
    pub use crate::spectral::Backend;
    pub use crate::state::{Channel, DensityMatrix, Tolerance};
}

// Links the system OpenBLAS (LAPACK + CBLAS) through ndarray-linalg's `openblas-system` feature.
#[cfg(feature = "openblas")]
extern crate ndarray_linalg as _;
