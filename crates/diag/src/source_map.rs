//! Files known to a run, by opaque `FileId`, with byte-offset to line/column
//! lookup. Holds text handed in by the caller; never reads the disk.

use std::sync::{Arc, OnceLock};

/// An opaque handle to a file in a `SourceMap`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: u32, end: u32) -> Self {
        debug_assert!(start <= end);
        Span { file, start, end }
    }

    /// The smallest span covering both (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn len(self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

/// A 1-based line and 1-based column counted in characters, as rustc prints them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

struct SourceFile {
    name: String,
    /// Shared with whoever read the file: adding a file copies nothing.
    text: Arc<str>,
    /// Byte offset where each line starts; `line_starts[0] == 0`. Built on
    /// first use: a clean check of a large workspace never needs it, and
    /// building it for every file cost a tenth of the checker's time.
    line_starts: OnceLock<Vec<u32>>,
}

impl SourceFile {
    fn new(name: String, text: Arc<str>) -> Self {
        SourceFile {
            name,
            text,
            line_starts: OnceLock::new(),
        }
    }

    fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            let mut starts = Vec::with_capacity(self.text.len() / 32 + 1);
            starts.push(0);
            starts.extend(
                self.text
                    .bytes()
                    .enumerate()
                    .filter(|&(_, b)| b == b'\n')
                    .map(|(i, _)| i as u32 + 1),
            );
            starts
        })
    }
}

/// All source files of one run, in the order they were added.
#[derive(Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file under the name diagnostics will print (`bad-shape.sx`).
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
        self.files.push(SourceFile::new(name.into(), text.into()));
        FileId(self.files.len() as u32 - 1)
    }

    pub fn name(&self, file: FileId) -> &str {
        &self.files[file.0 as usize].name
    }

    pub fn text(&self, file: FileId) -> &str {
        &self.files[file.0 as usize].text
    }

    pub fn files(&self) -> impl Iterator<Item = FileId> + '_ {
        (0..self.files.len() as u32).map(FileId)
    }

    /// Replaces a file's text in place (the language server's edits).
    pub fn set_text(&mut self, file: FileId, text: impl Into<Arc<str>>) {
        let slot = &mut self.files[file.0 as usize];
        *slot = SourceFile::new(std::mem::take(&mut slot.name), text.into());
    }

    /// Number of lines; a trailing newline does not start a new line of text
    /// for rendering purposes, but an offset at end of file maps to it.
    pub fn line_count(&self, file: FileId) -> usize {
        self.files[file.0 as usize].line_starts().len()
    }

    /// 0-based line index holding byte `offset` (clamped to the file).
    pub fn line_index(&self, file: FileId, offset: u32) -> usize {
        let f = &self.files[file.0 as usize];
        let offset = offset.min(f.text.len() as u32);
        match f.line_starts().binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// The text of 0-based line `index`, without its `\n` or `\r\n`.
    pub fn line_text(&self, file: FileId, index: usize) -> &str {
        let f = &self.files[file.0 as usize];
        let line_starts = f.line_starts();
        let start = line_starts[index] as usize;
        let end = line_starts
            .get(index + 1)
            .map_or(f.text.len(), |&e| e as usize);
        let line = &f.text[start..end];
        let line = line.strip_suffix('\n').unwrap_or(line);
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// Byte offset where 0-based line `index` starts.
    pub fn line_start(&self, file: FileId, index: usize) -> u32 {
        self.files[file.0 as usize].line_starts()[index]
    }

    /// 1-based line and character column of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> LineCol {
        let index = self.line_index(file, offset);
        let f = &self.files[file.0 as usize];
        let start = f.line_starts()[index] as usize;
        let offset = (offset as usize).min(f.text.len());
        let col = f
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        LineCol {
            line: index as u32 + 1,
            col: col as u32 + 1,
        }
    }

    /// The offset renderers point at for `offset`: clamped to the file, moved
    /// back onto a char boundary, and, at the very end of a file that ends in
    /// a newline, moved to the end of the last line of text. A caret "after
    /// the last character" then lands on a line the user can see (and annotate),
    /// not on the empty line after the final newline.
    pub fn display_offset(&self, file: FileId, offset: u32) -> u32 {
        let text = self.text(file);
        let mut offset = (offset as usize).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset == text.len() && text.ends_with('\n') {
            let without_newline = &text[..text.len() - 1];
            offset = without_newline
                .strip_suffix('\r')
                .unwrap_or(without_newline)
                .len();
        }
        offset as u32
    }

    /// `line_col` of `display_offset`: the position diagnostics print.
    pub fn display_line_col(&self, file: FileId, offset: u32) -> LineCol {
        self.line_col(file, self.display_offset(file, offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_and_handles_crlf() {
        let mut map = SourceMap::new();
        let f = map.add("a.ss", "ab\r\nçd\n");
        assert_eq!(map.line_col(f, 0), LineCol { line: 1, col: 1 });
        assert_eq!(map.line_col(f, 4), LineCol { line: 2, col: 1 });
        assert_eq!(map.line_col(f, 6), LineCol { line: 2, col: 2 });
        assert_eq!(map.line_text(f, 0), "ab");
        assert_eq!(map.line_text(f, 1), "çd");
        assert_eq!(map.line_col(f, 8), LineCol { line: 3, col: 1 });
    }

    #[test]
    fn display_offset_keeps_end_of_file_on_a_visible_line() {
        let mut map = SourceMap::new();
        let crlf = map.add("a.ss", "ab\r\nçd\r\n");
        let bare = map.add("b.ss", "ab\nçd");
        let empty = map.add("c.ss", "");
        assert_eq!(map.display_line_col(crlf, 10), LineCol { line: 2, col: 3 });
        assert_eq!(map.display_line_col(crlf, 99), LineCol { line: 2, col: 3 });
        assert_eq!(map.display_line_col(bare, 6), LineCol { line: 2, col: 3 });
        // Inside `ç` (bytes 3..5 of "ab\nçd"): back to its first byte.
        assert_eq!(map.display_offset(bare, 4), 3);
        assert_eq!(map.display_line_col(empty, 0), LineCol { line: 1, col: 1 });
    }
}
