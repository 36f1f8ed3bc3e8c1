//! Make the `qrenyi` binary use OpenBLAS kernels the CPU supports, without paying for it at start.
//!
//! Debian's OpenBLAS picks its kernels when the library is loaded (before `main`), from
//! `OPENBLAS_CORETYPE` when set, and falls back to slower generic kernels on CPUs it does not
//! recognise. When the variable is unset we compare OpenBLAS's own choice with the kernel family
//! the CPU's feature flags allow ([`detect_coretype`]: only a family whose instructions the CPU
//! reports). Where OpenBLAS chose that family or a better one — every CPU it recognises — nothing
//! happens. Where it really misdetected the CPU, the variable is set and OpenBLAS's kernel choice
//! is redone in-process (the `gotoblas_dynamic_quit`/`gotoblas_dynamic_init` pair that
//! `DYNAMIC_ARCH` builds export, the same code that reads the variable at load time); only a build
//! without that pair re-executes the binary. Before this, the binary re-executed itself whenever
//! the variable was unset, a whole second process start (docs/PERFORMANCE.md, "Process start").
//! A value the user set is never overridden. `tools/blas-env` sets the variable for
//! `cargo test/bench` from the same flags.

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

/// The widest vector instructions an OpenBLAS x86-64 kernel family uses: 0 none of the below,
/// 1 AVX, 2 AVX2 + FMA, 3 AVX-512. Names are compared case-insensitively, so both the variable's
/// spelling (`SKYLAKEX`) and `openblas_get_corename`'s (`SkylakeX`) are understood.
fn kernel_level(core: &str) -> u8 {
    match core.to_ascii_lowercase().as_str() {
        "skylakex" | "cooperlake" | "sapphirerapids" => 3,
        "haswell" | "zen" => 2,
        "sandybridge" | "bulldozer" | "piledriver" | "steamroller" | "excavator" => 1,
        _ => 0,
    }
}

/// Whether OpenBLAS's choice `loaded` (its core name, `None` when unknown) uses narrower
/// instructions than the family `wanted` that the CPU supports, i.e. OpenBLAS misdetected the CPU.
fn misdetected(loaded: Option<&str>, wanted: &str) -> bool {
    loaded.map_or(0, kernel_level) < kernel_level(wanted)
}

/// Redo OpenBLAS's kernel choice in this process from `OPENBLAS_CORETYPE` (which the caller set).
/// Returns `false` when this OpenBLAS does not export the dynamic-architecture pair (a build for
/// one CPU, or a statically linked one), in which case nothing was changed.
#[cfg(all(unix, feature = "openblas"))]
fn reselect_in_process() -> bool {
    // SAFETY: dlsym only looks the two names up. Both are `void f(void)` in OpenBLAS's
    // driver/others/dynamic.c: `quit` forgets the chosen kernel table, `init` chooses one again
    // (from OPENBLAS_CORETYPE when set) and initialises its blocking parameters — exactly what
    // the library constructor did at load time. They run before qrenyi has made any BLAS call;
    // OpenBLAS's idle worker threads read the table only when they are given work.
    unsafe {
        let quit = libc::dlsym(libc::RTLD_DEFAULT, c"gotoblas_dynamic_quit".as_ptr());
        let init = libc::dlsym(libc::RTLD_DEFAULT, c"gotoblas_dynamic_init".as_ptr());
        if quit.is_null() || init.is_null() {
            return false;
        }
        let quit: extern "C" fn() = std::mem::transmute(quit);
        let init: extern "C" fn() = std::mem::transmute(init);
        quit();
        init();
    }
    true
}

#[cfg(not(all(unix, feature = "openblas")))]
fn reselect_in_process() -> bool {
    false
}

