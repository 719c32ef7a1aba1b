//! Differential tests of SexpGPU (`docs/fuzzing.md`, "Differential tests
//! of SexpGPU"): random well-formed programs (host code that builds
//! tensor code and differentiates a scalar loss with `value-and-grad`),
//! and the oracles each is checked by: the compiled CPU program against
//! the reference executor, and the gradients against central finite
//! differences in f64. The CUDA backend's host emulation runs the same
//! programs' graphs in `crates/sexpgpu-cuda/tests/emulate.rs`.
//!
//! Layers, lowest first: `rng`; `ast`; `gen`; `oracle`; `minimise`;
//! `campaign`. No I/O: the binary (`main.rs`) prints.

pub mod ast;
pub mod campaign;
mod gen;
pub mod minimise;
pub mod oracle;
pub mod rng;

pub use ast::Program;
pub use campaign::{run, Failure, Totals};
pub use gen::program;
pub use oracle::{check, trace, Finding, Traced};
