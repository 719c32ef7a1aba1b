//! `Program::describe`: the program after fusion and scheduling, as
//! `sexpgpu ir --stage optimized` prints it: arena slots, then each kernel
//! with the node it computes, its buffer and what it reads, fused loops
//! instruction by instruction. Plain text; never runs anything.

use std::fmt::Write;

use crate::plan::{element_bytes, Contig, FusedKernel, Instr, Loc, Plan, Src, Step};

fn loc_text(plan: &Plan, loc: Loc) -> String {
    match loc {
        Loc::Arg(k) => format!("arg {}", plan.arguments[k].name),
        Loc::Const(k) => format!("const{k}"),
        Loc::Buf(b) => format!("b{}", b.0),
    }
}

fn src_text(plan: &Plan, src: &Src) -> String {
    match src {
        Src::Mem { loc, view } if view.is_contiguous() && view.offset == 0 => loc_text(plan, *loc),
        Src::Mem { loc, view } => format!("{}[{view}]", loc_text(plan, *loc)),
        Src::Splat { value, dtype } => format!("splat {value} {dtype}"),
    }
}

/// A contiguous operand: its location, and its offset when not 0.
fn contig_text(plan: &Plan, c: Contig) -> String {
    match c.offset {
        0 => loc_text(plan, c.loc),
        offset => format!("{}[offset {offset}]", loc_text(plan, c.loc)),
    }
}

fn bytes(dtype: sexpgpu_graph::DType, n: usize) -> usize {
    n * element_bytes(dtype)
}

fn size_text(b: usize) -> String {
    if b >= 1 << 20 {
        format!("{:.1} MiB", b as f64 / (1 << 20) as f64)
    } else if b >= 1 << 10 {
        format!("{:.1} KiB", b as f64 / (1 << 10) as f64)
    } else {
        format!("{b} B")
    }
}

pub(crate) fn describe(plan: &Plan) -> String {
    let mut out = String::new();
    write_header(&mut out, plan);
    for i in 0..plan.launches.len() {
        out.push_str(&describe_launch(plan, i));
    }
    let returns: Vec<String> = plan.outputs.iter().map(|o| loc_text(plan, o.loc)).collect();
    let _ = writeln!(out, "  return {}", returns.join(", "));
    out
}

/// Launch `i` as `describe` prints it: its line and a fused loop's
/// instructions.
pub(crate) fn describe_launch(plan: &Plan, i: usize) -> String {
    let mut out = String::new();
    let launch = &plan.launches[i];
    let info = &plan.buffers[launch.out.0 as usize];
    let reads = reads(plan, &launch.step);
    let _ = writeln!(
        out,
        "  k{i} {} {} -> b{} (s{}) {} {}{}{}",
        launch.step.kind(),
        launch.node,
        launch.out.0,
        info.slot,
        info.len,
        info.dtype,
        if reads.is_empty() { "" } else { " <- " },
        reads.join(", ")
    );
    if let Step::Fused { kernel, .. } | Step::FusedReduce { kernel, .. } = &launch.step {
        write_fused(&mut out, kernel);
    }
    if let Step::Attention(a) = &launch.step {
        let mask = if a.causal { ", causal" } else { "" };
        let _ = writeln!(
            out,
            "      {} problems, {} queries, {} keys, d {}, e {}{mask}",
            a.problems(),
            a.t,
            a.s,
            a.d,
            a.e
        );
        for (part, buf) in a.also.iter().zip(&a.side) {
            let info = &plan.buffers[buf.0 as usize];
            let _ = writeln!(
                out,
                "      also {} -> b{} (s{}) {} {}",
                part.name(),
                buf.0,
                info.slot,
                info.len,
                info.dtype
            );
        }
    }
    if matches!(&launch.step, Step::ScatterAdd(s) if s.in_place) {
        let _ = writeln!(out, "      adds into its base in place");
    }
    if let Step::Fused {
        kernel,
        side,
        in_place,
        inputs,
    } = &launch.step
    {
        for (reg, buf) in kernel.side.iter().zip(side) {
            let info = &plan.buffers[buf.0 as usize];
            let _ = writeln!(
                out,
                "      store r{} -> b{} (s{}) {} {}",
                reg.0, buf.0, info.slot, info.len, info.dtype
            );
        }
        for ip in in_place {
            let reg = match ip.target.checked_sub(1) {
                None => kernel.result,
                Some(j) => kernel.side.get(j).copied().unwrap_or(kernel.result),
            };
            let owned = match inputs.get(ip.input) {
                Some(Src::Mem {
                    loc: Loc::Arg(_), ..
                }) => " (when the run owns the argument)",
                _ => "",
            };
            let _ = writeln!(
                out,
                "      r{} overwrites input {} in place{owned}",
                reg.0, ip.input
            );
        }
    }
    out
}

