//! `sum` and `max` over any axes of a contiguous input. Axes collapse into
//! alternating kept/reduced groups (as on the CPU), and the layout of the
//! groups picks how threads share the work (`Layout`), so that a warp's
//! loads are adjacent in memory: rows (the innermost group reduced) get a
//! warp per output, or a block per output when few and long; columns (the
//! innermost group kept) get a tile of 32 adjacent outputs by 8 slices of
//! the run, or 32 slices of a long run (blocks of 1024 threads: a bias's
//! gradient over 8,192 tokens has only a tile per 32 columns, so each
//! thread must walk few rows); short runs get a thread per output, walking
//! its elements in input order. Floats are summed in f64 and rounded once, so a thread per
//! output is the reference's bit for bit; the cooperative layouts fold f64
//! partials in another order, within one f32 rounding of the reference
//! (as the CPU's all-axes sum), while `max` and integer sums are exact in
//! any order. The values folded are a stored input's, or a fused chain's
//! computed at each position (`Step::FusedReduce`) by a device function
//! the loop calls.

use std::fmt::Write;

use sexpgpu_compile::reduction_groups;
use sexpgpu_graph::{DType, ReduceOp};

use super::c::{self, Index};
use super::fused::Element;
use super::{GenError, Param, Shape, BLOCK, TILE_THREADS};

/// Outputs below which a long row reduction gets a block per output.
const FEW_OUTPUTS: usize = 1024;
/// Elements per output above which a block per output pays off.
const LONG_RUN: usize = 2048;
/// Elements per output below which threads do not share an output.
const SHORT_RUN: usize = 32;
/// Threads of a warp: the lanes of a row's warp, the columns of a tile.
const WARP: u32 = 32;
/// Outputs from which columns have threads enough with one per output.
const MANY_OUTPUTS: usize = 1 << 16;
/// A column tile's run from which its block has 32 slices, not 8.
const LONG_COLUMNS: usize = 2048;

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

/// How a reduction's work is shared among threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// A thread per output walks its run in order (bit-exact floats).
    PerThread,
    /// A warp per output: lanes stride the run, a shuffle tree folds.
    PerWarp,
    /// A block per output: threads stride the run, shared memory folds.
    PerBlock,
    /// 32 adjacent outputs by 8 slices of the run, folded in shared memory.
    Tile,
}

/// The layout whose loads are adjacent across a warp and which keeps the
/// GPU busy: what varies fastest in memory (the innermost group) decides
/// whether lanes take elements of one output or neighbouring outputs.
fn layout(groups: &[(usize, bool)], outputs: usize, run: usize) -> Layout {
    let long_and_few = outputs < FEW_OUTPUTS && run >= LONG_RUN;
    match groups.last() {
        _ if run < SHORT_RUN => Layout::PerThread,
        Some(&(_, true)) if long_and_few => Layout::PerBlock,
        Some(&(_, true)) => Layout::PerWarp,
        _ if outputs >= MANY_OUTPUTS => Layout::PerThread,
        Some(&(inner, false)) if inner >= WARP as usize => Layout::Tile,
        _ if long_and_few => Layout::PerBlock,
        _ => Layout::PerThread,
    }
}

/// A reduction kernel's text, runtime arguments and launch shape.
pub fn generate(
    op: ReduceOp,
    values: Values<'_>,
    dims: &[usize],
    axes: &[usize],
    dtype: DType,
) -> Result<(String, Vec<Param>, Shape), GenError> {
    let groups = reduction_groups(dims, axes);
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
    let fold = Fold {
        a: &a,
        x: &x,
        dtype,
        outputs,
        run,
        ix,
    };
    let warps = (BLOCK / WARP) as usize;
    let (body, blocks, threads) = match layout(&groups, outputs, run) {
        Layout::PerThread => {
            let text = c::grid_kernel(&params, outputs, ix, &fold.per_thread());
            return Ok((prefix + &text, order, Shape::Grid { n: outputs }));
        }
        Layout::PerWarp => (fold.per_warp(), outputs.div_ceil(warps), BLOCK),
        Layout::PerBlock => (fold.per_block(), outputs, BLOCK),
        Layout::Tile => {
            let threads = if run >= LONG_COLUMNS {
                TILE_THREADS
            } else {
                BLOCK
            };
            (fold.tile(threads), outputs.div_ceil(WARP as usize), threads)
        }
    };
    // Blocks above 256 threads promise their size, so that ptxas keeps
    // each thread within the registers a full block may take.
    let bounds = if threads > BLOCK {
        format!("__launch_bounds__({threads}) ")
    } else {
        String::new()
    };
    let text = format!(
        "{prefix}extern \"C\" __global__ void {bounds}KERNEL({}) {{\n{body}}}\n",
        params.join(", ")
    );
    Ok((text, order, Shape::Blocks { n: blocks, threads }))
}

/// What every layout's kernel body is made of: the accumulator, the value
/// at `(o, r)` as an expression, and the extents.
struct Fold<'a> {
    a: &'a Acc,
    x: &'a str,
    dtype: DType,
    outputs: usize,
    run: usize,
    ix: Index,
}

