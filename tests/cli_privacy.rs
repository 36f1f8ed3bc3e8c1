//! Command-line contract of the privacy subcommands: flags, JSON keys, "inf" strings, exit codes.

use num_complex::Complex64;
use serde_json::Value;
use std::path::PathBuf;

mod common;
use common::{run_qrenyi, temp_path};

fn qrenyi(args: &[&str]) -> (i32, String, String) {
    run_qrenyi(args)
}

fn json(args: &[&str]) -> (i32, Value) {
    let (code, out, err) = qrenyi(args);
    let v = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out} / {err}"));
    (code, v)
}

fn write(name: &str, m: [[f64; 2]; 2]) -> String {
    let path: PathBuf = temp_path(name);
    let a = ndarray::Array2::from_shape_fn((2, 2), |(i, j)| Complex64::new(m[i][j], 0.0));
    qrenyi::io::write_matrix(&path, &a).unwrap();
    path.display().to_string()
}

/// `qrenyi <cmd…> --rho a --sigma b <extra…>`, raw (exit code, stdout, stderr).
fn on_pair(cmd: &[&str], a: &str, b: &str, extra: &[&str]) -> (i32, String, String) {
    let args = [cmd, &["--rho", a, "--sigma", b], extra].concat();
    qrenyi(&args)
}

/// `qrenyi <cmd…> --rho a --sigma b <extra…> --json`, parsed.
fn on_pair_json(cmd: &[&str], a: &str, b: &str, extra: &[&str]) -> (i32, Value) {
    json(&[cmd, &["--rho", a, "--sigma", b], extra, &["--json"]].concat())
}

/// `qrenyi dp --rho a --sigma b <extra…> --json`.
fn dp(a: &str, b: &str, extra: &[&str]) -> (i32, Value) {
    on_pair_json(&["dp"], a, b, extra)
}

/// `qrenyi convert zcdp --zcdp-rho rho <extra…> --json`.
fn convert_zcdp(rho: &str, extra: &[&str]) -> (i32, Value) {
    json(&[&["convert", "zcdp", "--zcdp-rho", rho], extra, &["--json"]].concat())
}

fn states() -> (String, String, String) {
    (
        write("a.npy", [[0.7, 0.2], [0.2, 0.3]]),
        write("b.npy", [[0.4, -0.1], [-0.1, 0.6]]),
        write("c.npy", [[1.0, 0.0], [0.0, 0.0]]),
    )
}

#[test]
fn cli_convert_zcdp_published() {
    let (c, v) = convert_zcdp("0.5", &["--epsilon", "0"]);
    assert_eq!(c, 0);
    assert!((v["delta"].as_f64().unwrap() - 0.5588356393474351).abs() < 1e-14);
    let (_, v) = convert_zcdp("0.03125", &["--delta", "1e-3"]);
    assert!((v["epsilon"].as_f64().unwrap() - 0.6880024554878086).abs() < 1e-14);
    let (_, v) = convert_zcdp("0.1", &["--delta", "0"]);
    assert_eq!(v["epsilon"], "inf");
    let (_, v) = json(&[
        "convert", "rdp", "--alpha", "2", "--tau", "0.1", "--delta", "1e-5", "--json",
    ]);
    assert!(v["epsilon"].as_f64().unwrap() < v["epsilon_simple"].as_f64().unwrap());
}

#[test]
fn cli_bad_input_exits_2() {
    let (c, _, err) = qrenyi(&["convert", "zcdp", "--zcdp-rho", "-1", "--epsilon", "1"]);
    assert_eq!(c, 2);
    assert!(err.starts_with("error:"), "{err}");
    let (c, _, _) = qrenyi(&["compose", "--epsilon", "1", "--k", "0"]);
    assert_eq!(c, 2);
    // a NaN or out-of-range total δ is an error, not silently replaced by 1
    for dt in ["nan", "1.5", "-0.1"] {
        let (c, out, err) = qrenyi(&["compose", "--epsilon", "1", "--k", "3", "--delta-total", dt]);
        assert_eq!(c, 2, "--delta-total {dt}: {out}");
        assert!(
            err.starts_with("error:") && err.trim().lines().count() == 1,
            "{err}"
        );
    }
    let (c, _, _) = qrenyi(&[
        "qzcdp",
        "fit",
        "--rho",
        "/nonexistent.npy",
        "--sigma",
        "/nonexistent.npy",
    ]);
    assert_eq!(c, 2);
}

