//! The fused elementwise loop on the CPU: the output is walked in tiles of
//! `TILE` elements, and each instruction of the kernel runs as one tight,
//! vectorisable loop over a tile-sized register, so intermediates live in
//! cache-sized scratch and never in a buffer; contiguous f32 inputs are
//! read in place rather than loaded into a register. Arithmetic is the
//! reference executor's, element for element (bf16 rounded after every
//! instruction, i32 wrapping), so results are bit-identical. Never
//! allocates per tile. `Evaluator` computes chosen positions for a
//! reduction that folds them as they come (`Step::FusedReduce`).

use half::bf16;
use sexpgpu_graph::{
    binaries_arith, binaries_bitwise, binaries_division, binaries_float_only, math, unaries_exact,
    unaries_float_only, unaries_in_f64, BinaryOp, CompareOp, DType, ExecError, Scalar, TensorData,
    UnaryOp,
};

use crate::jit::{self, Compiled, Input};
use crate::parallel::{for_chunks, MIN_PER_THREAD};
use crate::walk::load;
use sexpgpu_compile::Operand;
use sexpgpu_compile::View;
use sexpgpu_compile::{FusedKernel, Instr, Reg};

/// Elements per tile: registers of all instructions stay in L1/L2.
const TILE: usize = 512;

/// A tile-sized register in its compute type: floats (f32 and bf16) as
/// f32, i32 and i64 as themselves, booleans as bool.
enum RegBuf {
    F(Vec<f32>),
    I(Vec<i32>),
    L(Vec<i64>),
    B(Vec<bool>),
}

impl RegBuf {
    fn new(dtype: DType) -> RegBuf {
        match dtype {
            DType::F32 | DType::BF16 => RegBuf::F(vec![0.0; TILE]),
            DType::I32 => RegBuf::I(vec![0; TILE]),
            DType::I64 => RegBuf::L(vec![0; TILE]),
            DType::Bool => RegBuf::B(vec![false; TILE]),
        }
    }

    /// Its first element, for compiled code.
    fn as_ptr(&self) -> *const u8 {
        match self {
            RegBuf::F(v) => v.as_ptr() as *const u8,
            RegBuf::I(v) => v.as_ptr() as *const u8,
            RegBuf::L(v) => v.as_ptr() as *const u8,
            RegBuf::B(v) => v.as_ptr() as *const u8,
        }
    }

    /// Fills the register with a splat value (already of its dtype).
    fn splat(&mut self, value: Scalar) {
        match self {
            RegBuf::F(v) => v.fill(value.as_f64() as f32),
            RegBuf::I(v) => v.fill(value.as_i64() as i32),
            RegBuf::L(v) => v.fill(value.as_i64()),
            RegBuf::B(v) => v.fill(value.as_bool()),
        }
    }
}

