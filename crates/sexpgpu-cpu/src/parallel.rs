//! Splitting a kernel's work over threads: the output is cut into
//! contiguous chunks, one per thread, so no two threads ever write the same
//! element. The threads are a persistent `rayon` pool per thread count,
//! started on first use and kept for the process, so a kernel pays no
//! thread start (a training step runs hundreds of kernels). A program's run
//! executes on one of the pool's workers (`install`), and the pool's other
//! workers stay with the run as its crew (`Crew`): each kernel posts its
//! parts, the crew, polling, takes them at once, and nobody sleeps between
//! kernels, so a kernel pays no wake-up either (a futex wake-up cost tens of
//! microseconds a kernel under this hypervisor, a seventh of the
//! char-transformer's time). Idle crew members spin briefly, then yield
//! their core at each poll, then sleep between polls, so a busy core is not
//! starved. Small work stays on the calling thread. Knows no arithmetic.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

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
/// inside the pool (see the module doc). While `f` runs, the pool's other
/// workers stay with it as its crew (`Crew`), so a kernel's parts reach a
/// thread that is already awake.
pub(crate) fn install<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    if threads <= 1 || rayon::current_thread_index().is_some() {
        return f();
    }
    pool(threads).install(|| {
        let crew = Crew::default();
        rayon::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|_| crew.help());
            }
            // Dismisses the crew when `f` returns or panics.
            let _dismiss = Dismiss(&crew);
            let _current = CurrentCrew::set(&crew);
            f()
        })
    })
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

/// Runs `part(t)` for every `t < n`, in parallel, returning when all have:
/// on the crew of the run this thread executes, else in a `rayon` scope.
fn fork(n: usize, part: impl Fn(usize) + Sync) {
    // A fork inside a part (none today) runs on the part's own thread: the
    // crew is busy with the outer fork.
    if n <= 1 || IN_PART.with(|p| p.get()) {
        (0..n).for_each(&part);
        return;
    }
    if let Some(crew) = CurrentCrew::take() {
        crew.fork(n, &part);
        return;
    }
    scope(n, |scope| {
        let part = &part;
        for t in 1..n {
            scope.spawn(move |_| part(t));
        }
        part(0);
    });
}

thread_local! {
    /// The crew of the run this thread executes (`install`), if any.
    static CREW: std::cell::Cell<Option<&'static Crew>> = const { std::cell::Cell::new(None) };
    /// Whether this thread is running a part of a crew's fork.
    static IN_PART: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Makes a crew this thread's for a scope, and puts back what was there.
struct CurrentCrew(Option<&'static Crew>);

impl CurrentCrew {
    fn set(crew: &Crew) -> CurrentCrew {
        // SAFETY (of the lifetime): the guard restores the previous value
        // before `crew` goes out of scope in `install`, and `take` hands
        // the crew only to `fork`, which is done with it before returning.
        let crew: &'static Crew = unsafe { std::mem::transmute::<&Crew, &'static Crew>(crew) };
        CurrentCrew(CREW.with(|c| c.replace(Some(crew))))
    }

    /// This thread's crew, taken away while a fork runs and given back by
    /// the returned guard.
    fn take() -> Option<Restore> {
        let crew = CREW.with(|c| c.take())?;
        Some(Restore(crew))
    }
}

impl Drop for CurrentCrew {
    fn drop(&mut self) {
        CREW.with(|c| c.set(self.0));
    }
}

/// Gives a taken crew back to this thread when dropped.
struct Restore(&'static Crew);

impl std::ops::Deref for Restore {
    type Target = Crew;
    fn deref(&self) -> &Crew {
        self.0
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        CREW.with(|c| c.set(Some(self.0)));
    }
}

/// Tells the crew to leave when the run ends.
struct Dismiss<'c>(&'c Crew);

impl Drop for Dismiss<'_> {
    fn drop(&mut self) {
        self.0.dismissed.store(true, Ordering::Release);
    }
}

/// The workers that stay with a run (`install`): each polls for the parts
/// of the kernel being forked instead of going to sleep between kernels,
/// since waking a sleeping thread costs tens of microseconds (a system call
/// and an interrupt, more under a hypervisor) and a training step forks
/// hundreds of kernels. An idle worker spins for `SPIN`, then yields its
/// core to anything else runnable at each poll, and after `DOZE` sleeps
/// between polls, so a run's single-threaded stretches and a busy machine
/// are not starved.
#[derive(Default)]
struct Crew {
    posted: Mutex<Option<Posted>>,
    /// Counts the forks posted, so the crew notices a new one without the
    /// lock.
    generation: AtomicUsize,
    dismissed: AtomicBool,
    /// The first panic of a part, raised again by `fork`.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

/// The kernel being forked: its parts' function (its lifetime erased: see
/// `Crew::fork`), how many parts there are, the next unclaimed one, and
/// how many have not finished.
struct Posted {
    part: *const (dyn Fn(usize) + Sync),
    parts: usize,
    next: usize,
    pending: usize,
}

// SAFETY: `part` points at a `Sync` function, called from any thread only
// while `Crew::fork` keeps it alive (see there).
unsafe impl Send for Posted {}

/// How long an idle crew member spins before yielding its core at each
/// poll, and how long before it sleeps between polls.
const SPIN: Duration = Duration::from_micros(50);
const DOZE: Duration = Duration::from_millis(2);

/// `mutex`'s contents; a panic while it was held (only ever in this
/// module's own bookkeeping, never in a part) leaves them usable.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Crew {
    /// Runs `part(t)` for every `t < n` on this thread and the crew.
    fn fork(&self, n: usize, part: &(dyn Fn(usize) + Sync)) {
        // SAFETY (of the erased lifetime): parts are claimed under the lock
        // from `posted`, and this function returns only once every part is
        // claimed and finished, after which `posted` is cleared; so no
        // thread calls `part` after it returns.
        let part: *const (dyn Fn(usize) + Sync) = unsafe {
            std::mem::transmute::<&(dyn Fn(usize) + Sync), &'static (dyn Fn(usize) + Sync)>(part)
        };
        *lock(&self.posted) = Some(Posted {
            part,
            parts: n,
            next: 0,
            pending: n,
        });
        self.generation.fetch_add(1, Ordering::Release);
        self.work();
        loop {
            let mut posted = lock(&self.posted);
            if posted.as_ref().is_none_or(|p| p.pending == 0) {
                *posted = None;
                break;
            }
            drop(posted);
            std::hint::spin_loop();
        }
        if let Some(payload) = lock(&self.panic).take() {
            std::panic::resume_unwind(payload);
        }
    }

