//! `sum` and `max` over any set of axes of a contiguous input. Axes are
//! first collapsed into alternating kept/reduced groups; the two common
//! shapes (reduce the last group: rows; reduce the first: columns) run in
//! parallel, anything else in one ordered walk. Like the reference, float
//! sums accumulate in f64 and are rounded once; integers wrap. Every
//! pattern adds in the reference's order (bit-identical) except a sum over
//! every axis, which folds per-thread partials in 8 f64 lanes, so it agrees
//! with the reference to within the last bit of the f32 result (a different
//! f64 rounding of the partial sums). `max` is exact.

use half::bf16;
use sexpgpu_graph::{ExecError, ReduceOp, TensorData};

use super::parallel::{for_chunks, map_ranges, MIN_PER_THREAD};

/// How the accumulator type `A` adds one element and merges partials.
trait Accumulate<T: Copy>: Copy + Send + Sync {
    fn init() -> Self;
    fn add(self, x: T) -> Self;
    fn merge(self, other: Self) -> Self;
    /// Folds a contiguous run; may reorder (see the module comment).
    fn fold_run(self, xs: &[T]) -> Self {
        xs.iter().fold(self, |acc, &x| acc.add(x))
    }
}

/// A float sum in f64.
#[derive(Clone, Copy)]
struct SumF(f64);
/// A float max with NaN propagation.
#[derive(Clone, Copy)]
struct MaxF(f32);
/// A wrapping integer sum.
#[derive(Clone, Copy)]
struct SumI(i64);
#[derive(Clone, Copy)]
struct MaxI(i64);

trait Widen: Copy + Send + Sync {
    fn f32(self) -> f32;
    fn i64(self) -> i64;
}

impl Widen for f32 {
    fn f32(self) -> f32 {
        self
    }
    fn i64(self) -> i64 {
        self as i64
    }
}
impl Widen for bf16 {
    fn f32(self) -> f32 {
        self.to_f32()
    }
    fn i64(self) -> i64 {
        self.to_f32() as i64
    }
}
impl Widen for i32 {
    fn f32(self) -> f32 {
        self as f32
    }
    fn i64(self) -> i64 {
        i64::from(self)
    }
}
impl Widen for i64 {
    fn f32(self) -> f32 {
        self as f32
    }
    fn i64(self) -> i64 {
        self
    }
}

impl<T: Widen> Accumulate<T> for SumF {
    fn init() -> Self {
        SumF(0.0)
    }
    fn add(self, x: T) -> Self {
        SumF(self.0 + f64::from(x.f32()))
    }
    fn merge(self, other: Self) -> Self {
        SumF(self.0 + other.0)
    }
    fn fold_run(self, xs: &[T]) -> Self {
        // Eight independent lanes keep the adder pipeline full.
        let mut lanes = [0f64; 8];
        let mut chunks = xs.chunks_exact(8);
        for c in &mut chunks {
            for (l, &x) in lanes.iter_mut().zip(c) {
                *l += f64::from(x.f32());
            }
        }
        let mut acc = self.0;
        for l in lanes {
            acc += l;
        }
        for &x in chunks.remainder() {
            acc += f64::from(x.f32());
        }
        SumF(acc)
    }
}

impl<T: Widen> Accumulate<T> for MaxF {
    fn init() -> Self {
        MaxF(f32::NEG_INFINITY)
    }
    fn add(self, x: T) -> Self {
        <MaxF as Accumulate<T>>::merge(self, MaxF(x.f32()))
    }
    fn merge(self, other: Self) -> Self {
        if self.0.is_nan() || other.0.is_nan() {
            MaxF(f32::NAN)
        } else {
            MaxF(self.0.max(other.0))
        }
    }
}

impl<T: Widen> Accumulate<T> for SumI {
    fn init() -> Self {
        SumI(0)
    }
    fn add(self, x: T) -> Self {
        SumI(self.0.wrapping_add(x.i64()))
    }
    fn merge(self, other: Self) -> Self {
        SumI(self.0.wrapping_add(other.0))
    }
}

