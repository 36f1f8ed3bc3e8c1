//! `qrenyi compose --epsilon E --delta D --k K [--delta-total T] [--json]`: every applicable
//! composition bound side by side, the tightest marked.

use super::json_number;
use qrenyi::privacy::composition::compare;
use qrenyi::Result;
use serde_json::json;

/// Arguments of `qrenyi compose`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Per-mechanism ε ≥ 0.
    #[arg(long, allow_negative_numbers = true)]
    pub epsilon: f64,
    /// Per-mechanism δ ∈ [0, 1].
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub delta: f64,
    /// Number of mechanisms k ≥ 1.
    #[arg(long)]
    pub k: usize,
    /// Target total δ (default kδ + 1e-6).
    #[arg(long = "delta-total", allow_negative_numbers = true)]
    pub delta_total: Option<f64>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub base: super::BaseArg,
}

/// Run `qrenyi compose`.
pub fn run(args: &Args) -> Result<i32> {
    // a given total δ is validated by `compare` (NaN or outside [0, 1] is an error); only the
    // default is capped at 1
    let dt = args.delta_total.unwrap_or_else(|| {
        // the default is a convention, not a computed bound: round kδ + 1e-6 to 12 significant
        // digits so that it prints as written (0.000101, not 0.00010099999999999999)
        let v = (args.k as f64 * args.delta + 1e-6).min(1.0);
        format!("{v:.11e}").parse().unwrap_or(v)
    });
    let base = args.base.base;
    let (rows, best) = compare(base.to_nats(args.epsilon), args.delta, args.k, dt)?;
    let eps_total = |e: Option<f64>| e.map(|e| base.scale(e));
    if args.json {
        let out = json!({
            "epsilon": json_number(args.epsilon),
            "delta": json_number(args.delta),
            "k": args.k,
            "delta_total": json_number(dt),
            "base": base.to_string(),
            "bounds": rows.iter().enumerate().map(|(i, r)| json!({
                "name": r.name,
                "source": r.source,
                "epsilon_total": eps_total(r.epsilon).map_or(serde_json::Value::Null, json_number),
                "delta_total": json_number(r.delta),
                "applicable": r.epsilon.is_some(),
                "tightest": Some(i) == best,
                "note": r.note,
            })).collect::<Vec<_>>(),
            "tightest": best.map(|i| rows[i].name),
        });
        println!("{out}");
    } else {
        println!(
            "{} × ({}, {})-DP at δ_total = {}",
            args.k,
            super::fmt_value(args.epsilon),
            super::fmt_value(args.delta),
            super::fmt_value(dt)
        );
        println!(
            "{:<26} {:>22}  source",
            "bound",
            format!("ε_total ({})", base.unit())
        );
        for (i, r) in rows.iter().enumerate() {
            let e = eps_total(r.epsilon).map_or_else(|| "n/a".to_string(), super::fmt_value);
            let mark = if Some(i) == best { " *" } else { "" };
            println!("{:<26} {:>22}{}  {}", r.name, e, mark, r.source);
            if let Some(n) = &r.note {
                println!("{:<26}   ({n})", "");
            }
        }
        println!("* tightest");
    }
    Ok(0)
}
