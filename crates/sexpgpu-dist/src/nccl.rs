//! A thin binding of NCCL (`libnccl.so.2`, from the `nvidia-nccl-cu12`
//! wheel as NVRTC and cuBLAS come, docs/sexpgpu/cuda.md), loaded at run
//! time: its version, the unique id rank 0 makes and every rank receives
//! (over MPI, `bootstrap`), a communicator per rank, and the collectives on
//! device buffers (`all_reduce_sum`, `broadcast`, `reduce_scatter_sum`,
//! `all_gather`, f32 or bf16, enqueued on a CUDA stream). `Staged` (feature
//! `cuda`) runs them on host buffers through one device buffer.

use libloading::Library;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::{Path, PathBuf};

/// `ncclUniqueId`: 128 opaque bytes rank 0 makes and every rank needs.
pub const UNIQUE_ID_BYTES: usize = 128;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct UniqueId {
    pub internal: [c_char; UNIQUE_ID_BYTES],
}

/// NCCL's element types (`nccl.h`): `ncclFloat32`, `ncclBfloat16`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F32 = 7,
    Bf16 = 9,
}

/// `ncclSum`.
const SUM: c_int = 0;

type Comm = *mut c_void;
type Stream = *mut c_void;

/// The C signature `ncclAllReduce`, `ncclBroadcast` and
/// `ncclReduceScatter` share: the send and receive buffers, the count, the
/// element type, the reduction (the root, for a broadcast), the
/// communicator and the stream.
type Collective =
    unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, Stream) -> c_int;

struct Api {
    get_version: unsafe extern "C" fn(*mut c_int) -> c_int,
    get_unique_id: unsafe extern "C" fn(*mut UniqueId) -> c_int,
    comm_init_rank: unsafe extern "C" fn(*mut Comm, c_int, UniqueId, c_int) -> c_int,
    comm_destroy: unsafe extern "C" fn(Comm) -> c_int,
    error_string: unsafe extern "C" fn(c_int) -> *const c_char,
    all_reduce: Collective,
    broadcast: Collective,
    reduce_scatter: Collective,
    all_gather:
        unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, Comm, Stream) -> c_int,
}

/// Where NCCL is looked for, in order: `SEXPGPU_NCCL` (a file), the
/// `nvidia-nccl-cu12`/`-cu13` wheel in the active virtual environment,
/// then the loader's search path.
pub fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("SEXPGPU_NCCL") {
        out.push(PathBuf::from(p));
    }
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        out.extend(wheel_libs(Path::new(&venv)));
    }
    out.push(PathBuf::from("libnccl.so.2"));
    out
}

/// `nvidia/nccl/lib/libnccl.so.2` under each Python of a venv.
pub fn wheel_libs(venv: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(venv.join("lib")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path().join("site-packages/nvidia/nccl/lib/libnccl.so.2"))
        .filter(|p| p.exists())
        .collect()
}

/// A loaded NCCL.
pub struct Nccl {
    api: Api,
    /// Never unloaded: `ncclGetUniqueId` starts the bootstrap's listening
    /// thread, which outlives every call, and unloading the library under
    /// it crashes the process.
    _lib: std::mem::ManuallyDrop<Library>,
    pub path: PathBuf,
}

fn symbol<T: Copy>(lib: &Library, name: &str) -> Result<T, String> {
    // SAFETY: each symbol is named with its C signature from `nccl.h`.
    unsafe {
        lib.get::<T>(name.as_bytes())
            .map(|s| *s)
            .map_err(|e| format!("libnccl has no `{name}`: {e}"))
    }
}

