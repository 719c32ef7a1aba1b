//! Dims: works out every `dim D = ...` of every module in dependency order (a
//! dim may use one declared later or in an imported file), reporting names
//! that aren't dims (E0301/E0303/E0204), cycles (E0304, with the chain),
//! values that aren't whole numbers of at least 1 (E0305) and overflow
//! (E0414). A dim that uses a broken dim is broken silently: one mistake, one
//! diagnostic. Never looks at shape aliases' contents.

use crate::resolved::Recorder;
use rustc_hash::FxHashMap as HashMap;
use syntax::Name;

use diag::{Diagnostic, FileId, SourceMap, Span};
use syntax::ast::{self, SizeExpr, SizeExprKind, SizeOp};

use crate::codes;
use crate::per_file::PerFile;
use crate::program::{Decl, Program};
use crate::size::{Poly, SizeError, Symbol};

/// A dim's identity: the module that declares it and its name there.
pub type DimKey = (FileId, Name);

/// The value of every dim; `None` for a dim whose mistake was reported.
#[derive(Default, Debug)]
pub struct DimValues {
    /// A table per module, filled as each module is checked.
    values: PerFile<Name, Option<i128>>,
    /// How many dims are broken: usually none, and then a dim found by
    /// name needs no lookup to know it works.
    broken: usize,
}

impl DimValues {
    /// The dim's value, or `None` when it is broken or not a dim.
    pub fn get(&self, file: FileId, name: impl Into<Name>) -> Option<i128> {
        self.values.get(file, &name.into()).copied().flatten()
    }

    pub fn is_broken(&self, file: FileId, name: impl Into<Name>) -> bool {
        matches!(self.values.get(file, &name.into()), Some(None))
    }

    /// Whether the dim `name` of `file`, which is declared, has a value.
    pub fn works(&self, file: FileId, name: Name) -> bool {
        self.broken == 0 || matches!(self.values.get(file, &name), Some(Some(_)))
    }

    /// The dim's shared name and value (`None` when broken), in one lookup.
    pub fn entry(&self, file: FileId, name: impl Into<Name>) -> Option<(&Name, Option<i128>)> {
        self.values
            .get_key_value(file, &name.into())
            .map(|(k, v)| (k, *v))
    }

    /// The size's value when it is made of working dims only, worked out
    /// without building polynomials; `None` when a symbol is no working dim
    /// or the arithmetic overflows (then `substitute` tells what it is).
    pub fn value(&self, size: &Poly) -> Option<i128> {
        let mut sum: i128 = 0;
        for term in size.terms() {
            let mut product = term.coef;
            for (symbol, power) in term.mono.factors() {
                let Symbol::Dim { file, name } = symbol else {
                    return None;
                };
                let value = self.get(*file, name)?;
                for _ in 0..*power {
                    product = product.checked_mul(value)?;
                }
            }
            sum = sum.checked_add(product)?;
        }
        Some(sum)
    }

    /// The size with every (working) dim replaced by its value.
    pub fn substitute(&self, size: &Poly) -> Result<Poly, SizeError> {
        size.substitute(&|s| match s {
            Symbol::Dim { file, name } => self.get(*file, name).map(Poly::constant),
            _ => None,
        })
    }

    /// Whether two sizes are equal once dims are replaced by their values
    /// (seed: `3*D` equals `3*H*Dh` with `D = 768, H = 12, Dh = D / H`).
    pub fn same_size(&self, a: &Poly, b: &Poly) -> bool {
        if a == b {
            return true;
        }
        // Sizes of dims only (the common case) compare by value, without
        // building polynomials; anything else (generic axes that may cancel
        // once dims are replaced, overflow) takes the general way.
        if let (Some(x), Some(y)) = (self.value(a), self.value(b)) {
            return x == y;
        }
        matches!((self.substitute(a), self.substitute(b)), (Ok(x), Ok(y)) if x == y)
    }
}

/// Why an evaluation stopped: reported now, or already reported elsewhere.
enum Stop {
    Reported(Box<Diagnostic>),
    Silent,
}

fn reported(diagnostic: Diagnostic) -> Stop {
    Stop::Reported(Box::new(diagnostic))
}

struct DimInfo<'a> {
    file: FileId,
    decl: &'a ast::Dim,
    value: &'a SizeExpr,
    /// Where the dims this one uses, with where, lie in the one list all
    /// dims share (a list each would be an allocation each).
    deps: std::ops::Range<usize>,
}

