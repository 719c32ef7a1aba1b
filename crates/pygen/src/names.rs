//! Name hygiene: the one place that decides every Python name the emitted
//! code binds (`docs/shapescript/python.md`, "Names"). Python has one
//! namespace per module, class and function where ShapeScript has several
//! (dims, functions, parameters, generic axes, block-scoped `let`s), so a
//! ShapeScript name is never written out as it is without asking here:
//!
//! - every namespace starts with what the emitted code itself refers to
//!   taken (Python's keywords and builtins, the modules it imports, the
//!   package's own module names, the temporaries `_t1`), and a class's
//!   with `torch.nn.Module`'s attributes;
//! - a name keeps its own spelling when that is free, and otherwise gets
//!   the first free one of `name_`, `name_2`, `name_3`, ..., never one that
//!   another name of the same namespace is written as (`fn list` and
//!   `fn list_` become `list_2` and `list_`);
//! - inside a body, each binding is its own Python name while it is
//!   visible: a parameter, a generic axis's size bound on entry and a `let`
//!   never share one, and a `let` in an inner block that hides an outer one
//!   gets a new name, so the outer value is still there after the block.
//!
//! Deterministic: names are given in source order.

use std::collections::{HashMap, HashSet};

use check::Checked;
use diag::{FileId, Span};
use syntax::{ast, Name};

/// Python keywords, soft keywords included so the output reads plainly.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "case", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
    "import", "in", "is", "lambda", "match", "nonlocal", "not", "or", "pass", "raise", "return",
    "try", "type", "while", "with", "yield", "_",
];

/// Python 3.11's builtins (`dir(builtins)` without the dunder names): the
/// emitted code may call any of them, so no name of it hides one.
const BUILTINS: &[&str] = &[
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "BaseException",
    "BaseExceptionGroup",
    "BlockingIOError",
    "BrokenPipeError",
    "BufferError",
    "BytesWarning",
    "ChildProcessError",
    "ConnectionAbortedError",
    "ConnectionError",
    "ConnectionRefusedError",
    "ConnectionResetError",
    "DeprecationWarning",
    "EOFError",
    "Ellipsis",
    "EncodingWarning",
    "EnvironmentError",
    "Exception",
    "ExceptionGroup",
    "FileExistsError",
    "FileNotFoundError",
    "FloatingPointError",
    "FutureWarning",
    "GeneratorExit",
    "IOError",
    "ImportError",
    "ImportWarning",
    "IndentationError",
    "IndexError",
    "InterruptedError",
    "IsADirectoryError",
    "KeyError",
    "KeyboardInterrupt",
    "LookupError",
    "MemoryError",
    "ModuleNotFoundError",
    "NameError",
    "NotADirectoryError",
    "NotImplemented",
    "NotImplementedError",
    "OSError",
    "OverflowError",
    "PendingDeprecationWarning",
    "PermissionError",
    "ProcessLookupError",
    "RecursionError",
    "ReferenceError",
    "ResourceWarning",
    "RuntimeError",
    "RuntimeWarning",
    "StopAsyncIteration",
    "StopIteration",
    "SyntaxError",
    "SyntaxWarning",
    "SystemError",
    "SystemExit",
    "TabError",
    "TimeoutError",
    "TypeError",
    "UnboundLocalError",
    "UnicodeDecodeError",
    "UnicodeEncodeError",
    "UnicodeError",
    "UnicodeTranslateError",
    "UnicodeWarning",
    "UserWarning",
    "ValueError",
    "Warning",
    "ZeroDivisionError",
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "copyright",
    "credits",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "exit",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "license",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "quit",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
];

/// The modules the emitted code names besides the externs' own.
const MODULES: &[&str] = &["torch", "math", "dataclasses", "shapescript_runtime"];

