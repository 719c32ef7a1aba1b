//! Fused elementwise kernels compiled to AVX-512 machine code at run time.
//!
//! The tile interpreter (`fused.rs`) runs each instruction as a loop over a
//! tile, so every value goes through L1 between instructions: a kernel of
//! twenty instructions loads and stores each element forty times, and that,
//! not arithmetic, bounds it. Here the same kernel becomes one loop over
//! 16-lane vectors whose values stay in the 32 vector registers from load
//! to store. The arithmetic is the interpreter's, operation for operation
//! and in the same order (no fused multiply-add; `exp` and `tanh` repeat
//! `sexpgpu_graph::math` step by step), so results are bit-identical.
//!
//! Covered: f32 and bool loads (streams and splats), `neg`, `abs`, `sqrt`,
//! `rsqrt`, `exp`, `tanh`, `stop-gradient`, the four arithmetic operators, `maximum`,
//! `minimum`, comparisons, `where`, and `and`/`or`/`xor` of masks, with f32
//! results and f32 or bool side outputs. Any other kernel (integers, bf16,
//! casts, the rarer functions), a kernel needing more registers than the
//! machine has, a CPU without AVX-512, or `SEXPGPU_JIT=0` keeps the
//! interpreter. Code is compiled once per kernel and kept for the process.
//!
//! The compiled function is `f(srcs, dsts, n)`: `srcs[i]` points at the
//! tile's first element of kernel input `i` (f32, or bool bytes; unused for
//! splats, which are compiled in), `dsts[0]` at the result's and
//! `dsts[1 + j]` at side output `j`'s; it computes `n` positions. The last
//! partial vector is loaded and stored under a mask, so nothing outside
//! the `n` positions is touched (bool inputs and outputs go through
//! tile-sized scratch, which `fused.rs` provides).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

use iced_x86::code_asm::*;
use sexpgpu_graph::{math, BinaryOp, CompareOp, DType, UnaryOp};

use crate::plan::{FusedKernel, Instr, Reg};

/// How a kernel input reaches the compiled code.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Input {
    /// Elements at the pointer each call passes.
    Stream,
    /// One value for every position, compiled in: f32 bits, or 0/1.
    Splat(u32),
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

/// The compiled code for `kernel` with these inputs, compiled on first
/// use; `None` when the kernel or the machine is not covered.
pub(crate) fn lookup(kernel: &FusedKernel, inputs: &[Input]) -> Option<Arc<Compiled>> {
    if !enabled() {
        return None;
    }
    type Entries = Vec<(Key, Option<Arc<Compiled>>)>;
    static CACHE: OnceLock<Mutex<HashMap<u64, Entries>>> = OnceLock::new();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (&kernel.instrs, kernel.result, &kernel.side, inputs).hash(&mut hasher);
    let hash = hasher.finish();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let entries = cache.entry(hash).or_default();
    if let Some((_, code)) = entries.iter().find(|(key, _)| key.matches(kernel, inputs)) {
        return code.clone();
    }
    let code = compile(kernel, inputs).map(Arc::new);
    entries.push((Key::of(kernel, inputs), code.clone()));
    code
}

/// Whether compiled kernels run: the CPU has AVX-512F and `SEXPGPU_JIT` is
/// not `0`.
fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::env::var("SEXPGPU_JIT").map_or(true, |v| v != "0")
    })
}

/// What the code depends on: the instructions and the inputs' kinds.
struct Key {
    instrs: Vec<Instr>,
    result: Reg,
    side: Vec<Reg>,
    inputs: Vec<Input>,
}

impl Key {
    fn of(kernel: &FusedKernel, inputs: &[Input]) -> Key {
        Key {
            instrs: kernel.instrs.clone(),
            result: kernel.result,
            side: kernel.side.clone(),
            inputs: inputs.to_vec(),
        }
    }

    fn matches(&self, kernel: &FusedKernel, inputs: &[Input]) -> bool {
        self.instrs == kernel.instrs
            && self.result == kernel.result
            && self.side == kernel.side
            && self.inputs == inputs
    }
}

/// Vector registers that hold values and splats; the rest are the
/// temporaries of `exp`, `tanh`, loads and stores.
const VALUE_REGISTERS: usize = 26;
/// Mask registers that hold bool values (k1 is the tail mask, k7 a
/// temporary, k0 cannot mask).
const MASK_REGISTERS: [usize; 5] = [2, 3, 4, 5, 6];

