//! The syntax of one file as an editor needs it: its definitions (the
//! top-level `def` forms, and the names that parameters, `let`, `loop`,
//! `fn` and the binding forms bind, destructuring included), every symbol
//! written with what it refers to by lexical scope (a name no scope binds
//! is a global: a top-level definition, a library's, a builtin), and the
//! call around a position. Never evaluates anything.

use crate::reader::{Form, FormKind};
use diag::Span;
use std::collections::HashMap;

/// What a definition defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    Function,
    Macro,
    Graph,
    Model,
    Run,
    Value,
    Parameter,
    Local,
}

/// One name a form defines or binds.
#[derive(Clone, Debug)]
pub struct Def {
    pub name: String,
    pub kind: DefKind,
    /// The name where it is written.
    pub name_span: Span,
    /// The whole defining form (a `defn`, a `let`).
    pub form_span: Span,
    /// Where the name can be used: its form for a binding, the file for a global.
    pub scope: Span,
    /// The parameters as written, for functions, graphs and models.
    pub params: Option<String>,
    /// The first line of a docstring.
    pub doc: Option<String>,
    /// The form whose value the name takes (`let` and `def`).
    pub value: Option<Span>,
}

/// What a written symbol refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A definition of this file, by index.
    Def(usize),
    /// A name no scope of the file binds.
    Global(String),
}

/// One symbol as written.
#[derive(Clone, Debug)]
pub struct Occurrence {
    pub span: Span,
    pub target: Target,
}

/// A file's definitions and symbols.
#[derive(Debug, Default)]
pub struct FileIndex {
    pub defs: Vec<Def>,
    /// In the order written.
    pub occurrences: Vec<Occurrence>,
    /// The last top-level definition of each name.
    pub top: HashMap<String, usize>,
}

/// Forms whose second element is a vector of names and values, bound in turn.
const BINDING_FORMS: &[&str] = &[
    "let", "loop", "when-let", "if-let", "doseq", "for", "dotimes",
];

impl FileIndex {
    /// The index of `forms`, the top-level forms of one file whose text is `text`.
    pub fn new(forms: &[Form], text: &str) -> FileIndex {
        let mut index = FileIndex::default();
        let mut scope = Vec::new();
        for form in forms {
            index.walk(form, &mut scope, text, true);
        }
        // Walked values before names; symbols never overlap, so by start is by end too.
        index.occurrences.sort_by_key(|o| o.span.start);
        for (i, def) in index.defs.iter().enumerate() {
            if def.scope.start == 0 && def.scope.end as usize == text.len() {
                index.top.insert(def.name.clone(), i);
            }
        }
        index
    }

    /// What the symbol at `offset` refers to, and where it is written.
    pub fn at(&self, offset: u32) -> Option<&Occurrence> {
        let i = self.occurrences.partition_point(|o| o.span.end < offset);
        self.occurrences[i..]
            .iter()
            .take_while(|o| o.span.start <= offset)
            .find(|o| o.span.start <= offset && offset <= o.span.end)
    }

    /// The definition a target names in this file, if it has one.
    pub fn def_of(&self, target: &Target) -> Option<usize> {
        match target {
            Target::Def(i) => Some(*i),
            Target::Global(name) => self.top.get(name).copied(),
        }
    }

    fn define(&mut self, name: &Form, kind: DefKind, form: &Form, scope: Span) -> Option<usize> {
        let text = name.as_symbol().filter(|s| !matches!(*s, "&" | "_"))?;
        self.defs.push(Def {
            name: text.to_string(),
            kind,
            name_span: name.span,
            form_span: form.span,
            scope,
            params: None,
            doc: None,
            value: None,
        });
        let i = self.defs.len() - 1;
        self.occurrences.push(Occurrence {
            span: name.span,
            target: Target::Def(i),
        });
        Some(i)
    }

    fn walk(&mut self, form: &Form, scope: &mut Vec<(String, usize)>, text: &str, top: bool) {
        match &form.kind {
            FormKind::Symbol(name) => {
                let target = match scope.iter().rev().find(|(n, _)| n == name) {
                    Some(&(_, i)) => Target::Def(i),
                    None => Target::Global(name.clone()),
                };
                self.occurrences.push(Occurrence {
                    span: form.span,
                    target,
                });
            }
            FormKind::Vector(items) | FormKind::Map(items) => {
                for item in items {
                    self.walk(item, scope, text, false);
                }
            }
            FormKind::List(items) => self.walk_list(form, items, scope, text, top),
            _ => {}
        }
    }

