//! "Did you mean" suggestions: the known name closest to a misspelt one by
//! edit distance, when it is close enough to be a typo. Both languages use
//! it for unknown names.

/// The candidate closest to `name` by edit distance, if close enough to be a
/// typo (at most a third of its letters, between 1 and 3 edits). Candidates
/// equal to `name` and internal names (holding `__`) are never suggested; ties
/// go to the name that sorts first, so suggestions never depend on order.
pub fn closest<S: AsRef<str>>(name: &str, candidates: impl IntoIterator<Item = S>) -> Option<S> {
    let limit = (name.chars().count() / 3).clamp(1, 3);
    candidates
        .into_iter()
        .filter(|c| c.as_ref() != name && !c.as_ref().contains("__"))
        .map(|c| (edit_distance(name, c.as_ref()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.as_ref().cmp(b.1.as_ref())))
        .map(|(_, c)| c)
}

/// Levenshtein distance over characters, one row at a time.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn suggestions_find_typos_only() {
        let names = ["softmax", "sum", "matmul"];
        assert_eq!(closest("softmx", names), Some("softmax"));
        assert_eq!(closest("matmull", names), Some("matmul"));
        assert_eq!(closest("zzz", names), None);
        assert_eq!(closest("sum", names), None);
    }

    #[test]
    fn ties_go_to_the_first_name_in_order() {
        assert_eq!(closest("ab", ["ac", "aa"]), Some("aa"));
    }
}
