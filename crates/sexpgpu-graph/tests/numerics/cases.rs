//! The per-op numerics cases: one small graph per (op, dtype, shape) on
//! random inputs, run by an executor the caller chooses (the reference
//! executor in `tests/numerics.rs`; the CUDA backend in
//! `crates/sexpgpu-cuda/examples/gpu_check.rs`), with inputs and outputs
//! written as `.npy` beside a `manifest.json` for
//! `tests/numerics/check_ops.py` to recompute in NumPy.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sexpgpu_graph::{
    to_npy, BinaryOp, CompareOp, DType, ExecError, Graph, NodeId, OpError, Operands, PadMode,
    PerAxis, PoolOptions, ReduceOp, Scalar, ScatterReduce, Shape, Tensor, UnaryOp,
};
use uitest::support::Rng;

/// Runs a case's graph on its arguments with a seed.
pub type Run<'r> = dyn Fn(&Graph, &[Tensor], u64) -> Result<Vec<Tensor>, ExecError> + 'r;

/// Floats uniform in `[lo, hi)`; integers uniform in `[lo, hi]`; bools fair.
fn random_tensor(rng: &mut Rng, dims: &[usize], dtype: DType, lo: f64, hi: f64) -> Tensor {
    let n: usize = dims.iter().product();
    let shape = Shape::from(dims);
    match dtype {
        DType::F32 | DType::BF16 => {
            let v: Vec<f64> = (0..n).map(|_| rng.uniform(lo, hi)).collect();
            Tensor::from_f64s(shape, &v, dtype).unwrap()
        }
        DType::I32 | DType::I64 | DType::Bool => {
            let (lo, hi) = if dtype == DType::Bool {
                (0, 1)
            } else {
                (lo as i64, hi as i64)
            };
            let v: Vec<i64> = (0..n).map(|_| rng.int(lo, hi + 1)).collect();
            Tensor::from_i64s(shape, &v, dtype).unwrap()
        }
    }
}

type Build = dyn Fn(&mut Graph, &[NodeId]) -> Result<NodeId, OpError>;

struct Cases<'r> {
    dir: PathBuf,
    manifest: Vec<Value>,
    rng: Rng,
    run: &'r Run<'r>,
    /// Cases whose run failed: `case {spec}: {error}`.
    failures: Vec<String>,
}

impl Cases<'_> {
    /// Runs one case: `build` gets one input node per tensor in `args`.
    fn add(&mut self, mut spec: Value, args: Vec<Tensor>, seed: u64, build: &Build) {
        let k = self.manifest.len();
        let mut g = Graph::new(format!("case{k}"));
        let inputs: Vec<NodeId> = args
            .iter()
            .enumerate()
            .map(|(i, t)| g.input(format!("in{i}"), t.shape().clone(), t.dtype()))
            .collect();
        let out = build(&mut g, &inputs).unwrap_or_else(|e| panic!("case {spec}: {e}"));
        g.set_outputs(vec![out]);
        let result = match (self.run)(&g, &args, seed) {
            Ok(result) => result,
            Err(e) => {
                self.failures.push(format!("case {spec}: {e}"));
                return;
            }
        };
        let mut files = Vec::new();
        for (i, t) in args.iter().enumerate() {
            files.push(json!({"file": self.write(&format!("c{k}_in{i}.npy"), t), "dtype": t.dtype().name()}));
        }
        let output = &result[0];
        spec["inputs"] = json!(files);
        spec["output"] = json!({
            "file": self.write(&format!("c{k}_out.npy"), output),
            "dtype": output.dtype().name(),
            "shape": output.shape().dims(),
        });
        spec["seed"] = json!(seed);
        self.manifest.push(spec);
    }

    fn write(&self, name: &str, t: &Tensor) -> String {
        std::fs::write(self.dir.join(name), to_npy(t)).expect("write .npy");
        name.to_string()
    }

    fn rand(&mut self, dims: &[usize], dtype: DType, lo: f64, hi: f64) -> Tensor {
        random_tensor(&mut self.rng, dims, dtype, lo, hi)
    }

    /// One case of `op` applied to `x`.
    fn add_unary(&mut self, op: UnaryOp, x: Tensor) {
        self.add(json!({"op": op.name()}), vec![x], 0, &move |g, i| {
            g.unary(op, i[0])
        });
    }
}

const FLOATS: [DType; 2] = [DType::F32, DType::BF16];
const NUMERIC: [DType; 4] = [DType::F32, DType::BF16, DType::I32, DType::I64];

fn unary_cases(c: &mut Cases<'_>) {
    for op in UnaryOp::ALL {
        let dtypes: &[DType] = if op.accepts_integers() {
            &NUMERIC
        } else {
            &FLOATS
        };
        let (lo, hi) = match op {
            UnaryOp::Sqrt | UnaryOp::Log | UnaryOp::Rsqrt | UnaryOp::Log2 | UnaryOp::Log10 => {
                (0.05, 4.0)
            }
            // NaN outside the domain.
            UnaryOp::Acos | UnaryOp::Asin | UnaryOp::Atanh => (-1.2, 1.2),
            UnaryOp::Acosh => (0.9, 4.0),
            UnaryOp::Log1p => (-0.9, 4.0),
            UnaryOp::Tan => (-1.5, 1.5),
            UnaryOp::Exp | UnaryOp::Exp2 | UnaryOp::Expm1 => (-4.0, 4.0),
            UnaryOp::Sigmoid | UnaryOp::Softplus => (-30.0, 30.0),
            _ => (-3.0, 3.0),
        };
        for &dtype in dtypes {
            for dims in [&[][..], &[7], &[3, 5], &[2, 3, 4]] {
                let (lo, hi) = if dtype.is_integer() {
                    (-100.0, 100.0)
                } else {
                    (lo, hi)
                };
                let x = c.rand(dims, dtype, lo, hi);
                c.add_unary(op, x);
            }
        }
    }
}

