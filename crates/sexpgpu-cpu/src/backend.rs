//! `CpuBackend`: buffers are host `TensorData` (bf16 stored as bf16),
//! arguments and constants are read in place, and every kernel may use all
//! threads. Implements the `Backend` trait by dispatching to one module per
//! kind of kernel; holds no state but its thread count.

use half::bf16;
use sexpgpu_graph::{DType, ExecError, ReduceOp, Shape, Tensor, TensorData};

use sexpgpu_compile::{Backend, Chain, Fill, Operand, Product, Reduced, Step, View};

use crate::error::internal;
use crate::parallel::{for_chunks, MIN_PER_THREAD};
use crate::walk::{load, store};
use crate::{attention, fill, fused, indexing, matmul, reduce};

/// The thread count the command chose (`--threads`); 0 when it chose none.
static CHOSEN_THREADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Runs kernels on the host with up to `threads` threads each.
#[derive(Clone, Debug)]
pub struct CpuBackend {
    threads: usize,
}

impl CpuBackend {
    pub fn new(threads: usize) -> CpuBackend {
        CpuBackend {
            threads: threads.max(1),
        }
    }

    /// Sets the thread count of every backend made afterwards (the
    /// command's `--threads`), over `SEXPGPU_THREADS`; 0 restores the
    /// default.
    pub fn set_default_threads(threads: usize) {
        CHOSEN_THREADS.store(threads, std::sync::atomic::Ordering::Relaxed);
    }

    /// The count `set_default_threads` chose; else `SEXPGPU_THREADS` when
    /// set to a positive number; else every core.
    pub fn default_threads() -> usize {
        let chosen = CHOSEN_THREADS.load(std::sync::atomic::Ordering::Relaxed);
        if chosen > 0 {
            return chosen;
        }
        std::env::var("SEXPGPU_THREADS")
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    pub fn threads(&self) -> usize {
        self.threads
    }
}

impl Default for CpuBackend {
    fn default() -> Self {
        CpuBackend::new(CpuBackend::default_threads())
    }
}

impl Backend for CpuBackend {
    type Buffer = TensorData;
    type Mark = std::time::Instant;

    fn mark(&self) -> Result<std::time::Instant, ExecError> {
        Ok(std::time::Instant::now())
    }

    fn between(
        &self,
        start: &std::time::Instant,
        end: &std::time::Instant,
    ) -> Result<std::time::Duration, ExecError> {
        Ok(end.duration_since(*start))
    }

    fn name(&self) -> &'static str {
        "cpu"
    }

    /// Zeroed memory, or an error naming the size when the host has not
    /// got it (a tensor may be gigabytes: `sexpgpu_graph::MAX_ELEMENTS`).
    fn alloc(&self, dtype: DType, len: usize) -> Result<TensorData, ExecError> {
        fn zeroed<T: Clone>(len: usize, zero: T, dtype: DType) -> Result<Vec<T>, ExecError> {
            let mut v = Vec::new();
            v.try_reserve_exact(len).map_err(|_| ExecError {
                message: format!(
                    "out of memory: cannot allocate {len} {dtype} elements ({} MiB)",
                    (len * std::mem::size_of::<T>()) >> 20
                ),
                node: None,
            })?;
            v.resize(len, zero);
            Ok(v)
        }
        Ok(match dtype {
            DType::F32 => TensorData::F32(zeroed(len, 0.0, dtype)?),
            DType::BF16 => TensorData::BF16(zeroed(len, bf16::ZERO, dtype)?),
            DType::I32 => TensorData::I32(zeroed(len, 0, dtype)?),
            DType::I64 => TensorData::I64(zeroed(len, 0, dtype)?),
            DType::Bool => TensorData::Bool(zeroed(len, false, dtype)?),
        })
    }

    fn capacity(&self, buf: &TensorData) -> usize {
        buf.len()
    }

    fn dtype(&self, buf: &TensorData) -> DType {
        buf.dtype()
    }

    fn upload(&self, tensor: &Tensor) -> Result<TensorData, ExecError> {
        Ok(tensor.data().clone())
    }

    fn adopt(&self, tensor: Tensor) -> Result<TensorData, ExecError> {
        Ok(tensor.into_data())
    }

