//! The operations a graph node can hold, with the names the IR prints and the
//! symbols messages use; holds no shape rules (those are in `build`) and no
//! arithmetic (that is in `exec`).

use crate::dtype::Scalar;
use crate::tensor::Tensor;

/// The unaries computed in f64 and rounded once (`UnaryOp::in_f64`), as a
/// pattern: every executor's match names the groups through these macros,
/// so a new unary is a compile error wherever it is not yet handled.
#[macro_export]
macro_rules! unaries_in_f64 {
    () => {
        $crate::UnaryOp::Sigmoid
            | $crate::UnaryOp::Softplus
            | $crate::UnaryOp::Log1p
            | $crate::UnaryOp::Expm1
            | $crate::UnaryOp::Erf
            | $crate::UnaryOp::Sinh
            | $crate::UnaryOp::Cosh
            | $crate::UnaryOp::Tan
            | $crate::UnaryOp::Atan
            | $crate::UnaryOp::Asinh
            | $crate::UnaryOp::Acosh
            | $crate::UnaryOp::Atanh
            | $crate::UnaryOp::Log2
            | $crate::UnaryOp::Exp2
            | $crate::UnaryOp::Log10
    };
}

/// The exact unaries, also computed through `UnaryOp::f64_value`:
/// `floor ceil round trunc sign stop-gradient`.
#[macro_export]
macro_rules! unaries_exact {
    () => {
        $crate::UnaryOp::Floor
            | $crate::UnaryOp::Ceil
            | $crate::UnaryOp::Round
            | $crate::UnaryOp::Trunc
            | $crate::UnaryOp::Sign
            | $crate::UnaryOp::StopGradient
    };
}

/// The unaries computed in f32 by each executor's own code (`f64_value`
/// gives `None` for them): `neg`, `abs` and `unaries_f32_math`.
#[macro_export]
macro_rules! unaries_in_f32 {
    () => {
        $crate::UnaryOp::Neg | $crate::UnaryOp::Abs | $crate::unaries_f32_math!()
    };
}

/// The float functions the executors compute in f32: `sqrt rsqrt exp log
/// sin cos tanh acos asin`.
#[macro_export]
macro_rules! unaries_f32_math {
    () => {
        $crate::UnaryOp::Sqrt
            | $crate::UnaryOp::Rsqrt
            | $crate::UnaryOp::Exp
            | $crate::UnaryOp::Log
            | $crate::UnaryOp::Sin
            | $crate::UnaryOp::Cos
            | $crate::UnaryOp::Tanh
            | $crate::UnaryOp::Acos
            | $crate::UnaryOp::Asin
    };
}

/// The unaries only floats take: all but `neg`, `abs` and `sign` (the
/// rounding functions and `stop-gradient` leave an integer tensor as it is,
/// without a node).
#[macro_export]
macro_rules! unaries_float_only {
    () => {
        $crate::unaries_f32_math!()
            | $crate::unaries_in_f64!()
            | $crate::UnaryOp::Floor
            | $crate::UnaryOp::Ceil
            | $crate::UnaryOp::Round
            | $crate::UnaryOp::Trunc
            | $crate::UnaryOp::StopGradient
    };
}

/// The binaries of integer (or bool) operands only: bitwise and shifts.
#[macro_export]
macro_rules! binaries_bitwise {
    () => {
        $crate::BinaryOp::BitAnd
            | $crate::BinaryOp::BitOr
            | $crate::BinaryOp::BitXor
            | $crate::BinaryOp::ShiftLeft
            | $crate::BinaryOp::ShiftRight
    };
}

/// The binaries of floats only: `/ pow atan2 copysign`.
#[macro_export]
macro_rules! binaries_float_only {
    () => {
        $crate::BinaryOp::Div
            | $crate::BinaryOp::Pow
            | $crate::BinaryOp::Atan2
            | $crate::BinaryOp::CopySign
    };
}

/// The plain arithmetic of any numbers: `+ - * maximum minimum`.
#[macro_export]
macro_rules! binaries_arith {
    () => {
        $crate::BinaryOp::Add
            | $crate::BinaryOp::Sub
            | $crate::BinaryOp::Mul
            | $crate::BinaryOp::Maximum
            | $crate::BinaryOp::Minimum
    };
}

/// The rounded divisions and their remainders: `quot rem floor-div mod`.
#[macro_export]
macro_rules! binaries_division {
    () => {
        $crate::BinaryOp::Quot
            | $crate::BinaryOp::Rem
            | $crate::BinaryOp::FloorDiv
            | $crate::BinaryOp::Mod
    };
}

/// The nodes that read no other node: arguments, constants, fills and
/// random draws (`Op` groups, as patterns, like the unaries' above).
#[macro_export]
macro_rules! ops_source {
    () => {
        $crate::Op::Input { .. }
            | $crate::Op::Param { .. }
            | $crate::Op::Constant { .. }
            | $crate::Op::Full { .. }
            | $crate::Op::Iota { .. }
            | $crate::Op::Normal { .. }
            | $crate::Op::Uniform { .. }
    };
}

