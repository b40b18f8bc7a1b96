"""gpusim as a NetworkX backend: ``networkx.community.louvain_communities(G, backend="gpusim")``.

NetworkX (3.3 and later) dispatches a call with ``backend="gpusim"`` here through the entry points of
``pyproject.toml`` (group ``networkx.backends``, name ``gpusim``, object :data:`backend_interface`; and
``networkx.backend_info``, :func:`get_info`).  Implemented, returning NetworkX's own types:

- ``louvain_communities``: :func:`gpusim.algorithms.louvain.louvain` (Naim et al., IPDPS 2017) on the best
  backend there is (a GPU, else the simulator for small graphs, else the compiled sequential emulation);
  a list of sets of nodes.  ``threshold`` is ``t_final``; ``max_level`` cuts the dendrogram; ``seed`` seeds
  the simulator's schedule (the answer does not depend on it when the weights' sums are exact).
- ``hopcroft_karp_matching`` (also reached as ``networkx.bipartite.maximum_matching``): a maximum
  bipartite matching by :func:`gpusim.algorithms.bipartite.maximum_bipartite_matching`, as NetworkX's
  dict of both directions.

>>> import networkx as nx
>>> G = nx.karate_club_graph()
>>> communities = louvain_communities(backend_interface.convert_from_nx(G), weight=None)
>>> len(communities), round(nx.community.modularity(G, communities, weight=None), 4)
(4, 0.4198)
"""

from __future__ import annotations

from typing import Any

__all__ = ["BackendInterface", "GpusimGraph", "backend_interface", "get_info", "hopcroft_karp_matching",
           "louvain_communities"]

_IMPLEMENTED = ("louvain_communities", "hopcroft_karp_matching")


class GpusimGraph:
    """A NetworkX graph handed to gpusim: NetworkX recognises it by ``__networkx_backend__``."""

    __networkx_backend__ = "gpusim"

    def __init__(self, graph: Any):
        self.graph = graph

    def is_directed(self) -> bool:
        return self.graph.is_directed()

    def is_multigraph(self) -> bool:
        return self.graph.is_multigraph()


def _nx_graph(G: Any) -> Any:
    return G.graph if isinstance(G, GpusimGraph) else G


def louvain_communities(G: Any, weight: str | None = "weight", resolution: float = 1, threshold: float = 1e-7,
                        max_level: int | None = None, seed: Any = None) -> list[set]:
    """NetworkX's ``louvain_communities``, computed by the GPU Louvain of Naim et al. (IPDPS 2017)."""
    from gpusim.algorithms.louvain import LouvainGraph, louvain
    from gpusim.errors import InvalidArgument

    graph = LouvainGraph.from_networkx(_nx_graph(G), weight=weight)
    if max_level is not None and (isinstance(max_level, bool) or not isinstance(max_level, int) or max_level < 1):
        raise InvalidArgument(f"max_level={max_level!r} must be None or a positive integer")
    sim_seed = seed if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 else None
    result = louvain(graph, resolution=resolution, threshold=threshold, seed=sim_seed)
    labels = result.labels
    if max_level is not None and len(result.levels) > max_level:
        labels = result.levels[max_level - 1]
    groups: dict[int, set] = {}
    for node, label in zip(graph.nodes, labels.tolist(), strict=True):
        groups.setdefault(label, set()).add(node)
    return [groups[c] for c in sorted(groups)]


def hopcroft_karp_matching(G: Any, top_nodes: Any = None) -> dict:
    """NetworkX's ``hopcroft_karp_matching``: a maximum matching as ``{u: v, v: u}``, by gpusim's certified
    bipartite matching (push-relabel on a GPU or the simulator, Hopcroft-Karp on the CPU)."""
    import networkx as nx

    from gpusim.algorithms.bipartite import maximum_bipartite_matching
    from gpusim.types.graphs import BipartiteGraph

    graph = _nx_graph(G)
    left, _ = nx.bipartite.sets(graph, top_nodes)
    rows = [v for v in graph if v in left]
    cols = [v for v in graph if v not in left]
    matching = maximum_bipartite_matching(BipartiteGraph.from_networkx(graph, top_nodes=left))
    pairs: dict = {}
    for r, c in enumerate(matching.row_match.tolist()):
        if c >= 0:
            pairs[rows[r]] = cols[c]
            pairs[cols[c]] = rows[r]
    return pairs


class BackendInterface:
    """What NetworkX's dispatcher asks of a backend: conversions, the functions, and whether they can run."""

    louvain_communities = staticmethod(louvain_communities)
    hopcroft_karp_matching = staticmethod(hopcroft_karp_matching)

    @staticmethod
    def convert_from_nx(G: Any, *args: Any, **kwargs: Any) -> GpusimGraph:
        return GpusimGraph(G)

    @staticmethod
    def convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
        return obj.graph if isinstance(obj, GpusimGraph) else obj

    @staticmethod
    def can_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        if name not in _IMPLEMENTED:
            return f"gpusim implements only {', '.join(_IMPLEMENTED)}"
        G = args[0] if args else kwargs.get("G")
        if G is not None and _nx_graph(G).is_directed():
            return "gpusim's Louvain and bipartite matching take undirected graphs"
        return True

    @staticmethod
    def should_run(name: str, args: tuple, kwargs: dict) -> bool:
        return True


#: The object the ``networkx.backends`` entry point names.
backend_interface = BackendInterface()


def get_info() -> dict:
    """What the ``networkx.backend_info`` entry point returns: the backend's name and documented functions."""
    return {
        "backend_name": "gpusim",
        "project": "gpusim",
        "package": "gpusim",
        "url": "https://github.com/gpusim/gpusim",
        "short_summary": "GPU algorithms written once in a SIMT language: a deterministic simulator, Numba CUDA, CuPy.",
        "functions": {
            "louvain_communities": {
                "additional_docs": "The GPU Louvain method of Naim et al. (IPDPS 2017): degree-bucketed hash "
                                   "tables, bucket-synchronous moves; threshold is t_final.",
            },
            "hopcroft_karp_matching": {
                "additional_docs": "A certified maximum bipartite matching (push-relabel on the device).",
            },
        },
    }
