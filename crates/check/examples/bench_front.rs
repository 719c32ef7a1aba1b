//! The front end's speed: generates a 100,000-line workspace in memory (many
//! files with dims, shape aliases, imports, extern fn and fn signatures),
//! then parses and checks it, and prints lines per second on one core.
//! Run with `cargo run --release -p check --example bench_front`.

mod workspace;

use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

use check::{check, MemoryFiles, Options};
use diag::SourceMap;

// The command's allocator (parsing and lowering allocate many small nodes),
// counting live bytes for the "kept" line.
#[global_allocator]
static ALLOCATOR: allocator::CountingMimalloc = allocator::CountingMimalloc;

fn live_bytes() -> usize {
    allocator::CountingMimalloc::live_bytes()
}

const LINES_PER_FILE: usize = 1000;

/// One file of about `LINES_PER_FILE` lines; file `i` imports file `i - 1`.
fn generate(i: usize) -> String {
    let mut out = String::with_capacity(LINES_PER_FILE * 60);
    out.push_str(&format!("# Generated module {i}.\n"));
    if i > 0 {
        out.push_str(&format!("import m{}\n", i - 1));
    }
    let mut lines = out.lines().count();
    let mut k = 0;
    while lines + 12 <= LINES_PER_FILE {
        // `up` takes the first model's shapes: the file before's, in file 0 its own.
        let prev = if i > 0 {
            format!("m{}.", i - 1)
        } else {
            String::new()
        };
        let heads = k % 16 + 1;
        write!(
            out,
            r#"## Model width {k}.
dim D{k} = H{k} * Dh{k}
dim H{k} = {heads}
dim Dh{k} = 64
dim Images{k} = [b 3 16gh 16gw]
dim Tokens{k} = [b n D{k}]
extern fn proj{k}(x: Tokens{k}, w: [D{k} 3*D{k}]) -> [b n 3*H{k}*Dh{k}] = "model.proj"
extern fn conv{k}(input: [b Cin H W], weight: [Cout Cin kh kw], stride: Size[S] = 1, padding: Size[P] = 0) -> [b Cout (H + 2*P - kh)/S + 1 (W + 2*P - kw)/S + 1] = "torch.nn.functional.conv2d"
extern fn patch{k}(img: Images{k} Unit f32) -> [b (gh gw) D{k}] = "vision.patchify"
extern fn up{k}(x: [{prev}Images0 {prev}D0]) -> [b {prev}D0] = "m.up"
fn same{k}(x: [b n D{k}], y: [2*n / 2]) -> [b n D{k}] = x
fn rows{k}(x: [b n m], y: [n*m / n]) -> [m] = y

"#
        )
        .expect("writing to a String");
        lines += 13;
        k += 1;
    }
    // `BENCH_ONLY=conv` keeps one kind of function (`proj`, `conv`,
    // `patch`, `up`, `same`, `rows`) and drops the others, to see what each
    // costs (a profile of the signature phase, divided by the count).
    if let Ok(only) = std::env::var("BENCH_ONLY") {
        let wanted = format!("fn {only}");
        let keep = |line: &&str| {
            let is_fn = line.starts_with("fn ") || line.starts_with("extern fn ");
            !is_fn || line.contains(&wanted)
        };
        out = out.lines().filter(keep).map(|l| format!("{l}\n")).collect();
    }
    out
}

