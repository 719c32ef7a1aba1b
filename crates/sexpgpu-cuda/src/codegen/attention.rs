//! Fused attention's kernels (`docs/sexpgpu/cuda.md`, "Fused attention"),
//! FlashAttention-2's layout: a block takes a problem's block of rows and
//! walks the other side's tiles through shared memory, so the `[t, s]`
//! scores are never stored. Every part is one two-sided product: the
//! block's rows (queries for the output, the log-sum-exp and the gradient
//! of `q`; keys for the gradients of `k` and `v`) meet each column tile
//! in a score product `X_rows X_cols^T` (and, for the gradients of `q`
//! and `k`, `Y_rows Y_cols^T`, the weights' gradient), the scores become
//! weights (an online softmax, or `exp(score - lse)` from the forward
//! pass's statistic), and the weights multiply a column tile into the
//! block's accumulators. A kernel may also compute its part's partner
//! from the same tiles (the log-sum-exp beside the output, the values'
//! gradient beside the keys'), stored through a side output. A step whose
//! parts need both sides (the gradient of `q` beside those of `k` and
//! `v`, `Attention::partners`) is two kernels, one a side. Each output
//! element is written by one thread, once, without atomics. bf16 products run on the tensor cores
//! (`mma.m16n8k16`), f32 ones on the CUDA cores in the same fragment
//! layout (`prelude::ATTENTION`); widths over [`MAX_TILED_WIDTH`] take a
//! general kernel, a warp per row.

use std::fmt::Write;

use sexpgpu_compile::Attention;
use sexpgpu_graph::{AttentionPart, DType};

use super::c::{self, Index};
use super::indexing::Part;
use super::{GenError, Param, Shape};

/// Rows a warp owns: the height of the tensor cores' tile.
const WARP_ROWS: usize = 16;
/// The widest `d` or `e` (rounded up to 16) the tiled kernels hold in
/// shared memory and registers; wider problems take the general kernel.
const MAX_TILED_WIDTH: usize = 128;
/// The static shared memory a block may declare.
const SHARED_LIMIT: usize = 48 * 1024;
/// The tiled layouts, `(warps, columns a tile)`, largest first: the first
/// whose tiles fit [`SHARED_LIMIT`] is taken (bf16 with `d = 64`, GPT-2's
/// heads, takes the first for every part).
const LAYOUTS: [(usize, usize); 4] = [(4, 64), (4, 32), (2, 32), (1, 16)];
/// Warps a block of the general kernel, one row each.
const GENERAL_WARPS: usize = 8;
/// Output columns a lane of the general kernel holds in a pass.
const GENERAL_COLUMNS: usize = 8;

/// Which of the two column tiles the weights multiply.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tile {
    X,
    Y,
}

/// The weights a product takes: the online softmax's, `p = exp(score -
/// lse)`, or the scores' gradient `p (dp - delta)`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Weight {
    Softmax,
    P,
    Ds,
}

/// One result the block accumulates: `weights * tile` into `dest` (`out`
/// or the side output), `width` wide, times the scale for the gradients
/// of `q` and `k`.
#[derive(Clone, Copy)]
struct Product {
    tile: Tile,
    weight: Weight,
    dest: &'static str,
    width: usize,
    scaled: bool,
}

/// The parts' operands in the two-sided product: rows and columns are
/// queries and keys (or keys and queries), `X` tiles are `d` wide (`q`,
/// `k`), `Y` tiles `e` wide (`v`, `dout`); what the block accumulates,
/// and where the log-sum-exp goes when it is a result.
struct Roles {
    /// Rows are keys (the gradients of `k` and `v`).
    key_side: bool,
    rows_x: usize,
    rows_y: Option<usize>,
    cols_x: usize,
    cols_y: Option<usize>,
    products: Vec<Product>,
    lse: Option<&'static str>,
}

impl Roles {
    /// The roles of `part`, and of `also` computed in the same pass (the
    /// log-sum-exp beside the output, the values' gradient beside the
    /// keys').
    fn of(step: &Attention) -> Result<Roles, GenError> {
        let (d, e) = (step.d, step.e);
        let product = |tile, weight, dest, scaled| Product {
            tile,
            weight,
            dest,
            width: if tile == Tile::X { d } else { e },
            scaled,
        };
        use AttentionPart::{Grad, LogSumExp, Output};
        let roles = match (step.part, step.also.first().copied()) {
            (Output, also @ (None | Some(LogSumExp))) => Roles {
                key_side: false,
                rows_x: 0,
                rows_y: None,
                cols_x: 1,
                cols_y: Some(2),
                products: vec![product(Tile::Y, Weight::Softmax, "out", false)],
                lse: also.map(|_| "side0"),
            },
            (LogSumExp, None) => Roles {
                key_side: false,
                rows_x: 0,
                rows_y: None,
                cols_x: 1,
                cols_y: None,
                products: Vec::new(),
                lse: Some("out"),
            },
            (Grad(0), None) => Roles {
                key_side: false,
                rows_x: 0,
                rows_y: Some(3),
                cols_x: 1,
                cols_y: Some(2),
                products: vec![product(Tile::X, Weight::Ds, "out", true)],
                lse: None,
            },
            (Grad(1), also @ (None | Some(Grad(2)))) => {
                let mut products = vec![product(Tile::X, Weight::Ds, "out", true)];
                if also.is_some() {
                    products.push(product(Tile::Y, Weight::P, "side0", false));
                }
                Roles {
                    key_side: true,
                    rows_x: 1,
                    rows_y: Some(2),
                    cols_x: 0,
                    cols_y: Some(3),
                    products,
                    lse: None,
                }
            }
            (Grad(2), None) => Roles {
                key_side: true,
                rows_x: 1,
                rows_y: None,
                cols_x: 0,
                cols_y: Some(3),
                products: vec![product(Tile::Y, Weight::P, "out", false)],
                lse: None,
            },
            (part, also) => {
                return Err(GenError::new(format!(
                    "{}: cannot also compute {also:?} in one pass",
                    part.name()
                )))
            }
        };
        Ok(roles)
    }
}

