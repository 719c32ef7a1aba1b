"""The soundness harness (docs/shapescript/soundness.md): a worker that
reads requests as JSON lines on stdin and answers each with one JSON line.

A request names a package built from generated programs (with the boundary
checks and probes on) and gives, per program, its spec (the entry points,
their parameters' types and return types in the generator's terms) and the
generator's independent PyTorch reference. For each entry point and run the
worker draws sizes and inputs that satisfy the types, calls the generated
function and the reference, and reports every failure: an exception, a
probe (an intermediate whose shape, dtype or range is not the checker's), a
result whose shape, dtype or values differ from the intended ones or the
reference's, or a reference that fails (a generator bug)."""

import importlib
import json
import math
import random
import re
import sys
import traceback
import warnings

import torch

torch.set_num_threads(1)
# PyTorch warns of `var` over one value and the like: the results are checked.
warnings.filterwarnings("ignore")

DT = {
    "f32": torch.float32,
    "f64": torch.float64,
    "bf16": torch.bfloat16,
    "i64": torch.int64,
    "i32": torch.int32,
    "bool": torch.bool,
}
FLOATS = [torch.float32, torch.float64, torch.bfloat16]
GMAX = 5
TOL = {torch.float64: 1e-7, torch.float32: 2e-3, torch.bfloat16: 1e-1}


class Ctx:
    """A reference call's sizes (`s`, dims included) and float dtype (`f`)."""

    def __init__(self, s, f, dims):
        self.s = s
        self.f = f
        self.dims = dims

    def sub(self, s, f):
        d = dict(self.dims)
        d.update(s)
        return Ctx(d, f, self.dims)


def _al(x, pos, rank):
    shape = [1] * rank
    for p, s in zip(pos, x.shape):
        shape[p] = s
    return x.reshape(shape)


def _red(f, x, dims):
    if not dims:
        dims = list(range(x.ndim))
    if f in ("var0", "std0"):
        fn = torch.var if f == "var0" else torch.std
        return fn(x, dim=tuple(dims), correction=0)
    if f in ("prod", "any", "all"):
        fn = {"prod": torch.prod, "any": torch.any, "all": torch.all}[f]
        if x.ndim == 0:
            return fn(x)
        for d in sorted(dims, reverse=True):
            x = fn(x, dim=d)
        return x
    fn = {
        "sum": torch.sum,
        "mean": torch.mean,
        "max": torch.amax,
        "min": torch.amin,
        "logsumexp": torch.logsumexp,
        "var": torch.var,
        "std": torch.std,
    }[f]
    if x.ndim == 0:
        return fn(x) if f not in ("max", "min", "logsumexp") else x
    return fn(x, dim=tuple(dims))


def _axis(f, x, d):
    if f == "sort":
        return torch.sort(x, dim=d).values
    return {
        "softmax": torch.softmax,
        "log_softmax": torch.log_softmax,
        "cumsum": torch.cumsum,
        "argmax": torch.argmax,
        "argmin": torch.argmin,
    }[f](x, d)


def _where(c, a, b, dt):
    if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
        a = torch.tensor(a, dtype=dt)
    return torch.where(c, a, b)


def _take(x, ids, dim):
    picked = torch.index_select(x, dim, ids.reshape(-1))
    return picked.reshape(tuple(x.shape[:dim]) + tuple(ids.shape) + tuple(x.shape[dim + 1 :]))


def _clamp(x, lo, hi):
    return torch.clamp(x, min=lo, max=hi)


def _clamp_pos(x):
    return torch.clamp(x, min=torch.finfo(x.dtype).tiny)


def _layout(x, split, reduce, order, expand, merge):
    x = x.reshape(split)
    kept = list(range(len(split)))
    if reduce is not None:
        f, dims = reduce
        x = _red(f, x, dims)
        kept = [i for i in kept if i not in dims]
    perm = [kept.index(o) for o in order if o >= 0]
    x = x.permute(perm)
    view = [1 if o < 0 else split[o] for o in order]
    return x.reshape(view).expand(expand).reshape(merge)


