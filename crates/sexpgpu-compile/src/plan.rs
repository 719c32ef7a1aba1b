//! The compiled form of a graph: a list of kernel steps over logical buffers,
//! each buffer placed in an arena slot. Device-independent plain data that
//! backends interpret; built by `lower` and `memory`, printed by `describe`.
//! Holds no element data except the graph's constants.

use sexpgpu_graph::{
    hash_f64, AttentionPart, BinaryOp, CompareOp, DType, NodeId, ReduceOp, Scalar, Shape, Tensor,
    UnaryOp,
};

use crate::view::View;

/// A logical buffer: the stored value of one node (or a copy made so a
/// kernel can read it contiguously). Several buffers share a slot when
/// their lifetimes do not overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufId(pub u32);

/// Where an operand's elements live at run time.
#[derive(Clone, Copy, Debug, PartialEq, Hash, Eq)]
pub enum Loc {
    /// The caller's argument tensor `k`, in `Graph::arguments` order.
    Arg(usize),
    /// The program's constant `k`.
    Const(usize),
    Buf(BufId),
}

/// An operand read through a view, or one value repeated (a `full` node).
/// Kernels read a view's elements in row-major order, position by position:
/// its dims may differ from the node's (a reshape no view expresses reads
/// the view it reshapes), never its element count.
#[derive(Clone, Debug, PartialEq, Hash)]
pub enum Src {
    Mem {
        loc: Loc,
        view: View,
    },
    /// Already converted to the node's dtype (bf16 rounded, i32 wrapped).
    Splat {
        value: Scalar,
        dtype: DType,
    },
}

/// A register of a fused kernel: the result of instruction `Reg.0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg(pub u32);

impl Reg {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One step of a fused elementwise loop. Every instruction writes its own
/// register; `dtype` is the node's dtype (bf16 results are rounded to bf16
/// after every instruction, as the reference rounds after every node).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Instr {
    /// Kernel input `input`, through its view, widened to the compute type.
    Load {
        input: usize,
        dtype: DType,
    },
    Unary {
        op: UnaryOp,
        x: Reg,
        dtype: DType,
    },
    Binary {
        op: BinaryOp,
        a: Reg,
        b: Reg,
        dtype: DType,
    },
    /// `dtype` is the operands' dtype; the result is bool.
    Compare {
        op: CompareOp,
        a: Reg,
        b: Reg,
        dtype: DType,
    },
    Where {
        mask: Reg,
        a: Reg,
        b: Reg,
        dtype: DType,
    },
    Cast {
        x: Reg,
        from: DType,
        to: DType,
    },
}

impl Instr {
    /// The dtype of the register it writes.
    pub fn dtype(&self) -> DType {
        match self {
            Instr::Load { dtype, .. }
            | Instr::Unary { dtype, .. }
            | Instr::Binary { dtype, .. }
            | Instr::Where { dtype, .. } => *dtype,
            Instr::Compare { .. } => DType::Bool,
            Instr::Cast { to, .. } => *to,
        }
    }

    /// The registers it reads, in operand order (a register read twice
    /// appears twice).
    pub fn args(&self) -> impl Iterator<Item = Reg> {
        let regs: [Option<Reg>; 3] = match *self {
            Instr::Load { .. } => [None; 3],
            Instr::Unary { x, .. } | Instr::Cast { x, .. } => [Some(x), None, None],
            Instr::Binary { a, b, .. } | Instr::Compare { a, b, .. } => [Some(a), Some(b), None],
            Instr::Where { mask, a, b, .. } => [Some(mask), Some(a), Some(b)],
        };
        regs.into_iter().flatten()
    }
}

