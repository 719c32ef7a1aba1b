//! The small vocabulary every generator shares: C types of dtypes, exact
//! literals, index arithmetic over strided views baked in as constants
//! (shapes are static, so every kernel is specialised to its sizes), and
//! the kernel text's frame. Pure string building.

use std::fmt::Write;

use sexpgpu_compile::{Loc, Plan, View};
use sexpgpu_graph::{DType, Scalar};

/// The element type a buffer of `dtype` holds on the device. bf16 is kept
/// as its 16 bits so kernels need no CUDA header and round exactly as the
/// CPU does (`prelude::PRELUDE`); bool is one byte, as Rust stores it.
pub fn storage(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "float",
        DType::BF16 => "unsigned short",
        DType::I32 => "int",
        DType::I64 => "long long",
        DType::Bool => "unsigned char",
    }
}

/// The type elements are computed in: bf16 widens to float, bool to bool.
pub fn compute(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 | DType::BF16 => "float",
        DType::I32 => "int",
        DType::I64 => "long long",
        DType::Bool => "bool",
    }
}

/// A stored element widened to its compute type.
pub fn widen(dtype: DType, element: &str) -> String {
    match dtype {
        DType::BF16 => format!("sx_bf16_load({element})"),
        DType::Bool => format!("({element} != 0)"),
        _ => element.to_string(),
    }
}

/// A computed value (bf16 already rounded) narrowed to its storage type.
pub fn narrow(dtype: DType, value: &str) -> String {
    match dtype {
        DType::BF16 => format!("sx_bf16_bits({value})"),
        DType::Bool => format!("(unsigned char)({value})"),
        _ => value.to_string(),
    }
}

/// An f32 literal that is exactly `x` (hex bits, so no decimal rounding).
pub fn f32_lit(x: f32) -> String {
    format!("__int_as_float(0x{:08x})", x.to_bits())
}

/// An f64 literal that is exactly `x`.
pub fn f64_lit(x: f64) -> String {
    format!("__longlong_as_double(0x{:016x}LL)", x.to_bits())
}

/// A splat value in its compute type, converted as the CPU's registers
/// convert it (`Scalar` already holds the dtype's value).
pub fn scalar_lit(value: Scalar, dtype: DType) -> String {
    match dtype {
        DType::F32 | DType::BF16 => f32_lit(value.as_f64() as f32),
        DType::I32 => format!("(int){}", value.as_i64() as i32),
        DType::I64 => i64_lit(value.as_i64()),
        DType::Bool => (if value.as_bool() { "true" } else { "false" }).to_string(),
    }
}

/// A value as a stored element, converted as the CPU's `fill::splat`
/// converts it (bf16 straight from f64, as its bits).
pub fn stored_lit(value: sexpgpu_graph::Scalar, dtype: DType) -> String {
    match dtype {
        DType::BF16 => {
            let bits = half::bf16::from_f64(value.as_f64()).to_bits();
            format!("(unsigned short)0x{bits:04x}")
        }
        DType::Bool => format!("(unsigned char){}", u8::from(value.as_bool())),
        _ => scalar_lit(value, dtype),
    }
}

/// An i64 literal (via its bits, so `i64::MIN` needs no special case).
pub fn i64_lit(x: i64) -> String {
    format!("(long long)0x{:016x}ULL", x as u64)
}

/// The dtype of whatever `loc` names.
pub fn loc_dtype(plan: &Plan, loc: Loc) -> DType {
    match loc {
        Loc::Arg(k) => plan.arguments[k].dtype,
        Loc::Const(k) => plan.constants[k].dtype(),
        Loc::Buf(b) => plan.buffers[b.0 as usize].dtype,
    }
}

/// The integer type index arithmetic uses: 32-bit when every index of
/// the kernel fits, which keeps divisions by the baked sizes cheap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    U32,
    U64,
}

impl Index {
    pub fn for_extent(largest: usize) -> Index {
        if largest < (1usize << 31) {
            Index::U32
        } else {
            Index::U64
        }
    }

    pub fn ty(self) -> &'static str {
        match self {
            Index::U32 => "unsigned",
            Index::U64 => "unsigned long long",
        }
    }

    /// An unsigned literal of this type.
    pub fn lit(self, x: usize) -> String {
        match self {
            Index::U32 => format!("{x}u"),
            Index::U64 => format!("{x}ull"),
        }
    }
}

/// The element index a view reads at row-major position `pos` (a C
/// expression of type `ix`): the view is collapsed first, so contiguous
/// and repeated views cost no division.
pub fn view_index(view: &View, pos: &str, ix: Index) -> String {
    let v = view.collapsed();
    let mut terms = Vec::new();
    if v.offset != 0 {
        terms.push(ix.lit(v.offset));
    }
    let r = v.dims.len();
    let mut inner = 1usize;
    for a in (0..r).rev() {
        let (d, s) = (v.dims[a], v.strides[a]);
        if s != 0 && d > 1 {
            let coord = match (inner, a) {
                (1, 0) => pos.to_string(),
                (1, _) => format!("({pos} % {})", ix.lit(d)),
                (_, 0) => format!("({pos} / {})", ix.lit(inner)),
                _ => format!("({pos} / {} % {})", ix.lit(inner), ix.lit(d)),
            };
            terms.push(if s == 1 {
                coord
            } else {
                format!("{coord} * {}", ix.lit(s))
            });
        }
        inner *= d;
    }
    if terms.is_empty() {
        ix.lit(0)
    } else {
        terms.join(" + ")
    }
}

/// A kernel parameter list entry: `T* __restrict__ name` or `const T*`.
pub fn ptr_param(dtype: DType, name: &str, write: bool) -> String {
    if write {
        format!("{}* __restrict__ {name}", storage(dtype))
    } else {
        format!("const {}* __restrict__ {name}", storage(dtype))
    }
}

/// `extern "C" __global__ void NAME(params) { grid-stride loop over n }`:
/// `body` sees the position `p` (of type `ix`).
pub fn grid_kernel(params: &[String], n: usize, ix: Index, body: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "extern \"C\" __global__ void KERNEL({}) {{",
        params.join(", ")
    );
    let ty = ix.ty();
    let _ = writeln!(
        s,
        "  for ({ty} p = ({ty})blockIdx.x * blockDim.x + threadIdx.x; p < {n}; p += ({ty})gridDim.x * blockDim.x) {{",
        n = ix.lit(n)
    );
    for line in body.lines() {
        let _ = writeln!(s, "    {line}");
    }
    s.push_str("  }\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn view_indices_are_collapsed_arithmetic() {
        let ix = Index::U32;
        let t = View::contiguous(&[2, 3]).transpose(&[1, 0]);
        let got = [
            view_index(&View::contiguous(&[4, 5]), "p", ix),
            view_index(&View::contiguous(&[4]).broadcast(&[3, 4]), "p", ix),
            view_index(&t, "p", ix),
            view_index(&View::contiguous(&[4, 5]).slice(1, 1, 3), "p", ix),
            view_index(&View::contiguous(&[1]).broadcast(&[7]), "p", ix),
        ];
        expect![[r#"
            p
            (p % 4u)
            (p % 2u) * 3u + (p / 2u)
            1u + (p % 2u) + (p / 2u) * 5u
            0u"#]]
        .assert_eq(&got.join("\n"));
    }
}
