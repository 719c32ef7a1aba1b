//! The graph compiler: lowers a traced graph to kernel launches. Layout
//! nodes (`broadcast`, `transpose`, `slice`, contiguous `reshape`) become
//! views, `full` nodes become splats, and chains of elementwise nodes fuse
//! into one loop. Decides no memory placement (that is `memory`) and never
//! computes element values.

mod epilogue;

use std::collections::HashMap;

use sexpgpu_graph::{
    ops_elementwise, ops_kernel, ops_layout, ops_source, AttentionPart, DType, Graph, Node, NodeId,
    Op, ReduceOp, Scalar, Tensor,
};

use crate::error::CompileError;
use crate::plan::{
    Argsort, Argument, Attention, BufId, Contig, Fill, FusedKernel, Gather, Index, IndexAdd, Instr,
    Launch, LinearScan, Loc, Matmul, Output, Plan, Reg, ScatterAdd, Src, Step,
};
use crate::view::View;
use epilogue::{biased_products, Biased};

/// What a node is at run time, once lowered.
#[derive(Clone, Debug)]
enum Value {
    /// Nothing reads it.
    Unneeded,
    /// Stored contiguously, offset 0, in the node's shape.
    Stored(Loc),
    /// Read through a view of another node's storage.
    Viewed { loc: Loc, view: View },
    /// The elements of `view`, in row-major order, in the node's own dims:
    /// a reshape that no view can express. Positional readers (fused
    /// loads, copies) read `view` as it is; readers that need the node's
    /// strides get a contiguous copy, made once.
    Reshaped { loc: Loc, view: View },
    /// One repeated value, already converted to the node's dtype.
    Splat(Scalar),
    /// Computed inside a consumer's fused loop; has no storage.
    Inline,
}

/// Elementwise ops: what fusion may chain into one loop.
fn is_elementwise(op: &Op) -> bool {
    fused_instr(op, &[Reg(0); 3], DType::F32, DType::F32).is_some()
}

/// The instruction of an elementwise node in a fused loop, over the
/// registers of its inputs (`input` is its first input's dtype); `None` for
/// every other node, which a loop never computes.
fn fused_instr(op: &Op, regs: &[Reg], dtype: DType, input: DType) -> Option<Instr> {
    Some(match op {
        Op::Unary(op) => Instr::Unary {
            op: *op,
            x: regs[0],
            dtype,
        },
        Op::Binary(op) => Instr::Binary {
            op: *op,
            a: regs[0],
            b: regs[1],
            dtype,
        },
        Op::Compare(op) => Instr::Compare {
            op: *op,
            a: regs[0],
            b: regs[1],
            dtype: input,
        },
        Op::Where => Instr::Where {
            mask: regs[0],
            a: regs[1],
            b: regs[2],
            dtype,
        },
        Op::Cast => Instr::Cast {
            x: regs[0],
            from: input,
            to: dtype,
        },
        ops_source!() | ops_layout!() | ops_kernel!() => return None,
    })
}

/// A `full` value as the reference stores it: floats through f32 (and then
/// bf16), integers wrapped to i32 where the dtype says so.
pub(crate) fn convert_splat(value: Scalar, dtype: DType) -> Scalar {
    match dtype {
        DType::F32 => Scalar::Float(f64::from(value.as_f64() as f32)),
        DType::BF16 => Scalar::Float(half::bf16::from_f32(value.as_f64() as f32).to_f64()),
        DType::I32 => Scalar::Int(i64::from(value.as_i64() as i32)),
        DType::I64 => Scalar::Int(value.as_i64()),
        DType::Bool => Scalar::Bool(value.as_bool()),
    }
}

struct Lowerer<'g> {
    graph: &'g Graph,
    values: Vec<Value>,
    launches: Vec<Launch>,
    buffers: Vec<(DType, usize)>,
    constants: Vec<Tensor>,
    /// Contiguous copies already made of viewed or splat nodes.
    copies: HashMap<NodeId, Contig>,
    fused_nodes: usize,
    /// Matmuls whose only reader sums over their batch axes
    /// (`batch_summed_products`).
    summed: Vec<bool>,
    /// The one-GEMM step of each of those whose operands fold
    /// (`fold_batch_sum`), taken by the sum that reads it.
    folded: HashMap<NodeId, Step>,
    /// The loop root that stores each side output (`side_output_root`).
    side: Vec<Option<NodeId>>,
    /// Matmuls read only through a transpose of their last two axes
    /// (`transposed_products`).
    transposed: Vec<bool>,
    /// The nodes an output depends on (`Graph::needed`).
    needed: Vec<bool>,
    /// The adds computed as a matmul with a bias, by node
    /// (`epilogue::biased_products`).
    biased: Vec<Option<Biased>>,
    /// The products those adds compute, never lowered on their own.
    in_epilogue: Vec<bool>,
}

