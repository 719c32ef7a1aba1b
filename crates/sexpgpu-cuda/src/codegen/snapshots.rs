//! Snapshots of generated kernels, one file each under `snapshots/`, so a
//! change to the generated CUDA is reviewed as a diff of real kernel text
//! (`UPDATE_EXPECT=1 cargo test -p sexpgpu-cuda` rewrites them). The
//! helpers every kernel starts with (`prelude.rs`) are named, not copied:
//! they are reviewed where they are written. Also which kernels a step
//! becomes, where that is the point (attention's gradients).

use expect_test::expect_file;
use sexpgpu_graph::{BinaryOp, DType, Graph, NodeId, ReduceOp, Scalar, Shape, UnaryOp};

use super::{generate_plan, prelude, StepCode};

/// The kernels of `g`'s plan, each as `// kind params shape`, the
/// prelude parts it includes, and its own text.
fn kernels_of(g: &Graph) -> Vec<String> {
    let program = sexpgpu_compile::compile(g).unwrap();
    generate_plan(program.plan())
        .unwrap()
        .iter()
        .flat_map(StepCode::kernels)
        .map(|k| {
            let mut text = k.source.as_str();
            let mut parts = Vec::new();
            for (name, part) in [
                ("PRELUDE", prelude::PRELUDE),
                ("RANDOM", prelude::RANDOM),
                ("ERRORS", prelude::ERRORS),
                ("ATTENTION", prelude::ATTENTION),
            ] {
                if let Some(rest) = text.strip_prefix(part) {
                    parts.push(name);
                    text = rest;
                }
            }
            let header = format!("// {} {:?} {:?}", k.kind, k.params, k.shape);
            format!("{header}\n// prelude.rs: {}\n{text}", parts.join(" "))
        })
        .collect()
}

/// Asserts that `g` has one kernel per name in `snapshots` (`what` says
/// which kernels), each its snapshot `snapshots/{name}.cu`, in order.
fn assert_kernels(g: &Graph, what: &str, snapshots: &[&str]) {
    let k = kernels_of(g);
    assert_eq!(k.len(), snapshots.len(), "{what}");
    for (kernel, name) in k.iter().zip(snapshots) {
        expect_file![format!("snapshots/{name}.cu")].assert_eq(kernel);
    }
}

/// `tanh(x * 2 + b)` in bf16 with a broadcast bias (`y`), and its row sum.
fn bf16_chain_and_row_sum() -> (Graph, NodeId, NodeId) {
    let mut g = Graph::new("snap");
    let x = g.input("x", Shape::from([4, 8]), DType::BF16);
    let b = g.param("b", Shape::from([8]), DType::BF16);
    let y = g.binary(BinaryOp::Mul, x, Scalar::Float(2.0)).unwrap();
    let bb = g.broadcast_to(b, Shape::from([4, 8])).unwrap();
    let y = g.binary(BinaryOp::Add, y, bb).unwrap();
    let y = g.unary(UnaryOp::Tanh, y).unwrap();
    let s = g.reduce(ReduceOp::Sum, y, Some(&[1]), false).unwrap();
    (g, y, s)
}

/// `tanh(x * 2 + b)` in bf16 with a broadcast bias, stored (an output)
/// and summed by rows.
#[test]
fn fused_bf16_chain_and_row_sum() {
    let (mut g, y, s) = bf16_chain_and_row_sum();
    g.set_outputs(vec![s, y]);
    assert_kernels(
        &g,
        "one fused loop and one reduction",
        &["fused_bf16", "reduce_sum_rows"],
    );
}

/// The same chain summed by rows as it is computed (never stored): the
/// reduction calls the chain's device function.
#[test]
fn fused_row_sum() {
    let (mut g, _, s) = bf16_chain_and_row_sum();
    g.set_outputs(vec![s]);
    assert_kernels(&g, "one fused reduction", &["fused_sum_rows"]);
}

/// A normal fill (Threefry) and an `index-add` of rows.
#[test]
fn normal_fill_and_index_add() {
    let mut g = Graph::new("snap");
    let noise = g.normal(Shape::from([3, 5]), DType::F32, 0.0, 0.5).unwrap();
    let ids = g.input("ids", Shape::from([6]), DType::I32);
    let values = g.input("v", Shape::from([6, 5]), DType::F32);
    let sum = g.index_add(noise, ids, values).unwrap();
    g.set_outputs(vec![sum]);
    assert_kernels(&g, "a fill and an index-add", &["normal", "index_add"]);
}

/// A moment update read only by the parameter update: one kernel stores
/// both (`side0` beside `out`), as AdamW's step does for its moments, and
/// reads the parameter and the moment it overwrites in place from `out`
/// and `side0` (a run that owns its arguments).
#[test]
fn fused_side_output() {
    assert_kernels(
        &moment_and_parameter_update(),
        "one fused loop stores both",
        &["fused_side"],
    );
}

