//! The structured tensor operations (`docs/sexpgpu/operations.md`,
//! "Convolution, pooling, padding, resizing, einsum"): `conv`,
//! `conv-transpose`, `max-pool`, `avg-pool`, `max-unpool`, `adaptive-avg-pool`, `pad`,
//! `interpolate`, `einsum`. Their own table, registered and listed in the
//! docs after `ops::OPS`; this module parses their keywords, and the graph
//! crate's builders check shapes and record the nodes.

use super::args::{bool_of, int_of, ints_of, split, OpArgs};
use super::ops::{op, Op, Run};
use super::record::{record, record_nodes, Nodes};
use crate::eval::{wrong_type, EvalResult, Flow, Interp, Primitive, Site};
use crate::value::Value;
use diag::Diagnostic;
use sexpgpu_graph::{
    ConvOptions, ConvPadding, Graph, NodeId, OpError, PadMode, PerAxis, PoolOptions, Resize, Scalar,
};

/// The structured operations, in registration order.
pub static OPS: &[Op] = &[
    op(
        "conv",
        Run::Handler(conv, &["stride", "padding", "dilation", "groups"]),
        "`(conv x w)`: 1-, 2- or 3-d convolution, `x` `[n c s..]`, `w` `[out c/groups k..]`",
    ),
    op(
        "conv-transpose",
        Run::Handler(
            conv_transpose,
            &["stride", "padding", "output-padding", "dilation", "groups"],
        ),
        "`(conv-transpose x w)`: the transposed convolution, `w` `[c out/groups k..]`",
    ),
    op(
        "max-pool",
        Run::Handler(
            max_pool,
            &[
                "window",
                "stride",
                "padding",
                "dilation",
                "ceil-mode",
                "return-indices",
            ],
        ),
        "the maximum of each `:window` over the last 1-3 axes; with `:return-indices true`, \
         `[values indices]`",
    ),
    op(
        "avg-pool",
        Run::Handler(
            avg_pool,
            &[
                "window",
                "stride",
                "padding",
                "count-include-pad",
                "ceil-mode",
            ],
        ),
        "the mean of each `:window` over the last 1-3 axes",
    ),
    op(
        "max-unpool",
        Run::Handler(max_unpool, &["window", "stride", "padding", "output-size"]),
        "`(max-unpool x indices :window [..])`: `max-pool` undone, each value at its index in \
         zeros",
    ),
    op(
        "adaptive-avg-pool",
        Run::Handler(adaptive_avg_pool, &[]),
        "`(adaptive-avg-pool x [sizes])`: the last axes averaged to `sizes`",
    ),
    op(
        "pad",
        Run::Handler(pad, &["value", "mode"]),
        "`(pad x [[lo hi] ..])`: the last axes padded (negative crops)",
    ),
    op(
        "interpolate",
        Run::Handler(interpolate, &["mode", "align-corners"]),
        "`(interpolate x [sizes])`: the last axes of `[n c s..]` resized",
    ),
    op(
        "einsum",
        Run::Handler(einsum, &[]),
        "`(einsum \"ij,jk->ik\" a b ..)`: Einstein summation",
    ),
];

/// Registers the structured operations as builtins.
pub fn install(interp: &mut Interp) {
    interp.register_builtins(OPS.iter().map(|op| op as &dyn Primitive));
}

/// A per-axis keyword: an integer for every axis, or a vector, one each.
fn per_axis(
    op: &str,
    parsed: &OpArgs,
    site: &Site,
    key: &str,
    default: i64,
) -> EvalResult<PerAxis> {
    match parsed.keyword(key) {
        None => Ok(PerAxis::All(default)),
        Some((Value::Int(n), _)) => Ok(PerAxis::All(*n)),
        Some((v, i)) => {
            ints_of(op, "an integer or a vector of integers", v, site, i).map(PerAxis::Each)
        }
    }
}

/// `:groups n`.
fn groups(op: &str, parsed: &OpArgs, site: &Site) -> EvalResult<i64> {
    parsed
        .keyword("groups")
        .map_or(Ok(1), |(v, i)| int_of(op, v, site, i))
}

/// The two tensors of `conv` and `conv-transpose`, recorded with `build`.
fn two_with(
    interp: &mut Interp,
    name: &str,
    site: &Site,
    operands: &[Value],
    build: impl FnOnce(
        &mut sexpgpu_graph::Graph,
        NodeId,
        NodeId,
    ) -> Result<NodeId, sexpgpu_graph::OpError>,
) -> EvalResult {
    record(interp, name, site, operands, |g, call| {
        let x = call.tensor(g, 0)?;
        let w = call.tensor(g, 1)?;
        Ok(build(g, x, w))
    })
}

