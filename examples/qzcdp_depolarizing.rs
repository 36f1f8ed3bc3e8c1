//! qzCDP of a depolarizing channel: the exact pair at trace distance 1, the certified fit of
//! `ρ*(ξ) = sup_{α>1} (D̃_α − ξ)/α`, and the worst case found by searching over neighbouring inputs.
//!
//! `cargo run --release --example qzcdp_depolarizing -- [d] [p]` (default d = 2, p = 0.5)

use qrenyi::prelude::*;
use qrenyi::privacy::quantum_mechanism::{
    Depolarizing, Neighbourhood, Objective, QuantumMechanism, SearchOptions,
};
use qrenyi::privacy::qzcdp::{CertifyOptions, Neighbours};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let d: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(2);
    let p: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(0.5);
    let dep = Depolarizing::new(d, p, 1.0)?;

    // Orthogonal pure inputs |0⟩, |1⟩ (trace distance 1): the outputs commute.
    let channel = dep.channel()?;
    let mut e0 = vec![0.0; d];
    e0[0] = 1.0;
    let mut e1 = vec![0.0; d];
    e1[1] = 1.0;
    let out0 = DensityMatrix::diagonal(&e0)?.apply(&channel)?;
    let out1 = DensityMatrix::diagonal(&e1)?.apply(&channel)?;
    let nb = Neighbours::quantum(out0, out1)?.symmetric(true);
    let fit = nb.fit(Family::Sandwiched, 0.0, &CertifyOptions::default())?;
    println!("depolarizing d = {d}, p = {p}");
    println!("  pure ε (closed form)       = {}", dep.pure_epsilon());
    println!("  δ(ε = 1) (closed form)     = {}", dep.delta(1.0)?);
    println!(
        "  qzCDP ρ*(ξ = 0) ≤ {} (certified fit, maximising α = {:?})",
        fit.rho, fit.alpha
    );

    // Worst case over all pure neighbouring inputs at trace distance 1 (a lower bound).
    let mech = QuantumMechanism::new(channel);
    let found = mech.worst_case(
        Neighbourhood::TraceDistance(1.0),
        Objective::Zcdp {
            family: Family::Sandwiched,
            xi: 0.0,
        },
        &SearchOptions::default(),
    )?;
    println!(
        "  search: ρ* ≥ {} (proxy), certified fit of the best pair ≤ {:?}, {} evaluations",
        found.value, found.pair_upper, found.evaluations
    );
    Ok(())
}
