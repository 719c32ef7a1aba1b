//! `CudaBackend`: the `sexpgpu_compile::Backend` trait on a GPU. Each trait
//! call rebuilds its step (operand locations do not enter kernel text),
//! takes the generated code from a cache keyed by the step, compiles each
//! kernel once per device architecture with NVRTC, and queues launches on
//! the device's one stream; nothing waits for the GPU until a download.
//! Matmuls go to cuBLAS. Ids out of range are reported from the device's
//! error word at the next download.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use sexpgpu_compile::{
    Attention, Backend, Chain, Contig, Dense, Fill, InPlace, Loc, Matmul, Operand, Plan, Product,
    Reduced, Src, Step, View,
};
use sexpgpu_graph::random::stream_key;
use sexpgpu_graph::{DType, ExecError, ReduceOp, Shape, Tensor};

use crate::blaslt::BlasLt;
use crate::codegen::{self, prelude::ERROR_OPS, Gemm, GemmOperand, Kernel, Param, StepCode};
use crate::device::CudaDevice;
use crate::error::{driver, failure};
use crate::host;
use crate::memory::{element_size, DeviceBuffer, Pool};

/// Runs compiled programs on one GPU.
pub struct CudaBackend {
    pub device: CudaDevice,
    pool: Arc<Pool>,
    blas: CudaBlas,
    /// cuBLASLt, for products with a bias; `None` without its library.
    blas_lt: Option<BlasLt>,
    /// Products with a bias run by cuBLASLt's epilogue, and by the
    /// fallback (bias rows, then cuBLAS with `beta = 1`).
    biased_runs: [AtomicUsize; 2],
    /// Compiled kernels by name (a hash of the text); one architecture
    /// per backend, so the name is the (kernel, architecture) key.
    functions: Mutex<HashMap<String, CudaFunction>>,
    /// Generated code by step, so a step run every iteration is generated
    /// once: keyed by the step's hash, the entry's key compared in full.
    code: Mutex<HashMap<u64, (CodeKey, Arc<StepCode>)>>,
    /// `[set, id, axis length, op]`, written by indexing kernels.
    error_word: Mutex<CudaSlice<u64>>,
}

/// What a step's generated code depends on.
struct CodeKey {
    step: Step,
    out: DType,
    len: usize,
    dtypes: Vec<DType>,
}

impl CodeKey {
    /// The hash a `CodeKey` of these parts has, without building one.
    fn hash_of(step: &Step, out: DType, len: usize, dtypes: &[DType]) -> u64 {
        let mut h = rustc_hash::FxHasher::default();
        (step, out, len, dtypes).hash(&mut h);
        h.finish()
    }

    fn is(&self, step: &Step, out: DType, len: usize, dtypes: &[DType]) -> bool {
        self.out == out && self.len == len && self.dtypes == dtypes && self.step == *step
    }
}

/// A placeholder location: the trait hands buffers, not locations, and
/// locations never enter the generated text.
const HERE: Loc = Loc::Arg(0);

impl CudaBackend {
    pub fn new(device: CudaDevice) -> Result<CudaBackend, ExecError> {
        // One stream, so cudarc's cross-stream events are pure overhead.
        // SAFETY: every kernel and copy of this backend is on that stream.
        unsafe { device.ctx.disable_event_tracking() };
        let blas = CudaBlas::new(device.stream.clone()).map_err(driver)?;
        let blas_lt = BlasLt::open(&device.stream, device.arch);
        let error_word = device.stream.alloc_zeros::<u64>(4).map_err(driver)?;
        Ok(CudaBackend {
            device,
            pool: Arc::new(Pool::default()),
            blas,
            blas_lt,
            biased_runs: Default::default(),
            functions: Mutex::new(HashMap::new()),
            code: Mutex::new(HashMap::new()),
            error_word: Mutex::new(error_word),
        })
    }

    /// Whether cuBLASLt was loaded (products with a bias use its epilogue).
    pub fn has_blas_lt(&self) -> bool {
        self.blas_lt.is_some()
    }

