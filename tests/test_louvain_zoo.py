"""Louvain's zoo entries: each broken twin is found, shrunk and replayed; each fixed twin (the real kernel) passes;
the broken helpers, passed in through ``kernels=``, break the whole run; the real kernels are race-free but
for the races they declare."""

from __future__ import annotations

import numpy as np
import pytest

from gpusim import Device
from gpusim.algorithms.louvain import LouvainGraph, bucket_louvain, karate, louvain
from gpusim.algorithms.louvain.variants import PAPER, louvain_kernels
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.explore import explore, replay
from gpusim.zoo.louvain_twins import (
    HASH_CLAIM,
    SINGLETON_SWAP,
    allowed_without_singleton_rule,
    insert_by_store,
    move_once,
)

ENTRIES = [HASH_CLAIM, SINGLETON_SWAP]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_the_broken_twin_is_found_shrunk_and_replayed(entry):
    for policy in (entry.policy, "systematic"):
        result = explore(entry.broken, policy, budget=1000)
        assert result.found and result.failure.preemptions <= 2
        assert replay(result.failure.replay_token).trace == result.failure.trace
    assert entry.source.startswith("Naim et al. (IPDPS 2017)") and entry.wrong and entry.fix


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_the_fixed_twin_passes_pct_too(entry):
    """PCT's schedules, beside the random ones every zoo entry passes (``tests/test_zoo.py``)."""
    assert not explore(entry.fixed, "pct", budget=500).found


def test_the_plain_store_loses_a_community_on_some_schedule_and_never_with_cas():
    graph = LouvainGraph.from_edges([6, 6], [0, 5], [1.0, 3.0])
    broken = louvain_kernels(insert=insert_by_store)
    seen = {tuple(move_once(Device("sim", seed=s, trace=False), graph, broken)) for s in range(60)}
    assert (0, 1, 2, 3, 4, 5, 0) in seen and (0, 1, 2, 3, 4, 5, 5) in seen
    assert {tuple(move_once(Device("sim", seed=s, trace=False), graph, PAPER)) for s in range(60)} == {
        (0, 1, 2, 3, 4, 5, 5)}


def test_broken_helpers_through_the_driver():
    # Two heavy pairs in a 4-cycle, no leaf (vertex following would merge a lone pair before any move).
    pairs = LouvainGraph.from_edges([0, 2, 1, 3], [1, 3, 2, 0], [5.0, 5.0, 1.0, 1.0])
    swapped = louvain(pairs, backend="sim", kernels=louvain_kernels(allowed=allowed_without_singleton_rule),
                      refine=False)
    assert swapped.n_communities == 4 and swapped.modularity == -0.25 and swapped.valid
    assert louvain(pairs, backend="sim").labels.tolist() == [0, 0, 1, 1] == bucket_louvain(pairs).labels.tolist()
    broken = louvain_kernels(insert=insert_by_store)
    graph = karate()
    differs = [not np.array_equal(louvain(graph, device=Device("sim", seed=s, trace=False), kernels=broken,
                                          refine=False).labels, bucket_louvain(graph, refine=False).labels)
               for s in range(4)]
    assert any(differs)


def test_the_real_kernels_have_no_undeclared_race():
    result = louvain(karate(), device=Device("sim", races="raise", trace=False, seed=3))
    assert result.labels.tolist() == bucket_louvain(karate()).labels.tolist()


def test_variants_are_checked_and_remembered():
    assert louvain_kernels(insert=insert_by_store) == louvain_kernels(insert=insert_by_store)
    assert louvain_kernels().move_subwarp is PAPER.move_subwarp
    with pytest.raises(InvalidArgument, match="no Louvain kernel calls a helper named 'nothing'"):
        louvain_kernels(nothing=insert_by_store)
    with pytest.raises(InvalidArgumentType, match="insert= must be a @device function"):
        louvain_kernels(insert=len)
