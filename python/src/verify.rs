//! `qrenyi.verify`: the counterexample search of `qrenyi verify`, in-process.
//!
//! Reports cross the boundary as the CLI's JSON text (`serde_json` of `verify::Report`), which
//! `python/qrenyi/verify.py` parses with `json.loads`: a report dict is the CLI's `--json` output
//! for the same run, key for key.
//!
//! Custom statements written in Python ([`PyStatement`]) run in the same engine: the engine's
//! rayon workers call back into Python for every sample and every margin evaluation, taking the
//! GIL for the duration of the callback (the GIL is released while the engine runs, so the
//! workers can take it). Python code runs one callback at a time, so such a statement runs at
//! Python speed on one core; the engine's seeding, refinement and confirmation are unchanged.

use crate::{convert, guard, guard_py, parse_error, to_py, QrenyiError};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyTuple};
use qrenyi::spectral::Backend;
use qrenyi::state::{DensityMatrix, Tolerance};
use qrenyi::verify::{
    self, Config, Expected, Instance, Item, Margin, SampleContext, Scale, Statement,
};
use qrenyi::{Error, Result};
use rand::RngCore;
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use std::sync::Mutex;

/// The built-in statements as the CLI's `verify --list --json`.
#[pyfunction]
fn verify_statements() -> PyResult<String> {
    let v: Vec<_> = verify::builtin()
        .iter()
        .map(|s| {
            serde_json::json!({
                "name": s.name(),
                "source": s.source(),
                "expected": s.expected().name(),
                "statement": s.summary(),
                "default_trials": s.default_trials(),
            })
        })
        .collect();
    Ok(serde_json::Value::Array(v).to_string())
}

/// A statement written in Python: `sample(seed, max_dim) -> dict` and `margin(instance) ->
/// float | (value, error)`.
#[pyclass(name = "Statement", module = "qrenyi.verify", frozen)]
pub struct PyStatement {
    name: String,
    source: String,
    expected: Expected,
    summary: String,
    trials: usize,
    sample: Py<PyAny>,
    margin: Py<PyAny>,
    /// The first exception raised by a callback (re-raised after the run).
    failure: Mutex<Option<PyErr>>,
}

#[pymethods]
impl PyStatement {
    #[new]
    #[pyo3(
        signature = (name, sample, margin, *, expected="theorem", summary=String::new(), source=String::from("user"), trials=1000),
        text_signature = "(name, sample, margin, *, expected=\"theorem\", summary=\"\", source=\"user\", trials=1000)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        #[pyo3(from_py_with = crate::convert::text)] name: String,
        sample: Py<PyAny>,
        margin: Py<PyAny>,
        #[pyo3(from_py_with = crate::convert::expectation)] expected: &str,
        #[pyo3(from_py_with = crate::convert::text)] summary: String,
        #[pyo3(from_py_with = crate::convert::text)] source: String,
        #[pyo3(from_py_with = crate::convert::count)] trials: usize,
    ) -> PyResult<Self> {
        let expected = match expected {
            "theorem" => Expected::Theorem,
            "false" => Expected::False,
            "open" => Expected::Open,
            other => {
                return Err(parse_error(
                    "expected",
                    format!("unknown expectation {other:?} (expected theorem, false or open)"),
                ))
            }
        };
        if trials == 0 {
            return Err(to_py(Error::invalid("trials", 0.0, "must be at least 1")));
        }
        Python::attach(|py| {
            for (what, f) in [("sample", &sample), ("margin", &margin)] {
                if !f.bind(py).is_callable() {
                    return Err(parse_error(
                        what,
                        format!(
                            "expected a callable, got {}",
                            crate::convert::describe(f.bind(py))
                        ),
                    ));
                }
            }
            Ok(())
        })?;
        Ok(PyStatement {
            name,
            source,
            expected,
            summary,
            trials,
            sample,
            margin,
            failure: Mutex::new(None),
        })
    }
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }
    #[getter]
    fn expected(&self) -> &'static str {
        self.expected.name()
    }
    #[getter]
    fn summary(&self) -> &str {
        &self.summary
    }
    #[getter]
    fn source(&self) -> &str {
        &self.source
    }
    #[getter]
    fn default_trials(&self) -> usize {
        self.trials
    }
    fn __repr__(&self) -> String {
        format!(
            "qrenyi.verify.Statement({:?}, expected={:?})",
            self.name,
            self.expected.name()
        )
    }
}

