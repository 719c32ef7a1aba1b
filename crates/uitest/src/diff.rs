//! A small line diff for golden mismatches: `-` expected, `+` actual, a few
//! lines of context, long equal stretches folded. Pure; for people to read.

/// Lines of context kept around each change.
const CONTEXT: usize = 2;
/// Above this many line pairs the LCS table is too big; show both texts whole.
const MAX_CELLS: usize = 4_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// The edits turning `old` into `new`, by longest common subsequence.
fn edits<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<Edit<'a>> {
    let (n, m) = (old.len(), new.len());
    // common[i][j]: length of the LCS of old[i..] and new[j..].
    let mut common = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            common[i][j] = if old[i] == new[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::with_capacity(n + m));
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            out.push(Edit::Same(old[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < n && (j == m || common[i + 1][j] >= common[i][j + 1]) {
            out.push(Edit::Removed(old[i]));
            i += 1;
        } else {
            out.push(Edit::Added(new[j]));
            j += 1;
        }
    }
    out
}

/// A readable diff of `expected` against `actual`, each line indented by two spaces.
pub(crate) fn line_diff(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    let mut out = String::new();
    if old.len().saturating_mul(new.len()) > MAX_CELLS {
        for line in &old {
            out.push_str(&format!("  -{line}\n"));
        }
        for line in &new {
            out.push_str(&format!("  +{line}\n"));
        }
        return out;
    }
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