/// Works out every dim of the program.
pub fn evaluate(
    program: &Program,
    map: &SourceMap,
    diagnostics: &mut Vec<Diagnostic>,
    record: Option<&Recorder>,
) -> DimValues {
    let mut out = DimValues::default();
    let all: Vec<usize> = (0..program.modules.len()).collect();
    evaluate_batch(program, map, &all, &mut out, diagnostics, record);
    out
}

/// Works out the dims of the modules `batch` (indices into
/// `Program::modules`) into `out`, which holds the dims of every module
/// they import that is not in the batch.
pub fn evaluate_batch(
    program: &Program,
    map: &SourceMap,
    batch: &[usize],
    out: &mut DimValues,
    diagnostics: &mut Vec<Diagnostic>,
    record: Option<&Recorder>,
) {
    let (mut infos, index) = batch_dims(program, batch);
    let mut all_deps = Vec::with_capacity(infos.len());
    for info in &mut infos {
        let start = all_deps.len();
        collect_deps(program, &index, info.file, info.value, &mut all_deps);
        info.deps = start..all_deps.len();
    }
    let walk = crate::depgraph::walk(
        infos.len(),
        |i| &all_deps[infos[i].deps.clone()],
        |cycle| diagnostics.push(cycle_diagnostic(&infos, &all_deps, map, cycle)),
    );
    let mut values: Vec<Option<Option<i128>>> = vec![None; infos.len()];
    for (i, &on_cycle) in walk.on_cycle.iter().enumerate() {
        if on_cycle {
            values[i] = Some(None);
        }
    }
    for i in walk.order {
        if values[i].is_some() {
            continue;
        }
        let known = Known {
            index: &index,
            values: &values,
            before: out,
            record,
        };
        let result = evaluate_dim(program, &known, &infos[i]);
        values[i] = Some(match result {
            Ok(v) => Some(v),
            Err(Stop::Reported(d)) => {
                diagnostics.push(*d);
                None
            }
            Err(Stop::Silent) => None,
        });
    }
    store_values(out, &infos, &values);
}

/// The dims the modules of `batch` declare with a value (the first of a
/// name declared twice), in order, and where each is in that list.
fn batch_dims<'p>(
    program: &'p Program,
    batch: &[usize],
) -> (Vec<DimInfo<'p>>, HashMap<DimKey, usize>) {
    let count = batch
        .iter()
        .flat_map(|&m| &program.modules[m].ast.items)
        .filter(|item| {
            matches!(
                item,
                ast::Item::Dim(ast::Dim {
                    value: ast::DimValue::Size(_),
                    ..
                })
            )
        })
        .count();
    let mut infos: Vec<DimInfo> = Vec::with_capacity(count);
    let mut index: HashMap<DimKey, usize> =
        HashMap::with_capacity_and_hasher(count, Default::default());
    for module in batch.iter().map(|&m| &program.modules[m]) {
        for item in &module.ast.items {
            if let ast::Item::Dim(
                decl @ ast::Dim {
                    value: ast::DimValue::Size(value),
                    ..
                },
            ) = item
            {
                let key: DimKey = (module.file, decl.name.name);
                // A dim declared twice was reported by `load`; only the first counts.
                if module
                    .names
                    .get(&decl.name.name)
                    .is_some_and(|&i| std::ptr::eq(&module.ast.items[i], item))
                {
                    index.insert(key, infos.len());
                    infos.push(DimInfo {
                        file: module.file,
                        decl,
                        value,
                        deps: 0..0,
                    });
                }
            }
        }
    }
    (infos, index)
}

/// Evaluates one dim from the dims it uses (`known`); E0305 for a value
/// below 1.
fn evaluate_dim(program: &Program, known: &Known, info: &DimInfo) -> Result<i128, Stop> {
    eval(program, known, info.file, info.value).and_then(|v| {
        if v >= 1 {
            Ok(v)
        } else {
            Err(reported(
                Diagnostic::error(
                    codes::E0305,
                    format!(
                        "dim `{}` is {v}, not a whole number of at least 1",
                        info.decl.name.name
                    ),
                )
                .with_primary(info.value.span, format!("this is {v}"))
                .with_note("a dim is a size, so its value must be at least 1"),
            ))
        }
    })
}

/// Stores the batch's values in `out`; a dim that failed is stored as
/// broken.
fn store_values(out: &mut DimValues, infos: &[DimInfo], values: &[Option<Option<i128>>]) {
    // The batch's dims lie module by module: room for each module's at once.
    let mut start = 0;
    while start < infos.len() {
        let file = infos[start].file;
        let end = infos[start..]
            .iter()
            .position(|info| info.file != file)
            .map_or(infos.len(), |n| start + n);
        out.values.reserve(file, end - start);
        for (info, value) in infos[start..end].iter().zip(&values[start..end]) {
            let value = value.flatten();
            out.broken += usize::from(value.is_none());
            out.values.insert(file, info.decl.name.name, value);
        }
        start = end;
    }
}

