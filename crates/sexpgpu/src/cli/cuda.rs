//! `--device cuda`: opens the GPU (or says exactly what is missing, see
//! docs/sexpgpu/cuda.md) and runs the compiled step and eval graphs on the
//! CUDA backend (`sexpgpu::BackendExecutor`): each program keeps its
//! device arena between steps, and a run's parameters, optimizer state and
//! buffers stay in the GPU's memory from step to step. The device's name
//! picks its entry in the cost model's table for `--profile`.

/// The executor for `--device cuda` on GPU `ordinal` (a data-parallel
/// rank's local rank, else 0), or the one-line reason there is none.
#[cfg(feature = "cuda")]
pub fn open(ordinal: usize) -> Result<sexpgpu::Device, String> {
    let device = sexpgpu_cuda::CudaDevice::open(ordinal).map_err(|e| e.to_string())?;
    // `--profile` gives the fraction of this GPU's peak when the cost
    // model's table has it (docs/sexpgpu/cuda.md, "The cost model").
    let gpu = sexpgpu_compile::cost::Gpu::from_device_name(&device.name);
    sexpgpu_compile::profile::set_gpu(gpu);
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
