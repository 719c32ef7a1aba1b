//! The generator's own sizes: polynomials with integer coefficients over
//! size names (a function's generic axes, a model's size parameters, the
//! program's dims), independent of the checker's (`check::hir::Size`). The
//! generator writes them into types, evaluates them for the harness, and
//! compares them with dims replaced by their values.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A sum of distinct monomials (sorted symbol names, repeated for powers)
/// with non-zero coefficients; the constant term has no symbols.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Size {
    terms: BTreeMap<Vec<String>, i64>,
}

impl Size {
    pub fn lit(c: i64) -> Size {
        let mut terms = BTreeMap::new();
        if c != 0 {
            terms.insert(Vec::new(), c);
        }
        Size { terms }
    }

    pub fn sym(name: &str) -> Size {
        let mut terms = BTreeMap::new();
        terms.insert(vec![name.to_string()], 1);
        Size { terms }
    }

    pub fn add(&self, other: &Size) -> Size {
        let mut terms = self.terms.clone();
        for (mono, c) in &other.terms {
            let entry = terms.entry(mono.clone()).or_insert(0);
            *entry += c;
            if *entry == 0 {
                terms.remove(mono);
            }
        }
        Size { terms }
    }

    pub fn scale(&self, k: i64) -> Size {
        if k == 0 {
            return Size::default();
        }
        let terms = self.terms.iter().map(|(m, c)| (m.clone(), c * k)).collect();
        Size { terms }
    }

    pub fn mul(&self, other: &Size) -> Size {
        let mut out = Size::default();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &other.terms {
                let mut mono: Vec<String> = m1.iter().chain(m2).cloned().collect();
                mono.sort();
                let mut t = BTreeMap::new();
                t.insert(mono, c1 * c2);
                out = out.add(&Size { terms: t });
            }
        }
        out
    }

    /// The constant, when the size has no symbols.
    pub fn as_lit(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    /// The symbol, when the size is exactly one symbol.
    pub fn as_sym(&self) -> Option<&str> {
        match self.terms.iter().next() {
            Some((mono, 1)) if self.terms.len() == 1 && mono.len() == 1 => Some(&mono[0]),
            _ => None,
        }
    }

    /// The symbols it mentions.
    pub fn symbols(&self) -> Vec<String> {
        let mut out: Vec<String> = self.terms.keys().flatten().cloned().collect();
        out.sort();
        out.dedup();
        out
    }

    /// Each symbol `value` answers for replaced by its size.
    pub fn subst(&self, value: &dyn Fn(&str) -> Option<Size>) -> Size {
        let mut out = Size::default();
        for (mono, c) in &self.terms {
            let mut term = Size::lit(*c);
            for s in mono {
                term = term.mul(&value(s).unwrap_or_else(|| Size::sym(s)));
            }
            out = out.add(&term);
        }
        out
    }

    /// The value, every symbol given by `value`.
    pub fn eval(&self, value: &dyn Fn(&str) -> i64) -> i64 {
        self.terms
            .iter()
            .map(|(mono, c)| c * mono.iter().map(|s| value(s)).product::<i64>())
            .sum()
    }

    /// The least value when every symbol is at least 1 and all
    /// coefficients are positive (the generator writes no others).
    pub fn least(&self) -> i64 {
        self.eval(&|_| 1)
    }

    /// Whether every coefficient is positive.
    pub fn positive(&self) -> bool {
        !self.terms.is_empty() && self.terms.values().all(|c| *c > 0)
    }

    /// ShapeScript text: `2*n + 1`, `n*m`, `3`.
    pub fn ss(&self) -> String {
        self.render(&|s| s.to_string(), "*")
    }

    /// Python text with each symbol rendered by `sym`.
    pub fn py(&self, sym: &dyn Fn(&str) -> String) -> String {
        self.render(sym, " * ")
    }

    fn render(&self, sym: &dyn Fn(&str) -> String, times: &str) -> String {
        if self.terms.is_empty() {
            return "0".to_string();
        }
        let mut out = String::new();
        // Symbols first, the constant last: `n + 1`.
        let mut terms: Vec<(&Vec<String>, &i64)> = self.terms.iter().collect();
        terms.sort_by_key(|(m, _)| m.is_empty());
        for (i, (mono, c)) in terms.into_iter().enumerate() {
            let mut factors: Vec<String> = Vec::new();
            if c.abs() != 1 || mono.is_empty() {
                factors.push(c.abs().to_string());
            }
            factors.extend(mono.iter().map(|s| sym(s)));
            let text = factors.join(times);
            match (i, *c < 0) {
                (0, false) => out.push_str(&text),
                (0, true) => {
                    let _ = write!(out, "-{text}");
                }
                (_, false) => {
                    let _ = write!(out, " + {text}");
                }
                (_, true) => {
                    let _ = write!(out, " - {text}");
                }
            }
        }
        out
    }

    /// The harness's form: `[[coef, [symbols...]], ...]`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::Value::Array(
            self.terms
                .iter()
                .map(|(m, c)| serde_json::json!([c, m]))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomials_add_multiply_and_print() {
        let n = Size::sym("n");
        let m = Size::sym("m");
        let s = n.scale(2).add(&Size::lit(1));
        assert_eq!(s.ss(), "2*n + 1");
        assert_eq!(n.add(&m).ss(), "m + n");
        assert_eq!(
            n.mul(&m).py(&|s| format!("S[{s:?}]")),
            "S[\"m\"] * S[\"n\"]"
        );
        assert_eq!(s.add(&n.scale(-2)).as_lit(), Some(1));
        assert_eq!(n.as_sym(), Some("n"));
        assert_eq!(s.eval(&|_| 3), 7);
        assert_eq!(s.least(), 3);
        let d = Size::sym("D").add(&n);
        assert_eq!(d.subst(&|s| (s == "D").then(|| Size::lit(4))).ss(), "n + 4");
    }
}
