//! What each launch must move and compute, counted from its step: bytes
//! read (each distinct element an operand's view reaches, once: a
//! broadcast operand costs its stored elements, a splat nothing), bytes
//! written (the output and side outputs), and floating-point operations
//! (a product's `2 m n k`, one per instruction and element of a fused
//! loop, one per element a reduction folds, attention's products over the
//! query-key pairs it sees). The least any kernel for the step could do,
//! not what a backend's kernel does.

use sexpgpu_graph::{AttentionPart, DType};

use crate::plan::{
    element_bytes, Attention, Contig, FusedKernel, Instr, Loc, Matmul, Plan, Src, Step,
};
use crate::view::View;

/// The rate a launch's operations run at on a GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    /// bf16 products on the tensor cores (matmul, fused attention).
    TensorBf16,
    /// Everything else, on the CUDA cores at the f32 rate: elementwise
    /// loops and reductions (which compute in f32), f32 and integer products.
    F32,
}

/// One launch's traffic and arithmetic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    /// Its group (`super::kind`).
    pub kind: &'static str,
    pub read: u64,
    pub written: u64,
    pub flops: u64,
    pub rate: Rate,
}

impl Cost {
    /// Bytes moved: read and written.
    pub fn bytes(&self) -> u64 {
        self.read + self.written
    }

    fn moving(kind: &'static str, read: u64, written: u64) -> Cost {
        Cost {
            kind,
            read,
            written,
            flops: 0,
            rate: Rate::F32,
        }
    }
}

/// Every launch's cost, in launch order.
pub fn plan_costs(plan: &Plan) -> Vec<Cost> {
    (0..plan.launches.len())
        .map(|i| launch_cost(plan, i))
        .collect()
}

/// The cost of launch `i` of `plan`.
pub fn launch_cost(plan: &Plan, i: usize) -> Cost {
    let launch = &plan.launches[i];
    let kind = super::kind(plan, launch);
    let written = launch
        .writes()
        .map(|b| stored(plan, Loc::Buf(b), plan.buffers[b.0 as usize].len as u64))
        .sum();
    let mut cost = Cost::moving(kind, 0, written);
    match &launch.step {
        Step::Fused { kernel, inputs, .. } => {
            cost.read = srcs_read(plan, inputs);
            cost.flops = per_element_ops(kernel) * launch.len as u64;
        }
        Step::FusedReduce {
            kernel,
            inputs,
            dims,
            ..
        } => {
            let folded = product(dims);
            cost.read = srcs_read(plan, inputs);
            cost.flops = (per_element_ops(kernel) + 1) * folded;
        }
        Step::Reduce { input, dims, .. } => {
            cost.read = contig_read(plan, *input, product(dims));
            cost.flops = product(dims);
        }
        Step::Copy { pieces } => {
            cost.read = pieces.iter().map(|(src, _)| src_read(plan, src)).sum();
        }
        Step::Fill(_) => {}
        Step::Matmul(p) => matmul(plan, p, &mut cost),
        Step::Attention(a) => attention(plan, a, &mut cost),
        step => indexed(
            plan,
            step,
            plan.buffers[launch.out.0 as usize].dtype,
            &mut cost,
        ),
    }
    cost
}

/// `a @ b` (plus a bias on every row): `2 m n k` a problem, and `m n` for
/// the bias; each operand's distinct elements read once.
fn matmul(plan: &Plan, p: &Matmul, cost: &mut Cost) {
    let problems = p.problems() as u64;
    let (m, k, n) = (p.m as u64, p.k as u64, p.n as u64);
    let bias_read = p.bias.map_or(0, |c| contig_read(plan, c, n));
    let operands_read: u64 = p
        .operands()
        .into_iter()
        .map(|(loc, view)| view_read(plan, loc, view))
        .sum();
    cost.read = operands_read + bias_read;
    cost.flops = problems * (2 * m * n * k + if p.bias.is_some() { m * n } else { 0 });
    cost.rate = tensor_rate(plan.loc_dtype(p.a));
}

