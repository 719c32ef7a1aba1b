//! Random compositions: graphs of a dozen ops drawn at random (shapes,
//! axes, broadcasting, several uses of one node), checked against finite
//! differences. They catch rules that are right alone but wrong in
//! combination (accumulation, keepdims, broadcasts inside broadcasts).

use sexpgpu_graph::{BinaryOp, Graph, NodeId, OpError, ReduceOp, Shape, UnaryOp};

use super::harness::{check_fd, RandomArgs, Rng};

/// One random op applied to nodes of `pool`, appending its result. Every
/// choice keeps values moderate and away from kinks, so finite differences
/// stay accurate.
fn random_step(g: &mut Graph, pool: &mut Vec<NodeId>, rng: &mut Rng) -> Result<(), OpError> {
    let x = pool[rng.below(pool.len())];
    let shape = g.shape(x).clone();
    let rank = shape.rank();
    let y = match rng.below(12) {
        0 => {
            let op = [UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Tanh, UnaryOp::Neg][rng.below(4)];
            g.unary(op, x)?
        }
        1 => {
            let squashed = g.unary(UnaryOp::Tanh, x)?;
            g.unary(UnaryOp::Exp, squashed)?
        }
        // Binary with another node when their shapes broadcast.
        2 | 3 => {
            let other = pool[rng.below(pool.len())];
            let fits = sexpgpu_graph::broadcast_shapes(&shape, g.shape(other)).is_some();
            let op = [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul][rng.below(3)];
            if fits {
                g.binary(op, x, other)?
            } else {
                g.binary(op, x, 0.7)?
            }
        }
        // Division by something in [0.5, 2.5].
        4 => {
            let other = pool[rng.below(pool.len())];
            let sin = g.unary(UnaryOp::Sin, other)?;
            let positive = g.binary(BinaryOp::Add, sin, 1.5)?;
            if sexpgpu_graph::broadcast_shapes(&shape, g.shape(positive)).is_some() {
                g.binary(BinaryOp::Div, x, positive)?
            } else {
                g.binary(BinaryOp::Div, x, 1.5)?
            }
        }
        5 if rank > 0 => {
            let axis = rng.below(rank) as i64;
            let op = [ReduceOp::Sum, ReduceOp::Max][rng.below(2)];
            g.reduce(op, x, Some(&[axis]), rng.below(2) == 0)?
        }
        6 if rank >= 2 => {
            let mut perm: Vec<i64> = (0..rank as i64).collect();
            perm.swap(0, rank - 1);
            g.transpose(x, &perm)?
        }
        7 => g.reshape(x, Shape::new(shape.dims().iter().rev().copied().collect()))?,
        8 if rank >= 1 && shape.dims()[rank - 1] >= 2 => {
            let dim = shape.dims()[rank - 1] as i64;
            let start = rng.below(dim as usize - 1) as i64;
            g.slice(x, -1, start, dim)?
        }
        9 if rank >= 1 => g.concat(-1, &[x, x])?,
        // x @ x^T over the last two axes.
        10 if rank >= 2 => {
            let mut perm: Vec<i64> = (0..rank as i64).collect();
            perm.swap(rank - 2, rank - 1);
            let xt = g.transpose(x, &perm)?;
            g.matmul(x, xt)?
        }
        11 if rank >= 1 => {
            let a = g.unary(UnaryOp::Tanh, x)?;
            let a = g.binary(BinaryOp::Mul, a, 0.9)?;
            g.linear_scan(a, x, rng.below(rank) as i64, rng.below(2) == 0)?
        }
        _ => {
            let mut dims = vec![2];
            dims.extend_from_slice(shape.dims());
            g.broadcast_to(x, Shape::new(dims))?
        }
    };
    // Keep tensors small so the finite differences stay cheap.
    if g.shape(y).numel() <= 48 {
        pool.push(y);
    }
    Ok(())
}

#[test]
fn random_compositions_match_finite_differences() {
    for seed in 0..40 {
        let mut rng = Rng::new(1000 + seed);
        let args = [
            rng.floats(&[2, 3], -1.0, 1.0),
            rng.floats(&[3], -1.0, 1.0),
            rng.floats(&[3, 1], -1.0, 1.0),
        ];
        check_fd(seed, &args, |g, inputs| {
            let mut pool = inputs.to_vec();
            for _ in 0..12 {
                random_step(g, &mut pool, &mut rng)?;
            }
            // Every node made counts towards the loss.
            let mut total = None;
            for &node in &pool[inputs.len()..] {
                let s = g.reduce(ReduceOp::Sum, node, None, false)?;
                total = Some(match total {
                    None => s,
                    Some(t) => g.binary(BinaryOp::Add, t, s)?,
                });
            }
            Ok(total.unwrap_or(inputs[0]))
        });
    }
}
