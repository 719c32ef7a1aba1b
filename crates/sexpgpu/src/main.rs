//! The `sexpgpu` command: run, ir, check, explain, repl. Owns all file-system access and exit codes.

fn main() {
    eprintln!("sexpgpu: not built yet");
    std::process::exit(2);
}
