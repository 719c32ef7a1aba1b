//! Our f32 GEMM for x86-64 machines with AVX2 and FMA but no AVX-512:
//! BLIS's loop order around a 6x16 register kernel. Operands are read
//! through arbitrary strides (transposed and broadcast operands are packed
//! straight from their views), packed into cache-sized panels (`B` in
//! `KC x NC` blocks kept in L3, `A` in `MC x KC` blocks kept in L2, one
//! `KC x 16` panel of `B` in L1 while every 6-row panel of `A` passes),
//! and multiplied by a kernel holding a 6x16 tile of the product in twelve
//! vector registers.
//!
//! Why not the `gemm` crate here: on AVX2 machines its f32 kernel (16x6,
//! the right operand broadcast through a stride) reached about half the
//! core's FMA peak where this kernel reaches about three quarters
//! (`benches/HISTORY.md`, "our own SGEMM on AVX2 machines"); on AVX-512 machines the
//! crate's 512-bit kernels stay in use (`usable` says which).

use std::cell::RefCell;

#[cfg(target_arch = "x86_64")]
use crate::simd;

/// Rows of the register tile (broadcast from the packed `A`).
const MR: usize = 6;
/// Columns of the register tile (two 8-lane vectors of the packed `B`).
const NR: usize = 16;
/// The depth of one packed block: a `KC x NR` panel of `B` (16 KiB) stays
/// in L1 while the kernel sweeps the `A` block.
const KC: usize = 256;
/// Rows of one packed block of `A` (`MC x KC`, 144 KiB: half an L2).
const MC: usize = 144;
/// Columns of one packed block of `B` (`KC x NC`, 2 MiB: a share of L3).
const NC: usize = 2048;

/// A strided f32 matrix: element `(i, j)` lives at `ptr + i*row + j*col`.
/// Strides may be 0 (a broadcast operand).
#[derive(Clone, Copy)]
pub(crate) struct Operand {
    pub ptr: *const f32,
    pub row: isize,
    pub col: isize,
}

impl Operand {
    /// The operand whose `(0, 0)` is this one's `(i, j)`.
    ///
    /// # Safety
    /// `(i, j)` must be inside the operand.
    unsafe fn at(self, i: usize, j: usize) -> Operand {
        Operand {
            // SAFETY: the caller keeps `(i, j)` inside the operand.
            ptr: unsafe {
                self.ptr
                    .offset(i as isize * self.row + j as isize * self.col)
            },
            ..self
        }
    }

    /// Element `(i, j)`.
    ///
    /// # Safety
    /// `(i, j)` must be inside the operand.
    unsafe fn get(self, i: usize, j: usize) -> f32 {
        // SAFETY: as for `at`.
        unsafe {
            *self
                .ptr
                .offset(i as isize * self.row + j as isize * self.col)
        }
    }
}

