//! Running a compiled plan on a backend: checks the arguments as the
//! reference executor does, binds them without copying where the device
//! reads host memory, launches each step into its arena slot and hands the
//! outputs back. Knows no kernel arithmetic.

use sexpgpu_graph::{ExecError, Tensor};

use crate::backend::{Backend, Chain, Dense, Operand, Product, Reduced};
use crate::plan::{Argument, BufId, Contig, InPlace, Launch, Loc, Plan, SlotInfo, Src, Step};
use crate::profile;
use crate::view::View;

/// The slots of a plan on one device, kept between runs so repeated runs
/// allocate only their outputs; and the buffers of the arguments the last
/// run was given to keep (`Program::run_given`), which the next run's
/// outputs are written into instead of new, zeroed buffers.
pub struct Arena<B: Backend> {
    slots: Vec<Option<B::Buffer>>,
    spare: Vec<B::Buffer>,
}

impl<B: Backend> Default for Arena<B> {
    fn default() -> Self {
        Arena {
            slots: Vec::new(),
            spare: Vec::new(),
        }
    }
}

impl<B: Backend> Arena<B> {
    /// The run's own argument buffers it did not overwrite in place become
    /// the spares the next run's outputs take; spares this run did not use
    /// are dropped, so at most one run's arguments are kept.
    fn keep_spares(&mut self, held: Vec<Held<'_, B::Buffer>>) {
        self.spare = held
            .into_iter()
            .filter_map(|h| match h {
                Held::Owned(buf) => Some(buf),
                _ => None,
            })
            .collect();
    }

    /// A buffer for `slot`: the one it held last run, else a spare of its
    /// dtype and size, else a new one.
    fn buffer_for(
        &mut self,
        backend: &B,
        slot: usize,
        info: &SlotInfo,
    ) -> Result<B::Buffer, ExecError> {
        if let Some(buf) = self.slots[slot].take() {
            if backend.capacity(&buf) >= info.capacity {
                return Ok(buf);
            }
        }
        let spare = self.spare.iter().position(|buf| {
            backend.capacity(buf) == info.capacity && backend.dtype(buf) == info.dtype
        });
        match spare {
            Some(i) => Ok(self.spare.swap_remove(i)),
            None => backend.alloc(info.dtype, info.capacity),
        }
    }
}

/// A compiled graph, ready to run any number of times on any backend.
/// What a backend keeps between runs lives in an `Arena` its caller
/// holds (the CPU backend's `CpuProgram` keeps one inside).
pub struct Program {
    plan: Plan,
}

/// An argument or constant: borrowed where the device reads host memory;
/// owned when uploaded, or given to the run (`Program::run_given`), and
/// then possibly taken by a fused loop that overwrites it in place.
enum Held<'t, T> {
    Borrowed(&'t T),
    Owned(T),
    /// Overwritten in place by the launch that read it last (`InPlace`).
    Taken,
}

impl<T> Held<'_, T> {
    fn get(&self) -> Option<&T> {
        match self {
            Held::Borrowed(b) => Some(b),
            Held::Owned(o) => Some(o),
            Held::Taken => None,
        }
    }
}

/// An argument of `Program::run_resident`: a host tensor (uploaded, and
/// then the run's own), or a buffer already on the backend's device,
/// either given to the run (which may overwrite it in place) or lent.
pub enum DeviceArg<'a, T> {
    Host(Tensor),
    Given(T),
    Lent(&'a T),
}

/// A result of `Program::run_resident`: downloaded to the host, or kept
/// on the device (a buffer holding at least the output's elements).
pub enum DeviceResult<T> {
    Host(Tensor),
    Kept(T),
}

fn hold<'t, B: Backend>(backend: &B, t: &'t Tensor) -> Result<Held<'t, B::Buffer>, ExecError> {
    Ok(match backend.borrow_host(t) {
        Some(b) => Held::Borrowed(b),
        None => Held::Owned(backend.upload(t)?),
    })
}

impl Program {
    pub(crate) fn new(plan: Plan) -> Program {
        Program { plan }
    }

    /// A stable, line-per-item description of the compiled program
    /// (`sexpgpu ir --stage optimized`).
    pub fn describe(&self) -> String {
        crate::describe::describe(&self.plan)
    }

