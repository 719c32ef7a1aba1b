"""Reads the parameters a ShapeScript file's models declare, for the tests.

A deliberately small reader, enough for examples/shapescript/*.ss and no
more: it evaluates `dim` sizes, and walks a model's fields (tensors
`name: [axes]`, sub-models `name: Model(args)`, stacks `name: [L] Model`),
skipping methods, to list the state dict a generated module will have. It is
not the ShapeScript parser and checks nothing; anything it doesn't
understand raises, so it can't silently miscount. When `shapescript build`
exists, the tests can read the generated modules' state dicts instead.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

TOKEN = re.compile(r"\s*(\d+|[A-Za-z_]\w*|\*\*|[-+*/()])")
BINARY = {"+", "-", "*", "/", "**"}


def strip_comments(text: str) -> str:
    return "\n".join(line.split("#", 1)[0].rstrip() for line in text.splitlines())


def tokens(expr: str) -> list[str]:
    out, pos = [], 0
    expr = expr.strip()
    while pos < len(expr):
        match = TOKEN.match(expr, pos)
        if not match:
            raise ValueError(f"can't read size expression {expr!r} at {expr[pos:]!r}")
        out.append(match.group(1))
        pos = match.end()
    return out


def evaluate(expr: str, sizes: dict[str, int]) -> int:
    """A size expression over numbers and known sizes; `/` must be exact."""
    python = []
    for token in tokens(expr):
        if token.isdigit():
            python.append(f"Fraction({token})")
        elif token[0].isalpha() or token[0] == "_":
            if token not in sizes:
                raise KeyError(token)
            python.append(f"Fraction({sizes[token]})")
        else:
            python.append(token)
    value = eval(" ".join(python), {"Fraction": Fraction})  # noqa: S307 - our own token list
    if value.denominator != 1 or value < 1:
        raise ValueError(f"{expr!r} is {value}, not a whole size of at least 1")
    return int(value)


def split_axes(inner: str) -> list[str]:
    """Axes of `[...]`: juxtaposed, but an axis continues across a binary operator."""
    axes: list[list[str]] = []
    depth = 0
    for token in tokens(inner):
        joins = axes and (depth > 0 or token in BINARY or axes[-1][-1] in BINARY)
        if joins:
            axes[-1].append(token)
        else:
            axes.append([token])
        depth += token.count("(") - token.count(")")
    return [" ".join(axis) for axis in axes]


def dims(text: str) -> dict[str, int]:
    """Every `dim NAME = size` of the file, in dependency order."""
    pending = dict(re.findall(r"^dim[ \t]+(\w+)[ \t]*=[ \t]*([^\[\s].*)$", text, re.M))
    sizes: dict[str, int] = {}
    while pending:
        progress = False
        for name, expr in list(pending.items()):
            try:
                sizes[name] = evaluate(expr, sizes)
            except KeyError:
                continue
            del pending[name]
            progress = True
        if not progress:
            raise ValueError(f"dims that can't be evaluated: {pending}")
    return sizes


def models(text: str) -> dict[str, tuple[list[str], list[tuple[str, str]]]]:
    """Each model's size parameters and its fields as (name, type text)."""
    found = {}
    for match in re.finditer(r"^model\s+(\w+)\s*(?:\(([^)]*)\))?\s*\{", text, re.M):
        params = [p.strip() for p in (match.group(2) or "").split(",") if p.strip()]
        depth, pos, fields = 1, match.end(), []
        body_start = pos
        while depth:
            char = text[pos]
            depth += {"{": 1, "}": -1}.get(char, 0)
            pos += 1
        body = text[body_start : pos - 1]
        depth = 0
        for line in body.splitlines():
            stripped = line.strip()
            if depth == 0 and stripped and not stripped.startswith("fn "):
                field = re.match(r"^(\w+)\s*:\s*(.+?)(?:\s*=\s*[a-z]\w*(?:\(.*\))?)?$", stripped)
                if not field:
                    raise ValueError(f"can't read field {stripped!r} of model {match.group(1)}")
                fields.append((field.group(1), field.group(2)))
            depth += line.count("{") - line.count("}")
        found[match.group(1)] = (params, fields)
    return found


def layout(path: Path, top: str) -> dict[str, tuple[int, ...]]:
    """The state dict keys and shapes of model `top` in the file at `path`."""
    text = strip_comments(path.read_text())
    global_sizes = dims(text)
    all_models = models(text)

    def walk(model: str, args: list[int], prefix: str) -> dict[str, tuple[int, ...]]:
        params, fields = all_models[model]
        if len(params) != len(args):
            raise ValueError(f"{model} takes {len(params)} sizes, got {len(args)}")
        sizes = global_sizes | dict(zip(params, args))
        out: dict[str, tuple[int, ...]] = {}
        for name, ty in fields:
            stack = re.match(r"^\[([^\]]+)\]\s*([A-Z]\w*)\s*(?:\((.*)\))?$", ty)
            if stack and stack.group(2) in all_models:
                count = evaluate(stack.group(1), sizes)
                sub_args = [evaluate(a, sizes) for a in (stack.group(3) or "").split(",") if a.strip()]
                for i in range(count):
                    out |= walk(stack.group(2), sub_args, f"{prefix}{name}.{i}.")
                continue
            tensor = re.match(r"^\[([^\]]*)\]", ty)
            if tensor:
                out[prefix + name] = tuple(evaluate(axis, sizes) for axis in split_axes(tensor.group(1)))
                continue
            sub = re.match(r"^(\w+)\s*(?:\((.*)\))?$", ty)
            if sub and sub.group(1) in all_models:
                sub_args = [evaluate(a, sizes) for a in (sub.group(2) or "").split(",") if a.strip()]
                out |= walk(sub.group(1), sub_args, f"{prefix}{name}.")
                continue
            raise ValueError(f"can't read the type {ty!r} of {model}.{name}")
        return out

    return walk(top, [], "")


def count(shapes: dict[str, tuple[int, ...]]) -> int:
    return sum(math.prod(shape) for shape in shapes.values())
