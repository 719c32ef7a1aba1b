//! The corpora and dictionaries of the targets, read from the repository:
//! every UI test and example of a language is a seed of its targets, and
//! every data file of the tests a seed of `data`. The dictionaries are the
//! languages' keywords and built-ins, which AFL++ splices into inputs.

use std::path::{Path, PathBuf};

use crate::targets::Target;
use uitest::mutate::BRACKETS;

/// The seed inputs of `target`, each whole file as the target reads it.
pub fn corpus(target: Target) -> Vec<Vec<u8>> {
    let (dirs, exts): (&[&str], &[&str]) = match target {
        Target::ShapeScript | Target::ShapeScriptServer => (
            &[
                "tests/ui/shapescript",
                "examples/shapescript",
                "crates/check/src",
            ],
            &["ss"],
        ),
        Target::Sexpgpu => (
            &[
                "tests/ui/sexpgpu",
                "examples/sexpgpu",
                "crates/sexpgpu/src/lib",
            ],
            &["sx"],
        ),
        Target::Data => (
            &["tests/ui/sexpgpu", "crates/sexpgpu/src/data/testdata"],
            &["npy", "npz", "safetensors"],
        ),
    };
    let mut paths: Vec<PathBuf> = exts
        .iter()
        .flat_map(|ext| uitest::support::workspace_files(dirs, ext))
        .collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|p| Some((p, std::fs::read(p).ok()?)))
        .map(|(path, bytes)| seed(target, path, bytes))
        .collect()
}

/// A file as the target's input: a data file behind the byte that picks
/// its reader, a server's text followed by its own bytes as questions.
fn seed(target: Target, path: &Path, bytes: Vec<u8>) -> Vec<u8> {
    match target {
        Target::Data => {
            let name = path.to_string_lossy();
            let kind = if name.ends_with(".npy") {
                0
            } else if name.ends_with(".npz") {
                1
            } else {
                2
            };
            std::iter::once(kind).chain(bytes).collect()
        }
        Target::ShapeScriptServer => bytes.iter().chain(&bytes).copied().collect(),
        Target::ShapeScript | Target::Sexpgpu => bytes,
    }
}

/// ShapeScript's words besides its keywords (`syntax::lexer::keywords`,
/// first in the dictionary) and the brackets (`BRACKETS`, last): domains,
/// dtypes, built-ins, punctuation.
const SHAPESCRIPT_WORDS: &[&str] = &[
    "buffer",
    "Real",
    "NonNeg",
    "Pos",
    "Unit",
    "Signed",
    "Bool",
    "Index[",
    "f32",
    "bf16",
    "f16",
    "i64",
    "i32",
    "bool",
    "Int",
    "Float",
    "over=",
    "->",
    "...",
    "?k",
    "16gh",
    "[b n D]",
    "rearrange(",
    "reduce(",
    "repeat(",
    "einsum(",
    "sum(",
    "mean(",
    "max(",
    "softmax(",
    "topk(",
    "where(",
    "concat(",
    "zeros(",
    "arange(",
    "embedding(",
    "linear(",
    "@",
    "**",
    "self.",
    "Size[",
    "Axis[",
    "= none",
    "x[",
    ":",
    "::2",
    "-1",
    "1e-5",
    "\n",
    " ",
    ",",
];

/// SexpGPU's words besides the brackets: special forms, operations,
/// keywords, punctuation.
const SEXPGPU_WORDS: &[&str] = &[
    "(def ",
    "(defn ",
    "(defgraph ",
    "(defmodel ",
    "(defrun ",
    "(let [",
    "(loop [",
    "(recur ",
    "(fn [",
    "(if ",
    "(do ",
    "(map ",
    "(reduce ",
    "(range ",
    "(call ",
    "(value-and-grad ",
    "(matmul ",
    "(sum ",
    "(reshape ",
    "(transpose ",
    "(concat ",
    "(nn/softmax ",
    "(nn/attention ",
    "(require nn)",
    ":f32",
    ":bf16",
    ":i32",
    ":axis ",
    ":axes ",
    ":keepdims",
    "[2 3]",
    "[b n d]",
    "(x [2 3] :f32)",
    "\"",
    "'",
    "`",
    "~",
    "~@",
    ";",
    "nil",
    "true",
    "1e300",
    "-0.0",
    "\n",
];

/// The data files' markers: magic numbers, header keys.
const DATA_WORDS: &[&str] = &[
    "\u{93}NUMPY",
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
    "'shape': (",
    "<f8",
    "<i8",
    "|b1",
    "PK\u{3}\u{4}",
    "PK\u{1}\u{2}",
    "PK\u{5}\u{6}",
    "\"dtype\":\"F32\"",
    "\"shape\":[",
    "\"data_offsets\":[",
    "__metadata__",
];

/// What the mutator and AFL++ splice in: each language's words, then the
/// brackets (the data formats' words alone).
pub fn dictionary(target: Target) -> Vec<String> {
    let (keywords, words, brackets): (Vec<&str>, _, _) = match target {
        Target::ShapeScript | Target::ShapeScriptServer => (
            syntax::lexer::keywords().collect(),
            SHAPESCRIPT_WORDS,
            BRACKETS,
        ),
        Target::Sexpgpu => (Vec::new(), SEXPGPU_WORDS, BRACKETS),
        Target::Data => (Vec::new(), DATA_WORDS, &[][..]),
    };
    keywords
        .iter()
        .chain(words)
        .chain(brackets)
        .map(|w| w.to_string())
        .collect()
}
