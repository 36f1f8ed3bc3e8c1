//! `qrenyi.smooth`: the CLI's `smooth` (certified brackets of smooth divergences, docs/smooth.md).
//!
//! Each function returns the dict of the CLI's `--json` object (values scaled to `base`, the key
//! `base` only when it is not `e`, as the CLI writes it); the conic programs run with the GIL
//! released.

use crate::convert::{self, Operand, Params};
use crate::divergence::validate_named;
use crate::{guard, parse_error};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::IntoPyObjectExt;
use qrenyi::smooth::{self, Ball, Bracket};
use qrenyi::state::DensityMatrix;
use qrenyi::Base;

/// One state: a `qrenyi.State` as it is, a matrix validated later (without the GIL).
enum Input {
    State(DensityMatrix),
    Matrix(ndarray::Array2<num_complex::Complex64>),
}

impl Input {
    fn from(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Input> {
        match convert::operand(what, obj)? {
            Operand::State(s) => Ok(Input::State(s)),
            Operand::Matrix(m) => Ok(Input::Matrix(m)),
            Operand::Stack(v) => Err(parse_error(
                what,
                format!("expected one d×d matrix, got a stack of {}", v.shape()[0]),
            )),
        }
    }

    fn validate(self, what: &str) -> qrenyi::Result<DensityMatrix> {
        match self {
            Input::State(s) => Ok(s),
            Input::Matrix(m) => validate_named(what, m),
        }
    }
}

fn set<'py, T: IntoPyObject<'py>>(d: &Bound<'py, PyDict>, k: &str, v: T) -> PyResult<()> {
    d.set_item(k, v.into_py_any(d.py())?)
}

/// `value`, `lower`, `upper` in `base` units (−0 written as 0, as the CLI's JSON does).
fn set_bracket(d: &Bound<'_, PyDict>, b: &Bracket, base: Base) -> PyResult<()> {
    set(d, "value", base.scale(b.value) + 0.0)?;
    set(d, "lower", base.scale(b.lower) + 0.0)?;
    set(d, "upper", base.scale(b.upper) + 0.0)
}

/// The CLI's `base` key: present only when the base is not `e`.
fn set_base(d: &Bound<'_, PyDict>, base: Base) -> PyResult<()> {
    if base != Base::E {
        set(d, "base", base.to_string())?;
    }
    Ok(())
}

/// The CLI's JSON object of one bracket: `kind`, `epsilon`, the `(key, value)` of `extra` when
/// given (`ball`, `alpha`), `value`/`lower`/`upper` and `base`.
fn bracket_dict<'py>(
    py: Python<'py>,
    kind: &str,
    epsilon: f64,
    extra: Option<(&str, Py<PyAny>)>,
    b: &Bracket,
    base: Base,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    set(&d, "kind", kind)?;
    set(&d, "epsilon", epsilon + 0.0)?;
    if let Some((k, v)) = extra {
        set(&d, k, v)?;
    }
    set_bracket(&d, b, base)?;
    set_base(&d, base)?;
    Ok(d)
}

/// `smooth --kind hypothesis-testing` or `--kind dmax` (`ball` given).
fn quantum<'py>(
    py: Python<'py>,
    rho: &Bound<'py, PyAny>,
    sigma: &Bound<'py, PyAny>,
    epsilon: f64,
    ball: Option<&str>,
    base: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let base: Base = base.parse().map_err(crate::to_py)?;
    let ball: Option<Ball> = ball
        .map(|b| b.parse::<Ball>())
        .transpose()
        .map_err(crate::to_py)?;
    let (r, s) = (Input::from("rho", rho)?, Input::from("sigma", sigma)?);
    let b = py.detach(|| {
        guard(|| {
            let (r, s) = (r.validate("rho")?, s.validate("sigma")?);
            match ball {
                Some(ball) => smooth::max_divergence(&r, &s, epsilon, ball),
                None => smooth::hypothesis_testing(&r, &s, epsilon),
            }
        })
    })?;
    let (kind, extra) = match ball {
        Some(ball) => ("dmax", Some(("ball", ball.name().into_py_any(py)?))),
        None => ("hypothesis-testing", None),
    };
    bracket_dict(py, kind, epsilon, extra, &b, base)
}

