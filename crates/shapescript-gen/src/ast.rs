//! A generated program as a tree the generator, the minimiser and the
//! mutator share: declarations, statements and expressions, each
//! expression with the type the generator intends for it. Plain data;
//! `print_ss` writes it as ShapeScript and `print_py` as the independent
//! PyTorch reference.

use crate::size::Size;
use crate::ty::{Axis, Dt, Ty, TT};

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl Bin {
    pub fn ss(self) -> &'static str {
        match self {
            Bin::Add => "+",
            Bin::Sub => "-",
            Bin::Mul => "*",
            Bin::Div => "/",
            Bin::Pow => "**",
            Bin::Lt => "<",
            Bin::Gt => ">",
            Bin::Le => "<=",
            Bin::Ge => ">=",
            Bin::Eq => "==",
            Bin::Ne => "!=",
            Bin::And => "and",
            Bin::Or => "or",
        }
    }

    /// Binding strength in ShapeScript, loosest 1 (`docs/shapescript/functions.md`).
    pub fn prec(self) -> u8 {
        match self {
            Bin::Or => 1,
            Bin::And => 2,
            Bin::Lt | Bin::Gt | Bin::Le | Bin::Ge | Bin::Eq | Bin::Ne => 4,
            Bin::Add | Bin::Sub => 5,
            Bin::Mul | Bin::Div => 6,
            Bin::Pow => 9,
        }
    }

    pub fn is_compare(self) -> bool {
        matches!(
            self,
            Bin::Lt | Bin::Gt | Bin::Le | Bin::Ge | Bin::Eq | Bin::Ne
        )
    }
}

/// Where each axis of an operand goes in a broadcast result of `rank`
/// axes (`None` for a Python number): the generator's own pairing by name.
pub type Align = Option<Vec<usize>>;

/// One entry of an index `x[...]`.
#[derive(Clone, Debug, PartialEq)]
pub enum Ix {
    At(i64),
    Slice {
        start: Option<i64>,
        stop: Option<i64>,
        step: Option<i64>,
    },
    NewAxis,
    Ellipsis,
}

impl Ix {
    /// The entry as written, with `none` spelled as the language spells it
    /// (`none` in ShapeScript, `None` in Python).
    pub fn text(&self, none: &str) -> String {
        match self {
            Ix::At(i) => i.to_string(),
            Ix::NewAxis => none.into(),
            Ix::Ellipsis => "...".into(),
            Ix::Slice { start, stop, step } => {
                let s = |v: &Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
                match step {
                    Some(st) => format!("{}:{}:{st}", s(start), s(stop)),
                    None => format!("{}:{}", s(start), s(stop)),
                }
            }
        }
    }
}

/// A reshape/permute plan of `rearrange`, `repeat` and `reduce`, in the
/// generator's terms: split the input into elementary sizes, reduce some,
/// permute, insert new axes, merge to the output.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub split: Vec<Size>,
    /// `(op, positions in split)`: reduced before the permute.
    pub reduce: Option<(String, Vec<usize>)>,
    /// For each elementary output axis: an index into `split`, or a new
    /// axis of the size in `expand` at the same index.
    pub order: Vec<Option<usize>>,
    pub expand: Vec<Size>,
    pub merge: Vec<Size>,
}

