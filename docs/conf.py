"""Sphinx configuration of gpusim's documentation.

Build the site and run every code block of the pages as a doctest (what CI does)::

    sphinx-build -W -n -b html docs build/docs/html
    sphinx-build -W -n -b doctest docs build/docs/doctest

``-n`` (nitpicky): every cross-reference must resolve; the few ignored are listed below, each with
its reason.  The kernel pages (``docs/kernels/``) are written from the registry when the build
starts (``_ext/kernel_pages.py``).

The tutorials live in ``docs/tutorials/`` (``tutorials/`` at the top of the repository links to
them), so the pages a learner opens are the pages the build tests.  They are real files there,
not a link: docutils resolves a picture's ``..`` path physically, through a linked folder's
target, and the plot directive's pictures were not found when the clone sat at another depth.
"""

from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_ext"))

project = "gpusim"
author = "the gpusim authors"
copyright = "2026, the gpusim authors"  # noqa: A001 - the name Sphinx reads
release = "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "matplotlib.sphinxext.plot_directive",
    "gpu_blocks",
    "algorithm_index",
    "kernel_autodoc",
    "kernel_pages",
    "public_names",
    "notebooks",
]

exclude_patterns = ["_build"]
root_doc = "index"
html_theme = "alabaster"
html_title = "gpusim"
html_theme_options = {"description": "Teach and test GPU graph-matching algorithms", "fixed_sidebar": True,
                      # wide enough for a kernel page's pseudo-code beside its kernels; narrower windows stack them
                      "page_width": "min(1400px, 96vw)", "body_max_width": "none"}
html_static_path = ["_static"]  # gpusim.css: long listing lines wrap, kernel pages side by side

# -- API reference: autodoc reads the numpydoc-style docstrings (napoleon parses their sections) ------
# Sphinx 9's autodoc lets an extension add a documenter only in its class-based form: kernel_autodoc
# documents the @kernel and @device functions, which the function documenter passes over.
autodoc_use_legacy_class_based = True
autodoc_default_options = {"members": True, "member-order": "bysource", "show-inheritance": True}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True  # "Attributes" sections as fields: autodoc documents the attributes themselves
napoleon_custom_sections = [("Example", "Examples")]

intersphinx_mapping = {}  # CI builds offline: no inventories are fetched

# -- nitpicky: every cross-reference resolves (tests/test_docs.py builds with -n -W) ----------------------
# Our own names resolve to their API pages (public_names maps public aliases, gpusim.Device, to where they
# are documented).  Ignored, each for its reason:
nitpick_ignore_regex = [
    # other projects' types in signatures and parameter types: CI builds offline, so no intersphinx
    # inventory of Python, NumPy, SciPy, NetworkX or Hypothesis is there to link them to
    ("py:(class|obj|func|meth|mod|data|exc)",
     r"(numpy|np|scipy|networkx|nx|hypothesis|matplotlib|numba|cupy|greenlet|tqdm|dask|distributed)(\..+)?"),
    ("py:(class|obj|func|meth|mod|data|exc)",
     r"(abc|ast|collections\.abc|os|types|typing|pathlib|io|json|argparse|random|enum|dataclasses)\..+"),
    # NumPy's names as numpydoc writes them in attribute types, "ndarray of int32": the same offline reason
    ("py:class", r"ndarray|(u?int|float)(8|16|32|64)|bool_"),
    # numpydoc's words in a parameter's type that are not classes: "array_like" (whatever numpy.asarray
    # takes) and "optional" ("x : int, optional"; napoleon_preprocess_types would parse it, but it also
    # splits the prose types of the Returns sections into class names)
    ("py:class", r"array_like|optional"),
    # a type variable of a generic signature (ddmin's items), not a class with a page
    ("py:class", r"gpusim\.explore\.shrink\.Item"),
    # private names (a leading underscore, e.g. the base of Kernel and DeviceFunction in a signature):
    # not documented by design
    ("py:(class|func|obj)", r"gpusim\..*\._\w+"),
]

