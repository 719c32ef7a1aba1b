//! Fused elementwise kernels compiled to AVX-512 or AVX2 machine code at
//! run time.
//!
//! The tile interpreter (`fused.rs`) runs each instruction as a loop over a
//! tile, so every value goes through L1 between instructions: a kernel of
//! twenty instructions loads and stores each element forty times, and that,
//! not arithmetic, bounds it. Here the same kernel becomes one loop over
//! vectors (16 lanes with AVX-512, 8 with AVX2) whose values stay in vector
//! registers from load to store. The arithmetic is the interpreter's,
//! operation for operation and in the same order (no fused multiply-add;
//! `exp` and `tanh` repeat `sexpgpu_graph::math` step by step), so results
//! are bit-identical.
//!
//! Covered: f32 and bool loads (streams and splats), `neg`, `abs`, `sqrt`,
//! `rsqrt`, `exp`, `tanh`, `stop-gradient`, the four arithmetic operators, `maximum`,
//! `minimum`, comparisons, `where`, and `and`/`or`/`xor` of masks, with f32
//! results and f32 or bool side outputs. Any other kernel (integers, bf16,
//! casts, the rarer functions), a kernel needing more registers than the
//! machine has, a CPU without AVX2, FMA and BMI2, or `SEXPGPU_JIT=0` keeps
//! the interpreter (`SEXPGPU_JIT=avx2` picks the AVX2 code on an AVX-512
//! machine). Code is compiled once per kernel and kept for the process.
//! One instruction differs from the interpreter's and not its result: a
//! division by a splat power of two is a multiply by the exact reciprocal.
//!
//! The compiled function is `f(srcs, dsts, n)`: `srcs[i]` points at the
//! tile's first element of kernel input `i` (f32, or bool bytes; unused for
//! splats, which are compiled in; the one element of a scalar), `dsts[0]` at the result's and
//! `dsts[1 + j]` at side output `j`'s; it computes `n` positions. The last
//! partial vector is loaded and stored under a mask, so nothing outside
//! the `n` positions is touched (bool inputs and outputs go through
//! tile-sized scratch, which `fused.rs` provides).
//!
//! The two instruction sets differ in where values live. AVX-512 keeps
//! bools in mask registers and splats in registers filled once before the
//! loop, and reads constants as embedded broadcasts. AVX2 has 16 vector
//! registers and no mask registers: a bool is a vector whose lanes' sign
//! bits are the values (what `vblendvps` and `vmovmskps` read), splats are
//! reloaded where they are used, and constants are 32-byte vectors. The
//! constant pool comes first in the code's page, so those vectors are
//! aligned.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use iced_x86::code_asm::*;
use iced_x86::BlockEncoderOptions;
use sexpgpu_graph::{math, BinaryOp, CompareOp, DType, UnaryOp};

use sexpgpu_compile::{FusedKernel, Instr, Reg};

/// How a kernel input reaches the compiled code.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Input {
    /// Elements at the pointer each call passes.
    Stream,
    /// One value for every position, compiled in: f32 bits, or 0/1.
    Splat(u32),
    /// One f32 for every position, at the pointer each call passes (a
    /// scalar argument, whose value changes between runs).
    Scalar,
}

/// The vector instruction set code is compiled for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Isa {
    /// 16 lanes, 32 registers, mask registers.
    Avx512,
    /// 8 lanes, 16 registers.
    Avx2,
}

impl Isa {
    /// f32 lanes per vector.
    fn lanes(self) -> i32 {
        match self {
            Isa::Avx512 => 16,
            Isa::Avx2 => 8,
        }
    }

    /// Vector registers that hold values (and on AVX-512 splats); the
    /// `temporaries` follow them.
    fn value_registers(self) -> usize {
        match self {
            Isa::Avx512 => 26,
            Isa::Avx2 => 12,
        }
    }

    /// The temporaries of `exp`, `tanh`, loads and stores.
    fn temporaries(self) -> [usize; 4] {
        let first = self.value_registers();
        [first, first + 1, first + 2, first + 3]
    }
}

/// The instruction sets this CPU runs, widest first (empty off x86-64
/// machines without AVX2, FMA and BMI2).
pub(crate) fn runnable_isas() -> Vec<Isa> {
    let avx2 = std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("bmi2");
    let avx512 = avx2 && std::arch::is_x86_feature_detected!("avx512f");
    [(avx512, Isa::Avx512), (avx2, Isa::Avx2)]
        .into_iter()
        .filter_map(|(runs, isa)| runs.then_some(isa))
        .collect()
}

/// The instruction set kernels are compiled for: the widest this CPU
/// runs, unless `SEXPGPU_JIT` is `0` (none) or `avx2`.
fn machine_isa() -> Option<Isa> {
    static ISA: OnceLock<Option<Isa>> = OnceLock::new();
    *ISA.get_or_init(|| {
        let choice = std::env::var("SEXPGPU_JIT").unwrap_or_default();
        let runnable = runnable_isas();
        match choice.as_str() {
            "0" => None,
            "avx2" => runnable.into_iter().find(|&isa| isa == Isa::Avx2),
            _ => runnable.first().copied(),
        }
    })
}

type Entry = unsafe extern "sysv64" fn(*const *const u8, *const *mut u8, usize);

/// A kernel's machine code, executable.
pub(crate) struct Compiled {
    /// Keeps the code mapped while `entry` may be called.
    _code: memmap2::Mmap,
    entry: Entry,
}

