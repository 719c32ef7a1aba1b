//! Comparing a backend's outputs with the reference executor's, shared by
//! the emulation test and the GPU check (`examples/gpu_check.rs`).

use sexpgpu_graph::Tensor;

/// The first element where `got` and `want` differ beyond `tol`, relative
/// to `1 + |want|` (0: equal values; NaN equals NaN, 0.0 equals -0.0), or
/// where their shapes or dtypes differ.
pub fn mismatch(got: &[Tensor], want: &[Tensor], tol: f64) -> Option<String> {
    for (o, (g, w)) in got.iter().zip(want).enumerate() {
        if g.shape() != w.shape() || g.dtype() != w.dtype() {
            return Some(format!(
                "output {o}: {} {} vs {} {}",
                g.shape(),
                g.dtype(),
                w.shape(),
                w.dtype()
            ));
        }
        for (i, (x, y)) in g.to_f64s().iter().zip(w.to_f64s()).enumerate() {
            let same =
                (x.is_nan() && y.is_nan()) || *x == y || (x - y).abs() <= tol * (1.0 + y.abs());
            if !same {
                return Some(format!("output {o} element {i}: got {x:e}, want {y:e}"));
            }
        }
    }
    None
}