/// The dims an evaluation can use: the batch's, worked out so far, and
/// those of earlier batches.
struct Known<'k> {
    index: &'k HashMap<DimKey, usize>,
    values: &'k [Option<Option<i128>>],
    before: &'k DimValues,
    /// Where to note what the names of dims' values resolve to, if anywhere.
    record: Option<&'k Recorder>,
}

impl Known<'_> {
    /// The dim's value; `None` when it is broken (reported) or unknown.
    fn value(&self, key: DimKey) -> Option<i128> {
        match self.index.get(&key) {
            Some(&i) => self.values[i].flatten(),
            None => self.before.values.get(key.0, &key.1).copied().flatten(),
        }
    }
}

fn collect_deps(
    program: &Program,
    index: &HashMap<DimKey, usize>,
    file: FileId,
    expr: &SizeExpr,
    out: &mut Vec<(usize, Span)>,
) {
    match &expr.kind {
        SizeExprKind::Name(_) | SizeExprKind::Qualified(_) => {
            let Some(path) = &expr.kind.path() else {
                return;
            };
            if let Ok((target, Decl::Dim(d, _))) = program.lookup(file, path) {
                if let Some(&i) = index.get(&(target, d.name.name)) {
                    out.push((i, path.span));
                }
            }
        }
        SizeExprKind::Binary { operands, .. } => {
            let (lhs, rhs) = &**operands;
            collect_deps(program, index, file, lhs, out);
            collect_deps(program, index, file, rhs, out);
        }
        SizeExprKind::Int(_) | SizeExprKind::Unknown(_) | SizeExprKind::Error => {}
    }
}

/// `stack` holds each dim of the cycle with one past the index of the dependency it follows.
fn cycle_diagnostic(
    infos: &[DimInfo],
    all_deps: &[(usize, Span)],
    map: &SourceMap,
    stack: &[(usize, usize)],
) -> Diagnostic {
    let first = &infos[stack[0].0];
    let name = &first.decl.name.name;
    let mut diagnostic = Diagnostic::error(
        codes::E0304,
        format!("dim `{name}` is defined in terms of itself"),
    )
    .with_primary(first.decl.name.span, "this dim's value depends on itself");
    for &(dim, next) in stack {
        let info = &infos[dim];
        let (dep, span) = all_deps[info.deps.clone()][next - 1];
        let value_text = map
            .text(info.file)
            .get(info.value.span.start as usize..info.value.span.end as usize)
            .unwrap_or("");
        diagnostic = diagnostic
            .with_secondary(
                span,
                format!(
                    "`{}` uses `{}`",
                    info.decl.name.name, infos[dep].decl.name.name
                ),
            )
            .with_note(format!(
                "`{}` = {} uses `{}`",
                info.decl.name.name, value_text, infos[dep].decl.name.name
            ));
    }
    diagnostic.with_help("give one dim of the chain a value that doesn't depend on the others")
}

