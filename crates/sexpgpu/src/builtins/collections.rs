//! Host library for lists, vectors and maps, and the higher-order functions
//! (`map filter reduce apply ...`). Sequences are eager; sizes are capped so
//! a program cannot ask the host for unbounded memory (`E-EVAL-013`).

use super::int_arg;
use crate::codes;
use crate::eval::{arity, error, wrong_type, Builtin, EvalResult, Flow, Interp, Site};
use crate::value::{map_insert, short, Value};
use diag::Diagnostic;
use std::rc::Rc;

/// The most elements `range` and `repeat` will make.
pub const MAX_SEQ: i64 = 10_000_000;

pub static TABLE: &[Builtin] = table! {
    "list" => list, "vector" => vector, "vec" => vec, "hash-map" => hash_map,
    "count" => count, "first" => first, "second" => second, "last" => last,
    "rest" => rest, "next" => next, "cons" => cons, "conj" => conj, "nth" => nth,
    "get" => get, "get-in" => get_in, "assoc" => assoc, "dissoc" => dissoc, "merge" => merge,
    "keys" => keys, "vals" => vals, "contains?" => contains,
    "map" => map, "mapv" => mapv, "filter" => filter, "remove" => remove, "reduce" => reduce,
    "range" => range, "take" => take, "drop" => drop, "reverse" => reverse,
    "into" => into, "apply" => apply, "identity" => identity, "empty?" => is_empty,
    "every?" => every, "some" => some, "zipmap" => zipmap,
    "not" => not, "seq" => seq, "update" => update,
};

fn seq_arg(name: &str, args: &[Value], site: &Site, i: usize) -> EvalResult<Vec<Value>> {
    args[i]
        .as_seq()
        .ok_or_else(|| wrong_type(name, "a list, vector or map", &args[i], site, i))
}

fn list(_: &mut Interp, _: &Site, args: Vec<Value>) -> EvalResult {
    Ok(Value::list(args))
}

fn vector(_: &mut Interp, _: &Site, args: Vec<Value>) -> EvalResult {
    Ok(Value::vector(args))
}

fn vec(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("vec", site, &args, 1, Some(1))?;
    Ok(Value::vector(seq_arg("vec", &args, site, 0)?))
}

fn hash_map(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if !args.len().is_multiple_of(2) {
        return Err(error(
            codes::E_EVAL_002,
            "`hash-map` takes keys and values in pairs",
            site.span,
        ));
    }
    let mut map = Vec::new();
    for kv in args.chunks(2) {
        map_insert(&mut map, kv[0].clone(), kv[1].clone());
    }
    Ok(Value::Map(Rc::new(map)))
}

fn count(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("count", site, &args, 1, Some(1))?;
    let n = match &args[0] {
        Value::Map(m) => m.len(),
        Value::Str(s) => s.chars().count(),
        _ => seq_arg("count", &args, site, 0)?.len(),
    };
    Ok(Value::Int(n as i64))
}

fn first(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("first", site, &args, 1, Some(1))?;
    Ok(seq_arg("first", &args, site, 0)?
        .into_iter()
        .next()
        .unwrap_or(Value::Nil))
}

fn second(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("second", site, &args, 1, Some(1))?;
    Ok(seq_arg("second", &args, site, 0)?
        .into_iter()
        .nth(1)
        .unwrap_or(Value::Nil))
}

fn last(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("last", site, &args, 1, Some(1))?;
    Ok(seq_arg("last", &args, site, 0)?.pop().unwrap_or(Value::Nil))
}

fn rest(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("rest", site, &args, 1, Some(1))?;
    Ok(Value::list(
        seq_arg("rest", &args, site, 0)?
            .into_iter()
            .skip(1)
            .collect(),
    ))
}

fn next(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("next", site, &args, 1, Some(1))?;
    let tail = seq_arg("next", &args, site, 0)?.into_iter().skip(1);
    Ok(list_or_nil(tail.collect()))
}

fn seq(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("seq", site, &args, 1, Some(1))?;
    Ok(list_or_nil(seq_arg("seq", &args, site, 0)?))
}

/// `items` as a list, or `nil` when there are none (`next`, `seq`).
fn list_or_nil(items: Vec<Value>) -> Value {
    if items.is_empty() {
        Value::Nil
    } else {
        Value::list(items)
    }
}

fn cons(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("cons", site, &args, 2, Some(2))?;
    let mut items = vec![args[0].clone()];
    items.extend(seq_arg("cons", &args, site, 1)?);
    Ok(Value::list(items))
}

