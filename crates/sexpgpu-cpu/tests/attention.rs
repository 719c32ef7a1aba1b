//! Fused attention's every part (output, log-sum-exp, the three gradients)
//! against the reference executor, in f32 and bf16, causal or not, over
//! sizes that cross and miss the kernel's 64-row tiles, with operands read
//! in place through strided and broadcast views (heads sliced out of one
//! `qkv` tensor, keys shared by heads).

mod common;

use common::{check, sliced_heads, tensor, Rng, Tol};
use sexpgpu_graph::{DType, Graph, NodeId, Shape};

/// The tolerance of a part: f32 sums in another order than the reference's
/// f64; bf16 results are one rounding of a slightly different f32.
fn tol(dtype: DType) -> Tol {
    match dtype {
        DType::BF16 => Tol::Rel(1.0 / 64.0),
        _ => Tol::Rel(2e-5),
    }
}

/// Adds every part of attention over `q k v` to `g`'s outputs, the gradients
/// reading `dout` and `delta` (inputs) and the log-sum-exp (computed).
fn every_part(
    g: &mut Graph,
    [q, k, v]: [NodeId; 3],
    (dout, delta): (NodeId, NodeId),
    causal: bool,
) -> Vec<NodeId> {
    let out = g.attention(q, k, v, causal, None).unwrap();
    let d = *g.shape(q).dims().last().unwrap();
    let scale = 1.0 / (d as f64).sqrt();
    let lse = g.attention_lse(q, k, causal, scale).unwrap();
    let mut outputs = vec![out, lse];
    for wrt in 0..3 {
        let grad = g
            .attention_grad(wrt, [q, k, v, dout, lse, delta], causal, scale)
            .unwrap();
        outputs.push(grad);
    }
    outputs
}

#[test]
fn every_part_matches_the_reference() {
    let mut rng = Rng::new(300);
    // (t, s, d, e): odd sizes, more queries than keys, several 64-row tiles,
    // widths that fill the small products' 32- and 16-column blocks or not.
    let sizes = [
        (37, 53, 24, 40),
        (66, 64, 48, 33),
        (5, 3, 8, 8),
        (130, 130, 16, 16),
        (1, 70, 4, 2),
    ];
    for dtype in [DType::F32, DType::BF16] {
        for causal in [false, true] {
            for (t, s, d, e) in sizes {
                // Eight problems: the gradients take one pass over each
                // problem's key tiles (`attention/`).
                let batch = [2usize, 4];
                let with = |last: &[usize]| [&batch[..], last].concat();
                let mut g = Graph::new("attention");
                let q = g.input("q", Shape::from(with(&[t, d]).as_slice()), dtype);
                let k = g.input("k", Shape::from(with(&[s, d]).as_slice()), dtype);
                let v = g.input("v", Shape::from(with(&[s, e]).as_slice()), dtype);
                let dout = g.input("dout", Shape::from(with(&[t, e]).as_slice()), dtype);
                let delta = g.input("delta", Shape::from(with(&[t]).as_slice()), DType::F32);
                let outputs = every_part(&mut g, [q, k, v], (dout, delta), causal);
                g.set_outputs(outputs);
                let args = [
                    tensor(&mut rng, &with(&[t, d]), dtype),
                    tensor(&mut rng, &with(&[s, d]), dtype),
                    tensor(&mut rng, &with(&[s, e]), dtype),
                    tensor(&mut rng, &with(&[t, e]), dtype),
                    tensor(&mut rng, &with(&[t]), DType::F32),
                ];
                check(&g, &args, tol(dtype));
            }
        }
    }
}

#[test]
fn heads_sliced_from_one_tensor_and_shared_keys_are_read_in_place() {
    let mut rng = Rng::new(301);
    let (b, t, h, d) = (2, 70, 3, 8);
    for dtype in [DType::F32, DType::BF16] {
        let mut g = Graph::new("heads");
        let qkv = g.input("qkv", Shape::from([b, t, 3 * h * d]), dtype);
        let heads = sliced_heads(&mut g, qkv, [b, t, h, d]);
        // One key and value head shared by every query head.
        let shared = g.input("kv", Shape::from([b, 1, t, d]), dtype);
        let dout = g.input("dout", Shape::from([b, h, t, d]), dtype);
        let delta = g.input("delta", Shape::from([b, h, t]), DType::F32);
        let mut outputs = every_part(&mut g, heads, (dout, delta), true);
        let grouped = g
            .attention(heads[0], shared, shared, true, Some(0.3))
            .unwrap();
        outputs.push(grouped);
        g.set_outputs(outputs);
        let args = [
            tensor(&mut rng, &[b, t, 3 * h * d], dtype),
            tensor(&mut rng, &[b, 1, t, d], dtype),
            tensor(&mut rng, &[b, h, t, d], dtype),
            tensor(&mut rng, &[b, h, t], DType::F32),
        ];
        let program = sexpgpu_cpu::compile(&g).unwrap().describe();
        assert!(
            !program.contains("copy"),
            "attention copied an operand it can read in place:\n{program}"
        );
        check(&g, &args, tol(dtype));
    }
}

