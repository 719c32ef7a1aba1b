//! Python names: escapes ShapeScript names that would clash with Python
//! keywords, builtins or the names the emitted code itself uses. Never
//! invents names for anything else.

/// Python keywords, soft keywords included so the output reads plainly.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "case", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
    "import", "in", "is", "lambda", "match", "nonlocal", "not", "or", "pass", "raise", "return",
    "try", "type", "while", "with", "yield", "_",
];

/// Builtins a generated name could hide, and the module names the emitted
/// code refers to.
const TAKEN: &[&str] = &[
    "abs",
    "all",
    "any",
    "bool",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "filter",
    "float",
    "format",
    "getattr",
    "hasattr",
    "hash",
    "id",
    "input",
    "int",
    "isinstance",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "object",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "str",
    "sum",
    "super",
    "tuple",
    "vars",
    "zip",
    "torch",
    "dataclasses",
    "shapescript_runtime",
    "self",
    "__name__",
    "__file__",
    "__doc__",
];

/// The Python spelling of a ShapeScript name: the name itself, or the name
/// with `_` appended where it would clash (`lambda` -> `lambda_`,
/// `sum` -> `sum_`). Names starting with `_` are left alone only if they
/// cannot collide with the generator's own temporaries (`_t1`).
pub fn py_name(name: &str) -> String {
    if KEYWORDS.contains(&name) || TAKEN.contains(&name) || is_temporary(name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

/// The generator's temporaries are `_t` followed by digits.
fn is_temporary(name: &str) -> bool {
    name.strip_prefix("_t")
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
}

/// The Python module name for a `.ss` file's stem.
pub fn module_name(stem: &str) -> String {
    let mut out: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    py_name(&out)
}

/// The torch dtype a ShapeScript dtype names.
pub fn torch_dtype(d: syntax::ast::DtypeKind) -> &'static str {
    use syntax::ast::DtypeKind;
    match d {
        DtypeKind::F64 => "torch.float64",
        DtypeKind::F32 => "torch.float32",
        DtypeKind::F16 => "torch.float16",
        DtypeKind::Bf16 => "torch.bfloat16",
        DtypeKind::I64 => "torch.int64",
        DtypeKind::I32 => "torch.int32",
        DtypeKind::Bool => "torch.bool",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(names: &[&str], expect: Expect) {
        let out: Vec<String> = names.iter().map(|n| py_name(n)).collect();
        expect.assert_eq(&out.join(" "));
    }

    #[test]
    fn keywords_builtins_and_temporaries_are_escaped() {
        check(
            &["x", "lambda", "sum", "torch", "_t1", "_tx", "match", "D"],
            expect!["x lambda_ sum_ torch_ _t1_ _tx match_ D"],
        );
    }

    #[test]
    fn module_names_are_identifiers() {
        let out = [
            module_name("vit"),
            module_name("my-model"),
            module_name("class"),
        ];
        expect!["vit my_model class_"].assert_eq(&out.join(" "));
    }
}
