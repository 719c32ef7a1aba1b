//! `argsort`: one thread per element, which counts the elements of its
//! line that sort before it (smaller, or equal and earlier: a stable
//! order, NaN above every number) and writes its own position at that
//! rank. The ranks of a line are a permutation, so no two threads write
//! one place, and the result is the CPU's exactly.

use std::fmt::Write;

use sexpgpu_compile::Argsort;
use sexpgpu_graph::DType;

use super::c::{self, Index};
use super::{GenError, Param};

/// The body and parameters of an argsort of a `[dims]` input of `dtype`.
pub fn generate(s: &Argsort, dtype: DType) -> Result<(String, Vec<Param>, usize), GenError> {
    let numel: usize = s.dims.iter().product();
    let len = s.dims[s.axis];
    let inner: usize = s.dims[s.axis + 1..].iter().product();
    let ix = Index::for_extent(s.x.offset + numel + 1);
    let ty = ix.ty();
    let cty = c::compute(dtype);
    let params = vec![
        c::ptr_param(DType::I64, "out", true),
        c::ptr_param(dtype, "x", false),
    ];
    let (less, equal) = if dtype.is_float() {
        (
            "((a < b) || (a == a && b != b))",
            "((a == b) || (a != a && b != b))",
        )
    } else {
        ("(a < b)", "(a == b)")
    };
    let (first, second) = if s.descending { ("v", "w") } else { ("w", "v") };
    let mut body = String::new();
    let _ = writeln!(
        body,
        "{ty} o = p / {n}, t = (p / {inner_}) % {len_}, i = p % {inner_};",
        n = ix.lit((len * inner).max(1)),
        inner_ = ix.lit(inner.max(1)),
        len_ = ix.lit(len.max(1)),
    );
    let _ = writeln!(
        body,
        "{cty} v = {};",
        c::widen(dtype, &format!("x[{} + p]", ix.lit(s.x.offset)))
    );
    let _ = writeln!(body, "{ty} rank = 0;");
    let _ = writeln!(body, "for ({ty} s = 0; s < {}; ++s) {{", ix.lit(len));
    let _ = writeln!(
        body,
        "  {cty} w = {};",
        c::widen(
            dtype,
            &format!(
                "x[{} + (o * {} + s) * {} + i]",
                ix.lit(s.x.offset),
                ix.lit(len),
                ix.lit(inner)
            )
        )
    );
    let _ = writeln!(body, "  {cty} a = {first}, b = {second};");
    let _ = writeln!(body, "  bool before = {less};");
    let _ = writeln!(body, "  if (before || ({equal} && s < t)) ++rank;");
    body.push_str("}\n");
    let _ = writeln!(
        body,
        "out[(o * {} + rank) * {} + i] = (long long)t;",
        ix.lit(len),
        ix.lit(inner)
    );
    Ok((
        c::grid_kernel(&params, numel, ix, &body),
        vec![Param::Out, Param::Input(0)],
        numel,
    ))
}
