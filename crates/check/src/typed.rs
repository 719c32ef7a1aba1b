//! The typed representation of checked bodies: for every function, method and
//! model, the type of each parameter, `let`, field and expression, and what
//! code generation needs to emit it (call bindings, broadcasting views, axis
//! positions, pattern lowering plans, run-time checks). Plain data filled by
//! `body`; never checks anything itself. Changes here are additive only:
//! `pygen` and `lsp` code against it.
//!
//! Finding things: every expression is keyed by its `Span` (the parser gives
//! each expression node its own span; a parenthesised expression is the inner
//! node). `Body::expr(span)` answers for any expression node of the syntax
//! tree that was checked; an expression that failed has type `TyKind::Error`.

use std::sync::OnceLock;

use syntax::Name;

use diag::{FileId, Span};

use crate::per_file::PerFile;
use crate::size::{Size, Symbol};
use crate::types::Ty;
use rustc_hash::FxHashMap as HashMap;

/// All checked bodies of a program, by owner.
#[derive(Debug, Default)]
pub struct Bodies {
    /// Top-level `fn`s and model methods, in source order per file.
    pub fns: Vec<Body>,
    /// Models and records with their checked fields.
    pub types: Vec<TypeDef>,
    /// `(owner model or "", fn name)` in its file to its index in `fns`.
    pub by_name: PerFile<(Name, Name), usize>,
    /// Per file, `(start, index in fns)` sorted by start, built on the
    /// first `expr` lookup: the editor asks for every name of a file, and a
    /// scan of every body per name would grow with the square of the file.
    pub by_start: OnceLock<HashMap<FileId, Vec<(u32, usize)>>>,
}

impl Bodies {
    /// The body of top-level fn `name` in `file`.
    pub fn function(&self, file: FileId, name: impl Into<Name>) -> Option<&Body> {
        let key = (Name::EMPTY, name.into());
        self.by_name.get(file, &key).map(|&i| &self.fns[i])
    }

    /// The body of method `name` of model `model` declared in `file`.
    pub fn method(
        &self,
        file: FileId,
        model: impl Into<Name>,
        name: impl Into<Name>,
    ) -> Option<&Body> {
        let key = (model.into(), name.into());
        self.by_name.get(file, &key).map(|&i| &self.fns[i])
    }

    /// The model or record `name` declared in `file`.
    pub fn type_def(&self, file: FileId, name: &str) -> Option<&TypeDef> {
        self.types
            .iter()
            .find(|t| t.file == file && &*t.name == name)
    }

    /// The expression at `span`, in whichever body holds it.
    pub fn expr(&self, span: Span) -> Option<&TypedExpr> {
        let by_start = self.by_start.get_or_init(|| {
            let mut map: HashMap<FileId, Vec<(u32, usize)>> = HashMap::default();
            for (i, b) in self.fns.iter().enumerate() {
                map.entry(b.file).or_default().push((b.span.start, i));
            }
            for list in map.values_mut() {
                list.sort_by_key(|&(start, i)| (start, i));
            }
            map
        });
        let list = by_start.get(&span.file)?;
        // Bodies don't nest: the holder is among those starting last before
        // `span` (several when a body was checked twice; the first answers).
        let end = list.partition_point(|&(start, _)| start <= span.start);
        let last = list[..end].last()?.0;
        list[..end]
            .iter()
            .rev()
            .take_while(|&&(start, _)| start == last)
            .map(|&(_, i)| &self.fns[i])
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .filter(|b| span.end <= b.span.end)
            .find_map(|b| b.expr(span))
    }
}

