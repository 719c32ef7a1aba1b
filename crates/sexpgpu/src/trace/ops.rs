//! The tensor operations (`docs/sexpgpu/operations.md`) as one table, `OPS`:
//! each name written once, with its keywords and summary, read by the
//! registration and the docs' list alike. Each records nodes into the graph
//! being traced; also the tensor side of the overloaded `+ - * / pow sqrt
//! exp log max` and comparisons. Shape rules belong to the graph crate.

use super::args::{
    self, bool_of, dtype_of, float_of, int_of, ints_of, shape_of, split, MAX_ELEMENTS,
};
use super::{current_graph, Traced};
use crate::codes;
use crate::eval::{arity, wrong_type, EvalResult, Flow, Interp, Primitive, Site};
use crate::value::{short, Value};
use diag::Diagnostic;
use sexpgpu_graph::{
    BinaryOp, CompareOp, DType, Graph, NodeId, OpError, Operand, ReduceOp, Scalar, UnaryOp,
};
use std::rc::Rc;

/// One tensor operation: its name (written here and nowhere else), how it
/// is traced, the keywords it takes and its summary in the docs' list
/// (`docs/sexpgpu/operations.md`, kept in step by a test).
pub struct Op {
    pub name: &'static str,
    pub keywords: &'static [&'static str],
    pub summary: &'static str,
    run: Run,
}

/// How an operation is traced.
pub(super) enum Run {
    /// Elementwise on one tensor; the text says what to write for a number.
    Unary(UnaryOp, &'static str),
    /// Elementwise on two operands, tensors or numbers.
    Binary(BinaryOp),
    /// A function of exactly two tensors.
    Tensors(fn(&mut Graph, NodeId, NodeId) -> Built),
    /// Zeros (`false`) or ones of a shape: `zeros`, `ones`.
    Filled(bool),
    /// Zeros (`false`) or ones shaped like a tensor: `zeros-like`, `ones-like`.
    Like(bool),
    /// Anything else: its own handler, given this entry.
    Handler(fn(&mut Interp, &Op, &Site, Vec<Value>) -> EvalResult),
}

pub(super) const fn op(
    name: &'static str,
    run: Run,
    keywords: &'static [&'static str],
    summary: &'static str,
) -> Op {
    Op {
        name,
        keywords,
        summary,
        run,
    }
}

/// For the unaries that take no plain number.
const TENSORS_ONLY: &str =
    "of the unaries only `sqrt`, `exp`, `log`, `floor`, `ceil` and `round` also take plain numbers";

