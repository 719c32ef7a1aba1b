//! The fixed-seed fuzz campaigns `scripts/test` runs (`docs/fuzzing.md`):
//! every seed of every target, then mutated inputs, none of which may
//! panic or hang a target. `FUZZ_CASES` sets how many mutated inputs a
//! target gets (3,000 by default, 1,000 for the language server, whose
//! sessions are slower: about two minutes in all on two cores).

use fuzz::campaign::{self, Report};
use fuzz::Target;

fn cases(default: usize) -> usize {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

fn check(target: Target, seed: u64) {
    let default = match target {
        Target::ShapeScriptServer => 1000,
        _ => 3000,
    };
    let Report {
        executed,
        seeds,
        elapsed,
        failures,
    } = campaign::run(target, cases(default), seed);
    println!(
        "fuzz {}: {executed} inputs ({seeds} seeds) in {:.1} s, {} failures",
        target.name(),
        elapsed.as_secs_f64(),
        failures.len()
    );
    let shown: Vec<String> = failures
        .iter()
        .map(|f| {
            format!(
                "{}\n  input: {:?}",
                f.how,
                String::from_utf8_lossy(&f.input)
            )
        })
        .collect();
    assert!(shown.is_empty(), "{}", shown.join("\n"));
}

/// One test per target, each campaign with its fixed seed.
macro_rules! campaigns {
    ($($name:ident: $target:ident, $seed:literal;)*) => {
        $(
            #[test]
            fn $name() {
                check(Target::$target, $seed);
            }
        )*
    };
}

campaigns! {
    shapescript: ShapeScript, 1;
    shapescript_server: ShapeScriptServer, 2;
    sexpgpu: Sexpgpu, 3;
    data: Data, 4;
}