    fn walk_all(&mut self, forms: &[Form], scope: &mut Vec<(String, usize)>, text: &str) {
        for form in forms {
            self.walk(form, scope, text, false);
        }
    }

    fn walk_list(
        &mut self,
        form: &Form,
        items: &[Form],
        scope: &mut Vec<(String, usize)>,
        text: &str,
        top: bool,
    ) {
        let head = items.first().and_then(Form::as_symbol).unwrap_or("");
        // A name bound locally is called, not the special form of that name.
        let shadowed = scope.iter().any(|(n, _)| n == head);
        let file = Span::new(form.span.file, 0, text.len() as u32);
        let global = if top { file } else { form.span };
        match head {
            _ if shadowed => self.walk_all(items, scope, text),
            "quote" | "quasiquote" => {}
            "def" if items.len() >= 2 => {
                self.walk_all(&items[2..], scope, text);
                self.occurrences_of_head(items);
                if let Some(i) = self.define(&items[1], DefKind::Value, form, global) {
                    self.defs[i].value = items.get(2).map(|v| v.span);
                }
            }
            "defn" | "defmacro" | "defgraph" | "defmodel" if items.len() >= 2 => {
                let kind = match head {
                    "defn" => DefKind::Function,
                    "defmacro" => DefKind::Macro,
                    "defgraph" => DefKind::Graph,
                    _ => DefKind::Model,
                };
                self.occurrences_of_head(items);
                let def = self.define(&items[1], kind, form, global);
                self.function(form, &items[2..], def, scope, text);
            }
            "defrun" if items.len() >= 2 => {
                self.occurrences_of_head(items);
                self.define(&items[1], DefKind::Run, form, global);
                self.walk_all(&items[2..], scope, text);
            }
            "fn" | "lambda" if items.len() >= 2 => {
                self.occurrences_of_head(items);
                // `(fn name (params) body)`: the name is bound in the body.
                let depth = scope.len();
                let rest = match items[1].as_symbol() {
                    Some(_) => {
                        if let Some(i) = self.define(&items[1], DefKind::Local, form, form.span) {
                            scope.push((self.defs[i].name.clone(), i));
                        }
                        &items[2..]
                    }
                    None => &items[1..],
                };
                self.function(form, rest, None, scope, text);
                scope.truncate(depth);
            }
            _ if BINDING_FORMS.contains(&head) && items.len() >= 2 => {
                self.occurrences_of_head(items);
                let depth = scope.len();
                if let FormKind::Vector(bindings) = &items[1].kind {
                    self.bindings(form, bindings, scope, text);
                } else {
                    self.walk(&items[1], scope, text, false);
                }
                self.walk_all(&items[2..], scope, text);
                scope.truncate(depth);
            }
            _ => self.walk_all(items, scope, text),
        }
    }

    /// The operator of a special form, as written (it names no definition).
    fn occurrences_of_head(&mut self, items: &[Form]) {
        if let Some(head) = items.first() {
            self.walk(head, &mut Vec::new(), "", false);
        }
    }

    /// `[name value ...]` bound in turn, each value seeing the names before it.
    fn bindings(
        &mut self,
        form: &Form,
        bindings: &[Form],
        scope: &mut Vec<(String, usize)>,
        text: &str,
    ) {
        for pair in bindings.chunks(2) {
            let [pattern, value] = pair else {
                self.walk_all(pair, scope, text);
                continue;
            };
            self.walk(value, scope, text, false);
            if matches!(pattern.kind, FormKind::Keyword(_)) {
                continue;
            }
            let first = self.defs.len();
            self.pattern(pattern, DefKind::Local, form, scope, text);
            if let (FormKind::Symbol(_), Some(def)) = (&pattern.kind, self.defs.get_mut(first)) {
                def.value = Some(value.span);
            }
        }
    }