/// Every tensor operation, in registration order.
pub static OPS: &[Op] = &[
    op(
        "neg",
        Run::Unary(UnaryOp::Neg, "negate a number with `(- x)`"),
        &[],
        "elementwise negation",
    ),
    op(
        "abs",
        Run::Unary(UnaryOp::Abs, "for a number write `(max x (- x))`"),
        &[],
        "elementwise absolute value",
    ),
    op(
        "rsqrt",
        Run::Unary(UnaryOp::Rsqrt, TENSORS_ONLY),
        &[],
        "elementwise 1 / sqrt",
    ),
    op(
        "sin",
        Run::Unary(UnaryOp::Sin, TENSORS_ONLY),
        &[],
        "elementwise sine",
    ),
    op(
        "cos",
        Run::Unary(UnaryOp::Cos, TENSORS_ONLY),
        &[],
        "elementwise cosine",
    ),
    op(
        "tanh",
        Run::Unary(UnaryOp::Tanh, TENSORS_ONLY),
        &[],
        "elementwise hyperbolic tangent",
    ),
    op(
        "acos",
        Run::Unary(UnaryOp::Acos, TENSORS_ONLY),
        &[],
        "elementwise arc cosine",
    ),
    op(
        "asin",
        Run::Unary(UnaryOp::Asin, TENSORS_ONLY),
        &[],
        "elementwise arc sine",
    ),
    op(
        "sigmoid",
        Run::Unary(UnaryOp::Sigmoid, TENSORS_ONLY),
        &[],
        "elementwise logistic sigmoid `1 / (1 + exp(-x))`",
    ),
    op(
        "softplus",
        Run::Unary(UnaryOp::Softplus, TENSORS_ONLY),
        &[],
        "elementwise `log(1 + exp(x))`, computed stably",
    ),
    op(
        "log1p",
        Run::Unary(UnaryOp::Log1p, TENSORS_ONLY),
        &[],
        "elementwise `log(1 + x)`, exact near 0",
    ),
    op(
        "expm1",
        Run::Unary(UnaryOp::Expm1, TENSORS_ONLY),
        &[],
        "elementwise `exp(x) - 1`, exact near 0",
    ),
    op(
        "erf",
        Run::Unary(UnaryOp::Erf, TENSORS_ONLY),
        &[],
        "elementwise error function",
    ),
    op(
        "sinh",
        Run::Unary(UnaryOp::Sinh, TENSORS_ONLY),
        &[],
        "elementwise hyperbolic sine",
    ),
    op(
        "cosh",
        Run::Unary(UnaryOp::Cosh, TENSORS_ONLY),
        &[],
        "elementwise hyperbolic cosine",
    ),
    op(
        "tan",
        Run::Unary(UnaryOp::Tan, TENSORS_ONLY),
        &[],
        "elementwise tangent",
    ),
    op(
        "atan",
        Run::Unary(UnaryOp::Atan, TENSORS_ONLY),
        &[],
        "elementwise arc tangent",
    ),
    op(
        "asinh",
        Run::Unary(UnaryOp::Asinh, TENSORS_ONLY),
        &[],
        "elementwise inverse hyperbolic sine",
    ),
    op(
        "acosh",
        Run::Unary(UnaryOp::Acosh, TENSORS_ONLY),
        &[],
        "elementwise inverse hyperbolic cosine",
    ),
    op(
        "atanh",
        Run::Unary(UnaryOp::Atanh, TENSORS_ONLY),
        &[],
        "elementwise inverse hyperbolic tangent",
    ),
    op(
        "log2",
        Run::Unary(UnaryOp::Log2, TENSORS_ONLY),
        &[],
        "elementwise base-2 logarithm",
    ),
    op(
        "exp2",
        Run::Unary(UnaryOp::Exp2, TENSORS_ONLY),
        &[],
        "elementwise `2^x`",
    ),
    op(
        "log10",
        Run::Unary(UnaryOp::Log10, TENSORS_ONLY),
        &[],
        "elementwise base-10 logarithm",
    ),
    op(
        "trunc",
        Run::Unary(UnaryOp::Trunc, TENSORS_ONLY),
        &[],
        "elementwise rounding toward zero (integers unchanged)",
    ),
    op(
        "sign",
        Run::Unary(UnaryOp::Sign, TENSORS_ONLY),
        &[],
        "elementwise -1, 0 or 1 (0 for NaN, as PyTorch)",
    ),
    op(
        "stop-gradient",
        Run::Unary(UnaryOp::StopGradient, TENSORS_ONLY),
        &[],
        "the value unchanged, with no gradient through it (JAX's `stop_gradient`)",
    ),
    op(
        "floor-div",
        Run::Binary(BinaryOp::FloorDiv),
        &[],
        "elementwise division rounded down (PyTorch's `floor_divide`)",
    ),
    op(
        "bit-and",
        Run::Binary(BinaryOp::BitAnd),
        &[],
        "elementwise bitwise and of integer or bool tensors",
    ),
    op(
        "bit-or",
        Run::Binary(BinaryOp::BitOr),
        &[],
        "elementwise bitwise or of integer or bool tensors",
    ),
    op(
        "bit-xor",
        Run::Binary(BinaryOp::BitXor),
        &[],
        "elementwise bitwise exclusive or of integer or bool tensors",
    ),
    op(
        "shift-left",
        Run::Binary(BinaryOp::ShiftLeft),
        &[],
        "elementwise `a << b` of integer tensors",
    ),
    op(
        "shift-right",
        Run::Binary(BinaryOp::ShiftRight),
        &[],
        "elementwise `a >> b` of integer tensors, filling with the sign",
    ),
    op(
        "atan2",
        Run::Binary(BinaryOp::Atan2),
        &[],
        "elementwise `atan2 y x`",
    ),
    op(
        "maximum",
        Run::Binary(BinaryOp::Maximum),
        &[],
        "elementwise maximum of two operands",
    ),
    op(
        "minimum",
        Run::Binary(BinaryOp::Minimum),
        &[],
        "elementwise minimum of two operands",
    ),
    op(
        "clip",
        Run::Handler(clip),
        &[],
        "`(clip x lo hi)`: `x` limited to [`lo`, `hi`] (PyTorch's `clamp`)",
    ),
    op(
        "lerp",
        Run::Handler(lerp),
        &[],
        "`(lerp a b w)`: `a + w (b - a)`",
    ),
    op(
        "isnan",
        Run::Handler(float_test),
        &[],
        "elementwise: is the element NaN (`bool`)",
    ),
    op(
        "isinf",
        Run::Handler(float_test),
        &[],
        "elementwise: is the element infinite (`bool`)",
    ),
    op(
        "isfinite",
        Run::Handler(float_test),
        &[],
        "elementwise: is the element neither NaN nor infinite (`bool`)",
    ),
    op(
        "logical-not",
        Run::Handler(logical_not),
        &[],
        "elementwise negation of a `bool` tensor",
    ),
    op(
        "bit-not",
        Run::Handler(logical_not),
        &[],
        "elementwise bitwise complement of an integer (or `bool`) tensor",
    ),
    op(
        "where",
        Run::Handler(where_),
        &[],
        "`(where mask a b)`: `a` where the mask holds, else `b`",
    ),
    op(
        "sum",
        Run::Handler(sum),
        &["axes", "keepdims"],
        "sum over `:axes` (all by default); of a list, its numbers' sum",
    ),
    op(
        "max",
        Run::Handler(max),
        &["axes", "keepdims"],
        "maximum over `:axes` of one tensor; elementwise of several; of numbers",
    ),
    op(
        "min",
        Run::Handler(min),
        &["axes", "keepdims"],
        "minimum over `:axes` of one tensor; elementwise of several; of numbers",
    ),
    op(
        "argmax",
        Run::Handler(arg_extreme),
        &["axes", "keepdims"],
        "`i64` index of the first largest element over `:axes` (of the flattened tensor by default)",
    ),
    op(
        "argmin",
        Run::Handler(arg_extreme),
        &["axes", "keepdims"],
        "`i64` index of the first smallest element over `:axes` (of the flattened tensor by default)",
    ),
    op(
        "any",
        Run::Handler(any_all),
        &["axes", "keepdims"],
        "whether any element over `:axes` is non-zero (`bool`)",
    ),
    op(
        "all",
        Run::Handler(any_all),
        &["axes", "keepdims"],
        "whether every element over `:axes` is non-zero (`bool`)",
    ),
    op(
        "var",
        Run::Handler(variance),
        &["axes", "correction", "keepdims"],
        "variance over `:axes`, divided by `n - :correction` (0 by default: the population variance, as NumPy and `nn/var`)",
    ),
    op(
        "std",
        Run::Handler(variance),
        &["axes", "correction", "keepdims"],
        "standard deviation: the square root of `var`",
    ),
    op(
        "one-hot",
        Run::Handler(one_hot),
        &["dtype"],
        "`(one-hot ids n)`: a new last axis of `n` classes, 1 at each id (`:f32` by default)",
    ),
    op(
        "reshape",
        Run::Handler(reshape),
        &[],
        "the same elements in a new shape",
    ),
    op(
        "broadcast-to",
        Run::Handler(broadcast_to),
        &[],
        "NumPy broadcasting to a shape",
    ),
    op("transpose", Run::Handler(transpose), &[], "axes permuted"),
    op(
        "slice",
        Run::Handler(slice),
        &[],
        "`(slice x axis start stop)`; `(slice x axis start stop step)` takes every `step`-th, downwards when negative",
    ),
    op(
        "flip",
        Run::Handler(flip),
        &[],
        "`(flip x [axes..])`: the order along the axes reversed",
    ),
    op(
        "roll",
        Run::Handler(roll),
        &["axis"],
        "`(roll x shift)`: elements moved `shift` places along `:axis` (the flattened tensor by default), wrapping around",
    ),
    op(
        "tril",
        Run::Handler(triangle),
        &["diagonal"],
        "the lower triangle of the last two axes (`col - row <= :diagonal`), zeros above",
    ),
    op(
        "triu",
        Run::Handler(triangle),
        &["diagonal"],
        "the upper triangle of the last two axes (`col - row >= :diagonal`), zeros below",
    ),
    op(
        "repeat",
        Run::Handler(repeat),
        &[],
        "`(repeat x [r0 r1 ..])`: `x` tiled `r` times along each axis (PyTorch's `Tensor.repeat`); `(repeat n x)`, Clojure's",
    ),
    op(
        "unfold",
        Run::Handler(unfold),
        &[],
        "`(unfold x axis size step)`: sliding windows along an axis, as a new last axis",
    ),
    op(
        "concat",
        Run::Handler(concat),
        &[],
        "`(concat axis [a b ...])`; on lists, Clojure's `concat`",
    ),
    op(
        "matmul",
        Run::Tensors(Graph::matmul),
        &[],
        "matrix product, batched over leading axes",
    ),
    op(
        "index",
        Run::Tensors(Graph::index),
        &[],
        "`(index table ids)`: rows of a table",
    ),
    op(
        "index-add",
        Run::Handler(index_add),
        &[],
        "`(index-add base ids values)`: rows added into a base",
    ),
    op(
        "gather",
        Run::Handler(gather),
        &["axis"],
        "elements along `:axis` chosen by an index tensor",
    ),
    op(
        "scatter-add",
        Run::Handler(scatter_add),
        &["axis"],
        "values added along `:axis` at an index tensor",
    ),
    op(
        "linear-scan",
        Run::Handler(linear_scan),
        &["axis", "reverse"],
        "`h[t] = a[t] * h[t-1] + b[t]` along `:axis`",
    ),
    op(
        "scaled-dot-product-attention",
        Run::Handler(attention),
        &["causal", "scale"],
        "`softmax(scale q k^T) v` over the last two axes, fused: the scores are never stored (`:scale` 1/sqrt(d) by default, `:causal` lets query i see keys j <= i)",
    ),
    op(
        "sort",
        Run::Handler(sort),
        &["axis", "descending"],
        "`[values indices]`: `x` sorted along `:axis` (-1), stably, NaN last (first when `:descending`); of a list, Clojure's `sort`",
    ),
    op(
        "argsort",
        Run::Handler(sort),
        &["axis", "descending"],
        "the `i64` indices that sort `x` along `:axis` (-1)",
    ),
    op(
        "top-k",
        Run::Handler(top_k),
        &["axis", "largest"],
        "`(top-k x k)`: `[values indices]` of the `k` largest along `:axis` (-1); smallest when `:largest false`",
    ),
    op(
        "prod",
        Run::Handler(prod),
        &["axes", "keepdims"],
        "product over `:axes` (all by default)",
    ),
    op(
        "cumprod",
        Run::Handler(scan),
        &["axis", "reverse"],
        "running products along `:axis` (-1)",
    ),
    op(
        "cummax",
        Run::Handler(scan),
        &["axis", "reverse"],
        "`[values indices]`: running maxima along `:axis` (-1) and where they were found",
    ),
    op(
        "cummin",
        Run::Handler(scan),
        &["axis", "reverse"],
        "`[values indices]`: running minima along `:axis` (-1) and where they were found",
    ),
    op(
        "logcumsumexp",
        Run::Handler(scan),
        &["axis", "reverse"],
        "`log(cumsum(exp x))` along `:axis` (-1), without overflow",
    ),
    op(
        "cast",
        Run::Handler(cast),
        &[],
        "converted to another dtype",
    ),
    op(
        "iota",
        Run::Handler(iota),
        &["axis", "dtype"],
        "each element's index along `:axis`",
    ),
    op(
        "eye",
        Run::Handler(eye),
        &["m", "dtype"],
        "`(eye n)`: the `[n, :m]` identity matrix (`:m` is `n` by default)",
    ),
    op(
        "linspace",
        Run::Handler(linspace),
        &["dtype"],
        "`(linspace start end steps)`: evenly spaced values, both ends included",
    ),
    op("zeros", Run::Filled(false), &["dtype"], "zeros of a shape"),
    op("ones", Run::Filled(true), &["dtype"], "ones of a shape"),
    op(
        "full",
        Run::Handler(full),
        &["dtype"],
        "one value repeated to a shape",
    ),
    op(
        "zeros-like",
        Run::Like(false),
        &[],
        "zeros of a tensor's shape and dtype",
    ),
    op(
        "ones-like",
        Run::Like(true),
        &[],
        "ones of a tensor's shape and dtype",
    ),
    op(
        "normal",
        Run::Handler(normal),
        &["std", "mean", "dtype"],
        "Gaussian samples of a shape",
    ),
    op(
        "uniform",
        Run::Handler(uniform),
        &["low", "high", "dtype"],
        "uniform samples in [`:low`, `:high`)",
    ),
    op(
        "categorical",
        Run::Handler(categorical),
        &["axis"],
        "one `i64` class per row, drawn from the probabilities `softmax(logits)` along `:axis` (-1)",
    ),
    op(
        "shape",
        Run::Handler(shape),
        &[],
        "a tensor's shape, as a vector",
    ),
    op("rank", Run::Handler(rank), &[], "a tensor's number of axes"),
    op(
        "dim",
        Run::Handler(dim),
        &[],
        "`(dim x axis)`: one axis's length",
    ),
    op(
        "numel",
        Run::Handler(numel),
        &[],
        "a tensor's number of elements",
    ),
    op(
        "dtype",
        Run::Handler(dtype),
        &[],
        "a tensor's dtype, as a keyword",
    ),
    op(
        "call",
        Run::Handler(super::call),
        &[],
        "runs a graph (or traces and runs a function) on computed tensors",
    ),
    op(
        "to-vec",
        Run::Handler(super::to_vec),
        &[],
        "a computed tensor as nested vectors",
    ),
];