/// Lowers `graph` to launches over logical buffers; slots are assigned
/// afterwards by `memory::assign`.
pub(crate) fn lower(graph: &Graph) -> Result<Plan, CompileError> {
    validate(graph)?;
    let needed = graph.needed();
    let Inlining { inline, side } = choose_inline(graph, &needed);
    let summed = batch_summed_products(graph, &needed);
    let transposed = transposed_products(graph, &needed, &summed);
    let biased = biased_products(graph, &needed, (&summed, &transposed), &inline);
    let mut in_epilogue = vec![false; graph.len()];
    for b in biased.iter().flatten() {
        in_epilogue[b.product.index()] = true;
    }
    let mut lw = Lowerer {
        graph,
        values: vec![Value::Unneeded; graph.len()],
        launches: Vec::new(),
        buffers: Vec::new(),
        constants: Vec::new(),
        copies: HashMap::new(),
        fused_nodes: inline.iter().filter(|&&i| i).count(),
        summed,
        folded: HashMap::new(),
        side,
        transposed,
        needed,
        biased,
        in_epilogue,
    };
    let arguments = graph.arguments();
    for (i, node) in graph.nodes().iter().enumerate() {
        let id = NodeId(i as u32);
        if let Some(k) = arguments.iter().position(|&a| a == id) {
            lw.values[i] = Value::Stored(Loc::Arg(k));
            continue;
        }
        // An attention node a partner's launch already stores is done.
        if !lw.needed[i] || matches!(lw.values[i], Value::Stored(_)) {
            continue;
        }
        lw.values[i] = if inline[i] {
            Value::Inline
        } else {
            lw.lower_node(id, node, &inline)?
        };
    }
    let outputs = lw.outputs()?;
    let arguments = arguments.iter().map(|&id| argument(graph, id)).collect();
    Ok(Plan {
        graph_name: graph.name().to_string(),
        arguments,
        constants: lw.constants,
        launches: lw.launches,
        buffers: lw
            .buffers
            .into_iter()
            .map(|(dtype, len)| crate::plan::BufInfo {
                dtype,
                len,
                slot: usize::MAX,
            })
            .collect(),
        slots: Vec::new(),
        outputs,
        fused_nodes: lw.fused_nodes,
    })
}

/// An argument of the compiled program: its node, name, shape and dtype.
fn argument(graph: &Graph, id: NodeId) -> Argument {
    let node = graph.node(id);
    let name = match &node.op {
        Op::Input { name } | Op::Param { name } => name.clone(),
        _ => String::new(),
    };
    Argument {
        node: id,
        name,
        shape: node.shape.clone(),
        dtype: node.dtype,
    }
}

/// The invariants the builders promise, checked once so that a hand-made
/// or corrupted graph is an error instead of a panic later.
fn validate(graph: &Graph) -> Result<(), CompileError> {
    for (i, node) in graph.nodes().iter().enumerate() {
        if let Some(bad) = node.inputs.iter().find(|input| input.index() >= i) {
            return Err(CompileError::new(
                format!(
                    "{} reads {bad}, which is not an earlier node",
                    NodeId(i as u32)
                ),
                Some(NodeId(i as u32)),
            ));
        }
        let arity = match &node.op {
            Op::Input { .. }
            | Op::Param { .. }
            | Op::Constant { .. }
            | Op::Full { .. }
            | Op::Iota { .. }
            | Op::Normal { .. }
            | Op::Uniform { .. } => Some(0),
            Op::Unary(_)
            | Op::Cast
            | Op::Reduce { .. }
            | Op::Reshape
            | Op::Broadcast
            | Op::Transpose { .. }
            | Op::Argsort { .. }
            | Op::Slice { .. } => Some(1),
            Op::Binary(_)
            | Op::Compare(_)
            | Op::Matmul
            | Op::Index
            | Op::Gather { .. }
            | Op::LinearScan { .. } => Some(2),
            Op::Where | Op::IndexAdd | Op::ScatterAdd { .. } => Some(3),
            Op::Attention { part, .. } => Some(part.arity()),
            Op::Concat { .. } => None,
        };
        if arity.is_some_and(|n| n != node.inputs.len()) {
            return Err(CompileError::new(
                format!(
                    "{} ({}) has {} inputs",
                    NodeId(i as u32),
                    node.op.name(),
                    node.inputs.len()
                ),
                Some(NodeId(i as u32)),
            ));
        }
    }
    if let Some(bad) = graph.outputs().iter().find(|o| o.index() >= graph.len()) {
        return Err(CompileError::new(
            format!(
                "graph {} returns {bad}, which it does not have",
                graph.name()
            ),
            None,
        ));
    }
    Ok(())
}

/// Fused loops an elementwise value may be recomputed in rather than
/// stored: computing it again in each (from what they load anyway) costs
/// arithmetic, storing it costs a write and a read per loop of the whole
/// tensor, and the loops here are bound by memory.
const MAX_RECOMPUTE_LOOPS: usize = 3;