/// Everything the two kernel shapes share: the step, its dtype and roles,
/// the sizes of each side and the index type.
struct Gen<'a> {
    step: &'a Attention,
    dtype: DType,
    roles: Roles,
    /// Rows of the block's side and of the column side.
    nr: usize,
    nc: usize,
    ix: Index,
}

/// The kernels of one attention step writing `out_dtype`: `(kind, text,
/// parameters, launch shape)`, one for the parts each side computes
/// ([`kernel_steps`]); none when there is nothing to write.
pub fn generate(
    step: &Attention,
    out_dtype: DType,
    dtype_of: impl Fn(usize) -> DType,
) -> Result<Vec<Part>, GenError> {
    let mut kernels = Vec::new();
    for (kernel, slots) in kernel_steps(step) {
        let dtype = if kernel.part == step.part {
            out_dtype
        } else {
            Gen::dtype_of_part(kernel.part, dtype_of(0))
        };
        for (kind, body, params, shape) in generate_kernel(&kernel, dtype, &dtype_of)? {
            // The kernel's output and side output are the step's `slots`.
            let params = params
                .into_iter()
                .map(|p| match p {
                    Param::Out => slots[0],
                    Param::Side(i) => slots[i + 1],
                    p => p,
                })
                .collect();
            kernels.push((kind, body, params, shape));
        }
    }
    Ok(kernels)
}

/// The step split into the kernels that compute it: the parts of each
/// side (the output and the log-sum-exp; the gradient of `q`; those of
/// `k` and `v`) as a step of one part and at most one partner, with the
/// step's parameters (`Param::Out`, `Param::Side(i)`) its results go to.
fn kernel_steps(step: &Attention) -> Vec<(Attention, Vec<Param>)> {
    use AttentionPart::{Grad, LogSumExp, Output};
    let slots: Vec<(AttentionPart, Param)> = step
        .parts()
        .enumerate()
        .map(|(i, part)| {
            (
                part,
                if i == 0 {
                    Param::Out
                } else {
                    Param::Side(i - 1)
                },
            )
        })
        .collect();
    let sides: [&[AttentionPart]; 3] = [&[Output, LogSumExp], &[Grad(0)], &[Grad(1), Grad(2)]];
    let mut kernels = Vec::new();
    for side in sides {
        let mine: Vec<(AttentionPart, Param)> = slots
            .iter()
            .filter(|(part, _)| side.contains(part))
            .copied()
            .collect();
        let Some(&(part, _)) = mine.first() else {
            continue;
        };
        let kernel = Attention {
            part,
            also: mine[1..].iter().map(|&(p, _)| p).collect(),
            side: Vec::new(),
            ..step.clone()
        };
        kernels.push((kernel, mine.iter().map(|&(_, slot)| slot).collect()));
    }
    kernels
}

/// The kernel of a step of one side's parts ([`kernel_steps`]).
fn generate_kernel(
    step: &Attention,
    out_dtype: DType,
    dtype_of: impl Fn(usize) -> DType,
) -> Result<Vec<Part>, GenError> {
    let g = Gen::new(step, out_dtype, dtype_of)?;
    let results: usize = g.roles.products.iter().map(|p| p.width).sum::<usize>()
        + usize::from(g.roles.lse.is_some());
    if step.problems() * g.nr * results == 0 {
        return Ok(Vec::new());
    }
    let (body, params, shape) = match g.tiled_layout() {
        Some(layout) => g.tiled(&layout),
        None => g.general(),
    };
    Ok(vec![(step.part.name(), body, params, shape)])
}

/// A tiled kernel's sizes: its warps and column tile, the padded widths
/// of the `X` and `Y` tiles and their rows' strides in shared memory.
struct Layout {
    warps: usize,
    cols: usize,
    xp: usize,
    yp: usize,
    xs: usize,
    ys: usize,
}

impl Layout {
    fn rows(&self) -> usize {
        self.warps * WARP_ROWS
    }

    fn threads(&self) -> usize {
        self.warps * 32
    }

    /// The padded width and shared row stride of a tile.
    fn tile(&self, tile: Tile) -> (usize, usize) {
        match tile {
            Tile::X => (self.xp, self.xs),
            Tile::Y => (self.yp, self.ys),
        }
    }
}

fn round16(x: usize) -> usize {
    x.div_ceil(16) * 16
}

/// The tile (`X`, `d` wide, or `Y`, `e` wide) operand `k` is read into.
fn tile_of(k: usize) -> Tile {
    if k < 2 {
        Tile::X
    } else {
        Tile::Y
    }
}

