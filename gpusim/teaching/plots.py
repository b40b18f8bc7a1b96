"""Pictures: what the simulator did (one swimlane per thread), and the matchings found.

Example
-------
>>> import os, tempfile
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1])
>>> picture = os.path.join(tempfile.mkdtemp(), "matching.png")
>>> bipartite_matching_picture(g, np.array([0, 1]), picture) == picture
True
>>> from gpusim.teaching.demo import find_lost_update
>>> found = find_lost_update(threads=4, block=4)
>>> path = os.path.join(tempfile.mkdtemp(), "lanes.png")
>>> swimlanes(found.run.trace, path, highlight=found.collision) == path
True
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from gpusim.backends.sim import TraceEvent

if TYPE_CHECKING:
    import matplotlib.figure
from gpusim.errors import InvalidArgument
from gpusim.teaching.files import check_output_folder, write_whole

__all__ = ["PICTURE_FORMATS", "bipartite_matching_picture", "check_picture_path", "operation_kind", "plural",
           "save_figure", "swimlanes", "swimlanes_figure", "weighted_matching_picture"]

#: The file suffixes the picture functions write.
PICTURE_FORMATS = ("png", "svg", "pdf")


def check_picture_path(path: str, option: str = "--png") -> None:
    """Refuse, before any work, a picture path that cannot be written: a format other than
    :data:`PICTURE_FORMATS`, a directory, a missing or read-only folder.

    >>> check_picture_path("/nonexistent/x.png")
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: --png '/nonexistent/x.png': no folder '/nonexistent' to write it in
    """
    target = Path(path)
    if target.is_dir():
        raise InvalidArgument(f"{option} {path!r} is a folder, not a file")
    suffix = target.suffix.lower().lstrip(".")
    if suffix not in PICTURE_FORMATS:
        raise InvalidArgument(f"{option} {path!r}: cannot draw a {('.' + suffix) if suffix else 'suffix-less'} "
                              f"file; name it .png, .svg or .pdf")
    check_output_folder(path, option)


def save_figure(figure: matplotlib.figure.Figure, path: str) -> str:
    """Save ``figure`` to ``path`` whole or not at all (through a temporary file in the same folder); a
    failure to write (a full disk) raises :class:`~gpusim.errors.OutputNotWritten` naming ``path``."""
    import matplotlib.pyplot as plt

    file_format = Path(path).suffix.lower().lstrip(".") or "png"
    try:
        write_whole(path, lambda partial: figure.savefig(partial, dpi=120, format=file_format))
    finally:
        plt.close(figure)
    return path


_STYLE = {  # kind of operation -> (marker, colour)
    "load": ("o", "tab:blue"),
    "store": ("s", "tab:orange"),
    "atomic": ("D", "tab:green"),
    "block barrier": ("|", "black"),
    "fence": ("x", "tab:gray"),
    "warp collective": ("^", "tab:purple"),
}
_RINGS = ("red", "tab:brown", "magenta", "tab:olive", "tab:cyan", "navy")


def operation_kind(op: str) -> str:
    """The legend entry of a trace operation: its kind, one of the keys of the swimlanes' legend.

    >>> [operation_kind(op) for op in ("load", "atomic_cas", "syncthreads", "threadfence", "ballot")]
    ['load', 'atomic', 'block barrier', 'fence', 'warp collective']
    """
    if op in ("load", "store"):
        return op
    if op.startswith("atomic"):
        return "atomic"
    if op == "syncthreads":
        return "block barrier"
    if op == "threadfence":
        return "fence"
    return "warp collective"  # shfl_*, ballot, any, all, syncwarp: the lanes of a warp meet


def swimlanes_figure(events: Sequence[TraceEvent], highlight: Sequence[TraceEvent] = (), title: str = "",
                     max_threads: int = 32) -> matplotlib.figure.Figure:
    """The swimlanes of ``events`` as a matplotlib figure (x: step, y: thread); see :func:`swimlanes`.

    >>> from gpusim.teaching.demo import find_lost_update
    >>> found = find_lost_update(threads=40, block=8)
    >>> figure = swimlanes_figure(found.run.trace, highlight=found.collision)
    >>> print(figure.axes[0].get_title().splitlines()[-1])
    32 of 40 threads drawn (the 2 highlighted, then the busiest); 8 not drawn
    >>> import matplotlib.pyplot as plt; plt.close(figure)
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    busiest: dict[tuple[int, int], int] = {}
    for event in events:
        busiest[(event.block, event.thread)] = busiest.get((event.block, event.thread), 0) + 1
    marked = list(dict.fromkeys((e.block, e.thread) for e in highlight))
    chosen = marked + sorted(busiest, key=lambda who: -busiest[who])
    lanes = list(dict.fromkeys(chosen))[:max_threads]
    lane_of = {who: row for row, who in enumerate(sorted(lanes))}
    total = len(set(busiest) | set(marked))

    figure, axes = plt.subplots(figsize=(10, 1.4 + 0.3 * len(lane_of)))
    for kind, (marker, colour) in _STYLE.items():
        drawn = [(e.step, lane_of[(e.block, e.thread)]) for e in events
                 if operation_kind(e.op) == kind and (e.block, e.thread) in lane_of]
        if drawn:
            x, y = zip(*drawn, strict=True)
            axes.scatter(x, y, marker=marker, color=colour, s=22, label=kind)
    for number, event in enumerate(highlight):
        row = lane_of.get((event.block, event.thread))
        ring = _RINGS[number % len(_RINGS)]
        axes.scatter(event.step, row, s=170, facecolors="none", edgecolors=ring, linewidths=1.6,
                     label=f"step {event.step}, ({event.block},{event.thread}): {event.op} "
                           f"{event.array}[{event.index}] = {event.value}")
    axes.set_yticks(range(len(lane_of)))
    axes.set_yticklabels([f"({b},{t})" for b, t in sorted(lane_of)], fontsize=7)
    axes.set_xlabel("step (scheduling point)")
    axes.set_ylabel("thread (block, thread)")
    heading = title or "simulated interleaving"
    if total > len(lane_of):
        heading += (f"\n{len(lane_of)} of {total} threads drawn (the {len(marked)} highlighted, then the busiest); "
                    f"{total - len(lane_of)} not drawn")
    axes.set_title(heading, fontsize=10)
    axes.set_ylim(len(lane_of) - 0.5, -0.5)  # thread order top down, half a lane of margin
    if events or highlight:  # outside the axes, on the right: the key covers no event
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, borderaxespad=0.0)
    figure.tight_layout()
    return figure