/// Whether this machine runs our kernel: x86-64 with AVX2 and FMA, and
/// either without AVX-512 or an AMD Zen 4 (`double_pumped_avx512`).
/// Other AVX-512 machines keep the `gemm` crate's wider kernels, which
/// have twice our kernel's peak where 512-bit FMAs run at full width.
pub(crate) fn usable() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static USABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *USABLE.get_or_init(|| {
            has_kernel()
                && (!std::arch::is_x86_feature_detected!("avx512f") || double_pumped_avx512())
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the CPU is an AMD Zen 4 (family 19h; Zen 3, the family's other
/// members, has no AVX-512), which runs each 512-bit FMA as two 256-bit
/// halves: the `gemm` crate's AVX-512 kernel then has no more peak than our
/// AVX2 one, and ours packs transposed operands faster (measured on a Zen 4
/// EPYC: a `[256, 1024] x [1024, 1024]^T` product 3.4 against 4.3 ms).
#[cfg(target_arch = "x86_64")]
fn double_pumped_avx512() -> bool {
    use std::arch::x86_64::__cpuid;
    // `cpuid` exists on every x86-64 CPU, with leaves 0 and 1 always.
    let (vendor, signature) = (__cpuid(0), __cpuid(1));
    let amd = (vendor.ebx, vendor.edx, vendor.ecx) == (0x6874_7541, 0x6974_6E65, 0x444D_4163);
    // The family: base 0xF plus the extended family bits.
    let base = (signature.eax >> 8) & 0xF;
    let family = if base == 0xF {
        base + ((signature.eax >> 20) & 0xFF)
    } else {
        base
    };
    amd && family == 0x19
}

/// Whether the CPU can run the 6x16 kernel at all (AVX2 and FMA).
pub(crate) fn has_kernel() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

thread_local! {
    /// Each thread's packing buffers (`A` block, `B` block), kept between
    /// calls: the kernel pool's threads live for the process.
    static PACKS: RefCell<(Vec<f32>, Vec<f32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// One product: `dst (m x n, row stride ldc) = a (m x k) b (k x n)`.
#[derive(Clone, Copy)]
pub(crate) struct Product {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: Operand,
    pub b: Operand,
    pub dst: *mut f32,
    pub ldc: usize,
}

/// `dst[i*ldc + j] = sum over p of a(i, p) * b(p, j)` for `i < m`, `j < n`
/// (`product`'s fields).
///
/// # Safety
/// `has_kernel()` must hold; `a` must be readable at every `(i, p)` with
/// `i < m`, `p < k` and `b` at every `(p, j)` with `p < k`, `j < n`; `dst`
/// must be valid for writes at every `i*ldc + j` and touched by no other
/// thread meanwhile.
pub(crate) unsafe fn sgemm(product: Product) {
    let Product {
        m, n, k, ldc, dst, ..
    } = product;
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        for i in 0..m {
            // SAFETY: row `i`'s `n` outputs are the caller's.
            unsafe { std::slice::from_raw_parts_mut(dst.add(i * ldc), n).fill(0.0) };
        }
        return;
    }
    PACKS.with(|packs| {
        // A nested call on this thread (none today) packs into its own
        // buffers rather than failing.
        let mut own = (Vec::new(), Vec::new());
        let mut borrowed = packs.try_borrow_mut();
        let (pack_a, pack_b) = match borrowed.as_deref_mut() {
            Ok(shared) => (&mut shared.0, &mut shared.1),
            Err(_) => (&mut own.0, &mut own.1),
        };
        // SAFETY: the caller's contract, passed on.
        unsafe { blocked(product, pack_a, pack_b) }
    })
}

/// The three outer loops: column blocks of `B`, depth blocks (packing `B`),
/// row blocks of `A` (packing `A`), each handed to `macro_kernel`.
///
/// # Safety
/// As for `sgemm`.
unsafe fn blocked(product: Product, pack_a: &mut Vec<f32>, pack_b: &mut Vec<f32>) {
    let Product {
        m,
        n,
        k,
        a,
        b,
        dst,
        ldc,
    } = product;
    // Depth blocks of equal size, so no block is a sliver.
    let depth_blocks = k.div_ceil(KC);
    let kc_max = k.div_ceil(depth_blocks);
    let pa = aligned(pack_a, MC.min(m.next_multiple_of(MR)) * kc_max);
    let pb = aligned(pack_b, NC.min(n.next_multiple_of(NR)) * kc_max);
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for block in 0..depth_blocks {
            let pc = block * kc_max;
            let kc = kc_max.min(k - pc);
            // SAFETY: rows `pc..pc + kc`, columns `jc..jc + nc` are inside `b`.
            unsafe { pack_b_block(b.at(pc, jc), kc, nc, pb) };
            for ic in (0..m).step_by(MC) {
                let mc = MC.min(m - ic);
                // SAFETY: rows `ic..ic + mc`, columns `pc..pc + kc` are inside `a`.
                unsafe { pack_a_block(a.at(ic, pc), mc, kc, pa) };
                let tile = Tile {
                    // SAFETY: `(ic, jc)` is inside the output.
                    dst: unsafe { dst.add(ic * ldc + jc) },
                    ldc,
                    accumulate: block > 0,
                };
                // SAFETY: the block's outputs are the caller's.
                unsafe { macro_kernel(mc, nc, kc, pa, pb, tile) };
            }
        }
    }
}

/// `len` floats of `buffer` starting at a 64-byte boundary, so the kernel's
/// vector loads never straddle a cache line.
fn aligned(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    const LANES: usize = 16;
    if buffer.len() < len + LANES {
        buffer.clear();
        buffer.resize(len + LANES, 0.0);
    }
    let skip = buffer.as_ptr().align_offset(64).min(LANES);
    &mut buffer[skip..skip + len]
}

/// Packs `kc x nc` of `b` into column panels of `NR`: panel `q` holds, for
/// each depth `p`, columns `q*NR..q*NR + NR` contiguous, zero past `nc`.
///
/// # Safety
/// `b` must be readable at every `(p, j)` with `p < kc`, `j < nc`;
/// `has_kernel()` must hold.
unsafe fn pack_b_block(b: Operand, kc: usize, nc: usize, out: &mut [f32]) {
    // SAFETY: the caller's contract, with `b` itself as depth x lanes.
    unsafe { pack_panels::<NR>(b, kc, nc, out) }
}

/// Packs `mc x kc` of `a` into row panels of `MR`: panel `q` holds, for
/// each depth `p`, rows `q*MR..q*MR + MR` contiguous, zero past `mc`.
///
/// # Safety
/// `a` must be readable at every `(i, p)` with `i < mc`, `p < kc`;
/// `has_kernel()` must hold.
unsafe fn pack_a_block(a: Operand, mc: usize, kc: usize, out: &mut [f32]) {
    let depth_by_rows = Operand {
        row: a.col,
        col: a.row,
        ..a
    };
    // SAFETY: the caller's contract, with `a` transposed to depth x lanes.
    unsafe { pack_panels::<MR>(depth_by_rows, kc, mc, out) }
}

/// Packs `depth x lanes` of `src` (element `(p, j)`: depth `p`, lane `j`)
/// into panels of `W` lanes: panel `q` holds, for each depth, lanes
/// `q*W..q*W + W` contiguous, zero past `lanes`. Three ways by layout:
/// lanes contiguous (a row of `B`, a column of a transposed `A`) copy; depth
/// contiguous (a row of `A`, a column of a transposed `B`) goes through 8x8
/// register transposes; anything else (a broadcast) walks element by
/// element.
///
/// # Safety
/// `src` must be readable at every `(p, j)` with `p < depth`, `j < lanes`;
/// `has_kernel()` must hold.
unsafe fn pack_panels<const W: usize>(src: Operand, depth: usize, lanes: usize, out: &mut [f32]) {
    for (q, panel) in out
        .chunks_exact_mut(depth * W)
        .take(lanes.div_ceil(W))
        .enumerate()
    {
        let j0 = q * W;
        let width = W.min(lanes - j0);
        if src.col == 1 {
            for (p, dst) in panel.as_chunks_mut::<W>().0.iter_mut().enumerate() {
                // SAFETY: `(p, j0 .. j0 + width)` is inside `src`.
                let from = unsafe { std::slice::from_raw_parts(src.at(p, j0).ptr, width) };
                copy_padded(from, dst);
            }
        } else if src.row == 1 && width == W {
            // SAFETY: the panel's lanes are inside `src` for every depth;
            // `has_kernel()` holds (the caller's contract).
            unsafe { pack_transposed::<W>(src, j0, depth, panel) };
        } else {
            for j in 0..W {
                for p in 0..depth {
                    // SAFETY: `(p, j0 + j)` is inside `src` when `j < width`.
                    panel[p * W + j] = if j < width {
                        unsafe { src.get(p, j0 + j) }
                    } else {
                        0.0
                    };
                }
            }
        }
    }
}

/// Copies `src` to the start of `dst` and zeroes the rest. A whole
/// panel row (`N` floats) is a fixed-size move the compiler inlines; a
/// `memmove` call per 6 or 16 floats cost an eighth of a product.
fn copy_padded<const N: usize>(src: &[f32], dst: &mut [f32; N]) {
    match <&[f32; N]>::try_from(src) {
        Ok(whole) => *dst = *whole,
        Err(_) => {
            dst[..src.len()].copy_from_slice(src);
            dst[src.len()..].fill(0.0);
        }
    }
}

/// Packs lanes `j0..j0 + W` of a depth-contiguous `src` (`src.row == 1`)
/// over `depth` into `panel` (depth-major): for each eight depths, the
/// lanes go in groups of eight through an 8x8 transpose (zero vectors fill
/// a group short of eight), and each depth's lanes are stored.
///
/// # Safety
/// AVX2 must be present; the lanes are inside `src` for every depth;
/// `panel` holds `depth * W` floats.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pack_transposed<const W: usize>(
    src: Operand,
    j0: usize,
    depth: usize,
    panel: &mut [f32],
) {
    use std::arch::x86_64::*;
    // SAFETY: each lane `j0 + j` is inside `src` (the caller's contract).
    let lanes: [*const f32; W] = std::array::from_fn(|j| unsafe { src.at(0, j0 + j).ptr });
    let whole = depth / 8 * 8;
    for p in (0..whole).step_by(8) {
        for group in (0..W).step_by(8) {
            let count = 8.min(W - group);
            let block = std::array::from_fn(|j| {
                if j < count {
                    // SAFETY: depths `p..p + 8` are inside each lane.
                    unsafe { _mm256_loadu_ps(lanes[group + j].add(p)) }
                } else {
                    _mm256_setzero_ps()
                }
            });
            for (d, values) in simd::transpose8(block).into_iter().enumerate() {
                let mut all = [0f32; 8];
                // SAFETY: `all` holds eight floats.
                unsafe { _mm256_storeu_ps(all.as_mut_ptr(), values) };
                let at = (p + d) * W + group;
                panel[at..at + count].copy_from_slice(&all[..count]);
            }
        }
    }
    for p in whole..depth {
        for (j, lane) in lanes.iter().enumerate() {
            // SAFETY: depth `p` is inside each lane.
            panel[p * W + j] = unsafe { *lane.add(p) };
        }
    }
}

/// Never called: `has_kernel()` is false off x86-64.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn pack_transposed<const W: usize>(_: Operand, _: usize, _: usize, _: &mut [f32]) {
    unreachable!("the AVX2 packing runs only on x86-64")
}

/// Where a macro kernel's block of the product goes.
#[derive(Clone, Copy)]
struct Tile {
    dst: *mut f32,
    ldc: usize,
    /// Add to the outputs (a later depth block) instead of storing them.
    accumulate: bool,
}

/// Multiplies a packed `mc x kc` block of `A` by a packed `kc x nc` block
/// of `B` into `tile`, one 6x16 register tile at a time; ragged edges go
/// through a scratch tile.
///
/// # Safety
/// `has_kernel()` must hold; `tile` must own `mc x nc` outputs.
unsafe fn macro_kernel(mc: usize, nc: usize, kc: usize, pa: &[f32], pb: &[f32], tile: Tile) {
    for (q, panel_b) in pb.chunks_exact(kc * NR).take(nc.div_ceil(NR)).enumerate() {
        let cols = NR.min(nc - q * NR);
        for (r, panel_a) in pa.chunks_exact(kc * MR).take(mc.div_ceil(MR)).enumerate() {
            let rows = MR.min(mc - r * MR);
            // SAFETY: `(r*MR, q*NR)` is inside the tile.
            let dst = unsafe { tile.dst.add(r * MR * tile.ldc + q * NR) };
            if rows == MR && cols == NR {
                // SAFETY: the full 6x16 tile at `dst` is the caller's.
                unsafe { kernel_6x16(kc, panel_a, panel_b, dst, tile.ldc, tile.accumulate) };
            } else {
                let mut scratch = [0f32; MR * NR];
                // SAFETY: `scratch` is a whole 6x16 tile with row stride NR.
                unsafe { kernel_6x16(kc, panel_a, panel_b, scratch.as_mut_ptr(), NR, false) };
                for i in 0..rows {
                    for j in 0..cols {
                        // SAFETY: `(i, j)` is inside the ragged tile.
                        let out = unsafe { &mut *dst.add(i * tile.ldc + j) };
                        let x = scratch[i * NR + j];
                        *out = if tile.accumulate { *out + x } else { x };
                    }
                }
            }
        }
    }
}

/// The register kernel: a 6x16 tile of the product over depth `kc`, from
/// an `MR`-row panel of `A` and an `NR`-column panel of `B`, stored to (or,
/// with `accumulate`, added to) `dst` with row stride `ldc`.
///
/// # Safety
/// AVX2 and FMA must be present; the panels must hold `kc` steps; `dst`
/// must own the 6x16 tile.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn kernel_6x16(
    kc: usize,
    pa: &[f32],
    pb: &[f32],
    dst: *mut f32,
    ldc: usize,
    accumulate: bool,
) {
    use std::arch::x86_64::*;
    let (pa, pb) = (&pa[..kc * MR], &pb[..kc * NR]);
    for i in 0..MR {
        // Fetch the tile's outputs while the depth loop runs: they are
        // written (or read back) only after it, and usually not cached.
        // SAFETY: the tile's rows are the caller's; prefetching reads nothing.
        unsafe {
            let row = dst.add(i * ldc) as *const i8;
            _mm_prefetch::<_MM_HINT_T0>(row);
            _mm_prefetch::<_MM_HINT_T0>(row.add(60));
        }
    }
    let mut acc = [[_mm256_setzero_ps(); 2]; MR];
    let step = |acc: &mut [[__m256; 2]; MR], a: &[f32], b: &[f32]| {
        // SAFETY: `b` holds 16 floats; AVX2 is present.
        let (b0, b1) = unsafe {
            (
                _mm256_loadu_ps(b.as_ptr()),
                _mm256_loadu_ps(b.as_ptr().add(8)),
            )
        };
        for (row, &x) in acc.iter_mut().zip(a) {
            let x = _mm256_set1_ps(x);
            row[0] = _mm256_fmadd_ps(x, b0, row[0]);
            row[1] = _mm256_fmadd_ps(x, b1, row[1]);
        }
    };
    // Four depths a step, so the loop's own work is amortised.
    let (a4, a_rest) = pa.as_chunks::<{ 4 * MR }>();
    let (b4, b_rest) = pb.as_chunks::<{ 4 * NR }>();
    for (a, b) in a4.iter().zip(b4) {
        // SAFETY: the next step's panels are inside or just past the
        // buffers; prefetching never faults.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(a.as_ptr().add(8 * MR) as *const i8) };
        for d in 0..4 {
            step(&mut acc, &a[d * MR..][..MR], &b[d * NR..][..NR]);
        }
    }
    for (a, b) in a_rest.chunks_exact(MR).zip(b_rest.chunks_exact(NR)) {
        step(&mut acc, a, b);
    }
    for (i, row) in acc.iter().enumerate() {
        // SAFETY: row `i`'s 16 outputs are the caller's.
        unsafe {
            let out = dst.add(i * ldc);
            let (mut lo, mut hi) = (row[0], row[1]);
            if accumulate {
                lo = _mm256_add_ps(lo, _mm256_loadu_ps(out));
                hi = _mm256_add_ps(hi, _mm256_loadu_ps(out.add(8)));
            }
            _mm256_storeu_ps(out, lo);
            _mm256_storeu_ps(out.add(8), hi);
        }
    }
}

