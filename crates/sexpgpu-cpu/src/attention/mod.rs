//! Fused attention on the CPU (`docs/sexpgpu/operations.md`,
//! "Fused attention"; `ARCHITECTURE.md`),
//! tiled as FlashAttention-2: a block of queries meets the keys a block at
//! a time, so the `[t, s]` scores are never stored. The output keeps a
//! running maximum and sum per query (the online softmax); the gradients
//! recompute the weights `exp(score - lse)` from the log-sum-exp. The
//! gradients of `k` and `v` walk the queries for each block of keys; so
//! does that of `q` when it is wanted beside them, each key block adding
//! its share to the problem's `dq` (a thread takes whole problems), else
//! it walks the keys for each block of queries ([`Pass`]). Every thread
//! writes only its own rows and no sum depends on the thread count.
//! Products go through the `gemm` crate, or, when small (heads 16 wide),
//! our own loops that skip what a causal mask hides; bf16 operands are
//! widened to f32 once, the result rounded once.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use half::bf16;
use sexpgpu_graph::math::exp_f32;
use sexpgpu_graph::{AttentionPart, ExecError, TensorData};

use crate::parallel::for_ranges;
use sexpgpu_compile::Attention;

mod product;

use product::{product, Triangle};

/// Queries (or keys, for the key-side gradients) a tile holds.
const ROWS: usize = 64;
/// Rows of the other side (keys, or queries for the key-side gradients)
/// a tile meets at a time.
const COLUMNS: usize = 256;

fn internal(message: &str) -> ExecError {
    ExecError {
        message: format!("internal: attention: {message}"),
        node: None,
    }
}

/// One operand as f32 rows: where each problem's rows start and the
/// distance between rows (columns are consecutive).
struct Rows<'a> {
    data: Cow<'a, [f32]>,
    starts: Vec<usize>,
    stride: usize,
}

impl Rows<'_> {
    /// Row `i` of problem `b`, `width` long.
    fn row(&self, b: usize, i: usize, width: usize) -> &[f32] {
        let at = self.starts[b] + i * self.stride;
        &self.data[at..at + width]
    }

    /// A pointer to row `i` of problem `b`.
    fn ptr(&self, b: usize, i: usize) -> *const f32 {
        // SAFETY: callers pass rows inside the problem; `operand` checked
        // that every problem's rows lie in the buffer.
        unsafe { self.data.as_ptr().add(self.starts[b] + i * self.stride) }
    }
}

/// Operand `k` as f32 rows: an f32 buffer is read in place through its
/// view, a bf16 one widened into consecutive rows.
fn operand<'a>(step: &Attention, k: usize, buf: &'a TensorData) -> Result<Rows<'a>, ExecError> {
    let view = &step.operands[k].1;
    let (rows, width) = step.operand_size(k);
    if view.extent() > buf.len() {
        return Err(internal("an operand does not fit its buffer"));
    }
    let problems = step.problems();
    let stride = step.row_stride(k);
    let starts: Vec<usize> = (0..problems).map(|b| step.problem_offset(k, b)).collect();
    match buf {
        TensorData::F32(v) => Ok(Rows {
            data: Cow::Borrowed(v),
            starts,
            stride,
        }),
        TensorData::BF16(v) => {
            let mut data = Vec::with_capacity(problems * rows * width);
            for &start in &starts {
                for i in 0..rows {
                    let at = start + i * stride;
                    data.extend(v[at..at + width].iter().map(|x| x.to_f32()));
                }
            }
            Ok(Rows {
                data: Cow::Owned(data),
                starts: (0..problems).map(|b| b * rows * width).collect(),
                stride: width,
            })
        }
        _ => Err(internal("expects float operands")),
    }
}

/// Everything a tile reads: the operands as rows and the step's sizes.
struct Problem<'a> {
    step: &'a Attention,
    rows: Vec<Rows<'a>>,
    scale: f32,
}

impl<'a> Problem<'a> {
    fn new(step: &'a Attention, operands: &[&'a TensorData]) -> Result<Problem<'a>, ExecError> {
        if operands.len() != step.part.arity() || step.operands.len() != operands.len() {
            return Err(internal("wrong operand count"));
        }
        let mut rows = Vec::with_capacity(operands.len());
        for (k, buf) in operands.iter().enumerate() {
            rows.push(operand(step, k, buf)?);
        }
        Ok(Problem {
            step,
            rows,
            scale: step.scale as f32,
        })
    }
}