    /// Parameters, a docstring and a body: `(params) "doc" body...` (the
    /// docstring may also come first).
    fn function(
        &mut self,
        form: &Form,
        rest: &[Form],
        def: Option<usize>,
        scope: &mut Vec<(String, usize)>,
        text: &str,
    ) {
        let mut rest = rest;
        let mut doc = None;
        if let [Form {
            kind: FormKind::Str(s),
            ..
        }, tail @ ..] = rest
        {
            doc = Some(s.clone());
            rest = tail;
        }
        let Some((params, body)) = rest.split_first() else {
            return;
        };
        if let [Form {
            kind: FormKind::Str(s),
            ..
        }, _, ..] = body
        {
            doc = doc.or(Some(s.clone()));
        }
        if let Some(i) = def {
            let written = text.get(params.span.start as usize..params.span.end as usize);
            self.defs[i].params = written.map(str::to_string);
            self.defs[i].doc = doc.map(|d| d.lines().next().unwrap_or("").trim().to_string());
        }
        let depth = scope.len();
        match &params.kind {
            FormKind::List(items) | FormKind::Vector(items) => {
                for item in items {
                    // A graph's input is `(name shape dtype)`: the shape may use globals.
                    if let FormKind::List(parts) = &item.kind {
                        if let Some((name, spec)) = parts.split_first() {
                            self.walk_all(spec, scope, text);
                            self.pattern(name, DefKind::Parameter, form, scope, text);
                            continue;
                        }
                    }
                    self.pattern(item, DefKind::Parameter, form, scope, text);
                }
            }
            _ => self.walk(params, scope, text, false),
        }
        self.walk_all(body, scope, text);
        scope.truncate(depth);
    }

    /// Binds the names of a pattern: a symbol, a vector of patterns, a map
    /// with `:keys [names]`, `:as name` and `:or {defaults}`.
    fn pattern(
        &mut self,
        pattern: &Form,
        kind: DefKind,
        form: &Form,
        scope: &mut Vec<(String, usize)>,
        text: &str,
    ) {
        match &pattern.kind {
            FormKind::Symbol(_) => {
                if let Some(i) = self.define(pattern, kind, form, form.span) {
                    scope.push((self.defs[i].name.clone(), i));
                }
            }
            FormKind::Vector(items) | FormKind::List(items) => {
                for item in items {
                    self.pattern(item, kind, form, scope, text);
                }
            }
            FormKind::Map(items) => {
                for pair in items.chunks(2) {
                    let [key, value] = pair else { continue };
                    match (&key.kind, &value.kind) {
                        (FormKind::Keyword(k), FormKind::Vector(names)) if k == "keys" => {
                            for name in names {
                                self.pattern(name, kind, form, scope, text);
                            }
                        }
                        (FormKind::Keyword(k), _) if k == "or" => {
                            self.walk(value, scope, text, false)
                        }
                        (FormKind::Keyword(k), _) if k == "as" => {
                            self.pattern(value, kind, form, scope, text)
                        }
                        _ => self.pattern(key, kind, form, scope, text),
                    }
                }
            }
            _ => {}
        }
    }
}

/// The call around `offset` in `forms`: its operator, the operator's span,
/// and the argument being written (counted from 0), or the keyword it
/// follows when it is a keyword argument's value.
pub fn enclosing_call(forms: &[Form], offset: u32) -> Option<Call> {
    let form = forms
        .iter()
        .find(|f| f.span.start < offset && offset <= f.span.end)?;
    innermost_call(form, offset)
}

/// A call being written.
#[derive(Debug, PartialEq, Eq)]
pub struct Call {
    pub head: String,
    pub head_span: Span,
    pub argument: usize,
    pub keyword: Option<String>,
}

fn innermost_call(form: &Form, offset: u32) -> Option<Call> {
    let items = match &form.kind {
        FormKind::List(items) | FormKind::Vector(items) | FormKind::Map(items) => items,
        _ => return None,
    };
    let inside = |f: &Form| f.span.start < offset && offset < f.span.end;
    if let Some(call) = items
        .iter()
        .filter(|f| inside(f))
        .find_map(|f| innermost_call(f, offset))
    {
        return Some(call);
    }
    let FormKind::List(items) = &form.kind else {
        return None;
    };
    let head = items.first()?;
    let name = head.as_symbol()?;
    if offset <= head.span.end || offset >= form.span.end {
        return None;
    }
    let before = items[1..].iter().filter(|f| f.span.end < offset).count();
    let keyword = items[1..before + 1].last().and_then(|f| match &f.kind {
        FormKind::Keyword(k) => Some(k.clone()),
        _ => None,
    });
    Some(Call {
        head: name.to_string(),
        head_span: head.span,
        argument: before,
        keyword,
    })
}
