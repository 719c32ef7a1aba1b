//! The docs' list of tensor operations (`docs/sexpgpu/operations.md`) is
//! the operation table's: every operation, its keywords and its summary.
//! `BLESS=1` rewrites the list; the test never edits anything else.

const BEGIN: &str = "<!-- operations: begin -->\n";
const END: &str = "<!-- operations: end -->";

#[test]
fn operations_page_lists_the_table() {
    let path = uitest::support::workspace_root().join("docs/sexpgpu/operations.md");
    let page = std::fs::read_to_string(&path).expect("docs/sexpgpu/operations.md");
    let start = page.find(BEGIN).expect("the begin marker") + BEGIN.len();
    let end = page.find(END).expect("the end marker");
    let expected = sexpgpu::operation_list();
    if page[start..end] == expected {
        return;
    }
    if std::env::var_os("BLESS").is_some() {
        let updated = format!("{}{expected}{}", &page[..start], &page[end..]);
        std::fs::write(&path, updated).expect("rewrite the page");
        return;
    }
    panic!(
        "docs/sexpgpu/operations.md lists other operations than the table; run with BLESS=1.\nExpected:\n{expected}"
    );
}
