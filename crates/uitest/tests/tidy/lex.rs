//! Just enough lexing of Rust for the tidy rules: comments and literals
//! blanked out, `#[cfg(test)]` items found, where a module's children live,
//! and offsets turned into line numbers.

use std::path::{Path, PathBuf};

pub const CFG_TEST: &str = concat!("#[cfg", "(test)]");

/// The text with comments and the insides of string and char literals
/// blanked out (newlines kept), so needles are found in code only and byte
/// offsets still match the original.
pub fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(bytes.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, i);
            while j < bytes.len() {
                if bytes[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if bytes[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if bytes[i] == b'r'
            && (i == 0 || !is_ident_byte(bytes[i - 1]) || raw_prefix(bytes, i))
        {
            let hashes = rest[1..].iter().take_while(|&&b| b == b'#').count();
            if rest.get(1 + hashes) == Some(&b'"') {
                let mut closing = vec![b'"'];
                closing.extend(std::iter::repeat_n(b'#', hashes));
                let body = i + 2 + hashes;
                let end = find(bytes, body, &closing).map_or(bytes.len(), |p| p + closing.len());
                blank(&mut out, body, end.saturating_sub(closing.len()));
                i = end;
            } else {
                i += 1;
            }
        } else if bytes[i] == b'"' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j);
            i = j + 1;
        } else if bytes[i] == b'\'' {
            i = char_literal_end(bytes, i).map_or(i + 1, |end| {
                blank(&mut out, i + 1, end - 1);
                end
            });
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("only whole chars are blanked")
}

/// `br"..."` and `cr"..."`: the `r` follows a one-letter prefix.
fn raw_prefix(bytes: &[u8], i: usize) -> bool {
    matches!(bytes[i - 1], b'b' | b'c') && (i < 2 || !is_ident_byte(bytes[i - 2]))
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// The end (past the closing quote) of a char literal starting at `i`, or
/// `None` for a lifetime or label such as `'a`.
fn char_literal_end(bytes: &[u8], i: usize) -> Option<usize> {
    let next = *bytes.get(i + 1)?;
    if next == b'\\' {
        let mut j = i + 3;
        while j < bytes.len() && bytes[j] != b'\'' && bytes[j] != b'\n' {
            j += 1;
        }
        return (bytes.get(j) == Some(&b'\'')).then_some(j + 1);
    }
    let width = match next {
        b if b < 0x80 => 1,
        b if b >= 0xF0 => 4,
        b if b >= 0xE0 => 3,
        _ => 2,
    };
    (bytes.get(i + 1 + width) == Some(&b'\'')).then_some(i + 2 + width)
}

/// Byte ranges of items under `#[cfg(test)]` in code-only text, and the names
/// of test modules declared as `mod name;` (their files are test code).
pub fn test_items(code: &str) -> (Vec<(usize, usize)>, Vec<String>) {
    let bytes = code.as_bytes();
    let (mut ranges, mut modules) = (Vec::new(), Vec::new());
    for (start, _) in code.match_indices(CFG_TEST) {
        let mut depth = 0usize;
        let mut j = start + CFG_TEST.len();
        while j < bytes.len() {
            match bytes[j] {
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                b';' if depth == 0 => {
                    let item = code[start + CFG_TEST.len()..j].trim();
                    if let Some(name) = item
                        .strip_prefix("mod ")
                        .or_else(|| item.strip_prefix("pub mod "))
                    {
                        modules.push(name.trim().to_string());
                    }
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        ranges.push((start, j));
    }
    (ranges, modules)
}

/// Where a module's child modules live: `a/b.rs` → `a/b/`, `a/mod.rs` → `a/`.
pub fn child_module_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new(""));
    match file.file_stem().and_then(|s| s.to_str()) {
        Some("lib" | "main" | "mod") => parent.to_path_buf(),
        Some(stem) => parent.join(stem),
        None => parent.to_path_buf(),
    }
}

pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// `code` (code-only text) with every `#[cfg(test)]` item blanked as
/// [`code_only`] blanks comments, so offsets and lines still match.
pub fn without_test_code(code: &str) -> String {
    let mut out = code.as_bytes().to_vec();
    for (start, end) in test_items(code).0 {
        for b in &mut out[start..(end + 1).min(code.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    String::from_utf8(out).expect("code-only text is ASCII where it is blanked")
}

/// Whether `b` may be part of an identifier.
pub fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Offsets of `word` in `code` where it stands alone: not inside a longer
/// identifier and not after `::` (so the second `super` of `super::super`
/// is not a path's start).
pub fn word_starts<'a>(code: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let bytes = code.as_bytes();
    code.match_indices(word).map(|(i, _)| i).filter(move |&i| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + word.len()).copied();
        !before.is_some_and(|b| is_ident_byte(b) || b == b':') && !after.is_some_and(is_ident_byte)
    })
}