def swimlanes(events: Sequence[TraceEvent], path: str, highlight: Sequence[TraceEvent] = (),
              title: str = "", max_threads: int = 32) -> str:
    """Draw ``events`` as swimlanes (x: step, y: thread) into ``path`` (PNG, SVG or PDF); return ``path``.

    ``highlight`` events (say, the two loads of a lost update) are ringed, each in its own colour,
    and listed in the key (step, thread, operation, cell, value) beside the lanes, so no label
    covers another or an event.  At most ``max_threads`` lanes are drawn: those of the highlighted
    threads first, then the busiest; when some are left out the title says how many.
    """
    return save_figure(swimlanes_figure(events, highlight, title, max_threads), path)


def plural(side: str) -> str:
    """The plural of a side's name, as the pictures label it.

    >>> plural("man"), plural("woman"), plural("row"), plural("column")
    ('men', 'women', 'rows', 'columns')
    """
    return {"man": "men", "woman": "women"}.get(side, side + "s")


def bipartite_matching_picture(graph, row_match: np.ndarray, path: str, title: str = "",
                               max_drawn_vertices: int = 80, sides: tuple[str, str] = ("row", "column")) -> str:
    """Draw a bipartite matching into ``path``; return ``path``.

    Small graphs are drawn as two columns of labelled vertices (``sides[0]`` left, ``sides[1]``
    right, e.g. ``("man", "woman")``) with the matched edges in red; larger ones as the matrix's
    sparsity pattern with the matched entries in red.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    left, right = sides
    rows, cols = graph.edges()
    matched = np.flatnonzero(row_match >= 0)
    if graph.n_rows + graph.n_cols <= max_drawn_vertices:
        height = max(graph.n_rows, graph.n_cols, 1)
        figure, axes = plt.subplots(figsize=(5.5, 1.2 + 0.3 * height))
        y_row = np.linspace(height - 1, 0, graph.n_rows) if graph.n_rows > 1 else np.zeros(graph.n_rows)
        y_col = np.linspace(height - 1, 0, graph.n_cols) if graph.n_cols > 1 else np.zeros(graph.n_cols)
        for r, c in zip(rows, cols, strict=True):
            axes.plot([0, 1], [y_row[r], y_col[c]], color="0.8", linewidth=0.8, zorder=1)
        for r in matched:
            axes.plot([0, 1], [y_row[r], y_col[row_match[r]]], color="tab:red", linewidth=2, zorder=2)
        axes.scatter(np.zeros(graph.n_rows), y_row, color="tab:blue", zorder=3)
        axes.scatter(np.ones(graph.n_cols), y_col, color="tab:green", zorder=3)
        labels = height <= 40
        for vertex, y in enumerate(y_row if labels else ()):
            axes.annotate(f"{left} {vertex}", (0, y), textcoords="offset points", xytext=(-6, 0), ha="right",
                          va="center", fontsize=7)
        for vertex, y in enumerate(y_col if labels else ()):
            axes.annotate(f"{right} {vertex}", (1, y), textcoords="offset points", xytext=(6, 0), ha="left",
                          va="center", fontsize=7)
        axes.set_xlim(-0.45, 1.45)
        axes.set_xticks([0, 1], [plural(left), plural(right)])
        axes.set_yticks([])
        axes.set_xlabel("red: matched pairs; grey: the other edges", fontsize=8)
    else:
        figure, axes = plt.subplots(figsize=(6, 6))
        marker = max(0.05, min(4.0, 4000.0 / max(1, rows.size)))
        axes.scatter(cols, rows, s=marker, color="0.6", marker="s", linewidths=0, label="edge")
        axes.scatter(row_match[matched], matched, s=marker * 4, color="tab:red", marker="s", linewidths=0,
                     label=f"matched {left}-{right}")
        axes.set_xlim(-0.5, graph.n_cols - 0.5)
        axes.set_ylim(graph.n_rows - 0.5, -0.5)
        axes.set_xlabel(plural(right))
        axes.set_ylabel(plural(left))
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, markerscale=4, borderaxespad=0.0)
    axes.set_title(title or f"matching of size {matched.size}: {matched.size} {left}-{right} pairs")
    figure.tight_layout()
    return save_figure(figure, path)


def weighted_matching_picture(graph, pairs: np.ndarray, path: str, title: str = "",
                              max_drawn_vertices: int = 300) -> str:
    """Draw a weighted graph with the matched edges ``pairs`` (a ``k × 2`` array) highlighted; return ``path``.

    Graphs of up to ``max_drawn_vertices`` vertices are drawn as a node-link picture (a seeded spring
    layout, edge width by weight, matched edges thick and red); larger ones as the adjacency
    matrix's pattern with the matched entries in red.

    >>> import os, tempfile
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 5.0, 1.0])
    >>> out = os.path.join(tempfile.mkdtemp(), "w.png")
    >>> weighted_matching_picture(g, np.array([[1, 2]]), out) == out
    True
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    us, vs, weights = graph.edges()
    pairs = np.asarray(pairs, np.int64).reshape(-1, 2)
    if graph.n <= max_drawn_vertices:
        import networkx as nx

        figure, axes = plt.subplots(figsize=(7, 7))
        from gpusim.teaching.layout import clear_layout

        # no edge drawn through a vertex it does not join (the karate graph's 24-27 ran through 15)
        layout = nx.spring_layout(graph.to_networkx(), seed=1)
        if graph.n <= 100:
            layout = clear_layout(layout, zip(us.tolist(), vs.tolist(), strict=True))
        heaviest = float(np.abs(weights).max()) if weights.size else 1.0
        for u, v, w in zip(us.tolist(), vs.tolist(), weights.tolist(), strict=True):
            axes.plot(*zip(layout[u], layout[v], strict=True), color="0.75",
                      linewidth=0.4 + 1.6 * abs(w) / (heaviest or 1.0), zorder=1)
        for number, (u, v) in enumerate(pairs.tolist()):
            axes.plot(*zip(layout[u], layout[v], strict=True), color="tab:red", linewidth=3, zorder=2,
                      label="matched edge" if number == 0 else None)
        xy = np.array([layout[vertex] for vertex in range(graph.n)]).reshape(-1, 2)
        axes.scatter(xy[:, 0], xy[:, 1], s=120, color="tab:blue", edgecolors="white", linewidths=1.5, zorder=3)
        if graph.n <= 60:
            for vertex, (x, y) in enumerate(xy):
                axes.annotate(str(vertex), (x, y), ha="center", va="center", fontsize=7, color="white", zorder=4)
        axes.set_axis_off()
        if pairs.size:
            axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, borderaxespad=0.0)
    else:
        figure, axes = plt.subplots(figsize=(6, 6))
        marker = max(0.05, min(4.0, 4000.0 / max(1, us.size)))
        axes.scatter(np.r_[us, vs], np.r_[vs, us], s=marker, color="0.6", marker="s", linewidths=0, label="edge")
        axes.scatter(np.r_[pairs[:, 0], pairs[:, 1]], np.r_[pairs[:, 1], pairs[:, 0]], s=marker * 4,
                     color="tab:red", marker="s", linewidths=0, label="matched")
        axes.set_xlim(-0.5, graph.n - 0.5)
        axes.set_ylim(graph.n - 0.5, -0.5)
        axes.set_xlabel("vertex")
        axes.set_ylabel("vertex")
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, markerscale=4, borderaxespad=0.0)
    axes.set_title(title or f"matching of {len(pairs)} edges")
    figure.tight_layout()
    return save_figure(figure, path)
