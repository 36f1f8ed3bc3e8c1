//! `qrenyi verify [--lemma NAME … | --all] [--trials N | --trials-factor K] [--seed S] [--max-dim D] [--shard i/n]
//! [--json]`, `qrenyi verify --list`, `qrenyi verify --replay FILE`,
//! `qrenyi verify merge A.json B.json … [--json]`.
//!
//! Exit codes: 0 when every statement behaves as expected, 1 when a theorem is refuted or a
//! known-false statement is not refuted (a bug in qrenyi), 2 on bad input. `--replay`: 0 when the
//! saved violation is confirmed again, 1 when it is not (e.g. the files were edited, or a fix in
//! qrenyi changed the margin), 2 on bad input.

use qrenyi::spectral::EigenSolver;
use qrenyi::verify::{self, Config, Report, SampleContext, Statement};
use qrenyi::{Error, Result};
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `qrenyi verify`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Sub>,
    /// Statement to check (repeatable; see --list). Default: all.
    #[arg(long, value_name = "NAME")]
    pub lemma: Vec<String>,
    /// Check every built-in statement (the default when no --lemma is given).
    #[arg(long, conflicts_with = "lemma")]
    pub all: bool,
    /// Random trials per statement (default: each statement's own, sized for a < 2 min run).
    #[arg(long)]
    pub trials: Option<usize>,
    /// Random trials per statement as a multiple K of each statement's default (e.g. 10 for a
    /// ten-times longer search of every statement).
    #[arg(long, value_name = "K", conflicts_with = "trials")]
    pub trials_factor: Option<usize>,
    /// Global seed; a run is a deterministic function of (seed, trials, max-dim, shard).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Largest Hilbert-space dimension, 2..=32 (classical alphabets go up to twice this).
    #[arg(long, default_value_t = 4)]
    pub max_dim: usize,
    /// Run only shard i of n (0 ≤ i < n): the trials t ≡ i (mod n). Join with `verify merge`.
    #[arg(long, value_parser = parse_shard, default_value = "0/1", value_name = "i/n")]
    pub shard: (usize, usize),
    /// Refinement restarts per statement (0 disables refinement).
    #[arg(long, default_value_t = 8)]
    pub restarts: usize,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print a JSON list of reports instead of the table.
    #[arg(long)]
    pub json: bool,
    /// List the statements: name, source, expected status, statement.
    #[arg(long, conflicts_with_all = ["replay", "lemma", "all"])]
    pub list: bool,
    /// Recompute the margin of a saved counterexample (exit 0 when the violation is confirmed
    /// again, 1 when not).
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
    /// Where counterexamples are saved (`<lemma>-<seed>.json` + `.npy`).
    #[arg(long, default_value = "qrenyi-counterexamples", value_name = "DIR")]
    pub save_dir: PathBuf,
    /// Do not save counterexamples.
    #[arg(long)]
    pub no_save: bool,
}

/// Subcommands of `qrenyi verify`.
#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Join the JSON reports of shards (sums trials, keeps the smallest margin and a
    /// counterexample).
    Merge(MergeArgs),
}

/// Arguments of `qrenyi verify merge`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// JSON reports written by `qrenyi verify --json`.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Parse `i/n`.
pub fn parse_shard(s: &str) -> std::result::Result<(usize, usize), String> {
    let (a, b) = s
        .split_once('/')
        .ok_or_else(|| format!("{s:?}: expected i/n, e.g. 0/4"))?;
    let i: usize = a.trim().parse().map_err(|e| format!("{a:?}: {e}"))?;
    let n: usize = b.trim().parse().map_err(|e| format!("{b:?}: {e}"))?;
    if n == 0 || i >= n {
        return Err(format!("{s:?}: need 0 ≤ i < n"));
    }
    Ok((i, n))
}

