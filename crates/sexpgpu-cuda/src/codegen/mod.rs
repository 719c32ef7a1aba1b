//! CUDA C++ source for every step of a compiled `Plan` (the same plans the
//! CPU backend runs): which kernels a step needs, their text, the runtime
//! arguments they take in order, and their launch shape. Pure Rust, no
//! CUDA: the runtime compiles the text with NVRTC, and the no-GPU tests
//! compile every kernel of the examples and random graphs with NVRTC and
//! ptxas. Sizes, strides and offsets are baked into the text (shapes are
//! static), so a kernel's name is a hash of its text and equal kernels are
//! compiled once.

mod attention;
pub mod c;
mod copy;
mod fill;
mod fused;
mod indexing;
pub mod matmul;
pub mod prelude;
mod reduce;
#[cfg(test)]
mod snapshots;
mod sort;

use std::fmt;

use sexpgpu_compile::{InPlace, Launch, Loc, Plan, Src, Step};
use sexpgpu_graph::DType;

pub use matmul::{Gemm, GemmBias, GemmOperand};

/// Threads per block of every grid-stride kernel.
pub const BLOCK: u32 = 256;
/// Threads of a block of a column tile over a long run (`reduce.rs`).
pub const TILE_THREADS: u32 = 1024;
/// Grid-stride kernels use at most this many blocks: enough to fill any
/// current GPU several times over, few enough that launches stay cheap.
pub const MAX_BLOCKS: u32 = 65_535;

/// A step the generators cannot express (a plan that breaks the
/// lowering's invariants, such as a reduction of booleans).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenError {
    pub message: String,
}

impl GenError {
    pub fn new(message: impl Into<String>) -> GenError {
        GenError {
            message: message.into(),
        }
    }
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for GenError {}

/// One runtime argument of a kernel, in the order the kernel declares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// The step's output buffer (or a scratch buffer, for packing kernels).
    Out,
    /// A fused loop's side output `k` (`FusedKernel::side`).
    Side(usize),
    /// Operand `k` of the step, in the order `Step::reads` lists them
    /// (a fused kernel's splat inputs take no argument).
    Input(usize),
    /// The device's error word (four u64): set once by the first thread
    /// that finds an id outside its axis.
    ErrorWord,
    /// The random stream's key, two u32 computed on the host from the run
    /// seed (`sexpgpu_graph::random::stream_key`).
    StreamKey,
}

/// How a kernel is launched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Grid-stride over `n` items, `BLOCK` threads a block.
    Grid { n: usize },
    /// `n` blocks of `threads` threads (a multiple of 32, at most 1024)
    /// that work together (shared memory, barriers, warp shuffles): a
    /// reduction's or an index-add's layout says what each block takes.
    Blocks { n: usize, threads: u32 },
}

impl Shape {
    /// `(blocks, threads)`; blocks is 0 when there is nothing to do.
    pub fn dims(self) -> (u32, u32) {
        match self {
            Shape::Grid { n } => {
                let blocks = n.div_ceil(BLOCK as usize).min(MAX_BLOCKS as usize);
                (blocks as u32, BLOCK)
            }
            Shape::Blocks { n, threads } => (n.min(u32::MAX as usize) as u32, threads),
        }
    }
}

/// A generated kernel: `extern "C"` function `name` in `source`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// `sx_<kind>_<hash>`: the hash of the text, so equal kernels share a
    /// compiled module and a changed kernel gets a new name.
    pub name: String,
    pub source: String,
    pub params: Vec<Param>,
    pub shape: Shape,
    /// The step kind it computes (`Step::kind`, or `pack`).
    pub kind: &'static str,
}

impl Kernel {
    fn new(kind: &'static str, body: String, params: Vec<Param>, shape: Shape) -> Kernel {
        let random = matches!(kind, "normal" | "uniform");
        let mut source = String::from(prelude::PRELUDE);
        if random {
            source.push_str(prelude::RANDOM);
        }
        if matches!(kind, "index" | "gather" | "index-add" | "scatter-add") {
            source.push_str(prelude::ERRORS);
        }
        if kind.starts_with("attention") {
            source.push_str(prelude::ATTENTION);
        }
        source.push_str(&body);
        let name = format!("sx_{}_{:016x}", kind.replace('-', "_"), fnv1a(&source));
        let source = source.replace("KERNEL(", &format!("{name}("));
        Kernel {
            name,
            source,
            params,
            shape,
            kind,
        }
    }
}

