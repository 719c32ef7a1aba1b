//! The table of SexpGPU diagnostic codes with their explanations (what
//! `sexpgpu explain CODE` prints, and `docs/sexpgpu/errors.md`, generated
//! from this table by a test). The graph builders' E-DIM codes live
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
r#"The file ends before a list, vector or map is closed. The diagnostic points at the innermost opening delimiter that was never closed, and, when it sits inside other open forms, at the outermost of them (usually the `defn`), where the reader went on reading to the end of the file.

Wrong:

```clojure
(defn area (w h)
  (* w h)
```

Fixed: close every form:

```clojure
(defn area (w h)
  (* w h))
```
"#;
    E_READ_002 = "E-READ-002", "an unexpected closing delimiter",
r#"A `)`, `]` or `}` appears where nothing is open, often one too many at the end of a form.

Wrong:

```clojure
(println (+ 1 2)))
```

Fixed:

```clojure
(println (+ 1 2))
```
"#;
    E_READ_003 = "E-READ-003", "a delimiter closed by the wrong kind",
r#"A list opened with `(` must close with `)`, a vector `[` with `]`, a map `{` with `}`.

Wrong:

```clojure
(println (let [a 1) a))
```

Fixed:

```clojure
(println (let [a 1] a))
```
"#;
    E_READ_004 = "E-READ-004", "a malformed number",
r#"Numbers are integers (`42`, `-3`) that fit in 64 bits, or floats (`0.5`, `1e-3`, `2.`). Hex, ratios and suffixes are not supported.

Wrong:

```clojure
(def x 1.2.3)
```

Fixed:

```clojure
(def x 1.23)
```
"#;
    E_READ_005 = "E-READ-005", "an unterminated string",
r#"A string starts with `"` and the file ends before the closing `"`. Strings may span lines, so the string swallows the rest of the file; the diagnostic points at where it starts.

Wrong:

```clojure
(println "no end)
```

Fixed:

```clojure
(println "the end")
```
"#;
    E_READ_006 = "E-READ-006", "an unknown escape in a string",
r#"Strings know the escapes `\n` `\t` `\r` `\0` `\\` `\"` and `\uXXXX`.

Wrong:

```clojure
(println "a\qb")
```

Fixed: write a backslash as `\\`:

```clojure
(println "a\\qb")
```
"#;
    E_READ_007 = "E-READ-007", "a map with an odd number of forms",
r#"A map literal holds keys and values in pairs.

Wrong:

```clojure
(def m {:a 1 :b})
```

Fixed: give every key a value:

```clojure
(def m {:a 1 :b 2})
```
"#;
    E_READ_008 = "E-READ-008", "nothing after a quote",
r#"`'`, `` ` ``, `~` and `~@` apply to the form right after them; here there is none.

Wrong:

```clojure
(println (list 1 '))
```

Fixed:

```clojure
(println (list 1 'a))
```
"#;
    E_READ_009 = "E-READ-009", "forms nested too deeply",
r#"Forms nested more than 256 levels deep are refused, so that no program can exhaust the stack of the tools that read it. Programs written by hand never come near; a generated file that does should build deep data with host code (`loop`, `reduce`) instead of writing it out as one literal.
"#;
    E_READ_010 = "E-READ-010", "syntax SexpGPU does not read",
r#"Clojure's dispatch forms (`#{}`, `#()`), character literals (`\a`), metadata (`^`), deref (`@`) and a bare `:` are not SexpGPU syntax.

Wrong:

```clojure
(def evens #{0 2 4})
```

Fixed: use a vector:

```clojure
(def evens [0 2 4])
```
"#;
    E_READ_011 = "E-READ-011", "a control character in the source",
r#"Source text may hold tabs, newlines, carriage returns and form feeds, but no other control character (a NUL byte, an escape, DEL) outside a string or a comment: such a byte is usually the mark of a file that is not text, or of one damaged in transit, and read as part of a name it would give a confusing "unbound name". The diagnostic points at the character and gives its code point; the reader skips it and reads on.

Remove the character, or write it inside a string with an escape (`"\0"`, `"\u001b"`) where it is meant as data.
"#;
    E_EVAL_001 = "E-EVAL-001", "an unbound name",
r#"The name is not defined locally, globally or by a loaded library. Library functions need `(require nn)` first and are then written `nn/softmax`, or bare after `(require nn :refer :all)`.

Wrong:

```clojure
(defgraph probabilities [(logits [2 3] :f32)]
  (softmax logits))
```

