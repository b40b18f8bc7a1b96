"""The kernels of b-Suitor over several devices (Naim and Manne, Scalable b-matching on GPUs, 2017; Khan et al.
2016): a part per device.

The vertices are split into contiguous ranges, one per part (:mod:`~gpusim.algorithms.weighted.b_suitor_parts`);
a part holds the adjacency lists of the vertices it owns, their capacities and their slots, and is the only
one to change them ("owner computes").  An offer to a vertex owned elsewhere cannot take a lock there: it
becomes a *message* in the part's outbox, batched per destination part and exchanged once a round.  Two
kinds of message, each ``(target, other, weight)``:

* a **proposal** ``(v, u, w)``: ``u`` offers ``w`` to ``v`` (``v >= 0``, owned by the receiver);
* a **notice** ``(-x - 1, v, w)``: ``x``'s offer to ``v`` was turned down or pushed out of ``v``'s slots,
  so ``x`` (owned by the receiver) has one offer fewer and proposes again.

A round is :func:`take_messages` over the inbox (offers taken or turned down under the target's lock, notices
counted back), then :func:`propose_round` over the vertices that have offers to make; after the last round,
:func:`part_rows` writes the part's rows of the result table.  A vertex proposes to each
neighbour at most once (``tried``): an offer turned down or pushed out can never be taken later, since a
vertex only becomes harder to please.  A vertex's slot holds the entry of its *own* list that points at the
suitor (the mirror of the offer's entry), so the suitor is ``adj[slot]`` and the steps of
:mod:`~gpusim.algorithms.weighted.kernels_b_suitor` run unchanged with ``adj`` in place of ``src``.

Example
-------
>>> take_messages.name, propose_round.name, part_rows.name, sorted(propose_round.intended_races)
('take_messages', 'propose_round', 'part_rows', [])
"""

from __future__ import annotations

from gpusim import T, device, kernel

from .kernels_b_suitor import slot_holding, weakest_offer
from .kernels_result import insert_sorted, store_warp_sums
from .offers import offer_beats

__all__ = ["best_untried", "mirror_entry", "offer_to_owned", "owner_of", "part_rows", "post",
           "propose_round", "take_messages"]


@device
def owner_of(bounds, parts, x):
    """The part that owns vertex ``x``: the ``p`` with ``bounds[p] <= x < bounds[p + 1]`` (a binary search)."""
    low = 0
    high = parts
    while high - low > 1:
        middle = (low + high) // 2
        if bounds[middle] <= x:
            low = middle
        else:
            high = middle
    return low


@device
def post(out_target, out_other, out_weight, out_start, out_count, bounds, parts, to, target, other, w):
    """Append the message ``(target, other, w)`` to the outbox of the part owning vertex ``to``."""
    d = owner_of(bounds, parts, to)
    k = out_start[d] + T.atomic_add(out_count, d, 1)
    out_target[k] = target
    out_other[k] = other
    out_weight[k] = w


@device
def mirror_entry(ptr, adj, v, u):
    """The entry of ``v``'s list that points at ``u`` (-1: none)."""
    found = -1
    for j in range(ptr[v], ptr[v + 1]):
        if adj[j] == u:
            found = j
    return found


@device
def offer_to_owned(ptr, adj, weights, slot_ptr, slots, v, u, w, first, bounds, parts, out_target, out_other,
                   out_weight, out_start, out_count):
    """With ``v``'s lock held (``v`` a local index, ``first`` the part's first vertex): put ``u``'s offer
    ``w`` in place of ``v``'s weakest if it beats it; the proposer whose offer is turned down or pushed out
    hears of it (a notice to its part)."""
    loser = u
    if slot_ptr[v + 1] > slot_ptr[v]:
        slot = slot_holding(slot_ptr, slots, v, weakest_offer(weights, adj, slot_ptr, slots, v))
        held = slots[slot]
        if offer_beats(weights, adj, held, w, u) == 1:
            slots[slot] = mirror_entry(ptr, adj, v, u)
            loser = -1
            if held >= 0:
                loser = adj[held]
    if loser >= 0:
        post(out_target, out_other, out_weight, out_start, out_count, bounds, parts, loser, -loser - 1, v + first, w)


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32[:], int32[:], int32[:], int32[:], "
                  "int32[:], int32[:], int32[:], float64[:], int32, int32, int32[:], int32, int32[:], int32[:], "
                  "float64[:], int32[:], int32[:]")
