"""Code blocks that need a GPU: shown on every page, run only where a GPU works, skipped visibly elsewhere.

A page marks such a block ``.. doctest::`` with ``:skipif: not GPU``.  ``GPU`` is true when
``Device("auto")`` would pick a GPU backend.  Sphinx's doctest builder drops skipped blocks
without a word; this extension names each one it skipped and why, and prints the count at the
end of the doctest run, so a reader of the CI log sees exactly what did not run.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.util import logging

from gpusim.backends import GPU_BACKENDS, gpu_status

logger = logging.getLogger(__name__)


def _probe() -> tuple[bool, str]:
    reasons = []
    for name in GPU_BACKENDS:
        ok, why = gpu_status(name)
        if ok:
            return True, f"{name}: {why}"
        reasons.append(f"{name}: {why.split(' (')[0]}")
    return False, "; ".join(reasons)


GPU, GPU_WHY = _probe()


def _check_blocks(app, doctree: nodes.document) -> None:
    if not app.env.docname.startswith("api/"):
        for block in doctree.findall(nodes.doctest_block):
            logger.warning("a bare >>> block is not run as a doctest: write it as '.. doctest::'",
                           location=block)
    if app.builder.name != "doctest" or GPU:
        return
    for node in doctree.findall(nodes.Element):
        if node.get("skipif", "").strip() == "not GPU":
            app.env.gpu_blocks_skipped = getattr(app.env, "gpu_blocks_skipped", 0) + 1
            logger.info(f"skipped without a GPU: {app.env.docname}.rst, line {node.line}")


def _summary(app, exception) -> None:
    if app.builder.name != "doctest" or exception is not None:
        return
    skipped = getattr(app.env, "gpu_blocks_skipped", 0)
    if GPU:
        logger.info(f"GPU blocks ran: a GPU works here ({GPU_WHY})")
    else:
        logger.info(f"{skipped} GPU block(s) shown in the pages but skipped: no GPU here ({GPU_WHY})")


def setup(app):
    app.connect("doctree-read", _check_blocks)
    app.connect("build-finished", _summary)
    return {"version": "1", "parallel_read_safe": False, "parallel_write_safe": True}
