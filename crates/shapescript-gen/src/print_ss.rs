//! A generated program as ShapeScript text: declarations, statements and
//! expressions, operands parenthesised only where the grammar's
//! precedence needs it (`docs/shapescript/functions.md`).

use std::fmt::Write as _;

use crate::ast::{Expr, Field, Func, Model, Op, Program, Stmt};

/// Precedence of atoms: calls, names, indexing, fields.
const ATOM: u8 = 11;
const CAST: u8 = 10;
const UNARY: u8 = 8;
const MATMUL: u8 = 7;
const NOT: u8 = 3;

/// The program's `.ss` text.
pub fn program(p: &Program) -> String {
    let mut out = String::new();
    for (name, value) in &p.dims {
        let _ = writeln!(out, "dim {name} = {value}");
    }
    for (_, text) in &p.externs {
        let _ = writeln!(out, "{text}");
    }
    for r in &p.records {
        let _ = writeln!(out, "record {} {{", r.name);
        for (name, ty) in &r.fields {
            let _ = writeln!(out, "  {name}: {}", ty.ss());
        }
        out.push_str("}\n");
    }
    for m in &p.models {
        model(m, &mut out);
    }
    for f in &p.funcs {
        func(f, false, 0, &mut out);
    }
    out
}

fn model(m: &Model, out: &mut String) {
    let sizes = if m.size_params.is_empty() {
        String::new()
    } else {
        format!("({})", m.size_params.join(", "))
    };
    let _ = writeln!(out, "model {}{sizes} {{", m.name);
    for f in &m.fields {
        match f {
            Field::Tensor(name, ty) => {
                let _ = writeln!(out, "  {name}: {}", ty.ss());
            }
            Field::Sub(name, model, args) => {
                let args: Vec<String> = args.iter().map(|a| a.ss()).collect();
                let args = if args.is_empty() {
                    String::new()
                } else {
                    format!("({})", args.join(", "))
                };
                let _ = writeln!(out, "  {name}: {model}{args}");
            }
            Field::Stack(name, count, model) => {
                let _ = writeln!(out, "  {name}: [{count}] {model}");
            }
            Field::Buffer(name, ty, value) => {
                let _ = writeln!(out, "  buffer {name}: {} = {}", ty.ss(), expr(value));
            }
        }
    }
    for f in &m.methods {
        func(f, true, 1, out);
    }
    out.push_str("}\n");
}

fn func(f: &Func, method: bool, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    let mut params: Vec<String> = Vec::new();
    if method {
        params.push("self".into());
    }
    params.extend(
        f.params
            .iter()
            .map(|p| format!("{}: {}", p.name, p.ty.ss())),
    );
    let _ = writeln!(
        out,
        "{pad}fn {}({}) -> {} {{",
        f.name,
        params.join(", "),
        f.ret.ss()
    );
    block(&f.body, indent + 1, out);
    let _ = writeln!(out, "{pad}  {}", expr(&f.tail));
    let _ = writeln!(out, "{pad}}}");
}

fn block(stmts: &[Stmt], indent: usize, out: &mut String) {
    for s in stmts {
        stmt(s, indent, out);
    }
}

fn stmt(s: &Stmt, indent: usize, out: &mut String) {
    let pad = "  ".repeat(indent);
    match s {
        Stmt::Let { name, annot, value } => match annot {
            Some(ty) => {
                let _ = writeln!(out, "{pad}let {name}: {} = {}", ty.ss(), expr(value));
            }
            None => {
                let _ = writeln!(out, "{pad}let {name} = {}", expr(value));
            }
        },
        Stmt::LetTuple { names, value } => {
            let _ = writeln!(out, "{pad}let ({}) = {}", names.join(", "), expr(value));
        }
        Stmt::Assign { name, value } => {
            let _ = writeln!(out, "{pad}{name} = {}", expr(value));
        }
        Stmt::If { cond, then, els } => {
            let _ = writeln!(out, "{pad}if {} {{", expr(cond));
            block(then, indent + 1, out);
            if let Some(els) = els {
                let _ = writeln!(out, "{pad}}} else {{");
                block(els, indent + 1, out);
            }
            let _ = writeln!(out, "{pad}}}");
        }
        Stmt::For { .. } => {
            let Some((var, it, body)) = s.loop_parts(&expr) else {
                return;
            };
            let _ = writeln!(out, "{pad}for {var} in {it} {{");
            block(body, indent + 1, out);
            let _ = writeln!(out, "{pad}}}");
        }
        Stmt::Return(e) => {
            let _ = writeln!(out, "{pad}return {}", expr(e));
        }
    }
}