/// Runs `step` into `out` and its partner parts `step.also[i]` into
/// `side[i]`, on up to `threads` threads.
pub(crate) fn run(
    threads: usize,
    step: &Attention,
    operands: &[&TensorData],
    out: &mut TensorData,
    side: &mut [TensorData],
) -> Result<(), ExecError> {
    let problem = Problem::new(step, operands)?;
    if side.len() < step.also.len() {
        return Err(internal("a partner part has no side output"));
    }
    let mut written = Vec::with_capacity(1 + step.also.len());
    for (part, buf) in step
        .parts()
        .zip(std::iter::once(out).chain(side.iter_mut()))
    {
        let (rows, width) = step.result_size(part);
        let len = step.problems() * rows * width;
        written.push((part, Written::new(buf, len)?));
    }
    let mut results = Results::default();
    for (part, w) in &mut written {
        let (per_problem, width) = step.result_size(*part);
        let rows = RowsOut {
            ptr: w.ptr(),
            width,
            per_problem,
        };
        *results.slot(*part) = Some(rows);
    }
    let (problems, t, s) = (step.problems(), step.t, step.s);
    let tiles = |pass: Pass, per_problem: usize| {
        for_each_tile(threads, problems, per_problem, |b, rows| {
            run_tile(&problem, &results, pass, b, rows);
        });
    };
    match Pass::of(step, &results) {
        Pass::Forward => tiles(Pass::Forward, t),
        Pass::Queries => tiles(Pass::Queries, t),
        Pass::Keys if results.dq.is_some() => {
            tiles(Pass::Keys, s);
            tiles(Pass::Queries, t);
        }
        Pass::Keys => tiles(Pass::Keys, s),
        Pass::Problems => deal(threads, problems, |b| {
            run_tile(&problem, &results, Pass::Problems, b, 0..s);
        }),
    }
    for (_, w) in written {
        w.finish();
    }
    Ok(())
}

/// Problems at least this many make the gradients of `q`, `k` and `v` one
/// pass over each problem's key tiles, `dq` summed tile after tile (the
/// threads share out whole problems); fewer, and `dq` walks the keys again
/// in its own pass so that every thread has work. Either way the sums'
/// order is the shapes', not the thread count's.
const PROBLEMS_FOR_ONE_PASS: usize = 8;

/// How a launch walks its tiles.
#[derive(Clone, Copy, PartialEq)]
enum Pass {
    /// Query tiles meet the keys: the output and (or) the log-sum-exp.
    Forward,
    /// Query tiles meet the keys: `dq`.
    Queries,
    /// Key tiles meet the queries: `dk` and (or) `dv` (then `dq` in a
    /// [`Pass::Queries`] when it is wanted too).
    Keys,
    /// Each problem's key tiles in turn meet the queries: `dk`, `dv` and
    /// `dq` at once.
    Problems,
}

impl Pass {
    /// The pass computing every result `results` holds.
    fn of(step: &Attention, results: &Results) -> Pass {
        let key_side = results.dk.is_some() || results.dv.is_some();
        let one_key_tile = step.s <= ROWS;
        match (results.dq.is_some(), key_side) {
            _ if results.out.is_some() || results.lse.is_some() => Pass::Forward,
            (true, false) => Pass::Queries,
            (true, true) if one_key_tile || step.problems() >= PROBLEMS_FOR_ONE_PASS => {
                Pass::Problems
            }
            _ => Pass::Keys,
        }
    }
}

/// Calls `f(item)` for every item below `items`, once, on up to `threads`
/// threads, each taking the next item not yet taken: a thread that starts
/// late (a crew member waking) takes fewer, and the costly tiles at the
/// end of a causal problem are shared out.
fn deal(threads: usize, items: usize, f: impl Fn(usize) + Sync) {
    let lanes = threads.min(items).max(1);
    let next = AtomicUsize::new(0);
    for_ranges(lanes, lanes, 1, |_| loop {
        let item = next.fetch_add(1, Ordering::Relaxed);
        if item >= items {
            break;
        }
        f(item);
    });
}

/// Calls `f(problem, rows)` for every tile of [`ROWS`] rows of every
/// problem, once, on up to `threads` threads ([`deal`]).
fn for_each_tile(
    threads: usize,
    problems: usize,
    per_problem: usize,
    f: impl Fn(usize, Range<usize>) + Sync,
) {
    let blocks = per_problem.div_ceil(ROWS);
    deal(threads, problems * blocks, |tile| {
        let (b, first) = (tile / blocks, (tile % blocks) * ROWS);
        f(b, first..(first + ROWS).min(per_problem));
    });
}

