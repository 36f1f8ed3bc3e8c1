//! Profiling helper (not a benchmark): where one call's time goes at small and mid dimensions —
//! each eigensolver on one `d × d` Hermitian matrix, validation, and one pair's value.
//! `cargo run --release --example small_profile -- 8,16,32,64`; `… -- ql D [values]`: the fixed-size
//! QL solver alone at dimension `D ≤ 16` (AVX2 and portable builds), e.g. under `perf record`.
use qrenyi::divergence::{Family, Pair};
use qrenyi::spectral::small::{eigh_small, from_view};
use qrenyi::spectral::{Backend, EigenSolver};
use qrenyi::state::{DensityMatrix, Tolerance};
use rand::SeedableRng;

#[path = "common/best.rs"]
mod timing;
use timing::best;

fn main() {
    if std::env::args().nth(1).as_deref() == Some("ql") {
        let d: usize = std::env::args().nth(2).unwrap().parse().unwrap();
        let vectors = std::env::args().nth(3).as_deref() != Some("values");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let r = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
        qrenyi::spectral::small::with_small_dim!(d, N => {
            let m = from_view::<N>(&r.matrix().view());
            let t = best(20000, || eigh_small::<N>(&m, vectors).unwrap());
            let p = best(20000, || qrenyi::spectral::small::eigh_tridiagonal_portable::<N>(&m, vectors).unwrap());
            println!("QL d={d} vectors={vectors}: {t:.3} µs (portable build {p:.3} µs)");
            if d >= 3 {
                let s = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
                let m2 = from_view::<N>(&s.matrix().view());
                let two = best(20000, || (eigh_small::<N>(&m, vectors).unwrap(), eigh_small::<N>(&m2, vectors).unwrap()));
                let _ = &two;
                let pair = best(20000, || {
                    let (x, y) = qrenyi::spectral::small::eigh_tridiagonal_pair::<N>(&m, &m2, vectors);
                    (x.unwrap(), y.unwrap())
                });
                println!("  two single solves {two:.3} µs, eigh_tridiagonal_pair {pair:.3} µs: {:.2}×", two / pair);
            }
            if std::env::args().nth(4).as_deref() == Some("pairloop") {
                let s = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
                let m2 = from_view::<N>(&s.matrix().view());
                for _ in 0..2_000_000 {
                    let _ = std::hint::black_box(qrenyi::spectral::small::eigh_tridiagonal_pair::<N>(&m, &m2, vectors));
                }
            }
        }, _ => ());
        return;
    }
    let dims: Vec<usize> = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "8,16,64".into())
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for d in dims {
        let r = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
        let s = DensityMatrix::random_hilbert_schmidt(d, d, &mut rng).unwrap();
        let rm = r.matrix().clone();
        let reps = if d <= 16 { 2000 } else { 100 };
        let mut line = format!("d={d}:");
        for (name, be) in [
            ("nalgebra", Backend::Nalgebra),
            ("lapack", Backend::Lapack),
            ("faer", Backend::Faer),
        ] {
            let t = best(reps, || be.eigh(rm.view()).unwrap());
            let v = best(reps, || be.eigvalsh(rm.view()).unwrap());
            line += &format!(" eigh/{name}={t:.2} vals/{name}={v:.2}");
        }
        qrenyi::spectral::small::with_small_dim!(d, N => {
            let m = from_view::<N>(&rm.view());
            let t = best(reps, || eigh_small::<N>(&m, true).unwrap());
            let v = best(reps, || eigh_small::<N>(&m, false).unwrap());
            line += &format!(" eigh/QL={t:.2} vals/QL={v:.2}");
            let m2 = from_view::<N>(&s.matrix().view());
            let two = best(reps, || {
                (eigh_small::<N>(&m, true).unwrap(), eigh_small::<N>(&m2, true).unwrap())
            });
            line += &format!(" eigh/QL×2={two:.2}");
            if N >= qrenyi::spectral::small::TRIDIAGONAL_FROM {
                let pair = best(reps, || {
                    let (x, y) = qrenyi::spectral::small::eigh_tridiagonal_pair::<N>(&m, &m2, true);
                    (x.unwrap(), y.unwrap())
                });
                line += &format!(" eigh/QLpair={pair:.2}");
            }
        }, _ => ());
        let tol = Tolerance::default();
        let c = best(reps, || {
            DensityMatrix::with_options(rm.clone(), tol, Backend::Auto).unwrap()
        });
        let e = best(reps, || {
            DensityMatrix::with_options_decomposed(rm.clone(), tol, Backend::Auto).unwrap()
        });
        line += &format!(" validate(chol)={c:.2} validate(decomposed)={e:.2}");
        // the fidelity's Cholesky route on undecomposed states (docs/divergences.md,
        // "fidelity_cholesky"): the route alone, its decision included
        let (ru, su) = (
            DensityMatrix::with_options(r.matrix().clone(), tol, Backend::Auto).unwrap(),
            DensityMatrix::with_options(s.matrix().clone(), tol, Backend::Auto).unwrap(),
        );
        let t = best(reps, || {
            qrenyi::divergence::fidelity::fidelity_cholesky(&ru, &su).unwrap()
        });
        line += &format!(" fidelity(chol)={t:.2}");
        r.eigen().unwrap();
        s.eigen().unwrap();
        for f in [Family::Petz, Family::Sandwiched, Family::Maximal] {
            let t = best(reps, || Pair::new(&r, &s).unwrap().renyi(f, 2.0).unwrap());
            line += &format!(" {f:?}(states)={t:.2}");
        }
        let t = best(reps, || Pair::new(&r, &s).unwrap().umegaki().unwrap());
        line += &format!(" umegaki(states)={t:.2}");
        let t = best(reps, || Pair::new(&r, &s).unwrap().fidelity().unwrap());
        line += &format!(" fidelity(states)={t:.2}");
        let t = best(reps, || {
            Pair::new(&r, &s)
                .unwrap()
                .hockey_stick(std::f64::consts::E)
                .unwrap()
        });
        line += &format!(" hockey(states)={t:.2}");
        println!("{line}");
    }
}
