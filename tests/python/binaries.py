"""The project's command binaries for the Python tests: built with cargo
(a no-op when up to date, so a test never runs a stale binary) and found in
cargo's own target folder, wherever CARGO_TARGET_DIR puts it."""

from __future__ import annotations

import functools
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def target_dir() -> Path:
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(json.loads(meta.stdout)["target_directory"])


@functools.cache
def binary(name: str) -> Path:
    """Builds the debug binary of the package `name` and returns its path."""
    subprocess.run(["cargo", "build", "-q", "-p", name], cwd=ROOT, check=True)
    path = target_dir() / "debug" / name
    assert path.exists(), f"cargo built {name} but {path} is missing"
    return path


def sexpgpu_binary() -> str:
    """`sexpgpu`: `$SEXPGPU_BIN` when set (a release build, say), else the
    debug build."""
    return os.environ.get("SEXPGPU_BIN") or str(binary("sexpgpu"))



def built_both_ways(name: str, source: str):
    """A module-scoped fixture: the generated module of `source` (built
    as `name`), once with the run-time checks and once without, so each test
    that takes it runs twice."""

    @pytest.fixture(scope="module", params=[True, False], ids=["checks", "no-checks"])
    def built(request, tmp_path_factory):
        return build_source(tmp_path_factory.mktemp(name), name, source, request.param)

    return built


def ui_program(name: str) -> str:
    """The program of the UI test `tests/ui/shapescript/<name>` without its
    lines that expect a diagnostic (`# ~`): what is left checks clean, so a
    test can build and run the forms the UI test types."""
    text = (ROOT / "tests" / "ui" / "shapescript" / name).read_text()
    return "".join(line for line in text.splitlines(keepends=True) if "# ~" not in line)


def build_package(root: Path, name: str, source: str, checks: bool = True, package: str | None = None) -> Path:
    """Writes `source` as `root/<name>.ss` and builds it with `shapescript
    build` (with the run-time checks, or `--no-runtime-checks`) into the
    package `root/<package>`, by default `<name>_pkg` (`<name>_pkg_fast`
    without checks); returns the package's name. Python caches modules by
    name for the whole test session: each test file needs its own `name`
    (or `package`)."""
    (root / f"{name}.ss").write_text(source)
    package = package or f"{name}_pkg" + ("" if checks else "_fast")
    flags = [] if checks else ["--no-runtime-checks"]
    result = subprocess.run(
        [str(binary("shapescript")), "build", str(root / f"{name}.ss"), "-o", str(root / package), *flags],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return package


def import_package(root: Path, package: str, name: str):
    """Imports the generated module `<package>.<name>` from `root`; its
    `runtime` is the package's `shapescript_runtime` (for `ShapeError`)."""
    import importlib
    import sys

    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module(f"{package}.{name}")
        module.runtime = importlib.import_module(f"{package}.shapescript_runtime")
    finally:
        sys.path.remove(str(root))
    return module


def build_source(root: Path, name: str, source: str, checks: bool = True, package: str | None = None):
    """`build_package` then `import_package`: the generated module of
    `source`, whose `checks` says which build it is."""
    package = build_package(root, name, source, checks, package)
    module = import_package(root, package, name)
    module.checks = checks
    return module
