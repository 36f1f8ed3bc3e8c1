//! The `qrenyi` command-line tool. Subcommands live in `src/cli/`, one module each.
//!
//! Exit codes: 0 success, 1 a check failed (e.g. a theorem was refuted), 2 bad input or usage.

mod cli;

fn main() {
    cli::blas_env::ensure_coretype();
    std::process::exit(cli::run());
}
