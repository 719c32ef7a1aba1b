//! Splitting a kernel's work over threads: the output is cut into
//! contiguous chunks, one per thread, so no two threads ever write the same
//! element. The threads are a persistent `rayon` pool per thread count,
//! started on first use and kept for the process, so a kernel pays a
//! wake-up, not a thread start (a training step runs hundreds of kernels).
//! A program's run executes on one of the pool's workers (`install`), so
//! each kernel forks its chunks from inside the pool and joins them there:
//! the other workers, still spinning from the last kernel, take them at
//! once, and the caller's thread is woken once per run rather than once per
//! kernel. Idle workers sleep after a short spin, so a busy core is not
//! starved. Small work stays on the calling thread. Knows no arithmetic.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Mutex, OnceLock};

/// The pool of `threads` workers, made on first use and kept (a program
/// uses one or two thread counts, so the leak is bounded).
fn pool(threads: usize) -> &'static rayon::ThreadPool {
    static POOLS: OnceLock<Mutex<HashMap<usize, &'static rayon::ThreadPool>>> = OnceLock::new();
    let pools = POOLS.get_or_init(Default::default);
    // A poisoned lock only means another thread panicked while inserting;
    // the map itself is still whole.
    let mut pools = pools
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    pools.entry(threads).or_insert_with(|| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("sexpgpu-cpu-{i}"))
            .build()
            // Only fails when the OS refuses threads: nothing sensible to
            // do but report it.
            .unwrap_or_else(|error| panic!("cannot start {threads} kernel threads: {error}"));
        Box::leak(Box::new(pool))
    })
}

/// Runs `f` on a worker of the `threads` pool (directly when `threads` is
/// 1 or the caller already is one), so the kernels it launches fork and join
/// inside the pool (see the module doc).
pub(crate) fn install<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    if threads <= 1 || rayon::current_thread_index().is_some() {
        return f();
    }
    pool(threads).install(f)
}

/// Runs `body` in a scope of a pool with at least `n` workers: the pool the
/// caller is a worker of (`install`), else the `n` pool.
fn scope<'s>(n: usize, body: impl FnOnce(&rayon::Scope<'s>) + Send) {
    if rayon::current_thread_index().is_some() && rayon::current_num_threads() >= n {
        rayon::scope(body)
    } else {
        pool(n).scope(body)
    }
}

/// Below this many elements (or multiply-adds) per thread, splitting costs
/// more than it gains.
pub(crate) const MIN_PER_THREAD: usize = 1 << 15;

/// How many threads `len` units of work deserve, at most `threads`.
pub(crate) fn split_count(threads: usize, len: usize, min_per_thread: usize) -> usize {
    threads.min(len / min_per_thread.max(1)).max(1)
}

/// Runs `f(start, chunk)` over `out` cut into at most `threads` chunks whose
/// lengths are multiples of `align` (but the last), on the pool.
pub(crate) fn for_chunks<T: Send>(
    threads: usize,
    out: &mut [T],
    align: usize,
    min_per_thread: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    let len = out.len();
    let n = split_count(threads, len, min_per_thread);
    if n <= 1 {
        f(0, out);
        return;
    }
    let align = align.max(1);
    let chunk = len.div_ceil(n).div_ceil(align) * align;
    scope(n, |scope| {
        let f = &f;
        let mut rest = out;
        let mut start = 0;
        while rest.len() > chunk {
            let (head, tail) = rest.split_at_mut(chunk);
            scope.spawn(move |_| f(start, head));
            start += chunk;
            rest = tail;
        }
        f(start, rest);
    });
}

/// Runs `f` on at most `threads` ranges covering `0..len`, each starting
/// at a multiple of `align`, on the pool (for work cut by columns, which
/// `for_chunks`' contiguous slices cannot express).
pub(crate) fn for_ranges(
    threads: usize,
    len: usize,
    align: usize,
    f: impl Fn(Range<usize>) + Sync,
) {
    let align = align.max(1);
    let chunk = len.div_ceil(threads.max(1)).div_ceil(align) * align;
    let n = len.div_ceil(chunk.max(1));
    if n <= 1 {
        f(0..len);
        return;
    }
    scope(n, |scope| {
        let f = &f;
        for t in 1..n {
            let range = t * chunk..((t + 1) * chunk).min(len);
            scope.spawn(move |_| f(range));
        }
        f(0..chunk.min(len));
    });
}

/// Runs `f` on at most `threads` ranges covering `0..len` and returns their
/// results in order (for partial reductions).
pub(crate) fn map_ranges<R: Send>(
    threads: usize,
    len: usize,
    min_per_thread: usize,
    f: impl Fn(Range<usize>) -> R + Sync,
) -> Vec<R> {
    let n = split_count(threads, len, min_per_thread);
    if n <= 1 {
        return vec![f(0..len)];
    }
    let chunk = len.div_ceil(n);
    let mut results: Vec<Option<R>> = (0..n).map(|_| None).collect();
    // A panicking kernel is a bug in this crate; the pool's scope re-raises
    // it on the caller's thread rather than hiding it.
    scope(n, |scope| {
        let f = &f;
        for (t, slot) in results.iter_mut().enumerate() {
            let range = (t * chunk).min(len)..((t + 1) * chunk).min(len);
            scope.spawn(move |_| *slot = Some(f(range)));
        }
    });
    results.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_everything_once() {
        for threads in [1, 2, 3, 8] {
            let mut out = vec![0usize; 100_003];
            for_chunks(threads, &mut out, 512, 1000, |start, chunk| {
                for (i, x) in chunk.iter_mut().enumerate() {
                    *x += start + i;
                }
            });
            assert!(out.iter().enumerate().all(|(i, &x)| x == i));
            let sums = map_ranges(threads, 100_003, 1000, |r| r.len());
            let covered = std::sync::atomic::AtomicUsize::new(0);
            for_ranges(threads, 100_003, 64, |r| {
                assert!(r.start % 64 == 0 && !r.is_empty());
                covered.fetch_add(r.len(), std::sync::atomic::Ordering::Relaxed);
            });
            assert_eq!(covered.into_inner(), 100_003);
            assert_eq!(sums.iter().sum::<usize>(), 100_003);
        }
    }
}
