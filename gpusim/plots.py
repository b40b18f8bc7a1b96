"""Pictures: what the simulator did (one swimlane per thread), and the matchings found.

Example
-------
>>> import os, tempfile
>>> from gpusim.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1])
>>> picture = os.path.join(tempfile.mkdtemp(), "matching.png")
>>> bipartite_matching_picture(g, np.array([0, 1]), picture) == picture
True
>>> from gpusim.demo import find_lost_update
>>> found = find_lost_update(threads=4, block=4)
>>> path = os.path.join(tempfile.mkdtemp(), "lanes.png")
>>> swimlanes(found.run.trace, path, highlight=found.collision) == path
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gpusim.backends.sim import TraceEvent

__all__ = ["bipartite_matching_picture", "swimlanes"]

_STYLE = {  # operation -> (marker, colour)
    "load": ("o", "tab:blue"),
    "store": ("s", "tab:orange"),
    "syncthreads": ("|", "black"),
    "threadfence": ("x", "gray"),
}
_ATOMIC = ("D", "tab:green")
_COLLECTIVE = ("^", "tab:purple")


def swimlanes(events: Sequence[TraceEvent], path: str, highlight: Sequence[TraceEvent] = (),
              title: str = "", max_threads: int = 32) -> str:
    """Draw ``events`` as swimlanes (x: step, y: thread) into ``path`` (PNG or SVG); return ``path``.

    ``highlight`` events (say, the two loads of a lost update) are circled in red and labelled
    with their value.  At most ``max_threads`` lanes are drawn: those of the highlighted threads
    first, then the busiest.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    busiest: dict[tuple[int, int], int] = {}
    for event in events:
        busiest[(event.block, event.thread)] = busiest.get((event.block, event.thread), 0) + 1
    chosen = [(e.block, e.thread) for e in highlight]
    chosen += sorted(busiest, key=lambda who: -busiest[who])
    lanes = list(dict.fromkeys(chosen))[:max_threads]
    lane_of = {who: row for row, who in enumerate(sorted(lanes))}

    figure, axes = plt.subplots(figsize=(10, 1.2 + 0.35 * len(lane_of)))
    seen_labels = set()
    for event in events:
        row = lane_of.get((event.block, event.thread))
        if row is None:
            continue
        marker, colour = _STYLE.get(event.op) or (_ATOMIC if event.op.startswith("atomic") else _COLLECTIVE)
        label = event.op if event.op.startswith(("load", "store", "sync")) else (
            "atomic" if event.op.startswith("atomic") else "warp collective")
        axes.scatter(event.step, row, marker=marker, color=colour, s=22,
                     label=None if label in seen_labels else label)
        seen_labels.add(label)
    for number, event in enumerate(highlight):
        row = lane_of.get((event.block, event.thread))
        axes.scatter(event.step, row, s=160, facecolors="none", edgecolors="red", linewidths=1.5)
        axes.annotate(f"{event.op} {event.array}[{event.index}]={event.value}", (event.step, row),
                      textcoords="offset points", xytext=(8, 8 if number % 2 == 0 else -14), fontsize=8,
                      color="red")
    axes.set_yticks(range(len(lane_of)))
    axes.set_yticklabels([f"({b},{t})" for b, t in sorted(lane_of)], fontsize=7)
    axes.set_xlabel("step (scheduling point)")
    axes.set_ylabel("thread (block, thread)")
    axes.set_title(title or "simulated interleaving")
    axes.invert_yaxis()
    if seen_labels:
        axes.legend(loc="upper right", fontsize=7, ncols=min(5, len(seen_labels)))
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def bipartite_matching_picture(graph, row_match: np.ndarray, path: str, title: str = "",
                               max_drawn_vertices: int = 80) -> str:
    """Draw a bipartite matching into ``path``; return ``path``.

    Small graphs are drawn as two columns of vertices (rows left, columns right) with the matched
    edges in red; larger ones as the matrix's sparsity pattern with the matched entries in red.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, cols = graph.edges()
    matched = np.flatnonzero(row_match >= 0)
    if graph.n_rows + graph.n_cols <= max_drawn_vertices:
        height = max(graph.n_rows, graph.n_cols, 1)
        figure, axes = plt.subplots(figsize=(5, 1 + 0.25 * height))
        y_row = np.linspace(height - 1, 0, graph.n_rows) if graph.n_rows > 1 else np.zeros(graph.n_rows)
        y_col = np.linspace(height - 1, 0, graph.n_cols) if graph.n_cols > 1 else np.zeros(graph.n_cols)
        for r, c in zip(rows, cols, strict=True):
            axes.plot([0, 1], [y_row[r], y_col[c]], color="0.8", linewidth=0.8, zorder=1)
        for r in matched:
            axes.plot([0, 1], [y_row[r], y_col[row_match[r]]], color="tab:red", linewidth=2, zorder=2)
        axes.scatter(np.zeros(graph.n_rows), y_row, color="tab:blue", zorder=3, label="rows")
        axes.scatter(np.ones(graph.n_cols), y_col, color="tab:green", zorder=3, label="columns")
        axes.set_xticks([0, 1], ["rows", "columns"])
        axes.set_yticks([])
    else:
        figure, axes = plt.subplots(figsize=(6, 6))
        marker = max(0.05, min(4.0, 4000.0 / max(1, rows.size)))
        axes.scatter(cols, rows, s=marker, color="0.6", marker="s", linewidths=0, label="edge")
        axes.scatter(row_match[matched], matched, s=marker * 4, color="tab:red", marker="s", linewidths=0,
                     label="matched")
        axes.set_xlim(-0.5, graph.n_cols - 0.5)
        axes.set_ylim(graph.n_rows - 0.5, -0.5)
        axes.set_xlabel("column")
        axes.set_ylabel("row")
        axes.legend(loc="upper right", fontsize=7, markerscale=4)
    axes.set_title(title or f"matching of size {matched.size}")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