/// A chain of elementwise nodes computed in one loop over the output, with
/// no buffer for any node but the last.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct FusedKernel {
    pub instrs: Vec<Instr>,
    /// The node each instruction computes (`None` for loads), for `describe`.
    pub nodes: Vec<Option<NodeId>>,
    /// The register stored to the output (always the last instruction).
    pub result: Reg,
    /// Registers also stored, each to a buffer of its own (`Step::Fused`'s
    /// `side`): values that other launches or the caller read, computed in
    /// this loop instead of a loop of their own (an optimizer's new moments
    /// beside the new parameter). Empty in a fused reduction.
    pub side: Vec<Reg>,
}

impl FusedKernel {
    /// The dtype of the values the kernel computes.
    pub fn result_dtype(&self) -> DType {
        self.instrs
            .get(self.result.index())
            .map_or(DType::F32, Instr::dtype)
    }
}

/// Bytes one stored element of `dtype` takes (bool: one byte).
pub fn element_bytes(dtype: DType) -> usize {
    match dtype {
        DType::F32 | DType::I32 => 4,
        DType::BF16 => 2,
        DType::I64 => 8,
        DType::Bool => 1,
    }
}

/// A reduction's `[dims]` input as `(length, reduced)` groups: dims of 1
/// dropped and neighbours of the same kind merged, the layout every
/// backend's reduction kernels walk (`Step::Reduce`, `Step::FusedReduce`).
pub fn reduction_groups(dims: &[usize], axes: &[usize]) -> Vec<(usize, bool)> {
    let mut out: Vec<(usize, bool)> = Vec::new();
    for (a, &d) in dims.iter().enumerate() {
        if d == 1 {
            continue;
        }
        let reduced = axes.contains(&a);
        match out.last_mut() {
            Some((len, r)) if *r == reduced => *len *= d,
            _ => out.push((d, reduced)),
        }
    }
    out
}

/// Values made from nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum Fill {
    Splat(Scalar),
    Iota { dims: Vec<usize>, axis: usize },
    Normal { mean: f64, std: f64, stream: u32 },
    Uniform { low: f64, high: f64, stream: u32 },
}

/// Consistent with `==` (floats by `hash_f64`), so a step can key a cache.
impl std::hash::Hash for Fill {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Fill::Splat(value) => value.hash(state),
            Fill::Iota { dims, axis } => (dims, axis).hash(state),
            Fill::Normal {
                mean: a,
                std: b,
                stream,
            }
            | Fill::Uniform {
                low: a,
                high: b,
                stream,
            } => {
                hash_f64(*a, state);
                hash_f64(*b, state);
                stream.hash(state);
            }
        }
    }
}

/// A contiguous operand: `numel` elements from `offset` of `loc`.
#[derive(Clone, Copy, Debug, PartialEq, Hash, Eq)]
pub struct Contig {
    pub loc: Loc,
    pub offset: usize,
}

/// A fused loop's input that it overwrites: the buffer of input `input`
/// (read through an identity view of the loop's positions, by no other
/// input) becomes target `target` (0: the result, 1 + j: side output `j`),
/// since every position is read before it is written. The input is a
/// buffer dying at this launch (memory planning shares its slot with the
/// target), or an argument read by no other launch, which a run overwrites
/// only when it owns the argument (`Program::run_given`).
#[derive(Clone, Copy, Debug, PartialEq, Hash, Eq)]
pub struct InPlace {
    pub input: usize,
    pub target: usize,
}

/// One part of fused attention over `batch` problems, each of `t` queries
/// `[t, d]`, `s` keys `[s, d]` and values `[s, e]` (`docs/sexpgpu/operations.md`,
/// "Fused attention"; `ARCHITECTURE.md`). Operands are the node's inputs in order (`q k v`, and
/// `dout lse delta` for a gradient), each read through a view whose last
/// axis is contiguous or of length 1 (the lowering copies any other);
/// batch dims may broadcast (stride 0). A launch may also compute other
/// parts that read the same tiles (`also`, each into the side output of
/// the same index): the log-sum-exp beside the output, the other inputs'
/// gradients beside one input's (`Attention::partners`).
#[derive(Clone, Debug, PartialEq)]
pub struct Attention {
    pub part: AttentionPart,
    pub also: Vec<AttentionPart>,
    /// The buffers of `also`, in its order.
    pub side: Vec<BufId>,
    pub causal: bool,
    /// Multiplies the scores, in f32.
    pub scale: f64,
    pub operands: Vec<(Loc, View)>,
    pub batch: Vec<usize>,
    pub t: usize,
    pub s: usize,
    pub d: usize,
    pub e: usize,
}

