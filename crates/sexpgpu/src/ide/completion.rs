//! Completion of the names in scope (locals, the file's definitions, the
//! operations, special forms, builtins and `nn/` names, each with its
//! signature and doc line) and of keywords, and signature help for the call
//! being written, from the same signatures.

use super::forms::{enclosing_call, DefKind};
use super::names::{NameKind, Names};
use super::Analysis;

/// One completion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    /// How it is called, or what it is.
    pub detail: String,
    pub doc: String,
}

/// What a completion is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Local,
    Function,
    Value,
    Operation,
    Special,
    Builtin,
    Keyword,
}

/// The signature of the call being written, and its parameters as byte
/// ranges of `label`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHelp {
    pub label: String,
    pub parameters: Vec<(u32, u32)>,
    pub active: Option<u32>,
    pub doc: String,
}

/// Characters that end a symbol or keyword being typed.
fn ends_word(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '(' | ')' | '[' | ']' | '{' | '}' | '"' | ';' | ',' | '\'' | '`' | '~'
        )
}

impl Analysis {
    /// The completions of the word being typed before `offset`.
    pub fn completions(&self, offset: u32, names: &Names) -> Vec<Completion> {
        let before = self.text.get(..offset as usize).unwrap_or("");
        let start = before.rfind(ends_word).map_or(0, |i| i + 1);
        let prefix = &before[start..];
        let refers_all = self.text.contains(":refer :all");
        let mut out: Vec<Completion> = Vec::new();
        if !prefix.starts_with(':') {
            for def in &self.index.defs {
                let in_scope = def.scope.start <= offset && offset <= def.scope.end;
                if in_scope
                    && def.name.starts_with(prefix)
                    && !out.iter().any(|c| c.label == def.name)
                {
                    out.push(Completion {
                        label: def.name.clone(),
                        kind: match def.kind {
                            DefKind::Local | DefKind::Parameter => CompletionKind::Local,
                            DefKind::Value | DefKind::Run => CompletionKind::Value,
                            _ => CompletionKind::Function,
                        },
                        detail: def
                            .params
                            .clone()
                            .map(|p| format!("({} {p})", def.name))
                            .unwrap_or_default(),
                        doc: def.doc.clone().unwrap_or_default(),
                    });
                }
            }
        }
        for known in names.names.values() {
            let keyword = known.kind == NameKind::Keyword;
            let bare = known.name.strip_prefix("nn/").filter(|_| refers_all);
            let label = if prefix.starts_with(':') != keyword {
                continue;
            } else if known.name.starts_with(prefix) {
                known.name.clone()
            } else if let Some(bare) = bare.filter(|b| b.starts_with(prefix)) {
                bare.to_string()
            } else {
                continue;
            };
            out.push(Completion {
                label,
                kind: match known.kind {
                    NameKind::Operation => CompletionKind::Operation,
                    NameKind::Special => CompletionKind::Special,
                    NameKind::Builtin => CompletionKind::Builtin,
                    NameKind::Library => CompletionKind::Function,
                    NameKind::Keyword => CompletionKind::Keyword,
                },
                detail: known.signature.clone(),
                doc: known.doc.clone(),
            });
        }
        out
    }

    /// The signature of the call around `offset`, with the argument being
    /// written (or the keyword it is the value of) active.
    pub fn signature_help(&self, offset: u32, names: &Names) -> Option<SignatureHelp> {
        let call = enclosing_call(&self.forms, offset)?;
        let here = self.index.top.get(&call.head).map(|&i| &self.index.defs[i]);
        let (label, doc) = match here.filter(|d| d.params.is_some()) {
            Some(def) => {
                let params = def.params.as_deref().unwrap_or("");
                let inner = params
                    .trim_start_matches(['(', '['])
                    .trim_end_matches([')', ']']);
                (
                    format!("({} {inner})", def.name),
                    def.doc.clone().unwrap_or_default(),
                )
            }
            None => {
                let known = names
                    .get(&call.head)
                    .or_else(|| names.get(&format!("nn/{}", call.head)))?;
                (known.signature.clone(), known.doc.clone())
            }
        };
        let parameters = parameters(&label);
        let active = match &call.keyword {
            Some(keyword) => parameters
                .iter()
                .position(|p| p.keyword && p.name == *keyword),
            None => parameters
                .iter()
                .filter(|p| !p.keyword)
                .nth(call.argument)
                .and_then(|p| parameters.iter().position(|q| q.start == p.start)),
        };
        Some(SignatureHelp {
            parameters: parameters.iter().map(|p| (p.start, p.end)).collect(),
            label,
            active: active.map(|a| a as u32),
            doc,
        })
    }
}

/// One parameter of a written signature.
struct Parameter {
    name: String,
    /// Passed as `:name value`.
    keyword: bool,
    start: u32,
    end: u32,
}

/// The parameters of a signature as written, `(name a b & {:keys [c d]})`
/// or `(sum ... :axes :keepdims)`: the positional names before `&`, then
/// the keyword options.
fn parameters(label: &str) -> Vec<Parameter> {
    let mut out = Vec::new();
    let mut after_rest = false;
    // The words and where each is; `:or`'s map of defaults is left out.
    let mut words = Vec::new();
    let mut start = None;
    let (mut braces, mut defaults) = (0usize, None);
    for (i, c) in label.char_indices().chain([(label.len(), ' ')]) {
        let delimiter = c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | '{' | '}');
        if let (true, Some(s)) = (delimiter, start) {
            if defaults.is_none() {
                words.push((s, i));
            }
            start = None;
        } else if !delimiter && start.is_none() {
            start = Some(i);
        }
        match c {
            '{' => braces += 1,
            '}' => {
                braces = braces.saturating_sub(1);
                if defaults == Some(braces) {
                    defaults = None;
                }
            }
            _ => {}
        }
        if c == '{' && words.last().is_some_and(|&(s, e)| &label[s..e] == ":or") {
            defaults = Some(braces - 1);
        }
    }
    // The first word is the function's name.
    for &(s, e) in words.iter().skip(1) {
        let word = &label[s..e];
        let (name, keyword) = match word {
            "&" => {
                after_rest = true;
                continue;
            }
            ":keys" | ":or" | ":as" | "..." => continue,
            _ => match word.strip_prefix(':') {
                Some(name) => (name, true),
                None => (word, after_rest),
            },
        };
        out.push(Parameter {
            name: name.to_string(),
            keyword,
            start: s as u32,
            end: e as u32,
        });
    }
    out
}