/// Never called: `has_kernel()` is false off x86-64.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn kernel_6x16(_: usize, _: &[f32], _: &[f32], _: *mut f32, _: usize, _: bool) {
    unreachable!("the AVX2 kernel runs only on x86-64")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic value in `[-1, 1)` for index `i` (no RNG crate).
    fn value(i: usize, salt: usize) -> f32 {
        let h = (i.wrapping_mul(2654435761) ^ salt.wrapping_mul(40503)) % 2001;
        h as f32 / 1000.0 - 1.0
    }

    /// Multiplies an `m x k` by a `k x n` product stored with the given
    /// layouts (`true`: transposed in memory) through `sgemm`, and checks
    /// every element against an f64 dot product within f32 tolerance.
    fn check(m: usize, k: usize, n: usize, a_transposed: bool, b_transposed: bool) {
        if !has_kernel() {
            eprintln!("no AVX2/FMA on this machine: the kernel cannot run");
            return;
        }
        let a_data: Vec<f32> = (0..m * k).map(|i| value(i, 1)).collect();
        let b_data: Vec<f32> = (0..k * n).map(|i| value(i, 2)).collect();
        let (a_row, a_col) = if a_transposed { (1, m) } else { (k, 1) };
        let (b_row, b_col) = if b_transposed { (1, k) } else { (n, 1) };
        let a = Operand {
            ptr: a_data.as_ptr(),
            row: a_row as isize,
            col: a_col as isize,
        };
        let b = Operand {
            ptr: b_data.as_ptr(),
            row: b_row as isize,
            col: b_col as isize,
        };
        let ldc = n + 3;
        let mut out = vec![f32::NAN; m * ldc];
        // SAFETY: AVX2 and FMA are present; the operands and `out` cover
        // the problem.
        unsafe {
            sgemm(Product {
                m,
                n,
                k,
                a,
                b,
                dst: out.as_mut_ptr(),
                ldc,
            })
        };
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..k)
                    .map(|p| {
                        f64::from(a_data[i * a_row + p * a_col])
                            * f64::from(b_data[p * b_row + j * b_col])
                    })
                    .sum();
                let got = out[i * ldc + j];
                let tolerance = 1e-5 * (k as f64).max(1.0);
                assert!(
                    (f64::from(got) - want).abs() <= tolerance,
                    "{m}x{k}x{n} ({a_transposed}, {b_transposed}) at ({i}, {j}): {got} against {want}"
                );
            }
            // The padding after each row is never written.
            assert!(out[i * ldc + n..(i + 1) * ldc].iter().all(|x| x.is_nan()));
        }
    }

    #[test]
    fn whole_tiles_match_f64() {
        check(12, 64, 32, false, false);
        check(144, 256, 2048 / 16, false, false);
    }

    #[test]
    fn ragged_edges_match_f64() {
        for &(m, k, n) in &[(1, 1, 1), (5, 3, 17), (7, 9, 15), (13, 33, 31), (6, 1, 16)] {
            check(m, k, n, false, false);
        }
    }

    #[test]
    fn transposed_operands_match_f64() {
        for &(at, bt) in &[(true, false), (false, true), (true, true)] {
            check(19, 70, 37, at, bt);
        }
    }

    #[test]
    fn several_blocks_in_every_direction_match_f64() {
        // k > KC (accumulating depth blocks), m > MC, n > NC.
        check(MC + 7, KC * 2 + 5, 40, false, true);
        check(8, 20, NC + 21, true, false);
    }

    #[test]
    fn broadcast_operand_and_empty_depth() {
        if !has_kernel() {
            return;
        }
        // A row broadcast down all rows (row stride 0).
        let row: Vec<f32> = (0..10).map(|i| i as f32).collect();
        let ones = vec![1f32; 10 * 17];
        let a = Operand {
            ptr: row.as_ptr(),
            row: 0,
            col: 1,
        };
        let b = Operand {
            ptr: ones.as_ptr(),
            row: 17,
            col: 1,
        };
        let mut out = vec![0f32; 9 * 17];
        // SAFETY: as in `check`.
        unsafe {
            sgemm(Product {
                m: 9,
                n: 17,
                k: 10,
                a,
                b,
                dst: out.as_mut_ptr(),
                ldc: 17,
            })
        };
        assert!(out.iter().all(|&x| x == 45.0));
        let mut out = vec![1f32; 4];
        // SAFETY: k = 0 reads no operand.
        unsafe {
            sgemm(Product {
                m: 2,
                n: 2,
                k: 0,
                a,
                b,
                dst: out.as_mut_ptr(),
                ldc: 2,
            })
        };
        assert_eq!(out, [0.0; 4]);
    }
}
