//! Verify a statement of your own with the counterexample search: here the data-processing
//! inequality of the sandwiched divergence at α = 2 under a random channel,
//! `D̃_2(N(ρ)‖N(σ)) ≤ D̃_2(ρ‖σ)` (a theorem, so the search must find nothing beyond rounding).
//!
//! `cargo run --release --example verify_custom`

use qrenyi::prelude::*;
use qrenyi::verify::{self, sample, Config, Custom, Expected, Instance, Margin, Statement};

fn main() -> Result<()> {
    let statement = Custom::new(
        "sandwiched-2-data-processing",
        Expected::Theorem,
        "D̃_2(N(ρ)‖N(σ)) ≤ D̃_2(ρ‖σ) for every channel N",
        |ctx, rng| {
            let d = ctx.dim(rng);
            let (rho, sigma, how) = sample::state_pair(d, rng);
            let (channel, kind) = sample::channel(d, ctx.max_dim, rng);
            Ok(Instance::new()
                .with("rho", rho)
                .with("sigma", sigma)
                .with("channel", channel)
                .tagged(how)
                .tagged(kind))
        },
        |inst, backend| {
            let (rho, sigma) = (inst.state("rho", backend)?, inst.state("sigma", backend)?);
            let n = inst.channel("channel")?;
            let (nr, ns) = (rho.apply(&n)?, sigma.apply(&n)?);
            let lhs = Pair::new(&nr, &ns)?.renyi(Family::Sandwiched, 2.0)?;
            let rhs = Pair::new(&rho, &sigma)?.renyi(Family::Sandwiched, 2.0)?;
            let err = verify::rounding(&[&rho, &sigma, &nr, &ns], &[lhs, rhs]);
            Ok(Margin::le(lhs, rhs, err))
        },
    );
    let cfg = Config {
        trials: Some(300),
        ..Config::default()
    };
    let report = verify::run(&statement, &cfg, &|_| {})?;
    println!(
        "{}: {:?}, worst margin {:.3e} (error estimate {:.1e}) over {} trials",
        statement.name(),
        report.status,
        report.worst_margin,
        report.worst_error,
        report.trials
    );
    Ok(())
}
