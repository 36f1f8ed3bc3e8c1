//! `qrenyi.privacy`: the CLI's `convert`, `compose`, `dp`, `qzcdp check|fit` and the classical
//! mechanisms, returning plain dicts (wrapped in result objects by `python/qrenyi/privacy.py`).
//! Same core calls as the CLI, so the same numbers; ±∞ are floats here (the CLI's JSON writes
//! them as the strings "inf"/"-inf").

use crate::divergence::validate_named;
use crate::{convert, guard, parse_error, to_py};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use qrenyi::divergence::Family;
use qrenyi::privacy::composition::{compare, compose_rdp, compose_zcdp};
use qrenyi::privacy::conversion::{
    pure_to_zcdp, rdp_delta, rdp_epsilon, rdp_epsilon_simple, zcdp_delta, zcdp_epsilon,
};
use qrenyi::privacy::mechanisms::{Gaussian, Laplace, Mechanism, RandomizedResponse};
use qrenyi::privacy::qzcdp::{CertifyOptions, Neighbours, Status};
use qrenyi::privacy::{PureDp, Rdp, RdpCurve, Zcdp};
use qrenyi::{Base, Result};

fn base_of(s: &str) -> PyResult<Base> {
    s.parse().map_err(to_py)
}

/// Exactly one of ε / δ.
enum Want {
    DeltaAt(f64),
    EpsilonAt(f64),
}

/// The base (parsed first) and what is wanted; ε is given in `base` units and returned in nats.
fn want(epsilon: Option<f64>, delta: Option<f64>, base: &str) -> PyResult<(Base, Want)> {
    let base = base_of(base)?;
    match (epsilon, delta) {
        (Some(e), None) => Ok((base, Want::DeltaAt(base.to_nats(e)))),
        (None, Some(d)) => Ok((base, Want::EpsilonAt(d))),
        _ => Err(parse_error(
            "arguments",
            "give exactly one of epsilon / delta",
        )),
    }
}

type Pairs = Vec<(&'static str, PyObject)>;
type PyObject = Py<PyAny>;

use crate::convert::{dict, obj};

fn f(py: Python<'_>, x: f64) -> PyObject {
    // + 0.0 turns −0 into 0, as the CLI's JSON does
    (x + 0.0)
        .into_pyobject(py)
        .map(|o| o.into_any().unbind())
        .unwrap_or_else(|e| match e {})
}

fn opt(py: Python<'_>, x: Option<f64>) -> PyObject {
    x.map_or_else(|| py.None(), |x| f(py, x))
}

/// The CLI's `base` key and its ε conversion: values of keys starting with `epsilon` go from
/// nats to `base`.
fn with_base<'py>(py: Python<'py>, base: Base, mut items: Pairs) -> PyResult<Bound<'py, PyDict>> {
    items.push(("base", obj(py, base.to_string())?));
    dict(py, items)
}

/// `convert zcdp`: (ξ, ρ)-zCDP → δ(ε) or ε(δ) (ξ, ρ and ε in `base` units).
#[pyfunction]
#[pyo3(signature = (rho, xi=0.0, *, epsilon=None, delta=None, base="e"))]
fn zcdp_to_dp<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = crate::convert::real)] rho: f64,
    #[pyo3(from_py_with = crate::convert::real)] xi: f64,
    #[pyo3(from_py_with = crate::convert::opt_real)] epsilon: Option<f64>,
    #[pyo3(from_py_with = crate::convert::opt_real)] delta: Option<f64>,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let (b, w) = want(epsilon, delta, base)?;
    let (key, c) = guard(|| {
        let z = Zcdp::new(b.to_nats(xi), b.to_nats(rho))?;
        Ok(match w {
            Want::DeltaAt(e) => ("delta", zcdp_delta(z, e)?),
            Want::EpsilonAt(d) => ("epsilon", zcdp_epsilon(z, d)?),
        })
    })?;
    let v = if key == "epsilon" {
        b.scale(c.value)
    } else {
        c.value
    };
    with_base(py, b, vec![(key, f(py, v)), ("alpha", opt(py, c.alpha))])
}

