//! Fused elementwise chains as one CUDA kernel: one thread per output
//! element (grid-stride), each instruction one C statement into its own
//! register, inputs read through their views with baked index arithmetic.
//! The arithmetic mirrors `sexpgpu-cpu`'s fused loop: bf16 rounded after
//! every instruction, wrapping integers, the reference's casts; kernels
//! are compiled without FMA contraction so `+ - * /` and `sqrt` round
//! exactly as on the CPU.

use std::fmt::Write;

use sexpgpu_compile::{FusedKernel, InPlace, Instr, Src};
use sexpgpu_graph::{
    binaries_arith, binaries_bitwise, binaries_division, binaries_float_only, unaries_exact,
    unaries_float_only, unaries_in_f32, unaries_in_f64, BinaryOp, CompareOp, DType, UnaryOp,
};

use super::c::{self, Index};
use super::{GenError, Param, Shape};

/// The text, parameters and launch shape of a fused kernel writing `len`
/// elements of `out_dtype` from `inputs` (with their dtypes). An input
/// overwritten in place is read from its target (`out` or `side{j}`),
/// which holds its values: position `p` is read before it is written, by
/// the same thread, through the same pointer (so `__restrict__` still
/// holds), and the input takes no parameter of its own.
///
/// Each thread takes a group of consecutive positions (`vector_plan`), so
/// that the output, the side outputs and every input stored in the loop's
/// order move in 16-byte loads and stores: one element a thread leaves too
/// few bytes in flight to fill the memory system of a GPU, above all for
/// 2-byte bf16. Inputs read through other views (broadcasts, transposes)
/// are read element by element inside the group.
pub fn generate(
    kernel: &FusedKernel,
    inputs: &[(Src, DType)],
    in_place: &[InPlace],
    out_dtype: DType,
    len: usize,
) -> Result<(String, Vec<Param>, Shape), GenError> {
    let ix = Index::for_extent(largest_extent(inputs, len));
    let read_from = pointers(inputs, in_place)?;
    let sides = side_dtypes(kernel)?;
    let mut params = vec![c::ptr_param(out_dtype, "out", true)];
    let mut order = vec![Param::Out];
    for (k, &dtype) in sides.iter().enumerate() {
        params.push(c::ptr_param(dtype, &format!("side{k}"), true));
        order.push(Param::Side(k));
    }
    let reads = |lanes| Reads {
        inputs,
        read_from: &read_from,
        ix,
        lanes,
    };
    let scalar = element_with(kernel, &reads(None))?;
    params.extend(scalar.params.iter().cloned());
    order.extend(scalar.order.iter().cloned());
    let stores = |at: &dyn Fn(&str) -> String| {
        output_stores(kernel, (out_dtype, &sides), &scalar.result, at)
    };
    let scalar_body = format!("{}{}", scalar.body, stores(&|t| format!("{t}[p]")));
    let Some(plan) = vector_plan(inputs, &read_from, out_dtype, &sides, len) else {
        let text = c::grid_kernel(&params, len, ix, &scalar_body);
        return Ok((text, order, Shape::Grid { n: len }));
    };
    let lanes = element_with(kernel, &reads(Some(&plan.lanes)))?;
    let lane_body = format!(
        "{}{}",
        lanes.body,
        stores(&|t| format!("{}[v]", lane_array(t)))
    );
    let text = vector_kernel(
        &params,
        &plan,
        (out_dtype, &sides),
        inputs,
        ix,
        (&scalar_body, &lane_body),
    );
    let groups = len / plan.width;
    Ok((
        text,
        order,
        Shape::Grid {
            n: groups.max(len % plan.width),
        },
    ))
}

/// The statements storing the result and the side outputs of one
/// position, each target (`out`, `side{j}`) addressed by `at`.
fn output_stores(
    kernel: &FusedKernel,
    (out_dtype, sides): (DType, &[DType]),
    result: &str,
    at: &dyn Fn(&str) -> String,
) -> String {
    let mut text = format!("{} = {};\n", at("out"), c::narrow(out_dtype, result));
    for (k, (r, &dtype)) in kernel.side.iter().zip(sides).enumerate() {
        let target = at(&format!("side{k}"));
        let _ = writeln!(text, "{target} = {};", c::narrow(dtype, &reg(*r)));
    }
    text
}

