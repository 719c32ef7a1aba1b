//! The data-dependent kernels (`Backend::indexed`): `index` and `gather`
//! (reads by id), `index-add` and `scatter-add` (accumulating writes by id,
//! floats in f64 rounded once, in the reference's order, so bit-identical),
//! `linear-scan` (in f32, carry never rounded) and `argsort` (`sort.rs`).
//! An id outside its axis is an error with the reference's message, never
//! a clamp or a panic.

use std::collections::HashMap;
use std::ops::Range;

use half::bf16;
use sexpgpu_graph::{ExecError, TensorData};

use crate::parallel::{for_chunks, MIN_PER_THREAD};
use sexpgpu_compile::{
    row_major_strides, Contig, Gather, Index, IndexAdd, LinearScan, ScatterAdd, Step,
};

fn error(message: String) -> ExecError {
    ExecError {
        message,
        node: None,
    }
}

fn internal(what: &str) -> ExecError {
    error(format!("internal: {what} reads past its buffer"))
}

/// One `Backend::indexed` step: `operands[k]` holds `step.reads()[k]`.
pub(crate) fn run(
    threads: usize,
    step: &Step,
    operands: &[&TensorData],
    out: &mut TensorData,
) -> Result<(), ExecError> {
    let at = |k: usize, c: &Contig| match operands.get(k) {
        Some(&buf) => Ok((buf, c.offset)),
        None => Err(error(
            "internal: an indexed step without its operands".to_string(),
        )),
    };
    match step {
        Step::Index(s) => index_rows(at(0, &s.table)?, at(1, &s.ids)?, s, out),
        Step::Gather(s) => gather_along(at(0, &s.x)?, at(1, &s.idx)?, s, out),
        Step::IndexAdd(s) => {
            let (id_buf, offset) = at(1, &s.ids)?;
            let targets = row_targets(id_buf, offset, s)?;
            add_at(
                threads,
                Some(at(0, &s.base)?),
                (&targets, s.row_len, s.written()),
                at(2, &s.values)?,
                out,
            )
        }
        Step::ScatterAdd(s) => {
            // In place, `out` holds the base, which is no operand.
            let first = usize::from(!s.in_place);
            let (idx_buf, offset) = at(first, &s.idx)?;
            let targets = along_scatter_targets(idx_buf, offset, s)?;
            let base = if s.in_place {
                None
            } else {
                Some(at(0, &s.base)?)
            };
            add_at(
                threads,
                base,
                (&targets, 1, s.written()),
                at(first + 1, &s.values)?,
                out,
            )
        }
        Step::LinearScan(s) => linear_scan(at(0, &s.a)?, at(1, &s.b)?, s, out),
        Step::Argsort(s) => crate::sort::argsort(at(0, &s.x)?, s, out),
        Step::Fused { .. }
        | Step::FusedReduce { .. }
        | Step::Copy { .. }
        | Step::Fill(_)
        | Step::Reduce { .. }
        | Step::Matmul(_)
        | Step::Attention(_) => Err(error("internal: not an indexed step".to_string())),
    }
}

/// Integer ids as i64, `n` of them from `offset`.
fn ids(buf: &TensorData, offset: usize, n: usize) -> Result<Vec<i64>, ExecError> {
    match buf {
        TensorData::I32(v) => v
            .get(offset..offset + n)
            .map(|s| s.iter().map(|&x| i64::from(x)).collect()),
        TensorData::I64(v) => v.get(offset..offset + n).map(<[i64]>::to_vec),
        _ => return Err(error("ids must be i32 or i64".to_string())),
    }
    .ok_or_else(|| internal("an id list"))
}

fn check_id(op: &str, id: i64, len: usize) -> Result<usize, ExecError> {
    usize::try_from(id)
        .ok()
        .filter(|&i| i < len)
        .ok_or_else(|| {
            error(format!(
                "{op}: id {id} is out of range for an axis of length {len}"
            ))
        })
}