/// `p - (m * 0.9 + g)`, storing the new `m` beside it: `p` and `m` are
/// arguments the loop may overwrite in place.
pub(super) fn moment_and_parameter_update() -> Graph {
    let mut g = Graph::new("snap");
    let p = g.param("p", Shape::from([4, 8]), DType::F32);
    let grad = g.input("g", Shape::from([4, 8]), DType::F32);
    let m = g.input("m", Shape::from([4, 8]), DType::F32);
    let kept = g.binary(BinaryOp::Mul, m, Scalar::Float(0.9)).unwrap();
    let m2 = g.binary(BinaryOp::Add, kept, grad).unwrap();
    let p2 = g.binary(BinaryOp::Sub, p, m2).unwrap();
    g.set_outputs(vec![p2, m2]);
    g
}

/// The cooperative layouts: a row max by warps (softmax's), a column sum
/// by tiles (a bias's gradient over a batch of tokens), and an index-add of many ids by blocks
/// (an embedding's gradient), after the kernel marking the rows its ids
/// name.
#[test]
fn cooperative_kernels() {
    let mut g = Graph::new("snap");
    let scores = g.input("scores", Shape::from([64, 1024]), DType::F32);
    let row_max = g.reduce(ReduceOp::Max, scores, Some(&[1]), false).unwrap();
    // 8,192 tokens: a long run, so 32 slices (1024 threads) a tile.
    let grad = g.input("grad", Shape::from([8192, 768]), DType::F32);
    let column_sum = g.reduce(ReduceOp::Sum, grad, Some(&[0]), false).unwrap();
    let table = g.input("table", Shape::from([50, 300]), DType::F32);
    let ids = g.input("ids", Shape::from([100]), DType::I32);
    let rows = g.input("rows", Shape::from([100, 300]), DType::F32);
    let added = g.index_add(table, ids, rows).unwrap();
    g.set_outputs(vec![row_max, column_sum, added]);
    assert_kernels(
        &g,
        "a kernel each, two for the index-add",
        &[
            "reduce_max_rows_by_warp",
            "reduce_sum_columns_by_tile",
            "index_add_marks",
            "index_add_many_ids",
        ],
    );
}

/// Fused attention over `[2, 37, 24]` queries and `[2, 53, 24]` keys
/// (`e = 40`), causal: in bf16 the output with its log-sum-exp beside it
/// (one launch, a side output), tensor-core products; in f32 the gradient
/// of `q`, products on the CUDA cores.
#[test]
fn attention_kernels() {
    let attention = |dtype: DType, grad: bool| {
        let mut g = Graph::new("snap");
        let q = g.input("q", Shape::from([2, 37, 24]), dtype);
        let k = g.input("k", Shape::from([2, 53, 24]), dtype);
        let v = g.input("v", Shape::from([2, 53, 40]), dtype);
        let scale = 0.2;
        let out = g.attention(q, k, v, true, Some(scale)).unwrap();
        let lse = g.attention_lse(q, k, true, scale).unwrap();
        if grad {
            let dout = g.input("dout", Shape::from([2, 37, 40]), dtype);
            let delta = g.input("delta", Shape::from([2, 37]), DType::F32);
            let inputs = [q, k, v, dout, lse, delta];
            let dq = g.attention_grad(0, inputs, true, scale).unwrap();
            g.set_outputs(vec![dq]);
        } else {
            g.set_outputs(vec![out, lse]);
        }
        kernels_of(&g)
    };
    let forward = attention(DType::BF16, false);
    assert_eq!(
        forward.len(),
        1,
        "the output and its log-sum-exp in one launch"
    );
    expect_file!["snapshots/attention_bf16_causal.cu"].assert_eq(&forward[0]);
    let grad = attention(DType::F32, true);
    assert_eq!(grad.len(), 2, "the log-sum-exp, then the gradient of q");
    expect_file!["snapshots/attention_grad_q_f32.cu"].assert_eq(&grad[1]);
}

/// The three gradients are one plan step (`Attention::partners`), which is
/// two kernels here, one a side: the query side's writes the step's output
/// (`dq`), the key side's its two side outputs (`dk`, `dv`).
#[test]
fn attention_gradients_take_a_kernel_a_side() {
    let mut g = Graph::new("grads");
    let q = g.input("q", Shape::from([2, 37, 24]), DType::F32);
    let k = g.input("k", Shape::from([2, 53, 24]), DType::F32);
    let v = g.input("v", Shape::from([2, 53, 40]), DType::F32);
    let dout = g.input("dout", Shape::from([2, 37, 40]), DType::F32);
    let delta = g.input("delta", Shape::from([2, 37]), DType::F32);
    let lse = g.input("lse", Shape::from([2, 37]), DType::F32);
    let inputs = [q, k, v, dout, lse, delta];
    let grads: Vec<NodeId> = (0..3)
        .map(|wrt| g.attention_grad(wrt, inputs, false, 0.2).unwrap())
        .collect();
    g.set_outputs(grads);
    let headers: Vec<String> = kernels_of(&g)
        .iter()
        .map(|k| k.lines().next().unwrap().to_string())
        .collect();
    assert_eq!(headers.len(), 2, "{headers:#?}");
    assert!(
        headers[0].starts_with("// attention-grad-q [Out, Input(0)"),
        "{headers:#?}"
    );
    assert!(
        headers[1].starts_with("// attention-grad-k [Side(0), Side(1), Input(0)"),
        "{headers:#?}"
    );
}