    /// The plan: launches, buffers and slots.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// `run_on`, taking the arguments: their buffers, free once the run is
    /// over, hold the next run's outputs (a training step's new parameters
    /// and optimizer state go where the old ones were, with no allocation,
    /// no zeroing and no copy of the arguments by the caller).
    ///
    /// A fused loop may also compute in place over an argument it is the
    /// last to read (an optimizer's update writes the new parameter over
    /// the old one), which a borrowed argument never allows.
    pub fn run_given<B: Backend>(
        &self,
        backend: &B,
        arena: &mut Arena<B>,
        args: Vec<Tensor>,
        seed: u64,
    ) -> Result<Vec<Tensor>, ExecError> {
        self.check_args(&args)?;
        let args = args.into_iter().map(DeviceArg::Host).collect();
        self.run_resident(backend, arena, args, &[], seed)
            .map(host_results)
    }

    /// Runs on any backend, keeping its slots in `arena` for the next run.
    pub fn run_on<B: Backend>(
        &self,
        backend: &B,
        arena: &mut Arena<B>,
        args: &[Tensor],
        seed: u64,
    ) -> Result<Vec<Tensor>, ExecError> {
        self.check_args(args)?;
        let mut held = hold_all(backend, args)?;
        self.run_with(backend, arena, &mut held, seed, profile::enabled())
    }

