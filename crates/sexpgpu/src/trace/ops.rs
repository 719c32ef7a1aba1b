//! The tensor operations (`docs/sexpgpu/operations.md`) as one table, `OPS`:
//! each name written once, with what its arguments take (a `Spec`: the
//! parsing, keyword defaults and the graph builder it calls), and its
//! summary, read by the registration and the docs' list alike. The few
//! operations no spec describes (`concat`'s vector of parts, the host
//! queries `shape` `rank` ...) keep a handler. The elementwise ones and
//! the tensor side of host arithmetic are `overload`'s. Shape and dtype
//! rules belong to the graph crate.

use super::args::{self, int_of, OpCall, MAX_ELEMENTS};
use super::overload::{arith, elementwise_pair, unary, TENSORS_ONLY};
use super::record::{record, record_named, Built, Nodes};
use super::spec::{
    kw, run, spec, Args, Build, BuildOne, BuildTwo, Keyword, Param,
    Param::{Float as F, Int as I, Operand as O, Shape as S, Tensor as T},
    Spec, Unset,
};
use crate::codes;
use crate::eval::{arity, wrong_type, EvalResult, Flow, Interp, Primitive, Site};
use crate::value::{short, Value};
use diag::Diagnostic;
use sexpgpu_graph::{BinaryOp, DType, Graph, NodeId, OpError, ReduceOp, ScatterReduce, UnaryOp};

/// One tensor operation: its name (written here and nowhere else), how it
/// is traced and its summary in the docs' list
/// (`docs/sexpgpu/operations.md`, kept in step by a test).
pub struct Op {
    pub name: &'static str,
    pub summary: &'static str,
    run: Run,
}

/// A handler written by hand, given its table entry.
pub(super) type Handler = fn(&mut Interp, &Op, &Site, Vec<Value>) -> EvalResult;

/// What a name means when its arguments are not its `Spec`'s tensors: the
/// host's meaning (`sum` of a list, `max` of numbers), or its `Spec`'s.
pub(super) enum Meaning {
    Done(EvalResult),
    Traced(Vec<Value>),
}

/// How an operation is traced.
pub(super) enum Run {
    /// Elementwise on one tensor; the text says what to write for a number.
    Unary(UnaryOp, &'static str),
    /// Elementwise on two operands, tensors or numbers.
    Binary(BinaryOp),
    /// As its spec describes.
    Spec(Spec),
    /// A host meaning first (`sum` of a list), else as its `Spec` describes.
    HostOr(fn(&mut Interp, &Op, &Site, Vec<Value>) -> Meaning, Spec),
    /// A hand-written handler, with the keywords it takes.
    Handler(Handler, &'static [&'static str]),
}

pub(super) const fn op(name: &'static str, run: Run, summary: &'static str) -> Op {
    Op { name, summary, run }
}

impl Op {
    /// The keywords the operation takes, in the docs' order.
    pub fn keywords(&self) -> Vec<&'static str> {
        match &self.run {
            Run::Spec(spec) | Run::HostOr(_, spec) => {
                spec.keywords.iter().map(|k| k.name).collect()
            }
            Run::Handler(_, keywords) => keywords.to_vec(),
            Run::Unary(..) | Run::Binary(_) => Vec::new(),
        }
    }
}

/// `Run::Spec` of one result.
const fn one(params: &'static [Param], keywords: &'static [Keyword], build: BuildOne) -> Run {
    Run::Spec(spec(params, keywords, Build::One(build)))
}

/// `Run::Spec` of two results, returned as a vector.
const fn two(params: &'static [Param], keywords: &'static [Keyword], build: BuildTwo) -> Run {
    Run::Spec(spec(params, keywords, Build::Two(build)))
}

/// `run` (a `Spec`'s) after a host meaning.
const fn host_or(host: fn(&mut Interp, &Op, &Site, Vec<Value>) -> Meaning, run: Run) -> Run {
    match run {
        Run::Spec(spec) => Run::HostOr(host, spec),
        other => other,
    }
}

const AXES: Keyword = kw("axes", Param::Axes, Unset::Absent);
const KEEPDIMS: Keyword = kw("keepdims", Param::Bool, Unset::Bool(false));
const REDUCE: &[Keyword] = &[AXES, KEEPDIMS];
/// `:axis`, the last by default.
const AXIS: Keyword = kw("axis", I, Unset::Int(-1));
const SCAN: &[Keyword] = &[AXIS, kw("reverse", Param::Bool, Unset::Bool(false))];
const SORT: &[Keyword] = &[AXIS, kw("descending", Param::Bool, Unset::Bool(false))];
const F32: Keyword = kw("dtype", Param::DType, Unset::DType(DType::F32));

