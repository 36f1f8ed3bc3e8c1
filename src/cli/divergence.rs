//! `qrenyi divergence --kind K --rho A.npy --sigma B.npy [--alpha …] [--gamma …] [--base b]
//! [--normalize] [--json]`.
//!
//! Either input may be a stack `(n, d, d)` (a 3-D `.npy`/`.npz` array or JSON list): every pair is
//! evaluated (a single matrix on the other side is broadcast) through `divergence::batch`, and the
//! output has one line per pair — JSON Lines with `--json`, each line the single-pair object.

use super::{fmt_param, fmt_value, json_number, parse_list, BaseArg, NumList};
use qrenyi::divergence::{batch, Family, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::{DensityMatrix, Tolerance};
use qrenyi::Result;
use serde_json::json;

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
    /// First state ρ, or a stack of states: .npy/.npz (complex128, float64, complex64, float32;
    /// (d, d) or (n, d, d)), FILE.npz:NAME for one array of an archive, or .json ({"re": …,
    /// "im": …} or a plain nested list).
    #[arg(long)]
    pub rho: String,
    /// Second state σ, or a stack (a single matrix is paired with every state of the other stack).
    #[arg(long)]
    pub sigma: String,
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
    #[command(flatten)]
    pub load: LoadArgs,
    /// Print JSON instead of a table (JSON Lines, one object per pair, for stacks).
    #[arg(long)]
    pub json: bool,
    /// Draw the α-curve of petz/sandwiched/maximal (one pair) into this file (.svg or .png),
    /// with the α = 1 limit and the α = ∞ limit marked.
    #[arg(long)]
    pub plot: Option<std::path::PathBuf>,
}

/// How input matrices are read and validated (shared by the commands that read states).
#[derive(clap::Args, Debug, Clone)]
pub struct LoadArgs {
    /// Eigensolver backend: auto (nalgebra at small d, LAPACK and faer above, the GPU from d = 128
    /// when built with `cuda` and one is present), lapack, lapack-mrrr, nalgebra, faer or cuda
    /// (NVIDIA GPU; needs the `cuda` build feature).
    #[arg(long, default_value = "auto")]
    pub backend: String,
    /// Base validation tolerance (scaled by √d and the matrix size, see docs/conventions.md;
    /// at least 2^-20 for float32/complex64 inputs).
    #[arg(long, default_value_t = 1e-10, allow_negative_numbers = true)]
    pub tolerance: f64,
    /// Divide each input matrix by its trace before validation (for unnormalised PSD inputs;
    /// a note on stderr says so). Without it a trace ≠ 1 is an error.
    #[arg(long)]
    pub normalize: bool,
}

impl LoadArgs {
    /// Read and validate the states of one input (a single matrix or a stack); `stacked` says which.
    /// With `decompose` a single matrix (not a stack) is validated from its eigendecomposition,
    /// which is kept, for computations that need it anyway (`DensityMatrix::with_options_decomposed`).
    pub fn load(&self, spec: &str, decompose: bool) -> Result<(Vec<DensityMatrix>, bool)> {
        load_states_with(
            spec,
            &self.backend,
            self.tolerance,
            self.normalize,
            decompose,
        )
    }
    /// Read and validate one state (a stack is an error).
    pub fn load_one(&self, spec: &str) -> Result<DensityMatrix> {
        load_state(spec, &self.backend, self.tolerance, self.normalize)
    }
}

/// [`load_states`] for commands that take one state: a stack is an error naming its size.
pub fn load_state(
    spec: &str,
    backend: &str,
    tolerance: f64,
    normalize: bool,
) -> Result<DensityMatrix> {
    let (mut states, stacked) = load_states(spec, backend, tolerance, normalize)?;
    if stacked {
        return Err(qrenyi::Error::Parse {
            what: spec.to_string(),
            reason: format!(
                "a stack of {} matrices; this command takes one state",
                states.len()
            ),
        });
    }
    Ok(states.remove(0))
}

/// Read and validate every matrix of `spec` with the given backend and tolerance (raised to
/// [`qrenyi::io::SINGLE_PRECISION_TOLERANCE`] for single-precision files), dividing by the trace
/// first when `normalize`. Errors name the file (and the index within a stack).
pub fn load_states(
    spec: &str,
    backend: &str,
    tolerance: f64,
    normalize: bool,
) -> Result<(Vec<DensityMatrix>, bool)> {
    load_states_with(spec, backend, tolerance, normalize, false)
}

