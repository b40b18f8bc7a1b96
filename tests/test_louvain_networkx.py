"""gpusim as a NetworkX backend: ``backend="gpusim"`` runs gpusim's algorithms and returns NetworkX's types."""

from __future__ import annotations

import warnings

import networkx as nx
import pytest

pytestmark = pytest.mark.skipif("gpusim" not in nx.utils.backends.backends,
                                reason="gpusim's networkx.backends entry point is not installed (pip install -e .)")


@pytest.fixture(autouse=True)
def _quiet_cache_note():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*cache.*", category=UserWarning)
        yield


def test_louvain_through_networkx_dispatch():
    G = nx.relabel_nodes(nx.karate_club_graph(), {v: f"member {v}" for v in range(34)})
    ours = nx.community.louvain_communities(G, backend="gpusim", weight=None, seed=3)
    assert isinstance(ours, list) and all(isinstance(c, set) for c in ours)
    assert set().union(*ours) == set(G) and sum(map(len, ours)) == 34
    theirs = max(nx.community.modularity(G, nx.community.louvain_communities(G, weight=None, seed=s), weight=None)
                 for s in range(5))
    assert nx.community.modularity(G, ours, weight=None) >= 0.99 * theirs
    assert nx.utils.backends.backend_info["gpusim"]["backend_name"] == "gpusim"


def test_weights_resolution_and_max_level():
    G = nx.karate_club_graph()  # weighted since NetworkX 3.0
    weighted = nx.community.louvain_communities(G, backend="gpusim")
    assert abs(nx.community.modularity(G, weighted) - max(
        nx.community.modularity(G, nx.community.louvain_communities(G, seed=s)) for s in range(5))) < 0.03
    first = nx.community.louvain_communities(G, backend="gpusim", weight=None, max_level=1)
    assert len(first) > len(nx.community.louvain_communities(G, backend="gpusim", weight=None))
    fine = nx.community.louvain_communities(G, backend="gpusim", weight=None, resolution=2.0)
    assert len(fine) > 4


def test_bipartite_maximum_matching_through_dispatch():
    G = nx.bipartite.random_graph(12, 9, 0.3, seed=4)
    G.add_edges_from((0, 12 + k) for k in range(9))  # connected
    top = {v for v, side in G.nodes(data="bipartite") if side == 0}
    ours = nx.bipartite.maximum_matching(G, top_nodes=top, backend="gpusim")
    theirs = nx.bipartite.maximum_matching(G, top_nodes=top)
    assert len(ours) == len(theirs)
    assert all(ours[ours[u]] == u and G.has_edge(u, ours[u]) for u in ours)


def test_directed_graphs_are_refused():
    with pytest.raises(NotImplementedError, match="not implemented by 'gpusim'"):
        nx.community.louvain_communities(nx.DiGraph([(0, 1)]), backend="gpusim")
