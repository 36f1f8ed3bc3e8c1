//! Command-line front end: argument parsing (clap), output formatting, exit codes.
//!
//! Every subcommand has a module with an `Args` struct and a `run(&Args) -> qrenyi::Result<i32>`
//! returning the exit code. Errors are printed on one line as `error: …` with exit code 2.

mod audit;
pub mod blas_env;
mod compose;
mod convert;
mod divergence;
mod dp;
mod kernel_divergence;
mod mechanism;
mod plot;
mod qzcdp;
#[cfg(feature = "smooth")]
mod smooth;
mod verify;

use clap::{Parser, Subcommand};

/// Quantum Rényi divergences, quantum differential privacy and counterexample search.
#[derive(Parser, Debug)]
#[command(name = "qrenyi", version, about, long_about = None)]
pub struct Cli {
    /// No progress bars (they are also hidden when stdout is not a terminal).
    #[arg(long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A progress bar on stderr (`len = None`: a spinner that ticks by itself), hidden with `--quiet`
/// or when stdout is not a terminal (piped or redirected output stays clean).
pub fn progress(len: Option<u64>, template: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    let hidden =
        QUIET.load(std::sync::atomic::Ordering::Relaxed) || !std::io::stdout().is_terminal();
    let target = if hidden {
        indicatif::ProgressDrawTarget::hidden()
    } else {
        indicatif::ProgressDrawTarget::stderr()
    };
    let bar = indicatif::ProgressBar::with_draw_target(len, target);
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    if len.is_none() && !hidden {
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
    }
    bar
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Divergence of two density matrices (.npy or .json files).
    Divergence(divergence::Args),
    /// Sound conversions of zCDP / RDP guarantees to (ε, δ)-DP.
    Convert(convert::Args),
    /// Certified qzCDP check and fit of a neighbouring pair of states.
    Qzcdp(qzcdp::Args),
    /// Composition bounds for k copies of an (ε, δ)-DP mechanism, side by side.
    Compose(compose::Args),
    /// Quantum (ε, δ)-DP of a neighbouring pair (hockey-stick divergence).
    Dp(dp::Args),
    /// Privacy of a quantum channel on neighbouring inputs: worst-case search, (ε, δ), qzCDP.
    Mechanism(Box<mechanism::Args>),
    /// Search for counterexamples to the seeds' lemmas (see `qrenyi verify --list`).
    Verify(verify::Args),
    /// Kernel Rényi divergence D̃_α(Σ̂_P ‖ Σ̂_Q + λI) of two samples (.npy float64 or CSV).
    KernelDivergence(kernel_divergence::Args),
    /// Audit (ε,δ)-DP, RDP or RKRDP from samples of M(D), M(D') with the kernel Rényi divergence.
    Audit(Box<audit::Args>),
    /// Smooth divergences D_H^ε, D_max^ε and classical smooth Rényi, as certified brackets.
    #[cfg(feature = "smooth")]
    Smooth(smooth::Args),
}

/// The command line as [`Cli`]. Negative numbers are values in every subcommand (`--alpha -0.5`,
/// `--seed -1`, `--k -3` reach the range checks, which say what is wrong, instead of clap's
/// "unexpected argument '-1'"). A usage error is printed as the one `error:` line every other
/// error is (clap's own report adds a blank line, a usage block and "For more information" —
/// its tips are kept, joined into that line), exit 2; `--help` and `--version` print as clap
/// prints them, exit 0.
fn parse_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> std::result::Result<Cli, i32> {
    use clap::{CommandFactory, FromArgMatches};
    fn negatives(c: clap::Command) -> clap::Command {
        c.allow_negative_numbers(true).mut_subcommands(negatives)
    }
    let parsed = negatives(Cli::command())
        .try_get_matches_from(args)
        .and_then(|m| Cli::from_arg_matches(&m));
    parsed.map_err(|e| {
        use clap::error::ErrorKind;
        match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                let _ = e.print();
                return 0;
            }
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                let _ = e.print();
                return 2;
            }
            _ => {}
        }
        eprintln!("{}", one_line_usage_error(&e.render().to_string()));
        2
    })
}

