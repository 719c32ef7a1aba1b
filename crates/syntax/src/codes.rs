//! The E01xx codes for ShapeScript lexing and parsing, each with a one-line
//! title and an explanation with a wrong and a fixed example, kept in
//! `codes/<CODE>.md` and included when the crate compiles (the checker's
//! table, `check::codes`, adds the rest). Never reuse a code for another
//! mistake; add new ones at the end.

diag::codes! {
    /// Every E01xx code, in order.
    pub static CODES;
    /// A character that cannot start any token, such as `$` or `é` outside a string.
    UNEXPECTED_CHARACTER = "E0101", "unexpected character", include_str!("codes/E0101.md");
    /// A string without its closing `"` on the same line.
    UNTERMINATED_STRING = "E0102", "unterminated string", include_str!("codes/E0102.md");
    /// The parser expected one thing and found another.
    EXPECTED = "E0103", "expected something else here", include_str!("codes/E0103.md");
    /// An opening `(`, `[` or `{` that is never closed.
    UNCLOSED_DELIMITER = "E0104", "unclosed delimiter", include_str!("codes/E0104.md");
    /// An integer literal that does not fit in 128 bits.
    NUMBER_TOO_LARGE = "E0105", "integer literal too large", include_str!("codes/E0105.md");
    /// A malformed number, such as `0.5x` or a grouped size with a fractional count.
    INVALID_NUMBER = "E0106", "invalid number", include_str!("codes/E0106.md");
    /// A group, grouped size or `...` used as an operand of `+ - * /` in a size.
    GROUP_IN_ARITHMETIC = "E0107", "group used in arithmetic", include_str!("codes/E0107.md");
    /// An unknown escape sequence in a string, such as `\q`.
    UNKNOWN_ESCAPE = "E0108", "unknown escape in string", include_str!("codes/E0108.md");
    /// A size in a shape that starts with a sign, or `3 -1` with a space before the sign only.
    SIGNED_SIZE = "E0109", "a size that starts with a sign needs parentheses", include_str!("codes/E0109.md");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_ordered_and_explained() {
        diag::assert_sorted(CODES);
        for code in CODES {
            assert!(
                code.id.starts_with("E01") && code.id.len() == 5,
                "{}",
                code.id
            );
            assert!(code.explain.contains("Wrong:") && code.explain.contains("Fixed:"));
        }
    }
}