impl Compiled {
    /// Computes `n` positions.
    ///
    /// # Safety
    /// `srcs` holds a pointer per kernel input, each stream's valid for
    /// reads of `n` elements rounded up to 16 when the input is bool (f32
    /// tails are masked); `dsts` holds the result's pointer and one per
    /// side output, valid for writes of `n` elements (bool: rounded up to
    /// 16), none overlapping another or any source.
    pub(crate) unsafe fn run(&self, srcs: &[*const u8], dsts: &[*mut u8], n: usize) {
        // SAFETY: the caller's contract, which is the code's.
        unsafe { (self.entry)(srcs.as_ptr(), dsts.as_ptr(), n) }
    }
}

/// The compiled code for `kernel` with these inputs for this machine,
/// compiled on first use; `None` when the kernel or the machine is not
/// covered.
pub(crate) fn lookup(kernel: &FusedKernel, inputs: &[Input]) -> Option<Arc<Compiled>> {
    lookup_for(machine_isa()?, kernel, inputs)
}

/// As `lookup`, for instruction set `isa`, which this CPU must run.
pub(crate) fn lookup_for(
    isa: Isa,
    kernel: &FusedKernel,
    inputs: &[Input],
) -> Option<Arc<Compiled>> {
    type Entries = Vec<(Key, Option<Arc<Compiled>>)>;
    static CACHE: OnceLock<Mutex<HashMap<u64, Entries>>> = OnceLock::new();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (isa, &kernel.instrs, kernel.result, &kernel.side, inputs).hash(&mut hasher);
    let hash = hasher.finish();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let entries = cache.entry(hash).or_default();
    if let Some((_, code)) = entries
        .iter()
        .find(|(key, _)| key.matches(isa, kernel, inputs))
    {
        return code.clone();
    }
    let code = compile(isa, kernel, inputs).map(Arc::new);
    entries.push((Key::of(isa, kernel, inputs), code.clone()));
    code
}

/// What the code depends on: the instruction set, the instructions and
/// the inputs' kinds.
struct Key {
    isa: Isa,
    instrs: Vec<Instr>,
    result: Reg,
    side: Vec<Reg>,
    inputs: Vec<Input>,
}

impl Key {
    fn of(isa: Isa, kernel: &FusedKernel, inputs: &[Input]) -> Key {
        Key {
            isa,
            instrs: kernel.instrs.clone(),
            result: kernel.result,
            side: kernel.side.clone(),
            inputs: inputs.to_vec(),
        }
    }

    fn matches(&self, isa: Isa, kernel: &FusedKernel, inputs: &[Input]) -> bool {
        self.isa == isa
            && self.instrs == kernel.instrs
            && self.result == kernel.result
            && self.side == kernel.side
            && self.inputs == inputs
    }
}

/// AVX-512 mask registers that hold bool values (k1 is the tail mask, k7 a
/// temporary, k0 cannot mask).
const MASK_REGISTERS: [usize; 5] = [2, 3, 4, 5, 6];

const ZMM: [AsmRegisterZmm; 32] = [
    zmm0, zmm1, zmm2, zmm3, zmm4, zmm5, zmm6, zmm7, zmm8, zmm9, zmm10, zmm11, zmm12, zmm13, zmm14,
    zmm15, zmm16, zmm17, zmm18, zmm19, zmm20, zmm21, zmm22, zmm23, zmm24, zmm25, zmm26, zmm27,
    zmm28, zmm29, zmm30, zmm31,
];
const YMM: [AsmRegisterYmm; 16] = [
    ymm0, ymm1, ymm2, ymm3, ymm4, ymm5, ymm6, ymm7, ymm8, ymm9, ymm10, ymm11, ymm12, ymm13, ymm14,
    ymm15,
];
const K: [AsmRegisterK; 8] = [k0, k1, k2, k3, k4, k5, k6, k7];

/// `z` written only in the lanes of mask register `mask` (k1 to k7).
fn in_lanes(z: AsmRegisterZmm, mask: AsmRegisterK) -> AsmRegisterZmm {
    match mask {
        m if m == k1 => z.k1(),
        m if m == k2 => z.k2(),
        m if m == k3 => z.k3(),
        m if m == k4 => z.k4(),
        m if m == k5 => z.k5(),
        m if m == k6 => z.k6(),
        _ => z.k7(),
    }
}

/// Vector instruction `$op` (or `$wide` / `$narrow`: its AVX-512 and AVX2
/// forms) on vector registers given by index, as zmm or ymm registers by
/// the generator's instruction set. After `;`, a last operand: a constant's
/// bits, or `imm` and an immediate.
macro_rules! vector {
    ($g:ident . $op:ident ($($r:expr),+)) => {
        vector!($g . $op / $op ($($r),+))
    };
    ($g:ident . $op:ident ($($r:expr),+ ; $($last:tt)+)) => {
        vector!($g . $op / $op ($($r),+ ; $($last)+))
    };
    ($g:ident . $wide:ident / $narrow:ident ($($r:expr),+)) => {
        match $g.isa {
            Isa::Avx512 => $g.a.$wide($(ZMM[$r]),+),
            Isa::Avx2 => $g.a.$narrow($(YMM[$r]),+),
        }
    };
    ($g:ident . $wide:ident / $narrow:ident ($($r:expr),+ ; imm $imm:expr)) => {
        match $g.isa {
            Isa::Avx512 => $g.a.$wide($(ZMM[$r]),+, $imm),
            Isa::Avx2 => $g.a.$narrow($(YMM[$r]),+, $imm),
        }
    };
    ($g:ident . $wide:ident / $narrow:ident ($($r:expr),+ ; $bits:expr)) => {{
        let constant = $g.constant($bits);
        match $g.isa {
            Isa::Avx512 => $g.a.$wide($(ZMM[$r]),+, constant),
            Isa::Avx2 => $g.a.$narrow($(YMM[$r]),+, constant),
        }
    }};
}

