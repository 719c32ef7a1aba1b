//! Benchmark of the CPU backend against PyTorch on the CPU (same work, same
//! thread count, in the same run) and against the reference executor:
//! (a) a 1024x1024x1024 f32 matmul, and a transformer step's weight and
//! input gradients (`x^T dy`, `dy w^T`), (b) a 13-op fused elementwise chain on
//! 16M elements and attention's softmax over `[64, 128, 128]`, (c) row sums of a [4096, 4096] f32 tensor, (d) an MLP
//! forward pass (batch 256, 784 -> 512 -> 512 -> 10, relu), (e) a 3x3
//! conv2d forward and backward (`[32, 16, 32, 32]` by `[32, 16, 3, 3]`,
//! padding 1: the output and the gradients of input and weight), together
//! and each alone, and each alone for the second convolution of the CNN
//! training step of `benches/sexpgpu/train_steps` (`[64, 32, 14, 14]` by
//! `[64, 32, 3, 3]`), (f) causal
//! attention over one GPT-2 layer's heads (`[1, 12, 1024, 64]`) and over
//! the char-transformer example's small heads (`[16, 4, 64, 16]`, sliced
//! from one `[16, 64, 192]` projection as the example does), forward
//! and backward, fused against PyTorch's `scaled_dot_product_attention`,
//! and written out (scores, mask, softmax, product) against the same in
//! PyTorch.
//!
//! `cargo run --release -p sexpgpu-cpu --example bench [-- --no-peer]
//! [--no-reference] [--iters N] [--only TEXT] [--profile]` (`--only` keeps the
//! workloads whose name holds TEXT; `--profile` adds where each one's time
//! went by kernel kind and its costliest launches, as `sexpgpu run
//! --profile` prints them). PyTorch runs as
//! `.venv/bin/python benches/sexpgpu/peer.py` (override with
//! `SEXPGPU_BENCH_PYTHON`); threads follow `SEXPGPU_THREADS` (default: all).

use std::collections::HashMap;
use std::process::Command;
use std::time::Instant;

use sexpgpu_cpu::{compile, CpuBackend};
use sexpgpu_graph::{
    execute, BinaryOp, CompareOp, DType, Graph, NodeId, ReduceOp, Scalar, Shape, Tensor, UnaryOp,
};

/// Deterministic data in [-1, 1).
fn data(dims: &[usize], seed: u64) -> Tensor {
    let shape = Shape::from(dims);
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let v: Vec<f32> = (0..shape.numel())
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            ((s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 23) as f32) - 1.0
        })
        .collect();
    Tensor::new(shape, sexpgpu_graph::TensorData::F32(v)).expect("sizes match")
}

struct Workload {
    name: String,
    /// The key `peer.py` prints for the same work.
    key: String,
    graph: Graph,
    args: Vec<Tensor>,
}

fn matmul() -> Workload {
    let mut g = Graph::new("matmul");
    let a = g.input("a", Shape::from([1024, 1024]), DType::F32);
    let b = g.input("b", Shape::from([1024, 1024]), DType::F32);
    let c = g.matmul(a, b).unwrap();
    g.set_outputs(vec![c]);
    Workload {
        name: "matmul 1024x1024x1024 f32".into(),
        key: "matmul".into(),
        graph: g,
        args: vec![data(&[1024, 1024], 1), data(&[1024, 1024], 2)],
    }
}

/// A transformer step's weight gradient `x^T @ dy` (`x` `[2048, 256]`,
/// `dy` `[2048, 1024]`) or input gradient `dy @ w^T` (`w` `[256, 1024]`):
/// products whose transposed operand is read through its view.
fn matmul_transposed(weight_gradient: bool) -> Workload {
    let mut g = Graph::new("matmul_transposed");
    let dy = g.input("dy", Shape::from([2048, 1024]), DType::F32);
    let (other, dims) = if weight_gradient {
        (
            g.input("x", Shape::from([2048, 256]), DType::F32),
            [2048, 256],
        )
    } else {
        (
            g.input("w", Shape::from([256, 1024]), DType::F32),
            [256, 1024],
        )
    };
    let flipped = g.transpose(other, &[1, 0]).unwrap();
    let c = if weight_gradient {
        g.matmul(flipped, dy).unwrap()
    } else {
        g.matmul(dy, flipped).unwrap()
    };
    g.set_outputs(vec![c]);
    let (name, key) = if weight_gradient {
        ("matmul x^T dy [256,2048,1024]", "matmul_wgrad")
    } else {
        ("matmul dy w^T [2048,1024,256]", "matmul_dgrad")
    };
    Workload {
        name: name.into(),
        key: key.into(),
        graph: g,
        args: vec![data(&[2048, 1024], 6), data(&dims, 7)],
    }
}