/// Run `qrenyi verify`.
pub fn run(args: &Args) -> Result<i32> {
    if let Some(Sub::Merge(m)) = &args.command {
        return merge(m);
    }
    if args.list {
        return list(args.json);
    }
    if let Some(path) = &args.replay {
        return replay(path, args.json);
    }
    let statements: Vec<Box<dyn Statement>> = if args.lemma.is_empty() {
        verify::builtin()
    } else {
        args.lemma
            .iter()
            .map(|n| {
                verify::find(n).ok_or_else(|| Error::Parse {
                    what: "--lemma".into(),
                    reason: format!("unknown statement {n:?} (see `qrenyi verify --list`)"),
                })
            })
            .collect::<Result<_>>()?
    };
    let cfg = Config {
        trials: args.trials,
        seed: args.seed,
        context: SampleContext {
            max_dim: args.max_dim,
        },
        shard: args.shard,
        restarts: args.restarts,
        ..Config::default()
    };
    cfg.validate()?;
    // each statement's configuration: `--trials-factor K` gives K times its default trials
    let configs: Vec<Config> = match args.trials_factor {
        None => vec![cfg.clone(); statements.len()],
        Some(0) => return Err(Error::invalid("trials-factor", 0.0, "must be at least 1")),
        Some(k) => statements
            .iter()
            .map(|s| {
                let n = s.default_trials().checked_mul(k).ok_or_else(|| {
                    Error::invalid(
                        "trials-factor",
                        k as f64,
                        format!(
                            "{} × {} trials of {} overflows",
                            k,
                            s.default_trials(),
                            s.name()
                        ),
                    )
                })?;
                Ok(Config {
                    trials: Some(n),
                    ..cfg.clone()
                })
            })
            .collect::<Result<_>>()?,
    };
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = args.threads {
        let t = verify::check_threads(t)?;
        pool = pool.num_threads(t);
    }
    let pool = pool
        .build()
        .map_err(|e| Error::invalid("threads", 0.0, e.to_string()))?;

    let total: u64 = statements
        .iter()
        .zip(&configs)
        .map(|(s, c)| c.work(s.as_ref()))
        .sum();
    let bar = super::progress(
        Some(total),
        "{bar:40} {pos}/{len} evaluations  {elapsed}  {msg}",
    );
    if args.json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    // the statements run side by side (one work-stealing pool for all their trials, refinement
    // chains and confirmations), so no statement's sequential phase leaves workers idle; each
    // report depends only on its own per-trial seeds, and they are printed in the given order
    if let [one] = statements.as_slice() {
        bar.set_message(one.name().to_string());
    }
    let runs: Vec<Result<Report>> = pool.install(|| {
        use rayon::prelude::*;
        statements
            .par_iter()
            .zip(&configs)
            .map(|(s, c)| verify::run(s.as_ref(), c, &|k| bar.inc(k)))
            .collect()
    });
    let mut reports = Vec::new();
    for r in runs {
        let mut r = r?;
        if !args.no_save {
            verify::save_counterexample(&mut r, &args.save_dir)?;
        }
        reports.push(r);
    }
    bar.finish_and_clear();
    let code = output(&reports, args.json)?;
    if !args.json {
        if args.no_save {
            println!("counterexamples: not saved (--no-save)");
        } else {
            println!(
                "counterexamples: saved under {} (<statement>-<seed>.json + .npy; replay with \
                 `qrenyi verify --replay FILE`)",
                args.save_dir.display()
            );
        }
    }
    Ok(code)
}

fn output(reports: &[Report], as_json: bool) -> Result<i32> {
    if as_json {
        let text = serde_json::to_string_pretty(reports).map_err(|e| Error::Parse {
            what: "report".into(),
            reason: e.to_string(),
        })?;
        println!("{text}");
    } else {
        print_table(reports);
    }
    Ok(i32::from(reports.iter().any(Report::is_bug)))
}

/// A margin: the shortest round-trip decimal (`+inf`/`-inf` for infinities).
fn margin_str(m: f64) -> String {
    super::fmt_value(m)
}

