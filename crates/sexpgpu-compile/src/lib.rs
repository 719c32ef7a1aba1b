//! SexpGPU's graph compiler (`docs/sexpgpu/ir.md`): `compile` turns a
//! traced graph into a `Plan` (layout nodes as views, fused elementwise
//! loops, matmul epilogues, side outputs, arena slots by liveness), and a
//! `Program` runs that plan on any `Backend` without knowing which one.
//! The backends (`sexpgpu-cpu`, `sexpgpu-cuda`) are peers below it: each
//! implements `Backend`, neither knows the other. Does no I/O and holds no
//! kernels: every element is computed by a backend.

mod backend;
pub mod cost;
mod describe;
mod error;
mod exec;
mod lower;
mod memory;
mod plan;
pub mod profile;
mod view;

pub use backend::{Backend, Chain, Dense, Operand, Product, Reduced};
pub use error::CompileError;
pub use exec::{Arena, DeviceArg, DeviceResult, Program};
pub use plan::{
    element_bytes, reduction_groups, Argsort, Attention, BufId, Contig, Fill, FusedKernel, Gather,
    InPlace, Index, IndexAdd, Instr, Launch, LinearScan, Loc, Matmul, Output, Plan, Reg,
    ScatterAdd, SlotInfo, Src, Step,
};
pub use sexpgpu_graph::ExecError;
pub use view::{row_major_strides, View};

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
