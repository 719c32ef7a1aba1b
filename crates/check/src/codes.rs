//! The one table of ShapeScript diagnostic codes: each code's title and the
//! `shapescript explain` text, with a wrong example and its fix, kept in
//! `codes/<CODE>.md` and included when the crate compiles (as rustc keeps
//! its `error_codes/E0001.md`), so the table is one line a code. A code is
//! never reused for another mistake; this file holds text only, no logic.
//! The parser's E01xx live beside the parser (`syntax::codes`) and are
//! re-exported here, so every ShapeScript code is `check::codes::E0xxx`.

use diag::Code;
use std::sync::OnceLock;

pub use syntax::codes::{
    EXPECTED as E0103, GROUP_IN_ARITHMETIC as E0107, INVALID_NUMBER as E0106,
    NUMBER_TOO_LARGE as E0105, UNCLOSED_DELIMITER as E0104, UNEXPECTED_CHARACTER as E0101,
    UNKNOWN_ESCAPE as E0108, UNTERMINATED_STRING as E0102,
};

/// Looks a code up, case-insensitively (`e0402` works too).
pub fn lookup(id: &str) -> Option<Code> {
    diag::lookup(all(), id)
}

/// Every code, the parser's E01xx and the checker's, in code order.
pub fn all() -> &'static [Code] {
    static ALL: OnceLock<Vec<Code>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all: Vec<Code> = syntax::codes::CODES
            .iter()
            .chain(CHECKER)
            .copied()
            .collect();
        all.sort();
        all
    })
}

diag::codes! {
    /// The checker's and the generator's codes (E02xx and up), in code order.
    static CHECKER;
    E0201 = "E0201", "imported file not found", include_str!("codes/E0201.md");
    E0202 = "E0202", "import cycle", include_str!("codes/E0202.md");
    E0203 = "E0203", "name declared twice", include_str!("codes/E0203.md");
    E0204 = "E0204", "file not imported", include_str!("codes/E0204.md");
    E0205 = "E0205", "could not read an imported file", include_str!("codes/E0205.md");
    E0301 = "E0301", "name not found", include_str!("codes/E0301.md");
    E0303 = "E0303", "not a size", include_str!("codes/E0303.md");
    E0304 = "E0304", "dim defined in terms of itself", include_str!("codes/E0304.md");
    E0305 = "E0305", "dim value is not a whole number of at least 1", include_str!("codes/E0305.md");
    E0306 = "E0306", "not allowed in this signature", include_str!("codes/E0306.md");
    E0307 = "E0307", "parameter declared twice", include_str!("codes/E0307.md");
    E0308 = "E0308", "invalid extern fn", include_str!("codes/E0308.md");
    E0309 = "E0309", "dim in a grouped size", include_str!("codes/E0309.md");
    E0310 = "E0310", "not a type", include_str!("codes/E0310.md");
    E0311 = "E0311", "group inside a group", include_str!("codes/E0311.md");
    E0401 = "E0401", "sizes or shapes don't match", include_str!("codes/E0401.md");
    E0402 = "E0402", "size division is not exact", include_str!("codes/E0402.md");
    E0405 = "E0405", "not an axis of the argument", include_str!("codes/E0405.md");
    E0406 = "E0406", "argument is not what the parameter takes", include_str!("codes/E0406.md");
    E0407 = "E0407", "wrong arguments for a call", include_str!("codes/E0407.md");
    E0408 = "E0408", "a value of the wrong kind", include_str!("codes/E0408.md");
    E0409 = "E0409", "no such field or method", include_str!("codes/E0409.md");
    E0410 = "E0410", "invalid pattern", include_str!("codes/E0410.md");
    E0411 = "E0411", "an axis name matches more than one axis", include_str!("codes/E0411.md");
    E0412 = "E0412", "invalid field initialiser", include_str!("codes/E0412.md");
    E0414 = "E0414", "size does not fit in 128 bits", include_str!("codes/E0414.md");
    E0415 = "E0415", "too few values for an operation", include_str!("codes/E0415.md");
    E0419 = "E0419", "size with too many terms", include_str!("codes/E0419.md");
    E0502 = "E0502", "mixed dtypes", include_str!("codes/E0502.md");
    E0503 = "E0503", "an operation PyTorch does not define for a dtype", include_str!("codes/E0503.md");
    E0601 = "E0601", "`log` or `rsqrt` of a value that may be 0 or less", include_str!("codes/E0601.md");
    E0602 = "E0602", "division by a value that may be 0", include_str!("codes/E0602.md");
    E0603 = "E0603", "ids of another range than the axis they index", include_str!("codes/E0603.md");
    E0604 = "E0604", "`sqrt` of a value that may be negative", include_str!("codes/E0604.md");
    E0605 = "E0605", "`log1p` of a value that may be -1 or less", include_str!("codes/E0605.md");
    E0606 = "E0606", "a value outside the declared domain", include_str!("codes/E0606.md");
    E0607 = "E0607", "an integer power with an exponent that may be negative", include_str!("codes/E0607.md");
    E0608 = "E0608", "a fractional power of a value that may be negative", include_str!("codes/E0608.md");
    E0901 = "E0901", "construct the Python generator cannot compile", include_str!("codes/E0901.md");
    E0902 = "E0902", "two files become the same Python module", include_str!("codes/E0902.md");
    E2201 = "E2201", "shape alias defined in terms of itself", include_str!("codes/E2201.md");
    E2202 = "E2202", "shape alias inside one axis", include_str!("codes/E2202.md");
    E2203 = "E2203", "shape alias expands to too many axes", include_str!("codes/E2203.md");
    H2201 = "H2201", "grouped size probably meant", include_str!("codes/H2201.md");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_unique_and_every_entry_has_text() {
        diag::assert_sorted(CHECKER);
        diag::assert_sorted(all());
        // What no program text can show: an unreadable file, and the
        // generator's safety net, which no known program reaches.
        let without_examples = [E0205.id, E0901.id];
        for info in all() {
            assert!(!info.title.is_empty(), "{} has no title", info.id);
            let kinds: Vec<diag::ExampleKind> = info.examples().iter().map(|e| e.kind).collect();
            let shown = kinds.contains(&diag::ExampleKind::Wrong)
                && kinds.contains(&diag::ExampleKind::Fixed);
            assert_eq!(
                shown,
                !without_examples.contains(&info.id),
                "{} should have a Wrong and a Fixed example exactly when a program can show it",
                info.id
            );
            // A Wrong or Fixed paragraph of two lines or more loses its
            // kind at the second line, and its block would go untested.
            assert_eq!(
                info.explain.matches("```").count(),
                2 * info.examples().len(),
                "{}: every code block is a Wrong or Fixed example, each after a one-line paragraph",
                info.id
            );
        }
        assert!(all().iter().any(|info| info.id == "E0101"));
    }

    #[test]
    fn lookup_ignores_case() {
        assert_eq!(lookup("e0402").map(|i| i.id), Some("E0402"));
        assert!(lookup("E9999").is_none());
    }
}
