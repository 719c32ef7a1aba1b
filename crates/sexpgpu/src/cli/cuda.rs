//! `--device cuda`: opens the GPU (or says exactly what is missing, see
//! docs/sexpgpu/cuda.md) and runs the compiled step and eval graphs on the
//! CUDA backend, each program keeping its device arena between steps.

/// The executor for `--device cuda`, or the one-line reason there is none.
#[cfg(feature = "cuda")]
pub fn open() -> Result<sexpgpu::Device, String> {
    let device = sexpgpu_cuda::CudaDevice::open(0).map_err(|e| e.to_string())?;
    let backend = sexpgpu_cuda::CudaBackend::new(device)
        .map_err(|e| format!("CUDA is not available: {}", e.message))?;
    Ok(sexpgpu::Device(Some(std::rc::Rc::new(imp::Cuda {
        backend,
        arenas: Default::default(),
    }))))
}

#[cfg(not(feature = "cuda"))]
pub fn open() -> Result<sexpgpu::Device, String> {
    Err("CUDA is not available: this sexpgpu was built without the `cuda` feature".to_string())
}

#[cfg(feature = "cuda")]
mod imp {
    use std::cell::RefCell;
    use std::collections::HashMap;

    use sexpgpu_cpu::{Arena, Program};
    use sexpgpu_cuda::CudaBackend;
    use sexpgpu_graph::{ExecError, Tensor};

    pub struct Cuda {
        pub backend: CudaBackend,
        /// Device slots by program (its address, name and slot layout, so
        /// a later program at the same address never gets a stale arena).
        pub arenas: RefCell<HashMap<(usize, String), Arena<CudaBackend>>>,
    }

    impl sexpgpu::Executor for Cuda {
        fn run(
            &self,
            program: &Program,
            args: &[Tensor],
            seed: u64,
        ) -> Result<Vec<Tensor>, ExecError> {
            let plan = program.plan();
            let key = (
                program as *const Program as usize,
                format!("{} {:?}", plan.graph_name, plan.slots),
            );
            let mut arenas = self.arenas.borrow_mut();
            if !arenas.contains_key(&key) {
                // All of a program's kernels compile together, up front.
                self.backend.prepare(plan)?;
            }
            let arena = arenas.entry(key).or_default();
            program.run_on(&self.backend, arena, args, seed)
        }
    }
}