impl Nccl {
    /// The first candidate that loads, or why none did.
    pub fn load(candidates: &[PathBuf]) -> Result<Nccl, String> {
        let mut tried = Vec::new();
        for path in candidates {
            // SAFETY: loading NCCL runs only its own initialisers.
            match unsafe { Library::new(path) } {
                Ok(lib) => {
                    let api = Api {
                        get_version: symbol(&lib, "ncclGetVersion")?,
                        get_unique_id: symbol(&lib, "ncclGetUniqueId")?,
                        comm_init_rank: symbol(&lib, "ncclCommInitRank")?,
                        comm_destroy: symbol(&lib, "ncclCommDestroy")?,
                        error_string: symbol(&lib, "ncclGetErrorString")?,
                        all_reduce: symbol(&lib, "ncclAllReduce")?,
                        broadcast: symbol(&lib, "ncclBroadcast")?,
                        reduce_scatter: symbol(&lib, "ncclReduceScatter")?,
                        all_gather: symbol(&lib, "ncclAllGather")?,
                    };
                    return Ok(Nccl {
                        api,
                        _lib: std::mem::ManuallyDrop::new(lib),
                        path: path.clone(),
                    });
                }
                Err(e) => tried.push(format!("{}: {e}", path.display())),
            }
        }
        Err(format!("cannot load NCCL ({})", tried.join("; ")))
    }

    /// NCCL's version as `major.minor.patch`.
    pub fn version(&self) -> Result<String, String> {
        let mut v: c_int = 0;
        // SAFETY: an out-parameter.
        self.check(unsafe { (self.api.get_version)(&mut v) }, "ncclGetVersion")?;
        // NCCL 2.9 and later: major*10000 + minor*100 + patch.
        Ok(format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100))
    }

    /// A fresh unique id (rank 0 makes it; needs no GPU).
    pub fn unique_id(&self) -> Result<UniqueId, String> {
        let mut id = UniqueId {
            internal: [0; UNIQUE_ID_BYTES],
        };
        // SAFETY: an out-parameter of 128 bytes.
        self.check(
            unsafe { (self.api.get_unique_id)(&mut id) },
            "ncclGetUniqueId",
        )?;
        Ok(id)
    }

    /// Rank 0's unique id on every rank: rank 0 makes it, `broadcast`
    /// (rank 0's bytes to every rank, MPI's `Bcast`) carries it.
    pub fn bootstrap(
        &self,
        rank: usize,
        broadcast: &mut dyn FnMut(&mut Vec<u8>) -> Result<(), String>,
    ) -> Result<UniqueId, String> {
        let mut bytes = if rank == 0 {
            id_bytes(&self.unique_id()?)
        } else {
            Vec::new()
        };
        broadcast(&mut bytes)?;
        id_from_bytes(&bytes)
    }

    /// This rank's communicator (on the current CUDA device).
    pub fn communicator(
        &self,
        id: UniqueId,
        rank: usize,
        size: usize,
    ) -> Result<Communicator<'_>, String> {
        let mut comm: Comm = std::ptr::null_mut();
        // SAFETY: `comm` is an out-parameter; the id is passed by value.
        let code =
            unsafe { (self.api.comm_init_rank)(&mut comm, size as c_int, id, rank as c_int) };
        self.check(code, "ncclCommInitRank")?;
        Ok(Communicator { nccl: self, comm })
    }

    fn check(&self, code: c_int, call: &str) -> Result<(), String> {
        if code == 0 {
            return Ok(());
        }
        // SAFETY: NCCL returns a static string for every code.
        let text = unsafe { CStr::from_ptr((self.api.error_string)(code)) };
        Err(format!(
            "{call} failed: {} (NCCL error {code})",
            text.to_string_lossy()
        ))
    }
}

/// The unique id's bytes, for a broadcast.
pub fn id_bytes(id: &UniqueId) -> Vec<u8> {
    id.internal.iter().map(|&c| c as u8).collect()
}

/// A unique id from broadcast bytes, which must be exactly 128.
pub fn id_from_bytes(bytes: &[u8]) -> Result<UniqueId, String> {
    if bytes.len() != UNIQUE_ID_BYTES {
        return Err(format!(
            "the NCCL unique id arrived as {} bytes, not {UNIQUE_ID_BYTES}",
            bytes.len()
        ));
    }
    let mut id = UniqueId {
        internal: [0; UNIQUE_ID_BYTES],
    };
    for (d, &b) in id.internal.iter_mut().zip(bytes) {
        *d = b as c_char;
    }
    Ok(id)
}

/// One rank's NCCL communicator; the collectives take device pointers
/// and a stream, and are enqueued (the caller synchronises).
pub struct Communicator<'a> {
    nccl: &'a Nccl,
    comm: Comm,
}

