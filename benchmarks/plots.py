"""The one chart most areas draw: grouped bars, one group per input, one bar per program (log scale optional)."""

from __future__ import annotations

import math
from pathlib import Path


def bars(path: str | Path, title: str, groups: list[str], series: dict[str, list[float | None]], ylabel: str,
         log: bool = True, line: float | None = None) -> None:
    """Draw ``series`` (label -> one value per group, ``None`` where missing) as grouped bars into ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(max(7.0, 1.1 * len(groups) + 5), 4.5))
    width = 0.8 / max(1, len(series))
    for k, (label, values) in enumerate(series.items()):
        xs = [i + k * width for i in range(len(groups))]
        axes.bar(xs, [math.nan if v is None else v for v in values], width, label=label, color=plt.cm.tab20(k % 20))
    if line is not None:
        axes.axhline(line, color="black", linewidth=0.8)
    if log:
        axes.set_yscale("log")
    axes.set_xticks([i + 0.4 - width / 2 for i in range(len(groups))], groups, rotation=20, ha="right", fontsize=8)
    axes.set_ylabel(ylabel)
    axes.set_title(title, fontsize=10)
    if series:
        axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
