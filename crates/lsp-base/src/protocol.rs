//! Answering requests and taking in edits, alike in both servers: running
//! over stdin and stdout, the text sync both offer, a request's typed
//! parameters read and its result written (`on`), the handler's error or
//! panic turned into the matching error response (`answer`), Markdown, and
//! a `contentChanges` entry applied to a document's text.

use crate::LineIndex;
use lsp_server::{Connection, ErrorCode, RequestId, Response};

use lsp_types::request::Request;
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a server's loop ends with.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Runs the server `run` over stdin and stdout until the client says `exit`.
pub fn run_stdio(run: impl FnOnce(Connection) -> Result<(), BoxError>) -> Result<(), BoxError> {
    let (connection, io_threads) = Connection::stdio();
    run(connection)?;
    io_threads.join()?;
    Ok(())
}

/// What both servers can do: hover, definition, references, the outline,
/// inlay hints, completion and signature help (each opened by its
/// language's `completion_triggers` and `signature_triggers`), formatting.
/// A server adds its own to these.
pub fn capabilities(
    completion_triggers: &[&str],
    signature_triggers: &[&str],
) -> lsp_types::ServerCapabilities {
    let triggers = |list: &[&str]| Some(list.iter().map(|c| c.to_string()).collect());
    lsp_types::ServerCapabilities {
        position_encoding: Some(lsp_types::PositionEncodingKind::UTF16),
        text_document_sync: Some(text_sync()),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        definition_provider: Some(lsp_types::OneOf::Left(true)),
        references_provider: Some(lsp_types::OneOf::Left(true)),
        document_symbol_provider: Some(lsp_types::OneOf::Left(true)),
        inlay_hint_provider: Some(lsp_types::OneOf::Left(true)),
        completion_provider: Some(lsp_types::CompletionOptions {
            trigger_characters: triggers(completion_triggers),
            ..Default::default()
        }),
        signature_help_provider: Some(lsp_types::SignatureHelpOptions {
            trigger_characters: triggers(signature_triggers),
            ..Default::default()
        }),
        document_formatting_provider: Some(lsp_types::OneOf::Left(true)),
        document_range_formatting_provider: Some(lsp_types::OneOf::Left(true)),
        ..Default::default()
    }
}

/// The text sync both servers offer: open and close, incremental changes.
pub fn text_sync() -> lsp_types::TextDocumentSyncCapability {
    lsp_types::TextDocumentSyncCapability::Options(lsp_types::TextDocumentSyncOptions {
        open_close: Some(true),
        change: Some(lsp_types::TextDocumentSyncKind::INCREMENTAL),
        ..Default::default()
    })
}

/// An inlay hint showing a type, `label`, at byte `offset` of the text
/// `index` indexes.
pub fn type_hint(index: &LineIndex, offset: u32, label: String) -> lsp_types::InlayHint {
    let (line, character) = index.position(offset as usize);
    lsp_types::InlayHint {
        position: lsp_types::Position { line, character },
        label: lsp_types::InlayHintLabel::String(label),
        kind: Some(lsp_types::InlayHintKind::TYPE),
        text_edits: None,
        tooltip: None,
        padding_left: Some(false),
        padding_right: None,
        data: None,
    }
}

/// Markdown text, for hovers and docs.
pub fn markdown(value: String) -> lsp_types::MarkupContent {
    lsp_types::MarkupContent {
        kind: lsp_types::MarkupKind::Markdown,
        value,
    }
}

/// The reply to a signature help request: one signature, `label`, whose
/// parameters are the byte ranges `params` of it, with the parameter the
/// cursor is in (`active`, for the signature and the reply alike) and the
/// signature's docs.
pub fn signature_help(
    label: String,
    params: &[(u32, u32)],
    active: Option<u32>,
    doc: Option<String>,
) -> lsp_types::SignatureHelp {
    let parameters = params
        .iter()
        .map(|&(start, end)| lsp_types::ParameterInformation {
            label: lsp_types::ParameterLabel::LabelOffsets([start, end]),
            documentation: None,
        })
        .collect();
    lsp_types::SignatureHelp {
        signatures: vec![lsp_types::SignatureInformation {
            label,
            documentation: doc.map(|doc| lsp_types::Documentation::MarkupContent(markdown(doc))),
            parameters: Some(parameters),
            active_parameter: active,
        }],
        active_signature: Some(0),
        active_parameter: active,
    }
}

/// Why a request got no result.
pub enum Error {
    UnknownMethod,
    /// The request's parameters didn't make sense.
    Invalid(String),
    /// The request was understood but can't be done (a rename of a stub).
    Refused(String),
}