impl Primitive for Op {
    fn name(&self) -> &'static str {
        self.name
    }

    fn call(&self, interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
        match self.run {
            Run::Unary(kind, help) => unary(interp, self.name, kind, Some(help), site, args),
            Run::Binary(kind) => elementwise_pair(interp, self.name, kind, site, args),
            Run::Tensors(build) => two_tensors(interp, self.name, site, args, build),
            Run::Filled(one) => filled(interp, self, site, args, one),
            Run::Like(one) => like(interp, self.name, site, args, one),
            Run::Handler(handler) => handler(interp, self, site, args),
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
        let keywords: String = op.keywords.iter().map(|k| format!(" `:{k}`")).collect();
        out.push_str(&format!("- `{}`{keywords}: {}\n", op.name, op.summary));
    }
    out
}

/// The tensor side of host arithmetic (`+ - * / pow quot rem mod`),
/// comparisons and `sqrt exp log floor ceil round`, for a call with a
/// tensor among its arguments.
pub fn overload(
    interp: &mut Interp,
    name: &'static str,
    site: &Site,
    args: Vec<Value>,
) -> EvalResult {
    match name {
        "<" | ">" | "<=" | ">=" | "=" | "==" | "not=" => compare(interp, name, site, args),
        "sqrt" => unary(interp, name, UnaryOp::Sqrt, None, site, args),
        "exp" => unary(interp, name, UnaryOp::Exp, None, site, args),
        "log" => unary(interp, name, UnaryOp::Log, None, site, args),
        "floor" => unary(interp, name, UnaryOp::Floor, None, site, args),
        "ceil" => unary(interp, name, UnaryOp::Ceil, None, site, args),
        "round" => unary(interp, name, UnaryOp::Round, None, site, args),
        "quot" => elementwise_pair(interp, name, BinaryOp::Quot, site, args),
        "rem" => elementwise_pair(interp, name, BinaryOp::Rem, site, args),
        "mod" => elementwise_pair(interp, name, BinaryOp::Mod, site, args),
        _ => arith(interp, name, site, args),
    }
}

type Built = Result<NodeId, OpError>;

/// Records one node: finds the graph (`E-FLOW-003`), lets `build` add the
/// node, and turns a rejected op into a diagnostic naming the operands.
pub(super) fn record(
    interp: &mut Interp,
    op: &str,
    site: &Site,
    operands: &[Value],
    build: impl FnOnce(&mut Graph, u32) -> EvalResult<Built>,
) -> EvalResult {
    record_named(interp, op, site, operands, None, build)
}

