//! Measured accuracy of the `f64` quantum divergences against the 256-bit evaluation
//! (`qrenyi::verify::real_quantum`) on random ill-conditioned pairs (`sample::ill_conditioned_pair`:
//! condition numbers up to 1e12, independent and nearly equal pairs), orders log-uniform in
//! `[1e-3, 1e6]`. Prints, per family and α-range, the worst absolute error, the worst ratio to the
//! documented bound (`divergence::accuracy::error_bound`) and the worst error in units of
//! `ε (1 + |D|)`; the table in `docs/conventions.md` ("Measured accuracy") is its output.
//!
//! `cargo run --release --example accuracy_vs_256bit -- [pairs] [seed]` (default 1000 pairs, seed 1).
use qrenyi::divergence::{accuracy, Family, Pair};
use qrenyi::spectral::{Backend, EPS};
use qrenyi::verify::{real_quantum::HpPair, sample, Item};
use rand::{Rng, SeedableRng};

fn main() -> qrenyi::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let pairs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let seed: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let ranges = [
        (1e-3, 0.1),
        (0.1, 0.5),
        (0.5, 0.999),
        (0.999, 1.001),
        (1.001, 2.0),
        (2.0, 1e6),
    ];
    let names = ["Petz", "sandwiched", "maximal"];
    // [family][range] -> (worst abs error, worst ratio to bound, worst err/(ε(1+|D|)), count)
    let mut stats = vec![vec![(0.0f64, 0.0f64, 0.0f64, 0usize); ranges.len() + 2]; 3];
    let mut worst_case = String::new();
    let mut worst_ratio = 0.0;
    for t in 0..pairs {
        let d = rng.random_range(2..=5);
        let (r, s, how) = sample::ill_conditioned_pair(d, &mut rng);
        let state = |it: &Item| match it {
            Item::State { matrix, .. } => qrenyi::state::DensityMatrix::with_options(
                matrix.clone(),
                Default::default(),
                Backend::Auto,
            ),
            _ => unreachable!(),
        };
        let (rho, sigma) = (state(&r)?, state(&s)?);
        let pair = Pair::new(&rho, &sigma)?;
        let hp = HpPair::new(&rho, &sigma)?;
        let mut alphas: Vec<f64> = ranges
            .iter()
            .map(|&(lo, hi)| (rng.random_range(f64::ln(lo)..f64::ln(hi))).exp())
            .collect();
        alphas.push(1.0);
        alphas.push(f64::INFINITY);
        for (fi, f) in Family::ALL.iter().enumerate() {
            for (ai, &a) in alphas.iter().enumerate() {
                let (x, y) = (pair.renyi(*f, a)?, hp.renyi(*f, a)?);
                let err = if x == y { 0.0 } else { (x - y).abs() };
                let bound = accuracy::error_bound(&pair, *f, a, x)?;
                let ratio = if err == 0.0 { 0.0 } else { err / bound };
                let st = &mut stats[fi][ai];
                st.0 = st.0.max(err);
                st.1 = st.1.max(ratio);
                st.2 = st.2.max(err / (EPS * (1.0 + y.abs())));
                st.3 += 1;
                if ratio > worst_ratio {
                    worst_ratio = ratio;
                    worst_case = format!(
                        "pair {t} ({how}, d={d}) {} α={a:e}: f64 {x:e}, 256-bit {y:e}, error {err:.2e}, bound {bound:.2e}",
                        names[fi]
                    );
                }
            }
        }
    }
    println!("{pairs} pairs, seed {seed}, d in 2..=5, condition numbers up to 1e12\n");
    println!("| family | α range | evaluations | worst abs. error | worst error / bound | worst error / (ε(1+|D|)) |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (fi, name) in names.iter().enumerate() {
        for (ai, st) in stats[fi].iter().enumerate() {
            let range = match ai {
                i if i < ranges.len() => format!("[{:e}, {:e}]", ranges[i].0, ranges[i].1),
                i if i == ranges.len() => "1".to_string(),
                _ => "∞".to_string(),
            };
            println!(
                "| {name} | {range} | {} | {:.2e} | {:.3} | {:.1} |",
                st.3, st.0, st.1, st.2
            );
        }
    }
    println!("\nworst relative to the bound: {worst_case}");
    Ok(())
}
