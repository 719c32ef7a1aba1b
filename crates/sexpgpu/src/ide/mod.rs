//! The editor's questions about one `.sx` file, answered in plain data
//! (`docs/sexpgpu/editor.md`): what is wrong with it (reading and
//! evaluating it as `sexpgpu check` does, under a budget, with the host's
//! effects in the caller's hands), the shape and dtype of every tensor
//! expression, where names are defined and used, its outline, completions
//! and signatures. Knows nothing of LSP: offsets are bytes of the file's
//! text, and library files are named (`nn.sx`), never found on disk. The
//! top of the library's layers: it builds sessions. `pytorch` writes the
//! page for PyTorch users from the same names.

mod completion;
mod forms;
mod hover;
mod names;
mod navigation;
mod pytorch;

#[cfg(test)]
mod tests;

pub use completion::{Completion, CompletionKind, SignatureHelp};
pub use forms::DefKind;
pub use hover::{Hover, InlayHint};
pub use names::{Known, NameKind, Names};
pub use navigation::{Location, Symbol};
pub use pytorch::from_pytorch_page;

use crate::eval::{Host, Mode};
use crate::reader::{self, Form};
use crate::session::Session;
use diag::{Diagnostic, FileId, SourceMap, Span};
use forms::FileIndex;
use sexpgpu_graph::{DType, Shape};

/// How a file is analysed.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Evaluate the file's host code (off in a folder the user does not
    /// trust: then only reading, navigation and formatting).
    pub evaluate: bool,
    /// The most forms evaluated (`E-EVAL-014` past it): fewer than a
    /// command's (`DEFAULT_STEP_LIMIT`), so an editor hears soon of a loop
    /// without end.
    pub max_steps: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            evaluate: true,
            max_steps: 20_000_000,
        }
    }
}

/// The names the prelude, the libraries and the builtins give every file,
/// from a session of their own (nothing of the user's is evaluated).
pub fn known_names(host: Box<dyn Host>) -> Names {
    let session = Session::new(Mode::Check, 0, host);
    let mut globals = session.global_names();
    globals.sort();
    Names::new(&globals, crate::nn::sources(), crate::train::RUN_OPTIONS)
}

/// One file's analysis.
pub struct Analysis {
    /// The file's text.
    pub text: String,
    /// The file and the library files its diagnostics point into.
    pub sources: SourceMap,
    /// The file's id in `sources`.
    pub file: FileId,
    /// Reading's and evaluation's diagnostics, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// Forms evaluated.
    pub steps: u64,
    forms: Vec<Form>,
    index: FileIndex,
    /// Each form that evaluated to a tensor, by span, in the text's order,
    /// with the distinct shapes and dtypes it had.
    tensors: Vec<((u32, u32), Types)>,
}

impl Analysis {
    /// Reads `text` (file `name`) and, when `options` say so and it reads,
    /// evaluates it in check mode through `host`.
    pub fn new(name: &str, text: &str, options: &Options, host: Box<dyn Host>) -> Analysis {
        let (sources, file, diagnostics, steps, tensors) = if options.evaluate {
            let mut session = Session::new(Mode::Check, 0, host);
            let (file, diagnostics, watch, steps) =
                session.eval_file_watched(name, text, options.max_steps);
            let mut tensors: Vec<_> = watch.tensors.into_iter().collect();
            tensors.sort_by_key(|((start, end), _)| (*start, std::cmp::Reverse(*end)));
            (session.into_sources(), file, diagnostics, steps, tensors)
        } else {
            let mut sources = SourceMap::new();
            let file = sources.add(name, text);
            let diagnostics = reader::read(file, text).diagnostics;
            (sources, file, diagnostics, 0, Vec::new())
        };
        let forms = reader::read(file, text).forms;
        let index = FileIndex::new(&forms, text);
        Analysis {
            text: text.to_string(),
            sources,
            file,
            diagnostics,
            steps,
            forms,
            index,
            tensors,
        }
    }

    /// The library file (`nn.sx`) a span of `sources` lies in, if any.
    pub fn library_file(&self, file: FileId) -> Option<&str> {
        self.sources.name(file).strip_prefix("sexpgpu/")
    }

    /// The tensors the form at exactly `span` evaluated to.
    fn tensors_at(&self, span: Span) -> Option<&[(Shape, DType)]> {
        let key = (span.start, span.end);
        let i = self.tensors.partition_point(|(k, _)| {
            (k.0, std::cmp::Reverse(k.1)) < (key.0, std::cmp::Reverse(key.1))
        });
        self.tensors
            .get(i)
            .filter(|(k, _)| *k == key)
            .map(|(_, t)| t.as_slice())
    }

    /// The smallest form around `offset` that evaluated to a tensor.
    fn tensors_around(&self, offset: u32) -> Option<(Span, &[(Shape, DType)])> {
        self.tensors
            .iter()
            .filter(|((start, end), _)| *start <= offset && offset <= *end)
            .min_by_key(|((start, end), _)| end - start)
            .map(|((start, end), t)| (Span::new(self.file, *start, *end), t.as_slice()))
    }
}

/// The distinct shapes and dtypes one form evaluated to.
type Types = Vec<(Shape, DType)>;

/// `[8, 1024, 768] bf16`, how a tensor's type is shown.
pub fn describe(shape: &Shape, dtype: DType) -> String {
    format!("{shape} {dtype}")
}
