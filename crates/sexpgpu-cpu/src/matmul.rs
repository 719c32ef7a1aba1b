//! Batched matmul on the CPU. f32 goes through our AVX2 SGEMM (`sgemm`)
//! on machines with AVX2 and FMA but no full-width AVX-512 (`sgemm::usable`),
//! else through the `gemm` crate's SGEMM (its AVX-512 or plain kernels),
//! reading both operands through their views (so transposed and
//! batch-broadcast operands cost no copy), split over threads by batch or
//! by rows of the output. bf16 is widened to f32, multiplied, and rounded
//! once. A bias (a linear layer's `x @ w + b`) is added to the f32 sums
//! before that rounding, by each thread to its block of the product right
//! after computing it, while the block is in its cache. Integers use a
//! plain wrapping loop. SGEMM accumulates in f32 in its
//! own order where the reference accumulates in f64, so f32 results agree
//! within f32 tolerance (relative error about k * 2^-24), not bit for bit.

use half::bf16;
use sexpgpu_graph::{ExecError, TensorData};

use std::ops::Range;

use crate::parallel::{for_chunks, for_ranges, split_count};
use crate::sgemm;
use crate::walk::load;
use sexpgpu_compile::View;

/// Multiply-adds below which one thread does the whole product.
const FLOPS_PER_THREAD: usize = 1 << 18;

/// One `[m, k] x [k, n]` problem's operands: buffers, views, sizes.
pub(crate) struct Problem<'a> {
    pub a: &'a TensorData,
    pub a_view: &'a View,
    pub b: &'a TensorData,
    pub b_view: &'a View,
    /// `n` elements from an offset, added to every row of the product.
    pub bias: Option<(&'a TensorData, usize)>,
    pub batch: &'a [usize],
    pub m: usize,
    pub k: usize,
    pub n: usize,
}

fn internal(message: &str) -> ExecError {
    ExecError {
        message: format!("internal: {message}"),
        node: None,
    }
}

pub(crate) fn run(threads: usize, p: &Problem<'_>, out: &mut TensorData) -> Result<(), ExecError> {
    let batch: usize = p.batch.iter().product();
    let len = batch * p.m * p.n;
    if p.a_view.extent() > p.a.len() || p.b_view.extent() > p.b.len() || out.len() < len {
        return Err(internal("a matmul operand does not fit its buffer"));
    }
    let rank = p.batch.len() + 2;
    if p.a_view.dims.len() != rank || p.b_view.dims.len() != rank {
        return Err(internal("a matmul operand has the wrong rank"));
    }
    let bias_fits = p.bias.is_none_or(|(bias, offset)| {
        offset.checked_add(p.n).is_some_and(|end| end <= bias.len())
            && std::mem::discriminant(bias) == std::mem::discriminant(p.a)
    });
    if !bias_fits {
        return Err(internal("a matmul's bias does not fit its buffer"));
    }
    match (p.a, p.b, out) {
        (TensorData::F32(a), TensorData::F32(b), TensorData::F32(o)) => {
            let bias = match p.bias {
                Some((TensorData::F32(bias), offset)) => Some(&bias[offset..offset + p.n]),
                _ => None,
            };
            sgemm_batched(
                threads,
                (a, p.a_view),
                (b, p.b_view),
                p,
                &mut o[..len],
                bias,
            );
        }
        (TensorData::BF16(a), TensorData::BF16(b), TensorData::BF16(o)) => {
            let (a32, av) = widen(a, p.a_view);
            let (b32, bv) = widen(b, p.b_view);
            let mut o32 = vec![0f32; len];
            let bias: Option<Vec<f32>> = match p.bias {
                Some((TensorData::BF16(bias), offset)) => Some(
                    bias[offset..offset + p.n]
                        .iter()
                        .map(|x| x.to_f32())
                        .collect(),
                ),
                _ => None,
            };
            let bias = bias.as_deref();
            sgemm_batched(threads, (&a32, &av), (&b32, &bv), p, &mut o32, bias);
            for (o, &x) in o.iter_mut().zip(&o32) {
                *o = bf16::from_f32(x);
            }
        }
        (TensorData::I32(a), TensorData::I32(b), TensorData::I32(o)) if p.bias.is_none() => {
            int_matmul(a, b, p, &mut o[..len], i64::from, |x| x as i32)
        }
        (TensorData::I64(a), TensorData::I64(b), TensorData::I64(o)) if p.bias.is_none() => {
            int_matmul(a, b, p, &mut o[..len], |x| x, |x| x)
        }
        _ => {
            return Err(ExecError {
                message: "matmul: expects float or integer tensors of one dtype".to_string(),
                node: None,
            })
        }
    }
    Ok(())
}

