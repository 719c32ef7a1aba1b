//! Gradients of whole models built from primitives (softmax cross-entropy,
//! a two-layer MLP, an embedding + linear-scan + attention sequence model)
//! compared with PyTorch autograd: each test writes the inputs, our loss and
//! our gradients as `.npy` to a fresh folder and runs `tests/torch_grad.py`
//! with the workspace's venv Python, twice: gradients computed in f32 (as a
//! training step runs) within f32 tolerance, and computed in f64 with
//! `execute_f64` within 1e-9. A missing venv is a failure, never a skip.

mod common;

use std::path::Path;

use sexpgpu_autodiff::grad;
use sexpgpu_graph::{
    execute, execute_f64, to_npy, BinaryOp, DType, Graph, NodeId, Op, OpError, ReduceOp, Shape,
    Tensor, UnaryOp,
};
use uitest::support::Rng;

/// Values for a node: floats uniform in `[low, high)`, integers (ids)
/// uniform in `[0, high)`.
fn random_tensor(rng: &mut Rng, shape: &Shape, dtype: DType, low: f64, high: f64) -> Tensor {
    let values: Vec<f64> = (0..shape.numel())
        .map(|_| match dtype {
            DType::I32 | DType::I64 => rng.uniform(0.0, high).floor(),
            _ => rng.uniform(low, high),
        })
        .collect();
    Tensor::from_f64s(shape.clone(), &values, dtype).expect("sizes match")
}

/// Mean over rows of `logsumexp(logits) - logits[target]`, with the max
/// subtracted first, as `nn/cross-entropy` does.
fn cross_entropy(g: &mut Graph, logits: NodeId, targets: NodeId) -> Result<NodeId, OpError> {
    let rows = g.shape(logits).dims()[0];
    let top = g.reduce(ReduceOp::Max, logits, Some(&[-1]), true)?;
    let shifted = g.binary(BinaryOp::Sub, logits, top)?;
    let exp = g.unary(UnaryOp::Exp, shifted)?;
    let total = g.reduce(ReduceOp::Sum, exp, Some(&[-1]), false)?;
    let lse = g.unary(UnaryOp::Log, total)?;
    let column = g.reshape(targets, Shape::new(vec![rows, 1]))?;
    let picked = g.gather(shifted, column, -1)?;
    let picked = g.reshape(picked, Shape::new(vec![rows]))?;
    let per_row = g.binary(BinaryOp::Sub, lse, picked)?;
    let sum = g.reduce(ReduceOp::Sum, per_row, None, false)?;
    g.binary(BinaryOp::Div, sum, rows as f64)
}

/// Softmax over the last axis.
fn softmax(g: &mut Graph, x: NodeId) -> Result<NodeId, OpError> {
    let top = g.reduce(ReduceOp::Max, x, Some(&[-1]), true)?;
    let shifted = g.binary(BinaryOp::Sub, x, top)?;
    let exp = g.unary(UnaryOp::Exp, shifted)?;
    let total = g.reduce(ReduceOp::Sum, exp, Some(&[-1]), true)?;
    g.binary(BinaryOp::Div, exp, total)
}

fn softmax_ce(g: &mut Graph) -> Result<NodeId, OpError> {
    let logits = g.param("logits", Shape::new(vec![4, 5]), DType::F32);
    let targets = g.input("targets", Shape::new(vec![4]), DType::I32);
    cross_entropy(g, logits, targets)
}

fn mlp(g: &mut Graph) -> Result<NodeId, OpError> {
    let x = g.input("x", Shape::new(vec![4, 3]), DType::F32);
    let targets = g.input("targets", Shape::new(vec![4]), DType::I32);
    let w1 = g.param("w1", Shape::new(vec![3, 6]), DType::F32);
    let b1 = g.param("b1", Shape::new(vec![6]), DType::F32);
    let w2 = g.param("w2", Shape::new(vec![6, 5]), DType::F32);
    let b2 = g.param("b2", Shape::new(vec![5]), DType::F32);
    let pre = g.matmul(x, w1)?;
    let pre = g.binary(BinaryOp::Add, pre, b1)?;
    let hidden = g.binary(BinaryOp::Maximum, pre, 0.0)?;
    let logits = g.matmul(hidden, w2)?;
    let logits = g.binary(BinaryOp::Add, logits, b2)?;
    cross_entropy(g, logits, targets)
}