/// An instruction's operand values for one tile: a register's, or, for a
/// load of a contiguous f32 input, the input's own elements (read in place,
/// never copied into a register).
#[derive(Clone, Copy)]
enum Vals<'b> {
    F(&'b [f32]),
    I(&'b [i32]),
    L(&'b [i64]),
    B(&'b [bool]),
}

impl<'b> Vals<'b> {
    #[inline(always)]
    fn of(reg: &'b RegBuf) -> Vals<'b> {
        match reg {
            RegBuf::F(v) => Vals::F(v),
            RegBuf::I(v) => Vals::I(v),
            RegBuf::L(v) => Vals::L(v),
            RegBuf::B(v) => Vals::B(v),
        }
    }
}

/// For each instruction, the input it reads in place: the contiguous f32
/// elements of a load's input from the view's first element on (never
/// the result's, which is stored from its register).
fn in_place_loads<'a>(kernel: &FusedKernel, inputs: &[Prepared<'a>]) -> Vec<Option<&'a [f32]>> {
    kernel
        .instrs
        .iter()
        .enumerate()
        .map(|(i, instr)| match *instr {
            // The result is stored from its register.
            _ if i == kernel.result.index() => None,
            Instr::Load {
                input,
                dtype: DType::F32,
            } => match inputs.get(input) {
                Some(Prepared::Mem(buf, view)) => contiguous_f32(buf, view),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Rounds an f32 to the nearest bf16 (ties to even), as `half` does,
/// without leaving f32: the reference rounds every bf16 node this way.
#[inline(always)]
pub(crate) fn round_bf16(x: f32) -> f32 {
    let b = x.to_bits();
    if x.is_nan() {
        return f32::from_bits((b & 0xFFFF_0000) | 0x0040_0000);
    }
    let rounded = b.wrapping_add(0x7FFF + ((b >> 16) & 1));
    f32::from_bits(rounded & 0xFFFF_0000)
}

/// A bf16-exact f32 as bf16 (dropping zero bits).
#[inline(always)]
fn to_bf16_exact(x: f32) -> bf16 {
    bf16::from_bits((x.to_bits() >> 16) as u16)
}

/// An input prepared once per kernel call: its collapsed view, or the
/// splat value already in a register of every thread.
enum Prepared<'a> {
    Mem(&'a TensorData, View),
    Splat(Scalar),
    /// The positions of target `k` (0: the result, 1 + j: side output
    /// `j`), read before the loop writes them (`Operand::Written`).
    Written(usize),
}

/// Checks and prepares the operands of a kernel computing `len` values.
fn prepare<'a>(
    inputs: &[Operand<'a, TensorData>],
    len: usize,
) -> Result<Vec<Prepared<'a>>, ExecError> {
    inputs
        .iter()
        .map(|input| match input {
            Operand::Mem(buf, view) => {
                if view.extent() > buf.len() || view.numel() != len {
                    return Err(internal("a fused input view does not fit its buffer"));
                }
                Ok(Prepared::Mem(buf, view.collapsed()))
            }
            Operand::Splat(value, _) => Ok(Prepared::Splat(*value)),
            Operand::Written(target) => Ok(Prepared::Written(*target)),
        })
        .collect()
}

/// Computes `len` positions of `kernel` into `out`, and its side outputs
/// (`FusedKernel::side`) into `side`.
pub(crate) fn run(
    threads: usize,
    kernel: &FusedKernel,
    inputs: &[Operand<'_, TensorData>],
    out: &mut TensorData,
    side: &mut [TensorData],
    len: usize,
) -> Result<(), ExecError> {
    let prepared = prepare(inputs, len)?;
    if out.len() < len {
        return Err(internal("a fused output buffer is too short"));
    }
    let targets = 1 + side.len();
    if prepared
        .iter()
        .any(|p| matches!(p, Prepared::Written(t) if *t >= targets))
    {
        return Err(internal("a fused loop reads a target it does not write"));
    }
    let side = &side_outs(kernel, side, len)?;
    let prepared = &prepared;
    match out {
        TensorData::F32(o) => match compiled(kernel, prepared) {
            Some(code) => compiled_chunks(threads, &code, prepared, side, &mut o[..len]),
            None => chunks(threads, kernel, prepared, side, &mut o[..len]),
        },
        TensorData::BF16(o) => chunks(threads, kernel, prepared, side, &mut o[..len]),
        TensorData::I32(o) => chunks(threads, kernel, prepared, side, &mut o[..len]),
        TensorData::I64(o) => chunks(threads, kernel, prepared, side, &mut o[..len]),
        TensorData::Bool(o) => chunks(threads, kernel, prepared, side, &mut o[..len]),
    }
    Ok(())
}

/// Where one side output's tiles go: its buffer's first element. Threads
/// share it, and each writes only the positions of its own chunk.
#[derive(Clone, Copy)]
enum SideOut {
    F32(*mut f32),
    BF16(*mut bf16),
    I32(*mut i32),
    I64(*mut i64),
    Bool(*mut bool),
}

// SAFETY: a `SideOut` is only written through `SideOut::store`, at the
// positions of the calling thread's chunk; chunks are disjoint.
unsafe impl Send for SideOut {}
unsafe impl Sync for SideOut {}

impl SideOut {
    /// Writes the register's first `n` values to positions `pos..pos + n`.
    ///
    /// # Safety
    /// The buffer must hold `pos + n` elements (`side_outs` checks the
    /// whole length) and no other thread may write these positions.
    #[inline(always)]
    unsafe fn store(self, reg: &RegBuf, pos: usize, n: usize) {
        /// Positions `pos..pos + n` of the buffer at `p`.
        ///
        /// # Safety
        /// As for `store`.
        #[inline(always)]
        unsafe fn tile<'t, T>(p: *mut T, pos: usize, n: usize) -> &'t mut [T] {
            // SAFETY: the caller's contract.
            unsafe { std::slice::from_raw_parts_mut(p.add(pos), n) }
        }
        // SAFETY (every `tile` call): the caller's contract.
        match self {
            SideOut::F32(p) => f32::store_tile(reg, unsafe { tile(p, pos, n) }),
            SideOut::BF16(p) => bf16::store_tile(reg, unsafe { tile(p, pos, n) }),
            SideOut::I32(p) => i32::store_tile(reg, unsafe { tile(p, pos, n) }),
            SideOut::I64(p) => i64::store_tile(reg, unsafe { tile(p, pos, n) }),
            SideOut::Bool(p) => bool::store_tile(reg, unsafe { tile(p, pos, n) }),
        }
    }
}

impl SideOut {
    /// Reads positions `pos..pos + n` into the register (an input the
    /// loop overwrites in place), before the tile stores them.
    ///
    /// # Safety
    /// As for `store`.
    #[inline(always)]
    unsafe fn read(self, reg: &mut RegBuf, pos: usize, n: usize) {
        /// Positions `pos..pos + n` of the buffer at `p`.
        ///
        /// # Safety
        /// As for `store`.
        #[inline(always)]
        unsafe fn tile<'t, T>(p: *mut T, pos: usize, n: usize) -> &'t [T] {
            // SAFETY: the caller's contract.
            unsafe { std::slice::from_raw_parts(p.add(pos), n) }
        }
        // SAFETY (every `tile` call): the caller's contract.
        match self {
            SideOut::F32(p) => f32::read_tile(unsafe { tile(p, pos, n) }, reg),
            SideOut::BF16(p) => bf16::read_tile(unsafe { tile(p, pos, n) }, reg),
            SideOut::I32(p) => i32::read_tile(unsafe { tile(p, pos, n) }, reg),
            SideOut::I64(p) => i64::read_tile(unsafe { tile(p, pos, n) }, reg),
            SideOut::Bool(p) => bool::read_tile(unsafe { tile(p, pos, n) }, reg),
        }
    }
}

/// An element type a tile's register is stored as: the register's values
/// (bf16 from their exact f32), as many as `out` holds. A register of
/// another class stores nothing (`side_outs` and the lowering match each
/// register's dtype to its buffer).
trait TileStore: Copy + Send {
    fn store_tile(reg: &RegBuf, out: &mut [Self]);
    /// The reverse: `tile`'s values into the register (an input the loop
    /// overwrites in place).
    fn read_tile(tile: &[Self], reg: &mut RegBuf);
}

/// `TileStore` for a type its registers hold as they are.
macro_rules! stored_as_is {
    ($($t:ty => $class:ident),*) => {$(
        impl TileStore for $t {
            #[inline(always)]
            fn store_tile(reg: &RegBuf, out: &mut [$t]) {
                if let RegBuf::$class(v) = reg {
                    out.copy_from_slice(&v[..out.len()]);
                }
            }

            #[inline(always)]
            fn read_tile(tile: &[$t], reg: &mut RegBuf) {
                if let RegBuf::$class(v) = reg {
                    v[..tile.len()].copy_from_slice(tile);
                }
            }
        }
    )*};
}

stored_as_is!(f32 => F, i32 => I, i64 => L, bool => B);

impl TileStore for bf16 {
    #[inline(always)]
    fn store_tile(reg: &RegBuf, out: &mut [bf16]) {
        if let RegBuf::F(v) = reg {
            for (o, &x) in out.iter_mut().zip(v) {
                *o = to_bf16_exact(x);
            }
        }
    }

    #[inline(always)]
    fn read_tile(tile: &[bf16], reg: &mut RegBuf) {
        if let RegBuf::F(v) = reg {
            for (r, &x) in v.iter_mut().zip(tile) {
                *r = x.to_f32();
            }
        }
    }
}

/// The side outputs' buffers, checked: one per side register, of its
/// dtype, each holding `len` elements.
fn side_outs(
    kernel: &FusedKernel,
    side: &mut [TensorData],
    len: usize,
) -> Result<Vec<SideOut>, ExecError> {
    if side.len() != kernel.side.len() {
        return Err(internal(
            "a fused loop's side outputs do not match its kernel",
        ));
    }
    kernel
        .side
        .iter()
        .zip(side)
        .map(|(reg, buf)| {
            let dtype = kernel.instrs.get(reg.index()).map(Instr::dtype);
            if buf.len() < len || dtype != Some(buf.dtype()) {
                return Err(internal("a fused side output buffer does not fit"));
            }
            Ok(match buf {
                TensorData::F32(v) => SideOut::F32(v.as_mut_ptr()),
                TensorData::BF16(v) => SideOut::BF16(v.as_mut_ptr()),
                TensorData::I32(v) => SideOut::I32(v.as_mut_ptr()),
                TensorData::I64(v) => SideOut::I64(v.as_mut_ptr()),
                TensorData::Bool(v) => SideOut::Bool(v.as_mut_ptr()),
            })
        })
        .collect()
}

fn internal(message: &str) -> ExecError {
    ExecError {
        message: format!("internal: {message}"),
        node: None,
    }
}

/// What every chunk of one kernel call reads: the kernel, its prepared
/// operands and the loads it reads in place.
#[derive(Clone, Copy)]
struct Loop<'k, 'a> {
    kernel: &'k FusedKernel,
    inputs: &'k [Prepared<'a>],
    in_place: &'k [Option<&'a [f32]>],
    /// Where each of `kernel.side`'s registers is stored (none when the
    /// values feed a reduction).
    side: &'k [SideOut],
    slots: &'k Slots,
}

/// Where each instruction's values live during a tile. A register is
/// reused once every reader of its value has run, so a long kernel (GELU's
/// backward has some thirty instructions) keeps a handful of tile-sized
/// registers hot in L1 instead of one per instruction.
struct Slots {
    /// Each instruction's register (unused for loads read in place).
    of: Vec<usize>,
    /// Each register's dtype (one register class per dtype's `RegBuf`).
    dtypes: Vec<DType>,
}

impl Slots {
    /// Assigns registers in one pass: an instruction takes a free register
    /// of its class (or a new one), then frees those of the operands it
    /// read last. Splat loads, the result and side outputs keep theirs:
    /// splats are filled once per thread, the others are stored after the
    /// tile.
    fn new(kernel: &FusedKernel, inputs: &[Prepared<'_>], in_place: &[Option<&[f32]>]) -> Slots {
        let count = kernel.instrs.len();
        let mut last_read: Vec<Option<usize>> = vec![None; count];
        for (i, instr) in kernel.instrs.iter().enumerate() {
            for r in instr.args() {
                last_read[r.index()] = Some(i);
            }
        }
        let splat = |i: usize| {
            matches!(kernel.instrs[i], Instr::Load { input, .. }
                if matches!(inputs.get(input), Some(Prepared::Splat(_))))
        };
        let pinned = |i: usize| {
            i == kernel.result.index() || splat(i) || kernel.side.contains(&Reg(i as u32))
        };
        // bf16 values compute in f32 registers (`RegBuf::new`).
        let class = |dtype: DType| {
            if dtype == DType::BF16 {
                DType::F32
            } else {
                dtype
            }
        };
        let mut slots = Slots {
            of: vec![usize::MAX; count],
            dtypes: Vec::new(),
        };
        let mut free: Vec<usize> = Vec::new();
        for (i, instr) in kernel.instrs.iter().enumerate() {
            if in_place[i].is_some() {
                continue;
            }
            // A splat's register is filled once, before any tile, so it
            // must be one no earlier instruction writes.
            let reusable = free
                .iter()
                .position(|&s| !splat(i) && class(slots.dtypes[s]) == class(instr.dtype()));
            slots.of[i] = match reusable {
                Some(at) => free.swap_remove(at),
                None => {
                    slots.dtypes.push(instr.dtype());
                    slots.dtypes.len() - 1
                }
            };
            // Values read for the last time here, and a value nobody reads.
            let dead = instr
                .args()
                .map(Reg::index)
                .filter(|&r| last_read[r] == Some(i))
                .chain((last_read[i].is_none()).then_some(i));
            for r in dead {
                let slot = slots.of[r];
                if slot != usize::MAX && !pinned(r) && !free.contains(&slot) {
                    free.push(slot);
                }
            }
        }
        slots
    }
}

/// One thread's registers for `code`'s kernel, splat loads already filled.
fn registers(code: Loop<'_, '_>) -> Vec<RegBuf> {
    let mut regs: Vec<RegBuf> = code.slots.dtypes.iter().map(|&d| RegBuf::new(d)).collect();
    for (i, instr) in code.kernel.instrs.iter().enumerate() {
        if let Instr::Load { input, .. } = instr {
            if let Some(Prepared::Splat(value)) = code.inputs.get(*input) {
                regs[code.slots.of[i]].splat(*value);
            }
        }
    }
    regs
}

/// The values of a float kernel's positions on demand, for a reduction
/// that folds them as they are computed (`Step::FusedReduce`): the
/// operands checked once, registers per evaluator (one per thread).
pub(crate) struct Evaluator<'k, 'a> {
    code: Loop<'k, 'a>,
    regs: Vec<RegBuf>,
    /// The kernel's machine code, where it has some, and its scratch.
    compiled: Option<(&'k Compiled, Scratch)>,
}

/// A float kernel's prepared operands, shared by the threads' evaluators.
pub(crate) struct FusedValues<'a> {
    inputs: Vec<Prepared<'a>>,
    in_place: Vec<Option<&'a [f32]>>,
    slots: Slots,
    compiled: Option<std::sync::Arc<Compiled>>,
}

impl<'a> FusedValues<'a> {
    /// Checks the operands of `kernel` computing `len` float values.
    pub(crate) fn new(
        kernel: &FusedKernel,
        inputs: &[Operand<'a, TensorData>],
        len: usize,
    ) -> Result<FusedValues<'a>, ExecError> {
        if !kernel.result_dtype().is_float() {
            return Err(internal("a fused reduction of values that are not floats"));
        }
        let inputs = prepare(inputs, len)?;
        if inputs.iter().any(|p| matches!(p, Prepared::Written(_))) {
            return Err(internal(
                "a fused reduction writes nothing to read in place",
            ));
        }
        let in_place = in_place_loads(kernel, &inputs);
        let slots = Slots::new(kernel, &inputs, &in_place);
        let compiled = compiled(kernel, &inputs);
        Ok(FusedValues {
            inputs,
            in_place,
            slots,
            compiled,
        })
    }

    /// An evaluator with registers of its own.
    pub(crate) fn evaluator<'k>(&'k self, kernel: &'k FusedKernel) -> Evaluator<'k, 'a> {
        let code = Loop {
            kernel,
            inputs: &self.inputs,
            in_place: &self.in_place,
            side: &[],
            slots: &self.slots,
        };
        Evaluator {
            code,
            regs: registers(code),
            compiled: self
                .compiled
                .as_deref()
                .map(|c| (c, Scratch::new(&self.inputs, 0))),
        }
    }
}

impl Evaluator<'_, '_> {
    /// Computes positions `start..start + out.len()` into `out` (bf16
    /// results as their exact f32 values).
    pub(crate) fn compute(&mut self, start: usize, out: &mut [f32]) {
        match &mut self.compiled {
            Some((code, scratch)) => {
                let call = Call {
                    code,
                    inputs: self.code.inputs,
                    side: &[],
                    start,
                };
                scratch.run(call, out)
            }
            None => dispatch(self.code, start, out, &mut self.regs),
        }
    }
}

/// Runs a chunk with the widest vectors the CPU has.
fn dispatch<T: TileStore>(code: Loop<'_, '_>, start: usize, chunk: &mut [T], regs: &mut [RegBuf]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F, checked just above.
        unsafe { run_chunk_avx512(code, start, chunk, regs) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { run_chunk_avx2(code, start, chunk, regs) };
        return;
    }
    run_chunk(code, start, chunk, regs);
}

/// Splits the output over threads; each thread owns its registers.
fn chunks<T: TileStore>(
    threads: usize,
    kernel: &FusedKernel,
    inputs: &[Prepared<'_>],
    side: &[SideOut],
    out: &mut [T],
) {
    let in_place = &in_place_loads(kernel, inputs);
    let slots = &Slots::new(kernel, inputs, in_place);
    let code = Loop {
        kernel,
        inputs,
        in_place,
        side,
        slots,
    };
    // Cheap instructions make a chunk worth a thread only when it is long.
    for_chunks(threads, out, TILE, MIN_PER_THREAD, |start, chunk| {
        let mut regs = registers(code);
        dispatch(code, start, chunk, &mut regs);
    });
}

/// The kernel's machine code for these operands (`jit.rs`), where the CPU
/// and the kernel allow; `None` keeps the interpreter.
fn compiled(kernel: &FusedKernel, inputs: &[Prepared<'_>]) -> Option<std::sync::Arc<Compiled>> {
    jit::lookup(kernel, &input_kinds(kernel, inputs)?)
}

/// How each input reaches compiled code: a stream, or a splat's bits;
/// `None` when an input's form has no compiled load.
fn input_kinds(kernel: &FusedKernel, inputs: &[Prepared<'_>]) -> Option<Vec<Input>> {
    let mut kinds = vec![Input::Stream; inputs.len()];
    for instr in &kernel.instrs {
        let Instr::Load { input, dtype } = *instr else {
            continue;
        };
        kinds[input] = match inputs.get(input)? {
            Prepared::Splat(value) => Input::Splat(match dtype {
                DType::Bool => u32::from(value.as_bool()),
                _ => (value.as_f64() as f32).to_bits(),
            }),
            // One f32 element for every position: broadcast from memory.
            Prepared::Mem(buf, view) if dtype == DType::F32 && scalar_f32(buf, view).is_some() => {
                Input::Scalar
            }
            // The code reads f32 and bool streams of the load's dtype.
            Prepared::Mem(buf, _) if buf.dtype() == dtype => Input::Stream,
            Prepared::Mem(..) => return None,
            // Targets are f32 where memory planning computes in place;
            // the driver passes only f32 targets (`Scratch::run`).
            Prepared::Written(target) if dtype == DType::F32 && f32_target(kernel, *target) => {
                Input::Stream
            }
            Prepared::Written(_) => return None,
        };
    }
    Some(kinds)
}

/// Whether target `k` of the kernel (0: the result, 1 + j: side output `j`)
/// holds f32.
fn f32_target(kernel: &FusedKernel, target: usize) -> bool {
    let reg = match target.checked_sub(1) {
        None => Some(kernel.result),
        Some(j) => kernel.side.get(j).copied(),
    };
    reg.and_then(|r| kernel.instrs.get(r.index()))
        .is_some_and(|instr| instr.dtype() == DType::F32)
}

/// Splits the output over threads, each running the compiled code over
/// its tiles with scratch of its own.
fn compiled_chunks(
    threads: usize,
    code: &Compiled,
    inputs: &[Prepared<'_>],
    side: &[SideOut],
    out: &mut [f32],
) {
    for_chunks(threads, out, TILE, MIN_PER_THREAD, |start, chunk| {
        let call = Call {
            code,
            inputs,
            side,
            start,
        };
        Scratch::new(inputs, side.len()).run(call, chunk);
    });
}

/// What `Scratch::run` computes with: the code, its inputs and side
/// outputs, and the position of the output's first element.
#[derive(Clone, Copy)]
struct Call<'c, 'p> {
    code: &'c Compiled,
    inputs: &'c [Prepared<'p>],
    side: &'c [SideOut],
    start: usize,
}

/// One thread's tile-sized buffers for compiled code: the tile of every
/// input not read in place (strided views gathered, bool bytes copied, so
/// the code's whole-vector bool reads stay inside), and of every bool side
/// output, copied out after each tile.
struct Scratch {
    inputs: Vec<Option<RegBuf>>,
    bool_side: Vec<Vec<bool>>,
    srcs: Vec<*const u8>,
    dsts: Vec<*mut u8>,
}

impl Scratch {
    fn new(inputs: &[Prepared<'_>], sides: usize) -> Scratch {
        Scratch {
            inputs: inputs
                .iter()
                .map(|input| match input {
                    Prepared::Mem(buf, view)
                        if contiguous_f32(buf, view).is_none()
                            && scalar_f32(buf, view).is_none() =>
                    {
                        Some(RegBuf::new(buf.dtype()))
                    }
                    _ => None,
                })
                .collect(),
            bool_side: vec![vec![false; TILE]; sides],
            srcs: Vec::with_capacity(inputs.len()),
            dsts: Vec::with_capacity(1 + sides),
        }
    }

    /// Computes positions `start..start + out.len()` into `out` and `side`.
    fn run(&mut self, call: Call<'_, '_>, out: &mut [f32]) {
        // SAFETY: compiled code exists only on CPUs with AVX2
        // (`jit::runnable_isas`).
        #[cfg(target_arch = "x86_64")]
        unsafe {
            self.run_avx2(call, out)
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.run_tiles(call, out)
    }

    /// `run` with the gathers compiled for AVX2 (a broadcast's fill of a
    /// tile stores 32 bytes at a time instead of 16).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn run_avx2(&mut self, call: Call<'_, '_>, out: &mut [f32]) {
        self.run_tiles(call, out)
    }

    #[inline(always)]
    fn run_tiles(&mut self, call: Call<'_, '_>, out: &mut [f32]) {
        let Call {
            code,
            inputs,
            side,
            start,
        } = call;
        for (t, tile) in out.chunks_mut(TILE).enumerate() {
            let (pos, n) = (start + t * TILE, tile.len());
            self.srcs.clear();
            for (input, scratch) in inputs.iter().zip(&mut self.inputs) {
                self.srcs.push(match (input, scratch) {
                    (Prepared::Mem(buf, view), Some(reg)) => match row_f32(buf, view, pos, n) {
                        Some(row) => row.as_ptr() as *const u8,
                        None => {
                            load_tile(buf, view, pos, reg, n);
                            reg.as_ptr()
                        }
                    },
                    (Prepared::Mem(buf, view), None) => contiguous_f32(buf, view)
                        .map(|src| &src[pos..])
                        .or_else(|| scalar_f32(buf, view))
                        .map_or(std::ptr::null(), |src| src.as_ptr() as *const u8),
                    // A target read in place: its tile, read by the code
                    // before it writes it (`compiled` admits f32 ones).
                    (Prepared::Written(0), _) => tile.as_ptr() as *const u8,
                    (&Prepared::Written(k), _) => match side.get(k - 1) {
                        // SAFETY: as for the side outputs below.
                        Some(&SideOut::F32(p)) => unsafe { p.add(pos) as *const u8 },
                        _ => std::ptr::null(),
                    },
                    (Prepared::Splat(_), _) => std::ptr::null(),
                });
            }
            self.dsts.clear();
            self.dsts.push(tile.as_mut_ptr() as *mut u8);
            for (target, scratch) in side.iter().zip(&mut self.bool_side) {
                self.dsts.push(match *target {
                    // SAFETY: `side_outs` checked the buffer holds every
                    // position of the kernel; `pos` is one.
                    SideOut::F32(p) => unsafe { p.add(pos) as *mut u8 },
                    _ => scratch.as_mut_ptr() as *mut u8,
                });
            }
            // SAFETY: every stream holds the tile's `n` positions from its
            // pointer (`prepare` checked the views' extents; scratch holds
            // TILE, a multiple of 16, for the bool reads and writes that
            // round up); the result tile and side positions are this
            // thread's own.
            unsafe { code.run(&self.srcs, &self.dsts, n) };
            for (target, scratch) in side.iter().zip(&self.bool_side) {
                if let SideOut::Bool(p) = *target {
                    // SAFETY: as for `SideOut::store`.
                    unsafe { std::slice::from_raw_parts_mut(p.add(pos), n) }
                        .copy_from_slice(&scratch[..n]);
                }
            }
        }
    }
}

/// The one f32 element a view repeats at every position (all its strides
/// 0: a scalar argument broadcast), which compiled code broadcasts from
/// memory.
fn scalar_f32<'a>(buf: &'a TensorData, view: &View) -> Option<&'a [f32]> {
    match buf {
        TensorData::F32(v) if view.strides.iter().all(|&s| s == 0) => v.get(view.offset..),
        _ => None,
    }
}

/// Positions `pos..pos + n` of a view that repeats one row of f32 (a bias
/// broadcast over rows: strides `[0, 1]`), read in place when they lie in
/// one row; `None` otherwise (the tile is gathered).
fn row_f32<'a>(buf: &'a TensorData, view: &View, pos: usize, n: usize) -> Option<&'a [f32]> {
    match (buf, &view.dims[..], &view.strides[..]) {
        (TensorData::F32(v), &[_, inner], &[0, 1]) if pos % inner + n <= inner => {
            v.get(view.offset + pos % inner..)
        }
        _ => None,
    }
}

/// An input's elements from its view's first on, where they are f32 in
/// order (read in place by compiled code and by the interpreter).
fn contiguous_f32<'a>(buf: &'a TensorData, view: &View) -> Option<&'a [f32]> {
    match buf {
        TensorData::F32(v) if view.dims.len() == 1 && view.strides[0] == 1 => v.get(view.offset..),
        _ => None,
    }
}

/// The tile loop of one thread's chunk. Always inlined, so that the
/// AVX-512 and AVX2 copies below compile every instruction loop with 512-
/// or 256-bit vectors; the arithmetic (no fused multiply-add) is the same
/// in every copy.
#[inline(always)]
fn run_chunk<T: TileStore>(code: Loop<'_, '_>, start: usize, chunk: &mut [T], regs: &mut [RegBuf]) {
    let Loop {
        kernel,
        inputs,
        in_place,
        side,
        slots,
    } = code;
    let mut at = 0;
    for tile in chunk.chunks_mut(TILE) {
        let n = tile.len();
        let pos = start + at;
        for i in 0..kernel.instrs.len() {
            if in_place[i].is_some() {
                continue;
            }
            let slot = slots.of[i];
            if let Instr::Load { input, .. } = kernel.instrs[i] {
                if let Some(&Prepared::Written(target)) = inputs.get(input) {
                    let reg = &mut regs[slot];
                    match target.checked_sub(1) {
                        None => T::read_tile(tile, reg),
                        // SAFETY: `side_outs` checked that every side
                        // buffer holds the kernel's `len` positions; this
                        // thread's chunk owns `pos..pos + n`.
                        Some(j) => unsafe { side[j].read(reg, pos, n) },
                    }
                    continue;
                }
            }
            // An instruction's register is never one of its operands'
            // (`Slots::new` frees those only after assigning it).
            let (before, rest) = regs.split_at_mut(slot);
            let Some((out, after)) = rest.split_first_mut() else {
                return;
            };
            let arg = |r: Reg| match in_place[r.index()] {
                Some(src) => Vals::F(&src[pos..pos + n]),
                None => match slots.of[r.index()] {
                    s if s < slot => Vals::of(&before[s]),
                    s => Vals::of(&after[s - slot - 1]),
                },
            };
            exec(&kernel.instrs[i], arg, out, inputs, pos, n);
        }
        T::store_tile(&regs[slots.of[kernel.result.index()]], tile);
        for (target, reg) in side.iter().zip(&kernel.side) {
            // SAFETY: `side_outs` checked that every side buffer holds the
            // kernel's `len` positions; this thread's chunk owns `pos..pos + n`.
            unsafe { target.store(&regs[slots.of[reg.index()]], pos, n) };
        }
        at += n;
    }
}

/// `run_chunk` compiled again with a wider instruction set, `feature`; the
/// caller checks that the CPU has it.
macro_rules! run_chunk_with {
    ($name:ident, $feature:literal) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feature)]
        unsafe fn $name<T: TileStore>(
            code: Loop<'_, '_>,
            start: usize,
            chunk: &mut [T],
            regs: &mut [RegBuf],
        ) {
            run_chunk(code, start, chunk, regs)
        }
    };
}
run_chunk_with!(run_chunk_avx2, "avx2");
run_chunk_with!(run_chunk_avx512, "avx512f");