def _nn(f, args, kw):
    """The reference of a layer or extern call: torch's own function, with
    the arguments as the generator planned them."""
    F = torch.nn.functional
    if f in ("conv1d", "conv2d"):
        x, w = args[0], args[1]
        b = args[2] if len(args) > 2 else None
        return getattr(F, f)(x, w, b, stride=kw.get("stride", 1), padding=kw.get("padding", 0))
    if f in ("max_pool2d", "avg_pool2d"):
        k = kw["kernel_size"]
        return getattr(F, f)(args[0], k, stride=kw.get("stride", k), padding=kw.get("padding", 0))
    if f == "interpolate":
        mode = "bilinear" if kw.get("bilinear") else "nearest"
        extra = {"align_corners": False} if mode == "bilinear" else {}
        return F.interpolate(args[0], scale_factor=kw["scale_factor"], mode=mode, **extra)
    if f == "index_add":
        return torch.index_add(args[0], 0, args[1], args[2])
    if f == "scatter_add":
        return torch.scatter_add(args[0], 0, args[1], args[2])
    if f == "dropout":
        # Only runs that drop nothing: p = 0, or not training.
        assert kw.get("p", 0.5) == 0.0 or not kw.get("training", True)
        return args[0]
    if f == "roll":
        return torch.roll(args[0], shifts=kw["shifts"], dims=kw["dims"])
    if f == "flip":
        return torch.flip(args[0], dims=[kw["dims"]])
    if f == "split":
        x, d = args[0], kw["over"]
        return torch.split(x, x.shape[d] // kw["k"], dim=d)[kw["part"]]
    raise ValueError(f"no reference for {f}")


HELPERS = {
    "_nn": _nn,
    "torch": torch,
    "math": math,
    "_al": _al,
    "_red": _red,
    "_axis": _axis,
    "_where": _where,
    "_take": _take,
    "_clamp": _clamp,
    "_clamp_pos": _clamp_pos,
    "_layout": _layout,
}


def poly(terms, sizes):
    total = 0
    for coef, syms in terms:
        v = coef
        for s in syms:
            v *= sizes[s]
        total += v
    return total


def draw_sizes(names, rng):
    return {g: (1 if rng.random() < 0.2 else rng.randint(1, GMAX)) for g in names}


def make_input(p, sizes, fdt, rng, gen):
    kind = p["kind"]
    if kind == "int":
        return rng.randint(int(math.ceil(p["lo"])), int(math.floor(p["hi"])))
    if kind == "float":
        return rng.choice([p["lo"], p["hi"], rng.uniform(p["lo"], p["hi"])])
    if kind == "bool":
        return rng.random() < 0.5
    shape = [poly(s, sizes) for s in p["shape"]]
    dt = fdt if p["dtype"] == "F" else DT[p["dtype"]]
    dom = p["dom"]
    if dt == torch.bool:
        return torch.rand(shape, generator=gen) < 0.5
    if isinstance(dom, dict):
        n = poly(dom["index"], sizes)
        return torch.randint(0, n, shape, generator=gen).to(dt)
    lo, hi = p["lo"], p["hi"]
    if dt in (torch.int64, torch.int32):
        # `Pos` integers start at 1, `Neg` ones end at -1 (0 is outside).
        low = max(int(math.ceil(lo)), 1) if dom == "Pos" else int(math.ceil(lo))
        high = min(int(math.floor(hi)), -1) if dom == "Neg" else int(math.floor(hi))
        return torch.randint(low, max(high, low) + 1, shape, generator=gen).to(dt)
    x = lo + (hi - lo) * torch.rand(shape, generator=gen, dtype=torch.float64)
    # The ends themselves, now and then: 0 of NonNeg, 1 of Unit.
    edge = torch.rand(shape, generator=gen, dtype=torch.float64)
    x = torch.where(edge < 0.1, torch.full_like(x, lo), x)
    x = torch.where(edge > 0.9, torch.full_like(x, hi), x)
    return x.to(dt)


class Failure(Exception):
    def __init__(self, kind, detail):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def expected_dtype(ty, fdt):
    return fdt if ty["dtype"] == "F" else DT[ty["dtype"]]


def check_result(got, ref, ty, sizes, fdt, compare_values):
    """Compares one result with its intended type and the reference's."""
    if ty["kind"] == "tuple":
        if not isinstance(got, tuple) or len(got) != len(ty["items"]):
            raise Failure("type", f"expected a tuple of {len(ty['items'])}, got {type(got).__name__}")
        for g, r, t in zip(got, ref, ty["items"]):
            check_result(g, r, t, sizes, fdt, compare_values)
        return
    if ty["kind"] != "tensor":
        if isinstance(got, torch.Tensor):
            raise Failure("type", f"expected a Python {ty['kind']}, got a tensor")
        if ty["kind"] == "int" and (not isinstance(got, int) or got != ref):
            raise Failure("value", f"got {got!r}, reference {ref!r}")
        return
    if not isinstance(got, torch.Tensor):
        raise Failure("type", f"expected a tensor, got {type(got).__name__}")
    want_dt = expected_dtype(ty, fdt)
    want = [None if s is None else poly(s, sizes) for s in ty["shape"]]
    if not isinstance(ref, torch.Tensor) or ref.dtype != want_dt or len(ref.shape) != len(want) or any(
        w is not None and w != r for w, r in zip(want, ref.shape)
    ):
        rs = tuple(ref.shape) if isinstance(ref, torch.Tensor) else type(ref).__name__
        rd = ref.dtype if isinstance(ref, torch.Tensor) else None
        raise Failure("generator", f"the reference gives {rs} {rd}, the generator intends {want} {want_dt}")
    if len(got.shape) != len(want) or tuple(got.shape) != tuple(ref.shape):
        raise Failure("shape", f"got shape {tuple(got.shape)}, intended {want} (reference {tuple(ref.shape)})")
    if got.dtype != want_dt:
        raise Failure("dtype", f"got dtype {got.dtype}, intended {want_dt}")
    if got.numel() == 0 or not compare_values:
        return
    if want_dt in (torch.bool, torch.int64, torch.int32):
        if not torch.equal(got, ref):
            bad = (got != ref).sum().item()
            raise Failure("value", f"{bad} of {got.numel()} elements differ from the reference")
        return
    g, r = got.detach().double(), ref.detach().double()
    if bool(torch.isnan(g).any()) or bool(torch.isnan(r).any()):
        if not torch.equal(torch.isnan(g), torch.isnan(r)):
            raise Failure("value", "NaN where the reference has none, or the other way")
        g, r = torch.nan_to_num(g), torch.nan_to_num(r)
    diff = (g - r).abs().max().item()
    scale = 1.0 + r.abs().max().item()
    if not diff <= TOL[want_dt] * scale:
        raise Failure("value", f"max abs difference {diff:.3g} (values up to {scale - 1:.3g})")


NUMBER = r"(-?[0-9.e+-]+|None|inf|-inf)"
RANGE = re.compile(
    r"values in \[" + NUMBER + ", " + NUMBER + r"\] are outside \(" + NUMBER + ", " + NUMBER + ", (True|False), (True|False)\)"
)


def range_kind(text):
    """A probe's range failure: `probe-range-nan` for NaN, `probe-range-rounding`
    for values just past an end (float rounding: within 1% of the bound's
    size, or on an open end), `probe-range-zero` for a value that is all
    zeros outside a range that excludes 0 (a sum of no values), else
    `probe-range`."""
    if "NaN" in text:
        return "probe-range-nan"
    m = RANGE.search(text)
    if not m:
        return "probe-range"
    num = lambda v: None if v == "None" else float(v)
    smallest, largest, lo, hi = (num(m.group(i)) for i in range(1, 5))
    past = 0.0
    if lo is not None:
        past = max(past, lo - smallest)
    if hi is not None:
        past = max(past, largest - hi)
    bound = max(abs(lo or 0.0), abs(hi or 0.0), 1.0)
    if past <= 1e-2 * bound:
        return "probe-range-rounding"
    excludes_zero = (lo is not None and lo > 0) or (hi is not None and hi < 0)
    if smallest == 0.0 and largest == 0.0 and excludes_zero:
        return "probe-range-zero"
    return "probe-range"


def classify(exc):
    """The kind of an exception the generated code raised."""
    name = type(exc).__name__
    text = str(exc).split("\n")[0][:300]
    if name == "ProbeError":
        kind = text.split(":")[0]
        if kind == "range":
            return range_kind(text), text
        return "probe-" + kind, text
    if name == "ShapeError":
        return "shape-error", text
    return "raises", f"{name}: {text}"


def model_sizes(tree):
    """A model's size parameters (the models inside it get theirs from it)."""
    return list(tree["sizes"])


class Namespace:
    """A model's fields by their ShapeScript names, for the reference."""


def buffer_value(ref_ns, f, sizes, dims, fdt):
    """A buffer as the reference computes it: in f32, when the model is
    made, then converted with the model (a float buffer only)."""
    value = ref_ns[f["ref"]](Ctx(sizes, torch.float32, dims))
    return value.to(fdt) if f["float"] else value


def inner_sizes(f, sizes):
    """A sub-model's sizes: its size parameters bound to the field's args."""
    inner = dict(sizes)
    inner.update({p: poly(a, sizes) for p, a in zip(f["model"]["sizes"], f["args"])})
    return inner


def namespace(module, tree, ref, sizes):
    """The model's fields for the reference: parameters and sub-models from
    the module, buffers computed by the reference itself (`ref` is the
    reference's namespace, the dims and the float dtype; `None`: the
    module's), and the module's mode (`training`)."""
    ns = Namespace()
    ns.training = module.training
    for f in tree["fields"]:
        value = getattr(module, f["py"])
        if f["kind"] == "sub":
            value = namespace(value, f["model"], ref, inner_sizes(f, sizes))
        elif f["kind"] == "stack":
            value = [namespace(v, f["model"], ref, sizes) for v in value]
        elif f["kind"] == "buffer" and ref is not None:
            ref_ns, dims, fdt = ref
            value = buffer_value(ref_ns, f, sizes, dims, fdt)
        setattr(ns, f["ss"], value)
    return ns


def instance(mod, tree, sizes, fdt, gen):
    """The model built with its sizes, its parameters drawn in [-1, 1] (the
    generator's bounds for fields), in the run's float dtype."""
    cls = getattr(mod, tree["py"])
    model = cls(*[sizes[p] for p in tree["sizes"]])
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.rand(p.shape, generator=gen, dtype=torch.float64) * 2 - 1)
    return model.to(fdt)


