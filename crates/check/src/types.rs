//! The checker's types: what a parameter, return value or (later) expression
//! is, after names are resolved and aliases replaced. A tensor type is a shape,
//! a domain (value range) and a dtype, each optional. Plain data; the
//! lowering from syntax lives in `lower`, never here.

use std::fmt;
use std::sync::Arc;
use syntax::Name;

use diag::{FileId, Span};
pub use syntax::ast::{DtypeKind, ScalarKind};

use crate::size::{Formula, Size};

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

/// A value range (`docs/shapescript/signatures.md`).
#[derive(Clone, Debug)]
pub enum Domain {
    Real,
    NonNeg,
    Pos,
    NonPos,
    Neg,
    Unit,
    Signed,
    Bool,
    /// Integers in `[0, N)`.
    /// Boxed: every tensor type holds a domain, and a size is 56 bytes.
    Index(Box<Size>),
}

#[derive(Clone, Debug)]
pub struct Axis {
    pub kind: AxisKind,
    /// Where it was written; inside the alias's declaration for an alias's axes.
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum AxisKind {
    /// A size. `name` is set when the axis is a single identifier (`b`, `D`),
    /// which is what broadcasting and `over=` find axes by.
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
            AxisKind::Size { size, .. } => size.fmt(f),
            AxisKind::Rounded { written, .. } | AxisKind::Group { written, .. } => {
                f.write_str(written)
            }
            AxisKind::Rest => f.write_str("..."),
            AxisKind::Error => f.write_str("{error}"),
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
                    parts.push(match domain {
                        Domain::Real => "Real".to_string(),
                        Domain::NonNeg => "NonNeg".to_string(),
                        Domain::Pos => "Pos".to_string(),
                        Domain::NonPos => "NonPos".to_string(),
                        Domain::Neg => "Neg".to_string(),
                        Domain::Unit => "Unit".to_string(),
                        Domain::Signed => "Signed".to_string(),
                        Domain::Bool => "Bool".to_string(),
                        Domain::Index(n) => format!("Index[{n}]"),
                    });
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
    /// The tensor's axes when the type is a tensor with a shape.
    pub fn shape(&self) -> Option<&[Axis]> {
        match &self.kind {
            TyKind::Tensor(TensorTy {
                shape: Some(axes), ..
            }) => Some(axes),
            _ => None,
        }
    }
}
