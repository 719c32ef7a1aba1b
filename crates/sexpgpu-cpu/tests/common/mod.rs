//! Shared test helpers: the compiler's shared test graphs and random
//! tensors (`shared`, by path), and `check`, which
//! compiles a graph, runs it on the CPU backend with several thread counts
//! (twice each, so the reused arena is exercised) and compares every output
//! with the reference executor. Never touches files.

#![allow(dead_code)]

#[path = "../../../sexpgpu-compile/tests/shared/mod.rs"]
mod shared;

use sexpgpu_cpu::compile;
use sexpgpu_graph::{execute, DType, Graph, Tensor};
#[allow(unused_imports)] // each test file uses a part
pub use shared::{graphs, ids, linear, sliced_heads, tensor, Rng};

/// How close the backend must be to the reference.
#[derive(Clone, Copy, Debug)]
pub enum Tol {
    /// Equal values (NaN equals NaN; 0.0 equals -0.0).
    Exact,
    /// `|got - want| <= tol * (1 + |want|)`.
    Rel(f64),
}

/// The tolerance for a matmul or sum of `k` terms in `dtype`.
pub fn accum_tol(dtype: DType, k: usize) -> Tol {
    match dtype {
        DType::F32 => Tol::Rel(1e-6 * (k as f64).sqrt().max(1.0) * 4.0),
        // One bf16 rounding of a slightly different f32.
        DType::BF16 => Tol::Rel(1.0 / 128.0),
        _ => Tol::Exact,
    }
}

/// Compiles and runs `graph` on `args`, comparing every output with the
/// reference executor; panics naming the first mismatch. Returns the outputs.
pub fn check(graph: &Graph, args: &[Tensor], tol: Tol) -> Vec<Tensor> {
    let want = execute(graph, args, 7).expect("the reference runs");
    let program = compile(graph).expect("the graph compiles");
    let program_text = program.describe();
    for threads in [1, 2, 3] {
        let program = compile(graph).unwrap().with_threads(threads);
        for round in 0..2 {
            let got = program.run(args, 7).expect("the backend runs");
            compare(
                &got,
                &want,
                tol,
                &format!("threads {threads}, run {round}\n{program_text}"),
            );
        }
        // Runs that take their arguments: the second writes its outputs
        // into the first's argument buffers, which hold old values, so a
        // kernel that relied on a zeroed output would show here.
        for round in 0..2 {
            let got = program
                .run_owned(args.to_vec(), 7)
                .expect("the backend runs");
            compare(
                &got,
                &want,
                tol,
                &format!("threads {threads}, owned run {round}\n{program_text}"),
            );
        }
        resident_runs_match(graph, args, &want, tol, threads, &program_text);
    }
    want
}

/// `Program::run_resident` on the CPU backend, twice in one arena:
/// arguments given, lent or passed as host tensors by turns, and every
/// other output kept "on the device" (downloaded here to compare).
fn resident_runs_match(
    graph: &Graph,
    args: &[Tensor],
    want: &[Tensor],
    tol: Tol,
    threads: usize,
    program_text: &str,
) {
    use sexpgpu_compile::{Arena, Backend, DeviceArg, DeviceResult};
    use sexpgpu_cpu::CpuBackend;
    let program = sexpgpu_compile::compile(graph).unwrap();
    let backend = CpuBackend::new(threads);
    let lent: Vec<_> = args.iter().map(|t| backend.upload(t).unwrap()).collect();
    let mut arena = Arena::default();
    for round in 0..2 {
        let resident: Vec<DeviceArg<'_, _>> = args
            .iter()
            .enumerate()
            .map(|(i, t)| match (i + round) % 3 {
                0 => DeviceArg::Given(backend.upload(t).unwrap()),
                1 => DeviceArg::Lent(&lent[i]),
                _ => DeviceArg::Host(t.clone()),
            })
            .collect();
        let keep: Vec<bool> = (0..want.len()).map(|o| (o + round) % 2 == 0).collect();
        let got = program
            .run_resident(&backend, &mut arena, resident, &keep, 7)
            .expect("the backend runs");
        let got: Vec<Tensor> = got
            .into_iter()
            .zip(want)
            .zip(&keep)
            .map(|((r, w), &kept)| match r {
                DeviceResult::Kept(buf) => {
                    assert!(kept, "an output was kept that was not asked to be");
                    backend.download(buf, w.shape()).unwrap()
                }
                DeviceResult::Host(t) => {
                    assert!(!kept, "an output asked to be kept came back to the host");
                    t
                }
            })
            .collect();
        compare(
            &got,
            want,
            tol,
            &format!("threads {threads}, resident run {round}\n{program_text}"),
        );
    }
}

pub fn compare(got: &[Tensor], want: &[Tensor], tol: Tol, context: &str) {
    assert_eq!(got.len(), want.len(), "output count; {context}");
    for (o, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.shape(), w.shape(), "output {o} shape; {context}");
        assert_eq!(g.dtype(), w.dtype(), "output {o} dtype; {context}");
        let (gv, wv) = (g.to_f64s(), w.to_f64s());
        if g.dtype().is_integer() {
            assert_eq!(g.to_i64s(), w.to_i64s(), "output {o}; {context}");
            continue;
        }
        for (i, (&x, &y)) in gv.iter().zip(&wv).enumerate() {
            let ok = match tol {
                _ if x.is_nan() || y.is_nan() => x.is_nan() && y.is_nan(),
                _ if x == y => true,
                Tol::Exact => false,
                Tol::Rel(t) => (x - y).abs() <= t * (1.0 + y.abs()),
            };
            assert!(
                ok,
                "output {o} element {i}: got {x:e}, want {y:e} ({tol:?}); {context}"
            );
        }
    }
}
