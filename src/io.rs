//! Reading and writing matrices: NumPy `.npy` (2-D `complex128` or `float64`), JSON
//! `{"re": [[…]], "im": [[…]]}` (`"im"` optional) and CSV samples. Errors name the file and the
//! reason.
//!
//! Hostile files: the `.npy` header is checked against the file's length before anything is
//! allocated ([`read_npy`]). Outputs are written without clobbering or following links:
//! new files exclusively ([`create_new`], [`unique_path`]), explicitly named files replaced
//! atomically ([`replace_atomically`]).

use crate::error::{Error, Result};
use ndarray::{Array2, ArrayD};
use num_complex::Complex64;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A complex matrix as JSON: real and imaginary parts as nested row lists.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct JsonMatrix {
    /// Real parts, row-major.
    pub re: Vec<Vec<f64>>,
    /// Imaginary parts, row-major (absent means zero).
    #[serde(default)]
    pub im: Option<Vec<Vec<f64>>>,
}

impl JsonMatrix {
    /// Convert to an ndarray, checking that the rows are rectangular and the parts agree in shape.
    pub fn to_array(&self) -> Result<Array2<Complex64>> {
        let rows = self.re.len();
        let cols = self.re.first().map_or(0, Vec::len);
        let bad = |what: &str| Error::Parse {
            what: "JSON matrix".into(),
            reason: what.to_string(),
        };
        if self.re.iter().any(|r| r.len() != cols) {
            return Err(bad("rows of \"re\" have different lengths"));
        }
        if let Some(im) = &self.im {
            if im.len() != rows || im.iter().any(|r| r.len() != cols) {
                return Err(bad("\"im\" does not have the shape of \"re\""));
            }
        }
        Ok(Array2::from_shape_fn((rows, cols), |(i, j)| {
            Complex64::new(self.re[i][j], self.im.as_ref().map_or(0.0, |im| im[i][j]))
        }))
    }

    /// From an ndarray.
    pub fn from_array(a: &Array2<Complex64>) -> Self {
        JsonMatrix {
            re: a
                .rows()
                .into_iter()
                .map(|r| r.iter().map(|z| z.re).collect())
                .collect(),
            im: Some(
                a.rows()
                    .into_iter()
                    .map(|r| r.iter().map(|z| z.im).collect())
                    .collect(),
            ),
        }
    }
}

/// A `.npy` array as read by [`read_npy`]: `float64` or `complex128`, any number of axes, in
/// logical (C) order whatever the file's `fortran_order`.
#[derive(Clone, Debug, PartialEq)]
pub enum NpyArray {
    /// `float64` (`<f8` or `>f8`).
    Real(ArrayD<f64>),
    /// `complex128` (`<c16` or `>c16`).
    Complex(ArrayD<Complex64>),
}

impl NpyArray {
    /// The declared shape.
    pub fn shape(&self) -> &[usize] {
        match self {
            NpyArray::Real(a) => a.shape(),
            NpyArray::Complex(a) => a.shape(),
        }
    }
}

/// Largest `.npy` header accepted (NumPy pads headers to 64 bytes and writes far less than this).
pub const NPY_MAX_HEADER: usize = 1 << 20;

/// The parsed header of a `.npy` file: element type, byte order, layout, shape and where the data
/// starts.
#[derive(Clone, Debug, PartialEq)]
struct NpyHeader {
    complex: bool,
    /// `float32`/`complex64` (promoted to double precision when decoded).
    single: bool,
    big_endian: bool,
    fortran: bool,
    shape: Vec<usize>,
    data_offset: usize,
}

impl NpyHeader {
    fn item_size(&self) -> usize {
        let real = if self.single { 4 } else { 8 };
        if self.complex {
            2 * real
        } else {
            real
        }
    }
    /// Bytes of data the header declares, `None` when that overflows `usize`.
    fn data_len(&self) -> Option<usize> {
        self.shape
            .iter()
            .try_fold(self.item_size(), |acc, &n| acc.checked_mul(n))
    }
    fn describe(&self) -> String {
        format!(
            "{} array of shape {}",
            match (self.complex, self.single) {
                (true, false) => "complex128",
                (false, false) => "float64",
                (true, true) => "complex64",
                (false, true) => "float32",
            },
            shape_text(&self.shape)
        )
    }
}

