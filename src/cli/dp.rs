//! `qrenyi dp --rho A.npy --sigma B.npy (--epsilon E | --delta D) [--json]`: the quantum
//! `(ε, δ)`-DP of a neighbouring pair (hockey-stick divergence, both orders).

use super::json_number;
use super::qzcdp::PairArgs;
use qrenyi::privacy::qzcdp::Neighbours;
use qrenyi::Result;
use serde_json::json;

/// Arguments of `qrenyi dp`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pair: PairArgs,
    /// δ(ε) = max(E_{e^ε}(ρ‖σ), E_{e^ε}(σ‖ρ)) at this ε.
    #[arg(
        long,
        conflicts_with = "delta",
        required_unless_present = "delta",
        allow_negative_numbers = true
    )]
    epsilon: Option<f64>,
    /// ε(δ): the smallest ε with δ(ε) ≤ this δ (bisection).
    #[arg(long, allow_negative_numbers = true)]
    delta: Option<f64>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Run `qrenyi dp`.
pub fn run(args: &Args) -> Result<i32> {
    let (rho, sigma) = args.pair.load()?;
    let nb = Neighbours::quantum(rho, sigma)?;
    let pure = nb.pure_epsilon()?;
    let (eps, delta) = match (args.epsilon, args.delta) {
        (Some(e), _) => (e, nb.delta(e)?),
        (None, Some(d)) => (nb.epsilon(d)?.value, d),
        (None, None) => {
            return Err(qrenyi::Error::Parse {
                what: "arguments".into(),
                reason: "give --epsilon or --delta".into(),
            })
        }
    };
    if args.json {
        println!(
            "{}",
            json!({
                "epsilon": json_number(eps),
                "delta": json_number(delta),
                "pure_epsilon": json_number(pure),
            })
        );
    } else {
        println!(
            "quantum ({}, {})-DP",
            super::fmt_value(eps),
            super::fmt_value(delta)
        );
        println!("pure ε (D_max both ways) = {}", super::fmt_value(pure));
    }
    Ok(0)
}
