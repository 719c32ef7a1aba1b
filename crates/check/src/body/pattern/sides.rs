//! Reading a pattern's sides (`docs/shapescript/patterns.md`): each
//! side's axes over one list of elementary axes (names and numbers), with
//! E0410 for what can't be in a side: a size expression, a second `...`, a
//! name twice, and for `einsum` anything but names.

use smallvec::SmallVec;
use syntax::ast;
use syntax::Name;

use super::{pattern_error, Elem, Elems, PAxis, Side, Sides};
use crate::body::FnChecker;

/// Reads the pattern's sides (E0410 for what can't be in one): at most one
/// `...` a side, and an `einsum` pattern names each axis.
/// Fills `sides` (empty) in place: a pattern's sides are a kilobyte inline,
/// and returning them would copy it.
pub(super) fn read_sides(
    c: &mut FnChecker,
    name: &str,
    pattern: &ast::Pattern,
    sides: &mut Sides,
) -> Option<()> {
    // `einsum` takes a name twice on an input side, as torch does: the
    // diagonal `[i i] -> [i]`, the trace `[i i] -> []`.
    let repeats = name == "einsum";
    for l in &pattern.lhs {
        let read = side(c, l, &mut sides.all, repeats)?;
        sides.lhs.push(read);
    }
    sides.rhs = side(c, &pattern.rhs, &mut sides.all, false)?;
    let Sides { all, lhs, rhs } = sides;
    for s in lhs.iter().chain(std::iter::once(&*rhs)) {
        if let Some(second) = s.iter().filter(|a| a.rest).nth(1) {
            c.diagnostics.push(pattern_error(
                second.span,
                "a pattern side can have one `...`".into(),
                "second `...`".into(),
            ));
            return None;
        }
    }
    if name == "einsum"
        && lhs.iter().chain(std::iter::once(&*rhs)).flatten().any(|a| {
            let es = a.elems(all);
            a.rest || es.len() != 1 || matches!(es[0], Elem::Num(..))
        })
    {
        c.diagnostics.push(pattern_error(
            pattern.span,
            "an `einsum` pattern names each axis".into(),
            "groups, numbers and `...` are for `rearrange`".into(),
        ));
        return None;
    }
    Some(())
}

/// Reads one side of a pattern (E0410 for what can't be in one), its
/// elementary axes onto `elems`; a name twice only where `repeats` allows.
fn side(
    c: &mut FnChecker,
    list: &ast::ShapeList,
    elems: &mut Elems,
    repeats: bool,
) -> Option<Side> {
    let mut out = Side::new();
    for axis in &list.axes {
        let start = elems.len() as u32;
        let mut rest = false;
        match &axis.kind {
            ast::AxisKind::Rest => rest = true,
            ast::AxisKind::Grouped { factor, name } => {
                elems.push(Elem::Name(name.name, name.span));
                elems.push(Elem::Num(i128::try_from(factor.get()).ok()?));
            }
            ast::AxisKind::Group(parts) => {
                for part in parts {
                    match &part.kind {
                        ast::AxisKind::Grouped { factor, name } => {
                            elems.push(Elem::Name(name.name, name.span));
                            elems.push(Elem::Num(i128::try_from(factor.get()).ok()?));
                        }
                        ast::AxisKind::Size(s) => elems.push(elem(c, s)?),
                        _ => {
                            c.diagnostics.push(pattern_error(
                                part.span,
                                "a pattern group holds names and numbers".into(),
                                "not a name or number".into(),
                            ));
                            return None;
                        }
                    }
                }
            }
            ast::AxisKind::Size(s) => elems.push(elem(c, s)?),
        }
        out.push(PAxis {
            start,
            end: elems.len() as u32,
            rest,
            span: axis.span,
        });
    }
    // A name twice on one side.
    if repeats {
        return Some(out);
    }
    let mut seen: SmallVec<[Name; 8]> = SmallVec::new();
    for a in &out {
        for e in a.elems(elems) {
            if let Elem::Name(n, s) = e {
                if seen.contains(n) {
                    c.diagnostics.push(
                        pattern_error(
                            *s,
                            format!("`{n}` is twice on one side of the pattern"),
                            "named again here".into(),
                        )
                        .with_help("give each axis its own name"),
                    );
                    return None;
                }
                seen.push(*n);
            }
        }
    }
    Some(out)
}

fn elem(c: &mut FnChecker, s: &ast::SizeExpr) -> Option<Elem> {
    match &s.kind {
        ast::SizeExprKind::Name(name) => Some(Elem::Name(name.name, name.span)),
        ast::SizeExprKind::Int(v) if v.get() >= 1 => Some(Elem::Num(i128::try_from(v.get()).ok()?)),
        ast::SizeExprKind::Error => None,
        _ => {
            c.diagnostics.push(
                pattern_error(
                    s.span,
                    "a pattern axis is a name, a number or a group of them".into(),
                    "not an axis name".into(),
                )
                .with_help("give sizes as keywords after the pattern, as in `h=12`"),
            );
            None
        }
    }
}
