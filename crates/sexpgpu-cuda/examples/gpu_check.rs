//! The GPU half of `scripts/gpu-check` (run on a machine with an NVIDIA
//! GPU; exits 2 with `CudaDevice::open`'s message elsewhere): bf16 matmul
//! throughput first, then the compiled-vs-reference random graphs of
//! the compiler's shared test graphs and linear layers with a bias on the CUDA
//! backend; with `--numerics DIR`, every
//! per-op numerics case of `sexpgpu-graph`'s NumPy test run on the GPU and
//! written to DIR for `tests/numerics/check_ops.py`. A check that panics
//! counts as failed and the next still runs. Prints one line per check and
//! exits 1 when a check fails. Measures; claims nothing it did not run.

#[path = "../../sexpgpu-compile/tests/shared/mod.rs"]
mod common;
// The comparison the emulation test uses too.
#[path = "../tests/support/compare.rs"]
mod compare;
#[path = "../../sexpgpu-graph/tests/numerics/cases.rs"]
#[allow(dead_code)] // `check_with_numpy` serves the tests that compare values
mod numerics;

use std::process::ExitCode;
use std::time::Instant;

use compare::mismatch;

use sexpgpu_compile::{compile, Arena, Backend, Fill, Product, View};
use sexpgpu_cuda::{CudaBackend, CudaDevice};
use sexpgpu_graph::{execute, BinaryOp, DType, Graph, Op, Tensor, UnaryOp};

/// Whether the graph uses a function CUDA's math library computes
/// differently from Rust's in the last bit (the documented exception to
/// bit-identity, docs/sexpgpu/cuda.md).
fn uses_transcendentals(g: &Graph) -> bool {
    g.nodes().iter().any(|n| match &n.op {
        Op::Unary(u) => !matches!(
            u,
            UnaryOp::Neg
                | UnaryOp::Abs
                | UnaryOp::Sqrt
                | UnaryOp::Rsqrt
                | UnaryOp::Floor
                | UnaryOp::Ceil
                | UnaryOp::Round
                | UnaryOp::Trunc
                | UnaryOp::Sign
                | UnaryOp::StopGradient
        ),
        Op::Binary(b) => matches!(b, BinaryOp::Pow | BinaryOp::Atan2),
        Op::Normal { .. } => true,
        _ => false,
    })
}

/// Runs every random graph twice on the GPU (the second run reuses the
/// arena and the kernel cache); returns the number of failures.
fn random_graphs(be: &CudaBackend) -> usize {
    let (mut failed, mut exact, mut near, mut differ) = (0, 0, 0, 0);
    let seeds = (0..150u64).map(|s| (s, common::graphs::Family::Exact));
    let seeds: Vec<_> = seeds
        .chain((1000..1150).map(|s| (s, common::graphs::Family::Smooth)))
        .collect();
    // Every graph's kernels compile together first, in a few NVRTC programs.
    let graphs: Vec<_> = seeds
        .iter()
        .map(|&(seed, family)| common::graphs::build(seed, family))
        .collect();
    let programs: Vec<_> = graphs
        .iter()
        .map(|b| compile(&b.g).expect("the graph compiles"))
        .collect();
    let started = Instant::now();
    if let Err(e) = be.compile_plans(programs.iter().map(|p| p.plan())) {
        println!("FAIL random graphs: kernels did not compile: {}", e.message);
        return 1;
    }
    println!(
        "random graphs: kernels compiled in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    for ((&(seed, family), b), program) in seeds.iter().zip(&graphs).zip(&programs) {
        let want = execute(&b.g, &b.args, 7).expect("the reference runs");
        let mut arena = Arena::default();
        let bf16 = b.args.iter().any(|a| a.dtype() == DType::BF16)
            || b.g.outputs().iter().any(|&o| b.g.dtype(o) == DType::BF16);
        let (tol, must) = match family {
            common::graphs::Family::Smooth => (if bf16 { 3e-2 } else { 1e-4 }, true),
            common::graphs::Family::Exact if uses_transcendentals(&b.g) => {
                (if bf16 { 1e-2 } else { 1e-5 }, false)
            }
            common::graphs::Family::Exact => (0.0, true),
        };
        for round in 0..2 {
            let got = match program.run_on(be, &mut arena, &b.args, 7) {
                Ok(got) => got,
                Err(e) => {
                    println!("FAIL random{seed} run {round}: {}", e.message);
                    failed += 1;
                    break;
                }
            };
            match (mismatch(&got, &want, tol), must) {
                (None, _) if tol == 0.0 => exact += 1,
                (None, _) => near += 1,
                (Some(m), true) => {
                    println!("FAIL random{seed} run {round}: {m}");
                    failed += 1;
                }
                (Some(m), false) => {
                    println!("note random{seed} (transcendentals) run {round}: {m}");
                    differ += 1;
                }
            }
        }
    }
    println!(
        "random graphs: {exact} runs bit-identical, {near} within tolerance, {differ} transcendental runs differing, {failed} failures"
    );
    failed
}

