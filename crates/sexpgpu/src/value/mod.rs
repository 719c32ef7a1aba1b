//! Host values (nil, numbers, strings, collections, functions, tensors),
//! lexical environments (`env`), the tensor and graph handles values carry
//! (`tensor`), the conversion between code and data for `quote` and macros,
//! and Clojure-style printing. Sits right above the reader: values never
//! evaluate anything, so nothing here names the evaluator or the tracer.

mod env;
mod tensor;

pub use env::Env;
pub use tensor::{tensor_leaves, with_leaves, GraphDef, HostTensor, Outputs, Traced};

use crate::reader::{Form, FormKind};
use diag::Span;
use std::fmt::Write as _;
use std::rc::Rc;

/// Which builtin a `Value::Builtin` is: its slot in the evaluator's
/// registry. Values sit below the evaluator, so a builtin value names its
/// function by slot; only the evaluator that handed it out calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltinId(pub u32);

/// A closure made by `fn`, `lambda`, `defn` or `defmacro`.
pub struct Lambda {
    pub name: Option<Rc<str>>,
    /// One clause per arity: `(fn ([x] ..) ([x y] ..))` has two.
    pub clauses: Vec<Clause>,
    pub env: Env,
    pub span: Span,
    /// The library it was defined in, whose names it sees first.
    pub namespace: Option<Rc<str>>,
    /// Defined by the prelude or a built-in library: its free names see
    /// the builtins and the prelude as installed, never a user's `def` of
    /// the same name (`Interp::lookup`).
    pub library: bool,
}

/// One arity of a function: its parameters and body.
pub struct Clause {
    pub params: Params,
    pub body: Rc<[Form]>,
}

/// A parameter list: fixed patterns, then an optional `& rest` pattern.
#[derive(Clone)]
pub struct Params {
    pub fixed: Vec<Pattern>,
    pub rest: Option<Pattern>,
}

/// A binding target: a name, or Clojure destructuring of a vector or map.
#[derive(Clone)]
pub enum Pattern {
    Name(Rc<str>),
    /// `[a b & more :as all]`
    Seq {
        items: Vec<Pattern>,
        rest: Option<Box<Pattern>>,
        all: Option<Rc<str>>,
    },
    /// `{:keys [a b] :or {b 1} :as m}`
    Keys {
        keys: Vec<Rc<str>>,
        defaults: Vec<(Rc<str>, Form)>,
        all: Option<Rc<str>>,
    },
}

