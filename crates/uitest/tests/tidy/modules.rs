//! The module-cycle rule: at every level of a crate's module tree, sibling
//! modules must not refer to each other in a cycle through `crate::`,
//! `super::` and `self::` paths, so every level reads as layers and a module
//! can be understood, and moved, with only the modules below it in mind.
//! Test code does not count. A reference from a module to an item of its own
//! ancestor (`super::helper`) is no edge between siblings, even when that
//! ancestor re-exports it from a sibling.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::lex::{
    child_module_dir, code_only, is_ident_byte, line_of, without_test_code, word_starts,
};

/// One module of a crate, held in a file of its own.
pub struct Module {
    /// Names from the crate root: `[]` is the root, `["body", "call"]` is `crate::body::call`.
    pub path: Vec<String>,
    pub file: PathBuf,
    /// The file's code only (see [`code_only`]), its test code blanked.
    pub code: String,
}

/// The modules of the crate whose root file is `root`, found by following
/// `mod name;` declarations outside test code to `name.rs` or `name/mod.rs`
/// beside the declaring module's children. `read` gives a file's text. An
/// inline `mod name { .. }` counts as part of its file (the workspace's only
/// inline modules are test modules).
pub fn crate_modules(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Vec<Module> {
    let mut modules = Vec::new();
    let mut pending = vec![(Vec::new(), root.to_path_buf())];
    while let Some((path, file)) = pending.pop() {
        let Some(text) = read(&file) else {
            continue;
        };
        let code = without_test_code(&code_only(&text));
        let dir = child_module_dir(&file);
        for name in declared_modules(&code) {
            let flat = dir.join(format!("{name}.rs"));
            let child = if read(&flat).is_some() {
                flat
            } else {
                dir.join(&name).join("mod.rs")
            };
            pending.push(([path.clone(), vec![name]].concat(), child));
        }
        modules.push(Module { path, file, code });
    }
    modules.sort_by(|a, b| a.path.cmp(&b.path));
    modules
}

/// The names of `mod name;` declarations in `code`.
fn declared_modules(code: &str) -> Vec<String> {
    word_starts(code, "mod")
        .filter_map(|start| {
            let mut parser = Parser::new(code, start + "mod".len());
            let name = parser.ident()?;
            parser.eat(";").then_some(name)
        })
        .collect()
}

/// A `crate::`, `super::` or `self::` path: its segments as written
/// (`["super", "callee", "Callee"]`) and the offset of its last one.
#[derive(Debug)]
struct Reference {
    segments: Vec<String>,
    offset: usize,
}

/// Every path in `code` that starts at `crate`, `super` or `self`; a
/// `use crate::{a, b::{c, d}}` group gives one path per name.
fn references(code: &str) -> Vec<Reference> {
    let mut out = Vec::new();
    for word in ["crate", "super", "self"] {
        for start in word_starts(code, word) {
            Parser::new(code, start).path(Vec::new(), &mut out);
        }
    }
    out.sort_by_key(|r| r.offset);
    out
}

/// A cursor over code-only text.
struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Parser<'a> {
    fn new(code: &'a str, at: usize) -> Parser<'a> {
        Parser {
            bytes: code.as_bytes(),
            at,
        }
    }

    fn skip_space(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    /// Consumes `token` (after any whitespace) if it comes next.
    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        let found = self.bytes[self.at..].starts_with(token.as_bytes());
        if found {
            self.at += token.len();
        }
        found
    }

    fn ident(&mut self) -> Option<String> {
        self.skip_space();
        let start = self.at;
        while self.bytes.get(self.at).copied().is_some_and(is_ident_byte) {
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.bytes[start..self.at]).into())
    }

    /// Reads the rest of a path after `segments`, pushing each whole path
    /// (one per name of a `{..}` group; `self` in a group is the prefix).
    fn path(&mut self, mut segments: Vec<String>, out: &mut Vec<Reference>) {
        loop {
            self.skip_space();
            let offset = self.at;
            if self.eat("{") {
                loop {
                    self.path(segments.clone(), out);
                    if self.eat("as") {
                        self.ident();
                    }
                    if !self.eat(",") {
                        return;
                    }
                }
            }
            let name = if self.eat("*") { None } else { self.ident() };
            match name {
                Some(name) if name != "self" || segments.is_empty() => segments.push(name),
                _ => {}
            }
            if !self.eat("::") {
                if !segments.is_empty() {
                    out.push(Reference { segments, offset });
                }
                return;
            }
        }
    }
}

/// The module a path written in module `from` lands in: the longest module
/// path its segments spell after `crate`, `self` and `super`s, or `None` when
/// it does not start at one of those.
fn target(
    from: &[String],
    segments: &[String],
    known: &BTreeSet<&[String]>,
) -> Option<Vec<String>> {
    let mut rest = segments.iter().peekable();
    let mut base = match rest.next()?.as_str() {
        "crate" => Vec::new(),
        "self" => from.to_vec(),
        "super" => from[..from.len().checked_sub(1)?].to_vec(),
        _ => return None,
    };
    while rest.next_if(|s| *s == "super").is_some() {
        base.pop()?;
    }
    for name in rest {
        base.push(name.clone());
        if !known.contains(base.as_slice()) {
            base.pop();
            break;
        }
    }
    Some(base)
}

/// Two sibling modules, named by their parent (`level`) and their own names.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    level: Vec<String>,
    from: String,
    to: String,
}