/// The chain `peer.py` computes op for op.
fn chain() -> Workload {
    const N: usize = 16 << 20;
    let mut g = Graph::new("chain");
    let x = g.input("x", Shape::from([N]), DType::F32);
    let y = g.input("y", Shape::from([N]), DType::F32);
    let f = |v: f64| Scalar::Float(v);
    let bin = |g: &mut Graph, op, a: NodeId, b: sexpgpu_graph::Operand| g.binary(op, a, b).unwrap();
    let t = bin(&mut g, BinaryOp::Mul, x, f(1.5).into());
    let t = bin(&mut g, BinaryOp::Add, t, f(0.25).into());
    let t = bin(&mut g, BinaryOp::Maximum, t, f(0.0).into());
    let t = bin(&mut g, BinaryOp::Mul, t, y.into());
    let u = g.unary(UnaryOp::Abs, y).unwrap();
    let u = bin(&mut g, BinaryOp::Add, u, f(1.0).into());
    let q = bin(&mut g, BinaryOp::Div, x, u.into());
    let t = bin(&mut g, BinaryOp::Sub, t, q.into());
    let t = bin(&mut g, BinaryOp::Minimum, t, f(2.0).into());
    let t = bin(&mut g, BinaryOp::Mul, t, t.into());
    let t = bin(&mut g, BinaryOp::Add, t, f(1.0).into());
    let t = g.unary(UnaryOp::Sqrt, t).unwrap();
    let m = g.compare(CompareOp::Gt, x, f(0.0)).unwrap();
    let n = g.unary(UnaryOp::Neg, t).unwrap();
    let out = g.where_(m, t, n).unwrap();
    g.set_outputs(vec![out]);
    Workload {
        name: "fused chain, 13 ops, 16M f32".into(),
        key: "chain".into(),
        graph: g,
        args: vec![data(&[N], 3), data(&[N], 4)],
    }
}

/// Attention's softmax over the last axis of `[64, 128, 128]` scores (a
/// transformer step's batch 16 times 4 heads, context 128), as `nn.sx`
/// writes it: `exp(x - max) / sum`.
fn softmax() -> Workload {
    let mut g = Graph::new("softmax");
    let x = g.input("x", Shape::from([64, 128, 128]), DType::F32);
    let m = g.reduce(ReduceOp::Max, x, Some(&[-1]), true).unwrap();
    let d = g
        .binary(BinaryOp::Sub, x, sexpgpu_graph::Operand::from(m))
        .unwrap();
    let e = g.unary(UnaryOp::Exp, d).unwrap();
    let s = g.reduce(ReduceOp::Sum, e, Some(&[-1]), true).unwrap();
    let out = g
        .binary(BinaryOp::Div, e, sexpgpu_graph::Operand::from(s))
        .unwrap();
    g.set_outputs(vec![out]);
    Workload {
        name: "softmax [64,128,128] f32".into(),
        key: "softmax".into(),
        graph: g,
        args: vec![data(&[64, 128, 128], 8)],
    }
}

fn reduction() -> Workload {
    let mut g = Graph::new("rowsum");
    let x = g.input("x", Shape::from([4096, 4096]), DType::F32);
    let s = g.reduce(ReduceOp::Sum, x, Some(&[-1]), false).unwrap();
    g.set_outputs(vec![s]);
    Workload {
        name: "row sums [4096, 4096] f32".into(),
        key: "reduce".into(),
        graph: g,
        args: vec![data(&[4096, 4096], 5)],
    }
}

