//! Snapshot tests of the terminal layout: the example of `docs/sexpgpu/errors.md` byte for byte,
//! then each layout case (multi-line spans, several labels, other files,
//! tabs, wide characters, CRLF, end of file, elided lines, colour).

use super::*;
use crate::code::test_code;
use crate::{Diagnostic, Span};
use expect_test::{expect, Expect};

/// Files of one test and a way to find spans in them by their text.
struct Fixture {
    map: SourceMap,
}

impl Fixture {
    fn new(files: &[(&str, &str)]) -> Self {
        let mut map = SourceMap::new();
        for (name, text) in files {
            map.add(*name, *text);
        }
        Fixture { map }
    }

    /// The span of the first occurrence of `needle` in file `file`.
    fn find(&self, file: u32, needle: &str) -> Span {
        self.find_from(file, needle, 0)
    }

    /// The span of the first occurrence of `needle` at or after byte `from`.
    fn find_from(&self, file: u32, needle: &str, from: usize) -> Span {
        let text = self.map.text(FileId(file));
        let start = from
            + text[from..]
                .find(needle)
                .unwrap_or_else(|| panic!("`{needle}` not in file {file}"));
        Span::new(FileId(file), start as u32, (start + needle.len()) as u32)
    }

    /// The span from the start of `first` to the end of `last`.
    fn between(&self, file: u32, first: &str, last: &str) -> Span {
        let first = self.find(file, first);
        first.to(self.find_from(file, last, first.start as usize))
    }
}

/// Renders without colour, checks no line ends in whitespace, and compares.
fn check(fixture: &Fixture, diag: Diagnostic, expect: Expect) {
    let text = render_human(&fixture.map, &diag, HumanOptions { color: false });
    for line in text.lines() {
        assert_eq!(line, line.trim_end(), "trailing whitespace in {text:?}");
    }
    assert!(text.ends_with('\n') && !text.contains('\r'));
    expect.assert_eq(&text);
}

const BAD_SHAPE: &str = "\
; bad-shape.sx: a matmul whose operands do not fit
(require nn)

(def weight (normal [32 8]))

(defn project
  (lambda (x) (matmul x weight)))

(project (normal [2 16]))
";

fn seed_example() -> (Fixture, Diagnostic) {
    let fixture = Fixture::new(&[("bad-shape.sx", BAD_SHAPE)]);
    let diag = Diagnostic::error(
        test_code("E-DIM-001"),
        "matmul: inner dims differ: [2, 16] x [32, 8]",
    )
    .with_primary(fixture.find(0, "(matmul x weight)"), "")
    .with_note("operands: `x` [2, 16] f32, `weight` [32, 8] f32");
    (fixture, diag)
}

#[test]
fn seed_003_example_byte_for_byte() {
    let (fixture, diag) = seed_example();
    let seed = "\
error[E-DIM-001]: matmul: inner dims differ: [2, 16] x [32, 8]
  --> bad-shape.sx:7:15
   |
 7 |   (lambda (x) (matmul x weight)))
   |               ^^^^^^^^^^^^^^^^^
note: operands: `x` [2, 16] f32, `weight` [32, 8] f32
";
    assert_eq!(
        render_human(&fixture.map, &diag, HumanOptions::default()),
        seed
    );
}

