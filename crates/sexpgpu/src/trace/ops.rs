//! The tensor operations of seed 003 as builtins, each with exactly its
//! keywords and defaults, recording nodes into the graph being traced; and
//! the tensor side of the overloaded `+ - * / pow sqrt exp log max` and
//! comparisons. Shape rules themselves belong to the graph crate.

use super::args::{
    self, bool_of, dtype_of, float_of, int_of, ints_of, shape_of, split, MAX_ELEMENTS,
};
use super::{current_graph, Traced};
use crate::codes;
use crate::eval::{arity, wrong_type, Builtin, EvalResult, Flow, Interp, Primitive, Site};
use crate::value::{short, Value};
use diag::Diagnostic;
use sexpgpu_graph::{
    BinaryOp, CompareOp, DType, Graph, NodeId, OpError, Operand, ReduceOp, Scalar, UnaryOp,
};
use std::rc::Rc;

pub static TABLE: &[Builtin] = table! {
    "neg" => neg, "abs" => abs, "rsqrt" => rsqrt, "sin" => sin, "cos" => cos, "tanh" => tanh, "acos" => acos, "asin" => asin,
    "atan2" => atan2, "maximum" => maximum, "minimum" => minimum, "where" => where_,
    "sum" => sum, "max" => max, "reshape" => reshape, "broadcast-to" => broadcast_to,
    "transpose" => transpose, "slice" => slice, "concat" => concat, "matmul" => matmul,
    "index" => index, "index-add" => index_add, "gather" => gather, "scatter-add" => scatter_add,
    "linear-scan" => linear_scan, "cast" => cast, "iota" => iota, "zeros" => zeros, "ones" => ones,
    "full" => full, "zeros-like" => zeros_like, "ones-like" => ones_like, "normal" => normal,
    "uniform" => uniform, "shape" => shape, "rank" => rank, "dim" => dim, "numel" => numel,
    "dtype" => dtype, "call" => super::call, "to-vec" => super::to_vec,
};

/// Registers the tensor operations as builtins.
pub fn install(interp: &mut Interp) {
    interp.register_builtins(TABLE.iter().map(|b| b as &dyn Primitive));
}

/// The tensor side of host arithmetic (`+ - * / pow`), comparisons and
/// `sqrt exp log`, for a call with a tensor among its arguments.
pub fn overload(
    interp: &mut Interp,
    name: &'static str,
    site: &Site,
    args: Vec<Value>,
) -> EvalResult {
    match name {
        "<" | ">" | "<=" | ">=" | "=" | "==" | "not=" => compare(interp, name, site, args),
        "sqrt" | "exp" | "log" => unary(interp, name, site, args),
        _ => arith(interp, name, site, args),
    }
}

type Built = Result<NodeId, OpError>;

/// Records one node: finds the graph (`E-FLOW-003`), lets `build` add the
/// node, and turns a rejected op into a diagnostic naming the operands.
fn record(
    interp: &mut Interp,
    op: &str,
    site: &Site,
    operands: &[Value],
    build: impl FnOnce(&mut Graph, u32) -> EvalResult<Built>,
) -> EvalResult {
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
                return Err(args::op_error(interp, e, operands, site));
            }
            let dtype = graph.dtype(node);
            Ok(Value::Tensor(Rc::new(Traced {
                graph: id,
                node,
                shape,
                dtype,
            })))
        }
        Err(e) => Err(args::op_error(interp, e, operands, site)),
    }
}

fn unary_op(name: &str) -> Option<UnaryOp> {
    Some(match name {
        "neg" => UnaryOp::Neg,
        "abs" => UnaryOp::Abs,
        "sqrt" => UnaryOp::Sqrt,
        "rsqrt" => UnaryOp::Rsqrt,
        "exp" => UnaryOp::Exp,
        "log" => UnaryOp::Log,
        "sin" => UnaryOp::Sin,
        "cos" => UnaryOp::Cos,
        "tanh" => UnaryOp::Tanh,
        "acos" => UnaryOp::Acos,
        "asin" => UnaryOp::Asin,
        _ => return None,
    })
}