/// For each element of `idx_dims`, its position in `x_dims` with the axis
/// coordinate replaced by its id (checked).
fn along_targets(
    op: &str,
    ids: &[i64],
    x_dims: &[usize],
    idx_dims: &[usize],
    axis: usize,
) -> Result<Vec<usize>, ExecError> {
    let x_strides = row_major_strides(x_dims);
    let idx_strides = row_major_strides(idx_dims);
    let len = x_dims[axis];
    let mut out = Vec::with_capacity(ids.len());
    for (i, &id) in ids.iter().enumerate() {
        let mut base = 0;
        for a in 0..idx_dims.len() {
            if a != axis {
                base += (i / idx_strides[a]) % idx_dims[a] * x_strides[a];
            }
        }
        out.push(base + check_id(op, id, len)? * x_strides[axis]);
    }
    Ok(out)
}

/// Copies runs of `src` (from `offset`) to `out` in order: run `j` is the
/// `run` elements from `starts[j]` (one element for `gather`, a row for
/// `index`), written to `out[j * run..(j + 1) * run]`.
fn pick(
    src: &TensorData,
    offset: usize,
    (starts, run): (&[usize], usize),
    out: &mut TensorData,
) -> Result<(), ExecError> {
    macro_rules! go {
        ($s:expr, $o:expr) => {{
            let s = $s.get(offset..).ok_or_else(|| internal("a gather"))?;
            let o = $o
                .get_mut(..starts.len() * run)
                .ok_or_else(|| internal("a gather"))?;
            if starts.iter().any(|&p| p + run > s.len()) {
                return Err(internal("a gather"));
            }
            if run == 1 {
                for (o, &p) in o.iter_mut().zip(starts) {
                    *o = s[p];
                }
            } else if run > 1 {
                for (o, &p) in o.chunks_exact_mut(run).zip(starts) {
                    o.copy_from_slice(&s[p..p + run]);
                }
            }
        }};
    }
    match (src, out) {
        (TensorData::F32(s), TensorData::F32(o)) => go!(s, o),
        (TensorData::BF16(s), TensorData::BF16(o)) => go!(s, o),
        (TensorData::I32(s), TensorData::I32(o)) => go!(s, o),
        (TensorData::I64(s), TensorData::I64(o)) => go!(s, o),
        (TensorData::Bool(s), TensorData::Bool(o)) => go!(s, o),
        _ => return Err(error("gather: dtypes differ".to_string())),
    }
    Ok(())
}

/// `index`: whole rows, one per id, each copied as one run (an embedding
/// lookup copies thousands of rows; a list of element positions would be
/// eight bytes of index per element copied).
pub(crate) fn index_rows(
    (table, offset): (&TensorData, usize),
    (id_buf, id_offset): (&TensorData, usize),
    s: &Index,
    out: &mut TensorData,
) -> Result<(), ExecError> {
    let ids = ids(id_buf, id_offset, s.n_ids)?;
    let starts = ids
        .iter()
        .map(|&id| Ok(check_id("index", id, s.rows)? * s.row_len))
        .collect::<Result<Vec<usize>, ExecError>>()?;
    pick(table, offset, (&starts, s.row_len), out)
}

/// `gather`: single elements along `axis`.
pub(crate) fn gather_along(
    (x, offset): (&TensorData, usize),
    (idx, idx_offset): (&TensorData, usize),
    s: &Gather,
    out: &mut TensorData,
) -> Result<(), ExecError> {
    let ids = ids(idx, idx_offset, s.written())?;
    let picks = along_targets("gather", &ids, &s.x_dims, &s.idx_dims, s.axis)?;
    pick(x, offset, (&picks, 1), out)
}

/// A scatter touching fewer than one element in this many sums only the
/// touched ones (the rest of the base is copied).
const SPARSE_RATIO: usize = 4;

/// `base` (`len` elements from `offset`; `None`: `out` holds it already, a
/// scatter in place) plus the values in runs: run `j`
/// (`values[j * run..(j + 1) * run]`) adds at `targets[j]..targets[j] + run`
/// (a row of `index-add`, or one element of `scatter-add` with `run` 1),
/// floats accumulated in f64 in the order of `j`, as the reference does.
/// Runs start at multiples of `run`, so two runs coincide or are disjoint.
pub(crate) fn add_at(
    threads: usize,
    base: Option<(&TensorData, usize)>,
    (targets, run, len): (&[usize], usize, usize),
    (values, values_offset): (&TensorData, usize),
    out: &mut TensorData,
) -> Result<(), ExecError> {
    if targets
        .iter()
        .any(|&t| t + run > len || t % run.max(1) != 0)
    {
        return Err(internal("a scatter"));
    }
    if let Some((base, offset)) = base {
        copy_base(threads, (base, offset, len), out)?;
    }
    accumulate((targets, run, len), (values, values_offset), out)
}

