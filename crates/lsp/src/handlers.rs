//! LSP requests to `ide` questions and back: reads positions and URIs from
//! the request's JSON, asks the analysis, and writes LSP JSON (ranges in
//! UTF-16 columns, `file://` locations). Owns the server's capabilities.
//! Never keeps state and never touches the disk.

use std::collections::HashMap;

use diag::{FileId, Severity, Span};
use serde_json::{json, Value};

use crate::ide::{Analysis, CompletionKind, DefKind, Symbol};
use crate::line_index::LineIndex;
use crate::uri;

/// Why a request got no result.
pub enum Error {
    UnknownMethod,
    /// The request's parameters didn't make sense.
    Invalid(String),
    /// The request was understood but can't be done (a rename of a stub).
    Refused(String),
}

pub fn capabilities() -> Value {
    json!({
        "positionEncoding": "utf-16",
        "textDocumentSync": { "openClose": true, "change": 2 },
        "hoverProvider": true,
        "definitionProvider": true,
        "referencesProvider": true,
        "renameProvider": { "prepareProvider": true },
        "documentSymbolProvider": true,
        "inlayHintProvider": true,
        "completionProvider": { "triggerCharacters": [".", "="] },
        "signatureHelpProvider": { "triggerCharacters": ["(", ","] },
    })
}

/// Answers one request; `Ok(Value::Null)` when there is nothing to say.
pub fn handle(analysis: &Analysis, method: &str, params: Value) -> Result<Value, Error> {
    match method {
        "textDocument/hover" => {
            let Some((file, offset)) = locate(analysis, &params)? else {
                return Ok(Value::Null);
            };
            Ok(match analysis.hover(file, offset) {
                Some(hover) => json!({
                    "contents": { "kind": "markdown", "value": hover.markdown },
                    "range": range(analysis, hover.span),
                }),
                None => Value::Null,
            })
        }
        "textDocument/definition" => {
            let Some((file, offset)) = locate(analysis, &params)? else {
                return Ok(Value::Null);
            };
            Ok(match analysis.definition(file, offset) {
                Some(span) => location(analysis, span),
                None => Value::Null,
            })
        }
        "textDocument/references" => {
            let Some((file, offset)) = locate(analysis, &params)? else {
                return Ok(Value::Null);
            };
            let with_declaration = params["context"]["includeDeclaration"]
                .as_bool()
                .unwrap_or(true);
            let spans = analysis.references(file, offset, with_declaration);
            let mut positions = Positions::new(analysis);
            Ok(Value::Array(
                spans.into_iter().map(|s| positions.location(s)).collect(),
            ))
        }
        "textDocument/prepareRename" => {
            let Some((file, offset)) = locate(analysis, &params)? else {
                return Ok(Value::Null);
            };
            match analysis.prepare_rename(file, offset) {
                Ok(span) => Ok(range(analysis, span)),
                Err(message) => Err(Error::Refused(message)),
            }
        }
        "textDocument/rename" => {
            let Some((file, offset)) = locate(analysis, &params)? else {
                return Ok(Value::Null);
            };
            let new_name = params["newName"]
                .as_str()
                .ok_or_else(|| Error::Invalid("no `newName`".into()))?;
            let edits = analysis
                .rename(file, offset, new_name)
                .map_err(Error::Refused)?;
            let mut changes = serde_json::Map::new();
            let mut positions = Positions::new(analysis);
            for edit in edits {
                let key = uri::from_path(&analysis.path(edit.span.file));
                let entry = changes
                    .entry(key)
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(list) = entry {
                    list.push(
                        json!({ "range": positions.range(edit.span), "newText": edit.new_text }),
                    );
                }
            }
            Ok(json!({ "changes": changes }))
        }
        "textDocument/documentSymbol" => {
            let Some(file) = document(analysis, &params)? else {
                return Ok(Value::Null);
            };
            let symbols = analysis.document_symbols(file);
            Ok(Value::Array(
                symbols.iter().map(|s| symbol(analysis, s)).collect(),
            ))
        }
        "textDocument/inlayHint" => {
            let Some(file) = document(analysis, &params)? else {
                return Ok(Value::Null);
            };
            let text = analysis.map.text(file);
            let index = LineIndex::new(text);
            let at = |p: &Value| {
                index.offset(
                    p["line"].as_u64().unwrap_or(0) as u32,
                    p["character"].as_u64().unwrap_or(0) as u32,
                ) as u32
            };
            let from = at(&params["range"]["start"]);
            let to = if params["range"].is_null() {
                text.len() as u32
            } else {
                at(&params["range"]["end"])
            };
            let hints = analysis.inlay_hints(file, from, to);
            Ok(Value::Array(
                hints
                    .into_iter()
                    .map(|h| {
                        let (line, character) = index.position(h.offset as usize);
                        json!({
                            "position": { "line": line, "character": character },
                            "label": h.label,
                            "kind": 1,
                            "paddingLeft": false,
                        })
                    })
                    .collect(),
            ))
        }
        "textDocument/completion" => {
            let Some((file, offset)) = locate(analysis, &params)? else {
                return Ok(Value::Null);
            };
            let items: Vec<Value> = analysis
                .completions(file, offset)
                .into_iter()
                .map(|item| {
                    json!({
                        "label": item.label,
                        "kind": completion_kind(item.kind),
                        "detail": item.detail,
                    })
                })
                .collect();
            Ok(json!({ "isIncomplete": false, "items": items }))
        }
        "textDocument/signatureHelp" => {
            let Some((file, offset)) = locate(analysis, &params)? else {
                return Ok(Value::Null);
            };
            Ok(match analysis.signature_help(file, offset) {
                Some(help) => {
                    let params: Vec<Value> = help
                        .params
                        .iter()
                        .map(|(s, e)| json!({ "label": [s, e] }))
                        .collect();
                    let mut signature = json!({ "label": help.label, "parameters": params });
                    if let Some(doc) = help.doc {
                        signature["documentation"] = json!({ "kind": "markdown", "value": doc });
                    }
                    json!({ "signatures": [signature], "activeSignature": 0, "activeParameter": help.active })
                }
                None => Value::Null,
            })
        }
        _ => Err(Error::UnknownMethod),
    }
}

