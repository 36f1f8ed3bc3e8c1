//! `qrenyi smooth`: smooth divergences with certified brackets (docs/smooth.md).
//!
//! * `--kind hypothesis-testing|dmax --epsilon E [--ball purified|trace] --rho A --sigma B` →
//!   `{"kind", "epsilon", "value", "lower", "upper"}` (plus `"ball"` for `dmax`);
//! * `--kind smooth-renyi --epsilon E --alpha A1,A2,… --p P1,… --q Q1,…` → seed 000 Definition 12
//!   (α > 1) and Definition 11 (α = inf), one `{"alpha", "value", "lower", "upper"}` per order.
//!
//! With `--base 2|10` the values are converted at the output edge and a `"base"` key is added.

use super::{json_number, parse_list, BaseArg, NumList};
use qrenyi::smooth::{self, Ball, Bracket};
use qrenyi::{Error, Result};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Which smooth divergence.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmoothKind {
    /// D_H^ε(ρ‖σ) = −ln min{Tr Qσ : 0 ≤ Q ≤ I, Tr Qρ ≥ 1 − ε}.
    HypothesisTesting,
    /// D_max^ε(ρ‖σ) over the purified-distance (default) or trace-distance ball.
    Dmax,
    /// Classical smooth Rényi D_α^δ(P‖Q) of seed 000 (Def. 12; α = inf: Def. 11).
    SmoothRenyi,
}

/// Arguments of `qrenyi smooth`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The quantity.
    #[arg(long, value_enum)]
    kind: SmoothKind,
    /// Smoothing parameter ε (δ of seed 000 for smooth-renyi): [0, 1) for hypothesis-testing,
    /// (0, 1) for dmax, [0, 1) for smooth-renyi.
    #[arg(long, allow_negative_numbers = true)]
    epsilon: f64,
    /// Smoothing ball of dmax: purified (Tomamichel's purified distance) or trace.
    #[arg(long, default_value = "purified")]
    ball: String,
    /// First state ρ (.npy or .json), for hypothesis-testing and dmax.
    #[arg(long)]
    rho: Option<PathBuf>,
    /// Second state σ.
    #[arg(long)]
    sigma: Option<PathBuf>,
    /// Probability vector P (comma-separated), for smooth-renyi.
    #[arg(long, value_parser = parse_list, allow_negative_numbers = true)]
    p: Option<NumList>,
    /// Probability vector Q (comma-separated), for smooth-renyi.
    #[arg(long, value_parser = parse_list, allow_negative_numbers = true)]
    q: Option<NumList>,
    /// Orders α > 1 (comma-separated, `inf` allowed), for smooth-renyi.
    #[arg(long, value_parser = parse_list, allow_negative_numbers = true)]
    alpha: Option<NumList>,
    /// Eigensolver backend for loading the states.
    #[arg(long, default_value = "auto")]
    backend: String,
    #[command(flatten)]
    base: BaseArg,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn missing(flag: &str, kind: &str) -> Error {
    Error::Parse {
        what: "arguments".into(),
        reason: format!("--{flag} is required with --kind {kind}"),
    }
}

fn unused(flag: &str, kind: &str) -> Error {
    Error::Parse {
        what: "arguments".into(),
        reason: format!("--{flag} does not apply to --kind {kind}"),
    }
}

