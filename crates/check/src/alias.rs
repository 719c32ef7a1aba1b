//! Shape aliases (`dim Images = [b 3 16gh 16gw]`): finds aliases defined in
//! terms of themselves, directly or through others and across files (E2201,
//! with the chain), and checks each alias's own axes once at its declaration.
//! Replacing an alias where it is used is `lower`'s job, since its names are
//! looked up there.

use rustc_hash::FxHashMap as HashMap;
use syntax::Name;

use diag::{Diagnostic, FileId, SourceMap, Span};
use syntax::ast;

use crate::codes;
pub use crate::lower::Aliases;
use crate::lower::{Env, Lowerer, Place, MAX_AXES};
use crate::program::{Decl, Program};

struct AliasInfo<'a> {
    file: FileId,
    decl: &'a ast::Dim,
    list_span: Span,
    /// The aliases of the batch this one's axes use, with where.
    deps: Vec<(usize, Span)>,
    /// How many of its axes are aliases of earlier batches, and how many
    /// axes those stand for; `None` when one of them is broken.
    earlier: Option<(usize, usize)>,
}

/// Finds alias cycles (E2201); the aliases on them are broken.
pub fn find_cycles(
    program: &Program,
    map: &SourceMap,
    diagnostics: &mut Vec<Diagnostic>,
) -> Aliases {
    let mut aliases = Aliases::default();
    let all: Vec<usize> = (0..program.modules.len()).collect();
    find_cycles_batch(program, map, &all, &mut aliases, diagnostics);
    aliases
}

/// Finds the alias cycles of the modules `batch` (indices into
/// `Program::modules`); `aliases` holds what earlier batches found.
pub fn find_cycles_batch(
    program: &Program,
    map: &SourceMap,
    batch: &[usize],
    aliases: &mut Aliases,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let count = batch
        .iter()
        .flat_map(|&m| &program.modules[m].ast.items)
        .filter(|item| is_alias(item))
        .count();
    if count == 0 {
        return;
    }
    let (mut infos, lists, index) = batch_aliases(program, batch, count);
    for (info, list) in infos.iter_mut().zip(&lists) {
        (info.deps, info.earlier) = alias_deps(program, &index, aliases, info.file, list);
    }
    let mut on_cycle = crate::depgraph::walk(
        infos.len(),
        |i| &infos[i].deps,
        |cycle| diagnostics.push(cycle_diagnostic(program, map, &infos, cycle)),
    )
    .on_cycle;
    // An alias that uses a broken alias can't be replaced either; `too_long`
    // breaks those silently, as the use is not a new mistake.
    let lengths = too_long(&infos, &lists, &mut on_cycle, diagnostics);
    for (i, info) in infos.iter().enumerate() {
        if i == 0 || infos[i - 1].file != info.file {
            let same_file = infos[i..]
                .iter()
                .take_while(|other| other.file == info.file);
            aliases.lengths.reserve(info.file, same_file.count());
        }
        match lengths[i] {
            Some(length) if !on_cycle[i] => {
                aliases
                    .lengths
                    .insert(info.file, info.decl.name.name, length);
            }
            _ => {
                aliases.broken.insert((info.file, info.decl.name.name));
            }
        }
    }
}

/// The aliases the modules of `batch` declare (the first of a name
/// declared twice), in order, with their axes, and where each is in that list.
#[allow(clippy::type_complexity)]
fn batch_aliases<'p>(
    program: &'p Program,
    batch: &[usize],
    count: usize,
) -> (
    Vec<AliasInfo<'p>>,
    Vec<&'p ast::ShapeList>,
    HashMap<(FileId, Name), usize>,
) {
    let mut infos: Vec<AliasInfo> = Vec::with_capacity(count);
    let mut lists: Vec<&ast::ShapeList> = Vec::with_capacity(count);
    let mut index: HashMap<(FileId, Name), usize> =
        HashMap::with_capacity_and_hasher(count, Default::default());
    for module in batch.iter().map(|&m| &program.modules[m]) {
        for (i, item) in module.ast.items.iter().enumerate() {
            if let ast::Item::Dim(
                decl @ ast::Dim {
                    value: ast::DimValue::Alias(list),
                    ..
                },
            ) = item
            {
                if module.names.get(&decl.name.name) == Some(&i) {
                    index.insert((module.file, decl.name.name), infos.len());
                    infos.push(AliasInfo {
                        file: module.file,
                        decl,
                        list_span: list.span,
                        deps: Vec::new(),
                        earlier: Some((0, 0)),
                    });
                    lists.push(list);
                }
            }
        }
    }
    (infos, lists, index)
}

