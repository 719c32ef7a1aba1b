//! The ShapeScript server's URIs: `file://` ones (`lsp_base::uri`) and the
//! read-only `shapescript-library:` ones of the library's files. Knows
//! nothing of LSP messages; never touches the disk.

pub use lsp_base::uri::{file_uri, from_path, to_path};

/// The scheme VS Code shows library files under, read-only
/// (`shapescript-library:/prelude.ss`; `docs/shapescript/editor.md`).
pub const LIBRARY_SCHEME: &str = "shapescript-library";

/// The file name a `shapescript-library:` URI names (`prelude.ss`); `None`
/// for other schemes.
pub fn library_name(uri: &str) -> Option<&str> {
    let rest = uri.strip_prefix(LIBRARY_SCHEME)?.strip_prefix(':')?;
    let name = rest.rsplit('/').next()?;
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_uris_name_their_file() {
        assert_eq!(library_name("shapescript-library:/nn.ss"), Some("nn.ss"));
        assert_eq!(
            library_name("shapescript-library:///prelude.ss"),
            Some("prelude.ss")
        );
        assert_eq!(library_name("file:///lib/nn.ss"), None);
        assert_eq!(library_name("shapescript-libraryx:/nn.ss"), None);
    }
}
