"""The shape of the code, checked: what docs/architecture.md promises.

Import direction and cycles are checked by import-linter (``scripts/lint-imports``, in CI); these
tests check the rest: small files, no private name crossing modules, kernels that fit on a screen,
a light ``import gpusim``, one registry that every algorithm is in.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import gpusim
from gpusim.language.kernels import Kernel, registry

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_FOLDERS = ("gpusim", "algorithms", "backends")
SOURCES = sorted(p for folder in PACKAGE_FOLDERS for p in (ROOT / folder).rglob("*.py"))
MAX_FILE_LINES = 600
MAX_KERNEL_LINES = 40


def _all_modules() -> list[str]:
    return sorted(info.name for info in pkgutil.walk_packages(gpusim.__path__, "gpusim.")
                  if info.name != "gpusim.__main__")  # running it parses the command line


def test_sources_are_found():
    assert len(SOURCES) > 50 and any(p.name == "device.py" for p in SOURCES)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_source_file_is_over_600_lines(path):
    lines = path.read_text().count("\n")
    assert lines <= MAX_FILE_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by job"


def _private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("gpusim")):
            found += [f"{node.module}.{a.name}" for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def test_no_private_name_is_imported_across_modules():
    offenders = {str(p.relative_to(ROOT)): names for p in SOURCES if (names := _private_imports(p))}
    assert offenders == {}


def test_the_private_import_check_sees_one(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from gpusim.types.arguments import _hidden, check_int\nfrom . import _sibling\n")
    assert _private_imports(sample) == ["gpusim.types.arguments._hidden", "None._sibling"]


def _project_kernels() -> list[Kernel]:
    for name in _all_modules():
        importlib.import_module(name)
    return [k for k in registry() if isinstance(k, Kernel) and k.fn.__module__.startswith("gpusim.")]


def _body_lines(fn) -> int:
    """Lines of a function's body: no decorator, no signature, no docstring."""
    function = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    body = function.body[1:] if ast.get_docstring(function) else function.body
    return body[-1].end_lineno - body[0].lineno + 1 if body else 0


def test_the_kernel_length_counts_the_body_only():
    def sample(x):
        """Two lines of docstring
        do not count."""
        y = x + 1

        return y

    assert _body_lines(sample) == 3


def test_every_kernel_fits_in_40_lines():
    kernels = _project_kernels()
    assert len(kernels) > 20
    too_long = {f"{k.fn.__module__}.{k.name}": n for k in kernels if (n := _body_lines(k.fn)) > MAX_KERNEL_LINES}
    assert too_long == {}


def test_import_gpusim_loads_no_simulator_and_no_gpu_compiler():
    code = ("import sys, gpusim; loaded = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('greenlet', 'numba', 'cupy', 'hypothesis') or m.startswith('gpusim.backends'));"
            "print(loaded)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_every_algorithm_is_registered_once_with_its_paper():
    from gpusim.runtime.registry import algorithms

    importlib.import_module("gpusim.algorithms")
    entries = algorithms()
    assert {e.problem for e in entries} >= {"bipartite", "weighted", "stable"}
    for entry in entries:
        assert entry.paper and entry.title, entry.name
        assert entry.backends, entry.name
        if entry.on_cpu is not None:
            assert entry.on_cpu in {e.name for e in entries if e.problem == entry.problem}, entry.name
