//! Shared helpers for the integration tests: seeded random states and tolerant comparisons.
#![allow(dead_code)]

use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::state::{haar_unitary, Channel, DensityMatrix};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A seeded RNG.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// `U diag(λ) U†` for a Haar-random `U` (the raw matrix).
pub fn with_spectrum(lambda: &[f64], seed: u64) -> Array2<Complex64> {
    let d = lambda.len();
    let u = haar_unitary(d, &mut rng(seed));
    Array2::from_shape_fn((d, d), |(i, j)| {
        (0..d)
            .map(|k| u[[i, k]] * u[[j, k]].conj() * lambda[k])
            .sum::<Complex64>()
    })
}

/// A random state from one of several ensembles, chosen by `kind % 4`: Hilbert–Schmidt full
/// rank, Bures, low rank (rank ⌈d/2⌉), pure.
pub fn random_state(d: usize, kind: u8, rng: &mut ChaCha8Rng) -> DensityMatrix {
    match kind % 4 {
        0 => DensityMatrix::random_hilbert_schmidt(d, d, rng),
        1 => DensityMatrix::random_bures(d, rng),
        2 => DensityMatrix::random_hilbert_schmidt(d, d.div_ceil(2), rng),
        _ => DensityMatrix::random_pure(d, rng),
    }
    .expect("random states are valid")
}

/// A random full-rank state (Hilbert–Schmidt or Bures).
pub fn random_full_rank(d: usize, kind: u8, rng: &mut ChaCha8Rng) -> DensityMatrix {
    random_state(d, kind % 2, rng)
}

/// A random channel d → d_out with k Kraus operators.
pub fn random_channel(d: usize, d_out: usize, k: usize, rng: &mut ChaCha8Rng) -> Channel {
    Channel::random(d, d_out, k.max(d.div_ceil(d_out)), rng).expect("valid channel")
}

/// `a ≤ b` up to a relative slack (±∞ handled: anything ≤ +∞).
pub fn leq(a: f64, b: f64, rel: f64) -> bool {
    if b == f64::INFINITY {
        return true;
    }
    if a == f64::INFINITY {
        return false;
    }
    a <= b + rel * (1.0 + a.abs().max(b.abs()))
}

/// `a ≈ b` up to a relative tolerance (equal infinities compare equal).
pub fn close(a: f64, b: f64, rel: f64) -> bool {
    if a.is_infinite() || b.is_infinite() {
        return a == b;
    }
    (a - b).abs() <= rel * (1.0 + a.abs().max(b.abs()))
}

