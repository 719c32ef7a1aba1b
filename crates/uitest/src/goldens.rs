//! Golden files beside the tests: `<stem>.stderr` and `<stem>.stdout`.
//! Compares output with them, rewrites them under `BLESS=1`, and finds
//! orphans (goldens whose test is gone). The only module that writes files.

use crate::diff::line_diff;
use std::fs;
use std::path::{Path, PathBuf};

/// The kinds of golden file, by extension.
pub(crate) const GOLDEN_EXTENSIONS: [&str; 2] = ["stderr", "stdout"];

/// Compares `actual` with the golden at `path` (missing means empty). With
/// `bless`, rewrites the golden instead (deleting it for empty output) and
/// reports nothing; otherwise returns a description of the mismatch.
pub(crate) fn compare(path: &Path, actual: &str, bless: bool) -> Result<(), String> {
    let expected = match fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    if expected.as_deref().unwrap_or("") == actual {
        // An empty golden file is as good as none; bless removes it.
        if bless && actual.is_empty() && expected.is_some() {
            fs::remove_file(path).map_err(|e| format!("cannot delete {}: {e}", path.display()))?;
        }
        return Ok(());
    }
    if bless {
        return if actual.is_empty() {
            fs::remove_file(path).map_err(|e| format!("cannot delete {}: {e}", path.display()))
        } else {
            fs::write(path, actual).map_err(|e| format!("cannot write {}: {e}", path.display()))
        };
    }
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let what = if expected.is_some() {
        name
    } else {
        format!("{name} (missing, so expected empty)")
    };
    Err(format!(
        "output differs from {what} (- expected, + actual):\n{}",
        line_diff(expected.as_deref().unwrap_or(""), actual)
    ))
}

/// Golden files under `root` with no test source of the same stem beside
/// them (any of `source_extensions`). With `bless` they are deleted and the
/// list comes back empty.
pub(crate) fn orphans(
    files: &[PathBuf],
    source_extensions: &[&str],
    bless: bool,
) -> Result<Vec<PathBuf>, String> {
    let mut orphans = Vec::new();
    for file in files {
        let is_golden = file
            .extension()
            .is_some_and(|e| GOLDEN_EXTENSIONS.iter().any(|g| e == *g));
        if !is_golden
            || source_extensions
                .iter()
                .any(|ext| file.with_extension(ext).is_file())
        {
            continue;
        }
        if bless {
            fs::remove_file(file)
                .map_err(|e| format!("cannot delete orphan {}: {e}", file.display()))?;
        } else {
            orphans.push(file.clone());
        }
    }
    Ok(orphans)
}

/// Every file under `root`, recursively, sorted by path.
pub(crate) fn walk(root: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries =
            fs::read_dir(&folder).map_err(|e| format!("cannot list {}: {e}", folder.display()))?;
        for entry in entries {
            let path = entry
                .map_err(|e| format!("cannot list {}: {e}", folder.display()))?
                .path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::TempDir;

    #[test]
    fn compare_and_bless() {
        let dir = TempDir::new("goldens-compare");
        let golden = dir.path().join("a.stderr");
        assert_eq!(compare(&golden, "", false), Ok(()));
        let missing = compare(&golden, "new\n", false).unwrap_err();
        assert_eq!(missing, "output differs from a.stderr (missing, so expected empty) (- expected, + actual):\n  +new\n");

        assert_eq!(compare(&golden, "new\n", true), Ok(()));
        assert_eq!(fs::read_to_string(&golden).unwrap(), "new\n");
        assert_eq!(compare(&golden, "new\n", false), Ok(()));
        let changed = compare(&golden, "old\n", false).unwrap_err();
        assert_eq!(
            changed,
            "output differs from a.stderr (- expected, + actual):\n  -new\n  +old\n"
        );

        assert_eq!(compare(&golden, "", true), Ok(()));
        assert!(!golden.exists());
        fs::write(&golden, "").unwrap();
        assert_eq!(compare(&golden, "", true), Ok(()));
        assert!(!golden.exists(), "bless removes empty goldens");
    }

    #[test]
    fn orphans_are_found_and_blessed_away() {
        let dir = TempDir::new("goldens-orphans");
        for name in [
            "a.ss",
            "a.stderr",
            "b.stdout",
            "c.sx",
            "c.stdout",
            "d.stderr",
            "notes.txt",
        ] {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("sub/e.stderr"), "x").unwrap();
        let files = walk(dir.path()).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| f.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "a.ss",
                "a.stderr",
                "b.stdout",
                "c.stdout",
                "c.sx",
                "d.stderr",
                "notes.txt",
                "sub/e.stderr"
            ]
        );

        let found = orphans(&files, &["ss", "sx"], false).unwrap();
        let found: Vec<_> = found
            .iter()
            .map(|f| f.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(found, ["b.stdout", "d.stderr", "sub/e.stderr"]);

        assert_eq!(
            orphans(&files, &["ss", "sx"], true).unwrap(),
            Vec::<PathBuf>::new()
        );
        assert!(!dir.path().join("d.stderr").exists() && dir.path().join("a.stderr").exists());
    }
}
