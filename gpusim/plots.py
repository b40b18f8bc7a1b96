"""Pictures of what the simulator did: one swimlane per thread, one mark per scheduling point.

Example
-------
>>> import os, tempfile
>>> from gpusim.demo import find_lost_update
>>> found = find_lost_update(threads=4, block=4)
>>> path = os.path.join(tempfile.mkdtemp(), "lanes.png")
>>> swimlanes(found.run.trace, path, highlight=found.collision) == path
True
"""

from __future__ import annotations

from collections.abc import Sequence

from gpusim.backends.sim import TraceEvent

__all__ = ["swimlanes"]

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
