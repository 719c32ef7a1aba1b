//! Mutants (to do).