Fixed:

```clojure
(require nn :refer :all)
(defgraph probabilities [(logits [2 3] :f32)]
  (softmax logits))
```
"#;
    E_EVAL_002 = "E-EVAL-002", "the wrong number of arguments",
r#"A function, operation or graph was given more or fewer arguments than it takes; `recur` must give one value per binding of its `loop`.

Wrong:

```clojure
(defn f (x y) (+ x y))
(println (f 1))
```

Fixed:

```clojure
(defn f (x y) (+ x y))
(println (f 1 2))
```
"#;
    E_EVAL_003 = "E-EVAL-003", "a value of the wrong type",
r#"A host function got a value it cannot use, such as a string where a number belongs, or a traced tensor where host numbers are needed.

Wrong:

```clojure
(println (+ 1 "2"))
```

Fixed:

```clojure
(println (+ 1 2))
```
"#;
    E_EVAL_004 = "E-EVAL-004", "`recur` outside a tail position",
r#"`recur` restarts the innermost `loop` or function and must be the last thing it does. It cannot appear outside a `loop` or function, or with work still to be done on its value.

Wrong:

```clojure
(println (loop [i 0] (+ 1 (recur (inc i)))))
```

Fixed: carry the work in a binding:

```clojure
(println (loop [i 0 acc 0] (if (< i 5) (recur (inc i) (+ acc i)) acc)))
```
"#;
    E_EVAL_005 = "E-EVAL-005", "a malformed special form",
r#"A special form (`let`, `if`, `defn`, `defgraph`, ...) is not written the way it must be; the help shows its shape.

Wrong:

```clojure
(println (let [a] a))
```

Fixed: give every binding a value:

```clojure
(println (let [a 1] a))
```
"#;
    E_EVAL_006 = "E-EVAL-006", "calling something that is not a function",
r#"The first element of a list is called. Numbers, strings and nil cannot be called; quote a list to keep it as data.

Wrong:

```clojure
(println (1 2 3))
```

Fixed:

```clojure
(println '(1 2 3))
```
"#;
    E_EVAL_007 = "E-EVAL-007", "evaluation nested too deeply",
r#"Evaluation nests more than 10,000 levels deep (forms inside forms, calls inside calls: a few levels per recursive call), usually from recursion without an end. Iterate with `loop` and `recur`, which do not nest.

Wrong:

```clojure
(defn forever (n) (+ 1 (forever n)))
(println (forever 0))
```

Fixed: end the recursion, or iterate:

```clojure
(defn count-down (n) (loop [i n] (if (> i 0) (recur (dec i)) i)))
(println (count-down 100000))
```
"#;
    E_EVAL_008 = "E-EVAL-008", "an unknown or malformed keyword argument",
r#"Tensor operations take exactly the keywords of their table (`docs/sexpgpu/operations.md`), each once and with a value: `sum` and `max` take `:axes` `:keepdims`; `gather` and `scatter-add` `:axis`; `linear-scan` `:axis` `:reverse`; `iota` `:axis` `:dtype`; `zeros` `ones` `full` `:dtype`; `normal` `:std` `:mean` `:dtype`; `uniform` `:low` `:high` `:dtype`.

Wrong:

```clojure
(defgraph totals [(x [2 3] :f32)]
  (sum x :axis [0]))
```

Fixed: the keyword is `:axes`:

```clojure
(defgraph totals [(x [2 3] :f32)]
  (sum x :axes [0]))
```
"#;
    E_EVAL_009 = "E-EVAL-009", "an arithmetic error",
r#"Integer overflow (integers are 64-bit), integer division by zero, or a float too large to become an integer.

Wrong:

```clojure
(println (/ 1 0))
```

Fixed: divide floats, which give infinity instead:

```clojure
(println (/ 1.0 0.0))
```
"#;
    E_EVAL_010 = "E-EVAL-010", "an index out of range",
r#"`nth`, `assoc` or `subs` was given a position outside the collection. `nth` takes a default as a third argument.

Wrong:

```clojure
(println (nth [1 2] 5))
```

Fixed:

```clojure
(println (nth [1 2] 5 0))
```
"#;
    E_EVAL_011 = "E-EVAL-011", "an unknown library",
r#"`require` names a library that is not built in. The built-in library is `nn`.

Wrong:

```clojure
(require numpy)
```

Fixed:

```clojure
(require nn)
```
"#;
    E_EVAL_012 = "E-EVAL-012", "`~` or `~@` outside a quasiquote",