/// FNV-1a, 64 bits: a stable hash (std's is randomly keyed per process).
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// What the device does for one launch of the plan.
#[derive(Clone, Debug, PartialEq)]
pub enum StepCode {
    /// Generated kernels, launched in order, all writing the step's output.
    Kernels(Vec<Kernel>),
    /// A float matmul: cuBLAS (cuBLASLt with a bias), after packing
    /// operands it cannot read.
    Gemm(Box<Gemm>),
}

impl StepCode {
    /// Every generated kernel of the step (packing kernels of a gemm too).
    pub fn kernels(&self) -> Vec<&Kernel> {
        match self {
            StepCode::Kernels(k) => k.iter().collect(),
            StepCode::Gemm(g) => [&g.a, &g.b]
                .into_iter()
                .filter_map(|o| o.pack.as_ref())
                .chain(g.bias.as_ref().map(|b| &b.rows))
                .collect(),
        }
    }
}

/// The device code of one launch of `plan`.
pub fn generate(plan: &Plan, launch: &Launch) -> Result<StepCode, GenError> {
    let out_dtype = plan.buffers[launch.out.0 as usize].dtype;
    let reads = launch.step.reads();
    generate_step(&launch.step, out_dtype, launch.len, |k| {
        c::loc_dtype(plan, reads[k])
    })
}

/// The device code of one step writing `len` elements of `out_dtype`;
/// `dtype_of(k)` is the dtype of operand `k` in `Step::reads` order. The
/// operands' locations never enter the text (their buffers are kernel
/// arguments), so a backend that sees a step without its plan generates
/// exactly the kernels the plan-level tests compile.
pub fn generate_step(
    step: &Step,
    out_dtype: DType,
    len: usize,
    dtype_of: impl Fn(usize) -> DType,
) -> Result<StepCode, GenError> {
    let one = |kind, (body, params), shape| {
        Ok(StepCode::Kernels(vec![Kernel::new(
            kind, body, params, shape,
        )]))
    };
    let grid = Shape::Grid { n: len };
    match step {
        Step::Fused {
            kernel,
            inputs,
            in_place,
            ..
        } => {
            let typed = typed_inputs(inputs, &dtype_of);
            let (body, params, shape) = fused::generate(kernel, &typed, in_place, out_dtype, len)?;
            one("fused", (body, params), shape)
        }
        Step::Copy { pieces } => {
            let (body, params, n) = copy::generate(pieces, out_dtype);
            one("copy", (body, params), Shape::Grid { n })
        }
        Step::Fill(f) => {
            let (kind, body, params) = fill::generate(f, out_dtype, len)?;
            one(kind, (body, params), grid)
        }
        Step::Reduce {
            op,
            input,
            dims,
            axes,
        } => {
            let values = reduce::Values::Stored {
                offset: input.offset,
            };
            let (body, params, shape) = reduce::generate(*op, values, dims, axes, out_dtype)?;
            one(step.kind(), (body, params), shape)
        }
        Step::FusedReduce {
            op,
            kernel,
            inputs,
            dims,
            axes,
        } => {
            let typed = typed_inputs(inputs, &dtype_of);
            let len = dims.iter().product();
            let largest = fused::largest_extent(&typed, len);
            let element = fused::element(kernel, &typed, &[], c::Index::for_extent(largest))?;
            let values = reduce::Values::Fused(&element, largest);
            let (body, params, shape) = reduce::generate(*op, values, dims, axes, out_dtype)?;
            one(step.kind(), (body, params), shape)
        }
        Step::Matmul(p) => matmul::generate(p, dtype_of(0)),
        Step::Argsort(s) => {
            let (body, params, n) = sort::generate(s, dtype_of(0))?;
            one(step.kind(), (body, params), Shape::Grid { n })
        }
        Step::Attention(a) => Ok(kernels(attention::generate(a, out_dtype, dtype_of)?)),
        Step::Index(_)
        | Step::IndexAdd(_)
        | Step::Gather(_)
        | Step::ScatterAdd(_)
        | Step::LinearScan(_) => Ok(kernels(indexing::generate(step, out_dtype, dtype_of)?)),
    }
}

