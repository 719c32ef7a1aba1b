//! The host evaluator: the interpreter state, evaluation of forms, function
//! application, macro expansion and the depth limit. Special forms live in
//! `special`, binding patterns in `pattern`. It never does I/O: printing goes
//! through the `Host` trait.

use crate::codes;
use crate::env::Env;
use crate::reader::{Form, FormKind};
use crate::trace::Tracer;
use crate::value::{Lambda, Value};
use crate::{builtins, special};
use diag::{Diagnostic, SourceMap, Span};
use std::collections::HashMap;
use std::rc::Rc;

/// How deeply evaluation may nest (forms inside forms, calls inside calls)
/// before it stops with `E-EVAL-007` instead of exhausting the stack. A
/// recursive call takes about four levels and, in a debug build, about 50 KB
/// of stack, which the command's 512 MB evaluator thread holds with room
/// to spare.
pub const MAX_DEPTH: usize = 10_000;

/// What the evaluator may ask of the outside world.
pub trait Host {
    /// Text written by `print` and `println`.
    fn print(&mut self, text: &str);

    /// The bytes of a data file (`load-npz`, `load-npy`,
    /// `load-safetensors`), or why it cannot be read. A host without files
    /// (tests, the playground) refuses.
    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        Err(format!("cannot read `{path}`: this host has no files"))
    }
}

/// Whether `call` executes graphs (`run`, `repl`) or only checks them (`check`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Run,
    Check,
}

/// Why evaluation of a form stopped early.
pub enum Flow {
    /// A mistake, to be reported.
    Error(Box<Diagnostic>),
    /// A mistake already reported (a poisoned definition was used).
    Silent,
    /// `(recur ...)` in tail position, unwinding to its `loop` or function.
    Recur(Vec<Value>, Span),
}

impl From<Diagnostic> for Flow {
    fn from(d: Diagnostic) -> Flow {
        Flow::Error(Box::new(d))
    }
}

pub type EvalResult<T = Value> = Result<T, Flow>;

/// An error with a code, message and primary span, ready to return.
pub fn error(code: diag::Code, message: impl Into<String>, span: Span) -> Flow {
    Flow::from(Diagnostic::error(code, message).with_primary(span, ""))
}

/// Where a function is being called: the call form and each argument form.
/// Calls made by library functions (`map`, `apply`) have no argument spans.
pub struct Site {
    pub span: Span,
    pub args: Vec<Span>,
}

impl Site {
    pub fn bare(span: Span) -> Site {
        Site {
            span,
            args: Vec::new(),
        }
    }

    /// The span of argument `i`, or the whole call when it is not known.
    pub fn arg(&self, i: usize) -> Span {
        self.args.get(i).copied().unwrap_or(self.span)
    }
}

/// Where a form sits: in tail position, and inside something `recur` can target.
#[derive(Clone, Copy)]
pub struct Ctx {
    pub tail: bool,
    pub in_loop: bool,
}

impl Ctx {
    pub const TOP: Ctx = Ctx {
        tail: false,
        in_loop: false,
    };

    pub fn not_tail(self) -> Ctx {
        Ctx {
            tail: false,
            ..self
        }
    }
}

/// The interpreter: globals, sources (for operand text in messages), the
/// graphs traced so far, and the host it prints through.
pub struct Interp {
    pub sources: SourceMap,
    pub(crate) globals: HashMap<Rc<str>, Value>,
    pub(crate) host: Box<dyn Host>,
    pub(crate) tracer: Tracer,
    pub(crate) mode: Mode,
    pub(crate) libraries: Vec<String>,
    /// The library whose code is running (`nn`), so its definitions and
    /// lookups go to `nn/name` first.
    pub(crate) namespace: Option<Rc<str>>,
    /// The runs `defrun` traced, in definition order.
    pub(crate) runs: Vec<Rc<crate::train::TracedRun>>,
    depth: usize,
}

impl Interp {
    pub fn new(mode: Mode, seed: u64, host: Box<dyn Host>) -> Interp {
        let mut interp = Interp {
            sources: SourceMap::new(),
            globals: HashMap::new(),
            host,
            tracer: Tracer::new(seed),
            mode,
            libraries: Vec::new(),
            namespace: None,
            runs: Vec::new(),
            depth: 0,
        };
        builtins::install(&mut interp);
        interp
    }

    pub fn define(&mut self, name: &str, value: Value) {
        self.globals.insert(Rc::from(name), value);
    }

    /// Defines `name` in the namespace of the code running now.
    pub fn define_here(&mut self, name: &str, value: Value) {
        match &self.namespace {
            Some(ns) => {
                let qualified = format!("{ns}/{name}");
                self.define(&qualified, value);
            }
            None => self.define(name, value),
        }
    }

    pub fn global(&self, name: &str) -> Option<&Value> {
        self.globals.get(name)
    }

