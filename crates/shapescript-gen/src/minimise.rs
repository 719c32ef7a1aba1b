//! Minimising a failing program: while it still fails the same way (the
//! same kind of failure, the same exception class), keep only the failing
//! entry and the functions it calls, drop statements and unused
//! parameters, replace expressions by an operand of the same type or by a
//! new parameter of their type, and lower dims. Every candidate is checked,
//! built and run again, so the result is a small program that checks clean
//! and fails as the original did, ready to be a UI test.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

use crate::ast::{Expr, Func, Op, Param, Program, Stmt};
use crate::run::{job, run_jobs, Verdict, Worker};
use crate::ty::Ty;

/// How a program failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub kind: String,
    pub detail: String,
    pub entry: String,
    pub sizes: Value,
    pub float: String,
}

impl Failure {
    /// What must stay the same while minimising: the kind, and for an
    /// exception its class, for a refused build its message.
    pub fn key(&self) -> String {
        match self.kind.as_str() {
            "raises" => format!("raises {}", self.detail.split(':').next().unwrap_or("")),
            // A claim that does not hold, or a call's boundary check.
            "shape-error" => format!("shape-error {}", self.detail.contains("does not hold")),
            k if k.starts_with("build refused") => format!("{k} {}", self.detail),
            k => k.to_string(),
        }
    }
}

/// Runs candidates through the checker, the emitter and the worker.
pub struct Minimiser<'w> {
    pub worker: &'w mut Worker,
    pub dir: PathBuf,
    pub runs: u32,
    pub attempts: usize,
    pub budget: usize,
    /// Every failure of the last program run.
    pub last: Vec<Failure>,
    /// Run the emitted code alone (a mutant's failure), not against the
    /// reference.
    pub emitted_only: bool,
}

