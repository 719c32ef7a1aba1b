//! The host library (numbers here, collections and text in submodules),
//! registered with the evaluator. Arithmetic, `pow sqrt exp log` and the
//! comparisons hand a call with a tensor argument to the evaluator's
//! registered overload (the tensor operations, see `docs/sexpgpu/operations.md`);
//! this layer never names `trace`.

mod collections;
mod text;

use crate::codes;
use crate::eval::{arity, error, wrong_type, Builtin, EvalResult, Flow, Interp, Primitive, Site};
use crate::value::Value;
use diag::Diagnostic;

static NUMBERS: &[Builtin] = table! {
    "+" => add, "-" => sub, "*" => mul, "/" => div,
    "inc" => inc, "dec" => dec, "mod" => modulo, "rem" => rem, "quot" => quot,
    "<" => lt, ">" => gt, "<=" => le, ">=" => ge, "=" => eq, "not=" => ne, "==" => num_eq,
    "sqrt" => sqrt, "exp" => exp, "log" => log, "pow" => pow, "floor" => floor, "ceil" => ceil,
    "round" => round, "int" => to_int, "float" => to_float, "double" => to_float,
    "zero?" => is_zero, "pos?" => is_pos, "neg?" => is_neg, "even?" => is_even, "odd?" => is_odd,
};

/// Registers the host library's functions.
pub fn install(interp: &mut Interp) {
    for table in [NUMBERS, collections::TABLE, text::TABLE] {
        interp.register_builtins(table.iter().map(|b| b as &dyn Primitive));
    }
}

pub fn int_arg(name: &str, args: &[Value], site: &Site, i: usize) -> EvalResult<i64> {
    match &args[i] {
        Value::Int(n) => Ok(*n),
        other => Err(wrong_type(name, "an integer", other, site, i)),
    }
}

/// Whether a call goes to the tensor operations: a traced or a computed
/// tensor is among its arguments (a computed one enters a graph as a
/// constant, or outside one the operation runs at once).
fn has_tensor(args: &[Value]) -> bool {
    args.iter()
        .any(|a| matches!(a, Value::Tensor(_) | Value::HostTensor(_)))
}

#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

fn num(name: &str, args: &[Value], site: &Site, i: usize) -> EvalResult<Num> {
    match &args[i] {
        Value::Int(n) => Ok(Num::Int(*n)),
        Value::Float(x) => Ok(Num::Float(*x)),
        Value::HostTensor(_) => Err(Flow::from(
            Diagnostic::error(
                codes::E_EVAL_003,
                format!("`{name}` expects numbers, got a host tensor"),
            )
            .with_primary(site.arg(i), "")
            .with_help("turn it into numbers with `(to-vec t)`, or use a tensor operation (`+ - * / max` and the others take host tensors)"),
        )),
        other => Err(wrong_type(name, "numbers", other, site, i)),
    }
}

fn to_value(n: Num) -> Value {
    match n {
        Num::Int(i) => Value::Int(i),
        Num::Float(x) => Value::Float(x),
    }
}

fn as_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(x) => x,
    }
}

/// `E-EVAL-009`: an integer result that does not fit in 64 bits.
pub(crate) fn overflow(name: &str, site: &Site) -> Flow {
    Flow::from(
        Diagnostic::error(codes::E_EVAL_009, format!("integer overflow in `{name}`"))
            .with_primary(site.span, "")
            .with_help("integers are 64-bit; use floats (`1.0`) for larger values"),
    )
}

/// Folds numbers left to right with an integer rule and a float rule.
fn fold(
    name: &str,
    args: &[Value],
    site: &Site,
    init: Num,
    int: fn(i64, i64) -> Option<i64>,
    float: fn(f64, f64) -> f64,
) -> EvalResult {
    let mut acc = init;
    for i in 0..args.len() {
        let x = num(name, args, site, i)?;
        acc = match (acc, x) {
            (Num::Int(a), Num::Int(b)) => Num::Int(int(a, b).ok_or_else(|| overflow(name, site))?),
            (a, b) => Num::Float(float(as_f64(a), as_f64(b))),
        };
    }
    Ok(to_value(acc))
}