/// Which elementwise nodes live only inside their consumers' loops: those
/// that are not outputs and whose every reader is an elementwise node of
/// at most `MAX_RECOMPUTE_LOOPS` fused groups (one, usually; several when a
/// forward value such as GELU's `tanh` is read again by the backward pass,
/// which then recomputes it from `x` instead of reading it back). Anything
/// read by a layout node or more groups is stored. A float `sum` or `max`
/// counts as one group: it reduces the values as its loop computes them.
///
/// Also says which nodes are side outputs (`side_output_root`): stored, but
/// computed inside the one loop that reads them, which stores them too.
fn choose_inline(graph: &Graph, needed: &[bool]) -> Inlining {
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); graph.len()];
    for (i, node) in graph.nodes().iter().enumerate() {
        if needed[i] {
            for input in &node.inputs {
                users[input.index()].push(i);
            }
        }
    }
    let mut is_output = vec![false; graph.len()];
    for o in graph.outputs() {
        is_output[o.index()] = true;
    }
    // The fused groups (by root) each elementwise node is computed in.
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); graph.len()];
    let mut inline = vec![false; graph.len()];
    let mut side: Vec<Option<NodeId>> = vec![None; graph.len()];
    for i in (0..graph.len()).rev() {
        if !needed[i] || !is_elementwise(&graph.nodes()[i].op) {
            continue;
        }
        let readers = &users[i];
        let fusable = !is_output[i]
            && !readers.is_empty()
            && readers
                .iter()
                .all(|&u| is_elementwise(&graph.nodes()[u].op) || reduces_float(graph, u));
        if let Some(root) = side_output_root(graph, i, is_output[i], readers, &groups) {
            inline[i] = true;
            side[i] = Some(NodeId(root as u32));
            groups[i] = vec![root];
            continue;
        }
        let mut home: Vec<usize> = Vec::new();
        if fusable {
            for &u in readers {
                // A reduction is a loop of its own over what it reads.
                let reader_groups = if is_elementwise(&graph.nodes()[u].op) {
                    &groups[u][..]
                } else {
                    &[u][..]
                };
                for &g in reader_groups {
                    if !home.contains(&g) {
                        home.push(g);
                    }
                }
            }
        }
        if fusable && home.len() <= MAX_RECOMPUTE_LOOPS {
            inline[i] = true;
            groups[i] = home;
        } else {
            groups[i] = vec![i];
        }
    }
    Inlining { inline, side }
}

/// Which nodes fuse into their readers' loops (`choose_inline`).
struct Inlining {
    /// Computed inside the loops of the nodes that read it.
    inline: Vec<bool>,
    /// For a side output, the root of the loop that computes and stores it.
    side: Vec<Option<NodeId>>,
}

/// The root of the fused loop that can store elementwise node `i` as a
/// side output: `i` must be kept (a graph output, such as an optimizer's
/// new moment), every reader elementwise and in that one loop (`groups`),
/// whose root is an elementwise node of `i`'s shape. AdamW then updates a
/// parameter and both moments in one pass instead of three.
fn side_output_root(
    graph: &Graph,
    i: usize,
    is_output: bool,
    readers: &[usize],
    groups: &[Vec<usize>],
) -> Option<usize> {
    let nodes = graph.nodes();
    if !is_output || readers.is_empty() {
        return None;
    }
    let mut root = None;
    for &u in readers {
        if !is_elementwise(&nodes[u].op) {
            return None;
        }
        match groups[u][..] {
            [g] if root.is_none_or(|r| r == g) => root = Some(g),
            _ => return None,
        }
    }
    let root = root?;
    (root != i && is_elementwise(&nodes[root].op) && nodes[root].shape == nodes[i].shape)
        .then_some(root)
}

/// Whether node `u` is a `sum` or `max` of float values over trailing axes
/// (rows, or everything), which can reduce a fused loop's values as they
/// are computed (`Step::FusedReduce`) in the order a stored input is read.
fn reduces_float(graph: &Graph, u: usize) -> bool {
    let node = &graph.nodes()[u];
    let Op::Reduce { axes, .. } = &node.op else {
        return false;
    };
    let x = node.inputs[0];
    if !graph.dtype(x).is_float() {
        return false;
    }
    // Axes of length 1 are neither kept nor reduced.
    let mut kinds = graph
        .shape(x)
        .dims()
        .iter()
        .enumerate()
        .filter(|&(_, &d)| d != 1)
        .map(|(a, _)| axes.contains(&a));
    let trailing = kinds.clone().skip_while(|&reduced| !reduced).all(|r| r);
    trailing && kinds.any(|reduced| reduced)
}

/// How many needed nodes read each node (a node reading it twice counts
/// twice; graph outputs are not counted).
fn reader_counts(graph: &Graph, needed: &[bool]) -> Vec<usize> {
    let mut readers = vec![0usize; graph.len()];
    for (i, node) in graph.nodes().iter().enumerate() {
        if needed[i] {
            for input in &node.inputs {
                readers[input.index()] += 1;
            }
        }
    }
    readers
}

/// The f32 matmuls `[B.., m, k] x [B.., k, n]` whose only reader is a sum
/// over exactly their batch axes `B..` and that are not outputs: a weight's
/// gradient `sum_b x_b^T @ dy_b` (from `x @ w` with `x` `[b t in]`). Their
/// sum is one `[m, B*k] x [B*k, n]` GEMM when the operands' batch axes
/// continue their contraction axis (`fold_batch_sum`), which neither writes
/// the `B` products nor reads them back. Kept to f32, where the sum's
/// rounding is the GEMM's own.
fn batch_summed_products(graph: &Graph, needed: &[bool]) -> Vec<bool> {
    let readers = reader_counts(graph, needed);
    let mut summed = vec![false; graph.len()];
    for (i, node) in graph.nodes().iter().enumerate() {
        if !needed[i] {
            continue;
        }
        let Op::Reduce {
            op: ReduceOp::Sum,
            axes,
            ..
        } = &node.op
        else {
            continue;
        };
        let product = graph.node(node.inputs[0]);
        let rank = product.shape.rank();
        let batch_axes = axes.len() + 2 == rank && axes.iter().enumerate().all(|(k, &a)| a == k);
        if matches!(product.op, Op::Matmul) && product.dtype == DType::F32 && batch_axes && rank > 2
        {
            summed[node.inputs[0].index()] = true;
        }
    }
    for o in graph.outputs() {
        summed[o.index()] = false;
    }
    for (flag, &count) in summed.iter_mut().zip(&readers) {
        *flag &= count == 1;
    }
    summed
}

