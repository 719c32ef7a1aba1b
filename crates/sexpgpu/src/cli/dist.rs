//! Data-parallel runs (docs/sexpgpu/distributed.md), the command's side:
//! when a launcher (`mpirun`, `srun`) started this process as one of
//! several, load MPI, join the job and hand the library a `Collective`
//! over it; with `--device cuda` the float collectives go through NCCL on
//! the rank's GPU (its local rank), bootstrapped over MPI. A process that
//! no launcher started loads nothing.

use sexpgpu::Collective;
use sexpgpu_dist::{detect, Launch, Mpi};
use std::rc::Rc;
use std::time::Duration;

/// This process's rank of a job: MPI, and NCCL for GPU runs.
pub struct Job {
    pub launch: Launch,
    mpi: Mpi,
    #[cfg(feature = "cuda")]
    nccl: Option<std::cell::RefCell<sexpgpu_dist::staged::Staged<'static>>>,
}

/// The job this process belongs to, or `None` for one process on its own.
pub fn join(timeout: Duration) -> Result<Option<Job>, String> {
    let Some(launch) = detect(|name| std::env::var(name).ok())? else {
        return Ok(None);
    };
    let mpi =
        Mpi::init(&sexpgpu_dist::mpi::candidates(launch.launcher), timeout).map_err(|why| {
            format!(
                "{} started this process as rank {} of {}, but {why}\n  = help: install MPI \
             (Debian: `apt install openmpi-bin libopenmpi-dev`) or name its library with \
             SEXPGPU_MPI_LIB",
                launch.launcher, launch.rank, launch.size
            )
        })?;
    if (mpi.rank(), mpi.size()) != (launch.rank, launch.size) {
        return Err(format!(
            "{} says rank {} of {}, but {} says rank {} of {}: launch with the MPI that {} loads",
            launch.launcher,
            launch.rank,
            launch.size,
            mpi.path.display(),
            mpi.rank(),
            mpi.size(),
            mpi.path.display()
        ));
    }
    Ok(Some(Job {
        launch,
        mpi,
        #[cfg(feature = "cuda")]
        nccl: None,
    }))
}

/// How many CPU threads each rank gets by default: the machine's cores
/// shared among the job's processes on it.
pub fn threads_per_rank(launch: &Launch) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores / launch.local_size.max(1)).max(1)
}

impl Job {
    /// Joins the NCCL communicator of the job on this rank's GPU.
    #[cfg(feature = "cuda")]
    pub fn join_nccl(&mut self) -> Result<(), String> {
        let job = self;
        let nccl = sexpgpu_dist::Nccl::load(&sexpgpu_dist::nccl::candidates())?;
        // One NCCL for the process's whole life.
        let nccl: &'static sexpgpu_dist::Nccl = Box::leak(Box::new(nccl));
        let mpi = &job.mpi;
        let mut broadcast =
            |bytes: &mut Vec<u8>| mpi.broadcast("the NCCL unique id broadcast", bytes);
        let staged = sexpgpu_dist::staged::Staged::open(
            nccl,
            job.launch.rank,
            job.launch.size,
            job.launch.local_rank,
            &mut broadcast,
        )?;
        job.nccl = Some(std::cell::RefCell::new(staged));
        Ok(())
    }

    /// Prints `message` and stops every rank of the job (`MPI_Abort`).
    pub fn abort(&self, message: &str) -> ! {
        self.mpi.abort(message, 1)
    }

    /// Waits for every rank, then leaves MPI.
    pub fn finish(self: Rc<Job>) -> Result<(), String> {
        self.mpi.barrier("the barrier at the end of the job")?;
        match Rc::try_unwrap(self) {
            Ok(job) => job.mpi.finalize(),
            Err(_) => Ok(()),
        }
    }

    /// Compares a hash across the ranks; the ranks that differ from rank 0.
    pub fn differing(&self, what: &str, hash: u64) -> Result<Vec<usize>, String> {
        let all = self.mpi.all_gather_u64(what, hash)?;
        Ok((0..all.len()).filter(|&r| all[r] != all[0]).collect())
    }
}

impl Collective for Job {
    fn rank(&self) -> usize {
        self.mpi.rank()
    }

    fn size(&self) -> usize {
        self.mpi.size()
    }

    fn all_reduce_sum(&self, what: &str, data: &mut [f32]) -> Result<(), String> {
        #[cfg(feature = "cuda")]
        if let Some(nccl) = &self.nccl {
            let _armed = self.mpi.arm(what);
            return nccl.borrow_mut().all_reduce_sum(data);
        }
        self.mpi.all_reduce_sum(what, data)
    }

    fn broadcast(&self, what: &str, bytes: &mut Vec<u8>) -> Result<(), String> {
        self.mpi.broadcast(what, bytes)
    }

    fn all_gather_u64(&self, what: &str, value: u64) -> Result<Vec<u64>, String> {
        self.mpi.all_gather_u64(what, value)
    }

    // ZeRO-1's unequal parts go over MPI (NCCL's parts are equal;
    // docs/sexpgpu/distributed.md says what remains for GPU runs).
    fn reduce_scatter_sum(
        &self,
        what: &str,
        data: &[f32],
        counts: &[usize],
    ) -> Result<Vec<f32>, String> {
        self.mpi.reduce_scatter_sum(what, data, counts)
    }

    fn all_gather(&self, what: &str, mine: &[f32], counts: &[usize]) -> Result<Vec<f32>, String> {
        self.mpi.all_gather(what, mine, counts)
    }
}