/// `convert rdp`: (α, τ)-RDP → δ(ε) or ε(δ) (with ε(δ) also the simpler τ + ln(1/δ)/(α−1));
/// τ and ε in `base` units.
#[pyfunction]
#[pyo3(signature = (alpha, tau, *, epsilon=None, delta=None, base="e"))]
fn rdp_to_dp<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = crate::convert::real)] alpha: f64,
    #[pyo3(from_py_with = crate::convert::real)] tau: f64,
    #[pyo3(from_py_with = crate::convert::opt_real)] epsilon: Option<f64>,
    #[pyo3(from_py_with = crate::convert::opt_real)] delta: Option<f64>,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let (b, w) = want(epsilon, delta, base)?;
    let r = guard(|| Rdp::new(alpha, b.to_nats(tau)))?;
    match w {
        Want::EpsilonAt(d) => {
            let (e, s) = guard(|| Ok((rdp_epsilon(r, d)?, rdp_epsilon_simple(r, d)?)))?;
            with_base(
                py,
                b,
                vec![
                    ("epsilon", f(py, b.scale(e))),
                    ("alpha", f(py, alpha)),
                    ("epsilon_simple", f(py, b.scale(s))),
                ],
            )
        }
        Want::DeltaAt(e) => {
            let d = guard(|| rdp_delta(r, e))?;
            with_base(py, b, vec![("delta", f(py, d)), ("alpha", f(py, alpha))])
        }
    }
}

/// Pure ε-DP → (0, ε²/2)-zCDP.
#[pyfunction]
fn pure_to_zcdp_<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = crate::convert::real)] epsilon: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let z = guard(|| Ok(pure_to_zcdp(PureDp::new(epsilon)?)))?;
    dict(py, vec![("xi", f(py, z.xi())), ("rho", f(py, z.rho()))])
}

/// `compose`: every composition bound for k copies of (ε, δ)-DP at δ_total.
#[pyfunction]
#[pyo3(signature = (epsilon, k, delta=0.0, delta_total=None, *, base="e"))]
fn compose<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = crate::convert::real)] epsilon: f64,
    #[pyo3(from_py_with = crate::convert::count)] k: usize,
    #[pyo3(from_py_with = crate::convert::real)] delta: f64,
    #[pyo3(from_py_with = crate::convert::opt_real)] delta_total: Option<f64>,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let b = base_of(base)?;
    let dt = delta_total.unwrap_or_else(|| (k as f64 * delta + 1e-6).min(1.0));
    let (rows, best) = guard(|| compare(b.to_nats(epsilon), delta, k, dt))?;
    let bounds = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            dict(
                py,
                vec![
                    ("name", obj(py, r.name)?),
                    ("source", obj(py, r.source)?),
                    ("epsilon_total", opt(py, r.epsilon.map(|e| b.scale(e)))),
                    ("delta_total", f(py, r.delta)),
                    ("applicable", obj(py, r.epsilon.is_some())?),
                    ("tightest", obj(py, Some(i) == best)?),
                    ("note", obj(py, r.note.clone())?),
                ],
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    dict(
        py,
        vec![
            ("epsilon", f(py, epsilon)),
            ("delta", f(py, delta)),
            ("k", obj(py, k)?),
            ("delta_total", f(py, dt)),
            ("bounds", obj(py, bounds)?),
            ("tightest", obj(py, best.map(|i| rows[i].name))?),
            ("base", obj(py, b.to_string())?),
        ],
    )
}

/// Compose zCDP guarantees: (Σξ, Σρ).
#[pyfunction]
fn compose_zcdp_<'py>(
    py: Python<'py>,
    guarantees: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let guarantees = crate::convert::pairs("guarantees", "(xi, rho)", guarantees)?;
    let z = guard(|| {
        let zs = guarantees
            .iter()
            .map(|&(xi, rho)| Zcdp::new(xi, rho))
            .collect::<Result<Vec<_>>>()?;
        compose_zcdp(&zs)
    })?;
    dict(py, vec![("xi", f(py, z.xi())), ("rho", f(py, z.rho()))])
}

/// Compose RDP curves given as lists of (α, τ) at the same orders: pointwise sums.
#[pyfunction]
fn compose_rdp_(curves: &Bound<'_, PyAny>) -> PyResult<Vec<(f64, f64)>> {
    let curves = crate::convert::sequence("curves", "a list of RDP curves", curves)?
        .iter()
        .map(|c| crate::convert::pairs("curves", "(alpha, tau)", c))
        .collect::<PyResult<Vec<_>>>()?;
    guard(|| {
        let cs = curves
            .iter()
            .map(|c| RdpCurve::new(c))
            .collect::<Result<Vec<_>>>()?;
        Ok(compose_rdp(&cs)?
            .points()
            .iter()
            .map(|p| (p.alpha(), p.tau()))
            .collect())
    })
}

