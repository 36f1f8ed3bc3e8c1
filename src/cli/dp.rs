//! `qrenyi dp --rho A.npy --sigma B.npy (--epsilon E | --delta D) [--json]`: the quantum
//! `(ε, δ)`-DP of a neighbouring pair (hockey-stick divergence, both orders).

use super::convert::{Target, Want};
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
    /// --epsilon E: δ(ε) = max(E_{e^ε}(ρ‖σ), E_{e^ε}(σ‖ρ)); --delta D: the smallest ε with
    /// δ(ε) ≤ D (bisection).
    #[command(flatten)]
    target: Target,
}

/// Run `qrenyi dp`.
pub fn run(args: &Args) -> Result<i32> {
    let (rho, sigma) = args.pair.load()?;
    let nb = Neighbours::quantum(rho, sigma)?;
    let pure = nb.pure_epsilon()?;
    let (eps, delta) = match args.target.want()? {
        Want::DeltaAt(e) => (e, nb.delta(e)?),
        Want::EpsilonAt(d) => (nb.epsilon(d)?.value, d),
    };
    let base = args.target.base.base;
    let (eps, pure) = (base.scale(eps), base.scale(pure));
    if args.target.json {
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
        println!(
            "quantum ({}, {})-DP",
            super::fmt_value(eps),
            super::fmt_value(delta)
        );
        println!("pure ε (D_max both ways) = {}", super::fmt_value(pure));
        if base != qrenyi::Base::E {
            println!("(ε in {})", base.unit());
        }
    }
    Ok(0)
}
