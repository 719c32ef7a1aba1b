//! The ShapeScript syntax tree: plain data, every node with a `diag::Span`.
//! Owns the shape of parsed programs; never resolves names or checks types
//! (a name in a type may be a dim, an axis, an alias or a model: the checker decides).

// Rarely used large parts (paths, sizes inside types, cast types, patterns)
// are boxed so the common nodes stay small: parsing speed is mostly memory
// traffic. The remaining size differences are kept for plain pattern matching.
#![allow(clippy::large_enum_variant)]

use diag::Span;

pub use crate::name::Name;

/// A name as written, with where it was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: Name,
    pub span: Span,
}

impl Ident {
    /// A name the parser could not find (already reported): it is empty and
    /// its span is empty. Name resolution and duplicate checks should skip it.
    pub fn is_missing(&self) -> bool {
        self.name.is_empty()
    }
}

/// `Name` or `file.Name`: a name, optionally qualified by an imported file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Path {
    /// The imported file's name in `file.Name`, `None` for a plain name.
    pub file: Option<Ident>,
    pub name: Ident,
    pub span: Span,
}

impl Path {
    /// A plain name as a path (no file), for code that handles both kinds of size name alike.
    pub fn plain(name: Ident) -> Path {
        Path {
            file: None,
            name,
            span: name.span,
        }
    }
}

/// An integer literal's value. Kept as two halves: a `u128` field is 16-byte
/// aligned, which padded every size and axis node holding one (or next to one).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct U128([u64; 2]);

impl U128 {
    pub const fn new(value: u128) -> U128 {
        U128([value as u64, (value >> 64) as u64])
    }

    pub const fn get(self) -> u128 {
        (self.0[1] as u128) << 64 | self.0[0] as u128
    }
}

impl From<u128> for U128 {
    fn from(value: u128) -> U128 {
        U128::new(value)
    }
}

impl std::fmt::Debug for U128 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.get(), f)
    }
}

impl std::fmt::Display for U128 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.get(), f)
    }
}

/// The `##` doc comment lines before a declaration or field, `##` and one
/// space stripped from each line, joined with `\n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc {
    pub text: String,
    pub span: Span,
}

/// One `.ss` file.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    pub items: Vec<Item>,
    pub span: Span,
}

/// A top-level declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Import(Import),
    Dim(Dim),
    ExternFn(ExternFn),
    Fn(Fn),
    Model(Model),
    Record(Record),
}

impl Item {
    pub fn span(&self) -> Span {
        match self {
            Item::Import(i) => i.span,
            Item::Dim(d) => d.span,
            Item::ExternFn(f) => f.span,
            Item::Fn(f) => f.span,
            Item::Model(m) => m.span,
            Item::Record(r) => r.span,
        }
    }

    /// The declared name (for `import vision`, the file name `vision`).
    pub fn name(&self) -> &Ident {
        match self {
            Item::Import(i) => &i.name,
            Item::Dim(d) => &d.name,
            Item::ExternFn(f) => &f.name,
            Item::Fn(f) => &f.name,
            Item::Model(m) => &m.name,
            Item::Record(r) => &r.name,
        }
    }

    pub fn doc(&self) -> Option<&Doc> {
        match self {
            Item::Import(i) => i.doc.as_deref(),
            Item::Dim(d) => d.doc.as_deref(),
            Item::ExternFn(f) => f.doc.as_deref(),
            Item::Fn(f) => f.doc.as_deref(),
            Item::Model(m) => m.doc.as_deref(),
            Item::Record(r) => r.doc.as_deref(),
        }
    }
}

/// `import vision`: the file `vision.ss`, whose declarations become `vision.name`.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    pub doc: Option<Box<Doc>>,
    pub name: Ident,
    pub span: Span,
}

/// `dim D = 768` or the shape alias `dim Images = [b 3 16gh 16gw]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dim {
    pub doc: Option<Box<Doc>>,
    pub name: Ident,
    pub value: DimValue,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DimValue {
    /// A constant size. A lone name here may still be another alias: the checker decides.
    Size(SizeExpr),
    /// A shape alias: the `[...]` list its name stands for.
    Alias(ShapeList),
}

