//! Build script: locate the system OpenBLAS for the default `openblas` feature.
//!
//! Order: `pkg-config openblas`, then `$OPENBLAS_DIR/lib`, then the usual library directories of
//! Debian/Ubuntu, Fedora and Homebrew. Nothing is downloaded. When the library is missing the
//! build stops with the exact package to install, or the flag for the pure-Rust backend.

use std::path::{Path, PathBuf};

const CANDIDATE_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu/openblas-pthread",
    "/usr/lib/aarch64-linux-gnu/openblas-pthread",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib64/openblas",
    "/usr/lib",
    "/usr/local/lib",
    "/opt/homebrew/opt/openblas/lib",
    "/usr/local/opt/openblas/lib",
    "/opt/OpenBLAS/lib",
];

fn has_openblas(dir: &Path) -> bool {
    ["libopenblas.so", "libopenblas.dylib", "libopenblas.a"]
        .iter()
        .any(|f| dir.join(f).exists())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=OPENBLAS_DIR");
    if std::env::var_os("CARGO_FEATURE_OPENBLAS").is_none() {
        return; // pure-Rust nalgebra backend only
    }
    if std::env::var_os("DOCS_RS").is_some() {
        return; // docs.rs builds documentation only: nothing is linked
    }
    if let Ok(lib) = pkg_config::Config::new()
        .cargo_metadata(true)
        .probe("openblas")
    {
        if !lib.libs.is_empty() {
            return;
        }
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os("OPENBLAS_DIR") {
        dirs.push(PathBuf::from(d).join("lib"));
    }
    dirs.extend(CANDIDATE_DIRS.iter().map(PathBuf::from));
    if let Some(dir) = dirs.iter().find(|d| has_openblas(d)) {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=openblas");
        return;
    }
    eprintln!(
        "\nqrenyi: OpenBLAS was not found (looked for pkg-config `openblas`, $OPENBLAS_DIR/lib and {}).\n\
         Install it:   Debian/Ubuntu: apt-get install -y libopenblas-dev pkg-config\n\
                       Fedora:        dnf install openblas-devel\n\
                       macOS:         brew install openblas\n\
         or build with the pure-Rust backend only:  cargo build --no-default-features\n",
        CANDIDATE_DIRS.join(", ")
    );
    std::process::exit(1);
}
