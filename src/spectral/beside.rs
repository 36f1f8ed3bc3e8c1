//! Two independent steps side by side: one on the calling thread, one offered to rayon's pool.
//!
//! `rayon::join` called from a thread outside the pool hands both closures to the pool and blocks;
//! two pool threads must wake, and the second must start before the first has finished its own
//! closure. [`beside`] needs one: the caller runs its own step at once, the other is *claimable* —
//! a pool thread that starts in time runs it, otherwise the caller runs it after its own step.
//!
//! **The woken thread's core.** Linux puts a woken thread on an idle core only if that core is
//! "available", and a virtual machine's halted vCPU reads as preempted: the woken pool thread is
//! then queued on the caller's own busy core and runs only when the caller blocks or yields — the
//! two steps one after the other. On this project's 2-vCPU machine a `rayon::join` of two 450 µs
//! steps called after 1–5 ms of other work took ≈ 950 µs in half the calls or more (460 µs back to
//! back), until the host's halt polling adapted after ≈ 100 calls in quick succession. So the
//! caller yields once after offering its second step (a pool thread queued on its core runs), and
//! on Linux the pool thread leaves the caller's core before it claims the step — its allowed set
//! without that core, restored after the step; the migration takes ≈ 15–60 µs here. A claim is
//! thus never followed by a wait for a core, and the caller claims first whenever the pool thread
//! is slower than its own step: the worst case stays near the sequential time
//! (docs/PERFORMANCE.md, "Two steps side by side from the calling thread").

use std::sync::{Arc, Condvar, Mutex};

/// The offered step while unclaimed, then its result (or its panic) once a pool thread has run it.
enum Slot<B, RB> {
    Offered(B),
    Running,
    Done(std::thread::Result<RB>),
    /// Taken back by the caller (it runs the step itself, or it unwound).
    Withdrawn,
}

struct Shared<B, RB> {
    slot: Mutex<Slot<B, RB>>,
    done: Condvar,
}

/// `(a(), b())` with `a` on the calling thread and `b` beside it on rayon's pool when a pool
/// thread is free in time (see the module docs); the values are those of `a()` then `b()` called
/// in sequence, whichever thread runs `b`.
///
/// Inside a pool thread this is `rayon::join(a, b)` (work stealing already needs no wake-up there).
/// A panic of either step is resumed on the caller (`a`'s first); after a panic of `a`, an
/// unclaimed `b` is dropped without running.
///
/// Unlike a scope, the caller never waits for a pool thread that has not claimed `b`: `b` owns
/// its data (`'static`), and a pool thread that pops the job after the caller claimed it finds
/// nothing to do.
///
/// Cost from outside the pool: one heap allocation, one `rayon::spawn` and one `sched_yield`
/// (≈ 2 µs together), and the pool thread's move off the caller's core when it was queued there
/// (≈ 15–60 µs, beside `a`).
pub(crate) fn beside<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send + 'static,
    RA: Send,
    RB: Send + 'static,
{
    if rayon::current_thread_index().is_some() {
        return rayon::join(a, b);
    }
    let shared = Arc::new(Shared {
        slot: Mutex::new(Slot::Offered(b)),
        done: Condvar::new(),
    });
    let caller_core = off_core::current();
    {
        let shared = Arc::clone(&shared);
        rayon::spawn(move || {
            // off the caller's core first (restored after the step), then
            // the claim: a claim is never followed by a wait for a core
            let away = off_core::OffCore::leave(caller_core);
            let b = {
                let mut g = shared.slot.lock().unwrap_or_else(|p| p.into_inner());
                match std::mem::replace(&mut *g, Slot::Running) {
                    Slot::Offered(b) => b,
                    other => {
                        // claimed by the caller first: nothing to do
                        *g = other;
                        return;
                    }
                }
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(b));
            // the affinity restored before the caller can return
            drop(away);
            *shared.slot.lock().unwrap_or_else(|p| p.into_inner()) = Slot::Done(r);
            shared.done.notify_all();
        });
    }
    if caller_core >= 0 {
        // a pool thread queued on this core runs now, long enough to move away
        std::thread::yield_now();
    }
    let ra = std::panic::catch_unwind(std::panic::AssertUnwindSafe(a));
    let mut g = shared.slot.lock().unwrap_or_else(|p| p.into_inner());
    let ra = match ra {
        Ok(ra) => ra,
        Err(panic) => {
            // an unclaimed `b` is dropped; a running one finishes on its own (it owns its data)
            if matches!(*g, Slot::Offered(_)) {
                *g = Slot::Withdrawn;
            }
            drop(g);
            std::panic::resume_unwind(panic)
        }
    };
    match std::mem::replace(&mut *g, Slot::Withdrawn) {
        Slot::Offered(b) => {
            drop(g);
            (ra, b())
        }
        claimed => {
            // a pool thread runs `b`: wait for its result
            *g = claimed;
            g = shared
                .done
                .wait_while(g, |s| !matches!(s, Slot::Done(_)))
                .unwrap_or_else(|p| p.into_inner());
            match std::mem::replace(&mut *g, Slot::Withdrawn) {
                Slot::Done(Ok(rb)) => (ra, rb),
                Slot::Done(Err(panic)) => {
                    drop(g);
                    std::panic::resume_unwind(panic)
                }
                _ => unreachable!("the wait ends on a result"),
            }
        }
    }
}

/// The pool thread's move off the caller's core (Linux; elsewhere nothing).
mod off_core {
    /// The calling thread's core, or −1 when unknown.
    pub(super) fn current() -> i32 {
        #[cfg(target_os = "linux")]
        // SAFETY: a plain query without arguments.
        return unsafe { libc::sched_getcpu() };
        #[cfg(not(target_os = "linux"))]
        return -1;
    }

