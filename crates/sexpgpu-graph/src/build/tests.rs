//! Shape and dtype rules of every builder, shown as the IR they build or the
//! error they return.

use diag::SourceMap;
use expect_test::{expect, Expect};

use crate::dtype::{DType, Scalar};
use crate::error::OpError;
use crate::graph::{Graph, NodeId};
use crate::ir::print_ir;
use crate::op::{BinaryOp, CompareOp, ReduceOp, UnaryOp};
use crate::shape::Shape;

type OneInput = fn(&mut Graph, NodeId) -> Result<NodeId, OpError>;
type TwoInputs = fn(&mut Graph, NodeId, NodeId) -> Result<NodeId, OpError>;

fn check(build: impl FnOnce(&mut Graph) -> Result<NodeId, OpError>, expect: Expect) {
    let mut g = Graph::new("t");
    let text = match build(&mut g) {
        Ok(id) => {
            g.set_outputs(vec![id]);
            print_ir(&g, &SourceMap::new())
        }
        Err(e) => {
            let mut text = format!("error[{}]: {}\n", e.code(), e.message);
            for note in &e.notes {
                text.push_str(&format!("note: {note}\n"));
            }
            text
        }
    };
    expect.assert_eq(&text);
}

fn x(g: &mut Graph, dims: &[usize], dtype: DType) -> NodeId {
    let name = format!("x{}", g.len());
    g.input(name, Shape::from(dims), dtype)
}

