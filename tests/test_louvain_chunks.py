"""The last community group, several blocks a community (``merge_chunks``): on the simulator, with the group's bound
lowered so that a small graph's hub community has many chunks, the partition equals the sequential bucket reference,
and the aggregated graph keeps every edge's weight."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from gpusim.algorithms.louvain import LouvainGraph, bucket_louvain, louvain
from gpusim.algorithms.louvain.kernels_aggregate import COMMUNITY_BUCKETS, MERGE_CHUNK


def test_the_paper_groups_end_where_the_chunks_begin():
    assert COMMUNITY_BUCKETS == (127, 479, MERGE_CHUNK) and MERGE_CHUNK > 479


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("bounds", ["2,3,4", "4,12,24"])
def test_chunked_merges_equal_the_reference(seed, bounds):
    graph = LouvainGraph.from_networkx(nx.barabasi_albert_graph(40, 3, seed=seed))
    expected = bucket_louvain(graph)
    result = louvain(graph, backend="sim", seed=seed, community_buckets=bounds)
    assert result.stats["launches"].get("merge_chunks", 0) >= 3  # clear, hash, emit: at least one level
    assert np.array_equal(result.labels, expected.labels)
    assert result.modularity == pytest.approx(expected.modularity, abs=1e-12)
