//! The list of built-in operations: their stub signatures and docs, and
//! `builtins.ss` generated from them, the readable list the language server
//! shows (`docs/shapescript/prelude.md`). Their names are `builtin_names`;
//! their typing rules are `body::builtins`; this module is below `body` and
//! knows nothing of it.

use crate::builtin_names::Builtin;

/// One built-in's entry in `builtins.ss`: how it is called, and what it does.
struct BuiltinDoc {
    op: Builtin,
    /// A ShapeScript stub for `builtins.ss` (checks clean, shows the call).
    stub: &'static str,
    doc: &'static str,
}

const BUILTINS: &[BuiltinDoc] = &[
    BuiltinDoc { op: Builtin::Sum, stub: "extern fn sum(input: [...]) -> [...] = \"torch.sum\"", doc: "The sum over the axes named by `over=n` or `over=(n D)`, which the result drops;\nover all axes without `over=`. `sum(x: [b n D], over=n)` is `[b D]`." },
    BuiltinDoc { op: Builtin::Mean, stub: "extern fn mean(input: [...]) -> [...] = \"torch.mean\"", doc: "The mean over the axes named by `over=`, which the result drops." },
    BuiltinDoc { op: Builtin::Prod, stub: "extern fn prod(input: [...]) -> [...] = \"torch.prod\"", doc: "The product over the axis named by `over=`, which the result drops." },
    BuiltinDoc { op: Builtin::Max, stub: "extern fn max(input: [...]) -> [...] = \"torch.amax\"", doc: "The largest value over the axes named by `over=`, which the result drops." },
    BuiltinDoc { op: Builtin::Min, stub: "extern fn min(input: [...]) -> [...] = \"torch.amin\"", doc: "The smallest value over the axes named by `over=`, which the result drops." },
    BuiltinDoc { op: Builtin::Logsumexp, stub: "extern fn logsumexp(input: [...]) -> [...] = \"torch.logsumexp\"", doc: "log(sum(exp(x))) over the axes named by `over=`, computed stably." },
    BuiltinDoc { op: Builtin::Var, stub: "extern fn var(input: [...]) -> [...] NonNeg = \"torch.var\"", doc: "The variance over the axes named by `over=` (never negative): unbiased, as PyTorch's, or the population's with `correction=0`." },
    BuiltinDoc { op: Builtin::Std, stub: "extern fn std(input: [...]) -> [...] NonNeg = \"torch.std\"", doc: "The standard deviation over the axes named by `over=` (never negative): unbiased, as PyTorch's, or the population's with `correction=0`." },
    BuiltinDoc { op: Builtin::Any, stub: "extern fn any(input: [...]) -> [...] Bool = \"torch.any\"", doc: "Whether any value is true over the axes named by `over=`." },
    BuiltinDoc { op: Builtin::All, stub: "extern fn all(input: [...]) -> [...] Bool = \"torch.all\"", doc: "Whether every value is true over the axes named by `over=`." },
    BuiltinDoc { op: Builtin::Argmax, stub: "extern fn argmax(input: [... n]) -> [...] Index[n] = \"torch.argmax\"", doc: "The position of the largest value over the axis named by `over=n`: an\n`Index[n]` per remaining position." },
    BuiltinDoc { op: Builtin::Argmin, stub: "extern fn argmin(input: [... n]) -> [...] Index[n] = \"torch.argmin\"", doc: "The position of the smallest value over the axis named by `over=n`." },
    BuiltinDoc { op: Builtin::Softmax, stub: "extern fn softmax(input: [...]) -> [...] Unit = \"torch.softmax\"", doc: "Softmax over the axis named by `over=`: values in [0, 1] that sum to 1\nover it. Keeps every axis." },
    BuiltinDoc { op: Builtin::LogSoftmax, stub: "extern fn log_softmax(input: [...]) -> [...] NonPos = \"torch.log_softmax\"", doc: "The log of softmax over the axis named by `over=`, computed stably." },
    BuiltinDoc { op: Builtin::Cumsum, stub: "extern fn cumsum(input: [...]) -> [...] = \"torch.cumsum\"", doc: "Running sums along the axis named by `over=`. Keeps every axis." },
    BuiltinDoc { op: Builtin::Sort, stub: "extern fn sort(input: [...]) -> [...] = \"torch.sort\"", doc: "The values sorted along the axis named by `over=`. Keeps every axis." },
    BuiltinDoc { op: Builtin::Topk, stub: "extern fn topk(input: [... n], k: Size[K]) -> [... K] = \"torch.topk\"", doc: "The `k` largest values over the axis named by `over=n`, and their\npositions. A run-time `k` gives an unknown size `?k`." },
    BuiltinDoc { op: Builtin::Where, stub: "extern fn where(condition: Bool, input: Real, other: Real) -> Real = \"torch.where\"", doc: "`input` where `condition` holds, else `other`; the three broadcast by name." },
    BuiltinDoc { op: Builtin::Abs, stub: "extern fn abs(input: Real) -> NonNeg = \"torch.abs\"", doc: "The absolute value." },
    BuiltinDoc { op: Builtin::Sign, stub: "extern fn sign(input: Real) -> Signed = \"torch.sign\"", doc: "-1, 0 or 1 by the value's sign." },
    BuiltinDoc { op: Builtin::Clamp, stub: "extern fn clamp(input: Real, lo: Float = 0.0, hi: Float = 1.0) -> Real = \"torch.clamp\"", doc: "The values limited to [lo, hi]; `lo=` and `hi=` are optional." },
    BuiltinDoc { op: Builtin::Maximum, stub: "extern fn maximum(input: Real, other: Real) -> Real = \"torch.maximum\"", doc: "The larger of two tensors, elementwise, broadcast by name." },
    BuiltinDoc { op: Builtin::Minimum, stub: "extern fn minimum(input: Real, other: Real) -> Real = \"torch.minimum\"", doc: "The smaller of two tensors, elementwise, broadcast by name." },
    BuiltinDoc { op: Builtin::Concat, stub: "extern fn concat(a: [...], b: [...]) -> [...] = \"torch.cat\"", doc: "`a` and `b` joined along the axis of `a` named by `over=n`; every other axis\nmust match, and the joined axis is `n + m`." },
    BuiltinDoc { op: Builtin::Stack, stub: "extern fn stack(a: [...], b: [...]) -> [2 ...] = \"torch.stack\"", doc: "Tensors of one shape stacked along a new first axis, one per argument;\n`over=p` puts the new axis at position `p` (`over=-1`: last)." },
    BuiltinDoc { op: Builtin::Split, stub: "extern fn split(input: [... n], parts: Size[K]) -> [... n] = \"torch.chunk\"", doc: "`split(x, k, over=n)`: `k` equal parts along the axis named `n`, a tuple of\n`k` tensors whose axis is `n / k` (exact, E0402 otherwise)." },
    BuiltinDoc { op: Builtin::Take, stub: "extern fn take(input: [... n], ids: [m] Index[n]) -> [... m] = \"torch.index_select\"", doc: "Rows of `input` by ids along the axis named by `over=n`: that axis is\nreplaced by the ids' axes." },
    BuiltinDoc { op: Builtin::OneHot, stub: "extern fn one_hot(ids: [...] Index[n], classes: Size[n]) -> [... n] i64 = \"torch.nn.functional.one_hot\"", doc: "A 1 at each id's position along a new last axis of `n`, 0 elsewhere." },
    BuiltinDoc { op: Builtin::Zeros, stub: "extern fn zeros(like: [...]) -> [...] = \"torch.zeros\"", doc: "A tensor of zeros of the shape given as `zeros([n D])`." },
    BuiltinDoc { op: Builtin::Ones, stub: "extern fn ones(like: [...]) -> [...] = \"torch.ones\"", doc: "A tensor of ones of the shape given as `ones([n D])`." },
    BuiltinDoc { op: Builtin::Full, stub: "extern fn full(like: [...], value: Float) -> [...] = \"torch.full\"", doc: "A tensor of the shape given as `full([n D], 0.5)`, every value the same." },
    BuiltinDoc { op: Builtin::Arange, stub: "extern fn arange(n: Size[N]) -> [N] Index[N] i64 = \"torch.arange\"", doc: "0, 1, ..., n-1: `[n] Index[n]`." },
    BuiltinDoc { op: Builtin::Eye, stub: "extern fn eye(n: Size[N]) -> [N N] = \"torch.eye\"", doc: "The identity matrix, `[n n]`." },
    BuiltinDoc { op: Builtin::Tril, stub: "extern fn tril(input: [... n m], diagonal: Int = 0) -> [... n m] = \"torch.tril\"", doc: "The lower triangle of the last two axes; zeros above it. `diagonal=k`\nkeeps `k` more diagonals above the main one (fewer for a negative `k`)." },
    BuiltinDoc { op: Builtin::Triu, stub: "extern fn triu(input: [... n m], diagonal: Int = 0) -> [... n m] = \"torch.triu\"", doc: "The upper triangle of the last two axes; zeros below it. `diagonal=k`\nstarts `k` diagonals above the main one (below it for a negative `k`)." },
    BuiltinDoc { op: Builtin::Rearrange, stub: "extern fn rearrange(input: [...]) -> [...] = \"torch.reshape\"", doc: "Moves, splits and merges axes by a pattern:\n`rearrange(img, [b c (gh 16) (gw 16)] -> [b (gh gw) (c 16 16)])`. The same axis\nnames on both sides; sizes the left side can't determine as keywords, `h=12`." },
    BuiltinDoc { op: Builtin::Reduce, stub: "extern fn reduce(input: [...]) -> [...] = \"torch.sum\"", doc: "Reduces the axes a pattern's right side leaves out, with `sum`, `mean`,\n`max`, `min` or `prod`: `reduce(x, [b (h 2) (w 2) c] -> [b h w c], max)`." },
    BuiltinDoc { op: Builtin::Repeat, stub: "extern fn repeat(input: [...]) -> [...] = \"torch.Tensor.expand\"", doc: "Adds or repeats axes by a pattern whose new names get keyword sizes:\n`repeat(x, [b n] -> [b n r], r=4)`." },
    BuiltinDoc { op: Builtin::Einsum, stub: "extern fn einsum(a: [...], b: [...]) -> [...] = \"torch.einsum\"", doc: "Multiplies and sums tensors by axis names:\n`einsum(q, k, [b h i d], [b h j d] -> [b h i j])`. An axis named on several\nleft sides has one size; one left out on the right is summed." },
];

