//! The `shapescript` command: check and explain (build and lsp come with
//! their crates). Owns all file-system access and exit codes: 0 no errors,
//! 1 errors (or hints with `--deny-hints`), 2 usage or I/O errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use check::{FileError, Files, Options};
use clap::{Parser, Subcommand};
use command::Format;
use diag::{Severity, SourceMap};
use lsp::DiskFiles;

mod build;
mod lsp_command;

// Parsing and checking allocate many small nodes (see BENCHMARKS.md); the
// benchmarks measure with this same allocator.
#[global_allocator]
static ALLOCATOR: allocator::Mimalloc = allocator::Mimalloc;

#[derive(Parser)]
#[command(
    name = "shapescript",
    version,
    about = "The ShapeScript toolchain: check tensor programs' shapes, dtypes and ranges"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check `.ss` files (shapes, sizes, dtypes, value ranges): folders are searched for `.ss` files.
    Check {
        /// Files and folders to check (default: the current folder).
        paths: Vec<PathBuf>,
        /// A folder to search for imported files, after the importing file's own.
        #[arg(short = 'I', value_name = "DIR")]
        include: Vec<PathBuf>,
        #[command(flatten)]
        printing: Printing,
        /// Fail (exit 1) on hints too.
        #[arg(long)]
        deny_hints: bool,
    },
    /// Check `.ss` files and, when there are no errors, write them as a Python package.
    Build {
        /// Files and folders to build (default: the current folder).
        paths: Vec<PathBuf>,
        /// The package folder to write (replaced as a whole).
        #[arg(short = 'o', value_name = "OUT")]
        out: PathBuf,
        /// A folder to search for imported files, after the importing file's own.
        #[arg(short = 'I', value_name = "DIR")]
        include: Vec<PathBuf>,
        /// Leave out the run-time shape checks at function boundaries and `as`.
        #[arg(long)]
        no_runtime_checks: bool,
        #[command(flatten)]
        printing: Printing,
    },
    /// Format `.ss` files in place (`docs/shapescript/formatting.md`); folders are searched for `.ss` files.
    Fmt(command::fmt::FmtArgs),
    /// Run the language server on stdin and stdout (for editors).
    Lsp,
    /// Print the explanation of a diagnostic code, with a wrong and a fixed example.
    Explain {
        /// A code such as E0402.
        code: String,
    },
}

/// How `check` and `build` print diagnostics on stderr.
#[derive(clap::Args, Clone, Copy)]
pub(crate) struct Printing {
    /// How to print diagnostics on stderr.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Print at most N errors (then a note counting the rest); 0 prints every one.
    #[arg(long, value_name = "N", default_value_t = command::DEFAULT_ERROR_LIMIT)]
    error_limit: usize,
}

impl Printing {
    /// Prints `diagnostics` on stderr as asked.
    pub(crate) fn print(self, map: &SourceMap, diagnostics: &[diag::Diagnostic]) {
        command::print_diagnostics_limited(map, diagnostics, self.format, self.error_limit);
    }
}

fn main() -> ExitCode {
    allocator::keep_freed_memory();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {
        Command::Check {
            paths,
            include,
            printing,
            deny_hints,
        } => run_check(paths, include, printing, deny_hints),
        Command::Build {
            paths,
            out,
            include,
            no_runtime_checks,
            printing,
        } => build::run_build(paths, include, out, no_runtime_checks, printing),
        Command::Fmt(args) => fmt(&args.paths, args.check),
        Command::Lsp => lsp_command::run_lsp(),
        Command::Explain { code } => explain(&code),
    }
}

fn usage_error(message: &str) -> ExitCode {
    command::print_error("shapescript", message);
    ExitCode::from(2)
}

/// `shapescript fmt`: the shared driver over `syntax::format`.
fn fmt(paths: &[PathBuf], check: bool) -> ExitCode {
    let language = ("shapescript", "ss");
    ExitCode::from(command::fmt::run(
        language,
        &syntax::format::format,
        paths,
        check,
    ))
}

/// `shapescript explain CODE`: the code's explanation on stdout.
fn explain(code: &str) -> ExitCode {
    ExitCode::from(command::explain(
        "shapescript",
        "ShapeScript",
        check::codes::all(),
        code,
    ))
}

/// The root files of `check` and `build`: every `.ss` file under `paths`
/// (the current folder when none is given), each readable, with every `-I`
/// folder present; otherwise the usage error, already printed.
pub(crate) fn gather_roots(
    paths: Vec<PathBuf>,
    include: &[PathBuf],
) -> Result<Vec<PathBuf>, ExitCode> {
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths
    };
    let mut roots = Vec::new();
    for path in &paths {
        if let Err(message) = collect(path, &mut roots) {
            return Err(usage_error(&message));
        }
    }
    for root in &roots {
        let reason = match DiskFiles.read(root) {
            Ok(_) => continue,
            Err(FileError::NotFound) => "no such file".to_string(),
            Err(FileError::Unreadable(reason)) => reason,
        };
        return Err(usage_error(&format!(
            "cannot read `{}`: {reason}",
            root.display()
        )));
    }
    for dir in include {
        if !dir.is_dir() {
            return Err(usage_error(&format!(
                "`-I {}` is not a folder",
                dir.display()
            )));
        }
    }
    Ok(roots)
}

/// The `.ss` files under `path`, sorted; a file is taken as is.
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    if !meta.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    for child in command::fmt::folder_entries(path)? {
        if child.is_dir() {
            collect(&child, out)?;
        } else if child.extension().is_some_and(|e| e == "ss") {
            out.push(child);
        }
    }
    Ok(())
}

/// Checks `roots` as they are on the disk, importing from the folders
/// `include` too.
fn check_on_disk(map: &mut SourceMap, roots: &[PathBuf], include: Vec<PathBuf>) -> check::Checked {
    let options = Options {
        search_path: include,
        ..Options::default()
    };
    check::check(map, &DiskFiles, roots, &options)
}

fn run_check(
    paths: Vec<PathBuf>,
    include: Vec<PathBuf>,
    printing: Printing,
    deny_hints: bool,
) -> ExitCode {
    let roots = match gather_roots(paths, &include) {
        Ok(roots) => roots,
        Err(code) => return code,
    };
    let mut map = SourceMap::new();
    let checked = check_on_disk(&mut map, &roots, include);
    let diagnostics = &checked.diagnostics;
    printing.print(&map, diagnostics);
    let failed = diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error || (deny_hints && d.severity == Severity::Hint));
    // The process ends next, and the system takes the memory back at once:
    // freeing the checked program node by node would take a fifth as long
    // as checking it (BENCHMARKS.md).
    std::mem::forget(checked);
    std::mem::forget(map);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
