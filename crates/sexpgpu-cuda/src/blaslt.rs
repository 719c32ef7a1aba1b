//! A product with a bias through cuBLASLt's bias epilogue: one launch adds
//! the bias vector to every row of the f32 sums before the one rounding, so
//! the product is never written without it (`docs/sexpgpu/cuda.md`,
//! "Matmul epilogues"). Laid out as `blas` lays out cuBLAS's products:
//! the row-major `C = A B` is the column-major `C^T = B^T A^T`, whose rows
//! are our columns, so cuBLASLt's per-row bias is our per-column one.
//!
//! cuBLASLt is optional: without its library, or for a product it offers
//! no algorithm for, `biased_gemm` says so and the backend writes the bias
//! into the rows and has cuBLAS add the product (`beta = 1`), which rounds
//! the same sum once.

use std::ffi::c_void;
use std::mem::size_of;
use std::sync::Arc;

use cudarc::cublaslt::result::{self as lt, CublasError};
use cudarc::cublaslt::sys::{
    cublasComputeType_t, cublasLtEpilogue_t, cublasLtHandle_t, cublasLtMatmulDescAttributes_t,
    cublasLtMatmulDesc_t, cublasLtMatmulPreferenceAttributes_t, cublasLtMatmulPreference_t,
    cublasLtMatrixLayoutAttribute_t, cublasLtMatrixLayout_t, cudaDataType,
};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use sexpgpu_graph::ExecError;

use crate::blas::int;
use crate::codegen::{Gemm, GemmOperand};
use crate::error::failure;
use crate::memory::{element_size, DeviceBuffer};

/// cuBLASLt's workspace: NVIDIA's recommendation for Hopper (32 MiB),
/// and for earlier GPUs (4 MiB).
fn workspace_bytes(arch: u32) -> usize {
    if arch >= 90 {
        32 << 20
    } else {
        4 << 20
    }
}

/// Operand and bias pointers cuBLASLt's fast kernels want aligned to 16
/// bytes; a product with one that is not takes the fallback.
const ALIGN: u64 = 16;

/// A cuBLASLt handle and its workspace.
pub(crate) struct BlasLt {
    handle: cublasLtHandle_t,
    workspace: CudaSlice<u8>,
}

// SAFETY: cuBLASLt handles may be used from any thread (NVIDIA documents
// them as thread-safe); the backend serialises launches on one stream.
unsafe impl Send for BlasLt {}
// SAFETY: as for `Send`: no call mutates the handle itself.
unsafe impl Sync for BlasLt {}

impl Drop for BlasLt {
    fn drop(&mut self) {
        // SAFETY: the handle was created by `open` and is destroyed once.
        let _ = unsafe { lt::destroy_handle(self.handle) };
    }
}

fn lt_error(e: CublasError) -> ExecError {
    failure(format!("cuBLASLt error: {e:?}"))
}

impl BlasLt {
    /// A handle, or `None` when libcublasLt cannot be loaded or opened.
    pub(crate) fn open(stream: &Arc<CudaStream>, arch: u32) -> Option<BlasLt> {
        // SAFETY: only tries to dlopen cuBLASLt by its names.
        if !unsafe { cudarc::cublaslt::sys::is_culib_present() } {
            return None;
        }
        let handle = lt::create_handle().ok()?;
        // SAFETY: a plain device allocation; cuBLASLt only scribbles on it.
        match unsafe { stream.alloc::<u8>(workspace_bytes(arch)) } {
            Ok(workspace) => Some(BlasLt { handle, workspace }),
            Err(_) => {
                // SAFETY: the handle was just created and is not kept.
                let _ = unsafe { lt::destroy_handle(handle) };
                None
            }
        }
    }

