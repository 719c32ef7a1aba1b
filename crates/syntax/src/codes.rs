//! The E01xx codes for ShapeScript lexing and parsing, each with a one-line
//! title and an explanation with a wrong and a fixed example (the checker's
//! table, `check::codes`, adds the rest). Never reuse a code for another
//! mistake; add new ones at the end.

diag::codes! {
    /// Every E01xx code, in order.
    pub static CODES;
    /// A character that cannot start any token, such as `$` or `é` outside a string.
    UNEXPECTED_CHARACTER = "E0101", "unexpected character",
    "A character that no token starts with appeared outside a string or comment.\n\n\
Wrong:\n\n```\ndim D = 768 $\n```\n\nFixed:\n\n```\ndim D = 768\n```\n";
    /// A string without its closing `"` on the same line.
    UNTERMINATED_STRING = "E0102", "unterminated string",
    "A string must end with `\"` on the line where it starts.\n\n\
Wrong:\n\n```\nextern fn erfc(x: Real) -> NonNeg = \"torch.special.erfc\n```\n\n\
Fixed:\n\n```\nextern fn erfc(x: Real) -> NonNeg = \"torch.special.erfc\"\n```\n";
    /// The parser expected one thing and found another.
    EXPECTED = "E0103", "expected something else here",
    "The parser needed a particular token or construct and found another. \
The message says what was expected and what was found. Nesting too deep is \
reported with this code too: more than 64 nested brackets, or one \
expression, type or size of more than 256 levels of operators, calls, \
indexing, fields, casts or size arithmetic (`docs/shapescript/functions.md`).\n\n\
Wrong:\n\n```\nfn f(x: [b n)) -> [b n] = x\n```\n\nFixed:\n\n```\nfn f(x: [b n]) -> [b n] = x\n```\n";
    /// An opening `(`, `[` or `{` that is never closed.
    UNCLOSED_DELIMITER = "E0104", "unclosed delimiter",
    "An opening `(`, `[` or `{` has no matching closing delimiter before the \
end of the statement or file.\n\n\
Wrong:\n\n```\nfn f(x: [n]) -> [n] {\n  let y = exp(x\n  y\n}\n```\n\n\
Fixed:\n\n```\nfn f(x: [n]) -> [n] {\n  let y = exp(x)\n  y\n}\n```\n";
    /// An integer literal that does not fit in 128 bits.
    NUMBER_TOO_LARGE = "E0105", "integer literal too large",
    "Integer literals must fit in 128 bits.\n\n\
Wrong:\n\n```\ndim D = 1000000000000000000000000000000000000000000\n```\n\n\
Fixed:\n\n```\ndim D = 1000000\n```\n";
    /// A malformed number, such as `0.5x` or a grouped size with a fractional count.
    INVALID_NUMBER = "E0106", "invalid number",
    "A number is followed directly by letters in a way that is neither a float \
nor a grouped size. A grouped size such as `16gh` is a whole number touching an axis name.\n\n\
Wrong:\n\n```\nfn f(x: [b 1.5gh]) -> [b gh] = x\n```\n\nFixed:\n\n```\nfn f(x: [b 16gh]) -> [b 16gh] = x\n```\n";
    /// A group, grouped size or `...` used as an operand of `+ - * /` in a size.
    GROUP_IN_ARITHMETIC = "E0107", "group used in arithmetic",
    "A group `(a b)`, a grouped size `16gh` or `...` is a whole axis and cannot \
be added, multiplied or divided. Write the product out instead.\n\n\
Wrong:\n\n```\nfn f(x: [(a b) + 1]) -> [a b] = x\n```\n\nFixed:\n\n```\nfn f(x: [a*b + 1]) -> [a*b + 1] = x\n```\n";
    /// An unknown escape sequence in a string, such as `\q`.
    UNKNOWN_ESCAPE = "E0108", "unknown escape in string",
    "Strings support the escapes `\\\\`, `\\\"`, `\\n` and `\\t` only.\n\n\
Wrong:\n\n```\nextern fn f(x: Real) -> Real = \"torch\\qexp\"\n```\n\n\
Fixed:\n\n```\nextern fn f(x: Real) -> Real = \"torch.exp\"\n```\n";
    /// A size in a shape that starts with a sign, or `3 -1` with a space before the sign only.
    SIGNED_SIZE = "E0109", "a size that starts with a sign needs parentheses",
    "Axes in a shape are separated by spaces, so `[b 3 -1 + l]` could be the \
three axes `b`, `3` and `-1 + l`, or the two axes `b` and `3 - 1 + l`. A size \
that starts with a sign is written in parentheses, `(-1 + l)`, and a \
difference has spaces on both sides of its `-` (or none).\n\n\
Wrong:\n\n```\nfn f(x: [b 3 -1 + l]) -> [b 2 + l] = x\n```\n\n\
Fixed:\n\n```\nfn f(x: [b 3 - 1 + l]) -> [b 2 + l] = x\n```\n";
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