/// A step's kernels, in launch order, from their parts.
fn kernels(parts: Vec<indexing::Part>) -> StepCode {
    StepCode::Kernels(
        parts
            .into_iter()
            .map(|(kind, body, params, shape)| Kernel::new(kind, body, params, shape))
            .collect(),
    )
}

/// A fused chain's inputs with their dtypes: a memory operand's is that of
/// its buffer (`dtype_of`, in `Step::reads` order), a splat's its own.
fn typed_inputs(inputs: &[Src], dtype_of: &impl Fn(usize) -> DType) -> Vec<(Src, DType)> {
    let mut mem = 0;
    inputs
        .iter()
        .map(|s| match s {
            Src::Mem { .. } => {
                mem += 1;
                (s.clone(), dtype_of(mem - 1))
            }
            Src::Splat { dtype, .. } => (s.clone(), *dtype),
        })
        .collect()
}

/// Kernels per NVRTC program when many are compiled at once.
pub const BATCH: usize = 64;

/// One translation unit holding every kernel's text (its prelude included)
/// in a namespace of its own, so one NVRTC start compiles many kernels;
/// the `extern "C"` names are unique hashes, so nothing clashes.
pub fn batch_source(kernels: &[&Kernel]) -> String {
    kernels
        .iter()
        .enumerate()
        .map(|(i, k)| format!("namespace sx{i} {{\n{}\n}}\n", k.source))
        .collect()
}

/// Every launch's device code, in plan order, each fused loop overwriting
/// every input planned in place (as a run that owns its arguments does).
pub fn generate_plan(plan: &Plan) -> Result<Vec<StepCode>, GenError> {
    plan.launches.iter().map(|l| generate(plan, l)).collect()
}

