//! The text edits that turn a document into its formatted text: one edit a
//! changed line, or a changed region where lines were added or taken away
//! (`linediff`), so that the editor keeps the cursor, marks and folds of the
//! lines that did not change; for range formatting, only the edits that
//! touch the range's lines.

use crate::protocol::Error;

/// The reply to a formatting request on `text`, given what the language's
/// formatter made of it: the edits (those touching `range`, if given), none
/// for a text that does not read (its diagnostics say why), an error for a
/// layout the formatter refused as unsafe.
pub fn reply(
    text: &str,
    formatted: Result<String, diag::FormatError>,
    range: Option<lsp_types::Range>,
) -> Result<Option<Vec<lsp_types::TextEdit>>, Error> {
    match formatted {
        Ok(new) => Ok(Some(edits(text, &new, range))),
        Err(diag::FormatError::Syntax(_)) => Ok(None),
        Err(diag::FormatError::Unsafe(why)) => Err(Error::Refused(format!(
            "the file is left as it is: {why} (a formatter bug; please report it)"
        ))),
    }
}

/// The edits from `old` to `new` (its formatted text), all of them or
/// those that touch the lines of `range`.
pub fn edits(old: &str, new: &str, range: Option<lsp_types::Range>) -> Vec<lsp_types::TextEdit> {
    // Lines with their ends, so that a changed line end is a change too.
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let wanted = |lines: &std::ops::Range<usize>| {
        range.is_none_or(|r| {
            let (first, last) = (r.start.line as usize, r.end.line as usize);
            // An empty region (an insertion) touches the line it is inserted before.
            lines.start <= last && first < lines.end.max(lines.start + 1)
        })
    };
    linediff::hunks(&old_lines, &new_lines)
        .into_iter()
        .flat_map(|hunk| {
            // Lines changed one for one are edited one by one, so that a
            // range takes only its own lines of a run of changed lines.
            if hunk.old.len() == hunk.new.len() {
                hunk.old
                    .clone()
                    .zip(hunk.new.clone())
                    .map(|(o, n)| (o..o + 1, n..n + 1))
                    .collect()
            } else {
                vec![(hunk.old, hunk.new)]
            }
        })
        .filter(|(old, _)| wanted(old))
        .map(|(old, new)| lsp_types::TextEdit {
            range: lsp_types::Range {
                start: line_start(old.start),
                end: line_start(old.end),
            },
            new_text: new_lines[new].concat(),
        })
        .collect()
}

fn line_start(line: usize) -> lsp_types::Position {
    lsp_types::Position {
        line: line as u32,
        character: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::apply_change;

    /// `old` with `edits` applied from the last to the first, as a client does.
    fn apply(old: &str, edits: &[lsp_types::TextEdit]) -> String {
        let mut text = old.to_string();
        for edit in edits.iter().rev() {
            let change = lsp_types::TextDocumentContentChangeEvent {
                range: Some(edit.range),
                range_length: None,
                text: edit.new_text.clone(),
            };
            apply_change(&mut text, &change);
        }
        text
    }

    fn range(first: u32, last: u32) -> lsp_types::Range {
        lsp_types::Range {
            start: lsp_types::Position {
                line: first,
                character: 0,
            },
            end: lsp_types::Position {
                line: last,
                character: 3,
            },
        }
    }

    #[test]
    fn whole_document_edits_give_the_formatted_text() {
        let old = "a\nb  \nc\r\nd\ne";
        let new = "a\nb\nc\nd\ne\n";
        let edits = edits(old, new, None);
        assert_eq!(apply(old, &edits), new);
        assert_eq!(edits.len(), 3, "{edits:?}");
    }

    #[test]
    fn range_formatting_changes_only_the_lines_it_touches() {
        let old = "x  \ny\nz  \nw\n";
        let new = "x\ny\nz\nw\n";
        assert_eq!(
            apply(old, &edits(old, new, Some(range(2, 2)))),
            "x  \ny\nz\nw\n"
        );
        assert_eq!(apply(old, &edits(old, new, Some(range(1, 1)))), old);
        assert_eq!(apply(old, &edits(old, new, Some(range(0, 3)))), new);
    }
}