/// Every tensor operation, in registration order.
pub static OPS: &[Op] = &[
    op(
        "neg",
        Run::Unary(
            UnaryOp::Neg,
            "it also takes a plain number: `(neg 2)` is -2",
        ),
        "elementwise negation",
    ),
    op(
        "abs",
        Run::Unary(
            UnaryOp::Abs,
            "it also takes a plain number: `(abs -1.5)` is 1.5",
        ),
        "elementwise absolute value",
    ),
    op(
        "rsqrt",
        Run::Unary(UnaryOp::Rsqrt, TENSORS_ONLY),
        "elementwise 1 / sqrt",
    ),
    op(
        "sin",
        Run::Unary(UnaryOp::Sin, TENSORS_ONLY),
        "elementwise sine",
    ),
    op(
        "cos",
        Run::Unary(UnaryOp::Cos, TENSORS_ONLY),
        "elementwise cosine",
    ),
    op(
        "tanh",
        Run::Unary(UnaryOp::Tanh, TENSORS_ONLY),
        "elementwise hyperbolic tangent",
    ),
    op(
        "acos",
        Run::Unary(UnaryOp::Acos, TENSORS_ONLY),
        "elementwise arc cosine",
    ),
    op(
        "asin",
        Run::Unary(UnaryOp::Asin, TENSORS_ONLY),
        "elementwise arc sine",
    ),
    op(
        "sigmoid",
        Run::Unary(UnaryOp::Sigmoid, TENSORS_ONLY),
        "elementwise logistic sigmoid `1 / (1 + exp(-x))`",
    ),
    op(
        "softplus",
        Run::Unary(UnaryOp::Softplus, TENSORS_ONLY),
        "elementwise `log(1 + exp(x))`, computed stably",
    ),
    op(
        "log1p",
        Run::Unary(UnaryOp::Log1p, TENSORS_ONLY),
        "elementwise `log(1 + x)`, exact near 0",
    ),
    op(
        "expm1",
        Run::Unary(UnaryOp::Expm1, TENSORS_ONLY),
        "elementwise `exp(x) - 1`, exact near 0",
    ),
    op(
        "erf",
        Run::Unary(UnaryOp::Erf, TENSORS_ONLY),
        "elementwise error function",
    ),
    op(
        "sinh",
        Run::Unary(UnaryOp::Sinh, TENSORS_ONLY),
        "elementwise hyperbolic sine",
    ),
    op(
        "cosh",
        Run::Unary(UnaryOp::Cosh, TENSORS_ONLY),
        "elementwise hyperbolic cosine",
    ),
    op(
        "tan",
        Run::Unary(UnaryOp::Tan, TENSORS_ONLY),
        "elementwise tangent",
    ),
    op(
        "atan",
        Run::Unary(UnaryOp::Atan, TENSORS_ONLY),
        "elementwise arc tangent",
    ),
    op(
        "asinh",
        Run::Unary(UnaryOp::Asinh, TENSORS_ONLY),
        "elementwise inverse hyperbolic sine",
    ),
    op(
        "acosh",
        Run::Unary(UnaryOp::Acosh, TENSORS_ONLY),
        "elementwise inverse hyperbolic cosine",
    ),
    op(
        "atanh",
        Run::Unary(UnaryOp::Atanh, TENSORS_ONLY),
        "elementwise inverse hyperbolic tangent",
    ),
    op(
        "log2",
        Run::Unary(UnaryOp::Log2, TENSORS_ONLY),
        "elementwise base-2 logarithm",
    ),
    op(
        "exp2",
        Run::Unary(UnaryOp::Exp2, TENSORS_ONLY),
        "elementwise `2^x`",
    ),
    op(
        "log10",
        Run::Unary(UnaryOp::Log10, TENSORS_ONLY),
        "elementwise base-10 logarithm",
    ),
    op(
        "trunc",
        Run::Unary(UnaryOp::Trunc, TENSORS_ONLY),
        "elementwise rounding toward zero (integers unchanged)",
    ),
    op(
        "sign",
        Run::Unary(UnaryOp::Sign, TENSORS_ONLY),
        "elementwise -1, 0 or 1 (0 for NaN, as PyTorch)",
    ),
    op(
        "stop-gradient",
        Run::Unary(UnaryOp::StopGradient, TENSORS_ONLY),
        "the value unchanged, with no gradient through it (JAX's `stop_gradient`)",
    ),
    op(
        "floor-div",
        Run::Binary(BinaryOp::FloorDiv),
        "elementwise division rounded down (PyTorch's `floor_divide`)",
    ),
    op(
        "bit-and",
        Run::Binary(BinaryOp::BitAnd),
        "elementwise bitwise and of integer or bool tensors",
    ),
    op(
        "bit-or",
        Run::Binary(BinaryOp::BitOr),
        "elementwise bitwise or of integer or bool tensors",
    ),
    op(
        "bit-xor",
        Run::Binary(BinaryOp::BitXor),
        "elementwise bitwise exclusive or of integer or bool tensors",
    ),
    op(
        "shift-left",
        Run::Binary(BinaryOp::ShiftLeft),
        "elementwise `a << b` of integer tensors",
    ),
    op(
        "shift-right",
        Run::Binary(BinaryOp::ShiftRight),
        "elementwise `a >> b` of integer tensors, filling with the sign",
    ),
    op(
        "atan2",
        Run::Binary(BinaryOp::Atan2),
        "elementwise `atan2 y x`",
    ),
    op(
        "copysign",
        Run::Binary(BinaryOp::CopySign),
        "elementwise `|a|` with the sign of `b` (PyTorch's `copysign`)",
    ),
    op(
        "logaddexp",
        one(&[O, O], &[], |g, a| {
            g.logaddexp(a.operand(0)?, a.operand(1)?)
        }),
        "elementwise `log(exp a + exp b)` without overflow (PyTorch's `logaddexp`; the same \
         infinity twice gives it)",
    ),
    op(
        "maximum",
        Run::Binary(BinaryOp::Maximum),
        "elementwise maximum of two operands (on `bool`, or)",
    ),
    op(
        "minimum",
        Run::Binary(BinaryOp::Minimum),
        "elementwise minimum of two operands (on `bool`, and)",
    ),
    op(
        "clip",
        one(&[T, O, O], &[], |g, a| {
            g.clip(a.node(0)?, a.operand(1)?, a.operand(2)?)
        }),
        "`(clip x lo hi)`: `x` limited to [`lo`, `hi`] (PyTorch's `clamp`)",
    ),
    op(
        "lerp",
        one(&[T, O, O], &[], |g, a| {
            g.lerp(a.node(0)?, a.operand(1)?, a.operand(2)?)
        }),
        "`(lerp a b w)`: `a + w (b - a)`",
    ),
    op(
        "isnan",
        one(&[T], &[], |g, a| g.float_test("isnan", a.node(0)?)),
        "elementwise: is the element NaN (`bool`)",
    ),
    op(
        "isinf",
        one(&[T], &[], |g, a| g.float_test("isinf", a.node(0)?)),
        "elementwise: is the element infinite (`bool`)",
    ),
    op(
        "isfinite",
        one(&[T], &[], |g, a| g.float_test("isfinite", a.node(0)?)),
        "elementwise: is the element neither NaN nor infinite (`bool`)",
    ),
    op(
        "logical-not",
        one(&[T], &[], |g, a| g.logical_not(a.node(0)?)),
        "elementwise negation of a `bool` tensor",
    ),
    op(
        "bit-not",
        one(&[T], &[], |g, a| g.bit_not(a.node(0)?)),
        "elementwise bitwise complement of an integer (or `bool`) tensor",
    ),
    op(
        "where",
        one(&[T, O, O], &[], |g, a| {
            g.where_(a.node(0)?, a.operand(1)?, a.operand(2)?)
        }),
        "`(where mask a b)`: `a` where the mask holds, else `b`",
    ),
    op(
        "sum",
        host_or(
            sum_of_list,
            one(&[T], REDUCE, |g, a| reduce(g, ReduceOp::Sum, a)),
        ),
        "sum over `:axes` (all by default); of a list, its numbers' sum",
    ),
    op(
        "max",
        host_or(
            extreme,
            one(&[T], REDUCE, |g, a| reduce(g, ReduceOp::Max, a)),
        ),
        "maximum over `:axes` of one tensor (`any` on `bool`); elementwise of several; of numbers",
    ),
    op(
        "min",
        host_or(
            extreme,
            one(&[T], REDUCE, |g, a| {
                g.reduce_min(a.node(0)?, a.axes("axes")?, a.bool("keepdims")?)
            }),
        ),
        "minimum over `:axes` of one tensor (`all` on `bool`); elementwise of several; of numbers",
    ),
    op(
        "argmax",
        one(&[T], REDUCE, |g, a| {
            g.arg_extreme(true, a.node(0)?, a.axes("axes")?, a.bool("keepdims")?)
        }),
        "`i64` index of the first largest element over `:axes` (of the flattened tensor by \
         default)",
    ),
    op(
        "argmin",
        one(&[T], REDUCE, |g, a| {
            g.arg_extreme(false, a.node(0)?, a.axes("axes")?, a.bool("keepdims")?)
        }),
        "`i64` index of the first smallest element over `:axes` (of the flattened tensor by \
         default)",
    ),
    op(
        "any",
        one(&[T], REDUCE, |g, a| {
            g.any_all(false, a.node(0)?, a.axes("axes")?, a.bool("keepdims")?)
        }),
        "whether any element over `:axes` is non-zero (`bool`)",
    ),
    op(
        "all",
        one(&[T], REDUCE, |g, a| {
            g.any_all(true, a.node(0)?, a.axes("axes")?, a.bool("keepdims")?)
        }),
        "whether every element over `:axes` is non-zero (`bool`)",
    ),
    op(
        "var",
        one(&[T], VARIANCE, |g, a| variance(g, false, a)),
        "variance over `:axes`, divided by `n - :correction` (0 by default: the population \
         variance, as NumPy and `nn/var`)",
    ),
    op(
        "std",
        one(&[T], VARIANCE, |g, a| variance(g, true, a)),
        "standard deviation: the square root of `var`",
    ),
    op(
        "one-hot",
        one(&[T, I], &[F32], |g, a| {
            g.one_hot(a.node(0)?, a.int(1)?, a.dtype("dtype")?)
        }),
        "`(one-hot ids n)`: a new last axis of `n` classes, 1 at each id (`:f32` by default)",
    ),
    op(
        "reshape",
        one(
            &[T, Param::Ints("a shape (a vector of integers)")],
            &[],
            |g, a| reshape_to(g, a.node(0)?, "reshape", a.ints(1)?),
        ),
        "the same elements in a new shape",
    ),
    op(
        "broadcast-to",
        one(&[T, S], &[], |g, a| g.broadcast_to(a.node(0)?, a.shape(1)?)),
        "NumPy broadcasting to a shape",
    ),
    op(
        "transpose",
        one(
            &[T, Param::Ints("a permutation (a vector of axes)")],
            &[],
            |g, a| g.transpose(a.node(0)?, a.ints(1)?),
        ),
        "axes permuted",
    ),
    op(
        "slice",
        Run::Spec(Spec {
            params: &[T, I, I, I, I],
            required: 4,
            keywords: &[],
            build: Build::One(|g, a| {
                let step = a.opt(4, Args::int)?.unwrap_or(1);
                g.slice_step(a.node(0)?, a.int(1)?, (a.int(2)?, a.int(3)?, step))
            }),
        }),
        "`(slice x axis start stop)`; `(slice x axis start stop step)` takes every `step`-th, \
         downwards when negative",
    ),
    op(
        "flip",
        one(&[T, Param::IntOrInts("a vector of axes")], &[], |g, a| {
            g.flip(a.node(0)?, a.ints(1)?)
        }),
        "`(flip x [axes..])`: the order along the axes reversed",
    ),
    op(
        "roll",
        one(
            &[T, I],
            &[kw("axis", Param::IntOrNil, Unset::Absent)],
            |g, a| g.roll(a.node(0)?, a.int(1)?, a.opt("axis", Args::int)?),
        ),
        "`(roll x shift)`: elements moved `shift` places along `:axis` (the flattened tensor \
         by default), wrapping around",
    ),
    op(
        "tril",
        one(&[T], &[DIAGONAL], |g, a| {
            g.triangle(false, a.node(0)?, a.int("diagonal")?)
        }),
        "the lower triangle of the last two axes (`col - row <= :diagonal`), zeros above",
    ),
    op(
        "triu",
        one(&[T], &[DIAGONAL], |g, a| {
            g.triangle(true, a.node(0)?, a.int("diagonal")?)
        }),
        "the upper triangle of the last two axes (`col - row >= :diagonal`), zeros below",
    ),
    op(
        "diagonal",
        one(&[T], DIAGONALS, |g, a| {
            let axes = (a.int("axis1")?, a.int("axis2")?);
            g.diagonal(a.node(0)?, a.int("offset")?, axes.0, axes.1)
        }),
        "the diagonal `x[.., i, .., i + :offset, ..]` of axes `:axis1` (0) and `:axis2` (1), as \
         a new last axis (PyTorch's `diagonal`)",
    ),
    op(
        "diag",
        one(&[T], &[DIAGONAL], |g, a| {
            g.diag(a.node(0)?, a.int("diagonal")?)
        }),
        "of a vector, the square matrix with it on diagonal `:diagonal`; of a matrix, that \
         diagonal (PyTorch's `diag`)",
    ),
    op(
        "repeat-interleave",
        one(
            &[T, Param::IntOrInts("a count or a vector of counts")],
            &[kw("axis", Param::IntOrNil, Unset::Absent)],
            |g, a| {
                let axis = a.opt("axis", Args::int)?;
                g.repeat_interleave(a.node(0)?, a.ints(1)?, axis)
            },
        ),
        "`(repeat-interleave x r)`: each element repeated `r` times (or `r[i]` times, a vector \
         of counts) along `:axis` (the flattened tensor by default)",
    ),
    op(
        "repeat",
        host_or(
            count_first,
            one(&[T, Param::Ints("a vector of counts")], &[], |g, a| {
                g.repeat(a.node(0)?, a.ints(1)?)
            }),
        ),
        "`(repeat x [r0 r1 ..])`: `x` tiled `r` times along each axis (PyTorch's \
         `Tensor.repeat`); `(repeat n x)`, Clojure's",
    ),
    op(
        "unfold",
        one(&[T, I, I, I], &[], |g, a| {
            g.unfold(a.node(0)?, a.int(1)?, a.int(2)?, a.int(3)?)
        }),
        "`(unfold x axis size step)`: sliding windows along an axis, as a new last axis",
    ),
    op(
        "concat",
        Run::Handler(concat, &[]),
        "`(concat axis [a b ...])`; on lists, Clojure's `concat`",
    ),
    op(
        "matmul",
        one(&[T, T], &[], |g, a| g.matmul(a.node(0)?, a.node(1)?)),
        "matrix product, batched over leading axes",
    ),
    op(
        "index",
        Run::Handler(index, &["axes"]),
        "`(index table ids)`: rows of a table; `(index x i j ..)`: PyTorch's `x[i, j]`, index \
         tensors broadcast together on the first axes (or `:axes`)",
    ),
    op(
        "index-add",
        one(&[T, T, T], &[], |g, a| {
            g.index_add(a.node(0)?, a.node(1)?, a.node(2)?)
        }),
        "`(index-add base ids values)`: rows added into a base",
    ),
    op(
        "gather",
        one(&[T, T], &[AXIS], |g, a| {
            g.gather(a.node(0)?, a.node(1)?, a.int("axis")?)
        }),
        "elements along `:axis` chosen by an index tensor",
    ),
    op(
        "scatter-add",
        one(&[T, T, T], &[AXIS], |g, a| {
            g.scatter_add(a.node(0)?, a.node(1)?, a.node(2)?, a.int("axis")?)
        }),
        "values added along `:axis` at an index tensor",
    ),
    op(
        "scatter",
        one(&[T, T, O], &[AXIS], |g, a| {
            g.scatter(a.node(0)?, a.node(1)?, a.operand(2)?, a.int("axis")?)
        }),
        "`(scatter base idx src)`: `base` with `src` (or a number) written along `:axis` at an \
         index tensor; of repeated ids the last is kept (PyTorch's `scatter`)",
    ),
    op(
        "scatter-reduce",
        one(
            &[T, T, T, Param::Choice(ScatterReduce::NAMES)],
            &[AXIS, kw("include-self", Param::Bool, Unset::Bool(true))],
            |g, a| {
                let reduce = ScatterReduce::from_keyword(a.choice(3)?)
                    .ok_or_else(|| OpError::not_a_tensor("internal: an unknown reduction"))?;
                let how = (a.int("axis")?, reduce, a.bool("include-self")?);
                g.scatter_reduce(a.node(0)?, a.node(1)?, a.node(2)?, how)
            },
        ),
        "`(scatter-reduce base idx src :amax)`: the values sent to each position along `:axis` \
         combined by `:sum` `:prod` `:mean` `:amax` or `:amin`, with `base`'s own unless \
         `:include-self false` (PyTorch's `scatter_reduce`)",
    ),
    op(
        "linear-scan",
        one(&[O, O], LINEAR_SCAN, |g, a| {
            g.linear_scan(
                a.operand(0)?,
                a.operand(1)?,
                a.int("axis")?,
                a.bool("reverse")?,
            )
        }),
        "`h[t] = a[t] * h[t-1] + b[t]` along `:axis`",
    ),
    op(
        "scaled-dot-product-attention",
        one(&[T, T, T], ATTENTION, |g, a| {
            let scale = a.opt("scale", Args::float)?;
            g.attention(a.node(0)?, a.node(1)?, a.node(2)?, a.bool("causal")?, scale)
        }),
        "`softmax(scale q k^T) v` over the last two axes, fused: the scores are never stored \
         (`:scale` 1/sqrt(d) by default, `:causal` lets query i see keys j <= i)",
    ),
    op(
        "sort",
        host_or(
            list_sort,
            two(&[T], SORT, |g, a| {
                g.sort(a.node(0)?, a.int("axis")?, a.bool("descending")?)
            }),
        ),
        "`[values indices]`: `x` sorted along `:axis` (-1), stably, NaN last (first when \
         `:descending`); of a list, Clojure's `sort`",
    ),
    op(
        "argsort",
        one(&[T], SORT, |g, a| {
            g.argsort(a.node(0)?, a.int("axis")?, a.bool("descending")?)
        }),
        "the `i64` indices that sort `x` along `:axis` (-1)",
    ),
    op(
        "top-k",
        two(
            &[T, I],
            &[AXIS, kw("largest", Param::Bool, Unset::Bool(true))],
            |g, a| g.top_k(a.node(0)?, a.int(1)?, a.int("axis")?, a.bool("largest")?),
        ),
        "`(top-k x k)`: `[values indices]` of the `k` largest along `:axis` (-1); smallest \
         when `:largest false`",
    ),
    op(
        "prod",
        one(&[T], REDUCE, |g, a| {
            g.prod(a.node(0)?, a.axes("axes")?, a.bool("keepdims")?)
        }),
        "product over `:axes` (all by default)",
    ),
    op(
        "cumprod",
        one(&[T], SCAN, |g, a| {
            g.cumprod(a.node(0)?, a.int("axis")?, a.bool("reverse")?)
        }),
        "running products along `:axis` (-1)",
    ),
    op(
        "cummax",
        two(&[T], SCAN, |g, a| cum_extreme(g, true, a)),
        "`[values indices]`: running maxima along `:axis` (-1) and where they were found",
    ),
    op(
        "cummin",
        two(&[T], SCAN, |g, a| cum_extreme(g, false, a)),
        "`[values indices]`: running minima along `:axis` (-1) and where they were found",
    ),
    op(
        "logcumsumexp",
        one(&[T], SCAN, |g, a| {
            g.logcumsumexp(a.node(0)?, a.int("axis")?, a.bool("reverse")?)
        }),
        "`log(cumsum(exp x))` along `:axis` (-1), without overflow",
    ),
    op(
        "cast",
        one(&[T, Param::DType], &[], |g, a| {
            Ok(g.cast(a.node(0)?, a.dtype(1)?))
        }),
        "converted to another dtype",
    ),
    op(
        "iota",
        one(&[S], IOTA, |g, a| {
            g.iota(a.shape(0)?, a.int("axis")?, a.dtype("dtype")?)
        }),
        "each element's index along `:axis`",
    ),
    op(
        "eye",
        one(
            &[Param::Size],
            &[kw("m", Param::Size, Unset::Absent), F32],
            |g, a| {
                let n = a.size(0)?;
                g.eye(n, a.opt("m", Args::size)?.unwrap_or(n), a.dtype("dtype")?)
            },
        ),
        "`(eye n)`: the `[n, :m]` identity matrix (`:m` is `n` by default)",
    ),
    op(
        "linspace",
        one(&[F, F, Param::Size], &[F32], |g, a| {
            g.linspace(
                a.float(0)?,
                a.float(1)?,
                a.size(2)? as i64,
                a.dtype("dtype")?,
            )
        }),
        "`(linspace start end steps)`: evenly spaced values, both ends included",
    ),
    op(
        "zeros",
        one(&[S], &[F32], |g, a| {
            Ok(g.zeros(a.shape(0)?, a.dtype("dtype")?))
        }),
        "zeros of a shape",
    ),
    op(
        "ones",
        one(&[S], &[F32], |g, a| {
            Ok(g.ones(a.shape(0)?, a.dtype("dtype")?))
        }),
        "ones of a shape",
    ),
    op(
        "full",
        one(
            &[S, Param::Number],
            &[kw("dtype", Param::DType, Unset::Absent)],
            |g, a| {
                let value = a.number(1)?;
                let default = match value {
                    sexpgpu_graph::Scalar::Bool(_) => DType::Bool,
                    _ => DType::F32,
                };
                g.full(
                    a.shape(0)?,
                    value,
                    a.opt("dtype", Args::dtype)?.unwrap_or(default),
                )
            },
        ),
        "one value repeated to a shape",
    ),
    op(
        "zeros-like",
        one(&[T], &[], |g, a| Ok(g.zeros_like(a.node(0)?))),
        "zeros of a tensor's shape and dtype",
    ),
    op(
        "ones-like",
        one(&[T], &[], |g, a| Ok(g.ones_like(a.node(0)?))),
        "ones of a tensor's shape and dtype",
    ),
    op(
        "normal",
        one(&[S], NORMAL, |g, a| {
            g.normal(
                a.shape(0)?,
                a.dtype("dtype")?,
                a.float("mean")?,
                a.float("std")?,
            )
        }),
        "Gaussian samples of a shape",
    ),
    op(
        "uniform",
        one(&[S], UNIFORM, |g, a| {
            g.uniform(
                a.shape(0)?,
                a.dtype("dtype")?,
                a.float("low")?,
                a.float("high")?,
            )
        }),
        "uniform samples in [`:low`, `:high`)",
    ),
    op(
        "categorical",
        one(&[T], &[AXIS], |g, a| {
            g.categorical(a.node(0)?, a.int("axis")?)
        }),
        "one `i64` class per row, drawn from the probabilities `softmax(logits)` along `:axis` \
         (-1)",
    ),
    op(
        "shape",
        Run::Handler(shape, &[]),
        "a tensor's shape, as a vector",
    ),
    op("rank", Run::Handler(rank, &[]), "a tensor's number of axes"),
    op(
        "dim",
        Run::Handler(dim, &[]),
        "`(dim x axis)`: one axis's length",
    ),
    op(
        "numel",
        Run::Handler(numel, &[]),
        "a tensor's number of elements",
    ),
    op(
        "dtype",
        Run::Handler(dtype, &[]),
        "a tensor's dtype, as a keyword",
    ),
    op(
        "call",
        Run::Handler(super::call, &[]),
        "runs a graph (or traces and runs a function) on computed tensors",
    ),
    op(
        "to-vec",
        Run::Handler(super::to_vec, &[]),
        "a computed tensor as nested vectors",
    ),
];

