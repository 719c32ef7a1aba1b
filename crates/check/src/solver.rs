//! The call solver (`docs/shapescript/functions.md`, Calls): works out a
//! callee's generic axes from the arguments' sizes with a worklist until
//! nothing changes. `v` against `s` gives `v = s`; `c*v` (and grouped `16gh`)
//! gives `v = s / c`, exact or a failure; `v + c` gives `v = s - c`, at least
//! 1; a term with several unsolved symbols waits. Pure: returns what failed,
//! never a diagnostic (the caller knows the spans and words).

use std::borrow::Cow;

use smallvec::SmallVec;
use syntax::Name;

use crate::dims::DimValues;
use crate::size::{Poly, SizeError, Symbol, TermRef};

/// One equation: the callee's size (over `Symbol::Var`s) must equal the
/// caller's. `tag` says where it came from, for the caller's message.
/// The caller's size is mostly an argument's axis, borrowed: a size is
/// costly to copy and most equations just bind a variable to it.
#[derive(Clone, Debug)]
pub struct Equation<'p> {
    pub callee: Poly,
    pub caller: Cow<'p, Poly>,
    pub tag: usize,
}

/// Why solving stopped.
#[derive(Clone, Debug)]
pub enum Failure {
    /// After substitution the sizes differ: `expected` (the callee's size in
    /// the caller's terms) against the caller's.
    Mismatch { tag: usize, expected: Poly },
    /// `c*v = s` with `s` not a multiple of `c` (16gh against 225).
    Inexact {
        tag: usize,
        var: u32,
        size: Poly,
        divisor: Poly,
    },
    /// `v + c = s` gives `v` below 1.
    BelowOne { tag: usize, var: u32, value: i128 },
    /// A variable solved to a size that is below 1 for some values of its
    /// symbols (`t - 1`).
    MayBeBelowOne { tag: usize, var: u32, value: Poly },
    /// Arithmetic left 128 bits.
    Overflow { tag: usize },
    /// Still unsolved when nothing else could be learned.
    Unsolved { vars: Vec<u32>, tag: usize },
}

impl Failure {
    /// The equation that failed (its `Equation::tag`).
    pub fn tag(&self) -> usize {
        match self {
            Failure::Mismatch { tag, .. }
            | Failure::Inexact { tag, .. }
            | Failure::BelowOne { tag, .. }
            | Failure::MayBeBelowOne { tag, .. }
            | Failure::Overflow { tag }
            | Failure::Unsolved { tag, .. } => *tag,
        }
    }
}

/// The variables of one call: their names (for messages) and values, which
/// borrow the arguments' sizes they were bound to (`'p`).
pub struct Solver<'a, 'p> {
    pub dims: &'a DimValues,
    /// Inline: a call or pattern has a handful of variables.
    pub names: SmallVec<[Name; 8]>,
    pub values: SmallVec<[Option<Cow<'p, Poly>>; 8]>,
}

impl<'a, 'p> Solver<'a, 'p> {
    pub fn new(dims: &'a DimValues) -> Self {
        Solver {
            dims,
            names: SmallVec::new(),
            values: SmallVec::new(),
        }
    }

    /// A new variable named `name`; returns its symbol.
    pub fn var(&mut self, name: Name) -> Symbol {
        self.names.push(name);
        self.values.push(None);
        Symbol::Var(self.names.len() as u32 - 1)
    }

    pub fn set(&mut self, var: u32, value: Poly) {
        self.values[var as usize] = Some(Cow::Owned(value));
    }

    /// `set` with a size that may be borrowed.
    pub fn set_cow(&mut self, var: u32, value: Cow<'p, Poly>) {
        self.values[var as usize] = Some(value);
    }

    pub fn value(&self, var: u32) -> Option<&Poly> {
        self.values.get(var as usize)?.as_deref()
    }

    /// The size with every solved variable replaced.
    pub fn apply(&self, poly: &Poly) -> Result<Poly, SizeError> {
        poly.substitute(&|s| match s {
            Symbol::Var(v) => self.value(*v).cloned(),
            _ => None,
        })
    }

    /// The bindings solved so far, as `name = size`, for notes: only those
    /// solved to something else than their own name (`h = 5`, `i = n`, never
    /// `b = b`).
    pub fn shown(&self) -> Vec<String> {
        self.names
            .iter()
            .zip(&self.values)
            .filter_map(|(n, v)| {
                let v = v.as_ref()?;
                let trivial = matches!(
                    v.as_symbol(),
                    Some(Symbol::Generic(m) | Symbol::Dim { name: m, .. }) if m == n
                ) && v.to_string() == **n;
                (!trivial).then(|| format!("{n} = {v}"))
            })
            .collect()
    }