/// A result as f32: the output buffer itself, or an f32 copy rounded to
/// bf16 once every tile is done.
enum Written<'a> {
    F32(&'a mut [f32]),
    Wide { wide: Vec<f32>, to: &'a mut [bf16] },
}

impl<'a> Written<'a> {
    fn new(buf: &'a mut TensorData, len: usize) -> Result<Written<'a>, ExecError> {
        match buf {
            TensorData::F32(o) if o.len() >= len => Ok(Written::F32(&mut o[..len])),
            TensorData::BF16(o) if o.len() >= len => Ok(Written::Wide {
                wide: vec![0.0; len],
                to: &mut o[..len],
            }),
            _ => Err(internal("an output does not fit its buffer")),
        }
    }

    /// The f32 elements tiles write.
    fn ptr(&mut self) -> *mut f32 {
        match self {
            Written::F32(o) => o.as_mut_ptr(),
            Written::Wide { wide, .. } => wide.as_mut_ptr(),
        }
    }

    /// Rounds a bf16 result into its buffer.
    fn finish(self) {
        if let Written::Wide { wide, to } = self {
            for (o, &x) in to.iter_mut().zip(&wide) {
                *o = bf16::from_f32(x);
            }
        }
    }
}

/// Rows of a result shared by the threads, each writing its own tiles.
#[derive(Clone, Copy)]
struct RowsOut {
    ptr: *mut f32,
    width: usize,
    per_problem: usize,
}

// SAFETY: every thread writes only the rows of its own tiles (see `run`).
unsafe impl Send for RowsOut {}
unsafe impl Sync for RowsOut {}

impl RowsOut {
    /// Rows `rows` of problem `b`.
    ///
    /// # Safety
    /// No other thread may hold these rows while the slice lives, nor may it
    /// outlive the result.
    unsafe fn rows<'a>(self, b: usize, rows: &Range<usize>) -> &'a mut [f32] {
        // SAFETY: the rows lie inside the result (`Written::new` checked
        // its length); the caller vouches they are this thread's alone.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.ptr
                    .add((b * self.per_problem + rows.start) * self.width),
                rows.len() * self.width,
            )
        }
    }
}

/// The results a launch writes.
#[derive(Default)]
struct Results {
    out: Option<RowsOut>,
    lse: Option<RowsOut>,
    dq: Option<RowsOut>,
    dk: Option<RowsOut>,
    dv: Option<RowsOut>,
}

impl Results {
    /// Where `part`'s result goes.
    fn slot(&mut self, part: AttentionPart) -> &mut Option<RowsOut> {
        match part {
            AttentionPart::Output => &mut self.out,
            AttentionPart::LogSumExp => &mut self.lse,
            AttentionPart::Grad(0) => &mut self.dq,
            AttentionPart::Grad(1) => &mut self.dk,
            AttentionPart::Grad(_) => &mut self.dv,
        }
    }
}

