//! LSP requests to `ide` questions and back: reads the request's typed
//! `lsp-types` parameters, asks the analysis, and answers with `lsp-types`
//! values (ranges in UTF-16 columns, `file://` locations; an absent optional
//! field is left out of the reply, never `null`). A request may name a
//! library file by its `shapescript-library:` URI as well as by its `file://`
//! one. Owns the server's capabilities and the semantic tokens' legend.
//! Never keeps state and never touches the disk.

use std::collections::HashMap;

use diag::{FileId, Span};
use lsp_base::diagnostics::{diagnostic, Places};
use lsp_types as lsp;
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest,
    InlayHintRequest, PrepareRenameRequest, RangeFormatting, References, Rename, Request,
    SemanticTokensFullRequest, SignatureHelpRequest,
};
use serde_json::Value;

use crate::ide::{Analysis, CompletionKind, DefKind, HighlightKind, Symbol};
use crate::line_index::LineIndex;
use crate::uri;

pub use lsp_base::protocol::Error;
use lsp_base::protocol::{markdown, on};

/// Both servers' capabilities, and renaming, semantic tokens and quick fixes.
pub fn capabilities() -> lsp::ServerCapabilities {
    lsp::ServerCapabilities {
        rename_provider: Some(lsp::OneOf::Right(lsp::RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        semantic_tokens_provider: Some(semantic_tokens_options().into()),
        code_action_provider: Some(lsp::CodeActionProviderCapability::Options(
            lsp::CodeActionOptions {
                code_action_kinds: Some(vec![lsp::CodeActionKind::QUICKFIX]),
                ..Default::default()
            },
        )),
        ..lsp_base::protocol::capabilities(&[".", "="], &["(", ","])
    }
}

/// The semantic token types, in the legend's order: a dim, a generic axis,
/// an unknown size and a shape alias each have a type of their own
/// (`docs/shapescript/editor.md`); the rest are LSP's standard types.
const TOKEN_TYPES: [&str; 13] = [
    "dim",
    "genericAxis",
    "unknownSize",
    "shapeAlias",
    "typeParameter",
    "function",
    "method",
    "class",
    "struct",
    "namespace",
    "parameter",
    "variable",
    "property",
];

/// The semantic token modifiers, in the legend's order (bit 0 first).
const TOKEN_MODIFIERS: [&str; 3] = ["declaration", "defaultLibrary", "readonly"];

fn semantic_tokens_options() -> lsp::SemanticTokensOptions {
    lsp::SemanticTokensOptions {
        legend: lsp::SemanticTokensLegend {
            token_types: TOKEN_TYPES
                .iter()
                .map(|t| lsp::SemanticTokenType::new(t))
                .collect(),
            token_modifiers: TOKEN_MODIFIERS
                .iter()
                .map(|m| lsp::SemanticTokenModifier::new(m))
                .collect(),
        },
        full: Some(lsp::SemanticTokensFullOptions::Bool(true)),
        ..Default::default()
    }
}

/// Answers one request; `Ok(Value::Null)` when there is nothing to say.
pub fn handle(analysis: &Analysis, method: &str, params: Value) -> Result<Value, Error> {
    let a = analysis;
    match method {
        HoverRequest::METHOD => on::<HoverRequest>(params, |p| hover(a, p)),
        GotoDefinition::METHOD => on::<GotoDefinition>(params, |p| definition(a, p)),
        References::METHOD => on::<References>(params, |p| references(a, p)),
        PrepareRenameRequest::METHOD => on::<PrepareRenameRequest>(params, |p| prepare(a, p)),
        Rename::METHOD => on::<Rename>(params, |p| rename(a, p)),
        DocumentSymbolRequest::METHOD => on::<DocumentSymbolRequest>(params, |p| {
            Ok(document(a, &p.text_document.uri)?.map(|file| {
                let symbols = a.document_symbols(file);
                lsp::DocumentSymbolResponse::Nested(symbols.iter().map(|s| symbol(a, s)).collect())
            }))
        }),
        InlayHintRequest::METHOD => on::<InlayHintRequest>(params, |p| inlay_hints(a, p)),
        Completion::METHOD => on::<Completion>(params, |p| completion(a, p)),
        SignatureHelpRequest::METHOD => {
            on::<SignatureHelpRequest>(params, |p| signature_help(a, p))
        }
        SemanticTokensFullRequest::METHOD => {
            on::<SemanticTokensFullRequest>(params, |p| semantic_tokens(a, p))
        }
        CodeActionRequest::METHOD => on::<CodeActionRequest>(params, |p| code_actions(a, p)),
        Formatting::METHOD => on::<Formatting>(params, |p| formatting(a, &p.text_document, None)),
        RangeFormatting::METHOD => {
            on::<RangeFormatting>(params, |p| formatting(a, &p.text_document, Some(p.range)))
        }
        _ => Err(Error::UnknownMethod),
    }
}

/// A request's answer: `None` when there is nothing to say.
type Answer<T> = Result<Option<T>, Error>;

fn hover(analysis: &Analysis, params: lsp::HoverParams) -> Answer<lsp::Hover> {
    let Some((file, offset)) = locate(analysis, &params.text_document_position_params)? else {
        return Ok(None);
    };
    let Some(hover) = analysis.hover(file, offset) else {
        return Ok(None);
    };
    Ok(Some(lsp::Hover {
        contents: lsp::HoverContents::Markup(markdown(hover.markdown)),
        range: Some(range(analysis, hover.span)),
    }))
}

fn definition(
    analysis: &Analysis,
    params: lsp::GotoDefinitionParams,
) -> Answer<lsp::GotoDefinitionResponse> {
    let Some((file, offset)) = locate(analysis, &params.text_document_position_params)? else {
        return Ok(None);
    };
    let span = analysis.definition(file, offset);
    Ok(span
        .map(|span| lsp::GotoDefinitionResponse::Scalar(Positions::new(analysis).location(span))))
}

fn references(analysis: &Analysis, params: lsp::ReferenceParams) -> Answer<Vec<lsp::Location>> {
    let Some((file, offset)) = locate(analysis, &params.text_document_position)? else {
        return Ok(None);
    };
    let with_declaration = params.context.include_declaration;
    let spans = analysis.references(file, offset, with_declaration);
    let mut positions = Positions::new(analysis);
    Ok(Some(
        spans.into_iter().map(|s| positions.location(s)).collect(),
    ))
}

fn prepare(
    analysis: &Analysis,
    params: lsp::TextDocumentPositionParams,
) -> Answer<lsp::PrepareRenameResponse> {
    let Some((file, offset)) = locate(analysis, &params)? else {
        return Ok(None);
    };
    match analysis.prepare_rename(file, offset) {
        Ok(span) => Ok(Some(lsp::PrepareRenameResponse::Range(range(
            analysis, span,
        )))),
        Err(message) => Err(Error::Refused(message)),
    }
}

// `lsp::Uri` caches its parse in a `Cell`, which clippy counts as a mutable
// key; `WorkspaceEdit::changes` is keyed by it all the same, and the cache
// never changes its hash.
#[allow(clippy::mutable_key_type)]
fn rename(analysis: &Analysis, params: lsp::RenameParams) -> Answer<lsp::WorkspaceEdit> {
    let Some((file, offset)) = locate(analysis, &params.text_document_position)? else {
        return Ok(None);
    };
    let edits = analysis
        .rename(file, offset, &params.new_name)
        .map_err(Error::Refused)?;
    let mut changes: HashMap<lsp::Uri, Vec<lsp::TextEdit>> = HashMap::new();
    let mut positions = Positions::new(analysis);
    for edit in edits {
        let key = file_uri(&analysis.path(edit.span.file));
        changes.entry(key).or_default().push(lsp::TextEdit {
            range: positions.range(edit.span),
            new_text: edit.new_text,
        });
    }
    Ok(Some(lsp::WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    }))
}

fn inlay_hints(analysis: &Analysis, params: lsp::InlayHintParams) -> Answer<Vec<lsp::InlayHint>> {
    let Some(file) = document(analysis, &params.text_document.uri)? else {
        return Ok(None);
    };
    let index = LineIndex::new(analysis.map.text(file));
    let at = |p: lsp::Position| index.offset(p.line, p.character) as u32;
    let hints = analysis.inlay_hints(file, at(params.range.start), at(params.range.end));
    let hints = hints
        .into_iter()
        .map(|h| lsp_base::protocol::type_hint(&index, h.offset, h.label));
    Ok(Some(hints.collect()))
}

fn completion(
    analysis: &Analysis,
    params: lsp::CompletionParams,
) -> Answer<lsp::CompletionResponse> {
    let Some((file, offset)) = locate(analysis, &params.text_document_position)? else {
        return Ok(None);
    };
    let items = analysis
        .completions(file, offset)
        .into_iter()
        .map(|item| lsp::CompletionItem {
            label: item.label,
            kind: Some(completion_kind(item.kind)),
            detail: item.detail,
            ..Default::default()
        });
    Ok(Some(lsp::CompletionResponse::List(lsp::CompletionList {
        is_incomplete: false,
        items: items.collect(),
    })))
}

fn signature_help(
    analysis: &Analysis,
    params: lsp::SignatureHelpParams,
) -> Answer<lsp::SignatureHelp> {
    let Some((file, offset)) = locate(analysis, &params.text_document_position_params)? else {
        return Ok(None);
    };
    let Some(help) = analysis.signature_help(file, offset) else {
        return Ok(None);
    };
    Ok(Some(lsp_base::protocol::signature_help(
        help.label,
        &help.params,
        help.active,
        help.doc,
    )))
}

fn semantic_tokens(
    analysis: &Analysis,
    params: lsp::SemanticTokensParams,
) -> Answer<lsp::SemanticTokensResult> {
    let Some(file) = document(analysis, &params.text_document.uri)? else {
        return Ok(None);
    };
    let index = LineIndex::new(analysis.map.text(file));
    let mut data = Vec::new();
    let (mut last_line, mut last_start) = (0, 0);
    for highlight in analysis.highlights(file) {
        let (line, start) = index.position(highlight.span.start as usize);
        let (end_line, end) = index.position(highlight.span.end as usize);
        if end_line != line {
            continue;
        }
        let modifiers = [
            highlight.is_decl,
            highlight.from_library,
            highlight.kind == HighlightKind::Dim,
        ];
        let bits = modifiers
            .iter()
            .enumerate()
            .filter(|(_, on)| **on)
            .fold(0, |bits, (i, _)| bits | 1 << i);
        data.push(lsp::SemanticToken {
            delta_line: line - last_line,
            delta_start: if line == last_line {
                start - last_start
            } else {
                start
            },
            length: end - start,
            token_type: token_type(highlight.kind),
            token_modifiers_bitset: bits,
        });
        (last_line, last_start) = (line, start);
    }
    Ok(Some(lsp::SemanticTokensResult::Tokens(
        lsp::SemanticTokens {
            result_id: None,
            data,
        },
    )))
}

/// The index of a highlight's type in `TOKEN_TYPES`.
fn token_type(kind: HighlightKind) -> u32 {
    let name = match kind {
        HighlightKind::Dim => "dim",
        HighlightKind::GenericAxis => "genericAxis",
        HighlightKind::UnknownSize => "unknownSize",
        HighlightKind::Alias => "shapeAlias",
        HighlightKind::PatternAxis => "typeParameter",
        HighlightKind::Function => "function",
        HighlightKind::Method => "method",
        HighlightKind::Model => "class",
        HighlightKind::Record => "struct",
        HighlightKind::Module => "namespace",
        HighlightKind::Parameter => "parameter",
        HighlightKind::Variable => "variable",
        HighlightKind::Field => "property",
    };
    TOKEN_TYPES.iter().position(|t| *t == name).unwrap_or(0) as u32
}

/// Quick fixes for the diagnostics in the request's range: the checker's
/// mechanical `help:` suggestions (`ide/fixes.rs`), each as a preferred
/// `quickfix` with the diagnostic it fixes.
// `WorkspaceEdit::changes` is keyed by `lsp::Uri`, as in `rename`.
#[allow(clippy::mutable_key_type)]
fn code_actions(
    analysis: &Analysis,
    params: lsp::CodeActionParams,
) -> Answer<lsp::CodeActionResponse> {
    let Some(file) = document(analysis, &params.text_document.uri)? else {
        return Ok(None);
    };
    let wanted = params.context.only.as_ref().is_none_or(|only| {
        only.iter().any(|kind| {
            lsp::CodeActionKind::QUICKFIX
                .as_str()
                .starts_with(kind.as_str())
        })
    });
    if !wanted {
        return Ok(Some(Vec::new()));
    }
    let index = LineIndex::new(analysis.map.text(file));
    let at = |p: lsp::Position| index.offset(p.line, p.character) as u32;
    let (from, to) = (at(params.range.start), at(params.range.end));
    let mut positions = Positions::new(analysis);
    let mut actions = Vec::new();
    for (d, fix) in analysis.fixes(file, from, to) {
        let edit = lsp::TextEdit {
            range: positions.range(fix.edit.span),
            new_text: fix.edit.new_text,
        };
        let changes = HashMap::from([(params.text_document.uri.clone(), vec![edit])]);
        actions.push(lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
            title: fix.title,
            kind: Some(lsp::CodeActionKind::QUICKFIX),
            diagnostics: diagnostic(&mut positions, d, SOURCE).map(|d| vec![d]),
            edit: Some(lsp::WorkspaceEdit {
                changes: Some(changes),
                ..Default::default()
            }),
            is_preferred: Some(true),
            ..Default::default()
        }));
    }
    Ok(Some(actions))
}