/// A bf16 operand as a contiguous f32 copy.
fn widen(x: &[bf16], view: &View) -> (Vec<f32>, View) {
    let mut out = vec![0f32; view.numel()];
    load(x, &view.collapsed(), 0, &mut out, bf16::to_f32);
    (out, View::contiguous(&view.dims))
}

/// The buffer offset of batch element `index` (row-major over `batch`).
fn batch_offset(view: &View, batch: &[usize], mut index: usize) -> usize {
    let mut offset = view.offset;
    for i in (0..batch.len()).rev() {
        offset += (index % batch[i]) * view.strides[i];
        index /= batch[i];
    }
    offset
}

/// `out = a b` over the batch, plus `bias` on every row when given.
fn sgemm_batched(
    threads: usize,
    (a, av): (&[f32], &View),
    (b, bv): (&[f32], &View),
    p: &Problem<'_>,
    out: &mut [f32],
    bias: Option<&[f32]>,
) {
    let (m, k, n) = (p.m, p.k, p.n);
    if out.is_empty() {
        return;
    }
    if k == 0 {
        match bias {
            Some(bias) => out.chunks_mut(n).for_each(|row| row.copy_from_slice(bias)),
            None => out.fill(0.0),
        }
        return;
    }
    if let Some(rows) = folded_rows(av, bv, p) {
        // One `[batch*m, k] x [k, n]` product: the shared right operand is
        // packed once instead of once per batch element.
        let single = Problem {
            batch: &[],
            m: rows,
            ..*p
        };
        let (a2, b2) = (two_d(av, rows, k), two_d(bv, k, n));
        return sgemm_batched(threads, (a, &a2), (b, &b2), &single, out, bias);
    }
    let batches: usize = p.batch.iter().product();
    let work = batches * m * n * k;
    let t = split_count(threads, work, FLOPS_PER_THREAD);
    let operands = Operands {
        a,
        av,
        b,
        bv,
        p,
        bias,
    };
    if t > 1 && batches >= t {
        // Whole problems per thread.
        for_chunks(t, out, m * n, 1, |start, chunk| {
            for (j, c) in chunk.chunks_mut(m * n).enumerate() {
                let block = Block::whole(start / (m * n) + j, m, n);
                // SAFETY: `c` is exactly this problem's `m * n` outputs.
                unsafe { operands.product(block, c.as_mut_ptr()) };
            }
        });
    } else if t > 1 && n > m && n >= t * COLUMN_ALIGN {
        // Column blocks of each problem per thread: each thread packs only
        // its own columns of `b`, the larger operand.
        for (bi, c) in out.chunks_mut(m * n).enumerate() {
            let dst = SharedOut(c.as_mut_ptr());
            for_ranges(t, n, COLUMN_ALIGN, |cols| {
                let first = cols.start;
                let block = Block {
                    batch: bi,
                    rows: 0..m,
                    cols,
                    row_stride: n,
                };
                // SAFETY: the column ranges are disjoint and inside `c`, so
                // no two threads write the same element.
                unsafe { operands.product(block, dst.get().add(first)) };
            });
        }
    } else {
        // Row blocks of each problem per thread.
        for (bi, c) in out.chunks_mut(m * n).enumerate() {
            for_chunks(t, c, n, 1, |start, rows| {
                let row0 = start / n;
                let block = Block {
                    batch: bi,
                    rows: row0..row0 + rows.len() / n,
                    cols: 0..n,
                    row_stride: n,
                };
                // SAFETY: `rows` holds exactly these rows of the output.
                unsafe { operands.product(block, rows.as_mut_ptr()) };
            });
        }
    }
}

