//! A thin binding of the MPI calls data-parallel training needs, loaded at
//! run time (`dlopen`), so a build and a machine without MPI are
//! unaffected: `MPI_Init_thread`, `Comm_rank`/`Comm_size`,
//! `Bcast`, `Allgather`, `Allgatherv`, `Reduce_scatter`, `Abort`,
//! `Finalize`. Two ABIs: OpenMPI's, whose handles (`MPI_COMM_WORLD`,
//! `MPI_FLOAT`, `MPI_SUM`) are addresses of exported objects
//! (`ompi_mpi_comm_world` ...), and MPICH's (also Intel MPI and MVAPICH,
//! `libmpi.so.12`), whose handles are integer constants from its `mpi.h`.
//! Every collective runs under the `Watchdog`, so a rank that died or went
//! its own way ends the job with a message instead of a hang.

use crate::watchdog::Watchdog;
use libloading::Library;
use std::ffi::{c_char, c_int, c_void};
use std::path::PathBuf;
use std::time::Duration;

/// `MPI_THREAD_MULTIPLE`, the same number in both ABIs: the watchdog's
/// thread may call `MPI_Abort` while the main thread waits in a collective.
const THREAD_MULTIPLE: c_int = 3;

/// The most elements one MPI call moves (MPI counts are C ints).
const CHUNK: usize = 1 << 30;

/// The entry points of one ABI, `H` being its handle type.
#[derive(Clone, Copy)]
struct Api<H: Copy> {
    comm_world: H,
    float: H,
    byte: H,
    uint64: H,
    sum: H,
    init_thread:
        unsafe extern "C" fn(*mut c_int, *mut *mut *mut c_char, c_int, *mut c_int) -> c_int,
    initialized: unsafe extern "C" fn(*mut c_int) -> c_int,
    comm_rank: unsafe extern "C" fn(H, *mut c_int) -> c_int,
    comm_size: unsafe extern "C" fn(H, *mut c_int) -> c_int,
    bcast: unsafe extern "C" fn(*mut c_void, c_int, H, c_int, H) -> c_int,
    allgather: unsafe extern "C" fn(*const c_void, c_int, H, *mut c_void, c_int, H, H) -> c_int,
    allgatherv: unsafe extern "C" fn(
        *const c_void,
        c_int,
        H,
        *mut c_void,
        *const c_int,
        *const c_int,
        H,
        H,
    ) -> c_int,
    reduce_scatter:
        unsafe extern "C" fn(*const c_void, *mut c_void, *const c_int, H, H, H) -> c_int,
    barrier: unsafe extern "C" fn(H) -> c_int,
    abort: unsafe extern "C" fn(H, c_int) -> c_int,
    finalize: unsafe extern "C" fn() -> c_int,
}

/// The `MPI_IN_PLACE` of each ABI.
const OPENMPI_IN_PLACE: usize = 1;
const MPICH_IN_PLACE: usize = -1isize as usize;

/// MPICH's handles (`mpi.h`, MPICH 3 and 4; Intel MPI and MVAPICH share them).
const MPICH_COMM_WORLD: c_int = 0x4400_0000;
const MPICH_FLOAT: c_int = 0x4c00_040a;
const MPICH_BYTE: c_int = 0x4c00_010d;
const MPICH_UINT64: c_int = 0x4c00_0819; // MPI_UNSIGNED_LONG_LONG
const MPICH_SUM: c_int = 0x5800_0003;

#[derive(Clone, Copy)]
enum Abi {
    Open(Api<*mut c_void>),
    Mpich(Api<c_int>),
}

/// Runs `$body` with `$api` bound to the loaded ABI's table and `$in_place`
/// to its `MPI_IN_PLACE`.
macro_rules! with_api {
    ($abi:expr, |$api:ident, $in_place:ident| $body:expr) => {
        match $abi {
            Abi::Open($api) => {
                let $in_place = OPENMPI_IN_PLACE as *const c_void;
                $body
            }
            Abi::Mpich($api) => {
                let $in_place = MPICH_IN_PLACE as *const c_void;
                $body
            }
        }
    };
}

