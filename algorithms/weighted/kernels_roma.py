"""The kernels of parallel ROMA on complete graphs (Hovland, MSc thesis 2020, §4.1): atomicFlip (Alg. 7) and the two
phases.

A phase improves a perfect matching ``mate`` of the complete graph whose dense weight matrix ``w`` is
stored flat: every matching edge ``(u, M[u])``, ``u < M[u]``, finds its best 4-cycle swap
(:func:`gpusim.algorithms.weighted.swaps.best_swap`, the gain test written once) and makes it with
:func:`atomic_flip`.  ``locks[v]``: -1 free, else the vertex of the thread holding it.

atomicFlip's steps are device functions of their own — the lock order (:func:`lock_order`), the check
that both edges are unchanged (:func:`mates_unchanged`), the flip (:func:`flip`, Alg. 4) and the fence
(:func:`make_flip_visible`) — so that a variant (the zoo's broken twins in :mod:`gpusim.zoo.roma_twins`)
is the phase kernel with one step replaced (``roma(..., kernels={"lock_order": ...})``), not a copy.

Example
-------
>>> lock_order.name, atomic_flip.name
('lock_order', 'atomic_flip')
"""

from __future__ import annotations

from gpusim import T, device, kernel

from .swaps import best_swap, swap_gain

__all__ = [
    "atomic_flip", "block_best_swap", "flip", "lock_order", "make_flip_visible", "mates_unchanged", "roma_block_phase",
    "roma_thread_phase", "smallest_above",
]

#: ROMA's scans read the matching while other threads flip it (Hovland, MSc thesis 2020, Alg. 6 and 8); atomicFlip
#: re-reads both edges under all four locks before it flips, so a stale read only costs a failed flip.
_SCAN_RACES = {"mate": "the gain scan reads mates unlocked; atomicFlip re-checks them under the locks"}


@device
def smallest_above(p0, p1, p2, p3, after):
    """The smallest of ``p0..p3`` above ``after`` (-1 for none)."""
    found = -1
    for k in range(4):
        p = p0
        if k == 1:
            p = p1
        elif k == 2:
            p = p2
        elif k == 3:
            p = p3
        if p > after and (found < 0 or p < found):
            found = p
    return found


@device
def lock_order(u, mate_u, x, y, k):
    """The ``k``-th vertex (from 0) atomicFlip locks: the four endpoints in increasing order — one global
    order, which is what guarantees progress (Lemma 4.1.1)."""
    v = -1
    for _ in range(k + 1):
        v = smallest_above(u, mate_u, x, y, v)
    return v


@device
def mates_unchanged(mate, u, mate_u, x, y):
    """Alg. 7 line 5: 1 when ``u`` is still matched to ``mate_u`` and ``x`` to ``y`` (read atomically: another
    thread may have flipped either edge since the scan read them)."""
    same = 0
    if T.atomic_load(mate, u) == mate_u:
        if T.atomic_load(mate, x) == y:
            same = 1
    return same


@device
def flip(mate, a, b, u, mate_u):
    """The flip (Hovland, MSc thesis 2020, Alg. 4): ``(u, mate_u), (a, b)`` become ``(u, a), (mate_u, b)``."""
    mate[u] = a
    mate[a] = u
    mate[mate_u] = b
    mate[b] = mate_u


@device
def make_flip_visible():
    """Alg. 7 line 7, ``__threadfence()``: the flip is visible device-wide before the locks open."""
    T.threadfence()


