//! The state of compiling one function body: its locals and their types,
//! the Python expressions of its sizes (generic axes bound on entry, a
//! model's size parameters), hoisted temporaries, and the imports the body
//! needs. Never decides what an expression means (that is `expr`).

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use diag::{Diagnostic, FileId, Span};
use syntax::ast;

use crate::sigs::Gen;
use crate::vty::VTy;

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
    /// The model whose method this is.
    pub model: Option<&'a ast::Model>,
    pub locals: HashMap<String, VTy>,
    /// Generic axes and size parameters to their Python expressions.
    pub sizes: HashMap<String, String>,
    /// Where tensors made from nothing (`arange`, `ones`) are put: the
    /// device of the first tensor parameter.
    pub device: Option<String>,
    /// `Model.method` or the function's name, for error messages.
    pub label: String,
    temps: u32,
    /// Statements to emit before the current one (hoisted subexpressions).
    pub pre: Vec<String>,
    pub diagnostics: &'g mut Vec<Diagnostic>,
}

impl<'g, 'a> Scope<'g, 'a> {
    pub fn new(
        gen: &'g Gen<'a>,
        imports: &'g Imports,
        file: FileId,
        model: Option<&'a ast::Model>,
        label: String,
        diagnostics: &'g mut Vec<Diagnostic>,
    ) -> Self {
        Scope {
            gen,
            imports,
            file,
            model,
            locals: HashMap::new(),
            sizes: HashMap::new(),
            device: None,
            label,
            temps: 0,
            pre: Vec::new(),
            diagnostics,
        }
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
            Diagnostic::error("E0901", message)
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
        match &self.device {
            Some(d) => format!(", device={d}.device"),
            None => String::new(),
        }
    }
}
