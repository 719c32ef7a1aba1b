//! The finite-difference harness: builds a graph over described inputs,
//! projects its output onto fixed random weights to get a scalar loss, and
//! compares [`grad`]'s result with central differences of that loss. Also
//! the `check_ir` snapshot helper. Randomness is `uitest::support::Rng`,
//! seeded, so every run sees the same inputs.

use diag::SourceMap;
use expect_test::Expect;
use sexpgpu_graph::{
    execute, execute_f64, print_ir, BinaryOp, DType, Graph, NodeId, OpError, ReduceOp, Shape,
    Tensor,
};

use crate::grad;

pub(super) use uitest::support::Rng;

/// One graph input: its shape, dtype and values; float inputs are
/// differentiated, integer ones (ids) are not.
#[derive(Clone, Debug)]
pub(super) struct Arg {
    pub dims: Vec<usize>,
    pub dtype: DType,
    pub values: Vec<f64>,
}

/// Graph inputs drawn from the shared test generator.
pub(super) trait RandomArgs {
    /// A float input with values uniform in `[low, high)`.
    fn floats(&mut self, dims: &[usize], low: f64, high: f64) -> Arg;
    /// A float input whose values are a shuffle of evenly spaced points in
    /// `[low, high]` (none at 0 when the range is symmetric), so no two are
    /// close: for ops with kinks at ties (`max`, `maximum`, `abs`), where a
    /// finite step must not cross one.
    fn distinct(&mut self, dims: &[usize], low: f64, high: f64) -> Arg;
    /// An integer input (ids) with values in `[0, n)`.
    fn ids(&mut self, dims: &[usize], n: usize) -> Arg;
}

impl RandomArgs for Rng {
    fn floats(&mut self, dims: &[usize], low: f64, high: f64) -> Arg {
        let n = dims.iter().product();
        Arg {
            dims: dims.to_vec(),
            dtype: DType::F32,
            values: (0..n).map(|_| self.uniform(low, high)).collect(),
        }
    }

    fn distinct(&mut self, dims: &[usize], low: f64, high: f64) -> Arg {
        let n: usize = dims.iter().product();
        let mut values: Vec<f64> = (0..n)
            .map(|i| low + (high - low) * (i as f64 + 0.5) / n as f64)
            .collect();
        for i in (1..n).rev() {
            values.swap(i, self.below(i + 1));
        }
        Arg {
            dims: dims.to_vec(),
            dtype: DType::F32,
            values,
        }
    }

    fn ids(&mut self, dims: &[usize], n: usize) -> Arg {
        let count = dims.iter().product();
        Arg {
            dims: dims.to_vec(),
            dtype: DType::I32,
            values: (0..count).map(|_| self.below(n) as f64).collect(),
        }
    }
}

/// Step and tolerance of the central differences, computed in f64: the
/// truncation error is about `STEP^2` and the rounding error about
/// `1e-16 / STEP` relative to the loss, both far below the tolerance.
const STEP: f64 = 1e-6;
const TOLERANCE: f64 = 1e-6;

/// Runs `graph` on `args` (one per argument node, in order) with every float
/// node computed in f64, and returns its outputs.
fn eval(graph: &Graph, args: &[Vec<f64>]) -> Vec<Vec<f64>> {
    execute_f64(graph, args, 0).unwrap_or_else(|e| panic!("the graph runs: {e}"))
}