/// Runs one instruction over `n` elements of a tile starting at output
/// position `pos`. `regs` holds the registers of earlier instructions.
#[inline(always)]
fn exec<'b>(
    instr: &Instr,
    arg: impl Fn(Reg) -> Vals<'b>,
    out: &mut RegBuf,
    inputs: &[Prepared<'_>],
    pos: usize,
    n: usize,
) {
    match *instr {
        Instr::Load { input, .. } => {
            if let Some(Prepared::Mem(buf, view)) = inputs.get(input) {
                load_tile(buf, view, pos, out, n);
            }
        }
        Instr::Unary { op, x, dtype } => {
            unary(op, arg(x), out, n);
            round_if_bf16(out, dtype, n);
        }
        Instr::Binary { op, a, b, dtype } => {
            binary(op, arg(a), arg(b), out, n);
            round_if_bf16(out, dtype, n);
        }
        Instr::Compare { op, a, b, .. } => compare(op, arg(a), arg(b), out, n),
        Instr::Where { mask, a, b, .. } => select(arg(mask), arg(a), arg(b), out, n),
        Instr::Cast { x, to, .. } => {
            cast(arg(x), out, n);
            round_if_bf16(out, to, n);
        }
    }
}

#[inline(always)]
fn load_tile(buf: &TensorData, view: &View, pos: usize, out: &mut RegBuf, n: usize) {
    match (buf, out) {
        (TensorData::F32(src), RegBuf::F(o)) => load(src, view, pos, &mut o[..n], |x| x),
        (TensorData::BF16(src), RegBuf::F(o)) => load(src, view, pos, &mut o[..n], bf16::to_f32),
        (TensorData::I32(src), RegBuf::I(o)) => load(src, view, pos, &mut o[..n], |x| x),
        (TensorData::I64(src), RegBuf::L(o)) => load(src, view, pos, &mut o[..n], |x| x),
        (TensorData::Bool(src), RegBuf::B(o)) => load(src, view, pos, &mut o[..n], |x| x),
        // The lowering gives each load its input's dtype; nothing else occurs.
        _ => {}
    }
}

