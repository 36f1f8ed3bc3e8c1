//! The command-line contract of `qrenyi divergence`: flags, JSON shapes, "inf", exit codes.

mod common;

use common::{run_qrenyi, temp_path};
use std::path::PathBuf;

fn qrenyi(args: &[&str]) -> (i32, String, String) {
    run_qrenyi(args)
}

/// `qrenyi divergence --kind K --rho R --sigma S EXTRA…`.
fn divergence(kind: &str, rho: &str, sigma: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["divergence", "--kind", kind, "--rho", rho, "--sigma", sigma];
    args.extend_from_slice(extra);
    qrenyi(&args)
}

fn write(name: &str, text: &str) -> PathBuf {
    let p = temp_path(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn states() -> (String, String, String) {
    let rho = write(
        "rho.json",
        r#"{"re": [[0.7, 0.0], [0.0, 0.3]], "im": [[0.0, 0.0], [0.0, 0.0]]}"#,
    );
    let sigma = write("sigma.json", r#"{"re": [[0.5, 0.0], [0.0, 0.5]]}"#);
    let pure = write("pure.json", r#"{"re": [[0.0, 0.0], [0.0, 1.0]]}"#);
    let s = |p: PathBuf| p.to_string_lossy().into_owned();
    (s(rho), s(sigma), s(pure))
}

#[test]
fn json_results_for_a_family() {
    let (rho, sigma, _) = states();
    let (code, out, _) = divergence("petz", &rho, &sigma, &["--alpha", "2,inf", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["kind"], "petz");
    let res = v["results"].as_array().unwrap();
    assert_eq!(res.len(), 2);
    assert_eq!(res[0]["alpha"], 2.0);
    let want = (0.49f64 / 0.5 + 0.09 / 0.5).ln();
    assert!((res[0]["value"].as_f64().unwrap() - want).abs() < 1e-14);
    assert_eq!(res[1]["alpha"], "inf");
    assert!((res[1]["value"].as_f64().unwrap() - 1.4f64.ln()).abs() < 1e-14);
}

#[test]
fn json_single_value_kinds_and_inf() {
    let (rho, sigma, pure) = states();
    let (code, out, _) = divergence("umegaki", &pure, &sigma, &["--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["kind"], "umegaki");
    assert!((v["value"].as_f64().unwrap() - 2f64.ln()).abs() < 1e-14);
    let (_, out, _) = divergence("max", &rho, &pure, &["--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["value"], "inf");
    let (_, out, _) = divergence("hockey-stick", &rho, &sigma, &["--gamma", "1,2", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["results"][0]["gamma"], 1.0);
    assert!((v["results"][0]["value"].as_f64().unwrap() - 0.2).abs() < 1e-15);
    assert_eq!(v["results"][1]["value"], 0.0);
}

#[test]
fn table_output_and_every_kind_runs() {
    let (rho, sigma, _) = states();
    for kind in [
        "petz",
        "sandwiched",
        "maximal",
        "umegaki",
        "bs",
        "max",
        "hockey-stick",
        "trace-distance",
        "fidelity",
    ] {
        let (code, out, err) = divergence(kind, &rho, &sigma, &[]);
        assert_eq!(code, 0, "{kind}: {err}");
        assert!(out.contains(kind), "{kind}: {out}");
    }
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    let (rho, _, _) = states();
    let bad = write("bad.json", r#"{"re": [[0.7, 0.2], [0.1, 0.3]]}"#);
    let (code, out, err) = divergence("petz", &rho, bad.to_str().unwrap(), &[]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not Hermitian"), "{err}");
    let (code, _, err) = divergence("petz", &rho, "/nonexistent.npy", &[]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: "), "{err}");
    let (code, _, _) = divergence("petz", &rho, &rho, &["--alpha", "-1"]);
    assert_eq!(code, 2);
    let (code, _, _) = divergence("petz", &rho, &rho, &["--alpha", "nan"]);
    assert_eq!(code, 2);
}

#[test]
fn npy_input_is_read() {
    let (_, sigma, _) = states();
    let m = ndarray::arr2(&[
        [
            num_complex::Complex64::new(0.6, 0.0),
            num_complex::Complex64::new(0.1, 0.1),
        ],
        [
            num_complex::Complex64::new(0.1, -0.1),
            num_complex::Complex64::new(0.4, 0.0),
        ],
    ]);
    let p = temp_path("m.npy");
    qrenyi::io::write_matrix(&p, &m).unwrap();
    let (code, out, err) = divergence("fidelity", p.to_str().unwrap(), &sigma, &["--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["value"].as_f64().unwrap() > 0.9);
}
