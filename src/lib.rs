//! # qrenyi — quantum Rényi divergences you can trust
//!
//! Petz, sandwiched and maximal (geometric) quantum Rényi divergences of density matrices,
//! relative entropies, the max-relative entropy and hockey-stick divergences, with exact
//! conventions at rank-deficient states, at α → 1 and α → ∞ (see `docs/conventions.md`).
//!
//! ```
//! use qrenyi::{state::DensityMatrix, divergence::{Pair, Family}};
//! let rho = DensityMatrix::diagonal(&[0.7, 0.3])?;
//! let sigma = DensityMatrix::maximally_mixed(2)?;
//! let pair = Pair::new(&rho, &sigma)?;
//! let d2 = pair.renyi(Family::Sandwiched, 2.0)?;          // ln 2 + ln(0.49 + 0.09)
//! assert!((d2 - (2.0f64.ln() + 0.58f64.ln())).abs() < 1e-14);
//! let curve = pair.curve(Family::Petz, &[0.5, 1.0, 2.0])?; // reuses the decompositions
//! assert_eq!(curve.len(), 3);
//! # Ok::<(), qrenyi::Error>(())
//! ```
//!
//! Modules follow the mathematics: [`state`] (density matrices, channels, random ensembles),
//! [`spectral`] (eigendecompositions and functional calculus over LAPACK or nalgebra),
//! [`divergence`] (classical and quantum divergences), [`io`] (`.npy` and JSON matrices).

pub mod base;
pub mod divergence;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod io;
pub mod kernel;
pub mod order;
pub mod privacy;
pub mod spectral;
pub mod state;
pub mod verify;

pub use base::Base;
pub use error::{Error, Result};

// Links the system OpenBLAS (LAPACK + CBLAS) through ndarray-linalg's `openblas-system` feature.
#[cfg(feature = "openblas")]
extern crate ndarray_linalg as _;