#[test]
fn primary_label_follows_the_carets() {
    let fixture = Fixture::new(&[("a.ss", "fn f(x: [B D]) -> [D] {\n    x @ x\n}\n")]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0401"), "inner dims differ: D vs B")
            .with_primary(fixture.find(0, "x @ x"), "[B D] @ [B D]")
            .with_help("transpose one operand: `x @ x.T`"),
        expect![[r#"
            error[E0401]: inner dims differ: D vs B
              --> a.ss:2:5
               |
             2 |     x @ x
               |     ^^^^^ [B D] @ [B D]
            help: transpose one operand: `x @ x.T`
        "#]],
    );
}

#[test]
fn two_labels_on_one_line() {
    let fixture = Fixture::new(&[("a.ss", "let y: [D] f32 = x to i32\n")]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0502"), "dtypes differ")
            .with_primary(fixture.find(0, "x to i32"), "this is i32")
            .with_secondary(fixture.find(0, "[D] f32"), "expected because of this"),
        expect![[r#"
            error[E0502]: dtypes differ
              --> a.ss:1:18
               |
             1 | let y: [D] f32 = x to i32
               |        -------   ^^^^^^^^ this is i32
               |        |
               |        expected because of this
        "#]],
    );
}

#[test]
fn three_labels_on_one_line_stack_right_to_left() {
    let fixture = Fixture::new(&[("a.ss", "f(a, b, c)\n")]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0401"), "shapes differ")
            .with_primary(fixture.find(0, "c"), "third")
            .with_secondary(fixture.find(0, "a"), "first")
            .with_secondary(fixture.find(0, "b"), "second"),
        expect![[r#"
            error[E0401]: shapes differ
              --> a.ss:1:9
               |
             1 | f(a, b, c)
               |   -  -  ^ third
               |   |  |
               |   |  second
               |   first
        "#]],
    );
}

#[test]
fn overlapping_labels_all_go_below() {
    let fixture = Fixture::new(&[("a.ss", "let z = add(x, y)\n")]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0401"), "shapes differ")
            .with_primary(fixture.find(0, "y"), "[3]")
            .with_secondary(fixture.find(0, "add(x, y)"), "in this call"),
        expect![[r#"
            error[E0401]: shapes differ
              --> a.ss:1:16
               |
             1 | let z = add(x, y)
               |         -------^-
               |         |      |
               |         |      [3]
               |         in this call
        "#]],
    );
}

#[test]
fn unlabelled_secondary_draws_dashes_only() {
    let fixture = Fixture::new(&[("a.ss", "x + y\n")]);
    check(
        &fixture,
        Diagnostic::warning(test_code("W0001"), "odd sum")
            .with_primary(fixture.find(0, "y"), "")
            .with_secondary(fixture.find(0, "x"), ""),
        expect![[r#"
            warning[W0001]: odd sum
              --> a.ss:1:5
               |
             1 | x + y
               | -   ^
        "#]],
    );
}

#[test]
fn multi_line_span_after_code_starts_with_an_underscore_line() {
    let fixture = Fixture::new(&[(
        "a.sx",
        "(defn f [x]\n  (let [y (matmul x\n                  x)]\n    y))\n",
    )]);
    check(
        &fixture,
        Diagnostic::error(
            test_code("E-DIM-001"),
            "matmul: inner dims differ: [2, 3] x [2, 3]",
        )
        .with_primary(fixture.between(0, "(matmul", "x)"), "this product"),
        expect![[r#"
            error[E-DIM-001]: matmul: inner dims differ: [2, 3] x [2, 3]
              --> a.sx:2:11
               |
             2 |     (let [y (matmul x
               |  ___________^
             3 | |                   x)]
               | |____________________^ this product
        "#]],
    );
}

#[test]
fn multi_line_span_after_whitespace_starts_with_a_slash() {
    let fixture = Fixture::new(&[(
        "a.ss",
        "fn f() -> [D] {\n    if c {\n        a\n    } else {\n        b\n    }\n}\n",
    )]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0401"), "branches differ")
            .with_primary(
                fixture.between(0, "if c", "else {\n        b\n    }"),
                "[D] vs [E]",
            )
            .with_secondary(fixture.find(0, "[D]"), "expected because of this"),
        expect![[r#"
            error[E0401]: branches differ
              --> a.ss:2:5
               |
             1 |   fn f() -> [D] {
               |             --- expected because of this
             2 | /     if c {
             3 | |         a
             4 | |     } else {
             5 | |         b
             6 | |     }
               | |_____^ [D] vs [E]
        "#]],
    );
}

#[test]
fn long_multi_line_span_elides_its_middle() {
    let body: String = (1..=12).map(|i| format!("  step{i}\n")).collect();
    let text = format!("run {{\n{body}}}\n");
    let fixture = Fixture::new(&[("long.ss", &text)]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0101"), "block never ends")
            .with_primary(fixture.between(0, "{", "}"), "this block"),
        expect![[r#"
            error[E0101]: block never ends
               --> long.ss:1:5
                |
              1 |   run {
                |  _____^
              2 | |   step1
              3 | |   step2
              4 | |   step3
            ...   |
             13 | |   step12
             14 | | }
                | |_^ this block
        "#]],
    );
}

#[test]
fn secondary_label_in_another_file() {
    let fixture = Fixture::new(&[
        (
            "main.ss",
            "import layers\n\nfn f(x: [layers.D]) -> [E] {\n    x\n}\n",
        ),
        ("layers.ss", "# layers\n\n\n\n\n\n\n\n\ndim D = 64\n"),
    ]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0401"), "shapes differ: [D] vs [E]")
            .with_primary(fixture.find_from(0, "x", 25), "this is [D]")
            .with_secondary(fixture.find(1, "D = 64"), "D is defined here")
            .with_note("D = 64, E = 32"),
        expect![[r#"
            error[E0401]: shapes differ: [D] vs [E]
               --> main.ss:4:5
                |
              4 |     x
                |     ^ this is [D]
                |
               ::: layers.ss:10:5
                |
             10 | dim D = 64
                |     ------ D is defined here
            note: D = 64, E = 32
        "#]],
    );
}

#[test]
fn zero_width_span_at_end_of_file() {
    let fixture = Fixture::new(&[("a.sx", "(defn f [x]\n  (g x\n")]);
    let end = fixture.map.text(FileId(0)).len() as u32;
    check(
        &fixture,
        Diagnostic::error(test_code("E-READ-001"), "unclosed list")
            .with_primary(Span::new(FileId(0), end, end), "expected `)`")
            .with_secondary(fixture.find(0, "(g"), "opened here"),
        expect![[r#"
            error[E-READ-001]: unclosed list
              --> a.sx:2:7
               |
             2 |   (g x
               |   --  ^ expected `)`
               |   |
               |   opened here
        "#]],
    );
}

#[test]
fn zero_width_span_in_a_file_without_final_newline() {
    let fixture = Fixture::new(&[("a.ss", "dim D =")]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0103"), "expected a size, found end of file")
            .with_primary(Span::new(FileId(0), 7, 7), ""),
        expect![[r#"
            error[E0103]: expected a size, found end of file
              --> a.ss:1:8
               |
             1 | dim D =
               |        ^
        "#]],
    );
}

#[test]
fn tabs_are_four_columns_and_carets_stay_aligned() {
    let fixture = Fixture::new(&[("a.ss", "fn f() {\n\tlet y =\tx @ w\n}\n")]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0401"), "inner dims differ")
            .with_primary(fixture.find(0, "x @ w"), "here"),
        expect![[r#"
            error[E0401]: inner dims differ
              --> a.ss:2:10
               |
             2 |     let y =    x @ w
               |                ^^^^^ here
        "#]],
    );
}

#[test]
fn wide_characters_before_and_inside_the_span() {
    let fixture = Fixture::new(&[("a.sx", "(print \"形状\" (matmul 重み 🙂x))\n")]);
    check(
        &fixture,
        Diagnostic::error(test_code("E-DIM-003"), "a tensor was expected")
            .with_primary(fixture.find(0, "重み"), "a string")
            .with_secondary(fixture.find(0, "🙂x"), ""),
        expect![[r#"
            error[E-DIM-003]: a tensor was expected
              --> a.sx:1:21
               |
             1 | (print "形状" (matmul 重み 🙂x))
               |                       ^^^^ ---
               |                       |
               |                       a string
        "#]],
    );
}

#[test]
fn crlf_files_show_no_carriage_return() {
    let fixture = Fixture::new(&[("win.ss", "dim D = 4\r\ndim E = D / 3\r\n")]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0402"), "`D / 3` is not a whole number")
            .with_primary(fixture.find(0, "D / 3"), "4 / 3"),
        expect![[r#"
            error[E0402]: `D / 3` is not a whole number
              --> win.ss:2:9
               |
             2 | dim E = D / 3
               |         ^^^^^ 4 / 3
        "#]],
    );
}

#[test]
fn crlf_multi_line_span() {
    let fixture = Fixture::new(&[("win.ss", "let y = f(\r\n  x)\r\n")]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0401"), "shapes differ")
            .with_primary(fixture.between(0, "f(", "x)"), ""),
        expect![[r#"
            error[E0401]: shapes differ
              --> win.ss:1:9
               |
             1 |   let y = f(
               |  _________^
             2 | |   x)
               | |____^
        "#]],
    );
}

#[test]
fn no_primary_span_gives_header_and_notes() {
    let fixture = Fixture::new(&[]);
    check(
        &fixture,
        Diagnostic::error(
            test_code("E-IO-001"),
            "cannot read `foo.sx`: No such file or directory",
        )
        .with_note("looked in the current folder"),
        expect![[r#"
            error[E-IO-001]: cannot read `foo.sx`: No such file or directory
            note: looked in the current folder
        "#]],
    );
}

#[test]
fn lines_far_apart_are_separated_by_dots_and_near_ones_shown() {
    let text: String = (1..=14).map(|i| format!("dim D{i} = {i}\n")).collect();
    let fixture = Fixture::new(&[("dims.ss", &text)]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0304"), "dims form a cycle")
            .with_primary(fixture.find(0, "D12 = 12"), "D12 uses D3")
            .with_secondary(fixture.find(0, "D1 = 1"), "D1 uses D12")
            .with_secondary(fixture.find(0, "D3 = 3"), "D3 uses D1"),
        expect![[r#"
            error[E0304]: dims form a cycle
               --> dims.ss:12:5
                |
              1 | dim D1 = 1
                |     ------ D1 uses D12
              2 | dim D2 = 2
              3 | dim D3 = 3
                |     ------ D3 uses D1
            ...
             12 | dim D12 = 12
                |     ^^^^^^^^ D12 uses D3
        "#]],
    );
}

#[test]
fn severity_words() {
    let fixture = Fixture::new(&[("a.ss", "dim D = 4\n")]);
    let span = fixture.find(0, "D");
    let rendered: Vec<String> = [
        Diagnostic::error(test_code("E1"), "e"),
        Diagnostic::warning(test_code("W1"), "w"),
        Diagnostic::hint(test_code("H1"), "h"),
    ]
    .into_iter()
    .map(|d| {
        render_human(
            &fixture.map,
            &d.with_primary(span, ""),
            HumanOptions::default(),
        )
    })
    .map(|text| text.lines().next().unwrap_or_default().to_string())
    .collect();
    expect![[r#"
        [
            "error[E1]: e",
            "warning[W1]: w",
            "hint[H1]: h",
        ]
    "#]]
    .assert_debug_eq(&rendered);
}

#[test]
fn multi_line_notes_and_help_line_up() {
    let fixture = Fixture::new(&[]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0304"), "dims form a cycle")
            .with_note("the chain:\nD = 2 * E\nE = D / 2")
            .with_help("give one of them a number:\n\ndim D = 64"),
        expect![[r#"
            error[E0304]: dims form a cycle
            note: the chain:
                  D = 2 * E
                  E = D / 2
            help: give one of them a number:

                  dim D = 64
        "#]],
    );
}

#[test]
fn several_diagnostics_and_the_summary() {
    let fixture = Fixture::new(&[("a.ss", "dim D = 4\n")]);
    let diags = [
        Diagnostic::error(test_code("E0305"), "not a whole number")
            .with_primary(fixture.find(0, "4"), ""),
        Diagnostic::hint(test_code("H2201"), "unused").with_primary(fixture.find(0, "D"), ""),
        Diagnostic::warning(test_code("W0001"), "odd"),
        Diagnostic::error(test_code("E0306"), "another"),
    ];
    let mut text = render_human_all(&fixture.map, &diags, HumanOptions::default());
    text.push_str(&summary_line(&diags, HumanOptions::default()).unwrap_or_default());
    expect![[r#"
        error[E0305]: not a whole number
          --> a.ss:1:9
           |
         1 | dim D = 4
           |         ^

        hint[H2201]: unused
          --> a.ss:1:5
           |
         1 | dim D = 4
           |     ^

        warning[W0001]: odd

        error[E0306]: another
        error: aborting due to 2 previous errors; 1 warning emitted
    "#]]
    .assert_eq(&text);
    let summaries: Vec<Option<String>> = [&diags[..0], &diags[1..2], &diags[2..3], &diags[3..]]
        .into_iter()
        .map(|d| summary_line(d, HumanOptions::default()))
        .collect();
    expect![[r#"
        [
            None,
            None,
            Some(
                "warning: 1 warning emitted\n",
            ),
            Some(
                "error: aborting due to 1 previous error\n",
            ),
        ]
    "#]]
    .assert_debug_eq(&summaries);
}

#[test]
fn colour_marks_severity_gutter_and_labels() {
    let (fixture, diag) = seed_example();
    let diag = diag
        .with_secondary(fixture.find(0, "(lambda"), "in this function")
        .with_help("transpose `weight`");
    let text =
        render_human(&fixture.map, &diag, HumanOptions { color: true }).replace('\x1b', "\\e");
    expect![[r#"
        \e[1;31merror[E-DIM-001]\e[0m\e[1m: matmul: inner dims differ: [2, 16] x [32, 8]\e[0m
          \e[1;34m-->\e[0m bad-shape.sx:7:15
        \e[1;34m   |\e[0m
        \e[1;34m 7 |\e[0m   (lambda (x) (matmul x weight)))
        \e[1;34m   |\e[0m   \e[1;34m-------\e[0m     \e[1;31m^^^^^^^^^^^^^^^^^\e[0m
        \e[1;34m   |\e[0m   \e[1;34m|\e[0m
        \e[1;34m   |\e[0m   \e[1;34min this function\e[0m
        \e[1mnote:\e[0m operands: `x` [2, 16] f32, `weight` [32, 8] f32
        \e[1;36mhelp:\e[0m transpose `weight`
    "#]]
    .assert_eq(&text);
    let plain = render_human(&fixture.map, &diag, HumanOptions { color: false });
    assert!(!plain.contains('\x1b'));
}

#[test]
fn no_color_wins_over_a_terminal() {
    // The only test touching the environment; the variable is read, never written,
    // so it cannot race other tests.
    let set = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    assert_eq!(color_wanted(true), !set);
    assert!(!color_wanted(false));
}

#[test]
fn spans_past_the_end_or_inside_a_char_do_not_panic() {
    let fixture = Fixture::new(&[("a.ss", "é\n"), ("b.ss", "")]);
    check(
        &fixture,
        Diagnostic::error(test_code("E0101"), "odd spans")
            .with_primary(Span::new(FileId(0), 1, 99), "inside é")
            .with_secondary(Span::new(FileId(1), 0, 5), "empty file"),
        expect![[r#"
            error[E0101]: odd spans
              --> a.ss:1:1
               |
             1 | é
               | ^ inside é
               |
              ::: b.ss:1:1
               |
             1 |
               | - empty file
        "#]],
    );
}

#[test]
fn every_span_of_awkward_texts_renders_cleanly() {
    let texts = [
        "",
        "\n",
        "a",
        "ab\r\ncd\r\n",
        "\tx\t\n\n\ny",
        "形🙂é\nz\n",
        "a\rb\n",
        "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\n",
    ];
    for text in texts {
        let fixture = Fixture::new(&[("t.ss", text), ("u.ss", "other\n")]);
        let len = text.len() as u32;
        for start in 0..=len + 1 {
            for end in start..=len + 2 {
                let span = Span::new(FileId(0), start, end);
                let diag = Diagnostic::warning(test_code("W1"), "m")
                    .with_primary(span, "label")
                    .with_secondary(Span::new(FileId(0), end / 2, end), "half")
                    .with_secondary(Span::new(FileId(1), 1, 3), "");
                let rendered = render_human(&fixture.map, &diag, HumanOptions::default());
                for line in rendered.lines() {
                    assert_eq!(
                        line,
                        line.trim_end(),
                        "{text:?} {start}..{end}:\n{rendered}"
                    );
                }
                assert!(
                    !rendered.contains('\r'),
                    "{text:?} {start}..{end}:\n{rendered}"
                );
                assert!(
                    rendered.contains('^'),
                    "{text:?} {start}..{end}:\n{rendered}"
                );
            }
        }
    }
}

#[test]
fn span_ending_at_a_line_start_ends_on_the_line_before() {
    let fixture = Fixture::new(&[("a.ss", "let x = (\n  1)\nnext\n")]);
    let open = fixture.find(0, "(");
    let through_newline = Span::new(FileId(0), open.start, fixture.find(0, "next").start);
    check(
        &fixture,
        Diagnostic::error(test_code("E0101"), "odd")
            .with_primary(through_newline, "to the end of line 2"),
        expect![[r#"
            error[E0101]: odd
              --> a.ss:1:9
               |
             1 |   let x = (
               |  _________^
             2 | |   1)
               | |_____^ to the end of line 2
        "#]],
    );
}
