//! Kernel Rényi divergences of sample sets and auditing of differential privacy with them
//! (seed 002; Enrich et al., "Auditing differential privacy in high dimensions with the kernel
//! quantum Rényi divergence").
//!
//! For a normalised positive-definite kernel `k(x, x) = 1` with feature map `φ` into an RKHS `H`,
//! a distribution `P` has the covariance operator `Σ_P = E_P[φ(x) φ(x)ᵀ]` (a density operator on
//! `H`). The **regularised kernel Rényi divergence** of order α and regularisation `λ ≥ 0` is the
//! sandwiched quantum Rényi divergence
//!
//! `D_{α,λ}(P‖Q) = D̃_α(Σ_P ‖ Σ_Q + λI) = (1/(α−1)) ln Tr ((Σ_Q+λI)^{γ/2} Σ_P (Σ_Q+λI)^{γ/2})^α`,
//! `γ = (1−α)/α` (seed 002, eqs. (4) and (6)); `λ = 0` is the (unregularised) kernel Rényi
//! divergence. From samples `X ~ P^n`, `Y ~ Q^m` the plug-in estimate uses the empirical
//! covariance operators.
//!
//! * [`Kernel`], [`KernelKind`], [`median_bandwidth`]: kernels and the median heuristic.
//! * [`KernelDivergence`]: the estimator. It works with the Gram blocks `K_XX`, `K_XY`, `K_YY` and
//!   real symmetric eigensolves only: one eigendecomposition of `K_YY` (shared by every α and λ),
//!   then one values-only `n × n` eigensolve per `(α, λ)`. Derivation in `docs/kernel.md`,
//!   section "kernel_divergence".
//! * [`audit`]: hypothesis tests of RKRDP, RDP and (ε,δ)-DP with a finite-sample threshold or a
//!   resampling confidence interval.
//! * [`gaussian`]: analytic Gaussian-mechanism helpers (Balle & Wang 2018).
//! * [`experiment`]: the Gaussian-mechanism experiment of seed 002, Section 6 (Figure 1).

pub mod audit;
mod estimator;
pub mod experiment;
pub mod gaussian;
mod gram;
#[cfg(feature = "openblas")]
mod symmetric;

pub use estimator::KernelDivergence;
pub use gram::{median_bandwidth, pairwise_sq_distances, Kernel, KernelKind};
