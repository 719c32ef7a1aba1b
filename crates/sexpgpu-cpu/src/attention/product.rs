//! The products of fused attention's tiles (`dst (+)= factor lhs rhs`,
//! each operand a pointer with row and column strides): through the
//! `gemm` crate, or, when the contracted length or the width is small
//! (heads 16 wide), our own loops summing blocks in registers and skipping
//! what a causal mask hides ([`Triangle`]).

use std::ops::Range;

/// `dst[m x n] (+)= factor * lhs[m x k] * rhs[k x n]`, each operand given
/// by a pointer and its row and column strides; accumulates when `add`.
/// The small products skip what `triangle` says no query sees.
///
/// # Safety
/// Every element the strides reach must be inside its allocation, and
/// `dst` exclusively this caller's.
pub(super) unsafe fn product(
    (m, n, k): (usize, usize, usize),
    (dst, add, factor): (&mut [f32], bool, f32),
    lhs: (*const f32, usize, usize),
    rhs: (*const f32, usize, usize),
    triangle: Triangle,
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
        return unsafe { small_product((m, n, k), (dst, add, factor), lhs, rhs, triangle) };
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
    triangle: Triangle,
) {
    let packed: Vec<f32>;
    let (b, b_stride) = if rhs.2 == 1 || n <= 1 {
        (rhs.0, rhs.1)
    } else {
        packed = pack_rows(rhs, k, n);
        (packed.as_ptr(), n)
    };
    let updates = RankOne {
        sizes: (m, n, k),
        factor,
        lhs,
        rhs: (b, b_stride),
        triangle,
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

/// The `k x n` matrix at `rhs` (a pointer, row and column strides) as
/// consecutive rows, read column by column: `k^T` and `v^T` are read
/// along their rows in memory.
///
/// # Safety
/// Every `(p, j)` of `rhs` must be inside its allocation.
unsafe fn pack_rows(rhs: (*const f32, usize, usize), k: usize, n: usize) -> Vec<f32> {
    let mut packed = vec![0f32; k * n];
    for j in 0..n {
        for p in 0..k {
            // SAFETY: as the caller vouches.
            packed[p * n + j] = unsafe { *rhs.0.add(p * rhs.1 + j * rhs.2) };
        }
    }
    packed
}

/// What of a causal tile's product a query cannot see, so that the small
/// products skip it (the `gemm` crate's products compute everything: the
/// skipped entries are never read, or are multiplied by zero weights).
#[derive(Clone, Copy)]
pub(super) enum Triangle {
    /// Nothing skipped.
    Full,
    /// Row `i` of the result needs only its columns `j < i + offset` (the
    /// scores of the keys query `i` sees); the rest are left as zeros.
    Columns(isize),
    /// Row `i` sums only over `p < i + offset`: the rest of its `lhs` row
    /// are zero weights (a query's products with the values or keys).
    Until(isize),
    /// Row `i` sums only over `p >= i + offset` (a key's products with the
    /// queries that see it).
    From(isize),
}

/// `i + offset` clamped to `0..=limit`.
fn shifted(i: usize, offset: isize, limit: usize) -> usize {
    (i as isize + offset).clamp(0, limit as isize) as usize
}

/// A small product's operands, `rhs` with consecutive columns.
struct RankOne {
    sizes: (usize, usize, usize),
    factor: f32,
    lhs: (*const f32, usize, usize),
    rhs: (*const f32, usize),
    triangle: Triangle,
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
        let last = row + R - 1;
        let contracted = match self.triangle {
            Triangle::Full => 0..k,
            // Every row of the block is past these columns: zeros.
            Triangle::Columns(offset) if column >= shifted(last, offset, n) => 0..0,
            Triangle::Columns(_) => 0..k,
            Triangle::Until(offset) => 0..shifted(last, offset, k),
            Triangle::From(offset) => shifted(row, offset, k)..k,
        };
        if contracted.is_empty() && add {
            return;
        }
        let mut sums = [[0f32; C]; R];
        for p in contracted {
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
            let (width, contracted) = match self.triangle {
                Triangle::Full => (row.len(), 0..k),
                Triangle::Columns(offset) => {
                    let end = shifted(i, offset, n).max(columns.start);
                    (end - columns.start, 0..k)
                }
                Triangle::Until(offset) => (row.len(), 0..shifted(i, offset, k)),
                Triangle::From(offset) => (row.len(), shifted(i, offset, k)..k),
            };
            let row = &mut row[..width];
            for p in contracted {
                // SAFETY: `(i, p)` of `lhs` and row `p` of `rhs` are inside
                // their allocations, as the caller vouches.
                let (a, b) = unsafe {
                    (
                        self.factor * *self.lhs.0.add(i * self.lhs.1 + p * self.lhs.2),
                        std::slice::from_raw_parts(
                            self.rhs.0.add(p * self.rhs.1 + columns.start),
                            width,
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