impl<T: Widen> Accumulate<T> for MaxI {
    fn init() -> Self {
        MaxI(i64::MIN)
    }
    fn add(self, x: T) -> Self {
        MaxI(self.0.max(x.i64()))
    }
    fn merge(self, other: Self) -> Self {
        MaxI(self.0.max(other.0))
    }
}

/// `(length, reduced)` groups of the input's dims, dims of 1 dropped and
/// neighbours of the same kind merged.
fn groups(dims: &[usize], axes: &[usize]) -> Vec<(usize, bool)> {
    let mut out: Vec<(usize, bool)> = Vec::new();
    for (a, &d) in dims.iter().enumerate() {
        if d == 1 {
            continue;
        }
        let reduced = axes.contains(&a);
        match out.last_mut() {
            Some((len, r)) if *r == reduced => *len *= d,
            _ => out.push((d, reduced)),
        }
    }
    out
}

pub(crate) fn run(
    threads: usize,
    op: ReduceOp,
    x: &TensorData,
    offset: usize,
    dims: &[usize],
    axes: &[usize],
    out: &mut TensorData,
) -> Result<(), ExecError> {
    let numel: usize = dims.iter().product();
    if offset + numel > x.len() {
        return Err(ExecError {
            message: "internal: a reduction reads past its buffer".to_string(),
            node: None,
        });
    }
    let groups = groups(dims, axes);
    macro_rules! go {
        ($v:expr, $acc:ty, $finish:expr) => {{
            let xs = &$v[offset..offset + numel];
            let acc: Vec<$acc> = reduce::<_, $acc>(threads, xs, &groups);
            write(out, &acc, $finish)
        }};
    }
    match (op, x) {
        (ReduceOp::Sum, TensorData::F32(v)) => go!(v, SumF, |a: SumF| a.0),
        (ReduceOp::Sum, TensorData::BF16(v)) => go!(v, SumF, |a: SumF| a.0),
        (ReduceOp::Max, TensorData::F32(v)) => go!(v, MaxF, |a: MaxF| f64::from(a.0)),
        (ReduceOp::Max, TensorData::BF16(v)) => go!(v, MaxF, |a: MaxF| f64::from(a.0)),
        (ReduceOp::Sum, TensorData::I32(v)) => go_int(
            out,
            reduce::<_, SumI>(threads, &v[offset..offset + numel], &groups)
                .iter()
                .map(|a| a.0),
        ),
        (ReduceOp::Sum, TensorData::I64(v)) => go_int(
            out,
            reduce::<_, SumI>(threads, &v[offset..offset + numel], &groups)
                .iter()
                .map(|a| a.0),
        ),
        (ReduceOp::Max, TensorData::I32(v)) => go_int(
            out,
            reduce::<_, MaxI>(threads, &v[offset..offset + numel], &groups)
                .iter()
                .map(|a| a.0),
        ),
        (ReduceOp::Max, TensorData::I64(v)) => go_int(
            out,
            reduce::<_, MaxI>(threads, &v[offset..offset + numel], &groups)
                .iter()
                .map(|a| a.0),
        ),
        (_, TensorData::Bool(_)) => {
            return Err(ExecError {
                message: format!("{}: expects a float or integer tensor, got bool", op.name()),
                node: None,
            })
        }
    }
    Ok(())
}

/// Stores float accumulators, rounding once: f64 to f32, then to bf16.
fn write<A>(out: &mut TensorData, acc: &[A], finish: impl Fn(A) -> f64)
where
    A: Copy,
{
    match out {
        TensorData::F32(o) => {
            for (o, &a) in o.iter_mut().zip(acc) {
                *o = finish(a) as f32;
            }
        }
        TensorData::BF16(o) => {
            for (o, &a) in o.iter_mut().zip(acc) {
                *o = bf16::from_f32(finish(a) as f32);
            }
        }
        _ => {}
    }
}

fn go_int(out: &mut TensorData, acc: impl Iterator<Item = i64>) {
    match out {
        TensorData::I32(o) => o.iter_mut().zip(acc).for_each(|(o, a)| *o = a as i32),
        TensorData::I64(o) => o.iter_mut().zip(acc).for_each(|(o, a)| *o = a),
        _ => {}
    }
}

