//! Byte offsets to LSP positions (0-based line, UTF-16 column) and back, for
//! any text. Clamps out-of-range positions instead of failing, since clients
//! send them after races; never panics on a position inside a character.

/// Where each line of one text starts.
pub struct LineIndex<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> LineIndex<'t> {
    pub fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts }
    }

    /// The 0-based line and UTF-16 column of byte `offset` (clamped).
    pub fn position(&self, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let col: usize = self.text[self.starts[line]..offset]
            .chars()
            .map(char::len_utf16)
            .sum();
        (line as u32, col as u32)
    }

    /// The LSP range of bytes `start` to `end`.
    pub fn range(&self, start: u32, end: u32) -> lsp_types::Range {
        let position = |offset: u32| {
            let (line, character) = self.position(offset as usize);
            lsp_types::Position { line, character }
        };
        lsp_types::Range {
            start: position(start),
            end: position(end),
        }
    }

    /// The byte offset of a 0-based line and UTF-16 column; past the end of
    /// a line is its end, past the last line is the end of the text.
    pub fn offset(&self, line: u32, col: u32) -> usize {
        let Some(&start) = self.starts.get(line as usize) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(line as usize + 1)
            .map_or(self.text.len(), |&e| e - 1);
        let mut units = 0u32;
        for (i, c) in self.text[start..end].char_indices() {
            if units >= col {
                return start + i;
            }
            units += c.len_utf16() as u32;
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(text: &str, offsets: &[usize], expect: Expect) {
        let index = LineIndex::new(text);
        let out: Vec<String> = offsets
            .iter()
            .map(|&o| {
                let (l, c) = index.position(o);
                format!("{o}->{l}:{c}->{}", index.offset(l, c))
            })
            .collect();
        expect.assert_eq(&out.join(" "));
    }

    #[test]
    fn columns_count_utf16_units() {
        check(
            "ab\n😀x\n",
            &[0, 3, 7, 8, 99],
            expect!["0->0:0->0 3->1:0->3 7->1:2->7 8->1:3->8 99->2:0->9"],
        );
    }

    #[test]
    fn offsets_inside_a_character_move_back() {
        check("é", &[1], expect!["1->0:0->0"]);
    }

    #[test]
    fn positions_past_a_line_clamp_to_its_end() {
        let index = LineIndex::new("ab\ncd");
        assert_eq!(index.offset(0, 40), 2);
        assert_eq!(index.offset(9, 0), 5);
    }
}
