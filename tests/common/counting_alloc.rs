//! A counting global allocator: the system allocator, keeping the bytes in use and their
//! high-water mark, for peak-heap measurements (`tests/kernel_memory.rs`,
//! `examples/peak_memory.rs`). LAPACK's work arrays are allocated on the Rust side, so they are
//! counted; OpenBLAS's own fixed per-thread buffers are not.
//!
//! Not part of `common` (which every test binary compiles): a binary that measures includes this
//! file with `#[path]` and installs the allocator itself —
//! `#[global_allocator] static GLOBAL: Counting = Counting;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting bytes in use and their high-water mark.
pub struct Counting;
static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = IN_USE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(now, Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        IN_USE.fetch_sub(l.size(), Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() {
            let now = IN_USE.fetch_add(new - l.size(), Relaxed) + new - l.size();
            PEAK.fetch_max(now, Relaxed);
        } else {
            IN_USE.fetch_sub(l.size() - new, Relaxed);
        }
        System.realloc(p, l, new)
    }
}

/// The peak heap while `f` runs, in bytes above the heap in use before it (what `f` frees before
/// returning still counts at its peak). Only meaningful with [`Counting`] installed as the global
/// allocator, and with no other thread allocating meanwhile.
pub fn peak_bytes<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = IN_USE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed) - base)
}
