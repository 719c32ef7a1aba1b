//! The core special forms, registered with the evaluator: `def defn fn
//! lambda let if when cond do quote quasiquote and or loop recur defmacro ->
//! ->>`. Each checks its own shape and reports a malformed use as
//! `E-EVAL-005`; truth tests on tensors are `E-FLOW-001`. Knows nothing of
//! tracing, training or libraries.

use crate::codes;
use crate::eval::pattern::{bind_pattern, parse_params, parse_pattern};
use crate::eval::{
    error, malformed, recur_outside, Ctx, EvalResult, Flow, Interp, Special, SpecialUse,
};
use crate::reader::{Form, FormKind};
use crate::value::{Clause, Env, Lambda, Value};
use diag::{Diagnostic, Span};
use std::rc::Rc;

/// The core special forms. `require`, `defgraph`, `defmodel` and `defrun`
/// are registered by the layers that own them (`nn`, `trace`, `train`).
static SPECIALS: &[Special] = &[
    Special {
        name: "quote",
        eval: quote,
        defines: false,
    },
    Special {
        name: "quasiquote",
        eval: |i, u, env, _| match u.args {
            [x] => quasiquote(i, x, env),
            _ => Err(malformed("quasiquote", "`form", u.form.span)),
        },
        defines: false,
    },
    Special {
        name: "unquote",
        eval: unquote_outside,
        defines: false,
    },
    Special {
        name: "unquote-splicing",
        eval: unquote_outside,
        defines: false,
    },
    Special {
        name: "do",
        eval: |i, u, env, ctx| i.eval_body(u.args, env, ctx),
        defines: false,
    },
    Special {
        name: "def",
        eval: |i, u, env, _| def(i, u.args, env, u.form.span),
        defines: true,
    },
    Special {
        name: "defn",
        eval: defn_form,
        defines: true,
    },
    Special {
        name: "defmacro",
        eval: defn_form,
        defines: true,
    },
    Special {
        name: "fn",
        eval: fn_form,
        defines: false,
    },
    Special {
        name: "lambda",
        eval: fn_form,
        defines: false,
    },
    Special {
        name: "let",
        eval: |i, u, env, ctx| let_form(i, u.args, env, ctx, u.form.span),
        defines: false,
    },
    Special {
        name: "if",
        eval: |i, u, env, ctx| if_form(i, u.args, env, ctx, u.form.span),
        defines: false,
    },
    Special {
        name: "when",
        eval: when_form,
        defines: false,
    },
    Special {
        name: "when-not",
        eval: when_form,
        defines: false,
    },
    Special {
        name: "cond",
        eval: |i, u, env, ctx| cond(i, u.args, env, ctx, u.form.span),
        defines: false,
    },
    Special {
        name: "and",
        eval: and_or_form,
        defines: false,
    },
    Special {
        name: "or",
        eval: and_or_form,
        defines: false,
    },
    Special {
        name: "loop",
        eval: |i, u, env, _| loop_form(i, u.args, env, u.form.span),
        defines: false,
    },
    Special {
        name: "recur",
        eval: |i, u, env, ctx| recur(i, u.args, env, ctx, u.form.span),
        defines: false,
    },
    Special {
        name: "->",
        eval: thread_form,
        defines: false,
    },
    Special {
        name: "->>",
        eval: thread_form,
        defines: false,
    },
];

/// Registers the core special forms.
pub fn install(interp: &mut Interp) {
    interp.register_specials(SPECIALS);
}

fn quote(_: &mut Interp, u: &SpecialUse, _: &Env, _: Ctx) -> EvalResult {
    match u.args {
        [x] => Ok(Value::from_form(x)),
        _ => Err(malformed("quote", "(quote form)", u.form.span)),
    }
}

fn unquote_outside(_: &mut Interp, u: &SpecialUse, _: &Env, _: Ctx) -> EvalResult {
    let name = u.name;
    Err(Flow::from(
        Diagnostic::error(codes::E_EVAL_012, format!("`{name}` outside a quasiquote"))
            .with_primary(u.form.span, "")
            .with_help("`~x` and `~@xs` only fill holes in a `` `template ``"),
    ))
}

fn defn_form(interp: &mut Interp, u: &SpecialUse, env: &Env, _: Ctx) -> EvalResult {
    defn(interp, u.name, u.args, env, u.form.span)
}

fn when_form(interp: &mut Interp, u: &SpecialUse, env: &Env, ctx: Ctx) -> EvalResult {
    when(interp, u.name == "when", u.args, env, ctx, u.form.span)
}

fn and_or_form(interp: &mut Interp, u: &SpecialUse, env: &Env, ctx: Ctx) -> EvalResult {
    and_or(interp, u.name == "and", u.args, env, ctx)
}

