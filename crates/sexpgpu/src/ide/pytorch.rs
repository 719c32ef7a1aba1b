//! The page for people coming from PyTorch, `docs/sexpgpu/from-pytorch.md`:
//! PyTorch's functions (`torch`, `torch.nn.functional`, `Tensor` methods)
//! beside the SexpGPU forms that compute them, and those that cannot exist
//! here and why. Generated from the tables below, checked against the names
//! a file can use (`Names`: the operation table with its keywords and
//! summaries, the builtins, `nn`'s definitions with their docstrings), so a
//! form naming an operation that no longer exists fails, and so does an
//! operation of the table that no row names (or `NO_COUNTERPART` lists).
//! `crates/sexpgpu/tests/docs.rs` keeps the checked-in page equal to it.

use super::names::{NameKind, Names};

/// One PyTorch function: its name, the SexpGPU form, and a note (empty:
/// the summary of the form's operation, or its docstring, is shown).
type Row = (&'static str, &'static str, &'static str);

/// `torch.*` functions.
const TORCH: &[Row] = &[
    ("torch.add `+`", "(+ a b)", "any number of operands; numbers and tensors mix"),
    ("torch.sub `-`", "(- a b)", "`(- x)` negates"),
    ("torch.mul `*`", "(* a b)", ""),
    ("torch.div `/`", "(/ a b)", "floats; of integers say which division: `quot` (toward zero) or `floor-div`"),
    ("torch.floor_divide", "(floor-div a b)", ""),
    ("torch.remainder", "(mod a b)", "the sign of the divisor, as PyTorch's"),
    ("torch.fmod", "(rem a b)", "the sign of the dividend"),
    ("torch.pow `**`", "(pow x y)", "floats, or integers (exact, wrapping; a negative number exponent is refused, as PyTorch refuses it)"),
    ("torch.neg", "(neg x)", ""),
    ("torch.abs", "(abs x)", ""),
    ("torch.sqrt", "(sqrt x)", "also of a plain number"),
    ("torch.rsqrt", "(rsqrt x)", ""),
    ("torch.exp", "(exp x)", "also of a plain number"),
    ("torch.exp2", "(exp2 x)", ""),
    ("torch.expm1", "(expm1 x)", ""),
    ("torch.log", "(log x)", "also of a plain number"),
    ("torch.log2", "(log2 x)", ""),
    ("torch.log10", "(log10 x)", ""),
    ("torch.log1p", "(log1p x)", ""),
    ("torch.sin", "(sin x)", ""),
    ("torch.cos", "(cos x)", ""),
    ("torch.tan", "(tan x)", ""),
    ("torch.asin", "(asin x)", ""),
    ("torch.acos", "(acos x)", ""),
    ("torch.atan", "(atan x)", ""),
    ("torch.atan2", "(atan2 y x)", ""),
    ("torch.sinh", "(sinh x)", ""),
    ("torch.cosh", "(cosh x)", ""),
    ("torch.tanh", "(tanh x)", ""),
    ("torch.asinh", "(asinh x)", ""),
    ("torch.acosh", "(acosh x)", ""),
    ("torch.atanh", "(atanh x)", ""),
    ("torch.sigmoid", "(sigmoid x)", ""),
    ("torch.erf", "(erf x)", ""),
    ("torch.floor", "(floor x)", ""),
    ("torch.ceil", "(ceil x)", ""),
    ("torch.round", "(round x)", "halves to even, as PyTorch"),
    ("torch.trunc", "(trunc x)", ""),
    ("torch.sign", "(sign x)", ""),
    ("torch.copysign", "(copysign a b)", ""),
    ("torch.logaddexp", "(logaddexp a b)", ""),
    ("torch.maximum", "(maximum a b)", ""),
    ("torch.minimum", "(minimum a b)", ""),
    ("torch.clamp, torch.clip", "(clip x lo hi)", ""),
    ("torch.lerp", "(lerp a b w)", ""),
    ("torch.where", "(where mask a b)", ""),
    ("torch.isnan", "(isnan x)", ""),
    ("torch.isinf", "(isinf x)", ""),
    ("torch.isfinite", "(isfinite x)", ""),
    ("torch.isclose", "(nn/isclose a b :rtol 1e-5 :atol 1e-8)", ""),
    ("torch.eq ne lt le gt ge", "(= a b)", "and `not= < <= > >=`: `bool` tensors"),
    ("torch.logical_not", "(logical-not m)", ""),
    ("torch.bitwise_and", "(bit-and a b)", ""),
    ("torch.bitwise_or", "(bit-or a b)", ""),
    ("torch.bitwise_xor", "(bit-xor a b)", ""),
    ("torch.bitwise_not", "(bit-not x)", ""),
    ("torch.bitwise_left_shift", "(shift-left a b)", ""),
    ("torch.bitwise_right_shift", "(shift-right a b)", ""),
    ("torch.sum", "(sum x :axes [1] :keepdims true)", "`:axes` is PyTorch's `dim`, `:keepdims` its `keepdim`"),
    ("torch.mean", "(nn/mean x :axes [1])", ""),
    ("torch.prod", "(prod x :axes [1])", ""),
    ("torch.amax, torch.max(x, dim)", "(max x :axes [1])", "the indices of `torch.max(x, dim)` are `(argmax x :axes [1])`"),
    ("torch.amin, torch.min(x, dim)", "(min x :axes [1])", "the indices are `(argmin x :axes [1])`"),
    ("torch.argmax", "(argmax x :axes [1])", ""),
    ("torch.argmin", "(argmin x :axes [1])", ""),
    ("torch.any", "(any x)", ""),
    ("torch.all", "(all x)", ""),
    ("torch.var", "(var x :axes [1] :correction 1)", "the default `:correction` is 0 (NumPy's), PyTorch's 1"),
    ("torch.std", "(std x :axes [1] :correction 1)", "as `var`"),
    ("torch.logsumexp", "(nn/logsumexp x :axis 1)", ""),
    ("torch.cumsum", "(nn/cumsum x :axis 1)", ""),
    ("torch.cumprod", "(cumprod x :axis 1)", ""),
    ("torch.cummax", "(cummax x :axis 1)", ""),
    ("torch.cummin", "(cummin x :axis 1)", ""),
    ("torch.logcumsumexp", "(logcumsumexp x :axis 1)", ""),
    ("torch.sort", "(sort x :axis -1 :descending false)", "stable, as `sort(stable=True)`"),
    ("torch.argsort", "(argsort x)", ""),
    ("torch.topk", "(top-k x k :largest true)", ""),
    ("torch.zeros", "(zeros [2 3] :dtype :f32)", ""),
    ("torch.ones", "(ones [2 3])", ""),
    ("torch.full", "(full [2 3] 0.5)", ""),
    ("torch.zeros_like", "(zeros-like x)", ""),
    ("torch.ones_like", "(ones-like x)", ""),
    ("torch.eye", "(eye n :m m)", ""),
    ("torch.arange", "(iota [n] :dtype :i64)", "`arange(n)`; a start and a step are `(+ start (* step (iota [n])))`"),
    ("torch.linspace", "(linspace start end steps)", ""),
    ("torch.randn, torch.normal", "(normal [2 3] :mean 0.0 :std 1.0)", "from the run's seed (docs/sexpgpu/operations.md, \"Random streams\")"),
    ("torch.rand", "(uniform [2 3])", ""),
    ("torch.multinomial of softmax", "(categorical logits)", ""),
    ("torch.reshape", "(reshape x [2 3])", "the new shape in full (no -1)"),
    ("torch.broadcast_to", "(broadcast-to x [4 2 3])", ""),
    ("torch.permute", "(transpose x [0 2 1])", ""),
    ("torch.cat", "(concat 0 [a b])", ""),
    ("torch.stack", "(concat 0 [(reshape a [1 2 3]) (reshape b [1 2 3])])", "a new axis of length 1 on each, then `concat`"),
    ("torch.narrow(x, d, start, n)", "(slice x d start stop)", "`stop` is `start + n`"),
    ("torch.flip", "(flip x [0])", ""),
    ("torch.roll", "(roll x shift :axis 0)", ""),
    ("torch.tril", "(tril x :diagonal 0)", ""),
    ("torch.triu", "(triu x :diagonal 0)", ""),
    ("torch.diag", "(diag x :diagonal 0)", ""),
    ("torch.diagonal", "(diagonal x :offset 0 :axis1 0 :axis2 1)", ""),
    ("torch.repeat_interleave", "(repeat-interleave x 2 :axis 0)", "counts are numbers of the program (a vector, one per element, or one count)"),
    ("torch.tile", "(repeat x [2 1])", ""),
    ("torch.index_select(x, 0, ids)", "(index x ids)", "rows of a table; another axis: `transpose` first"),
    ("torch.gather", "(gather x idx :axis 1)", ""),
    ("torch.scatter_add", "(scatter-add base idx src :axis 1)", ""),
    ("torch.scatter", "(scatter base idx src :axis 1)", ""),
    ("torch.scatter_reduce", "(scatter-reduce base idx src :amax :axis 1 :include-self true)", ""),
    ("torch.index_add(x, 0, ids, v)", "(index-add x ids v)", ""),
    ("torch.matmul, `@`, mm, bmm", "(matmul a b)", ""),
    ("torch.einsum", "(einsum \"ij,jk->ik\" a b)", ""),
];

/// `torch.nn.functional` (`F`) functions.
const FUNCTIONAL: &[Row] = &[
    ("F.relu", "(nn/relu x)", ""),
    (
        "F.gelu",
        "(nn/gelu x :approximate :tanh)",
        "exact (erf) by default, as PyTorch",
    ),
    ("F.silu", "(nn/silu x)", ""),
    (
        "F.softplus",
        "(nn/softplus x :beta 1.0 :threshold 20.0)",
        "",
    ),
    ("F.softplus without a threshold", "(softplus x)", ""),
    ("F.leaky_relu", "(nn/leaky-relu x :negative-slope 0.01)", ""),
    ("F.elu", "(nn/elu x :alpha 1.0)", ""),
    ("F.selu", "(nn/selu x)", ""),
    ("F.celu", "(nn/celu x :alpha 1.0)", ""),
    ("F.softsign", "(nn/softsign x)", ""),
    ("F.logsigmoid", "(nn/logsigmoid x)", ""),
    ("F.hardsigmoid", "(nn/hardsigmoid x)", ""),
    ("F.hardswish", "(nn/hardswish x)", ""),
    (
        "F.hardtanh",
        "(nn/hardtanh x :min-val -1.0 :max-val 1.0)",
        "",
    ),
    ("F.mish", "(nn/mish x)", ""),
    ("x * sigmoid(1.702 x)", "(nn/quick-gelu x)", ""),
    ("F.softmax", "(nn/softmax x :axis -1)", ""),
    ("F.log_softmax", "(nn/log-softmax x :axis -1)", ""),
    ("F.softmin", "(nn/softmin x :axis -1)", ""),
    ("F.layer_norm", "(nn/layer-norm x :weight w :bias b)", ""),
    ("F.rms_norm", "(nn/rms-norm x :weight w)", ""),
    (
        "F.group_norm",
        "(nn/group-norm x groups :weight w :bias b)",
        "",
    ),
    ("F.instance_norm", "(nn/instance-norm x)", ""),
    (
        "F.batch_norm",
        "(nn/batch-norm x :running-mean m :running-var v :train true)",
        "",
    ),
    ("F.normalize", "(nn/normalize x :p 2.0 :axis 1)", ""),
    ("F.linear", "(nn/linear x w :bias b)", ""),
    (
        "F.conv1d, conv2d, conv3d",
        "(conv x w :stride 1 :padding 0 :dilation 1 :groups 1)",
        "",
    ),
    (
        "F.conv_transpose1d, 2d, 3d",
        "(conv-transpose x w :stride 2)",
        "",
    ),
    ("F.max_pool1d, 2d, 3d", "(max-pool x :window [2 2] :ceil-mode false)", ""),
    ("F.max_pool2d(.., return_indices=True)", "(max-pool x :window [2 2] :return-indices true)", "`[values indices]`"),
    ("F.max_unpool1d, 2d, 3d", "(max-unpool x indices :window [2 2] :output-size [8 8])", ""),
    ("F.avg_pool1d, 2d, 3d", "(avg-pool x :window [2 2] :count-include-pad true :ceil-mode false)", ""),
    ("F.adaptive_avg_pool2d", "(adaptive-avg-pool x [1 1])", ""),
    (
        "F.pad",
        "(pad x [[1 1] [2 2]] :mode :reflect)",
        "pairs from the first padded axis on (PyTorch lists the last axis first); negative amounts crop, as PyTorch's",
    ),
    ("F.interpolate", "(interpolate x [8 8] :mode :bilinear)", "`:nearest` (the default), `:nearest-exact`, `:linear`, `:bilinear`, `:trilinear`; `:align-corners`"),
    ("F.embedding", "(nn/embedding table ids)", ""),
    ("F.one_hot", "(one-hot ids n)", ""),
    ("F.dropout", "(nn/dropout x 0.1)", ""),
    (
        "F.scaled_dot_product_attention",
        "(scaled-dot-product-attention q k v :causal true)",
        "",
    ),
    (
        "F.cross_entropy",
        "(nn/cross-entropy logits targets :label-smoothing 0.1)",
        "`:weight`, `:ignore-index`, `:reduction`, probability targets",
    ),
    ("F.nll_loss", "(nn/nll-loss log-probs targets)", ""),
    (
        "F.binary_cross_entropy",
        "(nn/binary-cross-entropy probs targets)",
        "",
    ),
    (
        "F.binary_cross_entropy_with_logits",
        "(nn/binary-cross-entropy-with-logits logits targets :pos-weight p)",
        "",
    ),
];

/// `Tensor` methods that are not `torch` functions too.
const TENSOR: &[Row] = &[
    ("x.shape, x.size()", "(shape x)", ""),
    ("x.dim()", "(rank x)", ""),
    ("x.size(d)", "(dim x d)", ""),
    ("x.numel()", "(numel x)", ""),
    ("x.dtype", "(dtype x)", ""),
    ("x.tolist()", "(to-vec x)", ""),
    ("x.to(dtype), x.float(), x.long()", "(cast x :f32)", ""),
    ("x.detach()", "(stop-gradient x)", ""),
    (
        "x.view(..), x.flatten()",
        "(reshape x [(numel x)])",
        "the new shape in full (no -1)",
    ),
    (
        "x.unsqueeze(d), x.squeeze(d)",
        "(reshape x [1 2 3])",
        "a reshape to the new shape",
    ),
    ("x.expand(..)", "(broadcast-to x [4 2 3])", ""),
    (
        "x.transpose(a, b), x.T, x.mT",
        "(transpose x [1 0])",
        "the whole permutation",
    ),
    ("x.repeat(..)", "(repeat x [2 1])", ""),
    ("x.unfold(d, size, step)", "(unfold x d size step)", ""),
    ("x.masked_fill(m, v)", "(where m v x)", ""),
    (
        "x[a:b] on axis d",
        "(slice x d a b)",
        "`(slice x d a b step)` with a step",
    ),
    ("x[ids] of a table", "(index x ids)", ""),
    ("x[i, j], x[:, i, j], x[i, :, j]", "(index x i j :axes [0 1])", "index tensors broadcast together, negative ids from the end, PyTorch's placement of the result's axes"),
];

/// What cannot exist, with why: `(name or form, why)`.
const NEVER: &[(&str, &str)] = &[
    ("torch.nonzero, torch.argwhere", "the result has one row per non-zero element, a shape known only from the data: `nonzero` and `argwhere` are refused with `E-FLOW-004`, which shows the static form (a mask `(not= x 0)`, its count `(sum (cast (not= x 0) :i32))`)"),
    ("torch.masked_select, `x[mask]`", "one element per true element of the mask, a data-dependent shape: `masked-select` is refused with `E-FLOW-004`; keep the shape with `(where mask x 0.0)` and reduce over it"),
    ("torch.unique, torch.bincount", "the number of distinct values (or the largest value) decides the shape: a data-dependent shape, as above"),
    ("repeat_interleave with a tensor of counts", "the counts decide the length: `repeat-interleave` takes counts written in the program"),
    ("`if x.item() > 0:` inside a traced function", "a graph is traced once, before any value exists; branch on data with `where`, or run the graph with `call` and branch in host code on its result"),
    ("in-place methods (`x.add_()`, `x[i] = v`, `index_put_`)", "values never change; every operation returns a new tensor (`(index-add x ids v)`, `(where m v x)`)"),
];

/// Operations with no PyTorch function of their own, with what they are.
const NO_COUNTERPART: &[(&str, &str)] = &[
    (
        "linear-scan",
        "`h[t] = a[t] h[t-1] + b[t]`, a first-order recurrence as one scan",
    ),
    ("call", "runs a graph on computed tensors"),
];

/// The page's text, or what in the tables does not name a known form.
pub fn from_pytorch_page(names: &Names) -> Result<String, Vec<String>> {
    let mut problems = Vec::new();
    let mut used = Vec::new();
    let mut page = String::from(HEADER);
    for (title, rows) in [
        ("`torch`", TORCH),
        ("`torch.nn.functional`", FUNCTIONAL),
        ("`Tensor` methods", TENSOR),
    ] {
        page.push_str(&format!(
            "\n## {title}\n\n| PyTorch | SexpGPU | |\n|---|---|---|\n"
        ));
        for &(torch, form, note) in rows {
            let heads = heads(form);
            used.extend(heads.iter().map(|h| h.to_string()));
            let note = match (note, names.get(heads[0])) {
                ("", Some(known)) => known.doc.clone(),
                (note, Some(_)) => note.to_string(),
                (_, None) => {
                    problems.push(format!("{torch}: `{}` is not a known name", heads[0]));
                    continue;
                }
            };
            page.push_str(&format!("| {torch} | `{form}` | {} |\n", cell(&note)));
        }
    }
    page.push_str(NEVER_HEADER);
    for (torch, why) in NEVER {
        page.push_str(&format!("| {torch} | {why} |\n"));
    }
    page.push_str(NO_COUNTERPART_HEADER);
    for (name, what) in NO_COUNTERPART {
        page.push_str(&format!("| `{name}` | {what} |\n"));
    }
    problems.extend(unknown_or_unlisted(names, &used));
    if problems.is_empty() {
        Ok(page)
    } else {
        Err(problems)
    }
}

/// The names called in a form: each symbol after an opening parenthesis.
fn heads(form: &str) -> Vec<&str> {
    form.split('(')
        .skip(1)
        .filter_map(|rest| rest.split([' ', ')']).next())
        .filter(|h| !h.is_empty())
        .collect()
}

/// A note as one table cell: on one line, without `|`.
fn cell(note: &str) -> String {
    note.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// Names a form calls that no file can use, and operations of the table
/// that neither a row nor `NO_COUNTERPART` names.
fn unknown_or_unlisted(names: &Names, used: &[String]) -> Vec<String> {
    let mut problems: Vec<String> = used
        .iter()
        .filter(|h| names.get(h).is_none())
        .map(|h| format!("`{h}` is called in a form but is not a known name"))
        .collect();
    for known in names.names.values() {
        let listed =
            used.contains(&known.name) || NO_COUNTERPART.iter().any(|(n, _)| *n == known.name);
        if known.kind == NameKind::Operation && !listed {
            problems.push(format!(
                "the operation `{}` has no row (add one, or list it in NO_COUNTERPART)",
                known.name
            ));
        }
    }
    problems
}

const HEADER: &str = "# From PyTorch

<!-- Generated from crates/sexpgpu/src/ide/pytorch.rs by
`BLESS=1 cargo test -p sexpgpu --test docs`; do not edit by hand. -->

PyTorch's functions beside the SexpGPU forms that compute them. The values
are PyTorch's, at the edges too (infinities, NaN, signed zeros, ties of
gradients), and tests compare them with PyTorch's
(`tests/python/test_sexpgpu_torch_*.py`). Names are kebab-case, PyTorch's
`dim` is `:axis` (one) or `:axes` (a vector), and `keepdim` is `:keepdims`.
The forms that start with `nn/` need `(require nn)` (with `:refer :all`,
without the prefix). Where a note is the operation's summary, it is the
one [the list of operations](operations.md#every-operation) shows. The
table is generated from the operation table and the library's definitions,
so it names only forms that exist.
";

const NEVER_HEADER: &str = "
## What cannot exist

Every tensor of a graph has a shape fixed when the graph is traced, so that
it compiles once ([staging](staging.md#data-dependent-shapes)); PyTorch's
functions whose result's shape depends on the data have a static form
instead.

| PyTorch | why, and what to write |
|---|---|
";

const NO_COUNTERPART_HEADER: &str = "
## Operations without a PyTorch function

| SexpGPU | what it is |
|---|---|
";