def take_messages(ptr, adj, weights, slot_ptr, slots, locks, made, in_next, queue, queue_length, in_target, in_other,
                  in_weight, received, first, bounds, parts, out_target, out_other, out_weight, out_start, out_count):
    """The first half of a round: a thread per message of the inbox (``received`` of them).

    A notice gives its vertex ``x`` an offer back (``made[x]``) and queues it, once, for
    :func:`propose_round`; a proposal to ``v`` is decided under ``v``'s lock, taken, used and released in one
    iteration as in :func:`~gpusim.algorithms.weighted.kernels_b_suitor.b_suitor_round`
    (:func:`offer_to_owned`).
    """
    i = T.gtid()
    while i < received:
        t = in_target[i]
        if t < 0:
            x = -t - 1 - first
            T.atomic_add(made, x, -1)
            if T.atomic_cas(in_next, x, 0, 1) == 0:
                queue[T.atomic_add(queue_length, 0, 1)] = x
        else:
            v = t - first
            done = 0
            while done == 0:
                if T.atomic_cas(locks, v, 0, 1) == 0:
                    T.threadfence()  # acquire: the slots read below are not stale
                    offer_to_owned(ptr, adj, weights, slot_ptr, slots, v, in_other[i], in_weight[i], first, bounds,
                                   parts, out_target, out_other, out_weight, out_start, out_count)
                    T.threadfence()  # release: the new offer is visible before the lock opens
                    T.atomic_exch(locks, v, 0)
                    done = 1
        i += T.num_threads()


@device
def best_untried(ptr, adj, weights, slot_ptr, slots, tried, u, first, last):
    """The entry of ``u``'s list to propose along next: its best neighbour (heaviest, ties to the larger id) not
    tried yet, -1 for none.  A neighbour this part owns that would turn the offer down now is marked tried
    and passed over (it never takes it later); one owned elsewhere is asked."""
    best = -1
    best_w = 0.0
    best_v = -1
    for j in range(ptr[u], ptr[u + 1]):
        w = weights[j]
        v = adj[j]
        if tried[j] == 0 and w > 0.0:
            if w > best_w or (w == best_w and v > best_v):
                if v >= first and v < last:
                    local = v - first
                    if slot_ptr[local + 1] == slot_ptr[local]:
                        tried[j] = 1
                    elif offer_beats(weights, adj, weakest_offer(weights, adj, slot_ptr, slots, local), w,
                                     u + first) == 0:
                        tried[j] = 1
                if tried[j] == 0:
                    best = j
                    best_w = w
                    best_v = v
    return best


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32[:], int32[:], int32[:], int32[:], "
                  "int32[:], int32[:], int32, int32, int32[:], int32, int32[:], int32[:], float64[:], int32[:], "
                  "int32[:]")
def propose_round(ptr, adj, weights, b, slot_ptr, slots, tried, made, in_next, queue, queue_length, first, last,
                  bounds, parts, out_target, out_other, out_weight, out_start, out_count):
    """The second half of a round: a thread per queued vertex ``u`` (``queue_length[0]`` of them).

    ``u`` proposes while fewer than ``b[u]`` of its offers are held or on their way (``made[u]``): along
    its best untried entry (:func:`best_untried`), marked tried, to the part owning the neighbour (:func:`post`).
    Only ``u``'s thread writes ``u``'s ``made``, ``tried`` entries and queue mark here; slots are only read.
    """
    i = T.gtid()
    queued = queue_length[0]
    while i < queued:
        u = queue[i]
        in_next[u] = 0
        searching = 1
        while searching == 1 and made[u] < b[u]:
            best = best_untried(ptr, adj, weights, slot_ptr, slots, tried, u, first, last)
            if best < 0:
                searching = 0
            else:
                tried[best] = 1
                made[u] += 1
                post(out_target, out_other, out_weight, out_start, out_count, bounds, parts, adj[best], adj[best],
                     u + first, weights[best])
        i += T.num_threads()


@kernel(signature="int32[:], float64[:], int32[:], int32[:], int32, int32, int32, int32[:], float64[:], int32[:]")
def part_rows(adj, weights, slot_ptr, slots, n, first, width, partners, partial_w, partial_c):
    """The part's rows of the partners table, after the rounds: row ``v`` (``width`` entries, -1 padded
    beforehand) gets the suitors held in ``v``'s slots in increasing order, as one-device
    :func:`~gpusim.algorithms.weighted.kernels_result.b_partners` gives them; each pair whose larger end is ``v``
    adds the weight of its offer.  Whether the sets are mirrored is checked over every part's rows together (a
    suitor may belong to another part)."""
    v = T.gtid()
    w = 0.0
    c = 0
    while v < n:
        count = 0
        for s in range(slot_ptr[v], slot_ptr[v + 1]):
            held = slots[s]
            if held >= 0:
                x = adj[held]
                if x < v + first:
                    w += weights[held]
                    c += 1
                insert_sorted(partners, v * width, count, x)
                count += 1
        v += T.num_threads()
    store_warp_sums(partial_w, partial_c, w, c)