# -- doctests: every code block of the pages runs; output must match exactly -------------------------
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Code on a page runs in the directory sphinx-build was started from (tests/test_docs.py: a fresh
# temporary one), so a page that relied on the repository root as its directory would fail there.
doctest_global_setup = """
__name__ = "__main__"   # code on a page runs as a script would: kernels are named __main__.<name>
import numpy as np
np.set_printoptions(legacy=False)
from gpu_blocks import GPU, GPU_WHY
"""
# Pages write every example as ``.. doctest::`` (gpu_blocks refuses a bare ``>>>`` block in them); the
# docstring examples the API pages show run in tests/test_doctests.py, in their modules' namespaces.
doctest_test_doctest_blocks = ""

# -- pictures: drawn during the html build by the code shown in the page -----------------------------
plot_include_source = True
plot_working_directory = REPOSITORY
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"figure.figsize": (7.0, 3.2)}
plot_pre_code = """
import numpy as np
import matplotlib.pyplot as plt


def show(path):
    # gpusim's picture functions write a PNG file; put it on a figure of its own size
    image = plt.imread(path)
    plt.figure(figsize=(image.shape[1] / 100, image.shape[0] / 100))
    plt.axes((0, 0, 1, 1)).imshow(image)
    plt.axis("off")
"""


# -- docstrings written as prose where napoleon and autodoc expect types ---------------------------------
def _is_expression(text: str) -> bool:
    try:
        compile(text, "<annotation>", "eval")
    except SyntaxError:
        return False
    return True


_PROSE_RETURNS: dict[str, str] = {}


def _prose_return(app, what, name, obj, options, signature, return_annotation):
    """``T``'s members document their result in their signature line, ``f(a) -> old: i32, u32``: prose, not
    a type to link.  Keep the signature, and say the result in the description instead."""
    if signature and ") -> " in signature:  # autodoc's pattern took "f() -> x: g() * h()" for arguments
        signature, _, return_annotation = signature.partition(" -> ")
        signature, return_annotation = signature + ")", return_annotation[:-1]
    if return_annotation and not _is_expression(return_annotation):
        _PROSE_RETURNS[name] = return_annotation
        return signature, None
    return signature, return_annotation


def _one_attribute_per_entry(lines: list[str]) -> None:
    """``kernel, grid, block:`` in an Attributes section documents three attributes: napoleon would make it one
    ``:ivar kernel, grid, block:`` field (two "types" and a name); give each name the entry's description."""
    section, i = None, 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"} and line.strip():
            section = line.strip()
        names = re.fullmatch(r"(\s*)(\w+(?:, \w+)+)\s*:?\s*", line)
        if section == "Attributes" and names:
            indent, found = names.group(1), names.group(2).split(", ")
            end = i + 1
            while end < len(lines) and (not lines[end].strip() or lines[end].startswith(indent + " ")):
                end += 1
            body = lines[i + 1:end]
            lines[i:end] = [row for each in found for row in (f"{indent}{each}:", *body)]
            i += len(found) * (len(body) + 1)
            continue
        i += 1


def _prose_docstring(app, what, name, obj, options, lines):
    if what == "class":
        _one_attribute_per_entry(lines)
    if name in _PROSE_RETURNS:
        lines[:0] = [f"Returns {_PROSE_RETURNS.pop(name)}.", ""]
    # napoleon reads an attribute's first line as "type: description" and would link the words before the
    # first colon as a class; this project's attribute comments (``#:``) are prose.  An empty comment
    # (``..``) as the first line leaves napoleon no colon there, and the whole comment is the description.
    if what in ("attribute", "data", "property") and lines and ":" in lines[0]:
        lines[:0] = ["..", ""]


def _public_bases(app, name, obj, options, bases):
    """``class Kernel(_Compiled)``: a private base is an implementation detail, not a page; show its public bases."""
    bases[:] = [public for base in bases for public in
                ([base] if not base.__name__.startswith("_") else [b for b in base.__bases__ if b is not object])]


def setup(app):
    app.connect("autodoc-process-bases", _public_bases)
    app.connect("autodoc-process-signature", _prose_return)
    app.connect("autodoc-process-docstring", _prose_docstring, priority=400)  # before napoleon's (500)
