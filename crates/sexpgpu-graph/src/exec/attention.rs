//! Fused attention's reference: each part computed from its inputs in f64
//! and rounded once (by `finish`), the softmax weights `exp(s - lse)`
//! written out row by row (`docs/sexpgpu/operations.md`, "Fused attention").

use super::values::Values;
use crate::op::AttentionPart;
use crate::shape::Shape;

/// The sizes of one attention: `batch` problems of `t` queries and `s` keys,
/// `d` wide, values `e` wide.
#[derive(Clone, Copy)]
struct Sizes {
    batch: usize,
    t: usize,
    s: usize,
    d: usize,
    e: usize,
}

/// One problem's operands: row-major slices of one batch entry.
struct Problem<'a> {
    q: &'a [f64],
    k: &'a [f64],
    v: &'a [f64],
}

/// Computes `part` from its inputs (see [`AttentionPart`] for which).
pub(crate) fn attention(
    part: AttentionPart,
    causal: bool,
    scale: f64,
    inputs: &[&Values],
    shapes: &[&Shape],
) -> Values {
    let floats: Vec<&[f64]> = inputs
        .iter()
        .map(|v| match v {
            Values::Float(x) => x.as_slice(),
            _ => &[],
        })
        .collect();
    let (qs, ks) = (shapes[0].dims(), shapes[1].dims());
    let r = qs.len();
    let e = shapes.get(2).map_or(0, |v| v.dims()[r - 1]);
    let n = Sizes {
        batch: qs[..r - 2].iter().product(),
        t: qs[r - 2],
        s: ks[r - 2],
        d: qs[r - 1],
        e,
    };
    let empty: &[f64] = &[];
    let mut out = match part {
        AttentionPart::Output => vec![0.0; n.batch * n.t * n.e],
        AttentionPart::LogSumExp => vec![0.0; n.batch * n.t],
        AttentionPart::Grad(0) => vec![0.0; n.batch * n.t * n.d],
        AttentionPart::Grad(1) => vec![0.0; n.batch * n.s * n.d],
        AttentionPart::Grad(_) => vec![0.0; n.batch * n.s * n.e],
    };
    let per_out = out.len() / n.batch.max(1);
    for b in 0..n.batch {
        let slice = |x: &'_ [f64], len: usize| -> Vec<f64> {
            x.get(b * len..(b + 1) * len)
                .map_or(Vec::new(), <[f64]>::to_vec)
        };
        let q = slice(floats[0], n.t * n.d);
        let k = slice(floats[1], n.s * n.d);
        let v = slice(floats.get(2).copied().unwrap_or(empty), n.s * n.e);
        let problem = Problem {
            q: &q,
            k: &k,
            v: &v,
        };
        let weights = softmax_weights(&problem, n, causal, scale);
        let dest = &mut out[b * per_out..(b + 1) * per_out];
        match part {
            AttentionPart::Output => weighted_values(&weights, &problem, n, dest),
            AttentionPart::LogSumExp => dest.copy_from_slice(&weights.lse),
            AttentionPart::Grad(wrt) => {
                let dout = slice(floats[3], n.t * n.e);
                let delta = slice(floats[5], n.t);
                let ds = score_grads(&weights, &problem, n, &dout, &delta);
                gradient(wrt, &weights, &ds, &problem, n, scale, &dout, dest);
            }
        }
    }
    Values::Float(out)
}

/// Row-major `[t, s]` softmax weights (0 where masked) and each row's
/// log-sum-exp (`-inf` for a row that sees no key).
struct Weights {
    p: Vec<f64>,
    lse: Vec<f64>,
}

/// Whether query `i` sees key `j`.
fn visible(causal: bool, i: usize, j: usize) -> bool {
    !causal || j <= i
}

/// The softmax of each query's scaled scores over the keys it sees.
fn softmax_weights(x: &Problem, n: Sizes, causal: bool, scale: f64) -> Weights {
    let mut p = vec![0.0; n.t * n.s];
    let mut lse = vec![f64::NEG_INFINITY; n.t];
    for i in 0..n.t {
        let row = &mut p[i * n.s..(i + 1) * n.s];
        let mut max = f64::NEG_INFINITY;
        for (j, score) in row.iter_mut().enumerate() {
            if visible(causal, i, j) {
                *score = scale * dot(&x.q[i * n.d..(i + 1) * n.d], &x.k[j * n.d..(j + 1) * n.d]);
                max = max.max(*score);
            }
        }
        if max == f64::NEG_INFINITY {
            continue;
        }
        let total: f64 = (0..n.s)
            .filter(|&j| visible(causal, i, j))
            .map(|j| (row[j] - max).exp())
            .sum();
        lse[i] = max + total.ln();
        for (j, w) in row.iter_mut().enumerate() {
            *w = if visible(causal, i, j) {
                (*w - lse[i]).exp()
            } else {
                0.0
            };
        }
    }
    Weights { p, lse }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `out[i] = sum_j p[i, j] v[j]`.
fn weighted_values(w: &Weights, x: &Problem, n: Sizes, out: &mut [f64]) {
    for i in 0..n.t {
        for j in 0..n.s {
            let pij = w.p[i * n.s + j];
            if pij != 0.0 {
                for c in 0..n.e {
                    out[i * n.e + c] += pij * x.v[j * n.e + c];
                }
            }
        }
    }
}

/// The scores' gradient `dS = p * (dout v^T - delta)`, `[t, s]`.
fn score_grads(w: &Weights, x: &Problem, n: Sizes, dout: &[f64], delta: &[f64]) -> Vec<f64> {
    let mut ds = vec![0.0; n.t * n.s];
    for i in 0..n.t {
        for j in 0..n.s {
            let pij = w.p[i * n.s + j];
            if pij != 0.0 {
                let dp = dot(&dout[i * n.e..(i + 1) * n.e], &x.v[j * n.e..(j + 1) * n.e]);
                ds[i * n.s + j] = pij * (dp - delta[i]);
            }
        }
    }
    ds
}

/// `dq = scale dS k`, `dk = scale dS^T q` or `dv = p^T dout`, into `out`.
#[allow(clippy::too_many_arguments)]
fn gradient(
    wrt: usize,
    w: &Weights,
    ds: &[f64],
    x: &Problem,
    n: Sizes,
    scale: f64,
    dout: &[f64],
    out: &mut [f64],
) {
    for i in 0..n.t {
        for j in 0..n.s {
            let (g, p) = (ds[i * n.s + j], w.p[i * n.s + j]);
            match wrt {
                0 => (0..n.d).for_each(|c| out[i * n.d + c] += scale * g * x.k[j * n.d + c]),
                1 => (0..n.d).for_each(|c| out[j * n.d + c] += scale * g * x.q[i * n.d + c]),
                _ => (0..n.e).for_each(|c| out[j * n.e + c] += p * dout[i * n.e + c]),
            }
        }
    }
}
