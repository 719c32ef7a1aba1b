//! The codes of the graph builders' errors (`OpError`): shapes that do not
//! fit, dtypes that differ, a tensor expected. The front end's table
//! (`sexpgpu::codes`) takes them in, so these explanations are what
//! `sexpgpu explain` prints.

diag::codes! {
    /// The three codes an `OpError` can carry.
    pub static CODES;
    E_DIM_001 = "E-DIM-001", "shapes do not fit",
r#"The shapes of an operation's operands do not fit its rule: inner dims of `matmul`, broadcasting, element counts of `reshape`, axes out of range, slice bounds, the shape of a `call` argument, or a tensor too large for the executor. The notes name the operands as written with their shapes and dtypes, and the broadcast that would have applied. The rules of each operation are in `docs/sexpgpu/operations.md`.

Wrong:

```clojure
(defgraph g [(x [2 16] :f32) (w [32 8] :f32)]
  (matmul x w))
```

Fixed: the inner dims agree:

```clojure
(defgraph g [(x [2 16] :f32) (w [16 8] :f32)]
  (matmul x w))
```
"#;
    E_DIM_002 = "E-DIM-002", "dtypes differ, or a keyword is not a dtype",
r#"Operands of one operation must share a dtype (use `cast`), and dtypes are `:f32` `:bf16` `:i32` `:i64` `:bool`; anything else, such as `:f16`, is this error.

Wrong:

```clojure
(defgraph g [(x [2] :f32) (n [2] :i32)]
  (+ x n))
```

Fixed: cast one of them:

```clojure
(defgraph g [(x [2] :f32) (n [2] :i32)]
  (+ x (cast n :f32)))
```
"#;
    E_DIM_003 = "E-DIM-003", "a tensor was expected",
r#"A tensor operation got a host value (a number, a vector) where it needs a tensor, or a graph returned something other than tensors (a tensor, or vectors and maps of tensors nested up to 32 deep). Host vectors become tensors as `call` arguments or graph inputs.

Wrong:

```clojure
(defgraph project [(w [2 2] :f32)]
  (matmul [1 2] w))
```

Fixed: take the vector as an input:

```clojure
(defgraph project [(v [1 2] :f32) (w [2 2] :f32)]
  (matmul v w))
(println (to-vec (call project [[1 2]] [[1 0] [0 1]])))
```
"#;
}
