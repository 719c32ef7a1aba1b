//! Splitting a kernel's work over threads with `std::thread::scope`: the
//! output is cut into contiguous chunks, one per thread, so no two threads
//! ever write the same element. Small work stays on the calling thread,
//! where a thread start would cost more than it saves. Knows no arithmetic.

use std::ops::Range;

/// Below this many elements (or multiply-adds) per thread, splitting costs
/// more than it gains.
pub(crate) const MIN_PER_THREAD: usize = 1 << 15;

/// How many threads `len` units of work deserve, at most `threads`.
pub(crate) fn split_count(threads: usize, len: usize, min_per_thread: usize) -> usize {
    threads.min(len / min_per_thread.max(1)).max(1)
}

/// Runs `f(start, chunk)` over `out` cut into at most `threads` chunks whose
/// lengths are multiples of `align` (but the last). The last chunk runs on
/// the calling thread.
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
    std::thread::scope(|scope| {
        let f = &f;
        let mut rest = out;
        let mut start = 0;
        while rest.len() > chunk {
            let (head, tail) = rest.split_at_mut(chunk);
            scope.spawn(move || f(start, head));
            start += chunk;
            rest = tail;
        }
        f(start, rest);
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
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = (1..n)
            .map(|t| {
                let range = (t * chunk).min(len)..((t + 1) * chunk).min(len);
                scope.spawn(move || f(range))
            })
            .collect();
        let mut results = vec![f(0..chunk.min(len))];
        for h in handles {
            // A panicking kernel thread is a bug in this crate; re-raise it
            // on the caller's thread rather than hide it.
            results.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        results
    })
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
            assert_eq!(sums.iter().sum::<usize>(), 100_003);
        }
    }
}
