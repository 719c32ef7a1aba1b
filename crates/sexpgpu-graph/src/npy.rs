//! `.npy` (NumPy format 1.0–3.0) encoding and decoding of host tensors, on
//! bytes: the caller reads and writes the files. bf16 is written widened to
//! `<f4` (NumPy has no bf16); on reading, f64 and f16 narrow to f32, small
//! integers widen to i32, u32 to i64.

use half::{bf16, f16};

use crate::dtype::DType;
use crate::shape::{Shape, MAX_ELEMENTS};
use crate::tensor::{Tensor, TensorData};

const MAGIC: &[u8] = b"\x93NUMPY";

crate::error::message_error! {
    /// Why bytes are not a `.npy` array this crate can load.
    NpyError,
    npy_error
}

/// Encodes `tensor` as a version 1.0 `.npy` file, C order, little endian.
pub fn to_npy(tensor: &Tensor) -> Vec<u8> {
    let (descr, body): (&str, Vec<u8>) = match tensor.data() {
        TensorData::F32(v) => ("<f4", v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        TensorData::BF16(v) => (
            "<f4",
            v.iter().flat_map(|x| x.to_f32().to_le_bytes()).collect(),
        ),
        TensorData::I32(v) => ("<i4", v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        TensorData::I64(v) => ("<i8", v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        TensorData::Bool(v) => ("|b1", v.iter().map(|&x| u8::from(x)).collect()),
    };
    npy_bytes(descr, tensor.shape().dims(), &body)
}

/// A version 1.0 `.npy` file, C order, of shape `dims`, whose elements are
/// `body` in the NumPy dtype `descr` (`<f8`, `<i4`, ...). `to_npy` is this
/// for the graph dtypes; tests write `<f8`, which graphs never hold.
pub fn npy_bytes(descr: &str, dims: &[usize], body: &[u8]) -> Vec<u8> {
    let shape = match dims {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
    let unpadded = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + header.len() + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(body);
    out
}

/// A `.npy` file's header: where the data starts, what it holds.
struct Header {
    /// The header's end, where the elements begin.
    data_start: usize,
    descr: String,
    fortran: bool,
    shape: Shape,
}

/// The header of a `.npy` file whose first bytes are `bytes`: `Ok(None)`
/// when more bytes are needed to read it whole, an error when they can't
/// be a `.npy` header (no magic, an unknown version, a header that is no
/// dict or whose shape tuple never closes).
fn read_header(bytes: &[u8]) -> Result<Option<Header>, NpyError> {
    let magic = &bytes[..bytes.len().min(MAGIC.len())];
    if magic != &MAGIC[..magic.len()] {
        return Err(npy_error("not a .npy file (no \\x93NUMPY magic)"));
    }
    let (Some(&version), Some(len)) = (bytes.get(6), bytes.get(8..10)) else {
        return Ok(None);
    };
    let (header_len, header_start) = match version {
        1 => (usize::from(u16::from_le_bytes([len[0], len[1]])), 10),
        2 | 3 => match bytes.get(8..12) {
            Some(l) => (u32::from_le_bytes([l[0], l[1], l[2], l[3]]) as usize, 12),
            None => return Ok(None),
        },
        v => {
            return Err(npy_error(format!(
                ".npy format version {v} is not supported"
            )))
        }
    };
    let Some(header) = bytes.get(header_start..header_start + header_len) else {
        return Ok(None);
    };
    let header = std::str::from_utf8(header).map_err(|_| npy_error(".npy header is not text"))?;
    let dict = header.trim_end();
    if !(dict.starts_with('{') && dict.ends_with('}')) {
        return Err(npy_error(
            ".npy header is not a dict (it is truncated, or not NumPy's)",
        ));
    }
    let descr = header_value(header, "descr")?
        .trim_matches(|c| c == '\'' || c == '"')
        .to_string();
    let fortran = header_value(header, "fortran_order")?.trim() == "True";
    let shape = parse_shape(header_value(header, "shape")?)?;
    Ok(Some(Header {
        data_start: header_start + header_len,
        descr,
        fortran,
        shape,
    }))
}

/// The size in bytes of the `.npy` file whose first bytes are `prefix`,
/// once its header is whole in them (`Ok(None)` before): what a reader of
/// a compressed `.npz` member inflates, and no more.
pub fn npy_file_size(prefix: &[u8]) -> Result<Option<usize>, NpyError> {
    let Some(header) = read_header(prefix)? else {
        return Ok(None);
    };
    let n = element_count(&header.shape)?;
    let width = element_width(&header.descr);
    n.checked_mul(width)
        .and_then(|body| body.checked_add(header.data_start))
        .filter(|_| width > 0)
        .map(Some)
        .ok_or_else(|| npy_error(format!(".npy dtype {} is not supported", header.descr)))
}

/// The bytes of one element of the NumPy dtype `descr` (`<f4` is 4).
fn element_width(descr: &str) -> usize {
    let code = descr.trim_start_matches(['<', '>', '|', '=']);
    code.get(1..).and_then(|w| w.parse().ok()).unwrap_or(0)
}

/// Decodes a `.npy` file into a tensor: exactly the elements its header
/// declares, with nothing after them.
pub fn from_npy(bytes: &[u8]) -> Result<Tensor, NpyError> {
    from_npy_counted(bytes).map(|(tensor, _)| tensor)
}

/// `from_npy`, and how many finite `f8` values were beyond f32's range, so
/// narrowing turned them into infinities.
pub fn from_npy_counted(bytes: &[u8]) -> Result<(Tensor, usize), NpyError> {
    let header = read_header(bytes)?.ok_or_else(|| npy_error(".npy header is truncated"))?;
    let Header {
        data_start,
        descr,
        fortran,
        shape,
    } = header;
    let body = &bytes[data_start..];
    let n = element_count(&shape)?;
    let (big_endian, code) = match descr.as_bytes().first() {
        Some(b'>') => (true, &descr[1..]),
        Some(b'<' | b'|' | b'=') => (false, &descr[1..]),
        _ => (false, descr.as_str()),
    };
    let width = element_width(&descr);
    match n.checked_mul(width) {
        Some(need) if width > 0 && body.len() == need => {}
        Some(need) if width > 0 && body.len() > need => {
            return Err(npy_error(format!(
                ".npy holds {} bytes after its {n} elements of {descr}",
                body.len() - need
            )))
        }
        _ => {
            return Err(npy_error(format!(
                ".npy data is shorter than {n} elements of {descr}"
            )))
        }
    }
    let words = |i: usize| -> &[u8] { &body[i * width..(i + 1) * width] };
    let read = |i: usize| -> u64 {
        let w = words(i);
        let mut v = 0u64;
        for k in 0..width {
            let byte = if big_endian { w[k] } else { w[width - 1 - k] };
            v = (v << 8) | u64::from(byte);
        }
        v
    };
    let mut overflowed = 0;
    let data = match code {
        "f4" => TensorData::F32((0..n).map(|i| f32::from_bits(read(i) as u32)).collect()),
        "f8" => {
            let wide: Vec<f64> = (0..n).map(|i| f64::from_bits(read(i))).collect();
            overflowed = narrowing_overflows(&wide);
            TensorData::F32(wide.iter().map(|&x| x as f32).collect())
        }
        "f2" => TensorData::F32(
            (0..n)
                .map(|i| f16::from_bits(read(i) as u16).to_f32())
                .collect(),
        ),
        "i1" => TensorData::I32((0..n).map(|i| i32::from(read(i) as u8 as i8)).collect()),
        "i2" => TensorData::I32((0..n).map(|i| i32::from(read(i) as u16 as i16)).collect()),
        "i4" => TensorData::I32((0..n).map(|i| read(i) as u32 as i32).collect()),
        "i8" => TensorData::I64((0..n).map(|i| read(i) as i64).collect()),
        "u1" | "u2" => TensorData::I32((0..n).map(|i| read(i) as i32).collect()),
        "u4" => TensorData::I64((0..n).map(|i| read(i) as i64).collect()),
        "b1" => TensorData::Bool((0..n).map(|i| read(i) != 0).collect()),
        _ => {
            return Err(npy_error(format!(
                ".npy dtype {descr} is not supported (f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 b1)"
            )))
        }
    };
    let tensor = Tensor::new(shape.clone(), data).map_err(|e| npy_error(e.message))?;
    if fortran && shape.rank() > 1 {
        return Ok((from_fortran(&tensor), overflowed));
    }
    Ok((tensor, overflowed))
}

/// How many of `values` are finite but beyond f32's range, so that
/// narrowing them to f32 gives an infinity.
pub fn narrowing_overflows(values: &[f64]) -> usize {
    values
        .iter()
        .filter(|x| x.is_finite() && (**x as f32).is_infinite())
        .count()
}

/// Column-major data read as row-major has the reversed shape; transposing
/// it back gives the array NumPy meant.
fn from_fortran(t: &Tensor) -> Tensor {
    let dims = t.shape().dims();
    let reversed: Vec<usize> = dims.iter().rev().copied().collect();
    let strides = Shape::new(reversed).strides();
    // Element at position p (row-major over `dims`) sits at sum(p[a] * strides[rank-1-a]).
    let rank = dims.len();
    let mut picks = Vec::with_capacity(t.numel());
    let mut position = vec![0usize; rank];
    for _ in 0..t.numel() {
        picks.push(
            (0..rank)
                .map(|a| position[a] * strides[rank - 1 - a])
                .sum::<usize>(),
        );
        for a in (0..rank).rev() {
            position[a] += 1;
            if position[a] < dims[a] {
                break;
            }
            position[a] = 0;
        }
    }
    let data = match t.data() {
        TensorData::F32(v) => TensorData::F32(picks.iter().map(|&i| v[i]).collect()),
        TensorData::BF16(v) => TensorData::BF16(picks.iter().map(|&i| v[i]).collect()),
        TensorData::I32(v) => TensorData::I32(picks.iter().map(|&i| v[i]).collect()),
        TensorData::I64(v) => TensorData::I64(picks.iter().map(|&i| v[i]).collect()),
        TensorData::Bool(v) => TensorData::Bool(picks.iter().map(|&i| v[i]).collect()),
    };
    Tensor::new(t.shape().clone(), data).expect("same element count")
}

/// The text after `'key':` up to the next top-level comma.
fn header_value<'h>(header: &'h str, key: &str) -> Result<&'h str, NpyError> {
    let pattern = format!("'{key}':");
    let start = header
        .find(&pattern)
        .ok_or_else(|| npy_error(format!(".npy header has no '{key}'")))?
        + pattern.len();
    let rest = header[start..].trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')')
            .map(|i| i + 1)
            .ok_or_else(|| npy_error(format!(".npy header's '{key}' tuple never closes")))?
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    Ok(rest[..end].trim())
}

/// The element count of a shape read from a file, in checked arithmetic and
/// within the tensor limit: a crafted header must not wrap the count (and
/// make a huge array look empty) or ask for unbounded memory.
fn element_count(shape: &Shape) -> Result<usize, NpyError> {
    let dims = shape.dims();
    let n = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    match n {
        Some(n) if n <= MAX_ELEMENTS => Ok(n),
        _ => Err(npy_error(format!(
            ".npy shape {} has more than {MAX_ELEMENTS} elements, the most a tensor may have",
            crate::shape::format_list(dims)
        ))),
    }
}

fn parse_shape(text: &str) -> Result<Shape, NpyError> {
    let inner = text.trim().trim_start_matches('(').trim_end_matches(')');
    let dims: Result<Vec<usize>, _> = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.trim_end_matches('L').parse())
        .collect();
    dims.map(Shape::new)
        .map_err(|_| npy_error(format!(".npy shape {text} is not a tuple of sizes")))
}