    /// `out = a b + bias` (the bias's `n` elements from `bias_offset`),
    /// operands as `g` describes them. `Ok(false)` when cuBLASLt offers no
    /// algorithm for it (its heuristic finds none or refuses the layout)
    /// or a pointer is not aligned, having done nothing.
    pub(crate) fn biased_gemm(
        &self,
        stream: &Arc<CudaStream>,
        g: &Gemm,
        (a, b, bias): (&DeviceBuffer, &DeviceBuffer, &DeviceBuffer),
        bias_offset: usize,
        out: &mut DeviceBuffer,
    ) -> Result<bool, ExecError> {
        if g.batch * g.m * g.n == 0 || g.k == 0 {
            return Ok(false);
        }
        let size = element_size(g.dtype);
        let dt = match g.dtype {
            sexpgpu_graph::DType::F32 => cudaDataType::CUDA_R_32F,
            sexpgpu_graph::DType::BF16 => cudaDataType::CUDA_R_16BF,
            other => return Err(failure(format!("internal: cuBLASLt matmul of {other}"))),
        };
        let (a_ptr, _ra) = a.mem().device_ptr(stream);
        let (b_ptr, _rb) = b.mem().device_ptr(stream);
        let (bias_ptr, _rbias) = bias.mem().device_ptr(stream);
        let (c_ptr, _rc) = out.mem_mut().device_ptr_mut(stream);
        let (w_ptr, _rw) = self.workspace.device_ptr(stream);
        let at = |p: u64, offset: usize| p + (offset * size) as u64;
        let (a_at, b_at) = (at(a_ptr, g.a.offset), at(b_ptr, g.b.offset));
        let bias_at = at(bias_ptr, bias_offset);
        if [a_at, b_at, bias_at, c_ptr].iter().any(|p| p % ALIGN != 0) {
            return Ok(false);
        }
        // cuBLASLt's A is our `b` and its B our `a` (see the module doc).
        let desc = Desc::new(g, dt, bias_at)?;
        let lt_a = Layout::of(&g.b, (g.n, g.k), g.batch, dt)?;
        let lt_b = Layout::of(&g.a, (g.k, g.m), g.batch, dt)?;
        let lt_c = Layout::new(dt, (g.n, g.m), g.n, (g.batch, g.m * g.n))?;
        let pref = Pref::new(self.workspace.len())?;
        // SAFETY: every descriptor is live for the call.
        let found = unsafe {
            lt::get_matmul_algo_heuristic(
                self.handle,
                desc.0,
                lt_a.0,
                lt_b.0,
                lt_c.0,
                lt_c.0,
                pref.0,
            )
        };
        // No algorithm (or a layout this cuBLASLt refuses): the fallback
        // computes the same sum, and the backend counts which ran.
        let Ok(heuristic) = found else {
            return Ok(false);
        };
        let (alpha, beta) = (1.0f32, 0.0f32);
        // SAFETY: the pointers are live device buffers of this stream, the
        // operands' leading dimensions, offsets and batch strides were
        // derived from views the lowering checked against these buffers,
        // the bias holds `n` elements from its offset, and the workspace
        // is `pref`'s size.
        unsafe {
            lt::matmul(
                self.handle,
                desc.0,
                (&alpha as *const f32).cast(),
                (&beta as *const f32).cast(),
                a_at as *const c_void,
                lt_a.0,
                b_at as *const c_void,
                lt_b.0,
                c_ptr as *const c_void,
                lt_c.0,
                c_ptr as *mut c_void,
                lt_c.0,
                &heuristic.algo,
                w_ptr as *mut c_void,
                self.workspace.len(),
                stream.cu_stream() as *mut _,
            )
        }
        .map_err(lt_error)?;
        Ok(true)
    }
}

/// A cuBLASLt attribute setter (`set_matmul_desc_attribute` and its kin):
/// the object, the attribute, the value's address and its size.
type Setter<H, A> = unsafe fn(H, A, *const c_void, usize) -> Result<(), CublasError>;

/// Sets one attribute of a cuBLASLt object through `set` from a plain value
/// of the attribute's type.
fn set_attr<H, A, T>(set: Setter<H, A>, handle: H, attr: A, value: &T) -> Result<(), ExecError> {
    // SAFETY: `value` is a live `T`, the attribute's type, read for its size.
    unsafe { set(handle, attr, (value as *const T).cast(), size_of::<T>()) }.map_err(lt_error)
}

/// Sets one attribute of a descriptor from a plain value.
fn set_desc<T>(
    desc: cublasLtMatmulDesc_t,
    attr: cublasLtMatmulDescAttributes_t,
    value: &T,
) -> Result<(), ExecError> {
    set_attr(lt::set_matmul_desc_attribute, desc, attr, value)
}

