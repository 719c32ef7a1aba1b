//! Broadcasting by name (`docs/shapescript/broadcasting.md`): equal shapes
//! give that shape; otherwise the operand with fewer axes fits into the other,
//! named axes pairing by name, anonymous axes right-aligned with anonymous
//! axes of equal size, a literal 1 with anything, pairs keeping their order;
//! equal ranks with literal 1s broadcast as NumPy does, and so do other
//! ranks when no name decides (`[3 1]` with `[4]`). Returns how each
//! operand's axes line up with the result, for the views code generation
//! inserts. Pure; the caller words the E0401.

use std::borrow::Cow;

use crate::dims::DimValues;
use crate::shape::{axis_name, axis_poly_ref};
use crate::types::{show_shape, Axis, AxisKind};

/// A broadcast that worked: the result's axes and, per operand, the operand
/// axis at each result axis (`None`: a new axis of size 1).
pub struct Broadcast<'s> {
    /// Borrowed when it is one of the operands' shapes as it is (the common
    /// case), so the caller can share that operand's axes.
    pub shape: Cow<'s, [Axis]>,
    pub positions: Vec<Vec<Option<usize>>>,
}

fn is_one(axis: &Axis) -> bool {
    axis_poly_ref(axis).and_then(|p| p.as_constant()) == Some(1) && axis_name(axis).is_none()
}

fn same(dims: &DimValues, a: &Axis, b: &Axis) -> bool {
    match (axis_poly_ref(a), axis_poly_ref(b)) {
        (Some(x), Some(y)) => dims.same_size(&x, &y),
        _ => true,
    }
}

/// Broadcasts several shapes together (two for operators, three for `where`).
/// On failure, the note: both shapes as written and the axes that failed.
pub fn broadcast<'s>(dims: &DimValues, shapes: &[&'s [Axis]]) -> Result<Broadcast<'s>, String> {
    let mut result: Cow<'s, [Axis]> = Cow::Borrowed(shapes[0]);
    for shape in &shapes[1..] {
        result = pair(dims, result, shape)?;
    }
    let mut positions = Vec::with_capacity(shapes.len());
    for shape in shapes {
        positions.push(
            fit(dims, shape, &result).unwrap_or_else(|_| (0..result.len()).map(Some).collect()),
        );
    }
    Ok(Broadcast {
        shape: result,
        positions,
    })
}

fn pair<'s>(
    dims: &DimValues,
    a: Cow<'s, [Axis]>,
    b: &'s [Axis],
) -> Result<Cow<'s, [Axis]>, String> {
    if a.iter().chain(b).any(|x| matches!(x.kind, AxisKind::Error)) {
        return Ok(if a.len() >= b.len() {
            a
        } else {
            Cow::Borrowed(b)
        });
    }
    if a.len() == b.len() {
        if a.iter().zip(b).all(|(x, y)| same(dims, x, y)) {
            return Ok(a);
        }
        // NumPy's rule with literal 1s.
        let mut out = Vec::with_capacity(a.len());
        let mut failed = Vec::new();
        for (x, y) in a.iter().zip(b) {
            if same(dims, x, y) {
                out.push(x.clone());
            } else if is_one(x) {
                out.push(y.clone());
            } else if is_one(y) {
                out.push(x.clone());
            } else {
                failed.push(format!("`{x}` with `{y}`"));
            }
        }
        if failed.is_empty() {
            return Ok(Cow::Owned(out));
        }
        return Err(format!(
            "`{}` and `{}` have the same rank, and {} can't pair",
            show_shape(&a),
            show_shape(b),
            failed.join(", ")
        ));
    }
    // When no name decides (an anonymous axis meets one of another size),
    // NumPy's rule: leading axes added to the smaller, literal 1s expand.
    let numpy = |why: &Unfit, small: &[Axis], big: &[Axis]| match why {
        Unfit::Meets { .. } => numpy_pair(dims, small, big),
        _ => None,
    };
    let fitted = if a.len() > b.len() {
        fit(dims, b, &a)
            .map(|_| ())
            .map_err(|why| (b, &*a, numpy(&why, b, &a), why.message(b, &a)))
    } else {
        fit(dims, &a, b)
            .map(|_| ())
            .map_err(|why| (&*a, b, numpy(&why, &a, b), why.message(&a, b)))
    };
    match fitted {
        Ok(()) if a.len() > b.len() => Ok(a),
        Ok(()) => Ok(Cow::Borrowed(b)),
        Err((_, _, Some(out), _)) => Ok(Cow::Owned(out)),
        Err((small, big, None, axis)) => Err(format!(
            "`{}` doesn't fit into `{}`: {axis}",
            show_shape(small),
            show_shape(big)
        )),
    }
}

