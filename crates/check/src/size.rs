//! Size polynomials: integer (i128, overflow-checked) coefficients over size
//! symbols, kept in one normal form so equal sizes compare equal however they
//! were written. Owns the arithmetic, exact division and the deferred
//! expressions of rounded division; never reports diagnostics itself (callers
//! turn `SizeError` into E0402/E0414 with the user's spans).

use std::fmt;
use syntax::Name;

use diag::FileId;
use smallvec::SmallVec;

mod formula;

pub use formula::{undivided_terms, Formula, Step};

/// One thing a size can be made of.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Symbol {
    /// A dim, identified by the file that declares it and its name there.
    Dim { file: FileId, name: Name },
    /// A generic axis of a signature (`b`, `n`, the `gh` of `16gh`).
    Generic(Name),
    /// An unknown size `?k`; `index` counts the unknowns named `k` in one
    /// function, so the second is shown as `?k2`.
    Unknown { name: Name, index: u32 },
    /// A variable the call solver works out.
    Var(u32),
}

std::thread_local! {
    /// The files the module whose bodies are being checked imports, with
    /// the names it imports them by: its messages show another file's dim
    /// as it names it (`vis.D`). Empty outside `ImportNames::enter`.
    static IMPORT_NAMES: std::cell::RefCell<Vec<(FileId, Name)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// While alive, sizes show the dims of the files in `imports` as the
/// importing module names them (`vis.D`, `docs/shapescript/imports.md`);
/// the names before it come back when it is dropped.
pub struct ImportNames(Vec<(FileId, Name)>);

impl ImportNames {
    pub fn enter(imports: Vec<(FileId, Name)>) -> ImportNames {
        ImportNames(IMPORT_NAMES.with(|names| std::mem::replace(&mut *names.borrow_mut(), imports)))
    }
}

impl Drop for ImportNames {
    fn drop(&mut self) {
        let before = std::mem::take(&mut self.0);
        IMPORT_NAMES.with(|names| *names.borrow_mut() = before);
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Symbol::Dim { file, name } => {
                let import = IMPORT_NAMES.with(|names| {
                    names
                        .borrow()
                        .iter()
                        .find(|(f, _)| f == file)
                        .map(|(_, n)| *n)
                });
                match import {
                    Some(import) => write!(f, "{import}.{name}"),
                    None => f.write_str(name),
                }
            }
            Symbol::Generic(name) => f.write_str(name),
            Symbol::Unknown { name, index } if *index <= 1 => write!(f, "?{name}"),
            Symbol::Unknown { name, index } => write!(f, "?{name}{index}"),
            Symbol::Var(v) => write!(f, "'{v}"),
        }
    }
}

/// Why size arithmetic failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeError {
    /// A coefficient left the 128-bit range (E0414).
    Overflow,
    /// The divisor is zero.
    DivideByZero,
    /// The divisor is not a single term (`n / (m + 1)`), so the quotient is
    /// no polynomial (E0402).
    DivisorNotATerm,
    /// The divisor is a single term that does not divide every term (E0402).
    Inexact,
    /// A product of sums would have more than `MAX_TERMS` terms (E0419):
    /// each factor multiplies the work, so it is refused, not worked out.
    TooManyTerms,
}

/// The most terms a size may have: `(a + b)*(c + d)` has 4, and ten such
/// factors 1,024. Far above what shapes need, and it keeps the checker's
/// work bounded on any input.
pub const MAX_TERMS: usize = 1024;

/// A product of symbols with their powers, sorted by symbol; empty is `1`.
/// Kept by the terms of polynomials of several terms; one factor inline.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Monomial(SmallVec<[(Symbol, u32); 1]>);

impl Monomial {
    pub fn degree(&self) -> u32 {
        self.0.iter().map(|(_, p)| p).sum()
    }

    pub fn factors(&self) -> &[(Symbol, u32)] {
        &self.0
    }
}

/// The product of two sorted factor lists.
fn mul_factors(a: &[(Symbol, u32)], b: &[(Symbol, u32)]) -> Monomial {
    let mut out = SmallVec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (&a[i], &b[j]);
        match x.0.cmp(&y.0) {
            std::cmp::Ordering::Less => {
                out.push(x.clone());
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(y.clone());
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push((x.0.clone(), x.1 + y.1));
                i += 1;
                j += 1;
            }
        }
    }
    // One or no factor is left (`n*m`): pushes, without `extend`'s reserve
    // and checks.
    for x in a[i..].iter().chain(&b[j..]) {
        out.push(x.clone());
    }
    Monomial(out)
}

