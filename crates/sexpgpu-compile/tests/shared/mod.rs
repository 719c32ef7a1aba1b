//! The test graphs every backend's tests share, included by path
//! (`#[path = ...] mod shared;`): deterministic random tensors, randomly
//! built graphs (`graphs`), linear layers with a bias (`linear`) and
//! attention heads sliced out of one tensor (`sliced_heads`). The
//! compiler's tests check the plans made of them; each backend's tests run
//! them against the reference executor. Never touches files.

#![allow(dead_code)]

pub mod graphs;
pub mod linear;

use sexpgpu_graph::{DType, Graph, NodeId, Shape, Tensor};
pub use uitest::support::Rng;

/// Random elements of `dtype`: floats in [-3, 3], integers in [-50, 50]
/// (with a few near the i32 limits to exercise wrapping), booleans.
pub fn tensor(rng: &mut Rng, dims: &[usize], dtype: DType) -> Tensor {
    let shape = Shape::from(dims);
    let n = shape.numel();
    match dtype {
        DType::F32 | DType::BF16 => {
            let v: Vec<f64> = (0..n).map(|_| rng.uniform(-3.0, 3.0)).collect();
            Tensor::from_f64s(shape, &v, dtype).unwrap()
        }
        DType::I32 | DType::I64 => {
            let v: Vec<i64> = (0..n)
                .map(|_| match rng.int(0, 20) {
                    0 => i64::from(i32::MAX) - rng.int(0, 3),
                    1 => i64::from(i32::MIN) + rng.int(0, 3),
                    _ => rng.int(-50, 50),
                })
                .collect();
            Tensor::from_i64s(shape, &v, dtype).unwrap()
        }
        DType::Bool => {
            let v: Vec<i64> = (0..n).map(|_| rng.int(0, 2)).collect();
            Tensor::from_i64s(shape, &v, dtype).unwrap()
        }
    }
}

/// Integer ids in `0..below`.
pub fn ids(rng: &mut Rng, dims: &[usize], dtype: DType, below: i64) -> Tensor {
    let shape = Shape::from(dims);
    let v: Vec<i64> = (0..shape.numel()).map(|_| rng.int(0, below)).collect();
    Tensor::from_i64s(shape, &v, dtype).unwrap()
}

/// Attention's q, k and v heads sliced out of one `[b, t, 3 h d]` tensor,
/// as GPT-2 lays them out, each transposed to `[b, h, t, d]`: strided
/// views that the kernels read in place.
pub fn sliced_heads(g: &mut Graph, qkv: NodeId, [b, t, h, d]: [usize; 4]) -> [NodeId; 3] {
    let split = g.reshape(qkv, Shape::from([b, t, 3, h, d])).unwrap();
    std::array::from_fn(|part| {
        let part = part as i64;
        let one = g.slice(split, 2, part, part + 1).unwrap();
        let one = g.reshape(one, Shape::from([b, t, h, d])).unwrap();
        g.transpose(one, &[0, 2, 1, 3]).unwrap()
    })
}