/// One tile of `pass`: rows `rows` (queries, or keys; every key for
/// [`Pass::Problems`]) of problem `b`, into `results`, compiled for the
/// widest vectors the CPU has (the loops over a tile's rows are written
/// to vectorise).
fn run_tile(x: &Problem, results: &Results, pass: Pass, b: usize, rows: Range<usize>) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { run_tile_avx512(x, results, pass, b, rows) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA, checked just above.
            return unsafe { run_tile_avx2(x, results, pass, b, rows) };
        }
    }
    run_tile_here(x, results, pass, b, rows)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn run_tile_avx512(
    x: &Problem,
    results: &Results,
    pass: Pass,
    b: usize,
    rows: Range<usize>,
) {
    run_tile_here(x, results, pass, b, rows)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_tile_avx2(x: &Problem, results: &Results, pass: Pass, b: usize, rows: Range<usize>) {
    run_tile_here(x, results, pass, b, rows)
}

/// [`run_tile`] for whatever the caller was compiled for.
#[inline(always)]
fn run_tile_here(x: &Problem, results: &Results, pass: Pass, b: usize, rows: Range<usize>) {
    // SAFETY: `run` gives each tile (each problem, for `Pass::Problems`) to
    // one thread, and a pass's tiles are disjoint rows of its results.
    let mine =
        |result: Option<RowsOut>, rows: &Range<usize>| result.map(|r| unsafe { r.rows(b, rows) });
    let all_queries = 0..x.step.t;
    match pass {
        Pass::Forward => {
            let (out, lse) = (mine(results.out, &rows), mine(results.lse, &rows));
            forward_tile(x, b, rows, out, lse);
        }
        Pass::Queries => {
            if let Some(dq) = mine(results.dq, &rows) {
                query_grad_tile(x, b, rows, dq);
            }
        }
        Pass::Keys => {
            let (dk, dv) = (mine(results.dk, &rows), mine(results.dv, &rows));
            key_grad_tile(x, b, rows, (dk, dv), None);
        }
        Pass::Problems => {
            let mut dq = mine(results.dq, &all_queries);
            if let Some(dq) = dq.as_deref_mut() {
                dq.fill(0.0);
            }
            for start in rows.clone().step_by(ROWS) {
                let keys = start..(start + ROWS).min(rows.end);
                let (dk, dv) = (mine(results.dk, &keys), mine(results.dv, &keys));
                key_grad_tile(x, b, keys, (dk, dv), dq.as_deref_mut());
            }
        }
    }
}

/// The keys query rows `queries` see: all, or up to the last query's own
/// position under `causal`.
fn keys_seen(step: &Attention, queries: &Range<usize>) -> usize {
    if step.causal {
        queries.end.min(step.s)
    } else {
        step.s
    }
}

/// The first query that sees key rows `keys`.
fn first_query(step: &Attention, keys: &Range<usize>) -> usize {
    if step.causal {
        keys.start.min(step.t)
    } else {
        0
    }
}

/// `x = exp(x - shift)` over `xs` (`math::exp_f32`, the fused loops' `exp`),
/// returning their sum; in groups of 16 with as many partial sums, so that
/// it vectorises inside
/// [`run_tile`]'s CPU-specific copies.
#[inline(always)]
fn exp_minus(xs: &mut [f32], shift: f32) -> f32 {
    const LANES: usize = 16;
    let mut sums = [0f32; LANES];
    let mut groups = xs.chunks_exact_mut(LANES);
    for group in &mut groups {
        for (x, sum) in group.iter_mut().zip(&mut sums) {
            *x = exp_f32(*x - shift);
            *sum += *x;
        }
    }
    // The last few values as one more group, so that a causal row's
    // ragged end is not left to scalar code.
    let rest = groups.into_remainder();
    let mut last = [shift; LANES];
    last[..rest.len()].copy_from_slice(rest);
    for x in &mut last {
        *x = exp_f32(*x - shift);
    }
    rest.copy_from_slice(&last[..rest.len()]);
    sums.iter().chain(rest.iter()).sum()
}

/// The largest of `xs` and `start` (NaN-free scores assumed: a NaN is
/// skipped), in 16 lanes so that it vectorises as [`exp_minus`] does.
#[inline(always)]
fn max_from(xs: &[f32], start: f32) -> f32 {
    const LANES: usize = 16;
    let mut tops = [start; LANES];
    let mut groups = xs.chunks_exact(LANES);
    for group in &mut groups {
        for (&x, top) in group.iter().zip(&mut tops) {
            *top = if x > *top { x } else { *top };
        }
    }
    let rest = groups.remainder().iter().copied();
    tops.into_iter()
        .chain(rest)
        .fold(start, |a, x| if x > a { x } else { a })
}

/// `Columns`, `Until` and `From`'s offset for the `queries x keys` tile of
/// a causal step (query `i` sees key `j` when `j < i + offset`), or `None`.
fn diagonal(step: &Attention, queries: &Range<usize>, keys: &Range<usize>) -> Option<isize> {
    step.causal
        .then(|| queries.start as isize + 1 - keys.start as isize)
}

/// The keys of tile `keys` that row `r` of query tile `queries` sees.
fn visible(step: &Attention, queries: &Range<usize>, keys: &Range<usize>, r: usize) -> usize {
    if step.causal {
        (queries.start + r + 1)
            .saturating_sub(keys.start)
            .min(keys.len())
    } else {
        keys.len()
    }
}

/// `scores[queries x keys] = scale q k^T` where a query sees a key (the
/// rest, past each row's [`visible`] keys, are for the caller to mask).
#[inline(always)]
fn scores(x: &Problem, b: usize, queries: &Range<usize>, keys: &Range<usize>, out: &mut [f32]) {
    let (qs, ks) = (&x.rows[0], &x.rows[1]);
    let (m, n, d) = (queries.len(), keys.len(), x.step.d);
    // SAFETY: the rows are inside their problems; `k^T` reads key `j`'s
    // column `c` at `j * stride + c`.
    unsafe {
        product(
            (m, n, d),
            (out, false, x.scale),
            (qs.ptr(b, queries.start), qs.stride, 1),
            (ks.ptr(b, keys.start), 1, ks.stride),
            diagonal(x.step, queries, keys).map_or(Triangle::Full, Triangle::Columns),
        );
    }
}

/// The output and (or) the log-sum-exp of query rows `queries`: an
/// online softmax over the key tiles, rescaling the running sums whenever
/// a row's maximum grows.
#[inline(always)]
fn forward_tile(
    x: &Problem,
    b: usize,
    queries: Range<usize>,
    out: Option<&mut [f32]>,
    lse: Option<&mut [f32]>,
) {
    let step = x.step;
    let (m, e) = (queries.len(), step.e);
    let mut max = vec![f32::NEG_INFINITY; m];
    let mut sum = vec![0f32; m];
    let mut acc = vec![0f32; if out.is_some() { m * e } else { 0 }];
    let seen = keys_seen(step, &queries);
    let mut tile = vec![0f32; m * COLUMNS.min(seen)];
    for start in (0..seen).step_by(COLUMNS) {
        let keys = start..(start + COLUMNS).min(seen);
        let n = keys.len();
        scores(x, b, &queries, &keys, &mut tile);
        for r in 0..m {
            let (row, hidden) =
                tile[r * n..(r + 1) * n].split_at_mut(visible(step, &queries, &keys, r));
            hidden.fill(0.0);
            let top = max_from(row, max[r]);
            if top == f32::NEG_INFINITY {
                row.fill(0.0);
                continue;
            }
            let shrink = exp_f32(max[r] - top);
            let total = exp_minus(row, top);
            sum[r] = sum[r] * shrink + total;
            max[r] = top;
            if let Some(acc) = acc.get_mut(r * e..(r + 1) * e) {
                acc.iter_mut().for_each(|a| *a *= shrink);
            }
        }
        if out.is_some() {
            let vs = &x.rows[2];
            // SAFETY: `tile` is `m x n` row-major; value rows are inside
            // their problem.
            unsafe {
                product(
                    (m, e, n),
                    (&mut acc, true, 1.0),
                    (tile.as_ptr(), n, 1),
                    (vs.ptr(b, keys.start), vs.stride, 1),
                    diagonal(step, &queries, &keys).map_or(Triangle::Full, Triangle::Until),
                );
            }
        }
    }
    if let Some(lse) = lse {
        for (l, (&top, &total)) in lse.iter_mut().zip(max.iter().zip(&sum)) {
            *l = if total > 0.0 {
                top + total.ln()
            } else {
                f32::NEG_INFINITY
            };
        }
    }
    if let Some(out) = out {
        for r in 0..m {
            let norm = if sum[r] > 0.0 { 1.0 / sum[r] } else { 0.0 };
            for (o, a) in out[r * e..(r + 1) * e].iter_mut().zip(&acc[r * e..]) {
                *o = a * norm;
            }
        }
    }
}

/// The softmax weights `exp(score - lse)` of one tile, in place over its
/// scores (0 where masked), and, when `grads`, the scores' gradient
/// `p (dout v^T - delta)` into `dscores`.
#[inline(always)]
fn weights(
    x: &Problem,
    b: usize,
    (queries, keys): (&Range<usize>, &Range<usize>),
    tile: &mut [f32],
    dscores: Option<&mut [f32]>,
) {
    let (m, n) = (queries.len(), keys.len());
    scores(x, b, queries, keys, tile);
    for r in 0..m {
        let lse = x.rows[4].row(b, queries.start + r, 1)[0];
        let (row, hidden) =
            tile[r * n..(r + 1) * n].split_at_mut(visible(x.step, queries, keys, r));
        hidden.fill(0.0);
        exp_minus(row, lse);
    }
    let Some(ds) = dscores else { return };
    let (dout, vs) = (&x.rows[3], &x.rows[2]);
    // SAFETY: `dout` and `v` rows are inside their problems; `v^T` reads
    // value `j`'s column `c` at `j * stride + c`.
    unsafe {
        product(
            (m, n, x.step.e),
            (ds, false, 1.0),
            (dout.ptr(b, queries.start), dout.stride, 1),
            (vs.ptr(b, keys.start), 1, vs.stride),
            diagonal(x.step, queries, keys).map_or(Triangle::Full, Triangle::Columns),
        );
    }
    for r in 0..m {
        let delta = x.rows[5].row(b, queries.start + r, 1)[0];
        for (g, p) in ds[r * n..(r + 1) * n].iter_mut().zip(&tile[r * n..]) {
            *g = p * (*g - delta);
        }
    }
}

/// The gradient of query rows `queries`: `scale dS k` over the key tiles.
#[inline(always)]
fn query_grad_tile(x: &Problem, b: usize, queries: Range<usize>, dest: &mut [f32]) {
    let (m, d) = (queries.len(), x.step.d);
    let seen = keys_seen(x.step, &queries);
    let mut tile = vec![0f32; m * COLUMNS.min(seen)];
    let mut ds = vec![0f32; m * COLUMNS.min(seen)];
    dest.fill(0.0);
    let ks = &x.rows[1];
    for start in (0..seen).step_by(COLUMNS) {
        let keys = start..(start + COLUMNS).min(seen);
        let n = keys.len();
        weights(x, b, (&queries, &keys), &mut tile, Some(&mut ds));
        // SAFETY: `ds` is `m x n` row-major; key rows are inside their problem.
        unsafe {
            product(
                (m, d, n),
                (dest, true, x.scale),
                (ds.as_ptr(), n, 1),
                (ks.ptr(b, keys.start), ks.stride, 1),
                diagonal(x.step, &queries, &keys).map_or(Triangle::Full, Triangle::Until),
            );
        }
    }
}

/// The gradients of key rows `keys` (`dk = scale dS^T q`) and (or) of the
/// value rows (`dv = p^T dout`) over the query tiles that see them, the
/// weights computed once for both; and these keys' share of every query's
/// gradient (`dq += scale dS k`, `dq` the problem's rows) when asked.
#[inline(always)]
fn key_grad_tile(
    x: &Problem,
    b: usize,
    keys: Range<usize>,
    (mut dk, mut dv): (Option<&mut [f32]>, Option<&mut [f32]>),
    mut dq: Option<&mut [f32]>,
) {
    let step = x.step;
    let n = keys.len();
    // The query tiles seeing these keys are at most this tall.
    let tall = COLUMNS.min(step.t - first_query(step, &keys).min(step.t));
    let mut tile = vec![0f32; tall * n];
    let with_ds = dk.is_some() || dq.is_some();
    let mut ds = vec![0f32; if with_ds { tall * n } else { 0 }];
    for g in [dk.as_deref_mut(), dv.as_deref_mut()].into_iter().flatten() {
        g.fill(0.0);
    }
    let (qs, ks, dout) = (&x.rows[0], &x.rows[1], &x.rows[3]);
    for start in (first_query(step, &keys)..step.t).step_by(COLUMNS) {
        let queries = start..(start + COLUMNS).min(step.t);
        let m = queries.len();
        let dscores = with_ds.then_some(ds.as_mut_slice());
        weights(x, b, (&queries, &keys), &mut tile, dscores);
        // `p^T` and `dS^T` read the `m x n` tiles column by column; key
        // `j` is seen by the queries from `j + keys.start - queries.start`.
        let seen_from =
            diagonal(step, &queries, &keys).map_or(Triangle::Full, |o| Triangle::From(1 - o));
        if let Some(dv) = dv.as_deref_mut() {
            // SAFETY: the tile is `m x n` row-major, read transposed; the
            // output-gradient rows are inside their problem.
            unsafe {
                product(
                    (n, step.e, m),
                    (dv, true, 1.0),
                    (tile.as_ptr(), 1, n),
                    (dout.ptr(b, queries.start), dout.stride, 1),
                    seen_from,
                );
            }
        }
        if let Some(dk) = dk.as_deref_mut() {
            // SAFETY: as above, with the query rows.
            unsafe {
                product(
                    (n, step.d, m),
                    (dk, true, x.scale),
                    (ds.as_ptr(), 1, n),
                    (qs.ptr(b, queries.start), qs.stride, 1),
                    seen_from,
                );
            }
        }
        if let Some(dq) = dq.as_deref_mut() {
            let rows = &mut dq[queries.start * step.d..queries.end * step.d];
            // SAFETY: `ds` is `m x n` row-major; key rows are inside their
            // problem.
            unsafe {
                product(
                    (m, step.d, n),
                    (rows, true, x.scale),
                    (ds.as_ptr(), n, 1),
                    (ks.ptr(b, keys.start), ks.stride, 1),
                    diagonal(step, &queries, &keys).map_or(Triangle::Full, Triangle::Until),
                );
            }
        }
    }
}