/// The attributes of a `torch.nn.Module` (`dir(torch.nn.Module())` of
/// torch 2.9 without the dunder names): a model's field, size parameter or
/// method of one of these names would replace the module's own.
const MODULE_ATTRIBUTES: &[&str] = &[
    "T_destination",
    "_apply",
    "_backward_hooks",
    "_backward_pre_hooks",
    "_buffers",
    "_call_impl",
    "_compiled_call_impl",
    "_forward_hooks",
    "_forward_hooks_always_called",
    "_forward_hooks_with_kwargs",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_get_backward_hooks",
    "_get_backward_pre_hooks",
    "_get_name",
    "_is_full_backward_hook",
    "_load_from_state_dict",
    "_load_state_dict_post_hooks",
    "_load_state_dict_pre_hooks",
    "_maybe_warn_non_full_backward_hook",
    "_modules",
    "_named_members",
    "_non_persistent_buffers_set",
    "_parameters",
    "_register_load_state_dict_pre_hook",
    "_register_state_dict_hook",
    "_replicate_for_data_parallel",
    "_save_to_state_dict",
    "_slow_forward",
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_version",
    "_wrapped_call_impl",
    "add_module",
    "apply",
    "bfloat16",
    "buffers",
    "call_super_init",
    "children",
    "compile",
    "cpu",
    "cuda",
    "double",
    "dump_patches",
    "eval",
    "extra_repr",
    "float",
    "forward",
    "get_buffer",
    "get_extra_state",
    "get_parameter",
    "get_submodule",
    "half",
    "ipu",
    "load_state_dict",
    "modules",
    "mtia",
    "named_buffers",
    "named_children",
    "named_modules",
    "named_parameters",
    "parameters",
    "register_backward_hook",
    "register_buffer",
    "register_forward_hook",
    "register_forward_pre_hook",
    "register_full_backward_hook",
    "register_full_backward_pre_hook",
    "register_load_state_dict_post_hook",
    "register_load_state_dict_pre_hook",
    "register_module",
    "register_parameter",
    "register_state_dict_post_hook",
    "register_state_dict_pre_hook",
    "requires_grad_",
    "set_extra_state",
    "set_submodule",
    "share_memory",
    "state_dict",
    "to",
    "to_empty",
    "train",
    "training",
    "type",
    "xpu",
    "zero_grad",
];

/// One Python namespace being filled: the names taken so far, and the
/// names the program writes in it (which an escaped name must not take
/// from them).
#[derive(Clone, Debug, Default)]
pub struct Namer {
    taken: HashSet<String>,
    written: HashSet<String>,
}

impl Namer {
    fn with_taken<'s>(taken: impl IntoIterator<Item = &'s str>) -> Namer {
        Namer {
            taken: taken.into_iter().map(str::to_string).collect(),
            written: HashSet::new(),
        }
    }

    /// Notes the names the program writes in this namespace.
    fn written<'s>(mut self, names: impl IntoIterator<Item = &'s str>) -> Namer {
        self.written.extend(names.into_iter().map(str::to_string));
        self
    }

    /// `want` when it is free, else the first free one of `want_`,
    /// `want_2`, `want_3`...; the name is taken from then on.
    pub fn fresh(&mut self, want: &str) -> String {
        let name = if self.usable(want, true) {
            want.to_string()
        } else {
            let mut candidate = format!("{want}_");
            let mut k = 1;
            while !self.usable(&candidate, false) {
                k += 1;
                candidate = format!("{want}_{k}");
            }
            candidate
        };
        self.taken.insert(name.clone());
        name
    }

    fn usable(&self, name: &str, own: bool) -> bool {
        !self.taken.contains(name)
            && (own || !self.written.contains(name))
            && !is_temporary(name)
            && !is_dunder(name)
    }

    /// Gives a name back: its binding is out of scope (a block ended).
    fn release(&mut self, name: &str) {
        self.taken.remove(name);
    }
}

/// The generator's temporaries are `_t` followed by digits.
fn is_temporary(name: &str) -> bool {
    name.strip_prefix("_t")
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
}

/// `__init__` and its kind, which Python gives meanings of its own.
fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

/// The Python names of a whole program's modules, decided once.
pub struct ProgramNames {
    modules: HashMap<FileId, ModuleNames>,
}

/// The Python names of one module: its name in the package, its top-level
/// declarations, its models' and records' attributes, and the parameters
/// of its functions and methods (which callers pass by keyword).
pub struct ModuleNames {
    pub alias: String,
    decls: HashMap<Name, String>,
    /// Everything a body of this module must not hide: the module's
    /// namespace once every top-level name is given.
    globals: Namer,
    classes: HashMap<Name, ClassNames>,
    params: HashMap<(Option<Name>, Name), Vec<String>>,
}