/// What an expression does; its operands are `Expr::args`.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A parameter, `let`, loop variable or `self`.
    Var(String),
    /// A dim or generic axis used as a number.
    SizeVal(Size),
    Float(f64),
    Int(i64),
    Bool(bool),
    Neg,
    Not,
    Bin(Bin, [Align; 2]),
    /// `a @ b`; the reference's einsum equation.
    MatMul(String),
    /// A prelude function of one argument (`exp`).
    Math(&'static str),
    /// `sum mean prod max min logsumexp var std any all` over axes, by name
    /// (empty: every axis); `dims` their positions.
    Reduce {
        f: &'static str,
        over: Vec<String>,
        dims: Vec<usize>,
    },
    /// `softmax log_softmax cumsum sort argmax argmin` over one axis.
    AxisWise {
        f: &'static str,
        over: String,
        dim: usize,
    },
    /// `topk(x, k, over=n)`: a tuple.
    Topk {
        k: i64,
        over: String,
        dim: usize,
    },
    /// `where(c, a, b)` with each operand's alignment.
    Where([Align; 3]),
    Abs,
    Sign,
    Clamp {
        lo: Option<f64>,
        hi: Option<f64>,
    },
    /// `maximum`/`minimum` of two tensors.
    Extreme(&'static str, [Align; 2]),
    Concat {
        over: String,
        dim: usize,
    },
    Stack,
    Take {
        over: String,
        dim: usize,
    },
    /// `clamp(ids, lo=0, hi=3)`: whole bounds, so integers stay integers.
    ClampInt {
        lo: Option<i64>,
        hi: Option<i64>,
    },
    /// `x[:, ids]`: integer ids pick positions of axis `dim`.
    Pick {
        dim: usize,
    },
    OneHot(Size),
    /// `zeros ones full` of a shape, in dtype `Dt` (the body's float dtype).
    Fill {
        value: f64,
        axes: Vec<Axis>,
        dt: Dt,
    },
    Arange(Size),
    Tril,
    Triu,
    /// `rearrange/repeat/reduce(x, [lhs] -> [rhs], kw=...)`.
    Pattern {
        f: &'static str,
        lhs: String,
        rhs: String,
        kw: Vec<(String, String)>,
        reduce: Option<&'static str>,
        plan: Layout,
    },
    /// `einsum(a, b, [..], [..] -> [..])`: the written pattern and the
    /// reference's equation.
    Einsum {
        pattern: String,
        equation: String,
    },
    Index(Vec<Ix>),
    /// `x[mask]`.
    Mask,
    /// `e as T`, `e to T` (a written type); `to` also the reference's
    /// conversion.
    As(String),
    To {
        ty: String,
        conv: Conv,
    },
    /// A call of a generated function or method: its name, the sizes its
    /// generic axes take in the caller's terms, and the float dtype it
    /// runs in.
    Call {
        name: String,
        bind: Vec<(String, Size)>,
        float: Dt,
    },
    /// `recv.method(args)`: `args[0]` is the receiver (a model); `model`
    /// the model's name, `method` the method's (`forward` for `m(x)`).
    Method {
        model: String,
        method: String,
        bind: Vec<(String, Size)>,
        float: Dt,
        sugar: bool,
    },
    /// `base.name` of a record or model.
    Field(String),
    /// `R(a=.., b=..)`: field names in order.
    Record(String, Vec<String>),
    /// `stack[i]` of a model stack.
    StackItem(i64),
    /// A call of a layer of the nn prelude or of one of the program's
    /// extern fns (`conv1d(x, w, stride=2)`, `roll_(x, 1, dims=n)`): its
    /// name, the function the reference calls (`harness.py`'s `_nn`) and
    /// its keyword arguments.
    Nn {
        f: String,
        torch: &'static str,
        kw: Vec<(String, Kw)>,
    },
    Tuple,
}

/// A keyword argument of an nn call.
#[derive(Clone, Debug, PartialEq)]
pub enum Kw {
    /// A `Size[S]` known before the program runs.
    Size(Size),
    Bool(bool),
    Float(f64),
    /// An `Axis[n]`: the axis's name, and its position for the reference.
    Axis(String, usize),
}

/// What a `to` does, for the reference.
#[derive(Clone, Debug, PartialEq)]
pub enum Conv {
    Dtype(Dt),
    Clamp(Option<f64>, Option<f64>),
    Reshape(Vec<Size>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub op: Op,
    pub args: Vec<Expr>,
    pub ty: Ty,
}

impl Expr {
    pub fn leaf(op: Op, ty: Ty) -> Expr {
        Expr {
            op,
            args: Vec::new(),
            ty,
        }
    }

    pub fn new(op: Op, args: Vec<Expr>, ty: Ty) -> Expr {
        Expr { op, args, ty }
    }

    pub fn tensor(&self) -> Option<&TT> {
        self.ty.tensor()
    }

    /// Every node, this one first.
    pub fn walk<'a>(&'a self, out: &mut Vec<&'a Expr>) {
        out.push(self);
        for a in &self.args {
            a.walk(out);
        }
    }

    /// Counts the nodes.
    pub fn size(&self) -> usize {
        1 + self.args.iter().map(Expr::size).sum::<usize>()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Let {
        name: String,
        annot: Option<Ty>,
        value: Expr,
    },
    LetTuple {
        names: Vec<String>,
        value: Expr,
    },
    Assign {
        name: String,
        value: Expr,
    },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
    },
    /// `for var in range(count)` or, with `stack`, `for var in stack`.
    For {
        var: String,
        iter: Expr,
        over_stack: bool,
        body: Vec<Stmt>,
    },
    Return(Expr),
}

impl Stmt {
    /// A `for`'s variable, what it goes over as written (the stack, or
    /// `range(count)`, with `text` for the expression) and its body.
    pub fn loop_parts<'a>(
        &'a self,
        text: &dyn Fn(&Expr) -> String,
    ) -> Option<(&'a str, String, &'a [Stmt])> {
        let Stmt::For {
            var,
            iter,
            over_stack,
            body,
        } = self
        else {
            return None;
        };
        let it = if *over_stack {
            text(iter)
        } else {
            format!("range({})", text(iter))
        };
        Some((var, it, body))
    }
}