/// Consistent with `==` (the scale by `hash_f64`), so a step can key a cache.
impl std::hash::Hash for Attention {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.part, &self.also, &self.side).hash(state);
        (self.causal, &self.operands, &self.batch).hash(state);
        (self.t, self.s, self.d, self.e).hash(state);
        hash_f64(self.scale, state);
    }
}

impl Attention {
    /// The parts a launch computing `part` can compute beside it, those
    /// the graph needs: the log-sum-exp beside the output, the other
    /// inputs' gradients beside one input's (the weights and the scores'
    /// gradient are then recomputed once for all of them).
    pub fn partners(part: AttentionPart) -> &'static [AttentionPart] {
        use AttentionPart::{Grad, LogSumExp, Output};
        match part {
            Output => &[LogSumExp],
            Grad(0) => &[Grad(1), Grad(2)],
            Grad(1) => &[Grad(0), Grad(2)],
            Grad(2) => &[Grad(0), Grad(1)],
            _ => &[],
        }
    }

    /// The parts the launch computes: `part`, then `also`.
    pub fn parts(&self) -> impl Iterator<Item = AttentionPart> + '_ {
        std::iter::once(self.part).chain(self.also.iter().copied())
    }

    /// The rows one problem has in operand `k` (`q k v dout lse delta`),
    /// and their width.
    pub fn operand_size(&self, k: usize) -> (usize, usize) {
        match k {
            0 => (self.t, self.d),
            1 => (self.s, self.d),
            2 => (self.s, self.e),
            3 => (self.t, self.e),
            _ => (self.t, 1),
        }
    }

    /// The rows one problem has in `part`'s result, and their width (a
    /// gradient's are its input's).
    pub fn result_size(&self, part: AttentionPart) -> (usize, usize) {
        match part {
            AttentionPart::Output => (self.t, self.e),
            AttentionPart::LogSumExp => (self.t, 1),
            AttentionPart::Grad(k) => self.operand_size(k),
        }
    }

    /// The problems `batch` holds.
    pub fn problems(&self) -> usize {
        self.batch.iter().product()
    }

    /// Where problem `b`'s rows of operand `k` start: its view's offset plus
    /// the batch index's strides.
    pub fn problem_offset(&self, k: usize, b: usize) -> usize {
        let view = &self.operands[k].1;
        let mut rest = b;
        let mut offset = view.offset;
        for (axis, &dim) in self.batch.iter().enumerate().rev() {
            offset += (rest % dim) * view.strides[axis];
            rest /= dim;
        }
        offset
    }

    /// The distance between consecutive rows of operand `k` (the
    /// second-to-last axis; 0 for `lse` and `delta`, which have one per row).
    pub fn row_stride(&self, k: usize) -> usize {
        let view = &self.operands[k].1;
        let r = view.strides.len();
        if r > self.batch.len() + 1 {
            view.strides[r - 2]
        } else {
            view.strides[r - 1]
        }
    }
}

/// `[batch..., m, k] x [batch..., k, n]`, both read through views
/// (transposes and broadcast batch dims cost nothing), plus `bias`
/// (`n` consecutive elements) on every row when given: a linear
/// layer's `x @ w + b` as one launch, the bias added to the f32 sum
/// before its one rounding (`docs/sexpgpu/ir.md`, "Matmul epilogues").
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct Matmul {
    pub a: Loc,
    pub a_view: View,
    pub b: Loc,
    pub b_view: View,
    pub bias: Option<Contig>,
    pub batch: Vec<usize>,
    pub m: usize,
    pub k: usize,
    pub n: usize,
}

