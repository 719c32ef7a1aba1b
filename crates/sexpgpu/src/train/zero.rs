//! ZeRO stage 1 for data-parallel runs (docs/sexpgpu/distributed.md): the
//! optimizer state sharded across the ranks by parameter. Each rank owns
//! a contiguous run of the model's parameters (balanced by elements),
//! keeps only their optimizer state, receives only their summed
//! gradients (a reduce-scatter), updates only them, and the new
//! parameters are all-gathered. Exact when the optimizer's update is
//! separable, each parameter's new value and state depending only on its
//! own parameter, gradient and state (AdamW, SGD); an update that mixes
//! parameters (`:clip-norm`'s global norm) keeps the state replicated.

use super::step::{Slot, StepGraph};
use sexpgpu_graph::Graph;
use std::ops::Range;

/// Which rank owns which parameters and optimizer state.
pub(super) struct Shards {
    /// Each rank's parameters, as a range of parameter indices.
    pub params: Vec<Range<usize>>,
    /// Each rank's gradient (and parameter) elements.
    pub counts: Vec<usize>,
    /// Each rank's optimizer state, as indices into the run's state slots.
    pub state: Vec<Vec<usize>>,
}

/// For each state slot, the one parameter whose update it belongs to;
/// `None` when the update is not separable by parameter. `update` is the
/// split step's update graph: arguments parameters, gradients, state,
/// hyperparameters; outputs new parameters, new state.
pub(super) fn state_owners(update: &Graph, params: usize, state: usize) -> Option<Vec<usize>> {
    let width = params + state;
    let words = width.div_ceil(64).max(1);
    let mut sets: Vec<Vec<u64>> = vec![vec![0; words]; update.nodes().len()];
    for (k, id) in update.arguments().into_iter().enumerate() {
        let bit = match k {
            k if k < params => Some(k),
            k if k < 2 * params => Some(k - params),
            k if k < 2 * params + state => Some(k - params),
            _ => None,
        };
        if let Some(b) = bit {
            sets[id.index()][b / 64] |= 1 << (b % 64);
        }
    }
    for (i, node) in update.nodes().iter().enumerate() {
        for input in &node.inputs {
            let (done, rest) = sets.split_at_mut(i);
            for (w, x) in rest[0].iter_mut().zip(&done[input.index()]) {
                *w |= x;
            }
        }
    }
    let has = |set: &[u64], b: usize| set[b / 64] & (1 << (b % 64)) != 0;
    let outputs = update.outputs();
    if outputs.len() != params + state {
        return None;
    }
    let param_of = |set: &[u64]| -> Option<Option<usize>> {
        let found: Vec<usize> = (0..params).filter(|&p| has(set, p)).collect();
        match found.as_slice() {
            [] => Some(None),
            [p] => Some(Some(*p)),
            _ => None,
        }
    };
    let mut owners = Vec::with_capacity(state);
    for j in 0..state {
        owners.push(param_of(&sets[outputs[params + j].index()])??);
    }
    for (o, &node) in outputs.iter().enumerate() {
        let set = &sets[node.index()];
        let own = if o < params { o } else { owners[o - params] };
        if param_of(set)?.is_some_and(|p| p != own) {
            return None;
        }
        if (0..state).any(|j| has(set, params + j) && owners[j] != own) {
            return None;
        }
    }
    Some(owners)
}

/// Parameters cut into `ranks` contiguous runs of about equal elements
/// (a rank may own none when there are fewer parameters than ranks).
pub(super) fn shard(step: &StepGraph, owners: &[usize], ranks: usize) -> Shards {
    let sizes: Vec<usize> = step.params.iter().map(|s| s.shape.numel()).collect();
    let total: usize = sizes.iter().sum();
    let mut params = Vec::with_capacity(ranks);
    let (mut start, mut seen) = (0, 0);
    for r in 0..ranks {
        let goal = total * (r + 1) / ranks;
        let mut end = start;
        while end < sizes.len() && (r + 1 == ranks || seen + sizes[end] / 2 < goal) {
            seen += sizes[end];
            end += 1;
        }
        params.push(start..end);
        start = end;
    }
    let counts = params
        .iter()
        .map(|r| sizes[r.clone()].iter().sum())
        .collect();
    let state = params
        .iter()
        .map(|r| {
            (0..owners.len())
                .filter(|&j| r.contains(&owners[j]))
                .collect()
        })
        .collect();
    Shards {
        params,
        counts,
        state,
    }
}

/// The run's parameter slots that `range` names.
pub(super) fn slots(step: &StepGraph, range: &Range<usize>) -> Vec<Slot> {
    step.params[range.clone()].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sexpgpu_graph::{BinaryOp, DType, ReduceOp, Shape};

    /// An update graph over two parameters `a` [3] and `b` [5], one state
    /// tensor each, and a learning rate; `mix` adds `b`'s gradient's sum
    /// to `a`'s update, as a global norm would.
    fn update(mix: bool) -> Graph {
        let mut g = Graph::new("update");
        let v = |n: usize| Shape::new(vec![n]);
        let pa = g.param("a", v(3), DType::F32);
        let pb = g.param("b", v(5), DType::F32);
        let ga = g.input("grad/a", v(3), DType::F32);
        let gb = g.input("grad/b", v(5), DType::F32);
        let sa = g.input("opt/m/a", v(3), DType::F32);
        let sb = g.input("opt/m/b", v(5), DType::F32);
        let lr = g.input("hyper/lr", Shape::scalar(), DType::F32);
        let lr3 = g.broadcast_to(lr, v(3)).expect("broadcast");
        let lr5 = g.broadcast_to(lr, v(5)).expect("broadcast");
        let mut ma = g.binary(BinaryOp::Add, sa, ga).expect("add");
        if mix {
            let total = g.reduce(ReduceOp::Sum, gb, None, false).expect("sum");
            let total = g.broadcast_to(total, v(3)).expect("broadcast");
            ma = g.binary(BinaryOp::Add, ma, total).expect("add");
        }
        let mb = g.binary(BinaryOp::Add, sb, gb).expect("add");
        let da = g.binary(BinaryOp::Mul, ma, lr3).expect("mul");
        let db = g.binary(BinaryOp::Mul, mb, lr5).expect("mul");
        let na = g.binary(BinaryOp::Sub, pa, da).expect("sub");
        let nb = g.binary(BinaryOp::Sub, pb, db).expect("sub");
        g.set_outputs(vec![na, nb, ma, mb]);
        g
    }

    #[test]
    fn a_separable_update_gives_each_state_its_parameter() {
        assert_eq!(state_owners(&update(false), 2, 2), Some(vec![0, 1]));
    }

    #[test]
    fn an_update_that_mixes_parameters_is_not_sharded() {
        assert_eq!(state_owners(&update(true), 2, 2), None);
    }
}
