//! qrenyi's side of the peer comparison (benches/peers/run.sh): times every quantity in-process on
//! the `.npy` pairs written by `benches/peers/peers.py inputs DIR`, and prints JSON with the same
//! keys as the Python side.
//!
//! `cargo run --release --example peer_timing -- DIR > qrenyi.json`
//!
//! Two rows per quantity: `qrenyi` starts from the raw matrices like the Python implementations
//! (both states validated — a Cholesky test each — then the divergence, which computes whatever
//! eigendecompositions it needs);
//! `qrenyi-call` starts from validated states whose decompositions are already cached (the
//! divergence call alone).
//! Timing: 7 repeats over all pairs of a dimension, each repeat long enough to take ≈ 35 ms; the
//! median of the per-pair times is reported, as on the Python side.

use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{Family, Pair};
use qrenyi::state::DensityMatrix;
use serde_json::{json, Map, Value};
use std::path::Path;
use std::time::Instant;

const ALPHA: f64 = 2.0;
const GAMMA: f64 = std::f64::consts::E;
const DIMS: [usize; 6] = [2, 4, 8, 16, 64, 256];

type Raw = (Array2<Complex64>, Array2<Complex64>);
type Quantity = fn(&Pair) -> qrenyi::Result<f64>;

fn load(dir: &Path, d: usize) -> qrenyi::Result<Vec<Raw>> {
    let mut out = Vec::new();
    for k in 0.. {
        let r = dir.join(format!("d{d}_{k}_rho.npy"));
        if !r.exists() {
            break;
        }
        let s = dir.join(format!("d{d}_{k}_sigma.npy"));
        out.push((qrenyi::io::read_matrix(r)?, qrenyi::io::read_matrix(s)?));
    }
    Ok(out)
}

/// Median seconds per pair of `f` over all pairs (7 repeats of ≈ 35 ms each).
fn time_per_pair(n: usize, mut f: impl FnMut()) -> f64 {
    let t0 = Instant::now();
    f();
    let once = t0.elapsed().as_secs_f64().max(1e-9);
    let inner = ((0.25 / 7.0 / once) as usize).max(1);
    let mut samples: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..inner {
                f();
            }
            t.elapsed().as_secs_f64() / (inner * n) as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[3]
}

fn quantities() -> Vec<(&'static str, Quantity)> {
    vec![
        ("petz", |p| p.renyi(Family::Petz, ALPHA)),
        ("sandwiched", |p| p.renyi(Family::Sandwiched, ALPHA)),
        ("maximal", |p| p.renyi(Family::Maximal, ALPHA)),
        ("umegaki", |p| p.umegaki()),
        ("hockey_stick", |p| p.hockey_stick(GAMMA)),
        // toqito's Matsumoto fidelity Tr(ρ#σ) = exp(−D̂_½/2)
        ("matsumoto_fidelity", |p| {
            Ok((-p.renyi(Family::Maximal, 0.5)? / 2.0).exp())
        }),
    ]
}

fn main() -> qrenyi::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .ok_or_else(|| qrenyi::Error::Empty("usage: peer_timing DIR".into()))?;
    let mut results = Map::new();
    for d in DIMS {
        let raw = load(Path::new(&dir), d)?;
        let states: Vec<(DensityMatrix, DensityMatrix)> = raw
            .iter()
            .map(|(r, s)| {
                Ok((
                    DensityMatrix::new(r.clone())?,
                    DensityMatrix::new(s.clone())?,
                ))
            })
            .collect::<qrenyi::Result<_>>()?;
        let mut row = Map::new();
        for (name, q) in quantities() {
            let values = states
                .iter()
                .map(|(r, s)| q(&Pair::new(r, s)?))
                .collect::<qrenyi::Result<Vec<f64>>>()?;
            let full = time_per_pair(raw.len(), || {
                for (r, s) in &raw {
                    let (r, s) = (DensityMatrix::new(r.clone()), DensityMatrix::new(s.clone()));
                    let v = r.and_then(|r| s.and_then(|s| q(&Pair::new(&r, &s)?)));
                    std::hint::black_box(v).ok();
                }
            });
            let call = time_per_pair(raw.len(), || {
                for (r, s) in &states {
                    std::hint::black_box(Pair::new(r, s).and_then(|p| q(&p))).ok();
                }
            });
            row.insert(
                format!("{name}/qrenyi"),
                json!({"median_s": full, "values": values}),
            );
            row.insert(format!("{name}/qrenyi-call"), json!({"median_s": call}));
            eprintln!("d={d} {name}: {full:.3e} s end-to-end, {call:.3e} s call");
        }
        results.insert(d.to_string(), Value::Object(row));
    }
    let out = json!({
        "unix_time": std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |t| t.as_secs()),
        "loadavg": std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim(),
        "blas_core": qrenyi::spectral::blas_core(),
        "blas_threads": qrenyi::spectral::blas_threads(),
        "alpha": ALPHA,
        "gamma": GAMMA,
        "results": results,
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    Ok(())
}
