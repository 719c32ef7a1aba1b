//! The `shapescript` command: check, build, explain, lsp. Owns all file-system access and exit codes.

fn main() {
    eprintln!("shapescript: not built yet");
    std::process::exit(2);
}
