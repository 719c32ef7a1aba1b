//! The data-dependent kernels: `index` and `gather` (one thread per output
//! element), `index-add` and `scatter-add` (each output element adds, in
//! id order, every value aimed at it: deterministic, floats in f64 rounded
//! once, so bit-identical to the reference, with no atomics), and
//! `linear-scan` (one thread per independent sequence, an f32 carry never
//! rounded). An index-add of many ids (an embedding's gradient) gives each
//! block a row and 256 of its columns: the block reads the ids 256 at a
//! time, skips a chunk naming no id of its row, and otherwise adds the
//! chunk's values in id order. A first kernel marks the rows some id names
//! (`index_add_marks`), so the blocks of the other rows, most of a
//! vocabulary's, copy their base without reading the ids. An id outside
//! its axis sets the error word instead of reading out of bounds.

use std::fmt::Write;

use sexpgpu_compile::{self as plan, Contig, Gather, LinearScan, ScatterAdd, Step};
use sexpgpu_graph::DType;

use super::c::{self, Index};
use super::{GenError, Param, Shape, BLOCK};

/// Ids from which an index-add gives a block to each row's columns rather
/// than a thread to each element (which would read every id).
const MANY_IDS: usize = 64;

/// One kernel of a step: its kind, text, parameters and launch shape.
pub type Part = (&'static str, String, Vec<Param>, Shape);

/// The kernels of an indexing or scan step, in launch order (one, or the
/// marks and the sums of an index-add of many ids); `dtype_of(k)` is the
/// dtype of the step's operand `k` (`Step::reads`).
pub fn generate(
    step: &Step,
    out: DType,
    dtype_of: impl Fn(usize) -> DType,
) -> Result<Vec<Part>, GenError> {
    let ptrs = |names: &[&str]| {
        let mut v = vec![c::ptr_param(out, "out", true)];
        for (k, n) in names.iter().enumerate() {
            v.push(c::ptr_param(dtype_of(k), n, false));
        }
        v
    };
    if let Step::LinearScan(s) = step {
        let (body, n) = scan(ptrs(&["a", "b"]), s, out)?;
        return Ok(vec![(
            step.kind(),
            body,
            order(2, false),
            Shape::Grid { n },
        )]);
    }
    if let Step::IndexAdd(s) = step {
        let marks_params = with_err(vec![
            c::ptr_param(out, "out", true),
            c::ptr_param(dtype_of(1), "ids", false),
        ]);
        return index_add(
            (with_err(ptrs(&["base", "ids", "values"])), marks_params),
            s,
            out,
        );
    }
    let (body, shape) = by_id(step, out, &|names| with_err(ptrs(names)))?;
    Ok(vec![(
        step.kind(),
        body,
        order(step.reads().len(), true),
        shape,
    )])
}

/// The bits an index-add of many ids leaves at the first column of each
/// chunk of a row some id names, for the chunk's block to find
/// (`index_add_marks`): a quiet NaN with a payload for floats. A base
/// value with the same bits (or a stale one in an unmarked row) only makes
/// its block read the ids, which then names nothing of its row: the sums
/// stay right whatever the buffer held.
fn mark(dtype: DType) -> Result<(&'static str, &'static str), GenError> {
    Ok(match dtype {
        DType::F32 => ("__int_as_float(0x7fe5a5a5)", "0x7fe5a5a5u"),
        DType::BF16 => ("(unsigned short)0x7fe5u", "0x7fe5u"),
        DType::I32 => ("(int)0x7fa5a5a5", "0x7fa5a5a5u"),
        DType::I64 => ("(long long)0x7fa5a5a5a5a5a5a5LL", "0x7fa5a5a5a5a5a5a5ull"),
        DType::Bool => {
            return Err(GenError::new(
                "scatter-add: expects float or integer tensors of one dtype",
            ))
        }
    })
}

/// The stored bits of `element` of `dtype`, as an unsigned integer.
fn bits(dtype: DType, element: &str) -> String {
    match dtype {
        DType::F32 => format!("__float_as_uint({element})"),
        DType::BF16 => format!("(unsigned){element}"),
        DType::I32 => format!("(unsigned){element}"),
        _ => format!("(unsigned long long){element}"),
    }
}

/// The one-kernel steps that read ids (and may set the error word):
/// `index`, `gather`, `scatter-add`; `ptrs` gives the parameter list for
/// the named operands.
fn by_id(
    step: &Step,
    out: DType,
    ptrs: &dyn Fn(&[&str]) -> Vec<String>,
) -> Result<(String, Shape), GenError> {
    let grid = |(text, n)| (text, Shape::Grid { n });
    Ok(match step {
        Step::Index(s) => grid(index_rows(ptrs(&["table", "ids"]), s)),
        Step::Gather(s) => grid(gather_along(ptrs(&["x", "idx"]), s)),
        Step::ScatterAdd(s) if s.in_place => {
            grid(scatter_in_place(ptrs(&["idx", "values"]), s, out)?)
        }
        Step::ScatterAdd(s) => grid(scatter_along(
            ptrs(&["base", "idx", "values"]),
            ("base", s.base),
            s,
            out,
        )?),
        other => {
            return Err(GenError::new(format!(
                "no indexing kernel for `{}`",
                other.kind()
            )))
        }
    })
}

fn with_err(mut params: Vec<String>) -> Vec<String> {
    params.push("unsigned long long* __restrict__ err".to_string());
    params
}

/// Output, the step's operands in order, and the error word when used.
fn order(inputs: usize, err: bool) -> Vec<Param> {
    let mut v = vec![Param::Out];
    v.extend((0..inputs).map(Param::Input));
    if err {
        v.push(Param::ErrorWord);
    }
    v
}

/// `index`: one thread per element of the gathered rows.
fn index_rows(params: Vec<String>, s: &plan::Index) -> (String, usize) {
    let (table, ids, rows, row_len) = (s.table, s.ids, s.rows, s.row_len);
    let n = s.written();
    let ix = Index::for_extent(table.offset + rows * row_len + ids.offset + n + 1);
    let body = format!(
        "{ty} j = p / {rl}, col = p % {rl};\nlong long id = (long long)ids[{io} + j];\nif (id < 0 || id >= {rows}LL) {{ sx_bad_id(err, id, {rows}ull, 0ull); out[p] = 0; continue; }}\nout[p] = table[{to} + ({ty})id * {rl} + col];\n",
        ty = ix.ty(),
        rl = ix.lit(row_len.max(1)),
        io = ix.lit(ids.offset),
        to = ix.lit(table.offset),
    );
    (c::grid_kernel(&params, n, ix, &body), n)
}

/// `gather`: one thread per id, reading one element along `axis`.
fn gather_along(params: Vec<String>, s: &Gather) -> (String, usize) {
    let (x, idx) = (s.x, s.idx);
    let n = s.written();
    let xn: usize = s.x_dims.iter().product();
    let ix = Index::for_extent(x.offset + xn + idx.offset + n + 1);
    let (base, axis_stride) = along_base(&s.x_dims, &s.idx_dims, s.axis, ix);
    let len = s.x_dims[s.axis];
    let body = format!(
        "long long id = (long long)idx[{io} + p];\nif (id < 0 || id >= {len}LL) {{ sx_bad_id(err, id, {len}ull, 1ull); out[p] = 0; continue; }}\nout[p] = x[{xo} + {base} + ({ty})id * {st}];\n",
        io = ix.lit(idx.offset),
        xo = ix.lit(x.offset),
        ty = ix.ty(),
        st = ix.lit(axis_stride),
    );
    (c::grid_kernel(&params, n, ix, &body), n)
}

/// `index-add`: each output element adds, in id order, the values of
/// every id naming its row; a thread per element for few ids; for many,
/// the marks (`IndexAdd::marks`), then a block per (row, 256 columns).
fn index_add(
    (params, marks_params): (Vec<String>, Vec<String>),
    step: &plan::IndexAdd,
    out: DType,
) -> Result<Vec<Part>, GenError> {
    let (n, n_ids, row_len) = (step.written(), step.n_ids, step.row_len);
    let ix = Index::for_extent(
        step.base.offset + n + step.ids.offset + step.values.offset + step.added() + 1,
    );
    let parts = IndexAdd {
        acc: Accum::new(out)?,
        ix,
        step,
    };
    let sums_order = order(3, true);
    if n_ids < MANY_IDS {
        let sums = parts.per_element(&params);
        return Ok(vec![("index-add", sums, sums_order, Shape::Grid { n })]);
    }
    let chunks = row_len.div_ceil(BLOCK as usize).max(1);
    let marks = parts.marks(&marks_params, chunks)?;
    let marks_order = vec![Param::Out, Param::Input(1), Param::ErrorWord];
    let sums = parts.per_row_block(&params, chunks)?;
    let blocks = Shape::Blocks {
        n: step.rows * chunks,
        threads: BLOCK,
    };
    Ok(vec![
        ("index-add", marks, marks_order, Shape::Grid { n: n_ids }),
        ("index-add", sums, sums_order, blocks),
    ])
}

/// What both index-add kernels are written from.
struct IndexAdd<'a> {
    acc: Accum,
    ix: Index,
    step: &'a plan::IndexAdd,
}

