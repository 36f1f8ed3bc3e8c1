//! `qrenyi.kernel`: the CLI's `kernel-divergence` and `audit` on sample arrays.

use crate::convert::obj as o;
use crate::{convert, guard, parse_error};
use ndarray::Array2;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use qrenyi::kernel::audit::{
    audit, dp_regularization, AuditSpec, Hypothesis, Method, Resampling, ResamplingKind,
};
use qrenyi::kernel::experiment::{self, log_grid, ExperimentConfig, Scenario};
use qrenyi::kernel::{median_bandwidth, Kernel, KernelDivergence, KernelKind};

/// `median` or a positive number.
enum Bandwidth {
    Median,
    Value(f64),
}

fn bandwidth(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Bandwidth> {
    let Some(obj) = obj else {
        return Ok(Bandwidth::Median);
    };
    if obj.is_instance_of::<PyString>() {
        let s: String = obj.extract()?;
        return match s.as_str() {
            "median" => Ok(Bandwidth::Median),
            other => other.parse::<f64>().map(Bandwidth::Value).map_err(|e| {
                parse_error(
                    "--bandwidth",
                    format!("{other:?}: expected `median` or a number ({e})"),
                )
            }),
        };
    }
    convert::real(obj)
        .map(Bandwidth::Value)
        .map_err(|_| parse_error("--bandwidth", "expected `median` or a number"))
}

/// The kernel for the samples (median bandwidth from the pilot samples when given).
fn kernel_for(
    x: &Array2<f64>,
    y: &Array2<f64>,
    kind: &str,
    bw: Bandwidth,
    pilot: Option<(Array2<f64>, Array2<f64>)>,
) -> qrenyi::Result<Kernel> {
    let kind: KernelKind = kind.parse()?;
    let b = match (bw, pilot) {
        (Bandwidth::Value(b), _) => b,
        (Bandwidth::Median, Some((px, py))) => median_bandwidth(px.view(), py.view())?,
        (Bandwidth::Median, None) => median_bandwidth(x.view(), y.view())?,
    };
    Kernel::new(kind, b)
}

/// `kernel-divergence`: D̃_α(Σ̂_P ‖ Σ̂_Q + λI) of two samples.
#[pyfunction]
#[pyo3(signature = (x, y, alpha, lam, *, bandwidth=None, kernel="rbf", base="e"))]
#[allow(clippy::too_many_arguments)]
fn kernel_divergence<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = crate::convert::real)] alpha: f64,
    #[pyo3(from_py_with = crate::convert::real)] lam: f64,
    bandwidth: Option<Bound<'py, PyAny>>,
    #[pyo3(from_py_with = crate::convert::kernel_kind)] kernel: &'static str,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let base: qrenyi::Base = base.parse().map_err(crate::to_py)?;
    let xs = convert::real_matrix("x", x)?;
    let ys = convert::real_matrix("y", y)?;
    let bw = self::bandwidth(bandwidth.as_ref())?;
    // interruptible: Ctrl-C answers at once (the estimate finishes unseen on its thread)
    let (v, k, n, m) = crate::interruptible_detached(py, move || {
        guard(|| {
            let k = kernel_for(&xs, &ys, kernel, bw, None)?;
            let est = KernelDivergence::from_samples(xs.view(), ys.view(), &k)?;
            Ok((est.divergence(alpha, lam)?, k, est.n(), est.m()))
        })
    })??;
    convert::dict(
        py,
        vec![
            ("value", o(py, base.scale(v) + 0.0)?),
            ("base", o(py, base.to_string())?),
            ("bandwidth", o(py, k.bandwidth())?),
            ("kernel", o(py, k.kind().name())?),
            ("alpha", o(py, alpha)?),
            ("lambda", o(py, lam)?),
            ("n", o(py, n)?),
            ("m", o(py, m)?),
        ],
    )
}