#[inline(always)]
fn round_if_bf16(reg: &mut RegBuf, dtype: DType, n: usize) {
    if let (DType::BF16, RegBuf::F(v)) = (dtype, reg) {
        for x in &mut v[..n] {
            *x = round_bf16(*x);
        }
    }
}

/// `out[i] = f(x[i])` over the first `n` elements.
macro_rules! map1 {
    ($out:expr, $x:expr, $n:expr, |$a:ident| $e:expr) => {
        for (o, &$a) in $out[..$n].iter_mut().zip(&$x[..$n]) {
            *o = $e;
        }
    };
}

/// `out[i] = f(a[i], b[i])` over the first `n` elements.
macro_rules! map2 {
    ($out:expr, $x:expr, $y:expr, $n:expr, |$a:ident, $b:ident| $e:expr) => {
        for ((o, &$a), &$b) in $out[..$n].iter_mut().zip(&$x[..$n]).zip(&$y[..$n]) {
            *o = $e;
        }
    };
}

#[inline(always)]
fn unary(op: UnaryOp, x: Vals<'_>, out: &mut RegBuf, n: usize) {
    match (x, out) {
        (Vals::F(x), RegBuf::F(o)) => match op {
            UnaryOp::Neg => map1!(o, x, n, |a| -a),
            UnaryOp::Abs => map1!(o, x, n, |a| a.abs()),
            UnaryOp::Sqrt => map1!(o, x, n, |a| a.sqrt()),
            UnaryOp::Rsqrt => map1!(o, x, n, |a| 1.0 / a.sqrt()),
            UnaryOp::Exp => map1!(o, x, n, |a| math::exp_f32(a)),
            UnaryOp::Log => map1!(o, x, n, |a| a.ln()),
            UnaryOp::Sin => map1!(o, x, n, |a| a.sin()),
            UnaryOp::Cos => map1!(o, x, n, |a| a.cos()),
            UnaryOp::Tanh => map1!(o, x, n, |a| math::tanh_f32(a)),
            UnaryOp::Acos => map1!(o, x, n, |a| a.acos()),
            UnaryOp::Asin => map1!(o, x, n, |a| a.asin()),
            // The later functions: in f64, rounded once, as the reference.
            unaries_in_f64!() | unaries_exact!() => {
                map1!(o, x, n, |a| op.f64_value(f64::from(a)).unwrap_or(f64::NAN)
                    as f32)
            }
        },
        // Only neg, abs and sign take integers (builders check); the
        // reference keeps the value under every other op, and so do we.
        (Vals::I(x), RegBuf::I(o)) => match op {
            UnaryOp::Neg => map1!(o, x, n, |a| a.wrapping_neg()),
            UnaryOp::Sign => map1!(o, x, n, |a| a.signum()),
            UnaryOp::Abs => map1!(o, x, n, |a| a.wrapping_abs()),
            unaries_float_only!() => o[..n].copy_from_slice(&x[..n]),
        },
        (Vals::L(x), RegBuf::L(o)) => match op {
            UnaryOp::Neg => map1!(o, x, n, |a| a.wrapping_neg()),
            UnaryOp::Sign => map1!(o, x, n, |a| a.signum()),
            UnaryOp::Abs => map1!(o, x, n, |a| a.wrapping_abs()),
            unaries_float_only!() => o[..n].copy_from_slice(&x[..n]),
        },
        (Vals::B(x), RegBuf::B(o)) => o[..n].copy_from_slice(&x[..n]),
        _ => {}
    }
}

