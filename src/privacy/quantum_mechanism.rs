//! Quantum mechanisms: a channel applied to neighbouring inputs.
//!
//! Neighbourhoods ([`Neighbourhood`]): pure inputs at trace distance `τ`
//! (`½‖ψψ† − φφ†‖₁ = √(1 − |⟨ψ|φ⟩|²) = τ`, Zhou–Ying 2017), or product inputs on `n` registers
//! differing in one register (Aaronson–Rothblum 2019). [`QuantumMechanism::worst_case`] searches
//! the neighbour inputs (a (1+1) evolution strategy over pure states with several random restarts)
//! and returns the best value found, which is a **lower bound** on the channel's `δ(ε)`, `ε`,
//! `ε(δ)` or qzCDP `ρ`, with the inputs that attain it.
//!
//! Closed forms exist for the global depolarizing channel `N_p(X) = (1−p)X + p Tr(X) I/d`
//! ([`Depolarizing`]); it is unitarily covariant, so every pure pair at trace distance `τ` gives
//! the same value and the search must reproduce it (tested).

use super::qzcdp::{CertifyOptions, Neighbours};
use super::rounding::{pt, up_by, Interval};
use super::{check_delta, check_nonneg};
use crate::divergence::{renyi_mean, Family, Pair};
use crate::error::{Error, Result};
use crate::state::{Channel, DensityMatrix};
use num_complex::Complex64;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use std::ops::{Add, Div, Mul, Sub};

/// Which inputs are neighbours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Neighbourhood {
    /// Pure input states at trace distance exactly `τ ∈ (0, 1]` (worst case over `T ≤ τ` is at
    /// least this).
    TraceDistance(f64),
    /// Product pure inputs on `n` registers of dimension `d` (channel input dimension `dⁿ`)
    /// that differ in exactly one register.
    Registers {
        /// Number of registers `n ≥ 1`.
        n: usize,
        /// Register dimension `d ≥ 2`.
        d: usize,
    },
}

/// What to maximise over neighbouring inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Objective {
    /// `δ(ε) = E_{e^ε}(N(ψ)‖N(φ))`.
    Delta(f64),
    /// Pure `ε = D_max(N(ψ)‖N(φ))`.
    PureEpsilon,
    /// `ε(δ)` of the output pair (bisection on its hockey-stick curve).
    EpsilonAtDelta(f64),
    /// qzCDP `ρ*(ξ)` of the output pair for a family (searched on a proxy
    /// `max_{α ∈ grid}(D_α − ξ)/α`; the best pair is then fitted with the certified fit).
    Zcdp {
        /// Rényi family.
        family: Family,
        /// Offset `ξ ≥ 0`.
        xi: f64,
    },
}

/// Search options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    /// Random restarts (default 6).
    pub restarts: usize,
    /// Steps per restart (default 150).
    pub iterations: usize,
    /// RNG seed (default 7).
    pub seed: u64,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            restarts: 6,
            iterations: 150,
            seed: 7,
        }
    }
}

/// Result of a worst-case search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Best objective value found: a lower bound on the channel's parameter.
    pub value: f64,
    /// For [`Objective::Zcdp`]: the certified fit's upper bound for the best pair found.
    pub pair_upper: Option<f64>,
    /// The neighbouring inputs that attain `value`.
    pub inputs: (DensityMatrix, DensityMatrix),
    /// Their images under the channel.
    pub outputs: (DensityMatrix, DensityMatrix),
    /// Objective evaluations used.
    pub evaluations: usize,
}

/// A quantum mechanism: a channel applied to neighbouring inputs.
#[derive(Clone, Debug)]
pub struct QuantumMechanism {
    channel: Channel,
}

/// Orders of the qzCDP search proxy.
const PROXY_ORDERS: [f64; 8] = [1.001, 1.1, 1.5, 2.0, 3.0, 5.0, 10.0, 50.0];

fn normalize(v: &[Complex64]) -> Option<Vec<Complex64>> {
    let n = v.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
    (n > 1e-300 && n.is_finite()).then(|| v.iter().map(|z| z / n).collect())
}

fn to_complex(x: &[f64]) -> Vec<Complex64> {
    x.chunks(2).map(|c| Complex64::new(c[0], c[1])).collect()
}

