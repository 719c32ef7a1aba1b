//! PyTorch's type promotion, as one table (`docs/shapescript/dtypes.md`):
//! the dtype of an elementwise operation's result from its operands'
//! dtypes, ranks and Python numbers, exactly as `torch.result_type`
//! decides it (a test compares every pair with it), and the dtypes each
//! operation is defined for. Plain functions; never reports diagnostics.
//!
//! A tensor type without a dtype is a float tensor of the call's float
//! dtype (`docs/shapescript/functions.md`): `Dtype` is `None` for it.

use crate::types::{DtypeKind, ScalarKind};

/// A tensor's dtype as the checker knows it: a concrete one, or `None` for
/// the call's float dtype.
pub(crate) type Dtype = Option<DtypeKind>;

/// PyTorch's categories, lowest first: a higher one decides the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Category {
    Bool,
    Int,
    Float,
}

pub(crate) fn category(d: Dtype) -> Category {
    match d {
        Some(DtypeKind::Bool) => Category::Bool,
        Some(DtypeKind::I32 | DtypeKind::I64) => Category::Int,
        _ => Category::Float,
    }
}

/// How many axes a tensor operand has, as far as promotion cares: PyTorch
/// lets a tensor with axes decide over a tensor of none within a category.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rank {
    Zero,
    Positive,
    /// A shapeless type (`x: Real`), which takes any rank.
    Unknown,
}

/// One operand of an elementwise operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Operand {
    Tensor(Dtype, Rank),
    /// A Python number (`2`, `0.5`, `true`, an `Int` value).
    Number(ScalarKind),
}

/// Why there is no one result dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoResult {
    /// Two float dtypes, or a concrete float dtype and the call's: the
    /// checker asks for a conversion (E0502) rather than promote.
    FloatMix(Dtype, Dtype),
    /// A shapeless operand's rank decides (`[n] i32` + `i64`): the result
    /// is one dtype with axes and another without.
    DependsOnRank,
}

/// `torch.promote_types` of two concrete dtypes.
pub(crate) fn promote_types(a: DtypeKind, b: DtypeKind) -> DtypeKind {
    use DtypeKind::*;
    match (a, b) {
        _ if a == b => a,
        (Bool, x) | (x, Bool) => x,
        (I32, I64) | (I64, I32) => I64,
        (I32 | I64, x) | (x, I32 | I64) => x,
        (F64, _) | (_, F64) => F64,
        // f16 with bf16, and either with f32.
        _ => F32,
    }
}

/// `promote_types` with the call's float dtype: it wins over integers and
/// bools, and meets another float dtype only as a mix.
fn promote(a: Dtype, b: Dtype) -> Result<Dtype, NoResult> {
    match (a, b) {
        (Some(x), Some(y)) => {
            if x != y && category(a) == Category::Float && category(b) == Category::Float {
                return Err(NoResult::FloatMix(a, b));
            }
            Ok(Some(promote_types(x, y)))
        }
        (None, None) => Ok(None),
        (None, other) | (other, None) if category(other) != Category::Float => Ok(None),
        _ => Err(NoResult::FloatMix(a, b)),
    }
}

/// The dtype a Python number has in an operation: PyTorch's default
/// float dtype (`f32`) for a `Float`, `i64` for an `Int`.
fn number_dtype(kind: ScalarKind) -> DtypeKind {
    match kind {
        ScalarKind::Int => DtypeKind::I64,
        ScalarKind::Float => DtypeKind::F32,
        ScalarKind::Bool => DtypeKind::Bool,
    }
}

/// PyTorch's `combine_categories`: the higher state decides unless the
/// lower one's category is above it.
fn combine(higher: Option<Dtype>, lower: Option<Dtype>) -> Result<Option<Dtype>, NoResult> {
    let (Some(h), Some(l)) = (higher, lower) else {
        return Ok(higher.or(lower));
    };
    if category(h) == Category::Float {
        return Ok(Some(h));
    }
    if category(h) == Category::Bool || category(l) == Category::Float {
        return promote(h, l).map(Some);
    }
    Ok(Some(h))
}

/// The result dtype of an elementwise operation on `operands`, as
/// `torch.result_type` decides it; `None` inside for the call's float
/// dtype. A shapeless operand whose rank would change the result is
/// `DependsOnRank`.
pub(crate) fn result_type(operands: &[Operand]) -> Result<Dtype, NoResult> {
    let unknown: Vec<usize> = (0..operands.len())
        .filter(|&i| matches!(operands[i], Operand::Tensor(_, Rank::Unknown)))
        .collect();
    // Each shapeless operand with and without axes (at most a few).
    let mut found: Option<Dtype> = None;
    for assignment in 0..1usize << unknown.len().min(8) {
        let mut ops = operands.to_vec();
        for (bit, &i) in unknown.iter().enumerate() {
            if let Operand::Tensor(d, _) = ops[i] {
                let rank = if assignment >> bit & 1 == 1 {
                    Rank::Positive
                } else {
                    Rank::Zero
                };
                ops[i] = Operand::Tensor(d, rank);
            }
        }
        let d = result_of_known_ranks(&ops)?;
        match found {
            Some(f) if f != d => return Err(NoResult::DependsOnRank),
            _ => found = Some(d),
        }
    }
    Ok(found.flatten())
}

