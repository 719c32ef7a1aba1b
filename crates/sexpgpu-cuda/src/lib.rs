//! SexpGPU's CUDA backend. `codegen` turns the plans `sexpgpu_compile::compile`
//! builds into CUDA C++ kernels (pure Rust, testable without CUDA);
//! `nvrtc` compiles them; `device` opens a GPU (a clear `OpenError` when
//! the driver, a device or a library is missing); `backend` implements
//! `sexpgpu_compile::Backend` over `cudarc` with `memory`'s caching allocator,
//! `blas`'s cuBLAS matmul and `blaslt`'s cuBLASLt bias epilogue. Every CUDA library is loaded at run time,
//! so this crate builds and tests on machines without CUDA.

mod backend;
mod blas;
mod blaslt;
pub mod codegen;
pub mod device;
mod error;
pub mod host;
pub mod memory;
pub mod nvrtc;

pub use backend::CudaBackend;
pub use device::{CudaDevice, OpenError};
pub use memory::DeviceBuffer;
