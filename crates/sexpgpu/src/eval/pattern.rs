//! Parameter lists and binding patterns: parsing `(x y & more)`, `[a [b c]]`,
//! `{:keys [a b] :or {b 1} :as m}` from forms, and binding values to them
//! with Clojure's rules (missing positions are nil, `& {:keys ..}` takes
//! keyword arguments). Arity mistakes are `E-EVAL-002`. Part of the
//! evaluator (calling a function binds its parameters); never names a layer above it.

use super::{Ctx, EvalResult, Flow, Interp, Site};
use crate::codes;
use crate::reader::{Form, FormKind};
use crate::value::{map_insert, short, Env, Lambda, Params, Pattern, Value};
use diag::{Diagnostic, Span};
use std::rc::Rc;

/// Parses a parameter list, written `(x y)` or `[x y]`. On a mistake,
/// returns the span of the offending piece.
pub fn parse_params(form: &Form) -> Result<Params, Span> {
    let items = match &form.kind {
        FormKind::List(items) | FormKind::Vector(items) => items,
        _ => return Err(form.span),
    };
    let (fixed, rest, all) = parse_seq(items)?;
    if all.is_some() {
        return Err(form.span);
    }
    Ok(Params {
        fixed,
        rest: rest.map(|r| *r),
    })
}

type SeqParts = (Vec<Pattern>, Option<Box<Pattern>>, Option<Rc<str>>);

fn parse_seq(items: &[Form]) -> Result<SeqParts, Span> {
    let mut fixed = Vec::new();
    let mut rest = None;
    let mut all = None;
    let mut i = 0;
    while i < items.len() {
        match &items[i].kind {
            FormKind::Symbol(s) if s == "&" => {
                let target = items.get(i + 1).ok_or(items[i].span)?;
                rest = Some(Box::new(parse_pattern(target)?));
                i += 2;
            }
            FormKind::Keyword(k) if k == "as" => {
                let name = items
                    .get(i + 1)
                    .and_then(Form::as_symbol)
                    .ok_or(items[i].span)?;
                all = Some(Rc::from(name));
                i += 2;
            }
            _ if rest.is_some() => return Err(items[i].span),
            _ => {
                fixed.push(parse_pattern(&items[i])?);
                i += 1;
            }
        }
    }
    Ok((fixed, rest, all))
}

/// Parses one binding target: a symbol, a vector or a `{:keys ...}` map.
pub fn parse_pattern(form: &Form) -> Result<Pattern, Span> {
    match &form.kind {
        FormKind::Symbol(s) if s != "&" => Ok(Pattern::Name(Rc::from(s.as_str()))),
        FormKind::Vector(items) => {
            let (items, rest, all) = parse_seq(items)?;
            Ok(Pattern::Seq { items, rest, all })
        }
        FormKind::Map(items) => parse_keys(items),
        _ => Err(form.span),
    }
}

fn parse_keys(items: &[Form]) -> Result<Pattern, Span> {
    let mut keys = Vec::new();
    let mut defaults = Vec::new();
    let mut all = None;
    for pair in items.chunks(2) {
        match (&pair[0].kind, &pair[1].kind) {
            (FormKind::Keyword(k), FormKind::Vector(names)) if k == "keys" => {
                for name in names {
                    keys.push(Rc::from(name.as_symbol().ok_or(name.span)?));
                }
            }
            (FormKind::Keyword(k), FormKind::Map(pairs)) if k == "or" => {
                for kv in pairs.chunks(2) {
                    let name = kv[0].as_symbol().ok_or(kv[0].span)?;
                    defaults.push((Rc::from(name), kv[1].clone()));
                }
            }
            (FormKind::Keyword(k), FormKind::Symbol(name)) if k == "as" => {
                all = Some(Rc::from(name.as_str()))
            }
            _ => return Err(pair[0].span.to(pair[1].span)),
        }
    }
    Ok(Pattern::Keys {
        keys,
        defaults,
        all,
    })
}