/// A statement borrowed from its Python object for one run.
struct Borrowed<'a>(&'a PyStatement);

impl Borrowed<'_> {
    /// Record the first Python failure and turn it into a core error (the engine counts the
    /// instance as an error; the run re-raises the first failure at the end).
    fn fail(&self, py: Python<'_>, e: PyErr) -> Error {
        let msg = e.value(py).to_string();
        let mut slot = self.0.failure.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        Error::Parse {
            what: format!("statement {:?}", self.0.name),
            reason: msg,
        }
    }
}

fn item_from_py(name: &str, v: &Bound<'_, PyAny>) -> PyResult<Item> {
    let finite = |x: f64| -> PyResult<f64> {
        if x.is_finite() {
            Ok(x)
        } else {
            Err(to_py(Error::invalid(
                name,
                x,
                "a number item (and its bounds) must be finite",
            )))
        }
    };
    if v.is_instance_of::<PyFloat>() || v.is_instance_of::<PyInt>() {
        let x = finite(crate::convert::real(v)?)?; // `bool` refused there
        return Ok(Item::scalar(x, x, x, Scale::Linear));
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        let shape = || {
            parse_error(
                name,
                format!(
                    "a tuple item must be (value, lo, hi): a scalar the search may move within \
                     [lo, hi]; got {}",
                    convert::describe(v)
                ),
            )
        };
        if t.len() != 3 {
            return Err(shape());
        }
        // each a real number by the rules of every other numeric argument (`True` is refused)
        let num = |k: usize| -> PyResult<f64> {
            let x = t.get_item(k)?;
            convert::real(&x).map_err(|e| {
                parse_error(
                    name,
                    format!(
                        "{} of the tuple: {}",
                        ["value", "lo", "hi"][k],
                        e.value(v.py())
                    ),
                )
            })
        };
        let (x, lo, hi) = (finite(num(0)?)?, finite(num(1)?)?, finite(num(2)?)?);
        if !(lo <= x && x <= hi) {
            return Err(to_py(Error::invalid(
                name,
                x,
                format!("must lie in [{lo}, {hi}]"),
            )));
        }
        return Ok(Item::scalar(x, lo, hi, Scale::Linear));
    }
    if v.is_instance_of::<pyo3::types::PyBool>() || v.is_none() {
        return Err(parse_error(
            name,
            format!(
                "an item is a number, a (value, lo, hi) tuple, a probability vector or a density \
                 matrix; got {}",
                convert::describe(v)
            ),
        ));
    }
    let arr = convert::array_shape(name, v)?;
    match arr.len() {
        // a numpy scalar or 0-d array: a number, by the rules of [`convert::real`]
        0 => {
            let x = finite(convert::real(v).map_err(|e| parse_error(name, e.value(v.py()).to_string()))?)?;
            Ok(Item::scalar(x, x, x, Scale::Linear))
        }
        1 => {
            // bounded before the copy (a sampler may return anything)
            verify::check_item_size(name, "distribution", arr[0], verify::MAX_DISTRIBUTION_LEN)
                .map_err(to_py)?;
            let p = convert::real_vector(name, v)?;
            let total: f64 = p.iter().sum();
            if p.iter().any(|x| x.is_nan() || *x < 0.0) || total.is_nan() || (total - 1.0).abs() > 1e-9 {
                return Err(parse_error(name, "a 1-D item is a probability vector (nonnegative, summing to 1)"));
            }
            Ok(Item::Distribution(p))
        }
        2 => {
            // bounded before the copy, the validation and the decomposition
            verify::check_item_size(name, "state", arr[0].max(arr[1]), verify::MAX_DIM)
                .map_err(to_py)?;
            let m = convert::matrix(name, v)?;
            let rho = DensityMatrix::with_options(m, Tolerance::default(), Backend::default())
                .map_err(|e| to_py(Error::Parse { what: name.into(), reason: e.to_string() }))?;
            Item::state_from_matrix(&rho).map_err(to_py)
        }
        _ => Err(parse_error(name, "an item is a number, a (value, lo, hi) tuple, a probability vector or a density matrix")),
    }
}

