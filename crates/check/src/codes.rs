//! The one table of ShapeScript diagnostic codes: each code's title and the
//! `shapescript explain` text, with a wrong example and its fix. A code is
//! never reused for another mistake; this file holds text only, no logic.
//! The parser's E01xx live beside the parser (`syntax::codes`) and are
//! re-exported here, so every ShapeScript code is `check::codes::E0xxx`.

use diag::Code;
use std::sync::OnceLock;

pub use syntax::codes::{
    EXPECTED as E0103, GROUP_IN_ARITHMETIC as E0107, INVALID_NUMBER as E0106,
    NUMBER_TOO_LARGE as E0105, UNCLOSED_DELIMITER as E0104, UNEXPECTED_CHARACTER as E0101,
    UNKNOWN_ESCAPE as E0108, UNTERMINATED_STRING as E0102,
};

/// Looks a code up, case-insensitively (`e0402` works too).
pub fn lookup(id: &str) -> Option<Code> {
    diag::lookup(all(), id)
}

/// Every code, the parser's E01xx and the checker's, in code order.
pub fn all() -> &'static [Code] {
    static ALL: OnceLock<Vec<Code>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all: Vec<Code> = syntax::codes::CODES
            .iter()
            .chain(CHECKER)
            .copied()
            .collect();
        all.sort();
        all
    })
}

diag::codes! {
    /// The checker's and the generator's codes (E02xx and up), in code order.
    static CHECKER;

E0201 = "E0201", "imported file not found",
"An `import name` looks for `name.ss` in the importing file's folder, then in
each `-I DIR` given to the command, in order. None of them had the file.

Wrong:

```
import visoin
```

Fixed: spell the file's name, or give its folder with `-I`:

```
import vision
```
";

E0202 = "E0202", "import cycle",
"Files can't import each other in a circle: each would need the other read
first. The note shows every step of the chain.

Wrong:

```
# a.ss
import b
# b.ss
import a
```

Fixed: move what both need into a third file that both import:

```
# a.ss
import common
# b.ss
import common
# common.ss
dim D = 768
```
";

E0203 = "E0203", "name declared twice",
"Every top-level name (dims, aliases, functions, models, records and imports)
is visible in its whole file, so each must be declared once. So is each
field of a model or record, and a model's field may not share a size
parameter's name: both are `self.name`. Nor may a size parameter take the
name of a dim (or any declaration of the file but a function): the model's
types would read the dim, never the parameter its users give a value.

Wrong:

```
dim D = 768
dim D = 512
```

Fixed: rename or remove one of them:

```
dim D = 768
dim D2 = 512
```
";

E0204 = "E0204", "file not imported",
"`file.name` reads a declaration of another file, which needs `import file`
in this one.

Wrong:

```
fn f(x: [vision.D]) -> [vision.D] = x
```

Fixed:

```
import vision
fn f(x: [vision.D]) -> [vision.D] = x
```
";

E0205 = "E0205", "could not read an imported file",
"The imported file exists but could not be read (permissions, not UTF-8, or a
folder with that name). The message gives the system's reason.

No program text shows this mistake: `import vision` is right as written, and
is reported with E0205 only when `vision.ss` is not readable, is not UTF-8,
or is a folder. Make `vision.ss` readable UTF-8 text, or import another
file.
";

E0301 = "E0301", "name not found",
"A name in a size or a type is neither a dim, nor a generic axis introduced by
a parameter's type, nor a declaration of this file or the imported ones.

Wrong:

```
dim Dh = D / H
dim H = 12
```

Fixed: declare every dim used:

```
dim D = 768
dim H = 12
dim Dh = D / H
```
";

E0303 = "E0303", "not a size",
"A size can only be made of numbers, dims and axis names. A shape alias
stands for several axes and a function is a value, so neither is a size, and
neither is a value in a body (`Images + 1`). In a signature's shapes, a name
that is a function is a generic axis instead: a `fn h` doesn't block the
axis `h`.

Wrong:

```
dim Images = [b 3 16gh 16gw]
dim N = Images
```

Fixed: use a dim, or use the alias as a shape:

```
dim Images = [b 3 16gh 16gw]
dim N = 224
fn f(x: Images) -> Images = x
```
";

