# Checks clean and builds: `none` passed for a parameter whose default is
# `none`, by position and by keyword, and an extern whose parameter names are
# not Python's (`torch.roll` calls its `d` `dims`: arguments go by position).
extern fn roll(x: [...], s: Size[S], d: Axis[n]) -> [...] = "torch.roll"

fn lin(x: [n D], w: [E D], b: [E] = none) -> [n E] = linear(x, w, b)
fn explicit(x: [n D], w: [E D]) -> [n E] = lin(x, w, none)
fn by_keyword(x: [n D], w: [E D]) -> [n E] = linear(x, w, bias=none)
fn rolled(x: [b t]) -> [b t] = roll(x, 2, d=t)

# Optional tensors with long names: the generated `if w is not None and
# (...)` checks split as `ruff format` splits them.
fn dense_projection_layer(activations: [batch_size Din], weights: [Dout Din], optional_bias_vector: [Dout] = none, other_optional_mask_tensor: [batch_size Dout Din Din] = none) -> [batch_size Dout] = linear(activations, weights, optional_bias_vector)
