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