fn conv(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 2, &op.keywords())?;
    let padding = match parsed.keyword("padding") {
        Some((Value::Keyword(k), _)) if &**k == "same" => ConvPadding::Same,
        Some((Value::Keyword(k), _)) if &**k == "valid" => ConvPadding::Sizes(PerAxis::All(0)),
        Some((v @ Value::Keyword(_), i)) => {
            return Err(wrong_type(name, "sizes, `:same` or `:valid`", v, site, i))
        }
        _ => ConvPadding::Sizes(per_axis(name, &parsed, site, "padding", 0)?),
    };
    let opts = ConvOptions {
        stride: per_axis(name, &parsed, site, "stride", 1)?,
        padding,
        dilation: per_axis(name, &parsed, site, "dilation", 1)?,
        groups: groups(name, &parsed, site)?,
        output_padding: PerAxis::All(0),
    };
    two_with(interp, name, site, &parsed.positional, |g, x, w| {
        g.conv(x, w, &opts)
    })
}

fn conv_transpose(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 2, &op.keywords())?;
    let opts = ConvOptions {
        stride: per_axis(name, &parsed, site, "stride", 1)?,
        padding: ConvPadding::Sizes(per_axis(name, &parsed, site, "padding", 0)?),
        dilation: per_axis(name, &parsed, site, "dilation", 1)?,
        groups: groups(name, &parsed, site)?,
        output_padding: per_axis(name, &parsed, site, "output-padding", 0)?,
    };
    two_with(interp, name, site, &parsed.positional, |g, x, w| {
        g.conv_transpose(x, w, &opts)
    })
}

/// The keywords of a pool; `:window` is required.
fn pool_options(op: &Op, parsed: &OpArgs, site: &Site) -> EvalResult<PoolOptions> {
    let name = op.name;
    let window = match parsed.keyword("window") {
        None => {
            return Err(Flow::from(
                Diagnostic::error(
                    crate::codes::E_EVAL_008,
                    format!("`{name}` needs `:window`, the window's size on each pooled axis"),
                )
                .with_primary(site.span, "")
                .with_help(format!(
                    "give one size per pooled axis, e.g. `({name} x :window [2 2])`"
                )),
            ))
        }
        Some((Value::Int(n), _)) => PerAxis::Each(vec![*n]),
        Some((v, i)) => PerAxis::Each(ints_of(name, "a vector of window sizes", v, site, i)?),
    };
    let stride = match parsed.keyword("stride") {
        // `nil`, as PyTorch's `stride=None`: the window.
        None | Some((Value::Nil, _)) => None,
        Some(_) => Some(per_axis(name, parsed, site, "stride", 1)?),
    };
    let count_include_pad = parsed
        .keyword("count-include-pad")
        .map_or(Ok(true), |(v, i)| bool_of(name, v, site, i))?;
    Ok(PoolOptions {
        window,
        stride,
        padding: per_axis(name, parsed, site, "padding", 0)?,
        dilation: per_axis(name, parsed, site, "dilation", 1)?,
        count_include_pad,
        ceil_mode: parsed
            .keyword("ceil-mode")
            .map_or(Ok(false), |(v, i)| bool_of(name, v, site, i))?,
    })
}

fn max_pool(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 1, &op.keywords())?;
    let indices = parsed
        .keyword("return-indices")
        .map_or(Ok(false), |(v, i)| bool_of(op.name, v, site, i))?;
    if !indices {
        return pool(interp, op, site, parsed, Graph::max_pool);
    }
    let opts = pool_options(op, &parsed, site)?;
    let operands = parsed.positional;
    record_nodes(interp, op.name, site, &operands, |g, call| {
        let x = call.tensor(g, 0)?;
        Ok(g.max_pool_with_indices(x, &opts)
            .map(|(values, indices)| Nodes::Two(values, indices)))
    })
}

fn max_unpool(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 2, &op.keywords())?;
    let opts = pool_options(op, &parsed, site)?;
    let sizes = match parsed.keyword("output-size") {
        None => None,
        Some((v, i)) => Some(ints_of(op.name, "a vector of sizes", v, site, i)?),
    };
    let operands = parsed.positional;
    record(interp, op.name, site, &operands, |g, call| {
        let x = call.tensor(g, 0)?;
        let indices = call.tensor(g, 1)?;
        Ok(g.max_unpool(x, indices, &opts, sizes.as_deref()))
    })
}

fn avg_pool(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 1, &op.keywords())?;
    pool(interp, op, site, parsed, Graph::avg_pool)
}

/// A pool of one tensor, its keywords parsed by `pool_options`.
fn pool(
    interp: &mut Interp,
    op: &Op,
    site: &Site,
    parsed: OpArgs,
    build: fn(&mut Graph, NodeId, &PoolOptions) -> Result<NodeId, OpError>,
) -> EvalResult {
    let opts = pool_options(op, &parsed, site)?;
    let operands = parsed.positional;
    record(interp, op.name, site, &operands, |g, call| {
        let x = call.tensor(g, 0)?;
        Ok(build(g, x, &opts))
    })
}

