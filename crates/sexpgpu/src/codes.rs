//! The table of SexpGPU diagnostic codes with their explanations (what
//! `sexpgpu explain CODE` prints). The graph builders' E-DIM codes live
//! beside them (`sexpgpu_graph::codes`) and are re-exported here, so every
//! SexpGPU code is `codes::E_...`. A code is never reused for a different
//! mistake.

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
    E_READ_001 = "E-READ-001", "an unclosed `(`, `[` or `{`",
    "The file ends before a list, vector or map is closed. The diagnostic points at the opening delimiter.\n\n```clojure\n(defn f (x)\n  (+ x 1)        ; missing `)` for defn\n```\n";
    E_READ_002 = "E-READ-002", "an unexpected closing delimiter",
    "A `)`, `]` or `}` appears where nothing is open, often one too many at the end of a form.\n\n```clojure\n(+ 1 2))\n```\n";
    E_READ_003 = "E-READ-003", "a delimiter closed by the wrong kind",
    "A list opened with `(` must close with `)`, a vector `[` with `]`, a map `{` with `}`.\n\n```clojure\n(let [a 1) a)\n```\n";
    E_READ_004 = "E-READ-004", "a malformed number",
    "Numbers are integers (`42`, `-3`) that fit in 64 bits, or floats (`0.5`, `1e-3`, `2.`). Hex, ratios and suffixes are not supported.\n\n```clojure\n(def x 1.2.3)\n```\n";
    E_READ_005 = "E-READ-005", "an unterminated string",
    "A string starts with `\"` and the file ends before the closing `\"`.\n";
    E_READ_006 = "E-READ-006", "an unknown escape in a string",
    "Strings know the escapes `\\n` `\\t` `\\r` `\\0` `\\\\` `\\\"` and `\\uXXXX`.\n\n```clojure\n(println \"a\\qb\")\n```\n";
    E_READ_007 = "E-READ-007", "a map with an odd number of forms",
    "A map literal holds keys and values in pairs.\n\n```clojure\n{:a 1 :b}\n```\n";
    E_READ_008 = "E-READ-008", "nothing after a quote",
    "`'`, `` ` ``, `~` and `~@` apply to the form right after them; here there is none.\n\n```clojure\n(list 1 ')\n```\n";
    E_READ_009 = "E-READ-009", "forms nested too deeply",
    "Forms nested more than 256 levels deep are refused, so that no program can exhaust the stack of the tools that read it.\n";
    E_READ_010 = "E-READ-010", "syntax SexpGPU does not read",
    "Clojure's dispatch forms (`#{}`, `#()`), character literals (`\\a`), metadata (`^`), deref (`@`) and a bare `:` are not SexpGPU syntax.\n";
    E_EVAL_001 = "E-EVAL-001", "an unbound name",
    "The name is not defined locally, globally or by a loaded library. Library functions need `(require nn)` first and are then written `nn/softmax`, or bare after `(require nn :refer :all)`.\n\n```clojure\n(softmax x)     ; needs (require nn :refer :all)\n```\n";
    E_EVAL_002 = "E-EVAL-002", "the wrong number of arguments",
    "A function, operation or graph was given more or fewer arguments than it takes; `recur` must give one value per binding of its `loop`.\n\n```clojure\n(defn f (x y) (+ x y))\n(f 1)\n```\n";
    E_EVAL_003 = "E-EVAL-003", "a value of the wrong type",
    "A host function got a value it cannot use, such as a string where a number belongs, or a traced tensor where host numbers are needed.\n\n```clojure\n(+ 1 \"2\")\n```\n";
    E_EVAL_004 = "E-EVAL-004", "`recur` outside a tail position",
    "`recur` restarts the innermost `loop` or function and must be the last thing it does. It cannot appear outside a `loop` or function, or with work still to be done on its value.\n\n```clojure\n(loop [i 0] (+ 1 (recur (inc i))))\n```\n";
    E_EVAL_005 = "E-EVAL-005", "a malformed special form",
    "A special form (`let`, `if`, `defn`, `defgraph`, ...) is not written the way it must be; the help shows its shape.\n\n```clojure\n(let [a] a)\n```\n";
    E_EVAL_006 = "E-EVAL-006", "calling something that is not a function",
    "The first element of a list is called. Numbers, strings and nil cannot be called; quote a list to keep it as data.\n\n```clojure\n(1 2 3)        ; write '(1 2 3) or [1 2 3]\n```\n";
    E_EVAL_007 = "E-EVAL-007", "evaluation nested too deeply",
    "Evaluation nests more than 10,000 levels deep (forms inside forms, calls inside calls: a few levels per recursive call), usually from recursion without an end. Iterate with `loop` and `recur`, which do not nest.\n";
    E_EVAL_008 = "E-EVAL-008", "an unknown or malformed keyword argument",
    "Tensor operations take exactly the keywords of the seed's table, each once and with a value: `sum` and `max` take `:axes` `:keepdims`; `gather` and `scatter-add` `:axis`; `linear-scan` `:axis` `:reverse`; `iota` `:axis` `:dtype`; `zeros` `ones` `full` `:dtype`; `normal` `:std` `:mean` `:dtype`; `uniform` `:low` `:high` `:dtype`.\n\n```clojure\n(sum x :axis [0])     ; the keyword is :axes\n```\n";
    E_EVAL_009 = "E-EVAL-009", "an arithmetic error",
    "Integer overflow (integers are 64-bit), integer division by zero, or a float too large to become an integer.\n\n```clojure\n(/ 1 0)\n```\n";
    E_EVAL_010 = "E-EVAL-010", "an index out of range",
    "`nth`, `assoc` or `subs` was given a position outside the collection. `nth` takes a default as a third argument.\n\n```clojure\n(nth [1 2] 5)\n```\n";
    E_EVAL_011 = "E-EVAL-011", "an unknown library",
    "`require` names a library that is not built in. The built-in library is `nn`.\n\n```clojure\n(require numpy)\n```\n";
    E_EVAL_012 = "E-EVAL-012", "`~` or `~@` outside a quasiquote",
    "Unquote (`~x`) and splicing unquote (`~@xs`) fill holes in a quasiquoted template (`` `(f ~x) ``) and mean nothing elsewhere.\n";
    E_EVAL_013 = "E-EVAL-013", "a host collection too large",
    "`range` and `repeat` make at most 10,000,000 elements; large data belongs in tensors, such as `(iota [n])`.\n";
}

