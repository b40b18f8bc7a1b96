"""Result assembly on the device for Suitor, Locally-Dominant and b-Suitor (Naim et al., HiPC 2015 and IV).

The kernels of :mod:`~gpusim.algorithms.weighted.kernels_suitor`, :mod:`~gpusim.algorithms.weighted.kernels_ld`
and :mod:`~gpusim.algorithms.weighted.kernels_b_suitor` leave their answer as offers (CSR entries) or
mates on the device; these kernels turn it into the result there, so the host copies back only the
O(n) answer and two O(1) totals:

* :func:`entry_owners` — the owner ``src[j]`` of every CSR entry (the proposer of an offer along ``j``);
* :func:`mate_from_offers` — Suitor's ``mate[v] = src[ws[v]]``; :func:`pair_weights` — LD's pairs;
  :func:`b_partners` — b-Suitor's partners table (rows sorted), checking that every suitor set is
  mirrored (Manne et al., CSC 2016 §3: an edge of the b-matching is held from both sides);
* each adds, per warp, the weight and the number of its pairs (:func:`store_warp_sums`), and
  :func:`sum_partials` adds the warps' sums in a fixed order — the same total on every run.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> src = dev.zeros(4, np.int32)
>>> _ = dev.launch(entry_owners, grid=1, block=32, args=(dev.array(np.array([0, 1, 3, 4], np.int32)), src, 3, 2))
>>> dev.to_host(src).tolist()
[0, 1, 1, 2]
"""

from __future__ import annotations

from gpusim import T, device, kernel

from .kernels_b_suitor import holds_offer_of

__all__ = ["b_partners", "entry_owners", "insert_sorted", "mate_from_offers", "owner_width", "pair_weights",
           "store_warp_sums", "sum_partials"]


@kernel(signature="int32[:], int32[:], int32, int32")
def entry_owners(ptr, src, n, width):
    """``src[j] = v`` for every entry ``j`` of ``v``'s list: ``width`` consecutive threads per vertex (a power
    of two up to 32, :func:`owner_width`), on consecutive entries."""
    v = T.gtid() // width
    while v < n:
        end = ptr[v + 1]
        j = ptr[v] + T.gtid() % width
        while j < end:
            src[j] = v
            j += width
        v += T.num_threads() // width


def owner_width(entries: int, n: int) -> int:
    """Threads per vertex for :func:`entry_owners`: the average list length rounded up to a power of two, at
    most a warp (a warp per vertex leaves most lanes idle on a sparse graph).

    >>> owner_width(300, 50), owner_width(3 * 10**7, 2**21), owner_width(10, 10), owner_width(10**6, 10)
    (8, 16, 1, 32)
    """
    average = -(-entries // max(n, 1))
    return min(32, 1 << max(average - 1, 0).bit_length())


@device
def store_warp_sums(partial_w, partial_c, w, c):
    """The warp's total weight and pair count (every lane calls it), stored by lane 0 at the warp's index."""
    w = T.reduce_add(w)
    c = T.reduce_add(c)
    if T.lane_id() == 0:
        partial_w[T.gtid() // 32] = w
        partial_c[T.gtid() // 32] = c


@kernel(signature="int32[:], int32[:], float64[:], int32, int32[:], float64[:], int32[:]")
def mate_from_offers(ws, src, weights, n, mate, partial_w, partial_c):
    """Suitor's matching from the offers held (Naim et al., HiPC 2015, Alg. 3): ``v`` is matched to its suitor
    ``src[ws[v]]`` (-1: none); each pair ``v < mate[v]`` adds the weight of the offer ``v`` holds."""
    v = T.gtid()
    w = 0.0
    c = 0
    while v < n:
        held = ws[v]
        partner = -1
        if held >= 0:
            partner = src[held]
        mate[v] = partner
        if partner > v:
            w += weights[held]
            c += 1
        v += T.num_threads()
    store_warp_sums(partial_w, partial_c, w, c)


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32, float64[:], int32[:]")
def pair_weights(ptr, adj, weights, mate, n, partial_w, partial_c):
    """Locally-Dominant's pairs (Naim et al., HiPC 2015, Alg. 2): each ``v < mate[v]`` finds the entry of its
    mate in its list and adds that weight."""
    v = T.gtid()
    w = 0.0
    c = 0
    while v < n:
        partner = mate[v]
        if partner > v:
            c += 1
            for j in range(ptr[v], ptr[v + 1]):
                if adj[j] == partner:
                    w += weights[j]
        v += T.num_threads()
    store_warp_sums(partial_w, partial_c, w, c)


@device
def insert_sorted(partners, first, count, x):
    """Put ``x`` into the sorted ``partners[first .. first + count - 1]`` (insertion sort's step)."""
    k = first + count
    moving = 1
    while moving == 1:
        if k > first:
            if partners[k - 1] > x:
                partners[k] = partners[k - 1]
                k -= 1
            else:
                moving = 0
        else:
            moving = 0
    partners[k] = x


@kernel(signature="int32[:], float64[:], int32[:], int32[:], int32, int32, int32[:], int32[:], float64[:], int32[:]")
def b_partners(src, weights, slot_ptr, slots, n, width, partners, faults, partial_w, partial_c):
    """b-Suitor's partners table (Manne et al., CSC 2016 §3): row ``v`` (``width`` entries, -1 padded beforehand)
    gets the suitors in ``v``'s slots in increasing order; each pair ``x < v`` adds the weight of its offer.
    A suitor ``x`` of ``v`` that ``v`` does not hold an offer from is an asymmetric set: ``faults[0]`` counts them."""
    v = T.gtid()
    w = 0.0
    c = 0
    while v < n:
        count = 0
        for s in range(slot_ptr[v], slot_ptr[v + 1]):
            held = slots[s]
            if held >= 0:
                x = src[held]
                if holds_offer_of(src, slot_ptr, slots, x, v) == 0:
                    T.atomic_add(faults, 0, 1)
                if x < v:
                    w += weights[held]
                    c += 1
                insert_sorted(partners, v * width, count, x)
                count += 1
        v += T.num_threads()
    store_warp_sums(partial_w, partial_c, w, c)


@kernel(signature="float64[:], int32[:], int32, float64[:]")
def sum_partials(partial_w, partial_c, k, totals):
    """One warp adds the ``k`` warps' sums in a fixed order: ``totals = [weight, pairs]``."""
    i = T.lane_id()
    w = 0.0
    c = 0
    while i < k:
        w += partial_w[i]
        c += partial_c[i]
        i += 32
    w = T.reduce_add(w)
    c = T.reduce_add(c)
    if T.gtid() == 0:
        totals[0] = w
        totals[1] = T.f64(c)
