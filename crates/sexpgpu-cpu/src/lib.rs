//! SexpGPU's always-built CPU backend: `CpuBackend` implements
//! `sexpgpu_compile::Backend` with one module per kind of kernel, and
//! `CpuProgram` runs a compiled program on it with all threads, keeping
//! its arena between runs. `compile` is the compiler's, wrapped for the
//! CPU. Never reads files or prints; the command crate owns I/O.
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

mod attention;
mod backend;
mod division;
mod error;
mod fill;
mod fused;
mod indexing;
#[cfg(target_arch = "x86_64")]
mod jit;
/// Off x86-64 no kernel is compiled: every fused loop is interpreted.
#[cfg(not(target_arch = "x86_64"))]
mod jit {
    use sexpgpu_compile::FusedKernel;

    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
    pub(crate) enum Input {
        Stream,
        Splat(u32),
        Scalar,
    }

    /// Never built off x86-64.
    pub(crate) enum Compiled {}

    impl Compiled {
        pub(crate) unsafe fn run(&self, _: &[*const u8], _: &[*mut u8], _: usize) {
            match *self {}
        }
    }

    pub(crate) fn lookup(_: &FusedKernel, _: &[Input]) -> Option<std::sync::Arc<Compiled>> {
        None
    }
}
mod matmul;
mod parallel;
mod program;
mod reduce;
mod sgemm;
#[cfg(target_arch = "x86_64")]
mod simd;
mod sort;
mod walk;

pub use backend::CpuBackend;
pub use program::CpuProgram;

use sexpgpu_compile::CompileError;
use sexpgpu_graph::Graph;

/// `sexpgpu_compile::compile`, ready to run on the CPU.
pub fn compile(graph: &Graph) -> Result<CpuProgram, CompileError> {
    sexpgpu_compile::compile(graph).map(CpuProgram::new)
}
