//! The independent PyTorch reference of a generated program: one Python
//! function per function and method, written from the generator's own
//! types, never from the checker's or the emitter's. Named-axis semantics
//! are explicit: broadcasting places each operand's axes where the
//! generator paired them (`_al`), `@` is an einsum over the axes the
//! generator matched, reductions pass positions, patterns are reshapes
//! and permutes the generator planned. Every ShapeScript name becomes
//! `v_<name>` (functions `f_<name>`, methods `m_<model>_<name>`), so no
//! name the program picks can clash with Python's. Sizes are read from
//! the call's context `C.s`, the float dtype of dtype-less tensors from
//! `C.f`; the helpers (`_al`, `_red`, ...) are the harness's.

use std::fmt::Write as _;

use crate::ast::{Align, Bin, Conv, Expr, Func, Op, Program, Stmt};
use crate::size::Size;
use crate::ty::{Dt, Ty};

/// The reference module's text.
pub fn program(p: &Program) -> String {
    let mut out = String::from("# The generator's reference (independent of the emitter).\n");
    for f in &p.funcs {
        func(&format!("f_{}", f.name), f, false, &mut out);
    }
    for m in &p.models {
        for f in &m.fields {
            if let crate::ast::Field::Buffer(name, _, value) = f {
                // Made in f32 (`C.f`), as the model's `__init__` makes it.
                let _ = writeln!(out, "\ndef b_{}_{name}(C):", m.name);
                let _ = writeln!(out, "    return {}", expr(value));
            }
        }
        for f in &m.methods {
            func(&format!("m_{}_{}", m.name, f.name), f, true, &mut out);
        }
    }
    out
}

fn func(name: &str, f: &Func, method: bool, out: &mut String) {
    let mut params = vec!["C".to_string()];
    if method {
        params.push("v_self".into());
    }
    params.extend(f.params.iter().map(|p| format!("v_{}", p.name)));
    let _ = writeln!(out, "\ndef {name}({}):", params.join(", "));
    block(&f.body, 1, out);
    let _ = writeln!(out, "    return {}", expr(&f.tail));
}

fn block(stmts: &[Stmt], indent: usize, out: &mut String) {
    if stmts.is_empty() && indent > 1 {
        let _ = writeln!(out, "{}pass", "    ".repeat(indent));
    }
    for s in stmts {
        stmt(s, indent, out);
    }
}

fn stmt(s: &Stmt, indent: usize, out: &mut String) {
    let pad = "    ".repeat(indent);
    match s {
        Stmt::Let { name, value, .. } | Stmt::Assign { name, value } => {
            let _ = writeln!(out, "{pad}v_{name} = {}", expr(value));
        }
        Stmt::LetTuple { names, value } => {
            let names: Vec<String> = names.iter().map(|n| format!("v_{n}")).collect();
            let _ = writeln!(out, "{pad}{} = {}", names.join(", "), expr(value));
        }
        Stmt::If { cond, then, els } => {
            let _ = writeln!(out, "{pad}if {}:", expr(cond));
            block(then, indent + 1, out);
            if let Some(els) = els {
                let _ = writeln!(out, "{pad}else:");
                block(els, indent + 1, out);
            }
        }
        Stmt::For { .. } => {
            let Some((var, it, body)) = s.loop_parts(&expr) else {
                return;
            };
            let _ = writeln!(out, "{pad}for v_{var} in {it}:");
            block(body, indent + 1, out);
        }
        Stmt::Return(e) => {
            let _ = writeln!(out, "{pad}return {}", expr(e));
        }
    }
}

/// A size as Python over the call's sizes.
pub fn size(s: &Size) -> String {
    format!("({})", s.py(&|x| format!("C.s[{x:?}]")))
}

/// The torch dtype of `dt` in the reference; `F` is the call's.
pub fn dtype(dt: Dt) -> &'static str {
    match dt {
        Dt::F => "C.f",
        Dt::F32 => "torch.float32",
        Dt::F64 => "torch.float64",
        Dt::Bf16 => "torch.bfloat16",
        Dt::I64 => "torch.int64",
        Dt::I32 => "torch.int32",
        Dt::Bool => "torch.bool",
    }
}

fn sizes(list: &[Size]) -> String {
    let items: Vec<String> = list.iter().map(size).collect();
    format!("[{}]", items.join(", "))
}

