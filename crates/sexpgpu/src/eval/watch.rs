//! What an editor asks of an evaluation (`ide`): a budget on its work, so
//! that host code that loops forever is stopped and reported (`E-EVAL-014`)
//! instead of hanging the language server, and the shape and dtype of every
//! tensor each form of one file evaluated to, for hovers and inlay hints.
//! Plain data; `Interp` holds one only when an editor asked.

use crate::codes;
use crate::eval::{EvalResult, Flow, Host};
use crate::value::Value;
use diag::{Diagnostic, FileId, Span};
use sexpgpu_graph::{DType, Shape};
use std::collections::HashMap;

/// How many distinct shapes are kept for one form (a layer's body traced
/// for twelve blocks of the same width has one).
const MAX_SHAPES_PER_FORM: usize = 8;

/// Steps between two questions to the host whether to stop (its clock).
const STEPS_PER_POLL: u64 = 1024;

/// The budget of an evaluation and what it has seen.
#[derive(Debug)]
pub struct Watch {
    /// The file whose forms' tensors are recorded.
    pub file: FileId,
    /// The most forms evaluated and functions applied before evaluation stops.
    pub max_steps: u64,
    /// Forms evaluated and functions applied so far.
    pub steps: u64,
    /// Set once the budget is spent: every later step fails silently.
    pub stopped: bool,
    /// For each form of `file` (by its span's start and end) that evaluated
    /// to a tensor, the distinct shapes and dtypes it had, in order.
    pub tensors: HashMap<(u32, u32), Vec<(Shape, DType)>>,
}

impl Watch {
    pub fn new(file: FileId, max_steps: u64) -> Watch {
        Watch {
            file,
            max_steps,
            steps: 0,
            stopped: false,
            tensors: HashMap::new(),
        }
    }

    /// Counts one step at `span`; the error that stops evaluation once the
    /// steps or the host's time are spent.
    pub(super) fn step(&mut self, host: &mut dyn Host, span: Span) -> EvalResult<()> {
        self.steps += 1;
        if self.stopped {
            return Err(Flow::Silent);
        }
        let out_of_time = self.steps.is_multiple_of(STEPS_PER_POLL) && host.interrupted();
        if self.steps <= self.max_steps && !out_of_time {
            return Ok(());
        }
        self.stopped = true;
        let spent = if out_of_time {
            "its time".to_string()
        } else {
            format!("{} steps", self.max_steps)
        };
        Err(Flow::from(
            Diagnostic::error(
                codes::E_EVAL_014,
                format!("evaluation stopped: the editor's budget of {spent} is spent"),
            )
            .with_primary(span, "still evaluating here")
            .with_note("the editor evaluates host code as you type, and stops code that runs long or forever; `sexpgpu check` has no such limit"),
        ))
    }

    /// Records what the form at `span` evaluated to, if a tensor of `file`'s.
    pub(super) fn observe(&mut self, span: Span, value: &Value) {
        if span.file != self.file {
            return;
        }
        let (shape, dtype) = match value {
            Value::Tensor(t) => (&t.shape, t.dtype),
            Value::HostTensor(t) => (t.shape(), t.dtype()),
            _ => return,
        };
        let seen = self.tensors.entry((span.start, span.end)).or_default();
        if seen.len() < MAX_SHAPES_PER_FORM && !seen.iter().any(|(s, d)| s == shape && *d == dtype)
        {
            seen.push((shape.clone(), dtype));
        }
    }
}