fn add(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload("+", site, args);
    }
    fold("+", &args, site, Num::Int(0), i64::checked_add, |a, b| {
        a + b
    })
}

fn mul(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload("*", site, args);
    }
    fold("*", &args, site, Num::Int(1), i64::checked_mul, |a, b| {
        a * b
    })
}

fn sub(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload("-", site, args);
    }
    arity("-", site, &args, 1, None)?;
    if args.len() == 1 {
        return match num("-", &args, site, 0)? {
            Num::Int(n) => n
                .checked_neg()
                .map(Value::Int)
                .ok_or_else(|| overflow("-", site)),
            Num::Float(x) => Ok(Value::Float(-x)),
        };
    }
    let first = num("-", &args, site, 0)?;
    let rest = fold(
        "+",
        &args[1..],
        &shifted(site),
        Num::Int(0),
        i64::checked_add,
        |a, b| a + b,
    )?;
    match (first, rest) {
        (Num::Int(a), Value::Int(b)) => a
            .checked_sub(b)
            .map(Value::Int)
            .ok_or_else(|| overflow("-", site)),
        (a, b) => Ok(Value::Float(as_f64(a) - b.as_f64().unwrap_or(0.0))),
    }
}

/// The site of a call without its first argument.
fn shifted(site: &Site) -> Site {
    Site {
        span: site.span,
        args: site.args.iter().skip(1).copied().collect(),
    }
}

fn div(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload("/", site, args);
    }
    arity("/", site, &args, 1, None)?;
    let mut acc = if args.len() == 1 {
        Num::Int(1)
    } else {
        num("/", &args, site, 0)?
    };
    let start = if args.len() == 1 { 0 } else { 1 };
    for i in start..args.len() {
        let d = num("/", &args, site, i)?;
        acc = match (acc, d) {
            (Num::Int(_), Num::Int(0)) => {
                return Err(Flow::from(
                    Diagnostic::error(codes::E_EVAL_009, "division by zero")
                        .with_primary(site.arg(i), "this is zero"),
                ))
            }
            // Exact integer quotients stay integers, as Clojure's ratios
            // would reduce; others become floats (there are no ratios here).
            (Num::Int(a), Num::Int(b)) if a.checked_rem(b) == Some(0) => Num::Int(a / b),
            (a, b) => Num::Float(as_f64(a) / as_f64(b)),
        };
    }
    Ok(to_value(acc))
}

fn inc(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("inc", site, &args, 1, Some(1))?;
    fold("inc", &args, site, Num::Int(1), i64::checked_add, |a, b| {
        a + b
    })
}

fn dec(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("dec", site, &args, 1, Some(1))?;
    match num("dec", &args, site, 0)? {
        Num::Int(n) => n
            .checked_sub(1)
            .map(Value::Int)
            .ok_or_else(|| overflow("dec", site)),
        Num::Float(x) => Ok(Value::Float(x - 1.0)),
    }
}

fn int_pair(name: &str, site: &Site, args: &[Value]) -> EvalResult<(Num, Num)> {
    arity(name, site, args, 2, Some(2))?;
    let (a, b) = (num(name, args, site, 0)?, num(name, args, site, 1)?);
    if matches!(b, Num::Int(0)) || matches!(b, Num::Float(x) if x == 0.0) {
        return Err(Flow::from(
            Diagnostic::error(codes::E_EVAL_009, format!("`{name}` by zero"))
                .with_primary(site.arg(1), "this is zero"),
        ));
    }
    Ok((a, b))
}