/// [`load_states`]; with `decompose`, a single matrix (a stack keeps the Cholesky check: its
/// decompositions run later, in parallel) is validated from its eigendecomposition, which is kept.
fn load_states_with(
    spec: &str,
    backend: &str,
    tolerance: f64,
    normalize: bool,
    decompose: bool,
) -> Result<(Vec<DensityMatrix>, bool)> {
    let backend = if backend == "default" || backend == "auto" {
        Backend::default()
    } else {
        backend.parse()?
    };
    Tolerance { base: tolerance }.check()?;
    let stack = qrenyi::io::read_stack(spec)?;
    let tol = if stack.single_precision {
        tolerance.max(qrenyi::io::SINGLE_PRECISION_TOLERANCE)
    } else {
        tolerance
    };
    let n = stack.matrices.shape()[0];
    let name = |k: usize| {
        if stack.stacked {
            format!("{spec}[{k}]")
        } else {
            spec.to_string()
        }
    };
    let mut states = Vec::with_capacity(n);
    for (k, m) in stack.matrices.outer_iter().enumerate() {
        let mut m = m.to_owned();
        if normalize {
            let tr: f64 = m.diag().iter().map(|z| z.re).sum();
            if !(tr > 0.0 && tr.is_finite()) {
                return Err(qrenyi::Error::Parse {
                    what: name(k),
                    reason: format!("--normalize: the trace is {tr}, not positive"),
                });
            }
            if (tr - 1.0).abs() > tol {
                eprintln!(
                    "note: {} divided by its trace {} (--normalize)",
                    name(k),
                    fmt_value(tr)
                );
            }
            m.mapv_inplace(|z| z / tr);
        }
        let tolerance = Tolerance { base: tol };
        let state = if decompose && !stack.stacked {
            DensityMatrix::with_options_decomposed(m, tolerance, backend)
        } else {
            DensityMatrix::with_options(m, tolerance, backend)
        }
        .map_err(|e| qrenyi::Error::Parse {
            what: name(k),
            reason: e.to_string(),
        })?;
        states.push(state);
    }
    Ok((states, stack.stacked))
}