def sizes_for(entry, dims, rng):
    sizes = dict(dims)
    names = list(entry["generics"])
    if entry.get("model"):
        names += model_sizes(entry["model"])
    sizes.update(draw_sizes(names, rng))
    return sizes


def callee(mod, entry, sizes, fdt, gen, ref=None, train=True):
    """The emitted function, or the method of a fresh model (in training
    mode or not), and the reference's leading arguments (the model's
    fields, `namespace`)."""
    if not entry.get("model"):
        return getattr(mod, entry["py"]), []
    model = instance(mod, entry["model"], sizes, fdt, gen)
    model.train(train)
    return getattr(model, entry["py"]), [namespace(model, entry["model"], ref, sizes)]


def fields_only(tree, sizes, fdt, gen, ref_ns, dims):
    """A rejected program's model has no class: its fields drawn from the
    spec alone (buffers computed by the reference), for the reference."""
    ns = Namespace()
    ns.training = True
    for f in tree["fields"]:
        if f["kind"] == "tensor":
            shape = [poly(s, sizes) for s in f["shape"]]
            value = (torch.rand(shape, generator=gen, dtype=torch.float64) * 2 - 1).to(fdt)
        elif f["kind"] == "buffer":
            value = buffer_value(ref_ns, f, sizes, dims, fdt)
        elif f["kind"] == "sub":
            value = fields_only(f["model"], inner_sizes(f, sizes), fdt, gen, ref_ns, dims)
        else:
            value = [fields_only(f["model"], sizes, fdt, gen, ref_ns, dims) for _ in range(f["count"])]
        setattr(ns, f["ss"], value)
    return ns