fn modulo(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload("mod", site, args);
    }
    Ok(match int_pair("mod", site, &args)? {
        (Num::Int(a), Num::Int(b)) => Value::Int(a.checked_rem(b).map_or(0, |r| {
            if r != 0 && (r < 0) != (b < 0) {
                r + b
            } else {
                r
            }
        })),
        (a, b) => {
            let (a, b) = (as_f64(a), as_f64(b));
            let r = a % b;
            Value::Float(if r != 0.0 && (r < 0.0) != (b < 0.0) {
                r + b
            } else {
                r
            })
        }
    })
}

fn rem(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload("rem", site, args);
    }
    Ok(match int_pair("rem", site, &args)? {
        (Num::Int(a), Num::Int(b)) => Value::Int(a.checked_rem(b).unwrap_or(0)),
        (a, b) => Value::Float(as_f64(a) % as_f64(b)),
    })
}

fn quot(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload("quot", site, args);
    }
    match int_pair("quot", site, &args)? {
        (Num::Int(a), Num::Int(b)) => a
            .checked_div(b)
            .map(Value::Int)
            .ok_or_else(|| overflow("quot", site)),
        (a, b) => Ok(Value::Float((as_f64(a) / as_f64(b)).trunc())),
    }
}

/// `max` on numbers; with a tensor it is the `max` reduction or the
/// elementwise maximum (see `trace::ops`).
pub fn host_max(site: &Site, args: &[Value]) -> EvalResult {
    extremum("max", site, args, |a, b| a > b)
}

/// `sort` of a list or vector of numbers or strings; with a tensor it is
/// the tensor `sort` (see `trace::ops`).
pub fn host_sort(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    collections::sort(interp, site, args)
}

/// `(repeat n x)`: a list of `n` copies; with a tensor first it is the
/// tensor `repeat` (see `trace::ops`).
pub fn host_repeat(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    collections::repeat(interp, site, args)
}

/// `min` on numbers; with a tensor it is the `min` reduction or the
/// elementwise minimum (see `trace::ops`).
pub fn host_min(site: &Site, args: &[Value]) -> EvalResult {
    extremum("min", site, args, |a, b| a < b)
}

fn extremum(name: &str, site: &Site, args: &[Value], better: fn(f64, f64) -> bool) -> EvalResult {
    arity(name, site, args, 1, None)?;
    let mut best = num(name, args, site, 0)?;
    for i in 1..args.len() {
        let x = num(name, args, site, i)?;
        if better(as_f64(x), as_f64(best)) || as_f64(x).is_nan() {
            best = x;
        }
    }
    Ok(to_value(best))
}

/// Chains a numeric comparison over every adjacent pair, as Clojure does.
fn compare(
    name: &'static str,
    interp: &mut Interp,
    site: &Site,
    args: Vec<Value>,
    ok: fn(f64, f64) -> bool,
) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload(name, site, args);
    }
    arity(name, site, &args, 1, None)?;
    let mut result = true;
    for i in 0..args.len() {
        let x = as_f64(num(name, &args, site, i)?);
        if i > 0 {
            result &= ok(as_f64(num(name, &args, site, i - 1)?), x);
        }
    }
    Ok(Value::Bool(result))
}

fn lt(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    compare("<", i, s, a, |a, b| a < b)
}
fn gt(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    compare(">", i, s, a, |a, b| a > b)
}
fn le(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    compare("<=", i, s, a, |a, b| a <= b)
}
fn ge(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    compare(">=", i, s, a, |a, b| a >= b)
}
fn num_eq(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    compare("==", i, s, a, |a, b| a == b)
}

fn eq(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload("=", site, args);
    }
    arity("=", site, &args, 1, None)?;
    Ok(Value::Bool(args.windows(2).all(|w| w[0] == w[1])))
}

fn ne(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload("not=", site, args);
    }
    arity("not=", site, &args, 1, None)?;
    Ok(Value::Bool(!args.windows(2).all(|w| w[0] == w[1])))
}

