//! Random programs of builder calls on random shapes and dtypes: builders
//! either refuse with an `OpError` or build a node, and the executor then
//! either runs (giving every node its declared shape and dtype) or returns an
//! `ExecError` (ids out of range). Nothing panics.

use proptest::prelude::*;
use sexpgpu_graph::{
    execute, BinaryOp, CompareOp, DType, Graph, NodeId, OpError, ReduceOp, Scalar, Shape, Tensor,
    UnaryOp,
};

/// One builder call; the numbers pick operands from the pool and attributes.
#[derive(Clone, Debug)]
struct Step {
    kind: u8,
    picks: [usize; 3],
    ints: [i64; 4],
    dims: Vec<usize>,
    flag: bool,
}

fn step() -> impl Strategy<Value = Step> {
    (
        0u8..22,
        [0usize..64, 0usize..64, 0usize..64],
        [-3i64..4, -3i64..4, -3i64..4, -3i64..4],
        prop::collection::vec(0usize..4, 0..4),
        any::<bool>(),
    )
        .prop_map(|(kind, picks, ints, dims, flag)| Step {
            kind,
            picks,
            ints,
            dims,
            flag,
        })
}

fn dtype(i: i64) -> DType {
    DType::ALL[i.rem_euclid(5) as usize]
}

/// Applies one step. With `flag` set, attributes are derived from the
/// operand's shape so that most calls are valid and reach the executor;
/// otherwise they are raw and often refused.
fn apply(g: &mut Graph, pool: &[NodeId], s: &Step) -> Result<NodeId, OpError> {
    let [a, b, c] = s.picks.map(|p| pool[p % pool.len()]);
    let [i0, i1, i2, i3] = s.ints;
    let shape = Shape::from(s.dims.as_slice());
    let a_dims = g.shape(a).dims().to_vec();
    let rank = a_dims.len();
    let fitted = s.flag && rank > 0;
    let axis = if fitted {
        i0.rem_euclid(rank as i64)
    } else {
        i0
    };
    match s.kind {
        0 => g.unary(UnaryOp::ALL[(i0.rem_euclid(11)) as usize], a),
        1 => g.binary(
            BinaryOp::ALL[(i0.rem_euclid(8)) as usize],
            a,
            if s.flag { a } else { b },
        ),
        2 => g.binary(
            BinaryOp::ALL[(i0.rem_euclid(8)) as usize],
            a,
            Scalar::Int(i1),
        ),
        3 => g.compare(CompareOp::ALL[(i0.rem_euclid(6)) as usize], a, b),
        4 => g.where_(a, b, c),
        5 => {
            let op = if i3 > 0 { ReduceOp::Sum } else { ReduceOp::Max };
            g.reduce(
                op,
                a,
                Some(&[i0, i1][..(i2.rem_euclid(3)) as usize]),
                s.flag,
            )
        }
        6 if s.flag => g.reshape(a, Shape::from([a_dims.iter().product::<usize>()])),
        6 => g.reshape(a, shape),
        7 if s.flag => g.broadcast_to(a, Shape::new([&[2], a_dims.as_slice()].concat())),
        7 => g.broadcast_to(a, shape),
        8 => {
            let mut perm: Vec<i64> = (0..rank as i64).collect();
            if fitted {
                perm.rotate_left(i1.rem_euclid(rank as i64) as usize);
            } else {
                perm = vec![i0, i1, i2][..rank.min(3)].to_vec();
            }
            g.transpose(a, &perm)
        }
        9 if fitted && a_dims[axis as usize] > 0 => {
            let dim = a_dims[axis as usize] as i64;
            let start = i1.rem_euclid(dim);
            g.slice(a, axis, start, start + 1 + i2.rem_euclid(dim - start))
        }
        9 => g.slice(a, i0, i1, i2),
        10 => g.concat(axis, &[a, if s.flag { a } else { b }]),
        11 if fitted && rank >= 2 => {
            let mut perm: Vec<i64> = (0..rank as i64).collect();
            perm.swap(rank - 1, rank - 2);
            let t = g.transpose(a, &perm)?;
            g.matmul(a, t)
        }
        11 => g.matmul(a, b),
        12 if s.flag => {
            let ids = g.cast(b, DType::I32);
            g.index(a, ids)
        }
        12 => g.index(a, b),
        13 => g.index_add(a, b, c),
        14 if s.flag => {
            let idx = g.cast(a, DType::I64);
            g.gather(a, idx, axis)
        }
        14 => g.gather(a, b, i0),
        15 if s.flag => {
            let idx = g.cast(a, DType::I32);
            g.scatter_add(a, idx, a, axis)
        }
        15 => g.scatter_add(a, b, c, i0),
        16 => g.linear_scan(a, if s.flag { a } else { b }, axis, i1 > 0),
        17 => Ok(g.cast(a, dtype(i0))),
        18 => g.iota(shape, i0, dtype(i1)),
        19 => g.normal(shape, dtype(i0), f64::from(i1 as i32), f64::from(i2 as i32)),
        20 => g.uniform(shape, dtype(i0), f64::from(i1 as i32), f64::from(i3 as i32)),
        _ => g.full(shape, Scalar::Int(i1), dtype(i0)),
    }
}

fn argument(shape: &Shape, dtype: DType, salt: u64) -> Tensor {
    // Small integers, including -1 and values past short axes, so some ids are out of range.
    let values: Vec<i64> = (0..shape.numel() as u64)
        .map(|i| ((i * 7 + salt) % 6) as i64 - 1)
        .collect();
    Tensor::from_i64s(shape.clone(), &values, dtype).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn builders_and_executor_never_panic(
        inputs in prop::collection::vec((prop::collection::vec(1usize..4, 0..4), 0i64..5), 1..4),
        steps in prop::collection::vec(step(), 1..12),
    ) {
        let mut g = Graph::new("fuzz");
        let mut pool: Vec<NodeId> = inputs
            .iter()
            .enumerate()
            .map(|(i, (dims, d))| g.input(format!("x{i}"), Shape::from(dims.as_slice()), dtype(*d)))
            .collect();
        for s in &steps {
            if let Ok(id) = apply(&mut g, &pool, s) {
                pool.push(id);
            }
        }
        g.set_outputs(pool.clone());
        let args: Vec<Tensor> = g
            .arguments()
            .iter()
            .enumerate()
            .map(|(i, &id)| argument(g.shape(id), g.dtype(id), i as u64))
            .collect();
        if let Ok(outputs) = execute(&g, &args, 1) {
            for (t, &id) in outputs.iter().zip(&pool) {
                prop_assert_eq!(t.shape(), g.shape(id));
                prop_assert_eq!(t.dtype(), g.dtype(id));
            }
        }
    }
}
