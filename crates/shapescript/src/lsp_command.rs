//! `shapescript lsp`: runs the language server on stdin and stdout until the
//! client says `exit`. All of the server lives in the `lsp` crate.

use std::process::ExitCode;

pub fn run_lsp() -> ExitCode {
    match lsp::run_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shapescript lsp: error: {e}");
            ExitCode::from(2)
        }
    }
}
