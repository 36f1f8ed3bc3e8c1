//! NVIDIA GPU backend (feature `cuda`): cuSOLVER's dense eigensolvers, Cholesky and SVD, and
//! cuBLAS products, in double precision throughout, through the `cudarc` bindings.
//!
//! The CUDA libraries are loaded at run time (`dlopen` of `libcuda`, `libcublas`, `libcusolver`),
//! so a build with the feature runs, and its tests pass, on a machine without a GPU: the first
//! call finds no driver or device and every GPU request answers
//! [`Error::GpuUnavailable`](crate::Error::GpuUnavailable), never a crash.
//!
//! Routines (column-major, as LAPACK; the host copies are made the way `lapack.rs` makes them):
//!
//! * [`EigenSolver::eigh`] / [`EigenSolver::eigvalsh`] — `cusolverDnZheevd` (divide and conquer,
//!   `jobz = V / N`), the GPU counterpart of LAPACK's `zheevd`: backward stable, eigenvalues with
//!   absolute error `≲ c·d·ε·‖A‖`, so the crate's zero threshold `τ = 16 d ε λ_max` and every error
//!   bound of `docs/conventions.md` hold unchanged. Real symmetric: `cusolverDnDsyevd`.
//! * [`EigenSolver::singular_values`] — `cusolverDnZgesvd` (values only).
//! * [`EigenSolver::is_positive_definite`] — `cusolverDnZpotrf` on `A + shift·I` (lower): a
//!   positive `info` is a non-positive pivot, i.e. "not positive definite".
//! * Device-resident products for [`crate::divergence::Pair`] ([`DeviceMatrix`]): the overlap
//!   `W = V_σ† V_ρ` (`zgemm`), `ρ' = (W√Λ)(W√Λ)†` (`zdgmm` + `zherk`), and per order the values of
//!   `D ρ'_ss D` (two `zdgmm` + `zheevd`, `jobz = N`), so that a curve copies only its spectra back.
//!
//! * qrenyi's own kernels (`cuda/kernels.cu`, compiled to PTX by `tools/gen-ptx` and embedded;
//!   the driver compiles the PTX for the GPU at hand on first use): validation statistics and
//!   symmetrisation of a raw matrix on the device (`hermitian_stats`, `symmetrise`: the host's
//!   operations, so the same accept/reject decisions), and the one-thread-per-pair sandwiched
//!   kernel for stacks of small pairs (`sandwiched_pairs_N`: the cyclic Jacobi method of
//!   `spectral::small`, rotation for rotation).
//!
//! One process-wide context on device 0 with two lanes (a stream each, with its own cuBLAS and
//! cuSOLVER handles: the side lane's work overlaps the main lane's), behind a mutex: calls from
//! several threads are serialised (the GPU runs one solve at a time anyway). Set
//! `QRENYI_CUDA_TRACE=1` to print the wall time of each step on stderr (profiling).

use super::backend::EigenSolver;
use crate::error::{Error, Result};
use cudarc::cublas::{sys as blas, CudaBlas};
use cudarc::cusolver::{sys as sol, DnHandle};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};
use ndarray::{Array1, Array2, ArrayView2, ShapeBuilder};
use num_complex::Complex64;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Instant;

/// Per-step wall times on stderr when the environment variable `QRENYI_CUDA_TRACE` is set (a
/// profiling aid: each mark first waits for the stream, so the steps are timed one by one).
#[doc(hidden)]
pub struct Trace {
    on: bool,
    last: Instant,
}

impl Default for Trace {
    fn default() -> Self {
        Self::new()
    }
}

impl Trace {
    /// A trace starting now (silent unless `QRENYI_CUDA_TRACE` is set).
    pub fn new() -> Self {
        static ON: OnceLock<bool> = OnceLock::new();
        Trace {
            on: *ON.get_or_init(|| std::env::var_os("QRENYI_CUDA_TRACE").is_some()),
            last: Instant::now(),
        }
    }
    /// Print the time since the previous mark (after the stream's work when `g` is given).
    pub(crate) fn mark(&mut self, g: Option<&Gpu>, what: &str) {
        self.mark_gpu(g, what)
    }
    /// Print the time since the previous mark (host steps).
    pub fn mark_host(&mut self, what: &str) {
        self.mark_gpu(None, what)
    }
    fn mark_gpu(&mut self, g: Option<&Gpu>, what: &str) {
        if self.on {
            if let Some(g) = g {
                let _ = g.stream.synchronize();
            }
            eprintln!(
                "qrenyi-cuda-trace {what}: {:.3} ms",
                self.last.elapsed().as_secs_f64() * 1e3
            );
            self.last = Instant::now();
        }
    }
}

/// One stream of work with its own cuBLAS and cuSOLVER handles.
pub(crate) struct Lane {
    stream: Arc<CudaStream>,
    blas: CudaBlas,
    solver: DnHandle,
}

impl Lane {
    fn new(stream: Arc<CudaStream>) -> std::result::Result<Lane, String> {
        let blas = CudaBlas::new(stream.clone()).map_err(|e| format!("cuBLAS: {e}"))?;
        let solver = DnHandle::new(stream.clone()).map_err(|e| format!("cuSOLVER: {e}"))?;
        Ok(Lane {
            stream,
            blas,
            solver,
        })
    }
}

/// The process-wide GPU state on device 0: the main lane (the context's default stream), a side
/// lane whose work overlaps the main one's (the upload, check and factorisation of ρ while σ is
/// decomposed), and qrenyi's own kernels (module `cuda/kernels.cu`), loaded on first use.
pub(crate) struct Gpu {
    main: Lane,
    side: Lane,
    kernels: OnceLock<std::result::Result<Kernels, String>>,
    name: String,
}

impl std::ops::Deref for Gpu {
    type Target = Lane;
    fn deref(&self) -> &Lane {
        &self.main
    }
}

/// The PTX of `cuda/kernels.cu` (generated by `tools/gen-ptx`), compiled by the driver on first
/// use (and cached by it across processes).
const KERNELS_PTX: &str = include_str!("cuda/kernels.ptx");

/// Handles of the kernels of `cuda/kernels.cu`.
struct Kernels {
    /// `sandwiched_pairs_N` for N = 4, 8, 16 (pairs of dimension d ≤ N, one thread each).
    sandwiched: [CudaFunction; 3],
    hermitian_stats: CudaFunction,
    symmetrise: CudaFunction,
}

/// Largest dimension of the one-thread-per-pair kernel `sandwiched_pairs_N`.
pub(crate) const PAIR_KERNEL_MAX_DIM: usize = 16;

static GPU: OnceLock<std::result::Result<Mutex<Gpu>, String>> = OnceLock::new();

fn unavailable(reason: impl Into<String>) -> Error {
    Error::GpuUnavailable {
        reason: reason.into(),
    }
}

fn failure(reason: impl std::fmt::Display) -> Error {
    Error::Eigensolver {
        backend: "cuda",
        reason: reason.to_string(),
    }
}

fn init() -> std::result::Result<Gpu, String> {
    // SAFETY: each check only tries to dlopen the library by its usual names.
    let (driver, cublas, cusolver) = unsafe {
        (
            cudarc::driver::sys::is_culib_present(),
            cudarc::cublas::sys::is_culib_present(),
            cudarc::cusolver::sys::is_culib_present(),
        )
    };
    if !driver {
        return Err("no NVIDIA driver library (libcuda.so) found; use the CPU backends".into());
    }
    if !cublas || !cusolver {
        return Err(
            "CUDA libraries libcublas/libcusolver not found (install the CUDA toolkit or add its \
             lib64 directory to LD_LIBRARY_PATH)"
                .into(),
        );
    }
    let ctx = CudaContext::new(0).map_err(|e| format!("no usable CUDA device: {e}"))?;
    // one stream only: stream order already serialises every access, so cudarc's per-buffer
    // event tracking would only add work
    // SAFETY: every buffer is used on this context's default stream alone.
    unsafe { ctx.disable_event_tracking() };
    let name = ctx.name().unwrap_or_else(|_| "unknown CUDA device".into());
    let main = Lane::new(ctx.default_stream())?;
    let side = Lane::new(ctx.new_stream().map_err(|e| format!("CUDA stream: {e}"))?)?;
    Ok(Gpu {
        main,
        side,
        kernels: OnceLock::new(),
        name,
    })
}

