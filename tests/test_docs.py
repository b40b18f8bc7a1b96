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


@pytest.fixture(scope="module")
def html_site(tmp_path_factory) -> tuple[Path, str]:
    """The site built once for this module's tests: its folder (``html/`` below it) and the build's log."""
    folder = tmp_path_factory.mktemp("site")
    return folder, sphinx("html", folder)


def test_html_builds_without_warnings(html_site):
    tmp_path, log = html_site
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


#: What a reader must not meet: internal labels of the source papers (their file names, "seed 00N", the thesis'
#: "Paper I" to "Paper IV" as bare labels) instead of a citation from the bibliography (docs/references.rst).
INTERNAL_LABELS = re.compile(r"[Ss]eeds? 00\d|\b00\d_[0-9a-f]{16}\b|\bPaper (?:I|II|III|IV)\b")


def test_no_internal_paper_labels_in_the_built_html(html_site):
    tmp_path, _ = html_site
    found = []
    for page in (tmp_path / "html").rglob("*.html"):
        text = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
        found += [f"{page.relative_to(tmp_path)}: {hit.group(0)!r}" for hit in INTERNAL_LABELS.finditer(text)]
    assert found == [], found[:20]
    references = (tmp_path / "html" / "references.html").read_text(encoding="utf-8")
    assert "https://doi.org/10.1109/ICPP.2013.11" in references and "Deveci et al., Euro-Par 2013" in references


ARTIFACTS = Path(__file__).resolve().parent.parent / "build" / "test-artifacts"


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=["1280x800", "1920x1080"])
@pytest.mark.parametrize("name", ["bipartite-apfb", "bipartite-gpr", "communities-louvain"])
def test_a_browser_sees_the_kernel_listing_when_scrolled_to_it(html_site, name, size):
    """In headless Chromium (the system's, through Playwright), scrolled to a kernel page's first listing: the
    listing is in the window and nothing covers it; no block of the page stays stuck taller than a third of it."""
    import shutil

    chromium = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if chromium is None:
        pytest.skip("no chromium here (apt-get install -y chromium): the kernel pages are not opened in a browser")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")
    tmp_path, _ = html_site
    page_path = tmp_path / "html" / "kernels" / f"{name}.html"
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            page.goto(page_path.as_uri())
            listing = page.locator("div.listing div.highlight-python").first
            listing.scroll_into_view_if_needed()
            box = listing.bounding_box()
            assert box is not None and box["y"] < size[1] and box["y"] + min(box["height"], 200) > 0
            # the element at a point inside the listing's visible part is the listing, not a block over it
            x, y = box["x"] + 40, max(box["y"], 0) + 20
            covered = page.evaluate("([x, y]) => { const el = document.elementFromPoint(x, y); "
                                    "return el.closest('div.listing') === null ? el.outerHTML.slice(0, 200) : ''; }",
                                    [x, y])
            assert covered == "", covered
            # a block that stays put while the page scrolls (the theme's fixed sidebar beside the text aside)
            # is never taller than a third of the window where it could cover the listing
            stuck = page.evaluate("() => [...document.querySelectorAll('body *')].filter((el) => "
                                  "['sticky', 'fixed'].includes(getComputedStyle(el).position)).map((el) => { "
                                  "const r = el.getBoundingClientRect(); return [r.left, r.right, r.height]; })")
            over = [height for left, right, height in stuck if left < box["x"] + box["width"] and right > box["x"]]
            assert all(height <= size[1] / 3 for height in over), (stuck, box)
            # the pseudo-code's linked line numbers lead to the listing that implements the line
            link = page.locator("a.pseudo-line").first
            target = link.get_attribute("href")
            link.click()
            assert page.evaluate("(id) => { const r = document.getElementById(id).getBoundingClientRect(); "
                                 "return r.top >= 0 && r.top < window.innerHeight; }", target.lstrip("#"))
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            listing.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / f"kernel-page-{name}-{size[0]}x{size[1]}.png"))
        finally:
            browser.close()
