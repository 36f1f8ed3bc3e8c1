//! Values and documented error bounds (`divergence::accuracy::error_bound`) of every family at
//! given orders for the pairs of two `.npy` stacks, on every backend, as JSON lines:
//! `cargo run --release --example edge_bounds -- RHO.npy SIGMA.npy 0.5,2,inf`.
//! Used by `tools/edge_accuracy/compare.py` (the audit21 comparison against mpmath).
use qrenyi::divergence::{accuracy, Family, Pair};
use qrenyi::spectral::Backend;
use qrenyi::state::DensityMatrix;

fn main() -> qrenyi::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (r, s) = (
        qrenyi::io::read_stack(&args[1])?,
        qrenyi::io::read_stack(&args[2])?,
    );
    let alphas: Vec<f64> = args[3]
        .split(',')
        .map(|a| {
            if a == "inf" {
                f64::INFINITY
            } else {
                a.parse().expect("an order")
            }
        })
        .collect();
    let backends = [
        ("auto", Backend::Auto),
        ("lapack", Backend::Lapack),
        ("nalgebra", Backend::Nalgebra),
        ("faer", Backend::Faer),
    ];
    for k in 0..r.matrices.shape()[0] {
        let rm = r.matrices.index_axis(ndarray::Axis(0), k).to_owned();
        let sm = s.matrices.index_axis(ndarray::Axis(0), k).to_owned();
        for (name, b) in backends {
            let rho = DensityMatrix::with_options(rm.clone(), Default::default(), b)?;
            let sigma = DensityMatrix::with_options(sm.clone(), Default::default(), b)?;
            let pair = Pair::new(&rho, &sigma)?;
            for (fi, f) in Family::ALL.iter().enumerate() {
                let curve = pair.curve(*f, &alphas)?;
                for (ai, &a) in alphas.iter().enumerate() {
                    let fresh = Pair::new(&rho, &sigma)?;
                    let v = fresh.renyi(*f, a)?;
                    let bound = accuracy::error_bound(&pair, *f, a, v)?;
                    println!(
                        "{{\"case\":{k},\"backend\":\"{name}\",\"family\":{fi},\"alpha\":{},\"value\":{},\"curve\":{},\"bound\":{}}}",
                        j(a), j(v), j(curve[ai]), j(bound)
                    );
                }
            }
        }
    }
    Ok(())
}

fn j(x: f64) -> String {
    if x.is_finite() {
        format!("{x:e}")
    } else {
        format!("\"{x}\"")
    }
}
