//! Python inputs → core types: matrices and stacks of matrices from numpy arrays (any real or
//! complex float dtype), nested lists, objects with a `.full()` method (QuTiP `Qobj`) and
//! already validated `qrenyi.State` objects; numeric parameters from scalars and sequences.

use crate::divergence::PyState;
use crate::parse_error;
use ndarray::{Array2, Array3, Ix2, Ix3};
use num_complex::Complex64;
use numpy::{PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyFloat, PyInt, PyString};
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

impl Operand {
    /// The number of matrices in a stack (1 for a single matrix or state).
    pub fn stack_len(&self) -> usize {
        match self {
            Operand::Stack(v) => v.shape()[0],
            _ => 1,
        }
    }
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

/// Refuse a `numpy.ma.MaskedArray` with masked entries: its subclass passes as an ndarray, and both
/// the buffer read and `numpy.asarray` drop the mask, so the hidden values under the mask were
/// silently used. A plain `ndarray` (the common case) is recognised by its exact type, without a
/// call into Python.
fn reject_masked(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<()> {
    static NDARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    static MASKED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = obj.py();
    let ty = obj.get_type();
    if ty.is(&numpy_attr(py, &NDARRAY, "ndarray")?) {
        return Ok(());
    }
    let masked = MASKED.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("numpy.ma")?.getattr("MaskedArray")?.unbind())
    })?;
    if !obj.is_instance(masked.bind(py))? {
        return Ok(());
    }
    let ma = py.import("numpy.ma")?;
    // no mask at all: nothing to count (`count_masked` would build a full mask of the declared
    // shape first — of a broadcast view's 10¹⁰ entries, say — before the size check)
    if ma
        .call_method1("getmask", (obj,))?
        .is(&ma.getattr("nomask")?)
    {
        return Ok(());
    }
    let count: usize = ma.call_method1("count_masked", (obj,))?.extract()?;
    if count > 0 {
        return Err(parse_error(
            what,
            format!(
                "a numpy masked array with {count} masked entr{} (their values are undefined: \
                 fill them, e.g. `.filled(0)`, or pass `.data` to use the values under the mask)",
                if count == 1 { "y" } else { "ies" }
            ),
        ));
    }
    Ok(())
}

/// `numpy.asarray(obj, dtype)` for `dtype` "complex128" or "float64", with numpy's own error
/// turned into a `QrenyiError` naming `what`. Only for objects [`numeric_array`] has checked.
fn asarray<'py>(what: &str, obj: &Bound<'py, PyAny>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    static ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = obj.py();
    let f = numpy_attr(py, &ASARRAY, "asarray")?;
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("dtype", dtype)?;
    f.call((obj,), Some(&kwargs))
        .map_err(|e| parse_error(what, format!("not a numeric array: {}", e.value(py))))
}