    /// Runs on any backend with arguments that may already be on its
    /// device, keeping on the device each output whose `keep` entry is
    /// true (a training step's parameters and optimizer state, which the
    /// next step takes back as `DeviceArg::Given`). Given buffers the run
    /// did not overwrite in place become the arena's spares, which later
    /// outputs reuse, as `run_given` does with host arguments.
    pub fn run_resident<B: Backend>(
        &self,
        backend: &B,
        arena: &mut Arena<B>,
        args: Vec<DeviceArg<'_, B::Buffer>>,
        keep: &[bool],
        seed: u64,
    ) -> Result<Vec<DeviceResult<B::Buffer>>, ExecError> {
        self.check_resident_args(backend, &args)?;
        let mut held = args
            .into_iter()
            .map(|a| match a {
                DeviceArg::Host(t) => backend.adopt(t).map(Held::Owned),
                DeviceArg::Given(buf) => Ok(Held::Owned(buf)),
                DeviceArg::Lent(buf) => Ok(Held::Borrowed(buf)),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let constants = hold_constants(backend, &self.plan)?;
        let result = self
            .launch_all(
                backend,
                arena,
                &mut held,
                &constants,
                seed,
                profile::enabled(),
            )
            .and_then(|()| self.results(backend, arena, &held, &constants, keep));
        arena.keep_spares(held);
        result
    }

    /// `run_on`, adding each launch's time to the profile when `timed`.
    fn run_with<B: Backend>(
        &self,
        backend: &B,
        arena: &mut Arena<B>,
        args: &mut [Held<'_, B::Buffer>],
        seed: u64,
        timed: bool,
    ) -> Result<Vec<Tensor>, ExecError> {
        let constants = hold_constants(backend, &self.plan)?;
        self.launch_all(backend, arena, args, &constants, seed, timed)?;
        self.results(backend, arena, args, &constants, &[])
            .map(host_results)
    }

    /// Every launch of the plan in order, each into its arena slot (or an
    /// owned argument's buffer it overwrites in place); with `timed`, each
    /// launch's time (between marks on the device's queue: on a GPU, the
    /// kernels' own time) goes to the profile.
    fn launch_all<B: Backend>(
        &self,
        backend: &B,
        arena: &mut Arena<B>,
        args: &mut [Held<'_, B::Buffer>],
        constants: &[Held<'_, B::Buffer>],
        seed: u64,
        timed: bool,
    ) -> Result<(), ExecError> {
        let plan = &self.plan;
        arena.slots.resize_with(plan.slots.len(), || None);
        let mut marks = timed.then(|| Vec::with_capacity(plan.launches.len()));
        for launch in &plan.launches {
            let started = match marks {
                Some(_) => Some(backend.mark()?),
                None => None,
            };
            let slot_of = |b: BufId| plan.buffers[b.0 as usize].slot;
            // An argument's buffer becomes its target's slot's: only one
            // that holds the slot's capacity may (a later buffer of the
            // slot may be written in place over this one).
            let holds_slot = |t: usize, buf: &B::Buffer| {
                launch
                    .writes()
                    .nth(t)
                    .is_some_and(|b| backend.capacity(buf) >= plan.slots[slot_of(b)].capacity)
            };
            let (applied, mut from_args) = in_place_now(launch, args, holds_slot);
            let mut target = |t: usize, b: BufId| match from_args[t].take() {
                // The slot's buffer from an earlier run, if any, is
                // replaced by the argument's.
                Some(buf) => Ok(buf),
                None => arena.buffer_for(backend, slot_of(b), &plan.slots[slot_of(b)]),
            };
            let mut out = target(0, launch.out)?;
            let mut side = launch
                .side()
                .iter()
                .enumerate()
                .map(|(j, &b)| target(1 + j, b))
                .collect::<Result<Vec<_>, _>>()?;
            let slot = slot_of(launch.out);
            let ctx = Ctx {
                plan,
                args,
                constants,
                slots: &arena.slots,
            };
            let result = ctx.launch(backend, launch, &applied, &mut out, &mut side, seed);
            if let (Some(marks), Some(started)) = (marks.as_mut(), started) {
                marks.push((started, backend.mark()?));
            }
            arena.slots[slot] = Some(out);
            for (&b, buf) in launch.side().iter().zip(side) {
                arena.slots[slot_of(b)] = Some(buf);
            }
            result.map_err(|e| ExecError {
                message: e.message,
                node: e.node.or(Some(launch.node)),
            })?;
        }
        if let Some(marks) = &marks {
            let times = marks
                .iter()
                .map(|(start, end)| backend.between(start, end))
                .collect::<Result<Vec<_>, _>>()?;
            profile::record(plan, &times);
        }
        Ok(())
    }

    /// The plan's outputs after its launches: output `i` stays on the
    /// device when `keep[i]` (missing entries are false), else it is
    /// downloaded. A slot's buffer is handed over whole when no later
    /// output reads it; anything else is copied.
    fn results<B: Backend>(
        &self,
        backend: &B,
        arena: &mut Arena<B>,
        args: &[Held<'_, B::Buffer>],
        constants: &[Held<'_, B::Buffer>],
        keep: &[bool],
    ) -> Result<Vec<DeviceResult<B::Buffer>>, ExecError> {
        let plan = &self.plan;
        let mut results = Vec::with_capacity(plan.outputs.len());
        for (i, output) in plan.outputs.iter().enumerate() {
            let kept = keep.get(i).copied().unwrap_or(false);
            let missing = |what: &str| ExecError {
                message: format!("internal: {what}"),
                node: Some(output.node),
            };
            let buf = match output.loc {
                Loc::Buf(b) => {
                    let slot = plan.buffers[b.0 as usize].slot;
                    let used_again = plan.outputs[i + 1..].iter().any(|o| o.loc == output.loc);
                    if !used_again {
                        let buf = arena.slots[slot]
                            .take()
                            .ok_or_else(|| missing("an output buffer was never written"))?;
                        results.push(if kept {
                            DeviceResult::Kept(buf)
                        } else {
                            DeviceResult::Host(backend.download(buf, &output.shape)?)
                        });
                        continue;
                    }
                    arena.slots[slot]
                        .as_ref()
                        .ok_or_else(|| missing("an output buffer was never written"))?
                }
                Loc::Arg(k) => args
                    .get(k)
                    .and_then(Held::get)
                    .ok_or_else(|| missing("an argument output was overwritten"))?,
                Loc::Const(k) => constants
                    .get(k)
                    .and_then(Held::get)
                    .ok_or_else(|| missing("a constant is missing"))?,
            };
            results.push(if kept {
                DeviceResult::Kept(backend.duplicate(buf, output.shape.numel())?)
            } else {
                DeviceResult::Host(backend.download_copy(buf, 0, &output.shape)?)
            });
        }
        Ok(results)
    }

    /// `check_args` for arguments that may be device buffers, which have
    /// no shape of their own: their dtype must match and their length hold
    /// the argument's elements.
    fn check_resident_args<B: Backend>(
        &self,
        backend: &B,
        args: &[DeviceArg<'_, B::Buffer>],
    ) -> Result<(), ExecError> {
        let plan = &self.plan;
        if args.len() != plan.arguments.len() {
            return Err(arity_error(plan, args.len()));
        }
        for (a, arg) in plan.arguments.iter().zip(args) {
            let buf = match arg {
                DeviceArg::Host(t) => {
                    check_arg(a, t)?;
                    continue;
                }
                DeviceArg::Given(buf) => buf,
                DeviceArg::Lent(buf) => *buf,
            };
            let (dtype, len) = (backend.dtype(buf), backend.capacity(buf));
            if dtype != a.dtype || len < a.shape.numel() {
                return Err(ExecError {
                    message: format!(
                        "argument `{}` must be {} {}, got a device buffer of {len} {dtype} elements",
                        a.name, a.shape, a.dtype
                    ),
                    node: Some(a.node),
                });
            }
        }
        Ok(())
    }

    /// The reference executor's checks and messages, word for word.
    fn check_args(&self, args: &[Tensor]) -> Result<(), ExecError> {
        let plan = &self.plan;
        if args.len() != plan.arguments.len() {
            return Err(arity_error(plan, args.len()));
        }
        plan.arguments
            .iter()
            .zip(args)
            .try_for_each(|(a, arg)| check_arg(a, arg))
    }
}

/// The results of a run that kept nothing on the device.
fn host_results<T>(results: Vec<DeviceResult<T>>) -> Vec<Tensor> {
    results
        .into_iter()
        .filter_map(|r| match r {
            DeviceResult::Host(t) => Some(t),
            DeviceResult::Kept(_) => None,
        })
        .collect()
}

/// The reference executor's message for a wrong number of arguments.
fn arity_error(plan: &Plan, got: usize) -> ExecError {
    ExecError {
        message: format!(
            "graph {} takes {} arguments, got {got}",
            plan.graph_name,
            plan.arguments.len(),
        ),
        node: None,
    }
}

/// The reference executor's message for an argument of the wrong shape or dtype.
fn check_arg(a: &Argument, arg: &Tensor) -> Result<(), ExecError> {
    if arg.shape() != &a.shape || arg.dtype() != a.dtype {
        return Err(ExecError {
            message: format!(
                "argument `{}` must be {} {}, got {} {}",
                a.name,
                a.shape,
                a.dtype,
                arg.shape(),
                arg.dtype()
            ),
            node: Some(a.node),
        });
    }
    Ok(())
}

/// The plan's constants, held for a run (borrowed where the device reads
/// host memory, else uploaded).
fn hold_constants<'p, B: Backend>(
    backend: &B,
    plan: &'p Plan,
) -> Result<Vec<Held<'p, B::Buffer>>, ExecError> {
    plan.constants.iter().map(|t| hold(backend, t)).collect()
}

/// Every argument, held for a run (borrowed where the device reads host
/// memory, else uploaded).
fn hold_all<'t, B: Backend>(
    backend: &B,
    args: &'t [Tensor],
) -> Result<Vec<Held<'t, B::Buffer>>, ExecError> {
    args.iter().map(|t| hold(backend, t)).collect()
}

/// The in-place inputs `launch` uses in this run, and for each of its
/// targets (0: `out`, 1 + j: side `j`) the argument buffer it takes over:
/// a dying buffer's slot is the target's already (memory planning); an
/// argument only when the run owns it and its buffer `holds_slot` of
/// the target (and it is then taken from `args`).
fn in_place_now<T>(
    launch: &Launch,
    args: &mut [Held<'_, T>],
    holds_slot: impl Fn(usize, &T) -> bool,
) -> (Vec<InPlace>, Vec<Option<T>>) {
    let mut taken: Vec<Option<T>> = launch.writes().map(|_| None).collect();
    let Step::Fused {
        inputs, in_place, ..
    } = &launch.step
    else {
        return (Vec::new(), taken);
    };
    let mut applied = Vec::new();
    for ip in in_place {
        match inputs.get(ip.input) {
            Some(Src::Mem {
                loc: Loc::Buf(_), ..
            }) => applied.push(*ip),
            Some(Src::Mem {
                loc: Loc::Arg(k), ..
            }) => {
                let Some(held) = args.get_mut(*k) else {
                    continue;
                };
                let fits = matches!(held, Held::Owned(buf) if holds_slot(ip.target, buf));
                if !fits || ip.target >= taken.len() {
                    continue;
                }
                if let Held::Owned(buf) = std::mem::replace(held, Held::Taken) {
                    taken[ip.target] = Some(buf);
                    applied.push(*ip);
                }
            }
            _ => {}
        }
    }
    (applied, taken)
}

/// What a launch can read: arguments, constants and the other slots.
struct Ctx<'p, 'a, B: Backend> {
    plan: &'p Plan,
    args: &'a [Held<'a, B::Buffer>],
    constants: &'a [Held<'a, B::Buffer>],
    slots: &'a [Option<B::Buffer>],
}

impl<'p, 'a, B: Backend> Ctx<'p, 'a, B> {
    fn buf(&self, loc: Loc) -> Result<&'a B::Buffer, ExecError> {
        let found = match loc {
            Loc::Arg(k) => self.args.get(k).and_then(Held::get),
            Loc::Const(k) => self.constants.get(k).and_then(Held::get),
            Loc::Buf(b) => self
                .plan
                .buffers
                .get(b.0 as usize)
                .and_then(|info| self.slots.get(info.slot))
                .and_then(Option::as_ref),
        };
        found.ok_or_else(|| ExecError {
            message: format!("internal: {loc:?} is read before it is written"),
            node: None,
        })
    }

    fn dense(&self, c: Contig) -> Result<Dense<'a, B::Buffer>, ExecError> {
        Ok(Dense {
            buf: self.buf(c.loc)?,
            offset: c.offset,
        })
    }

    fn operand(&self, src: &'p Src) -> Result<Operand<'_, B::Buffer>, ExecError>
    where
        'p: 'a,
    {
        Ok(match src {
            Src::Mem { loc, view } => Operand::Mem(self.buf(*loc)?, view),
            Src::Splat { value, dtype } => Operand::Splat(*value, *dtype),
        })
    }

    fn operands(&self, srcs: &'p [Src]) -> Result<Vec<Operand<'_, B::Buffer>>, ExecError>
    where
        'p: 'a,
    {
        srcs.iter().map(|s| self.operand(s)).collect()
    }

    fn launch(
        &self,
        backend: &B,
        launch: &'p Launch,
        in_place: &[InPlace],
        out: &mut B::Buffer,
        side: &mut [B::Buffer],
        seed: u64,
    ) -> Result<(), ExecError>
    where
        'p: 'a,
    {
        match &launch.step {
            Step::Fused { kernel, inputs, .. } => {
                let operands = inputs
                    .iter()
                    .enumerate()
                    .map(|(i, src)| match in_place.iter().find(|ip| ip.input == i) {
                        Some(ip) => Ok(Operand::Written(ip.target)),
                        None => self.operand(src),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let chain = Chain {
                    kernel,
                    inputs: &operands,
                };
                backend.fused(chain, out, side, launch.len)
            }
            Step::FusedReduce {
                op,
                kernel,
                inputs,
                dims,
                axes,
            } => {
                let inputs = &self.operands(inputs)?;
                let x = Reduced::Fused(Chain { kernel, inputs });
                backend.reduce(*op, x, dims, axes, out)
            }
            Step::Copy { pieces } => {
                let pieces: Vec<(Operand<B::Buffer>, &View)> = pieces
                    .iter()
                    .map(|(s, v)| Ok((self.operand(s)?, v)))
                    .collect::<Result<_, ExecError>>()?;
                backend.copy(&pieces, out)
            }
            Step::Fill(fill) => backend.fill(fill, seed, out, launch.len),
            Step::Reduce {
                op,
                input,
                dims,
                axes,
            } => backend.reduce(*op, Reduced::Dense(self.dense(*input)?), dims, axes, out),
            Step::Matmul(p) => {
                let product = Product {
                    a: (self.buf(p.a)?, &p.a_view),
                    b: (self.buf(p.b)?, &p.b_view),
                    bias: p.bias.map(|c| self.dense(c)).transpose()?,
                    batch: &p.batch,
                    m: p.m,
                    k: p.k,
                    n: p.n,
                };
                backend.matmul(product, out)
            }
            crate::steps_indexed!() => {
                let operands = launch
                    .step
                    .reads()
                    .into_iter()
                    .map(|loc| self.buf(loc))
                    .collect::<Result<Vec<_>, _>>()?;
                backend.indexed(&launch.step, &operands, out, launch.len)
            }
            Step::Attention(step) => {
                let mut operands = Vec::with_capacity(step.operands.len());
                for (loc, _) in &step.operands {
                    operands.push(self.buf(*loc)?);
                }
                backend.attention(step, &operands, out, side)
            }
        }
    }
}