/// An alias's uses: the batch's aliases with where (`AliasInfo::deps`), and
/// what its aliases of earlier batches stand for (`AliasInfo::earlier`).
type AliasUses = (Vec<(usize, Span)>, Option<(usize, usize)>);

/// The aliases of the batch one alias's axes use, with where, and how many
/// of its axes are aliases of earlier batches and how many axes those stand
/// for (`None` when one of them is broken).
fn alias_deps(
    program: &Program,
    index: &HashMap<(FileId, Name), usize>,
    aliases: &Aliases,
    file: FileId,
    list: &ast::ShapeList,
) -> AliasUses {
    let mut deps = Vec::new();
    let mut earlier: Option<(usize, usize)> = Some((0, 0));
    for axis in &list.axes {
        let path = match &axis.kind {
            ast::AxisKind::Size(size) => size.kind.path(),
            _ => None,
        };
        if let Some(path) = &path {
            if let Ok((file, Decl::Alias(d, _))) = program.lookup(file, path) {
                let key = (file, d.name.name);
                if let Some(&dep) = index.get(&key) {
                    deps.push((dep, path.span));
                } else {
                    let length = aliases.lengths.get(key.0, &key.1).copied();
                    earlier = match (earlier, length) {
                        (Some((axes, total)), Some(length)) => {
                            Some((axes + 1, total.saturating_add(length)))
                        }
                        _ => None,
                    };
                }
            }
        }
    }
    (deps, earlier)
}