    fn borrow_host<'t>(&self, tensor: &'t Tensor) -> Option<&'t TensorData> {
        Some(tensor.data())
    }

    fn download(&self, mut buf: TensorData, shape: &Shape) -> Result<Tensor, ExecError> {
        buf.truncate(shape.numel());
        Tensor::new(shape.clone(), buf).map_err(|e| internal(&e.message))
    }

    fn download_copy(
        &self,
        buf: &TensorData,
        offset: usize,
        shape: &Shape,
    ) -> Result<Tensor, ExecError> {
        let range = offset..offset + shape.numel();
        let data = match buf {
            TensorData::F32(v) => v.get(range).map(|s| TensorData::F32(s.to_vec())),
            TensorData::BF16(v) => v.get(range).map(|s| TensorData::BF16(s.to_vec())),
            TensorData::I32(v) => v.get(range).map(|s| TensorData::I32(s.to_vec())),
            TensorData::I64(v) => v.get(range).map(|s| TensorData::I64(s.to_vec())),
            TensorData::Bool(v) => v.get(range).map(|s| TensorData::Bool(s.to_vec())),
        }
        .ok_or_else(|| internal("an output reads past its buffer"))?;
        Tensor::new(shape.clone(), data).map_err(|e| internal(&e.message))
    }

    fn duplicate(&self, buf: &TensorData, len: usize) -> Result<TensorData, ExecError> {
        let shape = Shape::new(vec![len]);
        self.download_copy(buf, 0, &shape).map(Tensor::into_data)
    }

    fn fused(
        &self,
        chain: Chain<'_, TensorData>,
        out: &mut TensorData,
        side: &mut [TensorData],
        len: usize,
    ) -> Result<(), ExecError> {
        let Chain { kernel, inputs } = chain;
        fused::run(self.threads, kernel, inputs, out, side, len)
    }

    fn copy(
        &self,
        pieces: &[(Operand<'_, TensorData>, &View)],
        out: &mut TensorData,
    ) -> Result<(), ExecError> {
        for (src, dst) in pieces {
            copy_piece(self.threads, *src, dst, out)?;
        }
        Ok(())
    }

    fn fill(
        &self,
        fill: &Fill,
        seed: u64,
        out: &mut TensorData,
        len: usize,
    ) -> Result<(), ExecError> {
        if out.len() < len {
            return Err(internal("a fill writes past its buffer"));
        }
        fill::run(self.threads, fill, seed, out, len);
        Ok(())
    }

    fn reduce(
        &self,
        op: ReduceOp,
        x: Reduced<'_, TensorData>,
        dims: &[usize],
        axes: &[usize],
        out: &mut TensorData,
    ) -> Result<(), ExecError> {
        let threads = self.threads;
        match x {
            Reduced::Dense(x) => reduce::run(threads, op, x.buf, x.offset, dims, axes, out),
            Reduced::Fused(Chain { kernel, inputs }) => {
                reduce::run_fused(threads, op, kernel, inputs, dims, axes, out)
            }
        }
    }

    fn matmul(
        &self,
        product: Product<'_, TensorData>,
        out: &mut TensorData,
    ) -> Result<(), ExecError> {
        let problem = matmul::Problem {
            a: product.a.0,
            a_view: product.a.1,
            b: product.b.0,
            b_view: product.b.1,
            bias: product.bias.map(|d| (d.buf, d.offset)),
            batch: product.batch,
            m: product.m,
            k: product.k,
            n: product.n,
        };
        matmul::run(self.threads, &problem, out)
    }

    fn indexed(
        &self,
        step: &Step,
        operands: &[&TensorData],
        out: &mut TensorData,
        _len: usize,
    ) -> Result<(), ExecError> {
        indexing::run(self.threads, step, operands, out)
    }

    fn attention(
        &self,
        step: &sexpgpu_compile::Attention,
        operands: &[&TensorData],
        out: &mut TensorData,
        side: &mut [TensorData],
    ) -> Result<(), ExecError> {
        attention::run(self.threads, step, operands, out, side)
    }
}

/// Writes one operand through the destination view `dst` of `out`: in
/// parallel chunks when the destination is contiguous (materialising a
/// view), in order otherwise (a piece of a concat).
fn copy_piece(
    threads: usize,
    src: Operand<'_, TensorData>,
    dst: &View,
    out: &mut TensorData,
) -> Result<(), ExecError> {
    if dst.extent() > out.len() {
        return Err(internal("a copy writes past its buffer"));
    }
    let dst_c = dst.collapsed();
    let n = dst.numel();
    match src {
        Operand::Splat(value, _) => {
            let mut one = out_like(out);
            fill::splat(&mut one, 1, value);
            let repeat = View {
                offset: 0,
                dims: dst.dims.clone(),
                strides: vec![0; dst.dims.len()],
            };
            copy_typed(threads, &one, &repeat.collapsed(), &dst_c, n, out)
        }
        Operand::Mem(buf, view) => {
            if view.extent() > buf.len() || view.numel() != n {
                return Err(internal("a copy reads past its buffer"));
            }
            copy_typed(threads, buf, &view.collapsed(), &dst_c, n, out)
        }
        Operand::Written(_) => Err(internal("a copy computes nothing in place")),
    }
}

/// A one-element buffer of `out`'s dtype.
fn out_like(out: &TensorData) -> TensorData {
    match out {
        TensorData::F32(_) => TensorData::F32(vec![0.0]),
        TensorData::BF16(_) => TensorData::BF16(vec![bf16::ZERO]),
        TensorData::I32(_) => TensorData::I32(vec![0]),
        TensorData::I64(_) => TensorData::I64(vec![0]),
        TensorData::Bool(_) => TensorData::Bool(vec![false]),
    }
}

/// The stride of a collapsed view's outermost dim when each of its rows
/// lies within that stride of the buffer, after the one before (so rows
/// own disjoint, ordered ranges); `None` for one dim or overlapping rows.
fn disjoint_rows(view: &View) -> Option<usize> {
    let (&row, inner) = view.strides.split_first()?;
    let inner_dims = &view.dims[1..];
    if inner_dims.is_empty() || inner_dims.contains(&0) {
        return None;
    }
    let inner_extent: usize = 1 + inner_dims
        .iter()
        .zip(inner)
        .map(|(&d, &s)| (d - 1) * s)
        .sum::<usize>();
    (row >= inner_extent).then_some(row)
}

/// Copies `dst.numel()` elements from view position `from` of `src` into
/// `dst`'s positions of `out`, in order, through a small tile.
fn copy_in_tiles<T: Copy + Default>(src: &[T], sv: &View, from: usize, dst: &View, out: &mut [T]) {
    let n = dst.numel();
    let mut tile = vec![T::default(); 4096.min(n)];
    let mut start = 0;
    while start < n {
        let len = tile.len().min(n - start);
        load(src, sv, from + start, &mut tile[..len], |x| x);
        store(out, dst, start, &tile[..len]);
        start += len;
    }
}

fn copy_typed(
    threads: usize,
    src: &TensorData,
    src_view: &View,
    dst_view: &View,
    n: usize,
    out: &mut TensorData,
) -> Result<(), ExecError> {
    fn go<T: Copy + Default + Send + Sync>(
        threads: usize,
        src: &[T],
        sv: &View,
        dv: &View,
        n: usize,
        out: &mut [T],
    ) {
        if dv.is_contiguous() {
            let out = &mut out[dv.offset..dv.offset + n];
            for_chunks(threads, out, 1, MIN_PER_THREAD, |start, chunk| {
                load(src, sv, start, chunk, |x| x);
            });
        } else if let Some(row) = disjoint_rows(dv) {
            // Rows of the destination own disjoint ranges of `out`: split
            // those ranges over threads, each a view from its own start.
            let end = (dv.offset + dv.dims[0] * row).min(out.len());
            let per_row = n / dv.dims[0];
            for_chunks(
                threads,
                &mut out[dv.offset..end],
                row,
                MIN_PER_THREAD,
                |start, chunk| {
                    let rows = chunk.len().div_ceil(row);
                    let mut part = dv.clone();
                    part.offset = 0;
                    part.dims[0] = rows;
                    copy_in_tiles(src, sv, start / row * per_row, &part, chunk);
                },
            );
        } else {
            copy_in_tiles(src, sv, 0, dv, out);
        }
    }
    if n == 0 {
        // An empty piece (of a `concat` along another axis) copies nothing;
        // its view's offset may lie past the end of the output.
        return Ok(());
    }
    match (src, out) {
        (TensorData::F32(s), TensorData::F32(o)) => go(threads, s, src_view, dst_view, n, o),
        (TensorData::BF16(s), TensorData::BF16(o)) => go(threads, s, src_view, dst_view, n, o),
        (TensorData::I32(s), TensorData::I32(o)) => go(threads, s, src_view, dst_view, n, o),
        (TensorData::I64(s), TensorData::I64(o)) => go(threads, s, src_view, dst_view, n, o),
        (TensorData::Bool(s), TensorData::Bool(o)) => go(threads, s, src_view, dst_view, n, o),
        _ => return Err(internal("a copy between dtypes")),
    }
    Ok(())
}