/// The dtypes of a kernel's side outputs.
fn side_dtypes(kernel: &FusedKernel) -> Result<Vec<DType>, GenError> {
    kernel
        .side
        .iter()
        .map(|r| {
            kernel
                .instrs
                .get(r.index())
                .map(Instr::dtype)
                .ok_or_else(|| GenError::new("internal: a side output names no instruction"))
        })
        .collect()
}

/// How a fused loop moves whole groups of positions.
struct VectorPlan {
    /// Positions per group (a power of two, 2 to 8).
    width: usize,
    /// For each input: read as a group (`in{k}_lanes[v]`) rather than
    /// element by element.
    lanes: Vec<bool>,
    /// The outputs (`out`, `side{j}`) that inputs are read from in place:
    /// their groups are loaded before the chain runs.
    targets: Vec<String>,
    /// Some input is read element by element through its view, at the
    /// position `p` each lane computes.
    by_position: bool,
    /// The length of the loop.
    len: usize,
}

/// Bytes a stored element of `dtype` takes.
fn bytes(dtype: DType) -> usize {
    match dtype {
        DType::F32 | DType::I32 => 4,
        DType::BF16 => 2,
        DType::I64 => 8,
        DType::Bool => 1,
    }
}

/// The group width that moves the widest stored output in 16 bytes (at
/// most 8 positions), and which inputs are read as groups: those stored
/// in the loop's order (a contiguous view starting on a group boundary)
/// whose group fits 16 bytes too. `None` when groups of two or more do
/// not fit (an i64 output can only pair) or the loop is shorter than one.
fn vector_plan(
    inputs: &[(Src, DType)],
    read_from: &[Pointer],
    out_dtype: DType,
    sides: &[DType],
    len: usize,
) -> Option<VectorPlan> {
    let widest = sides
        .iter()
        .map(|&d| bytes(d))
        .fold(bytes(out_dtype), usize::max);
    let width = (16 / widest).min(8);
    if width < 2 || len < width {
        return None;
    }
    let lanes: Vec<bool> = inputs
        .iter()
        .zip(read_from)
        .map(|((src, dtype), from)| match (src, from) {
            (Src::Mem { view, .. }, Pointer::Own) => {
                view.is_contiguous() && view.offset % width == 0 && bytes(*dtype) * width <= 16
            }
            _ => false,
        })
        .collect();
    let by_position = inputs
        .iter()
        .zip(read_from)
        .zip(&lanes)
        .any(|(((src, _), from), &lane)| {
            matches!((src, from), (Src::Mem { .. }, Pointer::Own)) && !lane
        });
    let targets = read_from
        .iter()
        .filter_map(|from| match from {
            Pointer::Target(t) => Some(t.clone()),
            Pointer::Own => None,
        })
        .collect();
    Some(VectorPlan {
        width,
        lanes,
        targets,
        by_position,
        len,
    })
}

/// The C type that moves `n` bytes at once (aligned to `n`).
fn vector_type(n: usize) -> &'static str {
    match n {
        2 => "unsigned short",
        4 => "unsigned",
        8 => "sx_v8",
        _ => "sx_v16",
    }
}

/// The register array holding a group of `target`'s (`out`, `side{j}`)
/// elements.
fn lane_array(target: &str) -> String {
    format!("{target}_lanes")
}

