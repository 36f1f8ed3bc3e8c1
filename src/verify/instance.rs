//! Instances of a statement: named states, distributions, channels and scalars, each stored with
//! the parameters it is generated from, so that the search can move it continuously
//! ([`Instance::perturbed`]) while it stays a valid object of its kind.
//!
//! Parametrisations (every perturbation preserves the kind's constraints):
//!
//! * state: `ρ = G G† / Tr(G G†)` with `G` a `d × r` complex matrix (rank ≤ r is preserved);
//! * distribution: `p_i ∝ e^{x_i}` on its support (zeros stay zeros);
//! * channel: a Stinespring isometry `V` (`k·d_out × d_in`, Kraus operators its blocks),
//!   re-orthonormalised (QR) after each move;
//! * scalar: a value in `[lo, hi]`, moved linearly or in `ln(value − offset)`.

use crate::error::{Error, Result};
use crate::io::{read_matrix, write_matrix};
use crate::spectral::Backend;
use crate::state::{ginibre, Channel, DensityMatrix, Tolerance};
use nalgebra::DMatrix;
use ndarray::{s, Array2};
use num_complex::Complex64;
use rand::Rng;
use rand_distr::StandardNormal;
use serde_json::{json, Value};
use std::path::Path;

/// How a scalar moves during refinement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// `value += step · z · (hi − lo)/4`.
    Linear,
    /// `ln(value − offset) += step · z` (for orders α > 1 use offset 1, for ε > 0 offset 0).
    Log {
        /// The offset below the value.
        offset: f64,
    },
}

/// One named component of an [`Instance`].
#[derive(Clone, Debug)]
pub enum Item {
    /// A density matrix and its generator `G` (`ρ = GG†/Tr GG†`).
    State {
        /// The exactly Hermitian, unit-trace matrix (what margins are computed from).
        matrix: Array2<Complex64>,
        /// The generator moved by refinement.
        generator: Array2<Complex64>,
    },
    /// A probability vector.
    Distribution(Vec<f64>),
    /// A channel as the Stinespring isometry `V = [K_0; K_1; …]` (Kraus operators stacked).
    Channel {
        /// `k·d_out × d_in`, `V†V = I`.
        isometry: Array2<Complex64>,
        /// Output dimension.
        d_out: usize,
    },
    /// A real parameter in `[lo, hi]`.
    Scalar {
        /// Current value.
        value: f64,
        /// Lower bound.
        lo: f64,
        /// Upper bound.
        hi: f64,
        /// How it moves.
        scale: Scale,
    },
}

/// `G G† / Tr(G G†)`, made exactly Hermitian.
fn gram_state(g: &Array2<Complex64>) -> Array2<Complex64> {
    let m = g.dot(&g.t().mapv(|z| z.conj()));
    let tr: f64 = (0..m.nrows()).map(|i| m[[i, i]].re).sum();
    let n = m.nrows();
    Array2::from_shape_fn((n, n), |(i, j)| (m[[i, j]] + m[[j, i]].conj()) * (0.5 / tr))
}

/// Orthonormalise the columns of `v` (thin QR, nalgebra).
fn orthonormal_columns(v: &Array2<Complex64>) -> Array2<Complex64> {
    let (r, c) = v.dim();
    let m = DMatrix::from_fn(r, c, |i, j| v[[i, j]]);
    let q = m.qr().q();
    Array2::from_shape_fn((r, c), |(i, j)| q[(i, j)])
}

fn rms(a: &Array2<Complex64>) -> f64 {
    (a.iter().map(|z| z.norm_sqr()).sum::<f64>() / a.len().max(1) as f64).sqrt()
}

impl Item {
    /// A state from its generator `G` (`d × r`, not all zero).
    pub fn state_from_generator(generator: Array2<Complex64>) -> Item {
        Item::State {
            matrix: gram_state(&generator),
            generator,
        }
    }