/// An expression's text.
pub fn expr(e: &Expr) -> String {
    text(e).0
}

/// An operand's text, parenthesised when it binds looser than `need`.
fn operand(e: &Expr, need: u8) -> String {
    let (t, p) = text(e);
    if p < need {
        format!("({t})")
    } else {
        t
    }
}

fn args(e: &Expr) -> Vec<String> {
    e.args.iter().map(expr).collect()
}

fn call(name: &str, args: Vec<String>) -> (String, u8) {
    (format!("{name}({})", args.join(", ")), ATOM)
}

/// The text and its precedence.
fn text(e: &Expr) -> (String, u8) {
    match &e.op {
        Op::Var(n) => (n.clone(), ATOM),
        Op::SizeVal(s) => (s.ss(), ATOM),
        Op::Float(v) => float(*v),
        Op::Int(v) if *v < 0 => (v.to_string(), UNARY),
        Op::Int(v) => (v.to_string(), ATOM),
        Op::Bool(b) => (b.to_string(), ATOM),
        Op::Neg => (format!("-{}", operand(&e.args[0], 9)), UNARY),
        Op::Not => (format!("not {}", operand(&e.args[0], NOT + 1)), NOT),
        Op::Bin(op, _) => {
            let p = op.prec();
            let (left, right) = match op {
                crate::ast::Bin::Pow => (p + 1, p),
                _ if op.is_compare() => (p + 1, p + 1),
                _ => (p, p + 1),
            };
            let l = operand(&e.args[0], left);
            let r = operand(&e.args[1], right);
            (format!("{l} {} {r}", op.ss()), p)
        }
        Op::MatMul(_) => {
            let l = operand(&e.args[0], MATMUL);
            let r = operand(&e.args[1], MATMUL + 1);
            (format!("{l} @ {r}"), MATMUL)
        }
        _ => call_like(e),
    }
}

fn float(v: f64) -> (String, u8) {
    let t = format!("{v:?}");
    if v < 0.0 {
        (t, UNARY)
    } else {
        (t, ATOM)
    }
}

/// Calls, indexing, fields and casts.
fn call_like(e: &Expr) -> (String, u8) {
    let a = args(e);
    match &e.op {
        Op::Math(f) => call(f, a),
        Op::Reduce { f, over, .. } => {
            let mut a = a;
            let (f, correction) = match f.strip_suffix('0') {
                Some(stat) => (stat, true),
                None => (*f, false),
            };
            match over.len() {
                0 => {}
                1 => a.push(format!("over={}", over[0])),
                _ => a.push(format!("over=({})", over.join(" "))),
            }
            if correction {
                a.push("correction=0".into());
            }
            call(f, a)
        }
        Op::AxisWise { f, over, .. } => call(f, vec![a[0].clone(), format!("over={over}")]),
        Op::Topk { k, over, .. } => call(
            "topk",
            vec![a[0].clone(), k.to_string(), format!("over={over}")],
        ),
        Op::Where(_) => call("where", a),
        Op::Abs => call("abs", a),
        Op::Sign => call("sign", a),
        Op::Clamp { lo, hi } => {
            let mut a = a;
            if let Some(lo) = lo {
                a.push(format!("lo={}", float(*lo).0));
            }
            if let Some(hi) = hi {
                a.push(format!("hi={}", float(*hi).0));
            }
            call("clamp", a)
        }
        Op::Extreme(f, _) => call(f, a),
        Op::Concat { over, .. } => {
            let mut a = a;
            a.push(format!("over={over}"));
            call("concat", a)
        }
        Op::Stack => call("stack", a),
        Op::Take { over, .. } => {
            let mut a = a;
            a.push(format!("over={over}"));
            call("take", a)
        }
        Op::OneHot(n) => call("one_hot", vec![a[0].clone(), n.ss()]),
        Op::Fill { value, axes, .. } => {
            let shape: Vec<String> = axes.iter().map(|x| x.ss()).collect();
            let shape = format!("[{}]", shape.join(" "));
            match value {
                v if *v == 0.0 => call("zeros", vec![shape]),
                v if *v == 1.0 => call("ones", vec![shape]),
                v => call("full", vec![shape, float(*v).0]),
            }
        }
        Op::Arange(n) => call("arange", vec![n.ss()]),
        Op::Tril => call("tril", a),
        Op::Triu => call("triu", a),
        Op::Pattern {
            f,
            lhs,
            rhs,
            kw,
            reduce,
            ..
        } => {
            let mut parts = vec![a[0].clone(), format!("[{lhs}] -> [{rhs}]")];
            if let Some(r) = reduce {
                parts.push(r.to_string());
            }
            parts.extend(kw.iter().map(|(k, v)| format!("{k}={v}")));
            call(f, parts)
        }
        Op::Einsum { pattern, .. } => {
            let mut parts = a;
            parts.push(pattern.clone());
            call("einsum", parts)
        }
        Op::ClampInt { lo, hi } => {
            let mut a = a;
            a.extend(lo.map(|v| format!("lo={v}")));
            a.extend(hi.map(|v| format!("hi={v}")));
            call("clamp", a)
        }
        Op::Call { name, .. } => call(name, a),
        Op::Record(name, fields) => {
            let parts = fields
                .iter()
                .zip(a)
                .map(|(f, v)| format!("{f}={v}"))
                .collect();
            call(name, parts)
        }
        Op::Nn { f, kw, .. } => nn_call(f, kw, a),
        Op::Index(_)
        | Op::Mask
        | Op::Pick { .. }
        | Op::As(_)
        | Op::To { .. }
        | Op::Method { .. }
        | Op::Field(_)
        | Op::StackItem(_)
        | Op::Tuple => postfix(e, a),
        _ => unreachable_text(e),
    }
}