/// The matmuls every reader of which transposes their last two axes (a
/// key's gradient `(q^T dS)^T` in attention's backward), none a graph
/// output or a batch sum's operand: each is computed as the transposed
/// product `b^T a^T` (`Lowerer::lower_transposed_product`), so its readers
/// read it in order instead of gathering it across rows.
fn transposed_products(graph: &Graph, needed: &[bool], summed: &[bool]) -> Vec<bool> {
    let mut transposed: Vec<bool> = graph
        .nodes()
        .iter()
        .map(|n| matches!(n.op, Op::Matmul) && n.shape.rank() >= 2)
        .collect();
    let mut read = vec![false; graph.len()];
    for (i, node) in graph.nodes().iter().enumerate() {
        if !needed[i] {
            continue;
        }
        let swaps_last_two = match &node.op {
            Op::Transpose { perm } => {
                let r = perm.len();
                r >= 2
                    && perm[..r - 2].iter().enumerate().all(|(k, &a)| a == k)
                    && perm[r - 2..] == [r - 1, r - 2]
            }
            _ => false,
        };
        for input in &node.inputs {
            read[input.index()] = true;
            transposed[input.index()] &= swaps_last_two;
        }
    }
    for o in graph.outputs() {
        transposed[o.index()] = false;
    }
    for (i, flag) in transposed.iter_mut().enumerate() {
        *flag &= needed[i] && read[i] && !summed[i];
    }
    transposed
}