fn sequence(g: &mut Graph) -> Result<NodeId, OpError> {
    let table = g.param("table", Shape::new(vec![7, 3]), DType::F32);
    let ids = g.input("ids", Shape::new(vec![2, 4]), DType::I32);
    let decay = g.param("decay", Shape::new(vec![3]), DType::F32);
    let wv = g.param("wv", Shape::new(vec![3, 3]), DType::F32);
    let emb = g.index(table, ids)?;
    let h = g.linear_scan(decay, emb, 1, false)?;
    let ht = g.transpose(h, &[0, 2, 1])?;
    let scores = g.matmul(h, ht)?;
    let scores = g.binary(BinaryOp::Div, scores, 3f64.sqrt())?;
    let weights = softmax(g, scores)?;
    let values = g.matmul(h, wv)?;
    let out = g.matmul(weights, values)?;
    let square = g.binary(BinaryOp::Mul, out, out)?;
    g.reduce(ReduceOp::Sum, square, None, false)
}

/// Fused attention, plain and causal with more keys than queries, against
/// PyTorch's `scaled_dot_product_attention` (whose causal mask is also
/// aligned at the first query and key).
fn fused_attention(g: &mut Graph) -> Result<NodeId, OpError> {
    let q = g.param("q", Shape::from([2, 3, 5, 4]), DType::F32);
    let k = g.param("k", Shape::from([2, 3, 6, 4]), DType::F32);
    let v = g.param("v", Shape::from([2, 3, 6, 3]), DType::F32);
    let plain = g.attention(q, k, v, false, None)?;
    let causal = g.attention(q, k, v, true, None)?;
    let mut total = None;
    add_square(g, &mut total, plain)?;
    let bent = g.unary(UnaryOp::Sin, causal)?;
    let sum = g.reduce(ReduceOp::Sum, bent, None, false)?;
    let total = total.expect("a term was added");
    g.binary(BinaryOp::Add, total, sum)
}

/// The sum of squares of `y`, added to `total` (the first term starts it).
fn add_square(g: &mut Graph, total: &mut Option<NodeId>, y: NodeId) -> Result<(), OpError> {
    let square = g.binary(BinaryOp::Mul, y, y)?;
    let sum = g.reduce(ReduceOp::Sum, square, None, false)?;
    *total = Some(match *total {
        Some(t) => g.binary(BinaryOp::Add, t, sum)?,
        None => sum,
    });
    Ok(())
}

/// Every elementwise function added after the first set, and the division
/// remainders: `x` in (-1, 1), `pos` in (1.2, 3), `divisor` in (0.5, 2).
fn new_elementwise(g: &mut Graph) -> Result<NodeId, OpError> {
    let x = g.input("x", Shape::from([3, 5]), DType::F32);
    let pos = g.input("pos", Shape::from([3, 5]), DType::F32);
    let divisor = g.input("divisor", Shape::from([5]), DType::F32);
    let mut total = None;
    use UnaryOp::*;
    for op in [
        Sigmoid, Softplus, Log1p, Expm1, Erf, Sinh, Cosh, Tan, Atan, Asinh, Atanh, Exp2, Floor,
        Ceil, Round, Trunc, Sign,
    ] {
        let y = g.unary(op, x)?;
        add_square(g, &mut total, y)?;
    }
    for op in [Acosh, Log2, Log10] {
        let y = g.unary(op, pos)?;
        add_square(g, &mut total, y)?;
    }
    for op in [BinaryOp::Rem, BinaryOp::Mod] {
        let scaled = g.binary(BinaryOp::Mul, pos, 2.0)?;
        let y = g.binary(op, scaled, divisor)?;
        add_square(g, &mut total, y)?;
    }
    let y = g.clip(x, -0.5, 0.5)?;
    add_square(g, &mut total, y)?;
    let y = g.lerp(x, pos, divisor)?;
    add_square(g, &mut total, y)?;
    // `x * stop-gradient(x)`: the gradient sees the second factor as a constant.
    let frozen = g.unary(StopGradient, x)?;
    let y = g.binary(BinaryOp::Mul, x, frozen)?;
    add_square(g, &mut total, y)?;
    Ok(total.expect("terms were added"))
}

/// The composed reductions, scans, sorts and layout operations on `x` in
/// (-1, 1).
fn new_structured(g: &mut Graph) -> Result<NodeId, OpError> {
    let x = g.input("x", Shape::from([3, 5]), DType::F32);
    let mut total = None;
    let terms = [
        g.reduce_min(x, Some(&[1]), false)?,
        g.variance(false, x, Some(&[1]), 1.0, true)?,
        g.variance(true, x, None, 0.0, false)?,
        g.prod(x, Some(&[0]), false)?,
        g.cumprod(x, -1, false)?,
        g.cumprod(x, 0, true)?,
        g.cum_extreme(true, x, -1, false)?,
        g.cum_extreme(false, x, 0, true)?,
        g.logcumsumexp(x, -1, false)?,
        g.sort(x, -1, true)?.0,
        g.top_k(x, 2, 0, false)?.0,
        g.flip(x, &[0, 1])?,
        g.roll(x, 2, Some(1))?,
        g.triangle(false, x, 0)?,
        g.triangle(true, x, 1)?,
        g.repeat(x, &[2, 1, 2])?,
        g.unfold(x, 1, 2, 2)?,
        g.slice_step(x, 1, (4, -1, -2))?,
    ];
    for y in terms {
        add_square(g, &mut total, y)?;
    }
    Ok(total.expect("terms were added"))
}