E0304 = "E0304", "dim defined in terms of itself",
"A dim's value is worked out from the dims it uses, so it can't use itself,
directly or through other dims. The note shows each step of the chain.

Wrong:

```
dim A = 2 * B
dim B = A + 1
```

Fixed: give one of them a value that doesn't depend on the other:

```
dim A = 2 * B
dim B = 64
```
";

E0305 = "E0305", "dim value is not a whole number of at least 1",
"A dim is a size, so its value must be a whole number of at least 1, and a
division in it must be exact.

Wrong:

```
dim D = 768
dim Q = D / 5
dim Z = 4 - 4
```

Fixed:

```
dim D = 768
dim Q = D / 4
dim Z = 4
```
";

E0306 = "E0306", "not allowed in this signature",
"Some parts of a type are only allowed in some places:

* `?k` (an unknown size) can't appear in a parameter's type: the caller
  chooses the parameters' sizes, so write a generic axis `k`.
* `...` (rest axes) is only for `extern fn`, once per type, never inside a
  group.
* `Axis[n]`, `Axes[n]` and `Size[S]` parameters are only for `extern fn`.
* A generic axis that the parameters give only as a part of a group with
  other unknown parts, as `a` in `x: [(a b c)]`, has no size of its own:
  only the product is known, at the boundary and in Python. It may appear
  in that group, but not on its own: as an axis of a type in the signature,
  as a value, or in a `to`/`as` type. Give it as an axis of its own in a
  parameter, or use the group whole.
* A generic axis used as a value in the body must be read from a
  parameter's axis: the name itself or a multiple (`[n]`, `[2*n]`), or the
  one unknown part of a group. `n` of `x: [n + 1]` has no value.

Wrong:

```
fn first(x: [?k D]) -> [D] = x[0]
```

Fixed:

```
fn first(x: [k D]) -> [D] = x[0]
```

Wrong: `flat` splits one axis into three sizes that no argument gives:

```
fn flat(x: [(a b c)]) -> [a b c] = x to [a b c]
```

Fixed: take two of the sizes from another argument:

```
fn flat(x: [(a b c)], y: [a b]) -> [a b c] = x to [a b c]
```
";

E0307 = "E0307", "parameter declared twice",
"Each parameter of a function needs its own name.

Wrong:

```
fn add(x: [n], x: [n]) -> [n] = x
```

Fixed:

```
fn add(x: [n], y: [n]) -> [n] = x + y
```
";

E0308 = "E0308", "invalid extern fn",
"An `extern fn` gives a Python function a typed signature, so:

* its string is a dotted Python name, a module and a function, each part a
  Python identifier and not a keyword;
* it has no body, so it needs a return type;
* an `Axis` parameter can't have a default, and a function with one needs a
  first parameter with a shape;
* a `Size` default must be a number or a size from an earlier parameter;
* a return type with `...` needs a parameter with `...`.

Wrong:

```
extern fn erfc(x: Real) = \"torch.special.erfc\"
extern fn fn2(x: Real) -> Real = \"torch.lambda\"
```

Fixed:

```
extern fn erfc(x: Real) -> NonNeg = \"torch.special.erfc\"
extern fn fn2(x: Real) -> Real = \"torch.special.expit\"
```
";

E0309 = "E0309", "dim in a grouped size",
"In a grouped size such as `16gh`, the number is an integer and the name a
new axis name. A dim's name can't be grouped by touching: the group needs
its parentheses.

Wrong:

```
dim P = 16
fn f(x: [b 4P]) -> [b] = x[:, 0]
```

Fixed:

```
dim P = 16
fn f(x: [b (4 P)]) -> [b] = x[:, 0]
```
";

E0310 = "E0310", "not a type",
"A name used as a type must be a shape alias, a model or a record. A dim is
a size, a function is a value, and an imported file's name needs a
declaration after it.

Wrong:

```
dim D = 768
fn f(x: D) -> D = x
```

Fixed: put sizes in a shape:

```
dim D = 768
fn f(x: [D]) -> [D] = x
```
";

E0311 = "E0311", "group inside a group",
"A group `(a b)` is one axis whose size is the product of its parts. Groups
nest one level in types: a group can't contain another group (a grouped size
such as `16gh` is fine).

