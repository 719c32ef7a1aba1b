//! The soundness generator of ShapeScript (`docs/shapescript/soundness.md`):
//! random well-typed programs built from the generator's own model of the
//! language, each with an independent PyTorch reference; a runner that
//! checks and builds them (with probes) and runs them against the
//! reference; a minimiser for failures; and mutants of accepted programs
//! that PyTorch refuses, which the checker must refuse too.
//!
//! Layers, lowest first: `rng`, `size`, `names`; `ty`; `ast`; `print_ss`,
//! `print_py`, `spec`; `gen`; `run`, `mutate`; `minimise`; `campaign`.

pub mod ast;
pub mod campaign;
pub mod gen;
pub mod minimise;
pub mod mutate;
mod names;
pub mod print_py;
pub mod print_ss;
pub mod rng;
pub mod run;
pub mod size;
pub mod spec;
pub mod ty;

pub use campaign::{Campaign, Options, Totals};
pub use gen::{program, Names};