fn mlp() -> Workload {
    let mut g = Graph::new("mlp");
    let x = g.input("x", Shape::from([256, 784]), DType::F32);
    let sizes = [(784, 512), (512, 512), (512, 10)];
    let mut params = Vec::new();
    for (i, &(fan_in, fan_out)) in sizes.iter().enumerate() {
        let w = g.param(format!("w{i}"), Shape::from([fan_in, fan_out]), DType::F32);
        let b = g.param(format!("b{i}"), Shape::from([fan_out]), DType::F32);
        params.push((w, b));
    }
    let mut h = x;
    for (i, &(w, b)) in params.iter().enumerate() {
        h = g.matmul(h, w).unwrap();
        h = g.binary(BinaryOp::Add, h, b).unwrap();
        if i + 1 < params.len() {
            h = g.binary(BinaryOp::Maximum, h, Scalar::Float(0.0)).unwrap();
        }
    }
    g.set_outputs(vec![h]);
    let mut args = vec![data(&[256, 784], 6)];
    for (i, &(fan_in, fan_out)) in sizes.iter().enumerate() {
        args.push(data(&[fan_in, fan_out], 10 + i as u64));
        args.push(data(&[fan_out], 20 + i as u64));
    }
    Workload {
        name: "MLP forward 256x784-512-512-10".into(),
        key: "mlp".into(),
        graph: g,
        args,
    }
}

/// Which part of a convolution a workload times.
#[derive(Clone, Copy)]
enum ConvPart {
    /// The output alone.
    Forward,
    /// The gradients of input and weight alone (the output is not computed).
    Backward,
    /// The output and both gradients, as a training step needs them.
    Both,
}

/// A 3x3 conv2d with padding 1 of an input `[n, c, h, w]` to `out`
/// channels: `y = conv(x, w)`, and the gradients of `sum(y * cot)` with
/// respect to `x` and `w`, or a part of it (`peer.py` times the same as
/// `<key>`, `<key>_fwd` and `<key>_bwd`).
fn conv2d(key: &str, input: [usize; 4], out: usize, part: ConvPart) -> Workload {
    let [n, c, h, wd] = input;
    let mut g = Graph::new("conv2d");
    let x = g.input("x", Shape::from(input), DType::F32);
    let w = g.param("w", Shape::from([out, c, 3, 3]), DType::F32);
    let cot = g.input("cot", Shape::from([n, out, h, wd]), DType::F32);
    let opts = sexpgpu_graph::ConvOptions {
        padding: sexpgpu_graph::ConvPadding::Sizes(sexpgpu_graph::PerAxis::All(1)),
        ..Default::default()
    };
    let y = g.conv(x, w, &opts).unwrap();
    let weighted = g.binary(BinaryOp::Mul, y, cot).unwrap();
    let loss = g.reduce(ReduceOp::Sum, weighted, None, false).unwrap();
    let grads = sexpgpu_autodiff::grad(&mut g, loss, &[x, w]).unwrap();
    let (what, suffix, outputs) = match part {
        ConvPart::Forward => ("fwd", "_fwd", vec![y]),
        ConvPart::Backward => ("bwd", "_bwd", grads),
        ConvPart::Both => ("fwd+bwd", "", vec![y, grads[0], grads[1]]),
    };
    g.set_outputs(outputs);
    // The graph takes `cot` in every part (the forward leaves it unread).
    let args = vec![
        data(&input, 30),
        data(&[out, c, 3, 3], 31),
        data(&[n, out, h, wd], 32),
    ];
    Workload {
        name: format!("conv2d 3x3 {what} {n}x{c}x{h}x{wd} to {out}"),
        key: format!("{key}{suffix}"),
        graph: g,
        args,
    }
}