/// Run `qrenyi smooth`.
pub fn run(args: &Args) -> Result<i32> {
    let base = args.base.base;
    let scaled = |b: &Bracket| {
        (
            base.scale(b.value),
            base.scale(b.lower),
            base.scale(b.upper),
        )
    };
    let mut out = Map::new();
    match args.kind {
        SmoothKind::HypothesisTesting | SmoothKind::Dmax => {
            let kind = if args.kind == SmoothKind::Dmax {
                "dmax"
            } else {
                "hypothesis-testing"
            };
            for (flag, given) in [
                ("p", args.p.is_some()),
                ("q", args.q.is_some()),
                ("alpha", args.alpha.is_some()),
            ] {
                if given {
                    return Err(unused(flag, kind));
                }
            }
            let load = |p: &Option<PathBuf>, flag: &str| -> Result<_> {
                let p = p.as_ref().ok_or_else(|| missing(flag, kind))?;
                super::divergence::load_state(&p.to_string_lossy(), &args.backend, 1e-10, false)
            };
            let (rho, sigma) = (load(&args.rho, "rho")?, load(&args.sigma, "sigma")?);
            let ball: Ball = args.ball.parse()?;
            if args.kind != SmoothKind::Dmax && args.ball != "purified" {
                return Err(unused("ball", kind));
            }
            let bar = super::progress(None, &format!("{{spinner}} {kind} SDP  {{elapsed}}"));
            let b = if args.kind == SmoothKind::Dmax {
                smooth::max_divergence(&rho, &sigma, args.epsilon, ball)
            } else {
                smooth::hypothesis_testing(&rho, &sigma, args.epsilon)
            };
            bar.finish_and_clear();
            let b = b?;
            let (v, l, u) = scaled(&b);
            out.insert("kind".into(), json!(kind));
            out.insert("epsilon".into(), json_number(args.epsilon));
            if args.kind == SmoothKind::Dmax {
                out.insert("ball".into(), json!(ball.name()));
            }
            out.insert("value".into(), json_number(v));
            out.insert("lower".into(), json_number(l));
            out.insert("upper".into(), json_number(u));
        }
        SmoothKind::SmoothRenyi => {
            let kind = "smooth-renyi";
            for (flag, given) in [("rho", args.rho.is_some()), ("sigma", args.sigma.is_some())] {
                if given {
                    return Err(unused(flag, kind));
                }
            }
            let p = &args.p.as_ref().ok_or_else(|| missing("p", kind))?.0;
            let q = &args.q.as_ref().ok_or_else(|| missing("q", kind))?.0;
            let alphas = &args.alpha.as_ref().ok_or_else(|| missing("alpha", kind))?.0;
            let mut rows = Vec::new();
            let bar = super::progress(
                Some(alphas.len() as u64),
                "{bar:30} {pos}/{len} orders α  {elapsed}",
            );
            for &a in alphas {
                let b = if a == f64::INFINITY {
                    smooth::classical::smooth_max(p, q, args.epsilon)
                } else {
                    smooth::classical::smooth_renyi(p, q, a, args.epsilon)
                };
                bar.inc(1);
                let b = match b {
                    Ok(b) => b,
                    Err(e) => {
                        bar.finish_and_clear();
                        return Err(e);
                    }
                };
                let (v, l, u) = scaled(&b);
                rows.push(json!({
                    "alpha": json_number(a),
                    "value": json_number(v),
                    "lower": json_number(l),
                    "upper": json_number(u),
                }));
            }
            bar.finish_and_clear();
            out.insert("kind".into(), json!(kind));
            out.insert("epsilon".into(), json_number(args.epsilon));
            out.insert("values".into(), Value::Array(rows));
        }
    }
    if base != qrenyi::Base::E {
        out.insert("base".into(), json!(base.to_string()));
    }
    if args.json {
        println!("{}", Value::Object(out));
    } else {
        print_table(&out);
    }
    Ok(0)
}

fn print_table(out: &Map<String, Value>) {
    let show = |v: &Value| match v {
        Value::Number(n) => super::fmt_value(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    for (k, v) in out {
        if let Value::Array(rows) = v {
            for row in rows {
                if let Value::Object(r) = row {
                    let cells: Vec<String> = r
                        .iter()
                        .map(|(k, v)| format!("{k} = {}", show(v)))
                        .collect();
                    println!("{}", cells.join("  "));
                }
            }
        } else {
            println!("{k} = {}", show(v));
        }
    }
}