fn shape_text(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Bytes needed before the header dictionary can be located: magic, version, length field.
const NPY_PREAMBLE: usize = 12;

/// Parse the header at the start of `bytes` (which must hold at least the whole header).
fn parse_npy_header(bytes: &[u8]) -> std::result::Result<NpyHeader, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (no \\x93NUMPY magic string)".into());
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let (len, start) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err("truncated .npy header".into());
            }
            let l = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
            (usize::try_from(l).unwrap_or(usize::MAX), 12)
        }
        _ => {
            return Err(format!(
                ".npy format version {major}.{minor} is not supported"
            ))
        }
    };
    if len > NPY_MAX_HEADER {
        return Err(format!(
            ".npy header declares {len} bytes (more than {NPY_MAX_HEADER}: not written by NumPy)"
        ));
    }
    let end = start + len;
    let text = bytes
        .get(start..end)
        .ok_or_else(|| format!("truncated .npy header: declares {len} bytes, file ends first"))?;
    let text = std::str::from_utf8(text).map_err(|_| ".npy header is not text".to_string())?;
    let dict = parse_header_dict(text)?;
    let mut descr = None;
    let mut fortran = None;
    let mut shape = None;
    for (k, v) in dict {
        match (k.as_str(), v) {
            ("descr", HeaderValue::Str(d)) => descr = Some(d),
            ("fortran_order", HeaderValue::Bool(b)) => fortran = Some(b),
            ("shape", HeaderValue::Tuple(t)) => shape = Some(t),
            (k @ ("descr" | "fortran_order" | "shape"), _) => {
                return Err(format!(".npy header: {k:?} has the wrong type"))
            }
            (k, _) => return Err(format!(".npy header: unknown key {k:?}")),
        }
    }
    let descr = descr.ok_or(".npy header has no 'descr'")?;
    let (complex, single, big_endian) = match descr.as_str() {
        "<f8" => (false, false, false),
        ">f8" => (false, false, true),
        "<c16" => (true, false, false),
        ">c16" => (true, false, true),
        "<f4" => (false, true, false),
        ">f4" => (false, true, true),
        "<c8" => (true, true, false),
        ">c8" => (true, true, true),
        d => {
            return Err(format!(
                "element type '{d}' is not supported (float64 '<f8', complex128 '<c16', \
                 float32 '<f4' or complex64 '<c8')"
            ))
        }
    };
    Ok(NpyHeader {
        complex,
        single,
        big_endian,
        fortran: fortran.ok_or(".npy header has no 'fortran_order'")?,
        shape: shape.ok_or(".npy header has no 'shape'")?,
        data_offset: end,
    })
}

enum HeaderValue {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
}

/// The header dictionary: a Python literal `{'descr': '<f8', 'fortran_order': False, 'shape':
/// (2, 3), }` (only strings, booleans and tuples of non-negative integers occur).
fn parse_header_dict(text: &str) -> std::result::Result<Vec<(String, HeaderValue)>, String> {
    let bad = |why: &str| format!(".npy header is not a valid dictionary ({why})");
    let t = text.trim_end_matches(['\n', ' ', '\0']).trim();
    let inner = t
        .strip_prefix('{')
        .and_then(|r| r.strip_suffix('}'))
        .ok_or_else(|| bad("no braces"))?;
    let mut rest = inner.trim_start();
    let mut out = Vec::new();
    let quoted = |r: &str| -> std::result::Result<(String, usize), String> {
        let q = r.chars().next().filter(|c| *c == '\'' || *c == '"');
        let q = q.ok_or_else(|| bad("expected a quoted string"))?;
        let body = &r[1..];
        let close = body.find(q).ok_or_else(|| bad("unterminated string"))?;
        Ok((body[..close].to_string(), close + 2))
    };
    while !rest.is_empty() {
        let (key, used) = quoted(rest)?;
        rest = rest[used..].trim_start();
        rest = rest
            .strip_prefix(':')
            .ok_or_else(|| bad("expected ':'"))?
            .trim_start();
        let value = if rest.starts_with(['\'', '"']) {
            let (v, used) = quoted(rest)?;
            rest = &rest[used..];
            HeaderValue::Str(v)
        } else if let Some(r) = rest.strip_prefix("True") {
            rest = r;
            HeaderValue::Bool(true)
        } else if let Some(r) = rest.strip_prefix("False") {
            rest = r;
            HeaderValue::Bool(false)
        } else if let Some(r) = rest.strip_prefix('(') {
            let close = r.find(')').ok_or_else(|| bad("unterminated tuple"))?;
            let dims = r[..close]
                .split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(|x| {
                    x.trim_end_matches('L')
                        .parse::<usize>()
                        .map_err(|_| bad(&format!("shape entry {x:?}")))
                })
                .collect::<std::result::Result<Vec<usize>, String>>()?;
            rest = &r[close + 1..];
            HeaderValue::Tuple(dims)
        } else {
            return Err(bad("unexpected value"));
        };
        out.push((key, value));
        rest = rest.trim_start();
        match rest.strip_prefix(',') {
            Some(r) => rest = r.trim_start(),
            None if rest.is_empty() => {}
            None => return Err(bad("expected ','")),
        }
    }
    Ok(out)
}

/// Check the declared data size against what the file holds (`available` bytes after the header).
fn check_npy_size(h: &NpyHeader, available: usize) -> std::result::Result<usize, String> {
    let need = h.data_len().ok_or_else(|| {
        format!(
            "header declares a {} whose size overflows the address space",
            h.describe()
        )
    })?;
    match need.cmp(&available) {
        std::cmp::Ordering::Equal => Ok(need),
        std::cmp::Ordering::Greater => Err(format!(
            "header declares a {} ({need} bytes of data) but the file holds only {available} \
             bytes after the header (truncated, or a forged header)",
            h.describe()
        )),
        std::cmp::Ordering::Less => Err(format!(
            "{} trailing bytes after the declared {} ({need} bytes of data)",
            available - need,
            h.describe()
        )),
    }
}