r#"Unquote (`~x`) and splicing unquote (`~@xs`) fill holes in a quasiquoted template (`` `(f ~x) ``) and mean nothing elsewhere.

Wrong:

```clojure
(def x 1)
(println ~x)
```

Fixed: unquote inside a quasiquote:

```clojure
(def x 1)
(println `(a ~x ~@[2 3]))
```
"#;
    E_EVAL_013 = "E-EVAL-013", "a host collection too large",
r#"`range` and `repeat` make at most 10,000,000 elements; large data belongs in tensors, such as `(iota [n])`.

Wrong:

```clojure
(println (count (range 100000000000)))
```

Fixed: count with arithmetic, or make a tensor inside a graph:

```clojure
(defgraph ids [] (iota [100000] :dtype :i32))
(println (shape (call ids)))
```
"#;
    E_EVAL_014 = "E-EVAL-014", "host code ran past its step budget",
r#"Host code runs while a file is evaluated, before any tensor does, and may evaluate at most 100,000,000 forms (`--max-steps N` changes it): a loop that never ends stops with this error instead of hanging `sexpgpu run`, `check` or an editor. The language server (`docs/sexpgpu/editor.md`), which evaluates as you type, gives host code a smaller budget of steps and a budget of time too (the `sexpgpu.evaluation.budgetMs` setting), and reports either one spent with this code.

Wrong:

```clojure
(loop [i 0] (recur (+ i 1)))
```

Fixed: end the loop:

```clojure
(loop [i 0] (if (< i 10) (recur (+ i 1)) i))
```
"#;
}

diag::codes! {
    /// Staging, runs, files and the `nn` library.
    static BACK;
    E_FLOW_001 = "E-FLOW-001", "branching on a tensor",
r#"`if`, `when`, `cond`, `and`, `or`, `not` and `filter` decide while the graph is traced, but a tensor's value is only known when the graph runs. Choose elementwise with `(where mask a b)`. A computed (host) tensor decides only when it has one element, as its number would; one of more elements is ambiguous and reported the same way.

Wrong:

```clojure
(defgraph clip [(x [4] :f32)]
  (if (> x 0.0) x 0.0))
```

Fixed:

```clojure
(defgraph clip [(x [4] :f32)]
  (where (> x 0.0) x 0.0))
```
"#;
    E_FLOW_002 = "E-FLOW-002", "a tensor from another graph",
r#"Each `defgraph` is traced on its own; a tensor kept from one (say with `def`) does not exist in another. Recompute it in this graph or pass it in as an input.

Wrong:

```clojure
(def kept nil)
(defgraph first-graph [(x [2] :f32)]
  (def kept (* x 2.0))
  kept)
(defgraph second-graph [(y [2] :f32)]
  (+ y kept))
```

Fixed: keep the function, not the tensor:

```clojure
(defn doubled (x) (* x 2.0))
(defgraph first-graph [(x [2] :f32)]
  (doubled x))
(defgraph second-graph [(y [2] :f32)]
  (+ y (doubled y)))
```
"#;
    E_FLOW_003 = "E-FLOW-003", "a tensor operation with no graph being traced",
r#"Tensor operations record nodes of the graph being traced, so they only work inside `defgraph` (or functions it calls). Host code runs graphs with `(call g ...)` and reads results with `to-vec`. An operation with a computed tensor among its operands (one from `call` or a data file) is the exception: outside a graph it runs at once.

Wrong:

```clojure
(def z (zeros [2 2]))
```

Fixed: make it in a graph and call it (`(call (fn () ...))` traces a graph of no inputs):

```clojure
(def z (call (fn () (zeros [2 2]))))
(println (to-vec z))
```
"#;
    E_FLOW_004 = "E-FLOW-004", "an operation whose result's shape depends on the data",
r#"PyTorch's `masked_select`, `nonzero` and `argwhere` return as many elements (or rows of indices) as the data holds true or non-zero elements, so their result's shape is known only when the graph runs. A SexpGPU graph fixes every shape when it is traced, so that it compiles once and runs on any device with memory planned ahead (`docs/sexpgpu/staging.md`); these operations cannot exist. Keep the shape instead: a mask with `where`, then reduce over what it selects.

Wrong:

```clojure
(defgraph positive-sum [(x [4] :f32)]
  (sum (masked-select x (> x 0.0))))