/// The kernel over groups: each group loads its grouped inputs and the
/// targets it updates in place, runs the chain once per position (fully
/// unrolled), and stores its outputs; positions after the last whole group
/// run `scalar_body`, one a thread.
fn vector_kernel(
    params: &[String],
    plan: &VectorPlan,
    (out_dtype, sides): (DType, &[DType]),
    inputs: &[(Src, DType)],
    ix: Index,
    (scalar_body, lane_body): (&str, &str),
) -> String {
    let w = plan.width;
    let ty = ix.ty();
    let groups = plan.len / w;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void KERNEL({}) {{",
        params.join(", ")
    );
    let _ = writeln!(
        s,
        "  for ({ty} g = ({ty})blockIdx.x * blockDim.x + threadIdx.x; g < {}; g += ({ty})gridDim.x * blockDim.x) {{",
        ix.lit(groups)
    );
    let _ = writeln!(s, "    const {ty} p0 = g * {};", ix.lit(w));
    // Every output's group; one updated in place starts as the old values.
    let outputs = std::iter::once(("out".to_string(), out_dtype)).chain(
        sides
            .iter()
            .enumerate()
            .map(|(k, &d)| (format!("side{k}"), d)),
    );
    for (name, dtype) in outputs.clone() {
        let array = lane_array(&name);
        let _ = writeln!(s, "    alignas(16) {} {array}[{w}];", c::storage(dtype));
        if plan.targets.contains(&name) {
            let v = vector_type(bytes(dtype) * w);
            let _ = writeln!(s, "    sx_vcopy<{v}>({array}, {name} + p0);");
        }
    }
    for (k, ((src, dtype), &lane)) in inputs.iter().zip(&plan.lanes).enumerate() {
        let (Src::Mem { view, .. }, true) = (src, lane) else {
            continue;
        };
        let v = vector_type(bytes(*dtype) * w);
        let at = if view.offset == 0 {
            "p0".to_string()
        } else {
            format!("{} + p0", ix.lit(view.offset))
        };
        let _ = writeln!(
            s,
            "    alignas(16) {} in{k}_lanes[{w}];",
            c::storage(*dtype)
        );
        let _ = writeln!(s, "    sx_vcopy<{v}>(in{k}_lanes, in{k} + {at});");
    }
    let _ = writeln!(s, "#pragma unroll");
    let _ = writeln!(s, "    for ({ty} v = 0; v < {}; ++v) {{", ix.lit(w));
    if plan.by_position {
        let _ = writeln!(s, "      const {ty} p = p0 + v;");
    }
    for line in lane_body.lines() {
        let _ = writeln!(s, "      {line}");
    }
    s.push_str("    }\n");
    for (name, dtype) in outputs {
        let v = vector_type(bytes(dtype) * w);
        let _ = writeln!(s, "    sx_vcopy<{v}>({name} + p0, {});", lane_array(&name));
    }
    s.push_str("  }\n");
    // The tail, only where the length is not a whole number of groups
    // (its text would double NVRTC's work for nothing).
    if !plan.len.is_multiple_of(w) {
        let _ = writeln!(
            s,
            "  for ({ty} p = {} + ({ty})blockIdx.x * blockDim.x + threadIdx.x; p < {}; p += ({ty})gridDim.x * blockDim.x) {{",
            ix.lit(groups * w),
            ix.lit(plan.len)
        );
        for line in scalar_body.lines() {
            let _ = writeln!(s, "    {line}");
        }
        s.push_str("  }\n");
    }
    s.push_str("}\n");
    s
}

/// The statements computing one position `p` of a fused chain, and what
/// they read: input pointer parameters (splats and inputs read in place
/// take none) in `Step::reads` order.
pub struct Element {
    /// `const T* in{k}` for each memory input `k`.
    pub params: Vec<String>,
    pub order: Vec<Param>,
    /// One statement per instruction, into registers `r0`, `r1`, ...
    pub body: String,
    /// The register holding the value (bf16 already rounded).
    pub result: String,
}

/// The largest index a chain over `len` positions reads.
pub fn largest_extent(inputs: &[(Src, DType)], len: usize) -> usize {
    let mut largest = len;
    for (src, _) in inputs {
        if let Src::Mem { view, .. } = src {
            largest = largest.max(view.extent());
        }
    }
    largest
}

/// The statements of `kernel` at position `p`.
pub fn element(
    kernel: &FusedKernel,
    inputs: &[(Src, DType)],
    in_place: &[InPlace],
    ix: Index,
) -> Result<Element, GenError> {
    let reads = Reads {
        inputs,
        read_from: &pointers(inputs, in_place)?,
        ix,
        lanes: None,
    };
    element_with(kernel, &reads)
}

/// How a chain's loads read its inputs.
struct Reads<'a> {
    inputs: &'a [(Src, DType)],
    read_from: &'a [Pointer],
    ix: Index,
    /// In a group (`vector_kernel`): the inputs read from the group's
    /// register arrays (the in-place targets always are).
    lanes: Option<&'a [bool]>,
}

