//! Matmul on the device: float products go to cuBLAS (f32 SGEMM, or bf16
//! inputs on tensor cores with f32 accumulation), each operand read in
//! place when its view is a strided batch of row- or column-major
//! matrices, packed into a contiguous scratch buffer by a generated kernel
//! otherwise. Integer products (wrapping, as the reference) are a
//! generated kernel, one thread per output element.
//!
//! A product with a bias (a linear layer's `x @ w + b`) runs as one
//! cuBLASLt matmul with the bias epilogue; where cuBLASLt is missing or
//! offers no algorithm, a generated kernel writes the bias into every row
//! and cuBLAS adds the product to it (`beta = 1`). Both add the bias to
//! the f32 sums before the one rounding, as the CPU backend does.

use std::fmt::Write;

use sexpgpu_compile::{Matmul, View};
use sexpgpu_graph::DType;

use super::c::{self, Index};
use super::{copy, GenError, Kernel, Param, Shape, StepCode};

/// How cuBLAS reads one operand: a batch of `rows x cols` matrices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GemmOperand {
    /// Packs the operand into scratch (`Param::Out`) when cuBLAS cannot
    /// read its view; the layout then describes the scratch buffer.
    pub pack: Option<Kernel>,
    /// Stored column-major (a transposed view) rather than row-major.
    pub col_major: bool,
    /// Leading dimension, in elements.
    pub ld: usize,
    /// Elements from the buffer's start to the first matrix.
    pub offset: usize,
    /// Elements between consecutive matrices of the batch (0: broadcast).
    pub batch_stride: usize,
    /// Elements of scratch the packing kernel needs (0 when not packed).
    pub scratch: usize,
}

/// A product's bias: `n` elements from `offset` of the step's third
/// operand, added to every row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GemmBias {
    pub offset: usize,
    /// Writes the bias into every row of the output (`Param::Out`), for
    /// cuBLAS to add the product to where cuBLASLt does not run.
    pub rows: Kernel,
}

/// A cuBLAS strided-batched product `out[b] = a[b] x b[b] (+ bias)`,
/// row-major out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gemm {
    pub a: GemmOperand,
    pub b: GemmOperand,
    pub bias: Option<GemmBias>,
    pub batch: usize,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub dtype: DType,
}

/// The code of matmul step `p` of operands of `dtype`.
pub fn generate(p: &Matmul, dtype: DType) -> Result<StepCode, GenError> {
    match dtype {
        DType::F32 | DType::BF16 => Ok(StepCode::Gemm(Box::new(folded(Gemm {
            a: operand(&p.a_view, p.m, p.k, dtype),
            b: operand(&p.b_view, p.k, p.n, dtype),
            bias: p.bias.map(|bias| GemmBias {
                offset: bias.offset,
                rows: bias_rows(p, dtype, bias.offset),
            }),
            batch: p.problems(),
            m: p.m,
            k: p.k,
            n: p.n,
            dtype,
        })))),
        DType::I32 | DType::I64 if p.bias.is_none() => {
            Ok(StepCode::Kernels(vec![int_kernel(p, dtype)]))
        }
        DType::I32 | DType::I64 => Err(GenError::new("internal: an integer matmul with a bias")),
        DType::Bool => Err(GenError::new(
            "matmul: expects float or integer tensors of one dtype",
        )),
    }
}

/// A batch that shares one right operand (`x @ w` with `x` `[b t in]`)
/// as one product of `batch * m` rows, when the left operand's rows are
/// evenly spaced across the batch (row-major, each matrix `m * ld` after
/// the last): one large GEMM keeps the tensor cores busier than `batch`
/// smaller ones. Each output row is the same dot products either way.
fn folded(g: Gemm) -> Gemm {
    let shared_right = g.b.batch_stride == 0;
    let rows_continue = !g.a.col_major && g.a.batch_stride == g.m * g.a.ld;
    // cuBLAS takes 32-bit sizes: a batch whose rows together exceed them
    // stays a batch.
    let rows_fit = g.batch.saturating_mul(g.m) <= i32::MAX as usize;
    if g.batch <= 1 || !shared_right || !rows_continue || !rows_fit {
        return g;
    }
    Gemm {
        a: GemmOperand {
            batch_stride: 0,
            ..g.a
        },
        m: g.batch * g.m,
        batch: 1,
        ..g
    }
}

