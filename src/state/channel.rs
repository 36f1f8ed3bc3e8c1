//! Quantum channels in Kraus form: [`Channel`].

use super::operators::{dagger, identity_defect};
use super::Tolerance;
use crate::error::{Error, Result};
use ndarray::{Array1, Array2};
use num_complex::Complex64;

/// A quantum channel in Kraus form, `Φ(X) = Σ_k K_k X K_k†`, checked trace preserving
/// (`Σ_k K_k† K_k = I` within tolerance) at construction.
#[derive(Clone, Debug)]
pub struct Channel {
    kraus: Vec<Array2<Complex64>>,
}

impl Channel {
    /// From Kraus operators of common shape `d_out × d_in`.
    pub fn new(kraus: Vec<Array2<Complex64>>) -> Result<Self> {
        let first = kraus
            .first()
            .ok_or_else(|| Error::Empty("no Kraus operators".into()))?;
        let (dout, din) = first.dim();
        let mut sum = Array2::<Complex64>::zeros((din, din));
        for k in &kraus {
            if k.dim() != (dout, din) {
                return Err(Error::DimensionMismatch {
                    what: "Kraus operator shapes".into(),
                    left: dout * din,
                    right: k.len(),
                });
            }
            if let Some(z) = k.iter().find(|z| !z.re.is_finite() || !z.im.is_finite()) {
                return Err(Error::NonFinite {
                    value: format!("{z}"),
                    position: "Kraus operator".into(),
                });
            }
            sum += &dagger(&k.view()).dot(k);
        }
        let dev = identity_defect(&sum);
        let tol = Tolerance::default().scaled(din, 1.0);
        if dev > tol {
            return Err(Error::NotTracePreserving {
                deviation: dev,
                tolerance: tol,
            });
        }
        Ok(Channel { kraus })
    }

    /// Input dimension `d_in`.
    pub fn input_dim(&self) -> usize {
        self.kraus[0].ncols()
    }
    /// Output dimension `d_out`.
    pub fn output_dim(&self) -> usize {
        self.kraus[0].nrows()
    }
    /// The Kraus operators.
    pub fn kraus(&self) -> &[Array2<Complex64>] {
        &self.kraus
    }

    /// `Σ_k K_k X K_k†` for any `d_in × d_in` matrix (no validation of `X` beyond its shape).
    ///
    /// Errors: [`Error::DimensionMismatch`] when `X` is not `d_in × d_in`.
    pub fn apply_matrix(&self, x: &Array2<Complex64>) -> Result<Array2<Complex64>> {
        let d = self.input_dim();
        if x.dim() != (d, d) {
            return Err(Error::DimensionMismatch {
                what: format!("channel input vs {}×{} matrix", x.nrows(), x.ncols()),
                left: d,
                right: if x.nrows() == d { x.ncols() } else { x.nrows() },
            });
        }
        let mut out = Array2::zeros((self.output_dim(), self.output_dim()));
        for k in &self.kraus {
            out += &k.dot(x).dot(&dagger(&k.view()));
        }
        Ok(out)
    }

    /// Composition `other ∘ self` (apply `self` first).
    pub fn then(&self, other: &Channel) -> Result<Channel> {
        if other.input_dim() != self.output_dim() {
            return Err(Error::DimensionMismatch {
                what: "channel composition".into(),
                left: self.output_dim(),
                right: other.input_dim(),
            });
        }
        Channel::new(
            self.kraus
                .iter()
                .flat_map(|a| other.kraus.iter().map(move |b| b.dot(a)))
                .collect(),
        )
    }

    /// Depolarizing channel `ρ ↦ (1−p) ρ + p Tr(ρ) I/d`, `p ∈ [0, 1]`, with Kraus operators
    /// `√c_ab X^a Z^b` (Weyl–Heisenberg basis), `c_00 = 1 − p + p/d²`, `c_ab = p/d²` otherwise.
    pub fn depolarizing(d: usize, p: f64) -> Result<Self> {
        check_unit_interval("p", p)?;
        if d == 0 {
            return Err(Error::Empty("dimension 0".into()));
        }
        let omega =
            |k: usize| Complex64::from_polar(1.0, 2.0 * std::f64::consts::PI * k as f64 / d as f64);
        let d2 = (d * d) as f64;
        let mut kraus = Vec::with_capacity(d * d);
        for a in 0..d {
            for b in 0..d {
                let c = if a == 0 && b == 0 {
                    1.0 - p + p / d2
                } else {
                    p / d2
                };
                if c == 0.0 {
                    continue;
                }
                // (X^a Z^b)|j⟩ = ω^{bj} |j + a mod d⟩
                let mut w = Array2::zeros((d, d));
                for j in 0..d {
                    w[[(j + a) % d, j]] = omega((b * j) % d) * c.sqrt();
                }
                kraus.push(w);
            }
        }
        Channel::new(kraus)
    }

    /// Completely dephasing with probability `p`: `ρ ↦ (1−p) ρ + p diag(ρ)` in the computational
    /// basis, Kraus operators `√(1−p) I` and `√p |i⟩⟨i|`.
    pub fn dephasing(d: usize, p: f64) -> Result<Self> {
        check_unit_interval("p", p)?;
        if d == 0 {
            return Err(Error::Empty("dimension 0".into()));
        }
        let mut kraus = vec![Array2::from_diag(&Array1::from_elem(
            d,
            Complex64::new((1.0 - p).sqrt(), 0.0),
        ))];
        for i in 0..d {
            let mut k = Array2::zeros((d, d));
            k[[i, i]] = Complex64::new(p.sqrt(), 0.0);
            kraus.push(k);
        }
        Channel::new(kraus)
    }

    /// Qubit amplitude damping with decay probability `γ ∈ [0,1]`:
    /// `K₀ = |0⟩⟨0| + √(1−γ)|1⟩⟨1|`, `K₁ = √γ |0⟩⟨1|`.
    pub fn amplitude_damping(gamma: f64) -> Result<Self> {
        check_unit_interval("gamma", gamma)?;
        let c = |x: f64| Complex64::new(x, 0.0);
        let k0 = ndarray::arr2(&[[c(1.0), c(0.0)], [c(0.0), c((1.0 - gamma).sqrt())]]);
        let k1 = ndarray::arr2(&[[c(0.0), c(gamma.sqrt())], [c(0.0), c(0.0)]]);
        Channel::new(vec![k0, k1])
    }
}

fn check_unit_interval(name: &str, x: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&x) {
        return Err(Error::invalid(name, x, "must lie in [0, 1]"));
    }
    Ok(())
}
