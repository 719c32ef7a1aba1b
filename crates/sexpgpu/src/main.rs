//! The `sexpgpu` binary: hands the command line to `sexpgpu::cli`.

fn main() {
    std::process::exit(sexpgpu::cli::main());
}
