//! The tensor side of host arithmetic: `+ - * / pow quot rem mod`,
//! comparisons and `sqrt exp log floor ceil round` with a tensor among
//! their arguments (a left fold in which plain numbers at the front
//! combine on the host first), and the elementwise operations of one or
//! two operands the table lists (`neg`, `atan2`, ...), whose numbers
//! become splats.

use super::args;
use super::record::{record, record_named, Nodes};
use crate::codes;
use crate::eval::{arity, EvalResult, Flow, Interp, Site};
use crate::value::{short, Value};
use diag::Diagnostic;
use sexpgpu_graph::{BinaryOp, CompareOp, OpError, Operand, UnaryOp};

/// For the unaries that take no plain number.
pub(super) const TENSORS_ONLY: &str =
    "of the unaries only `neg`, `abs`, `sqrt`, `exp`, `log`, `floor`, `ceil` and `round` also take plain numbers";

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

/// `(neg x)`, `(sqrt x)` ... on a tensor. `help` says what to write for a
/// number instead; `None` for the host functions `sqrt exp log`, which
/// only get here with a tensor.
pub(super) fn unary(
    interp: &mut Interp,
    name: &str,
    op: UnaryOp,
    help: Option<&str>,
    site: &Site,
    args: Vec<Value>,
) -> EvalResult {
    arity(name, site, &args, 1, Some(1))?;
    if let Some(result) = host_number(name, op, &args[0], site) {
        return result;
    }
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
    record(interp, name, site, &args, |g, call| {
        let x = call.tensor(g, 0)?;
        Ok(g.unary(op, x))
    })
}

/// `(neg x)` and `(abs x)` of a plain number, as host arithmetic: an
/// integer stays an integer (its overflow is `E-EVAL-009`, as `(- x)`'s
/// is), a float a float. `None` for the other operations and for values
/// that are not numbers.
fn host_number(name: &str, op: UnaryOp, x: &Value, site: &Site) -> Option<EvalResult> {
    let result = match (op, x) {
        (UnaryOp::Neg, Value::Int(n)) => n.checked_neg().map(Value::Int),
        (UnaryOp::Abs, Value::Int(n)) => n.checked_abs().map(Value::Int),
        (UnaryOp::Neg, Value::Float(x)) => Some(Value::Float(-x)),
        (UnaryOp::Abs, Value::Float(x)) => Some(Value::Float(x.abs())),
        _ => return None,
    };
    Some(result.ok_or_else(|| crate::builtins::overflow(name, site)))
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
    record_named(interp, name, &inner, &operands, names, |g, call| {
        let x = call.operand(g, 0)?;
        let y = call.operand(g, 1)?;
        if let (Operand::Number(_), Operand::Number(_)) = (x, y) {
            return Ok(Err(OpError::not_a_tensor(format!(
                "{name}: expects at least one tensor"
            ))));
        }
        Ok(g.binary(op, x, y).map(Nodes::One))
    })
}

pub(super) fn elementwise_pair(
    interp: &mut Interp,
    name: &str,
    op: BinaryOp,
    site: &Site,
    args: Vec<Value>,
) -> EvalResult {
    arity(name, site, &args, 2, Some(2))?;
    record(interp, name, site, &args, |g, call| {
        let x = call.operand(g, 0)?;
        let y = call.operand(g, 1)?;
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
    record(interp, name, site, &args, |g, call| {
        let x = call.operand(g, 0)?;
        let y = call.operand(g, 1)?;
        Ok(g.compare(op, x, y))
    })
}
