//! The table of SexpGPU diagnostic codes with their explanations (what
//! `sexpgpu explain CODE` prints), and "did you mean" suggestions. A code is
//! never reused for a different mistake.

use std::rc::Rc;

/// One diagnostic code: its summary line and a longer explanation with an example.
pub struct Code {
    pub code: &'static str,
    pub summary: &'static str,
    pub explanation: &'static str,
}

pub const CODES: &[Code] = &[
    Code { code: "E-READ-001", summary: "an unclosed `(`, `[` or `{`", explanation: "The file ends before a list, vector or map is closed. The diagnostic points at the opening delimiter.\n\n    (defn f (x)\n      (+ x 1)        ; missing `)` for defn\n" },
    Code { code: "E-READ-002", summary: "an unexpected closing delimiter", explanation: "A `)`, `]` or `}` appears where nothing is open, often one too many at the end of a form.\n\n    (+ 1 2))\n" },
    Code { code: "E-READ-003", summary: "a delimiter closed by the wrong kind", explanation: "A list opened with `(` must close with `)`, a vector `[` with `]`, a map `{` with `}`.\n\n    (let [a 1) a)\n" },
    Code { code: "E-READ-004", summary: "a malformed number", explanation: "Numbers are integers (`42`, `-3`) that fit in 64 bits, or floats (`0.5`, `1e-3`, `2.`). Hex, ratios and suffixes are not supported.\n\n    (def x 1.2.3)\n" },
    Code { code: "E-READ-005", summary: "an unterminated string", explanation: "A string starts with `\"` and the file ends before the closing `\"`.\n" },
    Code { code: "E-READ-006", summary: "an unknown escape in a string", explanation: "Strings know the escapes `\\n` `\\t` `\\r` `\\0` `\\\\` `\\\"` and `\\uXXXX`.\n\n    (println \"a\\qb\")\n" },
    Code { code: "E-READ-007", summary: "a map with an odd number of forms", explanation: "A map literal holds keys and values in pairs.\n\n    {:a 1 :b}\n" },
    Code { code: "E-READ-008", summary: "nothing after a quote", explanation: "`'`, `` ` ``, `~` and `~@` apply to the form right after them; here there is none.\n\n    (list 1 ')\n" },
    Code { code: "E-READ-009", summary: "forms nested too deeply", explanation: "Forms nested more than 256 levels deep are refused, so that no program can exhaust the stack of the tools that read it.\n" },
    Code { code: "E-READ-010", summary: "syntax SexpGPU does not read", explanation: "Clojure's dispatch forms (`#{}`, `#()`), character literals (`\\a`), metadata (`^`), deref (`@`) and a bare `:` are not SexpGPU syntax.\n" },
    Code { code: "E-EVAL-001", summary: "an unbound name", explanation: "The name is not defined locally, globally or by a loaded library. Library functions need `(require nn)` first and are then written `nn/softmax`, or bare after `(require nn :refer :all)`.\n\n    (softmax x)     ; needs (require nn :refer :all)\n" },
    Code { code: "E-EVAL-002", summary: "the wrong number of arguments", explanation: "A function, operation or graph was given more or fewer arguments than it takes; `recur` must give one value per binding of its `loop`.\n\n    (defn f (x y) (+ x y))\n    (f 1)\n" },
    Code { code: "E-EVAL-003", summary: "a value of the wrong type", explanation: "A host function got a value it cannot use, such as a string where a number belongs, or a traced tensor where host numbers are needed.\n\n    (+ 1 \"2\")\n" },
    Code { code: "E-EVAL-004", summary: "`recur` outside a tail position", explanation: "`recur` restarts the innermost `loop` or function and must be the last thing it does. It cannot appear outside a `loop` or function, or with work still to be done on its value.\n\n    (loop [i 0] (+ 1 (recur (inc i))))\n" },
    Code { code: "E-EVAL-005", summary: "a malformed special form", explanation: "A special form (`let`, `if`, `defn`, `defgraph`, ...) is not written the way it must be; the help shows its shape.\n\n    (let [a] a)\n" },
    Code { code: "E-EVAL-006", summary: "calling something that is not a function", explanation: "The first element of a list is called. Numbers, strings and nil cannot be called; quote a list to keep it as data.\n\n    (1 2 3)        ; write '(1 2 3) or [1 2 3]\n" },
    Code { code: "E-EVAL-007", summary: "evaluation nested too deeply", explanation: "Evaluation nests more than 10,000 levels deep (forms inside forms, calls inside calls: a few levels per recursive call), usually from recursion without an end. Iterate with `loop` and `recur`, which do not nest.\n" },
    Code { code: "E-EVAL-008", summary: "an unknown or malformed keyword argument", explanation: "Tensor operations take exactly the keywords of the seed's table, each once and with a value: `sum` and `max` take `:axes` `:keepdims`; `gather` and `scatter-add` `:axis`; `linear-scan` `:axis` `:reverse`; `iota` `:axis` `:dtype`; `zeros` `ones` `full` `:dtype`; `normal` `:std` `:mean` `:dtype`; `uniform` `:low` `:high` `:dtype`.\n\n    (sum x :axis [0])     ; the keyword is :axes\n" },
    Code { code: "E-EVAL-009", summary: "an arithmetic error", explanation: "Integer overflow (integers are 64-bit), integer division by zero, or a float too large to become an integer.\n\n    (/ 1 0)\n" },
    Code { code: "E-EVAL-010", summary: "an index out of range", explanation: "`nth`, `assoc` or `subs` was given a position outside the collection. `nth` takes a default as a third argument.\n\n    (nth [1 2] 5)\n" },
    Code { code: "E-EVAL-011", summary: "an unknown library", explanation: "`require` names a library that is not built in. The built-in library is `nn`.\n\n    (require numpy)\n" },
    Code { code: "E-EVAL-012", summary: "`~` or `~@` outside a quasiquote", explanation: "Unquote (`~x`) and splicing unquote (`~@xs`) fill holes in a quasiquoted template (`` `(f ~x) ``) and mean nothing elsewhere.\n" },
    Code { code: "E-EVAL-013", summary: "a host collection too large", explanation: "`range` and `repeat` make at most 10,000,000 elements; large data belongs in tensors, such as `(iota [n])`.\n" },
    Code { code: "E-DIM-001", summary: "shapes do not fit", explanation: "The shapes of an operation's operands do not fit its rule: inner dims of `matmul`, broadcasting, element counts of `reshape`, axes out of range, slice bounds, the shape of a `call` argument. The notes name the operands as written with their shapes and dtypes, and the broadcast that would have applied.\n\n    (defgraph g [(x [2 16] :f32) (w [32 8] :f32)]\n      (matmul x w))   ; 16 and 32 differ\n" },
    Code { code: "E-DIM-002", summary: "dtypes differ, or a keyword is not a dtype", explanation: "Operands of one operation must share a dtype (use `cast`), and dtypes are `:f32` `:bf16` `:i32` `:i64` `:bool`; anything else, such as `:f16`, is this error.\n\n    (zeros [2 2] :dtype :f16)\n" },
    Code { code: "E-DIM-003", summary: "a tensor was expected", explanation: "A tensor operation got a host value (a number, a vector) where it needs a tensor, or a graph returned something that is not a tensor. Host vectors become tensors as `call` arguments or graph inputs.\n\n    (matmul [1 2] w)\n" },
    Code { code: "E-FLOW-001", summary: "branching on a tensor", explanation: "`if`, `when`, `cond`, `and`, `or`, `not` and `filter` decide while the graph is traced, but a tensor's value is only known when the graph runs. Choose elementwise with `(where mask a b)`.\n\n    (if (> x 0) x 0)          ; write (where (> x 0) x 0)\n" },
    Code { code: "E-FLOW-002", summary: "a tensor from another graph", explanation: "Each `defgraph` is traced on its own; a tensor kept from one (say with `def`) does not exist in another. Recompute it in this graph or pass it in as an input.\n" },
    Code { code: "E-FLOW-003", summary: "a tensor operation with no graph being traced", explanation: "Tensor operations record nodes of the graph being traced, so they only work inside `defgraph` (or functions it calls). Host code runs graphs with `(call g ...)` and reads results with `to-vec`.\n\n    (zeros [2 2])      ; at top level\n" },
    Code { code: "E-RUN-001", summary: "a graph failed while running", explanation: "A graph refused the data given to it at run time, such as an index outside its table, or a run's graph could not be compiled.\n" },
    Code { code: "E-RUN-002", summary: "a run or model is set up wrongly", explanation: "A `defrun` option is missing, unknown, given twice or of the wrong kind (`:model` must be a call of a `defmodel`, `:loss` a function, `:optimizer` a map with `:init`, `:hyper` and `:update`), a model does not return a map of float tensors, or an optimizer's update returns tensors of other shapes than it was given.\n\n    (defrun r :model (mlp 4 8 2) :loss (fn (p b) ...))   ; no :data, no :optimizer\n" },
    Code { code: "E-RUN-003", summary: "the loss is not a float scalar", explanation: "A run differentiates its loss, so `:loss` must return one float number per step: a tensor of shape `[]` and dtype f32 or bf16. Reduce a per-example loss with `nn/mean`, or use `nn/cross-entropy`, which averages already. Eval metrics must be scalars too.\n\n    :loss (fn (p batch) (* (:x batch) (:w p)))   ; [64, 8], not []\n" },
    Code { code: "E-RUN-004", summary: "the data does not fit the run", explanation: "The data of a run must be a map of loaded tensors with one row per example in every column (same first dimension), batches no larger than the data, or token windows shorter than the token sequence. `nn/batches` and `nn/windows` make the usual shapes.\n\n    :data (nn/batches {:x xs :y ys} :size 64)   ; xs has 100 rows, ys 90\n" },
    Code { code: "E-RUN-005", summary: "the loss became NaN or infinite", explanation: "The step named in the message produced a loss that is not a finite number; later steps would only spread it. Lower the learning rate, clip gradients (`:clip-norm` of `nn/adamw` and `nn/sgd`), or look for a `log` of zero or a division by zero in the model.\n" },
    Code { code: "E-RUN-006", summary: "a `diagnostic` condition held", explanation: "A `(diagnostic cond \"message\")` in the traced code found `cond` true at run time (any element, for a tensor); the run stops at that form and names the step. A condition already true while tracing stops at once.\n\n    (diagnostic (> (nn/mean (abs h)) 1e4) \"activations exploded\")\n" },
    Code { code: "E-RUN-007", summary: "a checkpoint does not fit the run", explanation: "`--resume DIR` found a checkpoint whose parameters or optimizer state differ in name, shape or dtype from the run's, or a file that is not a SexpGPU checkpoint. Resume with the same model and optimizer that wrote it.\n" },
    Code { code: "E-RUN-008", summary: "a reporting operation used wrongly", explanation: "`metric` and `counter` take a keyword name and a scalar (a `[]` tensor or a number), `tap-gradient` a float tensor and `:name \"...\"`, `diagnostic` a boolean tensor and a message string.\n\n    (metric :loss losses)     ; losses is [64]: use (nn/mean losses)\n" },
    Code { code: "E-IO-001", summary: "a file cannot be read", explanation: "A data file (`load-npz`, `load-npy`, `load-safetensors`, `load-text`) or a checkpoint to resume from does not exist or cannot be read. Relative paths are read from the directory of the `.sx` file.\n\n    (load-npz \"data/missing.npz\")\n" },
    Code { code: "E-IO-002", summary: "a file is not in the expected format", explanation: "The file exists but is not a valid `.npy`, `.npz` (a zip of stored `.npy` members, as `numpy.savez` writes; `savez_compressed` is not read), safetensors file or UTF-8 text.\n" },
    Code { code: "E-IO-003", summary: "a checkpoint cannot be written", explanation: "`--checkpoint DIR` could not create the directory or write the file. Checkpoints are written to a temporary file and renamed, so the previous checkpoint stays intact.\n" },
    Code { code: "E-NN-001", summary: "an nn library function was used wrongly", explanation: "A function of the `nn` library found arguments it cannot use, such as attention queries and keys of different sizes; the message says which, and the diagnostic points at your call. Library code reports these with `(error! \"E-NN-001\" \"message\" :at x :note \"...\")`.\n" },
];