/// Every edge between siblings, with the first reference that draws it
/// (the module's index and the line).
fn sibling_edges(modules: &[Module]) -> BTreeMap<Edge, (usize, usize)> {
    let known: BTreeSet<&[String]> = modules.iter().map(|m| m.path.as_slice()).collect();
    let mut edges = BTreeMap::new();
    for (index, module) in modules.iter().enumerate() {
        for reference in references(&module.code) {
            let Some(to) = target(&module.path, &reference.segments, &known) else {
                continue;
            };
            let common = module
                .path
                .iter()
                .zip(&to)
                .take_while(|(a, b)| a == b)
                .count();
            // The module itself, one of its ancestors or one of its descendants.
            if common == module.path.len() || common == to.len() {
                continue;
            }
            let edge = Edge {
                level: module.path[..common].to_vec(),
                from: module.path[common].clone(),
                to: to[common].clone(),
            };
            let line = line_of(&module.code, reference.offset);
            edges.entry(edge).or_insert((index, line));
        }
    }
    edges
}

/// One report per cycle (strongly connected set of siblings) among
/// `modules`, naming the modules and, for every edge inside it, the first
/// `file:line` that draws it. `root` (the crate's root file) opens each
/// report; `shown` says how to print a file.
pub fn cycles(modules: &[Module], root: &str, shown: &dyn Fn(&Path) -> String) -> Vec<String> {
    let edges = sibling_edges(modules);
    let mut levels: BTreeMap<&[String], BTreeMap<&str, BTreeSet<&str>>> = BTreeMap::new();
    for edge in edges.keys() {
        let graph = levels.entry(&edge.level).or_default();
        graph.entry(&edge.from).or_default().insert(&edge.to);
    }
    let mut reports = Vec::new();
    for (level, graph) in levels {
        for members in strongly_connected(&graph) {
            let parent = ["crate".to_string()]
                .iter()
                .chain(level)
                .cloned()
                .collect::<Vec<_>>()
                .join("::");
            let mut report = format!(
                "{root}: the modules {} of `{parent}` refer to each other in a cycle:",
                members
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            for (edge, &(index, line)) in &edges {
                if edge.level == level
                    && members.contains(edge.from.as_str())
                    && members.contains(edge.to.as_str())
                {
                    let file = shown(&modules[index].file);
                    report.push_str(&format!(
                        "\n    {} -> {}: {file}:{line}",
                        edge.from, edge.to
                    ));
                }
            }
            reports.push(report);
        }
    }
    reports
}

/// The strongly connected sets of more than one node: nodes that reach each other.
fn strongly_connected<'a>(
    graph: &BTreeMap<&'a str, BTreeSet<&'a str>>,
) -> BTreeSet<BTreeSet<&'a str>> {
    let reach = |from: &'a str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(node) = stack.pop() {
            for &next in graph.get(node).into_iter().flatten() {
                if seen.insert(next) {
                    stack.push(next);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<&str>> = graph.keys().map(|&n| (n, reach(n))).collect();
    reaches
        .iter()
        .filter(|(node, reached)| reached.contains(*node))
        .map(|(&node, reached)| {
            reached
                .iter()
                .copied()
                .filter(|other| reaches.get(other).is_some_and(|r| r.contains(node)))
                .collect()
        })
        .collect()
}

/// Finds the cycles of a crate written as `//- path` sections, the first
/// being the crate root, and compares the reports.
fn check(text: &str, expect: expect_test::Expect) {
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for line in text.lines() {
        match line.strip_prefix("//- ") {
            Some(path) => files.push((PathBuf::from(path), String::new())),
            None => {
                let (_, body) = files
                    .last_mut()
                    .expect("text starts with a `//- path` line");
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    let read = |p: &Path| files.iter().find(|(f, _)| f == p).map(|(_, t)| t.clone());
    let modules = crate_modules(&files[0].0, &read);
    expect.assert_eq(&cycles(&modules, "x", &|p| p.display().to_string()).join("\n"));
}

#[test]
fn a_cycle_between_siblings_is_reported_with_a_line_per_edge() {
    check(
        "//- lib.rs\nmod a;\nmod b;\nmod c;\n\
         //- a.rs\nuse crate::b::Thing;\n\
         //- b.rs\nfn f() {\n    crate::c::g();\n}\n\
         //- c.rs\npub fn g() { super::a::h() }\n",
        expect_test::expect![[r#"
            x: the modules `a`, `b`, `c` of `crate` refer to each other in a cycle:
                a -> b: a.rs:1
                b -> c: b.rs:2
                c -> a: c.rs:1"#]],
    );
}

#[test]
fn references_to_an_ancestor_and_from_test_code_are_no_edges() {
    check(
        "//- lib.rs\nmod a;\nmod b;\npub use a::X;\n\
         //- a.rs\nmod inner;\npub struct X;\nuse crate::b;\n\
         //- a/inner.rs\nuse super::X;\nuse crate::X as Y;\nuse super::super::a::X as Z;\n\
         //- b.rs\nuse crate::X;\n#[cfg(test)]\nmod tests {\n    use crate::a::X;\n}\n",
        expect_test::expect![""],
    );
}

#[test]
fn use_groups_and_nested_modules_draw_edges_at_their_level() {
    check(
        "//- lib.rs\nmod body;\nmod model;\n\
         //- body/mod.rs\nmod call;\nmod callee;\n\
         //- body/call.rs\nuse crate::{\n    model::Model,\n    body::{self, callee::Callee},\n};\n\
         //- body/callee.rs\nuse self::super::call as c;\nuse super::{call::{self, x}};\n\
         //- model.rs\nfn f() { crate::body::check(); }\n",
        expect_test::expect![[r#"
            x: the modules `body`, `model` of `crate` refer to each other in a cycle:
                body -> model: body/call.rs:2
                model -> body: model.rs:1
            x: the modules `call`, `callee` of `crate::body` refer to each other in a cycle:
                call -> callee: body/call.rs:3
                callee -> call: body/callee.rs:1"#]],
    );
}
