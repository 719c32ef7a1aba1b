//! The compiler's plans of the shared test graphs hold the promises every
//! backend relies on: each buffer is written once, before any launch reads
//! it; a slot holds its buffers' dtype and length; two buffers share a slot
//! only when their lives do not overlap, or when a fused loop overwrites a
//! dying input in place (`InPlace`); outputs keep slots of their own. No
//! backend runs here: the backends' tests check the values.

mod shared;

use sexpgpu_compile::{compile, cost, element_bytes, BufId, Loc, Plan, Step};
use shared::graphs::{build, Family};

/// Each buffer's launch that writes it, and the last launch that reads it
/// (`usize::MAX` for an output, which lives past the run).
fn lives(plan: &Plan) -> Result<Vec<(usize, usize)>, String> {
    let mut lives: Vec<Option<(usize, usize)>> = vec![None; plan.buffers.len()];
    for (t, launch) in plan.launches.iter().enumerate() {
        for loc in launch.step.reads() {
            match loc {
                Loc::Buf(b) => match &mut lives[b.0 as usize] {
                    Some((_, last)) => *last = t,
                    None => return Err(format!("launch {t} reads b{} before it is written", b.0)),
                },
                Loc::Arg(k) if k >= plan.arguments.len() => {
                    return Err(format!("launch {t} reads argument {k} of none"))
                }
                Loc::Const(k) if k >= plan.constants.len() => {
                    return Err(format!("launch {t} reads constant {k} of none"))
                }
                Loc::Arg(_) | Loc::Const(_) => {}
            }
        }
        for b in launch.writes() {
            let life = &mut lives[b.0 as usize];
            if life.is_some() {
                return Err(format!("launch {t} writes b{} a second time", b.0));
            }
            *life = Some((t, t));
        }
    }
    for output in &plan.outputs {
        if let Loc::Buf(b) = output.loc {
            let life = lives[b.0 as usize]
                .as_mut()
                .ok_or("an output is never written")?;
            life.1 = usize::MAX;
        }
    }
    lives
        .into_iter()
        .enumerate()
        .map(|(b, life)| life.ok_or(format!("b{b} is never written")))
        .collect()
}

/// Whether launch `t` overwrites buffer `input` in place with `target`.
fn overwrites(plan: &Plan, t: usize, input: usize, target: usize) -> bool {
    let launch = &plan.launches[t];
    let Step::Fused {
        inputs, in_place, ..
    } = &launch.step
    else {
        return false;
    };
    in_place.iter().any(|ip| {
        let reads_input = matches!(
            inputs.get(ip.input),
            Some(sexpgpu_compile::Src::Mem { loc: Loc::Buf(b), .. }) if b.0 as usize == input
        );
        reads_input && launch.writes().nth(ip.target) == Some(BufId(target as u32))
    })
}

/// Every promise of the module docs, or the first one broken.
fn check_plan(plan: &Plan) -> Result<(), String> {
    let lives = lives(plan)?;
    for (b, info) in plan.buffers.iter().enumerate() {
        let slot = plan
            .slots
            .get(info.slot)
            .ok_or(format!("b{b} has no slot"))?;
        if slot.dtype != info.dtype || slot.capacity < info.len {
            return Err(format!(
                "b{b} ({} x {}) does not fit its slot",
                info.len, info.dtype
            ));
        }
        if lives[b].1 == usize::MAX && !slot.output {
            return Err(format!(
                "output b{b} is in a slot not marked as an output's"
            ));
        }
    }
    for a in 0..plan.buffers.len() {
        for b in a + 1..plan.buffers.len() {
            if plan.buffers[a].slot != plan.buffers[b].slot {
                continue;
            }
            let ((wa, la), (wb, lb)) = (lives[a], lives[b]);
            let (first, second) = if wa <= wb { (a, b) } else { (b, a) };
            let (last_of_first, write_of_second) = (lives[first].1, lives[second].0);
            let apart = wa.max(wb) > la.min(lb);
            let handed_over = last_of_first == write_of_second
                && overwrites(plan, write_of_second, first, second);
            if !apart && !handed_over {
                return Err(format!("b{a} and b{b} share a slot while both are live"));
            }
        }
    }
    Ok(())
}

