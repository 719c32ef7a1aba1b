//! Arguments of tensor operations: positional and keyword splitting with
//! each op's exact keywords, shapes, axes, dtype keywords, tensor operands
//! (with the graph they belong to) and host data for `call`. Turns a graph
//! builder's `OpError` into a diagnostic naming the operands as written.

use crate::codes;
use crate::eval::{wrong_type, EvalResult, Flow, Interp, Site};
use crate::reader::FormKind;
use crate::value::{short, Traced, Value};
use diag::{Diagnostic, Span};
use sexpgpu_graph::{DType, Graph, Nested, NodeId, OpError, Operand, Scalar, Shape, Tensor};

/// The most elements one tensor may have (the graph crate's limit, which
/// loading files obeys too).
pub use sexpgpu_graph::MAX_ELEMENTS;

/// An op's arguments split into positional values and keyword values.
pub struct OpArgs {
    pub positional: Vec<Value>,
    /// Each keyword with its value and the value's argument position.
    keywords: Vec<(&'static str, Value, usize)>,
}

impl OpArgs {
    /// A keyword's value and its argument position (for spans).
    pub fn keyword(&self, name: &str) -> Option<(&Value, usize)> {
        self.keywords
            .iter()
            .find(|(k, _, _)| *k == name)
            .map(|(_, v, i)| (v, *i))
    }
}

/// Splits `args` into exactly `positional` leading values and keyword pairs
/// from `allowed`; anything else is `E-EVAL-002` or `E-EVAL-008`.
pub fn split(
    op: &str,
    args: Vec<Value>,
    site: &Site,
    positional: usize,
    allowed: &[&'static str],
) -> EvalResult<OpArgs> {
    let noun = if positional == 1 {
        "argument"
    } else {
        "arguments"
    };
    if args.len() < positional {
        let message = format!("`{op}` takes {positional} {noun}, got {}", args.len());
        return Err(crate::eval::error(codes::E_EVAL_002, message, site.span));
    }
    let mut args = args.into_iter();
    let positional_values: Vec<Value> = args.by_ref().take(positional).collect();
    let mut keywords: Vec<(&'static str, Value, usize)> = Vec::new();
    let mut index = positional;
    while let Some(key) = args.next() {
        let span = site.arg(index);
        let Value::Keyword(name) = &key else {
            let mut d = Diagnostic::error(
                codes::E_EVAL_002,
                format!("`{op}` takes {positional} {noun}, got more"),
            )
            .with_primary(span, "one too many");
            if !allowed.is_empty() {
                let list: Vec<String> = allowed.iter().map(|k| format!("`:{k}`")).collect();
                d = d.with_help(format!("options are passed by keyword: {}", list.join(" ")));
            }
            return Err(Flow::from(d));
        };
        let Some(&known) = allowed.iter().find(|k| **k == &**name) else {
            return Err(unknown_keyword(op, name, allowed, span));
        };
        let Some(value) = args.next() else {
            return Err(Flow::from(
                Diagnostic::error(
                    codes::E_EVAL_008,
                    format!("keyword `:{name}` of `{op}` has no value"),
                )
                .with_primary(span, "")
                .with_help(format!("write `:{name} value`")),
            ));
        };
        if keywords.iter().any(|(k, _, _)| *k == known) {
            return Err(crate::eval::error(
                codes::E_EVAL_008,
                format!("keyword `:{name}` given twice to `{op}`"),
                span,
            ));
        }
        keywords.push((known, value, index + 1));
        index += 2;
    }
    Ok(OpArgs {
        positional: positional_values,
        keywords,
    })
}

fn unknown_keyword(op: &str, name: &str, allowed: &[&str], span: Span) -> Flow {
    let mut d = Diagnostic::error(
        codes::E_EVAL_008,
        format!("`{op}` has no keyword `:{name}`"),
    )
    .with_primary(span, "unknown keyword");
    if allowed.is_empty() {
        d = d.with_note(format!("`{op}` takes no keywords"));
    } else {
        let list: Vec<String> = allowed.iter().map(|k| format!("`:{k}`")).collect();
        d = d.with_note(format!("`{op}` takes {}", list.join(" ")));
        if let Some(best) = diag::closest(name, allowed.iter().map(|k| std::rc::Rc::from(*k))) {
            d = d.with_help(format!("did you mean `:{best}`?"));
        }
    }
    Flow::from(d)
}

/// A tensor from another tracing: `E-FLOW-002`.
pub fn foreign(t: &Traced, what: &str, span: Span) -> Flow {
    Flow::from(
        Diagnostic::error(codes::E_FLOW_002, "a tensor from another graph")
            .with_primary(
                span,
                format!("{what} was traced in another graph ({})", t.describe()),
            )
            .with_note("each graph is traced on its own; its tensors do not exist in the others")
            .with_help("recompute it here, or pass it in as an input"),
    )
}

/// Argument `i` as a node of the graph being traced (`id`). Host tensors
/// enter as constants; numbers and other values are `E-DIM-003`.
pub fn tensor(
    graph: &mut Graph,
    id: u32,
    op: &str,
    args: &[Value],
    site: &Site,
    i: usize,
) -> EvalResult<NodeId> {
    match &args[i] {
        Value::Tensor(t) if t.graph == id => Ok(t.node),
        Value::Tensor(t) => Err(foreign(t, "this tensor", site.arg(i))),
        Value::HostTensor(t) => Ok(graph.constant((**t).clone())),
        other => Err(Flow::from(
            Diagnostic::error(
                codes::E_DIM_003,
                format!("`{op}` expects a tensor, got {}", other.type_name()),
            )
            .with_primary(site.arg(i), format!("this is `{}`", short(other))),
        )),
    }
}

/// Argument `i` as a tensor or a plain number (the overloaded operations).
pub fn operand(
    graph: &mut Graph,
    id: u32,
    op: &str,
    args: &[Value],
    site: &Site,
    i: usize,
) -> EvalResult<Operand> {
    match &args[i] {
        Value::Int(n) => Ok(Operand::Number(Scalar::Int(*n))),
        Value::Float(x) => Ok(Operand::Number(Scalar::Float(*x))),
        Value::Bool(b) => Ok(Operand::Number(Scalar::Bool(*b))),
        _ => tensor(graph, id, op, args, site, i).map(Operand::Tensor),
    }
}

/// A shape: a vector of non-negative integers with at most `MAX_ELEMENTS` elements.
pub fn shape_of(op: &str, value: &Value, site: &Site, i: usize) -> EvalResult<Shape> {
    let dims = ints_of(op, "a shape (a vector of integers)", value, site, i)?;
    let shape = Shape::from_i64(op, &dims).map_err(|e| op_error_at(e, site.arg(i)))?;
    let numel = shape
        .dims()
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d));
    if numel.is_none_or(|n| n > MAX_ELEMENTS) {
        return Err(Flow::from(
            Diagnostic::error(
                codes::E_DIM_001,
                format!("{op}: shape {shape} is too large"),
            )
            .with_primary(site.arg(i), "")
            .with_note(format!("a tensor may have at most {MAX_ELEMENTS} elements")),
        ));
    }
    Ok(shape)
}

/// A vector (or list) of integers.
pub fn ints_of(op: &str, what: &str, value: &Value, site: &Site, i: usize) -> EvalResult<Vec<i64>> {
    let items = match value {
        Value::Vector(xs) | Value::List(xs) => xs,
        other => return Err(wrong_type(op, what, other, site, i)),
    };
    items
        .iter()
        .map(|x| read(op, what, x, site, i, int))
        .collect()
}

/// `value` as `get` reads it; any other value is the wrong type (`what` is
/// what the operation takes).
fn read<T>(
    op: &str,
    what: &str,
    value: &Value,
    site: &Site,
    i: usize,
    get: fn(&Value) -> Option<T>,
) -> EvalResult<T> {
    get(value).ok_or_else(|| wrong_type(op, what, value, site, i))
}

fn int(value: &Value) -> Option<i64> {
    match value {
        Value::Int(n) => Some(*n),
        _ => None,
    }
}

pub fn int_of(op: &str, value: &Value, site: &Site, i: usize) -> EvalResult<i64> {
    read(op, "an integer", value, site, i, int)
}

pub fn float_of(op: &str, value: &Value, site: &Site, i: usize) -> EvalResult<f64> {
    read(op, "a number", value, site, i, Value::as_f64)
}

pub fn bool_of(op: &str, value: &Value, site: &Site, i: usize) -> EvalResult<bool> {
    let boolean = |value: &Value| match value {
        Value::Bool(b) => Some(*b),
        _ => None,
    };
    read(op, "true or false", value, site, i, boolean)
}

/// A dtype keyword; any other keyword (`:f16`) is `E-DIM-002`.
pub fn dtype_of(op: &str, value: &Value, site: &Site, i: usize) -> EvalResult<DType> {
    match value {
        Value::Keyword(k) => DType::from_keyword(k).ok_or_else(|| {
            Flow::from(
                Diagnostic::error(codes::E_DIM_002, format!("{op}: `:{k}` is not a dtype"))
                    .with_primary(site.arg(i), "")
                    .with_note("dtypes are `:f32` `:bf16` `:i32` `:i64` `:bool`"),
            )
        }),
        other => Err(wrong_type(
            op,
            "a dtype keyword like `:f32`",
            other,
            site,
            i,
        )),
    }
}

/// An `OpError` at one span, without operand notes.
pub fn op_error_at(e: OpError, span: Span) -> Flow {
    let mut d = Diagnostic::error(e.code(), e.message).with_primary(span, "");
    for note in e.notes {
        d = d.with_note(note);
    }
    Flow::from(d)
}

/// An operand's source text for a note: on one line, and cut to 40
/// characters so the note stays readable.
pub fn as_written(interp: &Interp, span: Span) -> String {
    shorten(interp.text(span))
}

/// Source text on one line, cut to 40 characters.
pub fn shorten(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(37).collect::<String>())
    } else {
        text
    }
}

