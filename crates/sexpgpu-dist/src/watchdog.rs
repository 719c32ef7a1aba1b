//! The collective watchdog: a thread that waits while a collective is in
//! flight and, when one takes longer than the limit (a rank died, stopped,
//! or runs a different program and never joins), prints what this rank
//! waited for and ends the job, so no failure becomes a hang.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// What ends the job when the limit passes; given the message to print.
pub type Expire = Box<dyn Fn(&str) + Send>;

#[derive(Default)]
struct State {
    /// The collective in flight and when it began; its generation.
    armed: Option<(String, Instant, u64)>,
    generation: u64,
    stop: bool,
}

pub struct Watchdog {
    shared: Arc<(Mutex<State>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Disarms the watchdog when the collective returns.
pub struct Armed<'a> {
    watchdog: &'a Watchdog,
    generation: u64,
}

impl Drop for Armed<'_> {
    fn drop(&mut self) {
        let (lock, wake) = &*self.watchdog.shared;
        let mut state = lock.lock().unwrap_or_else(|p| p.into_inner());
        if state.armed.as_ref().is_some_and(|a| a.2 == self.generation) {
            state.armed = None;
        }
        wake.notify_all();
    }
}

/// The line a rank prints when a collective passes its limit.
pub fn expired_message(rank: usize, what: &str, limit: Duration) -> String {
    format!(
        "error: rank {rank}: {what} did not finish within {} s: another rank has died, stopped, \
         or runs a different program; stopping every rank\n  = help: a slow step can raise the limit \
         with `--collective-timeout SECS`",
        limit.as_secs_f64()
    )
}

impl Watchdog {
    /// A watchdog for `rank` that calls `expire` when a collective runs
    /// longer than `limit`.
    pub fn new(rank: usize, limit: Duration, expire: Expire) -> Watchdog {
        let shared = Arc::new((Mutex::new(State::default()), Condvar::new()));
        let theirs = shared.clone();
        let thread = std::thread::Builder::new()
            .name("collective-watchdog".into())
            .spawn(move || watch(&theirs, rank, limit, &expire))
            .ok();
        Watchdog { shared, thread }
    }

    /// Marks `what` in flight until the guard drops.
    pub fn arm(&self, what: &str) -> Armed<'_> {
        let (lock, wake) = &*self.shared;
        let mut state = lock.lock().unwrap_or_else(|p| p.into_inner());
        state.generation += 1;
        let generation = state.generation;
        state.armed = Some((what.to_string(), Instant::now(), generation));
        wake.notify_all();
        Armed {
            watchdog: self,
            generation,
        }
    }

    /// Ends the thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        {
            let (lock, wake) = &*self.shared;
            lock.lock().unwrap_or_else(|p| p.into_inner()).stop = true;
            wake.notify_all();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn watch(shared: &(Mutex<State>, Condvar), rank: usize, limit: Duration, expire: &Expire) {
    let (lock, wake) = shared;
    let mut state = lock.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        if state.stop {
            return;
        }
        let Some((what, began, _)) = state.armed.clone() else {
            state = wake.wait(state).unwrap_or_else(|p| p.into_inner());
            continue;
        };
        let waited = began.elapsed();
        if waited >= limit {
            drop(state);
            expire(&expired_message(rank, &what, limit));
            return;
        }
        state = wake
            .wait_timeout(state, limit - waited)
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// Rank `rank`'s watchdog with `limit`, and the messages it fires.
    fn recording(rank: usize, limit: Duration) -> (Watchdog, mpsc::Receiver<String>) {
        let (tx, rx) = mpsc::channel();
        let dog = Watchdog::new(
            rank,
            limit,
            Box::new(move |m| {
                let _ = tx.send(m.to_string());
            }),
        );
        (dog, rx)
    }

    #[test]
    fn a_collective_past_its_limit_fires_once_with_its_name() {
        let (dog, rx) = recording(1, Duration::from_millis(50));
        let armed = dog.arm("the gradient all-reduce of step 3");
        let message = rx.recv_timeout(Duration::from_secs(10)).expect("fired");
        assert!(message.contains("rank 1"), "{message}");
        assert!(
            message.contains("the gradient all-reduce of step 3"),
            "{message}"
        );
        assert!(message.contains("--collective-timeout"), "{message}");
        drop(armed);
    }

    #[test]
    fn a_collective_that_returns_in_time_never_fires() {
        let (dog, rx) = recording(0, Duration::from_millis(300));
        for _ in 0..5 {
            let _armed = dog.arm("a quick one");
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(500));
        assert!(rx.try_recv().is_err());
        dog.stop();
    }
}
