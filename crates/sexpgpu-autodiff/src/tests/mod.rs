//! Tests of the gradient rules: every rule against central finite
//! differences on random inputs (`harness`), the IR the rules build, the
//! conventions at ties and kinks, and the errors `grad` returns.

mod api;
mod attention;
mod elementwise;
mod harness;
mod indexing;
mod layout;
mod random;
mod reduce;