/// `conj` adds where the collection grows cheaply: vectors at the end,
/// lists at the front, maps by `[key value]` pairs.
fn conj(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("conj", site, &args, 1, None)?;
    let added = args[1..].iter().cloned();
    match &args[0] {
        Value::Vector(xs) | Value::List(xs) if matches!(args[0], Value::Vector(_)) => {
            let mut items = xs.to_vec();
            items.extend(added);
            Ok(Value::vector(items))
        }
        Value::List(xs) => {
            let mut items: Vec<Value> = added.rev().collect();
            items.extend(xs.iter().cloned());
            Ok(Value::list(items))
        }
        Value::Nil => Ok(Value::list(added.rev().collect())),
        Value::Map(m) => {
            let mut map = m.to_vec();
            for (i, pair) in args.iter().enumerate().skip(1) {
                match pair.as_seq() {
                    Some(kv) if kv.len() == 2 => map_insert(&mut map, kv[0].clone(), kv[1].clone()),
                    _ => return Err(wrong_type("conj", "a [key value] pair", pair, site, i)),
                }
            }
            Ok(Value::Map(Rc::new(map)))
        }
        other => Err(wrong_type("conj", "a collection", other, site, 0)),
    }
}

fn nth(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("nth", site, &args, 2, Some(3))?;
    let items = seq_arg("nth", &args, site, 0)?;
    let i = int_arg("nth", &args, site, 1)?;
    match usize::try_from(i).ok().and_then(|i| items.get(i)) {
        Some(v) => Ok(v.clone()),
        None if args.len() == 3 => Ok(args[2].clone()),
        None => Err(Flow::from(
            Diagnostic::error(
                codes::E_EVAL_010,
                format!(
                    "index {i} out of range for {} of {} elements",
                    args[0].type_name(),
                    items.len()
                ),
            )
            .with_primary(site.arg(1), "")
            .with_help(
                "pass a default as a third argument to get it instead: `(nth xs i default)`",
            ),
        )),
    }
}

fn lookup(coll: &Value, key: &Value) -> Option<Value> {
    match (coll, key) {
        (Value::Map(_), _) => coll.map_get(key),
        (Value::Vector(xs), Value::Int(i)) => {
            usize::try_from(*i).ok().and_then(|i| xs.get(i).cloned())
        }
        _ => None,
    }
}

fn get(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("get", site, &args, 2, Some(3))?;
    Ok(lookup(&args[0], &args[1]).unwrap_or_else(|| args.get(2).cloned().unwrap_or(Value::Nil)))
}

fn get_in(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("get-in", site, &args, 2, Some(3))?;
    let mut current = args[0].clone();
    for key in seq_arg("get-in", &args, site, 1)? {
        match lookup(&current, &key) {
            Some(v) => current = v,
            None => return Ok(args.get(2).cloned().unwrap_or(Value::Nil)),
        }
    }
    Ok(current)
}

fn assoc(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    if args.len() < 3 || args.len().is_multiple_of(2) {
        return Err(error(
            codes::E_EVAL_002,
            "`assoc` takes a collection, then keys and values in pairs",
            site.span,
        ));
    }
    match &args[0] {
        Value::Map(_) | Value::Nil => {
            let mut map = match &args[0] {
                Value::Map(m) => m.to_vec(),
                _ => Vec::new(),
            };
            for kv in args[1..].chunks(2) {
                map_insert(&mut map, kv[0].clone(), kv[1].clone());
            }
            Ok(Value::Map(Rc::new(map)))
        }
        Value::Vector(xs) => {
            let mut items = xs.to_vec();
            for (pair_index, kv) in args[1..].chunks(2).enumerate() {
                let i = match &kv[0] {
                    Value::Int(i) if *i >= 0 && (*i as usize) <= items.len() => *i as usize,
                    other => {
                        return Err(Flow::from(
                            Diagnostic::error(
                                codes::E_EVAL_010,
                                format!(
                                    "`assoc` index `{}` out of range for a vector of {} elements",
                                    short(other),
                                    items.len()
                                ),
                            )
                            .with_primary(site.arg(1 + 2 * pair_index), ""),
                        ))
                    }
                };
                if i == items.len() {
                    items.push(kv[1].clone());
                } else {
                    items[i] = kv[1].clone();
                }
            }
            Ok(Value::vector(items))
        }
        other => Err(wrong_type("assoc", "a map or vector", other, site, 0)),
    }
}

fn dissoc(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("dissoc", site, &args, 1, None)?;
    match &args[0] {
        Value::Map(m) => Ok(Value::Map(Rc::new(
            m.iter()
                .filter(|(k, _)| !args[1..].contains(k))
                .cloned()
                .collect(),
        ))),
        Value::Nil => Ok(Value::Nil),
        other => Err(wrong_type("dissoc", "a map", other, site, 0)),
    }
}