/// Whether `name` is a built-in operation (or `range`, only for `for`).
pub fn is_builtin(name: &str) -> bool {
    name == "range" || Builtin::from_name(name).is_some()
}

/// The text of `builtins.ss`: each built-in with its docs and a stub
/// signature. The checker types them by rules stronger than the stubs; the
/// docs say how.
pub fn builtins_ss() -> String {
    let mut out = String::from(
        "# The ShapeScript built-in operations (generated; read-only).\n\
         # Their types come from rules in the checker that say more than a\n\
         # signature can (axes found by name with `over=`, patterns); each stub\n\
         # shows the call, and its docs say the rule.\n",
    );
    for &op in Builtin::ALL {
        let Some(b) = BUILTINS.iter().find(|b| b.op == op) else {
            continue; // a test checks that every built-in has its entry
        };
        out.push('\n');
        for line in b.doc.lines() {
            out.push_str("## ");
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(b.stub);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_ss_checks_clean() {
        let mut map = diag::SourceMap::new();
        let builtins = builtins_ss();
        let sources = [("builtins.ss", builtins.as_str())];
        let checked = crate::check_sources(&mut map, &sources, &crate::Options::default());
        expect_test::expect![[""]].assert_eq(&crate::tests::show(&map, &checked.diagnostics));
    }

    #[test]
    fn every_builtin_has_one_entry_in_builtins_ss_in_order() {
        let listed: Vec<Builtin> = BUILTINS.iter().map(|b| b.op).collect();
        assert_eq!(listed, Builtin::ALL);
        for b in BUILTINS {
            let head = format!("extern fn {}(", b.op.name());
            assert!(b.stub.starts_with(&head), "{}", b.stub);
        }
    }
}
