//! Common subexpressions of the argument-free part of a graph: nodes that
//! read no input or parameter (positions from `iota`, fills, masks built
//! from them) compute the same values wherever they are repeated, so a
//! repeated one can be read from its first occurrence. A model that builds
//! its causal mask in every layer then builds it once. The graph's own
//! nodes are never changed; the merge is a new graph for a compiler.

use std::collections::HashMap;

use crate::graph::{Graph, NodeId};
use crate::op::Op;
use crate::shape::Shape;
use crate::DType;

impl Graph {
    /// This graph with every use of a repeated argument-free node (same
    /// op, same inputs after merging, same shape and dtype) redirected to
    /// its first occurrence; `None` when nothing repeats. Node ids and the
    /// outputs stay as they are (an output that repeats is still computed
    /// on its own), so anything keyed by node id still holds.
    pub fn with_argument_free_duplicates_merged(&self) -> Option<Graph> {
        let first = self.first_occurrences();
        if first.iter().enumerate().all(|(i, f)| f.index() == i) {
            return None;
        }
        let mut merged = self.clone();
        for node in merged.nodes_mut() {
            for input in &mut node.inputs {
                *input = first[input.index()];
            }
        }
        Some(merged)
    }

    /// For each node, the first node computing the same values when both
    /// are argument-free (itself otherwise).
    fn first_occurrences(&self) -> Vec<NodeId> {
        let mut first: Vec<NodeId> = Vec::with_capacity(self.len());
        let mut free = vec![false; self.len()];
        // Candidates by what is cheap to hash; their ops compared in full.
        let mut seen: HashMap<(Vec<NodeId>, Shape, DType), Vec<NodeId>> = HashMap::new();
        for (i, node) in self.nodes().iter().enumerate() {
            let id = NodeId(i as u32);
            free[i] = !matches!(
                node.op,
                Op::Input { .. } | Op::Param { .. } | Op::Constant { .. }
            ) && node.inputs.iter().all(|x| free[x.index()]);
            if !free[i] {
                first.push(id);
                continue;
            }
            let inputs: Vec<NodeId> = node.inputs.iter().map(|x| first[x.index()]).collect();
            let key = (inputs, node.shape.clone(), node.dtype);
            let same = seen.entry(key).or_default();
            match same.iter().find(|j| self.nodes()[j.index()].op == node.op) {
                Some(&earlier) => first.push(earlier),
                None => {
                    same.push(id);
                    first.push(id);
                }
            }
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use crate::{execute, BinaryOp, CompareOp, DType, Graph, Shape, Tensor};

    /// A two-layer model building its causal mask in each layer.
    fn masked_twice() -> Graph {
        let mut g = Graph::new("masked");
        let x = g.input("x", Shape::from([4, 4]), DType::F32);
        let mut h = x;
        for _ in 0..2 {
            let rows = g.iota(Shape::from([4, 4]), 0, DType::I32).unwrap();
            let cols = g.iota(Shape::from([4, 4]), 1, DType::I32).unwrap();
            let mask = g.compare(CompareOp::Ge, rows, cols).unwrap();
            let zero = g
                .full(Shape::from([4, 4]), crate::Scalar::Float(0.0), DType::F32)
                .unwrap();
            h = g.where_(mask, h, zero).unwrap();
            h = g.binary(BinaryOp::Add, h, x).unwrap();
        }
        g.set_outputs(vec![h]);
        g
    }

    #[test]
    fn a_mask_built_in_every_layer_is_read_from_the_first() {
        let g = masked_twice();
        let merged = g
            .with_argument_free_duplicates_merged()
            .expect("the mask repeats");
        assert_eq!(merged.len(), g.len(), "node ids stay");
        // The second layer's `where` reads the first layer's mask and zeros.
        let wheres: Vec<_> = merged
            .nodes()
            .iter()
            .filter(|n| matches!(n.op, crate::Op::Where))
            .collect();
        assert_eq!(wheres[0].inputs[0], wheres[1].inputs[0]);
        assert_eq!(wheres[0].inputs[2], wheres[1].inputs[2]);
        // Inputs are never merged, and the values are the same.
        let arg = Tensor::from_f64s(Shape::from([4, 4]), &[1.5; 16], DType::F32).unwrap();
        let args = [arg];
        assert_eq!(execute(&merged, &args, 0), execute(&g, &args, 0));
    }

    #[test]
    fn nothing_repeats_nothing_merges() {
        let mut g = Graph::new("plain");
        let x = g.input("x", Shape::from([3]), DType::F32);
        let y = g.input("y", Shape::from([3]), DType::F32);
        let s = g.binary(BinaryOp::Add, x, y).unwrap();
        let t = g.binary(BinaryOp::Add, x, y).unwrap();
        g.set_outputs(vec![s, t]);
        // Equal, but reading inputs: left to the compiler's fusion.
        assert!(g.with_argument_free_duplicates_merged().is_none());
    }
}