/// `record`, with the operands' names for the note when they are not the
/// text at `site`'s argument spans (the parts of `concat`, the running
/// left operand of an n-ary `+`).
fn record_named(
    interp: &mut Interp,
    op: &str,
    site: &Site,
    operands: &[Value],
    names: Option<Vec<String>>,
    build: impl FnOnce(&mut Graph, u32) -> EvalResult<Built>,
) -> EvalResult {
    if super::active_graph(interp).is_none() && operands.iter().any(computed) {
        return at_once(interp, op, site, operands, names, build);
    }
    let fail = |interp: &Interp, e: OpError| match &names {
        Some(names) => args::op_error_named(e, operands, names, site.span),
        None => args::op_error(interp, e, operands, site),
    };
    let (graph, id) = current_graph(interp, op, site)?;
    match build(graph, id)? {
        Ok(node) => {
            let shape = graph.shape(node).clone();
            let too_large = shape
                .dims()
                .iter()
                .try_fold(1usize, |a, &d| a.checked_mul(d))
                .is_none_or(|n| n > MAX_ELEMENTS);
            if too_large {
                let e = OpError::dim(format!("{op}: the result {shape} is too large"))
                    .with_note(format!("a tensor may have at most {MAX_ELEMENTS} elements"));
                return Err(fail(interp, e));
            }
            let dtype = graph.dtype(node);
            Ok(Value::Tensor(Rc::new(Traced {
                graph: id,
                node,
                shape,
                dtype,
            })))
        }
        Err(e) => Err(fail(interp, e)),
    }
}

/// Whether a value is a computed tensor, or a vector holding one (the parts
/// of `concat`).
fn computed(value: &Value) -> bool {
    match value {
        Value::HostTensor(_) => true,
        Value::Vector(xs) | Value::List(xs) => xs.iter().any(computed),
        _ => false,
    }
}

/// An operation on computed tensors outside any traced function runs at
/// once (`docs/sexpgpu/staging.md`): it is recorded into a graph of its own,
/// in which each computed tensor is a constant, and that graph runs.
fn at_once(
    interp: &mut Interp,
    op: &str,
    site: &Site,
    operands: &[Value],
    names: Option<Vec<String>>,
    build: impl FnOnce(&mut Graph, u32) -> EvalResult<Built>,
) -> EvalResult {
    let mut graph = Graph::new(op);
    graph.set_span(Some(site.span));
    let id = super::begin(interp, graph);
    let result = record_named(interp, op, site, operands, names, build);
    let (graph, _) = super::end(interp);
    super::run_recorded(interp, graph, id, &result?, &[], site, &format!("`{op}`"))
}

/// `(neg x)`, `(sqrt x)` ... on a tensor. `help` says what to write for a
/// number instead; `None` for the host functions `sqrt exp log`, which
/// only get here with a tensor.
fn unary(
    interp: &mut Interp,
    name: &str,
    op: UnaryOp,
    help: Option<&str>,
    site: &Site,
    args: Vec<Value>,
) -> EvalResult {
    arity(name, site, &args, 1, Some(1))?;
    if !matches!(args[0], Value::Tensor(_) | Value::HostTensor(_)) {
        // A number is the wrong kind of value whether or not a graph is
        // being traced: say so rather than E-FLOW-003.
        let help = match help {
            Some(TENSORS_ONLY) | None => TENSORS_ONLY.to_string(),
            Some(help) => format!("`{name}` is a tensor operation; {help}"),
        };
        return Err(Flow::from(
            Diagnostic::error(
                codes::E_DIM_003,
                format!("`{name}` expects a tensor, got {}", args[0].type_name()),
            )
            .with_primary(site.arg(0), format!("this is `{}`", short(&args[0])))
            .with_help(help),
        ));
    }
    record(interp, name, site, &args, |g, id| {
        let x = args::tensor(g, id, name, &args, site, 0)?;
        Ok(g.unary(op, x))
    })
}

/// The node of host arithmetic `name` (`max` of several tensors is their
/// elementwise maximum).
fn binary_op(name: &str) -> BinaryOp {
    match name {
        "+" => BinaryOp::Add,
        "-" => BinaryOp::Sub,
        "*" => BinaryOp::Mul,
        "/" => BinaryOp::Div,
        "pow" => BinaryOp::Pow,
        "min" => BinaryOp::Minimum,
        _ => BinaryOp::Maximum,
    }
}

/// The overloaded `+ - * / pow` (and `max` of several) with a tensor among
/// the arguments: a left fold in which plain numbers at the front combine on
/// the host first, so `(* lr scale t)` is one constant times `t`.
pub fn arith(interp: &mut Interp, name: &str, site: &Site, args: Vec<Value>) -> EvalResult {
    if name == "pow" {
        arity(name, site, &args, 2, Some(2))?;
    }
    let op = binary_op(name);
    let lead = args.iter().take_while(|a| a.is_number()).count();
    let (mut acc, start) = if lead >= 2 {
        let folded = host_fold(interp, name, site, &args[..lead])?;
        (folded, lead)
    } else {
        (args[0].clone(), 1)
    };
    if args.len() == 1 {
        // `(- t)` negates and `(/ t)` is the reciprocal, as for numbers.
        return match name {
            // Recorded as the `neg` operation it is.
            "-" => unary(interp, "neg", UnaryOp::Neg, None, site, args),
            "/" => pair(
                interp,
                name,
                op,
                site,
                [Value::Float(1.0), args[0].clone()],
                (site.span, site.arg(0)),
                None,
            ),
            _ => Ok(args[0].clone()),
        };
    }
    let mut acc_span = if start == 1 {
        site.arg(0)
    } else {
        site.arg(0).to(site.arg(start - 1))
    };
    for (i, next) in args.iter().enumerate().skip(start) {
        // The left operand after the first step is the call so far,
        // named as the form it stands for: `(+ x y)` in `(+ x y z)`.
        let names = (i > 1).then(|| {
            vec![
                partial_form(interp, name, site, i),
                args::as_written(interp, site.arg(i)),
            ]
        });
        acc = pair(
            interp,
            name,
            op,
            site,
            [acc, next.clone()],
            (acc_span, site.arg(i)),
            names,
        )?;
        acc_span = acc_span.to(site.arg(i));
    }
    Ok(acc)
}

/// The text of `(name a b ...)` with the first `count` arguments as
/// written, cut as operand notes cut long operands.
fn partial_form(interp: &Interp, name: &str, site: &Site, count: usize) -> String {
    let parts: Vec<String> = (0..count)
        .map(|i| args::as_written(interp, site.arg(i)))
        .collect();
    args::shorten(&format!("({name} {})", parts.join(" ")))
}

/// The host value of the numbers at the front of an n-ary arithmetic call.
fn host_fold(interp: &mut Interp, name: &str, site: &Site, numbers: &[Value]) -> EvalResult {
    let host = interp.global(name).cloned();
    let inner = Site {
        span: site.span,
        args: site.args.iter().take(numbers.len()).copied().collect(),
    };
    match host {
        Some(host @ Value::Builtin { .. }) if name != "max" && name != "min" => {
            interp.apply(&host, numbers.to_vec(), &inner)
        }
        _ if name == "min" => crate::builtins::host_min(&inner, numbers),
        _ => crate::builtins::host_max(&inner, numbers),
    }
}

