//! `fuzz-seeds TARGET DIR`: writes the target's seed corpus to `DIR/in`
//! (one file a seed) and its dictionary to `DIR/dict` in AFL++'s format,
//! for `scripts/fuzz`.

use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, dir] = args.as_slice() else {
        eprintln!("usage: fuzz-seeds TARGET DIR");
        std::process::exit(2);
    };
    let Some(target) = fuzz::Target::from_name(name) else {
        eprintln!("unknown target `{name}`");
        std::process::exit(2);
    };
    let dir = PathBuf::from(dir);
    let input = dir.join("in");
    if let Err(e) = std::fs::create_dir_all(&input) {
        eprintln!("cannot make {}: {e}", input.display());
        std::process::exit(2);
    }
    let mut written = 0;
    for (i, seed) in fuzz::seeds::corpus(target).iter().enumerate() {
        // AFL++ wants small seeds; the largest examples are cut.
        let seed = &seed[..seed.len().min(64 << 10)];
        if std::fs::write(input.join(format!("seed-{i:04}")), seed).is_ok() {
            written += 1;
        }
    }
    let dict: String = fuzz::seeds::dictionary(target)
        .iter()
        .enumerate()
        .map(|(i, w)| format!("w{i}=\"{}\"\n", afl_escape(w)))
        .collect();
    if let Err(e) = std::fs::write(dir.join("dict"), dict) {
        eprintln!("cannot write the dictionary: {e}");
        std::process::exit(2);
    }
    println!("{written} seeds in {}", input.display());
}

/// A word as AFL++'s dictionary quotes it: `\"`, `\\` and non-printing
/// bytes as `\xNN`.
fn afl_escape(word: &str) -> String {
    word.bytes()
        .map(|b| match b {
            b'"' | b'\\' => format!("\\{}", b as char),
            0x20..=0x7e => (b as char).to_string(),
            _ => format!("\\x{b:02x}"),
        })
        .collect()
}
