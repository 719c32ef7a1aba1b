//! Line diffs of two texts: the edits from one to the other by longest
//! common subsequence (after the common first and last lines are set
//! aside, since most diffs people read change a few lines of a long
//! text), the changed regions as line ranges (a language server's text
//! edits), and a unified diff (`fmt --check`). Pure: no I/O.

use std::ops::Range;

/// Above this many line pairs left after the common ends are set aside, the
/// table of common lengths is too big: the middle is one change.
const MAX_CELLS: usize = 4_000_000;

/// Lines of context around each change of a unified diff, as `diff -u`.
const CONTEXT: usize = 3;

/// One line of the way from the old text to the new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit<'a> {
    Same(&'a str),
    Removed(&'a str),
    Added(&'a str),
}

/// The edits turning the lines `old` into the lines `new`.
pub fn edits<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<Edit<'a>> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out: Vec<Edit> = old[..prefix].iter().map(|&l| Edit::Same(l)).collect();
    middle(
        &old[prefix..old.len() - suffix],
        &new[prefix..new.len() - suffix],
        &mut out,
    );
    out.extend(old[old.len() - suffix..].iter().map(|&l| Edit::Same(l)));
    out
}

/// The edits of two texts with no common first or last line.
fn middle<'a>(old: &[&'a str], new: &[&'a str], out: &mut Vec<Edit<'a>>) {
    let (n, m) = (old.len(), new.len());
    if n.saturating_mul(m) > MAX_CELLS {
        out.extend(old.iter().map(|&l| Edit::Removed(l)));
        out.extend(new.iter().map(|&l| Edit::Added(l)));
        return;
    }
    // common[i * (m + 1) + j]: the length of the LCS of old[i..] and new[j..].
    let width = m + 1;
    let mut common = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            common[i * width + j] = if old[i] == new[j] {
                common[(i + 1) * width + j + 1] + 1
            } else {
                common[(i + 1) * width + j].max(common[i * width + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            out.push(Edit::Same(old[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < n && (j == m || common[(i + 1) * width + j] >= common[i * width + j + 1]) {
            out.push(Edit::Removed(old[i]));
            i += 1;
        } else {
            out.push(Edit::Added(new[j]));
            j += 1;
        }
    }
}

/// A changed region: lines `old` of the old text became lines `new` of the new.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

/// The changed regions between the lines of `old` and `new`, in order.
pub fn hunks(old: &[&str], new: &[&str]) -> Vec<Hunk> {
    let mut out: Vec<Hunk> = Vec::new();
    let (mut i, mut j) = (0, 0);
    for edit in edits(old, new) {
        match edit {
            Edit::Same(_) => (i, j) = (i + 1, j + 1),
            Edit::Removed(_) | Edit::Added(_) => {
                // Extend the last region if it ends here, else open one.
                match out.last_mut() {
                    Some(last) if last.old.end == i && last.new.end == j => {}
                    _ => out.push(Hunk {
                        old: i..i,
                        new: j..j,
                    }),
                }
                let last = out.last_mut().expect("just made");
                if matches!(edit, Edit::Removed(_)) {
                    i += 1;
                    last.old.end = i;
                } else {
                    j += 1;
                    last.new.end = j;
                }
            }
        }
    }
    out
}

/// A unified diff from `old` (named `old_name`) to `new`, as `diff -u`
/// prints it; empty when the texts are equal.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let changes = hunks(&old_lines, &new_lines);
    if changes.is_empty() {
        return if old == new {
            String::new()
        } else {
            // Only line endings or the last newline differ.
            format!("--- {old_name}\n+++ {new_name}\n@@ line endings differ @@\n")
        };
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    for group in grouped(&changes) {
        write_group(&mut out, group, &old_lines, &new_lines);
    }
    out
}

/// The changes in groups whose context would touch or overlap.
fn grouped(changes: &[Hunk]) -> Vec<&[Hunk]> {
    let mut groups = Vec::new();
    let mut start = 0;
    for k in 1..=changes.len() {
        let apart = changes
            .get(k)
            .is_none_or(|next| next.old.start > changes[k - 1].old.end + 2 * CONTEXT);
        if apart {
            groups.push(&changes[start..k]);
            start = k;
        }
    }
    groups
}

/// One `@@` section: the group's changes with `CONTEXT` lines around them.
fn write_group(out: &mut String, group: &[Hunk], old: &[&str], new: &[&str]) {
    let (first, last) = (&group[0], &group[group.len() - 1]);
    let before = first.old.start.min(CONTEXT);
    let old_start = first.old.start - before;
    let new_start = first.new.start - before;
    let after = (old.len() - last.old.end).min(CONTEXT);
    let old_end = last.old.end + after;
    let new_end = last.new.end + after;
    out.push_str(&format!(
        "@@ -{} +{} @@\n",
        range_text(old_start, old_end),
        range_text(new_start, new_end)
    ));
    let mut at = old_start;
    for hunk in group {
        for line in &old[at..hunk.old.start] {
            out.push_str(&format!(" {line}\n"));
        }
        for line in &old[hunk.old.clone()] {
            out.push_str(&format!("-{line}\n"));
        }
        for line in &new[hunk.new.clone()] {
            out.push_str(&format!("+{line}\n"));
        }
        at = hunk.old.end;
    }
    for line in &old[at..old_end] {
        out.push_str(&format!(" {line}\n"));
    }
}

/// `start,count` with 1-based lines, as `diff -u` writes a range.
fn range_text(start: usize, end: usize) -> String {
    let count = end - start;
    if count == 0 {
        format!("{start},0")
    } else {
        format!("{},{count}", start + 1)
    }
}

#[cfg(test)]
mod tests;