/// `a / b` when every factor of `b` appears in `a` at least as often.
/// Both are sorted with distinct symbols, so the quotient is `a`'s factors
/// in order, each less `b`'s power of it, built in place (one factor left,
/// as in `n*m / n`, stays inline).
fn div_factors(a: &[(Symbol, u32)], b: &[(Symbol, u32)]) -> Option<Monomial> {
    for (sym, pow) in b {
        if !a.iter().any(|(s, p)| s == sym && p >= pow) {
            return None;
        }
    }
    Some(Monomial(
        a.iter()
            .filter_map(|(s, p)| {
                let q = b.iter().find(|(t, _)| t == s).map_or(0, |(_, q)| *q);
                (*p > q).then(|| (s.clone(), p - q))
            })
            .collect(),
    ))
}

/// One term: a coefficient times a monomial, as a polynomial of several
/// terms keeps them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Term {
    pub coef: i128,
    pub mono: Monomial,
}

/// One term of a polynomial, as `Poly::terms` shows it.
#[derive(Clone, Copy, Debug)]
pub struct TermRef<'a> {
    pub coef: i128,
    pub mono: Factors<'a>,
}

impl TermRef<'_> {
    fn to_term(self) -> Term {
        Term {
            coef: self.coef,
            mono: self.mono.to_monomial(),
        }
    }
}

/// A monomial of a `TermRef`: its symbols with their powers, sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Factors<'a>(&'a [(Symbol, u32)]);

impl<'a> Factors<'a> {
    pub fn factors(&self) -> &'a [(Symbol, u32)] {
        self.0
    }

    pub fn degree(&self) -> u32 {
        self.0.iter().map(|(_, p)| p).sum()
    }

    fn to_monomial(self) -> Monomial {
        // The common lengths built directly: `extend` is a loop with checks.
        match self.0 {
            [] => Monomial::default(),
            [factor] => Monomial(SmallVec::from_buf([factor.clone()])),
            factors => Monomial(SmallVec::from(factors)),
        }
    }
}

/// A size in normal form: a sum of distinct monomials with non-zero
/// coefficients, sorted by monomial. Zero is the empty sum.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Poly(Repr);

/// One representation per polynomial (so the derived equality is the
/// polynomials'): the shapes nearly every size has are held inline and
/// small, 40 bytes rather than 80, as every axis holds one.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
enum Repr {
    #[default]
    Zero,
    /// A number other than 0 that fits 64 bits.
    Const(i64),
    /// `coef * symbol^power`, the coefficient not 0 and within 64 bits.
    One { coef: i64, factor: (Symbol, u32) },
    /// Everything else, in normal form: two terms or more, a product of
    /// two symbols or more, or a coefficient beyond 64 bits.
    Many(Box<[Term]>),
}

/// The terms of a polynomial, in order.
#[derive(Clone, Copy)]
pub struct Terms<'a>(&'a Poly);

impl<'a> Terms<'a> {
    pub fn is_empty(&self) -> bool {
        matches!(self.0 .0, Repr::Zero)
    }

    pub fn len(&self) -> usize {
        match &self.0 .0 {
            Repr::Zero => 0,
            Repr::Const(_) | Repr::One { .. } => 1,
            Repr::Many(terms) => terms.len(),
        }
    }

    pub fn iter(&self) -> TermIter<'a> {
        match &self.0 .0 {
            Repr::Zero => TermIter::Single(None),
            Repr::Const(c) => TermIter::Single(Some(TermRef {
                coef: i128::from(*c),
                mono: Factors(&[]),
            })),
            Repr::One { coef, factor } => TermIter::Single(Some(TermRef {
                coef: i128::from(*coef),
                mono: Factors(std::slice::from_ref(factor)),
            })),
            Repr::Many(terms) => TermIter::Many(terms.iter()),
        }
    }
}

impl<'a> IntoIterator for Terms<'a> {
    type Item = TermRef<'a>;
    type IntoIter = TermIter<'a>;
    fn into_iter(self) -> TermIter<'a> {
        self.iter()
    }
}

