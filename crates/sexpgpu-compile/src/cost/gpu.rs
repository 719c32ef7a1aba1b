//! The GPUs the cost model knows, with their vendor's datasheet figures
//! (`docs/sexpgpu/cuda.md`, "The cost model", cites each): dense tensor-core
//! bf16 and tf32 rates, the f32 rate of the CUDA cores and the memory's
//! bandwidth; and a launch's lower bound on one of them.

use super::count::{Cost, Rate};

/// One GPU's peak rates. Tensor-core figures are dense (NVIDIA's datasheets
/// give them with 2:4 sparsity, twice these).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gpu {
    /// What `--gpu` takes: `h100`, `h200`, `a100`, `l4`.
    pub key: &'static str,
    pub name: &'static str,
    /// Dense bf16 (and f16) tensor-core TFLOPS, f32 accumulation.
    pub bf16_tflops: f64,
    /// Dense tf32 tensor-core TFLOPS (the backend's f32 products do not use
    /// them: cuBLAS is asked for `CUBLAS_COMPUTE_32F`).
    pub tf32_tflops: f64,
    /// f32 TFLOPS of the CUDA cores (non-tensor).
    pub f32_tflops: f64,
    /// Memory bandwidth in GB/s (10^9 bytes a second).
    pub bandwidth_gbs: f64,
}

/// The table, in `--gpu`'s order.
pub const GPUS: [Gpu; 4] = [
    Gpu {
        key: "h100",
        name: "NVIDIA H100 SXM",
        bf16_tflops: 989.5,
        tf32_tflops: 494.5,
        f32_tflops: 67.0,
        bandwidth_gbs: 3350.0,
    },
    Gpu {
        key: "h200",
        name: "NVIDIA H200 SXM",
        bf16_tflops: 989.5,
        tf32_tflops: 494.5,
        f32_tflops: 67.0,
        bandwidth_gbs: 4800.0,
    },
    Gpu {
        key: "a100",
        name: "NVIDIA A100 SXM 80GB",
        bf16_tflops: 312.0,
        tf32_tflops: 156.0,
        f32_tflops: 19.5,
        bandwidth_gbs: 2039.0,
    },
    Gpu {
        key: "l4",
        name: "NVIDIA L4",
        bf16_tflops: 121.0,
        tf32_tflops: 60.0,
        f32_tflops: 30.3,
        bandwidth_gbs: 300.0,
    },
];

/// A launch's lower bound: the time its bytes take at the memory's
/// bandwidth and the time its operations take at their peak rate, in
/// seconds. It can be no faster than the longer of the two.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bound {
    pub memory: f64,
    pub compute: f64,
}

impl Bound {
    pub fn seconds(self) -> f64 {
        self.memory.max(self.compute)
    }

    /// Which of the two bounds it: `memory` or `compute`.
    pub fn limit(self) -> &'static str {
        if self.compute > self.memory {
            "compute"
        } else {
            "memory"
        }
    }
}

impl Gpu {
    /// The GPU `text` names: a key of the table (`h200`, any case), or a
    /// device's name as the driver reports it (`NVIDIA H200`); otherwise
    /// an error that lists the keys.
    pub fn lookup(text: &str) -> Result<&'static Gpu, String> {
        let key = text.trim().to_ascii_lowercase();
        GPUS.iter()
            .find(|g| g.key == key)
            .or_else(|| Gpu::from_device_name(text))
            .ok_or_else(|| {
                let keys: Vec<&str> = GPUS.iter().map(|g| g.key).collect();
                format!("unknown GPU `{text}` (known: {})", keys.join(", "))
            })
    }

    /// The table's entry for a device's name as the driver reports it
    /// (`NVIDIA H100 80GB HBM3`, `NVIDIA H200`, `NVIDIA A100-SXM4-80GB`,
    /// `NVIDIA L4`); `None` for other devices, and for the PCIe and NVL
    /// forms of a chip, whose clocks and memory differ from the table's.
    pub fn from_device_name(name: &str) -> Option<&'static Gpu> {
        let upper = name.to_ascii_uppercase();
        let words: Vec<&str> = upper
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let has = |w: &str| words.contains(&w);
        if has("PCIE") || has("NVL") {
            return None;
        }
        let key = if has("H200") {
            "h200"
        } else if has("H100") {
            "h100"
        } else if has("A100") && has("SXM4") && has("80GB") {
            "a100"
        } else if has("L4") {
            "l4"
        } else {
            return None;
        };
        GPUS.iter().find(|g| g.key == key)
    }

    /// The peak operations a second of `rate`.
    pub fn peak(&self, rate: Rate) -> f64 {
        1e12 * match rate {
            Rate::TensorBf16 => self.bf16_tflops,
            Rate::F32 => self.f32_tflops,
        }
    }

    /// `cost`'s lower bound on this GPU.
    pub fn bound(&self, cost: &Cost) -> Bound {
        Bound {
            memory: cost.bytes() as f64 / (self.bandwidth_gbs * 1e9),
            compute: cost.flops as f64 / self.peak(cost.rate),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_keys_find_their_entry_and_others_are_refused() {
        let key = |text: &str| Gpu::lookup(text).map(|g| g.key);
        assert_eq!(key("h200"), Ok("h200"));
        assert_eq!(key("H100"), Ok("h100"));
        assert_eq!(key("NVIDIA H200"), Ok("h200"));
        assert_eq!(key("NVIDIA H100 80GB HBM3"), Ok("h100"));
        assert_eq!(key("NVIDIA A100-SXM4-80GB"), Ok("a100"));
        assert_eq!(key("NVIDIA L4"), Ok("l4"));
        assert_eq!(Gpu::from_device_name("NVIDIA H100 PCIe"), None);
        assert_eq!(Gpu::from_device_name("NVIDIA L40S"), None);
        assert_eq!(Gpu::from_device_name("NVIDIA A100-PCIE-40GB"), None);
        assert_eq!(
            key("v100"),
            Err("unknown GPU `v100` (known: h100, h200, a100, l4)".to_string())
        );
    }

    #[test]
    fn a_bound_is_the_longer_of_bytes_over_bandwidth_and_flops_over_peak() {
        let h200 = Gpu::lookup("h200").unwrap();
        let cost = Cost {
            kind: "matmul",
            read: 4_800_000_000_000,
            written: 0,
            flops: 989_500_000_000_000 / 2,
            rate: Rate::TensorBf16,
        };
        let bound = h200.bound(&cost);
        assert!((bound.memory - 1.0).abs() < 1e-12, "{bound:?}");
        assert!((bound.compute - 0.5).abs() < 1e-12, "{bound:?}");
        assert_eq!((bound.seconds(), bound.limit()), (bound.memory, "memory"));
        let f32_cost = Cost {
            rate: Rate::F32,
            ..cost
        };
        assert_eq!(h200.bound(&f32_cost).limit(), "compute");
    }
}
