//! Reading and writing matrices: NumPy `.npy` (2-D `complex128` or `float64`) and JSON
//! `{"re": [[…]], "im": [[…]]}` (`"im"` optional). Errors name the file and the reason.

use crate::error::{Error, Result};
use ndarray::Array2;
use num_complex::Complex64;
use serde::{Deserialize, Serialize};
use std::path::Path;

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

/// Read a complex matrix from `.npy` (`complex128` or `float64`, 2-D) or `.json`.
pub fn read_matrix(path: impl AsRef<Path>) -> Result<Array2<Complex64>> {
    let path = path.as_ref();
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let m: JsonMatrix = serde_json::from_str(&text).map_err(|e| Error::Parse {
            what: path.display().to_string(),
            reason: e.to_string(),
        })?;
        return m.to_array();
    }
    match ndarray_npy::read_npy::<_, Array2<Complex64>>(path) {
        Ok(a) => Ok(a),
        Err(first) => match ndarray_npy::read_npy::<_, Array2<f64>>(path) {
            Ok(a) => Ok(a.mapv(|x| Complex64::new(x, 0.0))),
            Err(_) => Err(Error::io(
                path,
                format!("not a 2-D complex128 or float64 .npy file ({first})"),
            )),
        },
    }
}

/// Read a real 2-D array (samples `n × d`) from `.npy` (`float64`) or CSV (comma separated,
/// optional header line that does not parse as numbers).
pub fn read_real_matrix(path: impl AsRef<Path>) -> Result<Array2<f64>> {
    let path = path.as_ref();
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    if !is_csv {
        return ndarray_npy::read_npy::<_, Array2<f64>>(path)
            .map_err(|e| Error::io(path, format!("not a 2-D float64 .npy file ({e})")));
    }
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: std::result::Result<Vec<f64>, _> =
            line.split(',').map(|c| c.trim().parse::<f64>()).collect();
        match parsed {
            Ok(r) => rows.push(r),
            Err(e) if rows.is_empty() && ln == 0 => {
                let _ = e; // header line
            }
            Err(e) => {
                return Err(Error::Parse {
                    what: format!("{} line {}", path.display(), ln + 1),
                    reason: e.to_string(),
                })
            }
        }
    }
    let cols = rows.first().map_or(0, Vec::len);
    if let Some(i) = rows.iter().position(|r| r.len() != cols) {
        return Err(Error::Parse {
            what: path.display().to_string(),
            reason: format!(
                "row {} has {} columns, expected {cols}",
                i + 1,
                rows[i].len()
            ),
        });
    }
    Array2::from_shape_vec((rows.len(), cols), rows.concat()).map_err(|e| Error::io(path, e))
}

/// Write a complex matrix as `.npy` (`complex128`).
pub fn write_matrix(path: impl AsRef<Path>, a: &Array2<Complex64>) -> Result<()> {
    let path = path.as_ref();
    ndarray_npy::write_npy(path, a).map_err(|e| Error::io(path, e))
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
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            (json_array(&text).map_err(parse_err)?, false)
        }
        "npz" => read_npz_member(path, member)?,
        _ => {
            let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
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
                "expected a 2-D matrix (d, d) or a 3-D stack (n, d, d), found {k} dimensions"
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

/// Check that the data a `.npy` header announces fits in the file, before the reader allocates
/// it (ndarray-npy allocates `prod(shape)` elements first, so a forged shape would abort the
/// process instead of failing). Headers it cannot read are left to the decoder's error.
fn npy_data_fits(bytes: &[u8]) -> std::result::Result<(), String> {
    // magic (6) + version (2) + header length (2 bytes in v1, 4 in v2/v3)
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Ok(());
    }
    let (hlen, start): (usize, usize) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        _ if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => return Ok(()),
    };
    let Some(header) = bytes.get(start..start.saturating_add(hlen)) else {
        return Err(format!(
            "the header announces {hlen} bytes, the file has {}",
            bytes.len()
        ));
    };
    let header = String::from_utf8_lossy(header);
    let item = ["c16", "f8", "c8", "f4"]
        .iter()
        .zip([16usize, 8, 8, 4])
        .find(|(d, _)| header.contains(&format!("<{d}'")) || header.contains(&format!(">{d}'")))
        .map_or(1, |(_, size)| size);
    let Some(shape) = header
        .split("'shape':")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .map(|s| s.trim().trim_start_matches('('))
    else {
        return Ok(());
    };
    let mut elements: u128 = 1;
    for dim in shape.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Ok(n) = dim.parse::<u128>() else {
            return Ok(());
        };
        elements = elements.saturating_mul(n);
    }
    let need = elements.saturating_mul(item as u128);
    let have = (bytes.len() - (start + hlen)) as u128;
    if need > have {
        return Err(format!(
            "the header announces shape ({shape}): {need} bytes of data, the file holds {have}"
        ));
    }
    Ok(())
}

