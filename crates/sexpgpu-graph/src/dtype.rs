//! Element types (`f32 bf16 i32 i64 bool`) and host scalars; knows nothing of
//! shapes, graphs or execution.

use half::bf16;
use std::fmt;
use std::hash::{Hash, Hasher};

/// The element type of a tensor. Names are the dtype keywords of `docs/sexpgpu/operations.md` without the colon.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    F32,
    BF16,
    I32,
    I64,
    Bool,
}

impl DType {
    pub const ALL: [DType; 5] = [DType::F32, DType::BF16, DType::I32, DType::I64, DType::Bool];

    /// Parses a dtype keyword, with or without its colon: `f32`, `:bf16`.
    /// `None` for anything else; the caller reports it as `E-DIM-002`.
    pub fn from_keyword(name: &str) -> Option<DType> {
        let name = name.strip_prefix(':').unwrap_or(name);
        DType::ALL.into_iter().find(|dtype| dtype.name() == name)
    }

    /// The keyword name without the colon, as the IR and messages print it.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::BF16 => "bf16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::Bool => "bool",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::BF16)
    }

    pub fn is_integer(self) -> bool {
        matches!(self, DType::I32 | DType::I64)
    }

    /// Floats and integers: the types arithmetic accepts.
    pub fn is_numeric(self) -> bool {
        self != DType::Bool
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A host number or boolean, as it arrives from the caller (a literal, a
/// keyword argument) or as a `full` node stores its repeated value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Float(f64),
    Int(i64),
    Bool(bool),
}

/// Consistent with `==`: `0.0` and `-0.0` hash alike; a NaN equals nothing,
/// so its hash is free (its bits). Lets a step holding a scalar key a cache.
impl Hash for Scalar {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match *self {
            Scalar::Float(x) => hash_f64(x, state),
            Scalar::Int(i) => i.hash(state),
            Scalar::Bool(b) => b.hash(state),
        }
    }
}

/// Hashes a float consistently with `==` (`0.0 == -0.0`), for `Hash` impls
/// of types holding floats.
pub fn hash_f64<H: Hasher>(x: f64, state: &mut H) {
    let canonical = if x == 0.0 { 0.0f64 } else { x };
    canonical.to_bits().hash(state);
}

impl Scalar {
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Float(x) => x,
            Scalar::Int(i) => i as f64,
            Scalar::Bool(b) => f64::from(u8::from(b)),
        }
    }

    /// Integers exactly; floats truncated toward zero (saturating), as a cast does.
    pub fn as_i64(self) -> i64 {
        match self {
            Scalar::Float(x) => x as i64,
            Scalar::Int(i) => i,
            Scalar::Bool(b) => i64::from(b),
        }
    }

    pub fn as_bool(self) -> bool {
        match self {
            Scalar::Float(x) => x != 0.0,
            Scalar::Int(i) => i != 0,
            Scalar::Bool(b) => b,
        }
    }

    /// The value as an element of `dtype`, or `None` when it would change kind
    /// silently: a float into an integer or boolean tensor, a number into a
    /// boolean one, a boolean into a numeric one.
    pub fn convert_to(self, dtype: DType) -> Option<Scalar> {
        if self.out_of_range(dtype).is_some() {
            return None;
        }
        match (self, dtype) {
            (Scalar::Float(x), DType::F32 | DType::BF16) => Some(Scalar::Float(x)),
            (Scalar::Int(i), DType::F32 | DType::BF16) => Some(Scalar::Float(i as f64)),
            (Scalar::Int(i), DType::I32 | DType::I64) => Some(Scalar::Int(i)),
            (Scalar::Bool(b), DType::Bool) => Some(Scalar::Bool(b)),
            _ => None,
        }
    }

    /// Why a number of the right kind still cannot be a `dtype` element:
    /// an integer outside `i32`, or a finite float that would become
    /// infinite. A number is never truncated or wrapped silently
    /// (`docs/sexpgpu/operations.md`).
    pub fn out_of_range(self, dtype: DType) -> Option<String> {
        match (self, dtype) {
            (Scalar::Int(i), DType::I32) if i32::try_from(i).is_err() => Some(format!(
                "{self} does not fit i32 (from {} to {})",
                i32::MIN,
                i32::MAX
            )),
            (Scalar::Float(x), DType::F32) if x.is_finite() && x.abs() > f64::from(f32::MAX) => {
                Some(format!(
                    "{self} is too large for f32: it would become infinite"
                ))
            }
            (Scalar::Float(x), DType::BF16) if x.is_finite() && bf16::from_f64(x).is_infinite() => {
                Some(format!(
                    "{self} is too large for bf16: it would become infinite"
                ))
            }
            _ => None,
        }
    }

    /// The dtype a bare number takes when no tensor decides it: `f32` for
    /// floats, `i32` for integers (the defaults of `docs/sexpgpu/operations.md`), `bool` for booleans.
    pub fn default_dtype(self) -> DType {
        match self {
            Scalar::Float(_) => DType::F32,
            Scalar::Int(_) => DType::I32,
            Scalar::Bool(_) => DType::Bool,
        }
    }

    /// A short word for messages: `a float`, `an integer`, `a boolean`.
    pub fn kind_phrase(self) -> &'static str {
        match self {
            Scalar::Float(_) => "a float",
            Scalar::Int(_) => "an integer",
            Scalar::Bool(_) => "a boolean",
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Scalar::Float(x) => f.write_str(&crate::format::format_f64(x)),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Bool(b) => write!(f, "{b}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash_of(s: Scalar) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        s.hash(&mut h);
        h.finish()
    }

    #[test]
    fn equal_scalars_hash_alike() {
        assert_eq!(Scalar::Float(0.0), Scalar::Float(-0.0));
        assert_eq!(hash_of(Scalar::Float(0.0)), hash_of(Scalar::Float(-0.0)));
        assert_eq!(hash_of(Scalar::Float(1.5)), hash_of(Scalar::Float(1.5)));
        assert_ne!(hash_of(Scalar::Float(1.0)), hash_of(Scalar::Int(1)));
        assert_ne!(hash_of(Scalar::Int(0)), hash_of(Scalar::Bool(false)));
    }
}
