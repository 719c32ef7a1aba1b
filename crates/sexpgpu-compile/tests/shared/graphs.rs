//! Randomly built graphs (fixed seeds) mixing every kind of node, so that
//! fusion, views, copies and slot reuse meet in combinations no hand-written
//! test lists. Exact graphs avoid float sums and float matmuls (whose order
//! of accumulation differs from the reference) and `exp` and `tanh` (whose
//! CUDA libm versions differ from the reference's own in the last bits);
//! the smooth family uses them
//! but only smooth float ops after them, so a last-bit difference cannot
//! flip a comparison. The compiler's tests check their plans; the CPU
//! backend's tests run them against the reference; the CUDA backend's
//! tests compile and emulate the kernels of the same graphs (each includes
//! this folder by path). Each graph ends with
//! one structured operation (`pad`, a pool, `conv`, `einsum`,
//! `interpolate`) when one fits.

use super::{tensor, Rng};
use sexpgpu_graph::{
    BinaryOp, CompareOp, ConvOptions, ConvPadding, DType, Graph, NodeId, PadMode, PerAxis,
    PoolOptions, ReduceOp, Resize, Scalar, Shape, Tensor, UnaryOp,
};

#[derive(Clone, Copy, PartialEq)]
pub enum Family {
    /// Any op whose result the backend must reproduce bit for bit.
    Exact,
    /// Floats only, with sums and matmuls, compared within tolerance.
    Smooth,
}

pub struct Builder {
    pub g: Graph,
    rng: Rng,
    nodes: Vec<NodeId>,
    pub args: Vec<Tensor>,
    family: Family,
    /// The graph ends with a structured operation.
    pub structured: bool,
}

impl Builder {
    fn pick(&mut self) -> NodeId {
        let n = self.nodes.len();
        // Favour recent nodes so chains grow long.
        let back = (self.rng.int(0, 4) as usize).min(n - 1);
        self.nodes[n - 1 - back]
    }

    fn dims(&self, x: NodeId) -> Vec<usize> {
        self.g.shape(x).dims().to_vec()
    }

    fn number(&mut self, dtype: DType) -> Scalar {
        if dtype.is_float() {
            Scalar::Float(self.rng.int(-4, 5) as f64 * 0.5)
        } else {
            Scalar::Int(self.rng.int(-4, 5))
        }
    }

    fn input(&mut self, dtype: DType) -> NodeId {
        let rank = self.rng.int(1, 4) as usize;
        let dims: Vec<usize> = (0..rank).map(|_| self.rng.int(1, 6) as usize).collect();
        let name = format!("x{}", self.args.len());
        let id = self.g.input(name, Shape::from(dims.as_slice()), dtype);
        self.args.push(tensor(&mut self.rng, &dims, dtype));
        id
    }