    /// Claims and runs parts of the posted kernel until none is left.
    fn work(&self) {
        loop {
            let (part, t) = match lock(&self.posted).as_mut() {
                Some(p) if p.next < p.parts => {
                    p.next += 1;
                    (p.part, p.next - 1)
                }
                _ => return,
            };
            IN_PART.with(|p| p.set(true));
            // SAFETY: a claimed part's function is alive until its
            // `pending` count drops (`fork`).
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { (*part)(t) }));
            IN_PART.with(|p| p.set(false));
            if let Err(payload) = result {
                lock(&self.panic).get_or_insert(payload);
            }
            if let Some(p) = lock(&self.posted).as_mut() {
                p.pending -= 1;
            }
        }
    }

    /// A crew member's loop: takes parts of each fork until dismissed.
    fn help(&self) {
        let mut seen = 0;
        let mut idle = Instant::now();
        while !self.dismissed.load(Ordering::Acquire) {
            let generation = self.generation.load(Ordering::Acquire);
            if generation != seen {
                seen = generation;
                self.work();
                idle = Instant::now();
                continue;
            }
            let waited = idle.elapsed();
            if waited < SPIN {
                std::hint::spin_loop();
            } else if waited < DOZE {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(100));
            }
        }
    }
}

/// Below this many elements (or multiply-adds) per thread, splitting costs
/// more than it gains.
pub(crate) const MIN_PER_THREAD: usize = 1 << 15;

/// How many threads `len` units of work deserve, at most `threads`.
pub(crate) fn split_count(threads: usize, len: usize, min_per_thread: usize) -> usize {
    threads.min(len / min_per_thread.max(1)).max(1)
}

/// A value one part takes, or one part leaves.
type Slot<T> = Mutex<Option<T>>;

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
    // Each part takes its own chunk (and where it starts) out of its slot.
    let chunks: Vec<Slot<(usize, &mut [T])>> = out
        .chunks_mut(chunk)
        .enumerate()
        .map(|(t, c)| Mutex::new(Some((t * chunk, c))))
        .collect();
    fork(chunks.len(), |t| {
        if let Some((start, c)) = lock(&chunks[t]).take() {
            f(start, c);
        }
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
    fork(n, |t| f(t * chunk..((t + 1) * chunk).min(len)));
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
    let results: Vec<Slot<R>> = (0..n).map(|_| Mutex::new(None)).collect();
    // A panicking kernel is a bug in this crate; the fork re-raises it on
    // the caller's thread rather than hiding it.
    fork(n, |t| {
        let range = (t * chunk).min(len)..((t + 1) * chunk).min(len);
        *lock(&results[t]) = Some(f(range));
    });
    results
        .into_iter()
        .filter_map(|slot| slot.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect()
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

    #[test]
    fn a_runs_crew_takes_parts_and_passes_panics_on() {
        for threads in [2, 3] {
            install(threads, || {
                assert!(CREW.with(|c| c.get()).is_some(), "the run has a crew");
                let helpers = Mutex::new(std::collections::HashSet::new());
                // Until a helper has taken a part: on a loaded machine the
                // run's own thread may take every part for a while.
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
                let mut rounds = 0;
                while rounds < 200
                    || (lock(&helpers).len() < 2 && std::time::Instant::now() < deadline)
                {
                    rounds += 1;
                    let mut out = vec![0usize; 100_003];
                    for_chunks(threads, &mut out, 512, 1000, |start, chunk| {
                        lock(&helpers).insert(std::thread::current().id());
                        // A fork inside a part runs on the part's thread.
                        let n = chunk.len();
                        for_ranges(threads, n, 1, |r| assert!(r.end <= n));
                        for (i, x) in chunk.iter_mut().enumerate() {
                            *x = start + i;
                        }
                    });
                    assert!(out.iter().enumerate().all(|(i, &x)| x == i));
                    let sums = map_ranges(threads, 100_003, 1000, |r| r.len());
                    assert_eq!(sums.iter().sum::<usize>(), 100_003);
                }
                // Parts ran on more than the run's own thread.
                assert!(lock(&helpers).len() > 1);
                let caught = std::panic::catch_unwind(|| {
                    for_ranges(threads, 1000, 1, |r| assert!(r.start == 0, "a part failed"));
                });
                assert!(caught.is_err(), "a part's panic reaches the fork");
                // The crew still works after a panic.
                let mut out = vec![0u8; 100_000];
                for_chunks(threads, &mut out, 1, 1000, |_, chunk| chunk.fill(1));
                assert!(out.iter().all(|&x| x == 1));
            });
            assert!(
                CREW.with(|c| c.get()).is_none(),
                "the crew leaves with the run"
            );
        }
    }
}
