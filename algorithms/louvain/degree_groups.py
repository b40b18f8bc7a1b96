"""A level's vertices in the degree groups of §4.1 (Naim et al., IPDPS 2017, Alg. 1 line 5; Alg. 3 line 21 for the
communities), on the device: the groups' bounds, one array ``vset`` holding each group's vertices from its offset,
and the sweep's refill of it with the vertices a sweep looks at (all of them, or with pruning those a neighbour's
move woke).  The kernels count and place a block's vertices together (:func:`count_buckets`, :func:`fill_buckets`),
with one atomic on a group's counter per block where one per warp queued on the few counters.

>>> import numpy as np
>>> from gpusim import Device
>>> from gpusim.runtime.launcher import Launcher
>>> dev = Device("sim", seed=0)
>>> degree = dev.array(np.array([1, 9, 3, 0, 40], np.int32))
>>> groups = DegreeGroups(dev, Launcher(dev), degree, (4, 8, 16, 32), 5, dev.zeros(5, np.int32))
>>> groups.every_vertex  # a vertex with no edge is in no group
[(0, 2), (2, 0), (2, 1), (3, 0), (3, 1)]
>>> sorted(dev.to_host(groups.vset)[:2].tolist())  # degrees 1 and 3: the first group
[0, 2]
"""

from __future__ import annotations

import numpy as np

from gpusim import T, device, kernel
from gpusim.language.reductions import warp_scan_sum
from gpusim.runtime.device import Device
from gpusim.runtime.launcher import Launcher

from .kernels_move import BLOCK

__all__ = ["GROUPS_MAX", "WARP_COUNTS", "DegreeGroups", "append_to_bucket", "block_count", "bucket_of", "count_buckets",
           "fill_buckets", "warp_counts"]

#: The most degree groups of a level (§4.1's seven, Alg. 3's four): the room a block counts them in.
GROUPS_MAX = 8
#: A block's counts: ``GROUPS_MAX`` for each of its warps.
WARP_COUNTS = BLOCK // 32 * GROUPS_MAX
_INT32_MAX = int(np.iinfo(np.int32).max)


@device
def bucket_of(degree, bounds, n_buckets):
    """The bucket ``b`` with ``bounds[b] < degree <= bounds[b + 1]``; -1 for degree 0 (nothing to move or merge)."""
    if degree == 0:
        return -1
    b = 0
    while b < n_buckets - 1 and degree > bounds[b + 1]:
        b += 1
    return b


@device
def warp_counts(b, n_buckets, counts_by_warp):
    """Block-wide, first half: how many of this warp's lanes have bucket ``b`` (-1: none), for each bucket, in
    ``counts_by_warp[warp * GROUPS_MAX + q]``; returns this lane's rank among its warp's lanes of its bucket (from
    1).  A barrier follows before anyone reads the counts."""
    rank = 0
    for q in range(n_buckets):
        keep = 0
        if b == q:
            keep = 1
        below = warp_scan_sum(keep)
        if keep == 1:
            rank = below
        if T.lane_id() == 31:
            counts_by_warp[T.warp_id() * GROUPS_MAX + q] = below
    return rank