/// `->` threads each value in as the first argument of the next step, `->>` as the last.
fn thread_form(interp: &mut Interp, u: &SpecialUse, env: &Env, ctx: Ctx) -> EvalResult {
    let form = thread(u.name == "->", u.args, u.form.span)?;
    interp.eval(&form, env, ctx)
}

fn fn_form(interp: &mut Interp, u: &SpecialUse, env: &Env, _: Ctx) -> EvalResult {
    make_lambda(interp, u.name, None, u.args, env, u.form.span).map(|l| Value::Fn(Rc::new(l)))
}

/// Evaluates a test and takes its truth; a tensor's truth is only known when
/// the graph runs, so branching on one is `E-FLOW-001`, as is branching on a
/// computed tensor of more than one element.
pub fn truth(interp: &mut Interp, test: &Form, env: &Env, ctx: Ctx) -> EvalResult<bool> {
    let value = interp.eval(test, env, ctx.not_tail())?;
    truth_of(&value, test.span)
}

pub fn truth_of(value: &Value, span: Span) -> EvalResult<bool> {
    if let Value::Tensor(t) = value {
        return Err(Flow::from(
            Diagnostic::error(codes::E_FLOW_001, "branching on a tensor")
                .with_primary(span, format!("this is a tensor, {}", t.describe()))
                .with_note("a tensor's value is only known when the graph runs; `if`, `when`, `cond`, `and` and `or` decide while tracing")
                .with_help("choose elementwise with `(where mask a b)`"),
        ));
    }
    if let Value::HostTensor(t) = value {
        // A computed tensor has its values: one element decides as its
        // number would; more are ambiguous, as in NumPy.
        return match &t.to_f64s()[..] {
            [x] => Ok(*x != 0.0),
            _ => Err(Flow::from(
                Diagnostic::error(
                    codes::E_FLOW_001,
                    format!("branching on a host tensor of {} elements", t.numel()),
                )
                .with_primary(span, format!("this is a host tensor, {} {}", t.shape(), t.dtype()))
                .with_note("only a tensor of one element is true or false")
                .with_help("reduce it to one element first, e.g. `(max (cast mask :i32))`, or choose elementwise with `(where mask a b)`"),
            )),
        };
    }
    Ok(value.is_truthy())
}

fn def(interp: &mut Interp, args: &[Form], env: &Env, span: Span) -> EvalResult {
    let usage = "(def name value)";
    let (name, value) = match args {
        [name] => (name, None),
        [name, value] => (name, Some(value)),
        [name, Form {
            kind: FormKind::Str(_),
            ..
        }, value] => (name, Some(value)),
        _ => return Err(malformed("def", usage, span)),
    };
    let Some(name) = name.as_symbol() else {
        return Err(malformed("def", usage, name.span));
    };
    let value = match value {
        Some(form) => interp.eval(form, env, Ctx::TOP)?,
        None => Value::Nil,
    };
    interp.define_here(name, value);
    Ok(Value::symbol(name))
}

fn defn(interp: &mut Interp, which: &str, args: &[Form], env: &Env, span: Span) -> EvalResult {
    let usage = format!("({which} name (params...) body...)");
    let Some((name, rest)) = args.split_first() else {
        return Err(malformed(which, &usage, span));
    };
    let Some(name) = name.as_symbol() else {
        return Err(malformed(which, &usage, name.span));
    };
    let rest = skip_docstring(rest);
    let lambda = Rc::new(make_lambda(interp, which, Some(name), rest, env, span)?);
    let value = if which == "defmacro" {
        Value::Macro(lambda)
    } else {
        Value::Fn(lambda)
    };
    interp.define_here(name, value);
    Ok(Value::symbol(name))
}

/// `(fn name? (params) body...)`; `which` names the form for messages.
pub fn make_lambda(
    interp: &Interp,
    which: &str,
    name: Option<&str>,
    args: &[Form],
    env: &Env,
    span: Span,
) -> EvalResult<Lambda> {
    let usage = format!("({which} (params...) body...)");
    let (name, args) = match args {
        [Form {
            kind: FormKind::Symbol(n),
            ..
        }, rest @ ..]
            if name.is_none() =>
        {
            (Some(n.as_str()), rest)
        }
        _ => (name, args),
    };
    let clauses = if is_multi_arity(args) {
        args.iter()
            .map(|clause| match &clause.kind {
                FormKind::List(items) => parse_clause(&items[0], &items[1..], which, &usage),
                _ => Err(malformed(which, &usage, clause.span)),
            })
            .collect::<EvalResult<Vec<_>>>()?
    } else {
        let Some((params, body)) = args.split_first() else {
            return Err(malformed(which, &usage, span));
        };
        vec![parse_clause(params, body, which, &usage)?]
    };
    Ok(Lambda {
        name: name.map(Rc::from),
        clauses,
        env: env.clone(),
        span,
        namespace: interp.namespace.clone(),
        library: interp.in_library,
    })
}