/// Picks the clause of `lambda` that takes this many arguments and binds
/// its parameters; returns the environment and the body to evaluate.
pub fn bind_params(
    interp: &mut Interp,
    lambda: &Rc<Lambda>,
    args: Vec<Value>,
    site: &Site,
) -> EvalResult<(Env, Rc<[Form]>)> {
    let accepts = |p: &Params| {
        if p.rest.is_some() {
            args.len() >= p.fixed.len()
        } else {
            args.len() == p.fixed.len()
        }
    };
    let Some(clause) = lambda.clauses.iter().find(|c| accepts(&c.params)) else {
        if let Some(e) = keyword_not_taken(lambda, &args, site) {
            return Err(e);
        }
        return Err(arity_error(lambda, args.len(), site));
    };
    let params = &clause.params;
    let mut env = lambda.env.clone();
    if let Some(name) = &lambda.name {
        env = env.bind(name.clone(), Value::Fn(lambda.clone()));
    }
    let n = params.fixed.len();
    let mut args = args.into_iter();
    for (i, pattern) in params.fixed.iter().enumerate() {
        let value = args.next().unwrap_or(Value::Nil);
        env = bind_pattern(interp, pattern, value, &env, site.arg(i))?;
    }
    if let Some(rest) = &params.rest {
        let rest_values: Vec<Value> = args.collect();
        let value = match rest {
            // `& {:keys [..]}` takes keyword arguments, as Clojure 1.11 does;
            // library functions take exactly their keywords, as builtins do.
            Pattern::Keys { keys, .. } => {
                if let Some(ns) = &lambda.namespace {
                    check_keywords(lambda, ns, keys, &rest_values, site, n)?;
                }
                pairs_to_map(rest_values)
            }
            _ if rest_values.is_empty() => Value::Nil,
            _ => Value::list(rest_values),
        };
        env = bind_pattern(interp, rest, value, &env, site.arg(n))?;
    }
    Ok((env, clause.body.clone()))
}

fn arity_error(lambda: &Lambda, got: usize, site: &Site) -> Flow {
    let name = lambda
        .name
        .as_deref()
        .map_or("this function".to_string(), |n| format!("`{n}`"));
    let counts: Vec<String> = lambda
        .clauses
        .iter()
        .map(|c| match (c.params.fixed.len(), c.params.rest.is_some()) {
            (n, true) => format!("at least {n}"),
            (n, false) => n.to_string(),
        })
        .collect();
    let plural = !(counts.len() == 1 && counts[0] == "1");
    let expected = format!(
        "{} argument{}",
        counts.join(" or "),
        if plural { "s" } else { "" }
    );
    Flow::from(
        Diagnostic::error(
            codes::E_EVAL_002,
            format!("{name} takes {expected}, got {got}"),
        )
        .with_primary(site.span, "")
        .with_secondary(lambda.span, "defined here"),
    )
}

/// A library function called with a keyword where it takes no more
/// arguments (`(nn/cross-entropy l t :label-smoothing 0.1)`): an unknown
/// keyword, as a builtin reports it, rather than a count of arguments.
fn keyword_not_taken(lambda: &Lambda, args: &[Value], site: &Site) -> Option<Flow> {
    let ns = lambda.namespace.as_deref()?;
    let name = format!("{ns}/{}", lambda.name.as_deref().unwrap_or("fn"));
    let clause = lambda
        .clauses
        .iter()
        .filter(|c| c.params.rest.is_none() && c.params.fixed.len() < args.len())
        .max_by_key(|c| c.params.fixed.len())?;
    let at = clause.params.fixed.len();
    let Value::Keyword(keyword) = &args[at] else {
        return None;
    };
    Some(Flow::from(
        Diagnostic::error(
            codes::E_EVAL_008,
            format!("`{name}` has no keyword `:{keyword}`"),
        )
        .with_primary(site.arg(at), "unknown keyword")
        .with_note(format!("`{name}` takes no keywords")),
    ))
}

