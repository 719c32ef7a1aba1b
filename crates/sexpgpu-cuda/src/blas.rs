//! Float matmul through cuBLAS: `cublasGemmStridedBatchedEx` with f32
//! accumulation (`CUBLAS_COMPUTE_32F`), f32 or bf16 operands (bf16 runs on
//! tensor cores). cuBLAS is column-major, so the row-major product
//! `C = A B` is computed as `C^T = B^T A^T`: a row-major operand is its
//! transpose in column-major with the same leading dimension. Operands
//! the generator could not describe are packed first (`codegen::matmul`).

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cudaDataType};
use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut};
use sexpgpu_graph::{DType, ExecError};

use crate::codegen::{Gemm, GemmOperand};
use crate::error::failure;
use crate::memory::{element_size, DeviceBuffer};

fn op(o: &GemmOperand) -> cublasOperation_t {
    if o.col_major {
        cublasOperation_t::CUBLAS_OP_T
    } else {
        cublasOperation_t::CUBLAS_OP_N
    }
}

/// cuBLAS's name for a float dtype.
fn data_type(dtype: DType) -> Result<cudaDataType, ExecError> {
    match dtype {
        DType::F32 => Ok(cudaDataType::CUDA_R_32F),
        DType::BF16 => Ok(cudaDataType::CUDA_R_16BF),
        other => Err(failure(format!("internal: cuBLAS matmul of {other}"))),
    }
}

pub(crate) fn int(x: usize) -> Result<i32, ExecError> {
    i32::try_from(x).map_err(|_| failure("matmul: a dimension exceeds cuBLAS's 32-bit sizes"))
}

/// `out = a b` with both operands as `g` describes them (already packed
/// where `g` says so); with `accumulate`, `out += a b` (`beta = 1`: the
/// sum is added to `out` in f32 and rounded once).
pub(crate) fn gemm(
    blas: &CudaBlas,
    stream: &Arc<CudaStream>,
    g: &Gemm,
    (a, b): (&DeviceBuffer, &DeviceBuffer),
    out: &mut DeviceBuffer,
    accumulate: bool,
) -> Result<(), ExecError> {
    let total = g.batch * g.m * g.n;
    if total == 0 || (g.k == 0 && accumulate) {
        return Ok(());
    }
    let size = element_size(g.dtype);
    if g.k == 0 {
        let mut all = out.mem_mut().slice_mut(..total * size);
        return stream
            .memset_zeros(&mut all)
            .map_err(|e| failure(format!("CUDA error: {e:?}")));
    }
    let dt = data_type(g.dtype)?;
    let (alpha, beta) = (1.0f32, if accumulate { 1.0f32 } else { 0.0 });
    let (a_ptr, _ra) = a.mem().device_ptr(stream);
    let (b_ptr, _rb) = b.mem().device_ptr(stream);
    let (c_ptr, _rc) = out.mem_mut().device_ptr_mut(stream);
    let at = |p: u64, o: &GemmOperand| (p + (o.offset * size) as u64) as *const c_void;
    // SAFETY: the pointers are live device buffers of this stream; the
    // leading dimensions, offsets and batch strides were derived from the
    // views the lowering checked against these buffers' lengths.
    unsafe {
        cudarc::cublas::result::gemm_strided_batched_ex(
            *blas.handle(),
            op(&g.b),
            op(&g.a),
            int(g.n)?,
            int(g.m)?,
            int(g.k)?,
            (&alpha as *const f32).cast(),
            at(b_ptr, &g.b),
            dt,
            int(g.b.ld)?,
            g.b.batch_stride as i64,
            at(a_ptr, &g.a),
            dt,
            int(g.a.ld)?,
            g.a.batch_stride as i64,
            (&beta as *const f32).cast(),
            c_ptr as *mut c_void,
            dt,
            int(g.n)?,
            (g.m * g.n) as i64,
            int(g.batch)?,
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
        )
    }
    .map_err(|e| failure(format!("cuBLAS error: {e:?}")))
}
