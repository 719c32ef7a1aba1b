//! The editor's answers on small files, one question per test; `|` in a
//! text marks the position asked about.

use super::*;
use crate::eval::Host;
use expect_test::{expect, Expect};
use std::sync::OnceLock;

/// A host that prints nothing and has no files.
struct Quiet;

impl Host for Quiet {
    fn print(&mut self, _: &str) {}
}

fn names() -> &'static Names {
    static NAMES: OnceLock<Names> = OnceLock::new();
    NAMES.get_or_init(|| known_names(Box::new(Quiet)))
}

/// The analysis of `text` without its `|`, and the offset of the `|`.
fn analyse(text: &str) -> (Analysis, u32) {
    let offset = text.find('|').unwrap_or(0) as u32;
    let text = text.replacen('|', "", 1);
    let analysis = Analysis::new("main.sx", &text, &Options::default(), Box::new(Quiet));
    (analysis, offset)
}

fn check_hover(text: &str, expect: Expect) {
    let (analysis, offset) = analyse(text);
    let hover = analysis.hover(offset, names());
    expect.assert_eq(&hover.map_or("no hover".into(), |h| h.markdown));
}

const LINEAR: &str = "(require nn)\n(defgraph lin [(x [8 16] :f32) (w [32 16] :f32)]\n  (let [h (matmul x (transpose w [1 0]))\n        y (nn/relu h)]\n    (sum y :axes [-1])))\n";

