//! `fmt`, as both commands run it (`docs/shapescript/formatting.md`,
//! `docs/sexpgpu/formatting.md`): files and folders formatted in place,
//! `-` from stdin to stdout, `--check` printing a unified diff of each file
//! that is not formatted. The one part of this crate that reads and writes
//! files, so that the two commands walk folders, skip files and write
//! alike. A file the language's formatter refuses is left untouched.

use crate::{print_diagnostics, print_error, write_stdout, Format};
use diag::{FormatError, SourceMap};
use std::io::Read;
use std::path::{Path, PathBuf};

/// `fmt`'s arguments, the same in both commands.
#[derive(Clone, Debug, clap::Args)]
pub struct FmtArgs {
    /// Files and folders to format (default: the current folder); `-`
    /// formats stdin to stdout.
    pub paths: Vec<PathBuf>,
    /// Change nothing: print a diff of each file that is not formatted,
    /// and fail if there is one.
    #[arg(long)]
    pub check: bool,
}

/// One language's formatter, as the command knows it.
struct Formatter<'a> {
    /// The command's name, for its errors (`shapescript`).
    program: &'a str,
    /// The extension of the files formatted in folders (`ss`).
    extension: &'a str,
    format: &'a dyn Fn(&str) -> Result<String, FormatError>,
}

/// Folders never searched: version control, build output, dependencies.
const SKIPPED_FOLDERS: &[&str] = &["target", "node_modules"];

/// What became of one file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Unchanged,
    /// Rewritten, or (with `--check`) would be: its diff was printed.
    Changed,
    /// Refused (a syntax error or an unsafe layout), already reported.
    Refused,
}

/// `program fmt [--check] PATHS` with the language's `format`, folders
/// searched for files with `extension`: the exit status, 0 when every file
/// is formatted (or was formatted now), 1 when `--check` found a file to
/// format or a file was refused, 2 for a file or folder that cannot be
/// read or written.
pub fn run(
    (program, extension): (&str, &str),
    format: &dyn Fn(&str) -> Result<String, FormatError>,
    paths: &[PathBuf],
    check: bool,
) -> u8 {
    let formatter = &Formatter {
        program,
        extension,
        format,
    };
    let default = [PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let mut files = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            files.push(None);
        } else if let Err(message) = collect(path, formatter.extension, &mut files) {
            print_error(formatter.program, &message);
            return 2;
        }
    }
    let mut changed = 0;
    let mut refused = false;
    for file in &files {
        let outcome = match file {
            Some(path) => format_file(formatter, path, check),
            None => format_stdin(formatter, check),
        };
        match outcome {
            Ok(Outcome::Changed) => changed += 1,
            Ok(Outcome::Refused) => refused = true,
            Ok(Outcome::Unchanged) => {}
            Err(message) => {
                print_error(formatter.program, &message);
                return 2;
            }
        }
    }
    if check && changed > 0 {
        let files = if changed == 1 { "file is" } else { "files are" };
        print_error(
            formatter.program,
            &format!(
                "{changed} {files} not formatted: `{} fmt` formats them",
                formatter.program
            ),
        );
    }
    u8::from((check && changed > 0) || refused)
}

/// Adds `path` (any file named) or the files with `extension` under it, sorted.
fn collect(path: &Path, extension: &str, out: &mut Vec<Option<PathBuf>>) -> Result<(), String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    if !meta.is_dir() {
        out.push(Some(path.to_path_buf()));
        return Ok(());
    }
    for child in folder_entries(path)? {
        let name = child.file_name().map(|n| n.to_string_lossy().into_owned());
        let skipped = name
            .as_deref()
            .is_none_or(|n| n.starts_with('.') || SKIPPED_FOLDERS.contains(&n));
        if child.is_dir() {
            if !skipped {
                collect(&child, extension, out)?;
            }
        } else if child.extension().is_some_and(|e| e == extension) {
            out.push(Some(child));
        }
    }
    Ok(())
}

/// The paths in the folder `path`, sorted (a walk's order is the same on
/// every system).
pub fn folder_entries(path: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(path)
        .map_err(|e| format!("cannot read folder `{}`: {e}", path.display()))?;
    let mut children: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    children.sort();
    Ok(children)
}

fn format_file(formatter: &Formatter, path: &Path, check: bool) -> Result<Outcome, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("cannot read `{}`: it is not UTF-8 text", path.display()))?;
    let name = path.display().to_string();
    let Some(formatted) = formatted(formatter, &name, &text) else {
        return Ok(Outcome::Refused);
    };
    if formatted == text {
        return Ok(Outcome::Unchanged);
    }
    if check {
        print_diff(&text, &formatted, &name)?;
    } else {
        write_atomically(path, &formatted)?;
    }
    Ok(Outcome::Changed)
}

fn format_stdin(formatter: &Formatter, check: bool) -> Result<Outcome, String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    let Some(formatted) = formatted(formatter, "<stdin>", &text) else {
        return Ok(Outcome::Refused);
    };
    if check {
        if formatted == text {
            return Ok(Outcome::Unchanged);
        }
        print_diff(&text, &formatted, "<stdin>")?;
        return Ok(Outcome::Changed);
    }
    write_stdout(&formatted).map_err(|e| format!("cannot write standard output: {e}"))?;
    Ok(Outcome::Unchanged)
}

/// The formatted text, or `None` after reporting why there is none.
fn formatted(formatter: &Formatter, name: &str, text: &str) -> Option<String> {
    match (formatter.format)(text) {
        Ok(formatted) => Some(formatted),
        Err(FormatError::Syntax(diagnostics)) => {
            let mut map = SourceMap::new();
            map.add(name, text);
            print_diagnostics(&map, &diagnostics, Format::Human);
            print_error(
                formatter.program,
                &format!("`{name}` is left as it is: it does not parse"),
            );
            None
        }
        Err(FormatError::Unsafe(why)) => {
            print_error(
                formatter.program,
                &format!("internal error: `{name}` is left as it is: {why} (please report this)"),
            );
            None
        }
    }
}

fn print_diff(old: &str, new: &str, name: &str) -> Result<(), String> {
    let diff = linediff::unified(old, new, name, &format!("{name} (formatted)"));
    write_stdout(&diff).map_err(|e| format!("cannot write standard output: {e}"))
}

/// Writes `text` beside `path`, then renames it over `path`, keeping its
/// permissions, so no reader sees half a file.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot write `{}`: {e}", path.display());
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.{}.fmt", std::process::id()));
    let permissions = std::fs::metadata(path).map_err(cannot)?.permissions();
    std::fs::write(&temporary, text).map_err(cannot)?;
    let renamed = std::fs::set_permissions(&temporary, permissions)
        .and_then(|()| std::fs::rename(&temporary, path));
    if let Err(e) = renamed {
        let _ = std::fs::remove_file(&temporary);
        return Err(cannot(e));
    }
    Ok(())
}
