//! The operations PyTorch has whose result's shape depends on the data
//! (`masked_select`, `nonzero`, `argwhere`): a graph's shapes are fixed
//! when it is traced, so these cannot exist. Each is a builtin that refuses
//! with `E-FLOW-004`, saying why and showing the static form that does the
//! same work (`docs/sexpgpu/staging.md#data-dependent-shapes`).

use crate::codes;
use crate::eval::{Builtin, EvalResult, Flow, Interp, Primitive, Site};
use crate::value::Value;
use diag::Diagnostic;

static TABLE: &[Builtin] = table! {
    "masked-select" => masked_select, "nonzero" => nonzero, "argwhere" => argwhere,
};

/// Registers the refusals.
pub fn install(interp: &mut Interp) {
    interp.register_builtins(TABLE.iter().map(|b| b as &dyn Primitive));
}

/// `E-FLOW-004` for `name`, whose result holds `what`, with the static
/// forms that replace it.
fn refuse(name: &str, what: &str, site: &Site, instead: &[&str]) -> EvalResult {
    let mut d = Diagnostic::error(
        codes::E_FLOW_004,
        format!("`{name}` has no static shape: its result holds {what}, known only when the graph runs"),
    )
    .with_primary(site.span, "the shape of this result would depend on the data")
    .with_note(
        "every tensor of a graph has a shape fixed when the graph is traced, so that it compiles once",
    );
    for help in instead {
        d = d.with_help(*help);
    }
    Err(Flow::from(d))
}

fn masked_select(_: &mut Interp, site: &Site, _: Vec<Value>) -> EvalResult {
    refuse(
        "masked-select",
        "one element for each true element of the mask",
        site,
        &[
            "keep the shape and zero what the mask leaves out: `(where mask x 0.0)`",
            "reduce over the selected elements with it: `(sum (where mask x 0.0))`, and count them with `(sum (cast mask :i32))`",
        ],
    )
}

fn nonzero(_: &mut Interp, site: &Site, _: Vec<Value>) -> EvalResult {
    refuse(
        "nonzero",
        "one row of indices for each non-zero element",
        site,
        &NONZERO_INSTEAD,
    )
}

fn argwhere(_: &mut Interp, site: &Site, _: Vec<Value>) -> EvalResult {
    refuse(
        "argwhere",
        "one row of indices for each non-zero element",
        site,
        &NONZERO_INSTEAD,
    )
}

/// What `nonzero` and `argwhere` become with static shapes.
const NONZERO_INSTEAD: [&str; 2] = [
    "keep a mask of the same shape instead: `(not= x 0)`, and count its elements with `(sum (cast (not= x 0) :i32))`",
    "where the indices themselves are needed, keep them in place and mark the rest: `(where (not= x 0) (iota (shape x) :axis 0 :dtype :i32) -1)`",
];
