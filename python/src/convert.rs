//! Python inputs → core types: matrices and stacks of matrices from numpy arrays (any real or
//! complex float dtype), nested lists, objects with a `.full()` method (QuTiP `Qobj`) and
//! already validated `qrenyi.State` objects; numeric parameters from scalars and sequences.

use crate::divergence::PyState;
use crate::parse_error;
use ndarray::{Array2, Array3, Ix2, Ix3};
use num_complex::Complex64;
use numpy::{PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyFloat, PyInt};
use pyo3::IntoPyObjectExt;
use qrenyi::state::DensityMatrix;

/// One operand of a divergence: a matrix, a stack of matrices, or a validated state.
pub enum Operand {
    /// A `d × d` matrix (not yet validated).
    Matrix(Array2<Complex64>),
    /// An `n × d × d` stack (one contiguous copy).
    Stack(Array3<Complex64>),
    /// A `qrenyi.State` (validated; its decomposition cache is reused).
    State(DensityMatrix),
}

fn numpy_attr<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("numpy")?.getattr(name)?.unbind())
    })
    .map(|f| f.bind(py).clone())
}

/// `numpy.asarray(obj, dtype)` for `dtype` "complex128" or "float64", with numpy's own error
/// turned into a `QrenyiError` naming `what`.
fn asarray<'py>(what: &str, obj: &Bound<'py, PyAny>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    static ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = obj.py();
    let f = numpy_attr(py, &ASARRAY, "asarray")?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("dtype", dtype)?;
    f.call((obj,), Some(&kwargs))
        .map_err(|e| parse_error(what, format!("not a numeric array: {}", e.value(py))))
}

fn shape_str(shape: &[usize]) -> String {
    let s: Vec<String> = shape.iter().map(|x| x.to_string()).collect();
    format!("({})", s.join(", "))
}

/// A complex128 array (dynamic dimension) from any array-like: complex128 and float64 numpy
/// arrays are copied straight into the core's matrices (float64 widened on the way, one pass),
/// anything else goes through `numpy.asarray(…, complex128)`; an object with `.full()` (QuTiP)
/// is converted first.
fn complex_array<'py>(what: &str, obj: &Bound<'py, PyAny>) -> PyResult<Array2OrStack> {
    if let Ok(a) = obj.cast::<PyArrayDyn<Complex64>>() {
        if a.ndim() == 2 && a.is_c_contiguous() {
            // the common case, one C-contiguous matrix: one copy of its buffer (no strided view;
            // `as_slice` also accepts a Fortran-ordered buffer, hence the test above)
            // SAFETY: as below
            if let Ok(data) = unsafe { a.as_slice() } {
                let (r, c) = (a.shape()[0], a.shape()[1]);
                return Array2::from_shape_vec((r, c), data.to_vec())
                    .map(Array2OrStack::One)
                    .map_err(|e| parse_error(what, e.to_string()));
            }
        }
        // SAFETY: the view is copied at once, with the GIL held and without calling back into
        // Python — what rust-numpy's safe `to_owned_array` does. Its borrow tracking (a
        // process-wide registry updated on every borrow) would only cost time here: the data is
        // read once, never kept, and nothing of ours writes to a caller's array.
        return split(what, unsafe { a.as_array() }, |z| *z);
    }
    if let Ok(a) = obj.cast::<PyArrayDyn<f64>>() {
        // SAFETY: as above.
        return split(what, unsafe { a.as_array() }, |&x| Complex64::new(x, 0.0));
    }
    let is_ndarray = obj.cast::<numpy::PyUntypedArray>().is_ok();
    let obj = if !is_ndarray && obj.hasattr("full")? {
        obj.call_method0("full").map_err(|e| {
            parse_error(what, format!("{what}.full() failed: {}", e.value(obj.py())))
        })?
    } else {
        obj.clone()
    };
    let a = asarray(what, &obj, "complex128")?;
    let a = a
        .cast_into::<PyArrayDyn<Complex64>>()
        .map_err(|_| parse_error(what, "numpy.asarray did not return a complex128 array"))?;
    // SAFETY: as above; the array is our own temporary.
    split(what, unsafe { a.as_array() }, |z| *z)
}

/// A matrix or a stack, by the number of dimensions.
pub enum Array2OrStack {
    /// `d × d`.
    One(Array2<Complex64>),
    /// `n × d × d`.
    Many(Array3<Complex64>),
}

/// The matrix or the stack of matrices in `a`, each entry converted by `to_c` while copied.
fn split<T>(
    what: &str,
    a: ndarray::ArrayViewD<'_, T>,
    to_c: impl Fn(&T) -> Complex64,
) -> PyResult<Array2OrStack> {
    match a.ndim() {
        2 => Ok(Array2OrStack::One(
            a.into_dimensionality::<Ix2>()
                .map_err(|e| parse_error(what, e.to_string()))?
                .map(&to_c),
        )),
        3 => {
            if a.shape()[0] == 0 {
                return Err(crate::to_py(qrenyi::Error::Empty(format!(
                    "{what}: a stack of 0 matrices"
                ))));
            }
            // one allocation and one pass for the whole stack (not one array per matrix)
            Ok(Array2OrStack::Many(
                a.into_dimensionality::<Ix3>()
                    .map_err(|e| parse_error(what, e.to_string()))?
                    .map(&to_c),
            ))
        }
        _ => Err(parse_error(
            what,
            format!(
                "expected a d×d matrix or an n×d×d stack of matrices, got an array of shape {}",
                shape_str(a.shape())
            ),
        )),
    }
}

