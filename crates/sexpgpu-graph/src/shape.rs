//! Static tensor shapes, negative-axis normalisation and NumPy broadcasting of
//! shapes; never touches element data.

use std::fmt;

use crate::error::OpError;

/// The most elements one tensor may have: larger shapes are refused while
/// tracing (`E-DIM-001`) and when a file is loaded, and graphs holding them
/// are not executed, so no program or file can make the host allocate
/// without bound.
pub const MAX_ELEMENTS: usize = 1 << 30;

/// A vector of non-negative dimensions, fixed at trace time. Prints `[2, 16]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Shape(Vec<usize>);

impl Shape {
    pub fn new(dims: Vec<usize>) -> Shape {
        Shape(dims)
    }

    /// The shape of a scalar tensor: `[]`.
    pub fn scalar() -> Shape {
        Shape(Vec::new())
    }

    /// Checks dimensions given by the user as integers: each must be >= 0.
    pub fn from_i64(op: &str, dims: &[i64]) -> Result<Shape, OpError> {
        let mut out = Vec::with_capacity(dims.len());
        for &d in dims {
            match usize::try_from(d) {
                Ok(d) => out.push(d),
                Err(_) => {
                    return Err(OpError::dim(format!(
                        "{op}: dimension {d} is negative in {}",
                        format_i64_list(dims)
                    )))
                }
            }
        }
        Ok(Shape(out))
    }

    pub fn dims(&self) -> &[usize] {
        &self.0
    }

    pub fn rank(&self) -> usize {
        self.0.len()
    }

    /// The number of elements; 1 for a scalar.
    pub fn numel(&self) -> usize {
        self.0.iter().product()
    }

    /// Row-major strides in elements.
    pub fn strides(&self) -> Vec<usize> {
        let mut strides = vec![1; self.0.len()];
        for i in (0..self.0.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * self.0[i + 1];
        }
        strides
    }
}

impl From<Vec<usize>> for Shape {
    fn from(dims: Vec<usize>) -> Shape {
        Shape(dims)
    }
}

impl From<&[usize]> for Shape {
    fn from(dims: &[usize]) -> Shape {
        Shape(dims.to_vec())
    }
}

impl<const N: usize> From<[usize; N]> for Shape {
    fn from(dims: [usize; N]) -> Shape {
        Shape(dims.to_vec())
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_list(&self.0))
    }
}

/// `[1, 0, 2]`: how shapes, permutations and axis lists print everywhere.
pub fn format_list<T: fmt::Display>(items: &[T]) -> String {
    let inner: Vec<String> = items.iter().map(|i| i.to_string()).collect();
    format!("[{}]", inner.join(", "))
}

fn format_i64_list(items: &[i64]) -> String {
    format_list(items)
}

/// Maps an axis that may count from the end (`-1` is the last) into `0..rank`.
pub fn normalize_axis(axis: i64, rank: usize) -> Option<usize> {
    let rank_i = i64::try_from(rank).ok()?;
    let axis = if axis < 0 { axis + rank_i } else { axis };
    (0..rank_i).contains(&axis).then_some(axis as usize)
}

/// Like [`normalize_axis`], with the book-style message (`docs/sexpgpu/operations.md`) when it is out of range.
pub fn normalize_axis_for(op: &str, axis: i64, shape: &Shape) -> Result<usize, OpError> {
    normalize_axis(axis, shape.rank()).ok_or_else(|| {
        OpError::dim(format!(
            "{op}: axis {axis} is out of range for {shape} (rank {})",
            shape.rank()
        ))
    })
}

/// NumPy broadcasting: right aligned, each pair equal or one of them 1.
pub fn broadcast_shapes(a: &Shape, b: &Shape) -> Option<Shape> {
    let rank = a.rank().max(b.rank());
    let mut out = vec![0; rank];
    for (i, slot) in out.iter_mut().enumerate() {
        let da = dim_from_right(a, rank - 1 - i);
        let db = dim_from_right(b, rank - 1 - i);
        *slot = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(Shape(out))
}

/// Whether `from` broadcasts to exactly `to` (NumPy's `broadcast_to` rule).
pub fn broadcasts_to(from: &Shape, to: &Shape) -> bool {
    from.rank() <= to.rank()
        && (0..from.rank()).all(|k| {
            let f = dim_from_right(from, k);
            f == dim_from_right(to, k) || f == 1
        })
}

/// Dimension `k` counted from the right (0 is the last); 1 past the front.
fn dim_from_right(shape: &Shape, k: usize) -> usize {
    if k < shape.rank() {
        shape.0[shape.rank() - 1 - k]
    } else {
        1
    }
}

/// Explains why shapes do not broadcast: the first clashing pair, counted as a
/// negative axis from the right as NumPy aligns them.
pub fn explain_broadcast_clash(shapes: &[&Shape]) -> String {
    let rank = shapes.iter().map(|s| s.rank()).max().unwrap_or(0);
    for k in 0..rank {
        let dims: Vec<usize> = shapes
            .iter()
            .filter(|s| k < s.rank())
            .map(|s| dim_from_right(s, k))
            .collect();
        let wanted = dims.iter().copied().find(|&d| d != 1);
        if let Some(w) = wanted {
            if dims.iter().any(|&d| d != 1 && d != w) {
                let listed: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
                return format!(
                    "aligned from the right, axis -{} has {}; each must be equal or 1",
                    k + 1,
                    listed.join(" vs ")
                );
            }
        }
    }
    "shapes broadcast".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn check(a: &[usize], b: &[usize], expect: expect_test::Expect) {
        let (a, b) = (Shape::from(a), Shape::from(b));
        let text = match broadcast_shapes(&a, &b) {
            Some(s) => s.to_string(),
            None => format!("error: {}", explain_broadcast_clash(&[&a, &b])),
        };
        expect.assert_eq(&text);
    }

    #[test]
    fn broadcast_right_aligned() {
        check(&[2, 1, 4], &[3, 1], expect!["[2, 3, 4]"]);
        check(&[], &[5], expect!["[5]"]);
        check(&[0, 1], &[1, 3], expect!["[0, 3]"]);
    }

    #[test]
    fn broadcast_clash_names_axis() {
        check(
            &[2, 3],
            &[4, 3],
            expect!["error: aligned from the right, axis -2 has 2 vs 4; each must be equal or 1"],
        );
    }

    #[test]
    fn axes_normalise_from_the_end() {
        let got: Vec<Option<usize>> = [-1, -3, 2, 3, -4]
            .iter()
            .map(|&a| normalize_axis(a, 3))
            .collect();
        expect!["[Some(2), Some(0), Some(2), None, None]"].assert_eq(&format!("{got:?}"));
    }

    #[test]
    fn negative_dims_are_refused() {
        let err = Shape::from_i64("zeros", &[2, -1]).unwrap_err();
        expect!["E-DIM-001 zeros: dimension -1 is negative in [2, -1]"].assert_eq(&format!(
            "{} {}",
            err.code(),
            err.message
        ));
    }
}
