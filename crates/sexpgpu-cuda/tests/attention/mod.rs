//! Graphs of fused attention for the CUDA tests (`emulate.rs` runs them,
//! `compile_kernels.rs` compiles their kernels): every part in f32 and
//! bf16, causal or not, over sizes that cross and miss the tiles, through
//! strided and broadcast views, and wider than the tiled kernels hold.

use sexpgpu_graph::{DType, Graph, NodeId, Shape as Dims};

/// One case's sizes: the batch dims of the queries (and of `dout`,
/// `delta`) and of the keys and values, which broadcast to the queries'.
struct Sizes {
    q_batch: &'static [usize],
    kv_batch: &'static [usize],
    t: usize,
    s: usize,
    d: usize,
    e: usize,
}

/// The cases: sizes off the tiles (`t = 37, s = 53, d = 24, e = 40`) with
/// a batch of `[2, 3]`, keys and values broadcast over the first batch
/// axis with more queries than keys, several row blocks and column tiles
/// (so causal blocks skip and mask tiles), `e` and then `d` over the tiled
/// kernels' limit (the general kernel), and no keys at all.
const SIZES: [Sizes; 7] = [
    sizes(&[2, 3], &[2, 3], [37, 53, 24, 40]),
    // GPT-2's heads are 64 wide: the tiled layout every GPT-2 step takes.
    sizes(&[2], &[2], [130, 140, 64, 64]),
    sizes(&[2, 3], &[3], [53, 37, 24, 40]),
    sizes(&[2], &[2], [150, 130, 16, 8]),
    sizes(&[2], &[2], [9, 11, 24, 136]),
    sizes(&[1], &[1], [7, 12, 136, 8]),
    sizes(&[2], &[2], [5, 0, 8, 8]),
];

const fn sizes(
    q_batch: &'static [usize],
    kv_batch: &'static [usize],
    [t, s, d, e]: [usize; 4],
) -> Sizes {
    Sizes {
        q_batch,
        kv_batch,
        t,
        s,
        d,
        e,
    }
}

/// Every part of attention over `q k v` (the output, the log-sum-exp and
/// the three gradients, which read `dout`, `delta` and the computed
/// log-sum-exp); `g`'s outputs are those `keep` picks, or all (then the
/// lowering makes the output and the log-sum-exp one step, one kernel, and
/// the three gradients one step, two kernels: `dq`'s, and `dk` and `dv`'s).
fn every_part(
    g: &mut Graph,
    [q, k, v]: [NodeId; 3],
    (dout, delta): (NodeId, NodeId),
    (causal, scale): (bool, f64),
    keep: Option<usize>,
) {
    let out = g.attention(q, k, v, causal, Some(scale)).unwrap();
    let lse = g.attention_lse(q, k, causal, scale).unwrap();
    let mut outputs = vec![out, lse];
    for wrt in 0..3 {
        let inputs = [q, k, v, dout, lse, delta];
        outputs.push(g.attention_grad(wrt, inputs, causal, scale).unwrap());
    }
    g.set_outputs(match keep {
        Some(i) => vec![outputs[i]],
        None => outputs,
    });
}

/// One case's graph: inputs `q k v dout delta`, keys and values broadcast
/// to the queries' batch (the gradients read operands of one batch).
fn case_graph(n: &Sizes, dtype: DType, causal: bool, keep: Option<usize>) -> Graph {
    let with = |batch: &[usize], last: &[usize]| Dims::from([batch, last].concat().as_slice());
    let (qb, kb) = (n.q_batch, n.kv_batch);
    let mut g = Graph::new("attention");
    let q = g.input("q", with(qb, &[n.t, n.d]), dtype);
    let mut k = g.input("k", with(kb, &[n.s, n.d]), dtype);
    let mut v = g.input("v", with(kb, &[n.s, n.e]), dtype);
    if qb != kb {
        k = g.broadcast_to(k, with(qb, &[n.s, n.d])).unwrap();
        v = g.broadcast_to(v, with(qb, &[n.s, n.e])).unwrap();
    }
    let dout = g.input("dout", with(qb, &[n.t, n.e]), dtype);
    let delta = g.input("delta", with(qb, &[n.t]), DType::F32);
    let scale = 1.0 / (n.d as f64).sqrt();
    every_part(&mut g, [q, k, v], (dout, delta), (causal, scale), keep);
    g
}

/// GPT-2's heads: q, k and v sliced out of one `[b, t, 3 h d]` tensor and
/// transposed to `[b, h, t, d]` (strided rows, read in place), causal.
fn heads_graph(dtype: DType) -> Graph {
    let (b, t, h, d) = (2, 70, 3, 24);
    let mut g = Graph::new("heads");
    let qkv = g.input("qkv", Dims::from([b, t, 3 * h * d]), dtype);
    let heads = crate::common::sliced_heads(&mut g, qkv, [b, t, h, d]);
    let dout = g.input("dout", Dims::from([b, h, t, d]), dtype);
    let delta = g.input("delta", Dims::from([b, h, t]), DType::F32);
    every_part(&mut g, heads, (dout, delta), (true, 0.3), None);
    g
}

/// Every case in f32 and bf16, causal or not, with all parts as outputs;
/// for a tiled and a general case (causal) each part alone too, so that
/// no part runs only as half of a pair; and GPT-2's heads. Each graph
/// named.
pub fn attention_graphs() -> Vec<(String, Graph)> {
    let mut out = Vec::new();
    for dtype in [DType::F32, DType::BF16] {
        for causal in [false, true] {
            for (i, n) in SIZES.iter().enumerate() {
                let alone: &[usize] = if causal && (i == 0 || i == 4) {
                    &[0, 1, 2, 3, 4]
                } else {
                    &[]
                };
                let keeps = [None].into_iter().chain(alone.iter().map(|&k| Some(k)));
                for keep in keeps {
                    let name = format!(
                        "attention {dtype} causal={causal} {:?}/{:?} t={} s={} d={} e={} output {keep:?}",
                        n.q_batch, n.kv_batch, n.t, n.s, n.d, n.e
                    );
                    out.push((name, case_graph(n, dtype, causal, keep)));
                }
            }
        }
        out.push((
            format!("attention heads from qkv {dtype}"),
            heads_graph(dtype),
        ));
    }
    out
}