fn kron_vec(a: &[Complex64], b: &[Complex64]) -> Vec<Complex64> {
    a.iter()
        .flat_map(|x| b.iter().map(move |y| x * y))
        .collect()
}

impl QuantumMechanism {
    /// Wrap a channel.
    pub fn new(channel: Channel) -> Self {
        QuantumMechanism { channel }
    }

    /// The channel.
    pub fn channel(&self) -> &Channel {
        &self.channel
    }

    /// Number of real parameters and the decoder from parameters to the input pair.
    fn inputs(
        &self,
        nb: Neighbourhood,
        register: usize,
        x: &[f64],
    ) -> Option<(Vec<Complex64>, Vec<Complex64>)> {
        match nb {
            Neighbourhood::TraceDistance(tau) => {
                let d = self.channel.input_dim();
                let psi = normalize(&to_complex(&x[..2 * d]))?;
                let chi = to_complex(&x[2 * d..4 * d]);
                let ov: Complex64 = psi.iter().zip(&chi).map(|(a, b)| a.conj() * b).sum();
                let chi: Vec<Complex64> = chi.iter().zip(&psi).map(|(c, p)| c - p * ov).collect();
                let chi = normalize(&chi)?;
                let c = (1.0 - tau * tau).max(0.0).sqrt();
                let phi = psi.iter().zip(&chi).map(|(p, q)| p * c + q * tau).collect();
                Some((psi, phi))
            }
            Neighbourhood::Registers { n, d } => {
                let regs: Option<Vec<Vec<Complex64>>> = (0..=n)
                    .map(|i| normalize(&to_complex(&x[2 * d * i..2 * d * (i + 1)])))
                    .collect();
                let regs = regs?;
                let build = |swap: bool| {
                    (0..n).fold(vec![Complex64::new(1.0, 0.0)], |acc, i| {
                        let r = if swap && i == register {
                            &regs[n]
                        } else {
                            &regs[i]
                        };
                        kron_vec(&acc, r)
                    })
                };
                Some((build(false), build(true)))
            }
        }
    }

    fn parameter_count(&self, nb: Neighbourhood) -> Result<usize> {
        let din = self.channel.input_dim();
        match nb {
            Neighbourhood::TraceDistance(tau) => {
                if !(tau > 0.0 && tau <= 1.0) {
                    return Err(Error::invalid(
                        "tau",
                        tau,
                        "trace distance must lie in (0, 1]",
                    ));
                }
                if din < 2 {
                    return Err(Error::invalid("input dimension", din as f64, "need ≥ 2"));
                }
                Ok(4 * din)
            }
            Neighbourhood::Registers { n, d } => {
                if n == 0 || d < 2 {
                    return Err(Error::invalid("registers", n as f64, "need n ≥ 1, d ≥ 2"));
                }
                let total = d.checked_pow(n as u32).unwrap_or(usize::MAX);
                if total != din {
                    return Err(Error::DimensionMismatch {
                        what: "dⁿ vs channel input dimension".into(),
                        left: total,
                        right: din,
                    });
                }
                Ok(2 * d * (n + 1))
            }
        }
    }

    fn outputs(
        &self,
        psi: &[Complex64],
        phi: &[Complex64],
    ) -> Result<(
        (DensityMatrix, DensityMatrix),
        (DensityMatrix, DensityMatrix),
    )> {
        let (a, b) = (DensityMatrix::pure(psi)?, DensityMatrix::pure(phi)?);
        let (oa, ob) = (a.apply(&self.channel)?, b.apply(&self.channel)?);
        Ok(((a, b), (oa, ob)))
    }

    fn score(&self, obj: Objective, r: &DensityMatrix, s: &DensityMatrix) -> Result<f64> {
        let pair = Pair::new(r, s)?;
        match obj {
            Objective::Delta(eps) => pair.hockey_stick(eps.exp()),
            Objective::PureEpsilon => pair.max_relative_entropy(),
            Objective::EpsilonAtDelta(d) => {
                Ok(Neighbours::quantum(r.clone(), s.clone())?.epsilon(d)?.value)
            }
            Objective::Zcdp { family, xi } => PROXY_ORDERS
                .iter()
                .try_fold(0.0f64, |m, &a| Ok(m.max((pair.renyi(family, a)? - xi) / a))),
        }
    }

