//! Data files as host tensors: the builtins `load-npy`, `load-npz` and
//! `load-safetensors`, and safetensors encoding for checkpoints; `save`
//! writes them out (`save-npy`, `save-npz`, `save-safetensors`). Bytes come
//! in through `Host::read_file`; this module never opens a file itself. A
//! missing file is `E-IO-001`, a file that is not what it claims `E-IO-002`.

mod save;
pub mod zip;

use crate::codes;
use crate::eval::{arity, wrong_type, Builtin, EvalResult, Flow, Interp, Primitive, Site};
use crate::value::Value;
use diag::Diagnostic;
use half::{bf16, f16};
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use sexpgpu_graph::{from_npy_counted, narrowing_overflows, Shape, Tensor, TensorData};
use std::collections::HashMap;
use std::rc::Rc;

static TABLE: &[Builtin] = table! {
    "load-npy" => load_npy, "load-npz" => load_npz, "load-safetensors" => load_safetensors,
    "load-text" => load_text, "char-vocab" => char_vocab, "encode-chars" => encode_chars,
    "decode-chars" => decode_chars,
};

/// Registers the data-loading builtins.
pub fn install(interp: &mut Interp) {
    interp.register_builtins(TABLE.iter().map(|b| b as &dyn Primitive));
    save::install(interp);
}

/// `(load-text "corpus.txt")`: a UTF-8 text file as a string.
fn load_text(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let bytes = read(interp, "load-text", site, &args)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| bad_file("load-text", site, "the file is not UTF-8 text"))?;
    Ok(Value::str(&text))
}

fn string_arg<'a>(op: &str, args: &'a [Value], site: &Site, i: usize) -> EvalResult<&'a str> {
    match args.get(i) {
        Some(Value::Str(s)) => Ok(s),
        Some(other) => Err(wrong_type(op, "a string", other, site, i)),
        None => Err(crate::eval::error(
            codes::E_EVAL_002,
            format!("`{op}` needs a string"),
            site.span,
        )),
    }
}

/// `(char-vocab text)`: the distinct characters of `text`, sorted, as a string.
fn char_vocab(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("char-vocab", site, &args, 1, Some(1))?;
    let text = string_arg("char-vocab", &args, site, 0)?;
    let mut chars: Vec<char> = text.chars().collect();
    chars.sort_unstable();
    chars.dedup();
    Ok(Value::str(&chars.into_iter().collect::<String>()))
}

/// `(encode-chars text vocab)`: each character's position in `vocab`, as
/// an i32 tensor `[n]`; a character missing from `vocab` is `E-EVAL-003`.
fn encode_chars(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("encode-chars", site, &args, 2, Some(2))?;
    let text = string_arg("encode-chars", &args, site, 0)?;
    let vocab: Vec<char> = string_arg("encode-chars", &args, site, 1)?
        .chars()
        .collect();
    let mut ids = Vec::with_capacity(text.len());
    for c in text.chars() {
        match vocab
            .binary_search(&c)
            .ok()
            .or_else(|| vocab.iter().position(|&v| v == c))
        {
            Some(i) => ids.push(i as i64),
            None => {
                return Err(crate::eval::error(
                    codes::E_EVAL_003,
                    format!("encode-chars: {c:?} is not in the vocabulary"),
                    site.arg(0),
                ))
            }
        }
    }
    let n = ids.len();
    let tensor = Tensor::from_i64s(Shape::new(vec![n]), &ids, sexpgpu_graph::DType::I32)
        .expect("n ids for [n]");
    Ok(Value::HostTensor(Rc::new(tensor)))
}