/// NaN if either is NaN, else `f(x, y)`: NumPy's `maximum`/`minimum`.
#[inline(always)]
fn nan_or(x: f32, y: f32, f: fn(f32, f32) -> f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        f32::NAN
    } else {
        f(x, y)
    }
}

#[inline(always)]
fn binary(op: BinaryOp, a: Vals<'_>, b: Vals<'_>, out: &mut RegBuf, n: usize) {
    match (a, b, out) {
        (Vals::F(a), Vals::F(b), RegBuf::F(o)) => match op {
            BinaryOp::Add => map2!(o, a, b, n, |x, y| x + y),
            BinaryOp::Sub => map2!(o, a, b, n, |x, y| x - y),
            BinaryOp::Mul => map2!(o, a, b, n, |x, y| x * y),
            BinaryOp::Div => map2!(o, a, b, n, |x, y| x / y),
            BinaryOp::Pow => map2!(o, a, b, n, |x, y| x.powf(y)),
            BinaryOp::Maximum => map2!(o, a, b, n, |x, y| nan_or(x, y, f32::max)),
            BinaryOp::Minimum => map2!(o, a, b, n, |x, y| nan_or(x, y, f32::min)),
            BinaryOp::Atan2 => map2!(o, a, b, n, |x, y| x.atan2(y)),
            BinaryOp::CopySign => map2!(o, a, b, n, |x, y| x.copysign(y)),
            binaries_division!() | binaries_bitwise!() => {
                crate::division::float(op, &a[..n], &b[..n], &mut o[..n])
            }
        },
        (Vals::I(a), Vals::I(b), RegBuf::I(o)) => int32_binary(op, a, b, o, n),
        (Vals::L(a), Vals::L(b), RegBuf::L(o)) => int64_binary(op, a, b, o, n),
        (Vals::B(a), Vals::B(b), RegBuf::B(o)) => bool_binary(op, a, b, o, n),
        _ => {}
    }
}