fn eval(program: &Program, known: &Known, file: FileId, expr: &SizeExpr) -> Result<i128, Stop> {
    match &expr.kind {
        SizeExprKind::Int(v) => i128::try_from(v.get()).map_err(|_| reported(overflow(expr.span))),
        SizeExprKind::Error => Err(Stop::Silent),
        SizeExprKind::Unknown(name) => Err(reported(
            Diagnostic::error(
                codes::E0303,
                format!("`?{}` is an unknown size, which a dim can't be", name.name),
            )
            .with_primary(expr.span, "not known before the program runs")
            .with_help("a dim's value is made of numbers and other dims"),
        )),
        SizeExprKind::Name(_) | SizeExprKind::Qualified(_) => {
            let Some(path) = &expr.kind.path() else {
                return Err(Stop::Silent);
            };
            let found = program.lookup(file, path);
            if let (Some(record), Ok((target, _))) = (known.record, &found) {
                record.note_path(file, path, *target);
            }
            match found {
                Ok((target, Decl::Dim(d, _))) => {
                    known.value((target, d.name.name)).ok_or(Stop::Silent)
                }
                Ok((_, decl)) => Err(reported(not_a_size(path, decl))),
                Err(error) => match error.to_diagnostic() {
                    Some(d) => Err(reported(
                        d.with_help("a dim's value is made of numbers and other dims"),
                    )),
                    None => Err(Stop::Silent),
                },
            }
        }
        SizeExprKind::Binary { op, operands } => {
            let (lhs, rhs) = &**operands;
            // This recursion follows the size's depth: grow the stack when needed.
            let a = syntax::ensure_sufficient_stack(|| eval(program, known, file, lhs));
            let b = syntax::ensure_sufficient_stack(|| eval(program, known, file, rhs));
            let (a, b) = match (a, b) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(Stop::Reported(d)), _) | (_, Err(Stop::Reported(d))) => {
                    return Err(Stop::Reported(d))
                }
                _ => return Err(Stop::Silent),
            };
            let result = match op {
                SizeOp::Add => a.checked_add(b),
                SizeOp::Sub => a.checked_sub(b),
                SizeOp::Mul => a.checked_mul(b),
                SizeOp::Div => {
                    if b == 0 || a % b != 0 {
                        let why = if b == 0 {
                            "a division by 0".to_string()
                        } else {
                            format!(
                                "{a} / {b} is not a whole number: it leaves {}",
                                a.rem_euclid(b.abs())
                            )
                        };
                        return Err(reported(
                            Diagnostic::error(codes::E0305, "division in a dim is not exact")
                                .with_primary(expr.span, why)
                                .with_help("a dim must be a whole number: divide by a number that divides it exactly"),
                        ));
                    }
                    a.checked_div(b)
                }
                SizeOp::Pow => {
                    match u32::try_from(b) {
                        Ok(e) => a.checked_pow(e),
                        Err(_) => return Err(reported(
                            Diagnostic::error(codes::E0305, "a negative power in a dim")
                                .with_primary(expr.span, format!("the exponent is {b}"))
                                .with_help(
                                    "a dim must be a whole number: raise to a power of 0 or more",
                                ),
                        )),
                    }
                }
            };
            result.ok_or_else(|| reported(overflow(expr.span)))
        }
    }
}

fn overflow(span: Span) -> Diagnostic {
    Diagnostic::error(codes::E0414, "size does not fit in 128 bits")
        .with_primary(span, "this size overflows")
        .with_note("sizes are computed with 128-bit integers, at most 170141183460469231731687303715884105727")
}

/// E0303 for a declaration that is not a size, used where a size is needed.
// Cold and apart: a mistake is rare, and building its message inline
// would make the hot lowering code save and restore registers.
#[cold]
#[inline(never)]
pub fn not_a_size(path: &ast::Path, decl: Decl) -> Diagnostic {
    let shown = shown_path(path);
    let diagnostic = misused(codes::E0303, path, decl, ("a size", "a size"));
    match decl {
        Decl::Alias(..) => diagnostic.with_help(format!(
            "a shape alias stands for several axes; use it as a shape, as in `x: {shown}` or `[{shown} D]`"
        )),
        _ => diagnostic.with_help("a size is made of numbers, dims and axis names"),
    }
}

/// A declaration used where another kind is needed (E0303 for a size,
/// E0310 for a shape): `` `x` is a function, not `kind` ``, the use
/// labelled as expecting `expected`, the declaration pointed at.
pub fn misused(
    code: diag::Code,
    path: &ast::Path,
    decl: Decl,
    (kind, expected): (&str, &str),
) -> Diagnostic {
    let shown = shown_path(path);
    Diagnostic::error(
        code,
        format!("`{shown}` is {}, not {kind}", decl.describe()),
    )
    .with_primary(path.span, format!("expected {expected}"))
    .with_secondary(
        decl.name_span(),
        format!("`{}` is declared here", path.name.name),
    )
}

/// A written path as messages show it: `file.name` or `name`.
pub fn shown_path(path: &ast::Path) -> String {
    match &path.file {
        Some(file) => format!("{}.{}", file.name, path.name.name),
        None => path.name.name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::check_files;
    use expect_test::expect;

    #[test]
    fn dims_in_any_order() {
        check_files(
            &[("a.ss", "dim Dh = D / H\ndim D = 768\ndim H = 12\n")],
            expect![[r#""#]],
        );
    }

    #[test]
    fn a_broken_dim_does_not_cascade() {
        check_files(
            &[(
                "a.ss",
                "dim A = B / 0\ndim B = 4\ndim C = A * 2\ndim E = C + A\n",
            )],
            expect![[r#"
                a.ss:1:9 E0305 division in a dim is not exact [`B / 0`: a division by 0]
                  help: a dim must be a whole number: divide by a number that divides it exactly
            "#]],
        );
    }

    #[test]
    fn long_chains_do_not_overflow_the_stack() {
        let mut text = String::new();
        for i in 0..20_000 {
            text.push_str(&format!("dim D{i} = D{} + 1\n", i + 1));
        }
        text.push_str("dim D20000 = 1\n");
        check_files(&[("a.ss", &text)], expect![[r#""#]]);
    }
}