/// The checked file a request's `textDocument` names, if the analysis has it.
fn document(analysis: &Analysis, params: &Value) -> Result<Option<FileId>, Error> {
    let text_uri = params["textDocument"]["uri"]
        .as_str()
        .ok_or_else(|| Error::Invalid("no `textDocument.uri`".into()))?;
    let path = uri::to_path(text_uri)
        .ok_or_else(|| Error::Invalid(format!("`{text_uri}` is not a file URI")))?;
    Ok(analysis.file_id(&path))
}

/// The file and byte offset of a request's `textDocument` and `position`.
fn locate(analysis: &Analysis, params: &Value) -> Result<Option<(FileId, u32)>, Error> {
    let Some(file) = document(analysis, params)? else {
        return Ok(None);
    };
    let position = &params["position"];
    let (Some(line), Some(character)) = (position["line"].as_u64(), position["character"].as_u64())
    else {
        return Err(Error::Invalid("no `position`".into()));
    };
    let index = LineIndex::new(analysis.map.text(file));
    Ok(Some((
        file,
        index.offset(line as u32, character as u32) as u32,
    )))
}

pub fn range(analysis: &Analysis, span: Span) -> Value {
    Positions::new(analysis).range(span)
}

fn location(analysis: &Analysis, span: Span) -> Value {
    Positions::new(analysis).location(span)
}

/// LSP ranges of many spans: each file's line index is built once, not once
/// a span (a line index reads the whole file).
struct Positions<'a> {
    analysis: &'a Analysis,
    indexes: HashMap<FileId, LineIndex<'a>>,
}

impl<'a> Positions<'a> {
    fn new(analysis: &'a Analysis) -> Self {
        Positions {
            analysis,
            indexes: HashMap::new(),
        }
    }

    fn range(&mut self, span: Span) -> Value {
        let analysis = self.analysis;
        let index = self
            .indexes
            .entry(span.file)
            .or_insert_with(|| LineIndex::new(analysis.map.text(span.file)));
        let (sl, sc) = index.position(span.start as usize);
        let (el, ec) = index.position(span.end as usize);
        json!({ "start": { "line": sl, "character": sc }, "end": { "line": el, "character": ec } })
    }

    fn location(&mut self, span: Span) -> Value {
        let uri = uri::from_path(&self.analysis.path(span.file));
        json!({ "uri": uri, "range": self.range(span) })
    }
}