/// The layout nodes, which compilers make views: `reshape broadcast
/// transpose slice`.
#[macro_export]
macro_rules! ops_layout {
    () => {
        $crate::Op::Reshape
            | $crate::Op::Broadcast
            | $crate::Op::Transpose { .. }
            | $crate::Op::Slice { .. }
    };
}

/// The elementwise nodes, which compilers fuse into loops.
#[macro_export]
macro_rules! ops_elementwise {
    () => {
        $crate::Op::Unary(_)
            | $crate::Op::Binary(_)
            | $crate::Op::Compare(_)
            | $crate::Op::Where
            | $crate::Op::Cast
    };
}

/// The nodes with a kernel of their own: reductions, `concat`, `matmul`,
/// the indexing nodes, the scan, `argsort` and fused attention.
#[macro_export]
macro_rules! ops_kernel {
    () => {
        $crate::Op::Reduce { .. }
            | $crate::Op::Concat { .. }
            | $crate::Op::Matmul
            | $crate::Op::Index
            | $crate::Op::IndexAdd
            | $crate::Op::Gather { .. }
            | $crate::Op::ScatterAdd { .. }
            | $crate::Op::LinearScan { .. }
            | $crate::Op::Argsort { .. }
            | $crate::Op::Attention { .. }
    };
}

/// An enum of operations with `ALL` (every variant, in order) and `name`
/// (the builtin's name, in messages and in the IR), each variant and its
/// name written once.
macro_rules! named_ops {
    ($(#[$tydoc:meta])* pub enum $ty:ident {
        $($(#[$doc:meta])* $variant:ident => $name:literal,)*
    }) => {
        $(#[$tydoc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $ty {
            $($(#[$doc])* $variant,)*
        }

        impl $ty {
            pub const ALL: [$ty; [$($name),*].len()] = [$($ty::$variant),*];

            /// The builtin's name, used both in messages and in the IR.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)*
                }
            }
        }
    };
}

named_ops! {
    /// Elementwise functions of one tensor.
    pub enum UnaryOp {
        Neg => "neg",
        Abs => "abs",
        Sqrt => "sqrt",
        Rsqrt => "rsqrt",
        Exp => "exp",
        Log => "log",
        Sin => "sin",
        Cos => "cos",
        Tanh => "tanh",
        Acos => "acos",
        Asin => "asin",
        Sigmoid => "sigmoid",
        Softplus => "softplus",
        Log1p => "log1p",
        Expm1 => "expm1",
        Erf => "erf",
        Sinh => "sinh",
        Cosh => "cosh",
        Tan => "tan",
        Atan => "atan",
        Asinh => "asinh",
        Acosh => "acosh",
        Atanh => "atanh",
        Log2 => "log2",
        Exp2 => "exp2",
        Log10 => "log10",
        Floor => "floor",
        Ceil => "ceil",
        Round => "round",
        Trunc => "trunc",
        Sign => "sign",
        /// The value unchanged, through which no gradient flows (JAX's
        /// `stop_gradient`, PyTorch's `detach`).
        StopGradient => "stop-gradient",
    }
}

impl UnaryOp {
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
        matches!(self, crate::unaries_in_f64!())
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
            crate::unaries_in_f32!() => return None,
        })
    }
}

named_ops! {
    /// Elementwise functions of two tensors of one dtype, broadcast to one shape.
    pub enum BinaryOp {
        Add => "add",
        Sub => "sub",
        Mul => "mul",
        Div => "div",
        Pow => "pow",
        Maximum => "maximum",
        Minimum => "minimum",
        Atan2 => "atan2",
        /// `|a|` with the sign of `b` (`torch.copysign`).
        CopySign => "copysign",
        /// Division rounded toward zero (`torch.div(rounding_mode="trunc")`).
        Quot => "quot",
        /// The remainder of `Quot`, with the dividend's sign (`torch.fmod`).
        Rem => "rem",
        /// Division rounded down (`torch.floor_divide`).
        FloorDiv => "floor-div",
        /// The remainder of `FloorDiv`, with the divisor's sign (`torch.remainder`).
        Mod => "mod",
        BitAnd => "bit-and",
        BitOr => "bit-or",
        BitXor => "bit-xor",
        ShiftLeft => "shift-left",
        /// Arithmetic (sign-filling) shift.
        ShiftRight => "shift-right",
    }
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
            crate::binaries_float_only!() => Operands::Floats,
            BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => Operands::IntegersOrBool,
            BinaryOp::ShiftLeft | BinaryOp::ShiftRight => Operands::Integers,
            crate::binaries_arith!() | crate::binaries_division!() => Operands::Numbers,
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