/// A classical mechanism (Gaussian, Laplace, randomized response) and its privacy profile.
#[pyclass(name = "Mechanism", module = "qrenyi.privacy", frozen)]
pub struct PyMechanism {
    inner: Mech,
}

#[derive(Clone, Copy)]
enum Mech {
    Gaussian(Gaussian),
    Laplace(Laplace),
    RandomizedResponse(RandomizedResponse),
}

impl Mech {
    fn as_dyn(&self) -> &dyn Mechanism {
        match self {
            Mech::Gaussian(g) => g,
            Mech::Laplace(l) => l,
            Mech::RandomizedResponse(r) => r,
        }
    }
}

impl PyMechanism {
    /// The mechanism `make` builds, as `kind` (a core error as `QrenyiError`).
    fn build<M>(make: impl FnOnce() -> Result<M>, kind: fn(M) -> Mech) -> PyResult<Self> {
        Ok(PyMechanism {
            inner: kind(guard(make)?),
        })
    }
}

#[pymethods]
impl PyMechanism {
    /// "gaussian", "laplace" or "randomized-response".
    #[getter]
    fn name(&self) -> &'static str {
        match self.inner {
            Mech::Gaussian(_) => "gaussian",
            Mech::Laplace(_) => "laplace",
            Mech::RandomizedResponse(_) => "randomized-response",
        }
    }
    /// `sup D_α(M(x)‖M(x'))` at order α ∈ [1, ∞], rounded up.
    fn rdp(&self, #[pyo3(from_py_with = crate::convert::real)] alpha: f64) -> PyResult<f64> {
        guard(|| self.inner.as_dyn().rdp(alpha))
    }
    /// The exact privacy profile δ(ε), rounded up.
    fn delta(&self, #[pyo3(from_py_with = crate::convert::real)] epsilon: f64) -> PyResult<f64> {
        guard(|| self.inner.as_dyn().delta(epsilon))
    }
    /// The smallest ε with δ(ε) ≤ delta (bisection on the profile).
    fn epsilon(&self, #[pyo3(from_py_with = crate::convert::real)] delta: f64) -> PyResult<f64> {
        guard(|| self.inner.as_dyn().epsilon(delta))
    }
    /// The parameters (and, for the Gaussian, its zCDP ρ; for Laplace, its pure ε).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let name = obj(py, self.name())?;
        match self.inner {
            Mech::Gaussian(g) => dict(
                py,
                vec![
                    ("name", name),
                    ("sigma", f(py, g.sigma())),
                    ("sensitivity", f(py, g.sensitivity())),
                    ("zcdp_rho", f(py, g.zcdp().rho())),
                ],
            ),
            Mech::Laplace(l) => dict(
                py,
                vec![
                    ("name", name),
                    ("scale", f(py, l.scale())),
                    ("sensitivity", f(py, l.sensitivity())),
                    ("pure_epsilon", f(py, l.pure_epsilon())),
                ],
            ),
            Mech::RandomizedResponse(r) => {
                dict(py, vec![("name", name), ("epsilon", f(py, r.epsilon0()))])
            }
        }
    }
    fn __repr__(&self) -> String {
        match self.inner {
            Mech::Gaussian(g) => format!(
                "qrenyi.privacy.gaussian(sigma={}, sensitivity={})",
                g.sigma(),
                g.sensitivity()
            ),
            Mech::Laplace(l) => format!(
                "qrenyi.privacy.laplace(scale={}, sensitivity={})",
                l.scale(),
                l.sensitivity()
            ),
            Mech::RandomizedResponse(r) => {
                format!(
                    "qrenyi.privacy.randomized_response(epsilon={})",
                    r.epsilon0()
                )
            }
        }
    }
}

/// The Gaussian mechanism with noise σ and ℓ2 sensitivity Δ.
#[pyfunction]
#[pyo3(signature = (sigma, sensitivity=1.0))]
fn gaussian(
    #[pyo3(from_py_with = crate::convert::real)] sigma: f64,
    #[pyo3(from_py_with = crate::convert::real)] sensitivity: f64,
) -> PyResult<PyMechanism> {
    PyMechanism::build(|| Gaussian::new(sigma, sensitivity), Mech::Gaussian)
}

/// The smallest-σ Gaussian mechanism that is (ε, δ)-DP (exact profile, rounded up).
#[pyfunction]
#[pyo3(signature = (epsilon, delta, sensitivity=1.0))]
fn calibrate_gaussian(
    #[pyo3(from_py_with = crate::convert::real)] epsilon: f64,
    #[pyo3(from_py_with = crate::convert::real)] delta: f64,
    #[pyo3(from_py_with = crate::convert::real)] sensitivity: f64,
) -> PyResult<PyMechanism> {
    PyMechanism::build(
        || Gaussian::calibrate(epsilon, delta, sensitivity),
        Mech::Gaussian,
    )
}