    /// The source text of a span, as the user wrote it.
    pub fn text(&self, span: Span) -> &str {
        self.sources
            .text(span.file)
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    /// Evaluates one top-level form; a failed `def` poisons its name so
    /// later uses stay quiet.
    pub fn eval_top(&mut self, form: &Form) -> Result<Value, Option<Box<Diagnostic>>> {
        match self.eval(form, &Env::default(), Ctx::TOP) {
            Ok(v) => Ok(v),
            Err(flow) => {
                if let Some(name) = special::defined_name(form) {
                    self.define_here(name, Value::Poison);
                }
                match flow {
                    Flow::Error(d) => Err(Some(d)),
                    Flow::Silent => Err(None),
                    Flow::Recur(_, span) => Err(Some(Box::new(recur_outside(span)))),
                }
            }
        }
    }

    pub fn eval(&mut self, form: &Form, env: &Env, ctx: Ctx) -> EvalResult {
        match &form.kind {
            FormKind::Nil => Ok(Value::Nil),
            FormKind::Bool(b) => Ok(Value::Bool(*b)),
            FormKind::Int(n) => Ok(Value::Int(*n)),
            FormKind::Float(x) => Ok(Value::Float(*x)),
            FormKind::Str(s) => Ok(Value::str(s)),
            FormKind::Keyword(k) => Ok(Value::keyword(k)),
            FormKind::Symbol(name) => self.lookup(name, form.span, env),
            FormKind::Vector(items) => Ok(Value::vector(self.eval_all(items, env, ctx)?)),
            FormKind::Map(items) => {
                let values = self.eval_all(items, env, ctx)?;
                let mut map: Vec<(Value, Value)> = Vec::new();
                for kv in values.chunks(2) {
                    builtins::map_insert(&mut map, kv[0].clone(), kv[1].clone());
                }
                Ok(Value::Map(Rc::new(map)))
            }
            FormKind::List(items) if items.is_empty() => Ok(Value::list(Vec::new())),
            FormKind::List(items) => {
                self.enter(form.span)?;
                let result = self.eval_list(form, items, env, ctx);
                self.depth -= 1;
                result
            }
        }
    }

    fn enter(&mut self, span: Span) -> EvalResult<()> {
        if self.depth >= MAX_DEPTH {
            return Err(Flow::from(
                Diagnostic::error(
                    codes::E_EVAL_007,
                    format!("evaluation nested more than {MAX_DEPTH} levels deep"),
                )
                .with_primary(span, "while evaluating this")
                .with_help("for long iterations use `loop` and `recur`, which do not nest"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    pub fn eval_all(&mut self, forms: &[Form], env: &Env, ctx: Ctx) -> EvalResult<Vec<Value>> {
        forms
            .iter()
            .map(|f| self.eval(f, env, ctx.not_tail()))
            .collect()
    }

    /// Evaluates a body: every form in order, the last one in `ctx`'s tail position.
    pub fn eval_body(&mut self, forms: &[Form], env: &Env, ctx: Ctx) -> EvalResult {
        let Some((last, init)) = forms.split_last() else {
            return Ok(Value::Nil);
        };
        for form in init {
            self.eval(form, env, ctx.not_tail())?;
        }
        self.eval(last, env, ctx)
    }

    fn eval_list(&mut self, form: &Form, items: &[Form], env: &Env, ctx: Ctx) -> EvalResult {
        let head = &items[0];
        if let Some(name) = head.as_symbol() {
            if env.lookup(name).is_none() {
                if let Some(result) = special::eval_special(self, name, form, &items[1..], env, ctx)
                {
                    return result;
                }
            }
        }
        let f = self.eval(head, env, ctx.not_tail())?;
        if let Value::Macro(m) = &f {
            let expansion = self.expand(m, &items[1..], form.span)?;
            return self.eval(&expansion, env, ctx);
        }
        let args = self.eval_all(&items[1..], env, ctx)?;
        let site = Site {
            span: form.span,
            args: items[1..].iter().map(|f| f.span).collect(),
        };
        self.apply(&f, args, &site)
    }

    /// Expands a macro call: the arguments go in as data, the result comes
    /// back as code placed at the call.
    pub fn expand(&mut self, m: &Rc<Lambda>, args: &[Form], span: Span) -> EvalResult<Form> {
        let args = args.iter().map(Value::from_form).collect();
        let result = self.call_lambda(m, args, &Site::bare(span))?;
        result.to_form(span).ok_or_else(|| {
            let name = m.name.as_deref().unwrap_or("?");
            Flow::from(
                Diagnostic::error(
                    codes::E_EVAL_003,
                    format!("macro `{name}` returned {}, which is not code", result.type_name()),
                )
                .with_primary(span, "")
                .with_note(format!(
                    "code is made of data (numbers, strings, symbols, lists, vectors, maps) nested at most {} deep",
                    crate::reader::MAX_NESTING
                )),
            )
        })
    }

    fn lookup(&mut self, name: &str, span: Span, env: &Env) -> EvalResult {
        let in_namespace = self
            .namespace
            .as_ref()
            .and_then(|ns| self.globals.get(format!("{ns}/{name}").as_str()));
        let found = env
            .lookup(name)
            .or(in_namespace)
            .or_else(|| self.globals.get(name));
        match found {
            Some(Value::Poison) => Err(Flow::Silent),
            Some(v) => Ok(v.clone()),
            None => Err(self.unbound(name, span, env)),
        }
    }

    fn unbound(&self, name: &str, span: Span, env: &Env) -> Flow {
        let mut d = Diagnostic::error(codes::E_EVAL_001, format!("unbound name `{name}`"))
            .with_primary(span, "not defined here");
        if let Some((library, _)) = name.split_once('/') {
            if !self.libraries.iter().any(|l| l == library) && crate::nn::is_library(library) {
                d = d.with_help(format!("load the library first: `(require {library})`"));
                return Flow::from(d);
            }
        }
        let qualified = format!("nn/{name}");
        if self.globals.contains_key(qualified.as_str()) || crate::nn::defines(name) {
            return Flow::from(d.with_help(format!(
                "`{name}` is in the nn library: write `{qualified}` after `(require nn)`, or `(require nn :refer :all)`"
            )));
        }
        let candidates = env
            .names()
            .into_iter()
            .chain(self.globals.keys().cloned())
            .chain(special::NAMES.iter().map(|s| Rc::from(*s)));
        if let Some(best) = diag::closest(name, candidates) {
            d = d.with_help(format!("did you mean `{best}`?"));
        }
        Flow::from(d)
    }

    /// Calls any callable value with evaluated arguments.
    pub fn apply(&mut self, f: &Value, args: Vec<Value>, site: &Site) -> EvalResult {
        match f {
            Value::Builtin(b) => (b.call)(self, site, args),
            Value::Fn(lambda) => self.call_lambda(lambda, args, site),
            Value::Graph(g) => crate::trace::call_graph(self, g, args, site),
            Value::Keyword(_) | Value::Map(_) => {
                if args.is_empty() || args.len() > 2 {
                    return Err(error(codes::E_EVAL_002, format!("{} as a function takes 1 or 2 arguments, got {}", f.type_name(), args.len()), site.span));
                }
                let (map, key) = if let Value::Map(_) = f { (f, &args[0]) } else { (&args[0], f) };
                Ok(map.map_get(key).unwrap_or_else(|| args.get(1).cloned().unwrap_or(Value::Nil)))
            }
            Value::Vector(items) => match &args[..] {
                [Value::Int(i)] => usize::try_from(*i)
                    .ok()
                    .and_then(|i| items.get(i).cloned())
                    .ok_or_else(|| {
                        error(
                            codes::E_EVAL_010,
                            format!("index {i} out of range for a vector of {} elements", items.len()),
                            site.arg(0),
                        )
                    }),
                _ => Err(error(
                    codes::E_EVAL_002,
                    "a vector as a function takes one integer index",
                    site.span,
                )),
            },
            Value::Poison => Err(Flow::Silent),
            Value::Macro(m) => Err(error(
                codes::E_EVAL_006,
                format!("macro `{}` cannot be passed around as a function", m.name.as_deref().unwrap_or("?")),
                site.span,
            )),
            other => Err(Flow::from(
                Diagnostic::error(codes::E_EVAL_006, format!("{} is not a function", other.type_name()))
                    .with_primary(site.span, format!("calls `{}`", builtins::short(other)))
                    .with_help("the first element of a list is the function to call; quote the list to keep it as data: `'(1 2 3)`"),
            )),
        }
    }

    pub fn call_lambda(
        &mut self,
        lambda: &Rc<Lambda>,
        mut args: Vec<Value>,
        site: &Site,
    ) -> EvalResult {
        self.enter(site.span)?;
        let outer = std::mem::replace(&mut self.namespace, lambda.namespace.clone());
        let result = loop {
            let (env, body) = match crate::pattern::bind_params(self, lambda, args, site) {
                Ok(bound) => bound,
                Err(e) => break Err(e),
            };
            match self.eval_body(
                &body,
                &env,
                Ctx {
                    tail: true,
                    in_loop: true,
                },
            ) {
                Err(Flow::Recur(next, _)) => args = next,
                other => break other,
            }
        };
        self.namespace = outer;
        self.depth -= 1;
        match (result, &lambda.namespace) {
            // A mistake inside library code also points at the user's call.
            (Err(Flow::Error(mut d)), Some(ns))
                if self.namespace.is_none()
                    && !d
                        .primary
                        .as_ref()
                        .is_some_and(|p| within(p.span, site.span)) =>
            {
                let name = lambda.name.as_deref().unwrap_or("fn");
                d.secondary.push(diag::Label {
                    span: site.span,
                    message: format!("in this call of `{ns}/{name}`"),
                });
                Err(Flow::Error(d))
            }
            (result, _) => result,
        }
    }

    pub fn print(&mut self, text: &str) {
        if self.mode == Mode::Run {
            self.host.print(text);
        }
    }
}

/// Whether `inner` lies inside `outer`.
fn within(inner: Span, outer: Span) -> bool {
    inner.file == outer.file && outer.start <= inner.start && inner.end <= outer.end
}

pub fn recur_outside(span: Span) -> Diagnostic {
    Diagnostic::error(codes::E_EVAL_004, "`recur` outside `loop` or a function")
        .with_primary(span, "nothing to recur to")
        .with_help("`recur` restarts the innermost `loop` or function, from its tail position")
}

#[cfg(test)]
mod tests;
