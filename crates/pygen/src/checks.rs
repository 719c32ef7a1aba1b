//! The run-time boundary check at the top of each function and method: binds
//! the generic sizes from the arguments' `.shape` and, unless
//! `--no-runtime-checks`, compares every other size with one `if` per
//! parameter (plain int comparisons), calling into the runtime only to build
//! the `ShapeError`. Never checks values, only shapes.

use check::hir::Poly;
use check::hir::{show_shape, Axis, AxisKind, Binding, Body};

use crate::scope::Scope;
use crate::writer::string_literal;

/// One Python statement (possibly spanning lines), at an indent relative to the body.
pub type Lines = Vec<(usize, String)>;

/// Marks `b, n, _ = x.shape`: `drop_unused_sizes` keeps only the names the
/// body reads.
const UNPACK: char = '\u{1}';

/// Marks `h = x.shape[2] // 2` (a size of which an axis is a multiple):
/// `drop_unused_sizes` drops it when nothing reads the name.
const BIND: char = '\u{2}';

/// Replaces the sizes no other line reads by `_` in the entry's
/// `b, n, _ = x.shape` lines, and drops such a line when it binds nothing,
/// and a `h = x.shape[2] // 2` line whose name nothing reads: generated
/// code binds only what it uses.
pub fn drop_unused_sizes(lines: Lines) -> Lines {
    let mut out = Lines::with_capacity(lines.len());
    for (k, (level, text)) in lines.iter().enumerate() {
        if let Some(bind) = text.strip_prefix(BIND) {
            let target = bind.split_once(" = ").map_or(bind, |(t, _)| t);
            let read = lines
                .iter()
                .enumerate()
                .any(|(j, (_, other))| j != k && reads_name(other, target));
            if read {
                out.push((*level, bind.to_string()));
            }
            continue;
        }
        let Some(unpack) = text.strip_prefix(UNPACK) else {
            out.push((*level, text.clone()));
            continue;
        };
        let Some((targets, value)) = unpack.split_once(" = ") else {
            continue;
        };
        let kept: Vec<&str> = targets
            .split(", ")
            .map(|t| {
                let used = t != "_"
                    && lines
                        .iter()
                        .enumerate()
                        .any(|(j, (_, other))| j != k && reads_name(other, t));
                if used {
                    t
                } else {
                    "_"
                }
            })
            .collect();
        let used: Vec<usize> = (0..kept.len()).filter(|&i| kept[i] != "_").collect();
        match used.as_slice() {
            [] => {}
            [i] => out.push((*level, format!("{} = {value}[{i}]", kept[*i]))),
            _ => out.push((*level, format!("{} = {value}", kept.join(", ")))),
        }
    }
    out
}

/// Whether Python code may read the name `name`: it occurs outside string
/// literals and not as an attribute `x.name` (a keyword `name=` counts too,
/// which only keeps a binding that was not needed).
fn reads_name(code: &str, name: &str) -> bool {
    let code = code.split('\u{0}').next().unwrap_or("");
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if ident(c) {
            let (end, found) = crate::header::name_at(code, i, name, ident);
            if found {
                return true;
            }
            i = end;
            continue;
        }
        i += 1;
    }
    false
}

/// What one axis of a parameter must be.
enum Want {
    Any,
    Exactly(String),
    MultipleOf(String),
    /// `offset + factor * n` for an `n` of at least 1 (`[n + 1]`).
    Offset {
        offset: i128,
        factor: i128,
    },
}