/// The operand read in place when its view allows, else packed.
fn operand(view: &View, rows: usize, cols: usize, dtype: DType) -> GemmOperand {
    let r = view.dims.len();
    let batch_view = View {
        offset: 0,
        dims: view.dims[..r - 2].to_vec(),
        strides: view.strides[..r - 2].to_vec(),
    }
    .collapsed();
    let batch_stride = match batch_view.dims.as_slice() {
        [1] => Some(0),
        [_] => Some(batch_view.strides[0]),
        _ => None,
    };
    let (rs, cs) = (view.strides[r - 2], view.strides[r - 1]);
    let row_major = (cs == 1 || cols <= 1) && (rows <= 1 || rs >= cols.max(1));
    let col_major = (rs == 1 || rows <= 1) && (cols <= 1 || cs >= rows.max(1));
    let layout = if row_major {
        Some((false, if rows <= 1 { cols.max(1) } else { rs }))
    } else if col_major {
        Some((true, if cols <= 1 { rows.max(1) } else { cs }))
    } else {
        None
    };
    match (layout, batch_stride) {
        (Some((col_major, ld)), Some(batch_stride)) => GemmOperand {
            pack: None,
            col_major,
            ld,
            offset: view.offset,
            batch_stride,
            scratch: 0,
        },
        _ => {
            let (body, params, n) = copy::pack(view, dtype);
            GemmOperand {
                pack: Some(Kernel::new("pack", body, params, Shape::Grid { n })),
                col_major: false,
                ld: cols.max(1),
                offset: 0,
                batch_stride: rows * cols,
                scratch: n,
            }
        }
    }
}

/// `out[i, j] = bias[offset + j]` over the product's rows, the bias being
/// the step's third operand (`Param::Input(2)`).
fn bias_rows(p: &Matmul, dtype: DType, offset: usize) -> Kernel {
    let total = p.written();
    let ix = Index::for_extent(total.max(offset + p.n) + 1);
    let params = [
        c::ptr_param(dtype, "out", true),
        c::ptr_param(dtype, "bias", false),
    ];
    let body = format!(
        "out[p] = bias[{} + p % {}];\n",
        ix.lit(offset),
        ix.lit(p.n.max(1))
    );
    Kernel::new(
        "bias-rows",
        c::grid_kernel(&params, total, ix, &body),
        vec![Param::Out, Param::Input(2)],
        Shape::Grid { n: total },
    )
}