const ZMM: [AsmRegisterZmm; 32] = [
    zmm0, zmm1, zmm2, zmm3, zmm4, zmm5, zmm6, zmm7, zmm8, zmm9, zmm10, zmm11, zmm12, zmm13, zmm14,
    zmm15, zmm16, zmm17, zmm18, zmm19, zmm20, zmm21, zmm22, zmm23, zmm24, zmm25, zmm26, zmm27,
    zmm28, zmm29, zmm30, zmm31,
];
const K: [AsmRegisterK; 8] = [k0, k1, k2, k3, k4, k5, k6, k7];
const T0: AsmRegisterZmm = zmm26;
const T1: AsmRegisterZmm = zmm27;
const T2: AsmRegisterZmm = zmm28;
const T3: AsmRegisterZmm = zmm29;

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

/// Where an instruction's value lives during an iteration.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Loc {
    /// A vector register (f32 values).
    V(usize),
    /// A mask register (bool values).
    M(usize),
}

impl Loc {
    fn v(self) -> AsmRegisterZmm {
        match self {
            Loc::V(i) => ZMM[i],
            Loc::M(_) => T0,
        }
    }

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
/// the registers of operands read for the last time are freed. Splats keep
/// theirs for the whole loop (they are filled once, before it), and stored
/// values theirs for the whole iteration (stores come after every load,
/// since a target may be an input read in place). `None` when an
/// instruction is not covered or the registers run out.
fn allocate(kernel: &FusedKernel, inputs: &[Input]) -> Option<Vec<Loc>> {
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
    let splat = |i: usize| {
        matches!(kernel.instrs[i], Instr::Load { input, .. }
            if matches!(inputs[input], Input::Splat(_)))
    };
    let mut free = Free {
        v: (0..VALUE_REGISTERS).rev().collect(),
        m: MASK_REGISTERS.iter().rev().copied().collect(),
    };
    // Splats first: their registers are filled before the loop, so no
    // instruction may write them.
    let mut locs: Vec<Option<Loc>> = vec![None; count];
    for (i, instr) in kernel.instrs.iter().enumerate() {
        if splat(i) {
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
            if splat(r) || stored {
                continue;
            }
            if let Some(loc) = locs[r] {
                free.give(loc);
            }
        }
    }
    locs.into_iter().collect()
}

/// The registers not holding a live value.
struct Free {
    v: Vec<usize>,
    m: Vec<usize>,
}

impl Free {
    fn take(&mut self, dtype: DType) -> Option<Loc> {
        match dtype {
            DType::Bool => self.m.pop().map(Loc::M),
            _ => self.v.pop().map(Loc::V),
        }
    }

    fn give(&mut self, loc: Loc) {
        let (free, r) = match loc {
            Loc::V(v) => (&mut self.v, v),
            Loc::M(m) => (&mut self.m, m),
        };
        if !free.contains(&r) {
            free.push(r);
        }
    }
}

/// Compiles `kernel`; `None` when it is not covered.
fn compile(kernel: &FusedKernel, inputs: &[Input]) -> Option<Compiled> {
    if kernel.result_dtype() != DType::F32 {
        return None;
    }
    let locs = allocate(kernel, inputs)?;
    let mut gen = Gen::new(kernel, inputs, locs).ok()?;
    let bytes = gen.emit().ok()?;
    let mut map = memmap2::MmapMut::map_anon(bytes.len()).ok()?;
    map.copy_from_slice(&bytes);
    let code = map.make_exec().ok()?;
    // SAFETY: the mapping holds a whole function with the `Entry` ABI,
    // assembled for this address-independent layout (branches and
    // constants are relative); `Compiled` keeps it mapped.
    let entry = unsafe { std::mem::transmute::<*const u8, Entry>(code.as_ptr()) };
    Some(Compiled { _code: code, entry })
}

/// The code generator of one kernel.
struct Gen<'k> {
    a: CodeAssembler,
    kernel: &'k FusedKernel,
    inputs: &'k [Input],
    locs: Vec<Loc>,
    /// The constant pool: bits and the label of their 4 bytes.
    constants: Vec<(u32, CodeLabel)>,
}

type Emitted<T = ()> = Result<T, IcedError>;