/// Where libmpi is looked for: `SEXPGPU_MPI_LIB` (a file), then the
/// sonames on the loader's path, the launcher's MPI first (`launcher` as
/// `launch::detect` names it): OpenMPI's `libmpi.so.40`, MPICH's
/// `libmpi.so.12` (Debian's `libmpich.so.12`). A process started by one MPI
/// must not initialise another, which would make it a world of its own.
pub fn candidates(launcher: &str) -> Vec<PathBuf> {
    const OPENMPI: &[&str] = &["libmpi.so.40"];
    const MPICH: &[&str] = &["libmpi.so.12", "libmpich.so.12"];
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("SEXPGPU_MPI_LIB") {
        out.push(PathBuf::from(p));
    }
    let (first, then) = if launcher == "MPICH" {
        (MPICH, OPENMPI)
    } else {
        (OPENMPI, MPICH)
    };
    for name in first.iter().chain(then).chain(&["libmpi.so"]) {
        out.push(PathBuf::from(name));
    }
    out
}

/// MPI, initialised: this process's rank in `MPI_COMM_WORLD`.
pub struct Mpi {
    abi: Abi,
    rank: usize,
    size: usize,
    watchdog: Watchdog,
    /// The library the ABI's pointers point into; kept loaded.
    _lib: Library,
    pub path: PathBuf,
}

/// The ABI's table, moved to the watchdog's thread.
struct SendAbi(Abi);

// SAFETY: the handles are process-wide constants of the MPI library, which
// was initialised with MPI_THREAD_MULTIPLE.
unsafe impl Send for SendAbi {}

// SAFETY: the handles are process-wide constants of the MPI library, which
// was initialised with MPI_THREAD_MULTIPLE.
unsafe impl Send for Mpi {}
unsafe impl Sync for Mpi {}

fn symbol<T: Copy>(lib: &Library, name: &str) -> Result<T, String> {
    // SAFETY: the caller names each symbol with its C signature.
    unsafe {
        lib.get::<T>(name.as_bytes())
            .map(|s| *s)
            .map_err(|e| format!("libmpi has no `{name}`: {e}"))
    }
}

/// The entry points every ABI shares, over its handle constants.
fn api<H: Copy>(lib: &Library, handles: [H; 5]) -> Result<Api<H>, String> {
    let [comm_world, float, byte, uint64, sum] = handles;
    Ok(Api {
        comm_world,
        float,
        byte,
        uint64,
        sum,
        init_thread: symbol(lib, "MPI_Init_thread")?,
        initialized: symbol(lib, "MPI_Initialized")?,
        comm_rank: symbol(lib, "MPI_Comm_rank")?,
        comm_size: symbol(lib, "MPI_Comm_size")?,
        bcast: symbol(lib, "MPI_Bcast")?,
        allgather: symbol(lib, "MPI_Allgather")?,
        allgatherv: symbol(lib, "MPI_Allgatherv")?,
        reduce_scatter: symbol(lib, "MPI_Reduce_scatter")?,
        barrier: symbol(lib, "MPI_Barrier")?,
        abort: symbol(lib, "MPI_Abort")?,
        finalize: symbol(lib, "MPI_Finalize")?,
    })
}

/// OpenMPI's handles are the addresses of its predefined objects.
fn openmpi(lib: &Library) -> Result<Api<*mut c_void>, String> {
    let address = |name: &str| -> Result<*mut c_void, String> {
        // SAFETY: the symbol is a data object; only its address is taken.
        unsafe {
            lib.get::<*mut c_void>(name.as_bytes())
                .map(|s| s.try_as_raw_ptr().unwrap_or(std::ptr::null_mut()))
                .map_err(|e| format!("libmpi has no `{name}`: {e}"))
        }
    };
    api(
        lib,
        [
            address("ompi_mpi_comm_world")?,
            address("ompi_mpi_float")?,
            address("ompi_mpi_byte")?,
            address("ompi_mpi_uint64_t")?,
            address("ompi_mpi_op_sum")?,
        ],
    )
}