/// `audit`: test (ε,δ)-DP, RDP or RKRDP from samples of M(D), M(D').
#[pyfunction]
#[pyo3(signature = (x, y, alpha, lam, *, epsilon=None, delta=None, rdp_tau=None, tau=None,
    bandwidth=None, pilot=None, kernel="rbf",
    level=0.05, method="finite-sample", replicates=200, fraction=0.5, seed=0))]
#[allow(clippy::too_many_arguments)]
fn kernel_audit<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    y: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = crate::convert::real)] alpha: f64,
    lam: &Bound<'py, PyAny>,
    #[pyo3(from_py_with = crate::convert::opt_real)] epsilon: Option<f64>,
    #[pyo3(from_py_with = crate::convert::opt_real)] delta: Option<f64>,
    #[pyo3(from_py_with = crate::convert::opt_real)] rdp_tau: Option<f64>,
    #[pyo3(from_py_with = crate::convert::opt_real)] tau: Option<f64>,
    bandwidth: Option<Bound<'py, PyAny>>,
    pilot: Option<Bound<'py, PyAny>>,
    #[pyo3(from_py_with = crate::convert::kernel_kind)] kernel: &'static str,
    #[pyo3(from_py_with = crate::convert::real)] level: f64,
    #[pyo3(from_py_with = crate::convert::audit_method)] method: &str,
    #[pyo3(from_py_with = crate::convert::count)] replicates: usize,
    #[pyo3(from_py_with = crate::convert::real)] fraction: f64,
    #[pyo3(from_py_with = crate::convert::seed)] seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let hyp = match (epsilon, delta, rdp_tau, tau) {
        (Some(epsilon), Some(delta), None, None) => Hypothesis::Dp { epsilon, delta },
        (None, None, Some(tau), None) => Hypothesis::Rdp { tau },
        (None, None, None, Some(tau)) => Hypothesis::Rkrdp { tau },
        _ => {
            return Err(parse_error(
                "arguments",
                "give exactly one null hypothesis: epsilon= and delta=, rdp_tau= or tau=",
            ))
        }
    };
    let lambda = if lam.is_instance_of::<PyString>() {
        let s: String = lam.extract()?;
        match (s.as_str(), hyp) {
            ("auto", Hypothesis::Dp { epsilon, delta }) => {
                guard(|| dp_regularization(epsilon, delta))?
            }
            ("auto", _) => {
                return Err(parse_error(
                    "--lambda",
                    "`auto` needs the (ε,δ)-DP hypothesis (--epsilon, --delta)",
                ))
            }
            (v, _) => v
                .parse::<f64>()
                .map_err(|e| parse_error("--lambda", format!("{v:?}: {e}")))?,
        }
    } else {
        convert::real(lam).map_err(|_| parse_error("--lambda", "expected a number or \"auto\""))?
    };
    let method = match method {
        "finite-sample" => Method::FiniteSample,
        "subsample" | "bootstrap" => Method::Resampling(Resampling {
            kind: if method == "bootstrap" {
                ResamplingKind::Bootstrap
            } else {
                ResamplingKind::Subsample
            },
            replicates,
            fraction,
            seed,
        }),
        other => {
            return Err(parse_error(
                "--method",
                format!(
                    "unknown method {other:?} (expected finite-sample, subsample or bootstrap)"
                ),
            ))
        }
    };
    let xs = convert::real_matrix("x", x)?;
    let ys = convert::real_matrix("y", y)?;
    let pilot = match pilot.filter(|p| !p.is_none()) {
        Some(p) => {
            let two = convert::sequence("pilot", "a pair (x, y) of sample arrays", &p)?;
            if two.len() != 2 {
                return Err(parse_error(
                    "pilot",
                    format!(
                        "expected a pair (x, y) of sample arrays, got {} items",
                        two.len()
                    ),
                ));
            }
            Some((
                convert::real_matrix("pilot x", &two[0])?,
                convert::real_matrix("pilot y", &two[1])?,
            ))
        }
        None => None,
    };
    let bw = self::bandwidth(bandwidth.as_ref())?;
    let spec = AuditSpec {
        alpha,
        lambda,
        level,
        hypothesis: hyp,
        method,
    };
    // interruptible as `kernel_divergence`
    let (r, k) = crate::interruptible_detached(py, move || {
        guard(|| {
            let k = kernel_for(&xs, &ys, kernel, bw, pilot)?;
            Ok((audit(xs.view(), ys.view(), &k, &spec)?, k))
        })
    })??;
    let fs = r
        .finite_sample
        .map(|f| -> PyResult<_> {
            Ok(vec![
                ("eta_p", o(py, f.eta_p)?),
                ("eta_q", o(py, f.eta_q)?),
                ("sigma_term", o(py, f.sigma_term)?),
                ("rho_term", o(py, f.rho_term)?),
                ("margin", o(py, f.total)?),
            ])
        })
        .transpose()?;
    let ci = r
        .interval
        .as_ref()
        .map(|c| -> PyResult<_> {
            Ok(vec![
                ("kind", o(py, c.kind.name())?),
                ("lower", o(py, c.lower)?),
                ("upper", o(py, c.upper)?),
                ("replicates", o(py, c.replicates)?),
            ])
        })
        .transpose()?;
    convert::dict(
        py,
        vec![
            ("divergence", o(py, r.divergence + 0.0)?),
            ("bandwidth", o(py, r.bandwidth)?),
            ("threshold", o(py, r.threshold)?),
            ("violation", o(py, r.violation)?),
            ("tau", o(py, r.tau)?),
            ("alpha", o(py, alpha)?),
            ("lambda", o(py, lambda)?),
            ("level", o(py, level)?),
            ("hypothesis", o(py, hyp.describe())?),
            ("method", o(py, r.method.to_string())?),
            ("kernel", o(py, k.kind().name())?),
            ("n", o(py, r.n)?),
            ("m", o(py, r.m)?),
            ("finite_sample", convert::dict_or_none(py, fs)?),
            ("interval", convert::dict_or_none(py, ci)?),
            ("assumptions", o(py, r.assumptions.clone())?),
        ],
    )
}

