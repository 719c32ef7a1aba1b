//! What the attention pass (`attention`) planned for one body: the plain
//! data of an attention emitted as one `scaled_dot_product_attention` call
//! (docs/shapescript/python.md, "What the emitter fuses").

use syntax::ast::Expr;

/// An attention the emitter writes as one fused call.
#[derive(Clone, Debug)]
pub struct FusedAttention {
    pub q: Expr,
    pub k: Expr,
    pub v: Expr,
    pub scale: Scale,
    /// Masked by `tril(ones([i j]))`: SDPA's `is_causal=True` (top-left aligned).
    pub causal: bool,
    /// Query axes between the key/value heads and the query axis (`g` in
    /// `[b kv g i d]`): the positions `first..=last` of q flattened into one
    /// head axis with `enable_gqa=True`, and their sizes, to unflatten the
    /// result.
    pub groups: Option<Groups>,
}

#[derive(Clone, Debug)]
pub struct Groups {
    pub first: usize,
    pub last: usize,
    pub sizes: Vec<String>,
}

/// How the scores were scaled.
#[derive(Clone, Debug)]
pub enum Scale {
    One,
    Times(Expr),
    Over(Expr),
}
