//! The E01xx codes for ShapeScript lexing and parsing, each with a one-line
//! title and an explanation with a wrong and a fixed example. Never reuse a
//! code for another mistake; add new ones at the end.

/// A character that cannot start any token, such as `$` or `é` outside a string.
pub const UNEXPECTED_CHARACTER: &str = "E0101";
/// A string without its closing `"` on the same line.
pub const UNTERMINATED_STRING: &str = "E0102";
/// The parser expected one thing and found another.
pub const EXPECTED: &str = "E0103";
/// An opening `(`, `[` or `{` that is never closed.
pub const UNCLOSED_DELIMITER: &str = "E0104";
/// An integer literal that does not fit in 128 bits.
pub const NUMBER_TOO_LARGE: &str = "E0105";
/// A malformed number, such as `0.5x` or a grouped size with a fractional count.
pub const INVALID_NUMBER: &str = "E0106";
/// A group, grouped size or `...` used as an operand of `+ - * /` in a size.
pub const GROUP_IN_ARITHMETIC: &str = "E0107";
/// An unknown escape sequence in a string, such as `\q`.
pub const UNKNOWN_ESCAPE: &str = "E0108";

/// A code's title and long explanation, for `shapescript explain`.
#[derive(Clone, Copy, Debug)]
pub struct CodeInfo {
    pub code: &'static str,
    pub title: &'static str,
    pub explanation: &'static str,
}

/// Every E01xx code, in order.
pub const CODES: &[CodeInfo] = &[
    CodeInfo {
        code: UNEXPECTED_CHARACTER,
        title: "unexpected character",
        explanation: "A character that no token starts with appeared outside a string or comment.\n\n\
Wrong:\n\n    dim D = 768 $\n\nFixed:\n\n    dim D = 768\n",
    },
    CodeInfo {
        code: UNTERMINATED_STRING,
        title: "unterminated string",
        explanation: "A string must end with `\"` on the line where it starts.\n\n\
Wrong:\n\n    extern fn erfc(x: Real) -> NonNeg = \"torch.special.erfc\n\n\
Fixed:\n\n    extern fn erfc(x: Real) -> NonNeg = \"torch.special.erfc\"\n",
    },
    CodeInfo {
        code: EXPECTED,
        title: "expected something else here",
        explanation: "The parser needed a particular token or construct and found another. \
The message says what was expected and what was found.\n\n\
Wrong:\n\n    fn f(x: [b n)) -> [b n] = x\n\nFixed:\n\n    fn f(x: [b n]) -> [b n] = x\n",
    },
    CodeInfo {
        code: UNCLOSED_DELIMITER,
        title: "unclosed delimiter",
        explanation: "An opening `(`, `[` or `{` has no matching closing delimiter before the \
end of the statement or file.\n\n\
Wrong:\n\n    fn f(x: [n]) -> [n] {\n      let y = exp(x\n      y\n    }\n\n\
Fixed:\n\n    fn f(x: [n]) -> [n] {\n      let y = exp(x)\n      y\n    }\n",
    },
    CodeInfo {
        code: NUMBER_TOO_LARGE,
        title: "integer literal too large",
        explanation: "Integer literals must fit in 128 bits.\n\n\
Wrong:\n\n    dim D = 1000000000000000000000000000000000000000000\n\n\
Fixed:\n\n    dim D = 1000000\n",
    },
    CodeInfo {
        code: INVALID_NUMBER,
        title: "invalid number",
        explanation: "A number is followed directly by letters in a way that is neither a float \
nor a grouped size. A grouped size such as `16gh` is a whole number touching an axis name.\n\n\
Wrong:\n\n    fn f(x: [b 1.5gh]) -> [b gh] = x\n\nFixed:\n\n    fn f(x: [b 16gh]) -> [b gh 16] = x\n",
    },
    CodeInfo {
        code: GROUP_IN_ARITHMETIC,
        title: "group used in arithmetic",
        explanation: "A group `(a b)`, a grouped size `16gh` or `...` is a whole axis and cannot \
be added, multiplied or divided. Write the product out instead.\n\n\
Wrong:\n\n    fn f(x: [(a b) + 1]) -> [a b] = x\n\nFixed:\n\n    fn f(x: [a*b + 1]) -> [a*b + 1] = x\n",
    },
    CodeInfo {
        code: UNKNOWN_ESCAPE,
        title: "unknown escape in string",
        explanation: "Strings support the escapes `\\\\`, `\\\"`, `\\n` and `\\t` only.\n\n\
Wrong:\n\n    extern fn f(x: Real) -> Real = \"torch\\qexp\"\n\n\
Fixed:\n\n    extern fn f(x: Real) -> Real = \"torch.exp\"\n",
    },
];

/// The title and explanation of an E01xx code, if it is one.
pub fn lookup(code: &str) -> Option<&'static CodeInfo> {
    CODES.iter().find(|info| info.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_ordered_and_explained() {
        for pair in CODES.windows(2) {
            assert!(
                pair[0].code < pair[1].code,
                "{} before {}",
                pair[0].code,
                pair[1].code
            );
        }
        for info in CODES {
            assert!(
                info.code.starts_with("E01") && info.code.len() == 5,
                "{}",
                info.code
            );
            assert!(info.explanation.contains("Wrong:") && info.explanation.contains("Fixed:"));
            assert!(lookup(info.code).is_some());
        }
        assert!(lookup("E0401").is_none());
    }
}
