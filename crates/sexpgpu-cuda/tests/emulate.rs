//! The generated kernels' arithmetic, checked without a GPU: every grid
//! kernel of a plan is compiled for the host with the system C++ compiler
//! (a few shims stand in for CUDA's builtins; one thread walks the whole
//! grid-stride loop), the plan's launches run in order, cuBLAS products
//! are computed from the generated `Gemm` layouts, and the outputs are
//! compared with the reference executor: bit for bit for the exact random
//! graphs (the host's libm is the CPU backend's; `exp` and `tanh`, which
//! the reference computes with its own functions, are not in them),
//! within tolerance for the smooth ones. Kernels whose threads work
//! together (reductions by warp, block or tile; index-adds of many ids;
//! fused attention, whose bf16 products are tensor-core `mma`s) run with a
//! host thread per CUDA thread.

// The compiler's shared test graphs and data, by path (one crate's tests
// cannot import another's), so the kernels checked here are those of the
// graphs the CPU's compiled-vs-reference tests run.
#[path = "../../sexpgpu-compile/tests/shared/mod.rs"]
mod common;
// The per-op numerics cases of sexpgpu-graph's NumPy test.
#[path = "../../sexpgpu-graph/tests/numerics/cases.rs"]
mod numerics;
// The full-size GPT-2 graphs are for the compile test; these run the tiny.
#[allow(dead_code)]
mod gpt2;
mod programs;
mod support {
    pub mod compare;
}

// Fused attention's graphs, which `compile_kernels.rs` compiles too.
mod attention;
// Gradients at ties, NaN and infinities (PyTorch's, tested in Python).
mod ties;

use std::collections::HashMap;
use std::ffi::c_void;
use std::path::Path;
use std::process::Command;

use sexpgpu_compile::{Fill, Loc, Plan, Src, Step};
use sexpgpu_cuda::codegen::{batch_source, generate_plan, Gemm, Kernel, Param, Shape, StepCode};
use sexpgpu_cuda::host::{from_bytes, to_bytes};
use sexpgpu_cuda::memory::element_size;
use sexpgpu_graph::random::stream_key;
use sexpgpu_graph::{execute, DType, Graph, Tensor};
use support::compare::mismatch;

/// CUDA's spellings, on the host.
/// Grid kernels run as one thread (`blockDim` 1); block kernels as one
/// host thread per CUDA thread, each running the blocks in turn (a
/// barrier between blocks), `__shared__` arrays being function statics,
/// `__syncthreads` a barrier, and a warp shuffle an exchange through a
/// static array between two barriers (every kernel's shuffles are taken by
/// the whole block alike), `__syncwarp` a barrier too, and a tensor-core
/// `mma` an exchange of the warp's fragments by the PTX ISA's layout
/// (`sx_mma_bf16_16816`; the device's is inline PTX, which the kernels
/// compile only where `__CUDA_ARCH__` is defined).
const SHIMS: &str = r#"#include <cmath>
#include <cstring>
#include <cstdint>
#include <barrier>
#include <thread>
#include <vector>
struct SxDim { unsigned x, y, z; };
static SxDim blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
static thread_local SxDim threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0};
static std::barrier<>* sx_barrier = nullptr;
static inline void __syncthreads() { if (sx_barrier) sx_barrier->arrive_and_wait(); }
template <class T> static T __shfl_xor_sync(unsigned, T v, int lane_mask) {
  static T slots[1024];
  slots[threadIdx.x] = v;
  __syncthreads();
  T other = slots[threadIdx.x ^ (unsigned)lane_mask];
  __syncthreads();
  return other;
}
template <class F> static void sx_blocks(unsigned blocks, unsigned threads, F kernel) {
  std::barrier<> bar(threads);
  sx_barrier = &bar;
  blockDim.x = threads;
  gridDim.x = blocks;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      threadIdx.x = t;
      for (unsigned b = 0; b < blocks; ++b) {
        blockIdx.x = b;
        kernel();
        bar.arrive_and_wait();
      }
    });
  for (auto& th : pool) th.join();
  sx_barrier = nullptr;
  blockDim.x = 1; gridDim.x = 1;
}
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(threads)
#define __shared__ static
static inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline float __uint_as_float(unsigned x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline unsigned __float_as_uint(float x) { unsigned u; std::memcpy(&u, &x, 4); return u; }
static inline double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
static inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long c, unsigned long long v) {
  __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return c;
}
static inline void __syncwarp(unsigned = 0xffffffffu) { __syncthreads(); }
// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` (`codegen/prelude.rs`,
// ATTENTION), by the PTX ISA's fragment layout ("Matrix Fragments for
// mma.m16n8k16 with floating point type"): each lane posts its A and B
// registers, one barrier, then every lane rebuilds its warp's A (16x16) and
// B (16x8) from the 32 postings and adds its own four accumulators
// (f32, k in order). Calls alternate between two sets of slots, so one
// barrier a call suffices: no lane can write a set again (two calls on)
// before every lane has passed the next call's barrier, that is, has done
// reading it.
static inline float sx_host_bf16(unsigned bits) { return __uint_as_float((bits & 0xffffu) << 16); }
static void sx_mma_bf16_16816(float* c, const unsigned* a, const unsigned* b) {
  static unsigned posted_a[2][1024][4], posted_b[2][1024][2];
  static thread_local unsigned parity = 0;
  const unsigned me = threadIdx.x, first = me & ~31u, slot = parity;
  parity ^= 1u;
  for (int i = 0; i < 4; ++i) posted_a[slot][me][i] = a[i];
  for (int i = 0; i < 2; ++i) posted_b[slot][me][i] = b[i];
  __syncthreads();
  float A[16][16], B[16][8];
  for (unsigned l = 0; l < 32; ++l) {
    const unsigned group = l >> 2, in_group = l % 4;
    for (unsigned i = 0; i < 8; ++i) {
      const unsigned reg = posted_a[slot][first + l][i / 2];
      const unsigned row = (i < 2 || (i >= 4 && i < 6)) ? group : group + 8;
      const unsigned col = in_group * 2 + (i & 1) + (i >= 4 ? 8 : 0);
      A[row][col] = sx_host_bf16((i & 1) ? reg >> 16 : reg);
    }
    for (unsigned i = 0; i < 4; ++i) {
      const unsigned reg = posted_b[slot][first + l][i / 2];
      const unsigned row = in_group * 2 + (i & 1) + (i >= 2 ? 8 : 0);
      B[row][group] = sx_host_bf16((i & 1) ? reg >> 16 : reg);
    }
  }
  const unsigned lane = me % 32, group = lane >> 2, in_group = lane % 4;
  for (unsigned i = 0; i < 4; ++i) {
    const unsigned row = i < 2 ? group : group + 8, col = in_group * 2 + (i & 1);
    float sum = c[i];
    for (unsigned k = 0; k < 16; ++k) sum += A[row][k] * B[k][col];
    c[i] = sum;
  }
}
"#;

