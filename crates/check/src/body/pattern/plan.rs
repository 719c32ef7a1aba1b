//! A pattern call's lowering plan (`typed::PatternPlan`): the reshape,
//! permute, expand and reduce steps of `rearrange`, `repeat` and `reduce`,
//! or the equation `torch.einsum` takes. Decides nothing about whether the
//! call is right: it runs once the call is checked.

use smallvec::SmallVec;
use syntax::Name;

use super::{pattern_error, Elem, PAxis, Read};
use crate::body::FnChecker;
use crate::shape::axis_poly;
use crate::size::{Poly, Size};
use crate::solver::Solver;
use crate::typed::{LayoutPlan, PatternPlan};
use crate::types::Axis;

/// The `torch.einsum` equation of an `einsum` pattern (`abc,acd->abd`, a
/// letter per name); E0410 past 52 names.
pub(super) fn einsum_plan(c: &mut FnChecker, read: Read) -> Option<PatternPlan> {
    let mut letters: SmallVec<[Name; 16]> = SmallVec::new();
    // The equation is written straight into one string.
    let mut equation = String::with_capacity(32);
    let mut side_text = |side: &[PAxis], equation: &mut String| {
        for a in side {
            equation.push(match &a.elems(read.all)[0] {
                Elem::Name(n, _) => {
                    let i = letters.iter().position(|l| l == n).unwrap_or_else(|| {
                        letters.push(*n);
                        letters.len() - 1
                    });
                    // Past 52 letters the pattern is reported below.
                    match i {
                        0..=25 => char::from(b'a' + i as u8),
                        26..=51 => char::from(b'A' + (i - 26) as u8),
                        _ => '?',
                    }
                }
                Elem::Num(..) => '?',
            });
        }
    };
    for (k, s) in read.lhs.iter().enumerate() {
        if k > 0 {
            equation.push(',');
        }
        side_text(s, &mut equation);
    }
    equation.push_str("->");
    side_text(read.rhs, &mut equation);
    if letters.len() > 52 {
        c.diagnostics.push(pattern_error(
            read.pattern.span,
            "an `einsum` pattern can name at most 52 axes".into(),
            "too many axes".into(),
        ));
        return None;
    }
    Some(PatternPlan::Einsum { equation })
}

#[allow(clippy::too_many_arguments)]
pub(super) fn layout_plan(
    all: &[Elem],
    lhs: &[PAxis],
    rhs: &[PAxis],
    rest: &[Axis],
    solver: &Solver,
    vars: &[Name],
    reduction: Option<Name>,
    expand: Vec<Size>,
    out: &[Axis],
) -> PatternPlan {
    #[derive(PartialEq)]
    enum Key {
        Name(Name),
        Num(i128, usize),
        Rest(usize),
    }
    // Inline: a side has a handful of elementary axes.
    let keys = |side: &[PAxis]| -> SmallVec<[Key; 8]> {
        let mut counts: SmallVec<[(i128, usize); 4]> = SmallVec::new();
        let mut out = SmallVec::new();
        for a in side {
            if a.rest {
                out.extend((0..rest.len()).map(Key::Rest));
                continue;
            }
            for e in a.elems(all) {
                out.push(match e {
                    Elem::Name(n, _) => Key::Name(*n),
                    Elem::Num(v) => {
                        let k = match counts.iter_mut().find(|(x, _)| x == v) {
                            Some(slot) => {
                                slot.1 += 1;
                                slot.1
                            }
                            None => {
                                counts.push((*v, 0));
                                0
                            }
                        };
                        Key::Num(*v, k)
                    }
                });
            }
        }
        out
    };
    let (left, right) = (keys(lhs), keys(rhs));
    let size = |k: &Key| -> Size {
        Size::computed(match k {
            Key::Name(n) => vars
                .iter()
                .position(|v| v == n)
                .and_then(|i| solver.value(i as u32).cloned())
                .unwrap_or_default(),
            Key::Num(v, _) => Poly::constant(*v),
            Key::Rest(i) => axis_poly(&rest[*i]).unwrap_or_default(),
        })
    };
    let split: Vec<Size> = left.iter().map(size).collect();
    let reduced: Vec<usize> = (0..left.len())
        .filter(|i| !right.contains(&left[*i]))
        .collect();
    let order = right
        .iter()
        .map(|k| left.iter().position(|l| l == k))
        .collect();
    PatternPlan::Layout(LayoutPlan {
        split,
        reduce: reduction.map(|r| (r, reduced)),
        order,
        expand,
        merge: out
            .iter()
            .map(|a| Size::computed(axis_poly(a).unwrap_or_default()))
            .collect(),
    })
}
