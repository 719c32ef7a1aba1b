//! Go to definition, find references and rename, all read off the name index.
//! Rename refuses library declarations and names that aren't identifiers;
//! it never edits a library file.

use diag::{FileId, Span};

use super::defs::DefKind;
use super::Analysis;

/// Replace `span` with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub span: Span,
    pub new_text: String,
}

const KEYWORDS: &[&str] = &[
    "import", "dim", "extern", "fn", "model", "record", "let", "return", "if", "else", "for", "in",
    "as", "to", "none", "true", "false", "and", "or", "not",
];

/// Whether `name` can be written as a ShapeScript name.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_') && !KEYWORDS.contains(&name)
}

impl Analysis {
    /// Where the name at `offset` is declared: the declaring name, or the
    /// start of the file an `import` names.
    pub fn definition(&self, file: FileId, offset: u32) -> Option<Span> {
        let occurrence = self.index().occurrence_at(file, offset)?;
        let def = self.index().defs.get(&occurrence.def)?;
        if let DefKind::Import(Some(target)) = def.kind {
            if occurrence.is_decl || occurrence.span != def.span {
                return Some(Span::new(target, 0, 0));
            }
        }
        Some(def.span)
    }

    /// Every place the name at `offset` is written, the declaration included
    /// when `with_declaration`.
    pub fn references(&self, file: FileId, offset: u32, with_declaration: bool) -> Vec<Span> {
        let Some(occurrence) = self.index().occurrence_at(file, offset) else {
            return Vec::new();
        };
        self.index()
            .occurrences_of(occurrence.def)
            .into_iter()
            .filter(|o| with_declaration || !o.is_decl)
            .map(|o| o.span)
            .collect()
    }

    /// The name rename would change at `offset`, or why it can't.
    pub fn prepare_rename(&self, file: FileId, offset: u32) -> Result<Span, String> {
        let occurrence = self
            .index()
            .occurrence_at(file, offset)
            .ok_or("there is no name here to rename")?;
        let def = self
            .index()
            .defs
            .get(&occurrence.def)
            .ok_or("there is no name here to rename")?;
        if self.is_library(def.span.file) {
            return Err(format!(
                "`{}` is declared in the library, which is read-only",
                def.name
            ));
        }
        if matches!(def.kind, DefKind::Import(_)) {
            return Err("an import is named by its file: rename the file instead".into());
        }
        Ok(occurrence.span)
    }

