//! The extension's global allocator: mimalloc below [`SYSTEM_FROM`] bytes, the system allocator
//! from it (docs/PERFORMANCE.md, "Allocator of the Python extension").
//!
//! Under glibc alone, the matrices of a mid-size call (256 KB at d = 128, 1 MB at 256) are handed
//! back to the kernel when the heap top is trimmed and faulted in again on the next call; mimalloc
//! keeps such blocks for reuse. Large blocks stay with the system allocator so that a big call
//! (a stack of millions of pairs, d ≥ 512) returns its memory to the kernel when it is freed, as
//! before, instead of staying resident until mimalloc's delayed purge, and so that
//! `convert::check_alloc`'s reservation probe (≥ 64 MiB) asks the system allocator, whose
//! reservation fails where the kernel refuses the mapping.

use std::alloc::{GlobalAlloc, Layout, System};

/// Allocations of at least this many bytes go to the system allocator (4 MiB: a `d × d` complex
/// matrix from d = 512, where the allocator made no measurable difference).
pub const SYSTEM_FROM: usize = 4 << 20;

/// mimalloc for blocks below [`SYSTEM_FROM`], [`System`] from it. Which allocator owns a block
/// follows from its size alone, and `GlobalAlloc` hands `dealloc` and `realloc` the size the block
/// was allocated with, so every block is freed by the allocator that made it; a `realloc` across
/// the boundary moves the block.
pub struct SplitAllocator;

fn small(size: usize) -> bool {
    size < SYSTEM_FROM
}

// SAFETY: every method forwards to mimalloc or `System` (both `GlobalAlloc`s) under the caller's
// guarantees, choosing by the block's size, which is the same at allocation and at release; the
// cross-boundary `realloc` allocates the new block with a layout of the same alignment (valid:
// `realloc`'s caller guarantees `new_size` rounded up to `layout.align()` does not overflow),
// copies the smaller of the two sizes and frees the old block with its own layout.
unsafe impl GlobalAlloc for SplitAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if small(layout.size()) {
            mimalloc::MiMalloc.alloc(layout)
        } else {
            System.alloc(layout)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if small(layout.size()) {
            mimalloc::MiMalloc.alloc_zeroed(layout)
        } else {
            System.alloc_zeroed(layout)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if small(layout.size()) {
            mimalloc::MiMalloc.dealloc(ptr, layout)
        } else {
            System.dealloc(ptr, layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match (small(layout.size()), small(new_size)) {
            (true, true) => mimalloc::MiMalloc.realloc(ptr, layout, new_size),
            (false, false) => System.realloc(ptr, layout, new_size),
            _ => {
                let new = Layout::from_size_align_unchecked(new_size, layout.align());
                let moved = self.alloc(new);
                if !moved.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, moved, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                moved
            }
        }
    }
}