#[derive(Clone)]
pub enum Value {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Rc<str>),
    Keyword(Rc<str>),
    Symbol(Rc<str>),
    List(Rc<Vec<Value>>),
    Vector(Rc<Vec<Value>>),
    /// Insertion-ordered, like Clojure's small array maps, so printing is stable.
    Map(Rc<Vec<(Value, Value)>>),
    Fn(Rc<Lambda>),
    Macro(Rc<Lambda>),
    /// A function registered with the evaluator (host library, tensor
    /// operations). Two fields rather than one struct keep `Value` at 24 bytes.
    Builtin {
        id: BuiltinId,
        name: &'static str,
    },
    /// A node of a graph being (or once) traced.
    Tensor(Rc<Traced>),
    /// A computed tensor, from `call`.
    HostTensor(Rc<HostTensor>),
    Graph(Rc<GraphDef>),
    /// The value of a definition whose evaluation failed: using it fails
    /// silently, so one mistake gives one diagnostic.
    Poison,
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }

    pub fn keyword(s: &str) -> Value {
        Value::Keyword(Rc::from(s))
    }

    pub fn symbol(s: &str) -> Value {
        Value::Symbol(Rc::from(s))
    }

    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(items))
    }

    pub fn vector(items: Vec<Value>) -> Value {
        Value::Vector(Rc::new(items))
    }

    /// Clojure truth: everything but `nil` and `false` is true.
    pub fn is_truthy(&self) -> bool {
        !matches!(self, Value::Nil | Value::Bool(false))
    }

    /// The type's name as messages print it: "expected a number, got a string".
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Keyword(_) => "a keyword",
            Value::Symbol(_) => "a symbol",
            Value::List(_) => "a list",
            Value::Vector(_) => "a vector",
            Value::Map(_) => "a map",
            Value::Fn(_) | Value::Builtin { .. } => "a function",
            Value::Macro(_) => "a macro",
            Value::Tensor(_) => "a tensor",
            Value::HostTensor(_) => "a host tensor",
            Value::Graph(_) => "a graph",
            Value::Poison => "an undefined value",
        }
    }

    /// The elements of a list, vector or nil; maps give `[key value]` pairs.
    pub fn as_seq(&self) -> Option<Vec<Value>> {
        match self {
            Value::Nil => Some(Vec::new()),
            Value::List(xs) | Value::Vector(xs) => Some(xs.to_vec()),
            Value::Map(m) => Some(
                m.iter()
                    .map(|(k, v)| Value::vector(vec![k.clone(), v.clone()]))
                    .collect(),
            ),
            Value::Str(s) => Some(s.chars().map(|c| Value::str(&c.to_string())).collect()),
            _ => None,
        }
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Value::Int(_) | Value::Float(_))
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(n) => Some(*n as f64),
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }

    pub fn map_get(&self, key: &Value) -> Option<Value> {
        match self {
            Value::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()),
            _ => None,
        }
    }

    /// Code as data, for `quote`: spans are dropped.
    pub fn from_form(form: &Form) -> Value {
        let all = |xs: &[Form]| xs.iter().map(Value::from_form).collect::<Vec<_>>();
        match &form.kind {
            FormKind::Nil => Value::Nil,
            FormKind::Bool(b) => Value::Bool(*b),
            FormKind::Int(n) => Value::Int(*n),
            FormKind::Float(x) => Value::Float(*x),
            FormKind::Str(s) => Value::str(s),
            FormKind::Keyword(k) => Value::keyword(k),
            FormKind::Symbol(s) => Value::symbol(s),
            FormKind::List(xs) => Value::list(all(xs)),
            FormKind::Vector(xs) => Value::vector(all(xs)),
            FormKind::Map(xs) => {
                let items = all(xs);
                let pairs = items.chunks(2).map(|kv| (kv[0].clone(), kv[1].clone()));
                Value::Map(Rc::new(pairs.collect()))
            }
        }
    }

    /// Data as code, for macro expansion: every piece gets `span`, the macro
    /// call's place. `None` for values that are not code (functions, tensors).
    pub fn to_form(&self, span: Span) -> Option<Form> {
        self.to_form_at(span, &Spans::default(), 0)
    }

    /// As `to_form`, but a piece that is one of the values `spans` came
    /// from (a macro's argument, spliced into its expansion) keeps the
    /// place it was read at, so a mistake in a `doseq` body points at the
    /// body's form, not at the whole loop.
    pub fn to_form_spanned(&self, span: Span, spans: &Spans) -> Option<Form> {
        self.to_form_at(span, spans, 0)
    }

    /// Code nested deeper than the reader allows is refused here too, so a
    /// macro cannot hand the evaluator a form the reader would reject.
    fn to_form_at(&self, span: Span, spans: &Spans, depth: usize) -> Option<Form> {
        if depth > crate::reader::MAX_NESTING {
            return None;
        }
        let span = spans.get(self).unwrap_or(span);
        let all = |xs: &[Value]| {
            xs.iter()
                .map(|x| x.to_form_at(span, spans, depth + 1))
                .collect::<Option<Vec<_>>>()
        };
        let kind = match self {
            Value::Nil => FormKind::Nil,
            Value::Bool(b) => FormKind::Bool(*b),
            Value::Int(n) => FormKind::Int(*n),
            Value::Float(x) => FormKind::Float(*x),
            Value::Str(s) => FormKind::Str(s.to_string()),
            Value::Keyword(k) => FormKind::Keyword(k.to_string()),
            Value::Symbol(s) => FormKind::Symbol(s.to_string()),
            Value::List(xs) => FormKind::List(all(xs)?),
            Value::Vector(xs) => FormKind::Vector(all(xs)?),
            Value::Map(m) => {
                let flat: Vec<Value> = m.iter().flat_map(|(k, v)| [k.clone(), v.clone()]).collect();
                FormKind::Map(all(&flat)?)
            }
            _ => return None,
        };
        Some(Form::new(kind, span))
    }

    /// The address of the shared allocation a value holds, which tells
    /// one read form's value from an equal one built later.
    fn identity(&self) -> Option<*const ()> {
        match self {
            Value::Str(s) | Value::Keyword(s) | Value::Symbol(s) => Some(Rc::as_ptr(s).cast()),
            Value::List(xs) | Value::Vector(xs) => Some(Rc::as_ptr(xs).cast()),
            Value::Map(m) => Some(Rc::as_ptr(m).cast()),
            _ => None,
        }
    }

    /// `from_form`, recording in `spans` where each piece was read.
    pub fn from_form_spanned(form: &Form, spans: &mut Spans) -> Value {
        let value = match &form.kind {
            FormKind::List(xs) => Value::list(Self::all_spanned(xs, spans)),
            FormKind::Vector(xs) => Value::vector(Self::all_spanned(xs, spans)),
            FormKind::Map(xs) => {
                let items = Self::all_spanned(xs, spans);
                let pairs = items.chunks(2).map(|kv| (kv[0].clone(), kv[1].clone()));
                Value::Map(Rc::new(pairs.collect()))
            }
            _ => Value::from_form(form),
        };
        spans.record(&value, form.span);
        value
    }

    fn all_spanned(forms: &[Form], spans: &mut Spans) -> Vec<Value> {
        forms
            .iter()
            .map(|f| Value::from_form_spanned(f, spans))
            .collect()
    }

    /// `pr-str`: strings quoted, as the reader would read them back.
    pub fn repr(&self) -> String {
        let mut out = String::new();
        write_value(&mut out, self, true, 0);
        out
    }

    /// `str` and `println`: strings as their characters.
    pub fn display(&self) -> String {
        let mut out = String::new();
        write_value(&mut out, self, false, 0);
        out
    }
}

