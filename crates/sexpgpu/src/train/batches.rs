//! Where a run's batches come from: columns of a dataset cut into batches
//! of rows (`nn/batches`, shuffled each epoch from the run seed), the whole
//! dataset every step (a plain map of tensors), or random windows of a
//! token sequence (`nn/windows`, for language models). Every batch is a
//! pure function of (seed, batch number), so a resumed run sees exactly the
//! batches a straight run would. Data that does not fit is `E-RUN-004`.

use super::run_error;
use crate::codes;
use crate::eval::EvalResult;
use crate::value::Value;
use diag::Span;
use sexpgpu_graph::random::{element_bits, fold_seed, stream_key};
use sexpgpu_graph::{DType, Shape, Tensor, TensorData};
use std::rc::Rc;

/// Keeps data order streams apart from every graph's random streams.
const DATA_TAG: u64 = 0x6461_7461_7365_7473;

/// One column of a dataset: its key, its name in the step graph, and its data.
pub type Column = (Value, String, Rc<Tensor>);

pub enum Batches {
    Rows {
        /// Each column's key, its name in the step graph, and its data.
        columns: Vec<Column>,
        rows: usize,
        size: usize,
        shuffle: bool,
    },
    Windows {
        tokens: Rc<Tensor>,
        length: usize,
        size: usize,
        /// Batches in one pass (an evaluation); by default as many as
        /// cover the tokens once.
        count: Option<usize>,
    },
}

/// `(nn/windows tokens :length n :size b)`: a 1-D integer tensor longer
/// than one window.
fn windows(tokens: Value, get: &dyn Fn(&str) -> Option<Value>, span: Span) -> EvalResult<Batches> {
    let Value::HostTensor(tokens) = tokens else {
        return Err(run_error(
            codes::E_RUN_004,
            "nn/windows needs a tensor of token ids",
            span,
        )
        .into());
    };
    if tokens.shape().rank() != 1 || !tokens.dtype().is_integer() {
        return Err(run_error(
            codes::E_RUN_004,
            format!(
                "nn/windows needs a 1-D integer tensor of token ids, got {} {}",
                tokens.shape(),
                tokens.dtype()
            ),
            span,
        )
        .into());
    }
    let length = positive(get("length"), "length", span)?;
    let size = positive(get("size"), "size", span)?;
    if tokens.numel() <= length {
        return Err(run_error(
            codes::E_RUN_004,
            format!(
                "nn/windows: {} tokens are too few for windows of {length}",
                tokens.numel()
            ),
            span,
        )
        .into());
    }
    let count = match get("count") {
        None | Some(Value::Nil) => None,
        other => Some(positive(other, "count", span)?),
    };
    Ok(Batches::Windows {
        tokens,
        length,
        size,
        count,
    })
}

/// A dataset's columns (key, name, data) and its row count: every column a
/// loaded tensor with the same first dimension, and at least one row.
fn columns(entries: &[(Value, Value)], span: Span) -> EvalResult<(Vec<Column>, usize)> {
    let mut columns = Vec::new();
    let mut rows = None;
    for (key, column) in entries.iter() {
        let name = match key {
            Value::Keyword(k) | Value::Str(k) | Value::Symbol(k) => k.to_string(),
            other => short(other),
        };
        let Value::HostTensor(t) = column else {
            return Err(run_error(
                codes::E_RUN_004,
                format!(
                    "data column `{name}` is `{}`, not a loaded tensor",
                    short(column)
                ),
                span,
            )
            .into());
        };
        let Some(&n) = t.shape().dims().first() else {
            return Err(run_error(
                codes::E_RUN_004,
                format!("data column `{name}` is a scalar; columns have one row per example"),
                span,
            )
            .into());
        };
        match rows {
            None => rows = Some(n),
            Some(r) if r != n => {
                return Err(run_error(
                    codes::E_RUN_004,
                    format!("data columns differ in length: {r} rows, but `{name}` has {n}"),
                    span,
                )
                .into())
            }
            Some(_) => {}
        }
        columns.push((key.clone(), name, t.clone()));
    }
    let Some(rows) = rows.filter(|&r| r > 0) else {
        return Err(run_error(codes::E_RUN_004, "the data has no rows", span).into());
    };
    Ok((columns, rows))
}

fn short(v: &Value) -> String {
    crate::value::short(v)
}

impl Batches {
    /// The batches a run's `:data` (or `:eval-data`) value describes:
    /// `(nn/windows ...)`, `(nn/batches ...)` or a plain map of columns.
    pub fn from_value(value: &Value, span: Span) -> EvalResult<Batches> {
        let get = |k: &str| value.map_get(&Value::keyword(k));
        if let Some(tokens) = get("windows") {
            return windows(tokens, &get, span);
        }
        let (data, size, shuffle) = match get("batches") {
            Some(data) => (
                data,
                Some(positive(get("size"), "size", span)?),
                get("shuffle").is_some_and(|v| v.is_truthy()),
            ),
            None => (value.clone(), None, false),
        };
        let Value::Map(entries) = &data else {
            return Err(run_error(
                codes::E_RUN_004,
                format!("the data must be a map of tensors (from `load-npz`) or `(nn/batches ...)`, got `{}`", short(&data)),
                span,
            )
            .into());
        };
        let (columns, rows) = columns(entries, span)?;
        let size = size.unwrap_or(rows);
        if size > rows {
            return Err(run_error(
                codes::E_RUN_004,
                format!("batches of {size} rows, but the data has only {rows}"),
                span,
            )
            .into());
        }
        Ok(Batches::Rows {
            columns,
            rows,
            size,
            shuffle,
        })
    }