/// The statements of `kernel` at position `p`, or, with `reads.lanes`, at
/// position `v` of a group.
fn element_with(kernel: &FusedKernel, reads: &Reads<'_>) -> Result<Element, GenError> {
    let mut params = Vec::new();
    let mut order = Vec::new();
    for (k, (src, dtype)) in reads.inputs.iter().enumerate() {
        if let (Src::Mem { .. }, Pointer::Own) = (src, &reads.read_from[k]) {
            params.push(c::ptr_param(*dtype, &format!("in{k}"), false));
            order.push(Param::Input(order.len()));
        }
    }
    let mut body = String::new();
    for (r, instr) in kernel.instrs.iter().enumerate() {
        let ty = c::compute(instr.dtype());
        let value = expr(instr, reads)?;
        let _ = writeln!(body, "{ty} r{r} = {value};");
    }
    Ok(Element {
        params,
        order,
        body,
        result: format!("r{}", kernel.result.index()),
    })
}

/// Where a fused loop reads an input from.
enum Pointer {
    /// `in{k}`, through the input's view.
    Own,
    /// The target it is overwritten in place as (`out`, `side{j}`), at `p`.
    Target(String),
}

/// Each input's pointer, checking what reading in place relies on: the
/// input reads the loop's positions in order (an identity view) and has
/// the storage type of nothing but itself.
fn pointers(inputs: &[(Src, DType)], in_place: &[InPlace]) -> Result<Vec<Pointer>, GenError> {
    let mut read_from: Vec<Pointer> = inputs.iter().map(|_| Pointer::Own).collect();
    for ip in in_place {
        let Some((Src::Mem { view, .. }, _)) = inputs.get(ip.input) else {
            return Err(GenError::new(
                "internal: an in-place input that is not in memory",
            ));
        };
        if view.offset != 0 || !view.is_contiguous() {
            return Err(GenError::new(
                "internal: an in-place input read through a view",
            ));
        }
        read_from[ip.input] = Pointer::Target(match ip.target {
            0 => "out".to_string(),
            t => format!("side{}", t - 1),
        });
    }
    Ok(read_from)
}

fn reg(r: sexpgpu_compile::Reg) -> String {
    format!("r{}", r.index())
}

/// The C expression of one instruction, bf16 rounding included.
fn expr(instr: &Instr, reads: &Reads<'_>) -> Result<String, GenError> {
    let Reads {
        inputs,
        read_from,
        ix,
        lanes,
    } = *reads;
    let grouped = |k: usize| lanes.is_some_and(|l| l.get(k) == Some(&true));
    Ok(match *instr {
        Instr::Load { input, dtype } => match (inputs.get(input), read_from.get(input)) {
            (Some((Src::Mem { .. }, _)), Some(Pointer::Target(target))) => match lanes {
                Some(_) => c::widen(dtype, &format!("{}[v]", lane_array(target))),
                None => c::widen(dtype, &format!("{target}[p]")),
            },
            (Some((Src::Mem { .. }, _)), _) if grouped(input) => {
                c::widen(dtype, &format!("in{input}_lanes[v]"))
            }
            (Some((Src::Mem { view, .. }, _)), _) => c::widen(
                dtype,
                &format!("in{input}[{}]", c::view_index(view, "p", ix)),
            ),
            (Some((Src::Splat { value, .. }, _)), _) => c::scalar_lit(*value, dtype),
            (None, _) => return Err(GenError::new("a fused load names a missing input")),
        },
        Instr::Unary { op, x, dtype } => round(dtype, unary(op, &reg(x), dtype)),
        Instr::Binary { op, a, b, dtype } => round(dtype, binary(op, &reg(a), &reg(b), dtype)),
        Instr::Compare { op, a, b, .. } => {
            let sym = match op {
                CompareOp::Eq => "==",
                CompareOp::Ne => "!=",
                CompareOp::Lt => "<",
                CompareOp::Le => "<=",
                CompareOp::Gt => ">",
                CompareOp::Ge => ">=",
            };
            format!("{} {sym} {}", reg(a), reg(b))
        }
        Instr::Where { mask, a, b, .. } => format!("{} ? {} : {}", reg(mask), reg(a), reg(b)),
        Instr::Cast { x, from, to } => round(to, cast(&reg(x), from, to)),
    })
}