/// The one converter of array-likes to numbers (matrices, stacks, samples, parameter sequences,
/// statement items): `obj` as a numpy array of `dtype` ("complex128" or "float64"), refusing what
/// numpy would otherwise turn into numbers without a word — arrays of strings or bytes (numpy
/// parses `"0.5"`), of booleans (`True` read as 1), of dates or records, object arrays and nested
/// lists holding any of these or `None` (read as NaN), and complex values where `dtype` is real
/// (numpy drops the imaginary part with only a warning). The error names the dtype (or the
/// offending entry and its position). Numeric numpy arrays are checked by their dtype alone;
/// lists and tuples entry by entry (as an object array: a `bool` among `int`s would otherwise be
/// cast silently); other array-likes (`__array__`) by the dtype numpy gives them.
fn numeric_array<'py>(
    what: &str,
    obj: &Bound<'py, PyAny>,
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    static ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = obj.py();
    let complex = dtype == "complex128";
    let arr = if obj.cast::<numpy::PyUntypedArray>().is_ok() {
        obj.clone()
    } else {
        let f = numpy_attr(py, &ASARRAY, "asarray")?;
        let listed = obj.is_instance_of::<pyo3::types::PyList>()
            || obj.is_instance_of::<pyo3::types::PyTuple>();
        let made = if listed {
            let kwargs = pyo3::types::PyDict::new(py);
            kwargs.set_item("dtype", "object")?;
            f.call((obj,), Some(&kwargs))
        } else {
            f.call1((obj,))
        };
        made.map_err(|e| {
            if is_interrupt(py, &e) {
                return e;
            }
            parse_error(what, format!("not a numeric array: {}", e.value(py)))
        })?
    };
    let a = arr
        .cast::<numpy::PyUntypedArray>()
        .map_err(|_| parse_error(what, "numpy.asarray did not return an array"))?;
    // the copies below (the entries of an object array, numpy's cast) are refused before they
    // are made: a broadcast view may declare 10¹⁰ entries over one
    let shape = a.shape().to_vec();
    let bytes = if complex { 16 } else { 8 };
    let descr = a.dtype();
    match descr.kind() as char {
        'f' | 'i' | 'u' => {}
        'c' if complex => {}
        'O' => {
            check_alloc(what, &shape, bytes, dtype)?;
            // `check_objects` holds an index and a reference per entry
            let per_entry = std::mem::size_of::<(Vec<usize>, Py<PyAny>)>()
                + shape.len() * std::mem::size_of::<usize>();
            check_alloc(what, &shape, per_entry, "indexed object references")?;
            check_objects(what, a, complex)?
        }
        kind => {
            let dtype_name = descr
                .str()
                .map(|s| s.to_string())
                .unwrap_or_else(|_| "?".into());
            let what_kind = match kind {
                'b' => "booleans are not numbers (use .astype(float) to mean 0 and 1)",
                'U' | 'S' => "strings are not numbers (convert them first, e.g. .astype(float))",
                'c' => "complex numbers where real numbers are expected (the imaginary parts would be dropped)",
                'M' | 'm' => "dates and times are not numbers",
                _ => "not numbers",
            };
            return Err(parse_error(
                what,
                format!("not a numeric array: an array of dtype {dtype_name}: {what_kind}"),
            ));
        }
    }
    check_alloc(what, &shape, bytes, dtype)?;
    asarray(what, &arr, dtype)
}