/// The (ε,δ)-DP regularisation λ used by `lam="auto"`.
#[pyfunction]
fn dp_lambda(
    #[pyo3(from_py_with = crate::convert::real)] epsilon: f64,
    #[pyo3(from_py_with = crate::convert::real)] delta: f64,
) -> PyResult<f64> {
    guard(|| dp_regularization(epsilon, delta))
}

/// The scenario columns of `runs.csv` / `curves.csv`.
fn scenario_items<'py>(
    py: Python<'py>,
    sc: &Scenario,
    base: qrenyi::Base,
) -> PyResult<Vec<(String, Py<PyAny>)>> {
    Ok(vec![
        ("delta_sens".into(), o(py, sc.sensitivity)?),
        (unit_key("epsilon", base), o(py, base.scale(sc.epsilon))?),
        ("delta".into(), o(py, sc.delta)?),
        ("sigma".into(), o(py, sc.sigma)?),
    ])
}

/// The CSV column of a value reported in `base` (`divergence` → `divergence_nats`, …).
fn unit_key(name: &str, base: qrenyi::Base) -> String {
    format!("{name}_{}", base.unit())
}

/// `audit gaussian-experiment`: seed 002's Figure 1 (the Gaussian mechanism, D̂_(α,λ) against
/// λ). Returns `runs` and `curves` (one dict per row of `runs.csv` / `curves.csv`, the CSV
/// columns as keys), `summary` (summary.md) and `files` (the paths written when `out` is given).
#[pyfunction]
#[pyo3(signature = (*, dim=30, n=None, runs=5, alpha=None, lambdas=None, seed=2022, out=None, base="e"))]
#[allow(clippy::too_many_arguments)]
fn gaussian_experiment<'py>(
    py: Python<'py>,
    #[pyo3(from_py_with = crate::convert::count)] dim: usize,
    n: Option<Bound<'py, PyAny>>,
    #[pyo3(from_py_with = crate::convert::count)] runs: usize,
    alpha: Option<Bound<'py, PyAny>>,
    lambdas: Option<Bound<'py, PyAny>>,
    #[pyo3(from_py_with = crate::convert::seed)] seed: u64,
    out: Option<std::path::PathBuf>,
    #[pyo3(from_py_with = crate::convert::base)] base: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let base: qrenyi::Base = guard(|| base.parse())?;
    let list = |what: &str, v: Option<Bound<'py, PyAny>>| -> PyResult<Option<Vec<f64>>> {
        Ok(match convert::params(what, v.as_ref())? {
            convert::Params::Absent => None,
            p => Some(p.values()),
        })
    };
    let (ns, alphas, lambdas) = (
        list("n", n)?,
        list("alpha", alpha)?,
        list("lambdas", lambdas)?,
    );
    // interruptible as `kernel_divergence`; the files are written after the run, so a
    // cancelled run writes none
    let (result, summary) = crate::interruptible_detached(py, move || {
        guard(|| {
            let mut cfg = ExperimentConfig::paper()?;
            cfg.dim = dim;
            if let Some(ns) = ns {
                cfg.ns = ns
                    .iter()
                    .map(|&v| {
                        if v >= 2.0 && v.fract() == 0.0 && v < 1e7 {
                            Ok(v as usize)
                        } else {
                            Err(qrenyi::Error::invalid(
                                "n",
                                v,
                                "sample sizes must be integers ≥ 2",
                            ))
                        }
                    })
                    .collect::<qrenyi::Result<_>>()?;
            }
            cfg.runs = runs;
            if let Some(a) = alphas {
                cfg.alphas = a;
            }
            cfg.lambdas = lambdas.unwrap_or_else(|| log_grid(2.5e-4, 0.1, 13));
            cfg.seed = seed;
            let result = experiment::run(&cfg, |_| {})?;
            let summary = experiment::summary(&result, base)?;
            Ok((result, summary))
        })
    })??;
    let files = match &out {
        Some(dir) => py.detach(|| {
            guard(|| qrenyi::io::with_input_scope(|| experiment::write_outputs(&result, dir, base)))
        })?,
        None => Vec::new(),
    };
    let scenarios = &result.config.scenarios;
    let mut run_rows = Vec::with_capacity(result.records.len());
    for r in &result.records {
        let mut kv = scenario_items(py, &scenarios[r.scenario], base)?;
        kv.extend([
            ("n".into(), o(py, r.n)?),
            ("run".into(), o(py, r.run)?),
            ("alpha".into(), o(py, r.alpha)?),
            ("lambda".into(), o(py, r.lambda)?),
            (unit_key("divergence", base), o(py, base.scale(r.value))?),
            ("bandwidth".into(), o(py, r.bandwidth)?),
        ]);
        run_rows.push(convert::dict(py, kv)?);
    }
    let mut curve_rows = Vec::with_capacity(result.curves.len());
    for c in &result.curves {
        let mut kv = scenario_items(py, &scenarios[c.scenario], base)?;
        kv.extend([
            ("n".into(), o(py, c.n)?),
            ("alpha".into(), o(py, c.alpha)?),
            ("lambda".into(), o(py, c.lambda)?),
            (unit_key("mean", base), o(py, base.scale(c.mean))?),
            (unit_key("std", base), o(py, base.scale(c.std))?),
            (unit_key("renyi_exact", base), o(py, base.scale(c.renyi))?),
        ]);
        curve_rows.push(convert::dict(py, kv)?);
    }
    let files: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    convert::dict(
        py,
        vec![
            ("runs", o(py, run_rows)?),
            ("curves", o(py, curve_rows)?),
            ("summary", o(py, summary)?),
            ("files", o(py, files)?),
        ],
    )
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gaussian_experiment, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_divergence, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_audit, m)?)?;
    m.add_function(wrap_pyfunction!(dp_lambda, m)?)?;
    Ok(())
}
