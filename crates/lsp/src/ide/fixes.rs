//! Quick fixes: the checker's `help:` lines that say exactly what to write
//! instead of the mistake's primary text, as edits. Two shapes are
//! mechanical: a did-you-mean (`a function with a similar name exists:
//! `double``) replaces the misspelt name, and a `write `X`` whose `X` is
//! the primary text with its spaces taken out (`write `16gh`, touching`)
//! replaces it. Other help lines need a person and give no fix.

use diag::{Diagnostic, FileId};

use super::navigation::TextEdit;
use super::Analysis;

/// One fix of one diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub edit: TextEdit,
}

impl Analysis {
    /// The fixes of `file`'s diagnostics whose primary span touches `from..to`,
    /// each with its diagnostic.
    pub fn fixes(&self, file: FileId, from: u32, to: u32) -> Vec<(&Diagnostic, Fix)> {
        let mut out = Vec::new();
        for diagnostic in self.diagnostics(file) {
            let Some(primary) = &diagnostic.primary else {
                continue;
            };
            if primary.span.end < from || primary.span.start > to {
                continue;
            }
            let written = self.text(primary.span);
            for help in &diagnostic.help {
                if let Some(new_text) = replacement(written, help) {
                    let title = format!("Replace `{written}` with `{new_text}`");
                    let edit = TextEdit {
                        span: primary.span,
                        new_text,
                    };
                    out.push((diagnostic, Fix { title, edit }));
                }
            }
        }
        out
    }
}

/// What `help` says to write instead of `written`, when that is mechanical.
fn replacement(written: &str, help: &str) -> Option<String> {
    if let Some((_, rest)) = help.split_once("with a similar name exists: `") {
        let name = rest.strip_suffix('`')?;
        let is_name = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        };
        return (is_name(name) && is_name(written)).then(|| name.to_string());
    }
    let rest = help.strip_prefix("write `")?;
    let (code, _) = rest.split_once('`')?;
    let squeezed: String = written.split_whitespace().collect();
    (code == squeezed && code != written).then(|| code.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::tests::analysis;
    use super::*;
    use expect_test::{expect, Expect};

    /// Every fix of the file, as `code: title @ start-end`.
    fn check(text: &str, expect: Expect) {
        let (analysis, file, _) = analysis(&[("/p/main.ss", text)]);
        let lines: Vec<String> = analysis
            .fixes(file, 0, text.len() as u32)
            .iter()
            .map(|(d, fix)| {
                let span = fix.edit.span;
                format!("{}: {} @ {}-{}", d.code.id, fix.title, span.start, span.end)
            })
            .collect();
        expect.assert_eq(&lines.join("\n"));
    }

    #[test]
    fn did_you_mean_replaces_the_misspelt_name() {
        check(
            "fn double(x: [n]) -> [n] = x + x\nfn f(inputs: [n]) -> [n] = doubel(input)\nfn g(x: [n]) -> [n] = zzzzzz(x)\n",
            expect![[r#"
                E0301: Replace `doubel` with `double` @ 60-66
                E0301: Replace `input` with `inputs` @ 67-72"#]],
        );
    }

    #[test]
    fn misspelt_fields_methods_and_keywords_are_fixed() {
        check(
            "record S {\n  mean: [n]\n}\nmodel M {\n  bias: [4]\n  fn forward(self, x: [4]) -> [4] = x + self.bais\n  fn go(self, x: [4]) -> [4] = self.froward(x)\n}\nfn f(m: [n]) -> S = S(maen=m)\n",
            expect![[r#"
                E0409: Replace `bais` with `bias` @ 92-96
                E0409: Replace `froward` with `forward` @ 133-140
                E0407: Replace `maen` with `mean` @ 168-172"#]],
        );
    }

    #[test]
    fn only_help_that_says_what_to_write_instead_is_a_fix() {
        assert_eq!(
            replacement(
                "16 gh",
                "write `16gh`, touching, for one axis of size 16 × gh"
            ),
            Some("16gh".to_string())
        );
        assert_eq!(
            replacement("forward", "write `fn forward(self, ...)`"),
            None
        );
        assert_eq!(
            replacement("x", "a value with a similar name exists: `a b`"),
            None
        );
    }
}
