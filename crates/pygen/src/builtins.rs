//! Built-in operations (`docs/shapescript/broadcasting.md`) from the checker's call records: reductions
//! and axis-wise operations at the `over=` positions the checker found,
//! `where`/`maximum`/`minimum` with broadcasting views, tensors made from
//! sizes (`zeros`, `arange`...) on the body's device, and the pattern
//! built-ins lowered by the checker's plans to plain `reshape`/`permute`/
//! `expand`/reductions or `torch.einsum`, never einops. Never decides an
//! axis or a size itself.

use std::collections::HashSet;

use check::hir::{Builtin, CallInfo, LayoutPlan, PatternPlan};
use syntax::ast::{self, Expr, ExprKind};

use crate::expr::{view, Args, Val, ATOM};
use crate::pattern_sizes::{name_sizes, reshape_args, PlanSize, SizeText};
use crate::scope::Scope;
use crate::sizes::tuple;

impl<'g, 'a> Scope<'g, 'a> {
    /// A call of built-in `op`; the match is exhaustive, so a built-in the
    /// checker accepts and this can't emit fails to compile.
    pub fn builtin(
        &mut self,
        op: Builtin,
        info: &'a CallInfo,
        args: &[ast::Arg],
        whole: &Expr,
    ) -> Val {
        let positional: Vec<&Expr> = args
            .iter()
            .filter(|a| a.name.is_none())
            .map(|a| &a.value)
            .collect();
        let name = op.name();
        let over = &info.over;
        use Builtin as B;
        match op {
            B::Sum
            | B::Mean
            | B::Prod
            | B::Max
            | B::Min
            | B::Logsumexp
            | B::Var
            | B::Std
            | B::Any
            | B::All
            | B::Argmax
            | B::Argmin => {
                let Some(x) = positional.first() else {
                    return self.bad(whole);
                };
                let x = self.expr(x);
                let f = match op {
                    B::Max => "torch.amax".to_string(),
                    B::Min => "torch.amin".to_string(),
                    _ => format!("torch.{name}"),
                };
                // `var`'s and `std`'s `correction=`, as PyTorch's.
                let extra: Args = args
                    .iter()
                    .filter(|a| a.name.as_ref().is_some_and(|n| n.name == "correction"))
                    .map(|a| (Some("correction".to_string()), self.expr(&a.value)))
                    .collect();
                self.reduction(&f, x, over, extra)
            }
            B::Softmax | B::LogSoftmax | B::Cumsum | B::Sort => {
                let (Some(x), [p]) = (positional.first(), over.as_slice()) else {
                    return self.bad(whole);
                };
                let x = self.expr(x);
                let code = self.call_code(&format!("torch.{name}"), vec![(None, x), dim(*p)]);
                Val::atom(if op == B::Sort {
                    format!("{code}.values")
                } else {
                    code
                })
            }
            B::Topk | B::Split => self.parts(op, args, over, whole),
            B::Where | B::Maximum | B::Minimum => self.elementwise(op, &positional, info),
            B::Abs | B::Sign | B::Tril | B::Triu | B::Clamp => {
                let mut list = Vec::with_capacity(args.len());
                for a in args {
                    let v = self.expr(&a.value);
                    let key = a.name.as_ref().map(|n| match n.name.as_str() {
                        "lo" => "min".to_string(),
                        "hi" => "max".to_string(),
                        other => other.to_string(),
                    });
                    list.push((key, v));
                }
                Val::atom(self.call_code(&format!("torch.{name}"), list))
            }
            B::Concat | B::Stack | B::Take | B::OneHot => {
                self.gathered(op, &positional, over, whole)
            }
            B::Arange | B::Eye => {
                let Some(n) = positional.first() else {
                    return self.bad(whole);
                };
                let n = self.expr(n);
                let extra = match op {
                    B::Eye => self.float_args(),
                    _ => self.device_arg(),
                };
                Val::atom(format!("torch.{name}({}{extra})", n.code))
            }
            B::Zeros | B::Ones | B::Full => self.made(name, &positional, args, whole),
            B::Rearrange | B::Reduce | B::Repeat => match &info.pattern {
                Some(PatternPlan::Layout(plan)) => {
                    let given: HashSet<&str> = args
                        .iter()
                        .filter_map(|a| a.name.as_ref().map(|n| n.name.as_str()))
                        .collect();
                    self.layout(name, plan, &positional, &given, whole)
                }
                _ => self.bad(whole),
            },
            B::Einsum => match self.fused_attention(whole.span) {
                Some(fused) => fused,
                None => self.einsum(info, &positional, whole),
            },
        }
    }

