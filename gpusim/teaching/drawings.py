"""Drawings of the algorithms themselves, for the tutorials: each step on a handful of vertices.

Each function returns a matplotlib figure of two panels, *before* and *after* one step of an
algorithm of the seeds, with every vertex named and every number written beside its vertex or
edge: Deveci et al. (Euro-Par 2013)'s Figure 1 (:func:`figure1`), a BFS level and the alternation (:func:`bfs_level`),
a push and a relabel of Deveci et al. (ICPP 2013) (:func:`push_relabel`), ROMA's 4-cycle flip of Hovland (MSc thesis
2020)
(:func:`roma_flip`) and a Suitor proposal of Naim (PhD thesis 2017) (:func:`suitor_proposal`).  :func:`draw`
writes one to a file.

>>> import os, tempfile
>>> sorted(DRAWINGS)
['bfs_level', 'figure1', 'push_relabel', 'roma_flip', 'suitor_proposal']
>>> path = os.path.join(tempfile.mkdtemp(), "flip.png")
>>> draw("roma_flip", path) == path
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from gpusim.errors import InvalidArgument
from gpusim.teaching.plots import check_picture_path, save_figure

if TYPE_CHECKING:
    import matplotlib.figure

__all__ = ["DRAWINGS", "bfs_level", "draw", "figure1", "push_relabel", "roma_flip", "suitor_proposal"]

MATCHED, EDGE, PATH = "tab:red", "0.7", "tab:blue"


def _panels(title: str, left: str, right: str, width: float = 9.0, height: float = 3.6):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(width, height), layout="constrained")
    for panel, heading in zip(axes, (left, right), strict=True):
        panel.set_title(heading, fontsize=9)
        panel.set_axis_off()
        panel.set_aspect("equal")
    figure.suptitle(title, fontsize=10)
    return figure, axes


def _vertex(axes, xy, name: str, colour: str = "#dde6f3", note: str = "", below: bool = False) -> None:
    """A vertex at ``xy``: a disc with its name in it and, above (or below) it, a note (a label, a level)."""
    axes.scatter(*xy, s=620, color=colour, edgecolors="0.3", zorder=3)
    axes.text(*xy, name, ha="center", va="center", fontsize=9, zorder=4)
    if note:
        axes.text(xy[0], xy[1] + (-0.36 if below else 0.36), note, ha="center", va="top" if below else "bottom",
                  fontsize=8, color="0.2")


def _edge(axes, a, b, colour: str = EDGE, width: float = 1.2, style: str = "-", label: str = "",
          shift: tuple[float, float] = (0.0, 0.0)) -> None:
    """An edge from ``a`` to ``b``; ``label`` at its middle, moved by ``shift``."""
    axes.plot([a[0], b[0]], [a[1], b[1]], color=colour, linewidth=width, linestyle=style, zorder=1)
    if label:
        axes.text((a[0] + b[0]) / 2 + shift[0], (a[1] + b[1]) / 2 + shift[1], label, ha="center", va="center",
                  fontsize=8, color=colour if colour != EDGE else "0.35",
                  bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"})


def _arrow(axes, a, b, colour: str, style: str = "-", label: str = "", shift: tuple[float, float] = (0.0, 0.0)):
    """An arrow from vertex ``a`` to vertex ``b`` (stopping at the discs), ``label`` beside its middle."""
    axes.annotate("", xy=b, xytext=a, zorder=2, arrowprops={
        "arrowstyle": "-|>", "color": colour, "linestyle": style, "linewidth": 1.6, "shrinkA": 13, "shrinkB": 13})
    if label:
        axes.text((a[0] + b[0]) / 2 + shift[0], (a[1] + b[1]) / 2 + shift[1], label, ha="center", va="center",
                  fontsize=8, color=colour)


def _limits(axes, x: tuple[float, float], y: tuple[float, float]) -> None:
    for panel in axes:
        panel.set_xlim(*x)
        panel.set_ylim(*y)


# Deveci et al. (Euro-Par 2013)'s Figure 1 in tutorial 2's numbering: rows r0, r1, r2; columns c0, c1; r1-c1 matched.
_ROWS = {"r0": (0.0, 2.0), "r1": (0.0, 1.0), "r2": (0.0, 0.0)}
_COLS = {"c0": (2.0, 1.5), "c1": (2.0, 0.5)}
_EDGES = (("r0", "c0"), ("r1", "c0"), ("r1", "c1"), ("r2", "c1"))


def _figure1_graph(axes, matched: set, notes: dict | None = None) -> None:
    where = {**_ROWS, **_COLS}
    notes = notes or {}
    for r, c in _EDGES:
        if (r, c) in matched:
            _edge(axes, where[r], where[c], MATCHED, 3.0)
        else:
            _edge(axes, where[r], where[c])
    for name, xy in _ROWS.items():
        _vertex(axes, xy, name, "#f6e3c8" if all(r != name for r, _ in matched) else "#dde6f3", notes.get(name, ""))
    for name, xy in _COLS.items():
        _vertex(axes, xy, name, "#f6e3c8" if all(c != name for _, c in matched) else "#dde6f3", notes.get(name, ""))


def figure1() -> matplotlib.figure.Figure:
    """Deveci et al. (Euro-Par 2013), Fig. 1: ``r1-c1`` matched; the free column ``c0`` reaches two augmenting paths,
    ``c0-r0`` and ``c0-r1-c1-r2``, which share ``c0`` (tutorial 2's race)."""
    figure, (graph, paths) = _panels("Deveci et al. (Euro-Par 2013), Fig. 1: two augmenting paths start at "
                                     "the free column c0",
                                     "the graph: r1-c1 matched (red), free vertices light orange",
                                     "the paths GPUBFS finds from c0")
    _figure1_graph(graph, {("r1", "c1")})
    _figure1_graph(paths, {("r1", "c1")})
    where = {**_ROWS, **_COLS}
    _arrow(paths, where["c0"], where["r0"], PATH, label="path 1", shift=(0.15, 0.3))
    _arrow(paths, where["c0"], where["r1"], "tab:green", "--", label="path 2", shift=(0.2, -0.28))
    _arrow(paths, where["r1"], where["c1"], "tab:green", "--")
    _arrow(paths, where["c1"], where["r2"], "tab:green", "--")
    _limits((graph, paths), (-0.6, 2.6), (-0.6, 2.6))
    return figure


def bfs_level() -> matplotlib.figure.Figure:
    """One BFS level of GPUBFS (Deveci et al., Euro-Par 2013, Alg. 2) from ``c0`` at level L0 = 2, and ALTERNATE
    (Alg. 3) of the
    path ``c0-r1-c1-r2``: every edge of the path changes side, and the matching grows by one."""
    figure, (level, flipped) = _panels(
        "GPUBFS, one level, then ALTERNATE (Deveci et al., Euro-Par 2013, Alg. 2 and 3)",
        "level 2: c0 scans r0 (free: a path ends, rmatch = -2)\nand r1 (matched: its column c1 gets level 3)",
        "ALTERNATE from r2, through the predecessors:\nc1 -> r2 and c0 -> r1 matched; size 1 -> 2")
    _figure1_graph(level, {("r1", "c1")}, {"c0": "level 2", "c1": "level 3", "r0": "-2", "r1": "pred c0"})
    _figure1_graph(flipped, {("r1", "c0"), ("r2", "c1")}, {"r2": "pred c1", "r1": "pred c0"})
    where = {**_ROWS, **_COLS}
    _arrow(level, where["c0"], where["r0"], PATH)
    _arrow(level, where["c0"], where["r1"], PATH)
    _arrow(level, where["r1"], where["c1"], "tab:green", "--", label="via its mate", shift=(0.1, -0.32))
    _limits((level, flipped), (-0.7, 2.7), (-0.6, 2.6))
    return figure


def push_relabel() -> matplotlib.figure.Figure:
    """A push and a relabel of G-PR (Deveci et al., ICPP 2013, Alg. 6 lines 5–17): the active column ``v`` takes
    ``u``, its
    row of smallest ψ; ``u``'s old column ``w`` becomes active (a double push); ψ(v) = ψ(u) + 1 and
    ψ(u) = ψ(u) + 2."""
    figure, (before, after) = _panels("G-PR: a double push and a relabel (Deveci et al., ICPP 2013, Alg. 6)",
                                      "before: v is active (free); its rows have\nψ(u) = 1 and ψ(x) = 3",
                                      "after: v-u matched, w active;\nψ(v) = 1 + 1, ψ(u) = 1 + 2")
    v, w, u, x = (0.0, 1.6), (0.0, 0.0), (2.0, 1.6), (2.0, 0.0)
    _edge(before, v, u, label="smallest ψ", shift=(0.0, 0.22))
    _edge(before, v, x)
    _edge(before, w, u, MATCHED, 3.0)
    _edge(after, v, u, MATCHED, 3.0)
    _edge(after, v, x)
    _edge(after, w, u)
    notes = ((before, "ψ = 1", "ψ = 1", "ψ = 2"), (after, "ψ = 2", "ψ = 3", "ψ = 2, active"))
    for panel, psi_v, psi_u, w_note in notes:
        _vertex(panel, v, "v", "#f6e3c8" if panel is before else "#dde6f3", psi_v)
        _vertex(panel, w, "w", "#dde6f3" if panel is before else "#f6e3c8", w_note, below=True)
        _vertex(panel, u, "u", note=psi_u)
        _vertex(panel, x, "x", "#f6e3c8", "ψ = 3", below=True)
    _limits((before, after), (-1.0, 2.6), (-0.8, 2.3))
    return figure


def roma_flip() -> matplotlib.figure.Figure:
    """ROMA's 4-cycle flip (Hovland, MSc thesis 2020, Alg. 4–5 and 7): matching edges ``(u, v)``, ``(x, y)`` become
    ``(u, x)``, ``(v, y)`` when that weighs more; the gain here is 5 + 4 - 3 - 2 = 4."""
    figure, (before, after) = _panels("ROMA: swap two matching edges along a 4-cycle "
                                      "(Hovland, MSc thesis 2020, Alg. 5, 7)",
                                      "before: M = {(u, v), (x, y)}, weight 3 + 2 = 5",
                                      "after atomicFlip: M = {(u, x), (v, y)}, weight 9, gain 4")
    u, v, x, y = (0.0, 1.6), (0.0, 0.0), (2.0, 1.6), (2.0, 0.0)
    for panel, flipped in ((before, False), (after, True)):
        old, new = (EDGE, MATCHED) if flipped else (MATCHED, EDGE)
        _edge(panel, u, v, old, 1.2 if flipped else 3.0, label="3", shift=(-0.22, 0.0))
        _edge(panel, x, y, old, 1.2 if flipped else 3.0, label="2", shift=(0.22, 0.0))
        _edge(panel, u, x, new, 3.0 if flipped else 1.2, "-" if flipped else "--", label="5", shift=(0.0, 0.2))
        _edge(panel, v, y, new, 3.0 if flipped else 1.2, "-" if flipped else "--", label="4", shift=(0.0, -0.2))
        for name, xy in (("u", u), ("v", v), ("x", x), ("y", y)):
            _vertex(panel, xy, name)
    before.text(1.0, 0.8, "locks: u, v, x, y\nin increasing order", ha="center", va="center", fontsize=7,
                color="0.35")
    _limits((before, after), (-0.6, 2.6), (-0.6, 2.2))
    return figure


def suitor_proposal() -> matplotlib.figure.Figure:
    """A Suitor proposal (Naim et al., HiPC 2015, Alg. 3): ``u`` proposes to ``v`` with weight 5, beating the
    offer ``v`` holds from ``w`` (weight 3); ``w`` is displaced and proposes to its next best, ``z``."""
    figure, (before, after) = _panels("Suitor: a better offer displaces a suitor (Naim et al., HiPC 2015, Alg. 3)",
                                      "u proposes to v (5); v holds w's offer (3)",
                                      "v keeps u (a CAS on suitor[v]);\nw is displaced and proposes to z (2)")
    u, v, w, z = (0.0, 1.6), (2.0, 1.6), (2.0, 0.0), (0.0, 0.0)
    _edge(before, w, z, label="2", shift=(0.0, -0.2))
    _arrow(before, u, v, "tab:green", "--", label="5: proposes", shift=(0.0, 0.22))
    _arrow(before, w, v, MATCHED, label="3: held", shift=(0.45, 0.0))
    _arrow(after, u, v, MATCHED, label="5: held", shift=(0.0, 0.22))
    _edge(after, w, v, label="3", shift=(0.22, 0.0))
    _arrow(after, w, z, "tab:green", "--", label="2: proposes", shift=(0.0, -0.22))
    for panel in (before, after):
        for name, xy in (("u", u), ("v", v), ("w", w), ("z", z)):
            _vertex(panel, xy, name)
    _limits((before, after), (-0.6, 2.9), (-0.6, 2.2))
    return figure


#: Every drawing, by name.
DRAWINGS: dict[str, Callable[[], matplotlib.figure.Figure]] = {
    f.__name__: f for f in (bfs_level, figure1, push_relabel, roma_flip, suitor_proposal)}


def draw(name: str, path: str) -> str:
    """Draw the drawing ``name`` (a key of :data:`DRAWINGS`) into ``path`` (PNG, SVG or PDF); return ``path``.

    >>> draw("a_heap", "x.png")
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: no drawing 'a_heap'; choose one of bfs_level, figure1, push_relabel, ...
    """
    if name not in DRAWINGS:
        raise InvalidArgument(f"no drawing {name!r}; choose one of {', '.join(sorted(DRAWINGS))}")
    check_picture_path(path, "path")
    return save_figure(DRAWINGS[name](), path)