/// One checked `fn` or method.
#[derive(Debug)]
pub struct Body {
    pub file: FileId,
    /// The model for a method, else `None`.
    pub owner: Option<Name>,
    pub name: Name,
    /// The whole declaration.
    pub span: Span,
    /// Parameters in order (without `self`), with their declared types.
    pub params: Vec<Binding>,
    /// The declared return type; for a fn without one, the body's type.
    pub ret: Ty,
    /// How each generic axis is bound from the arguments on entry: the first
    /// place it appears, for the run-time boundary check (`docs/shapescript/python.md`).
    pub generics: Vec<GenericSource>,
    /// Every `let` (and loop variable), in source order, with its type.
    pub lets: Vec<Binding>,
    /// Every checked expression, in the order they were checked (children first).
    pub exprs: Vec<TypedExpr>,
    /// Span to index in `exprs`, built on the first lookup: the checker
    /// itself never needs it, and the command that only checks never asks.
    pub by_span: OnceLock<HashMap<Span, usize>>,
    /// The body's value doesn't fit the return type (reported); calls to it
    /// are typed as errors so the mistake is told once.
    pub return_mismatch: bool,
    /// Where the body's float dtype is read at run time: tensors without a
    /// dtype all have it (`docs/shapescript/functions.md`), so tensors made
    /// in the body (`zeros`, `eye`, `arange(n) to Real`) take it too and a
    /// bf16 model stays bf16. `None`: no such tensor (the default dtype).
    pub float_source: Option<FloatSource>,
    /// Without a `float_source`, the one concrete float dtype of the body's
    /// tensor parameters and its model's tensor fields, when they have
    /// exactly one, else PyTorch's default `f32`: float tensors made in the
    /// body have it (`ones` beside a bf16 `x` is bf16), so they mix with no
    /// other dtype. `None` when the body has a `float_source`
    /// (docs/shapescript/functions.md).
    pub made_dtype: Option<crate::types::DtypeKind>,
    /// Where tensors made in the body (`zeros`, `arange`) are put: the first
    /// tensor parameter, else in a method the model's first tensor field of
    /// any dtype, its own or a sub-model's, so they are on the module's
    /// device. `None`: the default device.
    pub device_source: Option<FloatSource>,
}

/// A tensor of the body to read `dtype` and `device` from: of its float
/// dtype for `Body::float_source`, of any dtype for `Body::device_source`.
#[derive(Clone, Debug, PartialEq)]
pub enum FloatSource {
    /// `params[i]`, a tensor parameter without a dtype.
    Param(usize),
    /// `self.a.b.name` or `self.blocks[0].w`: a model's tensor field, its
    /// own or a sub-model's, even one inside a stack (the path from `self`).
    Field(Vec<FieldStep>),
}

/// One step of a `FloatSource::Field` path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldStep {
    /// The field of this name.
    Named(Name),
    /// The first model of the stack reached so far (`[0]`).
    FirstOfStack,
}

impl Body {
    pub fn expr(&self, span: Span) -> Option<&TypedExpr> {
        self.expr_index(span).map(|i| &self.exprs[i])
    }

    /// Where the expression at `span` is in `exprs`.
    pub(crate) fn expr_index(&self, span: Span) -> Option<usize> {
        let by_span = self.by_span.get_or_init(|| {
            let mut map = HashMap::default();
            map.reserve(self.exprs.len());
            // A span checked twice answers with its last record.
            for (i, e) in self.exprs.iter().enumerate() {
                map.insert(e.span, i);
            }
            map
        });
        by_span.get(&span).copied()
    }

    /// The last expression recorded at `span`, for the checker while the
    /// body is still growing (the index is built only once it is done).
    /// It asks about arguments it just checked, so the search is short.
    pub(crate) fn recent_expr(&self, span: Span) -> Option<&TypedExpr> {
        self.exprs.iter().rev().find(|e| e.span == span)
    }
}

/// Where a generic axis's size is read from on entry: `params[param]`'s
/// axis `axis` (counted after aliases are replaced), divided by `factor`
/// for a grouped size (`16gh` gives factor 16), or taken from the `part`-th
/// part of a written group when the group's other parts are known.
#[derive(Clone, Debug)]
pub struct GenericSource {
    pub name: Name,
    pub param: usize,
    pub axis: usize,
    /// The axis's size is `factor * name + offset` (1 and 0 for a plain
    /// axis; `[n + 1]` reads `n` as the axis less 1, at least 1).
    pub factor: i128,
    pub offset: i128,
    /// The size of the axis in terms of the other generics; for a group
    /// `(h d)` with `h` known first, `d = size / h` (`divide_by`).
    pub divide_by: Option<Size>,
}