impl IndexAdd<'_> {
    /// Reads id `j` into `id`, reporting it when outside the rows; `bad`
    /// says whether it was.
    fn read_id(&self, j: &str) -> String {
        let rows = self.step.rows;
        format!(
            "long long id = (long long)ids[{} + {j}];\nbool bad = id < 0 || id >= {rows}LL;\nif (bad) sx_bad_id(err, id, {rows}ull, 2ull);\n",
            self.ix.lit(self.step.ids.offset)
        )
    }

    /// `acc` plus column `col` of id `j`'s values.
    fn add_value(&self, j: &str) -> String {
        self.acc.add(&format!(
            "values[{} + {j} * {} + col]",
            self.ix.lit(self.step.values.offset),
            self.ix.lit(self.step.row_len)
        ))
    }

    /// The first kernel for many ids: a thread per id writes the mark
    /// (`mark`) at the first column of each of the row's `chunks` chunks of
    /// 256 columns (ids outside the rows set the error word here, so they
    /// are reported even when no block reads the ids). Writers of one row
    /// write the same bits, so their order does not matter.
    fn marks(&self, params: &[String], chunks: usize) -> Result<String, GenError> {
        let (ix, ty, rows) = (self.ix, self.ix.ty(), self.step.rows);
        let (value, _) = mark(self.acc.dtype)?;
        // Rows of no columns have nothing to mark (and `out` no element).
        let marks = if self.step.row_len == 0 {
            String::new()
        } else {
            format!(
                " else {{\n  for ({ty} c = 0; c < {}; ++c) out[({ty})id * {} + c * {BLOCK}u] = {value};\n}}",
                ix.lit(chunks),
                ix.lit(self.step.row_len),
            )
        };
        let body = format!(
            "long long id = (long long)ids[{} + p];\nif (id < 0 || id >= {rows}LL) {{ sx_bad_id(err, id, {rows}ull, 2ull); }}{marks}\n",
            ix.lit(self.step.ids.offset),
        );
        Ok(c::grid_kernel(params, self.step.n_ids, ix, &body))
    }

    /// A grid-stride body: element `p` walks every id.
    fn per_element(&self, params: &[String]) -> String {
        let (ix, ty) = (self.ix, self.ix.ty());
        let rl = ix.lit(self.step.row_len.max(1));
        let mut body = String::new();
        let _ = writeln!(body, "{ty} r = p / {rl}, col = p % {rl};");
        let base = format!("base[{} + p]", ix.lit(self.step.base.offset));
        let _ = writeln!(body, "{} acc = {};", self.acc.ty, self.acc.widen(&base));
        let _ = writeln!(
            body,
            "for ({ty} j = 0; j < {}; ++j) {{",
            ix.lit(self.step.n_ids)
        );
        for line in self.read_id("j").lines() {
            let _ = writeln!(body, "  {line}");
        }
        let _ = writeln!(
            body,
            "  if (!bad && ({ty})id == r) acc = {};",
            self.add_value("j")
        );
        body.push_str("}\n");
        let _ = writeln!(body, "out[p] = {};", self.acc.store);
        c::grid_kernel(params, self.step.written(), ix, &body)
    }

    /// Block `b` takes row `b / chunks` and its `BLOCK` columns from
    /// `b % chunks * BLOCK`; each chunk of `BLOCK` ids is flagged in shared
    /// memory, skipped when it names no id of the row, else added in id
    /// order. Three barriers a chunk: the last chunk's flags are read
    /// before they are overwritten, the flags and the cleared `any` are
    /// visible before any thread raises it, and `any` is final before all
    /// branch on it.
    fn per_row_block(&self, params: &[String], chunks: usize) -> Result<String, GenError> {
        let (ix, ty) = (self.ix, self.ix.ty());
        let (rl, n_ids) = (ix.lit(self.step.row_len.max(1)), ix.lit(self.step.n_ids));
        let mut s = String::new();
        let _ = writeln!(
            s,
            "extern \"C\" __global__ void KERNEL({}) {{",
            params.join(", ")
        );
        let _ = writeln!(s, "  __shared__ unsigned char hit[{BLOCK}];");
        s.push_str("  __shared__ int any;\n");
        let _ = writeln!(
            s,
            "  {ty} r = ({ty})blockIdx.x / {ch}, col = ({ty})blockIdx.x % {ch} * {BLOCK}u + threadIdx.x;",
            ch = ix.lit(chunks)
        );
        let _ = writeln!(s, "  bool mine = col < {rl};");
        // The chunk's first column holds the mark when an id may name the
        // row; read before any thread of the block writes it.
        let (_, marked) = mark(self.acc.dtype)?;
        let head = format!(
            "out[r * {rl} + ({ty})blockIdx.x % {} * {BLOCK}u]",
            ix.lit(chunks)
        );
        s.push_str("  __shared__ int named;\n");
        // Rows of no columns are never marked; their block still reads the
        // ids, to report one outside the rows.
        let named = if self.step.row_len == 0 {
            "1".to_string()
        } else {
            format!("{} == {marked}", bits(self.acc.dtype, &head))
        };
        let _ = writeln!(s, "  if (threadIdx.x == 0u) named = {named};");
        s.push_str("  __syncthreads();\n");
        let base = format!("base[{} + r * {rl} + col]", ix.lit(self.step.base.offset));
        let _ = writeln!(
            s,
            "  {} acc = mine ? {} : 0;",
            self.acc.ty,
            self.acc.widen(&base)
        );
        let _ = writeln!(
            s,
            "  for ({ty} j0 = 0; named && j0 < {n_ids}; j0 += {BLOCK}u) {{"
        );
        let _ = writeln!(s, "    {ty} j = j0 + threadIdx.x;");
        s.push_str("    bool h = false;\n");
        let _ = writeln!(s, "    if (j < {n_ids}) {{");
        for line in self.read_id("j").lines() {
            let _ = writeln!(s, "      {line}");
        }
        let _ = writeln!(s, "      h = !bad && ({ty})id == r;\n    }}");
        s.push_str("    __syncthreads();\n    hit[threadIdx.x] = h;\n    if (threadIdx.x == 0u) any = 0;\n");
        s.push_str("    __syncthreads();\n    if (h) any = 1;\n    __syncthreads();\n");
        s.push_str("    if (any && mine) {\n");
        let _ = writeln!(
            s,
            "      for (unsigned k = 0u; k < {BLOCK}u && j0 + k < {n_ids}; ++k) {{"
        );
        let _ = writeln!(
            s,
            "        if (hit[k]) acc = {};",
            self.add_value("(j0 + k)")
        );
        s.push_str("      }\n    }\n  }\n");
        let _ = writeln!(s, "  if (mine) out[r * {rl} + col] = {};", self.acc.store);
        s.push_str("}\n");
        Ok(s)
    }
}

