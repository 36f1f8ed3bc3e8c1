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
        "squared-fidelity",
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

/// `--base 2` prints divergences in bits (`D / ln 2`) and leaves probabilities and fidelities alone;
/// the root fidelity of diag(0.7, 0.3) and I/2 is `√0.35 + √0.15`, its square is `F²`.
#[test]
fn base_and_root_fidelity() {
    let (rho, sigma, _) = states();
    let (code, out, err) = divergence(
        "petz",
        &rho,
        &sigma,
        &["--alpha", "2", "--base", "2", "--json"],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["base"], "2");
    let want = (0.49f64 / 0.5 + 0.09 / 0.5).log2();
    assert!((v["results"][0]["value"].as_f64().unwrap() - want).abs() < 1e-14);
    let f = 0.35f64.sqrt() + 0.15f64.sqrt();
    for (kind, want) in [("fidelity", f), ("squared-fidelity", f * f)] {
        let (code, out, err) = divergence(kind, &rho, &sigma, &["--base", "10", "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(
            (v["value"].as_f64().unwrap() - want).abs() < 1e-14,
            "{kind}: {v}"
        );
    }
    let (code, _, err) = divergence("umegaki", &rho, &sigma, &["--base", "3"]);
    assert_eq!(code, 2, "{err}");
}

/// A parameter that does not apply to the kind is an error (exit 2), never ignored.
#[test]
fn inapplicable_parameters_are_errors() {
    let (rho, sigma, _) = states();
    for (kind, extra) in [
        ("hockey-stick", ["--alpha", "2"]),
        ("sandwiched", ["--gamma", "2"]),
        ("umegaki", ["--alpha", "2"]),
        ("fidelity", ["--gamma", "1"]),
    ] {
        let (code, _, err) = divergence(kind, &rho, &sigma, &extra);
        assert_eq!(code, 2, "{kind} {extra:?}");
        assert!(
            err.starts_with("error:") && err.contains("does not apply"),
            "{err}"
        );
    }
}

/// Human output prints the shortest decimal that reads back to the same number (no `e0`).
#[test]
fn table_numbers_are_shortest_round_trip() {
    let (rho, sigma, _) = states();
    for kind in ["trace-distance", "umegaki", "fidelity"] {
        let (_, out, _) = divergence(kind, &rho, &sigma, &[]);
        let (_, js, _) = divergence(kind, &rho, &sigma, &["--json"]);
        let printed = out.split_whitespace().nth(2).unwrap();
        assert!(!printed.contains('e'), "{out}");
        // the table prints the same shortest round-trip digits as the JSON (compared as text:
        // serde_json's default float parser is not correctly rounded)
        let raw = js.split("\"value\":").nth(1).unwrap();
        let raw = raw.split([',', '}']).next().unwrap();
        assert_eq!(printed, raw, "{out} vs {js}");
        let x: f64 = printed.parse().unwrap();
        assert_eq!(format!("{x}"), printed);
    }
}