fn result_of_known_ranks(operands: &[Operand]) -> Result<Dtype, NoResult> {
    let (mut dim, mut zero, mut number): (Option<Dtype>, Option<Dtype>, Option<Dtype>) =
        (None, None, None);
    let update = |state: &mut Option<Dtype>, d: Dtype| -> Result<(), NoResult> {
        *state = Some(match *state {
            Some(s) => promote(s, d)?,
            None => d,
        });
        Ok(())
    };
    for op in operands {
        match *op {
            Operand::Tensor(d, Rank::Zero) => update(&mut zero, d)?,
            Operand::Tensor(d, _) => update(&mut dim, d)?,
            Operand::Number(kind) => update(&mut number, Some(number_dtype(kind)))?,
        }
    }
    let lower = combine(zero, number)?;
    Ok(combine(dim, lower)?.flatten())
}

/// Whether `d` is an integer or bool dtype (true division and the float
/// functions make a float of them).
pub(crate) fn is_integral(d: Dtype) -> bool {
    category(d) != Category::Float
}

/// The dtype of `sum`, `prod` and `cumsum`: integers and bools add up in
/// `i64`, as PyTorch's do.
pub(crate) fn accumulated(d: Dtype) -> Dtype {
    if is_integral(d) {
        Some(DtypeKind::I64)
    } else {
        d
    }
}

/// The name PyTorch's messages give a dtype, for ours.
pub(crate) fn show(d: Dtype) -> &'static str {
    match d {
        Some(d) => d.as_str(),
        None => "the call's float dtype",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DtypeKind::*;

    #[test]
    fn tensors_with_axes_decide_within_a_category() {
        let dim = |d| Operand::Tensor(Some(d), Rank::Positive);
        let zero = |d| Operand::Tensor(Some(d), Rank::Zero);
        assert_eq!(result_type(&[dim(I32), zero(I64)]), Ok(Some(I32)));
        assert_eq!(result_type(&[dim(I32), dim(I64)]), Ok(Some(I64)));
        assert_eq!(result_type(&[dim(I32), zero(F16)]), Ok(Some(F16)));
        assert_eq!(
            result_type(&[dim(Bool), Operand::Number(ScalarKind::Int)]),
            Ok(Some(I64))
        );
        assert_eq!(
            result_type(&[dim(I32), Operand::Number(ScalarKind::Float)]),
            Ok(Some(F32))
        );
        assert_eq!(
            result_type(&[dim(I32), Operand::Number(ScalarKind::Int)]),
            Ok(Some(I32))
        );
        assert_eq!(
            result_type(&[Operand::Tensor(None, Rank::Positive), dim(I64)]),
            Ok(None)
        );
        assert_eq!(
            result_type(&[Operand::Tensor(Some(I32), Rank::Unknown), dim(I64)]),
            Ok(Some(I64))
        );
        assert_eq!(
            result_type(&[dim(I32), Operand::Tensor(Some(I64), Rank::Unknown)]),
            Err(NoResult::DependsOnRank)
        );
    }

    const ALL: [DtypeKind; 7] = [Bool, I32, I64, F16, Bf16, F32, F64];

    /// Every operand kind: each dtype as a tensor with axes and as one of
    /// none, and each kind of Python number; with its Python expression.
    fn operands() -> Vec<(Operand, String)> {
        let mut out = Vec::new();
        for d in ALL {
            let torch = format!("torch.{}", torch_name(d));
            out.push((
                Operand::Tensor(Some(d), Rank::Positive),
                format!("torch.ones(2, dtype={torch})"),
            ));
            out.push((
                Operand::Tensor(Some(d), Rank::Zero),
                format!("torch.ones((), dtype={torch})"),
            ));
        }
        out.push((Operand::Number(ScalarKind::Int), "2".into()));
        out.push((Operand::Number(ScalarKind::Float), "2.5".into()));
        out.push((Operand::Number(ScalarKind::Bool), "True".into()));
        out
    }

    fn torch_name(d: DtypeKind) -> &'static str {
        match d {
            Bool => "bool",
            I32 => "int32",
            I64 => "int64",
            F16 => "float16",
            Bf16 => "bfloat16",
            F32 => "float32",
            F64 => "float64",
        }
    }

    /// The table against `torch.result_type` for every pair of operands
    /// with at least one tensor. Pairs of two float dtypes are compared too:
    /// the checker refuses them (E0502) rather than promote, but the table
    /// under that rule must still be PyTorch's.
    #[test]
    fn the_table_is_torch_result_type_for_every_pair() {
        let ops = operands();
        let mut script = String::from("import torch\n");
        let mut ours = Vec::new();
        for (a, pa) in &ops {
            for (b, pb) in &ops {
                if matches!((a, b), (Operand::Number(_), Operand::Number(_))) {
                    continue;
                }
                script.push_str(&format!(
                    "print(str(torch.result_type({pa}, {pb})).removeprefix('torch.'))\n"
                ));
                let ours_one = match result_type(&[*a, *b]) {
                    Ok(Some(d)) => torch_name(d).to_string(),
                    Ok(None) => "?".to_string(),
                    Err(NoResult::FloatMix(Some(x), Some(y))) => {
                        torch_name(promote_types(x, y)).to_string()
                    }
                    Err(e) => format!("{e:?}"),
                };
                ours.push((format!("{pa} with {pb}"), ours_one));
            }
        }
        let out = std::process::Command::new(uitest::support::python())
            .args(["-c", &script])
            .output()
            .expect("the venv's python runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let theirs: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(theirs.len(), ours.len());
        let wrong: Vec<String> = ours
            .iter()
            .zip(&theirs)
            .filter(|((_, o), t)| o != *t)
            .map(|((what, o), t)| format!("{what}: ours {o}, torch {t}"))
            .collect();
        assert!(
            wrong.is_empty(),
            "{} of {} pairs differ:\n{}",
            wrong.len(),
            ours.len(),
            wrong.join("\n")
        );
    }
}
