"""Every tutorial as a Jupyter notebook, made from the page's own source when the HTML is built.

:func:`notebook` turns a tutorial's reStructuredText into an nbformat 4 notebook: the prose in
Markdown cells (titles, inline code, roles reduced to their text), every ``.. doctest::`` block
as code cells (the ``>>>`` and ``...`` lines, without the expected output, which the notebook
prints itself; a cell ends at each example that shows an output), every ``.. plot::`` block as
a code cell, and a ``.. literalinclude::`` of a kernel as a Markdown listing of that function.
After the title and introduction, a code cell holds what the build runs before the pages' code
(``doctest_global_setup`` and ``plot_pre_code`` of ``conf.py``), so the notebook runs from any
directory as the page does.

As a Sphinx extension it writes ``_notebooks/<name>.ipynb`` next to the HTML for every page
under ``tutorials/`` and puts a download link under each tutorial's title.
"""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path

import nbformat
from docutils import nodes

FOLDER = "_notebooks"
_DIRECTIVE = re.compile(r"^\.\. (\w[\w-]*)::\s*(.*)$")
_ROLE = re.compile(r":[\w:-]+:`([^`<]*?)\s*(?:<[^>]*>)?`")


def _role_text(match: re.Match) -> str:
    text = match.group(1)
    return f"`{text[1:].split('.')[-1]}`" if text.startswith("~") else f"`{text}`"


def _markdown(text: str) -> str:
    """reStructuredText prose as Markdown: inline literals, roles reduced to their text, titles."""
    text = _ROLE.sub(_role_text, text).replace("``", "`")
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line, under = lines[i], lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"([=\-~^])\1+", under) and len(under) >= len(line.strip()):
            out.append(("# " if under[0] == "=" else "## ") + line.strip())
            i += 2
        else:
            out.append(line)
            i += 1
    return "\n".join(out).strip("\n")


def doctest_cells(body: list[str]) -> list[str]:
    """The code of a doctest block, ``>>>`` and ``...`` prompts removed and the expected outputs dropped,
    cut after every example that shows an output (a notebook cell shows only its last value).

    >>> doctest_cells([">>> x = 1", ">>> x + 1", "2", ">>> def f():", "...     return x", ">>> f()", "1"])
    ['x = 1\\nx + 1', 'def f():\\n    return x\\nf()']
    """
    cells, code = [], []
    for line in body:
        stripped = line.strip()
        if stripped.startswith(">>>") or (stripped.startswith("...") and code):
            code.append(stripped[4:] if len(stripped) > 3 else "")
        elif stripped and code:  # an expected output: the cell ends at the example that printed it
            cells.append("\n".join(code))
            code = []
    if code:
        cells.append("\n".join(code))
    return cells


