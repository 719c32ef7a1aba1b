//! Mutants of accepted programs: one change that should make a program
//! ill-typed (two axes of a parameter swapped, a size changed, an axis
//! dropped or added, a dtype changed, the return type changed, `over=`
//! moved to another axis, an operand transposed, `topk`'s `k` past its
//! axis). A mutant the checker accepts must run (no shape or dtype error,
//! every probe passing, the result of its declared type); for one it
//! rejects, the naive PyTorch translation (the generator's reference with
//! the mutated node translated positionally) tells whether PyTorch would
//! have refused it too, or whether the rejection is imprecision.

use crate::ast::{Expr, Func, Op, Program};
use crate::rng::Rng;
use crate::size::Size;
use crate::ty::{Axis, Dt, Ty, TT};

/// A mutant: what was changed, and the program.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub what: String,
    pub program: Program,
}

/// Up to `count` mutants of `p`, each of one function that no other
/// function calls; the mutant's only entry is that function.
pub fn mutants(p: &Program, rng: &mut Rng, count: usize) -> Vec<Mutant> {
    let mut out = Vec::new();
    let targets: Vec<usize> = (0..p.funcs.len())
        .filter(|&i| {
            let name = &p.funcs[i].name;
            !p.funcs.iter().any(|f| calls(f, name))
        })
        .collect();
    if targets.is_empty() {
        return out;
    }
    for _ in 0..count * 4 {
        if out.len() >= count {
            break;
        }
        let fi = *rng.pick(&targets);
        let mut q = p.clone();
        q.entries = vec![(String::new(), q.funcs[fi].name.clone())];
        let what = match rng.below(8) {
            0 => swap_axes(&mut q.funcs[fi], rng),
            1 => change_size(&mut q.funcs[fi], rng),
            2 => drop_or_add_axis(&mut q.funcs[fi], rng),
            3 => change_dtype(&mut q.funcs[fi], rng),
            4 => change_return(&mut q.funcs[fi], rng),
            5 => move_over(&mut q.funcs[fi], rng),
            6 => transpose(&mut q.funcs[fi], rng),
            _ => grow_topk(&mut q.funcs[fi]),
        };
        if let Some(what) = what {
            if q != *p {
                out.push(Mutant {
                    what: format!("{}: {what}", q.funcs[fi].name),
                    program: q,
                });
            }
        }
    }
    out
}

fn calls(f: &Func, name: &str) -> bool {
    f.callees().iter().any(|n| n == name)
}

/// A tensor parameter's type, at random.
fn tensor_param<'a>(f: &'a mut Func, rng: &mut Rng) -> Option<(String, &'a mut TT)> {
    let idx: Vec<usize> = (0..f.params.len())
        .filter(|&i| matches!(&f.params[i].ty, Ty::T(t) if !t.axes.is_empty()))
        .collect();
    if idx.is_empty() {
        return None;
    }
    let i = *rng.pick(&idx);
    let name = f.params[i].name.clone();
    match &mut f.params[i].ty {
        Ty::T(t) => Some((name, t)),
        _ => None,
    }
}

fn swap_axes(f: &mut Func, rng: &mut Rng) -> Option<String> {
    let (name, t) = tensor_param(f, rng)?;
    if t.axes.len() < 2 {
        return None;
    }
    let i = rng.below(t.axes.len());
    let j = (i + 1 + rng.below(t.axes.len() - 1)) % t.axes.len();
    if t.axes[i] == t.axes[j] {
        return None;
    }
    t.axes.swap(i, j);
    Some(format!("parameter `{name}` with axes {i} and {j} swapped"))
}

fn change_size(f: &mut Func, rng: &mut Rng) -> Option<String> {
    let generics = f.generics.clone();
    let (name, t) = tensor_param(f, rng)?;
    let i = rng.below(t.axes.len());
    let old = t.axes[i].ss();
    let new = match rng.below(3) {
        0 => t.axes[i].size.add(&Size::lit(1)),
        1 => t.axes[i].size.scale(2),
        _ if !generics.is_empty() => Size::sym(rng.pick(&generics).as_str()),
        _ => Size::lit(2),
    };
    t.axes[i] = crate::gen::shape::named(Axis::anon(new));
    Some(format!(
        "parameter `{name}` axis {i} `{old}` now `{}`",
        t.axes[i].ss()
    ))
}

fn drop_or_add_axis(f: &mut Func, rng: &mut Rng) -> Option<String> {
    let extra = f.generics.first().cloned();
    let (name, t) = tensor_param(f, rng)?;
    let i = rng.below(t.axes.len() + 1);
    if rng.chance(0.5) && i < t.axes.len() {
        t.axes.remove(i);
        return Some(format!("parameter `{name}` without axis {i}"));
    }
    t.axes.insert(i, Axis::sym(&extra?));
    Some(format!("parameter `{name}` with a new axis at {i}"))
}

