//! The table of SexpGPU diagnostic codes with their explanations (what
//! `sexpgpu explain CODE` prints, and `docs/sexpgpu/errors.md`, generated
//! from this table by a test), each kept in `codes/<CODE>.md` and included
//! when the crate compiles, so the table is one line a code. The graph
//! builders' E-DIM codes live beside them (`sexpgpu_graph::codes`) and are
//! re-exported here, so every SexpGPU code is `codes::E_...`. A code is
//! never reused for a different mistake.

use diag::Code;
use std::sync::OnceLock;

pub use sexpgpu_graph::codes::{E_DIM_001, E_DIM_002, E_DIM_003};

/// Every code in the book's order: reader, evaluator, shapes, staging, runs,
/// files, the `nn` library.
pub fn all() -> &'static [Code] {
    static ALL: OnceLock<Vec<Code>> = OnceLock::new();
    ALL.get_or_init(|| {
        FRONT
            .iter()
            .chain(sexpgpu_graph::codes::CODES)
            .chain(BACK)
            .copied()
            .collect()
    })
}

/// Looks a code up, case-insensitively (`e-dim-001` works too).
pub fn lookup(id: &str) -> Option<Code> {
    diag::lookup(all(), id)
}

diag::codes! {
    /// The reader's and the evaluator's codes.
    static FRONT;
    E_READ_001 = "E-READ-001", "an unclosed `(`, `[` or `{`", include_str!("codes/E-READ-001.md");
    E_READ_002 = "E-READ-002", "an unexpected closing delimiter", include_str!("codes/E-READ-002.md");
    E_READ_003 = "E-READ-003", "a delimiter closed by the wrong kind", include_str!("codes/E-READ-003.md");
    E_READ_004 = "E-READ-004", "a malformed number", include_str!("codes/E-READ-004.md");
    E_READ_005 = "E-READ-005", "an unterminated string", include_str!("codes/E-READ-005.md");
    E_READ_006 = "E-READ-006", "an unknown escape in a string", include_str!("codes/E-READ-006.md");
    E_READ_007 = "E-READ-007", "a map with an odd number of forms", include_str!("codes/E-READ-007.md");
    E_READ_008 = "E-READ-008", "nothing after a quote", include_str!("codes/E-READ-008.md");
    E_READ_009 = "E-READ-009", "forms nested too deeply", include_str!("codes/E-READ-009.md");
    E_READ_010 = "E-READ-010", "syntax SexpGPU does not read", include_str!("codes/E-READ-010.md");
    E_READ_011 = "E-READ-011", "a control character in the source", include_str!("codes/E-READ-011.md");
    E_EVAL_001 = "E-EVAL-001", "an unbound name", include_str!("codes/E-EVAL-001.md");
    E_EVAL_002 = "E-EVAL-002", "the wrong number of arguments", include_str!("codes/E-EVAL-002.md");
    E_EVAL_003 = "E-EVAL-003", "a value of the wrong type", include_str!("codes/E-EVAL-003.md");
    E_EVAL_004 = "E-EVAL-004", "`recur` outside a tail position", include_str!("codes/E-EVAL-004.md");
    E_EVAL_005 = "E-EVAL-005", "a malformed special form", include_str!("codes/E-EVAL-005.md");
    E_EVAL_006 = "E-EVAL-006", "calling something that is not a function", include_str!("codes/E-EVAL-006.md");
    E_EVAL_007 = "E-EVAL-007", "evaluation nested too deeply", include_str!("codes/E-EVAL-007.md");
    E_EVAL_008 = "E-EVAL-008", "an unknown or malformed keyword argument", include_str!("codes/E-EVAL-008.md");
    E_EVAL_009 = "E-EVAL-009", "an arithmetic error", include_str!("codes/E-EVAL-009.md");
    E_EVAL_010 = "E-EVAL-010", "an index out of range", include_str!("codes/E-EVAL-010.md");
    E_EVAL_011 = "E-EVAL-011", "an unknown library", include_str!("codes/E-EVAL-011.md");
    E_EVAL_012 = "E-EVAL-012", "`~` or `~@` outside a quasiquote", include_str!("codes/E-EVAL-012.md");
    E_EVAL_013 = "E-EVAL-013", "a host collection too large", include_str!("codes/E-EVAL-013.md");
    E_EVAL_014 = "E-EVAL-014", "host code ran past its step budget", include_str!("codes/E-EVAL-014.md");
}