fn merge(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let mut map = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        match arg {
            Value::Map(m) => m
                .iter()
                .for_each(|(k, v)| map_insert(&mut map, k.clone(), v.clone())),
            Value::Nil => {}
            other => return Err(wrong_type("merge", "maps", other, site, i)),
        }
    }
    Ok(Value::Map(Rc::new(map)))
}

fn keys(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    entry_parts("keys", site, &args, |(k, _)| k.clone())
}

fn vals(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    entry_parts("vals", site, &args, |(_, v)| v.clone())
}

/// `keys` and `vals`: `part` of each entry of a map, in order (nil for nil).
fn entry_parts(
    name: &str,
    site: &Site,
    args: &[Value],
    part: fn(&(Value, Value)) -> Value,
) -> EvalResult {
    arity(name, site, args, 1, Some(1))?;
    match &args[0] {
        Value::Map(m) => Ok(Value::list(m.iter().map(part).collect())),
        Value::Nil => Ok(Value::Nil),
        other => Err(wrong_type(name, "a map", other, site, 0)),
    }
}

fn contains(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("contains?", site, &args, 2, Some(2))?;
    Ok(Value::Bool(lookup(&args[0], &args[1]).is_some()))
}

/// Calls `f` from library code: the call site is the library call's.
fn call(interp: &mut Interp, f: &Value, args: Vec<Value>, site: &Site) -> EvalResult {
    interp.apply(f, args, &Site::bare(site.span))
}

fn map_items(
    interp: &mut Interp,
    name: &str,
    site: &Site,
    args: &[Value],
) -> EvalResult<Vec<Value>> {
    arity(name, site, args, 2, None)?;
    let seqs = (1..args.len())
        .map(|i| seq_arg(name, args, site, i))
        .collect::<EvalResult<Vec<_>>>()?;
    let n = seqs.iter().map(Vec::len).min().unwrap_or(0);
    (0..n)
        .map(|i| {
            call(
                interp,
                &args[0],
                seqs.iter().map(|s| s[i].clone()).collect(),
                site,
            )
        })
        .collect()
}

fn map(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    Ok(Value::list(map_items(interp, "map", site, &args)?))
}

fn mapv(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    Ok(Value::vector(map_items(interp, "mapv", site, &args)?))
}

fn keep(interp: &mut Interp, name: &str, site: &Site, args: &[Value], wanted: bool) -> EvalResult {
    arity(name, site, args, 2, Some(2))?;
    let mut out = Vec::new();
    for item in seq_arg(name, args, site, 1)? {
        let verdict = call(interp, &args[0], vec![item.clone()], site)?;
        if crate::special::truth_of(&verdict, site.span)? == wanted {
            out.push(item);
        }
    }
    Ok(Value::list(out))
}

fn filter(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    keep(interp, "filter", site, &args, true)
}

fn remove(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    keep(interp, "remove", site, &args, false)
}

fn reduce(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("reduce", site, &args, 2, Some(3))?;
    let items = seq_arg("reduce", &args, site, args.len() - 1)?;
    let mut items = items.into_iter();
    let mut acc = if args.len() == 3 {
        args[1].clone()
    } else {
        match items.next() {
            Some(first) => first,
            None => return call(interp, &args[0], Vec::new(), site),
        }
    };
    for item in items {
        acc = call(interp, &args[0], vec![acc, item], site)?;
    }
    Ok(acc)
}

fn too_large(name: &str, n: i64, site: &Site) -> Flow {
    Flow::from(
        Diagnostic::error(
            codes::E_EVAL_013,
            format!("`{name}` would make {n} elements, more than the host allows ({MAX_SEQ})"),
        )
        .with_primary(site.span, "")
        .with_help("large data belongs in tensors: `(iota [n])`, `(zeros [n])`"),
    )
}

fn range(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("range", site, &args, 1, Some(3))?;
    let ints = (0..args.len())
        .map(|i| int_arg("range", &args, site, i))
        .collect::<EvalResult<Vec<_>>>()?;
    let (start, end, step) = match ints[..] {
        [end] => (0, end, 1),
        [start, end] => (start, end, 1),
        [start, end, step] => (start, end, step),
        _ => unreachable!("arity checked"),
    };
    if step == 0 {
        return Err(error(
            codes::E_EVAL_009,
            "`range` with a step of zero never ends",
            site.arg(2),
        ));
    }
    let n = ((end as i128 - start as i128) + (step as i128 - step.signum() as i128)) / step as i128;
    let n = n.max(0);
    if n > MAX_SEQ as i128 {
        return Err(too_large("range", n.min(i64::MAX as i128) as i64, site));
    }
    Ok(Value::list(
        (0..n as i64)
            .map(|i| Value::Int(start + i * step))
            .collect(),
    ))
}

