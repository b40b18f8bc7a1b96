"""Louvain's entries of the zoo (Naim et al., IPDPS 2017): the hash-slot claim without CAS, the singleton swap.

Each twin is one ``@device`` helper; :func:`gpusim.algorithms.louvain.variants.louvain_kernels` puts it in
place of the real one wherever the kernels call it (``kernels=`` of :func:`~gpusim.algorithms.louvain.louvain`),
so no kernel is copied.  Each scenario replays one launch of ``computeMove`` (Algorithm 2, four lanes a
vertex) on a tiny graph and checks the community chosen against the one Eq. (2) gives.

>>> from gpusim.zoo.louvain_twins import HASH_CLAIM, SINGLETON_SWAP
>>> HASH_CLAIM.fixed.name, SINGLETON_SWAP.policy
('louvain_hash_claim_without_cas.fixed', 'random')
"""

from __future__ import annotations

import numpy as np

from gpusim import T, device
from gpusim.algorithms.louvain.graph import LouvainGraph
from gpusim.algorithms.louvain.hashing import EMPTY, hash_slot, hash_step, next_slot, prime_table
from gpusim.algorithms.louvain.variants import PAPER, LouvainKernels, louvain_kernels
from gpusim.runtime.device import Device

from .entry import add_entry

__all__ = ["HASH_CLAIM", "SINGLETON_SWAP", "allowed_without_singleton_rule", "insert_by_store", "move_once"]


@device
def insert_by_store(keys, vals, base, size, key, weight):
    """Alg. 2 lines 3–13 with the CAS of line 9 replaced by a check and a plain store.

    Two lanes whose communities hash to the same free slot both see it EMPTY and both store their
    community: the first is overwritten, and its weight is added under the other community.
    """
    slot = hash_slot(key, size)
    step = hash_step(key, size)
    done = 0
    while done == 0:
        pos = base + slot
        slot = next_slot(slot, step, size)
        seen = keys[pos]
        if seen == key:
            T.atomic_add(vals, pos, weight)
            done = 1
        elif seen == EMPTY:
            keys[pos] = key
            T.atomic_add(vals, pos, weight)
            done = 1


@device
def allowed_without_singleton_rule(own, c, csize):
    """The move rule of §4 without ``C[j] < C[i]``: two adjacent singletons may each join the other."""
    if c == own:
        return 0
    return 1


#: One vertex (6) between community 0 (weight 1) and community 5 (weight 3), which share slot 0 of its table
#: of 5 slots: it must join 5.
_COLLIDE = LouvainGraph.from_edges([6, 6], [0, 5], [1.0, 3.0])
#: Two vertices joined by one edge: the smaller id stays, the larger joins it.
_PAIR = LouvainGraph.from_edges([0], [1])


def _expected_moves(graph: LouvainGraph) -> list[int]:
    """Eq. (2) by hand from singletons, with §4's rules: the community each vertex moves to (or its own)."""
    m, k = graph.total_weight, graph.degrees
    moves = []
    for i in range(graph.n):
        best, best_gain = i, 0.0
        for e in range(graph.ptr[i], graph.ptr[i + 1]):
            j, w = int(graph.adj[e]), float(graph.weights[e])
            gain = w / m - k[i] * k[j] / (2 * m * m)  # singletons: e_{i->C(i)\{i}} = 0, a_{C(i)\{i}} = 0
            if j != i and j < i and (gain > best_gain or (gain == best_gain and j < best)):
                best, best_gain = j, gain
        moves.append(best)
    return moves


def move_once(dev: Device, graph: LouvainGraph, kernels: LouvainKernels = PAPER) -> list[int]:
    """One launch of ``kernels.move_subwarp`` (four lanes a vertex, one warp) for every vertex of ``graph`` from
    singletons: ``newComm``."""
    n, m = graph.n, graph.total_weight
    vset = np.flatnonzero(np.diff(graph.ptr) > 0).astype(np.int32)
    new_comm = dev.array(np.arange(n, dtype=np.int32))
    primes = prime_table()[:64]
    dev.launch(kernels.move_subwarp, 1, 32, (
        dev.array(graph.ptr), dev.array(graph.adj), dev.array(graph.weights), dev.array(np.arange(n, dtype=np.int32)),
        dev.array(graph.degrees), dev.array(graph.degrees), dev.array(np.ones(n, np.int32)), dev.array(vset), 0,
        int(vset.size), new_comm, dev.array(primes), int(primes.size), m, 1.0, 4, 7))
    return dev.to_host(new_comm).tolist()


def _scenario(graph: LouvainGraph, kernels: LouvainKernels):
    expected = _expected_moves(graph)

    def run(dev: Device) -> str | None:
        got = move_once(dev, graph, kernels)
        return None if got == expected else f"newComm = {got}, but Eq. (2) and the rules of §4 give {expected}"
    return run


_PAPER_III = "Naim et al. (IPDPS 2017)"
HASH_CLAIM = add_entry(
    "louvain_hash_claim_without_cas", _scenario(_COLLIDE, louvain_kernels(insert=insert_by_store)),
    _scenario(_COLLIDE, PAPER), threads=32,
    source=_PAPER_III + ", Alg. 2 (computeMove) lines 8–12: the CAS that claims an empty hash slot",
    wrong="two lanes whose communities (0 and 5) hash to the same free slot both see it empty and both store; "
          "one community is lost and its weight counted for the other, so vertex 6 joins the wrong community",
    fix="claim the slot with CAS(hashComm[pos], null, C[j]); on failure add only if the winner stored C[j], "
        "else probe on",
)
SINGLETON_SWAP = add_entry(
    "louvain_singleton_swap", _scenario(_PAIR, louvain_kernels(allowed=allowed_without_singleton_rule)),
    _scenario(_PAIR, PAPER), threads=32,
    source=_PAPER_III + ", §4: a singleton joins another singleton only if C[j] < C[i] (from Lu et al. 2015)",
    wrong="two adjacent singletons each move to the other's community in the same bucket: they swap "
          "communities, stay apart, and swap back every sweep",
    fix="let singleton i join singleton j only when C[j] < C[i]: one of the two moves, the other stays",
)