/// Iterates a polynomial's terms.
pub enum TermIter<'a> {
    Single(Option<TermRef<'a>>),
    Many(std::slice::Iter<'a, Term>),
}

impl<'a> Iterator for TermIter<'a> {
    type Item = TermRef<'a>;
    fn next(&mut self) -> Option<TermRef<'a>> {
        match self {
            TermIter::Single(one) => one.take(),
            TermIter::Many(terms) => terms.next().map(|t| TermRef {
                coef: t.coef,
                mono: Factors(&t.mono.0),
            }),
        }
    }
}

impl fmt::Debug for Poly {
    /// As the terms were once kept: `Poly { terms: [Term { coef: 2, mono: Monomial([]) }] }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Mono<'a>(&'a [(Symbol, u32)]);
        impl fmt::Debug for Mono<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple("Monomial").field(&self.0).finish()
            }
        }
        struct One<'a>(TermRef<'a>);
        impl fmt::Debug for One<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct("Term")
                    .field("coef", &self.0.coef)
                    .field("mono", &Mono(self.0.mono.0))
                    .finish()
            }
        }
        struct All<'a>(&'a Poly);
        impl fmt::Debug for All<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list()
                    .entries(self.0.terms().iter().map(One))
                    .finish()
            }
        }
        f.debug_struct("Poly").field("terms", &All(self)).finish()
    }
}

/// The working form of the arithmetic: owned terms in normal form.
type Work = SmallVec<[Term; 1]>;

impl Poly {
    pub fn constant(value: i128) -> Poly {
        match i64::try_from(value) {
            Ok(0) => Poly(Repr::Zero),
            Ok(c) => Poly(Repr::Const(c)),
            Err(_) => Poly(Repr::Many(Box::new([Term {
                coef: value,
                mono: Monomial::default(),
            }]))),
        }
    }

    pub fn symbol(symbol: Symbol) -> Poly {
        Poly(Repr::One {
            coef: 1,
            factor: (symbol, 1),
        })
    }

