//! Every name a `.sx` file can use without defining it, with what an
//! editor shows for it: the tensor operations with their keywords and
//! summaries (the table `docs/sexpgpu/operations.md` lists, read through
//! `operation_list`), the special forms, the host library's builtins, and
//! the definitions of the prelude and of `nn` (parameters and docstrings,
//! from their sources), plus the keywords of the operations and of
//! `defrun`. Built once a server; never evaluates anything.

use super::forms::{DefKind, FileIndex};
use crate::reader;
use diag::{FileId, Span};
use std::collections::BTreeMap;

/// What kind of thing a known name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    Operation,
    Special,
    Builtin,
    /// A function or macro of the prelude or of a library.
    Library,
    Keyword,
}

/// A name and what to show for it.
#[derive(Clone, Debug)]
pub struct Known {
    pub name: String,
    pub kind: NameKind,
    /// How a call is written: `(matmul a b)`, `(nn/linear x w & {:keys [bias]})`.
    pub signature: String,
    /// One line (for an operation, its summary).
    pub doc: String,
    /// For a library definition: its file's name (`nn.sx`) and the name's span there.
    pub place: Option<(String, Span)>,
}

/// The names a file can use without defining them.
#[derive(Debug, Default)]
pub struct Names {
    pub names: BTreeMap<String, Known>,
    /// The library files: their names (`prelude.sx`) and texts.
    pub library: Vec<(String, &'static str)>,
}

/// The special forms, each with how it is written and what it does
/// (`docs/sexpgpu/host-language.md`, "Special forms").
const SPECIAL_FORMS: &[(&str, &str, &str)] = &[
    ("def", "(def name value)", "a global"),
    ("defn", "(defn name (params) body...)", "a global function"),
    (
        "defmacro",
        "(defmacro name (params) body...)",
        "a function from code to code",
    ),
    ("fn", "(fn (params) body...)", "a closure"),
    ("lambda", "(lambda (params) body...)", "a closure"),
    (
        "let",
        "(let [name value ...] body...)",
        "local bindings, each seeing the ones before",
    ),
    (
        "if",
        "(if test then else)",
        "`then` when `test` is true, else `else`",
    ),
    (
        "when",
        "(when test body...)",
        "the body when `test` is true, else nil",
    ),
    (
        "when-not",
        "(when-not test body...)",
        "the body when `test` is false, else nil",
    ),
    (
        "cond",
        "(cond test value ... :else value)",
        "the value of the first true test",
    ),
    ("do", "(do body...)", "the last value"),
    (
        "and",
        "(and ...)",
        "short-circuit and, returning the deciding value",
    ),
    (
        "or",
        "(or ...)",
        "short-circuit or, returning the deciding value",
    ),
    (
        "loop",
        "(loop [name value ...] body...)",
        "iteration without nesting, restarted by `recur`",
    ),
    (
        "recur",
        "(recur values...)",
        "restarts the enclosing `loop` or function (tail position)",
    ),
    ("quote", "(quote x)", "code as data"),
    (
        "quasiquote",
        "(quasiquote x)",
        "a template with `~x` and `~@xs` holes",
    ),
    (
        "require",
        "(require nn :refer :all)",
        "loads a built-in library",
    ),
    (
        "defgraph",
        "(defgraph name [(x [2 16] :f32) ...] body...)",
        "traces a graph (docs/sexpgpu/staging.md)",
    ),
    (
        "defmodel",
        "(defmodel name [args] body...)",
        "a model: its parameters and forward pass (docs/sexpgpu/models.md)",
    ),
    (
        "defrun",
        "(defrun name :model m :data d :loss f ...)",
        "a training run (docs/sexpgpu/runs.md)",
    ),
];

impl Names {
    /// The names of a session whose globals are `globals` (the host
    /// library's names), with the operations, the special forms and the
    /// library sources.
    pub fn new(
        globals: &[String],
        library: Vec<(String, &'static str)>,
        run_options: &[&str],
    ) -> Names {
        let mut names = Names {
            names: BTreeMap::new(),
            library,
        };
        for name in globals {
            names.add(
                name,
                NameKind::Builtin,
                format!("({name} ...)"),
                String::new(),
                None,
            );
        }
        names.add_operations(&crate::operation_list());
        for (name, signature, doc) in SPECIAL_FORMS {
            names.add(
                name,
                NameKind::Special,
                signature.to_string(),
                doc.to_string(),
                None,
            );
        }
        for key in run_options {
            let doc = "an option of `defrun` (docs/sexpgpu/runs.md)".to_string();
            names.add(
                &format!(":{key}"),
                NameKind::Keyword,
                format!(":{key}"),
                doc,
                None,
            );
        }
        for (file, text) in names.library.clone() {
            names.add_library(&file, text);
        }
        names
    }

    pub fn get(&self, name: &str) -> Option<&Known> {
        self.names.get(name)
    }

    fn add(
        &mut self,
        name: &str,
        kind: NameKind,
        signature: String,
        doc: String,
        place: Option<(String, Span)>,
    ) {
        let known = Known {
            name: name.to_string(),
            kind,
            signature,
            doc,
            place,
        };
        self.names.insert(name.to_string(), known);
    }

    /// The operations from the docs' lines ``- `name` `:kw`: summary``: a
    /// summary that starts with a call shows how it is written.
    fn add_operations(&mut self, list: &str) {
        for line in list.lines() {
            let Some(rest) = line.strip_prefix("- `") else {
                continue;
            };
            let Some((name, rest)) = rest.split_once('`') else {
                continue;
            };
            let (keywords, summary) = rest.split_once(": ").unwrap_or((rest, ""));
            let keywords: Vec<&str> = keywords
                .split('`')
                .map(str::trim)
                .filter(|k| k.starts_with(':'))
                .collect();
            let call = summary
                .strip_prefix('`')
                .and_then(|s| s.split_once('`'))
                .map(|(call, _)| call)
                .filter(|call| call.starts_with(&format!("({name}")));
            let mut signature = call.map_or(format!("({name} ...)"), str::to_string);
            if !keywords.is_empty() {
                signature = format!(
                    "{} {})",
                    signature.trim_end_matches(')'),
                    keywords.join(" ")
                );
            }
            for keyword in &keywords {
                let doc = format!("a keyword of `{name}`");
                if !self.names.contains_key(*keyword) {
                    self.add(keyword, NameKind::Keyword, keyword.to_string(), doc, None);
                }
            }
            self.add(
                name,
                NameKind::Operation,
                signature,
                summary.to_string(),
                None,
            );
        }
    }

    /// The `defn`s and `defmacro`s of a library file (`nn.sx` defines `nn/name`).
    fn add_library(&mut self, file: &str, text: &'static str) {
        let read = reader::read(FileId(0), text);
        let index = FileIndex::new(&read.forms, text);
        let namespace = file.strip_suffix(".sx").filter(|n| *n != "prelude");
        let top = index.defs.iter().enumerate();
        let top = top.filter(|(i, d)| index.top.get(&d.name) == Some(i));
        for (_, def) in top {
            if !matches!(
                def.kind,
                DefKind::Function | DefKind::Macro | DefKind::Value
            ) {
                continue;
            }
            let name = match namespace {
                Some(ns) => format!("{ns}/{}", def.name),
                None => def.name.clone(),
            };
            let params = def.params.as_deref().unwrap_or("");
            let signature = format!(
                "({name} {})",
                params
                    .trim_start_matches(['(', '['])
                    .trim_end_matches([')', ']'])
            );
            let signature = signature.replace(" )", ")");
            let place = Some((file.to_string(), def.name_span));
            self.add(
                &name,
                NameKind::Library,
                signature,
                def.doc.clone().unwrap_or_default(),
                place,
            );
        }
    }
}
