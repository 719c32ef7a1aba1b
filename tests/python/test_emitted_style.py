"""The Python `shapescript build` writes reads as a person would have written
it: every example and every UI test that checks clean builds to modules that
`ruff format` leaves unchanged and `ruff check` (its default rules, whatever
configuration is around) passes (docs/shapescript/python.md, "Style of the
generated code"). The examples are found by glob, so a new example is
covered without editing this file."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from binaries import binary  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "shapescript"
UI = ROOT / "tests" / "ui" / "shapescript"


def ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent))
    assert found is not None, "ruff is pinned in requirements-test.txt: run scripts/test"
    return found


def shapescript(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(binary("shapescript")), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """One folder holding the examples' package and one package per clean UI
    test (built in the test's own folder, as the UI tests run)."""
    out = tmp_path_factory.mktemp("style")
    examples = shapescript("build", str(EXAMPLES), "-o", str(out / "examples"), cwd=ROOT)
    assert examples.returncode == 0, examples.stderr
    clean = 0
    for k, source in enumerate(sorted(UI.rglob("*.ss"))):
        if shapescript("check", source.name, cwd=source.parent).returncode != 0:
            continue
        result = shapescript("build", source.name, "-o", str(out / f"ui{k}"), cwd=source.parent)
        assert result.returncode == 0, f"{source} checks clean but does not build:\n{result.stderr}"
        clean += 1
    assert clean >= 10, f"only {clean} UI tests check clean"
    return out


def test_every_example_is_built(built):
    examples = sorted(p.stem for p in EXAMPLES.glob("*.ss"))
    assert examples, "no examples found"
    written = sorted(p.stem for p in (built / "examples").glob("*.py"))
    assert written == sorted(examples + ["__init__", "shapescript_runtime"])


def assert_ruff_passes(*args: str):
    """`ruff ARGS` with its default settings (`--isolated`) succeeds."""
    result = subprocess.run([ruff(), *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_changes_nothing(built):
    assert_ruff_passes("format", "--isolated", "--no-cache", "--check", "--diff", str(built))


def test_ruff_check_passes_with_default_rules(built):
    assert_ruff_passes("check", "--isolated", "--no-cache", "--output-format", "concise", str(built))


INTEGER = re.compile(r"(?<![\w.])\d+(?![\w.])")
SIZED_CALL = re.compile(r"\.(?:reshape|expand|view)\(([^()]*)\)|torch\.empty\(\(([^()]*)\)")


def integers_the_program_writes(source: str) -> set[str]:
    """Integers in the .ss file's code: not in comments, and not the values
    of dims (those are named by the dim wherever they are used)."""
    found = set()
    for line in source.splitlines():
        code = line.split("#", 1)[0]
        if code.lstrip().startswith("dim "):
            continue
        found |= set(INTEGER.findall(code))
    return found


@pytest.mark.parametrize("example", sorted(p.stem for p in EXAMPLES.glob("*.ss")))
def test_sizes_are_written_with_names_not_unexplained_numbers(built, example):
    """Every integer passed to reshape/expand/view/empty in the generated
    module is one the .ss file writes itself (`2` of `two=2`, `16` of
    `(gh 16)`), never one the generator worked out (`32` for `Dh / 2`)."""
    allowed = integers_the_program_writes((EXAMPLES / f"{example}.ss").read_text()) | {"0", "1"}
    generated = (built / "examples" / f"{example}.py").read_text()
    for match in SIZED_CALL.finditer(generated):
        arguments = match.group(1) or match.group(2)
        unexplained = set(INTEGER.findall(arguments)) - allowed
        assert not unexplained, f"{example}.py: {match.group(0)} writes {sorted(unexplained)}"
