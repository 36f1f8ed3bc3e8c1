//! Profiling helper (not a benchmark): the hockey-stick from two raw matrices with default
//! (two) BLAS threads — each solver and check at one and at two threads, and the whole call in
//! each schedule of `difference_with_schedule`, alternated in rounds; medians of wall time,
//! process CPU time (all threads, OpenBLAS's spinning workers included) and the calling thread's
//! CPU time (the critical path of the overlapped schedules); faer's values-only solve at three
//! parallelism thresholds, called from outside and from inside rayon's pool. `ONLY=a,b` keeps
//! the pieces whose names contain one of the words (docs/PERFORMANCE.md, hockey21).
//! `cargo run --release --example hockey_threads -- 64,256,512 [rounds]`
use ndarray::Zip;
use num_complex::Complex64;
use qrenyi::divergence::difference::{difference_with_schedule, Schedule};
use qrenyi::divergence::Difference;
use qrenyi::spectral::{set_blas_threads, Backend, EigenSolver};
use qrenyi::state::Tolerance;
use rand::SeedableRng;
use std::time::Instant;

#[path = "common/clock.rs"]
mod clock;
use clock::{dims_and_count, hs, process_cpu, thread_cpu};

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// faer's values-only self-adjoint solve with the tridiagonalisation's parallelism threshold `thr`.
fn faer_values(m: &ndarray::Array2<Complex64>, thr: usize, par: faer::Par) -> Vec<f64> {
    use faer::dyn_stack::{MemBuffer, MemStack};
    use faer::linalg::evd::{self, SelfAdjointEvdParams};
    let n = m.nrows();
    let a = faer::Mat::<Complex64>::from_fn(n, n, |i, j| m[[i, j]]);
    let mut params: SelfAdjointEvdParams = faer::Auto::<Complex64>::auto();
    params.tridiag.par_threshold = thr;
    let params: faer::Spec<SelfAdjointEvdParams, Complex64> = params.into();
    let mut s = faer::diag::Diag::<Complex64>::zeros(n);
    let mut mem = MemBuffer::new(evd::self_adjoint_evd_scratch::<Complex64>(
        n,
        evd::ComputeEigenvectors::No,
        par,
        params,
    ));
    evd::self_adjoint_evd(
        a.as_ref(),
        s.as_mut(),
        None,
        par,
        MemStack::new(&mut mem),
        params,
    )
    .unwrap();
    (0..n).map(|i| s[i].re).collect()
}

type Piece<'a> = (String, Box<dyn FnMut() + 'a>);

fn main() {
    let (dims, rounds) = dims_and_count(9);
    let only: Option<Vec<String>> = std::env::var("ONLY")
        .ok()
        .map(|s| s.split(',').map(String::from).collect());
    let g = std::f64::consts::E;
    let threads = qrenyi::spectral::blas_threads();
    println!(
        "BLAS threads {threads}, rayon {}",
        rayon::current_num_threads()
    );
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(14);
    for d in dims {
        let (rho, sigma) = (hs(d, &mut rng), hs(d, &mut rng));
        let m = Zip::from(&rho).and(&sigma).map_collect(|&r, &s| r - s * g);
        let tol = Tolerance::default();
        let gs = [g];
        let mut pieces: Vec<Piece> = Vec::new();
        for t in [1usize, 2] {
            let m = &m;
            pieces.push((
                format!("zheevd values, {t} BLAS"),
                Box::new(move || {
                    set_blas_threads(t);
                    std::hint::black_box(Backend::Lapack.eigvalsh(m.view()).unwrap());
                    set_blas_threads(threads);
                }),
            ));
            let rho = &rho;
            pieces.push((
                format!("zpotrf, {t} BLAS"),
                Box::new(move || {
                    set_blas_threads(t);
                    std::hint::black_box(
                        Backend::Lapack
                            .is_positive_definite(rho.view(), 1e-12)
                            .unwrap(),
                    );
                    set_blas_threads(threads);
                }),
            ));
        }
        for (name, par) in [("seq", faer::Par::Seq), ("rayon", faer::Par::rayon(0))] {
            let m = &m;
            pieces.push((
                format!("faer values, {name}"),
                Box::new(move || {
                    let old = faer::get_global_parallelism();
                    faer::set_global_parallelism(par);
                    std::hint::black_box(Backend::Faer.eigvalsh(m.view()).unwrap());
                    faer::set_global_parallelism(old);
                }),
            ));
        }
        for thr in [0usize, 64 * 64, 192 * 256] {
            let m = &m;
            pieces.push((
                format!("faer evd rayon thr {thr}"),
                Box::new(move || {
                    std::hint::black_box(faer_values(m, thr, faer::Par::rayon(0)));
                }),
            ));
            pieces.push((
                format!("faer evd in pool thr {thr}"),
                Box::new(move || {
                    std::hint::black_box(rayon::scope(|_| {
                        faer_values(m, thr, faer::Par::rayon(0))
                    }));
                }),
            ));
        }
        for s in [
            Schedule::Sequential,
            Schedule::Overlap,
            Schedule::Caller,
            Schedule::OverlapFaer,
        ] {
            let (rho, sigma) = (&rho, &sigma);
            let gs = &gs;
            pieces.push((
                format!("schedule {s:?}"),
                Box::new(move || {
                    std::hint::black_box(
                        difference_with_schedule(
                            rho.clone(),
                            sigma.clone(),
                            Difference::HockeyStick(gs),
                            tol,
                            Backend::Auto,
                            s,
                        )
                        .unwrap(),
                    );
                }),
            ));
        }
        if let Some(o) = &only {
            pieces.retain(|(n, _)| o.iter().any(|k| n.contains(k.as_str())));
        }
        let reps = (2e7 / (d * d * d) as f64).ceil().max(1.0) as usize;
        let mut wall = vec![Vec::new(); pieces.len()];
        let mut cpu = vec![Vec::new(); pieces.len()];
        let mut caller = vec![Vec::new(); pieces.len()];
        for (_, f) in pieces.iter_mut() {
            f();
        }
        for _ in 0..rounds {
            for (k, (_, f)) in pieces.iter_mut().enumerate() {
                let (t, c, c1) = (Instant::now(), process_cpu(), thread_cpu());
                for _ in 0..reps {
                    f();
                }
                caller[k].push((thread_cpu() - c1) / reps as f64);
                cpu[k].push((process_cpu() - c) / reps as f64);
                wall[k].push(t.elapsed().as_secs_f64() / reps as f64);
            }
        }
        for (k, (name, _)) in pieces.iter().enumerate() {
            println!(
                "d={d:4} {name:32} wall {:9.3} ms  cpu {:9.3} ms  calling thread {:9.3} ms",
                median(&mut wall[k]) * 1e3,
                median(&mut cpu[k]) * 1e3,
                median(&mut caller[k]) * 1e3
            );
        }
    }
}
