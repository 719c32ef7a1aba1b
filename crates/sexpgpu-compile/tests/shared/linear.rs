//! Linear layers with a bias, `x @ w + b`: the graphs whose plans fold the
//! add into the product as its epilogue (`docs/sexpgpu/ir.md`, "Matmul
//! epilogues"), shared by the compiler's plan test, the CPU's test, the
//! CUDA emulation and the GPU check, so one set of shapes is checked on
//! all of them.

use sexpgpu_graph::{BinaryOp, DType, Graph, Shape, Tensor};

use super::{tensor, Rng};

/// One linear layer's shape: `[batch.., m, k] @ w + b`, `w` `[k, n]`
/// shared by the batch or one per batch element, and the bias `n`
/// elements of a longer vector from `offset` (so 1 puts it where no
/// 16-byte boundary is).
struct Layer {
    batch: &'static [usize],
    m: usize,
    k: usize,
    n: usize,
    weight_per_batch: bool,
    offset: usize,
}

const LAYERS: [Layer; 5] = [
    Layer {
        batch: &[],
        m: 64,
        k: 96,
        n: 128,
        weight_per_batch: false,
        offset: 0,
    },
    Layer {
        batch: &[2],
        m: 256,
        k: 128,
        n: 384,
        weight_per_batch: false,
        offset: 0,
    },
    Layer {
        batch: &[3],
        m: 33,
        k: 70,
        n: 130,
        weight_per_batch: true,
        offset: 0,
    },
    Layer {
        batch: &[2, 2],
        m: 17,
        k: 40,
        n: 24,
        weight_per_batch: false,
        offset: 1,
    },
    Layer {
        batch: &[],
        m: 5,
        k: 0,
        n: 8,
        weight_per_batch: false,
        offset: 0,
    },
];

/// Every layer in f32 and bf16: its name, graph and arguments.
pub fn linear_layers() -> Vec<(String, Graph, Vec<Tensor>)> {
    let mut rng = Rng::new(77);
    let mut out = Vec::new();
    for dtype in [DType::F32, DType::BF16] {
        for (i, l) in LAYERS.iter().enumerate() {
            let x_dims = [l.batch, &[l.m, l.k]].concat();
            let w_dims = if l.weight_per_batch {
                [l.batch, &[l.k, l.n]].concat()
            } else {
                vec![l.k, l.n]
            };
            let mut g = Graph::new(format!("linear{i}-{dtype}"));
            let x = g.input("x", Shape::from(x_dims.as_slice()), dtype);
            let w = g.input("w", Shape::from(w_dims.as_slice()), dtype);
            let b = g.input("b", Shape::from([l.offset + l.n]), dtype);
            let bias = g
                .slice(b, 0, l.offset as i64, (l.offset + l.n) as i64)
                .unwrap();
            let product = g.matmul(x, w).unwrap();
            let y = g.binary(BinaryOp::Add, product, bias).unwrap();
            g.set_outputs(vec![y]);
            let args = vec![
                tensor(&mut rng, &x_dims, dtype),
                tensor(&mut rng, &w_dims, dtype),
                tensor(&mut rng, &[l.offset + l.n], dtype),
            ];
            out.push((g.name().to_string(), g, args));
        }
    }
    out
}