/// Binds the generic sizes where the checker says each is read on entry
/// (`body.generics`: an axis of a parameter, divided by a factor for `16gh`
/// or by the sizes known before it for a group `(n d)`) into `scope.sizes`,
/// and compares every other size the checker knows with plain integer
/// comparisons, one `if` per parameter.
/// A parameter in `optional` (a `none` default) is checked only when it is
/// given: `if w is not None:` around its `if`.
pub fn entry(
    scope: &mut Scope,
    body: &Body,
    checks: bool,
    optional: &[syntax::Name],
    base: usize,
) -> Lines {
    let mut out = Lines::new();
    let gen = scope.gen;
    let file = scope.file;
    for (param, Binding { name, ty, .. }) in body.params.iter().enumerate() {
        let py = scope.param(param, name);
        let Some(axes) = ty.shape() else {
            continue;
        };
        let is_optional = optional.contains(name);
        let mut wants = Vec::with_capacity(axes.len());
        let mut plain_binds: Vec<Option<syntax::Name>> = vec![None; axes.len()];
        let mut bound_here = Vec::new();
        let mut other_binds = Vec::new();
        for (i, axis) in axes.iter().enumerate() {
            let source = body
                .generics
                .iter()
                .find(|g| g.param == param && g.axis == i && !scope.sizes.contains_key(&*g.name));
            let want = match source {
                Some(g) if g.offset != 0 => {
                    // `[n + 1]`: the axis less 1 (divided by `2` for `[2*n + 1]`).
                    let local = scope.names.size(g.name);
                    let less = match g.offset {
                        o if o > 0 => format!("{py}.shape[{i}] - {o}"),
                        o => format!("{py}.shape[{i}] + {}", -o),
                    };
                    let value = match g.factor {
                        1 => format!("({less})"),
                        f => format!("(({less}) // {f})"),
                    };
                    other_binds.push(format!("{local} = {}", &value[1..value.len() - 1]));
                    scope.sizes.insert(g.name.to_string(), value);
                    bound_here.push(g.name);
                    Want::Offset {
                        offset: g.offset,
                        factor: g.factor,
                    }
                }
                Some(g) if g.factor == 1 && g.divide_by.is_none() => {
                    // Until the line that binds it, a later axis of the
                    // same parameter (`[b n n]`) reads it from the shape.
                    scope
                        .sizes
                        .insert(g.name.to_string(), format!("{py}.shape[{i}]"));
                    plain_binds[i] = Some(g.name);
                    Want::Any
                }
                Some(g) => match divisor(scope, g.factor, g.divide_by.as_ref()) {
                    Some(k) => {
                        let local = scope.names.size(g.name);
                        other_binds.push(format!("{local} = {py}.shape[{i}] // {k}"));
                        scope
                            .sizes
                            .insert(g.name.to_string(), format!("({py}.shape[{i}] // {k})"));
                        bound_here.push(g.name);
                        Want::MultipleOf(k)
                    }
                    None => Want::Any,
                },
                None => match axis_size(axis).and_then(|p| size_expr(scope, &p)) {
                    Some(e) => Want::Exactly(e),
                    None => Want::Any,
                },
            };
            wants.push(want);
        }
        if checks {
            let guard = is_optional.then(|| format!("{py} is not None"));
            let what = ParamCheck {
                label: &scope.label,
                name,
                py: &py,
                axes,
                at: gen.where_(file, ty.span.start),
            };
            out.extend(param_check(&what, &wants, guard.as_deref(), base));
        }
        // A parameter left out has no axes: the checker reads no size from
        // one that another parameter doesn't give (E0306), so its sizes
        // stay its own `.shape[i]`, read inside its check only.
        if is_optional {
            continue;
        }
        for g in plain_binds.iter().flatten().chain(&bound_here) {
            let local = scope.names.size(*g);
            scope.sizes.insert(g.to_string(), local);
        }
        if plain_binds.iter().any(Option::is_some) {
            let targets: Vec<String> = plain_binds
                .iter()
                .map(|b| b.map_or_else(|| "_".to_string(), |g| scope.names.size(g)))
                .collect();
            out.push((0, format!("{UNPACK}{} = {py}.shape", targets.join(", "))));
        }
        for bind in other_binds {
            out.push((0, format!("{BIND}{bind}")));
        }
    }
    late_generics(scope, body, checks, base, &mut out);
    out
}

/// What a parameter's boundary check names: the function, the parameter,
/// its Python name, its declared axes and where it is declared.
struct ParamCheck<'a> {
    label: &'a str,
    name: &'a str,
    py: &'a str,
    axes: &'a [Axis],
    at: String,
}

