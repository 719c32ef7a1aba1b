//! Copies: the pieces of a `Copy` step (materialised views, the inputs of a
//! `concat`) in one kernel, each thread finding its piece by position,
//! and the packing of a matmul operand cuBLAS cannot read through its
//! view. Elements move as stored bits (bf16 never widens).

use std::fmt::Write;

use sexpgpu_compile::{Src, View};
use sexpgpu_graph::DType;

use super::c::{self, Index};
use super::Param;

/// One kernel writing every piece; returns the body, its parameters and
/// the number of elements it writes.
pub fn generate(pieces: &[(Src, View)], dtype: DType) -> (String, Vec<Param>, usize) {
    let total: usize = pieces.iter().map(|(_, dst)| dst.numel()).sum();
    let mut largest = total;
    for (src, dst) in pieces {
        largest = largest.max(dst.extent());
        if let Src::Mem { view, .. } = src {
            largest = largest.max(view.extent());
        }
    }
    let ix = Index::for_extent(largest);
    let mut params = vec![c::ptr_param(dtype, "out", true)];
    let mut order = vec![Param::Out];
    let mut body = String::new();
    let mut start = 0usize;
    // The backend hands one buffer per piece read from memory, empty
    // pieces included, so operand numbers count those too.
    let mut operand = 0;
    for (i, (src, dst)) in pieces.iter().enumerate() {
        let n = dst.numel();
        let this_operand = operand;
        if matches!(src, Src::Mem { .. }) {
            operand += 1;
        }
        if n == 0 {
            continue;
        }
        let value = match src {
            Src::Mem { view, .. } => {
                params.push(c::ptr_param(dtype, &format!("in{i}"), false));
                order.push(Param::Input(this_operand));
                format!("in{i}[{}]", c::view_index(view, "q", ix))
            }
            Src::Splat { value, .. } => c::stored_lit(*value, dtype),
        };
        let _ = writeln!(
            body,
            "if (p >= {} && p < {}) {{",
            ix.lit(start),
            ix.lit(start + n)
        );
        let _ = writeln!(body, "  {} q = p - {};", ix.ty(), ix.lit(start));
        let _ = writeln!(body, "  out[{}] = {value};", c::view_index(dst, "q", ix));
        body.push_str("}\n");
        start += n;
    }
    (c::grid_kernel(&params, total, ix, &body), order, total)
}

/// Copies operand 0 read through `view` into a contiguous scratch buffer.
pub fn pack(view: &View, dtype: DType) -> (String, Vec<Param>, usize) {
    let n = view.numel();
    let ix = Index::for_extent(n.max(view.extent()));
    let params = [
        c::ptr_param(dtype, "out", true),
        c::ptr_param(dtype, "in0", false),
    ];
    let body = format!("out[p] = in0[{}];\n", c::view_index(view, "p", ix));
    (
        c::grid_kernel(&params, n, ix, &body),
        vec![Param::Out, Param::Input(0)],
        n,
    )
}
