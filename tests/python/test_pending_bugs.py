"""Lint of the classic shape-bug UI tests.

The bugs live in tests/ui/shapescript/bugs (run by the UI harness); the
value-range ones (E06xx) joined them when the range analysis landed. Each
file says what the bug is and how to fix it, and has exactly one
`# ~ CODE` annotation, since it holds one mistake.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

UI = Path(__file__).resolve().parents[1] / "ui"
CHECKED = sorted((UI / "shapescript" / "bugs").glob("*.ss"))
FILES = CHECKED
ANNOTATION = re.compile(r"#\s*~(\^*|\?)?\s+(.*)$")
CODE = re.compile(r"^[EH]\d{4}$")


def test_at_least_25_bugs_are_checked():
    assert len(CHECKED) >= 25, [f.name for f in CHECKED]


@pytest.mark.parametrize("path", FILES, ids=[f"{f.parent.parent.name}/{f.name}" for f in FILES])
def test_bug_file_explains_itself_and_has_one_annotation(path):
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# Bug: "), "the first line says what the bug is"
    assert any(line.startswith("# Fix: ") for line in lines), "a `# Fix:` line says how to fix it"
    codes = []
    for line in lines:
        match = ANNOTATION.search(line)
        if match:
            codes += match.group(2).split()
    assert len(codes) == 1, f"one mistake, one diagnostic: {codes}"
    assert CODE.match(codes[0]), codes[0]
