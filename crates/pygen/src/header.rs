//! A generated module's import block, laid out the way `ruff check`'s
//! import sorting (isort's default profile) and `ruff format` leave it:
//! standard library, then third-party, then the package's own modules, each
//! section sorted and one blank line apart, and only the imports the code
//! uses (`docs/shapescript/python.md`, "Style of the generated code").

use std::collections::BTreeSet;

use crate::writer::{Code, LINE_LENGTH};

/// The public modules of Python's standard library (`sys.stdlib_module_names`
/// of Python 3.11 without the private `_` ones): an extern fn's module is
/// sorted into the standard-library section when its first name is one.
const STDLIB: &[&str] = &[
    "abc",
    "aifc",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
];

/// What a module's code may import.
pub struct Wanted<'a> {
    /// The code after the import block.
    pub body: &'a str,
    /// Dotted Python modules of externs and of `math` (`torch.nn.functional`).
    pub python: &'a BTreeSet<String>,
    /// Other modules of the package, by the names the code uses.
    pub package: &'a [String],
}

/// The import block: `import torch` and `from . import shapescript_runtime`
/// only when the code names them, the package's modules on one
/// `from . import` line (exploded one per line when too long, as the
/// formatter does).
pub fn import_block(wanted: &Wanted) -> Code {
    let mut plain: BTreeSet<String> = wanted.python.clone();
    plain.remove("shapescript_runtime");
    if names_used(wanted.body, "torch") {
        plain.insert("torch".to_string());
    }
    let (standard, third): (Vec<String>, Vec<String>) =
        plain.into_iter().partition(|m| is_stdlib(m));
    let mut local: Vec<String> = wanted
        .package
        .iter()
        .filter(|m| names_used(wanted.body, m))
        .cloned()
        .collect();
    if names_used(wanted.body, "shapescript_runtime") {
        local.push("shapescript_runtime".to_string());
    }
    local.sort();
    local.dedup();
    let mut out = Code::default();
    let mut first = true;
    for section in [standard, third] {
        if section.is_empty() {
            continue;
        }
        if !first {
            out.blank();
        }
        first = false;
        for module in sorted_modules(section) {
            out.line(0, &format!("import {module}"), None);
        }
    }
    if !local.is_empty() {
        if !first {
            out.blank();
        }
        from_package(&mut out, &local);
    }
    out
}

/// `from . import a, b`, exploded one name per line when too long, as
/// the formatter writes it.
pub fn from_package(out: &mut Code, names: &[String]) {
    let one = format!("from . import {}", names.join(", "));
    if one.len() <= LINE_LENGTH {
        out.line(0, &one, None);
    } else {
        out.line(0, "from . import (", None);
        for name in names {
            out.line(1, &format!("{name},"), None);
        }
        out.line(0, ")", None);
    }
}

/// Modules in isort's order: by name, case folded, so `torch` comes before
/// `torch.nn.functional`.
fn sorted_modules(mut modules: Vec<String>) -> Vec<String> {
    modules.sort_by_key(|m| (m.to_lowercase(), m.clone()));
    modules
}

fn is_stdlib(module: &str) -> bool {
    let top = module.split('.').next().unwrap_or(module);
    STDLIB.binary_search(&top).is_ok()
}

/// Whether Python code refers to `name` as a name (not inside a comment,
/// a plain string or a docstring, and not as part of a longer name or an
/// attribute `x.name`). An f-string's replacement fields (`{x.shape}`) are
/// code.
pub fn names_used(code: &str, name: &str) -> bool {
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' | b'\'' => {
                let end = string_end(bytes, i);
                let f_string = i > 0 && matches!(bytes[i - 1], b'f' | b'F');
                if f_string && f_string_fields(&code[i..end]).any(|f| names_used(f, name)) {
                    return true;
                }
                i = end;
                continue;
            }
            _ if is_name_byte(b) => {
                let (end, found) = name_at(code, i, name, is_name_byte);
                if found {
                    return true;
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// The name that starts at byte `start` of `code` (its bytes those
/// `in_name` accepts): where it ends, and whether it is `name` itself rather
/// than an attribute (`x.name`).
pub(crate) fn name_at(
    code: &str,
    start: usize,
    name: &str,
    in_name: impl Fn(u8) -> bool,
) -> (usize, bool) {
    let bytes = code.as_bytes();
    let mut end = start;
    while end < bytes.len() && in_name(bytes[end]) {
        end += 1;
    }
    let attribute = start > 0 && bytes[start - 1] == b'.';
    (end, !attribute && &code[start..end] == name)
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The replacement fields (`{...}`, not `{{`) of an f-string's text.
fn f_string_fields(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut fields = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{' && bytes.get(i + 1) == Some(&b'{') {
            i += 2;
            continue;
        }
        if bytes[i] == b'{' {
            let start = i + 1;
            let mut depth = 1;
            i += 1;
            while i < bytes.len() && depth > 0 {
                match bytes[i] {
                    b'{' => depth += 1,
                    b'}' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            fields.push(&text[start..i.saturating_sub(1).max(start)]);
            continue;
        }
        i += 1;
    }
    fields.into_iter()
}

/// Where the string literal that starts at `start` ends: just past its
/// closing quote (the end of the line for an unclosed one-line string).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let triple = bytes.len() >= start + 3 && bytes[start + 1] == quote && bytes[start + 2] == quote;
    let width = if triple { 3 } else { 1 };
    let mut i = start + width;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote => {
                if !triple
                    || (i + 2 < bytes.len() && bytes[i + 1] == quote && bytes[i + 2] == quote)
                {
                    return i + width;
                }
                i += 1;
            }
            b'\n' if !triple => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_code_count_and_names_in_comments_and_strings_do_not() {
        assert!(names_used("x = torch.ones(3)\n", "torch"));
        assert!(names_used("y = f\"{torch.pi}\"\n", "torch"));
        assert!(!names_used("# torch.ones\nx = 1\n", "torch"));
        assert!(!names_used("\"\"\"Uses torch.\"\"\"\nx = 1\n", "torch"));
        assert!(!names_used("s = 'torch'\n", "torch"));
        assert!(!names_used("torchvision = 1\nx.torch = 2\n", "torch"));
        assert!(names_used("s = 'a\\'b'; torch\n", "torch"));
        assert!(!names_used("s = f\"torch {{x}} {y}\"\n", "torch"));
        assert!(names_used("s = f\"{x} {torch}\"; y\n", "torch"));
    }

    #[test]
    fn sections_are_sorted_and_unused_imports_left_out() {
        let python: BTreeSet<String> = ["torch.nn.functional", "math"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let package = vec!["vision".to_string(), "unused".to_string()];
        let body = "x = torch.nn.functional.relu(vision.f(math.pi))\n";
        let block = import_block(&Wanted {
            body,
            python: &python,
            package: &package,
        });
        assert_eq!(
            block.finish(),
            "import math\n\nimport torch\nimport torch.nn.functional\n\nfrom . import vision\n"
        );
    }

    #[test]
    fn the_stdlib_table_is_sorted() {
        assert!(STDLIB.windows(2).all(|w| w[0] < w[1]));
    }
}