#[test]
fn hover_shows_a_tensor_expressions_shape_and_dtype() {
    check_hover(
        &LINEAR.replace("(matmul x", "(matmul |x"),
        expect![[r#"
            tensor `[8, 16] f32`

            ---

            parameter `x`"#]],
    );
    check_hover(
        &LINEAR.replace("(matmul x", "(mat|mul x"),
        expect![[r#"
            tensor `[8, 32] f32`

            ---

            ```sexpgpu
            (matmul ...)
            ```

            matrix product, batched over leading axes"#]],
    );
}

#[test]
fn hover_where_a_name_is_bound_shows_its_values_shape() {
    check_hover(
        &LINEAR.replace("(let [h ", "(let [|h "),
        expect![[r#"
            tensor `[8, 32] f32`

            ---

            local `h`"#]],
    );
    check_hover(
        &LINEAR.replace("[(x [8 16]", "[(|x [8 16]"),
        expect![[r#"
            tensor `[8, 16] f32`

            ---

            parameter `x`"#]],
    );
}

#[test]
fn hover_on_a_library_function_shows_its_parameters_and_doc() {
    check_hover(
        &LINEAR.replace("(nn/relu", "(nn/re|lu"),
        expect![[r#"
            tensor `[8, 32] f32`

            ---

            ```sexpgpu
            (nn/relu x)
            ```

            max(x, 0), with PyTorch's gradient (0 at 0)."#]],
    );
}

#[test]
fn a_function_traced_at_two_widths_shows_both() {
    check_hover(
        "(defn double (t) (* |t 2.0))\n(defgraph g [(a [2] :f32) (b [3] :f32)] [(double a) (double b)])\n",
        expect![[r#"
            tensor, traced 2 ways: `[2] f32`, `[3] f32`

            ---

            parameter `t`"#]],
    );
}

#[test]
fn inlay_hints_at_let_bindings() {
    let (analysis, _) = analyse(LINEAR);
    let hints: Vec<String> = analysis
        .inlay_hints(0, LINEAR.len() as u32)
        .iter()
        .map(|h| {
            format!(
                "{} {}",
                &LINEAR[..h.offset as usize]
                    .rsplit(['[', ' ', '\n'])
                    .next()
                    .unwrap_or(""),
                h.label
            )
        })
        .collect();
    expect![[r#"["h : [8, 32] f32", "y : [8, 32] f32"]"#]].assert_eq(&format!("{hints:?}"));
}

#[test]
fn diagnostics_come_from_reading_and_tracing() {
    let (analysis, _) = analyse("(defgraph g [(x [2 16] :f32) (w [32 8] :f32)]\n  (matmul x w))\n");
    let codes: Vec<&str> = analysis.diagnostics.iter().map(|d| d.code.id).collect();
    assert_eq!(codes, ["E-DIM-001"]);
    let (analysis, _) = analyse("(defn f (x)\n");
    let codes: Vec<&str> = analysis.diagnostics.iter().map(|d| d.code.id).collect();
    assert_eq!(codes, ["E-READ-001"]);
}

#[test]
fn a_loop_without_end_is_stopped_by_the_budget() {
    let text = "(def n (loop [i 0] (recur (inc i))))\n(def after 1)\n(println (+ n after))\n";
    let options = Options {
        evaluate: true,
        max_steps: 100_000,
    };
    let analysis = Analysis::new("main.sx", text, &options, Box::new(Quiet));
    let codes: Vec<&str> = analysis.diagnostics.iter().map(|d| d.code.id).collect();
    assert_eq!(codes, ["E-EVAL-014"], "one diagnostic, later forms quiet");
    assert!(analysis.steps > 100_000);
}

#[test]
fn an_untrusted_file_is_read_but_not_evaluated() {
    let options = Options {
        evaluate: false,
        ..Options::default()
    };
    let analysis = Analysis::new("main.sx", "(println (/ 1 0))\n", &options, Box::new(Quiet));
    assert!(analysis.diagnostics.is_empty());
    assert_eq!(analysis.steps, 0);
}

#[test]
fn definitions_references_and_the_outline() {
    let text = "(defn sq (x) (* x x))\n(def y (sq 3))\n(defn g (a) (let [sq 2] (+ sq a)))\n(println (sq y))\n";
    let (analysis, _) = analyse(text);
    let at = |needle: &str, n: usize| {
        text.match_indices(needle)
            .nth(n)
            .map(|(i, _)| i as u32)
            .unwrap_or(0)
    };
    let show = |span: diag::Span| {
        format!(
            "{}@{}",
            &text[span.start as usize..span.end as usize],
            span.start
        )
    };
    // The third `sq` is a local that shadows the function.
    let found = analysis.definition(at("sq", 2) + 1, names());
    assert_eq!(
        found,
        Some(Location::Here(diag::Span::new(
            analysis.file,
            at("sq", 2),
            at("sq", 2) + 2
        )))
    );
    let refs: Vec<String> = analysis
        .references(at("sq", 1), true)
        .into_iter()
        .map(show)
        .collect();
    expect![[r#"["sq@6", "sq@30", "sq@82"]"#]].assert_eq(&format!("{refs:?}"));
    let outline: Vec<String> = analysis
        .symbols()
        .iter()
        .map(|s| format!("{} {:?}", s.name, s.kind))
        .collect();
    expect![[r#"["sq Function", "y Value", "g Function"]"#]].assert_eq(&format!("{outline:?}"));
    match analysis.definition(at("println", 0), names()) {
        None => {}
        other => panic!("a builtin has no definition to go to: {other:?}"),
    }
}

#[test]
fn library_functions_go_to_their_library_file() {
    let (analysis, offset) = analyse("(require nn)\n(defgraph g [(x [2] :f32)] (nn/so|ftmax x))\n");
    let Some(Location::Library(file, span)) = analysis.definition(offset, names()) else {
        panic!("no library location");
    };
    let text = names()
        .library
        .iter()
        .find(|(f, _)| *f == file)
        .map(|(_, t)| *t)
        .unwrap_or("");
    assert_eq!(
        (file.as_str(), &text[span.start as usize..span.end as usize]),
        ("nn.sx", "softmax")
    );
}

#[test]
fn completion_offers_locals_operations_library_names_and_keywords() {
    let (analysis, offset) =
        analyse("(require nn)\n(defgraph g [(xs [2] :f32)] (let [xy 1] (sum x| :axes [0])))\n");
    let labels: Vec<String> = analysis
        .completions(offset, names())
        .iter()
        .map(|c| c.label.clone())
        .collect();
    assert!(
        labels.contains(&"xs".to_string()) && labels.contains(&"xy".to_string()),
        "{labels:?}"
    );
    let (analysis, offset) = analyse("(require nn)\n(nn/soft|)\n");
    let found: Vec<(String, String)> = analysis
        .completions(offset, names())
        .into_iter()
        .map(|c| (c.label, c.detail))
        .collect();
    expect![[r#"[("nn/softmax", "(nn/softmax x & {:keys [axis] :or {axis -1}})"), ("nn/softmin", "(nn/softmin x & {:keys [axis] :or {axis -1}})"), ("nn/softplus", "(nn/softplus x & {:keys [beta threshold] :or {beta 1.0 threshold 20.0}})"), ("nn/softsign", "(nn/softsign x)")]"#]]
        .assert_eq(&format!("{found:?}"));
    let (analysis, offset) = analyse("(defgraph g [(x [2] :f32)] (sum x :ax|))\n");
    let labels: Vec<String> = analysis
        .completions(offset, names())
        .iter()
        .map(|c| c.label.clone())
        .collect();
    assert_eq!(labels, [":axes", ":axis", ":axis1", ":axis2"]);
}

#[test]
fn signature_help_marks_the_argument_or_keyword_being_written() {
    let check = |text: &str, expect: Expect| {
        let (analysis, offset) = analyse(text);
        let help = analysis.signature_help(offset, names());
        let shown = help.map_or("none".to_string(), |h| {
            let active = h.active.map(|a| h.parameters[a as usize]);
            let param = active.map_or("-", |(s, e)| &h.label[s as usize..e as usize]);
            format!("{} [{param}]", h.label)
        });
        expect.assert_eq(&shown);
    };
    check(
        "(defgraph g [(m [2] :bool) (x [2] :f32)] (where m |x 0.0))\n",
        expect!["(where mask a b) [a]"],
    );
    check(
        "(require nn)\n(defgraph g [(x [2] :f32)] (nn/softmax x :axis |0))\n",
        expect!["(nn/softmax x & {:keys [axis] :or {axis -1}}) [axis]"],
    );
    check("(defn f (a b) a)\n(f 1 |)\n", expect!["(f a b) [b]"]);
}