/// A named value: a parameter, `let`, loop variable or field.
#[derive(Clone, Debug)]
pub struct Binding {
    pub name: Name,
    /// The name where it is declared.
    pub span: Span,
    pub ty: Ty,
}

/// A model or record with its fields.
#[derive(Clone, Debug)]
pub struct TypeDef {
    pub file: FileId,
    pub name: Name,
    pub is_model: bool,
    /// A model's size parameters, in order.
    pub size_params: Vec<Name>,
    pub fields: Vec<FieldDef>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct FieldDef {
    pub name: Name,
    pub span: Span,
    pub ty: Ty,
    /// The initialiser for a tensor field (`docs/shapescript/models.md`), the default filled in.
    pub init: Option<Init>,
    /// `buffer name: T = expr`: non-trainable state, its value computed
    /// when the model is made; the expression is checked as the body of
    /// the method `(model, name)` in `Bodies::fns` (`Bodies::method`).
    pub buffer: bool,
    /// A model's number field's default (`eps: Float = 1e-5`,
    /// `docs/shapescript/models.md`): its constructor argument's default.
    /// `None` for any other field, and for a number field written without
    /// one (a required constructor argument).
    pub number_default: Option<NumberDefault>,
}

/// The literal default of a model's `Float`, `Int` or `Bool` field, its
/// sign applied (`eps: Float = 1e-5`, `n: Int = -1`, `causal: Bool = true`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumberDefault {
    Int(i128),
    Float(f64),
    Bool(bool),
}

/// A tensor field's initialiser, the arguments not written filled in with
/// their defaults (`docs/shapescript/models.md`).
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Zeros,
    Ones,
    Normal { mean: InitExpr, std: InitExpr },
    Uniform { lo: InitExpr, hi: InitExpr },
}

/// A number in an initialiser's argument (`normal(std=(2.0 / (Cin * K * K)) ** 0.5)`):
/// literals, dims and the model's size parameters, with `+ - * / **`,
/// negation and the functions of `InitFn`. Computed when the model is made,
/// as floats; parentheses make no node.
#[derive(Clone, Debug, PartialEq)]
pub enum InitExpr {
    Int(u128),
    Float(f64),
    /// A dim (`Symbol::Dim`) or a size parameter of the model (`Symbol::Generic`).
    Size(Symbol),
    Neg(Box<InitExpr>),
    Binary {
        op: InitOp,
        lhs: Box<InitExpr>,
        rhs: Box<InitExpr>,
    },
    Call {
        func: InitFn,
        arg: Box<InitExpr>,
    },
}

/// The arithmetic of an initialiser's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitOp {
    Add,
    Sub,
    Mul,
    /// True division: `1 / Cin` is a fraction, as in Python.
    Div,
    Pow,
}

/// The functions an initialiser's numbers may call, each of one number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitFn {
    Sqrt,
    Log,
    Exp,
}

impl InitFn {
    /// Every function, for messages and look-up by name.
    pub const ALL: [InitFn; 3] = [InitFn::Sqrt, InitFn::Log, InitFn::Exp];

    /// The name written in ShapeScript, which is also that of Python's `math`.
    pub fn name(self) -> &'static str {
        match self {
            InitFn::Sqrt => "sqrt",
            InitFn::Log => "log",
            InitFn::Exp => "exp",
        }
    }

    pub fn apply(self, x: f64) -> f64 {
        match self {
            InitFn::Sqrt => x.sqrt(),
            InitFn::Log => x.ln(),
            InitFn::Exp => x.exp(),
        }
    }
}