impl<'w> Minimiser<'w> {
    /// A minimiser writing its packages under `dir`, running each
    /// candidate 8 times, giving up after `budget` candidates.
    pub fn new(worker: &'w mut Worker, dir: &std::path::Path, budget: usize) -> Minimiser<'w> {
        Minimiser {
            worker,
            dir: dir.to_path_buf(),
            runs: 8,
            attempts: 0,
            budget,
            last: Vec::new(),
            emitted_only: false,
        }
    }

    /// How `p` fails, if it does: its first failure (a refused build is one).
    pub fn failure(&mut self, p: &Program) -> Option<Failure> {
        self.attempts += 1;
        let mut j = job(p, "m");
        j.emitted_only = self.emitted_only;
        match &j.verdict {
            Verdict::Rejected { .. } => return None,
            Verdict::Refused { code, message } => {
                return Some(Failure {
                    kind: format!("build refused {code}"),
                    detail: message.clone(),
                    entry: String::new(),
                    sizes: Value::Null,
                    float: String::new(),
                })
            }
            Verdict::Built { .. } => {}
        }
        let package = format!("min{}_{}", std::process::id(), self.attempts);
        let results = run_jobs(
            self.worker,
            &self.dir,
            &package,
            std::slice::from_ref(&j),
            self.runs,
            7,
        )
        .ok()?;
        let _ = std::fs::remove_dir_all(self.dir.join(&package));
        let all: Vec<Failure> = results.first()?["failures"]
            .as_array()?
            .iter()
            .map(|f| Failure {
                kind: f["kind"].as_str().unwrap_or("").to_string(),
                detail: f["detail"].as_str().unwrap_or("").to_string(),
                entry: f["entry"].as_str().unwrap_or("").to_string(),
                sizes: f["sizes"].clone(),
                float: f["float"].as_str().unwrap_or("").to_string(),
            })
            .collect();
        if all.iter().any(|f| f.kind == "generator") {
            return None;
        }
        self.last = all.clone();
        all.into_iter().next()
    }

    /// Whether `p` still fails as `want` does; the new failure if so.
    fn same(&mut self, p: &Program, want: &Failure) -> Option<Failure> {
        if self.attempts >= self.budget {
            return None;
        }
        let first = self.failure(p)?;
        if first.key() == want.key() {
            return Some(first);
        }
        self.last.iter().find(|f| f.key() == want.key()).cloned()
    }

    /// The smallest program found that fails as `p` does with `want`.
    pub fn minimise(&mut self, mut p: Program, mut want: Failure) -> (Program, Failure) {
        if !want.entry.is_empty() {
            let only = only_entry(&p, &want.entry);
            if let Some(f) = self.same(&only, &want) {
                p = only;
                want = f;
            }
        }
        loop {
            let before = program_size(&p);
            for candidate in [
                Pass::Stmts,
                Pass::Exprs,
                Pass::Params,
                Pass::Funcs,
                Pass::Dims,
            ] {
                (p, want) = self.pass(p, want, candidate);
            }
            if program_size(&p) >= before || self.attempts >= self.budget {
                return (p, want);
            }
        }
    }

    fn pass(&mut self, mut p: Program, mut want: Failure, pass: Pass) -> (Program, Failure) {
        let mut i = 0;
        while let Some(candidate) = edit(&p, pass, i) {
            if candidate == p {
                i += 1;
                continue;
            }
            match self.same(&candidate, &want) {
                Some(f) => {
                    p = candidate;
                    want = f;
                }
                None => i += 1,
            }
            if self.attempts >= self.budget {
                break;
            }
        }
        (p, want)
    }
}

#[derive(Clone, Copy)]
enum Pass {
    Stmts,
    Exprs,
    Params,
    Funcs,
    Dims,
}

/// Edit number `i` of a pass, `None` past the last.
fn edit(p: &Program, pass: Pass, i: usize) -> Option<Program> {
    match pass {
        Pass::Stmts if i % 2 == 1 => drop_annotation(p, i / 2),
        Pass::Stmts => drop_stmt(p, i / 2),
        Pass::Exprs => simplify_expr(p, i),
        Pass::Params => drop_param(p, i),
        Pass::Funcs => drop_func(p, i),
        Pass::Dims => {
            let (name, value) = p.dims.get(i)?.clone();
            let mut q = p.clone();
            if value > 1 {
                q.dims[i] = (name, value - 1);
            }
            Some(q)
        }
    }
}

/// `p` with only `entry` (`f` or `Model.method`) called by the harness,
/// and what it calls: functions, its model and the models inside it.
fn only_entry(p: &Program, entry: &str) -> Program {
    let mut q = p.clone();
    let (model, method) = entry.split_once('.').unwrap_or(("", entry));
    q.entries.retain(|(m, f)| m == model && f == method);
    let mut keep_models = BTreeSet::new();
    let mut todo_models = vec![model.to_string()];
    let mut todo: Vec<String> = Vec::new();
    while let Some(m) = todo_models.pop() {
        let Some(found) = p.model(&m) else { continue };
        if !keep_models.insert(m.clone()) {
            continue;
        }
        for f in &found.fields {
            if let crate::ast::Field::Sub(_, sub, _) | crate::ast::Field::Stack(_, _, sub) = f {
                todo_models.push(sub.clone());
            }
        }
        for f in &found.methods {
            todo.extend(f.callees());
        }
    }
    q.models.retain(|m| keep_models.contains(&m.name));
    let mut keep = BTreeSet::new();
    if model.is_empty() {
        todo.push(entry.to_string());
    }
    while let Some(f) = todo.pop() {
        if !keep.insert(f.clone()) {
            continue;
        }
        if let Some(func) = p.func(&f) {
            todo.extend(func.callees());
        }
    }
    q.funcs.retain(|f| keep.contains(&f.name));
    q
}

fn program_size(p: &Program) -> usize {
    p.funcs
        .iter()
        .map(|f| {
            f.params.len() + f.body.len() * 2 + f.exprs().iter().map(|e| e.size()).sum::<usize>()
        })
        .sum::<usize>()
        + p.dims.iter().map(|(_, v)| *v as usize).sum::<usize>()
}

/// Drops statement `i` (counted over every function, nested ones too).
fn drop_stmt(p: &Program, mut i: usize) -> Option<Program> {
    fn walk(list: &mut Vec<Stmt>, i: &mut usize) -> bool {
        for k in 0..list.len() {
            if *i == 0 {
                list.remove(k);
                return true;
            }
            *i -= 1;
            let nested = match &mut list[k] {
                Stmt::If { then, els, .. } => {
                    walk(then, i) || els.as_mut().is_some_and(|e| walk(e, i))
                }
                Stmt::For { body, .. } => walk(body, i),
                _ => false,
            };
            if nested {
                return true;
            }
        }
        false
    }
    let mut q = p.clone();
    for f in &mut q.funcs {
        if walk(&mut f.body, &mut i) {
            return Some(q);
        }
    }
    None
}

/// Drops the type written on `let` number `i`.
fn drop_annotation(p: &Program, i: usize) -> Option<Program> {
    let mut q = p.clone();
    let mut k = 0;
    for f in &mut q.funcs {
        for s in &mut f.body {
            if let Stmt::Let { annot, .. } = s {
                if k == i {
                    *annot = None;
                    return Some(q);
                }
                k += 1;
            }
        }
    }
    // Past the last `let`: nothing to edit, but the pass goes on with the
    // statements it pairs with.
    Some(q)
}

/// Drops a parameter no expression reads (parameter `i` over every entry).
fn drop_param(p: &Program, i: usize) -> Option<Program> {
    let mut k = 0;
    for (fi, f) in p.funcs.iter().enumerate() {
        let is_entry = p.entries.iter().any(|(_, e)| *e == f.name);
        let called = p.funcs.iter().any(|g| g.callees().contains(&f.name));
        for (pi, param) in f.params.iter().enumerate() {
            if !is_entry || called {
                continue;
            }
            if k == i {
                let mut q = p.clone();
                if !reads(&q.funcs[fi], &param.name) {
                    q.funcs[fi].params.remove(pi);
                }
                return Some(q);
            }
            k += 1;
        }
    }
    None
}

fn reads(f: &Func, name: &str) -> bool {
    f.any_node(|e| matches!(&e.op, Op::Var(n) if n == name))
        || f.body.iter().any(|s| assigns(s, name))
}

fn assigns(s: &Stmt, name: &str) -> bool {
    match s {
        Stmt::Assign { name: n, .. } => n == name,
        Stmt::If { then, els, .. } => then
            .iter()
            .chain(els.iter().flatten())
            .any(|s| assigns(s, name)),
        Stmt::For { body, .. } => body.iter().any(|s| assigns(s, name)),
        _ => false,
    }
}

/// Drops a function no other function calls and that is no entry, or
/// (past the functions) a record no expression builds.
fn drop_func(p: &Program, i: usize) -> Option<Program> {
    if i >= p.funcs.len() {
        let r = p.records.get(i - p.funcs.len())?;
        let mut q = p.clone();
        let methods = p.models.iter().flat_map(|m| m.methods.iter());
        let built = p
            .funcs
            .iter()
            .chain(methods)
            .any(|f| f.any_node(|e| matches!(&e.op, Op::Record(n, _) if *n == r.name)));
        if !built {
            q.records.remove(i - p.funcs.len());
        }
        return Some(q);
    }
    let f = p.funcs.get(i)?;
    let mut q = p.clone();
    if p.funcs.iter().all(|g| !g.callees().contains(&f.name)) && p.entries.len() > 1 {
        q.entries.retain(|(_, e)| *e != f.name);
        q.funcs.remove(i);
    }
    Some(q)
}

/// Replaces expression node `i` (counted over the entry functions, in
/// pre-order) by an operand of its type, or by a new parameter of it.
fn simplify_expr(p: &Program, i: usize) -> Option<Program> {
    let mut k = i;
    for (fi, f) in p.funcs.iter().enumerate() {
        let entry = p.entries.iter().any(|(_, e)| *e == f.name)
            && !p.funcs.iter().any(|g| g.callees().contains(&f.name));
        let count: usize = f.exprs().iter().map(|e| e.size()).sum();
        if k >= count * 2 {
            k -= count * 2;
            continue;
        }
        let (node, by_param) = (k / 2, k % 2 == 1);
        let mut q = p.clone();
        let func = &mut q.funcs[fi];
        let fresh = (0..)
            .map(|n| format!("m{n}"))
            .find(|n| !reads(func, n) && func.params.iter().all(|p| p.name != *n))?;
        let mut new_param = None;
        let mut seen = 0;
        let mut replace = |e: &mut Expr| {
            if by_param {
                if entry && param_type(&e.ty) && !matches!(e.op, Op::Var(_)) {
                    new_param = Some(Param {
                        name: fresh.clone(),
                        ty: e.ty.clone(),
                    });
                    *e = Expr::leaf(Op::Var(fresh.clone()), e.ty.clone());
                }
            } else if let Some(child) = e.args.iter().find(|a| same_type(&a.ty, &e.ty)) {
                *e = child.clone();
            }
        };
        rewrite_nth(func, node, &mut seen, &mut replace);
        if let Some(param) = new_param {
            func.params.push(param);
        }
        return Some(q);
    }
    None
}

/// Applies `f` to node `n` of a function's expressions, in pre-order.
fn rewrite_nth(func: &mut Func, n: usize, seen: &mut usize, f: &mut dyn FnMut(&mut Expr)) {
    fn expr(e: &mut Expr, n: usize, seen: &mut usize, f: &mut dyn FnMut(&mut Expr)) -> bool {
        if *seen == n {
            f(e);
            return true;
        }
        *seen += 1;
        e.args.iter_mut().any(|a| expr(a, n, seen, f))
    }
    fn stmts(list: &mut [Stmt], n: usize, seen: &mut usize, f: &mut dyn FnMut(&mut Expr)) -> bool {
        list.iter_mut().any(|s| match s {
            Stmt::Let { value, .. }
            | Stmt::LetTuple { value, .. }
            | Stmt::Assign { value, .. }
            | Stmt::Return(value) => expr(value, n, seen, f),
            Stmt::If { cond, then, els } => {
                expr(cond, n, seen, f)
                    || stmts(then, n, seen, f)
                    || els.as_mut().is_some_and(|e| stmts(e, n, seen, f))
            }
            Stmt::For { iter, body, .. } => expr(iter, n, seen, f) || stmts(body, n, seen, f),
        })
    }
    if !stmts(&mut func.body, n, seen, f) {
        expr(&mut func.tail, n, seen, f);
    }
}

/// Whether a parameter can have this type: no unknown sizes, no axis a
/// pattern named apart from its size.
fn param_type(t: &Ty) -> bool {
    match t {
        Ty::T(t) => t.axes.iter().all(|a| {
            !a.size.symbols().iter().any(|s| s.starts_with('?'))
                && (a.name.is_none() || a.name.as_deref() == a.size.as_sym())
        }),
        Ty::Int(_) | Ty::Float(_) | Ty::Bool => true,
        _ => false,
    }
}

/// Types equal but for the values' bounds.
fn same_type(a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        (Ty::T(x), Ty::T(y)) => x.axes == y.axes && x.dt == y.dt && x.dom == y.dom,
        (Ty::Int(_), Ty::Int(_)) | (Ty::Float(_), Ty::Float(_)) | (Ty::Bool, Ty::Bool) => true,
        _ => false,
    }
}

/// A minimised program as a `.ss` file: what failed, on which sizes, in
/// comments, then the program.
pub fn report(p: &Program, f: &Failure, index: usize, seed: u64) -> String {
    let mut out = format!(
        "# Found by shapescript-gen (campaign seed {seed}, program {index}), minimised.\n# {}: {}\n",
        f.kind, f.detail
    );
    if !f.entry.is_empty() {
        out.push_str(&format!(
            "# calling `{}` with sizes {} ({})\n",
            f.entry, f.sizes, f.float
        ));
    }
    out.push_str(&crate::print_ss::program(p));
    out
}