/// `out[..len]` = `base[offset..offset + len]`, split over the threads (one
/// core cannot move memory at the host's full speed).
fn copy_base(
    threads: usize,
    (base, offset, len): (&TensorData, usize, usize),
    out: &mut TensorData,
) -> Result<(), ExecError> {
    macro_rules! copy {
        ($b:expr, $o:expr) => {{
            let b = $b
                .get(offset..offset + len)
                .ok_or_else(|| internal("a scatter"))?;
            let o = $o.get_mut(..len).ok_or_else(|| internal("a scatter"))?;
            for_chunks(threads, o, 1, MIN_PER_THREAD, |start, chunk| {
                chunk.copy_from_slice(&b[start..start + chunk.len()]);
            });
        }};
    }
    match (base, out) {
        (TensorData::F32(b), TensorData::F32(o)) => copy!(b, o),
        (TensorData::BF16(b), TensorData::BF16(o)) => copy!(b, o),
        (TensorData::I32(b), TensorData::I32(o)) => copy!(b, o),
        (TensorData::I64(b), TensorData::I64(o)) => copy!(b, o),
        _ => return Err(mixed_dtypes()),
    }
    Ok(())
}

fn mixed_dtypes() -> ExecError {
    error("scatter-add: expects float or integer tensors of one dtype".to_string())
}

/// The elements `values` of the values a scatter adds and the first `len`
/// of its output; an error if either buffer is shorter.
fn operands<'a, T>(
    v: &'a [T],
    o: &'a mut [T],
    values: Range<usize>,
    len: usize,
) -> Result<(&'a [T], &'a mut [T]), ExecError> {
    let v = v.get(values).ok_or_else(|| internal("a scatter"))?;
    let o = o.get_mut(..len).ok_or_else(|| internal("a scatter"))?;
    Ok((v, o))
}

/// Adds the runs of `values` into `out[..len]`, which holds the base.
fn accumulate(
    (targets, run, len): (&[usize], usize, usize),
    (values, values_offset): (&TensorData, usize),
    out: &mut TensorData,
) -> Result<(), ExecError> {
    let n = targets.len() * run;
    let read = values_offset..values_offset + n;
    // Each run's target range and its values' range, in order.
    let runs = || {
        targets
            .iter()
            .enumerate()
            .map(move |(j, &t)| (t..t + run, j * run..(j + 1) * run))
    };
    macro_rules! float {
        ($v:expr, $o:expr, $widen:expr, $narrow:expr) => {{
            let (v, o) = operands($v, $o, read.clone(), len)?;
            if n.saturating_mul(SPARSE_RATIO) < len {
                // Few elements receive values (a cross-entropy's gradient
                // into its logits, an embedding's into its table): only
                // the touched runs are summed in f64, one slot a distinct
                // run (f32 -> f64 -> f32 is exact for the others).
                let mut slot_of: HashMap<usize, usize> = HashMap::with_capacity(targets.len());
                let mut starts: Vec<usize> = Vec::new();
                let mut acc: Vec<f64> = Vec::with_capacity(n);
                for (ts, vs) in runs() {
                    let slot = *slot_of.entry(ts.start).or_insert_with(|| {
                        starts.push(ts.start);
                        acc.extend(o[ts.clone()].iter().map(|&x| f64::from($widen(x))));
                        starts.len() - 1
                    });
                    let sums = &mut acc[slot * run..(slot + 1) * run];
                    for (a, &x) in sums.iter_mut().zip(&v[vs]) {
                        *a += f64::from($widen(x));
                    }
                }
                for (slot, &t) in starts.iter().enumerate() {
                    let sums = &acc[slot * run..(slot + 1) * run];
                    for (o, &a) in o[t..t + run].iter_mut().zip(sums) {
                        *o = $narrow(a as f32);
                    }
                }
            } else {
                let mut acc: Vec<f64> = o.iter().map(|&x| f64::from($widen(x))).collect();
                for (ts, vs) in runs() {
                    for (a, &x) in acc[ts].iter_mut().zip(&v[vs]) {
                        *a += f64::from($widen(x));
                    }
                }
                for (o, a) in o.iter_mut().zip(acc) {
                    *o = $narrow(a as f32);
                }
            }
        }};
    }
    macro_rules! int {
        ($v:expr, $o:expr) => {{
            let (v, o) = operands($v, $o, read.clone(), len)?;
            for (ts, vs) in runs() {
                for (o, &x) in o[ts].iter_mut().zip(&v[vs]) {
                    *o = o.wrapping_add(x);
                }
            }
        }};
    }
    match (values, out) {
        (TensorData::F32(v), TensorData::F32(o)) => float!(v, o, |x: f32| x, |x: f32| x),
        (TensorData::BF16(v), TensorData::BF16(o)) => {
            float!(v, o, bf16::to_f32, bf16::from_f32)
        }
        (TensorData::I32(v), TensorData::I32(o)) => int!(v, o),
        (TensorData::I64(v), TensorData::I64(o)) => int!(v, o),
        _ => return Err(mixed_dtypes()),
    }
    Ok(())
}