/// `qrenyi qzcdp <sub> --rho a --sigma b <extra…> --json`.
fn qz(sub: &str, a: &str, b: &str, extra: &[&str]) -> (i32, Value) {
    on_pair_json(&["qzcdp", sub], a, b, extra)
}

#[test]
fn cli_qzcdp_check_and_fit() {
    let (a, b, c) = states();
    let (code, v) = qz("fit", &a, &b, &[]);
    assert_eq!(code, 0);
    let rho = v["zcdp_rho"].as_f64().unwrap();
    assert!((rho - 0.3760355174343863).abs() < 1e-6 && v["alpha"].as_f64() == Some(1.0));
    let r_up = format!("{}", rho * 1.01);
    let (code, v) = qz("check", &a, &b, &["--xi", "0", "--zcdp-rho", &r_up]);
    assert_eq!((code, v["holds"].as_bool()), (0, Some(true)));
    assert!(v["witness_alpha"].is_null() && v["margin"].as_f64().unwrap() >= 0.0);
    let (code, v) = qz("check", &a, &b, &["--zcdp-rho", "0.3"]);
    assert_eq!((code, v["holds"].as_bool()), (1, Some(false)));
    assert!(v["witness_alpha"].as_f64().unwrap() > 1.0 && v["margin"].as_f64().unwrap() < 0.0);
    let (code, v) = qz("check", &a, &c, &["--zcdp-rho", "5", "--family", "maximal"]);
    assert_eq!(code, 1);
    assert_eq!(v["margin"], "-inf");
    let (_, v) = qz("fit", &a, &c, &[]);
    assert_eq!(v["zcdp_rho"], "inf");
    let (_, v) = qz("fit", &a, &b, &["--family", "petz"]);
    assert_eq!(v["warnings"].as_array().unwrap().len(), 1);
    let svg = temp_path("plot.svg");
    let s = svg.display().to_string();
    let (code, v) = qz("fit", &a, &b, &["--xi", "0.05", "--plot", &s]);
    assert_eq!(code, 0);
    assert!(v["zcdp_rho"].as_f64().unwrap() > 0.3);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("polyline"));
}

#[test]
fn cli_compose_marks_the_tightest() {
    let (code, v) = json(&[
        "compose",
        "--epsilon",
        "1",
        "--delta",
        "0.001",
        "--k",
        "30",
        "--delta-total",
        "0.1",
        "--json",
    ]);
    assert_eq!(code, 0);
    let rows = v["bounds"].as_array().unwrap();
    let grid = rows.iter().find(|r| r["name"] == "kov-grid").unwrap();
    assert_eq!(grid["epsilon_total"].as_f64(), Some(20.0));
    assert_eq!(v["tightest"], "kov-optimal");
    assert_eq!(rows.iter().filter(|r| r["tightest"] == true).count(), 1);
    let (_, out, _) = qrenyi(&["compose", "--epsilon", "0.1", "--k", "100"]);
    assert!(out.contains("zcdp-optimal-conversion") && out.contains('*'));
}

#[test]
fn cli_dp_of_a_pair() {
    let (a, b, _) = states();
    let (code, v) = dp(&a, &b, &["--epsilon", "0.5"]);
    assert_eq!(code, 0);
    let d = v["delta"].as_f64().unwrap();
    assert!(d > 0.0 && d < 1.0);
    let (_, w) = dp(&a, &b, &["--delta", &format!("{d}")]);
    assert!(w["epsilon"].as_f64().unwrap() <= 0.5 + 1e-9);
    assert!(w["pure_epsilon"].as_f64().unwrap() > 0.5);
}