/// Output columns a thread's block starts at a multiple of (a few
/// AVX-512 registers wide, so no thread gets a ragged kernel edge).
const COLUMN_ALIGN: usize = 64;

/// The f32 operands of one batched product, as `sgemm_batched` reads them.
struct Operands<'a> {
    a: &'a [f32],
    av: &'a View,
    b: &'a [f32],
    bv: &'a View,
    p: &'a Problem<'a>,
    /// Added to every row of the product (`n` elements).
    bias: Option<&'a [f32]>,
}

/// A rectangle of one batch element's output: its rows and columns, and
/// the output's row stride.
struct Block {
    batch: usize,
    rows: Range<usize>,
    cols: Range<usize>,
    row_stride: usize,
}

impl Block {
    /// The whole `m x n` output of batch element `batch`.
    fn whole(batch: usize, m: usize, n: usize) -> Block {
        Block {
            batch,
            rows: 0..m,
            cols: 0..n,
            row_stride: n,
        }
    }
}

/// The output pointer shared by threads that write disjoint blocks.
#[derive(Clone, Copy)]
struct SharedOut(*mut f32);

// SAFETY: every thread given a `SharedOut` writes only its own block of
// the output (see `sgemm_batched`), so sharing the pointer is a data race
// on no element.
unsafe impl Send for SharedOut {}
unsafe impl Sync for SharedOut {}

impl SharedOut {
    fn get(self) -> *mut f32 {
        self.0
    }
}

impl Operands<'_> {
    /// Computes `block` of the product, plus the bias, into `dst`, which
    /// points at the block's first element (row `rows.start`, column
    /// `cols.start`). The bias is added as soon as the block is written,
    /// while its rows are still in this core's cache.
    ///
    /// # Safety
    /// `dst` must be valid for writes of the block's elements at
    /// `i * row_stride + j` and no other thread may touch them meanwhile.
    unsafe fn product(&self, block: Block, dst: *mut f32) {
        let (rows, cols) = (block.rows.len(), block.cols.clone());
        let row_stride = block.row_stride;
        // SAFETY: the caller's contract, passed on.
        unsafe { self.plain_product(block, dst) };
        let Some(bias) = self.bias else { return };
        let bias = &bias[cols.clone()];
        for i in 0..rows {
            // SAFETY: row `i` of the block, `cols.len()` elements from
            // `dst + i * row_stride`, is the caller's.
            let row =
                unsafe { std::slice::from_raw_parts_mut(dst.add(i * row_stride), cols.len()) };
            for (o, &b) in row.iter_mut().zip(bias) {
                *o += b;
            }
        }
    }

    /// `product` without the bias.
    ///
    /// # Safety
    /// As for `product`.
    unsafe fn plain_product(&self, block: Block, dst: *mut f32) {
        let (av, bv, p) = (self.av, self.bv, self.p);
        let r = av.dims.len();
        let (rsa, csa) = (av.strides[r - 2], av.strides[r - 1]);
        let (rsb, csb) = (bv.strides[r - 2], bv.strides[r - 1]);
        let a_off = batch_offset(av, p.batch, block.batch) + block.rows.start * rsa;
        let b_off = batch_offset(bv, p.batch, block.batch) + block.cols.start * csb;
        let (rows, cols) = (block.rows.len(), block.cols.len());
        if sgemm::usable() && rows > 1 && cols > 1 {
            let a = sgemm::Operand {
                // SAFETY: `a_off` is inside `a` (the views were checked).
                ptr: unsafe { self.a.as_ptr().add(a_off) },
                row: rsa as isize,
                col: csa as isize,
            };
            let b = sgemm::Operand {
                // SAFETY: as for `a`.
                ptr: unsafe { self.b.as_ptr().add(b_off) },
                row: rsb as isize,
                col: csb as isize,
            };
            // SAFETY: `usable` checked AVX2 and FMA; every `(i, q)` of the
            // block's rows and `(q, j)` of its columns is inside the
            // buffers (as below); the caller vouches for `dst`.
            unsafe {
                sgemm::sgemm(sgemm::Product {
                    m: rows,
                    n: cols,
                    k: p.k,
                    a,
                    b,
                    dst,
                    ldc: block.row_stride,
                })
            };
            return;
        }
        // SAFETY: the views' extents were checked against the buffers, so
        // every element `a_off + i*rsa + q*csa` (i in the block's rows,
        // q < k) and `b_off + q*rsb + j*csb` (j in the block's columns) is
        // in bounds; the caller vouches for `dst`. Strides may be 0
        // (broadcast); gemm only reads through a and b. `gemm` computes
        // dst = alpha*dst + beta*a*b and, with read_dst false, never reads
        // dst, so alpha is ignored; beta 1 is the plain product. Its
        // arguments are column stride then row stride.
        unsafe {
            gemm::gemm(
                rows,
                cols,
                p.k,
                dst,
                1,
                block.row_stride as isize,
                false,
                self.a.as_ptr().add(a_off),
                csa as isize,
                rsa as isize,
                self.b.as_ptr().add(b_off),
                csb as isize,
                rsb as isize,
                0.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::None,
            );
        }
    }
}