/// Runs every per-op numerics case on the GPU (each graph compiled, then
/// run on the CUDA backend) and writes them into `dir`; returns the
/// number of cases that failed to run. Their values are checked by
/// `tests/numerics/check_ops.py` afterwards.
fn numerics_on(be: &CudaBackend, dir: &std::path::Path) -> usize {
    let compiled = |g: &Graph| {
        compile(g).map_err(|e| sexpgpu_graph::ExecError {
            message: format!("compile: {e}"),
            node: None,
        })
    };
    // A first pass over the (deterministic) cases collects their plans, so
    // that every kernel compiles in a few NVRTC programs, not one each.
    let plans = std::cell::RefCell::new(Vec::new());
    let collect = |g: &Graph, args: &[Tensor], seed: u64| {
        plans.borrow_mut().push(compiled(g)?);
        execute(g, args, seed)
    };
    let scratch = std::env::temp_dir().join(format!("gpu-check-plans-{}", std::process::id()));
    let _ = numerics::write_all(&scratch, &collect);
    std::fs::remove_dir_all(&scratch).ok();
    let started = Instant::now();
    let programs = plans.into_inner();
    if let Err(e) = be.compile_plans(programs.iter().map(|p| p.plan())) {
        println!("FAIL numerics: kernels did not compile: {}", e.message);
        return 1;
    }
    println!(
        "numerics: the kernels of {} cases compiled in {:.1} s",
        programs.len(),
        started.elapsed().as_secs_f64()
    );
    let run = |g: &Graph, args: &[Tensor], seed: u64| {
        let program = compiled(g)?;
        let mut arena = Arena::default();
        program.run_on(be, &mut arena, args, seed)
    };
    match numerics::write_all(dir, &run) {
        Ok(count) => {
            println!(
                "numerics: {count} cases run on the GPU, written to {}",
                dir.display()
            );
            0
        }
        Err(failures) => {
            for f in &failures {
                println!("FAIL numerics {f}");
            }
            failures.len()
        }
    }
}

/// The linear layers with a bias (`x @ w + b`, one cuBLASLt launch with
/// the bias epilogue, or the fallback where a bias is not 16-byte aligned)
/// on the GPU against the reference; returns the number of failures.
fn linear_layers(be: &CudaBackend) -> usize {
    let mut failed = 0;
    let layers = common::linear::linear_layers();
    for (name, g, args) in &layers {
        let tol = if args[0].dtype() == DType::BF16 {
            3e-2
        } else {
            1e-4
        };
        let want = execute(g, args, 0).expect("the reference runs");
        let program = compile(g).expect("the graph compiles");
        let got = program.run_on(be, &mut Arena::default(), args, 0);
        let problem = match got {
            Ok(got) => mismatch(&got, &want, tol),
            Err(e) => Some(e.message),
        };
        if let Some(m) = problem {
            println!("FAIL {name}: {m}");
            failed += 1;
        }
    }
    let (epilogue, fallback) = be.biased_runs();
    println!(
        "linear layers with a bias: {} of {} right; {epilogue} products by cuBLASLt's bias epilogue, {fallback} by the fallback{}",
        layers.len() - failed,
        layers.len(),
        if be.has_blas_lt() { "" } else { " (cuBLASLt not loaded)" }
    );
    failed
}

/// Runs one check, counting a panic inside it as one failure so that the
/// checks after it still run (a GPU's time is short).
fn guarded(name: &str, check: impl FnOnce() -> usize) -> usize {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)) {
        Ok(failures) => failures,
        Err(_) => {
            println!("FAIL {name}: panicked (message above)");
            1
        }
    }
}

/// TFLOPS of an `n x n x n` bf16 product (cuBLAS, f32 accumulation).
fn matmul_tflops(be: &CudaBackend, n: usize) -> Result<f64, String> {
    let err = |e: sexpgpu_graph::ExecError| e.message;
    let mut a = be.alloc(DType::BF16, n * n).map_err(err)?;
    let mut b = be.alloc(DType::BF16, n * n).map_err(err)?;
    let mut c = be.alloc(DType::BF16, n * n).map_err(err)?;
    let fill = Fill::Uniform {
        low: -1.0,
        high: 1.0,
        stream: 0,
    };
    be.fill(&fill, 1, &mut a, n * n).map_err(err)?;
    be.fill(&fill, 2, &mut b, n * n).map_err(err)?;
    let view = View::contiguous(&[n, n]);
    let mut run = |reps: usize| -> Result<f64, String> {
        let start = Instant::now();
        for _ in 0..reps {
            let product = Product {
                a: (&a, &view),
                b: (&b, &view),
                bias: None,
                batch: &[],
                m: n,
                k: n,
                n,
            };
            be.matmul(product, &mut c).map_err(err)?;
        }
        be.synchronize().map_err(err)?;
        Ok(start.elapsed().as_secs_f64() / reps as f64)
    };
    run(3)?;
    let secs = run(20)?;
    Ok(2.0 * (n as f64).powi(3) / secs / 1e12)
}

fn main() -> ExitCode {
    let device = match CudaDevice::open(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    println!("device: {} (sm_{})", device.name, device.arch);
    let be = match CudaBackend::new(device) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {}", e.message);
            return ExitCode::from(2);
        }
    };
    // The matmul benchmark first: it needs the fewest of the backend's
    // parts, so its figure survives a failure in the checks after it.
    let mut failed = 0;
    for n in [4096, 8192] {
        match matmul_tflops(&be, n) {
            Ok(t) => println!("bench bf16 matmul {n}: {t:.1} TFLOPS"),
            Err(e) => {
                println!("FAIL bf16 matmul {n}: {e}");
                failed += 1;
            }
        }
    }
    failed += guarded("random graphs", || random_graphs(&be));
    failed += guarded("linear layers", || linear_layers(&be));
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--numerics") {
        let Some(dir) = args.get(i + 1) else {
            eprintln!("error: --numerics takes a folder");
            return ExitCode::from(2);
        };
        failed += guarded("numerics", || numerics_on(&be, std::path::Path::new(dir)));
    }
    let stats = be.pool().stats();
    println!(
        "allocator: {} driver allocations, {} reused",
        stats.driver_allocs, stats.reused
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