def run_entry(mod, ref_ns, entry, dims, rng, seed):
    sizes = sizes_for(entry, dims, rng)
    fdt = rng.choice(FLOATS) if entry["float"] == "F" else DT[entry["float"]]
    gen = torch.Generator().manual_seed(seed)
    try:
        train = rng.random() < 0.5 if entry.get("model") else True
        fn, leading = callee(mod, entry, sizes, fdt, gen, (ref_ns, dims, fdt), train)
    except Exception as exc:
        kind, detail = classify(exc)
        return {"entry": entry["name"], "sizes": sizes, "float": str(fdt), "kind": kind, "detail": "making the model: " + detail}
    args = [make_input(p, sizes, fdt, rng, gen) for p in entry["params"]]
    record = {"entry": entry["name"], "sizes": sizes, "float": str(fdt).replace("torch.", "")}
    if not train:
        record["sizes"] = dict(sizes, eval_mode=1)
    ctx = Ctx(sizes, fdt, dims)
    try:
        ref = ref_ns[entry["ref"]](ctx, *leading, *[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
    except Exception as exc:  # the generator's own mistake
        record.update(kind="generator", detail=f"the reference raised {type(exc).__name__}: {str(exc)[:300]}")
        return record
    try:
        got = fn(*args)
    except Exception as exc:
        kind, detail = classify(exc)
        if kind == "shape-error" and detail.startswith(entry["py"] + ": parameter"):
            # The entry's own boundary check: inputs that do not fit the
            # types the entry's record (`spec.rs`) gave, the generator's mistake.
            kind = "generator"
        record.update(kind=kind, detail=detail)
        return record
    # A comparison of computed floats may tip the other way in low precision.
    compare = fdt == torch.float64 or not entry["discontinuous"]
    try:
        check_result(got, ref, entry["ret"], sizes, fdt, compare)
    except Failure as f:
        record.update(kind=f.kind, detail=f.detail)
        return record
    return None


# Sizes no two axes share (generics, model sizes, then dims), for a
# mutant's naive translation: what PyTorch runs only because two sizes are
# equal (or 1) is an accident of positional broadcasting, not a program
# the checker should take.
DISTINCT = [7, 11, 13, 17, 19, 23, 29, 31]
DISTINCT_DIMS = [5, 6, 9, 10, 12, 15]


def distinct_sizes(entry, dims):
    """The dims and the sizes of one call in which every axis differs."""
    d = {name: DISTINCT_DIMS[i % len(DISTINCT_DIMS)] for i, name in enumerate(sorted(dims))}
    names = list(entry["generics"])
    if entry.get("model"):
        names += model_sizes(entry["model"])
    sizes = dict(d)
    sizes.update({g: DISTINCT[i % len(DISTINCT)] for i, g in enumerate(names)})
    return d, sizes


def check_reference(ref_ns, entry, dims, rng, seed, fixed=None):
    """A rejected program's reference alone: whether the generator's
    intended types hold for it (the checker was imprecise) or not (the
    generator erred). `fixed`: the dims and sizes to use (`distinct_sizes`)."""
    if fixed is None:
        sizes = sizes_for(entry, dims, rng)
    else:
        dims, sizes = fixed
    fdt = rng.choice(FLOATS) if entry["float"] == "F" else DT[entry["float"]]
    gen = torch.Generator().manual_seed(seed)
    args = [make_input(p, sizes, fdt, rng, gen) for p in entry["params"]]
    record = {"entry": entry["name"], "sizes": sizes, "float": str(fdt).replace("torch.", "")}
    try:
        model = entry.get("model")
        leading = [fields_only(model, sizes, fdt, gen, ref_ns, dims)] if model else []
        ref = ref_ns[entry["ref"]](Ctx(sizes, fdt, dims), *leading, *args)
        check_result(ref, ref, entry["ret"], sizes, fdt, False)
    except Failure as f:
        record.update(kind="generator", detail=f.detail)
        return record
    except Exception as exc:
        record.update(kind="generator", detail=f"the reference raised {type(exc).__name__}: {str(exc)[:300]}")
        return record
    return None


def run_emitted(mod, entry, dims, rng, seed):
    """A mutant the checker accepted: the emitted code alone must run, its
    probes pass and its result have the declared type."""
    sizes = sizes_for(entry, dims, rng)
    fdt = rng.choice(FLOATS) if entry["float"] == "F" else DT[entry["float"]]
    gen = torch.Generator().manual_seed(seed)
    record = {"entry": entry["name"], "sizes": sizes, "float": str(fdt).replace("torch.", "")}
    try:
        fn, _ = callee(mod, entry, sizes, fdt, gen)
        args = [make_input(p, sizes, fdt, rng, gen) for p in entry["params"]]
        got = fn(*args)
        check_result(got, got, entry["ret"], sizes, fdt, False)
    except Failure as f:
        kind = "shape" if f.kind == "generator" else f.kind
        record.update(kind=kind, detail=f.detail)
        return record
    except Exception as exc:
        kind, detail = classify(exc)
        record.update(kind=kind, detail=detail)
        return record
    return None


def run_program(root, package, prog, runs, seed):
    out = {"module": prog["module"], "calls": 0, "failures": []}
    if prog.get("mode") == "emitted_only":
        mod = importlib.import_module(f"{package}.{prog['module']}")
        rng = random.Random(seed)
        for entry in prog["spec"]["entries"]:
            for run in range(runs):
                out["calls"] += 1
                failure = run_emitted(mod, entry, prog["spec"]["dims"], rng, seed * 7919 + run)
                if failure is not None:
                    out["failures"].append(failure)
                    break
        return out
    if prog.get("mode") == "reference_only":
        ref_ns = dict(HELPERS)
        exec(compile(prog["reference"], f"<reference {prog['module']}>", "exec"), ref_ns)
        rng = random.Random(seed)
        if prog.get("distinct"):
            # A mutant: does its naive translation run when no two axes
            # share a size?
            dims = prog["spec"]["dims"]
            out["distinct"] = all(
                check_reference(ref_ns, e, dims, rng, seed, distinct_sizes(e, dims)) is None
                for e in prog["spec"]["entries"]
            )
        for entry in prog["spec"]["entries"]:
            for run in range(runs):
                failure = check_reference(ref_ns, entry, prog["spec"]["dims"], rng, seed * 7919 + run)
                if failure is not None:
                    out["failures"].append(failure)
                    break
        return out
    try:
        mod = importlib.import_module(f"{package}.{prog['module']}")
    except Exception as exc:
        out["failures"].append({"entry": "", "kind": "import", "detail": f"{type(exc).__name__}: {str(exc)[:300]}"})
        return out
    ref_ns = dict(HELPERS)
    try:
        exec(compile(prog["reference"], f"<reference {prog['module']}>", "exec"), ref_ns)
    except Exception as exc:
        out["failures"].append({"entry": "", "kind": "generator", "detail": f"reference: {exc}"})
        return out
    spec = prog["spec"]
    rng = random.Random(seed)
    for entry in spec["entries"]:
        seen = set()
        for run in range(runs):
            out["calls"] += 1
            failure = run_entry(mod, ref_ns, entry, spec["dims"], rng, seed * 7919 + run)
            if failure is None:
                continue
            key = (failure["kind"], failure["detail"].split(":")[0])
            if key not in seen:
                seen.add(key)
                failure["run"] = run
                out["failures"].append(failure)
    return out


def serve():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        root = req["root"]
        if root not in sys.path:
            sys.path.insert(0, root)
        importlib.invalidate_caches()
        results = []
        for i, prog in enumerate(req["programs"]):
            try:
                results.append(run_program(root, req["package"], prog, req["runs"], req["seed"] + i))
            except Exception:
                results.append({"module": prog["module"], "calls": 0, "failures": [{"entry": "", "kind": "harness", "detail": traceback.format_exc()[-500:]}]})
        sys.stdout.write(json.dumps({"results": results}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve()