/// Causal attention over `dims` (`[batch, heads, context, head width]`)
/// and the gradients of `sum(out * cot)` with respect to its inputs: one
/// fused node, or written out as `nn/attention` was before it was fused.
/// `q`, `k`, `v` are parameters of their own, or (`sliced`) the heads of
/// one `[batch, context, 3 * heads * width]` projection, read in place as
/// a model's attention reads them. `peer` names PyTorch's figures
/// (`<peer>_sdpa`, `<peer>_unfused`).
fn attention(dims: [usize; 4], sliced: bool, peer: &'static str, fused: bool) -> Workload {
    let [batch, heads, context, width] = dims;
    let which = if fused { "fused" } else { "unfused" };
    let from = if sliced {
        ", heads sliced from qkv"
    } else {
        ""
    };
    let name = format!("attention {dims:?} causal fwd+bwd{from}, {which}");
    let mut g = Graph::new(&name);
    let (wrt, [q, k, v], mut arg_dims) = if sliced {
        let projection = vec![batch, context, 3 * heads * width];
        let qkv = g.param("qkv", Shape::from(projection.as_slice()), DType::F32);
        let split = g
            .reshape(qkv, Shape::from([batch, context, 3, heads, width]))
            .unwrap();
        let head = |g: &mut Graph, part: i64| {
            let one = g.slice(split, 2, part, part + 1).unwrap();
            let one = g
                .reshape(one, Shape::from([batch, context, heads, width]))
                .unwrap();
            g.transpose(one, &[0, 2, 1, 3]).unwrap()
        };
        let qkv3 = [head(&mut g, 0), head(&mut g, 1), head(&mut g, 2)];
        (vec![qkv], qkv3, vec![projection])
    } else {
        let q = g.param("q", Shape::from(dims), DType::F32);
        let k = g.param("k", Shape::from(dims), DType::F32);
        let v = g.param("v", Shape::from(dims), DType::F32);
        (vec![q, k, v], [q, k, v], vec![dims.to_vec(); 3])
    };
    let cot = g.input("cot", Shape::from(dims), DType::F32);
    arg_dims.push(dims.to_vec());
    let out = if fused {
        g.attention(q, k, v, true, None).unwrap()
    } else {
        let kt = g.transpose(k, &[0, 1, 3, 2]).unwrap();
        let scores = g.matmul(q, kt).unwrap();
        let root = (width as f64).sqrt();
        let scores = g.binary(BinaryOp::Div, scores, root).unwrap();
        let square = Shape::from([context, context]);
        let rows = g.iota(square.clone(), 0, DType::I32).unwrap();
        let cols = g.iota(square, 1, DType::I32).unwrap();
        let seen = g.compare(CompareOp::Ge, rows, cols).unwrap();
        let masked = g.where_(seen, scores, -1e30).unwrap();
        let top = g.reduce(ReduceOp::Max, masked, Some(&[-1]), true).unwrap();
        let shifted = g.binary(BinaryOp::Sub, masked, top).unwrap();
        let e = g.unary(UnaryOp::Exp, shifted).unwrap();
        let total = g.reduce(ReduceOp::Sum, e, Some(&[-1]), true).unwrap();
        let weights = g.binary(BinaryOp::Div, e, total).unwrap();
        g.matmul(weights, v).unwrap()
    };
    let weighted = g.binary(BinaryOp::Mul, out, cot).unwrap();
    let loss = g.reduce(ReduceOp::Sum, weighted, None, false).unwrap();
    let grads = sexpgpu_autodiff::grad(&mut g, loss, &wrt).unwrap();
    g.set_outputs([vec![out], grads].concat());
    let key = format!("{peer}_{}", if fused { "sdpa" } else { "unfused" });
    Workload {
        name,
        key,
        graph: g,
        args: arg_dims
            .iter()
            .zip(40..)
            .map(|(d, seed)| data(d, seed))
            .collect(),
    }
}

/// The second convolution of the CNN of `benches/sexpgpu/train_steps`:
/// batch 64, 32 channels of 14 x 14 (to 64 channels).
const CNN_CONV2: [usize; 4] = [64, 32, 14, 14];

/// One GPT-2 small layer's heads at context 1024.
const GPT2_HEADS: [usize; 4] = [1, 12, 1024, 64];
/// `examples/sexpgpu/char-transformer.sx`'s heads: batch 16, 4 heads of
/// width 16, context 64 (sliced from one projection, as it reads them).
const SMALL_HEADS: [usize; 4] = [16, 4, 64, 16];