/// Decode exactly `h.data_len()` bytes of data.
fn decode_npy(h: &NpyHeader, data: &[u8]) -> std::result::Result<NpyArray, String> {
    // one real component (4 or 8 bytes), promoted to f64 (exact for float32)
    let f = |c: &[u8]| -> f64 {
        if h.single {
            let b: [u8; 4] = [c[0], c[1], c[2], c[3]];
            f64::from(if h.big_endian {
                f32::from_be_bytes(b)
            } else {
                f32::from_le_bytes(b)
            })
        } else {
            let b: [u8; 8] = [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]];
            if h.big_endian {
                f64::from_be_bytes(b)
            } else {
                f64::from_le_bytes(b)
            }
        }
    };
    let w = h.item_size() / if h.complex { 2 } else { 1 };
    let dim = ndarray::IxDyn(&h.shape);
    let layout = |d: ndarray::IxDyn| {
        if h.fortran {
            ndarray::ShapeBuilder::f(d)
        } else {
            ndarray::ShapeBuilder::into_shape_with_order(d)
        }
    };
    let shape_err = |e: ndarray::ShapeError| format!("shape {}: {e}", shape_text(&h.shape));
    Ok(if h.complex {
        let v: Vec<Complex64> = data
            .chunks_exact(2 * w)
            .map(|c| Complex64::new(f(&c[..w]), f(&c[w..])))
            .collect();
        let a = ArrayD::from_shape_vec(layout(dim), v).map_err(shape_err)?;
        NpyArray::Complex(a.as_standard_layout().into_owned())
    } else {
        let v: Vec<f64> = data.chunks_exact(w).map(f).collect();
        let a = ArrayD::from_shape_vec(layout(dim), v).map_err(shape_err)?;
        NpyArray::Real(a.as_standard_layout().into_owned())
    })
}

/// Parse a whole `.npy` file held in memory (the same checks as [`read_npy`]).
pub fn parse_npy(bytes: &[u8]) -> std::result::Result<NpyArray, String> {
    parse_npy_with_precision(bytes).map(|(a, _)| a)
}

/// [`parse_npy`], also saying whether the file held single-precision data (`float32` or
/// `complex64`, promoted exactly to double precision; the validation tolerance accounts for the
/// precision the data lost when it was written).
pub fn parse_npy_with_precision(bytes: &[u8]) -> std::result::Result<(NpyArray, bool), String> {
    let h = parse_npy_header(bytes)?;
    let data = &bytes[h.data_offset..];
    check_npy_size(&h, data.len())?;
    Ok((decode_npy(&h, data)?, h.single))
}

/// Read a `.npy` file (`float64` or `complex128`, any shape, either byte order and layout).
///
/// The header is checked before anything is allocated: the declared data size (shape × element
/// size, overflow-checked) must equal the bytes the file holds after the header, so a forged
/// header can neither make the reader allocate more than the file's size nor hide trailing bytes.
/// This is the one `.npy` reader of the crate (matrices, samples, saved counterexamples).
pub fn read_npy(path: impl AsRef<Path>) -> Result<NpyArray> {
    use std::io::Read;
    let path = path.as_ref();
    let err = |why: String| Error::io(path, why);
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    note_input(&file);
    let file_len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let file_len = usize::try_from(file_len).unwrap_or(usize::MAX);
    let mut head = vec![0u8; NPY_PREAMBLE.min(file_len)];
    file.read_exact(&mut head).map_err(|e| Error::io(path, e))?;
    if head.len() < 10 || &head[..6] != b"\x93NUMPY" {
        return Err(err("not a .npy file (no \\x93NUMPY magic string)".into()));
    }
    // the header's length field, bounded by the file's length before reading the header
    let declared = match head[6] {
        1 => 10 + u16::from_le_bytes([head[8], head[9]]) as usize,
        _ if head.len() == NPY_PREAMBLE => {
            12 + u32::from_le_bytes([head[8], head[9], head[10], head[11]]) as usize
        }
        _ => NPY_PREAMBLE,
    };
    if declared > file_len {
        return Err(err(format!(
            "truncated .npy header: declares {declared} bytes, the file has {file_len}"
        )));
    }
    if declared <= NPY_MAX_HEADER + NPY_PREAMBLE && declared > head.len() {
        let mut more = vec![0u8; declared - head.len()];
        file.read_exact(&mut more).map_err(|e| Error::io(path, e))?;
        head.extend_from_slice(&more);
    }
    let h = parse_npy_header(&head).map_err(&err)?;
    let need = check_npy_size(&h, file_len - h.data_offset).map_err(&err)?;
    let mut data = Vec::new();
    data.try_reserve_exact(need)
        .map_err(|e| err(format!("cannot allocate {need} bytes: {e}")))?;
    file.take(need as u64)
        .read_to_end(&mut data)
        .map_err(|e| Error::io(path, e))?;
    if data.len() != need {
        return Err(err(format!(
            "file shrank while being read ({} of {need} bytes)",
            data.len()
        )));
    }
    decode_npy(&h, &data).map_err(err)
}

/// Require a 2-D array, naming what was found otherwise.
fn two_dimensional<T>(path: &Path, a: ArrayD<T>, what: &str) -> Result<Array2<T>> {
    let shape = a.shape().to_vec();
    a.into_dimensionality::<ndarray::Ix2>().map_err(|_| {
        Error::io(
            path,
            format!(
                "{what} needs a 2-D array, the file holds a {}-D array of shape {}",
                shape.len(),
                shape_text(&shape)
            ),
        )
    })
}