fn print_table(reports: &[Report]) {
    println!(
        "{:<38} {:<8} {:<23} {:>7} {:>23} {:>23} {:>8}",
        "statement", "expected", "found", "trials", "worst margin", "± error", "time"
    );
    for r in reports {
        let flag = if r.is_bug() { "  <-- UNEXPECTED" } else { "" };
        println!(
            "{:<38} {:<8} {:<23} {:>7} {:>23} {:>23} {:>7.2}s{flag}",
            r.lemma,
            r.expected.name(),
            r.found(),
            r.trials,
            margin_str(r.worst_margin),
            margin_str(r.worst_error),
            r.seconds
        );
    }
    println!(
        "(a margin counts as a violation only below −error, the numerical error estimate of that \
         evaluation; a negative margin within ± error is rounding)"
    );
    for r in reports {
        if let Some(c) = &r.counterexample {
            println!(
                "{}: counterexample at trial {} (seed {}{}), margin {} ± {}, nalgebra {}{}, drawn from {}{}",
                r.lemma,
                c.trial,
                c.seed,
                if c.refined { ", refined" } else { "" },
                margin_str(c.margin),
                margin_str(c.error),
                margin_str(c.margin_nalgebra),
                c.margin_high_precision
                    .map(|h| format!(", 256-bit {}", margin_str(h)))
                    .unwrap_or_default(),
                c.ensemble.join(" "),
                c.file
                    .as_ref()
                    .map(|f| format!("; saved to {f}"))
                    .unwrap_or_default(),
            );
        }
    }
    let bugs: Vec<&str> = reports
        .iter()
        .filter(|r| r.is_bug())
        .map(|r| r.lemma.as_str())
        .collect();
    if !bugs.is_empty() {
        println!("unexpected results (a bug in qrenyi): {}", bugs.join(", "));
    }
}

fn list(as_json: bool) -> Result<i32> {
    let all = verify::builtin();
    if as_json {
        let v: Vec<_> = all
            .iter()
            .map(|s| {
                json!({
                    "name": s.name(),
                    "source": s.source(),
                    "expected": s.expected().name(),
                    "statement": s.summary(),
                    "default_trials": s.default_trials(),
                })
            })
            .collect();
        println!("{}", serde_json::Value::Array(v));
    } else {
        for s in &all {
            println!(
                "{:<38} {:<8} {}",
                s.name(),
                s.expected().name(),
                s.summary()
            );
            println!("{:<38} {:<8} source: {}", "", "", s.source());
        }
    }
    Ok(0)
}

fn replay(path: &std::path::Path, as_json: bool) -> Result<i32> {
    let r = verify::replay(path)?;
    if as_json {
        println!(
            "{}",
            json!({
                "lemma": r.lemma,
                "recorded_margin": super::json_number(r.recorded),
                "margin": super::json_number(r.margin.value),
                "error": r.margin.error,
                "margin_nalgebra": super::json_number(r.margin_nalgebra.value),
                "margin_high_precision": r.margin_high_precision,
                "recorded_margin_matches": r.recorded_matches,
                "violation": r.violation,
            })
        );
    } else {
        println!("{}", r.lemma);
        println!("  recorded margin        {}", margin_str(r.recorded));
        println!(
            "  {:<22} {} ± {:.1e}",
            format!("margin ({})", verify::PRIMARY.name()),
            margin_str(r.margin.value),
            r.margin.error
        );
        println!(
            "  margin (nalgebra)      {} ± {:.1e}",
            margin_str(r.margin_nalgebra.value),
            r.margin_nalgebra.error
        );
        if let Some(h) = r.margin_high_precision {
            println!("  margin (256-bit)       {}", margin_str(h));
        }
        println!(
            "  violation confirmed    {}",
            if r.violation { "yes" } else { "no" }
        );
        if !r.recorded_matches {
            println!("  recorded margin        does NOT match the recomputed one (edited file?)");
        }
    }
    Ok(if r.violation && r.recorded_matches {
        0
    } else {
        1
    })
}

fn merge(m: &MergeArgs) -> Result<i32> {
    let mut all = Vec::new();
    for f in &m.files {
        let text = qrenyi::io::read_input_string(f)?;
        all.extend(verify::parse_reports(&text, &f.display().to_string())?);
    }
    let merged = verify::merge(all)?;
    for r in &merged {
        let n = r.shards.first().map_or(1, |s| s.1);
        if r.shards.len() != n || r.shards.iter().any(|s| s.1 != n) {
            eprintln!(
                "warning: {}: shards {:?} do not cover 0..{n} exactly once",
                r.lemma, r.shards
            );
        }
    }
    output(&merged, m.json)
}
