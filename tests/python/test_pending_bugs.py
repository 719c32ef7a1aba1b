"""Lint of the pending shape-bug UI tests in tests/ui/shapescript-pending/bugs.

The UI-test harness doesn't run these files yet (the checker doesn't check
bodies), so this keeps them in the form the harness will need when they move
to tests/ui/shapescript/bugs/: a comment saying what the bug is, and exactly
one `# ~ CODE` annotation, since each file holds one mistake.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BUGS = Path(__file__).resolve().parents[1] / "ui" / "shapescript-pending" / "bugs"
FILES = sorted(BUGS.glob("*.ss"))
ANNOTATION = re.compile(r"#\s*~(\^*|\?)?\s+(.*)$")
CODE = re.compile(r"^[EH]\d{4}$")


def test_there_are_at_least_25_bugs():
    assert len(FILES) >= 25, [f.name for f in FILES]


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
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
