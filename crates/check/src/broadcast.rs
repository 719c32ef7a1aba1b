//! Broadcasting by name (`docs/shapescript/broadcasting.md`): equal shapes
//! give that shape; otherwise the operand with fewer axes fits into the other,
//! named axes pairing by name, anonymous axes right-aligned with anonymous
//! axes of equal size, a literal 1 with anything, pairs keeping their order;
//! equal ranks with literal 1s broadcast as NumPy does, and so do other
//! ranks when no name decides (`[3 1]` with `[4]`). A name that matches
//! more axes of the other shape than it has axes of that name is never
//! paired by a guess (E0411). Returns how each operand's axes line up with
//! the result, for the views code generation inserts. Pure; the caller words
//! the E0401 and E0411.

use std::borrow::Cow;

use smallvec::SmallVec;
use syntax::Name;

use crate::dims::DimValues;
use crate::shape::{axis_name, axis_poly_ref, describe_matches, distinct_names};
use crate::types::{show_shape, Axis, AxisKind};

/// A broadcast that worked: the result's axes and, per operand, the operand
/// axis at each result axis (`None`: a new axis of size 1).
pub struct Broadcast<'s> {
    /// Borrowed when it is one of the operands' shapes as it is (the common
    /// case), so the caller can share that operand's axes.
    pub shape: Cow<'s, [Axis]>,
    pub positions: Vec<Vec<Option<usize>>>,
}

/// An axis for notes, with its size when a pattern named it apart and its
/// value when dims give one: `` `H` (32) ``, `` `i` (size `n`) ``,
/// `` `d` (size `Dh`, 64) ``.
fn show_axis(dims: &DimValues, axis: &Axis) -> String {
    let poly = axis_poly_ref(axis);
    let value = poly
        .as_ref()
        .filter(|p| p.as_constant().is_none())
        .and_then(|p| dims.substitute(p).ok())
        .and_then(|p| p.as_constant());
    match (axis.renamed(), poly, value) {
        (true, Some(p), Some(v)) => format!("`{axis}` (size `{p}`, {v})"),
        (true, Some(p), None) => format!("`{axis}` (size `{p}`)"),
        (_, _, Some(v)) => format!("`{axis}` ({v})"),
        _ => format!("`{axis}`"),
    }
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

/// Why a broadcast failed, worded for the caller's diagnostic.
pub enum Failed {
    /// E0401's note: both shapes as written and the axes that failed.
    Note(String),
    /// E0411: a name of the smaller shape matches several axes of the other
    /// and pairing would be a guess; the note says which. `renamed` is the
    /// smaller shape's axes as a pattern side with that axis named after the
    /// last of them (`[j]`), when those have names of their own.
    Ambiguous {
        name: Name,
        note: String,
        renamed: Option<String>,
    },
}

/// Broadcasts several shapes together (two for operators, three for `where`).
pub fn broadcast<'s>(dims: &DimValues, shapes: &[&'s [Axis]]) -> Result<Broadcast<'s>, Failed> {
    let mut result: Cow<'s, [Axis]> = Cow::Borrowed(shapes[0]);
    for shape in &shapes[1..] {
        result = pair(dims, result, shape)?;
    }
    let mut positions = Vec::with_capacity(shapes.len());
    for shape in shapes {
        // The operand whose shape is the result (the common case) lines up
        // axis for axis, as `fit` would find.
        let same = std::ptr::eq(*shape, &*result);
        positions.push(if same {
            (0..result.len()).map(Some).collect()
        } else {
            fit(dims, shape, &result).unwrap_or_else(|_| (0..result.len()).map(Some).collect())
        });
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
) -> Result<Cow<'s, [Axis]>, Failed> {
    if a.iter().chain(b).any(|x| matches!(x.kind, AxisKind::Error)) {
        return Ok(if a.len() >= b.len() {
            a
        } else {
            Cow::Borrowed(b)
        });
    }
    if a.len() == b.len() {
        if a.iter().zip(b).all(|(x, y)| same(dims, x, y)) {
            // Equal sizes, but a name the other shape has elsewhere would
            // pair by position with another axis (`[A B]` and `[B A]`).
            if let Some((i, j, name)) = crate::shape::swapped_names(b, &a) {
                return Err(Failed::Note(format!(
                    "`{name}` is axis {} of one operand and axis {} of the other: the sizes are equal, but axes pair by name, and no view moves an axis; rearrange one operand",
                    i + 1,
                    j + 1
                )));
            }
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
                failed.push(format!(
                    "{} with {}",
                    show_axis(dims, x),
                    show_axis(dims, y)
                ));
            }
        }
        if failed.is_empty() {
            return Ok(Cow::Owned(out));
        }
        return Err(Failed::Note(format!(
            "`{}` and `{}` have the same rank, and {} can't pair",
            show_shape(&a),
            show_shape(b),
            failed.join(", ")
        )));
    }
    let (small, big): (&[Axis], &[Axis]) = if a.len() > b.len() { (b, &a) } else { (&a, b) };
    match fit(dims, small, big) {
        Ok(_) if a.len() > b.len() => Ok(a),
        Ok(_) => Ok(Cow::Borrowed(b)),
        Err(Unfit::Ambiguous { i, hits }) => Err(Failed::Ambiguous {
            name: axis_name(&small[i])
                .copied()
                .unwrap_or_else(|| Name::new("")),
            note: format!(
                "`{}` of `{}` matches {} of `{}`; pairing it with one would be a guess",
                small[i],
                show_shape(small),
                describe_matches(big, &hits),
                show_shape(big)
            ),
            renamed: renamed_side(small, i, big, &hits),
        }),
        // When no name decides (an anonymous axis meets one of another
        // size), NumPy's rule: leading axes added to the smaller, literal 1s
        // expand.
        Err(why @ Unfit::Meets { .. }) => match numpy_pair(dims, small, big) {
            Some(out) => Ok(Cow::Owned(out)),
            None => Err(Failed::Note(format!(
                "`{}` doesn't fit into `{}`: {}",
                show_shape(small),
                show_shape(big),
                why.message(small, big)
            ))),
        },
        Err(why) => Err(Failed::Note(format!(
            "`{}` doesn't fit into `{}`: {}",
            show_shape(small),
            show_shape(big),
            why.message(small, big)
        ))),
    }
}

