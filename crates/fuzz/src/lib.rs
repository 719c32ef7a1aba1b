//! The fuzz targets of both languages (`docs/fuzzing.md`): each takes
//! arbitrary bytes and must come back — no panic, no hang past its budget,
//! no allocation without bound — whatever the bytes are. The same targets
//! run under AFL++ for hours (`scripts/fuzz TARGET MINUTES`, through
//! `fuzz/afl`) and, in `scripts/test`, as fixed-seed campaigns of this
//! crate's own deterministic mutator (`campaign`), a few thousand cases a
//! target, as ruff's `py-fuzzer` runs in its CI.
//!
//! Layers: `targets` (what each target does with the bytes), `seeds` (the
//! corpora and dictionaries, read from the repository), `mutate` (the
//! mutator), `campaign` (a run of one target under a watchdog).

pub mod campaign;
pub mod mutate;
pub mod seeds;
pub mod targets;

pub use targets::Target;