/// `(fn ([x] ..) ([x y] ..))`: every form after the name is a list that
/// starts with a vector of parameters.
fn is_multi_arity(args: &[Form]) -> bool {
    !args.is_empty()
        && args.iter().all(|a| {
            matches!(&a.kind, FormKind::List(items)
                if matches!(items.first().map(|f| &f.kind), Some(FormKind::Vector(_))))
        })
}

fn parse_clause(params: &Form, body: &[Form], which: &str, usage: &str) -> EvalResult<Clause> {
    let params = parse_params(params).map_err(|s| malformed(which, usage, s))?;
    Ok(Clause {
        params,
        body: Rc::from(body),
    })
}

/// The `[name value ...]` vector and the body of `let` and `loop`.
fn binding_pairs<'f>(
    which: &str,
    usage: &str,
    args: &'f [Form],
    span: Span,
) -> EvalResult<(&'f [Form], &'f [Form])> {
    let Some((
        Form {
            kind: FormKind::Vector(bindings),
            ..
        },
        body,
    )) = args.split_first()
    else {
        return Err(malformed(which, usage, span));
    };
    if !bindings.len().is_multiple_of(2) {
        return Err(malformed(which, usage, args[0].span));
    }
    Ok((bindings, body))
}

/// `rest` past a docstring before the parameters, which is allowed and
/// ignored (`defn`, `defmacro`, `defmodel`).
pub(crate) fn skip_docstring(rest: &[Form]) -> &[Form] {
    match rest {
        [Form {
            kind: FormKind::Str(_),
            ..
        }, more @ ..]
            if !more.is_empty() =>
        {
            more
        }
        _ => rest,
    }
}

fn let_form(interp: &mut Interp, args: &[Form], env: &Env, ctx: Ctx, span: Span) -> EvalResult {
    let usage = "(let [name value ...] body...)";
    let (bindings, body) = binding_pairs("let", usage, args, span)?;
    let mut env = env.clone();
    for pair in bindings.chunks(2) {
        let pattern = parse_pattern(&pair[0]).map_err(|s| malformed("let", usage, s))?;
        let value = interp.eval(&pair[1], &env, ctx.not_tail())?;
        env = bind_pattern(interp, &pattern, value, &env, pair[1].span)?;
    }
    interp.eval_body(body, &env, ctx)
}

fn if_form(interp: &mut Interp, args: &[Form], env: &Env, ctx: Ctx, span: Span) -> EvalResult {
    let (test, then, otherwise) = match args {
        [t, a] => (t, a, None),
        [t, a, b] => (t, a, Some(b)),
        _ => return Err(malformed("if", "(if test then else)", span)),
    };
    if truth(interp, test, env, ctx)? {
        interp.eval(then, env, ctx)
    } else if let Some(otherwise) = otherwise {
        interp.eval(otherwise, env, ctx)
    } else {
        Ok(Value::Nil)
    }
}

fn when(
    interp: &mut Interp,
    wanted: bool,
    args: &[Form],
    env: &Env,
    ctx: Ctx,
    span: Span,
) -> EvalResult {
    let name = if wanted { "when" } else { "when-not" };
    let Some((test, body)) = args.split_first() else {
        return Err(malformed(name, &format!("({name} test body...)"), span));
    };
    if truth(interp, test, env, ctx)? == wanted {
        interp.eval_body(body, env, ctx)
    } else {
        Ok(Value::Nil)
    }
}

fn cond(interp: &mut Interp, args: &[Form], env: &Env, ctx: Ctx, span: Span) -> EvalResult {
    if !args.len().is_multiple_of(2) {
        return Err(malformed("cond", "(cond test value ... :else value)", span));
    }
    for pair in args.chunks(2) {
        if truth(interp, &pair[0], env, ctx)? {
            return interp.eval(&pair[1], env, ctx);
        }
    }
    Ok(Value::Nil)
}

fn and_or(interp: &mut Interp, is_and: bool, args: &[Form], env: &Env, ctx: Ctx) -> EvalResult {
    let mut last = Value::Bool(is_and);
    for (i, form) in args.iter().enumerate() {
        let inner = if i + 1 == args.len() {
            ctx
        } else {
            ctx.not_tail()
        };
        last = interp.eval(form, env, inner)?;
        if i + 1 < args.len() && truth_of(&last, form.span)? != is_and {
            return Ok(last);
        }
    }
    Ok(last)
}

