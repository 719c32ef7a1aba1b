//! The operations a graph node can hold, with the names the IR prints and the
//! symbols messages use; holds no shape rules (those are in `build`) and no
//! arithmetic (that is in `exec`).

use crate::dtype::Scalar;
use crate::tensor::Tensor;

/// Elementwise functions of one tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Abs,
    Sqrt,
    Rsqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tanh,
    Acos,
    Asin,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 11] = [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Sqrt,
        UnaryOp::Rsqrt,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tanh,
        UnaryOp::Acos,
        UnaryOp::Asin,
    ];

    /// The builtin's name, used both in messages and in the IR.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Abs => "abs",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Acos => "acos",
            UnaryOp::Asin => "asin",
        }
    }

    /// `neg` and `abs` also take integers (seed); the rest only floats.
    pub fn accepts_integers(self) -> bool {
        matches!(self, UnaryOp::Neg | UnaryOp::Abs)
    }
}

/// Elementwise functions of two tensors of one dtype, broadcast to one shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Maximum,
    Minimum,
    Atan2,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 8] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::Atan2,
    ];

    /// The name the IR prints.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Pow => "pow",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
            BinaryOp::Atan2 => "atan2",
        }
    }

    /// The builtin as the user writes it, for messages: `+`, `pow`.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            other => other.name(),
        }
    }

    /// `/`, `pow` and `atan2` are float-only: integer division and integer
    /// powers have several reasonable meanings, so the user casts and chooses.
    pub fn accepts_integers(self) -> bool {
        !matches!(self, BinaryOp::Div | BinaryOp::Pow | BinaryOp::Atan2)
    }
}

/// The six comparisons; the result is `bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CompareOp {
    pub const ALL: [CompareOp; 6] = [
        CompareOp::Eq,
        CompareOp::Ne,
        CompareOp::Lt,
        CompareOp::Le,
        CompareOp::Gt,
        CompareOp::Ge,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
        }
    }

    /// Clojure's spelling, for messages.
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "=",
            CompareOp::Ne => "not=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
        }
    }
}

/// Reductions over a set of axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Max,
}

impl ReduceOp {
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Max => "max",
        }
    }
}

/// What a node computes. Inputs live on the node; this holds only attributes.
/// Invariants the builders guarantee (so executors need not re-check):
/// elementwise nodes have inputs of exactly the node's shape (broadcasts are
/// explicit nodes), axes are normalised to `0..rank`, `matmul` operands have
/// rank >= 2 and equal batch dims.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A graph input, bound by position when the graph runs.
    Input {
        name: String,
    },
    /// A parameter, bound by position like an input; listed separately in the IR.
    Param {
        name: String,
    },
    /// Literal data written in the program.
    Constant {
        value: Tensor,
    },
    /// One value repeated over the node's shape (`zeros`, `ones`, `full`, numbers mixed with tensors).
    Full {
        value: Scalar,
    },
    /// Indices along `axis`.
    Iota {
        axis: usize,
    },
    /// Normal samples from the node's own random stream.
    Normal {
        mean: f64,
        std: f64,
        stream: u32,
    },
    /// Uniform samples in `[low, high)` from the node's own random stream.
    Uniform {
        low: f64,
        high: f64,
        stream: u32,
    },
    Unary(UnaryOp),
    Binary(BinaryOp),
    Compare(CompareOp),
    /// `mask`, `a`, `b`, all of the node's shape.
    Where,
    /// Converts to the node's dtype.
    Cast,
    Reduce {
        op: ReduceOp,
        axes: Vec<usize>,
        keepdims: bool,
    },
    /// Same elements, the node's shape.
    Reshape,
    /// NumPy broadcast to the node's shape.
    Broadcast,
    Transpose {
        perm: Vec<usize>,
    },
    Slice {
        axis: usize,
        start: usize,
        stop: usize,
    },
    Concat {
        axis: usize,
    },
    Matmul,
    /// `table`, `ids`.
    Index,
    /// `base`, `ids`, `values`.
    IndexAdd,
    /// `x`, `idx`.
    Gather {
        axis: usize,
    },
    /// `base`, `idx`, `values`.
    ScatterAdd {
        axis: usize,
    },
    /// `a`, `b` of the node's shape.
    LinearScan {
        axis: usize,
        reverse: bool,
    },
}

impl Op {
    /// The op's name in the IR.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Input { .. } => "input",
            Op::Param { .. } => "param",
            Op::Constant { .. } => "constant",
            Op::Full { .. } => "full",
            Op::Iota { .. } => "iota",
            Op::Normal { .. } => "normal",
            Op::Uniform { .. } => "uniform",
            Op::Unary(u) => u.name(),
            Op::Binary(b) => b.name(),
            Op::Compare(c) => c.name(),
            Op::Where => "where",
            Op::Cast => "cast",
            Op::Reduce { op, .. } => op.name(),
            Op::Reshape => "reshape",
            Op::Broadcast => "broadcast",
            Op::Transpose { .. } => "transpose",
            Op::Slice { .. } => "slice",
            Op::Concat { .. } => "concat",
            Op::Matmul => "matmul",
            Op::Index => "index",
            Op::IndexAdd => "index-add",
            Op::Gather { .. } => "gather",
            Op::ScatterAdd { .. } => "scatter-add",
            Op::LinearScan { .. } => "linear-scan",
        }
    }
}
