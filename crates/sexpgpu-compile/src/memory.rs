//! Buffer placement by liveness: each logical buffer lives from the launch
//! that writes it to the last launch that reads it, and buffers whose lives
//! do not overlap share an arena slot (best fit from a free list by size,
//! per dtype). Outputs get slots of their own, since they leave with the
//! caller, except that a fused loop may compute in place: a target of it
//! takes the slot of an f32 input that dies there and that it reads
//! position for position (`InPlace`), so the loop writes the lines it has
//! just read instead of cold memory; and a `scatter-add` adds into its
//! base's slot when the base dies there (`ScatterAdd::in_place`),
//! touching only the places named. An output takes over only a slot of
//! exactly its size, so that every output slot can be served next run by
//! a spare (an argument of the last run) instead of fresh memory. Decides
//! placement only; never allocates.

use sexpgpu_graph::DType;

use crate::plan::{BufId, InPlace, Loc, Plan, SlotInfo, Src, Step};

/// Fills in `plan.slots`, every buffer's slot and the fused loops'
/// `in_place`.
pub(crate) fn assign(plan: &mut Plan) {
    let n_bufs = plan.buffers.len();
    let mut last_read: Vec<Option<usize>> = vec![None; n_bufs];
    for (t, launch) in plan.launches.iter().enumerate() {
        for loc in launch.step.reads() {
            if let Loc::Buf(b) = loc {
                last_read[b.0 as usize] = Some(t);
            }
        }
    }
    let mut is_output = vec![false; n_bufs];
    for output in &plan.outputs {
        if let Loc::Buf(b) = output.loc {
            is_output[b.0 as usize] = true;
        }
    }
    // Buffers that die after each launch.
    let mut dying: Vec<Vec<BufId>> = vec![Vec::new(); plan.launches.len()];
    for (t, launch) in plan.launches.iter().enumerate() {
        for written in launch.writes() {
            let b = written.0 as usize;
            if !is_output[b] {
                // A buffer nobody reads dies with the launch that wrote it.
                dying[last_read[b].unwrap_or(t).max(t)].push(written);
            }
        }
    }
    let mut in_place: Vec<Vec<InPlace>> = (0..plan.launches.len())
        .map(|t| in_place_inputs(plan, t, &last_read, &is_output))
        .collect();
    let mut slots: Vec<SlotInfo> = Vec::new();
    let mut free: Vec<usize> = Vec::new();
    for (t, (launch, dying_now)) in plan.launches.iter().zip(&dying).enumerate() {
        // Buffers whose slot a target of this launch takes over.
        let mut taken_over: Vec<BufId> = Vec::new();
        for (target, written) in launch.writes().enumerate() {
            let b = written.0 as usize;
            let (dtype, len) = (plan.buffers[b].dtype, plan.buffers[b].len);
            let dying_input = in_place[t]
                .iter()
                .find(|ip| ip.target == target)
                .and_then(|ip| match &launch.step {
                    Step::Fused { inputs, .. } => match inputs.get(ip.input) {
                        Some(Src::Mem {
                            loc: Loc::Buf(input),
                            ..
                        }) => Some(*input),
                        _ => None,
                    },
                    Step::ScatterAdd(s) => match s.base.loc {
                        Loc::Buf(input) => Some(input),
                        _ => None,
                    },
                    _ => None,
                });
            // An output leaves with the caller and its slot is allocated
            // again next run, from the spares (the last run's arguments,
            // of their exact sizes) when one fits exactly: so an output
            // takes over only a slot of its own size, never one a larger
            // temporary shared.
            let too_large = |input: &BufId| {
                is_output[b] && slots[plan.buffers[input.0 as usize].slot].capacity != len
            };
            if dying_input.as_ref().is_some_and(too_large) {
                in_place[t].retain(|ip| ip.target != target);
            } else if let Some(input) = dying_input {
                let slot = plan.buffers[input.0 as usize].slot;
                slots[slot].output |= is_output[b];
                plan.buffers[b].slot = slot;
                taken_over.push(input);
                continue;
            }
            let slot = if is_output[b] {
                None
            } else {
                take_free(&mut free, &mut slots, dtype, len)
            };
            let slot = slot.unwrap_or_else(|| {
                slots.push(SlotInfo {
                    dtype,
                    capacity: len,
                    output: is_output[b],
                });
                slots.len() - 1
            });
            plan.buffers[b].slot = slot;
        }
        // Freed only after this launch's outputs are placed, so a launch
        // never writes the slot it is reading, nor two outputs one slot.
        for dead in dying_now {
            if !taken_over.contains(dead) {
                free.push(plan.buffers[dead.0 as usize].slot);
            }
        }
    }
    plan.slots = slots;
    for (launch, found) in plan.launches.iter_mut().zip(in_place) {
        match &mut launch.step {
            Step::Fused { in_place, .. } => *in_place = found,
            Step::ScatterAdd(s) => s.in_place = !found.is_empty(),
            _ => {}
        }
    }
}