/// The `if` comparing one parameter's rank and sizes with `wants`, and
/// the `ShapeError` it raises; `guard` (`w is not None`) first when the
/// parameter may be left out. Lines are relative to `base`.
fn param_check(what: &ParamCheck, wants: &[Want], guard: Option<&str>, base: usize) -> Lines {
    let py = what.py;
    let mut conds = vec![format!("{py}.ndim != {}", what.axes.len())];
    let mut expected = Vec::new();
    for (i, want) in wants.iter().enumerate() {
        match want {
            Want::Any => expected.push("None".to_string()),
            Want::Exactly(e) => {
                conds.push(format!("{py}.shape[{i}] != {e}"));
                // The message must not index a shape of too few axes.
                let own = e.contains(&format!("{py}.shape["));
                expected.push(if own { "None".into() } else { e.clone() });
            }
            Want::MultipleOf(k) => {
                conds.push(format!("{py}.shape[{i}] % {k} != 0"));
                expected.push(format!("(\"*\", {k})"));
            }
            Want::Offset { offset, factor } => {
                conds.push(format!("{py}.shape[{i}] < {}", offset + factor));
                if *factor != 1 {
                    let less = match offset {
                        o if *o >= 0 => format!("{py}.shape[{i}] - {o}"),
                        o => format!("{py}.shape[{i}] + {}", -o),
                    };
                    conds.push(format!("({less}) % {factor} != 0"));
                }
                expected.push(format!("(\"+\", {offset}, {factor})"));
            }
        }
    }
    let expected = match expected.len() {
        1 => format!("({},)", expected[0]),
        _ => format!("({})", expected.join(", ")),
    };
    let mut out: Lines = match guard {
        Some(guard) => guarded_if_lines(base, guard, &conds),
        None => if_lines(base, &conds),
    };
    let args = vec![
        string_literal(what.label),
        string_literal(what.name),
        py.to_string(),
        string_literal(&show_shape(what.axes)),
        expected,
        string_literal(&what.at),
    ];
    out.extend(call_lines(
        base + 1,
        "shapescript_runtime.shape_error",
        &args,
    ));
    out.into_iter().map(|(l, t)| (l - base, t)).collect()
}

/// `if guard and (a or b):`, split as `ruff format` splits it: at the
/// group's bracket, then one condition a line.
fn guarded_if_lines(indent: usize, guard: &str, conds: &[String]) -> Lines {
    if conds.len() == 1 {
        return if_lines(indent, &[format!("{guard} and {}", conds[0])]);
    }
    let inner = conds.join(" or ");
    let one = format!("if {guard} and ({inner}):");
    if indent * 4 + one.len() <= crate::writer::LINE_LENGTH {
        return vec![(indent, one)];
    }
    let mut out = vec![(indent, format!("if {guard} and ("))];
    if (indent + 1) * 4 + inner.len() <= crate::writer::LINE_LENGTH {
        out.push((indent + 1, inner));
    } else {
        for (k, c) in conds.iter().enumerate() {
            let text = if k == 0 { c.clone() } else { format!("or {c}") };
            out.push((indent + 1, text));
        }
    }
    out.push((indent, "):".into()));
    out
}