/// One binary step, with the two operands' spans for the operand note.
fn pair(
    interp: &mut Interp,
    name: &str,
    op: BinaryOp,
    site: &Site,
    operands: [Value; 2],
    spans: (diag::Span, diag::Span),
    names: Option<Vec<String>>,
) -> EvalResult {
    let inner = Site {
        span: site.span,
        args: vec![spans.0, spans.1],
    };
    record_named(interp, name, &inner, &operands, names, |g, id| {
        let x = args::operand(g, id, name, &operands, &inner, 0)?;
        let y = args::operand(g, id, name, &operands, &inner, 1)?;
        if let (Operand::Number(_), Operand::Number(_)) = (x, y) {
            return Ok(Err(OpError::not_a_tensor(format!(
                "{name}: expects at least one tensor"
            ))));
        }
        Ok(g.binary(op, x, y))
    })
}

fn elementwise_pair(
    interp: &mut Interp,
    name: &str,
    op: BinaryOp,
    site: &Site,
    args: Vec<Value>,
) -> EvalResult {
    arity(name, site, &args, 2, Some(2))?;
    record(interp, name, site, &args, |g, id| {
        let x = args::operand(g, id, name, &args, site, 0)?;
        let y = args::operand(g, id, name, &args, site, 1)?;
        if let (Operand::Number(_), Operand::Number(_)) = (x, y) {
            return Ok(Err(OpError::not_a_tensor(format!(
                "{name}: expects at least one tensor"
            ))));
        }
        Ok(g.binary(op, x, y))
    })
}

/// `(< a b)` and the other comparisons with a tensor: a `:bool` tensor.
pub fn compare(interp: &mut Interp, name: &str, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(name, site, &args, 2, Some(2))?;
    let op = match name {
        "<" => CompareOp::Lt,
        ">" => CompareOp::Gt,
        "<=" => CompareOp::Le,
        ">=" => CompareOp::Ge,
        "=" | "==" => CompareOp::Eq,
        _ => CompareOp::Ne,
    };
    record(interp, name, site, &args, |g, id| {
        let x = args::operand(g, id, name, &args, site, 0)?;
        let y = args::operand(g, id, name, &args, site, 1)?;
        Ok(g.compare(op, x, y))
    })
}

fn where_(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 3, Some(3))?;
    record(interp, op.name, site, &args, |g, id| {
        let mask = args::tensor(g, id, op.name, &args, site, 0)?;
        let a = args::operand(g, id, op.name, &args, site, 1)?;
        let b = args::operand(g, id, op.name, &args, site, 2)?;
        Ok(g.where_(mask, a, b))
    })
}

/// `:axes`: a vector of axes (a single integer is accepted too); `None` is every axis.
fn axes_of(op: &str, value: Option<(&Value, usize)>, site: &Site) -> EvalResult<Option<Vec<i64>>> {
    match value {
        None | Some((Value::Nil, _)) => Ok(None),
        Some((Value::Int(a), _)) => Ok(Some(vec![*a])),
        Some((v, i)) => ints_of(op, "`:axes` as a vector of integers", v, site, i).map(Some),
    }
}

fn reduce(
    interp: &mut Interp,
    op: &Op,
    kind: ReduceOp,
    site: &Site,
    args: Vec<Value>,
) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 1, op.keywords)?;
    let axes = axes_of(name, parsed.keyword("axes"), site)?;
    let keepdims = match parsed.keyword("keepdims") {
        Some((v, i)) => bool_of(name, v, site, i)?,
        None => false,
    };
    let operands = parsed.positional;
    record(interp, name, site, &operands, |g, id| {
        let x = args::tensor(g, id, name, &operands, site, 0)?;
        Ok(g.reduce(kind, x, axes.as_deref(), keepdims))
    })
}

/// `(sum x :axes [..] :keepdims ..)`, or the sum of a list of numbers.
fn sum(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    if let [Value::List(xs) | Value::Vector(xs)] = &args[..] {
        let numbers = xs.to_vec();
        let inner = Site::bare(site.arg(0));
        return match interp.global("+").cloned() {
            Some(plus @ Value::Builtin { .. }) => interp.apply(&plus, numbers, &inner),
            _ => Err(crate::eval::error(
                codes::E_EVAL_001,
                "unbound name `+`",
                site.span,
            )),
        };
    }
    reduce(interp, op, ReduceOp::Sum, site, args)
}

/// `max`: the reduction for one tensor (with `:axes` `:keepdims`), the
/// elementwise maximum for several arguments with a tensor among them, and
/// the host maximum for numbers.
fn max(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let positional = args
        .iter()
        .take_while(|a| !matches!(a, Value::Keyword(_)))
        .count();
    let any_tensor = args
        .iter()
        .any(|a| matches!(a, Value::Tensor(_) | Value::HostTensor(_)));
    if any_tensor && positional == 1 {
        return reduce(interp, op, ReduceOp::Max, site, args);
    }
    if any_tensor {
        if positional < args.len() {
            return Err(Flow::from(
                Diagnostic::error(codes::E_EVAL_008, format!("`{}` of several tensors takes no keywords", op.name))
                    .with_primary(site.arg(positional), "")
                    .with_help("`:axes` and `:keepdims` belong to the reduction `(max x :axes [..])` of one tensor"),
            ));
        }
        return arith(interp, op.name, site, args);
    }
    crate::builtins::host_max(site, &args)
}

fn reshape(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 2, Some(2))?;
    let dims = ints_of(op.name, "a shape (a vector of integers)", &args[1], site, 1)?;
    record(interp, op.name, site, &args[..1], |g, id| {
        let x = args::tensor(g, id, op.name, &args, site, 0)?;
        Ok(reshape_to(g, x, op.name, &dims))
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

fn broadcast_to(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 2, Some(2))?;
    let shape = shape_of(op.name, &args[1], site, 1)?;
    record(interp, op.name, site, &args[..1], |g, id| {
        let x = args::tensor(g, id, op.name, &args, site, 0)?;
        Ok(g.broadcast_to(x, shape))
    })
}

fn transpose(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 2, Some(2))?;
    let perm = ints_of(
        op.name,
        "a permutation (a vector of axes)",
        &args[1],
        site,
        1,
    )?;
    record(interp, op.name, site, &args[..1], |g, id| {
        let x = args::tensor(g, id, op.name, &args, site, 0)?;
        Ok(g.transpose(x, &perm))
    })
}