/// Fused attention: the scores `q k^T` over the pairs it sees (half of
/// them, about, when causal), and per part one product more over the same
/// pairs: `p v` for the output, `dout v^T` once for the gradients of `q`
/// and `k`, `ds k`, `ds^T q`, `p^T dout` for the three gradients.
fn attention(plan: &Plan, a: &Attention, cost: &mut Cost) {
    let pairs = visible_pairs(a.t, a.s, a.causal);
    let (d, e) = (a.d as u64, a.e as u64);
    let parts: Vec<AttentionPart> = a.parts().collect();
    let has = |p: AttentionPart| parts.contains(&p);
    let mut widths = d;
    if has(AttentionPart::Output) {
        widths += e;
    }
    if has(AttentionPart::Grad(0)) || has(AttentionPart::Grad(1)) {
        widths += e;
    }
    for (k, width) in [(0, d), (1, d), (2, e)] {
        if has(AttentionPart::Grad(k)) {
            widths += width;
        }
    }
    cost.flops = 2 * pairs * widths * a.problems() as u64;
    cost.read = a
        .operands
        .iter()
        .map(|(loc, view)| view_read(plan, *loc, view))
        .sum();
    cost.rate = tensor_rate(plan.loc_dtype(a.operands[0].0));
}

/// Query-key pairs one problem of `t` queries and `s` keys sees: all, or
/// those with the key at or before the query (`sexpgpu_graph`'s causal mask).
fn visible_pairs(t: usize, s: usize, causal: bool) -> u64 {
    if !causal {
        return (t * s) as u64;
    }
    (0..t).map(|i| s.min(i + 1) as u64).sum()
}

/// `Backend::indexed`'s steps: the ids and the rows or elements they name,
/// one add an element summed in; `out` is the result's dtype.
fn indexed(plan: &Plan, step: &Step, out: sexpgpu_graph::DType, cost: &mut Cost) {
    let n = |x: usize| x as u64;
    // Elements read of each operand, in `Step::reads` order.
    let (counts, flops) = match step {
        Step::Index(s) => (vec![n(s.written()), n(s.n_ids)], 0),
        Step::IndexAdd(s) => {
            let added = n(s.added());
            (vec![n(s.written()), n(s.n_ids), added], added)
        }
        Step::Gather(s) => (vec![n(s.written()); 2], 0),
        Step::ScatterAdd(s) => {
            let values = n(s.added());
            if s.in_place {
                // The places named (at most one a value) are read and
                // written in `out`; the rest of it is not touched.
                let places = values.min(n(s.written()));
                let bytes = places * crate::plan::element_bytes(out) as u64;
                cost.written = bytes;
                cost.read = bytes;
                (vec![values, values], values)
            } else {
                (vec![n(s.written()), values, values], values)
            }
        }
        Step::LinearScan(s) => (vec![product(&s.dims); 2], 2 * product(&s.dims)),
        Step::Argsort(s) => (vec![product(&s.dims)], 0),
        _ => (Vec::new(), 0),
    };
    cost.read += step
        .reads()
        .into_iter()
        .zip(counts)
        .map(|(loc, count)| distinct_read(plan, loc, count))
        .sum::<u64>();
    cost.flops = flops;
}

/// Operations a fused loop computes per position: every instruction but
/// loads and casts (a transcendental function counts as one).
fn per_element_ops(kernel: &FusedKernel) -> u64 {
    kernel
        .instrs
        .iter()
        .filter(|i| !matches!(i, Instr::Load { .. } | Instr::Cast { .. }))
        .count() as u64
}

fn tensor_rate(dtype: DType) -> Rate {
    match dtype {
        DType::BF16 => Rate::TensorBf16,
        _ => Rate::F32,
    }
}

fn product(dims: &[usize]) -> u64 {
    dims.iter().map(|&d| d as u64).product()
}

/// Bytes of `n` elements stored at `loc`.
fn stored(plan: &Plan, loc: Loc, n: u64) -> u64 {
    n * element_bytes(plan.loc_dtype(loc)) as u64
}

/// Bytes of `n` elements read from `loc`, of which no more than it holds
/// are distinct (overlapping windows, a gather's repeated ids).
fn distinct_read(plan: &Plan, loc: Loc, n: u64) -> u64 {
    stored(plan, loc, n.min(plan.loc_len(loc) as u64))
}

fn contig_read(plan: &Plan, c: Contig, n: u64) -> u64 {
    distinct_read(plan, c.loc, n)
}

/// The distinct elements a view reaches: its dims read with a stride of 0
/// (a broadcast) repeat elements already read; no more than `loc` holds.
fn view_read(plan: &Plan, loc: Loc, view: &View) -> u64 {
    let distinct: u64 = view
        .dims
        .iter()
        .zip(&view.strides)
        .filter(|(_, &s)| s != 0)
        .map(|(&d, _)| d as u64)
        .product();
    distinct_read(plan, loc, distinct)
}

