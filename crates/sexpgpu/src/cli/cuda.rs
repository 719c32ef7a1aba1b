//! `--device cuda`: opens the GPU (or says exactly what is missing, see
//! docs/sexpgpu/cuda.md) and runs the compiled step and eval graphs on the
//! CUDA backend (`sexpgpu::BackendExecutor`): each program keeps its
//! device arena between steps, and a run's parameters, optimizer state and
//! buffers stay in the GPU's memory from step to step.

/// The executor for `--device cuda` on GPU `ordinal` (a data-parallel
/// rank's local rank, else 0), or the one-line reason there is none.
#[cfg(feature = "cuda")]
pub fn open(ordinal: usize) -> Result<sexpgpu::Device, String> {
    let device = sexpgpu_cuda::CudaDevice::open(ordinal).map_err(|e| e.to_string())?;
    let backend = sexpgpu_cuda::CudaBackend::new(device)
        .map_err(|e| format!("CUDA is not available: {}", e.message))?;
    Ok(sexpgpu::Device(Some(std::rc::Rc::new(
        sexpgpu::BackendExecutor::new(backend),
    ))))
}

#[cfg(not(feature = "cuda"))]
pub fn open(_ordinal: usize) -> Result<sexpgpu::Device, String> {
    Err("CUDA is not available: this sexpgpu was built without the `cuda` feature".to_string())
}