/// `extern "C" void run_NAME(void** a)`: calls kernel `i` of the batch
/// with its parameters cast from `a` (pointers as they are, scalars read
/// through theirs).
fn wrapper(i: usize, k: &Kernel) -> String {
    // `void NAME(` or `void __launch_bounds__(N) NAME(`.
    let head = format!(" {}(", k.name);
    let start = k.source.find(&head).expect("the kernel's signature") + head.len();
    let end = start + k.source[start..].find(") {").expect("the signature's end");
    let args: Vec<String> = k.source[start..end]
        .split(", ")
        .enumerate()
        .map(|(j, param)| {
            let mut words: Vec<&str> = param.split(' ').filter(|w| *w != "__restrict__").collect();
            words.pop();
            let ty = words.join(" ");
            if ty.ends_with('*') {
                format!("({ty})a[{j}]")
            } else {
                format!("*({ty}*)a[{j}]")
            }
        })
        .collect();
    let call = format!("sx{i}::{}({})", k.name, args.join(", "));
    match k.shape {
        Shape::Grid { .. } => format!("extern \"C\" void run_{}(void** a) {{ {call}; }}\n", k.name),
        Shape::Blocks { n, threads } => format!(
            "extern \"C\" void run_{}(void** a) {{ sx_blocks({n}u, {threads}u, [&] {{ {call}; }}); }}\n",
            k.name,
        ),
    }
}

/// The kernels compiled into one host library.
struct HostLib {
    lib: libloading::Library,
}

impl HostLib {
    fn build(kernels: &[&Kernel], dir: &Path, name: &str) -> HostLib {
        let mut text = String::from(SHIMS);
        text.push_str(&batch_source(kernels));
        for (i, k) in kernels.iter().enumerate() {
            text.push_str(&wrapper(i, k));
        }
        let src = dir.join(format!("{name}.cpp"));
        let lib = dir.join(format!("{name}.so"));
        std::fs::write(&src, &text).unwrap();
        // No contraction into FMA, as the GPU kernels are compiled.
        let out = Command::new("c++")
            .args([
                "-std=c++20",
                "-pthread",
                "-O1",
                "-w",
                "-ffp-contract=off",
                "-shared",
                "-fPIC",
                "-o",
            ])
            .arg(&lib)
            .arg(&src)
            .output()
            .expect("a C++ compiler (c++) on PATH");
        assert!(
            out.status.success(),
            "{}\n{text}",
            String::from_utf8_lossy(&out.stderr)
        );
        // SAFETY: the library holds only the kernels and wrappers above.
        HostLib {
            lib: unsafe { libloading::Library::new(&lib).unwrap() },
        }
    }

    fn run(&self, k: &Kernel, args: &mut [*mut c_void]) {
        type Run = unsafe extern "C" fn(*mut *mut c_void);
        // SAFETY: `run_NAME` has this signature and reads exactly the
        // parameters the kernel declares, which `args` holds in order.
        unsafe {
            let f: libloading::Symbol<Run> = self
                .lib
                .get(format!("run_{}\0", k.name).as_bytes())
                .unwrap();
            f(args.as_mut_ptr());
        }
    }
}