/// Builds `build` over inputs `args`, makes the scalar loss
/// `sum(output * w)` for fixed random weights `w` (so every output element
/// matters, with a different weight), and checks the gradient of every float
/// input against central differences. `seed` picks the weights.
pub(super) fn check_fd(
    seed: u64,
    args: &[Arg],
    build: impl FnOnce(&mut Graph, &[NodeId]) -> Result<NodeId, OpError>,
) {
    let mut g = Graph::new("fd");
    let inputs: Vec<NodeId> = args
        .iter()
        .enumerate()
        .map(|(i, a)| g.input(format!("x{i}"), Shape::from(a.dims.as_slice()), a.dtype))
        .collect();
    let out = build(&mut g, &inputs).expect("the forward graph builds");
    let loss = project(&mut g, out, seed);
    let wrt: Vec<NodeId> = inputs
        .iter()
        .copied()
        .filter(|&x| g.dtype(x).is_float())
        .collect();
    let forward = {
        let mut f = g.clone();
        f.set_outputs(vec![loss]);
        f
    };
    let grads = grad(&mut g, loss, &wrt).expect("grad succeeds");
    g.set_outputs(grads.clone());
    let values: Vec<Vec<f64>> = args.iter().map(|a| a.values.clone()).collect();
    let analytic = eval(&g, &values);
    let mut failures = Vec::new();
    for (k, &x) in wrt.iter().enumerate() {
        let which = inputs.iter().position(|&i| i == x).expect("wrt are inputs");
        for e in 0..values[which].len() {
            let at = |delta: f64| {
                let mut moved = values.clone();
                moved[which][e] += delta;
                eval(&forward, &moved)[0][0]
            };
            let numeric = (at(STEP) - at(-STEP)) / (2.0 * STEP);
            let ours = analytic[k][e];
            let scale = numeric.abs().max(ours.abs()).max(1.0);
            // Written so that a NaN on either side counts as a mismatch.
            let close = (numeric - ours).abs() <= TOLERANCE * scale;
            if !close {
                failures.push(format!(
                    "d loss / d x{which}[{e}]: grad {ours}, finite differences {numeric}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "gradient mismatches:\n{}\n\ngraph:\n{}",
        failures.join("\n"),
        print_ir(&g, &SourceMap::new())
    );
}

/// `sum(out * w)` with `w` a constant of random weights in `[0.5, 1.5)`.
fn project(g: &mut Graph, out: NodeId, seed: u64) -> NodeId {
    let shape = g.shape(out).clone();
    let mut rng = Rng::new(seed ^ 0x5eed);
    let weights: Vec<f64> = (0..shape.numel()).map(|_| rng.uniform(0.5, 1.5)).collect();
    let w = g.constant(Tensor::from_f64s(shape, &weights, g.dtype(out)).expect("sizes match"));
    let weighted = g.binary(BinaryOp::Mul, out, w).expect("same shape");
    g.reduce(ReduceOp::Sum, weighted, None, false)
        .expect("sum of a float")
}

/// Builds a graph with `build`, which returns the loss and the nodes to
/// differentiate, then prints the whole graph (forward and backward) as IR.
pub(super) fn check_ir(
    build: impl FnOnce(&mut Graph) -> Result<(NodeId, Vec<NodeId>), OpError>,
    expect: Expect,
) {
    let mut g = Graph::new("t");
    let (loss, wrt) = build(&mut g).expect("the forward graph builds");
    let text = match grad(&mut g, loss, &wrt) {
        Ok(grads) => {
            g.set_outputs(grads);
            print_ir(&g, &SourceMap::new())
        }
        Err(e) => {
            let mut text = format!("error: {}\n", e.message);
            if let Some(note) = &e.note {
                text.push_str(&format!("note: {note}\n"));
            }
            text
        }
    };
    expect.assert_eq(&text);
}

/// Runs `grad` on a graph of constants and prints the gradients' values:
/// for the conventions at ties and kinks, which finite differences cannot
/// check.
pub(super) fn check_values(
    build: impl FnOnce(&mut Graph) -> Result<(NodeId, Vec<NodeId>), OpError>,
    expect: Expect,
) {
    let mut g = Graph::new("t");
    let (loss, wrt) = build(&mut g).expect("the forward graph builds");
    let grads = grad(&mut g, loss, &wrt).expect("grad succeeds");
    g.set_outputs(grads);
    let text: Vec<String> = execute(&g, &[], 0)
        .expect("the graph runs")
        .iter()
        .map(|t| t.to_string())
        .collect();
    expect.assert_eq(&text.join("\n"));
}