/// The median of `iters` timed runs after one warm-up, in milliseconds.
fn time_ms(iters: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut times: Vec<f64> = (0..iters)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Runs `peer.py` and reads its `key milliseconds` lines.
fn peer(threads: usize, iters: usize) -> Result<HashMap<String, f64>, String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let python = std::env::var("SEXPGPU_BENCH_PYTHON")
        .unwrap_or_else(|_| format!("{root}/.venv/bin/python"));
    let output = Command::new(&python)
        .arg(format!("{root}/benches/sexpgpu/peer.py"))
        .args([
            "--threads",
            &threads.to_string(),
            "--iters",
            &iters.to_string(),
        ])
        .output()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut figures = HashMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if let (Some(key), Some(ms)) = (words.next(), words.next()) {
            if let Ok(ms) = ms.parse::<f64>() {
                figures.insert(key.to_string(), ms);
            } else {
                println!("peer: {line}");
            }
        }
    }
    Ok(figures)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let iters = args
        .iter()
        .position(|a| a == "--iters")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(10usize);
    let threads = CpuBackend::default_threads();
    println!("threads: {threads}, iterations: {iters} (median after one warm-up)");
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1));
    let mut workloads = vec![
        matmul(),
        matmul_transposed(true),
        matmul_transposed(false),
        chain(),
        softmax(),
        reduction(),
        mlp(),
        conv2d("conv2d", [32, 16, 32, 32], 32, ConvPart::Both),
        conv2d("conv2d", [32, 16, 32, 32], 32, ConvPart::Forward),
        conv2d("conv2d", [32, 16, 32, 32], 32, ConvPart::Backward),
        conv2d("cnn_conv2", CNN_CONV2, 64, ConvPart::Forward),
        conv2d("cnn_conv2", CNN_CONV2, 64, ConvPart::Backward),
        attention(GPT2_HEADS, false, "attention", true),
        attention(GPT2_HEADS, false, "attention", false),
        attention(SMALL_HEADS, true, "attention_small", true),
        attention(SMALL_HEADS, true, "attention_small", false),
    ];
    workloads.retain(|w| only.is_none_or(|text| w.name.contains(text.as_str())));
    let peer_figures = if flag("--no-peer") {
        HashMap::new()
    } else {
        match peer(threads, iters) {
            Ok(f) => f,
            Err(e) => {
                println!("PyTorch peer unavailable: {e}");
                HashMap::new()
            }
        }
    };
    if flag("--profile") {
        sexpgpu_compile::profile::set_warmup(1);
        sexpgpu_compile::profile::enable(true);
    }
    println!(
        "{:<48} {:>10} {:>10} {:>8} {:>12} {:>8}",
        "workload", "ours ms", "torch ms", "ours/pt", "reference ms", "kernels"
    );
    for w in &workloads {
        let program = compile(&w.graph).expect("compiles").with_threads(threads);
        let ours = time_ms(iters, || {
            program.run(&w.args, 0).expect("runs");
        });
        let torch = peer_figures.get(&w.key).copied();
        let reference = (!flag("--no-reference")).then(|| {
            let start = Instant::now();
            execute(&w.graph, &w.args, 0).expect("reference runs");
            start.elapsed().as_secs_f64() * 1e3
        });
        let show = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.2}"));
        println!(
            "{:<48} {:>10.2} {:>10} {:>8} {:>12} {:>8}",
            w.name,
            ours,
            show(torch),
            torch.map_or("-".to_string(), |t| format!("{:.2}", ours / t)),
            reference.map_or("-".to_string(), |r| format!("{r:.0}")),
            program.plan().launches.len()
        );
    }
    if flag("--profile") {
        print!(
            "{}",
            sexpgpu_compile::profile::format_report(&sexpgpu_compile::profile::take_report())
        );
        // Each workload's costliest launches, summed over its iterations.
        for (graph, launches) in sexpgpu_compile::profile::take_top_launches(PROFILE_TOP) {
            print!(
                "{}",
                sexpgpu_compile::profile::format_top_launches(&graph, &launches)
            );
        }
    }
}

/// Launches `--profile` lists for each workload.
const PROFILE_TOP: usize = 12;