fn aligned(e: &Expr, align: &Align, rank: usize) -> String {
    match align {
        Some(pos) => format!("_al({}, {pos:?}, {rank})", expr(e)),
        None => expr(e),
    }
}

fn rank(e: &Expr) -> usize {
    e.tensor().map_or(0, |t| t.rank())
}

fn is_tensor(e: &Expr) -> bool {
    matches!(e.ty, Ty::T(_))
}

fn float(v: f64) -> String {
    format!("{v:?}")
}

/// An expression's Python text, fully parenthesised.
pub fn expr(e: &Expr) -> String {
    let a = |i: usize| expr(&e.args[i]);
    match &e.op {
        Op::Var(n) => format!("v_{n}"),
        Op::SizeVal(s) => size(s),
        Op::Float(v) => float(*v),
        Op::Int(v) => format!("({v})"),
        Op::Bool(b) => if *b { "True" } else { "False" }.into(),
        Op::Neg => format!("(-{})", a(0)),
        Op::Not if is_tensor(&e.args[0]) => format!("torch.logical_not({})", a(0)),
        Op::Not => format!("(not {})", a(0)),
        Op::Bin(op, al) => binary(e, *op, al),
        Op::MatMul(eq) => format!("torch.einsum({eq:?}, {}, {})", a(0), a(1)),
        Op::Math(f) => math(f, &e.args[0]),
        Op::Reduce { f, dims, .. } => format!("_red({f:?}, {}, {dims:?})", a(0)),
        Op::AxisWise { f, dim, .. } => format!("_axis({f:?}, {}, {dim})", a(0)),
        Op::Topk { k, dim, .. } => format!("tuple(torch.topk({}, {k}, dim={dim}))", a(0)),
        Op::Where(al) => {
            let r = rank(e);
            let dt = e.tensor().map_or(Dt::F, |t| t.dt);
            format!(
                "_where({}, {}, {}, {})",
                aligned(&e.args[0], &al[0], r),
                aligned(&e.args[1], &al[1], r),
                aligned(&e.args[2], &al[2], r),
                dtype(dt)
            )
        }
        Op::Abs => format!("torch.abs({})", a(0)),
        Op::Sign => format!("torch.sign({})", a(0)),
        Op::Clamp { lo, hi } => format!(
            "torch.clamp({}, min={}, max={})",
            a(0),
            lo.map_or("None".into(), float),
            hi.map_or("None".into(), float)
        ),
        Op::Extreme(f, al) => {
            let r = rank(e);
            format!(
                "torch.{f}({}, {})",
                aligned(&e.args[0], &al[0], r),
                aligned(&e.args[1], &al[1], r)
            )
        }
        Op::Concat { dim, .. } => format!("torch.cat([{}, {}], dim={dim})", a(0), a(1)),
        Op::Stack => format!("torch.stack([{}, {}], dim=0)", a(0), a(1)),
        Op::ClampInt { lo, hi } => format!(
            "torch.clamp({}, min={}, max={})",
            a(0),
            lo.map_or("None".into(), |v| v.to_string()),
            hi.map_or("None".into(), |v| v.to_string())
        ),
        Op::Take { dim, .. } | Op::Pick { dim } => format!("_take({}, {}, {dim})", a(0), a(1)),
        Op::OneHot(n) => format!("torch.nn.functional.one_hot({}, {})", a(0), size(n)),
        _ => structural(e),
    }
}

