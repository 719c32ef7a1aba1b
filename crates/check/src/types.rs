//! The checker's types: what a parameter, return value or (later) expression
//! is, after names are resolved and aliases replaced. A tensor type is a shape,
//! a domain (value range) and a dtype, each optional. Plain data; the
//! lowering from syntax lives in `lower`, never here.

use std::fmt;
use std::sync::Arc;
use syntax::Name;

use diag::{FileId, Span};
pub use syntax::ast::{DtypeKind, ScalarKind};

use crate::size::{Formula, Size, Symbol};

#[derive(Clone, Debug)]
pub struct Ty {
    pub kind: TyKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum TyKind {
    Tensor(TensorTy),
    /// `Int`, `Float`, `Bool`: Python values.
    Scalar(ScalarKind),
    /// A model or record, with size arguments for a model's size parameters.
    Named {
        file: FileId,
        name: Name,
        args: Vec<Size>,
    },
    /// `[L] Block`: `count` copies of a model.
    Stack {
        count: Size,
        elem: Box<Ty>,
    },
    Tuple(Vec<Ty>),
    /// `Axis[n]`: an axis name of the first argument, whose size is `n`.
    Axis(Size),
    /// `Axes[n]`: as `Axis[n]`, passed to Python as a list.
    Axes(Size),
    /// `Size[S]`: a whole number known before the program runs.
    SizeParam(Size),
    /// A type whose mistake was already reported; accepts anything, so one
    /// mistake gives one diagnostic.
    Error,
}

/// `[b n D] Signed bf16`. A missing shape is a shapeless (elementwise) type.
#[derive(Clone, Debug)]
pub struct TensorTy {
    /// Shared: a shape is cloned on every lookup and call, its axes never.
    pub shape: Option<Arc<[Axis]>>,
    pub domain: Option<Domain>,
    pub dtype: Option<DtypeKind>,
}

/// A value range (`docs/shapescript/signatures.md`): the syntax's, with
/// `Index[N]`'s size lowered (boxed there: every tensor type holds a domain,
/// and a size is 56 bytes).
pub type Domain = syntax::ast::DomainKind<Size>;

#[derive(Clone, Debug)]
pub struct Axis {
    pub kind: AxisKind,
    /// Where it was written; inside the alias's declaration for an alias's axes.
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum AxisKind {
    /// A size. `name` is set when the axis is a single identifier (`b`, `D`)
    /// or a pattern's right side names it (`j`, of size `n`), which is what
    /// broadcasting and `over=` find axes by.
    Size { size: Size, name: Option<Name> },
    /// A size with a rounded division (extern return types), worked out at each call.
    Rounded { formula: Formula, written: Name },
    /// `(a b)` or the grouped size `16gh`, which is the group `(gh 16)`.
    /// `grouped` tells the grouped size `16gh` from the written group `(gh 16)`.
    Group {
        parts: Vec<Axis>,
        written: Name,
        grouped: bool,
    },
    /// `...`: any number of other axes.
    Rest,
    /// An axis whose mistake was already reported.
    Error,
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            // An axis a pattern named apart from its size shows its name
            // (`j` of size `n`); `Axis::describe` shows both.
            AxisKind::Size {
                name: Some(name), ..
            } if self.renamed() => f.write_str(name),
            AxisKind::Size { size, .. } => size.fmt(f),
            AxisKind::Rounded { written, .. } | AxisKind::Group { written, .. } => {
                f.write_str(written)
            }
            AxisKind::Rest => f.write_str("..."),
            AxisKind::Error => f.write_str("{error}"),
        }
    }
}