/// Indexing, fields, methods, casts and tuples: written after (or around)
/// their operand.
fn postfix(e: &Expr, a: Vec<String>) -> (String, u8) {
    match &e.op {
        Op::Index(ixs) => {
            let base = operand(&e.args[0], ATOM);
            let ixs: Vec<String> = ixs.iter().map(|i| i.text("none")).collect();
            (format!("{base}[{}]", ixs.join(", ")), ATOM)
        }
        Op::Mask => (format!("{}[{}]", operand(&e.args[0], ATOM), a[1]), ATOM),
        Op::Pick { dim } => {
            let mut ixs = vec![":".to_string(); *dim];
            ixs.push(a[1].clone());
            (
                format!("{}[{}]", operand(&e.args[0], ATOM), ixs.join(", ")),
                ATOM,
            )
        }
        Op::As(ty) => (format!("{} as {ty}", operand(&e.args[0], ATOM)), CAST),
        Op::To { ty, .. } => (format!("{} to {ty}", operand(&e.args[0], ATOM)), CAST),
        Op::Method { method, sugar, .. } => {
            let recv = operand(&e.args[0], ATOM);
            let rest = a[1..].to_vec();
            if *sugar {
                call(&recv, rest)
            } else {
                call(&format!("{recv}.{method}"), rest)
            }
        }
        Op::Field(name) => (format!("{}.{name}", operand(&e.args[0], ATOM)), ATOM),
        Op::StackItem(i) => (format!("{}[{i}]", operand(&e.args[0], ATOM)), ATOM),
        Op::Tuple => (format!("({})", a.join(", ")), ATOM),
        _ => unreachable_text(e),
    }
}

/// A call of an `nn` function with its keywords; `split(x, k, over=n)[i]`
/// (keywords `k`, `over`, `part`) by position.
fn nn_call(f: &str, kw: &[(String, crate::ast::Kw)], a: Vec<String>) -> (String, u8) {
    if f == "split" {
        let get = |key: &str| kw.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        let word = |v: Option<&crate::ast::Kw>| match v {
            Some(crate::ast::Kw::Size(s)) => s.ss(),
            Some(crate::ast::Kw::Axis(n, _)) => n.clone(),
            _ => String::new(),
        };
        let text = format!(
            "split({}, {}, over={})[{}]",
            a[0],
            word(get("k")),
            word(get("over")),
            word(get("part"))
        );
        return (text, ATOM);
    }
    let mut parts = a;
    parts.extend(kw.iter().map(|(k, v)| {
        let v = match v {
            crate::ast::Kw::Size(s) if s.as_lit().is_some() || s.as_sym().is_some() => s.ss(),
            crate::ast::Kw::Size(s) => format!("({})", s.ss()),
            crate::ast::Kw::Bool(b) => b.to_string(),
            crate::ast::Kw::Float(v) => float(*v).0,
            crate::ast::Kw::Axis(n, _) => n.clone(),
        };
        format!("{k}={v}")
    }));
    call(f, parts)
}

/// Operators are printed by `text`; nothing else reaches here.
fn unreachable_text(e: &Expr) -> (String, u8) {
    (format!("{:?}", e.op), ATOM)
}