    /// `topk(x, k, over=n)` (values and positions) and `split(x, k, over=n)`
    /// (`k` equal parts, `torch.chunk`): a tuple.
    fn parts(&mut self, op: Builtin, args: &[ast::Arg], over: &[usize], whole: &Expr) -> Val {
        // The count by position or by its parameter's name (`topk(x, k=k, over=n)`).
        let keyword = match op {
            Builtin::Split => "parts",
            _ => "k",
        };
        let positional: Vec<&Expr> = args
            .iter()
            .filter(|a| a.name.is_none())
            .map(|a| &a.value)
            .collect();
        let named = args
            .iter()
            .find(|a| a.name.as_ref().is_some_and(|n| n.name == keyword))
            .map(|a| &a.value);
        let (Some(x), Some(k), [p]) = (
            positional.first(),
            positional.get(1).copied().or(named),
            over,
        ) else {
            return self.bad(whole);
        };
        let x = self.expr(x);
        let k = self.expr(k);
        let f = match op {
            Builtin::Split => "torch.chunk",
            _ => "torch.topk",
        };
        let code = self.call_code(f, vec![(None, x), (None, k), dim(*p)]);
        Val::atom(format!("tuple({code})"))
    }

    /// `where`/`maximum`/`minimum`, each operand viewed as the checker
    /// lined it up (docs/shapescript/broadcasting.md).
    fn elementwise(&mut self, op: Builtin, positional: &[&Expr], info: &CallInfo) -> Val {
        // The checker's alignments, one per parameter in order.
        let views = &info.operands;
        let mut vals = Vec::with_capacity(positional.len());
        let is_float = |s: &Self, e: &Expr| {
            matches!(
                s.ty(e.span).map(|t| &t.kind),
                Some(check::hir::TyKind::Scalar(check::hir::ScalarKind::Float))
            )
        };
        // `where(c, 1.0, 0.0)` would be torch's default dtype: its float
        // numbers become tensors of the body's float dtype, as the checker
        // typed the result (`docs/shapescript/python.md`).
        let numbers_only = op == Builtin::Where
            && positional.iter().skip(1).all(|e| !self.is_tensor(e.span))
            && positional.iter().skip(1).any(|e| is_float(self, e));
        for (i, e) in positional.iter().enumerate() {
            let mut v = self.expr(e);
            if let Some(a) = views.get(i) {
                v = view(v, a);
            }
            // `torch.maximum` takes tensors only: a number becomes one of
            // the body's float dtype (an Int keeps torch's integer one) on
            // its device.
            let wrap = match op {
                Builtin::Where => numbers_only && i > 0 && is_float(self, e),
                _ => !self.is_tensor(e.span),
            };
            if wrap {
                let float = is_float(self, e);
                let extra = if float {
                    self.float_args()
                } else {
                    self.device_arg()
                };
                v = Val::atom(format!("torch.tensor({}{extra})", v.code));
            }
            vals.push((None, v));
        }
        Val::atom(self.call_code(&format!("torch.{}", op.name()), vals))
    }