    /// How many products with a bias ran by cuBLASLt's epilogue, and how
    /// many by the fallback, since the backend opened.
    pub fn biased_runs(&self) -> (usize, usize) {
        let [epilogue, fallback] = &self.biased_runs;
        (
            epilogue.load(Ordering::Relaxed),
            fallback.load(Ordering::Relaxed),
        )
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// Waits until every queued kernel and copy has finished (timing).
    pub fn synchronize(&self) -> Result<(), ExecError> {
        self.device.stream.synchronize().map_err(driver)
    }

    /// The step's generated code, from the cache when seen before.
    fn code(
        &self,
        step: &Step,
        out: DType,
        len: usize,
        dtypes: &[DType],
    ) -> Result<Arc<StepCode>, ExecError> {
        // Hashing the step costs a small fraction of formatting it as a
        // key (a GPT-2 step runs about 900 of them). Two steps of one hash
        // (or a step with a NaN constant, equal to nothing) share the entry
        // and regenerate: slower, never wrong.
        let hash = CodeKey::hash_of(step, out, len, dtypes);
        if let Some((key, c)) = self.code.lock().map_err(driver)?.get(&hash) {
            if key.is(step, out, len, dtypes) {
                return Ok(Arc::clone(c));
            }
        }
        let code = codegen::generate_step(step, out, len, |k| dtypes[k])
            .map_err(|e| failure(e.message))?;
        let code = Arc::new(code);
        let key = CodeKey {
            step: step.clone(),
            out,
            len,
            dtypes: dtypes.to_vec(),
        };
        self.code
            .lock()
            .map_err(driver)?
            .insert(hash, (key, Arc::clone(&code)));
        Ok(code)
    }

    /// The kernel compiled for this device, compiling it on first use.
    fn function(&self, k: &Kernel) -> Result<CudaFunction, ExecError> {
        if let Some(f) = self.functions.lock().map_err(driver)?.get(&k.name) {
            return Ok(f.clone());
        }
        let ptx = self
            .device
            .nvrtc
            .compile(&k.name, &k.source, self.device.arch)
            .map_err(|log| {
                failure(format!(
                    "internal: kernel {} did not compile: {log}",
                    k.name
                ))
            })?;
        let module = self
            .device
            .ctx
            .load_module(Ptx::from_src(ptx))
            .map_err(driver)?;
        let f = module.load_function(&k.name).map_err(driver)?;
        self.functions
            .lock()
            .map_err(driver)?
            .insert(k.name.clone(), f.clone());
        Ok(f)
    }

    /// Compiles every kernel of `plans` not compiled yet, `codegen::BATCH`
    /// to an NVRTC program: one compiler start for many kernels, so a
    /// training step's few hundred kernels (or a test suite's thousands)
    /// compile in seconds rather than one at a time as their steps first
    /// run.
    pub fn compile_plans<'p>(
        &self,
        plans: impl IntoIterator<Item = &'p Plan>,
    ) -> Result<(), ExecError> {
        let codes = plans
            .into_iter()
            .map(codegen::generate_plan_variants)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| failure(e.message))?;
        let known = self.functions.lock().map_err(driver)?;
        let mut todo: BTreeMap<&str, &Kernel> = BTreeMap::new();
        for k in codes.iter().flatten().flat_map(StepCode::kernels) {
            if !known.contains_key(&k.name) {
                todo.insert(&k.name, k);
            }
        }
        drop(known);
        let todo: Vec<&Kernel> = todo.into_values().collect();
        let batches: Vec<&[&Kernel]> = todo.chunks(codegen::BATCH).collect();
        let programs: Vec<(String, String)> = batches
            .iter()
            .enumerate()
            .map(|(i, batch)| (format!("sx_batch{i}"), codegen::batch_source(batch)))
            .collect();
        let compiled = self.device.nvrtc.compile_many(&programs, self.device.arch);
        for (batch, ptx) in batches.iter().zip(compiled) {
            let ptx =
                ptx.map_err(|log| failure(format!("internal: kernels did not compile: {log}")))?;
            let module = self
                .device
                .ctx
                .load_module(Ptx::from_src(ptx))
                .map_err(driver)?;
            let mut functions = self.functions.lock().map_err(driver)?;
            for k in batch.iter() {
                let f = module.load_function(&k.name).map_err(driver)?;
                functions.insert(k.name.clone(), f);
            }
        }
        Ok(())
    }

    /// Queues one kernel writing `out` (and a fused loop's `side`
    /// outputs) from `inputs`.
    fn launch(
        &self,
        k: &Kernel,
        inputs: &[&DeviceBuffer],
        out: &mut CudaSlice<u8>,
        side: &mut [DeviceBuffer],
        key: [u32; 2],
    ) -> Result<(), ExecError> {
        let (blocks, threads) = k.shape.dims();
        if blocks == 0 {
            return Ok(());
        }
        let f = self.function(k)?;
        let err = self.error_word.lock().map_err(driver)?;
        let stream = &self.device.stream;
        let mut b = stream.launch_builder(&f);
        let mut out = Some(out);
        let mut side: Vec<Option<&mut CudaSlice<u8>>> =
            side.iter_mut().map(|s| Some(s.mem_mut())).collect();
        for p in &k.params {
            match p {
                Param::Out => {
                    let o = out.take().ok_or_else(|| failure("internal: two outputs"))?;
                    b.arg(o);
                }
                Param::Side(i) => {
                    let o = side
                        .get_mut(*i)
                        .and_then(Option::take)
                        .ok_or_else(|| failure("internal: a missing side output"))?;
                    b.arg(o);
                }
                Param::Input(i) => {
                    let buf = inputs
                        .get(*i)
                        .ok_or_else(|| failure("internal: missing operand"))?;
                    b.arg(buf.mem());
                }
                Param::ErrorWord => {
                    b.arg(&*err);
                }
                Param::StreamKey => {
                    b.arg(&key[0]).arg(&key[1]);
                }
            }
        }
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the parameters are pushed in the order and with the
        // types the generated kernel declares (`Kernel::params`), and
        // every buffer is at least as long as the baked extents the
        // generator computed from the same views.
        unsafe { b.launch(cfg) }.map_err(driver)?;
        Ok(())
    }

    /// Runs a step's code: its kernels, or a cuBLAS product.
    fn run(
        &self,
        step: &Step,
        len: usize,
        inputs: &[&DeviceBuffer],
        out: &mut DeviceBuffer,
        key: [u32; 2],
    ) -> Result<(), ExecError> {
        let dtypes: Vec<DType> = inputs.iter().map(|b| b.dtype).collect();
        let code = self.code(step, out.dtype, len, &dtypes)?;
        self.launch_code(&code, inputs, out, &mut [], key)
    }

    /// Queues a step's code: its kernels, or a cuBLAS product; a fused
    /// loop's kernel also writes `side`.
    fn launch_code(
        &self,
        code: &StepCode,
        inputs: &[&DeviceBuffer],
        out: &mut DeviceBuffer,
        side: &mut [DeviceBuffer],
        key: [u32; 2],
    ) -> Result<(), ExecError> {
        match code {
            StepCode::Kernels(ks) => {
                for k in ks {
                    self.launch(k, inputs, out.mem_mut(), side, key)?;
                }
                Ok(())
            }
            StepCode::Gemm(g) => self.gemm(g, inputs, out),
        }
    }

    fn alloc_buffer(&self, dtype: DType, len: usize) -> Result<DeviceBuffer, ExecError> {
        self.pool
            .alloc(&self.device.stream, dtype, len)
            .map_err(driver)
    }

    /// A cuBLAS product, packing first the operands it cannot read; with a
    /// bias, cuBLASLt's epilogue, or else the bias written into the rows
    /// and the product added by cuBLAS.
    fn gemm(
        &self,
        g: &Gemm,
        inputs: &[&DeviceBuffer],
        out: &mut DeviceBuffer,
    ) -> Result<(), ExecError> {
        let (a, b, bias) = match (inputs, &g.bias) {
            ([a, b], None) => (*a, *b, None),
            ([a, b, bias], Some(g_bias)) => (*a, *b, Some((*bias, g_bias))),
            _ => {
                return Err(failure(
                    "internal: a matmul's operands do not match its code",
                ))
            }
        };
        let packed_a = self.packed(&g.a, a)?;
        let packed_b = self.packed(&g.b, b)?;
        let a = packed_a.as_ref().unwrap_or(a);
        let b = packed_b.as_ref().unwrap_or(b);
        let stream = &self.device.stream;
        let Some((bias, g_bias)) = bias else {
            return crate::blas::gemm(&self.blas, stream, g, (a, b), out, false);
        };
        if let Some(lt) = &self.blas_lt {
            if lt.biased_gemm(stream, g, (a, b, bias), g_bias.offset, out)? {
                self.biased_runs[0].fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
        }
        self.biased_runs[1].fetch_add(1, Ordering::Relaxed);
        self.launch(&g_bias.rows, &[a, b, bias], out.mem_mut(), &mut [], [0, 0])?;
        crate::blas::gemm(&self.blas, stream, g, (a, b), out, true)
    }

    /// The operand's packed copy, when cuBLAS cannot read its view.
    fn packed(
        &self,
        o: &GemmOperand,
        buf: &DeviceBuffer,
    ) -> Result<Option<DeviceBuffer>, ExecError> {
        let Some(pack) = &o.pack else { return Ok(None) };
        let mut scratch = self.alloc_buffer(buf.dtype, o.scratch)?;
        self.launch(pack, &[buf], scratch.mem_mut(), &mut [], [0, 0])?;
        Ok(Some(scratch))
    }

    /// Waits for the stream and reports (once) an id a kernel found out
    /// of range, with the reference's message.
    fn check_errors(&self) -> Result<(), ExecError> {
        let stream = &self.device.stream;
        let mut err = self.error_word.lock().map_err(driver)?;
        let mut word = [0u64; 4];
        stream.memcpy_dtoh(&*err, &mut word[..]).map_err(driver)?;
        stream.synchronize().map_err(driver)?;
        if word[0] == 0 {
            return Ok(());
        }
        stream.memset_zeros(&mut *err).map_err(driver)?;
        let op = ERROR_OPS.get(word[3] as usize).copied().unwrap_or("index");
        Err(failure(format!(
            "{op}: id {} is out of range for an axis of length {}",
            word[1] as i64, word[2]
        )))
    }

    fn to_host(
        &self,
        buf: &DeviceBuffer,
        offset: usize,
        shape: &Shape,
    ) -> Result<Tensor, ExecError> {
        self.check_errors()?;
        let size = element_size(buf.dtype);
        let (start, n) = (offset * size, shape.numel() * size);
        if start + n > buf.bytes() {
            return Err(failure("internal: an output reads past its buffer"));
        }
        let mut bytes = vec![0u8; n];
        if n > 0 {
            let stream = &self.device.stream;
            stream
                .memcpy_dtoh(&buf.mem().slice(start..start + n), &mut bytes[..])
                .map_err(driver)?;
            stream.synchronize().map_err(driver)?;
        }
        Tensor::new(shape.clone(), host::from_bytes(buf.dtype, &bytes))
            .map_err(|e| failure(format!("internal: {}", e.message)))
    }
}

