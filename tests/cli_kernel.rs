//! `qrenyi kernel-divergence` and `qrenyi audit`: JSON contract, exit codes, errors.

use ndarray::Array2;
use qrenyi::kernel::{median_bandwidth, Kernel, KernelDivergence, KernelKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qrenyi-kernel-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn samples(dir: &Path, shift: f64) -> (PathBuf, PathBuf, Array2<f64>, Array2<f64>) {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let x = Array2::from_shape_fn((40, 3), |_| rng.sample::<f64, _>(StandardNormal));
    let mut y = Array2::from_shape_fn((30, 3), |_| rng.sample::<f64, _>(StandardNormal));
    y.column_mut(0).mapv_inplace(|v| v + shift);
    let (px, py) = (dir.join("x.npy"), dir.join("y.csv"));
    ndarray_npy::write_npy(&px, &x).unwrap();
    let csv: String = y
        .rows()
        .into_iter()
        .map(|r| {
            r.iter()
                .map(|v| format!("{v:.17e}"))
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        })
        .collect();
    std::fs::write(&py, format!("a,b,c\n{csv}")).unwrap();
    (px, py, x, y)
}

fn qrenyi(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_qrenyi"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `qrenyi <cmd> --x X --y Y <rest>` (`rest`: whitespace-separated arguments).
fn with_samples(cmd: &str, x: &Path, y: &Path, rest: &str) -> (i32, String, String) {
    let mut args = vec![cmd, "--x", x.to_str().unwrap(), "--y", y.to_str().unwrap()];
    args.extend(rest.split_whitespace());
    qrenyi(&args)
}

#[test]
fn cli_kernel_divergence_json_matches_library() {
    let dir = tmpdir("kd");
    let (px, py, x, y) = samples(&dir, 1.0);
    let kd = "kernel-divergence";
    let (code, out, err) = with_samples(
        kd,
        &px,
        &py,
        "--alpha 2,3 --lambda 0.01 --bandwidth 1.5 --json",
    );
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let k = Kernel::new(KernelKind::Rbf, 1.5).unwrap();
    let est = KernelDivergence::from_samples(x.view(), y.view(), &k).unwrap();
    for (i, a) in [2.0, 3.0].into_iter().enumerate() {
        let want = est.divergence(a, 0.01).unwrap();
        let r = &v["results"][i];
        assert_eq!(r["alpha"].as_f64(), Some(a));
        assert!((r["value"].as_f64().unwrap() - want).abs() < 1e-12 * want.abs().max(1.0));
    }
    // median bandwidth by default, +∞ as the string "inf"
    let (code, out, _) = with_samples(kd, &px, &py, "--alpha 2 --lambda 0 --json");
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["results"][0]["value"], "inf");
    let b = median_bandwidth(x.view(), y.view()).unwrap();
    assert!((v["bandwidth"].as_f64().unwrap() - b).abs() < 1e-12);
    // a missing file: exit 2, the message names it
    let (code, _, err) = with_samples(
        kd,
        Path::new("/nonexistent.npy"),
        &py,
        "--alpha 2 --lambda 0.1",
    );
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent.npy"), "{err}");
}

#[test]
fn cli_audit_contract_and_exit_codes() {
    let dir = tmpdir("audit");
    let (px, py, _, _) = samples(&dir, 0.0);
    let dp = "--alpha 2 --epsilon 1 --delta 0.005";
    let (code, out, err) = with_samples("audit", &px, &py, &format!("{dp} --lambda auto --json"));
    assert_eq!(code, 0, "{err}");
    let v = one_order(&out);
    for key in [
        "divergence",
        "bandwidth",
        "threshold",
        "violation",
        "method",
        "assumptions",
    ] {
        assert!(!v[key].is_null(), "missing {key}: {v}");
    }
    assert_eq!(v["violation"], false);
    assert_eq!(v["method"], "finite-sample");
    assert!(v["decision_rule"]
        .as_str()
        .unwrap()
        .starts_with("finite-sample: violation iff"));
    assert!((v["lambda"].as_f64().unwrap() - 0.005 * (-1f64).exp()).abs() < 1e-15);
    // a gross violation (disjoint supports), subsampling: exit code 1
    let dir2 = tmpdir("audit2");
    let (qx, qy, _, _) = samples(&dir2, 12.0);
    let rest = "--alpha 2 --lambda 0.01 --rdp-tau 0.5 --method subsample --replicates 30 --bandwidth 3 --json";
    let (code, out, err) = with_samples("audit", &qx, &qy, rest);
    assert_eq!(code, 1, "{out}{err}");
    let v = one_order(&out);
    assert_eq!(v["violation"], true);
    assert_eq!(v["interval"]["kind"], "subsample");
    // the rule that decided, and a note exactly when the interval excludes the point estimate
    let rule = v["decision_rule"].as_str().unwrap();
    assert!(
        rule.starts_with("subsample: violation iff the interval's lower end"),
        "{rule}"
    );
    let (lo, hi, d) = (
        v["interval"]["lower"].as_f64().unwrap(),
        v["interval"]["upper"].as_f64().unwrap(),
        v["divergence"].as_f64().unwrap(),
    );
    assert_eq!(v["interval_note"].is_string(), !(lo..=hi).contains(&d));
    // --base 2: τ given in bits, every divergence-valued field printed in bits
    let tau_bits = 0.5 / std::f64::consts::LN_2;
    let rest2 = rest.replace("--rdp-tau 0.5", &format!("--rdp-tau {tau_bits} --base 2"));
    let (code2, out2, err2) = with_samples("audit", &qx, &qy, &rest2);
    assert_eq!(code2, 1, "{err2}");
    let w = one_order(&out2);
    assert_eq!(w["base"], "2");
    for k in ["divergence", "threshold", "tau"] {
        let (nats, bits) = (v[k].as_f64().unwrap(), w[k].as_f64().unwrap());
        assert!(
            (bits - nats / std::f64::consts::LN_2).abs() < 1e-12 * (1.0 + bits.abs()),
            "{k}"
        );
    }
    // λ below δe^(−ε): exit 2 with a message
    let (code, _, err) = with_samples("audit", &px, &py, &format!("{dp} --lambda 1e-6"));
    assert_eq!(code, 2);
    assert!(err.starts_with("error:") && err.contains("λ"), "{err}");
}

/// The one result of a one-order `audit --json` (with the top level's `violation` checked).
fn one_order(out: &str) -> Value {
    let v: Value = serde_json::from_str(out).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{v}");
    assert_eq!(v["violation"], results[0]["violation"]);
    results[0].clone()
}

/// `--alpha` takes a list: one result per order, each equal to that order's one-order run (the
/// Gram blocks and the resampling draws are shared, not changed); the exit code is 1 iff some
/// order detects a violation, and the human output has one row per order.
#[test]
fn cli_audit_alpha_list_is_one_test_per_order() {
    let dir = tmpdir("audit-list");
    let (qx, qy, _, _) = samples(&dir, 1.5);
    let common =
        "--lambda 0.01 --rdp-tau 0.3 --method bootstrap --replicates 25 --seed 3 --bandwidth 2";
    let (code, out, err) = with_samples(
        "audit",
        &qx,
        &qy,
        &format!("--alpha 0.5,2,inf {common} --json"),
    );
    assert!(code == 0 || code == 1, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    let mut any = false;
    for (r, a) in results.iter().zip(["0.5", "2", "inf"]) {
        let (c1, out1, err1) =
            with_samples("audit", &qx, &qy, &format!("--alpha {a} {common} --json"));
        assert!(c1 == 0 || c1 == 1, "{err1}");
        let single = one_order(&out1);
        assert_eq!(r, &single, "α = {a}");
        any |= single["violation"] == true;
    }
    assert_eq!(v["violation"], any);
    assert_eq!(code, i32::from(any));
    assert!((v["family_wise_level"].as_f64().unwrap() - 3.0 * 0.05).abs() < 1e-15);
    let (_, human, _) = with_samples("audit", &qx, &qy, &format!("--alpha 0.5,2,inf {common}"));
    let rows = human
        .lines()
        .filter(|l| l.contains("violation detected") || l.contains("VIOLATION DETECTED"))
        .count();
    assert_eq!(rows, 3, "{human}");
    // an order the finite-sample threshold cannot take, anywhere in the list: exit 2
    let (code, _, err) = with_samples("audit", &qx, &qy, "--alpha 2,0.5 --lambda 0.01 --tau 1");
    assert_eq!(code, 2);
    assert!(err.starts_with("error:") && err.contains("0.5"), "{err}");
}

/// `qrenyi audit gaussian-experiment` at d = 3, n = 20, two runs, α = 2, two λ, into `dir`.
fn small_experiment(dir: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "audit",
        "gaussian-experiment",
        "--dim",
        "3",
        "--n",
        "20",
        "--runs",
        "2",
        "--alpha",
        "2",
        "--lambdas",
        "0.01,0.1",
        "--out",
        dir.to_str().unwrap(),
    ];
    args.extend(extra);
    qrenyi(&args)
}

#[test]
fn cli_gaussian_experiment_writes_outputs() {
    let dir = tmpdir("exp");
    let (code, out, err) = small_experiment(&dir, &[]);
    assert_eq!(code, 0, "{err}");
    for f in [
        "runs.csv",
        "curves.csv",
        "figure1.svg",
        "figure1.png",
        "summary.md",
    ] {
        let p = dir.join(f);
        assert!(
            p.exists() && std::fs::metadata(&p).unwrap().len() > 100,
            "{f}: {out}"
        );
    }
    let png = std::fs::read(dir.join("figure1.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let curves = std::fs::read_to_string(dir.join("curves.csv")).unwrap();
    // 4 scenarios × 1 n × 1 α × 2 λ, plus the header
    assert_eq!(curves.lines().count(), 1 + 4 * 2);
    assert!(curves.starts_with("delta_sens,epsilon_nats,"), "{curves}");
    // --base 2: the same run (same seed) with every ε and divergence column in bits, the unit
    // named in the headers and the summary
    let dir2 = tmpdir("exp-bits");
    let (code, _, err) = small_experiment(&dir2, &["--base", "2"]);
    assert_eq!(code, 0, "{err}");
    let table = |text: &str| -> (Vec<String>, Vec<Vec<f64>>) {
        let mut lines = text.lines();
        let head = lines.next().unwrap().split(',').map(String::from).collect();
        let rows = lines
            .map(|l| l.split(',').map(|v| v.parse::<f64>().unwrap()).collect())
            .collect();
        (head, rows)
    };
    for file in ["curves.csv", "runs.csv"] {
        let (hn, rn) = table(&std::fs::read_to_string(dir.join(file)).unwrap());
        let (hb, rb) = table(&std::fs::read_to_string(dir2.join(file)).unwrap());
        assert_eq!(rn.len(), rb.len(), "{file}");
        let mut scaled = 0;
        for (j, (n, b)) in hn.iter().zip(&hb).enumerate() {
            let logarithmic = n.ends_with("_nats");
            assert_eq!(
                b,
                &if logarithmic {
                    n.replace("_nats", "_bits")
                } else {
                    n.clone()
                },
                "{file}"
            );
            scaled += usize::from(logarithmic);
            for (x, y) in rn.iter().zip(&rb) {
                let want = if logarithmic {
                    x[j] / std::f64::consts::LN_2
                } else {
                    x[j]
                };
                assert!(
                    (y[j] - want).abs() <= 1e-12 * want.abs().max(1.0),
                    "{file} {n}: {} vs {want}",
                    y[j]
                );
            }
        }
        // ε and the divergence (runs); ε, mean, std and the exact Rényi divergence (curves)
        assert_eq!(scaled, if file == "runs.csv" { 2 } else { 4 }, "{file}");
    }
    let summary = std::fs::read_to_string(dir2.join("summary.md")).unwrap();
    assert!(
        summary.contains("every divergence below in bits"),
        "{summary}"
    );
    assert!(summary.contains("exact RD αΔ²/2σ² (bits)"), "{summary}");
}