fn binary_cases(c: &mut Cases<'_>) {
    let pairs: [(&[usize], &[usize]); 4] = [
        (&[3, 4], &[3, 4]),
        (&[3, 4], &[4]),
        (&[2, 1, 4], &[3, 1]),
        (&[], &[2, 3]),
    ];
    for op in BinaryOp::ALL {
        let dtypes: &[DType] = match op.operands() {
            Operands::Floats => &FLOATS,
            Operands::Numbers => &NUMERIC,
            Operands::Integers => &[DType::I32, DType::I64],
            Operands::IntegersOrBool => &[DType::I32, DType::I64, DType::Bool],
        };
        for &dtype in dtypes {
            for (da, db) in pairs {
                let ((alo, ahi), (blo, bhi)) = match (op, dtype.is_integer()) {
                    // Shifts past the width, and negative ones.
                    (BinaryOp::ShiftLeft | BinaryOp::ShiftRight, _) => {
                        ((-1000.0, 1000.0), (-3.0, 70.0))
                    }
                    // Small divisors, zero among them.
                    (BinaryOp::Quot | BinaryOp::Rem | BinaryOp::Mod | BinaryOp::FloorDiv, true) => {
                        ((-1000.0, 1000.0), (-5.0, 5.0))
                    }
                    (_, true) => ((-1000.0, 1000.0), (-1000.0, 1000.0)),
                    (BinaryOp::Pow, _) => ((0.1, 3.0), (-2.0, 2.0)),
                    (BinaryOp::Div, _) => ((-3.0, 3.0), (0.5, 3.0)),
                    _ => ((-3.0, 3.0), (-3.0, 3.0)),
                };
                let (a, b) = (c.rand(da, dtype, alo, ahi), c.rand(db, dtype, blo, bhi));
                c.add(json!({"op": op.name()}), vec![a, b], 0, &move |g, i| {
                    g.binary(op, i[0], i[1])
                });
            }
            if dtype == DType::Bool {
                continue;
            }
            // A plain number on the right becomes a broadcast constant of the tensor's dtype.
            let number = if dtype.is_integer() {
                Scalar::Int(3)
            } else {
                Scalar::Float(1.5)
            };
            let a = c.rand(&[2, 3], dtype, 0.5, 3.0);
            c.add(
                json!({"op": op.name(), "number": number.as_f64()}),
                vec![a],
                0,
                &move |g, i| g.binary(op, i[0], number),
            );
        }
    }
}

fn compare_and_where_cases(c: &mut Cases<'_>) {
    for op in CompareOp::ALL {
        for dtype in DType::ALL {
            // Small integers (as any dtype) make equal pairs common.
            let (a, b) = (
                c.rand(&[3, 4], dtype, -2.0, 2.0),
                c.rand(&[4], dtype, -2.0, 2.0),
            );
            let (a, b) = (round_floats(a), round_floats(b));
            c.add(json!({"op": op.name()}), vec![a, b], 0, &move |g, i| {
                g.compare(op, i[0], i[1])
            });
        }
    }
    for dtype in DType::ALL {
        let m = c.rand(&[3, 1], DType::Bool, 0.0, 1.0);
        let (a, b) = (
            c.rand(&[4], dtype, -5.0, 5.0),
            c.rand(&[3, 4], dtype, -5.0, 5.0),
        );
        c.add(json!({"op": "where"}), vec![m, a, b], 0, &|g, i| {
            g.where_(i[0], i[1], i[2])
        });
    }
}

/// Floats rounded to whole numbers, so comparisons meet equal values.
fn round_floats(t: Tensor) -> Tensor {
    if !t.dtype().is_float() {
        return t;
    }
    let v: Vec<f64> = t.to_f64s().iter().map(|x| x.round()).collect();
    Tensor::from_f64s(t.shape().clone(), &v, t.dtype()).unwrap()
}

