//! Reader tests: each case reads a snippet and shows forms with their byte
//! spans, then any diagnostics as `code@start..end: message`.

use super::*;
use expect_test::{expect, Expect};

fn show(form: &Form, out: &mut String) {
    let Span { start, end, .. } = form.span;
    let items = |out: &mut String, open: &str, items: &[Form], close: &str| {
        out.push_str(open);
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            show(item, out);
        }
        out.push_str(close);
    };
    match &form.kind {
        FormKind::Nil => out.push_str("nil"),
        FormKind::Bool(b) => out.push_str(&b.to_string()),
        FormKind::Int(n) => out.push_str(&format!("int:{n}")),
        FormKind::Float(x) => out.push_str(&format!("float:{x:?}")),
        FormKind::Str(s) => out.push_str(&format!("{s:?}")),
        FormKind::Keyword(k) => out.push_str(&format!(":{k}")),
        FormKind::Symbol(s) => out.push_str(s),
        FormKind::List(xs) => items(out, "(", xs, ")"),
        FormKind::Vector(xs) => items(out, "[", xs, "]"),
        FormKind::Map(xs) => items(out, "{", xs, "}"),
    }
    out.push_str(&format!("@{start}..{end}"));
}

fn check(src: &str, expect: Expect) {
    let result = read(FileId(0), src);
    let mut out = String::new();
    for form in &result.forms {
        show(form, &mut out);
        out.push('\n');
    }
    for d in &result.diagnostics {
        let span = d
            .primary
            .as_ref()
            .map(|l| l.span)
            .expect("reader errors have a place");
        out.push_str(&format!(
            "{}@{}..{}: {}\n",
            d.code, span.start, span.end, d.message
        ));
    }
    expect.assert_eq(&out);
}

#[test]
fn atoms() {
    check(
        "42 -7 +3 1e-3 0.5 2. \"a\\n\\\"b\\\"\" true false nil :axes rms-norm nn/softmax / - ->>",
        expect![[r#"
            int:42@0..2
            int:-7@3..5
            int:3@6..8
            float:0.001@9..13
            float:0.5@14..17
            float:2.0@18..20
            "a\n\"b\""@21..31
            true@32..36
            false@37..42
            nil@43..46
            :axes@47..52
            rms-norm@53..61
            nn/softmax@62..72
            /@73..74
            -@75..76
            ->>@77..80
        "#]],
    );
}

#[test]
fn collections_comments_and_commas() {
    check(
        "; comment\n(sum x :axes [-1]) {:a 1, :b 2} ; trailing",
        expect![[r#"
            (sum@11..14 x@15..16 :axes@17..22 [int:-1@24..26]@23..27)@10..28
            {:a@30..32 int:1@33..34 :b@36..38 int:2@39..40}@29..41
        "#]],
    );
}

#[test]
fn quote_shorthands() {
    check(
        "'x `(a ~b ~@c)",
        expect![[r#"
            (quote@0..1 x@1..2)@0..2
            (quasiquote@3..4 (a@5..6 (unquote@7..8 b@8..9)@7..9 (unquote-splicing@10..12 c@12..13)@10..13)@4..14)@3..14
        "#]],
    );
}

#[test]
fn unclosed_list_points_at_its_opening() {
    check(
        "(defn f (x)\n  (+ x 1)",
        expect![[r#"
            E-READ-001@0..1: unclosed `(`
        "#]],
    );
}

#[test]
fn unexpected_and_mismatched_closers() {
    check(
        ") (a] [b)",
        expect![[r#"
            (a@3..4)@2..5
            [b@7..8]@6..9
            E-READ-002@0..1: unexpected `)`
            E-READ-003@4..5: `(` closed by `]`
            E-READ-003@8..9: `[` closed by `)`
        "#]],
    );
}

#[test]
fn bad_numbers() {
    check(
        "1.2.3 12abc 99999999999999999999 1e 0x10",
        expect![[r#"
            E-READ-004@0..5: malformed number `1.2.3`
            E-READ-004@6..11: malformed number `12abc`
            E-READ-004@12..32: integer `99999999999999999999` does not fit in 64 bits
            E-READ-004@33..35: malformed number `1e`
            E-READ-004@36..40: malformed number `0x10`
        "#]],
    );
}

#[test]
fn strings_unterminated_and_bad_escapes() {
    check(
        "\"ok \\u00e9\" \"bad \\q\" \"open",
        expect![[r#"
            "ok é"@0..11
            E-READ-006@17..19: unknown escape `\q` in a string
            E-READ-005@21..22: unterminated string
        "#]],
    );
}

#[test]
fn odd_map_quote_at_end_and_unsupported_syntax() {
    check(
        "{:a} (f ') #{1} : 'x",
        expect![[r#"
            (f@6..7)@5..10
            (quote@18..19 x@19..20)@18..20
            E-READ-007@0..4: a map needs an even number of forms
            E-READ-008@8..9: expected a form after `'`
            E-READ-010@11..12: `#` reader syntax is not supported
            E-READ-010@16..17: `:` is not a keyword
        "#]],
    );
}

#[test]
fn deep_nesting_is_refused_once() {
    let src = "(".repeat(MAX_NESTING + 10) + &")".repeat(MAX_NESTING + 10) + " ok";
    let result = read(FileId(0), &src);
    let codes: Vec<_> = result.diagnostics.iter().map(|d| d.code.id).collect();
    assert_eq!(codes, ["E-READ-009"]);
    assert_eq!(result.forms.last().and_then(Form::as_symbol), Some("ok"));
}

#[test]
fn symbolic_floats_read_back_as_they_print() {
    check(
        "##NaN ##Inf ##-Inf ##nan",
        expect![[r#"
            float:NaN@0..5
            float:inf@6..11
            float:-inf@12..18
            E-READ-010@19..24: `#` reader syntax is not supported
        "#]],
    );
}

#[test]
fn control_characters_are_refused_where_they_are() {
    // A NUL inside a name splits it, and the bytes around it still read;
    // so do an escape and DEL on their own. Tabs and carriage returns stay
    // whitespace; in strings and comments control characters are data.
    check(
        "(* x\u{0}y)\t\r\n\u{1b} \u{7f}\"a\u{1}b\" ; \u{0}\nok",
        expect![[r#"
            (*@1..2 x@3..4 y@5..6)@0..7
            "a\u{1}b"@13..18
            ok@23..25
            E-READ-011@4..5: control character U+0000 in the source
            E-READ-011@10..11: control character U+001B in the source
            E-READ-011@12..13: control character U+007F in the source
        "#]],
    );
}
