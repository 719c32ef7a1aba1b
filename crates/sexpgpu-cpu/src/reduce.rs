//! `sum` and `max` over any set of axes of a contiguous input. Axes are
//! first collapsed into alternating kept/reduced groups; the two common
//! shapes (reduce the last group: rows; reduce the first: columns) have
//! kernels of their own, anything else folds each output's elements in
//! input order, eight outputs at a time; all run in parallel. Like the reference, float
//! sums accumulate in f64 and are rounded once; integers wrap. Every
//! pattern adds in the reference's order (bit-identical) except two float
//! sums: over every axis, which folds per-thread partials in 8 f64 lanes,
//! and over leading axes (columns), which each thread folds for its own band
//! of rows (reading the rows the previous kernel wrote on the same core)
//! before the bands merge in order. Both agree with the reference to within
//! the last bit of the f32 result (a different f64 rounding of the partial
//! sums). `max` and integer sums are exact.

use half::bf16;
use sexpgpu_graph::{ExecError, ReduceOp, TensorData};

use crate::fused::{Evaluator, FusedValues};
use crate::parallel::{for_chunks, map_ranges, MIN_PER_THREAD};
use sexpgpu_compile::Operand;
use sexpgpu_compile::{reduction_groups, FusedKernel};

/// How the accumulator type `A` adds one element and merges partials.
trait Accumulate<T: Copy>: Copy + Send + Sync {
    fn init() -> Self;
    fn add(self, x: T) -> Self;
    fn merge(self, other: Self) -> Self;
    /// Folds a contiguous run; may reorder (see the module comment).
    fn fold_run(self, xs: &[T]) -> Self {
        xs.iter().fold(self, |acc, &x| acc.add(x))
    }
    /// Folds eight rows of `run` elements, each in order, into `from`.
    fn fold_rows8(from: [Self; 8], rows: [&[T]; 8], run: usize) -> [Self; 8] {
        fold_rows8_interleaved(from, rows, run)
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
    /// The rows as f32 slices when they are f32 (for vector kernels).
    fn as_f32_rows(_rows: [&[Self]; 8]) -> Option<[&[f32]; 8]> {
        None
    }
}

impl Widen for f32 {
    fn f32(self) -> f32 {
        self
    }
    fn as_f32_rows(rows: [&[f32]; 8]) -> Option<[&[f32]; 8]> {
        Some(rows)
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
    fn fold_rows8(from: [Self; 8], rows: [&[T]; 8], run: usize) -> [Self; 8] {
        #[cfg(target_arch = "x86_64")]
        if let Some(rows) = T::as_f32_rows(rows) {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2, checked just above.
                return unsafe { sum_rows8_avx2(from.map(|a| a.0), rows, run) }.map(SumF);
            }
        }
        fold_rows8_interleaved(from, rows, run)
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
    fn fold_rows8(from: [Self; 8], rows: [&[T]; 8], run: usize) -> [Self; 8] {
        // `max_row` starts each row from -inf.
        let fresh = from.iter().all(|a| a.0 == f32::NEG_INFINITY);
        match T::as_f32_rows(rows) {
            Some(rows) if fresh => rows.map(|row| MaxF(max_row(&row[..run]))),
            _ => fold_rows8_interleaved(from, rows, run),
        }
    }
}

/// A row's maximum from -inf, the same bits as folding it in order with
/// `MaxF::add`, in sixteen lanes (attention's row maxima were a scalar
/// loop, twice PyTorch's time). Only NaN and the sign of a zero maximum
/// can depend on the order: any NaN gives the canonical NaN, as the fold
/// does, and a zero maximum is refolded in order.
fn max_row(xs: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F, checked just above.
        return unsafe { max_row_avx512(xs) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { max_row_avx2(xs) };
    }
    max_row_lanes(xs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn max_row_avx512(xs: &[f32]) -> f32 {
    max_row_lanes(xs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn max_row_avx2(xs: &[f32]) -> f32 {
    max_row_lanes(xs)
}

#[inline(always)]
fn max_row_lanes(xs: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 16];
    let mut nan = [false; 16];
    let (chunks, rest) = xs.as_chunks::<16>();
    for chunk in chunks {
        for ((lane, seen), &x) in lanes.iter_mut().zip(&mut nan).zip(chunk) {
            *seen |= x.is_nan();
            *lane = if x > *lane { x } else { *lane };
        }
    }
    let mut any_nan = nan.iter().any(|&n| n);
    let mut max = lanes
        .iter()
        .fold(f32::NEG_INFINITY, |m, &l| if l > m { l } else { m });
    for &x in rest {
        any_nan |= x.is_nan();
        max = if x > max { x } else { max };
    }
    if any_nan {
        f32::NAN
    } else if max == 0.0 {
        xs.iter()
            .fold(MaxF(f32::NEG_INFINITY), |acc, &x| {
                <MaxF as Accumulate<f32>>::add(acc, x)
            })
            .0
    } else {
        max
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
    let groups = reduction_groups(dims, axes);
    macro_rules! go {
        ($v:expr, $acc:ty, $finish:expr) => {{
            let xs = &$v[offset..offset + numel];
            let acc: Vec<$acc> = reduce::<_, $acc>(threads, xs, &groups);
            write(out, &acc, $finish)
        }};
    }
    macro_rules! go_int {
        ($v:expr, $acc:ty) => {{
            let xs = &$v[offset..offset + numel];
            let acc: Vec<$acc> = reduce::<_, $acc>(threads, xs, &groups);
            go_int(out, acc.iter().map(|a| a.0))
        }};
    }
    match (op, x) {
        (ReduceOp::Sum, TensorData::F32(v)) => go!(v, SumF, |a: SumF| a.0),
        (ReduceOp::Sum, TensorData::BF16(v)) => go!(v, SumF, |a: SumF| a.0),
        (ReduceOp::Max, TensorData::F32(v)) => go!(v, MaxF, |a: MaxF| f64::from(a.0)),
        (ReduceOp::Max, TensorData::BF16(v)) => go!(v, MaxF, |a: MaxF| f64::from(a.0)),
        (ReduceOp::Sum, TensorData::I32(v)) => go_int!(v, SumI),
        (ReduceOp::Sum, TensorData::I64(v)) => go_int!(v, SumI),
        (ReduceOp::Max, TensorData::I32(v)) => go_int!(v, MaxI),
        (ReduceOp::Max, TensorData::I64(v)) => go_int!(v, MaxI),
        (_, TensorData::Bool(_)) => {
            return Err(ExecError {
                message: format!("{}: expects a float or integer tensor, got bool", op.name()),
                node: None,
            })
        }
    }
    Ok(())
}

/// Rows at most this long are computed eight (or more) at a time into a
/// thread's scratch; longer ones a block at a time.
const FUSED_BLOCK: usize = 4096;

/// `sum` or `max` over trailing `axes` of the `[dims]` float values a fused
/// loop computes, folded as each thread computes them (never stored): rows
/// in order, as `run` folds stored rows, so results are the same bit for
/// bit; a reduction over every axis folds per-thread partials as `run`
/// does. Other axis patterns are not fused (`lower::reduces_float`).
pub(crate) fn run_fused(
    threads: usize,
    op: ReduceOp,
    kernel: &FusedKernel,
    inputs: &[Operand<'_, TensorData>],
    dims: &[usize],
    axes: &[usize],
    out: &mut TensorData,
) -> Result<(), ExecError> {
    let numel: usize = dims.iter().product();
    let values = FusedValues::new(kernel, inputs, numel)?;
    let groups = reduction_groups(dims, axes);
    match op {
        ReduceOp::Sum => {
            let acc: Vec<SumF> = reduce_fused(threads, kernel, &values, &groups, numel)?;
            write(out, &acc, |a| a.0);
        }
        ReduceOp::Max => {
            let acc: Vec<MaxF> = reduce_fused(threads, kernel, &values, &groups, numel)?;
            write(out, &acc, |a| f64::from(a.0));
        }
    }
    Ok(())
}

/// The accumulators of a fused reduction, in output order.
fn reduce_fused<A: Accumulate<f32>>(
    threads: usize,
    kernel: &FusedKernel,
    values: &FusedValues<'_>,
    groups: &[(usize, bool)],
    numel: usize,
) -> Result<Vec<A>, ExecError> {
    let out_len: usize = groups.iter().filter(|g| !g.1).map(|g| g.0).product();
    let mut acc = vec![A::init(); out_len];
    if numel == 0 {
        return Ok(acc);
    }
    match *groups {
        [(_, false), (run, true)] => {
            let rows_per_block = (FUSED_BLOCK / run).max(1).next_multiple_of(8);
            for_chunks(
                threads,
                &mut acc,
                8,
                (MIN_PER_THREAD / run).max(1),
                |start, chunk| {
                    let mut eval = values.evaluator(kernel);
                    if run > FUSED_BLOCK {
                        for (i, a) in chunk.iter_mut().enumerate() {
                            *a = fold_long_row(&mut eval, (start + i) * run, run);
                        }
                        return;
                    }
                    let mut scratch = vec![0f32; rows_per_block.min(chunk.len()) * run];
                    for (b, block) in chunk.chunks_mut(rows_per_block).enumerate() {
                        let xs = &mut scratch[..block.len() * run];
                        eval.compute((start + b * rows_per_block) * run, xs);
                        fold_rows(xs, run, block);
                    }
                },
            );
        }
        [(len, true)] => {
            let parts = map_ranges(threads, len, MIN_PER_THREAD, |r| {
                let mut eval = values.evaluator(kernel);
                let mut scratch = vec![0f32; FUSED_BLOCK.min(r.len())];
                let mut part = A::init();
                for start in r.clone().step_by(FUSED_BLOCK) {
                    let xs = &mut scratch[..FUSED_BLOCK.min(r.end - start)];
                    eval.compute(start, xs);
                    part = part.fold_run(xs);
                }
                part
            });
            acc[0] = parts.into_iter().fold(A::init(), A::merge);
        }
        _ => {
            return Err(crate::error::internal(
                "a fused reduction over leading axes",
            ))
        }
    }
    Ok(acc)
}

/// One row longer than a block, computed a block at a time and folded in
/// order.
fn fold_long_row<A: Accumulate<f32>>(eval: &mut Evaluator<'_, '_>, from: usize, run: usize) -> A {
    let mut scratch = vec![0f32; FUSED_BLOCK];
    let mut acc = A::init();
    for start in (from..from + run).step_by(FUSED_BLOCK) {
        let xs = &mut scratch[..FUSED_BLOCK.min(from + run - start)];
        eval.compute(start, xs);
        acc = xs.iter().fold(acc, |acc, &x| acc.add(x));
    }
    acc
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
                    fold_rows(&xs[start * run..(start + chunk.len()) * run], run, chunk);
                },
            );
        }
        // Columns: each thread adds a band of rows into partials of every
        // output, in row order, and the partials merge in band order.
        [(rows, true), (cols, false)] => {
            let (rows, cols) = (*rows, *cols);
            let parts = map_ranges(threads, rows, (MIN_PER_THREAD / cols).max(1), |band| {
                let mut part = vec![A::init(); cols];
                let band_xs = &xs[band.start * cols..band.end * cols];
                fold_columns(band_xs, &mut part);
                part
            });
            for part in parts {
                for (a, p) in acc.iter_mut().zip(part) {
                    *a = a.merge(p);
                }
            }
        }
        _ => general(threads, xs, groups, &mut acc),
    }
    acc
}

/// Adds every row of `xs` (rows as long as `acc`) into `acc`, rows in
/// order (the reference's order), with the widest vectors the CPU has: a
/// weight's bias gradient sums thousands of rows this way.
fn fold_columns<T: Widen, A: Accumulate<T>>(xs: &[T], acc: &mut [A]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { fold_columns_avx2(xs, acc) };
        return;
    }
    fold_columns_in_order(xs, acc);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_columns_avx2<T: Widen, A: Accumulate<T>>(xs: &[T], acc: &mut [A]) {
    fold_columns_in_order(xs, acc);
}

/// `fold_columns`' loop, inlined into each vector width's copy.
#[inline(always)]
fn fold_columns_in_order<T: Widen, A: Accumulate<T>>(xs: &[T], acc: &mut [A]) {
    for row in xs.chunks_exact(acc.len()) {
        for (a, &x) in acc.iter_mut().zip(row) {
            *a = a.add(x);
        }
    }
}

/// Folds each row of `run` elements of `xs` into its accumulator of `acc`
/// (one per row), in order, eight rows at a time.
fn fold_rows<T: Widen, A: Accumulate<T>>(xs: &[T], run: usize, acc: &mut [A]) {
    for (g, group) in acc.chunks_mut(8).enumerate() {
        let first = g * 8;
        let row = |j: usize| &xs[(first + j) * run..(first + j + 1) * run];
        if let Ok(group) = <&mut [A; 8]>::try_from(&mut *group) {
            *group = A::fold_rows8([A::init(); 8], std::array::from_fn(row), run);
        } else {
            for (j, a) in group.iter_mut().enumerate() {
                *a = row(j).iter().fold(A::init(), |acc, &x| acc.add(x));
            }
        }
    }
}

/// Folds eight rows of `run` elements, each in order, into `from`,
/// interleaved so the eight chains of dependent adds overlap.
// Indexing by position is the point: one position of all eight rows per step.
#[allow(clippy::needless_range_loop)]
fn fold_rows8_interleaved<T: Copy, A: Accumulate<T>>(
    from: [A; 8],
    rows: [&[T]; 8],
    run: usize,
) -> [A; 8] {
    let mut lanes = from;
    let rows = rows.map(|r| &r[..run]);
    for i in 0..run {
        for j in 0..8 {
            lanes[j] = lanes[j].add(rows[j][i]);
        }
    }
    lanes
}

/// Sums eight f32 rows of `run` elements in f64 onto `from`, each row in
/// order as the reference adds (bit for bit): eight columns of the eight
/// rows are transposed so that one vector holds a column, and each column
/// is added to the rows' f64 lanes (rows 0-3 and 4-7) in turn.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sum_rows8_avx2(from: [f64; 8], rows: [&[f32]; 8], run: usize) -> [f64; 8] {
    use std::arch::x86_64::*;
    let rows = rows.map(|r| &r[..run]);
    // SAFETY: `from` holds eight f64, four per load.
    let (mut low, mut high) = unsafe {
        (
            _mm256_loadu_pd(from.as_ptr()),
            _mm256_loadu_pd(from.as_ptr().add(4)),
        )
    };
    let whole = run / 8 * 8;
    for c in (0..whole).step_by(8) {
        // SAFETY: columns `c..c + 8` are inside every row.
        let block = std::array::from_fn(|r| unsafe { _mm256_loadu_ps(rows[r].as_ptr().add(c)) });
        for column in crate::simd::transpose8(block) {
            low = _mm256_add_pd(low, _mm256_cvtps_pd(_mm256_castps256_ps128(column)));
            high = _mm256_add_pd(high, _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(column)));
        }
    }
    let mut sums = [0f64; 8];
    // SAFETY: `sums` holds eight f64, four per store.
    unsafe {
        _mm256_storeu_pd(sums.as_mut_ptr(), low);
        _mm256_storeu_pd(sums.as_mut_ptr().add(4), high);
    }
    for (sum, row) in sums.iter_mut().zip(rows) {
        for &x in &row[whole..] {
            *sum += f64::from(x);
        }
    }
    sums
}

/// Reduced runs shorter than this are folded element by element.
const SHORT_RUN: usize = 8;

/// Where an output's elements lie in a contiguous input, for any pattern
/// of kept and reduced groups: every output reads the same offsets from
/// its first element.
struct Gather {
    /// The kept groups, outermost first: length and input stride.
    kept: Vec<(usize, usize)>,
    /// The offset of each run an output folds, in input order.
    starts: Vec<usize>,
    /// Elements of a run: the innermost group when it is reduced (it is
    /// contiguous) and at least `SHORT_RUN` long, else one.
    run: usize,
}

impl Gather {
    fn new(groups: &[(usize, bool)]) -> Gather {
        let mut stride = 1;
        let mut strided: Vec<(usize, usize, bool)> = Vec::with_capacity(groups.len());
        for &(len, reduced) in groups.iter().rev() {
            strided.push((len, stride, reduced));
            stride *= len;
        }
        strided.reverse();
        let run = match strided.last() {
            Some(&(len, _, true)) => {
                strided.pop();
                len
            }
            _ => 1,
        };
        let mut starts = vec![0usize];
        for &(len, stride, _) in strided.iter().filter(|g| g.2) {
            starts = starts
                .iter()
                .flat_map(|&s| (0..len).map(move |i| s + i * stride))
                .collect();
        }
        let kept = strided
            .iter()
            .filter(|g| !g.2)
            .map(|g| (g.0, g.1))
            .collect();
        if run < SHORT_RUN {
            // Element by element: a pool's window rows are too short for
            // a row kernel's set-up to pay.
            starts = starts.iter().flat_map(|&s| s..s + run).collect();
            return Gather {
                kept,
                starts,
                run: 1,
            };
        }
        Gather { kept, starts, run }
    }

