"""A level's vertices in the degree groups of §4.1 (Naim et al., IPDPS 2017, Alg. 1 line 5), on the device: the
groups' bounds, one array ``vset`` holding each group's vertices from its offset, and the sweep's refill of it with
the vertices a sweep looks at (all of them, or with pruning those a neighbour's move woke).

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

from gpusim.runtime.device import Device
from gpusim.runtime.launcher import Launcher

from . import kernels_move as mv

__all__ = ["DegreeGroups"]

_INT32_MAX = int(np.iinfo(np.int32).max)


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
        self._each(mv.count_buckets, degree, self.bounds, self.n_groups, counts, n)
        sizes = dev.to_host(counts)[:self.n_groups].astype(np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int32)
        self.starts, self.vset = dev.array(self.offsets), dev.zeros(max(n, 1), np.int32)
        self.fill(active, 0)  # every vertex: the counts are the sizes, nothing to read back
        self.every_vertex = [(int(start), int(size)) for start, size in zip(self.offsets, sizes, strict=True)]

    def _each(self, kernel, *args) -> None:
        self.launch(kernel, Device.grid_for(self.n, mv.BLOCK, self.max_grid), mv.BLOCK, *args)

    def fill(self, active, sweep: int):
        """The vertices with ``active[i] >= sweep`` put in their groups' parts of ``vset``; returns the parts' ends
        on the device (:meth:`taken` reads them), so that a caller may read them with something else."""
        cursor = self.dev.empty(self.n_groups, np.int32)
        self.launch(mv.copy_labels, 1, mv.BLOCK, self.starts, cursor, self.n_groups)
        self._each(mv.fill_buckets, self.degree, self.bounds, self.n_groups, cursor, self.vset, active, sweep,
                   self.n)
        return cursor

    def taken(self, ends) -> list[tuple[int, int]]:
        """``(offset, count)`` of each group that :meth:`fill` filled (one read back)."""
        ends = self.dev.to_host(ends)[:self.n_groups]
        return [(int(start), int(end - start)) for start, end in zip(self.offsets, ends, strict=True)]