impl InitOp {
    pub fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            InitOp::Add => a + b,
            InitOp::Sub => a - b,
            InitOp::Mul => a * b,
            InitOp::Div => a / b,
            InitOp::Pow => a.powf(b),
        }
    }
}

impl InitExpr {
    /// The value, when every size in it has one (`size` gives a dim's;
    /// a size parameter has none until the model is made). Not finite for
    /// a division by 0 or the square root of a negative number.
    pub fn value(&self, size: &impl Fn(&Symbol) -> Option<f64>) -> Option<f64> {
        // As deep as the written expression: on a stack with room for it.
        syntax::ensure_sufficient_stack(|| match self {
            InitExpr::Int(v) => Some(*v as f64),
            InitExpr::Float(v) => Some(*v),
            InitExpr::Size(s) => size(s),
            InitExpr::Neg(e) => e.value(size).map(|v| -v),
            InitExpr::Binary { op, lhs, rhs } => Some(op.apply(lhs.value(size)?, rhs.value(size)?)),
            InitExpr::Call { func, arg } => arg.value(size).map(|v| func.apply(v)),
        })
    }

    /// A literal 0 (`mean=0`, the default), which the generated code leaves out.
    pub fn is_literal_zero(&self) -> bool {
        matches!(self, InitExpr::Int(0)) || matches!(self, InitExpr::Float(v) if *v == 0.0)
    }
}

/// A value range: the interval the values lie in, from the domains, the
/// constants and the operations that made the value
/// (`docs/shapescript/ranges.md`). An infinite end is always open.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub lo: f64,
    pub hi: f64,
    /// `(0, ...`: the end itself is not a value.
    pub lo_open: bool,
    pub hi_open: bool,
}

impl Range {
    /// The named domain this range is exactly (`Pos` for `(0, inf)`), if any.
    pub fn domain(&self) -> Option<crate::types::Domain> {
        use crate::types::Domain;
        let inf = f64::INFINITY;
        let ends = (self.lo, self.hi, self.lo_open, self.hi_open);
        Some(match ends {
            (lo, hi, true, true) if lo == -inf && hi == inf => Domain::Real,
            (lo, hi, false, true) if lo == 0.0 && hi == inf => Domain::NonNeg,
            (lo, hi, true, true) if lo == 0.0 && hi == inf => Domain::Pos,
            (lo, hi, true, false) if lo == -inf && hi == 0.0 => Domain::NonPos,
            (lo, hi, true, true) if lo == -inf && hi == 0.0 => Domain::Neg,
            (lo, hi, false, false) if lo == 0.0 && hi == 1.0 => Domain::Unit,
            (lo, hi, false, false) if lo == -1.0 && hi == 1.0 => Domain::Signed,
            _ => return None,
        })
    }
}

/// One end of a range for messages: `inf`, a whole number, a short float
/// as it is, and a long one (a float's grid value, `0.099609375`) to four
/// significant digits, rounded outward (`down` for a lower end) so the
/// range shown still holds every value.
fn show_end(v: f64, down: Option<bool>) -> String {
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    // The ends of i64's range, as the range pass keeps them in an f64.
    if v == -(2f64.powi(63)) {
        return "-2^63".to_string();
    }
    if v == 2f64.powi(63) - 1024.0 {
        return "2^63 - 1".to_string();
    }
    let plain = format!("{v:?}");
    let Some(down) = down.filter(|_| plain.len() > 9) else {
        return plain;
    };
    let exponent = v.abs().log10().floor() as i32;
    let scale = 10f64.powi(3 - exponent);
    let r = if down {
        (v * scale).floor()
    } else {
        (v * scale).ceil()
    } / scale;
    if (-4..6).contains(&exponent) {
        let decimals = (3 - exponent).max(0) as usize;
        let text = format!("{r:.decimals$}");
        let text = text.trim_end_matches('0').trim_end_matches('.');
        text.to_string()
    } else {
        format!("{r:.3e}")
    }
}

