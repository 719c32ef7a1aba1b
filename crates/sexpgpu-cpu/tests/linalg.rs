//! Reductions, matmul, the indexing ops and `linear-scan` against the
//! reference executor. Sums and matmuls accumulate in another order than the
//! reference, so floats are compared within tolerance there; integers,
//! `max`, the indexing ops and scans must match exactly.

mod common;

use common::{accum_tol, check, ids, tensor, Rng, Tol};
use sexpgpu_graph::{BinaryOp, DType, Graph, ReduceOp, Shape, Tensor, UnaryOp};

const NUMERIC: [DType; 4] = [DType::F32, DType::BF16, DType::I32, DType::I64];

#[test]
fn reductions_over_every_axis_pattern() {
    let mut rng = Rng::new(20);
    let axes: [Option<&[i64]>; 8] = [
        None,
        Some(&[0]),
        Some(&[-1]),
        Some(&[1]),
        Some(&[0, 2]),
        Some(&[1, 2]),
        Some(&[0, 1]),
        Some(&[0, 1, 2]),
    ];
    for dtype in NUMERIC {
        for op in [ReduceOp::Sum, ReduceOp::Max] {
            for (i, ax) in axes.iter().enumerate() {
                let mut g = Graph::new("reduce");
                let x = g.input("x", Shape::from([6, 1, 70, 90]), dtype);
                let x3 = g.reshape(x, Shape::from([6, 70, 90])).unwrap();
                let y = g.reduce(op, x3, *ax, i % 2 == 0).unwrap();
                g.set_outputs(vec![y]);
                let tol = if op == ReduceOp::Max {
                    Tol::Exact
                } else {
                    accum_tol(dtype, 6 * 70 * 90)
                };
                check(&g, &[tensor(&mut rng, &[6, 1, 70, 90], dtype)], tol);
            }
        }
    }
}

#[test]
fn big_reductions_split_over_threads() {
    let mut rng = Rng::new(21);
    for (dims, axes) in [
        (vec![300_000], None),
        (vec![3, 200_000], Some(&[1i64][..])),
        (vec![2000, 300], Some(&[0i64][..])),
        (vec![2000, 300], Some(&[1i64][..])),
    ] {
        let mut g = Graph::new("big");
        let x = g.input("x", Shape::from(dims.as_slice()), DType::F32);
        let s = g.reduce(ReduceOp::Sum, x, axes, false).unwrap();
        let m = g.reduce(ReduceOp::Max, x, axes, false).unwrap();
        g.set_outputs(vec![s, m]);
        let n: usize = dims.iter().product();
        check(
            &g,
            &[tensor(&mut rng, &dims, DType::F32)],
            accum_tol(DType::F32, n),
        );
    }
}

#[test]
fn matmul_batched_broadcast_transposed_and_vectors() {
    let mut rng = Rng::new(22);
    for dtype in NUMERIC {
        let mut g = Graph::new("matmul");
        let a = g.input("a", Shape::from([2, 1, 3, 4]), dtype);
        let b = g.input("b", Shape::from([5, 4, 6]), dtype);
        let w = g.input("w", Shape::from([6, 4]), dtype);
        let v = g.input("v", Shape::from([4]), dtype);
        let ab = g.matmul(a, b).unwrap(); // [2, 5, 3, 6], batch broadcast
        let wt = g.transpose(w, &[1, 0]).unwrap();
        let awt = g.matmul(a, wt).unwrap(); // transposed operand read in place
        let av = g.matmul(a, v).unwrap(); // [2, 1, 3]
        let vv = g.matmul(v, v).unwrap(); // scalar
        let vw = g.matmul(v, wt).unwrap();
        g.set_outputs(vec![ab, awt, av, vv, vw]);
        let args = [
            tensor(&mut rng, &[2, 1, 3, 4], dtype),
            tensor(&mut rng, &[5, 4, 6], dtype),
            tensor(&mut rng, &[6, 4], dtype),
            tensor(&mut rng, &[4], dtype),
        ];
        check(&g, &args, accum_tol(dtype, 4));
    }
}

