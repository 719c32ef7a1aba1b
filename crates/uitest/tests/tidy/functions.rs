//! The function-length rule: no function outside test code is longer than
//! [`LIMIT`] lines from its `fn` line to its closing brace, so every one can
//! be read whole.

use crate::lex::{is_ident_byte, line_of, word_starts};

/// The most lines a function may take.
pub const LIMIT: usize = 120;

/// The functions in `code` (code only, test code blanked) longer than
/// `limit` lines, as `shown:line: problem`.
pub fn long_functions(shown: &str, code: &str, limit: usize) -> Vec<String> {
    let bytes = code.as_bytes();
    let mut problems = Vec::new();
    for start in word_starts(code, "fn") {
        let mut at = start + "fn".len();
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        let name_start = at;
        while bytes.get(at).copied().is_some_and(is_ident_byte) {
            at += 1;
        }
        // `fn(u8) -> u8` is a type, not a function.
        if at == name_start {
            continue;
        }
        let Some(close) = body_start(bytes, at).and_then(|open| matching_brace(bytes, open)) else {
            continue;
        };
        let line = line_of(code, start);
        let lines = line_of(code, close) - line + 1;
        if lines > limit {
            let name = &code[name_start..at];
            problems.push(format!(
                "{shown}:{line}: `fn {name}` is {lines} lines long (at most {limit})"
            ));
        }
    }
    problems
}

/// The `{` opening the body of a function whose signature continues at
/// `at`, or `None` for a declaration without a body (`fn f();` in a trait).
/// Brackets are counted so that `-> [u8; 4]` does not end the signature.
fn body_start(bytes: &[u8], mut at: usize) -> Option<usize> {
    let mut depth = 0usize;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'{' if depth == 0 => return Some(at),
            b';' if depth == 0 => return None,
            _ => {}
        }
        at += 1;
    }
    None
}

/// The `}` closing the `{` at `open`.
fn matching_brace(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Reports the functions of `text` longer than 3 lines.
fn check(text: &str, expect: expect_test::Expect) {
    let code = crate::lex::without_test_code(&crate::lex::code_only(text));
    expect.assert_eq(&long_functions("x.rs", &code, 3).join("\n"));
}

#[test]
fn long_functions_are_reported_with_their_length() {
    check(
        "fn short() {\n    1\n}\nfn long(a: [u8; 2]) -> [u8; 2] {\n    let s = \"}\";\n    '}';\n    a\n}\n\
         trait T {\n    fn declared(&self);\n    fn provided(&self) -> fn(u8) {\n\n\n    }\n}\n",
        expect_test::expect![[r#"
            x.rs:4: `fn long` is 5 lines long (at most 3)
            x.rs:11: `fn provided` is 4 lines long (at most 3)"#]],
    );
}

#[test]
fn test_code_is_not_measured() {
    let cfg_test = crate::lex::CFG_TEST;
    check(
        &format!("{cfg_test}\nmod tests {{\n    fn long() {{\n\n\n\n    }}\n}}\n"),
        expect_test::expect![""],
    );
}
