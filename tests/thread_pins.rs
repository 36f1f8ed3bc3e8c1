//! The process-wide thread counts (OpenBLAS's, faer's global parallelism) and the counted pins that
//! set and restore them (`spectral::with_single_blas_thread`, `spectral::with_blas_pinned`).
//!
//! These tests read global state, so they live in their own test binary: in the library's unit-test
//! binary any concurrently running test that calls a pinning routine could be read as this test's
//! "before" (a spurious failure under `cargo test`'s parallel runner). Here they also serialise on one lock.
use qrenyi::spectral::blas_threads;
use std::sync::{Mutex, MutexGuard};

static GLOBAL_COUNTS: Mutex<()> = Mutex::new(());

fn lock() -> MutexGuard<'static, ()> {
    GLOBAL_COUNTS.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn overlapping_single_thread_sections_restore_the_count_once() {
    // T1 enters, T2 enters (sees one thread), T1 leaves, T2 leaves: saving and restoring per
    // call left BLAS at T2's saved "1"; the shared pin restores the count when the last
    // section ends.
    use qrenyi::spectral::{set_blas_threads, with_single_blas_thread};
    use std::sync::Barrier;
    let _serial = lock();
    let before = blas_threads();
    set_blas_threads(2);
    let start = blas_threads();
    let (b1, b2, b3) = (Barrier::new(2), Barrier::new(2), Barrier::new(2));
    std::thread::scope(|sc| {
        sc.spawn(|| {
            with_single_blas_thread(|| {
                b1.wait();
                b2.wait();
            });
            b3.wait();
        });
        sc.spawn(|| {
            b1.wait();
            with_single_blas_thread(|| {
                b2.wait();
                b3.wait();
                assert_eq!(blas_threads(), 1);
            });
        });
    });
    assert_eq!(blas_threads(), start);
    set_blas_threads(before);
}

/// `with_blas_pinned` pins BLAS and leaves faer's parallelism; inside it,
/// `with_single_blas_thread` makes faer sequential, and each count comes back on leaving.
#[test]
fn blas_pin_leaves_faer_and_nests_with_single_thread_sections() {
    use qrenyi::spectral::{set_blas_threads, with_blas_pinned, with_single_blas_thread};
    let _serial = lock();
    let before = blas_threads();
    set_blas_threads(2);
    let start = blas_threads();
    #[cfg(feature = "faer")]
    let par = faer::get_global_parallelism();
    with_blas_pinned(|| {
        assert_eq!(blas_threads(), 1);
        #[cfg(feature = "faer")]
        assert_eq!(faer::get_global_parallelism(), par);
        with_single_blas_thread(|| {
            assert_eq!(blas_threads(), 1);
            #[cfg(feature = "faer")]
            assert_eq!(faer::get_global_parallelism(), faer::Par::Seq);
        });
        #[cfg(feature = "faer")]
        assert_eq!(faer::get_global_parallelism(), par);
        assert_eq!(blas_threads(), 1);
    });
    assert_eq!(blas_threads(), start);
    with_single_blas_thread(|| {
        with_blas_pinned(|| {
            #[cfg(feature = "faer")]
            assert_eq!(faer::get_global_parallelism(), faer::Par::Seq);
        })
    });
    #[cfg(feature = "faer")]
    assert_eq!(faer::get_global_parallelism(), par);
    assert_eq!(blas_threads(), start);
    set_blas_threads(before);
}
