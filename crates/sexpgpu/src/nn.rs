//! Built-in libraries written in SexpGPU (`nn`) and the prelude, embedded in
//! the binary, and `(require lib)` / `(require lib :refer :all)`. Library
//! definitions land under `lib/name`; nothing is read from disk.

use crate::codes;
use crate::eval::{error, EvalResult, Interp};
use crate::reader::{Form, FormKind};
use crate::special::malformed;
use crate::value::Value;
use diag::Span;

/// Each library: its name and source.
const LIBRARIES: &[(&str, &str)] = &[("nn", include_str!("lib/nn.sx"))];

pub const PRELUDE: &str = include_str!("lib/prelude.sx");

pub fn is_library(name: &str) -> bool {
    LIBRARIES.iter().any(|(n, _)| *n == name)
}

/// Whether a library defines `name` (for the hint on an unbound bare name).
pub fn defines(name: &str) -> bool {
    LIBRARIES
        .iter()
        .any(|(_, source)| source.contains(&format!("(defn {name} ")))
}

/// Reads and evaluates embedded source as file `name`, with definitions
/// prefixed by `namespace/` when one is given.
pub fn load(interp: &mut Interp, name: &str, source: &str, namespace: Option<&str>) {
    let file = interp.sources.add(name, source);
    let result = crate::reader::read(file, source);
    debug_assert!(
        result.diagnostics.is_empty(),
        "embedded {name} must read cleanly"
    );
    let previous = interp.namespace.take();
    interp.namespace = namespace.map(std::rc::Rc::from);
    for form in &result.forms {
        let outcome = interp.eval_top(form);
        debug_assert!(outcome.is_ok(), "embedded {name} must evaluate cleanly");
    }
    interp.namespace = previous;
}

/// `(require nn)`, `(require nn :refer :all)`, `(require nn :refer [mean])`.
pub fn require(interp: &mut Interp, args: &[Form], span: Span) -> EvalResult {
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
    if !interp.libraries.iter().any(|l| l == name) {
        interp.libraries.push(name.to_string());
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
            }
            for (bare, value) in exported {
                interp.define(&bare, value);
            }
        }
        _ => return Err(malformed("require", usage, span)),
    }
    Ok(Value::Nil)
}
