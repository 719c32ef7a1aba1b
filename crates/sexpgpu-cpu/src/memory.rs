//! Buffer placement by liveness: each logical buffer lives from the launch
//! that writes it to the last launch that reads it, and buffers whose lives
//! do not overlap share an arena slot (best fit from a free list by size,
//! per dtype). Outputs get slots of their own, since they leave with the
//! caller. Decides placement only; never allocates.

use crate::plan::{BufId, Loc, Plan, SlotInfo};

/// Fills in `plan.slots` and every buffer's slot.
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
    let mut slots: Vec<SlotInfo> = Vec::new();
    let mut free: Vec<usize> = Vec::new();
    for (launch, dying_now) in plan.launches.iter().zip(&dying) {
        for written in launch.writes() {
            let b = written.0 as usize;
            let (dtype, len) = (plan.buffers[b].dtype, plan.buffers[b].len);
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
            free.push(plan.buffers[dead.0 as usize].slot);
        }
    }
    plan.slots = slots;
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