/// Decode `.npy` bytes of any supported dtype; `(array, single precision)`.
fn npy_any(bytes: &[u8]) -> std::result::Result<(DynC64, bool), String> {
    use ndarray_npy::ReadNpyExt;
    npy_data_fits(bytes)?;
    use num_complex::Complex32;
    let cur = || std::io::Cursor::new(bytes);
    let first = match DynC64::read_npy(cur()) {
        Ok(a) => return Ok((a, false)),
        Err(e) => e,
    };
    if let Ok(a) = ndarray::ArrayD::<f64>::read_npy(cur()) {
        return Ok((promote(a, |x| Complex64::new(x, 0.0)), false));
    }
    if let Ok(a) = ndarray::ArrayD::<Complex32>::read_npy(cur()) {
        return Ok((
            promote(a, |z| Complex64::new(z.re.into(), z.im.into())),
            true,
        ));
    }
    if let Ok(a) = ndarray::ArrayD::<f32>::read_npy(cur()) {
        return Ok((promote(a, |x| Complex64::new(x.into(), 0.0)), true));
    }
    Err(format!(
        "not a complex128, float64, complex64 or float32 .npy array ({first})"
    ))
}

/// One member of an `.npz` archive (`member` may be omitted when the archive holds one array).
fn read_npz_member(path: &Path, member: Option<&str>) -> Result<(DynC64, bool)> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut zip = ndarray_npy::NpzReader::new(file).map_err(|e| Error::io(path, e))?;
    let names = zip.names().map_err(|e| Error::io(path, e))?;
    let name = match member {
        Some(n) => n.to_string(),
        None if names.len() == 1 => names[0].clone(),
        None => {
            return Err(Error::Parse {
                what: path.display().to_string(),
                reason: format!(
                    "the archive holds {} arrays ({}): name one as FILE.npz:NAME",
                    names.len(),
                    names.join(", ")
                ),
            })
        }
    };
    if !names.contains(&name) {
        return Err(Error::Parse {
            what: path.display().to_string(),
            reason: format!(
                "no array {name:?} in the archive (it has {})",
                names.join(", ")
            ),
        });
    }
    // NpzReader reads typed arrays only: try each supported dtype in turn
    let what = format!("{}:{name}", path.display());
    let try_all = |zip: &mut ndarray_npy::NpzReader<std::fs::File>| -> std::result::Result<(DynC64, bool), String> {
        use num_complex::Complex32;
        let first = match zip.by_name::<ndarray::OwnedRepr<Complex64>, ndarray::IxDyn>(&name) {
            Ok(a) => return Ok((a, false)),
            Err(e) => e,
        };
        if let Ok(a) = zip.by_name::<ndarray::OwnedRepr<f64>, ndarray::IxDyn>(&name) {
            return Ok((promote(a, |x| Complex64::new(x, 0.0)), false));
        }
        if let Ok(a) = zip.by_name::<ndarray::OwnedRepr<Complex32>, ndarray::IxDyn>(&name) {
            return Ok((promote(a, |z| Complex64::new(z.re.into(), z.im.into())), true));
        }
        if let Ok(a) = zip.by_name::<ndarray::OwnedRepr<f32>, ndarray::IxDyn>(&name) {
            return Ok((promote(a, |x| Complex64::new(x.into(), 0.0)), true));
        }
        Err(format!(
            "not a complex128, float64, complex64 or float32 array ({first})"
        ))
    };
    try_all(&mut zip).map_err(|reason| Error::Parse { what, reason })
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
