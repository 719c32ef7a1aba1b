//! No input may panic: random bytes and mutated valid programs go through
//! read, evaluate and trace (under `check`, so no graph runs), and every
//! diagnostic is rendered. Bounded to a few seconds; each case runs on a
//! thread with the command's large stack.

use proptest::prelude::*;
use sexpgpu::{Host, Mode, Session};

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
];

const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
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
];

fn evaluate(text: String) {
    let worker = std::thread::Builder::new()
        .stack_size(512 * 1024 * 1024)
        .spawn(move || {
            let mut session = Session::new(Mode::Check, 0, Box::new(Discard));
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

#[derive(Debug, Clone)]
enum Edit {
    Delete { at: usize, len: usize },
    Insert { at: usize, token: usize },
    Duplicate { at: usize, len: usize },
}

fn apply(source: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = source.chars().collect();
    for edit in edits {
        let n = chars.len().max(1);
        match *edit {
            Edit::Delete { at, len } => {
                let at = at % n;
                let end = (at + len).min(chars.len());
                chars.drain(at.min(chars.len())..end);
            }
            Edit::Insert { at, token } => {
                let at = (at % n).min(chars.len());
                let token = TOKENS[token % TOKENS.len()];
                chars.splice(at..at, format!(" {token} ").chars());
            }
            Edit::Duplicate { at, len } => {
                let at = (at % n).min(chars.len());
                let end = (at + len).min(chars.len());
                let copy: Vec<char> = chars[at..end].to_vec();
                chars.splice(at..at, copy);
            }
        }
    }
    chars.into_iter().collect()
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(at, len)| Edit::Delete { at, len }),
        (any::<usize>(), any::<usize>()).prop_map(|(at, token)| Edit::Insert { at, token }),
        (any::<usize>(), 1usize..40).prop_map(|(at, len)| Edit::Duplicate { at, len }),
    ]
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
    fn mutated_programs_never_panic(program in 0..CORPUS.len(), edits in proptest::collection::vec(edit(), 1..6)) {
        evaluate(apply(CORPUS[program], &edits));
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
            diagnostics.iter().map(|d| d.code.clone()).collect::<Vec<_>>()
        })
        .expect("spawn");
    assert_eq!(
        worker.join().expect("no overflow"),
        ["E-EVAL-007", "E-EVAL-007"]
    );
}