/// The edits that format a document (`shapescript fmt`'s layout), or
/// those that touch `range`. None for a library file, which is read-only,
/// and for a file that does not parse, whose diagnostics say why.
fn formatting(
    analysis: &Analysis,
    document: &lsp::TextDocumentIdentifier,
    range: Option<lsp::Range>,
) -> Answer<Vec<lsp::TextEdit>> {
    if uri::library_name(document.uri.as_str()).is_some() {
        return Ok(None);
    }
    let Some(file) = self::document(analysis, &document.uri)? else {
        return Ok(None);
    };
    let text = analysis.map.text(file);
    lsp_base::formatting::reply(text, syntax::format::format(text), range)
}

pub use crate::uri::file_uri;

/// The `source` of the server's diagnostics.
const SOURCE: &str = "shapescript";

/// The checked file a request's `textDocument` names, if the analysis has it.
fn document(analysis: &Analysis, text_uri: &lsp::Uri) -> Result<Option<FileId>, Error> {
    let text_uri = text_uri.as_str();
    if let Some(name) = uri::library_name(text_uri) {
        return Ok(analysis.library_file(name));
    }
    let path = uri::to_path(text_uri)
        .ok_or_else(|| Error::Invalid(format!("`{text_uri}` is not a file URI")))?;
    Ok(analysis.file_id(&path))
}