/// An `OpError` at the call, with a first note naming each tensor operand as
/// written, with its shape and dtype: ``operands: `x` [2, 16] f32, ...``.
pub fn op_error(interp: &Interp, e: OpError, args: &[Value], site: &Site) -> Flow {
    let names: Vec<String> = (0..args.len())
        .map(|i| as_written(interp, site.arg(i)))
        .collect();
    op_error_named(e, args, &names, site.span)
}

/// An `OpError` at `span`, naming each tensor operand by `names` (what the
/// user wrote for it) with its shape and dtype.
pub fn op_error_named(e: OpError, args: &[Value], names: &[String], span: Span) -> Flow {
    let described: Vec<String> = args
        .iter()
        .zip(names)
        .filter_map(|(a, name)| match a {
            Value::Tensor(t) => Some(format!("`{name}` {}", t.describe())),
            Value::HostTensor(t) => Some(format!("`{name}` {} {}", t.shape(), t.dtype())),
            _ => None,
        })
        .collect();
    let mut d = Diagnostic::error(e.code(), e.message).with_primary(span, "");
    if !described.is_empty() {
        let noun = if described.len() == 1 {
            "operand"
        } else {
            "operands"
        };
        d = d.with_note(format!("{noun}: {}", described.join(", ")));
    }
    for note in e.notes {
        d = d.with_note(note);
    }
    Flow::from(d)
}

