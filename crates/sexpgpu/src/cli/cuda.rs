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
    sexpgpu_compile::profile::set_gpu(table_entry(&device.name));
    let backend = sexpgpu_cuda::CudaBackend::new(device)
        .map_err(|e| format!("CUDA is not available: {}", e.message))?;
    Ok(sexpgpu::Device(Some(std::rc::Rc::new(
        sexpgpu::BackendExecutor::new(backend),
    ))))
}

/// The cost model's entry for the GPU named `device` (docs/sexpgpu/cuda.md,
/// "The cost model"), for `--profile`'s fraction of its peak: the one
/// `SEXPGPU_COST_GPU` names (`h100`: an H100 PCIe the table lacks), else
/// the one the device's name matches, if any.
#[cfg(feature = "cuda")]
fn table_entry(device: &str) -> Option<&'static sexpgpu_compile::cost::Gpu> {
    use sexpgpu_compile::cost::Gpu;
    match std::env::var("SEXPGPU_COST_GPU") {
        Ok(name) => Gpu::lookup(&name)
            .map_err(|why| eprintln!("warning: SEXPGPU_COST_GPU: {why}"))
            .ok(),
        Err(_) => Gpu::from_device_name(device),
    }
}

#[cfg(not(feature = "cuda"))]
pub fn open(_ordinal: usize) -> Result<sexpgpu::Device, String> {
    Err("CUDA is not available: this sexpgpu was built without the `cuda` feature".to_string())
}
