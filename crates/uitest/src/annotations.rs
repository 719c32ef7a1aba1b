//! What a test file says about itself: `ui-args:`/`ui-exit:` directives and
//! `~ CODE` annotations in its comments, and what the JSON run reported, as
//! multisets of (line, code) to compare. Pure text handling; runs nothing.

use serde_json::Value;
use std::collections::BTreeMap;

/// Where a diagnostic is expected: on a line of the test file, or anywhere
/// (`~?`: no span, or a span in another file).
pub(crate) type Place = Option<u32>;

/// Directives and annotations of one test file.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Expectations {
    /// `ui-args:` replaces the suite's default arguments.
    pub(crate) args: Option<Vec<String>>,
    /// `ui-exit:` sets the expected exit code.
    pub(crate) exit: Option<i32>,
    /// (place, code) pairs; a code may be expected more than once.
    pub(crate) diagnostics: Vec<(Place, String)>,
    /// Malformed directives or annotations, each with its line.
    pub(crate) errors: Vec<String>,
}

/// A code such as `E0402`, `H2201` or `E-DIM-001`: capitals, digits and
/// dashes with at least one digit. Words after the codes are free text.
fn is_code(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_uppercase())
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-')
        && word.chars().any(|c| c.is_ascii_digit())
}

/// The text after the first comment marker on `line` that starts with one of
/// `starts`, comment markers and spaces in between skipped (`;; ~ E1`).
fn comment_body<'a>(line: &'a str, comment: &str, starts: &[&str]) -> Option<&'a str> {
    line.match_indices(comment).find_map(|(at, _)| {
        let body = line[at..].trim_start_matches(comment).trim_start();
        starts.iter().any(|s| body.starts_with(s)).then_some(body)
    })
}

/// Reads the directives and annotations of a test file whose comments start with `comment`.
pub(crate) fn parse(text: &str, comment: &str) -> Expectations {
    let mut found = Expectations::default();
    for (index, line) in text.lines().enumerate() {
        let number = index as u32 + 1;
        let Some(body) = comment_body(line, comment, &["~", "ui-args:", "ui-exit:"]) else {
            continue;
        };
        if let Some(args) = body.strip_prefix("ui-args:") {
            if found.args.is_some() {
                found
                    .errors
                    .push(format!("line {number}: a second `ui-args:` directive"));
            }
            found.args = Some(args.split_whitespace().map(str::to_string).collect());
        } else if let Some(code) = body.strip_prefix("ui-exit:") {
            match code.trim().parse() {
                Ok(_) if found.exit.is_some() => found
                    .errors
                    .push(format!("line {number}: a second `ui-exit:` directive")),
                Ok(code) => found.exit = Some(code),
                Err(_) => found.errors.push(format!(
                    "line {number}: `ui-exit:` needs a number, found `{}`",
                    code.trim()
                )),
            }
        } else if let Some(annotation) = body.strip_prefix('~') {
            annotate(&mut found, number, annotation);
        }
    }
    found
}

/// One `~ CODE...`, `~^^ CODE...` or `~? CODE...` annotation, minus its `~`.
fn annotate(found: &mut Expectations, number: u32, annotation: &str) {
    let (place, codes) = if let Some(rest) = annotation.strip_prefix('?') {
        (None, rest)
    } else {
        let rest = annotation.trim_start_matches('^');
        let up = (annotation.len() - rest.len()) as u32;
        if up >= number {
            found.errors.push(format!(
                "line {number}: `~{}` points above the first line",
                "^".repeat(up as usize)
            ));
            return;
        }
        (Some(number - up), rest)
    };
    if !codes.starts_with(char::is_whitespace) {
        found.errors.push(format!(
            "line {number}: an annotation needs a space before its codes: `~{annotation}`"
        ));
        return;
    }
    let codes: Vec<&str> = codes
        .split_whitespace()
        .take_while(|w| is_code(w))
        .collect();
    if codes.is_empty() {
        found.errors.push(format!("line {number}: annotation `~{annotation}` names no code (codes look like E0402 or E-DIM-001)"));
    }
    found
        .diagnostics
        .extend(codes.into_iter().map(|code| (place, code.to_string())));
}

/// One diagnostic from the JSON run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reported {
    pub(crate) place: Place,
    pub(crate) code: String,
    pub(crate) severity: String,
    pub(crate) message: String,
}

/// The JSON objects among the lines of `stderr`, as `diag::render::render_json`
/// prints them; other lines are ignored. A primary span in a file other than
/// `file_name` counts as "anywhere".
pub(crate) fn reported(stderr: &str, file_name: &str) -> Vec<Reported> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    stderr
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line.trim()).ok())
        .filter(Value::is_object)
        .filter_map(|v| {
            let code = text(&v, "code")?;
            let primary = v.get("primary").filter(|p| p.is_object());
            let in_this_file = primary
                .and_then(|p| text(p, "file"))
                .is_none_or(|f| f == file_name);
            let line = primary
                .and_then(|p| p.get("line_start"))
                .and_then(Value::as_u64);
            Some(Reported {
                place: line.filter(|_| in_this_file).map(|l| l as u32),
                code,
                severity: text(&v, "severity").unwrap_or_default(),
                message: text(&v, "message").unwrap_or_default(),
            })
        })
        .collect()
}

fn describe(place: Place, code: &str) -> String {
    match place {
        Some(line) => format!("line {line}: {code}"),
        None => format!("anywhere (`~?`): {code}"),
    }
}

