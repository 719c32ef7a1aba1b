//! `argsort` on the CPU: each line along the axis sorted stably by the
//! reference's order (NaN above every number, `-0` equal to `0`), so the
//! positions are the reference's exactly.

use std::cmp::Ordering;

use half::bf16;
use sexpgpu_compile::Argsort;
use sexpgpu_graph::{sort_lines, total_order, ExecError, TensorData};

/// The reference's order of floats: NaN is the largest, NaNs tie.
fn float_order(a: f32, b: f32) -> Ordering {
    total_order(f64::from(a), f64::from(b))
}

pub(crate) fn argsort(
    x: (&TensorData, usize),
    s: &Argsort,
    out: &mut TensorData,
) -> Result<(), ExecError> {
    let (dims, axis, descending) = (&s.dims, s.axis, s.descending);
    let numel: usize = dims.iter().product();
    let shape = (
        dims[..axis].iter().product(),
        dims[axis],
        dims[axis + 1..].iter().product(),
    );
    let TensorData::I64(o) = out else {
        return Err(internal("an argsort output is not i64"));
    };
    let Some(o) = o.get_mut(..numel) else {
        return Err(internal("an argsort output is too short"));
    };
    let range = x.1..x.1 + numel;
    let missing = || internal("an argsort input is too short");
    match x.0 {
        TensorData::F32(v) => sort_lines(
            v.get(range).ok_or_else(missing)?,
            shape,
            descending,
            float_order,
            o,
        ),
        TensorData::BF16(v) => {
            let keys: Vec<f32> = v
                .get(range)
                .ok_or_else(missing)?
                .iter()
                .map(|b| bf16::to_f32(*b))
                .collect();
            sort_lines(&keys, shape, descending, float_order, o)
        }
        TensorData::I32(v) => sort_lines(
            v.get(range).ok_or_else(missing)?,
            shape,
            descending,
            |a: i32, b| a.cmp(&b),
            o,
        ),
        TensorData::I64(v) => sort_lines(
            v.get(range).ok_or_else(missing)?,
            shape,
            descending,
            |a: i64, b| a.cmp(&b),
            o,
        ),
        TensorData::Bool(v) => sort_lines(
            v.get(range).ok_or_else(missing)?,
            shape,
            descending,
            |a: bool, b| a.cmp(&b),
            o,
        ),
    }
    Ok(())
}

fn internal(message: &str) -> ExecError {
    ExecError {
        message: format!("internal: {message}"),
        node: None,
    }
}
