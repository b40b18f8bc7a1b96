"""The kernel of b-Suitor on a GPU (Manne et al., CSC 2016 §3; Khan et al. 2016, Alg. 2): a thread per queued vertex.

Each vertex ``v`` keeps its ``b(v)`` best offers in its slots ``slot_ptr[v] .. slot_ptr[v + 1] - 1``
(offers are CSR entries, as in :mod:`gpusim.algorithms.weighted.offers`).  Replacing the weakest of
``b(v)`` slots is not one word, so each vertex has a lock: a CAS lock between two fences, taken and
released in one loop iteration so that lockstep warps cannot deadlock on it.  Displaced vertices go to
the next round's queue, once each.

Example
-------
>>> b_suitor_round.name, sorted(b_suitor_round.intended_races)
('b_suitor_round', ['slots'])
"""

from __future__ import annotations

from gpusim import T, device, kernel

from .offers import offer_beats

__all__ = ["b_suitor_round", "best_neighbour", "holds_offer_of", "offer_under_lock", "slot_holding", "weakest_offer"]


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


@device
def best_neighbour(ptr, adj, weights, src, slot_ptr, slots, u):
    """The entry ``j`` of ``u``'s list to propose along: its best neighbour (heaviest, ties to the larger id)
    that holds no offer of ``u`` and would take this one — read without the lock, as the paper does, since a
    vertex only becomes harder to please; -1 for none."""
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
    return best


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32[:], int32[:], int32[:], int32[:], "
                  "int32[:], int32, int32[:], int32[:], int32[:]",
        intended_races={"slots": "the weakest-offer prescan reads slots unlocked; the proposer re-checks "
                                 "under the vertex lock (Manne et al., CSC 2016 §3)"})
def b_suitor_round(ptr, adj, weights, src, b, slot_ptr, slots, locks, made, queue, queued, next_queue, next_len,
                   in_next):
    """One round of parallel b-Suitor (Manne et al., CSC 2016 §3; Khan et al. 2016, Alg. 2), a thread per queued
    vertex.

    Vertex ``u`` proposes while fewer than ``b[u]`` of its offers are held (``made[u]``): to its best
    neighbour ``v`` (:func:`best_neighbour`), whose lock it takes to check again and put the offer in
    ``v``'s weakest slot, queueing the suitor it displaced (:func:`offer_under_lock`).  The lock is taken,
    used and released in one iteration of the loop that tries it, so a lane of a lockstep warp (pre-Volta,
    as the paper's K40) never holds it while the warp follows the lanes still spinning on it.
    """
    i = T.gtid()
    while i < queued:
        u = queue[i]
        searching = 1
        while searching == 1 and T.atomic_load(made, u) < b[u]:
            best = best_neighbour(ptr, adj, weights, src, slot_ptr, slots, u)
            if best < 0:
                searching = 0
            else:
                v = adj[best]
                done = 0
                while done == 0:
                    if T.atomic_cas(locks, v, 0, 1) == 0:
                        T.threadfence()  # acquire: the slots read below must not be stale copies from the scan
                        offer_under_lock(weights, src, slot_ptr, slots, made, next_queue, next_len, in_next, u, v,
                                         best, weights[best])
                        T.threadfence()  # release: the new offer is visible before the lock opens
                        T.atomic_exch(locks, v, 0)
                        done = 1
        i += T.num_threads()