/// Compares annotated and reported diagnostics as multisets; one line per difference.
pub(crate) fn compare(expected: &[(Place, String)], reported: &[Reported]) -> Vec<String> {
    let mut balance: BTreeMap<(Place, &str), i64> = BTreeMap::new();
    for (place, code) in expected {
        *balance.entry((*place, code)).or_default() += 1;
    }
    for r in reported {
        *balance.entry((r.place, &r.code)).or_default() -= 1;
    }
    let mut problems = Vec::new();
    for (&(place, code), &count) in &balance {
        for _ in 0..count.max(0) {
            problems.push(format!(
                "annotated but not reported: {}",
                describe(place, code)
            ));
        }
        if count < 0 {
            let mut messages = reported
                .iter()
                .filter(|r| r.place == place && r.code == code)
                .map(|r| &r.message);
            for _ in 0..-count {
                let message = messages.next().map_or(String::new(), |m| format!(" ({m})"));
                problems.push(format!(
                    "reported but not annotated: {}{message}",
                    describe(place, code)
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(text: &str, comment: &str, expect: Expect) {
        expect.assert_debug_eq(&parse(text, comment));
    }

    #[test]
    fn annotations_on_the_line_above_and_anywhere() {
        check(
            "dim D = 5 / 2  # ~ E0402 not whole\n# ~^ E0305 E0305\nx\n#~^^^ H2201\n# ~? E0201\n",
            "#",
            expect![[r#"
                Expectations {
                    args: None,
                    exit: None,
                    diagnostics: [
                        (
                            Some(
                                1,
                            ),
                            "E0402",
                        ),
                        (
                            Some(
                                1,
                            ),
                            "E0305",
                        ),
                        (
                            Some(
                                1,
                            ),
                            "E0305",
                        ),
                        (
                            Some(
                                1,
                            ),
                            "H2201",
                        ),
                        (
                            None,
                            "E0201",
                        ),
                    ],
                    errors: [],
                }
            "#]],
        );
    }

    #[test]
    fn directives_and_doubled_comment_markers() {
        check(
            ";; ui-args: run --steps 2\n; ui-exit: 3\n(matmul x w) ;; ~ E-DIM-001\n",
            ";",
            expect![[r#"
                Expectations {
                    args: Some(
                        [
                            "run",
                            "--steps",
                            "2",
                        ],
                    ),
                    exit: Some(
                        3,
                    ),
                    diagnostics: [
                        (
                            Some(
                                3,
                            ),
                            "E-DIM-001",
                        ),
                    ],
                    errors: [],
                }
            "#]],
        );
    }

    #[test]
    fn malformed_annotations_are_errors() {
        check(
            "# ~^ E0101\n# ~ e0402\n# ~E0402\n# ui-exit: one\n# ui-args: a\n# ui-args: b\n# plain comment ~ E1\n",
            "#",
            expect![[r#"
                Expectations {
                    args: Some(
                        [
                            "b",
                        ],
                    ),
                    exit: None,
                    diagnostics: [],
                    errors: [
                        "line 1: `~^` points above the first line",
                        "line 2: annotation `~ e0402` names no code (codes look like E0402 or E-DIM-001)",
                        "line 3: an annotation needs a space before its codes: `~E0402`",
                        "line 4: `ui-exit:` needs a number, found `one`",
                        "line 6: a second `ui-args:` directive",
                    ],
                }
            "#]],
        );
    }

    #[test]
    fn reported_reads_json_lines_only() {
        let stderr = concat!(
            "warning: not json\n",
            r#"{"code":"E0402","severity":"error","message":"not whole","file":"a.ss","primary":{"file":"a.ss","line_start":3}}"#,
            "\n",
            r#"{"code":"E0201","severity":"error","message":"no file","file":null,"primary":null}"#,
            "\n",
            r#"{"code":"E0301","severity":"hint","message":"elsewhere","primary":{"file":"lib/b.ss","line_start":9}}"#,
            "\n[1, 2]\n{\"no\": \"code\"}\n",
        );
        expect![[r#"
            [
                Reported {
                    place: Some(
                        3,
                    ),
                    code: "E0402",
                    severity: "error",
                    message: "not whole",
                },
                Reported {
                    place: None,
                    code: "E0201",
                    severity: "error",
                    message: "no file",
                },
                Reported {
                    place: None,
                    code: "E0301",
                    severity: "hint",
                    message: "elsewhere",
                },
            ]
        "#]]
        .assert_debug_eq(&reported(stderr, "a.ss"));
    }

    #[test]
    fn comparison_is_by_multiset() {
        let expected = vec![
            (Some(2), "E1".to_string()),
            (Some(2), "E1".to_string()),
            (None, "E3".to_string()),
        ];
        let reported = |place, code: &str| Reported {
            place,
            code: code.to_string(),
            severity: "error".to_string(),
            message: format!("{code} message"),
        };
        let got = vec![
            reported(Some(2), "E1"),
            reported(Some(4), "E2"),
            reported(None, "E3"),
        ];
        expect![[r#"
            [
                "annotated but not reported: line 2: E1",
                "reported but not annotated: line 4: E2 (E2 message)",
            ]
        "#]]
        .assert_debug_eq(&compare(&expected, &got));
        assert!(compare(&expected[2..], &got[2..]).is_empty());
    }
}
