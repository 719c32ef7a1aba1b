//! The state of generating one function or method: its float dtype, its
//! generic axes, its parameters (made as expressions need them), the
//! values in scope, and the names it has used.

use crate::ast::{Param, Stmt};
use crate::size::Size;
use crate::ty::{Axis, Dt, Ty};

/// A value in scope.
#[derive(Clone, Debug)]
pub struct Local {
    pub name: String,
    pub ty: Ty,
    /// A `let` that a later statement assigns: its range is its declared
    /// domain's (`docs/shapescript/ranges.md`), so it is written `Real`.
    pub rebindable: bool,
    /// A model of the program (`self`, a loop over a stack): its name.
    pub model: Option<String>,
}

/// One function being generated.
#[derive(Clone, Debug)]
pub struct Fx {
    pub name: String,
    /// `F` or one concrete float dtype (`docs/shapescript/functions.md`).
    pub float: Dt,
    pub generics: Vec<String>,
    pub params: Vec<Param>,
    pub max_params: usize,
    pub scope: Vec<Local>,
    pub stmts: Vec<Stmt>,
    pub discontinuous: bool,
    /// In a method: the model's name and its size parameters.
    pub model: Option<(String, Vec<String>)>,
    /// The unknown sizes made so far (`?k1`, ...).
    pub unknowns: u32,
    /// Every name declared in the function, for fresh names.
    pub used: Vec<String>,
    /// Statements may still return early (the return type is known).
    pub ret: Option<Ty>,
    /// Size names (generic axes, dims, a model's sizes): a call of a
    /// built-in or function of such a name would find the size.
    pub hidden: Vec<String>,
    /// No parameter may be added (a stack's block: one parameter).
    pub fixed_params: bool,
}

impl Fx {
    pub fn new(name: &str, float: Dt, generics: Vec<String>) -> Fx {
        Fx {
            name: name.to_string(),
            float,
            generics,
            params: Vec::new(),
            max_params: 7,
            scope: Vec::new(),
            stmts: Vec::new(),
            discontinuous: false,
            model: None,
            unknowns: 0,
            used: Vec::new(),
            ret: None,
            hidden: Vec::new(),
            fixed_params: false,
        }
    }

    /// The innermost value named `name`.
    pub fn lookup(&self, name: &str) -> Option<&Local> {
        self.scope.iter().rev().find(|l| l.name == name)
    }

    /// Whether a value of this name hides a size, function or built-in.
    pub fn shadows(&self, name: &str) -> bool {
        self.lookup(name).is_some() || self.params.iter().any(|p| p.name == name)
    }

    /// Whether a new parameter may be added below the soft limit.
    pub fn can_add_param(&self) -> bool {
        !self.fixed_params && self.params.len() < self.max_params
    }

    /// Whether a call of `name` would not find the built-in or function:
    /// a value or a size has the name.
    pub fn hides(&self, name: &str) -> bool {
        self.shadows(name) || self.hidden.iter().any(|h| h == name)
    }

    /// Whether `size`'s symbols can be read as values here: each a generic
    /// axis or dim not hidden by a value of its name.
    pub fn size_usable(&self, size: &Size) -> bool {
        size.symbols().iter().all(|s| !self.shadows(s))
    }

    pub fn add_param(&mut self, name: String, ty: Ty) {
        self.used.push(name.clone());
        self.params.push(Param {
            name: name.clone(),
            ty: ty.clone(),
        });
        self.scope.push(Local {
            name,
            ty,
            rebindable: false,
            model: None,
        });
    }

    pub fn add_local(&mut self, name: String, ty: Ty, rebindable: bool) {
        self.used.push(name.clone());
        self.scope.push(Local {
            name,
            ty,
            rebindable,
            model: None,
        });
    }

    /// Takes back what generating a block in a copy of `self` added that
    /// outlives the block: parameters, names, unknown sizes.
    pub fn merge(&mut self, inner: Fx) {
        for p in &inner.params[self.params.len()..] {
            self.scope.push(Local {
                name: p.name.clone(),
                ty: p.ty.clone(),
                rebindable: false,
                model: None,
            });
        }
        self.params = inner.params;
        self.used = inner.used;
        self.discontinuous |= inner.discontinuous;
        self.unknowns = inner.unknowns;
    }

    /// A new unknown size `?k<N>`.
    pub fn unknown(&mut self) -> Axis {
        self.unknowns += 1;
        Axis::anon(Size::sym(&format!("?k{}", self.unknowns)))
    }
}
