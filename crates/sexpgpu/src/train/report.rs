//! The reporting operations (`docs/sexpgpu/metrics.md`), recorded on the graph being
//! traced for the run to read back: `(metric :loss x)`, `(counter :tokens
//! n)`, `(tap-gradient x :name "h1")`, `(diagnostic cond "message")`; and
//! `(error! "E-NN-001" "message" :at x :note "...")`, which library code uses
//! to report its own mistakes as diagnostics. Misuse is `E-RUN-008`.

use crate::codes;
use crate::eval::{arity, EvalResult, Flow, Interp, Site};
use crate::trace::{self, current_graph, Report, ReportKind, ReportValue};
use crate::value::{short, Value};
use diag::Diagnostic;

fn misuse(op: &str, message: String, site: &Site, i: usize) -> Flow {
    Flow::from(
        Diagnostic::error(codes::E_RUN_008, format!("{op}: {message}"))
            .with_primary(site.arg(i), ""),
    )
}

fn name_of(op: &str, value: &Value, site: &Site, i: usize) -> EvalResult<String> {
    match value {
        Value::Keyword(k) | Value::Str(k) => Ok(k.to_string()),
        other => Err(misuse(
            op,
            format!(
                "the name must be a keyword such as `:loss`, got `{}`",
                short(other)
            ),
            site,
            i,
        )),
    }
}

/// A scalar of the graph being traced, or a number.
fn scalar(
    interp: &mut Interp,
    op: &str,
    value: &Value,
    site: &Site,
    i: usize,
) -> EvalResult<ReportValue> {
    let (_, id) = current_graph(interp, op, site)?;
    match value {
        Value::Int(n) => Ok(ReportValue::Number(*n as f64)),
        Value::Float(x) => Ok(ReportValue::Number(*x)),
        Value::Tensor(t) if t.graph == id && t.shape.rank() == 0 && t.dtype.is_numeric() => {
            Ok(ReportValue::Node(t.node))
        }
        Value::Tensor(t) if t.graph == id => Err(misuse(
            op,
            format!(
                "reports a number per step, so it needs a scalar [], got {}",
                t.describe()
            ),
            site,
            i,
        )
        .map_help("reduce it first, e.g. `(nn/mean x)`")),
        Value::Tensor(t) => Err(crate::trace::args::foreign(t, "this tensor", site.arg(i))),
        other => Err(misuse(
            op,
            format!("needs a scalar tensor or a number, got `{}`", short(other)),
            site,
            i,
        )),
    }
}

trait MapHelp {
    fn map_help(self, help: &str) -> Flow;
}

impl MapHelp for Flow {
    fn map_help(self, help: &str) -> Flow {
        match self {
            Flow::Error(d) => Flow::from(d.with_help(help)),
            other => other,
        }
    }
}

fn record(interp: &mut Interp, kind: ReportKind, name: String, value: ReportValue, site: &Site) {
    trace::add_report(
        interp,
        Report {
            kind,
            name,
            value,
            span: site.span,
        },
    );
}

/// `(metric :loss x)`: reports `x` each step, averaged over the logging window.
pub fn metric(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    report(interp, "metric", ReportKind::Metric, site, args)
}

/// `(counter :tokens n)`: adds `n` up over steps; the console shows its rate.
pub fn counter(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    report(interp, "counter", ReportKind::Counter, site, args)
}

/// `(op :name x)`, `metric`'s and `counter`'s form: records `x` as `kind`
/// and returns it.
fn report(
    interp: &mut Interp,
    op: &str,
    kind: ReportKind,
    site: &Site,
    args: Vec<Value>,
) -> EvalResult {
    arity(op, site, &args, 2, Some(2))?;
    let name = name_of(op, &args[0], site, 0)?;
    let value = scalar(interp, op, &args[1], site, 1)?;
    record(interp, kind, name, value, site);
    Ok(args[1].clone())
}