/// Every entry of the object array `a` a number (not a `bool`, string, bytes or `None`; complex
/// only when `complex`); nested sequences (a ragged list) are left to numpy's cast, which refuses
/// them.
fn check_objects(what: &str, a: &Bound<'_, numpy::PyUntypedArray>, complex: bool) -> PyResult<()> {
    use pyo3::types::{PyBool, PyBytes, PyComplex};
    let a = a
        .cast::<PyArrayDyn<Py<PyAny>>>()
        .map_err(|_| parse_error(what, "an object array numpy cannot view"))?;
    let py = a.py();
    // Owned references first, with no Python code running while the view lives: the checks below
    // call `repr` and `isinstance`, which run arbitrary Python (a `__repr__`, a `__class__`
    // property) that could assign into or resize the caller's array and free an entry or the
    // buffer under a borrowed view (review22).
    let entries: Vec<(Vec<usize>, Py<PyAny>)> = {
        // SAFETY: read with the GIL held; nothing in this block calls into Python (`clone_ref`
        // only increments reference counts), so the array cannot change while the view lives
        let view = unsafe { a.as_array() };
        view.indexed_iter()
            .map(|(i, x)| (ndarray::Dimension::slice(&i).to_vec(), x.clone_ref(py)))
            .collect()
    };
    for (index, x) in &entries {
        let x = x.bind(py);
        if x.is_exact_instance_of::<PyFloat>() || x.is_exact_instance_of::<PyInt>() {
            continue;
        }
        let bad = if x.is_none() {
            Some("None is not a number")
        } else if x.is_instance_of::<PyBool>() {
            Some("booleans are not numbers")
        } else if x.is_instance_of::<PyString>() || x.is_instance_of::<PyBytes>() {
            Some("strings are not numbers")
        } else if !complex && x.is_instance_of::<PyComplex>() {
            Some("a complex number where real numbers are expected")
        } else {
            match numpy_kind(x) {
                Some(('b', _)) => Some("booleans are not numbers"),
                Some(('U' | 'S', _)) => Some("strings are not numbers"),
                Some(('c', _)) if !complex => {
                    Some("a complex number where real numbers are expected")
                }
                Some(('M' | 'm' | 'V', _)) => Some("not a number"),
                _ => None,
            }
        };
        if let Some(why) = bad {
            let at: Vec<String> = index.iter().map(|i| i.to_string()).collect();
            return Err(parse_error(
                what,
                format!(
                    "not a numeric array: entry [{}] is {}: {why}",
                    at.join(", "),
                    describe(x)
                ),
            ));
        }
    }
    Ok(())
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
    reject_masked(what, obj)?;
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
            if is_interrupt(obj.py(), &e) {
                return e;
            }
            parse_error(what, format!("{what}.full() failed: {}", e.value(obj.py())))
        })?
    } else {
        obj.clone()
    };
    let a = numeric_array(what, &obj, "complex128")?;
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
    check_alloc(
        what,
        a.shape(),
        std::mem::size_of::<Complex64>(),
        "complex128",
    )?;
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
            if a.shape()[1] == 0 || a.shape()[2] == 0 {
                // refused before anything per pair is allocated (a broadcast view may declare
                // 10⁹ matrices of 0 × 0: no bytes to copy, but a result of 8 GB)
                return Err(crate::to_py(qrenyi::Error::Empty(format!(
                    "{what}: a stack of {} matrices of shape {}×{}",
                    a.shape()[0],
                    a.shape()[1],
                    a.shape()[2]
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
    reject_masked(what, obj)?;
    with_float64(what, obj, |v| match v.ndim() {
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
    })
}

/// The shape `obj` has as an array (a numpy array's own, else `numpy.asarray(obj)`'s), read
/// before anything is converted or copied (callers bound sizes with it).
pub fn array_shape(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    static ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    if let Ok(a) = obj.cast::<numpy::PyUntypedArray>() {
        return Ok(a.shape().to_vec());
    }
    let py = obj.py();
    let a = numpy_attr(py, &ASARRAY, "asarray")?
        .call1((obj,))
        .map_err(|e| {
            if is_interrupt(py, &e) {
                return e;
            }
            parse_error(what, format!("not a numeric array: {}", e.value(py)))
        })?;
    let a = a
        .cast::<numpy::PyUntypedArray>()
        .map_err(|_| parse_error(what, "numpy.asarray did not return an array"))?;
    Ok(a.shape().to_vec())
}

/// A 1-D vector of real numbers (a statement's probability vector), by the rules of
/// [`numeric_array`].
pub fn real_vector(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    reject_masked(what, obj)?;
    with_float64(what, obj, |v| match v.ndim() {
        1 => Ok(v.iter().copied().collect()),
        _ => Err(parse_error(
            what,
            format!("expected a 1-D array, got shape {}", shape_str(v.shape())),
        )),
    })
}

/// `f` on `obj` as a float64 array (`numpy.asarray(obj, float64)` unless it is one already), read
/// only, after [`check_alloc`] (a copy the machine cannot allocate is refused before `f` copies).
fn with_float64<R>(
    what: &str,
    obj: &Bound<'_, PyAny>,
    f: impl FnOnce(ndarray::ArrayViewD<'_, f64>) -> PyResult<R>,
) -> PyResult<R> {
    let a = if let Ok(a) = obj.cast::<PyArrayDyn<f64>>() {
        a.clone()
    } else {
        numeric_array(what, obj, "float64")?
            .cast_into::<PyArrayDyn<f64>>()
            .map_err(|_| parse_error(what, "numpy.asarray did not return a float64 array"))?
    };
    let ro = a
        .try_readonly()
        .map_err(|e| parse_error(what, e.to_string()))?;
    let v = ro.as_array();
    check_alloc(what, v.shape(), std::mem::size_of::<f64>(), "float64")?;
    f(v)
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
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Params::Scalar(f.value()));
    }
    if obj.is_instance_of::<PyInt>() {
        // `bool` too: refused by `real`, like every other non-number
        return real(obj).map(Params::Scalar).map_err(|_| {
            parse_error(
                what,
                format!(
                    "expected a number or a sequence of numbers, got {}",
                    describe(obj)
                ),
            )
        });
    }
    reject_masked(what, obj)?;
    if let Some((kind, _)) = numpy_kind(obj) {
        // numpy would cast bool and complex arrays to float64 (dropping imaginary parts with only a
        // warning); refuse them as `real` refuses such scalars
        if !matches!(kind, 'f' | 'i' | 'u' | 'O') {
            return Err(parse_error(
                what,
                format!("expected real numbers, got {}", describe(obj)),
            ));
        }
    }
    if obj.is_instance_of::<pyo3::types::PyString>() || obj.is_instance_of::<pyo3::types::PyBytes>()
    {
        return Err(parse_error(
            what,
            format!(
                "expected a number or a sequence of numbers, got the string {}",
                obj.repr()?
            ),
        ));
    }
    with_float64(what, obj, |v| match v.ndim() {
        // a 0-d array holds exactly one element (NaN could not reach here otherwise, and would
        // be refused by the callee's range check)
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
    })
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

/// What an argument is, for a message: its `repr` (cut to 60 characters) and its type's name.
pub fn describe(obj: &Bound<'_, PyAny>) -> String {
    let repr = obj
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "<unprintable>".into());
    let repr = if repr.chars().count() > 60 {
        format!("{}…", repr.chars().take(60).collect::<String>())
    } else {
        repr
    };
    let ty = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    format!("{repr} (of type {ty})")
}

/// The numpy dtype kind (`'f'`, `'i'`, `'u'`, `'b'`, `'c'`, …) and number of dimensions of a
/// numpy scalar or array; `None` for other objects.
fn numpy_kind(obj: &Bound<'_, PyAny>) -> Option<(char, usize)> {
    if let Ok(a) = obj.cast::<numpy::PyUntypedArray>() {
        return Some((a.dtype().kind() as char, a.ndim()));
    }
    static GENERIC: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let generic = numpy_attr(obj.py(), &GENERIC, "generic").ok()?;
    if !obj.is_instance(&generic).ok()? {
        return None;
    }
    let kind = obj.getattr("dtype").ok()?.getattr("kind").ok()?;
    kind.extract::<String>()
        .ok()?
        .chars()
        .next()
        .map(|k| (k, 0))
}

/// A numeric argument's type error: `QrenyiError` ("cannot parse argument: expected …, got …");
/// Python's own note on the exception names the argument ("while processing 'alpha'").
fn argument_error(expected: &str, obj: &Bound<'_, PyAny>) -> PyErr {
    parse_error(
        "argument",
        format!("expected {expected}, got {}", describe(obj)),
    )
}

/// A real-number argument (`#[pyo3(from_py_with = convert::real)]`): a Python `float` or `int`
/// (not `bool`), a real numpy scalar or 0-d array (float, int or unsigned dtype), or any other
/// object with `__float__` (`Fraction`, `Decimal`). `None`, strings, `bool`s, complex numbers
/// (whose imaginary part `float()` would drop with only a warning) and arrays with dimensions are a
/// `QrenyiError`, never a `TypeError`; NaN and ±∞ pass through to the callee's range check, which
/// names the parameter. Python's note on the exception names the argument ("while processing
/// 'alpha'").
pub fn real(obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    const EXPECTED: &str = "a real number";
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(f.value());
    }
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(argument_error(EXPECTED, obj));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<f64>().map_err(|e| {
            argument_error(
                &format!("a real number within ±1.8e308 ({})", e.value(obj.py())),
                obj,
            )
        });
    }
    match numpy_kind(obj) {
        Some(('f' | 'i' | 'u', 0)) => {}
        Some(_) => return Err(argument_error(EXPECTED, obj)),
        None if obj.is_none()
            || obj.is_instance_of::<pyo3::types::PyString>()
            || obj.is_instance_of::<pyo3::types::PyBytes>()
            || obj.is_instance_of::<pyo3::types::PyComplex>() =>
        {
            return Err(argument_error(EXPECTED, obj))
        }
        None => {}
    }
    obj.extract::<f64>()
        .map_err(|_| argument_error(EXPECTED, obj))
}

/// An optional real-number argument: `None`, or a number by the rules of [`real`].
pub fn opt_real(obj: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
    if obj.is_none() {
        Ok(None)
    } else {
        real(obj).map(Some)
    }
}

/// The bounds of an integer argument type, for messages.
pub trait Bounded {
    /// The smallest value.
    const MIN: i128;
    /// The largest value.
    const MAX: i128;
}

macro_rules! bounded {
    ($($t:ty),*) => {$(
        impl Bounded for $t {
            const MIN: i128 = <$t>::MIN as i128;
            const MAX: i128 = <$t>::MAX as i128;
        }
    )*};
}
bounded!(u8, u16, u32, u64, usize, i32, i64);

/// An integer argument of type `T` (`u64`, `usize`, …): a Python `int` (not `bool`) or a numpy
/// integer scalar / 0-d array whose value `T` holds. Floats (even integral ones: `seed=2.5` must
/// not become 2), `None`, strings, and integers out of `T`'s range — negative, or beyond `u64` —
/// are a `QrenyiError` saying the value and the range, never a `TypeError` or `OverflowError`.
pub fn integer<T: TryFrom<i128> + Bounded>(obj: &Bound<'_, PyAny>) -> PyResult<T> {
    let expected = || format!("an integer in {}..={}", T::MIN, T::MAX);
    let ok = if obj.is_instance_of::<pyo3::types::PyBool>() {
        false
    } else if obj.is_instance_of::<PyInt>() {
        true
    } else {
        matches!(numpy_kind(obj), Some(('i' | 'u', 0)))
    };
    if !ok {
        return Err(argument_error(&expected(), obj));
    }
    obj.extract::<i128>()
        .ok()
        .and_then(|v| T::try_from(v).ok())
        .ok_or_else(|| argument_error(&expected(), obj))
}

/// A `usize` argument (`#[pyo3(from_py_with = convert::count)]`, the rules of [`integer`]).
pub fn count(obj: &Bound<'_, PyAny>) -> PyResult<usize> {
    integer(obj)
}

/// An optional `usize` argument: `None` or [`count`].
pub fn opt_count(obj: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
    if obj.is_none() {
        Ok(None)
    } else {
        integer(obj).map(Some)
    }
}

/// Whether `e` is a `KeyboardInterrupt`, `SystemExit` or other `BaseException` that is not an
/// `Exception`: raised in a user's callback, it is passed on as itself (never turned into a
/// `QrenyiError`, which an `except ValueError` would swallow).
pub fn is_interrupt(py: Python<'_>, e: &PyErr) -> bool {
    !e.is_instance_of::<pyo3::exceptions::PyException>(py)
}

/// The items of a sequence argument (a list or tuple; a string, a number or `None` is a
/// `QrenyiError` saying what was `expected`).
pub fn sequence<'py>(
    what: &str,
    expected: &str,
    obj: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let seq = obj.cast::<pyo3::types::PySequence>().ok().filter(|_| {
        !obj.is_instance_of::<pyo3::types::PyString>()
            && !obj.is_instance_of::<pyo3::types::PyBytes>()
    });
    let bad = || parse_error(what, format!("expected {expected}, got {}", describe(obj)));
    let seq = seq.ok_or_else(bad)?;
    let n = seq.len().map_err(|_| bad())?;
    (0..n).map(|i| seq.get_item(i).map_err(|_| bad())).collect()
}

