//! `qrenyi audit --x X.npy --y Y.npy --alpha A[,A…] --lambda L [--bandwidth median|VALUE]
//! [--kernel rbf|laplace|imq] [--epsilon E --delta D | --rdp-tau T | --tau T] [--level B]
//! [--method finite-sample|subsample|bootstrap] [--json]` and
//! `qrenyi audit gaussian-experiment … --out DIR`.
//!
//! One test per α. Exit code 0: no violation detected at any α; 1: a violation detected at level β
//! for some α (family-wise level ≤ kβ for k orders); 2: bad input.

use super::kernel_divergence::{load, parse_number};
use super::{json_number, parse_list, NumList};
use qrenyi::kernel::audit::{
    audit_orders, dp_regularization, AuditReport, AuditSpec, Hypothesis, Method, Resampling,
    ResamplingKind,
};
use qrenyi::kernel::experiment::{self, log_grid, ExperimentConfig};
use qrenyi::{Error, Result};
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `qrenyi audit`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    command: Option<AuditCommand>,
    #[command(flatten)]
    test: TestArgs,
}

#[derive(clap::Subcommand, Debug)]
enum AuditCommand {
    /// Reproduce seed 002's Figure 1: the Gaussian mechanism, D_(α,λ) against λ.
    GaussianExperiment(ExperimentArgs),
}

/// The hypothesis test.
#[derive(clap::Args, Debug)]
struct TestArgs {
    /// Sample of M(D) (n×d): .npy float64 or CSV.
    #[arg(long, required = true)]
    x: Option<PathBuf>,
    /// Sample of M(D') for an adjacent D' (m×d).
    #[arg(long, required = true)]
    y: Option<PathBuf>,
    /// Rényi orders α, comma separated (> 1 and finite for the finite-sample threshold); one
    /// test per order.
    #[arg(long, required = true, value_parser = parse_list)]
    alpha: Option<NumList>,
    /// Regularisation λ > 0, or `auto` (with --epsilon/--delta: λ = δe^(−ε), the smallest valid).
    #[arg(long, required = true)]
    lambda: Option<String>,
    /// Bandwidth: a number or `median` (of the pilot sample if given, else of X and Y).
    #[arg(long, default_value = "median")]
    bandwidth: String,
    /// Pilot samples for the median bandwidth (keeps the bandwidth independent of X, Y).
    #[arg(long, num_args = 2, value_names = ["PX", "PY"])]
    pilot: Option<Vec<PathBuf>>,
    /// Kernel: rbf (exp(−‖x−y‖²/b²)), laplace or imq.
    #[arg(long, default_value = "rbf")]
    kernel: String,
    /// Null hypothesis (ε, δ)-DP: ε …
    #[arg(long, requires = "delta", conflicts_with_all = ["rdp_tau", "tau"])]
    epsilon: Option<f64>,
    /// … and δ.
    #[arg(long, requires = "epsilon")]
    delta: Option<f64>,
    /// Null hypothesis (α, τ)-RDP.
    #[arg(long, conflicts_with = "tau")]
    rdp_tau: Option<f64>,
    /// Null hypothesis (α, λ, τ)-RKRDP.
    #[arg(long)]
    tau: Option<f64>,
    /// Level β of the test.
    #[arg(long, default_value_t = 0.05)]
    level: f64,
    /// Threshold: finite-sample (valid for every n, α > 1, often vacuous), subsample or bootstrap
    /// (asymptotic).
    #[arg(long, default_value = "finite-sample")]
    method: String,
    /// Resampling replicates.
    #[arg(long, default_value_t = 200)]
    replicates: usize,
    /// Subsampling fraction.
    #[arg(long, default_value_t = 0.5)]
    fraction: f64,
    /// Resampling seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    base: super::BaseArg,
}

