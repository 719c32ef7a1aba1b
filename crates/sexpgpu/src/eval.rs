//! The host evaluator: the interpreter state, evaluation of forms, function
//! application, macro expansion, the depth limit, and the errors every layer
//! above reports the same way (`arity`, `wrong_type`, `malformed`). Binding
//! patterns are in `pattern`; special forms, builtins, graph calls and
//! layer state come from the `registry`, so this module never names
//! `special`, `builtins`, `trace`, `train` or `nn`. It never does I/O:
//! printing goes through the `Host` trait.

pub mod pattern;
mod registry;
pub mod watch;

pub use registry::{Builtin, Primitive, Special, SpecialUse};

use crate::codes;
use crate::reader::{Form, FormKind};
use crate::value::{map_insert, short, Env, Lambda, Spans, Value};
use diag::{Diagnostic, SourceMap, Span};
use registry::Registry;
use std::collections::HashMap;
use std::rc::Rc;

/// How deeply evaluation may nest (forms inside forms, calls inside calls)
/// before it stops with `E-EVAL-007` instead of exhausting the stack. A
/// recursive call takes about four levels and, in a debug build, about 50 KB
/// of stack, which the command's 512 MB evaluator thread holds with room
/// to spare.
pub const MAX_DEPTH: usize = 10_000;

/// How many forms host code may evaluate before it is stopped with
/// `E-EVAL-014`, by default: seconds of work in a release build, far more
/// than a program's host code needs, and a bound on one that never ends
/// (`(loop [i 0] (recur (inc i)))`). `--max-steps` sets it.
pub const DEFAULT_STEP_LIMIT: u64 = 100_000_000;

/// The step limit new interpreters start with (`set_default_step_limit`).
static STEP_LIMIT: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(DEFAULT_STEP_LIMIT);