    /// A state given by its matrix (generator `ρ^{1/2}`, from the state's eigendecomposition).
    /// Errors: [`crate::Error::Eigensolver`] when the decomposition fails.
    pub fn state_from_matrix(rho: &DensityMatrix) -> Result<Item> {
        Ok(Item::State {
            matrix: rho.matrix().clone(),
            generator: rho.eigen()?.map(|l| l.max(0.0).sqrt()),
        })
    }

    /// A channel from Kraus operators `K_i` (`d_out × d_in` each), stacked into `V`.
    pub fn channel(channel: &Channel) -> Item {
        let (d_out, d_in) = (channel.output_dim(), channel.input_dim());
        let k = channel.kraus().len();
        let mut v = Array2::zeros((k * d_out, d_in));
        for (i, kr) in channel.kraus().iter().enumerate() {
            v.slice_mut(s![i * d_out..(i + 1) * d_out, ..]).assign(kr);
        }
        Item::Channel { isometry: v, d_out }
    }

    /// A scalar in `[lo, hi]`.
    pub fn scalar(value: f64, lo: f64, hi: f64, scale: Scale) -> Item {
        Item::Scalar {
            value,
            lo,
            hi,
            scale,
        }
    }

    /// `state`, `distribution`, `channel` or `scalar`.
    pub fn kind(&self) -> &'static str {
        match self {
            Item::State { .. } => "state",
            Item::Distribution(_) => "distribution",
            Item::Channel { .. } => "channel",
            Item::Scalar { .. } => "scalar",
        }
    }

    /// A random move of relative size `step` (see the module docs for each kind).
    pub fn perturbed<R: Rng + ?Sized>(&self, step: f64, rng: &mut R) -> Item {
        match self {
            Item::State { generator, .. } => {
                let (d, r) = generator.dim();
                let z = ginibre(d, r, rng);
                let g = generator + &z.mapv(|x| x * (step * rms(generator)));
                Item::state_from_generator(g)
            }
            Item::Distribution(p) => {
                let w: Vec<f64> = p
                    .iter()
                    .map(|&x| {
                        let z: f64 = rng.sample(StandardNormal);
                        x * (step * z).exp()
                    })
                    .collect();
                let s: f64 = w.iter().sum();
                Item::Distribution(w.iter().map(|x| x / s).collect())
            }
            Item::Channel { isometry, d_out } => {
                let (r, c) = isometry.dim();
                let z = ginibre(r, c, rng);
                let v = isometry + &z.mapv(|x| x * (step * rms(isometry)));
                Item::Channel {
                    isometry: orthonormal_columns(&v),
                    d_out: *d_out,
                }
            }
            Item::Scalar {
                value,
                lo,
                hi,
                scale,
            } => {
                // a fixed number (`lo = hi`) or bounds that are not a finite interval: nothing
                // to move within (`clamp` would panic on NaN bounds and infinite ones make the
                // step NaN); the engine's Python binding refuses such items, this keeps any
                // other caller's instance as it is
                if !(lo < hi && lo.is_finite() && hi.is_finite() && value.is_finite()) {
                    return self.clone();
                }
                let z: f64 = rng.sample(StandardNormal);
                let v = match scale {
                    Scale::Linear => value + step * z * (hi - lo) / 4.0,
                    Scale::Log { offset } => offset + ((value - offset).ln() + step * z).exp(),
                };
                Item::Scalar {
                    value: v.clamp(*lo, *hi),
                    lo: *lo,
                    hi: *hi,
                    scale: *scale,
                }
            }
        }
    }
}

/// An instance of a statement: an ordered list of named [`Item`]s.
#[derive(Clone, Debug, Default)]
pub struct Instance {
    items: Vec<(String, Item)>,
    tags: Vec<String>,
}

/// Longest probability vector an instance may hold: `MAX_DIM²`, as many entries as a state of
/// the largest dimension a search accepts ([`super::MAX_DIM`]).
pub const MAX_DISTRIBUTION_LEN: usize = super::MAX_DIM * super::MAX_DIM;

