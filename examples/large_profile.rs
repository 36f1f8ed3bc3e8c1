//! Stage timings of one sandwiched α = 2 divergence from raw matrices at large d (issues 12/14,
//! docs/PERFORMANCE.md "Large states from raw matrices, thread policy (large16)"):
//! `cargo run --release --example large_profile -- 256 [rounds]`, one BLAS thread then two, each
//! stage alternated with the others in every round (best of the rounds). `QRENYI_THREAD_CPU=1`:
//! the calling thread's CPU time instead of wall time (single-threaded kernels on a loaded machine).
use ndarray::Array2;
use num_complex::Complex64;
use qrenyi::divergence::{states_from_matrices, with_large_policy, Check, Family, Pair};
use qrenyi::spectral::{
    adjoint_times, congruence, set_blas_threads, with_blas_pinned, Backend, EigenSolver,
};
use qrenyi::state::{DensityMatrix, Tolerance};
use rand::SeedableRng;
use std::time::Instant;

/// Eigenvalues by LAPACK's two-stage `zheevd_2stage` (JOBZ = 'N'), for the comparison only.
fn zheevd_2stage_values(a: &Array2<Complex64>) -> Vec<f64> {
    let n = a.nrows() as i32;
    let mut buf: Vec<Complex64> = a.t().iter().copied().collect();
    let mut w = vec![0.0; a.nrows()];
    let zero = Complex64::new(0.0, 0.0);
    let (mut wq, mut rq, mut iq, mut info) = (vec![zero], vec![0.0], vec![0], 0);
    // SAFETY: workspace query (lwork = −1) on an n×n column-major buffer.
    unsafe {
        lapack::zheevd_2stage(
            b'N', b'L', n, &mut buf, n, &mut w, &mut wq, -1, &mut rq, -1, &mut iq, -1, &mut info,
        );
    }
    let (lw, lr, li) = (wq[0].re as usize, rq[0] as usize, iq[0] as usize);
    let (mut work, mut rwork, mut iwork) = (vec![zero; lw], vec![0.0; lr], vec![0; li]);
    // SAFETY: the workspaces have the sizes the query returned.
    unsafe {
        lapack::zheevd_2stage(
            b'N', b'L', n, &mut buf, n, &mut w, &mut work, lw as i32, &mut rwork, lr as i32,
            &mut iwork, li as i32, &mut info,
        );
    }
    assert_eq!(info, 0);
    w
}

/// Wall time, or the calling thread's CPU time with `QRENYI_THREAD_CPU` set (ms).
fn now(cpu: bool, start: Instant) -> f64 {
    if cpu {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes one timespec.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 * 1e-6
    } else {
        start.elapsed().as_secs_f64() * 1e3
    }
}

type Stage<'a> = (&'static str, Box<dyn FnMut() + 'a>);

fn main() {
    let mut args = std::env::args().skip(1);
    let d: usize = args.next().map_or(256, |x| x.parse().unwrap());
    let rounds: usize = args.next().map_or(9, |x| x.parse().unwrap());
    let cpu = std::env::var("QRENYI_THREAD_CPU").is_ok();
    let start = Instant::now();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut random = || {
        let s = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
        s.matrix().clone()
    };
    let (r, s) = (random(), random());
    let sandwiched = || {
        let checks = (Check::Cholesky, Check::Decomposed);
        let (tol, be) = (Tolerance::default(), Backend::Auto);
        let (a, b) = states_from_matrices(r.clone(), s.clone(), checks, tol, be).unwrap();
        Pair::new(&a, &b)
            .unwrap()
            .renyi(Family::Sandwiched, 2.0)
            .unwrap();
    };
    for threads in [1usize, 2] {
        set_blas_threads(threads);
        let (_, v) = Backend::Auto.eigh(s.view()).unwrap();
        let rp = congruence(&v.view(), &r.view());
        let seq = |f: &dyn Fn()| {
            faer::set_global_parallelism(faer::Par::Seq);
            f();
            faer::set_global_parallelism(faer::Par::rayon(0));
        };
        let mut stages: Vec<Stage> = vec![
            (
                "zheevd N",
                Box::new(|| drop(Backend::Lapack.eigvalsh(rp.view()))),
            ),
            (
                "zheevd_2stage N",
                Box::new(|| drop(zheevd_2stage_values(&rp))),
            ),
            (
                "faer values",
                Box::new(|| drop(Backend::Faer.eigvalsh(rp.view()))),
            ),
            (
                "faer eigh seq",
                Box::new(|| seq(&|| drop(Backend::Faer.eigh(s.view())))),
            ),
            (
                "faer eigh par",
                Box::new(|| drop(Backend::Faer.eigh(s.view()))),
            ),
            (
                "zpotrf",
                Box::new(|| drop(Backend::Lapack.is_positive_definite(r.view(), 1e-14))),
            ),
            (
                "congruence",
                Box::new(|| drop(congruence(&v.view(), &r.view()))),
            ),
            (
                "congruence pinned",
                Box::new(|| drop(with_blas_pinned(|| congruence(&v.view(), &r.view())))),
            ),
            (
                "W split",
                Box::new(|| drop(adjoint_times(&v.view(), &v.view()))),
            ),
            (
                "W one task",
                Box::new(|| drop(rayon::join(|| adjoint_times(&v.view(), &v.view()), || ()).0)),
            ),
            ("sandwiched", Box::new(sandwiched)),
            (
                "sandwiched large policy",
                Box::new(|| with_large_policy(d, Backend::Auto, sandwiched)),
            ),
        ];
        let mut best = vec![f64::INFINITY; stages.len()];
        for _ in 0..rounds {
            for (b, (_, f)) in best.iter_mut().zip(stages.iter_mut()) {
                let t = now(cpu, start);
                f();
                *b = b.min(now(cpu, start) - t);
            }
        }
        for ((name, _), b) in stages.iter().zip(best) {
            println!("d={d} blas={threads} {name}: {b:.2} ms");
        }
    }
}
