//! SexpGPU's CUDA backend. `codegen` turns the plans `sexpgpu_cpu::compile`
//! builds into CUDA C++ kernels (pure Rust, testable without CUDA); the
//! runtime (`device`, `memory`, `backend`) compiles them with NVRTC and
//! runs them through `cudarc`, whose libraries are loaded at run time, so
//! this crate builds and tests on machines without CUDA.

pub mod codegen;
pub mod nvrtc;