/// NumPy's broadcast of `small` right-aligned against `big`: equal axes
/// pair, and an anonymous literal 1 takes the other's size; `None` if any
/// pair fails.
fn numpy_pair(dims: &DimValues, small: &[Axis], big: &[Axis]) -> Option<Vec<Axis>> {
    let lead = big.len() - small.len();
    let mut out = big[..lead].to_vec();
    for (x, y) in small.iter().zip(&big[lead..]) {
        if same(dims, x, y) || is_one(x) {
            out.push(y.clone());
        } else if is_one(y) {
            out.push(x.clone());
        } else {
            return None;
        }
    }
    Some(out)
}

/// Why `small` doesn't fit into `big`; worded only when it is reported,
/// since `broadcast` tries fits that may fail on the way to a success.
pub enum Unfit {
    /// Small's axis `i` meets big's anonymous axis `j` of another size.
    Meets { i: usize, j: usize },
    /// Small's named axis `i` has another size in big.
    Sizes { i: usize },
    /// Nothing in big is left to pair small's axis `i` with.
    Unpaired { i: usize },
}

impl Unfit {
    pub fn message(&self, small: &[Axis], big: &[Axis]) -> String {
        match *self {
            Unfit::Meets { i, j } => format!(
                "its axis {} (`{}`) meets `{}`, the anonymous axis it right-aligns with",
                i + 1,
                small[i],
                big[j]
            ),
            Unfit::Sizes { i } => format!("`{}` has different sizes", small[i]),
            Unfit::Unpaired { i } => match axis_name(&small[i]) {
                Some(name) => format!("no axis named `{name}` to pair its axis {} with", i + 1),
                None => format!(
                    "no anonymous axis left to pair its axis {} (`{}`) with",
                    i + 1,
                    small[i]
                ),
            },
        }
    }
}

/// Where each axis of `small` goes in `big`, scanning right to left.
pub fn fit(dims: &DimValues, small: &[Axis], big: &[Axis]) -> Result<Vec<Option<usize>>, Unfit> {
    let mut positions = vec![None; big.len()];
    let mut cursor = big.len();
    for (i, axis) in small.iter().enumerate().rev() {
        let found = if matches!(axis.kind, AxisKind::Error) {
            cursor.checked_sub(1)
        } else if let Some(name) = axis_name(axis) {
            // By name; else, as a convenience, an anonymous axis of the same
            // size (a merged pattern axis `(h d)` against `[D]`).
            (0..cursor)
                .rev()
                .find(|&j| axis_name(&big[j]) == Some(name))
                .or_else(|| {
                    (0..cursor)
                        .rev()
                        .find(|&j| axis_name(&big[j]).is_none())
                        .filter(|&j| same(dims, axis, &big[j]))
                })
        } else if is_one(axis) {
            cursor.checked_sub(1)
        } else {
            match (0..cursor).rev().find(|&j| axis_name(&big[j]).is_none()) {
                Some(j) if same(dims, axis, &big[j]) => Some(j),
                Some(j) => return Err(Unfit::Meets { i, j }),
                None => None,
            }
        };
        match found {
            Some(j) => {
                if let (Some(_), false) = (axis_name(axis), same(dims, axis, &big[j])) {
                    return Err(Unfit::Sizes { i });
                }
                positions[j] = Some(i);
                cursor = j;
            }
            None => return Err(Unfit::Unpaired { i }),
        }
    }
    Ok(positions)
}