/// A list of number pairs, e.g. `[(xi, rho), …]` (`pair` names the two, for messages).
pub fn pairs(what: &str, pair: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<(f64, f64)>> {
    sequence(what, &format!("a list of pairs {pair}"), obj)?
        .iter()
        .enumerate()
        .map(|(k, item)| {
            let two = sequence(what, &format!("a list of pairs {pair}"), item)?;
            if two.len() != 2 {
                return Err(parse_error(
                    what,
                    format!("item {k}: expected a pair {pair}, got {}", describe(item)),
                ));
            }
            let num = |x: &Bound<'_, PyAny>| {
                real(x).map_err(|e| parse_error(what, format!("item {k}: {}", e.value(x.py()))))
            };
            Ok((num(&two[0])?, num(&two[1])?))
        })
        .collect()
}

/// The shard argument `(i, n)` of `verify.run`: a pair of integers (the range `0 ≤ i < n` is the
/// engine's check).
pub fn shard(obj: &Bound<'_, PyAny>) -> PyResult<(usize, usize)> {
    let two = sequence("shard", "a pair (i, n) of integers", obj)?;
    if two.len() != 2 {
        return Err(parse_error(
            "shard",
            format!("expected a pair (i, n) of integers, got {}", describe(obj)),
        ));
    }
    Ok((integer(&two[0])?, integer(&two[1])?))
}

