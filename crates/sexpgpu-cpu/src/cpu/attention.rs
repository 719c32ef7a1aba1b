//! Fused attention on the CPU (`docs/sexpgpu/operations.md`,
//! "Fused attention"; `ARCHITECTURE.md`),
//! tiled as FlashAttention-2: a block of queries meets the keys a block at
//! a time, so the `[t, s]` scores are never stored. The output keeps a
//! running maximum and sum per query (the online softmax); the gradients
//! recompute the weights `exp(score - lse)` from the log-sum-exp. The gradient
//! of `q` walks the keys for each block of queries, those of `k` and `v` the
//! queries for each block of keys, so every thread writes only its own rows
//! and no sum depends on the thread count. Products go through the `gemm`
//! crate; bf16 operands are widened to f32 once, the result rounded once.

use std::borrow::Cow;
use std::ops::Range;

use half::bf16;
use sexpgpu_graph::math::exp_f32;
use sexpgpu_graph::{AttentionPart, ExecError, TensorData};

use super::parallel::for_ranges;
use crate::plan::Attention;

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

/// The rows and width of operand `k` of `step` (`q k v dout lse delta`).
fn operand_size(step: &Attention, k: usize) -> (usize, usize) {
    match k {
        0 => (step.t, step.d),
        1 => (step.s, step.d),
        2 => (step.s, step.e),
        3 => (step.t, step.e),
        _ => (step.t, 1),
    }
}

/// Operand `k` as f32 rows: an f32 buffer is read in place through its
/// view, a bf16 one widened into consecutive rows.
fn operand<'a>(step: &Attention, k: usize, buf: &'a TensorData) -> Result<Rows<'a>, ExecError> {
    let view = &step.operands[k].1;
    let (rows, width) = operand_size(step, k);
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

/// Runs `step` into `out` (and its partner part into `side[0]`), on up to
/// `threads` threads.
pub(crate) fn run(
    threads: usize,
    step: &Attention,
    operands: &[&TensorData],
    out: &mut TensorData,
    side: &mut [TensorData],
) -> Result<(), ExecError> {
    let problem = Problem::new(step, operands)?;
    // A tile's own rows: queries, or keys for the key-side gradients.
    let per_problem = match step.part {
        AttentionPart::Grad(1 | 2) => step.s,
        _ => step.t,
    };
    let rows_total = step.problems() * per_problem;
    let mut main = Written::new(out, rows_total * width(step, step.part))?;
    let mut also = match (step.also, side.first_mut()) {
        (Some(part), Some(buf)) => Some(Written::new(buf, rows_total * width(step, part))?),
        (None, _) => None,
        (Some(_), None) => return Err(internal("a paired part has no side output")),
    };
    let targets = Targets {
        main: main.rows(width(step, step.part)),
        also: also
            .as_mut()
            .zip(step.also)
            .map(|(w, p)| w.rows(width(step, p))),
    };
    for_each_tile(threads, step.problems(), per_problem, |b, rows| {
        // SAFETY: `for_each_tile` gives each tile to one thread, and tiles
        // are disjoint row ranges.
        let (main, also) = unsafe { targets.tile(b * per_problem, &rows) };
        run_tile(&problem, b, rows, main, also);
    });
    main.finish();
    if let Some(also) = also {
        also.finish();
    }
    Ok(())
}

/// Calls `f(problem, rows)` for every tile of [`ROWS`] rows of every
/// problem, once, on up to `threads` threads, each taking every
/// `threads`-th tile so that the costly tiles at the end of a causal
/// problem are shared out.
fn for_each_tile(
    threads: usize,
    problems: usize,
    per_problem: usize,
    f: impl Fn(usize, Range<usize>) + Sync,
) {
    let blocks = per_problem.div_ceil(ROWS);
    let tiles = problems * blocks;
    let lanes = threads.min(tiles).max(1);
    for_ranges(lanes, lanes, 1, |mine| {
        for lane in mine {
            for tile in (lane..tiles).step_by(lanes) {
                let (b, first) = (tile / blocks, (tile % blocks) * ROWS);
                f(b, first..(first + ROWS).min(per_problem));
            }
        }
    });
}