/// `index-add`: the first element of each id's row (runs of `row_len`).
pub(crate) fn row_targets(
    id_buf: &TensorData,
    id_offset: usize,
    s: &IndexAdd,
) -> Result<Vec<usize>, ExecError> {
    let ids = ids(id_buf, id_offset, s.n_ids)?;
    ids.iter()
        .map(|&id| Ok(check_id("index-add", id, s.rows)? * s.row_len))
        .collect()
}

/// `scatter-add`: targets along `axis`.
pub(crate) fn along_scatter_targets(
    idx: &TensorData,
    idx_offset: usize,
    s: &ScatterAdd,
) -> Result<Vec<usize>, ExecError> {
    let ids = ids(idx, idx_offset, s.added())?;
    along_targets("scatter-add", &ids, &s.base_dims, &s.idx_dims, s.axis)
}

/// `h[t] = a[t] * h[t-1] + b[t]` along `axis`, from `h = 0`.
pub(crate) fn linear_scan(
    a: (&TensorData, usize),
    b: (&TensorData, usize),
    s: &LinearScan,
    out: &mut TensorData,
) -> Result<(), ExecError> {
    let (dims, axis, reverse) = (&s.dims, s.axis, s.reverse);
    let numel: usize = dims.iter().product();
    let len = dims[axis];
    let outer: usize = dims[..axis].iter().product();
    let inner: usize = dims[axis + 1..].iter().product();
    fn scan<T: Copy>(
        a: &[T],
        b: &[T],
        out: &mut [T],
        (outer, len, inner, reverse): (usize, usize, usize, bool),
        widen: impl Fn(T) -> f32,
        narrow: impl Fn(f32) -> T,
    ) {
        // One carry per inner position, stepping rows in order so every
        // access is contiguous.
        let mut h = vec![0f32; inner];
        for o in 0..outer {
            h.fill(0.0);
            for step in 0..len {
                let t = if reverse { len - 1 - step } else { step };
                let at = (o * len + t) * inner;
                for i in 0..inner {
                    h[i] = widen(a[at + i]) * h[i] + widen(b[at + i]);
                    out[at + i] = narrow(h[i]);
                }
            }
        }
    }
    let shape = (outer, len, inner, reverse);
    match (a.0, b.0, out) {
        (TensorData::F32(x), TensorData::F32(y), TensorData::F32(o)) => {
            let (x, y) = (x.get(a.1..a.1 + numel), y.get(b.1..b.1 + numel));
            let (Some(x), Some(y)) = (x, y) else {
                return Err(internal("a linear-scan"));
            };
            scan(x, y, &mut o[..numel], shape, |v| v, |v| v);
        }
        (TensorData::BF16(x), TensorData::BF16(y), TensorData::BF16(o)) => {
            let (x, y) = (x.get(a.1..a.1 + numel), y.get(b.1..b.1 + numel));
            let (Some(x), Some(y)) = (x, y) else {
                return Err(internal("a linear-scan"));
            };
            scan(x, y, &mut o[..numel], shape, bf16::to_f32, bf16::from_f32);
        }
        _ => return Err(error("linear-scan: expects float tensors".to_string())),
    }
    Ok(())
}