    pub fn terms(&self) -> Terms<'_> {
        Terms(self)
    }

    /// The value when the size has no symbols.
    pub fn as_constant(&self) -> Option<i128> {
        match &self.0 {
            Repr::Zero => Some(0),
            Repr::Const(c) => Some(i128::from(*c)),
            Repr::Many(terms) => match &terms[..] {
                [Term { coef, mono }] if mono.0.is_empty() => Some(*coef),
                _ => None,
            },
            Repr::One { .. } => None,
        }
    }

    /// The constant term and the rest: `2*n + 1` is `(1, 2*n)`; `None` on
    /// overflow.
    pub fn split_constant(&self) -> Option<(i128, Poly)> {
        let constant: i128 = self
            .terms()
            .iter()
            .filter(|t| t.mono.factors().is_empty())
            .map(|t| t.coef)
            .sum();
        let rest = self.sub(&Poly::constant(constant)).ok()?;
        Some((constant, rest))
    }

    /// The symbol when the size is exactly one symbol (`n`, not `2*n`).
    pub fn as_symbol(&self) -> Option<&Symbol> {
        match &self.0 {
            Repr::One {
                coef: 1,
                factor: (symbol, 1),
            } => Some(symbol),
            _ => None,
        }
    }

    /// The number and the symbol when the size is a positive multiple of
    /// exactly one symbol (`2*n`, and `n` with 1).
    pub fn as_multiple_of_symbol(&self) -> Option<(i128, &Symbol)> {
        match &self.0 {
            Repr::One {
                coef,
                factor: (symbol, 1),
            } if *coef > 0 => Some((i128::from(*coef), symbol)),
            _ => None,
        }
    }

    /// Every symbol the size mentions, each once, in order.
    pub fn symbols(&self) -> Vec<&Symbol> {
        let mut out: Vec<&Symbol> = self
            .terms()
            .iter()
            .flat_map(|t| t.mono.0.iter().map(|(s, _)| s))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The one term of a number or of one symbol's power.
    fn single(&self) -> Option<TermRef<'_>> {
        match &self.0 {
            Repr::Const(c) => Some(TermRef {
                coef: i128::from(*c),
                mono: Factors(&[]),
            }),
            Repr::One { coef, factor } => Some(TermRef {
                coef: i128::from(*coef),
                mono: Factors(std::slice::from_ref(factor)),
            }),
            Repr::Zero | Repr::Many(_) => None,
        }
    }

    /// The terms as owned, for the arithmetic.
    fn work(&self) -> Work {
        match &self.0 {
            Repr::Zero => Work::new(),
            Repr::Const(c) => Work::from_buf([Term {
                coef: i128::from(*c),
                mono: Monomial::default(),
            }]),
            Repr::One { coef, factor } => Work::from_buf([Term {
                coef: i128::from(*coef),
                mono: Monomial(SmallVec::from(std::slice::from_ref(factor))),
            }]),
            Repr::Many(terms) => terms.iter().cloned().collect(),
        }
    }

    /// The polynomial of terms already in normal form, in its one representation.
    fn pack(mut terms: Work) -> Poly {
        if terms.len() == 1 {
            let term = &mut terms[0];
            if let Ok(coef) = i64::try_from(term.coef) {
                match term.mono.0.len() {
                    0 => return Poly(Repr::Const(coef)),
                    1 => {
                        let factor = term.mono.0.pop().expect("one factor");
                        return Poly(Repr::One { coef, factor });
                    }
                    _ => {}
                }
            }
        }
        match terms.len() {
            0 => return Poly(Repr::Zero),
            // A product of symbols (`n*m`): boxed as it is.
            1 => {
                let term = terms.pop().expect("one term");
                return Poly(Repr::Many(Box::new([term])));
            }
            _ => {}
        }
        // Moved into an exact allocation: a `Vec` collected from an
        // iterator starts at four terms and would be reallocated to shrink.
        if terms.spilled() && terms.capacity() == terms.len() {
            return Poly(Repr::Many(terms.into_vec().into_boxed_slice()));
        }
        let mut exact = Vec::with_capacity(terms.len());
        exact.extend(terms);
        Poly(Repr::Many(exact.into_boxed_slice()))
    }

    fn from_terms(mut terms: SmallVec<[Term; 1]>) -> Result<Poly, SizeError> {
        terms.sort_by(|a, b| a.mono.cmp(&b.mono));
        let mut out: SmallVec<[Term; 1]> = SmallVec::with_capacity(terms.len());
        for term in terms {
            match out.last_mut() {
                Some(last) if last.mono == term.mono => {
                    last.coef = last
                        .coef
                        .checked_add(term.coef)
                        .ok_or(SizeError::Overflow)?;
                }
                _ => out.push(term),
            }
        }
        out.retain(|t| t.coef != 0);
        Ok(Poly::pack(out))
    }

    pub fn add(&self, other: &Poly) -> Result<Poly, SizeError> {
        self.add_scaled(other, false)
    }

    /// `self + other`, consuming `self`: see `add_scaled_owned`.
    pub fn add_owned(self, other: &Poly) -> Result<Poly, SizeError> {
        self.add_scaled_owned(other, false)
    }

    /// `self - other`, consuming `self`: see `add_scaled_owned`.
    pub fn sub_owned(self, other: &Poly) -> Result<Poly, SizeError> {
        self.add_scaled_owned(other, true)
    }

    /// `add_scaled`, but a sum of several terms plus one term (`H + 2*P - kh`)
    /// takes its terms over (the one term placed by a binary search, in
    /// its allocation) rather than copying them into a new list.
    fn add_scaled_owned(self, other: &Poly, negate: bool) -> Result<Poly, SizeError> {
        let (terms, y) = match (self.0, other.single()) {
            (Repr::Many(terms), Some(y)) => (terms, y),
            (repr, _) => return Poly(repr).add_scaled(other, negate),
        };
        // As `add_scaled`: `a + (-b)`, so negating `b` may overflow first.
        let coef = if negate {
            y.coef.checked_neg().ok_or(SizeError::Overflow)?
        } else {
            y.coef
        };
        let mut terms = terms.into_vec();
        match terms.binary_search_by(|t| Factors(&t.mono.0).cmp(&y.mono)) {
            Ok(i) => {
                let sum = terms[i].coef.checked_add(coef).ok_or(SizeError::Overflow)?;
                if sum != 0 {
                    terms[i].coef = sum;
                } else {
                    terms.remove(i);
                    if terms.len() < 2 {
                        // One term or none has its own representation.
                        return Ok(Poly::pack(terms.into_iter().collect()));
                    }
                }
            }
            Err(i) => {
                // Exactly one more, so the boxed list is not shrunk again:
                // the terms moved into a new exact list around the new
                // one (what `realloc` then `insert` would copy, without
                // the reallocation's checks or the shifting `memmove`).
                let mut out = Vec::with_capacity(terms.len() + 1);
                let mut old = terms.into_iter();
                out.extend(old.by_ref().take(i));
                out.push(Term {
                    coef,
                    mono: y.mono.to_monomial(),
                });
                out.extend(old);
                return Ok(Poly(Repr::Many(out.into_boxed_slice())));
            }
        }
        Ok(Poly(Repr::Many(terms.into_boxed_slice())))
    }

    /// `self + other`, or `self - other` when `negate`: one merge of the two
    /// sorted term lists, which keeps the normal form without sorting.
    fn add_scaled(&self, other: &Poly, negate: bool) -> Result<Poly, SizeError> {
        let sign = |coef: i128| -> Result<i128, SizeError> {
            if negate {
                coef.checked_neg().ok_or(SizeError::Overflow)
            } else {
                Ok(coef)
            }
        };
        // Adding zero (the start of every sum) keeps the normal form.
        if matches!(other.0, Repr::Zero) {
            return Ok(self.clone());
        }
        if matches!(self.0, Repr::Zero) && !negate {
            return Ok(other.clone());
        }
        // Numbers within 64 bits add within 128 without overflow.
        if let (Repr::Const(x), Repr::Const(y)) = (&self.0, &other.0) {
            let (x, y) = (i128::from(*x), i128::from(*y));
            return Ok(Poly::constant(if negate { x - y } else { x + y }));
        }
        // Two single terms (`H + 2*P`): one comparison, no merge loop.
        if let (Some(x), Some(y)) = (self.single(), other.single()) {
            let y = TermRef {
                coef: sign(y.coef)?,
                mono: y.mono,
            };
            let (first, second) = match x.mono.cmp(&y.mono) {
                std::cmp::Ordering::Equal => {
                    let coef = x.coef.checked_add(y.coef).ok_or(SizeError::Overflow)?;
                    if coef == 0 {
                        return Ok(Poly(Repr::Zero));
                    }
                    let term = Term {
                        coef,
                        mono: x.mono.to_monomial(),
                    };
                    return Ok(Poly::pack(Work::from_buf([term])));
                }
                std::cmp::Ordering::Less => (x, y),
                std::cmp::Ordering::Greater => (y, x),
            };
            return Ok(Poly(Repr::Many(Box::new([
                first.to_term(),
                second.to_term(),
            ]))));
        }
        // The merge reads terms by index (no iterator adapters) into a list
        // of the greatest length the sum can have.
        let (n, m) = (self.terms().len(), other.terms().len());
        let mut out: Vec<Term> = Vec::with_capacity(n + m);
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            let order = if i == n {
                std::cmp::Ordering::Greater
            } else if j == m {
                std::cmp::Ordering::Less
            } else {
                self.term_at(i).mono.cmp(&other.term_at(j).mono)
            };
            // The smaller monomial goes first; equal ones add up.
            match order {
                std::cmp::Ordering::Less => {
                    out.push(self.term_at(i).to_term());
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    let y = other.term_at(j);
                    out.push(Term {
                        coef: sign(y.coef)?,
                        mono: y.mono.to_monomial(),
                    });
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let (x, y) = (self.term_at(i), other.term_at(j));
                    // As before: `a + (-b)`, so negating `b` may overflow first.
                    let coef = x
                        .coef
                        .checked_add(sign(y.coef)?)
                        .ok_or(SizeError::Overflow)?;
                    if coef != 0 {
                        out.push(Term {
                            coef,
                            mono: x.mono.to_monomial(),
                        });
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        if out.len() < 2 {
            return Ok(Poly::pack(out.into_iter().collect()));
        }
        Ok(Poly(Repr::Many(out.into_boxed_slice())))
    }

    /// The `i`th term; `i` below the number of terms.
    fn term_at(&self, i: usize) -> TermRef<'_> {
        match &self.0 {
            Repr::Many(terms) => TermRef {
                coef: terms[i].coef,
                mono: Factors(&terms[i].mono.0),
            },
            _ => self.single().expect("a term at an index below the count"),
        }
    }

    pub fn neg(&self) -> Result<Poly, SizeError> {
        let terms = self
            .work()
            .into_iter()
            .map(|t| {
                Ok(Term {
                    coef: t.coef.checked_neg().ok_or(SizeError::Overflow)?,
                    mono: t.mono,
                })
            })
            .collect::<Result<Work, SizeError>>()?;
        Ok(Poly::pack(terms))
    }

    pub fn sub(&self, other: &Poly) -> Result<Poly, SizeError> {
        self.add_scaled(other, true)
    }

    /// Whether the size is exactly `1`, the start of every product.
    fn is_one(&self) -> bool {
        matches!(self.0, Repr::Const(1))
    }

    pub fn mul(&self, other: &Poly) -> Result<Poly, SizeError> {
        // Products mostly start from `1` or multiply one term by one term
        // (group sizes, pattern products): both are already in normal form.
        if self.is_one() {
            return Ok(other.clone());
        }
        if other.is_one() {
            return Ok(self.clone());
        }
        // A number times a number or one symbol's power (`3*D`): 64-bit
        // factors multiply within 128 bits.
        match (&self.0, &other.0) {
            (Repr::Zero, _) | (_, Repr::Zero) => return Ok(Poly::default()),
            (Repr::Const(x), Repr::Const(y)) => {
                return Ok(Poly::constant(i128::from(*x) * i128::from(*y)))
            }
            (Repr::Const(x), Repr::One { coef, factor })
            | (Repr::One { coef, factor }, Repr::Const(x)) => {
                let product = i128::from(*x) * i128::from(*coef);
                if let Ok(coef) = i64::try_from(product) {
                    return Ok(Poly(Repr::One {
                        coef,
                        factor: factor.clone(),
                    }));
                }
            }
            _ => {}
        }
        let (this, that) = (self.terms(), other.terms());
        if this.len() == 1 && that.len() == 1 {
            let (a, b) = (this.iter().next(), that.iter().next());
            if let (Some(a), Some(b)) = (a, b) {
                let coef = a.coef.checked_mul(b.coef).ok_or(SizeError::Overflow)?;
                return Ok(Poly::pack(Work::from_buf([Term {
                    coef,
                    mono: mul_factors(a.mono.0, b.mono.0),
                }])));
            }
        }
        if this.len().saturating_mul(that.len()) > MAX_TERMS {
            return Err(SizeError::TooManyTerms);
        }
        let mut terms = SmallVec::with_capacity(this.len() * that.len());
        for a in this {
            for b in that {
                let coef = a.coef.checked_mul(b.coef).ok_or(SizeError::Overflow)?;
                terms.push(Term {
                    coef,
                    mono: mul_factors(a.mono.0, b.mono.0),
                });
            }
        }
        Poly::from_terms(terms)
    }

    /// Exact division by a single term that divides every term symbolically.
    /// Callers retry after replacing dims by their values (seed: "symbolically
    /// or once dims are replaced by their values").
    pub fn div_exact(&self, divisor: &Poly) -> Result<Poly, SizeError> {
        // One term by a number (`2*n / 2`, `768 / 12`): no lists built.
        // In 64 bits: a 128-bit division is a library call. `d` is not 0
        // (a `Const` never is); only `i64::MIN / -1` overflows, and takes
        // the general path.
        if let Repr::Const(d) = divisor.0 {
            match &self.0 {
                Repr::Const(c) => match (c.checked_rem(d), c.checked_div(d)) {
                    (Some(0), Some(q)) => return Ok(Poly(Repr::Const(q))),
                    (Some(_), _) => return Err(SizeError::Inexact),
                    _ => {}
                },
                Repr::One { coef, factor } => match (coef.checked_rem(d), coef.checked_div(d)) {
                    (Some(0), Some(coef)) => {
                        return Ok(Poly(Repr::One {
                            coef,
                            factor: factor.clone(),
                        }))
                    }
                    (Some(_), _) => return Err(SizeError::Inexact),
                    _ => {}
                },
                _ => {}
            }
        }
        let mut divisors = divisor.terms().iter();
        let d = match (divisors.next(), divisors.next()) {
            (None, _) => return Err(SizeError::DivideByZero),
            (Some(d), None) => d,
            _ => return Err(SizeError::DivisorNotATerm),
        };
        let this = self.terms();
        // Whether every term divides, asked before building the quotient:
        // a division by a symbol is mostly inexact (`(H + 2*P - kh)/S`).
        // A coefficient of 1 divides without a 128-bit library division.
        let unit = d.coef == 1;
        let divides = |t: &TermRef| {
            (unit || t.coef % d.coef == 0)
                && d.mono
                    .0
                    .iter()
                    .all(|(sym, pow)| t.mono.0.iter().any(|(s, p)| s == sym && p >= pow))
        };
        if !this.iter().all(|t| divides(&t)) {
            return Err(SizeError::Inexact);
        }
        let mut terms = SmallVec::with_capacity(this.len());
        for t in this {
            let mono = if d.mono.0.is_empty() {
                t.mono.to_monomial()
            } else {
                div_factors(t.mono.0, d.mono.0).ok_or(SizeError::Inexact)?
            };
            terms.push(Term {
                coef: if unit { t.coef } else { t.coef / d.coef },
                mono,
            });
        }
        // By a number: each term keeps its monomial, so the terms stay
        // distinct and in order (the normal form) without sorting. One
        // term (`n*m / n`) is in normal form too: its quotient is not 0.
        if d.mono.0.is_empty() || terms.len() == 1 {
            return Ok(Poly::pack(terms));
        }
        Poly::from_terms(terms)
    }

    /// Replaces each symbol for which `value` answers by that polynomial.
    pub fn substitute(&self, value: &dyn Fn(&Symbol) -> Option<Poly>) -> Result<Poly, SizeError> {
        // Most sizes are one symbol (`n`): its value as is, asked for once.
        if let Some(symbol) = self.as_symbol() {
            return Ok(value(symbol).unwrap_or_else(|| self.clone()));
        }
        if self
            .terms()
            .iter()
            .all(|t| t.mono.0.iter().all(|(s, _)| value(s).is_none()))
        {
            return Ok(self.clone());
        }
        let mut sum = Poly::default();
        for t in self.terms() {
            let mut product = Poly::constant(t.coef);
            for (sym, pow) in t.mono.0 {
                let factor = value(sym).unwrap_or_else(|| Poly::symbol(sym.clone()));
                for _ in 0..*pow {
                    product = product.mul(&factor)?;
                }
            }
            sum = sum.add(&product)?;
        }
        Ok(sum)
    }
}

impl fmt::Display for Poly {
    /// Higher-degree terms first, the constant last: `2*n + 1`, `3*H*Dh`, `n - 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if matches!(self.0, Repr::Zero) {
            return f.write_str("0");
        }
        let mut order: Vec<TermRef> = self.terms().iter().collect();
        order.sort_by(|a, b| {
            b.mono
                .degree()
                .cmp(&a.mono.degree())
                .then_with(|| a.mono.cmp(&b.mono))
        });
        for (i, term) in order.iter().enumerate() {
            let coef = if i == 0 {
                if term.coef < 0 {
                    f.write_str("-")?;
                }
                term.coef.unsigned_abs()
            } else {
                f.write_str(if term.coef < 0 { " - " } else { " + " })?;
                term.coef.unsigned_abs()
            };
            let mut parts: Vec<String> = Vec::new();
            if coef != 1 || term.mono.0.is_empty() {
                parts.push(coef.to_string());
            }
            for (sym, pow) in term.mono.0 {
                for _ in 0..*pow {
                    parts.push(sym.to_string());
                }
            }
            f.write_str(&parts.join("*"))?;
        }
        Ok(())
    }
}