    /// The first input element of outputs `first..first + count`.
    fn bases(&self, first: usize, count: usize) -> Vec<usize> {
        let mut coords = vec![0usize; self.kept.len()];
        let mut rest = first;
        let mut base = 0;
        for (c, &(len, stride)) in coords.iter_mut().zip(&self.kept).rev() {
            *c = rest % len;
            rest /= len;
            base += *c * stride;
        }
        let mut bases = Vec::with_capacity(count);
        for _ in 0..count {
            bases.push(base);
            for (c, &(len, stride)) in coords.iter_mut().zip(&self.kept).rev() {
                *c += 1;
                base += stride;
                if *c < len {
                    break;
                }
                base -= len * stride;
                *c = 0;
            }
        }
        bases
    }
}

/// Any other pattern (a bias gradient's sum over `[n, c, h, w]` but `c`, a
/// pool's maximum over its windows), in parallel over blocks of outputs:
/// each output folds its elements in input order, the reference's order
/// (bit for bit), eight outputs at a time so that their chains overlap.
fn general<T: Widen, A: Accumulate<T>>(
    threads: usize,
    xs: &[T],
    groups: &[(usize, bool)],
    acc: &mut [A],
) {
    let gather = Gather::new(groups);
    let per_output = xs.len() / acc.len();
    let min_outputs = (MIN_PER_THREAD / per_output.max(1)).max(1);
    for_chunks(threads, acc, 8, min_outputs, |first, chunk| {
        let bases = gather.bases(first, chunk.len());
        let run = gather.run;
        for (lanes, bases) in chunk.chunks_mut(8).zip(bases.chunks(8)) {
            if let (true, Ok(lanes), Ok(bases)) = (
                run > 1,
                <&mut [A; 8]>::try_from(&mut *lanes),
                <&[usize; 8]>::try_from(bases),
            ) {
                for &s in &gather.starts {
                    let rows = bases.map(|b| &xs[b + s..b + s + run]);
                    *lanes = A::fold_rows8(*lanes, rows, run);
                }
                continue;
            }
            // Each output's chain still takes its elements in order.
            for &s in &gather.starts {
                for (a, &b) in lanes.iter_mut().zip(bases) {
                    *a = xs[b + s..b + s + run].iter().fold(*a, |a, &x| a.add(x));
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One thread adds every row in order; two threads each add half the
    /// rows in order, and the halves merge first band first.
    #[test]
    fn column_sums_add_each_band_of_rows_in_order() {
        let (rows, cols) = (3001, 70);
        let xs: Vec<f32> = (0..rows * cols)
            .map(|i| ((i * 7919) % 1000) as f32 * 10f32.powi((i % 9) as i32 - 4))
            .collect();
        let band_sum = |c: usize, band: std::ops::Range<usize>| {
            band.fold(0f64, |acc, r| acc + f64::from(xs[r * cols + c]))
        };
        let half = rows.div_ceil(2);
        for threads in [1, 2] {
            let sums: Vec<SumF> = reduce(threads, &xs, &[(rows, true), (cols, false)]);
            for (c, sum) in sums.iter().enumerate() {
                let want = if threads == 1 {
                    band_sum(c, 0..rows)
                } else {
                    band_sum(c, 0..half) + band_sum(c, half..rows)
                };
                assert_eq!(
                    sum.0.to_bits(),
                    want.to_bits(),
                    "column {c}, {threads} threads"
                );
            }
        }
    }

    /// The reference's walk: every element, in input order, added into the
    /// output its kept coordinates name.
    fn in_order<A: Accumulate<f32>>(xs: &[f32], groups: &[(usize, bool)]) -> Vec<A> {
        let out_len: usize = groups.iter().filter(|g| !g.1).map(|g| g.0).product();
        let mut acc = vec![A::init(); out_len];
        for (i, &x) in xs.iter().enumerate() {
            let (mut rest, mut target, mut scale) = (i, 0, 1);
            for &(len, reduced) in groups.iter().rev() {
                if !reduced {
                    target += (rest % len) * scale;
                    scale *= len;
                }
                rest /= len;
            }
            acc[target] = acc[target].add(x);
        }
        acc
    }

    /// `reduce` at one and two threads gives `in_order`'s bits.
    fn agrees<A: Accumulate<f32>>(xs: &[f32], groups: &[(usize, bool)], bits: impl Fn(&A) -> u64) {
        let want: Vec<u64> = in_order::<A>(xs, groups).iter().map(&bits).collect();
        for threads in [1, 2] {
            let got: Vec<u64> = reduce::<f32, A>(threads, xs, groups)
                .iter()
                .map(&bits)
                .collect();
            assert_eq!(got, want, "{groups:?}, {threads} threads");
        }
    }

    /// Patterns of neither rows nor columns (a bias gradient's, a pool's,
    /// with outputs not a multiple of eight) give the in-order walk's bits
    /// at one and two threads.
    #[test]
    fn other_patterns_fold_each_output_in_input_order() {
        let patterns: [&[(usize, bool)]; 5] = [
            &[(64, true), (32, false), (784, true)],
            &[(37, false), (2, true), (14, false), (2, true)],
            &[(3, true), (5, false), (7, true), (9, false)],
            &[(5, false), (3, true), (11, false)],
            &[(2, true), (3, false), (2, true), (5, false), (3, true)],
        ];
        for groups in patterns {
            let numel: usize = groups.iter().map(|g| g.0).product();
            let xs: Vec<f32> = (0..numel)
                .map(|i| ((i * 7919) % 1000) as f32 * 10f32.powi((i % 9) as i32 - 4) - 3.0)
                .collect();
            agrees::<SumF>(&xs, groups, |a| a.0.to_bits());
            agrees::<MaxF>(&xs, groups, |a| u64::from(a.0.to_bits()));
        }
    }

    #[test]
    fn row_maxima_are_the_in_order_folds_bits() {
        let specials = [
            f32::NAN,
            0.0,
            -0.0,
            f32::NEG_INFINITY,
            f32::INFINITY,
            -1e30,
            3.5,
        ];
        let mut state: u32 = 0x2545_F491;
        for run in [1, 7, 16, 17, 40, 128, 300] {
            for case in 0..specials.len() * 3 {
                // Rows of negative values with at most one special, and
                // rows of zeros of both signs.
                let row: Vec<f32> = (0..run)
                    .map(|i| {
                        state ^= state << 13;
                        state ^= state >> 17;
                        state ^= state << 5;
                        match case {
                            c if c < specials.len() && i == (state as usize) % run => specials[c],
                            c if c >= 2 * specials.len() => [0.0, -0.0][(state % 2) as usize],
                            _ => -((state % 1000) as f32) / 7.0,
                        }
                    })
                    .collect();
                let rows: [&[f32]; 8] = std::array::from_fn(|_| row.as_slice());
                let want = row
                    .iter()
                    .fold(MaxF(f32::NEG_INFINITY), |acc, &x| {
                        <MaxF as Accumulate<f32>>::add(acc, x)
                    })
                    .0;
                // The dispatched path, the AVX2 one, and the portable loop.
                let fresh = [MaxF(f32::NEG_INFINITY); 8];
                let got = <MaxF as Accumulate<f32>>::fold_rows8(fresh, rows, run)[0].0;
                let mut paths = vec![got, max_row_lanes(&row)];
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2, checked just above.
                    paths.push(unsafe { max_row_avx2(&row) });
                }
                for got in paths {
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "run {run}, case {case}: {row:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn eight_row_sums_add_in_the_reference_order() {
        // Magnitudes from 1e-6 to 1e6 make any reordering change the bits.
        let mut state: u32 = 0x9E37_79B9;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let scale = 10f32.powi((state % 13) as i32 - 6);
            (state as f32 / u32::MAX as f32 - 0.5) * scale
        };
        for run in [1, 7, 8, 9, 37, 256] {
            let data: Vec<Vec<f32>> = (0..8).map(|_| (0..run).map(|_| next()).collect()).collect();
            let rows: [&[f32]; 8] = std::array::from_fn(|r| data[r].as_slice());
            let sums = <SumF as Accumulate<f32>>::fold_rows8([SumF(0.0); 8], rows, run);
            for (r, sum) in sums.iter().enumerate() {
                let want = data[r].iter().fold(0f64, |acc, &x| acc + f64::from(x));
                assert_eq!(sum.0.to_bits(), want.to_bits(), "run {run}, row {r}");
            }
        }
    }
}
