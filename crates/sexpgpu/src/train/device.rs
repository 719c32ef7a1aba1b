//! Where a run's step and eval graphs execute: the CPU, or an `Executor`
//! over another backend (`--device cuda`, docs/sexpgpu/cuda.md). A device
//! keeps what a run carries from step to step (parameters, optimizer
//! state, buffers) in its own memory: each step takes them back as
//! `Carried::Device` and only the batch, the hyperparameters and the
//! reported scalars cross to and from the host. The library never opens
//! devices itself; the command hands it an executor.

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use sexpgpu_compile::{Arena, Backend, DeviceArg, DeviceResult, Program};
use sexpgpu_cpu::CpuProgram;
use sexpgpu_graph::{DType, ExecError, Shape, Tensor};

/// `graph` compiled for the CPU backend; a graph it cannot compile is
/// `E-RUN-001` at `span`.
pub(super) fn compile(
    graph: &sexpgpu_graph::Graph,
    span: diag::Span,
) -> Result<CpuProgram, Box<diag::Diagnostic>> {
    sexpgpu_cpu::compile(graph).map_err(|e| {
        Box::new(
            diag::Diagnostic::error(
                crate::codes::E_RUN_001,
                format!("graph `{}` could not be compiled: {e}", graph.name()),
            )
            .with_primary(span, ""),
        )
    })
}

/// A tensor a run carries between steps: on the host, or in a device's
/// memory, where only the executor that made it can read it.
#[derive(Clone)]
pub enum Carried {
    Host(Tensor),
    Device(DeviceTensor),
}

impl Carried {
    pub fn shape(&self) -> &Shape {
        match self {
            Carried::Host(t) => t.shape(),
            Carried::Device(d) => &d.shape,
        }
    }

    pub fn numel(&self) -> usize {
        self.shape().numel()
    }
}

/// A tensor in a device's memory: its shape and dtype, and the executor's
/// buffer behind a shared handle (a step given the only handle may
/// overwrite the buffer in place; an evaluation pass only lends it).
#[derive(Clone)]
pub struct DeviceTensor {
    pub shape: Shape,
    pub dtype: DType,
    pub buffer: Rc<dyn Any>,
}

/// Runs compiled programs on a device other than the CPU.
pub trait Executor {
    /// What `CpuProgram::run` gives on the CPU, computed on the device, with
    /// output `i` left in the device's memory when `keep[i]`.
    fn run(
        &self,
        program: &Program,
        args: Vec<Carried>,
        keep: &[bool],
        seed: u64,
    ) -> Result<Vec<Carried>, ExecError>;

    /// A device tensor's elements, on the host.
    fn fetch(&self, tensor: &DeviceTensor) -> Result<Tensor, ExecError>;
}

/// Where a run's step and eval graphs execute: the CPU (`None`, the
/// default) or an `Executor`.
#[derive(Clone, Default)]
pub struct Device(pub Option<Rc<dyn Executor>>);

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Device(executor)"
        } else {
            "Device(cpu)"
        })
    }
}

impl Device {
    /// Runs `program` on `args`, which it may keep: on the CPU their
    /// buffers take the next run's outputs (`CpuProgram::run_owned`); on a
    /// device, outputs `keep` marks stay there.
    pub(super) fn run(
        &self,
        program: &CpuProgram,
        args: Vec<Carried>,
        keep: &[bool],
        seed: u64,
    ) -> Result<Vec<Carried>, ExecError> {
        match &self.0 {
            Some(executor) => executor.run(program.program(), args, keep, seed),
            None => {
                let args = args
                    .into_iter()
                    .map(|c| self.take_host(c))
                    .collect::<Result<Vec<_>, _>>()?;
                let outputs = program.run_owned(args, seed)?;
                Ok(outputs.into_iter().map(Carried::Host).collect())
            }
        }
    }

    /// The carried tensor's elements on the host.
    pub(super) fn host(&self, c: &Carried) -> Result<Tensor, ExecError> {
        match c {
            Carried::Host(t) => Ok(t.clone()),
            Carried::Device(d) => self.fetch(d),
        }
    }

    /// `host`, without a copy when the tensor is there already.
    pub(super) fn take_host(&self, c: Carried) -> Result<Tensor, ExecError> {
        match c {
            Carried::Host(t) => Ok(t),
            Carried::Device(d) => self.fetch(&d),
        }
    }