#[test]
fn each_part_alone_and_each_pair_match_the_reference() {
    let mut rng = Rng::new(302);
    let (t, s, d, e) = (70, 66, 8, 5);
    // Which of [out, lse, dq, dk, dv] the graph returns: alone, the parts
    // a launch computes together, and parts split. Two problems whose 66
    // keys are two tiles: `dq` beside `dk` or `dv` takes a pass of its own.
    let subsets: [&[usize]; 11] = [
        &[0],
        &[1],
        &[2],
        &[3],
        &[4],
        &[0, 1],
        &[3, 4],
        &[1, 4],
        &[2, 3, 4],
        &[2, 3],
        &[4, 2],
    ];
    for (i, subset) in subsets.into_iter().enumerate() {
        let dtype = if i % 2 == 0 { DType::F32 } else { DType::BF16 };
        let mut g = Graph::new("parts");
        let q = g.input("q", Shape::from([2, t, d]), dtype);
        let k = g.input("k", Shape::from([2, s, d]), dtype);
        let v = g.input("v", Shape::from([2, s, e]), dtype);
        let dout = g.input("dout", Shape::from([2, t, e]), dtype);
        let delta = g.input("delta", Shape::from([2, t]), DType::F32);
        let all = every_part(&mut g, [q, k, v], (dout, delta), i % 3 != 0);
        g.set_outputs(subset.iter().map(|&p| all[p]).collect());
        let args = [
            tensor(&mut rng, &[2, t, d], dtype),
            tensor(&mut rng, &[2, s, d], dtype),
            tensor(&mut rng, &[2, s, e], dtype),
            tensor(&mut rng, &[2, t, e], dtype),
            tensor(&mut rng, &[2, t], DType::F32),
        ];
        check(&g, &args, tol(dtype));
    }
}

#[test]
fn paired_parts_share_one_launch() {
    let mut g = Graph::new("pairs");
    let q = g.input("q", Shape::from([2, 9, 4]), DType::F32);
    let dout = g.input("dout", Shape::from([2, 9, 4]), DType::F32);
    let delta = g.input("delta", Shape::from([2, 9]), DType::F32);
    let all = every_part(&mut g, [q, q, q], (dout, delta), true);
    g.set_outputs(all);
    let plan = sexpgpu_cpu::compile(&g).unwrap().describe();
    let count = |pattern: &str| plan.lines().filter(|l| l.contains(pattern)).count();
    let launches = |kind: &str| {
        let kind = format!(" {kind} %");
        count(&kind)
    };
    // The output writes the log-sum-exp beside it; the queries' gradient
    // launch writes the keys' and the values'.
    assert_eq!(launches("attention"), 1, "{plan}");
    assert_eq!(launches("attention-lse"), 0, "{plan}");
    assert_eq!(launches("attention-grad-q"), 1, "{plan}");
    assert_eq!(launches("attention-grad-k"), 0, "{plan}");
    assert_eq!(launches("attention-grad-v"), 0, "{plan}");
    assert_eq!(count("also attention-lse ->"), 1, "{plan}");
    assert_eq!(count("also attention-grad-k ->"), 1, "{plan}");
    assert_eq!(count("also attention-grad-v ->"), 1, "{plan}");
}

/// Every part's bits are the same on any number of threads: each thread
/// writes whole rows, and `dq`'s sums over key tiles run in the tiles'
/// order whichever thread takes a problem. Both kinds of gradient pass:
/// eight problems (one pass, `dq` summed key tile after key tile) and two
/// (a pass of its own for `dq`), each with three key tiles.
#[test]
fn every_part_has_the_same_bits_on_any_number_of_threads() {
    let mut rng = Rng::new(303);
    let (t, s, d, e) = (150, 140, 16, 24);
    for problems in [8usize, 2] {
        let mut g = Graph::new("threads");
        let with = |last: &[usize]| [&[problems][..], last].concat();
        let q = g.input("q", Shape::from(with(&[t, d]).as_slice()), DType::F32);
        let k = g.input("k", Shape::from(with(&[s, d]).as_slice()), DType::F32);
        let v = g.input("v", Shape::from(with(&[s, e]).as_slice()), DType::F32);
        let dout = g.input("dout", Shape::from(with(&[t, e]).as_slice()), DType::F32);
        let delta = g.input("delta", Shape::from(with(&[t]).as_slice()), DType::F32);
        let outputs = every_part(&mut g, [q, k, v], (dout, delta), true);
        g.set_outputs(outputs);
        let args = [
            tensor(&mut rng, &with(&[t, d]), DType::F32),
            tensor(&mut rng, &with(&[s, d]), DType::F32),
            tensor(&mut rng, &with(&[s, e]), DType::F32),
            tensor(&mut rng, &with(&[t, e]), DType::F32),
            tensor(&mut rng, &with(&[t]), DType::F32),
        ];
        let run = |threads: usize| {
            let program = sexpgpu_cpu::compile(&g).unwrap().with_threads(threads);
            program.run(&args, 7).unwrap()
        };
        let one = run(1);
        for threads in [2, 3, 5] {
            assert!(
                run(threads) == one,
                "{problems} problems: {threads} threads differ from one"
            );
        }
    }
}