    /// Worst-case search over neighbouring inputs (see module docs). The value is a lower bound
    /// on the channel's parameter; with [`Objective::Zcdp`] the best pair's certified fit is
    /// also returned in `pair_upper`.
    pub fn worst_case(
        &self,
        nb: Neighbourhood,
        obj: Objective,
        opts: &SearchOptions,
    ) -> Result<SearchResult> {
        match obj {
            Objective::Delta(e) => check_nonneg("epsilon", e)?,
            Objective::EpsilonAtDelta(d) => check_delta("delta", d)?,
            Objective::Zcdp { xi, .. } => check_nonneg("xi", xi)?,
            Objective::PureEpsilon => {}
        }
        if opts.restarts == 0 {
            return Err(Error::invalid("restarts", 0.0, "need at least one restart"));
        }
        let np = self.parameter_count(nb)?;
        let registers = match nb {
            Neighbourhood::Registers { n, .. } => n,
            Neighbourhood::TraceDistance(_) => 1,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
        let mut best: Option<(f64, Vec<f64>, usize)> = None;
        let mut evaluations = 0;
        let mut eval = |x: &[f64], reg: usize| -> Result<Option<f64>> {
            evaluations += 1;
            let Some((psi, phi)) = self.inputs(nb, reg, x) else {
                return Ok(None);
            };
            let (_, (r, s)) = self.outputs(&psi, &phi)?;
            self.score(obj, &r, &s).map(Some)
        };
        for restart in 0..opts.restarts {
            let reg = restart % registers;
            let mut x: Vec<f64> = (0..np).map(|_| rng.sample(StandardNormal)).collect();
            let mut fx = eval(&x, reg)?.unwrap_or(f64::NEG_INFINITY);
            let mut step = 0.5;
            for _ in 0..opts.iterations {
                if fx == f64::INFINITY {
                    break;
                }
                let y: Vec<f64> = x
                    .iter()
                    .map(|v| v + step * rng.sample::<f64, _>(StandardNormal))
                    .collect();
                match eval(&y, reg)? {
                    Some(fy) if fy >= fx => {
                        x = y;
                        fx = fy;
                        step = (step * 1.5).min(2.0);
                    }
                    _ => step = (step * 0.85).max(1e-6),
                }
            }
            if best.as_ref().is_none_or(|b| fx > b.0) {
                best = Some((fx, x, reg));
            }
        }
        let (value, x, reg) = best.ok_or_else(|| Error::Empty("search produced no pair".into()))?;
        let (psi, phi) = self
            .inputs(nb, reg, &x)
            .ok_or_else(|| Error::Empty("degenerate best input".into()))?;
        let (inputs, outputs) = self.outputs(&psi, &phi)?;
        let (value, pair_upper) = match obj {
            Objective::Zcdp { family, xi } => {
                let fit = Neighbours::quantum(outputs.0.clone(), outputs.1.clone())?.fit(
                    family,
                    xi,
                    &CertifyOptions::default(),
                )?;
                (fit.lower.max(value), Some(fit.rho))
            }
            _ => (value, None),
        };
        Ok(SearchResult {
            value,
            pair_upper,
            inputs,
            outputs,
            evaluations,
        })
    }
}

/// Closed forms for the global depolarizing channel `N_p(X) = (1−p)X + p Tr(X) I/d` on pure
/// neighbouring inputs at trace distance `τ` (derivations in `docs/privacy.md`,
/// "depolarizing_closed_form"). With `a = 1−p`, `c = p/d`:
///
/// * `E_γ = Σ_± ((1−p)μ_± + (1−γ)c)_+`, `μ_± = ((1−γ) ± √((1−γ)² + 4γτ²))/2` (γ ≥ 1);
/// * `D_max = ln(1 + q/2 + √(q(q+4))/2)`, `q = a²τ²/(c(a+c))`; at `τ = 1`: `ln(1 + (1−p)d/p)`;
/// * at `τ = 1` the outputs commute: `D_α` of `(a+c, c, c, …)` vs `(c, a+c, c, …)` (all families).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Depolarizing {
    /// Dimension `d ≥ 2`.
    pub(crate) d: usize,
    /// Depolarizing probability `p ∈ (0, 1]`.
    pub(crate) p: f64,
    /// Trace distance of the neighbouring pure inputs, `τ ∈ (0, 1]`.
    pub(crate) tau: f64,
}