/// One operand as a step's source, with its buffer (a splat has none). A
/// target read in place (`Operand::Written`) is a fused loop's alone,
/// which handles it before this (`CudaBackend::fused`).
fn source<'b>(
    op: &Operand<'b, DeviceBuffer>,
) -> Result<(Src, Option<&'b DeviceBuffer>), ExecError> {
    match *op {
        Operand::Mem(buf, view) => Ok((
            Src::Mem {
                loc: HERE,
                view: view.clone(),
            },
            Some(buf),
        )),
        Operand::Splat(value, dtype) => Ok((Src::Splat { value, dtype }, None)),
        Operand::Written(_) => Err(failure("internal: an in-place input reached a kernel")),
    }
}

/// The step's sources and the operands' buffers, splats kept in place.
fn sources<'b>(
    ops: &[Operand<'b, DeviceBuffer>],
) -> Result<(Vec<Src>, Vec<&'b DeviceBuffer>), ExecError> {
    let mut bufs = Vec::new();
    let srcs = ops
        .iter()
        .map(|op| {
            let (src, buf) = source(op)?;
            bufs.extend(buf);
            Ok(src)
        })
        .collect::<Result<_, ExecError>>()?;
    Ok((srcs, bufs))
}

fn contig(d: &Dense<'_, DeviceBuffer>) -> Contig {
    Contig {
        loc: HERE,
        offset: d.offset,
    }
}

