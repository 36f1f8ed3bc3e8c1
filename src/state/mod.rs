//! Quantum states and channels: [`DensityMatrix`], [`Channel`], random ensembles.
//!
//! A [`DensityMatrix`] is validated once, at construction: square, non-empty, finite entries,
//! Hermitian, positive semidefinite and of unit trace, each up to the tolerance
//! [`Tolerance::scaled`] `= base · √d · max(1, max_ij |A_ij|)` (default `base = 1e-10`). The stored
//! matrix is the exactly Hermitian part `(A + A†)/2`.
//!
//! The PSD check is a Cholesky factorisation of `H + t·I` (`t` the scaled tolerance,
//! [`EigenSolver::is_positive_definite`](crate::spectral::EigenSolver::is_positive_definite)), about a tenth of the cost of an eigendecomposition;
//! only when it fails are the eigenvalues computed, to reject with the smallest one (or accept a
//! state within `O(d·ε)` of the boundary). The eigendecomposition is computed lazily, on the first
//! [`DensityMatrix::eigen`] call, and cached: every divergence reuses it, clones share it, and a
//! state is decomposed at most once however many quantities are computed from it (a quantity
//! that needs no decomposition, e.g. the hockey-stick divergence, never pays for one).
//!
//! Submodules: [`density`] (the [`DensityMatrix`] type and its operations), [`validation`]
//! ([`Tolerance`] and the checks every input matrix passes), [`channel`] (Kraus channels),
//! [`random`] (random states, unitaries and channels), [`operators`] (matrix helpers: `A†`, `⊗`,
//! isometry checks).

pub mod channel;
pub mod density;
pub mod operators;
pub mod random;
pub mod validation;

pub use channel::Channel;
pub use density::DensityMatrix;
pub use operators::{dagger, kron};
pub use random::{ginibre, haar_unitary};
pub use validation::{Tolerance, MAX_TOLERANCE};
