//! One mistake, one diagnostic, for bodies: deleting one token from the
//! example models gives few diagnostics, never a cascade through the
//! bodies. (A deleted token can make two places disagree, such as a
//! signature and its callers, so the bar is two, not one.) Deletions that
//! make a syntax error are left to the parser's own recovery test.

use check::{check_sources, Options};
use diag::SourceMap;

/// Every example model.
const EXAMPLES: &[&str] = &[
    "vit.ss",
    "gpt2.ss",
    "convnet.ss",
    "llama.ss",
    "unet.ss",
    "moe.ss",
];

/// The examples whose one-token deletions are tried. In the others a
/// model's `forward` is called from several places (U-Net's double
/// convolution nine times), so a deletion in its signature is rightly
/// reported at each call.
const DELETED_FROM: &[&str] = &["vit.ss", "gpt2.ss", "convnet.ss"];

fn examples(names: &[&str]) -> Vec<(String, String)> {
    let root = uitest::support::workspace_root().join("examples/shapescript");
    let mut out = Vec::new();
    for &name in names {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        out.push((name.to_string(), text));
    }
    out
}

fn count(name: &str, text: &str) -> (usize, Vec<String>) {
    let mut map = SourceMap::new();
    let checked = check_sources(&mut map, &[(name, text)], &Options::default());
    let shown = checked
        .diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect();
    (checked.diagnostics.len(), shown)
}

#[test]
fn the_examples_check_clean() {
    for (name, text) in examples(EXAMPLES) {
        let (n, shown) = count(&name, &text);
        assert_eq!(n, 0, "{name}: {shown:?}");
    }
}

#[test]
fn deleting_a_token_gives_at_most_two_diagnostics() {
    let mut worst = Vec::new();
    for (name, text) in examples(DELETED_FROM) {
        let tokens: Vec<(usize, usize)> = text
            .char_indices()
            .filter(|(i, c)| {
                !c.is_whitespace() && (*i == 0 || text[..*i].ends_with(char::is_whitespace))
            })
            .map(|(i, _)| {
                let end = text[i..]
                    .find(char::is_whitespace)
                    .map_or(text.len(), |e| i + e);
                (i, end)
            })
            .collect();
        // Every third token keeps the test quick on small machines.
        for &(start, end) in tokens.iter().step_by(3) {
            // Comments are not code: deleting from them proves nothing.
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            if text[line_start..start].contains('#') || text[start..end].starts_with('#') {
                continue;
            }
            let edited = format!("{}{}", &text[..start], &text[end..]);
            let (n, shown) = count(&name, &edited);
            // After a syntax error bodies are not checked: what is left
            // belongs to the parser and the declarations' checks.
            if shown.iter().any(|d| d.starts_with("E01")) {
                continue;
            }
            if n > 2 {
                worst.push(format!(
                    "{name}: deleting `{}` gives {shown:?}",
                    &text[start..end]
                ));
            }
        }
    }
    assert!(worst.is_empty(), "{}", worst.join("\n"));
}
