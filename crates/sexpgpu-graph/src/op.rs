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
    Sigmoid,
    Softplus,
    Log1p,
    Expm1,
    Erf,
    Sinh,
    Cosh,
    Tan,
    Atan,
    Asinh,
    Acosh,
    Atanh,
    Log2,
    Exp2,
    Log10,
    Floor,
    Ceil,
    Round,
    Trunc,
    Sign,
    /// The value unchanged, through which no gradient flows (JAX's
    /// `stop_gradient`, PyTorch's `detach`).
    StopGradient,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 32] = [
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
        UnaryOp::Sigmoid,
        UnaryOp::Softplus,
        UnaryOp::Log1p,
        UnaryOp::Expm1,
        UnaryOp::Erf,
        UnaryOp::Sinh,
        UnaryOp::Cosh,
        UnaryOp::Tan,
        UnaryOp::Atan,
        UnaryOp::Asinh,
        UnaryOp::Acosh,
        UnaryOp::Atanh,
        UnaryOp::Log2,
        UnaryOp::Exp2,
        UnaryOp::Log10,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Round,
        UnaryOp::Trunc,
        UnaryOp::Sign,
        UnaryOp::StopGradient,
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
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Softplus => "softplus",
            UnaryOp::Log1p => "log1p",
            UnaryOp::Expm1 => "expm1",
            UnaryOp::Erf => "erf",
            UnaryOp::Sinh => "sinh",
            UnaryOp::Cosh => "cosh",
            UnaryOp::Tan => "tan",
            UnaryOp::Atan => "atan",
            UnaryOp::Asinh => "asinh",
            UnaryOp::Acosh => "acosh",
            UnaryOp::Atanh => "atanh",
            UnaryOp::Log2 => "log2",
            UnaryOp::Exp2 => "exp2",
            UnaryOp::Log10 => "log10",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Round => "round",
            UnaryOp::Trunc => "trunc",
            UnaryOp::Sign => "sign",
            UnaryOp::StopGradient => "stop-gradient",
        }
    }

    /// `neg`, `abs` and `sign` also take integers (the rounding functions
    /// return an integer tensor as it is, without a node); the rest only floats.
    pub fn accepts_integers(self) -> bool {
        matches!(self, UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sign)
    }

    /// `floor ceil round trunc`: the identity on integers.
    pub fn is_rounding(self) -> bool {
        matches!(
            self,
            UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::Trunc
        )
    }

    /// The functions computed in f64 and rounded once to the node's dtype
    /// (`docs/sexpgpu/operations.md`), so that they are nearly always
    /// correctly rounded and the devices' libraries agree on them.
    pub fn in_f64(self) -> bool {
        matches!(
            self,
            UnaryOp::Sigmoid
                | UnaryOp::Softplus
                | UnaryOp::Log1p
                | UnaryOp::Expm1
                | UnaryOp::Erf
                | UnaryOp::Sinh
                | UnaryOp::Cosh
                | UnaryOp::Tan
                | UnaryOp::Atan
                | UnaryOp::Asinh
                | UnaryOp::Acosh
                | UnaryOp::Atanh
                | UnaryOp::Log2
                | UnaryOp::Exp2
                | UnaryOp::Log10
        )
    }

    /// The f64 value of the functions that [`UnaryOp::in_f64`] names (and of
    /// the exact ones, `floor ceil round trunc sign stop-gradient`); `None` for the
    /// original functions, which the executors compute in f32.
    pub fn f64_value(self, x: f64) -> Option<f64> {
        Some(match self {
            UnaryOp::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            // The stable form: max(x, 0) + log1p(exp(-|x|)).
            UnaryOp::Softplus => x.max(0.0) + (-x.abs()).exp().ln_1p(),
            UnaryOp::Log1p => x.ln_1p(),
            UnaryOp::Expm1 => x.exp_m1(),
            UnaryOp::Erf => libm::erf(x),
            UnaryOp::Sinh => x.sinh(),
            UnaryOp::Cosh => x.cosh(),
            UnaryOp::Tan => x.tan(),
            UnaryOp::Atan => x.atan(),
            UnaryOp::Asinh => x.asinh(),
            UnaryOp::Acosh => x.acosh(),
            UnaryOp::Atanh => x.atanh(),
            UnaryOp::Log2 => x.log2(),
            UnaryOp::Exp2 => x.exp2(),
            UnaryOp::Log10 => x.log10(),
            UnaryOp::Floor => x.floor(),
            UnaryOp::Ceil => x.ceil(),
            UnaryOp::Round => x.round_ties_even(),
            UnaryOp::Trunc => x.trunc(),
            // PyTorch's: 0 for zeros and NaN (`(0 < x) - (x < 0)`).
            UnaryOp::Sign => f64::from(u8::from(0.0 < x)) - f64::from(u8::from(x < 0.0)),
            UnaryOp::StopGradient => x,
            _ => return None,
        })
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
    /// Division rounded toward zero (`torch.div(rounding_mode="trunc")`).
    Quot,
    /// The remainder of `Quot`, with the dividend's sign (`torch.fmod`).
    Rem,
    /// Division rounded down (`torch.floor_divide`).
    FloorDiv,
    /// The remainder of `FloorDiv`, with the divisor's sign (`torch.remainder`).
    Mod,
    BitAnd,
    BitOr,
    BitXor,
    ShiftLeft,
    /// Arithmetic (sign-filling) shift.
    ShiftRight,
}

