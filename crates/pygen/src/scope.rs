//! The state of compiling one function body: the checker's typed body it
//! reads every type and plan from, the Python expressions of its sizes
//! (generic axes bound on entry, a model's size parameters), hoisted
//! temporaries, and the imports the body needs. Keeps no types of its own:
//! what a value is, the checker has said (`check::typed`).

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};

use check::hir::{Body, Size, Symbol, Ty, TyKind, TypedExpr};
use diag::{Diagnostic, FileId, Span};

use crate::fused::FusedAttention;
use crate::names::LocalNames;
use crate::sigs::Gen;
use crate::sizes::render_poly;
use check::codes;

/// What a module's code refers to, so its header imports each once.
#[derive(Default)]
pub struct Imports {
    /// Dotted Python modules of externs (`torch.nn.functional`).
    pub python: RefCell<BTreeSet<String>>,
    /// Other generated modules.
    pub modules: RefCell<BTreeSet<FileId>>,
    pub dataclasses: RefCell<bool>,
}

pub struct Scope<'g, 'a> {
    pub gen: &'g Gen<'a>,
    pub imports: &'g Imports,
    pub file: FileId,
    /// The checked body being compiled (`None` for a model's `__init__`).
    pub body: Option<&'a Body>,
    /// Generic axes and size parameters to their Python expressions.
    pub sizes: HashMap<String, String>,
    /// The Python names of the body's parameters (as its `def` names
    /// them), sizes and bindings (`names`).
    pub names: LocalNames,
    pub params: Vec<String>,
    /// Where tensors made from nothing (`arange`, `ones`) are put: the
    /// device of the first tensor parameter.
    pub device: Option<String>,
    /// A tensor of the body's float dtype (`Body::float_source`): float
    /// tensors made in the body take its dtype, so a bf16 model stays bf16.
    pub float: Option<String>,
    /// `Model.method` or the function's name, for error messages.
    pub label: String,
    temps: u32,
    /// Statements to emit before the current one (hoisted subexpressions).
    pub pre: Vec<String>,
    /// Set while writing a parameter's default value: Python evaluates it
    /// where the `def` is, before any statement of the body, so nothing may
    /// be hoisted out of it into a temporary.
    pub in_default: bool,
    /// Einsums (by span) emitted as one fused attention call, and the
    /// `let`s (by name span) only those attentions read, which are not
    /// emitted (`attention`, docs/shapescript/python.md).
    pub fused: HashMap<Span, FusedAttention>,
    pub skipped_lets: HashSet<Span>,
    /// Assignments (by statement span) emitted as an in-place
    /// accumulation (`accumulate`).
    pub in_place: HashSet<Span>,
    pub diagnostics: &'g mut Vec<Diagnostic>,
}

impl<'g, 'a> Scope<'g, 'a> {
    pub fn new(
        gen: &'g Gen<'a>,
        imports: &'g Imports,
        file: FileId,
        body: Option<&'a Body>,
        label: String,
        (names, params): (LocalNames, Vec<String>),
        diagnostics: &'g mut Vec<Diagnostic>,
    ) -> Self {
        Scope {
            gen,
            imports,
            file,
            body,
            sizes: HashMap::new(),
            names,
            params,
            device: None,
            float: None,
            label,
            temps: 0,
            pre: Vec::new(),
            in_default: false,
            fused: HashMap::new(),
            in_place: HashSet::new(),
            skipped_lets: HashSet::new(),
            diagnostics,
        }
    }

    /// The Python name of parameter `i`, called `name` in ShapeScript.
    pub fn param(&self, i: usize, name: &str) -> String {
        self.params
            .get(i)
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    /// The checker's record of the expression at `span`.
    pub fn typed(&self, span: Span) -> Option<&'a TypedExpr> {
        self.body?.expr(span)
    }

    /// The checker's type of the expression at `span`.
    pub fn ty(&self, span: Span) -> Option<&'a Ty> {
        self.typed(span).map(|t| &t.ty)
    }

    /// Whether the expression at `span` is a tensor (not a Python number).
    pub fn is_tensor(&self, span: Span) -> bool {
        matches!(self.ty(span).map(|t| &t.kind), Some(TyKind::Tensor(_)))
    }

    /// The Python expression of a size, when every symbol in it has one
    /// here: dims are module constants, generic axes the names bound on
    /// entry; an unknown size `?k` has none.
    pub fn size_code(&self, size: &Size) -> Option<String> {
        render_poly(&size.poly, &|symbol| match symbol {
            Symbol::Generic(g) => self.sizes.get(&**g).cloned(),
            Symbol::Dim { file, name } => Some(self.qualified(*file, name)),
            _ => None,
        })
    }

    /// A fresh temporary name.
    pub fn temp(&mut self) -> String {
        self.temps += 1;
        format!("_t{}", self.temps)
    }

    /// Something the generator cannot compile: E0901, reported once per place.
    pub fn unsupported(&mut self, span: Span, what: &str) {
        let message = format!("`shapescript build` cannot compile {what} yet");
        if self
            .diagnostics
            .iter()
            .any(|d| d.message == message && d.primary.as_ref().map(|l| l.span) == Some(span))
        {
            return;
        }
        self.diagnostics.push(
            Diagnostic::error(codes::E0901, message)
                .with_primary(span, "not supported by the Python generator")
                .with_help("`shapescript check` accepts it; rewrite it with the constructs listed in docs/shapescript/python.md"),
        );
    }

    /// Notes that the code calls into the Python module of `dotted` (`torch.nn.functional.linear`).
    pub fn use_python(&self, dotted: &str) -> String {
        if let Some((module, _)) = dotted.rsplit_once('.') {
            if module == "shapescript_runtime" {
                return dotted.to_string();
            }
            self.imports.python.borrow_mut().insert(module.to_string());
        }
        dotted.to_string()
    }

    /// The Python name of a declaration of `target` used from this module.
    pub fn qualified(&self, target: FileId, name: &str) -> String {
        if target != self.file {
            self.imports.modules.borrow_mut().insert(target);
        }
        self.gen.qualified(self.file, target, name)
    }

    /// The `device=` argument for made tensors, if any.
    pub fn device_arg(&self) -> String {
        match self.device.as_ref().or(self.float.as_ref()) {
            Some(d) => format!(", device={d}.device"),
            None => String::new(),
        }
    }

    /// The `dtype=` and `device=` arguments for made float tensors: the
    /// body's float dtype (`docs/shapescript/functions.md`): that of its
    /// dtype-less float tensor, else the one the checker gave them
    /// (`Body::made_dtype`).
    pub fn float_args(&self) -> String {
        match (&self.float, self.made_dtype()) {
            (Some(f), _) => format!(", dtype={f}.dtype{}", self.device_arg()),
            (None, Some(d)) => format!(
                ", dtype={}{}",
                crate::names::torch_dtype(d),
                self.device_arg()
            ),
            (None, None) => self.device_arg(),
        }
    }

    /// `value` converted to the body's float dtype.
    pub fn to_float(&self, value: &str) -> String {
        match (&self.float, self.made_dtype()) {
            (Some(f), _) => format!("{value}.to({f}.dtype)"),
            (None, Some(d)) => format!("{value}.to({})", crate::names::torch_dtype(d)),
            (None, None) => format!("{value}.float()"),
        }
    }

    fn made_dtype(&self) -> Option<check::hir::DtypeKind> {
        self.body.and_then(|b| b.made_dtype)
    }
}
