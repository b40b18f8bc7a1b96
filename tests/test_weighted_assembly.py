"""Result assembly and round bookkeeping of the weighted GPU algorithms on the device.

Oracles: NumPy on the host (``np.repeat`` for the entry owners, ``math.fsum`` over the input's weights for a
matching's weight), the sequential greedy references, and hand-made suitor sets.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import gpusim.algorithms.weighted as weighted
from gpusim import Device
from gpusim.algorithms.weighted.assembly import MAX_BATCH, in_batches, reduce_pairs, upload_weighted_graph
from gpusim.algorithms.weighted.kernels_result import b_partners, entry_owners
from gpusim.algorithms.weighted.reference_b_suitor import greedy_b_matching
from gpusim.algorithms.weighted.reference_greedy import greedy
from gpusim.types.graphs import WeightedGraph


def random_graph(n: int, p: float, seed: int, integer: bool = False) -> WeightedGraph:
    rng = np.random.default_rng(seed)
    u, v = np.triu_indices(n, 1)
    keep = rng.random(u.size) < p
    w = rng.integers(0, 4, keep.sum()).astype(float) if integer else rng.random(keep.sum())
    return WeightedGraph.from_edges(u[keep], v[keep], w, n=n)


def pair_weight(graph: WeightedGraph, mate: np.ndarray) -> float:
    """The weight of a matching from the input's weights, independently of gpusim's result code."""
    dense = np.zeros((graph.n, graph.n))
    u, v, w = graph.edges()
    dense[u, v] = dense[v, u] = w
    first = np.flatnonzero(mate > np.arange(graph.n))
    return math.fsum(dense[first, mate[first]].tolist())


@pytest.mark.parametrize("seed", [0, 1])
def test_entry_owners_equal_numpy_repeat(seed):
    graph = random_graph(70, 0.1, seed)
    dev, _, _, _, _, src = upload_weighted_graph(graph, "sim", Device("sim", policy="random", seed=seed))
    expected = np.repeat(np.arange(graph.n), np.diff(graph.ptr))
    assert dev.to_host(src)[:graph.adj.size].tolist() == expected.tolist()


@pytest.mark.parametrize("width", [1, 2, 8, 32])
def test_entry_owners_at_every_width_on_lists_shorter_and_longer_than_it(width):
    """Empty lists, a hub of 75 entries and lists of one to five: every entry gets its owner whatever the width,
    with fewer threads than the vertices need (the grid-stride loop)."""
    lengths = np.array([0, 3, 75, 1, 0, 5, 2, 4, 0, 1])
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    dev = Device("sim", policy="random", seed=width)
    src = dev.full(int(ptr[-1]), -1, np.int32)
    dev.launch(entry_owners, grid=1, block=32, args=(dev.array(ptr), src, len(lengths), width))
    assert dev.to_host(src).tolist() == np.repeat(np.arange(len(lengths)), lengths).tolist()


@pytest.mark.parametrize("algorithm", ["suitor", "locally_dominant"])
def test_weight_and_size_come_from_the_device(algorithm):
    graph = random_graph(40, 0.2, 3)
    result = getattr(weighted, algorithm)(graph, device=Device("sim", policy="random", seed=4))
    expected = greedy(graph)
    assert result.mate.tolist() == expected.mate.tolist()
    assert result.weight == pytest.approx(pair_weight(graph, result.mate), rel=1e-12)
    assert result.size == int(np.count_nonzero(result.mate >= 0)) // 2 > 0
    assert result.stats["launches"]["sum_partials"] == 1
    assert result.valid


def batches_for(rounds: int) -> tuple[int, int]:
    """(batches, rounds launched) of batches 1, 2, 4, ... MAX_BATCH until ``rounds`` are covered."""
    batches = launched = 0
    while launched < rounds:
        launched += min(1 << batches, MAX_BATCH)
        batches += 1
    return batches, launched


def test_ld_reads_back_once_per_batch_and_counts_its_rounds():
    graph = random_graph(50, 0.15, 5)
    result = weighted.locally_dominant(graph, device=Device("sim", seed=1))
    rounds = result.stats["rounds"]
    assert rounds >= 2  # at least one round that matches and the last one that matches nothing
    batches, launched = batches_for(rounds)
    assert result.stats["reads"] == batches + 1  # and the round counter
    assert result.stats["launches"]["ld_candidates"] == launched


@pytest.mark.parametrize("b", [1, 2, 3])
def test_b_suitor_partners_weight_and_size_on_the_device(b):
    graph = random_graph(30, 0.25, 7 + b, integer=True)
    result = weighted.b_suitor(graph, b, device=Device("sim", policy="random", seed=b))
    expected = greedy_b_matching(graph, b)
    assert result.partners.tolist() == expected.partners.tolist()
    assert result.weight == pytest.approx(expected.weight, rel=1e-12)
    assert result.stats["size"] == expected.stats["size"]
    batches, launched = batches_for(result.stats["rounds"])  # the last round leaves the next queue empty
    assert result.stats["reads"] == batches + 1
    assert result.stats["launches"]["b_suitor_round"] == launched


def test_b_partners_flags_asymmetric_suitor_sets():
    # 0 - 1 - 2, one slot each; vertex 1 holds 0's offer but 0 holds 2's: not mirrored
    graph = WeightedGraph.from_edges([0, 1], [1, 2], [1.0, 1.0])
    dev = Device("sim", seed=0)
    _, launch, _, _, weights, src = upload_weighted_graph(graph, "sim", dev)
    # entries: 0->1 (0), 1->0 (1), 1->2 (2), 2->1 (3); slot v holds the entry its suitor proposed along
    slots = dev.array(np.array([1, 0, 2], np.int32))  # 0 holds 1, 1 holds 0, 2 holds 1
    slot_ptr = dev.array(np.array([0, 1, 2, 3], np.int32))
    partners, faults = dev.full(3, -1, np.int32), dev.zeros(1, np.int32)
    weight, pairs = reduce_pairs(launch, b_partners, 3, src, weights, slot_ptr, slots, 3, 1, partners, faults)
    assert dev.to_host(partners).tolist() == [1, 0, 1]
    assert int(dev.to_host(faults)[0]) == 1  # 2 holds 1, but 1 does not hold 2
    assert (weight, pairs) == (2.0, 2)  # each held offer x < v counts: (0, 1) held by 1, (1, 2) held by 2


def test_in_batches_doubles_up_to_the_cap():
    done: list[int] = []
    reads = in_batches(lambda: done.append(1), lambda: len(done) >= 100)
    sizes = [1, 2, 4, 8] + [MAX_BATCH] * 100
    total, expected_reads = 0, 0
    while total < 100:
        total += sizes[expected_reads]
        expected_reads += 1
    assert (reads, len(done)) == (expected_reads, total)


def test_device_assembly_on_every_backend(backend):
    # larger on a GPU: many warps, several blocks of partial sums, a queue of thousands in b-Suitor
    n, p = (40, 0.2) if backend == "sim" else (3000, 0.01)
    graph = random_graph(n, p, 11)
    dev = Device(backend, **({"policy": "random", "seed": 3, "trace": False} if backend == "sim" else {}))
    expected = greedy(graph)
    for result in (weighted.suitor(graph, device=dev), weighted.locally_dominant(graph, device=dev)):
        assert result.mate.tolist() == expected.mate.tolist()
        assert result.weight == pytest.approx(expected.weight, rel=1e-12)
        assert result.size == expected.stats["size"]
    found, reference = weighted.b_suitor(graph, 2, device=dev), greedy_b_matching(graph, 2)
    assert found.partners.tolist() == reference.partners.tolist()
    assert found.weight == pytest.approx(reference.weight, rel=1e-12)
    assert found.stats["size"] == reference.stats["size"]


def test_stable_result_on_every_backend(backend):
    from gpusim.algorithms.stable import stable_marriage
    from gpusim.algorithms.stable.reference import gale_shapley
    from gpusim.types.preference_generators import easy_instance

    instance = easy_instance(60 if backend == "sim" else 20_000, seed=2)
    dev = Device(backend, **({"policy": "random", "seed": 1, "trace": False} if backend == "sim" else {}))
    result, reference = stable_marriage(instance, "mw-gpu", device=dev), gale_shapley(instance)
    assert result.wife.tolist() == reference.wife.tolist()
    # the proposals made do not depend on their order (McVitie and Wilson): the sequential count is the oracle
    assert result.stats["proposals"] == reference.stats["proposals"] > 0
    assert result.stats["launches"]["sum_warps"] == 1