/// The input files of the commands now running (device and inode): [`replace_atomically`]
/// refuses to replace one of them, so an output named like an input (`qrenyi divergence --rho
/// x.svg … --plot x.svg`) is an error instead of replacing the input. Files are noted only while
/// an [`InputScope`] is open — one CLI command, one Python call — and forgotten when the last open
/// scope closes, so a long-running process (the Python package running several commands) neither
/// accumulates entries nor refuses a later command's output named like an earlier command's
/// input. Scopes open at the same time (calls from several threads) share the set: an output is
/// never written over a file that a concurrent command is reading.
struct Inputs {
    /// Open [`InputScope`]s.
    open: usize,
    /// `(device, inode)` of every file read while a scope was open.
    files: std::collections::BTreeSet<(u64, u64)>,
}

static INPUTS: std::sync::Mutex<Inputs> = std::sync::Mutex::new(Inputs {
    open: 0,
    files: std::collections::BTreeSet::new(),
});

fn inputs() -> std::sync::MutexGuard<'static, Inputs> {
    INPUTS.lock().unwrap_or_else(|p| p.into_inner())
}

/// One command's scope for the input registry: while it (or another scope) is open, the files
/// read by this module's readers are remembered and [`replace_atomically`] refuses to replace
/// them; when the last open scope is dropped they are forgotten. The CLI opens one per command,
/// the Python package one per call that reads or writes files; a Rust program that reads inputs
/// and writes outputs in one operation opens one around it ([`with_input_scope`]). Outside every
/// scope nothing is remembered.
#[must_use = "the scope ends when this guard is dropped"]
pub struct InputScope {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl InputScope {
    /// Open a scope (see [`InputScope`]).
    pub fn enter() -> Self {
        inputs().open += 1;
        InputScope {
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Drop for InputScope {
    fn drop(&mut self) {
        let mut g = inputs();
        g.open -= 1;
        if g.open == 0 {
            g.files = std::collections::BTreeSet::new();
        }
    }
}

/// `f` inside an [`InputScope`].
pub fn with_input_scope<T>(f: impl FnOnce() -> T) -> T {
    let _scope = InputScope::enter();
    f()
}

/// How many input files the registry holds now (tests).
#[doc(hidden)]
pub fn noted_inputs() -> usize {
    inputs().files.len()
}

/// Record the opened input `file` while a scope is open (Unix; elsewhere nothing is recorded).
fn note_input(file: &std::fs::File) {
    #[cfg(unix)]
    if let Ok(m) = file.metadata() {
        use std::os::unix::fs::MetadataExt;
        let mut g = inputs();
        if g.open > 0 {
            g.files.insert((m.dev(), m.ino()));
        }
    }
    #[cfg(not(unix))]
    let _ = file;
}

/// Whether `path` itself (not a link's target: replacing a link leaves its target alone) is a file
/// read as an input by a command now running ([`InputScope`]).
fn is_input(path: &Path) -> bool {
    #[cfg(unix)]
    if let Ok(m) = std::fs::symlink_metadata(path) {
        use std::os::unix::fs::MetadataExt;
        return inputs().files.contains(&(m.dev(), m.ino()));
    }
    let _ = path;
    false
}

/// Largest input read from a pipe, a character device or any other file that is not a regular file
/// (whose size is not known before reading): 1 GiB. `--rho /dev/zero` or an endless pipe would
/// otherwise be read until memory runs out.
pub const MAX_STREAM_INPUT: u64 = 1 << 30;

/// The bytes of the input file `path`: a regular file whole (its size is known up front, and the
/// buffer is reserved fallibly: a sparse 100 GB file is an error, not an abort), anything else
/// (a pipe, `/dev/stdin`, a device) up to [`MAX_STREAM_INPUT`] bytes — more is an error saying so.
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    note_input(&file);
    let regular = file.metadata().map(|m| m.is_file()).unwrap_or(false);
    if regular {
        return std::fs::read(path).map_err(|e| Error::io(path, e));
    }
    let mut bytes = Vec::new();
    file.take(MAX_STREAM_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_STREAM_INPUT {
        return Err(Error::io(
            path,
            format!(
                "not a regular file and longer than {MAX_STREAM_INPUT} bytes (the limit for \
                 pipes and devices); save the input to a file"
            ),
        ));
    }
    Ok(bytes)
}

/// [`read_input`] as UTF-8 text.
pub fn read_input_string(path: &Path) -> Result<String> {
    String::from_utf8(read_input(path)?)
        .map_err(|e| Error::io(path, format!("not UTF-8 text: {}", e.utf8_error())))
}

/// Read a complex matrix from `.npy` (`complex128` or `float64`, 2-D; see [`read_npy`]) or
/// `.json` ([`JsonMatrix`]).
pub fn read_matrix(path: impl AsRef<Path>) -> Result<Array2<Complex64>> {
    let path = path.as_ref();
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json {
        let text = read_input_string(path)?;
        return parse_json_matrix(&text).map_err(|reason| Error::Parse {
            what: path.display().to_string(),
            reason,
        });
    }
    match read_npy(path)? {
        NpyArray::Complex(a) => two_dimensional(path, a, "a matrix"),
        NpyArray::Real(a) => {
            Ok(two_dimensional(path, a, "a matrix")?.mapv(|x| Complex64::new(x, 0.0)))
        }
    }
}

/// Parse a [`JsonMatrix`] document into a matrix (the reason of a failure, without the file name).
pub fn parse_json_matrix(text: &str) -> std::result::Result<Array2<Complex64>, String> {
    let m: JsonMatrix = serde_json::from_str(text).map_err(|e| e.to_string())?;
    m.to_array().map_err(|e| match e {
        Error::Parse { reason, .. } => reason,
        e => e.to_string(),
    })
}

/// Read a real 2-D array (samples `n × d`) from `.npy` (`float64`, see [`read_npy`]) or CSV
/// ([`parse_csv`]). Every entry must be finite.
pub fn read_real_matrix(path: impl AsRef<Path>) -> Result<Array2<f64>> {
    let path = path.as_ref();
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let a = if is_csv {
        let text = read_input_string(path)?;
        parse_csv(&text).map_err(|(line, reason)| Error::Parse {
            what: match line {
                Some(l) => format!("{} line {l}", path.display()),
                None => path.display().to_string(),
            },
            reason,
        })?
    } else {
        match read_npy(path)? {
            NpyArray::Real(a) => two_dimensional(path, a, "a sample matrix")?,
            NpyArray::Complex(_) => {
                return Err(Error::io(
                    path,
                    "samples must be float64, the file holds complex128",
                ))
            }
        }
    };
    if let Some(((i, j), x)) = a.indexed_iter().find(|(_, x)| !x.is_finite()) {
        return Err(Error::NonFinite {
            value: x.to_string(),
            position: format!("{} row {}, column {}", path.display(), i + 1, j + 1),
        });
    }
    Ok(a)
}

/// Parse comma-separated numbers: one row per non-empty line, an optional header as the first
/// line (one that does not parse as numbers), a leading UTF-8 byte-order mark ignored. Errors
/// carry the 1-based line number where there is one.
pub fn parse_csv(text: &str) -> std::result::Result<Array2<f64>, (Option<usize>, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: std::result::Result<Vec<f64>, _> =
            line.split(',').map(|c| c.trim().parse::<f64>()).collect();
        match parsed {
            Ok(r) => rows.push(r),
            Err(_) if rows.is_empty() && ln == 0 => {} // header line
            Err(e) => return Err((Some(ln + 1), e.to_string())),
        }
    }
    let cols = rows.first().map_or(0, Vec::len);
    if let Some(i) = rows.iter().position(|r| r.len() != cols) {
        return Err((
            None,
            format!(
                "row {} has {} columns, expected {cols}",
                i + 1,
                rows[i].len()
            ),
        ));
    }
    Array2::from_shape_vec((rows.len(), cols), rows.concat()).map_err(|e| (None, e.to_string()))
}

/// Write a complex matrix as `.npy` (`complex128`) to a new file: fails if `path` exists
/// (see [`create_new`]).
pub fn write_matrix(path: impl AsRef<Path>, a: &Array2<Complex64>) -> Result<()> {
    use ndarray_npy::WriteNpyExt;
    let path = path.as_ref();
    let mut buf = Vec::new();
    a.write_npy(&mut buf).map_err(|e| Error::io(path, e))?;
    write_new(path, &buf)
}

/// Create `path` for writing, exclusively: fails when anything (a file, a directory, a symbolic
/// link, dangling or not) is already there, so an existing file is never clobbered and no link is
/// followed (`O_CREAT | O_EXCL`).
pub fn create_new(path: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io(path, e))
}

/// Write `bytes` to a new file `path` atomically ([`create_atomically`]): fails if anything is
/// already there; an error leaves no file behind, never a truncated one.
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    create_filling(path, |tmp, file| write_all(tmp, file, bytes))
}

/// `bytes` into the temporary file through the handle that created it exclusively (never by its
/// name, which a writer in the same directory could have replaced by a symbolic link meanwhile).
fn write_all(tmp: &Path, mut file: std::fs::File, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    file.write_all(bytes).map_err(|e| Error::io(tmp, e))
}

/// A fresh name `dir/<stem><suffix>`, `dir/<stem>-1<suffix>`, `dir/<stem>-2<suffix>`, … that does
/// not exist yet (checked without following links). Creating it still goes through
/// [`create_new`], which fails rather than clobber when a racing writer took the name.
pub fn unique_path(dir: &Path, stem: &str, suffix: &str) -> PathBuf {
    (0u64..)
        .map(|i| {
            if i == 0 {
                dir.join(format!("{stem}{suffix}"))
            } else {
                dir.join(format!("{stem}-{i}{suffix}"))
            }
        })
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .unwrap_or_else(|| dir.join(format!("{stem}{suffix}")))
}

/// Replace (or create) the file `path` atomically: the content is produced by `fill` into a new
/// temporary file beside it (created exclusively), synced, then renamed over `path`. Readers see
/// the old file or the complete new one; a symbolic link at `path` is replaced, not followed. A
/// file that a command now running read as an input (by this module's readers, inside an
/// [`InputScope`]) is never replaced: an error.
///
/// `fill` writes by name (plot backends open the path themselves): in a directory other users may
/// write to without the sticky bit, such a user could swap the temporary name for a link between
/// its creation and `fill`; qrenyi's own byte writers ([`replace_with_bytes`], [`write_new`])
/// write through the exclusive handle instead.
pub fn replace_atomically(path: &Path, fill: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    replace_filling(path, |tmp, file| {
        drop(file);
        fill(tmp)
    })
}

/// [`replace_atomically`] with `fill` given the temporary file's exclusive handle too.
fn replace_filling(
    path: &Path,
    fill: impl FnOnce(&Path, std::fs::File) -> Result<()>,
) -> Result<()> {
    if is_input(path) {
        return Err(Error::io(
            path,
            "is an input of this command: refusing to replace it with an output (name the output \
             differently)",
        ));
    }
    through_temporary(path, fill, |tmp| {
        std::fs::rename(tmp, path).map_err(|e| Error::io(path, e))
    })
}

/// Create the new file `path` atomically: the content is produced by `fill` into a temporary file
/// beside it, synced, then linked to `path` (`link(2)`, which fails when anything — a file, a
/// link, dangling or not — is there: nothing is clobbered, no link followed) and the temporary
/// name removed. Readers never see a partial file; an error (in `fill`, or `path` taken) leaves no
/// file behind. On a file system without hard links the content is copied into the file created
/// exclusively ([`create_new`]) instead (not atomic there).
pub fn create_atomically(path: &Path, fill: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    create_filling(path, |tmp, file| {
        drop(file);
        fill(tmp)
    })
}

/// [`create_atomically`] with `fill` given the temporary file's exclusive handle too.
fn create_filling(
    path: &Path,
    fill: impl FnOnce(&Path, std::fs::File) -> Result<()>,
) -> Result<()> {
    through_temporary(path, fill, |tmp| match std::fs::hard_link(tmp, path) {
        Ok(()) => {
            let _ = std::fs::remove_file(tmp);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(Error::io(path, e)),
        Err(_) => {
            let bytes = std::fs::read(tmp).map_err(|e| Error::io(tmp, e))?;
            let mut f = create_new(path)?;
            let written = {
                use std::io::Write;
                f.write_all(&bytes).and_then(|()| f.sync_all())
            };
            let _ = std::fs::remove_file(tmp);
            written.map_err(|e| {
                let _ = std::fs::remove_file(path);
                Error::io(path, e)
            })
        }
    })
}

/// `fill` a fresh temporary file beside `path` (given its name and the handle that created it
/// exclusively), sync it, then `publish` it; the temporary file is removed when anything fails.
fn through_temporary(
    path: &Path,
    fill: impl FnOnce(&Path, std::fs::File) -> Result<()>,
    publish: impl FnOnce(&Path) -> Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| Error::io(path, "not a file name"))?
        .to_string_lossy()
        .into_owned();
    // `.tmp-<pid>[-k]-<name>`: hidden, and ending in the target's extension (plot backends
    // choose the image format from it)
    let tmp = unique_path(
        &dir,
        &format!(".tmp-{}", std::process::id()),
        &format!("-{name}"),
    );
    // reserve the name exclusively before `fill` writes to it
    let file = create_new(&tmp)?;
    let result = fill(&tmp, file).and_then(|()| {
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(&tmp, e))?;
        publish(&tmp)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// [`replace_atomically`] with the given bytes.
pub fn replace_with_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    replace_filling(path, |tmp, file| write_all(tmp, file, bytes))
}

/// Register the bundled Ubuntu Light font (from `epaint_default_fonts`) as plotters' `sans-serif`,
/// so plots (SVG and PNG) render text without system fonts or fontconfig. Idempotent; every
/// plotting path calls it before drawing.
#[cfg(feature = "plot")]
pub fn register_plot_font() -> Result<()> {
    plotters::style::register_font(
        "sans-serif",
        plotters::style::FontStyle::Normal,
        epaint_default_fonts::UBUNTU_LIGHT,
    )
    .map_err(|_| Error::Parse {
        what: "bundled font".into(),
        reason: "Ubuntu Light could not be parsed".into(),
    })
}

/// The one rule for a number in qrenyi's JSON output: a finite value is a JSON number (printed as
/// the shortest decimal that reads back to the same `f64`; `−0` is written as `0`), `+∞`/`−∞` are
/// the strings `"inf"`/`"-inf"`, and NaN (which qrenyi never returns; a statement's bug at worst) is
/// the string `"nan"`. Readers of qrenyi's JSON accept the same three strings.
pub fn json_number(v: f64) -> serde_json::Value {
    if v.is_nan() {
        serde_json::Value::from("nan")
    } else if v == f64::INFINITY {
        serde_json::Value::from("inf")
    } else if v == f64::NEG_INFINITY {
        serde_json::Value::from("-inf")
    } else {
        serde_json::Value::from(v + 0.0) // + 0.0 turns −0 into 0
    }
}

/// Matrices read from one input: a single `d × d` matrix or a stack `(n, d, d)`, with the
/// precision they were stored in. See [`read_stack`].
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixStack {
    /// The matrices, shape `(n, d, d)` (`n = 1` for a single matrix).
    pub matrices: ndarray::Array3<Complex64>,
    /// Whether the input was a 3-D stack (`false`: one 2-D matrix, which callers broadcast).
    pub stacked: bool,
    /// Whether the values were stored in single precision (`float32`/`complex64`): promoted to
    /// f64 exactly, but they carry only ~7 significant digits ([`SINGLE_PRECISION_TOLERANCE`]).
    pub single_precision: bool,
}

/// The smallest validation base tolerance for single-precision inputs: `2⁻²⁰ ≈ 9.5·10⁻⁷`, eight
/// float32 ulps at 1 (`ε₃₂ = 2⁻²³`). A density matrix rounded to float32 has entrywise errors up
/// to `ε₃₂/2·|A_ij|`, so its trace and Hermiticity defects reach a few `ε₃₂·√d` — far above the
/// default `1e-10` — and would be rejected although the matrix is a state to the precision stored.
pub const SINGLE_PRECISION_TOLERANCE: f64 = 9.5367431640625e-7;

/// Read one matrix or a stack of matrices. `spec` is a path, or `FILE.npz:NAME` for one array of
/// a NumPy `.npz` archive (`np.savez`, `np.savez_compressed`; a one-array archive needs no
/// `:NAME`). Formats:
///
/// - `.npy` / `.npz` arrays of `complex128`, `float64`, `complex64` or `float32` (single precision
///   is promoted exactly, [`MatrixStack::single_precision`]), 2-D `(d, d)` or 3-D `(n, d, d)`;
/// - `.json`: `{"re": …, "im": …}` (`"im"` optional) or a plain nested list of reals (`[[…]]`,
///   NumPy's `tolist()`), each 2-D or 3-D.
///
/// Errors ([`Error::Parse`], [`Error::Io`]) name the file, and for JSON the field and position
/// (`rho.json: "im"[1][0]: expected a number, found "x"`).
pub fn read_stack(spec: &str) -> Result<MatrixStack> {
    let (path, member) = split_npz_spec(spec);
    let path = Path::new(path);
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let parse_err = |reason: String| Error::Parse {
        what: spec.to_string(),
        reason,
    };
    let (array, single) = match ext.as_str() {
        "json" => {
            let text = read_input_string(path)?;
            (json_array(&text).map_err(parse_err)?, false)
        }
        "npz" => read_npz_member(path, member)?,
        _ => {
            let bytes = read_input(path)?;
            npy_any(&bytes).map_err(|e| Error::io(path, e))?
        }
    };
    let (matrices, stacked) = match array.ndim() {
        2 => {
            let (r, c) = (array.shape()[0], array.shape()[1]);
            (array.into_shape_with_order((1, r, c)), false)
        }
        3 => {
            let (n, r, c) = (array.shape()[0], array.shape()[1], array.shape()[2]);
            (array.into_shape_with_order((n, r, c)), true)
        }
        k => {
            return Err(parse_err(format!(
                "expected a 2-D matrix (d, d) or a 3-D stack (n, d, d), found a {k}-D array of \
                 shape {}",
                shape_text(array.shape())
            )))
        }
    };
    let matrices = matrices.map_err(|e| parse_err(e.to_string()))?;
    if matrices.shape()[0] == 0 {
        return Err(parse_err("empty stack (n = 0)".into()));
    }
    Ok(MatrixStack {
        matrices,
        stacked,
        single_precision: single,
    })
}

/// `FILE.npz:NAME` → (`FILE.npz`, `Some(NAME)`); anything else is a plain path.
fn split_npz_spec(spec: &str) -> (&str, Option<&str>) {
    if let Some(i) = spec.to_ascii_lowercase().rfind(".npz:") {
        let (file, name) = spec.split_at(i + 4);
        return (file, Some(&name[1..]));
    }
    (spec, None)
}

type DynC64 = ndarray::ArrayD<Complex64>;

fn promote<T: Copy>(a: ndarray::ArrayD<T>, f: impl Fn(T) -> Complex64) -> DynC64 {
    a.mapv(f)
}

/// A `.npy` file's bytes as complex matrices or stacks, through the crate's one checked parser
/// ([`parse_npy_with_precision`]); the flag says single precision.
fn npy_any(bytes: &[u8]) -> std::result::Result<(DynC64, bool), String> {
    let (a, single) = parse_npy_with_precision(bytes)?;
    Ok((
        match a {
            NpyArray::Complex(c) => c,
            NpyArray::Real(r) => promote(r, |x| Complex64::new(x, 0.0)),
        },
        single,
    ))
}

/// Largest `.npz` member read (uncompressed bytes): a member is read in full before it is parsed,
/// and reading stops, with an error, past this size (so a forged or "bomb" archive cannot exhaust
/// memory).
pub const NPZ_MAX_MEMBER: u64 = 1 << 34;

/// One member of an `.npz` archive file (`member` may be omitted when the archive holds one
/// array), stored or deflated: its bytes, at most [`NPZ_MAX_MEMBER`], go through the same checked
/// `.npy` parser as plain files ([`npz_member`]).
fn read_npz_member(path: &Path, member: Option<&str>) -> Result<(DynC64, bool)> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    note_input(&file);
    npz_member(file, &path.display().to_string(), member)
}

/// One member of an `.npz` archive read from any seekable source (a file, or bytes in memory for
/// the fuzz target `npz`); `label` names the archive in errors. The member's uncompressed bytes are
/// read up to [`NPZ_MAX_MEMBER`] and parsed by [`parse_npy_with_precision`].
pub(crate) fn npz_member<R: std::io::Read + std::io::Seek>(
    reader: R,
    label: &str,
    member: Option<&str>,
) -> Result<(DynC64, bool)> {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(reader).map_err(|e| Error::Io {
        path: label.to_string(),
        reason: e.to_string(),
    })?;
    let names: Vec<String> = zip
        .file_names()
        .map(|n| n.strip_suffix(".npy").unwrap_or(n).to_string())
        .collect();
    let name = match member {
        Some(n) => n.to_string(),
        None if names.len() == 1 => names[0].clone(),
        None => {
            return Err(Error::Parse {
                what: label.to_string(),
                reason: format!(
                    "the archive holds {} arrays ({}): name one as FILE.npz:NAME",
                    names.len(),
                    names.join(", ")
                ),
            })
        }
    };
    let what = format!("{label}:{name}");
    let parse_err = |reason: String| Error::Parse {
        what: what.clone(),
        reason,
    };
    let stored = [format!("{name}.npy"), name.clone()]
        .into_iter()
        .find(|n| zip.index_for_name(n).is_some())
        .ok_or_else(|| {
            parse_err(format!(
                "no array {name:?} in the archive (it has {})",
                names.join(", ")
            ))
        })?;
    let mut entry = zip.by_name(&stored).map_err(|e| parse_err(e.to_string()))?;
    let mut bytes = Vec::new();
    (&mut entry)
        .take(NPZ_MAX_MEMBER + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| parse_err(e.to_string()))?;
    if bytes.len() as u64 > NPZ_MAX_MEMBER {
        return Err(parse_err(format!(
            "the member holds more than {NPZ_MAX_MEMBER} bytes uncompressed"
        )));
    }
    npy_any(&bytes).map_err(parse_err)
}

/// A JSON matrix or stack: `{"re": …, "im": …}` or a plain nested list of reals.
fn json_array(text: &str) -> std::result::Result<DynC64, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    match &v {
        serde_json::Value::Object(m) => {
            if let Some(k) = m.keys().find(|k| *k != "re" && *k != "im") {
                return Err(format!("unknown field {k:?} (expected \"re\" and \"im\")"));
            }
            let re = m
                .get("re")
                .ok_or_else(|| "missing field \"re\"".to_string())?;
            let re = json_reals(re, "\"re\"")?;
            match m.get("im") {
                None | Some(serde_json::Value::Null) => Ok(re.mapv(|x| Complex64::new(x, 0.0))),
                Some(im) => {
                    let im = json_reals(im, "\"im\"")?;
                    if im.shape() != re.shape() {
                        return Err(format!(
                            "\"im\" has shape {:?}, \"re\" has shape {:?}",
                            im.shape(),
                            re.shape()
                        ));
                    }
                    Ok(ndarray::Zip::from(&re)
                        .and(&im)
                        .map_collect(|&a, &b| Complex64::new(a, b)))
                }
            }
        }
        serde_json::Value::Array(_) => {
            Ok(json_reals(&v, "top level")?.mapv(|x| Complex64::new(x, 0.0)))
        }
        _ => Err("expected {\"re\": [[…]], \"im\": [[…]]} or a nested list [[…]]".into()),
    }
}

