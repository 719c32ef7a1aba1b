//! Snapshot tests of emitted Python for small programs.
