"""b-Suitor on a GPU: each vertex keeps its ``b(v)`` best offers (seed 003, Paper IV §3).

The b-matching form of Suitor (Khan et al. 2016), which Paper IV §3.1 relates to many-to-many
stable assignment: "a vertex v will accept the b(v) best offers at any given time".  A vertex
``u`` proposes to its best neighbours until ``b(u)`` of its offers are held; a full vertex ``v``
replaces its weakest suitor by a better offer, and the displaced vertex proposes again.  The
result is the greedy b-matching (:func:`gpusim.algorithms.weighted_cpu.greedy_b_matching`),
whatever the order — and so whatever the schedule.

The GPU version runs in rounds, a thread per queued vertex.  Replacing the weakest of ``b(v)``
slots is not one word, so each vertex has a lock (a CAS lock between two fences, taken
and released in one loop iteration so that lockstep warps cannot deadlock on it); displaced
vertices go to the next round's queue, once each.  Offers are CSR entries, as in :mod:`gpusim.algorithms.weighted`.

References
----------
A. Khan, A. Pothen, M. M. A. Patwary, N. Satish, N. Sundaram, F. Manne, M. Halappanavar,
P. Dubey, "Efficient approximation algorithms for weighted b-matching", SIAM J. Sci. Comput.
38(5), 2016.  Seed 003 (Naim, PhD thesis 2017), Paper IV §3.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 0, 0, 1], [1, 2, 3, 2], [4.0, 3.0, 2.0, 1.0])
>>> b_suitor(g, 2, backend="sim").partners.tolist()
[[1, 2], [0, 2], [0, 1], [-1, -1]]
"""

from __future__ import annotations

import numpy as np

from gpusim import T, device, kernel
from gpusim.errors import GpusimInternalError
from gpusim.runtime.device import Device
from gpusim.runtime.launcher import fill

from .weighted_offers import offer_beats, upload_weighted_graph
from .weighted_result import BMatchingResult, b_capacities, b_matching_result

__all__ = ["b_suitor", "b_suitor_round", "offer_under_lock", "slot_holding", "weakest_offer"]


@device
def weakest_offer(weights, src, slot_ptr, slots, v):
    """The weakest offer ``v`` holds (-1 while a slot is empty), each slot read once.

    Safe without the lock: a slot's offer only ever improves, so offers read at different
    moments are each no better than now, and their minimum can only make ``v`` look easier to
    please than it is (the proposal re-checks under the lock).  Reading the weakest *slot* and
    then its offer would not be: the slot may fill in between while another stays empty.
    """
    weakest = -1
    s = slot_ptr[v]
    while s < slot_ptr[v + 1]:
        held = slots[s]
        if held < 0:
            weakest = -1
            s = slot_ptr[v + 1]
        else:
            if weakest < 0:
                weakest = held
            elif offer_beats(weights, src, held, weights[weakest], src[weakest]) == 1:
                weakest = held
            s += 1
    return weakest


@device
def slot_holding(slot_ptr, slots, v, entry):
    """The first of ``v``'s slots that holds ``entry`` (-1: the first empty one)."""
    found = -1
    for s in range(slot_ptr[v], slot_ptr[v + 1]):
        if found < 0 and slots[s] == entry:
            found = s
    return found


@device
def holds_offer_of(src, slot_ptr, slots, v, u):
    """1 when one of ``v``'s slots holds an offer of ``u``."""
    found = 0
    for s in range(slot_ptr[v], slot_ptr[v + 1]):
        if slots[s] >= 0:
            if src[slots[s]] == u:
                found = 1
    return found


@device
def offer_under_lock(weights, src, slot_ptr, slots, made, next_queue, next_len, in_next, u, v, entry, w):
    """With ``v``'s lock held: put ``u``'s offer ``entry`` (weight ``w``) in place of ``v``'s weakest if
    it still beats it and ``v`` holds no offer of ``u``; the suitor it displaces goes to the next round's queue.
    """
    slot = slot_holding(slot_ptr, slots, v, weakest_offer(weights, src, slot_ptr, slots, v))
    held = slots[slot]
    if holds_offer_of(src, slot_ptr, slots, v, u) == 0:
        if offer_beats(weights, src, held, w, u) == 1:
            slots[slot] = entry
            T.atomic_add(made, u, 1)
            if held >= 0:
                loser = src[held]
                T.atomic_add(made, loser, -1)
                if T.atomic_cas(in_next, loser, 0, 1) == 0:
                    next_queue[T.atomic_add(next_len, 0, 1)] = loser


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32[:], int32[:], int32[:], int32[:], "
                  "int32[:], int32, int32[:], int32[:], int32[:]",
        intended_races={"slots": "the weakest-offer prescan reads slots unlocked; the proposer re-checks "
                                 "under the vertex lock (seed 003, Paper IV §3)"})
