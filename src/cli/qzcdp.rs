//! `qrenyi qzcdp check|fit`: certified qzCDP checks and fits of a neighbouring pair.
//!
//! * `check --rho A --sigma B --xi X --zcdp-rho R [--family F] [--base B] [--json]` →
//!   `{"holds": bool, "witness_alpha": a|null, "margin": m, …}`; exit code 0 when certified,
//!   1 when violated or inconclusive.
//! * `fit --rho A --sigma B [--family F] [--xi X] [--base B] [--json] [--plot out.svg|png]` →
//!   `{"zcdp_rho": x, "alpha": a, …}`; the plot shows `D_α` and the line `ξ + ρα`.

use super::json_number;
use qrenyi::divergence::Family;
use qrenyi::privacy::qzcdp::{CertifyOptions, CheckResult, FitResult, Neighbours, Status};
use qrenyi::state::DensityMatrix;
use qrenyi::Result;
use serde_json::json;
use std::path::{Path, PathBuf};

/// The neighbouring pair as two state files, with the loader options.
#[derive(clap::Args, Debug)]
pub struct PairArgs {
    /// First state ρ = M(x) (.npy/.npz complex128/float64/complex64/float32, FILE.npz:NAME, or
    /// .json).
    #[arg(long)]
    pub rho: PathBuf,
    /// Second state σ = M(x').
    #[arg(long)]
    pub sigma: PathBuf,
    #[command(flatten)]
    pub load: super::divergence::LoadArgs,
}

impl PairArgs {
    /// Load and validate both states.
    pub fn load(&self) -> Result<(DensityMatrix, DensityMatrix)> {
        let one = |p: &Path| self.load.load_one(&p.to_string_lossy());
        Ok((one(&self.rho)?, one(&self.sigma)?))
    }
}

/// Family choice on the command line.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Sandwiched D̃_α (default; data processing for all α ≥ ½).
    Sandwiched,
    /// Maximal D̂_α (seed 000, Definition 21).
    Maximal,
    /// Petz D̄_α (warning: no data processing for α > 2).
    Petz,
}

impl From<Kind> for Family {
    fn from(k: Kind) -> Family {
        match k {
            Kind::Sandwiched => Family::Sandwiched,
            Kind::Maximal => Family::Maximal,
            Kind::Petz => Family::Petz,
        }
    }
}

/// Options shared by check and fit.
#[derive(clap::Args, Debug)]
pub struct Common {
    #[command(flatten)]
    pair: PairArgs,
    /// Rényi family.
    #[arg(long, value_enum, default_value = "sandwiched")]
    family: Kind,
    /// Also check/fit the reverse order D_α(σ‖ρ).
    #[arg(long)]
    symmetric: bool,
    /// Relative numerical slack on each divergence value (a conditioning term
    /// 16·d·ε·λ_max(ρ)/λ_min(σ) is always added).
    #[arg(long, default_value_t = 1e-10, allow_negative_numbers = true)]
    slack: f64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    base: super::BaseArg,
}

impl Common {
    fn neighbours(&self) -> Result<Neighbours> {
        let (r, s) = self.pair.load()?;
        Ok(Neighbours::quantum(r, s)?.symmetric(self.symmetric))
    }
}

/// Arguments of `qrenyi qzcdp`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Subcommand, Debug)]
enum Cmd {
    /// Certified check of D_α(ρ‖σ) ≤ ξ + ρα for all α > 1.
    Check {
        #[command(flatten)]
        common: Common,
        /// Offset ξ ≥ 0.
        #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
        xi: f64,
        /// Slope ρ ≥ 0.
        #[arg(long = "zcdp-rho", allow_negative_numbers = true)]
        zcdp_rho: f64,
    },
    /// Minimal ρ for a given ξ (certified upper bound within a relative tolerance).
    Fit {
        #[command(flatten)]
        common: Common,
        /// Offset ξ ≥ 0.
        #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
        xi: f64,
        /// Relative tolerance of the fit.
        #[arg(long, default_value_t = 1e-6, allow_negative_numbers = true)]
        fit_tolerance: f64,
        /// Draw D_α and the line ξ + ρα into this file (.svg or .png, from the extension).
        #[arg(long)]
        plot: Option<PathBuf>,
    },
}

fn opt_num(x: Option<f64>) -> serde_json::Value {
    x.map_or(serde_json::Value::Null, json_number)
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Holds => "holds",
        Status::Violated => "violated",
        Status::Inconclusive => "inconclusive",
    }
}

