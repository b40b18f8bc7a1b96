"""gpusim as a NetworkX backend: ``networkx.community.louvain_communities(G, backend="gpusim")``.

NetworkX (3.3 and later: the oldest whose backend interface this module uses, tested at that version and the
latest) dispatches a call with ``backend="gpusim"``, or any call when ``nx.config.backend_priority`` lists
``"gpusim"``, here through the entry points of ``pyproject.toml`` (group ``networkx.backends``, name ``gpusim``,
object :data:`backend_interface`; and ``networkx.backend_info``, :func:`get_info`).  Only functions whose answer
is the same problem's answer are implemented, returning NetworkX's own types; every other call, and a directed
graph, goes to NetworkX (``can_run`` says why):

- ``louvain_communities`` and ``louvain_partitions``: :func:`gpusim.algorithms.louvain.louvain` (Naim et
  al., IPDPS 2017) on the fastest engine there is for the graph (a GPU from 10,000 edges, else the compiled CPU
  engine: never the simulator).  A list of sets of nodes, one partition per level for ``louvain_partitions``;
  ``louvain_communities(max_level=k)`` is the ``k``-th of them, as in NetworkX.  ``threshold`` is ``t_final``.
  The partition does not depend on ``seed`` (NetworkX's does: it shuffles the nodes).
- ``hopcroft_karp_matching`` (also reached as ``networkx.bipartite.maximum_matching``): a maximum bipartite
  matching by :func:`gpusim.algorithms.bipartite.maximum_bipartite_matching`, as NetworkX's dict of both
  directions (a maximum matching, not necessarily the one NetworkX picks).

The conversion is a wrapper around the NetworkX graph (nothing copied), so a call costs what the algorithm
costs; NetworkX's cache of converted graphs is left without gpusim's entry, so no call warns about it.
:meth:`BackendInterface.on_start_tests` declares the NetworkX tests whose expected answer is one
implementation's seed-specific partition.

>>> import networkx as nx
>>> G = nx.karate_club_graph()
>>> communities = louvain_communities(backend_interface.convert_from_nx(G), weight=None)
>>> len(communities), round(nx.community.modularity(G, communities, weight=None), 4)
(4, 0.4198)
>>> [len(p) for p in louvain_partitions(backend_interface.convert_from_nx(G), weight=None)]
[6, 4]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["BackendInterface", "GpusimGraph", "backend_interface", "get_info", "hopcroft_karp_matching",
           "louvain_communities", "louvain_partitions"]

_IMPLEMENTED = ("louvain_communities", "louvain_partitions", "hopcroft_karp_matching")

#: NetworkX's own tests whose expected answer is the exact partition NetworkX's Louvain draws for a seed (it
#: visits the nodes in a seeded random order; gpusim's Louvain does not depend on a seed).
#: Each gets an expected failure, with its reason, when NetworkX's tests run through this backend.
_SEED_SPECIFIC = "compares with the exact partition NetworkX's Louvain draws for seed=2 (a seeded node order); " \
                 "gpusim's Louvain finds another partition (on karate of higher modularity: 0.4198 against 0.4188)"
EXPECTED_FAILURES = {
    ("test_louvain.py", "test_karate_club_partition"): _SEED_SPECIFIC,
    ("test_louvain.py", "test_undirected_selfloops"): _SEED_SPECIFIC,
    ("test_louvain.py", "test_none_weight_param"): _SEED_SPECIFIC,
    ("test_louvain.py", "test_multigraph"):
        "expects the seed-1234 partitions of two different graphs to coincide (karate with weight 10 on edge 0-1, "
        "and its multigraph with 4 + 9 there), as NetworkX's own seeded node order makes them; the CPU engine's "
        "Louvain separates them (the GPU method's buckets do not)",
}
#: The expected failures that depend on the engine (``auto`` runs the GPU method where there is a GPU): not strict.
_ENGINE_DEPENDENT = {("test_louvain.py", "test_multigraph")}


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
    """The NetworkX graph behind ``G``.  NetworkX keeps the wrapper it converted ``G`` into in ``G``'s cache and
    warns each time it takes it from there; the wrapper costs nothing to make, so gpusim's entry is dropped."""
    if not isinstance(G, GpusimGraph):
        return G
    cache = getattr(G.graph, "__networkx_cache__", None)
    if isinstance(cache, dict):
        cache.get("backends", {}).pop("gpusim", None)
    return G.graph


