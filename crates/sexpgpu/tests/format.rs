//! The formatter's promises (`docs/sexpgpu/formatting.md`), on every `.sx`
//! file of the repository and on generated text: a file that reads is
//! formatted (never refused as unsafe), formatting twice changes nothing,
//! the tokens and comments are unchanged, and a file that does not read is
//! refused with its diagnostics.

use sexpgpu::format::{format, lexical_content};
use uitest::formatting::{self, Formatter};

/// `sexpgpu::format` as the shared checks see it.
fn formatter() -> Formatter<'static> {
    Formatter {
        format: &format,
        lexical_content: &lexical_content,
    }
}

fn check_promises(what: &str, text: &str) {
    formatting::check_promises(&formatter(), what, text);
}

/// The white space a gap may be given (commas are white space too).
const GAPS: &[&str] = &["", " ", "   ", "\t", "\n", "\n\n\n", " \n  ", ", "];

/// `text` with each run of white space, and the gap after each delimiter,
/// replaced by the next of `gaps` (strings and comments left as they are).
fn respaced(text: &str, gaps: &[usize]) -> String {
    let mut gaps = gaps
        .iter()
        .map(|&g| GAPS[g % GAPS.len()])
        .chain(std::iter::repeat(" "));
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    let (mut in_string, mut in_comment) = (false, false);
    while let Some(c) = chars.next() {
        if in_string || in_comment {
            out.push(c);
            if in_string && c == '\\' {
                out.extend(chars.next());
            }
            in_string &= c != '"';
            in_comment &= c != '\n';
            continue;
        }
        if c.is_whitespace() {
            while chars.next_if(|c| c.is_whitespace() && *c != '\n').is_some() {}
            // A line break before a comment's end stays, so the code after it stays code.
            out.push_str(if c == '\n' {
                "\n"
            } else {
                gaps.next().unwrap_or(" ")
            });
            continue;
        }
        out.push(c);
        in_string = c == '"';
        in_comment = c == ';';
        if matches!(c, '(' | ')' | '[' | ']' | '{' | '}') {
            out.push_str(gaps.next().unwrap_or(" "));
        }
    }
    out
}

const SAMPLES: &[&str] = &[
    include_str!("../../../examples/sexpgpu/tour.sx"),
    include_str!("../../../examples/sexpgpu/char-transformer.sx"),
    include_str!("../src/lib/prelude.sx"),
    "(defmacro unless (c & body) `(if ~c nil (do ~@body))) ; a macro\n(def m {:a 1, :b [2 3] \"k\" 'sym})\n(defgraph g [(x [2 3] :f32)]\n  ;; body\n  (sum (* x 2.5) :axes [-1] :keepdims true))\n(println \"multi\nline\" ##NaN -3 4e-2)\n",
];

uitest::formatter_tests! {
    extension: "sx",
    repository: ["examples", "tests/ui", "crates/sexpgpu/src/lib", "benches", "docs"],
    book: "docs/sexpgpu/formatting.md",
    formatted: ["examples", "crates/sexpgpu/src/lib", "benches"],
    command: "sexpgpu fmt",
    gap_draws: GAPS.len() * 8,
    gaps_per_text: 600,
}