```

Fixed: zero what the mask leaves out, then sum:

```clojure
(defgraph positive-sum [(x [4] :f32)]
  (sum (where (> x 0.0) x 0.0)))
```
"#;
    E_RUN_001 = "E-RUN-001", "a graph failed while running",
r#"A graph refused the data given to it at run time, such as an index outside its table, or a run's graph could not be compiled.

Wrong:

```clojure
(defgraph rows [(table [3 2] :f32) (ids [2] :i32)]
  (index table ids))
(println (to-vec (call rows [[1 2] [3 4] [5 6]] [0 7])))
```

Fixed: every id within the table's 3 rows:

```clojure
(defgraph rows [(table [3 2] :f32) (ids [2] :i32)]
  (index table ids))
(println (to-vec (call rows [[1 2] [3 4] [5 6]] [0 2])))
```
"#;
    E_RUN_002 = "E-RUN-002", "a run or model is set up wrongly",
r#"A `defrun` option is missing, unknown, given twice or of the wrong kind (`:model` must be a call of a `defmodel`, `:loss` a function, `:optimizer` a map with `:init`, `:hyper` and `:update`), a model does not return a map of tensors or one of its parameters (an entry not marked `buffer`) is not a float, or an optimizer's update returns tensors of other shapes than it was given. The options are listed in `docs/sexpgpu/runs.md`.

Wrong:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1])})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch) (nn/mean (matmul (:x batch) (:w p)))))
```

Fixed: add the missing `:optimizer`:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1])})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch) (nn/mean (matmul (:x batch) (:w p))))
  :optimizer (nn/sgd :lr 0.1)
  :steps 2)
```
"#;
    E_RUN_003 = "E-RUN-003", "the loss is not a float scalar",
r#"A run differentiates its loss, so `:loss` must return one float number per step: a tensor of shape `[]` and dtype f32 or bf16. Reduce a per-example loss with `nn/mean`, or use `nn/cross-entropy`, which averages already. Eval metrics must be scalars too.

Wrong:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1])})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch) (matmul (:x batch) (:w p)))
  :optimizer (nn/sgd :lr 0.1))
```

Fixed: the loss is `[8, 1]`; average it:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1])})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch) (nn/mean (matmul (:x batch) (:w p))))
  :optimizer (nn/sgd :lr 0.1)
  :steps 2)
```
"#;
    E_RUN_004 = "E-RUN-004", "the data does not fit the run",
r#"The data of a run must be a map of loaded tensors with one row per example in every column (same first dimension), batches no larger than the data, or token windows shorter than the token sequence. `nn/batches` and `nn/windows` make the usual shapes (`docs/sexpgpu/data.md`).

Wrong:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1])})
(defrun fit
  :model (line 3)
  :data (nn/batches (call (fn () {:x (ones [8 3]) :y (ones [7])})) :size 4)
  :loss (fn (p batch) (sum (:w p)))
  :optimizer (nn/sgd :lr 0.1))
```

Fixed: one label per example:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1])})
(defrun fit
  :model (line 3)
  :data (nn/batches (call (fn () {:x (ones [8 3]) :y (ones [8])})) :size 4)
  :loss (fn (p batch) (sum (:w p)))
  :optimizer (nn/sgd :lr 0.1)
  :steps 2)
```
"#;
    E_RUN_005 = "E-RUN-005", "the loss became NaN or infinite",
r#"The step named in the message produced a loss that is not a finite number; later steps would only spread it. Lower the learning rate, clip gradients (`:clip-norm` of `nn/adamw` and `nn/sgd`), or look for a `log` of zero or a negative number, or a division by zero, in the model.

Wrong:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1])})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch) (log (- (sum (:w p)) 1e6)))
  :optimizer (nn/sgd :lr 0.1)
  :steps 5)
```

Fixed: take the `log` of a positive number:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1])})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch) (log (+ (sum (* (:w p) (:w p))) 1.0)))
  :optimizer (nn/sgd :lr 0.1)
  :steps 5)
```
"#;
    E_RUN_006 = "E-RUN-006", "a `diagnostic` condition held",
r#"A `(diagnostic cond "message")` in the traced code found `cond` true at run time (any element, for a tensor); the run stops at that form and names the step. A condition already true while tracing stops at once.

Wrong:

```clojure
(require nn)
(defmodel line [n] {:w (full [n 1] 1.0)})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch)
          (let [y (matmul (:x batch) (:w p))]
            (diagnostic (> (nn/mean y) 10.0) "predictions grew past 10")
            (neg (nn/mean y))))
  :optimizer (nn/sgd :lr 1.0)
  :steps 50)