fn reduce_cases(c: &mut Cases<'_>) {
    let axes_cases: [Option<&'static [i64]>; 4] = [None, Some(&[0]), Some(&[-1]), Some(&[0, 2])];
    for op in [ReduceOp::Sum, ReduceOp::Max] {
        for dtype in NUMERIC {
            for axes in axes_cases {
                for keepdims in [false, true] {
                    let x = c.rand(&[2, 3, 4], dtype, -50.0, 50.0);
                    let spec = json!({"op": op.name(), "axes": axes, "keepdims": keepdims});
                    c.add(spec, vec![x], 0, &move |g, i| {
                        g.reduce(op, i[0], axes, keepdims)
                    });
                }
            }
            let x = c.rand(&[300], dtype, -50.0, 50.0);
            c.add(
                json!({"op": op.name(), "axes": null, "keepdims": false}),
                vec![x],
                0,
                &move |g, i| g.reduce(op, i[0], None, false),
            );
        }
    }
}

fn layout_cases(c: &mut Cases<'_>) {
    for dtype in DType::ALL {
        let x = c.rand(&[2, 3, 4], dtype, -9.0, 9.0);
        c.add(
            json!({"op": "reshape", "shape": [4, 6]}),
            vec![x],
            0,
            &|g, i| g.reshape(i[0], Shape::from([4, 6])),
        );
        let x = c.rand(&[3, 1], dtype, -9.0, 9.0);
        c.add(
            json!({"op": "broadcast-to", "shape": [2, 3, 5]}),
            vec![x],
            0,
            &|g, i| g.broadcast_to(i[0], Shape::from([2, 3, 5])),
        );
        let x = c.rand(&[2, 3, 4], dtype, -9.0, 9.0);
        c.add(
            json!({"op": "transpose", "perm": [2, 0, 1]}),
            vec![x],
            0,
            &|g, i| g.transpose(i[0], &[2, 0, 1]),
        );
        let x = c.rand(&[4, 5], dtype, -9.0, 9.0);
        c.add(
            json!({"op": "slice", "axis": 1, "start": 1, "stop": 4}),
            vec![x],
            0,
            &|g, i| g.slice(i[0], 1, 1, 4),
        );
        let x = c.rand(&[4, 5], dtype, -9.0, 9.0);
        c.add(
            json!({"op": "slice", "axis": 0, "start": 2, "stop": 3}),
            vec![x],
            0,
            &|g, i| g.slice(i[0], -2, 2, 3),
        );
        let parts = vec![
            c.rand(&[2, 3], dtype, -9.0, 9.0),
            c.rand(&[2, 1], dtype, -9.0, 9.0),
            c.rand(&[2, 2], dtype, -9.0, 9.0),
        ];
        c.add(json!({"op": "concat", "axis": 1}), parts, 0, &|g, i| {
            g.concat(-1, i)
        });
        let parts = vec![
            c.rand(&[1, 3], dtype, -9.0, 9.0),
            c.rand(&[2, 3], dtype, -9.0, 9.0),
        ];
        c.add(json!({"op": "concat", "axis": 0}), parts, 0, &|g, i| {
            g.concat(0, i)
        });
    }
}

fn matmul_cases(c: &mut Cases<'_>) {
    let pairs: [(&[usize], &[usize]); 7] = [
        (&[3, 4], &[4, 5]),
        (&[2, 3, 4], &[4, 2]),
        (&[2, 1, 3, 4], &[5, 4, 2]),
        (&[4], &[4, 3]),
        (&[3, 4], &[4]),
        (&[4], &[4]),
        (&[2, 3], &[3, 64]),
    ];
    for dtype in NUMERIC {
        for (da, db) in pairs {
            let (lo, hi) = if dtype.is_integer() {
                (-10.0, 10.0)
            } else {
                (-2.0, 2.0)
            };
            let (a, b) = (c.rand(da, dtype, lo, hi), c.rand(db, dtype, lo, hi));
            c.add(json!({"op": "matmul"}), vec![a, b], 0, &|g, i| {
                g.matmul(i[0], i[1])
            });
        }
    }
}

/// Every part of fused attention, causal or not, over a shape inside one
/// tile and one across several (`docs/sexpgpu/operations.md`, "Fused
/// attention"); a gradient's `lse` is the graph's own `attention-lse`.
fn attention_cases(c: &mut Cases<'_>) {
    let parts = ["output", "lse", "grad-q", "grad-k", "grad-v"];
    // (batch, t, s, d, e)
    let sizes: [(&[usize], usize, usize, usize, usize); 2] =
        [(&[2], 5, 7, 8, 3), (&[2, 2], 70, 70, 16, 16)];
    for dtype in FLOATS {
        for causal in [false, true] {
            for (batch, t, s, d, e) in sizes {
                let with = |last: &[usize]| [batch, last].concat();
                let scale = 1.0 / (d as f64).sqrt();
                for (p, part) in parts.iter().enumerate() {
                    let mut args = vec![
                        c.rand(&with(&[t, d]), dtype, -1.5, 1.5),
                        c.rand(&with(&[s, d]), dtype, -1.5, 1.5),
                        c.rand(&with(&[s, e]), dtype, -1.5, 1.5),
                    ];
                    if p >= 2 {
                        args.push(c.rand(&with(&[t, e]), dtype, -1.5, 1.5));
                        args.push(c.rand(&with(&[t]), DType::F32, -1.0, 1.0));
                    }
                    let spec = json!({
                        "op": "attention", "part": part, "causal": causal, "scale": scale,
                        "rtol": if dtype == DType::F32 { 1e-4 } else { 1.0 / 128.0 },
                        "atol": 1e-5,
                    });
                    c.add(spec, args, 0, &move |g, i| match p {
                        0 => g.attention(i[0], i[1], i[2], causal, None),
                        1 => g.attention_lse(i[0], i[1], causal, scale),
                        _ => {
                            let lse = g.attention_lse(i[0], i[1], causal, scale)?;
                            let inputs = [i[0], i[1], i[2], i[3], lse, i[4]];
                            g.attention_grad(p - 2, inputs, causal, scale)
                        }
                    });
                }
            }
        }
    }
}

fn indexing_cases(c: &mut Cases<'_>) {
    for dtype in DType::ALL {
        for id_dtype in [DType::I32, DType::I64] {
            let (table, ids) = (
                c.rand(&[6, 3], dtype, -9.0, 9.0),
                c.rand(&[2, 4], id_dtype, 0.0, 5.0),
            );
            c.add(json!({"op": "index"}), vec![table, ids], 0, &|g, i| {
                g.index(i[0], i[1])
            });
        }
        // (x's dims, the ids' dims and dtype, the axis as the manifest and
        // as the builder names it: counted from the end for the first)
        for (x_dims, idx_dims, id_dtype, axis, builder_axis) in [
            ([3, 5], [3, 4], DType::I32, 1, -1),
            ([4, 3], [6, 3], DType::I64, 0, 0),
        ] {
            let x = c.rand(&x_dims, dtype, -9.0, 9.0);
            let n = x_dims[axis] as f64;
            let idx = c.rand(&idx_dims, id_dtype, 0.0, n - 1.0);
            c.add(
                json!({"op": "gather", "axis": axis}),
                vec![x, idx],
                0,
                &move |g, i| g.gather(i[0], i[1], builder_axis),
            );
        }
    }
    for dtype in NUMERIC {
        let base = c.rand(&[6, 3], dtype, -9.0, 9.0);
        let ids = c.rand(&[5], DType::I32, 0.0, 2.0); // repeats are likely
        let values = c.rand(&[5, 3], dtype, -9.0, 9.0);
        c.add(
            json!({"op": "index-add"}),
            vec![base, ids, values],
            0,
            &|g, i| g.index_add(i[0], i[1], i[2]),
        );
        let base = c.rand(&[3, 5], dtype, -9.0, 9.0);
        let idx = c.rand(&[3, 4], DType::I64, 0.0, 2.0);
        let values = c.rand(&[3, 4], dtype, -9.0, 9.0);
        c.add(
            json!({"op": "scatter-add", "axis": 1}),
            vec![base, idx, values],
            0,
            &|g, i| g.scatter_add(i[0], i[1], i[2], 1),
        );
    }
}

fn scan_cases(c: &mut Cases<'_>) {
    for dtype in FLOATS {
        for axis in [0i64, 1] {
            for reverse in [false, true] {
                let (a, b) = (
                    c.rand(&[6, 3], dtype, -1.0, 1.0),
                    c.rand(&[6, 3], dtype, -2.0, 2.0),
                );
                let spec = json!({"op": "linear-scan", "axis": axis, "reverse": reverse});
                c.add(spec, vec![a, b], 0, &move |g, i| {
                    g.linear_scan(i[0], i[1], axis, reverse)
                });
            }
        }
        // cumsum: a plain 1 broadcast against b, over a long axis.
        let b = c.rand(&[2, 200], dtype, -2.0, 2.0);
        c.add(
            json!({"op": "linear-scan", "axis": 1, "reverse": false, "a": 1.0}),
            vec![b],
            0,
            &|g, i| g.linear_scan(1.0, i[0], 1, false),
        );
    }
}

fn cast_and_source_cases(c: &mut Cases<'_>) {
    for from in DType::ALL {
        for to in DType::ALL {
            let x = c.rand(&[3, 4], from, -5.0, 5.0);
            c.add(
                json!({"op": "cast", "to": to.name()}),
                vec![x],
                0,
                &move |g, i| Ok(g.cast(i[0], to)),
            );
        }
    }
    for dtype in [DType::I32, DType::I64] {
        for axis in [0i64, 1, -1] {
            c.add(
                json!({"op": "iota", "shape": [3, 4], "axis": axis}),
                vec![],
                0,
                &move |g, _| g.iota(Shape::from([3, 4]), axis, dtype),
            );
        }
    }
    let fulls = [
        (DType::F32, Scalar::Float(2.5)),
        (DType::BF16, Scalar::Float(0.1)),
        (DType::I32, Scalar::Int(7)),
        (DType::I64, Scalar::Int(-3)),
        (DType::Bool, Scalar::Bool(true)),
    ];
    for (dtype, value) in fulls {
        c.add(
            json!({"op": "full", "shape": [2, 3], "value": value.as_f64(), "dtype": dtype.name()}),
            vec![],
            0,
            &move |g, _| g.full(Shape::from([2, 3]), value, dtype),
        );
    }
    for dtype in FLOATS {
        for (seed, dims) in [(0u64, &[1000][..]), (1234, &[3, 7]), (u64::MAX, &[5])] {
            let shape = Shape::from(dims);
            let s = shape.clone();
            // Two random nodes per graph: the second uses stream 1.
            let spec = json!({"op": "normal", "shape": dims, "mean": 0.5, "std": 2.0, "stream": 1});
            c.add(spec, vec![], seed, &move |g, _| {
                g.uniform(s.clone(), dtype, 0.0, 1.0)?;
                g.normal(s.clone(), dtype, 0.5, 2.0)
            });
            let spec =
                json!({"op": "uniform", "shape": dims, "low": -3.0, "high": 5.0, "stream": 0});
            c.add(spec, vec![], seed, &move |g, _| {
                g.uniform(shape.clone(), dtype, -3.0, 5.0)
            });
        }
    }
}

/// Tensors with no elements, where NumPy has clear answers.
fn empty_cases(c: &mut Cases<'_>) {
    for dtype in NUMERIC {
        let x = c.rand(&[0, 3], dtype, -5.0, 5.0);
        c.add(
            json!({"op": "sum", "axes": [0], "keepdims": false}),
            vec![x],
            0,
            &|g, i| g.reduce(ReduceOp::Sum, i[0], Some(&[0]), false),
        );
        let (a, b) = (
            c.rand(&[2, 0], dtype, -5.0, 5.0),
            c.rand(&[0, 3], dtype, -5.0, 5.0),
        );
        c.add(json!({"op": "matmul"}), vec![a, b], 0, &|g, i| {
            g.matmul(i[0], i[1])
        });
        let (a, b) = (
            c.rand(&[2, 0], dtype, -5.0, 5.0),
            c.rand(&[2, 3], dtype, -5.0, 5.0),
        );
        c.add(
            json!({"op": "concat", "axis": 1}),
            vec![a, b],
            0,
            &|g, i| g.concat(1, i),
        );
        let (a, b) = (
            c.rand(&[0, 1], dtype, -5.0, 5.0),
            c.rand(&[4], dtype, -5.0, 5.0),
        );
        c.add(json!({"op": "add"}), vec![a, b], 0, &|g, i| {
            g.binary(BinaryOp::Add, i[0], i[1])
        });
    }
}

/// NaN, infinities, signed zeros and integer extremes.
fn special_value_cases(c: &mut Cases<'_>) {
    let specials = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -2.5,
        3e38,
    ];
    for dtype in FLOATS {
        let x = Tensor::from_f64s(Shape::from([8]), &specials, dtype).unwrap();
        let mut y_values = specials;
        y_values.rotate_left(3);
        let y = Tensor::from_f64s(Shape::from([8]), &y_values, dtype).unwrap();
        for op in [
            UnaryOp::Exp,
            UnaryOp::Log,
            UnaryOp::Sqrt,
            UnaryOp::Tanh,
            UnaryOp::Abs,
            UnaryOp::Neg,
        ] {
            c.add_unary(op, x.clone());
        }
        for op in [
            BinaryOp::Add,
            BinaryOp::Mul,
            BinaryOp::Div,
            BinaryOp::Maximum,
            BinaryOp::Minimum,
            BinaryOp::Atan2,
        ] {
            c.add(
                json!({"op": op.name()}),
                vec![x.clone(), y.clone()],
                0,
                &move |g, i| g.binary(op, i[0], i[1]),
            );
        }
        for op in CompareOp::ALL {
            c.add(
                json!({"op": op.name()}),
                vec![x.clone(), y.clone()],
                0,
                &move |g, i| g.compare(op, i[0], i[1]),
            );
        }
        for op in [ReduceOp::Sum, ReduceOp::Max] {
            c.add(
                json!({"op": op.name(), "axes": null, "keepdims": false}),
                vec![x.clone()],
                0,
                &move |g, i| g.reduce(op, i[0], None, false),
            );
        }
        for to in DType::ALL {
            c.add(
                json!({"op": "cast", "to": to.name()}),
                vec![x.clone()],
                0,
                &move |g, i| Ok(g.cast(i[0], to)),
            );
        }
    }
    let extremes = [i64::from(i32::MAX), i64::from(i32::MIN), -1, 0, 1, 1 << 20];
    let x = Tensor::from_i64s(Shape::from([6]), &extremes, DType::I32).unwrap();
    let y = Tensor::from_i64s(
        Shape::from([6]),
        &[1, -1, i64::from(i32::MIN), 7, i64::from(i32::MAX), 1 << 20],
        DType::I32,
    )
    .unwrap();
    for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul] {
        c.add(
            json!({"op": op.name()}),
            vec![x.clone(), y.clone()],
            0,
            &move |g, i| g.binary(op, i[0], i[1]),
        );
    }
    c.add(json!({"op": "neg"}), vec![x.clone()], 0, &|g, i| {
        g.unary(UnaryOp::Neg, i[0])
    });
    c.add(json!({"op": "abs"}), vec![x.clone()], 0, &|g, i| {
        g.unary(UnaryOp::Abs, i[0])
    });
    c.add(
        json!({"op": "sum", "axes": null, "keepdims": false}),
        vec![x],
        0,
        &|g, i| g.reduce(ReduceOp::Sum, i[0], None, false),
    );
    let big = Tensor::from_i64s(
        Shape::from([3]),
        &[1 << 40, -(1 << 40) - 5, i64::MAX],
        DType::I64,
    )
    .unwrap();
    c.add(json!({"op": "cast", "to": "i32"}), vec![big], 0, &|g, i| {
        Ok(g.cast(i[0], DType::I32))
    });
}