/// An instance's item `name` of `kind` ("state", "channel", "distribution") with `size` (a
/// dimension, or a length) within `limit`, else [`Error::InvalidParameter`] saying by how much it
/// is over. The search's limits ([`super::MAX_DIM`] for states and channels,
/// [`MAX_DISTRIBUTION_LEN`] for probability vectors) bound what a custom statement's sampler (or a
/// saved file) may hand to the engine: every trial validates, decomposes and refines each item, so
/// a 10⁴ × 10⁴ state would hold a search for hours.
pub fn check_item_size(name: &str, kind: &str, size: usize, limit: usize) -> Result<()> {
    if size <= limit {
        return Ok(());
    }
    let measure = if kind == "distribution" {
        "length"
    } else {
        "dimension"
    };
    Err(Error::invalid(
        &format!("{measure} of the {kind} {name:?}"),
        size as f64,
        format!(
            "must be at most {limit}, the search's limit for a {kind} ({} over; \
             qrenyi::verify::MAX_DIM = {})",
            size - limit,
            super::MAX_DIM
        ),
    ))
}

fn missing(name: &str, kind: &str) -> Error {
    Error::Parse {
        what: "instance".into(),
        reason: format!("no {kind} named {name:?}"),
    }
}

impl Instance {
    /// An empty instance.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add (or replace) an item.
    pub fn with(mut self, name: &str, item: Item) -> Self {
        self.items.retain(|(n, _)| n != name);
        self.items.push((name.to_string(), item));
        self
    }

    /// Add a scalar.
    pub fn with_scalar(self, name: &str, value: f64, lo: f64, hi: f64, scale: Scale) -> Self {
        self.with(name, Item::scalar(value, lo, hi, scale))
    }

    /// Every item within the search's size limits ([`check_item_size`]).
    pub fn check_size(&self) -> Result<()> {
        for (name, item) in &self.items {
            match item {
                Item::State { matrix, generator } => check_item_size(
                    name,
                    "state",
                    matrix.nrows().max(matrix.ncols()).max(generator.ncols()),
                    super::MAX_DIM,
                )?,
                Item::Channel { isometry, d_out } => {
                    check_item_size(
                        name,
                        "channel",
                        isometry.ncols().max(*d_out),
                        super::MAX_DIM,
                    )?;
                    // k·d_out rows with k ≤ d_in·d_out Kraus operators: at most d_in·d_out² ≤
                    // MAX_DIM³ rows
                    check_item_size(
                        name,
                        "channel's Stinespring isometry (rows)",
                        isometry.nrows(),
                        super::MAX_DIM * super::MAX_DIM * super::MAX_DIM,
                    )?
                }
                Item::Distribution(p) => {
                    check_item_size(name, "distribution", p.len(), MAX_DISTRIBUTION_LEN)?
                }
                Item::Scalar { .. } => {}
            }
        }
        Ok(())
    }

    /// The items, in order.
    pub fn items(&self) -> &[(String, Item)] {
        &self.items
    }

    /// Record how the instance was drawn (ensemble names), for reports.
    pub fn tagged(mut self, tag: impl Into<String>) -> Self {
        self.tags.push(tag.into());
        self
    }

    /// The tags recorded by [`Instance::tagged`].
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    fn get(&self, name: &str) -> Option<&Item> {
        self.items.iter().find(|(n, _)| n == name).map(|(_, i)| i)
    }

    /// The state `name`, validated and decomposed with `backend`.
    pub fn state(&self, name: &str, backend: Backend) -> Result<DensityMatrix> {
        match self.get(name) {
            Some(Item::State { matrix, .. }) => {
                DensityMatrix::with_options(matrix.clone(), Tolerance::default(), backend)
            }
            _ => Err(missing(name, "state")),
        }
    }

    /// The distribution `name`.
    pub fn distribution(&self, name: &str) -> Result<&[f64]> {
        match self.get(name) {
            Some(Item::Distribution(p)) => Ok(p),
            _ => Err(missing(name, "distribution")),
        }
    }