/// `dp --profile`: δ(ε) over a grid as CSV (header, one row per ε) and JSON, each value equal to
/// the single-point `--epsilon` answer; `--profile-delta` gives ε(δ); `--base 2` reads ε in bits.
#[test]
fn cli_dp_profile() {
    let (a, b, _) = states();
    let (code, out, err) = on_pair(&["dp"], &a, &b, &["--profile", "0,0.5,1"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "epsilon,delta");
    assert_eq!(lines.len(), 4);
    let (_, v) = dp(&a, &b, &["--profile", "0,0.5,1"]);
    let prof = v["profile"].as_array().unwrap();
    for (i, e) in ["0", "0.5", "1"].iter().enumerate() {
        let (_, one) = dp(&a, &b, &["--epsilon", e]);
        assert_eq!(prof[i]["delta"], one["delta"]);
        assert_eq!(
            lines[i + 1].split(',').nth(1).unwrap().parse::<f64>().ok(),
            one["delta"].as_f64()
        );
    }
    // δ is non-increasing in ε
    let ds: Vec<f64> = prof.iter().map(|r| r["delta"].as_f64().unwrap()).collect();
    assert!(ds.windows(2).all(|w| w[1] <= w[0]), "{ds:?}");
    let (_, v) = dp(&a, &b, &["--profile-delta", "0.01"]);
    let (_, one) = dp(&a, &b, &["--delta", "0.01"]);
    assert_eq!(v["profile"][0]["epsilon"], one["epsilon"]);
    let ln2 = std::f64::consts::LN_2;
    let (_, bits) = dp(&a, &b, &["--epsilon", "1", "--base", "2"]);
    let (_, nats) = dp(&a, &b, &["--epsilon", &format!("{ln2}")]);
    assert_eq!(bits["delta"], nats["delta"]);
    let (code, _, _) = on_pair(&["dp"], &a, &b, &["--epsilon", "1", "--profile", "1"]);
    assert_eq!(code, 2);
}

/// `qrenyi mechanism`: on the depolarizing channel (unitarily covariant, so the search must
/// reproduce the closed forms of `Depolarizing`), a Kraus file gives the same answers as the
/// named channel, and parameters that do not apply are errors.
#[test]
fn cli_mechanism() {
    use qrenyi::privacy::quantum_mechanism::Depolarizing;
    // `qrenyi mechanism <parts…>`
    let mech = |parts: &[&[&str]]| qrenyi(&[&["mechanism"][..], &parts.concat()].concat());
    let dep = Depolarizing::new(2, 0.5, 1.0).unwrap();
    const DEP: [&str; 6] = ["--channel", "depolarizing", "--d", "2", "--p", "0.5"];
    const AMP: [&str; 4] = ["--channel", "amplitude-damping", "--gamma", "0.3"];
    let rest = [
        "--epsilon",
        "0.5",
        "--restarts",
        "2",
        "--iterations",
        "40",
        "--json",
    ];
    let (code, out, err) = mech(&[&DEP, &rest]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let pure = v["pure_epsilon"]["lower"].as_f64().unwrap();
    assert!(
        (pure - dep.pure_epsilon()).abs() < 1e-9 * dep.pure_epsilon(),
        "{pure}"
    );
    let d = v["delta"]["lower"].as_f64().unwrap();
    assert!((d - dep.delta(0.5).unwrap()).abs() < 1e-9, "{d}");
    let (lo, hi) = (
        v["zcdp"]["lower"].as_f64().unwrap(),
        v["zcdp"]["best_pair_upper"].as_f64().unwrap(),
    );
    assert!(lo <= hi * (1.0 + 1e-9) && lo > 0.0, "{lo} {hi}");
    // amplitude damping: named vs Kraus file
    let g: f64 = 0.3;
    let k = ndarray::Array3::from_shape_fn((2, 2, 2), |(k, i, j)| match (k, i, j) {
        (0, 0, 0) => 1.0,
        (0, 1, 1) => (1.0 - g).sqrt(),
        (1, 0, 1) => g.sqrt(),
        _ => 0.0,
    });
    let path = std::env::temp_dir().join(format!("qrenyi-kraus-{}.npy", std::process::id()));
    ndarray_npy::write_npy(&path, &k).unwrap();
    let common = ["--restarts", "2", "--iterations", "30", "--json"];
    let (_, named, _) = mech(&[&AMP, &common]);
    let (code, file, err) = mech(&[&["--kraus", path.to_str().unwrap()], &common]);
    assert_eq!(code, 0, "{err}");
    let (a, b): (Value, Value) = (
        serde_json::from_str(&named).unwrap(),
        serde_json::from_str(&file).unwrap(),
    );
    assert_eq!(a["pure_epsilon"], b["pure_epsilon"]);
    assert_eq!(a["zcdp"]["lower"], b["zcdp"]["lower"]);
    let (code, _, err) = mech(&[&DEP, &["--gamma", "1"]]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--gamma") && err.contains("does not apply"),
        "{err}"
    );
    let (code, _, _) = mech(&[&AMP, &["--d", "2"]]);
    assert_eq!(code, 2);
}