fn slice(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 4, Some(5))?;
    let axis = int_of(op.name, &args[1], site, 1)?;
    let start = int_of(op.name, &args[2], site, 2)?;
    let stop = int_of(op.name, &args[3], site, 3)?;
    let step = match args.get(4) {
        Some(v) => int_of(op.name, v, site, 4)?,
        None => 1,
    };
    record(interp, op.name, site, &args[..1], |g, id| {
        let x = args::tensor(g, id, op.name, &args, site, 0)?;
        Ok(g.slice_step(x, axis, (start, stop, step)))
    })
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
    record_named(interp, op.name, site, &parts, Some(names), |g, id| {
        let mut ids = Vec::new();
        for i in 0..parts.len() {
            ids.push(args::tensor(g, id, op.name, &parts, &part_site, i)?);
        }
        Ok(g.concat(axis, &ids))
    })
}

fn two_tensors(
    interp: &mut Interp,
    name: &str,
    site: &Site,
    args: Vec<Value>,
    build: fn(&mut Graph, NodeId, NodeId) -> Built,
) -> EvalResult {
    arity(name, site, &args, 2, Some(2))?;
    record(interp, name, site, &args, |g, id| {
        let a = args::tensor(g, id, name, &args, site, 0)?;
        let b = args::tensor(g, id, name, &args, site, 1)?;
        Ok(build(g, a, b))
    })
}

fn index_add(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 3, Some(3))?;
    record(interp, op.name, site, &args, |g, id| {
        let base = args::tensor(g, id, op.name, &args, site, 0)?;
        let ids = args::tensor(g, id, op.name, &args, site, 1)?;
        let values = args::tensor(g, id, op.name, &args, site, 2)?;
        Ok(g.index_add(base, ids, values))
    })
}

fn axis_kw(op: &str, parsed: &args::OpArgs, site: &Site, default: i64) -> EvalResult<i64> {
    parsed
        .keyword("axis")
        .map_or(Ok(default), |(v, i)| int_of(op, v, site, i))
}

fn gather(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 2, op.keywords)?;
    let axis = axis_kw(op.name, &parsed, site, -1)?;
    let operands = parsed.positional;
    record(interp, op.name, site, &operands, |g, id| {
        let x = args::tensor(g, id, op.name, &operands, site, 0)?;
        let idx = args::tensor(g, id, op.name, &operands, site, 1)?;
        Ok(g.gather(x, idx, axis))
    })
}

fn scatter_add(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 3, op.keywords)?;
    let axis = axis_kw(op.name, &parsed, site, -1)?;
    let operands = parsed.positional;
    record(interp, op.name, site, &operands, |g, id| {
        let base = args::tensor(g, id, op.name, &operands, site, 0)?;
        let idx = args::tensor(g, id, op.name, &operands, site, 1)?;
        let values = args::tensor(g, id, op.name, &operands, site, 2)?;
        Ok(g.scatter_add(base, idx, values, axis))
    })
}

fn linear_scan(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 2, op.keywords)?;
    let axis = axis_kw(op.name, &parsed, site, 0)?;
    let reverse = parsed
        .keyword("reverse")
        .map_or(Ok(false), |(v, i)| bool_of(op.name, v, site, i))?;
    let operands = parsed.positional;
    record(interp, op.name, site, &operands, |g, id| {
        let a = args::operand(g, id, op.name, &operands, site, 0)?;
        let b = args::operand(g, id, op.name, &operands, site, 1)?;
        Ok(g.linear_scan(a, b, axis, reverse))
    })
}

fn attention(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 3, op.keywords)?;
    let causal = parsed
        .keyword("causal")
        .map_or(Ok(false), |(v, i)| bool_of(op.name, v, site, i))?;
    let scale = match parsed.keyword("scale") {
        Some((v, i)) => Some(args::float_of(op.name, v, site, i)?),
        None => None,
    };
    let operands = parsed.positional;
    record(interp, op.name, site, &operands, |g, id| {
        let q = args::tensor(g, id, op.name, &operands, site, 0)?;
        let k = args::tensor(g, id, op.name, &operands, site, 1)?;
        let v = args::tensor(g, id, op.name, &operands, site, 2)?;
        Ok(g.attention(q, k, v, causal, scale))
    })
}

fn cast(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 2, Some(2))?;
    let dtype = dtype_of(op.name, &args[1], site, 1)?;
    record(interp, op.name, site, &args[..1], |g, id| {
        let x = args::tensor(g, id, op.name, &args, site, 0)?;
        Ok(Ok(g.cast(x, dtype)))
    })
}

fn dtype_kw(op: &str, parsed: &args::OpArgs, site: &Site, default: DType) -> EvalResult<DType> {
    parsed
        .keyword("dtype")
        .map_or(Ok(default), |(v, i)| dtype_of(op, v, site, i))
}

fn iota(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 1, op.keywords)?;
    let shape = shape_of(op.name, &parsed.positional[0], site, 0)?;
    let axis = axis_kw(op.name, &parsed, site, 0)?;
    let dtype = dtype_kw(op.name, &parsed, site, DType::I32)?;
    record(interp, op.name, site, &[], |g, _| {
        Ok(g.iota(shape, axis, dtype))
    })
}

fn filled(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>, one: bool) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 1, op.keywords)?;
    let shape = shape_of(name, &parsed.positional[0], site, 0)?;
    let dtype = dtype_kw(name, &parsed, site, DType::F32)?;
    record(interp, name, site, &[], |g, _| {
        Ok(Ok(if one {
            g.ones(shape, dtype)
        } else {
            g.zeros(shape, dtype)
        }))
    })
}

fn full(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 2, op.keywords)?;
    let shape = shape_of(op.name, &parsed.positional[0], site, 0)?;
    let value = match &parsed.positional[1] {
        Value::Int(n) => Scalar::Int(*n),
        Value::Float(x) => Scalar::Float(*x),
        Value::Bool(b) => Scalar::Bool(*b),
        other => return Err(wrong_type(op.name, "a number", other, site, 1)),
    };
    let default = if matches!(value, Scalar::Bool(_)) {
        DType::Bool
    } else {
        DType::F32
    };
    let dtype = dtype_kw(op.name, &parsed, site, default)?;
    record(interp, op.name, site, &[], |g, _| {
        Ok(g.full(shape, value, dtype))
    })
}

fn like(interp: &mut Interp, name: &str, site: &Site, args: Vec<Value>, one: bool) -> EvalResult {
    arity(name, site, &args, 1, Some(1))?;
    record(interp, name, site, &args, |g, id| {
        let x = args::tensor(g, id, name, &args, site, 0)?;
        Ok(Ok(if one { g.ones_like(x) } else { g.zeros_like(x) }))
    })
}

fn normal(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 1, op.keywords)?;
    let shape = shape_of(op.name, &parsed.positional[0], site, 0)?;
    let std = parsed
        .keyword("std")
        .map_or(Ok(1.0), |(v, i)| float_of(op.name, v, site, i))?;
    let mean = parsed
        .keyword("mean")
        .map_or(Ok(0.0), |(v, i)| float_of(op.name, v, site, i))?;
    let dtype = dtype_kw(op.name, &parsed, site, DType::F32)?;
    record(interp, op.name, site, &[], |g, _| {
        Ok(g.normal(shape, dtype, mean, std))
    })
}

