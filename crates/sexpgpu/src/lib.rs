//! SexpGPU's front end: the reader, the host evaluator, tracing of tensor
//! operations into graphs, training runs and the error-code table. Pure: no
//! files, no terminal, no process exit (the command, in `main.rs`, owns those).

/// A static table of builtins: `table! { "name" => function, ... }`.
macro_rules! table {
    ($($name:literal => $f:path),* $(,)?) => {
        &[$(Builtin { name: $name, call: $f }),*]
    };
}

// The modules in layers, bottom to top: a module names only modules listed
// before it (ARCHITECTURE.md, `crates/sexpgpu`). Blank lines keep rustfmt
// from sorting them.

// 1. Text: forms with spans, and the code table.
pub mod codes;
mod reader;
// Over the reader: it checks its layout by reading it again.
pub mod format;

// 2. Values and their environments.
mod value;

// 3. The evaluator, with the registry every layer above registers into.
mod eval;

// 4. Special forms, then the host library.
mod special;

mod builtins;

// 5. Tensors: tracing and the tensor operations; data files.
mod trace;

mod data;

// 6. Training runs; the libraries written in SexpGPU.
mod train;

mod nn;

// 7. The session, which installs every layer.
mod session;

// 8. An editor's questions about a file, answered with sessions.
pub mod ide;

pub use eval::{set_default_step_limit, Host, Mode, DEFAULT_STEP_LIMIT};
pub use reader::is_incomplete;
pub use session::Session;
pub use trace::operation_list;
pub use train::device::{BackendExecutor, Carried, Device, DeviceTensor, Executor};
pub use train::dist::{Collective, Ranks};
pub use train::run::{MemoryIo, RunIo, RunOptions};
pub use train::TracedRun;
pub use value::{GraphDef, Value};