    /// Solves all equations; on success every variable they mention is set.
    // A failure is rare and carries the sizes for the message: its size is fine.
    #[allow(clippy::result_large_err)]
    pub fn solve(&mut self, equations: &[Equation<'p>]) -> Result<(), Failure> {
        // The first pass goes over the slice itself: most calls settle
        // every equation in it and allocate nothing here.
        let mut pending: Vec<&Equation> = Vec::new();
        for eq in equations {
            if !self.step(eq)? {
                pending.push(eq);
            }
        }
        let mut before = equations.len();
        loop {
            if pending.is_empty() {
                return Ok(());
            }
            if pending.len() == before {
                let eq = pending[0];
                let mut vars: Vec<u32> = Vec::new();
                for e in &pending {
                    let p = self
                        .apply(&e.callee)
                        .map_err(|_| Failure::Overflow { tag: e.tag })?;
                    for s in p.symbols() {
                        if let Symbol::Var(v) = s {
                            if !vars.contains(v) {
                                vars.push(*v);
                            }
                        }
                    }
                }
                return Err(Failure::Unsolved { vars, tag: eq.tag });
            }
            before = pending.len();
            let mut waiting = Vec::new();
            for eq in pending {
                if !self.step(eq)? {
                    waiting.push(eq);
                }
            }
            pending = waiting;
        }
    }

    /// One equation: true when it is settled, false when it must wait.
    #[allow(clippy::result_large_err)]
    fn step(&mut self, eq: &Equation<'p>) -> Result<bool, Failure> {
        let tag = eq.tag;
        // The common equation is one variable against a size: no arithmetic.
        if let Some(Symbol::Var(v)) = eq.callee.as_symbol() {
            match self.value(*v) {
                None => {
                    if let Some(n) = eq.caller.as_constant().filter(|n| *n < 1) {
                        return Err(Failure::BelowOne {
                            tag,
                            var: *v,
                            value: n,
                        });
                    }
                    // A borrowed size is bound without copying it.
                    self.set_cow(*v, eq.caller.clone());
                    return Ok(true);
                }
                Some(known) if self.dims.same_size(known, &eq.caller) => return Ok(true),
                Some(known) => {
                    return Err(Failure::Mismatch {
                        tag,
                        expected: known.clone(),
                    })
                }
            }
        }
        let overflow = |_| Failure::Overflow { tag };
        let p = self.apply(&eq.callee).map_err(overflow)?;
        // The unsolved variables left, each once, in order (inline: few).
        let mut vars: SmallVec<[u32; 4]> = SmallVec::new();
        for term in p.terms().iter() {
            for (s, _) in term.mono.factors() {
                if let Symbol::Var(v) = s {
                    if let Err(at) = vars.binary_search(v) {
                        vars.insert(at, *v);
                    }
                }
            }
        }
        match vars.as_slice() {
            [] => {
                if self.dims.same_size(&p, &eq.caller) {
                    Ok(true)
                } else {
                    Err(Failure::Mismatch { tag, expected: p })
                }
            }
            [v] => self.solve_for(p, *v, eq),
            _ => Ok(false),
        }
    }

    /// An equation whose callee holds one unsolved variable `v`: solved
    /// when `v` appears only to the first power (`p = t*v + r`, so `v` is
    /// `(caller - r) / t`, exactly); false when it must wait.
    #[allow(clippy::result_large_err)]
    fn solve_for(&mut self, p: Poly, v: u32, eq: &Equation<'p>) -> Result<bool, Failure> {
        let tag = eq.tag;
        let overflow = |_| Failure::Overflow { tag };
        // p = t*v + r, with v only in one power-1 factor.
        let mut coefficient = Poly::default();
        let mut rest = Poly::default();
        for term in p.terms() {
            let power = term
                .mono
                .factors()
                .iter()
                .find(|(s, _)| *s == Symbol::Var(v))
                .map_or(0, |(_, p)| *p);
            match power {
                0 => {
                    let single = term_poly(term).map_err(overflow)?;
                    rest = rest.add(&single).map_err(overflow)?
                }
                1 => {
                    // The term without `v`, built from its other
                    // factors rather than divided out of the whole.
                    let mut without = Poly::constant(term.coef);
                    for (symbol, power) in term.mono.factors() {
                        if *symbol == Symbol::Var(v) {
                            continue;
                        }
                        for _ in 0..*power {
                            without = without
                                .mul(&Poly::symbol(symbol.clone()))
                                .map_err(overflow)?;
                        }
                    }
                    coefficient = coefficient.add(&without).map_err(overflow)?;
                }
                _ => return Ok(false),
            }
        }
        let remaining = eq.caller.sub(&rest).map_err(overflow)?;
        let value = match remaining.div_exact(&coefficient) {
            Ok(q) => q,
            Err(SizeError::Overflow) => return Err(Failure::Overflow { tag }),
            Err(_) => {
                let (a, b) = (
                    self.dims.substitute(&remaining).map_err(overflow)?,
                    self.dims.substitute(&coefficient).map_err(overflow)?,
                );
                match a.div_exact(&b) {
                    Ok(q) => q,
                    Err(SizeError::DivisorNotATerm) => return Ok(false),
                    Err(_) => {
                        return Err(Failure::Inexact {
                            tag,
                            var: v,
                            size: remaining,
                            divisor: coefficient,
                        })
                    }
                }
            }
        };
        let substituted = self.dims.substitute(&value).ok();
        if let Some(n) = substituted.as_ref().and_then(|q| q.as_constant()) {
            if n < 1 {
                return Err(Failure::BelowOne {
                    tag,
                    var: v,
                    value: n,
                });
            }
        } else if !at_least_one(substituted.as_ref().unwrap_or(&value)) {
            // `p + 1` against `t` gives `p = t - 1`, which is 0 for `t = 1`.
            return Err(Failure::MayBeBelowOne { tag, var: v, value });
        }
        self.set(v, value);
        Ok(true)
    }
}

/// One term as a polynomial.
pub fn term_poly(term: TermRef<'_>) -> Result<Poly, SizeError> {
    let mut out = Poly::constant(term.coef);
    for (symbol, power) in term.mono.factors() {
        for _ in 0..*power {
            out = out.mul(&Poly::symbol(symbol.clone()))?;
        }
    }
    Ok(out)
}

/// Whether a solved size is at least 1 for every value of its symbols
/// (sizes at least 1); an unknown size alone (`?k`) is taken as given, as
/// an argument's axis is.
fn at_least_one(value: &Poly) -> bool {
    let lone_unknown = matches!(value.as_symbol(), Some(Symbol::Unknown { .. }));
    lone_unknown || crate::size::least_value(value).is_some_and(|l| l >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn generic(name: &str) -> Poly {
        Poly::symbol(Symbol::Generic(name.into()))
    }

    fn c(v: i128) -> Poly {
        Poly::constant(v)
    }

    /// Solves `callee = caller` pairs over variables `vars` and shows the result.
    fn check(vars: &[&str], equations: &[(Poly, Poly)], expect: Expect) {
        let dims = DimValues::default();
        let mut solver = Solver::new(&dims);
        let symbols: Vec<Poly> = vars
            .iter()
            .map(|v| Poly::symbol(solver.var((*v).into())))
            .collect();
        let rename = |p: &Poly| {
            p.substitute(&|s| match s {
                Symbol::Generic(n) => vars
                    .iter()
                    .position(|v| **v == **n)
                    .map(|i| symbols[i].clone()),
                _ => None,
            })
            .unwrap()
        };
        let equations: Vec<Equation> = equations
            .iter()
            .enumerate()
            .map(|(tag, (a, b))| Equation {
                callee: rename(a),
                caller: Cow::Owned(b.clone()),
                tag,
            })
            .collect();
        let shown = match solver.solve(&equations) {
            Ok(()) => solver.shown().join(", "),
            Err(e) => format!("{e:?}"),
        };
        expect.assert_eq(&shown);
    }

    #[test]
    fn grouped_sizes_divide() {
        let gh = generic("gh");
        check(
            &["gh"],
            &[(c(16).mul(&gh).unwrap(), c(224))],
            expect!["gh = 14"],
        );
        check(
            &["gh"],
            &[(c(16).mul(&gh).unwrap(), c(225))],
            expect![[
                r#"Inexact { tag: 0, var: 0, size: Poly { terms: [Term { coef: 225, mono: Monomial([]) }] }, divisor: Poly { terms: [Term { coef: 16, mono: Monomial([]) }] } }"#
            ]],
        );
    }

    #[test]
    fn sums_and_products_wait_for_other_axes() {
        let (h, d, v) = (generic("h"), generic("d"), generic("v"));
        check(
            &["h", "d", "v"],
            &[
                (h.mul(&d).unwrap(), c(768)),
                (h.clone(), c(12)),
                (v.add(&c(1)).unwrap(), c(197)),
            ],
            expect!["h = 12, d = 64, v = 196"],
        );
        check(
            &["v"],
            &[(v.add(&c(5)).unwrap(), c(3))],
            expect!["BelowOne { tag: 0, var: 0, value: -2 }"],
        );
        check(
            &["h", "d"],
            &[(h.mul(&d).unwrap(), c(768))],
            expect!["Unsolved { vars: [0, 1], tag: 0 }"],
        );
    }

    #[test]
    fn solved_sizes_must_agree() {
        let n = generic("n");
        check(
            &["n"],
            &[(n.clone(), generic("m")), (n, c(3))],
            expect![[
                r#"Mismatch { tag: 1, expected: Poly { terms: [Term { coef: 1, mono: Monomial([(Generic("m"), 1)]) }] } }"#
            ]],
        );
    }
}