/// A `u64` argument (seeds; the rules of [`integer`]).
pub fn seed(obj: &Bound<'_, PyAny>) -> PyResult<u64> {
    integer(obj)
}

/// Refuse, as a `QrenyiError` naming `what` and the size, a copy of `count` values of `bytes`
/// bytes each (an array of `shape`, as `dtype`) that this machine cannot allocate — e.g. a
/// `numpy.broadcast_to` view declaring 10¹⁰ entries over one — instead of aborting the
/// interpreter on a failed allocation or filling the machine's memory until the kernel kills it.
/// Copies under 64 MiB are not probed (nothing to fear, and nothing to pay); larger ones are
/// refused beyond the machine's physical memory ([`physical_memory`]: the host's, not a container's
/// limit) — a reservation alone cannot tell, since it succeeds under the kernel's overcommit
/// (`vm.overcommit_memory = 1`) — and otherwise reserved through the system allocator (blocks
/// this large bypass mimalloc, `alloc::SYSTEM_FROM`) and released once, no page touched: refused
/// where the kernel refuses the mapping (`ulimit -v`, strict overcommit). The check costs a
/// system call or two beside a copy of at least 64 MiB. The message says `dtype`, the type the
/// copy would hold.
pub fn check_alloc(what: &str, shape: &[usize], bytes: usize, dtype: &str) -> PyResult<()> {
    const PROBE_FROM: usize = 64 << 20;
    let total = shape.iter().try_fold(bytes, |acc, &n| acc.checked_mul(n));
    let fail = |why: String| {
        parse_error(
            what,
            format!(
                "an array of shape {} needs {} as {dtype}: {why} (a numpy.broadcast_to view \
                 declares more entries than it holds)",
                shape_str(shape),
                match total {
                    Some(t) => format!("{:.3e} bytes", t as f64),
                    None => "more than 2⁶⁴ bytes".into(),
                },
            ),
        )
    };
    match total {
        None => Err(fail("more than this machine can address".into())),
        Some(t) if t < PROBE_FROM => Ok(()),
        Some(t) => {
            if let Some(m) = physical_memory().filter(|&m| t > m) {
                return Err(fail(format!(
                    "more than this machine's memory ({:.3e} bytes)",
                    m as f64
                )));
            }
            let mut probe: Vec<u8> = Vec::new();
            probe
                .try_reserve_exact(t)
                .map_err(|_| fail("more than this machine can allocate".into()))
        }
    }
}

