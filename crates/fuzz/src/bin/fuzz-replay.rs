//! `fuzz-replay TARGET FILE`: runs the target once on a saved input (an
//! AFL++ crash or hang) under the campaign's watchdog and says how it
//! ended, with the input made small.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, file] = args.as_slice() else {
        eprintln!("usage: fuzz-replay TARGET FILE");
        std::process::exit(2);
    };
    let (Some(target), Ok(data)) = (fuzz::Target::from_name(name), std::fs::read(file)) else {
        eprintln!("unknown target `{name}` or unreadable `{file}`");
        std::process::exit(2);
    };
    let outcome = fuzz::campaign::run_one(target, &data);
    println!("{outcome:?}");
    if matches!(outcome, fuzz::campaign::Outcome::Panicked(_)) {
        let small = fuzz::campaign::minimise(target, data, &outcome);
        println!("made small: {:?}", String::from_utf8_lossy(&small));
    }
}