Wrong:

```
fn merge(x: [a b c]) -> [((a b) c)] = x to [((a b) c)]
```

Fixed: list the parts in one group:

```
fn merge(x: [a b c]) -> [(a b c)] = x to [(a b c)]
```
";

E0401 = "E0401", "sizes or shapes don't match",
"Two sizes that must be equal are not, after every dim is replaced by its
value. Generic and unknown sizes equal only themselves.

Wrong:

```
fn f(x: [n D], y: [196 D]) -> [n D] = x + y
```

Fixed: say what `n` is, or take the same size:

```
fn f(x: [n D], y: [n D]) -> [n D] = x + y
```
";

E0402 = "E0402", "size division is not exact",
"`a / b` in a size must be exact: `b` is a single term that divides every
term of `a`, symbolically or once dims are replaced by their values. So
`2*n / 2` is `n`, `n*m / n` is `m`, and `D / H` is `64` when `D = 768` and
`H = 12`, but `D / 5` and `n / 2` are not sizes.

In an extern fn's return type, a division rounds down instead, and a call
must make it round the same way for every value of the caller's generic
sizes: the divisor must be a number that divides the coefficient of every
generic size. `(2*t - 1)/2` is `t - 1` for every `t`, but `(t - 1)/2`
depends on whether `t` is odd.

Wrong:

```
fn halves(x: [n]) -> [n / 2] = x[0:n/2]
```

Fixed: write the other size as a multiple:

```
fn halves(x: [2*n]) -> [n] = x[0:n]
```
";

E0405 = "E0405", "not an axis of the argument",
"An axis name given to `over=` or to an `Axis` parameter must name an axis
of the tensor it refers to, and a position given to `over=` (`over=-1`)
must be one of its axes.

Wrong:

```
fn total(x: [b n]) -> [b] = sum(x, over=m)
```

Fixed:

```
fn total(x: [b n]) -> [b] = sum(x, over=n)
```
";

E0406 = "E0406", "argument is not what the parameter takes",
"An `Axis` parameter takes an axis name, a `Size` parameter a whole number
known before the program runs (a number, a dim or an axis name), a tuple of
sizes as many of them, and a rounded division's divisor must not be 0.
`over=` takes axis names, each once, and a position (`over=-1`) only for an
axis that has no name, such as `n1 + n2`; a named axis is given by its name.

Wrong:

```
fn total(x: [b t]) -> [b] = sum(x, over=1)
```

Fixed: name the axis:

```
fn total(x: [b t]) -> [b] = sum(x, over=t)
```
";

E0407 = "E0407", "wrong arguments for a call",
"A call gives each parameter at most one argument, by position or by
keyword, every parameter without a default gets one, and keywords name
parameters the function has. A sub-model is made with its sizes alone, so
each of its `Float`, `Int` and `Bool` fields needs a default. Patterns take their sizes as keywords that
name axes of the pattern.

Wrong:

```
fn f(x: [n]) -> [n] = x
fn g(y: [n]) -> [n] = f(y, scale=2)
```

Fixed:

```
fn f(x: [n]) -> [n] = x
fn g(y: [n]) -> [n] = f(y)
```
";

E0408 = "E0408", "a value of the wrong kind",
"A tensor where a Python value is needed, or the other way round, or
something that is not a value at all: `if` takes a Python `Bool` (use
`where` for tensors), `for` goes over a stack of models or `range(n)`,
functions are called rather than used as values, and `as`/`to` convert
tensors (a number takes a domain alone: `eps as Pos`).

Wrong:

```
fn relu(x: [n]) -> [n] {
  if x > 0 { return x }
  0 * x
}
```

Fixed: choose elementwise:

```
fn relu(x: [n]) -> [n] = where(x > 0, x, 0 * x)
```
";

E0409 = "E0409", "no such field or method",
"Only models and records have fields, and only models have methods; the
name must be one they declare. `m(x)` calls the model's `forward`.

Wrong:

```
dim D = 768
model Mlp { w: [D D] }
fn f(m: Mlp, x: [b D]) -> [b D] = x @ m.weight
```

Fixed:

```
dim D = 768
model Mlp { w: [D D] }
fn f(m: Mlp, x: [b D]) -> [b D] = x @ m.w
```
";

E0410 = "E0410", "invalid pattern",
"A pattern's axes are names, numbers and groups of them, each name once per
side, `...` at most once per side and on both sides or neither. `rearrange`
keeps every axis (the same names on both sides), `reduce` drops some,
`repeat` adds some (with keyword sizes), and `einsum` names each axis.

Wrong:

```
fn f(x: [b n d]) -> [b d] = rearrange(x, [b n d] -> [b d])
```

Fixed: reducing an axis says how:

```
fn f(x: [b n d]) -> [b d] = reduce(x, [b n d] -> [b d], mean)
```
";

E0411 = "E0411", "an axis name matches more than one axis",
"Axes are found by name for `over=`, `Axis` arguments and broadcasting, and a
name must find exactly one axis: a value of type `[b n n]` has two axes `n`,
and taking either one would be a silent guess. A pattern's right side names
its result's axes, even when their sizes coincide: after
`einsum(q, k, [b h i d], [b h j d] -> [b h i j])` the axes are `i` and `j`
(each of size `n`), so `over=j` says which one. A name that is no axis's name
finds the axes of that size: `over=n` there matches both, and is this error.

Wrong:

```
fn weights(s: [b n n]) -> [b n n] = softmax(s, over=n)
```

Fixed: name the axes apart with a pattern, then say which one:

```
fn weights(s: [b n n]) -> [b n n] {
  let t = rearrange(s, [b i j] -> [b i j])
  softmax(t, over=j)
}
```
";

E0412 = "E0412", "invalid field initialiser",
"A model's tensor field starts as `zeros`, `ones`, `normal(std=, mean=)` or
`uniform(lo=, hi=)`; without one, rank-2 and larger fields are
`normal(std=0.02)` and others `zeros`. Sub-models and record fields have no
initialiser. A model's `Float`, `Int` or `Bool` field may have a literal
default, optionally negated (`eps: Float = 1e-5`), its constructor
argument's default in Python. The arguments are numbers made of literals, dims and the
model's size parameters with `+ - * / **` and `sqrt`, `log`, `exp`
(He initialisation: `normal(std=(2.0 / (Cin * K * K)) ** 0.5)`); another
name is not a size. A value known when checking must make sense: a positive
`std`, a `lo` below `hi`, a finite number.

Wrong:

```
dim D = 768
model M { w: [D D] = gaussian(0.02) }
```

Fixed:

```
dim D = 768
model M { w: [D D] = normal(std=0.02) }
```
";

E0414 = "E0414", "size does not fit in 128 bits",
"Sizes are computed with 128-bit integers, and this one overflowed, as
written or once dims are replaced by their values (`[A*A]` with
`dim A = 100000000000000000000`).

Wrong:

```
dim Big = 170141183460469231731687303715884105727 + 1
```

Fixed: use sizes a tensor can have:

```
dim Big = 4096
```
";

