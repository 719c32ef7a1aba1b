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
    bar: ProgressBar,
    /// Whether the bar is on screen (between a step and `clear`).
    shown: bool,
}

impl Bar {
    /// A bar on stderr, or none when stderr is not a terminal (a log file,
    /// a pipe, CI).
    pub fn on_stderr() -> Option<Bar> {
        std::io::stderr()
            .is_terminal()
            .then(|| Bar::to(ProgressDrawTarget::stderr()))
    }

    /// A bar drawn to `target` (tests draw to none).
    pub fn to(target: ProgressDrawTarget) -> Bar {
        let style = ProgressStyle::with_template(TEMPLATE)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key(
                "rate",
                |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.1} steps/s", state.per_sec());
                },
            )
            .progress_chars("=> ");
        Bar {
            bar: ProgressBar::with_draw_target(Some(0), target).with_style(style),
            shown: false,
        }
    }

    /// After step `step` of `total`, with the window's values as the message.
    pub fn step(&mut self, step: u64, total: u64, values: &str) {
        if !self.shown || self.bar.length() != Some(total) || step < self.bar.position() {
            // A new run (or a resumed one): the rate starts from here.
            self.bar.reset();
            self.bar.set_length(total);
            self.shown = true;
        }
        self.bar.set_position(step);
        self.bar.set_message(values.to_string());
    }

    /// Runs `f` (which prints a line) with the bar hidden meanwhile.
    pub fn suspend(&self, f: impl FnOnce()) {
        self.bar.suspend(f);
    }

    /// Takes the bar off the screen (a run ended or failed).
    pub fn clear(&mut self) {
        if self.shown {
            self.bar.finish_and_clear();
            self.shown = false;
        }
    }

    #[cfg(test)]
    fn state(&self) -> (u64, Option<u64>, String) {
        (self.bar.position(), self.bar.length(), self.bar.message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_follows_the_steps_of_each_run() {
        let mut bar = Bar::to(ProgressDrawTarget::hidden());
        bar.step(1, 10, "loss 2.3");
        bar.step(2, 10, "loss 2.1");
        assert_eq!(bar.state(), (2, Some(10), "loss 2.1".to_string()));
        bar.clear();
        // The next run has its own total.
        bar.step(1, 4, "loss 0.9");
        assert_eq!(bar.state(), (1, Some(4), "loss 0.9".to_string()));
    }
}