    /// The affinity this thread had before [`OffCore::leave`] moved it, restored on drop.
    pub(super) struct OffCore {
        #[cfg(target_os = "linux")]
        saved: Option<libc::cpu_set_t>,
    }

    impl OffCore {
        /// Move the calling thread off core `core` when it runs there and may run elsewhere:
        /// its allowed set without `core`, kept until the value drops. Nothing otherwise (another
        /// core already, `core` unknown, a one-core set, or a failed call).
        pub(super) fn leave(core: i32) -> OffCore {
            #[cfg(target_os = "linux")]
            {
                let size = std::mem::size_of::<libc::cpu_set_t>();
                let none = OffCore { saved: None };
                if core < 0 || core as usize >= libc::CPU_SETSIZE as usize || current() != core {
                    return none;
                }
                // SAFETY: `cpu_set_t` is plain bits (all-zero is the empty set); both calls get
                // this thread (pid 0) and a set of exactly `size` bytes, and `core` is below
                // `CPU_SETSIZE`, the bound of `CPU_CLR`'s index.
                unsafe {
                    let mut saved: libc::cpu_set_t = std::mem::zeroed();
                    if libc::sched_getaffinity(0, size, &mut saved) != 0 {
                        return none;
                    }
                    let mut away = saved;
                    libc::CPU_CLR(core as usize, &mut away);
                    if libc::CPU_COUNT(&away) == 0 || libc::sched_setaffinity(0, size, &away) != 0 {
                        return none;
                    }
                    OffCore { saved: Some(saved) }
                }
            }
            #[cfg(not(target_os = "linux"))]
            {
                let _ = core;
                OffCore {}
            }
        }
    }

    impl Drop for OffCore {
        fn drop(&mut self) {
            #[cfg(target_os = "linux")]
            if let Some(saved) = &self.saved {
                // SAFETY: restores the set read in `leave` for this thread (pid 0), a whole set.
                // It fails only if none of those cores is allowed any more (a cgroup changed them
                // meanwhile); the thread then keeps the narrower set the kernel left it, and a
                // later `leave` starts from that set.
                unsafe {
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), saved)
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn beside_returns_both_values_in_order() {
        for k in 0..200u64 {
            let (a, b) = beside(move || k * 2, move || format!("b{k}"));
            assert_eq!(a, k * 2);
            assert_eq!(b, format!("b{k}"));
        }
    }

    #[test]
    fn beside_runs_each_step_exactly_once() {
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        for spin in [0u64, 1, 50, 500] {
            RUNS.store(0, Ordering::SeqCst);
            for _ in 0..50 {
                let busy = move || {
                    let t = std::time::Instant::now();
                    while t.elapsed() < std::time::Duration::from_micros(spin) {}
                };
                beside(busy, move || {
                    busy();
                    RUNS.fetch_add(1, Ordering::SeqCst);
                });
            }
            assert_eq!(RUNS.load(Ordering::SeqCst), 50, "spin {spin} µs");
        }
    }

    #[test]
    fn beside_resumes_the_offered_steps_panic_on_the_caller() {
        for _ in 0..20 {
            let r = std::panic::catch_unwind(|| beside(|| 1, || -> u32 { panic!("offered step") }));
            let msg = r.expect_err("the panic reaches the caller");
            assert_eq!(msg.downcast_ref::<&str>(), Some(&"offered step"));
        }
    }

    #[test]
    fn beside_resumes_the_callers_panic_and_drops_an_unclaimed_step() {
        for _ in 0..20 {
            let r = std::panic::catch_unwind(|| beside(|| -> u32 { panic!("own step") }, || 2));
            let msg = r.expect_err("the caller's panic is resumed");
            assert_eq!(msg.downcast_ref::<&str>(), Some(&"own step"));
        }
    }

    /// The pool threads' allowed cores are the same after many offered steps as before (the
    /// move off the caller's core is undone after each step).
    #[cfg(target_os = "linux")]
    #[test]
    fn beside_restores_the_pool_threads_affinity() {
        let allowed = || {
            // SAFETY: as in `OffCore::leave`.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                assert_eq!(
                    libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
                    0
                );
                (0..libc::CPU_SETSIZE as usize)
                    .filter(|&c| libc::CPU_ISSET(c, &set))
                    .collect::<Vec<usize>>()
            }
        };
        let before: Vec<Vec<usize>> = rayon::broadcast(|_| allowed());
        for _ in 0..50 {
            beside(
                || std::thread::sleep(std::time::Duration::from_micros(200)),
                move || std::thread::sleep(std::time::Duration::from_micros(200)),
            );
        }
        // each step restored its thread's set before its call returned; other tests' concurrent
        // steps narrow a set for a moment only, while a set left narrowed would stay so
        let restored = (0..200).any(|_| {
            let now: Vec<Vec<usize>> = rayon::broadcast(|_| allowed());
            now == before || {
                std::thread::sleep(std::time::Duration::from_millis(10));
                false
            }
        });
        assert!(restored, "a pool thread kept a narrowed set of cores");
    }

    #[test]
    fn beside_inside_the_pool_is_a_join() {
        let v: Vec<(usize, usize)> = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a pool")
            .install(|| {
                use rayon::prelude::*;
                (0..64usize)
                    .into_par_iter()
                    .map(|k| beside(move || k, move || k + 1))
                    .collect()
            });
        assert!(v
            .iter()
            .enumerate()
            .all(|(k, &(a, b))| a == k && b == k + 1));
    }
}
