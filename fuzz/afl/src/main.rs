//! Runs the fuzz target `FUZZ_TARGET` names (`fuzz::Target::name`) on each
//! input AFL++ gives; a panic is AFL++'s crash, a run past its `-t` its hang.

fn main() {
    let name = std::env::var("FUZZ_TARGET").unwrap_or_default();
    let Some(target) = fuzz::Target::from_name(&name) else {
        eprintln!("FUZZ_TARGET must name a target: shapescript, shapescript-server, sexpgpu or data");
        std::process::exit(2);
    };
    afl::fuzz!(|data: &[u8]| {
        target.run(data);
    });
}