def _pyobject(path: Path, name: str) -> str:
    """The source of the function or class ``name`` in the file ``path`` (``:pyobject:`` of literalinclude)."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return "\n".join(source.splitlines()[first - 1:node.end_lineno])
    raise ValueError(f"{path}: no function or class {name!r} to include")


def _included(page: Path, argument: str) -> Path:
    """The file a page includes: relative to the page, or with a leading ``/`` to the folder of ``conf.py``."""
    if not argument.startswith("/"):
        return page.parent / argument
    root = next(folder for folder in page.resolve().parents if (folder / "conf.py").exists())
    return root / argument.lstrip("/")


def _blocks(source: str):
    """Yield ``("prose", text)`` and ``(directive, argument, options, body lines)`` in page order."""
    lines = source.splitlines()
    prose: list[str] = []
    i = 0
    while i < len(lines):
        match = _DIRECTIVE.match(lines[i])
        if not match:
            prose.append(lines[i])
            i += 1
            continue
        if prose:
            yield ("prose", "\n".join(prose))
            prose = []
        i += 1
        options, body = {}, []
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
            option = re.match(r"^\s+:([\w-]+):\s*(.*)$", lines[i])
            if option and not body:
                options[option.group(1)] = option.group(2)
            elif lines[i].strip() or body:
                body.append(lines[i][3:] if lines[i].startswith("   ") else lines[i].strip())
            i += 1
        while body and not body[-1].strip():
            body.pop()
        yield (match.group(1), match.group(2), options, body)
    if prose:
        yield ("prose", "\n".join(prose))


def notebook(path: str | os.PathLike, setup: str = "") -> nbformat.NotebookNode:
    """The tutorial ``path`` (a ``.rst`` file) as a notebook; ``setup`` is the code of its first code cell.

    >>> import tempfile
    >>> page = Path(tempfile.mkdtemp()) / "t.rst"
    >>> _ = page.write_text("Title\\n=====\\n\\nSome ``code``.\\n\\n.. doctest::\\n\\n   >>> 1 + 1\\n   2\\n")
    >>> [(cell.cell_type, cell.source) for cell in notebook(page).cells]
    [('markdown', '# Title\\n\\nSome `code`.'), ('code', '1 + 1')]
    """
    path = Path(path)
    cells = []
    for block in _blocks(path.read_text(encoding="utf-8")):
        if block[0] == "prose":
            text = _markdown(block[1])
            if text:
                cells.append(nbformat.v4.new_markdown_cell(text))
            continue
        directive, argument, options, body = block
        if directive == "doctest":
            if "skipif" in options:
                cells.append(nbformat.v4.new_markdown_cell("Needs a GPU (the page runs it only where one works):"))
            cells.extend(nbformat.v4.new_code_cell(code) for code in doctest_cells(body))
        elif directive == "plot":
            cells.append(nbformat.v4.new_code_cell("\n".join(body)))
        elif directive == "literalinclude" and "pyobject" in options:
            listing = _pyobject(_included(path, argument), options["pyobject"])
            caption = f"`{options['caption']}`:\n\n" if "caption" in options else ""
            cells.append(nbformat.v4.new_markdown_cell(f"{caption}```python\n{listing}\n```"))
        elif body:
            cells.append(nbformat.v4.new_markdown_cell("```\n" + "\n".join(body) + "\n```"))
    if setup.strip():  # after the title and introduction, before the page's first code
        first = 1 if cells and cells[0].cell_type == "markdown" else 0
        cells.insert(first, nbformat.v4.new_code_cell(setup.strip()))
    book = nbformat.v4.new_notebook(cells=cells)
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    book.metadata["gpusim"] = {"source": path.name}
    return book


def _setup_code(config) -> str:
    """What the build runs before a page's code, less what only the build needs (the GPU probe)."""
    global_setup = "\n".join(line for line in (getattr(config, "doctest_global_setup", None) or "").splitlines()
                             if "gpu_blocks" not in line and "__name__" not in line)
    return (global_setup.strip() + "\n" + (getattr(config, "plot_pre_code", None) or "").strip()).strip()


def _is_tutorial(docname: str) -> bool:
    return docname.startswith("tutorials/") and not docname.endswith("index")


def _link(app, doctree: nodes.document) -> None:
    """A download link to the page's notebook, right under the title of every tutorial."""
    docname = app.env.docname
    if not _is_tutorial(docname):
        return
    name = docname.split("/")[-1] + ".ipynb"
    target = "../" * docname.count("/") + f"{FOLDER}/{name}"
    link = nodes.reference("", "", nodes.literal(name, name), refuri=target, classes=["download"])
    paragraph = nodes.paragraph("", "Download this tutorial as a Jupyter notebook: ")
    paragraph += link
    for section in doctree.findall(nodes.section):
        title = section.next_node(nodes.title)
        section.insert(section.index(title) + 1, paragraph)
        break


def _write(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    folder = Path(app.outdir) / FOLDER
    folder.mkdir(exist_ok=True)
    setup = _setup_code(app.config)
    for docname in sorted(app.env.found_docs):
        if _is_tutorial(docname):
            book = notebook(Path(app.srcdir) / f"{docname}.rst", setup)
            nbformat.validate(book)
            (folder / f"{docname.split('/')[-1]}.ipynb").write_text(json.dumps(book, indent=1) + "\n",
                                                                      encoding="utf-8")


def setup(app):
    app.connect("doctree-read", _link)
    app.connect("build-finished", _write)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