/// A float (f64) or wrapping integer accumulator, stored as `out`'s dtype.
struct Accum {
    ty: &'static str,
    dtype: DType,
    store: String,
}

impl Accum {
    fn new(dtype: DType) -> Result<Accum, GenError> {
        let (ty, store) = match dtype {
            DType::F32 => ("double", "(float)acc".to_string()),
            DType::BF16 => (
                "double",
                "sx_bf16_bits(sx_round_bf16((float)acc))".to_string(),
            ),
            DType::I32 => ("int", "acc".to_string()),
            DType::I64 => ("long long", "acc".to_string()),
            DType::Bool => {
                return Err(GenError::new(
                    "scatter-add: expects float or integer tensors of one dtype",
                ))
            }
        };
        Ok(Accum { ty, dtype, store })
    }

    fn widen(&self, element: &str) -> String {
        match self.dtype {
            DType::F32 | DType::BF16 => format!("(double){}", c::widen(self.dtype, element)),
            _ => element.to_string(),
        }
    }

    fn add(&self, element: &str) -> String {
        match self.dtype {
            DType::F32 | DType::BF16 => format!("acc + {}", self.widen(element)),
            _ => format!("sx_wadd(acc, {element})"),
        }
    }
}

/// For element `p` of `idx_dims`: its offset in `x_dims` without the axis
/// coordinate, and the axis's stride in `x`.
fn along_base(x_dims: &[usize], idx_dims: &[usize], axis: usize, ix: Index) -> (String, usize) {
    let xs = sexpgpu_compile::View::contiguous(x_dims).strides;
    let is = sexpgpu_compile::View::contiguous(idx_dims).strides;
    let mut terms = vec![ix.lit(0)];
    for a in 0..idx_dims.len() {
        if a != axis && idx_dims[a] > 1 {
            terms.push(format!(
                "(p / {} % {}) * {}",
                ix.lit(is[a]),
                ix.lit(idx_dims[a]),
                ix.lit(xs[a])
            ));
        }
    }
    (terms.join(" + "), xs[axis])
}