    fn fetch(&self, d: &DeviceTensor) -> Result<Tensor, ExecError> {
        match &self.0 {
            Some(executor) => executor.fetch(d),
            None => Err(ExecError {
                message: "internal: a device tensor reached the CPU executor".to_string(),
                node: None,
            }),
        }
    }
}

/// The `Executor` of any `sexpgpu_compile::Backend`: each program's kernels
/// are prepared before its first run, and its slots live in an arena of
/// their own between runs.
pub struct BackendExecutor<B: Backend> {
    backend: B,
    /// Device slots by program (its address, name and slot layout, so a
    /// later program at the same address never gets a stale arena).
    arenas: RefCell<HashMap<(usize, String), Arena<B>>>,
}

impl<B: Backend> BackendExecutor<B> {
    pub fn new(backend: B) -> BackendExecutor<B> {
        BackendExecutor {
            backend,
            arenas: RefCell::default(),
        }
    }
}

impl<B: Backend> Executor for BackendExecutor<B>
where
    B::Buffer: 'static,
{
    fn run(
        &self,
        program: &Program,
        args: Vec<Carried>,
        keep: &[bool],
        seed: u64,
    ) -> Result<Vec<Carried>, ExecError> {
        let plan = program.plan();
        let key = (
            program as *const Program as usize,
            format!("{} {:?}", plan.graph_name, plan.slots),
        );
        let mut arenas = self.arenas.borrow_mut();
        if !arenas.contains_key(&key) {
            self.backend.prepare(plan)?;
        }
        let arena = arenas.entry(key).or_default();
        let (handed, shared) = split_handles::<B::Buffer>(args)?;
        let device_args = handed
            .into_iter()
            .map(|h| match h {
                Handed::Host(t) => DeviceArg::Host(t),
                Handed::Given(buf) => DeviceArg::Given(buf),
                Handed::Lent(i) => DeviceArg::Lent(&*shared[i]),
            })
            .collect();
        let results = program.run_resident(&self.backend, arena, device_args, keep, seed)?;
        Ok(results
            .into_iter()
            .zip(&plan.outputs)
            .map(|(r, output)| match r {
                DeviceResult::Host(t) => Carried::Host(t),
                DeviceResult::Kept(buf) => Carried::Device(DeviceTensor {
                    shape: output.shape.clone(),
                    dtype: output.dtype,
                    buffer: Rc::new(buf),
                }),
            })
            .collect())
    }

    fn fetch(&self, tensor: &DeviceTensor) -> Result<Tensor, ExecError> {
        let buf = tensor
            .buffer
            .downcast_ref::<B::Buffer>()
            .ok_or_else(foreign)?;
        self.backend.download_copy(buf, 0, &tensor.shape)
    }
}

/// How an argument reaches the backend: a host tensor, a device buffer
/// whose only handle the run was given, or one still shared (lent: the
/// index of its handle, kept alive for the run).
enum Handed<T> {
    Host(Tensor),
    Given(T),
    Lent(usize),
}

/// Arguments as they are handed over, and the shared handles the lent
/// ones borrow from.
type Split<T> = (Vec<Handed<T>>, Vec<Rc<T>>);

/// Each argument as it is handed over (`Split`).
fn split_handles<T: 'static>(args: Vec<Carried>) -> Result<Split<T>, ExecError> {
    let mut shared = Vec::new();
    let handed = args
        .into_iter()
        .map(|arg| {
            Ok(match arg {
                Carried::Host(t) => Handed::Host(t),
                Carried::Device(d) => {
                    let rc = d.buffer.downcast::<T>().map_err(|_| foreign())?;
                    match Rc::try_unwrap(rc) {
                        Ok(buf) => Handed::Given(buf),
                        Err(rc) => {
                            shared.push(rc);
                            Handed::Lent(shared.len() - 1)
                        }
                    }
                }
            })
        })
        .collect::<Result<Vec<_>, ExecError>>()?;
    Ok((handed, shared))
}

/// The error for a device tensor another executor made.
fn foreign() -> ExecError {
    ExecError {
        message: "internal: a device tensor of another executor".to_string(),
        node: None,
    }
}