def b_suitor_round(ptr, adj, weights, src, b, slot_ptr, slots, locks, made, queue, queued, next_queue, next_len,
                   in_next):
    """One round of parallel b-Suitor (seed 003, Paper IV §3; Khan et al. 2016, Alg. 2), a thread
    per queued vertex.

    Vertex ``u`` proposes while fewer than ``b[u]`` of its offers are held (``made[u]``): it
    picks its best neighbour ``v`` that would take the offer — read without the lock, as the
    paper does, since a vertex only becomes harder to please — locks ``v``, checks again, puts
    the offer in ``v``'s weakest slot, and queues the suitor it displaced for the next round
    (:func:`offer_under_lock`).  The lock is taken, used and released in one iteration of the
    loop that tries it, so a lane of a lockstep warp (pre-Volta, as the paper's K40) never holds
    it while the warp follows the lanes still spinning on it.
    """
    i = T.gtid()
    while i < queued:
        u = queue[i]
        searching = 1
        while searching == 1 and T.atomic_load(made, u) < b[u]:
            best = -1
            best_w = 0.0
            best_v = -1
            for j in range(ptr[u], ptr[u + 1]):
                w = weights[j]
                v = adj[j]
                if w > 0.0 and slot_ptr[v + 1] > slot_ptr[v]:
                    if w > best_w or (w == best_w and v > best_v):
                        if holds_offer_of(src, slot_ptr, slots, v, u) == 0:
                            if offer_beats(weights, src, weakest_offer(weights, src, slot_ptr, slots, v), w, u) == 1:
                                best = j
                                best_w = w
                                best_v = v
            if best < 0:
                searching = 0
            else:
                done = 0
                while done == 0:
                    if T.atomic_cas(locks, best_v, 0, 1) == 0:
                        T.threadfence()  # acquire: the slots read below must not be stale copies from the scan above
                        offer_under_lock(weights, src, slot_ptr, slots, made, next_queue, next_len, in_next, u,
                                         best_v, best, best_w)
                        T.threadfence()  # release: the new offer is visible before the lock opens
                        T.atomic_exch(locks, best_v, 0)
                        done = 1
        i += T.num_threads()


def b_suitor(graph, b, *, backend: str = "auto", device: Device | None = None, max_memory: int | None = None
             ) -> BMatchingResult:
    """b-Suitor on a GPU backend: the greedy b-matching (seed 003, Paper IV §3; Khan et al. 2016).

    Parameters
    ----------
    graph : WeightedGraph
        Non-negative weights; zero-weight edges are never chosen.
    b : int or array_like of int, length n
        The capacity of every vertex, or of each; non-negative.
    backend, device
        Where to run (``device`` wins).
    max_memory : int, optional
        Refuse (``InvalidArgument``) when the partners table would take more bytes (default
        half the memory available).

    Returns
    -------
    BMatchingResult
        ``partners`` (each row sorted, -1 padded), ``weight``, and ``stats`` with ``rounds``,
        ``launches`` and the device ``seconds``, as
        :func:`~gpusim.algorithms.weighted_cpu.greedy_b_matching` returns them.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
    >>> b_suitor(g, [1, 2, 2, 1], backend="sim").partners.tolist()
    [[1, -1], [0, 2], [1, 3], [2, -1]]
    """
    dev, launch, src, ptr, adj, weights, src_dev = upload_weighted_graph(graph, backend, device)
    bb = b_capacities(graph, b, max_memory)
    n = graph.n
    caps = np.minimum(bb, np.diff(graph.ptr)).astype(np.int32)
    slot_ptr = np.zeros(n + 1, np.int32)
    np.cumsum(caps, out=slot_ptr[1:])
    slots = dev.full(max(int(slot_ptr[-1]), 1), -1, np.int32)
    size = max(n, 1)
    b_dev, slot_ptr_dev = dev.array(caps if n else np.zeros(1, np.int32)), dev.array(slot_ptr)
    locks, made, in_next = dev.zeros(size, np.int32), dev.zeros(size, np.int32), dev.zeros(size, np.int32)
    queue = dev.array(np.arange(size, dtype=np.int32))
    next_queue, next_len = dev.zeros(size, np.int32), dev.zeros(1, np.int32)
    block = 32 if dev.backend == "sim" else 128
    queued, rounds = n, 0
    while queued:
        rounds += 1
        with launch.phase("rounds"):
            launch(fill, Device.grid_for(n, block), block, in_next, 0, n)
            launch(fill, 1, 32, next_len, 0, 1)
            launch(b_suitor_round, Device.grid_for(queued, block), block, ptr, adj, weights, src_dev, b_dev,
                   slot_ptr_dev, slots, locks, made, queue, queued, next_queue, next_len, in_next)
            queued = launch.flag(next_len)
        queue, next_queue = next_queue, queue
    held = dev.to_host(slots)[:int(slot_ptr[-1])].astype(np.int64)
    v_of_slot = np.repeat(np.arange(n, dtype=np.int64), caps)
    used = held >= 0
    x, v = src[held[used]].astype(np.int64), v_of_slot[used]
    if not np.array_equal(np.sort(x * n + v), np.sort(v * n + x)):
        raise GpusimInternalError(f"GPU b-Suitor ended with asymmetric suitor sets on {graph!r}")
    keep = x < v
    stats = {"algorithm": "b_suitor", "backend": dev.backend, "rounds": rounds, "launches": dict(launch.launches),
             "seconds": dict(launch.seconds)}
    return b_matching_result(graph, bb, x[keep], v[keep], stats)
