//! The formatter's rules, one input and its layout per test.

use super::format;
use expect_test::{expect, Expect};

fn check(input: &str, expected: Expect) {
    expected.assert_eq(&uitest::formatting::formatted_stable(format, input));
}

#[test]
fn bodies_indent_two_and_arguments_align() {
    check(
        "(defn f (x)\n(let [y  (* x 2)\nz 3]\n(println  y\nz)\n) )\n",
        expect![[r#"
            (defn f (x)
              (let [y (* x 2)
                    z 3]
                (println y
                         z)))
        "#]],
    );
}

#[test]
fn closers_never_start_a_line_unless_a_comment_is_in_the_way() {
    check(
        "(defn f (x)\n  (g x)\n)\n(defn h (x)\n  (g x) ; why\n  )\n",
        expect![[r#"
            (defn f (x)
              (g x))
            (defn h (x)
              (g x) ; why
            )
        "#]],
    );
}

#[test]
fn calls_without_arguments_on_the_first_line_indent_one() {
    check(
        "(println\n\"a\"\n   \"b\")\n[1\n2]\n{:a 1\n:b 2}\n",
        expect![[r#"
            (println
             "a"
             "b")
            [1
             2]
            {:a 1
             :b 2}
        "#]],
    );
}

#[test]
fn spacing_prefixes_and_commas() {
    check(
        "( def  m {:a 1 ,:b ' x} )\n`(f ~ x ~@ xs)\n",
        expect![[r#"
            (def m {:a 1, :b 'x})
            `(f ~x ~@xs)
        "#]],
    );
}

#[test]
fn long_lines_break_before_arguments_keeping_pairs() {
    check(
        "(defn block (p x) (nn/linear (nn/gelu (nn/linear x (k \"up\") :bias (k \"up-b\"))) (k \"down\") :bias (k \"down-b\")))\n(def options {:learning-rate 0.001 :weight-decay 0.1 :warmup 100 :schedule :cosine :steps 10000 :seed 1})\n",
        expect![[r#"
            (defn block (p x)
              (nn/linear (nn/gelu (nn/linear x (k "up") :bias (k "up-b"))) (k "down") :bias (k "down-b")))
            (def options
              {:learning-rate 0.001 :weight-decay 0.1 :warmup 100 :schedule :cosine :steps 10000 :seed 1})
        "#]],
    );
}

#[test]
fn comments_keep_their_place_and_strings_their_lines() {
    check(
        ";; top\n(defn f (x)\n      ;; inside\n  \"a doc\n  on two lines\"\n  x)   ; trailing\n",
        expect![[r#"
            ;; top
            (defn f (x)
              ;; inside
              "a doc
              on two lines"
              x)   ; trailing
        "#]],
    );
}

#[test]
fn a_file_that_does_not_read_is_refused() {
    match format("(defn f (x)\n") {
        Err(super::FormatError::Syntax(diagnostics)) => assert!(!diagnostics.is_empty()),
        other => panic!("{other:?}"),
    }
}