/// Makers, patterns, indexing, casts, calls and records.
fn structural(e: &Expr) -> String {
    let a = |i: usize| expr(&e.args[i]);
    match &e.op {
        Op::Fill { value, axes, dt } => {
            let s: Vec<Size> = axes.iter().map(|x| x.size.clone()).collect();
            format!(
                "torch.full({}, {}, dtype={})",
                sizes(&s),
                float(*value),
                dtype(*dt)
            )
        }
        Op::Arange(n) => format!("torch.arange({})", size(n)),
        Op::Tril => format!("torch.tril({})", a(0)),
        Op::Triu => format!("torch.triu({})", a(0)),
        Op::Pattern { plan, .. } => {
            let reduce = match &plan.reduce {
                Some((f, dims)) => format!("({f:?}, {dims:?})"),
                None => "None".into(),
            };
            format!(
                "_layout({}, {}, {reduce}, {:?}, {}, {})",
                a(0),
                sizes(&plan.split),
                plan.order
                    .iter()
                    .map(|o| o.map_or(-1, |i| i as i64))
                    .collect::<Vec<_>>(),
                sizes(&plan.expand),
                sizes(&plan.merge)
            )
        }
        Op::Einsum { equation, .. } => {
            let ops: Vec<String> = e.args.iter().map(expr).collect();
            format!("torch.einsum({equation:?}, {})", ops.join(", "))
        }
        Op::Index(ixs) => {
            let ixs: Vec<String> = ixs.iter().map(|i| i.text("None")).collect();
            format!("{}[{}]", a(0), ixs.join(", "))
        }
        Op::Mask => format!("{}[{}]", a(0), a(1)),
        Op::As(_) => a(0),
        Op::To { conv, ty } => match conv {
            Conv::Dtype(dt) => format!("{}.to({})", a(0), dtype(*dt)),
            // `to Pos` clamps to the dtype's least positive normal float
            // (docs/shapescript/ranges.md), not to 0.
            Conv::Clamp(_, None) if ty == "Pos" => format!("_clamp_pos({})", a(0)),
            Conv::Clamp(lo, hi) => format!(
                "_clamp({}, {}, {})",
                a(0),
                lo.map_or("None".into(), float),
                hi.map_or("None".into(), float)
            ),
            Conv::Reshape(s) => format!("{}.reshape({})", a(0), sizes(s)),
        },
        Op::Call { name, bind, float } => {
            let args: Vec<String> = e.args.iter().map(expr).collect();
            format!("f_{name}({}, {})", context(bind, *float), args.join(", "))
        }
        Op::Method {
            model,
            method,
            bind,
            float,
            ..
        } => {
            let args: Vec<String> = e.args.iter().map(expr).collect();
            format!(
                "m_{model}_{method}({}, {})",
                context(bind, *float),
                args.join(", ")
            )
        }
        Op::Field(name) => match &e.args[0].ty {
            Ty::Rec(..) => format!("{}[{name:?}]", a(0)),
            _ => format!("getattr({}, {name:?})", a(0)),
        },
        Op::Record(_, fields) => {
            let items: Vec<String> = fields
                .iter()
                .enumerate()
                .map(|(i, f)| format!("{f:?}: {}", a(i)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        Op::StackItem(i) => format!("{}[{i}]", a(0)),
        Op::Nn { torch, kw, .. } => {
            let args: Vec<String> = e.args.iter().map(expr).collect();
            let kw: Vec<String> = kw
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        crate::ast::Kw::Size(s) => size(s),
                        crate::ast::Kw::Bool(b) => if *b { "True" } else { "False" }.into(),
                        crate::ast::Kw::Float(v) => float(*v),
                        crate::ast::Kw::Axis(_, at) => at.to_string(),
                    };
                    format!("{k:?}: {v}")
                })
                .collect();
            format!(
                "_nn({torch:?}, [{}], {{{}}})",
                args.join(", "),
                kw.join(", ")
            )
        }
        Op::Tuple => {
            let items: Vec<String> = e.args.iter().map(expr).collect();
            format!("({},)", items.join(", "))
        }
        other => format!("_unknown({other:?})"),
    }
}

/// The callee's context: its sizes in the caller's terms, its float dtype.
fn context(bind: &[(String, Size)], float: Dt) -> String {
    let items: Vec<String> = bind
        .iter()
        .map(|(k, v)| format!("{k:?}: {}", size(v)))
        .collect();
    format!("C.sub({{{}}}, {})", items.join(", "), dtype(float))
}

fn binary(e: &Expr, op: Bin, al: &[Align; 2]) -> String {
    let r = rank(e);
    let l = aligned(&e.args[0], &al[0], r);
    let rr = aligned(&e.args[1], &al[1], r);
    let tensors = is_tensor(&e.args[0]) || is_tensor(&e.args[1]);
    match op {
        Bin::And if tensors => format!("torch.logical_and({l}, {rr})"),
        Bin::Or if tensors => format!("torch.logical_or({l}, {rr})"),
        _ => format!("({l} {} {rr})", op.ss()),
    }
}

fn math(f: &str, arg: &Expr) -> String {
    let x = expr(arg);
    if !is_tensor(arg) {
        return format!("math.{f}({x})");
    }
    let torch = match f {
        "gelu" | "silu" | "softplus" => format!("torch.nn.functional.{f}"),
        "log_sigmoid" => "torch.nn.functional.logsigmoid".into(),
        other => format!("torch.{other}"),
    };
    format!("{torch}({x})")
}