fn src_read(plan: &Plan, src: &Src) -> u64 {
    match src {
        Src::Mem { loc, view } => view_read(plan, *loc, view),
        Src::Splat { .. } => 0,
    }
}

fn srcs_read(plan: &Plan, srcs: &[Src]) -> u64 {
    srcs.iter().map(|s| src_read(plan, s)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sexpgpu_graph::{BinaryOp, Graph, NodeId, ReduceOp, Shape, UnaryOp};

    /// The costs of the plan `build` makes of a graph (its result the output).
    fn costs(build: impl FnOnce(&mut Graph) -> NodeId) -> Vec<Cost> {
        let mut g = Graph::new("g");
        let out = build(&mut g);
        g.set_outputs(vec![out]);
        let program = crate::compile(&g).expect("compiles");
        plan_costs(program.plan())
    }

    fn input(g: &mut Graph, name: &str, dims: &[usize], dtype: DType) -> NodeId {
        g.input(name, Shape::new(dims.to_vec()), dtype)
    }

    #[test]
    fn a_matmul_is_2_m_n_k_on_the_tensor_cores_in_bf16() {
        let (m, k, n) = (64u64, 32u64, 16u64);
        let c = costs(|g| {
            let a = input(g, "a", &[64, 32], DType::BF16);
            let b = input(g, "b", &[32, 16], DType::BF16);
            g.matmul(a, b).unwrap()
        });
        let expected = Cost {
            kind: "matmul",
            read: (m * k + k * n) * 2,
            written: m * n * 2,
            flops: 2 * m * n * k,
            rate: Rate::TensorBf16,
        };
        assert_eq!(c, [expected]);
        let f32_costs = costs(|g| {
            let a = input(g, "a", &[64, 32], DType::F32);
            let b = input(g, "b", &[32, 16], DType::F32);
            g.matmul(a, b).unwrap()
        });
        assert_eq!(
            (f32_costs[0].read, f32_costs[0].rate),
            (2 * expected.read, Rate::F32)
        );
    }

    #[test]
    fn a_fused_loop_counts_its_instructions_per_element_and_a_broadcast_once() {
        // exp(x * y) + b, b broadcast along the rows: three operations an
        // element, one loop; b's 50 elements are read once, not 100 times.
        let c = costs(|g| {
            let x = input(g, "x", &[100, 50], DType::F32);
            let y = input(g, "y", &[100, 50], DType::F32);
            let b = input(g, "b", &[50], DType::F32);
            let xy = g.binary(BinaryOp::Mul, x, y).unwrap();
            let e = g.unary(UnaryOp::Exp, xy).unwrap();
            g.binary(BinaryOp::Add, e, b).unwrap()
        });
        let expected = Cost {
            kind: "fused",
            read: (2 * 5000 + 50) * 4,
            written: 5000 * 4,
            flops: 3 * 5000,
            rate: Rate::F32,
        };
        assert_eq!(c, [expected]);
    }

    #[test]
    fn a_reduction_reads_its_input_once_and_folds_each_element() {
        let c = costs(|g| {
            let x = input(g, "x", &[100, 50], DType::F32);
            g.reduce(ReduceOp::Sum, x, Some(&[1]), false).unwrap()
        });
        let expected = Cost {
            kind: "reduce-sum",
            read: 5000 * 4,
            written: 100 * 4,
            flops: 5000,
            rate: Rate::F32,
        };
        assert_eq!(c, [expected]);
    }

    #[test]
    fn causal_attention_sees_the_pairs_on_and_below_the_diagonal() {
        assert_eq!(visible_pairs(4, 4, true), 10);
        assert_eq!(visible_pairs(4, 4, false), 16);
        // 2 problems of 8 queries, 8 keys, d = e = 16; output and lse:
        // the scores and `p v`, 2 * 36 pairs * (16 + 16) each.
        let c = costs(|g| {
            let q = input(g, "q", &[2, 8, 16], DType::BF16);
            let k = input(g, "k", &[2, 8, 16], DType::BF16);
            let v = input(g, "v", &[2, 8, 16], DType::BF16);
            g.attention(q, k, v, true, None).unwrap()
        });
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].kind, "attention");
        assert_eq!(c[0].flops, 2 * 2 * 36 * 32);
        assert_eq!(c[0].read, 3 * 2 * 8 * 16 * 2);
        assert_eq!(c[0].rate, Rate::TensorBf16);
    }
}