impl Matmul {
    /// `a` and `b`, each with its view.
    pub fn operands(&self) -> [(Loc, &View); 2] {
        [(self.a, &self.a_view), (self.b, &self.b_view)]
    }

    /// The products `batch` holds.
    pub fn problems(&self) -> usize {
        self.batch.iter().product()
    }

    /// Elements written: the `m x n` results of every product.
    pub fn written(&self) -> usize {
        self.problems() * self.m * self.n
    }
}

/// `index`: rows of a `[rows, row_len...]` table, one per id.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct Index {
    pub table: Contig,
    pub ids: Contig,
    pub n_ids: usize,
    pub rows: usize,
    pub row_len: usize,
}

impl Index {
    /// Elements written: a row per id.
    pub fn written(&self) -> usize {
        self.n_ids * self.row_len
    }
}

/// `index-add`: each id's row of `values` added into that row of a
/// `[rows, row_len...]` base.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct IndexAdd {
    pub base: Contig,
    pub ids: Contig,
    pub n_ids: usize,
    pub values: Contig,
    pub rows: usize,
    pub row_len: usize,
}

impl IndexAdd {
    /// Elements written: the whole base.
    pub fn written(&self) -> usize {
        self.rows * self.row_len
    }

    /// Values added: a row per id.
    pub fn added(&self) -> usize {
        self.n_ids * self.row_len
    }
}

/// `gather`: one element of a contiguous `[x_dims]` input along `axis`
/// per element of the contiguous `[idx_dims]` ids.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct Gather {
    pub x: Contig,
    pub idx: Contig,
    pub x_dims: Vec<usize>,
    pub idx_dims: Vec<usize>,
    pub axis: usize,
}

impl Gather {
    /// Elements written: one per id.
    pub fn written(&self) -> usize {
        self.idx_dims.iter().product()
    }
}

/// `scatter-add`: each of the `[idx_dims]` values added, along `axis`, at
/// the place its id names in a contiguous `[base_dims]` base.
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct ScatterAdd {
    pub base: Contig,
    pub idx: Contig,
    pub values: Contig,
    pub base_dims: Vec<usize>,
    pub idx_dims: Vec<usize>,
    pub axis: usize,
    /// The base dies here and `out` took its slot (memory planning):
    /// `out` holds the base already, only the elements named are
    /// added into, and `base` is not read (`reads` leaves it out).
    pub in_place: bool,
}

impl ScatterAdd {
    /// Elements written: the whole base.
    pub fn written(&self) -> usize {
        self.base_dims.iter().product()
    }

    /// Values added: one per id.
    pub fn added(&self) -> usize {
        self.idx_dims.iter().product()
    }
}

/// `linear-scan`: `h[t] = a[t] * h[t-1] + b[t]` along `axis` of two
/// contiguous `[dims]` inputs, from `h = 0` (from the end when `reverse`).
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct LinearScan {
    pub a: Contig,
    pub b: Contig,
    pub dims: Vec<usize>,
    pub axis: usize,
    pub reverse: bool,
}

/// `argsort`: the `i64` positions sorting each line of a contiguous
/// `[dims]` input along `axis` (stably, NaN largest).
#[derive(Clone, Debug, PartialEq, Hash)]
pub struct Argsort {
    pub x: Contig,
    pub dims: Vec<usize>,
    pub axis: usize,
    pub descending: bool,
}