fn loop_form(interp: &mut Interp, args: &[Form], env: &Env, span: Span) -> EvalResult {
    let usage = "(loop [name init ...] body...)";
    let (bindings, body) = binding_pairs("loop", usage, args, span)?;
    let mut patterns = Vec::new();
    let mut values = Vec::new();
    let mut init_env = env.clone();
    for pair in bindings.chunks(2) {
        let pattern = parse_pattern(&pair[0]).map_err(|s| malformed("loop", usage, s))?;
        let value = interp.eval(&pair[1], &init_env, Ctx::TOP)?;
        init_env = bind_pattern(interp, &pattern, value.clone(), &init_env, pair[1].span)?;
        patterns.push(pattern);
        values.push(value);
    }
    loop {
        let mut body_env = env.clone();
        for (pattern, value) in patterns.iter().zip(values) {
            body_env = bind_pattern(interp, pattern, value, &body_env, span)?;
        }
        match interp.eval_body(
            body,
            &body_env,
            Ctx {
                tail: true,
                in_loop: true,
            },
        ) {
            Err(Flow::Recur(next, recur_span)) => {
                if next.len() != patterns.len() {
                    return Err(error(
                        codes::E_EVAL_002,
                        format!(
                            "`recur` gives {} values to a `loop` of {} bindings",
                            next.len(),
                            patterns.len()
                        ),
                        recur_span,
                    ));
                }
                values = next;
            }
            other => return other,
        }
    }
}

fn recur(interp: &mut Interp, args: &[Form], env: &Env, ctx: Ctx, span: Span) -> EvalResult {
    if !ctx.in_loop {
        return Err(Flow::from(recur_outside(span)));
    }
    if !ctx.tail {
        return Err(Flow::from(
            Diagnostic::error(codes::E_EVAL_004, "`recur` not in tail position")
                .with_primary(span, "something is still to be done with this value")
                .with_help("`recur` must be the last thing its `loop` or function does"),
        ));
    }
    let values = interp.eval_all(args, env, ctx)?;
    Err(Flow::Recur(values, span))
}

/// `(-> x (f a) g)` is `(g (f x a))`; `->>` puts `x` last instead. Spans
/// stay those the user wrote, so errors point into the pipeline.
fn thread(first: bool, args: &[Form], span: Span) -> EvalResult<Form> {
    let name = if first { "->" } else { "->>" };
    let Some((init, steps)) = args.split_first() else {
        return Err(malformed(name, &format!("({name} value step...)"), span));
    };
    let mut acc = init.clone();
    for step in steps {
        let call = match &step.kind {
            FormKind::List(items) if !items.is_empty() => {
                let mut items = items.clone();
                if first {
                    items.insert(1, acc);
                } else {
                    items.push(acc);
                }
                items
            }
            _ => vec![step.clone(), acc],
        };
        acc = Form::new(FormKind::List(call), step.span);
    }
    Ok(acc)
}

fn quasiquote(interp: &mut Interp, form: &Form, env: &Env) -> EvalResult {
    let unquoted = |items: &[Form], which: &str| -> Option<Form> {
        match items {
            [head, x] if head.as_symbol() == Some(which) => Some(x.clone()),
            _ => None,
        }
    };
    let expand_items = |interp: &mut Interp, items: &[Form]| -> EvalResult<Vec<Value>> {
        let mut out = Vec::new();
        for item in items {
            if let FormKind::List(inner) = &item.kind {
                if let Some(x) = unquoted(inner, "unquote-splicing") {
                    let value = interp.eval(&x, env, Ctx::TOP)?;
                    let Some(seq) = value.as_seq() else {
                        return Err(error(
                            codes::E_EVAL_003,
                            format!("`~@` needs a list or vector, got {}", value.type_name()),
                            x.span,
                        ));
                    };
                    out.extend(seq);
                    continue;
                }
            }
            out.push(quasiquote(interp, item, env)?);
        }
        Ok(out)
    };
    match &form.kind {
        FormKind::List(items) => {
            if let Some(x) = unquoted(items, "unquote") {
                return interp.eval(&x, env, Ctx::TOP);
            }
            Ok(Value::list(expand_items(interp, items)?))
        }
        FormKind::Vector(items) => Ok(Value::vector(expand_items(interp, items)?)),
        FormKind::Map(items) => {
            let flat = expand_items(interp, items)?;
            let pairs = flat
                .chunks(2)
                .filter(|kv| kv.len() == 2)
                .map(|kv| (kv[0].clone(), kv[1].clone()));
            Ok(Value::Map(Rc::new(pairs.collect())))
        }
        _ => Ok(Value::from_form(form)),
    }
}
