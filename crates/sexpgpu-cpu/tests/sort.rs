//! `argsort` (and `sort`/`top-k`, its gathers) on every numeric dtype,
//! along every axis, with many ties and, for floats, NaN and signed zeros:
//! the compiled kernel gives the reference's positions exactly.

mod common;

use common::{check, ids, tensor, Rng, Tol};
use sexpgpu_graph::{DType, Graph, Shape, Tensor};

#[test]
fn argsort_sort_and_top_k_match_the_reference() {
    let mut rng = Rng::new(11);
    for dtype in [DType::F32, DType::BF16, DType::I32, DType::I64] {
        for axis in [0i64, 1, -1] {
            for descending in [false, true] {
                let mut g = Graph::new("sort");
                let x = g.input("x", Shape::from([7, 300]), dtype);
                let order = g.argsort(x, axis, descending).unwrap();
                let (values, _) = g.sort(x, axis, descending).unwrap();
                let (top, at) = g.top_k(x, 5, axis, !descending).unwrap();
                g.set_outputs(vec![order, values, top, at]);
                // Few distinct values, so ties are everywhere.
                let mut t = if dtype.is_float() {
                    let few = ids(&mut rng, &[7, 300], DType::I32, 4);
                    let v: Vec<f64> = few.to_f64s().iter().map(|x| x - 1.5).collect();
                    Tensor::from_f64s(Shape::from([7, 300]), &v, dtype).unwrap()
                } else {
                    ids(&mut rng, &[7, 300], dtype, 5)
                };
                if dtype.is_float() {
                    let mut v = t.to_f64s();
                    for (i, special) in [f64::NAN, -0.0, 0.0, f64::NAN, f64::INFINITY]
                        .into_iter()
                        .enumerate()
                    {
                        v[i * 301] = special;
                    }
                    t = Tensor::from_f64s(Shape::from([7, 300]), &v, dtype).unwrap();
                }
                check(&g, &[t], Tol::Exact);
            }
        }
    }
    // Empty and single-element lines.
    for dims in [[0usize, 3], [3, 1]] {
        let mut g = Graph::new("short");
        let x = g.input("x", Shape::from(dims), DType::F32);
        let order = g.argsort(x, 0, true).unwrap();
        let (top, _) = g.top_k(x, 0, 1, true).unwrap();
        g.set_outputs(vec![order, top]);
        check(&g, &[tensor(&mut rng, &dims, DType::F32)], Tol::Exact);
    }
    // A long line and a random float input.
    let mut g = Graph::new("long");
    let x = g.input("x", Shape::from([20_000]), DType::F32);
    let order = g.argsort(x, 0, false).unwrap();
    g.set_outputs(vec![order]);
    check(&g, &[tensor(&mut rng, &[20_000], DType::F32)], Tol::Exact);
}
