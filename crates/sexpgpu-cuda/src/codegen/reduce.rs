//! `sum` and `max` over any axes of a contiguous input. Axes collapse into
//! alternating kept/reduced groups (as on the CPU). Many outputs: one
//! thread per output walks its elements in input order, summing floats in
//! f64 and rounding once, so results are the reference's bit for bit.
//! Few outputs over long runs: one block per output, strided f64 partial
//! sums folded by a tree in shared memory, which reorders a float sum
//! (within one f32 rounding of the reference, as the CPU's all-axes sum);
//! `max` and integer sums are exact in any order. The values folded are a
//! stored input's, or a fused chain's computed at each position
//! (`Step::FusedReduce`) by a device function the loop calls.

use std::fmt::Write;

use sexpgpu_graph::{DType, ReduceOp};

use super::c::{self, Index};
use super::fused::Element;
use super::{GenError, Param, Shape, BLOCK};

/// Outputs below which a long reduction gets a block per output.
const FEW_OUTPUTS: usize = 1024;
/// Elements per output above which a block per output pays off.
const LONG_RUN: usize = 2048;

/// `(length, reduced)` groups, dims of 1 dropped, neighbours merged.
fn groups(dims: &[usize], axes: &[usize]) -> Vec<(usize, bool)> {
    let mut out: Vec<(usize, bool)> = Vec::new();
    for (a, &d) in dims.iter().enumerate() {
        if d == 1 {
            continue;
        }
        let reduced = axes.contains(&a);
        match out.last_mut() {
            Some((len, r)) if *r == reduced => *len *= d,
            _ => out.push((d, reduced)),
        }
    }
    out
}

/// The accumulator's C type, start value, step and final store.
struct Acc {
    ty: &'static str,
    init: String,
    /// `acc = add(acc, X)` with `X` the widened element or another
    /// accumulator (the casts in it are then no-ops).
    add: &'static str,
    /// The output element from `acc`.
    store: String,
}

fn acc(op: ReduceOp, dtype: DType) -> Result<Acc, GenError> {
    let float = |x: &str| match dtype {
        DType::BF16 => format!("sx_bf16_bits(sx_round_bf16({x}))"),
        _ => x.to_string(),
    };
    Ok(match (op, dtype) {
        (ReduceOp::Sum, DType::F32 | DType::BF16) => Acc {
            ty: "double",
            init: "0.0".into(),
            add: "acc + (double)X",
            store: float("(float)acc"),
        },
        (ReduceOp::Max, DType::F32 | DType::BF16) => Acc {
            ty: "float",
            init: "SX_NEG_INF".into(),
            add: "sx_max(acc, X)",
            store: float("acc"),
        },
        (ReduceOp::Sum, DType::I32 | DType::I64) => Acc {
            ty: "long long",
            init: "0LL".into(),
            add: "sx_wadd(acc, (long long)X)",
            store: narrow_int(dtype),
        },
        (ReduceOp::Max, DType::I32 | DType::I64) => Acc {
            ty: "long long",
            init: c::i64_lit(i64::MIN),
            add: "((long long)X > acc ? (long long)X : acc)",
            store: narrow_int(dtype),
        },
        (_, DType::Bool) => {
            return Err(GenError::new(format!(
                "{}: expects a float or integer tensor, got bool",
                op.name()
            )))
        }
    })
}

impl Acc {
    fn add(&self, x: &str) -> String {
        self.add.replace('X', x)
    }
}

fn narrow_int(dtype: DType) -> String {
    match dtype {
        DType::I32 => "(int)(unsigned)(unsigned long long)acc".into(),
        _ => "acc".into(),
    }
}

/// The input index of kept position `o` and reduced position `r`.
fn input_index(groups: &[(usize, bool)], offset: usize, ix: Index) -> String {
    let mut terms = vec![ix.lit(offset)];
    let mut stride = 1usize;
    let (mut kept_inner, mut red_inner) = (1usize, 1usize);
    for &(len, reduced) in groups.iter().rev() {
        let (var, inner) = if reduced {
            ("r", &mut red_inner)
        } else {
            ("o", &mut kept_inner)
        };
        terms.push(format!(
            "({var} / {} % {}) * {}",
            ix.lit(*inner),
            ix.lit(len),
            ix.lit(stride)
        ));
        *inner *= len;
        stride *= len;
    }
    terms.join(" + ")
}

/// What a reduction folds: a contiguous input from `offset`, or the values
/// of a fused chain computed at each position (never stored).
pub enum Values<'e> {
    Stored { offset: usize },
    Fused(&'e Element, usize),
}