#[test]
fn plans_of_random_graphs_keep_every_buffer_promise() {
    let seeds = (0..150)
        .map(|s| (s, Family::Exact))
        .chain((1000..1150).map(|s| (s, Family::Smooth)));
    let mut failures = Vec::new();
    let mut shared_slots = 0;
    for (seed, family) in seeds {
        let b = build(seed, family);
        let program = compile(&b.g).unwrap_or_else(|e| panic!("random{seed}: {e}"));
        let plan = program.plan();
        shared_slots += plan.buffers.len() - plan.slots.len();
        if let Err(e) = check_plan(plan) {
            failures.push(format!("random{seed}: {e}\n{}", program.describe()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The check would pass vacuously if no slot were ever shared.
    assert!(
        shared_slots > 100,
        "only {shared_slots} buffers share a slot"
    );
}

/// The cost model (`sexpgpu_compile::cost`) counts every launch of the
/// random graphs' plans: each writes exactly its buffers' bytes, reads no
/// more than its operands hold, copies and fills compute nothing, and its
/// bound on every GPU of the table is a finite time.
#[test]
fn the_cost_model_counts_every_launch_of_the_random_graphs() {
    let mut flops = 0;
    for seed in (0..150).chain(1000..1150) {
        let family = if seed < 1000 {
            Family::Exact
        } else {
            Family::Smooth
        };
        let program = compile(&build(seed, family).g).unwrap();
        let plan = program.plan();
        for (i, cost) in cost::plan_costs(plan).iter().enumerate() {
            let launch = &plan.launches[i];
            let at = format!("random{seed} k{i}: {cost:?}\n{}", program.describe());
            let bytes = |loc: Loc, n: usize| (n * element_bytes(plan.loc_dtype(loc))) as u64;
            let written: u64 = launch
                .writes()
                .map(|b| bytes(Loc::Buf(b), plan.buffers[b.0 as usize].len))
                .sum();
            assert_eq!(cost.written, written, "{at}");
            let held: u64 = launch
                .step
                .reads()
                .into_iter()
                .map(|l| bytes(l, plan.loc_len(l)))
                .sum();
            assert!(cost.read <= held, "{at}");
            if matches!(launch.step, Step::Copy { .. } | Step::Fill(_)) {
                assert_eq!(cost.flops, 0, "{at}");
            }
            for gpu in &cost::GPUS {
                assert!(gpu.bound(cost).seconds().is_finite(), "{at}");
            }
            flops += cost.flops;
        }
    }
    assert!(flops > 0, "the random graphs compute something");
}

#[test]
fn plans_of_linear_layers_keep_every_buffer_promise() {
    for (name, g, _) in shared::linear::linear_layers() {
        let program = compile(&g).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = check_plan(program.plan()) {
            panic!("{name}: {e}\n{}", program.describe());
        }
    }
}

#[test]
fn a_plan_that_shares_a_live_slot_is_caught() {
    // The check itself: a launch's output forced into the slot of a
    // buffer of its dtype that the launch reads must fail it.
    let b = build(3, Family::Exact);
    let mut plan = compile(&b.g).unwrap().plan().clone();
    let (read, written) = plan
        .launches
        .iter()
        .find_map(|launch| {
            let dtype = plan.buffers[launch.out.0 as usize].dtype;
            launch.step.reads().into_iter().find_map(|l| match l {
                Loc::Buf(r) if plan.buffers[r.0 as usize].dtype == dtype => Some((r, launch.out)),
                _ => None,
            })
        })
        .expect("some launch reads a buffer of its output's dtype");
    let slot = plan.buffers[read.0 as usize].slot;
    plan.buffers[written.0 as usize].slot = slot;
    let len = plan.buffers[written.0 as usize].len;
    plan.slots[slot].capacity = plan.slots[slot].capacity.max(len);
    plan.slots[slot].output = true;
    let err = check_plan(&plan).unwrap_err();
    assert!(err.contains("share a slot while both are live"), "{err}");
}