    /// `concat`, `stack`, `take`, `one_hot`.
    fn gathered(&mut self, op: Builtin, positional: &[&Expr], over: &[usize], whole: &Expr) -> Val {
        match (op, over) {
            (Builtin::Concat | Builtin::Stack, _) => {
                let items: Vec<String> = positional.iter().map(|e| self.expr(e).code).collect();
                let list = Val::atom(format!("[{}]", items.join(", ")));
                let (f, list) = match (op, over) {
                    (Builtin::Concat, [p]) => ("torch.cat", vec![(None, list), dim(*p)]),
                    (Builtin::Stack, [p]) => ("torch.stack", vec![(None, list), dim(*p)]),
                    (Builtin::Stack, _) => ("torch.stack", vec![(None, list)]),
                    _ => return self.bad(whole),
                };
                Val::atom(self.call_code(f, list))
            }
            (Builtin::Take, [p]) => {
                let (Some(x), Some(ids)) = (positional.first(), positional.get(1)) else {
                    return self.bad(whole);
                };
                let x = self.expr(x);
                let ids = self.expr(ids);
                let lead = ":, ".repeat(*p);
                Val::atom(format!("{}[{lead}{}]", x.at(ATOM), ids.code))
            }
            (Builtin::OneHot, _) => {
                let (Some(ids), Some(n)) = (positional.first(), positional.get(1)) else {
                    return self.bad(whole);
                };
                let ids = self.expr(ids);
                let n = self.expr(n);
                let f = self.use_python("torch.nn.functional.one_hot");
                Val::atom(self.call_code(&f, vec![(None, ids), (None, n)]))
            }
            _ => self.bad(whole),
        }
    }

    /// `einsum(a, b, pattern)` by the checker's equation.
    fn einsum(&mut self, info: &CallInfo, positional: &[&Expr], whole: &Expr) -> Val {
        let Some(PatternPlan::Einsum { equation }) = &info.pattern else {
            return self.bad(whole);
        };
        let equation = match positional.last().map(|e| &e.kind) {
            Some(ExprKind::Pattern(p)) => readable_equation(equation, p),
            _ => equation.clone(),
        };
        let mut list = vec![(None, Val::atom(format!("\"{equation}\"")))];
        for e in &positional[..positional.len().saturating_sub(1)] {
            let v = self.expr(e);
            list.push((None, v));
        }
        Val::atom(self.call_code("torch.einsum", list))
    }

    fn bad(&mut self, whole: &Expr) -> Val {
        self.unsupported(whole.span, "this built-in call");
        Val::atom("None".into())
    }

    /// A reduction over the `over=` positions, or over everything.
    fn reduction(&mut self, f: &str, x: Val, over: &[usize], extra: Args) -> Val {
        if over.is_empty() {
            let mut args = vec![(None, x)];
            args.extend(extra);
            return Val::atom(self.call_code(f, args));
        }
        if matches!(f, "torch.prod" | "torch.argmax" | "torch.argmin") && over.len() > 1 {
            // One axis at a time, the last first so the positions stay right.
            let mut sorted = over.to_vec();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let mut v = x;
            for d in sorted {
                let code = self.call_code(
                    f,
                    vec![(None, v), (Some("dim".into()), Val::atom(d.to_string()))],
                );
                v = Val::atom(code);
            }
            return v;
        }
        let dims: Vec<String> = over.iter().map(usize::to_string).collect();
        let dims = match dims.as_slice() {
            [d] => d.clone(),
            ds => format!("({})", ds.join(", ")),
        };
        let mut args = vec![(None, x), (Some("dim".into()), Val::atom(dims))];
        args.extend(extra);
        Val::atom(self.call_code(f, args))
    }