/// Which dtypes a binary operation takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operands {
    Floats,
    Numbers,
    Integers,
    IntegersOrBool,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 17] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::Atan2,
        BinaryOp::Quot,
        BinaryOp::Rem,
        BinaryOp::FloorDiv,
        BinaryOp::Mod,
        BinaryOp::BitAnd,
        BinaryOp::BitOr,
        BinaryOp::BitXor,
        BinaryOp::ShiftLeft,
        BinaryOp::ShiftRight,
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
            BinaryOp::Quot => "quot",
            BinaryOp::Rem => "rem",
            BinaryOp::FloorDiv => "floor-div",
            BinaryOp::Mod => "mod",
            BinaryOp::BitAnd => "bit-and",
            BinaryOp::BitOr => "bit-or",
            BinaryOp::BitXor => "bit-xor",
            BinaryOp::ShiftLeft => "shift-left",
            BinaryOp::ShiftRight => "shift-right",
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
        self.operands() != Operands::Floats
    }

    /// The dtypes the operation takes: the bitwise operations and shifts
    /// only integers (`bit-and bit-or bit-xor` also `bool`).
    pub fn operands(self) -> Operands {
        match self {
            BinaryOp::Div | BinaryOp::Pow | BinaryOp::Atan2 => Operands::Floats,
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => Operands::IntegersOrBool,
            BinaryOp::ShiftLeft | BinaryOp::ShiftRight => Operands::Integers,
            _ => Operands::Numbers,
        }
    }
}

impl Operands {
    /// Whether a tensor of `dtype` may be an operand.
    pub fn accepts(self, dtype: crate::dtype::DType) -> bool {
        match self {
            Operands::Floats => dtype.is_float(),
            Operands::Numbers => dtype.is_float() || dtype.is_integer(),
            Operands::Integers => dtype.is_integer(),
            Operands::IntegersOrBool => !dtype.is_float(),
        }
    }

    /// What the message says the operation expects.
    pub fn wanted(self) -> &'static str {
        match self {
            Operands::Floats => "float tensors",
            Operands::Numbers => "float or integer tensors",
            Operands::Integers => "integer tensors",
            Operands::IntegersOrBool => "integer or bool tensors",
        }
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

/// Which value of fused attention a node computes
/// (`docs/sexpgpu/operations.md`, "Fused attention"). Every part reads the
/// scores `scale * q k^T` one tile at a time and never stores them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AttentionPart {
    /// `softmax(scores) v`, `[batch.., t, e]`, from `q k v`.
    Output,
    /// Each query's log-sum-exp of its scores, f32 `[batch.., t]`, from
    /// `q k`: the softmax statistic the gradients recompute weights from.
    LogSumExp,
    /// The gradient of `q`, `k` or `v` (input 0, 1 or 2) from `q k v`, the
    /// output's gradient `dout`, the log-sum-exp and `delta`, each query's
    /// `sum(dout * out)` in f32.
    Grad(usize),
}

impl AttentionPart {
    /// The op's name in the IR.
    pub fn name(self) -> &'static str {
        match self {
            AttentionPart::Output => "attention",
            AttentionPart::LogSumExp => "attention-lse",
            AttentionPart::Grad(0) => "attention-grad-q",
            AttentionPart::Grad(1) => "attention-grad-k",
            AttentionPart::Grad(_) => "attention-grad-v",
        }
    }

    /// How many inputs a node of this part reads.
    pub fn arity(self) -> usize {
        match self {
            AttentionPart::Output => 3,
            AttentionPart::LogSumExp => 2,
            AttentionPart::Grad(_) => 6,
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
    /// The `i64` positions that sort `x` along `axis` (stably; NaN above
    /// every number), largest first when `descending`.
    Argsort {
        axis: usize,
        descending: bool,
    },
    /// Fused scaled dot-product attention over the last two axes of `q`
    /// `[batch.., t, d]`, `k` `[batch.., s, d]`, `v` `[batch.., s, e]` (equal
    /// batch dims); with `causal`, query `i` sees keys `j <= i` only.
    Attention {
        part: AttentionPart,
        causal: bool,
        scale: f64,
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
            Op::Argsort { .. } => "argsort",
            Op::Attention { part, .. } => part.name(),
        }
    }
}