const VARIANCE: &[Keyword] = &[AXES, kw("correction", F, Unset::Float(0.0)), KEEPDIMS];
const DIAGONAL: Keyword = kw("diagonal", I, Unset::Int(0));
const DIAGONALS: &[Keyword] = &[
    kw("offset", I, Unset::Int(0)),
    kw("axis1", I, Unset::Int(0)),
    kw("axis2", I, Unset::Int(1)),
];
const LINEAR_SCAN: &[Keyword] = &[
    kw("axis", I, Unset::Int(0)),
    kw("reverse", Param::Bool, Unset::Bool(false)),
];
const ATTENTION: &[Keyword] = &[
    kw("causal", Param::Bool, Unset::Bool(false)),
    kw("scale", F, Unset::Absent),
];
const IOTA: &[Keyword] = &[
    kw("axis", I, Unset::Int(0)),
    kw("dtype", Param::DType, Unset::DType(DType::I32)),
];
const NORMAL: &[Keyword] = &[
    kw("std", F, Unset::Float(1.0)),
    kw("mean", F, Unset::Float(0.0)),
    F32,
];
const UNIFORM: &[Keyword] = &[
    kw("low", F, Unset::Float(0.0)),
    kw("high", F, Unset::Float(1.0)),
    F32,
];

/// `sum` and `max` of one tensor.
fn reduce(g: &mut Graph, kind: ReduceOp, a: &Args<'_>) -> Built {
    g.reduce(kind, a.node(0)?, a.axes("axes")?, a.bool("keepdims")?)
}