    /// Adds one random node built from earlier ones; `None` when the random
    /// choice does not fit (the builder refused), which is simply skipped.
    fn step(&mut self) -> Option<NodeId> {
        let x = self.pick();
        let dtype = self.g.dtype(x);
        let dims = self.dims(x);
        let rank = dims.len();
        let smooth = self.family == Family::Smooth;
        let choice = self.rng.int(0, 14);
        match choice {
            0 => {
                // Exact graphs take every unary but `exp` and `tanh`: the
                // reference and the CPU compute those with their own f32
                // functions (`sexpgpu_graph::math`), CUDA with its libm's,
                // which agree within a few ulps, not bit for bit
                // (docs/sexpgpu/cuda.md).
                let exact: Vec<UnaryOp> = UnaryOp::ALL
                    .into_iter()
                    .filter(|op| !matches!(op, UnaryOp::Exp | UnaryOp::Tanh))
                    .collect();
                let ops: &[UnaryOp] = if !dtype.is_float() {
                    &[UnaryOp::Neg, UnaryOp::Abs]
                } else if smooth {
                    &[
                        UnaryOp::Neg,
                        UnaryOp::Abs,
                        UnaryOp::Tanh,
                        UnaryOp::Sin,
                        UnaryOp::Cos,
                    ]
                } else {
                    &exact
                };
                let op = ops[self.rng.int(0, ops.len() as i64) as usize];
                self.g.unary(op, x).ok()
            }
            1 | 2 => {
                let ops: &[BinaryOp] = if smooth {
                    &[
                        BinaryOp::Add,
                        BinaryOp::Sub,
                        BinaryOp::Mul,
                        BinaryOp::Maximum,
                    ]
                } else {
                    &BinaryOp::ALL
                };
                let op = ops[self.rng.int(0, ops.len() as i64) as usize];
                let y = self.pick();
                if self.rng.int(0, 3) == 0 || self.g.dtype(y) != dtype {
                    let s = self.number(dtype);
                    self.g.binary(op, x, s).ok()
                } else {
                    self.g.binary(op, x, y).ok()
                }
            }
            3 if !smooth => {
                let y = self.pick();
                let op = CompareOp::ALL[self.rng.int(0, 6) as usize];
                let m = self.g.compare(op, x, y).ok()?;
                let other = self.pick();
                self.g.where_(m, other, x).ok()
            }
            4 if !smooth => {
                let to = DType::ALL[self.rng.int(0, 5) as usize];
                let y = self.g.cast(x, to);
                // Back to a numeric dtype so the chain can go on.
                let back = if to == DType::Bool { DType::I32 } else { to };
                Some(self.g.cast(y, back))
            }
            5 => {
                let op = if (smooth || !dtype.is_float()) && self.rng.int(0, 2) == 0 {
                    ReduceOp::Sum
                } else {
                    ReduceOp::Max
                };
                let axes: Vec<i64> = (0..rank as i64)
                    .filter(|_| self.rng.int(0, 2) == 0)
                    .collect();
                let keep = self.rng.int(0, 2) == 0;
                self.g.reduce(op, x, Some(&axes), keep).ok()
            }
            6 => {
                let mut perm: Vec<i64> = (0..rank as i64).collect();
                for i in (1..rank).rev() {
                    let j = self.rng.int(0, i as i64 + 1) as usize;
                    perm.swap(i, j);
                }
                self.g.transpose(x, &perm).ok()
            }
            7 if rank > 0 => {
                let axis = self.rng.int(0, rank as i64) as usize;
                let d = dims[axis] as i64;
                let start = self.rng.int(0, d);
                let stop = self.rng.int(start + 1, d + 1);
                self.g.slice(x, axis as i64, start, stop).ok()
            }
            8 => {
                let n: usize = dims.iter().product();
                let new = if n.is_multiple_of(2) && self.rng.int(0, 2) == 0 {
                    vec![2, n / 2]
                } else {
                    vec![n]
                };
                self.g.reshape(x, Shape::from(new.as_slice())).ok()
            }
            9 => {
                let mut to = vec![self.rng.int(1, 4) as usize];
                to.extend(&dims);
                self.g.broadcast_to(x, Shape::from(to.as_slice())).ok()
            }
            10 => {
                let axis = self.rng.int(0, rank as i64);
                self.g.concat(axis, &[x, x]).ok()
            }
            11 if smooth || !dtype.is_float() => {
                // x @ x^T over the last two dims (a vector gives x . x).
                let mut perm: Vec<i64> = (0..rank as i64).collect();
                if rank >= 2 {
                    perm.swap(rank - 1, rank - 2);
                }
                let t = self.g.transpose(x, &perm).ok()?;
                self.g.matmul(x, t).ok()
            }
            12 if dtype.is_float() => {
                let r = if self.rng.int(0, 2) == 0 {
                    self.g.normal(Shape::from(dims.as_slice()), dtype, 0.0, 1.0)
                } else {
                    self.g
                        .uniform(Shape::from(dims.as_slice()), dtype, -1.0, 1.0)
                }
                .ok()?;
                self.g.binary(BinaryOp::Add, x, r).ok()
            }
            13 if dtype.is_float() => {
                let axis = self.rng.int(0, rank as i64);
                let a = self.g.binary(BinaryOp::Mul, x, Scalar::Float(0.5)).ok()?;
                self.g.linear_scan(a, x, axis, self.rng.int(0, 2) == 0).ok()
            }
            // Sorted along an axis (an argsort and a gather of it); only
            // in exact graphs, where no last-bit difference can reorder.
            _ if !smooth && rank > 0 && self.rng.int(0, 2) == 0 => {
                let axis = self.rng.int(0, rank as i64);
                let descending = self.rng.int(0, 2) == 0;
                self.g
                    .sort(x, axis, descending)
                    .ok()
                    .map(|(values, _)| values)
            }
            _ => {
                let i = self
                    .g
                    .iota(Shape::from(dims.as_slice()), -1, DType::I32)
                    .ok()?;
                let c = self.g.cast(i, dtype);
                self.g.binary(BinaryOp::Add, x, c).ok()
            }
        }
    }
}

