//! The backend trait: the small set of kernels a device must provide for
//! compiled programs to run on it (after candle's `BackendStorage` and
//! `BackendDevice`). `sexpgpu-cpu` and `sexpgpu-cuda` implement it, each
//! without the other. Knows nothing of graphs.

use sexpgpu_graph::{DType, ExecError, ReduceOp, Shape, Tensor};

use crate::plan::{Fill, FusedKernel, Step};
use crate::view::View;

/// A kernel operand: device memory read through a view, or a value repeated.
pub enum Operand<'a, B> {
    Mem(&'a B, &'a View),
    /// Already converted to `dtype` as the reference stores it.
    Splat(sexpgpu_graph::Scalar, DType),
    /// The positions the launch writes to its target `k` (0: `out`, 1 + j:
    /// side output `j`), each read before it is written: a fused loop
    /// computing in place over an input whose buffer became that target
    /// (`Step::Fused::in_place`). Only `fused` receives it.
    Written(usize),
}

impl<B> Clone for Operand<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B> Copy for Operand<'_, B> {}

/// A contiguous operand: `len` elements of `buf` from `offset`.
pub struct Dense<'a, B> {
    pub buf: &'a B,
    pub offset: usize,
}

impl<B> Clone for Dense<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B> Copy for Dense<'_, B> {}

/// The values a fused kernel computes: `kernel` over its operands
/// (`inputs[i]` for the kernel's `Load` of input `i`).
pub struct Chain<'a, B> {
    pub kernel: &'a FusedKernel,
    pub inputs: &'a [Operand<'a, B>],
}