impl Fold<'_> {
    /// `acc` starts empty; the loop folds elements `first, first + step, ...`
    /// of output `o`'s run (indented by `pad`). Unrolled by 8, so a thread
    /// issues the loads of 8 elements before it adds the first (the adds
    /// stay in order): one load at a time left a warp per row of GPT-2's
    /// logits reading at about 1 TB/s.
    fn strided(&self, first: &str, step: &str, pad: &str) -> String {
        let ty = self.ix.ty();
        let mut s = String::new();
        let _ = writeln!(s, "{pad}#pragma unroll 8");
        let _ = writeln!(
            s,
            "{pad}for ({ty} r = {first}; r < {}; r += {step}) {{",
            self.ix.lit(self.run)
        );
        let _ = writeln!(s, "{pad}  {} x = {};", c::compute(self.dtype), self.x);
        let _ = writeln!(s, "{pad}  acc = {};", self.a.add("x"));
        let _ = writeln!(s, "{pad}}}");
        s
    }

    /// The body of a grid-stride loop over outputs `p`: the run in order.
    fn per_thread(&self) -> String {
        let ty = self.ix.ty();
        let mut s = String::new();
        let _ = writeln!(s, "{ty} o = p;");
        let _ = writeln!(s, "{} acc = {};", self.a.ty, self.a.init);
        s.push_str(&self.strided("0", "1", ""));
        let _ = writeln!(s, "out[o] = {};", self.a.store);
        s
    }

    /// Warp `w` of block `b` takes output `b * 8 + w`; its lanes stride the
    /// run (adjacent lanes, adjacent elements), then fold their partials
    /// with five shuffles, which every lane takes part in.
    fn per_warp(&self) -> String {
        let ty = self.ix.ty();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "  {ty} o = ({ty})blockIdx.x * {}u + threadIdx.x / {WARP}u;",
            BLOCK / WARP
        );
        let _ = writeln!(s, "  unsigned lane = threadIdx.x % {WARP}u;");
        let _ = writeln!(s, "  {} acc = {};", self.a.ty, self.a.init);
        let _ = writeln!(s, "  if (o < {}) {{", self.ix.lit(self.outputs));
        s.push_str(&self.strided("lane", &format!("{WARP}u"), "    "));
        s.push_str("  }\n");
        let _ = writeln!(s, "  for (int m = {}; m > 0; m >>= 1) {{", WARP / 2);
        let _ = writeln!(
            s,
            "    {} other = __shfl_xor_sync(0xffffffffu, acc, m);",
            self.a.ty
        );
        let _ = writeln!(s, "    acc = {};", self.a.add("other"));
        s.push_str("  }\n");
        let _ = writeln!(
            s,
            "  if (lane == 0u && o < {}) out[o] = {};",
            self.ix.lit(self.outputs),
            self.a.store
        );
        s
    }

    /// Block `b` takes output `b`: strided partials, then a tree in shared
    /// memory.
    fn per_block(&self) -> String {
        let ty = self.ix.ty();
        let mut s = String::new();
        let _ = writeln!(s, "  __shared__ {} part[{BLOCK}];", self.a.ty);
        let _ = writeln!(s, "  {ty} o = blockIdx.x;");
        let _ = writeln!(s, "  if (o >= {}) return;", self.ix.lit(self.outputs));
        let _ = writeln!(s, "  {} acc = {};", self.a.ty, self.a.init);
        s.push_str(&self.strided("threadIdx.x", &format!("{BLOCK}u"), "  "));
        s.push_str("  part[threadIdx.x] = acc;\n  __syncthreads();\n");
        let _ = writeln!(s, "  for (unsigned h = {}u; h > 0u; h >>= 1) {{", BLOCK / 2);
        s.push_str("    if (threadIdx.x < h) {\n      acc = part[threadIdx.x];\n");
        let _ = writeln!(
            s,
            "      part[threadIdx.x] = {};",
            self.a.add("part[threadIdx.x + h]")
        );
        s.push_str("    }\n    __syncthreads();\n  }\n");
        let _ = writeln!(
            s,
            "  if (threadIdx.x == 0) {{\n    acc = part[0];\n    out[o] = {};\n  }}",
            self.a.store
        );
        s
    }

    /// Block `b` of `threads` takes outputs `32b ..`: lane `l` of warp `w`
    /// folds output `32b + l` over run positions `w, w + S, ...` with `S`
    /// the block's warps (adjacent lanes read adjacent columns), then warp 0
    /// adds the `S` partials in slice order.
    fn tile(&self, threads: u32) -> String {
        let ty = self.ix.ty();
        let slices = threads / WARP;
        let mut s = String::new();
        let _ = writeln!(s, "  __shared__ {} part[{threads}];", self.a.ty);
        let _ = writeln!(
            s,
            "  unsigned lane = threadIdx.x % {WARP}u, slice = threadIdx.x / {WARP}u;"
        );
        let _ = writeln!(s, "  {ty} o = ({ty})blockIdx.x * {WARP}u + lane;");
        let _ = writeln!(s, "  {} acc = {};", self.a.ty, self.a.init);
        let _ = writeln!(s, "  if (o < {}) {{", self.ix.lit(self.outputs));
        s.push_str(&self.strided("slice", &format!("{slices}u"), "    "));
        s.push_str("  }\n  part[threadIdx.x] = acc;\n  __syncthreads();\n");
        let _ = writeln!(
            s,
            "  if (slice == 0u && o < {}) {{",
            self.ix.lit(self.outputs)
        );
        let _ = writeln!(s, "    for (unsigned k = 1u; k < {slices}u; ++k) {{");
        let _ = writeln!(
            s,
            "      acc = {};",
            self.a.add(&format!("part[k * {WARP}u + lane]"))
        );
        s.push_str("    }\n");
        let _ = writeln!(s, "    out[o] = {};\n  }}", self.a.store);
        s
    }
}
