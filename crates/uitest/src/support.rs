//! Test support written once for every crate's tests: a seeded random
//! generator, the workspace folder and its files by extension, a language
//! server as a child process, the test Python and a `.npy` writer.
//! Test code only (crates take `uitest` as a dev-dependency); panics to fail
//! a test.

use std::path::{Path, PathBuf};

/// SplitMix64 (Steele, Lea and Flood, 2014): small, seedable and the same
/// numbers on every run and machine, so tests that compare exact values
/// (the autodiff snapshots, the NumPy and PyTorch cases) stay reproducible.
/// Change the algorithm and those expectations change with it.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator whose first number depends only on `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[low, high)`.
    pub fn uniform(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.unit()
    }

    /// Uniform in `[0, n)` (by remainder: the bias is negligible for test sizes).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `[low, high)`; `low` when the range is empty.
    pub fn int(&mut self, low: i64, high: i64) -> i64 {
        if high <= low {
            return low;
        }
        low + (self.next_u64() % high.abs_diff(low)) as i64
    }
}

/// The workspace folder: the nearest folder above `CARGO_MANIFEST_DIR` (of
/// the test being run, or else of this crate) whose `Cargo.toml` has `[workspace]`.
pub fn workspace_root() -> PathBuf {
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    start
        .ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml"))
                .is_ok_and(|manifest| manifest.lines().any(|line| line.trim() == "[workspace]"))
        })
        .map(Path::to_path_buf)
        .unwrap_or_else(|| panic!("no Cargo.toml with [workspace] above {}", start.display()))
}

/// Checks that the generated page `page` (relative to the workspace folder)
/// is `expected`; `UPDATE_DOCS=1` rewrites it first. The failure says to
/// run `command`, the test that generates it, with `UPDATE_DOCS=1`.
pub fn check_generated_page(page: &str, expected: &str, command: &str) {
    let path = workspace_root().join(page);
    if std::env::var("UPDATE_DOCS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "{} is out of date: run `UPDATE_DOCS=1 {command}`",
        path.display()
    );
}

/// The files with `extension` under each of `folders` (relative to the
/// workspace folder), recursively, sorted.
pub fn workspace_files(folders: &[&str], extension: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, extension: &str, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, extension, out);
            } else if path.extension().is_some_and(|e| e == extension) {
                out.push(path);
            }
        }
    }
    let root = workspace_root();
    let mut out = Vec::new();
    for folder in folders {
        walk(&root.join(folder), extension, &mut out);
    }
    out.sort();
    out
}

/// `binary lsp`, a language server on its stdin and stdout (its stderr
/// dropped), with the two pipes taken out.
pub fn start_server(
    binary: impl AsRef<std::ffi::OsStr>,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::process::ChildStdout,
) {
    use std::process::{Command, Stdio};
    let mut child = Command::new(binary)
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    (child, stdin, stdout)
}

/// What a finished process printed: its stdout, then its stderr.
pub fn printed(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The Python that tests run NumPy and PyTorch with: `.venv/bin/python`
/// under the workspace folder, the pinned venv `scripts/test` creates. No
/// environment variable overrides it, so every test and every machine runs
/// the same interpreter. Panics when it is missing: a missing venv is a
/// failure, never a skip.
pub fn python() -> PathBuf {
    let python = workspace_root().join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test once to create the Python venv (torch, numpy) the tests need",
        python.display()
    );
    python
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_gives_splitmix64s_reference_numbers() {
        // The first outputs of SplitMix64 seeded with 1234567, as its
        // reference implementation prints them.
        let mut rng = Rng::new(1234567);
        let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(
            first,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423
            ]
        );
        let mut rng = Rng::new(7);
        for _ in 0..1000 {
            let x = rng.uniform(-2.0, 3.0);
            assert!((-2.0..3.0).contains(&x), "{x}");
            assert!((-5..5).contains(&rng.int(-5, 5)));
        }
        assert_eq!(rng.int(4, 4), 4);
    }
}