/// What a reduction reads: a contiguous input, or the values of a fused
/// chain, reduced as they are computed (they are never stored).
pub enum Reduced<'a, B> {
    Dense(Dense<'a, B>),
    Fused(Chain<'a, B>),
}

/// A device that runs compiled programs. Every kernel writes the first
/// `len` elements of `out` (a buffer of the node's dtype, possibly longer)
/// and must give the reference executor's results: bit-identical where the
/// arithmetic is done in the same order, within dtype tolerance otherwise.
/// Errors are for data the op cannot accept (an id outside its axis).
pub trait Backend {
    /// Device memory holding elements of one dtype.
    type Buffer;

    /// A point in the device's queue of work, for timing launches
    /// (`--profile`): the CPU's is the wall clock, since its launches end
    /// before they return; a GPU's is an event recorded on its stream.
    type Mark;

    /// A mark after everything queued so far.
    fn mark(&self) -> Result<Self::Mark, ExecError>;

    /// The time from `start` to `end`, waiting for the device to pass `end`.
    fn between(
        &self,
        start: &Self::Mark,
        end: &Self::Mark,
    ) -> Result<std::time::Duration, ExecError>;

    fn name(&self) -> &'static str;

    /// Readies the backend for `plan`'s launches before its first run (a
    /// GPU compiles all of its kernels at once); the CPU needs nothing.
    fn prepare(&self, plan: &crate::plan::Plan) -> Result<(), ExecError> {
        let _ = plan;
        Ok(())
    }

    /// A buffer for at least `len` elements of `dtype`; contents unspecified.
    fn alloc(&self, dtype: DType, len: usize) -> Result<Self::Buffer, ExecError>;

    /// How many elements the buffer holds.
    fn capacity(&self, buf: &Self::Buffer) -> usize;
    /// The element type a buffer holds.
    fn dtype(&self, buf: &Self::Buffer) -> DType;

    /// The host tensor's elements, on the device.
    fn upload(&self, tensor: &Tensor) -> Result<Self::Buffer, ExecError>;

    /// The host tensor's elements as a buffer of this run's own, which a
    /// fused loop may overwrite in place (`Program::run_given`): the CPU
    /// takes the tensor's memory as it is; a device uploads it.
    fn adopt(&self, tensor: Tensor) -> Result<Self::Buffer, ExecError> {
        self.upload(&tensor)
    }

    /// The host tensor itself, when the device reads host memory directly
    /// (the CPU), so arguments and constants are never copied.
    fn borrow_host<'t>(&self, tensor: &'t Tensor) -> Option<&'t Self::Buffer>;

    /// The first `shape.numel()` elements as a host tensor.
    fn download(&self, buf: Self::Buffer, shape: &Shape) -> Result<Tensor, ExecError>;

    /// A copy of a buffer that must stay on the device.
    fn download_copy(
        &self,
        buf: &Self::Buffer,
        offset: usize,
        shape: &Shape,
    ) -> Result<Tensor, ExecError>;

    /// A new buffer holding a copy of the first `len` elements of `buf`,
    /// on the device (an output a run keeps there that another output or
    /// an argument also holds).
    fn duplicate(&self, buf: &Self::Buffer, len: usize) -> Result<Self::Buffer, ExecError>;

    /// One loop over `len` output elements computing the fused chain,
    /// storing `chain.kernel.result` to `out` and each of its `side`
    /// registers to the buffer of `side` at its position.
    fn fused(
        &self,
        chain: Chain<'_, Self::Buffer>,
        out: &mut Self::Buffer,
        side: &mut [Self::Buffer],
        len: usize,
    ) -> Result<(), ExecError>;

    /// Writes each operand through its destination view of `out`.
    fn copy(
        &self,
        pieces: &[(Operand<'_, Self::Buffer>, &View)],
        out: &mut Self::Buffer,
    ) -> Result<(), ExecError>;

    /// `full`, `iota` and the random fills; random values depend only on
    /// (seed, stream, element index), as `sexpgpu_graph::random` defines.
    fn fill(
        &self,
        fill: &Fill,
        seed: u64,
        out: &mut Self::Buffer,
        len: usize,
    ) -> Result<(), ExecError>;

    /// Reduces `axes` of a `[dims]` input: any axes of a contiguous one,
    /// the trailing axes of a fused chain's float values.
    fn reduce(
        &self,
        op: ReduceOp,
        x: Reduced<'_, Self::Buffer>,
        dims: &[usize],
        axes: &[usize],
        out: &mut Self::Buffer,
    ) -> Result<(), ExecError>;

    /// Batched `[batch.., m, k] x [batch.., k, n]` through views, plus
    /// the product's bias on every row when it has one.
    fn matmul(
        &self,
        product: Product<'_, Self::Buffer>,
        out: &mut Self::Buffer,
    ) -> Result<(), ExecError>;

    /// A kernel of its own over contiguous operands, one per
    /// `Step::is_indexed` step: `index` and `gather` (rows or elements read
    /// through integer ids), `index-add` and `scatter-add` (`base` plus
    /// `values` added by ids, repeated ids accumulating), `linear-scan`
    /// (`h[t] = a[t] * h[t-1] + b[t]` in f32) and `argsort` (stably, NaN
    /// above every number). `operands[k]` holds `step.reads()[k]`, read
    /// from its `Contig`'s offset; the first `len` elements of `out` are
    /// written. Ids outside their axis are an error.
    fn indexed(
        &self,
        step: &Step,
        operands: &[&Self::Buffer],
        out: &mut Self::Buffer,
        len: usize,
    ) -> Result<(), ExecError>;

    /// One part of fused attention (`step.part`) into `out`, and its
    /// partners `step.also[i]` into `side[i]`; `operands[k]`
    /// holds `step.operands[k]`'s elements, read through its view.
    fn attention(
        &self,
        step: &crate::plan::Attention,
        operands: &[&Self::Buffer],
        out: &mut Self::Buffer,
        side: &mut [Self::Buffer],
    ) -> Result<(), ExecError>;
}

/// A matmul's operands: `a` (`[batch.., m, k]`) and `b`
/// (`[batch.., k, n]`) through their views, and `bias`, `n` elements
/// added to every row of the product before its one rounding.
pub struct Product<'a, B> {
    pub a: (&'a B, &'a View),
    pub b: (&'a B, &'a View),
    pub bias: Option<Dense<'a, B>>,
    pub batch: &'a [usize],
    pub m: usize,
    pub k: usize,
    pub n: usize,
}
