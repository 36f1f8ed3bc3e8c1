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

fn c(re: f64) -> num_complex::Complex64 {
    num_complex::Complex64::new(re, 0.0)
}

fn petz2_json(rho: &str, sigma: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["--alpha", "2", "--json"];
    args.extend_from_slice(extra);
    divergence("petz", rho, sigma, &args)
}

fn value_of(out: &str) -> f64 {
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    v["results"][0]["value"].as_f64().unwrap()
}

/// `.npz` archives: `FILE.npz:NAME`, a one-array archive without `:NAME`, and a clear error for
/// an archive of several arrays without a name or with an unknown name.
#[test]
fn npz_inputs() {
    use ndarray_npy::NpzWriter;
    let (rho, sigma, _) = states();
    let (_, want, _) = petz2_json(&rho, &sigma, &[]);
    let both = temp_path("pair.npz");
    let mut w = NpzWriter::new(std::fs::File::create(&both).unwrap());
    w.add_array("rho", &ndarray::arr2(&[[c(0.7), c(0.0)], [c(0.0), c(0.3)]]))
        .unwrap();
    w.add_array("sigma", &ndarray::arr2(&[[0.5, 0.0], [0.0, 0.5]]))
        .unwrap();
    w.finish().unwrap();
    let one = temp_path("sigma_only.npz");
    let mut w = NpzWriter::new_compressed(std::fs::File::create(&one).unwrap());
    w.add_array("s", &ndarray::arr2(&[[0.5, 0.0], [0.0, 0.5]]))
        .unwrap();
    w.finish().unwrap();
    let b = both.to_str().unwrap();
    let (code, out, err) = petz2_json(&format!("{b}:rho"), &format!("{b}:sigma"), &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(value_of(&out), value_of(&want));
    let (code, out, err) = petz2_json(&format!("{b}:rho"), one.to_str().unwrap(), &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(value_of(&out), value_of(&want));
    let (code, _, err) = petz2_json(b, &sigma, &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("rho, sigma") && err.contains("FILE.npz:NAME"),
        "{err}"
    );
    let (code, _, err) = petz2_json(&format!("{b}:tau"), &sigma, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("\"tau\""), "{err}");
}

/// float32 / complex64 `.npy` are promoted to f64 and validated with the single-precision
/// tolerance: diag(0.7, 0.3) in float32 has trace 1 + 1.2e-8 (rejected at the default 1e-10).
#[test]
fn single_precision_npy() {
    let (_, sigma, _) = states();
    let p32 = temp_path("rho32.npy");
    ndarray_npy::write_npy(&p32, &ndarray::arr2(&[[0.7f32, 0.0], [0.0, 0.3]])).unwrap();
    let (code, out, err) = petz2_json(p32.to_str().unwrap(), &sigma, &[]);
    assert_eq!(code, 0, "{err}");
    let (a, b) = (0.7f32 as f64, 0.3f32 as f64);
    let want = ((a * a + b * b) / (a + b) / 0.5).ln(); // Petz D_2 of the promoted, unnormalised diag
    assert!((value_of(&out) - want).abs() < 1e-13, "{out} vs {want}");
    let pc = temp_path("rho64c.npy");
    let z = |x: f32| num_complex::Complex32::new(x, 0.0);
    ndarray_npy::write_npy(&pc, &ndarray::arr2(&[[z(0.7), z(0.0)], [z(0.0), z(0.3)]])).unwrap();
    let (code, out2, err) = petz2_json(pc.to_str().unwrap(), &sigma, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(value_of(&out2), value_of(&out));
}

/// A 3-D stack `(n, d, d)` against a single σ: one JSON line per pair, in order, each the
/// single-pair object; human output one line per pair. Stacks of different lengths are an error.
#[test]
fn stacks_give_one_line_per_pair() {
    let (_, sigma, _) = states();
    let ps = [0.7, 0.9, 0.5];
    let stack = ndarray::Array3::from_shape_fn((3, 2, 2), |(k, i, j)| {
        if i != j {
            0.0
        } else if i == 0 {
            ps[k]
        } else {
            1.0 - ps[k]
        }
    });
    let path = temp_path("stack.npy");
    ndarray_npy::write_npy(&path, &stack).unwrap();
    let (code, out, err) = petz2_json(path.to_str().unwrap(), &sigma, &[]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    for (line, p) in lines.iter().zip(ps) {
        let one = write(
            "one.json",
            &format!("[[{p}, 0], [0, {}]]", 1.0 - p), // plain nested list
        );
        let (_, single, _) = petz2_json(one.to_str().unwrap(), &sigma, &[]);
        assert_eq!(line.trim(), single.trim());
    }
    let (code, out, _) = divergence("trace-distance", path.to_str().unwrap(), &sigma, &[]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 3);
    assert!(
        out.lines()
            .nth(2)
            .unwrap()
            .starts_with("pair 2: trace-distance"),
        "{out}"
    );
    let two = temp_path("stack2.npy");
    ndarray_npy::write_npy(&two, &stack.slice(ndarray::s![0..2, .., ..]).to_owned()).unwrap();
    let (code, _, err) = divergence(
        "umegaki",
        path.to_str().unwrap(),
        two.to_str().unwrap(),
        &[],
    );
    assert_eq!(code, 2);
    assert!(err.contains("3 vs 2"), "{err}");
}

/// JSON errors name the file and the field with its position.
#[test]
fn json_errors_name_file_and_field() {
    let (_, sigma, _) = states();
    let bad = write(
        "badfield.json",
        r#"{"re": [[0.5, 0], [0, 0.5]], "im": [[0, 0], [0, "x"]]}"#,
    );
    let (code, _, err) = divergence("umegaki", bad.to_str().unwrap(), &sigma, &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("badfield.json") && err.contains("\"im\"[1][1]"),
        "{err}"
    );
    let ragged = write("ragged.json", "[[0.5, 0], [0]]");
    let (code, _, err) = divergence("umegaki", ragged.to_str().unwrap(), &sigma, &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("ragged.json") && err.contains("top level[1]"),
        "{err}"
    );
}

/// `--normalize` divides by the trace (and says so); without it trace 2 is an error.
#[test]
fn normalize_divides_by_the_trace() {
    let (rho, sigma, _) = states();
    let twice = write("twice.json", "[[1.4, 0], [0, 0.6]]");
    let (code, _, err) = petz2_json(twice.to_str().unwrap(), &sigma, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("trace"), "{err}");
    let (code, out, err) = petz2_json(twice.to_str().unwrap(), &sigma, &["--normalize"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("divided by its trace 2"), "{err}");
    let (_, want, _) = petz2_json(&rho, &sigma, &[]);
    assert!((value_of(&out) - value_of(&want)).abs() < 1e-15);
}

/// `--plot`: the format follows the extension (SVG text, PNG magic bytes); other extensions and
/// kinds without α are errors (exit 2), checked before any computation.
#[test]
fn plot_format_from_extension() {
    let (rho, sigma, _) = states();
    let svg = temp_path("curve.svg");
    let (code, _, err) = divergence(
        "sandwiched",
        &rho,
        &sigma,
        &["--plot", svg.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with("<svg") && text.contains("α = 1 limit") && text.contains("α = ∞ limit")
    );
    let png = temp_path("curve.png");
    let (code, _, err) = divergence("petz", &rho, &sigma, &["--plot", png.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(&std::fs::read(&png).unwrap()[..4], b"\x89PNG");
    let pdf = temp_path("curve.pdf");
    let (code, _, err) = divergence("petz", &rho, &sigma, &["--plot", pdf.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains(".svg or .png"), "{err}");
    assert!(!pdf.exists());
    let (code, _, _) = divergence("umegaki", &rho, &sigma, &["--plot", svg.to_str().unwrap()]);
    assert_eq!(code, 2);
}

/// A `.npy` whose header announces far more data than the file holds is an error naming the
/// sizes (checked before anything is allocated), not an abort.
#[test]
fn npy_header_larger_than_file_is_an_error() {
    let (_, sigma, _) = states();
    let header = "{'descr': '<f8', 'fortran_order': False, 'shape': (100000000, 100000, 100000), }";
    let mut h = header.to_string();
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(h.len() as u16).to_le_bytes());
    bytes.extend_from_slice(h.as_bytes());
    bytes.extend_from_slice(&[0u8; 64]);
    let p = temp_path("forged.npy");
    std::fs::write(&p, bytes).unwrap();
    let (code, _, err) = divergence("umegaki", p.to_str().unwrap(), &sigma, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the file holds only 64 bytes"), "{err}");
}
