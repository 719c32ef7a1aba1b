//! A small line diff for golden mismatches: `-` expected, `+` actual, a few
//! lines of context, long equal stretches folded. Pure; for people to read.

/// Lines of context kept around each change.
const CONTEXT: usize = 2;

use linediff::{edits, Edit};

/// A readable diff of `expected` against `actual`, each line indented by two spaces.
pub(crate) fn line_diff(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    let mut out = String::new();
    let edits = edits(&old, &new);
    if edits.iter().all(|e| matches!(e, Edit::Same(_))) {
        return invisible_difference(expected, actual);
    }
    let near_change = |k: usize| {
        let lo = k.saturating_sub(CONTEXT);
        let hi = (k + CONTEXT + 1).min(edits.len());
        edits[lo..hi].iter().any(|e| !matches!(e, Edit::Same(_)))
    };
    let mut folded = false;
    for (k, edit) in edits.iter().enumerate() {
        let (sign, line) = match edit {
            Edit::Same(line) if !near_change(k) => {
                if !folded {
                    out.push_str("  ...\n");
                    folded = true;
                }
                continue;
            }
            Edit::Same(line) => (' ', line),
            Edit::Removed(line) => ('-', line),
            Edit::Added(line) => ('+', line),
        };
        folded = false;
        // Trailing whitespace is kept on changed lines: it may be the change.
        let shown = format!("  {sign}{line}");
        out.push_str(if sign == ' ' {
            shown.trim_end()
        } else {
            &shown
        });
        out.push('\n');
    }
    out
}

/// Texts whose lines are equal differ in `\r\n` against `\n` or in the final
/// newline: show the first line that differs with its ending spelled out.
fn invisible_difference(expected: &str, actual: &str) -> String {
    let mut old = expected.split_inclusive('\n');
    let mut new = actual.split_inclusive('\n');
    let mut number = 1;
    loop {
        match (old.next(), new.next()) {
            (Some(a), Some(b)) if a == b => number += 1,
            (None, None) => return "  (the texts are equal)\n".to_string(),
            (a, b) => {
                return format!(
                    "  (only line endings differ) line {number}:\n  -{:?}\n  +{:?}\n",
                    a.unwrap_or(""),
                    b.unwrap_or("")
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(expected: &str, actual: &str, expect: Expect) {
        // The header keeps expect-test from trimming the two-space indent.
        expect.assert_eq(&format!("diff:\n{}", line_diff(expected, actual)));
    }

    #[test]
    fn one_changed_line_in_the_middle_keeps_two_lines_of_context() {
        let expected: String = (1..=12).map(|i| format!("line {i}\n")).collect();
        let actual = expected
            .replace("line 6\n", "line six\n")
            .replace("line 12\n", "");
        check(
            &expected,
            &actual,
            expect![[r#"
                diff:
                  ...
                   line 4
                   line 5
                  -line 6
                  +line six
                   line 7
                   line 8
                  ...
                   line 10
                   line 11
                  -line 12
            "#]],
        );
    }

    #[test]
    fn added_lines_and_empty_sides() {
        check(
            "",
            "error[E1]: new\n",
            expect![[r#"
                diff:
                  +error[E1]: new
            "#]],
        );
        check(
            "a\nb\n",
            "a\nx\nb\ny\n",
            expect![[r#"
                diff:
                   a
                  +x
                   b
                  +y
            "#]],
        );
    }

    #[test]
    fn invisible_differences_are_named() {
        check(
            "a\r\nb\n",
            "a\r\nb",
            expect![[r#"
                diff:
                  (only line endings differ) line 2:
                  -"b\n"
                  +"b"
            "#]],
        );
    }
}