/// One kernel launch. Every step writes one buffer, `out`; a fused loop
/// may also write its side outputs.
#[derive(Clone, Debug, PartialEq, Hash)]
pub enum Step {
    Fused {
        kernel: FusedKernel,
        inputs: Vec<Src>,
        /// The buffer of each of `kernel.side`'s registers, in order.
        side: Vec<BufId>,
        /// Inputs overwritten in place (memory planning fills it).
        in_place: Vec<InPlace>,
    },
    /// Each piece is written through its destination view of `out`
    /// (materialising a view, or one input of a `concat`).
    Copy {
        pieces: Vec<(Src, View)>,
    },
    Fill(Fill),
    /// Reduces `axes` of a contiguous `[dims]` input.
    Reduce {
        op: ReduceOp,
        input: Contig,
        dims: Vec<usize>,
        axes: Vec<usize>,
    },
    /// Reduces `axes` of the `[dims]` values a fused loop computes (its
    /// result a float), which are never stored: `sum((x - mean)^2)`.
    FusedReduce {
        op: ReduceOp,
        kernel: FusedKernel,
        inputs: Vec<Src>,
        dims: Vec<usize>,
        axes: Vec<usize>,
    },
    Matmul(Matmul),
    Index(Index),
    IndexAdd(IndexAdd),
    Gather(Gather),
    ScatterAdd(ScatterAdd),
    LinearScan(LinearScan),
    Argsort(Argsort),
    Attention(Attention),
}

impl Step {
    /// The kernel's name in `describe`.
    pub fn kind(&self) -> &'static str {
        match self {
            Step::Fused { .. } => "fused",
            Step::Copy { .. } => "copy",
            Step::Fill(Fill::Splat(_)) => "fill",
            Step::Fill(Fill::Iota { .. }) => "iota",
            Step::Fill(Fill::Normal { .. }) => "normal",
            Step::Fill(Fill::Uniform { .. }) => "uniform",
            Step::Reduce { op, .. } => match op {
                ReduceOp::Sum => "reduce-sum",
                ReduceOp::Max => "reduce-max",
            },
            Step::FusedReduce { op, .. } => match op {
                ReduceOp::Sum => "fused-sum",
                ReduceOp::Max => "fused-max",
            },
            Step::Matmul(_) => "matmul",
            Step::Index(_) => "index",
            Step::IndexAdd(_) => "index-add",
            Step::Gather(_) => "gather",
            Step::ScatterAdd(_) => "scatter-add",
            Step::LinearScan(_) => "linear-scan",
            Step::Argsort(_) => "argsort",
            Step::Attention(a) => a.part.name(),
        }
    }

    /// Whether the step is one of `Backend::indexed`'s kernels.
    pub fn is_indexed(&self) -> bool {
        matches!(self, crate::steps_indexed!())
    }

    /// Every location the step reads.
    pub fn reads(&self) -> Vec<Loc> {
        fn src(s: &Src) -> Option<Loc> {
            match s {
                Src::Mem { loc, .. } => Some(*loc),
                Src::Splat { .. } => None,
            }
        }
        match self {
            Step::Fused { inputs, .. } | Step::FusedReduce { inputs, .. } => {
                inputs.iter().filter_map(src).collect()
            }
            Step::Copy { pieces } => pieces.iter().filter_map(|(s, _)| src(s)).collect(),
            Step::Fill(_) => Vec::new(),
            Step::Reduce { input, .. } => vec![input.loc],
            Step::Matmul(p) => [p.a, p.b]
                .into_iter()
                .chain(p.bias.map(|c| c.loc))
                .collect(),
            Step::Index(s) => vec![s.table.loc, s.ids.loc],
            Step::IndexAdd(s) => vec![s.base.loc, s.ids.loc, s.values.loc],
            Step::Gather(s) => vec![s.x.loc, s.idx.loc],
            Step::ScatterAdd(s) => {
                let base = (!s.in_place).then_some(s.base.loc);
                base.into_iter().chain([s.idx.loc, s.values.loc]).collect()
            }
            Step::LinearScan(s) => vec![s.a.loc, s.b.loc],
            Step::Argsort(s) => vec![s.x.loc],
            Step::Attention(a) => a.operands.iter().map(|(loc, _)| *loc).collect(),
        }
    }
}

