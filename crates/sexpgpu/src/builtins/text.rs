//! Host library for strings, printing, names and type predicates. Printing
//! goes through the interpreter's `Host`, never straight to stdout.

use super::int_arg;
use crate::codes;
use crate::eval::{arity, wrong_type, Builtin, EvalResult, Interp, Site};
use crate::value::Value;
use std::cell::Cell;

pub static TABLE: &[Builtin] = table! {
    "str" => str, "println" => println, "print" => print, "prn" => prn, "pr-str" => pr_str,
    "format" => format, "name" => name, "keyword" => keyword, "symbol" => symbol, "subs" => subs, "gensym" => gensym,
    "nil?" => is_nil, "some?" => is_some, "number?" => is_number, "int?" => is_int,
    "integer?" => is_int, "float?" => is_float, "string?" => is_string, "keyword?" => is_keyword,
    "symbol?" => is_symbol, "fn?" => is_fn, "vector?" => is_vector, "list?" => is_list,
    "map?" => is_map, "coll?" => is_coll, "tensor?" => is_tensor, "boolean?" => is_bool,
};

fn joined(args: &[Value], readably: bool, separator: &str) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|a| if readably { a.repr() } else { a.display() })
        .collect();
    parts.join(separator)
}

fn str(_: &mut Interp, _: &Site, args: Vec<Value>) -> EvalResult {
    // `(str nil)` is "" in Clojure, while `(println nil)` prints "nil".
    let parts: String = args
        .iter()
        .filter(|a| !matches!(a, Value::Nil))
        .map(Value::display)
        .collect();
    Ok(Value::str(&parts))
}

fn println(interp: &mut Interp, _: &Site, args: Vec<Value>) -> EvalResult {
    let line = joined(&args, false, " ") + "\n";
    interp.print(&line);
    Ok(Value::Nil)
}

fn print(interp: &mut Interp, _: &Site, args: Vec<Value>) -> EvalResult {
    let text = joined(&args, false, " ");
    interp.print(&text);
    Ok(Value::Nil)
}

fn prn(interp: &mut Interp, _: &Site, args: Vec<Value>) -> EvalResult {
    let line = joined(&args, true, " ") + "\n";
    interp.print(&line);
    Ok(Value::Nil)
}

fn pr_str(_: &mut Interp, _: &Site, args: Vec<Value>) -> EvalResult {
    Ok(Value::str(&joined(&args, true, " ")))
}

/// `(format "%s took %.3f s" name t)`: a small printf, with `%s` `%d`
/// `%f` `%e` `%g` (optionally `%.3f`, `%5d`, `%-8s`) and `%%`.
fn format(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("format", site, &args, 1, None)?;
    let Value::Str(template) = &args[0] else {
        return Err(wrong_type("format", "a format string", &args[0], site, 0));
    };
    let mut out = String::new();
    let mut next = 1;
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = String::new();
        while let Some(&d) = chars.peek() {
            if d.is_ascii_digit() || d == '.' || d == '-' {
                spec.push(d);
                chars.next();
            } else {
                break;
            }
        }
        let Some(kind) = chars.next() else {
            return Err(bad_format(
                "the template ends in the middle of a `%` directive",
                site,
            ));
        };
        if kind == '%' {
            out.push('%');
            continue;
        }
        let Some(value) = args.get(next) else {
            return Err(bad_format(
                &format!("the template needs more than {} values", next - 1),
                site,
            ));
        };
        next += 1;
        let left = spec.starts_with('-');
        let spec = spec.trim_start_matches('-');
        let (width, precision) = match spec.split_once('.') {
            Some((w, p)) => (w.parse::<usize>().unwrap_or(0), p.parse::<usize>().ok()),
            None => (spec.parse::<usize>().unwrap_or(0), None),
        };
        let text = match (kind, value) {
            ('s', v) => v.display(),
            ('d', Value::Int(n)) => n.to_string(),
            ('f' | 'e' | 'g', v) if v.is_number() => {
                let x = v.as_f64().unwrap_or(0.0);
                match kind {
                    'f' => format!("{x:.*}", precision.unwrap_or(6)),
                    'e' => c_exponent(&format!("{x:.*e}", precision.unwrap_or(6))),
                    _ => crate::value::format_float(x),
                }
            }
            (_, v) => {
                return Err(bad_format(
                    &format!("`%{kind}` cannot format {}", v.type_name()),
                    site,
                ))
            }
        };
        let pad = width.saturating_sub(text.chars().count()).min(1000);
        if left {
            out.push_str(&text);
            out.push_str(&" ".repeat(pad));
        } else {
            out.push_str(&" ".repeat(pad));
            out.push_str(&text);
        }
    }
    Ok(Value::str(&out))
}