/// The published diagnostics of one file.
pub fn diagnostics(analysis: &Analysis, file: FileId) -> Vec<Value> {
    let mut positions = Positions::new(analysis);
    analysis
        .diagnostics(file)
        .into_iter()
        .filter_map(|d| {
            let primary = d.primary.as_ref()?;
            let mut message = d.message.clone();
            for note in &d.notes {
                message.push_str(&format!("\nnote: {note}"));
            }
            for help in &d.help {
                message.push_str(&format!("\nhelp: {help}"));
            }
            let related: Vec<Value> = d
                .secondary
                .iter()
                .map(|label| json!({ "location": positions.location(label.span), "message": label.message }))
                .collect();
            let severity = match d.severity {
                Severity::Error => 1,
                Severity::Warning => 2,
                Severity::Hint => 4,
            };
            Some(json!({
                "range": positions.range(primary.span),
                "severity": severity,
                "code": d.code.id,
                "source": "shapescript",
                "message": message,
                "relatedInformation": related,
            }))
        })
        .collect()
}

fn symbol(analysis: &Analysis, symbol: &Symbol) -> Value {
    let kind = match symbol.kind {
        DefKind::Dim => 14,                    // Constant
        DefKind::Alias => 26,                  // TypeParameter
        DefKind::Fn | DefKind::ExternFn => 12, // Function
        DefKind::Model => 5,                   // Class
        DefKind::Record => 23,                 // Struct
        DefKind::Import(_) => 2,               // Module
        DefKind::Field => 8,                   // Field
        DefKind::Method => 6,                  // Method
        DefKind::Param | DefKind::Local => 13, // Variable
        DefKind::SizeParam | DefKind::Generic | DefKind::PatternAxis => 26,
    };
    json!({
        "name": symbol.name,
        "detail": symbol.detail,
        "kind": kind,
        "range": range(analysis, symbol.span),
        "selectionRange": range(analysis, symbol.name_span),
        "children": symbol.children.iter().map(|c| self::symbol(analysis, c)).collect::<Vec<_>>(),
    })
}

fn completion_kind(kind: CompletionKind) -> u32 {
    match kind {
        CompletionKind::Keyword => 14,
        CompletionKind::Axis => 12, // Value
        CompletionKind::Def(kind) => match kind {
            DefKind::Dim => 21,                   // Constant
            DefKind::Alias => 25,                 // TypeParameter
            DefKind::Fn | DefKind::ExternFn => 3, // Function
            DefKind::Method => 2,                 // Method
            DefKind::Model => 7,                  // Class
            DefKind::Record => 22,                // Struct
            DefKind::Import(_) => 9,              // Module
            DefKind::Field => 5,                  // Field
            DefKind::Param | DefKind::Local => 6, // Variable
            DefKind::SizeParam | DefKind::Generic | DefKind::PatternAxis => 25,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::tests::analysis;
    use expect_test::{expect, Expect};

    /// The published diagnostics of the first file, one a line: range, code,
    /// then each related location as `line:col-line:col`.
    fn check(files: &[(&str, &str)], expect: Expect) {
        let (analysis, file, _) = analysis(files);
        let at = |range: &Value| {
            format!(
                "{}:{}-{}:{}",
                range["start"]["line"],
                range["start"]["character"],
                range["end"]["line"],
                range["end"]["character"]
            )
        };
        let lines: Vec<String> = diagnostics(&analysis, file)
            .iter()
            .map(|d| {
                let related: Vec<String> = d["relatedInformation"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|r| at(&r["location"]["range"]))
                    .collect();
                format!(
                    "{} {} [{}]",
                    at(&d["range"]),
                    d["code"].as_str().unwrap_or(""),
                    related.join(", ")
                )
            })
            .collect();
        expect.assert_eq(&lines.join("\n"));
    }

    #[test]
    fn many_diagnostics_of_one_file_get_their_own_ranges() {
        check(
            &[(
                "/p/main.ss",
                "dim D = 4\ndim D = 5\nfn f(x: [D]) -> [D] {\n  y\n}\nfn g() -> [D] { z }\n",
            )],
            expect![[r#"
                1:4-1:5 E0203 [0:4-0:5]
                3:2-3:3 E0301 []
                5:16-5:17 E0301 []"#]],
        );
    }
}