/// The row width of `part`'s result.
fn width(step: &Attention, part: AttentionPart) -> usize {
    match part {
        AttentionPart::Output => step.e,
        AttentionPart::LogSumExp => 1,
        AttentionPart::Grad(0 | 1) => step.d,
        AttentionPart::Grad(_) => step.e,
    }
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

    /// The f32 rows tiles write, `width` long.
    fn rows(&mut self, width: usize) -> RowsOut {
        let ptr = match self {
            Written::F32(o) => o.as_mut_ptr(),
            Written::Wide { wide, .. } => wide.as_mut_ptr(),
        };
        RowsOut { ptr, width }
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
}

// SAFETY: every thread writes only the rows of its own tiles (see `run`).
unsafe impl Send for RowsOut {}
unsafe impl Sync for RowsOut {}

/// The launch's result and its partner's, if any.
struct Targets {
    main: RowsOut,
    also: Option<RowsOut>,
}

impl Targets {
    /// Rows `rows` of the problem starting at global row `base`, in each result.
    ///
    /// # Safety
    /// No other thread may hold these rows meanwhile.
    #[allow(clippy::mut_from_ref)]
    unsafe fn tile(&self, base: usize, rows: &Range<usize>) -> (&mut [f32], Option<&mut [f32]>) {
        let slice = |out: RowsOut| {
            // SAFETY: the rows lie inside the result (`Written::new` checked
            // its length); the caller vouches they are this thread's alone.
            unsafe {
                std::slice::from_raw_parts_mut(
                    out.ptr.add((base + rows.start) * out.width),
                    rows.len() * out.width,
                )
            }
        };
        (slice(self.main), self.also.map(slice))
    }
}

/// One tile: the launch's part over rows `rows` of problem `b` into `main`,
/// and its partner's into `also`, compiled for the widest vectors the CPU
/// has (the loops over a tile's rows are written to vectorise).
fn run_tile(x: &Problem, b: usize, rows: Range<usize>, main: &mut [f32], also: Option<&mut [f32]>) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { run_tile_avx512(x, b, rows, main, also) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA, checked just above.
            return unsafe { run_tile_avx2(x, b, rows, main, also) };
        }
    }
    run_tile_here(x, b, rows, main, also)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn run_tile_avx512(
    x: &Problem,
    b: usize,
    rows: Range<usize>,
    main: &mut [f32],
    also: Option<&mut [f32]>,
) {
    run_tile_here(x, b, rows, main, also)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_tile_avx2(
    x: &Problem,
    b: usize,
    rows: Range<usize>,
    main: &mut [f32],
    also: Option<&mut [f32]>,
) {
    run_tile_here(x, b, rows, main, also)
}

/// [`run_tile`] for whatever the caller was compiled for.
#[inline(always)]
fn run_tile_here(
    x: &Problem,
    b: usize,
    rows: Range<usize>,
    main: &mut [f32],
    also: Option<&mut [f32]>,
) {
    match x.step.part {
        AttentionPart::Output => forward_tile(x, b, rows, Some(main), also),
        AttentionPart::LogSumExp => forward_tile(x, b, rows, None, Some(main)),
        AttentionPart::Grad(0) => query_grad_tile(x, b, rows, main),
        AttentionPart::Grad(1) => key_grad_tile(x, b, rows, Some(main), also),
        AttentionPart::Grad(_) => key_grad_tile(x, b, rows, None, Some(main)),
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
/// returning their sum; 16 partial sums, so that it vectorises inside
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
    let mut total: f32 = sums.iter().sum();
    for x in groups.into_remainder() {
        *x = exp_f32(*x - shift);
        total += *x;
    }
    total
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

/// `dst[m x n] (+)= factor * lhs[m x k] * rhs[k x n]`, each operand given
/// by a pointer and its row and column strides; accumulates when `add`.
///
/// # Safety
/// Every element the strides reach must be inside its allocation, and
/// `dst` exclusively this caller's.
unsafe fn product(
    (m, n, k): (usize, usize, usize),
    (dst, add, factor): (&mut [f32], bool, f32),
    lhs: (*const f32, usize, usize),
    rhs: (*const f32, usize, usize),
) {
    if k == 0 {
        if !add {
            dst[..m * n].fill(0.0);
        }
        return;
    }
    debug_assert!(dst.len() >= m * n);
    if k <= SMALL || n <= SMALL {
        // SAFETY: as the caller vouches.
        return unsafe { small_product((m, n, k), (dst, add, factor), lhs, rhs) };
    }
    // SAFETY: the caller vouches for the operands; `dst` holds `m * n`
    // row-major elements. `gemm` computes `dst = alpha dst + beta lhs rhs`,
    // its strides column first.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            add,
            lhs.0,
            lhs.2 as isize,
            lhs.1 as isize,
            rhs.0,
            rhs.2 as isize,
            rhs.1 as isize,
            1.0,
            factor,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// The contracted length or output width up to which [`product`] runs its
/// own loops: for small heads (a width of 16) the `gemm` crate's packing
/// and dispatch cost more than the products.
const SMALL: usize = 32;

/// [`product`] as `k` rank-one updates of each row of `dst`, `rhs` first
/// copied row-major when its columns are strided, vectorised where the
/// CPU allows.
///
/// # Safety
/// As for [`product`].
unsafe fn small_product(
    (m, n, k): (usize, usize, usize),
    (dst, add, factor): (&mut [f32], bool, f32),
    lhs: (*const f32, usize, usize),
    rhs: (*const f32, usize, usize),
) {
    let packed: Vec<f32>;
    let (b, b_stride) = if rhs.2 == 1 || n <= 1 {
        (rhs.0, rhs.1)
    } else {
        // SAFETY: every `(p, j)` of `rhs` is inside its allocation.
        packed = (0..k)
            .flat_map(|p| (0..n).map(move |j| unsafe { *rhs.0.add(p * rhs.1 + j * rhs.2) }))
            .collect();
        (packed.as_ptr(), n)
    };
    let updates = RankOne {
        sizes: (m, n, k),
        factor,
        lhs,
        rhs: (b, b_stride),
    };
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F; the operands as vouched.
            return unsafe { updates.run_avx512(dst, add) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA; the operands as vouched.
            return unsafe { updates.run_avx2(dst, add) };
        }
    }
    // SAFETY: the operands as vouched.
    unsafe { updates.run::<false>(dst, add) }
}

/// A small product's operands, `rhs` with consecutive columns.
struct RankOne {
    sizes: (usize, usize, usize),
    factor: f32,
    lhs: (*const f32, usize, usize),
    rhs: (*const f32, usize),
}

impl RankOne {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn run_avx512(&self, dst: &mut [f32], add: bool) {
        // SAFETY: as the caller vouches.
        unsafe { self.run::<true>(dst, add) }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run_avx2(&self, dst: &mut [f32], add: bool) {
        // SAFETY: as the caller vouches.
        unsafe { self.run::<true>(dst, add) }
    }

    /// `dst (+)= factor lhs rhs`: blocks of [`BLOCK_ROWS`] rows by 32 or 16
    /// columns summed in registers over the whole contraction, then the
    /// leftover rows and columns one row at a time. `FMA`: the CPU fuses
    /// multiply-adds (else `mul_add` would be a library call).
    ///
    /// # Safety
    /// As for [`product`].
    #[inline(always)]
    unsafe fn run<const FMA: bool>(&self, dst: &mut [f32], add: bool) {
        let (m, n, _) = self.sizes;
        let full = m - m % BLOCK_ROWS;
        let mut column = 0;
        while column + 32 <= n {
            for row in (0..full).step_by(BLOCK_ROWS) {
                // SAFETY: as the caller vouches; the block is inside `dst`.
                unsafe { self.block::<FMA, BLOCK_ROWS, 32>(dst, add, (row, column)) };
            }
            column += 32;
        }
        if column + 16 <= n {
            for row in (0..full).step_by(BLOCK_ROWS) {
                // SAFETY: as above.
                unsafe { self.block::<FMA, BLOCK_ROWS, 16>(dst, add, (row, column)) };
            }
            column += 16;
        }
        // SAFETY: as above.
        unsafe {
            self.strip::<FMA>(dst, add, 0..full, column..n);
            self.strip::<FMA>(dst, add, full..m, 0..n);
        }
    }

    /// The `R x C` block of `dst` at `(row, column)`, its sums held in
    /// registers while `p` runs over the contraction.
    ///
    /// # Safety
    /// As for [`product`]; the block lies inside `dst`.
    #[inline(always)]
    unsafe fn block<const FMA: bool, const R: usize, const C: usize>(
        &self,
        dst: &mut [f32],
        add: bool,
        (row, column): (usize, usize),
    ) {
        let (_, n, k) = self.sizes;
        let mut sums = [[0f32; C]; R];
        for p in 0..k {
            // SAFETY: row `p` of `rhs` holds columns `column..column + C`.
            let b: &[f32; C] =
                unsafe { &*(self.rhs.0.add(p * self.rhs.1 + column) as *const [f32; C]) };
            for (r, sum) in sums.iter_mut().enumerate() {
                // SAFETY: `(row + r, p)` of `lhs` is inside its allocation.
                let a = unsafe { *self.lhs.0.add((row + r) * self.lhs.1 + p * self.lhs.2) };
                for (s, &x) in sum.iter_mut().zip(b) {
                    *s = multiply_add::<FMA>(a, x, *s);
                }
            }
        }
        // The factor scales the sums once, not every `lhs` element.
        for (r, sum) in sums.iter().enumerate() {
            let out = &mut dst[(row + r) * n + column..][..C];
            if add {
                for (o, s) in out.iter_mut().zip(sum) {
                    *o = multiply_add::<FMA>(self.factor, *s, *o);
                }
            } else {
                for (o, s) in out.iter_mut().zip(sum) {
                    *o = self.factor * s;
                }
            }
        }
    }

    /// Rows `rows` by columns `columns` of `dst`, as rank-one updates of
    /// each row.
    ///
    /// # Safety
    /// As for [`product`].
    #[inline(always)]
    unsafe fn strip<const FMA: bool>(
        &self,
        dst: &mut [f32],
        add: bool,
        rows: Range<usize>,
        columns: Range<usize>,
    ) {
        let (_, n, k) = self.sizes;
        if columns.is_empty() {
            return;
        }
        for i in rows {
            let row = &mut dst[i * n + columns.start..i * n + columns.end];
            if !add {
                row.fill(0.0);
            }
            for p in 0..k {
                // SAFETY: `(i, p)` of `lhs` and row `p` of `rhs` are inside
                // their allocations, as the caller vouches.
                let (a, b) = unsafe {
                    (
                        self.factor * *self.lhs.0.add(i * self.lhs.1 + p * self.lhs.2),
                        std::slice::from_raw_parts(
                            self.rhs.0.add(p * self.rhs.1 + columns.start),
                            columns.len(),
                        ),
                    )
                };
                for (d, &x) in row.iter_mut().zip(b) {
                    *d = multiply_add::<FMA>(a, x, *d);
                }
            }
        }
    }
}

/// `a x + y`, in one rounding where the CPU fuses multiply-adds (`FMA`).
#[inline(always)]
fn multiply_add<const FMA: bool>(a: f32, x: f32, y: f32) -> f32 {
    if FMA {
        a.mul_add(x, y)
    } else {
        a * x + y
    }
}

/// The rows a [`RankOne`] block sums at once: 4 rows of 32 columns are 8
/// AVX-512 registers (16 with AVX2), leaving room for the `rhs` row.
const BLOCK_ROWS: usize = 4;

/// `scores[queries x keys] = scale q k^T`, masked to `-inf` where a query
/// may not see a key.
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
        );
    }
    if !x.step.causal || keys.end <= queries.start + 1 {
        return;
    }
    // A tile across the diagonal: query `i` sees keys up to `i`.
    for (r, row) in out[..m * n].chunks_mut(n.max(1)).enumerate() {
        let seen = (queries.start + r + 1).saturating_sub(keys.start).min(n);
        row[seen..].fill(f32::NEG_INFINITY);
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
            let row = &mut tile[r * n..(r + 1) * n];
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
        exp_minus(&mut tile[r * n..(r + 1) * n], lse);
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
            );
        }
    }
}

