//! Hostile input to the `qrenyi` binary (issue 10 §4): every case must end as one `error: …` line
//! on stderr and exit code 2, within a time limit and under a virtual-memory limit
//! (`ulimit -v`), or print the right value; no file outside the named outputs is touched.

mod common;

use common::{le_bytes, npy, temp_path};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Virtual-memory limit for every run (KiB): far below the allocations the hostile inputs used
/// to trigger (160 GB, 64 GiB, 80 GB), above what OpenBLAS and rayon reserve.
const VMEM_KIB: u64 = 4 << 20;
/// Wall-clock limit for every run (s).
const SECONDS: u64 = 60;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_qrenyi")
}

/// Run `qrenyi ARGS` under `ulimit -v` and `timeout`; `redirect` is appended to the shell's
/// `exec` line (e.g. `>&-`).
fn run_with(args: &[&str], redirect: &str) -> (i32, String, String) {
    let script =
        format!("ulimit -v {VMEM_KIB}; exec timeout -s KILL {SECONDS} \"$0\" \"$@\" {redirect}");
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(bin())
        .args(args)
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .expect("spawn sh");
    let code = out.status.code().unwrap_or(-1);
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_with(args, "")
}

/// Exactly one stderr line `error: …` containing every `needle`, exit 2.
#[track_caller]
fn assert_error(args: &[&str], needles: &[&str]) -> String {
    let (code, _, err) = run(args);
    assert_error_output(code, &err, args, needles);
    err
}

