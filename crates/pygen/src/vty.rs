//! The generator's view of a value's type: what a tensor's axes are called
//! and, where known before run time, the Python expression of each size.
//! Built from the checker's types (signatures, fields) by binding a callee's
//! names to the caller's axes; drives `over=` positions, broadcasting views
//! and pattern sizes. Never reports user mistakes: the checker has.

use std::collections::HashMap;

use check::size::{Poly, Symbol};
use check::types::{AxisKind, Ty, TyKind};
use diag::FileId;

/// One axis of a tensor as the generated code sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Ax {
    /// The axis's name when its size is one symbol (`b`, `D`).
    pub name: Option<String>,
    /// A Python expression of the size, valid where the value is used.
    pub size: Option<String>,
}

impl Ax {
    pub fn anonymous(size: Option<String>) -> Ax {
        Ax { name: None, size }
    }
}

#[derive(Clone, Debug)]
pub enum VTy {
    /// A tensor; `None` when its axes are not known (a shapeless type).
    Tensor(Option<Vec<Ax>>),
    /// A Python number or bool.
    Scalar,
    /// A model instance, with the sizes of its size parameters.
    Model {
        file: FileId,
        name: String,
        args: Vec<Ax>,
    },
    /// `[L] Block`: an `nn.ModuleList`.
    Stack(Box<VTy>),
    Record {
        file: FileId,
        name: String,
    },
    Tuple(Vec<VTy>),
    Unknown,
}

impl VTy {
    pub fn axes(&self) -> Option<&[Ax]> {
        match self {
            VTy::Tensor(Some(axes)) => Some(axes),
            _ => None,
        }
    }
}

/// How names in a callee's types become the caller's axes and sizes.
pub struct Binder<'a> {
    /// Callee symbol name to the caller's axis.
    pub binds: HashMap<String, Ax>,
    /// The caller's Python expression for a dim.
    pub dim: &'a dyn Fn(FileId, &str) -> String,
    /// The axes a `...` stood for.
    pub rest: Option<Vec<Ax>>,
}

impl Binder<'_> {
    /// Pairs the callee's parameter type `ty` with the argument's type.
    pub fn bind(&mut self, ty: &Ty, arg: &VTy) {
        let (Some(axes), Some(arg_axes)) = (ty.shape(), arg.axes()) else {
            return;
        };
        let rest_at = axes.iter().position(|a| matches!(a.kind, AxisKind::Rest));
        let pairs: Vec<(usize, usize)> = match rest_at {
            None if axes.len() == arg_axes.len() => (0..axes.len()).map(|i| (i, i)).collect(),
            None => return,
            Some(r) => {
                let after = axes.len() - r - 1;
                if arg_axes.len() < r + after {
                    return;
                }
                if self.rest.is_none() {
                    self.rest = Some(arg_axes[r..arg_axes.len() - after].to_vec());
                }
                let mut pairs: Vec<(usize, usize)> = (0..r).map(|i| (i, i)).collect();
                for k in 0..after {
                    pairs.push((r + 1 + k, arg_axes.len() - after + k));
                }
                pairs
            }
        };
        for (i, j) in pairs {
            if let AxisKind::Size { size, .. } = &axes[i].kind {
                if let Some(Symbol::Generic(g)) = size.poly.as_symbol() {
                    self.binds
                        .entry(g.to_string())
                        .or_insert_with(|| arg_axes[j].clone());
                }
            }
        }
    }

    /// The caller's view of the callee's type `ty` (a return type or a field).
    pub fn apply(&self, ty: &Ty) -> VTy {
        match &ty.kind {
            TyKind::Tensor(t) => match &t.shape {
                None => VTy::Tensor(None),
                Some(axes) => {
                    let mut out = Vec::with_capacity(axes.len());
                    for axis in axes {
                        match &axis.kind {
                            AxisKind::Rest => match &self.rest {
                                Some(rest) => out.extend(rest.iter().cloned()),
                                None => return VTy::Tensor(None),
                            },
                            AxisKind::Size { size, .. } => out.push(self.axis(&size.poly)),
                            AxisKind::Group { parts, .. } => {
                                let sizes: Option<Vec<String>> = parts
                                    .iter()
                                    .map(|p| match &p.kind {
                                        AxisKind::Size { size, .. } => self.size(&size.poly),
                                        _ => None,
                                    })
                                    .collect();
                                out.push(Ax::anonymous(sizes.map(|s| s.join(" * "))));
                            }
                            AxisKind::Rounded { .. } | AxisKind::Error => {
                                out.push(Ax::anonymous(None))
                            }
                        }
                    }
                    VTy::Tensor(Some(out))
                }
            },
            TyKind::Scalar(_) | TyKind::Axis(_) | TyKind::Axes(_) | TyKind::SizeParam(_) => {
                VTy::Scalar
            }
            TyKind::Named { file, name, args } => {
                let args = args.iter().map(|a| self.axis(&a.poly)).collect();
                VTy::Model {
                    file: *file,
                    name: name.to_string(),
                    args,
                }
            }
            TyKind::Stack { elem, .. } => VTy::Stack(Box::new(self.apply(elem))),
            TyKind::Tuple(items) => VTy::Tuple(items.iter().map(|t| self.apply(t)).collect()),
            TyKind::Error => VTy::Unknown,
        }
    }

    fn axis(&self, poly: &Poly) -> Ax {
        match poly.as_symbol() {
            Some(Symbol::Generic(g)) => self.binds.get(&**g).cloned().unwrap_or(Ax {
                name: None,
                size: None,
            }),
            Some(Symbol::Dim { file, name }) => Ax {
                name: Some(name.to_string()),
                size: Some((self.dim)(*file, name)),
            },
            _ => Ax::anonymous(self.size(poly)),
        }
    }

    /// The Python expression of a size, when every symbol in it is known.
    pub fn size(&self, poly: &Poly) -> Option<String> {
        render_poly(poly, &|symbol| match symbol {
            Symbol::Generic(g) => self.binds.get(&**g).and_then(|a| a.size.clone()),
            Symbol::Dim { file, name } => Some((self.dim)(*file, name)),
            _ => None,
        })
    }
}