fn load_abi(lib: &Library) -> Result<Abi, String> {
    // SAFETY: probing for a data symbol runs nothing.
    let is_openmpi = unsafe { lib.get::<*mut c_void>(b"ompi_mpi_comm_world").is_ok() };
    if is_openmpi {
        return openmpi(lib).map(Abi::Open);
    }
    api(
        lib,
        [
            MPICH_COMM_WORLD,
            MPICH_FLOAT,
            MPICH_BYTE,
            MPICH_UINT64,
            MPICH_SUM,
        ],
    )
    .map(Abi::Mpich)
}

impl Mpi {
    /// Loads libmpi from the first candidate that loads and initialises it
    /// with `MPI_THREAD_MULTIPLE`; `timeout` bounds every collective.
    pub fn init(candidates: &[PathBuf], timeout: Duration) -> Result<Mpi, String> {
        let mut tried = Vec::new();
        let (lib, path) = candidates
            .iter()
            .find_map(|path| {
                // SAFETY: loading libmpi runs only its own initialisers.
                match unsafe { Library::new(path) } {
                    Ok(lib) => Some((lib, path.clone())),
                    Err(e) => {
                        tried.push(format!("{}: {e}", path.display()));
                        None
                    }
                }
            })
            .ok_or_else(|| format!("cannot load MPI ({})", tried.join("; ")))?;
        let abi = load_abi(&lib)?;
        let (rank, size) = with_api!(&abi, |api, _in_place| initialise(api)?);
        let theirs = SendAbi(abi);
        let expire = Box::new(move |message: &str| {
            let SendAbi(abi) = &theirs;
            abort_with(abi, message, 1)
        });
        Ok(Mpi {
            abi,
            rank,
            size,
            watchdog: Watchdog::new(rank, timeout, expire),
            _lib: lib,
            path,
        })
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// Marks `what` in flight for the watchdog until the guard drops (for
    /// collectives of another engine, NCCL's, that MPI's job runs).
    pub fn arm(&self, what: &str) -> crate::watchdog::Armed<'_> {
        self.watchdog.arm(what)
    }

    /// Sums `data` over every rank, in place; every rank gets the same
    /// sums. **Decision:** a reduce-scatter (each rank sums one part) then
    /// an all-gather of the parts, rather than `MPI_Allreduce`: every
    /// element is summed once, by one rank, so the ranks' results are
    /// bit-identical by construction (MPI only advises it for
    /// `MPI_Allreduce`), and it moves the bandwidth-optimal 2(N-1)/N of
    /// the data (docs/sexpgpu/distributed.md has the times measured).
    pub fn all_reduce_sum(&self, what: &str, data: &mut [f32]) -> Result<(), String> {
        let parts = equal_parts(data.len(), self.size);
        let mine = self.reduce_scatter_sum(what, data, &parts)?;
        let all = self.all_gather(what, &mine, &parts)?;
        data.copy_from_slice(&all);
        Ok(())
    }

    /// Rank 0's bytes on every rank (their length first).
    pub fn broadcast(&self, what: &str, bytes: &mut Vec<u8>) -> Result<(), String> {
        let _armed = self.watchdog.arm(what);
        let mut len = [bytes.len() as u64];
        self.bcast_raw(len.as_mut_ptr().cast(), 8, "MPI_Bcast")?;
        bytes.resize(len[0] as usize, 0);
        for part in bytes.chunks_mut(CHUNK) {
            self.bcast_raw(part.as_mut_ptr().cast(), part.len(), "MPI_Bcast")?;
        }
        Ok(())
    }

    fn bcast_raw(&self, data: *mut c_void, len: usize, call: &str) -> Result<(), String> {
        let code = with_api!(&self.abi, |api, _in_place| unsafe {
            // SAFETY: `data` is `len` bytes, the same length on every rank.
            (api.bcast)(data, len as c_int, api.byte, 0, api.comm_world)
        });
        check(code, call)
    }