/// A matmul descriptor: f32 accumulation and scaling, the operands'
/// transposes, and the bias epilogue.
struct Desc(cublasLtMatmulDesc_t);

impl Desc {
    fn new(g: &Gemm, dt: cudaDataType, bias_at: u64) -> Result<Desc, ExecError> {
        let handle = lt::create_matmul_desc(
            cublasComputeType_t::CUBLAS_COMPUTE_32F,
            cudaDataType::CUDA_R_32F,
        )
        .map_err(lt_error)?;
        let desc = Desc(handle);
        // cublasOperation_t: 0 is N, 1 is T, as `blas::op` chooses.
        let trans = |o: &GemmOperand| i32::from(o.col_major);
        use cublasLtMatmulDescAttributes_t as A;
        set_desc(desc.0, A::CUBLASLT_MATMUL_DESC_TRANSA, &trans(&g.b))?;
        set_desc(desc.0, A::CUBLASLT_MATMUL_DESC_TRANSB, &trans(&g.a))?;
        let epilogue = cublasLtEpilogue_t::CUBLASLT_EPILOGUE_BIAS;
        set_desc(desc.0, A::CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue)?;
        set_desc(desc.0, A::CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_at)?;
        set_desc(desc.0, A::CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &dt)?;
        // One bias for every matrix of the batch.
        set_desc(desc.0, A::CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &0i64)?;
        Ok(desc)
    }
}

impl Drop for Desc {
    fn drop(&mut self) {
        // SAFETY: created by `Desc::new`, destroyed once.
        let _ = unsafe { lt::destroy_matmul_desc(self.0) };
    }
}

/// A column-major matrix layout, batched.
struct Layout(cublasLtMatrixLayout_t);

impl Layout {
    /// `rows x cols` with leading dimension `ld`, `count` matrices
    /// `stride` elements apart.
    fn new(
        dt: cudaDataType,
        (rows, cols): (usize, usize),
        ld: usize,
        (count, stride): (usize, usize),
    ) -> Result<Layout, ExecError> {
        let handle =
            lt::create_matrix_layout(dt, rows as u64, cols as u64, ld as i64).map_err(lt_error)?;
        let layout = Layout(handle);
        use cublasLtMatrixLayoutAttribute_t as L;
        let set = lt::set_matrix_layout_attribute;
        let count: i32 = int(count)?;
        set_attr(set, layout.0, L::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count)?;
        let stride = stride as i64;
        set_attr(
            set,
            layout.0,
            L::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
            &stride,
        )?;
        Ok(layout)
    }

    /// An operand that is `rows x cols` in cuBLASLt's (column-major) frame
    /// before its transpose: stored as that when row-major for us, as its
    /// transpose when column-major (`op` T).
    fn of(
        o: &GemmOperand,
        (rows, cols): (usize, usize),
        count: usize,
        dt: cudaDataType,
    ) -> Result<Layout, ExecError> {
        let stored = if o.col_major {
            (cols, rows)
        } else {
            (rows, cols)
        };
        Layout::new(dt, stored, o.ld, (count, o.batch_stride))
    }
}

impl Drop for Layout {
    fn drop(&mut self) {
        // SAFETY: created by `Layout::new`, destroyed once.
        let _ = unsafe { lt::destroy_matrix_layout(self.0) };
    }
}

/// The heuristic's preferences: the workspace it may use.
struct Pref(cublasLtMatmulPreference_t);

impl Pref {
    fn new(workspace: usize) -> Result<Pref, ExecError> {
        let pref = Pref(lt::create_matmul_pref().map_err(lt_error)?);
        let bytes = workspace as u64;
        set_attr(
            lt::set_matmul_pref_attribute,
            pref.0,
            cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            &bytes,
        )?;
        Ok(pref)
    }
}

impl Drop for Pref {
    fn drop(&mut self) {
        // SAFETY: created by `Pref::new`, destroyed once.
        let _ = unsafe { lt::destroy_matmul_pref(self.0) };
    }
}