/// A polynomial as Python integer arithmetic: `3 * D`, `c + n`, `gh * gw`.
pub fn render_poly(poly: &Poly, symbol: &dyn Fn(&Symbol) -> Option<String>) -> Option<String> {
    if poly.terms().is_empty() {
        return Some("0".to_string());
    }
    let mut out = String::new();
    for (i, term) in poly.terms().iter().enumerate() {
        let mut factors: Vec<String> = Vec::new();
        let coef = term.coef.unsigned_abs();
        if coef != 1 || term.mono.factors().is_empty() {
            factors.push(coef.to_string());
        }
        for (sym, pow) in term.mono.factors() {
            let s = symbol(sym)?;
            let s = if s.contains(' ') { format!("({s})") } else { s };
            for _ in 0..*pow {
                factors.push(s.clone());
            }
        }
        let text = factors.join(" * ");
        match (i, term.coef < 0) {
            (0, false) => out.push_str(&text),
            (0, true) => out.push_str(&format!("-{text}")),
            (_, false) => out.push_str(&format!(" + {text}")),
            (_, true) => out.push_str(&format!(" - {text}")),
        }
    }
    Some(out)
}

/// Where each axis of the smaller operand `small` sits in the larger `big`
/// under broadcasting by name (spec 6.2): named axes by name, anonymous ones
/// right-aligned with anonymous axes of the same size, literal 1s anywhere.
/// `None` when they don't pair (the checker reported it) or aren't known.
pub fn pair_axes(small: &[Ax], big: &[Ax]) -> Option<Vec<Option<usize>>> {
    let mut out = vec![None; small.len()];
    let mut limit = big.len();
    for (i, ax) in small.iter().enumerate().rev() {
        if ax.name.is_none() && ax.size.as_deref() == Some("1") {
            continue;
        }
        let found = match &ax.name {
            Some(name) => (0..limit)
                .rev()
                .find(|&j| big[j].name.as_deref() == Some(name)),
            None => (0..limit)
                .rev()
                .find(|&j| big[j].name.is_none() && (ax.size.is_none() || big[j].size == ax.size)),
        }?;
        out[i] = Some(found);
        limit = found;
    }
    Some(out)
}

/// The indexing that lines `small` up with `big` for PyTorch's right-aligned
/// broadcasting, such as `[:, None, :]`; `None` when no view is needed.
pub fn broadcast_view(small: &[Ax], big: &[Ax]) -> Option<String> {
    if small.len() >= big.len() {
        return None;
    }
    let pairs = pair_axes(small, big)?;
    // Literal 1s pair with anything: place them right before the next paired axis.
    let mut positions = Vec::with_capacity(small.len());
    let mut next = big.len();
    for p in pairs.iter().rev() {
        let at = match p {
            Some(j) => *j,
            None => next.checked_sub(1)?,
        };
        positions.push(at);
        next = at;
    }
    positions.reverse();
    let offset = big.len() - small.len();
    if positions.iter().enumerate().all(|(i, &p)| p == offset + i) {
        return None;
    }
    let first = *positions.first()?;
    let mut parts = Vec::new();
    for j in first..big.len() {
        parts.push(if positions.contains(&j) { ":" } else { "None" });
    }
    Some(format!("[{}]", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn axes(text: &str) -> Vec<Ax> {
        text.split_whitespace()
            .map(|w| match w.parse::<u64>() {
                Ok(_) => Ax::anonymous(Some(w.to_string())),
                Err(_) => Ax {
                    name: Some(w.to_string()),
                    size: Some(w.to_string()),
                },
            })
            .collect()
    }

    fn check(small: &str, big: &str, expect: Expect) {
        let view = broadcast_view(&axes(small), &axes(big));
        expect.assert_eq(view.as_deref().unwrap_or("no view"));
    }

    #[test]
    fn right_aligned_operands_need_no_view() {
        check("D", "b n D", expect!["no view"]);
        check("n n", "b h n n", expect!["no view"]);
    }

    #[test]
    fn named_axes_pair_by_name() {
        check("b n", "b n D", expect!["[:, :, None]"]);
        check("b", "b n D", expect!["[:, None, None]"]);
        check("h", "b h n d", expect!["[:, None, None]"]);
    }

    #[test]
    fn literal_ones_fill_in() {
        check("1 D", "b n D", expect!["no view"]);
    }
}