/// Ids along the axis from which a `scatter-add` in place runs the dense
/// kernel over `out` (`scatter_along`) instead of a thread a line, which
/// compares each id with those before it.
const IN_PLACE_LINE: usize = 64;

/// `scatter-add` into `out`, which holds the base already
/// (`ScatterAdd::in_place`): a thread a line of `idx` along `axis`
/// adds the line's values at the places they name, each place from its
/// base value with its values in id order, rounded once (as the
/// reference); a place an earlier id of the line named is done. Only the
/// places named are touched (a cross-entropy's targets among its logits).
/// Longer lines take the dense kernel, reading its base from `out`.
fn scatter_in_place(
    params: Vec<String>,
    s: &ScatterAdd,
    out: DType,
) -> Result<(String, usize), GenError> {
    let len = s.idx_dims[s.axis];
    if len > IN_PLACE_LINE {
        let base = Contig { offset: 0, ..s.idx };
        return scatter_along(params, ("out", base), s, out);
    }
    let (n, m) = (s.written(), s.added());
    let ix = Index::for_extent(n + s.idx.offset + s.values.offset + m + 1);
    let bs = sexpgpu_compile::View::contiguous(&s.base_dims).strides;
    let is = sexpgpu_compile::View::contiguous(&s.idx_dims).strides;
    let acc = Accum::new(out)?;
    let ty = ix.ty();
    let lit = |v: usize| ix.lit(v);
    let mut body = String::new();
    // The line's first element in idx (and values), and its place in out.
    let _ = writeln!(body, "{ty} rest = p, line = 0, place = 0;");
    for a in (0..s.idx_dims.len()).rev().filter(|&a| a != s.axis) {
        let _ = writeln!(
            body,
            "{{ {ty} c = rest % {d}; rest /= {d}; line += c * {i}; place += c * {b}; }}",
            d = lit(s.idx_dims[a].max(1)),
            i = lit(is[a]),
            b = lit(bs[a])
        );
    }
    let id_at = |t: &str| {
        format!(
            "(long long)idx[{} + line + {t} * {}]",
            lit(s.idx.offset),
            lit(is[s.axis])
        )
    };
    let bound = s.base_dims[s.axis];
    let _ = writeln!(body, "for ({ty} t = 0; t < {}; ++t) {{", lit(len));
    let _ = writeln!(body, "  long long id = {};", id_at("t"));
    let _ = writeln!(
        body,
        "  if (id < 0 || id >= {bound}LL) {{ sx_bad_id(err, id, {bound}ull, 3ull); continue; }}"
    );
    let _ = writeln!(body, "  bool done = false;");
    let _ = writeln!(
        body,
        "  for ({ty} u = 0; u < t; ++u) if ({} == id) {{ done = true; break; }}",
        id_at("u")
    );
    let _ = writeln!(body, "  if (done) continue;");
    let _ = writeln!(body, "  {ty} at = place + ({ty})id * {};", lit(bs[s.axis]));
    let _ = writeln!(body, "  {} acc = {};", acc.ty, acc.widen("out[at]"));
    let v = format!(
        "values[{} + line + u * {}]",
        lit(s.values.offset),
        lit(is[s.axis])
    );
    let _ = writeln!(
        body,
        "  for ({ty} u = t; u < {}; ++u) if ({} == id) acc = {};",
        lit(len),
        id_at("u"),
        acc.add(&v)
    );
    let _ = writeln!(body, "  out[at] = {};", acc.store);
    body.push_str("}\n");
    Ok((
        c::grid_kernel(&params, m / len.max(1), ix, &body),
        m / len.max(1),
    ))
}