    /// The same data, never shuffled (evaluation passes go in order).
    pub fn in_order(self) -> Batches {
        match self {
            Batches::Rows {
                columns,
                rows,
                size,
                ..
            } => Batches::Rows {
                columns,
                rows,
                size,
                shuffle: false,
            },
            windows => windows,
        }
    }

    /// Full batches in one pass over the data (a partial last batch is
    /// dropped, since every batch has the step graph's static shape).
    pub fn per_epoch(&self) -> u64 {
        match self {
            Batches::Rows { rows, size, .. } => (rows / size) as u64,
            Batches::Windows {
                tokens,
                length,
                size,
                count,
            } => count.unwrap_or(((tokens.numel() - 1) / (length * size)).max(1)) as u64,
        }
    }

    /// Each batch column: its key, name, shape and dtype.
    pub fn layout(&self) -> Vec<(Value, String, Shape, DType)> {
        match self {
            Batches::Rows { columns, size, .. } => columns
                .iter()
                .map(|(key, name, t)| {
                    let mut dims = t.shape().dims().to_vec();
                    dims[0] = *size;
                    (key.clone(), name.clone(), Shape::new(dims), t.dtype())
                })
                .collect(),
            Batches::Windows {
                tokens,
                length,
                size,
                ..
            } => ["x", "y"]
                .iter()
                .map(|n| {
                    (
                        Value::keyword(n),
                        n.to_string(),
                        Shape::new(vec![*size, *length]),
                        tokens.dtype(),
                    )
                })
                .collect(),
        }
    }

    /// Batch number `index` (counting from 0 across epochs) for `seed`.
    pub fn batch(&self, seed: u64, index: u64) -> Vec<Tensor> {
        match self {
            Batches::Rows {
                columns,
                rows,
                size,
                shuffle,
            } => {
                let per_epoch = (rows / size) as u64;
                let (epoch, within) = (index / per_epoch, (index % per_epoch) as usize);
                let picked: Vec<usize> = if *shuffle {
                    let order = permutation(*rows, seed, epoch);
                    order[within * size..(within + 1) * size].to_vec()
                } else {
                    (within * size..(within + 1) * size).collect()
                };
                columns
                    .iter()
                    .map(|(_, _, t)| take_rows(t, &picked))
                    .collect()
            }
            Batches::Windows {
                tokens,
                length,
                size,
                ..
            } => {
                let key = stream_key(fold_seed(seed, DATA_TAG), index as u32);
                let span = (tokens.numel() - length) as u64;
                let starts: Vec<usize> = (0..*size as u64)
                    .map(|i| {
                        let [hi, lo] = element_bits(key, i);
                        (((u64::from(hi) << 32) | u64::from(lo)) % span) as usize
                    })
                    .collect();
                let ids = tokens.to_i64s();
                let window = |offset: usize| {
                    let values: Vec<i64> = starts
                        .iter()
                        .flat_map(|&s| ids[s + offset..s + offset + length].iter().copied())
                        .collect();
                    Tensor::from_i64s(Shape::new(vec![*size, *length]), &values, tokens.dtype())
                        .expect("size * length values")
                };
                vec![window(0), window(1)]
            }
        }
    }
}

fn positive(value: Option<Value>, key: &str, span: Span) -> EvalResult<usize> {
    match value {
        Some(Value::Int(n)) if n > 0 => Ok(n as usize),
        other => Err(run_error(
            codes::E_RUN_004,
            format!(
                "`:{key}` must be a positive integer, got `{}`",
                other.as_ref().map_or("nothing".to_string(), short)
            ),
            span,
        )
        .into()),
    }
}

/// A permutation of `0..n` for one epoch: Fisher–Yates driven by the
/// Threefry stream of (seed, epoch).
fn permutation(n: usize, seed: u64, epoch: u64) -> Vec<usize> {
    let key = stream_key(fold_seed(seed, DATA_TAG), epoch as u32);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let [hi, lo] = element_bits(key, i as u64);
        let j = (((u64::from(hi) << 32) | u64::from(lo)) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

/// The rows `picked` of `t` (along its first axis).
pub(super) fn take_rows(t: &Tensor, picked: &[usize]) -> Tensor {
    let row = t.shape().dims()[1..].iter().product::<usize>();
    let mut dims = t.shape().dims().to_vec();
    dims[0] = picked.len();
    fn gather<T: Copy>(v: &[T], row: usize, picked: &[usize]) -> Vec<T> {
        picked
            .iter()
            .flat_map(|&r| v[r * row..(r + 1) * row].iter().copied())
            .collect()
    }
    let data = match t.data() {
        TensorData::F32(v) => TensorData::F32(gather(v, row, picked)),
        TensorData::BF16(v) => TensorData::BF16(gather(v, row, picked)),
        TensorData::I32(v) => TensorData::I32(gather(v, row, picked)),
        TensorData::I64(v) => TensorData::I64(gather(v, row, picked)),
        TensorData::Bool(v) => TensorData::Bool(gather(v, row, picked)),
    };
    Tensor::new(Shape::new(dims), data).expect("rows of a tensor")
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn check(n: usize, seed: u64, epoch: u64, expect: expect_test::Expect) {
        expect.assert_eq(&format!("{:?}", permutation(n, seed, epoch)));
    }

    #[test]
    fn permutations_follow_seed_and_epoch() {
        check(8, 0, 0, expect!["[2, 5, 3, 4, 6, 1, 7, 0]"]);
        check(8, 0, 1, expect!["[2, 6, 7, 0, 5, 3, 4, 1]"]);
        check(8, 1, 0, expect!["[1, 4, 3, 7, 0, 2, 5, 6]"]);
    }
}
