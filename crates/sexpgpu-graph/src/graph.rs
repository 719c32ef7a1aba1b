//! The SSA graph: nodes with an op, inputs, shape, dtype and source span, plus
//! the graph's arguments and outputs. Builders that check shape rules are in
//! `build`; this module only stores what they decided.

use diag::Span;

use crate::dtype::{DType, Scalar};
use crate::op::Op;
use crate::shape::Shape;

/// A node's position in its graph: `%3` in the IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "%{}", self.0)
    }
}

/// One operation applied to earlier nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub op: Op,
    /// Earlier nodes only: the graph is in SSA order.
    pub inputs: Vec<NodeId>,
    pub shape: Shape,
    pub dtype: DType,
    /// The form that made the node, when there is one.
    pub span: Option<Span>,
}

/// A builder argument that is a tensor or a plain number; a number mixed with
/// a tensor becomes a broadcast constant of the tensor's dtype (seed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    Tensor(NodeId),
    Number(Scalar),
}

impl From<NodeId> for Operand {
    fn from(id: NodeId) -> Operand {
        Operand::Tensor(id)
    }
}

impl From<Scalar> for Operand {
    fn from(s: Scalar) -> Operand {
        Operand::Number(s)
    }
}

impl From<f64> for Operand {
    fn from(x: f64) -> Operand {
        Operand::Number(Scalar::Float(x))
    }
}

impl From<i64> for Operand {
    fn from(i: i64) -> Operand {
        Operand::Number(Scalar::Int(i))
    }
}

/// A traced computation. Builders (in `build`) append nodes after checking
/// the op's shape and dtype rules; nodes are never removed or changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    name: String,
    nodes: Vec<Node>,
    outputs: Vec<NodeId>,
    /// The span given to nodes made from now on (see [`Graph::set_span`]).
    current_span: Option<Span>,
    /// How many random builders have been called: the next random stream.
    next_stream: u32,
}

impl Graph {
    pub fn new(name: impl Into<String>) -> Graph {
        Graph {
            name: name.into(),
            nodes: Vec::new(),
            outputs: Vec::new(),
            current_span: None,
            next_stream: 0,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sets the source span recorded on every node made until the next call.
    /// The tracer sets it to the form it is evaluating, so the broadcast and
    /// constant nodes an operation adds point at that form too.
    pub fn set_span(&mut self, span: Option<Span>) {
        self.current_span = span;
    }

    pub fn span(&self) -> Option<Span> {
        self.current_span
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Whether `id` names a node of this graph. Builders index nodes
    /// directly, so a caller holding ids from several graphs checks first
    /// (and reports `E-FLOW-002` when it does not).
    /// The nodes, for a transformation that builds a new graph from a clone
    /// (`dedup.rs`); builders only append.
    pub(crate) fn nodes_mut(&mut self) -> &mut [Node] {
        &mut self.nodes
    }

    pub fn contains(&self, id: NodeId) -> bool {
        id.index() < self.nodes.len()
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn shape(&self, id: NodeId) -> &Shape {
        &self.node(id).shape
    }

    pub fn dtype(&self, id: NodeId) -> DType {
        self.node(id).dtype
    }

    /// `[2, 16] f32`: how notes describe an operand after its written name.
    pub fn describe(&self, id: NodeId) -> String {
        let node = self.node(id);
        format!("{} {}", node.shape, node.dtype)
    }

    /// Adds a graph input (`input x [2, 16] f32`).
    pub fn input(&mut self, name: impl Into<String>, shape: Shape, dtype: DType) -> NodeId {
        self.push(Op::Input { name: name.into() }, Vec::new(), shape, dtype)
    }

    /// Adds a parameter; bound by position like an input.
    pub fn param(&mut self, name: impl Into<String>, shape: Shape, dtype: DType) -> NodeId {
        self.push(Op::Param { name: name.into() }, Vec::new(), shape, dtype)
    }

    /// Input and param nodes in creation order: the order `execute` binds
    /// its argument tensors in.
    pub fn arguments(&self) -> Vec<NodeId> {
        (0..self.nodes.len() as u32)
            .map(NodeId)
            .filter(|&id| matches!(self.node(id).op, Op::Input { .. } | Op::Param { .. }))
            .collect()
    }

    pub fn input_count(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| matches!(n.op, Op::Input { .. }))
            .count()
    }

    pub fn param_count(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| matches!(n.op, Op::Param { .. }))
            .count()
    }

    /// Sets what the graph returns, in order.
    pub fn set_outputs(&mut self, outputs: Vec<NodeId>) {
        self.outputs = outputs;
    }

    pub fn outputs(&self) -> &[NodeId] {
        &self.outputs
    }

    /// For each node, whether an output depends on it; the rest are never
    /// computed (by the reference interpreter or a compiled program).
    pub fn needed(&self) -> Vec<bool> {
        let mut needed = vec![false; self.len()];
        for o in &self.outputs {
            needed[o.index()] = true;
        }
        for (i, node) in self.nodes.iter().enumerate().rev() {
            if needed[i] {
                for input in &node.inputs {
                    needed[input.index()] = true;
                }
            }
        }
        needed
    }

    /// Takes the next random stream number. Degenerate random builders take
    /// one too, so zeroing one initialiser does not reshuffle the others.
    pub(crate) fn take_stream(&mut self) -> u32 {
        let stream = self.next_stream;
        self.next_stream = self.next_stream.wrapping_add(1);
        stream
    }

    pub(crate) fn push(
        &mut self,
        op: Op,
        inputs: Vec<NodeId>,
        shape: Shape,
        dtype: DType,
    ) -> NodeId {
        debug_assert!(inputs.iter().all(|i| i.index() < self.nodes.len()));
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            op,
            inputs,
            shape,
            dtype,
            span: self.current_span,
        });
        id
    }
}