fn variance(g: &mut Graph, std: bool, a: &Args<'_>) -> Built {
    let (axes, correction) = (a.axes("axes")?, a.float("correction")?);
    g.variance(std, a.node(0)?, axes, correction, a.bool("keepdims")?)
}

/// `cummax` and `cummin`: the running extremes and where they were found.
fn cum_extreme(g: &mut Graph, max: bool, a: &Args<'_>) -> Result<(NodeId, NodeId), OpError> {
    let (x, axis, reverse) = (a.node(0)?, a.int("axis")?, a.bool("reverse")?);
    let values = g.cum_extreme(max, x, axis, reverse)?;
    Ok((values, g.cum_extreme_indices(x, values, axis, reverse)?))
}

impl Primitive for Op {
    fn name(&self) -> &'static str {
        self.name
    }

    fn call(&self, interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
        match &self.run {
            Run::Unary(kind, help) => unary(interp, self.name, *kind, Some(help), site, args),
            Run::Binary(kind) => elementwise_pair(interp, self.name, *kind, site, args),
            Run::Spec(spec) => run(interp, self.name, spec, site, args),
            Run::HostOr(host, spec) => match host(interp, self, site, args) {
                Meaning::Done(result) => result,
                Meaning::Traced(args) => run(interp, self.name, spec, site, args),
            },
            Run::Handler(handler, _) => handler(interp, self, site, args),
        }
    }
}

