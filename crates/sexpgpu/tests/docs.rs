//! The docs' list of tensor operations (`docs/sexpgpu/operations.md`) is
//! the operation table's: every operation, its keywords and its summary;
//! and `docs/sexpgpu/from-pytorch.md` is the page `ide::from_pytorch_page`
//! generates. `BLESS=1` rewrites the list and the page; the test never
//! edits anything else.

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

/// A host that prints nothing and reads no file.
struct Quiet;

impl sexpgpu::Host for Quiet {
    fn print(&mut self, _text: &str) {}
}

#[test]
fn from_pytorch_page_is_the_generated_one() {
    let names = sexpgpu::ide::known_names(Box::new(Quiet));
    let expected = match sexpgpu::ide::from_pytorch_page(&names) {
        Ok(page) => page,
        Err(problems) => panic!(
            "the PyTorch table names unknown forms:\n{}",
            problems.join("\n")
        ),
    };
    let path = uitest::support::workspace_root().join("docs/sexpgpu/from-pytorch.md");
    let page = std::fs::read_to_string(&path).unwrap_or_default();
    if page == expected {
        return;
    }
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, expected).expect("write the page");
        return;
    }
    panic!("docs/sexpgpu/from-pytorch.md differs from the generated page; run with BLESS=1.\nExpected:\n{expected}");
}