    /// The edits that rename the name at `offset` everywhere to `new_name`.
    pub fn rename(
        &self,
        file: FileId,
        offset: u32,
        new_name: &str,
    ) -> Result<Vec<TextEdit>, String> {
        self.prepare_rename(file, offset)?;
        if !is_identifier(new_name) {
            return Err(format!("`{new_name}` is not a valid name"));
        }
        Ok(self
            .references(file, offset, true)
            .into_iter()
            .map(|span| TextEdit {
                span,
                new_text: new_name.to_string(),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use crate::ide::tests::{analysis, place};
    use expect_test::{expect, Expect};

    fn check_definition(files: &[(&str, &str)], expect: Expect) {
        let (analysis, file, offset) = analysis(files);
        let found = analysis
            .definition(file, offset)
            .map(|s| place(&analysis, s));
        expect.assert_eq(&found.unwrap_or_else(|| "none".into()));
    }

    fn check_references(files: &[(&str, &str)], expect: Expect) {
        let (analysis, file, offset) = analysis(files);
        let found: Vec<String> = analysis
            .references(file, offset, true)
            .into_iter()
            .map(|s| place(&analysis, s))
            .collect();
        expect.assert_eq(&found.join(" "));
    }

    #[test]
    fn locals_and_parameters() {
        check_definition(
            &[("m.ss", "fn f(x: [n]) -> [n] {\n  let y = x\n  y$0\n}\n")],
            expect!["m.ss:2:7"],
        );
        check_definition(
            &[("m.ss", "fn f(x: [n]) -> [n] = x$0\n")],
            expect!["m.ss:1:6"],
        );
    }

    #[test]
    fn generic_axes_dims_and_fields() {
        check_definition(
            &[("m.ss", "fn f(x: [n]) -> [n$0] = x\n")],
            expect!["m.ss:1:10"],
        );
        check_definition(
            &[("m.ss", "dim D = 4\nfn f(x: [D$0]) -> [D] = x\n")],
            expect!["m.ss:1:5"],
        );
        check_definition(
            &[(
                "m.ss",
                "model M {\n  w: [4 4]\n  fn forward(self, x: [n 4]) -> [n 4] = x @ self.w$0\n}\n",
            )],
            expect!["m.ss:2:3"],
        );
        check_definition(
            &[("m.ss", "fn f(x: [b n]) -> [b] = sum$0(x, over=n)\n")],
            expect!["/lib/builtins.ss `sum`"],
        );
    }

    /// The item holding a name is found by a search over the items in
    /// source order: each function's `n` is its own.
    #[test]
    fn a_generic_axis_is_declared_in_its_own_item_among_many() {
        check_definition(
            &[(
                "m.ss",
                "dim D = 4\nfn a(x: [n]) -> [n] = x\nfn b(y: [D], x: [n]) -> [n] = x\n\nfn c(x: [n]) -> [n$0] = x\nfn d(x: [n]) -> [n] = x\n",
            )],
            expect!["m.ss:5:10"],
        );
        check_definition(
            &[(
                "m.ss",
                "fn a(x: [n]) -> [n] = x\nmodel M(n) {\n  fn f(self, x: [m n]) -> [m$0] = x[0]\n}\nfn z(x: [m]) -> [m] = x\n",
            )],
            expect!["m.ss:3:18"],
        );
    }

    /// Names in a field's initialiser: the model's size parameters and dims.
    #[test]
    fn names_in_initialisers() {
        check_definition(
            &[(
                "m.ss",
                "dim K = 3\nmodel Conv(Cin) {\n  w: [Cin K] = normal(std=(2.0 / (Cin$0 * K)) ** 0.5)\n}\n",
            )],
            expect!["m.ss:2:12"],
        );
        check_definition(
            &[(
                "m.ss",
                "dim K = 3\nmodel Conv(Cin) {\n  w: [Cin K] = normal(std=(2.0 / (Cin * K$0)) ** 0.5)\n}\n",
            )],
            expect!["m.ss:1:5"],
        );
    }

    #[test]
    fn methods_keywords_and_other_files_functions() {
        check_definition(
            &[(
                "m.ss",
                "model M {\n  w: [4 4]\n  fn g(self, x: [n 4]) -> [n 4] = x @ self.w\n  fn forward(self, x: [n 4]) -> [n 4] = self.g$0(x)\n}\n",
            )],
            expect!["m.ss:3:6"],
        );
        check_definition(
            &[
                (
                    "app/m.ss",
                    "import vision\nfn f(x: [n]) -> [n] = vision.g$0(y=x)\n",
                ),
                ("app/vision.ss", "fn g(y: [n]) -> [n] = y\n"),
            ],
            expect!["app/vision.ss:1:4"],
        );
        check_definition(
            &[
                (
                    "app/m.ss",
                    "import vision\nfn f(x: [n]) -> [n] = vision.g(y$0=x)\n",
                ),
                ("app/vision.ss", "fn g(y: [n]) -> [n] = y\n"),
            ],
            expect!["app/vision.ss:1:6"],
        );
        check_definition(
            &[(
                "m.ss",
                "record R {\n  a: [n]\n}\nfn f(x: [n]) -> R = R(a$0=x)\n",
            )],
            expect!["m.ss:2:3"],
        );
    }

    #[test]
    fn another_files_alias_and_the_library() {
        check_definition(
            &[
                (
                    "app/m.ss",
                    "import vision\nfn f(x: vision.Images$0) -> [b] = x\n",
                ),
                ("app/vision.ss", "dim Images = [b 3 16gh 16gw]\n"),
            ],
            expect!["app/vision.ss:1:5"],
        );
        check_definition(
            &[("m.ss", "fn f(x: Real) -> Real = gelu$0(x)\n")],
            expect!["/lib/prelude.ss `gelu`"],
        );
        check_definition(
            &[("m.ss", "fn f(x: [n]) -> [n] = softmax$0(x, over=n)\n")],
            expect!["/lib/builtins.ss `softmax`"],
        );
        check_definition(
            &[
                ("app/m.ss", "import vision$0\n"),
                ("app/vision.ss", "dim D = 2\n"),
            ],
            expect!["app/vision.ss:1:1"],
        );
    }

    /// Go to definition from the `nth` (0-based) `needle` of library file
    /// `name`, which the user's `m.ss` loads: `name:line:col` of the target.
    fn check_library_definition(name: &str, needle: &str, nth: usize, expect: Expect) {
        let (analysis, _, _) = analysis(&[("m.ss", "fn f(x: [n]) -> [n] = x\n")]);
        let file = analysis.library_file(name).expect("a library file");
        let text = analysis.map.text(file);
        let (offset, _) = text.match_indices(needle).nth(nth).expect("the needle");
        let found = analysis.definition(file, offset as u32).map(|span| {
            let at = analysis.map.line_col(span.file, span.start);
            format!("{name}:{}:{}", at.line, at.col)
        });
        expect.assert_eq(&found.unwrap_or_else(|| "none".into()));
    }

    #[test]
    fn names_in_the_library_files() {
        // `Din` of `weight` means the one `input` declared (nn.ss's `linear`).
        check_library_definition("nn.ss", "Din", 1, expect!["nn.ss:5:30"]);
        // `builtins.ss`, which no program holds: `Index[n]` of `argmax`.
        check_library_definition(
            "builtins.ss",
            "n] = \"torch.argmax",
            0,
            expect!["builtins.ss:39:30"],
        );
    }

    #[test]
    fn pattern_axes_and_their_keywords() {
        check_definition(
            &[(
                "m.ss",
                "fn f(x: [b n]) -> [b n 4] = repeat(x, [b n] -> [b n r], r$0=4)\n",
            )],
            expect!["m.ss:1:53"],
        );
        check_definition(
            &[(
                "m.ss",
                "fn f(q: [b i d], k: [b j d]) -> [b i j] = einsum(q, k, [b i d], [b j d] -> [b i$0 j])\n",
            )],
            expect!["m.ss:1:59"],
        );
    }

    #[test]
    fn assignments_and_later_uses() {
        let src =
            "fn g(a: [n]) -> [n] = a\nfn f(x: [n]) -> [n] {\n  let y = x\n  y = g(y)\n  y$0\n}\n";
        check_definition(&[("m.ss", src)], expect!["m.ss:3:7"]);
        check_references(
            &[("m.ss", src)],
            expect!["m.ss:3:7 m.ss:4:3 m.ss:4:9 m.ss:5:3"],
        );
    }

    #[test]
    fn names_inside_failing_expressions() {
        // The call fails (`[m]` for `[n]`); its names still resolve.
        let src = "fn g(a: [n], b: [n]) -> [n] = a\nfn f(x: [n], z: [m]) -> [n] = g(x, b=z$0)\n";
        check_definition(&[("m.ss", src)], expect!["m.ss:2:14"]);
        let src = "fn g(a: [n], b: [n]) -> [n] = a\nfn f(x: [n], z: [m]) -> [n] = g(x, b$0=z)\n";
        check_definition(&[("m.ss", src)], expect!["m.ss:1:14"]);
        // A method called with a wrong argument: the receiver's model is known.
        check_definition(
            &[(
                "m.ss",
                "model M {\n  w: [4 4]\n  fn g(self, x: [n 4]) -> [n 4] = x\n  fn forward(self, x: [n 3]) -> [n 4] = self.g$0(x)\n}\n",
            )],
            expect!["m.ss:3:6"],
        );
        // An unknown name: nothing to go to, and no crash.
        check_definition(
            &[("m.ss", "fn f(x: [n]) -> [n] = x + nope$0\n")],
            expect!["none"],
        );
    }

    #[test]
    fn names_in_mistaken_types() {
        // E0310: a function where a type goes.
        check_definition(
            &[("m.ss", "fn g(a: [n]) -> [n] = a\nfn f(x: g$0) -> [n] = x\n")],
            expect!["none"],
        );
        // E0311: a group inside a group, dropped; `b` is first declared by `y`.
        check_definition(
            &[("m.ss", "fn f(x: [(a (b c))], y: [b]) -> [b$0] = y\n")],
            expect!["m.ss:1:26"],
        );
    }

    #[test]
    fn a_generic_axis_known_through_an_alias() {
        check_definition(
            &[("m.ss", "dim Img = [b h w]\nfn f(x: Img) -> [b$0 h w] = x\n")],
            expect!["m.ss:1:12"],
        );
    }

    #[test]
    fn a_file_with_a_syntax_error_elsewhere() {
        let src = "fn f(x: [n]) -> [n] {\n  let y = x\n  y$0\n}\nfn g( -> \n";
        check_definition(&[("m.ss", src)], expect!["m.ss:2:7"]);
        let src = "fn f(x: [b n]) -> [b n 4] = repeat(x, [b n] -> [b n r], r$0=4)\nfn g( -> \n";
        check_definition(&[("m.ss", src)], expect!["m.ss:1:53"]);
    }

    #[test]
    fn references_of_a_dim_span_files() {
        check_references(
            &[
                ("app/m.ss", "import vision\nfn f(x: [vision.D$0]) -> [vision.D] = x\n"),
                ("app/vision.ss", "dim D = 2\nfn g(x: [D]) -> [D] = x\n"),
            ],
            expect!["app/m.ss:2:17 app/m.ss:2:32 app/vision.ss:1:5 app/vision.ss:2:10 app/vision.ss:2:18"],
        );
    }

    #[test]
    fn rename_checks_the_new_name_and_the_library() {
        let (stub, file, offset) = analysis(&[("m.ss", "fn f(x: Real) -> Real = gelu$0(x)\n")]);
        expect!["`gelu` is declared in the library, which is read-only"]
            .assert_eq(&stub.rename(file, offset, "g").unwrap_err());
        let (dim, file, offset) = analysis(&[("m.ss", "dim D$0 = 2\n")]);
        expect!["`let` is not a valid name"]
            .assert_eq(&dim.rename(file, offset, "let").unwrap_err());
        let edits = dim.rename(file, offset, "Width").unwrap_or_default();
        assert_eq!(edits.len(), 1);
    }
}
