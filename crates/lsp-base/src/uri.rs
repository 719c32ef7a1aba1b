//! `file://` URIs to paths and back, percent-encoding included. Knows nothing
//! of LSP messages; never touches the disk.

use std::path::{Path, PathBuf};

/// The `file://` URI of an absolute path, as editors write it.
pub fn from_path(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut out = String::from("file://");
    // A Windows path `C:/x` becomes `file:///C:/x`.
    if !text.starts_with('/') {
        out.push('/');
    }
    for byte in text.bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~/:".contains(&byte);
        if keep {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The `file://` URI of an absolute path, as an `lsp-types` value.
pub fn file_uri(path: &Path) -> lsp_types::Uri {
    let text = from_path(path);
    text.parse()
        .unwrap_or_else(|e| panic!("`{text}` is not a URI: {e:?}"))
}

/// The path of a `file://` URI; `None` for other schemes or broken escapes.
pub fn to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // Skip an authority (`file://localhost/x`): the path starts at the next `/`.
    let rest = &rest[rest.find('/')?..];
    let bytes = rest.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = rest.get(i + 1..i + 3)?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    let text = String::from_utf8(decoded).ok()?;
    // `/C:/x` on Windows is `C:/x`.
    let is_drive = text.len() >= 3 && text.as_bytes()[2] == b':' && cfg!(windows);
    Some(PathBuf::from(if is_drive { &text[1..] } else { &text }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(path: &str, expect: Expect) {
        let uri = from_path(Path::new(path));
        let back = to_path(&uri).map(|p| p.display().to_string());
        expect.assert_eq(&format!("{uri} -> {}", back.unwrap_or_default()));
    }

    #[test]
    fn plain_paths_round_trip() {
        check(
            "/tmp/a/vision.ss",
            expect!["file:///tmp/a/vision.ss -> /tmp/a/vision.ss"],
        );
    }

    #[test]
    fn spaces_and_unicode_are_escaped() {
        check(
            "/home/é x/a#b.ss",
            expect!["file:///home/%C3%A9%20x/a%23b.ss -> /home/é x/a#b.ss"],
        );
    }

    #[test]
    fn other_schemes_and_broken_escapes_are_no_paths() {
        assert_eq!(to_path("shapescript-library:/nn.ss"), None);
        assert_eq!(to_path("file:///a%2"), None);
        assert_eq!(
            to_path("file://localhost/tmp/x.ss"),
            Some(PathBuf::from("/tmp/x.ss"))
        );
    }
}
