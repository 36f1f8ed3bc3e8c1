//! `qrenyi divergence --kind K --rho A.npy --sigma B.npy [--alpha …] [--gamma …] [--json]`.

use super::{fmt_param, fmt_value, json_number, parse_list, BaseArg, NumList};
use qrenyi::divergence::{Family, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::{DensityMatrix, Tolerance};
use qrenyi::Result;
use serde_json::json;
use std::path::PathBuf;

/// Which quantity to compute.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Petz Rényi divergence D̄_α (needs --alpha).
    Petz,
    /// Sandwiched Rényi divergence D̃_α (needs --alpha).
    Sandwiched,
    /// Maximal (geometric) Rényi divergence D̂_α (needs --alpha).
    Maximal,
    /// Umegaki relative entropy Tr ρ(ln ρ − ln σ).
    Umegaki,
    /// Belavkin–Staszewski relative entropy.
    Bs,
    /// Max-relative entropy D_max.
    Max,
    /// Hockey-stick divergence E_γ = Tr(ρ − γσ)_+ (needs --gamma).
    HockeyStick,
    /// Trace distance ½‖ρ − σ‖₁.
    TraceDistance,
    /// Root fidelity F = ‖√ρ√σ‖₁ = Tr|√ρ√σ| (Nielsen–Chuang, QuTiP, toqito).
    Fidelity,
    /// Squared fidelity F² = (Tr|√ρ√σ|)².
    SquaredFidelity,
}

impl Kind {
    /// Whether the value is a logarithm (a divergence, scaled by `--base`); probabilities and
    /// fidelities are not.
    fn is_logarithmic(self) -> bool {
        !matches!(
            self,
            Kind::HockeyStick | Kind::TraceDistance | Kind::Fidelity | Kind::SquaredFidelity
        )
    }
}

/// Arguments of `qrenyi divergence`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Quantity to compute.
    #[arg(long, value_enum)]
    pub kind: Kind,
    /// First state ρ (.npy complex128/float64, or .json {"re": [[…]], "im": [[…]]}).
    #[arg(long)]
    pub rho: PathBuf,
    /// Second state σ.
    #[arg(long)]
    pub sigma: PathBuf,
    /// Rényi orders, comma separated (`inf` allowed); only for petz, sandwiched, maximal
    /// (default 0.5,1,2,inf; an error with any other kind).
    #[arg(long, value_parser = parse_list)]
    pub alpha: Option<NumList>,
    /// Hockey-stick parameters γ ≥ 0, comma separated; only for hockey-stick (default 1; an error
    /// with any other kind).
    #[arg(long, value_parser = parse_list)]
    pub gamma: Option<NumList>,
    #[command(flatten)]
    pub base: BaseArg,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Eigensolver backend: auto (nalgebra at small d, LAPACK and faer above, the GPU from d = 128
    /// when built with `cuda` and one is present), lapack, lapack-mrrr, nalgebra, faer or cuda
    /// (NVIDIA GPU; needs the `cuda` build feature).
    #[arg(long, default_value = "auto")]
    pub backend: String,
    /// Base validation tolerance (scaled by √d and the matrix size, see docs/conventions.md).
    #[arg(long, default_value_t = 1e-10)]
    pub tolerance: f64,
}

/// Read and validate a density matrix from a file with the given backend and tolerance.
pub fn load_state(path: &std::path::Path, backend: &str, tolerance: f64) -> Result<DensityMatrix> {
    let backend = if backend == "default" || backend == "auto" {
        Backend::default()
    } else {
        backend.parse()?
    };
    Tolerance { base: tolerance }.check()?;
    let m = qrenyi::io::read_matrix(path)?;
    DensityMatrix::with_options(m, Tolerance { base: tolerance }, backend).map_err(|e| {
        qrenyi::Error::Parse {
            what: path.display().to_string(),
            reason: e.to_string(),
        }
    })
}

/// Run `qrenyi divergence`.
pub fn run(args: &Args) -> Result<i32> {
    let kind_name = clap::ValueEnum::to_possible_value(&args.kind)
        .map(|v| v.get_name().to_string())
        .unwrap_or_default();
    let takes_alpha = matches!(args.kind, Kind::Petz | Kind::Sandwiched | Kind::Maximal);
    let takes_gamma = args.kind == Kind::HockeyStick;
    for (given, applies, flag) in [
        (args.alpha.is_some(), takes_alpha, "--alpha"),
        (args.gamma.is_some(), takes_gamma, "--gamma"),
    ] {
        if given && !applies {
            return Err(qrenyi::Error::Parse {
                what: flag.into(),
                reason: format!("does not apply to --kind {kind_name}"),
            });
        }
    }
    let default_alpha = NumList(vec![0.5, 1.0, 2.0, f64::INFINITY]);
    let alphas = &args.alpha.as_ref().unwrap_or(&default_alpha).0;
    let gammas = &args.gamma.as_ref().map_or(vec![1.0], |g| g.0.clone());
    let rho = load_state(&args.rho, &args.backend, args.tolerance)?;
    let sigma = load_state(&args.sigma, &args.backend, args.tolerance)?;
    let pair = Pair::new(&rho, &sigma)?;
    let (param, rows): (Option<&str>, Vec<(f64, f64)>) = match args.kind {
        Kind::Petz | Kind::Sandwiched | Kind::Maximal => {
            let family: Family = kind_name.parse()?;
            (
                Some("alpha"),
                alphas
                    .iter()
                    .copied()
                    .zip(pair.curve(family, alphas)?)
                    .collect(),
            )
        }
        Kind::HockeyStick => (
            Some("gamma"),
            gammas
                .iter()
                .map(|&g| pair.hockey_stick(g).map(|v| (g, v)))
                .collect::<Result<_>>()?,
        ),
        Kind::Umegaki => (None, vec![(0.0, pair.umegaki()?)]),
        Kind::Bs => (None, vec![(0.0, pair.belavkin_staszewski()?)]),
        Kind::Max => (None, vec![(0.0, pair.max_relative_entropy()?)]),
        Kind::TraceDistance => (None, vec![(0.0, pair.trace_distance()?)]),
        Kind::Fidelity => (None, vec![(0.0, pair.fidelity()?)]),
        Kind::SquaredFidelity => (None, vec![(0.0, pair.squared_fidelity()?)]),
    };
    let base = args.base.base;
    let rows: Vec<(f64, f64)> = if args.kind.is_logarithmic() {
        rows.into_iter().map(|(x, v)| (x, base.scale(v))).collect()
    } else {
        rows
    };
    if args.json {
        let out = match param {
            Some(p) => json!({
                "kind": kind_name,
                "base": base.to_string(),
                "results": rows.iter().map(|(x, v)| json!({ p: json_number(*x), "value": json_number(*v) })).collect::<Vec<_>>(),
            }),
            None => {
                json!({ "kind": kind_name, "base": base.to_string(), "value": json_number(rows[0].1) })
            }
        };
        println!("{out}");
    } else {
        let unit = if args.kind.is_logarithmic() {
            format!(", {}", base.unit())
        } else {
            String::new()
        };
        match param {
            Some(p) => {
                println!("{kind_name}   (d = {}{unit})", rho.dim());
                println!("{:>12}  {:>20}", p, "value");
                for (x, v) in &rows {
                    println!("{:>12}  {:>20}", fmt_param(*x), fmt_value(*v));
                }
            }
            None => println!(
                "{kind_name} = {}   (d = {}{unit})",
                fmt_value(rows[0].1),
                rho.dim()
            ),
        }
    }
    Ok(0)
}
