//! The use `grad` exists for: one step graph holding the forward pass, the
//! backward pass and an SGD update, run repeatedly with its new parameters
//! fed back in, must fit a small regression problem.

use sexpgpu_autodiff::grad;
use sexpgpu_graph::{execute, BinaryOp, DType, Graph, NodeId, ReduceOp, Shape, Tensor, UnaryOp};

const LEARNING_RATE: f64 = 0.1;

/// A one-hidden-layer tanh network on `x` [8, 2] fitting `y` [8, 1], with
/// outputs: the loss, then each parameter after one SGD step.
fn step_graph() -> (Graph, Vec<NodeId>) {
    let mut g = Graph::new("step");
    let x = g.input("x", Shape::new(vec![8, 2]), DType::F32);
    let y = g.input("y", Shape::new(vec![8, 1]), DType::F32);
    let w1 = g.param("w1", Shape::new(vec![2, 8]), DType::F32);
    let b1 = g.param("b1", Shape::new(vec![8]), DType::F32);
    let w2 = g.param("w2", Shape::new(vec![8, 1]), DType::F32);
    let params = vec![w1, b1, w2];
    let build = |g: &mut Graph| -> Result<NodeId, sexpgpu_graph::OpError> {
        let h = g.matmul(x, w1)?;
        let h = g.binary(BinaryOp::Add, h, b1)?;
        let h = g.unary(UnaryOp::Tanh, h)?;
        let out = g.matmul(h, w2)?;
        let err = g.binary(BinaryOp::Sub, out, y)?;
        let sq = g.binary(BinaryOp::Mul, err, err)?;
        let total = g.reduce(ReduceOp::Sum, sq, None, false)?;
        g.binary(BinaryOp::Div, total, 8.0)
    };
    let loss = build(&mut g).expect("the model builds");
    let grads = grad(&mut g, loss, &params).expect("grad succeeds");
    let mut outputs = vec![loss];
    for (&p, &d) in params.iter().zip(&grads) {
        let scaled = g
            .binary(BinaryOp::Mul, d, LEARNING_RATE)
            .expect("same dtype");
        outputs.push(g.binary(BinaryOp::Sub, p, scaled).expect("same shape"));
    }
    g.set_outputs(outputs);
    (g, params)
}

fn tensor(dims: &[usize], values: impl IntoIterator<Item = f64>) -> Tensor {
    let values: Vec<f64> = values.into_iter().collect();
    Tensor::from_f64s(Shape::from(dims), &values, DType::F32).expect("sizes match")
}

#[test]
fn sgd_on_the_step_graph_fits_a_small_problem() {
    let (g, params) = step_graph();
    assert_eq!(params.len(), 3);
    // y = sin(x0) + x1 / 2 on eight points.
    let points: Vec<(f64, f64)> = (0..8)
        .map(|i| ((i as f64) / 4.0 - 1.0, ((i * 3 % 8) as f64) / 4.0 - 1.0))
        .collect();
    let x = tensor(&[8, 2], points.iter().flat_map(|&(a, b)| [a, b]));
    let y = tensor(&[8, 1], points.iter().map(|&(a, b)| a.sin() + b / 2.0));
    // Small fixed initial weights, different per element.
    let mut state = vec![
        tensor(&[2, 8], (0..16).map(|i| ((i * 7 % 11) as f64 - 5.0) / 10.0)),
        tensor(&[8], (0..8).map(|_| 0.0)),
        tensor(&[8, 1], (0..8).map(|i| ((i * 5 % 9) as f64 - 4.0) / 10.0)),
    ];
    let mut losses = Vec::new();
    for _ in 0..300 {
        let args = [vec![x.clone(), y.clone()], state].concat();
        let mut out = execute(&g, &args, 0).expect("the step runs");
        losses.push(out[0].to_f64s()[0]);
        state = out.split_off(1);
    }
    let (first, last) = (losses[0], losses[losses.len() - 1]);
    assert!(
        last < first / 20.0 && losses.windows(2).all(|w| w[1] <= w[0] * 1.01),
        "the loss must fall steadily: first {first}, last {last}\n{losses:?}"
    );
}