/// The inputs launch `t` (a fused loop) may overwrite, one per target at
/// most: f32, read through an identity view of the loop's positions by
/// this input alone, and dying here (a buffer nothing later reads and no
/// output, or an argument no other launch reads and no output).
fn in_place_inputs(
    plan: &Plan,
    t: usize,
    last_read: &[Option<usize>],
    is_output: &[bool],
) -> Vec<InPlace> {
    let launch = &plan.launches[t];
    if let Step::ScatterAdd(s) = &launch.step {
        return scatter_in_place(plan, t, s.base.loc, last_read, is_output);
    }
    let Step::Fused { inputs, .. } = &launch.step else {
        return Vec::new();
    };
    let read_elsewhere = |k: usize| {
        plan.launches
            .iter()
            .enumerate()
            .any(|(u, other)| u != t && other.step.reads().contains(&Loc::Arg(k)))
            || plan.outputs.iter().any(|o| o.loc == Loc::Arg(k))
    };
    let dies_here = |loc: Loc| match loc {
        Loc::Buf(b) => {
            let (b, info) = (b.0 as usize, &plan.buffers[b.0 as usize]);
            !is_output[b] && last_read[b] == Some(t) && info.dtype == DType::F32
        }
        Loc::Arg(k) => {
            let arg = &plan.arguments[k];
            arg.dtype == DType::F32 && arg.shape.numel() == launch.len && !read_elsewhere(k)
        }
        Loc::Const(_) => false,
    };
    let mut found: Vec<InPlace> = Vec::new();
    for (target, written) in launch.writes().enumerate() {
        let info = &plan.buffers[written.0 as usize];
        if info.dtype != DType::F32 || info.len != launch.len {
            continue;
        }
        let candidate = inputs.iter().enumerate().position(|(i, src)| {
            let Src::Mem { loc, view } = src else {
                return false;
            };
            let identity = view.offset == 0 && view.is_contiguous() && view.numel() == launch.len;
            let alone = inputs
                .iter()
                .filter(|other| matches!(other, Src::Mem { loc: l, .. } if l == loc))
                .count()
                == 1;
            identity && alone && !found.iter().any(|f| f.input == i) && dies_here(*loc)
        });
        if let Some(input) = candidate {
            found.push(InPlace { input, target });
        }
    }
    found
}

/// A `scatter-add` adds into its base in place (input 0, target 0) when
/// the base is a buffer of its own size that dies here and is no output:
/// only the elements named are then touched, not the whole base copied.
fn scatter_in_place(
    plan: &Plan,
    t: usize,
    base: Loc,
    last_read: &[Option<usize>],
    is_output: &[bool],
) -> Vec<InPlace> {
    let Loc::Buf(b) = base else {
        return Vec::new();
    };
    let (info, out) = (
        &plan.buffers[b.0 as usize],
        &plan.buffers[plan.launches[t].out.0 as usize],
    );
    let dies_here = !is_output[b.0 as usize] && last_read[b.0 as usize] == Some(t);
    if dies_here && info.dtype == out.dtype && info.len == out.len {
        vec![InPlace {
            input: 0,
            target: 0,
        }]
    } else {
        Vec::new()
    }
}

/// The smallest free slot of `dtype` that holds `len` elements; failing
/// that, the largest free one, grown. Growing beats a new slot: the arena
/// ends up with fewer, larger allocations.
fn take_free(
    free: &mut Vec<usize>,
    slots: &mut [SlotInfo],
    dtype: sexpgpu_graph::DType,
    len: usize,
) -> Option<usize> {
    let same: Vec<usize> = (0..free.len())
        .filter(|&i| slots[free[i]].dtype == dtype)
        .collect();
    let fits = same
        .iter()
        .copied()
        .filter(|&i| slots[free[i]].capacity >= len)
        .min_by_key(|&i| slots[free[i]].capacity);
    let pick = fits.or_else(|| {
        same.iter()
            .copied()
            .max_by_key(|&i| slots[free[i]].capacity)
    })?;
    let slot = free.swap_remove(pick);
    slots[slot].capacity = slots[slot].capacity.max(len);
    Some(slot)
}