/// `(tap-gradient x :name "h1")`: `x` going forward; the norm of the
/// gradient reaching `x` is reported as the metric `grad/h1`.
pub fn tap_gradient(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let (_, id) = current_graph(interp, "tap-gradient", site)?;
    let name = match &args[..] {
        [_] => None,
        [_, Value::Keyword(k), n] if &**k == "name" => Some(name_of("tap-gradient", n, site, 2)?),
        _ => {
            return Err(crate::eval::error(
                codes::E_EVAL_002,
                "`tap-gradient` takes a tensor and `:name \"h1\"`",
                site.span,
            ))
        }
    };
    let node = match &args[0] {
        Value::Tensor(t) if t.graph == id && t.dtype.is_float() => t.node,
        Value::Tensor(t) if t.graph == id => {
            return Err(misuse(
                "tap-gradient",
                format!("only floats have gradients, this is {}", t.describe()),
                site,
                0,
            ))
        }
        Value::Tensor(t) => return Err(crate::trace::args::foreign(t, "this tensor", site.arg(0))),
        other => {
            return Err(misuse(
                "tap-gradient",
                format!("needs a tensor, got `{}`", short(other)),
                site,
                0,
            ))
        }
    };
    let name = name.unwrap_or_else(|| interp.text(site.arg(0)).to_string());
    record(
        interp,
        ReportKind::Tap,
        format!("grad/{name}"),
        ReportValue::Node(node),
        site,
    );
    Ok(args[0].clone())
}

/// `(diagnostic cond "message")`: the run stops with a diagnostic at this
/// form, naming the step, when any element of `cond` is true.
pub fn diagnostic(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("diagnostic", site, &args, 2, Some(2))?;
    let (_, id) = current_graph(interp, "diagnostic", site)?;
    let Value::Str(message) = &args[1] else {
        return Err(misuse(
            "diagnostic",
            format!("the message must be a string, got `{}`", short(&args[1])),
            site,
            1,
        ));
    };
    match &args[0] {
        Value::Tensor(t) if t.graph == id && t.dtype == sexpgpu_graph::DType::Bool => {
            record(
                interp,
                ReportKind::Diagnostic,
                message.to_string(),
                ReportValue::Node(t.node),
                site,
            );
            Ok(Value::Nil)
        }
        Value::Bool(false) => Ok(Value::Nil),
        Value::Bool(true) => Err(Flow::from(
            Diagnostic::error(codes::E_RUN_006, message.to_string())
                .with_primary(site.span, "this condition holds while tracing"),
        )),
        Value::Tensor(t) if t.graph != id => {
            Err(crate::trace::args::foreign(t, "this tensor", site.arg(0)))
        }
        other => Err(misuse(
            "diagnostic",
            format!(
                "the condition must be a boolean tensor, got `{}`",
                short(other)
            ),
            site,
            0,
        )),
    }
}

/// `(error! "E-NN-001" "message" :at x :note "...")`: stops evaluation with
/// a diagnostic. `:at` a traced tensor points at the form that made it.
pub fn error_bang(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let usage = "`error!` takes a code, a message, then `:at x` and `:note \"...\"`";
    let (Some(Value::Str(code)), Some(Value::Str(message))) = (args.first(), args.get(1)) else {
        return Err(crate::eval::error(codes::E_EVAL_002, usage, site.span));
    };
    let mut span = site.span;
    let mut notes = Vec::new();
    let mut rest = args[2..].chunks(2);
    for pair in rest.by_ref() {
        match pair {
            [Value::Keyword(k), Value::Tensor(t)] if &**k == "at" => {
                if let Some((graph, id)) = trace::active_graph(interp) {
                    if t.graph == id {
                        span = graph.node(t.node).span.unwrap_or(span);
                    }
                }
            }
            [Value::Keyword(k), _] if &**k == "at" => {}
            [Value::Keyword(k), Value::Str(note)] if &**k == "note" => notes.push(note.to_string()),
            _ => return Err(crate::eval::error(codes::E_EVAL_002, usage, site.span)),
        }
    }
    let Some(code) = codes::lookup(code) else {
        let message = format!("`{code}` is not a SexpGPU diagnostic code");
        return Err(crate::eval::error(codes::E_EVAL_003, message, site.span));
    };
    let mut d = Diagnostic::error(code, message.to_string()).with_primary(span, "");
    for note in notes {
        d = d.with_note(note);
    }
    Err(Flow::from(d))
}