```

Fixed: a loss with a minimum, which the predictions stay near:

```clojure
(require nn)
(defmodel line [n] {:w (full [n 1] 1.0)})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch)
          (let [y (matmul (:x batch) (:w p))]
            (diagnostic (> (nn/mean y) 10.0) "predictions grew past 10")
            (nn/mean (* (- y 1.0) (- y 1.0)))))
  :optimizer (nn/sgd :lr 0.01)
  :steps 50)
```
"#;
    E_RUN_007 = "E-RUN-007", "a checkpoint does not fit the run",
r#"`--resume DIR` found a checkpoint whose parameters, buffers or optimizer state differ in name, shape or dtype from the run's, or a file that is not a SexpGPU checkpoint. Resume with the same model and optimizer that wrote it (`docs/sexpgpu/checkpoints.md`).

For example, a run trained with `(mlp 64 128 10)` and checkpointed with `--checkpoint ck/`, then changed to `(mlp 64 256 10)` and resumed with `--resume ck/`, finds `param/w1` of shape `[64, 128]` where the run needs `[64, 256]`. Resume into a fresh directory, or keep the model that wrote the checkpoint.
"#;
    E_RUN_008 = "E-RUN-008", "a reporting operation used wrongly",
r#"`metric` and `counter` take a keyword name and a scalar (a `[]` tensor or a number), `tap-gradient` a float tensor and `:name "..."`, `diagnostic` a boolean tensor and a message string (`docs/sexpgpu/metrics.md`).

Wrong:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1])})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch)
          (let [y (matmul (:x batch) (:w p))]
            (metric :y y)
            (nn/mean y)))
  :optimizer (nn/sgd :lr 0.1))
```

Fixed: `y` is `[8, 1]`; report its mean:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1])})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch)
          (let [y (matmul (:x batch) (:w p))]
            (metric :y (nn/mean y))
            (nn/mean y)))
  :optimizer (nn/sgd :lr 0.1)
  :steps 2)
```
"#;
    E_RUN_009 = "E-RUN-009", "a buffer used wrongly",
r#"A model's buffers are the entries of its map marked with `(buffer t)`, such as batch norm's running statistics: a run carries them from step to step, and no optimizer trains them (`docs/sexpgpu/models.md`). `(set-buffer! b new)` gives one its value after the step, so `b` must be a buffer as the run's `:loss` received it, set once a step, and only while the step is traced (where `(training?)` is true), not in `:eval`, `call` or `defgraph`. `(buffer t)` marks a tensor of a `defmodel` body, nowhere else. `nn/batch-norm` in training updates the running statistics it is given, so they must be buffers.

Wrong:

```clojure
(require nn)
(defmodel net [c]
  {:w (ones [c]) :b (zeros [c]) :mean (zeros [c]) :var (ones [c])})
(defrun fit
  :model (net 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch)
          (nn/mean (nn/batch-norm (:x batch) :weight (:w p) :bias (:b p)
                                  :running-mean (:mean p) :running-var (:var p))))
  :optimizer (nn/sgd :lr 0.1))
```

Fixed: the running statistics are buffers of the model:

```clojure
(require nn)
(defmodel net [c]
  {:w (ones [c]) :b (zeros [c]) :mean (buffer (zeros [c])) :var (buffer (ones [c]))})
(defrun fit
  :model (net 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch)
          (nn/mean (nn/batch-norm (:x batch) :weight (:w p) :bias (:b p)
                                  :running-mean (:mean p) :running-var (:var p))))
  :optimizer (nn/sgd :lr 0.1)
  :steps 2)
```
"#;
    E_RUN_010 = "E-RUN-010", "a buffer's new value has another shape or dtype",
r#"A buffer keeps the shape and dtype the model gave it, so the value `(set-buffer! b new)` gives it after a step must have them too; reshape or cast `new` (`docs/sexpgpu/models.md`).

Wrong:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1]) :seen (buffer (zeros [1]))})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch)
          (set-buffer! (:seen p) (+ (sum (:seen p)) (dim (:x batch) 0)))
          (nn/mean (matmul (:x batch) (:w p))))
  :optimizer (nn/sgd :lr 0.1))
```

Fixed: the count keeps the buffer's shape `[1]`:

