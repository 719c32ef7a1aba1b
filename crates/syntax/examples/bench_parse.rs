//! The parser's speed alone (lexing included): parses every `.ss` file in a
//! folder (default `/tmp/ws`; write one with `BENCH_WRITE=/tmp/ws
//! BENCH_FILES=100 cargo run --release -p check --example bench_front`) and
//! prints lines/s, best of `BENCH_RUNS` (default 10; 1 for a profiler).
//! With `BENCH_DROP_EACH=1` each tree is dropped as soon as it is built and
//! the time includes it, as in `bench_front`'s "parse alone".
//!
//! With `PARSE_DUMP=out.txt` it instead writes the tree and diagnostics of
//! each file given (folders or files), and of mutants of each (bytes deleted,
//! duplicated or replaced by punctuation, so recovery runs), to compare two
//! versions of the parser: their dumps must be identical.
//! Run with `cargo run --release -p syntax --example bench_parse [folder|file...]`.

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::time::Instant;

use diag::FileId;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        args.push("/tmp/ws".to_string());
    }
    let mut paths: Vec<PathBuf> = Vec::new();
    for arg in &args {
        let path = PathBuf::from(arg);
        if path.is_dir() {
            paths.extend(
                std::fs::read_dir(&path)
                    .expect("the folder exists")
                    .map(|entry| entry.expect("a readable entry").path())
                    .filter(|path| path.extension().is_some_and(|ext| ext == "ss")),
            );
        } else {
            paths.push(path);
        }
    }
    paths.sort();
    let texts: Vec<String> = paths
        .iter()
        .map(|path| std::fs::read_to_string(path).expect("a readable file"))
        .collect();
    if let Ok(out) = std::env::var("PARSE_DUMP") {
        dump(&paths, &texts, &out);
        return;
    }
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    let lines: usize = texts.iter().map(|text| text.lines().count()).sum();
    let each = std::env::var_os("BENCH_DROP_EACH").is_some();
    let mut best = f64::INFINITY;
    let mut best_drop = f64::INFINITY;
    for _ in 0..runs {
        // The trees are kept until all files are parsed, as the front end
        // keeps them, then dropped and timed apart: freeing is a cost of the
        // tree's shape (one free per node), not of parsing.
        let mut trees = Vec::with_capacity(texts.len());
        if each {
            // `bench_front`'s "parse alone": each tree dropped as soon as it is
            // built, so the allocator reuses its memory for the next file.
            let start = Instant::now();
            for (i, text) in texts.iter().enumerate() {
                std::hint::black_box(syntax::parse(FileId(i as u32), text));
            }
            best = best.min(start.elapsed().as_secs_f64());
            continue;
        }
        let start = Instant::now();
        for (i, text) in texts.iter().enumerate() {
            trees.push(syntax::parse(FileId(i as u32), text));
        }
        best = best.min(start.elapsed().as_secs_f64());
        let start = Instant::now();
        drop(std::hint::black_box(trees));
        best_drop = best_drop.min(start.elapsed().as_secs_f64());
    }
    use syntax::ast;
    println!(
        "node sizes: Item {} B, Fn {} B, ExternFn {} B, Param {} B, Type {} B, Expr {} B, Stmt {} B, Axis {} B, SizeExpr {} B, Path {} B",
        std::mem::size_of::<ast::Item>(),
        std::mem::size_of::<ast::Fn>(),
        std::mem::size_of::<ast::ExternFn>(),
        std::mem::size_of::<ast::Param>(),
        std::mem::size_of::<ast::Type>(),
        std::mem::size_of::<ast::Expr>(),
        std::mem::size_of::<ast::Stmt>(),
        std::mem::size_of::<ast::Axis>(),
        std::mem::size_of::<ast::SizeExpr>(),
        std::mem::size_of::<ast::Path>(),
    );
    println!(
        "parse: {} files, {lines} lines in {:.2} ms: {:.0} lines/s; dropping the trees {:.2} ms",
        texts.len(),
        best * 1e3,
        lines as f64 / best,
        best_drop * 1e3,
    );
}

/// Writes the dump of every file and of its mutants to `out`.
fn dump(paths: &[PathBuf], texts: &[String], out: &str) {
    // Deterministic: a fixed linear congruential generator.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |bound: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as usize) % bound.max(1)
    };
    const PUNCT: &[&str] = &[
        "(", ")", "[", "]", "{", "}", ",", ":", "=", "->", "\n", " ", "fn ", "dim ", "let ", "+",
        "*", "\"", "#", "...", "$", "1", "x", "if ", "else", "model ", ";", ".", "?",
    ];
    let mut text_out = String::new();
    for (path, text) in paths.iter().zip(texts) {
        let mut variants = vec![text.clone()];
        let bytes = text.as_bytes();
        for _ in 0..60 {
            if bytes.is_empty() {
                break;
            }
            let mut at = next(bytes.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + 1 + next(12)).min(bytes.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let mutant = match next(3) {
                0 => format!("{}{}", &text[..at], &text[end..]),
                1 => format!("{}{}{}", &text[..end], &text[at..end], &text[end..]),
                _ => format!(
                    "{}{}{}",
                    &text[..at],
                    PUNCT[next(PUNCT.len())],
                    &text[end..]
                ),
            };
            variants.push(mutant);
        }
        for (k, variant) in variants.iter().enumerate() {
            let parsed = syntax::parse(FileId(0), variant);
            // A hash per variant keeps the dump small; a difference shows which variant.
            let mut hasher = std::hash::DefaultHasher::new();
            format!("{:?}", parsed.file).hash(&mut hasher);
            for d in &parsed.diagnostics {
                format!("{d:?}").hash(&mut hasher);
            }
            writeln!(
                text_out,
                "{} #{k}: {:016x}, {} diagnostics",
                path.display(),
                hasher.finish(),
                parsed.diagnostics.len()
            )
            .unwrap();
        }
    }
    std::fs::write(out, text_out).expect("the dump is writable");
}