fn item_to_py<'py>(
    py: Python<'py>,
    inst: &Instance,
    name: &str,
    item: &Item,
    backend: Backend,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match item {
        Item::State { .. } => {
            let s = inst.state(name, backend).map_err(to_py)?;
            s.matrix().clone().into_pyarray(py).into_any()
        }
        Item::Distribution(p) => PyArray1::from_vec(py, p.clone()).into_any(),
        Item::Scalar { value, .. } => PyFloat::new(py, *value).into_any(),
        Item::Channel { .. } => {
            let ch = inst.channel(name).map_err(to_py)?;
            let ks: Vec<_> = ch
                .kraus()
                .iter()
                .map(|k| k.clone().into_pyarray(py))
                .collect();
            pyo3::types::PyList::new(py, ks)?.into_any()
        }
        #[allow(unreachable_patterns)]
        _ => return Err(parse_error(name, "unsupported item kind")),
    })
}

impl Statement for Borrowed<'_> {
    fn name(&self) -> &str {
        &self.0.name
    }
    fn source(&self) -> &str {
        &self.0.source
    }
    fn expected(&self) -> Expected {
        self.0.expected
    }
    fn summary(&self) -> &str {
        &self.0.summary
    }
    fn default_trials(&self) -> usize {
        self.0.trials
    }
    fn sample(&self, ctx: &SampleContext, rng: &mut ChaCha8Rng) -> Result<Instance> {
        // one 64-bit seed per trial from the engine's per-trial stream: the Python sampler seeds
        // its own generator (e.g. numpy.random.default_rng(seed)) from it
        let seed = rng.next_u64();
        Python::attach(|py| {
            let out = guard_py(|| {
                let d = self.0.sample.bind(py).call1((seed, ctx.max_dim))?;
                let d = d.cast::<PyDict>().map_err(|_| {
                    parse_error("sample", "the sampler must return a dict {name: item}")
                })?;
                let mut inst = Instance::new();
                for (k, v) in d.iter() {
                    let k: String = k.extract()?;
                    let item = item_from_py(&k, &v)?;
                    inst = inst.with(&k, item);
                }
                Ok(inst)
            });
            out.map_err(|e| self.fail(py, e))
        })
    }
    fn margin(&self, instance: &Instance, backend: Backend) -> Result<Margin> {
        Python::attach(|py| {
            let out = guard_py(|| {
                let d = PyDict::new(py);
                for (name, item) in instance.items() {
                    d.set_item(name, item_to_py(py, instance, name, item, backend)?)?;
                }
                let r = self.0.margin.bind(py).call1((d,))?;
                margin_from_py(&r)
            });
            out.map_err(|e| self.fail(py, e))
        })
    }
}

/// A margin function's result: a real number or a pair `(value, error)` of real numbers, each by
/// the rules of every numeric argument ([`convert::real`]: `True`, strings, complex numbers and
/// arrays are refused, never read as 1.0 or parsed).
fn margin_from_py(r: &Bound<'_, PyAny>) -> PyResult<Margin> {
    let bad = |why: String| {
        parse_error(
            "margin",
            format!(
                "the margin function must return a real number or (value, error), got {}{why}",
                convert::describe(r)
            ),
        )
    };
    if let Ok(t) = r.cast::<PyTuple>() {
        if t.len() != 2 {
            return Err(bad(String::new()));
        }
        let num = |k: usize| -> PyResult<f64> {
            convert::real(&t.get_item(k)?).map_err(|e| bad(format!(": {}", e.value(r.py()))))
        };
        return Ok(Margin::new(num(0)?, num(1)?));
    }
    convert::real(r)
        .map(|v| Margin::new(v, 0.0))
        .map_err(|e| bad(format!(": {}", e.value(r.py()))))
}