/// Converts a loaded tensor to the dtype a graph input wants, when that is
/// lossless in kind (floats to floats, integers to integers or floats).
pub fn convert_for_input(t: &Tensor, dtype: DType) -> Option<Tensor> {
    if t.dtype() == dtype {
        return Some(t.clone());
    }
    let data = match (t.data(), dtype) {
        (TensorData::F32(v), DType::BF16) => {
            TensorData::BF16(v.iter().map(|&x| bf16::from_f32(x)).collect())
        }
        (TensorData::BF16(v), DType::F32) => {
            TensorData::F32(v.iter().map(|x| x.to_f32()).collect())
        }
        (
            TensorData::I32(_) | TensorData::I64(_),
            DType::I32 | DType::I64 | DType::F32 | DType::BF16,
        ) => TensorData::from_i64s(t.to_i64s(), dtype),
        _ => return None,
    };
    Tensor::new(t.shape().clone(), data).ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_past_the_data_and_a_truncated_header_are_refused() {
        let x = Tensor::from_f64s(Shape::new(vec![2]), &[1.0, 2.0], DType::F32).unwrap();
        let mut bytes = to_npy(&x);
        assert_eq!(npy_file_size(&bytes).unwrap(), Some(bytes.len()));
        bytes.extend_from_slice(&[0, 0, 0, 0]);
        let err = from_npy(&bytes).err().unwrap();
        assert_eq!(
            err.message,
            ".npy holds 4 bytes after its 2 elements of <f4"
        );
        // `'shape': (2,` with the rest of the header cut off.
        let good = to_npy(&x);
        let cut = good[10..].windows(3).position(|w| w == b"(2,").unwrap() + 3;
        let mut truncated = good[..10].to_vec();
        truncated[8..10].copy_from_slice(&(cut as u16).to_le_bytes());
        truncated.extend_from_slice(&good[10..10 + cut]);
        let err = from_npy(&truncated).err().unwrap();
        assert!(
            err.message.starts_with(".npy header is not a dict"),
            "{}",
            err.message
        );
        // A header that says nothing yet is not an error of the prefix.
        assert_eq!(npy_file_size(&good[..9]).unwrap(), None);
    }

    use super::*;
    use expect_test::expect;

    fn check(t: &Tensor, expect: expect_test::Expect) {
        let bytes = to_npy(t);
        assert_eq!(
            (bytes.len() - body_len(t)) % 64,
            0,
            "the header pads the data to 64 bytes"
        );
        let header = String::from_utf8_lossy(&bytes[10..bytes.len() - body_len(t)])
            .trim_end()
            .to_string();
        let back = from_npy(&bytes).unwrap();
        expect.assert_eq(&format!(
            "{header} -> {} {} {}",
            back.shape(),
            back.dtype(),
            back
        ));
    }

    fn body_len(t: &Tensor) -> usize {
        t.numel()
            * match t.dtype() {
                DType::Bool => 1,
                DType::I64 => 8,
                _ => 4,
            }
    }

    #[test]
    fn round_trips() {
        let f =
            Tensor::from_f64s(Shape::from([2, 2]), &[1.0, -2.5, 3.0, 0.25], DType::F32).unwrap();
        check(&f, expect!["{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), } -> [2, 2] f32 [[1.0 -2.5] [3.0 0.25]]"]);
        let i = Tensor::from_i64s(Shape::from([3]), &[1, -2, 3], DType::I64).unwrap();
        check(
            &i,
            expect![
                "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), } -> [3] i64 [1 -2 3]"
            ],
        );
        let b = Tensor::from_i64s(Shape::scalar(), &[1], DType::Bool).unwrap();
        check(
            &b,
            expect!["{'descr': '|b1', 'fortran_order': False, 'shape': (), } -> [] bool true"],
        );
    }

    #[test]
    fn fortran_order_and_f8_are_read() {
        let header = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }";
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[1, 0]);
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        // Column-major [[0 1 2] [3 4 5]]: 0 3 1 4 2 5.
        for x in [0.0f64, 3.0, 1.0, 4.0, 2.0, 5.0] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        expect!["[[0.0 1.0 2.0] [3.0 4.0 5.0]]"].assert_eq(&from_npy(&bytes).unwrap().to_string());
    }

    #[test]
    fn f8_values_beyond_f32_are_counted() {
        let values = [1e300f64, -1e39, 3.0e38, f64::INFINITY, f64::NAN, 0.5];
        let body: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let (t, overflowed) = from_npy_counted(&npy_bytes("<f8", &[6], &body)).unwrap();
        // 1e300 and -1e39 overflow; 3e38 fits; inf and NaN were never finite.
        assert_eq!(overflowed, 2);
        expect!["[##Inf ##-Inf 3.0E38 ##Inf ##NaN 0.5]"].assert_eq(&t.to_string());
        let f4 = to_npy(&Tensor::from_f64s(Shape::from([2]), &[1.0, 2.0], DType::F32).unwrap());
        assert_eq!(from_npy_counted(&f4).unwrap().1, 0);
    }

    #[test]
    fn bad_files_are_errors() {
        expect!["not a .npy file (no \\x93NUMPY magic)"]
            .assert_eq(&from_npy(b"hello world").unwrap_err().message);
        let mut bytes =
            to_npy(&Tensor::from_f64s(Shape::from([4]), &[0.0; 4], DType::F32).unwrap());
        bytes.truncate(bytes.len() - 1);
        expect![".npy data is shorter than 4 elements of <f4"]
            .assert_eq(&from_npy(&bytes).unwrap_err().message);
    }

    #[test]
    fn npy_bytes_pads_the_header_to_64_bytes() {
        let f64_bytes: Vec<u8> = [1.5f64, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        for dims in [
            &[2][..],
            &[1, 2],
            &[2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
        ] {
            let bytes = npy_bytes("<f8", dims, &f64_bytes);
            assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
            let data = 10 + usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
            assert_eq!(data % 64, 0, "{dims:?}");
            assert_eq!(bytes[data - 1], b'\n');
            assert_eq!(bytes.len(), data + 16);
            assert_eq!(bytes[data..data + 8], 1.5f64.to_le_bytes());
        }
        let bytes = npy_bytes("<f8", &[2], &f64_bytes);
        let header = String::from_utf8_lossy(&bytes[10..]);
        assert!(header.starts_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"));
    }

    /// A crafted header whose element count wraps to 0 (or is merely huge)
    /// is refused before anything is allocated.
    #[test]
    fn a_huge_or_wrapping_shape_is_refused() {
        let just_over = format!("({},)", crate::shape::MAX_ELEMENTS + 1);
        for shape in ["(4294967296, 4294967296, 4)", just_over.as_str()] {
            let header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
            let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
            bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
            bytes.extend_from_slice(header.as_bytes());
            let err = from_npy(&bytes).unwrap_err();
            assert!(
                err.to_string().contains("the most a tensor may have"),
                "{err}"
            );
        }
    }
}