/// `extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternFn {
    pub doc: Option<Box<Doc>>,
    pub name: Ident,
    pub params: Vec<Param>,
    /// `None` when left out; the checker reports E0308.
    pub ret: Option<Type>,
    /// The dotted Python name; `None` when left out (the checker reports E0308).
    pub python: Option<StrLit>,
    pub span: Span,
}

/// A string literal with escapes already applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrLit {
    pub value: String,
    pub span: Span,
}

/// `fn name(params) -> Ret { ... }` or `fn name(params) -> Ret = expr`; a method when `self_param` is set.
#[derive(Clone, Debug, PartialEq)]
pub struct Fn {
    pub doc: Option<Box<Doc>>,
    pub name: Ident,
    /// The span of a leading `self` parameter (methods of a model).
    pub self_param: Option<Span>,
    pub params: Vec<Param>,
    pub ret: Option<Type>,
    pub body: FnBody,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FnBody {
    Block(Block),
    /// `= expr`, a one-expression body.
    Expr(Expr),
}

/// `name: Type` or `name: Type = default`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub ty: Type,
    /// Boxed: few parameters have one, and every parameter is moved into its list.
    pub default: Option<Box<Expr>>,
    pub span: Span,
}

/// `model Mlp(Din, Dh) { fields and methods }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub doc: Option<Box<Doc>>,
    pub name: Ident,
    /// Size parameters: dims local to the model, bound at each use `Mlp(D, 4*D)`.
    pub size_params: Vec<Ident>,
    pub fields: Vec<Field>,
    pub methods: Vec<Fn>,
    pub span: Span,
}

/// `record Stats { mean: [n] Real, std: [n] NonNeg }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub doc: Option<Box<Doc>>,
    pub name: Ident,
    pub fields: Vec<Field>,
    pub span: Span,
}

/// A field of a model or record: `w1: [Din Dh] = normal(std=0.02)`,
/// `blocks: [L] Block` (a stack), `mlp: Mlp(D, 4*D)` (a sub-model).
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub doc: Option<Box<Doc>>,
    pub name: Ident,
    pub ty: Type,
    pub init: Option<Expr>,
    pub span: Span,
    /// `buffer name: Type = expr`: non-trainable state computed once when
    /// the model is made (`docs/shapescript/models.md`).
    pub buffer: bool,
}

/// `Expr::error(span)` and the like: the error node the parser leaves where
/// a part could not be read (and `depth` where it cut a tree too deep).
macro_rules! error_nodes {
    ($($node:ident($kind:ident)),*) => {$(
        impl $node {
            pub fn error(span: Span) -> $node {
                $node {
                    kind: $kind::Error,
                    span,
                }
            }
        }
    )*};
}

error_nodes!(Expr(ExprKind), Type(TypeKind), SizeExpr(SizeExprKind));

// ---------------------------------------------------------------- types

#[derive(Clone, Debug, PartialEq)]
pub struct Type {
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// A tensor type; at least one part is present. `[b n D] Signed bf16`,
    /// `Images Unit f32` (an alias as the shape), `Real`, `Unit f32`, `i64`.
    /// A bare `Bool` is `Scalar(Bool)`, not a domain-only tensor.
    Tensor {
        shape: Option<Shape>,
        /// Boxed: most tensor types name no domain, and types are moved by value.
        domain: Option<Box<Domain>>,
        dtype: Option<Dtype>,
    },
    /// `Int`, `Float`, `Bool`: Python values, not tensors.
    Scalar(Scalar),
    /// A bare name or `file.Name`, possibly with size arguments `Mlp(D, 4*D)`:
    /// a model, a record, or (without arguments) a shape alias. The checker decides.
    Named {
        path: Box<Path>,
        args: Vec<SizeExpr>,
    },
    /// `[L] Block`: `count` copies of a model (an `nn.ModuleList`).
    Stack {
        count: Box<SizeExpr>,
        elem: Box<Type>,
    },
    /// `(T, T, ...)`: several results.
    Tuple(Vec<Type>),
    /// `Axis[n]`: the name of an axis of the first argument, whose size is `n`.
    Axis(Box<SizeExpr>),
    /// `Axes[n]`: like `Axis[n]`, passed to Python as a one-element list.
    Axes(Box<SizeExpr>),
    /// `Size[S]`: a whole number known before the program runs.
    Size(Box<SizeExpr>),
    /// A type that failed to parse; its diagnostic was already reported.
    Error,
}