/// Sets the step limit of the interpreters made from now on (the
/// command's `--max-steps`).
pub fn set_default_step_limit(steps: u64) {
    STEP_LIMIT.store(steps, std::sync::atomic::Ordering::Relaxed);
}

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

    /// Writes a whole file (`save-npy`, `save-npz`, `save-safetensors`):
    /// to a temporary file beside it, then renamed over it, so a reader
    /// never sees half a file. A host without files refuses.
    fn write_file(&mut self, path: &str, _bytes: &[u8]) -> Result<(), String> {
        Err(format!("cannot write `{path}`: this host has no files"))
    }

    /// Whether an editor's evaluation (`watch::Watch`) must stop now: its
    /// clock says the time it gave is spent. Asked every thousand steps,
    /// only while an editor watches.
    fn interrupted(&mut self) -> bool {
        false
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

/// The arity error of builtin `name` unless it got `min` to `max` arguments.
pub fn arity(
    name: &str,
    site: &Site,
    args: &[Value],
    min: usize,
    max: Option<usize>,
) -> EvalResult<()> {
    let n = args.len();
    if n >= min && max.is_none_or(|m| n <= m) {
        return Ok(());
    }
    let expected = match max {
        Some(m) if m == min => format!("{m} argument{}", if m == 1 { "" } else { "s" }),
        Some(m) => format!("{min} to {m} arguments"),
        None => format!("at least {min} argument{}", if min == 1 { "" } else { "s" }),
    };
    Err(error(
        codes::E_EVAL_002,
        format!("`{name}` takes {expected}, got {n}"),
        site.span,
    ))
}

/// A wrong-type error pointing at argument `i`.
pub fn wrong_type(name: &str, expected: &str, value: &Value, site: &Site, i: usize) -> Flow {
    Flow::from(
        Diagnostic::error(
            codes::E_EVAL_003,
            format!("`{name}` expects {expected}, got {}", value.type_name()),
        )
        .with_primary(site.arg(i), format!("this is `{}`", short(value))),
    )
}

/// A special form written in the wrong shape (`E-EVAL-005`), with its usage.
pub fn malformed(what: &str, usage: &str, span: Span) -> Flow {
    Flow::from(
        Diagnostic::error(codes::E_EVAL_005, format!("malformed `{what}`"))
            .with_primary(span, "")
            .with_help(format!("write it as `{usage}`")),
    )
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

/// The interpreter: globals, sources (for operand text in messages), what
/// the layers above registered (with their state), and the host it prints
/// through. A bare one knows no special form and no builtin.
pub struct Interp {
    pub sources: SourceMap,
    pub(crate) globals: HashMap<Rc<str>, Value>,
    pub(crate) host: Box<dyn Host>,
    pub(crate) mode: Mode,
    /// The library whose code is running (`nn`), so its definitions and
    /// lookups go to `nn/name` first.
    pub(crate) namespace: Option<Rc<str>>,
    /// Whether the code running now is the prelude's or a built-in
    /// library's (`Lambda::library`).
    pub(crate) in_library: bool,
    /// The files of the prelude and the built-in libraries, as loaded.
    pub(crate) library_files: Vec<diag::FileId>,
    /// The globals as the session installed them (builtins, prelude):
    /// library code resolves free names here before the user's globals,
    /// so a user's `(def dtype :bf16)` cannot break `nn/attention`.
    core: HashMap<Rc<str>, Value>,
    registry: Registry,
    depth: usize,
    /// Forms evaluated so far, and how many may be (`DEFAULT_STEP_LIMIT`).
    steps: u64,
    step_limit: u64,
    /// An editor's time budget and record of tensors (`watch`), when it asked.
    pub(crate) watch: Option<Box<watch::Watch>>,
}

impl Interp {
    pub fn new(mode: Mode, host: Box<dyn Host>) -> Interp {
        Interp {
            sources: SourceMap::new(),
            globals: HashMap::new(),
            host,
            mode,
            namespace: None,
            in_library: false,
            library_files: Vec::new(),
            core: HashMap::new(),
            registry: Registry::default(),
            depth: 0,
            steps: 0,
            step_limit: STEP_LIMIT.load(std::sync::atomic::Ordering::Relaxed),
            watch: None,
        }
    }

    /// Forms evaluated so far.
    pub(crate) fn steps(&self) -> u64 {
        self.steps
    }

    /// Sets how many forms host code may evaluate from now on.
    pub fn set_step_limit(&mut self, steps: u64) {
        self.step_limit = steps;
        self.steps = 0;
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

    /// Freezes the globals defined so far as the ones library code sees
    /// (called once every layer and the prelude are installed).
    pub fn seal_core(&mut self) {
        self.core = self.globals.clone();
    }

    /// Whether `name` is one of the globals the session installed (a
    /// builtin, a special form's helper, the prelude's), as `seal_core` froze them.
    pub(crate) fn is_core(&self, name: &str) -> bool {
        self.core.contains_key(name)
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
                if let Some(name) = self.defined_name(form) {
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

    /// The name a top-level definition form defines, so a failed one can be poisoned.
    fn defined_name<'f>(&self, form: &'f Form) -> Option<&'f str> {
        let FormKind::List(items) = &form.kind else {
            return None;
        };
        let special = self.registry.special(items.first()?.as_symbol()?)?;
        if special.defines {
            items.get(1)?.as_symbol()
        } else {
            None
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
            FormKind::Symbol(name) => {
                let value = self.lookup(name, form.span, env)?;
                self.observe(form.span, &value);
                Ok(value)
            }
            FormKind::Vector(items) => Ok(Value::vector(self.eval_all(items, env, ctx)?)),
            FormKind::Map(items) => {
                let values = self.eval_all(items, env, ctx)?;
                let mut map: Vec<(Value, Value)> = Vec::new();
                for kv in values.chunks(2) {
                    map_insert(&mut map, kv[0].clone(), kv[1].clone());
                }
                Ok(Value::Map(Rc::new(map)))
            }
            FormKind::List(items) if items.is_empty() => Ok(Value::list(Vec::new())),
            FormKind::List(items) => {
                self.enter(form.span)?;
                let result = self.eval_list(form, items, env, ctx);
                self.depth -= 1;
                if let Ok(value) = &result {
                    self.observe(form.span, value);
                }
                result
            }
        }
    }

    /// Shows an editor what the form at `span` evaluated to, if one watches.
    #[inline]
    fn observe(&mut self, span: Span, value: &Value) {
        if let Some(watch) = &mut self.watch {
            watch.observe(span, value);
        }
    }

    /// Stops an editor's evaluation whose time is spent: its diagnostic
    /// now, and quiet failures after it, as past the step limit.
    #[cold]
    fn out_of_time(&mut self, span: Span) -> EvalResult<()> {
        let Some(watch) = &mut self.watch else {
            return Ok(());
        };
        match watch.poll(&mut *self.host, span) {
            Ok(()) => Ok(()),
            Err(flow) => {
                self.step_limit = self.steps.saturating_sub(1);
                Err(flow)
            }
        }
    }

    fn enter(&mut self, span: Span) -> EvalResult<()> {
        self.steps += 1;
        if self.watch.is_some() && self.steps.is_multiple_of(watch::STEPS_PER_POLL) {
            self.out_of_time(span)?;
        }
        if self.steps > self.step_limit {
            // Told once; what runs after it stops quietly.
            if self.steps > self.step_limit + 1 {
                return Err(Flow::Silent);
            }
            return Err(Flow::from(
                Diagnostic::error(
                    codes::E_EVAL_014,
                    format!("host code ran past {} steps", self.step_limit),
                )
                .with_primary(span, "still evaluating this")
                .with_note("a loop that never ends, or host work that belongs in a tensor")
                .with_help(
                    "raise the limit with `--max-steps N` if the work is meant to be that long",
                ),
            ));
        }
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
                if let Some(special) = self.registry.special(name) {
                    let args = &items[1..];
                    let name = special.name;
                    return (special.eval)(self, &SpecialUse { name, args, form }, env, ctx);
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
        let mut spans = Spans::default();
        let values: Vec<Value> = args
            .iter()
            .map(|a| Value::from_form_spanned(a, &mut spans))
            .collect();
        // `values` stays alive until the expansion is code, as `Spans` needs.
        let result = self.call_lambda(m, values.clone(), &Site::bare(span))?;
        result.to_form_spanned(span, &spans).ok_or_else(|| {
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
        let core = || self.in_library.then(|| self.core.get(name)).flatten();
        let found = env
            .lookup(name)
            .or(in_namespace)
            .or_else(core)
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
        if let Some(help) = self.registry.hints.iter().find_map(|hint| hint(self, name)) {
            return Flow::from(d.with_help(help));
        }
        let candidates = env
            .names()
            .into_iter()
            .chain(self.globals.keys().cloned())
            .chain(self.registry.specials.iter().map(|s| Rc::from(s.name)));
        if let Some(best) = diag::closest(name, candidates) {
            d = d.with_help(format!("did you mean `{best}`?"));
        }
        Flow::from(d)
    }

    /// Calls any callable value with evaluated arguments.
    pub fn apply(&mut self, f: &Value, args: Vec<Value>, site: &Site) -> EvalResult {
        match f {
            Value::Builtin { id, .. } => {
                let builtin = self.registry.builtins[id.0 as usize];
                builtin.call(self, site, args)
            }
            Value::Fn(lambda) => self.call_lambda(lambda, args, site),
            Value::Graph(g) => match self.registry.graph_call {
                Some(call) => call(self, g, args, site),
                None => Err(not_a_function(f, site)),
            },
            Value::Keyword(_) | Value::Map(_) => {
                if args.is_empty() || args.len() > 2 {
                    return Err(error(
                        codes::E_EVAL_002,
                        format!(
                            "{} as a function takes 1 or 2 arguments, got {}",
                            f.type_name(),
                            args.len()
                        ),
                        site.span,
                    ));
                }
                let (map, key) = if let Value::Map(_) = f {
                    (f, &args[0])
                } else {
                    (&args[0], f)
                };
                Ok(map
                    .map_get(key)
                    .unwrap_or_else(|| args.get(1).cloned().unwrap_or(Value::Nil)))
            }
            Value::Vector(items) => match &args[..] {
                [Value::Int(i)] => usize::try_from(*i)
                    .ok()
                    .and_then(|i| items.get(i).cloned())
                    .ok_or_else(|| {
                        error(
                            codes::E_EVAL_010,
                            format!(
                                "index {i} out of range for a vector of {} elements",
                                items.len()
                            ),
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
                format!(
                    "macro `{}` cannot be passed around as a function",
                    m.name.as_deref().unwrap_or("?")
                ),
                site.span,
            )),
            other => Err(not_a_function(other, site)),
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
        let outer_library = std::mem::replace(&mut self.in_library, lambda.library);
        let result = loop {
            let (env, body) = match pattern::bind_params(self, lambda, args, site) {
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
        self.in_library = outer_library;
        self.depth -= 1;
        match (result, &lambda.namespace) {
            (Err(Flow::Error(d)), Some(ns))
                if self.namespace.is_none()
                    && !d
                        .primary
                        .as_ref()
                        .is_some_and(|p| within(p.span, site.span)) =>
            {
                let name = lambda.name.as_deref().unwrap_or("fn");
                Err(Flow::from(self.at_user_call(*d, site, ns, name)))
            }
            (result, _) => result,
        }
    }

    /// A mistake inside library code, seen from the user's call of library
    /// function `ns/name`: the call is the primary span, and the library's
    /// line where it was found a secondary one. A mistake the library
    /// reports at the user's own code (an argument's definition) keeps its
    /// place, with the call beside it.
    fn at_user_call(&self, mut d: Diagnostic, site: &Site, ns: &str, name: &str) -> Diagnostic {
        let call = format!("in this call of `{ns}/{name}`");
        match d.primary.take() {
            Some(inner) if self.library_files.contains(&inner.span.file) => {
                d.primary = Some(diag::Label {
                    span: site.span,
                    message: call,
                });
                let message = if inner.message.is_empty() {
                    "found here, in the library".to_string()
                } else {
                    format!("found here, in the library: {}", inner.message)
                };
                d.secondary.insert(
                    0,
                    diag::Label {
                        span: inner.span,
                        message,
                    },
                );
            }
            primary => {
                d.primary = primary;
                d.secondary.push(diag::Label {
                    span: site.span,
                    message: call,
                });
            }
        }
        d
    }

    pub fn print(&mut self, text: &str) {
        if self.mode == Mode::Run {
            self.host.print(text);
        }
    }
}

/// `E-EVAL-006` for calling a value that cannot be called.
fn not_a_function(value: &Value, site: &Site) -> Flow {
    Flow::from(
        Diagnostic::error(codes::E_EVAL_006, format!("{} is not a function", value.type_name()))
            .with_primary(site.span, format!("calls `{}`", short(value)))
            .with_help("the first element of a list is the function to call; quote the list to keep it as data: `'(1 2 3)`"),
    )
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