/// The integer binaries of one width, wrapping as the reference.
macro_rules! int_binary {
    ($name:ident, $t:ty, $division:path) => {
        #[inline(always)]
        fn $name(op: BinaryOp, a: &[$t], b: &[$t], o: &mut [$t], n: usize) {
            match op {
                BinaryOp::Add => map2!(o, a, b, n, |x, y| x.wrapping_add(y)),
                BinaryOp::Sub => map2!(o, a, b, n, |x, y| x.wrapping_sub(y)),
                BinaryOp::Mul => map2!(o, a, b, n, |x, y| x.wrapping_mul(y)),
                BinaryOp::Maximum => map2!(o, a, b, n, |x, y| x.max(y)),
                BinaryOp::Minimum => map2!(o, a, b, n, |x, y| x.min(y)),
                binaries_float_only!() | binaries_division!() | binaries_bitwise!() => {
                    $division(op, &a[..n], &b[..n], &mut o[..n])
                }
            }
        }
    };
}

int_binary!(int32_binary, i32, crate::division::int32);
int_binary!(int64_binary, i64, crate::division::int64);

/// Only the bitwise ops take bool (builders check); the reference keeps
/// the left operand under the others, and so do we.
#[inline(always)]
fn bool_binary(op: BinaryOp, a: &[bool], b: &[bool], o: &mut [bool], n: usize) {
    use BinaryOp::*;
    match op {
        BitAnd => map2!(o, a, b, n, |x, y| x & y),
        BitOr => map2!(o, a, b, n, |x, y| x | y),
        BitXor => map2!(o, a, b, n, |x, y| x ^ y),
        ShiftLeft | ShiftRight | binaries_arith!() => o[..n].copy_from_slice(&a[..n]),
        binaries_float_only!() | binaries_division!() => o[..n].copy_from_slice(&a[..n]),
    }
}

#[inline(always)]
fn compare(op: CompareOp, a: Vals<'_>, b: Vals<'_>, out: &mut RegBuf, n: usize) {
    #[inline(always)]
    fn apply<T: PartialOrd + Copy>(op: CompareOp, a: &[T], b: &[T], o: &mut [bool], n: usize) {
        match op {
            CompareOp::Eq => map2!(o, a, b, n, |x, y| x == y),
            CompareOp::Ne => map2!(o, a, b, n, |x, y| x != y),
            CompareOp::Lt => map2!(o, a, b, n, |x, y| x < y),
            CompareOp::Le => map2!(o, a, b, n, |x, y| x <= y),
            CompareOp::Gt => map2!(o, a, b, n, |x, y| x > y),
            CompareOp::Ge => map2!(o, a, b, n, |x, y| x >= y),
        }
    }
    let RegBuf::B(o) = out else { return };
    match (a, b) {
        (Vals::F(a), Vals::F(b)) => apply(op, a, b, o, n),
        (Vals::I(a), Vals::I(b)) => apply(op, a, b, o, n),
        (Vals::L(a), Vals::L(b)) => apply(op, a, b, o, n),
        (Vals::B(a), Vals::B(b)) => apply(op, a, b, o, n),
        _ => o[..n].fill(false),
    }
}