/// Arguments of `qrenyi audit gaussian-experiment`.
#[derive(clap::Args, Debug)]
struct ExperimentArgs {
    /// Output dimension d.
    #[arg(long, default_value_t = 30)]
    dim: usize,
    /// Sample sizes n = m, comma separated.
    #[arg(long, value_parser = parse_list, default_value = "200,400,600")]
    n: NumList,
    /// Independent repetitions per n.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Rényi orders, comma separated.
    #[arg(long = "alpha", value_parser = parse_list, default_value = "2,6,12")]
    alphas: NumList,
    /// Regularisations (default: 13 log-spaced values from 2.5e-4 to 0.1).
    #[arg(long, value_parser = parse_list)]
    lambdas: Option<NumList>,
    /// RNG seed.
    #[arg(long, default_value_t = 2022)]
    seed: u64,
    /// Output directory (runs.csv, curves.csv, figure1.svg, figure1.png, summary.md).
    #[arg(long)]
    out: PathBuf,
    /// Every divergence and ε written (CSV columns, summary, figure) in this base; the CSV
    /// headers name the unit.
    #[command(flatten)]
    base: super::BaseArg,
}

fn missing(what: &str) -> Error {
    Error::Parse {
        what: "command line".into(),
        reason: format!("--{what} is required"),
    }
}

/// Run `qrenyi audit`.
pub fn run(args: &Args) -> Result<i32> {
    match &args.command {
        Some(AuditCommand::GaussianExperiment(e)) => run_experiment(e),
        None => run_test(&args.test),
    }
}

/// The null hypothesis, its ε or τ converted from `--base` to nats.
fn hypothesis(t: &TestArgs) -> Result<Hypothesis> {
    let nats = |v: Option<f64>| v.map(|x| t.base.base.to_nats(x));
    match (nats(t.epsilon), t.delta, nats(t.rdp_tau), nats(t.tau)) {
        (Some(epsilon), Some(delta), None, None) => Ok(Hypothesis::Dp { epsilon, delta }),
        (None, None, Some(tau), None) => Ok(Hypothesis::Rdp { tau }),
        (None, None, None, Some(tau)) => Ok(Hypothesis::Rkrdp { tau }),
        _ => Err(Error::Parse {
            what: "command line".into(),
            reason:
                "give exactly one null hypothesis: --epsilon E --delta D, --rdp-tau T or --tau T"
                    .into(),
        }),
    }
}