impl Axis {
    /// The name of the axis's size when it is one generic axis or dim: `n`
    /// for an axis `j` of size `n`.
    pub fn size_name(&self) -> Option<Name> {
        match &self.kind {
            AxisKind::Size { size, .. } => match size.poly.as_symbol() {
                Some(Symbol::Generic(n) | Symbol::Dim { name: n, .. }) => Some(*n),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether a pattern named the axis apart from its size: after
    /// `einsum(q, k, [b h i d], [b h j d] -> [b h i j])` the axes `i` and `j`
    /// of size `n` (`docs/shapescript/broadcasting.md`).
    pub fn renamed(&self) -> bool {
        match &self.kind {
            AxisKind::Size {
                size,
                name: Some(name),
            } => size.written != Some(*name) && self.size_name() != Some(*name),
            _ => false,
        }
    }

    /// The axis for messages and hovers: `` `j` (size `n`) `` for an axis a
    /// pattern named apart from its size, else `` `n` ``.
    pub fn describe(&self) -> String {
        match &self.kind {
            AxisKind::Size { size, .. } if self.renamed() => {
                format!("`{self}` (size `{size}`)")
            }
            _ => format!("`{self}`"),
        }
    }
}

/// Shows a shape as the user would write it: `[b 3 16gh 16gw]`.
pub fn show_shape(axes: &[Axis]) -> String {
    let parts: Vec<String> = axes.iter().map(Axis::to_string).collect();
    format!("[{}]", parts.join(" "))
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TyKind::Tensor(t) => {
                let mut parts = Vec::new();
                if let Some(shape) = &t.shape {
                    parts.push(show_shape(shape));
                }
                if let Some(domain) = &t.domain {
                    parts.push(domain.to_string());
                }
                if let Some(dtype) = t.dtype {
                    parts.push(dtype.as_str().to_string());
                }
                f.write_str(&parts.join(" "))
            }
            TyKind::Scalar(ScalarKind::Int) => f.write_str("Int"),
            TyKind::Scalar(ScalarKind::Float) => f.write_str("Float"),
            TyKind::Scalar(ScalarKind::Bool) => f.write_str("Bool"),
            TyKind::Named { name, args, .. } if args.is_empty() => f.write_str(name),
            TyKind::Named { name, args, .. } => {
                let args: Vec<String> = args.iter().map(Size::to_string).collect();
                write!(f, "{name}({})", args.join(", "))
            }
            TyKind::Stack { count, elem } => write!(f, "[{count}] {elem}"),
            TyKind::Tuple(items) => {
                let items: Vec<String> = items.iter().map(Ty::to_string).collect();
                write!(f, "({})", items.join(", "))
            }
            TyKind::Axis(n) => write!(f, "Axis[{n}]"),
            TyKind::Axes(n) => write!(f, "Axes[{n}]"),
            TyKind::SizeParam(n) => write!(f, "Size[{n}]"),
            TyKind::Error => f.write_str("{error}"),
        }
    }
}

impl Ty {
    /// The axes a pattern named apart from their sizes, for hovers:
    /// `` `i` (size `n`), `j` (size `n`) ``; `None` when there are none.
    pub fn renamed_axes(&self) -> Option<String> {
        let axes: Vec<String> = self
            .shape()?
            .iter()
            .filter(|a| a.renamed())
            .map(Axis::describe)
            .collect();
        (!axes.is_empty()).then(|| axes.join(", "))
    }

    /// The tensor's axes when the type is a tensor with a shape.
    pub fn shape(&self) -> Option<&[Axis]> {
        match &self.kind {
            TyKind::Tensor(TensorTy {
                shape: Some(axes), ..
            }) => Some(axes),
            _ => None,
        }
    }
    /// A tensor type with a shape, split into its shape and the rest (domain
    /// and dtype, no shape): the shape is cloned once, its axes never.
    pub fn shape_apart(&self) -> Option<(TensorTy, Arc<[Axis]>)> {
        match &self.kind {
            TyKind::Tensor(TensorTy {
                shape: Some(s),
                domain,
                dtype,
            }) => {
                let rest = TensorTy {
                    shape: None,
                    domain: domain.clone(),
                    dtype: *dtype,
                };
                Some((rest, s.clone()))
            }
            _ => None,
        }
    }
}