#[test]
fn big_matmuls_split_over_threads() {
    let mut rng = Rng::new(23);
    for dtype in [DType::F32, DType::BF16] {
        for (a_dims, b_dims) in [
            (vec![130, 200], vec![200, 90]),
            (vec![4, 64, 80], vec![4, 80, 70]),
            (vec![1, 33, 0], vec![0, 5]),
            // Wider than tall: split by columns over threads.
            (vec![40, 300], vec![300, 200]),
            (vec![2, 30, 100], vec![100, 330]),
        ] {
            let mut g = Graph::new("big");
            let a = g.input("a", Shape::from(a_dims.as_slice()), dtype);
            let b = g.input("b", Shape::from(b_dims.as_slice()), dtype);
            let y = g.matmul(a, b).unwrap();
            g.set_outputs(vec![y]);
            let k = *a_dims.last().unwrap();
            check(
                &g,
                &[
                    tensor(&mut rng, &a_dims, dtype),
                    tensor(&mut rng, &b_dims, dtype),
                ],
                accum_tol(dtype, k),
            );
        }
    }
}

/// A wide product whose right operand is read transposed (`dy @ w^T` in a
/// backward pass), split by columns: each thread reads its own columns of
/// the strided operand.
#[test]
fn wide_matmuls_with_a_transposed_operand_split_by_columns() {
    let mut rng = Rng::new(25);
    let mut g = Graph::new("wide");
    let a = g.input("a", Shape::from([48, 256]), DType::F32);
    let w = g.input("w", Shape::from([320, 256]), DType::F32);
    let wt = g.transpose(w, &[1, 0]).unwrap();
    let y = g.matmul(a, wt).unwrap();
    g.set_outputs(vec![y]);
    let args = [
        tensor(&mut rng, &[48, 256], DType::F32),
        tensor(&mut rng, &[320, 256], DType::F32),
    ];
    check(&g, &args, accum_tol(DType::F32, 256));
}

/// A product read only through a transpose of its last two axes (a key's
/// gradient in attention's backward) is computed transposed, `b^T a^T`,
/// so the concatenation after it copies rows in order; one with another
/// reader, or that is an output, is not.
#[test]
fn products_read_transposed_are_computed_transposed() {
    let mut rng = Rng::new(26);
    for dtype in [DType::F32, DType::I32] {
        let mut g = Graph::new("transposed");
        let a = g.input("a", Shape::from([3, 5, 7]), dtype);
        let b = g.input("b", Shape::from([3, 7, 4]), dtype);
        let p = g.matmul(a, b).unwrap();
        let pt = g.transpose(p, &[0, 2, 1]).unwrap();
        let other = g.matmul(a, b).unwrap();
        let kept = g.transpose(other, &[0, 2, 1]).unwrap();
        let y = g.concat(1, &[pt, kept]).unwrap();
        g.set_outputs(vec![y, other]);
        let args = [
            tensor(&mut rng, &[3, 5, 7], dtype),
            tensor(&mut rng, &[3, 7, 4], dtype),
        ];
        check(&g, &args, accum_tol(dtype, 7));
        let plan = sexpgpu_cpu::compile(&g).unwrap().describe();
        let matmuls: Vec<&str> = plan.lines().filter(|l| l.contains(" matmul ")).collect();
        // The first product swaps its operands (`b` transposed first); the
        // second, an output too, keeps them.
        assert!(
            matmuls[0].contains("<- arg b[") && matmuls[0].contains("], arg a["),
            "{plan}"
        );
        assert!(matmuls[1].contains("<- arg a, arg b"), "{plan}");
    }
}

#[test]
fn index_gather_and_scatters() {
    let mut rng = Rng::new(24);
    for dtype in NUMERIC {
        for id_dtype in [DType::I32, DType::I64] {
            let mut g = Graph::new("indexing");
            let table = g.input("table", Shape::from([10, 3, 2]), dtype);
            let row_ids = g.input("ids", Shape::from([4, 5]), id_dtype);
            let x = g.input("x", Shape::from([6, 7]), dtype);
            let idx = g.input("idx", Shape::from([6, 9]), id_dtype);
            let rows = g.index(table, row_ids).unwrap(); // [4, 5, 3, 2]
            let added = g.index_add(table, row_ids, rows).unwrap();
            let picked = g.gather(x, idx, -1).unwrap();
            let base = g.zeros(Shape::from([6, 7]), dtype);
            let scattered = g.scatter_add(base, idx, picked, 1).unwrap();
            let t = g.transpose(x, &[1, 0]).unwrap();
            let t_ids = g.slice(idx, 1, 0, 7).unwrap();
            let t_ids = g.transpose(t_ids, &[1, 0]).unwrap();
            let gathered_t = g.gather(t, t_ids, 1).unwrap();
            g.set_outputs(vec![rows, added, picked, scattered, gathered_t]);
            let args = [
                tensor(&mut rng, &[10, 3, 2], dtype),
                ids(&mut rng, &[4, 5], id_dtype, 10),
                tensor(&mut rng, &[6, 7], dtype),
                ids(&mut rng, &[6, 9], id_dtype, 6),
            ];
            check(&g, &args, Tol::Exact);
        }
    }
}

