//! What the checker's benchmarks share: their sizes, read from the
//! environment, and the generated workspace held in memory.

use std::path::PathBuf;

use check::MemoryFiles;

/// The number in the environment variable `name` (`BENCH_FILES=10` for a
/// short profile), or `default`.
pub fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// `count` generated files in memory, `m0.ss` ..., all roots.
pub struct Workspace {
    pub files: MemoryFiles,
    pub roots: Vec<PathBuf>,
    pub lines: usize,
}

/// File `i` is `generate(i)`.
pub fn generated(count: usize, generate: impl Fn(usize) -> String) -> Workspace {
    let mut files = MemoryFiles::new();
    let mut roots = Vec::new();
    let mut lines = 0;
    for i in 0..count {
        let text = generate(i);
        lines += text.lines().count();
        let path = PathBuf::from(format!("m{i}.ss"));
        files.insert(&path, text);
        roots.push(path);
    }
    Workspace {
        files,
        roots,
        lines,
    }
}