/// The gradients of key rows `keys` (`dk = scale dS^T q`) and (or) of the
/// value rows (`dv = p^T dout`) over the query tiles that see them, the
/// weights computed once for both.
#[inline(always)]
fn key_grad_tile(
    x: &Problem,
    b: usize,
    keys: Range<usize>,
    mut dk: Option<&mut [f32]>,
    mut dv: Option<&mut [f32]>,
) {
    let step = x.step;
    let n = keys.len();
    // The query tiles seeing these keys are at most this tall.
    let tall = COLUMNS.min(step.t - first_query(step, &keys).min(step.t));
    let mut tile = vec![0f32; tall * n];
    let mut ds = vec![0f32; if dk.is_some() { tall * n } else { 0 }];
    for g in [dk.as_deref_mut(), dv.as_deref_mut()].into_iter().flatten() {
        g.fill(0.0);
    }
    let (qs, dout) = (&x.rows[0], &x.rows[3]);
    for start in (first_query(step, &keys)..step.t).step_by(COLUMNS) {
        let queries = start..(start + COLUMNS).min(step.t);
        let m = queries.len();
        let dscores = dk.is_some().then_some(ds.as_mut_slice());
        weights(x, b, (&queries, &keys), &mut tile, dscores);
        // `p^T` and `dS^T` read the `m x n` tiles column by column.
        if let Some(dv) = dv.as_deref_mut() {
            // SAFETY: the tile is `m x n` row-major, read transposed; the
            // output-gradient rows are inside their problem.
            unsafe {
                product(
                    (n, step.e, m),
                    (dv, true, 1.0),
                    (tile.as_ptr(), 1, n),
                    (dout.ptr(b, queries.start), dout.stride, 1),
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
                );
            }
        }
    }
}
