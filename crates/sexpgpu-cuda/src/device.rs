//! Opening a GPU: finds the driver library, a device, NVRTC and cuBLAS,
//! each loaded at run time, and says exactly which is missing when one is.
//! Owns the context, the one stream every kernel and copy is queued on,
//! and the device's compute capability (the architecture kernels are
//! compiled for). Never panics for a missing library or device.

use std::fmt;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream};

use crate::nvrtc::{self, Nvrtc};

/// Why no CUDA device could be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenError {
    /// `libcuda.so` (installed with the NVIDIA driver) is not loadable.
    NoDriver,
    /// The driver loaded but found no GPU (or not the one asked for).
    NoDevice { ordinal: usize, count: usize },
    /// The driver failed (an unsupported driver version, a busy device).
    Driver(String),
    /// NVRTC, which compiles the generated kernels, is not loadable.
    NoNvrtc(String),
    /// cuBLAS, which runs matmuls, is not loadable.
    NoCublas,
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::NoDriver => f.write_str(
                "CUDA is not available: the NVIDIA driver library libcuda.so was not found \
                 (install the NVIDIA driver; see docs/sexpgpu/cuda.md)",
            ),
            OpenError::NoDevice { ordinal, count } => write!(
                f,
                "CUDA is not available: the NVIDIA driver found {count} GPU(s), so there is no device {ordinal}"
            ),
            OpenError::Driver(e) => write!(f, "CUDA is not available: the NVIDIA driver failed: {e}"),
            OpenError::NoNvrtc(e) => write!(f, "CUDA is not available: {e} (see docs/sexpgpu/cuda.md)"),
            OpenError::NoCublas => f.write_str(
                "CUDA is not available: cuBLAS (libcublas.so.12) was not found \
                 (`pip install nvidia-cublas-cu12` or a CUDA toolkit; see docs/sexpgpu/cuda.md)",
            ),
        }
    }
}

impl std::error::Error for OpenError {}

/// One opened GPU.
pub struct CudaDevice {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) nvrtc: Nvrtc,
    /// `major * 10 + minor`: 80 for A100, 90 for H100/H200.
    pub arch: u32,
    pub name: String,
}

impl CudaDevice {
    /// Opens GPU `ordinal`: the driver first (the most common thing to be
    /// missing), then the device, then the libraries kernels need.
    pub fn open(ordinal: usize) -> Result<CudaDevice, OpenError> {
        Self::open_with(ordinal, &nvrtc::candidates())
    }

    /// `open` with NVRTC searched at the given paths.
    pub fn open_with(
        ordinal: usize,
        nvrtc_paths: &[std::path::PathBuf],
    ) -> Result<CudaDevice, OpenError> {
        // SAFETY: only tries to dlopen the driver library by its names.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(OpenError::NoDriver);
        }
        let count = match CudaContext::device_count() {
            Ok(n) => n.max(0) as usize,
            // cuInit reports a machine without GPUs as an error.
            Err(e) if format!("{e:?}").contains("NO_DEVICE") => 0,
            Err(e) => return Err(OpenError::Driver(format!("{e:?}"))),
        };
        if ordinal >= count {
            return Err(OpenError::NoDevice { ordinal, count });
        }
        let nvrtc = Nvrtc::load(nvrtc_paths).map_err(OpenError::NoNvrtc)?;
        // SAFETY: only tries to dlopen cuBLAS by its names.
        if !unsafe { cudarc::cublas::sys::is_culib_present() } {
            return Err(OpenError::NoCublas);
        }
        let driver = |e: cudarc::driver::DriverError| OpenError::Driver(format!("{e:?}"));
        let ctx = CudaContext::new(ordinal).map_err(driver)?;
        let (major, minor) = ctx.compute_capability().map_err(driver)?;
        let name = ctx.name().map_err(driver)?;
        let stream = ctx.new_stream().map_err(driver)?;
        Ok(CudaDevice {
            ctx,
            stream,
            nvrtc,
            arch: (major * 10 + minor) as u32,
            name,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without the driver library (this project's build machines, CI) the
    /// error is exactly "no driver", with its message; with a GPU the
    /// device opens and reports a real architecture.
    #[test]
    fn opening_without_a_driver_names_libcuda() {
        // SAFETY: only tries to dlopen the driver library by its names.
        let driver = unsafe { cudarc::driver::sys::is_culib_present() };
        match CudaDevice::open(0) {
            Err(e) if !driver => {
                assert_eq!(e, OpenError::NoDriver);
                expect_test::expect![[r#"CUDA is not available: the NVIDIA driver library libcuda.so was not found (install the NVIDIA driver; see docs/sexpgpu/cuda.md)"#]]
                    .assert_eq(&e.to_string());
            }
            Err(e) => assert!(e.to_string().starts_with("CUDA is not available: "), "{e}"),
            Ok(dev) => assert!(dev.arch >= 50, "{} reports sm_{}", dev.name, dev.arch),
        }
    }

    #[test]
    fn a_missing_device_is_reported_with_the_count() {
        let e = OpenError::NoDevice {
            ordinal: 1,
            count: 1,
        };
        assert_eq!(
            e.to_string(),
            "CUDA is not available: the NVIDIA driver found 1 GPU(s), so there is no device 1"
        );
        if CudaDevice::open(0).is_err() {
            // Without a driver, every ordinal fails the same clear way.
            assert!(CudaDevice::open(7).is_err());
        }
    }
}
