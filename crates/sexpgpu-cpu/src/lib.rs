//! SexpGPU's graph compiler and its always-built CPU backend
//! (`docs/sexpgpu/ir.md`): `compile` lowers a traced graph to fused kernels over arena buffers
//! reused by liveness, and `Program::run` executes them on all threads.
//! Never reads files or prints; the command crate owns I/O.
//!
//! Agreement with `sexpgpu_graph::execute` (the reference executor):
//! - bit-identical: every elementwise op, fused or not (bf16 is rounded
//!   after every op and i32 wraps, as the reference does), casts, `where`,
//!   comparisons, layout ops, `index`, `gather`, `index-add` and
//!   `scatter-add` (f64 accumulation in the same order), `linear-scan`,
//!   `iota`, `full`, constants, `normal` and `uniform` (same streams), `max`,
//!   every `sum` but one over all axes, and all integer ops including matmul;
//! - within one f32 rounding: a float `sum` over every axis (per-thread f64
//!   partial sums, in another order, before the one rounding to f32);
//! - within f32 (or bf16) tolerance: float `matmul`, which uses an f32 SGEMM
//!   where the reference accumulates in f64 (relative error grows like
//!   `sqrt(k) * 2^-24`; bf16 results are one rounding of that f32 value,
//!   plus the bias where a linear layer's add is the product's epilogue,
//!   where the reference rounds after the product and after the add).

mod backend;
mod cpu;
mod describe;
mod error;
mod exec;
mod lower;
mod memory;
mod plan;
pub mod profile;
mod view;

pub use backend::{Backend, Dense, Gather, Operand, Product, Scatter};
pub use cpu::CpuBackend;
pub use error::CompileError;
pub use exec::{Arena, DeviceArg, DeviceResult, Program};
pub use plan::{
    reduction_groups, Attention, BufId, Contig, Fill, FusedKernel, InPlace, Instr, Launch, Loc,
    Output, Plan, Reg, SlotInfo, Src, Step,
};
pub use sexpgpu_graph::ExecError;
pub use view::View;

use sexpgpu_graph::Graph;

/// Compiles `graph` for execution: repeated argument-free nodes read from
/// their first occurrence (a mask built in every layer is built once),
/// views for layout nodes, fused elementwise loops, one kernel per other
/// node, and arena slots assigned by liveness. Fails only on a graph that
/// breaks the builders' invariants.
pub fn compile(graph: &Graph) -> Result<Program, CompileError> {
    let merged = graph.with_argument_free_duplicates_merged();
    let mut plan = lower::lower(merged.as_ref().unwrap_or(graph))?;
    memory::assign(&mut plan);
    Ok(Program::new(plan))
}