/// The operations composed at trace time: reductions over negative,
/// size-1 and empty axes, and NaN and infinities where they matter.
fn composed_cases(c: &mut Cases<'_>) {
    let axes_cases: [Option<&'static [i64]>; 4] = [None, Some(&[-1]), Some(&[0, 2]), Some(&[1])];
    for dtype in NUMERIC {
        for axes in axes_cases {
            for keepdims in [false, true] {
                let x = round_floats(c.rand(&[2, 1, 4], dtype, -5.0, 5.0));
                let spec = json!({"op": "min", "axes": axes, "keepdims": keepdims});
                c.add(spec, vec![x.clone()], 0, &move |g, i| {
                    g.reduce_min(i[0], axes, keepdims)
                });
                for all in [false, true] {
                    let spec = json!({"op": if all { "all" } else { "any" }, "axes": axes, "keepdims": keepdims});
                    c.add(spec, vec![x.clone()], 0, &move |g, i| {
                        g.any_all(all, i[0], axes, keepdims)
                    });
                }
            }
        }
        let arg_axes: [Option<&'static [i64]>; 5] =
            [None, Some(&[0]), Some(&[-1]), Some(&[1]), Some(&[2, 0])];
        for axes in arg_axes {
            for keepdims in [false, true] {
                for largest in [true, false] {
                    // Whole numbers, so ties pick the first index.
                    let x = round_floats(c.rand(&[3, 1, 5], dtype, -3.0, 3.0));
                    let op = if largest { "argmax" } else { "argmin" };
                    let spec = json!({"op": op, "axes": axes, "keepdims": keepdims});
                    c.add(spec, vec![x], 0, &move |g, i| {
                        g.arg_extreme(largest, i[0], axes, keepdims)
                    });
                }
            }
        }
        let x = c.rand(&[3, 4], dtype, -5.0, 5.0);
        let (lo, hi) = (
            c.rand(&[4], dtype, -3.0, 0.0),
            c.rand(&[3, 1], dtype, 0.0, 3.0),
        );
        c.add(json!({"op": "clip"}), vec![x, lo, hi], 0, &|g, i| {
            g.clip(i[0], i[1], i[2])
        });
    }
    for dtype in [DType::I32, DType::I64] {
        let ids = c.rand(&[2, 3], dtype, -1.0, 4.0);
        c.add(json!({"op": "one-hot", "n": 4}), vec![ids], 0, &|g, i| {
            g.one_hot(i[0], 4, DType::F32)
        });
        let x = c.rand(&[5], dtype, -1000.0, 1000.0);
        c.add(json!({"op": "bit-not"}), vec![x], 0, &|g, i| {
            g.bit_not(i[0])
        });
    }
    let m = c.rand(&[2, 3], DType::Bool, 0.0, 1.0);
    c.add(json!({"op": "logical-not"}), vec![m.clone()], 0, &|g, i| {
        g.logical_not(i[0])
    });
    for all in [false, true] {
        let spec = json!({"op": if all { "all" } else { "any" }, "axes": [0], "keepdims": false});
        c.add(spec, vec![m.clone()], 0, &move |g, i| {
            g.any_all(all, i[0], Some(&[0]), false)
        });
    }
    composed_float_cases(c);
    pytorch_math_cases(c);
    pytorch_index_cases(c);
    pytorch_scatter_cases(c);
    pytorch_pad_cases(c);
    pytorch_unpool_cases(c);
    pytorch_advanced_index_cases(c);
    sort_cases(c);
    scan_and_layout_cases(c);
}

/// Sorting, scans and layouts along an empty axis and a size-1 axis.
fn empty_axis_cases(c: &mut Cases<'_>) {
    for dims in [[0usize, 3], [3, 1]] {
        let x = c.rand(&dims, DType::F32, -2.0, 2.0);
        let spec = json!({"op": "argsort", "axis": 0, "descending": false});
        c.add(spec, vec![x.clone()], 0, &|g, i| g.argsort(i[0], 0, false));
        for op in ["cumprod", "cummax", "logcumsumexp"] {
            let spec = json!({"op": op, "axis": 0, "reverse": true});
            c.add(spec, vec![x.clone()], 0, &move |g, i| match op {
                "cumprod" => g.cumprod(i[0], 0, true),
                "cummax" => g.cum_extreme(true, i[0], 0, true),
                _ => g.logcumsumexp(i[0], 0, true),
            });
        }
        let spec = json!({"op": "flip", "axes": [0, 1]});
        c.add(spec, vec![x.clone()], 0, &|g, i| g.flip(i[0], &[0, 1]));
        let spec = json!({"op": "roll", "shift": 4, "axis": 0});
        c.add(spec, vec![x.clone()], 0, &|g, i| g.roll(i[0], 4, Some(0)));
        for all in [false, true] {
            let spec =
                json!({"op": if all { "all" } else { "any" }, "axes": [0], "keepdims": true});
            c.add(spec, vec![x.clone()], 0, &move |g, i| {
                g.any_all(all, i[0], Some(&[0]), true)
            });
        }
    }
}

/// Products, running scans and the composed layout and creation ops.
fn scan_and_layout_cases(c: &mut Cases<'_>) {
    empty_axis_cases(c);
    for dtype in FLOATS {
        for axes in [None, Some(&[-1][..]), Some(&[0, 2][..]), Some(&[1][..])] {
            let x = c.rand(&[2, 1, 4], dtype, 0.5, 1.5);
            let spec = json!({"op": "prod", "axes": axes, "keepdims": true});
            c.add(spec, vec![x], 0, &move |g, i| g.prod(i[0], axes, true));
        }
        let x = c.rand(&[0, 3], dtype, -1.0, 1.0);
        let spec = json!({"op": "prod", "axes": [0], "keepdims": false});
        c.add(spec, vec![x], 0, &|g, i| g.prod(i[0], Some(&[0]), false));
        for (axis, reverse) in [(-1i64, false), (0, true), (1, false)] {
            let x = c.rand(&[3, 6], dtype, -1.5, 1.5);
            for op in ["cumprod", "cummax", "cummin", "logcumsumexp"] {
                let spec = json!({"op": op, "axis": axis, "reverse": reverse});
                c.add(spec, vec![x.clone()], 0, &move |g, i| match op {
                    "cumprod" => g.cumprod(i[0], axis, reverse),
                    "cummax" => g.cum_extreme(true, i[0], axis, reverse),
                    "cummin" => g.cum_extreme(false, i[0], axis, reverse),
                    _ => g.logcumsumexp(i[0], axis, reverse),
                });
            }
        }
        let specials = [f64::NEG_INFINITY, 1.0, f64::NAN, 700.0, -2.0, f64::INFINITY];
        let x = Tensor::from_f64s(Shape::from([6]), &specials, dtype).unwrap();
        for op in ["cummax", "cummin", "logcumsumexp"] {
            let spec = json!({"op": op, "axis": 0, "reverse": false});
            c.add(spec, vec![x.clone()], 0, &move |g, i| match op {
                "cummax" => g.cum_extreme(true, i[0], 0, false),
                "cummin" => g.cum_extreme(false, i[0], 0, false),
                _ => g.logcumsumexp(i[0], 0, false),
            });
        }
        for steps in [0i64, 1, 2, 7] {
            let spec = json!({"op": "linspace", "start": -1.5, "end": 2.0, "steps": steps});
            c.add(spec, vec![], 0, &move |g, _| {
                g.linspace(-1.5, 2.0, steps, dtype)
            });
        }
    }
    // The indices, with ties (whole numbers), NaN and both directions.
    for dtype in NUMERIC {
        let mut x = round_floats(c.rand(&[3, 6], dtype, -2.0, 2.0));
        if dtype.is_float() {
            let mut v = x.to_f64s();
            v[2] = f64::NAN;
            v[9] = f64::NAN;
            v[10] = f64::NAN;
            x = Tensor::from_f64s(Shape::from([3, 6]), &v, dtype).unwrap();
        }
        for largest in [true, false] {
            for (axis, reverse) in [(-1i64, false), (1, true), (0, false)] {
                let op = if largest {
                    "cummax-indices"
                } else {
                    "cummin-indices"
                };
                let spec = json!({"op": op, "axis": axis, "reverse": reverse});
                c.add(spec, vec![x.clone()], 0, &move |g, i| {
                    let values = g.cum_extreme(largest, i[0], axis, reverse)?;
                    g.cum_extreme_indices(i[0], values, axis, reverse)
                });
            }
        }
    }
    for dtype in [DType::I32, DType::I64] {
        let x = c.rand(&[3, 5], dtype, -100.0, 100.0);
        for op in ["cummax", "cummin"] {
            let spec = json!({"op": op, "axis": -1, "reverse": false});
            c.add(spec, vec![x.clone()], 0, &move |g, i| {
                g.cum_extreme(op == "cummax", i[0], -1, false)
            });
        }
    }
    for dtype in DType::ALL {
        let x = c.rand(&[3, 4, 5], dtype, -5.0, 5.0);
        for axes in [&[0i64][..], &[-1, 1]] {
            let spec = json!({"op": "flip", "axes": axes});
            c.add(spec, vec![x.clone()], 0, &move |g, i| g.flip(i[0], axes));
        }
        for (shift, axis) in [(2i64, Some(-1i64)), (-7, Some(0)), (5, None)] {
            let spec = json!({"op": "roll", "shift": shift, "axis": axis});
            c.add(spec, vec![x.clone()], 0, &move |g, i| {
                g.roll(i[0], shift, axis)
            });
        }
        for (upper, diagonal) in [(false, 0i64), (true, 1), (false, -2), (true, -1)] {
            let spec = json!({"op": if upper { "triu" } else { "tril" }, "diagonal": diagonal});
            c.add(spec, vec![x.clone()], 0, &move |g, i| {
                g.triangle(upper, i[0], diagonal)
            });
        }
        for reps in [&[2i64, 1, 3][..], &[2, 1, 1, 2]] {
            let spec = json!({"op": "repeat", "reps": reps});
            c.add(spec, vec![x.clone()], 0, &move |g, i| g.repeat(i[0], reps));
        }
        for (axis, size, step) in [(-1i64, 2i64, 2i64), (1, 4, 1), (0, 1, 2)] {
            let spec = json!({"op": "unfold", "axis": axis, "size": size, "step": step});
            c.add(spec, vec![x.clone()], 0, &move |g, i| {
                g.unfold(i[0], axis, size, step)
            });
        }
        for (start, stop, step) in [(0i64, 5i64, 2i64), (4, -1, -1), (3, 0, -2), (1, 4, 3)] {
            let spec =
                json!({"op": "slice-step", "axis": 2, "start": start, "stop": stop, "step": step});
            c.add(spec, vec![x.clone()], 0, &move |g, i| {
                g.slice_step(i[0], 2, (start, stop, step))
            });
        }
        let spec = json!({"op": "eye", "n": 3, "m": 4});
        c.add(spec, vec![], 0, &move |g, _| g.eye(3, 4, dtype));
    }
}

/// `argsort`, `sort` and `top-k` along every axis, with ties, NaN and
/// infinities; `categorical` against NumPy's own draw from the stream.
fn sort_cases(c: &mut Cases<'_>) {
    for dtype in NUMERIC {
        for axis in [0i64, -1, 1] {
            for descending in [false, true] {
                let x = round_floats(c.rand(&[3, 5, 4], dtype, -3.0, 3.0));
                let spec = json!({"op": "argsort", "axis": axis, "descending": descending});
                c.add(spec, vec![x.clone()], 0, &move |g, i| {
                    g.argsort(i[0], axis, descending)
                });
                let spec = json!({"op": "sort", "axis": axis, "descending": descending});
                c.add(spec, vec![x.clone()], 0, &move |g, i| {
                    Ok(g.sort(i[0], axis, descending)?.0)
                });
                for k in [0i64, 1, 3] {
                    let spec = json!({"op": "top-k", "k": k, "axis": axis, "largest": descending});
                    c.add(spec, vec![x.clone()], 0, &move |g, i| {
                        Ok(g.top_k(i[0], k, axis, descending)?.1)
                    });
                }
            }
        }
    }
    let specials = [
        f64::NAN,
        1.0,
        f64::NEG_INFINITY,
        f64::NAN,
        -0.0,
        0.0,
        f64::INFINITY,
        1.0,
    ];
    for dtype in FLOATS {
        let x = Tensor::from_f64s(Shape::from([8]), &specials, dtype).unwrap();
        for descending in [false, true] {
            let spec = json!({"op": "argsort", "axis": 0, "descending": descending});
            c.add(spec, vec![x.clone()], 0, &move |g, i| {
                g.argsort(i[0], 0, descending)
            });
        }
        let logits = c.rand(&[6, 5], dtype, -2.0, 2.0);
        for seed in [1u64, 2] {
            let spec = json!({"op": "categorical", "shape": [6, 5], "stream": 0});
            c.add(spec, vec![logits.clone()], seed, &|g, i| {
                g.categorical(i[0], -1)
            });
        }
    }
}

/// `var`/`std`, `lerp` and the float tests, with NaN and infinities.
fn composed_float_cases(c: &mut Cases<'_>) {
    for dtype in FLOATS {
        for (dims, axes) in [
            (&[3, 4][..], Some(&[-1][..])),
            (&[3, 1], Some(&[1])),
            (&[2, 3, 4], None),
            (&[0, 3], Some(&[0])),
        ] {
            for (root, correction) in [(false, 1.0), (true, 0.0), (false, 2.0)] {
                let x = c.rand(dims, dtype, -5.0, 5.0);
                let op = if root { "std" } else { "var" };
                let spec =
                    json!({"op": op, "axes": axes, "correction": correction, "keepdims": true});
                c.add(spec, vec![x], 0, &move |g, i| {
                    g.variance(root, i[0], axes, correction, true)
                });
            }
        }
        let (a, b, w) = (
            c.rand(&[3, 4], dtype, -5.0, 5.0),
            c.rand(&[4], dtype, -5.0, 5.0),
            c.rand(&[3, 1], dtype, -0.5, 1.5),
        );
        c.add(json!({"op": "lerp"}), vec![a, b, w], 0, &|g, i| {
            g.lerp(i[0], i[1], i[2])
        });
        let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -1.5, 3e38];
        let x = Tensor::from_f64s(Shape::from([2, 3]), &specials, dtype).unwrap();
        for name in ["isnan", "isinf", "isfinite"] {
            c.add(json!({"op": name}), vec![x.clone()], 0, &move |g, i| {
                g.float_test(name, i[0])
            });
        }
        for largest in [true, false] {
            let op = if largest { "argmax" } else { "argmin" };
            let spec = json!({"op": op, "axes": [1], "keepdims": false});
            c.add(spec, vec![x.clone()], 0, &move |g, i| {
                g.arg_extreme(largest, i[0], Some(&[1]), false)
            });
        }
        let spec = json!({"op": "min", "axes": null, "keepdims": false});
        c.add(spec, vec![x.clone()], 0, &|g, i| {
            g.reduce_min(i[0], None, false)
        });
        for op in [
            UnaryOp::Sigmoid,
            UnaryOp::Softplus,
            UnaryOp::Log1p,
            UnaryOp::Expm1,
            UnaryOp::Erf,
            UnaryOp::Floor,
            UnaryOp::Round,
            UnaryOp::Sign,
            UnaryOp::StopGradient,
            UnaryOp::Atan,
        ] {
            c.add_unary(op, x.clone());
        }
    }
}

/// `logaddexp` with infinities, `pow` of integers (negative, zero and
/// overflowing exponents), and the extremes of `bool` tensors.
fn pytorch_math_cases(c: &mut Cases<'_>) {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let a = [-inf, inf, inf, 1.0, nan, -1e30, 0.0, 88.0, -3.0, 2.0];
    let b = [-inf, inf, -inf, -inf, 1.0, 3.0, 0.0, 89.0, 5.0, 2.0];
    for dtype in FLOATS {
        let a = Tensor::from_f64s(Shape::from([2, 5]), &a, dtype).unwrap();
        let b = Tensor::from_f64s(Shape::from([2, 5]), &b, dtype).unwrap();
        c.add(json!({"op": "logaddexp"}), vec![a, b], 0, &|g, i| {
            g.logaddexp(i[0], i[1])
        });
    }
    for dtype in [DType::I32, DType::I64] {
        let (x, e) = (
            c.rand(&[3, 4], dtype, -4.0, 4.0),
            c.rand(&[4], dtype, -3.0, 40.0),
        );
        c.add(json!({"op": "int-pow"}), vec![x.clone(), e], 0, &|g, i| {
            g.binary(BinaryOp::Pow, i[0], i[1])
        });
        for n in [0, 1, 7, 41] {
            c.add(
                json!({"op": "int-pow", "number": n}),
                vec![x.clone()],
                0,
                &move |g, i| g.binary(BinaryOp::Pow, i[0], n),
            );
        }
    }
    let (p, q) = (
        c.rand(&[2, 3], DType::Bool, 0.0, 1.0),
        c.rand(&[3], DType::Bool, 0.0, 1.0),
    );
    for op in [BinaryOp::Maximum, BinaryOp::Minimum] {
        c.add(
            json!({"op": op.name()}),
            vec![p.clone(), q.clone()],
            0,
            &move |g, i| g.binary(op, i[0], i[1]),
        );
    }
    for keepdims in [false, true] {
        let spec = json!({"op": "max", "axes": [1], "keepdims": keepdims});
        c.add(spec, vec![p.clone()], 0, &move |g, i| {
            g.reduce(ReduceOp::Max, i[0], Some(&[1]), keepdims)
        });
        let spec = json!({"op": "min", "axes": null, "keepdims": keepdims});
        c.add(spec, vec![p.clone()], 0, &move |g, i| {
            g.reduce_min(i[0], None, keepdims)
        });
    }
}

/// `diagonal` (offsets inside and past the matrix), `diag` both ways and
/// `repeat-interleave`, on every dtype.
fn pytorch_index_cases(c: &mut Cases<'_>) {
    for dtype in [DType::F32, DType::I64, DType::Bool] {
        let x = c.rand(&[3, 4, 5], dtype, -5.0, 5.0);
        for (offset, axis1, axis2) in [(0, 0, 1), (1, 2, 0), (-2, -1, 1), (9, 0, 2)] {
            let spec = json!({"op": "diagonal", "offset": offset, "axis1": axis1, "axis2": axis2});
            c.add(spec, vec![x.clone()], 0, &move |g, i| {
                g.diagonal(i[0], offset, axis1, axis2)
            });
        }
        for (dims, k) in [(&[4][..], 0), (&[3], -2), (&[4, 3], 1), (&[3, 5], -1)] {
            let v = c.rand(dims, dtype, -5.0, 5.0);
            c.add(json!({"op": "diag", "k": k}), vec![v], 0, &move |g, i| {
                g.diag(i[0], k)
            });
        }
        for (repeats, axis) in [(&[2][..], Some(1)), (&[1, 0, 3], Some(0)), (&[3], None)] {
            let spec = json!({"op": "repeat-interleave", "repeats": repeats, "axis": axis});
            c.add(spec, vec![x.clone()], 0, &move |g, i| {
                g.repeat_interleave(i[0], repeats, axis)
            });
        }
    }
}

/// `scatter` and `scatter-reduce` with every reduction, with and without
/// the base's own values, ids repeated.
fn pytorch_scatter_cases(c: &mut Cases<'_>) {
    for dtype in [DType::F32, DType::I32] {
        let base = c.rand(&[3, 4], dtype, -5.0, 5.0);
        let (idx, src) = (
            c.rand(&[2, 4], DType::I64, 0.0, 2.0),
            c.rand(&[2, 4], dtype, -5.0, 5.0),
        );
        let args = vec![base.clone(), idx.clone(), src.clone()];
        c.add(
            json!({"op": "scatter", "axis": 0}),
            args.clone(),
            0,
            &|g, i| g.scatter(i[0], i[1], i[2], 0),
        );
        for name in ScatterReduce::NAMES {
            let reduce = ScatterReduce::from_keyword(name).unwrap();
            if reduce == ScatterReduce::Prod && dtype.is_integer() {
                continue;
            }
            for include_self in [true, false] {
                let spec = json!({"op": "scatter-reduce", "reduce": name, "include_self": include_self, "axis": -1});
                let (idx, src) = (
                    c.rand(&[3, 5], DType::I64, 0.0, 3.0),
                    c.rand(&[3, 5], dtype, -5.0, 5.0),
                );
                c.add(spec, vec![base.clone(), idx, src], 0, &move |g, i| {
                    g.scatter_reduce(i[0], i[1], i[2], (-1, reduce, include_self))
                });
            }
        }
    }
}

/// `pad` with crops (PyTorch's `F.pad` with negative amounts), in every
/// mode, and an empty crop padded again (a `concat` of empty pieces).
fn pytorch_pad_cases(c: &mut Cases<'_>) {
    let cases: [(&[(i64, i64)], PadMode); 7] = [
        (&[(-1, 3), (2, -3)], PadMode::Reflect),
        (&[(-4, 2), (-7, 4)], PadMode::Reflect),
        (&[(3, -1), (-6, 2)], PadMode::Replicate),
        (&[(-2, 1), (-6, 2)], PadMode::Constant),
        (&[(-5, 0), (1, 1)], PadMode::Constant),
        (&[(2, -1), (3, -1)], PadMode::Circular),
        (&[(-1, -1), (0, 0)], PadMode::Circular),
    ];
    for dtype in [DType::F32, DType::I32] {
        let x = c.rand(&[2, 5, 6], dtype, -5.0, 5.0);
        for (pairs, mode) in cases {
            let spec = json!({"op": "pad", "pairs": pairs, "mode": mode.name(), "value": 2});
            c.add(spec, vec![x.clone()], 0, &move |g, i| {
                g.pad(i[0], pairs, mode, Scalar::Int(2))
            });
        }
    }
}

/// `max-pool`'s indices (ties, padding, overlapping windows) and
/// `max-unpool` of them, back to the input's size.
fn pytorch_unpool_cases(c: &mut Cases<'_>) {
    let configs: [([i64; 2], [i64; 2], [i64; 2]); 3] = [
        ([2, 2], [2, 2], [0, 0]),
        ([3, 3], [2, 2], [1, 1]),
        ([2, 3], [1, 2], [1, 0]),
    ];
    for dtype in [DType::F32, DType::I32] {
        // Whole numbers in a small range, so windows hold ties.
        let x = round_floats(c.rand(&[2, 3, 5, 6], dtype, -3.0, 3.0));
        for (window, stride, padding) in configs {
            let opts = PoolOptions {
                window: PerAxis::Each(window.to_vec()),
                stride: Some(PerAxis::Each(stride.to_vec())),
                padding: PerAxis::Each(padding.to_vec()),
                dilation: PerAxis::All(1),
                count_include_pad: true,
                ceil_mode: false,
            };
            let spec = json!({"window": window, "stride": stride, "padding": padding});
            let mut indices = spec.clone();
            indices["op"] = json!("max-pool-indices");
            let o = opts.clone();
            c.add(indices, vec![x.clone()], 0, &move |g, i| {
                Ok(g.max_pool_with_indices(i[0], &o)?.1)
            });
            let mut unpool = spec;
            unpool["op"] = json!("max-unpool");
            c.add(unpool, vec![x.clone()], 0, &move |g, i| {
                let (values, indices) = g.max_pool_with_indices(i[0], &opts)?;
                g.max_unpool(values, indices, &opts, Some(&[5, 6]))
            });
        }
    }
}

/// Advanced indexing with several index tensors, broadcast together, with
/// negative and repeated ids, on adjacent, apart and inner axes.
fn pytorch_advanced_index_cases(c: &mut Cases<'_>) {
    for dtype in [DType::F32, DType::I64, DType::Bool] {
        let x = c.rand(&[4, 5, 6], dtype, -5.0, 5.0);
        let i = c.rand(&[2, 3], DType::I64, -4.0, 3.0);
        let j = c.rand(&[3], DType::I32, -4.0, 3.0);
        for axes in [[0, 1], [0, 2], [1, -1]] {
            let spec = json!({"op": "index-many", "axes": axes});
            c.add(
                spec,
                vec![x.clone(), i.clone(), j.clone()],
                0,
                &move |g, n| g.index_many(n[0], &n[1..], Some(&axes)),
            );
        }
    }
}

/// Runs every case with `run`, writing the `.npy` files and
/// `manifest.json` into `dir`: the number of cases written, or the
/// failures of the cases whose run failed (the others are still written).
pub fn write_all(dir: &Path, run: &Run<'_>) -> Result<usize, Vec<String>> {
    std::fs::create_dir_all(dir).expect("create the cases' folder");
    let mut cases = Cases {
        dir: dir.to_path_buf(),
        manifest: Vec::new(),
        rng: Rng::new(20_260_101),
        run,
        failures: Vec::new(),
    };
    unary_cases(&mut cases);
    binary_cases(&mut cases);
    compare_and_where_cases(&mut cases);
    reduce_cases(&mut cases);
    layout_cases(&mut cases);
    matmul_cases(&mut cases);
    attention_cases(&mut cases);
    indexing_cases(&mut cases);
    scan_cases(&mut cases);
    cast_and_source_cases(&mut cases);
    empty_cases(&mut cases);
    special_value_cases(&mut cases);
    composed_cases(&mut cases);
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_string_pretty(&cases.manifest).unwrap(),
    )
    .expect("write the manifest");
    if cases.failures.is_empty() {
        Ok(cases.manifest.len())
    } else {
        Err(cases.failures)
    }
}

/// Has `tests/numerics/check_ops.py` recompute the `count` cases written
/// into `dir` in NumPy; panics with its report unless every case agrees,
/// naming `who` computed them. Removes `dir` when they do.
pub fn check_with_numpy(dir: &Path, count: usize, who: &str) {
    let output = std::process::Command::new(uitest::support::python())
        .arg(uitest::support::workspace_root().join("tests/numerics/check_ops.py"))
        .arg(dir)
        .output()
        .expect("run the numerics checker");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains(&format!("{count} passed, 0 failed")),
        "NumPy disagrees with {who} ({count} cases in {}):\n{stdout}\n{stderr}",
        dir.display()
    );
    std::fs::remove_dir_all(dir).ok();
}
