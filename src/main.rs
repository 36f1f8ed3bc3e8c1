//! The `qrenyi` command-line tool. Subcommands live in `src/cli/`, one module each.
//!
//! Exit codes: 0 success, 1 a check failed (e.g. a theorem was refuted), 2 bad input or usage.

mod cli;

fn main() {
    // Die quietly on a closed pipe (`qrenyi … | head`) instead of panicking on the failed write.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    cli::blas_env::ensure_coretype();
    std::process::exit(cli::run());
}
