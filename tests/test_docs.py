"""The documentation builds without a warning, and every code block of its pages runs with the output shown.

Both run Sphinx in a subprocess on a fresh build tree, nitpicky (``-n``: every cross-reference
resolves) with warnings as errors (``-W``): ``-b html`` (which also executes the code
of the pictures, drawn with matplotlib's ``plot`` directive) and ``-b doctest`` (every
``.. doctest::`` block of the tutorials, concepts and how-to guides; blocks that need a GPU run
only where one works, and the log names each one it skipped).  The docstring examples that the
API reference shows run in ``tests/test_doctests.py``.  Every code block of the pages fits 88 columns
(the kernel pages, generated from the source, show the source files as they are; the page wraps
their long lines).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gpusim.algorithms  # noqa: F401  (the families register their algorithms: the index lists them)
from gpusim.backends import GPU_BACKENDS, gpu_status
from gpusim.runtime.registry import algorithms

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "_ext"))
from kernel_pages import GENERATED  # noqa: E402  (docs/_ext is not a package)

pytest.importorskip("sphinx")

DOCS = Path(__file__).resolve().parent.parent / "docs"


def sphinx(builder: str, tmp_path: Path) -> str:
    """Run ``sphinx-build -W -n -E -b builder``; return its log, failing the test with it if the build failed."""
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-n", "--keep-going", "-E", "-b", builder, str(DOCS),
         str(tmp_path / builder), "-d", str(tmp_path / "doctrees")],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, f"sphinx-build -b {builder} failed:\n{log[-20000:]}"
    return log


def test_html_builds_without_warnings(tmp_path):
    log = sphinx("html", tmp_path)
    assert "build succeeded" in log
    pictures = list((tmp_path / "html" / "_images").glob("*.png"))
    assert pictures, "the pages' pictures were not drawn"
    # The algorithm index is generated from the registry: every algorithm a row, its name a link to its function.
    index = (tmp_path / "html" / "algorithms.html").read_text()
    for entry in algorithms():
        target = re.escape(f"{entry.run.__module__}.{entry.run.__qualname__}")
        assert re.search(rf'href="api/\w+\.html#{target}".*?<span class="pre">{re.escape(entry.name)}</span>',
                         index), entry.name
    # Every algorithm has its kernel page, with its kernels' source, in the built site and in its index.
    pages = (tmp_path / "html" / "kernels" / "index.html").read_text()
    for entry in algorithms():
        page = tmp_path / "html" / "kernels" / f"{entry.problem}-{entry.name}.html"
        assert page.exists() and f'href="{page.name}"' in pages, entry.name
        shown = page.read_text()
        for compiled in entry.kernels:
            definition = rf'<span class="k">def</span>(<span class="w">)? (</span>)?<span class="nf">{compiled.name}<'
            assert re.search(definition, shown), compiled.name
    # The API pages document the kernels themselves, not only their drivers.
    api = "".join(page.read_text() for page in (tmp_path / "html" / "api").glob("*.html"))
    for entry in algorithms():
        for compiled in entry.kernels:
            assert f'id="{compiled.qualname}"' in api, compiled.qualname


def test_every_code_block_runs_with_the_output_shown(tmp_path):
    log = sphinx("doctest", tmp_path)
    assert "0 failures in tests" in log
    if not any(gpu_status(name)[0] for name in GPU_BACKENDS):
        assert "GPU block(s) shown in the pages but skipped: no GPU here" in log


#: The widest line a code block of the pages may have: what fits a page without wrapping.
WIDTH = 88


def code_block_lines(text: str):
    """``(line number, line)`` of every line of every literal block of a reStructuredText page (the blocks of
    ``.. doctest::``, ``.. code-block::``, ``.. plot::`` and paragraphs ending in ``::``), without their indentation."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.rstrip().endswith("::") or line.lstrip().startswith(".. _"):
            i += 1
            continue
        base = len(line) - len(line.lstrip())
        i += 1
        while i < len(lines) and lines[i].strip().startswith(":") and lines[i].startswith(" " * (base + 1)):
            i += 1  # the directive's options
        indent = None
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" " * (base + 1))):
            if lines[i].strip():
                indent = indent if indent is not None else len(lines[i]) - len(lines[i].lstrip())
                yield i + 1, lines[i][min(indent, len(lines[i]) - len(lines[i].lstrip())):]
            i += 1


def test_code_block_lines_are_found_with_their_numbers():
    page = "Text::\n\n    a = 1\n      b\n\nMore.\n\n.. doctest::\n   :options: +ELLIPSIS\n\n   >>> x\n"
    assert list(code_block_lines(page)) == [(3, "a = 1"), (4, "  b"), (11, ">>> x")]


def test_every_code_block_of_the_pages_fits_88_columns():
    wide = []
    for page in sorted(DOCS.rglob("*.rst")):
        text = page.read_text(encoding="utf-8")
        if text.startswith(GENERATED):
            continue  # a kernel page: the source files as they are (120 columns), wrapped by the page's CSS
        wide += [f"{page.relative_to(DOCS)}:{number}: {len(line)} columns" for number, line in code_block_lines(text)
                 if len(line) > WIDTH]
    assert wide == [], "\n".join(wide)


def test_long_listing_lines_wrap_on_the_page():
    css = (DOCS / "_static" / "gpusim.css").read_text()
    assert re.search(r"div\.highlight pre \{[^}]*white-space: pre-wrap", css)