impl Lowerer<'_> {
    /// Where each graph output ends up: a stored value where it already is,
    /// a view or splat copied out into a buffer of its own once (or the
    /// copy a kernel's operand already made).
    fn outputs(&mut self) -> Result<Vec<Output>, CompileError> {
        let graph = self.graph;
        let mut outputs = Vec::new();
        for &o in graph.outputs() {
            let node = graph.node(o);
            let loc = match self.values[o.index()].clone() {
                Value::Stored(loc) => loc,
                // A contiguous copy some kernel needed already serves.
                _ if self.copies.get(&o).is_some_and(|c| c.offset == 0) => self.copies[&o].loc,
                _ => {
                    let src = self.src(o)?;
                    let out = self.launch(
                        o,
                        Step::Copy {
                            pieces: vec![(src, View::contiguous(node.shape.dims()))],
                        },
                    );
                    self.values[o.index()] = Value::Stored(Loc::Buf(out));
                    Loc::Buf(out)
                }
            };
            outputs.push(Output {
                node: o,
                loc,
                shape: node.shape.clone(),
                dtype: node.dtype,
            });
        }
        Ok(outputs)
    }

    fn new_buf(&mut self, dtype: DType, len: usize) -> BufId {
        self.buffers.push((dtype, len));
        BufId(self.buffers.len() as u32 - 1)
    }

    /// Adds a launch computing `node` into a fresh buffer of its shape.
    fn launch(&mut self, node: NodeId, step: Step) -> BufId {
        let n = self.graph.node(node);
        let len = n.shape.numel();
        let out = self.new_buf(n.dtype, len);
        self.launches.push(Launch {
            step,
            node,
            out,
            len,
        });
        out
    }

    /// How one needed node is computed: an argument or constant is read in
    /// place, a splat or view costs nothing, an elementwise node joins its
    /// fused loop, anything else is a kernel of its own (`kernel_step`).
    fn lower_node(
        &mut self,
        id: NodeId,
        node: &Node,
        inline: &[bool],
    ) -> Result<Value, CompileError> {
        let step = match &node.op {
            Op::Input { name } | Op::Param { name } => {
                return Err(CompileError::new(
                    format!("argument `{name}` is not among the graph's arguments"),
                    Some(id),
                ))
            }
            Op::Constant { value } => {
                self.constants.push(value.clone());
                return Ok(Value::Stored(Loc::Const(self.constants.len() - 1)));
            }
            Op::Full { value } => return Ok(Value::Splat(convert_splat(*value, node.dtype))),
            Op::Broadcast | Op::Transpose { .. } | Op::Slice { .. } | Op::Reshape => {
                return self.lower_layout(node)
            }
            Op::Matmul if self.in_epilogue[id.index()] => return Ok(Value::Unneeded),
            _ if self.biased[id.index()].is_some() => self.biased_product(id)?,
            op if is_elementwise(op) => return self.lower_fused(id, inline),
            Op::Reduce { op, axes, .. } if inline[node.inputs[0].index()] => {
                let (kernel, inputs, _) = self.fuse(node.inputs[0], inline)?;
                Step::FusedReduce {
                    op: *op,
                    kernel,
                    inputs,
                    dims: self.graph.shape(node.inputs[0]).dims().to_vec(),
                    axes: axes.clone(),
                }
            }
            Op::Matmul if self.transposed[id.index()] => {
                return self.lower_transposed_product(id, node)
            }
            Op::Matmul if self.summed[id.index()] => match self.fold_batch_sum(node)? {
                Some(step) => {
                    self.folded.insert(id, step);
                    return Ok(Value::Unneeded);
                }
                None => self.kernel_step(id, node)?,
            },
            _ => self.kernel_step(id, node)?,
        };
        Ok(Value::Stored(Loc::Buf(self.launch(id, step))))
    }

    /// The fused loop computing elementwise node `id`, storing its side
    /// outputs too (each then stored in a buffer of its own).
    fn lower_fused(&mut self, id: NodeId, inline: &[bool]) -> Result<Value, CompileError> {
        let (mut kernel, inputs, regs) = self.fuse(id, inline)?;
        let mut side_nodes: Vec<(NodeId, Reg)> = regs
            .into_iter()
            .filter(|(n, _)| self.side[n.index()] == Some(id))
            .collect();
        side_nodes.sort_by_key(|&(n, _)| n);
        let mut side = Vec::with_capacity(side_nodes.len());
        for (node, reg) in side_nodes {
            kernel.side.push(reg);
            let n = self.graph.node(node);
            let buf = self.new_buf(n.dtype, n.shape.numel());
            self.values[node.index()] = Value::Stored(Loc::Buf(buf));
            side.push(buf);
        }
        let step = Step::Fused {
            kernel,
            inputs,
            side,
            in_place: Vec::new(),
        };
        Ok(Value::Stored(Loc::Buf(self.launch(id, step))))
    }

    /// The step of a node with a kernel of its own, writing a fresh buffer:
    /// fills, reductions, matmul, indexing, scans and concatenation.
    fn kernel_step(&mut self, id: NodeId, node: &Node) -> Result<Step, CompileError> {
        let dims = node.shape.dims();
        let input = |k: usize| node.inputs[k];
        Ok(match &node.op {
            Op::Iota { axis } => Step::Fill(Fill::Iota {
                dims: dims.to_vec(),
                axis: *axis,
            }),
            Op::Normal { mean, std, stream } => Step::Fill(Fill::Normal {
                mean: *mean,
                std: *std,
                stream: *stream,
            }),
            Op::Uniform { low, high, stream } => Step::Fill(Fill::Uniform {
                low: *low,
                high: *high,
                stream: *stream,
            }),
            Op::Reduce { .. } if self.folded.contains_key(&input(0)) => self
                .folded
                .remove(&input(0))
                .ok_or_else(|| self.internal(id))?,
            Op::Reduce { op, axes, .. } => Step::Reduce {
                op: *op,
                input: self.contig(input(0))?,
                dims: self.graph.shape(input(0)).dims().to_vec(),
                axes: axes.clone(),
            },
            Op::Matmul => self.matmul_step(node, None)?,
            Op::Index => self.index_step(node, None)?,
            Op::IndexAdd => self.index_step(node, Some(input(2)))?,
            Op::Gather { axis } => Step::Gather(Gather {
                x: self.contig(input(0))?,
                idx: self.contig(input(1))?,
                x_dims: self.graph.shape(input(0)).dims().to_vec(),
                idx_dims: self.graph.shape(input(1)).dims().to_vec(),
                axis: *axis,
            }),
            Op::ScatterAdd { axis } => Step::ScatterAdd(ScatterAdd {
                base: self.contig(input(0))?,
                idx: self.contig(input(1))?,
                values: self.contig(input(2))?,
                base_dims: self.graph.shape(input(0)).dims().to_vec(),
                idx_dims: self.graph.shape(input(1)).dims().to_vec(),
                axis: *axis,
                in_place: false,
            }),
            Op::Argsort { axis, descending } => Step::Argsort(Argsort {
                x: self.contig(input(0))?,
                dims: dims.to_vec(),
                axis: *axis,
                descending: *descending,
            }),
            Op::LinearScan { axis, reverse } => Step::LinearScan(LinearScan {
                a: self.contig(input(0))?,
                b: self.contig(input(1))?,
                dims: dims.to_vec(),
                axis: *axis,
                reverse: *reverse,
            }),
            Op::Attention {
                part,
                causal,
                scale,
            } => self.attention_step(id, node, *part, (*causal, *scale))?,
            Op::Concat { axis } => {
                let whole = View::contiguous(dims);
                let mut start = 0;
                let mut pieces = Vec::new();
                for &x in &node.inputs {
                    let d = self.graph.shape(x).dims()[*axis];
                    pieces.push((self.src(x)?, whole.slice(*axis, start, start + d)));
                    start += d;
                }
                Step::Copy { pieces }
            }
            // Read in place, views, splats and fused loops: `lower_node`.
            Op::Input { .. } | Op::Param { .. } | Op::Constant { .. } | Op::Full { .. } => {
                return Err(self.internal(id))
            }
            ops_layout!() | ops_elementwise!() => return Err(self.internal(id)),
        })
    }

    /// The product `node` (`[batch.., m, n]`), with `bias` on its rows.
    fn matmul_step(&mut self, node: &Node, bias: Option<Contig>) -> Result<Step, CompileError> {
        let (a, a_view) = self.strided(node.inputs[0])?;
        let (b, b_view) = self.strided(node.inputs[1])?;
        let dims = node.shape.dims();
        let r = dims.len();
        Ok(Step::Matmul(Matmul {
            a,
            a_view,
            b,
            b_view,
            bias,
            batch: dims[..r - 2].to_vec(),
            m: dims[r - 2],
            k: self.graph.shape(node.inputs[0]).dims()[r - 1],
            n: dims[r - 1],
        }))
    }

    /// The add `id` (`biased`) as its product's launch, the bias read as
    /// `n` consecutive elements (a strided vector is copied first).
    fn biased_product(&mut self, id: NodeId) -> Result<Step, CompileError> {
        let Some(Biased { product, bias }) = self.biased[id.index()] else {
            return Err(self.internal(id));
        };
        let bias = self.contig(bias)?;
        self.matmul_step(self.graph.node(product), Some(bias))
    }

    /// Product `node` (`a b`, `[.., m, n]`) as `b^T a^T` (`[.., n, m]`,
    /// operand views being free), its value the transposed view of that:
    /// the transpose reading it then reads it in order.
    fn lower_transposed_product(&mut self, id: NodeId, node: &Node) -> Result<Value, CompileError> {
        let (a, a_view) = self.strided(node.inputs[0])?;
        let (b, b_view) = self.strided(node.inputs[1])?;
        let dims = node.shape.dims();
        let r = dims.len();
        let swap: Vec<usize> = (0..r - 2).chain([r - 1, r - 2]).collect();
        let step = Step::Matmul(Matmul {
            a: b,
            a_view: b_view.transpose(&swap),
            b: a,
            b_view: a_view.transpose(&swap),
            batch: dims[..r - 2].to_vec(),
            m: dims[r - 1],
            k: a_view.dims[r - 1],
            n: dims[r - 2],
            bias: None,
        });
        let out = self.launch(id, step);
        let mut stored = dims.to_vec();
        stored.swap(r - 2, r - 1);
        Ok(Value::Viewed {
            loc: Loc::Buf(out),
            view: View::contiguous(&stored).transpose(&swap),
        })
    }

    /// The sum over the batch axes of the product `node` as one GEMM: `a`
    /// `[B.., m, k]` read as `[m, B*k]` and `b` `[B.., k, n]` as `[B*k, n]`,
    /// when their batch axes continue the contraction axis (`View::merged`);
    /// `None` when they don't.
    fn fold_batch_sum(&mut self, node: &Node) -> Result<Option<Step>, CompileError> {
        let (a, a_view) = self.strided(node.inputs[0])?;
        let (b, b_view) = self.strided(node.inputs[1])?;
        let r = a_view.dims.len();
        let batch: Vec<usize> = (0..r - 2).collect();
        let a_axes = [batch.as_slice(), &[r - 1]].concat();
        let b_axes = [batch.as_slice(), &[r - 2]].concat();
        let (Some((k, a_stride)), Some((_, b_stride))) =
            (a_view.merged(&a_axes), b_view.merged(&b_axes))
        else {
            return Ok(None);
        };
        let (m, n) = (a_view.dims[r - 2], b_view.dims[r - 1]);
        Ok(Some(Step::Matmul(Matmul {
            a_view: View {
                offset: a_view.offset,
                dims: vec![m, k],
                strides: vec![a_view.strides[r - 2], a_stride],
            },
            a,
            b_view: View {
                offset: b_view.offset,
                dims: vec![k, n],
                strides: vec![b_stride, b_view.strides[r - 1]],
            },
            b,
            bias: None,
            batch: Vec::new(),
            m,
            k,
            n,
        })))
    }

    /// `index` (rows of a table looked up by ids) or, with `values`,
    /// `index-add` (values added into rows of a base), each reading its
    /// operands contiguously.
    fn index_step(&mut self, node: &Node, values: Option<NodeId>) -> Result<Step, CompileError> {
        let (table, ids) = (node.inputs[0], node.inputs[1]);
        let table_dims = self.graph.shape(table).dims().to_vec();
        let (rows, row_len) = (table_dims[0], table_dims[1..].iter().product());
        let n_ids = self.graph.shape(ids).numel();
        let (table, ids) = (self.contig(table)?, self.contig(ids)?);
        Ok(match values {
            None => Step::Index(Index {
                table,
                ids,
                n_ids,
                rows,
                row_len,
            }),
            Some(values) => Step::IndexAdd(IndexAdd {
                base: table,
                ids,
                n_ids,
                values: self.contig(values)?,
                rows,
                row_len,
            }),
        })
    }

    /// `broadcast`, `transpose`, `slice` and `reshape` as views; a reshape of
    /// elements that are not consecutive copies them first.
    fn lower_layout(&mut self, node: &Node) -> Result<Value, CompileError> {
        let x = node.inputs[0];
        let x_dims = self.graph.shape(x).dims().to_vec();
        let (loc, view) = match self.values[x.index()].clone() {
            Value::Splat(v) => return Ok(Value::Splat(v)),
            Value::Stored(loc) => (loc, View::contiguous(&x_dims)),
            Value::Viewed { loc, view } => (loc, view),
            // Row-major order is all a reshape changes nothing of.
            Value::Reshaped { loc, view } if matches!(node.op, Op::Reshape) => {
                return Ok(Value::Reshaped { loc, view })
            }
            Value::Reshaped { .. } => {
                let c = self.contig(x)?;
                (c.loc, View::contiguous(&x_dims).with_offset(c.offset))
            }
            Value::Unneeded | Value::Inline => return Err(self.internal(x)),
        };
        let dims = node.shape.dims();
        let view = match &node.op {
            Op::Broadcast => view.broadcast(dims),
            Op::Transpose { perm } => view.transpose(perm),
            Op::Slice { axis, start, stop } => view.slice(*axis, *start, *stop),
            _ => match view.reshape(dims) {
                Some(v) => v,
                // Copied only if a reader needs the new dims' strides.
                None => return Ok(Value::Reshaped { loc, view }),
            },
        };
        Ok(Value::Viewed { loc, view })
    }

    fn internal(&self, node: NodeId) -> CompileError {
        CompileError::new(
            format!("internal: {node} is read but was not lowered to storage"),
            Some(node),
        )
    }

    /// The node as a kernel operand read through a view.
    fn src(&mut self, node: NodeId) -> Result<Src, CompileError> {
        let n = self.graph.node(node);
        Ok(match self.values[node.index()].clone() {
            Value::Stored(loc) => Src::Mem {
                loc,
                view: View::contiguous(n.shape.dims()),
            },
            Value::Viewed { loc, view } | Value::Reshaped { loc, view } => Src::Mem { loc, view },
            Value::Splat(value) => Src::Splat {
                value,
                dtype: n.dtype,
            },
            Value::Unneeded | Value::Inline => return Err(self.internal(node)),
        })
    }

    /// The node as consecutive elements, copying a view or splat (once).
    fn contig(&mut self, node: NodeId) -> Result<Contig, CompileError> {
        match self.values[node.index()].clone() {
            Value::Stored(loc) => return Ok(Contig { loc, offset: 0 }),
            Value::Viewed { loc, view } if view.is_contiguous() => {
                return Ok(Contig {
                    loc,
                    offset: view.offset,
                })
            }
            _ => {}
        }
        if let Some(c) = self.copies.get(&node) {
            return Ok(*c);
        }
        let src = self.src(node)?;
        let dims = self.graph.shape(node).dims().to_vec();
        let out = self.launch(
            node,
            Step::Copy {
                pieces: vec![(src, View::contiguous(&dims))],
            },
        );
        let c = Contig {
            loc: Loc::Buf(out),
            offset: 0,
        };
        self.copies.insert(node, c);
        Ok(c)
    }

    /// The node as memory with a view (matmul takes any strides); a splat
    /// is copied out first.
    fn strided(&mut self, node: NodeId) -> Result<(Loc, View), CompileError> {
        if let Value::Reshaped { .. } = self.values[node.index()] {
            let c = self.contig(node)?;
            let dims = self.graph.shape(node).dims();
            return Ok((c.loc, View::contiguous(dims).with_offset(c.offset)));
        }
        match self.src(node)? {
            Src::Mem { loc, view } => Ok((loc, view)),
            Src::Splat { .. } => {
                let c = self.contig(node)?;
                Ok((
                    c.loc,
                    View::contiguous(self.graph.shape(node).dims()).with_offset(c.offset),
                ))
            }
        }
    }

    /// An attention part, with the later nodes of its partner parts over
    /// the same operands that the graph needs (`Attention::partners`):
    /// those nodes are then stored by this launch's side outputs.
    fn attention_step(
        &mut self,
        id: NodeId,
        node: &Node,
        part: AttentionPart,
        (causal, scale): (bool, f64),
    ) -> Result<Step, CompileError> {
        let mut operands = Vec::with_capacity(node.inputs.len());
        for &x in &node.inputs {
            operands.push(self.rows_strided(x)?);
        }
        let (q, k) = (node.inputs[0], node.inputs[1]);
        let r = self.graph.shape(q).rank();
        let size = |x: NodeId, axis: usize| self.graph.shape(x).dims()[axis];
        let (mut also, mut side) = (Vec::new(), Vec::new());
        for (other, other_part) in self.attention_partners(id, node, part) {
            let n = self.graph.node(other);
            let buf = self.new_buf(n.dtype, n.shape.numel());
            self.values[other.index()] = Value::Stored(Loc::Buf(buf));
            also.push(other_part);
            side.push(buf);
        }
        // The values' width: of `v`, or of the output for `attention-lse`
        // paired with nothing (it reads no `v`).
        let e = match node.inputs.get(2) {
            Some(&v) => size(v, r - 1),
            None => 0,
        };
        Ok(Step::Attention(Attention {
            part,
            also,
            side,
            causal,
            scale,
            operands,
            batch: self.graph.shape(q).dims()[..r - 2].to_vec(),
            t: size(q, r - 2),
            s: size(k, r - 2),
            d: size(q, r - 1),
            e,
        }))
    }

    /// For each partner part of `part`, the first needed, not yet lowered
    /// attention node after `id` of that part, with the same mask and
    /// scale, reading the operands `id` reads (its own first, for the
    /// log-sum-exp beside the output).
    fn attention_partners(
        &self,
        id: NodeId,
        node: &Node,
        part: AttentionPart,
    ) -> Vec<(NodeId, AttentionPart)> {
        let Op::Attention { causal, scale, .. } = &node.op else {
            return Vec::new();
        };
        let later = || {
            let nodes = self.graph.nodes().iter().enumerate();
            nodes
                .skip(id.index() + 1)
                .map(|(j, n)| (NodeId(j as u32), n))
        };
        let partner = |want: AttentionPart| {
            later().find_map(|(j, n)| {
                let fits = matches!(&n.op, Op::Attention { part: p, causal: c, scale: s }
                if *p == want && c == causal && s.to_bits() == scale.to_bits())
                    && node.inputs.starts_with(&n.inputs)
                    && matches!(self.values[j.index()], Value::Unneeded)
                    && self.needed[j.index()];
                fits.then_some((j, want))
            })
        };
        Attention::partners(part)
            .iter()
            .filter_map(|&want| partner(want))
            .collect()
    }

    /// The node as memory whose last axis is contiguous (or of length 1),
    /// other strides free: how attention reads its operands.
    fn rows_strided(&mut self, node: NodeId) -> Result<(Loc, View), CompileError> {
        let (loc, view) = self.strided(node)?;
        let last = view.dims.len().checked_sub(1);
        if last.is_none_or(|l| view.strides[l] == 1 || view.dims[l] <= 1) {
            return Ok((loc, view));
        }
        let c = self.contig(node)?;
        let dims = self.graph.shape(node).dims();
        Ok((c.loc, View::contiguous(dims).with_offset(c.offset)))
    }

    /// Builds the fused loop whose result is `root`: every inline node it
    /// reads becomes an instruction, every other node a load.
    /// Also returns the register each computed node ended up in.
    fn fuse(
        &mut self,
        root: NodeId,
        inline: &[bool],
    ) -> Result<(FusedKernel, Vec<Src>, NodeRegs), CompileError> {
        let mut fb = FuseBuilder {
            instrs: Vec::new(),
            nodes: Vec::new(),
            inputs: Vec::new(),
            regs: HashMap::new(),
            loads: HashMap::new(),
        };
        let result = self.emit(&mut fb, root, root, inline)?;
        Ok((
            FusedKernel {
                instrs: fb.instrs,
                nodes: fb.nodes,
                result,
                side: Vec::new(),
            },
            fb.inputs,
            fb.regs,
        ))
    }

    fn emit(
        &mut self,
        fb: &mut FuseBuilder,
        node: NodeId,
        root: NodeId,
        inline: &[bool],
    ) -> Result<Reg, CompileError> {
        if let Some(&r) = fb.regs.get(&node) {
            return Ok(r);
        }
        let n = self.graph.node(node);
        if node != root && !inline[node.index()] {
            if let Some(&r) = fb.loads.get(&node) {
                return Ok(r);
            }
            let src = self.src(node)?;
            let r = fb.load(src, n.dtype);
            fb.loads.insert(node, r);
            return Ok(r);
        }
        // Iterative depth would be nicer for very long chains, but fused
        // chains are as deep as the user's expression, which recursion
        // handles comfortably.
        let mut regs = Vec::with_capacity(n.inputs.len());
        for &x in &n.inputs {
            regs.push(self.emit(fb, x, root, inline)?);
        }
        let dtype = n.dtype;
        let input = n.inputs.first().map_or(dtype, |&x| self.graph.dtype(x));
        let instr = fused_instr(&n.op, &regs, dtype, input).ok_or_else(|| self.internal(node))?;
        // The root's instruction is always the last (`FusedKernel::result`).
        let r = match fb.earlier(&instr) {
            Some(r) if node != root => r,
            _ => fb.push(instr, Some(node)),
        };
        fb.regs.insert(node, r);
        Ok(r)
    }
}