/// Run the `qrenyi` binary; returns (exit code, stdout, stderr).
pub fn run_qrenyi(args: &[&str]) -> (i32, String, String) {
    // option_env!: this module also compiles into test binaries built without the `cli` feature
    // (which never call this function)
    #[allow(clippy::option_env_unwrap)]
    let exe = option_env!("CARGO_BIN_EXE_qrenyi").expect("the qrenyi binary (feature `cli`)");
    let out = std::process::Command::new(exe)
        .args(args)
        .output()
        .expect("run qrenyi");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh path `…/qrenyi-test-<pid>-<n>/<name>` in an empty directory (unique per call: tests
/// run in parallel threads). A directory of that name left by an earlier process with the same
/// pid (a killed run; pids are reused) is removed first: tests that list the directory (left-over
/// temporary files) must see only their own files.
pub fn temp_path(name: &str) -> std::path::PathBuf {
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("qrenyi-test-{}-{n}", std::process::id()));
    // absent is the usual case; any other failure shows at the creation below
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// Proptest configuration with `cases` cases and a **fixed** RNG seed, so that CI runs the same
/// cases every time (a failure is reproducible, never a flake). To explore new cases set
/// `PROPTEST_RNG_SEED=<u64>` (that seed) or `QRENYI_PROPTEST_RANDOM=1` (a fresh random seed).
pub fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    let mut config = proptest::test_runner::Config::with_cases(cases);
    if std::env::var_os("PROPTEST_RNG_SEED").is_none()
        && std::env::var_os("QRENYI_PROPTEST_RANDOM").is_none()
    {
        config.rng_seed = proptest::test_runner::RngSeed::Fixed(0x7172_656e_7969);
    }
    config
}

/// `0.99 ρ + 0.01 I/d`: full rank with `λ_min ≥ 0.01/d`, for tests whose tolerance assumes
/// well-conditioned inputs (e.g. tensor products, whose smallest eigenvalues are products).
pub fn well_conditioned(rho: &DensityMatrix) -> DensityMatrix {
    let mixed = DensityMatrix::maximally_mixed(rho.dim()).expect("d ≥ 1");
    DensityMatrix::mixture(&[0.99, 0.01], &[rho.clone(), mixed]).expect("valid mixture")
}

/// A `.npy` file (format 1.0): the header with `descr`, `fortran_order` and `shape` padded to a
/// multiple of 64 bytes, then `data` as raw bytes.
pub fn npy(descr: &str, shape: &str, fortran: bool, data: &[u8]) -> Vec<u8> {
    let mut h = format!(
        "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
        if fortran { "True" } else { "False" }
    );
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out
}

/// Little-endian bytes of `f64`s (a `<f8` payload).
pub fn le_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A matrix as the reference generators store it in JSON (rows of `[re, im]` entries).
pub fn stored_matrix(v: &serde_json::Value) -> Array2<Complex64> {
    let rows = v.as_array().expect("rows");
    let d = rows.len();
    Array2::from_shape_fn((d, d), |(i, j)| {
        let z = &rows[i][j];
        Complex64::new(z[0].as_f64().unwrap(), z[1].as_f64().unwrap())
    })
}

/// The pair's states from two raw matrices as `divergence::states_from_matrices` makes them
/// (the Python package's route) with `checks`, the default tolerance and backend.
pub fn states_checked(
    rho: &Array2<Complex64>,
    sigma: &Array2<Complex64>,
    checks: (qrenyi::divergence::Check, qrenyi::divergence::Check),
) -> (DensityMatrix, DensityMatrix) {
    qrenyi::divergence::states_from_matrices(
        rho.clone(),
        sigma.clone(),
        checks,
        qrenyi::state::Tolerance::default(),
        qrenyi::spectral::Backend::default(),
    )
    .expect("valid states")
}

/// `|got − want| ≤ bound`, the documented bound of a value (printed with `SHOW_RATIOS` set).
pub fn within_bound(what: &str, got: f64, want: f64, bound: f64) {
    let diff = (got - want).abs();
    if std::env::var_os("SHOW_RATIOS").is_some() {
        eprintln!(
            "{what}: |Δ| = {diff:.2e}, bound {bound:.2e}, ratio {:.2e}",
            diff / bound
        );
    }
    assert!(
        diff <= bound,
        "{what}: {got:e} vs {want:e}, |Δ| = {diff:e} > bound {bound:e}"
    );
}

/// One case of a sandwiched fixture: `(what, ρ, σ, [(α, reference)])`.
pub type FixtureCase = (
    String,
    Array2<Complex64>,
    Array2<Complex64>,
    Vec<(f64, f64)>,
);

/// The cases of a sandwiched fixture (`tests/reference/<file>`, written by
/// `generate_factor_congruence.py`'s `reference_cases`): `(what, ρ, σ, [(α, reference)])`.
pub fn sandwiched_fixture(file: &str) -> Vec<FixtureCase> {
    let text = std::fs::read_to_string(format!("tests/reference/{file}")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = json["cases"].as_array().unwrap();
    cases
        .iter()
        .map(|case| {
            let orders = case["alphas"].as_array().unwrap().iter();
            let values = case["values"].as_array().unwrap().iter();
            (
                case["what"].as_str().unwrap().to_string(),
                stored_matrix(&case["rho"]),
                stored_matrix(&case["sigma"]),
                orders
                    .zip(values)
                    .map(|(a, v)| (a.as_f64().unwrap(), v.as_f64().unwrap()))
                    .collect(),
            )
        })
        .collect()
}
