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

/// How a graph's outputs map back to a host value: one tensor, or a
/// vector or map of layouts, nested as the traced result was (JAX's
/// pytrees: `value-and-grad` gives `[value grads]`, `grads` shaped as the
/// parameters).
#[derive(Clone)]
pub enum Outputs {
    One,
    Vector(Vec<Outputs>),
    Map(Vec<(Value, Outputs)>),
}

impl Outputs {
    /// The host value of `results`, the graph's outputs in order, laid out
    /// as this layout says.
    pub fn rebuild(&self, results: &mut impl Iterator<Item = Value>) -> Value {
        match self {
            Outputs::One => results.next().unwrap_or(Value::Nil),
            Outputs::Vector(items) => {
                Value::vector(items.iter().map(|item| item.rebuild(results)).collect())
            }
            Outputs::Map(entries) => Value::Map(std::rc::Rc::new(
                entries
                    .iter()
                    .map(|(key, item)| (key.clone(), item.rebuild(results)))
                    .collect(),
            )),
        }
    }
}

/// The tensors of a host value (maps, vectors and lists of tensors, nested:
/// `value-and-grad`'s parameters, a training step's state), in order.
pub fn tensor_leaves(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Map(m) => m.iter().for_each(|(_, v)| tensor_leaves(v, out)),
        Value::Vector(xs) | Value::List(xs) => xs.iter().for_each(|v| tensor_leaves(v, out)),
        Value::Tensor(_) | Value::HostTensor(_) => out.push(value.clone()),
        _ => {}
    }
}

/// `template` with its tensors replaced, in order, by `leaves` (nil when
/// they run out): `tensor_leaves` undone.
pub fn with_leaves(template: &Value, leaves: &mut impl Iterator<Item = Value>) -> Value {
    match template {
        Value::Map(m) => Value::Map(std::rc::Rc::new(
            m.iter()
                .map(|(k, v)| (k.clone(), with_leaves(v, leaves)))
                .collect(),
        )),
        Value::Vector(xs) => Value::vector(xs.iter().map(|v| with_leaves(v, leaves)).collect()),
        Value::List(xs) => Value::list(xs.iter().map(|v| with_leaves(v, leaves)).collect()),
        Value::Tensor(_) | Value::HostTensor(_) => leaves.next().unwrap_or(Value::Nil),
        other => other.clone(),
    }
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
