//! NVRTC, loaded at run time from a path we choose (a CUDA toolkit, the
//! `nvidia-cuda-nvrtc-cu12` wheel, or the loader's search path): compiles
//! one generated kernel to PTX for one architecture. Needs no driver and
//! no GPU, which is what lets the tests compile every kernel on any
//! machine. Owns no cache; the runtime keeps one.

use std::ffi::{c_char, c_int, CString};
use std::path::{Path, PathBuf};

use libloading::Library;

type Program = *mut std::ffi::c_void;
type CreateFn = unsafe extern "C" fn(
    *mut Program,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type CompileFn = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> c_int;
type SizeFn = unsafe extern "C" fn(Program, *mut usize) -> c_int;
type TextFn = unsafe extern "C" fn(Program, *mut c_char) -> c_int;
type DestroyFn = unsafe extern "C" fn(*mut Program) -> c_int;

/// The options every kernel is compiled with. No FMA contraction: the
/// CPU backend rounds every `*` and `+` separately, and so must we to be
/// bit-identical; division and square roots stay IEEE (NVRTC's default).
pub const OPTIONS: [&str; 3] = ["--fmad=false", "--std=c++17", "-default-device"];

/// A loaded NVRTC library.
pub struct Nvrtc {
    lib: Library,
    pub path: PathBuf,
}

/// Where NVRTC is looked for, in order: `SEXPGPU_NVRTC` (a file), the
/// wheel inside the active virtual environment, then the loader's own
/// search (`LD_LIBRARY_PATH`, a CUDA toolkit registered with ldconfig).
pub fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("SEXPGPU_NVRTC") {
        out.push(PathBuf::from(p));
    }
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        out.extend(wheel_libs(Path::new(&venv)));
    }
    out.push(PathBuf::from("libnvrtc.so.12"));
    // CUDA 13's NVRTC compiles the same kernels (no CUDA headers in them).
    out.push(PathBuf::from("libnvrtc.so.13"));
    out.push(PathBuf::from("libnvrtc.so"));
    out
}

/// `libnvrtc.so.12` of the `nvidia-cuda-nvrtc-cu12` wheel in a venv.
pub fn wheel_libs(venv: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(venv.join("lib")) else {
        return out;
    };
    for e in entries.flatten() {
        let lib = e
            .path()
            .join("site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
        if lib.exists() {
            out.push(lib);
        }
    }
    out
}

impl Nvrtc {
    /// The first candidate that loads, or why none did.
    pub fn load(candidates: &[PathBuf]) -> Result<Nvrtc, String> {
        let mut tried = Vec::new();
        for path in candidates {
            // SAFETY: loading NVRTC runs only its own initialisers.
            match unsafe { Library::new(path) } {
                Ok(lib) => {
                    return Ok(Nvrtc {
                        lib,
                        path: path.clone(),
                    })
                }
                Err(e) => tried.push(format!("{}: {e}", path.display())),
            }
        }
        Err(format!(
            "NVRTC (libnvrtc.so.12) was not found; tried {}. Install a CUDA toolkit or `pip install nvidia-cuda-nvrtc-cu12`, or set SEXPGPU_NVRTC to the library's path",
            tried.join("; ")
        ))
    }

    /// PTX of `source` for `compute_<arch>` (e.g. 90), or the compile log.
    /// Each `(name, source)` program's PTX for `arch` (or NVRTC's log),
    /// in order, compiled on as many threads as the machine has cores:
    /// NVRTC compiles separate programs concurrently, and a program's first
    /// step waits for all of its kernels.
    pub fn compile_many(
        &self,
        programs: &[(String, String)],
        arch: u32,
    ) -> Vec<Result<String, String>> {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, programs.len().max(1));
        let mut out: Vec<Option<Result<String, String>>> = vec![None; programs.len()];
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    scope.spawn(move || {
                        (t..programs.len())
                            .step_by(threads)
                            .map(|i| (i, self.compile(&programs[i].0, &programs[i].1, arch)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for worker in workers {
                for (i, ptx) in worker.join().unwrap_or_default() {
                    out[i] = Some(ptx);
                }
            }
        });
        out.into_iter()
            .map(|r| r.unwrap_or_else(|| Err("NVRTC stopped before this program".to_string())))
            .collect()
    }

    pub fn compile(&self, name: &str, source: &str, arch: u32) -> Result<String, String> {
        // SAFETY: the symbols have NVRTC's documented C signatures; every
        // pointer passed lives until the call returns, and the program is
        // destroyed on every path.
        unsafe {
            let create: libloading::Symbol<CreateFn> = sym(&self.lib, b"nvrtcCreateProgram\0")?;
            let compile: libloading::Symbol<CompileFn> = sym(&self.lib, b"nvrtcCompileProgram\0")?;
            let ptx_size: libloading::Symbol<SizeFn> = sym(&self.lib, b"nvrtcGetPTXSize\0")?;
            let ptx: libloading::Symbol<TextFn> = sym(&self.lib, b"nvrtcGetPTX\0")?;
            let log_size: libloading::Symbol<SizeFn> = sym(&self.lib, b"nvrtcGetProgramLogSize\0")?;
            let log: libloading::Symbol<TextFn> = sym(&self.lib, b"nvrtcGetProgramLog\0")?;
            let destroy: libloading::Symbol<DestroyFn> = sym(&self.lib, b"nvrtcDestroyProgram\0")?;
            let src = CString::new(source).map_err(|e| e.to_string())?;
            let file = CString::new(format!("{name}.cu")).map_err(|e| e.to_string())?;
            let mut prog: Program = std::ptr::null_mut();
            let rc = create(
                &mut prog,
                src.as_ptr(),
                file.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            );
            if rc != 0 {
                return Err(format!("nvrtcCreateProgram failed ({rc})"));
            }
            let arch_opt = format!("--gpu-architecture=compute_{arch}");
            let opts: Vec<CString> = std::iter::once(arch_opt.as_str())
                .chain(OPTIONS)
                .map(|o| CString::new(o).expect("options have no NUL"))
                .collect();
            let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
            let rc = compile(prog, ptrs.len() as c_int, ptrs.as_ptr());
            let result = if rc == 0 {
                read_text(prog, &ptx_size, &ptx)
            } else {
                Err(read_text(prog, &log_size, &log).unwrap_or_default())
            };
            destroy(&mut prog);
            result
        }
    }
}

unsafe fn sym<'l, T>(lib: &'l Library, name: &[u8]) -> Result<libloading::Symbol<'l, T>, String> {
    lib.get(name).map_err(|e| e.to_string())
}

/// A NUL-terminated text NVRTC hands out (PTX or the log).
unsafe fn read_text(prog: Program, size: &SizeFn, text: &TextFn) -> Result<String, String> {
    let mut n = 0usize;
    if size(prog, &mut n) != 0 {
        return Err("nvrtc: cannot read the text size".to_string());
    }
    let mut buf = vec![0u8; n.max(1)];
    if text(prog, buf.as_mut_ptr().cast()) != 0 {
        return Err("nvrtc: cannot read the text".to_string());
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    buf.truncate(end);
    String::from_utf8(buf).map_err(|e| e.to_string())
}