fn main() {
    // As the command does: each run reuses the memory the last one freed.
    allocator::keep_freed_memory();
    // `BENCH_FILES` for a small run under a profiler.
    let file_count = workspace::env_count("BENCH_FILES", 100);
    // `BENCH_WRITE=dir` writes the workspace there instead, to time the command on it.
    if let Ok(dir) = std::env::var("BENCH_WRITE") {
        for i in 0..file_count {
            let path = PathBuf::from(&dir).join(format!("m{i}.ss"));
            std::fs::write(&path, generate(i)).expect("the folder is writable");
        }
        return;
    }
    let workspace::Workspace {
        files,
        roots,
        lines: total_lines,
    } = workspace::generated(file_count, generate);
    // The first run is cold (the process has never had this much memory);
    // then the best of the others, as the machine is shared.
    let runs = workspace::env_count("BENCH_RUNS", 10);
    let mut best = f64::INFINITY;
    let mut cold = 0.0;
    let mut warm = Vec::with_capacity(runs);
    let mut diagnostics = 0;
    for run in 0..=runs {
        let start = Instant::now();
        let mut map = SourceMap::new();
        let checked = check(&mut map, &files, &roots, &Options::default());
        let seconds = start.elapsed().as_secs_f64();
        diagnostics = checked.diagnostics.len();
        if run == 0 {
            cold = seconds;
        } else {
            best = best.min(seconds);
            warm.push(seconds);
        }
    }
    warm.sort_by(f64::total_cmp);
    let median = warm.get(warm.len() / 2).copied().unwrap_or(best);
    let texts: Vec<String> = (0..file_count).map(generate).collect();
    let mut parse_best = f64::INFINITY;
    for _ in 0..3 {
        let start = Instant::now();
        for (i, text) in texts.iter().enumerate() {
            std::hint::black_box(syntax::parse(diag::FileId(i as u32), text));
        }
        parse_best = parse_best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "parse alone: {:.1} ms, {:.0} lines/s",
        parse_best * 1e3,
        total_lines as f64 / parse_best
    );
    println!(
        "parse + check: {total_lines} lines in {file_count} files, {:.1} ms, {:.0} lines/s ({diagnostics} diagnostics)",
        best * 1e3,
        total_lines as f64 / best
    );
    println!(
        "parse + check, median of the {runs} runs: {:.1} ms, {:.0} lines/s",
        median * 1e3,
        total_lines as f64 / median
    );
    println!(
        "parse + check, first run (cold): {:.1} ms, {:.0} lines/s",
        cold * 1e3,
        total_lines as f64 / cold
    );
    let check_alone = (best - parse_best).max(1e-9);
    println!(
        "check alone (the difference): {:.1} ms, {:.0} lines/s",
        check_alone * 1e3,
        total_lines as f64 / check_alone
    );
    phases(&files, &roots);
    println!(
        "node sizes: syntax Axis {} B, SizeExpr {} B, Ident {} B; checker Axis {} B, AxisKind {} B, Span {} B, Symbol {} B, Size {} B, Poly {} B, Ty {} B, Signature {} B, ParamSig {} B",
        std::mem::size_of::<syntax::ast::Axis>(),
        std::mem::size_of::<syntax::ast::SizeExpr>(),
        std::mem::size_of::<syntax::ast::Ident>(),
        std::mem::size_of::<check::hir::Axis>(),
        std::mem::size_of::<check::hir::AxisKind>(),
        std::mem::size_of::<diag::Span>(),
        std::mem::size_of::<check::hir::Symbol>(),
        std::mem::size_of::<check::hir::Size>(),
        std::mem::size_of::<check::hir::Poly>(),
        std::mem::size_of::<check::hir::Ty>(),
        std::mem::size_of::<check::hir::Signature>(),
        std::mem::size_of::<check::hir::ParamSig>(),
    );
    assert_eq!(diagnostics, 0, "the generated workspace must check clean");
}

/// The best time of each phase of `check::check` over five runs. Each phase
/// runs over the whole program here, one after another, where `check` runs
/// them module by module as `load` hands the modules over: their sum is
/// more than `check`'s time, as each phase finds the trees out of the cache.
fn phases(files: &MemoryFiles, roots: &[PathBuf]) {
    let mut best = [f64::INFINITY; 6];
    let mut kept = [0; 5];
    for _ in 0..5 {
        let (times, bytes) = phases_once(files, roots);
        for (slot, time) in best.iter_mut().zip(times) {
            *slot = slot.min(time);
        }
        kept = bytes;
    }
    let mb = |b: usize| b as f64 / 1e6;
    println!(
        "kept (MB): program {:.1}, dims {:.1}, aliases {:.1}, signatures {:.1}, bodies {:.1}",
        mb(kept[0]),
        mb(kept[1]),
        mb(kept[2]),
        mb(kept[3]),
        mb(kept[4])
    );
    println!(
        "phases, each over the whole program (best of 5): load+parse {:.1} ms, dims {:.1} ms, aliases {:.1} ms, signatures {:.1} ms, bodies {:.1} ms, freeing {:.1} ms",
        best[0], best[1], best[2], best[3], best[4], best[5]
    );
}

/// The time of each phase, in milliseconds, run one after another as `check`
/// does, and the bytes each phase's result keeps (the program with its
/// source map, then each phase's growth).
fn phases_once(files: &MemoryFiles, roots: &[PathBuf]) -> ([f64; 6], [usize; 5]) {
    let start_bytes = live_bytes();
    let mut map = SourceMap::new();
    let mut times = [0.0; 6];
    let mut bytes = [0; 5];
    let mut slot = 0;
    let mut last_bytes = start_bytes;
    let mut t = Instant::now();
    let checked = check::check_phase_by_phase_observed(
        &mut map,
        files,
        roots,
        &Options::default(),
        &mut |_phase| {
            times[slot] = t.elapsed().as_secs_f64() * 1e3;
            let now = live_bytes();
            bytes[slot] = now.saturating_sub(last_bytes);
            last_bytes = now;
            slot += 1;
            t = Instant::now();
        },
    );
    let t = Instant::now();
    drop(checked);
    times[5] = t.elapsed().as_secs_f64() * 1e3;
    (times, bytes)
}