fn float_fn(
    name: &'static str,
    interp: &mut Interp,
    site: &Site,
    args: Vec<Value>,
    f: fn(f64) -> f64,
) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload(name, site, args);
    }
    arity(name, site, &args, 1, Some(1))?;
    Ok(Value::Float(f(as_f64(num(name, &args, site, 0)?))))
}

fn sqrt(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    float_fn("sqrt", i, s, a, f64::sqrt)
}
fn exp(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    float_fn("exp", i, s, a, f64::exp)
}
fn log(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    float_fn("log", i, s, a, f64::ln)
}

fn pow(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload("pow", site, args);
    }
    arity("pow", site, &args, 2, Some(2))?;
    match (num("pow", &args, site, 0)?, num("pow", &args, site, 1)?) {
        (Num::Int(a), Num::Int(b)) if (0..=u32::MAX as i64).contains(&b) => a
            .checked_pow(b as u32)
            .map(Value::Int)
            .ok_or_else(|| overflow("pow", site)),
        (a, b) => Ok(Value::Float(as_f64(a).powf(as_f64(b)))),
    }
}

fn rounding(name: &str, site: &Site, args: &[Value], f: fn(f64) -> f64) -> EvalResult {
    arity(name, site, args, 1, Some(1))?;
    match num(name, args, site, 0)? {
        Num::Int(n) => Ok(Value::Int(n)),
        Num::Float(x) => Ok(Value::Float(f(x))),
    }
}

fn floor(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    if has_tensor(&a) {
        return i.overload("floor", s, a);
    }
    rounding("floor", s, &a, f64::floor)
}
fn ceil(i: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    if has_tensor(&a) {
        return i.overload("ceil", s, a);
    }
    rounding("ceil", s, &a, f64::ceil)
}

fn round(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if has_tensor(&args) {
        return interp.overload("round", site, args);
    }
    arity("round", site, &args, 1, Some(1))?;
    match num("round", &args, site, 0)? {
        Num::Int(n) => Ok(Value::Int(n)),
        Num::Float(x) => float_to_int("round", x.round(), site),
    }
}

fn float_to_int(name: &str, x: f64, site: &Site) -> EvalResult {
    if x.is_finite() && x.abs() < 9.2e18 {
        Ok(Value::Int(x as i64))
    } else {
        Err(error(
            codes::E_EVAL_009,
            format!(
                "`{name}`: {} does not fit in a 64-bit integer",
                crate::value::format_float(x)
            ),
            site.span,
        ))
    }
}

fn to_int(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("int", site, &args, 1, Some(1))?;
    match num("int", &args, site, 0)? {
        Num::Int(n) => Ok(Value::Int(n)),
        Num::Float(x) => float_to_int("int", x.trunc(), site),
    }
}

fn to_float(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("float", site, &args, 1, Some(1))?;
    Ok(Value::Float(as_f64(num("float", &args, site, 0)?)))
}

fn predicate(
    name: &str,
    site: &Site,
    args: &[Value],
    int: fn(i64) -> bool,
    float: fn(f64) -> bool,
) -> EvalResult {
    arity(name, site, args, 1, Some(1))?;
    Ok(Value::Bool(match num(name, args, site, 0)? {
        Num::Int(n) => int(n),
        Num::Float(x) => float(x),
    }))
}

fn is_zero(_: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    predicate("zero?", s, &a, |n| n == 0, |x| x == 0.0)
}
fn is_pos(_: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    predicate("pos?", s, &a, |n| n > 0, |x| x > 0.0)
}
fn is_neg(_: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
    predicate("neg?", s, &a, |n| n < 0, |x| x < 0.0)
}

fn is_even(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("even?", site, &args, 1, Some(1))?;
    Ok(Value::Bool(int_arg("even?", &args, site, 0)? % 2 == 0))
}

fn is_odd(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("odd?", site, &args, 1, Some(1))?;
    Ok(Value::Bool(int_arg("odd?", &args, site, 0)? % 2 != 0))
}
