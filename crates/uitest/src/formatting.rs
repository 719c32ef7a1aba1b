//! The promises both formatters make (`docs/shapescript/formatting.md`,
//! `docs/sexpgpu/formatting.md`), checked the same way for each: a text
//! that reads is formatted, never refused as unsafe; formatting twice
//! changes nothing; the tokens and comments stay; a text that does not read
//! is refused with a reason. Test support: panics to fail a test.

use diag::FormatError;

/// One language's formatter and its lexical content (tokens and comments).
pub struct Formatter<'a> {
    pub format: &'a dyn Fn(&str) -> Result<String, FormatError>,
    pub lexical_content: &'a dyn Fn(&str) -> Vec<String>,
}

/// Checks the promises on `text` (`what` names it in failures); whether it
/// was formatted.
pub fn check_promises(formatter: &Formatter, what: &str, text: &str) -> bool {
    match (formatter.format)(text) {
        Ok(out) => {
            let lexical = formatter.lexical_content;
            assert_eq!(lexical(text), lexical(&out), "{what}: tokens changed");
            match (formatter.format)(&out) {
                Ok(again) => assert_eq!(again, out, "{what}: formatting twice changed it"),
                _ => panic!("{what}: the formatted text is refused\n{out}"),
            }
            true
        }
        Err(FormatError::Syntax(diagnostics)) => {
            assert!(!diagnostics.is_empty(), "{what}: refused without a reason");
            false
        }
        Err(FormatError::Unsafe(why)) => panic!("{what}: refused as unsafe: {why}\n{text}"),
    }
}

/// Checks the promises on every file with `extension` under `folders`, and
/// that most of them are formatted (the UI tests of syntax errors are not).
pub fn check_repository(formatter: &Formatter, folders: &[&str], extension: &str) {
    let files = crate::support::workspace_files(folders, extension);
    assert!(files.len() > 50, "only {} files found", files.len());
    let formatted = files
        .iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).expect("a UTF-8 file");
            check_promises(formatter, &path.display().to_string(), &text)
        })
        .count();
    assert!(
        formatted > files.len() * 3 / 4,
        "{formatted} of {} formatted",
        files.len()
    );
}

/// `format(input)`, checked to format to itself again: a formatter's unit
/// tests compare it with the layout they expect.
pub fn formatted_stable<E: std::fmt::Debug>(
    format: impl Fn(&str) -> Result<String, E>,
    input: &str,
) -> String {
    let out = format(input).unwrap_or_else(|e| panic!("{e:?}"));
    let again = format(&out).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(again, out, "formatting twice changed the text");
    out
}

/// Checks that every file with `extension` under `folders` is formatted
/// already (the failure says to run `command` on it).
pub fn check_formatted(formatter: &Formatter, folders: &[&str], extension: &str, command: &str) {
    for path in crate::support::workspace_files(folders, extension) {
        let text = std::fs::read_to_string(&path).expect("a UTF-8 file");
        match (formatter.format)(&text) {
            Ok(out) => assert!(
                out == text,
                "{} is not formatted: run `{command}` on it",
                path.display()
            ),
            _ => panic!("{}: refused", path.display()),
        }
    }
}

/// `text` with every line indented by `width` more columns, so that long
/// lines must be broken.
pub fn pushed_right(text: &str, width: usize) -> String {
    let pad = " ".repeat(width);
    text.lines().map(|l| format!("{pad}{l}\n")).collect()
}

/// Checks the before-and-after examples of a formatting page (relative to
/// the workspace folder): each `<!-- fmt before and after: begin -->` section's first
/// fenced block formats to its second.
pub fn check_book_examples(formatter: &Formatter, page: &str) {
    let path = crate::support::workspace_root().join(page);
    let text = std::fs::read_to_string(&path).expect("the formatting page");
    let mut found = 0;
    for section in text.split("<!-- fmt before and after: begin -->").skip(1) {
        let section = section
            .split("<!-- fmt before and after: end -->")
            .next()
            .unwrap_or("");
        let blocks: Vec<&str> = section
            .split("```")
            .skip(1)
            .step_by(2)
            .map(|b| b.strip_prefix('\n').unwrap_or(b))
            .collect();
        let [before, after, ..] = blocks[..] else {
            panic!("{page}: an example needs a block before and a block after");
        };
        match (formatter.format)(before) {
            Ok(out) => assert_eq!(out, after, "{page}: the example's result"),
            _ => panic!("{page}: the example is refused"),
        }
        found += 1;
    }
    assert!(found > 0, "{page} shows no example");
}

/// The tests both formatters have, for a test file that defines its
/// language's `formatter()`, `check_promises(what, text)`, its `SAMPLES`
/// texts, the `GAPS` white space may be given and `respaced(text, gaps)`:
/// every file with `extension` under the `repository` folders keeps the
/// promises (`check_repository`); the `book` page's examples format as it
/// shows (`check_book_examples`); the files under the `formatted` folders
/// are formatted already (`check_formatted`, which says to run `command`);
/// and, as property tests, the samples keep the promises respaced (up to
/// `gaps_per_text` gaps, each drawn from `0..gap_draws`, where a draw past
/// `GAPS` is one space) and pushed past the line width.
#[macro_export]
macro_rules! formatter_tests {
    (
        extension: $extension:literal,
        repository: $repository:expr,
        book: $book:literal,
        formatted: $formatted:expr,
        command: $command:literal,
        gap_draws: $draws:expr,
        gaps_per_text: $count:expr $(,)?
    ) => {
        #[test]
        fn every_repository_file_keeps_the_promises() {
            $crate::formatting::check_repository(&formatter(), &$repository, $extension);
        }

        #[test]
        fn the_books_example_is_what_fmt_does() {
            $crate::formatting::check_book_examples(&formatter(), $book);
        }

        #[test]
        fn the_sources_the_repository_ships_are_formatted() {
            let folders = $formatted;
            $crate::formatting::check_formatted(&formatter(), &folders, $extension, $command);
        }

        proptest::proptest! {
            #![proptest_config(proptest::prelude::ProptestConfig {
                cases: 512,
                failure_persistence: None,
                ..proptest::prelude::ProptestConfig::default()
            })]

            #[test]
            fn respaced_files_keep_the_promises(
                sample in 0..SAMPLES.len(),
                gaps in proptest::collection::vec(0..$draws, 0..$count),
            ) {
                // Mostly one space, so that many mutants still read.
                let gaps: Vec<usize> =
                    gaps.iter().map(|&g| if g >= GAPS.len() { 1 } else { g }).collect();
                check_promises("a respaced sample", &respaced(SAMPLES[sample], &gaps));
            }

            #[test]
            fn lines_pushed_past_the_width_keep_the_promises(
                sample in 0..SAMPLES.len(),
                width in 0usize..120,
            ) {
                // Every line indented further: long ones must be broken, never garbled.
                let text = $crate::formatting::pushed_right(SAMPLES[sample], width);
                check_promises("an indented sample", &text);
            }
        }
    };
}