#[cfg(test)]
mod tests {
    use diag::{FileId, Span};
    use expect_test::{expect, Expect};

    use super::broadcast;
    use crate::dims::DimValues;
    use crate::shape::axis_of;
    use crate::size::{Poly, Symbol};
    use crate::types::{show_shape, Axis};

    /// A shape from space-separated axes: names are generic axes, numbers sizes.
    fn shape(text: &str) -> Vec<Axis> {
        let span = Span::new(FileId(0), 0, 0);
        text.split_whitespace()
            .map(|a| match a.parse::<i128>() {
                Ok(n) => axis_of(Poly::constant(n), span),
                Err(_) => axis_of(Poly::symbol(Symbol::Generic(a.into())), span),
            })
            .collect()
    }

    /// Broadcasts the shapes and shows the result with each operand's views.
    fn check(shapes: &[&str], expect: Expect) {
        let shapes: Vec<Vec<Axis>> = shapes.iter().map(|s| shape(s)).collect();
        let refs: Vec<&[Axis]> = shapes.iter().map(Vec::as_slice).collect();
        let shown = match broadcast(&DimValues::default(), &refs) {
            Ok(b) => {
                let views: Vec<String> = b
                    .positions
                    .iter()
                    .map(|p| {
                        p.iter()
                            .map(|s| s.map_or("_".to_string(), |i| i.to_string()))
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect();
                format!("{} via {}", show_shape(&b.shape), views.join(" / "))
            }
            Err(note) => format!("error: {note}"),
        };
        expect.assert_eq(&shown);
    }

    #[test]
    fn named_axes_pair_by_name() {
        check(&["b n D", "D"], expect!["[b n D] via 0 1 2 / _ _ 0"]);
        check(&["b n D", "b n"], expect!["[b n D] via 0 1 2 / 0 1 _"]);
        check(
            &["b h n n", "n n"],
            expect!["[b h n n] via 0 1 2 3 / _ _ 0 1"],
        );
        check(&["b n D", "D n"], expect!["error: `[D n]` doesn't fit into `[b n D]`: no axis named `D` to pair its axis 1 with"]);
    }

    #[test]
    fn anonymous_axes_right_align() {
        check(
            &["b 3 32 32", "32 32"],
            expect!["[b 3 32 32] via 0 1 2 3 / _ _ 0 1"],
        );
        check(&["8 3 32 32", "8"], expect!["error: `[8]` doesn't fit into `[8 3 32 32]`: its axis 1 (`8`) meets `32`, the anonymous axis it right-aligns with"]);
    }

    #[test]
    fn numpy_expands_ones_when_no_name_decides() {
        check(&["3 1", "4"], expect!["[3 4] via 0 1 / _ 0"]);
        check(&["4", "b 3 1"], expect!["[b 3 4] via _ _ 0 / 0 1 2"]);
        // Names still decide: `m` is no axis of `[n 1]`.
        check(
            &["n 1", "m"],
            expect![
                "error: `[m]` doesn't fit into `[n 1]`: no axis named `m` to pair its axis 1 with"
            ],
        );
    }

    #[test]
    fn equal_ranks_broadcast_ones() {
        check(&["b 1 D", "b n D"], expect!["[b n D] via 0 1 2 / 0 1 2"]);
        check(&["b 197 D", "1 196 D"], expect!["error: `[b 197 D]` and `[1 196 D]` have the same rank, and `197` with `196` can't pair"]);
        check(
            &["n m", "b n m", "m"],
            expect!["[b n m] via _ 0 1 / 0 1 2 / _ _ 0"],
        );
    }
}
