"""Every tutorial is downloadable as a Jupyter notebook made from the page's own source.

``docs/_ext/notebooks.py`` converts each ``docs/tutorials/*.rst`` when the HTML is built.  These
tests check the conversion without a full docs build: each notebook is valid nbformat 4 and
holds every code block of its page, in the page's order; a small Sphinx project checks that
the build writes the notebook and links it under the tutorial's title; and one tutorial's
notebook runs, from a directory that is not the repository, with the outputs the page shows.
"""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("sphinx")

DOCS = Path(__file__).resolve().parent.parent / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

from notebooks import FOLDER, doctest_cells, notebook  # noqa: E402

TUTORIALS = sorted((DOCS / "tutorials").glob("*.rst"))


def page_blocks(page: Path) -> list[str]:
    """The code of every ``.. doctest::`` and ``.. plot::`` block of a page, read independently of the converter."""
    blocks, lines = [], page.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        kind = re.match(r"^\.\. (doctest|plot)::", line)
        if not kind:
            continue
        body = []
        for following in lines[number + 1:]:
            if following.strip() and not following.startswith(" "):
                break
            body.append(following)
        text = textwrap.dedent("\n".join(b for b in body if not re.match(r"^\s+:[\w-]+:", b)))
        if kind.group(1) == "doctest":
            examples = doctest.DocTestParser().get_examples(text)
            blocks.append("".join(example.source for example in examples).strip())
        else:
            blocks.append(text.strip())
    return blocks


def test_there_are_tutorials_to_convert():
    names = [page.stem for page in TUTORIALS]
    assert len(names) >= 13
    for number in ("09", "10", "11", "12", "13"):
        assert any(name.startswith(number + "-") for name in names), number


@pytest.mark.parametrize("page", TUTORIALS, ids=[page.stem for page in TUTORIALS])
def test_each_notebook_is_valid_and_holds_every_code_block_in_order(page):
    book = notebook(page, setup="import numpy as np")
    nbformat.validate(book)  # raises ValidationError
    assert nbformat.reads(nbformat.writes(book), as_version=4) == book
    code = [cell.source for cell in book.cells if cell.cell_type == "code"]
    assert code[0] == "import numpy as np"
    joined = "\n".join(code[1:])
    position = 0
    blocks = page_blocks(page)
    assert blocks, page.name
    for block in blocks:
        found = _find_lines(joined, block, position)
        assert found >= 0, f"{page.name}: a code block is missing from the notebook:\n{block[:300]}"
        position = found
    title = book.cells[0].source.splitlines()[0]  # the title first, then the setup code
    assert book.cells[1].source == "import numpy as np"
    assert title.startswith("# Tutorial "), title
    prose = [re.sub(r"```.*?```", "", cell.source, flags=re.S) for cell in book.cells if cell.cell_type == "markdown"]
    assert not any("``" in text or re.search(r":\w+:`", text) for text in prose)  # no reST markup left


def _find_lines(joined: str, block: str, start: int) -> int:
    """Where the lines of ``block`` start in ``joined`` (each line in order; a block may span cells)."""
    lines = [line for line in block.splitlines() if line.strip()]
    first = joined.find(lines[0], start)
    at = first
    for line in lines[1:]:
        at = joined.find(line, at)
        if at < 0:
            return -1
    return first


def test_a_doctest_block_is_cut_after_each_example_that_shows_an_output():
    body = [">>> a = 2", ">>> a * 3", "6", ">>> for i in range(2):", "...     print(i)", "0", "1", ">>> b = a"]
    assert doctest_cells(body) == ["a = 2\na * 3", "for i in range(2):\n    print(i)", "b = a"]


def test_the_docs_build_writes_the_notebook_and_links_it(tmp_path):
    source = tmp_path / "src"
    (source / "tutorials").mkdir(parents=True)
    (source / "conf.py").write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(DOCS / '_ext')!r})
        extensions = ["sphinx.ext.doctest", "notebooks"]
        doctest_global_setup = "import math"
    """))
    (source / "index.rst").write_text("Home\n====\n\n.. toctree::\n\n   tutorials/01-one\n")
    (source / "tutorials" / "01-one.rst").write_text(
        "Tutorial 1: one\n===============\n\nText.\n\n.. doctest::\n\n   >>> math.sqrt(4)\n   2.0\n")
    command = [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(source), str(tmp_path / "html")]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    book = nbformat.read(tmp_path / "html" / FOLDER / "01-one.ipynb", as_version=4)
    assert [cell.source for cell in book.cells if cell.cell_type == "code"] == [
        "import math", "math.sqrt(4)"]
    page = (tmp_path / "html" / "tutorials" / "01-one.html").read_text()
    assert f'href="../{FOLDER}/01-one.ipynb"' in page
    assert "Download this tutorial as a Jupyter notebook" in page


def test_a_notebook_runs_from_another_directory_with_the_outputs_of_its_page(tmp_path):
    book = notebook(DOCS / "tutorials" / "10-shuffles-and-votes.rst", setup="import numpy as np")
    runner = tmp_path / "run.py"
    runner.write_text("import matplotlib\nmatplotlib.use('Agg')\n" + _cells_script(book))
    done = subprocess.run([sys.executable, str(runner)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    shown = done.stdout.splitlines()
    assert "(496, 496)" in shown                # the warp sum, in lane 0
    assert "[0]" in shown                       # the only lane that holds it
    assert "[512, 528, 752, 992]" in shown      # what the other lanes hold
    assert "'CollectiveDivergence'" in shown
    assert "(True, True)" in shown              # Louvain's scan equals NumPy's cumsum


def _cells_script(book) -> str:
    """A script that runs the code cells in order and prints each cell's last value, as Jupyter shows it."""
    lines = ["import ast as _ast, linecache as _linecache", "_g = {'__name__': '__main__'}"]
    cells = [cell for cell in book.cells if cell.cell_type == "code"]
    for number, cell in enumerate(cells):
        # each cell a named source, as Jupyter registers it, so @kernel can read the kernel's source
        lines.append(textwrap.dedent(f"""
            _name, _source = '<cell {number}>', {cell.source!r} + "\\n"
            _linecache.cache[_name] = (len(_source), None, _source.splitlines(True), _name)
            _tree = _ast.parse(_source, _name)
            _last = _tree.body.pop() if _tree.body and isinstance(_tree.body[-1], _ast.Expr) else None
            exec(compile(_tree, _name, 'exec'), _g)
            if _last is not None:
                _value = eval(compile(_ast.Expression(_last.value), _name, 'eval'), _g)
                if _value is not None:
                    print(repr(_value))
        """))
    return "\n".join(lines)
