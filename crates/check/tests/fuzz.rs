//! No input may panic the checker: random bytes and mutated valid files go
//! through parsing and checking, a few seconds' worth of cases. And checking
//! module by module (as `load` hands modules over) must say exactly what
//! checking each phase over the whole program says, whatever imports what.

use std::path::PathBuf;

use check::{check, check_phase_by_phase, check_sources, MemoryFiles, Options};
use diag::SourceMap;
use proptest::prelude::*;

const SEEDS: &[&str] = &[
    include_str!("../src/prelude.ss"),
    include_str!("../src/nn.ss"),
    include_str!("../../../tests/ui/shapescript/aliases/basic.ss"),
    include_str!("../../../tests/ui/shapescript/aliases/cycle.ss"),
    include_str!("../../../tests/ui/shapescript/dims/cycle.ss"),
    include_str!("../../../tests/ui/shapescript/sizes/division.ss"),
    include_str!("../../../tests/ui/shapescript/extern/size-defaults.ss"),
    include_str!("../../../tests/ui/shapescript/hints/grouped-size.ss"),
    include_str!("../../../tests/ui/shapescript/imports/main.ss"),
];

const VISION: &str = include_str!("../../../tests/ui/shapescript/imports/vision.ss");

/// Pieces that make mutations likely to reach the checker rather than only the parser.
const PIECES: &[&str] = &[
    "[",
    "]",
    "(",
    ")",
    " ",
    "\n",
    "...",
    "?k",
    "16",
    "gh",
    "D",
    "/",
    "*",
    "+",
    "-",
    "0",
    "1",
    "dim ",
    "= ",
    "import ",
    "vision.",
    "Images",
    "extern fn ",
    "fn ",
    "->",
    ",",
    ":",
    "Axis[n]",
    "Size[S]",
    "= K",
    "\"torch.x\"",
    "Index[",
    "170141183460469231731687303715884105727",
    "#",
    "Unit f32",
];

fn run(main: &str, vision: &str) {
    let mut map = SourceMap::new();
    let sources = [("main.ss", main), ("vision.ss", vision)];
    let checked = check_sources(&mut map, &sources, &Options::default());
    for d in &checked.diagnostics {
        assert!(!d.code.id.is_empty());
        if let Some(label) = &d.primary {
            // Every span must lie inside its file, on character boundaries.
            let text = map.text(label.span.file);
            assert!(
                text.get(label.span.start as usize..label.span.end as usize)
                    .is_some(),
                "{d:?}"
            );
        }
    }
}

/// Three files made of mutated seeds, each importing some of the others
/// (cycles included), checked from roots in a given order: both ways of
/// checking must report the same diagnostics.
fn same_either_way(texts: &[String], roots: &[usize]) {
    let names = ["a.ss", "b.ss", "c.ss"];
    let mut files = MemoryFiles::new();
    for (name, text) in names.iter().zip(texts) {
        files.insert(name, text.as_str());
    }
    let roots: Vec<PathBuf> = roots.iter().map(|&i| PathBuf::from(names[i])).collect();
    let mut batched_map = SourceMap::new();
    let batched = check(&mut batched_map, &files, &roots, &Options::default());
    let mut whole_map = SourceMap::new();
    let whole = check_phase_by_phase(&mut whole_map, &files, &roots, &Options::default());
    let (batched_said, whole_said) = (
        canonical(&batched.diagnostics),
        canonical(&whole.diagnostics),
    );
    let only_batched: Vec<&String> = batched_said
        .iter()
        .filter(|d| !whole_said.contains(d))
        .collect();
    let only_whole: Vec<&String> = whole_said
        .iter()
        .filter(|d| !batched_said.contains(d))
        .collect();
    assert!(
        batched_said == whole_said,
        "only module by module: {only_batched:#?}\nonly phase by phase: {only_whole:#?}\nfiles: {texts:#?}"
    );
    assert_eq!(batched.signatures.len(), whole.signatures.len());
    assert_eq!(batched.bodies.fns.len(), whole.bodies.fns.len());
}

/// The diagnostics as a sorted list, with two kinds shown by what they are
/// about rather than by where a label points, as the order of checking
/// decides that: a cycle (E0304, E2201) by its members (module by module,
/// a cycle is reported from its first declaration in its file; the
/// whole-program walk may come into it from a use in another file), and a
/// grouped-size hint (H2201) without its labels (the hint about an alias's
/// axes is told once, with the group of the first signature checked that
/// uses the alias: module by module, that is one in the alias's own file).
fn canonical(diagnostics: &[diag::Diagnostic]) -> Vec<String> {
    let mut out: Vec<String> = diagnostics
        .iter()
        .map(|d| match d.code.id {
            "E0304" | "E2201" => {
                let mut members: Vec<String> = d
                    .secondary
                    .iter()
                    .map(|l| format!("{:?}", l.span))
                    .collect();
                members.sort();
                format!("{} cycle through {members:?}", d.code)
            }
            "H2201" => format!(
                "{} {:?} {}",
                d.code,
                d.primary.as_ref().map(|l| l.span),
                d.message
            ),
            _ => format!("{d:?}"),
        })
        .collect();
    out.sort();
    out
}

/// A file of the three-file property: some imports, then a mutated seed.
fn module_text() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(0..3usize, 0..3),
        0..SEEDS.len(),
        0..3usize,
        proptest::collection::vec(edit(), 0..6),
    )
        .prop_map(|(imports, seed, other, edits)| {
            let names = ["a", "b", "c"];
            let mut text: String = imports
                .iter()
                .map(|&i| format!("import {}\n", names[i]))
                .collect();
            // The seed programs' `vision.` names one of the three files instead.
            let seed = SEEDS[seed].replace("vision", names[other]);
            text.push_str(&apply(&seed, &edits));
            text
        })
}

#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, usize),
    Delete(usize, usize),
    Replace(usize, usize),
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for edit in edits {
        let len = chars.len().max(1);
        match *edit {
            Edit::Insert(at, piece) => {
                let at = at % (chars.len() + 1);
                let piece: Vec<char> = PIECES[piece % PIECES.len()].chars().collect();
                chars.splice(at..at, piece);
            }
            Edit::Delete(at, n) => {
                let at = at % len;
                let end = (at + n % 8).min(chars.len());
                if at < end {
                    chars.drain(at..end);
                }
            }
            Edit::Replace(at, piece) => {
                if !chars.is_empty() {
                    let at = at % chars.len();
                    let piece: Vec<char> = PIECES[piece % PIECES.len()].chars().collect();
                    chars.splice(at..at + 1, piece);
                }
            }
        }
    }
    chars.into_iter().collect()
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Insert(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Delete(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Replace(a, b)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        run(&text, VISION);
    }

    #[test]
    fn mutated_files_never_panic(
        seed in 0..SEEDS.len(),
        edits in proptest::collection::vec(edit(), 1..12),
        vision_edits in proptest::collection::vec(edit(), 0..4),
    ) {
        run(&apply(SEEDS[seed], &edits), &apply(VISION, &vision_edits));
    }

    #[test]
    fn module_by_module_says_what_phase_by_phase_says(
        texts in proptest::collection::vec(module_text(), 3),
        roots in proptest::sample::subsequence(vec![0usize, 1, 2], 1..=3).prop_shuffle(),
    ) {
        same_either_way(&texts, &roots);
    }
}
