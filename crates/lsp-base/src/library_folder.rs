//! A language server's library folder: where it writes its language's
//! library files, read-only, so that go to definition into the library
//! returns a `file://` location any editor opens (`docs/shapescript/editor.md`,
//! `docs/sexpgpu/editor.md`). Choosing the folder and writing it; the one
//! module of this crate that touches the disk.

use std::io;
use std::path::{Path, PathBuf};

/// The operating systems whose cache folders differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Os {
    MacOs,
    Windows,
    Other,
}

impl Os {
    pub fn current() -> Os {
        if cfg!(target_os = "macos") {
            Os::MacOs
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Other
        }
    }
}

/// `<program>/lsp-<version>` in the user's cache folder: `~/Library/Caches`
/// on macOS, `%LOCALAPPDATA%` on Windows, `$XDG_CACHE_HOME` or `~/.cache`
/// elsewhere. `var` reads an environment variable. `None` when no home is known.
pub fn default_dir(program: &str, os: Os, var: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let nonempty = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let cache = match os {
        Os::MacOs => nonempty("HOME")?.join("Library").join("Caches"),
        Os::Windows => nonempty("LOCALAPPDATA")?,
        // The XDG spec ignores a relative $XDG_CACHE_HOME.
        Os::Other => match nonempty("XDG_CACHE_HOME").filter(|p| p.is_absolute()) {
            Some(dir) => dir,
            None => nonempty("HOME")?.join(".cache"),
        },
    };
    Some(
        cache
            .join(program)
            .join(format!("lsp-{}", env!("CARGO_PKG_VERSION"))),
    )
}

/// The folder to use: the client's `libraryDir`, else `program`'s default.
pub fn choose_dir(program: &str, library_dir: Option<&str>) -> Option<PathBuf> {
    match library_dir.filter(|d| !d.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => default_dir(program, Os::current(), &|name| std::env::var(name).ok()),
    }
}

/// Writes the library files into their folder, read-only. A file already
/// there with the same text is left alone; another text is replaced.
pub fn write<'a>(files: impl IntoIterator<Item = (&'a Path, &'a str)>) -> io::Result<()> {
    for (path, text) in files {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        match std::fs::read_to_string(path) {
            Ok(old) if old == text => {}
            Ok(_) | Err(_) if path.exists() => {
                set_readonly(path, false)?;
                std::fs::write(path, text)?;
            }
            _ => std::fs::write(path, text)?,
        }
        set_readonly(path, true)?;
    }
    Ok(())
}

fn set_readonly(path: &Path, readonly: bool) -> io::Result<()> {
    let mut permissions = std::fs::metadata(path)?.permissions();
    if permissions.readonly() != readonly {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = permissions.mode();
            permissions.set_mode(if readonly {
                mode & !0o222
            } else {
                mode | 0o200
            });
        }
        #[cfg(not(unix))]
        permissions.set_readonly(readonly);
        std::fs::set_permissions(path, permissions)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(os: Os, vars: &[(&str, &str)], expect: Expect) {
        let lookup = |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        };
        let dir = default_dir("shapescript", os, &lookup).map(|d| d.display().to_string());
        let version = env!("CARGO_PKG_VERSION");
        expect.assert_eq(&dir.unwrap_or_else(|| "none".into()).replace(version, "V"));
    }

    #[test]
    fn linux_uses_xdg_cache_home_then_dot_cache() {
        check(
            Os::Other,
            &[("XDG_CACHE_HOME", "/x/cache"), ("HOME", "/home/u")],
            expect!["/x/cache/shapescript/lsp-V"],
        );
        check(
            Os::Other,
            &[("HOME", "/home/u")],
            expect!["/home/u/.cache/shapescript/lsp-V"],
        );
        check(
            Os::Other,
            &[("XDG_CACHE_HOME", "relative"), ("HOME", "/home/u")],
            expect!["/home/u/.cache/shapescript/lsp-V"],
        );
        check(Os::Other, &[], expect!["none"]);
    }

    #[test]
    fn macos_and_windows_use_their_cache_folders() {
        check(
            Os::MacOs,
            &[("HOME", "/Users/u"), ("XDG_CACHE_HOME", "/x")],
            expect!["/Users/u/Library/Caches/shapescript/lsp-V"],
        );
        check(
            Os::Windows,
            &[("LOCALAPPDATA", "/AppData/Local")],
            expect!["/AppData/Local/shapescript/lsp-V"],
        );
    }
}