/// `(decode-chars ids vocab)`: the characters of integer ids (a computed
/// tensor or a vector of integers) as a string.
fn decode_chars(_: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    arity("decode-chars", site, &args, 2, Some(2))?;
    let vocab: Vec<char> = string_arg("decode-chars", &args, site, 1)?
        .chars()
        .collect();
    let ids: Vec<i64> = match &args[0] {
        Value::HostTensor(t) if t.dtype().is_integer() => t.to_i64s(),
        Value::Vector(xs) | Value::List(xs) => xs
            .iter()
            .map(|x| x.as_f64().unwrap_or(-1.0) as i64)
            .collect(),
        other => return Err(wrong_type("decode-chars", "integer ids", other, site, 0)),
    };
    let text: Option<String> = ids
        .iter()
        .map(|&i| usize::try_from(i).ok().and_then(|i| vocab.get(i).copied()))
        .collect();
    text.map(|t| Value::str(&t)).ok_or_else(|| {
        crate::eval::error(
            codes::E_EVAL_010,
            format!(
                "decode-chars: an id is outside the vocabulary of {}",
                vocab.len()
            ),
            site.arg(0),
        )
    })
}

/// Reads a file through the host, or `E-IO-001` at the path argument.
fn read(interp: &mut Interp, op: &str, site: &Site, args: &[Value]) -> EvalResult<Vec<u8>> {
    arity(op, site, args, 1, Some(1))?;
    read_path(interp, op, site, args)
}

/// `read` for the loaders of float data: the path, then optionally
/// `:overflow :inf`, which lets f64 values beyond f32's range load as
/// infinities (`E-IO-005` otherwise). The bytes, and whether that was given.
fn read_data(
    interp: &mut Interp,
    op: &str,
    site: &Site,
    args: &[Value],
) -> EvalResult<(Vec<u8>, bool)> {
    let allow = match args {
        [_] => false,
        [_, Value::Keyword(k), value] if &**k == "overflow" => match value {
            Value::Keyword(v) if &**v == "inf" => true,
            other => return Err(wrong_type(op, "`:inf` after `:overflow`", other, site, 2)),
        },
        [_, key @ Value::Keyword(_), _] => {
            return Err(Flow::from(
                Diagnostic::error(
                    codes::E_EVAL_008,
                    format!("`{op}` has no keyword `{}`", key.repr()),
                )
                .with_primary(site.arg(1), "unknown keyword")
                .with_note(format!("`{op}` takes `:overflow`")),
            ));
        }
        _ => {
            return Err(crate::eval::error(
                codes::E_EVAL_002,
                format!("`{op}` takes a path, then optionally `:overflow :inf`"),
                site.span,
            ))
        }
    };
    Ok((read_path(interp, op, site, args)?, allow))
}

/// `E-IO-005` unless the user allowed it: `overflowed` f64 values of
/// `what` (an array or tensor named in the message, or none) were beyond
/// f32's range.
fn check_overflow(
    op: &str,
    site: &Site,
    what: Option<&str>,
    overflowed: usize,
    total: usize,
    allowed: bool,
) -> EvalResult<()> {
    if overflowed == 0 || allowed {
        return Ok(());
    }
    let of = what.map_or(String::new(), |w| format!("{w}: "));
    let verb = if overflowed == 1 { "is" } else { "are" };
    Err(Flow::from(
        Diagnostic::error(
            codes::E_IO_005,
            format!(
                "{op}: {of}{overflowed} of {total} f64 values {verb} beyond the range of f32 (about ±3.4e38), and would load as infinity"
            ),
        )
        .with_primary(site.arg(0), "this file")
        .with_note("f64 data loads as f32, the widest float SexpGPU computes in")
        .with_help(format!(
            "scale the data before saving it, or load the values as ±infinity with `({op} path :overflow :inf)`"
        )),
    ))
}

/// The file at the path argument, through the host.
fn read_path(interp: &mut Interp, op: &str, site: &Site, args: &[Value]) -> EvalResult<Vec<u8>> {
    let Value::Str(path) = &args[0] else {
        return Err(wrong_type(op, "a file path string", &args[0], site, 0));
    };
    interp.host.read_file(path).map_err(|reason| {
        Flow::from(
            Diagnostic::error(codes::E_IO_001, format!("{op}: {reason}"))
                .with_primary(site.arg(0), "this file")
                .with_note("relative paths are read from the directory of the .sx file"),
        )
    })
}

