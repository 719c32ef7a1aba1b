//! The fixed-seed differential campaign of `scripts/test`
//! (`docs/fuzzing.md`): 400 generated programs, each compiled for the CPU
//! against the reference executor and its gradients against finite
//! differences in f64. `SEXPGPU_GEN_CASES=N` changes the count.

fn main() {
    let count = std::env::var("SEXPGPU_GEN_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400);
    let start = std::time::Instant::now();
    let mut failures = Vec::new();
    let totals = sexpgpu_gen::run(0, count, |f| failures.push(f.describe()));
    println!(
        "differential: {} programs, {} skipped, {} graph nodes, {} outputs compared, {} finite differences ({} at kinks, skipped), {:.1} s",
        totals.programs,
        totals.skipped,
        totals.graph_nodes,
        totals.compared_elements,
        totals.differences,
        totals.kinks,
        start.elapsed().as_secs_f64()
    );
    // Most programs must really be checked, not skipped.
    assert!(totals.skipped * 10 <= totals.programs, "{totals:?}");
    if !failures.is_empty() {
        eprintln!(
            "{} failing programs:\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
        std::process::exit(1);
    }
}