    /// `zeros([i j])`, `full([n], 1.0)`: the sizes of the checked result.
    fn made(&mut self, name: &str, positional: &[&Expr], args: &[ast::Arg], whole: &Expr) -> Val {
        let Some(axes) = self.ty(whole.span).and_then(|t| t.shape()) else {
            return self.bad(whole);
        };
        let mut sizes = Vec::with_capacity(axes.len());
        for axis in axes {
            let code = match &axis.kind {
                check::hir::AxisKind::Size { size, .. } => self.size_code(size),
                _ => None,
            };
            let Some(code) = code else {
                return self.bad(whole);
            };
            sizes.push(code);
        }
        let mut call = format!("torch.{name}({}", tuple(&sizes));
        if name == "full" {
            let value = positional.get(1).copied().or(args
                .iter()
                .find(|a| a.name.as_ref().is_some_and(|n| n.name == "value"))
                .map(|a| &a.value));
            let Some(value) = value else {
                return self.bad(whole);
            };
            let v = self.expr(value);
            call.push_str(&format!(", {}", v.code));
        }
        call.push_str(&self.float_args());
        call.push(')');
        Val::atom(call)
    }

    /// `rearrange`/`reduce`/`repeat` by the checker's plan: split the input
    /// into its elementary axes, reduce, permute, insert and expand new
    /// axes, merge groups. Each step only where it changes something, so a
    /// pattern that is a plain permute emits one `permute`.
    fn layout(
        &mut self,
        name: &str,
        plan: &LayoutPlan,
        positional: &[&Expr],
        given: &HashSet<&str>,
        whole: &Expr,
    ) -> Val {
        let Some(input) = positional.first() else {
            return self.bad(whole);
        };
        let x = self.expr(input);
        let input_axes: Vec<&check::hir::Size> = self
            .ty(input.span)
            .and_then(|t| t.shape())
            .map(|axes| {
                axes.iter()
                    .filter_map(|a| match &a.kind {
                        check::hir::AxisKind::Size { size, .. } => Some(size),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let input_sizes: Vec<check::hir::Poly> =
            input_axes.iter().map(|s| s.poly.clone()).collect();
        let named = match positional.get(1).map(|e| &e.kind) {
            Some(ExprKind::Pattern(pattern)) => {
                let plan_size = |s: &check::hir::Size| PlanSize {
                    code: self.size_code(s),
                    constant: s.poly.as_constant().is_some(),
                };
                name_sizes(
                    pattern,
                    given,
                    &input_axes.iter().map(|s| plan_size(s)).collect::<Vec<_>>(),
                    &plan.split.iter().map(plan_size).collect::<Vec<_>>(),
                    &plan.merge.iter().map(plan_size).collect::<Vec<_>>(),
                    &plan.order,
                )
            }
            _ => None,
        };
        let OutputOrder {
            order,
            inserted,
            spare_ones,
        } = output_order(plan);
        // 1. Split, keeping only the axes that are reduced or go somewhere.
        let kept: Vec<usize> = (0..plan.split.len())
            .filter(|i| !spare_ones.contains(i))
            .collect();
        let split_sizes: Vec<&check::hir::Size> = kept.iter().map(|&i| &plan.split[i]).collect();
        let same_as_input = split_sizes.len() == input_sizes.len()
            && split_sizes
                .iter()
                .zip(&input_sizes)
                .all(|(s, p)| self.gen.checked.dims.same_size(&s.poly, p));
        let mut code = x.at(ATOM);
        if !same_as_input {
            let sizes = match &named {
                Some(named) => {
                    let kept: Vec<SizeText> =
                        kept.iter().map(|&i| named.split[i].clone()).collect();
                    reshape_args(&kept)
                }
                None => self.reshape_sizes(split_sizes.iter().copied()),
            };
            let Some(sizes) = sizes else {
                return self.bad(whole);
            };
            code = format!("{code}.reshape({sizes})");
        }
        // 2. Reduce.
        let mut current: Vec<usize> = kept;
        if let Some((op, axes)) = &plan.reduce {
            code = reduce_step(code, op, axes, &current);
            current.retain(|c| !axes.contains(c));
        }
        code = self.hoist_long(code);
        // 3. Permute into the output's order.
        let perm: Vec<usize> = order
            .iter()
            .filter_map(|(i, _)| current.iter().position(|c| c == i))
            .collect();
        if perm.iter().enumerate().any(|(k, &p)| k != p) {
            let list: Vec<String> = perm.iter().map(usize::to_string).collect();
            code = format!("{code}.permute({})", list.join(", "));
        }
        code = self.hoist_long(code);
        // 4. New axes: of size 1 where no input 1 stands in, then one expand.
        let Some(expanded) = self.new_axes(code, name, plan, &inserted) else {
            return self.bad(whole);
        };
        code = expanded;
        // 5. Merge groups.
        let same_as_expand = plan.merge.len() == plan.expand.len()
            && plan
                .merge
                .iter()
                .zip(&plan.expand)
                .all(|(m, e)| self.gen.checked.dims.same_size(&m.poly, &e.poly));
        if !same_as_expand {
            let merged = match &named {
                Some(named) => named.merge_code(),
                None => self
                    .reshape_sizes(plan.merge.iter())
                    .map(|sizes| format!(".reshape({sizes})")),
            };
            let Some(merged) = merged else {
                return self.bad(whole);
            };
            code.push_str(&merged);
        }
        Val::atom(code)
    }

    /// Step 4 of `layout`: `None` views for the `inserted` output axes, then
    /// `expand` for `repeat`'s new axes; `None` when a size has no code.
    fn new_axes(
        &mut self,
        mut code: String,
        name: &str,
        plan: &LayoutPlan,
        inserted: &[bool],
    ) -> Option<String> {
        if inserted.iter().any(|&n| n) {
            let index: Vec<&str> = inserted
                .iter()
                .map(|&n| if n { "None" } else { ":" })
                .collect();
            let last_new = inserted.iter().rposition(|&n| n).unwrap_or(0);
            code = format!("{code}[{}]", index[..=last_new].join(", "));
        }
        let repeated = plan
            .order
            .iter()
            .zip(&plan.expand)
            .any(|(slot, size)| slot.is_none() && size.poly.as_constant() != Some(1));
        if name == "repeat" && repeated {
            let mut sizes = Vec::with_capacity(plan.order.len());
            for (slot, size) in plan.order.iter().zip(&plan.expand) {
                sizes.push(match slot {
                    Some(_) => "-1".to_string(),
                    None => self.size_code(size)?,
                });
            }
            code = format!("{code}.expand({})", sizes.join(", "));
        }
        Some(code)
    }

    /// Sizes for `reshape`: one unknown size may be `-1`.
    fn reshape_sizes<'s>(
        &self,
        sizes: impl Iterator<Item = &'s check::hir::Size>,
    ) -> Option<String> {
        let codes: Vec<Option<String>> = sizes.map(|s| self.size_code(s)).collect();
        if codes.iter().filter(|c| c.is_none()).count() > 1 {
            return None;
        }
        let codes: Vec<String> = codes
            .into_iter()
            .map(|c| c.unwrap_or_else(|| "-1".into()))
            .collect();
        Some(codes.join(", "))
    }

    /// A chain of tensor methods past 48 characters goes into a temporary.
    fn hoist_long(&mut self, code: String) -> String {
        if code.len() > 48 {
            self.hoist(Val::atom(code)).code
        } else {
            code
        }
    }
}

/// The checker's einsum equation (letters in order of first appearance)
/// with each axis's own initial where that is unambiguous: `bhid,bhjd->bhij`
/// reads better than `abcd,abed->abce`. The equation is unchanged otherwise.
fn readable_equation(equation: &str, pattern: &ast::Pattern) -> String {
    let mut names: Vec<&str> = Vec::new();
    for list in pattern.lhs.iter().chain(std::iter::once(&pattern.rhs)) {
        for axis in &list.axes {
            let name = match &axis.kind {
                ast::AxisKind::Size(ast::SizeExpr {
                    kind: ast::SizeExprKind::Name(name),
                    ..
                }) => name.name,
                ast::AxisKind::Size(ast::SizeExpr {
                    kind: ast::SizeExprKind::Qualified(p),
                    ..
                }) => p.name.name,
                _ => return equation.to_string(),
            };
            if !names.contains(&name.as_str()) {
                names.push(name.as_str());
            }
        }
    }
    let mut letters: Vec<char> = Vec::new();
    for c in equation.chars().filter(char::is_ascii_alphabetic) {
        if !letters.contains(&c) {
            letters.push(c);
        }
    }
    if letters.len() != names.len() {
        return equation.to_string();
    }
    let mut chosen: Vec<char> = Vec::with_capacity(names.len());
    for name in &names {
        let initial = name
            .chars()
            .next()
            .filter(|c| c.is_ascii_alphabetic() && !chosen.contains(c));
        let spare = || ('a'..='z').chain('A'..='Z').find(|c| !chosen.contains(c));
        match initial.or_else(spare) {
            Some(c) => chosen.push(c),
            None => return equation.to_string(),
        }
    }
    equation
        .chars()
        .map(|c| {
            letters
                .iter()
                .position(|&l| l == c)
                .map_or(c, |i| chosen[i])
        })
        .collect()
}

/// The `dim=` keyword argument of axis position `p`.
fn dim(p: usize) -> (Option<String>, Val) {
    (Some("dim".to_string()), Val::atom(p.to_string()))
}

/// Where each output axis of a layout comes from: `order` lists, per output
/// axis taken from the input, its index in `split` and whether it is one of
/// the input's spare literal 1s; `inserted` marks the new axes no spare 1
/// stands in for; `spare_ones` are the 1s left over (dropped by the split).
struct OutputOrder {
    order: Vec<(usize, bool)>,
    inserted: Vec<bool>,
    spare_ones: Vec<usize>,
}

/// Output axes that come from the input, and the input's literal 1s that go
/// nowhere: a new output axis takes one of those in order (an expand of a
/// size-1 axis needs no new axis).
fn output_order(plan: &LayoutPlan) -> OutputOrder {
    let reduced: &[usize] = plan.reduce.as_ref().map_or(&[], |(_, r)| r);
    let used: Vec<usize> = plan.order.iter().flatten().copied().collect();
    let mut spare_ones: Vec<usize> = (0..plan.split.len())
        .filter(|i| !used.contains(i) && !reduced.contains(i))
        .collect();
    let mut order: Vec<(usize, bool)> = Vec::with_capacity(plan.order.len());
    let mut inserted = vec![false; plan.order.len()];
    let mut last = None;
    for (r, slot) in plan.order.iter().enumerate() {
        match slot {
            Some(i) => {
                order.push((*i, false));
                last = Some(*i);
            }
            None => match spare_ones.iter().position(|&p| last.is_none_or(|l| p > l)) {
                Some(k) => {
                    let p = spare_ones.remove(k);
                    order.push((p, true));
                    last = Some(p);
                }
                None => inserted[r] = true,
            },
        }
    }
    OutputOrder {
        order,
        inserted,
        spare_ones,
    }
}

/// Step 2 of a layout: reduce the `axes` of `split` (found among `current`,
/// the axes left so far) with `op`.
fn reduce_step(mut code: String, op: &str, axes: &[usize], current: &[usize]) -> String {
    let positions: Vec<usize> = axes
        .iter()
        .filter_map(|a| current.iter().position(|c| c == a))
        .collect();
    if positions.is_empty() {
        return code;
    }
    let f = match op {
        "max" => "amax",
        "min" => "amin",
        other => other,
    };
    if f == "prod" {
        for p in positions.iter().rev() {
            code = format!("{code}.prod({p})");
        }
        return code;
    }
    let dims: Vec<String> = positions.iter().map(usize::to_string).collect();
    let dims = match dims.as_slice() {
        [d] => d.clone(),
        ds => format!("({})", ds.join(", ")),
    };
    format!("{code}.{f}({dims})")
}