#[test]
fn matmul_inner_dims_message_is_the_seeds() {
    check(
        |g| {
            let (a, b) = (x(g, &[2, 16], DType::F32), x(g, &[32, 8], DType::F32));
            g.matmul(a, b)
        },
        expect![[r#"
            error[E-DIM-001]: matmul: inner dims differ: [2, 16] x [32, 8]
        "#]],
    );
}

#[test]
fn matmul_batches_broadcast_explicitly() {
    check(
        |g| {
            let (a, b) = (
                x(g, &[5, 1, 2, 3], DType::F32),
                x(g, &[4, 3, 6], DType::F32),
            );
            g.matmul(a, b)
        },
        expect![[r#"
            graph t (inputs 2, params 0, nodes 5)
              %0 = input x0                   [5, 1, 2, 3] f32
              %1 = input x1                   [4, 3, 6] f32
              %2 = broadcast %0               [5, 4, 2, 3] f32
              %3 = broadcast %1               [5, 4, 3, 6] f32
              %4 = matmul %2 %3               [5, 4, 2, 6] f32
              return %4
        "#]],
    );
    check(
        |g| {
            let (a, b) = (x(g, &[5, 2, 3], DType::F32), x(g, &[4, 2, 6], DType::F32));
            g.matmul(a, b)
        },
        expect![[r#"
            error[E-DIM-001]: matmul: inner dims differ: [5, 2, 3] x [4, 2, 6]
        "#]],
    );
    check(
        |g| {
            let (a, b) = (x(g, &[5, 2, 3], DType::F32), x(g, &[1, 2, 6], DType::F32));
            g.matmul(a, b)
        },
        expect![[r#"
            error[E-DIM-001]: matmul: inner dims differ: [5, 2, 3] x [1, 2, 6]
            note: batch dims [5] and [1] would broadcast to [5]
        "#]],
    );
    check(
        |g| {
            let (a, b) = (x(g, &[5, 2, 3], DType::F32), x(g, &[4, 3, 6], DType::F32));
            g.matmul(a, b)
        },
        expect![[r#"
            error[E-DIM-001]: matmul: batch dims do not broadcast: [5, 2, 3] x [4, 3, 6]
            note: aligned from the right, axis -1 has 5 vs 4; each must be equal or 1
        "#]],
    );
}

#[test]
fn matmul_vectors_follow_numpy() {
    check(
        |g| {
            let (a, b) = (x(g, &[3], DType::F32), x(g, &[2, 3, 4], DType::F32));
            g.matmul(a, b)
        },
        expect![[r#"
            graph t (inputs 2, params 0, nodes 6)
              %0 = input x0                   [3] f32
              %1 = input x1                   [2, 3, 4] f32
              %2 = reshape %0                 [1, 3] f32
              %3 = broadcast %2               [2, 1, 3] f32
              %4 = matmul %3 %1               [2, 1, 4] f32
              %5 = reshape %4                 [2, 4] f32
              return %5
        "#]],
    );
    check(
        |g| {
            let (a, b) = (x(g, &[3], DType::I32), x(g, &[3], DType::I32));
            g.matmul(a, b)
        },
        expect![[r#"
            graph t (inputs 2, params 0, nodes 6)
              %0 = input x0                   [3] i32
              %1 = input x1                   [3] i32
              %2 = reshape %0                 [1, 3] i32
              %3 = reshape %1                 [3, 1] i32
              %4 = matmul %2 %3               [1, 1] i32
              %5 = reshape %4                 [] i32
              return %5
        "#]],
    );
    check(
        |g| {
            let (a, b) = (x(g, &[], DType::F32), x(g, &[3], DType::F32));
            g.matmul(a, b)
        },
        expect![[r#"
            error[E-DIM-001]: matmul: expects tensors of rank 1 or more, got [] x [3]
        "#]],
    );
}

#[test]
fn binary_broadcasts_and_numbers_become_constants() {
    check(
        |g| {
            let (a, b) = (x(g, &[2, 1], DType::F32), x(g, &[3], DType::F32));
            let s = g.binary(BinaryOp::Add, a, b)?;
            g.binary(BinaryOp::Mul, 0.5, s)
        },
        expect![[r#"
            graph t (inputs 2, params 0, nodes 8)
              %0 = input x0                   [2, 1] f32
              %1 = input x1                   [3] f32
              %2 = broadcast %0               [2, 3] f32
              %3 = broadcast %1               [2, 3] f32
              %4 = add %2 %3                  [2, 3] f32
              %5 = full 0.5                   [] f32
              %6 = broadcast %5               [2, 3] f32
              %7 = mul %6 %4                  [2, 3] f32
              return %7
        "#]],
    );
}

#[test]
fn binary_errors() {
    check(
        |g| {
            let (a, b) = (x(g, &[2, 3], DType::F32), x(g, &[4, 3], DType::F32));
            g.binary(BinaryOp::Sub, a, b)
        },
        expect![[r#"
            error[E-DIM-001]: -: shapes do not broadcast: [2, 3] and [4, 3]
            note: aligned from the right, axis -2 has 2 vs 4; each must be equal or 1
        "#]],
    );
    check(
        |g| {
            let (a, b) = (x(g, &[2], DType::F32), x(g, &[2], DType::BF16));
            g.binary(BinaryOp::Add, a, b)
        },
        expect![[r#"
            error[E-DIM-002]: +: dtypes differ: f32 and bf16
        "#]],
    );
    check(
        |g| {
            let a = x(g, &[2], DType::I32);
            g.binary(BinaryOp::Add, a, 1.5)
        },
        expect![[r#"
            error[E-DIM-002]: +: 1.5 is a float, but the tensor is i32
        "#]],
    );
    check(
        |g| {
            let (a, b) = (x(g, &[2], DType::I64), x(g, &[2], DType::I64));
            g.binary(BinaryOp::Div, a, b)
        },
        expect![[r#"
            error[E-DIM-002]: /: expects float tensors, got i64
        "#]],
    );
    check(
        |g| {
            let a = x(g, &[2], DType::Bool);
            g.binary(BinaryOp::ShiftLeft, a, a)
        },
        expect![[r#"
            error[E-DIM-002]: shift-left: expects integer tensors, got bool
        "#]],
    );
    // PyTorch's `maximum` of `bool`s is their or; `pow` of integers is
    // squarings, and a negative number exponent is refused as PyTorch's is.
    check(
        |g| {
            let a = x(g, &[2], DType::Bool);
            g.binary(BinaryOp::Maximum, a, a)
        },
        expect![[r#"
            graph t (inputs 1, params 0, nodes 2)
              %0 = input x0                   [2] bool
              %1 = bit-or %0 %0               [2] bool
              return %1
        "#]],
    );
    check(
        |g| {
            let a = x(g, &[2], DType::I32);
            g.binary(BinaryOp::Pow, a, 3i64)
        },
        expect![[r#"
            graph t (inputs 1, params 0, nodes 3)
              %0 = input x0                   [2] i32
              %1 = mul %0 %0                  [2] i32
              %2 = mul %0 %1                  [2] i32
              return %2
        "#]],
    );
    check(
        |g| {
            let a = x(g, &[2], DType::I32);
            g.binary(BinaryOp::Pow, a, -2i64)
        },
        expect![[r#"
            error[E-DIM-002]: pow: integers to negative integer powers are not allowed (exponent -2)
            note: PyTorch refuses them too; cast the base to a float dtype first
        "#]],
    );
    check(
        |g| g.binary(BinaryOp::Add, 1.0, 2.0),
        expect![[r#"
        graph t (inputs 0, params 0, nodes 4)
          %0 = full 1.0                   [] f32
          %1 = full 1.0                   [] f32
          %2 = full 2.0                   [] f32
          %3 = add %1 %2                  [] f32
          return %3
    "#]],
    );
}

#[test]
fn unary_dtypes() {
    check(
        |g| {
            let a = x(g, &[2], DType::I32);
            g.unary(UnaryOp::Abs, a)
        },
        expect![[r#"
            graph t (inputs 1, params 0, nodes 2)
              %0 = input x0                   [2] i32
              %1 = abs %0                     [2] i32
              return %1
        "#]],
    );
    check(
        |g| {
            let a = x(g, &[2], DType::I32);
            g.unary(UnaryOp::Sin, a)
        },
        expect![[r#"
            error[E-DIM-002]: sin: expects a float tensor, got i32
        "#]],
    );
}

#[test]
fn comparisons_and_where() {
    check(
        |g| {
            let a = x(g, &[2, 3], DType::F32);
            let m = g.compare(CompareOp::Gt, a, 0.0)?;
            g.where_(m, a, 0.0)
        },
        expect![[r#"
            graph t (inputs 1, params 0, nodes 7)
              %0 = input x0                   [2, 3] f32
              %1 = full 0.0                   [] f32
              %2 = broadcast %1               [2, 3] f32
              %3 = gt %0 %2                   [2, 3] bool
              %4 = full 0.0                   [] f32
              %5 = broadcast %4               [2, 3] f32
              %6 = where %3 %0 %5             [2, 3] f32
              return %6
        "#]],
    );
    check(
        |g| {
            let (m, a) = (x(g, &[2], DType::F32), x(g, &[2], DType::F32));
            g.where_(m, a, a)
        },
        expect![[r#"
            error[E-DIM-002]: where: mask must be bool, got f32
        "#]],
    );
    check(
        |g| {
            let (m, a, b) = (
                x(g, &[2, 1], DType::Bool),
                x(g, &[3], DType::F32),
                x(g, &[4, 1, 1], DType::F32),
            );
            g.where_(m, a, b)
        },
        expect![[r#"
            graph t (inputs 3, params 0, nodes 7)
              %0 = input x0                   [2, 1] bool
              %1 = input x1                   [3] f32
              %2 = input x2                   [4, 1, 1] f32
              %3 = broadcast %0               [4, 2, 3] bool
              %4 = broadcast %1               [4, 2, 3] f32
              %5 = broadcast %2               [4, 2, 3] f32
              %6 = where %3 %4 %5             [4, 2, 3] f32
              return %6
        "#]],
    );
    check(
        |g| {
            let (m, a) = (x(g, &[2], DType::Bool), x(g, &[3], DType::F32));
            g.where_(m, a, 1.0)
        },
        expect![[r#"
            error[E-DIM-001]: where: shapes do not broadcast: [2], [3] and []
            note: aligned from the right, axis -1 has 2 vs 3; each must be equal or 1
        "#]],
    );
}

#[test]
fn reductions() {
    check(
        |g| {
            let a = x(g, &[2, 3, 4], DType::F32);
            g.reduce(ReduceOp::Sum, a, Some(&[0, -1]), false)
        },
        expect![[r#"
            graph t (inputs 1, params 0, nodes 2)
              %0 = input x0                             [2, 3, 4] f32
              %1 = sum %0 :axes [0, 2] :keepdims false  [3] f32
              return %1
        "#]],
    );
    check(
        |g| {
            let a = x(g, &[2, 3], DType::I32);
            g.reduce(ReduceOp::Max, a, None, true)
        },
        expect![[r#"
            graph t (inputs 1, params 0, nodes 2)
              %0 = input x0                            [2, 3] i32
              %1 = max %0 :axes [0, 1] :keepdims true  [1, 1] i32
              return %1
        "#]],
    );
    check(
        |g| {
            let a = x(g, &[2, 3], DType::F32);
            g.reduce(ReduceOp::Sum, a, Some(&[1, -1]), false)
        },
        expect![[r#"
            error[E-DIM-001]: sum: axis -1 appears twice in [1, -1]
        "#]],
    );
    check(
        |g| {
            let a = x(g, &[2, 3], DType::F32);
            g.reduce(ReduceOp::Sum, a, Some(&[2]), false)
        },
        expect![[r#"
            error[E-DIM-001]: sum: axis 2 is out of range for [2, 3] (rank 2)
        "#]],
    );
    check(
        |g| {
            let a = x(g, &[2, 0], DType::F32);
            g.reduce(ReduceOp::Max, a, None, false)
        },
        expect![[r#"
            error[E-DIM-001]: max: axis 1 of [2, 0] is empty; the maximum of nothing is undefined
        "#]],
    );
    check(
        |g| {
            let a = x(g, &[2], DType::Bool);
            g.reduce(ReduceOp::Sum, a, None, false)
        },
        expect![[r#"
            error[E-DIM-002]: sum: expects a float or integer tensor, got bool
        "#]],
    );
}

#[test]
fn layout_ops() {
    check(
        |g| {
            let a = x(g, &[2, 3, 4], DType::BF16);
            let t = g.transpose(a, &[2, 0, 1])?;
            let s = g.slice(t, -1, 1, 3)?;
            let r = g.reshape(s, Shape::from([8, 2]))?;
            let c = g.concat(0, &[r, r])?;
            g.broadcast_to(c, Shape::from([3, 16, 2]))
        },
        expect![[r#"
            graph t (inputs 1, params 0, nodes 6)
              %0 = input x0                           [2, 3, 4] bf16
              %1 = transpose %0 [2, 0, 1]             [4, 2, 3] bf16
              %2 = slice %1 :axis 2 :start 1 :stop 3  [4, 2, 2] bf16
              %3 = reshape %2                         [8, 2] bf16
              %4 = concat %3 %3 :axis 0               [16, 2] bf16
              %5 = broadcast %4                       [3, 16, 2] bf16
              return %5
        "#]],
    );
}

#[test]
fn layout_errors() {
    let cases: [(&str, OneInput); 8] = [
        ("reshape", |g, a| g.reshape(a, Shape::from([4]))),
        ("broadcast", |g, a| g.broadcast_to(a, Shape::from([2, 4]))),
        ("broadcast rank", |g, a| g.broadcast_to(a, Shape::from([3]))),
        ("transpose", |g, a| g.transpose(a, &[0, 0])),
        ("slice empty", |g, a| g.slice(a, 1, 2, 2)),
        ("slice past", |g, a| g.slice(a, 1, 0, 4)),
        ("slice axis", |g, a| g.slice(a, 2, 0, 1)),
        ("concat", |g, a| {
            let b = g.input("b", Shape::from([3, 3]), DType::F32);
            g.concat(1, &[a, b])
        }),
    ];
    let mut text = String::new();
    for (name, case) in cases {
        let mut g = Graph::new("t");
        let a = g.input("a", Shape::from([2, 3]), DType::F32);
        let e = case(&mut g, a).unwrap_err();
        text.push_str(&format!("{name}: {} {}\n", e.code(), e.message));
        for note in e.notes {
            text.push_str(&format!("  note: {note}\n"));
        }
    }
    expect![[r#"
        reshape: E-DIM-001 reshape: element counts differ: [2, 3] has 6 elements, [4] has 4
        broadcast: E-DIM-001 broadcast-to: cannot broadcast [2, 3] to [2, 4]
          note: aligned from the right, axis -1 has 3 vs 4; only a 1 stretches
        broadcast rank: E-DIM-001 broadcast-to: cannot broadcast [2, 3] to [3]
          note: [2, 3] has rank 2, more than the target's 1
        transpose: E-DIM-001 transpose: [0, 0] is not a permutation of the 2 axes of [2, 3]
        slice empty: E-DIM-001 slice: bounds 2..2 do not fit axis 1 of [2, 3]; need 0 <= start < stop <= 3
        slice past: E-DIM-001 slice: bounds 0..4 do not fit axis 1 of [2, 3]; need 0 <= start < stop <= 3
        slice axis: E-DIM-001 slice: axis 2 is out of range for [2, 3] (rank 2)
        concat: E-DIM-001 concat: dims off the axis differ: [2, 3] and [3, 3] along axis 1
    "#]]
    .assert_eq(&text);
}

#[test]
fn identities_add_no_node() {
    let mut g = Graph::new("t");
    let a = g.input("a", Shape::from([2, 3]), DType::F32);
    let same = [
        g.reshape(a, Shape::from([2, 3])).unwrap(),
        g.broadcast_to(a, Shape::from([2, 3])).unwrap(),
        g.transpose(a, &[0, 1]).unwrap(),
        g.slice(a, 0, 0, 2).unwrap(),
        g.concat(0, &[a]).unwrap(),
        g.cast(a, DType::F32),
        g.reduce(ReduceOp::Sum, a, Some(&[]), false).unwrap(),
    ];
    assert!(same.iter().all(|&id| id == a));
    assert_eq!(g.len(), 1);
}

#[test]
fn indexing_ops() {
    check(
        |g| {
            let (table, ids) = (x(g, &[10, 4], DType::F32), x(g, &[2, 3], DType::I32));
            let rows = g.index(table, ids)?;
            let back = g.index_add(table, ids, rows)?;
            let idx = x(g, &[10, 2], DType::I64);
            let got = g.gather(back, idx, -1)?;
            g.scatter_add(back, idx, got, 1)
        },
        expect![[r#"
            graph t (inputs 3, params 0, nodes 7)
              %0 = input x0                      [10, 4] f32
              %1 = input x1                      [2, 3] i32
              %2 = index %0 %1                   [2, 3, 4] f32
              %3 = index-add %0 %1 %2            [10, 4] f32
              %4 = input x4                      [10, 2] i64
              %5 = gather %3 %4 :axis 1          [10, 2] f32
              %6 = scatter-add %3 %4 %5 :axis 1  [10, 4] f32
              return %6
        "#]],
    );
}

#[test]
fn indexing_errors() {
    let cases: [(&str, TwoInputs); 6] = [
        ("float ids", |g, t, _| g.index(t, t)),
        ("scalar table", |g, _, i| {
            let s = g.input("s", Shape::scalar(), DType::F32);
            g.index(s, i)
        }),
        ("index-add shape", |g, t, i| {
            let v = g.input("v", Shape::from([3, 5]), DType::F32);
            g.index_add(t, i, v)
        }),
        ("gather rank", |g, t, i| g.gather(t, i, 0)),
        ("gather dims", |g, t, _| {
            let i = g.input("i2", Shape::from([3, 2]), DType::I32);
            g.gather(t, i, 1)
        }),
        ("scatter shapes", |g, t, _| {
            let i = g.input("i2", Shape::from([10, 2]), DType::I32);
            let v = g.input("v", Shape::from([10, 3]), DType::F32);
            g.scatter_add(t, i, v, 1)
        }),
    ];
    let mut text = String::new();
    for (name, case) in cases {
        let mut g = Graph::new("t");
        let t = g.input("t", Shape::from([10, 4]), DType::F32);
        let i = g.input("i", Shape::from([3]), DType::I32);
        let e = case(&mut g, t, i).unwrap_err();
        text.push_str(&format!("{name}: {} {}\n", e.code(), e.message));
    }
    expect![[r#"
        float ids: E-DIM-002 index: ids must be i32 or i64, got f32
        scalar table: E-DIM-001 index: table must have rank 1 or more, got []
        index-add shape: E-DIM-001 index-add: values must be [3, 4] (ids [3], then the rows of base [10, 4]), got [3, 5]
        gather rank: E-DIM-001 gather: ranks differ: [10, 4] and idx [3]
        gather dims: E-DIM-001 gather: dims off axis 1 differ: [10, 4] and idx [3, 2]
        scatter shapes: E-DIM-001 scatter-add: idx and values differ in shape: [10, 2] and [10, 3]
    "#]]
    .assert_eq(&text);
}

#[test]
fn scan_cast_and_sources() {
    check(
        |g| {
            let b = x(g, &[4, 3], DType::BF16);
            let s = g.linear_scan(1.0, b, 0, true)?;
            let c = g.cast(s, DType::F32);
            let i = g.iota(Shape::from([4, 3]), 1, DType::I32)?;
            let f = g.cast(i, DType::F32);
            let n = g.normal(Shape::from([4, 3]), DType::F32, 0.0, 0.0)?;
            let u = g.uniform(Shape::from([4, 3]), DType::F32, -1.0, 1.0)?;
            let sum = g.binary(BinaryOp::Add, c, f)?;
            let sum = g.binary(BinaryOp::Add, sum, n)?;
            g.binary(BinaryOp::Add, sum, u)
        },
        expect![[r#"
            graph t (inputs 1, params 0, nodes 12)
              %0  = input x0                                 [4, 3] bf16
              %1  = full 1.0                                 [] bf16
              %2  = broadcast %1                             [4, 3] bf16
              %3  = linear-scan %2 %0 :axis 0 :reverse true  [4, 3] bf16
              %4  = cast %3                                  [4, 3] f32
              %5  = iota :axis 1                             [4, 3] i32
              %6  = cast %5                                  [4, 3] f32
              %7  = full 0.0                                 [4, 3] f32
              %8  = uniform :low -1.0 :high 1.0 :stream 1    [4, 3] f32
              %9  = add %4 %6                                [4, 3] f32
              %10 = add %9 %7                                [4, 3] f32
              %11 = add %10 %8                               [4, 3] f32
              return %11
        "#]],
    );
}

#[test]
fn source_errors() {
    let mut g = Graph::new("t");
    let shape = Shape::from([2]);
    let errors = [
        g.iota(shape.clone(), 0, DType::F32).unwrap_err(),
        g.iota(Shape::scalar(), 0, DType::I32).unwrap_err(),
        g.normal(shape.clone(), DType::I32, 0.0, 1.0).unwrap_err(),
        g.uniform(shape.clone(), DType::Bool, 0.0, 1.0).unwrap_err(),
        g.full(shape.clone(), Scalar::Float(1.5), DType::I64)
            .unwrap_err(),
        g.linear_scan(1.0, 2.0, 0, false).unwrap_err(),
    ];
    let text: Vec<String> = errors
        .iter()
        .map(|e| format!("{} {}", e.code(), e.message))
        .collect();
    expect![[r#"
        E-DIM-002 iota: dtype must be i32 or i64, got f32
        E-DIM-001 iota: axis 0 is out of range for [] (rank 0)
        E-DIM-002 normal: dtype must be f32 or bf16, got i32
        E-DIM-002 uniform: dtype must be f32 or bf16, got bool
        E-DIM-002 full: 1.5 is a float, not i64
        E-DIM-001 linear-scan: axis 0 is out of range for [] (rank 0)"#]]
    .assert_eq(&text.join("\n"));
}
