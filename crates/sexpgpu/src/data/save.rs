//! Writing host tensors out (`docs/sexpgpu/data.md`): `save-npy` (one
//! tensor), `save-npz` and `save-safetensors` (a map of tensors, nested maps
//! and vectors named by their paths, `layer/w`, as checkpoints name them).
//! Bytes go out through `Host::write_file`, which writes a temporary file
//! and renames it; under `check` nothing is written. A file that cannot be
//! written is `E-IO-004`.

use crate::codes;
use crate::eval::{arity, wrong_type, Builtin, EvalResult, Flow, Interp, Mode, Primitive, Site};
use crate::value::Value;
use diag::Diagnostic;
use sexpgpu_graph::{to_npy, Tensor};
use std::collections::HashMap;

static TABLE: &[Builtin] = table! {
    "save-npy" => save_npy, "save-npz" => save_npz, "save-safetensors" => save_safetensors,
};

/// Registers the builtins that write files.
pub fn install(interp: &mut Interp) {
    interp.register_builtins(TABLE.iter().map(|b| b as &dyn Primitive));
}

/// `(save-npy "x.npy" t)`: one host tensor as a `.npy` file.
fn save_npy(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let op = "save-npy";
    arity(op, site, &args, 2, Some(2))?;
    let path = path_arg(op, &args, site)?;
    let tensor = host_tensor(op, &args[1], site, 1, "")?;
    write(interp, op, site, path, &to_npy(tensor))
}

/// `(save-npz "d.npz" {:x t ...})`: a map of host tensors as an `.npz`
/// archive of stored `.npy` members, as `numpy.savez` writes.
fn save_npz(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let op = "save-npz";
    arity(op, site, &args, 2, Some(2))?;
    let path = path_arg(op, &args, site)?;
    let named = named_tensors(op, &args[1], site)?;
    let members: Vec<(String, Vec<u8>)> = named
        .iter()
        .map(|(name, t)| (format!("{name}.npy"), to_npy(t)))
        .collect();
    let bytes = super::zip::archive(&members).map_err(|e| cannot_write(op, site, e))?;
    write(interp, op, site, path, &bytes)
}

/// `(save-safetensors "w.safetensors" {:w t ...})`: a map of host tensors
/// as a safetensors file (the dtypes kept, bf16 included).
fn save_safetensors(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let op = "save-safetensors";
    arity(op, site, &args, 2, Some(2))?;
    let path = path_arg(op, &args, site)?;
    let named = named_tensors(op, &args[1], site)?;
    let refs: Vec<(String, &Tensor)> = named.iter().map(|(n, t)| (n.clone(), *t)).collect();
    let bytes = super::encode(&refs, HashMap::new()).map_err(|e| cannot_write(op, site, e))?;
    write(interp, op, site, path, &bytes)
}

fn path_arg<'a>(op: &str, args: &'a [Value], site: &Site) -> EvalResult<&'a str> {
    match &args[0] {
        Value::Str(s) => Ok(s),
        other => Err(wrong_type(op, "a file path string", other, site, 0)),
    }
}

/// A computed tensor, or `E-EVAL-003` naming what was given instead (a
/// traced tensor has no value to write yet).
fn host_tensor<'a>(
    op: &str,
    value: &'a Value,
    site: &Site,
    i: usize,
    path: &str,
) -> EvalResult<&'a Tensor> {
    let at = if path.is_empty() {
        String::new()
    } else {
        format!(" at `{path}`")
    };
    match value {
        Value::HostTensor(t) => Ok(t),
        Value::Tensor(_) => Err(Flow::from(
            Diagnostic::error(
                codes::E_EVAL_003,
                format!("`{op}` needs computed tensors, got a traced one{at}"),
            )
            .with_primary(site.arg(i), "this only has a value when its graph runs")
            .with_help("return it from the graph and save what `call` gives back"),
        )),
        other => Err(wrong_type(
            op,
            &format!("a tensor from `call` or a data file{at}"),
            other,
            site,
            i,
        )),
    }
}

/// The tensors of a map (nested maps and vectors too), each named by its
/// path of keys joined with `/`, in order.
fn named_tensors<'a>(
    op: &str,
    value: &'a Value,
    site: &Site,
) -> EvalResult<Vec<(String, &'a Tensor)>> {
    if !matches!(value, Value::Map(_)) {
        return Err(wrong_type(op, "a map of tensors", value, site, 1));
    }
    let mut out = Vec::new();
    walk(op, value, String::new(), site, &mut out)?;
    Ok(out)
}

fn walk<'a>(
    op: &str,
    value: &'a Value,
    path: String,
    site: &Site,
    out: &mut Vec<(String, &'a Tensor)>,
) -> EvalResult<()> {
    let join = |key: String| match path.is_empty() {
        true => key,
        false => format!("{path}/{key}"),
    };
    match value {
        Value::Map(m) => m.iter().try_for_each(|(k, v)| {
            let key = match k {
                Value::Keyword(s) | Value::Str(s) | Value::Symbol(s) => s.to_string(),
                Value::Int(n) => n.to_string(),
                other => return Err(wrong_type(op, "keyword or string keys", other, site, 1)),
            };
            walk(op, v, join(key), site, out)
        }),
        Value::Vector(xs) | Value::List(xs) => xs
            .iter()
            .enumerate()
            .try_for_each(|(i, v)| walk(op, v, join(i.to_string()), site, out)),
        other => {
            out.push((path.clone(), host_tensor(op, other, site, 1, &path)?));
            Ok(())
        }
    }
}

/// Writes the file through the host (not under `check`); `nil`.
fn write(interp: &mut Interp, op: &str, site: &Site, path: &str, bytes: &[u8]) -> EvalResult {
    if interp.mode == Mode::Check {
        return Ok(Value::Nil);
    }
    interp
        .host
        .write_file(path, bytes)
        .map_err(|reason| cannot_write(op, site, reason))?;
    Ok(Value::Nil)
}

fn cannot_write(op: &str, site: &Site, reason: String) -> Flow {
    Flow::from(
        Diagnostic::error(codes::E_IO_004, format!("{op}: {reason}"))
            .with_primary(site.arg(0), "this file")
            .with_note("relative paths are written in the directory of the .sx file"),
    )
}