/// A parameter: its name and type.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
}

/// A function or method.
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    pub name: String,
    pub params: Vec<Param>,
    pub ret: Ty,
    pub body: Vec<Stmt>,
    pub tail: Expr,
    /// The float dtype of its dtype-less tensors: `F`, or the one
    /// concrete float dtype of its tensors.
    pub float: Dt,
    /// Its generic axes, each introduced by a parameter's axis.
    pub generics: Vec<String>,
    /// Its results depend on comparisons of computed floats (`argmax`,
    /// `>`, `sort`), so low-precision runs compare no values.
    pub discontinuous: bool,
}

/// A model's field.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    Tensor(String, TT),
    /// A sub-model with size arguments.
    Sub(String, String, Vec<Size>),
    /// `[count] Model`.
    Stack(String, i64, String),
    /// `buffer name: T = value`: computed when the model is made, from
    /// dims and the model's sizes.
    Buffer(String, TT, Box<Expr>),
}

impl Func {
    /// Every expression its statements (nested ones too) and value hold,
    /// in source order, to change in place.
    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        fn stmts<'a>(list: &'a mut [Stmt], out: &mut Vec<&'a mut Expr>) {
            for s in list {
                match s {
                    Stmt::Let { value, .. }
                    | Stmt::LetTuple { value, .. }
                    | Stmt::Assign { value, .. }
                    | Stmt::Return(value) => out.push(value),
                    Stmt::If { cond, then, els } => {
                        out.push(cond);
                        stmts(then, out);
                        if let Some(e) = els {
                            stmts(e, out);
                        }
                    }
                    Stmt::For { iter, body, .. } => {
                        out.push(iter);
                        stmts(body, out);
                    }
                }
            }
        }
        let mut out = Vec::new();
        stmts(&mut self.body, &mut out);
        out.push(&mut self.tail);
        out
    }

    /// A copy of every expression `exprs_mut` gives.
    pub fn exprs(&self) -> Vec<Expr> {
        let mut f = self.clone();
        f.exprs_mut().into_iter().map(|e| e.clone()).collect()
    }

    /// Calls `visit` on every expression node, each expression's outermost first.
    pub fn for_each_node(&self, visit: impl FnMut(&Expr)) {
        let all = self.exprs();
        let mut nodes = Vec::new();
        for e in &all {
            e.walk(&mut nodes);
        }
        nodes.into_iter().for_each(visit);
    }

    /// Whether some expression node passes `test`.
    pub fn any_node(&self, test: impl Fn(&Expr) -> bool) -> bool {
        let mut found = false;
        self.for_each_node(|e| found = found || test(e));
        found
    }

    /// The names of the functions it calls.
    pub fn callees(&self) -> Vec<String> {
        let mut names = Vec::new();
        self.for_each_node(|e| {
            if let Op::Call { name, .. } = &e.op {
                names.push(name.clone());
            }
        });
        names
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub name: String,
    pub size_params: Vec<String>,
    pub fields: Vec<Field>,
    pub methods: Vec<Func>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub name: String,
    pub fields: Vec<(String, TT)>,
}

/// A whole generated program: one `.ss` file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    pub dims: Vec<(String, i64)>,
    pub records: Vec<Record>,
    pub models: Vec<Model>,
    pub funcs: Vec<Func>,
    /// The functions and methods the harness calls (`(model, name)`, model
    /// empty for a function), the others being called by them.
    pub entries: Vec<(String, String)>,
    /// `extern fn` declarations, as written, with their names.
    pub externs: Vec<(String, String)>,
    /// Values the generator made as zeros for want of anything that fits,
    /// claiming a domain 0 is outside of (`gen::float`'s last resort): a
    /// rejection of such a program is the generator's mistake.
    pub unfit: usize,
}

impl Program {
    pub fn dim(&self, name: &str) -> Option<i64> {
        self.dims.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    pub fn func(&self, name: &str) -> Option<&Func> {
        self.funcs.iter().find(|f| f.name == name)
    }

    pub fn model(&self, name: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.name == name)
    }

    pub fn record(&self, name: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.name == name)
    }
}
