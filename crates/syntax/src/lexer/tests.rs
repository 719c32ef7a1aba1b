//! Tests of the lexer: tokens, grouped sizes, keywords, recovery.

use super::*;
use expect_test::{expect, Expect};

fn check(src: &str, expect: Expect) {
    let lexed = lex(FileId(0), src);
    let mut out = String::new();
    for token in &lexed.tokens {
        let text = &src[token.start as usize..token.end as usize];
        out.push_str(&format!("{:?} {:?}\n", token.kind, text));
    }
    for (start, end) in &lexed.docs {
        out.push_str(&format!("doc {:?}\n", &src[*start as usize..*end as usize]));
    }
    for d in &lexed.diagnostics {
        let span = d
            .primary
            .as_ref()
            .map(|l| l.span)
            .expect("lexer diagnostics have spans");
        out.push_str(&format!(
            "{} {} @{}..{}\n",
            d.code, d.message, span.start, span.end
        ));
    }
    expect.assert_eq(&out);
}

#[test]
fn grouped_sizes_touch_and_spaces_separate() {
    check(
        "[b 16gh 16 gh ?k ...]",
        expect![[r#"
            LBracket "["
            Ident "b"
            Grouped "16gh"
            Int "16"
            Ident "gh"
            Unknown "?k"
            Ellipsis "..."
            RBracket "]"
            Eof ""
        "#]],
    );
}

#[test]
fn numbers_and_floats() {
    check(
        "0.5 1e-6 2E3 768 1.x 3e",
        expect![[r#"
            Float "0.5"
            Float "1e-6"
            Float "2E3"
            Int "768"
            Int "1"
            Dot "."
            Ident "x"
            Grouped "3e"
            Eof ""
        "#]],
    );
}

#[test]
fn newlines_end_lines_except_after_operators() {
    check(
        "let x = a +\n  b\n\n\nlet y = f(a,\n b) ->\n c",
        expect![[r#"
            KwLet "let"
            Ident "x"
            Eq "="
            Ident "a"
            Plus "+"
            Ident "b"
            Newline "\n"
            KwLet "let"
            Ident "y"
            Eq "="
            Ident "f"
            LParen "("
            Ident "a"
            Comma ","
            Ident "b"
            RParen ")"
            Arrow "->"
            Ident "c"
            Eof ""
        "#]],
    );
}

#[test]
fn comments_and_doc_comments() {
    check(
        "# plain\n## The doc.\n##  indented\ndim D = 768 # trailing",
        expect![[r###"
            KwDim "dim"
            Ident "D"
            Eq "="
            Int "768"
            Eof ""
            doc "## The doc."
            doc "##  indented"
        "###]],
    );
}

#[test]
fn byte_order_mark_and_crlf_line_ends() {
    check(
        "\u{feff}dim D = 1\r\n\r\ndim E = 2\r\n",
        expect![[r#"
            KwDim "dim"
            Ident "D"
            Eq "="
            Int "1"
            Newline "\n"
            KwDim "dim"
            Ident "E"
            Eq "="
            Int "2"
            Newline "\n"
            Eof ""
        "#]],
    );
}

#[test]
fn operators_and_keywords() {
    check(
        "** * == != <= >= < > -> @ : ; not and or as to none",
        expect![[r#"
            StarStar "**"
            Star "*"
            EqEq "=="
            NotEq "!="
            Le "<="
            Ge ">="
            Lt "<"
            Gt ">"
            Arrow "->"
            At "@"
            Colon ":"
            Semi ";"
            KwNot "not"
            KwAnd "and"
            KwOr "or"
            KwAs "as"
            KwTo "to"
            KwNone "none"
            Eof ""
        "#]],
    );
}

/// Keywords and names near them, both where eight bytes follow the
/// word's start (the fast path) and at the end of the text.
#[test]
fn keywords_and_near_misses() {
    let kinds = |src: &str| -> Vec<TokenKind> {
        lex(FileId(0), src)
            .tokens
            .iter()
            .map(|token| token.kind)
            .collect()
    };
    for (word, kind) in KEYWORDS {
        assert_eq!(kinds(word), [kind, TokenKind::Eof], "{word}");
        assert_eq!(
            kinds(&format!("{word}        (")),
            [kind, TokenKind::LParen, TokenKind::Eof],
            "{word}"
        );
        let mut capital = word.to_string();
        capital[..1].make_ascii_uppercase();
        for near in [
            format!("{word}s"),
            format!("{word}_1"),
            word[..word.len() - 1].to_string(),
            capital,
            format!("_{word}"),
        ] {
            assert_eq!(kinds(&near), [TokenKind::Ident, TokenKind::Eof], "{near}");
            assert_eq!(
                kinds(&format!("{near}        (")),
                [TokenKind::Ident, TokenKind::LParen, TokenKind::Eof],
                "{near}"
            );
        }
    }
    assert_eq!(kinds("returned_values"), [TokenKind::Ident, TokenKind::Eof]);
}

#[test]
fn bad_characters_strings_and_numbers() {
    check(
        "\"torch.exp\" \"a\\qb\" é $ 0.5x $$é \"open\nx",
        expect![[r#"
            Str "\"torch.exp\""
            Str "\"a\\qb\""
            Error "é"
            Error "$"
            Error "0.5x"
            Error "$$é"
            Str "\"open"
            Newline "\n"
            Ident "x"
            Eof ""
            E0108 unknown escape in string @14..16
            E0101 unexpected character `é` @19..21
            E0101 unexpected character `$` @22..23
            E0106 invalid number @24..28
            E0101 unexpected characters `$$é` @29..33
            E0102 unterminated string @34..39
        "#]],
    );
}
