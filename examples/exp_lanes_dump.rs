//! Writes arguments and qrenyi's `exp_lanes` / `ln_lanes` values for `tools/exp_lanes/check.py`
//! (the ulp error against mpmath; docs/divergences.md, "exp_lanes").
//!
//! `cargo run --release --example exp_lanes_dump -- OUT.bin [n]`: `n` (default 2 000 000) records
//! of three little-endian doubles `(kind, x, f(x))`, kind 0 for `e^x` and 1 for `ln x` (`n/2`
//! each), evaluated four lanes at a time (the AVX2 build where the CPU has it; every lane width
//! gives the same bits, tests `exp_lanes_std`, `ln_lanes_std`).

use qrenyi::divergence::exp_lanes::{exp_lanes, ln_lanes};
use rand::{Rng, SeedableRng};
use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: exp_lanes_dump OUT.bin [n]");
    let n: usize = args.get(2).map_or(2_000_000, |s| s.parse().expect("n"));
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2022);
    let ln2 = std::f64::consts::LN_2;
    let mut xs = Vec::with_capacity(n);
    while xs.len() < n {
        let x = match xs.len() % 6 {
            // the whole range of normal results (and a little beyond both ends)
            0 => rng.random_range(-746.0..709.9),
            // |x| ≤ 1 and tiny arguments
            1 => rng.random_range(-1.0..1.0),
            2 => rng.random_range(-1.0..1.0) * 10f64.powf(rng.random_range(-300.0..0.0)),
            // next to the reduction's boundaries (k ± 1/2) ln 2, where |r| is largest
            3 => {
                let k: f64 = rng.random_range(-1075..1024) as f64 + 0.5;
                k * ln2 * (1.0 + rng.random_range(-1e-12..1e-12))
            }
            // the far form's exponents: α ℓ − c and (1 − α) m − c' for α in 1e-3…1e6 and
            // eigenvalues 1e-16…1 (each ≤ 0)
            4 => {
                let a = 10f64.powf(rng.random_range(-3.0..6.0));
                let l1 = -rng.random_range(0.0..37.0f64);
                let l2 = -rng.random_range(0.0..37.0f64);
                a * l1 - a * l2.max(l1)
            }
            _ => {
                let a = 10f64.powf(rng.random_range(-3.0..6.0));
                let (m1, m2) = (
                    -rng.random_range(0.0..37.0f64),
                    -rng.random_range(0.0..37.0f64),
                );
                let c = 1.0 - a;
                c * m1 - (c * m1).max(c * m2)
            }
        };
        xs.push(x);
    }
    xs.truncate(n / 2);
    // ln: the far form's shifted sums (1e-250 … 16), values near 1, and the whole positive range
    let mut ys = Vec::with_capacity(n - n / 2);
    while ys.len() < n - n / 2 {
        ys.push(match ys.len() % 3 {
            0 => 10f64.powf(rng.random_range(-250.0..1.2)),
            1 => 1.0 + rng.random_range(-1.0..1.0) * 10f64.powf(rng.random_range(-16.0..-0.5)),
            _ => f64::from_bits(rng.random_range(1..0x7ff0_0000_0000_0000u64)),
        });
    }
    let mut out = Vec::with_capacity(24 * n);
    for (kind, args) in [(0.0f64, &xs), (1.0, &ys)] {
        for chunk in args.chunks(4) {
            let x: [f64; 4] = std::array::from_fn(|l| chunk[l.min(chunk.len() - 1)]);
            let y = lanes(x, kind == 1.0);
            for (a, b) in chunk.iter().zip(y) {
                out.extend_from_slice(&kind.to_le_bytes());
                out.extend_from_slice(&a.to_le_bytes());
                out.extend_from_slice(&b.to_le_bytes());
            }
        }
    }
    std::fs::File::create(path)
        .and_then(|mut f| f.write_all(&out))
        .expect("write");
    eprintln!("{n} values written to {path}");
}

fn lanes(x: [f64; 4], ln: bool) -> [f64; 4] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { lanes_avx2(x, ln) };
        }
    }
    if ln {
        ln_lanes(x)
    } else {
        exp_lanes(x)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lanes_avx2(x: [f64; 4], ln: bool) -> [f64; 4] {
    if ln {
        ln_lanes(x)
    } else {
        exp_lanes(x)
    }
}