/// The Laplace mechanism with scale b and ℓ1 sensitivity Δ.
#[pyfunction]
#[pyo3(signature = (scale, sensitivity=1.0))]
fn laplace(
    #[pyo3(from_py_with = crate::convert::real)] scale: f64,
    #[pyo3(from_py_with = crate::convert::real)] sensitivity: f64,
) -> PyResult<PyMechanism> {
    PyMechanism::build(|| Laplace::new(scale, sensitivity), Mech::Laplace)
}

/// Binary randomized response, from ε or from the probability p ∈ [½, 1) of answering truthfully.
#[pyfunction]
#[pyo3(signature = (epsilon=None, *, p=None))]
fn randomized_response(
    #[pyo3(from_py_with = crate::convert::opt_real)] epsilon: Option<f64>,
    #[pyo3(from_py_with = crate::convert::opt_real)] p: Option<f64>,
) -> PyResult<PyMechanism> {
    let rr = Mech::RandomizedResponse;
    match (epsilon, p) {
        (Some(e), None) => PyMechanism::build(|| RandomizedResponse::new(e), rr),
        (None, Some(p)) => PyMechanism::build(|| RandomizedResponse::from_probability(p), rr),
        _ => Err(parse_error("arguments", "give exactly one of epsilon / p")),
    }
}

fn family_of(family: &str) -> PyResult<Family> {
    match family {
        "sandwiched" | "maximal" | "petz" => family.parse().map_err(to_py),
        other => Err(parse_error(
            "family",
            format!("unknown family {other:?} (expected sandwiched, maximal or petz)"),
        )),
    }
}

fn neighbours(
    py: Python<'_>,
    rho: &Bound<'_, PyAny>,
    sigma: &Bound<'_, PyAny>,
    symmetric: bool,
) -> PyResult<Neighbours> {
    let r = convert::matrix("rho", rho)?;
    let s = convert::matrix("sigma", sigma)?;
    py.detach(|| {
        guard(|| {
            let r = validate_named("rho", r)?;
            let s = validate_named("sigma", s)?;
            Ok(Neighbours::quantum(r, s)?.symmetric(symmetric))
        })
    })
}

/// What `qzcdp check` and `qzcdp fit` share: the family, the base, the validated pair and the
/// certification options with `slack` (checked in this order, so the first bad argument is named).
fn qzcdp_setup(
    py: Python<'_>,
    (rho, sigma): (&Bound<'_, PyAny>, &Bound<'_, PyAny>),
    family: &str,
    symmetric: bool,
    slack: f64,
    base: &str,
) -> PyResult<(Family, Base, Neighbours, CertifyOptions)> {
    let family = family_of(family)?;
    let b = base_of(base)?;
    let nb = neighbours(py, rho, sigma, symmetric)?;
    let opts = CertifyOptions {
        slack,
        ..Default::default()
    };
    Ok((family, b, nb, opts))
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Holds => "holds",
        Status::Violated => "violated",
        Status::Inconclusive => "inconclusive",
    }
}

/// `qzcdp check`: certified check of D_α(ρ‖σ) ≤ ξ + ρα for all α > 1 (ξ, ρ, the margin and
/// the cover's divergence bounds in `base` units).
#[pyfunction]
#[pyo3(signature = (rho, sigma, zcdp_rho, xi=0.0, *, family="sandwiched", symmetric=false, slack=1e-10, base="e"))]
#[allow(clippy::too_many_arguments)]
fn qzcdp_check<'py>(
    py: Python<'py>,
    rho: &Bound<'py, PyAny>,
    sigma: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = crate::convert::real)] zcdp_rho: f64,
    #[pyo3(from_py_with = crate::convert::real)] xi: f64,
    #[pyo3(from_py_with = crate::convert::family)] family: &str,
    #[pyo3(from_py_with = crate::convert::flag)] symmetric: bool,
    #[pyo3(from_py_with = crate::convert::real)] slack: f64,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let (family, b, nb, opts) = qzcdp_setup(py, (rho, sigma), family, symmetric, slack, base)?;
    let r = py.detach(|| guard(|| nb.check(family, b.to_nats(xi), b.to_nats(zcdp_rho), &opts)))?;
    let cover: Vec<(f64, f64, f64)> = r
        .cover
        .iter()
        .map(|c| (c.lo, c.hi, b.scale(c.d_hi)))
        .collect();
    dict(
        py,
        vec![
            ("holds", obj(py, r.holds)?),
            ("witness_alpha", opt(py, r.witness_alpha)),
            ("margin", f(py, b.scale(r.margin))),
            ("base", obj(py, b.to_string())?),
            ("status", obj(py, status_name(r.status))?),
            ("cover", obj(py, cover)?),
            ("evaluations", obj(py, r.evaluations)?),
            ("warnings", obj(py, r.warnings)?),
        ],
    )
}

