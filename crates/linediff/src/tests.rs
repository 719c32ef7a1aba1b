//! Diffs against `diff -u`'s layout, and the property that applying the
//! changed regions to the old lines gives the new ones.

use super::*;
use expect_test::expect;
use proptest::prelude::*;

#[test]
fn unified_groups_nearby_changes_with_three_lines_of_context() {
    let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let new = old
        .replace("line 5\n", "line five\n")
        .replace("line 7\n", "")
        .replace("line 18\n", "line 18\nextra\n");
    expect![[r#"
        --- a
        +++ b
        @@ -2,9 +2,8 @@
         line 2
         line 3
         line 4
        -line 5
        +line five
         line 6
        -line 7
         line 8
         line 9
         line 10
        @@ -16,5 +15,6 @@
         line 16
         line 17
         line 18
        +extra
         line 19
         line 20
    "#]]
    .assert_eq(&unified(&old, &new, "a", "b"));
}

#[test]
fn equal_texts_have_no_diff_and_line_endings_are_named() {
    assert_eq!(unified("a\nb\n", "a\nb\n", "a", "b"), "");
    expect![[r#"
        --- a
        +++ b
        @@ line endings differ @@
    "#]]
    .assert_eq(&unified("a\r\nb\n", "a\nb\n", "a", "b"));
}

#[test]
fn an_insertion_into_an_empty_text() {
    expect![[r#"
        --- a
        +++ b
        @@ -0,0 +1,1 @@
        +new
    "#]]
    .assert_eq(&unified("", "new\n", "a", "b"));
}

/// `old` with each hunk's old lines replaced by its new lines.
fn apply(old: &[&str], new: &[&str], hunks: &[Hunk]) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    for hunk in hunks {
        out.extend(old[at..hunk.old.start].iter().map(|l| l.to_string()));
        out.extend(new[hunk.new.clone()].iter().map(|l| l.to_string()));
        at = hunk.old.end;
    }
    out.extend(old[at..].iter().map(|l| l.to_string()));
    out
}

proptest! {
    #[test]
    fn hunks_turn_the_old_lines_into_the_new(
        old in proptest::collection::vec("[abc]", 0..12),
        new in proptest::collection::vec("[abc]", 0..12),
    ) {
        let old: Vec<&str> = old.iter().map(String::as_str).collect();
        let new: Vec<&str> = new.iter().map(String::as_str).collect();
        let hunks = hunks(&old, &new);
        prop_assert_eq!(apply(&old, &new, &hunks), new.iter().map(|l| l.to_string()).collect::<Vec<_>>());
        for pair in hunks.windows(2) {
            prop_assert!(pair[0].old.end < pair[1].old.start);
        }
    }
}
