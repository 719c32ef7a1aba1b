//! Binding a call's arguments to parameters by position and keyword, for
//! functions, methods, records and built-ins alike (E0407 for an unknown
//! keyword, one argument too many, one given twice, one missing).

use diag::{Diagnostic, Span};
use syntax::ast;

use super::FnChecker;
use crate::codes;
use smallvec::SmallVec;

/// Per parameter, the argument bound to it.
pub(crate) type Slots<'e> = SmallVec<[Option<&'e ast::Arg>; 6]>;

impl<'c, 'a: 'c> FnChecker<'c, 'a> {
    /// Binds arguments to parameters by position and keyword (E0407).
    /// Returns, per parameter, the argument given.
    pub(crate) fn bind_args<'e>(
        &mut self,
        fname: &(impl std::fmt::Display + ?Sized),
        names: &[&str],
        required: &[bool],
        args: &'e [ast::Arg],
        decl: Option<(Span, &[Span])>,
    ) -> Option<Slots<'e>> {
        let mut slots: Slots = smallvec::smallvec![None; names.len()];
        let mut next = 0;
        let mut ok = true;
        for arg in args {
            let index = match &arg.name {
                Some(key) => match names.iter().position(|n| *n == key.name) {
                    Some(i) => i,
                    None => {
                        let mut d = Diagnostic::error(
                            codes::E0407,
                            format!("`{fname}` has no parameter `{}`", key.name),
                        )
                        .with_primary(key.span, "unknown keyword");
                        d = match diag::closest(key.name.as_str(), names.iter().copied()) {
                            Some(best) => d.with_help(format!(
                                "a parameter with a similar name exists: `{best}`"
                            )),
                            None => {
                                d.with_note(format!("its parameters are {}", show_names(names)))
                            }
                        };
                        if let Some((at, _)) = decl {
                            d = d.with_secondary(at, "the parameters are declared here");
                        }
                        self.diagnostics.push(d);
                        ok = false;
                        continue;
                    }
                },
                None => {
                    while next < slots.len() && slots[next].is_some() {
                        next += 1;
                    }
                    if next >= names.len() {
                        self.diagnostics.push(
                            Diagnostic::error(
                                codes::E0407,
                                format!(
                                    "`{fname}` takes {} arguments, but more were given",
                                    names.len()
                                ),
                            )
                            .with_primary(arg.span, "one too many")
                            .with_note(format!("its parameters are {}", show_names(names))),
                        );
                        ok = false;
                        continue;
                    }
                    next
                }
            };
            if let Some(first) = slots[index] {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::E0407,
                        format!("argument `{}` of `{fname}` is given twice", names[index]),
                    )
                    .with_primary(arg.span, "given again here")
                    .with_secondary(first.span, "first given here"),
                );
                ok = false;
                continue;
            }
            slots[index] = Some(arg);
        }
        if ok {
            ok = self.all_required_given(fname, names, required, &slots, args, decl);
        }
        ok.then_some(slots)
    }

    /// Whether every required parameter has an argument; E0407 for each
    /// one missing, at the call's last argument.
    fn all_required_given(
        &mut self,
        fname: &(impl std::fmt::Display + ?Sized),
        names: &[&str],
        required: &[bool],
        slots: &Slots,
        args: &[ast::Arg],
        decl: Option<(Span, &[Span])>,
    ) -> bool {
        let mut ok = true;
        for (i, slot) in slots.iter().enumerate() {
            if slot.is_none() && required[i] {
                let mut d = Diagnostic::error(
                    codes::E0407,
                    format!("`{fname}` is missing argument `{}`", names[i]),
                )
                .with_primary(
                    args.last()
                        .map_or_else(|| Span::new(self.file, 0, 0), |a| a.span),
                    format!("`{}` not given", names[i]),
                );
                if let Some((_, spans)) = decl {
                    if let Some(at) = spans.get(i) {
                        d = d.with_secondary(*at, "parameter declared here");
                    }
                }
                self.diagnostics.push(d);
                ok = false;
            }
        }
        ok
    }
}

fn show_names(names: &[&str]) -> String {
    let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    if list.is_empty() {
        "none".to_string()
    } else {
        list.join(", ")
    }
}