fn bad_file(op: &str, site: &Site, reason: impl std::fmt::Display) -> Flow {
    Flow::from(
        Diagnostic::error(codes::E_IO_002, format!("{op}: {reason}")).with_primary(site.arg(0), ""),
    )
}

/// `(load-npy "x.npy")`: one array as a host tensor.
fn load_npy(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let (bytes, allowed) = read_data(interp, "load-npy", site, &args)?;
    let (tensor, overflowed) =
        from_npy_counted(&bytes).map_err(|e| bad_file("load-npy", site, e))?;
    check_overflow("load-npy", site, None, overflowed, tensor.numel(), allowed)?;
    Ok(Value::HostTensor(Rc::new(tensor)))
}

/// `(load-npz "d.npz")`: a map from each array's name (a keyword) to it.
fn load_npz(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let (bytes, allowed) = read_data(interp, "load-npz", site, &args)?;
    let members = zip::npy_members(&bytes).map_err(|e| bad_file("load-npz", site, e))?;
    let mut map = Vec::new();
    for member in members {
        let name = member.name.trim_end_matches(".npy").to_string();
        let (tensor, overflowed) = from_npy_counted(&member.bytes)
            .map_err(|e| bad_file("load-npz", site, format!("array `{name}`: {e}")))?;
        let what = format!("array `{name}`");
        check_overflow(
            "load-npz",
            site,
            Some(&what),
            overflowed,
            tensor.numel(),
            allowed,
        )?;
        map.push((Value::keyword(&name), Value::HostTensor(Rc::new(tensor))));
    }
    Ok(Value::Map(Rc::new(map)))
}

/// `(load-safetensors "w.safetensors")`: a map from each tensor's name to it.
fn load_safetensors(interp: &mut Interp, site: &Site, args: Vec<Value>) -> EvalResult {
    let op = "load-safetensors";
    let (bytes, allowed) = read_data(interp, op, site, &args)?;
    let (tensors, _) = decode_counted(&bytes).map_err(|e| bad_file(op, site, e))?;
    let mut map = Vec::new();
    for (name, t, overflowed) in tensors {
        let what = format!("tensor `{name}`");
        check_overflow(op, site, Some(&what), overflowed, t.numel(), allowed)?;
        map.push((Value::keyword(&name), Value::HostTensor(Rc::new(t))));
    }
    Ok(Value::Map(Rc::new(map)))
}

