//! The global allocator of the `shapescript` command and of the checker's
//! benchmarks: mimalloc, entered through its plain `mi_malloc` path whenever
//! that path's alignment is enough.
//!
//! Why: parsing and checking allocate many small nodes, and mimalloc makes
//! them much cheaper than the system allocator. `mimalloc::MiMalloc` always
//! enters through `mi_malloc_aligned`, which was a quarter of the allocation
//! time of the front end (callgrind). One type here so the command runs with
//! exactly what the benchmarks measure.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// mimalloc's `mi_option_purge_delay` (`libmimalloc-sys` names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long freed memory stays with the process before mimalloc gives it
/// back to the system, in milliseconds (mimalloc's default is 10).
const KEEP_FREED_MS: std::ffi::c_long = 1000;

/// Keeps freed memory for a second before giving it back to the system.
///
/// Why: a check frees what the last one built, and the next one (the
/// language server's next edit, a benchmark's next run) builds as much
/// again; given back after mimalloc's default 10 ms, every page of it is
/// faulted in afresh, a fifth of a warm check's time (BENCHMARKS.md). Call
/// it first thing in `main`.
pub fn keep_freed_memory() {
    // SAFETY: setting an option stores a number in mimalloc's option table;
    // mimalloc reads it when it next decides whether to purge.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, KEEP_FREED_MS) }
}

/// `mi_malloc`'s blocks are aligned to 16 bytes, or to their size when smaller.
const MI_ALIGN: usize = 16;

/// mimalloc as a `#[global_allocator]`.
pub struct Mimalloc;

/// Whether `mi_malloc`'s own alignment covers `layout`'s for a block of `size`.
#[inline]
fn plain_path(align: usize, size: usize) -> bool {
    align <= MI_ALIGN && align <= size
}

/// A block for `layout` from mimalloc's `plain` entry (`size`) when its
/// alignment is enough, else from its `aligned` one (`size`, `align`).
/// Inlined, the two entries are direct calls.
///
/// # Safety
/// As `GlobalAlloc::alloc`: `layout` has a non-zero size.
#[inline(always)]
unsafe fn new_block(
    layout: Layout,
    plain: unsafe extern "C" fn(usize) -> *mut c_void,
    aligned: unsafe extern "C" fn(usize, usize) -> *mut c_void,
) -> *mut u8 {
    if plain_path(layout.align(), layout.size()) {
        plain(layout.size()).cast()
    } else {
        aligned(layout.size(), layout.align()).cast()
    }
}

// SAFETY: every block comes from mimalloc and goes back to it; the plain
// path is only taken when its alignment guarantee covers the layout's.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        new_block(
            layout,
            libmimalloc_sys::mi_malloc,
            libmimalloc_sys::mi_malloc_aligned,
        )
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        new_block(
            layout,
            libmimalloc_sys::mi_zalloc,
            libmimalloc_sys::mi_zalloc_aligned,
        )
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        libmimalloc_sys::mi_free(ptr.cast());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if plain_path(layout.align(), new_size) {
            libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast()
        } else {
            libmimalloc_sys::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
        }
    }
}

/// `Mimalloc` that also counts the bytes allocated and not yet freed, for a
/// benchmark's "what each phase keeps". The count is a plain load and store,
/// not a locked add: benchmarks allocate on one thread, and a locked add on
/// every allocation cost the timed runs a few percent.
pub struct CountingMimalloc;

static LIVE: AtomicUsize = AtomicUsize::new(0);

impl CountingMimalloc {
    /// Bytes allocated through it and not yet freed.
    pub fn live_bytes() -> usize {
        LIVE.load(Relaxed)
    }
}

#[inline]
fn count(added: usize, freed: usize) {
    LIVE.store(
        LIVE.load(Relaxed).wrapping_add(added).wrapping_sub(freed),
        Relaxed,
    );
}

// SAFETY: delegates every call to `Mimalloc` unchanged.
unsafe impl GlobalAlloc for CountingMimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size(), 0);
        Mimalloc.alloc(layout)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size(), 0);
        Mimalloc.alloc_zeroed(layout)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(0, layout.size());
        Mimalloc.dealloc(ptr, layout)
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size, layout.size());
        Mimalloc.realloc(ptr, layout, new_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_keep_their_alignment_on_both_paths() {
        for (size, align) in [
            (1, 1),
            (8, 8),
            (24, 8),
            (16, 16),
            (64, 32),
            (4096, 4096),
            (3, 2),
        ] {
            let layout = Layout::from_size_align(size, align).unwrap();
            // SAFETY: a valid non-zero layout, freed with the same allocator.
            unsafe {
                let block = Mimalloc.alloc(layout);
                assert!(!block.is_null());
                assert_eq!(block as usize % align, 0, "size {size} align {align}");
                let zeroed = Mimalloc.alloc_zeroed(layout);
                assert_eq!(zeroed as usize % align, 0, "zeroed {size} align {align}");
                assert!(std::slice::from_raw_parts(zeroed, size)
                    .iter()
                    .all(|&b| b == 0));
                Mimalloc.dealloc(zeroed, layout);
                let grown = Mimalloc.realloc(block, layout, size * 3);
                assert_eq!(grown as usize % align, 0, "grown {size} align {align}");
                Mimalloc.dealloc(grown, Layout::from_size_align(size * 3, align).unwrap());
            }
        }
    }

    #[test]
    fn counting_sees_what_is_kept() {
        let layout = Layout::from_size_align(1000, 8).unwrap();
        let before = CountingMimalloc::live_bytes();
        // SAFETY: a valid layout, freed with the same allocator.
        unsafe {
            let block = CountingMimalloc.alloc(layout);
            assert_eq!(CountingMimalloc::live_bytes(), before + 1000);
            CountingMimalloc.dealloc(block, layout);
        }
        assert_eq!(CountingMimalloc::live_bytes(), before);
    }
}
