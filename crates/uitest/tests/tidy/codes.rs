//! Diagnostic codes written as string literals: every code a crate emits
//! must be a typed constant (`codes::E0402`, `codes::E_DIM_001`) declared
//! with `diag::codes!` in a file named `codes.rs`, so a code without an
//! explanation cannot compile. Finds the literals; `main.rs` walks the files.

/// The ids that look like a code in a string literal: `"E0402"`, `"H2201"`,
/// `"E-DIM-001"`.
pub fn code_literals(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (quote, _) in text.match_indices('"') {
        let rest = &text[quote + 1..];
        let Some(end) = rest.find('"') else { break };
        let literal = &rest[..end];
        if is_code(literal) {
            out.push(literal);
        }
    }
    out
}

/// `E0402` and `H2201` (ShapeScript), `E-DIM-001` (SexpGPU).
fn is_code(text: &str) -> bool {
    let b = text.as_bytes();
    let shapescript =
        b.len() == 5 && matches!(b[0], b'E' | b'H') && b[1..].iter().all(u8::is_ascii_digit);
    let sexpgpu = text.starts_with("E-")
        && text.len() > 6
        && text[text.len() - 4..].starts_with('-')
        && text[text.len() - 3..].bytes().all(|c| c.is_ascii_digit())
        && text[2..text.len() - 4]
            .bytes()
            .all(|c| c.is_ascii_uppercase());
    shapescript || sexpgpu
}

/// The code of a file that is not unit-test code or a comment: the lines
/// before its `#[cfg(test)] mod tests { ... }` block, if it has one, without
/// comment lines (docs may show a code as users write it).
pub fn non_test_code(text: &str) -> String {
    let code = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    };
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_that_look_like_codes_are_found() {
        let text = r#"error("E0402", x); f("E-DIM-001"); g("E-NOPE"); h("E04021"); i("H2201")"#;
        assert_eq!(code_literals(text), ["E0402", "E-DIM-001", "H2201"]);
    }

    #[test]
    fn unit_tests_are_left_out() {
        let text =
            "/// \"E0401\"\nfn a() {}\n#[cfg(test)]\nmod tests {\n    const C: &str = \"E0402\";\n}\n";
        assert_eq!(code_literals(&non_test_code(text)), Vec::<&str>::new());
    }
}