/// The machine's physical memory in bytes (`sysconf(_SC_PHYS_PAGES) × _SC_PAGESIZE`), where the
/// platform says; `None` elsewhere (then [`check_alloc`]'s reservation alone decides).
fn physical_memory() -> Option<usize> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf reads two system constants; it has no preconditions.
        let (pages, size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        let (pages, size) = (usize::try_from(pages).ok()?, usize::try_from(size).ok()?);
        pages.checked_mul(size).filter(|&m| m > 0)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The text of a `str` argument, or a `QrenyiError` naming `what` and saying what was `expected`
/// for any other object (`None`, a number, bytes: never PyO3's `TypeError`).
fn text_of(
    what: &str,
    expected: &dyn std::fmt::Display,
    obj: &Bound<'_, PyAny>,
) -> PyResult<PyBackedStr> {
    if obj.is_instance_of::<PyString>() {
        if let Ok(s) = obj.extract::<PyBackedStr>() {
            return Ok(s);
        }
        // a str with lone surrogates: not UTF-8, so no name or path qrenyi knows
        return Err(parse_error(
            what,
            format!("{}: not valid UTF-8", describe(obj)),
        ));
    }
    Err(parse_error(
        what,
        format!("expected {expected}, got {}", describe(obj)),
    ))
}

/// A name argument (`kind`, `base`, `backend`, `family`, `kernel`, …) with a string default: a
/// Python `str` that `parse` maps to its canonical spelling (a `&'static str`, so the argument
/// keeps its literal default and `help()` shows it), else the parser's own error — the CLI's
/// message for the same flag. Any other object is a `QrenyiError` naming `what`.
fn name(
    what: &str,
    expected: &dyn std::fmt::Display,
    obj: &Bound<'_, PyAny>,
    parse: impl FnOnce(&str) -> qrenyi::Result<&'static str>,
) -> PyResult<&'static str> {
    let s = text_of(what, expected, obj)?;
    parse(&s).map_err(crate::to_py)
}