/// A notification's parameters as `N`'s type; `None` when they don't parse
/// (the notification is then dropped: there is no one to answer).
/// A notification about the documents, its parameters read.
pub enum DocEvent {
    Opened(lsp_types::TextDocumentItem),
    Changed(lsp_types::DidChangeTextDocumentParams),
    Closed(lsp_types::Uri),
    /// A document saved, or files changed outside the editor.
    FilesChanged,
}

/// The document event `note` is; `None` for any other notification, or
/// parameters that do not read.
pub fn doc_event(note: lsp_server::Notification) -> Option<DocEvent> {
    use lsp_types::notification::{
        DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
        DidSaveTextDocument, Notification,
    };
    match note.method.as_str() {
        DidOpenTextDocument::METHOD => {
            params::<DidOpenTextDocument>(note).map(|p| DocEvent::Opened(p.text_document))
        }
        DidChangeTextDocument::METHOD => {
            params::<DidChangeTextDocument>(note).map(DocEvent::Changed)
        }
        DidCloseTextDocument::METHOD => {
            params::<DidCloseTextDocument>(note).map(|p| DocEvent::Closed(p.text_document.uri))
        }
        DidSaveTextDocument::METHOD | DidChangeWatchedFiles::METHOD => Some(DocEvent::FilesChanged),
        _ => None,
    }
}

pub fn params<N: lsp_types::notification::Notification>(
    note: lsp_server::Notification,
) -> Option<N::Params> {
    serde_json::from_value(note.params).ok()
}

/// Reads `R`'s parameters, answers with `answer`, and writes its result.
pub fn on<R: Request>(
    params: Value,
    answer: impl FnOnce(R::Params) -> Result<R::Result, Error>,
) -> Result<Value, Error> {
    let params = serde_json::from_value(params).map_err(|e| Error::Invalid(e.to_string()))?;
    let result = answer(params)?;
    serde_json::to_value(result).map_err(|e| Error::Invalid(e.to_string()))
}

/// Runs one request's handler, turning its error or panic into an error response.
pub fn answer(
    id: RequestId,
    method: &str,
    handler: impl FnOnce() -> Result<Value, Error>,
) -> Response {
    match catch_unwind(AssertUnwindSafe(handler)) {
        Ok(Ok(value)) => Response::new_ok(id, value),
        Ok(Err(Error::UnknownMethod)) => Response::new_err(
            id,
            ErrorCode::MethodNotFound as i32,
            format!("unknown request `{method}`"),
        ),
        Ok(Err(Error::Invalid(message))) => {
            Response::new_err(id, ErrorCode::InvalidParams as i32, message)
        }
        Ok(Err(Error::Refused(message))) => {
            Response::new_err(id, ErrorCode::RequestFailed as i32, message)
        }
        Err(panic) => Response::new_err(
            id,
            ErrorCode::InternalError as i32,
            format!(
                "`{method}` failed inside the server: {}",
                panic_message(&panic)
            ),
        ),
    }
}

/// The text of a caught panic.
pub fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(text) = panic.downcast_ref::<&str>() {
        return text.to_string();
    }
    if let Some(text) = panic.downcast_ref::<String>() {
        return text.clone();
    }
    "a panic".to_string()
}

/// Applies one `contentChanges` entry: a range edit, or the whole text.
pub fn apply_change(text: &mut String, change: &lsp_types::TextDocumentContentChangeEvent) {
    let Some(range) = change.range else {
        text.clone_from(&change.text);
        return;
    };
    let index = LineIndex::new(text);
    let start = index.offset(range.start.line, range.start.character);
    let end = index.offset(range.end.line, range.end.character).max(start);
    text.replace_range(start..end, &change.text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_panicking_handler_answers_an_error() {
        let response = answer(RequestId::from(7), "textDocument/hover", || {
            panic!("index out of range")
        });
        let error = response.error.map(|e| (e.code, e.message));
        assert_eq!(
            error,
            Some((
                ErrorCode::InternalError as i32,
                "`textDocument/hover` failed inside the server: index out of range".to_string()
            ))
        );
    }

    /// A `contentChanges` entry from its JSON, as a client sends it.
    fn change(json: Value) -> lsp_types::TextDocumentContentChangeEvent {
        serde_json::from_value(json).expect("a content change")
    }

    #[test]
    fn range_edits_apply_in_utf16_columns() {
        let mut text = String::from("let é = 1\nx\n");
        apply_change(
            &mut text,
            &change(
                json!({"range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 5}}, "text": "y"}),
            ),
        );
        apply_change(
            &mut text,
            &change(
                json!({"range": {"start": {"line": 1, "character": 1}, "end": {"line": 1, "character": 1}}, "text": "z"}),
            ),
        );
        assert_eq!(text, "let y = 1\nxz\n");
        apply_change(&mut text, &change(json!({"text": "all"})));
        assert_eq!(text, "all");
    }
}