/// Wrapping integer matmul through both views, accumulating in i64.
fn int_kernel(p: &Matmul, dtype: DType) -> Kernel {
    let batch = p.problems();
    let total = p.written();
    let ix = Index::for_extent(
        total
            .max(p.a_view.extent())
            .max(p.b_view.extent())
            .max(batch * p.m * p.k)
            .max(batch * p.k * p.n)
            + 1,
    );
    let ty = ix.ty();
    let params = [
        c::ptr_param(dtype, "out", true),
        c::ptr_param(dtype, "a", false),
        c::ptr_param(dtype, "b", false),
    ];
    let (m, k, n) = (ix.lit(p.m.max(1)), ix.lit(p.k), ix.lit(p.n.max(1)));
    let mut body = String::new();
    let _ = writeln!(
        body,
        "{ty} bt = p / ({m} * {n}), i = p / {n} % {m}, j = p % {n};"
    );
    body.push_str("long long acc = 0;\n");
    let _ = writeln!(body, "for ({ty} q = 0; q < {k}; ++q) {{");
    let _ = writeln!(
        body,
        "  {ty} ap = (bt * {m} + i) * {k} + q, bp = (bt * {k} + q) * {n} + j;"
    );
    let _ = writeln!(
        body,
        "  acc = sx_wadd(acc, sx_wmul((long long)a[{}], (long long)b[{}]));",
        c::view_index(&p.a_view, "ap", ix),
        c::view_index(&p.b_view, "bp", ix)
    );
    body.push_str("}\n");
    let store = match dtype {
        DType::I32 => "(int)(unsigned)(unsigned long long)acc",
        _ => "acc",
    };
    let _ = writeln!(body, "out[p] = {store};");
    Kernel::new(
        "matmul",
        c::grid_kernel(&params, total, ix, &body),
        vec![Param::Out, Param::Input(0), Param::Input(1)],
        Shape::Grid { n: total },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sexpgpu_compile::Loc;

    fn gemm(a: View, b: View, batch: &[usize], (m, k, n): (usize, usize, usize)) -> Gemm {
        let p = Matmul {
            a: Loc::Arg(0),
            a_view: a,
            b: Loc::Arg(1),
            b_view: b,
            bias: None,
            batch: batch.to_vec(),
            m,
            k,
            n,
        };
        match generate(&p, DType::BF16).unwrap() {
            StepCode::Gemm(g) => *g,
            StepCode::Kernels(_) => panic!("a float matmul goes to cuBLAS"),
        }
    }

    fn layout(o: &GemmOperand) -> String {
        format!(
            "{} ld {} offset {} stride {}{}",
            if o.col_major { "col" } else { "row" },
            o.ld,
            o.offset,
            o.batch_stride,
            if o.pack.is_some() { " packed" } else { "" }
        )
    }

    #[test]
    fn views_cublas_can_read_are_read_in_place() {
        // x [8, 16] @ w^T where w is [32, 16]: the transpose is column-major.
        let w_t = View::contiguous(&[32, 16]).transpose(&[1, 0]);
        let g = gemm(View::contiguous(&[8, 16]), w_t, &[], (8, 16, 32));
        assert_eq!(layout(&g.a), "row ld 16 offset 0 stride 0");
        assert_eq!(layout(&g.b), "col ld 16 offset 0 stride 0");
        // A weight broadcast over a batch of 3 has batch stride 0; a slice
        // of a wider row keeps its leading dimension and offset. Rows that
        // do not continue from one matrix to the next (the first 4 of 6)
        // keep the batch.
        let x = View::contiguous(&[3, 6, 10]).slice(1, 0, 4).slice(2, 2, 7);
        let w = View::contiguous(&[5, 6]).broadcast(&[3, 5, 6]);
        let g = gemm(x, w, &[3], (4, 5, 6));
        assert_eq!(layout(&g.a), "row ld 10 offset 2 stride 60");
        assert_eq!(layout(&g.b), "row ld 6 offset 0 stride 0");
        assert_eq!((g.batch, g.m), (3, 4));
    }

    #[test]
    fn a_shared_right_operand_makes_the_batch_one_product() {
        // x [3, 4, 10] sliced to 5 columns, @ w broadcast over the batch:
        // its 12 rows are 10 apart throughout, so one 12-row product.
        let x = View::contiguous(&[3, 4, 10]).slice(2, 2, 7);
        let w = View::contiguous(&[5, 6]).broadcast(&[3, 5, 6]);
        let g = gemm(x, w, &[3], (4, 5, 6));
        assert_eq!(layout(&g.a), "row ld 10 offset 2 stride 0");
        assert_eq!((g.batch, g.m, g.k, g.n), (1, 12, 5, 6));
        // A transposed (column-major) left operand cannot be one product.
        let x_t = View::contiguous(&[3, 5, 4]).transpose(&[0, 2, 1]);
        let g = gemm(
            x_t,
            View::contiguous(&[5, 6]).broadcast(&[3, 5, 6]),
            &[3],
            (4, 5, 6),
        );
        assert_eq!((g.batch, g.m), (3, 4));
        // Nor one whose rows together pass cuBLAS's 32-bit sizes.
        let tall = View::contiguous(&[3, 1 << 30, 5]);
        let w = View::contiguous(&[5, 6]).broadcast(&[3, 5, 6]);
        let g = gemm(tall, w, &[3], (1 << 30, 5, 6));
        assert_eq!((g.batch, g.m), (3, 1 << 30));
        // Nor a batch whose right operands differ.
        let g = gemm(
            View::contiguous(&[3, 4, 5]),
            View::contiguous(&[3, 5, 6]),
            &[3],
            (4, 5, 6),
        );
        assert_eq!((g.batch, g.m), (3, 4));
    }

    #[test]
    fn other_views_are_packed_first() {
        // Batch dims that do not collapse to one stride: [2, 3] batches of
        // a [3, 2, ...] buffer transposed in its batch dims.
        let a = View::contiguous(&[3, 2, 4, 5]).transpose(&[1, 0, 2, 3]);
        let g = gemm(
            a,
            View::contiguous(&[5, 6]).broadcast(&[2, 3, 5, 6]),
            &[2, 3],
            (4, 5, 6),
        );
        // Packed, its rows continue, so the shared weight makes it one
        // product of 2 * 3 * 4 rows.
        assert_eq!(layout(&g.a), "row ld 5 offset 0 stride 0 packed");
        assert_eq!((g.batch, g.m), (1, 24));
        assert_eq!(g.a.scratch, 2 * 3 * 4 * 5);
        assert_eq!(g.a.pack.as_ref().unwrap().kind, "pack");
        assert_eq!(layout(&g.b), "row ld 6 offset 0 stride 0");
    }
}