#[track_caller]
fn assert_error_output(code: i32, err: &str, args: &[&str], needles: &[&str]) {
    assert_eq!(code, 2, "{args:?}: exit {code}, stderr: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: stderr is not one line: {err}");
    assert!(lines[0].starts_with("error: "), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: {err:?} lacks {n:?}");
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let p = temp_path(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn state_json(name: &str, re: &str) -> PathBuf {
    write(name, format!("{{\"re\": {re}}}").as_bytes())
}

fn states() -> (PathBuf, PathBuf) {
    (
        state_json("rho.json", "[[0.7, 0.1], [0.1, 0.3]]"),
        state_json("sigma.json", "[[0.5, 0.0], [0.0, 0.5]]"),
    )
}

fn samples(name: &str, scale: f64) -> PathBuf {
    // 40 points in 2-D, deterministic
    let mut text = String::new();
    for i in 0..40 {
        let (a, b) = ((i as f64 * 0.37).sin(), (i as f64 * 0.91).cos());
        let shift = if name.starts_with('y') { 0.5 } else { 0.0 };
        text.push_str(&format!("{},{}\n", (a + shift) * scale, b * scale));
    }
    write(name, text.as_bytes())
}

// ---------------------------------------------------------------------------------------------
// .npy headers

#[test]
fn forged_npy_shape_is_refused_before_allocating_in_every_subcommand() {
    let big = write(
        "big.npy",
        &npy("<c16", "(100000, 100000)", false, &[0u8; 32]),
    );
    let big_real = write(
        "big_real.npy",
        &npy("<f8", "(100000, 100000)", false, &[0u8; 32]),
    );
    let (rho, sigma) = states();
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "divergence",
            "--kind",
            "umegaki",
            "--rho",
            s(&big),
            "--sigma",
            s(&sigma),
        ],
        vec!["dp", "--rho", s(&rho), "--sigma", s(&big), "--epsilon", "1"],
        vec![
            "qzcdp",
            "check",
            "--rho",
            s(&big),
            "--sigma",
            s(&sigma),
            "--zcdp-rho",
            "1",
        ],
        vec![
            "kernel-divergence",
            "--x",
            s(&big_real),
            "--y",
            s(&big_real),
            "--alpha",
            "2",
            "--lambda",
            "0.1",
        ],
        vec![
            "audit",
            "--x",
            s(&big_real),
            "--y",
            s(&big_real),
            "--alpha",
            "2",
            "--lambda",
            "0.1",
            "--tau",
            "1",
        ],
    ];
    for args in &cases {
        assert_error(args, &["declares", "100000, 100000", "holds only"]);
    }
}

#[test]
fn npy_shapes_and_trailing_bytes_are_named() {
    let (_, sigma) = states();
    let one_d = write("one.npy", &npy("<f8", "(4,)", false, &le_bytes(&[0.25; 4])));
    // 3-D arrays are stacks (n, d, d); four axes are not
    let four_d = write(
        "four.npy",
        &npy(
            "<f8",
            "(1, 1, 2, 2)",
            false,
            &le_bytes(&[0.5, 0.0, 0.0, 0.5]),
        ),
    );
    let trailing = write(
        "trailing.npy",
        &npy(
            "<f8",
            "(2, 2)",
            false,
            &le_bytes(&[0.5, 0.0, 0.0, 0.5, 9.0]),
        ),
    );
    let dtype = write("dtype.npy", &npy("<i4", "(2, 2)", false, &[0u8; 16]));
    let overflow = write(
        "overflow.npy",
        &npy("<c16", "(4294967296, 4294967296)", false, &[0u8; 16]),
    );
    let div = |p: &PathBuf| {
        vec![
            "divergence".to_string(),
            "--kind".into(),
            "umegaki".into(),
            "--rho".into(),
            s(p).to_string(),
            "--sigma".into(),
            s(&sigma).to_string(),
        ]
    };
    for (p, needles) in [
        (&one_d, vec!["2-D", "1-D array of shape (4,)"]),
        (&four_d, vec!["2-D", "4-D array of shape (1, 1, 2, 2)"]),
        (&trailing, vec!["8 trailing bytes"]),
        (&dtype, vec!["'<i4'", "not supported"]),
        (&overflow, vec!["overflows"]),
    ] {
        let args = div(p);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let err = assert_error(&args, &needles);
        assert!(!err.contains("incorrect descriptor"), "{err}");
    }
}

#[test]
fn a_valid_npy_still_reads() {
    let rho = write(
        "rho.npy",
        &npy("<f8", "(2, 2)", false, &le_bytes(&[0.7, 0.1, 0.1, 0.3])),
    );
    let (_, sigma) = states();
    let (code, out, err) = run(&[
        "divergence",
        "--kind",
        "trace-distance",
        "--rho",
        s(&rho),
        "--sigma",
        s(&sigma),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("results") || out.contains("value"), "{out}");
}

#[test]
fn json_shape_error_names_the_file() {
    let (_, sigma) = states();
    let bad = state_json("ragged.json", "[[0.5, 0.5], [0.5]]");
    assert_error(
        &[
            "divergence",
            "--kind",
            "umegaki",
            "--rho",
            s(&bad),
            "--sigma",
            s(&sigma),
        ],
        &["ragged.json", "different lengths"],
    );
}

// ---------------------------------------------------------------------------------------------
// tolerance, orders

#[test]
fn tolerance_is_bounded_with_a_reason() {
    let (rho, _) = states();
    let zero = state_json("zero.json", "[[0.0, 0.0], [0.0, 0.0]]");
    let neg = state_json("neg.json", "[[1.2, 0.0], [0.0, -0.2]]");
    for (r, sg) in [(&rho, &zero), (&zero, &rho), (&neg, &rho)] {
        for tol in ["1", "1e308"] {
            assert_error(
                &[
                    "divergence",
                    "--kind",
                    "umegaki",
                    "--rho",
                    s(r),
                    "--sigma",
                    s(sg),
                    "--tolerance",
                    tol,
                ],
                &["tolerance", "not states"],
            );
        }
    }
}

#[test]
fn a_zero_matrix_is_not_a_state_at_the_default_tolerance() {
    let (rho, _) = states();
    let zero = state_json("zero.json", "[[0.0, 0.0], [0.0, 0.0]]");
    assert_error(
        &[
            "divergence",
            "--kind",
            "umegaki",
            "--rho",
            s(&zero),
            "--sigma",
            s(&rho),
        ],
        &["trace"],
    );
}

#[test]
fn huge_trace_is_printed_short() {
    let (rho, _) = states();
    let big = state_json("big.json", "[[1e300, 0.0], [0.0, 1.0]]");
    let err = assert_error(
        &[
            "divergence",
            "--kind",
            "umegaki",
            "--rho",
            s(&big),
            "--sigma",
            s(&rho),
        ],
        &["trace is 1.0000e300"],
    );
    assert!(err.len() < 300, "{err}");
}

// ---------------------------------------------------------------------------------------------
// unbounded integers

#[test]
fn compose_k_is_bounded() {
    for k in ["18446744073709551615", "4294967296", "100000"] {
        assert_error(
            &["compose", "--epsilon", "0.1", "--delta", "1e-6", "--k", k],
            &["at most 10000"],
        );
    }
    let (code, out, err) = run(&[
        "compose",
        "--epsilon",
        "0.1",
        "--delta",
        "1e-6",
        "--k",
        "100",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("kov-optimal"));
}

#[test]
fn audit_replicates_and_experiment_n_are_bounded() {
    let (x, y) = (samples("x.csv", 1.0), samples("y.csv", 1.0));
    assert_error(
        &[
            "audit",
            "--x",
            s(&x),
            "--y",
            s(&y),
            "--alpha",
            "2",
            "--lambda",
            "0.1",
            "--tau",
            "1",
            "--method",
            "bootstrap",
            "--replicates",
            "18446744073709551615",
        ],
        &["replicates", "100000"],
    );
    let out = temp_path("exp");
    assert_error(
        &[
            "audit",
            "gaussian-experiment",
            "--n",
            "100000",
            "--out",
            s(&out),
        ],
        &["at most 10000"],
    );
    assert!(!out.exists(), "nothing written for a refused run");
}

#[test]
fn verify_threads_are_bounded() {
    assert_error(
        &[
            "verify",
            "--lemma",
            "kl-nonnegative",
            "--threads",
            "100000",
            "--no-save",
        ],
        &["threads", "per available core"],
    );
}

#[test]
fn verify_trials_stream_in_bounded_memory() {
    // u64::MAX trials: the run starts (streaming, memory flat) and is stopped by the timeout;
    // before streaming it was OOM-killed while allocating the trial list.
    let script = format!(
        "ulimit -v {VMEM_KIB}; timeout -s INT 4 \"$0\" verify --lemma kl-nonnegative --trials \
         18446744073709551615 --restarts 0 --threads 2 --no-save --json; echo \"rc=$?\""
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(bin())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    // 124/130: stopped by the timeout's SIGINT; no allocation failure, no abort
    assert!(
        text.contains("rc=124") || text.contains("rc=130"),
        "{text} {err}"
    );
    assert!(!err.contains("memory allocation"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// kernel overflow, CSV

fn kernel_value(x: &Path, y: &Path) -> f64 {
    let (code, out, err) = run(&[
        "kernel-divergence",
        "--x",
        s(x),
        "--y",
        s(y),
        "--alpha",
        "2",
        "--lambda",
        "0.1",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["value"]
        .as_f64()
        .or_else(|| v["results"][0]["value"].as_f64())
        .or_else(|| v["divergence"].as_f64())
        .unwrap_or_else(|| panic!("no value in {out}"))
}

#[test]
fn kernel_divergence_is_scale_invariant_up_to_1e300() {
    let base = kernel_value(&samples("x.csv", 1.0), &samples("y.csv", 1.0));
    for scale in [1e10, 1e300, 1e-300] {
        let v = kernel_value(&samples("x.csv", scale), &samples("y.csv", scale));
        assert!(
            (v - base).abs() <= 1e-9 * base.abs().max(1.0),
            "scale {scale}: {v} vs {base}"
        );
    }
}

#[test]
fn csv_byte_order_mark_keeps_the_first_row() {
    let x = samples("x.csv", 1.0);
    let y = samples("y.csv", 1.0);
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend_from_slice(&std::fs::read(&x).unwrap());
    let xb = write("xbom.csv", &with_bom);
    assert_eq!(kernel_value(&x, &y), kernel_value(&xb, &y));
}

#[test]
fn csv_non_finite_values_are_refused() {
    let x = write("nan.csv", b"1,2\nnan,3\n");
    let y = samples("y.csv", 1.0);
    assert_error(
        &[
            "kernel-divergence",
            "--x",
            s(&x),
            "--y",
            s(&y),
            "--alpha",
            "2",
            "--lambda",
            "0.1",
        ],
        &["non-finite", "row 2"],
    );
}

// ---------------------------------------------------------------------------------------------
// verify --replay, merge

/// Run the `triangle-inequality` search (refuted within a few trials) saving into `dir`.
fn save_triangle_counterexample(dir: &Path) {
    let (code, _, err) = run(&[
        "verify",
        "--lemma",
        "triangle-inequality",
        "--trials",
        "200",
        "--max-dim",
        "3",
        "--threads",
        "2",
        "--json",
        "--save-dir",
        s(dir),
    ]);
    assert!(code == 0 || code == 1, "{err}");
}

/// The `.json` files in `dir`.
fn saved_json(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect()
}

/// A saved counterexample of `triangle-inequality` (known false, refuted within a few trials).
fn counterexample() -> (PathBuf, serde_json::Value) {
    let dir = temp_path("cx");
    save_triangle_counterexample(&dir);
    let file = saved_json(&dir)
        .into_iter()
        .next()
        .expect("a saved counterexample");
    let doc = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    (file, doc)
}

fn replay_edited(
    doc: &serde_json::Value,
    edit: impl Fn(&mut serde_json::Value),
) -> (i32, String, String) {
    let mut d = doc.clone();
    edit(&mut d);
    let p = write("edited.json", d.to_string().as_bytes());
    run(&["verify", "--replay", s(&p)])
}

#[test]
fn replay_checks_the_instance_margin_and_file_names() {
    let (file, doc) = counterexample();
    let (code, out, err) = run(&["verify", "--replay", s(&file)]);
    assert_eq!(code, 0, "{out} {err}");
    assert!(out.contains("violation confirmed    yes"), "{out}");

    // α moved outside the statement's range (α > 1 for the triangle inequality)
    let (code, _, err) = replay_edited(&doc, |d| {
        for it in d["items"].as_array_mut().unwrap() {
            if it["name"] == "alpha" {
                it["value"] = serde_json::json!(0.31);
            }
        }
    });
    assert_error_output(code, &err, &["replay α"], &["alpha", "outside the range"]);

    // relabelled to a statement without these items
    let (code, _, err) = replay_edited(&doc, |d| d["lemma"] = "kl-nonnegative".into());
    assert_error_output(
        code,
        &err,
        &["relabel"],
        &["not part of statement kl-nonnegative"],
    );

    // garbage margin
    for garbage in [
        serde_json::json!("NaN"),
        serde_json::json!([1]),
        serde_json::json!(null),
    ] {
        let (code, _, err) = replay_edited(&doc, |d| d["margin"] = garbage.clone());
        assert_error_output(code, &err, &["garbage"], &["margin"]);
    }

    // edited margin: flagged, exit 1
    let (code, out, _) = replay_edited(&doc, |d| d["margin"] = serde_json::json!(-1234.5));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("does NOT match"), "{out}");

    // a file reference leaving the directory
    let (code, _, err) = replay_edited(&doc, |d| {
        d["items"][0]["file"] = "../../etc/passwd".into();
    });
    assert_error_output(code, &err, &["traversal"], &["plain file name"]);
}

#[test]
fn replay_reads_its_npy_files_through_the_checked_reader() {
    let dir = temp_path("qcx");
    let (code, _, err) = run(&[
        "verify",
        "--lemma",
        "data-processing-sandwiched-below-half",
        "--trials",
        "3000",
        "--max-dim",
        "2",
        "--threads",
        "2",
        "--json",
        "--save-dir",
        s(&dir),
    ]);
    assert!(code == 0 || code == 1, "{err}");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let json = files
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("a saved counterexample");
    let rho = files
        .iter()
        .find(|p| p.to_string_lossy().ends_with("-rho.npy"))
        .expect("rho.npy");
    // relabelled to the theorem (α ≥ ½, issue 10's example): α of this counterexample is < ½
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    doc["lemma"] = "data-processing-sandwiched".into();
    let relabelled = dir.join("relabelled.json");
    std::fs::write(&relabelled, doc.to_string()).unwrap();
    assert_error(
        &["verify", "--replay", s(&relabelled)],
        &["alpha", "outside the range", "data-processing-sandwiched"],
    );
    // a forged .npy beside it
    std::fs::write(rho, npy("<c16", "(100000, 100000)", false, &[0u8; 32])).unwrap();
    assert_error(
        &["verify", "--replay", s(json)],
        &["declares", "holds only"],
    );
}

fn shard_report(shard: &str, trials: &str) -> PathBuf {
    let (code, out, err) = run(&[
        "verify",
        "--lemma",
        "kl-nonnegative",
        "--trials",
        trials,
        "--shard",
        shard,
        "--restarts",
        "0",
        "--json",
        "--no-save",
    ]);
    assert_eq!(code, 0, "{err}");
    write("shard.json", out.as_bytes())
}

#[test]
fn merge_refuses_duplicates_overflow_invalid_shards_and_mixed_trials() {
    let s0 = shard_report("0/2", "100");
    let s1 = shard_report("1/2", "100");
    let (code, out, err) = run(&["verify", "merge", s(&s0), s(&s1), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["trials"], 100);

    assert_error(
        &["verify", "merge", s(&s0), s(&s1), s(&s1)],
        &["given twice"],
    );

    let other = shard_report("1/2", "60");
    assert_error(
        &["verify", "merge", s(&s0), s(&other)],
        &["different --trials"],
    );

    let text = std::fs::read_to_string(&s1).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v[0]["shards"] = serde_json::json!([[5, 2]]);
    let bad = write("bad.json", v.to_string().as_bytes());
    assert_error(
        &["verify", "merge", s(&s0), s(&bad)],
        &["5/2", "not a shard"],
    );

    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v[0]["trials"] = serde_json::json!(u64::MAX);
    let huge = write("huge.json", v.to_string().as_bytes());
    assert_error(&["verify", "merge", s(&s0), s(&huge)], &["overflows"]);
}

// ---------------------------------------------------------------------------------------------
// output files

#[test]
fn counterexamples_never_overwrite_and_never_follow_links() {
    let dir = temp_path("cx");
    std::fs::create_dir_all(&dir).unwrap();
    let victim = write("victim.txt", b"keep me");
    save_triangle_counterexample(&dir);
    let first = saved_json(&dir);
    assert_eq!(first.len(), 1);
    let before = std::fs::read(&first[0]).unwrap();
    // plant a link at the next name the run would use
    let stem = first[0].file_stem().unwrap().to_str().unwrap().to_string();
    std::os::unix::fs::symlink(&victim, dir.join(format!("{stem}-1.json"))).unwrap();
    save_triangle_counterexample(&dir);
    assert_eq!(
        std::fs::read(&first[0]).unwrap(),
        before,
        "first save clobbered"
    );
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me", "link followed");
    assert!(dir.join(format!("{stem}-2.json")).exists());
}

#[test]
fn named_plot_replaces_a_link_instead_of_following_it() {
    let (rho, sigma) = states();
    let victim = write("victim.txt", b"keep me");
    let plot = temp_path("plot.svg");
    std::os::unix::fs::symlink(&victim, &plot).unwrap();
    let (code, _, err) = run(&[
        "qzcdp",
        "fit",
        "--rho",
        s(&rho),
        "--sigma",
        s(&sigma),
        "--plot",
        s(&plot),
    ]);
    assert!(code == 0 || code == 1, "{err}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
    let meta = std::fs::symlink_metadata(&plot).unwrap();
    assert!(
        meta.file_type().is_file(),
        "the link was replaced by the plot"
    );
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"));
}

// ---------------------------------------------------------------------------------------------
// stdout

#[test]
fn full_stdout_is_an_error() {
    let (rho, sigma) = states();
    let args = [
        "divergence",
        "--kind",
        "umegaki",
        "--rho",
        s(&rho),
        "--sigma",
        s(&sigma),
    ];
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(bin())
        .args(args)
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_error_output(
        out.status.code().unwrap_or(-1),
        &err,
        &args,
        &["standard output"],
    );
}

#[test]
fn closed_stdout_is_an_error() {
    let (rho, sigma) = states();
    let args = [
        "divergence",
        "--kind",
        "umegaki",
        "--rho",
        s(&rho),
        "--sigma",
        s(&sigma),
    ];
    let (code, _, err) = run_with(&args, ">&-");
    assert_error_output(code, &err, &args, &["standard output is closed"]);
}

#[test]
fn tiny_orders_get_a_clear_message_or_a_short_table() {
    let (x, y) = (samples("x.csv", 1.0), samples("y.csv", 1.0));
    let err = assert_error(
        &[
            "kernel-divergence",
            "--x",
            s(&x),
            "--y",
            s(&y),
            "--alpha",
            "5e-324",
            "--lambda",
            "0.1",
        ],
        &["(1−α)/α", "larger α"],
    );
    assert!(!err.contains("dsyevd"), "{err}");
    let (rho, sigma) = states();
    let (_, out, _) = run(&[
        "divergence",
        "--kind",
        "petz",
        "--rho",
        s(&rho),
        "--sigma",
        s(&sigma),
        "--alpha",
        "5e-324",
    ]);
    assert!(out.contains("5e-324") && out.len() < 400, "{out}");
}

// ---------------------------------------------------------------------------------------------
// attack18: usage errors, negative values, endless inputs

/// A usage error clap reports on several lines (message, blank line, usage, "For more
/// information") is one `error:` line too; its tips are kept on that line.
#[test]
fn usage_errors_are_one_line() {
    let (rho, sigma) = states();
    for (args, needles) in [
        (
            vec!["compose", "--epsilon", "", "--k", "3"],
            vec!["--epsilon", "empty string"],
        ),
        (
            vec!["compose", "--epsilon", "0x10", "--k", "3"],
            vec!["'0x10'", "invalid float"],
        ),
        (
            vec!["compose", "--epsilon", "0.1", "--k", "1e3"],
            vec!["'1e3'", "--k"],
        ),
        (
            vec!["compose", "--epsilon", "0.1", "--k", "99999999999999999999"],
            vec!["too large"],
        ),
        (
            vec!["compose", "--epsilon", "0.1", "--k", "3", "--bogus"],
            vec!["'--bogus'"],
        ),
        (
            vec!["verify", "--shard", "0/99999999999999999999"],
            vec!["too large"],
        ),
        (vec!["verify", "--shard", "3/2"], vec!["need 0 ≤ i < n"]),
        (
            vec![
                "divergence",
                "--kind",
                "petz",
                "--alpha",
                "nan",
                "--rho",
                s(&rho),
                "--sigma",
                s(&sigma),
            ],
            vec!["NaN"],
        ),
        // `-inf` is not a number to clap's parser: the line says how to write it
        (
            vec!["compose", "--epsilon", "-inf", "--k", "3"],
            vec!["'-i'", "--epsilon=-inf"],
        ),
    ] {
        assert_error(&args, &needles);
    }
}

/// Negative numbers are values: they reach the range checks, which say what is wrong (clap used
/// to report "unexpected argument '-1' found" over several lines).
#[test]
fn negative_values_reach_the_range_checks() {
    let (rho, sigma) = states();
    assert_error(
        &[
            "divergence",
            "--kind",
            "sandwiched",
            "--alpha",
            "-0.5",
            "--rho",
            s(&rho),
            "--sigma",
            s(&sigma),
        ],
        &["order α = -0.5 is out of range"],
    );
    assert_error(
        &[
            "divergence",
            "--kind",
            "hockey-stick",
            "--gamma",
            "-1e400",
            "--rho",
            s(&rho),
            "--sigma",
            s(&sigma),
        ],
        &["invalid gamma = -inf"],
    );
    assert_error(
        &["convert", "zcdp", "--zcdp-rho", "-1", "--delta", "1e-5"],
        &["-1"],
    );
    assert_error(
        &["compose", "--epsilon", "0.1", "--k", "-3"],
        &["'-3'", "--k"],
    );
    assert_error(
        &["verify", "--lemma", "kl-nonnegative", "--seed", "-1"],
        &["'-1'", "--seed"],
    );
    // help and version still print and exit 0
    let (code, out, _) = run(&["--version"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("qrenyi "), "{out}");
    let (code, out, _) = run(&["compose", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("Usage:"), "{out}");
}

/// A device or a pipe is read up to `io::MAX_STREAM_INPUT` (1 GiB), never until memory runs out
/// (`--rho /dev/zero`, or a `.json` link to it, used to be read without end).
#[cfg(unix)]
#[test]
fn endless_inputs_are_bounded() {
    let (_, sigma) = states();
    let link = temp_path("endless.json");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    for rho in [Path::new("/dev/zero"), link.as_path()] {
        assert_error(
            &[
                "divergence",
                "--kind",
                "umegaki",
                "--rho",
                s(rho),
                "--sigma",
                s(&sigma),
            ],
            &["not a regular file and longer than 1073741824 bytes"],
        );
    }
    assert_error(&["verify", "merge", s(&link)], &["not a regular file"]);
}

/// An output named like an input (audit21): `--plot x.svg` with `--rho x.svg` (read as `.npy`,
/// the reader's default) replaced the input; now one error line, the input untouched. A different
/// output name still writes the plot.
#[test]
fn an_output_named_like_an_input_is_refused() {
    let rho = write(
        "input-as-plot.svg",
        &npy("<f8", "(2, 2)", false, &le_bytes(&[0.7, 0.0, 0.0, 0.3])),
    );
    let before = std::fs::read(&rho).unwrap();
    let (_, sigma) = states();
    // (temporary paths have no spaces)
    let plot_to = |out: &Path| {
        let line = format!(
            "divergence --kind petz --rho {} --sigma {} --alpha 0.5,2 --plot {}",
            s(&rho),
            s(&sigma),
            s(out)
        );
        run(&line.split(' ').collect::<Vec<_>>())
    };
    let (code, _, err) = plot_to(&rho);
    assert_error_output(
        code,
        &err,
        &["--plot", s(&rho)],
        &["is an input of this command"],
    );
    assert_eq!(
        std::fs::read(&rho).unwrap(),
        before,
        "the input was replaced"
    );
    let plot = temp_path("not-an-input.svg");
    let _ = std::fs::remove_file(&plot);
    let (code, _, err) = plot_to(&plot);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(&plot).unwrap().contains("<svg"));
}

/// `audit gaussian-experiment --dim 10¹²` asked for 160 TB of samples and aborted ("memory
/// allocation … failed", exit 134) instead of one error line (trust22): `dim` is bounded with the
/// sample size by the kernel module's largest Gram block, saying by how much.
#[test]
fn a_huge_experiment_dimension_is_an_error() {
    let out = temp_path("huge-dim-experiment");
    assert_error(
        &[
            "audit",
            "gaussian-experiment",
            "--dim",
            "1000000000000",
            "--n",
            "20",
            "--runs",
            "1",
            "--alpha",
            "2",
            "--lambdas",
            "0.01",
            "--out",
            s(&out),
        ],
        &[
            "invalid dim = 1000000000000: at most 13421772 with n = 20",
            "999986578228 over",
        ],
    );
}

/// `verify --restarts 1000000000` reserved 48 GB and aborted (trust22): bounded, one error line.
#[test]
fn huge_restart_counts_are_an_error() {
    assert_error(
        &[
            "verify",
            "--lemma",
            "kl-nonnegative",
            "--trials",
            "1",
            "--restarts",
            "1000000000",
            "--no-save",
        ],
        &["invalid restarts = 1000000000: must lie in 0..=65536 (999934464 over"],
    );
}