fn change_dtype(f: &mut Func, rng: &mut Rng) -> Option<String> {
    let (name, t) = tensor_param(f, rng)?;
    let to = *rng.pick(&[Dt::I64, Dt::Bool, Dt::Bf16, Dt::F32, Dt::I32]);
    if to == t.dt || (to.is_float() && t.dt == Dt::F) {
        return None;
    }
    t.dt = to;
    if to == Dt::Bool {
        t.dom = crate::ty::Dom::Bool;
    } else if matches!(t.dom, crate::ty::Dom::Bool)
        || !to.is_int() && matches!(t.dom, crate::ty::Dom::Index(_))
    {
        t.dom = crate::ty::Dom::Real;
    }
    Some(format!("parameter `{name}` of dtype {}", to.key()))
}

fn change_return(f: &mut Func, rng: &mut Rng) -> Option<String> {
    let Ty::T(t) = &mut f.ret else { return None };
    if t.axes.len() >= 2 && rng.chance(0.5) {
        let n = t.axes.len();
        if t.axes[n - 1] == t.axes[n - 2] {
            return None;
        }
        t.axes.swap(n - 1, n - 2);
        return Some("the return type's last two axes swapped".into());
    }
    let to = if t.dt.is_float() { Dt::I64 } else { Dt::F32 };
    t.dt = to;
    t.dom = crate::ty::Dom::Real;
    Some(format!("the return type of dtype {}", to.key()))
}

/// `over=` (of a reduction, an axis-wise operation, `topk`, `take` or
/// `concat`) on another named axis of its argument.
fn move_over(f: &mut Func, rng: &mut Rng) -> Option<String> {
    let mut nodes: Vec<&mut Expr> = Vec::new();
    for e in f.exprs_mut() {
        collect_mut(e, &mut nodes, &|e| {
            matches!(
                e.op,
                Op::Reduce { .. } | Op::AxisWise { .. } | Op::Topk { .. } | Op::Concat { .. }
            ) && !e.args.is_empty()
        });
    }
    if nodes.is_empty() {
        return None;
    }
    let k = rng.below(nodes.len());
    let node = nodes.swap_remove(k);
    let axes = node.args[0].tensor()?.axes.clone();
    let named: Vec<usize> = (0..axes.len())
        .filter(|&i| axes[i].name.is_some())
        .collect();
    if named.len() < 2 {
        return None;
    }
    let j = *rng.pick(&named);
    let new = axes[j].name.clone()?;
    match &mut node.op {
        Op::Reduce { over, dims, .. } if over.len() == 1 && dims[0] != j => {
            *over = vec![new.clone()];
            *dims = vec![j];
        }
        Op::AxisWise { over, dim, .. } | Op::Topk { over, dim, .. } | Op::Concat { over, dim }
            if *dim != j =>
        {
            *over = new.clone();
            *dim = j;
        }
        _ => return None,
    }
    Some(format!("`over={new}` instead"))
}

fn collect_mut<'a>(e: &'a mut Expr, out: &mut Vec<&'a mut Expr>, pick: &dyn Fn(&Expr) -> bool) {
    if pick(e) {
        out.push(e);
        return;
    }
    for a in &mut e.args {
        collect_mut(a, out, pick);
    }
}

/// A parameter read as a tensor of two or more axes, transposed:
/// `rearrange(x, [a b] -> [b a])`.
fn transpose(f: &mut Func, rng: &mut Rng) -> Option<String> {
    let mut nodes: Vec<&mut Expr> = Vec::new();
    for e in f.exprs_mut() {
        collect_mut(e, &mut nodes, &|e| {
            matches!(e.op, Op::Var(_)) && e.tensor().is_some_and(|t| t.rank() >= 2)
        });
    }
    if nodes.is_empty() {
        return None;
    }
    let k = rng.below(nodes.len());
    let node = nodes.swap_remove(k);
    let t = node.tensor()?.clone();
    let name = match &node.op {
        Op::Var(n) => n.clone(),
        _ => return None,
    };
    let r = t.rank();
    let words: Vec<String> = (0..r).map(|i| format!("a{i}")).collect();
    let mut out_words = words.clone();
    out_words.swap(r - 1, r - 2);
    let mut order: Vec<Option<usize>> = (0..r).map(Some).collect();
    order.swap(r - 1, r - 2);
    let mut axes = t.axes.clone();
    axes.swap(r - 1, r - 2);
    let call = crate::gen::Call::new("rearrange", &words, &out_words);
    let mut e = crate::gen::pattern_expr(call, None, order, &axes, node.clone())?;
    // The rest of the function still takes the old type: naive.
    e.ty = node.ty.clone();
    *node = e;
    Some(format!("`{name}` transposed"))
}

fn grow_topk(f: &mut Func) -> Option<String> {
    let mut nodes: Vec<&mut Expr> = Vec::new();
    for e in f.exprs_mut() {
        collect_mut(e, &mut nodes, &|e| matches!(e.op, Op::Topk { .. }));
    }
    let node = nodes.into_iter().next()?;
    match &mut node.op {
        Op::Topk { k, .. } => {
            *k += 5;
            Some(format!("`topk` with k = {k}"))
        }
        _ => None,
    }
}
