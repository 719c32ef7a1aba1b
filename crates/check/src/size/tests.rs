//! Tests of the size arithmetic: normal form, exact division, formulas.

use super::*;
use expect_test::{expect, Expect};

fn dim(name: &str) -> Poly {
    Poly::symbol(Symbol::Dim {
        file: FileId(0),
        name: name.into(),
    })
}

fn var(name: &str) -> Poly {
    Poly::symbol(Symbol::Generic(name.into()))
}

fn c(value: i128) -> Poly {
    Poly::constant(value)
}

/// Taking the left operand over gives what the merge gives, cancelling
/// terms and overflow included.
#[test]
fn owned_sums_match_merged_sums() {
    let sum = |parts: &[Poly]| {
        parts
            .iter()
            .try_fold(Poly::default(), |acc, p| acc.add(p))
            .expect("small sums")
    };
    let n_m = var("n").mul(&var("m")).unwrap();
    let polys = [
        c(0),
        c(3),
        c(i128::MAX),
        c(i128::MIN),
        var("n"),
        var("m").mul(&c(-2)).unwrap(),
        n_m.clone(),
        sum(&[var("n"), c(1)]),
        sum(&[var("H"), dim("P").mul(&c(2)).unwrap()]),
        sum(&[var("H"), dim("P").mul(&c(2)).unwrap(), var("kh")]),
        sum(&[n_m.clone(), var("n")]),
        sum(&[var("a"), var("z"), c(i128::MAX)]),
        sum(&[var("a"), var("z"), c(i128::MIN)]),
    ];
    for a in &polys {
        for b in &polys {
            assert_eq!(a.clone().add_owned(b), a.add(b), "{a} + {b}");
            assert_eq!(a.clone().sub_owned(b), a.sub(b), "{a} - {b}");
        }
    }
}

/// The hand-written order is the derived one: variant, then fields in
/// order, names by text.
#[test]
fn symbols_order_by_kind_then_file_name_and_index() {
    let names = ["", "H", "Hb", "P", "kh", "kw", "Dh", "D", "\u{e9}", "e"];
    let mut symbols = Vec::new();
    for n in names {
        for file in [0, 1] {
            symbols.push(Symbol::Dim {
                file: FileId(file),
                name: Name::new(n),
            });
        }
        symbols.push(Symbol::Generic(Name::new(n)));
        for index in [1, 2] {
            symbols.push(Symbol::Unknown {
                name: Name::new(n),
                index,
            });
        }
    }
    symbols.extend([Symbol::Var(0), Symbol::Var(3)]);
    let key = |s: &Symbol| match s {
        Symbol::Dim { file, name } => (0, file.0, name.as_str(), 0),
        Symbol::Generic(name) => (1, 0, name.as_str(), 0),
        Symbol::Unknown { name, index } => (2, 0, name.as_str(), *index),
        Symbol::Var(v) => (3, *v, "", 0),
    };
    for a in &symbols {
        for b in &symbols {
            assert_eq!(a.cmp(b), key(a).cmp(&key(b)), "{a:?} {b:?}");
        }
    }
}

fn check(result: Result<Poly, SizeError>, expect: Expect) {
    let shown = match result {
        Ok(p) => p.to_string(),
        Err(e) => format!("{e:?}"),
    };
    expect.assert_eq(&shown);
}

#[test]
fn normal_form_merges_like_terms() {
    let n = var("n");
    check(n.add(&n), expect!["2*n"]);
    assert_eq!(n.add(&n).unwrap(), c(2).mul(&n).unwrap());
    check(n.sub(&n), expect!["0"]);
    check(
        n.add(&c(1)).unwrap().mul(&n.sub(&c(1)).unwrap()),
        expect!["n*n - 1"],
    );
}

#[test]
fn order_of_factors_does_not_matter() {
    let (h, dh) = (dim("H"), dim("Dh"));
    let a = c(3).mul(&h).unwrap().mul(&dh).unwrap();
    let b = c(3).mul(&dh).unwrap().mul(&h).unwrap();
    assert_eq!(a, b);
    check(Ok(a), expect!["3*Dh*H"]);
}

#[test]
fn exact_division() {
    let (n, m) = (var("n"), var("m"));
    check(c(2).mul(&n).unwrap().div_exact(&c(2)), expect!["n"]);
    check(n.mul(&m).unwrap().div_exact(&n), expect!["m"]);
    check(n.div_exact(&c(2)), expect!["Inexact"]);
    check(c(768).div_exact(&c(5)), expect!["Inexact"]);
    check(c(768).div_exact(&c(12)), expect!["64"]);
    check(
        n.div_exact(&n.add(&c(1)).unwrap()),
        expect!["DivisorNotATerm"],
    );
    check(n.div_exact(&c(0)), expect!["DivideByZero"]);
}

#[test]
fn dims_compare_by_value_after_substitution() {
    let values = |s: &Symbol| match s {
        Symbol::Dim { name, .. } if &**name == "D" => Some(c(768)),
        Symbol::Dim { name, .. } if &**name == "H" => Some(c(12)),
        Symbol::Dim { name, .. } if &**name == "Dh" => Some(c(64)),
        _ => None,
    };
    let three_d = c(3).mul(&dim("D")).unwrap();
    let three_h_dh = c(3).mul(&dim("H")).unwrap().mul(&dim("Dh")).unwrap();
    assert_ne!(three_d, three_h_dh);
    assert_eq!(
        three_d.substitute(&values).unwrap(),
        three_h_dh.substitute(&values).unwrap()
    );
    check(three_d.substitute(&values), expect!["2304"]);
}