/// Host memory standing in for device buffers (u64 words, so every
/// element type is aligned).
struct Mem {
    dtype: DType,
    words: Vec<u64>,
}

impl Mem {
    fn new(dtype: DType, len: usize) -> Mem {
        Mem {
            dtype,
            words: vec![0; (len * element_size(dtype)).div_ceil(8).max(1)],
        }
    }

    fn from_tensor(t: &Tensor) -> Mem {
        let mut m = Mem::new(t.dtype(), t.numel());
        let bytes = to_bytes(t.data());
        m.bytes_mut()[..bytes.len()].copy_from_slice(&bytes);
        m
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: u64 words viewed as their bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast(), self.words.len() * 8) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, uniquely borrowed.
        unsafe {
            std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast(), self.words.len() * 8)
        }
    }

    fn ptr(&mut self) -> *mut c_void {
        self.words.as_mut_ptr().cast()
    }
}

/// cuBLAS's product as `Gemm` describes it, accumulated in f64; with a
/// bias, added to what `out` holds (the bias rows), rounded once.
fn gemm(g: &Gemm, a: &Mem, b: &Mem, out: &mut Mem) {
    let at = |o: &sexpgpu_cuda::codegen::GemmOperand, bt: usize, r: usize, c: usize| {
        let base = o.offset + bt * o.batch_stride;
        if o.col_major {
            base + c * o.ld + r
        } else {
            base + r * o.ld + c
        }
    };
    let widen = |m: &Mem| from_bytes(m.dtype, m.bytes()).to_f64s();
    let (av, bv) = (widen(a), widen(b));
    let len = g.batch * g.m * g.n;
    let mut c = match g.bias {
        Some(_) => widen(out)[..len].to_vec(),
        None => vec![0f64; len],
    };
    for bt in 0..g.batch {
        for i in 0..g.m {
            for q in 0..g.k {
                let x = av[at(&g.a, bt, i, q)];
                let row = &mut c[(bt * g.m + i) * g.n..(bt * g.m + i + 1) * g.n];
                for (j, cj) in row.iter_mut().enumerate() {
                    *cj += x * bv[at(&g.b, bt, q, j)];
                }
            }
        }
    }
    let data = match out.dtype {
        DType::F32 => sexpgpu_graph::TensorData::F32(c.iter().map(|&x| x as f32).collect()),
        _ => sexpgpu_graph::TensorData::BF16(c.iter().map(|&x| half::bf16::from_f64(x)).collect()),
    };
    let bytes = to_bytes(&data);
    out.bytes_mut()[..bytes.len()].copy_from_slice(&bytes);
}

/// The memory a location names.
fn mem<'m>(
    loc: Loc,
    args: &'m mut [Mem],
    consts: &'m mut [Mem],
    bufs: &'m mut HashMap<u32, Mem>,
) -> &'m mut Mem {
    match loc {
        Loc::Arg(k) => &mut args[k],
        Loc::Const(k) => &mut consts[k],
        Loc::Buf(b) => bufs.get_mut(&b.0).expect("read after written"),
    }
}