/// One operand from a Python object.
pub fn operand(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Operand> {
    if let Ok(s) = obj.cast::<PyState>() {
        return Ok(Operand::State(s.get().state.clone()));
    }
    Ok(match complex_array(what, obj)? {
        Array2OrStack::One(m) => Operand::Matrix(m),
        Array2OrStack::Many(v) => Operand::Stack(v),
    })
}

/// A single `d × d` matrix (a stack is an error naming `what`).
pub fn matrix(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Array2<Complex64>> {
    match complex_array(what, obj)? {
        Array2OrStack::One(m) => Ok(m),
        Array2OrStack::Many(v) => Err(parse_error(
            what,
            format!("expected one d×d matrix, got a stack of {}", v.shape()[0]),
        )),
    }
}

/// A real 2-D array (samples `n × d`), e.g. for the kernel estimators; a 1-D array is one
/// coordinate per sample (`n × 1`).
pub fn real_matrix(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Array2<f64>> {
    let a = if let Ok(a) = obj.cast::<PyArrayDyn<f64>>() {
        a.clone()
    } else {
        asarray(what, obj, "float64")?
            .cast_into::<PyArrayDyn<f64>>()
            .map_err(|_| parse_error(what, "numpy.asarray did not return a float64 array"))?
    };
    let ro = a
        .try_readonly()
        .map_err(|e| parse_error(what, e.to_string()))?;
    let v = ro.as_array();
    match v.ndim() {
        1 => Ok(v
            .to_owned()
            .into_shape_with_order((v.len(), 1))
            .map_err(|e| parse_error(what, e.to_string()))?),
        2 => Ok(v
            .into_dimensionality::<Ix2>()
            .map_err(|e| parse_error(what, e.to_string()))?
            .to_owned()),
        _ => Err(parse_error(
            what,
            format!(
                "expected an n×d array of samples, got shape {}",
                shape_str(v.shape())
            ),
        )),
    }
}

/// A numeric parameter: absent, one number, or a sequence of numbers.
pub enum Params {
    /// Not given.
    Absent,
    /// One number: the result is a float.
    Scalar(f64),
    /// A sequence: the result has an axis for it.
    Seq(Vec<f64>),
}

impl Params {
    /// The values (empty when absent).
    pub fn values(&self) -> Vec<f64> {
        match self {
            Params::Absent => Vec::new(),
            Params::Scalar(x) => vec![*x],
            Params::Seq(v) => v.clone(),
        }
    }
}

/// A parameter from `None`, a number, a 0-d array, or a 1-D sequence/array.
pub fn params(what: &str, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Params> {
    let Some(obj) = obj else {
        return Ok(Params::Absent);
    };
    if obj.is_none() {
        return Ok(Params::Absent);
    }
    if obj.is_instance_of::<PyFloat>() || obj.is_instance_of::<PyInt>() {
        return Ok(Params::Scalar(obj.extract::<f64>()?));
    }
    if obj.is_instance_of::<pyo3::types::PyString>() {
        return Err(parse_error(
            what,
            format!(
                "expected a number or a sequence of numbers, got the string {}",
                obj.repr()?
            ),
        ));
    }
    let a = asarray(what, obj, "float64")?
        .cast_into::<PyArrayDyn<f64>>()
        .map_err(|_| parse_error(what, "numpy.asarray did not return a float64 array"))?;
    let ro = a
        .try_readonly()
        .map_err(|e| parse_error(what, e.to_string()))?;
    let v = ro.as_array();
    match v.ndim() {
        0 => Ok(Params::Scalar(v.iter().next().copied().unwrap_or(f64::NAN))),
        1 => {
            if v.is_empty() {
                return Err(crate::to_py(qrenyi::Error::Empty(format!(
                    "{what}: an empty sequence"
                ))));
            }
            Ok(Params::Seq(v.iter().copied().collect()))
        }
        _ => Err(parse_error(
            what,
            format!(
                "expected a number or a 1-D sequence, got shape {}",
                shape_str(v.shape())
            ),
        )),
    }
}

/// A Python dict of `(key, value)` pairs, in order (the result objects' `to_dict()`s).
pub fn dict<'py, K: AsRef<str>>(
    py: Python<'py>,
    kv: Vec<(K, Py<PyAny>)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in kv {
        d.set_item(k.as_ref(), v)?;
    }
    Ok(d)
}

/// `None` as Python's `None`, `Some(kv)` as [`dict`] (the optional parts of a result dict).
pub fn dict_or_none<K: AsRef<str>>(
    py: Python<'_>,
    kv: Option<Vec<(K, Py<PyAny>)>>,
) -> PyResult<Py<PyAny>> {
    Ok(match kv {
        Some(kv) => dict(py, kv)?.into_any().unbind(),
        None => py.None(),
    })
}

/// Any convertible value as a Python object (a value of a result dict).
pub fn obj<'py, T: IntoPyObject<'py>>(py: Python<'py>, x: T) -> PyResult<Py<PyAny>> {
    x.into_py_any(py)
}