/// The steps `Backend::indexed` runs, as a pattern: `index index-add
/// gather scatter-add linear-scan argsort`.
#[macro_export]
macro_rules! steps_indexed {
    () => {
        $crate::Step::Index(_)
            | $crate::Step::IndexAdd(_)
            | $crate::Step::Gather(_)
            | $crate::Step::ScatterAdd(_)
            | $crate::Step::LinearScan(_)
            | $crate::Step::Argsort(_)
    };
}

/// A step with the node it computes and the buffer it writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub step: Step,
    pub node: NodeId,
    pub out: BufId,
    /// Elements written to `out` (and to each side output of a fused loop;
    /// an attention pair's side output has its own length).
    pub len: usize,
}

impl Launch {
    /// The side outputs a fused loop (or an attention pair) writes
    /// besides `out`.
    pub fn side(&self) -> &[BufId] {
        match &self.step {
            Step::Fused { side, .. } => side,
            Step::Attention(a) => &a.side,
            _ => &[],
        }
    }

    /// Every buffer the launch writes: `out`, then its side outputs.
    pub fn writes(&self) -> impl Iterator<Item = BufId> + '_ {
        std::iter::once(self.out).chain(self.side().iter().copied())
    }
}

/// A logical buffer's type, size and arena slot.
#[derive(Clone, Debug, PartialEq)]
pub struct BufInfo {
    pub dtype: DType,
    pub len: usize,
    pub slot: usize,
}

/// An arena slot: one allocation reused by buffers of one dtype whose
/// lifetimes do not overlap. Output slots leave with the caller.
#[derive(Clone, Debug, PartialEq)]
pub struct SlotInfo {
    pub dtype: DType,
    pub capacity: usize,
    pub output: bool,
}

/// Where a graph output is found after the last step.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub node: NodeId,
    pub loc: Loc,
    pub shape: Shape,
    pub dtype: DType,
}

/// A graph argument as the program checks it.
#[derive(Clone, Debug, PartialEq)]
pub struct Argument {
    pub node: NodeId,
    pub name: String,
    pub shape: Shape,
    pub dtype: DType,
}

/// The whole compiled program, before any device is chosen.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub graph_name: String,
    pub arguments: Vec<Argument>,
    pub constants: Vec<Tensor>,
    pub launches: Vec<Launch>,
    pub buffers: Vec<BufInfo>,
    pub slots: Vec<SlotInfo>,
    pub outputs: Vec<Output>,
    /// How many elementwise nodes were fused into another node's loop.
    pub fused_nodes: usize,
}

impl Plan {
    /// The dtype of the elements at `loc`.
    pub fn loc_dtype(&self, loc: Loc) -> DType {
        match loc {
            Loc::Arg(k) => self.arguments[k].dtype,
            Loc::Const(k) => self.constants[k].dtype(),
            Loc::Buf(b) => self.buffers[b.0 as usize].dtype,
        }
    }

    /// How many elements `loc` holds.
    pub fn loc_len(&self, loc: Loc) -> usize {
        match loc {
            Loc::Arg(k) => self.arguments[k].shape.numel(),
            Loc::Const(k) => self.constants[k].numel(),
            Loc::Buf(b) => self.buffers[b.0 as usize].len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::reduction_groups;

    #[test]
    fn reduction_groups_drop_ones_and_merge_neighbours_of_a_kind() {
        // [8, 1, 12, 64, 64] summed over the last two: 96 rows of 4096.
        assert_eq!(
            reduction_groups(&[8, 1, 12, 64, 64], &[3, 4]),
            [(96, false), (4096, true)]
        );
        // Columns: the leading axes reduced, the last kept.
        assert_eq!(
            reduction_groups(&[4, 5, 6], &[0, 1]),
            [(20, true), (6, false)]
        );
        // Alternating kinds stay apart; a reduced dim of 1 disappears.
        assert_eq!(
            reduction_groups(&[2, 3, 1, 4], &[1, 2]),
            [(2, false), (3, true), (4, false)]
        );
        assert_eq!(reduction_groups(&[1, 1], &[0]), []);
    }
}
