"""The documentation builds without a warning, and every code block of its pages runs with the output shown.

Both run Sphinx in a subprocess on a fresh build tree: ``-b html`` (which also executes the code
of the pictures, drawn with matplotlib's ``plot`` directive) and ``-b doctest`` (every
``.. doctest::`` block of the tutorials, concepts and how-to guides; blocks that need a GPU run
only where one works, and the log names each one it skipped).  The docstring examples that the
API reference shows run in ``tests/test_doctests.py``.
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

pytest.importorskip("sphinx")

DOCS = Path(__file__).resolve().parent.parent / "docs"


def sphinx(builder: str, tmp_path: Path) -> str:
    """Run ``sphinx-build -W -E -b builder``; return its log, failing the test with it if the build failed."""
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-b", builder, str(DOCS), str(tmp_path / builder),
         "-d", str(tmp_path / "doctrees")],
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


def test_every_code_block_runs_with_the_output_shown(tmp_path):
    log = sphinx("doctest", tmp_path)
    assert "0 failures in tests" in log
    if not any(gpu_status(name)[0] for name in GPU_BACKENDS):
        assert "GPU block(s) shown in the pages but skipped: no GPU here" in log