pub fn lookup(code: &str) -> Option<&'static Code> {
    CODES.iter().find(|c| c.code.eq_ignore_ascii_case(code))
}

/// The candidate closest to `name` by edit distance, if close enough to be a typo.
pub fn closest(name: &str, candidates: impl Iterator<Item = Rc<str>>) -> Option<Rc<str>> {
    let limit = (name.chars().count() / 3).clamp(1, 3);
    candidates
        .filter(|c| &**c != name && !c.contains("__"))
        .map(|c| (edit_distance(name, &c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)))
        .map(|(_, c)| c)
}

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
    use super::*;

    /// Every code used in the sources is in the table, and every code in
    /// the table is used: a tidy check that keeps `explain` complete.
    #[test]
    fn table_matches_the_codes_used() {
        let sources = [
            include_str!("reader.rs"),
            include_str!("eval.rs"),
            include_str!("special.rs"),
            include_str!("pattern.rs"),
            include_str!("nn.rs"),
            include_str!("builtins/mod.rs"),
            include_str!("builtins/collections.rs"),
            include_str!("builtins/text.rs"),
            include_str!("trace/mod.rs"),
            include_str!("trace/args.rs"),
            include_str!("trace/ops.rs"),
            include_str!("data/mod.rs"),
            include_str!("train/mod.rs"),
            include_str!("train/options.rs"),
            include_str!("train/batches.rs"),
            include_str!("train/step.rs"),
            include_str!("train/report.rs"),
            include_str!("train/run.rs"),
            include_str!("lib/nn.sx"),
        ]
        .concat();
        let mut used: Vec<&str> = sources
            .match_indices("\"E-")
            .map(|(i, _)| &sources[i + 1..i + 1 + sources[i + 1..].find('"').unwrap_or(0)])
            .collect();
        // The graph crate's OpError kinds produce these three.
        used.extend(["E-DIM-001", "E-DIM-002", "E-DIM-003"]);
        used.sort();
        used.dedup();
        let table: Vec<&str> = CODES.iter().map(|c| c.code).collect();
        let missing: Vec<_> = used.iter().filter(|c| !table.contains(c)).collect();
        let unused: Vec<_> = table.iter().filter(|c| !used.contains(c)).collect();
        assert!(
            missing.is_empty(),
            "codes used but not in the table: {missing:?}"
        );
        assert!(
            unused.is_empty(),
            "codes in the table but never used: {unused:?}"
        );
    }

    /// The book's error page has a section for every code.
    #[test]
    fn every_code_is_in_the_book() {
        let book = include_str!("../../../docs/sexpgpu/errors.md");
        for code in CODES {
            assert!(
                book.contains(&format!("## {}\n", code.code)),
                "{} is missing from errors.md",
                code.code
            );
        }
    }

    #[test]
    fn suggestions_find_typos_only() {
        let names = || ["softmax", "sum", "matmul"].into_iter().map(Rc::from);
        assert_eq!(closest("softmx", names()).as_deref(), Some("softmax"));
        assert_eq!(closest("matmull", names()).as_deref(), Some("matmul"));
        assert_eq!(closest("zzz", names()), None);
    }
}
