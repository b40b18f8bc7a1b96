"""Sphinx configuration of gpusim's documentation.

Build the site and run every code block of the pages as a doctest (what CI does)::

    sphinx-build -W -b html docs build/docs/html
    sphinx-build -W -b doctest docs build/docs/doctest

The tutorials live in ``docs/tutorials/`` (``tutorials/`` at the top of the repository links to
them), so the pages a learner opens are the pages the build tests.  They are real files there,
not a link: docutils resolves a picture's ``..`` path physically, through a linked folder's
target, and the plot directive's pictures were not found when the clone sat at another depth.
"""

from __future__ import annotations

import os
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
    "notebooks",
]

exclude_patterns = ["_build"]
root_doc = "index"
html_theme = "alabaster"
html_title = "gpusim"
html_theme_options = {"description": "Teach and test GPU graph-matching algorithms", "fixed_sidebar": True}

# -- API reference: autodoc reads the numpydoc-style docstrings (napoleon parses their sections) ------
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