impl<'a> Gen<'a> {
    /// Checks the operands' dtypes (q k v dout alike, f32 or bf16; lse and
    /// delta f32) and the output's.
    fn new(
        step: &'a Attention,
        out_dtype: DType,
        dtype_of: impl Fn(usize) -> DType,
    ) -> Result<Gen<'a>, GenError> {
        let name = step.part.name();
        if step.operands.len() != step.part.arity() {
            return Err(GenError::new(format!("{name}: wrong operand count")));
        }
        let dtype = dtype_of(0);
        if !matches!(dtype, DType::F32 | DType::BF16) {
            return Err(GenError::new(format!(
                "{name}: expects f32 or bf16 operands, got {dtype}"
            )));
        }
        for k in 1..step.operands.len() {
            let want = if k < 4 { dtype } else { DType::F32 };
            if dtype_of(k) != want {
                return Err(GenError::new(format!(
                    "{name}: operand {k} is {}, expected {want}",
                    dtype_of(k)
                )));
            }
        }
        let want_out = Gen::dtype_of_part(step.part, dtype);
        if out_dtype != want_out {
            return Err(GenError::new(format!(
                "{name}: writes {out_dtype}, expected {want_out}"
            )));
        }
        let roles = Roles::of(step)?;
        let (nr, nc) = if roles.key_side {
            (step.s, step.t)
        } else {
            (step.t, step.s)
        };
        let widest = roles.products.iter().map(|p| p.width).max().unwrap_or(1);
        let extents = step.operands.iter().map(|(_, v)| v.extent());
        let largest = extents
            .chain([step.problems() * nr * widest.max(1)])
            .max()
            .unwrap_or(0);
        Ok(Gen {
            step,
            dtype,
            roles,
            nr,
            nc,
            ix: Index::for_extent(largest + 1),
        })
    }

    /// The dtype a part writes: f32 for the log-sum-exp, else the operands'.
    fn dtype_of_part(part: AttentionPart, dtype: DType) -> DType {
        if part == AttentionPart::LogSumExp {
            DType::F32
        } else {
            dtype
        }
    }

    /// The C type of q, k, v and dout's elements.
    fn storage(&self) -> &'static str {
        c::storage(self.dtype)
    }

    /// Bytes of one q, k, v or dout element.
    fn element_bytes(&self) -> usize {
        if self.dtype == DType::BF16 {
            2
        } else {
            4
        }
    }

    fn grad(&self) -> bool {
        matches!(self.step.part, AttentionPart::Grad(_))
    }

    /// Whether the scores' gradient (`dp = dout v^T`) is computed: the
    /// gradients of `q` and `k`.
    fn with_dp(&self) -> bool {
        self.roles.products.iter().any(|p| p.weight == Weight::Ds)
    }

    /// The operands the kernel reads, in order.
    fn used(&self) -> Vec<usize> {
        let r = &self.roles;
        let mut used = vec![r.rows_x, r.cols_x];
        used.extend(r.rows_y);
        used.extend(r.cols_y);
        if self.grad() {
            used.push(4);
            if self.with_dp() {
                used.push(5);
            }
        }
        used.sort_unstable();
        used.dedup();
        used
    }

    /// The kernel's parameter list and the runtime arguments it takes:
    /// the output, the partner's side output, the operands read.
    fn params(&self) -> (String, Vec<Param>) {
        let out_dtype = Gen::dtype_of_part(self.step.part, self.dtype);
        let mut text = vec![c::ptr_param(out_dtype, "out", true)];
        let mut order = vec![Param::Out];
        if let Some(&also) = self.step.also.first() {
            let dtype = Gen::dtype_of_part(also, self.dtype);
            text.push(c::ptr_param(dtype, "side0", true));
            order.push(Param::Side(0));
        }
        for k in self.used() {
            let dtype = if k < 4 { self.dtype } else { DType::F32 };
            text.push(c::ptr_param(dtype, &format!("in{k}"), false));
            order.push(Param::Input(k));
        }
        (text.join(", "), order)
    }

    /// The column tile's operand of a product.
    fn operand_of(&self, tile: Tile) -> usize {
        match tile {
            Tile::X => self.roles.cols_x,
            Tile::Y => self.roles.cols_y.unwrap_or(self.roles.cols_x),
        }
    }

    /// The scale as an exact f32 literal (the CPU multiplies in f32).
    fn scale(&self) -> String {
        c::f32_lit(self.step.scale as f32)
    }

    /// `const IX baseK = ...;` for every operand read: where problem `b`'s
    /// rows start (`Attention::problem_offset`, as arithmetic on `b`).
    fn bases(&self) -> String {
        let ix = self.ix;
        let mut s = String::new();
        for k in self.used() {
            let view = &self.step.operands[k].1;
            let mut terms = vec![ix.lit(view.offset)];
            let mut inner = 1usize;
            for (axis, &dim) in self.step.batch.iter().enumerate().rev() {
                let stride = view.strides[axis];
                if dim > 1 && stride != 0 {
                    terms.push(format!(
                        "(b / {} % {}) * {}",
                        ix.lit(inner),
                        ix.lit(dim),
                        ix.lit(stride)
                    ));
                }
                inner *= dim;
            }
            let _ = writeln!(s, "  const {} base{k} = {};", ix.ty(), terms.join(" + "));
        }
        s
    }

    /// Where row `at` of operand `k` starts, as an index expression.
    fn row_of(&self, k: usize, at: &str) -> String {
        let ty = self.ix.ty();
        let stride = self.ix.lit(self.step.row_stride(k));
        format!("base{k} + ({ty})({at}) * {stride}")
    }

    /// Elements moved by one 16-byte load of operand `k`: every row of
    /// every problem must start on a 16-byte boundary (buffers are 256-byte
    /// aligned), else 1.
    fn vector(&self, k: usize) -> usize {
        let lanes = 16 / self.element_bytes();
        let view = &self.step.operands[k].1;
        let batch_ok = self
            .step
            .batch
            .iter()
            .enumerate()
            .all(|(axis, &dim)| dim <= 1 || view.strides[axis].is_multiple_of(lanes));
        let rows_ok =
            self.step.operand_size(k).0 <= 1 || self.step.row_stride(k).is_multiple_of(lanes);
        let width = self.step.operand_size(k).1;
        let aligned = width.is_multiple_of(lanes) && view.offset.is_multiple_of(lanes);
        if width > 0 && aligned && batch_ok && rows_ok {
            lanes
        } else {
            1
        }
    }

    /// Whether row `r` sees column `c` under the causal mask (query `i`
    /// sees key `j <= i`).
    fn visible(&self) -> &'static str {
        match (self.step.causal, self.roles.key_side) {
            (false, _) => "true",
            (true, false) => "c <= r",
            (true, true) => "c >= r",
        }
    }

    /// The first tiled layout whose shared memory fits, or none when a
    /// width is too large for the tiles.
    fn tiled_layout(&self) -> Option<Layout> {
        let (xp, yp) = (round16(self.step.d), round16(self.step.e));
        let uses_y = self.roles.cols_y.is_some();
        if xp > MAX_TILED_WIDTH || (uses_y && yp > MAX_TILED_WIDTH) {
            return None;
        }
        let pad = if self.dtype == DType::BF16 { 8 } else { 4 };
        LAYOUTS.iter().find_map(|&(warps, cols)| {
            let layout = Layout {
                warps,
                cols,
                xp,
                yp,
                xs: xp + pad,
                ys: yp + pad,
            };
            let bytes: usize = self.regions(&layout).iter().map(|r| r.1).sum();
            (bytes <= SHARED_LIMIT).then_some(layout)
        })
    }

    /// The shared-memory regions of a tiled layout: name, bytes (a
    /// multiple of 16) and element type. Rows are padded (by 16 bytes
    /// for bf16) so that the 8 rows a fragment load reads fall in
    /// different banks.
    fn regions(&self, l: &Layout) -> Vec<(&'static str, usize, &'static str)> {
        let el = self.element_bytes();
        let bytes = |n: usize, size: usize| (n * size).div_ceil(16) * 16;
        let stride = |k: usize| l.tile(tile_of(k)).1;
        let r = &self.roles;
        let st = self.storage();
        let mut out = vec![("sx_rx", bytes(l.rows() * stride(r.rows_x), el), st)];
        if let Some(k) = r.rows_y {
            out.push(("sx_ry", bytes(l.rows() * stride(k), el), st));
        }
        out.push(("sx_cx", bytes(l.cols * stride(r.cols_x), el), st));
        if let Some(k) = r.cols_y {
            out.push(("sx_cy", bytes(l.cols * stride(k), el), st));
        }
        if self.dtype == DType::F32 && !r.products.is_empty() {
            out.push(("sx_scratch", bytes(l.rows() * (l.cols + 4), 4), "float"));
        }
        if r.key_side {
            out.push(("sx_cstat", bytes(2 * l.cols, 4), "float"));
        }
        out
    }

    /// A tiled kernel: its text, parameters and launch shape.
    fn tiled(&self, l: &Layout) -> (String, Vec<Param>, Shape) {
        let (params, order) = self.params();
        let blocks = self.step.problems() * self.nr.div_ceil(l.rows());
        let mut s = format!(
            "extern \"C\" __global__ void __launch_bounds__({}) KERNEL({params}) {{\n",
            l.threads()
        );
        s.push_str(&self.tiled_setup(l));
        s.push_str(&self.tiled_column_loop(l));
        s.push_str(&self.tiled_finish(l));
        s.push_str("}\n");
        let shape = Shape::Blocks {
            n: blocks,
            threads: l.threads() as u32,
        };
        (s, order, shape)
    }

    /// The block's problem and rows, its shared tiles, its rows' tiles
    /// loaded, its rows' statistics and the empty accumulators.
    fn tiled_setup(&self, l: &Layout) -> String {
        let ty = self.ix.ty();
        let mut s = String::new();
        let regions = self.regions(l);
        let total: usize = regions.iter().map(|r| r.1).sum();
        let _ = writeln!(s, "  __shared__ sx_v16 sx_smem[{}];", total / 16);
        let mut at = 0;
        for (name, bytes, el) in &regions {
            let _ = writeln!(
                s,
                "  {el}* const {name} = reinterpret_cast<{el}*>(sx_smem + {});",
                at / 16
            );
            at += bytes;
        }
        let row_blocks = self.nr.div_ceil(l.rows());
        s.push_str("  const unsigned warp = threadIdx.x / 32u, lane = threadIdx.x % 32u;\n");
        s.push_str("  const unsigned g = lane / 4u, q = lane % 4u;\n");
        let _ = writeln!(s, "  const {ty} b = blockIdx.x / {row_blocks}u;");
        let _ = writeln!(
            s,
            "  const unsigned r0 = blockIdx.x % {row_blocks}u * {}u;",
            l.rows()
        );
        s.push_str("  const unsigned ra = r0 + warp * 16u + g, rb = ra + 8u;\n");
        s.push_str(&self.bases());
        let r = &self.roles;
        s.push_str(&self.load_tile(l, "sx_rx", r.rows_x, l.rows(), "r0"));
        if let Some(k) = r.rows_y {
            s.push_str(&self.load_tile(l, "sx_ry", k, l.rows(), "r0"));
        }
        if self.grad() && !r.key_side {
            let stat = |k: usize, row: &str| {
                format!(
                    "{row} < {}u ? in{k}[{}] : 0.f",
                    self.nr,
                    self.row_of(k, row)
                )
            };
            let _ = writeln!(
                s,
                "  const float lse_a = {}, lse_b = {};",
                stat(4, "ra"),
                stat(4, "rb")
            );
            if self.with_dp() {
                let _ = writeln!(
                    s,
                    "  const float delta_a = {}, delta_b = {};",
                    stat(5, "ra"),
                    stat(5, "rb")
                );
            }
        }
        for (i, p) in r.products.iter().enumerate() {
            let wp = l.tile(p.tile).0;
            let _ = writeln!(s, "  float acc{i}[{}][4] = {{}};", (wp / 8).max(1));
        }
        if !self.grad() {
            s.push_str("  float m_a = SX_NEG_INF, m_b = SX_NEG_INF, l_a = 0.f, l_b = 0.f;\n");
        }
        s
    }

    /// Statements copying rows `first..first + rows` of operand `k` into
    /// the shared tile `name`, zeros past the operand's rows and width
    /// (so padding adds nothing to any product), 16 bytes a load when
    /// the operand's rows are aligned.
    fn load_tile(&self, l: &Layout, name: &str, k: usize, rows: usize, first: &str) -> String {
        let v = self.vector(k);
        let (wp, ss) = l.tile(tile_of(k));
        let per_row = wp / v;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "  for (unsigned x = threadIdx.x; x < {}u; x += {}u) {{",
            rows * per_row,
            l.threads()
        );
        let _ = writeln!(
            s,
            "    const unsigned r = x / {per_row}u, c = x % {per_row}u * {v}u;"
        );
        let _ = writeln!(s, "    {}* d = {name} + r * {ss}u + c;", self.storage());
        let src = format!("in{k} + {} + c", self.row_of(k, &format!("{first} + r")));
        let (rows, width) = self.step.operand_size(k);
        let _ = writeln!(s, "    if ({first} + r < {rows}u && c < {width}u) {{");
        if v > 1 {
            let _ = writeln!(s, "      sx_vcopy<sx_v16>(d, {src});");
            s.push_str("    } else {\n");
            s.push_str("      *reinterpret_cast<sx_v16*>(d) = sx_v16{0u, 0u, 0u, 0u};\n");
        } else {
            let _ = writeln!(s, "      *d = *({src});");
            s.push_str("    } else {\n      *d = 0;\n");
        }
        s.push_str("    }\n  }\n");
        s
    }

    /// The walk over the column tiles the block's rows see: causal
    /// attention skips the tiles wholly above the diagonal (keys after
    /// the block's last query; queries before its first key) and masks
    /// only the tiles that cross it (or pass the last column).
    fn tiled_column_loop(&self, l: &Layout) -> String {
        let (rows, cols, nc) = (l.rows(), l.cols, self.nc);
        let mut s = String::new();
        let (start, end, crosses) = match (self.step.causal, self.roles.key_side) {
            (false, _) => ("0u".to_string(), format!("{nc}u"), String::new()),
            (true, false) => (
                "0u".to_string(),
                format!("(r0 + {rows}u < {nc}u ? r0 + {rows}u : {nc}u)"),
                " || c0 + {cols}u > r0 + 1u".replace("{cols}", &cols.to_string()),
            ),
            (true, true) => (
                format!("r0 / {cols}u * {cols}u"),
                format!("{nc}u"),
                format!(" || c0 < r0 + {}u", rows - 1),
            ),
        };
        let _ = writeln!(s, "  const unsigned c_end = {end};");
        let _ = writeln!(
            s,
            "  for (unsigned c0 = {start}; c0 < c_end; c0 += {cols}u) {{"
        );
        s.push_str("    __syncthreads();\n");
        let r = &self.roles;
        let indent = |t: String| t.lines().map(|x| format!("  {x}\n")).collect::<String>();
        s.push_str(&indent(self.load_tile(l, "sx_cx", r.cols_x, cols, "c0")));
        if let Some(k) = r.cols_y {
            s.push_str(&indent(self.load_tile(l, "sx_cy", k, cols, "c0")));
        }
        if r.key_side {
            s.push_str(&self.column_stats(l));
        }
        s.push_str("    __syncthreads();\n");
        let _ = writeln!(s, "    const bool edge = c0 + {cols}u > {nc}u{crosses};");
        s.push_str(&self.products(l));
        if self.grad() {
            s.push_str(&self.grad_weights(l));
        } else {
            s.push_str(&self.online_softmax(l));
        }
        for (i, p) in r.products.iter().enumerate() {
            let (wp, ms) = l.tile(p.tile);
            let tile = if p.tile == Tile::X { "sx_cx" } else { "sx_cy" };
            let weights = if p.weight == Weight::Ds { "dp" } else { "s" };
            let scratch = if self.dtype == DType::F32 {
                format!("sx_scratch + warp * {}u", WARP_ROWS * (cols + 4))
            } else {
                "nullptr".to_string()
            };
            let _ = writeln!(
                s,
                "    sx_att_pn<{cols}, {wp}, {ms}>(acc{i}, {weights}, {tile}, {scratch}, g, q);"
            );
        }
        s.push_str("  }\n");
        s
    }

    /// The key-side gradients' per-query statistics of the column tile:
    /// `lse` (and `delta`) into shared memory.
    fn column_stats(&self, l: &Layout) -> String {
        let cols = l.cols;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "    for (unsigned x = threadIdx.x; x < {cols}u; x += {}u) {{",
            l.threads()
        );
        s.push_str("      const unsigned c = c0 + x;\n");
        let read = |k: usize| format!("c < {}u ? in{k}[{}] : 0.f", self.nc, self.row_of(k, "c"));
        let _ = writeln!(s, "      sx_cstat[x] = {};", read(4));
        if self.with_dp() {
            let _ = writeln!(s, "      sx_cstat[{cols}u + x] = {};", read(5));
        }
        s.push_str("    }\n");
        s
    }

    /// The warp's scores `s` (and the scores' gradients `dp`) for its 16
    /// rows by the tile's columns.
    fn products(&self, l: &Layout) -> String {
        let cols = l.cols;
        let (kx, ky) = if self.dtype == DType::BF16 {
            (l.xp, l.yp)
        } else {
            (self.step.d, self.step.e)
        };
        let mut s = String::new();
        let _ = writeln!(s, "    float s[{}][4] = {{}};", cols / 8);
        let _ = writeln!(
            s,
            "    sx_att_nt<{kx}, {cols}, {xs}, {xs}>(s, sx_rx + warp * {}u, sx_cx, g, q);",
            WARP_ROWS * l.xs,
            xs = l.xs
        );
        if self.with_dp() {
            let _ = writeln!(s, "    float dp[{}][4] = {{}};", cols / 8);
            let _ = writeln!(
                s,
                "    sx_att_nt<{ky}, {cols}, {ys}, {ys}>(dp, sx_ry + warp * {}u, sx_cy, g, q);",
                WARP_ROWS * l.ys,
                ys = l.ys
            );
        }
        s
    }

    /// `s` becomes the online softmax's weights: scaled and masked scores,
    /// each row's running maximum over its quad, the earlier sums and
    /// accumulators shrunk by `exp(old - new)` (a row that has seen no key
    /// yet keeps 0 and never computes `-inf - -inf`).
    fn online_softmax(&self, l: &Layout) -> String {
        let mut s = String::from("    float top_a = m_a, top_b = m_b;\n");
        let mask = format!(
            "s[n][i] = (!edge || (c < {}u && {})) ? s[n][i] * {} : SX_NEG_INF;",
            self.nc,
            self.visible(),
            self.scale()
        );
        let after = "      top_a = fmaxf(top_a, fmaxf(s[n][0], s[n][1]));\n      top_b = fmaxf(top_b, fmaxf(s[n][2], s[n][3]));\n";
        s.push_str(&self.each_score(l, &mask, after));
        s.push_str("    top_a = sx_quad_max(top_a);\n    top_b = sx_quad_max(top_b);\n");
        s.push_str("    const float base_a = top_a == SX_NEG_INF ? 0.f : top_a;\n");
        s.push_str("    const float base_b = top_b == SX_NEG_INF ? 0.f : top_b;\n");
        s.push_str(
            "    const float shrink_a = expf(m_a - base_a), shrink_b = expf(m_b - base_b);\n",
        );
        s.push_str("    m_a = top_a;\n    m_b = top_b;\n    float sum_a = 0.f, sum_b = 0.f;\n");
        let _ = writeln!(
            s,
            "#pragma unroll\n    for (int n = 0; n < {}; ++n) {{",
            l.cols / 8
        );
        s.push_str(
            "      s[n][0] = expf(s[n][0] - base_a);\n      s[n][1] = expf(s[n][1] - base_a);\n",
        );
        s.push_str(
            "      s[n][2] = expf(s[n][2] - base_b);\n      s[n][3] = expf(s[n][3] - base_b);\n",
        );
        s.push_str("      sum_a += s[n][0] + s[n][1];\n      sum_b += s[n][2] + s[n][3];\n    }\n");
        s.push_str("    l_a = l_a * shrink_a + sum_a;\n    l_b = l_b * shrink_b + sum_b;\n");
        for (i, p) in self.roles.products.iter().enumerate() {
            let wn = (l.tile(p.tile).0 / 8).max(1);
            let _ = writeln!(s, "#pragma unroll\n    for (int n = 0; n < {wn}; ++n) {{");
            let _ = writeln!(
                s,
                "      acc{i}[n][0] *= shrink_a;\n      acc{i}[n][1] *= shrink_a;"
            );
            let _ = writeln!(
                s,
                "      acc{i}[n][2] *= shrink_b;\n      acc{i}[n][3] *= shrink_b;\n    }}"
            );
        }
        s
    }

    /// `s` becomes the weights `p = exp(score - lse)` (0 where masked),
    /// and `dp` the scores' gradient `p (dp - delta)` when computed.
    fn grad_weights(&self, l: &Layout) -> String {
        let cols = l.cols;
        let stat = |name: &str, at: &str| {
            if self.roles.key_side {
                format!("sx_cstat[{at}8u * n + 2u * q + (i & 1)]")
            } else {
                format!("(i < 2 ? {name}_a : {name}_b)")
            }
        };
        let mut body = format!(
            "const float p = (!edge || (c < {}u && {})) ? expf(s[n][i] * {} - {}) : 0.f;\ns[n][i] = p;",
            self.nc,
            self.visible(),
            self.scale(),
            stat("lse", ""),
        );
        if self.with_dp() {
            let delta = stat("delta", &format!("{cols}u + "));
            let _ = write!(body, "\ndp[n][i] = p * (dp[n][i] - {delta});");
        }
        self.each_score(l, &body, "")
    }

    /// A loop over the lane's score fragments, `r` its row and `c` its
    /// column, running `body` for each and `after` once per column group.
    fn each_score(&self, l: &Layout, body: &str, after: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "#pragma unroll\n    for (int n = 0; n < {}; ++n) {{",
            l.cols / 8
        );
        s.push_str("#pragma unroll\n      for (int i = 0; i < 4; ++i) {\n");
        s.push_str(
            "        const unsigned r = i < 2 ? ra : rb, c = c0 + 8u * n + 2u * q + (i & 1);\n",
        );
        s.push_str("        (void)r;\n");
        for line in body.lines() {
            let _ = writeln!(s, "        {line}");
        }
        s.push_str("      }\n");
        s.push_str(after);
        s.push_str("    }\n");
        s
    }

    /// A stored result: `x` rounded once to the dtype of `dest`.
    fn stored(&self, dest: &str, x: &str) -> String {
        let part = if dest == "out" {
            Some(self.step.part)
        } else {
            self.step.also.first().copied()
        };
        match part.map(|p| Gen::dtype_of_part(p, self.dtype)) {
            Some(DType::BF16) => format!("sx_bf16_bits(sx_round_bf16({x}))"),
            _ => x.to_string(),
        }
    }

    /// The factor a product's accumulators are stored times: the
    /// softmax's `1 / sum` (`inv`, of the row), the scale for the
    /// gradients of `q` and `k`.
    fn factor(&self, p: &Product, inv: &str) -> String {
        match (p.weight, p.scaled) {
            (Weight::Softmax, _) => format!(" * {inv}"),
            (_, true) => format!(" * {}", self.scale()),
            _ => String::new(),
        }
    }

    /// The rows' results: the log-sum-exp, the normalised output, or the
    /// gradients, rounded once.
    fn tiled_finish(&self, l: &Layout) -> String {
        let ty = self.ix.ty();
        let nr = self.nr;
        let mut s = String::new();
        if !self.grad() {
            s.push_str("  l_a = sx_quad_sum(l_a);\n  l_b = sx_quad_sum(l_b);\n");
            s.push_str("  const float inv_a = l_a > 0.f ? 1.f / l_a : 0.f;\n");
            s.push_str("  const float inv_b = l_b > 0.f ? 1.f / l_b : 0.f;\n");
            s.push_str("  (void)inv_a;\n  (void)inv_b;\n");
        }
        if let Some(dest) = self.roles.lse {
            s.push_str("  if (q == 0u) {\n");
            for row in ["a", "b"] {
                let _ = writeln!(
                    s,
                    "    if (r{row} < {nr}u) {dest}[({ty})b * {nr}u + r{row}] = l_{row} > 0.f ? m_{row} + logf(l_{row}) : SX_NEG_INF;"
                );
            }
            s.push_str("  }\n");
        }
        for (i, p) in self.roles.products.iter().enumerate() {
            let w = p.width;
            let value = self.stored(
                p.dest,
                &format!("acc{i}[n][i]{}", self.factor(p, "(i < 2 ? inv_a : inv_b)")),
            );
            let wn = (l.tile(p.tile).0 / 8).max(1);
            let _ = writeln!(s, "#pragma unroll\n  for (int n = 0; n < {wn}; ++n) {{");
            s.push_str("#pragma unroll\n    for (int i = 0; i < 4; ++i) {\n");
            s.push_str(
                "      const unsigned r = i < 2 ? ra : rb, c = 8u * n + 2u * q + (i & 1);\n",
            );
            let _ = writeln!(
                s,
                "      if (r < {nr}u && c < {w}u) {}[(({ty})b * {nr}u + r) * {w}u + c] = {value};",
                p.dest
            );
            s.push_str("    }\n  }\n");
        }
        s
    }

    /// The general kernel (any widths): a warp per row, the other side's
    /// rows one at a time, dot products across the lanes and a five-step
    /// shuffle; each lane keeps [`GENERAL_COLUMNS`] columns of each
    /// result, so a row wider than a warp's 256 takes more passes, each
    /// recomputing the weights.
    fn general(&self) -> (String, Vec<Param>, Shape) {
        let (params, order) = self.params();
        let rows = GENERAL_WARPS;
        let row_blocks = self.nr.div_ceil(rows);
        let mut s = format!(
            "extern \"C\" __global__ void __launch_bounds__({}) KERNEL({params}) {{\n",
            rows * 32
        );
        s.push_str(&self.general_rows(row_blocks));
        let passes = self.roles.products.iter().map(|p| p.width).max();
        let _ = writeln!(
            s,
            "  for (unsigned w0 = 0; w0 < {}u; w0 += {}u) {{",
            passes.unwrap_or(0).max(1),
            32 * GENERAL_COLUMNS
        );
        for i in 0..self.roles.products.len() {
            let _ = writeln!(s, "    float acc{i}[{GENERAL_COLUMNS}] = {{}};");
        }
        if !self.grad() {
            s.push_str("    float m = SX_NEG_INF, l = 0.f;\n");
        }
        s.push_str(&self.general_columns());
        s.push_str(&self.general_store());
        s.push_str("  }\n}\n");
        let shape = Shape::Blocks {
            n: self.step.problems() * row_blocks,
            threads: (rows * 32) as u32,
        };
        (s, order, shape)
    }

    /// The general kernel's start: which problem and row the warp takes
    /// (`row_blocks` blocks a problem), where its rows start, and, for a
    /// query-side gradient, the row's `lse` and `delta`.
    fn general_rows(&self, row_blocks: usize) -> String {
        let ty = self.ix.ty();
        let (nr, rows, r) = (self.nr, GENERAL_WARPS, &self.roles);
        let mut s =
            String::from("  const unsigned warp = threadIdx.x / 32u, lane = threadIdx.x % 32u;\n");
        let _ = writeln!(s, "  const {ty} b = blockIdx.x / {row_blocks}u;");
        let _ = writeln!(
            s,
            "  const unsigned r0 = blockIdx.x % {row_blocks}u * {rows}u, r = r0 + warp;"
        );
        let _ = writeln!(s, "  const bool live = r < {nr}u;");
        s.push_str(&self.bases());
        let _ = writeln!(
            s,
            "  const {ty} row_x = {};",
            self.row_of(r.rows_x, "live ? r : 0u")
        );
        if let Some(k) = r.rows_y {
            let _ = writeln!(
                s,
                "  const {ty} row_y = {};",
                self.row_of(k, "live ? r : 0u")
            );
        }
        if self.grad() && !r.key_side {
            let _ = writeln!(s, "  const float lse = live ? {} : 0.f;", self.stat(4, "r"));
            if self.with_dp() {
                let _ = writeln!(
                    s,
                    "  const float delta = live ? {} : 0.f;",
                    self.stat(5, "r")
                );
            }
        }
        s
    }

    /// `in{k}[...]`: the per-row statistic `k` (`lse` 4, `delta` 5) of row
    /// `at`.
    fn stat(&self, k: usize, at: &str) -> String {
        format!("in{k}[{}]", self.row_of(k, at))
    }

    /// The general kernel's loop over the other side's rows `c` (those the
    /// mask lets this block's rows meet): the score and its weight, then
    /// each product's update of the lane's columns.
    fn general_columns(&self) -> String {
        let (nc, rows, r) = (self.nc, GENERAL_WARPS, &self.roles);
        let (start, end) = match (self.step.causal, r.key_side) {
            (false, _) => ("0u".to_string(), format!("{nc}u")),
            (true, false) => (
                "0u".to_string(),
                format!("(r0 + {rows}u < {nc}u ? r0 + {rows}u : {nc}u)"),
            ),
            (true, true) => (format!("(r0 < {nc}u ? r0 : {nc}u)"), format!("{nc}u")),
        };
        let mut s = String::new();
        let _ = writeln!(s, "    for (unsigned c = {start}; c < {end}; ++c) {{");
        s.push_str(&self.general_dot("s", r.rows_x, r.cols_x, "row_x", self.step.d));
        let _ = writeln!(s, "      s *= {};", self.scale());
        if let (Some(ry), Some(cy)) = (r.rows_y, r.cols_y) {
            s.push_str(&self.general_dot("dp", ry, cy, "row_y", self.step.e));
        }
        let _ = writeln!(s, "      const bool seen = live && ({});", self.visible());
        s.push_str(&self.general_weight());
        for (i, p) in r.products.iter().enumerate() {
            s.push_str(&self.general_update(i, p));
        }
        s.push_str("    }\n");
        s
    }

    /// The weight `p` of the score `s` (and the scores' gradient `ds`): from
    /// the log-sum-exp for a gradient, else the online softmax's, rescaling
    /// the running sum `l` when the row's maximum `m` grows.
    fn general_weight(&self) -> String {
        let mut s = String::new();
        if self.grad() {
            let (lse, delta) = if self.roles.key_side {
                (self.stat(4, "c"), self.stat(5, "c"))
            } else {
                ("lse".to_string(), "delta".to_string())
            };
            let _ = writeln!(s, "      const float p = seen ? expf(s - {lse}) : 0.f;");
            if self.with_dp() {
                let _ = writeln!(s, "      const float ds = p * (dp - {delta});");
            }
        } else {
            s.push_str("      const float top = seen ? fmaxf(m, s) : m;\n");
            s.push_str("      const float base = top == SX_NEG_INF ? 0.f : top;\n");
            s.push_str(
                "      const float shrink = expf(m - base), p = seen ? expf(s - base) : 0.f;\n",
            );
            s.push_str("      m = top;\n      l = l * shrink + p;\n");
        }
        s
    }

    /// Product `i`'s update of the lane's columns of its accumulator: the
    /// weight times row `c` of its tile.
    fn general_update(&self, i: usize, p: &Product) -> String {
        let ty = self.ix.ty();
        let k = self.operand_of(p.tile);
        let x = c::widen(self.dtype, &format!("in{k}[col_m{i} + col]"));
        let update = match p.weight {
            Weight::Softmax => format!("acc{i}[j] = acc{i}[j] * shrink + p * {x};"),
            Weight::P => format!("acc{i}[j] += p * {x};"),
            Weight::Ds => format!("acc{i}[j] += ds * {x};"),
        };
        let mut s = String::new();
        let _ = writeln!(s, "      const {ty} col_m{i} = {};", self.row_of(k, "c"));
        let _ = writeln!(
            s,
            "#pragma unroll\n      for (unsigned j = 0; j < {GENERAL_COLUMNS}u; ++j) {{"
        );
        s.push_str("        const unsigned col = w0 + lane + 32u * j;\n");
        let _ = writeln!(s, "        if (live && col < {}u) {update}", p.width);
        s.push_str("      }\n");
        s
    }

    /// `float NAME`: the dot product of row `row` of operand `rk` (its
    /// start in `row`) with row `c` of operand `ck`, `width` long, in
    /// every lane of the warp (lanes take every 32nd column, then fold).
    fn general_dot(&self, name: &str, rk: usize, ck: usize, row: &str, width: usize) -> String {
        let ty = self.ix.ty();
        let a = c::widen(self.dtype, &format!("in{rk}[{row} + k]"));
        let b = c::widen(self.dtype, &format!("in{ck}[col + k]"));
        let mut s = String::new();
        let _ = writeln!(s, "      float {name} = 0.f;");
        s.push_str("      if (live) {\n");
        let _ = writeln!(s, "        const {ty} col = {};", self.row_of(ck, "c"));
        let _ = writeln!(
            s,
            "        for (unsigned k = lane; k < {width}u; k += 32u) {name} += {a} * {b};"
        );
        s.push_str("      }\n");
        let _ = writeln!(s, "      {name} = sx_warp_sum({name});");
        s
    }

    /// The general kernel's results for its row and pass (the
    /// log-sum-exp in the first pass only).
    fn general_store(&self) -> String {
        let ty = self.ix.ty();
        let nr = self.nr;
        let mut s = String::new();
        if !self.grad() {
            s.push_str("    const float inv = l > 0.f ? 1.f / l : 0.f;\n    (void)inv;\n");
        }
        if let Some(dest) = self.roles.lse {
            let _ = writeln!(
                s,
                "    if (live && lane == 0u && w0 == 0u) {dest}[({ty})b * {nr}u + r] = l > 0.f ? m + logf(l) : SX_NEG_INF;"
            );
        }
        for (i, p) in self.roles.products.iter().enumerate() {
            let w = p.width;
            let value = self.stored(p.dest, &format!("acc{i}[j]{}", self.factor(p, "inv")));
            let _ = writeln!(
                s,
                "#pragma unroll\n    for (unsigned j = 0; j < {GENERAL_COLUMNS}u; ++j) {{"
            );
            s.push_str("      const unsigned col = w0 + lane + 32u * j;\n");
            let _ = writeln!(
                s,
                "      if (live && col < {w}u) {}[(({ty})b * {nr}u + r) * {w}u + col] = {value};",
                p.dest
            );
            s.push_str("    }\n");
        }
        s
    }
}