/// The register each node computed in a fused loop ended up in.
type NodeRegs = HashMap<NodeId, Reg>;

struct FuseBuilder {
    instrs: Vec<Instr>,
    nodes: Vec<Option<NodeId>>,
    inputs: Vec<Src>,
    regs: HashMap<NodeId, Reg>,
    loads: HashMap<NodeId, Reg>,
}

impl FuseBuilder {
    /// The register of an earlier instruction equal to `instr` (the same
    /// op on the same registers): a common subexpression, such as the two
    /// equal products autodiff writes for the derivative of `x * x`, is
    /// computed once. Reusing it changes no value.
    fn earlier(&self, instr: &Instr) -> Option<Reg> {
        if matches!(instr, Instr::Load { .. }) {
            return None;
        }
        let at = self.instrs.iter().position(|earlier| earlier == instr)?;
        Some(Reg(at as u32))
    }

    /// A load of `src`: a new input, or the load of an equal splat already
    /// read (`full` nodes of one value, one register).
    fn load(&mut self, src: Src, dtype: DType) -> Reg {
        if let Src::Splat { .. } = src {
            let same = self.inputs.iter().position(|s| *s == src);
            let loaded = same.and_then(|input| {
                self.instrs
                    .iter()
                    .position(|i| matches!(*i, Instr::Load { input: k, .. } if k == input))
            });
            if let Some(at) = loaded {
                return Reg(at as u32);
            }
        }
        self.inputs.push(src);
        self.push(
            Instr::Load {
                input: self.inputs.len() - 1,
                dtype,
            },
            None,
        )
    }

    fn push(&mut self, instr: Instr, node: Option<NodeId>) -> Reg {
        self.instrs.push(instr);
        self.nodes.push(node);
        Reg(self.instrs.len() as u32 - 1)
    }
}
