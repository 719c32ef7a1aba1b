//! The `sexpgpu` binary: the command line (`cli`) over the `sexpgpu`
//! library. Only this binary depends on clap and touches the process.

mod cli;

fn main() {
    std::process::exit(cli::main());
}