/// A device function computing a fused chain's value at position `p`, and
/// how the kernel calls it on index `at`.
fn value_function(e: &Element, ix: Index, dtype: DType) -> (String, String) {
    let ty = ix.ty();
    let mut f = format!(
        "__device__ __forceinline__ {} sx_value({ty} p{}{}) {{\n",
        c::compute(dtype),
        if e.params.is_empty() { "" } else { ", " },
        e.params.join(", ")
    );
    for line in e.body.lines() {
        let _ = writeln!(f, "  {line}");
    }
    let _ = writeln!(f, "  return {};\n}}\n", e.result);
    let names: Vec<&str> = e
        .params
        .iter()
        .filter_map(|p| p.rsplit(' ').next())
        .collect();
    let call = format!(
        "sx_value(AT{}{})",
        if names.is_empty() { "" } else { ", " },
        names.join(", ")
    );
    (f, call)
}

pub fn generate(
    op: ReduceOp,
    values: Values<'_>,
    dims: &[usize],
    axes: &[usize],
    dtype: DType,
) -> Result<(String, Vec<Param>, Shape), GenError> {
    let groups = groups(dims, axes);
    let numel: usize = dims.iter().product();
    let outputs: usize = groups.iter().filter(|g| !g.1).map(|g| g.0).product();
    let run: usize = groups.iter().filter(|g| g.1).map(|g| g.0).product();
    let a = acc(op, dtype)?;
    let mut params = vec![c::ptr_param(dtype, "out", true)];
    let mut order = vec![Param::Out];
    let (ix, x, prefix) = match values {
        Values::Stored { offset } => {
            let ix = Index::for_extent(offset + numel.max(1));
            params.push(c::ptr_param(dtype, "in0", false));
            order.push(Param::Input(0));
            let at = input_index(&groups, offset, ix);
            (ix, c::widen(dtype, &format!("in0[{at}]")), String::new())
        }
        Values::Fused(element, largest) => {
            let ix = Index::for_extent(largest.max(numel.max(1)));
            params.extend(element.params.iter().cloned());
            order.extend(element.order.iter().copied());
            let (function, call) = value_function(element, ix, dtype);
            let at = input_index(&groups, 0, ix);
            (ix, call.replace("AT", &at), function)
        }
    };
    let ty = ix.ty();
    if outputs < FEW_OUTPUTS && run >= LONG_RUN {
        let body = block_body(&a, &x, dtype, outputs, run, ix);
        let text = format!(
            "{prefix}extern \"C\" __global__ void KERNEL({}) {{\n{body}}}\n",
            params.join(", ")
        );
        return Ok((text, order, Shape::BlockPerOutput { n: outputs }));
    }
    let mut body = String::new();
    let _ = writeln!(body, "{ty} o = p;");
    let _ = writeln!(body, "{} acc = {};", a.ty, a.init);
    let _ = writeln!(body, "for ({ty} r = 0; r < {}; ++r) {{", ix.lit(run));
    let _ = writeln!(body, "  {} x = {x};", c::compute(dtype));
    let _ = writeln!(body, "  acc = {};", a.add("x"));
    body.push_str("}\n");
    let _ = writeln!(body, "out[o] = {};", a.store);
    Ok((
        prefix + &c::grid_kernel(&params, outputs, ix, &body),
        order,
        Shape::Grid { n: outputs },
    ))
}

/// One block per output: strided partials, then a tree in shared memory.
fn block_body(a: &Acc, x: &str, dtype: DType, outputs: usize, run: usize, ix: Index) -> String {
    let ty = ix.ty();
    let mut s = String::new();
    let _ = writeln!(s, "  __shared__ {} part[{BLOCK}];", a.ty);
    let _ = writeln!(s, "  {ty} o = blockIdx.x;");
    let _ = writeln!(s, "  if (o >= {}) return;", ix.lit(outputs));
    let _ = writeln!(s, "  {} acc = {};", a.ty, a.init);
    let _ = writeln!(
        s,
        "  for ({ty} r = threadIdx.x; r < {}; r += {BLOCK}u) {{",
        ix.lit(run)
    );
    let _ = writeln!(s, "    {} x = {x};", c::compute(dtype));
    let _ = writeln!(s, "    acc = {};", a.add("x"));
    s.push_str("  }\n  part[threadIdx.x] = acc;\n  __syncthreads();\n");
    let _ = writeln!(s, "  for (unsigned h = {}u; h > 0u; h >>= 1) {{", BLOCK / 2);
    s.push_str("    if (threadIdx.x < h) {\n      acc = part[threadIdx.x];\n");
    let _ = writeln!(
        s,
        "      part[threadIdx.x] = {};",
        a.add("part[threadIdx.x + h]")
    );
    s.push_str("    }\n    __syncthreads();\n  }\n");
    let _ = writeln!(
        s,
        "  if (threadIdx.x == 0) {{\n    acc = part[0];\n    out[o] = {};\n  }}",
        a.store
    );
    s
}