fn uniform(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 1, op.keywords)?;
    let shape = shape_of(op.name, &parsed.positional[0], site, 0)?;
    let low = parsed
        .keyword("low")
        .map_or(Ok(0.0), |(v, i)| float_of(op.name, v, site, i))?;
    let high = parsed
        .keyword("high")
        .map_or(Ok(1.0), |(v, i)| float_of(op.name, v, site, i))?;
    let dtype = dtype_kw(op.name, &parsed, site, DType::F32)?;
    record(interp, op.name, site, &[], |g, _| {
        Ok(g.uniform(shape, dtype, low, high))
    })
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

/// `min`: the reduction for one tensor (with `:axes` `:keepdims`), the
/// elementwise minimum for several arguments with a tensor among them, and
/// the host minimum for numbers.
fn min(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let positional = args
        .iter()
        .take_while(|a| !matches!(a, Value::Keyword(_)))
        .count();
    let any_tensor = args
        .iter()
        .any(|a| matches!(a, Value::Tensor(_) | Value::HostTensor(_)));
    if any_tensor && positional == 1 {
        let name = op.name;
        let parsed = split(name, args, site, 1, op.keywords)?;
        let axes = axes_of(name, parsed.keyword("axes"), site)?;
        let keepdims = keepdims_of(name, &parsed, site)?;
        let operands = parsed.positional;
        return record(interp, name, site, &operands, |g, id| {
            let x = args::tensor(g, id, name, &operands, site, 0)?;
            Ok(g.reduce_min(x, axes.as_deref(), keepdims))
        });
    }
    if any_tensor {
        if positional < args.len() {
            return Err(Flow::from(
                Diagnostic::error(codes::E_EVAL_008, format!("`{}` of several tensors takes no keywords", op.name))
                    .with_primary(site.arg(positional), "")
                    .with_help("`:axes` and `:keepdims` belong to the reduction `(min x :axes [..])` of one tensor"),
            ));
        }
        return arith(interp, op.name, site, args);
    }
    crate::builtins::host_min(site, &args)
}

/// `:keepdims`, false by default.
fn keepdims_of(name: &str, parsed: &args::OpArgs, site: &Site) -> EvalResult<bool> {
    match parsed.keyword("keepdims") {
        Some((v, i)) => bool_of(name, v, site, i),
        None => Ok(false),
    }
}

/// A function of one tensor, given its node.
fn one_tensor(
    interp: &mut Interp,
    op: &Op,
    site: &Site,
    args: Vec<Value>,
    build: impl FnOnce(&mut Graph, NodeId) -> Built,
) -> EvalResult {
    arity(op.name, site, &args, 1, Some(1))?;
    record(interp, op.name, site, &args, |g, id| {
        let x = args::tensor(g, id, op.name, &args, site, 0)?;
        Ok(build(g, x))
    })
}

fn float_test(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    one_tensor(interp, op, site, args, |g, x| g.float_test(op.name, x))
}

/// `logical-not` and `bit-not`.
fn logical_not(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let bits = op.name == "bit-not";
    one_tensor(interp, op, site, args, |g, x| {
        if bits {
            g.bit_not(x)
        } else {
            g.logical_not(x)
        }
    })
}

fn clip(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 3, Some(3))?;
    record(interp, op.name, site, &args, |g, id| {
        let x = args::tensor(g, id, op.name, &args, site, 0)?;
        let lo = args::operand(g, id, op.name, &args, site, 1)?;
        let hi = args::operand(g, id, op.name, &args, site, 2)?;
        Ok(g.clip(x, lo, hi))
    })
}

fn lerp(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 3, Some(3))?;
    record(interp, op.name, site, &args, |g, id| {
        let a = args::tensor(g, id, op.name, &args, site, 0)?;
        let b = args::operand(g, id, op.name, &args, site, 1)?;
        let w = args::operand(g, id, op.name, &args, site, 2)?;
        Ok(g.lerp(a, b, w))
    })
}

/// `argmax` and `argmin`.
fn arg_extreme(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 1, op.keywords)?;
    let axes = axes_of(name, parsed.keyword("axes"), site)?;
    let keepdims = keepdims_of(name, &parsed, site)?;
    let operands = parsed.positional;
    record(interp, name, site, &operands, |g, id| {
        let x = args::tensor(g, id, name, &operands, site, 0)?;
        Ok(g.arg_extreme(name == "argmax", x, axes.as_deref(), keepdims))
    })
}

/// `any` and `all`.
fn any_all(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 1, op.keywords)?;
    let axes = axes_of(name, parsed.keyword("axes"), site)?;
    let keepdims = keepdims_of(name, &parsed, site)?;
    let operands = parsed.positional;
    record(interp, name, site, &operands, |g, id| {
        let x = args::tensor(g, id, name, &operands, site, 0)?;
        Ok(g.any_all(name == "all", x, axes.as_deref(), keepdims))
    })
}

/// `var` and `std`.
fn variance(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 1, op.keywords)?;
    let axes = axes_of(name, parsed.keyword("axes"), site)?;
    let keepdims = keepdims_of(name, &parsed, site)?;
    let correction = parsed
        .keyword("correction")
        .map_or(Ok(0.0), |(v, i)| float_of(name, v, site, i))?;
    let operands = parsed.positional;
    record(interp, name, site, &operands, |g, id| {
        let x = args::tensor(g, id, name, &operands, site, 0)?;
        Ok(g.variance(name == "std", x, axes.as_deref(), correction, keepdims))
    })
}

fn one_hot(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 2, op.keywords)?;
    let n = int_of(op.name, &parsed.positional[1], site, 1)?;
    let dtype = dtype_kw(op.name, &parsed, site, DType::F32)?;
    let operands = parsed.positional;
    record(interp, op.name, site, &operands[..1], |g, id| {
        let ids = args::tensor(g, id, op.name, &operands, site, 0)?;
        Ok(g.one_hot(ids, n, dtype))
    })
}

fn categorical(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 1, op.keywords)?;
    let axis = axis_kw(op.name, &parsed, site, -1)?;
    let operands = parsed.positional;
    record(interp, op.name, site, &operands, |g, id| {
        let logits = args::tensor(g, id, op.name, &operands, site, 0)?;
        Ok(g.categorical(logits, axis))
    })
}

/// A traced tensor for `node` of graph `graph`.
fn traced(g: &Graph, graph: u32, node: NodeId) -> Value {
    Value::Tensor(Rc::new(Traced {
        graph,
        node,
        shape: g.shape(node).clone(),
        dtype: g.dtype(node),
    }))
}

