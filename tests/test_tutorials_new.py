"""Tutorials 9–13 (shared memory, shuffles and votes, GPUBFS/APsB, Locally-Dominant, b-Suitor).

``tests/test_docs.py`` runs every code block of every page (``sphinx-build -b doctest``, from a
fresh temporary directory).  These tests check what that run does not: each new tutorial is in
the site's table of contents, its code fits 88 columns, it needs nothing from the repository's
working directory, it imports the project's real kernels and checks them against an
independent oracle, it uses the drawing of its algorithm, and it is about 10–15 minutes of
reading.  The slow test runs the pages' examples with Python's own doctest from another
directory.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
NEW = {
    "09": ("shared memory", ["gpusim.algorithms.weighted.kernels_roma", "gpusim.zoo"], ["np.", "NetworkX"], []),
    "10": ("shuffle", ["gpusim.language.reductions", "gpusim.algorithms.louvain.kernels_scan", "gpusim.zoo"],
           ["np.cumsum"], []),
    "11": ("GPUBFS", ["gpusim.algorithms.bipartite"], ["scipy.sparse.csgraph", "networkx"], ["figure1", "bfs_level"]),
    "12": ("Locally-Dominant", ["gpusim.algorithms.weighted.kernels_ld", "gpusim.algorithms.weighted"],
           ["networkx", "max_weight_matching"], []),
    "13": ("b-Suitor", ["gpusim.algorithms.weighted"], ["networkx", "scipy.optimize"], ["suitor_proposal"]),
}
DRAWN_ELSEWHERE = {"03": "push_relabel", "06": "roma_flip"}


def page(number: str) -> Path:
    (found,) = (DOCS / "tutorials").glob(f"{number}-*.rst")
    return found


def code_blocks(text: str) -> list[list[str]]:
    """The lines of every ``.. doctest::`` and ``.. plot::`` block, without the directive's indent."""
    blocks, current = [], None
    for line in text.splitlines():
        if re.match(r"^\.\. (doctest|plot)::", line):
            current = []
            blocks.append(current)
        elif current is not None and line.strip() and not line.startswith(" "):
            current = None
        elif current is not None:
            current.append(line[3:])
    return blocks


def test_the_new_tutorials_are_in_the_table_of_contents():
    index = (DOCS / "index.rst").read_text()
    listed = re.search(r":caption: Tutorials: start here\n(.*?)\n\n(.*?)(?:\n\n|$)", index, re.S)
    assert listed, "no tutorials toctree in docs/index.rst"
    entries = [line.strip() for line in listed.group(2).splitlines()]
    for number in NEW:
        name = f"tutorials/{page(number).stem}"
        assert name in entries or ("tutorials/*" in entries and ":glob:" in listed.group(1)), name


@pytest.mark.parametrize("number", sorted(NEW))
def test_code_fits_88_columns_and_needs_no_working_directory(number):
    text = page(number).read_text()
    blocks = code_blocks(text)
    assert len(blocks) >= 6, "a tutorial of 10-15 minutes runs more code than that"
    for block in blocks:
        for line in block:
            assert len(line) <= 88, f"{page(number).name}: {len(line)} columns: {line}"
            assert not re.search(r"""open\(|["'](docs|tests|tutorials|benchmarks)/""", line), line
    assert re.search(rf"\n{re.escape(text.splitlines()[0])}\n=+\n", "\n" + text)  # a title, underlined


@pytest.mark.parametrize("number", sorted(NEW))
def test_real_kernels_against_independent_oracles(number):
    subject, modules, oracles, drawings = NEW[number]
    text = page(number).read_text()
    assert subject.lower() in text.lower()
    for module in modules:
        assert f"from {module}" in text, f"tutorial {number} does not run {module}"
    for oracle in oracles:
        assert oracle in text, f"tutorial {number} does not check against {oracle}"
    for drawing in drawings:
        assert f"from gpusim.teaching.drawings import {drawing}" in text
    words = len(re.findall(r"\w+", text))
    # tutorials 1-8 (about 14 minutes each) have 900 to 2,000 words, code included
    assert 1000 <= words <= 3000, f"tutorial {number}: {words} words, not 10-15 minutes of reading and code"


@pytest.mark.parametrize("number, drawing", sorted(DRAWN_ELSEWHERE.items()))
def test_the_push_relabel_and_flip_drawings_sit_in_their_tutorials(number, drawing):
    assert f"from gpusim.teaching.drawings import {drawing}" in page(number).read_text()


@pytest.mark.slow
@pytest.mark.parametrize("number", sorted(NEW))
def test_every_example_runs_from_another_directory(number, tmp_path):
    """Python's doctest over the page (GPU blocks left out), in a subprocess started in ``tmp_path``."""
    text = page(number).read_text()
    text = re.sub(r"\.\. doctest::\n   :skipif: not GPU\n\n(   .*\n|\n)*", "", text)
    script = tmp_path / "page.rst"
    script.write_text(text)
    runner = (
        "import doctest, sys\n"
        "flags = doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL | doctest.DONT_ACCEPT_TRUE_FOR_1\n"
        "globs = {'__name__': '__main__'}\n"
        "result = doctest.testfile(sys.argv[1], module_relative=False, globs=globs, optionflags=flags)\n"
        "sys.exit(1 if result.failed or not result.attempted else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", runner, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin",
                                               **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}})
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert doctest.DocTestParser().get_examples(text)
