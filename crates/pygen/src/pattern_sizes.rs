//! The sizes a `rearrange`/`reduce`/`repeat` passes to `reshape`, written
//! with the names they come from (`docs/shapescript/python.md`, "Sizes in
//! the generated code"). The checker's plan holds each elementary axis's
//! size as a polynomial; an axis a pattern solves (`f` of `(two f)` where
//! the input axis is `Dh`) is often only a number there, since `Dh / 2` is
//! no polynomial. Such a size is written as the input axis divided by the
//! group's other parts (`Dh // 2`), a merged group that is exactly an input
//! group as that axis (`Dh`), and one size that is still a bare number the
//! user never wrote becomes `-1`, which `reshape` works out. Pure text.

use std::collections::HashSet;

use syntax::ast;

/// A size for `reshape`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeText {
    /// Python code that names where the size comes from, or a number the
    /// program wrote (`16` in `(gh 16)`, `2` of `two=2`).
    Named(String),
    /// A number the checker worked out that nothing in the program names.
    Number(String),
    /// A size known only at run time (`?k`).
    Unknown,
}

/// One elementary axis of a pattern side: how it was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written<'p> {
    /// A number (`16`).
    Literal,
    /// A name (`f`, `two`).
    Name(&'p str),
}

/// Each axis of a pattern side with its elementary parts, in the checker's
/// order (`16gh` is `gh` then `16`: `body/pattern/sides.rs`), or `None`
/// for a side with `...` (the plan's axes cannot be matched to it).
fn parts_of(list: &ast::ShapeList) -> Option<Vec<Vec<Written<'_>>>> {
    let mut out = Vec::with_capacity(list.axes.len());
    for axis in &list.axes {
        out.push(match &axis.kind {
            ast::AxisKind::Size(s) => vec![written(s)],
            ast::AxisKind::Group(parts) => {
                let mut elementary = Vec::with_capacity(parts.len());
                for part in parts {
                    match &part.kind {
                        ast::AxisKind::Size(s) => elementary.push(written(s)),
                        ast::AxisKind::Grouped { name, .. } => {
                            elementary.extend([Written::Name(&name.name), Written::Literal]);
                        }
                        _ => return None,
                    }
                }
                elementary
            }
            ast::AxisKind::Grouped { name, .. } => {
                vec![Written::Name(&name.name), Written::Literal]
            }
            ast::AxisKind::Rest => return None,
        });
    }
    Some(out)
}

fn written(size: &ast::SizeExpr) -> Written<'_> {
    match &size.kind {
        ast::SizeExprKind::Name(id) => Written::Name(&id.name),
        _ => Written::Literal,
    }
}

/// The sizes of a layout's two reshapes.
pub struct NamedSizes {
    pub split: Vec<SizeText>,
    pub merge: Vec<SizeText>,
    /// How many elementary axes each output axis merges.
    pub merge_parts: Vec<usize>,
}

impl NamedSizes {
    /// The merge step: a `reshape` with the named sizes, or, when a merged
    /// size is a number no name explains, `flatten` of each group (right
    /// to left, so the positions on the left stay put), which needs no
    /// sizes and, unlike `reshape(b, -1)`, also takes an empty batch.
    pub fn merge_code(&self) -> Option<String> {
        let numbers = self.merge.iter().any(|s| matches!(s, SizeText::Number(_)));
        let unknown = self.merge.contains(&SizeText::Unknown);
        if !numbers || unknown {
            return reshape_args(&self.merge).map(|a| format!(".reshape({a})"));
        }
        let mut starts = Vec::with_capacity(self.merge_parts.len());
        let mut at = 0;
        for &n in &self.merge_parts {
            starts.push((at, n));
            at += n;
        }
        let mut code = String::new();
        for &(start, n) in starts.iter().rev().filter(|(_, n)| *n > 1) {
            if start + n == at {
                code.push_str(&format!(".flatten({start})"));
            } else {
                code.push_str(&format!(".flatten({start}, {})", start + n - 1));
            }
        }
        Some(code)
    }
}

/// What `layout` knows of one size: its code from the checker's
/// polynomial (`None` when it has none), and whether that is a bare number.
#[derive(Clone, Debug)]
pub struct PlanSize {
    pub code: Option<String>,
    pub constant: bool,
}