fn round(dtype: DType, e: String) -> String {
    if dtype == DType::BF16 {
        format!("sx_round_bf16({e})")
    } else {
        e
    }
}

fn unary(op: UnaryOp, x: &str, dtype: DType) -> String {
    match dtype {
        DType::F32 | DType::BF16 => match op {
            UnaryOp::Neg => format!("-{x}"),
            UnaryOp::Abs => format!("fabsf({x})"),
            UnaryOp::Sqrt => format!("sqrtf({x})"),
            // As the CPU computes it: a correctly rounded division.
            UnaryOp::Rsqrt => format!("1.0f / sqrtf({x})"),
            UnaryOp::Exp => format!("expf({x})"),
            UnaryOp::Log => format!("logf({x})"),
            UnaryOp::Sin => format!("sinf({x})"),
            UnaryOp::Cos => format!("cosf({x})"),
            UnaryOp::Tanh => format!("tanhf({x})"),
            UnaryOp::Acos => format!("acosf({x})"),
            UnaryOp::Asin => format!("asinf({x})"),
            unaries_in_f64!() | unaries_exact!() => later_unary(op, x),
        },
        // Only neg, abs and sign take integers; the reference keeps the
        // value under the rest.
        DType::I32 | DType::I64 => match op {
            UnaryOp::Neg => format!("sx_wneg({x})"),
            UnaryOp::Sign => format!("(({x} > 0) - ({x} < 0))"),
            UnaryOp::Abs => format!("sx_wabs({x})"),
            unaries_float_only!() => x.to_string(),
        },
        DType::Bool => x.to_string(),
    }
}

/// The later unaries as the reference computes them: the transcendental
/// ones in double, rounded once to float (`UnaryOp::f64_value`); the
/// rounding functions and `sign` exactly in float.
fn later_unary(op: UnaryOp, x: &str) -> String {
    let d = format!("(double){x}");
    let double = |e: String| format!("(float)({e})");
    match op {
        UnaryOp::Sigmoid => double(format!("1.0 / (1.0 + exp(-{d}))")),
        UnaryOp::Softplus => double(format!("fmax({d}, 0.0) + log1p(exp(-fabs({d})))")),
        UnaryOp::Log1p => double(format!("log1p({d})")),
        UnaryOp::Expm1 => double(format!("expm1({d})")),
        UnaryOp::Erf => double(format!("erf({d})")),
        UnaryOp::Sinh => double(format!("sinh({d})")),
        UnaryOp::Cosh => double(format!("cosh({d})")),
        UnaryOp::Tan => double(format!("tan({d})")),
        UnaryOp::Atan => double(format!("atan({d})")),
        UnaryOp::Asinh => double(format!("asinh({d})")),
        UnaryOp::Acosh => double(format!("acosh({d})")),
        UnaryOp::Atanh => double(format!("atanh({d})")),
        UnaryOp::Log2 => double(format!("log2({d})")),
        UnaryOp::Exp2 => double(format!("exp2({d})")),
        UnaryOp::Log10 => double(format!("log10({d})")),
        UnaryOp::Floor => format!("floorf({x})"),
        UnaryOp::Ceil => format!("ceilf({x})"),
        UnaryOp::Round => format!("rintf({x})"),
        UnaryOp::Trunc => format!("truncf({x})"),
        UnaryOp::Sign => format!("(float)((0.0f < {x}) - ({x} < 0.0f))"),
        UnaryOp::StopGradient => x.to_string(),
        // The original unaries have their own text in `unary`.
        unaries_in_f32!() => x.to_string(),
    }
}