#[inline(always)]
fn select(mask: Vals<'_>, a: Vals<'_>, b: Vals<'_>, out: &mut RegBuf, n: usize) {
    /// `pick` is branch-free (all-ones or all-zeros masks), so the loop
    /// vectorises.
    #[inline(always)]
    fn apply<T: Copy>(
        m: &[bool],
        a: &[T],
        b: &[T],
        o: &mut [T],
        n: usize,
        pick: impl Fn(bool, T, T) -> T,
    ) {
        for (((o, &m), &x), &y) in o[..n].iter_mut().zip(&m[..n]).zip(&a[..n]).zip(&b[..n]) {
            *o = pick(m, x, y);
        }
    }
    let Vals::B(m) = mask else { return };
    match (a, b, out) {
        (Vals::F(a), Vals::F(b), RegBuf::F(o)) => apply(m, a, b, o, n, |m, x, y| {
            let mask = u32::from(m).wrapping_neg();
            f32::from_bits((x.to_bits() & mask) | (y.to_bits() & !mask))
        }),
        (Vals::I(a), Vals::I(b), RegBuf::I(o)) => apply(m, a, b, o, n, |m, x, y| {
            let mask = i32::from(m).wrapping_neg();
            (x & mask) | (y & !mask)
        }),
        (Vals::L(a), Vals::L(b), RegBuf::L(o)) => apply(m, a, b, o, n, |m, x, y| {
            let mask = i64::from(m).wrapping_neg();
            (x & mask) | (y & !mask)
        }),
        (Vals::B(a), Vals::B(b), RegBuf::B(o)) => {
            apply(m, a, b, o, n, |m, x, y| (m & x) | (!m & y))
        }
        _ => {}
    }
}