    /// The channel `name`.
    pub fn channel(&self, name: &str) -> Result<Channel> {
        match self.get(name) {
            Some(Item::Channel { isometry, d_out }) => {
                let k = isometry.nrows() / d_out;
                Channel::new(
                    (0..k)
                        .map(|i| {
                            isometry
                                .slice(s![i * d_out..(i + 1) * d_out, ..])
                                .to_owned()
                        })
                        .collect(),
                )
            }
            _ => Err(missing(name, "channel")),
        }
    }

    /// The scalar `name`.
    pub fn scalar(&self, name: &str) -> Result<f64> {
        match self.get(name) {
            Some(Item::Scalar { value, .. }) => Ok(*value),
            _ => Err(missing(name, "scalar")),
        }
    }

    /// Every item moved by [`Item::perturbed`] with relative size `step`.
    pub fn perturbed<R: Rng + ?Sized>(&self, step: f64, rng: &mut R) -> Instance {
        Instance {
            items: self
                .items
                .iter()
                .map(|(n, it)| (n.clone(), it.perturbed(step, rng)))
                .collect(),
            tags: self.tags.clone(),
        }
    }

    /// Only item `index` moved (the others unchanged); out-of-range indices move nothing.
    pub fn perturbed_item<R: Rng + ?Sized>(
        &self,
        index: usize,
        step: f64,
        rng: &mut R,
    ) -> Instance {
        let mut out = self.clone();
        if let Some((_, it)) = out.items.get_mut(index) {
            *it = it.perturbed(step, rng);
        }
        out
    }