/// Binds the generic sizes read from a parameter's group whose other parts
/// a later parameter gives (`x: [(a b)], y: [b]`: `a = x.shape[0] // b`),
/// once every parameter was read, with a check that the axis is a multiple.
fn late_generics(scope: &mut Scope, body: &Body, checks: bool, base: usize, out: &mut Lines) {
    let gen = scope.gen;
    let file = scope.file;
    for g in &body.generics {
        if scope.sizes.contains_key(&*g.name) {
            continue;
        }
        let (Some(k), Some(Binding { name, ty, .. })) = (
            divisor(scope, g.factor, g.divide_by.as_ref()),
            body.params.get(g.param),
        ) else {
            continue;
        };
        let Some(axes) = ty.shape() else { continue };
        let py = scope.param(g.param, name);
        let (i, local) = (g.axis, scope.names.size(g.name));
        if checks {
            out.extend(
                if_lines(base, &[format!("{py}.shape[{i}] % {k} != 0")])
                    .into_iter()
                    .map(|(l, t)| (l - base, t)),
            );
            let expected: Vec<String> = (0..axes.len())
                .map(|j| {
                    if j == i {
                        format!("(\"*\", {k})")
                    } else {
                        "None".into()
                    }
                })
                .collect();
            let expected = match expected.len() {
                1 => format!("({},)", expected[0]),
                _ => format!("({})", expected.join(", ")),
            };
            let args = vec![
                string_literal(&scope.label),
                string_literal(name),
                py.clone(),
                string_literal(&show_shape(axes)),
                expected,
                string_literal(&gen.where_(file, ty.span.start)),
            ];
            out.extend(
                call_lines(base + 1, "shapescript_runtime.shape_error", &args)
                    .into_iter()
                    .map(|(l, t)| (l - base, t)),
            );
        }
        out.push((0, format!("{BIND}{local} = {py}.shape[{i}] // {k}")));
        scope.sizes.insert(g.name.to_string(), local);
    }
}

/// The Python expression of a size all of whose symbols are known here.
pub fn size_expr(scope: &Scope, poly: &Poly) -> Option<String> {
    scope.size_code(&check::hir::Size::computed(poly.clone()))
}

/// A parameter axis's size: one size, or the product of a group's parts.
fn axis_size(axis: &Axis) -> Option<Poly> {
    match &axis.kind {
        AxisKind::Size { size, .. } => Some(size.poly.clone()),
        AxisKind::Group { parts, .. } => parts
            .iter()
            .try_fold(Poly::constant(1), |acc, p| acc.mul(&axis_size(p)?).ok()),
        _ => None,
    }
}

/// What an axis read on entry is divided by: `16` for `16gh`, the sizes
/// known before it for a group `(n d)`, parenthesized when it is a product.
fn divisor(scope: &Scope, factor: i128, divide_by: Option<&check::hir::Size>) -> Option<String> {
    let by = match divide_by {
        Some(d) => Some(scope.size_code(d)?),
        None => None,
    };
    let text = match (factor, by) {
        (f, None) => f.to_string(),
        (1, Some(d)) => d,
        (f, Some(d)) => format!("{f} * {d}"),
    };
    Some(if text.contains(' ') {
        format!("({text})")
    } else {
        text
    })
}

/// `if a or b or c:` laid out as `black` does when it is too long.
pub fn if_lines(indent: usize, conds: &[String]) -> Lines {
    let one = format!("if {}:", conds.join(" or "));
    let or = |k: usize, c: &str| {
        if k == 0 {
            c.to_string()
        } else {
            format!("or {c}")
        }
    };
    black_split(indent, one, ("if (".into(), "):"), conds, " or ", or)
}

/// `callee(args)` as one statement, split the way `black` splits a call.
pub fn call_lines(indent: usize, callee: &str, args: &[String]) -> Lines {
    let one = format!("{callee}({})", args.join(", "));
    let open = format!("{callee}(");
    black_split(indent, one, (open, ")"), args, ", ", |_, a| format!("{a},"))
}

/// A bracketed statement as `black` lays it out: `one` line when it fits;
/// else `open` and `close` around the items joined by `sep` on a line of
/// their own; else one item a line, the `k`th written `item(k, text)`.
fn black_split(
    indent: usize,
    one: String,
    (open, close): (String, &str),
    items: &[String],
    sep: &str,
    item: impl Fn(usize, &str) -> String,
) -> Lines {
    if indent * 4 + one.len() <= crate::writer::LINE_LENGTH {
        return vec![(indent, one)];
    }
    let inner = items.join(sep);
    if (indent + 1) * 4 + inner.len() <= crate::writer::LINE_LENGTH {
        return vec![(indent, open), (indent + 1, inner), (indent, close.into())];
    }
    let mut out = vec![(indent, open)];
    let each = items
        .iter()
        .enumerate()
        .map(|(k, text)| (indent + 1, item(k, text)));
    out.extend(each);
    out.push((indent, close.into()));
    out
}
