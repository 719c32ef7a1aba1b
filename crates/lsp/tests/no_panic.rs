//! Bad input never panics the editor layer: every question, asked at every
//! position of every UI-test and example `.ss` file (most of them wrong on
//! purpose), answers without a panic.

use std::path::Path;

use check::{MemoryFiles, Options};
use lsp::ide::Analysis;

#[test]
fn every_question_at_every_position_answers() {
    let paths =
        uitest::support::workspace_files(&["tests/ui/shapescript", "examples/shapescript"], "ss");
    assert!(paths.len() > 20, "found the test files: {}", paths.len());
    // Every file of a folder is there, so imports resolve as in the tests.
    let mut files = MemoryFiles::new();
    for path in &paths {
        files.insert(path, std::fs::read_to_string(path).expect("readable"));
    }
    let library = Path::new("/library");
    let extra = lsp::library::extra_files(library);
    let mut asked = 0usize;
    for path in &paths {
        let analysis = Analysis::new(
            &files,
            std::slice::from_ref(path),
            &Options::default(),
            library,
            &extra,
        );
        let file = analysis.file_id(path).expect("the root is loaded");
        let text = analysis.map.text(file).to_string();
        let _ = analysis.document_symbols(file);
        let _ = analysis.inlay_hints(file, 0, text.len() as u32);
        // Semantic tokens must be in order, apart, and on names in the text.
        let mut end = 0;
        for highlight in analysis.highlights(file) {
            let span = highlight.span;
            assert!(
                span.start >= end && span.end as usize <= text.len(),
                "{path:?}: {highlight:?}"
            );
            end = span.end;
        }
        for (_, fix) in analysis.fixes(file, 0, text.len() as u32) {
            assert!(
                fix.edit.span.end as usize <= text.len(),
                "{path:?}: {fix:?}"
            );
        }
        let step = if text.len() > 3000 { 5 } else { 1 };
        for offset in (0..=text.len()).step_by(step) {
            let offset = offset as u32;
            let _ = analysis.hover(file, offset);
            let _ = analysis.definition(file, offset);
            let _ = analysis.references(file, offset, true);
            let _ = analysis.completions(file, offset);
            let _ = analysis.signature_help(file, offset);
            let _ = analysis.rename(file, offset, "renamed");
            asked += 1;
        }
    }
    assert!(asked > 10_000, "asked at {asked} positions");
}