/// `scatter-add` along `axis`: each output element adds the values whose
/// id names it, scanning its own line of `idx` in order, from its base
/// (`base`, or `out` itself in place).
fn scatter_along(
    params: Vec<String>,
    (base_name, base): (&str, Contig),
    s: &ScatterAdd,
    out: DType,
) -> Result<(String, usize), GenError> {
    let (n, m) = (s.written(), s.added());
    let ix = Index::for_extent(base.offset + n + s.idx.offset + s.values.offset + m + 1);
    let bs = sexpgpu_compile::View::contiguous(&s.base_dims).strides;
    let is = sexpgpu_compile::View::contiguous(&s.idx_dims).strides;
    let acc = Accum::new(out)?;
    let ty = ix.ty();
    let mut body = String::new();
    let _ = writeln!(
        body,
        "{} acc = {};",
        acc.ty,
        acc.widen(&format!("{base_name}[{} + p]", ix.lit(base.offset)))
    );
    // The position in idx of this element's line, or none when a coordinate
    // lies beyond idx's extent (nothing is aimed at it).
    let mut line = vec![ix.lit(0)];
    let mut inside = vec!["true".to_string()];
    for a in 0..s.base_dims.len() {
        let coord = format!(
            "(p / {} % {})",
            ix.lit(bs[a]),
            ix.lit(s.base_dims[a].max(1))
        );
        if a == s.axis {
            let _ = writeln!(body, "{ty} target = {coord};");
        } else {
            inside.push(format!("{coord} < {}", ix.lit(s.idx_dims[a])));
            line.push(format!("{coord} * {}", ix.lit(is[a])));
        }
    }
    let _ = writeln!(body, "if ({}) {{", inside.join(" && "));
    let _ = writeln!(body, "  {ty} line = {};", line.join(" + "));
    let _ = writeln!(
        body,
        "  for ({ty} t = 0; t < {}; ++t) {{",
        ix.lit(s.idx_dims[s.axis])
    );
    let _ = writeln!(body, "    {ty} q = line + t * {};", ix.lit(is[s.axis]));
    let _ = writeln!(
        body,
        "    long long id = (long long)idx[{} + q];",
        ix.lit(s.idx.offset)
    );
    let len = s.base_dims[s.axis];
    let _ = writeln!(
        body,
        "    if (id < 0 || id >= {len}LL) {{ sx_bad_id(err, id, {len}ull, 3ull); continue; }}"
    );
    let v = format!("values[{} + q]", ix.lit(s.values.offset));
    let _ = writeln!(body, "    if (({ty})id == target) acc = {};", acc.add(&v));
    body.push_str("  }\n}\n");
    let _ = writeln!(body, "out[p] = {};", acc.store);
    Ok((c::grid_kernel(&params, n, ix, &body), n))
}