```clojure
(require nn)
(defmodel line [n] {:w (normal [n 1]) :seen (buffer (zeros [1]))})
(defrun fit
  :model (line 3)
  :data (call (fn () {:x (ones [8 3])}))
  :loss (fn (p batch)
          (set-buffer! (:seen p) (+ (:seen p) (dim (:x batch) 0)))
          (nn/mean (matmul (:x batch) (:w p))))
  :optimizer (nn/sgd :lr 0.1)
  :steps 2)
```
"#;
    E_RUN_011 = "E-RUN-011", "the ranks of a data-parallel run disagree",
r#"A run started by `mpirun` or `srun` (`docs/sexpgpu/distributed.md`) has every rank trace the same step and apply the same update to the same parameters. Before the first step the ranks compare a hash of their step graphs (which also covers the run's name, seed, steps and each rank's share of the batch) and their lists of runs; a rank that traced another program (a different file, option or library version) stops every rank with this error, naming the ranks that differ from rank 0. A collective that fails (the MPI library reports an error) is this error too; one that never completes (a rank died or hangs) ends the job after `--collective-timeout` seconds. No program text alone shows this mistake: run the same file with the same options on every rank.
"#;
    E_IO_001 = "E-IO-001", "a file cannot be read",
r#"A data file (`load-npz`, `load-npy`, `load-safetensors`, `load-text`) or a checkpoint to resume from does not exist or cannot be read. Relative paths are read from the directory of the `.sx` file.

Wrong, beside a file `notes.txt` but no `missing.txt`:

```clojure
(println (load-text "missing.txt"))
```

Fixed:

```clojure
(println (load-text "notes.txt"))
```
"#;
    E_IO_002 = "E-IO-002", "a file is not in the expected format",
r#"The file exists but is not a valid `.npy`, `.npz` (a zip of `.npy` members, as `numpy.savez` and `numpy.savez_compressed` write), safetensors file or UTF-8 text. The message says what was wrong with it.

Wrong, where `notes.txt` is a text file:

```clojure
(println (load-npy "notes.txt"))
```

Fixed: read it as what it is:

```clojure
(println (load-text "notes.txt"))
```
"#;
    E_IO_003 = "E-IO-003", "a checkpoint cannot be written",
r#"`--checkpoint DIR` (or a run's `:checkpoint`) could not create the directory or write the file: a path through a file, a directory without write permission, a full disk. Checkpoints are written to a temporary file and renamed, so the previous checkpoint stays intact (`docs/sexpgpu/checkpoints.md`). No program text shows this mistake; the message gives the system's reason.
"#;
    E_IO_004 = "E-IO-004", "a file cannot be written",
r#"`save-npy`, `save-npz` or `save-safetensors` could not write its file: a path through a file or a missing directory, a directory without write permission, a full disk. Relative paths are written in the directory of the `.sx` file. Each file is written to a temporary file beside it and renamed over it, so an earlier file of the same name stays intact when writing fails. Under `sexpgpu check` nothing is written.

Wrong, where `notes.txt` is a file, not a directory:

```clojure
(save-npy "notes.txt/x.npy" (call (fn [] (zeros [2]))))
```

Fixed:

```clojure
(save-npy "x.npy" (call (fn [] (zeros [2]))))
```
"#;
    E_IO_005 = "E-IO-005", "f64 data beyond the range of f32",
r#"`load-npy`, `load-npz` and `load-safetensors` load f64 data as f32, the widest float SexpGPU computes in. A finite f64 value beyond f32's range (about ±3.4e38, like `1e300`) would become an infinity, so the file is refused, with how many values of which array overflowed. Scale the data before saving it, or, where infinities are what you mean, load it with `:overflow :inf`: `(load-npy "x.npy" :overflow :inf)`. No program text shows this mistake: it needs an f64 file.
"#;
    E_NN_001 = "E-NN-001", "an nn library function was used wrongly",
r#"A function of the `nn` library found arguments it cannot use, such as attention queries and keys of different sizes, float labels for `nn/cross-entropy`, or targets whose shape does not fit the logits; the message says which, and the diagnostic points at your call. Library code reports these with `(error! "E-NN-001" "message" :at x :note "...")`.

Wrong:

```clojure
(require nn)
(defgraph att [(q [4 8] :f32) (k [4 6] :f32)]
  (nn/attention q k k))
```

Fixed: queries and keys of one size:

```clojure
(require nn)
(defgraph att [(q [4 8] :f32) (k [4 8] :f32)]
  (nn/attention q k k))
```
"#;
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