    /// Every rank's `value`, in rank order.
    pub fn all_gather_u64(&self, what: &str, value: u64) -> Result<Vec<u64>, String> {
        let _armed = self.watchdog.arm(what);
        let mut out = vec![0u64; self.size];
        let code = with_api!(&self.abi, |api, _in_place| unsafe {
            // SAFETY: one u64 from each rank into `size` of them.
            (api.allgather)(
                (&value as *const u64).cast(),
                1,
                api.uint64,
                out.as_mut_ptr().cast(),
                1,
                api.uint64,
                api.comm_world,
            )
        });
        check(code, "MPI_Allgather")?;
        Ok(out)
    }

    /// Sums `data` over the ranks and gives each rank its part: rank `r`
    /// gets `counts[r]` sums, the parts in rank order.
    pub fn reduce_scatter_sum(
        &self,
        what: &str,
        data: &[f32],
        counts: &[usize],
    ) -> Result<Vec<f32>, String> {
        let _armed = self.watchdog.arm(what);
        let counts = int_counts(counts, data.len(), self.size)?;
        let mut out = vec![0f32; counts[self.rank] as usize];
        let code = with_api!(&self.abi, |api, _in_place| unsafe {
            // SAFETY: `data` holds the sum of `counts`; `out` this rank's count.
            (api.reduce_scatter)(
                data.as_ptr().cast(),
                out.as_mut_ptr().cast(),
                counts.as_ptr(),
                api.float,
                api.sum,
                api.comm_world,
            )
        });
        check(code, "MPI_Reduce_scatter")?;
        Ok(out)
    }

    /// Every rank's part, concatenated in rank order; rank `r`'s part has
    /// `counts[r]` elements.
    pub fn all_gather(
        &self,
        what: &str,
        mine: &[f32],
        counts: &[usize],
    ) -> Result<Vec<f32>, String> {
        let _armed = self.watchdog.arm(what);
        let total: usize = counts.iter().sum();
        let counts = int_counts(counts, total, self.size)?;
        if mine.len() != counts[self.rank] as usize {
            return Err(format!(
                "all-gather: rank {} has {} elements, not {}",
                self.rank,
                mine.len(),
                counts[self.rank]
            ));
        }
        let displs: Vec<c_int> = counts
            .iter()
            .scan(0, |at, &c| {
                let here = *at;
                *at += c;
                Some(here)
            })
            .collect();
        let mut out = vec![0f32; total];
        let code = with_api!(&self.abi, |api, _in_place| unsafe {
            // SAFETY: `out` holds every rank's count at its displacement.
            (api.allgatherv)(
                mine.as_ptr().cast(),
                mine.len() as c_int,
                api.float,
                out.as_mut_ptr().cast(),
                counts.as_ptr(),
                displs.as_ptr(),
                api.float,
                api.comm_world,
            )
        });
        check(code, "MPI_Allgatherv")?;
        Ok(out)
    }

    pub fn barrier(&self, what: &str) -> Result<(), String> {
        let _armed = self.watchdog.arm(what);
        let code = with_api!(&self.abi, |api, _in_place| unsafe {
            (api.barrier)(api.comm_world)
        });
        check(code, "MPI_Barrier")
    }

    /// Ends every rank of the job (`MPI_Abort`) after printing `message`.
    pub fn abort(&self, message: &str, code: i32) -> ! {
        abort_with(&self.abi, message, code)
    }

    /// `MPI_Finalize`; after it no MPI call is allowed.
    pub fn finalize(self) -> Result<(), String> {
        self.watchdog.stop();
        let code = with_api!(&self.abi, |api, _in_place| unsafe { (api.finalize)() });
        check(code, "MPI_Finalize")
    }
}

