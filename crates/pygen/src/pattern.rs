//! Built-in operations: reductions and axis-wise operations with `over=`
//! compiled to positions, `where`/`maximum`/`minimum` with broadcasting
//! views, made tensors (`zeros`, `arange`...) on the body's device, and the
//! pattern builtins (`rearrange`, `reduce`, `repeat`, `einsum`) lowered to
//! plain `reshape`/`permute`/`expand`/reductions/`torch.einsum`, never einops.

use syntax::ast::{self, Expr, ExprKind};

use crate::expr::{Val, ATOM};
use crate::scope::Scope;
use crate::vty::{Ax, VTy};

/// One elementary axis of a pattern side.
#[derive(Clone, Debug)]
struct Elem {
    name: String,
    size: Option<String>,
    /// The axis of the argument it came from, when it was a whole axis.
    from: Option<Ax>,
}

/// One axis of a pattern side: its elementary axes (a group has several).
type Side = Vec<Vec<Elem>>;

impl<'g, 'a> Scope<'g, 'a> {
    pub fn builtin(&mut self, name: &str, args: &[ast::Arg], whole: &Expr) -> Val {
        let positional: Vec<&Expr> = args
            .iter()
            .filter(|a| a.name.is_none())
            .map(|a| &a.value)
            .collect();
        let keyword = |k: &str| {
            args.iter()
                .find(|a| a.name.as_ref().is_some_and(|n| n.name == k))
                .map(|a| &a.value)
        };
        match name {
            "sum" | "mean" | "prod" | "max" | "min" | "logsumexp" | "var" | "std" | "any"
            | "all" | "argmax" | "argmin" => {
                let Some(x) = positional.first() else {
                    return self.bad(whole);
                };
                let x = self.expr(x);
                let f = match name {
                    "max" => "torch.amax",
                    "min" => "torch.amin",
                    other => {
                        return self.reduction(&format!("torch.{other}"), x, keyword("over"), whole)
                    }
                };
                self.reduction(f, x, keyword("over"), whole)
            }
            "softmax" | "log_softmax" | "cumsum" | "sort" => {
                let Some(x) = positional.first() else {
                    return self.bad(whole);
                };
                let x = self.expr(x);
                let Some(over) = keyword("over") else {
                    return self.bad(whole);
                };
                let Some(dims) = self.positions(&x.ty, over) else {
                    return self.bad(whole);
                };
                let [p] = dims.as_slice() else {
                    return self.bad(whole);
                };
                let ty = x.ty.clone();
                let code = self.call_code(
                    &format!("torch.{name}"),
                    vec![
                        (None, x),
                        (Some("dim".into()), Val::atom(p.to_string(), VTy::Scalar)),
                    ],
                );
                let code = if name == "sort" {
                    format!("{code}.values")
                } else {
                    code
                };
                Val::atom(code, ty)
            }
            "topk" => {
                let (Some(x), Some(k)) = (positional.first(), positional.get(1)) else {
                    return self.bad(whole);
                };
                let x = self.expr(x);
                let k = self.expr(k);
                let Some(over) = keyword("over") else {
                    return self.bad(whole);
                };
                let Some(dims) = self.positions(&x.ty, over) else {
                    return self.bad(whole);
                };
                let [p] = dims.as_slice() else {
                    return self.bad(whole);
                };
                let ty = match x.ty.axes() {
                    Some(axes) => {
                        let mut axes = axes.to_vec();
                        axes[*p] = Ax::anonymous(Some(k.code.clone()));
                        VTy::Tensor(Some(axes))
                    }
                    None => VTy::Tensor(None),
                };
                let code = self.call_code(
                    "torch.topk",
                    vec![
                        (None, x),
                        (None, k),
                        (Some("dim".into()), Val::atom(p.to_string(), VTy::Scalar)),
                    ],
                );
                Val::atom(format!("tuple({code})"), VTy::Tuple(vec![ty.clone(), ty]))
            }
            "where" | "maximum" | "minimum" => {
                let mut vals: Vec<Val> = positional.iter().map(|e| self.expr(e)).collect();
                // Line every operand up with the one of most axes.
                let widest = (0..vals.len())
                    .max_by_key(|&i| (vals[i].ty.axes().map_or(0, <[Ax]>::len), usize::MAX - i));
                let mut ty = VTy::Tensor(None);
                if let Some(w) = widest {
                    let mut big = vals[w].clone();
                    for (i, val) in vals.iter_mut().enumerate() {
                        if i != w {
                            ty = self.broadcast(val, &mut big);
                        }
                    }
                    ty = if vals.len() == 1 { big.ty.clone() } else { ty };
                    if name != "where" && matches!(vals.get(1).map(|v| &v.ty), Some(VTy::Scalar)) {
                        let v = vals[1].clone();
                        vals[1] = Val::atom(format!("torch.tensor({})", v.code), VTy::Scalar);
                    }
                }
                let code = self.call_code(
                    &format!("torch.{name}"),
                    vals.into_iter().map(|v| (None, v)).collect(),
                );
                Val::atom(code, ty)
            }
            "abs" | "sign" | "tril" | "triu" | "clamp" => {
                let Some(x) = positional.first() else {
                    return self.bad(whole);
                };
                let x = self.expr(x);
                let ty = x.ty.clone();
                let mut list = vec![(None, x)];
                for a in args.iter().skip(1) {
                    let v = self.expr(&a.value);
                    let key = a.name.as_ref().map(|n| {
                        if n.name == "lo" {
                            "min".to_string()
                        } else if n.name == "hi" {
                            "max".to_string()
                        } else {
                            n.name.clone()
                        }
                    });
                    list.push((key, v));
                }
                Val::atom(self.call_code(&format!("torch.{name}"), list), ty)
            }
            "concat" | "split" | "take" => self.along(name, &positional, keyword("over"), whole),
            "stack" => {
                let vals: Vec<Val> = positional.iter().map(|e| self.expr(e)).collect();
                let ty = match vals.first().and_then(|v| v.ty.axes()) {
                    Some(axes) => {
                        let mut out = vec![Ax::anonymous(Some(vals.len().to_string()))];
                        out.extend(axes.iter().cloned());
                        VTy::Tensor(Some(out))
                    }
                    None => VTy::Tensor(None),
                };
                let list = format!(
                    "[{}]",
                    vals.iter()
                        .map(|v| v.code.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                Val::atom(
                    self.call_code("torch.stack", vec![(None, Val::atom(list, VTy::Unknown))]),
                    ty,
                )
            }
            "one_hot" => {
                let (Some(ids), Some(n)) = (positional.first(), positional.get(1)) else {
                    return self.bad(whole);
                };
                let ids = self.expr(ids);
                let axis = match &n.kind {
                    ExprKind::Name(id) => Some(id.name.clone()),
                    _ => None,
                };
                let n = self.expr(n);
                let ty = match ids.ty.axes() {
                    Some(axes) => {
                        let mut axes = axes.to_vec();
                        axes.push(Ax {
                            name: axis,
                            size: Some(n.code.clone()),
                        });
                        VTy::Tensor(Some(axes))
                    }
                    None => VTy::Tensor(None),
                };
                let f = self.use_python("torch.nn.functional.one_hot");
                Val::atom(self.call_code(&f, vec![(None, ids), (None, n)]), ty)
            }
            "zeros" | "ones" | "full" | "eye" | "arange" => {
                self.made(name, &positional, args, whole)
            }
            "rearrange" | "reduce" | "repeat" => self.pattern(name, &positional, args, whole),
            "einsum" => self.einsum(&positional, whole),
            _ => {
                self.unsupported(whole.span, &format!("a call of `{name}`"));
                Val::atom("None".into(), VTy::Unknown)
            }
        }
    }

    fn bad(&mut self, whole: &Expr) -> Val {
        self.unsupported(whole.span, "this built-in call");
        Val::atom("None".into(), VTy::Unknown)
    }

    /// The positions `over=` names in a value of type `ty`.
    fn positions(&mut self, ty: &VTy, over: &Expr) -> Option<Vec<usize>> {
        let axes = ty.axes()?;
        let names: Vec<&str> = match &over.kind {
            ExprKind::Name(id) => vec![&id.name],
            ExprKind::AxisGroup(ids) => ids.iter().map(|i| i.name.as_str()).collect(),
            ExprKind::Tuple(items) => items
                .iter()
                .map(|e| match &e.kind {
                    ExprKind::Name(id) => Some(id.name.as_str()),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?,
            _ => return None,
        };
        names
            .iter()
            .map(|n| axes.iter().position(|a| a.name.as_deref() == Some(*n)))
            .collect()
    }

    fn reduction(&mut self, f: &str, x: Val, over: Option<&Expr>, whole: &Expr) -> Val {
        let Some(over) = over else {
            let code = self.call_code(f, vec![(None, x)]);
            return Val::atom(code, VTy::Tensor(Some(Vec::new())));
        };
        let Some(dims) = self.positions(&x.ty, over) else {
            return self.bad(whole);
        };
        let ty = match x.ty.axes() {
            Some(axes) => VTy::Tensor(Some(
                axes.iter()
                    .enumerate()
                    .filter(|(i, _)| !dims.contains(i))
                    .map(|(_, a)| a.clone())
                    .collect(),
            )),
            None => VTy::Tensor(None),
        };
        let single_only = matches!(f, "torch.prod" | "torch.argmax" | "torch.argmin");
        if single_only && dims.len() > 1 {
            // One axis at a time, the last first so the positions stay right.
            let mut sorted = dims.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let mut v = x;
            for d in sorted {
                let code = self.call_code(
                    f,
                    vec![
                        (None, v.clone()),
                        (Some("dim".into()), Val::atom(d.to_string(), VTy::Scalar)),
                    ],
                );
                v = Val::atom(code, VTy::Unknown);
            }
            return Val::atom(v.code, ty);
        }
        let dim = match dims.as_slice() {
            [d] => d.to_string(),
            ds => format!(
                "({})",
                ds.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let code = self.call_code(
            f,
            vec![(None, x), (Some("dim".into()), Val::atom(dim, VTy::Scalar))],
        );
        Val::atom(code, ty)
    }

    /// `concat`, `split` and `take` along the `over=` axis.
    fn along(
        &mut self,
        name: &str,
        positional: &[&Expr],
        over: Option<&Expr>,
        whole: &Expr,
    ) -> Val {
        let vals: Vec<Val> = positional.iter().map(|e| self.expr(e)).collect();
        let Some(first) = vals.first() else {
            return self.bad(whole);
        };
        let Some(over) = over else {
            return self.bad(whole);
        };
        let Some(dims) = self.positions(&first.ty, over) else {
            return self.bad(whole);
        };
        let [p] = dims.as_slice() else {
            return self.bad(whole);
        };
        let p = *p;
        match name {
            "concat" => {
                let ty = match first.ty.axes() {
                    Some(axes) => {
                        let mut axes = axes.to_vec();
                        let sizes: Option<Vec<String>> = vals
                            .iter()
                            .map(|v| {
                                v.ty.axes()
                                    .and_then(|a| a.get(p))
                                    .and_then(|a| a.size.clone())
                            })
                            .collect();
                        axes[p] = Ax::anonymous(sizes.map(|s| s.join(" + ")));
                        VTy::Tensor(Some(axes))
                    }
                    None => VTy::Tensor(None),
                };
                let list = format!(
                    "[{}]",
                    vals.iter()
                        .map(|v| v.code.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let code = self.call_code(
                    "torch.cat",
                    vec![
                        (None, Val::atom(list, VTy::Unknown)),
                        (Some("dim".into()), Val::atom(p.to_string(), VTy::Scalar)),
                    ],
                );
                Val::atom(code, ty)
            }
            "split" => {
                let mut list: Vec<(Option<String>, Val)> =
                    vals.into_iter().map(|v| (None, v)).collect();
                list.push((Some("dim".into()), Val::atom(p.to_string(), VTy::Scalar)));
                let code = self.call_code("torch.split", list);
                Val::atom(format!("tuple({code})"), VTy::Unknown)
            }
            _ => {
                let Some(ids) = vals.get(1) else {
                    return self.bad(whole);
                };
                let ty = match (first.ty.axes(), ids.ty.axes()) {
                    (Some(axes), Some(id_axes)) => {
                        let mut out = axes[..p].to_vec();
                        out.extend(id_axes.iter().cloned());
                        out.extend(axes[p + 1..].iter().cloned());
                        VTy::Tensor(Some(out))
                    }
                    _ => VTy::Tensor(None),
                };
                let lead = ":, ".repeat(p);
                let x = vals[0].at(ATOM);
                Val::atom(format!("{x}[{lead}{}]", ids.code), ty)
            }
        }
    }

    /// Tensors made from sizes: on the device of the body's first tensor parameter.
    fn made(&mut self, name: &str, positional: &[&Expr], args: &[ast::Arg], whole: &Expr) -> Val {
        let device = self.device_arg();
        match name {
            "arange" | "eye" => {
                let Some(n) = positional.first() else {
                    return self.bad(whole);
                };
                let axis = match &n.kind {
                    ExprKind::Name(id) => Some(id.name.clone()),
                    _ => None,
                };
                let n = self.expr(n);
                let ax = Ax {
                    name: axis,
                    size: Some(n.code.clone()),
                };
                let ty = if name == "eye" {
                    vec![ax.clone(), ax]
                } else {
                    vec![ax]
                };
                Val::atom(
                    format!("torch.{name}({}{device})", n.code),
                    VTy::Tensor(Some(ty)),
                )
            }
            _ => {
                let Some(shape) = positional.first() else {
                    return self.bad(whole);
                };
                let ExprKind::Shape(list) = &shape.kind else {
                    return self.bad(whole);
                };
                let mut axes = Vec::new();
                for axis in &list.axes {
                    match &axis.kind {
                        ast::AxisKind::Size(s) => {
                            let name = match &s.kind {
                                ast::SizeExprKind::Name(p) if p.file.is_none() => {
                                    Some(p.name.name.clone())
                                }
                                _ => None,
                            };
                            let Some(code) = self.size_code(s) else {
                                return self.bad(whole);
                            };
                            axes.push(Ax {
                                name,
                                size: Some(code),
                            });
                        }
                        _ => return self.bad(whole),
                    }
                }
                let sizes: Vec<String> = axes
                    .iter()
                    .map(|a| a.size.clone().unwrap_or_default())
                    .collect();
                let mut call = format!(
                    "torch.{name}(({}{})",
                    sizes.join(", "),
                    if sizes.len() == 1 { "," } else { "" }
                );
                if name == "full" {
                    let Some(value) = positional.get(1).copied().or(args
                        .iter()
                        .find(|a| a.name.as_ref().is_some_and(|n| n.name == "value"))
                        .map(|a| &a.value))
                    else {
                        return self.bad(whole);
                    };
                    let v = self.expr(value);
                    call.push_str(&format!(", {}", v.code));
                }
                call.push_str(&device);
                call.push(')');
                Val::atom(call, VTy::Tensor(Some(axes)))
            }
        }
    }

    /// A size written in a body (`[i j]`, `h=16`): Python integer arithmetic.
    pub fn size_code(&mut self, s: &ast::SizeExpr) -> Option<String> {
        Some(match &s.kind {
            ast::SizeExprKind::Int(v) => v.to_string(),
            ast::SizeExprKind::Name(path) => match &path.file {
                None => {
                    let id = &path.name;
                    if let Some(size) = self.sizes.get(&id.name) {
                        size.clone()
                    } else {
                        let e = Expr {
                            kind: ExprKind::Name(id.clone()),
                            span: id.span,
                        };
                        self.expr(&e).code
                    }
                }
                Some(file) => {
                    let e = Expr {
                        kind: ExprKind::Field {
                            base: Box::new(Expr {
                                kind: ExprKind::Name(file.clone()),
                                span: file.span,
                            }),
                            name: path.name.clone(),
                        },
                        span: path.span,
                    };
                    self.expr(&e).code
                }
            },
            ast::SizeExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (self.size_code(lhs)?, self.size_code(rhs)?);
                let op = match op {
                    ast::SizeOp::Div => "//",
                    other => other.as_str(),
                };
                format!("({l} {op} {r})")
            }
            _ => return None,
        })
    }

    /// The sizes keyword arguments give a pattern (`h=16`, `b=b`).
    fn pattern_keywords(&mut self, args: &[ast::Arg]) -> Vec<(String, String)> {
        args.iter()
            .filter_map(|a| {
                let n = a.name.as_ref()?;
                let v = self.expr(&a.value);
                Some((n.name.clone(), v.code))
            })
            .collect()
    }

    /// Decomposes one side of a pattern against the argument's axes.
    fn side(
        &mut self,
        list: &ast::ShapeList,
        arg: Option<(&Val, &[Ax])>,
        keywords: &[(String, String)],
        known: &[Elem],
    ) -> Option<Side> {
        let mut out: Side = Vec::new();
        let rank = arg.map(|(_, a)| a.len());
        let fixed = list
            .axes
            .iter()
            .filter(|a| !matches!(a.kind, ast::AxisKind::Rest))
            .count();
        let mut position = 0;
        for axis in &list.axes {
            let whole_axis = arg.and_then(|(_, axes)| axes.get(position));
            let whole_size = |scope: &mut Self, at: usize| -> Option<String> {
                let (v, axes) = arg?;
                Some(
                    axes.get(at)
                        .and_then(|a| a.size.clone())
                        .unwrap_or_else(|| {
                            let _ = scope;
                            format!("{}.shape[{at}]", v.code)
                        }),
                )
            };
            match &axis.kind {
                ast::AxisKind::Rest => {
                    let extra = match rank {
                        Some(r) => r.checked_sub(fixed)?,
                        None => known.iter().filter(|e| e.name.starts_with('…')).count(),
                    };
                    for k in 0..extra {
                        let from = arg.and_then(|(_, axes)| axes.get(position + k)).cloned();
                        let size = match arg {
                            Some(_) => whole_size(self, position + k),
                            None => known
                                .iter()
                                .find(|e| e.name == format!("…{k}"))
                                .and_then(|e| e.size.clone()),
                        };
                        out.push(vec![Elem {
                            name: format!("…{k}"),
                            size,
                            from,
                        }]);
                    }
                    position += extra;
                    continue;
                }
                ast::AxisKind::Size(s) => {
                    let elem = self.elem(s, keywords, known)?;
                    let size = elem.size.clone().or_else(|| whole_size(self, position));
                    out.push(vec![Elem {
                        size,
                        from: whole_axis.cloned(),
                        ..elem
                    }]);
                }
                ast::AxisKind::Grouped { factor, name } => {
                    let inner = Elem {
                        name: factor.to_string(),
                        size: Some(factor.to_string()),
                        from: None,
                    };
                    let outer = self.named_elem(&name.name, keywords, known);
                    let w = whole_size(self, position);
                    out.push(self.solve_group(vec![outer, inner], w)?);
                }
                ast::AxisKind::Group(parts) => {
                    let mut elems = Vec::new();
                    for part in parts {
                        match &part.kind {
                            ast::AxisKind::Size(s) => elems.push(self.elem(s, keywords, known)?),
                            ast::AxisKind::Grouped { factor, name } => {
                                elems.push(self.named_elem(&name.name, keywords, known));
                                elems.push(Elem {
                                    name: factor.to_string(),
                                    size: Some(factor.to_string()),
                                    from: None,
                                });
                            }
                            _ => return None,
                        }
                    }
                    let w = whole_size(self, position);
                    out.push(self.solve_group(elems, w)?);
                }
            }
            position += 1;
        }
        // Numbers pair by order of appearance: the first 16 with the first 16.
        let mut counts: Vec<(String, usize)> = Vec::new();
        for e in out.iter_mut().flatten() {
            if e.name.starts_with('#') {
                let n = match counts.iter_mut().find(|(k, _)| *k == e.name) {
                    Some((_, n)) => {
                        *n += 1;
                        *n
                    }
                    None => {
                        counts.push((e.name.clone(), 0));
                        0
                    }
                };
                e.name = format!("{}@{n}", e.name);
            }
        }
        Some(out)
    }

    fn elem(
        &mut self,
        s: &ast::SizeExpr,
        keywords: &[(String, String)],
        known: &[Elem],
    ) -> Option<Elem> {
        match &s.kind {
            ast::SizeExprKind::Int(v) => Some(Elem {
                name: format!("#{v}"),
                size: Some(v.to_string()),
                from: None,
            }),
            ast::SizeExprKind::Name(p) if p.file.is_none() => {
                Some(self.named_elem(&p.name.name, keywords, known))
            }
            _ => None,
        }
    }

    /// A name in a pattern: a keyword's size, a dim's constant, a size from the other side, or unknown.
    fn named_elem(&mut self, name: &str, keywords: &[(String, String)], known: &[Elem]) -> Elem {
        let size = if let Some((_, v)) = keywords.iter().find(|(k, _)| k == name) {
            Some(v.clone())
        } else if let Some(e) = known.iter().find(|e| e.name == name) {
            e.size.clone()
        } else {
            let path = ast::Path {
                file: None,
                name: ast::Ident {
                    name: name.to_string(),
                    span: diag::Span::new(self.file, 0, 0),
                },
                span: diag::Span::new(self.file, 0, 0),
            };
            match self.gen.checked.program.lookup(self.file, &path) {
                Ok((target, check::program::Decl::Dim(..))) => Some(self.qualified(target, name)),
                _ => None,
            }
        };
        Elem {
            name: name.to_string(),
            size,
            from: None,
        }
    }

    /// Works out the one unknown size of a group from the whole axis's size.
    fn solve_group(&mut self, mut elems: Vec<Elem>, whole: Option<String>) -> Option<Vec<Elem>> {
        let unknown: Vec<usize> = (0..elems.len())
            .filter(|&i| elems[i].size.is_none())
            .collect();
        match unknown.as_slice() {
            [] => Some(elems),
            [i] => {
                let whole = whole?;
                let others: Vec<String> = elems
                    .iter()
                    .filter_map(|e| e.size.clone())
                    .map(|s| paren(&s))
                    .collect();
                let divisor = if others.len() == 1 {
                    others[0].clone()
                } else {
                    format!("({})", others.join(" * "))
                };
                elems[*i].size = Some(format!("{} // {divisor}", paren(&whole)));
                Some(elems)
            }
            _ => None,
        }
    }

    fn pattern(
        &mut self,
        name: &str,
        positional: &[&Expr],
        args: &[ast::Arg],
        whole: &Expr,
    ) -> Val {
        let (Some(x), Some(p)) = (positional.first(), positional.get(1)) else {
            return self.bad(whole);
        };
        let ExprKind::Pattern(pattern) = &p.kind else {
            return self.bad(whole);
        };
        let [lhs] = pattern.lhs.as_slice() else {
            return self.bad(whole);
        };
        let x = self.expr(x);
        let x = self.hoist(x);
        let keywords = self.pattern_keywords(args);
        let axes = x.ty.axes().map(<[Ax]>::to_vec).unwrap_or_default();
        let arg = if x.ty.axes().is_some() {
            Some((&x, axes.as_slice()))
        } else {
            None
        };
        let Some(left) = self.side(lhs, arg, &keywords, &[]) else {
            return self.bad(whole);
        };
        let left_elems: Vec<Elem> = left.iter().flatten().cloned().collect();
        let Some(right) = self.side(&pattern.rhs, None, &keywords, &left_elems) else {
            return self.bad(whole);
        };
        let mut code = x.at(ATOM);
        // 1. Split the input into its elementary axes, dropping literal 1s.
        let kept: Vec<Elem> = left_elems.iter().filter(|e| !is_one(e)).cloned().collect();
        let needs_split = left.iter().any(|g| g.len() != 1) || kept.len() != left_elems.len();
        if needs_split {
            let sizes: Vec<String> = kept
                .iter()
                .map(|e| e.size.clone().unwrap_or_else(|| "-1".into()))
                .collect();
            code = format!("{code}.reshape({})", tuple_args(&sizes));
        }
        let right_elems: Vec<Elem> = right
            .iter()
            .flatten()
            .filter(|e| !is_one(e))
            .cloned()
            .collect();
        let mut current: Vec<Elem> = kept.clone();
        // 2. Reduce the axes the right side drops.
        if name == "reduce" {
            let op = positional.get(2).and_then(|e| match &e.kind {
                ExprKind::Name(id) => Some(id.name.as_str()),
                _ => None,
            });
            let f = match op {
                Some("sum") => "sum",
                Some("mean") => "mean",
                Some("max") => "amax",
                Some("min") => "amin",
                Some("prod") => "prod",
                _ => return self.bad(whole),
            };
            let dropped: Vec<usize> = (0..current.len())
                .filter(|&i| !right_elems.iter().any(|r| r.name == current[i].name))
                .collect();
            if !dropped.is_empty() {
                if f == "prod" {
                    for d in dropped.iter().rev() {
                        code = format!("{code}.prod({d})");
                    }
                } else {
                    let dims = dropped.iter().map(usize::to_string).collect::<Vec<_>>();
                    let dims = if dims.len() == 1 {
                        dims[0].clone()
                    } else {
                        format!("({})", dims.join(", "))
                    };
                    code = format!("{code}.{f}({dims})");
                }
                current = current
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| !dropped.contains(i))
                    .map(|(_, e)| e)
                    .collect();
            }
        }
        if code.len() > 48 {
            code = self.hoist(Val::atom(code, VTy::Unknown)).code;
        }
        // 3. Put the kept axes in the right side's order.
        let order: Vec<&Elem> = right_elems
            .iter()
            .filter(|r| current.iter().any(|c| c.name == r.name))
            .collect();
        let perm: Vec<usize> = order
            .iter()
            .filter_map(|r| current.iter().position(|c| c.name == r.name))
            .collect();
        if perm.iter().enumerate().any(|(i, &p)| i != p) {
            code = format!(
                "{code}.permute({})",
                tuple_args(&perm.iter().map(usize::to_string).collect::<Vec<_>>())
            );
        }
        if code.len() > 48 {
            code = self.hoist(Val::atom(code, VTy::Unknown)).code;
        }
        // 4. Repeat: new axes of size 1, then expanded.
        if name == "repeat" {
            let all_right: Vec<Elem> = right.iter().flatten().cloned().collect();
            let new: Vec<bool> = all_right
                .iter()
                .map(|r| !current.iter().any(|c| c.name == r.name))
                .collect();
            if new.iter().any(|&n| n) {
                let index: Vec<&str> = new.iter().map(|&n| if n { "None" } else { ":" }).collect();
                let last_new = new.iter().rposition(|&n| n).unwrap_or(0);
                code = format!("{code}[{}]", index[..=last_new].join(", "));
                let sizes: Vec<String> = all_right
                    .iter()
                    .zip(&new)
                    .map(|(r, &n)| {
                        if n {
                            r.size.clone().unwrap_or_else(|| "-1".into())
                        } else {
                            "-1".into()
                        }
                    })
                    .collect();
                code = format!("{code}.expand({})", sizes.join(", "));
            }
        }
        if code.len() > 48 {
            code = self.hoist(Val::atom(code, VTy::Unknown)).code;
        }
        // 5. Merge the right side's groups.
        let merged = right.iter().any(|g| g.len() != 1)
            || (name != "repeat" && right.iter().flatten().any(is_one));
        let out_axes: Vec<Ax> = right
            .iter()
            .map(|g| match g.as_slice() {
                [e] => {
                    let src = left_elems.iter().find(|l| l.name == e.name);
                    let from = src
                        .and_then(|l| l.from.clone())
                        .filter(|a| a.name.is_some());
                    from.unwrap_or_else(|| Ax {
                        name: (!e.name.starts_with('#')).then(|| e.name.clone()),
                        size: e.size.clone(),
                    })
                }
                parts => Ax::anonymous(
                    parts
                        .iter()
                        .map(|p| p.size.clone())
                        .collect::<Option<Vec<_>>>()
                        .map(|s| s.iter().map(|x| paren(x)).collect::<Vec<_>>().join(" * ")),
                ),
            })
            .collect();
        if merged {
            let sizes: Vec<String> = out_axes
                .iter()
                .map(|a| a.size.clone().unwrap_or_else(|| "-1".into()))
                .collect();
            code = format!("{code}.reshape({})", tuple_args(&sizes));
        }
        Val::atom(code, VTy::Tensor(Some(out_axes)))
    }

    fn einsum(&mut self, positional: &[&Expr], whole: &Expr) -> Val {
        let Some(ExprKind::Pattern(pattern)) = positional.last().map(|e| &e.kind) else {
            return self.bad(whole);
        };
        let operands: Vec<Val> = positional[..positional.len() - 1]
            .iter()
            .map(|e| self.expr(e))
            .collect();
        if operands.len() != pattern.lhs.len() {
            return self.bad(whole);
        }
        let mut letters: Vec<(String, char)> = Vec::new();
        let mut sources: Vec<(String, Ax)> = Vec::new();
        let mut spec = Vec::new();
        for (list, v) in pattern
            .lhs
            .iter()
            .chain(std::iter::once(&pattern.rhs))
            .zip(operands.iter().map(Some).chain(std::iter::once(None)))
        {
            let mut s = String::new();
            for (i, axis) in list.axes.iter().enumerate() {
                let ast::AxisKind::Size(ast::SizeExpr {
                    kind: ast::SizeExprKind::Name(p),
                    ..
                }) = &axis.kind
                else {
                    return self.bad(whole);
                };
                let name = p.name.name.clone();
                let letter = match letters.iter().find(|(n, _)| *n == name) {
                    Some((_, l)) => *l,
                    None => {
                        let first = name.chars().next().filter(|c| {
                            c.is_ascii_alphabetic() && !letters.iter().any(|(_, l)| l == c)
                        });
                        let l = first.or_else(|| {
                            ('a'..='z')
                                .chain('A'..='Z')
                                .find(|c| !letters.iter().any(|(_, l)| l == c))
                        });
                        let Some(l) = l else { return self.bad(whole) };
                        letters.push((name.clone(), l));
                        l
                    }
                };
                if let Some(ax) = v.and_then(|v| v.ty.axes()).and_then(|a| a.get(i)) {
                    if !sources.iter().any(|(n, _)| *n == name) {
                        sources.push((name.clone(), ax.clone()));
                    }
                }
                s.push(letter);
            }
            spec.push(s);
        }
        let out = spec.pop().unwrap_or_default();
        let text = format!("\"{}->{out}\"", spec.join(","));
        let ty = VTy::Tensor(Some(
            pattern
                .rhs
                .axes
                .iter()
                .map(|a| match &a.kind {
                    ast::AxisKind::Size(ast::SizeExpr {
                        kind: ast::SizeExprKind::Name(p),
                        ..
                    }) => sources
                        .iter()
                        .find(|(n, _)| *n == p.name.name)
                        .map(|(_, ax)| ax.clone())
                        .unwrap_or(Ax {
                            name: Some(p.name.name.clone()),
                            size: None,
                        }),
                    _ => Ax::anonymous(None),
                })
                .collect(),
        ));
        let mut list = vec![(None, Val::atom(text, VTy::Scalar))];
        list.extend(operands.into_iter().map(|v| (None, v)));
        Val::atom(self.call_code("torch.einsum", list), ty)
    }
}

fn is_one(e: &Elem) -> bool {
    e.name.starts_with("#1@")
}

fn paren(s: &str) -> String {
    if s.contains(' ') {
        format!("({s})")
    } else {
        s.to_string()
    }
}

fn tuple_args(sizes: &[String]) -> String {
    sizes.join(", ")
}