/// `(neg x)`, `(sqrt x)` ... on a tensor.
pub fn unary(interp: &mut Interp, name: &str, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(name, site, &args, 1, Some(1))?;
    let op = unary_op(name).expect("only called for unary names");
    if !matches!(args[0], Value::Tensor(_) | Value::HostTensor(_)) {
        // A number is the wrong kind of value whether or not a graph is
        // being traced: say so rather than E-FLOW-003.
        let help = match name {
            "neg" => "`neg` is a tensor operation; negate a number with `(- x)`",
            "abs" => "`abs` is a tensor operation; for a number write `(max x (- x))`",
            _ => "of the unaries only `sqrt`, `exp` and `log` also take plain numbers",
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

fn neg(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    unary(i, "neg", s, a)
}
fn abs(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    unary(i, "abs", s, a)
}
fn rsqrt(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    unary(i, "rsqrt", s, a)
}
fn sin(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    unary(i, "sin", s, a)
}
fn cos(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    unary(i, "cos", s, a)
}
fn tanh(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    unary(i, "tanh", s, a)
}
fn acos(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    unary(i, "acos", s, a)
}
fn asin(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    unary(i, "asin", s, a)
}

fn binary_op(name: &str) -> BinaryOp {
    match name {
        "+" => BinaryOp::Add,
        "-" => BinaryOp::Sub,
        "*" => BinaryOp::Mul,
        "/" => BinaryOp::Div,
        "pow" => BinaryOp::Pow,
        "maximum" | "max" => BinaryOp::Maximum,
        "minimum" => BinaryOp::Minimum,
        _ => BinaryOp::Atan2,
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
            "-" => unary(interp, "neg", site, args),
            "/" => pair(
                interp,
                name,
                op,
                site,
                Value::Float(1.0),
                args[0].clone(),
                (site.span, site.arg(0)),
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
        acc = pair(
            interp,
            name,
            op,
            site,
            acc,
            next.clone(),
            (acc_span, site.arg(i)),
        )?;
        acc_span = acc_span.to(site.arg(i));
    }
    Ok(acc)
}

/// The host value of the numbers at the front of an n-ary arithmetic call.
fn host_fold(interp: &mut Interp, name: &str, site: &Site, numbers: &[Value]) -> EvalResult {
    let host = interp.global(name).cloned();
    let inner = Site {
        span: site.span,
        args: site.args.iter().take(numbers.len()).copied().collect(),
    };
    match host {
        Some(host @ Value::Builtin { .. }) if name != "max" => {
            interp.apply(&host, numbers.to_vec(), &inner)
        }
        _ => crate::builtins::host_max(&inner, numbers),
    }
}

/// One binary step, with the two operands' spans for the operand note.
fn pair(
    interp: &mut Interp,
    name: &str,
    op: BinaryOp,
    site: &Site,
    a: Value,
    b: Value,
    spans: (diag::Span, diag::Span),
) -> EvalResult {
    let operands = [a, b];
    let inner = Site {
        span: site.span,
        args: vec![spans.0, spans.1],
    };
    record(interp, name, &inner, &operands, |g, id| {
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

fn elementwise_pair(interp: &mut Interp, name: &str, site: &Site, args: Vec<Value>) -> EvalResult {
    arity(name, site, &args, 2, Some(2))?;
    let op = binary_op(name);
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

fn atan2(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    elementwise_pair(i, "atan2", s, a)
}
fn maximum(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    elementwise_pair(i, "maximum", s, a)
}
fn minimum(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    elementwise_pair(i, "minimum", s, a)
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

fn where_(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("where", site, &args, 3, Some(3))?;
    record(interp, "where", site, &args, |g, id| {
        let mask = args::tensor(g, id, "where", &args, site, 0)?;
        let a = args::operand(g, id, "where", &args, site, 1)?;
        let b = args::operand(g, id, "where", &args, site, 2)?;
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
    name: &str,
    op: ReduceOp,
    site: &Site,
    args: Vec<Value>,
) -> EvalResult {
    let parsed = split(name, args, site, 1, &["axes", "keepdims"])?;
    let axes = axes_of(name, parsed.keyword("axes"), site)?;
    let keepdims = match parsed.keyword("keepdims") {
        Some((v, i)) => bool_of(name, v, site, i)?,
        None => false,
    };
    let operands = parsed.positional;
    record(interp, name, site, &operands, |g, id| {
        let x = args::tensor(g, id, name, &operands, site, 0)?;
        Ok(g.reduce(op, x, axes.as_deref(), keepdims))
    })
}

/// `(sum x :axes [..] :keepdims ..)`, or the sum of a list of numbers.
fn sum(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
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
    reduce(interp, "sum", ReduceOp::Sum, site, args)
}

/// `max`: the reduction for one tensor (with `:axes` `:keepdims`), the
/// elementwise maximum for several arguments with a tensor among them, and
/// the host maximum for numbers.
fn max(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let positional = args
        .iter()
        .take_while(|a| !matches!(a, Value::Keyword(_)))
        .count();
    let any_tensor = args.iter().any(|a| matches!(a, Value::Tensor(_)));
    if any_tensor && positional == 1 {
        return reduce(interp, "max", ReduceOp::Max, site, args);
    }
    if any_tensor {
        if positional < args.len() {
            return Err(Flow::from(
                Diagnostic::error(codes::E_EVAL_008, "`max` of several tensors takes no keywords")
                    .with_primary(site.arg(positional), "")
                    .with_help("`:axes` and `:keepdims` belong to the reduction `(max x :axes [..])` of one tensor"),
            ));
        }
        return arith(interp, "max", site, args);
    }
    crate::builtins::host_max(site, &args)
}

fn reshape(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("reshape", site, &args, 2, Some(2))?;
    let shape = shape_of("reshape", &args[1], site, 1)?;
    record(interp, "reshape", site, &args[..1], |g, id| {
        let x = args::tensor(g, id, "reshape", &args, site, 0)?;
        Ok(g.reshape(x, shape))
    })
}

fn broadcast_to(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("broadcast-to", site, &args, 2, Some(2))?;
    let shape = shape_of("broadcast-to", &args[1], site, 1)?;
    record(interp, "broadcast-to", site, &args[..1], |g, id| {
        let x = args::tensor(g, id, "broadcast-to", &args, site, 0)?;
        Ok(g.broadcast_to(x, shape))
    })
}

fn transpose(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("transpose", site, &args, 2, Some(2))?;
    let perm = ints_of(
        "transpose",
        "a permutation (a vector of axes)",
        &args[1],
        site,
        1,
    )?;
    record(interp, "transpose", site, &args[..1], |g, id| {
        let x = args::tensor(g, id, "transpose", &args, site, 0)?;
        Ok(g.transpose(x, &perm))
    })
}

fn slice(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("slice", site, &args, 4, Some(4))?;
    let axis = int_of("slice", &args[1], site, 1)?;
    let start = int_of("slice", &args[2], site, 2)?;
    let stop = int_of("slice", &args[3], site, 3)?;
    record(interp, "slice", site, &args[..1], |g, id| {
        let x = args::tensor(g, id, "slice", &args, site, 0)?;
        Ok(g.slice(x, axis, start, stop))
    })
}

/// `(concat axis [a b ...])` on tensors; on lists and vectors it is
/// Clojure's `concat`.
fn concat(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if !matches!(args.first(), Some(Value::Int(_))) {
        let mut out = Vec::new();
        for (i, a) in args.iter().enumerate() {
            match a.as_seq() {
                Some(items) => out.extend(items),
                None => {
                    return Err(wrong_type(
                        "concat",
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
    arity("concat", site, &args, 2, Some(2))?;
    let axis = int_of("concat", &args[0], site, 0)?;
    let Some(parts) = args[1].as_seq() else {
        return Err(wrong_type(
            "concat",
            "a vector of tensors",
            &args[1],
            site,
            1,
        ));
    };
    let part_site = Site::bare(site.arg(1));
    record(interp, "concat", site, &[], |g, id| {
        let mut ids = Vec::new();
        for i in 0..parts.len() {
            ids.push(args::tensor(g, id, "concat", &parts, &part_site, i)?);
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

fn matmul(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    two_tensors(i, "matmul", s, a, Graph::matmul)
}
fn index(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    two_tensors(i, "index", s, a, Graph::index)
}

fn index_add(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("index-add", site, &args, 3, Some(3))?;
    record(interp, "index-add", site, &args, |g, id| {
        let base = args::tensor(g, id, "index-add", &args, site, 0)?;
        let ids = args::tensor(g, id, "index-add", &args, site, 1)?;
        let values = args::tensor(g, id, "index-add", &args, site, 2)?;
        Ok(g.index_add(base, ids, values))
    })
}

fn axis_kw(op: &str, parsed: &args::OpArgs, site: &Site, default: i64) -> EvalResult<i64> {
    parsed
        .keyword("axis")
        .map_or(Ok(default), |(v, i)| int_of(op, v, site, i))
}

fn gather(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split("gather", args, site, 2, &["axis"])?;
    let axis = axis_kw("gather", &parsed, site, -1)?;
    let operands = parsed.positional;
    record(interp, "gather", site, &operands, |g, id| {
        let x = args::tensor(g, id, "gather", &operands, site, 0)?;
        let idx = args::tensor(g, id, "gather", &operands, site, 1)?;
        Ok(g.gather(x, idx, axis))
    })
}

fn scatter_add(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split("scatter-add", args, site, 3, &["axis"])?;
    let axis = axis_kw("scatter-add", &parsed, site, -1)?;
    let operands = parsed.positional;
    record(interp, "scatter-add", site, &operands, |g, id| {
        let base = args::tensor(g, id, "scatter-add", &operands, site, 0)?;
        let idx = args::tensor(g, id, "scatter-add", &operands, site, 1)?;
        let values = args::tensor(g, id, "scatter-add", &operands, site, 2)?;
        Ok(g.scatter_add(base, idx, values, axis))
    })
}

fn linear_scan(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split("linear-scan", args, site, 2, &["axis", "reverse"])?;
    let axis = axis_kw("linear-scan", &parsed, site, 0)?;
    let reverse = parsed
        .keyword("reverse")
        .map_or(Ok(false), |(v, i)| bool_of("linear-scan", v, site, i))?;
    let operands = parsed.positional;
    record(interp, "linear-scan", site, &operands, |g, id| {
        let a = args::operand(g, id, "linear-scan", &operands, site, 0)?;
        let b = args::operand(g, id, "linear-scan", &operands, site, 1)?;
        Ok(g.linear_scan(a, b, axis, reverse))
    })
}

fn cast(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("cast", site, &args, 2, Some(2))?;
    let dtype = dtype_of("cast", &args[1], site, 1)?;
    record(interp, "cast", site, &args[..1], |g, id| {
        let x = args::tensor(g, id, "cast", &args, site, 0)?;
        Ok(Ok(g.cast(x, dtype)))
    })
}

fn dtype_kw(op: &str, parsed: &args::OpArgs, site: &Site, default: DType) -> EvalResult<DType> {
    parsed
        .keyword("dtype")
        .map_or(Ok(default), |(v, i)| dtype_of(op, v, site, i))
}

fn iota(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split("iota", args, site, 1, &["axis", "dtype"])?;
    let shape = shape_of("iota", &parsed.positional[0], site, 0)?;
    let axis = axis_kw("iota", &parsed, site, 0)?;
    let dtype = dtype_kw("iota", &parsed, site, DType::I32)?;
    record(interp, "iota", site, &[], |g, _| {
        Ok(g.iota(shape, axis, dtype))
    })
}

fn filled(interp: &mut Interp, name: &str, site: &Site, args: Vec<Value>, one: bool) -> EvalResult {
    let parsed = split(name, args, site, 1, &["dtype"])?;
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

fn zeros(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    filled(i, "zeros", s, a, false)
}
fn ones(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    filled(i, "ones", s, a, true)
}

fn full(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split("full", args, site, 2, &["dtype"])?;
    let shape = shape_of("full", &parsed.positional[0], site, 0)?;
    let value = match &parsed.positional[1] {
        Value::Int(n) => Scalar::Int(*n),
        Value::Float(x) => Scalar::Float(*x),
        Value::Bool(b) => Scalar::Bool(*b),
        other => return Err(wrong_type("full", "a number", other, site, 1)),
    };
    let default = if matches!(value, Scalar::Bool(_)) {
        DType::Bool
    } else {
        DType::F32
    };
    let dtype = dtype_kw("full", &parsed, site, default)?;
    record(interp, "full", site, &[], |g, _| {
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

fn zeros_like(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    like(i, "zeros-like", s, a, false)
}
fn ones_like(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    like(i, "ones-like", s, a, true)
}

fn normal(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split("normal", args, site, 1, &["std", "mean", "dtype"])?;
    let shape = shape_of("normal", &parsed.positional[0], site, 0)?;
    let std = parsed
        .keyword("std")
        .map_or(Ok(1.0), |(v, i)| float_of("normal", v, site, i))?;
    let mean = parsed
        .keyword("mean")
        .map_or(Ok(0.0), |(v, i)| float_of("normal", v, site, i))?;
    let dtype = dtype_kw("normal", &parsed, site, DType::F32)?;
    record(interp, "normal", site, &[], |g, _| {
        Ok(g.normal(shape, dtype, mean, std))
    })
}

fn uniform(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split("uniform", args, site, 1, &["low", "high", "dtype"])?;
    let shape = shape_of("uniform", &parsed.positional[0], site, 0)?;
    let low = parsed
        .keyword("low")
        .map_or(Ok(0.0), |(v, i)| float_of("uniform", v, site, i))?;
    let high = parsed
        .keyword("high")
        .map_or(Ok(1.0), |(v, i)| float_of("uniform", v, site, i))?;
    let dtype = dtype_kw("uniform", &parsed, site, DType::F32)?;
    record(interp, "uniform", site, &[], |g, _| {
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

fn shape(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("shape", site, &args, 1, Some(1))?;
    let (dims, _) = meta("shape", &args, site)?;
    Ok(Value::vector(
        dims.into_iter().map(|d| Value::Int(d as i64)).collect(),
    ))
}

fn rank(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("rank", site, &args, 1, Some(1))?;
    Ok(Value::Int(meta("rank", &args, site)?.0.len() as i64))
}

fn dim(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("dim", site, &args, 2, Some(2))?;
    let (dims, dtype) = meta("dim", &args, site)?;
    let axis = int_of("dim", &args[1], site, 1)?;
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

fn numel(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("numel", site, &args, 1, Some(1))?;
    Ok(Value::Int(
        meta("numel", &args, site)?.0.iter().product::<usize>() as i64,
    ))
}

fn dtype(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("dtype", site, &args, 1, Some(1))?;
    Ok(Value::keyword(meta("dtype", &args, site)?.1.name()))
}