/// Where an instruction's value lives during an iteration.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Loc {
    /// A vector register (f32 values; on AVX2 also bools).
    V(usize),
    /// An AVX-512 mask register (bool values).
    M(usize),
}

impl Loc {
    /// The vector register's index.
    fn v(self) -> usize {
        match self {
            Loc::V(i) => i,
            // Not reached: `allocate` gives every f32 value a vector.
            Loc::M(_) => 0,
        }
    }

    /// The mask register.
    fn m(self) -> AsmRegisterK {
        match self {
            Loc::M(i) => K[i],
            Loc::V(_) => k7,
        }
    }
}

/// Whether the code covers `instr` (the kernel's inputs are checked by
/// `allocate`).
fn covered(instr: &Instr) -> bool {
    use BinaryOp::*;
    match *instr {
        Instr::Load { dtype, .. } => matches!(dtype, DType::F32 | DType::Bool),
        Instr::Unary { op, dtype, .. } => {
            dtype == DType::F32
                && matches!(
                    op,
                    UnaryOp::Neg
                        | UnaryOp::Abs
                        | UnaryOp::Sqrt
                        | UnaryOp::Rsqrt
                        | UnaryOp::Exp
                        | UnaryOp::Tanh
                        | UnaryOp::StopGradient
                )
        }
        Instr::Binary { op, dtype, .. } => match dtype {
            DType::F32 => matches!(op, Add | Sub | Mul | Div | Maximum | Minimum),
            DType::Bool => matches!(op, BitAnd | BitOr | BitXor),
            _ => false,
        },
        Instr::Compare { dtype, .. } | Instr::Where { dtype, .. } => dtype == DType::F32,
        Instr::Cast { .. } => false,
    }
}

/// Each instruction's register, assigned in one pass as `fused.rs`'s
/// `Slots` does: an instruction takes a free register of its class, then
/// the registers of operands read for the last time are freed. On AVX-512
/// splats keep theirs for the whole loop (they are filled once, before
/// it); stored values keep theirs for the whole iteration (stores come
/// after every load, since a target may be an input read in place).
/// `None` when an instruction is not covered or the registers run out.
fn allocate(isa: Isa, kernel: &FusedKernel, inputs: &[Input]) -> Option<Vec<Loc>> {
    let count = kernel.instrs.len();
    let mut last_read: Vec<Option<usize>> = vec![None; count];
    for (i, instr) in kernel.instrs.iter().enumerate() {
        if !covered(instr) {
            return None;
        }
        if let Instr::Load { input, .. } = *instr {
            inputs.get(input)?;
        }
        for r in instr.args() {
            last_read[r.index()] = Some(i);
        }
    }
    let pinned = |i: usize| {
        isa == Isa::Avx512
            && matches!(kernel.instrs[i], Instr::Load { input, .. }
                if matches!(inputs[input], Input::Splat(_) | Input::Scalar))
    };
    let mut free = Free {
        v: (0..isa.value_registers()).rev().collect(),
        m: (isa == Isa::Avx512).then(|| MASK_REGISTERS.iter().rev().copied().collect()),
    };
    // Pinned splats first: their registers are filled before the loop, so
    // no instruction may write them.
    let mut locs: Vec<Option<Loc>> = vec![None; count];
    for (i, instr) in kernel.instrs.iter().enumerate() {
        if pinned(i) {
            locs[i] = Some(free.take(instr.dtype())?);
        }
    }
    for (i, instr) in kernel.instrs.iter().enumerate() {
        if locs[i].is_none() {
            locs[i] = Some(free.take(instr.dtype())?);
        }
        let dead = instr
            .args()
            .map(Reg::index)
            .filter(|&r| last_read[r] == Some(i))
            .chain(last_read[i].is_none().then_some(i));
        for r in dead {
            let stored = kernel.result.index() == r || kernel.side.contains(&Reg(r as u32));
            if pinned(r) || stored {
                continue;
            }
            if let Some(loc) = locs[r] {
                free.give(loc);
            }
        }
    }
    locs.into_iter().collect()
}

/// The registers not holding a live value; `m` is `None` on AVX2, where
/// bools take vectors.
struct Free {
    v: Vec<usize>,
    m: Option<Vec<usize>>,
}

impl Free {
    fn take(&mut self, dtype: DType) -> Option<Loc> {
        match (dtype, &mut self.m) {
            (DType::Bool, Some(m)) => m.pop().map(Loc::M),
            _ => self.v.pop().map(Loc::V),
        }
    }

    fn give(&mut self, loc: Loc) {
        let (free, r) = match (loc, &mut self.m) {
            (Loc::M(r), Some(m)) => (m, r),
            (Loc::V(r), _) => (&mut self.v, r),
            (Loc::M(_), None) => return,
        };
        if !free.contains(&r) {
            free.push(r);
        }
    }
}