/// Make OpenBLAS use the kernel family of [`detect_coretype`] where it chose a narrower one and
/// `OPENBLAS_CORETYPE` is unset: in-process where the library allows it, otherwise by
/// re-executing the binary once with the variable set. Does nothing without the `openblas`
/// feature, when the variable is set, or when OpenBLAS's own choice is already as good.
pub fn ensure_coretype() {
    if !cfg!(feature = "openblas") || std::env::var_os("OPENBLAS_CORETYPE").is_some() {
        return;
    }
    let Some(core) = detect_coretype() else {
        return;
    };
    if !misdetected(qrenyi::spectral::blas_core().as_deref(), core) {
        return;
    }
    // Only the main thread runs qrenyi code here; the variable also reaches a re-executed image.
    std::env::set_var("OPENBLAS_CORETYPE", core);
    if reselect_in_process() && !misdetected(qrenyi::spectral::blas_core().as_deref(), core) {
        return;
    }
    #[cfg(unix)]
    if let Ok(exe) = std::env::current_exe() {
        use std::os::unix::process::CommandExt;
        let _ = std::process::Command::new(exe)
            .args(std::env::args_os().skip(1))
            .exec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misdetected_only_when_openblas_chose_narrower_kernels() {
        // OpenBLAS 0.3.21 on an AVX-512 Zen 4 reports Cooperlake: as wide as SKYLAKEX, no action.
        assert!(!misdetected(Some("Cooperlake"), "SKYLAKEX"));
        assert!(!misdetected(Some("SkylakeX"), "SKYLAKEX"));
        assert!(!misdetected(Some("Zen"), "HASWELL"));
        assert!(!misdetected(Some("SkylakeX"), "HASWELL"));
        assert!(!misdetected(Some("Haswell"), "SANDYBRIDGE"));
        // An unrecognised CPU falls back to Prescott/Nehalem/Core2 kernels: reselect.
        assert!(misdetected(Some("Prescott"), "SKYLAKEX"));
        assert!(misdetected(Some("Nehalem"), "HASWELL"));
        assert!(misdetected(Some("Haswell"), "SKYLAKEX"));
        assert!(misdetected(Some("Sandybridge"), "HASWELL"));
        assert!(misdetected(None, "SANDYBRIDGE"));
        assert!(misdetected(Some("Unknown"), "SANDYBRIDGE"));
    }

    /// The in-process reselection switches the kernels and a product computed afterwards is
    /// the same (to rounding) as before; switching back restores bit-identical results. This
    /// test binary runs no other BLAS work (the binary's only unit tests are in this module and
    /// this is the only one calling BLAS).
    #[cfg(all(unix, feature = "openblas"))]
    #[test]
    fn reselect_in_process_switches_kernels() {
        use ndarray::Array2;
        use num_complex::Complex64;
        let Some(original) = qrenyi::spectral::blas_core() else {
            return;
        };
        let a = Array2::from_shape_fn((96, 96), |(i, j)| {
            Complex64::new(
                ((i * 7 + j * 3) % 11) as f64 - 5.0,
                ((i + 2 * j) % 5) as f64 * 0.3,
            )
        });
        let before = a.dot(&a);
        let saved = std::env::var_os("OPENBLAS_CORETYPE");
        std::env::set_var("OPENBLAS_CORETYPE", "SANDYBRIDGE");
        let switched = reselect_in_process();
        if switched {
            assert_eq!(
                qrenyi::spectral::blas_core().as_deref(),
                Some("Sandybridge")
            );
            let other = a.dot(&a);
            let scale = before.iter().map(|z| z.norm()).fold(0.0, f64::max);
            let dev = (&other - &before)
                .iter()
                .map(|z| z.norm())
                .fold(0.0, f64::max);
            assert!(
                dev <= 1e-13 * scale,
                "products differ by {dev} (scale {scale})"
            );
        }
        std::env::set_var("OPENBLAS_CORETYPE", &original);
        if switched {
            assert!(reselect_in_process());
            assert_eq!(qrenyi::spectral::blas_core(), Some(original));
            assert_eq!(
                a.dot(&a),
                before,
                "switching back must restore the same kernels"
            );
        }
        match saved {
            Some(v) => std::env::set_var("OPENBLAS_CORETYPE", v),
            None => std::env::remove_var("OPENBLAS_CORETYPE"),
        }
    }
}