/// Prints `message` and ends every rank (`MPI_Abort` on the world).
fn abort_with(abi: &Abi, message: &str, code: i32) -> ! {
    if !message.is_empty() {
        eprintln!("{message}");
    }
    with_api!(abi, |api, _in_place| unsafe {
        // SAFETY: MPI is initialised with MPI_THREAD_MULTIPLE.
        (api.abort)(api.comm_world, code)
    });
    std::process::exit(code)
}

/// `MPI_Init_thread` (unless already initialised), then rank and size.
fn initialise<H: Copy>(api: &Api<H>) -> Result<(usize, usize), String> {
    let mut done: c_int = 0;
    // SAFETY: plain out-parameters.
    unsafe { (api.initialized)(&mut done) };
    if done == 0 {
        let mut provided: c_int = 0;
        // SAFETY: MPI accepts null argc/argv.
        let code = unsafe {
            (api.init_thread)(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                THREAD_MULTIPLE,
                &mut provided,
            )
        };
        check(code, "MPI_Init_thread")?;
        if provided < THREAD_MULTIPLE {
            return Err(format!(
                "this MPI gives thread level {provided}, and the collective watchdog needs MPI_THREAD_MULTIPLE (3)"
            ));
        }
    }
    let (mut rank, mut size): (c_int, c_int) = (0, 0);
    // SAFETY: plain out-parameters.
    check(
        unsafe { (api.comm_rank)(api.comm_world, &mut rank) },
        "MPI_Comm_rank",
    )?;
    check(
        unsafe { (api.comm_size)(api.comm_world, &mut size) },
        "MPI_Comm_size",
    )?;
    Ok((rank as usize, size as usize))
}

fn check(code: c_int, call: &str) -> Result<(), String> {
    if code == 0 {
        Ok(())
    } else {
        Err(format!("{call} failed with MPI error {code}"))
    }
}

/// `len` elements cut into `size` parts that differ by at most one.
fn equal_parts(len: usize, size: usize) -> Vec<usize> {
    (0..size)
        .map(|r| len / size + usize::from(r < len % size))
        .collect()
}

/// Per-rank counts as C ints, checked against the total and world size.
fn int_counts(counts: &[usize], total: usize, size: usize) -> Result<Vec<c_int>, String> {
    if counts.len() != size || counts.iter().sum::<usize>() != total {
        return Err(format!(
            "collective counts {counts:?} do not split {total} elements over {size} ranks"
        ));
    }
    counts
        .iter()
        .map(|&c| c_int::try_from(c).map_err(|_| format!("a part of {c} elements is too large")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_parts_split_the_whole() {
        assert_eq!(equal_parts(10, 3), vec![4, 3, 3]);
        assert_eq!(equal_parts(2, 4), vec![1, 1, 0, 0]);
    }

    #[test]
    fn counts_must_split_the_whole() {
        assert_eq!(int_counts(&[2, 3], 5, 2), Ok(vec![2, 3]));
        assert!(int_counts(&[2, 2], 5, 2).is_err());
        assert!(int_counts(&[5], 5, 2).is_err());
    }

    #[test]
    fn the_launchers_mpi_is_tried_first() {
        let names = |launcher| -> Vec<String> {
            candidates(launcher)
                .iter()
                .map(|p| p.display().to_string())
                .filter(|p| p.starts_with("lib"))
                .collect()
        };
        let mpich = names("MPICH");
        assert_eq!(&mpich[..2], ["libmpi.so.12", "libmpich.so.12"]);
        assert_eq!(names("OpenMPI")[0], "libmpi.so.40");
        assert!(mpich.contains(&"libmpi.so.40".to_string()));
    }

    #[test]
    fn a_missing_library_is_an_error_naming_it() {
        let e = Mpi::init(
            &[PathBuf::from("/nonexistent/libmpi.so")],
            Duration::from_secs(1),
        )
        .err()
        .expect("no such library");
        assert!(e.contains("cannot load MPI"), "{e}");
        assert!(e.contains("/nonexistent/libmpi.so"), "{e}");
    }
}