impl Depolarizing {
    /// Dimension `d ≥ 2`.
    pub fn d(&self) -> usize {
        self.d
    }
    /// Depolarizing probability `p ∈ (0, 1]`.
    pub fn p(&self) -> f64 {
        self.p
    }
    /// Trace distance of the neighbouring pure inputs, `τ ∈ (0, 1]`.
    pub fn tau(&self) -> f64 {
        self.tau
    }

    /// Validate `d ≥ 2`, `p ∈ (0, 1]`, `τ ∈ (0, 1]`.
    pub fn new(d: usize, p: f64, tau: f64) -> Result<Self> {
        if d < 2 {
            return Err(Error::invalid("d", d as f64, "need d ≥ 2"));
        }
        if !(p > 0.0 && p <= 1.0) {
            return Err(Error::invalid("p", p, "must lie in (0, 1]"));
        }
        if !(tau > 0.0 && tau <= 1.0) {
            return Err(Error::invalid("tau", tau, "must lie in (0, 1]"));
        }
        Ok(Depolarizing { d, p, tau })
    }

    /// The channel itself.
    pub fn channel(&self) -> Result<Channel> {
        Channel::depolarizing(self.d, self.p)
    }

    fn ac(&self) -> (Interval, Interval) {
        (pt(1.0).sub(pt(self.p)), pt(self.p).div(pt(self.d as f64)))
    }

    /// Exact `δ(ε) = E_{e^ε}(N(ψ)‖N(φ))`, rounded up.
    pub fn delta(&self, epsilon: f64) -> Result<f64> {
        check_nonneg("epsilon", epsilon)?;
        let (a, c) = self.ac();
        let g = pt(epsilon).exp();
        let omg = pt(1.0).sub(g);
        let t = pt(self.tau);
        let disc = omg.mul(omg).add(pt(4.0).mul(g).mul(t).mul(t)).sqrt();
        let shift = omg.mul(c);
        let mut total = pt(0.0);
        for mu in [omg.add(disc).mul(pt(0.5)), omg.sub(disc).mul(pt(0.5))] {
            total = total.add(a.mul(mu).add(shift).max(pt(0.0)));
        }
        Ok(total.hi.clamp(0.0, 1.0))
    }

    /// Exact `D_max(N(ψ)‖N(φ))` (= the channel's pure `ε` over such pairs), rounded up.
    pub fn pure_epsilon(&self) -> f64 {
        let (a, c) = self.ac();
        let t = pt(self.tau);
        let q = a.mul(a).mul(t).mul(t).div(c.mul(a.add(c)));
        let root = q.mul(q.add(pt(4.0))).sqrt();
        q.mul(pt(0.5)).add(root.mul(pt(0.5))).ln_1p().hi
    }

    /// Exact `D_α(N(ψ)‖N(φ))` for orthogonal inputs (`τ = 1`), any family (the outputs commute);
    /// rounded up by 64 ulps over the crate's Rényi mean.
    pub fn renyi(&self, alpha: f64) -> Result<f64> {
        if self.tau != 1.0 {
            return Err(Error::invalid(
                "tau",
                self.tau,
                "the D_α closed form is for orthogonal inputs (τ = 1)",
            ));
        }
        crate::order::Order::new(
            alpha,
            crate::order::OrderRange::NonNegative,
            "the depolarizing closed form",
        )?;
        let c = self.p / self.d as f64;
        let big = 1.0 - self.p + c;
        let l = big.ln() - c.ln();
        let terms = [(big, l), (c, -l), (c * (self.d - 2) as f64, 0.0)];
        Ok(up_by(renyi_mean(&terms, alpha).max(0.0), 64))
    }

    /// The commuting output pair for `τ = 1` as probability vectors (for [`Neighbours`]).
    pub fn orthogonal_outputs(&self) -> (Vec<f64>, Vec<f64>) {
        let c = self.p / self.d as f64;
        let mut p = vec![c; self.d];
        let mut q = vec![c; self.d];
        p[0] = 1.0 - self.p + c;
        q[1] = 1.0 - self.p + c;
        (p, q)
    }
}