impl std::fmt::Display for Range {
    /// `[0, 1]`, `(0, inf)`, `[1e-5, inf)`; `{2}` for one number.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.lo == self.hi {
            return write!(f, "{{{}}}", show_end(self.lo, None));
        }
        let show = |v: f64| show_end(v, Some(v == self.lo));
        write!(
            f,
            "{}{}, {}{}",
            if self.lo_open { '(' } else { '[' },
            show(self.lo),
            show(self.hi),
            if self.hi_open { ')' } else { ']' }
        )
    }
}

/// One checked expression.
#[derive(Clone, Debug)]
pub struct TypedExpr {
    pub span: Span,
    /// Its type: shape with axis names and solved sizes, dtype (`None`: the
    /// call's float dtype), domain. `TyKind::Error` for a failed expression.
    pub ty: Ty,
    /// The value range of a tensor or number, when known: the domain's
    /// while the body is checked, then the range pass's (`ranges`).
    pub range: Option<Range>,
    pub info: ExprInfo,
}

/// What code generation needs beyond the type.
#[derive(Clone, Debug)]
pub enum ExprInfo {
    /// Literals, operators whose operands need no views, failed expressions.
    Plain,
    /// A parameter, `let` or loop variable: where it is declared.
    Local { decl: Span },
    /// A dim or generic axis used as a value (an Int at run time).
    SizeValue { size: Size },
    /// `self.name` or `record.name`: a field of the model or record
    /// `owner` declared in `file` (`self.training` of a model without a
    /// field of that name: its mode).
    Field {
        file: FileId,
        owner: Name,
        field: Name,
    },
    /// A call of a fn, extern fn, built-in, method, model or record.
    Call(Box<CallInfo>),
    /// An elementwise binary operator or `where`: how each operand's axes
    /// line up with the result's (`docs/shapescript/broadcasting.md`).
    Broadcast { operands: Vec<Alignment> },
    /// `a @ b`: how each operand lines up for PyTorch's `matmul`, over the
    /// result's batch axes (paired by name) and then the operand's own two
    /// matrix axes; `None` positions where PyTorch's right-aligned
    /// broadcasting already pairs them.
    MatMul { lhs: Alignment, rhs: Alignment },
    /// `x[...]`.
    Index(IndexPlan),
    /// `e as T`: the run-time check to emit.
    As(AsCheck),
    /// `e to T`: the conversion.
    To(ToPlan),
}

/// How one operand lines up with a result of rank `positions.len()`:
/// `positions[r]` is the operand's axis at result axis `r`, or `None` where
/// a new axis of size 1 is inserted (`s[:, :, None]`). Operand axes keep
/// their order, so the operand needs only `None` views, never a permute.
/// `None` positions for a scalar operand (a Python number).
#[derive(Clone, Debug, PartialEq)]
pub struct Alignment {
    pub positions: Option<Vec<Option<usize>>>,
}

impl Alignment {
    /// Whether PyTorch's own right-aligned broadcasting already does it.
    pub fn is_identity(&self) -> bool {
        match &self.positions {
            None => true,
            Some(p) => {
                let rank = p.iter().flatten().count();
                let first = p.len() - rank;
                p.iter().enumerate().all(|(r, slot)| {
                    if r < first {
                        slot.is_none()
                    } else {
                        *slot == Some(r - first)
                    }
                })
            }
        }
    }
}

/// Who is called.
#[derive(Clone, Debug)]
pub enum Callee {
    /// A `fn` declared in `file`.
    Fn { file: FileId, name: Name },
    /// An `extern fn`: the Python function to import and call.
    Extern {
        file: FileId,
        name: Name,
        python: Name,
    },
    /// A built-in operation (docs/shapescript/broadcasting.md).
    Builtin(crate::builtin_names::Builtin),
    /// A model's method; `m(x)` is `forward`.
    Method {
        file: FileId,
        model: Name,
        method: Name,
    },
    /// A record's construction `Stats(mean=..., std=...)`.
    Record { file: FileId, name: Name },
}

