//! No input may panic: random bytes and mutated valid programs go through
//! read, evaluate and trace (under `check`, so no graph runs), and every
//! diagnostic is rendered. Bounded to a few seconds; each case runs on a
//! thread with the command's large stack.

use proptest::prelude::*;
use sexpgpu::{Host, Mode, Session};
use std::sync::LazyLock;
use uitest::mutate::{apply_all, Edit, BRACKETS};

struct Discard;

impl Host for Discard {
    fn print(&mut self, _: &str) {}
}

/// Programs to mutate. None loops with `loop`/`recur`, so no mutation can
/// make an endless loop (mutations never insert `recur`).
const CORPUS: &[&str] = &[
    include_str!("../../../tests/ui/sexpgpu/bad-shape.sx"),
    include_str!("../../../tests/ui/sexpgpu/ops/elementwise.sx"),
    include_str!("../../../tests/ui/sexpgpu/ops/layout.sx"),
    include_str!("../../../tests/ui/sexpgpu/ops/linalg.sx"),
    include_str!("../../../tests/ui/sexpgpu/ops/nn.sx"),
    include_str!("../../../tests/ui/sexpgpu/dim/broadcast.sx"),
    include_str!("../../../tests/ui/sexpgpu/flow/other-graph.sx"),
    include_str!("../../../tests/ui/sexpgpu/eval/keywords.sx"),
    include_str!("../../../tests/ui/sexpgpu/ops/structured.sx"),
    include_str!("../../../tests/ui/sexpgpu/dim/structured.sx"),
];

/// The brackets, then `OTHER_TOKENS`.
static TOKENS: LazyLock<Vec<&str>> =
    LazyLock::new(|| BRACKETS.iter().chain(OTHER_TOKENS).copied().collect());

const OTHER_TOKENS: &[&str] = &[
    "'",
    "`",
    "~",
    "~@",
    "\"",
    ";",
    "x",
    "nil",
    "true",
    ":axes",
    ":axis",
    ":dtype",
    ":f16",
    ":i32",
    "[2 2]",
    "[]",
    "0",
    "-1",
    "1.5",
    "1e400",
    "(fn (a) a)",
    "defgraph",
    "defn",
    "(defgraph g [(x [2] :f32)] x)",
    "(call g [1 2])",
    "matmul",
    "sum",
    "max",
    "(shape x)",
    "&",
    "->",
    "(require nn :refer :all)",
    "softmax",
    "(zeros [3])",
    "if",
    "let",
    "cond",
    "quote",
    "quasiquote",
    ":window",
    ":padding",
    ":stride",
    ":dilation",
    ":groups",
    "conv",
    "pad",
    "einsum",
    "\"ii->i\"",
    "\"...\"",
];

fn evaluate(text: String) {
    evaluate_in(Mode::Check, text);
}

fn evaluate_in(mode: Mode, text: String) {
    let worker = std::thread::Builder::new()
        .stack_size(512 * 1024 * 1024)
        .spawn(move || {
            let mut session = Session::new(mode, 0, Box::new(Discard));
            let diagnostics = session.eval_file("fuzz.sx", &text);
            // Rendering slices the source at every span: a span off a
            // character boundary or past the end would panic here.
            for d in &diagnostics {
                let options = diag::render::HumanOptions { color: false };
                diag::render::render_human(session.sources(), d, options);
                diag::render::render_json(session.sources(), d);
            }
            diagnostics.len()
        })
        .expect("spawn");
    worker.join().expect("evaluation must not panic");
}

/// `TOKENS` with a space either side, as the mutations insert them.
static PADDED: LazyLock<Vec<String>> =
    LazyLock::new(|| TOKENS.iter().map(|t| format!(" {t} ")).collect());

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(at, len)| Edit::Delete { at, len }),
        (any::<usize>(), any::<usize>()).prop_map(|(at, piece)| Edit::Insert { at, piece }),
        (any::<usize>(), 1usize..40).prop_map(|(at, len)| Edit::Duplicate { at, len }),
    ]
}