#[test]
fn one_representation_per_size_across_64_bits() {
    // Sizes past 64 bits are kept another way; equal sizes stay equal.
    let big = i128::from(i64::MAX) + 1;
    let n = var("n");
    assert_eq!(c(big).sub(&c(1)).unwrap(), c(i128::from(i64::MAX)));
    let wide = c(big).mul(&n).unwrap();
    check(Ok(wide.clone()), expect!["9223372036854775808*n"]);
    assert_eq!(wide.div_exact(&c(big)).unwrap(), n);
    assert_eq!(wide.sub(&wide).unwrap(), Poly::default());
    assert_eq!(n.mul(&n).unwrap().div_exact(&n).unwrap(), n);
    assert_eq!(c(3).mul(&n).unwrap().terms().len(), 1);
    check(
        Ok(c(3).mul(&n).unwrap().add(&n).unwrap().add(&c(-2)).unwrap()),
        expect!["4*n - 2"],
    );
}

#[test]
fn overflow_is_reported() {
    let big = c(i128::MAX);
    check(big.add(&c(1)), expect!["Overflow"]);
    check(big.mul(&c(2)), expect!["Overflow"]);
    check(c(i128::MIN).neg(), expect!["Overflow"]);
}

#[test]
fn rounded_division_works_out_per_call() {
    // (H + 2*P - kh)/S + 1 with H = 224, P = 1, kh = 3, S = 2 is 112.
    let h = var("H");
    let inner = Formula::poly(h.add(&c(2)).unwrap().sub(&c(3)).unwrap());
    let formula = inner
        .apply_poly(Step::FloorDiv, c(2))
        .apply(Step::Add, Formula::poly(c(1)));
    let at = |value: i128| move |s: &Symbol| (s == &Symbol::Generic("H".into())).then(|| c(value));
    check(formula.eval(&at(224)), expect!["112"]);
    check(formula.eval(&|_| None), expect!["Inexact"]);
    let by_zero = Formula::poly(c(3)).apply_poly(Step::FloorDiv, c(0));
    check(by_zero.eval(&|_| None), expect!["DivideByZero"]);
    let negative = Formula::poly(c(-3)).apply_poly(Step::FloorDiv, c(2));
    check(negative.eval(&|_| None), expect!["-2"]);
}

#[test]
fn unknown_sizes_show_their_number() {
    let k = Symbol::Unknown {
        name: "k".into(),
        index: 1,
    };
    let k2 = Symbol::Unknown {
        name: "k".into(),
        index: 2,
    };
    assert_ne!(Poly::symbol(k.clone()), Poly::symbol(k2.clone()));
    check(
        Ok(Poly::symbol(k).add(&Poly::symbol(k2)).unwrap()),
        expect!["?k + ?k2"],
    );
}

/// `floor((d*q + c)/d) = q + floor(c/d)`: a division whose divisor divides
/// every coefficient of a symbol rounds alike for every value of the
/// symbols, and agrees with the numbers' rounding at each of them.
#[test]
fn rounded_division_of_a_multiple_agrees_with_every_value() {
    let (t, u) = (var("t"), var("u"));
    for d in [-3, -2, 2, 3, 5] {
        for (kt, ku) in [(1, 0), (2, 1), (-1, 3)] {
            for c0 in -7..=7 {
                let numerator = t
                    .mul(&c(kt * d))
                    .and_then(|p| p.add(&u.mul(&c(ku * d))?))
                    .and_then(|p| p.add(&c(c0)))
                    .unwrap();
                let symbolic = numerator.div_floor(&c(d)).unwrap();
                for (tv, uv) in [(1, 1), (2, 5), (7, 3), (-4, 2)] {
                    let at = |s: &Symbol| match s {
                        Symbol::Generic(n) if *n == Name::from("t") => Some(c(tv)),
                        Symbol::Generic(_) => Some(c(uv)),
                        _ => None,
                    };
                    let number = numerator.substitute(&at).unwrap().div_floor(&c(d));
                    assert_eq!(
                        symbolic.substitute(&at).ok(),
                        number.ok(),
                        "({numerator})/{d}"
                    );
                }
            }
        }
    }
}

#[test]
fn rounded_division_that_depends_on_a_value_is_inexact() {
    let t = var("t");
    let odd = t.sub(&c(1)).unwrap();
    check(odd.div_floor(&c(2)), expect!["Inexact"]);
    check(
        t.mul(&c(2)).unwrap().sub(&c(1)).unwrap().div_floor(&c(2)),
        expect!["t - 1"],
    );
    check(c(7).div_floor(&c(-2)), expect!["-4"]);
    check(
        t.mul(&c(4)).unwrap().div_floor(&c(0)),
        expect!["DivideByZero"],
    );
    check(t.mul(&c(2)).unwrap().div_floor(&t), expect!["2"]);
    check(t.add(&c(1)).unwrap().div_floor(&t), expect!["Inexact"]);
    check(c(i128::MIN).div_floor(&c(-1)), expect!["Overflow"]);
    assert_eq!(
        undivided_terms(
            &t.mul(&c(3))
                .unwrap()
                .add(&var("u").mul(&c(4)).unwrap())
                .unwrap(),
            2
        )
        .iter()
        .map(|(w, s)| format!("{w} -> {s}"))
        .collect::<Vec<_>>(),
        ["3*t -> 6*t"]
    );
    let formula = Formula::poly(odd.clone()).apply_poly(Step::FloorDiv, c(2));
    check(formula.eval(&|_| None), expect!["Inexact"]);
    assert_eq!(formula.inexact_division(&|_| None), Some((odd, c(2))));
}