/// `quot rem floor-div mod` of floats, as the reference (PyTorch's rules).
fn float_division(op: BinaryOp, a: &str, b: &str) -> String {
    let m = format!("fmodf({a}, {b})");
    match op {
        BinaryOp::Quot => format!("truncf({a} / {b})"),
        BinaryOp::Rem => m,
        BinaryOp::Mod => {
            format!("(({m} != 0.0f && (({m} < 0.0f) != ({b} < 0.0f))) ? {m} + {b} : {m})")
        }
        BinaryOp::FloorDiv => format!(
            "[](float a, float b) {{ if (b == 0.0f) return a / b; float m = fmodf(a, b); \
float d = (a - m) / b; if (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) d -= 1.0f; \
if (d == 0.0f) return copysignf(0.0f, a / b); float f = floorf(d); \
return d - f > 0.5f ? f + 1.0f : f; }}({a}, {b})"
        ),
        // Integer-only ops never reach floats (builders check); the
        // others are `binary`'s own.
        binaries_arith!() | binaries_float_only!() | binaries_bitwise!() => "SX_NAN".to_string(),
    }
}

/// The integer-only binaries and integer division, as the reference:
/// division by zero is 0, `MIN / -1` wraps, shifts outside the width
/// leave 0 (left) or the sign (right).
fn int_division(op: BinaryOp, a: &str, b: &str, dtype: DType) -> String {
    let (ty, uty, width) = if dtype == DType::I64 {
        ("long long", "unsigned long long", 64)
    } else {
        ("int", "unsigned", 32)
    };
    let quot = format!("({b} == 0 ? ({ty})0 : {b} == -1 ? sx_wneg({a}) : {a} / {b})");
    let rem = format!("(({b} == 0 || {b} == -1) ? ({ty})0 : {a} % {b})");
    let wrong_sign = format!("({rem} != 0 && (({rem} < 0) != ({b} < 0)))");
    match op {
        BinaryOp::Quot => quot,
        BinaryOp::Rem => rem,
        BinaryOp::FloorDiv => format!("({wrong_sign} ? {quot} - 1 : {quot})"),
        BinaryOp::Mod => format!("({wrong_sign} ? {rem} + {b} : {rem})"),
        BinaryOp::BitAnd => format!("({a} & {b})"),
        BinaryOp::BitOr => format!("({a} | {b})"),
        BinaryOp::BitXor => format!("({a} ^ {b})"),
        BinaryOp::ShiftLeft => {
            format!("(({uty}){b} < {width}u ? ({ty})(({uty}){a} << {b}) : ({ty})0)")
        }
        BinaryOp::ShiftRight => {
            format!(
                "(({uty}){b} < {width}u ? {a} >> {b} : {a} >> {})",
                width - 1
            )
        }
        // Float-only ops never reach integers; 0 as the reference gives.
        // The others are `binary`'s own.
        binaries_arith!() | binaries_float_only!() => format!("({ty})0"),
    }
}

fn binary(op: BinaryOp, a: &str, b: &str, dtype: DType) -> String {
    match dtype {
        DType::F32 | DType::BF16 => match op {
            BinaryOp::Add => format!("{a} + {b}"),
            BinaryOp::Sub => format!("{a} - {b}"),
            BinaryOp::Mul => format!("{a} * {b}"),
            BinaryOp::Div => format!("{a} / {b}"),
            BinaryOp::Pow => format!("powf({a}, {b})"),
            BinaryOp::Maximum => format!("sx_max({a}, {b})"),
            BinaryOp::Minimum => format!("sx_min({a}, {b})"),
            BinaryOp::Atan2 => format!("atan2f({a}, {b})"),
            BinaryOp::CopySign => format!("copysignf({a}, {b})"),
            binaries_division!() | binaries_bitwise!() => float_division(op, a, b),
        },
        DType::I32 | DType::I64 => match op {
            BinaryOp::Add => format!("sx_wadd({a}, {b})"),
            BinaryOp::Sub => format!("sx_wsub({a}, {b})"),
            BinaryOp::Mul => format!("sx_wmul({a}, {b})"),
            BinaryOp::Maximum => format!("({a} > {b} ? {a} : {b})"),
            BinaryOp::Minimum => format!("({a} < {b} ? {a} : {b})"),
            binaries_float_only!() | binaries_division!() | binaries_bitwise!() => {
                int_division(op, a, b, dtype)
            }
        },
        // Only the bitwise ops take bool (builders check); the reference
        // keeps the left operand under the others.
        DType::Bool => match op {
            BinaryOp::BitAnd => format!("({a} & {b})"),
            BinaryOp::BitOr => format!("({a} | {b})"),
            BinaryOp::BitXor => format!("({a} != {b})"),
            BinaryOp::ShiftLeft | BinaryOp::ShiftRight | binaries_arith!() => a.to_string(),
            binaries_float_only!() | binaries_division!() => a.to_string(),
        },
    }
}

