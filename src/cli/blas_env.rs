//! Make the `qrenyi` binary use OpenBLAS kernels the CPU supports.
//!
//! Debian's OpenBLAS picks its kernels when the library is loaded (before `main`), from
//! `OPENBLAS_CORETYPE` when set, and falls back to slower generic kernels on CPUs it does not
//! recognise. When the variable is unset we choose from the CPU's feature flags — only a kernel
//! family whose instructions the CPU reports — and re-execute the binary once with it set. A value
//! the user set is never overridden. `tools/blas-env` applies the same rule to `cargo test/bench`.

/// The OpenBLAS kernel family for this CPU, or `None` to leave OpenBLAS's own choice.
pub fn detect_coretype() -> Option<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx512f")
            && has!("avx512dq")
            && has!("avx512bw")
            && has!("avx512vl")
            && has!("avx512cd")
        {
            return Some("SKYLAKEX");
        }
        if has!("avx2") && has!("fma") {
            return Some("HASWELL");
        }
        if has!("avx") {
            return Some("SANDYBRIDGE");
        }
    }
    None
}

/// Re-execute the current binary with `OPENBLAS_CORETYPE` set, if it is unset and a kernel
/// family was detected. Does nothing without the `openblas` feature or when exec fails.
pub fn ensure_coretype() {
    if !cfg!(feature = "openblas") || std::env::var_os("OPENBLAS_CORETYPE").is_some() {
        return;
    }
    #[cfg(unix)]
    if let (Some(core), Ok(exe)) = (detect_coretype(), std::env::current_exe()) {
        use std::os::unix::process::CommandExt;
        let _ = std::process::Command::new(exe)
            .args(std::env::args_os().skip(1))
            .env("OPENBLAS_CORETYPE", core)
            .exec();
    }
}