impl Communicator<'_> {
    /// Runs one NCCL call on this communicator; its error, named.
    fn call(&self, name: &str, f: impl FnOnce(&Api, Comm) -> c_int) -> Result<(), String> {
        self.nccl.check(f(&self.nccl.api, self.comm), name)
    }

    /// Sums `count` elements of `data` over the ranks, in place.
    ///
    /// # Safety
    /// `data` is a device buffer of `count` elements of `elem` on this
    /// communicator's device, and `stream` a stream of that device.
    pub unsafe fn all_reduce_sum(
        &self,
        data: u64,
        n: usize,
        e: Elem,
        s: Stream,
    ) -> Result<(), String> {
        let p = data as *mut c_void;
        self.call("ncclAllReduce", |api, c| unsafe {
            (api.all_reduce)(p, p, n, e as c_int, SUM, c, s)
        })
    }

    /// Rank 0's `count` elements into every rank's `data`.
    ///
    /// # Safety
    /// As `all_reduce_sum`.
    pub unsafe fn broadcast(&self, data: u64, n: usize, e: Elem, s: Stream) -> Result<(), String> {
        let p = data as *mut c_void;
        self.call("ncclBroadcast", |api, c| unsafe {
            (api.broadcast)(p, p, n, e as c_int, 0, c, s)
        })
    }

    /// Sums `b.send` (`b.count * ranks` elements) over the ranks and
    /// leaves rank `r`'s part, elements `r * b.count ..`, in `b.recv`.
    ///
    /// # Safety
    /// `b.send` holds `b.count * ranks` elements, `b.recv` `b.count`, on
    /// this device.
    pub unsafe fn reduce_scatter_sum(&self, b: Buffers, s: Stream) -> Result<(), String> {
        self.call("ncclReduceScatter", |api, c| unsafe {
            (api.reduce_scatter)(b.from(), b.to(), b.count, b.elem as c_int, SUM, c, s)
        })
    }

    /// Every rank's `b.count` elements of `b.send`, in rank order, in
    /// `b.recv`.
    ///
    /// # Safety
    /// `b.send` holds `b.count` elements, `b.recv` `b.count * ranks`, on
    /// this device.
    pub unsafe fn all_gather(&self, b: Buffers, s: Stream) -> Result<(), String> {
        self.call("ncclAllGather", |api, c| unsafe {
            (api.all_gather)(b.from(), b.to(), b.count, b.elem as c_int, c, s)
        })
    }
}

/// The device buffers of a collective that reads one and writes another:
/// `count` elements of `elem` (per rank: what `reduce_scatter_sum` leaves,
/// what `all_gather` takes from each rank).
#[derive(Clone, Copy, Debug)]
pub struct Buffers {
    pub send: u64,
    pub recv: u64,
    pub count: usize,
    pub elem: Elem,
}

impl Buffers {
    fn from(&self) -> *const c_void {
        self.send as *const c_void
    }

    fn to(&self) -> *mut c_void {
        self.recv as *mut c_void
    }
}

impl Drop for Communicator<'_> {
    fn drop(&mut self) {
        // SAFETY: the communicator was made by ncclCommInitRank.
        unsafe { (self.nccl.api.comm_destroy)(self.comm) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_ids_round_trip_through_bytes() {
        let mut id = UniqueId {
            internal: [0; UNIQUE_ID_BYTES],
        };
        for (i, c) in id.internal.iter_mut().enumerate() {
            *c = (i as u8).wrapping_mul(37) as c_char;
        }
        let bytes = id_bytes(&id);
        assert_eq!(bytes.len(), 128);
        assert_eq!(id_bytes(&id_from_bytes(&bytes).unwrap()), bytes);
        assert!(id_from_bytes(&bytes[..127])
            .unwrap_err()
            .contains("127 bytes"));
    }

    #[test]
    fn a_missing_library_is_an_error_naming_it() {
        let e = Nccl::load(&[PathBuf::from("/nonexistent/libnccl.so.2")])
            .err()
            .expect("no such library");
        assert!(
            e.contains("cannot load NCCL") && e.contains("/nonexistent"),
            "{e}"
        );
    }
}
