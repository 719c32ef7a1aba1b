//! The exact ends of ranges the pass records, where rounding decides them
//! (the diagnostics show four digits; these tests compare the floats).

use diag::SourceMap;

use crate::typed::Range;
use crate::{check_sources, Options};

/// The range recorded for the expression written `expr` in `src`.
fn range_of(src: &str, expr: &str) -> Range {
    let mut map = SourceMap::new();
    let checked = check_sources(&mut map, &[("a.ss", src)], &Options::default());
    let file = checked.user_modules().next().unwrap().file;
    let text = map.text(file).to_string();
    checked
        .bodies
        .fns
        .iter()
        .flat_map(|body| &body.exprs)
        .find(|e| &text[e.span.start as usize..e.span.end as usize] == expr)
        .and_then(|e| e.range)
        .unwrap_or_else(|| panic!("no range recorded for `{expr}`"))
}

#[test]
fn a_quotient_rounds_once_as_pytorch_divides() {
    // `2.5 / 1.5` is 1.6666666666666667; `2.5 * (1 / 1.5)` is one spacing lower.
    let src =
        "fn f(acc: [2 s] Unit f64, d: [2 s] f64) -> [2 s] f64 = (acc + 1.5) / (d * 0.0 + 1.5)\n";
    let r = range_of(src, "(acc + 1.5) / (d * 0.0 + 1.5)");
    assert_eq!((r.lo, r.hi), (1.0, 2.5 / 1.5));
    assert!(r.hi > 2.5 * (1.0 / 1.5));
}

#[test]
fn a_tensor_divided_by_a_number_leaves_room_for_its_reciprocal() {
    // On a GPU `x / 1.5` is `x * (1 / 1.5)`: two spacings either way, but
    // an exact quotient (`1.5 / 1.5`, `x / 2.0`) stays.
    let src = "fn f(acc: [2 s] Unit f64) -> [2 s] f64 = (acc + 1.5) / 1.5\n\
               fn g(acc: [2 s] Unit f32) -> [2 s] f32 = acc / 2.0\n";
    let r = range_of(src, "(acc + 1.5) / 1.5");
    assert_eq!(r.lo, 1.0);
    assert_eq!(r.hi, 2.5 / 1.5 + 2.0 * f64::EPSILON);
    let r = range_of(src, "acc / 2.0");
    assert_eq!((r.lo, r.hi), (0.0, 0.5));
}

#[test]
fn a_mean_moves_out_where_its_sum_may_round() {
    let src =
        "fn f(acc: [2 s] Unit f32) -> [2] f32 = reduce(acc * 0.3 + 0.6, [2 s] -> [2], mean)\n\
               fn g(acc: [2 s] Unit f32) -> [2] f32 = reduce(acc, [2 s] -> [2], mean)\n";
    let inner = range_of(src, "acc * 0.3 + 0.6");
    let mean = range_of(src, "reduce(acc * 0.3 + 0.6, [2 s] -> [2], mean)");
    assert!(
        mean.lo < inner.lo && mean.hi > inner.hi,
        "{inner:?} {mean:?}"
    );
    // 64 f32 spacings at most (the grid then takes the ends).
    assert!(mean.hi - inner.hi <= 65.0 * f64::from(f32::EPSILON));
    // 0 and 1 are sums of copies that never round.
    let r = range_of(src, "reduce(acc, [2 s] -> [2], mean)");
    assert_eq!((r.lo, r.hi), (0.0, 1.0));
}

#[test]
fn powers_other_than_squares_leave_room_for_their_products() {
    let src = "fn f(x: [n] Unit f64) -> [n] f64 = (x * 0.5 + 0.3) ** 3\n\
               fn g(x: [n] Unit f64) -> [n] f64 = (x * 0.5 + 0.3) ** 2\n\
               fn h(x: [n] Unit f32) -> [n] f32 = (x + 2.0) ** 3\n";
    let r = range_of(src, "(x * 0.5 + 0.3) ** 3");
    assert!(r.lo < 0.3f64.powi(3) && r.hi > 0.8f64.powi(3));
    let r = range_of(src, "(x * 0.5 + 0.3) ** 2");
    assert_eq!((r.lo, r.hi), (0.3 * 0.3, 0.8 * 0.8));
    // Whole powers of whole numbers are exact.
    let r = range_of(src, "(x + 2.0) ** 3");
    assert_eq!((r.lo, r.hi), (8.0, 27.0));
}

#[test]
fn erf_near_zero_holds_its_value() {
    // Found by shapescript-gen (campaign 6000, program 11938): `erf(2^-24)` is
    // 6.7257e-8, and an approximation of absolute error 1.5e-7 put the
    // range at (6.75e-8, 6.89e-8).
    let src = "fn f(x: [n] Unit f32) -> [n] f32 = erf(x * 0.0 + 5.9604644775390625e-08)\n";
    let r = range_of(src, "erf(x * 0.0 + 5.9604644775390625e-08)");
    let want = 2.0 / std::f64::consts::PI.sqrt() * 2f64.powi(-24);
    assert!(r.lo <= want && want <= r.hi, "{r:?} misses {want}");
}

#[test]
fn each_piece_of_a_split_has_the_values_it_splits() {
    // Campaign 12000, program 7391: the pieces took their type's domain,
    // and a sum of `Signed` values was typed `Signed`.
    let src = "fn f(x: [k 6] Unit f64) -> [k 2] f64 {\n\
               \x20 let (a, b, c) = split(clamp(x, -5.0, -2.0), 3, over=1)\n\
               \x20 b + split(x * 3.0, 3, over=1)[2]\n\
               }\n";
    let r = range_of(src, "b");
    assert_eq!((r.lo, r.hi), (-2.0, -2.0));
    let r = range_of(src, "split(x * 3.0, 3, over=1)[2]");
    assert_eq!((r.lo, r.hi), (0.0, 3.0));
}