/// Scatters that touch few of their base's elements (a cross-entropy's
/// gradient into its logits, an embedding's into its table) sum only
/// those, copying the rest: still the reference's bits, repeated ids
/// accumulating in order, in every float dtype.
#[test]
fn sparse_scatters_match_the_reference() {
    let mut rng = Rng::new(25);
    for dtype in [DType::F32, DType::BF16] {
        let mut g = Graph::new("sparse");
        let table = g.input("table", Shape::from([200, 8]), dtype);
        let row_ids = g.input("ids", Shape::from([6]), DType::I64);
        let rows = g.input("rows", Shape::from([6, 8]), dtype);
        let logits = g.input("logits", Shape::from([16, 100]), dtype);
        let targets = g.input("targets", Shape::from([16, 1]), DType::I64);
        let picked = g.input("picked", Shape::from([16, 1]), dtype);
        let added = g.index_add(table, row_ids, rows).unwrap();
        let scattered = g.scatter_add(logits, targets, picked, 1).unwrap();
        g.set_outputs(vec![added, scattered]);
        let args = [
            tensor(&mut rng, &[200, 8], dtype),
            // Repeated ids: their rows add in order.
            sexpgpu_graph::Tensor::from_i64s(Shape::from([6]), &[3, 150, 3, 0, 199, 3], DType::I64)
                .unwrap(),
            tensor(&mut rng, &[6, 8], dtype),
            tensor(&mut rng, &[16, 100], dtype),
            ids(&mut rng, &[16, 1], DType::I64, 100),
            tensor(&mut rng, &[16, 1], dtype),
        ];
        check(&g, &args, Tol::Exact);
    }
    // A base large enough that its copy is split over the threads.
    let mut g = Graph::new("sparse-large");
    let table = g.input("table", Shape::from([6000, 16]), DType::F32);
    let row_ids = g.input("ids", Shape::from([5]), DType::I32);
    let rows = g.input("rows", Shape::from([5, 16]), DType::F32);
    let added = g.index_add(table, row_ids, rows).unwrap();
    g.set_outputs(vec![added]);
    let args = [
        tensor(&mut rng, &[6000, 16], DType::F32),
        sexpgpu_graph::Tensor::from_i64s(Shape::from([5]), &[5999, 0, 3000, 0, 5999], DType::I32)
            .unwrap(),
        tensor(&mut rng, &[5, 16], DType::F32),
    ];
    for threads in [1, 2, 3] {
        let program = sexpgpu_cpu::compile(&g).unwrap().with_threads(threads);
        let want = sexpgpu_graph::execute(&g, &args, 0).unwrap();
        assert_eq!(program.run(&args, 0).unwrap(), want, "{threads} threads");
    }
}

#[test]
fn ids_out_of_range_are_the_references_error() {
    let mut g = Graph::new("bad");
    let table = g.input("table", Shape::from([3, 2]), DType::F32);
    let row_ids = g.input("ids", Shape::from([2]), DType::I64);
    let rows = g.index(table, row_ids).unwrap();
    g.set_outputs(vec![rows]);
    let args = [
        Tensor::from_f64s(Shape::from([3, 2]), &[0.0; 6], DType::F32).unwrap(),
        Tensor::from_i64s(Shape::from([2]), &[1, 3], DType::I64).unwrap(),
    ];
    let want = sexpgpu_graph::execute(&g, &args, 0).unwrap_err();
    let got = sexpgpu_cpu::compile(&g).unwrap().run(&args, 0).unwrap_err();
    assert_eq!(got, want);
    assert_eq!(
        got.message,
        "index: id 3 is out of range for an axis of length 3"
    );
}

#[test]
fn linear_scans_both_ways() {
    let mut rng = Rng::new(25);
    for dtype in [DType::F32, DType::BF16] {
        for axis in [0, 1, -1] {
            for reverse in [false, true] {
                let mut g = Graph::new("scan");
                let a = g.input("a", Shape::from([5, 6, 7]), dtype);
                let b = g.input("b", Shape::from([6, 7]), dtype);
                let h = g.linear_scan(a, b, axis, reverse).unwrap();
                g.set_outputs(vec![h]);
                check(
                    &g,
                    &[
                        tensor(&mut rng, &[5, 6, 7], dtype),
                        tensor(&mut rng, &[6, 7], dtype),
                    ],
                    Tol::Exact,
                );
            }
        }
    }
}

