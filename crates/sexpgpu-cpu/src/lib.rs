//! SexpGPU's graph compiler and its always-built CPU backend (spec section
//! 8): `compile` lowers a traced graph to fused kernels over arena buffers
//! reused by liveness, and `Program::run` executes them on all threads.
//! Results agree with `sexpgpu_graph::execute`, the reference executor (see
//! the README of each kernel module for where they are bit-identical). Never
//! reads files or prints; the command crate owns I/O.

mod backend;
mod cpu;
mod describe;
mod error;
mod exec;
mod lower;
mod memory;
mod plan;
mod view;

pub use backend::{Backend, Dense, Gather, Operand, Scatter};
pub use cpu::CpuBackend;
pub use error::CompileError;
pub use exec::{Arena, Program};
pub use plan::{
    BufId, Contig, Fill, FusedKernel, Instr, Launch, Loc, Output, Plan, Reg, SlotInfo, Src, Step,
};
pub use sexpgpu_graph::ExecError;
pub use view::View;

use sexpgpu_graph::Graph;

/// Compiles `graph` for execution: views for layout nodes, fused
/// elementwise loops, one kernel per other node, and arena slots assigned by
/// liveness. Fails only on a graph that breaks the builders' invariants.
pub fn compile(graph: &Graph) -> Result<Program, CompileError> {
    let mut plan = lower::lower(graph)?;
    memory::assign(&mut plan);
    Ok(Program::new(plan))
}