/// A checked call.
#[derive(Clone, Debug)]
pub struct CallInfo {
    pub callee: Callee,
    /// One per parameter of the callee, in parameter order.
    pub args: Vec<BoundArg>,
    /// The callee's generic axes as solved for this call, in the caller's
    /// terms (`gh = 14`).
    pub bindings: Vec<(Name, Size)>,
    /// Built-ins: the axis positions of `over=` in the first argument.
    pub over: Vec<usize>,
    /// Pattern built-ins: the lowering plan.
    pub pattern: Option<PatternPlan>,
    /// `where`, `maximum`, `minimum`: how each operand (in parameter order)
    /// lines up with the result, as for `ExprInfo::Broadcast`; empty for
    /// every other callee.
    pub operands: Vec<Alignment>,
}

/// One argument, bound to its parameter.
#[derive(Clone, Debug)]
pub enum BoundArg {
    /// The expression at this span (look its type up in the body).
    Expr { span: Span, keyword: bool },
    /// Left out: the parameter's default expression, as written in the callee.
    Default { span: Span },
    /// Left out with a `none` default: Python gets `None`.
    NoneDefault,
    /// An `Axis` argument: the axis's position in the first argument.
    Axis { position: usize },
    /// An `Axes` argument: a one-element list of the position.
    Axes { positions: Vec<usize> },
    /// A `Size` argument, worked out before the program runs.
    Size { value: Size },
    /// Left out in a method, where the parameter follows the model's mode:
    /// `self.training` (`dropout`'s `training=`, `docs/shapescript/models.md`).
    SelfTraining,
}

/// How to emit a pattern built-in with plain tensor operations (`docs/shapescript/patterns.md`).
#[derive(Clone, Debug)]
pub enum PatternPlan {
    /// `rearrange`/`reduce`/`repeat`: reshape the input into its elementary
    /// axes, permute, reduce or insert axes, expand, reshape to the output.
    Layout(LayoutPlan),
    /// `einsum`: the equation with one letter per axis name.
    Einsum { equation: String },
}

#[derive(Clone, Debug)]
pub struct LayoutPlan {
    /// The input split into its elementary axes (`[b c gh 16 gw 16]`).
    pub split: Vec<Size>,
    /// Axes of `split` to reduce (`reduce`), with the operation.
    pub reduce: Option<(Name, Vec<usize>)>,
    /// For each elementary output axis, its index in `split` (the axes of
    /// `split` not listed are the reduced ones); `None` entries are new axes
    /// (`repeat`) of the size in `expand` at the same index.
    pub order: Vec<Option<usize>>,
    /// The elementary output sizes (`[b gh gw c 16 16]`), for `expand`.
    pub expand: Vec<Size>,
    /// The output's sizes after grouping (`[b (gh gw) (c 16 16)]`).
    pub merge: Vec<Size>,
}

/// `x[...]`: per entry of the input's axes, what happens.
#[derive(Clone, Debug)]
pub enum IndexPlan {
    /// Integer indices and slices, positional as in NumPy.
    Basic,
    /// A Bool mask over the leading axes: the result's first axis is unknown.
    Mask,
}

/// `e as T`: verify at run time.
#[derive(Clone, Debug)]
pub struct AsCheck {
    /// Sizes to compare with `x.shape[i]`, per axis.
    pub shape: Option<Vec<Size>>,
    /// A domain bound to check (`Index[Ctx]` checks `0 <= x < Ctx`).
    pub range: Option<Range>,
    /// The line to name in the `ShapeError`.
    pub line: u32,
}

/// `e to T`: what to do, in order.
#[derive(Clone, Debug)]
pub struct ToPlan {
    pub cast: Option<crate::types::DtypeKind>,
    /// An integer or bool tensor converted to a float domain without a
    /// dtype (`arange(n) to Real`): cast to the body's float dtype
    /// (`Body::float_source`, the default float dtype without one).
    pub to_float: bool,
    pub clamp: Option<Range>,
    pub reshape: Option<Vec<Size>>,
}
