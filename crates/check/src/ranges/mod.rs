//! Value ranges (`docs/shapescript/ranges.md`): a pass over each typed body
//! after `body` checked it, reading the syntax tree and the typed
//! expressions. Every float value gets an interval, from the domains in
//! the types, the constants and the operations that made it; the pass
//! records it in `TypedExpr::range` and reports the E06xx mistakes: `log`,
//! `rsqrt`, `sqrt` and `log1p` outside their domain, division by a range
//! holding 0, `Index[N]` ids on an axis of another size, and a value wider
//! than the domain declared where it goes.
//!
//! Inside: `interval` (the arithmetic), `math` (the functions the checker
//! knows), `report` (the diagnostics), then this walk.

mod interval;
mod math;
mod report;
mod walk;

use diag::{Diagnostic, FileId};
use syntax::{ast, Name};

use crate::lower::Env;
use crate::signature::Signatures;
use crate::typed::Bodies;

/// What the pass reads besides the bodies.
#[derive(Clone, Copy)]
pub struct RangeEnv<'a> {
    /// The program, its texts and dims' values, as the types were lowered.
    pub lowered: Env<'a>,
    pub signatures: &'a Signatures,
    /// Models and records: a construction's values must fit its fields' domains.
    pub models: &'a crate::model::Models,
    pub library: &'a [(FileId, &'static str)],
}

/// Works out the ranges of every body of the modules `batch`, which `body`
/// has just checked, and reports their E06xx mistakes.
pub fn check_batch(
    env: RangeEnv,
    batch: &[usize],
    bodies: &mut Bodies,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut scratch = walk::Scratch::default();
    for module in batch.iter().map(|&m| &env.lowered.program.modules[m]) {
        // Its messages name other files' dims as it imports them (`vis.D`).
        let _names = module.import_names();
        if env.library.iter().any(|(f, _)| *f == module.file) || !module.parse_errors.is_empty() {
            continue;
        }
        for item in &module.ast.items {
            match item {
                ast::Item::Fn(f) => check_fn(
                    env,
                    module.file,
                    Name::EMPTY,
                    f,
                    bodies,
                    &mut scratch,
                    diagnostics,
                ),
                ast::Item::Model(m) => {
                    for method in &m.methods {
                        let owner = m.name.name;
                        check_fn(
                            env,
                            module.file,
                            owner,
                            method,
                            bodies,
                            &mut scratch,
                            diagnostics,
                        );
                    }
                }
                _ => {}
            }
        }
    }
}

/// One body: its ranges into `bodies`, its mistakes into `diagnostics`.
fn check_fn(
    env: RangeEnv,
    file: FileId,
    owner: Name,
    f: &ast::Fn,
    bodies: &mut Bodies,
    scratch: &mut walk::Scratch,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Some(&index) = bodies.by_name.get(file, &(owner, f.name.name)) else {
        return;
    };
    let body = &bodies.fns[index];
    // A second item of the same name has no body of its own.
    if body.span != f.span {
        return;
    }
    walk::Walker::new(env, bodies, body, scratch, diagnostics).function(f);
    let body = &mut bodies.fns[index];
    for (i, iv) in scratch.found.drain(..) {
        body.exprs[i].range = Some(iv.to_range());
    }
}

#[cfg(test)]
mod tests;