/// The accumulators of every output element, in row-major output order.
fn reduce<T: Widen, A: Accumulate<T>>(
    threads: usize,
    xs: &[T],
    groups: &[(usize, bool)],
) -> Vec<A> {
    let out_len: usize = groups.iter().filter(|g| !g.1).map(|g| g.0).product();
    let mut acc = vec![A::init(); out_len];
    if xs.is_empty() {
        return acc;
    }
    match groups {
        // Nothing reduced (only dims of 1): each output is one element.
        [] | [(_, false)] => {
            for (a, &x) in acc.iter_mut().zip(xs) {
                *a = a.add(x);
            }
        }
        // Everything into one: partial folds per thread, merged in order.
        [(len, true)] => {
            let parts = map_ranges(threads, *len, MIN_PER_THREAD, |r| {
                A::init().fold_run(&xs[r])
            });
            acc[0] = parts.into_iter().fold(A::init(), A::merge);
        }
        // Rows: each output folds one contiguous run in order (as the
        // reference does); eight rows at a time give eight independent
        // chains of adds, which keeps the adder busy without reordering.
        [(_, false), (run, true)] => {
            let run = *run;
            for_chunks(
                threads,
                &mut acc,
                8,
                (MIN_PER_THREAD / run).max(1),
                |start, chunk| {
                    for (g, group) in chunk.chunks_mut(8).enumerate() {
                        let first = start + g * 8;
                        let row = |j: usize| &xs[(first + j) * run..(first + j + 1) * run];
                        if let Ok(group) = <&mut [A; 8]>::try_from(&mut *group) {
                            *group = fold_rows8(std::array::from_fn(row), run);
                        } else {
                            for (j, a) in group.iter_mut().enumerate() {
                                *a = row(j).iter().fold(A::init(), |acc, &x| acc.add(x));
                            }
                        }
                    }
                },
            );
        }
        // Columns: every row adds into all outputs, in row order.
        [(rows, true), (cols, false)] => {
            let (rows, cols) = (*rows, *cols);
            for_chunks(
                threads,
                &mut acc,
                64,
                (MIN_PER_THREAD / rows).max(1),
                |start, chunk| {
                    for r in 0..rows {
                        let row = &xs[r * cols + start..r * cols + start + chunk.len()];
                        for (a, &x) in chunk.iter_mut().zip(row) {
                            *a = a.add(x);
                        }
                    }
                },
            );
        }
        _ => general(xs, groups, &mut acc),
    }
    acc
}

/// Folds eight rows of `run` elements, each in order, interleaved so the
/// eight chains of dependent adds overlap.
// Indexing by position is the point: one position of all eight rows per step.
#[allow(clippy::needless_range_loop)]
fn fold_rows8<T: Widen, A: Accumulate<T>>(rows: [&[T]; 8], run: usize) -> [A; 8] {
    let mut lanes = [A::init(); 8];
    let rows = rows.map(|r| &r[..run]);
    for i in 0..run {
        for j in 0..8 {
            lanes[j] = lanes[j].add(rows[j][i]);
        }
    }
    lanes
}

/// Any pattern: walks the input in order, each element adding into the
/// output its kept coordinates name.
fn general<T: Widen, A: Accumulate<T>>(xs: &[T], groups: &[(usize, bool)], acc: &mut [A]) {
    let r = groups.len();
    // Output stride of each group (0 for reduced ones).
    let mut out_strides = vec![0usize; r];
    let mut s = 1;
    for i in (0..r).rev() {
        if !groups[i].1 {
            out_strides[i] = s;
            s *= groups[i].0;
        }
    }
    let mut coords = vec![0usize; r];
    let mut target = 0usize;
    for &x in xs {
        acc[target] = acc[target].add(x);
        for i in (0..r).rev() {
            coords[i] += 1;
            target += out_strides[i];
            if coords[i] < groups[i].0 {
                break;
            }
            target -= out_strides[i] * groups[i].0;
            coords[i] = 0;
        }
    }
}