fn run_test(t: &TestArgs) -> Result<i32> {
    let (x, y) = (
        t.x.as_ref().ok_or_else(|| missing("x"))?,
        t.y.as_ref().ok_or_else(|| missing("y"))?,
    );
    let alphas = &t.alpha.as_ref().ok_or_else(|| missing("alpha"))?.0;
    let hyp = hypothesis(t)?;
    let lambda_arg = t.lambda.as_deref().ok_or_else(|| missing("lambda"))?;
    let lambda = match (lambda_arg, hyp) {
        ("auto", Hypothesis::Dp { epsilon, delta }) => dp_regularization(epsilon, delta)?,
        ("auto", _) => {
            return Err(Error::Parse {
                what: "--lambda".into(),
                reason: "`auto` needs the (ε,δ)-DP hypothesis (--epsilon, --delta)".into(),
            })
        }
        (v, _) => parse_number(v).map_err(|reason| Error::Parse {
            what: "--lambda".into(),
            reason,
        })?,
    };
    let method = match t.method.as_str() {
        "finite-sample" => Method::FiniteSample,
        "subsample" | "bootstrap" => Method::Resampling(Resampling {
            kind: if t.method == "bootstrap" {
                ResamplingKind::Bootstrap
            } else {
                ResamplingKind::Subsample
            },
            replicates: t.replicates,
            fraction: t.fraction,
            seed: t.seed,
        }),
        other => {
            return Err(Error::Parse {
                what: "--method".into(),
                reason: format!(
                    "unknown method {other:?} (expected finite-sample, subsample or bootstrap)"
                ),
            })
        }
    };
    let pilot = t.pilot.as_ref().map(|p| (p[0].as_path(), p[1].as_path()));
    let (xs, ys, kernel) = load(x, y, &t.kernel, &t.bandwidth, pilot)?;
    let spec = AuditSpec {
        alpha: alphas[0],
        lambda,
        level: t.level,
        hypothesis: hyp,
        method,
    };
    let reports = audit_orders(xs.view(), ys.view(), &kernel, &spec, alphas)?;
    let base = t.base.base;
    let rows: Vec<Row> = alphas
        .iter()
        .zip(reports)
        .map(|(&alpha, r)| Row::new(alpha, r, base))
        .collect();
    let any = rows.iter().any(|r| r.report.violation);
    let family = (rows.len() as f64 * t.level).min(1.0);
    if t.json {
        let results: Vec<_> = rows
            .iter()
            .map(|row| row.json(lambda, t.level, &hyp, kernel.kind().name(), base))
            .collect();
        println!(
            "{}",
            json!({
                "results": results,
                "violation": any,
                "family_wise_level": family,
                "base": base.to_string(),
            })
        );
    } else {
        let first = &rows[0].report;
        println!("null hypothesis : {}", hyp.describe());
        if base != qrenyi::Base::E {
            println!(
                "(the hypothesis above in nats; every value below in {})",
                base.unit()
            );
        }
        println!(
            "statistic       : D̂ = D̃_α(Σ̂_P ‖ Σ̂_Q + λI)   (λ = {lambda:e}, {} kernel, bandwidth {}, n = {}, m = {}, {} method)",
            kernel.kind().name(),
            first.bandwidth,
            first.n,
            first.m,
            first.method
        );
        println!(
            "  {:>6}  {:>22}  {:>22}  {:>47}  {:>22}  result",
            "α", "D̂", "threshold τ + margin", "interval", "finite-sample margin"
        );
        for row in &rows {
            let r = &row.report;
            let interval = r.interval.as_ref().map_or("—".into(), |c| {
                format!(
                    "[{}, {}]",
                    super::fmt_value(c.lower),
                    super::fmt_value(c.upper)
                )
            });
            let fs = r
                .finite_sample
                .map_or("—".into(), |f| super::fmt_value(f.total));
            println!(
                "  {:>6}  {:>22}  {:>22}  {:>47}  {:>22}  {}",
                super::fmt_param(row.alpha),
                super::fmt_value(r.divergence),
                super::fmt_value(r.threshold),
                interval,
                fs,
                if r.violation {
                    "VIOLATION DETECTED"
                } else {
                    "no violation detected"
                }
            );
        }
        println!(
            "τ               : {} (every α)",
            super::fmt_value(first.tau)
        );
        for row in &rows {
            if let Some(f) = row.report.finite_sample {
                println!(
                    "finite-sample   : α = {}: margin {} (σ-term {}, ρ-term {}, η_P = {:.4}, η_Q = {:.4})",
                    super::fmt_param(row.alpha),
                    super::fmt_value(f.total),
                    super::fmt_value(f.sigma_term),
                    super::fmt_value(f.rho_term),
                    f.eta_p,
                    f.eta_q
                );
            }
            if let Some(n) = &row.interval_note {
                println!("note            : α = {}: {n}", super::fmt_param(row.alpha));
            }
        }
        println!("decision rule   : {}", rows[0].rule_words());
        println!(
            "result          : at level β = {} per order{}",
            t.level,
            if rows.len() > 1 {
                format!(
                "; k = {k} orders: a violation at any of them has family-wise level ≤ min(1, kβ) = min(1, {k} × {}) (union bound)",
                t.level,
                k = rows.len()
            )
            } else {
                String::new()
            }
        );
        println!("assumptions     :");
        let mut seen = std::collections::HashSet::new();
        for a in rows.iter().flat_map(|r| &r.report.assumptions) {
            if seen.insert(a) {
                println!("  - {a}");
            }
        }
    }
    Ok(if any { 1 } else { 0 })
}

/// One order's audit report, its values converted to `--base`, and the words around it.
struct Row {
    alpha: f64,
    report: AuditReport,
    rule: String,
    interval_note: Option<String>,
}