/// clap's multi-line usage error as one `error: …` line: the first line, then its `tip:` lines in
/// parentheses (the usage block and "For more information" are dropped).
fn one_line_usage_error(rendered: &str) -> String {
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("error: invalid command line");
    let first = if first.starts_with("error:") {
        first.to_string()
    } else {
        format!("error: {first}")
    };
    let mut tips: Vec<&str> = lines
        .filter_map(|l| l.strip_prefix("tip:").map(str::trim))
        .collect();
    if first.contains("unexpected argument '-") && !first.contains("unexpected argument '--") {
        tips.push("a value such as -inf is written with '=': --epsilon=-inf");
    }
    if tips.is_empty() {
        first
    } else {
        format!("{first} ({})", tips.join("; "))
    }
}

/// Parse the command line, run, and return the exit code.
pub fn run() -> i32 {
    let cli = match parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
    // the command's inputs are protected from its outputs for as long as it runs
    let _inputs = qrenyi::io::InputScope::enter();
    let result = match &cli.command {
        Command::Divergence(a) => divergence::run(a),
        Command::Convert(a) => convert::run(a),
        Command::Qzcdp(a) => qzcdp::run(a),
        Command::Compose(a) => compose::run(a),
        Command::Dp(a) => dp::run(a),
        Command::Mechanism(a) => mechanism::run(a),
        Command::Verify(a) => verify::run(a),
        Command::KernelDivergence(a) => kernel_divergence::run(a),
        Command::Audit(a) => audit::run(a),
        #[cfg(feature = "smooth")]
        Command::Smooth(a) => smooth::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

pub use qrenyi::io::json_number;

/// A comma-separated list of numbers given as one command-line value (`0.5,1,2,inf`).
#[derive(Clone, Debug, PartialEq)]
pub struct NumList(pub Vec<f64>);

/// Parse a comma-separated list of numbers; `inf`/`∞` allowed, NaN rejected. For clap's
/// `value_parser`.
pub fn parse_list(s: &str) -> Result<NumList, String> {
    s.split(',')
        .map(|t| {
            let t = t.trim();
            match t {
                "inf" | "Inf" | "infinity" | "∞" => Ok(f64::INFINITY),
                _ => t
                    .parse::<f64>()
                    .map_err(|e| format!("{t:?}: {e}"))
                    .and_then(|v| {
                        if v.is_nan() {
                            Err("NaN is not a valid number here".to_string())
                        } else {
                            Ok(v)
                        }
                    }),
            }
        })
        .collect::<Result<Vec<f64>, String>>()
        .map(NumList)
}

/// Format a value for tables: `+inf`/`-inf`, otherwise the shortest decimal that reads back to the
/// same `f64` (the digits JSON output prints too), positional for `1e-5 ≤ |v| < 1e16` and
/// scientific (`1.5e-7`) outside that range; `−0` prints as `0`.
pub fn fmt_value(v: f64) -> String {
    if v.is_infinite() {
        if v > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    } else if v == 0.0 || (1e-5..1e16).contains(&v.abs()) {
        format!("{}", v + 0.0)
    } else {
        format!("{v:e}")
    }
}

/// `--base e|2|10`: the logarithm base of every printed divergence and ε (and of the ε or
/// divergence bounds given on the same command line). Computation is in nats; the conversion is
/// `value / ln b` at the output edge ([`qrenyi::Base::scale`]).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct BaseArg {
    /// Logarithm base of divergences and ε, printed and given: e (nats, the default), 2 (bits)
    /// or 10.
    #[arg(long, default_value = "e", value_parser = parse_base)]
    pub base: qrenyi::Base,
}

fn parse_base(s: &str) -> Result<qrenyi::Base, String> {
    s.parse().map_err(|e: qrenyi::Error| e.to_string())
}

/// Format a parameter (α, γ, …) for tables: shortest round-trip form, `inf` for +∞.
pub fn fmt_param(x: f64) -> String {
    if x == f64::INFINITY {
        "inf".into()
    } else {
        fmt_value(x)
    }
}