/// Compiles `kernel` for `isa`; `None` when it is not covered. Two passes:
/// the first finds the constants the code reads, the second lays them out
/// before the code.
fn compile(isa: Isa, kernel: &FusedKernel, inputs: &[Input]) -> Option<Compiled> {
    if kernel.result_dtype() != DType::F32 {
        return None;
    }
    let locs = allocate(isa, kernel, inputs)?;
    let mut first = Gen::new(isa, kernel, inputs, locs.clone(), &[]).ok()?;
    first.emit_code().ok()?;
    let constants: Vec<u32> = first.constants.iter().map(|&(bits, _)| bits).collect();
    let mut gen = Gen::new(isa, kernel, inputs, locs, &constants).ok()?;
    let (bytes, entry) = gen.emit().ok()?;
    let mut map = memmap2::MmapMut::map_anon(bytes.len()).ok()?;
    map.copy_from_slice(&bytes);
    let code = map.make_exec().ok()?;
    // SAFETY: the mapping holds a whole function with the `Entry` ABI at
    // `entry`, assembled for this address-independent layout (branches and
    // constants are relative); `Compiled` keeps it mapped.
    let entry = unsafe { std::mem::transmute::<*const u8, Entry>(code.as_ptr().add(entry)) };
    Some(Compiled { _code: code, entry })
}

/// The code generator of one kernel.
struct Gen<'k> {
    a: CodeAssembler,
    isa: Isa,
    kernel: &'k FusedKernel,
    inputs: &'k [Input],
    locs: Vec<Loc>,
    /// The temporaries (`Isa::temporaries`).
    t: [usize; 4],
    /// The constant pool: bits and the label of their 4 bytes (AVX-512) or
    /// of 8 copies (AVX2).
    constants: Vec<(u32, CodeLabel)>,
    /// AVX2's tail masks: 8 lanes of ones then 8 of zeros.
    tail_masks: CodeLabel,
}

type Emitted<T = ()> = Result<T, IcedError>;

