//! The SexpGPU server's requests to `sexpgpu::ide` questions and back, in
//! `lsp-types` values: positions in UTF-16 columns, library locations as
//! `file://` URIs in the library folder, absent optional fields left out.
//! Owns the server's capabilities. Never keeps state.

use lsp_base::diagnostics::{diagnostic, Places};
use lsp_base::protocol::{markdown, on, Error};
use lsp_base::uri::file_uri;
use lsp_base::LineIndex;
use lsp_types as lsp;
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, InlayHintRequest,
    RangeFormatting, References, Request, SignatureHelpRequest,
};
use serde_json::Value;
use sexpgpu::ide::{self, Analysis, DefKind, Location, Names};
use std::collections::HashMap;
use std::path::Path;

/// The `source` of the server's diagnostics.
const SOURCE: &str = "sexpgpu";

/// Both servers' capabilities (`lsp_base`), completion opened by a
/// namespace's `/` or a keyword's `:`, signature help by a space.
pub fn capabilities() -> lsp::ServerCapabilities {
    lsp_base::protocol::capabilities(&["/", ":"], &[" "])
}

/// What a request is asked about: one document's analysis, and the server's settings.
pub struct Context<'a> {
    pub analysis: &'a Analysis,
    pub uri: &'a lsp::Uri,
    pub names: &'a Names,
    pub library_dir: &'a Path,
    pub inlay_hints: bool,
}

/// Answers one request about a document; `Ok(Value::Null)` when there is nothing to say.
pub fn handle(cx: &Context, method: &str, params: Value) -> Result<Value, Error> {
    match method {
        HoverRequest::METHOD => on::<HoverRequest>(params, |p| {
            let offset = cx.offset(p.text_document_position_params.position);
            Ok(cx.analysis.hover(offset, cx.names).map(|h| lsp::Hover {
                contents: lsp::HoverContents::Markup(markdown(h.markdown)),
                range: Some(cx.places().range(h.span)),
            }))
        }),
        GotoDefinition::METHOD => on::<GotoDefinition>(params, |p| {
            let offset = cx.offset(p.text_document_position_params.position);
            let found = cx.analysis.definition(offset, cx.names);
            Ok(found.map(|l| lsp::GotoDefinitionResponse::Scalar(cx.location(&l))))
        }),
        References::METHOD => on::<References>(params, |p| {
            let offset = cx.offset(p.text_document_position.position);
            let spans = cx
                .analysis
                .references(offset, p.context.include_declaration);
            let mut places = cx.places();
            Ok(Some(
                spans.into_iter().map(|s| places.location(s)).collect(),
            ))
        }),
        DocumentSymbolRequest::METHOD => on::<DocumentSymbolRequest>(params, |_| {
            let symbols = cx.analysis.symbols().iter().map(|s| cx.symbol(s)).collect();
            Ok(Some(lsp::DocumentSymbolResponse::Nested(symbols)))
        }),
        InlayHintRequest::METHOD => on::<InlayHintRequest>(params, |p| Ok(cx.inlay_hints(p.range))),
        Completion::METHOD => on::<Completion>(params, |p| {
            let offset = cx.offset(p.text_document_position.position);
            let items = cx
                .analysis
                .completions(offset, cx.names)
                .into_iter()
                .map(completion_item);
            Ok(Some(lsp::CompletionResponse::Array(items.collect())))
        }),
        SignatureHelpRequest::METHOD => on::<SignatureHelpRequest>(params, |p| {
            let offset = cx.offset(p.text_document_position_params.position);
            Ok(cx
                .analysis
                .signature_help(offset, cx.names)
                .map(signature_help))
        }),
        Formatting::METHOD => on::<Formatting>(params, |_| cx.formatting(None)),
        RangeFormatting::METHOD => on::<RangeFormatting>(params, |p| cx.formatting(Some(p.range))),
        _ => Err(Error::UnknownMethod),
    }
}

/// The published diagnostics of a document's analysis, by the file they
/// are in: the document's own, and those inside library files.
pub fn diagnostics(cx: &Context) -> Vec<(lsp::Uri, Vec<lsp::Diagnostic>)> {
    let mut places = cx.places();
    let mut out: Vec<(lsp::Uri, Vec<lsp::Diagnostic>)> = vec![(cx.uri.clone(), Vec::new())];
    for d in &cx.analysis.diagnostics {
        let Some(primary) = &d.primary else { continue };
        let uri = places.location(primary.span).uri;
        let Some(converted) = diagnostic(&mut places, d, SOURCE) else {
            continue;
        };
        match out.iter_mut().find(|(u, _)| *u == uri) {
            Some((_, list)) => list.push(converted),
            None => out.push((uri, vec![converted])),
        }
    }
    out
}