/// Registers the tensor operations as builtins.
pub fn install(interp: &mut Interp) {
    interp.register_builtins(OPS.iter().map(|op| op as &dyn Primitive));
}

/// The list of operations in `docs/sexpgpu/operations.md`: one line per
/// operation with its keywords and summary.
pub fn doc_list() -> String {
    doc_list_of(OPS)
}

/// The docs' lines of a table of operations.
pub(super) fn doc_list_of(ops: &[Op]) -> String {
    let mut out = String::new();
    for op in ops {
        let keywords: String = op.keywords().iter().map(|k| format!(" `:{k}`")).collect();
        out.push_str(&format!("- `{}`{keywords}: {}\n", op.name, op.summary));
    }
    out
}

/// `sum` of a list (or vector) of numbers is host arithmetic.
fn sum_of_list(interp: &mut Interp, _: &Op, site: &Site, args: Vec<Value>) -> Meaning {
    let [Value::List(xs) | Value::Vector(xs)] = &args[..] else {
        return Meaning::Traced(args);
    };
    let numbers = xs.to_vec();
    let inner = Site::bare(site.arg(0));
    Meaning::Done(match interp.global("+").cloned() {
        Some(plus @ Value::Builtin { .. }) => interp.apply(&plus, numbers, &inner),
        _ => Err(crate::eval::error(
            codes::E_EVAL_001,
            "unbound name `+`",
            site.span,
        )),
    })
}