/// What to run: built-in names or Python statements.
enum Target {
    Builtin(Box<dyn Statement>),
    Python(Py<PyStatement>),
}

/// `verify.run`: one report per statement, as the CLI's JSON list.
#[pyfunction]
#[pyo3(signature = (lemmas, trials=None, seed=0, max_dim=4, shard=(0, 1), restarts=8, threads=None, save_dir=None))]
#[allow(clippy::too_many_arguments)]
fn verify_run(
    py: Python<'_>,
    lemmas: Vec<Bound<'_, PyAny>>,
    #[pyo3(from_py_with = crate::convert::opt_count)] trials: Option<usize>,
    #[pyo3(from_py_with = crate::convert::seed)] seed: u64,
    #[pyo3(from_py_with = crate::convert::count)] max_dim: usize,
    #[pyo3(from_py_with = crate::convert::shard)] shard: (usize, usize),
    #[pyo3(from_py_with = crate::convert::count)] restarts: usize,
    #[pyo3(from_py_with = crate::convert::opt_count)] threads: Option<usize>,
    save_dir: Option<PathBuf>,
) -> PyResult<String> {
    let targets: Vec<Target> = if lemmas.is_empty() {
        verify::builtin().into_iter().map(Target::Builtin).collect()
    } else {
        lemmas
            .iter()
            .map(|l| {
                if let Ok(s) = l.cast::<PyStatement>() {
                    return Ok(Target::Python(s.clone().unbind()));
                }
                let n: String = l.extract().map_err(|_| {
                    parse_error(
                        "lemma",
                        "expected a statement name or a qrenyi.verify.Statement",
                    )
                })?;
                verify::find(&n).map(Target::Builtin).ok_or_else(|| {
                    to_py(Error::Parse {
                        what: "--lemma".into(),
                        reason: format!("unknown statement {n:?} (see `qrenyi verify --list`)"),
                    })
                })
            })
            .collect::<PyResult<_>>()?
    };
    if shard.1 == 0 || shard.0 >= shard.1 {
        return Err(parse_error(
            "shard",
            format!("\"{}/{}\": need 0 ≤ i < n", shard.0, shard.1),
        ));
    }
    let cfg = Config {
        trials,
        seed,
        context: SampleContext { max_dim },
        shard,
        restarts,
        ..Config::default()
    };
    guard(|| cfg.validate())?;
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        pool = pool.num_threads(qrenyi::verify::check_threads(t).map_err(to_py)?);
    }
    // With Python statements the workers keep a Python thread state for their lifetime, so that
    // each callback only takes the GIL (≈ 1 µs) instead of creating and destroying a thread state.
    if targets.iter().any(|t| matches!(t, Target::Python(_))) {
        pool = pool
            .start_handler(|_| python_thread::enter())
            .exit_handler(|_| python_thread::exit());
    }
    let pool = pool
        .build()
        .map_err(|e| to_py(Error::invalid("threads", 0.0, e.to_string())))?;
    let mut reports = Vec::new();
    for t in &targets {
        let mut r = match t {
            Target::Builtin(s) => {
                // on the calling thread's behalf: Ctrl-C is polled while it runs (`interruptible`)
                crate::interruptible(py, |cancel| {
                    guard(|| {
                        pool.install(|| verify::run_cancellable(s.as_ref(), &cfg, &|_| {}, cancel))
                    })
                })??
            }
            Target::Python(s) => {
                let s = s.get();
                *s.failure.lock().unwrap_or_else(|p| p.into_inner()) = None;
                let b = Borrowed(s);
                let r = crate::interruptible(py, |cancel| {
                    guard(|| pool.install(|| verify::run_cancellable(&b, &cfg, &|_| {}, cancel)))
                })?;
                if let Some(e) = s.failure.lock().unwrap_or_else(|p| p.into_inner()).take() {
                    if crate::convert::is_interrupt(py, &e) {
                        // Ctrl-C (KeyboardInterrupt) or SystemExit in a callback stops the run as
                        // itself, not as a QrenyiError a caller's `except ValueError` would swallow
                        return Err(e);
                    }
                    let msg = format!("statement {:?} raised: {}", s.name, e.value(py));
                    let err = QrenyiError::new_err(msg);
                    err.set_cause(py, Some(e));
                    return Err(err);
                }
                r?
            }
        };
        if let Some(dir) = &save_dir {
            py.detach(|| {
                guard(|| qrenyi::io::with_input_scope(|| verify::save_counterexample(&mut r, dir)))
            })?;
        }
        reports.push(r);
    }
    serde_json::to_string(&reports).map_err(|e| parse_error("report", e.to_string()))
}