impl Gpu {
    /// qrenyi's kernels, loaded (JIT-compiled by the driver) on first use.
    fn kernels(&self) -> Result<&Kernels> {
        let k = self.kernels.get_or_init(|| {
            let load = || -> std::result::Result<Kernels, cudarc::driver::DriverError> {
                let m = self
                    .stream
                    .context()
                    .load_module(cudarc::nvrtc::Ptx::from_src(KERNELS_PTX))?;
                Ok(Kernels {
                    sandwiched: [
                        m.load_function("sandwiched_pairs_4")?,
                        m.load_function("sandwiched_pairs_8")?,
                        m.load_function("sandwiched_pairs_16")?,
                    ],
                    hermitian_stats: m.load_function("hermitian_stats")?,
                    symmetrise: m.load_function("symmetrise")?,
                })
            };
            load().map_err(|e| format!("loading qrenyi's CUDA kernels: {e}"))
        });
        k.as_ref().map_err(|e| failure(e.clone()))
    }
}

/// The GPU, initialised on first use (a panic inside the bindings becomes an error).
pub(crate) fn gpu() -> Result<MutexGuard<'static, Gpu>> {
    let state = GPU.get_or_init(|| match std::panic::catch_unwind(init) {
        Ok(r) => r.map(Mutex::new),
        Err(_) => Err("CUDA initialisation failed (missing symbol in the CUDA libraries)".into()),
    });
    match state {
        Ok(m) => Ok(m.lock().unwrap_or_else(|e| e.into_inner())),
        Err(reason) => Err(unavailable(reason.clone())),
    }
}

/// Whether a CUDA GPU and its libraries are usable in this process (initialises them once).
pub fn available() -> bool {
    gpu().is_ok()
}

/// The GPU's name (e.g. `"NVIDIA H100 80GB HBM3"`), or [`Error::GpuUnavailable`].
pub fn device_name() -> Result<String> {
    Ok(gpu()?.name.clone())
}

/// Run `f` with the GPU locked, turning a panic inside the bindings (a symbol missing from an
/// older CUDA library) into an error instead of unwinding through the caller.
fn with_gpu<R>(f: impl FnOnce(&Gpu) -> Result<R>) -> Result<R> {
    let g = gpu()?;
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&g))) {
        Ok(r) => r,
        Err(_) => Err(failure("a CUDA library call failed (missing symbol?)")),
    }
}

fn check_sol(status: sol::cusolverStatus_t, routine: &str) -> Result<()> {
    if status == sol::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(failure(format!("{routine}: {status:?}")))
    }
}

fn check_blas(status: blas::cublasStatus_t, routine: &str) -> Result<()> {
    if status == blas::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(failure(format!("{routine}: {status:?}")))
    }
}

fn dim_i32(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| failure(format!("dimension {n} exceeds the 32-bit interface")))
}

/// A square complex matrix in device memory, column-major, as interleaved `(re, im)` doubles.
pub(crate) struct DeviceMatrix {
    data: CudaSlice<f64>,
    rows: usize,
}

/// Reinterpret complex numbers as interleaved doubles (`Complex64` is `repr(C)` `{re, im}`).
fn as_f64(z: &[Complex64]) -> &[f64] {
    // SAFETY: Complex64 is repr(C) with two f64 fields, no padding.
    unsafe { std::slice::from_raw_parts(z.as_ptr().cast::<f64>(), 2 * z.len()) }
}

fn as_f64_mut(z: &mut [Complex64]) -> &mut [f64] {
    // SAFETY: as in `as_f64`.
    unsafe { std::slice::from_raw_parts_mut(z.as_mut_ptr().cast::<f64>(), 2 * z.len()) }
}

/// Element types the device buffers hold as doubles.
trait Doubles: Copy + Default {
    fn doubles(s: &[Self]) -> &[f64];
    fn doubles_mut(s: &mut [Self]) -> &mut [f64];
}
impl Doubles for f64 {
    fn doubles(s: &[f64]) -> &[f64] {
        s
    }
    fn doubles_mut(s: &mut [f64]) -> &mut [f64] {
        s
    }
}
impl Doubles for Complex64 {
    fn doubles(s: &[Complex64]) -> &[f64] {
        as_f64(s)
    }
    fn doubles_mut(s: &mut [Complex64]) -> &mut [f64] {
        as_f64_mut(s)
    }
}

/// A Hermitian (real: symmetric) matrix copied to the device without reordering on the host. A
/// row-major buffer read column-major is `Aᵀ = conj(A)`, whose *upper* triangle holds `A`'s lower
/// triangle: then `uplo = UPPER` and the device solves `conj(A)` (same eigenvalues, conjugated
/// eigenvectors; for real matrices `A` itself).
struct Hermitian {
    data: CudaSlice<f64>,
    uplo: sol::cublasFillMode_t,
    conjugated: bool,
}

fn finite(values: Vec<f64>) -> Result<Array1<f64>> {
    if values.iter().any(|v| !v.is_finite()) {
        return Err(failure("non-finite eigenvalue"));
    }
    Ok(Array1::from(values))
}

/// An eigensolve enqueued on a lane, with the buffers it writes.
struct PendingEigen {
    values: CudaSlice<f64>,
    info: CudaSlice<i32>,
    _work: CudaSlice<f64>,
    routine: &'static str,
    n: usize,
}

/// Validation statistics of a stored `d × d` matrix computed on the device: `‖A‖_max`, the
/// largest `|a_ij − conj(a_ji)|` and `Tr A`, exactly the numbers of the host's
/// `symmetrize_checked` (the same operations on the same entries; maxima do not depend on the
/// order, the trace is summed on the host in index order).
pub(crate) struct DeviceCheck {
    pub(crate) norm: f64,
    pub(crate) deviation: f64,
    pub(crate) trace: f64,
}

fn blocks_of(len: usize, threads: usize) -> Result<u32> {
    u32::try_from(len.div_ceil(threads))
        .map_err(|_| failure(format!("{len} threads exceed one launch")))
}

