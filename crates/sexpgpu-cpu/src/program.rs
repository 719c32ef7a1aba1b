//! `CpuProgram`: a compiled program with what running it on the CPU
//! keeps between runs (the arena of `CpuBackend` buffers) and the thread
//! count its kernels use. Each run executes on a worker of the kernel
//! threads' pool (`parallel::install`), so neither the caller nor a kernel
//! pays a wake-up. Knows no kernel arithmetic and no planning.

use std::sync::Mutex;

use sexpgpu_compile::{Arena, Plan, Program};
use sexpgpu_graph::{ExecError, Tensor};

use crate::backend::CpuBackend;
use crate::parallel;

/// A compiled graph, ready to run any number of times on the CPU.
pub struct CpuProgram {
    program: Program,
    threads: usize,
    arena: Mutex<Arena<CpuBackend>>,
}

impl CpuProgram {
    /// `program` on `CpuBackend::default_threads` threads.
    pub fn new(program: Program) -> CpuProgram {
        CpuProgram {
            program,
            threads: CpuBackend::default_threads(),
            arena: Mutex::new(Arena::default()),
        }
    }

    /// The compiled program, to run on another backend.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The plan: launches, buffers and slots.
    pub fn plan(&self) -> &Plan {
        self.program.plan()
    }

    /// `Program::describe` (`sexpgpu ir --stage optimized`).
    pub fn describe(&self) -> String {
        self.program.describe()
    }

    /// Sets how many threads `run` uses (at least 1).
    pub fn with_threads(mut self, threads: usize) -> CpuProgram {
        self.threads = threads.max(1);
        self
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs with `args` (one per input and param node, in
    /// `Graph::arguments` order) and random streams folded from `seed`;
    /// arguments are read in place, never copied.
    pub fn run(&self, args: &[Tensor], seed: u64) -> Result<Vec<Tensor>, ExecError> {
        self.with_arena(|backend, arena| self.program.run_on(backend, arena, args, seed))
    }

    /// `run`, taking the arguments (`Program::run_given`): their buffers
    /// hold the next run's outputs, and a fused loop may compute in place
    /// over one it is the last to read.
    pub fn run_owned(&self, args: Vec<Tensor>, seed: u64) -> Result<Vec<Tensor>, ExecError> {
        self.with_arena(|backend, arena| self.program.run_given(backend, arena, args, seed))
    }

    /// Calls `f` with the CPU backend and the kept arena (a concurrent
    /// run, finding the lock held, simply works in a fresh one), on a
    /// worker of the kernel threads' pool.
    fn with_arena<R: Send>(
        &self,
        f: impl FnOnce(&CpuBackend, &mut Arena<CpuBackend>) -> R + Send,
    ) -> R {
        parallel::install(self.threads, || {
            let backend = CpuBackend::new(self.threads);
            let mut arena = match self.arena.try_lock() {
                Ok(mut kept) => std::mem::take(&mut *kept),
                Err(_) => Arena::default(),
            };
            let result = f(&backend, &mut arena);
            if let Ok(mut kept) = self.arena.try_lock() {
                *kept = arena;
            }
            result
        })
    }
}
