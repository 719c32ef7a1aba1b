//! A cost model of a plan, from the plan alone (`sexpgpu ir --cost`,
//! `docs/sexpgpu/cuda.md`, "The cost model"): each launch's bytes read and
//! written and its arithmetic (`count`), and its lower bound on a GPU of a
//! small table (`gpu`): the longer of its bytes over the memory's bandwidth
//! and its operations over the peak rate for its dtype, as if the launch
//! ran at the roofline. Launches are grouped by `kind`, which `--profile`
//! groups its measured times by too; `report` lays the model out as text.
//! Pure arithmetic on plain data: no I/O, no device.

mod count;
mod gpu;
mod report;

pub use count::{launch_cost, plan_costs, Cost, Rate};
pub use gpu::{Bound, Gpu, GPUS};
pub use report::{duration, format_cost, format_rates, si};

use crate::plan::{Launch, Loc, Plan, Step};

/// The group a launch's time and cost are reported under: `optimizer` for
/// a fused loop that reads optimizer state (an argument named `opt/...`:
/// AdamW's update of a parameter and its moments), else the step's kind
/// (`matmul`, `fused`, `reduce-sum`, `fused-sum`, `copy`, `attention`,
/// `index-add`, ...; `Step::kind`).
pub fn kind(plan: &Plan, launch: &Launch) -> &'static str {
    let reads_state = |loc: &Loc| match loc {
        Loc::Arg(k) => plan
            .arguments
            .get(*k)
            .is_some_and(|a| a.name.starts_with("opt/")),
        _ => false,
    };
    match &launch.step {
        Step::Fused { .. } if launch.step.reads().iter().any(reads_state) => "optimizer",
        step => step.kind(),
    }
}
