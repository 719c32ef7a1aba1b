//! SexpGPU's data-parallel engines (docs/sexpgpu/distributed.md): which
//! process of a job this is (`launch`, from the launcher's environment),
//! MPI for bootstrapping and CPU collectives (`mpi`), NCCL for GPU
//! collectives (`nccl`, its unique id broadcast over MPI), and the
//! `watchdog` that turns a collective that never completes into an error.
//! MPI and NCCL are loaded at run time, so a build, and a run that no
//! launcher started, need neither.

pub mod launch;
pub mod mpi;
pub mod nccl;
#[cfg(feature = "cuda")]
pub mod staged;
pub mod watchdog;

pub use launch::{detect, Launch};
pub use mpi::Mpi;
pub use nccl::Nccl;
