//! Built-in libraries written in SexpGPU (`nn`) and the prelude, embedded in
//! the binary, and `(require lib)` / `(require lib :refer :all)`. Library
//! definitions land under `lib/name`; nothing is read from disk. The top
//! layer below the session: library code may use every builtin, so this
//! module is installed last.

use crate::codes;
use crate::eval::{error, malformed, EvalResult, Interp, Special};
use crate::reader::{Form, FormKind};
use crate::value::Value;
use diag::Span;

/// Each library: its name and source.
const LIBRARIES: &[(&str, &str)] = &[("nn", include_str!("lib/nn.sx"))];

const PRELUDE: &str = include_str!("lib/prelude.sx");

static SPECIALS: &[Special] = &[Special {
    name: "require",
    eval: |interp, u, _, _| require(interp, u.args, u.form.span),
    defines: false,
}];

/// The libraries loaded so far, kept in the interpreter's state.
#[derive(Default)]
struct Loaded(Vec<String>);

/// Registers `require` and the hints for library names, and loads the
/// prelude (which uses the builtins, so every other layer comes first).
pub fn install(interp: &mut Interp) {
    interp.register_specials(SPECIALS);
    interp.register_hint(hint);
    load(interp, "sexpgpu/prelude.sx", PRELUDE, None);
}

/// The prelude's and the libraries' sources, named as their files
/// (`prelude.sx`, `nn.sx`); the session reads them as `sexpgpu/<name>`.
pub(crate) fn sources() -> Vec<(String, &'static str)> {
    let libraries = LIBRARIES
        .iter()
        .map(|(name, text)| (format!("{name}.sx"), *text));
    std::iter::once(("prelude.sx".to_string(), PRELUDE))
        .chain(libraries)
        .collect()
}

fn is_library(name: &str) -> bool {
    LIBRARIES.iter().any(|(n, _)| *n == name)
}

/// Whether a library defines `name` (for the hint on an unbound bare name).
fn defines(name: &str) -> bool {
    LIBRARIES
        .iter()
        .any(|(_, source)| source.contains(&format!("(defn {name} ")))
}

/// The help for an unbound name that a library would define: `nn/x` before
/// `(require nn)`, or a bare `x` that only `nn` has.
fn hint(interp: &Interp, name: &str) -> Option<String> {
    if let Some((library, _)) = name.split_once('/') {
        let loaded = interp
            .state_ref::<Loaded>()
            .is_some_and(|l| l.0.iter().any(|l| l == library));
        if !loaded && is_library(library) {
            return Some(format!("load the library first: `(require {library})`"));
        }
    }
    let qualified = format!("nn/{name}");
    if interp.global(&qualified).is_some() || defines(name) {
        return Some(format!(
            "`{name}` is in the nn library: write `{qualified}` after `(require nn)`, or `(require nn :refer :all)`"
        ));
    }
    None
}

/// Reads and evaluates embedded source as file `name`, with definitions
/// prefixed by `namespace/` when one is given.
fn load(interp: &mut Interp, name: &str, source: &str, namespace: Option<&str>) {
    let file = interp.sources.add(name, source);
    interp.library_files.push(file);
    let result = crate::reader::read(file, source);
    debug_assert!(
        result.diagnostics.is_empty(),
        "embedded {name} must read cleanly"
    );
    let previous = interp.namespace.take();
    interp.namespace = namespace.map(std::rc::Rc::from);
    let was_library = std::mem::replace(&mut interp.in_library, true);
    for form in &result.forms {
        let outcome = interp.eval_top(form);
        debug_assert!(outcome.is_ok(), "embedded {name} must evaluate cleanly");
    }
    interp.in_library = was_library;
    interp.namespace = previous;
}

/// `(require nn)`, `(require nn :refer :all)`, `(require nn :refer [mean])`.
fn require(interp: &mut Interp, args: &[Form], span: Span) -> EvalResult {
    let usage = "(require nn) or (require nn :refer :all)";
    let Some((lib, options)) = args.split_first() else {
        return Err(malformed("require", usage, span));
    };
    let lib_form = match &lib.kind {
        FormKind::List(items) if items.len() == 2 && items[0].as_symbol() == Some("quote") => {
            &items[1]
        }
        _ => lib,
    };
    let Some(name) = lib_form.as_symbol() else {
        return Err(malformed("require", usage, lib.span));
    };
    let Some((_, source)) = LIBRARIES.iter().find(|(n, _)| *n == name) else {
        let known: Vec<&str> = LIBRARIES.iter().map(|(n, _)| *n).collect();
        return Err(crate::eval::Flow::from(
            diag::Diagnostic::error(codes::E_EVAL_011, format!("no library named `{name}`"))
                .with_primary(lib.span, "")
                .with_note(format!("the built-in libraries are: {}", known.join(", "))),
        ));
    };
    let loaded = &mut interp.state::<Loaded>().0;
    if !loaded.iter().any(|l| l == name) {
        loaded.push(name.to_string());
        load(interp, &format!("sexpgpu/{name}.sx"), source, Some(name));
    }
    match options {
        [] => {}
        [k, what] if matches!(&k.kind, FormKind::Keyword(k) if k == "refer") => {
            let prefix = format!("{name}/");
            let wanted: Option<Vec<String>> = match &what.kind {
                FormKind::Keyword(all) if all == "all" => None,
                FormKind::Vector(names) => Some(
                    names
                        .iter()
                        .filter_map(|n| n.as_symbol().map(str::to_string))
                        .collect(),
                ),
                _ => return Err(malformed("require", usage, what.span)),
            };
            let mut exported: Vec<(String, Value)> = interp
                .globals
                .iter()
                .filter_map(|(k, v)| {
                    k.strip_prefix(&prefix)
                        .map(|bare| (bare.to_string(), v.clone()))
                })
                .collect();
            exported.sort_by(|a, b| a.0.cmp(&b.0));
            if let Some(wanted) = &wanted {
                if let Some(missing) = wanted
                    .iter()
                    .find(|w| !exported.iter().any(|(n, _)| n == *w))
                {
                    return Err(error(
                        codes::E_EVAL_001,
                        format!("`{name}` has no `{missing}`"),
                        what.span,
                    ));
                }
                exported.retain(|(n, _)| wanted.contains(n));
            } else {
                // `:refer :all` never shadows a builtin (`var`, `cumsum`):
                // the builtin keeps its name and keywords, and the
                // library's version stays `nn/var` (or `:refer [var]`).
                exported.retain(|(n, _)| !interp.is_core(n));
            }
            for (bare, value) in exported {
                interp.define(&bare, value);
            }
        }
        _ => return Err(malformed("require", usage, span)),
    }
    Ok(Value::Nil)
}