impl Builder {
    /// One structured operation (`pad`, the pools, `conv`, `einsum`,
    /// `interpolate`; compositions of the nodes above) on the last node,
    /// drawn from its own stream so that the graphs above stay as they were.
    /// Pools and padding are exact; the others sum, so they are smooth only.
    fn structured(&mut self, rng: &mut Rng) -> Option<NodeId> {
        let x = *self.nodes.last()?;
        let dtype = self.g.dtype(x);
        let n: usize = self.dims(x).iter().product();
        let smooth = self.family == Family::Smooth;
        // As one channel of one sequence: [1, 1, n].
        let seq = self.g.reshape(x, Shape::from([1, 1, n])).ok()?;
        let k = rng.int(1, n.min(4) as i64 + 1);
        let opts = |padding: i64, stride: i64| PoolOptions {
            window: PerAxis::Each(vec![k]),
            stride: Some(PerAxis::All(stride)),
            padding: PerAxis::All(padding),
            dilation: PerAxis::All(1),
            count_include_pad: padding == 0,
            ceil_mode: false,
        };
        match rng.int(0, 6) {
            0 => {
                let mode = [
                    PadMode::Constant,
                    PadMode::Reflect,
                    PadMode::Replicate,
                    PadMode::Circular,
                ][rng.int(0, 4) as usize];
                let pair = (rng.int(-1, 3), rng.int(0, 3));
                self.g.pad(x, &[pair], mode, Scalar::Int(1)).ok()
            }
            1 => {
                let o = opts(rng.int(0, k / 2 + 1), rng.int(1, 3));
                self.g.max_pool(seq, &o).ok()
            }
            2 if smooth => {
                let o = opts(rng.int(0, k / 2 + 1), rng.int(1, 3));
                self.g.avg_pool(seq, &o).ok()
            }
            3 if smooth => {
                // 1-d, or 2-d over [1, n] (the transpose-free path at stride 1).
                let (input, w) = if rng.int(0, 2) == 0 {
                    (seq, vec![2, 1, k as usize])
                } else {
                    let image = self.g.reshape(x, Shape::from([1, 1, 1, n])).ok()?;
                    (image, vec![2, 1, 1, k as usize])
                };
                let w = self.g.normal(Shape::from(w.as_slice()), dtype, 0.0, 1.0);
                let c = ConvOptions {
                    padding: ConvPadding::Sizes(PerAxis::All(rng.int(0, 2))),
                    stride: PerAxis::All(rng.int(1, 3)),
                    ..ConvOptions::default()
                };
                self.g.conv(input, w.ok()?, &c).ok()
            }
            4 if smooth => self.g.einsum("...i,...i->...", &[x, x]).ok(),
            5 if smooth => self
                .g
                .interpolate(seq, &[rng.int(1, 9)], Resize::Linear, rng.int(0, 2) == 0)
                .ok(),
            _ => None,
        }
    }
}

pub fn build(seed: u64, family: Family) -> Builder {
    let mut rng = Rng::new(seed);
    let dtype = match family {
        Family::Exact => DType::ALL[rng.int(0, 4) as usize], // not bool
        Family::Smooth => [DType::F32, DType::BF16][rng.int(0, 2) as usize],
    };
    let mut b = Builder {
        g: Graph::new(format!("random{seed}")),
        rng,
        nodes: Vec::new(),
        args: Vec::new(),
        family,
        structured: false,
    };
    for _ in 0..2 {
        let x = b.input(dtype);
        b.nodes.push(x);
    }
    for _ in 0..18 {
        if let Some(id) = b.step() {
            // Keep sizes small: a growing tensor stops the chain.
            if b.g.shape(id).numel() <= 4096 {
                b.nodes.push(id);
            }
        }
    }
    let mut own = Rng::new(seed ^ 0x5EED);
    if let Some(id) = b.structured(&mut own) {
        b.nodes.push(id);
        b.structured = true;
    }
    let mut outputs = vec![*b.nodes.last().unwrap()];
    for &n in &b.nodes {
        if b.rng.int(0, 4) == 0 {
            outputs.push(n);
        }
    }
    b.g.set_outputs(outputs);
    b
}