@device
def atomic_flip(mate, locks, a, b, u, mate_u, flips):
    """atomicFlip (Hovland, MSc thesis 2020, Alg. 7): swap ``(u, mate_u), (x, M[x])`` to ``(u, a), (mate_u, b)``
    safely.

    Lines 2–4: lock, one CAS each, in :func:`lock_order`, giving up at the first lock already taken (never
    waiting, so lockstep warps cannot deadlock); line 5: check both edges; line 6: flip; line 7: fence;
    lines 8–9: unlock, in reverse order.  Counts a flip in ``flips[0]``.

    Alg. 7 locks two vertices, ``min(u, x)`` then ``max(u, x)``; this locks all four endpoints.  With
    two, a thread preempted half-way through its four stores leaves ``M[mate_u] = b`` for a vertex it
    does not lock; if ``mate_u < b`` the thread of ``mate_u`` reads that half-written edge, locks
    ``mate_u`` (free), passes its check and flips it while the first thread is still writing: the
    matching breaks (found by ``gpusim explore`` under one preemption).
    """
    x = min(a, b)
    y = max(a, b)
    taken = 0
    going = 1
    while going == 1 and taken < 4:
        if T.atomic_cas(locks, lock_order(u, mate_u, x, y, taken), -1, u) == -1:
            taken += 1
        else:
            going = 0
    if taken == 4:
        if mates_unchanged(mate, u, mate_u, x, y) == 1:
            flip(mate, a, b, u, mate_u)
            make_flip_visible()
            T.atomic_add(flips, 0, 1)
    for k in range(taken):
        T.atomic_exch(locks, lock_order(u, mate_u, x, y, taken - 1 - k), -1)


@kernel(signature="float64[:], int32[:], int32[:], int32, float64, int32[:]", intended_races=_SCAN_RACES)
def roma_thread_phase(w, mate, locks, n, threshold, flips):
    """A parallel ROMA phase, a thread per matching edge (Hovland, MSc thesis 2020, Alg. 6 with augLocks = Alg. 5 +
    Alg. 7).

    Thread ``u`` (for ``u < M[u]``, line 2) scans every other matching edge for the swap of largest
    gain above ``threshold`` (Alg. 5) and tries it with :func:`atomic_flip` (line 3).
    """
    u = T.gtid()
    while u < n:
        mate_u = mate[u]
        if u < mate_u:
            swap = best_swap(w, mate, n, u, mate_u, 0, 1, threshold)
            if swap >= 0:
                atomic_flip(mate, locks, swap // n, swap % n, u, mate_u, flips)
        u += T.num_threads()


@device
def block_best_swap(gains, swaps):
    """Alg. 8 line 23, ``BlockReduce`` with a max of gains: a shared-memory tree reduction leaves the block's
    best gain and swap (``a * n + b``) in slot 0 (ties to the lower thread).  Block size: a power of two."""
    tid = T.thread_id()
    stride = T.block_size() // 2
    while stride > 0:
        if tid < stride:
            if gains[tid + stride] > gains[tid]:
                gains[tid] = gains[tid + stride]
                swaps[tid] = swaps[tid + stride]
        T.syncthreads()
        stride = stride // 2


@kernel(signature="float64[:], int32[:], int32[:], int32, float64, int32[:]", intended_races=_SCAN_RACES)
def roma_block_phase(w, mate, locks, n, threshold, flips):
    """A parallel ROMA phase, a block per matching edge (Hovland, MSc thesis 2020, Alg. 8).

    Block ``u`` (for ``u < M[u]``): its threads stride over the other matching edges (lines 4–21), a block
    reduction finds the best swap (line 23) and thread 0 tries :func:`atomic_flip` (lines 25–26).  Thread 0
    reads ``M[u]`` once into shared memory for the whole block: in Alg. 8 every thread re-reads it (line 3),
    and if another block flips ``u``'s edge in between, threads of one block disagree on taking the branch
    that holds ``syncthreads`` — a divergent barrier.  Block size: a power of two, at most 256.
    """
    gains = T.shared_array(256, T.f64)
    swaps = T.shared_array(256, T.i32)
    shared_mate = T.shared_array(1, T.i32)
    tid = T.thread_id()
    u = T.block_id()
    while u < n:
        if tid == 0:
            shared_mate[0] = T.atomic_load(mate, u)
        T.syncthreads()
        mate_u = shared_mate[0]
        if u < mate_u:
            swap = best_swap(w, mate, n, u, mate_u, tid, T.block_size(), threshold)
            gain = threshold
            if swap >= 0:
                gain = swap_gain(w, n, u, mate_u, swap // n, swap % n)
            gains[tid] = gain
            swaps[tid] = swap
            T.syncthreads()
            block_best_swap(gains, swaps)
            if tid == 0:
                if swaps[0] >= 0:
                    atomic_flip(mate, locks, swaps[0] // n, swaps[0] % n, u, mate_u, flips)
        T.syncthreads()
        u += T.grid_size()
