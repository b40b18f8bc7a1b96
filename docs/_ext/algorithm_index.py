"""The algorithm index, generated from the registry: ``.. algorithm-index::`` renders one table row per algorithm.

Every algorithm registers itself where it is defined (:mod:`gpusim.runtime.registry`); this directive
reads ``gpusim.runtime.registry.algorithms()`` — every problem's, or one with ``:problem: NAME`` — and
renders problem, algorithm, title, paper, backends and guarantees.  Each algorithm's name links to its
function in the API pages where that function is documented (a plain name where it is not), so the
index is never written by hand and cannot fall behind the code.  The page is re-read when a module
that defines a registered algorithm changes.
"""

from __future__ import annotations

import inspect

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

COLUMNS = (("Problem", 10), ("Algorithm", 10), ("Title", 30), ("Paper", 25), ("Backends", 12), ("Guarantees", 23))


def index_rows(problem: str | None = None) -> list[dict]:
    """The rows of the index: each registered algorithm's cells, and the function its name links to.

    >>> rows = index_rows("stable")
    >>> [row["algorithm"] for row in rows], rows[-1]["target"], rows[-1]["backends"]
    (['gs', 'mw', 'gs-rounds', 'mw-gpu'], 'gpusim.algorithms.stable.gpu.mw_gpu', 'sim, numba, cupy (cpu: mw)')
    """
    import gpusim.algorithms  # noqa: F401  (the families register their algorithms)
    from gpusim.runtime.registry import algorithms

    return [{"problem": entry.problem, "algorithm": entry.name, "title": entry.title, "paper": entry.citation,
             "backends": _backends(entry), "guarantees": entry.guarantees or "-",
             "target": f"{entry.run.__module__}.{entry.run.__qualname__}",
             "source": inspect.getsourcefile(entry.run)} for entry in algorithms(problem)]


def _text(value: str) -> nodes.paragraph:
    return nodes.paragraph("", value)


def _name(row: dict, pages: bool = False) -> nodes.paragraph:
    """The algorithm's name: a cross-reference to its kernel page (``pages``) or to the function it registered."""
    if pages:
        link = addnodes.pending_xref("", refdomain="std", reftype="doc", refexplicit=True, refwarn=True,
                                     reftarget=f"/kernels/{row['problem']}-{row['algorithm']}")
    else:
        link = addnodes.pending_xref("", refdomain="py", reftype="func", reftarget=row["target"], refexplicit=True,
                                     refwarn=False)
    link += nodes.literal("", row["algorithm"])
    return nodes.paragraph("", "", link)


def _backends(entry) -> str:
    """The backends, and what ``backend="cpu"`` runs when the algorithm has no cpu path of its own."""
    shown = ", ".join(entry.backends)
    return shown + (f" (cpu: {entry.on_cpu})" if entry.on_cpu and "cpu" not in entry.backends else "")


class AlgorithmIndex(SphinxDirective):
    """``.. algorithm-index::`` (``:problem: NAME`` for one problem's algorithms; ``:pages:`` to link each
    name to its kernel page rather than to its function)."""

    has_content = False
    option_spec = {"problem": directives.unchanged, "pages": directives.flag}

    def run(self) -> list[nodes.Node]:
        from gpusim.runtime.registry import problems

        problem = self.options.get("problem")
        rows = index_rows(problem)
        if problem is not None and problem not in problems():
            raise self.error(f"algorithm-index: :problem: {problem!r} is not one of {', '.join(problems())}")
        for source in sorted({row["source"] for row in rows}):
            self.env.note_dependency(source)
        table = nodes.table(classes=["algorithm-index"])
        group = nodes.tgroup(cols=len(COLUMNS))
        table += group
        group.extend(nodes.colspec(colwidth=width) for _, width in COLUMNS)
        head = nodes.thead()
        head += nodes.row("", *(nodes.entry("", _text(label)) for label, _ in COLUMNS))
        body = nodes.tbody()
        for row in rows:
            cells = [_text(row["problem"]), _name(row, "pages" in self.options), _text(row["title"]),
                     _text(row["paper"]),
                     _text(row["backends"]), _text(row["guarantees"])]
            body += nodes.row("", *(nodes.entry("", cell) for cell in cells))
        group += head
        group += body
        return [table]


def setup(app):
    app.add_directive("algorithm-index", AlgorithmIndex)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