fn print_check(r: &CheckResult, json: bool, base: qrenyi::Base) {
    let margin = base.scale(r.margin);
    if json {
        let cover: Vec<_> = r
            .cover
            .iter()
            .map(|c| {
                json!([
                    json_number(c.lo),
                    json_number(c.hi),
                    json_number(base.scale(c.d_hi))
                ])
            })
            .collect();
        println!(
            "{}",
            json!({
                "holds": r.holds,
                "witness_alpha": opt_num(r.witness_alpha),
                "margin": json_number(margin),
                "base": base.to_string(),
                "status": status_name(r.status),
                "cover": cover,
                "evaluations": r.evaluations,
                "warnings": r.warnings,
            })
        );
    } else {
        println!("status: {}", status_name(r.status));
        if let Some(a) = r.witness_alpha {
            println!("witness α = {}", super::fmt_param(a));
        }
        println!("margin = {} {}", super::fmt_value(margin), base.unit());
        println!(
            "certified cover: {} intervals, {} divergence evaluations",
            r.cover.len(),
            r.evaluations
        );
        for w in &r.warnings {
            println!("warning: {w}");
        }
    }
}

fn print_fit(r: &FitResult, xi: f64, json: bool, base: qrenyi::Base) {
    let (rho, lower, xi) = (base.scale(r.rho), base.scale(r.lower), base.scale(xi));
    if json {
        println!(
            "{}",
            json!({
                "zcdp_rho": json_number(rho),
                "alpha": opt_num(r.alpha),
                "xi": json_number(xi),
                "lower": json_number(lower),
                "base": base.to_string(),
                "evaluations": r.evaluations,
                "warnings": r.warnings,
            })
        );
    } else {
        let unit = base.unit();
        println!(
            "ρ*(ξ = {}) ≤ {} {unit}",
            super::fmt_value(xi),
            super::fmt_value(rho)
        );
        println!("best value found {} {unit}", super::fmt_value(lower));
        if let Some(a) = r.alpha {
            println!("maximising α = {}", super::fmt_param(a));
        }
        for w in &r.warnings {
            println!("warning: {w}");
        }
    }
}

/// Run `qrenyi qzcdp`.
pub fn run(args: &Args) -> Result<i32> {
    match &args.cmd {
        Cmd::Check {
            common,
            xi,
            zcdp_rho,
        } => {
            let opts = CertifyOptions {
                slack: common.slack,
                ..Default::default()
            };
            let b = common.base.base;
            let r = common.neighbours()?.check(
                common.family.into(),
                b.to_nats(*xi),
                b.to_nats(*zcdp_rho),
                &opts,
            )?;
            print_check(&r, common.json, b);
            Ok(if r.holds { 0 } else { 1 })
        }
        Cmd::Fit {
            common,
            xi,
            fit_tolerance,
            plot,
        } => {
            let opts = CertifyOptions {
                slack: common.slack,
                tolerance: *fit_tolerance,
                ..Default::default()
            };
            if let Some(p) = plot {
                super::plot::format_of(p)?; // before the computation
            }
            let nb = common.neighbours()?;
            let family: Family = common.family.into();
            let xi = common.base.base.to_nats(*xi);
            let bar = super::progress(None, "{spinner} certified fit  {elapsed}");
            let r = nb.fit(family, xi, &opts);
            bar.finish_and_clear();
            let r = r?;
            if let Some(path) = plot {
                // the named file is replaced atomically (plot::draw)
                draw(path, &nb, family, xi, &r)?;
            }
            print_fit(&r, xi, common.json, common.base.base);
            Ok(0)
        }
    }
}

/// Plot of `α ↦ D_α` (worst case over the pairs) and the fitted line `ξ + ρα` (SVG or PNG, from
/// the extension).
fn draw(path: &Path, nb: &Neighbours, family: Family, xi: f64, fit: &FitResult) -> Result<()> {
    super::plot::format_of(path)?;
    let amax = fit
        .alpha
        .filter(|a| a.is_finite())
        .map_or(10.0, |a| (4.0 * a).max(10.0));
    let n = 200;
    let alphas: Vec<f64> = (0..=n)
        .map(|i| 1.0 + 1e-3 * ((amax - 1.0) / 1e-3).powf(i as f64 / n as f64))
        .collect();
    let d = nb.curve(family, &alphas)?;
    let rho = if fit.rho.is_finite() { fit.rho } else { 0.0 };
    let fig = super::plot::Figure {
        title: format!("{} D_α and ξ + ρα (ξ = {xi}, ρ = {rho:.6})", family.name()),
        x_desc: "α".into(),
        y_desc: "divergence (nats)".into(),
        series: vec![
            super::plot::Series {
                label: "D_α".into(),
                points: alphas.iter().copied().zip(d).collect(),
                markers: false,
            },
            super::plot::Series {
                label: "ξ + ρα".into(),
                points: alphas.iter().map(|&a| (a, xi + rho * a)).collect(),
                markers: false,
            },
        ],
    };
    super::plot::draw(path, &fig)
}