/// Runs the plan's launches in order on host memory; the outputs, or the
/// error an out-of-range id raised.
fn run_plan(
    plan: &Plan,
    codes: &[StepCode],
    libs: &Libs,
    args: &[Tensor],
    seed: u64,
) -> Result<Vec<Tensor>, String> {
    let mut argm: Vec<Mem> = args.iter().map(Mem::from_tensor).collect();
    let mut consts: Vec<Mem> = plan.constants.iter().map(Mem::from_tensor).collect();
    let mut bufs: HashMap<u32, Mem> = HashMap::new();
    for (launch, code) in plan.launches.iter().zip(codes) {
        let new_mem = |b: sexpgpu_compile::BufId| {
            let info = &plan.buffers[b.0 as usize];
            Mem::new(info.dtype, info.len)
        };
        let mut out = new_mem(launch.out);
        let mut side: Vec<Mem> = launch.side().iter().map(|&b| new_mem(b)).collect();
        let in_place = match &launch.step {
            Step::Fused {
                inputs, in_place, ..
            } => in_place
                .iter()
                .map(|ip| match &inputs[ip.input] {
                    Src::Mem { loc, .. } => (*loc, ip.target),
                    Src::Splat { .. } => panic!("an in-place splat"),
                })
                .collect(),
            Step::ScatterAdd(s) if s.in_place => vec![(s.base.loc, 0)],
            _ => Vec::new(),
        };
        // A target overwritten in place starts as its input, as the slot
        // (or owned argument) it takes over holds it; the input is read
        // from the target, not passed.
        for &(loc, target) in &in_place {
            let from = mem(loc, &mut argm, &mut consts, &mut bufs);
            let to = if target == 0 {
                &mut out
            } else {
                &mut side[target - 1]
            };
            let n = to.words.len().min(from.words.len());
            to.words[..n].copy_from_slice(&from.words[..n]);
        }
        let side_ptrs: Vec<*mut c_void> = side.iter_mut().map(Mem::ptr).collect();
        let in_place_reads = in_place.iter().map(|&(loc, _)| loc).collect::<Vec<_>>();
        let inputs: Vec<*mut c_void> = launch
            .step
            .reads()
            .into_iter()
            .filter(|loc| !in_place_reads.contains(loc))
            .map(|loc| mem(loc, &mut argm, &mut consts, &mut bufs).ptr())
            .collect();
        let mut key = match &launch.step {
            Step::Fill(Fill::Normal { stream, .. } | Fill::Uniform { stream, .. }) => {
                stream_key(seed, *stream)
            }
            _ => [0, 0],
        };
        let mut err = [0u64; 4];
        let mut call = |k: &Kernel, out: *mut c_void, inputs: &[*mut c_void]| {
            let mut a: Vec<*mut c_void> = Vec::new();
            for p in &k.params {
                match p {
                    Param::Out => a.push(out),
                    Param::Side(j) => a.push(side_ptrs[*j]),
                    Param::Input(j) => a.push(inputs[*j]),
                    Param::ErrorWord => a.push(err.as_mut_ptr().cast()),
                    Param::StreamKey => {
                        a.push((&mut key[0] as *mut u32).cast());
                        a.push((&mut key[1] as *mut u32).cast());
                    }
                }
            }
            libs.run(k, &mut a);
        };
        match code {
            StepCode::Kernels(ks) => ks.iter().for_each(|k| call(k, out.ptr(), &inputs)),
            StepCode::Gemm(g) => {
                let reads = launch.step.reads();
                let mut operand = |i: usize, o: &sexpgpu_cuda::codegen::GemmOperand| match &o.pack {
                    Some(pack) => {
                        let mut scratch = Mem::new(g.dtype, o.scratch);
                        call(pack, scratch.ptr(), &inputs[i..=i]);
                        scratch
                    }
                    None => {
                        let m = mem(reads[i], &mut argm, &mut consts, &mut bufs);
                        Mem {
                            dtype: m.dtype,
                            words: m.words.clone(),
                        }
                    }
                };
                let (a, b) = (operand(0, &g.a), operand(1, &g.b));
                if let Some(bias) = &g.bias {
                    call(&bias.rows, out.ptr(), &inputs);
                }
                gemm(g, &a, &b, &mut out);
            }
        }
        if err[0] != 0 {
            return Err(format!("id {} out of range for {}", err[1] as i64, err[2]));
        }
        bufs.insert(launch.out.0, out);
        for (&b, m) in launch.side().iter().zip(side) {
            bufs.insert(b.0, m);
        }
    }
    plan.outputs
        .iter()
        .map(|o| {
            let m = mem(o.loc, &mut argm, &mut consts, &mut bufs);
            let n = o.shape.numel() * element_size(o.dtype);
            let data = from_bytes(o.dtype, &m.bytes()[..n]);
            Tensor::new(o.shape.clone(), data).map_err(|e| e.message)
        })
        .collect()
}