/// A size as the user wrote it: the polynomial for comparing, and the
/// spelling for messages (`3*H*Dh`, not `2304`).
#[derive(Clone, Debug)]
pub struct Size {
    pub poly: Poly,
    pub written: Option<Name>,
}

impl Size {
    pub fn new(poly: Poly, written: impl Into<Name>) -> Size {
        Size {
            poly,
            written: Some(written.into()),
        }
    }

    pub fn computed(poly: Poly) -> Size {
        Size {
            poly,
            written: None,
        }
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.written {
            Some(text) => f.write_str(text),
            None => self.poly.fmt(f),
        }
    }
}

/// The least value a size can take, with unknown sizes at least 0 and other
/// symbols at least 1; `None` when a negative term makes it unbounded.
pub(crate) fn least_value(poly: &Poly) -> Option<i128> {
    let mut sum: i128 = 0;
    for term in poly.terms() {
        let factors = term.mono.factors();
        let least = if factors.is_empty() {
            term.coef
        } else if term.coef < 0 {
            return None;
        } else if factors
            .iter()
            .any(|(s, _)| matches!(s, Symbol::Unknown { .. }))
        {
            0
        } else {
            term.coef
        };
        sum = sum.checked_add(least)?;
    }
    Some(sum)
}

#[cfg(test)]
mod tests;
