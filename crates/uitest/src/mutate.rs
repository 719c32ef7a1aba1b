//! Edits of a valid text, the fuzz tests' mutations of both languages'
//! programs: delete a range, insert a piece, duplicate a range, swap two
//! characters. Any numbers make an edit (positions are taken modulo the
//! text's length), so a property test may draw them freely. Test support.

/// The six brackets, in every list of pieces the fuzzers of both languages
/// insert or splice (`docs/fuzzing.md`): an unbalanced or mismatched
/// bracket is the commonest way an edit breaks a program.
pub const BRACKETS: &[&str] = &["(", ")", "[", "]", "{", "}"];

/// One edit of a text, by characters.
#[derive(Clone, Debug)]
pub enum Edit {
    Delete {
        at: usize,
        len: usize,
    },
    /// Inserts the piece numbered `piece` (modulo the pieces' count).
    Insert {
        at: usize,
        piece: usize,
    },
    Duplicate {
        at: usize,
        len: usize,
    },
    Swap {
        a: usize,
        b: usize,
    },
}

impl Edit {
    /// `text` with this edit made; an insertion takes one of `pieces`.
    pub fn apply(&self, text: &str, pieces: &[impl AsRef<str>]) -> String {
        let mut chars: Vec<char> = text.chars().collect();
        let len = chars.len();
        match *self {
            Edit::Delete { at, len: n } => {
                let at = at % len.max(1);
                chars.drain(at.min(len)..(at + n).min(len));
            }
            Edit::Insert { at, piece } => {
                let at = at % (len + 1);
                chars.splice(at..at, pieces[piece % pieces.len()].as_ref().chars());
            }
            Edit::Duplicate { at, len: n } => {
                let at = at % (len + 1);
                let copy: Vec<char> = chars[at..(at + n).min(len)].to_vec();
                chars.splice(at..at, copy);
            }
            Edit::Swap { a, b } => {
                if len > 0 {
                    chars.swap(a % len, b % len);
                }
            }
        }
        chars.into_iter().collect()
    }
}

/// `text` with `edits` made in order.
pub fn apply_all(text: &str, edits: &[Edit], pieces: &[impl AsRef<str>]) -> String {
    edits
        .iter()
        .fold(text.to_string(), |text, edit| edit.apply(&text, pieces))
}

#[cfg(test)]
mod tests {
    use super::Edit;

    #[test]
    fn edits_wrap_around_and_stay_inside_the_text() {
        let pieces = &["<>"];
        let cases = [
            (Edit::Delete { at: 4, len: 2 }, "cd"),
            (Edit::Delete { at: 3, len: 9 }, "abc"),
            (Edit::Insert { at: 9, piece: 5 }, "abcd<>"),
            (Edit::Insert { at: 6, piece: 0 }, "a<>bcd"),
            (Edit::Duplicate { at: 2, len: 9 }, "abcdcd"),
            (Edit::Swap { a: 0, b: 7 }, "dbca"),
        ];
        for (edit, expected) in cases {
            assert_eq!(edit.apply("abcd", pieces), expected, "{edit:?}");
        }
        assert_eq!(Edit::Swap { a: 1, b: 2 }.apply("", pieces), "");
        assert_eq!(Edit::Delete { at: 1, len: 2 }.apply("", pieces), "");
    }
}