fn adaptive_avg_pool(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let parsed = split(op.name, args, site, 2, &op.keywords())?;
    let sizes = ints_of(op.name, "a vector of sizes", &parsed.positional[1], site, 1)?;
    let operands = parsed.positional;
    record(interp, op.name, site, &operands[..1], |g, call| {
        let x = call.tensor(g, 0)?;
        Ok(g.adaptive_avg_pool(x, &sizes))
    })
}

/// `[[lo hi] ..]`: one pair of integers per padded axis.
fn pairs_of(name: &str, value: &Value, site: &Site) -> EvalResult<Vec<(i64, i64)>> {
    let what = "a vector of [lo hi] pairs";
    let Some(items) = value.as_seq() else {
        return Err(wrong_type(name, what, value, site, 1));
    };
    items
        .iter()
        .map(
            |pair| match ints_of(name, what, pair, site, 1)?.as_slice() {
                [lo, hi] => Ok((*lo, *hi)),
                _ => Err(wrong_type(name, what, pair, site, 1)),
            },
        )
        .collect()
}

/// The `:mode` keyword, one of the keywords `from_keyword` knows (`modes`
/// names them in a wrong-type error); `None` when not given.
fn mode_of<M>(
    name: &str,
    parsed: &OpArgs,
    site: &Site,
    modes: &str,
    from_keyword: fn(&str) -> Option<M>,
) -> EvalResult<Option<M>> {
    let Some((v, i)) = parsed.keyword("mode") else {
        return Ok(None);
    };
    let mode = match v {
        Value::Keyword(k) => from_keyword(k),
        _ => None,
    };
    mode.map(Some)
        .ok_or_else(|| wrong_type(name, modes, v, site, i))
}

fn pad(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 2, &op.keywords())?;
    let pairs = pairs_of(name, &parsed.positional[1], site)?;
    let modes = "`:constant`, `:reflect`, `:replicate` or `:circular`";
    let mode =
        mode_of(name, &parsed, site, modes, PadMode::from_keyword)?.unwrap_or(PadMode::Constant);
    let value = match parsed.keyword("value") {
        None => Scalar::Int(0),
        Some((Value::Int(n), _)) => Scalar::Int(*n),
        Some((Value::Float(x), _)) => Scalar::Float(*x),
        Some((Value::Bool(b), _)) => Scalar::Bool(*b),
        Some((v, i)) => return Err(wrong_type(name, "a number", v, site, i)),
    };
    let operands = parsed.positional;
    record(interp, name, site, &operands[..1], |g, call| {
        let x = call.tensor(g, 0)?;
        // `false` pads a boolean tensor when no value is given.
        let value = match (value, g.dtype(x)) {
            (Scalar::Int(0), sexpgpu_graph::DType::Bool) => Scalar::Bool(false),
            _ => value,
        };
        Ok(g.pad(x, &pairs, mode, value))
    })
}

fn interpolate(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    let parsed = split(name, args, site, 2, &op.keywords())?;
    let sizes = ints_of(name, "a vector of sizes", &parsed.positional[1], site, 1)?;
    let modes = "`:nearest`, `:nearest-exact`, `:linear`, `:bilinear` or `:trilinear`";
    let mode =
        mode_of(name, &parsed, site, modes, Resize::from_keyword)?.unwrap_or(Resize::Nearest);
    let corners = parsed
        .keyword("align-corners")
        .map_or(Ok(false), |(v, i)| bool_of(name, v, site, i))?;
    let operands = parsed.positional;
    record(interp, name, site, &operands[..1], |g, call| {
        let x = call.tensor(g, 0)?;
        Ok(g.interpolate(x, &sizes, mode, corners))
    })
}

fn einsum(interp: &mut Interp, op: &Op, site: &Site, args: Vec<Value>) -> EvalResult {
    let name = op.name;
    crate::eval::arity(name, site, &args, 2, None)?;
    let Value::Str(subscripts) = &args[0] else {
        return Err(wrong_type(
            name,
            "a subscript string like \"ij,jk->ik\"",
            &args[0],
            site,
            0,
        ));
    };
    let subscripts = subscripts.clone();
    let operands = args[1..].to_vec();
    let inner = Site {
        span: site.span,
        args: site.args[1..].to_vec(),
    };
    record(interp, name, &inner, &operands, |g, call| {
        let mut ids = Vec::new();
        for i in 0..operands.len() {
            ids.push(call.tensor(g, i)?);
        }
        Ok(g.einsum(&subscripts, &ids))
    })
}