/// The kinds of the launches `graph` compiles to, in order.
fn launch_kinds(graph: &Graph) -> Vec<&'static str> {
    let program = sexpgpu_cpu::compile(graph).unwrap();
    program
        .plan()
        .launches
        .iter()
        .map(|l| l.step.kind())
        .collect()
}

#[test]
fn weight_gradients_sum_over_the_batch_in_one_product() {
    let mut rng = Rng::new(25);
    // `sum_b x_b^T @ dy_b`, as a weight's gradient is traced: one GEMM over
    // all rows, never the per-batch products, when x's batch axis continues
    // its rows; with two batch axes and with keepdims too.
    for (batch, keepdims) in [(vec![4], false), (vec![4], true), (vec![2, 3], false)] {
        let mut g = Graph::new("weight-grad");
        let x_dims = [batch.as_slice(), &[5, 6]].concat();
        let dy_dims = [batch.as_slice(), &[5, 7]].concat();
        let x = g.input("x", Shape::from(x_dims.as_slice()), DType::F32);
        let dy = g.input("dy", Shape::from(dy_dims.as_slice()), DType::F32);
        let r = x_dims.len() as i64;
        let mut perm: Vec<i64> = (0..r).collect();
        perm.swap(r as usize - 2, r as usize - 1);
        let xt = g.transpose(x, &perm).unwrap();
        let products = g.matmul(xt, dy).unwrap();
        let axes: Vec<i64> = (0..batch.len() as i64).collect();
        let summed = g
            .reduce(ReduceOp::Sum, products, Some(&axes), keepdims)
            .unwrap();
        g.set_outputs(vec![summed]);
        assert_eq!(launch_kinds(&g), ["matmul"], "batch {batch:?}");
        let args = [
            tensor(&mut rng, &x_dims, DType::F32),
            tensor(&mut rng, &dy_dims, DType::F32),
        ];
        check(
            &g,
            &args,
            accum_tol(DType::F32, 5 * batch.iter().product::<usize>()),
        );
    }
}

#[test]
fn batch_sums_of_products_that_do_not_fold_stay_two_steps() {
    let mut rng = Rng::new(26);
    let mut g = Graph::new("no-fold");
    // x [5 4 6] read as [4 6 5]: its batch axis (stride 6) does not continue
    // the contraction axis (stride 24), so the products are summed after.
    let x = g.input("x", Shape::from([5, 4, 6]), DType::F32);
    let dy = g.input("dy", Shape::from([4, 5, 7]), DType::F32);
    let xt = g.transpose(x, &[1, 2, 0]).unwrap();
    let products = g.matmul(xt, dy).unwrap();
    let summed = g
        .reduce(ReduceOp::Sum, products, Some(&[0]), false)
        .unwrap();
    // A product read twice is stored whatever its readers.
    let bf = g.input("b", Shape::from([4, 6, 5]), DType::F32);
    let again = g.matmul(bf, dy).unwrap();
    let summed_again = g.reduce(ReduceOp::Sum, again, Some(&[0]), false).unwrap();
    g.set_outputs(vec![summed, summed_again, again]);
    assert_eq!(
        launch_kinds(&g),
        ["matmul", "reduce-sum", "matmul", "reduce-sum"]
    );
    let args = [
        tensor(&mut rng, &[5, 4, 6], DType::F32),
        tensor(&mut rng, &[4, 5, 7], DType::F32),
        tensor(&mut rng, &[4, 6, 5], DType::F32),
    ];
    check(&g, &args, accum_tol(DType::F32, 20));
}