/// `small`'s axes as a pattern side, with axis `i` named after the last of
/// `big`'s axes `hits` when those have distinct names of their own; `None`
/// when some axis has no plain name.
fn renamed_side(small: &[Axis], i: usize, big: &[Axis], hits: &[usize]) -> Option<String> {
    let names = distinct_names(big, hits)?;
    let mut parts = Vec::with_capacity(small.len());
    for (k, a) in small.iter().enumerate() {
        let name = if k == i {
            names.last().copied()
        } else {
            axis_name(a).copied()
        };
        parts.push(name.filter(|n| !n.contains('.'))?.to_string());
    }
    Some(format!("[{}]", parts.join(" ")))
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
    /// Small's named axis `i` has another size in big's axis `j`.
    Sizes { i: usize, j: usize },
    /// Nothing in big is left to pair small's axis `i` with.
    Unpaired { i: usize },
    /// Small's named axis `i` matches big's axes `hits`, more of them than
    /// small has axes of that name, so pairing would pick one silently.
    Ambiguous { i: usize, hits: Vec<usize> },
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
            Unfit::Sizes { i, j } => format!(
                "`{}` has different sizes: {} and {}",
                small[i],
                show_size(small, i),
                show_size(big, j)
            ),
            Unfit::Ambiguous { i, ref hits } => {
                format!("`{}` matches {}", small[i], describe_matches(big, hits))
            }
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

/// Whether an axis pairs as an anonymous one: it has no name, or a pattern
/// named an axis whose size is no single name (`d` of size `D/8`), which
/// paired as anonymous before patterns named their axes.
fn anonymous(axis: &Axis) -> bool {
    // The plain name test first: it decides nearly every axis.
    axis_name(axis).is_none() || (axis.size_name().is_none() && axis.renamed())
}

/// The axes of `big` a named axis of `small` may pair with.
enum Candidates {
    None,
    One(usize),
    /// Several, with the number of `small`'s axes that look for the same
    /// ones, which must match (`[n n]` into `[b n n]` pairs in order; `[n]`
    /// into `[b n n]` is a guess).
    Many(SmallVec<[usize; 4]>, usize),
}

/// The axes of `big` that `matches` accepts, most often one and then found
/// without collecting; for several, `wanted` counts `small`'s axes.
// Generic rather than `dyn`: called for every named axis broadcast, and
// the tests inline.
#[inline]
fn candidates(
    small: &[Axis],
    big: &[Axis],
    matches: impl Fn(&Axis) -> bool,
    wanted: impl Fn(&Axis) -> bool,
) -> Option<Candidates> {
    let mut hits = (0..big.len()).filter(|&j| matches(&big[j]));
    let first = hits.next()?;
    let Some(second) = hits.next() else {
        return Some(Candidates::One(first));
    };
    let mut all: SmallVec<[usize; 4]> = smallvec::smallvec![first, second];
    all.extend(hits);
    let wanted = small.iter().filter(|a| wanted(a)).count();
    Some(Candidates::Many(all, wanted))
}

/// The axes of `big` a named axis of `small` pairs with, by name: those of
/// its name, else those whose size is that name (`n` finds the axes `i` and
/// `j` of size `n`), else, for an axis a pattern named apart from its size,
/// those of its size's name.
fn named_candidates(small: &[Axis], axis: &Axis, big: &[Axis]) -> Candidates {
    let name = axis_name(axis).copied();
    let by_name = |a: &Axis| axis_name(a).copied() == name;
    if let Some(found) = candidates(small, big, by_name, by_name) {
        return found;
    }
    if let Some(found) = candidates(small, big, |a| a.size_name() == name, by_name) {
        return found;
    }
    match axis.size_name().filter(|_| axis.renamed()) {
        Some(size) => {
            let by_size = |a: &Axis| a.size_name() == Some(size);
            candidates(small, big, by_size, by_size).unwrap_or(Candidates::None)
        }
        None => Candidates::None,
    }
}

/// An axis's size for `Unfit::Sizes`: `` `n` `` or `` `D` ``.
fn show_size(shape: &[Axis], i: usize) -> String {
    match axis_poly_ref(&shape[i]) {
        Some(p) => format!("`{p}`"),
        None => format!("`{}`", shape[i]),
    }
}

/// Where each axis of `small` goes in `big`, scanning right to left.
pub fn fit(dims: &DimValues, small: &[Axis], big: &[Axis]) -> Result<Vec<Option<usize>>, Unfit> {
    let mut positions = vec![None; big.len()];
    let mut cursor = big.len();
    for (i, axis) in small.iter().enumerate().rev() {
        let found = if matches!(axis.kind, AxisKind::Error) {
            cursor.checked_sub(1)
        } else if axis_name(axis).is_some() {
            let by_name = match named_candidates(small, axis, big) {
                Candidates::None => None,
                Candidates::One(j) => (j < cursor).then_some(j),
                Candidates::Many(hits, wanted) if hits.len() != wanted => {
                    return Err(Unfit::Ambiguous {
                        i,
                        hits: hits.to_vec(),
                    });
                }
                Candidates::Many(hits, _) => hits.iter().rev().copied().find(|&j| j < cursor),
            };
            // By name; else, as a convenience, an anonymous axis of the same
            // size (a merged pattern axis `(h d)` against `[D]`).
            by_name.or_else(|| {
                (0..cursor)
                    .rev()
                    .find(|&j| anonymous(&big[j]))
                    .filter(|&j| same(dims, axis, &big[j]))
            })
        } else if is_one(axis) {
            cursor.checked_sub(1)
        } else {
            match (0..cursor).rev().find(|&j| anonymous(&big[j])) {
                Some(j) if same(dims, axis, &big[j]) => Some(j),
                Some(j) => return Err(Unfit::Meets { i, j }),
                None => None,
            }
        };
        match found {
            Some(j) => {
                if let (Some(_), false) = (axis_name(axis), same(dims, axis, &big[j])) {
                    return Err(Unfit::Sizes { i, j });
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
            Err(super::Failed::Note(note)) => format!("error: {note}"),
            Err(super::Failed::Ambiguous { name, note, .. }) => {
                format!("ambiguous `{name}`: {note}")
            }
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
    fn a_name_of_several_axes_is_never_a_guess() {
        check(
            &["b n n", "n"],
            expect!["ambiguous `n`: `n` of `[n]` matches axes 2 and 3 of `[b n n]`; pairing it with one would be a guess"],
        );
        check(&["b n n", "b n"], expect!["ambiguous `n`: `n` of `[b n]` matches axes 2 and 3 of `[b n n]`; pairing it with one would be a guess"]);
        // As many in order: no guess.
        check(&["n n", "b n n"], expect!["[b n n] via _ 0 1 / 0 1 2"]);
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