E0415 = "E0415", "too few values for an operation",
"Some operations need a number of values the sizes may not give: `mean`,
`max`, `min`, `argmax`, `argmin` and `logsumexp` need one at least
(PyTorch's `mean` of no value is NaN and its `max` raises), the unbiased
`var` and `std` two (one value gives NaN; `correction=0`, the population's
statistic, needs one), and `topk` no more than the axis holds. Every axis
has at least one element, a generic size may be 1, and an unknown size,
such as the rows a mask selects, may be 0.

Wrong: a standard deviation over a batch that may hold one example:

```
fn spread(x: [b D]) -> [D] = std(x, over=b)
```

Fixed: the population's standard deviation, defined for one example:

```
fn spread(x: [b D]) -> [D] = std(x, over=b, correction=0)
```
";

E0419 = "E0419", "size with too many terms",
"A size is kept as a sum of terms, each a number times names, so that sizes
compare exactly. Multiplying sums multiplies their terms: `(a + b)*(c + d)`
has four, and ten such factors 1,024. A size of more than 1,024 terms is
refused rather than worked out, since each further factor doubles the work.

Wrong:

```
fn f(x: [(a+b)*(c+d)*(e+f)*(g+h)*(i+j)*(k+l)*(m+o)*(p+q)*(r+s)*(t+u)*(v+w)]) -> Int = 1
```

Fixed: give the axis one name:

```
fn f(x: [n]) -> [n] = x
```
";

E0502 = "E0502", "mixed dtypes",
"Tensor parameters without a dtype take any float dtype, the same for all of
them in one call. An integer or bool tensor there (`i64`, `Index[N]`,
`Bool`) is this error, and so is a tensor without a dtype (the caller's
float dtype, bf16 in a bf16 model) beside one with a concrete float dtype.
Operators and `where`/`maximum`/`minimum` follow the same rule: two float
dtypes (`bf16 * f32`), or a tensor without a dtype beside an `f32` one
(`x @ w` with `w: [D D] f32`, which fails once the model is bf16), are this
error. A float tensor made in a body (`zeros`, `eye`, `where(c, 1.0, 0.0)`)
has the body's float dtype: its tensors' one float dtype, else the default.

Wrong:

```
fn f(a: [n], b: [n]) -> [n] = a + b
fn g(x: [n] bf16, y: [n] f32) -> [n] bf16 = f(x, y)
```

Fixed: convert one of them:

```
fn f(a: [n], b: [n]) -> [n] = a + b
fn g(x: [n] bf16, y: [n] f32) -> [n] bf16 = f(x, y to bf16)
```
";

E0503 = "E0503", "an operation PyTorch does not define for a dtype",
"Some operations exist only for some dtypes, and PyTorch raises a
`RuntimeError` for the others: `-` with a bool tensor (negation or
subtraction), `abs` of a bool tensor, `mean`, `var`, `std`, `softmax` and
`log_softmax` of integers or bools, `argmax`, `argmin` and `topk` of bools,
and `@` of integers or bools. The checker reports them where they are
written. Integer and bool dtypes otherwise follow PyTorch's promotion
(`docs/shapescript/dtypes.md`): `sum` of a mask counts in `i64`, `/`
divides into `f32`.

Wrong: a mean of token counts that are integers:

```
fn average(counts: [b n] i64) -> [b] = mean(counts, over=n)
```

Fixed: convert them to the float dtype first:

```
fn average(counts: [b n] i64) -> [b] f32 = mean(counts to f32, over=n)
```
";

E0601 = "E0601", "`log` or `rsqrt` of a value that may be 0 or less",
"`log` and `rsqrt` are defined only above 0: at 0 they give an infinity, and
below it NaN, which then spreads through the gradients. The checker follows
every value's range (`docs/shapescript/ranges.md`): from the domains in the
types (`NonNeg`, `Unit`, ...), the constants and the operations. The note
shows the argument's range and where it came from; the usual fix adds a
small constant, clamps, or works in log space (`log_softmax`). A Python
`Float` or `Int` parameter or field is `Real`: narrow it where it comes in,
`rsqrt(var + (eps as Pos))` (checked when the program runs).

Wrong: a probability may be exactly 0:

```
fn nll(p: [b c] Unit) -> [b c] = -log(p)
```

Fixed: keep it away from 0:

```
fn nll(p: [b c] Unit) -> [b c] = -log(p + 1e-6)
```
";

E0602 = "E0602", "division by a value that may be 0",
"A division whose divisor's range holds 0 may give an infinity or NaN. A
standard deviation or a variance is 0 for a constant row, a sum of
non-negative values is 0 when they all are. Add a small constant, or clamp
the divisor away from 0. A Python `Float` or `Int` divisor is `Real`:
narrow it where it comes in, `x / (t as Pos)`. A sum over a softmax's axis
(of its top k, say) holds its largest value and needs nothing.

Wrong: a feature constant over the batch has a standard deviation of 0:

```
fn standardize(x: [b D]) -> [b D] = (x - mean(x, over=b)) / std(x, over=b, correction=0)
```

Fixed: add a small constant to the divisor:

```
fn standardize(x: [b D]) -> [b D] = (x - mean(x, over=b)) / (std(x, over=b, correction=0) + 1e-5)
```
";

E0603 = "E0603", "ids of another range than the axis they index",
"`Index[N]` ids lie in `[0, N)`, and a parameter or record field that takes
`Index[V]` ids (`embedding`'s, `take`'s, `one_hot`'s) indexes an axis of
size `V`, and so does an integer tensor that indexes an axis of size `V`
(`x[ids]`, `x[:, ids]`). Ids
whose bound differs from that size either reach past the axis (PyTorch
fails with an index error at run time) or never use part of it: one of
the two sizes is wrong. Integer ids of no `Index` domain fit when their
range lies in `[0, V)` (`arange(n) + 1` reaches `n`, one past the end); an
`as [k] Index[V]` claims the range and is checked when the program runs.

Wrong: ids up to 50256 into a table of 50000 rows:

```
dim D = 768
fn embed(ids: [b n] Index[50257], table: [50000 D]) -> [b n D] = embedding(ids, table)
```

Fixed: one row per id:

```
dim D = 768
fn embed(ids: [b n] Index[50257], table: [50257 D]) -> [b n D] = embedding(ids, table)
```
";

E0604 = "E0604", "`sqrt` of a value that may be negative",
"`sqrt` is defined for 0 and above; below 0 it gives NaN. The note shows
the argument's range and where it came from. Clamp at 0, take the absolute
value, or state a narrower domain in the type.

Wrong: `x - 1` is negative for `x` below 1:

```
fn f(x: [n] NonNeg) -> [n] = sqrt(x - 1.0)
```

Fixed: clamp at 0 first:

```
fn f(x: [n] NonNeg) -> [n] = sqrt(clamp(x - 1.0, lo=0.0))
```
";

E0605 = "E0605", "`log1p` of a value that may be -1 or less",
"`log1p(x)` is `log(1 + x)`, defined above -1: at -1 it gives minus
infinity, below it NaN. The note shows the argument's range and where it
came from.

Wrong: `-p` reaches -1 when `p` is 1:

```
fn f(p: [n] Unit) -> [n] = log1p(-p)
```

Fixed: keep `1 - p` away from 0:

```
fn f(p: [n] Unit) -> [n] = log1p(-p * 0.99)
```
";

E0606 = "E0606", "a value outside the declared domain",
"A return type, a `let`'s type, a parameter or a record's field declares a
domain, and the value given may lie outside it: a `Real` value where `Unit` is declared.
A number parameter's default is known when checking: an `as` or `to` on a
literal there (`eps: Float = (1e-5 as Pos)`) is decided then, and a literal
outside the domain is this error too.
The note shows the value's range and where it came from. Narrow it: `to
Unit` clamps, `as Unit` claims it and checks it when the program runs, or
compute it with an operation whose range fits (`sigmoid`, `softmax`).

Wrong: a `Real` value returned as `Unit`:

```
fn prob(x: [n]) -> [n] Unit = x
```

Fixed: an operation whose values are in [0, 1]:

```
fn prob(x: [n]) -> [n] Unit = sigmoid(x)
```
";

E0607 = "E0607", "an integer power with an exponent that may be negative",
"PyTorch computes `a ** b` of integer tensors in integers, and raises
`Integers to negative integer powers are not allowed` when the exponent is
negative. The checker follows the exponent's range
(`docs/shapescript/ranges.md`): a negative number, or an integer tensor or
`Int` whose range reaches below 0, is this error. Convert the base to a
float first.

Wrong: the reciprocal of counts that are integers:

```
fn inverse(counts: [n] i64) -> [n] i64 = counts ** -1
```

Fixed: in floats:

```
fn inverse(counts: [n] i64) -> [n] f32 = (counts to f32) ** -1
```
";

E0901 = "E0901", "construct the Python generator cannot compile",
"`shapescript build` reports this when a program `shapescript check` accepts
uses something the PyTorch generator cannot emit. The checker refuses every
such construct it knows of itself first (a reshape or a value needing a size
known only as part of a group is E0306, a `Size` argument unknown before the
program runs E0406, ...), so E0901 is the generator's safety net instead of a
wrong module, and no program is known to reach it: a program that checks
clean builds (a test builds every clean UI test and example and imports it).
Nothing is written. The message names the expression the generator could not
emit: write it with the constructs in `docs/shapescript/python.md`, and
report the program.
";

E0902 = "E0902", "two files become the same Python module",
"Each `.ss` file becomes one Python module named after the file's stem (with
characters Python does not allow in a module name replaced by `_`), all in
one package folder. When two files of one program get the same module name,
such as files of the same name in two folders, `shapescript build` refuses
to write anything.

Wrong, two files named `blocks.ss` in one program:

```
# vision/blocks.ss
dim P = 16
# text/blocks.ss
dim T = 512
```

Fixed: rename one of them:

```
# vision/blocks.ss
dim P = 16
# text/text_blocks.ss
dim T = 512
```
";

E2201 = "E2201", "shape alias defined in terms of itself",
"A shape alias may use other aliases, declared before or after it, but not
itself, directly or through others. The note shows each step of the chain.

Wrong:

```
dim Pair = [Images 2]
dim Images = [Pair 3]
```

Fixed:

```
dim Pair = [Images 2]
dim Images = [b 3 16gh 16gw]
```
";

E2202 = "E2202", "shape alias inside one axis",
"A shape alias stands for several axes, so it can't be part of one axis:
inside a group, in arithmetic, or in parentheses (`[(Images)]` is one axis,
not the alias's axes).

Wrong:

```
dim Images = [b 3 16gh 16gw]
fn f(x: [(2 Images)]) -> [b] = x[0]
```

Fixed: use it among the shape's axes:

```
dim Images = [b 3 16gh 16gw]
fn f(x: [2 Images]) -> Images = x[0]
```
";

E2203 = "E2203", "shape alias expands to too many axes",
"A shape can have at most 4096 axes once its aliases are replaced. An alias
that uses another alias twice doubles its length at each step, so a short
chain can ask for millions of axes.

Wrong: each alias doubles the next, so `A` has 2^13 = 8192 axes:

```
dim A = [B B]
dim B = [C C]
dim C = [E E]
dim E = [F F]
dim F = [G G]
dim G = [H H]
dim H = [I I]
dim I = [J J]
dim J = [K K]
dim K = [L L]
dim L = [M M]
dim M = [N N]
dim N = [O O]
dim O = [n]
fn f(x: A) -> A = x
```

Fixed: name the axes a tensor really has:

```
dim A = [b n D]
dim D = 768
fn f(x: A) -> A = x
```
";

H2201 = "H2201", "grouped size probably meant",
"`16 gh`, with a space, is two axes, 16 and gh; `16gh`, touching, is one
axis of size 16 × gh. This hint is given in a signature when a number greater
than 1 is directly followed by a name that isn't a dim, is an axis of its own
nowhere else in the signature, and is part of a group somewhere in it.

Wrong:

```
dim D = 768
extern fn patchify(img: [b 3 16 gh 16gw]) -> [b (gh gw) D] = \"vision.patchify\"
```

Fixed:

```
dim D = 768
extern fn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) D] = \"vision.patchify\"
```
";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_unique_and_every_entry_has_text() {
        diag::assert_sorted(CHECKER);
        diag::assert_sorted(all());
        // What no program text can show: an unreadable file, and the
        // generator's safety net, which no known program reaches.
        let without_examples = [E0205.id, E0901.id];
        for info in all() {
            assert!(!info.title.is_empty(), "{} has no title", info.id);
            let kinds: Vec<diag::ExampleKind> = info.examples().iter().map(|e| e.kind).collect();
            let shown = kinds.contains(&diag::ExampleKind::Wrong)
                && kinds.contains(&diag::ExampleKind::Fixed);
            assert_eq!(
                shown,
                !without_examples.contains(&info.id),
                "{} should have a Wrong and a Fixed example exactly when a program can show it",
                info.id
            );
            // A Wrong or Fixed paragraph of two lines or more loses its
            // kind at the second line, and its block would go untested.
            assert_eq!(
                info.explain.matches("```").count(),
                2 * info.examples().len(),
                "{}: every code block is a Wrong or Fixed example, each after a one-line paragraph",
                info.id
            );
        }
        assert!(all().iter().any(|info| info.id == "E0101"));
    }

    #[test]
    fn lookup_ignores_case() {
        assert_eq!(lookup("e0402").map(|i| i.id), Some("E0402"));
        assert!(lookup("E9999").is_none());
    }
}