/// The program line (counts and arena size) and one line per arena slot.
fn write_header(out: &mut String, plan: &Plan) {
    let arena: usize = plan
        .slots
        .iter()
        .filter(|s| !s.output)
        .map(|s| bytes(s.dtype, s.capacity))
        .sum();
    let _ = writeln!(
        out,
        "program {} (kernels {}, buffers {}, slots {}, fused nodes {}, arena {})",
        plan.graph_name,
        plan.launches.len(),
        plan.buffers.len(),
        plan.slots.len(),
        plan.fused_nodes,
        size_text(arena)
    );
    for (i, slot) in plan.slots.iter().enumerate() {
        let _ = writeln!(
            out,
            "  slot s{i} {} x {} ({}){}",
            slot.dtype,
            slot.capacity,
            size_text(bytes(slot.dtype, slot.capacity)),
            if slot.output { " output" } else { "" }
        );
    }
}

/// What a kernel reads, as locations with their views where not plain.
fn reads(plan: &Plan, step: &Step) -> Vec<String> {
    match step {
        Step::Fused { inputs, .. } | Step::FusedReduce { inputs, .. } => {
            inputs.iter().map(|s| src_text(plan, s)).collect()
        }
        Step::Copy { pieces } => pieces.iter().map(|(s, _)| src_text(plan, s)).collect(),
        Step::Matmul(p) => {
            let operands = p.operands().into_iter().map(|(loc, view)| {
                let src = Src::Mem {
                    loc,
                    view: view.clone(),
                };
                src_text(plan, &src)
            });
            let bias = p.bias.map(|c| format!("bias {}", contig_text(plan, c)));
            operands.chain(bias).collect()
        }
        step => step
            .reads()
            .into_iter()
            .map(|l| loc_text(plan, l))
            .collect(),
    }
}

/// A fused loop's instructions, one register a line, with the node each computes.
fn write_fused(out: &mut String, kernel: &FusedKernel) {
    for (r, (instr, node)) in kernel.instrs.iter().zip(&kernel.nodes).enumerate() {
        let text = match instr {
            Instr::Load { input, dtype } => format!("load {input} {dtype}"),
            Instr::Unary { op, x, dtype } => format!("{} r{} {dtype}", op.name(), x.0),
            Instr::Binary { op, a, b, dtype } => {
                format!("{} r{} r{} {dtype}", op.name(), a.0, b.0)
            }
            Instr::Compare { op, a, b, .. } => {
                format!("{} r{} r{} bool", op.name(), a.0, b.0)
            }
            Instr::Where { mask, a, b, dtype } => {
                format!("where r{} r{} r{} {dtype}", mask.0, a.0, b.0)
            }
            Instr::Cast { x, to, .. } => format!("cast r{} {to}", x.0),
        };
        let node = node.map(|n| format!("  ; {n}")).unwrap_or_default();
        let _ = writeln!(out, "      r{r} = {text}{node}");
    }
}