/// The reference's casts: floats to integers truncate and saturate (NaN is
/// 0), i64 to i32 wraps, anything to bool is `!= 0`, bool to numbers 0/1.
/// The bf16 rounding of a float target happens after, in `round_if_bf16`.
#[inline(always)]
fn cast(x: Vals<'_>, out: &mut RegBuf, n: usize) {
    match (x, out) {
        (Vals::F(x), RegBuf::F(o)) => o[..n].copy_from_slice(&x[..n]),
        (Vals::F(x), RegBuf::I(o)) => map1!(o, x, n, |a| a as i32),
        (Vals::F(x), RegBuf::L(o)) => map1!(o, x, n, |a| a as i64),
        (Vals::F(x), RegBuf::B(o)) => map1!(o, x, n, |a| a != 0.0),
        (Vals::I(x), RegBuf::F(o)) => map1!(o, x, n, |a| a as f32),
        (Vals::I(x), RegBuf::I(o)) => o[..n].copy_from_slice(&x[..n]),
        (Vals::I(x), RegBuf::L(o)) => map1!(o, x, n, |a| i64::from(a)),
        (Vals::I(x), RegBuf::B(o)) => map1!(o, x, n, |a| a != 0),
        (Vals::L(x), RegBuf::F(o)) => map1!(o, x, n, |a| a as f32),
        (Vals::L(x), RegBuf::I(o)) => map1!(o, x, n, |a| a as i32),
        (Vals::L(x), RegBuf::L(o)) => o[..n].copy_from_slice(&x[..n]),
        (Vals::L(x), RegBuf::B(o)) => map1!(o, x, n, |a| a != 0),
        (Vals::B(x), RegBuf::F(o)) => map1!(o, x, n, |a| f32::from(u8::from(a))),
        (Vals::B(x), RegBuf::I(o)) => map1!(o, x, n, |a| i32::from(a)),
        (Vals::B(x), RegBuf::L(o)) => map1!(o, x, n, |a| i64::from(a)),
        (Vals::B(x), RegBuf::B(o)) => o[..n].copy_from_slice(&x[..n]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `x + c`, then alternately `* c` and `+ c` (five instructions after
    /// the two loads), `c` a splat.
    fn chain() -> FusedKernel {
        let f = DType::F32;
        let bin = |op, a: u32| Instr::Binary {
            op,
            a: Reg(a),
            b: Reg(1),
            dtype: f,
        };
        let instrs = vec![
            Instr::Load { input: 0, dtype: f },
            Instr::Load { input: 1, dtype: f },
            bin(BinaryOp::Add, 0),
            bin(BinaryOp::Mul, 2),
            bin(BinaryOp::Add, 3),
            bin(BinaryOp::Mul, 4),
            bin(BinaryOp::Add, 5),
        ];
        FusedKernel {
            nodes: vec![None; instrs.len()],
            result: Reg(instrs.len() as u32 - 1),
            instrs,
            side: Vec::new(),
        }
    }

    #[test]
    fn dead_values_give_their_registers_back() {
        let kernel = chain();
        let x = TensorData::F32(vec![0.0; 8]);
        let inputs = [
            Prepared::Mem(&x, View::contiguous(&[8])),
            Prepared::Splat(Scalar::Float(0.5)),
        ];
        let slots = Slots::new(&kernel, &inputs, &[None; 7]);
        // The splat's, and two the load and the chain alternate in.
        assert_eq!(slots.dtypes.len(), 3, "{:?}", slots.of);
        let splat = slots.of[1];
        assert!(
            slots
                .of
                .iter()
                .enumerate()
                .all(|(i, &s)| i == 1 || s != splat),
            "the splat's register is never reused: {:?}",
            slots.of
        );
        for (i, instr) in kernel.instrs.iter().enumerate() {
            assert!(instr.args().all(|r| slots.of[r.index()] != slots.of[i]));
        }
    }

    #[test]
    fn a_reused_register_computes_the_reference_values() {
        let kernel = chain();
        let x = TensorData::F32((0..2000).map(|i| i as f32 * 0.25).collect());
        let inputs = [
            Operand::Mem(&x, &View::contiguous(&[2000])),
            Operand::Splat(Scalar::Float(0.5), DType::F32),
        ];
        let mut out = TensorData::F32(vec![0.0; 2000]);
        run(1, &kernel, &inputs, &mut out, &mut [], 2000).unwrap();
        let TensorData::F32(out) = out else {
            unreachable!()
        };
        for (i, &got) in out.iter().enumerate() {
            let c = 0.5f32;
            let want = ((((i as f32 * 0.25 + c) * c) + c) * c) + c;
            assert_eq!(got, want, "element {i}");
        }
    }

    /// Values with every special case of the compiled code: NaN, ±0,
    /// ±infinity, subnormals, the edges of `exp`'s and `tanh`'s clamps and
    /// ties of `maximum`, then pseudo-random f32 bit patterns.
    fn awkward_values(len: usize, seed: u32) -> Vec<f32> {
        let mut bits = seed;
        let specials = [
            f32::NAN,
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MIN_POSITIVE / 4.0,
            -104.5,
            // exp's clamp, and a subnormal result above it.
            -104.0,
            -100.0,
            89.5,
            9.0,
            -9.5,
            1e-8,
            88.7,
            -87.0,
            0.5,
        ];
        (0..len)
            .map(|i| match specials.get(i % 40) {
                Some(&x) => x,
                None => {
                    bits ^= bits << 13;
                    bits ^= bits >> 17;
                    bits ^= bits << 5;
                    // Exponents from 2^-20 to 2^11, both signs.
                    f32::from_bits((bits & 0x807F_FFFF) | ((107 + (bits >> 23) % 32) << 23))
                }
            })
            .collect()
    }

    /// The kernels the compiled code covers, each over inputs `x`, `y` (f32
    /// streams), a splat and `m` (a bool stream), some also over `s` (a
    /// scalar in memory): every unary function, every binary operator with
    /// a stream and with a splat, every comparison feeding `where` and a
    /// bool side output, mask logic, and scalar operands.
    fn covered_kernels() -> Vec<FusedKernel> {
        let (f, b) = (DType::F32, DType::Bool);
        let load = |input, dtype| Instr::Load { input, dtype };
        let unary = |op, x| Instr::Unary {
            op,
            x: Reg(x),
            dtype: f,
        };
        let binary = |op, a, b, dtype| Instr::Binary {
            op,
            a: Reg(a),
            b: Reg(b),
            dtype,
        };
        let compare = |op, a, b| Instr::Compare {
            op,
            a: Reg(a),
            b: Reg(b),
            dtype: f,
        };
        let select = |mask, a, b| Instr::Where {
            mask: Reg(mask),
            a: Reg(a),
            b: Reg(b),
            dtype: f,
        };
        // Registers 0 to 3 are the loads of x, y, the splat and m.
        let kernel = |body: Vec<Instr>, side: Vec<u32>| {
            let mut instrs = vec![load(0, f), load(1, f), load(2, f), load(3, b)];
            instrs.extend(body);
            FusedKernel {
                nodes: vec![None; instrs.len()],
                result: Reg(instrs.len() as u32 - 1),
                instrs,
                side: side.into_iter().map(Reg).collect(),
            }
        };
        let mut kernels = Vec::new();
        for op in [
            UnaryOp::Neg,
            UnaryOp::Abs,
            UnaryOp::Sqrt,
            UnaryOp::Rsqrt,
            UnaryOp::Exp,
            UnaryOp::Tanh,
            UnaryOp::StopGradient,
        ] {
            kernels.push(kernel(vec![unary(op, 0)], vec![]));
        }
        for op in [
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::Div,
            BinaryOp::Maximum,
            BinaryOp::Minimum,
        ] {
            // With a stream, then with the splat.
            for other in [1, 2] {
                kernels.push(kernel(vec![binary(op, 0, other, f)], vec![]));
            }
        }
        for op in CompareOp::ALL {
            let body = vec![
                compare(op, 0, 1),
                binary(BinaryOp::BitXor, 4, 3, b),
                select(5, 0, 2),
            ];
            kernels.push(kernel(body, vec![4, 5]));
        }
        // A longer chain whose values outlive several instructions.
        let body = vec![
            binary(BinaryOp::Mul, 0, 1, f),
            unary(UnaryOp::Tanh, 4),
            compare(CompareOp::Gt, 5, 2),
            binary(BinaryOp::BitAnd, 6, 3, b),
            binary(BinaryOp::BitOr, 7, 6, b),
            unary(UnaryOp::Exp, 1),
            select(8, 9, 5),
            binary(BinaryOp::Sub, 10, 4, f),
        ];
        kernels.push(kernel(body, vec![4, 8]));
        // Division by a splat power of two (compiled as a multiply by its
        // reciprocal) and by one that is not.
        for divisor in [5, 6] {
            let body = vec![load(divisor, f), binary(BinaryOp::Div, 0, 4, f)];
            kernels.push(kernel(body, vec![]));
        }
        // The scalar `s` on either side of an operator.
        let body = vec![
            load(4, f),
            binary(BinaryOp::Sub, 4, 0, f),
            binary(BinaryOp::Div, 5, 4, f),
        ];
        kernels.push(kernel(body, vec![5]));
        kernels
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn compiled_kernels_equal_the_interpreter_bit_for_bit() {
        // Every instruction set this CPU runs (AVX-512 machines run both).
        let isas = match std::env::var("SEXPGPU_JIT").as_deref() {
            Ok("0") => Vec::new(),
            _ => jit::runnable_isas(),
        };
        // Lengths with and without a partial last vector, one over two
        // threads' minimum; `y` a row broadcast over rows where the length
        // allows (rows of 7: gathered per tile; of 1040: read in place
        // but for the tile that straddles two rows); `s` one element for
        // every position.
        for len in [1, 15, 16, 37, 1040, 2080, 70_003] {
            let x = TensorData::F32(awkward_values(len, 0x2545_F491));
            let m = TensorData::Bool((0..len).map(|i| i % 3 == 0).collect());
            let s = TensorData::F32(vec![1.75]);
            let row = [1040, 7].into_iter().find(|&r| len % r == 0 && len > r);
            let (y, y_view) = match row {
                Some(r) => (
                    TensorData::F32(awkward_values(r, 0x1234_5678)),
                    View {
                        offset: 0,
                        dims: vec![len / r, r],
                        strides: vec![0, 1],
                    },
                ),
                None => (
                    TensorData::F32(awkward_values(len, 99)),
                    View::contiguous(&[len]),
                ),
            };
            let s_view = View {
                offset: 0,
                dims: vec![len],
                strides: vec![0],
            };
            let inputs = [
                Operand::Mem(&x, &View::contiguous(&[len])),
                Operand::Mem(&y, &y_view),
                Operand::Splat(Scalar::Float(-0.0), DType::F32),
                Operand::Mem(&m, &View::contiguous(&[len])),
                Operand::Mem(&s, &s_view),
                Operand::Splat(Scalar::Float(-0.125), DType::F32),
                Operand::Splat(Scalar::Float(3.0), DType::F32),
            ];
            let prepared = prepare(&inputs, len).unwrap();
            let kernels = covered_kernels();
            let cases = isas
                .iter()
                .flat_map(|&isa| kernels.iter().enumerate().map(move |k| (isa, k)));
            for (isa, (k, kernel)) in cases {
                let kinds = input_kinds(kernel, &prepared).unwrap();
                let code = jit::lookup_for(isa, kernel, &kinds);
                let code =
                    code.unwrap_or_else(|| panic!("{isa:?} kernel {k} not compiled: {kernel:?}"));
                let mut side_bufs: Vec<TensorData> = kernel
                    .side
                    .iter()
                    .map(|r| match kernel.instrs[r.index()].dtype() {
                        DType::Bool => TensorData::Bool(vec![false; len]),
                        _ => TensorData::F32(vec![0.0; len]),
                    })
                    .collect();
                let mut want_side = side_bufs.clone();
                let mut got = vec![0.0f32; len];
                let mut want = vec![0.0f32; len];
                for threads in [1, 2] {
                    let side = side_outs(kernel, &mut side_bufs, len).unwrap();
                    compiled_chunks(threads, &code, &prepared, &side, &mut got);
                    let side = side_outs(kernel, &mut want_side, len).unwrap();
                    chunks(threads, kernel, &prepared, &side, &mut want);
                    let same =
                        |g: &f32, w: &f32| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
                    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                        assert!(
                            same(g, w),
                            "{isa:?} kernel {k}, len {len}, element {i}: {g:e} vs {w:e}; {kernel:?}"
                        );
                    }
                    for (g, w) in side_bufs.iter().zip(&want_side) {
                        let equal = match (g, w) {
                            (TensorData::F32(g), TensorData::F32(w)) => {
                                g.iter().zip(w).all(|(g, w)| same(g, w))
                            }
                            _ => g == w,
                        };
                        assert!(
                            equal,
                            "{isa:?} kernel {k}, len {len}: side outputs {g:?} vs {w:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bf16_rounding_matches_half() {
        let mut bits: u32 = 0x1234_5678;
        let mut specials = vec![
            0.0f32,
            -0.0,
            1.0,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MIN_POSITIVE,
            1.0039062, // a tie
            f32::from_bits(0x3F80_8000),
            f32::from_bits(0x3F81_8000),
        ];
        for _ in 0..200_000 {
            bits ^= bits << 13;
            bits ^= bits >> 17;
            bits ^= bits << 5;
            specials.push(f32::from_bits(bits));
        }
        for x in specials {
            let want = bf16::from_f32(x).to_f32();
            let got = round_bf16(x);
            assert!(
                want.to_bits() == got.to_bits() || (want.is_nan() && got.is_nan()),
                "{x:e}: {want:e} vs {got:e}"
            );
        }
    }
}