/// A free-text argument (a statement's name, summary or source, a JSON document): a `str`.
pub fn text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    text_of("argument", &"a string", obj).map(|s| s.to_string())
}

/// The canonical spelling of a logarithm base.
fn base_str(b: qrenyi::Base) -> &'static str {
    match b {
        qrenyi::Base::E => "e",
        qrenyi::Base::Two => "2",
        qrenyi::Base::Ten => "10",
    }
}

/// The `base` argument (`#[pyo3(from_py_with = convert::base)]`, default `"e"`): the CLI's
/// spellings `"e"`, `"2"`, `"10"`, and — Python callers write `base=2` — the numbers 2 and 10
/// (an `int`, a numpy integer, or a float equal to them) and `math.e` (the float nearest e).
/// Other integers read as the string of their digits (`base=3`: the CLI's message for
/// `--base 3`); other numbers, `None` and other objects are a `QrenyiError`.
pub fn base(obj: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    const WHAT: &str = "logarithm base";
    const EXPECTED: &str = "\"e\", \"2\" or \"10\" (or the numbers 2, 10, math.e)";
    let parse = |s: &str| s.parse::<qrenyi::Base>().map(base_str);
    if obj.is_instance_of::<PyString>() {
        return name(WHAT, &EXPECTED, obj, parse);
    }
    let bad = || parse_error(WHAT, format!("expected {EXPECTED}, got {}", describe(obj)));
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(bad());
    }
    let integral = obj.is_instance_of::<PyInt>() || matches!(numpy_kind(obj), Some(('i' | 'u', 0)));
    if integral {
        let digits = obj.str()?.to_string();
        return parse(&digits).map_err(crate::to_py);
    }
    if obj.is_instance_of::<PyFloat>() || matches!(numpy_kind(obj), Some(('f', 0))) {
        let x: f64 = obj.extract().map_err(|_| bad())?;
        return match x {
            2.0 => Ok("2"),
            10.0 => Ok("10"),
            std::f64::consts::E => Ok("e"),
            _ => Err(bad()),
        };
    }
    Err(bad())
}

/// The `backend` argument (default `"auto"`): an eigensolver's name (`qrenyi.backends()`).
pub fn backend(obj: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    use qrenyi::spectral::Backend;
    name(
        "backend",
        &"a backend's name (a string, e.g. \"auto\")",
        obj,
        |s| {
            Ok(match s.parse::<Backend>()? {
                Backend::Lapack => "lapack",
                Backend::LapackMrrr => "lapack-mrrr",
                Backend::Nalgebra => "nalgebra",
                Backend::Faer => "faer",
                Backend::Cuda => "cuda",
                _ => "auto",
            })
        },
    )
}