/// D_H^ε(ρ‖σ) as the CLI's `smooth --kind hypothesis-testing --json` object.
#[pyfunction]
#[pyo3(signature = (rho, sigma, epsilon, *, base="e"))]
fn smooth_hypothesis_testing<'py>(
    py: Python<'py>,
    rho: &Bound<'py, PyAny>,
    sigma: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = crate::convert::real)] epsilon: f64,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
) -> PyResult<Bound<'py, PyDict>> {
    quantum(py, rho, sigma, epsilon, None, base)
}

/// D_max^ε(ρ‖σ) over `ball` as the CLI's `smooth --kind dmax --json` object.
#[pyfunction]
#[pyo3(signature = (rho, sigma, epsilon, *, ball="purified", base="e"))]
fn smooth_dmax<'py>(
    py: Python<'py>,
    rho: &Bound<'py, PyAny>,
    sigma: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = crate::convert::real)] epsilon: f64,
    #[pyo3(from_py_with = crate::convert::ball)] ball: &str,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
) -> PyResult<Bound<'py, PyDict>> {
    quantum(py, rho, sigma, epsilon, Some(ball), base)
}

/// A probability vector argument (a number is an error naming it).
fn vector(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    match convert::params(what, Some(obj))? {
        Params::Seq(v) => Ok(v),
        _ => Err(parse_error(
            what,
            "expected a probability vector (a 1-D sequence)",
        )),
    }
}

/// Seed 000's classical smooth Rényi divergence `D_α^δ(P‖Q)` (α > 1; α = ∞: Definition 11):
/// one dict `{kind, epsilon, alpha, value, lower, upper[, base]}` per order — the CLI's
/// `smooth --kind smooth-renyi --json` object has `kind`, `epsilon` and `base` once and the
/// per-order keys in its `values` list. A list of dicts when `alpha` is a sequence.
#[pyfunction]
#[pyo3(signature = (p, q, delta, alpha, *, base="e"))]
fn smooth_renyi<'py>(
    py: Python<'py>,
    p: &Bound<'py, PyAny>,
    q: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = crate::convert::real)] delta: f64,
    alpha: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
) -> PyResult<Py<PyAny>> {
    let base: Base = base.parse().map_err(crate::to_py)?;
    let (p, q) = (vector("p", p)?, vector("q", q)?);
    let alphas = convert::params("alpha", Some(alpha))?;
    let orders = alphas.values();
    let brackets = py.detach(|| {
        guard(|| {
            orders
                .iter()
                .map(|&a| {
                    if a == f64::INFINITY {
                        smooth::classical::smooth_max(&p, &q, delta)
                    } else {
                        smooth::classical::smooth_renyi(&p, &q, a, delta)
                    }
                })
                .collect::<qrenyi::Result<Vec<_>>>()
        })
    })?;
    let rows = orders
        .iter()
        .zip(&brackets)
        .map(|(&a, b)| {
            let alpha = ("alpha", (a + 0.0).into_py_any(py)?);
            bracket_dict(py, "smooth-renyi", delta, Some(alpha), b, base)
        })
        .collect::<PyResult<Vec<_>>>()?;
    match alphas {
        Params::Seq(_) => rows.into_py_any(py),
        _ => rows
            .into_iter()
            .next()
            .map(|d| d.into_any().unbind())
            .ok_or_else(|| parse_error("alpha", "no order given")),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(smooth_hypothesis_testing, m)?)?;
    m.add_function(wrap_pyfunction!(smooth_dmax, m)?)?;
    m.add_function(wrap_pyfunction!(smooth_renyi, m)?)?;
    Ok(())
}
