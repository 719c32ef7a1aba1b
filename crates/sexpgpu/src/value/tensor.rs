//! The tensor-side values a host value can hold: a traced node's handle, a
//! computed tensor, a finished graph. Plain data: recording and running
//! graphs belong to `trace`, which builds these.

use super::Value;
use diag::Span;
use sexpgpu_graph::{DType, Graph, NodeId, Shape, Tensor};

/// A computed tensor: what `call` returns.
pub type HostTensor = Tensor;

/// A handle to one node of one traced graph.
pub struct Traced {
    /// Which tracing the node belongs to (not a graph's name: a graph
    /// traced twice gives two different ids).
    pub graph: u32,
    pub node: NodeId,
    pub shape: Shape,
    pub dtype: DType,
}

impl Traced {
    /// `[2, 16] f32`, as operand notes print it.
    pub fn describe(&self) -> String {
        format!("{} {}", self.shape, self.dtype)
    }

    pub fn describe_value(&self) -> String {
        format!("#<tensor {} {}>", self.shape, self.dtype)
    }
}

/// How a graph's outputs map back to a host value.
pub enum Outputs {
    One,
    Vector(usize),
    Map(Vec<Value>),
}

/// A finished `defgraph`.
pub struct GraphDef {
    pub name: String,
    pub graph: Graph,
    pub outputs: Outputs,
    pub span: Span,
    /// The positions of the outputs a `defmodel` body marked with `buffer`:
    /// the model's state that no optimizer trains (`docs/sexpgpu/models.md`).
    /// Empty for every other graph.
    pub buffers: Vec<usize>,
}
