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

/// Edit distance over characters counting a swap of two neighbours as one
/// edit (`bais` for `bias`), as rustc's does: Levenshtein's insertions,
/// deletions and substitutions plus adjacent transpositions (the optimal
/// string alignment distance), kept in three rows.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (prev[j - 1] + cost).min(row[j - 1] + 1).min(prev[j] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            row[j] = best;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
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
    fn a_swap_of_neighbours_is_one_edit() {
        assert_eq!(super::edit_distance("bais", "bias"), 1);
        assert_eq!(super::edit_distance("form", "from"), 1);
        assert_eq!(super::edit_distance("abc", "ca"), 3);
        assert_eq!(super::edit_distance("", "ab"), 2);
        assert_eq!(super::edit_distance("kitten", "sitting"), 3);
        assert_eq!(closest("bais", ["weight", "bias"]), Some("bias"));
    }

    #[test]
    fn ties_go_to_the_first_name_in_order() {
        assert_eq!(closest("ab", ["ac", "aa"]), Some("aa"));
    }
}