/// Builds the case, differentiates it with respect to every float argument,
/// runs it, writes everything as `.npy` and has PyTorch check it.
fn check_against_torch(case: &str, build: fn(&mut Graph) -> Result<NodeId, OpError>) {
    let mut g = Graph::new(case);
    let loss = build(&mut g).expect("the model builds");
    let arguments = g.arguments();
    let wrt: Vec<NodeId> = arguments
        .iter()
        .copied()
        .filter(|&a| g.dtype(a).is_float())
        .collect();
    let grads = grad(&mut g, loss, &wrt).expect("grad succeeds");
    g.set_outputs([vec![loss], grads].concat());

    let mut rng = Rng::new(case.len() as u64);
    let args: Vec<Tensor> = arguments
        .iter()
        .map(|&a| {
            let node = g.node(a);
            let (low, high) = match name_of(&g, a) {
                "decay" => (0.3, 0.9),
                // Ids index 5 classes or a 7-row table.
                "targets" => (0.0, 5.0),
                "ids" => (0.0, 7.0),
                "pos" => (1.2, 3.0),
                "divisor" => (0.5, 2.0),
                _ => (-1.0, 1.0),
            };
            random_tensor(&mut rng, &node.shape, node.dtype, low, high)
        })
        .collect();
    let names: Vec<&str> = arguments.iter().map(|&a| name_of(&g, a)).collect();
    let grad_names: Vec<String> = wrt
        .iter()
        .map(|&w| format!("grad_{}", name_of(&g, w)))
        .collect();
    let dir = std::env::temp_dir().join(format!("sexpgpu-autodiff-{case}-{}", std::process::id()));

    // In f32, as a training step runs.
    let results = execute(&g, &args, 0).expect("the step graph runs");
    let f32_dir = dir.join("f32");
    let mut files: Vec<(String, Vec<u8>)> = names
        .iter()
        .zip(&args)
        .map(|(name, t)| (name.to_string(), to_npy(t)))
        .collect();
    files.push(("loss".into(), to_npy(&results[0])));
    for (name, t) in grad_names.iter().zip(&results[1..]) {
        files.push((name.clone(), to_npy(t)));
    }
    run_torch(case, &f32_dir, &files, "1e-4");

    // In f64, on the same (f32-representable) inputs: agreement to 1e-9.
    let wide_args: Vec<Vec<f64>> = args.iter().map(Tensor::to_f64s).collect();
    let results = execute_f64(&g, &wide_args, 0).expect("the step graph runs in f64");
    let outputs = g.outputs().to_vec();
    files.truncate(names.len());
    for ((name, values), node) in std::iter::once(&"loss".to_string())
        .chain(&grad_names)
        .zip(&results)
        .zip(&outputs)
    {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        files.push((
            name.clone(),
            sexpgpu_graph::npy_bytes("<f8", g.shape(*node).dims(), &bytes),
        ));
    }
    run_torch(case, &dir.join("f64"), &files, "1e-9");
    std::fs::remove_dir_all(&dir).expect("remove temp dir");
}

/// Writes `files` (name, `.npy` bytes) into `dir` and runs the PyTorch check
/// on them with relative tolerance `rtol`.
fn run_torch(case: &str, dir: &Path, files: &[(String, Vec<u8>)], rtol: &str) {
    std::fs::create_dir_all(dir).expect("temp dir");
    for (name, bytes) in files {
        std::fs::write(dir.join(format!("{name}.npy")), bytes).expect("write .npy");
    }
    let dir_text = dir.to_string_lossy();
    common::run_script("torch_grad.py", &[case, &dir_text, rtol], dir);
}

fn name_of(g: &Graph, id: NodeId) -> &str {
    match &g.node(id).op {
        Op::Input { name } | Op::Param { name } => name,
        _ => "?",
    }
}

#[test]
fn softmax_cross_entropy_matches_torch() {
    check_against_torch("softmax_ce", softmax_ce);
}

#[test]
fn two_layer_mlp_matches_torch() {
    check_against_torch("mlp", mlp);
}

#[test]
fn embedding_scan_attention_matches_torch() {
    check_against_torch("sequence", sequence);
}

#[test]
fn fused_attention_matches_torch_sdpa() {
    check_against_torch("fused_attention", fused_attention);
}

#[test]
fn new_elementwise_functions_match_torch() {
    check_against_torch("new_elementwise", new_elementwise);
}

#[test]
fn composed_reductions_scans_sorts_and_layouts_match_torch() {
    check_against_torch("new_structured", new_structured);
}