/// `h[t] = a[t] * h[t-1] + b[t]` along `axis`: one thread per sequence.
fn scan(params: Vec<String>, s: &LinearScan, out: DType) -> Result<(String, usize), GenError> {
    if !out.is_float() {
        return Err(GenError::new("linear-scan: expects float tensors"));
    }
    let numel: usize = s.dims.iter().product();
    let len = s.dims[s.axis];
    let inner: usize = s.dims[s.axis + 1..].iter().product();
    let outer: usize = s.dims[..s.axis].iter().product();
    let n = outer * inner;
    let ix = Index::for_extent(s.a.offset + s.b.offset + numel + 1);
    let ty = ix.ty();
    let t = if s.reverse {
        format!("{} - s", ix.lit(len.saturating_sub(1)))
    } else {
        "s".to_string()
    };
    let mut body = String::new();
    let _ = writeln!(
        body,
        "{ty} o = p / {in_}, i = p % {in_};",
        in_ = ix.lit(inner.max(1))
    );
    body.push_str("float h = 0.0f;\n");
    let _ = writeln!(body, "for ({ty} s = 0; s < {}; ++s) {{", ix.lit(len));
    let _ = writeln!(
        body,
        "  {ty} at = (o * {} + ({t})) * {} + i;",
        ix.lit(len),
        ix.lit(inner)
    );
    let wa = c::widen(out, &format!("a[{} + at]", ix.lit(s.a.offset)));
    let wb = c::widen(out, &format!("b[{} + at]", ix.lit(s.b.offset)));
    let _ = writeln!(body, "  h = {wa} * h + {wb};");
    let stored = match out {
        DType::BF16 => "sx_bf16_bits(sx_round_bf16(h))",
        _ => "h",
    };
    let _ = writeln!(body, "  out[at] = {stored};");
    body.push_str("}\n");
    Ok((c::grid_kernel(&params, n, ix, &body), n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sexpgpu_compile::Loc;

    fn index_add_kernels(row_len: usize) -> Vec<Part> {
        let at = |k| Contig {
            loc: Loc::Arg(k),
            offset: 0,
        };
        let step = Step::IndexAdd(plan::IndexAdd {
            base: at(0),
            ids: at(1),
            n_ids: 100,
            values: at(2),
            rows: 50,
            row_len,
        });
        let dtypes = [DType::F32, DType::I32, DType::F32];
        generate(&step, DType::F32, |k| dtypes[k]).unwrap()
    }

    #[test]
    fn rows_of_no_columns_are_neither_marked_nor_read() {
        let parts = index_add_kernels(0);
        assert_eq!(
            parts.len(),
            2,
            "the marks still report ids outside the rows"
        );
        assert!(!parts[0].1.contains("out["), "{}", parts[0].1);
        assert!(parts[0].1.contains("sx_bad_id"), "{}", parts[0].1);
        assert!(parts[1].1.contains("named = 1;"), "{}", parts[1].1);
        // With columns, each chunk's first column is marked and read.
        let parts = index_add_kernels(300);
        assert!(
            parts[0].1.contains("out[(unsigned)id * 300u + c * 256u]"),
            "{}",
            parts[0].1
        );
        assert!(
            parts[1].1.contains("named = __float_as_uint(out[r * 300u"),
            "{}",
            parts[1].1
        );
    }
}
