//! Diagnostic codes: the one table type both languages declare their codes
//! in (`codes!`), looking a code up, the text `explain` prints, the generated
//! error page, and the "Wrong"/"Fixed" examples of an explanation that tests
//! run. Plain data and text; no I/O.

use std::fmt;

/// One diagnostic code of a language's table: its stable id (`E0402`,
/// `E-DIM-001`), a one-line title, and the Markdown explanation that
/// `explain` prints. Declared only through `codes!`, so every code a program
/// emits is a typed constant with an entry in its table.
#[derive(Clone, Copy, Debug)]
pub struct Code {
    pub id: &'static str,
    pub title: &'static str,
    /// Markdown: what the mistake is, usually a `Wrong:` example and a
    /// `Fixed:` one, each in a fenced code block.
    pub explain: &'static str,
}

impl PartialEq for Code {
    fn eq(&self, other: &Code) -> bool {
        self.id == other.id
    }
}

impl Eq for Code {}

impl std::hash::Hash for Code {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl PartialOrd for Code {
    fn partial_cmp(&self, other: &Code) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Code {
    fn cmp(&self, other: &Code) -> std::cmp::Ordering {
        self.id.cmp(other.id)
    }
}

/// Tests compare a diagnostic's code with the id as written in goldens.
impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.id == *other
    }
}

impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.id == other
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

impl Code {
    /// What `explain CODE` prints: `ID: title`, a blank line, the explanation.
    pub fn explanation(&self) -> String {
        format!("{}: {}\n\n{}", self.id, self.title, self.explain.trim_end())
    }

    /// The examples of the explanation: each fenced block that follows a
    /// paragraph starting with `Wrong` or `Fixed`, in order.
    pub fn examples(&self) -> Vec<Example> {
        examples(self.explain)
    }
}