/// The file and byte offset of a request's `textDocument` and `position`;
/// `None` for a file the analysis doesn't have.
fn locate(
    analysis: &Analysis,
    params: &lsp::TextDocumentPositionParams,
) -> Result<Option<(FileId, u32)>, Error> {
    let Some(file) = document(analysis, &params.text_document.uri)? else {
        return Ok(None);
    };
    let index = LineIndex::new(analysis.map.text(file));
    let at = params.position;
    Ok(Some((file, index.offset(at.line, at.character) as u32)))
}

pub fn range(analysis: &Analysis, span: Span) -> lsp::Range {
    Positions::new(analysis).range(span)
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
}

impl Places for Positions<'_> {
    fn range(&mut self, span: Span) -> lsp::Range {
        let analysis = self.analysis;
        let index = self
            .indexes
            .entry(span.file)
            .or_insert_with(|| LineIndex::new(analysis.map.text(span.file)));
        index.range(span.start, span.end)
    }

    fn location(&mut self, span: Span) -> lsp::Location {
        lsp::Location {
            uri: file_uri(&self.analysis.path(span.file)),
            range: self.range(span),
        }
    }
}

/// The published diagnostics of one file.
pub fn diagnostics(analysis: &Analysis, file: FileId) -> Vec<lsp::Diagnostic> {
    let mut positions = Positions::new(analysis);
    analysis
        .diagnostics(file)
        .into_iter()
        .filter_map(|d| diagnostic(&mut positions, d, SOURCE))
        .collect()
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` has no replacement to fill instead.
fn symbol(analysis: &Analysis, symbol: &Symbol) -> lsp::DocumentSymbol {
    let kind = match symbol.kind {
        DefKind::Dim => lsp::SymbolKind::CONSTANT,
        DefKind::Alias => lsp::SymbolKind::TYPE_PARAMETER,
        DefKind::Fn | DefKind::ExternFn => lsp::SymbolKind::FUNCTION,
        DefKind::Model => lsp::SymbolKind::CLASS,
        DefKind::Record => lsp::SymbolKind::STRUCT,
        DefKind::Import(_) => lsp::SymbolKind::MODULE,
        DefKind::Field => lsp::SymbolKind::FIELD,
        DefKind::Method => lsp::SymbolKind::METHOD,
        DefKind::Param | DefKind::Local => lsp::SymbolKind::VARIABLE,
        DefKind::SizeParam | DefKind::Generic | DefKind::PatternAxis => {
            lsp::SymbolKind::TYPE_PARAMETER
        }
    };
    lsp::DocumentSymbol {
        name: symbol.name.clone(),
        detail: symbol.detail.clone(),
        kind,
        tags: None,
        deprecated: None,
        range: range(analysis, symbol.span),
        selection_range: range(analysis, symbol.name_span),
        children: Some(
            symbol
                .children
                .iter()
                .map(|c| self::symbol(analysis, c))
                .collect(),
        ),
    }
}

fn completion_kind(kind: CompletionKind) -> lsp::CompletionItemKind {
    use lsp::CompletionItemKind as K;
    match kind {
        CompletionKind::Keyword => K::KEYWORD,
        CompletionKind::Axis => K::VALUE,
        CompletionKind::Def(kind) => match kind {
            DefKind::Dim => K::CONSTANT,
            DefKind::Alias => K::TYPE_PARAMETER,
            DefKind::Fn | DefKind::ExternFn => K::FUNCTION,
            DefKind::Method => K::METHOD,
            DefKind::Model => K::CLASS,
            DefKind::Record => K::STRUCT,
            DefKind::Import(_) => K::MODULE,
            DefKind::Field => K::FIELD,
            DefKind::Param | DefKind::Local => K::VARIABLE,
            DefKind::SizeParam | DefKind::Generic | DefKind::PatternAxis => K::TYPE_PARAMETER,
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
            .map(|d| serde_json::to_value(d).expect("serializable"))
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

    /// Every reply of a request at `(line, character)` of the first file,
    /// as JSON.
    fn reply(files: &[(&str, &str)], method: &str, line: u32, character: u32) -> String {
        let (analysis, _, _) = analysis(files);
        let uri = uri::from_path(std::path::Path::new(files[0].0));
        let params = serde_json::json!({
            "textDocument": { "uri": uri },
            "position": { "line": line, "character": character },
        });
        match handle(&analysis, method, params) {
            Ok(value) => value.to_string(),
            Err(Error::Invalid(why)) => format!("invalid: {why}"),
            Err(_) => "error".to_string(),
        }
    }

    #[test]
    fn absent_optional_fields_are_left_out() {
        let files = [("/p/main.ss", "fn f(x: [n]) -> [n] {\n  x\n}\n")];
        // Keywords have no detail; the symbols of `f` have none either.
        let completion = reply(&files, "textDocument/completion", 1, 2);
        assert!(completion.contains("\"label\":\"let\""), "{completion}");
        assert!(!completion.contains("null"), "{completion}");
        let symbols = reply(&files, "textDocument/documentSymbol", 0, 0);
        assert!(symbols.contains("\"name\":\"f\""), "{symbols}");
        assert!(!symbols.contains("null"), "{symbols}");
    }
}