impl Context<'_> {
    fn offset(&self, position: lsp::Position) -> u32 {
        let index = LineIndex::new(&self.analysis.text);
        index.offset(position.line, position.character) as u32
    }

    fn places(&self) -> SpanPlaces<'_> {
        SpanPlaces {
            cx: self,
            indexes: HashMap::new(),
        }
    }

    fn location(&self, location: &Location) -> lsp::Location {
        match location {
            Location::Here(span) => self.places().location(*span),
            Location::Library(file, span) => {
                let text = self
                    .names
                    .library
                    .iter()
                    .find(|(f, _)| f == file)
                    .map_or("", |(_, t)| *t);
                lsp::Location {
                    uri: file_uri(&self.library_dir.join(file)),
                    range: LineIndex::new(text).range(span.start, span.end),
                }
            }
        }
    }

    #[allow(deprecated)] // `DocumentSymbol::deprecated` has no replacement to fill instead.
    fn symbol(&self, symbol: &ide::Symbol) -> lsp::DocumentSymbol {
        let kind = match symbol.kind {
            DefKind::Function | DefKind::Macro => lsp::SymbolKind::FUNCTION,
            DefKind::Graph => lsp::SymbolKind::METHOD,
            DefKind::Model => lsp::SymbolKind::CLASS,
            DefKind::Run => lsp::SymbolKind::EVENT,
            DefKind::Value | DefKind::Parameter | DefKind::Local => lsp::SymbolKind::VARIABLE,
        };
        let mut places = self.places();
        lsp::DocumentSymbol {
            name: symbol.name.clone(),
            detail: symbol.detail.clone(),
            kind,
            tags: None,
            deprecated: None,
            range: places.range(symbol.span),
            selection_range: places.range(symbol.name_span),
            children: None,
        }
    }

    fn inlay_hints(&self, within: lsp::Range) -> Option<Vec<lsp::InlayHint>> {
        if !self.inlay_hints {
            return Some(Vec::new());
        }
        let index = LineIndex::new(&self.analysis.text);
        let start = index.offset(within.start.line, within.start.character) as u32;
        let end = index.offset(within.end.line, within.end.character) as u32;
        let hints = self
            .analysis
            .inlay_hints(start, end)
            .into_iter()
            .map(|hint| lsp_base::protocol::type_hint(&index, hint.offset, hint.label));
        Some(hints.collect())
    }

    /// The edits that format the document (`sexpgpu fmt`'s layout), or those
    /// that touch `range`; none for a document that does not read, whose
    /// diagnostics say why.
    fn formatting(&self, range: Option<lsp::Range>) -> Result<Option<Vec<lsp::TextEdit>>, Error> {
        let text = &self.analysis.text;
        lsp_base::formatting::reply(text, sexpgpu::format::format(text), range)
    }
}

/// Spans of the analysis's files as LSP places: the document's, or a
/// library file's in the library folder. Each file's line index is built once.
struct SpanPlaces<'a> {
    cx: &'a Context<'a>,
    indexes: HashMap<diag::FileId, LineIndex<'a>>,
}

impl Places for SpanPlaces<'_> {
    fn range(&mut self, span: diag::Span) -> lsp::Range {
        let sources = &self.cx.analysis.sources;
        let index = self
            .indexes
            .entry(span.file)
            .or_insert_with(|| LineIndex::new(sources.text(span.file)));
        index.range(span.start, span.end)
    }

    fn location(&mut self, span: diag::Span) -> lsp::Location {
        let uri = match self.cx.analysis.library_file(span.file) {
            Some(name) => file_uri(&self.cx.library_dir.join(name)),
            None => self.cx.uri.clone(),
        };
        lsp::Location {
            uri,
            range: self.range(span),
        }
    }
}

fn completion_item(completion: ide::Completion) -> lsp::CompletionItem {
    use ide::CompletionKind as K;
    let kind = match completion.kind {
        K::Local => lsp::CompletionItemKind::VARIABLE,
        K::Value => lsp::CompletionItemKind::CONSTANT,
        K::Function | K::Builtin => lsp::CompletionItemKind::FUNCTION,
        K::Operation => lsp::CompletionItemKind::OPERATOR,
        K::Special => lsp::CompletionItemKind::KEYWORD,
        K::Keyword => lsp::CompletionItemKind::PROPERTY,
    };
    lsp::CompletionItem {
        label: completion.label,
        kind: Some(kind),
        detail: (!completion.detail.is_empty()).then_some(completion.detail),
        documentation: (!completion.doc.is_empty())
            .then(|| lsp::Documentation::MarkupContent(markdown(completion.doc))),
        ..Default::default()
    }
}

fn signature_help(help: ide::SignatureHelp) -> lsp::SignatureHelp {
    let doc = (!help.doc.is_empty()).then_some(help.doc);
    lsp_base::protocol::signature_help(help.label, &help.parameters, help.active, doc)
}