/// A Rényi family argument (`Pair.renyi`, `Pair.curve`, `privacy.qzcdp_*`): "petz",
/// "sandwiched", "maximal" (or "geometric", its other name; the callee decides which it takes).
pub fn family(obj: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    name(
        "family",
        &"a family's name (a string: petz, sandwiched or maximal)",
        obj,
        |s| {
            s.parse::<qrenyi::divergence::Family>()?;
            Ok(match s {
                "petz" => "petz",
                "sandwiched" => "sandwiched",
                "maximal" => "maximal",
                _ => "geometric",
            })
        },
    )
}

/// "a string (n₁, n₂, …)", formatted only for an error message: the names are joined when a call
/// fails, not on every call (the `kind` argument is parsed on each `divergence` call).
struct AStringOf(&'static [&'static str]);

impl std::fmt::Display for AStringOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a string ({})", self.0.join(", "))
    }
}

/// A name with a fixed list of spellings (the callee parses it and reports unknown ones): a `str`
/// is returned as the matching `&'static str` of `names`, or an error as `unknown` says.
pub fn one_of(
    what: &str,
    obj: &Bound<'_, PyAny>,
    names: &'static [&'static str],
    unknown: impl FnOnce(&str) -> qrenyi::Error,
) -> PyResult<&'static str> {
    name(what, &AStringOf(names), obj, |s| {
        names
            .iter()
            .copied()
            .find(|n| *n == s)
            .ok_or_else(|| unknown(s))
    })
}

/// The `kernel` argument of `qrenyi.kernel` (default `"rbf"`; "gaussian" is rbf's other name).
pub fn kernel_kind(obj: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    one_of("kernel", obj, &["rbf", "gaussian", "laplace", "imq"], |s| {
        s.parse::<qrenyi::kernel::KernelKind>()
            .err()
            .unwrap_or_else(|| unknown("kernel", s, "rbf, laplace or imq"))
    })
}

/// The `method` argument of `kernel.audit` (default `"finite-sample"`).
pub fn audit_method(obj: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    one_of(
        "--method",
        obj,
        &["finite-sample", "subsample", "bootstrap"],
        |s| unknown("--method", s, "finite-sample, subsample or bootstrap"),
    )
}

/// The `ball` argument of `smooth.dmax` (default `"purified"`).
pub fn ball(obj: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    one_of(
        "ball",
        obj,
        &["purified", "trace", "trace-unbounded"],
        |s| {
            s.parse::<qrenyi::smooth::Ball>()
                .err()
                .unwrap_or_else(|| unknown("ball", s, "purified, trace or trace-unbounded"))
        },
    )
}

/// The `expected` argument of `verify.Statement` (default `"theorem"`).
pub fn expectation(obj: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    one_of("expected", obj, &["theorem", "false", "open"], |s| {
        qrenyi::Error::Parse {
            what: "expected".into(),
            reason: format!("unknown expectation {s:?} (expected theorem, false or open)"),
        }
    })
}

/// "cannot parse {what}: unknown {noun} "s" (expected {names})" — the CLI's message for a
/// name it does not know (`noun`: `what` without the flag's dashes).
fn unknown(what: &str, s: &str, names: &str) -> qrenyi::Error {
    qrenyi::Error::Parse {
        what: what.into(),
        reason: format!(
            "unknown {} {s:?} (expected {names})",
            what.trim_start_matches('-')
        ),
    }
}

/// A `bool` argument (`symmetric=`): `True`/`False` or a numpy bool; anything else — `1`, `None`,
/// `"yes"` — is a `QrenyiError` (PyO3 would raise a `TypeError`).
pub fn flag(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if let Ok(b) = obj.cast::<pyo3::types::PyBool>() {
        return Ok(b.is_true());
    }
    if matches!(numpy_kind(obj), Some(('b', 0))) {
        if let Ok(b) = obj.is_truthy() {
            return Ok(b);
        }
    }
    Err(argument_error("True or False", obj))
}