#[test]
fn a_bias_added_to_a_stored_product_is_its_epilogue() {
    let mut rng = Rng::new(26);
    for dtype in [DType::F32, DType::BF16] {
        // x @ w + b split into heads (read by layout nodes, so stored) and
        // returned; the bias on the left of the add, read through a strided
        // view (a matrix's column) that is copied to a vector first.
        let mut g = Graph::new("linear");
        let x = g.input("x", Shape::from([2, 5, 6]), dtype);
        let w = g.input("w", Shape::from([6, 8]), dtype);
        let b = g.input("b", Shape::from([8]), dtype);
        let cols = g.input("cols", Shape::from([8, 3]), dtype);
        let xw = g.matmul(x, w).unwrap();
        let y = g.binary(BinaryOp::Add, xw, b).unwrap();
        let heads = g.reshape(y, Shape::from([2, 5, 2, 4])).unwrap();
        let heads = g.transpose(heads, &[0, 2, 1, 3]).unwrap();
        let t = g.unary(UnaryOp::Tanh, heads).unwrap();
        let col = g.slice(cols, 1, 1, 2).unwrap();
        let col = g.reshape(col, Shape::from([8])).unwrap();
        let xw2 = g.matmul(x, w).unwrap();
        let z = g.binary(BinaryOp::Add, col, xw2).unwrap();
        g.set_outputs(vec![t, z]);
        let args = [
            tensor(&mut rng, &[2, 5, 6], dtype),
            tensor(&mut rng, &[6, 8], dtype),
            tensor(&mut rng, &[8], dtype),
            tensor(&mut rng, &[8, 3], dtype),
        ];
        check(&g, &args, accum_tol(dtype, 6));
        let plan = sexpgpu_cpu::compile(&g).unwrap().describe();
        assert_eq!(
            launch_kinds(&g),
            ["matmul", "fused", "copy", "matmul"],
            "{plan}"
        );
        let matmuls: Vec<&str> = plan.lines().filter(|l| l.contains(" matmul ")).collect();
        assert!(matmuls[0].ends_with(", bias arg b"), "{plan}");
        assert!(matmuls[1].ends_with(", bias b2"), "{plan}");
    }
}

#[test]
fn linear_layers_of_every_layout_add_their_bias_in_the_product() {
    // The shapes the CUDA emulation and the GPU check run too: a shared
    // weight, a weight per batch element, a bias off any 16-byte boundary,
    // and an empty contraction (the bias alone).
    for (name, g, args) in common::linear::linear_layers() {
        let k = args[0].shape().dims().last().copied().unwrap_or(1);
        check(&g, &args, accum_tol(g.dtype(g.outputs()[0]), k.max(1)));
        let plan = sexpgpu_cpu::compile(&g).unwrap().describe();
        assert_eq!(launch_kinds(&g), ["matmul"], "{name}\n{plan}");
        assert!(plan.contains(", bias arg b"), "{name}\n{plan}");
    }
}

#[test]
fn a_product_read_elsewhere_keeps_its_add() {
    let mut rng = Rng::new(27);
    // The product is an output, is read twice, or gets a splat or a whole
    // tensor rather than a row vector, or the add is computed inside the
    // fused loop that reads it (an activation): the add stays in a loop.
    let mut g = Graph::new("kept");
    let x = g.input("x", Shape::from([4, 6]), DType::F32);
    let w = g.input("w", Shape::from([6, 3]), DType::F32);
    let b = g.input("b", Shape::from([3]), DType::F32);
    let r = g.input("r", Shape::from([4, 3]), DType::F32);
    let out = g.matmul(x, w).unwrap();
    let out_b = g.binary(BinaryOp::Add, out, b).unwrap();
    let twice = g.matmul(x, w).unwrap();
    let twice_b = g.binary(BinaryOp::Add, twice, b).unwrap();
    let twice_sq = g.binary(BinaryOp::Mul, twice, twice).unwrap();
    let splat = g.matmul(x, w).unwrap();
    let splat_b = g.binary(BinaryOp::Add, splat, 1.5).unwrap();
    let whole = g.matmul(x, w).unwrap();
    let whole_r = g.binary(BinaryOp::Add, whole, r).unwrap();
    let act = g.matmul(x, w).unwrap();
    let act_b = g.binary(BinaryOp::Add, act, b).unwrap();
    let relu = g.binary(BinaryOp::Maximum, act_b, 0.0).unwrap();
    g.set_outputs(vec![out, out_b, twice_b, twice_sq, splat_b, whole_r, relu]);
    let args = [
        tensor(&mut rng, &[4, 6], DType::F32),
        tensor(&mut rng, &[6, 3], DType::F32),
        tensor(&mut rng, &[3], DType::F32),
        tensor(&mut rng, &[4, 3], DType::F32),
    ];
    check(&g, &args, accum_tol(DType::F32, 6));
    let plan = sexpgpu_cpu::compile(&g).unwrap().describe();
    assert!(!plan.contains("bias"), "{plan}");
}