/// How to name the `n` items of an argument written at `span` in operand
/// notes: each item as written when it is a literal vector or list of `n`
/// forms (`[a b]`), else the argument indexed (`` parts[0] ``).
pub fn item_names(interp: &Interp, span: Span, n: usize) -> Vec<String> {
    let text = interp.text(span);
    let read = crate::reader::read(span.file, text);
    if let [form] = &read.forms[..] {
        if let FormKind::Vector(items) | FormKind::List(items) = &form.kind {
            if items.len() == n && read.diagnostics.is_empty() {
                return items
                    .iter()
                    .map(|item| {
                        let at = Span::new(
                            span.file,
                            span.start + item.span.start,
                            span.start + item.span.end,
                        );
                        as_written(interp, at)
                    })
                    .collect();
            }
        }
    }
    let whole = as_written(interp, span);
    (0..n).map(|i| format!("{whole}[{i}]")).collect()
}

/// A `call` argument as a host tensor of the input's shape and dtype.
pub fn host_tensor(
    value: &Value,
    name: &str,
    shape: &Shape,
    dtype: DType,
    site: &Site,
    i: usize,
) -> EvalResult<Tensor> {
    let span = site.arg(i);
    let mismatch = |got: String| {
        Flow::from(
            Diagnostic::error(
                codes::E_DIM_001,
                format!("call: input `{name}` is {shape} {dtype}, but the argument is {got}"),
            )
            .with_primary(span, ""),
        )
    };
    if let Value::HostTensor(t) = value {
        if t.shape() != shape || t.dtype() != dtype {
            return Err(mismatch(format!("{} {}", t.shape(), t.dtype())));
        }
        return Ok((**t).clone());
    }
    let nested = nested_of(value, 0).ok_or_else(|| {
        Flow::from(
            Diagnostic::error(
                codes::E_EVAL_003,
                format!(
                    "call: input `{name}` needs nested vectors of numbers, got {}",
                    value.type_name()
                ),
            )
            .with_primary(span, format!("this is `{}`", short(value))),
        )
    })?;
    let mut dims = Vec::new();
    let mut probe = &nested;
    while let Nested::List(items) = probe {
        dims.push(items.len());
        match items.first() {
            Some(first) => probe = first,
            None => break,
        }
    }
    if !rectangular(&nested, &dims) {
        return Err(Flow::from(
            Diagnostic::error(
                codes::E_DIM_001,
                format!("call: the argument for `{name}` is ragged"),
            )
            .with_primary(span, "")
            .with_note("every row of a nested vector must have the same length"),
        ));
    }
    if dims != shape.dims() {
        return Err(mismatch(format!("shaped {}", Shape::new(dims))));
    }
    Tensor::from_nested(&nested, dtype).map_err(|e| {
        Flow::from(
            Diagnostic::error(
                codes::E_DIM_002,
                format!("call: input `{name}` is {dtype}: {}", e.message),
            )
            .with_primary(span, ""),
        )
    })
}

fn nested_of(value: &Value, depth: usize) -> Option<Nested> {
    match value {
        Value::Int(n) => Some(Nested::Scalar(Scalar::Int(*n))),
        Value::Float(x) => Some(Nested::Scalar(Scalar::Float(*x))),
        Value::Bool(b) => Some(Nested::Scalar(Scalar::Bool(*b))),
        Value::Vector(xs) | Value::List(xs) if depth < 64 => xs
            .iter()
            .map(|x| nested_of(x, depth + 1))
            .collect::<Option<Vec<_>>>()
            .map(Nested::List),
        _ => None,
    }
}

fn rectangular(value: &Nested, dims: &[usize]) -> bool {
    match (value, dims.split_first()) {
        (Nested::Scalar(_), None) => true,
        (Nested::List(items), Some((&n, rest))) => {
            items.len() == n && items.iter().all(|x| rectangular(x, rest))
        }
        _ => false,
    }
}