/// Random tensor expressions over small inputs, well formed as Lisp but
/// not necessarily as tensor code: they exercise the tracer, every op's
/// argument checks and, under `run`, the executor.
fn tensor_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("x".to_string()),
        Just("y".to_string()),
        Just("ids".to_string()),
        Just("m".to_string()),
        (-3i64..4).prop_map(|n| n.to_string()),
        Just("0.5".to_string()),
        Just("(iota [2 3] :axis 1)".to_string()),
        Just("(normal [3] :std 0.5)".to_string()),
        Just("(ones [2 1] :dtype :i32)".to_string()),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        let shape = prop_oneof![
            Just("[2 3]"),
            Just("[3 2]"),
            Just("[6]"),
            Just("[3]"),
            Just("[]"),
            Just("[2 -1]")
        ];
        let axis = -3i64..3;
        prop_oneof![
            (
                prop::sample::select(vec![
                    "neg",
                    "abs",
                    "sqrt",
                    "exp",
                    "log",
                    "rsqrt",
                    "sin",
                    "tanh",
                    "acos",
                    "sum",
                    "max",
                    "zeros-like",
                    "shape",
                    "rank",
                    "numel",
                    "dtype"
                ]),
                inner.clone()
            )
                .prop_map(|(op, a)| format!("({op} {a})")),
            (
                prop::sample::select(vec![
                    "+", "-", "*", "/", "pow", "maximum", "minimum", "atan2", "matmul", "index",
                    "gather", "<", "=", "max"
                ]),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, a, b)| format!("({op} {a} {b})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("(where {a} {b} {c})")),
            (inner.clone(), shape.clone()).prop_map(|(a, s)| format!("(reshape {a} {s})")),
            (inner.clone(), shape).prop_map(|(a, s)| format!("(broadcast-to {a} {s})")),
            (inner.clone(), axis.clone())
                .prop_map(|(a, k)| format!("(sum {a} :axes [{k}] :keepdims true)")),
            (inner.clone(), axis.clone(), 0i64..3, 0i64..4)
                .prop_map(|(a, k, s, e)| format!("(slice {a} {k} {s} {e})")),
            (inner.clone(), inner.clone(), axis.clone())
                .prop_map(|(a, b, k)| format!("(concat {k} [{a} {b}])")),
            (inner.clone(), inner.clone(), axis.clone())
                .prop_map(|(a, b, k)| format!("(linear-scan {a} {b} :axis {k})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("(scatter-add {a} {b} {c})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("(index-add {a} {b} {c})")),
            (
                inner.clone(),
                prop::sample::select(vec![":f32", ":bf16", ":i32", ":i64", ":bool", ":f16"])
            )
                .prop_map(|(a, d)| format!("(cast {a} {d})")),
            (
                inner.clone(),
                prop::sample::select(vec!["[1 0]", "[0 1]", "[0]"])
            )
                .prop_map(|(a, p)| format!("(transpose {a} {p})")),
            inner.prop_map(|a| format!("(if (rank {a}) {a} {a})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        evaluate(String::from_utf8_lossy(&bytes).into_owned());
    }

    #[test]
    fn random_tokens_never_panic(tokens in proptest::collection::vec(0..TOKENS.len(), 0..60)) {
        let text: Vec<&str> = tokens.iter().map(|&t| TOKENS[t]).collect();
        evaluate(text.join(" "));
    }

    #[test]
    fn random_graphs_never_panic(body in tensor_expr()) {
        let program = format!(
            "(require nn :refer :all)\n\
             (defgraph g [(x [2 3] :f32) (y [3] :f32) (ids [2] :i32) (m [2 3] :bool)] {body})\n\
             (println (call g [[1 2 3] [4 5 6]] [0.5 -1 2] [1 0] [[true false true] [false false true]]))\n"
        );
        evaluate_in(Mode::Run, program);
    }

    #[test]
    fn mutated_programs_never_panic(program in 0..CORPUS.len(), edits in proptest::collection::vec(edit(), 1..6)) {
        evaluate(apply_all(CORPUS[program], &edits, &PADDED));
    }
}

#[test]
fn deep_recursion_is_a_diagnostic_on_the_commands_stack() {
    let worker = std::thread::Builder::new()
        .stack_size(512 * 1024 * 1024)
        .spawn(|| {
            let mut session = Session::new(Mode::Check, 0, Box::new(Discard));
            let diagnostics = session.eval_file(
                "deep.sx",
                "(defn down (n) (+ 1 (down n)))\n(down 0)\n(defgraph g [(x [2] :f32)] (defn f (t) (+ 1.0 (f t))) (f x))",
            );
            diagnostics.iter().map(|d| d.code).collect::<Vec<_>>()
        })
        .expect("spawn");
    assert_eq!(
        worker.join().expect("no overflow"),
        ["E-EVAL-007", "E-EVAL-007"]
    );
}