/// The `[...]` part of a tensor type, or an alias standing for one.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    List(ShapeList),
    /// `Images` or `vision.Images` followed by a domain or dtype.
    Alias(Box<Path>),
}

impl Shape {
    pub fn span(&self) -> Span {
        match self {
            Shape::List(l) => l.span,
            Shape::Alias(p) => p.span,
        }
    }
}

/// `[axis axis ...]`, brackets included in the span.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeList {
    pub axes: Vec<Axis>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub kind: AxisKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AxisKind {
    /// A size expression: `b`, `768`, `D`, `file.D`, `?k`, `3*D`,
    /// `(H + 2*P - kh)/S + 1`. A lone name may be an alias (checker decides).
    Size(SizeExpr),
    /// `(a b c)`: two or more juxtaposed axes, one axis whose size is their product.
    Group(Vec<Axis>),
    /// `16gh`: one axis of size 16 × gh, the group `(gh 16)`.
    Grouped { factor: U128, name: Ident },
    /// `...`: any number of other axes.
    Rest,
}

/// A size: a polynomial written with numbers, names, `+ - * /` and parentheses.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeExpr {
    pub kind: SizeExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SizeExprKind {
    Int(U128),
    /// A dim, generic axis, model size parameter or alias: `D`, `n`. Held
    /// inline (no box): most sizes are one plain name.
    Name(Ident),
    /// `vision.D`: a name from an imported file.
    Qualified(Box<Path>),
    /// `?k`: an unknown size.
    Unknown(Ident),
    /// The two operands share one box: one allocation per operator, not two.
    Binary {
        op: SizeOp,
        operands: Box<(SizeExpr, SizeExpr)>,
    },
    /// A size that failed to parse; its diagnostic was already reported.
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SizeOp {
    Add,
    Sub,
    Mul,
    Div,
    /// `n**2`: the exponent must come to a whole number at least 0.
    Pow,
}

impl SizeOp {
    pub fn as_str(self) -> &'static str {
        match self {
            SizeOp::Add => "+",
            SizeOp::Sub => "-",
            SizeOp::Mul => "*",
            SizeOp::Div => "/",
            SizeOp::Pow => "**",
        }
    }
}

impl SizeExprKind {
    /// A `Name` or `Qualified` size's name as a path (a plain name's has no file).
    pub fn path(&self) -> Option<Path> {
        match self {
            SizeExprKind::Name(name) => Some(Path::plain(*name)),
            SizeExprKind::Qualified(path) => Some((**path).clone()),
            _ => None,
        }
    }
}

/// A value range (`docs/shapescript/signatures.md`).
#[derive(Clone, Debug, PartialEq)]
pub struct Domain {
    pub kind: DomainKind,
    pub span: Span,
}

/// A domain's name; the checker's domains are the same over its lowered
/// sizes (`S`).
#[derive(Clone, Debug, PartialEq)]
pub enum DomainKind<S = SizeExpr> {
    Real,
    NonNeg,
    Pos,
    NonPos,
    Neg,
    Unit,
    Signed,
    Bool,
    /// `Index[N]`: integers in `[0, N)`.
    Index(Box<S>),
}