/// A library function's keyword arguments: each one of its `:keys`, with a value.
fn check_keywords(
    lambda: &Lambda,
    ns: &str,
    keys: &[Rc<str>],
    given: &[Value],
    site: &Site,
    first: usize,
) -> EvalResult<()> {
    let name = format!("{ns}/{}", lambda.name.as_deref().unwrap_or("fn"));
    let allowed: Vec<String> = keys.iter().map(|k| format!("`:{k}`")).collect();
    for (i, pair) in given.chunks(2).enumerate() {
        let span = site.arg(first + 2 * i);
        let known = matches!(&pair[0], Value::Keyword(k) if keys.contains(k));
        if !known {
            let shown = short(&pair[0]);
            let mut d = Diagnostic::error(
                codes::E_EVAL_008,
                format!("`{name}` has no keyword `{shown}`"),
            )
            .with_primary(span, "unknown keyword")
            .with_note(format!("`{name}` takes {}", allowed.join(" ")));
            if let Value::Keyword(k) = &pair[0] {
                if let Some(best) = diag::closest(k, keys.iter().cloned()) {
                    d = d.with_help(format!("did you mean `:{best}`?"));
                }
            }
            return Err(Flow::from(d));
        }
        if pair.len() == 1 {
            return Err(Flow::from(
                Diagnostic::error(
                    codes::E_EVAL_008,
                    format!("keyword `{}` of `{name}` has no value", pair[0].repr()),
                )
                .with_primary(span, ""),
            ));
        }
    }
    Ok(())
}

fn pairs_to_map(values: Vec<Value>) -> Value {
    let mut map = Vec::new();
    for kv in values.chunks(2) {
        let value = kv.get(1).cloned().unwrap_or(Value::Nil);
        map_insert(&mut map, kv[0].clone(), value);
    }
    Value::Map(Rc::new(map))
}

/// Binds `value` to `pattern` in front of `env`.
pub fn bind_pattern(
    interp: &mut Interp,
    pattern: &Pattern,
    value: Value,
    env: &Env,
    span: Span,
) -> EvalResult<Env> {
    match pattern {
        Pattern::Name(name) => Ok(env.bind(name.clone(), value)),
        Pattern::Seq { items, rest, all } => {
            let Some(seq) = value.as_seq() else {
                return Err(super::error(
                    codes::E_EVAL_003,
                    format!("cannot destructure {} as a sequence", value.type_name()),
                    span,
                ));
            };
            let mut env = env.clone();
            for (i, item) in items.iter().enumerate() {
                env = bind_pattern(
                    interp,
                    item,
                    seq.get(i).cloned().unwrap_or(Value::Nil),
                    &env,
                    span,
                )?;
            }
            if let Some(rest) = rest {
                let tail: Vec<Value> = seq.iter().skip(items.len()).cloned().collect();
                let tail = if tail.is_empty() {
                    Value::Nil
                } else {
                    Value::list(tail)
                };
                env = bind_pattern(interp, rest, tail, &env, span)?;
            }
            if let Some(all) = all {
                env = env.bind(all.clone(), value);
            }
            Ok(env)
        }
        Pattern::Keys {
            keys,
            defaults,
            all,
        } => {
            if !matches!(value, Value::Map(_) | Value::Nil) {
                return Err(super::error(
                    codes::E_EVAL_003,
                    format!("cannot destructure {} as a map", value.type_name()),
                    span,
                ));
            }
            let mut env = env.clone();
            for key in keys {
                let found = value.map_get(&Value::Keyword(key.clone()));
                let bound = match (found, defaults.iter().find(|(k, _)| k == key)) {
                    (Some(v), _) => v,
                    (None, Some((_, default))) => interp.eval(default, &env, Ctx::TOP)?,
                    (None, None) => Value::Nil,
                };
                env = env.bind(key.clone(), bound);
            }
            if let Some(all) = all {
                env = env.bind(all.clone(), value);
            }
            Ok(env)
        }
    }
}