/// Encodes named tensors and string metadata as a safetensors file.
pub fn encode(
    tensors: &[(String, &Tensor)],
    metadata: HashMap<String, String>,
) -> Result<Vec<u8>, String> {
    let raw: Vec<(String, Dtype, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|(name, t)| {
            let (dtype, bytes) = tensor_bytes(t);
            (name.clone(), dtype, t.shape().dims().to_vec(), bytes)
        })
        .collect();
    let views = raw
        .iter()
        .map(|(name, dtype, shape, bytes)| {
            TensorView::new(*dtype, shape.clone(), bytes)
                .map(|v| (name.clone(), v))
                .map_err(|e| format!("{e:?}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let bytes = safetensors::serialize(views, &Some(metadata)).map_err(|e| format!("{e:?}"))?;
    sorted_header(&bytes)
}

/// The same file with its JSON header's keys in sorted order: safetensors
/// writes the metadata map in hash order, so two runs that compute equal
/// tensors would write checkpoints that differ in bytes. The header is
/// padded with spaces to 8 bytes, as safetensors pads it; the tensors'
/// offsets count from the header's end, so the data is kept as it is.
fn sorted_header(bytes: &[u8]) -> Result<Vec<u8>, String> {
    fn sorted(v: serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(map) => {
                let entries: std::collections::BTreeMap<String, serde_json::Value> =
                    map.into_iter().map(|(k, v)| (k, sorted(v))).collect();
                serde_json::Value::Object(entries.into_iter().collect())
            }
            other => other,
        }
    }
    let malformed = || "internal: safetensors wrote a malformed header".to_string();
    let len_bytes: [u8; 8] = bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(malformed)?;
    let end = usize::try_from(u64::from_le_bytes(len_bytes))
        .ok()
        .and_then(|len| len.checked_add(8))
        .filter(|&end| end <= bytes.len())
        .ok_or_else(malformed)?;
    let header: serde_json::Value =
        serde_json::from_slice(&bytes[8..end]).map_err(|_| malformed())?;
    let mut text = serde_json::to_vec(&sorted(header)).map_err(|e| e.to_string())?;
    text.resize(text.len().next_multiple_of(8), b' ');
    let mut out = Vec::with_capacity(8 + text.len() + bytes.len() - end);
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(&text);
    out.extend_from_slice(&bytes[end..]);
    Ok(out)
}

fn tensor_bytes(t: &Tensor) -> (Dtype, Vec<u8>) {
    match t.data() {
        TensorData::F32(v) => (Dtype::F32, v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        TensorData::BF16(v) => (
            Dtype::BF16,
            v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
        ),
        TensorData::I32(v) => (Dtype::I32, v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        TensorData::I64(v) => (Dtype::I64, v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        TensorData::Bool(v) => (Dtype::BOOL, v.iter().map(|&b| u8::from(b)).collect()),
    }
}

/// The tensors of a safetensors file (in file order) and its metadata.
/// f64 and f16 narrow to f32; other dtypes than ours are refused.
pub type Decoded = (Vec<(String, Tensor)>, HashMap<String, String>);

pub fn decode(bytes: &[u8]) -> Result<Decoded, String> {
    let (tensors, metadata) = decode_counted(bytes)?;
    let tensors = tensors.into_iter().map(|(name, t, _)| (name, t)).collect();
    Ok((tensors, metadata))
}

/// `decode`, with how many finite `F64` values of each tensor were beyond
/// f32's range, so narrowing made them infinities.
type Counted = (Vec<(String, Tensor, usize)>, HashMap<String, String>);

fn decode_counted(bytes: &[u8]) -> Result<Counted, String> {
    let file =
        SafeTensors::deserialize(bytes).map_err(|e| format!("not a safetensors file ({e:?})"))?;
    let (_, header) =
        SafeTensors::read_metadata(bytes).map_err(|e| format!("not a safetensors file ({e:?})"))?;
    let metadata = header.metadata().clone().unwrap_or_default();
    let mut out = Vec::new();
    let mut names: Vec<(usize, String)> = file
        .names()
        .into_iter()
        .map(|n| {
            let start = header.info(n).map_or(0, |i| i.data_offsets.0);
            (start, n.clone())
        })
        .collect();
    names.sort();
    for (_, name) in names {
        let view = file.tensor(&name).map_err(|e| format!("{e:?}"))?;
        let data = view.data();
        let chunks = |n: usize| data.chunks_exact(n);
        let mut overflowed = 0;
        let values = match view.dtype() {
            Dtype::F32 => TensorData::F32(
                chunks(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            ),
            Dtype::F64 => {
                let wide: Vec<f64> = chunks(8)
                    .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                    .collect();
                overflowed = narrowing_overflows(&wide);
                TensorData::F32(wide.iter().map(|&x| x as f32).collect())
            }
            Dtype::F16 => TensorData::F32(
                chunks(2)
                    .map(|c| f16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f32())
                    .collect(),
            ),
            Dtype::BF16 => TensorData::BF16(
                chunks(2)
                    .map(|c| bf16::from_bits(u16::from_le_bytes([c[0], c[1]])))
                    .collect(),
            ),
            Dtype::I32 => TensorData::I32(
                chunks(4)
                    .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            ),
            Dtype::I64 => TensorData::I64(
                chunks(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                    .collect(),
            ),
            Dtype::BOOL => TensorData::Bool(data.iter().map(|&b| b != 0).collect()),
            other => {
                return Err(format!(
                    "tensor `{name}` has dtype {other:?}, which SexpGPU does not have"
                ))
            }
        };
        let tensor = Tensor::new(Shape::new(view.shape().to_vec()), values)
            .map_err(|e| format!("tensor `{name}`: {}", e.message))?;
        out.push((name, tensor, overflowed));
    }
    Ok((out, metadata))
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;
    use sexpgpu_graph::{to_npy, DType};

    fn check(bytes: Vec<u8>, expect: expect_test::Expect) {
        let members = zip::members(&bytes).unwrap();
        let text: Vec<String> = members
            .iter()
            .map(|m| {
                let t = sexpgpu_graph::from_npy(&m.bytes).unwrap();
                format!("{} {} {}", m.name, t.dtype(), t.to_clojure_string())
            })
            .collect();
        expect.assert_eq(&text.join("\n"));
    }

    #[test]
    fn npz_members_round_trip() {
        let x = Tensor::from_f64s(Shape::new(vec![2]), &[1.5, -2.0], DType::F32).unwrap();
        let y = Tensor::from_i64s(Shape::new(vec![3]), &[1, 2, 3], DType::I64).unwrap();
        let bytes = zip::write_stored(&[("x.npy", to_npy(&x)), ("y.npy", to_npy(&y))]);
        check(
            bytes,
            expect![[r#"
                x.npy f32 [1.5 -2.0]
                y.npy i64 [1 2 3]"#]],
        );
    }

    #[test]
    fn not_a_zip_says_so() {
        let err = zip::members(b"hello").err().unwrap();
        expect!["the file is not a zip archive (an .npz file is one)"].assert_eq(&err);
    }

    #[test]
    fn safetensors_round_trip_keeps_names_dtypes_and_metadata() {
        let a = Tensor::from_f64s(Shape::new(vec![2, 1]), &[0.25, 3.0], DType::BF16).unwrap();
        let b = Tensor::from_i64s(Shape::new(vec![]), &[7], DType::I32).unwrap();
        let meta = HashMap::from([("step".to_string(), "12".to_string())]);
        let bytes = encode(&[("w".into(), &a), ("n".into(), &b)], meta).unwrap();
        let (tensors, meta) = decode(&bytes).unwrap();
        let text: Vec<String> = tensors
            .iter()
            .map(|(n, t)| format!("{n} {} {}", t.dtype(), t.to_clojure_string()))
            .collect();
        expect![[r#"
            n i32 7
            w bf16 [[0.25] [3.0]]
            step=12"#]]
        .assert_eq(&format!("{}\nstep={}", text.join("\n"), meta["step"]));
    }

    /// Metadata keys in sorted order, whatever order the map hands them
    /// in: equal checkpoints are equal bytes, and safetensors reads them.
    #[test]
    fn safetensors_headers_are_sorted_so_equal_files_are_equal_bytes() {
        let a = Tensor::from_f64s(Shape::new(vec![3]), &[1.0, 2.0, 4.0], DType::F32).unwrap();
        let keys = ["step", "seed", "format", "data_batches_consumed", "b", "a"];
        let meta = || -> HashMap<String, String> {
            keys.iter()
                .map(|k| (k.to_string(), format!("{k}!")))
                .collect()
        };
        let first = encode(&[("w".into(), &a)], meta()).unwrap();
        for _ in 0..8 {
            assert_eq!(encode(&[("w".into(), &a)], meta()).unwrap(), first);
        }
        let len = u64::from_le_bytes(first[..8].try_into().unwrap()) as usize;
        assert_eq!(len % 8, 0, "padded as safetensors pads");
        expect![[r#"{"__metadata__":{"a":"a!","b":"b!","data_batches_consumed":"data_batches_consumed!","format":"format!","seed":"seed!","step":"step!"},"w":{"data_offsets":[0,12],"dtype":"F32","shape":[3]}}    "#]]
        .assert_eq(std::str::from_utf8(&first[8..8 + len]).unwrap());
        let (tensors, read) = decode(&first).unwrap();
        assert_eq!(read, meta());
        assert_eq!(tensors[0].1, a);
    }
}