/// Declares a language's codes: one typed constant per code and a table of
/// them all, in the order written. The explanation is any `&'static str`;
/// the languages' tables include a Markdown file a code
/// (`include_str!("codes/E0402.md")`), so each table is one line a code.
///
/// ```
/// diag::codes! {
///     /// Every code of this example.
///     pub static ALL;
///     E0001 = "E0001", "first mistake", "What it is.\n";
///     E_X_002 = "E-X-002", "second mistake", "What it is.\n";
/// }
/// assert_eq!(ALL.len(), 2);
/// assert_eq!(E_X_002.id, "E-X-002");
/// ```
#[macro_export]
macro_rules! codes {
    (
        $(#[$table_meta:meta])*
        $vis:vis static $table:ident;
        $( $(#[$meta:meta])* $name:ident = $id:literal, $title:literal, $explain:expr; )*
    ) => {
        $(
            #[doc = $title]
            $(#[$meta])*
            pub const $name: $crate::Code = $crate::Code {
                id: $id,
                title: $title,
                explain: $explain,
            };
        )*
        $(#[$table_meta])*
        $vis static $table: &[$crate::Code] = &[$($name),*];
    };
}

/// Panics unless `table`'s ids increase, so that none is there twice: each
/// language's table test.
pub fn assert_sorted(table: &[Code]) {
    for pair in table.windows(2) {
        assert!(
            pair[0].id < pair[1].id,
            "{} before {}",
            pair[0].id,
            pair[1].id
        );
    }
}

/// The code with this id in `table`, ignoring case (`e0402` finds `E0402`).
pub fn lookup(table: &[Code], id: &str) -> Option<Code> {
    table
        .iter()
        .find(|code| code.id.eq_ignore_ascii_case(id))
        .copied()
}

/// Whether an example shows the mistake or its fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExampleKind {
    /// Must produce the code it explains.
    Wrong,
    /// Must produce no diagnostic at all.
    Fixed,
}

/// One fenced example of an explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    pub kind: ExampleKind,
    /// The block's text, without its fences.
    pub text: String,
}

/// The fenced blocks of `markdown` that follow a paragraph starting with
/// `Wrong` or `Fixed` (the paragraph's kind holds, across its wrapped lines,
/// until the next paragraph of text). Blocks after other paragraphs are
/// illustrations, not tests.
pub fn examples(markdown: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut kind = None;
    let mut block: Option<String> = None;
    let mut in_paragraph = false;
    for line in markdown.lines() {
        let is_fence = line.trim_start().starts_with("```");
        if let Some(text) = &mut block {
            if is_fence {
                if let Some(kind) = kind {
                    out.push(Example {
                        kind,
                        text: std::mem::take(text),
                    });
                }
                block = None;
            } else {
                text.push_str(line);
                text.push('\n');
            }
        } else if is_fence {
            block = Some(String::new());
            in_paragraph = false;
        } else if line.trim().is_empty() {
            in_paragraph = false;
        } else {
            if !in_paragraph {
                kind = paragraph_kind(line.trim_start());
            }
            in_paragraph = true;
        }
    }
    out
}

/// The kind of example a paragraph starting with `line` introduces.
fn paragraph_kind(line: &str) -> Option<ExampleKind> {
    if line.starts_with("Wrong") {
        Some(ExampleKind::Wrong)
    } else if line.starts_with("Fixed") {
        Some(ExampleKind::Fixed)
    } else {
        None
    }
}

/// What running every example of a table found: how many of each kind,
/// and a description of each example that did not do what it says.
#[derive(Clone, Debug, Default)]
pub struct ExampleRun {
    pub wrong: usize,
    pub fixed: usize,
    pub failures: Vec<String>,
}

impl ExampleRun {
    /// Fails the test calling it (a panic) when fewer than `at_least`
    /// examples of either kind ran (the table's examples were not found)
    /// or any example did not do what it says.
    pub fn assert_held(&self, at_least: usize) {
        assert!(
            self.wrong > at_least && self.fixed > at_least,
            "found only {} wrong and {} fixed examples",
            self.wrong,
            self.fixed
        );
        assert!(self.failures.is_empty(), "{}", self.failures.join("\n"));
    }
}

/// Runs every example of `table` through `codes_reported` (the ids of the
/// codes a program reports, however the language runs it): a `Wrong` example
/// must report its code, a `Fixed` one nothing. Both languages' tests of
/// their explanations are this.
pub fn run_examples(
    table: &[Code],
    mut codes_reported: impl FnMut(&Example) -> Vec<String>,
) -> ExampleRun {
    let mut run = ExampleRun::default();
    for code in table {
        for (index, example) in code.examples().iter().enumerate() {
            let codes = codes_reported(example);
            let ok = match example.kind {
                ExampleKind::Wrong => {
                    run.wrong += 1;
                    codes.iter().any(|c| c == code.id)
                }
                ExampleKind::Fixed => {
                    run.fixed += 1;
                    codes.is_empty()
                }
            };
            if !ok {
                run.failures.push(format!(
                    "{} example {} ({:?}) reports {codes:?}:\n{}",
                    code.id,
                    index + 1,
                    example.kind,
                    example.text
                ));
            }
        }
    }
    run
}

/// A language's error page in Markdown: `header` (title and introduction,
/// ending in a blank line), an index line per code, then each code's title
/// and explanation under an `## ID` heading. Both books' pages are this,
/// written by a test so they never drift from the tables.
pub fn error_page(header: &str, table: &[Code]) -> String {
    let mut out = String::from(header);
    for code in table {
        out.push_str(&format!(
            "- [{}](#{}): {}\n",
            code.id,
            code.id.to_lowercase(),
            code.title
        ));
    }
    for code in table {
        out.push_str(&format!(
            "\n## {}\n\n**{}**\n\n{}\n",
            code.id,
            code.title,
            code.explain.trim_end()
        ));
    }
    out
}

/// A code outside any table, for the renderers' own tests.
#[cfg(test)]
pub(crate) fn test_code(id: &'static str) -> Code {
    Code {
        id,
        title: "",
        explain: "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::codes! {
        static TABLE;
        E0001 = "E0001", "first", "Wrong:\n\n```\nbad\n```\n\nFixed: do this\n\n```\ngood\n```\n\nSee also:\n\n```\nnot tested\n```\n";
        E_X_002 = "E-X-002", "second", "No examples.\n";
    }

    #[test]
    fn lookup_ignores_case() {
        assert_eq!(lookup(TABLE, "e-x-002"), Some(E_X_002));
        assert_eq!(lookup(TABLE, "E9999"), None);
    }

    #[test]
    fn examples_are_the_blocks_after_wrong_and_fixed() {
        let found = E0001.examples();
        assert_eq!(
            found,
            vec![
                Example {
                    kind: ExampleKind::Wrong,
                    text: "bad\n".into()
                },
                Example {
                    kind: ExampleKind::Fixed,
                    text: "good\n".into()
                },
            ]
        );
        assert!(E_X_002.examples().is_empty());
    }

    #[test]
    fn examples_that_do_not_do_what_they_say_are_described() {
        // A runner for which every program reports E0001: the fixed example fails.
        let run = run_examples(TABLE, |_| vec!["E0001".to_string()]);
        assert_eq!((run.wrong, run.fixed), (1, 1));
        assert_eq!(run.failures.len(), 1);
        assert!(run.failures[0].starts_with("E0001 example 2 (Fixed) reports [\"E0001\"]"));
        let run = run_examples(TABLE, |example| match example.kind {
            ExampleKind::Wrong => vec!["E0001".to_string()],
            ExampleKind::Fixed => Vec::new(),
        });
        assert!(run.failures.is_empty());
    }

    #[test]
    fn a_wrapped_paragraph_keeps_its_kind() {
        let text = "Wrong, where the\nfile is long:\n\n```\nbad\n```\n\nNote\n\n```\nshown\n```\n";
        let found = examples(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, ExampleKind::Wrong);
    }

    #[test]
    fn explanation_starts_with_id_and_title() {
        assert_eq!(E_X_002.explanation(), "E-X-002: second\n\nNo examples.");
    }

    #[test]
    fn error_page_indexes_then_explains() {
        let page = error_page("# Errors\n\n", TABLE);
        expect_test::expect![[r#"
            # Errors

            - [E0001](#e0001): first
            - [E-X-002](#e-x-002): second

            ## E0001

            **first**

            Wrong:

            ```
            bad
            ```

            Fixed: do this

            ```
            good
            ```

            See also:

            ```
            not tested
            ```

            ## E-X-002

            **second**

            No examples.
        "#]]
        .assert_eq(&page);
    }
}
