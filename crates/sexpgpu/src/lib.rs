//! SexpGPU's front end: the reader, the host evaluator, tracing of tensor
//! operations into graphs, the error-code table and the `sexpgpu` command.
//! Everything but `cli` is pure: no files, no terminal, no process exit.

pub mod reader;