/// Every launch's device code in each form a run can use: a fused loop
/// that may overwrite an argument in place also runs without (a run that
/// borrows its arguments overwrites only its own dying buffers), and each
/// form reads differently. For compiling ahead of the first run.
pub fn generate_plan_variants(plan: &Plan) -> Result<Vec<StepCode>, GenError> {
    let mut codes = generate_plan(plan)?;
    for launch in &plan.launches {
        let Step::Fused {
            inputs, in_place, ..
        } = &launch.step
        else {
            continue;
        };
        let of_buffers = |ip: &&InPlace| {
            matches!(
                inputs.get(ip.input),
                Some(Src::Mem {
                    loc: Loc::Buf(_),
                    ..
                })
            )
        };
        let borrowed: Vec<InPlace> = in_place.iter().filter(of_buffers).copied().collect();
        if borrowed.len() < in_place.len() {
            let mut step = launch.step.clone();
            if let Step::Fused { in_place, .. } = &mut step {
                *in_place = borrowed;
            }
            let variant = Launch {
                step,
                ..launch.clone()
            };
            codes.push(generate(plan, &variant)?);
        }
    }
    Ok(codes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sexpgpu_compile::Contig;
    use sexpgpu_graph::ReduceOp;

    fn shape_of(dims: &[usize], axes: &[usize]) -> Shape {
        let step = Step::Reduce {
            op: ReduceOp::Sum,
            input: Contig {
                loc: Loc::Arg(0),
                offset: 0,
            },
            dims: dims.to_vec(),
            axes: axes.to_vec(),
        };
        let StepCode::Kernels(k) = generate_step(&step, DType::F32, 0, |_| DType::F32).unwrap()
        else {
            panic!("a reduction is a kernel")
        };
        k[0].shape
    }

    #[test]
    fn launch_shapes() {
        let blocks = |n| Shape::Blocks { n, threads: BLOCK };
        // Few long rows, or few long columns a few wide: a block per output.
        assert_eq!(shape_of(&[4, 5000], &[1]), blocks(4));
        assert_eq!(shape_of(&[5000, 4], &[0]), blocks(4));
        // Short runs: a thread per output.
        assert_eq!(shape_of(&[100, 4], &[0]), Shape::Grid { n: 4 });
        assert_eq!(shape_of(&[2048, 16], &[1]), Shape::Grid { n: 2048 });
        // Rows (softmax, layer norm): a warp per row, 8 rows a block.
        assert_eq!(shape_of(&[98304, 1024], &[1]), blocks(12288));
        assert_eq!(shape_of(&[2048, 64], &[1]), blocks(256));
        // Wide columns (a bias's gradient): tiles of 32 columns, by 32
        // slices of a long run (8 of a short one).
        let tiles = |threads| Shape::Blocks { n: 24, threads };
        assert_eq!(shape_of(&[8, 1024, 768], &[0, 1]), tiles(TILE_THREADS));
        assert_eq!(shape_of(&[1024, 768], &[0]), tiles(BLOCK));
        // Columns enough for a thread each.
        assert_eq!(shape_of(&[8, 1024, 768], &[0]), Shape::Grid { n: 786432 });
        assert_eq!(Shape::Grid { n: 1000 }.dims(), (4, BLOCK));
        assert_eq!(Shape::Grid { n: 1 << 30 }.dims(), (MAX_BLOCKS, BLOCK));
        assert_eq!(Shape::Grid { n: 0 }.dims(), (0, BLOCK));
    }

    fn update_in_place() -> Plan {
        let g = super::snapshots::moment_and_parameter_update();
        sexpgpu_compile::compile(&g).unwrap().plan().clone()
    }

    fn input_params(code: &StepCode) -> usize {
        let k = code.kernels()[0];
        k.params
            .iter()
            .filter(|p| matches!(p, Param::Input(_)))
            .count()
    }

    #[test]
    fn arguments_overwritten_in_place_compile_with_and_without() {
        let plan = update_in_place();
        let Step::Fused { in_place, .. } = &plan.launches[0].step else {
            panic!("one fused loop")
        };
        assert_eq!(in_place.len(), 2, "p and m are overwritten in place");
        let codes = generate_plan_variants(&plan).unwrap();
        assert_eq!(codes.len(), 2, "owned and borrowed arguments");
        // Owned: only g is a pointer of its own; borrowed: p, g and m.
        assert_eq!(input_params(&codes[0]), 1);
        assert_eq!(input_params(&codes[1]), 3);
        // Read through the target's group of lanes, loaded from `out`.
        let loads_target = |code: &StepCode| {
            let source = &code.kernels()[0].source;
            source.contains("(out_lanes, out + p0)") && source.contains("= out_lanes[v];")
        };
        assert!(loads_target(&codes[0]));
        assert!(!loads_target(&codes[1]));
    }

    #[test]
    fn an_input_read_in_place_through_a_view_is_refused() {
        let mut plan = update_in_place();
        let Step::Fused { inputs, .. } = &mut plan.launches[0].step else {
            panic!("one fused loop")
        };
        for src in inputs.iter_mut() {
            if let Src::Mem { view, .. } = src {
                *view = view.transpose(&[1, 0]);
            }
        }
        let err = generate(&plan, &plan.launches[0]).unwrap_err();
        assert!(
            err.message.contains("in-place input read through a view"),
            "{}",
            err.message
        );
    }

    #[test]
    fn equal_text_is_one_kernel_and_names_follow_the_text() {
        let fill = |v| {
            Step::Fill(sexpgpu_compile::Fill::Splat(sexpgpu_graph::Scalar::Float(
                v,
            )))
        };
        let names: Vec<String> = [1.0, 1.0, 2.0]
            .iter()
            .map(|&v| {
                let code = generate_step(&fill(v), DType::F32, 8, |_| DType::F32).unwrap();
                code.kernels()[0].name.clone()
            })
            .collect();
        assert_eq!(names[0], names[1]);
        assert_ne!(names[0], names[2]);
        assert!(names[0].starts_with("sx_fill_"), "{}", names[0]);
    }
}
