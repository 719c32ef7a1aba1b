//! The adjoint of `linear-scan`, which `docs/sexpgpu/operations.md` names: a linear scan run the
//! other way. For `h[t] = a[t] h[t-1] + b[t]` the adjoint `l` of `h` obeys
//! `l[t] = adj[t] + a[t+1] l[t+1]`, a reversed scan with `a` shifted by one;
//! then `b` gets `l` and `a` gets `l[t] h[t-1]`.

use sexpgpu_graph::{BinaryOp, Graph, NodeId, OpError, Shape};

/// Which neighbour along the scan axis lands at each position.
#[derive(Clone, Copy)]
enum Neighbour {
    /// Position `t` gets `x[t+1]`; the last gets 0.
    Next,
    /// Position `t` gets `x[t-1]`; the first gets 0.
    Previous,
}

/// `x` shifted by one along `axis`, zero filled.
fn shifted(g: &mut Graph, x: NodeId, axis: usize, from: Neighbour) -> Result<NodeId, OpError> {
    let shape = g.shape(x).clone();
    let len = shape.dims()[axis];
    if len <= 1 {
        return Ok(g.zeros_like(x));
    }
    let mut dims = shape.dims().to_vec();
    dims[axis] = 1;
    let dtype = g.dtype(x);
    let zero = g.zeros(Shape::new(dims), dtype);
    let (axis, len) = (axis as i64, len as i64);
    match from {
        Neighbour::Next => {
            let rest = g.slice(x, axis, 1, len)?;
            g.concat(axis, &[rest, zero])
        }
        Neighbour::Previous => {
            let rest = g.slice(x, axis, 0, len - 1)?;
            g.concat(axis, &[zero, rest])
        }
    }
}

/// The adjoints of `a` and `b` in `h = linear-scan(a, b)` along `axis`
/// (`reverse` as the forward node ran), given `adj` for `h`.
pub(super) fn linear_scan(
    g: &mut Graph,
    [a, _b]: [NodeId; 2],
    h: NodeId,
    adj: NodeId,
    axis: usize,
    reverse: bool,
    wanted: &[bool],
) -> Result<(Option<NodeId>, Option<NodeId>), OpError> {
    // The step that feeds h[t] into h[t+1] forward is a[t+1]; backward it
    // carries l[t+1] into l[t]. Reversed scans mirror both shifts.
    let (coefficient_from, carry_from) = if reverse {
        (Neighbour::Previous, Neighbour::Next)
    } else {
        (Neighbour::Next, Neighbour::Previous)
    };
    let a_shifted = shifted(g, a, axis, coefficient_from)?;
    let l = g.linear_scan(a_shifted, adj, axis as i64, !reverse)?;
    let ga = if wanted[0] {
        let h_before = shifted(g, h, axis, carry_from)?;
        Some(g.binary(BinaryOp::Mul, l, h_before)?)
    } else {
        None
    };
    Ok((ga, Some(l)))
}
