//! The lexer's speed alone: lexes every `.ss` file in a folder (default
//! `/tmp/ws`; write one with `BENCH_WRITE=/tmp/ws BENCH_FILES=100
//! cargo run --release -p check --example bench_front`) and prints MB/s and
//! lines/s, best of `BENCH_RUNS` (default 10; 1 for a profiler).
//! Run with `cargo run --release -p syntax --example bench_lex [folder]`.

use std::time::Instant;

use diag::FileId;
use syntax::lexer::{lex_into, Token};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/tmp/ws".to_string());
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("the folder exists")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "ss"))
        .collect();
    paths.sort();
    let texts: Vec<String> = paths
        .iter()
        .map(|path| std::fs::read_to_string(path).expect("a readable file"))
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let lines: usize = texts.iter().map(|text| text.lines().count()).sum();
    let mut best = f64::INFINITY;
    let mut token_count = 0;
    // One buffer for all files, as `syntax::parse` does.
    let mut buffer: Vec<Token> = Vec::new();
    for _ in 0..runs {
        token_count = 0;
        let start = Instant::now();
        for (i, text) in texts.iter().enumerate() {
            let lexed = lex_into(FileId(i as u32), text, buffer);
            token_count += lexed.tokens.len();
            buffer = lexed.tokens;
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "lex: {} files, {lines} lines, {bytes} bytes, {token_count} tokens in {:.2} ms: {:.0} MB/s, {:.0} lines/s",
        texts.len(),
        best * 1e3,
        bytes as f64 / best / 1e6,
        lines as f64 / best,
    );
}