/// `max` and `min`: the reduction for one tensor (with `:axes`
/// `:keepdims`, its `Spec`'s), the elementwise extreme of several arguments
/// with a tensor among them, and the host's for numbers.
fn extreme(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> Meaning {
    let positional = args
        .iter()
        .take_while(|a| !matches!(a, Value::Keyword(_)))
        .count();
    let any_tensor = args
        .iter()
        .any(|a| matches!(a, Value::Tensor(_) | Value::HostTensor(_)));
    if any_tensor && positional == 1 {
        return Meaning::Traced(args);
    }
    Meaning::Done(if !any_tensor && op.name == "min" {
        crate::builtins::host_min(site, &args)
    } else if !any_tensor {
        crate::builtins::host_max(site, &args)
    } else if positional < args.len() {
        Err(Flow::from(
            Diagnostic::error(
                codes::E_EVAL_008,
                format!("`{}` of several tensors takes no keywords", op.name),
            )
            .with_primary(site.arg(positional), "")
            .with_help(format!(
                "`:axes` and `:keepdims` belong to the reduction `({} x :axes [..])` of one tensor",
                op.name
            )),
        ))
    } else {
        arith(interp, op.name, site, args)
    })
}

/// `sort` of a list or vector is the host's.
fn list_sort(interp: &mut Interp, _: &Op, site: &Site, args: Vec<Value>) -> Meaning {
    match args.first() {
        Some(Value::List(_) | Value::Vector(_)) => {
            Meaning::Done(crate::builtins::host_sort(interp, site, args))
        }
        _ => Meaning::Traced(args),
    }
}

/// `(repeat n x)`, with a count first, is Clojure's.
fn count_first(interp: &mut Interp, _: &Op, site: &Site, args: Vec<Value>) -> Meaning {
    match args.first() {
        Some(Value::Int(_)) => Meaning::Done(crate::builtins::host_repeat(interp, site, args)),
        _ => Meaning::Traced(args),
    }
}

/// `(concat axis [a b ...])` on tensors; on lists and vectors it is
/// Clojure's `concat`.
fn concat(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    if !matches!(args.first(), Some(Value::Int(_))) {
        let mut out = Vec::new();
        for (i, a) in args.iter().enumerate() {
            match a.as_seq() {
                Some(items) => out.extend(items),
                None => {
                    return Err(wrong_type(
                        op.name,
                        "lists or vectors (or an axis and a vector of tensors)",
                        a,
                        site,
                        i,
                    ))
                }
            }
        }
        return Ok(Value::list(out));
    }
    arity(op.name, site, &args, 2, Some(2))?;
    let axis = int_of(op.name, &args[0], site, 0)?;
    let Some(parts) = args[1].as_seq() else {
        return Err(wrong_type(
            op.name,
            "a vector of tensors",
            &args[1],
            site,
            1,
        ));
    };
    let part_site = Site::bare(site.arg(1));
    let names = args::item_names(interp, site.arg(1), parts.len());
    record_named(interp, op.name, site, &parts, Some(names), |g, call| {
        // A part that is not a tensor is shown at the vector of parts.
        let in_parts = OpCall {
            site: &part_site,
            ..call
        };
        let mut ids = Vec::new();
        for i in 0..parts.len() {
            ids.push(in_parts.tensor(g, i)?);
        }
        Ok(g.concat(axis, &ids).map(Nodes::One))
    })
}

/// `(index table ids)`, and `(index x i j .. :axes [..])` with several
/// index tensors (`Graph::index_many`).
fn index(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let positional = args
        .iter()
        .take_while(|a| !matches!(a, Value::Keyword(_)))
        .count();
    arity(op.name, site, &args[..positional], 2, None)?;
    let parsed = args::split(op.name, args, site, positional, &op.keywords())?;
    let axes = match parsed.keyword("axes") {
        None => None,
        Some((v, i)) => Some(args::ints_of(op.name, "a vector of axes", v, site, i)?),
    };
    let operands = parsed.positional;
    record(interp, op.name, site, &operands, |g, call| {
        let x = call.tensor(g, 0)?;
        let mut ids = Vec::new();
        for i in 1..operands.len() {
            ids.push(call.tensor(g, i)?);
        }
        Ok(match (&ids[..], &axes) {
            ([ids], None) => g.index(x, *ids),
            _ => g.index_many(x, &ids, axes.as_deref()),
        })
    })
}

/// The reshape node, or why the new shape is refused: a negative or too
/// large dimension is refused here, in the builder's place, so that its
/// message names the operand like any other shape mistake.
fn reshape_to(g: &mut Graph, x: NodeId, op: &str, dims: &[i64]) -> Built {
    let shape = sexpgpu_graph::Shape::from_i64(op, dims)?;
    let numel = shape
        .dims()
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d));
    if numel.is_none_or(|n| n > MAX_ELEMENTS) {
        return Err(OpError::dim(format!("{op}: shape {shape} is too large"))
            .with_note(format!("a tensor may have at most {MAX_ELEMENTS} elements")));
    }
    g.reshape(x, shape)
}