/// `qzcdp fit`: the minimal ρ for a given ξ (certified upper bound within a relative tolerance;
/// ξ and the results in `base` units).
#[pyfunction]
#[pyo3(signature = (rho, sigma, xi=0.0, *, family="sandwiched", symmetric=false, slack=1e-10, tolerance=1e-6, base="e"))]
#[allow(clippy::too_many_arguments)]
fn qzcdp_fit<'py>(
    py: Python<'py>,
    rho: &Bound<'py, PyAny>,
    sigma: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = crate::convert::real)] xi: f64,
    #[pyo3(from_py_with = crate::convert::family)] family: &str,
    #[pyo3(from_py_with = crate::convert::flag)] symmetric: bool,
    #[pyo3(from_py_with = crate::convert::real)] slack: f64,
    #[pyo3(from_py_with = crate::convert::real)] tolerance: f64,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let (family, b, nb, mut opts) = qzcdp_setup(py, (rho, sigma), family, symmetric, slack, base)?;
    opts.tolerance = tolerance;
    let xi_nats = b.to_nats(xi);
    let r = py.detach(|| guard(|| nb.fit(family, xi_nats, &opts)))?;
    dict(
        py,
        vec![
            ("zcdp_rho", f(py, b.scale(r.rho))),
            ("alpha", opt(py, r.alpha)),
            ("xi", f(py, b.scale(xi_nats))),
            ("lower", f(py, b.scale(r.lower))),
            ("base", obj(py, b.to_string())?),
            ("evaluations", obj(py, r.evaluations)?),
            ("warnings", obj(py, r.warnings)?),
        ],
    )
}

/// `dp`: quantum (ε, δ)-DP of a neighbouring pair (hockey-stick divergence, both orders); ε in
/// `base` units.
#[pyfunction]
#[pyo3(signature = (rho, sigma, *, epsilon=None, delta=None, base="e"))]
fn quantum_dp<'py>(
    py: Python<'py>,
    rho: &Bound<'py, PyAny>,
    sigma: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = crate::convert::opt_real)] epsilon: Option<f64>,
    #[pyo3(from_py_with = crate::convert::opt_real)] delta: Option<f64>,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let (b, w) = want(epsilon, delta, base)?;
    let nb = neighbours(py, rho, sigma, false)?;
    let (eps, del, pure) = py.detach(|| {
        guard(|| {
            let pure = nb.pure_epsilon()?;
            Ok(match w {
                Want::DeltaAt(e) => (e, nb.delta(e)?, pure),
                Want::EpsilonAt(d) => (nb.epsilon(d)?.value, d, pure),
            })
        })
    })?;
    with_base(
        py,
        b,
        vec![
            ("epsilon", f(py, b.scale(eps))),
            ("delta", f(py, del)),
            ("pure_epsilon", f(py, b.scale(pure))),
        ],
    )
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMechanism>()?;
    m.add_function(wrap_pyfunction!(zcdp_to_dp, m)?)?;
    m.add_function(wrap_pyfunction!(rdp_to_dp, m)?)?;
    m.add_function(wrap_pyfunction!(pure_to_zcdp_, m)?)?;
    m.add_function(wrap_pyfunction!(compose, m)?)?;
    m.add_function(wrap_pyfunction!(compose_zcdp_, m)?)?;
    m.add_function(wrap_pyfunction!(compose_rdp_, m)?)?;
    m.add_function(wrap_pyfunction!(gaussian, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate_gaussian, m)?)?;
    m.add_function(wrap_pyfunction!(laplace, m)?)?;
    m.add_function(wrap_pyfunction!(randomized_response, m)?)?;
    m.add_function(wrap_pyfunction!(qzcdp_check, m)?)?;
    m.add_function(wrap_pyfunction!(qzcdp_fit, m)?)?;
    m.add_function(wrap_pyfunction!(quantum_dp, m)?)?;
    Ok(())
}