impl PartialEq for Value {
    /// Clojure's `=`: lists equal vectors with the same elements; `1` is not
    /// `1.0`; functions and tensors are equal only to themselves.
    fn eq(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (Nil, Nil) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => a == b,
            (Str(a), Str(b)) | (Keyword(a), Keyword(b)) | (Symbol(a), Symbol(b)) => a == b,
            (List(a) | Vector(a), List(b) | Vector(b)) => a == b,
            (Map(a), Map(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| other.map_get(k).as_ref() == Some(v))
            }
            (Fn(a), Fn(b)) | (Macro(a), Macro(b)) => Rc::ptr_eq(a, b),
            (Builtin { id: a, .. }, Builtin { id: b, .. }) => a == b,
            (Tensor(a), Tensor(b)) => Rc::ptr_eq(a, b),
            (HostTensor(a), HostTensor(b)) => Rc::ptr_eq(a, b),
            (Graph(a), Graph(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// A short rendering of a value for messages, cut at 40 characters.
pub fn short(value: &Value) -> String {
    let text = value.repr();
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(37).collect::<String>())
    } else {
        text
    }
}

/// Inserts or replaces `key` in an insertion-ordered map.
pub fn map_insert(map: &mut Vec<(Value, Value)>, key: Value, value: Value) {
    match map.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => map.push((key, value)),
    }
}

/// Prints a float the way Clojure does: `1.0`, `0.001`, `1.0E-4`, `##NaN`.
pub fn format_float(x: f64) -> String {
    sexpgpu_graph::format_f64(x)
}

/// Collections nested deeper than this print as `...`, so printing a value
/// built by a long loop cannot exhaust the stack.
const MAX_PRINT_DEPTH: usize = 1_000;

fn write_seq(
    out: &mut String,
    open: &str,
    items: &[Value],
    close: &str,
    readably: bool,
    depth: usize,
) {
    out.push_str(open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_value(out, item, readably, depth + 1);
    }
    out.push_str(close);
}

fn write_value(out: &mut String, value: &Value, readably: bool, depth: usize) {
    if depth > MAX_PRINT_DEPTH {
        out.push_str("...");
        return;
    }
    match value {
        Value::Nil => out.push_str("nil"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(n) => out.push_str(&n.to_string()),
        Value::Float(x) => out.push_str(&format_float(*x)),
        Value::Str(s) if readably => write_escaped(out, s),
        Value::Str(s) => out.push_str(s),
        Value::Keyword(k) => {
            out.push(':');
            out.push_str(k);
        }
        Value::Symbol(s) => out.push_str(s),
        Value::List(xs) => write_seq(out, "(", xs, ")", readably, depth),
        Value::Vector(xs) => write_seq(out, "[", xs, "]", readably, depth),
        Value::Map(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, k, readably, depth + 1);
                out.push(' ');
                write_value(out, v, readably, depth + 1);
            }
            out.push('}');
        }
        Value::Fn(f) => match &f.name {
            Some(name) => {
                let _ = write!(out, "#<fn {name}>");
            }
            None => out.push_str("#<fn>"),
        },
        Value::Macro(m) => {
            let _ = write!(out, "#<macro {}>", m.name.as_deref().unwrap_or("?"));
        }
        Value::Builtin { name, .. } => {
            let _ = write!(out, "#<fn {name}>");
        }
        Value::Tensor(t) => out.push_str(&t.describe_value()),
        Value::HostTensor(t) => out.push_str(&t.to_string()),
        Value::Graph(g) => {
            let _ = write!(out, "#<graph {}>", g.name);
        }
        Value::Poison => out.push_str("#<undefined>"),
    }
}

fn write_escaped(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            _ => out.push(c),
        }
    }
    out.push('"');
}

/// Where each of some values was read, by the identity of the allocation
/// it holds (numbers and other unshared values are not recorded). The
/// values must outlive the table, so that no address is reused by a value
/// built later.
#[derive(Default)]
pub struct Spans(std::collections::HashMap<*const (), Span>);

impl Spans {
    fn record(&mut self, value: &Value, span: Span) {
        if let Some(at) = value.identity() {
            self.0.insert(at, span);
        }
    }

    fn get(&self, value: &Value) -> Option<Span> {
        self.0.get(&value.identity()?).copied()
    }
}