/// The rows of `a` when a batched product is one plain product: `b` is the
/// same matrix for every batch element (all its batch strides are 0) and
/// `a`'s batch axes continue its rows (each batch stride is the next
/// axis's extent times its stride), as for `x @ w` with `x` `[b t in]`.
fn folded_rows(av: &View, bv: &View, p: &Problem<'_>) -> Option<usize> {
    let r = av.dims.len();
    if p.batch.is_empty() || bv.strides[..r - 2].iter().any(|&s| s != 0) {
        return None;
    }
    let row_stride = av.strides[r - 2];
    let mut rows = p.m;
    for axis in (0..r - 2).rev() {
        if av.dims[axis] != 1 && av.strides[axis] != row_stride * rows {
            return None;
        }
        rows *= av.dims[axis];
    }
    Some(rows)
}

/// A rank-2 view of an operand's last two axes with `rows` rows, keeping
/// the row and column strides and the offset.
fn two_d(view: &View, rows: usize, cols: usize) -> View {
    let r = view.dims.len();
    View {
        dims: vec![rows, cols],
        strides: vec![view.strides[r - 2], view.strides[r - 1]],
        offset: view.offset,
    }
}

fn int_matmul<T: Copy>(
    a: &[T],
    b: &[T],
    p: &Problem<'_>,
    out: &mut [T],
    widen: impl Fn(T) -> i64,
    narrow: impl Fn(i64) -> T,
) {
    let (m, k, n) = (p.m, p.k, p.n);
    let r = p.a_view.dims.len();
    let (rsa, csa) = (p.a_view.strides[r - 2], p.a_view.strides[r - 1]);
    let (rsb, csb) = (p.b_view.strides[r - 2], p.b_view.strides[r - 1]);
    let mut row = vec![0i64; n];
    if m * n == 0 {
        return;
    }
    for (bi, c) in out.chunks_mut(m * n).enumerate() {
        let a_off = batch_offset(p.a_view, p.batch, bi);
        let b_off = batch_offset(p.b_view, p.batch, bi);
        for i in 0..m {
            row.fill(0);
            for q in 0..k {
                let x = widen(a[a_off + i * rsa + q * csa]);
                for (j, acc) in row.iter_mut().enumerate() {
                    *acc = acc.wrapping_add(x.wrapping_mul(widen(b[b_off + q * rsb + j * csb])));
                }
            }
            for (o, &acc) in c[i * n..(i + 1) * n].iter_mut().zip(&row) {
                *o = narrow(acc);
            }
        }
    }
}