impl Row {
    /// Convert every divergence-valued field to `base` (the hypothesis stays in nats, as
    /// computed) and say which rule decides.
    fn new(alpha: f64, mut r: AuditReport, base: qrenyi::Base) -> Row {
        for v in [&mut r.divergence, &mut r.threshold, &mut r.tau] {
            *v = base.scale(*v);
        }
        if let Some(c) = r.interval.as_mut() {
            (c.lower, c.upper) = (base.scale(c.lower), base.scale(c.upper));
        }
        if let Some(f) = r.finite_sample.as_mut() {
            (f.sigma_term, f.rho_term, f.total) = (
                base.scale(f.sigma_term),
                base.scale(f.rho_term),
                base.scale(f.total),
            );
        }
        let rule = match &r.interval {
            None => format!(
                "finite-sample: violation iff D̂ > τ + margin = {} (a McDiarmid bound that holds at level β for every n)",
                super::fmt_value(r.threshold)
            ),
            Some(c) => format!(
                "{}: violation iff the interval's lower end {} > τ = {} (equivalently D̂ > τ + (D̂ − lower) = {})",
                c.kind.name(),
                super::fmt_value(c.lower),
                r.tau,
                super::fmt_value(r.threshold)
            ),
        };
        let interval_note = r.interval.as_ref().and_then(|c| {
            (r.divergence.is_finite() && !(c.lower..=c.upper).contains(&r.divergence)).then(|| {
                format!(
                    "the {} interval is pivotal (basic): it reflects the replicates about D̂ \
                     ([2D̂ − q_hi, 2D̂ − q_lo] for the bootstrap, the √f-scaled deviations for \
                     subsampling), so when the replicates are biased to one side of D̂ — the kernel \
                     estimate is biased at small sample sizes, and bootstrap duplicates bias it further — \
                     the interval lies on the other side and can exclude D̂ itself",
                    c.kind.name()
                )
            })
        });
        Row {
            alpha,
            report: r,
            rule,
            interval_note,
        }
    }

    /// The decision rule without this order's numbers (they are in the table).
    fn rule_words(&self) -> String {
        match &self.report.interval {
            None => "finite-sample: violation iff D̂ > τ + margin (a McDiarmid bound that holds at level β for every n)".into(),
            Some(c) => format!(
                "{}: violation iff the interval's lower end > τ (equivalently D̂ > τ + (D̂ − lower))",
                c.kind.name()
            ),
        }
    }

    /// The `--json` object of one order (the fields of the former one-order output).
    fn json(
        &self,
        lambda: f64,
        level: f64,
        hyp: &Hypothesis,
        kernel: &str,
        base: qrenyi::Base,
    ) -> serde_json::Value {
        let r = &self.report;
        let fs = r.finite_sample.map(|f| {
            json!({
                "eta_p": f.eta_p, "eta_q": f.eta_q,
                "sigma_term": json_number(f.sigma_term), "rho_term": json_number(f.rho_term),
                "margin": json_number(f.total),
            })
        });
        let ci = r.interval.as_ref().map(|c| {
            json!({
                "kind": c.kind.name(), "lower": json_number(c.lower),
                "upper": json_number(c.upper), "replicates": c.replicates,
            })
        });
        json!({
            "divergence": json_number(r.divergence),
            "bandwidth": r.bandwidth,
            "threshold": json_number(r.threshold),
            "violation": r.violation,
            "tau": r.tau,
            "alpha": json_number(self.alpha),
            "lambda": lambda,
            "level": level,
            "hypothesis": hyp.describe(),
            "method": r.method,
            "kernel": kernel,
            "n": r.n,
            "m": r.m,
            "finite_sample": fs,
            "interval": ci,
            "assumptions": r.assumptions,
            "decision_rule": self.rule,
            "base": base.to_string(),
            "interval_note": self.interval_note,
        })
    }
}

fn run_experiment(e: &ExperimentArgs) -> Result<i32> {
    let mut cfg = ExperimentConfig::paper()?;
    cfg.dim = e.dim;
    cfg.ns =
        e.n.0
            .iter()
            .map(|&v| {
                if v >= 2.0 && v.fract() == 0.0 && v < 1e7 {
                    Ok(v as usize)
                } else {
                    Err(Error::invalid("n", v, "sample sizes must be integers ≥ 2"))
                }
            })
            .collect::<Result<_>>()?;
    cfg.runs = e.runs;
    cfg.alphas = e.alphas.0.clone();
    cfg.lambdas = match &e.lambdas {
        Some(l) => l.0.clone(),
        None => log_grid(2.5e-4, 0.1, 13),
    };
    cfg.seed = e.seed;
    let bar = super::progress(None, "{spinner} {elapsed}  {msg}");
    let result = experiment::run(&cfg, |msg| bar.set_message(msg.to_string()))?;
    bar.finish_and_clear();
    for p in experiment::write_outputs(&result, &e.out, e.base.base)? {
        println!("wrote {}", p.display());
    }
    Ok(0)
}