/// The attributes of a model (`self.w`, `self.blocks`, `self.Din`, its
/// methods) or the fields of a record (a dataclass), by ShapeScript name.
#[derive(Default)]
pub struct ClassNames {
    attributes: HashMap<Name, String>,
    /// A model's constructor arguments: its size parameters, then its
    /// number fields (keyword-only).
    constructor: Vec<String>,
}

impl ProgramNames {
    pub fn new(checked: &Checked) -> ProgramNames {
        let program = &checked.program;
        let aliases: HashMap<FileId, String> = program
            .modules
            .iter()
            .map(|m| (m.file, module_name(&m.name)))
            .collect();
        let mut shared: Vec<&str> = KEYWORDS
            .iter()
            .chain(BUILTINS)
            .chain(MODULES)
            .copied()
            .collect();
        shared.extend(aliases.values().map(String::as_str));
        let externs = extern_modules(checked);
        shared.extend(externs.iter().map(String::as_str));
        let modules = program
            .modules
            .iter()
            .map(|m| {
                (
                    m.file,
                    ModuleNames::new(checked, m, aliases[&m.file].clone(), &shared),
                )
            })
            .collect();
        ProgramNames { modules }
    }

    pub fn module(&self, file: FileId) -> &ModuleNames {
        &self.modules[&file]
    }
}

