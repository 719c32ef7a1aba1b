//! Sizes as Python integer arithmetic: a checker polynomial (`3 * D`,
//! `c + n`, `gh * gw`) rendered with each symbol's Python expression. Pure
//! text; which expression a symbol has is the caller's business.

use check::hir::{Poly, Symbol};

/// A polynomial as Python integer arithmetic, or `None` when a symbol has
/// no Python expression (`symbol` answers `None`).
pub fn render_poly(poly: &Poly, symbol: &dyn Fn(&Symbol) -> Option<String>) -> Option<String> {
    if poly.terms().is_empty() {
        return Some("0".to_string());
    }
    let mut out = String::new();
    for (i, term) in poly.terms().iter().enumerate() {
        let mut factors: Vec<String> = Vec::new();
        let coef = term.coef.unsigned_abs();
        if coef != 1 || term.mono.factors().is_empty() {
            factors.push(coef.to_string());
        }
        for (sym, pow) in term.mono.factors() {
            let s = symbol(sym)?;
            let s = if s.contains(' ') { format!("({s})") } else { s };
            for _ in 0..*pow {
                factors.push(s.clone());
            }
        }
        let text = factors.join(" * ");
        match (i, term.coef < 0) {
            (0, false) => out.push_str(&text),
            (0, true) => out.push_str(&format!("-{text}")),
            (_, false) => out.push_str(&format!(" + {text}")),
            (_, true) => out.push_str(&format!(" - {text}")),
        }
    }
    Some(out)
}

/// Python's `(a, b)` tuple of sizes, `(a,)` for one.
pub fn tuple(sizes: &[String]) -> String {
    match sizes {
        [one] => format!("({one},)"),
        _ => format!("({})", sizes.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use check::hir::Poly;
    use expect_test::{expect, Expect};

    fn check(poly: Poly, expect: Expect) {
        let text = render_poly(&poly, &|s| match s {
            Symbol::Generic(g) => Some(g.to_string()),
            _ => None,
        });
        expect.assert_eq(text.as_deref().unwrap_or("unknown"));
    }

    #[test]
    fn polynomials_become_integer_arithmetic() {
        let g = |n: &str| Poly::symbol(Symbol::Generic(n.into()));
        check(Poly::constant(7), expect!["7"]);
        check(g("c").add(&g("n")).unwrap(), expect!["c + n"]);
        check(
            g("gh")
                .mul(&g("gw"))
                .unwrap()
                .mul(&Poly::constant(3))
                .unwrap(),
            expect!["3 * gh * gw"],
        );
        check(
            Poly::symbol(Symbol::Unknown {
                name: "k".into(),
                index: 1,
            }),
            expect!["unknown"],
        );
    }
}