impl Backend for CudaBackend {
    type Buffer = DeviceBuffer;
    type Mark = cudarc::driver::CudaEvent;

    /// An event recorded on the stream, with timing on (`--profile` only:
    /// one event a launch).
    fn mark(&self) -> Result<cudarc::driver::CudaEvent, ExecError> {
        let timed = cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
        self.device.stream.record_event(Some(timed)).map_err(driver)
    }

    fn between(
        &self,
        start: &cudarc::driver::CudaEvent,
        end: &cudarc::driver::CudaEvent,
    ) -> Result<std::time::Duration, ExecError> {
        let ms = start.elapsed_ms(end).map_err(driver)?;
        Ok(std::time::Duration::from_secs_f64(
            f64::from(ms.max(0.0)) / 1e3,
        ))
    }

    fn name(&self) -> &'static str {
        "cuda"
    }

    fn prepare(&self, plan: &Plan) -> Result<(), ExecError> {
        self.compile_plans([plan])
    }

    fn alloc(&self, dtype: DType, len: usize) -> Result<DeviceBuffer, ExecError> {
        self.alloc_buffer(dtype, len)
    }

    fn capacity(&self, buf: &DeviceBuffer) -> usize {
        buf.len
    }

    fn dtype(&self, buf: &DeviceBuffer) -> DType {
        buf.dtype
    }

    fn upload(&self, tensor: &Tensor) -> Result<DeviceBuffer, ExecError> {
        let bytes = host::to_bytes(tensor.data());
        let mut buf = self.alloc_buffer(tensor.dtype(), tensor.numel())?;
        if !bytes.is_empty() {
            let n = bytes.len();
            self.device
                .stream
                .memcpy_htod(&bytes[..], &mut buf.mem_mut().slice_mut(..n))
                .map_err(driver)?;
        }
        Ok(buf)
    }

    fn borrow_host<'t>(&self, _tensor: &'t Tensor) -> Option<&'t DeviceBuffer> {
        None
    }

    fn download(&self, buf: DeviceBuffer, shape: &Shape) -> Result<Tensor, ExecError> {
        self.to_host(&buf, 0, shape)
    }

    fn download_copy(
        &self,
        buf: &DeviceBuffer,
        offset: usize,
        shape: &Shape,
    ) -> Result<Tensor, ExecError> {
        self.to_host(buf, offset, shape)
    }

    fn duplicate(&self, buf: &DeviceBuffer, len: usize) -> Result<DeviceBuffer, ExecError> {
        let n = len * element_size(buf.dtype);
        if n > buf.bytes() {
            return Err(failure("internal: a device copy reads past its buffer"));
        }
        let mut copy = self.alloc_buffer(buf.dtype, len)?;
        if n > 0 {
            self.device
                .stream
                .memcpy_dtod(&buf.mem().slice(..n), &mut copy.mem_mut().slice_mut(..n))
                .map_err(driver)?;
        }
        Ok(copy)
    }

    fn fused(
        &self,
        chain: Chain<'_, DeviceBuffer>,
        out: &mut DeviceBuffer,
        side: &mut [DeviceBuffer],
        len: usize,
    ) -> Result<(), ExecError> {
        let Chain { kernel, inputs } = chain;
        // A target read in place (`Operand::Written`): the generated loop
        // reads it from the target's own pointer, so it takes no buffer.
        let mut srcs = Vec::with_capacity(inputs.len());
        let mut bufs = Vec::with_capacity(inputs.len());
        let mut dtypes = Vec::with_capacity(inputs.len());
        let mut in_place = Vec::new();
        for (input, op) in inputs.iter().enumerate() {
            if let Operand::Written(target) = *op {
                let held = match target.checked_sub(1) {
                    None => &*out,
                    Some(j) => side
                        .get(j)
                        .ok_or_else(|| failure("internal: an in-place input without its target"))?,
                };
                dtypes.push(held.dtype);
                in_place.push(InPlace { input, target });
                srcs.push(Src::Mem {
                    loc: HERE,
                    view: View::contiguous(&[len]),
                });
                continue;
            }
            let (src, buf) = source(op)?;
            if let Some(buf) = buf {
                dtypes.push(buf.dtype);
                bufs.push(buf);
            }
            srcs.push(src);
        }
        // The side buffers are kernel arguments; their ids never enter
        // the generated code.
        let step = Step::Fused {
            kernel: kernel.clone(),
            inputs: srcs,
            side: Vec::new(),
            in_place,
        };
        let code = self.code(&step, out.dtype, len, &dtypes)?;
        self.launch_code(&code, &bufs, out, side, [0, 0])
    }

    fn copy(
        &self,
        pieces: &[(Operand<'_, DeviceBuffer>, &View)],
        out: &mut DeviceBuffer,
    ) -> Result<(), ExecError> {
        let ops: Vec<Operand<DeviceBuffer>> = pieces.iter().map(|(o, _)| *o).collect();
        let (srcs, bufs) = sources(&ops)?;
        let pieces = srcs
            .into_iter()
            .zip(pieces.iter().map(|(_, v)| (*v).clone()))
            .collect();
        let len = out.len;
        self.run(&Step::Copy { pieces }, len, &bufs, out, [0, 0])
    }

    fn fill(
        &self,
        fill: &Fill,
        seed: u64,
        out: &mut DeviceBuffer,
        len: usize,
    ) -> Result<(), ExecError> {
        let key = match fill {
            Fill::Normal { stream, .. } | Fill::Uniform { stream, .. } => stream_key(seed, *stream),
            _ => [0, 0],
        };
        self.run(&Step::Fill(fill.clone()), len, &[], out, key)
    }

    fn reduce(
        &self,
        op: ReduceOp,
        x: Reduced<'_, DeviceBuffer>,
        dims: &[usize],
        axes: &[usize],
        out: &mut DeviceBuffer,
    ) -> Result<(), ExecError> {
        let (dims, axes) = (dims.to_vec(), axes.to_vec());
        let (step, bufs) = match x {
            Reduced::Dense(x) => {
                let input = contig(&x);
                let step = Step::Reduce {
                    op,
                    input,
                    dims,
                    axes,
                };
                (step, vec![x.buf])
            }
            Reduced::Fused(Chain { kernel, inputs }) => {
                let (inputs, bufs) = sources(inputs)?;
                let kernel = kernel.clone();
                let step = Step::FusedReduce {
                    op,
                    kernel,
                    inputs,
                    dims,
                    axes,
                };
                (step, bufs)
            }
        };
        let len = out.len;
        self.run(&step, len, &bufs, out, [0, 0])
    }

    fn matmul(
        &self,
        product: Product<'_, DeviceBuffer>,
        out: &mut DeviceBuffer,
    ) -> Result<(), ExecError> {
        let Product {
            a,
            b,
            bias,
            batch,
            m,
            k,
            n,
        } = product;
        let p = Matmul {
            a: HERE,
            a_view: a.1.clone(),
            b: HERE,
            b_view: b.1.clone(),
            bias: bias.as_ref().map(|d| Contig {
                loc: HERE,
                offset: d.offset,
            }),
            batch: batch.to_vec(),
            m,
            k,
            n,
        };
        let len = p.written();
        let step = Step::Matmul(p);
        let mut bufs = vec![a.0, b.0];
        bufs.extend(bias.map(|d| d.buf));
        self.run(&step, len, &bufs, out, [0, 0])
    }

    fn indexed(
        &self,
        step: &Step,
        operands: &[&DeviceBuffer],
        out: &mut DeviceBuffer,
        len: usize,
    ) -> Result<(), ExecError> {
        self.run(step, len, operands, out, [0, 0])
    }

    fn attention(
        &self,
        step: &Attention,
        operands: &[&DeviceBuffer],
        out: &mut DeviceBuffer,
        side: &mut [DeviceBuffer],
    ) -> Result<(), ExecError> {
        // The part and its partners (`also`), stored through the side
        // outputs, take a kernel a side (`codegen/attention.rs`): the
        // kernels the plan-level compile (`prepare`) builds.
        if side.len() < step.also.len() {
            return Err(failure(
                "internal: an attention partner without its side output",
            ));
        }
        let dtypes: Vec<DType> = operands.iter().map(|b| b.dtype).collect();
        let code = self.code(&Step::Attention(step.clone()), out.dtype, out.len, &dtypes)?;
        self.launch_code(&code, operands, out, side, [0, 0])
    }
}
