//! `qrenyi dp --rho A.npy --sigma B.npy (--epsilon E | --delta D | --profile E,E,… |
//! --profile-delta D,D,…) [--base b] [--json]`: the quantum `(ε, δ)`-DP of a neighbouring pair
//! (hockey-stick divergence, both orders), at one point or as a privacy profile over a grid.

use super::json_number;
use super::qzcdp::PairArgs;
use super::{fmt_value, parse_list, BaseArg, NumList};
use qrenyi::privacy::qzcdp::Neighbours;
use qrenyi::Result;
use serde_json::json;

/// Which point or profile: exactly one of the four.
#[derive(clap::Args, Debug)]
#[group(required = true, multiple = false)]
pub struct Which {
    /// δ(ε) = max(E_{e^ε}(ρ‖σ), E_{e^ε}(σ‖ρ)) at this ε.
    #[arg(long, allow_negative_numbers = true)]
    pub epsilon: Option<f64>,
    /// The smallest ε with δ(ε) ≤ D (bisection).
    #[arg(long, allow_negative_numbers = true)]
    pub delta: Option<f64>,
    /// Privacy profile δ(ε) over these ε (comma separated): CSV `epsilon,delta`, or JSON.
    #[arg(long, value_parser = parse_list)]
    pub profile: Option<NumList>,
    /// Privacy profile ε(δ) over these δ (comma separated): CSV `delta,epsilon`, or JSON.
    #[arg(long = "profile-delta", value_parser = parse_list)]
    pub profile_delta: Option<NumList>,
}

/// Arguments of `qrenyi dp`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pair: PairArgs,
    #[command(flatten)]
    which: Which,
    #[command(flatten)]
    base: BaseArg,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Run `qrenyi dp`.
pub fn run(args: &Args) -> Result<i32> {
    let (rho, sigma) = args.pair.load()?;
    let nb = Neighbours::quantum(rho, sigma)?;
    let base = args.base.base;
    let w = &args.which;
    if let Some(grid) = &w.profile {
        let rows = grid
            .0
            .iter()
            .map(|&e| Ok((e, nb.delta(base.to_nats(e))?)))
            .collect::<Result<Vec<_>>>()?;
        return print_profile(args, "epsilon", "delta", &rows);
    }
    if let Some(grid) = &w.profile_delta {
        let rows = grid
            .0
            .iter()
            .map(|&d| Ok((d, base.scale(nb.epsilon(d)?.value))))
            .collect::<Result<Vec<_>>>()?;
        return print_profile(args, "delta", "epsilon", &rows);
    }
    let pure = nb.pure_epsilon()?;
    let (eps, delta) = match (w.epsilon, w.delta) {
        (Some(e), _) => (e, nb.delta(base.to_nats(e))?),
        (None, Some(d)) => (base.scale(nb.epsilon(d)?.value), d),
        (None, None) => {
            return Err(qrenyi::Error::Parse {
                what: "arguments".into(),
                reason: "give one of --epsilon, --delta, --profile, --profile-delta".into(),
            })
        }
    };
    let pure = base.scale(pure);
    if args.json {
        println!(
            "{}",
            json!({
                "epsilon": json_number(eps),
                "delta": json_number(delta),
                "pure_epsilon": json_number(pure),
                "base": base.to_string(),
            })
        );
    } else {
        println!("quantum ({}, {})-DP", fmt_value(eps), fmt_value(delta));
        println!("pure ε (D_max both ways) = {}", fmt_value(pure));
        if base != qrenyi::Base::E {
            println!("(ε in {})", base.unit());
        }
    }
    Ok(0)
}

/// The profile as CSV (header `x,y`, one row per grid point) or JSON
/// `{"profile": [{x: …, y: …}, …], "base": b}`.
fn print_profile(args: &Args, x: &str, y: &str, rows: &[(f64, f64)]) -> Result<i32> {
    if args.json {
        let pts: Vec<_> = rows
            .iter()
            .map(|(a, b)| json!({ x: json_number(*a), y: json_number(*b) }))
            .collect();
        println!(
            "{}",
            json!({ "profile": pts, "base": args.base.base.to_string() })
        );
    } else {
        println!("{x},{y}");
        for (a, b) in rows {
            println!("{},{}", fmt_value(*a), fmt_value(*b));
        }
    }
    Ok(0)
}
