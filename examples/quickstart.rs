//! Quickstart: divergences of two qubit states, in nats and in bits.
//!
//! `cargo run --release --example quickstart`

use qrenyi::prelude::*;

fn main() -> Result<()> {
    // ρ = diag(0.7, 0.3), σ = I/2 and the pure state τ = |0⟩⟨0|.
    let rho = DensityMatrix::diagonal(&[0.7, 0.3])?;
    let sigma = DensityMatrix::maximally_mixed(2)?;
    let tau = DensityMatrix::diagonal(&[1.0, 0.0])?;

    let pair = Pair::new(&rho, &sigma)?;
    let alphas = [0.5, 1.0, 2.0, f64::INFINITY];
    for family in Family::ALL {
        let nats = pair.curve(family, &alphas)?;
        let bits: Vec<f64> = nats.iter().map(|&v| Base::Two.scale(v)).collect();
        println!(
            "{:<10} α = {alphas:?}: {nats:?} nats = {bits:?} bits",
            family.name()
        );
    }
    println!("Umegaki D(ρ‖σ) = {}", pair.umegaki()?);
    println!("D_max(ρ‖σ)     = {}", pair.max_relative_entropy()?);
    println!("E_2(ρ‖σ)       = {}", pair.hockey_stick(2.0)?);
    println!("trace distance = {}", pair.trace_distance()?);
    println!(
        "fidelity F     = {} (F² = {})",
        pair.fidelity()?,
        pair.squared_fidelity()?
    );

    // supp ρ ⊄ supp τ: the divergences of order α ≥ 1 are +∞ (not an error).
    let leak = Pair::new(&rho, &tau)?;
    println!("D̃_2(ρ‖τ) = {}", leak.renyi(Family::Sandwiched, 2.0)?);
    Ok(())
}
