//! Prints which OpenBLAS kernels were loaded (`cargo run --example blas_core`).
fn main() {
    println!(
        "{}",
        qrenyi::spectral::blas_core().unwrap_or_else(|| "no BLAS (nalgebra backend)".into())
    );
}
