"""b-Suitor over several devices on a GPU (seed 003, Paper II): parts on one GPU copied on the device, and one
Dask-CUDA worker with NCCL; each equals one-GPU b-Suitor and the sequential greedy b-matching."""

from __future__ import annotations

import numpy as np
import pytest

from gpusim.algorithms.weighted import b_suitor, suitor
from gpusim.algorithms.weighted.reference_b_suitor import greedy_b_matching
from gpusim.types.graphs import WeightedGraph
from gpusim.types.partitioned_graphs import PartitionedGraph


def random_graph(n: int, edges: int, seed: int, weights: int = 6) -> WeightedGraph:
    """A random graph with many tied weights (integers 1..weights)."""
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, edges), rng.integers(0, n, edges)
    pairs = np.unique(np.stack([np.minimum(u, v), np.maximum(u, v)])[:, u != v], axis=1)
    return WeightedGraph.from_edges(pairs[0], pairs[1], rng.integers(1, weights + 1, pairs.shape[1]).astype(float), n)


@pytest.mark.parametrize("parts", [2, 3, 4])
def test_parts_on_one_gpu_equal_one_gpu(gpu_backend, parts):
    for seed, (n, edges) in enumerate([(40, 120), (2_000, 20_000), (20_000, 200_000)]):
        graph = random_graph(n, edges, seed)
        for b in (1, 3):
            one = b_suitor(graph, b, backend=gpu_backend)
            several = b_suitor(graph, b, devices=[0] * parts, backend=gpu_backend)
            assert several.partners.tolist() == one.partners.tolist() == greedy_b_matching(graph, b).partners.tolist()
            assert several.stats["devices"] == parts


def test_blocks_on_one_gpu(gpu_backend):
    graph = random_graph(5_000, 50_000, 7)
    found = b_suitor(PartitionedGraph.of(graph, 3), [2] * graph.n, devices=[0, 0, 0], backend=gpu_backend)
    assert found.partners.tolist() == greedy_b_matching(graph, 2).partners.tolist()


def test_a_dask_cuda_worker_with_nccl():
    pytest.importorskip("dask_cuda")
    cupy = pytest.importorskip("cupy")
    if cupy.cuda.runtime.getDeviceCount() < 1:
        pytest.skip("no GPU")
    graph = random_graph(20_000, 200_000, 3)
    found = b_suitor(graph, 2, devices=1, backend="cupy")
    assert found.stats["exchange"] == "nccl" and found.stats["devices"] == 1
    assert found.partners.tolist() == greedy_b_matching(graph, 2).partners.tolist()
    assert suitor(graph, devices=1, backend="cupy").mate.tolist() == suitor(graph, backend="cupy").mate.tolist()


@pytest.mark.gpu
def test_nccl_on_a_given_dask_cluster():
    """The NCCL exchange in a worker process of a plain ``distributed.LocalCluster`` given as ``client``."""
    from gpusim.backends import gpu_status

    ok, why = gpu_status("cupy")
    if not ok:
        pytest.skip(f"cupy unavailable: {why}")
    distributed = pytest.importorskip("distributed")
    graph = random_graph(20_000, 200_000, 4)
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        found = b_suitor(graph, 3, devices=1, client=client, backend="cupy")
        assert found.stats["exchange"] == "nccl"
        assert found.partners.tolist() == greedy_b_matching(graph, 3).partners.tolist()
        assert not any(client.has_what().values())


pytestmark = pytest.mark.gpu