/// The first name of every extern's Python module (`import scipy.special`
/// binds `scipy`).
fn extern_modules(checked: &Checked) -> Vec<String> {
    let mut out = Vec::new();
    for module in &checked.program.modules {
        for item in &module.ast.items {
            if let ast::Item::ExternFn(ast::ExternFn {
                python: Some(python),
                ..
            }) = item
            {
                if let Some(first) = python.value.split('.').next() {
                    out.push(first.to_string());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

impl ModuleNames {
    fn new(checked: &Checked, module: &check::hir::Module, alias: String, shared: &[&str]) -> Self {
        let items = &module.ast.items;
        let top: Vec<&str> = items
            .iter()
            .filter_map(emitted_name)
            .map(|n| n.as_str())
            .collect();
        let mut globals = Namer::with_taken(shared.iter().copied()).written(top.iter().copied());
        let mut decls = HashMap::new();
        for item in items {
            if let Some(name) = emitted_name(item) {
                decls.entry(*name).or_insert_with(|| globals.fresh(name));
            }
        }
        let mut names = ModuleNames {
            alias,
            decls,
            globals,
            classes: HashMap::new(),
            params: HashMap::new(),
        };
        for item in items {
            match item {
                ast::Item::Fn(f) => {
                    let params = names.fn_params(f);
                    names.params.insert((None, f.name.name), params);
                }
                ast::Item::Model(m) => names.model(checked, module.file, m),
                ast::Item::Record(r) => {
                    let fields = r.fields.iter().map(|f| f.name.name);
                    let class = ClassNames::new(KEYWORDS, fields);
                    names.classes.insert(r.name.name, class);
                }
                _ => {}
            }
        }
        names
    }

    fn model(&mut self, checked: &Checked, file: FileId, m: &ast::Model) {
        let def = checked.bodies.type_def(file, &m.name.name);
        let members = m
            .size_params
            .iter()
            .map(|p| p.name)
            .chain(m.fields.iter().map(|f| f.name.name))
            .chain(
                m.methods
                    .iter()
                    .map(|f| f.name.name)
                    .filter(|n| *n != "forward"),
            );
        let mut class = ClassNames::new(MODULE_ATTRIBUTES.iter().chain(KEYWORDS), members);
        if m.methods.iter().any(|f| f.name.name == "forward") {
            class
                .attributes
                .insert(Name::from("forward"), "forward".to_string());
        }
        let numbers = def
            .map_or(&[][..], |d| &d.fields[..])
            .iter()
            .filter(|f| matches!(f.ty.kind, check::hir::TyKind::Scalar(_)));
        let wanted: Vec<Name> = m
            .size_params
            .iter()
            .map(|p| p.name)
            .chain(numbers.map(|f| f.name))
            .collect();
        let mut locals = self.locals(wanted.iter().map(|n| n.as_str()));
        class.constructor = wanted.iter().map(|n| locals.fresh(n)).collect();
        for method in &m.methods {
            let params = self.fn_params(method);
            self.params
                .insert((Some(m.name.name), method.name.name), params);
        }
        self.classes.insert(m.name.name, class);
    }

    /// A function's parameters as its `def` names them: their own names
    /// unless the module's namespace or an earlier parameter has them.
    fn fn_params(&self, f: &ast::Fn) -> Vec<String> {
        let written = f.params.iter().map(|p| p.name.name.as_str());
        let mut locals = self.locals(written);
        if f.self_param.is_some() {
            locals.fresh("self");
        }
        f.params
            .iter()
            .map(|p| locals.fresh(&p.name.name))
            .collect()
    }

    /// A new function namespace inside this module.
    fn locals<'s>(&self, written: impl IntoIterator<Item = &'s str>) -> Namer {
        self.globals.clone().written(written)
    }

    /// How this module's code names its own declaration `name`.
    pub fn decl(&self, name: &str) -> String {
        self.decls
            .get(&Name::from(name))
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    /// The attributes of the model or record `owner`.
    pub fn class(&self, owner: &str) -> Option<&ClassNames> {
        self.classes.get(&Name::from(owner))
    }

    /// The `def`'s parameter names of a function (`owner` `None`) or method.
    pub fn params(&self, owner: Option<Name>, name: Name) -> &[String] {
        self.params
            .get(&(owner, name))
            .map_or(&[][..], Vec::as_slice)
    }
}

impl ClassNames {
    fn new<'s>(
        reserved: impl IntoIterator<Item = &'s &'s str>,
        members: impl Iterator<Item = Name>,
    ) -> Self {
        let members: Vec<Name> = members.collect();
        let mut namer = Namer::with_taken(reserved.into_iter().copied())
            .written(members.iter().map(|n| n.as_str()));
        let attributes = members.iter().map(|n| (*n, namer.fresh(n))).collect();
        ClassNames {
            attributes,
            constructor: Vec::new(),
        }
    }

    /// The attribute of the member `name` (`self.name`).
    pub fn attribute(&self, name: &str) -> String {
        self.attributes
            .get(&Name::from(name))
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    /// A model's constructor arguments, size parameters first.
    pub fn constructor(&self) -> &[String] {
        &self.constructor
    }
}

/// The name a top-level item binds in the module, when it is emitted as
/// one: dims with a value, functions, models and records (extern fns are
/// called by their Python path and aliases vanish).
fn emitted_name(item: &ast::Item) -> Option<&Name> {
    match item {
        ast::Item::Dim(d) if matches!(d.value, ast::DimValue::Size(_)) => Some(&d.name.name),
        ast::Item::Fn(f) => Some(&f.name.name),
        ast::Item::Model(m) => Some(&m.name.name),
        ast::Item::Record(r) => Some(&r.name.name),
        _ => None,
    }
}

/// The names of one body (a function, a method, a model's constructor, a
/// buffer's value): its parameters, its generic sizes and its bindings,
/// scoped by block as ShapeScript scopes them.
#[derive(Clone)]
pub struct LocalNames {
    namer: Namer,
    /// Each parameter's, `let`'s and loop variable's Python name, by the
    /// span of the name that declares it (the checker's `ExprInfo::Local`).
    by_decl: HashMap<Span, String>,
    /// The open blocks, innermost last: the names each binds.
    blocks: Vec<Vec<(Name, String)>>,
    sizes: HashMap<Name, String>,
}

impl LocalNames {
    /// The namespace of a body of `module` whose parameters the `def`
    /// names `params` (as `ModuleNames::params` gave them), declared at
    /// `spans`; `written` is every name the body binds.
    pub fn new<'s>(
        module: &ModuleNames,
        params: &[(Span, String)],
        written: impl IntoIterator<Item = &'s str>,
    ) -> LocalNames {
        let mut namer = module.locals(written);
        namer.taken.insert("self".to_string());
        let mut by_decl = HashMap::new();
        for (span, name) in params {
            namer.taken.insert(name.clone());
            by_decl.insert(*span, name.clone());
        }
        LocalNames {
            namer,
            by_decl,
            blocks: vec![Vec::new()],
            sizes: HashMap::new(),
        }
    }

    /// The Python name of the generic size `name` (`n` of `x: [b n]`),
    /// given on first use.
    pub fn size(&mut self, name: Name) -> String {
        if let Some(py) = self.sizes.get(&name) {
            return py.clone();
        }
        let py = self.namer.fresh(&name);
        self.sizes.insert(name, py.clone());
        py
    }

    /// A new block: its bindings end with it.
    pub fn open(&mut self) {
        self.blocks.push(Vec::new());
    }

    /// Ends the innermost block; its names are free again.
    pub fn close(&mut self) {
        if let Some(block) = self.blocks.pop() {
            for (_, py) in block {
                if !self.blocks.iter().flatten().any(|(_, other)| *other == py) {
                    self.namer.release(&py);
                }
            }
        }
        if self.blocks.is_empty() {
            self.blocks.push(Vec::new());
        }
    }

    /// Binds `name` (declared at `decl`) in the innermost block: the name a
    /// binding of the same block already has (a `let` that replaces it), or
    /// a fresh one that hides nothing still visible.
    pub fn bind(&mut self, name: Name, decl: Span) -> String {
        let innermost = self.blocks.last_mut().expect("a block is open");
        let py = match innermost.iter().rev().find(|(n, _)| *n == name) {
            Some((_, py)) => py.clone(),
            None => {
                let py = self.namer.fresh(&name);
                self.blocks
                    .last_mut()
                    .expect("a block is open")
                    .push((name, py.clone()));
                py
            }
        };
        self.by_decl.insert(decl, py.clone());
        py
    }

    /// The Python name of the binding declared at `decl`.
    pub fn local(&self, decl: Span) -> Option<&str> {
        self.by_decl.get(&decl).map(String::as_str)
    }

    /// The Python name an assignment `name = ...` writes: the innermost
    /// visible binding's (a parameter's when no block binds it).
    pub fn assigned(&self, name: Name) -> Option<String> {
        self.blocks
            .iter()
            .rev()
            .flat_map(|b| b.iter().rev())
            .find(|(n, _)| *n == name)
            .map(|(_, py)| py.clone())
    }
}

/// The Python module name for a `.ss` file's stem.
pub fn module_name(stem: &str) -> String {
    let mut out: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    let mut namer = Namer::with_taken(KEYWORDS.iter().chain(BUILTINS).chain(MODULES).copied());
    namer.fresh(&out)
}

/// The torch dtype a ShapeScript dtype names.
pub fn torch_dtype(d: syntax::ast::DtypeKind) -> &'static str {
    use syntax::ast::DtypeKind;
    match d {
        DtypeKind::F64 => "torch.float64",
        DtypeKind::F32 => "torch.float32",
        DtypeKind::F16 => "torch.float16",
        DtypeKind::Bf16 => "torch.bfloat16",
        DtypeKind::I64 => "torch.int64",
        DtypeKind::I32 => "torch.int32",
        DtypeKind::Bool => "torch.bool",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn escaped_names_never_take_a_written_one() {
        let mut namer = Namer::with_taken(KEYWORDS.iter().chain(BUILTINS).copied())
            .written(["list", "list_", "x", "_t1"]);
        let out: Vec<String> = ["list", "list_", "x", "x", "lambda", "_t1"]
            .iter()
            .map(|n| namer.fresh(n))
            .collect();
        expect!["list_2 list_ x x_ lambda_ _t1_"].assert_eq(&out.join(" "));
    }

    #[test]
    fn module_names_are_identifiers() {
        let out = [
            module_name("vit"),
            module_name("my-model"),
            module_name("class"),
            module_name("torch"),
        ];
        expect!["vit my_model class_ torch_"].assert_eq(&out.join(" "));
    }

    #[test]
    fn the_tables_are_sorted() {
        for table in [BUILTINS, MODULE_ATTRIBUTES] {
            assert!(table.windows(2).all(|w| w[0] < w[1]), "{:?}", table);
        }
    }
}