@device
def block_count(q, counts_by_warp):
    """Bucket ``q``'s count over the block's warps (:func:`warp_counts`)."""
    total = 0
    for other in range(T.block_size() // 32):
        total += counts_by_warp[other * GROUPS_MAX + q]
    return total


@kernel(signature="int32[:], int32[:], int32, int32[:], int32")
def count_buckets(degree, bounds, n_buckets, counts, n):
    """Alg. 1 line 5 and Alg. 3 line 21, first half: how many vertices (communities) fall in each degree bucket.

    The block counts its vertices per bucket (:func:`warp_counts`) and thread ``q`` adds bucket ``q``'s count up
    over the block's turns, then adds it to ``counts[q]`` with one atomic: an atomic per vertex, or per warp, on the
    few counters queued behind each other (0.5 ms a launch on 4 million vertices on an H200, per vertex)."""
    counts_by_warp = T.shared_array(WARP_COUNTS, T.i32)
    mine = 0
    i = T.gtid()
    while i - T.thread_id() < n:
        b = -1
        if i < n:
            b = bucket_of(degree[i], bounds, n_buckets)
        warp_counts(b, n_buckets, counts_by_warp)
        T.syncthreads()
        if T.thread_id() < n_buckets:
            mine += block_count(T.thread_id(), counts_by_warp)
        T.syncthreads()
        i += T.num_threads()
    if T.thread_id() < n_buckets and mine > 0:
        T.atomic_add(counts, T.thread_id(), mine)


@device
def append_to_bucket(b, n_buckets, starts, filled, vset, i, counts_by_warp, block_start):
    """Block-wide: each thread's item ``i`` appended to bucket ``b``'s part of ``vset`` (``b = -1``: none), which
    begins at ``starts[b]`` and holds ``filled[b]`` items so far: one atomic on ``filled`` per bucket and block turn
    (thread ``q`` takes bucket ``q``'s room), each item's slot from the block's room, the warps before its own and
    its rank in its warp (:func:`warp_counts`)."""
    rank = warp_counts(b, n_buckets, counts_by_warp)
    T.syncthreads()
    q = T.thread_id()
    if q < n_buckets:
        total = block_count(q, counts_by_warp)
        start = 0
        if total > 0:
            start = starts[q] + T.atomic_add(filled, q, total)
        block_start[q] = start
    T.syncthreads()
    if b >= 0:
        slot = block_start[b] + rank - 1
        for other in range(T.warp_id()):
            slot += counts_by_warp[other * GROUPS_MAX + b]
        vset[slot] = i
    T.syncthreads()  # the counts are written again at the next turn


@kernel(signature="int32[:], int32[:], int32, int32[:], int32[:], int32[:], int32[:], int32, int32")
def fill_buckets(degree, bounds, n_buckets, starts, filled, vset, active, sweep, n):
    """Alg. 1 line 5, second half (Thrust's ``partition``): each vertex with ``active[i] >= sweep`` appended to its
    bucket's part of ``vset``, which begins at ``starts[b]`` (:func:`append_to_bucket`); ``filled[b]`` (zeros) counts
    them.

    ``active`` all zeros and ``sweep`` 0 take every vertex (the paper's partition, once a phase); with pruning,
    ``active[i]`` is the sweep from which ``i`` is to be looked at again (:func:`~.kernels_apply.wake_neighbours`)."""
    counts_by_warp = T.shared_array(WARP_COUNTS, T.i32)
    block_start = T.shared_array(GROUPS_MAX, T.i32)
    i = T.gtid()
    while i - T.thread_id() < n:
        b = -1
        if i < n and active[i] >= sweep:
            b = bucket_of(degree[i], bounds, n_buckets)
        append_to_bucket(b, n_buckets, starts, filled, vset, i, counts_by_warp, block_start)
        i += T.num_threads()


class DegreeGroups:
    """The groups of a level whose vertices have ``degree`` (a device array of ``n``), the groups' lower bounds
    ``bounds`` (above the first); ``active`` (zeros) is the pruning's array, every vertex taken at first.
    ``every_vertex``: ``(offset, count)`` of each group with all its vertices."""

    def __init__(self, dev: Device, launch: Launcher, degree, bounds: tuple[int, ...], n: int, active,
                 max_grid: int | None = None):
        self.dev, self.launch, self.degree, self.n, self.max_grid = dev, launch, degree, n, max_grid
        self.n_groups = len(bounds) + 1
        self.bounds = dev.array(np.array((0, *bounds, _INT32_MAX), np.int32))
        counts = dev.zeros(self.n_groups, np.int32)
        self._each(count_buckets, degree, self.bounds, self.n_groups, counts, n)
        sizes = dev.to_host(counts)[:self.n_groups].astype(np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int32)
        self.starts, self.vset = dev.array(self.offsets), dev.zeros(max(n, 1), np.int32)
        self.fill(active, 0)  # every vertex: the counts are the sizes, nothing to read back
        self.every_vertex = [(int(start), int(size)) for start, size in zip(self.offsets, sizes, strict=True)]

    def _each(self, kernel, *args) -> None:
        self.launch(kernel, Device.grid_for(self.n, BLOCK, self.max_grid), BLOCK, *args)

    def fill(self, active, sweep: int):
        """The vertices with ``active[i] >= sweep`` put in their groups' parts of ``vset``; returns how many each
        group has, on the device, for a caller to read back with something else (:meth:`taken`)."""
        filled = self.dev.zeros(self.n_groups, np.int32)
        self._each(fill_buckets, self.degree, self.bounds, self.n_groups, self.starts, filled, self.vset, active,
                   sweep, self.n)
        return filled

    def taken(self, sizes) -> list[tuple[int, int]]:
        """``(offset, count)`` of each group, from the sizes of a :meth:`fill` read back."""
        return [(int(start), int(count)) for start, count in zip(self.offsets, sizes, strict=True)]