/// The reference's casts: floats to integers truncate and saturate (NaN
/// is 0), i64 to i32 wraps, anything to bool is `!= 0`, bool to 0/1.
fn cast(x: &str, from: DType, to: DType) -> String {
    use DType::*;
    match (from, to) {
        (F32 | BF16, F32 | BF16) | (I32, I32) | (I64, I64) | (Bool, Bool) => x.to_string(),
        (F32 | BF16, I32) => format!("sx_f2i((double){x})"),
        (F32 | BF16, I64) => format!("sx_f2l((double){x})"),
        (F32 | BF16, Bool) => format!("({x} != 0.0f)"),
        (I32 | I64, F32 | BF16) => format!("(float){x}"),
        (I32, I64) => format!("(long long){x}"),
        (I64, I32) => format!("(int)(unsigned)(unsigned long long){x}"),
        (I32 | I64, Bool) => format!("({x} != 0)"),
        (Bool, F32 | BF16) => format!("({x} ? 1.0f : 0.0f)"),
        (Bool, I32) => format!("({x} ? 1 : 0)"),
        (Bool, I64) => format!("({x} ? 1LL : 0LL)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sexpgpu_compile::{Loc, View};

    fn mem(view: View, dtype: DType) -> (Src, DType) {
        (
            Src::Mem {
                loc: Loc::Arg(0),
                view,
            },
            dtype,
        )
    }

    /// `(width, grouped inputs)` of a loop over `[4, 16]` writing `out`.
    fn plan(inputs: &[(Src, DType)], out: DType, len: usize) -> Option<(usize, Vec<bool>)> {
        let own: Vec<Pointer> = inputs.iter().map(|_| Pointer::Own).collect();
        vector_plan(inputs, &own, out, &[], len).map(|p| (p.width, p.lanes))
    }

    #[test]
    fn groups_move_sixteen_bytes_of_the_widest_output() {
        let x = |d| mem(View::contiguous(&[4, 16]), d);
        assert_eq!(
            plan(&[x(DType::BF16)], DType::BF16, 64),
            Some((8, vec![true]))
        );
        assert_eq!(
            plan(&[x(DType::BF16)], DType::F32, 64),
            Some((4, vec![true]))
        );
        // An i64 input would need 32 bytes a group of 4: read one by one.
        assert_eq!(
            plan(&[x(DType::I64)], DType::F32, 64),
            Some((4, vec![false]))
        );
        assert_eq!(
            plan(&[x(DType::F32)], DType::I64, 64),
            Some((2, vec![true]))
        );
        // Shorter than one group: the plain loop.
        assert_eq!(plan(&[x(DType::BF16)], DType::BF16, 7), None);
    }

    #[test]
    fn only_inputs_stored_in_the_loops_order_are_read_as_groups() {
        let row = mem(View::contiguous(&[16]).broadcast(&[4, 16]), DType::F32);
        let transposed = mem(View::contiguous(&[16, 4]).transpose(&[1, 0]), DType::F32);
        // Starting 2 elements in, its groups would be misaligned.
        let shifted = mem(
            View {
                offset: 2,
                ..View::contiguous(&[4, 16])
            },
            DType::F32,
        );
        let aligned = mem(
            View {
                offset: 8,
                ..View::contiguous(&[4, 16])
            },
            DType::F32,
        );
        let got = plan(&[row, transposed, shifted, aligned], DType::F32, 64);
        assert_eq!(got, Some((4, vec![false, false, false, true])));
    }
}
