//! The progress bar of a training run (`indicatif`), drawn on stderr only
//! when stderr is a terminal: steps done of the run's total, steps per
//! second, the time spent and left, and the loss and metrics of the
//! current logging window. The plain step lines of the log go to stdout
//! either way (`docs/sexpgpu/runs.md`).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::IsTerminal;

const TEMPLATE: &str =
    "[{bar:20.cyan/blue}] {pos}/{len}  {rate}  {elapsed} elapsed, {eta} left  {wide_msg}";

/// A run's progress bar.
pub struct Bar {
    /// Where bars are drawn: each run gets a new bar there.
    target: fn() -> ProgressDrawTarget,
    /// The current run's bar, on screen (between its first step and `clear`).
    bar: Option<ProgressBar>,
}

impl Bar {
    /// A bar on stderr, or none when stderr is not a terminal (a log file,
    /// a pipe, CI).
    pub fn on_stderr() -> Option<Bar> {
        std::io::stderr()
            .is_terminal()
            .then(|| Bar::to(ProgressDrawTarget::stderr))
    }

    /// Bars drawn to `target` (tests draw to none).
    pub fn to(target: fn() -> ProgressDrawTarget) -> Bar {
        Bar { target, bar: None }
    }

    /// After step `step` of `total`, with the window's values as the message.
    pub fn step(&mut self, step: u64, total: u64, values: &str) {
        let current = self
            .bar
            .as_ref()
            .filter(|bar| bar.length() == Some(total) && step >= bar.position());
        match current {
            Some(bar) => {
                bar.set_position(step);
                bar.set_message(values.to_string());
            }
            // A new run (or a resumed one).
            None => self.bar = Some(self.first_step(step, total, values)),
        }
    }

    /// A new bar at a run's first step: drawn only once it holds the step
    /// and the total (never as `0/0`), its rate measured from this step on
    /// (the steps before it, resumed or not, took no time of this bar's).
    fn first_step(&self, step: u64, total: u64, values: &str) -> ProgressBar {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden())
            .with_style(style());
        bar.set_position(step);
        bar.reset_eta();
        bar.set_message(values.to_string());
        bar.set_draw_target((self.target)());
        bar.tick();
        bar
    }

    /// Runs `f` (which prints a line) with the bar hidden meanwhile.
    pub fn suspend(&self, f: impl FnOnce()) {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Takes the bar off the screen (a run's steps ended, or it failed).
    pub fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    #[cfg(test)]
    fn state(&self) -> Option<(u64, Option<u64>, String)> {
        let bar = self.bar.as_ref()?;
        Some((bar.position(), bar.length(), bar.message()))
    }
}

/// The bar's look; the rate is left out until two steps measured it.
fn style() -> ProgressStyle {
    ProgressStyle::with_template(TEMPLATE)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key(
            "rate",
            |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = match state.per_sec() {
                    rate if rate.is_finite() && rate > 0.0 => write!(w, "{rate:.1} steps/s"),
                    _ => write!(w, "- steps/s"),
                };
            },
        )
        .progress_chars("=> ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_follows_the_steps_of_each_run() {
        let mut bar = Bar::to(ProgressDrawTarget::hidden);
        assert_eq!(bar.state(), None, "no bar before the first step");
        bar.step(1, 10, "loss 2.3");
        bar.step(2, 10, "loss 2.1");
        assert_eq!(bar.state(), Some((2, Some(10), "loss 2.1".to_string())));
        bar.clear();
        assert_eq!(bar.state(), None);
        // The next run has its own total.
        bar.step(1, 4, "loss 0.9");
        assert_eq!(bar.state(), Some((1, Some(4), "loss 0.9".to_string())));
        // A resumed run starts a new bar at its step.
        bar.step(3, 4, "loss 0.8");
        bar.step(2, 4, "loss 0.7");
        assert_eq!(bar.state(), Some((2, Some(4), "loss 0.7".to_string())));
    }

    #[test]
    fn the_first_rate_is_not_the_jump_to_the_first_step() {
        // A run resumed at step 500 of 1000: the bar starts there, and has
        // no rate until a step was timed.
        let mut bar = Bar::to(ProgressDrawTarget::hidden);
        bar.step(500, 1000, "");
        let rate = bar.bar.as_ref().map(|b| b.per_sec()).unwrap();
        assert!(rate.is_nan() || rate <= 1.0, "rate {rate} after one step");
        std::thread::sleep(std::time::Duration::from_millis(50));
        bar.step(501, 1000, "");
        let rate = bar.bar.as_ref().map(|b| b.per_sec()).unwrap();
        assert!(rate < 100.0, "rate {rate}: one step in 50 ms");
    }
}