/// Rust's `1.5e3` as C and Java print it: `1.5e+03`.
fn c_exponent(rust: &str) -> String {
    match rust.split_once('e') {
        Some((mantissa, exponent)) => {
            let (sign, digits) = match exponent.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exponent),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => rust.to_string(),
    }
}

fn bad_format(message: &str, site: &Site) -> crate::eval::Flow {
    crate::eval::error(codes::E_EVAL_003, format!("`format`: {message}"), site.span)
}

fn name(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("name", site, &args, 1, Some(1))?;
    match &args[0] {
        Value::Keyword(s) | Value::Symbol(s) | Value::Str(s) => {
            Ok(Value::str(s.rsplit_once('/').map_or(&**s, |(_, n)| n)))
        }
        other => Err(wrong_type(
            "name",
            "a keyword, symbol or string",
            other,
            site,
            0,
        )),
    }
}

fn keyword(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("keyword", site, &args, 1, Some(1))?;
    match &args[0] {
        Value::Keyword(s) | Value::Symbol(s) | Value::Str(s) => Ok(Value::Keyword(s.clone())),
        other => Err(wrong_type("keyword", "a string", other, site, 0)),
    }
}

fn symbol(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("symbol", site, &args, 1, Some(1))?;
    match &args[0] {
        Value::Keyword(s) | Value::Symbol(s) | Value::Str(s) => Ok(Value::Symbol(s.clone())),
        other => Err(wrong_type("symbol", "a string", other, site, 0)),
    }
}

fn subs(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("subs", site, &args, 2, Some(3))?;
    let Value::Str(s) = &args[0] else {
        return Err(wrong_type("subs", "a string", &args[0], site, 0));
    };
    let chars: Vec<char> = s.chars().collect();
    let start = int_arg("subs", &args, site, 1)?;
    let end = if args.len() == 3 {
        int_arg("subs", &args, site, 2)?
    } else {
        chars.len() as i64
    };
    if start < 0 || end < start || end as usize > chars.len() {
        return Err(crate::eval::error(
            codes::E_EVAL_010,
            format!(
                "`subs` range {start}..{end} out of bounds for a string of {} characters",
                chars.len()
            ),
            site.span,
        ));
    }
    Ok(Value::str(
        &chars[start as usize..end as usize]
            .iter()
            .collect::<String>(),
    ))
}

thread_local! {
    static GENSYM: Cell<u64> = const { Cell::new(0) };
}

/// A fresh symbol for macros: `G__12`, or `prefix12`.
fn gensym(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("gensym", site, &args, 0, Some(1))?;
    let prefix = match args.first() {
        Some(Value::Str(s)) => s.to_string(),
        Some(other) => return Err(wrong_type("gensym", "a string", other, site, 0)),
        None => "G__".to_string(),
    };
    let n = GENSYM.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    Ok(Value::symbol(&format!("{prefix}{n}")))
}

fn test(name: &str, site: &Site, args: &[Value], f: fn(&Value) -> bool) -> EvalResult {
    arity(name, site, args, 1, Some(1))?;
    Ok(Value::Bool(f(&args[0])))
}

/// The type predicates: `(int? x)` and the like, each one argument.
macro_rules! predicates {
    ($($f:ident $name:literal $test:expr;)*) => {$(
        fn $f(_: &mut Interp, s: &Site, a: Vec<Value>) -> EvalResult {
            test($name, s, &a, $test)
        }
    )*};
}

predicates! {
    is_nil "nil?" |v| matches!(v, Value::Nil);
    is_some "some?" |v| !matches!(v, Value::Nil);
    is_number "number?" Value::is_number;
    is_int "int?" |v| matches!(v, Value::Int(_));
    is_float "float?" |v| matches!(v, Value::Float(_));
    is_string "string?" |v| matches!(v, Value::Str(_));
    is_keyword "keyword?" |v| matches!(v, Value::Keyword(_));
    is_symbol "symbol?" |v| matches!(v, Value::Symbol(_));
    is_fn "fn?" |v| matches!(v, Value::Fn(_) | Value::Builtin { .. } | Value::Graph(_));
    is_vector "vector?" |v| matches!(v, Value::Vector(_));
    is_list "list?" |v| matches!(v, Value::List(_));
    is_map "map?" |v| matches!(v, Value::Map(_));
    is_coll "coll?" |v| matches!(v, Value::List(_) | Value::Vector(_) | Value::Map(_));
    is_tensor "tensor?" |v| matches!(v, Value::Tensor(_) | Value::HostTensor(_));
    is_bool "boolean?" |v| matches!(v, Value::Bool(_));
}
