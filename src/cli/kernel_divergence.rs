//! `qrenyi kernel-divergence --x X.npy --y Y.npy --alpha A[,A…] --lambda L [--bandwidth VALUE]
//! [--kernel rbf|laplace|imq] [--base b] [--json]`.

use super::json_number;
use qrenyi::kernel::{median_bandwidth, Kernel, KernelDivergence, KernelKind};
use qrenyi::Result;
use serde_json::json;
use std::path::{Path, PathBuf};

/// Arguments of `qrenyi kernel-divergence`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// First sample X (n×d): .npy float64 or CSV.
    #[arg(long)]
    pub x: PathBuf,
    /// Second sample Y (m×d): .npy float64 or CSV.
    #[arg(long)]
    pub y: PathBuf,
    /// Rényi orders α > 0, comma separated (`inf` allowed).
    #[arg(long, value_parser = super::parse_list)]
    pub alpha: super::NumList,
    /// Regularisation λ ≥ 0 (0: unregularised kernel Rényi divergence).
    #[arg(long, value_parser = parse_number)]
    pub lambda: f64,
    /// Kernel bandwidth: a positive number, or `median` (median distance between X and Y).
    #[arg(long, default_value = "median")]
    pub bandwidth: String,
    /// Kernel: rbf = exp(−‖x−y‖²/b²) (the paper's convention), laplace = exp(−‖x−y‖/b),
    /// imq = (1 + ‖x−y‖²/b²)^(−1/2).
    #[arg(long, default_value = "rbf")]
    pub kernel: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub base: super::BaseArg,
}

/// Parse one number; `inf` allowed, NaN rejected (clap value parser).
pub fn parse_number(s: &str) -> std::result::Result<f64, String> {
    super::parse_list(s).and_then(|l| match l.0.as_slice() {
        [v] => Ok(*v),
        _ => Err(format!("{s:?}: expected one number")),
    })
}

/// Read the two samples and build the kernel (`median` bandwidth from `pilot` if given, else
/// from the samples).
pub fn load(
    x: &Path,
    y: &Path,
    kernel: &str,
    bandwidth: &str,
    pilot: Option<(&Path, &Path)>,
) -> Result<(ndarray::Array2<f64>, ndarray::Array2<f64>, Kernel)> {
    let xs = qrenyi::io::read_real_matrix(x)?;
    let ys = qrenyi::io::read_real_matrix(y)?;
    let kind: KernelKind = kernel.parse()?;
    let b = if bandwidth == "median" {
        match pilot {
            Some((px, py)) => {
                let (px, py) = (
                    qrenyi::io::read_real_matrix(px)?,
                    qrenyi::io::read_real_matrix(py)?,
                );
                median_bandwidth(px.view(), py.view())?
            }
            None => median_bandwidth(xs.view(), ys.view())?,
        }
    } else {
        bandwidth.parse::<f64>().map_err(|e| qrenyi::Error::Parse {
            what: "--bandwidth".into(),
            reason: format!("{bandwidth:?}: expected `median` or a number ({e})"),
        })?
    };
    Ok((xs, ys, Kernel::new(kind, b)?))
}

/// Run `qrenyi kernel-divergence`.
pub fn run(args: &Args) -> Result<i32> {
    let (x, y, kernel) = load(&args.x, &args.y, &args.kernel, &args.bandwidth, None)?;
    let est = KernelDivergence::from_samples(x.view(), y.view(), &kernel)?;
    let base = args.base.base;
    let rows: Vec<(f64, f64)> = args
        .alpha
        .0
        .iter()
        .map(|&a| Ok((a, base.scale(est.divergence(a, args.lambda)?))))
        .collect::<Result<_>>()?;
    if args.json {
        println!(
            "{}",
            json!({
                "results": rows.iter().map(|(a, v)| json!({"alpha": json_number(*a), "value": json_number(*v)})).collect::<Vec<_>>(),
                "base": base.to_string(),
                "bandwidth": kernel.bandwidth(),
                "kernel": kernel.kind().name(),
                "lambda": args.lambda,
                "n": est.n(),
                "m": est.m(),
            })
        );
    } else {
        for (a, v) in rows {
            println!(
                "D_(α={}, λ={}) = {} {}   ({} kernel, bandwidth {}, n = {}, m = {})",
                super::fmt_param(a),
                args.lambda,
                super::fmt_value(v),
                base.unit(),
                kernel.kind().name(),
                kernel.bandwidth(),
                est.n(),
                est.m()
            );
        }
    }
    Ok(0)
}