/// The rows `(parameter, value)` of one pair, in nats.
fn evaluate(kind: Kind, pair: &Pair, alphas: &[f64], gammas: &[f64]) -> Result<Vec<(f64, f64)>> {
    Ok(match kind {
        Kind::Petz | Kind::Sandwiched | Kind::Maximal => {
            let family = match kind {
                Kind::Petz => Family::Petz,
                Kind::Sandwiched => Family::Sandwiched,
                _ => Family::Maximal,
            };
            alphas
                .iter()
                .copied()
                .zip(pair.curve(family, alphas)?)
                .collect()
        }
        Kind::HockeyStick => gammas
            .iter()
            .map(|&g| pair.hockey_stick(g).map(|v| (g, v)))
            .collect::<Result<_>>()?,
        Kind::Umegaki => vec![(0.0, pair.umegaki()?)],
        Kind::Bs => vec![(0.0, pair.belavkin_staszewski()?)],
        Kind::Max => vec![(0.0, pair.max_relative_entropy()?)],
        Kind::TraceDistance => vec![(0.0, pair.trace_distance()?)],
        Kind::Fidelity => vec![(0.0, pair.fidelity()?)],
        Kind::SquaredFidelity => vec![(0.0, pair.squared_fidelity()?)],
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
    if let Some(p) = &args.plot {
        super::plot::format_of(p)?;
        if !takes_alpha {
            return Err(qrenyi::Error::Parse {
                what: "--plot".into(),
                reason: format!("draws α-curves: does not apply to --kind {kind_name}"),
            });
        }
    }
    let (results, dims, stacked) = match gpu_direct(args, alphas) {
        Some((rows, d)) => (vec![Ok(rows)], vec![d], false),
        None => states_route(args, alphas, gammas)?,
    };
    let base = args.base.base;
    let param = match args.kind {
        Kind::Petz | Kind::Sandwiched | Kind::Maximal => Some("alpha"),
        Kind::HockeyStick => Some("gamma"),
        _ => None,
    };
    let unit = if args.kind.is_logarithmic() {
        format!(", {}", base.unit())
    } else {
        String::new()
    };
    for (k, rows) in results.into_iter().enumerate() {
        let rows = rows.map_err(|e| {
            if stacked {
                qrenyi::Error::Parse {
                    what: format!("pair {k}"),
                    reason: e.to_string(),
                }
            } else {
                e
            }
        })?;
        let rows: Vec<(f64, f64)> = if args.kind.is_logarithmic() {
            rows.into_iter().map(|(x, v)| (x, base.scale(v))).collect()
        } else {
            rows
        };
        let d = dims[k];
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
        } else if stacked {
            let values = match param {
                Some(p) => rows
                    .iter()
                    .map(|(x, v)| format!("{p}={}: {}", fmt_param(*x), fmt_value(*v)))
                    .collect::<Vec<_>>()
                    .join("  "),
                None => fmt_value(rows[0].1),
            };
            println!("pair {k}: {kind_name} (d = {d}{unit})  {values}");
        } else {
            match param {
                Some(p) => {
                    println!("{kind_name}   (d = {d}{unit})");
                    println!("{:>12}  {:>20}", p, "value");
                    for (x, v) in &rows {
                        println!("{:>12}  {:>20}", fmt_param(*x), fmt_value(*v));
                    }
                }
                None => println!("{kind_name} = {}   (d = {d}{unit})", fmt_value(rows[0].1)),
            }
        }
    }
    Ok(0)
}

/// Rows of every pair, the pairs' dimensions and whether an input was a stack.
type Evaluated = (Vec<Result<Vec<(f64, f64)>>>, Vec<usize>, bool);

/// The states route of `divergence`: load and validate the states, then evaluate every pair.
fn states_route(args: &Args, alphas: &[f64], gammas: &[f64]) -> Result<Evaluated> {
    // validation that reuses work: a state the computation decomposes anyway is checked from its
    // eigenvalues (no Cholesky); the hockey-stick and trace distance decompose neither state, nor
    // do Petz and maximal at α = 2 alone; the sandwiched orders α > 1 only σ (`Pair`'s direct route)
    let (decompose_rho, decompose_sigma) = match args.kind {
        Kind::HockeyStick | Kind::TraceDistance => (false, false),
        Kind::Sandwiched if alphas.iter().all(|&a| a > 1.0 && a.is_finite()) => (false, true),
        // Petz and maximal at α = 2 only: the Cholesky route (docs/divergences.md,
        // "order_two_cholesky") decomposes neither state
        Kind::Petz | Kind::Maximal if !alphas.is_empty() && alphas.iter().all(|&a| a == 2.0) => {
            (false, false)
        }
        // maximal at finite orders α ≥ 1: the whitened route (docs/divergences.md,
        // "maximal_whitened") decomposes neither state; where it declines (or a curve at
        // d < WHITENED_CURVE_FROM) the pair decomposes both then
        Kind::Maximal
            if !alphas.is_empty() && alphas.iter().all(|&a| a >= 1.0 && a.is_finite()) =>
        {
            (false, false)
        }
        _ => (true, true),
    };
    // (sequential when --normalize may print notes, so that they keep their order)
    let sequential = decompose_rho || decompose_sigma || args.load.normalize;
    let ((rhos, rho_stacked), (sigmas, sigma_stacked)) = if sequential {
        (
            args.load.load(&args.rho, decompose_rho)?,
            args.load.load(&args.sigma, decompose_sigma)?,
        )
    } else {
        // two Cholesky checks side by side, one BLAS thread each (thread policy); ρ's error first
        let (r, s) = qrenyi::spectral::with_single_blas_thread(|| {
            rayon::join(
                || args.load.load(&args.rho, false),
                || args.load.load(&args.sigma, false),
            )
        });
        (r?, s?)
    };
    if rho_stacked && sigma_stacked && rhos.len() != sigmas.len() {
        return Err(qrenyi::Error::DimensionMismatch {
            what: "number of states in the --rho and --sigma stacks".into(),
            left: rhos.len(),
            right: sigmas.len(),
        });
    }
    let n = rhos.len().max(sigmas.len());
    let pairs: Vec<(DensityMatrix, DensityMatrix)> = (0..n)
        .map(|k| {
            (
                rhos[k.min(rhos.len() - 1)].clone(),
                sigmas[k.min(sigmas.len() - 1)].clone(),
            )
        })
        .collect();
    if let Some(p) = &args.plot {
        if n > 1 {
            return Err(qrenyi::Error::Parse {
                what: "--plot".into(),
                reason: format!("draws one pair's α-curve; the inputs hold {n} pairs"),
            });
        }
        plot_curve(p, args, &Pair::new(&pairs[0].0, &pairs[0].1)?, alphas)?;
    }
    let bar = super::progress(None, "{spinner} computing  {elapsed}");
    let kind = args.kind;
    let results = batch::map(&pairs, |pair| evaluate(kind, pair, alphas, gammas));
    bar.finish_and_clear();
    let dims = pairs.iter().map(|(r, _)| r.dim()).collect();
    Ok((results, dims, rho_stacked || sigma_stacked))
}

/// The GPU route of `divergence` (feature `cuda`): sandwiched orders α > 1 of two single matrices
/// (no stacks, no `--normalize`, no `--plot`) with the GPU backend (`--backend cuda`, or `auto`
/// when a GPU is present and `d` reaches its crossover) go straight from the raw files to the
/// device, validation included (`divergence::sandwiched_from_matrices`: σ decomposed, ρ not).
/// `None` sends the call to the states route — also on any error, which that route then reports
/// with the name of the file at fault.
#[cfg(feature = "cuda")]
fn gpu_direct(args: &Args, alphas: &[f64]) -> Option<(Vec<(f64, f64)>, usize)> {
    let backend: Backend = match args.load.backend.as_str() {
        "default" | "auto" => Backend::default(),
        other => other.parse().ok()?,
    };
    let direct = args.kind == Kind::Sandwiched
        && !alphas.is_empty()
        && alphas.iter().all(|&a| a > 1.0 && a.is_finite())
        && !args.load.normalize
        && args.plot.is_none();
    if !direct {
        return None;
    }
    let mut trace = qrenyi::spectral::cuda::Trace::new();
    let (r, s) = (
        qrenyi::io::read_stack(&args.rho).ok()?,
        qrenyi::io::read_stack(&args.sigma).ok()?,
    );
    trace.mark_host("cli: read both files");
    if r.stacked || s.stacked || r.single_precision || s.single_precision {
        return None;
    }
    let d = r.matrices.shape()[1];
    if !backend.uses_gpu(d) {
        return None;
    }
    let take = |m: ndarray::Array3<num_complex::Complex64>| {
        m.index_axis_move(ndarray::Axis(0), 0)
            .as_standard_layout()
            .into_owned()
    };
    let tol = Tolerance {
        base: args.load.tolerance,
    };
    let values = qrenyi::divergence::sandwiched_from_matrices(
        take(r.matrices),
        take(s.matrices),
        alphas,
        tol,
        backend,
    )
    .ok()?;
    trace.mark_host("cli: layout + sandwiched_from_matrices");
    Some((alphas.iter().copied().zip(values).collect(), d))
}

/// Without the `cuda` feature every call takes the states route.
#[cfg(not(feature = "cuda"))]
fn gpu_direct(_: &Args, _: &[f64]) -> Option<(Vec<(f64, f64)>, usize)> {
    None
}

/// The α-curve of one pair on a log-spaced grid covering the requested orders, with the α = 1
/// limit (a marker) and the α = ∞ limit (a horizontal line) marked; values in `--base`.
fn plot_curve(path: &std::path::Path, args: &Args, pair: &Pair, alphas: &[f64]) -> Result<()> {
    let family = match args.kind {
        Kind::Petz => Family::Petz,
        Kind::Sandwiched => Family::Sandwiched,
        _ => Family::Maximal,
    };
    let base = args.base.base;
    let finite = alphas.iter().copied().filter(|a| a.is_finite() && *a > 0.0);
    let lo = finite.clone().fold(0.1f64, f64::min).max(1e-3);
    let hi = finite.fold(10.0f64, f64::max);
    let n = 240;
    let grid: Vec<f64> = (0..=n)
        .map(|i| lo * (hi / lo).powf(i as f64 / n as f64))
        .collect();
    let curve = pair.curve(family, &grid)?;
    let limits = pair.curve(family, &[1.0, f64::INFINITY])?;
    let (d1, dinf) = (base.scale(limits[0]), base.scale(limits[1]));
    use super::plot::{draw, Figure, Series};
    let mut series = vec![
        Series {
            label: format!("{} D_α", family.name()),
            points: grid
                .iter()
                .zip(&curve)
                .map(|(&a, &v)| (a, base.scale(v)))
                .collect(),
            markers: false,
        },
        Series {
            label: format!("α = 1 limit: {}", fmt_value(d1)),
            points: vec![(1.0, d1)],
            markers: true,
        },
    ];
    if dinf.is_finite() {
        series.push(Series {
            label: format!("α = ∞ limit: {}", fmt_value(dinf)),
            points: vec![(lo, dinf), (hi, dinf)],
            markers: false,
        });
    }
    draw(
        path,
        &Figure {
            title: format!(
                "{} Rényi divergence (d = {})",
                family.name(),
                pair.rho().dim()
            ),
            x_desc: "α".into(),
            y_desc: format!("D_α ({})", base.unit()),
            series,
        },
    )
}