/// The arguments of `take` and `drop`: a count (a negative one is zero)
/// and a sequence.
fn count_and_seq(name: &str, site: &Site, args: &[Value]) -> EvalResult<(usize, Vec<Value>)> {
    arity(name, site, args, 2, Some(2))?;
    let n = int_arg(name, args, site, 0)?.max(0) as usize;
    Ok((n, seq_arg(name, args, site, 1)?))
}

fn take(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let (n, items) = count_and_seq("take", site, &args)?;
    Ok(Value::list(items.into_iter().take(n).collect()))
}

fn drop(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let (n, items) = count_and_seq("drop", site, &args)?;
    Ok(Value::list(items.into_iter().skip(n).collect()))
}

fn reverse(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("reverse", site, &args, 1, Some(1))?;
    Ok(Value::list(
        seq_arg("reverse", &args, site, 0)?
            .into_iter()
            .rev()
            .collect(),
    ))
}

pub(super) fn sort(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("sort", site, &args, 1, Some(1))?;
    let mut items = seq_arg("sort", &args, site, 0)?;
    if let Some(i) = items
        .iter()
        .position(|v| !v.is_number() && !matches!(v, Value::Str(_)))
    {
        return Err(wrong_type("sort", "numbers or strings", &items[i], site, 0));
    }
    items.sort_by(|a, b| match (a, b) {
        (Value::Str(x), Value::Str(y)) => x.cmp(y),
        _ => a
            .as_f64()
            .unwrap_or(f64::NAN)
            .total_cmp(&b.as_f64().unwrap_or(f64::NAN)),
    });
    Ok(Value::list(items))
}

fn into(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("into", site, &args, 2, Some(2))?;
    let mut conj_args = vec![args[0].clone()];
    conj_args.extend(seq_arg("into", &args, site, 1)?);
    conj(interp, site, conj_args)
}

fn apply(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("apply", site, &args, 2, None)?;
    let mut call_args = args[1..args.len() - 1].to_vec();
    call_args.extend(seq_arg("apply", &args, site, args.len() - 1)?);
    call(interp, &args[0], call_args, site)
}

fn identity(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("identity", site, &args, 1, Some(1))?;
    Ok(args[0].clone())
}

fn is_empty(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("empty?", site, &args, 1, Some(1))?;
    Ok(Value::Bool(seq_arg("empty?", &args, site, 0)?.is_empty()))
}

fn every(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("every?", site, &args, 2, Some(2))?;
    for item in seq_arg("every?", &args, site, 1)? {
        let verdict = call(interp, &args[0], vec![item], site)?;
        if !crate::special::truth_of(&verdict, site.span)? {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

fn some(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("some", site, &args, 2, Some(2))?;
    for item in seq_arg("some", &args, site, 1)? {
        let verdict = call(interp, &args[0], vec![item], site)?;
        if crate::special::truth_of(&verdict, site.span)? {
            return Ok(verdict);
        }
    }
    Ok(Value::Nil)
}

fn zipmap(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("zipmap", site, &args, 2, Some(2))?;
    let mut map = Vec::new();
    for (k, v) in seq_arg("zipmap", &args, site, 0)?
        .into_iter()
        .zip(seq_arg("zipmap", &args, site, 1)?)
    {
        map_insert(&mut map, k, v);
    }
    Ok(Value::Map(Rc::new(map)))
}

pub(super) fn repeat(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("repeat", site, &args, 2, Some(2))?;
    let n = int_arg("repeat", &args, site, 0)?;
    if n > MAX_SEQ {
        return Err(too_large("repeat", n, site));
    }
    Ok(Value::list(vec![args[1].clone(); n.max(0) as usize]))
}

fn not(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("not", site, &args, 1, Some(1))?;
    Ok(Value::Bool(!crate::special::truth_of(
        &args[0],
        site.arg(0),
    )?))
}

fn update(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("update", site, &args, 3, None)?;
    let old = lookup(&args[0], &args[1]).unwrap_or(Value::Nil);
    let mut call_args = vec![old];
    call_args.extend(args[3..].iter().cloned());
    let new = call(interp, &args[2], call_args, site)?;
    assoc(interp, site, vec![args[0].clone(), args[1].clone(), new])
}