/// Works out how many axes each alias stands for, and breaks the ones over
/// `MAX_AXES` (E2203, reported once at the first alias of a chain to pass it):
/// an alias using another twice doubles at each step.
/// Returns each alias's length (`None` for the broken ones).
fn too_long(
    infos: &[AliasInfo],
    lists: &[&ast::ShapeList],
    broken: &mut [bool],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Option<usize>> {
    let mut length: Vec<Option<usize>> = vec![None; infos.len()];
    // One stack for all starts: most aliases use no other alias.
    let mut stack = Vec::new();
    for start in 0..infos.len() {
        stack.clear();
        stack.push(start);
        while let Some(&alias) = stack.last() {
            if length[alias].is_some() || broken[alias] {
                stack.pop();
                continue;
            }
            let before = stack.len();
            stack.extend(
                infos[alias]
                    .deps
                    .iter()
                    .map(|&(d, _)| d)
                    .filter(|&d| length[d].is_none() && !broken[d]),
            );
            if stack.len() > before {
                continue;
            }
            stack.pop();
            let Some((earlier_axes, earlier_length)) = infos[alias].earlier else {
                broken[alias] = true;
                continue;
            };
            if infos[alias].deps.iter().any(|&(d, _)| broken[d]) {
                broken[alias] = true;
                continue;
            }
            let own = lists[alias].axes.len() - infos[alias].deps.len() - earlier_axes;
            let total = infos[alias]
                .deps
                .iter()
                .fold(own.saturating_add(earlier_length), |sum, &(d, _)| {
                    sum.saturating_add(length[d].unwrap_or(0))
                });
            if total > MAX_AXES {
                broken[alias] = true;
                diagnostics.push(
                    Diagnostic::error(codes::E2203, format!("shape alias `{}` stands for more than {MAX_AXES} axes", infos[alias].decl.name.name))
                        .with_primary(infos[alias].decl.name.span, format!("{total} axes once its aliases are replaced"))
                        .with_help("an alias that uses another alias twice doubles its length at each step; name fewer axes"),
                );
            } else {
                length[alias] = Some(total);
            }
        }
    }
    length
}

fn cycle_diagnostic(
    program: &Program,
    map: &SourceMap,
    infos: &[AliasInfo],
    cycle: &[(usize, usize)],
) -> Diagnostic {
    let first = &infos[cycle[0].0];
    let mut diagnostic = Diagnostic::error(
        codes::E2201,
        format!(
            "shape alias `{}` is defined in terms of itself",
            first.decl.name.name
        ),
    )
    .with_primary(first.decl.name.span, "this alias contains itself");
    for &(alias, next) in cycle {
        let info = &infos[alias];
        let (dep, span) = info.deps[next - 1];
        let dep_name = &infos[dep].decl.name.name;
        let qualified = if infos[dep].file == info.file {
            dep_name.to_string()
        } else {
            format!("{}.{}", program.module(infos[dep].file).name, dep_name)
        };
        diagnostic = diagnostic
            .with_secondary(
                span,
                format!("`{}` uses `{qualified}`", info.decl.name.name),
            )
            .with_note(format!(
                "`{}` = {} uses `{qualified}`",
                info.decl.name.name,
                source_text(map, info.list_span)
            ));
    }
    diagnostic.with_help("an alias may use other aliases, but the chain must end in axes")
}

/// Checks each alias's own axes once, where it is declared: sizes, divisions,
/// `...`, aliases inside one axis. Names not declared are its users' axes.
pub fn check_declarations(env: Env, diagnostics: &mut Vec<Diagnostic>) {
    let all: Vec<usize> = (0..env.program.modules.len()).collect();
    check_declarations_batch(env, &all, diagnostics);
}

/// `check_declarations` for the modules `batch` (indices into `Program::modules`).
pub fn check_declarations_batch(env: Env, batch: &[usize], diagnostics: &mut Vec<Diagnostic>) {
    // One lowerer for every alias: its buffers are reused, not rebuilt.
    let mut lowerer = Lowerer::new(env, FileId(0), diagnostics);
    for module in batch.iter().map(|&m| &env.program.modules[m]) {
        // Its messages name other files' dims as it imports them (`vis.D`).
        let _names = module.import_names();
        // Each declaration is remembered for its module; a module may
        // remember another file's alias too (at its second use).
        let own = module
            .ast
            .items
            .iter()
            .filter(|item| is_alias(item))
            .count();
        if own == 0 {
            continue;
        }
        lowerer.reserve_aliases(module.file, own + 1);
        for item in &module.ast.items {
            if let ast::Item::Dim(ast::Dim {
                value: ast::DimValue::Alias(list),
                name,
                ..
            }) = item
            {
                if env.aliases.is_broken(module.file, name.name) {
                    continue;
                }
                lowerer.reset(module.file);
                lowerer.place = Place::AliasDecl;
                // An alias may be used by an extern fn, so `...` is checked where it is used.
                lowerer.rest_allowed = true;
                lowerer.expand_aliases = false;
                lowerer.declare_alias(name.name, list);
            }
        }
    }
}

fn is_alias(item: &ast::Item) -> bool {
    matches!(
        item,
        ast::Item::Dim(ast::Dim {
            value: ast::DimValue::Alias(_),
            ..
        })
    )
}

fn source_text(map: &SourceMap, span: Span) -> &str {
    map.text(span.file)
        .get(span.start as usize..span.end as usize)
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use crate::tests::check_files;
    use expect_test::expect;

    #[test]
    fn aliases_use_aliases_declared_later_and_in_other_files() {
        check_files(
            &[
                ("a.ss", "import v\ndim Pair = [v.Images 2]\ndim Quad = [Pair Pair]\nextern fn f(x: Quad) -> [b] = \"m.f\"\n"),
                ("v.ss", "dim Images = [b 3 16gh 16gw]\n"),
            ],
            expect![[r#""#]],
        );
    }

    #[test]
    fn a_cycle_is_reported_once_and_its_users_stay_quiet() {
        check_files(
            &[("a.ss", "dim A = [B 1]\ndim B = [C 2]\ndim C = [A 3]\ndim User = [A D]\ndim D = 4\nextern fn f(x: User) -> [n] = \"m.f\"\n")],
            expect![[r#"
                a.ss:1:5 E2201 shape alias `A` is defined in terms of itself [`A`: this alias contains itself]
                  also `B`: `A` uses `B`
                  also `C`: `B` uses `C`
                  also `A`: `C` uses `A`
                  note: `A` = [B 1] uses `B`
                  note: `B` = [C 2] uses `C`
                  note: `C` = [A 3] uses `A`
                  help: an alias may use other aliases, but the chain must end in axes
            "#]],
        );
    }

    #[test]
    fn an_aliases_own_mistakes_are_reported_at_its_declaration_once() {
        check_files(
            &[("a.ss", "dim D = 768\ndim Bad = [b D/5]\nextern fn f(x: Bad) -> [b] = \"m.f\"\nextern fn g(x: Bad) -> [b] = \"m.g\"\n")],
            expect![[r#"
                a.ss:2:14 E0402 size division is not exact [`D/5`: 768 / 5 is not a whole number]
                  note: `a / b` in a size must be exact: `b` a single term that divides every term of `a`, symbolically or once dims are replaced by their values
                  note: `D` is 768
                  help: write the other size as a multiple instead: `[2*n]` and `[n]` rather than `[n]` and `[n/2]`
            "#]],
        );
    }
}
