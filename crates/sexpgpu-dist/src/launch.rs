//! Which process of a job this is, from the launcher's environment:
//! OpenMPI's `mpirun` (`OMPI_COMM_WORLD_*`), MPICH/Hydra and Intel MPI
//! (`PMI_RANK`/`PMI_SIZE`, `MPI_LOCALRANKID`), PMIx launchers
//! (`PMIX_RANK` with `OMPI_COMM_WORLD_SIZE`) and SLURM's `srun`
//! (`SLURM_PROCID`, `SLURM_STEP_NUM_TASKS`, `SLURM_LOCALID`). Pure: the
//! environment comes in as a function, so every case is testable.

/// A process's place in a job its launcher started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub rank: usize,
    pub size: usize,
    /// The rank among the job's processes on this machine (picks the GPU).
    pub local_rank: usize,
    /// How many of the job's processes run on this machine.
    pub local_size: usize,
    /// Which launcher's variables said so (for messages).
    pub launcher: &'static str,
}

/// The launcher's variables, in the order they are tried: (launcher,
/// rank, size, local rank, local size).
const LAUNCHERS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "OpenMPI",
        "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_LOCAL_RANK",
        "OMPI_COMM_WORLD_LOCAL_SIZE",
    ),
    (
        "MPICH",
        "PMI_RANK",
        "PMI_SIZE",
        "MPI_LOCALRANKID",
        "MPI_LOCALNRANKS",
    ),
    (
        "SLURM",
        "SLURM_PROCID",
        "SLURM_STEP_NUM_TASKS",
        "SLURM_LOCALID",
        "SLURM_STEP_TASKS_PER_NODE",
    ),
];

/// The launch this process is part of: `None` when no launcher started it
/// (or started it alone, a world of one, which needs no MPI); an error
/// when a launcher's variables are there but do not make sense.
pub fn detect(var: impl Fn(&str) -> Option<String>) -> Result<Option<Launch>, String> {
    for &(launcher, rank, size, local_rank, local_size) in LAUNCHERS {
        let Some(size_text) = var(size) else {
            continue;
        };
        let number = |name: &str, text: &str| {
            text.trim()
                .parse::<usize>()
                .map_err(|_| format!("{launcher}: {name}={text} is not a number"))
        };
        let size_n = number(size, &size_text)?;
        if size_n == 0 {
            return Err(format!("{launcher}: {size}=0"));
        }
        if size_n == 1 {
            return Ok(None);
        }
        let Some(rank_text) = var(rank) else {
            return Err(format!("{launcher}: {size} is set but {rank} is not"));
        };
        let rank_n = number(rank, &rank_text)?;
        if rank_n >= size_n {
            return Err(format!(
                "{launcher}: {rank}={rank_n} is not below {size}={size_n}"
            ));
        }
        let local_rank_n = match var(local_rank) {
            Some(t) => number(local_rank, &t)?,
            None => 0,
        };
        // SLURM's tasks per node read `4(x2)` or `4,2`: the first count.
        let local_size_n = match var(local_size) {
            Some(t) => {
                let first = t.split([',', '(']).next().unwrap_or("").to_string();
                number(local_size, &first)?
            }
            None => 1,
        };
        return Ok(Some(Launch {
            rank: rank_n,
            size: size_n,
            local_rank: local_rank_n,
            local_size: local_size_n.max(local_rank_n + 1),
            launcher,
        }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn no_launcher_is_no_world() {
        assert_eq!(detect(env(&[])), Ok(None));
        // `sbatch` sets SLURM_NTASKS for the whole allocation: not a launch.
        assert_eq!(
            detect(env(&[("SLURM_NTASKS", "8"), ("SLURM_PROCID", "0")])),
            Ok(None)
        );
    }

    #[test]
    fn a_world_of_one_needs_no_mpi() {
        let e = [("OMPI_COMM_WORLD_SIZE", "1"), ("OMPI_COMM_WORLD_RANK", "0")];
        assert_eq!(detect(env(&e)), Ok(None));
    }

    #[test]
    fn openmpi_mpich_and_slurm() {
        let open: &[(&str, &str)] = &[
            ("OMPI_COMM_WORLD_SIZE", "4"),
            ("OMPI_COMM_WORLD_RANK", "3"),
            ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
            ("OMPI_COMM_WORLD_LOCAL_SIZE", "2"),
        ];
        let mpich: &[(&str, &str)] = &[("PMI_SIZE", "2"), ("PMI_RANK", "1")];
        let slurm: &[(&str, &str)] = &[
            ("SLURM_STEP_NUM_TASKS", "16"),
            ("SLURM_PROCID", "9"),
            ("SLURM_LOCALID", "1"),
            ("SLURM_STEP_TASKS_PER_NODE", "8(x2)"),
        ];
        // (rank, size, local rank, local size, launcher)
        for (vars, want) in [
            (open, (3, 4, 1, 2, "OpenMPI")),
            (mpich, (1, 2, 0, 1, "MPICH")),
            (slurm, (9, 16, 1, 8, "SLURM")),
        ] {
            let l = detect(env(vars)).unwrap().unwrap();
            let got = (l.rank, l.size, l.local_rank, l.local_size, l.launcher);
            assert_eq!(got, want, "{vars:?}");
        }
    }

    #[test]
    fn nonsense_is_an_error() {
        let bad = [("OMPI_COMM_WORLD_SIZE", "2"), ("OMPI_COMM_WORLD_RANK", "2")];
        assert!(detect(env(&bad)).unwrap_err().contains("not below"));
        let bad = [("PMI_SIZE", "two")];
        assert!(detect(env(&bad)).unwrap_err().contains("not a number"));
        let bad = [("PMI_SIZE", "2")];
        assert!(detect(env(&bad)).unwrap_err().contains("PMI_RANK"));
    }
}
