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
    std::process::exit(run_checking_stdout());
}

/// Run the CLI so that a failing standard output is an error (exit 2), never a panic (exit 101)
/// or a silent loss: a closed descriptor 1 is refused up front (std would drop every write to
/// it), and a write error (`/dev/full`, a full disk) — which `println!` reports by panicking — is
/// turned into one `error:` line, as is a failing final flush.
fn run_checking_stdout() -> i32 {
    use std::io::Write;
    if STDOUT_CLOSED_AT_START.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("error: standard output is closed; nothing could be printed");
        return 2;
    }
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if stdout_failure(info.payload()).is_none() {
            default_hook(info);
        }
    }));
    let code = match std::panic::catch_unwind(cli::run) {
        Ok(code) => code,
        Err(payload) => match stdout_failure(payload.as_ref()) {
            Some(reason) => {
                eprintln!("error: cannot write to standard output: {reason}");
                return 2;
            }
            None => std::panic::resume_unwind(payload),
        },
    };
    match std::io::stdout().flush() {
        Ok(()) => code,
        Err(e) => {
            eprintln!("error: cannot write to standard output: {e}");
            2
        }
    }
}

/// Whether descriptor 1 was closed when the process started. Recorded by a constructor in
/// `.init_array`, which runs before the Rust runtime: that runtime reopens closed standard
/// descriptors on /dev/null, after which a closed stdout can no longer be told from a
/// redirection to /dev/null.
static STDOUT_CLOSED_AT_START: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static RECORD_STDOUT: extern "C" fn() = record_stdout;

#[cfg(target_os = "linux")]
extern "C" fn record_stdout() {
    // SAFETY: F_GETFD on descriptor 1 only reads its flags.
    if unsafe { libc::fcntl(1, libc::F_GETFD) } == -1 {
        STDOUT_CLOSED_AT_START.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The reason of `println!`'s panic on a failed write to stdout, if that is what `payload` is.
fn stdout_failure(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    let msg = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())?;
    msg.strip_prefix("failed printing to stdout: ")
        .map(str::to_string)
}
