//! SexpGPU's front end: the reader, the host evaluator, tracing of tensor
//! operations into graphs, training runs and the error-code table. Pure: no
//! files, no terminal, no process exit (the command, in `main.rs`, owns those).

/// A static table of builtins: `table! { "name" => function, ... }`.
macro_rules! table {
    ($($name:literal => $f:path),* $(,)?) => {
        &[$(Builtin { name: $name, call: $f }),*]
    };
}

mod builtins;
pub mod codes;
pub mod data;
mod env;
pub mod eval;
mod nn;
mod pattern;
pub mod reader;
mod special;
pub mod trace;
pub mod train;
pub mod value;

use diag::{Diagnostic, SourceMap};
pub use eval::{Host, Mode};
pub use reader::is_incomplete;
use std::rc::Rc;
pub use trace::GraphDef;
pub use train::run::{RunIo, RunOptions};
pub use train::TracedRun;
pub use value::Value;

/// One program's evaluation: the interpreter with its globals and graphs,
/// fed files or REPL inputs one at a time.
pub struct Session {
    interp: eval::Interp,
}

impl Session {
    /// A fresh session with the prelude loaded. `seed` folds into every
    /// random stream of the graphs `call` runs.
    pub fn new(mode: Mode, seed: u64, host: Box<dyn Host>) -> Session {
        let mut interp = eval::Interp::new(mode, seed, host);
        nn::load(&mut interp, "sexpgpu/prelude.sx", nn::PRELUDE, None);
        Session { interp }
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
        &self.interp.tracer.graphs
    }

    /// The runs defined so far (`defrun`), in definition order.
    pub fn runs(&self) -> Vec<Rc<train::TracedRun>> {
        self.interp.runs.clone()
    }

    /// Executes one run; its `println`s and `:after` go through the host.
    pub fn execute_run(
        &mut self,
        run: &train::TracedRun,
        options: &train::run::RunOptions,
        io: &mut dyn train::run::RunIo,
    ) -> Result<(), Box<Diagnostic>> {
        train::run::execute_run(&mut self.interp, run, options, io)
    }
}