def _levels(G: Any, weight: str | None, resolution: float, threshold: float) -> tuple[list, list]:
    """The nodes of ``G`` and the label array of each level: the dendrogram's levels, the last one the final
    (refined) partition, at least one level."""
    from gpusim.algorithms.louvain import LouvainGraph, louvain

    graph = LouvainGraph.from_networkx(_nx_graph(G), weight=weight)
    result = louvain(graph, resolution=resolution, threshold=threshold)
    return graph.nodes, [*result.levels[:-1], result.labels]


def _sets(nodes: list, labels: Any) -> list[set]:
    groups: dict[int, set] = {}
    for node, label in zip(nodes, labels.tolist(), strict=True):
        groups.setdefault(label, set()).add(node)
    return [groups[c] for c in sorted(groups)]


def louvain_communities(G: Any, weight: str | None = "weight", resolution: float = 1, threshold: float = 1e-7,
                        max_level: int | None = None, seed: Any = None) -> list[set]:
    """NetworkX's ``louvain_communities``, computed by the GPU Louvain of Naim et al. (IPDPS 2017): the last
    partition of
    :func:`louvain_partitions`, or its ``max_level``-th."""
    if max_level is not None and (isinstance(max_level, bool) or not isinstance(max_level, int) or max_level < 1):
        raise ValueError(f"max_level={max_level!r}: max_level argument must be a positive integer or None")
    nodes, levels = _levels(G, weight, resolution, threshold)
    return _sets(nodes, levels[-1] if max_level is None else levels[min(max_level, len(levels)) - 1])


def louvain_partitions(G: Any, weight: str | None = "weight", resolution: float = 1, threshold: float = 1e-7,
                       seed: Any = None) -> Iterator[list[set]]:
    """NetworkX's ``louvain_partitions``: the partition after each level of the GPU Louvain of Naim et al. (IPDPS 2017)
    (the last one refined), each a new list of new sets."""
    nodes, levels = _levels(G, weight, resolution, threshold)
    for labels in levels:
        yield _sets(nodes, labels)


def hopcroft_karp_matching(G: Any, top_nodes: Any = None) -> dict:
    """NetworkX's ``hopcroft_karp_matching``: a maximum matching as ``{u: v, v: u}``, by gpusim's certified
    bipartite matching (push-relabel on a GPU, Hopcroft-Karp on the CPU engine)."""
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
    louvain_partitions = staticmethod(louvain_partitions)
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

    @staticmethod
    def on_start_tests(items: list) -> None:
        """Mark NetworkX's tests that compare with one implementation's seed-specific answer as expected failures
        (NetworkX calls this when its tests run with ``NETWORKX_TEST_BACKEND=gpusim``)."""
        import pytest

        for item in items:
            reason = EXPECTED_FAILURES.get((item.path.name, item.name))
            if reason is not None:
                strict = (item.path.name, item.name) not in _ENGINE_DEPENDENT
                item.add_marker(pytest.mark.xfail(reason=reason, strict=strict))


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
            "louvain_partitions": {
                "additional_docs": "The partition after each level of the same GPU Louvain method (the last one "
                                   "refined); louvain_communities(max_level=k) is the k-th.",
            },
            "hopcroft_karp_matching": {
                "additional_docs": "A certified maximum bipartite matching (push-relabel on the device).",
            },
        },
    }