/// The shape and dtype of a traced or computed tensor, for the host queries.
fn meta(name: &str, args: &[Value], site: &Site) -> EvalResult<(Vec<usize>, DType)> {
    match &args[0] {
        Value::Tensor(t) => Ok((t.shape.dims().to_vec(), t.dtype)),
        Value::HostTensor(t) => Ok((t.shape().dims().to_vec(), t.dtype())),
        other => Err(Flow::from(
            Diagnostic::error(
                codes::E_DIM_003,
                format!("`{name}` expects a tensor, got {}", other.type_name()),
            )
            .with_primary(site.arg(0), format!("this is `{}`", short(other))),
        )),
    }
}

fn shape(_: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 1, Some(1))?;
    let (dims, _) = meta(op.name, &args, site)?;
    Ok(Value::vector(
        dims.into_iter().map(|d| Value::Int(d as i64)).collect(),
    ))
}

fn rank(_: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 1, Some(1))?;
    Ok(Value::Int(meta(op.name, &args, site)?.0.len() as i64))
}

fn dim(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 2, Some(2))?;
    let (dims, dtype) = meta(op.name, &args, site)?;
    let axis = int_of(op.name, &args[1], site, 1)?;
    match sexpgpu_graph::normalize_axis(axis, dims.len()) {
        Some(a) => Ok(Value::Int(dims[a] as i64)),
        None => Err(Flow::from(
            Diagnostic::error(
                codes::E_DIM_001,
                format!("dim: axis {axis} is out of range for rank {}", dims.len()),
            )
            .with_primary(site.arg(1), "")
            .with_note(format!(
                "operand: `{}` {} {dtype}",
                args::as_written(interp, site.arg(0)),
                sexpgpu_graph::Shape::new(dims)
            )),
        )),
    }
}

fn numel(_: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 1, Some(1))?;
    Ok(Value::Int(
        meta(op.name, &args, site)?.0.iter().product::<usize>() as i64,
    ))
}

fn dtype(_: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 1, Some(1))?;
    Ok(Value::keyword(meta(op.name, &args, site)?.1.name()))
}