/// Check the stored matrix `a` (`d × d`, either storage order) on the device and symmetrise it in
/// place to `(A + A†)/2` (kernels `hermitian_stats`, `symmetrise`). `None` when the host must
/// decide: a non-finite entry (the host names it), or `|a_ij|² ≥ 10³⁰⁰` (the host recomputes the
/// moduli with `hypot`).
fn device_check(
    lane: &Lane,
    k: &Kernels,
    a: &CudaSlice<f64>,
    d: usize,
) -> Result<Option<DeviceCheck>> {
    let di = dim_i32(d)?;
    let len = d
        .checked_mul(d)
        .ok_or_else(|| failure("dimension overflows"))?;
    let cfg = LaunchConfig {
        grid_dim: (blocks_of(len, 256)?, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let out = Lane::drv(lane.stream.alloc_zeros::<u64>(3))?;
    // SAFETY: a holds d·d complex numbers, out 3 words; the kernel reads/writes only those.
    unsafe {
        Lane::drv(
            lane.stream
                .launch_builder(&k.hermitian_stats)
                .arg(&di)
                .arg(a)
                .arg(&out)
                .launch(cfg),
        )?;
    }
    let stats = Lane::drv(lane.stream.clone_dtoh(&out))?;
    let (norm2, dev2) = (f64::from_bits(stats[0]), f64::from_bits(stats[1]));
    if stats[2] != 0 || norm2.is_nan() || norm2 >= 1e300 {
        return Ok(None);
    }
    let diag = lane.zeros(d)?;
    // SAFETY: a holds d·d complex numbers, diag d doubles.
    unsafe {
        Lane::drv(
            lane.stream
                .launch_builder(&k.symmetrise)
                .arg(&di)
                .arg(a)
                .arg(&diag)
                .launch(cfg),
        )?;
    }
    let trace = lane.download(&diag)?[..d].iter().sum();
    Ok(Some(DeviceCheck {
        norm: norm2.sqrt(),
        deviation: dev2.sqrt(),
        trace,
    }))
}

impl Lane {
    fn ptr(&self, s: &CudaSlice<f64>) -> u64 {
        s.device_ptr(&self.stream).0
    }
    fn drv<T>(r: std::result::Result<T, cudarc::driver::DriverError>) -> Result<T> {
        r.map_err(|e| failure(format!("CUDA driver: {e}")))
    }
    fn upload(&self, host: &[f64]) -> Result<CudaSlice<f64>> {
        Self::drv(self.stream.clone_htod(host))
    }
    fn download(&self, dev: &CudaSlice<f64>) -> Result<Vec<f64>> {
        Self::drv(self.stream.clone_dtoh(dev))
    }
    fn zeros(&self, n: usize) -> Result<CudaSlice<f64>> {
        Self::drv(self.stream.alloc_zeros::<f64>(n.max(1)))
    }
    fn info(&self, info: &CudaSlice<i32>) -> Result<i32> {
        Ok(Self::drv(self.stream.clone_dtoh(info))?[0])
    }
    /// `len` elements copied straight into a host vector (no reordering pass).
    fn download_into<T: Doubles>(&self, dev: &CudaSlice<f64>, len: usize) -> Result<Vec<T>> {
        let mut v = vec![T::default(); len];
        let dst = T::doubles_mut(&mut v);
        let src = dev.slice(0..dst.len());
        Self::drv(self.stream.memcpy_dtoh(&src, dst))?;
        Self::drv(self.stream.synchronize())?;
        Ok(v)
    }
    /// Upload a Hermitian/symmetric matrix as it lies in memory (see [`Hermitian`]); only a
    /// matrix in neither contiguous order is gathered first.
    fn upload_hermitian<T: Doubles>(&self, a: &ArrayView2<T>) -> Result<Hermitian> {
        let (upper, lower) = (
            sol::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER,
            sol::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
        );
        if let Some(rows) = a.as_slice() {
            return Ok(Hermitian {
                data: self.upload(T::doubles(rows))?,
                uplo: upper,
                conjugated: true,
            });
        }
        let data = match a.t().as_slice() {
            Some(cols) => self.upload(T::doubles(cols))?,
            None => {
                let host: Vec<T> = a.t().iter().copied().collect();
                self.upload(T::doubles(&host))?
            }
        };
        Ok(Hermitian {
            data,
            uplo: lower,
            conjugated: false,
        })
    }
    /// `zpotrf` of `A + shift·I` (the buffer `m` is consumed: the shift is added on the device,
    /// `zaxpy` along the diagonal): `true` when it succeeds, `false` at a non-positive pivot.
    fn shifted_cholesky(&self, m: Hermitian, n: usize, shift: f64) -> Result<bool> {
        let shifts = complex_vector(self, &vec![shift; n])?;
        let c1 = blas::cuDoubleComplex { x: 1.0, y: 0.0 };
        let ni = dim_i32(n)?;
        let info = Self::drv(self.stream.alloc_zeros::<i32>(1))?;
        let mut lwork = 0i32;
        let h = self.solver.cu();
        // SAFETY: m holds n·n complex numbers, shifts n.
        unsafe {
            check_blas(
                blas::cublasZaxpy_v2(
                    *self.blas.handle(),
                    ni,
                    &c1,
                    self.ptr(&shifts) as *const _,
                    1,
                    self.ptr(&m.data) as *mut _,
                    ni + 1,
                ),
                "cublasZaxpy",
            )?;
            check_sol(
                sol::cusolverDnZpotrf_bufferSize(
                    h,
                    m.uplo,
                    ni,
                    self.ptr(&m.data) as *mut _,
                    ni,
                    &mut lwork,
                ),
                "cusolverDnZpotrf_bufferSize",
            )?;
            let work = self.zeros(2 * lwork.max(1) as usize)?;
            check_sol(
                sol::cusolverDnZpotrf(
                    h,
                    m.uplo,
                    ni,
                    self.ptr(&m.data) as *mut _,
                    ni,
                    self.ptr(&work) as *mut _,
                    lwork,
                    info.device_ptr(&self.stream).0 as *mut i32,
                ),
                "cusolverDnZpotrf",
            )?;
        }
        match self.info(&info)? {
            0 => Ok(true),
            k if k > 0 => Ok(false),
            k => Err(failure(format!("zpotrf info = {k}"))),
        }
    }

    /// `C = op(A)` for an `m × n` result (`zgeam` with `β = 0`): with `op = C`, the conjugate
    /// transpose, a column-major buffer of `X` becomes one whose row-major reading is `conj(X)`.
    fn adjoint(&self, a: &CudaSlice<f64>, n: usize) -> Result<CudaSlice<f64>> {
        let out = self.zeros(2 * n * n)?;
        let (one, zero) = (
            blas::cuDoubleComplex { x: 1.0, y: 0.0 },
            blas::cuDoubleComplex { x: 0.0, y: 0.0 },
        );
        let ni = dim_i32(n)?;
        // SAFETY: a and out hold n·n complex numbers; B = A is not read (β = 0).
        unsafe {
            check_blas(
                blas::cublasZgeam(
                    *self.blas.handle(),
                    blas::cublasOperation_t::CUBLAS_OP_C,
                    blas::cublasOperation_t::CUBLAS_OP_N,
                    ni,
                    ni,
                    &one,
                    self.ptr(a) as *const _,
                    ni,
                    &zero,
                    self.ptr(a) as *const _,
                    ni,
                    self.ptr(&out) as *mut _,
                    ni,
                ),
                "cublasZgeam",
            )?;
        }
        Ok(out)
    }

    /// The divide-and-conquer driver shared by `zheevd` and `dsyevd`: `size(jobz, w, &mut lwork)`
    /// asks for the workspace (in elements of `elem` doubles), `solve(jobz, w, work, lwork, info)`
    /// runs; ascending eigenvalues, or an error when `info ≠ 0` (not converged).
    fn syevd(
        &self,
        (routine, n, elem): (&'static str, usize, usize),
        vectors: bool,
        size: impl FnOnce(sol::cusolverEigMode_t, u64, &mut i32) -> sol::cusolverStatus_t,
        solve: impl FnOnce(sol::cusolverEigMode_t, u64, u64, i32, u64) -> sol::cusolverStatus_t,
    ) -> Result<Vec<f64>> {
        let pending = self.syevd_start((routine, n, elem), vectors, size, solve)?;
        self.syevd_finish(pending)
    }

    /// The enqueueing half of [`Lane::syevd`]: the solve runs on this lane's stream while the
    /// host goes on; [`Lane::syevd_finish`] waits for it.
    fn syevd_start(
        &self,
        (routine, n, elem): (&'static str, usize, usize),
        vectors: bool,
        size: impl FnOnce(sol::cusolverEigMode_t, u64, &mut i32) -> sol::cusolverStatus_t,
        solve: impl FnOnce(sol::cusolverEigMode_t, u64, u64, i32, u64) -> sol::cusolverStatus_t,
    ) -> Result<PendingEigen> {
        let jobz = if vectors {
            sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
        } else {
            sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
        };
        let w = self.zeros(n)?;
        let info = Self::drv(self.stream.alloc_zeros::<i32>(1))?;
        let mut lwork = 0i32;
        check_sol(size(jobz, self.ptr(&w), &mut lwork), routine)?;
        let work = self.zeros(elem * lwork.max(1) as usize)?;
        let info_ptr = info.device_ptr(&self.stream).0;
        check_sol(
            solve(jobz, self.ptr(&w), self.ptr(&work), lwork, info_ptr),
            routine,
        )?;
        Ok(PendingEigen {
            values: w,
            info,
            _work: work,
            routine,
            n,
        })
    }

    /// Wait for an enqueued solve: its ascending eigenvalues, or an error when `info ≠ 0`.
    fn syevd_finish(&self, p: PendingEigen) -> Result<Vec<f64>> {
        let code = self.info(&p.info)?;
        if code != 0 {
            return Err(failure(format!(
                "{} info = {code} (not converged)",
                p.routine
            )));
        }
        let mut values = self.download(&p.values)?;
        values.truncate(p.n);
        Ok(values)
    }

    /// `zheevd` on the `n × n` matrix at `a` (leading dimension `lda`, the `uplo` triangle read,
    /// overwritten by the eigenvectors when `vectors`); ascending eigenvalues.
    fn zheevd(
        &self,
        a: u64,
        (n, lda): (usize, usize),
        uplo: sol::cublasFillMode_t,
        vectors: bool,
    ) -> Result<Vec<f64>> {
        let pending = self.zheevd_start(a, (n, lda), uplo, vectors)?;
        self.syevd_finish(pending)
    }

    /// [`Lane::zheevd`] enqueued only (finish with [`Lane::syevd_finish`]).
    fn zheevd_start(
        &self,
        a: u64,
        (n, lda): (usize, usize),
        uplo: sol::cublasFillMode_t,
        vectors: bool,
    ) -> Result<PendingEigen> {
        let (ni, ldi) = (dim_i32(n)?, dim_i32(lda)?);
        let h = self.solver.cu();
        // SAFETY: a points to lda·n complex numbers on this context; w holds n doubles and work
        // lwork complex numbers (allocated by `syevd`).
        self.syevd_start(
            ("cusolverDnZheevd", n, 2),
            vectors,
            |jobz, w, lwork| unsafe {
                sol::cusolverDnZheevd_bufferSize(
                    h,
                    jobz,
                    uplo,
                    ni,
                    a as *const _,
                    ldi,
                    w as *const f64,
                    lwork,
                )
            },
            |jobz, w, work, lwork, info| unsafe {
                sol::cusolverDnZheevd(
                    h,
                    jobz,
                    uplo,
                    ni,
                    a as *mut _,
                    ldi,
                    w as *mut f64,
                    work as *mut _,
                    lwork,
                    info as *mut i32,
                )
            },
        )
    }

    /// `dsyevd` on a real symmetric matrix in a device buffer (the `uplo` triangle read).
    fn dsyevd(
        &self,
        a: &CudaSlice<f64>,
        n: usize,
        uplo: sol::cublasFillMode_t,
        vectors: bool,
    ) -> Result<Vec<f64>> {
        let (ni, ap) = (dim_i32(n)?, self.ptr(a));
        let h = self.solver.cu();
        // SAFETY: a holds n·n doubles, w n doubles, work lwork doubles (allocated by `syevd`).
        self.syevd(
            ("cusolverDnDsyevd", n, 1),
            vectors,
            |jobz, w, lwork| unsafe {
                sol::cusolverDnDsyevd_bufferSize(
                    h,
                    jobz,
                    uplo,
                    ni,
                    ap as *const f64,
                    ni,
                    w as *const f64,
                    lwork,
                )
            },
            |jobz, w, work, lwork, info| unsafe {
                sol::cusolverDnDsyevd(
                    h,
                    jobz,
                    uplo,
                    ni,
                    ap as *mut f64,
                    ni,
                    w as *mut f64,
                    work as *mut f64,
                    lwork,
                    info as *mut i32,
                )
            },
        )
    }

    /// `C = op(A) op(B)` (`zgemm`, no accumulation).
    #[allow(clippy::too_many_arguments)]
    fn zgemm(
        &self,
        ta: blas::cublasOperation_t,
        tb: blas::cublasOperation_t,
        (m, n, k): (usize, usize, usize),
        a: (u64, usize),
        b: (u64, usize),
        c: (u64, usize),
    ) -> Result<()> {
        let one = blas::cuDoubleComplex { x: 1.0, y: 0.0 };
        let zero = blas::cuDoubleComplex { x: 0.0, y: 0.0 };
        // SAFETY: the caller passes buffers of the stated shapes on this context.
        unsafe {
            check_blas(
                blas::cublasZgemm_v2(
                    *self.blas.handle(),
                    ta,
                    tb,
                    dim_i32(m)?,
                    dim_i32(n)?,
                    dim_i32(k)?,
                    &one,
                    a.0 as *const _,
                    dim_i32(a.1)?,
                    b.0 as *const _,
                    dim_i32(b.1)?,
                    &zero,
                    c.0 as *mut _,
                    dim_i32(c.1)?,
                ),
                "cublasZgemm",
            )
        }
    }

    /// `C = diag(x) A` (`side = LEFT`) or `A diag(x)` (`RIGHT`), `m × n`, complex `x` on the device.
    #[allow(clippy::too_many_arguments)]
    fn zdgmm(
        &self,
        side: blas::cublasSideMode_t,
        (m, n): (usize, usize),
        a: (u64, usize),
        x: u64,
        c: (u64, usize),
    ) -> Result<()> {
        // SAFETY: shapes as stated; x holds max(m, n) complex numbers.
        unsafe {
            check_blas(
                blas::cublasZdgmm(
                    *self.blas.handle(),
                    side,
                    dim_i32(m)?,
                    dim_i32(n)?,
                    a.0 as *const _,
                    dim_i32(a.1)?,
                    x as *const _,
                    1,
                    c.0 as *mut _,
                    dim_i32(c.1)?,
                ),
                "cublasZdgmm",
            )
        }
    }
}

/// A real scaling vector as complex numbers on the device (for `zdgmm`).
fn complex_vector(g: &Lane, x: &[f64]) -> Result<CudaSlice<f64>> {
    let z: Vec<f64> = x.iter().flat_map(|&v| [v, 0.0]).collect();
    g.upload(&z)
}

fn shaped<T>(v: Vec<T>, rows: usize, cols: usize, column_major: bool) -> Result<Array2<T>> {
    let shape = if column_major {
        (rows, cols).f()
    } else {
        (rows, cols).into_shape_with_order()
    };
    Array2::from_shape_vec(shape, v).map_err(|e| failure(e.to_string()))
}

impl DeviceMatrix {
    /// Number of rows (square matrices: the dimension).
    pub(crate) fn dim(&self) -> usize {
        self.rows
    }
}

/// `W = V_σ† V_ρ` on the GPU (one `zgemm`; `W_ji = ⟨b_j|a_i⟩`), returned on the host too; the
/// device keeps `Wᵀ` (column-major), i.e. `W` row-major, the layout the host reads.
///
/// Both inputs travel row-major: the device sees `S = Vᵀ`, and `W = conj(S_σ) S_ρᵀ = (S_ρ S_σ†)ᵀ`.
pub(crate) fn overlap(
    v_sigma: &ArrayView2<Complex64>,
    v_rho: &ArrayView2<Complex64>,
) -> Result<(Array2<Complex64>, DeviceMatrix)> {
    with_gpu(|g| {
        let d = v_sigma.nrows();
        let (vs, vr) = (v_sigma.as_standard_layout(), v_rho.as_standard_layout());
        let (ss, sr) = match (vs.as_slice(), vr.as_slice()) {
            (Some(a), Some(b)) => (g.upload(as_f64(a))?, g.upload(as_f64(b))?),
            _ => return Err(failure("eigenvectors not in standard layout")),
        };
        let wt = DeviceMatrix {
            data: g.zeros(2 * d * d)?,
            rows: d,
        };
        g.zgemm(
            blas::cublasOperation_t::CUBLAS_OP_N,
            blas::cublasOperation_t::CUBLAS_OP_C,
            (d, d, d),
            (g.ptr(&sr), d),
            (g.ptr(&ss), d),
            (g.ptr(&wt.data), d),
        )?;
        let w = shaped(g.download_into(&wt.data, d * d)?, d, d, false)?;
        Ok((w, wt))
    })
}

/// `ρ' = C C†` with `C = W diag(√λ)`, from the device `Wᵀ` of [`overlap`]: `Z = diag(√λ) Wᵀ = Cᵀ`
/// (`zdgmm`), `ρ'ᵀ = Z† Z` (`zherk`, lower), mirrored on the device into the full
/// `ρ'ᵀ = conj(ρ')` (`zgeam` of the triangle with its adjoint, diagonal halved: exactly
/// Hermitian, real diagonal). Its row-major reading is `ρ'`, returned on the host; the device
/// keeps `conj(ρ')`, which has the same spectra in every scaled block.
pub(crate) fn gram_of_scaled(
    wt: &DeviceMatrix,
    sqrt_lambda: &[f64],
) -> Result<(Array2<Complex64>, DeviceMatrix)> {
    with_gpu(|g| {
        let d = wt.rows;
        let di = dim_i32(d)?;
        let x = complex_vector(g, sqrt_lambda)?;
        let z = g.zeros(2 * d * d)?;
        g.zdgmm(
            blas::cublasSideMode_t::CUBLAS_SIDE_LEFT,
            (d, d),
            (g.ptr(&wt.data), d),
            g.ptr(&x),
            (g.ptr(&z), d),
        )?;
        let tri = g.zeros(2 * d * d)?;
        let full = DeviceMatrix {
            data: g.zeros(2 * d * d)?,
            rows: d,
        };
        let (one, zero, half) = (1.0f64, 0.0f64, 0.5f64);
        let c1 = blas::cuDoubleComplex { x: 1.0, y: 0.0 };
        // SAFETY: z, tri and full hold d·d complex numbers; the strict upper part of tri stays 0.
        unsafe {
            check_blas(
                blas::cublasZherk_v2(
                    *g.blas.handle(),
                    blas::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
                    blas::cublasOperation_t::CUBLAS_OP_C,
                    di,
                    di,
                    &one,
                    g.ptr(&z) as *const _,
                    di,
                    &zero,
                    g.ptr(&tri) as *mut _,
                    di,
                ),
                "cublasZherk",
            )?;
            check_blas(
                blas::cublasZgeam(
                    *g.blas.handle(),
                    blas::cublasOperation_t::CUBLAS_OP_N,
                    blas::cublasOperation_t::CUBLAS_OP_C,
                    di,
                    di,
                    &c1,
                    g.ptr(&tri) as *const _,
                    di,
                    &c1,
                    g.ptr(&tri) as *const _,
                    di,
                    g.ptr(&full.data) as *mut _,
                    di,
                ),
                "cublasZgeam",
            )?;
            check_blas(
                blas::cublasZdscal_v2(
                    *g.blas.handle(),
                    di,
                    &half,
                    g.ptr(&full.data) as *mut _,
                    di + 1,
                ),
                "cublasZdscal",
            )?;
        }
        let host = shaped(g.download_into(&full.data, d * d)?, d, d, false)?;
        Ok((host, full))
    })
}

/// Ascending eigenvalues of `D ρ'[k0.., k0..] D` with `D = diag(scale)` (`n = d − k0`): two
/// `zdgmm` from the trailing block of the device `ρ'` into a work matrix, then `zheevd` values
/// only. Only the spectrum (`n` doubles) comes back.
pub(crate) fn scaled_block_eigvalsh(
    rho: &DeviceMatrix,
    k0: usize,
    scale: &[f64],
) -> Result<Array1<f64>> {
    with_gpu(|g| {
        let d = rho.rows;
        let n = scale.len();
        if k0 + n != d {
            return Err(failure("scaled block does not end at the last row"));
        }
        if n == 0 {
            return Ok(Array1::zeros(0));
        }
        let x = complex_vector(g, scale)?;
        let t = g.zeros(2 * n * n)?;
        let a = g.zeros(2 * n * n)?;
        let block = g.ptr(&rho.data) + (16 * (k0 + k0 * d)) as u64;
        g.zdgmm(
            blas::cublasSideMode_t::CUBLAS_SIDE_RIGHT,
            (n, n),
            (block, d),
            g.ptr(&x),
            (g.ptr(&t), n),
        )?;
        g.zdgmm(
            blas::cublasSideMode_t::CUBLAS_SIDE_LEFT,
            (n, n),
            (g.ptr(&t), n),
            g.ptr(&x),
            (g.ptr(&a), n),
        )?;
        let lower = sol::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER;
        finite(g.zheevd(g.ptr(&a), (n, n), lower, false)?)
    })
}

/// The GPU backend (no state; the device context is process-wide).
pub(crate) struct Cuda;

impl EigenSolver for Cuda {
    fn name(&self) -> &'static str {
        "cuda"
    }
    /// A row-major input is solved as `conj(A)`; its eigenvectors `V' = conj(V)` come back through
    /// `V'†` (`zgeam`), whose column-major buffer read row-major is `conj(V') = V`.
    fn eigh(&self, a: ArrayView2<Complex64>) -> Result<(Array1<f64>, Array2<Complex64>)> {
        with_gpu(|g| {
            let n = a.nrows();
            let m = g.upload_hermitian(&a)?;
            let values = finite(g.zheevd(g.ptr(&m.data), (n, n), m.uplo, true)?)?;
            let vectors = if m.conjugated {
                let adj = g.adjoint(&m.data, n)?;
                shaped(g.download_into(&adj, n * n)?, n, n, false)?
            } else {
                shaped(g.download_into(&m.data, n * n)?, n, n, true)?
            };
            Ok((values, vectors))
        })
    }
    fn eigvalsh(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        with_gpu(|g| {
            let n = a.nrows();
            let m = g.upload_hermitian(&a)?;
            finite(g.zheevd(g.ptr(&m.data), (n, n), m.uplo, false)?)
        })
    }
    fn eigh_real(&self, a: ArrayView2<f64>) -> Result<(Array1<f64>, Array2<f64>)> {
        with_gpu(|g| {
            let n = a.nrows();
            let m = g.upload_hermitian(&a)?;
            let values = finite(g.dsyevd(&m.data, n, m.uplo, true)?)?;
            let vectors = shaped(g.download_into(&m.data, n * n)?, n, n, true)?;
            Ok((values, vectors))
        })
    }
    fn eigvalsh_real(&self, a: ArrayView2<f64>) -> Result<Array1<f64>> {
        with_gpu(|g| {
            let n = a.nrows();
            let m = g.upload_hermitian(&a)?;
            finite(g.dsyevd(&m.data, n, m.uplo, false)?)
        })
    }
    /// `zgesvd` needs `m ≥ n`: a wide matrix is passed as its transpose (same singular values).
    fn singular_values(&self, a: ArrayView2<Complex64>) -> Result<Array1<f64>> {
        let (r, c) = a.dim();
        if r == 0 || c == 0 {
            return Ok(Array1::zeros(0));
        }
        with_gpu(|g| {
            // column-major A (r × c) when tall, column-major Aᵀ (c × r) = row-major A when wide
            let (host, m, n): (Vec<Complex64>, usize, usize) = if r >= c {
                (a.t().iter().copied().collect(), r, c)
            } else {
                (a.iter().copied().collect(), c, r)
            };
            let buf = g.upload(as_f64(&host))?;
            let s = g.zeros(n)?;
            let rwork = g.zeros(n)?;
            let info = Lane::drv(g.stream.alloc_zeros::<i32>(1))?;
            let (mi, ni) = (dim_i32(m)?, dim_i32(n)?);
            let mut lwork = 0i32;
            let h = g.solver.cu();
            // SAFETY: buf holds m·n complex numbers; s and rwork n doubles.
            unsafe {
                check_sol(
                    sol::cusolverDnZgesvd_bufferSize(h, mi, ni, &mut lwork),
                    "cusolverDnZgesvd_bufferSize",
                )?;
                let work = g.zeros(2 * lwork.max(1) as usize)?;
                check_sol(
                    sol::cusolverDnZgesvd(
                        h,
                        b'N' as _,
                        b'N' as _,
                        mi,
                        ni,
                        g.ptr(&buf) as *mut _,
                        mi,
                        g.ptr(&s) as *mut f64,
                        std::ptr::null_mut(),
                        mi,
                        std::ptr::null_mut(),
                        ni,
                        g.ptr(&work) as *mut _,
                        lwork,
                        g.ptr(&rwork) as *mut f64,
                        info.device_ptr(&g.stream).0 as *mut i32,
                    ),
                    "cusolverDnZgesvd",
                )?;
            }
            let code = g.info(&info)?;
            if code != 0 {
                return Err(failure(format!("zgesvd info = {code} (not converged)")));
            }
            let mut v = g.download(&s)?;
            v.truncate(n);
            finite(v)
        })
    }
    /// `zpotrf` of `A + shift·I`: the shift is added on the device (`zaxpy` along the diagonal).
    fn is_positive_definite(&self, a: ArrayView2<Complex64>, shift: f64) -> Result<bool> {
        let n = a.nrows();
        if n == 0 {
            return Ok(true);
        }
        with_gpu(|g| g.shifted_cholesky(g.upload_hermitian(&a)?, n, shift))
    }
}

/// The kernel estimator's blocks in GPU memory: `K_XX` (`n × n`) and `C = K_XY E` (`n × m`, `E`
/// the eigenvectors of `K_YY`), column-major doubles (`crate::kernel::KernelDivergence`).
pub(crate) struct KernelBlocks {
    kxx: CudaSlice<f64>,
    c: CudaSlice<f64>,
    n: usize,
    m: usize,
}

/// A real matrix on the device as it lies in memory: row-major input gives `Aᵀ` column-major
/// (`true`), column-major input `A`.
fn upload_real(g: &Lane, a: &ArrayView2<f64>) -> Result<(CudaSlice<f64>, bool)> {
    if let Some(rows) = a.as_slice() {
        return Ok((g.upload(rows)?, true));
    }
    let host: Vec<f64> = a.t().iter().copied().collect();
    Ok((g.upload(&host)?, false))
}

/// Eigendecomposition of `K_YY` on the GPU (`dsyevd`), then `C = K_XY E` (`dgemm`): returns the
/// eigenvalues of `K_YY` (ascending), `C` on the host, and the device blocks for the per-order
/// solves. The eigenvectors never leave the device.
pub(crate) fn kernel_blocks(
    kxx: &ArrayView2<f64>,
    kxy: &ArrayView2<f64>,
    kyy: &ArrayView2<f64>,
) -> Result<(Array1<f64>, Array2<f64>, KernelBlocks)> {
    with_gpu(|g| {
        let (n, m) = (kxx.nrows(), kyy.nrows());
        // K_YY and K_XX are symmetric: either layout is the matrix itself
        let (e, _) = upload_real(g, kyy)?;
        let lower = sol::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER;
        let nu = finite(g.dsyevd(&e, m, lower, true)?)?;
        let (xy, transposed) = upload_real(g, kxy)?;
        let (op, ld) = if transposed {
            (blas::cublasOperation_t::CUBLAS_OP_T, m)
        } else {
            (blas::cublasOperation_t::CUBLAS_OP_N, n)
        };
        let c = g.zeros(n * m)?;
        let (one, zero) = (1.0f64, 0.0f64);
        // SAFETY: xy is n × m, e is m × m, c is n × m (column-major).
        unsafe {
            check_blas(
                blas::cublasDgemm_v2(
                    *g.blas.handle(),
                    op,
                    blas::cublasOperation_t::CUBLAS_OP_N,
                    dim_i32(n)?,
                    dim_i32(m)?,
                    dim_i32(m)?,
                    &one,
                    g.ptr(&xy) as *const f64,
                    dim_i32(ld)?,
                    g.ptr(&e) as *const f64,
                    dim_i32(m)?,
                    &zero,
                    g.ptr(&c) as *mut f64,
                    dim_i32(n)?,
                ),
                "cublasDgemm",
            )?;
        }
        drop((xy, e));
        let c_host = shaped(g.download_into(&c, n * m)?, n, m, true)?;
        let blocks = KernelBlocks {
            kxx: upload_real(g, kxx)?.0,
            c,
            n,
            m,
        };
        Ok((nu, c_host, blocks))
    })
}

impl KernelBlocks {
    /// Ascending eigenvalues of `a·K_XX + b·(C diag(s))(C diag(s))ᵀ` (`ddgmm`, a device copy of
    /// `K_XX`, `dsyrk` accumulating into it, values-only `dsyevd`); only the spectrum comes back.
    pub(crate) fn sandwich_eigvalsh(&self, a: f64, b: f64, s: &[f64]) -> Result<Array1<f64>> {
        with_gpu(|g| {
            let (n, m) = (self.n, self.m);
            let x = g.upload(s)?;
            let w = g.zeros(n * m)?;
            let out = Lane::drv(g.stream.clone_dtod(&self.kxx))?;
            // SAFETY: c and w are n × m, x holds m doubles, out is n × n.
            unsafe {
                check_blas(
                    blas::cublasDdgmm(
                        *g.blas.handle(),
                        blas::cublasSideMode_t::CUBLAS_SIDE_RIGHT,
                        dim_i32(n)?,
                        dim_i32(m)?,
                        g.ptr(&self.c) as *const f64,
                        dim_i32(n)?,
                        g.ptr(&x) as *const f64,
                        1,
                        g.ptr(&w) as *mut f64,
                        dim_i32(n)?,
                    ),
                    "cublasDdgmm",
                )?;
                check_blas(
                    blas::cublasDsyrk_v2(
                        *g.blas.handle(),
                        blas::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
                        blas::cublasOperation_t::CUBLAS_OP_N,
                        dim_i32(n)?,
                        dim_i32(m)?,
                        &b,
                        g.ptr(&w) as *const f64,
                        dim_i32(n)?,
                        &a,
                        g.ptr(&out) as *mut f64,
                        dim_i32(n)?,
                    ),
                    "cublasDsyrk",
                )?;
            }
            drop(w);
            let lower = sol::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER;
            finite(g.dsyevd(&out, n, lower, false)?)
        })
    }
}

/// What [`sandwiched_spectra`] brings back: `O(d)` numbers per order, never a matrix.
pub(crate) struct SandwichedSpectra {
    /// The rounding tolerances `t` of ρ and σ from their device checks (see `accept`).
    pub(crate) tolerances: (f64, f64),
    /// Ascending eigenvalues `μ` of σ (`cusolverDnZheevd`, vectors kept on the device).
    pub(crate) sigma_values: Vec<f64>,
    /// Whether the Cholesky factorisation of `ρ + t·I` succeeded (`ρ ⪰ −t` up to rounding).
    pub(crate) rho_shifted_cholesky: bool,
    /// The diagonal `ρ'_jj = ⟨b_j|ρ|b_j⟩` in σ's eigenbasis (empty when σ is rank-deficient).
    pub(crate) rho_diagonal: Vec<f64>,
    /// Per order, the ascending eigenvalues of `D ρ' D` with `D = diag(scale(α))` (empty when σ is
    /// rank-deficient).
    pub(crate) scaled: Vec<Array1<f64>>,
}

/// The sandwiched orders straight from two raw host matrices, decomposing σ only, validation on
/// the device. Main lane: upload σ, check and symmetrise it (`hermitian_stats`, `symmetrise`),
/// enqueue `zheevd` of σ with its vectors `V`; meanwhile, on the side lane, upload ρ, check and
/// symmetrise it and factor `ρ + t·I` (`zpotrf` on a copy: the PSD check); then `ρ' = V†ρV` (two
/// `zgemm`) and per order the values of `D ρ' D` (two `zdgmm` + values-only `zheevd`).
///
/// `accept(check)` turns a matrix's [`DeviceCheck`] into its rounding tolerance `t`, or `None`
/// when the matrix fails validation; the answer is then `None` (as for a matrix the device
/// cannot judge) and the caller validates on the host, which reports the error. `scale(μ)` gives
/// `D` from σ's eigenvalues per order; it returns `None` when σ is rank-deficient, and the
/// products are then skipped (the caller takes the pair route, which handles supports).
///
/// Both inputs travel row-major, i.e. the device holds `conj(ρ)`, `conj(σ)`: every step then
/// works on `conj(ρ')`, whose scaled blocks have the same (real) spectra and diagonal.
pub(crate) fn sandwiched_spectra(
    rho: &ArrayView2<Complex64>,
    sigma: &ArrayView2<Complex64>,
    accept: impl Fn(&DeviceCheck) -> Option<f64>,
    scales: impl Fn(&[f64]) -> Option<Vec<Vec<f64>>>,
) -> Result<Option<SandwichedSpectra>> {
    let d = rho.nrows();
    let mut tr = Trace::new();
    with_gpu(|g| {
        let k = g.kernels()?;
        tr.mark(Some(g), "lock + kernels");
        let di = dim_i32(d)?;
        let s = g.upload_hermitian(sigma)?;
        let Some(t_sigma) = device_check(g, k, &s.data, d)?.and_then(|c| accept(&c)) else {
            return Ok(None);
        };
        tr.mark(Some(g), "upload + check sigma");
        let pending = g.zheevd_start(g.ptr(&s.data), (d, d), s.uplo, true)?;
        let side = &g.side;
        let r = side.upload_hermitian(rho)?;
        let checked = device_check(side, k, &r.data, d)?.and_then(|c| accept(&c));
        let Some(t_rho) = checked else {
            // the host validates and reports; only the enqueued solve must end first
            let _ = g.syevd_finish(pending);
            return Ok(None);
        };
        let copy = Hermitian {
            data: Lane::drv(side.stream.clone_dtod(&r.data))?,
            uplo: r.uplo,
            conjugated: r.conjugated,
        };
        let rho_shifted_cholesky = side.shifted_cholesky(copy, d, t_rho)?;
        Lane::drv(side.stream.synchronize())?;
        tr.mark(None, "side lane: upload + check + zpotrf rho");
        let sigma_values = g.syevd_finish(pending)?;
        tr.mark(Some(g), "zheevd sigma V (rest)");
        let mut out = SandwichedSpectra {
            tolerances: (t_rho, t_sigma),
            sigma_values,
            rho_shifted_cholesky,
            rho_diagonal: Vec::new(),
            scaled: Vec::new(),
        };
        let Some(scales) = scales(&out.sigma_values) else {
            return Ok(Some(out));
        };
        let (t, rp) = (g.zeros(2 * d * d)?, g.zeros(2 * d * d)?);
        let (nn, cn) = (
            blas::cublasOperation_t::CUBLAS_OP_N,
            blas::cublasOperation_t::CUBLAS_OP_C,
        );
        g.zgemm(
            nn,
            nn,
            (d, d, d),
            (g.ptr(&r.data), d),
            (g.ptr(&s.data), d),
            (g.ptr(&t), d),
        )?;
        g.zgemm(
            cn,
            nn,
            (d, d, d),
            (g.ptr(&s.data), d),
            (g.ptr(&t), d),
            (g.ptr(&rp), d),
        )?;
        let diag = g.zeros(2 * d)?;
        // SAFETY: rp holds d·d complex numbers (stride d + 1 walks its diagonal), diag d.
        unsafe {
            check_blas(
                blas::cublasZcopy_v2(
                    *g.blas.handle(),
                    di,
                    g.ptr(&rp) as *const _,
                    di + 1,
                    g.ptr(&diag) as *mut _,
                    1,
                ),
                "cublasZcopy",
            )?;
        }
        let z: Vec<Complex64> = g.download_into(&diag, d)?;
        out.rho_diagonal = z.iter().map(|c| c.re).collect();
        tr.mark(Some(g), "2 zgemm + diagonal");
        for scale in &scales {
            let x = complex_vector(g, scale)?;
            g.zdgmm(
                blas::cublasSideMode_t::CUBLAS_SIDE_RIGHT,
                (d, d),
                (g.ptr(&rp), d),
                g.ptr(&x),
                (g.ptr(&t), d),
            )?;
            g.zdgmm(
                blas::cublasSideMode_t::CUBLAS_SIDE_LEFT,
                (d, d),
                (g.ptr(&t), d),
                g.ptr(&x),
                (g.ptr(&t), d),
            )?;
            let lower = sol::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER;
            out.scaled
                .push(finite(g.zheevd(g.ptr(&t), (d, d), lower, false)?)?);
            tr.mark(Some(g), "order: 2 zdgmm + zheevd N");
        }
        Ok(Some(out))
    })
}

/// What [`sandwiched_pair_kernel`] brings back, per pair `k` (rows of `d` numbers, or 8).
pub(crate) struct PairKernelOut {
    /// Ascending eigenvalues of each σ_k.
    pub(crate) mu: Vec<f64>,
    /// The diagonal of `ρ'_k = V_k†ρ_kV_k`.
    pub(crate) diag: Vec<f64>,
    /// Ascending eigenvalues of `D_kρ'_kD_k` (zeros when σ_k is rank-deficient).
    pub(crate) nu: Vec<f64>,
    /// Per pair: ρ_k's smallest eigenvalue, the shift `c`, then `(max|ρ_ij|², max|ρ_ij −
    /// conj ρ_ji|², Tr ρ)` and the same for σ_k (the host's validation statistics).
    pub(crate) info: Vec<f64>,
    /// Per pair: bit 0 every Jacobi solve converged, bit 1 σ_k of full rank, bit 2 finite entries.
    pub(crate) flags: Vec<i32>,
}

/// Many small pairs (`d ≤` [`PAIR_KERNEL_MAX_DIM`]) in one launch of qrenyi's kernel
/// `sandwiched_pairs_N` (`cuda/kernels.cu`), one GPU thread per pair: symmetrise and check both
/// raw matrices (the host's validation statistics), σ_k = V_k diag(μ_k) V_k† and ρ_k's eigenvalues
/// by the cyclic Jacobi method of `spectral::small` (the same rotations and stopping rule, in
/// double precision), `ρ'_k = V_k†ρ_kV_k`, the scales of order α and the eigenvalues of
/// `D_kρ'_kD_k`. Copies: the two stacks up, `O(N·d)` numbers down.
pub(crate) fn sandwiched_pair_kernel(
    rhos: &[Complex64],
    sigmas: &[Complex64],
    (d, count): (usize, usize),
    alpha: f64,
) -> Result<PairKernelOut> {
    if d == 0
        || d > PAIR_KERNEL_MAX_DIM
        || rhos.len() != d * d * count
        || sigmas.len() != rhos.len()
        || count == 0
    {
        return Err(failure("pair kernel: stacks of d ≤ 16 matrices expected"));
    }
    let mut tr = Trace::new();
    with_gpu(|g| {
        let k = g.kernels()?;
        let f = &k.sandwiched[match d {
            1..=4 => 0,
            5..=8 => 1,
            _ => 2,
        }];
        let (r, s) = (g.upload(as_f64(rhos))?, g.upload(as_f64(sigmas))?);
        tr.mark(Some(g), "pair kernel: upload");
        let (mu, diag, nu) = (
            g.zeros(count * d)?,
            g.zeros(count * d)?,
            g.zeros(count * d)?,
        );
        let info = g.zeros(count * 8)?;
        let flags = Lane::drv(g.stream.alloc_zeros::<i32>(count))?;
        let (di, ci) = (dim_i32(d)?, dim_i32(count)?);
        const THREADS: usize = 64;
        let cfg = LaunchConfig {
            grid_dim: (blocks_of(count, THREADS)?, 1, 1),
            block_dim: (THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: r and s hold count·d·d complex numbers, mu/diag/nu count·d doubles, info
        // count·8, flags count ints; thread k touches only pair k's entries.
        unsafe {
            Lane::drv(
                g.stream
                    .launch_builder(f)
                    .arg(&di)
                    .arg(&ci)
                    .arg(&r)
                    .arg(&s)
                    .arg(&alpha)
                    .arg(&mu)
                    .arg(&diag)
                    .arg(&nu)
                    .arg(&info)
                    .arg(&flags)
                    .launch(cfg),
            )?;
        }
        let out = PairKernelOut {
            mu: g.download(&mu)?[..count * d].to_vec(),
            diag: g.download(&diag)?[..count * d].to_vec(),
            nu: g.download(&nu)?[..count * d].to_vec(),
            info: g.download(&info)?[..count * 8].to_vec(),
            flags: Lane::drv(g.stream.clone_dtoh(&flags))?,
        };
        tr.mark(Some(g), "pair kernel: launch + download");
        Ok(out)
    })
}

/// Largest dimension of `cusolverDnZheevjBatched` (batched Jacobi).
pub(crate) const BATCHED_MAX_DIM: usize = 32;

/// What [`sandwiched_batch_spectra`] brings back, per pair `k` (rows of `d` numbers).
pub(crate) struct BatchSpectra {
    /// Ascending eigenvalues of each σ_k.
    pub(crate) sigma_values: Vec<f64>,
    /// Ascending eigenvalues of each ρ_k (empty unless asked for: the PSD check of validation).
    pub(crate) rho_values: Vec<f64>,
    /// The diagonal of `ρ'_k = V_k†ρ_kV_k`.
    pub(crate) rho_diagonal: Vec<f64>,
    /// Ascending eigenvalues of `D_k ρ'_k D_k`.
    pub(crate) scaled: Vec<f64>,
    /// Per pair, whether every Jacobi solve converged (`info = 0`).
    pub(crate) converged: Vec<bool>,
}

impl Lane {
    /// `zheevjBatched` on `count` consecutive `n × n` matrices at `a` (`uplo` triangle read,
    /// overwritten by the eigenvectors when `vectors`): ascending eigenvalues (`count·n`) and
    /// each matrix's `info`.
    fn zheevj_batched(
        &self,
        a: u64,
        (n, count): (usize, usize),
        uplo: sol::cublasFillMode_t,
        vectors: bool,
    ) -> Result<(Vec<f64>, Vec<i32>)> {
        let jobz = if vectors {
            sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
        } else {
            sol::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
        };
        let (ni, ci) = (dim_i32(n)?, dim_i32(count)?);
        let w = self.zeros(n * count)?;
        let info = Self::drv(self.stream.alloc_zeros::<i32>(count.max(1)))?;
        let h = self.solver.cu();
        let mut params: sol::syevjInfo_t = std::ptr::null_mut();
        let mut lwork = 0i32;
        // SAFETY: a holds count·n·n complex numbers, w count·n doubles, info count ints, work
        // lwork complex numbers; params lives until destroyed below.
        unsafe {
            check_sol(
                sol::cusolverDnCreateSyevjInfo(&mut params),
                "cusolverDnCreateSyevjInfo",
            )?;
            let run = (|| {
                check_sol(
                    sol::cusolverDnZheevjBatched_bufferSize(
                        h,
                        jobz,
                        uplo,
                        ni,
                        a as *const _,
                        ni,
                        self.ptr(&w) as *const f64,
                        &mut lwork,
                        params,
                        ci,
                    ),
                    "cusolverDnZheevjBatched_bufferSize",
                )?;
                let work = self.zeros(2 * lwork.max(1) as usize)?;
                check_sol(
                    sol::cusolverDnZheevjBatched(
                        h,
                        jobz,
                        uplo,
                        ni,
                        a as *mut _,
                        ni,
                        self.ptr(&w) as *mut f64,
                        self.ptr(&work) as *mut _,
                        lwork,
                        info.device_ptr(&self.stream).0 as *mut i32,
                        params,
                        ci,
                    ),
                    "cusolverDnZheevjBatched",
                )?;
                let codes = Self::drv(self.stream.clone_dtoh(&info))?;
                Ok((self.download(&w)?, codes))
            })();
            sol::cusolverDnDestroySyevjInfo(params);
            run
        }
    }

    /// `C_k = op(A_k) op(B_k)` for `count` consecutive `n × n` matrices (`zgemmStridedBatched`).
    fn zgemm_batched(
        &self,
        (ta, tb): (blas::cublasOperation_t, blas::cublasOperation_t),
        (n, count): (usize, usize),
        (a, b, c): (u64, u64, u64),
    ) -> Result<()> {
        let one = blas::cuDoubleComplex { x: 1.0, y: 0.0 };
        let zero = blas::cuDoubleComplex { x: 0.0, y: 0.0 };
        let ni = dim_i32(n)?;
        let stride = (n * n) as i64;
        // SAFETY: a, b and c hold count·n·n complex numbers each.
        unsafe {
            check_blas(
                blas::cublasZgemmStridedBatched(
                    *self.blas.handle(),
                    ta,
                    tb,
                    ni,
                    ni,
                    ni,
                    &one,
                    a as *const _,
                    ni,
                    stride,
                    b as *const _,
                    ni,
                    stride,
                    &zero,
                    c as *mut _,
                    ni,
                    stride,
                    dim_i32(count)?,
                ),
                "cublasZgemmStridedBatched",
            )
        }
    }
}

/// Many small pairs at once (`d ≤ 32`): the sandwiched spectra of [`sandwiched_spectra`] for every
/// pair in a handful of batched calls — `σ_k = V_k μ_k V_k†` by batched Jacobi (`zheevjBatched`),
/// `ρ'_k = V_k†ρ_kV_k` (two `zgemmStridedBatched`), `X_k = V_k D_k` (one `zdgmm` over the whole
/// stack, `d × N·d`), `D_kρ'_kD_k = X_k†ρ_kX_k` (two more) and its values (`zheevjBatched`, values
/// only); with `rho_values`, the eigenvalues of every ρ_k too (their PSD check). `scales(μ)` maps
/// all of σ's eigenvalues (`N·d`) to the `N·d` entries of the `D_k`. Copies: the two stacks up,
/// the scales up, `O(N·d)` numbers down plus the `ρ'` stack's diagonals.
pub(crate) fn sandwiched_batch_spectra(
    rhos: &[Complex64],
    sigmas: &[Complex64],
    (d, count): (usize, usize),
    rho_values: bool,
    scales: impl Fn(&[f64]) -> Vec<f64>,
) -> Result<BatchSpectra> {
    if d == 0 || d > BATCHED_MAX_DIM || rhos.len() != d * d * count || sigmas.len() != rhos.len() {
        return Err(failure("batched solve: stacks of d ≤ 32 matrices expected"));
    }
    let mut tr = Trace::new();
    with_gpu(|g| {
        tr.mark(Some(g), "batch lock");
        let lower = sol::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER;
        let (nn, cn) = (
            blas::cublasOperation_t::CUBLAS_OP_N,
            blas::cublasOperation_t::CUBLAS_OP_C,
        );
        let (r, v) = (g.upload(as_f64(rhos))?, g.upload(as_f64(sigmas))?);
        tr.mark(Some(g), "batch upload");
        let mut converged = vec![true; count];
        let mut note = |codes: &[i32]| {
            for (c, &i) in converged.iter_mut().zip(codes) {
                *c &= i == 0;
            }
        };
        let rho_values = if rho_values {
            let copy = Lane::drv(g.stream.clone_dtod(&r))?;
            let (w, codes) = g.zheevj_batched(g.ptr(&copy), (d, count), lower, false)?;
            note(&codes);
            tr.mark(Some(g), "batch zheevj rho");
            w
        } else {
            Vec::new()
        };
        let (sigma_values, codes) = g.zheevj_batched(g.ptr(&v), (d, count), lower, true)?;
        note(&codes);
        tr.mark(Some(g), "batch zheevj sigma V");
        let len = 2 * d * d * count;
        let (t, rp) = (g.zeros(len)?, g.zeros(len)?);
        g.zgemm_batched((nn, nn), (d, count), (g.ptr(&r), g.ptr(&v), g.ptr(&t)))?;
        g.zgemm_batched((cn, nn), (d, count), (g.ptr(&v), g.ptr(&t), g.ptr(&rp)))?;
        let stack: Vec<Complex64> = g.download_into(&rp, d * d * count)?;
        let rho_diagonal = (0..count * d)
            .map(|kj| stack[(kj / d) * d * d + (kj % d) * (d + 1)].re)
            .collect();
        tr.mark(Some(g), "batch 2 gemm + download rho'");
        let x = complex_vector(g, &scales(&sigma_values))?;
        let xs = g.zeros(len)?;
        g.zdgmm(
            blas::cublasSideMode_t::CUBLAS_SIDE_RIGHT,
            (d, d * count),
            (g.ptr(&v), d),
            g.ptr(&x),
            (g.ptr(&xs), d),
        )?;
        g.zgemm_batched((nn, nn), (d, count), (g.ptr(&r), g.ptr(&xs), g.ptr(&t)))?;
        g.zgemm_batched((cn, nn), (d, count), (g.ptr(&xs), g.ptr(&t), g.ptr(&rp)))?;
        tr.mark(Some(g), "batch scales + zdgmm + 2 gemm");
        let (scaled, codes) = g.zheevj_batched(g.ptr(&rp), (d, count), lower, false)?;
        note(&codes);
        tr.mark(Some(g), "batch zheevj N");
        Ok(BatchSpectra {
            sigma_values,
            rho_values,
            rho_diagonal,
            scaled,
            converged,
        })
    })
}