/// `sort` (values and indices) and `argsort` (indices); `sort` of a list
/// or vector is the host's.
fn sort(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    if name == "sort" && matches!(args.first(), Some(Value::List(_) | Value::Vector(_))) {
        return crate::builtins::host_sort(interp, site, args);
    }
    let parsed = split(name, args, site, 1, op.keywords)?;
    let axis = axis_kw(name, &parsed, site, -1)?;
    let descending = parsed
        .keyword("descending")
        .map_or(Ok(false), |(v, i)| bool_of(name, v, site, i))?;
    let operands = parsed.positional;
    let mut indices = None;
    let values = record(interp, name, site, &operands, |g, id| {
        let x = args::tensor(g, id, name, &operands, site, 0)?;
        if name == "argsort" {
            return Ok(g.argsort(x, axis, descending));
        }
        Ok(g.sort(x, axis, descending).map(|(v, i)| {
            indices = Some(traced(g, id, i));
            v
        }))
    })?;
    Ok(match indices {
        Some(i) => Value::vector(vec![values, i]),
        None => values,
    })
}

/// `(top-k x k :axis -1 :largest true)`: values and indices.
fn top_k(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 2, op.keywords)?;
    let k = int_of(name, &parsed.positional[1], site, 1)?;
    let axis = axis_kw(name, &parsed, site, -1)?;
    let largest = parsed
        .keyword("largest")
        .map_or(Ok(true), |(v, i)| bool_of(name, v, site, i))?;
    let operands = parsed.positional;
    let mut indices = None;
    let values = record(interp, name, site, &operands[..1], |g, id| {
        let x = args::tensor(g, id, name, &operands, site, 0)?;
        Ok(g.top_k(x, k, axis, largest).map(|(v, i)| {
            indices = Some(traced(g, id, i));
            v
        }))
    })?;
    Ok(Value::vector(vec![values, indices.unwrap_or(Value::Nil)]))
}

/// `prod` over axes.
fn prod(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 1, op.keywords)?;
    let axes = axes_of(name, parsed.keyword("axes"), site)?;
    let keepdims = keepdims_of(name, &parsed, site)?;
    let operands = parsed.positional;
    record(interp, name, site, &operands, |g, id| {
        let x = args::tensor(g, id, name, &operands, site, 0)?;
        Ok(g.prod(x, axes.as_deref(), keepdims))
    })
}

/// `cumprod`, `cummax`, `cummin` and `logcumsumexp`.
fn scan(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 1, op.keywords)?;
    let axis = axis_kw(name, &parsed, site, -1)?;
    let reverse = parsed
        .keyword("reverse")
        .map_or(Ok(false), |(v, i)| bool_of(name, v, site, i))?;
    let operands = parsed.positional;
    let mut indices = None;
    let values = record(interp, name, site, &operands, |g, id| {
        let x = args::tensor(g, id, name, &operands, site, 0)?;
        Ok(match name {
            "cumprod" => g.cumprod(x, axis, reverse),
            "cummax" | "cummin" => {
                g.cum_extreme(name == "cummax", x, axis, reverse)
                    .and_then(|v| {
                        let at = g.cum_extreme_indices(x, v, axis, reverse)?;
                        indices = Some(traced(g, id, at));
                        Ok(v)
                    })
            }
            _ => g.logcumsumexp(x, axis, reverse),
        })
    })?;
    Ok(match indices {
        Some(i) => Value::vector(vec![values, i]),
        None => values,
    })
}

fn flip(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 2, Some(2))?;
    let axes = match &args[1] {
        Value::Int(a) => vec![*a],
        v => ints_of(op.name, "a vector of axes", v, site, 1)?,
    };
    record(interp, op.name, site, &args[..1], |g, id| {
        let x = args::tensor(g, id, op.name, &args, site, 0)?;
        Ok(g.flip(x, &axes))
    })
}

fn roll(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 2, op.keywords)?;
    let shift = int_of(op.name, &parsed.positional[1], site, 1)?;
    let axis = match parsed.keyword("axis") {
        None | Some((Value::Nil, _)) => None,
        Some((v, i)) => Some(int_of(op.name, v, site, i)?),
    };
    let operands = parsed.positional;
    record(interp, op.name, site, &operands[..1], |g, id| {
        let x = args::tensor(g, id, op.name, &operands, site, 0)?;
        Ok(g.roll(x, shift, axis))
    })
}

/// `tril` and `triu`.
fn triangle(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 1, op.keywords)?;
    let diagonal = parsed
        .keyword("diagonal")
        .map_or(Ok(0), |(v, i)| int_of(op.name, v, site, i))?;
    let operands = parsed.positional;
    record(interp, op.name, site, &operands, |g, id| {
        let x = args::tensor(g, id, op.name, &operands, site, 0)?;
        Ok(g.triangle(op.name == "triu", x, diagonal))
    })
}

/// `(repeat x [reps])` of a tensor; `(repeat n x)`, with a count first,
/// is Clojure's.
fn repeat(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    if matches!(args.first(), Some(Value::Int(_))) {
        return crate::builtins::host_repeat(interp, site, args);
    }
    arity(op.name, site, &args, 2, Some(2))?;
    let reps = ints_of(op.name, "a vector of counts", &args[1], site, 1)?;
    record(interp, op.name, site, &args[..1], |g, id| {
        let x = args::tensor(g, id, op.name, &args, site, 0)?;
        Ok(g.repeat(x, &reps))
    })
}

fn unfold(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(op.name, site, &args, 4, Some(4))?;
    let axis = int_of(op.name, &args[1], site, 1)?;
    let size = int_of(op.name, &args[2], site, 2)?;
    let step = int_of(op.name, &args[3], site, 3)?;
    record(interp, op.name, site, &args[..1], |g, id| {
        let x = args::tensor(g, id, op.name, &args, site, 0)?;
        Ok(g.unfold(x, axis, size, step))
    })
}

/// A size argument: a non-negative integer within the tensor limit.
fn size_of(op: &str, v: &Value, site: &Site, i: usize) -> EvalResult<usize> {
    let n = int_of(op, v, site, i)?;
    match usize::try_from(n) {
        Ok(n) if n <= MAX_ELEMENTS => Ok(n),
        _ => Err(Flow::from(
            Diagnostic::error(codes::E_DIM_001, format!("{op}: {n} is not a size"))
                .with_primary(site.arg(i), "")
                .with_help(format!("a size is an integer from 0 to {MAX_ELEMENTS}")),
        )),
    }
}

fn eye(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 1, op.keywords)?;
    let n = size_of(op.name, &parsed.positional[0], site, 0)?;
    let m = match parsed.keyword("m") {
        Some((v, i)) => size_of(op.name, v, site, i)?,
        None => n,
    };
    let dtype = dtype_kw(op.name, &parsed, site, DType::F32)?;
    record(interp, op.name, site, &[], |g, _| Ok(g.eye(n, m, dtype)))
}

fn linspace(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 3, op.keywords)?;
    let start = float_of(op.name, &parsed.positional[0], site, 0)?;
    let end = float_of(op.name, &parsed.positional[1], site, 1)?;
    let steps = size_of(op.name, &parsed.positional[2], site, 2)?;
    let dtype = dtype_kw(op.name, &parsed, site, DType::F32)?;
    record(interp, op.name, site, &[], |g, _| {
        Ok(g.linspace(start, end, steps as i64, dtype))
    })
}
