//! Every elementwise op on every dtype it accepts, alone and fused into
//! chains with broadcast operands, compared with the reference executor
//! (bit-identical: the fused loop does the reference's arithmetic).

mod common;

use common::{check, tensor, Rng, Tol};
use sexpgpu_graph::{BinaryOp, CompareOp, DType, Graph, Scalar, Shape, UnaryOp};

const FLOATS: [DType; 2] = [DType::F32, DType::BF16];
const INTS: [DType; 2] = [DType::I32, DType::I64];

/// Long enough for several tiles and, with 3 threads, several chunks.
const BIG: [usize; 2] = [3, 40_000];

#[test]
fn unary_ops_on_every_dtype() {
    let mut rng = Rng::new(1);
    for op in UnaryOp::ALL {
        let dtypes: Vec<DType> = if op.accepts_integers() {
            FLOATS.iter().chain(&INTS).copied().collect()
        } else {
            FLOATS.to_vec()
        };
        for dtype in dtypes {
            let mut g = Graph::new("unary");
            let x = g.input("x", Shape::from(BIG), dtype);
            let y = g.unary(op, x).unwrap();
            g.set_outputs(vec![y]);
            check(&g, &[tensor(&mut rng, &BIG, dtype)], Tol::Exact);
        }
    }
}

#[test]
fn binary_ops_with_broadcast_operands() {
    let mut rng = Rng::new(2);
    for op in BinaryOp::ALL {
        let dtypes: Vec<DType> = FLOATS
            .iter()
            .chain(&INTS)
            .chain(&[DType::Bool])
            .copied()
            .filter(|&d| op.operands().accepts(d))
            .collect();
        for dtype in dtypes {
            // Same shape, a row, a column, and a plain number.
            let mut g = Graph::new("binary");
            let a = g.input("a", Shape::from([50, 700]), dtype);
            let b = g.input("b", Shape::from([50, 700]), dtype);
            let row = g.input("row", Shape::from([700]), dtype);
            let col = g.input("col", Shape::from([50, 1]), dtype);
            let y1 = g.binary(op, a, b).unwrap();
            let y2 = g.binary(op, row, a).unwrap();
            let y3 = g.binary(op, a, col).unwrap();
            let two = if dtype.is_float() {
                Scalar::Float(2.5)
            } else {
                Scalar::Int(3)
            };
            // A number never mixes with a bool tensor.
            let y4 = if dtype == DType::Bool {
                g.binary(op, y1, y2).unwrap()
            } else {
                g.binary(op, y1, two).unwrap()
            };
            g.set_outputs(vec![y1, y2, y3, y4]);
            let args = [
                tensor(&mut rng, &[50, 700], dtype),
                tensor(&mut rng, &[50, 700], dtype),
                tensor(&mut rng, &[700], dtype),
                tensor(&mut rng, &[50, 1], dtype),
            ];
            check(&g, &args, Tol::Exact);
        }
    }
}

#[test]
fn comparisons_where_and_casts() {
    let mut rng = Rng::new(3);
    for dtype in DType::ALL {
        for op in CompareOp::ALL {
            let mut g = Graph::new("compare");
            let a = g.input("a", Shape::from([7, 300]), dtype);
            let b = g.input("b", Shape::from([300]), dtype);
            let m = g.compare(op, a, b).unwrap();
            let y = g.where_(m, a, b).unwrap();
            g.set_outputs(vec![m, y]);
            // Few distinct values so equality is common.
            let (ta, tb) = if dtype == DType::Bool || dtype.is_integer() {
                (
                    common::ids(&mut rng, &[7, 300], dtype, 2),
                    common::ids(&mut rng, &[300], dtype, 2),
                )
            } else {
                (
                    tensor(&mut rng, &[7, 300], dtype),
                    tensor(&mut rng, &[300], dtype),
                )
            };
            check(&g, &[ta, tb], Tol::Exact);
        }
        for to in DType::ALL {
            let mut g = Graph::new("cast");
            let x = g.input("x", Shape::from([5000]), dtype);
            let y = g.cast(x, to);
            g.set_outputs(vec![y]);
            let mut t = tensor(&mut rng, &[5000], dtype);
            if dtype.is_float() {
                // Large values and NaN exercise saturation and rounding.
                let mut v = t.to_f64s();
                v[0] = 1e20;
                v[1] = -1e20;
                v[2] = f64::NAN;
                v[3] = 3.999_999;
                t = sexpgpu_graph::Tensor::from_f64s(Shape::from([5000]), &v, dtype).unwrap();
            }
            check(&g, &[t], Tol::Exact);
        }
    }
}

#[test]
fn a_long_chain_fuses_into_one_kernel() {
    let mut rng = Rng::new(4);
    for dtype in FLOATS {
        let mut g = Graph::new("chain");
        let x = g.input("x", Shape::from([256, 300]), dtype);
        let bias = g.input("bias", Shape::from([300]), dtype);
        let mut y = g.binary(BinaryOp::Add, x, bias).unwrap();
        for step in 0..6 {
            y = g
                .binary(BinaryOp::Mul, y, Scalar::Float(0.5 + step as f64))
                .unwrap();
            y = g.unary(UnaryOp::Tanh, y).unwrap();
            y = g.binary(BinaryOp::Maximum, y, x).unwrap();
        }
        let positive = g.compare(CompareOp::Gt, y, Scalar::Float(0.0)).unwrap();
        let y = g.where_(positive, y, Scalar::Float(-1.0)).unwrap();
        let as_int = g.cast(y, DType::I32);
        let back = g.cast(as_int, dtype);
        let out = g.binary(BinaryOp::Sub, y, back).unwrap();
        g.set_outputs(vec![out]);
        check(
            &g,
            &[
                tensor(&mut rng, &[256, 300], dtype),
                tensor(&mut rng, &[300], dtype),
            ],
            Tol::Exact,
        );
        let program = sexpgpu_cpu::compile(&g).unwrap();
        assert_eq!(program.plan().launches.len(), 1, "{}", program.describe());
    }
}

#[test]
fn a_node_read_by_two_groups_is_stored_once() {
    let mut rng = Rng::new(5);
    let mut g = Graph::new("shared");
    let x = g.input("x", Shape::from([64, 64]), DType::F32);
    let e = g.unary(UnaryOp::Exp, x).unwrap();
    let s = g
        .reduce(sexpgpu_graph::ReduceOp::Sum, e, Some(&[-1]), true)
        .unwrap();
    let y = g.binary(BinaryOp::Div, e, s).unwrap();
    g.set_outputs(vec![y, e]);
    check(
        &g,
        &[tensor(&mut rng, &[64, 64], DType::F32)],
        common::accum_tol(DType::F32, 64),
    );
}
