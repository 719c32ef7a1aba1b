//! The session: the one type that builds an interpreter with every layer's
//! registrations (special forms, builtins, tracing, data, training, the
//! libraries) and feeds it files or REPL inputs. The top of the library;
//! nothing names it but the crate root.

use crate::eval::watch::Watch;
use crate::eval::{Host, Interp, Mode};
use crate::train::run::{self, RunIo, RunOptions};
use crate::train::TracedRun;
use crate::value::{GraphDef, Value};
use crate::{builtins, data, nn, reader, special, trace, train};
use diag::{Diagnostic, FileId, SourceMap};
use std::rc::Rc;

/// One program's evaluation: the interpreter with its globals and graphs,
/// fed files or REPL inputs one at a time.
pub struct Session {
    interp: Interp,
}

impl Session {
    /// A fresh session with the prelude loaded. `seed` folds into every
    /// random stream of the graphs `call` runs.
    pub fn new(mode: Mode, seed: u64, host: Box<dyn Host>) -> Session {
        let mut interp = Interp::new(mode, host);
        // Bottom to top: a later layer may redefine an earlier one's name,
        // and the prelude (in `nn`) uses them all.
        special::install(&mut interp);
        builtins::install(&mut interp);
        trace::install(&mut interp, seed);
        data::install(&mut interp);
        train::install(&mut interp);
        nn::install(&mut interp);
        interp.seal_core();
        Session { interp }
    }

    /// Sets how many forms host code may evaluate from now on
    /// (`E-EVAL-014` past it).
    pub fn set_step_limit(&mut self, steps: u64) {
        self.interp.set_step_limit(steps);
    }

    pub fn sources(&self) -> &SourceMap {
        &self.interp.sources
    }

    /// Reads `text` as file `name` and evaluates its top-level forms in
    /// order. A file that does not read cleanly is not evaluated; otherwise
    /// each form that fails reports one diagnostic and evaluation goes on.
    pub fn eval_file(&mut self, name: &str, text: &str) -> Vec<Diagnostic> {
        self.eval_input(name, text).1
    }

    /// Like `eval_file`, also returning the value of each form evaluated
    /// without error (what a REPL prints).
    pub fn eval_input(&mut self, name: &str, text: &str) -> (Vec<Value>, Vec<Diagnostic>) {
        let file = self.interp.sources.add(name, text);
        self.eval_read(file, text)
    }

    /// `eval_file` for an editor (`ide`): under a step limit of `max_steps`
    /// and the host's clock, recording the tensors of the file's forms; the
    /// file's id, its diagnostics, what the watch saw and the steps taken.
    pub(crate) fn eval_file_watched(
        &mut self,
        name: &str,
        text: &str,
        max_steps: u64,
    ) -> (FileId, Vec<Diagnostic>, Box<Watch>, u64) {
        let file = self.interp.sources.add(name, text);
        self.interp.set_step_limit(max_steps);
        self.interp.watch = Some(Box::new(Watch::new(file)));
        let (_, diagnostics) = self.eval_read(file, text);
        let watch = self
            .interp
            .watch
            .take()
            .unwrap_or_else(|| Box::new(Watch::new(file)));
        (file, diagnostics, watch, self.interp.steps())
    }

    /// The names the host library defines (builtins, operations, the prelude's).
    pub(crate) fn global_names(&self) -> Vec<String> {
        self.interp.globals.keys().map(|k| k.to_string()).collect()
    }

    /// The sources read so far, the session given up.
    pub(crate) fn into_sources(mut self) -> SourceMap {
        std::mem::take(&mut self.interp.sources)
    }

    /// Reads and evaluates `text`, file `file` of the sources.
    fn eval_read(&mut self, file: FileId, text: &str) -> (Vec<Value>, Vec<Diagnostic>) {
        let read = reader::read(file, text);
        if !read.diagnostics.is_empty() {
            return (Vec::new(), read.diagnostics);
        }
        let mut values = Vec::new();
        let mut diagnostics = Vec::new();
        for form in &read.forms {
            match self.interp.eval_top(form) {
                Ok(v) => values.push(v),
                Err(Some(d)) => diagnostics.push(*d),
                Err(None) => {}
            }
        }
        (values, diagnostics)
    }

    /// The graphs traced so far, in definition order (a redefinition keeps
    /// its first place).
    pub fn graphs(&self) -> &[Rc<GraphDef>] {
        trace::graphs(&self.interp)
    }

    /// The runs defined so far (`defrun`), in definition order.
    pub fn runs(&self) -> Vec<Rc<TracedRun>> {
        self.interp
            .state_ref::<train::Runs>()
            .map_or(Vec::new(), |runs| runs.0.clone())
    }

    /// Executes one run; its `println`s and `:after` go through the host.
    pub fn execute_run(
        &mut self,
        run: &TracedRun,
        options: &RunOptions,
        io: &mut dyn RunIo,
    ) -> Result<(), Box<Diagnostic>> {
        run::execute_run(&mut self.interp, run, options, io)
    }
}

// Whole programs through a session: the language (`eval_tests`) and
// training runs end to end (`train_tests`). They live here, at the top,
// because they use every layer.
#[cfg(test)]
mod dist_tests;
#[cfg(test)]
mod eval_tests;
#[cfg(test)]
mod train_tests;