diag::codes! {
    /// Staging, runs, files and the `nn` library.
    static BACK;
    E_FLOW_001 = "E-FLOW-001", "branching on a tensor",
    "`if`, `when`, `cond`, `and`, `or`, `not` and `filter` decide while the graph is traced, but a tensor's value is only known when the graph runs. Choose elementwise with `(where mask a b)`.\n\n```clojure\n(if (> x 0) x 0)          ; write (where (> x 0) x 0)\n```\n";
    E_FLOW_002 = "E-FLOW-002", "a tensor from another graph",
    "Each `defgraph` is traced on its own; a tensor kept from one (say with `def`) does not exist in another. Recompute it in this graph or pass it in as an input.\n";
    E_FLOW_003 = "E-FLOW-003", "a tensor operation with no graph being traced",
    "Tensor operations record nodes of the graph being traced, so they only work inside `defgraph` (or functions it calls). Host code runs graphs with `(call g ...)` and reads results with `to-vec`.\n\n```clojure\n(zeros [2 2])      ; at top level\n```\n";
    E_RUN_001 = "E-RUN-001", "a graph failed while running",
    "A graph refused the data given to it at run time, such as an index outside its table, or a run's graph could not be compiled.\n";
    E_RUN_002 = "E-RUN-002", "a run or model is set up wrongly",
    "A `defrun` option is missing, unknown, given twice or of the wrong kind (`:model` must be a call of a `defmodel`, `:loss` a function, `:optimizer` a map with `:init`, `:hyper` and `:update`), a model does not return a map of float tensors, or an optimizer's update returns tensors of other shapes than it was given.\n\n```clojure\n(defrun r :model (mlp 4 8 2) :loss (fn (p b) ...))   ; no :data, no :optimizer\n```\n";
    E_RUN_003 = "E-RUN-003", "the loss is not a float scalar",
    "A run differentiates its loss, so `:loss` must return one float number per step: a tensor of shape `[]` and dtype f32 or bf16. Reduce a per-example loss with `nn/mean`, or use `nn/cross-entropy`, which averages already. Eval metrics must be scalars too.\n\n```clojure\n:loss (fn (p batch) (* (:x batch) (:w p)))   ; [64, 8], not []\n```\n";
    E_RUN_004 = "E-RUN-004", "the data does not fit the run",
    "The data of a run must be a map of loaded tensors with one row per example in every column (same first dimension), batches no larger than the data, or token windows shorter than the token sequence. `nn/batches` and `nn/windows` make the usual shapes.\n\n```clojure\n:data (nn/batches {:x xs :y ys} :size 64)   ; xs has 100 rows, ys 90\n```\n";
    E_RUN_005 = "E-RUN-005", "the loss became NaN or infinite",
    "The step named in the message produced a loss that is not a finite number; later steps would only spread it. Lower the learning rate, clip gradients (`:clip-norm` of `nn/adamw` and `nn/sgd`), or look for a `log` of zero or a division by zero in the model.\n";
    E_RUN_006 = "E-RUN-006", "a `diagnostic` condition held",
    "A `(diagnostic cond \"message\")` in the traced code found `cond` true at run time (any element, for a tensor); the run stops at that form and names the step. A condition already true while tracing stops at once.\n\n```clojure\n(diagnostic (> (nn/mean (abs h)) 1e4) \"activations exploded\")\n```\n";
    E_RUN_007 = "E-RUN-007", "a checkpoint does not fit the run",
    "`--resume DIR` found a checkpoint whose parameters or optimizer state differ in name, shape or dtype from the run's, or a file that is not a SexpGPU checkpoint. Resume with the same model and optimizer that wrote it.\n";
    E_RUN_008 = "E-RUN-008", "a reporting operation used wrongly",
    "`metric` and `counter` take a keyword name and a scalar (a `[]` tensor or a number), `tap-gradient` a float tensor and `:name \"...\"`, `diagnostic` a boolean tensor and a message string.\n\n```clojure\n(metric :loss losses)     ; losses is [64]: use (nn/mean losses)\n```\n";
    E_IO_001 = "E-IO-001", "a file cannot be read",
    "A data file (`load-npz`, `load-npy`, `load-safetensors`, `load-text`) or a checkpoint to resume from does not exist or cannot be read. Relative paths are read from the directory of the `.sx` file.\n\n```clojure\n(load-npz \"data/missing.npz\")\n```\n";
    E_IO_002 = "E-IO-002", "a file is not in the expected format",
    "The file exists but is not a valid `.npy`, `.npz` (a zip of stored `.npy` members, as `numpy.savez` writes; `savez_compressed` is not read), safetensors file or UTF-8 text.\n";
    E_IO_003 = "E-IO-003", "a checkpoint cannot be written",
    "`--checkpoint DIR` could not create the directory or write the file. Checkpoints are written to a temporary file and renamed, so the previous checkpoint stays intact.\n";
    E_NN_001 = "E-NN-001", "an nn library function was used wrongly",
    "A function of the `nn` library found arguments it cannot use, such as attention queries and keys of different sizes; the message says which, and the diagnostic points at your call. Library code reports these with `(error! \"E-NN-001\" \"message\" :at x :note \"...\")`.\n";
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
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../sexpgpu-graph/src"),
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

    /// The book's error page has a section for every code.
    #[test]
    fn every_code_is_in_the_book() {
        let book = include_str!("../../../docs/sexpgpu/errors.md");
        for code in all() {
            assert!(
                book.contains(&format!("## {}\n", code.id)),
                "{} is missing from errors.md",
                code.id
            );
        }
    }
}