diag::codes! {
    /// Staging, runs, files and the `nn` library.
    static BACK;
    E_FLOW_001 = "E-FLOW-001", "branching on a tensor", include_str!("codes/E-FLOW-001.md");
    E_FLOW_002 = "E-FLOW-002", "a tensor from another graph", include_str!("codes/E-FLOW-002.md");
    E_FLOW_003 = "E-FLOW-003", "a tensor operation with no graph being traced", include_str!("codes/E-FLOW-003.md");
    E_FLOW_004 = "E-FLOW-004", "an operation whose result's shape depends on the data", include_str!("codes/E-FLOW-004.md");
    E_RUN_001 = "E-RUN-001", "a graph failed while running", include_str!("codes/E-RUN-001.md");
    E_RUN_002 = "E-RUN-002", "a run or model is set up wrongly", include_str!("codes/E-RUN-002.md");
    E_RUN_003 = "E-RUN-003", "the loss is not a float scalar", include_str!("codes/E-RUN-003.md");
    E_RUN_004 = "E-RUN-004", "the data does not fit the run", include_str!("codes/E-RUN-004.md");
    E_RUN_005 = "E-RUN-005", "the loss became NaN or infinite", include_str!("codes/E-RUN-005.md");
    E_RUN_006 = "E-RUN-006", "a `diagnostic` condition held", include_str!("codes/E-RUN-006.md");
    E_RUN_007 = "E-RUN-007", "a checkpoint does not fit the run", include_str!("codes/E-RUN-007.md");
    E_RUN_008 = "E-RUN-008", "a reporting operation used wrongly", include_str!("codes/E-RUN-008.md");
    E_RUN_009 = "E-RUN-009", "a buffer used wrongly", include_str!("codes/E-RUN-009.md");
    E_RUN_010 = "E-RUN-010", "a buffer's new value has another shape or dtype", include_str!("codes/E-RUN-010.md");
    E_RUN_011 = "E-RUN-011", "the ranks of a data-parallel run disagree", include_str!("codes/E-RUN-011.md");
    E_IO_001 = "E-IO-001", "a file cannot be read", include_str!("codes/E-IO-001.md");
    E_IO_002 = "E-IO-002", "a file is not in the expected format", include_str!("codes/E-IO-002.md");
    E_IO_003 = "E-IO-003", "a checkpoint cannot be written", include_str!("codes/E-IO-003.md");
    E_IO_004 = "E-IO-004", "a file cannot be written", include_str!("codes/E-IO-004.md");
    E_IO_005 = "E-IO-005", "f64 data beyond the range of f32", include_str!("codes/E-IO-005.md");
    E_NN_001 = "E-NN-001", "an nn library function was used wrongly", include_str!("codes/E-NN-001.md");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The text of every `.rs` and `.sx` file under `dir`, test code included.
    fn sources(dir: &Path, out: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs" || e == "sx") {
                out.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }

    /// Every code in the table is used somewhere: by its constant in Rust
    /// (`E_DIM_001`) or by its id in the `nn` library's `error!` calls. That
    /// every code used is in the table, the compiler checks.
    #[test]
    fn every_code_in_the_table_is_used() {
        let mut text = String::new();
        sources(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut text,
        );
        sources(
            &uitest::support::workspace_root().join("crates/sexpgpu-graph/src"),
            &mut text,
        );
        // This file declares every constant; uses are elsewhere.
        let own = include_str!("codes.rs");
        let text = text.replacen(own, "", 1);
        let unused: Vec<&str> = all()
            .iter()
            .filter(|code| {
                let constant = code.id.replace('-', "_");
                let uses = text.matches(constant.as_str()).count();
                let in_graph_table = code.id.starts_with("E-DIM");
                // The graph crate's table declares its constants once.
                let declared = usize::from(in_graph_table);
                uses <= declared && !text.contains(&format!("\"{}\"", code.id))
            })
            .map(|code| code.id)
            .collect();
        assert!(
            unused.is_empty(),
            "codes in the table but never used: {unused:?}"
        );
    }

    #[test]
    fn ids_are_unique() {
        let mut ids: Vec<&str> = all().iter().map(|code| code.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), all().len());
    }

    /// The error page as the table says it should be: the book's
    /// introduction and families, then every code's explanation.
    fn error_page() -> String {
        diag::error_page(
            r#"# Errors

<!-- Generated from crates/sexpgpu/src/codes.rs and crates/sexpgpu-graph/src/codes.rs by `UPDATE_DOCS=1 cargo test -p sexpgpu --lib codes`; do not edit. -->

Every SexpGPU diagnostic has a code; `sexpgpu explain CODE` prints the
entry below. Diagnostics print rustc-style on stderr (or one JSON object a
line with `--format json`), pointing at the form that caused them; the
command exits with 1 when any was reported. A run never ends in a Rust
panic.

```console
error[E-DIM-001]: matmul: inner dims differ: [2, 16] x [32, 8]
  --> bad-shape.sx:7:15
   |
 7 |   (lambda (x) (matmul x weight)))
   |               ^^^^^^^^^^^^^^^^^
note: operands: `x` [2, 16] f32, `weight` [32, 8] f32

error: aborting due to 1 previous error
```

One mistake gives one diagnostic: evaluation goes on with the next
top-level form, and a definition that failed is quietly undefined, so its
later uses do not report it again. A file with reader errors is not
evaluated at all.

| family | what |
|---|---|
| `E-READ-*` | the reader: text that is not a form |
| `E-EVAL-*` | host evaluation: names, arity, types, special forms |
| `E-DIM-*` | shapes and dtypes (`docs/sexpgpu/operations.md`) |
| `E-FLOW-*` | staging: host decisions and traced tensors (`docs/sexpgpu/staging.md`) |
| `E-RUN-*` | running a graph; training runs, their options and data |
| `E-IO-*` | files: data, checkpoints |
| `E-NN-*` | mistakes the `nn` library reports itself |

Each explanation's "Wrong" and "Fixed" examples are whole programs, run by
`crates/sexpgpu/tests/explain_examples.rs`: the wrong one reports the code,
the fixed one nothing. The `E-IO-*` examples read a text file `notes.txt`
beside them.

"#,
            all(),
        )
    }

    /// `docs/sexpgpu/errors.md` is generated from the table
    /// (`UPDATE_DOCS=1` rewrites it), so the book and `sexpgpu explain`
    /// never differ.
    #[test]
    fn the_book_is_the_table() {
        uitest::support::check_generated_page(
            "docs/sexpgpu/errors.md",
            &error_page(),
            "cargo test -p sexpgpu --lib codes",
        );
    }
}
