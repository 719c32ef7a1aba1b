//! The checker's speed on bodies: generates a 100,000-line workspace in
//! memory of models, methods, attention functions with patterns and einsum,
//! calls to the nn prelude and broadcasting, then checks it and prints lines
//! per second on one core. Run with
//! `cargo run --release -p check --example bench_bodies`.

mod workspace;

use std::time::Instant;

use check::{check, Options};
use diag::SourceMap;

// The command's allocator, as in bench_front: allocation dominates.
#[global_allocator]
static ALLOCATOR: allocator::Mimalloc = allocator::Mimalloc;

const LINES_PER_FILE: usize = 1000;

/// One file of about `LINES_PER_FILE` lines of bodies.
fn generate(i: usize) -> String {
    let mut out = format!("# Generated module {i}.\n");
    let mut k = 0;
    while out.lines().count() + 24 <= LINES_PER_FILE {
        out.push_str(&format!(
            "dim D{k} = {d}\ndim H{k} = 4\n\
             ## A linear layer.\n\
             model Lin{k}(Din, Dout) {{\n  weight: [Dout Din] = normal(std=0.02)\n  bias: [Dout] = zeros\n  fn forward(self, x: [b n Din]) -> [b n Dout] = linear(x, self.weight, self.bias)\n}}\n\
             fn attend{k}(q: [b h i d], k: [b h j d], v: [b h j d]) -> [b h i d] {{\n  let scores = einsum(q, k, [b h i d], [b h j d] -> [b h i j]) * d ** -0.5\n  let weights = softmax(scores, over=j)\n  einsum(weights, v, [b h i j], [b h j d] -> [b h i d])\n}}\n\
             fn block{k}(x: [b n D{k}], w: [D{k} D{k}], g: [D{k}]) -> [b n D{k}] {{\n  let y = layer_norm(x, g) @ w\n  let heads = rearrange(y, [b n (h d)] -> [b h n d], h=H{k})\n  let out = attend{k}(heads, heads, heads)\n  x + rearrange(out, [b h n d] -> [b n (h d)]) * g\n}}\n\
             model Net{k} {{\n  proj: Lin{k}(D{k}, 2*D{k})\n  fn forward(self, x: [b n D{k}], g: [D{k}], w: [D{k} D{k}]) -> [b n 2*D{k}] = self.proj(block{k}(x, w, g))\n}}\n\n",
            d = 64 * (k % 4 + 1)
        ));
        k += 1;
    }
    out
}

fn main() {
    // As the command does: each run reuses the memory the last one freed.
    allocator::keep_freed_memory();
    // `BENCH_FILES` for a short profile.
    let files_n = workspace::env_count("BENCH_FILES", 100);
    let workspace::Workspace {
        files,
        roots,
        lines: total_lines,
    } = workspace::generated(files_n, generate);
    // One warm-up run, then the best of five, as the machine is shared.
    let mut best = f64::INFINITY;
    let mut diagnostics = Vec::new();
    let mut exprs = 0;
    for run in 0..6 {
        let start = Instant::now();
        let mut map = SourceMap::new();
        let checked = check(&mut map, &files, &roots, &Options::default());
        let seconds = start.elapsed().as_secs_f64();
        exprs = checked.bodies.fns.iter().map(|b| b.exprs.len()).sum();
        diagnostics = checked.diagnostics;
        if run > 0 {
            best = best.min(seconds);
        }
    }
    println!(
        "parse + check with bodies: {total_lines} lines in {files_n} files ({exprs} typed expressions), {:.1} ms, {:.0} lines/s ({} diagnostics)",
        best * 1e3,
        total_lines as f64 / best,
        diagnostics.len()
    );
    if let Some(first) = diagnostics.first() {
        panic!("the generated workspace must check clean, but: {first:?}");
    }
}