/// Every kernel, compiled into host libraries of a few hundred each.
struct Libs {
    libs: Vec<HostLib>,
    which: HashMap<String, usize>,
    _dir: TempDir,
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Libs {
    /// `tag` names the build's folder (tests of one process run at once).
    fn build(kernels: &[&Kernel], tag: &str) -> Libs {
        let dir =
            std::env::temp_dir().join(format!("sexpgpu-cuda-emu-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let chunks: Vec<&[&Kernel]> = kernels.chunks(250).collect();
        let libs: Vec<HostLib> = std::thread::scope(|s| {
            let handles: Vec<_> = chunks
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let dir = &dir;
                    s.spawn(move || HostLib::build(c, dir, &format!("lib{i}")))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut which = HashMap::new();
        for (i, c) in chunks.iter().enumerate() {
            for k in c.iter() {
                which.insert(k.name.clone(), i);
            }
        }
        Libs {
            libs,
            which,
            _dir: TempDir(dir),
        }
    }

    fn run(&self, k: &Kernel, args: &mut [*mut c_void]) {
        self.libs[self.which[&k.name]].run(k, args);
    }
}

/// Sums and maxima in every numeric dtype laid out each cooperative way:
/// few long rows and columns (a block per output), rows (a warp per
/// output), wide columns (tiles of 32), over one axis and two. A float sum
/// is reordered (f64 partials folded in another order), so it agrees
/// within one f32 rounding; the rest exactly.
fn long_reductions() -> Vec<(String, Graph, Vec<Tensor>, f64)> {
    use sexpgpu_graph::{ReduceOp, Shape as Dims};
    let mut out = Vec::new();
    let mut rng = common::Rng::new(77);
    let layouts: [(&[usize], &[i64]); 7] = [
        (&[3, 5000], &[1]),
        (&[5000, 3], &[0]),
        (&[37, 300], &[1]),
        (&[300, 37], &[0]),
        (&[6, 50, 70], &[0, 1]),
        (&[5, 9, 40], &[2]),
        (&[4, 100, 3, 20], &[1, 3]),
    ];
    for dtype in [DType::F32, DType::BF16, DType::I32, DType::I64] {
        for op in [ReduceOp::Sum, ReduceOp::Max] {
            for (dims, axes) in layouts {
                let mut g = Graph::new("long");
                let x = g.input("x", Dims::from(dims), dtype);
                let r = g.reduce(op, x, Some(axes), false).unwrap();
                g.set_outputs(vec![r]);
                let args = vec![common::tensor(&mut rng, dims, dtype)];
                let tol = if op == ReduceOp::Sum && dtype.is_float() {
                    1e-6
                } else {
                    0.0
                };
                out.push((
                    format!("long {op:?} {dtype} {dims:?}/{axes:?}"),
                    g,
                    args,
                    tol,
                ));
            }
        }
    }
    out
}

/// Index-adds of many ids (a block per row's 256 columns), with repeated
/// ids and rows wider than a block: the same id order as the reference,
/// so bit for bit.
fn many_id_index_adds() -> Vec<(String, Graph, Vec<Tensor>, f64)> {
    use sexpgpu_graph::Shape as Dims;
    let mut out = Vec::new();
    let mut rng = common::Rng::new(79);
    for (dtype, rows, n_ids, row_len) in [
        (DType::F32, 7, 700, 300),
        (DType::BF16, 5, 64, 3),
        (DType::I32, 9, 300, 20),
    ] {
        let mut g = Graph::new("index-add");
        let base = g.input("base", Dims::from([rows, row_len]), dtype);
        let ids = g.input("ids", Dims::from([n_ids]), DType::I32);
        let values = g.input("values", Dims::from([n_ids, row_len]), dtype);
        let r = g.index_add(base, ids, values).unwrap();
        g.set_outputs(vec![r]);
        let id_values: Vec<i64> = (0..n_ids)
            .map(|j| ((j * 7 + j / 5) % rows) as i64)
            .collect();
        let args = vec![
            common::tensor(&mut rng, &[rows, row_len], dtype),
            Tensor::from_i64s(Dims::from([n_ids]), &id_values, DType::I32).unwrap(),
            common::tensor(&mut rng, &[n_ids, row_len], dtype),
        ];
        out.push((
            format!("index-add {dtype} {rows}x{row_len} by {n_ids}"),
            g,
            args,
            0.0,
        ));
    }
    out
}

/// Scatter-adds into a base that dies there (cross-entropy's backward),
/// which add in place: a thread a line of ids for short lines (repeated
/// ids in one), the dense kernel over `out` for lines longer than
/// `IN_PLACE_LINE`; the reference's order, so bit for bit.
fn in_place_scatters() -> Vec<(String, Graph, Vec<Tensor>, f64)> {
    use sexpgpu_graph::Shape as Dims;
    let mut out = Vec::new();
    let mut rng = common::Rng::new(81);
    for (dtype, rows, cols, per_line) in [
        (DType::F32, 6, 50, 1),
        (DType::BF16, 4, 9, 5),
        (DType::I32, 3, 7, 4),
        (DType::F32, 2, 30, 70),
    ] {
        let mut g = Graph::new("scatter-in-place");
        let x = g.input("x", Dims::from([rows, cols]), dtype);
        let idx = g.input("idx", Dims::from([rows, per_line]), DType::I64);
        let values = g.input("values", Dims::from([rows, per_line]), dtype);
        let doubled = g.binary(sexpgpu_graph::BinaryOp::Add, x, x).unwrap();
        let r = g.scatter_add(doubled, idx, values, 1).unwrap();
        g.set_outputs(vec![r]);
        let ids: Vec<i64> = (0..rows * per_line)
            .map(|j| ((j * 3 + j / 4) % cols) as i64)
            .collect();
        let args = vec![
            common::tensor(&mut rng, &[rows, cols], dtype),
            Tensor::from_i64s(Dims::from([rows, per_line]), &ids, DType::I64).unwrap(),
            common::tensor(&mut rng, &[rows, per_line], dtype),
        ];
        let program = sexpgpu_compile::compile(&g).unwrap();
        assert!(
            program.describe().contains("adds into its base in place"),
            "{}",
            program.describe()
        );
        out.push((
            format!("scatter-add in place {dtype} {rows}x{cols} by {per_line}"),
            g,
            args,
            0.0,
        ));
    }
    out
}

/// Each graph with an argument for each of its inputs from `make` (given
/// the argument's shape and dtype), compared within `tol`.
fn with_arguments(
    graphs: Vec<(String, Graph)>,
    mut make: impl FnMut(&sexpgpu_graph::Shape, DType) -> Tensor,
    tol: f64,
) -> Vec<(String, Graph, Vec<Tensor>, f64)> {
    graphs
        .into_iter()
        .map(|(name, g)| {
            let args = g
                .arguments()
                .iter()
                .map(|&a| make(g.shape(a), g.dtype(a)))
                .collect();
            (name, g, args, tol)
        })
        .collect()
}

/// The example programs' graphs with made-up arguments: random floats,
/// integer ids 0 (in range for every table). Matmuls and reordered sums
/// make them agree within tolerance, not bit for bit.
fn examples() -> Vec<(String, Graph, Vec<Tensor>, f64)> {
    let mut rng = common::Rng::new(78);
    let make = |shape: &sexpgpu_graph::Shape, dtype: DType| {
        if dtype.is_integer() {
            Tensor::full(shape.clone(), sexpgpu_graph::Scalar::Int(0), dtype)
        } else {
            common::tensor(&mut rng, shape.dims(), dtype)
        }
    };
    with_arguments(programs::example_graphs(), make, 1e-3)
}

/// The GPU benchmark's GPT-2 train step at its tiny scale, in f32 and in
/// bf16 (f32 master weights, bf16 compute), with arguments a step really
/// sees: small positive floats (weights, moments, hyperparameters) and
/// token ids across the vocabulary. (Weights of +-3 and equal ids make
/// attention saturate on near-ties, where a last-bit difference of a
/// reordered sum flips which key wins: chaos, not a kernel's error.)
fn gpt2_steps() -> Vec<(String, Graph, Vec<Tensor>, f64)> {
    let mut rng = common::Rng::new(80);
    let make = |shape: &sexpgpu_graph::Shape, dtype: DType| {
        let n = shape.numel();
        if dtype.is_integer() {
            let ids: Vec<i64> = (0..n).map(|_| rng.uniform(0.0, 127.99) as i64).collect();
            Tensor::from_i64s(shape.clone(), &ids, dtype).unwrap()
        } else {
            let v: Vec<f64> = (0..n).map(|_| rng.uniform(0.0, 0.05)).collect();
            Tensor::from_f64s(shape.clone(), &v, dtype).unwrap()
        }
    };
    with_arguments(gpt2::gpt2_tiny_graphs(), make, 1e-3)
}

/// A graph compiled for the emulator: its name, the graph, the program,
/// each launch's device code, its arguments and tolerance.
type Planned = (
    String,
    Graph,
    sexpgpu_compile::Program,
    Vec<StepCode>,
    Vec<Tensor>,
    f64,
);

/// Runs every plan in the emulator and compares its outputs with the
/// reference executor's, failing with every mismatch (`what` names them).
fn assert_plans_match(plans: &[Planned], libs: &Libs, what: &str) {
    let mut failures = Vec::new();
    for (name, g, program, codes, args, tol) in plans {
        let want = execute(g, args, 7).expect("the reference runs");
        match run_plan(program.plan(), codes, libs, args, 7) {
            Ok(got) => {
                if let Some(e) = mismatch(&got, &want, *tol) {
                    failures.push(format!("{name}: {e}\n{}", program.describe()));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} {what} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn generated_kernels_compute_the_references_results() {
    let mut cases: Vec<(String, Graph, Vec<Tensor>, f64)> = Vec::new();
    for seed in 0..150 {
        let b = common::graphs::build(seed, common::graphs::Family::Exact);
        cases.push((format!("random{seed}"), b.g, b.args, 0.0));
    }
    for seed in 1000..1150 {
        let b = common::graphs::build(seed, common::graphs::Family::Smooth);
        let bf16 = b.args.iter().any(|a| a.dtype() == DType::BF16);
        cases.push((
            format!("random{seed}"),
            b.g,
            b.args,
            if bf16 { 3e-2 } else { 1e-4 },
        ));
    }
    cases.extend(long_reductions());
    cases.extend(many_id_index_adds());
    cases.extend(examples());
    cases.extend(gpt2_steps());
    for (name, g, args) in common::linear::linear_layers() {
        let bf16 = args[0].dtype() == DType::BF16;
        cases.push((name, g, args, if bf16 { 3e-2 } else { 1e-4 }));
    }
    let mut plans = Vec::new();
    for (name, g, args, tol) in cases {
        let program = sexpgpu_compile::compile(&g).unwrap();
        let codes = generate_plan(program.plan()).unwrap();
        plans.push((name, g, program, codes, args, tol));
    }
    let mut kernels: HashMap<String, &Kernel> = HashMap::new();
    for (.., codes, _, _) in &plans {
        for k in codes.iter().flat_map(StepCode::kernels) {
            kernels.insert(k.name.clone(), k);
        }
    }
    let mut all: Vec<&Kernel> = kernels.into_values().collect();
    all.sort_by(|a, b| a.name.cmp(&b.name));
    let libs = Libs::build(&all, "graphs");
    assert_plans_match(&plans, &libs, "graphs");
    // The linear layers with a bias (`common::linear`, ten) take the
    // bias-rows kernel and the accumulating product here.
    let biased = plans
        .iter()
        .flat_map(|(.., codes, _, _)| codes)
        .filter(|c| matches!(c, StepCode::Gemm(g) if g.bias.is_some()))
        .count();
    assert!(biased >= 10, "{biased} products with a bias");
    let blocks = all
        .iter()
        .filter(|k| matches!(k.shape, Shape::Blocks { .. }))
        .count();
    eprintln!(
        "{} graphs emulated, {} kernels ({blocks} cooperative)",
        plans.len(),
        all.len()
    );
    assert!(
        plans.len() >= 300 && blocks >= 60,
        "{} graphs, {blocks} block kernels",
        plans.len()
    );
}

#[test]
fn scatters_in_place_compute_the_references_results() {
    let plans: Vec<Planned> = in_place_scatters()
        .into_iter()
        .map(|(name, g, args, tol)| {
            let program = sexpgpu_compile::compile(&g).unwrap();
            let codes = generate_plan(program.plan()).unwrap();
            (name, g, program, codes, args, tol)
        })
        .collect();
    let codes: Vec<Vec<StepCode>> = plans.iter().map(|p| p.3.clone()).collect();
    let libs = Libs::build(&unique_kernels(&codes), "scatters");
    assert_plans_match(&plans, &libs, "scatters in place");
}

/// The kernels of a set of graphs' plans, each once, in name order.
fn unique_kernels(codes: &[Vec<StepCode>]) -> Vec<&Kernel> {
    let mut kernels: HashMap<String, &Kernel> = HashMap::new();
    for k in codes.iter().flatten().flat_map(StepCode::kernels) {
        kernels.insert(k.name.clone(), k);
    }
    let mut all: Vec<&Kernel> = kernels.into_values().collect();
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all
}

/// `max-pool`, `max-unpool`, `scatter` and `scatter-reduce` with their
/// gradients at ties, NaN and infinities (`ties::tie_graphs`, whose
/// reference results the Python tests compare with PyTorch's): the same
/// values in emulation, NaN where the reference has NaN.
#[test]
fn tie_gradients_compute_the_references_results() {
    let plans: Vec<Planned> = ties::tie_graphs()
        .into_iter()
        .map(|(name, g, args)| {
            let program = sexpgpu_compile::compile(&g).unwrap();
            let codes = generate_plan(program.plan()).unwrap();
            (name, g, program, codes, args, 1e-6)
        })
        .collect();
    assert_eq!(plans.len(), 8, "the tie graphs");
    let codes: Vec<Vec<StepCode>> = plans.iter().map(|p| p.3.clone()).collect();
    let libs = Libs::build(&unique_kernels(&codes), "ties");
    assert_plans_match(&plans, &libs, "tie gradients");
}

/// Every per-op numerics case (one small graph per op, dtype and shape)
/// run through its generated kernels in emulation, then recomputed and
/// compared in NumPy by `tests/numerics/check_ops.py`, as the reference
/// executor's results are: the CUDA kernels' arithmetic for every op,
/// without a GPU (`scripts/gpu-check` runs the same cases on one).
#[test]
fn every_numerics_case_matches_numpy_in_emulation() {
    let compiled = |g: &Graph| {
        let program = sexpgpu_compile::compile(g).expect("the case compiles");
        let codes = generate_plan(program.plan()).expect("its kernels generate");
        (program, codes)
    };
    // A first pass collects the cases' kernels (the cases are deterministic).
    let codes = std::cell::RefCell::new(Vec::new());
    let scratch = std::env::temp_dir().join(format!("sexpgpu-emu-plans-{}", std::process::id()));
    numerics::write_all(&scratch, &|g, args, seed| {
        codes.borrow_mut().push(compiled(g).1);
        execute(g, args, seed)
    })
    .expect("the reference runs every case");
    std::fs::remove_dir_all(&scratch).ok();
    let codes = codes.into_inner();
    let libs = Libs::build(&unique_kernels(&codes), "numerics");
    let dir = std::env::temp_dir().join(format!("sexpgpu-emu-numerics-{}", std::process::id()));
    let emulated = |g: &Graph, args: &[Tensor], seed: u64| {
        let (program, codes) = compiled(g);
        run_plan(program.plan(), &codes, &libs, args, seed).map_err(|message| {
            sexpgpu_graph::ExecError {
                message,
                node: None,
            }
        })
    };
    let count = numerics::write_all(&dir, &emulated)
        .unwrap_or_else(|failures| panic!("emulation failed:\n{}", failures.join("\n")));
    numerics::check_with_numpy(&dir, count, "the emulated kernels");
}

/// Random floats in [-1, 1] of `dims` and `dtype`.
fn unit_tensor(rng: &mut common::Rng, dims: &[usize], dtype: DType) -> Tensor {
    let n = dims.iter().product();
    let v: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
    Tensor::from_f64s(sexpgpu_graph::Shape::from(dims), &v, dtype).unwrap()
}

/// The fused-attention graphs (`attention::attention_graphs`) with
/// arguments in [-1, 1], within the tolerance of their dtype: f32 sums in
/// another order than the f64 reference's; bf16 results one bf16 step
/// apart at most (the weights reach the tensor cores as two bf16 terms,
/// and the result is rounded once, as the reference's).
fn attention_cases() -> Vec<(String, Graph, Vec<Tensor>, f64)> {
    let mut rng = common::Rng::new(81);
    attention::attention_graphs()
        .into_iter()
        .map(|(name, g)| {
            let args: Vec<Tensor> = g
                .arguments()
                .iter()
                .map(|&a| unit_tensor(&mut rng, g.shape(a).dims(), g.dtype(a)))
                .collect();
            let bf16 = args.iter().any(|a| a.dtype() == DType::BF16);
            (name, g, args, if bf16 { 5e-3 } else { 1e-5 })
        })
        .collect()
}

/// Fused attention's kernels against the reference executor: every part,
/// both dtypes, the tiled kernels (bf16 through the emulated tensor-core
/// product) and the general one, each step read through the views the
/// lowering planned (strided heads, broadcast batches) with no copy.
#[test]
fn attention_kernels_compute_the_references_results() {
    let mut plans = Vec::new();
    for (name, g, args, tol) in attention_cases() {
        let program = sexpgpu_compile::compile(&g).unwrap();
        let codes = generate_plan(program.plan()).unwrap();
        plans.push((name, g, program, codes, args, tol));
    }
    let codes: Vec<Vec<StepCode>> = plans.iter().map(|p| p.3.clone()).collect();
    let all = unique_kernels(&codes);
    // Every part alone and each pair in one launch (a side output), tiled
    // (at most 4 warps) and general (8 warps, for widths over the tiles').
    let kinds: std::collections::BTreeSet<(&str, bool, bool)> = all
        .iter()
        .filter_map(|k| match k.shape {
            Shape::Blocks { threads, .. } if k.kind.starts_with("attention") => {
                let pair = k.params.contains(&Param::Side(0));
                Some((k.kind, pair, threads > 128))
            }
            _ => None,
        })
        .collect();
    let parts = [
        "attention",
        "attention-lse",
        "attention-grad-q",
        "attention-grad-k",
        "attention-grad-v",
    ];
    for part in parts {
        for general in [false, true] {
            // The log-sum-exp reads no wide values: always tiled here.
            let want = (part, false, general);
            assert!(
                kinds.contains(&want) || (general && part == "attention-lse"),
                "{want:?}: {kinds:?}"
            );
        }
    }
    for part in ["attention", "attention-grad-k"] {
        for general in [false, true] {
            assert!(
                kinds.contains(&(part, true, general)),
                "{part} pair: {kinds:?}"
            );
        }
    }
    let libs = Libs::build(&all, "attention");
    assert_plans_match(&plans, &libs, "attention graphs");
}

/// The differential generator's programs (`sexpgpu-gen`,
/// `docs/fuzzing.md`): each program's one graph (its loss, gradients and,
/// for some, a gradient step) through its generated kernels in emulation,
/// against the CPU backend on the same arguments, within the CPU
/// oracle's tolerance (CUDA's libm functions, reordered sums and the
/// emulated cuBLAS's f64 products are not bit for bit).
/// `SEXPGPU_GEN_EMULATED=N` runs `N` programs (the seeds of the CPU
/// campaign's first `N`).
#[test]
fn generated_programs_match_the_cpu_backend() {
    let count: u64 = std::env::var("SEXPGPU_GEN_EMULATED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(60);
    let mut cases = Vec::new();
    for seed in 0..count {
        let p = sexpgpu_gen::program(seed);
        let traced = sexpgpu_gen::trace(&p.text(), p.params.len(), seed)
            .unwrap_or_else(|f| panic!("seed {seed}: {}", f.detail()));
        let cpu = sexpgpu_gen::oracle::run_cpu(&traced)
            .unwrap_or_else(|f| panic!("seed {seed}: {}", f.detail()));
        let program = sexpgpu_compile::compile(&traced.graph).unwrap();
        let codes = generate_plan(program.plan()).unwrap();
        cases.push((seed, p, traced, cpu, program, codes));
    }
    let codes: Vec<Vec<StepCode>> = cases.iter().map(|c| c.5.clone()).collect();
    let kernels = unique_kernels(&codes);
    let libs = Libs::build(&kernels, "generated");
    let mut failures = Vec::new();
    for (seed, p, traced, cpu, program, codes) in &cases {
        let got = run_plan(program.plan(), codes, &libs, &traced.args, 0);
        let why = match got {
            Err(e) => Some(e),
            Ok(got) => got.iter().zip(cpu).enumerate().find_map(|(i, (g, c))| {
                sexpgpu_gen::oracle::differs(g, c, sexpgpu_gen::oracle::tolerance(traced))
                    .map(|why| format!("output {i}: {why}"))
            }),
        };
        if let Some(why) = why {
            failures.push(format!(
                "seed {seed}: {why}\n{}\n{}",
                p.text(),
                program.describe()
            ));
        }
    }
    eprintln!(
        "{} generated programs emulated, {} kernels",
        cases.len(),
        kernels.len()
    );
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
