//! Host tensors as the bytes the device stores (`codegen::c::storage`):
//! f32, i32 and i64 as themselves, bf16 as its 16 bits, bool as one byte
//! 0 or 1, all little-endian like every CUDA host. No device calls.

use half::bf16;
use sexpgpu_graph::{DType, TensorData};

/// The elements' bytes, copied (transfers are only for batches and
/// metrics, so the copy is not on a hot path).
pub fn to_bytes(data: &TensorData) -> Vec<u8> {
    match data {
        TensorData::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        TensorData::BF16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
        TensorData::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        TensorData::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        TensorData::Bool(v) => v.iter().map(|&b| u8::from(b)).collect(),
    }
}

/// Elements of `dtype` from their stored bytes.
pub fn from_bytes(dtype: DType, bytes: &[u8]) -> TensorData {
    fn words<const N: usize>(bytes: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
        bytes
            .chunks_exact(N)
            .map(|c| c.try_into().expect("chunks are N bytes"))
    }
    match dtype {
        DType::F32 => TensorData::F32(words(bytes).map(f32::from_le_bytes).collect()),
        DType::BF16 => TensorData::BF16(
            words(bytes)
                .map(|w| bf16::from_bits(u16::from_le_bytes(w)))
                .collect(),
        ),
        DType::I32 => TensorData::I32(words(bytes).map(i32::from_le_bytes).collect()),
        DType::I64 => TensorData::I64(words(bytes).map(i64::from_le_bytes).collect()),
        DType::Bool => TensorData::Bool(bytes.iter().map(|&b| b != 0).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dtype_round_trips_through_bytes() {
        let cases = [
            TensorData::F32(vec![1.5, -0.0, f32::INFINITY]),
            TensorData::BF16(vec![bf16::from_f32(3.0), bf16::NAN]),
            TensorData::I32(vec![i32::MIN, 7]),
            TensorData::I64(vec![i64::MAX, -1]),
            TensorData::Bool(vec![true, false, true]),
        ];
        for data in cases {
            let bytes = to_bytes(&data);
            assert_eq!(
                bytes.len(),
                data.len() * crate::memory::element_size(data.dtype())
            );
            let back = from_bytes(data.dtype(), &bytes);
            assert_eq!(format!("{back:?}"), format!("{data:?}"));
        }
    }
}