    /// JSON description. Matrices go to `.npy` files `<stem>-<name>.npy` next to `dir` when `dir`
    /// is given (the JSON then names the file), and inline (`{"re": …, "im": …}`) otherwise.
    pub fn to_json(&self, files: Option<(&Path, &str)>) -> Result<Value> {
        let mut out = Vec::new();
        for (name, item) in &self.items {
            let mut v = json!({ "name": name, "kind": item.kind() });
            let matrix = match item {
                Item::State { matrix, .. } => Some(matrix),
                Item::Channel { isometry, d_out } => {
                    v["d_out"] = json!(d_out);
                    Some(isometry)
                }
                Item::Distribution(p) => {
                    v["values"] = json!(p);
                    None
                }
                Item::Scalar {
                    value,
                    lo,
                    hi,
                    scale,
                } => {
                    v["value"] = json!(value);
                    v["lo"] = crate_json_number(*lo);
                    v["hi"] = crate_json_number(*hi);
                    v["scale"] = match scale {
                        Scale::Linear => json!("linear"),
                        Scale::Log { offset } => json!({ "log_offset": offset }),
                    };
                    None
                }
            };
            if let Some(m) = matrix {
                match files {
                    Some((dir, stem)) => {
                        let file = format!("{stem}-{name}.npy");
                        write_matrix(dir.join(&file), m)?;
                        v["file"] = json!(file);
                    }
                    None => {
                        v["matrix"] = serde_json::to_value(crate::io::JsonMatrix::from_array(m))
                            .map_err(|e| Error::Parse {
                                what: "matrix".into(),
                                reason: e.to_string(),
                            })?
                    }
                }
            }
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    /// Rebuild an instance from [`Instance::to_json`] output; `.npy` files are looked up in `dir`.
    pub fn from_json(v: &Value, dir: &Path) -> Result<Instance> {
        let bad = |why: String| Error::Parse {
            what: "instance JSON".into(),
            reason: why,
        };
        let arr = v
            .as_array()
            .ok_or_else(|| bad("expected a list of items".into()))?;
        let mut inst = Instance::new();
        for it in arr {
            let name = it["name"]
                .as_str()
                .ok_or_else(|| bad("item without \"name\"".into()))?;
            if let Some(f) = it.get("file") {
                // a plain file name beside the JSON document: no directories, no `..`
                let plain = f.as_str().is_some_and(|f| {
                    let mut c = Path::new(f).components();
                    matches!(
                        (c.next(), c.next()),
                        (Some(std::path::Component::Normal(_)), None)
                    )
                });
                if !plain {
                    return Err(bad(format!(
                        "{name}: file {f} must be a plain file name in the document's directory"
                    )));
                }
            }
            let matrix = || -> Result<Array2<Complex64>> {
                if let Some(f) = it["file"].as_str() {
                    read_matrix(dir.join(f))
                } else {
                    let jm: crate::io::JsonMatrix = serde_json::from_value(it["matrix"].clone())
                        .map_err(|e| bad(format!("{name}: {e}")))?;
                    jm.to_array()
                }
            };
            let num = |key: &str| -> Result<f64> {
                match &it[key] {
                    Value::String(s) if s == "inf" => Ok(f64::INFINITY),
                    Value::String(s) if s == "-inf" => Ok(f64::NEG_INFINITY),
                    x => x
                        .as_f64()
                        .ok_or_else(|| bad(format!("{name}: missing number {key:?}"))),
                }
            };
            let item = match it["kind"].as_str() {
                Some("state") => {
                    let m = matrix()?;
                    // before the O(d³) validation and decomposition
                    check_item_size(name, "state", m.nrows().max(m.ncols()), super::MAX_DIM)?;
                    let rho = DensityMatrix::new(m)?;
                    Item::state_from_matrix(&rho)?
                }
                Some("distribution") => Item::Distribution(
                    serde_json::from_value(it["values"].clone())
                        .map_err(|e| bad(format!("{name}: {e}")))?,
                ),
                Some("channel") => {
                    let d_out = it["d_out"]
                        .as_u64()
                        .ok_or_else(|| bad(format!("{name}: missing d_out")))?
                        as usize;
                    let isometry = matrix()?;
                    if d_out == 0 || isometry.nrows() % d_out != 0 {
                        return Err(bad(format!("{name}: bad channel shape")));
                    }
                    Item::Channel { isometry, d_out }
                }
                Some("scalar") => Item::Scalar {
                    value: num("value")?,
                    lo: num("lo")?,
                    hi: num("hi")?,
                    scale: match it["scale"].get("log_offset").and_then(Value::as_f64) {
                        Some(offset) => Scale::Log { offset },
                        None => Scale::Linear,
                    },
                },
                other => return Err(bad(format!("{name}: unknown kind {other:?}"))),
            };
            inst = inst.with(name, item);
        }
        inst.check_size()?;
        Ok(inst)
    }
}

use crate::io::json_number as crate_json_number;

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn perturbation_keeps_validity_and_json_round_trips() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let inst = Instance::new()
            .with("rho", Item::state_from_generator(ginibre(3, 2, &mut rng)))
            .with("p", Item::Distribution(vec![0.5, 0.0, 0.5]))
            .with(
                "phi",
                Item::channel(&Channel::random(3, 2, 2, &mut rng).unwrap()),
            )
            .with_scalar("alpha", 2.0, 1.0, 100.0, Scale::Log { offset: 1.0 });
        let moved = inst.perturbed(0.5, &mut rng);
        let rho = moved.state("rho", Backend::default()).unwrap();
        assert_eq!(rho.rank().unwrap(), 2);
        assert_eq!(moved.distribution("p").unwrap()[1], 0.0);
        assert!(moved.channel("phi").is_ok());
        let a = moved.scalar("alpha").unwrap();
        assert!((1.0..=100.0).contains(&a));
        let j = moved.to_json(None).unwrap();
        let back = Instance::from_json(&j, Path::new(".")).unwrap();
        assert_eq!(
            back.state("rho", Backend::default()).unwrap().matrix(),
            rho.matrix()
        );
        assert_eq!(back.scalar("alpha").unwrap(), a);
        assert_eq!(
            back.distribution("p").unwrap(),
            moved.distribution("p").unwrap()
        );
    }
}