/// A rectangular nested list of numbers as an array; errors name `field` and the position.
fn json_reals(
    v: &serde_json::Value,
    field: &str,
) -> std::result::Result<ndarray::ArrayD<f64>, String> {
    // shape from the first element of each level
    let mut shape = Vec::new();
    let mut cur = v;
    while let serde_json::Value::Array(a) = cur {
        shape.push(a.len());
        match a.first() {
            Some(x) => cur = x,
            None => break,
        }
    }
    let mut data = Vec::with_capacity(shape.iter().product());
    fn walk(
        v: &serde_json::Value,
        shape: &[usize],
        at: &mut String,
        data: &mut Vec<f64>,
    ) -> std::result::Result<(), String> {
        match (shape.split_first(), v) {
            (None, serde_json::Value::Number(n)) => {
                data.push(
                    n.as_f64()
                        .ok_or_else(|| format!("{at}: {n} is not a number"))?,
                );
                Ok(())
            }
            (None, other) => Err(format!("{at}: expected a number, found {other}")),
            (Some((&len, rest)), serde_json::Value::Array(a)) => {
                if a.len() != len {
                    return Err(format!(
                        "{at}: {} entries, expected {len} (rows of different lengths)",
                        a.len()
                    ));
                }
                for (i, x) in a.iter().enumerate() {
                    let keep = at.len();
                    at.push_str(&format!("[{i}]"));
                    walk(x, rest, at, data)?;
                    at.truncate(keep);
                }
                Ok(())
            }
            (Some(_), other) => Err(format!("{at}: expected a list, found {other}")),
        }
    }
    let mut at = field.to_string();
    walk(v, &shape, &mut at, &mut data)?;
    ndarray::ArrayD::from_shape_vec(shape, data).map_err(|e| format!("{field}: {e}"))
}