/// The sizes of the split (input side) and the merge (output side) of a
/// layout plan, named as far as the pattern allows. `given` are the names
/// the call gives values (`two=2`); `input` the input tensor's axes;
/// `split`, `merge` and `order` the plan's. `None` when the pattern does
/// not line up with the plan (a `...`), and the caller writes the plan's
/// sizes as they are.
pub fn name_sizes(
    pattern: &ast::Pattern,
    given: &HashSet<&str>,
    input: &[PlanSize],
    split: &[PlanSize],
    merge: &[PlanSize],
    order: &[Option<usize>],
) -> Option<NamedSizes> {
    let lhs = parts_of(pattern.lhs.first()?)?;
    let rhs = parts_of(&pattern.rhs)?;
    let flat: usize = lhs.iter().map(Vec::len).sum();
    if lhs.len() != input.len() || flat != split.len() || rhs.len() != merge.len() {
        return None;
    }
    if rhs.iter().map(Vec::len).sum::<usize>() != order.len() {
        return None;
    }
    // The split, axis by axis: the input axis's group and where it starts.
    let mut split_text = Vec::with_capacity(split.len());
    // Parts that are a number the pattern solved for a name and that no
    // name explains (`f` of an input axis typed `32`).
    let mut bare = Vec::with_capacity(split.len());
    let mut groups = Vec::with_capacity(lhs.len());
    for (axis, parts) in lhs.iter().enumerate() {
        let start = split_text.len();
        groups.push(start..start + parts.len());
        for (k, part) in parts.iter().enumerate() {
            let size = &split[start + k];
            let solved = size.constant
                && size.code.as_deref() != Some("1")
                && matches!(part, Written::Name(n) if !given.contains(n));
            let text = match &size.code {
                None => SizeText::Unknown,
                Some(code) if !solved => SizeText::Named(code.clone()),
                // An axis of its own, or a part of an axis whose size is a
                // number: a number worked out from the input's type.
                Some(code) if parts.len() == 1 || input[axis].constant => {
                    bare.push(true);
                    split_text.push(SizeText::Named(code.clone()));
                    continue;
                }
                Some(code) => derived(&input[axis], &split[start..start + parts.len()], k)
                    .map_or_else(|| SizeText::Number(code.clone()), SizeText::Named),
            };
            bare.push(matches!(text, SizeText::Number(_)));
            split_text.push(text);
        }
    }
    // The merge: an output group that is one input group, in order, is that
    // input axis; otherwise the product of its parts.
    let mut merge_text = Vec::with_capacity(merge.len());
    let mut at = 0;
    for (axis, parts) in rhs.iter().enumerate() {
        let sources: Vec<Option<usize>> = order[at..at + parts.len()].to_vec();
        at += parts.len();
        let whole = groups.iter().position(|g| {
            sources.iter().copied().eq(g.clone().map(Some)) && g.len() == parts.len()
        });
        let size = &merge[axis];
        let has_bare = sources.iter().any(|s| s.is_some_and(|s| bare[s]));
        merge_text.push(match (&size.code, whole) {
            (None, _) => SizeText::Unknown,
            (Some(_), Some(g)) if !input[g].constant => {
                SizeText::Named(input[g].code.clone().unwrap_or_default())
            }
            // A group with a bare number in it: the number is no name's.
            (Some(code), _) if parts.len() > 1 && has_bare => SizeText::Number(code.clone()),
            (Some(code), _) if size.constant && parts.len() > 1 => {
                product(&sources, &split_text).unwrap_or_else(|| SizeText::Number(code.clone()))
            }
            (Some(code), _) => SizeText::Named(code.clone()),
        });
    }
    Some(NamedSizes {
        split: split_text,
        merge: merge_text,
        merge_parts: rhs.iter().map(Vec::len).collect(),
    })
}

/// Part `k` of a group as the input axis divided by the other parts
/// (`Dh // 2`), when the input axis has a name and the others have codes.
fn derived(axis: &PlanSize, group: &[PlanSize], k: usize) -> Option<String> {
    if axis.constant || group.len() < 2 {
        return None;
    }
    let whole = axis.code.as_ref()?;
    let others: Vec<&str> = group
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != k)
        .map(|(_, s)| s.code.as_deref())
        .collect::<Option<_>>()?;
    let whole = atom(whole);
    Some(match others.as_slice() {
        [one] => format!("{whole} // {}", atom(one)),
        _ => format!("{whole} // ({})", others.join(" * ")),
    })
}

/// The product of the split parts an output group takes, when each is
/// named (a new axis of `repeat` has no split part: `None`).
fn product(sources: &[Option<usize>], split: &[SizeText]) -> Option<SizeText> {
    let mut factors = Vec::with_capacity(sources.len());
    for s in sources {
        match split.get((*s)?)? {
            SizeText::Named(code) => factors.push(if sources.len() > 1 {
                atom(code)
            } else {
                code.clone()
            }),
            _ => return None,
        }
    }
    Some(SizeText::Named(factors.join(" * ")))
}

/// `code` in parentheses when it is more than one term or factor.
fn atom(code: &str) -> String {
    if code.contains(' ') {
        format!("({code})")
    } else {
        code.to_string()
    }
}

/// The sizes as `reshape`'s arguments: each named size as it is; one size
/// that is unknown or a bare number as `-1`; `None` when two are unknown.
/// Bare numbers beside an unknown size stay numbers.
pub fn reshape_args(sizes: &[SizeText]) -> Option<String> {
    let unknown = sizes.iter().filter(|s| **s == SizeText::Unknown).count();
    let numbers = sizes
        .iter()
        .filter(|s| matches!(s, SizeText::Number(_)))
        .count();
    if unknown > 1 {
        return None;
    }
    let free = unknown == 1 || numbers == 1;
    let codes: Vec<String> = sizes
        .iter()
        .map(|s| match s {
            SizeText::Named(c) => c.clone(),
            SizeText::Number(c) if unknown == 1 || !free => c.clone(),
            _ => "-1".to_string(),
        })
        .collect();
    Some(codes.join(", "))
}