impl<'k> Gen<'k> {
    fn new(kernel: &'k FusedKernel, inputs: &'k [Input], locs: Vec<Loc>) -> Emitted<Gen<'k>> {
        Ok(Gen {
            a: CodeAssembler::new(64)?,
            kernel,
            inputs,
            locs,
            constants: Vec::new(),
        })
    }

    /// The whole function: splats, the loop over whole vectors, the last
    /// partial vector under a mask, the constant pool. (Masked loads and
    /// stores are slow on some CPUs, AMD's Zen 4 among them, so whole
    /// vectors go without.)
    fn emit(&mut self) -> Emitted<Vec<u8>> {
        self.emit_splats()?;
        let mut whole = self.a.create_label();
        let mut tail = self.a.create_label();
        let mut done = self.a.create_label();
        // rdi: srcs, rsi: dsts, rdx: n, rcx: the position of this vector,
        // r9: the end of the whole vectors.
        self.a.xor(ecx, ecx)?;
        self.a.mov(r9, rdx)?;
        self.a.and(r9, -16)?;
        self.a.jz(tail)?;
        self.a.set_label(&mut whole)?;
        self.emit_body(false)?;
        self.a.add(rcx, 16)?;
        self.a.cmp(rcx, r9)?;
        self.a.jb(whole)?;
        self.a.set_label(&mut tail)?;
        // k1: the lanes of the last vector inside `n`, if any.
        self.a.mov(r8, rdx)?;
        self.a.sub(r8, rcx)?;
        self.a.jz(done)?;
        self.a.mov(eax, 1)?;
        self.a.shlx(eax, eax, r8d)?;
        self.a.sub(eax, 1)?;
        self.a.kmovw(k1, eax)?;
        self.emit_body(true)?;
        self.a.set_label(&mut done)?;
        self.a.vzeroupper()?;
        self.a.ret()?;
        self.emit_constants()?;
        self.a.assemble(0)
    }

    /// One vector's instructions, then its stores (after every load: a
    /// target may be an input the loop overwrites in place); `masked`:
    /// under k1.
    fn emit_body(&mut self, masked: bool) -> Emitted {
        for i in 0..self.kernel.instrs.len() {
            self.emit_instr(i, masked)?;
        }
        for i in 0..self.kernel.instrs.len() {
            self.emit_stores(i, masked)?;
        }
        Ok(())
    }

    /// A memory operand broadcasting the 4-byte constant `bits`.
    fn constant(&mut self, bits: u32) -> AsmMemoryOperand {
        let label = match self.constants.iter().find(|(b, _)| *b == bits) {
            Some(&(_, label)) => label,
            None => {
                let label = self.a.create_label();
                self.constants.push((bits, label));
                label
            }
        };
        dword_bcst(label)
    }

    fn float(&mut self, x: f32) -> AsmMemoryOperand {
        self.constant(x.to_bits())
    }

    /// The same constant, as a plain 4-byte operand (for `vbroadcastss`).
    fn scalar(&mut self, bits: u32) -> AsmMemoryOperand {
        self.constant(bits);
        let label = self
            .constants
            .iter()
            .find(|(b, _)| *b == bits)
            .map(|&(_, label)| label)
            .unwrap_or_default();
        dword_ptr(label)
    }

    fn emit_constants(&mut self) -> Emitted {
        for (bits, mut label) in std::mem::take(&mut self.constants) {
            self.a.set_label(&mut label)?;
            self.a.dd(&[bits])?;
        }
        Ok(())
    }

    /// Fills the splats' registers, once, before the loop.
    fn emit_splats(&mut self) -> Emitted {
        for i in 0..self.kernel.instrs.len() {
            let Instr::Load { input, dtype } = self.kernel.instrs[i] else {
                continue;
            };
            let Input::Splat(bits) = self.inputs[input] else {
                continue;
            };
            let loc = self.locs[i];
            if dtype == DType::Bool {
                let m = loc.m();
                if bits != 0 {
                    self.a.kxnorw(m, m, m)?;
                } else {
                    self.a.kxorw(m, m, m)?;
                }
            } else {
                let value = self.scalar(bits);
                self.a.vbroadcastss(loc.v(), value)?;
            }
        }
        Ok(())
    }

    /// Instruction `i`'s value into its register.
    fn emit_instr(&mut self, i: usize, masked: bool) -> Emitted {
        let loc = self.locs[i];
        let at = |r: Reg| self.locs[r.index()];
        match self.kernel.instrs[i] {
            Instr::Load { input, dtype } => {
                if self.inputs[input] == Input::Stream {
                    self.a.mov(rax, qword_ptr(rdi + 8 * input as i32))?;
                    match (dtype, masked) {
                        // Bool tiles are scratch of whole vectors.
                        (DType::Bool, _) => {
                            self.a.vpmovzxbd(T0, xmmword_ptr(rax + rcx))?;
                            self.a.vptestmd(loc.m(), T0, T0)?;
                        }
                        (_, false) => self.a.vmovups(loc.v(), zmmword_ptr(rax + rcx * 4))?,
                        (_, true) => self
                            .a
                            .vmovups(loc.v().k1().z(), zmmword_ptr(rax + rcx * 4))?,
                    }
                }
            }
            Instr::Unary { op, x, .. } => self.emit_unary(op, at(x).v(), loc.v())?,
            Instr::Binary { op, a, b, dtype } => {
                if dtype == DType::Bool {
                    let (a, b, d) = (at(a).m(), at(b).m(), loc.m());
                    match op {
                        BinaryOp::BitOr => self.a.korw(d, a, b)?,
                        BinaryOp::BitXor => self.a.kxorw(d, a, b)?,
                        _ => self.a.kandw(d, a, b)?,
                    }
                } else {
                    self.emit_binary(op, at(a).v(), at(b).v(), loc.v())?;
                }
            }
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
                self.a.vcmpps(loc.m(), at(a).v(), at(b).v(), predicate)?;
            }
            Instr::Where { mask, a, b, .. } => {
                let d = loc.v();
                self.a
                    .vblendmps(in_lanes(d, at(mask).m()), at(b).v(), at(a).v())?;
            }
            // `covered` leaves casts to the interpreter.
            Instr::Cast { .. } => {}
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
        for target in targets.collect::<Vec<_>>() {
            self.a.mov(rax, qword_ptr(rsi + 8 * target as i32))?;
            match (loc, masked) {
                (Loc::V(_), false) => self.a.vmovups(zmmword_ptr(rax + rcx * 4), loc.v())?,
                (Loc::V(_), true) => self.a.vmovups(zmmword_ptr(rax + rcx * 4).k1(), loc.v())?,
                (Loc::M(_), _) => {
                    // Lanes of 1 where the mask is set, narrowed to bytes
                    // (into scratch of whole vectors).
                    self.a.vpternlogd(in_lanes(T0, loc.m()).z(), T0, T0, 0xFF)?;
                    self.a.vpsrld(T0, T0, 31)?;
                    self.a.vpmovdb(xmmword_ptr(rax + rcx), T0)?;
                }
            }
        }
        Ok(())
    }

    fn emit_unary(&mut self, op: UnaryOp, x: AsmRegisterZmm, d: AsmRegisterZmm) -> Emitted {
        match op {
            UnaryOp::Neg => {
                let sign = self.constant(0x8000_0000);
                self.a.vpxord(d, x, sign)?;
            }
            UnaryOp::Abs => {
                let magnitude = self.constant(0x7FFF_FFFF);
                self.a.vpandd(d, x, magnitude)?;
            }
            UnaryOp::Sqrt => self.a.vsqrtps(d, x)?,
            UnaryOp::Rsqrt => {
                let one = self.scalar(1.0f32.to_bits());
                self.a.vsqrtps(T0, x)?;
                self.a.vbroadcastss(d, one)?;
                self.a.vdivps(d, d, T0)?;
            }
            UnaryOp::Exp => self.emit_exp(x, d)?,
            // The identity when running (it only stops differentiation).
            UnaryOp::StopGradient => self.a.vmovaps(d, x)?,
            // `covered` admits only these and tanh.
            _ => self.emit_tanh(x, d)?,
        }
        Ok(())
    }

    fn emit_binary(
        &mut self,
        op: BinaryOp,
        a: AsmRegisterZmm,
        b: AsmRegisterZmm,
        d: AsmRegisterZmm,
    ) -> Emitted {
        match op {
            BinaryOp::Add => self.a.vaddps(d, a, b)?,
            BinaryOp::Sub => self.a.vsubps(d, a, b)?,
            BinaryOp::Mul => self.a.vmulps(d, a, b)?,
            BinaryOp::Div => self.a.vdivps(d, a, b)?,
            // NumPy's maximum/minimum: NaN if either is; else `f32::max`
            // (`minimum`: `min`), which keeps `a` when the two compare
            // equal (±0): `vmaxps d, b, a` is `b > a ? b : a`.
            _ => {
                if op == BinaryOp::Maximum {
                    self.a.vmaxps(d, b, a)?;
                } else {
                    self.a.vminps(d, b, a)?;
                }
                let nan = self.scalar(f32::NAN.to_bits());
                self.a.vcmpps(k7, a, b, 3)?;
                self.a.vbroadcastss(d.k7(), nan)?;
            }
        }
        Ok(())
    }

    /// `r = (y - n*LN2_HI) - n*LN2_LO` into T0, from `y` in T0 and
    /// `k = y*LOG2_E + ROUNDER` computed into T1; the integer `n` into T2
    /// and `n` as a float left in T1. The shared start of `exp_f32` and
    /// `expm1_nonneg`.
    fn emit_reduction(&mut self) -> Emitted {
        let log2_e = self.float(math::LOG2_E);
        // One operand: the float, and as an integer its bits.
        let rounder = self.float(math::ROUNDER);
        let ln2_hi = self.float(math::LN2_HI);
        let ln2_lo = self.float(math::LN2_LO);
        self.a.vmulps(T1, T0, log2_e)?;
        self.a.vaddps(T1, T1, rounder)?;
        self.a.vpsubd(T2, T1, rounder)?;
        self.a.vsubps(T1, T1, rounder)?;
        self.a.vmulps(T3, T1, ln2_hi)?;
        self.a.vsubps(T0, T0, T3)?;
        self.a.vmulps(T3, T1, ln2_lo)?;
        self.a.vsubps(T0, T0, T3)?;
        Ok(())
    }

    /// Horner's rule over `coefficients` at T0, into T1 (`math::horner`:
    /// `c0*x + c1`, then times x plus the next).
    fn emit_horner(&mut self, coefficients: &[f32; 8]) -> Emitted {
        let c0 = self.float(coefficients[0]);
        self.a.vmulps(T1, T0, c0)?;
        for (k, &c) in coefficients[1..].iter().enumerate() {
            if k > 0 {
                self.a.vmulps(T1, T1, T0)?;
            }
            let c = self.float(c);
            self.a.vaddps(T1, T1, c)?;
        }
        Ok(())
    }

    /// `2^n` (`math::pow2`) of the integers in `n`, in place.
    fn emit_pow2(&mut self, n: AsmRegisterZmm) -> Emitted {
        let bias = self.constant(127);
        self.a.vpaddd(n, n, bias)?;
        self.a.vpslld(n, n, 23)?;
        Ok(())
    }

    /// Lanes of `x` that are NaN replace those of `d` (both functions
    /// return a NaN argument as it is).
    fn emit_keep_nan(&mut self, x: AsmRegisterZmm, d: AsmRegisterZmm) -> Emitted {
        self.a.vcmpps(k7, x, x, 3)?;
        self.a.vmovaps(d.k7(), x)?;
        Ok(())
    }

    /// `math::exp_f32`.
    fn emit_exp(&mut self, x: AsmRegisterZmm, d: AsmRegisterZmm) -> Emitted {
        let (low, high) = math::EXP_CLAMP;
        let low = self.float(low);
        let high = self.float(high);
        self.a.vmaxps(T0, x, low)?;
        self.a.vminps(T0, T0, high)?;
        self.emit_reduction()?;
        self.emit_horner(&math::EXP_TAYLOR)?;
        // half = n >> 1; p * 2^half * 2^(n - half).
        self.a.vpsrad(T3, T2, 1)?;
        self.a.vpsubd(T2, T2, T3)?;
        self.emit_pow2(T3)?;
        self.emit_pow2(T2)?;
        self.a.vmulps(T1, T1, T3)?;
        self.a.vmulps(d, T1, T2)?;
        self.emit_keep_nan(x, d)
    }

    /// `math::tanh_f32`: (e^2|x| - 1) / (e^2|x| + 1) with the sign of x.
    fn emit_tanh(&mut self, x: AsmRegisterZmm, d: AsmRegisterZmm) -> Emitted {
        let magnitude = self.constant(0x7FFF_FFFF);
        let sign = self.constant(0x8000_0000);
        let clamp = self.float(math::TANH_CLAMP);
        let two = self.float(2.0);
        let one = self.float(1.0);
        self.a.vpandd(T0, x, magnitude)?;
        self.a.vminps(T0, T0, clamp)?;
        self.a.vmulps(T0, T0, two)?;
        // expm1_nonneg(y): 2^n (e^r - 1) + (2^n - 1).
        self.emit_reduction()?;
        self.emit_horner(&math::EXPM1_TAYLOR)?;
        self.a.vmulps(T1, T0, T1)?;
        self.emit_pow2(T2)?;
        self.a.vmulps(T1, T2, T1)?;
        self.a.vsubps(T3, T2, one)?;
        self.a.vaddps(T1, T1, T3)?;
        // t = em1 / (em1 + 2), then x's sign.
        self.a.vaddps(T3, T1, two)?;
        self.a.vdivps(T1, T1, T3)?;
        self.a.vpandd(T1, T1, magnitude)?;
        self.a.vpandd(T3, x, sign)?;
        self.a.vpord(d, T1, T3)?;
        self.emit_keep_nan(x, d)
    }
}
