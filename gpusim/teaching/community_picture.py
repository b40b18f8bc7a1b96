"""The picture of a Louvain result: the graph coloured by community, or the communities' sizes and each level.

A graph of at most :data:`DRAWN_VERTICES` vertices is drawn whole (NetworkX's spring layout, one colour a
community); a larger one as two panels: how many communities have each size, and the modularity and the
number of communities after each level of the dendrogram.

>>> import os, tempfile
>>> from gpusim.algorithms.louvain import karate, louvain
>>> path = os.path.join(tempfile.mkdtemp(), "karate.png")
>>> community_picture(louvain(karate(), backend="cpu"), path) == path
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["DRAWN_VERTICES", "community_picture"]

#: Graphs up to this many vertices are drawn vertex by vertex.
DRAWN_VERTICES = 300


def community_picture(result, path: str, title: str = "") -> str:
    """Draw ``result`` (a :class:`~gpusim.algorithms.louvain.CommunityResult`) to ``path`` (PNG, SVG or PDF)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    graph = result.graph
    title = title or f"{result.n_communities} communities, modularity {result.modularity:.4f}"
    if graph.n <= DRAWN_VERTICES:
        import networkx as nx

        G = graph.to_networkx()
        G.remove_edges_from(list(nx.selfloop_edges(G)))
        figure, axes = plt.subplots(figsize=(7, 6))
        position = nx.spring_layout(G, seed=1, weight="weight")
        if graph.n <= 100:  # no edge through a vertex it does not join (a few sweeps over every vertex and edge)
            from gpusim.teaching.layout import clear_layout

            position = clear_layout(position, G.edges())
        nx.draw_networkx_edges(G, position, ax=axes, alpha=0.3, width=0.8)
        nx.draw_networkx_nodes(G, position, ax=axes, node_size=max(12, 3000 // max(graph.n, 1)),
                               node_color=result.labels.tolist(), cmap="tab20")
        if graph.n <= 60:
            nx.draw_networkx_labels(G, position, ax=axes, font_size=7)
        axes.set_axis_off()
    else:
        figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
        sizes = np.bincount(result.labels)
        left.hist(sizes, bins=np.unique(np.geomspace(1, sizes.max() + 1, 30).astype(int)), color="tab:blue")
        left.set(xscale="log", yscale="log", xlabel="community size (vertices)", ylabel="communities")
        levels = np.arange(1, len(result.level_modularity) + 1)
        right.plot(levels, result.level_modularity, "o-", color="tab:green", label="modularity")
        right.set(xlabel="level", ylabel="modularity")
        twin = right.twinx()
        twin.plot(levels, [int(lv.max()) + 1 for lv in result.levels], "s--", color="tab:orange",
                  label="communities")
        twin.set(yscale="log", ylabel="communities")
    figure.suptitle(f"{title} ({result.algorithm} on {result.backend})")
    figure.tight_layout()
    from gpusim.teaching.plots import save_figure

    return save_figure(figure, path)