impl<'k> Gen<'k> {
    /// A generator whose pool holds `constants` (more are added as the
    /// code reads them).
    fn new(
        isa: Isa,
        kernel: &'k FusedKernel,
        inputs: &'k [Input],
        locs: Vec<Loc>,
        constants: &[u32],
    ) -> Emitted<Gen<'k>> {
        let mut a = CodeAssembler::new(64)?;
        let constants = constants.iter().map(|&b| (b, a.create_label())).collect();
        let tail_masks = a.create_label();
        Ok(Gen {
            a,
            isa,
            kernel,
            inputs,
            locs,
            t: isa.temporaries(),
            constants,
            tail_masks,
        })
    }

    /// The constant pool, then the function; the bytes and the function's
    /// offset in them.
    fn emit(&mut self) -> Emitted<(Vec<u8>, usize)> {
        self.emit_constants()?;
        let mut entry = self.a.create_label();
        self.a.set_label(&mut entry)?;
        self.emit_code()?;
        let result = self
            .a
            .assemble_options(0, BlockEncoderOptions::RETURN_NEW_INSTRUCTION_OFFSETS)?;
        let offset = result.label_ip(&entry)? as usize;
        Ok((result.inner.code_buffer, offset))
    }

    /// The function: splats, the loop over whole vectors, the last
    /// partial vector under a mask. (Masked loads and stores are slow on
    /// some CPUs, AMD's Zen 4 among them, so whole vectors go without.)
    fn emit_code(&mut self) -> Emitted {
        self.emit_splats()?;
        let mut whole = self.a.create_label();
        let mut tail = self.a.create_label();
        let mut done = self.a.create_label();
        let lanes = self.isa.lanes();
        // rdi: srcs, rsi: dsts, rdx: n, rcx: the position of this vector,
        // r9: the end of the whole vectors.
        self.a.xor(ecx, ecx)?;
        self.a.mov(r9, rdx)?;
        self.a.and(r9, -lanes)?;
        self.a.jz(tail)?;
        self.a.set_label(&mut whole)?;
        self.emit_body(false)?;
        self.a.add(rcx, lanes)?;
        self.a.cmp(rcx, r9)?;
        self.a.jb(whole)?;
        self.a.set_label(&mut tail)?;
        // r8: the lanes of the last vector inside `n`, if any.
        self.a.mov(r8, rdx)?;
        self.a.sub(r8, rcx)?;
        self.a.jz(done)?;
        self.emit_tail_mask()?;
        self.emit_body(true)?;
        self.a.set_label(&mut done)?;
        self.a.vzeroupper()?;
        self.a.ret()
    }

    /// The tail's mask from its lane count in r8: k1 on AVX-512; on AVX2,
    /// r10 points at 8 lanes of `tail_masks` that start with r8 of ones.
    fn emit_tail_mask(&mut self) -> Emitted {
        match self.isa {
            Isa::Avx512 => {
                self.a.mov(eax, 1)?;
                self.a.shlx(eax, eax, r8d)?;
                self.a.sub(eax, 1)?;
                self.a.kmovw(k1, eax)?;
            }
            Isa::Avx2 => {
                self.a.lea(r10, ptr(self.tail_masks))?;
                self.a.add(r10, 32)?;
                self.a.shl(r8, 2)?;
                self.a.sub(r10, r8)?;
            }
        }
        Ok(())
    }

    /// One vector's instructions, then its stores (after every load: a
    /// target may be an input the loop overwrites in place); `masked`:
    /// the tail.
    fn emit_body(&mut self, masked: bool) -> Emitted {
        for i in 0..self.kernel.instrs.len() {
            self.emit_instr(i, masked)?;
        }
        for i in 0..self.kernel.instrs.len() {
            self.emit_stores(i, masked)?;
        }
        Ok(())
    }

    /// The pool's label for `bits`, added if new.
    fn label(&mut self, bits: u32) -> CodeLabel {
        match self.constants.iter().find(|(b, _)| *b == bits) {
            Some(&(_, label)) => label,
            None => {
                let label = self.a.create_label();
                self.constants.push((bits, label));
                label
            }
        }
    }

    /// A memory operand of the constant `bits` in every lane.
    fn constant(&mut self, bits: u32) -> AsmMemoryOperand {
        let label = self.label(bits);
        match self.isa {
            Isa::Avx512 => dword_bcst(label),
            Isa::Avx2 => ymmword_ptr(label),
        }
    }

    /// Vector register `d` filled with the constant `bits`.
    fn broadcast(&mut self, d: usize, bits: u32) -> Emitted {
        let label = self.label(bits);
        match self.isa {
            Isa::Avx512 => self.a.vbroadcastss(ZMM[d], dword_ptr(label)),
            Isa::Avx2 => self.a.vmovaps(YMM[d], ymmword_ptr(label)),
        }
    }

    /// The pool: AVX2's tail masks (64 bytes), then each constant (AVX2: 8
    /// copies, so every vector is 32-byte aligned in the page).
    fn emit_constants(&mut self) -> Emitted {
        if self.isa == Isa::Avx2 {
            let mut label = self.tail_masks;
            self.a.set_label(&mut label)?;
            self.a.dd(&[u32::MAX; 8])?;
            self.a.dd(&[0; 8])?;
        }
        let copies = match self.isa {
            Isa::Avx512 => 1,
            Isa::Avx2 => 8,
        };
        for (bits, mut label) in self.constants.clone() {
            self.a.set_label(&mut label)?;
            self.a.dd(&vec![bits; copies])?;
        }
        Ok(())
    }

    /// Fills the pinned splats' registers (AVX-512), once, before the loop.
    fn emit_splats(&mut self) -> Emitted {
        if self.isa != Isa::Avx512 {
            return Ok(());
        }
        for i in 0..self.kernel.instrs.len() {
            let Instr::Load { input, .. } = self.kernel.instrs[i] else {
                continue;
            };
            match self.inputs[input] {
                Input::Splat(bits) => self.emit_splat(i, bits)?,
                Input::Scalar => self.emit_scalar(i, input)?,
                Input::Stream => {}
            }
        }
        Ok(())
    }

    /// Scalar load `i`'s value, the f32 kernel input `input` points at, in
    /// every lane of its register.
    fn emit_scalar(&mut self, i: usize, input: usize) -> Emitted {
        let v = self.locs[i].v();
        self.a.mov(rax, qword_ptr(rdi + 8 * input as i32))?;
        match self.isa {
            Isa::Avx512 => self.a.vbroadcastss(ZMM[v], dword_ptr(rax)),
            Isa::Avx2 => self.a.vbroadcastss(YMM[v], dword_ptr(rax)),
        }
    }

    /// Splat load `i`'s value, `bits`, into its register.
    fn emit_splat(&mut self, i: usize, bits: u32) -> Emitted {
        let loc = self.locs[i];
        match (loc, bits != 0) {
            (Loc::M(_), true) => self.a.kxnorw(loc.m(), loc.m(), loc.m()),
            (Loc::M(_), false) => self.a.kxorw(loc.m(), loc.m(), loc.m()),
            // AVX2 bools: all ones or all zeros.
            (Loc::V(v), true) if self.kernel.instrs[i].dtype() == DType::Bool => {
                self.a.vpcmpeqd(YMM[v], YMM[v], YMM[v])
            }
            (Loc::V(v), false) if self.kernel.instrs[i].dtype() == DType::Bool => {
                self.a.vpxor(YMM[v], YMM[v], YMM[v])
            }
            (Loc::V(v), _) => self.broadcast(v, bits),
        }
    }

    /// Instruction `i`'s value into its register.
    fn emit_instr(&mut self, i: usize, masked: bool) -> Emitted {
        let loc = self.locs[i];
        let at = |r: Reg| self.locs[r.index()];
        match self.kernel.instrs[i] {
            Instr::Load { input, dtype } => match self.inputs[input] {
                Input::Stream => self.emit_load(input, dtype, loc, masked)?,
                Input::Splat(bits) if self.isa == Isa::Avx2 => self.emit_splat(i, bits)?,
                Input::Scalar if self.isa == Isa::Avx2 => self.emit_scalar(i, input)?,
                // Pinned: filled before the loop.
                Input::Splat(_) | Input::Scalar => {}
            },
            Instr::Unary { op, x, .. } => self.emit_unary(op, at(x).v(), loc.v())?,
            Instr::Binary { op, a, b, dtype } => match (dtype, self.isa) {
                (DType::Bool, Isa::Avx512) => {
                    let (a, b, d) = (at(a).m(), at(b).m(), loc.m());
                    match op {
                        BinaryOp::BitOr => self.a.korw(d, a, b)?,
                        BinaryOp::BitXor => self.a.kxorw(d, a, b)?,
                        _ => self.a.kandw(d, a, b)?,
                    }
                }
                (DType::Bool, Isa::Avx2) => {
                    let (a, b, d) = (YMM[at(a).v()], YMM[at(b).v()], YMM[loc.v()]);
                    match op {
                        BinaryOp::BitOr => self.a.vorps(d, a, b)?,
                        BinaryOp::BitXor => self.a.vxorps(d, a, b)?,
                        _ => self.a.vandps(d, a, b)?,
                    }
                }
                _ => match self.exact_reciprocal(op, b) {
                    // `x / 2^k` is `x * 2^-k` exactly, and a multiply
                    // costs a sixteenth of a divide (an attention score's
                    // scale, a mean's count).
                    Some(reciprocal) => {
                        let (d, x) = (loc.v(), at(a).v());
                        vector!(self.vmulps(d, x; reciprocal))?
                    }
                    None => self.emit_binary(op, at(a).v(), at(b).v(), loc.v())?,
                },
            },
            Instr::Compare { op, a, b, .. } => {
                // Ordered predicates are false on NaN; `!=` is true.
                let predicate = match op {
                    CompareOp::Eq => 0x00,
                    CompareOp::Lt => 0x11,
                    CompareOp::Le => 0x12,
                    CompareOp::Ne => 0x04,
                    CompareOp::Ge => 0x1D,
                    CompareOp::Gt => 0x1E,
                };
                let (a, b) = (at(a).v(), at(b).v());
                match self.isa {
                    Isa::Avx512 => self.a.vcmpps(loc.m(), ZMM[a], ZMM[b], predicate)?,
                    Isa::Avx2 => self.a.vcmpps(YMM[loc.v()], YMM[a], YMM[b], predicate)?,
                }
            }
            Instr::Where { mask, a, b, .. } => {
                let (d, a, b) = (loc.v(), at(a).v(), at(b).v());
                match self.isa {
                    Isa::Avx512 => {
                        self.a
                            .vblendmps(in_lanes(ZMM[d], at(mask).m()), ZMM[b], ZMM[a])?
                    }
                    Isa::Avx2 => self
                        .a
                        .vblendvps(YMM[d], YMM[b], YMM[a], YMM[at(mask).v()])?,
                }
            }
            // `covered` leaves casts to the interpreter.
            Instr::Cast { .. } => {}
        }
        Ok(())
    }

    /// A stream load of kernel input `input` into `loc`; `masked`: only
    /// the tail's lanes.
    fn emit_load(&mut self, input: usize, dtype: DType, loc: Loc, masked: bool) -> Emitted {
        let t0 = self.t[0];
        self.a.mov(rax, qword_ptr(rdi + 8 * input as i32))?;
        match (dtype, self.isa, masked) {
            // Bool tiles are scratch of whole vectors.
            (DType::Bool, Isa::Avx512, _) => {
                self.a.vpmovzxbd(ZMM[t0], xmmword_ptr(rax + rcx))?;
                self.a.vptestmd(loc.m(), ZMM[t0], ZMM[t0])?;
            }
            (DType::Bool, Isa::Avx2, _) => {
                // 0 - byte: the sign bit is set exactly for a true byte.
                let v = loc.v();
                self.a.vpmovzxbd(YMM[t0], qword_ptr(rax + rcx))?;
                self.a.vpxor(YMM[v], YMM[v], YMM[v])?;
                self.a.vpsubd(YMM[v], YMM[v], YMM[t0])?;
            }
            (_, Isa::Avx512, false) => self.a.vmovups(ZMM[loc.v()], zmmword_ptr(rax + rcx * 4))?,
            (_, Isa::Avx512, true) => self
                .a
                .vmovups(ZMM[loc.v()].k1().z(), zmmword_ptr(rax + rcx * 4))?,
            (_, Isa::Avx2, false) => self.a.vmovups(YMM[loc.v()], ymmword_ptr(rax + rcx * 4))?,
            (_, Isa::Avx2, true) => {
                self.a.vmovups(YMM[t0], ymmword_ptr(r10))?;
                self.a
                    .vmaskmovps(YMM[loc.v()], YMM[t0], ymmword_ptr(rax + rcx * 4))?;
            }
        }
        Ok(())
    }

    /// Stores instruction `i`'s value if it is the result or a side output.
    fn emit_stores(&mut self, i: usize, masked: bool) -> Emitted {
        let reg = Reg(i as u32);
        let targets = (self.kernel.result == reg).then_some(0).into_iter().chain(
            self.kernel
                .side
                .iter()
                .enumerate()
                .filter(|&(_, &s)| s == reg)
                .map(|(j, _)| 1 + j),
        );
        let loc = self.locs[i];
        let bool = self.kernel.instrs[i].dtype() == DType::Bool;
        let t0 = self.t[0];
        for target in targets.collect::<Vec<_>>() {
            self.a.mov(rax, qword_ptr(rsi + 8 * target as i32))?;
            match (bool, self.isa, masked) {
                (false, Isa::Avx512, false) => {
                    self.a.vmovups(zmmword_ptr(rax + rcx * 4), ZMM[loc.v()])?
                }
                (false, Isa::Avx512, true) => self
                    .a
                    .vmovups(zmmword_ptr(rax + rcx * 4).k1(), ZMM[loc.v()])?,
                (false, Isa::Avx2, false) => {
                    self.a.vmovups(ymmword_ptr(rax + rcx * 4), YMM[loc.v()])?
                }
                (false, Isa::Avx2, true) => {
                    self.a.vmovups(YMM[t0], ymmword_ptr(r10))?;
                    self.a
                        .vmaskmovps(ymmword_ptr(rax + rcx * 4), YMM[t0], YMM[loc.v()])?;
                }
                // Bools go to scratch of whole vectors.
                (true, Isa::Avx512, _) => {
                    // Lanes of 1 where the mask is set, narrowed to bytes.
                    let t = ZMM[t0];
                    self.a.vpternlogd(in_lanes(t, loc.m()).z(), t, t, 0xFF)?;
                    self.a.vpsrld(t, t, 31)?;
                    self.a.vpmovdb(xmmword_ptr(rax + rcx), t)?;
                }
                (true, Isa::Avx2, _) => {
                    // The lanes' sign bits, spread to one byte each.
                    let spread = self.label(0x0101_0101);
                    self.a.vmovmskps(r11d, YMM[loc.v()])?;
                    self.a.pdep(r11, r11, qword_ptr(spread))?;
                    self.a.mov(qword_ptr(rax + rcx), r11)?;
                }
            }
        }
        Ok(())
    }

    fn emit_unary(&mut self, op: UnaryOp, x: usize, d: usize) -> Emitted {
        let t0 = self.t[0];
        match op {
            UnaryOp::Neg => vector!(self.vpxord / vxorps(d, x; 0x8000_0000))?,
            UnaryOp::Abs => vector!(self.vpandd / vandps(d, x; 0x7FFF_FFFF))?,
            UnaryOp::Sqrt => vector!(self.vsqrtps(d, x))?,
            UnaryOp::Rsqrt => {
                vector!(self.vsqrtps(t0, x))?;
                self.broadcast(d, 1.0f32.to_bits())?;
                vector!(self.vdivps(d, d, t0))?;
            }
            UnaryOp::Exp => self.emit_exp(x, d)?,
            // The identity when running (it only stops differentiation).
            UnaryOp::StopGradient => vector!(self.vmovaps(d, x))?,
            // `covered` admits only these and tanh.
            _ => self.emit_tanh(x, d)?,
        }
        Ok(())
    }

    /// For a division by a splat power of two whose reciprocal is a normal
    /// float, the reciprocal's bits: multiplying by it rounds the same real
    /// number as dividing does, so the result is the same bit for bit.
    fn exact_reciprocal(&self, op: BinaryOp, divisor: Reg) -> Option<u32> {
        let Some(&Instr::Load {
            input,
            dtype: DType::F32,
        }) = self.kernel.instrs.get(divisor.index())
        else {
            return None;
        };
        let Some(&Input::Splat(bits)) = self.inputs.get(input) else {
            return None;
        };
        let d = f32::from_bits(bits);
        let power_of_two = d.is_normal() && bits & 0x007F_FFFF == 0;
        let reciprocal = 1.0 / d;
        (op == BinaryOp::Div && power_of_two && reciprocal.is_normal())
            .then_some(reciprocal.to_bits())
    }

    fn emit_binary(&mut self, op: BinaryOp, a: usize, b: usize, d: usize) -> Emitted {
        match op {
            BinaryOp::Add => vector!(self.vaddps(d, a, b))?,
            BinaryOp::Sub => vector!(self.vsubps(d, a, b))?,
            BinaryOp::Mul => vector!(self.vmulps(d, a, b))?,
            BinaryOp::Div => vector!(self.vdivps(d, a, b))?,
            // NumPy's maximum/minimum: NaN if either is; else `f32::max`
            // (`minimum`: `min`), which keeps `a` when the two compare
            // equal (±0): `vmaxps d, b, a` is `b > a ? b : a`.
            _ => {
                if op == BinaryOp::Maximum {
                    vector!(self.vmaxps(d, b, a))?;
                } else {
                    vector!(self.vminps(d, b, a))?;
                }
                self.emit_nan_where_unordered(a, b, d)?;
            }
        }
        Ok(())
    }

    /// Lanes where `a` or `b` is NaN become the canonical NaN in `d`.
    fn emit_nan_where_unordered(&mut self, a: usize, b: usize, d: usize) -> Emitted {
        let nan = f32::NAN.to_bits();
        match self.isa {
            Isa::Avx512 => {
                let nan = self.label(nan);
                self.a.vcmpps(k7, ZMM[a], ZMM[b], 3)?;
                self.a.vbroadcastss(ZMM[d].k7(), dword_ptr(nan))
            }
            Isa::Avx2 => {
                let (t0, nan) = (self.t[0], self.constant(nan));
                self.a.vcmpps(YMM[t0], YMM[a], YMM[b], 3)?;
                self.a.vblendvps(YMM[d], YMM[d], nan, YMM[t0])
            }
        }
    }

    /// `r = (y - n*LN2_HI) - n*LN2_LO` into T0, from `y` in T0 and
    /// `k = y*LOG2_E + ROUNDER` computed into T1; the integer `n` into T2
    /// and `n` as a float left in T1. The shared start of `exp_f32` and
    /// `expm1_nonneg`.
    fn emit_reduction(&mut self) -> Emitted {
        let [t0, t1, t2, t3] = self.t;
        let log2_e = math::LOG2_E.to_bits();
        // One operand: the float, and as an integer its bits.
        let rounder = math::ROUNDER.to_bits();
        let ln2_hi = math::LN2_HI.to_bits();
        let ln2_lo = math::LN2_LO.to_bits();
        vector!(self.vmulps(t1, t0; log2_e))?;
        vector!(self.vaddps(t1, t1; rounder))?;
        vector!(self.vpsubd(t2, t1; rounder))?;
        vector!(self.vsubps(t1, t1; rounder))?;
        vector!(self.vmulps(t3, t1; ln2_hi))?;
        vector!(self.vsubps(t0, t0, t3))?;
        vector!(self.vmulps(t3, t1; ln2_lo))?;
        vector!(self.vsubps(t0, t0, t3))?;
        Ok(())
    }

    /// Horner's rule over `coefficients` at T0, into T1 (`math::horner`:
    /// `c0*x + c1`, then times x plus the next).
    fn emit_horner(&mut self, coefficients: &[f32; 8]) -> Emitted {
        let [t0, t1, ..] = self.t;
        vector!(self.vmulps(t1, t0; coefficients[0].to_bits()))?;
        for (k, &c) in coefficients[1..].iter().enumerate() {
            if k > 0 {
                vector!(self.vmulps(t1, t1, t0))?;
            }
            vector!(self.vaddps(t1, t1; c.to_bits()))?;
        }
        Ok(())
    }

    /// `2^n` (`math::pow2`) of the integers in `n`, in place.
    fn emit_pow2(&mut self, n: usize) -> Emitted {
        vector!(self.vpaddd(n, n; 127))?;
        vector!(self.vpslld(n, n; imm 23))?;
        Ok(())
    }

    /// Lanes of `x` that are NaN replace those of `d` (both functions
    /// return a NaN argument as it is).
    fn emit_keep_nan(&mut self, x: usize, d: usize) -> Emitted {
        match self.isa {
            Isa::Avx512 => {
                self.a.vcmpps(k7, ZMM[x], ZMM[x], 3)?;
                self.a.vmovaps(ZMM[d].k7(), ZMM[x])
            }
            Isa::Avx2 => {
                let t0 = self.t[0];
                self.a.vcmpps(YMM[t0], YMM[x], YMM[x], 3)?;
                self.a.vblendvps(YMM[d], YMM[d], YMM[x], YMM[t0])
            }
        }
    }

    /// `math::exp_f32`.
    fn emit_exp(&mut self, x: usize, d: usize) -> Emitted {
        let [t0, t1, t2, t3] = self.t;
        let (low, high) = math::EXP_CLAMP;
        vector!(self.vmaxps(t0, x; low.to_bits()))?;
        vector!(self.vminps(t0, t0; high.to_bits()))?;
        // Lanes below the clamp compute from 0 and are zeroed at the end
        // (no subnormal products: see `math::exp_f32`).
        self.emit_zero_below(x, t0, low)?;
        self.emit_reduction()?;
        self.emit_horner(&math::EXP_TAYLOR)?;
        // half = n >> 1; p * 2^half * 2^(n - half).
        vector!(self.vpsrad(t3, t2; imm 1))?;
        vector!(self.vpsubd(t2, t2, t3))?;
        self.emit_pow2(t3)?;
        self.emit_pow2(t2)?;
        vector!(self.vmulps(t1, t1, t3))?;
        vector!(self.vmulps(d, t1, t2))?;
        self.emit_zero_below(x, d, low)?;
        self.emit_keep_nan(x, d)
    }

    /// Lanes of `v` where `x` is below `bound` (not NaN) become +0. Uses
    /// k7 (AVX-512) or T1 (AVX2), so `v` must not be T1 there.
    fn emit_zero_below(&mut self, x: usize, v: usize, bound: f32) -> Emitted {
        const LESS_ORDERED_QUIET: u32 = 0x11;
        let bound = self.constant(bound.to_bits());
        match self.isa {
            Isa::Avx512 => {
                self.a.vcmpps(k7, ZMM[x], bound, LESS_ORDERED_QUIET)?;
                self.a.vpxord(ZMM[v].k7(), ZMM[v], ZMM[v])
            }
            Isa::Avx2 => {
                let t1 = self.t[1];
                self.a.vcmpps(YMM[t1], YMM[x], bound, LESS_ORDERED_QUIET)?;
                self.a.vandnps(YMM[v], YMM[t1], YMM[v])
            }
        }
    }

    /// `math::tanh_f32`: (e^2|x| - 1) / (e^2|x| + 1) with the sign of x.
    fn emit_tanh(&mut self, x: usize, d: usize) -> Emitted {
        let [t0, t1, t2, t3] = self.t;
        let (magnitude, sign) = (0x7FFF_FFFF, 0x8000_0000);
        let (two, one) = (2.0f32.to_bits(), 1.0f32.to_bits());
        vector!(self.vpandd / vandps(t0, x; magnitude))?;
        vector!(self.vminps(t0, t0; math::TANH_CLAMP.to_bits()))?;
        vector!(self.vmulps(t0, t0; two))?;
        // expm1_nonneg(y): 2^n (e^r - 1) + (2^n - 1).
        self.emit_reduction()?;
        self.emit_horner(&math::EXPM1_TAYLOR)?;
        vector!(self.vmulps(t1, t0, t1))?;
        self.emit_pow2(t2)?;
        vector!(self.vmulps(t1, t2, t1))?;
        vector!(self.vsubps(t3, t2; one))?;
        vector!(self.vaddps(t1, t1, t3))?;
        // t = em1 / (em1 + 2), then x's sign.
        vector!(self.vaddps(t3, t1; two))?;
        vector!(self.vdivps(t1, t1, t3))?;
        vector!(self.vpandd / vandps(t1, t1; magnitude))?;
        vector!(self.vpandd / vandps(t3, x; sign))?;
        vector!(self.vpord / vorps(d, t1, t3))?;
        self.emit_keep_nan(x, d)
    }
}
