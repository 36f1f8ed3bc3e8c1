//! The command-line contract of `qrenyi verify`: JSON shape, statuses, exit codes, replay files,
//! shards and merge, determinism. Small trial counts (debug builds run these in seconds).

use std::path::{Path, PathBuf};

mod common;

use common::run_qrenyi as qrenyi;

/// A fresh directory per call (tests run in parallel threads).
fn tmpdir() -> PathBuf {
    let dir = common::temp_path("verify");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn reports(out: &str) -> Vec<serde_json::Value> {
    serde_json::from_str::<serde_json::Value>(out)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn verify_json_contract_refutation_and_replay() {
    let dir = tmpdir();
    let (code, out, err) = qrenyi(&[
        "verify",
        "--lemma",
        "triangle-inequality",
        "--lemma",
        "kl-nonnegative",
        "--trials",
        "150",
        "--json",
        "--save-dir",
        &s(&dir),
    ]);
    assert_eq!(code, 0, "{err}");
    let r = reports(&out);
    assert_eq!(r.len(), 2);
    for key in [
        "lemma",
        "expected",
        "status",
        "trials",
        "worst_margin",
        "counterexample",
    ] {
        assert!(r[0].get(key).is_some(), "missing {key}");
    }
    assert_eq!(r[0]["lemma"], "triangle-inequality");
    assert_eq!(r[0]["expected"], "false");
    assert_eq!(r[0]["status"], "refuted");
    assert_eq!(r[0]["trials"], 150);
    assert!(r[0]["worst_margin"].as_f64().unwrap() < 0.0);
    assert_eq!(r[1]["expected"], "theorem");
    assert_eq!(r[1]["status"], "holds");
    assert!(r[1]["counterexample"].is_null());
    assert!(r[1]["worst_margin"].as_f64().unwrap() >= -1e-14);

    // the counterexample was saved, and replaying it reproduces the recorded margin
    let cx = &r[0]["counterexample"];
    let file = cx["file"].as_str().unwrap();
    let seed = cx["seed"].as_u64().unwrap();
    assert!(file.ends_with(&format!("triangle-inequality-{seed}.json")));
    let (code, out, err) = qrenyi(&["verify", "--replay", file, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["violation"], true);
    assert_eq!(v["margin"], cx["margin"]);
    assert!(v["margin_high_precision"].as_f64().unwrap() < 0.0);
}

#[test]
fn quantum_counterexample_is_saved_as_npy_and_replays() {
    let dir = tmpdir();
    let (code, out, err) = qrenyi(&[
        "verify",
        "--lemma",
        "petz-below-sandwiched",
        "--trials",
        "40",
        "--max-dim",
        "3",
        "--json",
        "--save-dir",
        &s(&dir),
    ]);
    assert_eq!(code, 0, "{err}");
    let r = reports(&out);
    assert_eq!(r[0]["status"], "refuted");
    let cx = &r[0]["counterexample"];
    let seed = cx["seed"].as_u64().unwrap();
    for item in ["rho", "sigma"] {
        assert!(dir
            .join(format!("petz-below-sandwiched-{seed}-{item}.npy"))
            .exists());
    }
    let (code, out, _) = qrenyi(&["verify", "--replay", cx["file"].as_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("violation confirmed    yes"), "{out}");

    // with σ replaced by ρ the saved instance is no violation any more: replay says so, exit 1
    let file = |item: &str| dir.join(format!("petz-below-sandwiched-{seed}-{item}.npy"));
    std::fs::copy(file("rho"), file("sigma")).unwrap();
    let (code, out, _) = qrenyi(&["verify", "--replay", cx["file"].as_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("violation confirmed    no"), "{out}");
}

#[test]
fn shards_merge_to_the_full_run_and_runs_are_deterministic() {
    let dir = tmpdir();
    let base = [
        "verify",
        "--lemma",
        "bounded-divergence",
        "--trials",
        "60",
        "--max-dim",
        "3",
        "--restarts",
        "0",
        "--json",
        "--no-save",
    ];
    let run = |extra: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        let (code, out, err) = qrenyi(&a);
        assert_eq!(code, 0, "{err}");
        out
    };
    let full = reports(&run(&[]));
    let again = reports(&run(&["--threads", "1"]));
    assert_eq!(full[0]["worst_margin"], again[0]["worst_margin"]);
    let a = dir.join("a.json");
    let b = dir.join("b.json");
    std::fs::write(&a, run(&["--shard", "0/2"])).unwrap();
    std::fs::write(&b, run(&["--shard", "1/2"])).unwrap();
    let (code, out, err) = qrenyi(&["verify", "merge", &s(&a), &s(&b), "--json"]);
    assert_eq!(code, 0, "{err}");
    let m = reports(&out);
    assert_eq!(m[0]["trials"], 60);
    assert_eq!(m[0]["worst_margin"], full[0]["worst_margin"]);
    assert_eq!(m[0]["shards"], serde_json::json!([[0, 2], [1, 2]]));
    // a missing shard is reported
    let (_, _, err) = qrenyi(&["verify", "merge", &s(&a)]);
    assert!(err.contains("do not cover"), "{err}");
}

#[test]
fn exit_code_one_when_a_false_statement_survives() {
    // one trial, no refinement: the search is too weak to refute, which must be flagged
    let (code, out, _) = qrenyi(&[
        "verify",
        "--lemma",
        "data-processing-sandwiched-below-half",
        "--trials",
        "1",
        "--restarts",
        "0",
        "--no-save",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("UNEXPECTED"));
}

#[test]
fn list_and_bad_input() {
    let (code, out, _) = qrenyi(&["verify", "--list", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    for n in [
        "triangle-inequality",
        "bounded-divergence",
        "bounded-divergence-petz",
        "rdp-to-dp",
        "qzcdp-to-dp",
    ] {
        assert!(names.contains(&n), "{n}");
    }
    let (code, _, err) = qrenyi(&["verify", "--lemma", "no-such-lemma"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error:"), "{err}");
    let (code, _, _) = qrenyi(&["verify", "--shard", "2/2"]);
    assert_eq!(code, 2);
    let (code, _, err) = qrenyi(&["verify", "--replay", "/nonexistent/x.json"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error:"), "{err}");
}

#[test]
fn zero_trials_and_huge_dimensions_are_rejected() {
    // no search is not a result: `--trials 0` used to print worst_margin "nan" (and exit 1 for a
    // known-false statement)
    let (code, _, err) = qrenyi(&["verify", "--lemma", "kl-nonnegative", "--trials", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("error:"), "{err}");
    // channels on ℂ^d take ~d⁴ numbers: --max-dim 1000 aborted on a failed allocation
    let (code, _, err) = qrenyi(&[
        "verify",
        "--lemma",
        "kl-nonnegative",
        "--trials",
        "5",
        "--max-dim",
        "1000",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("error:") && err.contains("max-dim"),
        "{err}"
    );
    // a shard without trials has no worst instance: +∞ (the minimum over nothing), not NaN
    let (code, out, err) = qrenyi(&[
        "verify",
        "--lemma",
        "kl-nonnegative",
        "--trials",
        "1",
        "--shard",
        "1/2",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let r = reports(&out);
    assert_eq!(r[0]["trials"], 0);
    assert_eq!(r[0]["worst_margin"], "inf");
    assert_eq!(r[0]["worst_error"], 0.0);
}

/// The human table shows the error estimate beside the worst margin and names the directory the
/// counterexamples are written to (or says they are not saved).
#[test]
fn verify_table_shows_error_and_save_dir() {
    let dir = tmpdir();
    let args = ["verify", "--lemma", "triangle-inequality", "--trials", "40"];
    let (_, out, err) = qrenyi(&[&args[..], &["--save-dir", &s(&dir)]].concat());
    assert!(out.contains("± error"), "{out}{err}");
    assert!(
        out.contains(&format!("counterexamples: saved under {}", s(&dir))),
        "{out}"
    );
    let (_, out, _) = qrenyi(&[&args[..], &["--no-save"]].concat());
    assert!(
        out.contains("counterexamples: not saved (--no-save)"),
        "{out}"
    );
}

/// Statements run side by side and each phase (sampling, refinement, confirmation) in parallel:
/// the reports (everything but the wall time) are the same with 1 and 4 workers, for a refuted
/// statement (refinement and confirmation exercised) beside ones that hold.
#[test]
fn reports_do_not_depend_on_the_thread_count() {
    let run = |threads: &str| {
        let (code, out, err) = qrenyi(&[
            "verify",
            "--lemma",
            "petz-below-sandwiched",
            "--lemma",
            "bounded-divergence",
            "--lemma",
            "data-processing-sandwiched-below-half",
            "--trials",
            "200",
            "--max-dim",
            "3",
            "--json",
            "--no-save",
            "--threads",
            threads,
        ]);
        assert!(code <= 1, "{err}");
        let mut r = reports(&out);
        for x in &mut r {
            x.as_object_mut().unwrap().remove("seconds");
        }
        r
    };
    let one = run("1");
    assert_eq!(one.len(), 3);
    assert_eq!(one[0]["lemma"], "petz-below-sandwiched");
    assert_eq!(one[0]["status"], "refuted");
    assert_eq!(one, run("2"));
    assert_eq!(one, run("4"));
}

/// `--trials-factor K`: each statement runs K times its own default trials (the report records
/// them), the same reports with 1 and 2 workers; conflicts with `--trials`; K = 0 is an error.
#[test]
fn trials_factor_multiplies_each_statement_default() {
    let defaults: Vec<(String, u64)> = {
        let (code, out, err) = qrenyi(&["verify", "--list", "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_string(),
                    s["default_trials"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let default_of = |name: &str| defaults.iter().find(|d| d.0 == name).unwrap().1;
    let run = |threads: &str| {
        let (code, out, err) = qrenyi(&[
            "verify",
            "--lemma",
            "smooth-theorem20-quantum",
            "--lemma",
            "identical-states",
            "--trials-factor",
            "2",
            "--restarts",
            "2",
            "--max-dim",
            "2",
            "--json",
            "--no-save",
            "--threads",
            threads,
        ]);
        assert_eq!(code, 0, "{err}");
        let mut r = reports(&out);
        for x in &mut r {
            x.as_object_mut().unwrap().remove("seconds");
        }
        r
    };
    let one = run("1");
    for r in &one {
        let want = 2 * default_of(r["lemma"].as_str().unwrap());
        assert_eq!(r["trials"].as_u64(), Some(want), "{r}");
        assert_eq!(r["run_trials"].as_u64(), Some(want), "{r}");
    }
    assert_ne!(one[0]["trials"], one[1]["trials"]);
    assert_eq!(one, run("2"));
    let (code, _, err) = qrenyi(&["verify", "--trials", "5", "--trials-factor", "2"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = qrenyi(&[
        "verify",
        "--lemma",
        "kl-nonnegative",
        "--trials-factor",
        "0",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error:") && err.contains("trials-factor"),
        "{err}"
    );
}