impl DomainKind {
    /// The domain named by a plain identifier (`Index[N]` takes a size, so it is not here).
    pub fn from_name(name: &str) -> Option<DomainKind> {
        Some(match name {
            "Real" => DomainKind::Real,
            "NonNeg" => DomainKind::NonNeg,
            "Pos" => DomainKind::Pos,
            "NonPos" => DomainKind::NonPos,
            "Neg" => DomainKind::Neg,
            "Unit" => DomainKind::Unit,
            "Signed" => DomainKind::Signed,
            "Bool" => DomainKind::Bool,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DtypeKind {
    F64,
    F32,
    F16,
    Bf16,
    I64,
    I32,
    Bool,
}

impl DtypeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DtypeKind::F64 => "f64",
            DtypeKind::F32 => "f32",
            DtypeKind::F16 => "f16",
            DtypeKind::Bf16 => "bf16",
            DtypeKind::I64 => "i64",
            DtypeKind::I32 => "i32",
            DtypeKind::Bool => "bool",
        }
    }

    pub fn from_name(name: &str) -> Option<DtypeKind> {
        Some(match name {
            "f64" => DtypeKind::F64,
            "f32" => DtypeKind::F32,
            "f16" => DtypeKind::F16,
            "bf16" => DtypeKind::Bf16,
            "i64" => DtypeKind::I64,
            "i32" => DtypeKind::I32,
            "bool" => DtypeKind::Bool,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dtype {
    pub kind: DtypeKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarKind {
    Int,
    Float,
    Bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    pub kind: ScalarKind,
    pub span: Span,
}

// ---------------------------------------------------------------- statements

/// `{ stmt; stmt; ... }`. The value of a block is its last statement when that is `Stmt::Expr`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `let name [: Type] = value`.
    Let {
        name: Ident,
        ty: Option<Type>,
        value: Expr,
    },
    /// `let (a, b, ...) = value`.
    LetTuple {
        names: Vec<Ident>,
        value: Expr,
    },
    /// `name = value`: rebinds an existing `let`.
    Assign {
        name: Ident,
        value: Expr,
    },
    Return(Expr),
    /// `if cond { ... } else { ... }`; `else if` is an else block holding one `If`.
    If {
        cond: Expr,
        then_block: Block,
        else_block: Option<Block>,
    },
    /// `for var in iter { ... }`.
    For {
        var: Ident,
        iter: Expr,
        body: Block,
    },
    Expr(Expr),
}

// ---------------------------------------------------------------- expressions

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(u128),
    Float(f64),
    Str(String),
    Bool(bool),
    None,
    /// A plain name. `file.Name` and `self.w1` are `Field` of a `Name`.
    Name(Ident),
    Field {
        base: Box<Expr>,
        name: Ident,
    },
    Call {
        callee: Box<Expr>,
        args: Vec<Arg>,
    },
    Index {
        base: Box<Expr>,
        indices: Vec<IndexArg>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `e as T` (a claim checked at run time) or `e to T` (a conversion).
    Cast {
        kind: CastKind,
        expr: Box<Expr>,
        ty: Box<Type>,
    },
    /// `(a, b)`.
    Tuple(Vec<Expr>),
    /// `(n D)`: two or more juxtaposed axis names, as in `over=(n D)`.
    AxisGroup(Vec<Ident>),
    /// `[lhs] -> [rhs]` or `[a], [b] -> [c]` in argument position (`docs/shapescript/patterns.md`).
    Pattern(Box<Pattern>),
    /// A `[...]` in argument position with no `->` after it, as in `zeros([n D])`.
    Shape(ShapeList),
    /// An expression that failed to parse; its diagnostic was already reported.
    Error,
}

/// An argument of a call: positional, or `key=value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: Option<Ident>,
    pub value: Expr,
    pub span: Span,
}

/// One entry of `x[...]`.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexArg {
    Expr(Expr),
    /// `a:b`, `:b`, `a:`, `:`, with an optional `:step`.
    Slice {
        start: Option<Box<Expr>>,
        end: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
        span: Span,
    },
    /// `...`: every axis the other entries don't take.
    Ellipsis(Span),
    /// `[0, 2]`: a list of integers, picking those positions along one axis.
    List {
        items: Vec<Expr>,
        span: Span,
    },
}

/// The axis names written in one side of a pattern (or any axis list), in
/// order, groups flattened: `[b (gh gw) c 16]` gives `b gh gw c`.
pub fn axis_names<'a>(axes: &'a [Axis], out: &mut Vec<&'a Ident>) {
    for axis in axes {
        match &axis.kind {
            AxisKind::Size(SizeExpr {
                kind: SizeExprKind::Name(name),
                ..
            }) => out.push(name),
            AxisKind::Grouped { name, .. } => out.push(name),
            AxisKind::Group(parts) => axis_names(parts, out),
            _ => {}
        }
    }
}

/// `[b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)]`; einsum has several left shapes.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    pub lhs: Vec<ShapeList>,
    pub rhs: ShapeList,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    MatMul,
    Pow,
}

impl BinaryOp {
    pub fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Or => "or",
            BinaryOp::And => "and",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::MatMul => "@",
            BinaryOp::Pow => "**",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastKind {
    As,
    To,
}

impl CastKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CastKind::As => "as",
            CastKind::To => "to",
        }
    }
}