/// A Python thread state held by a rayon worker for its lifetime (see `verify_run`).
mod python_thread {
    use pyo3::ffi;
    use std::cell::Cell;

    thread_local! {
        static STATE: Cell<Option<(ffi::PyGILState_STATE, *mut ffi::PyThreadState)>> =
            const { Cell::new(None) };
    }

    /// Register this thread with the interpreter and release the GIL, keeping the thread state.
    pub fn enter() {
        // SAFETY: the interpreter is initialised (we are called from an extension function); the
        // pair Ensure/SaveThread is undone in `exit` on the same thread.
        unsafe {
            if ffi::Py_IsInitialized() == 0 {
                return;
            }
            let g = ffi::PyGILState_Ensure();
            let ts = ffi::PyEval_SaveThread();
            STATE.with(|c| c.set(Some((g, ts))));
        }
    }

    /// Drop this thread's registration (takes the GIL briefly).
    pub fn exit() {
        if let Some((g, ts)) = STATE.with(|c| c.take()) {
            // SAFETY: undoes `enter` on the same thread, in reverse order.
            unsafe {
                if ffi::Py_IsInitialized() == 0 {
                    return;
                }
                ffi::PyEval_RestoreThread(ts);
                ffi::PyGILState_Release(g);
            }
        }
    }
}

/// `verify --replay FILE --json`.
#[pyfunction]
fn verify_replay(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    let r = py.detach(|| guard(|| qrenyi::io::with_input_scope(|| verify::replay(&path))))?;
    let num = qrenyi::io::json_number;
    Ok(serde_json::json!({
        "lemma": r.lemma,
        "recorded_margin": num(r.recorded),
        "margin": num(r.margin.value),
        "error": r.margin.error,
        "margin_nalgebra": num(r.margin_nalgebra.value),
        "margin_high_precision": r.margin_high_precision,
        "recorded_margin_matches": r.recorded_matches,
        "violation": r.violation,
    })
    .to_string())
}

/// `verify merge`: join shard reports (JSON list in, JSON list out).
#[pyfunction]
fn verify_merge(#[pyo3(from_py_with = crate::convert::text)] reports: String) -> PyResult<String> {
    let all: Vec<verify::Report> =
        serde_json::from_str(&reports).map_err(|e| parse_error("reports", e.to_string()))?;
    let merged = guard(|| verify::merge(all))?;
    serde_json::to_string(&merged).map_err(|e| parse_error("report", e.to_string()))
}

/// `verify::trial_seed`: the seed of trial `t` of `statement` in a run seeded `seed`.
#[pyfunction]
fn trial_seed(
    #[pyo3(from_py_with = crate::convert::seed)] seed: u64,
    #[pyo3(from_py_with = crate::convert::text)] statement: String,
    #[pyo3(from_py_with = crate::convert::seed)] t: u64,
) -> u64 {
    verify::trial_seed(seed, &statement, t)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyStatement>()?;
    m.add_function(wrap_pyfunction!(verify_statements, m)?)?;
    m.add_function(wrap_pyfunction!(verify_run, m)?)?;
    m.add_function(wrap_pyfunction!(verify_replay, m)?)?;
    m.add_function(wrap_pyfunction!(verify_merge, m)?)?;
    m.add_function(wrap_pyfunction!(trial_seed, m)?)?;
    Ok(())
}
